#!/usr/bin/env bash
# The no-build mode (scan --no-build, issue 15): a small tree without a compile database read
# with tree-sitter alone. Positives: a clock read reached from a hot root through a header's
# inline function, a seq_cst counter bumped through a wrapper macro; negatives: a relaxed
# macro, a compare-and-swapped flag, a clock read nothing hot reaches, a C++ member `load` on
# an object not declared atomic. Every finding is marked from syntax, at most medium, without
# fix-its (JSON, SARIF, text), and hot-path and counter findings at most low; no database and no PATH falls back to it; with a database the
# full analysis runs. NOLINT comments suppress exactly the findings they name (and their text
# is no code); a FIFO, device, socket, dangling or looping link, or unreadable file, given or
# found in a folder, is that TU's error in both readers, never a hang, and the rest is
# scanned. Usage: nobuild.sh /path/to/hotscan
set -u
HOTSCAN=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"

run() {
    (cd "$work/proj" && "$HOTSCAN" "$@" >"$work/out" 2>"$work/err")
    status=$?
}
err_has() { grep -q -- "$1" "$work/err"; }
out_has() { grep -q -- "$1" "$work/out"; }
# py EXPR: EXPR over the JSON report `d` and its findings `f` must be true.
py() { python3 -c "import json,sys; d=json.load(open('$work/out')); f=d['findings']; sys.exit(0 if ($1) else 1)"; }
at() { echo "any(x['rule']=='$1' and x['file']=='$2' and x['line']==$3 for x in f)"; }

