#!/usr/bin/env bash
# bench/run.sh [--root DIR] [-j JOBS] [--rounds N] DB [JOBS] - hotscan's CPU and peak memory
# against the warm in-process parse floor, side by side, on one compile database.
#
# DB is a compile_commands.json or its folder (e.g. a redis tree built with `bear -- make`).
# --root DIR is the project root hotscan analyzes (its --root: only files under it are
# walked). Default: DB's folder, right when the database sits at the top of the tree
# (redis, haproxy); a database in a build folder needs it (rocksdb: --root TREE with
# DB TREE/build). JOBS (default: all cores) is the -j of the parallel run.
# --rounds N (default 1) runs the four rows N times, one after another in each round, and
# prints each row's median: a VM whose speed drifts moves a round's rows together, so the
# median of the per-round ratios is steadier than one round.
#
# Rows: the floor (bench/parse_floor.c: hotscan's own flags and options, the target's
# denominator), the parse with the database's flags as written (what a plain libclang
# parse costs; hotscan adds -w, include/hotscan/parse_options.h), hotscan -j 1,
# the floor -j JOBS (JOBS parse_floor --shard processes side by side, each a 1/JOBS share
# of the TUs: the same parse on cores that share caches, which costs more CPU than one
# process) and hotscan -j JOBS: CPU seconds, wall seconds, peak RSS (largest single
# process, and the supervisor + workers summed; bench/measure.py says how each is taken)
# and CPU / the floor's CPU. The target's ratio is against the one-process floor; the last
# line also gives hotscan -j JOBS against the floor -j JOBS, to tell how much of the -j
# JOBS ratio is the cores' sharing rather than hotscan's own work.
# Run from a hotscan checkout built in ./build (bash .ci/setup).
# Note: a compile database listing a file several times (memcached) is parsed once per
# entry by the floor but once per distinct (file, flags) by hotscan.
set -euo pipefail
# Every run parses: a facts-cache hit would measure a read, not extraction.
export HOTSCAN_NO_CACHE=1
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,3p' "$0" | sed 's/^# //' >&2; exit 2; }

root= jobs= rounds=1
while [ $# -gt 0 ]; do
    case $1 in
        --root) root=${2:?--root needs a folder}; shift 2 ;;
        --root=*) root=${1#--root=}; shift ;;
        -j) jobs=${2:?-j needs a number}; shift 2 ;;
        -j*) jobs=${1#-j}; shift ;;
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --rounds=*) rounds=${1#--rounds=}; shift ;;
        -h|--help) usage ;;
        --) shift; break ;;
        -*) echo "run.sh: unknown option $1" >&2; usage ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
if [ -d "$1" ]; then db=$(cd "$1" && pwd); else db=$(cd "$(dirname "$1")" && pwd); fi
[ -f "$db/compile_commands.json" ] || { echo "run.sh: no compile_commands.json in $db" >&2; exit 2; }
root_given=${root:+yes}
root=$(cd "${root:-$db}" && pwd)
jobs=${2:-${jobs:-$(nproc)}}

# The walk sees only files under the root: a root holding none of the database's files
# would measure a scan that analyzes nothing.
# The default root must hold most of them: a build folder holding a generated file or two
# (rocksdb's build_version.cc) is not the tree.
read -r under total < <(python3 - "$db/compile_commands.json" "$root" <<'PY'
import json, os, sys
entries = json.load(open(sys.argv[1]))
root = os.path.realpath(sys.argv[2])
n = 0
for e in entries:
    f = os.path.realpath(os.path.join(e.get("directory", "."), e["file"]))
    n += os.path.commonpath([f, root]) == root
print(n, len(entries))
PY
)
if [ "$under" -eq 0 ] || { [ -z "$root_given" ] && [ $((2 * under)) -lt "$total" ]; }; then
    echo "run.sh: $under of the $total files of $db/compile_commands.json lie under $root;" \
         "pass the tree as --root DIR" >&2
    exit 2
fi

hotscan=$here/../build/hotscan
floor=$here/../build/parse_floor
[ -x "$hotscan" ] || { echo "run.sh: build hotscan first (bash .ci/setup)" >&2; exit 2; }
[ -x "$floor" ] || { echo "$(basename "$0"): build hotscan first (bash .ci/setup builds build/parse_floor too)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m() { python3 "$here/measure.py" --json "$@"; }

# The floor prints "TUs cpu": its CPU is measured inside the process after libclang is
# loaded (warm); measure.py adds its peak RSS.
case $rounds in ''|*[!0-9]*|0) echo "run.sh: --rounds needs a positive number" >&2; exit 2 ;; esac
for r in $(seq "$rounds"); do
    m --stdout "$tmp/floor$r.out" -- "$floor" "$db" >"$tmp/floor$r.json"
    m --stdout "$tmp/plain$r.out" -- "$floor" --database-flags "$db" >"$tmp/plain$r.json"
    m -- "$hotscan" scan -q --format json -o "$tmp/one$r.out" -j 1 -p "$db" --root "$root" >"$tmp/one$r.json"
    # The -j JOBS floor: one measure of the shards together (wall, memory); their warm CPU
    # is each shard's own, summed below.
    m -- bash -c 'f=$1 db=$2 n=$3 out=$4
        for i in $(seq 0 $((n - 1))); do "$f" --shard "$i/$n" "$db" >"$out.$i" & done
        wait' _ "$floor" "$db" "$jobs" "$tmp/pfloor$r.out" >"$tmp/pfloor$r.json"
    m -- "$hotscan" scan -q --format json -o "$tmp/par$r.out" -j "$jobs" -p "$db" --root "$root" >"$tmp/par$r.json"
