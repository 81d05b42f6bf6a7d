#!/usr/bin/env bash
# run.sh - end-to-end tests of fix application: the real `hotscan apply` on temporary trees
# (the safety rules), and the patch and export-fixes writers checked by the tools that
# consume them (git apply, patch -p1, clang-apply-replacements).
#
# usage: run.sh HOTSCAN EMIT_DRIVER [RANDOM_TREES]
# Fixture reports are written by hand here, with byte offsets taken from the fixture sources
# by `grep -bo`, so they hold real offsets; "files" hashes come from `emit_driver hash`.
set -uo pipefail

hotscan=$1
driver=$2
random_trees=${3:-120}

work=$(mktemp -d /tmp/hotscan-apply-test.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
# git apply must not mistake an enclosing repository for the tree it patches.
export GIT_CEILING_DIRECTORIES=$work
git_apply() { git -c apply.whitespace=nowarn apply "$@"; }

car=
for c in clang-apply-replacements-19 /usr/lib/llvm-19/bin/clang-apply-replacements; do
  if command -v "$c" >/dev/null 2>&1; then car=$(command -v "$c"); break; fi
done

failures=0
pass() { printf 'ok   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; failures=$((failures + 1)); }
check() { # check NAME COMMAND...: passes when the command succeeds
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
mode_of() { stat -c %a "$1"; }

# JSON string literal of $1.
json_str() {
  local s=$1
  s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\n'/\\n}; s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}
# Byte offset of the Nth (default 1st) occurrence of a fixed string in a file.
offset_of() { grep -boF -- "$2" "$1" | sed -n "${3:-1}p" | cut -d: -f1; }
# edit FILE OFFSET LENGTH REPLACEMENT -> one edit object
edit() { printf '{"file": %s, "offset": %s, "length": %s, "replacement": %s}' \
           "$(json_str "$1")" "$2" "$3" "$(json_str "$4")"; }
# finding FINGERPRINT FILE EDIT... -> one finding with one verified fix
finding() {
  local fp=$1 file=$2; shift 2
  local edits; edits=$(IFS=,; echo "$*")
  printf '{"rule": "atomic-seqcst-counter", "severity": "warning", "confidence": "high",
    "file": %s, "line": 1, "column": 1, "function": "f", "message": "seq_cst counter: use relaxed",
    "fixes": [{"description": "relaxed order", "verified": true, "edits": [%s]}],
    "fingerprint": "%s"}' "$(json_str "$file")" "$edits" "$fp"
}
# report ROOT "FILE..." FINDING... -> a schema v1 report; FILE... get "files" entries now
report() {
  local root=$1 files=$2; shift 2
  local map="" f sep=""
  for f in $files; do
    map+="$sep$(json_str "$f"): {\"hash\": \"$("$driver" hash "$root/$f")\", \"size\": $(stat -c %s "$root/$f")}"
    sep=", "
  done
  local findings; findings=$(IFS=,; echo "$*")
  printf '{"schema_version": 1, "tool": {"name": "hotscan", "version": "test"}, "root": %s,
  "summary": {"translation_units": 2, "findings": %d, "errors": 0, "seconds": 0.0},
  "findings": [%s], "errors": [], "files": {%s}}\n' "$(json_str "$root")" $# "$findings" "$map"
}

# ---- the fixture tree: a header counted from two TUs, and a duplicate clock read ----
make_tree() { # make_tree DIR
  mkdir -p "$1/include" "$1/src"
  cat >"$1/include/counter.h" <<'EOF'
#ifndef COUNTER_H
#define COUNTER_H
static unsigned long hits;
static inline void count_hit(void)
{
    __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST);
}
#endif
EOF
  printf '#include "counter.h"\nvoid a(void) { count_hit(); }\n' >"$1/src/a.c"
  printf '#include "counter.h"\nvoid b(void) { count_hit(); }\n' >"$1/src/b.c"
  # No newline at the end, on purpose.
  printf '#include <time.h>\nstruct t { clock_t a, b; };\nvoid f(struct t *t)\n{\n    t->a = clock();\n    t->b = clock();\n}' >"$1/src/timer.c"
}
expect_tree() { # the fixture as `apply` must leave it
  make_tree "$1"
  sed -i 's/__ATOMIC_SEQ_CST/__ATOMIC_RELAXED/' "$1/include/counter.h"
  printf '#include <time.h>\nstruct t { clock_t a, b; };\nvoid f(struct t *t)\n{\n    t->a = clock();\n    t->b = t->a;\n}' >"$1/src/timer.c"
}
# The report a scan of DIR would give: the header edit reached through both TUs.
fixture_report() { # fixture_report DIR
  local d=$1 h=include/counter.h t=src/timer.c
  local ho; ho=$(offset_of "$d/$h" __ATOMIC_SEQ_CST)
  local to; to=$(offset_of "$d/$t" clock\(\) 2)
  report "$d" "$h $t" \
    "$(finding 1111111111111111 "$h" "$(edit "$h" "$ho" 16 __ATOMIC_RELAXED)")" \
    "$(finding 2222222222222222 "$h" "$(edit "$h" "$ho" 16 __ATOMIC_RELAXED)")" \
    "$(finding 3333333333333333 "$t" "$(edit "$t" "$to" 7 't->a')")"
}

mkdir -p "$work/expected"
expect_tree "$work/expected"

# Sanity of the fixture offsets themselves.
check "fixture offsets point at the code" \
  test "$(make_tree "$work/probe"; off=$(offset_of "$work/probe/include/counter.h" __ATOMIC_SEQ_CST);
          tail -c +$((off + 1)) "$work/probe/include/counter.h" | head -c 16)" = __ATOMIC_SEQ_CST

