#!/usr/bin/env bash
# `cmake --install` into a temporary prefix: the binary, rule data, manual page (rendered by
# man without warnings), bash completion (completing options and rule ids), the docs, and
# the rule pages built into the binary for SARIF. Usage: install.sh BUILD_DIR
set -u
build=$(realpath "$1")
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
. "$(dirname "$0")/check.sh"

cmake --install "$build" --prefix "$prefix" >"$prefix/install.log" 2>&1
check "cmake --install succeeds" test $? -eq 0
check "the binary" test -x "$prefix/bin/hotscan"
check "the rule data" test -f "$prefix/share/hotscan/rules/timers.json"
check "the manual page" test -f "$prefix/share/man/man1/hotscan.1"
check "the rule docs" test -f "$prefix/share/doc/hotscan/rules/timer-hot-path.md"
check "docs/ci.md" test -f "$prefix/share/doc/hotscan/ci.md"
check "the JSON schemas" test -f "$prefix/share/doc/hotscan/report.schema.json" -a -f "$prefix/share/doc/hotscan/rules.schema.json"
check "the bash completion" test -f "$prefix/share/bash-completion/completions/hotscan"

warnings=$(MANWIDTH=80 man --warnings -l "$prefix/share/man/man1/hotscan.1" 2>&1 >/dev/null)
check "man renders it without warnings" test -z "$warnings"
MANWIDTH=80 man -l "$prefix/share/man/man1/hotscan.1" 2>/dev/null >"$prefix/man.txt"
check "the page names every scan option" bash -c "
  for o in \$('$prefix/bin/hotscan' scan --help | grep -oE -- '^ +(-[a-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
    grep -q -- \"\$o\" '$prefix/man.txt' || { echo \"missing \$o\"; exit 1; }
  done"

complete_words() { # words...: what the completion offers for the last one
    bash -c 'source "$1/share/bash-completion/completions/hotscan"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hotscan; printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix" "$@"
}
check "the page names every validate option" bash -c "
  for o in \$('$prefix/bin/hotscan' validate --help | grep -oE -- '^ +(-[a-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
    grep -q -- \"\$o\" '$prefix/man.txt' || { echo \"missing \$o\"; exit 1; }
  done"
check "the page names every apply option" bash -c "
  for o in \$('$prefix/bin/hotscan' apply --help | grep -oE -- '^ +(-[a-z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
    grep -q -- \"\$o\" '$prefix/man.txt' || { echo \"missing \$o\"; exit 1; }
  done"
check "completes apply options" test "$(complete_words "$prefix/bin/hotscan" apply --trust)" = "--trust-offsets"
check "completes validate options" test "$(complete_words "$prefix/bin/hotscan" validate --header-t)" = "--header-tus"
check "completes validate values" test "$(complete_words "$prefix/bin/hotscan" validate --measure c)" = "cpu"
check "completes options" test "$(complete_words "$prefix/bin/hotscan" scan --diff-b)" = "--diff-base"
check "completes rule ids" test "$(complete_words "$prefix/bin/hotscan" scan --enable atomic | tr '\n' ' ')" = "atomic-seqcst-counter atomic-mixed-access "
check "completes commands" test "$(complete_words "$prefix/bin/hotscan" conf | head -1)" = "config"
check "completes values" test "$(complete_words "$prefix/bin/hotscan" scan --format s)" = "sarif"
check "completes rules --format without sarif" test "$(complete_words "$prefix/bin/hotscan" rules --format s)" = ""
check "completes rules options" test "$(complete_words "$prefix/bin/hotscan" rules --for)" = "--format"

src=$(mktemp -d "$prefix/src.XXXXXX")
printf '#include <time.h>\n__attribute__((hot)) long s(int n) { long t = 0; for (int i = 0; i < n; i++) t += clock(); return t; }\n' >"$src/a.c"
# The rule pages are built into the binary: its SARIF carries each page as help.markdown
# with the installed docs moved away, and names no file: path a viewer elsewhere cannot open.
mv "$prefix/share/doc/hotscan" "$prefix/docs.moved"
(cd "$src" && "$prefix/bin/hotscan" scan -q --no-config --format sarif --exit-zero a.c >"$src/out.sarif")
mv "$prefix/docs.moved" "$prefix/share/doc/hotscan"
rule() { python3 -c "import json,sys; d=json.load(open('$src/out.sarif')); r=[r for r in d['runs'][0]['tool']['driver']['rules'] if r['id'] == 'timer-hot-path'][0]; print($1)"; }
check "no helpUri without --docs-url" test "$(rule "'helpUri' in r")" = False
check "no informationUri without --docs-url" test "$(python3 -c "import json; d=json.load(open('$src/out.sarif')); print('informationUri' in d['runs'][0]['tool']['driver'])")" = False
check "help.markdown is the rule's page, from the binary" \
  test "$(rule "r['help']['markdown'].startswith('# timer-hot-path\\n') and '## Precision' in r['help']['markdown']")" = True
check "... its links reduced to their text (no relative link)" test "$(rule "'](../' in r['help']['markdown']")" = False
check "help.text is short and plain" test "$(rule "len(r['help']['text']) < 1000 and '](' not in r['help']['text']")" = True
check "precision is the rule's own" test "$(rule "r['properties']['precision']")" = medium
(cd "$src" && "$prefix/bin/hotscan" scan -q --no-config --format json --exit-zero a.c >"$src/report.json")
"$prefix/bin/hotscan" rules --format json >"$src/rules.json"
check "the installed binary's report and rule list are valid against their schemas" \
  python3 "$(dirname "$0")/../reports/validate_reports.py" --require 2 "$src/report.json" "$src/rules.json"
check "rules --format json: each rule's doc is its page in the installed docs" \
  test "$(python3 -c "import json,os; d=json.load(open('$src/rules.json')); print(d['docs_dir'], all(r['doc'] == '$prefix/share/doc/hotscan/rules/' + r['id'] + '.md' and os.path.isfile(r['doc']) for r in d['rules']))")" = "$prefix/share/doc/hotscan True"
check "rules --format json: precision and default severity" \
  test "$(python3 -c "import json; d=json.load(open('$src/rules.json')); print(' '.join(r['id'] + '=' + r['precision'] + '/' + r['default_severity'] for r in d['rules']))")" = \
       "timer-hot-path=medium/warning timer-duplicate=high/warning atomic-seqcst-counter=high/warning atomic-mixed-access=low/warning os-event=very-high/warning"
(cd "$src" && "$prefix/bin/hotscan" scan -q --no-config --format sarif --exit-zero --docs-url https://example.org/hotscan/docs a.c >"$src/out.sarif")
check "--docs-url sets the base" test "$(python3 -c "import json; d=json.load(open('$src/out.sarif')); dr=d['runs'][0]['tool']['driver']; print(dr['informationUri'], dr['rules'][0]['helpUri'])")" = "https://example.org/hotscan/docs/hotscan.md https://example.org/hotscan/docs/rules/timer-hot-path.md"

checks_done
