#!/usr/bin/env bash
# The facts cache with damaged entries: bytes flipped in every file of one kind of entry
# (KIND: facts, the facts documents; key, the key files; verdict, the fix-it verification
# verdicts) must give the report a clean cache gives (same findings, same fix-its, the same
# fixes rejected), say that the damaged files were dropped, and leave an entry that the next
# run uses again. Usage: cache_damage.sh /path/to/hotscan KIND
set -u
HOTSCAN=$(realpath "$1")
KIND=$2
case $KIND in
facts) ext=facts.json ;;
key) ext=key ;;
verdict) ext=verdict ;;
*) echo "cache_damage.sh: unknown kind $KIND (facts, key or verdict)" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"

# A TU with four fixes of which one adds a compile error (the fix for the _Atomic counter
# needs <stdatomic.h>: found by halving, so verdicts that fail and verdicts that pass), and
# a TU with a verified clock fix-it that reads a header.
mkdir -p "$work/proj"
cd "$work/proj"
cat >b.c <<'SRC'
_Atomic long plain_hits;
long gnu_hits, gnu_misses, gnu_bytes;
void hit(void) { plain_hits++; }
void gnu(long n) {
    __atomic_fetch_add(&gnu_hits, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&gnu_misses, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&gnu_bytes, n, __ATOMIC_SEQ_CST);
}
SRC
cat >clock.h <<'SRC'
#include <time.h>
struct trx { long start, stamp; };
SRC
cat >t.c <<'SRC'
#include "clock.h"
__attribute__((hot)) void trx_start(struct trx *t) {
    t->start = clock();
    t->stamp = clock();
}
SRC
printf '[{"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]},\n {"directory": "%s", "file": "t.c", "arguments": ["cc", "-c", "t.c"]}]\n' \
  "$work/proj" "$work/proj" >compile_commands.json
# Older than any parse: the cache keeps entries only for inputs that are (facts_cache.c).
touch -d '-1 hour' b.c t.c clock.h

scan() { # the report into $work/$1.json, standard error into $work/$1.err; more options after
  local name=$1
  shift
  HOTSCAN_BENCH_VERIFY_STATS="$work/$name.stats" "$HOTSCAN" scan --format json --exit-zero --min-confidence low -j 1 \
    -p . -o "$work/$name.json" "$@" 2>"$work/$name.err"
}
# What a report says, without its timings and cache counts.
outcome() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    print(json.dumps([f["rule"], f["file"], f["line"], f["column"], f["message"], f.get("fixes"),
                      f.get("fix_unavailable")], sort_keys=True))
print(json.dumps(d.get("files"), sort_keys=True))' "$1"
}
same_outcome() { test "$(outcome "$work/$1.json")" = "$(outcome "$work/$2.json")"; }
from_cache() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["tus_from_cache"])' "$work/$1.json"; }

scan clean --no-cache
check "the clean report has a verified fix-it" \
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not any(x.get("verified") for f in d["findings"] for x in f["fixes"]))' "$work/clean.json"
check "... and a fix rejected for a compile error" \
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not any("compile error" in f.get("fix_unavailable", "") for f in d["findings"]))' "$work/clean.json"
scan fill --cache "$work/cache"
check "a first run with a cache gives the clean report" same_outcome clean fill
scan hit --cache "$work/cache"
check "a rerun takes both TUs from the cache" test "$(from_cache hit)" = 2
check "... and every verdict" grep -q "0 reparses in 3 rounds, 6 verdicts from the facts cache" "$work/hit.stats"
check "... with the clean report" same_outcome clean hit
entries=$(find "$work/cache" -name "*.$ext" | wc -l)
check "the cache holds $KIND entries" test "$entries" -gt 0
mv "$work/cache" "$work/pristine"

# Offsets to flip in a file: its first byte, the middle of its first line, the first digit
# of its second line (a verdict's error count: 0 <-> 1 keeps it a well-formed verdict), the
# middle of the file and its last byte. Each byte is XORed with 1 (a digit stays a digit).
offsets() {
  python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
nl = b.find(b"\n")
line1 = nl if nl >= 0 else len(b)
offs = [0, line1 // 2]
if nl >= 0:
    second = b[nl + 1:b.find(b"\n", nl + 1) if b.find(b"\n", nl + 1) >= 0 else len(b)]
    digits = [i for i, c in enumerate(second) if 48 <= c <= 57]
    if digits:
        offs.append(nl + 1 + digits[0])
offs += [len(b) // 2, len(b) - 1]
print(" ".join(str(o) for o in sorted(set(offs))))' "$1"
}
flip() { # file, offset
  python3 -c '
import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
b[o] ^= 1
open(p, "wb").write(bytes(b))' "$1" "$2"
}

# One position at a time: every position the offsets give in the first entry of the kind,
# and the same place (when the file is long enough) in every other entry of the kind.
first=$(find "$work/pristine" -name "*.$ext" | sort | head -1)
for off in $(offsets "$first"); do
  rm -rf "$work/cache"
  cp -a "$work/pristine" "$work/cache"
  for e in $(find "$work/cache" -name "*.$ext"); do
    size=$(stat -c %s "$e")
    test "$off" -lt "$size" && flip "$e" "$off"
  done
  scan damaged --cache "$work/cache"
  check "$KIND entries with byte $off flipped: the clean report" same_outcome clean damaged
  check "... the damaged entries are dropped, and said so" grep -q "dropped the damaged cache entry" "$work/damaged.err"
  scan again --cache "$work/cache"
  check "... recomputed: the next run takes both TUs from the cache" test "$(from_cache again)" = 2
  check "... and every verdict" grep -q "0 reparses in 3 rounds, 6 verdicts from the facts cache" "$work/again.stats"
  check "... with the clean report" same_outcome clean again
done

checks_done