# ---- 1. apply: header from two TUs applied once, the mode kept, no temporary files left ----
d=$work/t1; make_tree "$d"; chmod 0750 "$d/src/timer.c"
fixture_report "$d" >"$work/t1.json"
(cd "$d" && "$hotscan" apply "$work/t1.json") >"$work/t1.out" 2>"$work/t1.err"; rc=$?
check "apply: exit 0 when every edit applies" test $rc -eq 0
check "apply: summary line" contains "$work/t1.err" "applied 2 edits to 2 files; 0 refused"
check "apply: header edited from two TUs is changed once" cmp -s "$d/include/counter.h" "$work/expected/include/counter.h"
check "apply: duplicate clock read fixed (file without final newline)" cmp -s "$d/src/timer.c" "$work/expected/src/timer.c"
check "apply: file mode 0750 kept" test "$(mode_of "$d/src/timer.c")" = 750
check "apply: no temporary files left" test -z "$(find "$d" -name '.*hotscan-*')"
check "apply: nothing on stdout" test ! -s "$work/t1.out"
# Applying the same report again: the files changed since the scan, so nothing is written.
(cd "$d" && "$hotscan" apply "$work/t1.json") 2>"$work/t1b.err"; rc=$?
check "apply twice: exit 1, refused as changed" test $rc -eq 1
check "apply twice: says changed since the scan" contains "$work/t1b.err" "changed since the scan"
check "apply twice: content stays fixed once" cmp -s "$d/include/counter.h" "$work/expected/include/counter.h"

# ---- 2. --dry-run: prints a diff that git apply and patch accept, writes nothing ----
d=$work/t2; make_tree "$d"; make_tree "$work/t2-orig"
fixture_report "$d" >"$work/t2.json"
(cd "$d" && "$hotscan" apply --dry-run "$work/t2.json") >"$work/t2.diff" 2>"$work/t2.err"; rc=$?
check "dry-run: exit 0" test $rc -eq 0
check "dry-run: writes nothing" diff -r "$d" "$work/t2-orig"
check "dry-run: summary says would apply" contains "$work/t2.err" "would apply 2 edits to 2 files; 0 refused"
check "dry-run: diff names both files" \
  bash -c "grep -qxF -- '--- a/include/counter.h' '$work/t2.diff' && grep -qxF -- '+++ b/src/timer.c' '$work/t2.diff'"
check "dry-run: diff marks the missing final newline" contains "$work/t2.diff" '\ No newline at end of file'
check "dry-run: git apply --check accepts the diff" bash -c "cd '$d' && git -c apply.whitespace=nowarn apply --check '$work/t2.diff'"
check "dry-run: patch -p1 --dry-run accepts the diff" bash -c "cd '$d' && patch -p1 -f --dry-run -s <'$work/t2.diff' >/dev/null"
(cd "$d" && patch -p1 -f -s <"$work/t2.diff" >/dev/null)
check "dry-run: the diff applied gives what apply writes" diff -r "$d" "$work/expected"

