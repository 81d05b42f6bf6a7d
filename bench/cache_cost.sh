#!/usr/bin/env bash
# bench/cache_cost.sh [--edit FILE] [--out DIR] TREE BIN [BIN2] [-- SCAN ARGS]
# What the facts cache saves (issue 15), measured side by side in one run on a copy of TREE
# (hard links, so the tree itself is never written): for each binary, a cold scan into an
# empty --cache folder, the unchanged rerun, and a rerun after FILE (a .c file of the
# database, default: its first entry) was edited (a comment appended, in the copy only),
# then that one TU parsed alone by the warm parse floor, and scanned alone by each binary
# (--no-cache, the TU as the only PATH: its parse and walk). Prints CPU seconds (user +
# system of every process) and the ratios the issue's targets are read on:
#   rerun / cold                       target <= 0.05
#   edited / (TU parse + 0.1 x cold)   target <= 1.00 (the floor's parse of the TU)
#   edited / (TU alone + 0.1 x cold)   the same with the binary's own scan of the TU
# With BIN2 the same rows for a second binary follow, measured in the same rounds
# (cold BIN, cold BIN2, rerun BIN, rerun BIN2, ...). The reports stay in --out DIR
# (BIN-cold.json, BIN-rerun.json, BIN-edited.json; compare with bench/same_findings.py).
# The database must be TREE/compile_commands.json; its paths are rewritten for the copy.
# Env: JOBS (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
edit= out=
while [ $# -gt 0 ]; do
    case $1 in
        --edit) edit=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        -h|--help) usage ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || usage
tree=$(cd "$1" && pwd)
bins=("$(realpath "$2")")
shift 2
if [ $# -gt 0 ] && [ "$1" != "--" ]; then bins+=("$(realpath "$1")"); shift; fi
[ "${1:-}" = "--" ] && shift
jobs=${JOBS:-2}
floor=$here/../build/parse_floor
[ -x "$floor" ] || { echo "$(basename "$0"): build hotscan first (bash .ci/setup builds build/parse_floor too)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${out:-$tmp/out}
mkdir -p "$out"
copy=$tmp/tree
# A copy by hard links (a second tree of the same files), without caches and git.
mkdir -p "$copy"
(cd "$tree" && find . -mindepth 1 -maxdepth 1 ! -name .git ! -name .cache -exec cp -al {} "$copy"/ \;)
rm -f "$copy/compile_commands.json"
python3 - "$tree" "$copy" "${edit}" "$tmp/one.json" <<'PY'
import json, os, sys
tree, copy, edit, one = sys.argv[1:5]
db = json.load(open(os.path.join(tree, "compile_commands.json")))
text = json.dumps(db).replace(tree, copy)
db = json.loads(text)
json.dump(db, open(os.path.join(copy, "compile_commands.json"), "w"))
def path(e):
    return os.path.normpath(os.path.join(e["directory"], e["file"]))
if edit:
    want = os.path.normpath(os.path.join(copy, os.path.relpath(os.path.abspath(edit), tree)))
    pick = [e for e in db if path(e) == want]
else:
    pick = [e for e in db if path(e).endswith(".c")][:1]
if not pick:
    sys.exit(f"cache_cost.sh: {edit or 'a .c file'} is not in the compile database")
json.dump(pick[:1], open(one, "w"))
print(path(pick[0]))
PY
target=$(python3 -c "import json,os,sys; e=json.load(open(sys.argv[1]))[0]; print(os.path.normpath(os.path.join(e['directory'], e['file'])))" "$tmp/one.json")
m() { python3 "$here/measure.py" --json "$@"; }
scan() { # NAME INDEX [SCAN ARGS]: one scan of the copy by binary INDEX, with its own cache
    local name=$1 i=$2
    shift 2
    (cd "$copy" && m -- "${bins[$i]}" scan -q --format json --exit-zero -j "$jobs" -p "$copy" --root "$copy" \
        --cache "$tmp/cache-$i" -o "$out/$i-$name.json" "$@") >"$tmp/$i-$name.m.json"
}
for i in "${!bins[@]}"; do scan cold "$i" "$@"; done
for i in "${!bins[@]}"; do scan rerun "$i" "$@"; done
# The edit: the copy's file replaced (its hard link broken), a comment appended.
cp --remove-destination "$target" "$tmp/edited" && printf '\n/* bench/cache_cost.sh */\n' >>"$tmp/edited"
mv "$tmp/edited" "$target"
for i in "${!bins[@]}"; do scan edited "$i" "$@"; done
for i in "${!bins[@]}"; do
    # The TU as the only PATH, so no SCAN ARGS (they may name PATHs).
    (cd "$copy" && m -- "${bins[$i]}" scan -q --no-cache --format json --exit-zero -j "$jobs" -p "$copy" \
        --root "$copy" -o "$out/$i-alone.json" "$target") >"$tmp/$i-alone.m.json"
done
mkdir -p "$tmp/onedb" && cp "$tmp/one.json" "$tmp/onedb/compile_commands.json"
m --stdout "$tmp/floor.out" -- "$floor" "$tmp/onedb" >"$tmp/floor.m.json"
python3 - "$tmp" "$target" "$out" "${bins[@]}" <<'PY'
import json, sys
tmp, target, out, bins = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
cpu = lambda name: json.load(open(f"{tmp}/{name}.m.json"))["cpu"]
tu = cpu("floor")
print(f"edited TU: {target}; its parse alone (warm floor): {tu:.2f} CPU s")
print(f"{'binary':<32} {'cold s':>7} {'rerun s':>8} {'rerun/cold':>10} {'edited s':>9} "
      f"{'edited/(TU+0.1 cold)':>21} {'alone s':>8} {'edited/(alone+0.1 cold)':>24}")
for i, b in enumerate(bins):
    c, r, e, a = cpu(f"{i}-cold"), cpu(f"{i}-rerun"), cpu(f"{i}-edited"), cpu(f"{i}-alone")
    print(f"{b[-32:]:<32} {c:7.2f} {r:8.2f} {r / c:10.3f} {e:9.2f} {e / (tu + 0.1 * c):21.3f} {a:8.2f} "
          f"{e / (a + 0.1 * c):24.3f}")
print(f"reports: {out}/<binary>-{{cold,rerun,edited}}.json (binary = 0, 1 as listed)")
PY
