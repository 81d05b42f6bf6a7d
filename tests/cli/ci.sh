#!/usr/bin/env bash
# End-to-end checks of what a CI step uses: NOLINT suppressions, .hotscan.yml, --baseline,
# --diff-base, --extra-arg and compile-command sanitizing, SARIF helpUri, and the pre-commit
# and GitHub Actions recipes run as written. Usage: ci.sh /path/to/hotscan
set -u
HOTSCAN=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"

# Runs hotscan in $work/proj, capturing stdout, stderr and the exit status.
run() {
    (cd "$work/proj" && "$HOTSCAN" "$@" >"$work/out" 2>"$work/err")
    status=$?
}
out_has() { grep -q -- "$1" "$work/out"; }
err_has() { grep -q -- "$1" "$work/err"; }
json() { python3 -c "import json,sys; d=json.load(open('$work/out')); print($1)"; }
lines() { json "sorted(set((f['file'], f['line']) for f in d['findings']))"; }

mkdir -p "$work/proj/src"
cd "$work/proj"

# --- suppressions: every spelling, in C and C++, in and around macros ---
cat >src/sup.c <<'C'
#include <time.h>
#define READ_CLOCK() clock()
#define SPIN(n, t) \
    for (int i = 0; i < (n); i++) (t) += clock()
