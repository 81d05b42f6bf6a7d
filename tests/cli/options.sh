#!/usr/bin/env bash
# The commands' option tables (hotscan --dump-options list) against what a user reads: each
# command's help (`hotscan help CMD`, which must be `hotscan CMD --help`), the manual page's
# option sections and the bash completion (options, and how each value completes), the last two
# as the build wrote them. `hotscan help` is checked for every command of the command table.
# Usage: options.sh HOTSCAN MANPAGE COMPLETION
set -u
HOTSCAN=$(realpath "$1")
MANPAGE=$(realpath "$2")
COMPLETION=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"
cd "$work" # no .hotscan.yml above a fresh temporary folder is assumed; --help reads none anyway

"$HOTSCAN" --dump-options list >"$work/table" 2>"$work/err"
check "--dump-options list exits 0" test $? -eq 0
check "... and lists the options" test -s "$work/table"

# --- hotscan help, for every command of the command table (the top-level usage lists it) ---
"$HOTSCAN" --help >"$work/usage"
commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' "$work/usage")
check "the usage lists the commands" test "$(echo $commands | wc -w)" -ge 9
check "... the same as the table" test "$(echo $commands)" = "$(awk '{print $1}' "$work/table" | uniq | xargs)"
for cmd in $commands; do
    "$HOTSCAN" help "$cmd" >"$work/help.$cmd" 2>"$work/err"; status=$?
    check "help $cmd exits 0" test $status -eq 0
    check "help $cmd says nothing on stderr" test ! -s "$work/err"
    "$HOTSCAN" "$cmd" --help >"$work/own.$cmd" 2>/dev/null
    check "help $cmd prints what $cmd --help prints" cmp -s "$work/help.$cmd" "$work/own.$cmd"
    check "... its usage" grep -q "^usage: hotscan $cmd" "$work/help.$cmd"
done
"$HOTSCAN" help >"$work/out" 2>"$work/err"; status=$?
check "help alone exits 0" test $status -eq 0
check "... with the usage" cmp -s "$work/out" "$work/usage"
"$HOTSCAN" help nonsense >"$work/out" 2>"$work/err"; status=$?
check "help of an unknown command exits 2" test $status -eq 2
check "... saying so on stderr" grep -q "unknown command 'nonsense'" "$work/err"
check "... and nothing on stdout" test ! -s "$work/out"

# --- help: each command's help lists exactly its table's options (not those it takes from
# another command: config's scan options) ---
help_options() { # the options a help lists: "  -p, --compile-commands FILE", "  --hot FUNC"
    grep -E '^  -' "$1" | sed -E 's/^  (-[a-zA-Z])?(, )?(--[a-z][a-z-]*)?.*/\1 \3/' | tr ' ' '\n' | sed '/^$/d' | sort -u
}
for cmd in $commands; do
    awk -v c="$cmd" '$1 == c && $3 != "-" {print $2}' "$work/table" | sort -u >"$work/want"
    help_options "$work/help.$cmd" >"$work/got"
    check "$cmd's help lists its table's options" diff "$work/want" "$work/got"
done

# --- the manual page: each command's section lists its table's options (judge's are scan's) ---
python3 - "$MANPAGE" "$work/table" "$work/man" <<'PY'
import re, sys
page, table, out = sys.argv[1:]
sections, current, after_tp = {}, None, False
for line in open(page):
    line = line.rstrip("\n")
    m = re.match(r'\.SH "?([A-Z]+) OPTIONS"?$', line)
    if m:
        current = m.group(1).lower()
        sections.setdefault(current, set())
        continue
    if line.startswith(".SH"):
        current = None
    if current and after_tp:
        for name in re.findall(r'\\fB((?:\\-)+[a-zA-Z][a-zA-Z\\-]*)\\fR', line):
            sections[current].add(name.replace("\\-", "-"))
    after_tp = line == ".TP"
with open(out, "w") as f:
    for section, names in sorted(sections.items()):
        for name in sorted(names):
            f.write(f"{section} {name}\n")
PY
check "the manual page has option sections" test -s "$work/man"
awk '$3 != "-" {print $3, $2}' "$work/table" | sort -u >"$work/want"
sort -u "$work/man" >"$work/got"
check "the manual page's option sections list exactly the tables' options" diff "$work/want" "$work/got"
warnings=$(MANWIDTH=80 man --warnings -l "$MANPAGE" 2>&1 >/dev/null)
check "man renders it without warnings" test -z "$warnings"

# --- the bash completion: each command's options, and each option's value ---
mkdir -p "$work/c/somedir" && touch "$work/c/somefile"
complete_words() { # words...: what the completion offers for the last one, one a line, sorted
    (cd "$work/c" && bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hotscan
                               printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@") | sed '/^$/d' | sort -u
}
for cmd in $commands; do
    awk -v c="$cmd" '$1 == c {print $2}' "$work/table" | sort -u >"$work/want"
    complete_words "$HOTSCAN" "$cmd" - >"$work/got"
    check "completes $cmd's options" diff "$work/want" "$work/got"
done
awk '$1 == "scan" {print $2}' "$work/table" | sort -u >"$work/want"
complete_words "$HOTSCAN" - >"$work/got"
check "completes scan's options without a command (hotscan -p build ...)" diff "$work/want" "$work/got"
complete_words "$HOTSCAN" help "" >"$work/got"
check "completes the commands after help" test "$(xargs <"$work/got")" = "$(echo $commands | tr ' ' '\n' | sort | xargs)"
# Each option's value, in one shell: "CMD OPT GOT..." lines.
rules=$("$HOTSCAN" rules | sed -n '/^Rules:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p' | sort | xargs)
(cd "$work/c" && bash -c 'source "$1"
    while read -r cmd opt section value; do
        COMP_WORDS=("$2" "$cmd" "$opt" ""); COMP_CWORD=3; COMPREPLY=(); _hotscan
        echo "$cmd $opt ${COMPREPLY[*]}"
    done' _ "$COMPLETION" "$HOTSCAN" <"$work/table") >"$work/values"
python3 - "$work/table" "$work/values" "$rules" >"$work/bad" <<'PY'
import sys
table, values, rules = sys.argv[1], sys.argv[2], sys.argv[3].split()
got = {}
for line in open(values):
    words = line.split()
    got[(words[0], words[1])] = sorted(set(words[2:]))
for line in open(table):
    cmd, opt, section, value = line.split()
    if value in ("-", "files"):   # a flag: the next word is a PATH or another option
        want = ["somedir", "somefile"]
    elif value.startswith("words:"):
        want = sorted(value[6:].split("/"))
    else:
        want = {"dirs": ["somedir"], "rules": sorted(rules), "nothing": []}[value]
    if got.get((cmd, opt)) != want:
        print(f"{cmd} {opt} ({value}): {got.get((cmd, opt))}")
PY
check "completes each option's value as its table says" test ! -s "$work/bad"
sed 's/^/  not as the table says: /' "$work/bad"

checks_done
