#!/usr/bin/env bash
# The README's commands as written: every command block of README.md is read from the README
# itself (so a changed or new block is tested, or fails here until it is), and run in a git
# checkout of the tree (a temporary repository holding a copy of the tracked files, with
# `build/hotscan` the hotscan under test):
# - the set-up block: `build/hotscan scan ...` runs; `bash .ci/setup` (installs packages as
#   root and builds ./build) and `bash .ci/test` (every test, this one among them) are not run;
# - the synopsis under "Use": each command's --help lists every option it shows;
# - scan -> validate on the bundled example, from `cd corpus/examples/minidb` with `hotscan`
#   on PATH, as written (--codegen, --build, --bench, --runs 15): it exits 0 and prints the
#   codegen line the README quotes and a significant improvement;
# - the profile example (needs perf: skipped with the reason when perf is missing or cannot
#   record): every finding and summary line the README shows is printed (numbers may
#   differ, `...` stands for anything).
# The one change to the commands: /tmp/ is a folder of this test's own, so runs in parallel
# (and a user's /tmp/fix.diff) do not meet. Usage: readme.sh /path/to/hotscan /path/to/source-tree
set -u
HOTSCAN=$(realpath "$1")
SRC=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/check.sh"
# check_show STEP NAME COMMAND...: check, and the last lines of STEP's output when it fails.
check_show() {
  local step=$1 before=$failed
  shift
  check "$@"
  if [ "$failed" -ne "$before" ]; then
    echo "  output of $step:"
    tail -20 "$work/$step.out" | sed 's/^/    /'
  fi
}

# --- the blocks, from README.md ---
mkdir -p "$work/blocks" "$work/tmp"
python3 - "$SRC/README.md" "$work/blocks" "$work/tmp/" <<'PY' || exit 1
import os, re, sys
readme, out, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(readme).read().split("\n")
blocks = []  # (kind, lines)
i = 0
while i < len(lines):
    line = lines[i]
    if line.startswith("```"):
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        blocks.append(("fenced", lines[i + 1:j], j + 1))
        i = j + 1
        continue
    # An indented block: lines indented 4 or more beyond the text before it, after a blank line.
    if line.strip() and i > 0 and not lines[i - 1].strip() and re.match(r"^ {4,}\S", line):
        indent = len(line) - len(line.lstrip())
        prev = next((l for l in reversed(lines[:i]) if l.strip()), "")
        prev_indent = len(prev) - len(prev.lstrip())
        if prev.lstrip().startswith(("- ", "* ")):
            prev_indent += 2
        if indent >= prev_indent + 4:
            j = i
            body = []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith(" " * indent)):
                body.append(lines[j][indent:])
                j += 1
            while body and not body[-1].strip():
                body.pop()
            blocks.append(("indented", body, j))
            i = j
            continue
    i += 1

def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)

seen = set()
for kind, body, end in blocks:
    text = "\n".join(body)
    if kind == "fenced" and any(l.startswith("bash .ci/setup") for l in body):
        write("setup", text + "\n")
        seen.add("setup")
    elif kind == "indented" and body[0].startswith("hotscan ") and "[" in text:
        write("synopsis", text + "\n")
        seen.add("synopsis")
    elif "cd corpus/examples/minidb" in text:
        write("validate.sh", text.replace("/tmp/", tmp) + "\n")
        # What the README says the run gives: the first `quoted` text after the block.
        after = " ".join(lines[end:end + 4])
        m = re.search(r"gives `([^`]+)`", after)
        write("validate.expect", (m.group(1) if m else "") + "\n")
        seen.add("validate")
    elif "hotscan profile" in text:
        cut = body.index("") if "" in body else len(body)
        write("profile.sh", "\n".join(body[:cut]).replace("/tmp/", tmp) + "\n")
        write("profile.expect", "\n".join(l for l in body[cut + 1:] if l.strip()) + "\n")
        seen.add("profile")
    else:
        print("README.md: a command block that tests/cli/readme.sh does not know (line %d): %s"
              % (end - len(body), body[0] if body else "(empty)"))
        sys.exit(1)
missing = {"setup", "synopsis", "validate", "profile"} - seen
if missing:
    print("README.md: no %s block any more: update tests/cli/readme.sh" % ", ".join(sorted(missing)))
    sys.exit(1)
PY
check "the validate example's commands are read from the README" grep -q "hotscan validate" "$work/blocks/validate.sh"
check "... and the line it says the run gives" grep -q . "$work/blocks/validate.expect"

# --- a git checkout of the tree, with build/hotscan ---
co="$work/hotscan"
mkdir -p "$co"
if git -C "$SRC" rev-parse --show-toplevel >/dev/null 2>&1; then
  (cd "$SRC" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
  done | xargs -0 cp --parents -P -t "$co")
