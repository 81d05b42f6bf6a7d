#!/usr/bin/env bash
# with_reports.sh - runs a test with hotscan replaced by collect.sh, then checks every JSON
# document the test made hotscan write against docs/report.schema.json (scan and judge
# reports) or docs/rules.schema.json (`hotscan rules --format json`):
#
#   with_reports.sh HOTSCAN MIN COMMAND ARGS...
#
# Each ARG equal to HOTSCAN is replaced by collect.sh, which runs HOTSCAN itself. The test's
# exit status is kept; a document that fails its schema, or fewer than MIN documents (the
# collection is broken, or the test wrote none), fails the run too.
set -u
real=$(realpath "$1")
min=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/hotscan-reports.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export HOTSCAN_COLLECT_REAL=$real HOTSCAN_COLLECT_DIR=$dir
args=()
for a in "$@"; do
  if [ "$(realpath "$a" 2>/dev/null)" = "$real" ]; then args+=("$here/collect.sh"); else args+=("$a"); fi
done
"${args[@]}"
status=$?
echo "with_reports: the JSON documents hotscan wrote in this test, against their schemas:"
python3 "$here/validate_reports.py" --require "$min" "$dir" || status=1
exit $status