# ---- 3. a read-only file is skipped and left untouched ----
d=$work/t3; make_tree "$d"; make_tree "$work/t3-orig"
fixture_report "$d" >"$work/t3.json"
chmod 0444 "$d/include/counter.h"
(cd "$d" && "$hotscan" apply "$work/t3.json") 2>"$work/t3.err"; rc=$?
check "read-only: exit 1" test $rc -eq 1
check "read-only: says so" contains "$work/t3.err" "include/counter.h: not writable"
check "read-only: file untouched" cmp -s "$d/include/counter.h" "$work/t3-orig/include/counter.h"
check "read-only: mode untouched" test "$(mode_of "$d/include/counter.h")" = 444
check "read-only: the other file is applied" cmp -s "$d/src/timer.c" "$work/expected/src/timer.c"
check "read-only: summary counts the refused edit" contains "$work/t3.err" "applied 1 edit to 1 file; 1 refused"

# ---- 4. a file changed since the scan is skipped ----
d=$work/t4; make_tree "$d"
fixture_report "$d" >"$work/t4.json"
printf '\n/* edited after the scan */\n' >>"$d/src/timer.c"; cp "$d/src/timer.c" "$work/t4-timer.c"
(cd "$d" && "$hotscan" apply "$work/t4.json") 2>"$work/t4.err"; rc=$?
check "changed: exit 1" test $rc -eq 1
check "changed: says so, naming the file" contains "$work/t4.err" "src/timer.c: changed since the scan"
check "changed: file untouched" cmp -s "$d/src/timer.c" "$work/t4-timer.c"
check "changed: the unchanged file is applied" cmp -s "$d/include/counter.h" "$work/expected/include/counter.h"

# ---- 5. overlapping different edits are both refused and reported ----
d=$work/t5; make_tree "$d"; make_tree "$work/t5-orig"
to=$(offset_of "$d/src/timer.c" clock\(\) 2)
report "$d" "src/timer.c" \
  "$(finding aaaaaaaaaaaaaaaa src/timer.c "$(edit src/timer.c "$to" 7 't->a')")" \
  "$(finding bbbbbbbbbbbbbbbb src/timer.c "$(edit src/timer.c $((to + 5)) 2 '(void)')")" >"$work/t5.json"
(cd "$d" && "$hotscan" apply "$work/t5.json") 2>"$work/t5.err"; rc=$?
check "overlap: exit 1" test $rc -eq 1
check "overlap: reported with both findings" \
  bash -c "grep 'overlap' '$work/t5.err' | grep -q aaaaaaaaaaaaaaaa && grep 'overlap' '$work/t5.err' | grep -q bbbbbbbbbbbbbbbb"
check "overlap: file untouched" diff -r "$d" "$work/t5-orig"
check "overlap: summary" contains "$work/t5.err" "applied 0 edits to 0 files; 2 refused"

# ---- 6. symlinks: the same header through a link counts once; nothing outside the root ----
d=$work/t6; make_tree "$d"; ln -s counter.h "$d/include/counter_link.h"
mkdir -p "$work/outside"; printf 'int outside = 1;\n' >"$work/outside/victim.c"
cp "$work/outside/victim.c" "$work/victim.orig"
ln -s ../../outside/victim.c "$d/src/victim_link.c"
ho=$(offset_of "$d/include/counter.h" __ATOMIC_SEQ_CST)
report "$d" "include/counter.h" \
  "$(finding 1111111111111111 include/counter.h "$(edit include/counter.h "$ho" 16 __ATOMIC_RELAXED)")" \
  "$(finding 2222222222222222 include/counter_link.h "$(edit include/counter_link.h "$ho" 16 __ATOMIC_RELAXED)")" \
  "$(finding 4444444444444444 src/victim_link.c "$(edit src/victim_link.c 14 1 2)")" \
  "$(finding 5555555555555555 ../outside/victim.c "$(edit ../outside/victim.c 14 1 3)")" \
  "$(finding 6666666666666666 "$work/outside/victim.c" "$(edit "$work/outside/victim.c" 14 1 4)")" >"$work/t6.json"
(cd "$d" && "$hotscan" apply "$work/t6.json") 2>"$work/t6.err"; rc=$?
check "symlink: exit 1 (outside edits refused)" test $rc -eq 1
check "symlink: header through a link applied once" cmp -s "$d/include/counter.h" "$work/expected/include/counter.h"
check "symlink: the link is still a link" test -L "$d/include/counter_link.h"
check "outside: link out of the root refused" contains "$work/t6.err" "src/victim_link.c: outside the root"
check "outside: ../ refused" contains "$work/t6.err" "../outside/victim.c: outside the root"
check "outside: absolute path refused" contains "$work/t6.err" "$work/outside/victim.c: outside the root"
check "outside: file outside untouched" cmp -s "$work/outside/victim.c" "$work/victim.orig"
check "outside: summary" contains "$work/t6.err" "applied 1 edit to 1 file; 3 refused"

