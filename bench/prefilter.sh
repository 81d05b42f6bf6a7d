#!/usr/bin/env bash
# bench/prefilter.sh [--root DIR] [--rounds N] DB HOTSCAN [-- SCAN ARGS]
# The prefilter's goal (issue 15) measured side by side in one run, --no-cache: per round the
# warm parse floor (bench/parse_floor.c: every TU of DB parsed once, nothing else), then
# `hotscan scan` without and with --prefilter; prints the share of TUs the prefilter left out,
# its own CPU, each scan's CPU / the floor's (the goal: the prefiltered scan below 1.0), and
# whether the two reports have the same findings (fingerprint and message).
#
# The floor parses every TU of the database: give SCAN ARGS no PATHs (hot roots are fine), so
# both sides cover the same TUs. Env: JOBS (default 2).
set -euo pipefail
export HOTSCAN_NO_CACHE=1
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,5p' "$0" | sed 's/^# //' >&2; exit 2; }
root= rounds=1
while [ $# -gt 0 ]; do
    case $1 in
        --root) root=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        -h|--help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || usage
if [ -d "$1" ]; then db=$(cd "$1" && pwd); else db=$(cd "$(dirname "$1")" && pwd); fi
bin=$(realpath "$2")
shift 2
[ "${1:-}" = "--" ] && shift
root=$(cd "${root:-$db}" && pwd)
jobs=${JOBS:-2}
floor=$here/../build/parse_floor
[ -x "$floor" ] || { echo "$(basename "$0"): build hotscan first (bash .ci/setup builds build/parse_floor too)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m() { python3 "$here/measure.py" --json "$@"; }
for r in $(seq 1 "$rounds"); do
    m --stdout "$tmp/floor-$r.out" -- "$floor" "$db" >"$tmp/floor-$r.json"
    for which in whole pf; do
        extra=
        [ "$which" = pf ] && extra=--prefilter
        # measure.py drops the command's stderr: a shell keeps it (for the prefilter's note).
        (cd "$db" && m -- sh -c 'err=$1; shift; exec "$@" 2>"$err"' sh "$tmp/$which-$r.err" \
            "$bin" scan $extra --format json --exit-zero --min-confidence low -j "$jobs" -p "$db" \
            --root "$root" -o "$tmp/$which-$r.report.json" "$@") >"$tmp/$which-$r.json"
    done
done
python3 - "$tmp" "$rounds" <<'PY'
import json, re, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
key = lambda d: sorted((f['fingerprint'], f['message']) for f in d['findings'])
print(f"{'round':>5} {'TUs':>5} {'left out':>9} {'share':>6} {'prefilter CPU s':>15} {'floor CPU s':>11} "
      f"{'scan CPU s':>10} {'x floor':>8} {'--prefilter CPU s':>17} {'x floor':>8} {'same findings':>13}")
for r in range(1, rounds + 1):
    floor = float(open(f"{tmp}/floor-{r}.out").read().split()[1])
    w, p = (json.load(open(f"{tmp}/{x}-{r}.json")) for x in ("whole", "pf"))
    wr, pr = (json.load(open(f"{tmp}/{x}-{r}.report.json")) for x in ("whole", "pf"))
    n = pr['summary']['translation_units']
    out = pr['summary'].get('prefiltered', 0)
    note = re.search(r"prefilter leaves out .*?; ([0-9.]+) CPU-s", open(f"{tmp}/pf-{r}.err").read())
    own = float(note.group(1)) if note else float('nan')
    same = "yes" if key(wr) == key(pr) else "NO"
    print(f"{r:>5} {n:>5} {out:>9} {out / max(n, 1):6.1%} {own:15.2f} {floor:11.2f} {w['cpu']:10.2f} "
          f"{w['cpu'] / floor:8.2f} {p['cpu']:17.2f} {p['cpu'] / floor:8.2f} {same:>13}")
PY
