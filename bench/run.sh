#!/usr/bin/env bash
# bench/run.sh BUILD_DIR [JOBS] - hotscan's cost against the warm in-process parse floor.
#
# BUILD_DIR holds a compile_commands.json (e.g. a redis tree built with `bear -- make`).
# Prints CPU seconds and the ratios; run from the hotscan checkout after .ci/setup.
# Note: a compile database listing a file several times (memcached) is parsed once per
# entry by the floor but once per distinct (file, flags) by hotscan.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
db=$(cd "$1" && pwd)
jobs=${2:-$(nproc)}
hotscan=$here/../build/hotscan
floor=$here/../build/parse_floor
llvm=/usr/lib/llvm-19
cc -O2 -I"$llvm/include" "$here/parse_floor.c" -L"$llvm/lib" -lclang -Wl,-rpath,"$llvm/lib" -o "$floor"

measure() { # prints "wall cpu" for a command, children included
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.time() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.2f} {u.ru_utime + u.ru_stime:.2f}")
PY
}

read -r floor_tus floor_cpu < <("$floor" "$db")
read -r one_wall one_cpu < <(measure "$hotscan" scan -q -j 1 -p "$db" --root "$db")
read -r par_wall par_cpu < <(measure "$hotscan" scan -q -j "$jobs" -p "$db" --root "$db")
python3 - "$floor_tus" "$floor_cpu" "$one_wall" "$one_cpu" "$par_wall" "$par_cpu" "$jobs" <<'PY'
import sys
tus, floor, w1, c1, wn, cn, jobs = sys.argv[1:]
floor, w1, c1, wn, cn = map(float, (floor, w1, c1, wn, cn))
print(f"translation units           : {tus}")
print(f"warm parse floor (1 process): {floor:.2f} s CPU")
print(f"hotscan -j 1                : {c1:.2f} s CPU, {w1:.2f} s wall  -> {c1/floor:.2f}x the floor's CPU")
print(f"hotscan -j {jobs:<3}              : {cn:.2f} s CPU, {wn:.2f} s wall  -> {cn/floor:.2f}x the floor's CPU, "
      f"{w1/wn:.2f}x faster than -j 1")
PY