# ---- 7. input errors exit 2 and name the file ----
"$hotscan" apply 2>"$work/t7a.err"; rc=$?
check "usage: no report is exit 2" test $rc -eq 2
"$hotscan" apply "$work/missing.json" 2>"$work/t7b.err"; rc=$?
check "input: unreadable report is exit 2, named" bash -c "test $rc -eq 2 && grep -qF '$work/missing.json' '$work/t7b.err'"
printf '{"root": ' >"$work/bad.json"
"$hotscan" apply "$work/bad.json" 2>"$work/t7c.err"; rc=$?
check "input: invalid JSON is exit 2, named" bash -c "test $rc -eq 2 && grep -qF '$work/bad.json' '$work/t7c.err'"
printf '{"findings": []}\n' >"$work/noroot.json"
"$hotscan" apply "$work/noroot.json" 2>"$work/t7d.err"; rc=$?
check "input: no root is exit 2" bash -c "test $rc -eq 2 && grep -q 'no \"root\"' '$work/t7d.err'"
"$hotscan" apply --bogus "$work/t1.json" 2>/dev/null; rc=$?
check "usage: unknown option is exit 2" test $rc -eq 2
# --root: the same report applied to a copy of the tree elsewhere.
d=$work/t7moved; make_tree "$d"; fixture_report "$work/t2-orig" >"$work/t7.json"
"$hotscan" apply --root "$d" "$work/t7.json" 2>/dev/null; rc=$?
check "--root: applies under the given root" bash -c "test $rc -eq 0 && diff -r '$d' '$work/expected' >/dev/null"

# ---- 8. the writers: patch for git apply and patch -p1, YAML for clang-apply-replacements ----
d=$work/t8; make_tree "$d"
fixture_report "$d" >"$work/t8.json"
"$driver" patch "$work/t8.json" >"$work/t8.diff"
check "patch: same diff as apply --dry-run" cmp -s "$work/t8.diff" "$work/t2.diff"
check "patch: git apply --check" bash -c "cd '$d' && git -c apply.whitespace=nowarn apply --check '$work/t8.diff'"
check "patch: patch -p1 --dry-run" bash -c "cd '$d' && patch -p1 -f --dry-run -s <'$work/t8.diff' >/dev/null"
"$driver" yaml "$work/t8.json" >"$work/t8.yaml"
check "yaml: names the diagnostic after the rule" contains "$work/t8.yaml" "DiagnosticName: \"hotscan-atomic-seqcst-counter\""
check "yaml: the shared header edit is listed once" test "$(grep -c 'ReplacementText: "__ATOMIC_RELAXED"' "$work/t8.yaml")" = 1
if [ -n "$car" ]; then
  mkdir -p "$work/t8-fixes"; cp "$work/t8.yaml" "$work/t8-fixes/fixes.yaml"
  check "yaml: clang-apply-replacements runs" "$car" "$work/t8-fixes"
  check "yaml: clang-apply-replacements gives what apply writes" diff -r "$d" "$work/expected"
else
  fail "clang-apply-replacements-19 not found (Debian package clang-tools-19)"
fi
# A report whose file changed since the scan: the writers refuse rather than emit bad offsets.
printf '/* later */\n' >>"$d/src/a.c"
cp "$d/include/counter.h" "$work/t8-h"; printf '\n' >>"$d/include/counter.h"
check "patch: refuses a changed file" bash -c "! '$driver' patch '$work/t8.json' >/dev/null 2>&1"
check "yaml: refuses a changed file" bash -c "! '$driver' yaml '$work/t8.json' >/dev/null 2>&1"

