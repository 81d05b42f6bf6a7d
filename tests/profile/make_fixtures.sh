#!/bin/bash
# make_fixtures.sh HOTSCAN - regenerates tests/profile/fixtures/ from the bundled example: the
# minidb driver recorded with `hotscan profile` (needs perf and permission to record).
#   minidb.perf      -O1 -g, DWARF call graphs, source lines and inlined frames (perf script)
#   minidb.folded    the same build, folded stacks
#   minidb-cxx.perf  -O0 -g, no source lines: C++ symbols with parameter lists, templates,
#                    lambdas and std::atomic's member functions
set -euo pipefail
hotscan=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$here/build_driver.sh" "$tmp/o1" -O1 -g
bash "$here/build_driver.sh" "$tmp/o0" -O0 -g
cd "$tmp"
"$hotscan" profile -F 499 -o "$here/fixtures/minidb.perf" -- ./o1/minidb-driver 250000
"$hotscan" profile -F 499 -o "$here/fixtures/minidb.folded" -- ./o1/minidb-driver 250000
"$hotscan" profile -F 499 --no-srcline -o "$here/fixtures/minidb-cxx.perf" -- ./o0/minidb-driver 250000
