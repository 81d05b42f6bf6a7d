#!/bin/bash
# e2e.sh HOTSCAN - records the bundled example's driver with `hotscan profile` and checks that
# `scan --profile` ranks trx_start_low's clock() read first. Skips (exit 77) with the reason
# when perf is missing or cannot record here (a new machine: .ci/setup does not install perf).
set -uo pipefail
hotscan=$(realpath "$1")
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! bash tests/profile/build_driver.sh "$tmp/bin" -O1 -g 2>"$tmp/build.err"; then
    echo "FAIL: cannot build the minidb driver:"; cat "$tmp/build.err"; exit 1
fi
if ! "$hotscan" profile -o "$tmp/minidb.perf" -- "$tmp/bin/minidb-driver" 300000 2>"$tmp/profile.err"; then
    echo "SKIP: perf cannot record in this environment; hotscan profile said:"
    sed 's/^/  /' "$tmp/profile.err"
    exit 77
fi
"$hotscan" scan -q --exit-zero -j 2 --format json --profile "$tmp/minidb.perf" -o "$tmp/r.json" corpus/examples/minidb || exit 1
python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
top = r["findings"][0]
p = top["profile"]
print("top: %s:%d %s %s share %.2f%% (inclusive %.2f%%); %d of %d samples mapped" % (
    top["file"], top["line"], top["rule"], top["function"], p["share"], p["inclusive"],
    r["summary"]["profile"]["mapped"], r["summary"]["profile"]["samples"]))
assert top["function"] == "trx_start_low" and top.get("api") == "clock" and p["rank"] == 1, top
assert p["symbol_share"] > 20, p
PY
echo "ok: recorded with hotscan profile; clock() in trx_start_low ranks first"