done

python3 - "$tmp" "$jobs" "$db" "$root" "$under" "$total" "$rounds" <<'PY'
import json, statistics, sys
tmp, jobs, db, root, under, total, rounds = sys.argv[1:]
rounds = range(1, int(rounds) + 1)
load = lambda name: json.load(open(f"{tmp}/{name}"))
med = statistics.median

def floor_row(name):
    """A floor run's measure, its CPU taken inside the process (warm: after libclang loads)."""
    rows = []
    for r in rounds:
        row = load(f"{name}{r}.json")
        tus, cpu = open(f"{tmp}/{name}{r}.out").read().split()
        row["cpu"], row["tus"] = float(cpu), tus
        rows.append(row)
    return rows

floors, plains = floor_row("floor"), floor_row("plain")
pfloors = []
for r in rounds:
    row = load(f"pfloor{r}.json")
    shards = [open(f"{tmp}/pfloor{r}.out.{i}").read().split() for i in range(int(jobs))]
    row["cpu"] = sum(float(cpu) for _, cpu in shards)
    pfloors.append(row)
ones = [load(f"one{r}.json") for r in rounds]
pars = [load(f"par{r}.json") for r in rounds]

def median_row(rows):
    """Each measure's median over the rounds, and the median of the per-round ratios."""
    out = {k: med(row[k] for row in rows) for k in ("cpu", "wall", "maxrss_kb", "sum_rss_kb", "sum_uss_kb")}
    out["ratio"] = med(row["cpu"] / f["cpu"] for row, f in zip(rows, floors))
    out["status"] = max(row["status"] for row in rows)
    out["source"] = rows[0].get("source", "?")
    return out

floor, plain, one, pfloor, par = (median_row(x) for x in (floors, plains, ones, pfloors, pars))
tus = floors[0]["tus"]
floor_cpu = floor["cpu"]
mb = lambda kb: f"{kb / 1024:.0f} MB"

def summary(name):
    try:
        return json.load(open(f"{tmp}/{name}"))["summary"]
    except (OSError, ValueError, KeyError):
        return None

s = summary("par1.out") or summary("one1.out") or {}
print(f"compile database            : {db}/compile_commands.json")
print(f"root                        : {root} ({under} of its {total} entries under it)")
print(f"translation units           : floor parsed {tus}; hotscan scanned "
      f"{s.get('translation_units', '?')} ({s.get('errors', '?')} with errors), "
      f"{s.get('findings', '?')} findings")
print(f"peak RSS measured by        : {par['source']} (largest process), "
      "/proc every 50 ms (summed)")
print()
print(f"{'run':<15} {'CPU s':>8} {'wall s':>8} {'x floor CPU':>12} {'RSS largest':>12} "
      f"{'RSS summed':>11} {'USS summed':>11}")
for label, r, wall in (("parse floor", floor, ""), ("parse, db flags", plain, ""),
                       ("hotscan -j 1", one, None), (f"floor -j {jobs}", pfloor, None),
                       (f"hotscan -j {jobs}", par, None)):
    wall = f"{r['wall']:8.2f}" if wall is None else f"{wall:>8}"
    print(f"{label:<15} {r['cpu']:8.2f} {wall} {r['ratio']:12.2f} "
          f"{mb(r['maxrss_kb']):>12} {mb(r['sum_rss_kb']):>11} {mb(r['sum_uss_kb']):>11}")
print()
if len(rounds) > 1:
    print(f"medians of {len(rounds)} rounds; hotscan -j {jobs} / floor per round: "
          + " ".join(f"{p['cpu'] / f['cpu']:.2f}" for p, f in zip(pars, floors)))
print(f"hotscan -j {jobs} / floor -j {jobs} (CPU, median of rounds): "
      f"{med(p['cpu'] / f['cpu'] for p, f in zip(pars, pfloors)):.2f}; "
      f"floor -j {jobs} / floor: {med(p['cpu'] / f['cpu'] for p, f in zip(pfloors, floors)):.2f}")
print(f"-j {jobs} is {one['wall'] / par['wall']:.2f}x faster than -j 1 (wall). The floor's CPU "
      "is counted after libclang is loaded; hotscan's includes its start-up and every worker.")
if one["status"] not in (0, 1) or par["status"] not in (0, 1):
    print(f"note: hotscan exited {one['status']} (-j 1) / {par['status']} (-j {jobs}): "
          "some TUs failed (see errors above); their parse is still counted")
PY