# ---- 9. random trees: every writer and apply agree with the expected result ----
random_fail=0
for seed in $(seq 1 "$random_trees"); do
  r=$work/r$seed; mkdir -p "$r"
  "$driver" random "$seed" "$r" || { fail "random $seed: driver"; random_fail=1; continue; }
  cp -r "$r/root" "$r/git"; cp -r "$r/root" "$r/patch"; cp -r "$r/root" "$r/yaml"
  "$driver" patch "$r/report.json" >"$r/diff" || { fail "random $seed: patch writer"; random_fail=1; continue; }
  if [ -s "$r/diff" ]; then
    if ! (cd "$r/git" && git_apply "$r/diff" 2>"$r/git.err") || ! diff -r "$r/git" "$r/expected" >/dev/null; then
      fail "random $seed: git apply (see $r)"; random_fail=1; continue
    fi
    if ! (cd "$r/patch" && patch -p1 -f -s <"$r/diff" >"$r/patch.out" 2>&1) || ! diff -r "$r/patch" "$r/expected" >/dev/null; then
      fail "random $seed: patch -p1 (see $r)"; random_fail=1; continue
    fi
  elif ! diff -r "$r/root" "$r/expected" >/dev/null; then
    fail "random $seed: empty patch for a tree that changes (see $r)"; random_fail=1; continue
  fi
  if [ -n "$car" ]; then
    # The same report rooted at the copy, so the YAML's absolute paths point there.
    sed "s#\"root\": \"$r/root\"#\"root\": \"$r/yaml\"#" "$r/report.json" >"$r/report-yaml.json"
    mkdir -p "$r/fixes"; "$driver" yaml "$r/report-yaml.json" >"$r/fixes/fixes.yaml"
    if ! "$car" "$r/fixes" >"$r/car.out" 2>&1 || ! diff -r "$r/yaml" "$r/expected" >/dev/null; then
      fail "random $seed: clang-apply-replacements (see $r)"; random_fail=1; continue
    fi
  fi
  if ! (cd "$r/root" && "$hotscan" apply "$r/report.json") 2>"$r/apply.err" || ! diff -r "$r/root" "$r/expected" >/dev/null; then
    fail "random $seed: hotscan apply (see $r)"; random_fail=1; continue
  fi
  [ "$random_fail" = 0 ] && rm -rf "$r"
done
[ "$random_fail" = 0 ] && pass "random trees: git apply, patch -p1, clang-apply-replacements and apply agree ($random_trees trees)"

# ---- 10. concurrent applies of different edits to one file never lose one (issue 12, 1) ----
# Both reports were made from the same content; the folder lock makes check and rename one
# step, so one run applies and the other finds the file changed. 20 bounded rounds.
d=$work/t10; mkdir -p "$d/src"
race_src() { printf 'int a = 1;\nint b = 2;\n' >"$d/src/race.c"; }
race_src
oa=$(offset_of "$d/src/race.c" "1;"); ob=$(offset_of "$d/src/race.c" "2;")
report "$d" "src/race.c" "$(finding aaaaaaaaaaaaaaa1 src/race.c "$(edit src/race.c "$oa" 1 10)")" >"$work/t10a.json"
report "$d" "src/race.c" "$(finding bbbbbbbbbbbbbbb2 src/race.c "$(edit src/race.c "$ob" 1 20)")" >"$work/t10b.json"
want_a=$(printf 'int a = 10;\nint b = 2;'); want_b=$(printf 'int a = 1;\nint b = 20;')
lost=0
for round in $(seq 1 20); do
  race_src
  (cd "$d" && exec "$hotscan" apply "$work/t10a.json" 2>/dev/null) & pa=$!
  (cd "$d" && exec "$hotscan" apply "$work/t10b.json" 2>/dev/null) & pb=$!
  wait "$pa"; ra=$?; wait "$pb"; rb=$?
  got=$(cat "$d/src/race.c")
  case "$ra$rb" in
    01) [ "$got" = "$want_a" ] || lost=$((lost + 1)) ;;
    10) [ "$got" = "$want_b" ] || lost=$((lost + 1)) ;;
    *) lost=$((lost + 1)) ;;   # both "applied": one edit was lost
  esac
done
check "concurrent applies: one applies, the other is refused, no edit lost (20 rounds)" test "$lost" -eq 0
check "concurrent applies: no temporary files left" test -z "$(find "$d" -name '.*hotscan-*')"

# The same for two `scan --fix` runs fixing different findings of one file (10 rounds): a run
# whose fix went in exits 1 (findings), one whose fix was refused exits 2; none loses the other's.
d=$work/t10fix; mkdir -p "$d"
fix_src() { printf '#include <time.h>\nstatic unsigned long hits;\nstruct t { clock_t a, b; };\nvoid f(struct t *t)\n{\n    __atomic_fetch_add(&hits, 1, __ATOMIC_SEQ_CST);\n    t->a = clock();\n    t->b = clock();\n}\n' >"$d/x.c"; }
lost=0
for round in $(seq 1 10); do
  fix_src
  (cd "$d" && exec "$hotscan" scan -q --fix --enable timer-duplicate x.c >/dev/null 2>&1) & pa=$!
  (cd "$d" && exec "$hotscan" scan -q --fix --enable atomic-seqcst-counter x.c >/dev/null 2>&1) & pb=$!
  wait "$pa"; ra=$?; wait "$pb"; rb=$?
  { [ $ra -eq 1 ] && ! grep -qF 't->b = t->a;' "$d/x.c"; } && lost=$((lost + 1))
  { [ $rb -eq 1 ] && ! grep -qF '__ATOMIC_RELAXED' "$d/x.c"; } && lost=$((lost + 1))
  { [ $ra -ne 1 ] && [ $ra -ne 2 ]; } && lost=$((lost + 1))
  { [ $rb -ne 1 ] && [ $rb -ne 2 ]; } && lost=$((lost + 1))
