#!/usr/bin/env bash
# `hotscan validate`: --codegen on a counter example (AArch64 ldaddal -> ldadd, x86 xchg -> mov
# for a seq_cst -> relaxed store, x86 lock inc unchanged) and on the bundled example; the
# benchmark on the bundled example (corpus/examples/minidb, its bench/validate_driver):
# hotscan's own clock() fix is a significant improvement, an edit that changes nothing is
# not; failures name the variant; the user's tree (a plain folder, a git repository) is left
# as it was. The benchmark checks compare the two variants with each other (CPU time, 15
# alternating runs each, alpha 0.01 and a 99% interval that must exclude 1), never against
# an absolute speed. Usage: validate.sh /path/to/hotscan /path/to/source-tree
set -u
HOTSCAN=$(realpath "$1")
SRC=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() {
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name"
        echo "  stdout:"; tail -15 "$work/out" 2>/dev/null | sed 's/^/    /'
        echo "  stderr:"; tail -15 "$work/err" 2>/dev/null | sed 's/^/    /'
    fi
}
out_has() { grep -q -- "$1" "$work/out"; }
err_has() { grep -q -- "$1" "$work/err"; }
err_not_has() { ! grep -q -- "$1" "$work/err"; }
json() { python3 -c "import json,sys; d=json.load(open('$work/out')); print($1)"; }

# --- codegen on a counter example ---
mkdir -p "$work/cg"
cd "$work/cg"
cat >counter.cc <<'C'
#include <atomic>
#include <cstdint>
#include <ctime>
std::atomic<uint64_t> events_total{0};
std::atomic<bool> ready{false};
void insert_events_waits_history_long() { events_total++; }
void mark_ready() { ready.store(true); }
long stamp() { return (long)clock(); }
C
cp counter.cc fixed.cc
sed -i 's/events_total++;/events_total.fetch_add(1, std::memory_order_relaxed);/; s/ready.store(true);/ready.store(true, std::memory_order_relaxed);/' fixed.cc
diff -u --label a/counter.cc --label b/counter.cc counter.cc fixed.cc >fix.diff
rm fixed.cc
# The TU's own flags, with ones a cross compile must drop (-march=native) and ones codegen
# overrides (-O0, -g, -c -o).
printf '[{"directory": "%s", "command": "g++ -std=c++17 -O0 -g -march=native -DCOUNT=1 -c counter.cc -o counter.o", "file": "counter.cc"}]\n' "$work/cg" >compile_commands.json
sum_before=$(md5sum counter.cc)
"$HOTSCAN" validate --codegen --patch fix.diff >"$work/out" 2>"$work/err"
status=$?
check "codegen exits 0" test $status -eq 0
check "codegen: aarch64 ldaddal -> ldadd" out_has "insert_events_waits_history_long(): aarch64 ldaddal -> ldadd"
check "codegen: x86 xchg -> mov for the store" out_has "mark_ready(): x86_64 xchg -> mov"
check "codegen: aarch64 store-release -> str" out_has "mark_ready(): aarch64 stlrb -> str"
check "codegen: x86 lock inc unchanged" out_has "insert_events_waits_history_long(): x86_64 unchanged (lock inc)"
check "codegen: an unchanged function is not listed" test "$(grep -c stamp "$work/out")" -eq 0
check "codegen leaves the tree alone" test "$(md5sum counter.cc)" = "$sum_before"
"$HOTSCAN" validate --codegen --patch fix.diff --targets aarch64 --format json -o "$work/out" 2>"$work/err"
check "codegen json" test "$(json "[c['summary'] for c in d['codegen']['tus'][0]['changes'] if c['function']=='_Z32insert_events_waits_history_longv']")" = "['aarch64 ldaddal -> ldadd']"
check "codegen json: --targets aarch64 only" test "$(json "sorted(set(c['target'] for c in d['codegen']['tus'][0]['changes']))")" = "['aarch64']"
# A patch that does not apply says so.
sed 's/events_total++;/events_total += 2;/' fix.diff >bad.diff
"$HOTSCAN" validate --codegen --patch bad.diff >"$work/out" 2>"$work/err"
check "a patch that does not apply exits 2" test $? -eq 2
check "a patch that does not apply is named" err_has "does not apply"
# A diff naming a path outside the tree (a '..' component, an absolute path) is refused before
# anything is copied or written: nothing appears outside the work folder.
for evil in '../../outside-%s.txt' '/tmp/outside-%s.txt'; do
    target=$(printf "$evil" "$$")
    printf -- '--- a/%s\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' "$target" "$target" >evil.diff
    "$HOTSCAN" validate --codegen --patch evil.diff >"$work/out" 2>"$work/err"
    check "a diff naming $target exits 2" test $? -eq 2
    check "... says why" err_has "outside the tree it patches"
    check "... and writes nothing there" test ! -e "$work/cg/$target" -a ! -e "/tmp/outside-$$.txt"
