#!/bin/bash
# profile_parse.sh [MB] - builds bench/profile_parse.c, makes a perf script of about MB
# megabytes (default 1024) by repeating tests/profile/fixtures/minidb.perf, and prints what
# parsing it costs against reading it twice (the issue's target: less), in CPU time, for the
# parse and for the line-by-line state machine alone, side by side, and the peak RSS.
# The file goes to $TMPDIR (default /tmp) and is removed afterwards.
set -euo pipefail
mb=${1:-1024}
cd "$(dirname "$0")/.."
cc -O2 -Iinclude bench/profile_parse.c build/libhotscan_core.a -o build/profile_parse \
   $(pkg-config --cflags --libs jansson yaml-0.1 libxxhash) -lm \
   -L/usr/lib/llvm-19/lib -lclang -Wl,-rpath,/usr/lib/llvm-19/lib
big=$(mktemp "${TMPDIR:-/tmp}/hotscan-profile-bench.XXXXXX")
trap 'rm -f "$big"' EXIT
fixture=tests/profile/fixtures/minidb.perf
size=$(stat -c %s "$fixture")
copies=$(( mb * 1000000 / size + 1 ))
for ((i = 0; i < copies; i++)); do cat "$fixture"; done >"$big"
build/profile_parse "$big"
