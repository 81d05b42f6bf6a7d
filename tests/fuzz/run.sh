#!/usr/bin/env bash
# run.sh - builds the libFuzzer targets (clang-19, -DHOTSCAN_FUZZ=ON, in build-fuzz/) and runs
# each one for SECONDS, one after another, then prints how many inputs each executed.
#
# usage: tests/fuzz/run.sh SECONDS [TARGET...]     (targets: compile_db ruledata report facts profile nobuild)
# New inputs collect in build-fuzz/tests/fuzz/corpus-NAME; the seeds in tests/fuzz/seeds/NAME
# are only read. A crash leaves its input as build-fuzz/tests/fuzz/crash-* and exits 1.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(compile_db ruledata report facts profile nobuild)

cc=${HOTSCAN_FUZZ_CC:-clang-19}
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="$cc" -DHOTSCAN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 2
cmake --build build-fuzz -j"$(nproc)" --target fuzz_targets >/dev/null || exit 2

out=build-fuzz/tests/fuzz
status=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus-$t"
  log=$out/fuzz-$t.log
  echo "== fuzz_$t for $seconds s =="
  (cd "$out" && ASAN_OPTIONS=detect_leaks=1 ./fuzz_"$t" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 "corpus-$t" "$root/tests/fuzz/seeds/$t") >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ $rc -eq 0 ] || { status=1; echo "fuzz_$t FAILED (exit $rc), see $log"; tail -30 "$log"; }
  summary+=("fuzz_$t: ${runs:-?} executions in $seconds s, exit $rc")
done
printf '%s\n' "${summary[@]}"
exit $status
