#!/usr/bin/env bash
# End-to-end checks of the hotscan command line: exit statuses, errors on bad input,
# compile-database discovery, and that a TU which crashes or hangs the parser costs
# that TU only. Usage: run.sh /path/to/hotscan
set -u
HOTSCAN=$(realpath "$1")
work=$(mktemp -d)
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"
docs=$(cd "$(dirname "$0")/../../docs" && pwd)

# Runs hotscan in $work/proj, capturing stdout, stderr and the exit status.
run() {
    (cd "$work/proj" && "$HOTSCAN" "$@" >"$work/out" 2>"$work/err")
    status=$?
}
out_has() { grep -q -- "$1" "$work/out"; }
err_has() { grep -q -- "$1" "$work/err"; }
json() { python3 -c "import json,sys; d=json.load(open('$work/out')); print($1)"; }

mkdir -p "$work/proj/src"
cd "$work/proj"
cat >src/hot.c <<'C'
#include <time.h>
__attribute__((hot)) long spin(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
C
cat >src/clean.c <<'C'
int add(int a, int b) { return a + b; }
C
cat >src/crashme.c <<'C'
int crash_me(void) { return 1; }
C
cat >src/hangme.c <<'C'
int hang_me(void) { return 2; }
C
cat >src/broken.c <<'C'
#include <time.h>
__attribute__((hot)) long broken(int n) { long t = 0; for (int i = 0; i < n; i++) t += time(NULL); return t + undeclared; }
C

# --- help, version, usage errors ---
run --version;                 check "--version exits 0" test $status -eq 0
check "--version prints it" out_has "hotscan 0."
run --help;                    check "--help exits 0" test $status -eq 0
run scan --help;               check "scan --help exits 0" test $status -eq 0
check "scan --help lists --hot" out_has "--hot FUNC"
run scan --no-such-option src; check "unknown option exits 2" test $status -eq 2
check "unknown option is named" err_has "no-such-option"
run scan --format xml src;     check "bad --format exits 2" test $status -eq 2
run scan --enable no-such-rule src; check "unknown rule exits 2" test $status -eq 2
check "unknown rule lists the rules" err_has "timer-hot-path"
run scan -j 0 src;             check "-j 0 exits 2" test $status -eq 2
run frobnicate;                check "unknown command exits 2" test $status -eq 2
run rules;                     check "rules exits 0" test $status -eq 0
check "rules lists atomic-seqcst-counter" out_has "atomic-seqcst-counter"
check "rules lists clock()" out_has "process CPU time"
run rules --format json;       check "rules --format json exits 0" test $status -eq 0
check "rules --format json: a build-tree binary's docs are the source tree's" \
  test "$(json "(d['docs_dir'], [r['doc'] for r in d['rules']] == ['$docs/rules/' + r['id'] + '.md' for r in d['rules']])")" = "('$docs', True)"
check "rules --format json: the API lists each rule reads" \
  test "$(json "[r['rule_data'] for r in d['rules'] if r['id'] == 'os-event'] == [['events', 'event_types']] and 'clock' in [t['name'] for t in d['rule_data']['timers']]")" = True
run rules --format yaml;       check "rules --format yaml exits 2" test $status -eq 2

# --- bad input names the file and the problem ---
run scan src/missing.c;        check "missing path exits 2" test $status -eq 2
check "missing path is named" err_has "src/missing.c"
run scan -p nowhere src;       check "bad -p exits 2" test $status -eq 2
check "bad -p is named" err_has "nowhere"
mkdir -p "$work/badrules"
printf '{"timers": [ {"name": "x", "cost": "cheap"} ]}\n' >"$work/badrules/bad.json"
run scan --rules "$work/badrules" src/clean.c; check "bad rule data exits 2" test $status -eq 2
check "bad rule data names the file" err_has "bad.json"
printf '{"timers": [ \n' >"$work/badrules/bad.json"
run scan --rules "$work/badrules" src/clean.c; check "malformed rule data exits 2" test $status -eq 2
check "malformed rule data gives file:line" err_has "bad.json:2"
run scan -q --facts-dir "$work/facts/nested/x" src/clean.c
check "--facts-dir with a missing parent exits 2" test $status -eq 2

# --- exit statuses ---
run scan -q src/clean.c;       check "no findings exits 0" test $status -eq 0
run scan -q src/hot.c;         check "findings exit 1" test $status -eq 1
check "text output is compiler-style" out_has "src/hot.c:2:[0-9]*: error: clock() .*\[timer-hot-path\]"
run scan -q --exit-zero src/hot.c; check "--exit-zero exits 0" test $status -eq 0
run scan -q --disable timer-hot-path src/hot.c; check "--disable silences the rule" test $status -eq 0
run scan -q --format json src/hot.c src/clean.c
check "json has schema_version 1" test "$(json "d['schema_version']")" = 1
check "json counts the TUs" test "$(json "d['summary']['translation_units']")" = 2
check "json file paths are relative to the root" test "$(json "d['findings'][0]['file']")" = src/hot.c
run scan -q --format json --root src src/hot.c
check "--root makes paths relative to it" test "$(json "d['findings'][0]['file']")" = hot.c

# --- --hot names: the last components of a qualified name, and a name that matches nothing ---
cat >src/dispatch.cc <<'C'
#include <ctime>
namespace db { struct Impl { long get(int n); }; }
long db::Impl::get(int n) { long t = 0; for (int i = 0; i < n; i++) t += std::clock(); return t; }
C
run scan -q --format json --hot Impl::get src/dispatch.cc
check "--hot Impl::get names db::Impl::get" test "$(json "d['summary']['hot_functions'] >= 1")" = True
check "... and nothing is left unmatched" test "$(json "'hot_roots_unmatched' in d['summary']")" = False
run scan -q --format json --hot ::get --hot Imp::get --hot Impl::get src/dispatch.cc
check "--hot names that match no function are listed" test "$(json "d['summary']['hot_roots_unmatched']")" = "['::get', 'Imp::get']"
check "... and warned about, under -q too" err_has "warning: --hot Imp::get names no function"
rm src/dispatch.cc

# --- a TU that fails costs that TU only ---
HOTSCAN_TEST_CRASH_ON=crashme run scan -q --format json src/hot.c src/crashme.c src/clean.c
check "a crashing TU makes the exit 2" test $status -eq 2
check "the crash is reported for that TU" test "$(json "[e['file'] for e in d['errors']]")" = "['src/crashme.c']"
check "the crash message says what happened" test "$(json "'crashed' in d['errors'][0]['message']")" = True
check "the other TUs are still reported" test "$(json "len(d['findings'])")" = 1
check "the failure is said on stderr" err_has "src/crashme.c"
HOTSCAN_TEST_HANG_ON=hangme run scan -q --format json --tu-timeout 2 -j 2 src/hangme.c src/hot.c
check "a hanging TU makes the exit 2" test $status -eq 2
check "the hang is reported as a timeout" test "$(json "'longer than' in d['errors'][0]['message']")" = True
check "the hang costs that TU only" test "$(json "len(d['findings'])")" = 1
run scan -q --format json src/broken.c src/hot.c
check "a TU with compile errors exits 2" test $status -eq 2
check "its errors are listed" test "$(json "'undeclared' in d['errors'][0]['message']")" = True
check "its findings are still reported" test "$(json "sorted(f['file'] for f in d['findings'])")" = "['src/broken.c', 'src/hot.c']"
check "the report's invocation says how the run ended" \
  test "$(json "[d['invocation'][k] for k in ('arguments', 'exit_code', 'execution_successful')]")" = \
       "[['scan', '-q', '--format', 'json', 'src/broken.c', 'src/hot.c'], 2, False]"
check "... where it ran, and the command line" \
  test "$(json "(d['invocation']['working_directory'], d['invocation']['command_line'].endswith(' scan -q --format json src/broken.c src/hot.c'))")" = "('$work/proj', True)"
# SARIF's invocation: how hotscan was run, how it ended, the failed TU as an error at its file,
# and the notes the scan printed (the one -q silences too).
run scan -q --format sarif --hot 'no such' src/broken.c src/hot.c
sarif_inv() { python3 -c "import json,sys; i=json.load(open('$work/out'))['runs'][0]['invocations'][0]; n=i.get('toolExecutionNotifications', []); print($1)"; }
check "SARIF: exitCode, executionSuccessful" test "$(sarif_inv "(i['exitCode'], i['executionSuccessful'])")" = "(2, False)"
check "SARIF: arguments and commandLine" \
  test "$(sarif_inv "(i['arguments'][-3:], i['commandLine'].endswith(\"--hot 'no such' src/broken.c src/hot.c\"))")" = "(['no such', 'src/broken.c', 'src/hot.c'], True)"
check "SARIF: workingDirectory is a file: URI of the folder" test "$(sarif_inv "i['workingDirectory']['uri']")" = "file://$work/proj/"
check "SARIF: the failed TU is an error notification at its file" \
  test "$(sarif_inv "[(x['level'], x['locations'][0]['physicalLocation']['artifactLocation']['uri'], 'undeclared' in x['message']['text']) for x in n if 'locations' in x]")" = "[('error', 'src/broken.c', True)]"
check "SARIF: the scan's notes and warnings are notifications too" \
  test "$(sarif_inv "sorted(set(x['level'] for x in n if 'locations' not in x)) == ['note', 'warning'] and any('--hot no such names no function' in x['message']['text'] for x in n)")" = True

# --- compile database discovery and PATH narrowing ---
mkdir -p build
python3 - <<PY
import json, os
root = os.getcwd()
entries = []
for f in ["src/hot.c", "src/clean.c", "src/hot.c"]:   # hot.c twice with the same flags
    entries.append({"directory": root, "file": f, "arguments": ["cc", "-std=gnu17", "-c", f, "-o", f + ".o"]})
json.dump(entries, open("build/compile_commands.json", "w"))
PY
run scan --format json
check "the database in ./build is used" err_has "using compile database build/compile_commands.json"
check "the same file with the same flags is parsed once" test "$(json "d['summary']['translation_units']")" = 2
run scan -q --format json src/clean.c
check "a PATH narrows the scan" test "$(json "d['summary']['translation_units']")" = 1
run scan --format json src/crashme.c
check "a PATH outside the database gets default flags and a note" err_has "not in the compile database"
run scan -q -j 1 --format json
one=$(json "[(f['file'], f['line'], f['rule']) for f in d['findings']]")
run scan -q -j 3 --format json
check "-j 1 and -j 3 find the same" test "$one" = "$(json "[(f['file'], f['line'], f['rule']) for f in d['findings']]")"

# --- a database entry with a relative file and -I, run from elsewhere ---
# The command's directory is given to clang, not entered: the relative "file", the file on
# its command line and -I../include must still resolve from it.
mkdir -p "$work/reldb/build" "$work/reldb/include" "$work/reldb/src"
cat >"$work/reldb/include/ticks.h" <<'C'
#include <time.h>
static inline long ticks_sum(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
C
cat >"$work/reldb/src/app.c" <<'C'
#include "ticks.h"
long app_spin(int n) { long t = 0; for (int i = 0; i < n; i++) t += time(NULL); return t + ticks_sum(n); }
C
python3 - "$work/reldb" <<'PY'
import json, os, sys
root = sys.argv[1]
entry = {"directory": os.path.join(root, "build"), "file": "../src/app.c",
         "arguments": ["cc", "-std=gnu17", "-I../include", "-c", "../src/app.c", "-o", "app.o"]}
json.dump([entry], open(os.path.join(root, "compile_commands.json"), "w"))
PY
run scan -q --format json --exit-zero --min-confidence low -p "$work/reldb" --root "$work/reldb" \
    --facts-dir "$work/reldb-facts"
check "a relative database entry is scanned" test "$(json "d['summary']['translation_units']")" = 1
check "its header is found through the relative -I" test "$(json "d['errors']")" = "[]"
check "reads in the relative file and in the header are found" \
    test "$(json "sorted(set(f['file'] for f in d['findings']))")" = "['include/ticks.h', 'src/app.c']"
check "the facts name the TU by its absolute path" \
    test "$(python3 -c "import json,glob; print(json.load(open(glob.glob('$work/reldb-facts/*.json')[0]))['tu'])")" \
    = "$(realpath "$work/reldb/src/app.c")"

# --- issue 12: reliability ---
# Symlink cycles in a folder walk end, and each file is parsed once (item 3).
mkdir -p "$work/cyc/sub"; cp src/hot.c "$work/cyc/sub/a.c"
ln -s . "$work/cyc/l1"; ln -s . "$work/cyc/l2"; ln -s .. "$work/cyc/sub/up"
(cd "$work/proj" && timeout 120 "$HOTSCAN" scan -q --format json "$work/cyc" >"$work/out" 2>"$work/err"); status=$?
check "a folder with link cycles finishes" test $status -ne 124
check "a file reached by many links is parsed once" test "$(json "d['summary']['translation_units']")" = 1

# A malformed compile database is exit 2 naming the file, line and problem (item 10).
mkdir -p "$work/baddb"
printf '[{"directory": "/tmp", "file": "a.c", "command": "cc -c a.c"}\n' >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a database missing its ] exits 2" test $status -eq 2
check "... naming the file and line" err_has "baddb/compile_commands.json:[0-9]*:[0-9]*: not valid JSON"
printf '[{"directory": "/tmp", "file": "a.c", "command": "cc -c a.c"}] trailing\n' >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a database with trailing garbage exits 2" test $status -eq 2
check "... and says it is not valid JSON" err_has "compile_commands.json:1:[0-9]*: not valid JSON"
printf '[{"directory": "/tmp", "command": "cc -c a.c"}]\n' >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a database entry without a file exits 2" test $status -eq 2
check "... naming the entry and what it lacks" err_has 'entry 1 (counting from 1) needs "file"'
printf '[{"directory": "%s", "file": "gone.c", "arguments": ["cc", "-c", "gone.c"]}]\n' "$work/baddb" >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a database entry naming a missing file says so" err_has "cannot read .*gone.c: No such file or directory"
# An entry libclang would misread is refused, naming its place, its file and the problem.
printf '[{"directory": "%s", "file": "ok.c", "arguments": ["cc", "-c", "ok.c"]},\n {"directory": "rel/sub", "file": "a.c", "command": "cc -c a.c"}]\n' "$work/baddb" >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a relative directory exits 2" test $status -eq 2
check "... naming the entry, its file and the problem" err_has 'compile_commands.json: entry 2 (counting from 1, file "a.c") has a relative "directory" ("rel/sub")'
printf '[{"directory": "%s", "file": "a.c", "command": "cc -DX=\\\"1 -c a.c"}]\n' "$work/baddb" >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a command with an unbalanced quote exits 2" test $status -eq 2
check "... naming the entry, its file and the quote" err_has 'entry 1 (counting from 1, file "a.c") has a "command" with an unbalanced quote (the " at character 8 is never closed)'
printf '[{"directory": "%s", "file": "a.c", "command": "cc -DX=\\\"1\\\" -DY='"'"'2 3'"'"' -c a.c"}]\n' "$work/baddb" >"$work/baddb/compile_commands.json"
printf 'int a;\n' >"$work/baddb/a.c"
run scan -p "$work/baddb";     check "... and balanced quotes pass" test $status -eq 0
mkdir -p "$work/baddb/dir.c"
printf '[{"directory": "%s", "file": "dir.c", "command": "cc -c dir.c"}]\n' "$work/baddb" >"$work/baddb/compile_commands.json"
run scan -p "$work/baddb";     check "a file that is a folder exits 2" test $status -eq 2
check "... naming the entry, its file and the problem" err_has "entry 1 (counting from 1, file \"dir.c\") has a \"file\" that is a folder ($work/baddb/dir.c)"

# -o: concurrent scans writing one report path always leave a whole report (item 8).
torn=0
for round in 1 2 3 4 5; do
  pids=""
  for k in 1 2 3 4; do (cd "$work/proj" && exec "$HOTSCAN" scan -q -j 1 --format json -o "$work/same.json" src/hot.c src/clean.c 2>/dev/null) & pids+=" $!"; done
  wait $pids
  python3 -c "import json; json.load(open('$work/same.json'))" 2>/dev/null || torn=$((torn + 1))
done
check "-o: four concurrent scans leave valid JSON (5 rounds)" test $torn -eq 0
check "-o: no temporary file left beside the report" test -z "$(find "$work" -maxdepth 1 -name '.*hotscan-*')"
# Deterministic twin of the race above: the report replaces the old file by a rename (a new
# inode), so no reader ever sees it half written; writing in place would keep the inode.
inode_before=$(stat -c %i "$work/same.json")
(cd "$work/proj" && "$HOTSCAN" scan -q -j 1 --format json -o "$work/same.json" src/hot.c >/dev/null 2>&1)
check "-o: the report is renamed into place, not rewritten" test "$(stat -c %i "$work/same.json")" != "$inode_before"
run scan -q --format json -o - src/hot.c
check "-o - writes to standard output" test "$(json "d['schema_version']")" = 1
check "-o - creates no file named -" test ! -e "$work/proj/-"

# A report that cannot be written is exit 2 with an error (item 11).
(cd "$work/proj" && "$HOTSCAN" scan -q --format json src/clean.c >/dev/full 2>"$work/err"); status=$?
check "stdout on /dev/full exits 2" test $status -eq 2
check "... and says so" err_has "No space left on device"
(cd "$work/proj" && "$HOTSCAN" scan -q --format json src/clean.c >&- 2>"$work/err"); status=$?
check "a closed stdout exits 2" test $status -eq 2
check "... and says so" err_has "cannot write"
(cd "$work/proj" && "$HOTSCAN" --help >/dev/full 2>/dev/null); status=$?
check "--help to /dev/full exits 2" test $status -eq 2

# --tu-timeout takes fractions and says them (item 14).
HOTSCAN_TEST_HANG_ON=hangme run scan -q --format json --tu-timeout 0.3 src/hangme.c
check "--tu-timeout 0.3 is said as 0.3" err_has "longer than 0.3 s"
run scan -q --tu-timeout abc src/clean.c; check "--tu-timeout abc exits 2" test $status -eq 2

# --tu-memory caps each worker; a TU that hits it is that TU's error (item 4).
run scan --format json --no-cache --tu-memory 128M src/hot.c
if err_has "not enforced in this sanitizer build"; then
  echo "skip --tu-memory: a sanitizer build does not enforce it"
else
  check "a TU over --tu-memory exits 2" test $status -eq 2
  check "... as that TU's error, naming the cap" test "$(json "'ran out of memory' in d['errors'][0]['message']")" = True
fi
run scan -q --tu-memory 2K src/clean.c; check "--tu-memory below 64M exits 2" test $status -eq 2

# A signal to the supervisor alone ends its workers and removes its temporary folder (items
# 5 and 6); a folder of a dead run is removed by the next run; a locked one is left alone.
mkdir -p "$work/tmp"
for sig in TERM INT HUP KILL; do
  rm -rf "$work/tmp"/*
  (cd "$work/proj" && HOTSCAN_TEST_HANG_ON=hangme TMPDIR="$work/tmp" exec "$HOTSCAN" scan -q -j 1 --tu-timeout 0 src/hangme.c 2>/dev/null) & sup=$!
  wpid=""
  for spin in $(seq 1 200000); do wpid=$(pgrep -P "$sup" | head -1); [ -n "$wpid" ] && break; done
  kill -s "$sig" "$sup"; wait "$sup" 2>/dev/null
  gone=no
  for spin in $(seq 1 200000); do
    state=$(awk '{print $3}' "/proc/$wpid/stat" 2>/dev/null)
    if [ -z "$state" ] || [ "$state" = Z ]; then gone=yes; break; fi
  done
  check "SIG$sig to the supervisor: its busy worker dies too" test -n "$wpid" -a "$gone" = yes
  [ "$sig" = KILL ] || check "SIG$sig to the supervisor: no temporary folder left" test -z "$(ls "$work/tmp")"
done
rm -rf "$work/tmp"/*
mkdir "$work/tmp/hotscan-AbC123" "$work/tmp/hotscan-LiVe12"; touch "$work/tmp/hotscan-AbC123/7.json"
touch -d '2 hours ago' "$work/tmp/hotscan-AbC123" "$work/tmp/hotscan-LiVe12"
(cd "$work/proj" && TMPDIR="$work/tmp" flock "$work/tmp/hotscan-LiVe12" "$HOTSCAN" scan -q src/clean.c); status=$?
check "a dead run's temporary folder is removed by the next run" test $status -eq 0 -a ! -e "$work/tmp/hotscan-AbC123"
check "a folder a live run holds locked is left alone" test -d "$work/tmp/hotscan-LiVe12"

# A full TMPDIR is reported as such (item 7; needs root to mount a tiny tmpfs).
mkdir -p "$work/full"
if mount -t tmpfs -o size=16k tmpfs "$work/full" 2>/dev/null; then
  dd if=/dev/zero of="$work/full/fill" bs=4k 2>/dev/null
  (cd "$work/proj" && TMPDIR="$work/full" "$HOTSCAN" scan -q --format json src/hot.c >"$work/out" 2>"$work/err"); status=$?
  check "a full TMPDIR exits 2" test $status -eq 2
  check "... and says the disk is full" err_has "No space left on device"
  umount "$work/full"
else
  echo "skip full TMPDIR: cannot mount a tmpfs here"
fi

# A partial scan (PATHs leave TUs of the compile database out) states no whole-program
# counter verdict it cannot see (issue 10, item 6): a variable other TUs may use is low, says
# so, and gets no fix-it; a static of the scanned TU keeps its verdict and fix.
mkdir -p "$work/partial"
cat >"$work/partial/common.h" <<'SRC'
extern _Atomic long hits;
SRC
cat >"$work/partial/a.c" <<'SRC'
#include <stdatomic.h>
#include "common.h"
_Atomic long hits;
static _Atomic long local_hits;
struct conn_ctx { _Atomic long closes; };
long local_total(void) { return local_hits; }
void count(void) { hits++; local_hits++; }
void on_close(struct conn_ctx *c) { c->closes++; }
long closes(struct conn_ctx *c) { return c->closes; }
SRC
cat >"$work/partial/b.c" <<'SRC'
#include "common.h"
void drain(void) { hits--; while (hits) ; }
SRC
printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},\n {"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]}]\n' \
  "$work/partial" "$work/partial" >"$work/partial/compile_commands.json"
(cd "$work/partial" && "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -p . >"$work/out" 2>"$work/err")
check "whole database: a waited-on counter is no counter" \
  test "$(json "len([f for f in d['findings'] if f.get('variable') == 'hits'])")" = 0
(cd "$work/partial" && "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -p . a.c >"$work/out" 2>"$work/err")
check "partial scan: the shared variable is low" \
  test "$(json "sorted({f['confidence'] for f in d['findings'] if f.get('variable') == 'hits'})")" = "['low']"
check "... says the PATHs left TUs out" \
  test "$(json "all('left out 1 of' in f['message'] for f in d['findings'] if f.get('variable') == 'hits')")" = True
check "... and has no fix-it" \
  test "$(json "sum(len(f.get('fixes', [])) for f in d['findings'] if f.get('variable') == 'hits')")" = 0
check "partial scan: the scanned TU's own static keeps its verdict and fix" \
  test "$(json "[(f['confidence'], len(f.get('fixes', []))) for f in d['findings'] if f.get('variable') == 'local_hits' and f['line'] == 7]")" = "[('high', 1)]"
check "partial scan: a field of a struct the scanned file declares keeps its verdict and fix" \
  test "$(json "[(f['confidence'], len(f.get('fixes', []))) for f in d['findings'] if f.get('variable') == 'conn_ctx::closes' and f['line'] == 8]")" = "[('high', 1)]"

# PATHs that match none of the database are another program: nothing is "left out".
mkdir -p "$work/partial/other"
printf '#include <stdatomic.h>\n_Atomic long shared_hits;\nvoid bump(void) { shared_hits++; }\n' >"$work/partial/other/solo.c"
(cd "$work/partial" && "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -p . other/solo.c >"$work/out" 2>"$work/err")
check "a file outside the database is no partial scan of it" \
  test "$(json "[(f['confidence'], 'left out' in f['message']) for f in d['findings'] if f.get('variable') == 'shared_hits']")" = "[('high', False)]"

# The fix stage reparses a TU once for all its fixes (issue 10, item 7); a group that adds a
# compile error is split in halves down to the fix to blame, and the others are kept. The
# C11 operator's fix needs <stdatomic.h>, which this file does not include.
mkdir -p "$work/verify/bad" "$work/verify/good"
cat >"$work/verify/bad/b.c" <<'SRC'
_Atomic long plain_hits;
long gnu_hits, gnu_misses, gnu_bytes;
void hit(void) { plain_hits++; }
void gnu(long n) {
    __atomic_fetch_add(&gnu_hits, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&gnu_misses, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&gnu_bytes, n, __ATOMIC_SEQ_CST);
}
SRC
cat >"$work/verify/good/good.c" <<'SRC'
long a, b, c, d;
void count(void) {
    __atomic_fetch_add(&a, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&b, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&c, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&d, 1, __ATOMIC_SEQ_CST);
}
SRC
for t in bad/b good/good; do
  printf '[{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-c", "%s.c"]}]\n' \
    "$work/verify/${t%/*}" "${t#*/}" "${t#*/}" >"$work/verify/${t%/*}/compile_commands.json"
done
(cd "$work/verify/good" && HOTSCAN_BENCH_VERIFY_STATS="$work/verify/good.stats" "$HOTSCAN" scan --format json --exit-zero -p . >"$work/out" 2>"$work/err")
check "four good fixes of one TU: one reparse" grep -q "verify: 4 fix-its, 1 reparses in 1 rounds" "$work/verify/good.stats"
check "... all four kept" test "$(json "sum(len(f.get('fixes', [])) for f in d['findings'])")" = 4
(cd "$work/verify/bad" && HOTSCAN_BENCH_VERIFY_STATS="$work/verify/bad.stats" "$HOTSCAN" scan --format json --exit-zero -p . >"$work/out" 2>"$work/err")
check "one bad fix among four: found by halving" grep -q "verify: 4 fix-its, 5 reparses in 3 rounds" "$work/verify/bad.stats"
check "... the bad one is dropped with the compiler's reason" \
  test "$(json "[f['line'] for f in d['findings'] if 'add a compile error' in f.get('fix_unavailable', '')]")" = "[3]"
check "... the three good ones are kept" test "$(json "sum(len(f.get('fixes', [])) for f in d['findings'])")" = 3

# The message states the evidence (issue 10): a ring index that other code reads plainly
# (`limit = index % size`, as MariaDB's perfschema tables do) is not "0 loads" and nothing else.
mkdir -p "$work/plainread"
cat >"$work/plainread/ring.c" <<'SRC'
struct event { long id; };
static struct event ring[64];
static volatile unsigned ring_index;
void record(const struct event *e)
{
    unsigned i = __atomic_fetch_add(&ring_index, 1, __ATOMIC_SEQ_CST) % 64;
    ring[i] = *e;
}
long newest_ids(void)
{
    long sum = 0;
    unsigned limit = ring_index % 64;
    for (unsigned i = 0; i < limit; i++)
        sum += ring[i].id;
    return sum;
}
SRC
printf '[{"directory": "%s", "file": "ring.c", "arguments": ["cc", "-c", "ring.c"]}]\n' "$work/plainread" >"$work/plainread/compile_commands.json"
(cd "$work/plainread" && "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -p . >"$work/out" 2>"$work/err")
check "a plainly read counter: the message names the plain read" \
  test "$(json "[('0 loads, 0 resets in 1 file, also read non-atomically (ring.c:12)' in f['message']) for f in d['findings'] if f.get('variable') == 'ring_index']")" = "[True]"

# Code the configuration compiles out may use a counter otherwise (issue 10, item 5): a wait
# under #ifndef NDEBUG in a -DNDEBUG scan. The finding says so; no fix-it rests on it.
mkdir -p "$work/inactive"
cat >"$work/inactive/r.c" <<'SRC'
#include <stdatomic.h>
_Atomic long refs, hits;
void take(void) { refs++; hits++; }
void drop(void) { refs--; }
void quiesce(void) {
#ifndef NDEBUG
    while (refs) { }
#endif
}
SRC
printf '[{"directory": "%s", "file": "r.c", "arguments": ["cc", "-DNDEBUG", "-c", "r.c"]}]\n' "$work/inactive" >"$work/inactive/compile_commands.json"
(cd "$work/inactive" && "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -p . >"$work/out" 2>"$work/err")
check "compiled-out use: the finding names the place" \
  test "$(json "all('compiles out, r.c:7' in f['message'] for f in d['findings'] if f.get('variable') == 'refs')")" = True
check "... and has no fix-it" \
  test "$(json "[(len(f.get('fixes', [])), 'compiles out' in f.get('fix_unavailable', '')) for f in d['findings'] if f.get('variable') == 'refs']")" = "[(0, True), (0, True)]"
check "... a counter compiled-out code does not name keeps its fix" \
  test "$(json "[len(f.get('fixes', [])) for f in d['findings'] if f.get('variable') == 'hits']")" = "[1]"

# The facts cache (issue 15): a rerun reads unchanged TUs' facts; an edited header re-parses
# exactly the TUs that include it; a corrupt entry is ignored and rewritten; --no-cache parses all.
mkdir -p "$work/cache/src"
cat >"$work/cache/src/clock.h" <<'SRC'
#include <time.h>
static inline long now_ticks(void) { return (long)clock(); }
SRC
cat >"$work/cache/src/a.c" <<'SRC'
#include "clock.h"
__attribute__((hot)) long spin_a(int n) { long t = 0; for (int i = 0; i < n; i++) t += now_ticks(); return t; }
SRC
cat >"$work/cache/src/b.c" <<'SRC'
#include <time.h>
__attribute__((hot)) long spin_b(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
SRC
printf '[{"directory": "%s", "file": "src/a.c", "arguments": ["cc", "-c", "src/a.c"]},\n {"directory": "%s", "file": "src/b.c", "arguments": ["cc", "-c", "src/b.c"]}]\n' \
  "$work/cache" "$work/cache" >"$work/cache/compile_commands.json"
cache_scan() { (cd "$work/cache" && "$HOTSCAN" scan --format json --exit-zero --min-confidence low -p . "$@" >"$work/out" 2>"$work/err"); }
cache_scan
check "first run: the cache is made beside the database" test -d "$work/cache/.cache/hotscan"
check "... nothing read from it" test "$(json "d['summary']['tus_from_cache']")" = 0
first=$(json "sorted(f['fingerprint'] for f in d['findings'])")
cache_scan
check "rerun: both TUs from the cache" test "$(json "d['summary']['tus_from_cache']")" = 2
check "... the summary says so" err_has "2 from the facts cache"
check "... the same findings" test "$(json "sorted(f['fingerprint'] for f in d['findings'])")" = "$first"
printf '/* edited */\n' >>"$work/cache/src/clock.h"
cache_scan
check "an edited header re-parses only the TU that includes it" test "$(json "d['summary']['tus_from_cache']")" = 1
cache_scan
for e in "$work"/cache/.cache/hotscan/*/*.facts.json; do printf '{"facts_version": 2, "tu": ' >"$e"; done
cache_scan
check "damaged facts files are ignored" test "$(json "d['summary']['tus_from_cache']")" = 0
check "... with the same findings" test "$(json "sorted(f['fingerprint'] for f in d['findings'])")" = "$first"
cache_scan
check "... and rewritten" test "$(json "d['summary']['tus_from_cache']")" = 2
for e in "$work"/cache/.cache/hotscan/*/*.key; do head -c 30 "$e" >"$e.cut" && mv "$e.cut" "$e"; done
cache_scan
check "cut key files are ignored" test "$(json "d['summary']['tus_from_cache']")" = 0
check "... with the same findings" test "$(json "sorted(f['fingerprint'] for f in d['findings'])")" = "$first"
cache_scan --no-cache
check "--no-cache parses every TU" test "$(json "d['summary']['tus_from_cache']")" = 0
cache_scan --cache "$work/cache-elsewhere"
check "--cache DIR keeps the cache there" test -n "$(find "$work/cache-elsewhere" -name '*.json')"
check "... and no temporary entry is left" test -z "$(find "$work/cache-elsewhere" "$work/cache/.cache" -name '*.tmp')"
# An input modified no earlier than its parse began may not be what was parsed (another run's
# fix renamed in mid-parse, at the same size within one clock tick): its entry is not kept.
printf '/* edited again */\n' >>"$work/cache/src/clock.h"
touch -d '+1 hour' "$work/cache/src/clock.h"
cache_scan
cache_scan
check "an input newer than the parse: its TU's entry is not kept" test "$(json "d['summary']['tus_from_cache']")" = 1
touch -d '-1 hour' "$work/cache/src/clock.h"
cache_scan
cache_scan
check "... and is once the input is older than the parse" test "$(json "d['summary']['tus_from_cache']")" = 2

# Shards and judge (issue 15): the parts of a sharded scan, judged together, give exactly the
# findings of one whole scan (fingerprints); so do facts written by `hotscan extract` as a
# compiler launcher, which also runs the compiler.
mkdir -p "$work/shards/src"
cat >"$work/shards/src/common.h" <<'SRC'
#include <stdatomic.h>
#include <time.h>
extern _Atomic long served;
long stamp(void);
void handle(int n);
SRC
cat >"$work/shards/src/a.c" <<'SRC'
#include "common.h"
__attribute__((hot)) void dispatch(int n) { for (int i = 0; i < n; i++) handle(i); }
SRC
cat >"$work/shards/src/b.c" <<'SRC'
#include "common.h"
_Atomic long served;
void handle(int n) { (void)n; served++; (void)stamp(); }
SRC
cat >"$work/shards/src/c.c" <<'SRC'
#include "common.h"
long stamp(void) { return (long)clock(); }
SRC
printf '[' >"$work/shards/compile_commands.json"
sep=
for f in a b c; do
  printf '%s{"directory": "%s", "file": "src/%s.c", "arguments": ["cc", "-c", "src/%s.c", "-o", "%s.o"]}' \
    "$sep" "$work/shards" "$f" "$f" "$f" >>"$work/shards/compile_commands.json"
  sep=,
done
printf ']\n' >>"$work/shards/compile_commands.json"
fps() { python3 -c "import json; d=json.load(open('$1')); print(sorted((f['fingerprint'], f['rule'], f['confidence'], len(f.get('fixes', []))) for f in d['findings']))"; }
(cd "$work/shards" && "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -p . -o "$work/whole.json")
check "shards: the whole scan has cross-TU findings" test "$(python3 -c "import json; print(len(json.load(open('$work/whole.json'))['findings']) >= 2)")" = True
for k in 1 2; do
  (cd "$work/shards" && "$HOTSCAN" scan -q --no-cache -p . --shard $k/2 --facts-out "$work/facts" 2>"$work/err"); st=$?
  check "--shard $k/2 --facts-out exits 0" test $st -eq 0
done
check "... each TU's facts written once" test "$(ls "$work/facts" | wc -l)" -eq 3
(cd "$work/shards" && "$HOTSCAN" judge -q --format json --exit-zero --min-confidence low "$work/facts" -o "$work/judged.json")
check "judge over both shards = the whole scan (fingerprints, confidence, fixes)" test "$(fps "$work/judged.json")" = "$(fps "$work/whole.json")"
(cd "$work/shards" && "$HOTSCAN" judge -q --format json --exit-zero --min-confidence low "$work/facts"/0001-*.json -o "$work/one.json")
check "judge of one shard's part says the rest is left out" \
  test "$(python3 -c "import json; d=json.load(open('$work/one.json')); print(all('left out' in f['message'] for f in d['findings'] if f['rule'] == 'atomic-seqcst-counter'))")" = True
run scan --shard 3/2 src; check "--shard 3/2 exits 2" test $status -eq 2
run judge "$work/no-such-facts"; check "judge of a missing folder exits 2" test $status -eq 2
check "... naming it" err_has "no-such-facts"
echo '{"tu": "x.c"}' >"$work/bad-facts.json"
run judge "$work/bad-facts.json"; check "judge of a file without a command exits 2, naming it" test $status -eq 2 -a -n "$(grep bad-facts "$work/err")"
for f in a b c; do
  (cd "$work/shards" && "$HOTSCAN" extract --facts-out "$work/launched" --root "$work/shards" -- cc -c src/$f.c -o $f.o) || echo "FAIL: extract -- cc $f.c"
done
check "extract runs the compiler" test -f "$work/shards/a.o" -a -f "$work/shards/c.o"
check "... and writes each TU's facts" test "$(ls "$work/launched" | wc -l)" -eq 3
(cd "$work/shards" && "$HOTSCAN" judge -q --format json --exit-zero --min-confidence low "$work/launched" -o "$work/launched.json")
check "judge over extract's facts = the whole scan" test "$(fps "$work/launched.json")" = "$(fps "$work/whole.json")"
(cd "$work/shards" && "$HOTSCAN" extract --facts-out "$work/launched" -- cc -c src/missing.c -o m.o 2>"$work/err"); st=$?
check "extract keeps the compiler's exit status" test $st -ne 0
# --- a header function's body is walked once per worker, unless it means something else ---
# c.c sees step() as a.c did and skips its body; b.c defines the macro step() calls to another
# function, so its step() calls slow() (a clock read on a hot path): skipping b.c's step() as
# a.c's (same USR, place and flags) would lose that call and the finding.
mkdir -p "$work/skip"
printf '#define CALL_IT quiet\n' >"$work/skip/macros.h"
printf '#include <time.h>\nlong quiet(void);\nlong slow(void);\nstatic inline long step(void) { return CALL_IT(); }\n' >"$work/skip/hdr.h"
printf '#include "macros.h"\n#include "hdr.h"\nlong quiet(void) { return 1; }\n__attribute__((hot)) long run_a(int n) { long t = 0; for (int i = 0; i < n; i++) t += step(); return t; }\n' >"$work/skip/a.c"
printf '#define CALL_IT slow\n#include "hdr.h"\nlong slow(void) { return (long)clock(); }\n__attribute__((hot)) long run_b(int n) { long t = 0; for (int i = 0; i < n; i++) t += step(); return t; }\n' >"$work/skip/b.c"
printf '#include "macros.h"\n#include "hdr.h"\n__attribute__((hot)) long run_c(int n) { long t = 0; for (int i = 0; i < n; i++) t += step(); return t; }\n' >"$work/skip/c.c"
printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},\n {"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]},\n {"directory": "%s", "file": "c.c", "arguments": ["cc", "-c", "c.c"]}]\n' \
  "$work/skip" "$work/skip" "$work/skip" >"$work/skip/compile_commands.json"
(cd "$work/skip" && HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "header skip: one worker skips the body c.c shares with a.c, walks b.c's" err_has "header function bodies walked 2, skipped 1"
# slow() is a clock wrapper, but step() is no wrapper: its other variant calls quiet(). The
# call of slow() in b.c's variant is the read, in the header.
check "header skip: the call b.c's macro makes is kept (slow's clock read is hot)" \
  test "$(json "[(f['rule'], f['file'], f['line']) for f in d['findings']]")" = "[('timer-hot-path', 'hdr.h', 4)]"
cp "$work/out" "$work/skip/with.json"
(cd "$work/skip" && HOTSCAN_BENCH_NO_HEADER_SKIP=1 "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "header skip: the report is the one a scan walking every body makes" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); [x.pop(k, None) for x in (a, b) for k in ('summary', 'invocation')]; sys.exit(a != b)" "$work/skip/with.json" "$work/out"
(cd "$work/skip" && "$HOTSCAN" scan -q --format json --exit-zero --min-confidence low -j 1 -p . --facts-dir "$work/skip/facts" >/dev/null 2>&1)
check "header skip: --facts-dir documents keep every body (c.c's calls step -> quiet)" \
  python3 -c "import json,glob,sys; d=json.load(open(glob.glob(sys.argv[1] + '/0002-*.json')[0])); sys.exit(not any(c.get('callee_name') == 'quiet' for c in d['calls']))" "$work/skip/facts"

# With the header skip a worker walks a shared header function once, yet a counter's message
# counts every TU that sees it, as a scan with whole facts does. (twice() names no atomic:
# the -j 2 checks below share its keys.) C++: a header's prefix key is what C++ TUs skip
# headers by; a C TU digests only the header functions it refers to (liveness, below).
mkdir -p "$work/skipcount"
printf 'extern long hits;\nstatic inline void bump(void) { __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST); }\n' >"$work/skipcount/bump.h"
printf 'static inline int twice(int v) { return 2 * v; }\n' >"$work/skipcount/plain.h"
for f in a b c; do printf '#include "bump.h"\n#include "plain.h"\nint use_%s(void) { bump(); return twice(1); }\n' $f >"$work/skipcount/$f.cc"; done
printf 'long hits;\n' >>"$work/skipcount/a.cc"
printf '[{"directory": "%s", "file": "a.cc", "arguments": ["c++", "-c", "a.cc"]},\n {"directory": "%s", "file": "b.cc", "arguments": ["c++", "-c", "b.cc"]},\n {"directory": "%s", "file": "c.cc", "arguments": ["c++", "-c", "c.cc"]}]\n' \
  "$work/skipcount" "$work/skipcount" "$work/skipcount" >"$work/skipcount/compile_commands.json"
(cd "$work/skipcount" && HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "header skip: the shared bodies were skipped" err_has "walked 2, skipped 4"
check "... and the counter is still seen by all 3 TUs" test "$(json "[('seen by 3 of' in f['message']) for f in d['findings'] if f.get('variable') == 'hits']")" = "[True]"
cp "$work/out" "$work/skipcount/j1.json"

# With -j 2 the workers share the keys of the TUs whose facts were merged (key_log.c). One TU
# at a time, to the workers in turn (HOTSCAN_TEST_SERIAL_WORKERS): the first walks both
# bodies for a.cc, the second skips twice() for b.cc with the first one's keys, the first skips
# both for c.cc. bump() names an atomic, which the atomics collector keeps in the first
# worker's memo: its keys are not shared, and the second worker walks it for b.cc.
(cd "$work/skipcount" && HOTSCAN_TEST_SERIAL_WORKERS=1 HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 2 -p . >"$work/out" 2>"$work/err")
check "shared keys: b.cc's worker skips the body a.cc's worker walked (twice), walks bump()" \
  err_has "walked 1, skipped 1 (1 by the header's prefix key; 1 by other workers' keys); not shared: 1 body and 1 prefix keys"
check "... the first walked both once, for a.cc" \
  err_has "walked 2, skipped 2 (2 by the header's prefix key; 0 by other workers' keys); not shared: 1 body and 1 prefix keys"
check "... the supervisor shared a.cc's keys for plain.h and nothing else" err_has "shared header-skip keys: 1 records, 2 keys"
check "... and the report is the one -j 1 makes (seen by 3 TUs)" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); [x.pop(k, None) for x in (a, b) for k in ('summary', 'invocation')]; sys.exit(a != b)" "$work/skipcount/j1.json" "$work/out"
# A worker that dies mid-TU shares nothing, and the one forked in its place reads every key
# the others shared: b.cc's worker aborts, d.cc's (a fresh one) skips what a.cc's walked.
mkdir -p "$work/skipcrash"
cp "$work/skipcount/bump.h" "$work/skipcount/plain.h" "$work/skipcrash/"
for f in a b c d; do printf '#include "bump.h"\n#include "plain.h"\nint use_%s(void) { bump(); return twice(1); }\n' $f >"$work/skipcrash/$f.cc"; done
printf 'long hits;\n' >>"$work/skipcrash/a.cc"
printf '[' >"$work/skipcrash/compile_commands.json"
sep=
for f in a b c d; do
  printf '%s{"directory": "%s", "file": "%s.cc", "arguments": ["c++", "-c", "%s.cc"]}' "$sep" "$work/skipcrash" $f $f >>"$work/skipcrash/compile_commands.json"
  sep=,
done
printf ']\n' >>"$work/skipcrash/compile_commands.json"
(cd "$work/skipcrash" && HOTSCAN_TEST_CRASH_ON=b.cc HOTSCAN_TEST_SERIAL_WORKERS=1 HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 2 -p . >"$work/out" 2>"$work/err")
check "shared keys: b.cc's worker crashed" test "$(json "[e['file'] for e in d['errors']]")" = "['b.cc']"
check "... d.cc's fresh worker skips twice() with a.cc's keys" \
  err_has "walked 1, skipped 1 (1 by the header's prefix key; 1 by other workers' keys)"
check "... and the counter is seen by the 3 TUs that were parsed" \
  test "$(json "[('seen by 3 of' in f['message']) for f in d['findings'] if f.get('variable') == 'hits']")" = "[True]"

# A header body's skip key reads a token the preprocessor made (##, #, __LINE__, __FILE__) by
# what it says, not by where the TU's scratch space put it: b.c makes a token before it
# includes names.h, so its scratch offsets differ from a.c's, yet tag() means the same there
# and is skipped. In other.h, label() stringizes NAME, which a.c and b.c define differently,
# and sub() applies OP, + in a.c and - in b.c: nothing in sub() is written in OP's
# definition, so only the operator's kind in the key tells its two bodies apart. Both are
# walked in both TUs.
mkdir -p "$work/scratch"
cat >"$work/scratch/names.h" <<'C'
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
static inline const char *tag(void) { static int CAT(seen_, __LINE__); CAT(seen_, __LINE__)++; return __FILE__; }
C
cat >"$work/scratch/other.h" <<'C'
#define STR2(x) #x
#define STR(x) STR2(x)
static inline const char *label(void) { return STR(NAME); }
static inline long sub(long a, long b) { return a OP b; }
C
printf '#include "names.h"\nconst char *use_a(void) { return tag(); }\n' >"$work/scratch/a.c"
printf '#define CAT3(a, b) a##b\nint CAT3(made_, here);\n#include "names.h"\nconst char *use_b(void) { return tag(); }\n' >"$work/scratch/b.c"
printf '#define NAME alpha\n#define OP +\n#include "other.h"\nconst char *c_label(void) { return label(); }\nlong c_sub(long a) { return sub(a, 1); }\n' >"$work/scratch/c.c"
printf '#define NAME beta\n#define OP -\n#include "other.h"\nconst char *d_label(void) { return label(); }\nlong d_sub(long a) { return sub(a, 1); }\n' >"$work/scratch/d.c"
# skip_stats_of_pairs DIR: for the pairs ab and cd of DIR's a.c .. d.c, a -j 1 scan of the two
# TUs alone, its header-skip counts in $work/err-<DIR's name>-<pair>.
skip_stats_of_pairs() {
  local dir=$1 pair x y
  for pair in ab cd; do
    x=${pair%?}; y=${pair#?}
    printf '[{"directory": "%s", "file": "%s.c", "arguments": ["cc", "-c", "%s.c"]},\n {"directory": "%s", "file": "%s.c", "arguments": ["cc", "-c", "%s.c"]}]\n' \
      "$dir" $x $x "$dir" $y $y >"$dir/compile_commands.json"
    (cd "$dir" && HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err-$(basename "$dir")-$pair")
  done
}
skip_stats_of_pairs "$work/scratch"
check "header skip: a body whose made tokens say the same is skipped (tag)" \
  grep -q "header function bodies walked 1, skipped 1" "$work/err-scratch-ab"
check "... one whose made string or macro operator differs is walked (label, sub)" \
  grep -q "header function bodies walked 4, skipped 0" "$work/err-scratch-cd"

# A declaration's place is in the key, but not the place of one no file writes or that a
# system header gives: the compiler declares __builtin_expect where a TU first calls it
# (first.h in a.c, second.h in b.c), and ssize_t is typedef'd by whichever of <sys/types.h>
# and <unistd.h> a TU includes first. second() and half() are each walked once and skipped
# in the other TU (before, both were walked twice).
mkdir -p "$work/places"
printf 'static inline int first(int v) { return __builtin_expect(v, 0); }\n' >"$work/places/first.h"
printf 'static inline int second(int v) { return __builtin_expect(v, 1); }\n' >"$work/places/second.h"
printf '#include "first.h"\n#include "second.h"\nint use_a(int v) { return first(v) + second(v); }\n' >"$work/places/a.c"
printf '#include "second.h"\nint use_b(int v) { return second(v); }\n' >"$work/places/b.c"
printf 'static inline ssize_t half(ssize_t v) { return v / 2; }\n' >"$work/places/half.h"
printf '#include <sys/types.h>\n#include "half.h"\nssize_t use_c(ssize_t v) { return half(v); }\n' >"$work/places/c.c"
printf '#include <unistd.h>\n#include "half.h"\nssize_t use_d(ssize_t v) { return half(v); }\n' >"$work/places/d.c"
skip_stats_of_pairs "$work/places"
check "header skip: a builtin placed at each TU's first call does not part two keys (second)" \
  grep -q "header function bodies walked 2, skipped 1" "$work/err-places-ab"
check "... nor a system typedef declared by another system header (half)" \
  grep -q "header function bodies walked 1, skipped 1" "$work/err-places-cd"

# Liveness (analyzer/extract/extract.c): a C TU digests only the header functions its code
# refers to. All three TUs call newgen(), which adds to a generation counter; giveup() CASes
# it, but its caller is in a build this database does not have, and pure.h's helpers are
# called by no TU. Those are not digested: each is walked once, as the first TU to leave it
# out, into a document the merge takes once. giveup()'s CAS is a use of the counter all the
# same, so the counter is not called one (haproxy's pat_ref_giveup(), called only by the Lua
# build, is such a function).
mkdir -p "$work/live"
cat >"$work/live/gen.h" <<'C'
struct ref { unsigned gen; };
static inline unsigned newgen(struct ref *r) { return __atomic_add_fetch(&r->gen, 1, __ATOMIC_SEQ_CST); }
static inline void giveup(struct ref *r, unsigned g) { __atomic_compare_exchange_n(&r->gen, &g, g - 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
C
printf 'static inline int sq(int v) { return v * v; }\nstatic inline int cube(int v) { return v * sq(v); }\n' >"$work/live/pure.h"
for f in a b c; do printf '#include "gen.h"\n#include "pure.h"\nunsigned use_%s(struct ref *r) { return newgen(r); }\n' $f >"$work/live/$f.c"; done
printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},\n {"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]},\n {"directory": "%s", "file": "c.c", "arguments": ["cc", "-c", "c.c"]}]\n' \
  "$work/live" "$work/live" "$work/live" >"$work/live/compile_commands.json"
(cd "$work/live" && HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "liveness: header functions no TU calls are not digested, and each is walked once" \
  err_has "walked 1, skipped 11 (0 by the header's prefix key; 0 by other workers' keys; 9 not referred to in their TU, 3 of them walked as the first of their text)"
check "... giveup()'s CAS still keeps ref::gen from being called a counter" \
  test "$(json "[f['rule'] for f in d['findings'] if 'gen' in f.get('variable', '')]")" = "[]"
cp "$work/out" "$work/live/j1.json"
(cd "$work/live" && HOTSCAN_BENCH_NO_LIVENESS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "... the report is the one digesting every body makes" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); [x.pop(k, None) for x in (a, b) for k in ('summary', 'invocation')]; sys.exit(a != b)" "$work/live/j1.json" "$work/out"

# Which left-out bodies the model gets does not depend on how TUs land on workers. stamp()
# reads READ() twice: a.c's READ() is 0, b.c's and c.c's read the clock. a.c and b.c never
# call stamp(), so its text is first left out in a.c: the model has a.c's walk of it, not
# b.c's, even when b.c lands on a worker that has not seen stamp() (-j 2, one TU to each
# worker in turn) and walks it too. c.c calls stamp(): its reading twice is a finding.
mkdir -p "$work/variant"
printf 'static inline long stamp(void) { return READ() + READ(); }\n' >"$work/variant/stamp.h"
printf '#define READ() 0L\n#include "stamp.h"\nint use_a(void) { return 1; }\n' >"$work/variant/a.c"
printf '#include <time.h>\n#define READ() ((long)clock())\n#include "stamp.h"\nint use_b(void) { return 2; }\n' >"$work/variant/b.c"
printf '#include <time.h>\n#define READ() ((long)clock())\n#include "stamp.h"\nlong use_c(void) { return stamp(); }\n' >"$work/variant/c.c"
printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},\n {"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]},\n {"directory": "%s", "file": "c.c", "arguments": ["cc", "-c", "c.c"]}]\n' \
  "$work/variant" "$work/variant" "$work/variant" >"$work/variant/compile_commands.json"
(cd "$work/variant" && "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "liveness: a variant of a header function is analyzed where a TU calls it (c.c's stamp)" \
  test "$(json "sorted(set((f['rule'], f['file']) for f in d['findings']))")" = "[('timer-duplicate', 'stamp.h')]"
cp "$work/out" "$work/variant/j1.json"
(cd "$work/variant" && HOTSCAN_TEST_SERIAL_WORKERS=1 HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 2 -p . >"$work/out" 2>"$work/err")
check "... b.c's worker walks its left-out stamp() too" err_has "1 not referred to in their TU, 1 of them walked as the first of their text"
check "... and the -j 2 report is the -j 1 one" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); [x.pop(k, None) for x in (a, b) for k in ('summary', 'invocation')]; sys.exit(a != b)" "$work/variant/j1.json" "$work/out"

# A TU-level fact that rests on a skipped body: b.c compiles out a wait on `hits` (DEBUG_WAIT
# is not defined), and knows `hits` is an atomic only from bump(), whose body a.c walked and
# b.c skips. The compiled-out mention must still reach the rule (no relaxed fix-it, medium),
# as in a scan that walks every body.
mkdir -p "$work/skipout"
printf 'extern long hits;\nstatic inline void bump(void) { __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST); }\n' >"$work/skipout/bump.h"
printf '#include "bump.h"\nlong hits;\nvoid use_a(void) { bump(); }\n' >"$work/skipout/a.c"
printf '#include "bump.h"\nvoid use_b(void)\n{\n    bump();\n#ifdef DEBUG_WAIT\n    while (hits)\n        ;\n#endif\n}\n' >"$work/skipout/b.c"
printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},\n {"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]}]\n' \
  "$work/skipout" "$work/skipout" >"$work/skipout/compile_commands.json"
(cd "$work/skipout" && HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "compiled-out mention: b.c skips bump()" err_has "walked 1, skipped 1"
check "... and the counter gets no fix-it, for the wait b.c compiles out" \
  test "$(json "[(f['confidence'], bool(f.get('fix')), 'b.c:6' in f['message']) for f in d['findings'] if f.get('variable') == 'hits']")" = "[('medium', False, True)]"
cp "$work/out" "$work/skipout/with.json"
(cd "$work/skipout" && HOTSCAN_BENCH_NO_HEADER_SKIP=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . >"$work/out" 2>"$work/err")
check "... as a scan walking every body says" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); [x.pop(k, None) for x in (a, b) for k in ('summary', 'invocation')]; sys.exit(a != b)" "$work/skipout/with.json" "$work/out"
# The same at -j 2, one TU per worker in turn: b.c's worker has no memo of bump(), so the
# keys a.c's walk made for it (the body's and bump.h's prefix key) are not shared, and b.c's
# worker walks bump() itself. With them shared it skipped the body, never saw `hits` named,
# and offered the relaxed fix-it.
(cd "$work/skipout" && HOTSCAN_TEST_SERIAL_WORKERS=1 HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 2 -p . >"$work/out" 2>"$work/err")
check "compiled-out mention at -j 2: a.c's keys for bump() stay in its worker" \
  err_has "shared header-skip keys: 0 records"
check "... b.c's worker walks bump() itself" \
  test "$(grep -c 'header function bodies walked 1, skipped 0' "$work/err")" = 2
check "... and the report is the one -j 1 makes (no fix-it)" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); [x.pop(k, None) for x in (a, b) for k in ('summary', 'invocation')]; sys.exit(a != b)" "$work/skipout/with.json" "$work/out"


# The text of an expression (hs_cursor_text, the key of a member or subscript expression) is
# read from the file's bytes as clang_tokenize would lex it: comments kept, white space and
# spliced lines between tokens dropped, a splice right before a token kept in a punctuator's
# spelling, macro bodies whose extent runs from the #define to the use.
# HOTSCAN_BENCH_CHECK_TEXT asks libclang too and counts the answers that differ.
mkdir -p "$work/text"
cat >"$work/text/text.c" <<'C'
struct s { int a; int b[4]; struct s *next; };
#define FIELD(p) ((p)->next->a)
#define SUM(p) ((p)->b[1] /* a comment \
    spanning lines */ + (p)->b[2] \
)
int f(struct s *p, struct s *q)
{
    int x = p->a + p -> b [2] + FIELD(q) + SUM(q);
    int v = __atomic_load_n(&p->next->b[1], __ATOMIC_SEQ_CST);
    x += p->\
next->a;
    q->b[0] = __atomic_load_n(&p->a, __ATOMIC_SEQ_CST); /* a member's key asked: the tests' texts are read */
    x += p->b['1' - 48] + (*q).b[0x1p3 > 1 ? 1 : 0];
    if (p->b[0] > q->b[0] && q->next->b[3] != u8"a b"[0])
        __atomic_fetch_add(&p->next->a, 1, __ATOMIC_SEQ_CST);
    while (FIELD(p) < SUM(q) && p -> b[3] /* here */ > 0)
        __atomic_fetch_add(&q->next->b[2], x, __ATOMIC_SEQ_CST);
    return x + v;
}
C
printf '[{"directory": "%s", "file": "text.c", "arguments": ["cc", "-c", "text.c"]}]\n' "$work/text" >"$work/text/compile_commands.json"
(cd "$work/text" && HOTSCAN_BENCH_CHECK_TEXT=1 "$HOTSCAN" scan -q --no-cache --format json --exit-zero -j 1 -p . >"$work/out" 2>"$work/err")
check "expression text: read as libclang lexes it" \
  python3 -c "import re,sys; m=re.search(r'text check: \S*text.c: (\d+) texts, (\d+) differ', open(sys.argv[1]).read()); sys.exit(not m or int(m.group(1)) < 8 or m.group(2) != '0')" "$work/err"

# A shard's facts are judged together, so --facts-out uses the header skip: each body a
# document leaves out is in an earlier TU of the same shard. The judge still gives the whole
# scan's report; with a cache, only the TUs that left nothing out are kept in it.
(cd "$work/skipcount" && "$HOTSCAN" scan -q --no-cache --format json --exit-zero --min-confidence low -j 1 -p . -o "$work/skipcount/whole.json" 2>/dev/null)
(cd "$work/skipcount" && HOTSCAN_BENCH_HEADER_SKIP_STATS=1 "$HOTSCAN" scan -q --cache "$work/skipcount/cache" -j 1 -p . --shard 1/1 --facts-out "$work/skipcount/facts" 2>"$work/err")
check "--facts-out: the shared bodies were skipped" err_has "walked 2, skipped 4"
check "... so c.c's document has no operation of bump()" \
  python3 -c "import json,glob,sys; d=json.load(open(glob.glob(sys.argv[1] + '/0002-*.json')[0])); sys.exit(any(a.get('function', '').endswith('bump') for a in d['atomics']))" "$work/skipcount/facts"
(cd "$work/skipcount" && "$HOTSCAN" judge -q --format json --exit-zero --min-confidence low "$work/skipcount/facts" -o "$work/skipcount/judged.json")
check "... and the judge's report is the whole scan's (seen by 3 TUs)" \
  python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit([(f['fingerprint'], f['message']) for f in a['findings']] != [(f['fingerprint'], f['message']) for f in b['findings']] or not any('seen by 3 of' in f['message'] for f in a['findings']))" "$work/skipcount/whole.json" "$work/skipcount/judged.json"
check "... the cache keeps only the TU that left nothing out" test "$(find "$work/skipcount/cache" -name '*.facts.json' | wc -l)" -eq 1

# The cache keeps fix-it verification's verdicts: an unchanged rerun reparses nothing and
# keeps and rejects the same fixes; a damaged verdict is a reparse; so is a changed file that
# the reparse read (a header), even when the edited file itself is unchanged.
verdict_scan() { (cd "$work/verify/$1" && rm -f "$work/verify/$1.stats" && HOTSCAN_BENCH_VERIFY_STATS="$work/verify/$1.stats" "$HOTSCAN" scan --format json --exit-zero --cache "$work/verify/cache" -p . >"$work/out" 2>"$work/err"); }
verdict_scan bad
check "verdicts: the first run reparses" grep -q "verify: 4 fix-its, 5 reparses in 3 rounds, 0 verdicts" "$work/verify/bad.stats"
verdict_scan bad
check "... a rerun takes all 5 from the cache" grep -q "verify: 4 fix-its, 0 reparses in 3 rounds, 5 verdicts" "$work/verify/bad.stats"
check "... and rejects the same fix with the compiler's reason" \
  test "$(json "[f['line'] for f in d['findings'] if 'add a compile error' in f.get('fix_unavailable', '')]")" = "[3]"
check "... keeping the three good ones" test "$(json "sum(len(f.get('fixes', [])) for f in d['findings'])")" = 3
for v in "$work"/verify/cache/*/*.verdict; do head -c 40 "$v" >"$v.cut" && mv "$v.cut" "$v"; done
verdict_scan bad
check "cut verdicts are reparsed" grep -q "verify: 4 fix-its, 5 reparses in 3 rounds, 0 verdicts" "$work/verify/bad.stats"
printf '#define BUMP(x) __atomic_fetch_add(&(x), 1, __ATOMIC_SEQ_CST)\n' >"$work/verify/good/bump.h"
printf '#include "bump.h"\nlong a;\nvoid count(void) { BUMP(a); __atomic_fetch_add(&a, 1, __ATOMIC_SEQ_CST); }\n' >"$work/verify/good/good.c"
verdict_scan good
verdict_scan good
check "verdicts: a header's TU verified once" grep -q "0 reparses in 1 rounds, 1 verdicts" "$work/verify/good.stats"
printf '/* edited */\n' >>"$work/verify/good/bump.h"
verdict_scan good
check "... and again when the header changes" grep -q "1 reparses in 1 rounds, 0 verdicts" "$work/verify/good.stats"

# A TU the database says gcc compiles parses with gcc's leniency: `register` in C++17 and an
# implicit declaration in C are no compile errors (gcc only warns), and its findings stay;
# the same TU under clang++ has the error, as clang would.
mkdir -p "$work/gcc"
cat >"$work/gcc/reg.cc" <<'CC'
#include <ctime>
__attribute__((hot)) long tally(int n) { register long t = 0; for (int i = 0; i < n; i++) t += std::clock(); return t; }
CC
cat >"$work/gcc/implicit.c" <<'C'
#include <time.h>
__attribute__((hot)) long stamp(int n) { long t = 0; for (int i = 0; i < n; i++) t += time(NULL); return t + helper(n); }
C
gcc_db() { # compiler for reg.cc, compiler for implicit.c
    printf '[{"directory": "%s", "arguments": ["%s", "-std=c++17", "-c", "reg.cc"], "file": "reg.cc"},\n' "$work/gcc" "$1" >"$work/gcc/compile_commands.json"
    printf ' {"directory": "%s", "arguments": ["%s", "-std=gnu11", "-c", "implicit.c"], "file": "implicit.c"}]\n' "$work/gcc" "$2" >>"$work/gcc/compile_commands.json"
}
gcc_db /usr/bin/x86_64-linux-gnu-g++-12 cc
(cd "$work/gcc" && "$HOTSCAN" scan --no-cache --format json --exit-zero -p compile_commands.json >"$work/out" 2>"$work/err")
check "gcc's TUs: no compile errors" test "$(json "len(d['errors'])")" = 0
check "... both reads found" test "$(json "sorted(f['file'] for f in d['findings'] if f['rule'] == 'timer-hot-path')")" = "['implicit.c', 'reg.cc']"
check "... and a note in the report says why" test "$(json "sum('2 translation units compiled by gcc' in n['message'] for n in d['invocation'].get('notes', []))")" = 1
gcc_db clang++-19 clang
(cd "$work/gcc" && "$HOTSCAN" scan --no-cache --format json --exit-zero -p compile_commands.json >"$work/out" 2>"$work/err")
check "clang's TUs keep clang's errors" test "$(json "len(d['errors'])")" = 2
check "... and no such note" test "$(json "sum('compiled by gcc' in n['message'] for n in d['invocation'].get('notes', []))")" = 0

checks_done
