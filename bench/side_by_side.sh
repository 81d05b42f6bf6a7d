#!/usr/bin/env bash
# bench/side_by_side.sh [--root DIR] [--rounds N] [--out DIR] DB BEFORE AFTER [-- SCAN ARGS]
# Two hotscan binaries and the warm parse floor on one compile database, interleaved
# (floor, BEFORE, AFTER, then again, N rounds): CPU (user + system of every process),
# peak RSS, and each binary's CPU / the same round's floor CPU.
#
# On a machine other people use, wall time and even CPU seconds move with their load
# (contended caches, SMT siblings): compare the ratios of one round, measured minutes
# apart, not numbers from different runs. Both binaries run `hotscan scan -j 2 --format
# json --exit-zero` with SCAN ARGS (e.g. the hot roots of issue 9) from the database's
# folder; with --out DIR the reports stay there (DIR/before-R.json, DIR/after-R.json) to
# compare with bench/same_findings.py. Run from a hotscan checkout (bench/parse_floor.c
# is built into ./build). Env: JOBS (default 2).
set -euo pipefail
# Every run parses, with the header skip: a facts-cache hit would measure a read, and a
# cache turns the skip off (its entries must be whole).
export HOTSCAN_NO_CACHE=1
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,5p' "$0" | sed 's/^# //' >&2; exit 2; }
root= rounds=2 out=
while [ $# -gt 0 ]; do
    case $1 in
        --root) root=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        -h|--help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 3 ] || usage
if [ -d "$1" ]; then db=$(cd "$1" && pwd); else db=$(cd "$(dirname "$1")" && pwd); fi
before=$(realpath "$2") after=$(realpath "$3")
shift 3
[ "${1:-}" = "--" ] && shift
root=$(cd "${root:-$db}" && pwd)
jobs=${JOBS:-2}
floor=$here/../build/parse_floor
[ -x "$floor" ] || { echo "$(basename "$0"): build hotscan first (bash .ci/setup builds build/parse_floor too)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${out:-$tmp}
mkdir -p "$out"
# The scans run in the database's folder: a relative --out must not land there.
out=$(cd "$out" && pwd)
m() { python3 "$here/measure.py" --json "$@"; }
for r in $(seq 1 "$rounds"); do
    m --stdout "$tmp/floor-$r.out" -- "$floor" "$db" >"$tmp/floor-$r.json"
    for which in before after; do
        bin=$before
        [ "$which" = after ] && bin=$after
        (cd "$db" && m -- "$bin" scan -q --format json --exit-zero -j "$jobs" -p "$db" --root "$root" \
            -o "$out/$which-$r.json" "$@") >"$tmp/$which-$r.json"
    done
done
python3 - "$tmp" "$rounds" "$out" <<'PY'
import json, sys
tmp, rounds, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
mb = lambda kb: f"{kb / 1024:.0f} MB"
print(f"{'round':>5} {'floor CPU s':>11} {'before CPU s':>12} {'x floor':>8} {'after CPU s':>11} "
      f"{'x floor':>8} {'after/before':>12} {'RSS before':>11} {'RSS after':>10}")
for r in range(1, rounds + 1):
    floor_cpu = float(open(f"{tmp}/floor-{r}.out").read().split()[1])
    b = json.load(open(f"{tmp}/before-{r}.json"))
    a = json.load(open(f"{tmp}/after-{r}.json"))
    print(f"{r:>5} {floor_cpu:11.2f} {b['cpu']:12.2f} {b['cpu'] / floor_cpu:8.2f} {a['cpu']:11.2f} "
          f"{a['cpu'] / floor_cpu:8.2f} {a['cpu'] / b['cpu']:12.3f} {mb(b['maxrss_kb']):>11} "
          f"{mb(a['maxrss_kb']):>10}")
print(f"(RSS: the largest process; reports in {out})")
PY
