#!/usr/bin/env bash
# The CI recipes run as written, locally: the GitHub Actions workflow's steps with an id
# (install, compile-db, scan) from contrib/github-actions/hotscan.yml, and the pre-commit
# hook's entry from .pre-commit-hooks.yaml, in a throwaway git repository with a committed
# baseline: an old finding passes, a new one fails, a NOLINT on it passes again.
# (The workflow's Packages and Build steps need root and the network; the install step
# installs the build under test instead.) Usage: recipes.sh BUILD_DIR
set -u
build=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"
# git must not touch the user's configuration (the scan step adds a safe.directory).
export GIT_CONFIG_GLOBAL="$work/gitconfig" GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES="$work"
export HOTSCAN_BUILD="$build" HOTSCAN_PREFIX="$work/prefix"

step() { # id: the workflow step's run script, as written
    python3 - "$SRC/contrib/github-actions/hotscan.yml" "$1" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
for job in wf["jobs"].values():
    for s in job["steps"]:
        if s.get("id") == sys.argv[2]:
            print(s["run"])
            sys.exit(0)
sys.exit("no step " + sys.argv[2])
PY
}
run_step() { # id, then VAR=value...: runs it in the project as Actions would (bash -e)
    local id=$1
    shift
    local script
    script=$(step "$id") || return 2
    (cd "$work/project" && env "$@" bash -e -c "$script" >"$work/out" 2>"$work/err")
    status=$?
}
hook_entry() {
    python3 -c "import yaml,sys; h=yaml.safe_load(open('$SRC/.pre-commit-hooks.yaml')); print(h[0]['entry']); sys.exit(0 if h[0]['pass_filenames'] is False else 1)"
}
run_hook() { # as pre-commit runs a language: system hook without file names: in the repository's top
    local entry
    entry=$(hook_entry) || return 2
    (cd "$work/project" && PATH="$HOTSCAN_PREFIX/bin:$PATH" $entry >"$work/out" 2>"$work/err")
    status=$?
}
out_has() { grep -q -- "$1" "$work/out" "$work/err"; }

# The install step, with the build under test.
mkdir -p "$work/project"
run_step install
check "the workflow's install step installs hotscan" test $status -eq 0 -a -x "$HOTSCAN_PREFIX/bin/hotscan"

# A project with a remote, a CMake build and three old findings.
git init -q --bare "$work/origin.git"
cd "$work/project"
git init -q -b main . && git config user.email t@example.com && git config user.name t
git remote add origin "$work/origin.git"
mkdir src
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(demo C)
add_library(demo src/srv.c)
CM
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
printf 'build/\n' >.gitignore
printf 'compile-commands: build\n' >.hotscan.yml
run_step compile-db
check "the compile-db step writes the database" test -f build/compile_commands.json
"$HOTSCAN_PREFIX/bin/hotscan" scan -q --format json -o .hotscan-baseline.json --exit-zero
check "the baseline holds the three old findings" \
  test "$(python3 -c "import json; print(len(json.load(open('.hotscan-baseline.json'))['findings']))")" = 3
check "the baseline report is valid against docs/report.schema.json" \
  python3 "$SRC/tests/reports/validate_reports.py" --require 1 .hotscan-baseline.json
git add -A && git commit -qm "hotscan baseline" && git push -q origin main

run_step scan GITHUB_EVENT_NAME=push
check "push to main: the old findings are baselined, the job passes" test $status -eq 0
check "... and says so" out_has "3 findings already in the baseline"

git checkout -q -b feature
cat >>src/srv.c <<'C'
static _Atomic long retried;
void retry(void) { retried++; }
long retries(void) { return atomic_load_explicit(&retried, memory_order_relaxed); }
C
git commit -qam "count retries"
git fetch -q origin
run_step scan GITHUB_EVENT_NAME=pull_request GITHUB_BASE_REF=main
check "a pull request with a new seq_cst counter fails" test $status -eq 1
check "... reporting it" out_has "'retried' is only ever used as a counter"
check "... and only it" test "$(grep -c 'atomic-seqcst-counter\]' "$work/out")" = 1

sed -i 's|^void retry(void) { retried++; }$|void retry(void) { retried++; } // NOLINT(atomic-seqcst-counter): reviewed, ordered on purpose|' src/srv.c
git commit -qam "reviewed"
run_step scan GITHUB_EVENT_NAME=pull_request GITHUB_BASE_REF=main
check "with a NOLINT on it the pull request passes" test $status -eq 0
check "... the summary counting it" out_has "1 finding suppressed by NOLINT"

# The pre-commit hook: what is staged on top of HEAD.
cat >>src/srv.c <<'C'
static _Atomic long timeouts;
void timeout(void) { timeouts++; }
long timeouts_seen(void) { return atomic_load_explicit(&timeouts, memory_order_relaxed); }
C
git add src/srv.c
run_hook
check "the pre-commit hook fails on a staged new counter" test $status -eq 1
check "... naming it" out_has "'timeouts' is only ever used as a counter"
check "... and only it" test "$(grep -c 'atomic-seqcst-counter\]' "$work/out")" = 1
git checkout -q src/srv.c 2>/dev/null; git reset -q --hard
run_hook
check "nothing staged: the hook passes" test $status -eq 0

checks_done
