#!/bin/bash
# run.sh HOTSCAN - `scan --profile` on the bundled example with the checked-in fixtures (ranking,
# shares in text, JSON and SARIF, never-sampled findings low, bad profiles), and `hotscan
# profile`'s messages when perf is missing or not permitted. Needs no perf.
set -uo pipefail
hotscan=$(realpath "$1")
cd "$(dirname "$0")/../.."
fix=tests/profile/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check DESCRIPTION COMMAND...
    if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi
}
scan() { "$hotscan" scan --exit-zero -j 2 --root "$PWD" "$@" corpus/examples/minidb; }

for p in minidb.perf minidb.folded minidb-cxx.perf; do
    scan -q --format json --profile "$fix/$p" -o "$tmp/$p.json" 2>"$tmp/err"
    check "$p: scan exits 0" test $? -eq 0
    check "$p: the clock() read in trx_start_low ranks first, with clock's own share" python3 - "$tmp/$p.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["findings"][0]
p = f["profile"]
assert f["function"] == "trx_start_low" and f.get("api") == "clock", f
assert p["rank"] == 1 and p["symbol"] == "clock" and p["symbol_share"] > 30, p
assert p["share"] == p["symbol_share"] and p["inclusive"] >= p["symbol_share"]
s = r["summary"]["profile"]
assert s["samples"] == s["mapped"] + s["unmapped"] and s["mapped"] > 0 and s["roots"] > 0, s
shares = [x["profile"]["share"] for x in r["findings"]]
assert shares == sorted(shares, reverse=True), shares
# Unsampled functions' findings are low and left out by default: no os-event finding is shown.
assert not any(x["rule"] == "os-event" and x["function"] for x in r["findings"]), r["findings"]
PY
done

scan --profile $fix/minidb.perf >"$tmp/out.txt" 2>"$tmp/err.txt"
check "text: the share under the finding" grep -q "trx.c:[0-9]*:[0-9]*: note: profile: clock takes [0-9.]*% of the samples under trx_start_low" "$tmp/out.txt"
check "text: the first finding is the clock() read" bash -c "head -1 '$tmp/out.txt' | grep -q 'trx.c:.*clock()'"
check "summary: mapped and unmapped samples" grep -q "hotscan: profile .*minidb.perf (perf-script): [0-9]* samples, [0-9]* mapped to the program's functions, [0-9]* not" "$tmp/err.txt"

scan -q --format json --profile $fix/minidb.perf --min-confidence low -o "$tmp/low.json"
check "never sampled: os-event uses drop to low, saying what they were" python3 -c "
import json; r = json.load(open('$tmp/low.json'))
ev = [f for f in r['findings'] if f['rule'] == 'os-event' and f['function']]
assert ev and all(f['confidence'] == 'low' and f['profile']['confidence_was'] == 'high' and not f['profile']['sampled'] for f in ev)"
# The redis shape: main is a hot root by inclusive share (every sample is under it) but its one
# start-up clock read is never sampled: low, out of the default report. The clock() read names
# its sampled caller.
check "a start-up read in a hot main: low, unsampled call" python3 -c "
import json; r = json.load(open('$tmp/low.json'))
d = [f for f in r['findings'] if f['function'] == 'main' and f['rule'] == 'timer-hot-path'][0]
assert d['file'].endswith('driver.cc') and d['confidence'] == 'low', d
assert d['profile']['unsampled'] == 'call' and d['profile']['inclusive'] > 90, d
assert d['profile']['confidence_was'] == 'high' and d['profile']['symbol_samples'] == 0, d
t = [f for f in r['findings'] if f['function'] == 'trx_start_low' and f.get('api') == 'clock'][0]
assert t['profile']['callers'][0]['function'] == 'dispatch_command', t['profile']"
for p in minidb.perf minidb.folded; do
    check "$p: no clock read in main in the default report" python3 -c "
import json; r = json.load(open('$tmp/$p.json'))
assert not [f for f in r['findings'] if f['function'] == 'main'], r['findings']"
done
check "text: the sampled caller" grep -q "note: profile: clock takes .*; called from dispatch_command [0-9.]*%" "$tmp/out.txt"
scan -q --format json --profile $fix/minidb.perf --keep-unsampled -o "$tmp/keep.json"
check "--keep-unsampled keeps their confidence" python3 -c "
import json; r = json.load(open('$tmp/keep.json'))
assert any(f['rule'] == 'os-event' and f['confidence'] == 'high' for f in r['findings'])"
scan -q --format json --profile $fix/minidb.perf --profile-threshold 90 --min-confidence low -o "$tmp/t90.json"
check "--profile-threshold: fewer roots at 90%" python3 -c "
import json
a = json.load(open('$tmp/low.json'))['summary']['profile']; b = json.load(open('$tmp/t90.json'))['summary']['profile']
assert b['threshold'] == 90 and b['roots'] < a['roots'], (a, b)"

