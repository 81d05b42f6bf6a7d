#!/usr/bin/env bash
# bench/indirect_cost.sh [--root DIR] [--runs N] DB [HOTSCAN-SCAN-ARGS...] - what resolving
# calls through function pointers and virtual calls costs (issue 9: at most 5% of a scan's
# CPU), measured side by side in one run.
#
# Runs `hotscan scan -j 1` over the compile database DB (a compile_commands.json or its
# folder) N times each (default 3), alternating, with indirect calls resolved (the default)
# and with HOTSCAN_BENCH_NO_INDIRECT=1, which makes the walk record no call through a
# pointer, no function address stored into a slot and no override, so the merge resolves
# nothing. Prints the median CPU of each, their ratio, and the hot set's size (functions
# reachable from the hot roots: pass them as HOTSCAN-SCAN-ARGS, e.g. --hot call) for both.
# -j 1 keeps CPU from depending on how TUs land on workers. Run from a checkout built in
# ./build.
set -euo pipefail
# Every run parses: a facts-cache hit would measure a read, not extraction.
export HOTSCAN_NO_CACHE=1
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,4p' "$0" | sed 's/^# //' >&2; exit 2; }
root= runs=3
while [ $# -gt 0 ]; do
    case $1 in
        --root) root=${2:?--root needs a folder}; shift 2 ;;
        --runs) runs=${2:?--runs needs a number}; shift 2 ;;
        -h|--help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || usage
if [ -d "$1" ]; then db=$(cd "$1" && pwd); else db=$(cd "$(dirname "$1")" && pwd); fi
shift
[ -f "$db/compile_commands.json" ] || { echo "indirect_cost.sh: no compile_commands.json in $db" >&2; exit 2; }
root=$(cd "${root:-$db}" && pwd)
hotscan=$here/../build/hotscan
[ -x "$hotscan" ] || { echo "indirect_cost.sh: build hotscan first (bash .ci/setup)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$runs"); do
    for mode in with without; do
        if [ $mode = without ]; then export HOTSCAN_BENCH_NO_INDIRECT=1; else unset HOTSCAN_BENCH_NO_INDIRECT; fi
        python3 "$here/measure.py" --json -- "$hotscan" scan -q --format json --exit-zero --min-confidence low \
            -o "$tmp/$mode.report" -j 1 -p "$db" --root "$root" "$@" >"$tmp/$mode.$i.json"
    done
done
unset HOTSCAN_BENCH_NO_INDIRECT
python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
cpu = {m: statistics.median(json.load(open(f"{tmp}/{m}.{i}.json"))["cpu"] for i in range(1, runs + 1))
       for m in ("with", "without")}
hot = {m: json.load(open(f"{tmp}/{m}.report"))["summary"].get("hot_functions") for m in ("with", "without")}
print(f"{'run':<28} {'CPU s (median of %d)' % runs:>22} {'hot functions':>14}")
print(f"{'indirect calls not resolved':<28} {cpu['without']:>22.2f} {str(hot['without']):>14}")
print(f"{'indirect calls resolved':<28} {cpu['with']:>22.2f} {str(hot['with']):>14}")
print(f"resolved / not resolved CPU: {cpu['with'] / cpu['without']:.3f}")
PY