done
check "concurrent scan --fix: no fix reported applied is lost (10 rounds)" test "$lost" -eq 0

# ---- 11. a fix over two files applies whole or not at all (issue 12, 2) ----
d=$work/t11; mkdir -p "$d/src"
printf 'int a = 1;\n' >"$d/src/a.c"; printf 'int b = 2;\n' >"$d/src/b.c"; chmod 0444 "$d/src/b.c"
cp "$d/src/a.c" "$work/t11-a.c"
report "$d" "src/a.c src/b.c" \
  "$(finding cccccccccccccccc src/a.c "$(edit src/a.c 8 1 10)" "$(edit src/b.c 8 1 20)")" >"$work/t11.json"
(cd "$d" && "$hotscan" apply "$work/t11.json") 2>"$work/t11.err"; rc=$?
check "two-file fix, one read-only: exit 1" test $rc -eq 1
check "two-file fix, one read-only: the writable file is untouched too" cmp -s "$d/src/a.c" "$work/t11-a.c"
check "two-file fix, one read-only: says why" contains "$work/t11.err" "its fix also edits src/b.c, which was not written"
check "two-file fix, one read-only: summary" contains "$work/t11.err" "applied 0 edits to 0 files; 2 refused"
chmod 0644 "$d/src/b.c"
(cd "$d" && "$hotscan" apply "$work/t11.json") 2>/dev/null; rc=$?
check "two-file fix, both writable: both applied" \
  bash -c "test $rc -eq 0 && grep -q 'a = 10' '$d/src/a.c' && grep -q 'b = 20' '$d/src/b.c'"

# ---- 12. set-user-ID and set-group-ID bits and the owner survive (issue 12, 9; as root) ----
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  d=$work/t12; mkdir -p "$d"; printf 'int s = 1;\n' >"$d/suid.c"
  chown nobody:"$(id -gn nobody)" "$d/suid.c"; chmod 6755 "$d/suid.c"
  report "$d" "suid.c" "$(finding dddddddddddddddd suid.c "$(edit suid.c 8 1 7)")" >"$work/t12.json"
  (cd "$d" && "$hotscan" apply "$work/t12.json") 2>"$work/t12.err"; rc=$?
  check "setuid: applied" bash -c "test $rc -eq 0 && grep -q 's = 7' '$d/suid.c'"
  check "setuid: mode 6755 kept" test "$(mode_of "$d/suid.c")" = 6755
  check "setuid: owner kept" test "$(stat -c %U "$d/suid.c")" = nobody
else
  echo "skip setuid: needs root and a user nobody"
fi