done
# Inside a hunk, a removed "-- x" line reads "--- x" and an added "++ x" line "+++ x": hunk
# lines, not file headers (a SQL comment, a C pre-increment).
{ printf -- '--- a/counter.cc\n+++ b/counter.cc\n@@ -1,1 +1,2 @@\n'; printf -- '-#include <atomic>\n+++ ../../x\n+#include <atomic>\n'; } >hunk.diff
"$HOTSCAN" validate --codegen --patch hunk.diff >"$work/out" 2>"$work/err"
check "a hunk line that looks like a header is no path" err_not_has "outside the tree"
# A file whose name starts with '-' is a file to mkdir, cp, patch and the compiler, never an
# option of theirs.
mkdir -p "$work/dash"
cd "$work/dash"
cp "$work/cg/counter.cc" ./-counter.cc
sed 's#counter\.cc#-counter.cc#g' "$work/cg/fix.diff" >fix.diff
printf '[{"directory": "%s", "arguments": ["g++", "-std=c++17", "-c", "./-counter.cc"], "file": "./-counter.cc"}]\n' "$work/dash" >compile_commands.json
"$HOTSCAN" validate --codegen --patch fix.diff --targets x86_64 >"$work/out" 2>"$work/err"
check "codegen of -counter.cc exits 0" test $? -eq 0
check "... and sees its change" out_has "mark_ready(): x86_64 xchg -> mov"
cd "$work/cg"

# --- codegen for a fix in a header: validate finds the TUs that include it ---
# a.cc includes counters.h, b.cc through wrap.h (only the preprocessor sees that), c.cc names
# it in a comment only; the fix touches the header alone.
mkdir -p "$work/hdr/include"
cd "$work/hdr"
cat >include/counters.h <<'C'
#include <atomic>
#include <cstdint>
extern std::atomic<uint64_t> hits;
inline void count_hit() { hits++; }
C
printf '#include <counters.h>\n' >include/wrap.h
printf '#include "counters.h"\nstd::atomic<uint64_t> hits{0};\nvoid serve_a() { count_hit(); }\n' >a.cc
printf '#include <wrap.h>\nvoid serve_b() { count_hit(); }\n' >b.cc
printf '// counters.h is not included here\nint other() { return 1; }\n' >c.cc
sed 's/hits++;/hits.fetch_add(1, std::memory_order_relaxed);/' include/counters.h >fixed.h
diff -u --label a/include/counters.h --label b/include/counters.h include/counters.h fixed.h >fix.diff
rm fixed.h
printf '[{"directory": "%s", "command": "g++ -std=c++17 -Iinclude -c a.cc -o a.o", "file": "a.cc"},
 {"directory": "%s", "command": "g++ -std=c++17 -Iinclude -c b.cc -o b.o", "file": "b.cc"},
 {"directory": "%s", "command": "g++ -std=c++17 -Iinclude -c c.cc -o c.o", "file": "c.cc"}]\n' "$work/hdr" "$work/hdr" "$work/hdr" >compile_commands.json
"$HOTSCAN" validate --codegen --patch fix.diff --targets aarch64 >"$work/out" 2>"$work/err"
check "header fix: exits 0" test $? -eq 0
check "header fix: the includers are found" out_has "include/counters.h: a header; 2 TUs of the compile database include it (all 3 preprocessed"
check "header fix: a direct includer compiled" out_has "serve_a(): aarch64 ldaddal -> ldadd"
check "header fix: an includer through another header compiled" out_has "serve_b(): aarch64 ldaddal -> ldadd"
check "header fix: a TU that only names it is not compiled" test "$(grep -c '^c.cc' "$work/out")" -eq 0
"$HOTSCAN" validate --codegen --patch fix.diff --targets aarch64 --header-tus 1 --format json -o "$work/out" 2>"$work/err"
check "header fix: --header-tus 1 compiles one" test "$(json "[t['file'] for t in d['codegen']['tus']]")" = "['a.cc']"
check "header fix: --header-tus 1 says the search stopped" test "$(json "(d['codegen']['header_tus']['complete'], d['codegen']['header_tus']['preprocessed'], d['codegen']['tus'][0]['includes'])")" = "(False, 1, ['include/counters.h'])"
"$HOTSCAN" validate --codegen --patch fix.diff --header-tus 0 -o "$work/out" 2>"$work/err"
check "--header-tus 0: exit 2" test $? -eq 2
check "--header-tus 0: the error says what it takes" grep -q "needs a whole number from 1 to 1000000, or 'all'" "$work/err"
"$HOTSCAN" validate --codegen --patch fix.diff --targets aarch64 b.cc >"$work/out" 2>"$work/err"
check "header fix: PATHs name the TUs" test "$(grep -c 'changes\? in the instructions' "$work/out")" -eq 1
check "header fix: with PATHs no search" test "$(grep -c 'a header' "$work/out")" -eq 0
sed -i 's/-Iinclude //' compile_commands.json
"$HOTSCAN" validate --codegen --patch fix.diff --targets aarch64 >"$work/out" 2>"$work/err"
check "header fix: no includer found exits 2" test $? -eq 2
check "header fix: no includer found says so" err_has "none of the 3 TUs of the compile database preprocessed includes it"
check "header fix: a TU that does not preprocess is named" err_has "could not be preprocessed"

