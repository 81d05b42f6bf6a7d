#!/usr/bin/env bash
# bench/instructions.sh DB ROOT HOTSCAN... - instructions executed (valgrind callgrind's Ir,
# every process and thread) by the parse floor and by each hotscan binary's `-j 1` scan of
# one compile database, and each binary's count / the floor's.
#
# CPU seconds on a shared VM drift by 15% between runs minutes apart, more than most changes
# this is used to judge; an instruction count is the same on every run. It is not time (the
# parse waits on memory more than the walk does, so hotscan's share of the time is smaller
# than its share of the instructions): use it to compare binaries, and bench/run.sh for the
# CPU ratio. Under callgrind a scan runs about 50 times slower: give it a small database
# (20 TUs of haproxy take about 2 minutes a run). Needs valgrind (apt-get install valgrind).
# The floor is build/parse_floor --database-flags with PARSE_FLOOR_FLAGS=db, else hotscan's.
#
# --keep DIR keeps each run's callgrind files in DIR/floor and DIR/<binary's number> (for
# callgrind_annotate) and prints each process's and thread's count under its run, threads
# counted apart (--separate-threads=yes; the totals are the same): for a -j 1 scan, in
# order of process id, the supervisor, the worker's walk (thread 1) and its parse
# (thread 2, libclang's own), then the fix-it verification worker's, when there is a fix
# to verify. docs/performance.md's per-stage tables are made this way.
set -euo pipefail
keep=
if [ "${1:-}" = --keep ]; then
    keep=${2:?--keep needs a folder}
    shift 2
    mkdir -p "$keep"
    keep=$(realpath "$keep")
fi
[ $# -ge 3 ] || { sed -n '2,4p' "$0" | sed 's/^# //' >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
# Absolute paths: each command runs in its own temporary directory. parse_floor takes the
# database's folder, hotscan either.
db=$(realpath "$1") root=$(realpath "$2")
[ -f "$db" ] && db=$(dirname "$db")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
floor=$here/../build/parse_floor
[ -x "$floor" ] || { echo "$(basename "$0"): build hotscan first (bash .ci/setup builds build/parse_floor too)" >&2; exit 2; }
export HOTSCAN_NO_CACHE=1
# Ir summed over the callgrind files of a command: one per process. A forked process's
# counts start with its parent's at the fork; --zero-before drops them when the child enters
# hs_cleanup_in_child (the first call of every child that runs hotscan code), or a worker forked
# after the merge (the fix stage's verification reparse) would count the supervisor's
# reading and merging twice.
# ir LABEL CMD...: the total on stdout; with --keep, the files stay in $keep/LABEL and each
# one's count goes to $keep/LABEL/counts.
ir() {
    local label=$1 d threads=()
    shift
    if [ -n "$keep" ]; then
        d=$keep/$label
        rm -rf "$d"
        mkdir -p "$d"
        threads=(--separate-threads=yes)
    else
        d=$(mktemp -d)
    fi
    (cd "$d" && valgrind --tool=callgrind "${threads[@]}" --zero-before=hs_cleanup_in_child \
        --callgrind-out-file="$d/cg.%p" "$@" >/dev/null 2>&1) || true
    if [ -n "$keep" ]; then
        for f in $(ls "$d"/cg.* | sort -V); do
            awk -v f="$(basename "$f")" '/^(summary|totals):/ { print "    " f, $2; nextfile }' "$f"
        done > "$d/counts"
    fi
    awk '/^(summary|totals):/ { s += $2; nextfile } END { printf "%.0f\n", s }' "$d"/cg.*
    [ -n "$keep" ] || rm -rf "$d"
}
flags=()
[ "${PARSE_FLOOR_FLAGS:-}" = db ] && flags=(--database-flags)
f=$(ir floor "$floor" "${flags[@]}" "$db")
printf '%-40s %16s %8s\n' run instructions "x floor"
printf '%-40s %16s %8s\n' "parse floor${flags:+ (database flags)}" "$f" 1.000
n=0
for b in "$@"; do
    b=$(realpath "$b")
    n=$((n + 1))
    c=$(ir "$n" "$b" scan -q --format json -o /dev/null -j 1 -p "$db" --root "$root")
    printf '%-40s %16s %8s\n' "$b" "$c" "$(python3 -c "print(f'{$c / $f:.3f}')")"
    [ -z "$keep" ] || cat "$keep/$n/counts"
done
