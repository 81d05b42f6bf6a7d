#!/bin/bash
# build_driver.sh OUTDIR [CFLAGS...] - builds corpus/examples/minidb's driver (driver.cc) into
# OUTDIR/minidb-driver, for the profile fixtures and the end-to-end test. Needs cc and c++.
set -euo pipefail
out=$1
shift
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(-O1 -g)
src=$(cd "$(dirname "$0")/../../corpus/examples/minidb" && pwd)
mkdir -p "$out"
cc "${flags[@]}" -c "$src/server.c" -o "$out/server.o"
cc "${flags[@]}" -c "$src/trx.c" -o "$out/trx.o"
c++ "${flags[@]}" "$src/driver.cc" "$src/stats.cc" "$out/server.o" "$out/trx.o" -o "$out/minidb-driver"
