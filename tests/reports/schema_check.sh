#!/usr/bin/env bash
# schema_check.sh HOTSCAN WORKDIR - the report schemas' own test (ctest: report_schema), run
# from the source tree. docs/report.schema.json and docs/rules.schema.json must accept what
# hotscan writes (a scan of the bundled example with fixes and os-event objects, the same
# under --no-build, and `hotscan rules --format json`) and refuse broken copies of it: an
# unknown confidence, rule, severity or top-level key, a finding without its fingerprint,
# a rule-specific field on another rule's finding, a bad exit code, an unknown precision.
set -u
hotscan=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/good" "$work/bad"
. "$here/../cli/check.sh"

"$hotscan" scan -q --format json --hot dispatch_command --min-confidence low corpus/examples/minidb \
  -o "$work/good/minidb.json"
check "the example scan exits 1 (findings)" test $? -eq 1
"$hotscan" scan -q --format json --no-build --exit-zero --hot dispatch_command corpus/examples/minidb \
  -o "$work/good/nobuild.json"
"$hotscan" rules --format json >"$work/good/rules.json"
check "rules --format json exits 0" test $? -eq 0
check "what hotscan writes is valid" python3 "$here/validate_reports.py" --require 3 "$work/good"

# Each broken copy: NAME, then Python statements that change `d` (the report or rule list).
broken() {
  local name=$1 source=$2 edit=$3
  python3 - "$work/good/$source" "$work/bad/$name.json" "$edit" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
  if python3 "$here/validate_reports.py" "$work/bad/$name.json" >"$work/bad/$name.out"; then
    echo "FAIL: the schema accepts a report with $name"
    cat "$work/bad/$name.out"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
broken "an unknown confidence" minidb.json 'd["findings"][0]["confidence"] = "certain"'
broken "an unknown rule" minidb.json 'd["findings"][0]["rule"] = "no-such-rule"'
broken "an unknown severity" minidb.json 'd["findings"][0]["severity"] = "fatal"'
broken "an unknown top-level key" minidb.json 'd["extra"] = 1'
broken "a finding without its fingerprint" minidb.json 'del d["findings"][0]["fingerprint"]'
broken "a short fingerprint" minidb.json 'd["findings"][0]["fingerprint"] = "abc"'
broken "another rule's field" minidb.json \
  'next(f for f in d["findings"] if f["rule"] == "os-event")["calls_between"] = 1'
broken "an unknown field in a finding" minidb.json 'd["findings"][0]["note"] = "x"'
broken "a line 0" minidb.json 'd["findings"][0]["line"] = 0'
broken "exit code 3" minidb.json 'd["invocation"]["exit_code"] = 3'
broken "no invocation" minidb.json 'del d["invocation"]'
broken "a note of level info" minidb.json 'd["invocation"]["notes"].append({"level": "info", "message": "x"})'
broken "an unknown hot-path reason" minidb.json \
  'next(f for f in d["findings"] if f["rule"] == "timer-hot-path")["reasons"] = ["fast"]'
broken "an unverified fix without edits" minidb.json \
  'next(f for f in d["findings"] if f["fixes"])["fixes"][0]["edits"] = []'
broken "an os-event object without its plan" minidb.json 'del d["objects"][0]["plan"]'
broken "a relative root" minidb.json 'd["root"] = "work/main"'
broken "an unknown precision" rules.json 'd["rules"][0]["precision"] = "certain"'
broken "a rule without its doc" rules.json 'del d["rules"][0]["doc"]'
broken "an unknown rule-data section" rules.json 'd["rules"][0]["rule_data"].append("clocks")'
checks_done