# ---- 13. the report's own root is not trusted (issue 12, 15) ----
d=$work/t13; mkdir -p "$d"; printf 'int victim = 1;\n' >"$work/t13-victim.c"; cp "$work/t13-victim.c" "$work/t13-victim.orig"
rel=${work#/}/t13-victim.c
report / "" "$(finding eeeeeeeeeeeeeeee "$rel" "$(edit "$rel" 13 1 9)")" >"$work/t13.json"
(cd "$d" && "$hotscan" apply "$work/t13.json") 2>"$work/t13.err"; rc=$?
check "crafted root /: exit 1" test $rc -eq 1
check "crafted root /: the file outside the current directory is untouched" cmp -s "$work/t13-victim.c" "$work/t13-victim.orig"
check "crafted root /: refused as outside the root" contains "$work/t13.err" "outside the root $d"
(cd "$work/expected" && "$hotscan" apply "$work/t1.json") 2>"$work/t13b.err"; rc=$?
check "a report for another tree: exit 2, says to run it there or pass --root" \
  bash -c "test $rc -eq 2 && grep -q -- '--root' '$work/t13b.err'"

# ---- 14. odd inputs say what they are (issue 12, 13 and 14) ----
"$hotscan" apply /dev/zero 2>"$work/t14a.err"; rc=$?
check "apply /dev/zero: exit 2, too large" bash -c "test $rc -eq 2 && grep -q 'larger than 256 MiB' '$work/t14a.err'"
"$hotscan" apply "$work" 2>"$work/t14b.err"; rc=$?
check "apply DIR: exit 2, is a directory" bash -c "test $rc -eq 2 && grep -q 'is a directory' '$work/t14b.err'"
printf '{"schema_version": "1", "root": "/"}\n' >"$work/t14c.json"
"$hotscan" apply "$work/t14c.json" 2>"$work/t14c.err"; rc=$?
check "schema_version \"1\": exit 2, shows the string" bash -c "test $rc -eq 2 && grep -qF '\"schema_version\" is \"1\"' '$work/t14c.err'"
"$hotscan" apply --dry-run --root "$work/t2-orig" "$work/t2.json" >/dev/full 2>"$work/t14d.err"; rc=$?
check "apply --dry-run to /dev/full: exit 2 with an error" \
  bash -c "test $rc -eq 2 && grep -q 'No space left on device' '$work/t14d.err'"

# ---- 15. temporary files: stale ones removed, none left after a signal (issue 12, 6) ----
d=$work/t15; make_tree "$d"; fixture_report "$d" >"$work/t15.json"
printf 'half\n' >"$d/src/.timer.c.hotscan-Ab12Cd"
(cd "$d" && "$hotscan" apply "$work/t15.json") 2>"$work/t15.err"; rc=$?
check "stale temporary file of a killed run removed" bash -c "test $rc -eq 0 && test ! -e '$d/src/.timer.c.hotscan-Ab12Cd'"
check "stale temporary file: a note says so" contains "$work/t15.err" "left"
# 400 files, a signal at once: each file is whole (old or new), no temporary file remains.
d=$work/t15b; mkdir -p "$d/src"; findings=(); files=""
for k in $(seq 1 400); do printf 'int v%d = 1;\n' "$k" >"$d/src/f$k.c"; files+="src/f$k.c "; done
for k in $(seq 1 400); do
  o=$(offset_of "$d/src/f$k.c" "1;")
  findings+=("$(finding "$(printf '%016d' "$k")" "src/f$k.c" "$(edit "src/f$k.c" "$o" 1 2)")")
done
report "$d" "$files" "${findings[@]}" >"$work/t15b.json"
leftover=0; torn=0
for sig in INT TERM HUP INT TERM HUP INT TERM; do
  for k in $(seq 1 400); do printf 'int v%d = 1;\n' "$k" >"$d/src/f$k.c"; done
  cd "$d"; "$hotscan" apply "$work/t15b.json" 2>/dev/null & p=$!; cd - >/dev/null
  # Signal it once it writes: its first temporary file is there (a bounded spin, no sleep;
  # if it finished first, the round still checks that nothing is left).
  for spin in $(seq 1 20000); do
    compgen -G "$d/src/.f*.c.hotscan-*" >/dev/null && break
    kill -0 "$p" 2>/dev/null || break
  done
  kill -s "$sig" "$p" 2>/dev/null; wait "$p" 2>/dev/null
  [ -z "$(find "$d" -name '.*hotscan-*')" ] || leftover=$((leftover + 1))
  whole=$(cat "$d"/src/f*.c | grep -cxE 'int v[0-9]+ = [12];')
  [ "$whole" -eq 400 ] || torn=$((torn + 1))
done
check "signal during apply (8 rounds): no temporary file left" test "$leftover" -eq 0
check "signal during apply (8 rounds): every file whole" test "$torn" -eq 0

# ---- 16. odd file names in --patch headers are quoted as git quotes them (issue 12, 14) ----
d=$work/t16; mkdir -p "$d"
odd=("sp ace.c" $'new\nline.c' 'quo"te.c' 'back\slash.c')
fs=()
for f in "${odd[@]}"; do printf 'int q = 1;\n' >"$d/$f"; fs+=("$(finding "$(printf '%016x' ${#fs[@]})" "$f" "$(edit "$f" 8 1 5)")"); done
report "$d" "" "${fs[@]}" >"$work/t16.json"
cp -r "$d" "$work/t16-git"; cp -r "$d" "$work/t16-expected"
for f in "${odd[@]}"; do printf 'int q = 5;\n' >"$work/t16-expected/$f"; done
"$driver" patch "$work/t16.json" >"$work/t16.diff"
check "odd names: a name with a newline is C-quoted" contains "$work/t16.diff" '--- "a/new\nline.c"'
check "odd names: a name with a space ends with a tab" grep -qP '^\+\+\+ b/sp ace\.c\t$' "$work/t16.diff"
check "odd names: git apply takes the patch" bash -c "cd '$work/t16-git' && git -c apply.whitespace=nowarn apply '$work/t16.diff' && diff -r '$work/t16-git' '$work/t16-expected' >/dev/null"

# ---- 17. a report without digests: refused, unless --trust-offsets (then still race-safe) ----
# Without a "files" hash, apply cannot tell whether a file still holds what the offsets were
# computed on: exit 2, nothing written. --trust-offsets applies it to files last modified
# before the report file; so a file another run rewrote meanwhile is refused, not corrupted.
d=$work/t17; mkdir -p "$d/src"
race_src() { printf 'int a = 1;\nint b = 2;\n' >"$d/src/race.c"; }
race_src
oa=$(offset_of "$d/src/race.c" "1;"); ob=$(offset_of "$d/src/race.c" "2;")
no_files() { sed 's/, "files": {}}$/}/'; }
report "$d" "" "$(finding aaaaaaaaaaaaaaa1 src/race.c "$(edit src/race.c "$oa" 1 10)")" | no_files >"$work/t17a.json"
report "$d" "" "$(finding bbbbbbbbbbbbbbb2 src/race.c "$(edit src/race.c "$ob" 1 20)")" | no_files >"$work/t17b.json"
report "$d" "" "$(finding aaaaaaaaaaaaaaa1 src/race.c "$(edit src/race.c "$oa" 1 10)")" >"$work/t17-empty.json"
check "no digests: the fixture report has no \"files\" map" lacks "$work/t17a.json" '"files"'
want_a=$(printf 'int a = 10;\nint b = 2;'); want_b=$(printf 'int a = 1;\nint b = 20;'); orig=$(printf 'int a = 1;\nint b = 2;')
(cd "$d" && "$hotscan" apply "$work/t17a.json") >/dev/null 2>"$work/t17.err"; st=$?
check "no digests: refused with exit 2" test "$st" -eq 2
check "... saying which file and why" contains "$work/t17.err" "no digest of src/race.c in the report (it has no \"files\" map"
check "... and how to go on" contains "$work/t17.err" "Regenerate the report (hotscan scan --format json -o $work/t17a.json), or pass --trust-offsets"
check "... the file is untouched" test "$(cat "$d/src/race.c")" = "$orig"
(cd "$d" && "$hotscan" apply --dry-run "$work/t17a.json") >"$work/t17.out" 2>"$work/t17.err"; st=$?
check "no digests: --dry-run is refused alike" test "$st" -eq 2
(cd "$d" && "$hotscan" apply "$work/t17-empty.json") >/dev/null 2>"$work/t17.err"; st=$?
check "a \"files\" map without the file's hash: refused with exit 2" test "$st" -eq 2
check "... saying so" contains "$work/t17.err" "its \"files\" map has no hash for it"
sleep 0.02; touch "$work/t17a.json"
(cd "$d" && "$hotscan" apply --trust-offsets "$work/t17a.json") >/dev/null 2>"$work/t17.err"; st=$?
check "--trust-offsets: applied, exit 0" test "$st" -eq 0
check "... the edit is in" test "$(cat "$d/src/race.c")" = "$want_a"
(cd "$d" && "$hotscan" apply --trust-offsets "$work/t17b.json") >/dev/null 2>"$work/t17.err"; st=$?
check "--trust-offsets: a file modified after the report is refused (exit 1)" test "$st" -eq 1
check "... saying so" contains "$work/t17.err" "src/race.c: modified since the report was written"
check "... and left as it was" test "$(cat "$d/src/race.c")" = "$want_a"
# Two concurrent --trust-offsets runs, each report written after the file: one applies, the
# other is refused (it waited for the lock and found the file changed, or started after the
# first had written it and found it modified since its report); never both. 20 rounds.
lost=0
for round in $(seq 1 20); do
  race_src; sleep 0.02; touch "$work/t17a.json" "$work/t17b.json"
  (cd "$d" && exec "$hotscan" apply --trust-offsets "$work/t17a.json" 2>/dev/null) & pa=$!
  (cd "$d" && exec "$hotscan" apply --trust-offsets "$work/t17b.json" 2>/dev/null) & pb=$!
  wait "$pa"; ra=$?; wait "$pb"; rb=$?
  got=$(cat "$d/src/race.c")
  case "$ra$rb" in
    01) [ "$got" = "$want_a" ] || lost=$((lost + 1)) ;;
    10) [ "$got" = "$want_b" ] || lost=$((lost + 1)) ;;
    *) lost=$((lost + 1)) ;;
  esac
done
check "concurrent --trust-offsets applies: one applies, the other is refused, the file intact (20 rounds)" test "$lost" -eq 0
check "concurrent --trust-offsets applies: no temporary files left" test -z "$(find "$d" -name '.*hotscan-*')"

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  trap - EXIT
  echo "left $work for inspection"
  exit 1
fi
echo "all apply checks passed"
