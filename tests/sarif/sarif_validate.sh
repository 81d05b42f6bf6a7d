#!/usr/bin/env bash
# sarif_validate.sh - the SARIF writer's test (ctest: sarif_validate). Run from the source
# tree:
#
#   sarif_validate.sh HOTSCAN SARIF_CONVERT MULTITOOL WORKDIR
#
# 1. Scans corpus/examples/minidb (JSON) and converts the report with SARIF_CONVERT
#    (tests/sarif/sarif_convert.c, which calls hs_emit_sarif); converts the hand-written
#    fixture-report.json (fixes, related places, hot paths, errors, notes, odd paths, a
#    docs URL) too. `hotscan scan --format sarif` must give what converting its JSON report
#    gives, but for the invocation (its own command line), which must be its own.
# 2. Checks each SARIF against its report (check_sarif.js matches) and runs
#    `Sarif.Multitool validate --rule-kind "Sarif;Gh"` (SARIF rules and GitHub's
#    ingestion rules) on it. The multitool exits 0 even when it finds errors, so its
#    --output log decides: any error-level result fails the test.
# 3. A broken copy of the fixture's SARIF must fail step 2, so the check cannot pass by
#    checking nothing.
set -uo pipefail

hotscan=$1
convert=$2
multitool=${HOTSCAN_SARIF_MULTITOOL:-$3}
work=$4
here=$(cd "$(dirname "$0")" && pwd)
failed=0

fail() {
  echo "sarif_validate: FAIL: $*" >&2
  failed=1
}

rm -rf "$work"
mkdir -p "$work"

validate() { # FILE: 0 when the multitool reports no error-level result
  local file=$1 log=$1.validation.sarif
  echo "sarif_validate: Sarif.Multitool validate $file"
  if ! "$multitool" validate "$file" --rule-kind "Sarif;Gh" --output "$log" --log ForceOverwrite \
       >"$log.stdout" 2>&1; then
    cat "$log.stdout" >&2
    echo "sarif_validate: the multitool failed to run" >&2
    return 1
  fi
  node "$here/check_sarif.js" validator-log "$log"
}

# 1. The SARIF files.
"$hotscan" scan --format json --hot dispatch_command corpus/examples/minidb -o "$work/minidb.json" \
  2>"$work/minidb.stderr"
status=$?
if [ $status -ne 1 ] || [ ! -s "$work/minidb.json" ] || grep -qE "runtime error:|Sanitizer" "$work/minidb.stderr"; then
  cat "$work/minidb.stderr" >&2
  fail "hotscan scan exited $status (expected 1: findings) or wrote no report"
fi

reports=()
sarifs=()
for name in minidb fixture; do
  report=$work/$name.json
  [ $name = fixture ] && report=$here/fixture-report.json
  if "$convert" "$report" "$work/$name.sarif" && "$convert" "$report" "$work/$name.again.sarif"; then
    cmp -s "$work/$name.sarif" "$work/$name.again.sarif" || fail "$name: two conversions differ"
    reports+=("$report")
    sarifs+=("$work/$name.sarif")
  else
    fail "$name: sarif_convert failed"
  fi
done

"$hotscan" scan --format sarif --hot dispatch_command corpus/examples/minidb -o "$work/minidb.direct.sarif" \
  2>"$work/direct.stderr"
status=$?
if [ $status -eq 2 ] && grep -q "unknown --format" "$work/direct.stderr"; then
  echo "sarif_validate: note: hotscan has no --format sarif yet; testing the writer through sarif_convert only"
elif [ $status -ne 1 ] || [ ! -s "$work/minidb.direct.sarif" ] || grep -qE "runtime error:|Sanitizer" "$work/direct.stderr"; then
  cat "$work/direct.stderr" >&2
  fail "hotscan scan --format sarif exited $status (expected 1: findings) or wrote no SARIF"
else
  node -e '
    const fs = require("fs");
    const [a, b] = process.argv.slice(1).map((p) => JSON.parse(fs.readFileSync(p, "utf8")));
    for (const log of [a, b]) delete log.runs[0].invocations;
    process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1);
  ' "$work/minidb.sarif" "$work/minidb.direct.sarif" ||
    fail "hotscan scan --format sarif differs from the converted JSON report (diff $work/minidb.sarif $work/minidb.direct.sarif)"
  # Its invocation is this command's: the arguments as given, the exit status, where it ran.
  node -e '
    const fs = require("fs");
    const inv = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).runs[0].invocations[0];
    const want = ["scan", "--format", "sarif", "--hot", "dispatch_command", "corpus/examples/minidb", "-o", process.argv[2]];
    const ok = JSON.stringify(inv.arguments) === JSON.stringify(want) && inv.exitCode === 1 &&
      inv.executionSuccessful === true && inv.commandLine.endsWith(" " + want.join(" ")) &&
      inv.workingDirectory.uri === require("url").pathToFileURL(process.cwd()).href + "/" &&
      inv.toolExecutionNotifications.some((n) => n.level === "note" && /lower-confidence finding/.test(n.message.text));
    if (!ok) { console.error(JSON.stringify(inv, null, 2)); process.exit(1); }
  ' "$work/minidb.direct.sarif" "$work/minidb.direct.sarif" ||
    fail "the invocation of hotscan scan --format sarif is not its command line, exit status and folder"
  validate "$work/minidb.direct.sarif" || fail "$work/minidb.direct.sarif: the SARIF multitool reports errors"
fi

# 2. Each one matches its report and validates.
for i in "${!sarifs[@]}"; do
  report=${reports[$i]}
  sarif=${sarifs[$i]}
  node "$here/check_sarif.js" matches "$report" "$sarif" || fail "$sarif does not match $report"
  validate "$sarif" || fail "$sarif: the SARIF multitool reports errors"
done

# 3. The validation can fail: a result whose message has no text is an error for GitHub.
if [ -f "$work/fixture.sarif" ]; then
  node -e '
    const fs = require("fs");
    const log = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    log.runs[0].results[0].message = {};
    log.runs[0].results[1].locations[0].physicalLocation.region.startLine = 0;
    fs.writeFileSync(process.argv[2], JSON.stringify(log, null, 2));
  ' "$work/fixture.sarif" "$work/broken.sarif"
  if validate "$work/broken.sarif" >"$work/broken.out" 2>&1; then
    cat "$work/broken.out"
    fail "a broken SARIF file passed validation; the check is not working"
  else
    echo "sarif_validate: a deliberately broken SARIF file fails validation, as it must"
  fi
fi

[ $failed -eq 0 ] && echo "sarif_validate: OK"
exit $failed
