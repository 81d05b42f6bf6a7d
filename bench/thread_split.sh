#!/usr/bin/env bash
# bench/thread_split.sh [--hz N] DB ROOT [HOTSCAN] - hotscan's CPU against its own parse, in
# one run: perf cpu-clock samples of a `-j 1` scan, split by thread.
#
# A worker parses each TU on libclang's parse thread (the same parse as the floor: the same
# flags and options, include/hotscan/parse_options.h; callgrind counts the two within 0.5%)
# and walks it on its main thread; the supervisor merges, judges and writes the report. The
# samples of the three are taken side by side in the same seconds, so a VM whose speed
# drifts between runs (15-40% here, docs/performance.md) moves them together, and
#     estimate = (parse + walk + supervisor + verification) / parse
# reads what `bench/run.sh` reads as "hotscan -j 1 / floor CPU" without comparing two runs.
# A pool worker is told from a fix-it verification worker (forked after the merge, it parses
# without walking) by its main thread's share: under 5% of its samples is a verification
# worker, counted as overhead. The estimate leaves out what the floor also pays outside
# the parse (process start-up, libclang's loading), so it reads a little low against
# run.sh's ratio.
#
# Needs perf (Debian: apt-get install linux-perf) and a kernel that lets this user sample
# (kernel.perf_event_paranoid <= 2 for one's own processes). cpu-clock is a software event:
# it works in VMs without hardware counters.
set -euo pipefail
hz=1000
if [ "${1:-}" = --hz ]; then
    hz=${2:?--hz needs a number}
    shift 2
fi
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '2,3p' "$0" | sed 's/^# //' >&2; exit 2; }
command -v perf >/dev/null || { echo "thread_split.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
db=$1 root=$2 hotscan=${3:-$here/../build/hotscan}
[ -x "$hotscan" ] || { echo "thread_split.sh: no hotscan at $hotscan (bash .ci/setup)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every TU parsed: a facts-cache hit would measure a read, and a cache turns the header skip off.
HOTSCAN_NO_CACHE=1 perf record -q -e cpu-clock -F "$hz" -o "$tmp/perf.data" -- \
    "$hotscan" scan -q --format json -o "$tmp/report.json" -j 1 -p "$db" --root "$root" >/dev/null 2>"$tmp/err" ||
    [ $? -eq 1 ] || { cat "$tmp/err" >&2; echo "thread_split.sh: the scan failed" >&2; exit 2; }
perf script -i "$tmp/perf.data" -F pid,tid 2>/dev/null | python3 -c '
import collections, sys
samples = collections.Counter()
for line in sys.stdin:
    f = line.split()
    if f and "/" in f[0]:
        pid, tid = map(int, f[0].split("/"))
        samples[pid, tid] += 1
if not samples:
    sys.exit("thread_split.sh: perf recorded no samples")
supervisor = min(pid for pid, _ in samples)  # the first process; workers are forked after it
parse = walk = verify = 0
for pid in {p for p, _ in samples if p != supervisor}:
    main = samples.get((pid, pid), 0)
    threads = sum(n for (p, t), n in samples.items() if p == pid and t != pid)
    if main < 0.05 * (main + threads):
        verify += main + threads
    else:
        walk += main
        parse += threads
sup = sum(n for (p, _), n in samples.items() if p == supervisor)
if not parse:
    sys.exit("thread_split.sh: no parse samples (no TU parsed?)")
total = parse + walk + sup + verify
print(f"samples ({sys.argv[1]} Hz): parse {parse}, walk {walk}, supervisor {sup}, verification {verify}")
for name, n in (("walk", walk), ("supervisor", sup), ("verification", verify)):
    label = name + " / parse"
    print(f"{label:<24} {n / parse:.3f}")
label = "estimate (all / parse)"
print(f"{label:<24} {total / parse:.3f}")
' "$hz"