else
  (cd "$SRC" && tar --exclude='./build*' --exclude=./.git -cf - .) | (cd "$co" && tar -xf -)
fi
git -C "$co" init -q
git -C "$co" add -A
git -C "$co" -c user.name=readme -c user.email=readme@test commit -q -m "the tree" || exit 1
mkdir -p "$co/build"
ln -s "$HOTSCAN" "$co/build/hotscan"
mkdir -p "$work/bin"
ln -s "$HOTSCAN" "$work/bin/hotscan"
export PATH="$work/bin:$PATH" XDG_CACHE_HOME="$work/xdg"

# --- the set-up block ---
while IFS= read -r line; do
  [ -n "$line" ] || continue
  cmd=${line#bash .ci/setup && }
  if [ "$cmd" = "bash .ci/test" ]; then
    echo "not run: '$line' (every test, this one among them)"
    continue
  fi
  echo "not run: 'bash .ci/setup' (installs packages as root and builds ./build); run: $cmd"
  (cd "$co" && bash -e -c "$cmd" >"$work/setup.out" 2>&1)
  status=$?
  check_show setup "set-up block: '$cmd' exits 0" test $status -eq 0
  check_show setup "... and reports a clock read on the hot path" grep -q "error: clock() on a hot path.*\[timer-hot-path\]" "$work/setup.out"
done <"$work/blocks/setup"

# --- the synopsis ---
while IFS= read -r line; do
  line=${line%%#*}
  read -r -a words <<<"$line"
  [ "${words[0]:-}" = hotscan ] || continue
  sub=${words[1]}
  "$HOTSCAN" "$sub" --help >"$work/help.out" 2>&1
  check "synopsis: hotscan $sub --help exits 0" test $? -eq 0
  for opt in $(grep -o -- '--[a-z][a-z-]*' <<<"$line"); do
    check "synopsis: hotscan $sub --help lists $opt" grep -q -- "$opt" "$work/help.out"
  done
done <"$work/blocks/synopsis"

# --- scan -> validate, as written, from the checkout's root ---
(cd "$co" && bash -e "$work/blocks/validate.sh" >"$work/validate.out" 2>&1)
status=$?
check_show validate "scan -> validate exits 0" test $status -eq 0
check "... prints the codegen line the README quotes ($(cat "$work/blocks/validate.expect"))" \
  grep -qF -- "$(cat "$work/blocks/validate.expect")" "$work/validate.out"
check_show validate "... and a significant improvement" grep -q "verdict: significant improvement" "$work/validate.out"
check "... and leaves the checkout as it was" test -z "$(git -C "$co" status --porcelain --untracked-files=no)"
check "... with no worktree left behind" test "$(git -C "$co" worktree list | wc -l)" -eq 1

# --- the profile example ---
if ! command -v perf >/dev/null; then
  echo "SKIP: the profile example needs perf, which is not installed (apt-get install linux-perf)"
else
  # One command at a time: a `hotscan profile` that fails is perf that cannot record here.
  status=0
  skip=
  : >"$work/profile.out"
  while IFS= read -r cmd; do
    [ -n "$cmd" ] || continue
    (cd "$co" && bash -e -c "$cmd" >>"$work/profile.out" 2>&1)
    status=$?
    if [ $status -ne 0 ] && [[ $cmd == *" profile "* ]]; then
      skip=1
    fi
    [ $status -eq 0 ] || break
  done <"$work/blocks/profile.sh"
  if [ -n "$skip" ]; then
    echo "SKIP: the profile example: perf cannot record here; hotscan profile said:"
    tail -5 "$work/profile.out" | sed 's/^/  /'
  else
    check_show profile "the profile example exits 0" test $status -eq 0
    # Each line the README shows, numbers relaxed and ... standing for anything.
    check "... and prints every line the README shows" python3 - "$work/blocks/profile.expect" "$work/profile.out" <<'PY'
import re, sys
want = [l for l in open(sys.argv[1]).read().split("\n") if l.strip()]
got = open(sys.argv[2]).read().split("\n")
bad = 0
for line in want:
    if line.strip() == "...":
        continue
    m = re.match(r"^\S+:\d+:\d+: ", line)
    head, rest = (m.group(0), line[m.end():]) if m else ("", line)
    pattern = re.escape(head)
    for part in re.split(r"(\.\.\.|\d+(?:\.\d+)?)", rest):
        if part == "...":
            pattern += ".*"
        elif re.fullmatch(r"\d+(?:\.\d+)?", part):
            pattern += r"\d+(?:\.\d+)?"
        else:
            pattern += re.escape(part)
    if not any(re.fullmatch(pattern, g) for g in got):
        print("  not printed: " + line)
        bad += 1
sys.exit(bad != 0)
PY
  fi
fi

checks_done
