#!/usr/bin/env bash
# bench/shard_cost.sh [--shards N] [--out DIR] DB BIN [BIN2] [-- SCAN ARGS]
# What splitting a scan into CI shards costs (issue 15), side by side in one run: for each
# binary, one whole scan, then N `scan --shard K/N --facts-out` runs and the `hotscan judge`
# over their facts. Prints CPU seconds (user + system of every process), the shards' sum with
# the judge against the whole scan (target <= 1.10), the facts' size on disk, and whether
# the judge's findings are the whole scan's (bench/same_findings.py: fingerprints, whole
# findings and report sections). Every run is --no-cache: a hit would measure a read.
# SCAN ARGS go to every scan and to the judge (e.g. --min-confidence low --hot ...).
# The reports stay in --out DIR (INDEX-whole.json, INDEX-judged.json). Env: JOBS (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
shards=4 out=
while [ $# -gt 0 ]; do
    case $1 in
        --shards) shards=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        -h|--help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || usage
if [ -d "$1" ]; then db=$(cd "$1" && pwd); else db=$(cd "$(dirname "$1")" && pwd); fi
bins=("$(realpath "$2")")
shift 2
if [ $# -gt 0 ] && [ "$1" != "--" ]; then bins+=("$(realpath "$1")"); shift; fi
[ "${1:-}" = "--" ] && shift
jobs=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${out:-$tmp/out}
mkdir -p "$out"
m() { python3 "$here/measure.py" --json "$@"; }
for i in "${!bins[@]}"; do
    b=${bins[$i]}
    (cd "$db" && m -- "$b" scan -q --no-cache --format json --exit-zero -j "$jobs" -p "$db" --root "$db" \
        -o "$out/$i-whole.json" "$@") >"$tmp/$i-whole.m.json"
    for k in $(seq 1 "$shards"); do
        (cd "$db" && m -- "$b" scan -q --no-cache -j "$jobs" -p "$db" --root "$db" --shard "$k/$shards" \
            --facts-out "$tmp/facts-$i" "$@") >"$tmp/$i-shard$k.m.json"
    done
    (cd "$db" && m -- "$b" judge -q --format json --exit-zero -j "$jobs" --root "$db" -o "$out/$i-judged.json" \
        "$@" "$tmp/facts-$i") >"$tmp/$i-judge.m.json"
    du -sm "$tmp/facts-$i" | cut -f1 >"$tmp/$i-facts.mb"
done
python3 - "$tmp" "$shards" "$out" "$here/same_findings.py" "${bins[@]}" <<'PY'
import json, subprocess, sys
tmp, n, out, same, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
cpu = lambda name: json.load(open(f"{tmp}/{name}.m.json"))["cpu"]
print(f"{'binary':<32} {'whole s':>8} " + " ".join(f"{'shard ' + str(k) + ' s':>9}" for k in range(1, n + 1)) +
      f" {'judge s':>8} {'sum s':>7} {'sum/whole':>9} {'facts MB':>8}  findings")
for i, b in enumerate(bins):
    w = cpu(f"{i}-whole")
    parts = [cpu(f"{i}-shard{k}") for k in range(1, n + 1)]
    j = cpu(f"{i}-judge")
    total = sum(parts) + j
    r = subprocess.run([sys.executable, same, f"{out}/{i}-whole.json", f"{out}/{i}-judged.json"],
                       capture_output=True, text=True)
    verdict = (r.stdout.strip().splitlines() or ["?"])[-1]
    mb = open(f"{tmp}/{i}-facts.mb").read().strip()
    print(f"{b[-32:]:<32} {w:8.2f} " + " ".join(f"{p:9.2f}" for p in parts) +
          f" {j:8.2f} {total:7.2f} {total / w:9.3f} {mb:>8}  {verdict}")
PY