scan -q --format sarif --profile $fix/minidb.perf -o "$tmp/r.sarif"
check "SARIF: results carry rank and the profile" python3 -c "
import json; r = json.load(open('$tmp/r.sarif'))['runs'][0]['results']
assert r and all('rank' in x and 0 <= x['rank'] <= 100 for x in r)
assert r[0]['rank'] > 30 and r[0]['properties']['profile']['symbol'] == 'clock'"

# Bad profiles: exit 2 before any parsing, naming the line.
printf 'main;f 3\nmain;g x\n' >"$tmp/bad.folded"
scan -q --profile "$tmp/bad.folded" >/dev/null 2>"$tmp/bad.err"
check "bad folded line: exit 2" test $? -eq 2
check "bad folded line: FILE:LINE" grep -q "bad.folded:2: not a folded stack line" "$tmp/bad.err"
printf 'Hello\nthis is a README\n' >"$tmp/readme.txt"
scan -q --profile "$tmp/readme.txt" >/dev/null 2>"$tmp/bad.err"
check "neither format: named line" grep -q "readme.txt:1: not a profile hotscan reads" "$tmp/bad.err"
scan -q --profile "$tmp/none" >/dev/null 2>"$tmp/bad.err"
check "missing profile: exit 2 naming it" bash -c "grep -q 'cannot read the profile $tmp/none' '$tmp/bad.err'"
"$hotscan" scan --profile-threshold 101 x.c >/dev/null 2>"$tmp/bad.err"
check "--profile-threshold out of range" grep -q "needs a percentage" "$tmp/bad.err"

# hotscan profile: perf missing, or not permitted (HOTSCAN_TEST_PARANOID stands in for the kernel's value).
HOTSCAN_PERF=$tmp/no-perf "$hotscan" profile -o "$tmp/p.perf" -- true 2>"$tmp/perf.err"
check "perf missing: exit 2" test $? -eq 2
check "perf missing: says what to install" grep -q "perf is not installed.*apt-get install linux-perf" <(tr '\n' ' ' <"$tmp/perf.err")
printf '#!/bin/sh\nexit 1\n' >"$tmp/fake-perf" && chmod +x "$tmp/fake-perf"
HOTSCAN_PERF=$tmp/fake-perf HOTSCAN_TEST_PARANOID=3 "$hotscan" profile -o "$tmp/p.perf" -- true 2>"$tmp/perf.err"
check "paranoid 3: exit 2" test $? -eq 2
check "paranoid 3: names the setting and the fix" grep -q "sysctl kernel.perf_event_paranoid=2" "$tmp/perf.err"
HOTSCAN_PERF=$tmp/fake-perf "$hotscan" profile -o "$tmp/p.perf" -- true 2>"$tmp/perf.err"
check "perf record fails: exit 2 with advice" bash -c "grep -q 'perf record wrote no profile' '$tmp/perf.err' && grep -q CAP_PERFMON '$tmp/perf.err'"
check "no profile file left behind" test ! -e "$tmp/p.perf"
# What perf is handed: hotscan's own paths are absolute (a relative TMPDIR such as "-t" is not
# used), and the command comes after "--".
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\nexit 1\n' "$tmp/perf-args" >"$tmp/args-perf" && chmod +x "$tmp/args-perf"
mkdir -p "$tmp/cwd/-t"
(cd "$tmp/cwd" && TMPDIR=-t HOTSCAN_PERF=$tmp/args-perf "$hotscan" profile -o "$tmp/p.perf" -- -x 2>"$tmp/perf.err")
check "perf's -o is an absolute path under a relative TMPDIR" \
  bash -c "grep -A1 -x -- -o '$tmp/perf-args' | tail -1 | grep -q '^/'"
check "... the command follows --" bash -c "test \"\$(tail -2 '$tmp/perf-args' | tr '\n' ' ')\" = '-- -x '"
"$hotscan" profile 2>"$tmp/perf.err"
check "no command: usage error" grep -q "needs a command to run" "$tmp/perf.err"
exit $fail