__attribute__((hot)) long s1(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; } // NOLINT
__attribute__((hot)) long s2(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; } // NOLINT(timer-hot-path)
__attribute__((hot)) long s3(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; } // NOLINT(bugprone-foo)
// NOLINTNEXTLINE(hotscan-timer-hot-path)
__attribute__((hot)) long s4(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
__attribute__((hot)) long s5(int n) { long t = 0; for (int i = 0; i < n; i++) t += READ_CLOCK(); return t; } /* NOLINT(hotscan-*) */
// NOLINTBEGIN(timer-hot-path)
__attribute__((hot)) long s6(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
// NOLINTEND(timer-hot-path)
__attribute__((hot)) long s7(int n) { const char *x = "// NOLINT"; long t = 0; for (int i = 0; i < n; i++) t += clock(); return t + x[0]; }
__attribute__((hot)) long s8(int n) {
    long t = 0;
    SPIN(n, t); // NOLINT(timer-hot-path)
    return t;
}
int unused_one(void) { return 1; } // NOLINT(atomic-seqcst-counter)
C
cat >src/sup.cc <<'C'
#include <atomic>
static std::atomic<long> hits;
static std::atomic<long> misses;
static std::atomic<long> drops;
#define COUNT(c) (c).fetch_add(1)
#define BUMP(c) \
    do { (c)++; } while (0)
void on_hit() { hits++; }
void on_miss() { COUNT(misses); } // NOLINT(atomic-seqcst-counter)
void on_drop() {
  BUMP(drops); // NOLINT(hotscan-atomic-seqcst-counter)
}
long get() { return hits.load(std::memory_order_relaxed) + misses.load(std::memory_order_relaxed) + drops.load(std::memory_order_relaxed); }
C
run scan -q --format json --min-confidence low src/sup.c
check "C: only the unsuppressed findings are left" test "$(lines)" = "[('src/sup.c', 7), ('src/sup.c', 14)]"
check "C: the summary counts the suppressed" test "$(json "d['summary']['suppressed']")" = 6
check "C: findings left: exit 1" test $status -eq 1
run scan --min-confidence low src/sup.c
check "the text summary says how many were suppressed" err_has "6 findings suppressed by NOLINT"
run scan -q --format json --min-confidence low src/sup.cc
check "C++: a macro's use carries the suppression" test "$(lines)" = "[('src/sup.cc', 8)]"
check "C++: the summary counts the suppressed" test "$(json "d['summary']['suppressed']")" = 2
run scan -q --min-confidence low --report-unused-suppressions src/sup.c
check "an unused suppression naming a hotscan rule is reported" \
  out_has "src/sup.c:20:.*NOLINT(atomic-seqcst-counter) suppresses no finding \[unused-suppression\]"
check "... and no other" test "$(grep -c unused-suppression "$work/out")" = 1
run scan -q --min-confidence low --report-unused-suppressions --format json --exit-zero src/sup.cc
check "no unused suppression in the C++ file" test "$(json "len(d['unused_suppressions'])")" = 0
printf '#include <time.h>\nint f(void) { return 1; } // NOLINT(timer-hot-path)\n' >src/stale.c
run scan -q --report-unused-suppressions src/stale.c
check "an unused suppression alone fails the run" test $status -eq 1
run scan -q src/stale.c
check "... only when asked for" test $status -eq 0
rm src/stale.c

# --- .hotscan.yml: discovery, precedence, errors, --config, --no-config, config --dump ---
mkdir -p "$work/cfg/sub/src" "$work/cfg/myrules"
cp src/sup.c "$work/cfg/sub/src/sup.c"
cat >"$work/cfg/.hotscan.yml" <<'Y'
# found by walking up from the root (cfg/sub)
min-confidence: low
disable: [timer-duplicate]
exit-zero: true
rules: myrules
Y
cp "$SRC/rules/timers/"*.json "$work/cfg/myrules/" 2>/dev/null || true
cfgrun() { (cd "$work/cfg/sub" && "$HOTSCAN" "$@" >"$work/out" 2>"$work/err"); status=$?; }
cfgrun config --dump
check "config --dump exits 0" test $status -eq 0
check "the file is found by walking up" out_has "# hotscan's effective options: $work/cfg/.hotscan.yml"
check "a scalar from the file" out_has "^min-confidence: low"
check "a path in the file is relative to its folder" out_has "  - $work/cfg/myrules"
cfgrun config --dump --min-confidence high --disable os-event
check "the command line's scalar wins" out_has "^min-confidence: high"
check "the command line's list replaces the file's" test "$(grep -c -- '  - ' "$work/out")" = 2
check "... so the file's timer-duplicate is gone" test "$(grep -c timer-duplicate "$work/out")" = 0
cfgrun scan -q src/sup.c
check "the file's exit-zero applies" test $status -eq 0
printf '#include <time.h>\nlong handler(void) { return clock(); }\n' >"$work/cfg/sub/src/plain.c"
cfgrun scan -q --format json src/plain.c
check "no hot root, no finding" test "$(json "d['summary']['findings']")" = 0
printf 'hot: [handler]\n' >"$work/other.yml"
cfgrun scan -q --format json --config "$work/other.yml" src/plain.c
check "the file's hot roots apply to a scan" test "$(json "d['summary']['findings']")" = 1
cfgrun scan -q --no-config src/sup.c
check "--no-config ignores the file" test $status -eq 1
printf 'min-confidence: high\nhot: [nothing]\n' >"$work/other.yml"
cfgrun config --dump --config "$work/other.yml"
check "--config FILE is read instead" out_has "^min-confidence: high"
printf 'hot: [a]\n\nmin-confidence: low\nbogus-key: 1\n' >"$work/other.yml"
cfgrun scan --config "$work/other.yml" src/sup.c
check "an unknown key exits 2" test $status -eq 2
check "... naming the file and line" err_has "other.yml:4: unknown key 'bogus-key'"
check "... and listing the keys" err_has "the keys are the long options: .*min-confidence"
printf 'hot: [a]\nmin-confidence: low\nhot: [b]\n' >"$work/other.yml"
cfgrun config --dump --config "$work/other.yml"
check "a key given twice exits 2" test $status -eq 2
check "... naming the file, the key and both lines" err_has "other.yml:3: duplicate key 'hot' (first at line 1)"
printf 'format: xml\n' >"$work/other.yml"
cfgrun scan --config "$work/other.yml" src/sup.c
check "a bad value in the file exits 2" test $status -eq 2
check "... and says where it came from" err_has "that is 'format' in $work/other.yml:1"
printf 'hot: [a\n' >"$work/other.yml"
cfgrun scan --config "$work/other.yml" src/sup.c
check "YAML that does not parse exits 2 naming the file" err_has "other.yml:2:.*not valid YAML"
printf 'min-confidence: [low, high]\n' >"$work/other.yml"
cfgrun scan --config "$work/other.yml" src/sup.c
check "a list for a scalar is an error" err_has "other.yml:1: 'min-confidence' takes one value, not a list"
printf 'config: x.yml\n' >"$work/other.yml"
cfgrun scan --config "$work/other.yml" src/sup.c
check "config is no key of a config" err_has "unknown key 'config'"
cfgrun config --dump --conf "$work/other.yml"
check "an abbreviated --config is refused (the file is chosen before getopt runs)" err_has "write '--config' in full"
cfgrun scan --config "$work/missing.yml" src/sup.c
check "a missing --config exits 2" test $status -eq 2
printf 'exclude: [src/sup.c]\n' >"$work/other.yml"
cfgrun scan -q --config "$work/other.yml" src/sup.c
check "exclude leaves a file out" test $status -eq 0
cfgrun scan -q --exclude src src/sup.c
check "--exclude a folder" test $status -eq 0

# --- extra compiler arguments: --extra-arg, --extra-arg-before, "-- FLAGS", the config ---
cat >src/flag.c <<'C'
#include <time.h>
#ifdef WANT_SPIN
__attribute__((hot)) long spin(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
#endif
#if LEVEL > 2
__attribute__((hot)) long spin2(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
#endif
C
run scan -q --no-config src/flag.c
check "without the flag, no finding" test $status -eq 0
run scan -q --no-config src/flag.c -- -DWANT_SPIN
check "-- FLAGS reach the compiler (not read as PATHs)" test $status -eq 1
run scan -q --no-config --format json --extra-arg -DWANT_SPIN --extra-arg=-DLEVEL=3 src/flag.c
check "--extra-arg, repeatable" test "$(json "len(d['findings'])")" = 2
run scan -q --no-config --format json --extra-arg-before -DWANT_SPIN src/flag.c
check "--extra-arg-before" test "$(json "len(d['findings'])")" = 1
run scan -q --no-config --format json --extra-arg-before -DLEVEL=3 --extra-arg -ULEVEL src/flag.c
check "--extra-arg comes after --extra-arg-before" test "$(json "len(d['findings'])")" = 0
printf 'extra-arg: [-DWANT_SPIN]\n' >"$work/other.yml"
run scan -q --config "$work/other.yml" src/flag.c
check "extra-arg in the config" test $status -eq 1
run config --dump --no-config -- -DX=1 -I inc
check "config --dump shows the -- flags as extra-arg" test "$(grep -c '^  - ' "$work/out")" = 3

# --- precompiled headers and flags libclang cannot use ---
mkdir -p "$work/pch"
printf '#include <time.h>\n' >"$work/pch/pch.h"
echo 'not a PCH from this clang' >"$work/pch/pch.h.pch"
echo 'not a PCH either' >"$work/pch/pch.h.gch"
printf '__attribute__((hot)) long s(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }\n' >"$work/pch/cmake.c"
cp "$work/pch/cmake.c" "$work/pch/driver.c"
cp "$work/pch/cmake.c" "$work/pch/plain.c"
cat >"$work/pch/compile_commands.json" <<J
[{"directory": "$work/pch", "file": "cmake.c", "arguments": ["clang", "-Xclang", "-include-pch", "-Xclang", "$work/pch/pch.h.pch", "-Xclang", "-include", "-Xclang", "$work/pch/pch.h", "-c", "cmake.c"]},
 {"directory": "$work/pch", "file": "driver.c", "arguments": ["clang", "-include", "pch.h", "-c", "driver.c"]},
 {"directory": "$work/pch", "file": "plain.c", "arguments": ["clang", "-include-pch", "pch.h.pch", "-include", "$work/pch/pch.h", "-c", "plain.c"]}]
J
(cd "$work/pch" && "$HOTSCAN" scan --no-config --format json -p . >"$work/out" 2>"$work/err"); status=$?
check "PCH options dropped: every TU parses" test "$(json "len(d['errors'])")" = 0
check "... and is analyzed (-include kept)" test "$(json "len(d['findings'])")" = 3
check "... exit 1 (findings, no errors)" test $status -eq 1
check "a note says what was dropped" err_has "precompiled headers are not used.*-Xclang -include-pch"
(cd "$work/pch" && "$HOTSCAN" scan --no-config -p . --extra-arg=-include-pch --extra-arg="$work/pch/pch.h.pch" plain.c >"$work/out" 2>"$work/err"); status=$?
check "a TU that still fails exits 2" test $status -eq 2
check "... saying why in clang's words" err_has "plain.c: libclang could not read the AST: .*pch.h.pch' is not a valid precompiled PCH file"

# --- --baseline: a throwaway git repository, the report of its first commit ---
mkdir -p "$work/repo/src"
cd "$work/repo"
git init -q . && git config user.email t@example.com && git config user.name t
cat >src/srv.c <<'C'
#include <stdatomic.h>
#include <time.h>
static _Atomic long served;
static _Atomic long dropped;
__attribute__((hot)) long loop(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
void serve(void) { served++; }
void drop(void) { atomic_fetch_add(&dropped, 1); }
long stats(void) { return atomic_load_explicit(&served, memory_order_relaxed) + atomic_load_explicit(&dropped, memory_order_relaxed); }
C
cat >compile_commands.json <<J
[{"directory": "$work/repo", "file": "src/srv.c", "arguments": ["clang", "-c", "src/srv.c"]}]
J
git add -A && git commit -qm first
repo() { (cd "$work/repo" && "$HOTSCAN" "$@" >"$work/out" 2>"$work/err"); status=$?; }
repo scan -q --no-config -p . --format json -o "$work/base.json"
check "the first run finds the three" test "$(python3 -c "import json; print(len(json.load(open('$work/base.json'))['findings']))")" = 3
repo scan -q --no-config -p . --format sarif -o "$work/base.sarif"
repo scan --no-config -p . --baseline "$work/base.json"
check "with its own report as the baseline: clean" test $status -eq 0
check "the summary says how many were baselined" err_has "3 findings already in the baseline"
sed -i '1i /* a comment that moves every line */\n' src/srv.c
repo scan -q --no-config -p . --format json --baseline "$work/base.json"
check "line shifts do not bring old findings back" test "$(json "(len(d['findings']), d['summary']['baselined'])")" = "(0, 3)"
cat >>src/srv.c <<'C'
static _Atomic long retried;
void retry(void) { retried++; }
long retries(void) { return atomic_load_explicit(&retried, memory_order_relaxed); }
C
repo scan -q --no-config -p . --format json --baseline "$work/base.json"
check "only the new finding is reported" test "$(json "[f['variable'] for f in d['findings']]")" = "['retried']"
check "... and fails the run" test $status -eq 1
repo scan -q --no-config -p . --format json --baseline "$work/base.sarif"
check "a SARIF log is a baseline too" test "$(json "[f['variable'] for f in d['findings']]")" = "['retried']"
printf 'baseline: ../base.json\n' >"$work/repo/.hotscan.yml"
repo scan -q -p . --format json
check "baseline in .hotscan.yml, relative to it" test "$(json "d['summary']['baselined']")" = 3
rm "$work/repo/.hotscan.yml"
echo '{"nothing": 1}' >"$work/bad.json"
repo scan -q --no-config -p . --baseline "$work/bad.json"
check "a baseline that is no report exits 2" test $status -eq 2
check "... naming it" err_has "bad.json: not a hotscan report"
repo scan -q --no-config -p . --baseline "$work/none.json"
check "a missing baseline exits 2" test $status -eq 2
git checkout -q src/srv.c

# --- --diff-base: only what changed since a revision ---
cat >src/path.c <<'C'
#include <time.h>
long tick(void) { return clock(); }
long handler(void) {
    return tick();
}
C
cat >compile_commands.json <<J
[{"directory": "$work/repo", "file": "src/srv.c", "arguments": ["clang", "-c", "src/srv.c"]},
 {"directory": "$work/repo", "file": "src/path.c", "arguments": ["clang", "-c", "src/path.c"]},
 {"directory": "$work/repo", "file": "src/new.c", "arguments": ["clang", "-c", "src/new.c"]}]
J
printf 'int unused_now(void) { return 0; }\n' >src/new.c
git add -A && git commit -qm second && git tag base
repo scan -q --no-config -p . --format json --diff-base base
check "no change since the revision: nothing to report" test "$(json "(len(d['findings']), d['summary']['outside_diff'])")" = "(0, 3)"
check "... exit 0" test $status -eq 0
git checkout -q -b feature
cat >>src/srv.c <<'C'
static _Atomic long retried;
void retry(void) { retried++; }
long retries(void) { return atomic_load_explicit(&retried, memory_order_relaxed); }
C
git commit -qam "a new counter"
repo scan -q --no-config -p . --format json --diff-base base
check "a committed change: only its finding" test "$(json "[f['variable'] for f in d['findings']]")" = "['retried']"
check "... fails the run" test $status -eq 1
repo scan -q --no-config -p . --format json --diff-base HEAD
check "against HEAD nothing changed" test "$(json "len(d['findings'])")" = 0
sed -i 's/^long handler(void) {/__attribute__((hot)) long handler(void) {/' src/path.c
repo scan -q --no-config -p . --format json --diff-base HEAD
check "an uncommitted change that makes old code hot reports it (its hot path runs through the change)" \
  test "$(json "[(f['function'], f['line']) for f in d['findings']]")" = "[('handler', 4)]"
git checkout -q src/path.c
cat >src/untracked_hot.c <<'C'
#include <time.h>
__attribute__((hot)) long spin(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }
C
repo scan -q --no-config -p . --format json --diff-base HEAD src/untracked_hot.c src/srv.c
check "an untracked file is all new" test "$(json "[f['file'] for f in d['findings']]")" = "['src/untracked_hot.c']"
rm src/untracked_hot.c
repo scan -q --no-config -p . --diff-base no-such-rev
check "an unknown revision exits 2" test $status -eq 2
check "... naming it" err_has "diff-base 'no-such-rev': not a commit in the git repository of "
# The value is a revision, never an option of git's: not from the command line, not from a
# committed .hotscan.yml (a pull request must not be able to switch the gate off).
repo scan -q --no-config -p . --diff-base="--output=$work/git-wrote"
check "--diff-base=--output=FILE exits 2" test $status -eq 2
check "... naming the value" err_has "diff-base '--output=$work/git-wrote': not a commit"
check "... and git writes no file" test ! -e "$work/git-wrote"
repo scan -q --no-config -p . --diff-base=--cached
check "--diff-base=--cached (an empty diff, every finding left out) exits 2" test $status -eq 2
repo scan -q --no-config -p . --diff-base='HEAD^{tree}'
check "a revision that is not a commit exits 2" test $status -eq 2
printf 'diff-base: --output=%s\n' "$work/git-wrote" >"$work/repo/.hotscan.yml"
repo scan -q -p .
check "diff-base: --output=FILE in .hotscan.yml exits 2" test $status -eq 2
check "... and git writes no file" test ! -e "$work/git-wrote"
rm "$work/repo/.hotscan.yml"
(cd "$work/proj" && "$HOTSCAN" scan -q --no-config --diff-base HEAD src/sup.c >"$work/out" 2>"$work/err"); status=$?
check "outside a git work tree exits 2" test $status -eq 2
check "... saying so" err_has "is not in a git work tree"
repo scan -q --no-config -p . --format json --diff-base base --baseline "$work/base.json"
check "--diff-base and --baseline together: the baseline is applied first" \
  test "$(json "(len(d['findings']), d['summary']['baselined'], d['summary']['outside_diff'])")" = "(1, 3, 0)"
cd "$work/proj"

checks_done