# --- codegen and benchmark on the bundled example, with hotscan's own fixes ---
cp -r "$SRC/corpus/examples/minidb" "$work/minidb"
rm -f "$work/minidb/bench/validate_driver"
cd "$work/minidb"
"$HOTSCAN" scan --hot dispatch_command --exit-zero -q --format json -o "$work/findings.json" . 2>"$work/err"
"$HOTSCAN" scan --hot dispatch_command --exit-zero -q --patch "$work/fix.diff" . >/dev/null 2>&1
tree_before=$(cd "$work/minidb" && find . -type f | sort | xargs md5sum)
"$HOTSCAN" validate --codegen --findings "$work/findings.json" >"$work/out" 2>"$work/err"
check "codegen from a report exits 0" test $? -eq 0
check "codegen from a report: the counters" out_has "count_statement: aarch64 ldaddal x3 -> ldadd x3"
check "codegen from a report: the clock() call gone" out_has "trx_start_low: x86_64 call clock -> (none)"

# The clock() fix: one clock() of two per statement (a system call here) goes.
bench=(--build 'sh bench/build.sh' --bench 'bench/validate_driver 40000' --runs 15 --warmup 1 --measure cpu)
"$HOTSCAN" validate --patch "$work/fix.diff" "${bench[@]}" --format json -o "$work/out" 2>"$work/err"
check "bench exits 0" test $? -eq 0
check "bench: the clock() fix is a significant improvement" test "$(json "d['benchmark']['verdict']")" = "significant improvement"
check "bench: ratio below 1" test "$(json "d['benchmark']['ratio'] < 1 and d['benchmark']['ratio_interval'][1] < 1")" = True
check "bench: 15 runs each" test "$(json "len(d['benchmark']['baseline']['values'])")" = 15
check "bench: the test is named" test "$(json "'Mann-Whitney' in d['benchmark']['test']")" = True
# An edit that changes nothing: a comment.
printf -- '--- a/trx.c\n+++ b/trx.c\n@@ -1,2 +1,3 @@\n /* trx_start_low as in MariaDB 10.2 before MDEV-12345: clock() per transaction, twice. */\n+/* (a comment: no change in the code) */\n #include <sys/time.h>\n' >"$work/null.diff"
"$HOTSCAN" validate --patch "$work/null.diff" "${bench[@]}" >"$work/out" 2>"$work/err"
check "bench: a null edit exits 0" test $? -eq 0
check "bench: a null edit is no significant change" out_has "verdict: no significant change"
check "bench leaves the tree alone" test "$(cd "$work/minidb" && find . -type f | sort | xargs md5sum)" = "$tree_before"

# A build that fails in one variant says which, with its log tail.
printf -- '--- a/trx.c\n+++ b/trx.c\n@@ -1,2 +1,3 @@\n /* trx_start_low as in MariaDB 10.2 before MDEV-12345: clock() per transaction, twice. */\n+#error broken by the fix\n #include <sys/time.h>\n' >"$work/broken.diff"
"$HOTSCAN" validate --patch "$work/broken.diff" "${bench[@]}" >"$work/out" 2>"$work/err"
check "a failed build exits 2" test $? -eq 2
check "a failed build names the variant" err_has "build failed on the patched variant"
check "a failed build shows its log" err_has "broken by the fix"
# A benchmark that hangs is stopped at its timeout.
"$HOTSCAN" validate --patch "$work/null.diff" --build true --bench 'sleep 30' --runs 3 --bench-timeout 0.5 >"$work/out" 2>"$work/err"
check "a hung benchmark exits 2" test $? -eq 2
check "a hung benchmark says it timed out" err_has "failed on the baseline variant (warm-up run 1, status .*timed out"
# --metric reads the number the benchmark prints.
"$HOTSCAN" validate --patch "$work/null.diff" --build true --bench 'echo "rate: 100 qps"' --runs 3 --warmup 0 --metric 'rate: ([0-9.]+)' --format json -o "$work/out" 2>"$work/err"
check "--metric reads the number" test "$(json "d['benchmark']['baseline']['median']")" = 100.0
check "--metric is higher-is-better" test "$(json "d['benchmark']['higher_is_better']")" = True

