#!/usr/bin/env bash
# bench/nobuild.sh HOTSCAN [OUTDIR] [TREE...] - the no-build mode (scan --no-build) against
# the full scan on real trees, side by side in one run: CPU and peak memory of each (a cold
# full scan: --no-cache), then recall and precision of the no-build findings against the
# full scan's by rule + file + line (bench/nobuild_compare.py). Trees: redis haproxy
# (default), in /work/trees/<tree> with compile_commands.json; the hot roots and options are
# those of /work/baseline/run-baseline.sh (-j2 --format json --exit-zero --min-confidence low).
# The full scan reads the compile database's TUs; the no-build scan reads every C/C++ file
# under the same PATHs (redis: src; haproxy: the whole tree), so the comparison is also given
# for the files the build compiles (and headers).
set -euo pipefail
HOTSCAN=$(realpath "$1")
OUT=${2:-$(mktemp -d)}
shift 2 2>/dev/null || shift $#
TREES=${@:-redis haproxy}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
COMMON="-j2 --format json --exit-zero --min-confidence low"
for t in $TREES; do
  case $t in
    redis)     PATHS=src; HOT="--hot call --hot readQueryFromClient --hot writeToClient";;
    haproxy)   PATHS=.;   HOT="--hot process_stream --hot run_tasks_from_lists --hot fd_update_events";;
    memcached) PATHS=.;   HOT="--hot drive_machine --hot process_command_ascii";;
    *) echo "unknown tree $t" >&2; exit 2;;
  esac
  cd "/work/trees/$t"
  full=$(python3 "$HERE/measure.py" -- "$HOTSCAN" scan -q --no-cache -p . --root "$PWD" $COMMON \
         -o "$OUT/$t.full.json" $HOT $PATHS)
  nb=$(python3 "$HERE/measure.py" -- "$HOTSCAN" scan -q --no-build --root "$PWD" $COMMON \
       -o "$OUT/$t.nobuild.json" $HOT $PATHS)
  read -r fw fc fm _ <<<"$full"
  read -r nw nc nm _ <<<"$nb"
  echo "== $t: full scan ${fc} CPU-s (${fw} s wall, ${fm} KB), no-build ${nc} CPU-s (${nw} s wall, ${nm} KB):" \
       "CPU ratio $(python3 -c "print('%.2f' % ($nc / $fc))")"
  python3 "$HERE/nobuild_compare.py" "$OUT/$t.full.json" "$OUT/$t.nobuild.json" \
          --built compile_commands.json "$PWD"
done
echo "reports in $OUT"