mkdir -p "$work/proj/src"
cat >"$work/proj/src/server.h" <<'C'
#include <time.h>
#define STAT_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_SEQ_CST)
#define STAT_INC_RELAXED(p) __atomic_add_fetch((p), 1, __ATOMIC_RELAXED)
struct counters { long long requests; long long relaxed_hits; long long claimed; };
extern struct counters stats;
static inline long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
C
cat >"$work/proj/src/loop.c" <<'C'
#include "server.h"
struct counters stats;
void handle(int fd);
void event_loop(void)
{
    for (;;)
        handle(0);
}
C
cat >"$work/proj/src/handle.c" <<'C'
#include "server.h"
void handle(int fd)
{
    long t = now_us();
    STAT_INC(&stats.requests);
    STAT_INC_RELAXED(&stats.relaxed_hits);
    (void)t;
    (void)fd;
}
long startup_stamp(void)
{
    return (long)time(NULL);
}
C
cat >"$work/proj/src/claim.c" <<'C'
#include "server.h"
int try_claim(void)
{
    long long zero = 0;
    return __atomic_compare_exchange_n(&stats.claimed, &zero, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
void reclaim(void) { STAT_INC(&stats.claimed); }
C
cat >"$work/proj/src/hits.c" <<'C'
static long long hits;
void hit(void) { __atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST); }
C
cat >"$work/proj/src/box.cpp" <<'C'
#include <atomic>
struct Box { long load() const { return v; } long v; };
std::atomic<long> served{0};
long peek(const Box &b) { return b.load(); }
void serve() { served.fetch_add(1); }
C

cat >"$work/proj/src/twice.c" <<'C'
#include <time.h>
struct conn { time_t last_seen, last_io; };
void touch(struct conn *c)
{
    c->last_seen = time(NULL);
    c->last_io = time(NULL);
}
C

# --- findings from syntax, marked ---
run scan --no-build --hot event_loop --format json --min-confidence low
check "findings exit 1" test "$status" -eq 1
check "the note says syntax only" err_has "with tree-sitter only (no build)"
check "clock read through a header's inline function" py "$(at timer-hot-path src/server.h 9)"
check "seq_cst counter through a wrapper macro" py "$(at atomic-seqcst-counter src/handle.c 5)"
check "std::atomic fetch_add" py "$(at atomic-seqcst-counter src/box.cpp 5)"
check "no relaxed-macro finding" py "not any(x['line']==6 and x['file']=='src/handle.c' for x in f)"
check "no compare-and-swapped flag" py "not any(x['file']=='src/claim.c' for x in f)"
check "no read nothing hot reaches" py "not any(x['line']==12 and x['file']=='src/handle.c' for x in f)"
check "no lookalike load() on a plain object" py "not any(x['file']=='src/box.cpp' and x['line']==4 for x in f)"
check "every finding from_syntax" py "f and all(x.get('from_syntax') is True for x in f)"
check "none above medium" py "all(x['confidence'] in ('medium','low') for x in f)"
check "hot-path and counter findings from syntax stay low" py "all(x['confidence']=='low' for x in f if x['rule'] in ('timer-hot-path','atomic-seqcst-counter'))"
check "no fix-its" py "all(not x.get('fixes') for x in f)"
check "the fix a build would verify is withheld" py "any(x['file']=='src/hits.c' and x['line']==2 and 'syntax only' in x.get('fix_unavailable','') for x in f)"
check "the summary says so" py "d['summary'].get('from_syntax') is True"
check "headers are TUs too" py "d['summary']['translation_units'] == 7"

run scan --no-build --prefilter --hot event_loop --format json --min-confidence low
check "--prefilter with --no-build says it is not used" err_has "note: --prefilter is not used with --no-build"
check "--prefilter with --no-build: the same findings" py "$(at atomic-seqcst-counter src/handle.c 5)"

run scan --no-build --hot event_loop --format sarif --min-confidence low
python3 -c "import json,sys; d=json.load(open('$work/out')); r=d['runs'][0]['results']; sys.exit(0 if r and all(x['properties'].get('from_syntax') is True and 'fixes' not in x for x in r) else 1)"
check "SARIF results carry from_syntax, no fixes" test $? -eq 0
run scan --no-build --hot event_loop --min-confidence low --color never
check "text marks [from syntax]" out_has "\[atomic-seqcst-counter\] \[from syntax\]"
run scan --no-build --hot event_loop --min-confidence low --patch "$work/fix.diff"
check "--patch writes no fix" test ! -s "$work/fix.diff"

# --- the confidence caps: a duplicate read keeps medium (hot-path and counter findings: low, above) ---
run scan --no-build --format json --min-confidence low src/twice.c
check "a duplicate read from syntax keeps medium" py "any(x['rule']=='timer-duplicate' and x['file']=='src/twice.c' and x['line']==6 and x['confidence']=='medium' for x in f)"

# --- no database, no PATH: the no-build mode by itself ---
run scan --hot event_loop --format json --min-confidence low
check "falls back without a database" err_has "no compile_commands.json in ./build or .; reading 7 C/C++ files"
check "the same findings" py "$(at atomic-seqcst-counter src/handle.c 5) and all(x.get('from_syntax') for x in f)"
# PATHs without a database keep libclang's default flags, as before
run scan --format json --min-confidence low src/handle.c src/loop.c --hot event_loop
check "PATHs without a database: libclang" py "not any(x.get('from_syntax') for x in f)"
check "PATHs: the default-flags note" err_has "parsing the given files with default flags"

# --- a database: the full analysis, nothing from syntax ---
python3 - "$work/proj" <<'PY'
import json, sys, os
root = sys.argv[1]
db = [{"directory": root, "file": "src/" + n, "arguments": ["cc", "-c", "src/" + n]} for n in ("loop.c", "handle.c", "claim.c", "hits.c")]
json.dump(db, open(os.path.join(root, "compile_commands.json"), "w"))
PY
run scan --no-cache --hot event_loop --format json --min-confidence low
check "database: no from_syntax" py "f and not any(x.get('from_syntax') for x in f)"
check "database: the counter at the same place" py "$(at atomic-seqcst-counter src/handle.c 5)"
# With a build, now_us() is a clock wrapper: its read is judged where handle() calls it.
check "database: the clock read at the wrapper's call" py "$(at timer-hot-path src/handle.c 4)"
check "database: the fix-it is offered" py "any(x['file']=='src/hits.c' and x.get('fixes') for x in f)"
check "database: high confidence" py "any(x['confidence']=='high' for x in f)"
run scan --no-build --hot event_loop --format json --min-confidence low
check "--no-build wins over a database" py "f and all(x.get('from_syntax') for x in f)"

# --- NOLINT comments: suppressed findings gone, the others kept (a heap corruption once
# aborted here or dropped every finding: comment text was read as code) ---
mkdir -p "$work/nolint"
printf '#include <time.h>\nint d(int c)\n{\n    long a = clock(); // NOLINT(timer-hot-path)\n    // NOLINTNEXTLINE(timer-hot-path)\n    long b = clock();\n    // NOLINTBEGIN(hotscan-timer-hot-path)\n    long e = clock();\n    long f = clock();\n    // NOLINTEND(hotscan-timer-hot-path)\n    return c + (int)(a + b + e + f);\n}\n' >"$work/nolint/s.c"
sed 's|//.*||' "$work/nolint/s.c" >"$work/nolint/plain.c"
nolint() { # FILE, then options
    local file=$1
    shift
    (cd "$work/nolint" && timeout 60 "$HOTSCAN" scan --no-build --no-cache "$@" "$file" >"$work/out" 2>"$work/err")
    status=$?
}
# rules EXPR: the (rule, line) pairs of the findings, sorted, must equal EXPR
rules() { py "sorted((x['rule'], x['line']) for x in f) == $1"; }
nolint plain.c --hot d --format json --min-confidence low
check "without NOLINT: exit 1" test "$status" -eq 1
check "without NOLINT: four hot reads, three duplicates" rules "[('timer-duplicate', 6), ('timer-duplicate', 8), ('timer-duplicate', 9), ('timer-hot-path', 4), ('timer-hot-path', 6), ('timer-hot-path', 8), ('timer-hot-path', 9)]"
nolint s.c --hot d --format json --min-confidence low
check "NOLINT: exit 1, no crash" test "$status" -eq 1
check "NOLINT, NOLINTNEXTLINE, NOLINTBEGIN/END suppress timer-hot-path only" rules "[('timer-duplicate', 6), ('timer-duplicate', 8), ('timer-duplicate', 9)]"
check "NOLINT: four suppressed" py "d['summary']['suppressed'] == 4"
nolint s.c -q
check "NOLINT, -q: exit 1" test "$status" -eq 1
check "NOLINT, -q: the three duplicates" test "$(grep -c '\[timer-duplicate\] \[from syntax\]$' "$work/out")" -eq 3
# an interval spelled in a comment or a string is none: the reads are still duplicates
printf '#include <time.h>\nint d(int c)\n{\n    long a = clock();\n    const char *s = "a - b; {";\n    long b = clock(); /* b - a */\n    return c + (int)(a + b) + s[0];\n}\nint g(void)\n{\n    long a = clock();\n    long b = clock();\n    return (int)(b - a);\n}\n' >"$work/nolint/lit.c"
nolint lit.c --format json --min-confidence low
check "a minus in a comment or a string makes no interval" rules "[('timer-duplicate', 6)]"

# --- text the parser recovers from: an initializer that is missing names nothing (its empty
# name was once searched for past the end of the text; the ASan build sees it) ---
printf 'g l=;struct c{l}g;}g\n' >"$work/nolint/empty.c"
nolint empty.c --format json --min-confidence low
check "a missing initializer: exit 0" test "$status" -eq 0
check "a missing initializer: no finding" rules "[]"

# --- files that are no regular file: that TU's error, the rest of the scan runs, no hang
# (both readers share one check; a FIFO once hung --no-build) ---
sp=$work/special
mkdir -p "$sp/tree"
printf '#include <time.h>\nint main(void)\n{\n    for (;;) {\n        long t = time(0);\n        (void)t;\n    }\n}\n' >"$sp/ok.c"
cp "$sp/ok.c" "$sp/tree/ok.c"
for d in "$sp" "$sp/tree"; do
    mkfifo "$d/fifo.c"
    ln -s /dev/null "$d/dev.c"
    ln -s missing.c "$d/dangling.c"
    ln -s loop.c "$d/loop.c"
    (cd "$d" && python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock.c')")
done
special() { # scan from $sp with a 60 s limit: a hang fails instead of blocking
    (cd "$sp" && timeout 60 "$HOTSCAN" scan --no-cache --hot main --format json --min-confidence low "$@" \
        >"$work/out" 2>"$work/err")
    status=$?
}
# error_is FILE TEXT: the report's error for FILE says TEXT
error_is() { py "any(e['file']=='$1' and e['message'].endswith('$1: $2') for e in d['errors'])"; }
ok_found() { py "$(at timer-hot-path ok.c 5) or $(at timer-hot-path tree/ok.c 5)"; }
for mode in --no-build libclang; do
    opt=$mode
    [ "$mode" = libclang ] && opt=
    for kind in "fifo.c:a FIFO (named pipe), not a regular file" "dev.c:a character device, not a regular file" \
                "dangling.c:a symbolic link to a missing file" "sock.c:a socket, not a regular file" \
                "loop.c:Too many levels of symbolic links"; do
        f=${kind%%:*}
        special $opt "$f" ok.c
        check "$mode $f: exit 2, not a hang" test "$status" -eq 2
        check "$mode $f: the error names it" error_is "$f" "${kind#*:}"
        check "$mode $f: said on stderr" err_has "error: $f: cannot read .*/$f: ${kind#*:}"
        check "$mode $f: ok.c still scanned" ok_found
    done
    special $opt tree
    check "$mode walk: exit 2, not a hang" test "$status" -eq 2
    check "$mode walk: each special file is its TU's error" py "sorted(e['file'] for e in d['errors']) == ['tree/dangling.c', 'tree/dev.c', 'tree/fifo.c', 'tree/loop.c', 'tree/sock.c']"
    check "$mode walk: ok.c still scanned" ok_found
    check "$mode walk: six TUs" py "d['summary']['translation_units'] == 6"
    special $opt --report-unused-suppressions fifo.c ok.c
    check "$mode --report-unused-suppressions: a FIFO is no hang" test "$status" -eq 2
    if [ "$(id -u)" -ne 0 ]; then # root reads a mode-000 file
        printf 'int x;\n' >"$sp/unread.c"
        chmod 000 "$sp/unread.c"
        special $opt unread.c ok.c
        check "$mode unreadable: its error" error_is unread.c "Permission denied"
        check "$mode unreadable: ok.c still scanned" ok_found
        rm -f "$sp/unread.c"
    fi
done
special --prefilter fifo.c ok.c
check "--prefilter: a FIFO is no hang" test "$status" -eq 2
check "--prefilter: the FIFO's error" error_is fifo.c "a FIFO (named pipe), not a regular file"
special --no-build "$sp/fifo.c"
check "an absolute PATH to a FIFO: its error" error_is fifo.c "a FIFO (named pipe), not a regular file"

# --- errors ---
run scan --no-build nowhere.c
check "missing PATH: exit 2" test "$status" -eq 2
check "missing PATH named" err_has "nowhere.c"
echo hi >"$work/proj/notes.txt"
run scan --no-build notes.txt
check "not C/C++: exit 2" test "$status" -eq 2
check "not C/C++ named" err_has "notes.txt: not a C or C++ file"
run scan --no-build --shard 1/2
check "--shard refused" test "$status" -eq 2
check "--shard refusal says why" err_has "does not apply"

checks_done