# The build and benchmark commands know which variant they run for (HOTSCAN_VARIANT).
"$HOTSCAN" validate --patch "$work/null.diff" --build 'test -n "$HOTSCAN_VARIANT"' --bench 'case $HOTSCAN_VARIANT in baseline) echo "rate: 100";; patched) echo "rate: 300";; esac' --runs 3 --warmup 0 --metric 'rate: ([0-9.]+)' --format json -o "$work/out" 2>"$work/err"
check "HOTSCAN_VARIANT names the variant" test "$(json "(d['benchmark']['baseline']['median'], d['benchmark']['patched']['median'])")" = "(100.0, 300.0)"

# --- in a git repository: worktrees, the user's working tree and worktree list untouched ---
cp -r "$SRC/corpus/examples/minidb" "$work/repo"
rm -f "$work/repo/bench/validate_driver"
cd "$work/repo"
git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm base
echo "/* uncommitted */" >>server.c
echo notes >notes.txt
# The user's own stale worktree entry (its folder deleted): validate must not prune it.
git worktree add -q --detach "$work/users-stale" HEAD && rm -rf "$work/users-stale"
"$HOTSCAN" validate --patch "$work/null.diff" --build 'sh bench/build.sh && grep -q uncommitted server.c' --bench 'bench/validate_driver 1000' --runs 3 --warmup 0 >"$work/out" 2>"$work/err"
check "git: exits 0" test $? -eq 0
check "git: worktrees are used" err_has "git worktree"
check "git: uncommitted changes are in the copies" out_has "uncommitted changes"
check "git: an untracked file is counted" out_has "note: 1 untracked file of the tree is not in the copies"
check "git: the worktrees are gone" test "$(git worktree list | grep -vc users-stale)" -eq 1
check "git: the user's stale worktree entry is kept" test "$(git worktree list | grep -c users-stale)" -eq 1
check "git: the working tree keeps its change" test "$(git status --porcelain | tr '\n' ' ')" = " M server.c ?? notes.txt "

# --- calibrate: its output is rule data that scan reads back and quotes ---
"$HOTSCAN" calibrate --repeat 1 -o "$work/calibration.json" 2>"$work/err"
check "calibrate exits 0" test $? -eq 0
check "calibrate measured clock()" test "$(python3 -c "import json; d=json.load(open('$work/calibration.json')); print(d['calibration']['ns_per_call']['clock()'] > 0)")" = True
check "calibrate measured the atomics" test "$(python3 -c "import json; d=json.load(open('$work/calibration.json')); n=d['calibration']['ns_per_call']; print(all(k in n for k in ('atomic increment (relaxed)', 'atomic increment (seq_cst)', 'atomic store (relaxed)', 'atomic store (seq_cst)')))")" = True
check "calibrate measured clock ids" test "$(python3 -c "import json; d=json.load(open('$work/calibration.json')); print('clock_gettime(CLOCK_MONOTONIC)' in d['calibration']['ns_per_call'])")" = True
cd "$work/minidb"
"$HOTSCAN" scan --hot dispatch_command --calibration "$work/calibration.json" trx.c server.c >"$work/out" 2>"$work/err"
check "scan reads the calibration back" test $? -eq 1
check "scan quotes the measured cost" out_has "clock() on a hot path costs [0-9.]* [nµ]s here (a system call)"
"$HOTSCAN" scan --hot dispatch_command trx.c server.c >"$work/out" 2>"$work/err"
check "without it, the cost class" out_has "clock() on a hot path costs a system call on every read"
python3 -c "import json; d=json.load(open('$work/calibration.json')); d['calibration']['ns_per_call']['clock()'] = 'slow'; json.dump(d, open('$work/bad_calibration.json', 'w'))"
"$HOTSCAN" scan --hot dispatch_command --calibration "$work/bad_calibration.json" trx.c >"$work/out" 2>"$work/err"
check "a bad calibration exits 2" test $? -eq 2
check "a bad calibration is named" err_has "bad_calibration.json.*calibration.ns_per_call.clock()"

# --- usage errors ---
"$HOTSCAN" validate --codegen >"$work/out" 2>"$work/err"
check "no fix exits 2" test $? -eq 2
"$HOTSCAN" validate --patch "$work/null.diff" >"$work/out" 2>"$work/err"
check "nothing to do exits 2" test $? -eq 2
check "nothing to do says so" err_has "nothing to validate"
"$HOTSCAN" validate --patch "$work/null.diff" --build true >"$work/out" 2>"$work/err"
check "--build without --bench exits 2" test $? -eq 2

echo "validate: $passed passed, $failed failed"
test $failed -eq 0
