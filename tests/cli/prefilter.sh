#!/bin/bash
# tests/cli/prefilter.sh - scan --prefilter (issue 15): on a small tree with a compile database
# (-I include folder, angled includes), a TU that can contribute nothing is left out and the
# findings stay the same, by fingerprint and message; the TUs it must keep (a load of a
# header's atomic, a function the hot path reaches through a pointer, a clock reached only
# through a header's macro) are kept; shards and judge give the whole scan's findings; a
# left-out TU gets no facts-cache entry.
# usage: prefilter.sh HOTSCAN
HOTSCAN=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/check.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases="$here/../../corpus/prefilter"
t="$work/tree"
mkdir -p "$t/include" "$t/src"
# The corpus cases as one program, headers moved to include/ and included with <...>.
for c in header_atomic pointer_call header_macro; do
  for f in "$cases/$c"/*; do
    b=$(basename "$f")
    case $b in
      *.h) sed 's|#include "\(.*\)"|#include <\1>|' "$f" >"$t/include/$b" ;;
      unrelated.c) [ "$c" = header_atomic ] && cp "$f" "$t/src/$b" ;;
      *.c) sed 's|#include "\(.*\)"|#include <\1>|; s|^// hotscan-args:.*||' "$f" >"$t/src/$b" ;;
    esac
  done
done
printf '[' >"$t/compile_commands.json"
sep=
for f in "$t"/src/*.c; do
  b=$(basename "$f" .c)
  printf '%s{"directory": "%s", "file": "src/%s.c", "arguments": ["cc", "-Iinclude", "-c", "src/%s.c", "-o", "%s.o"]}' \
    "$sep" "$t" "$b" "$b" "$b" >>"$t/compile_commands.json"
  sep=,
done
printf ']\n' >>"$t/compile_commands.json"
scan() { (cd "$t" && "$HOTSCAN" scan --format json --exit-zero --min-confidence low -p . --hot serve --hot handle "$@"); }
same() { python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: sorted((f['fingerprint'], f['rule'], f['message'], f['confidence']) for f in d['findings'])
sys.exit(0 if key(a) == key(b) and len(a['findings']) > 0 else 1)
PY
}
summary() { python3 -c "import json; print(json.load(open('$1'))['summary'].get('$2'))"; }

scan -q --no-cache -o "$work/whole.json"
HOTSCAN_PREFILTER_DEBUG=1 scan --no-cache --prefilter -o "$work/pf.json" 2>"$work/err"
check "the whole scan finds the three cases' findings" test "$(python3 -c "import json; print(len(json.load(open('$work/whole.json'))['findings']))")" -ge 4
check "--prefilter: the same findings, by fingerprint and message" same "$work/whole.json" "$work/pf.json"
check "... it leaves out one TU (summary.prefiltered)" test "$(summary "$work/pf.json" prefiltered)" = 1
check "... which still counts as a TU" test "$(summary "$work/pf.json" translation_units)" = "$(summary "$work/whole.json" translation_units)"
check "... the unrelated one" grep -q "leaves out $t/src/unrelated.c" "$work/err"
for tu in report plugin stamp; do
  check "... it keeps $tu.c" grep -q "keeps $t/src/$tu.c" "$work/err"
done
check "... the summary line says so" grep -q "1 left out by the prefilter" "$work/err"
check "without --prefilter the summary has no prefiltered count" test "$(summary "$work/whole.json" prefiltered)" = None
HOTSCAN_PREFILTER=1 scan -q --no-cache -o "$work/env.json"
check "HOTSCAN_PREFILTER=1 turns it on" test "$(summary "$work/env.json" prefiltered)" = 1

# Shards: each decides over all TUs, so judge over the parts = the whole scan.
for k in 1 2; do
  scan -q --no-cache --prefilter --shard $k/2 --facts-out "$work/facts" >/dev/null 2>&1
done
check "--prefilter shards write every TU's facts (a stub for the left-out one)" test "$(ls "$work/facts" | wc -l)" -eq "$(ls "$t"/src/*.c | wc -l)"
(cd "$t" && "$HOTSCAN" judge -q --format json --exit-zero --min-confidence low --hot serve --hot handle "$work/facts" -o "$work/judged.json")
check "judge over --prefilter shards = the whole scan" same "$work/whole.json" "$work/judged.json"
check "... and counts the left-out TU" test "$(summary "$work/judged.json" prefiltered)" = 1

# The cache: a left-out TU needs no entry.
scan -q --cache "$work/c1" -o /dev/null
scan -q --prefilter --cache "$work/c2" -o /dev/null
n1=$(find "$work/c1" -type f | wc -l)
n2=$(find "$work/c2" -type f | wc -l)
check "a left-out TU has no facts-cache entry ($n1 vs $n2 files)" test "$n2" -lt "$n1"
scan -q --prefilter --cache "$work/c2" -o "$work/rerun.json"
check "... and a cached rerun with --prefilter gives the same findings" same "$work/whole.json" "$work/rerun.json"

# --profile: every TU is parsed (the profile's frames map to the program's functions).
printf 'serve;hook 10\n' >"$work/folded.txt"
scan --no-cache --prefilter --profile "$work/folded.txt" -o "$work/prof.json" 2>"$work/err"
check "--prefilter is not used with --profile, and says so" grep -q "not used with --profile" "$work/err"
checks_done
