#!/usr/bin/env python3
"""bench/fix_cost.py - what the fix stage costs a scan (issue 10: at most 20%), side by side.

usage: fix_cost.py [--runs N] [--root DIR] [--skip-per-fix] DB [HOTSCAN-SCAN-ARGS...]

Runs `hotscan scan -j 1 --min-confidence low` over the compile database DB (a
compile_commands.json or its folder) N times in each of three modes, alternating so drift
hits all alike:
  none     HOTSCAN_BENCH_NO_VERIFY=1: the fix stage reparses nothing (the scan without it)
  per-fix  HOTSCAN_BENCH_VERIFY_PER_FIX=1: one reparse per fix-it (hotscan before issue 10)
  per-tu   the default: one reparse per TU with fix-its, halved only when it fails
and prints each mode's median CPU (user + system of hotscan and its workers, from
bench/measure.py), the reparses the fix stage made, and the ratios to "none". -j 1 keeps the
CPU from depending on how TUs land on workers. --skip-per-fix leaves out the per-fix mode (on a
tree with a hundred fix-its of big C++ TUs it alone takes longer than the other two). Run from a
checkout built in ./build.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
runs, root, skip_per_fix = 3, None, False
while args and args[0] in ("--runs", "--root", "--skip-per-fix"):
    if args[0] == "--skip-per-fix":
        skip_per_fix, args = True, args[1:]
        continue
    if len(args) < 2:
        sys.exit(__doc__)
    if args[0] == "--runs":
        runs = int(args[1])
    else:
        root = os.path.abspath(args[1])
    args = args[2:]
if not args or args[0] in ("-h", "--help"):
    sys.exit(__doc__)
db = os.path.abspath(args[0])
if not os.path.isdir(db):
    db = os.path.dirname(db)
if not os.path.isfile(os.path.join(db, "compile_commands.json")):
    sys.exit(f"fix_cost.py: no compile_commands.json in {db}")
hotscan = os.path.join(here, "..", "build", "hotscan")
if not os.access(hotscan, os.X_OK):
    sys.exit("fix_cost.py: build hotscan first (bash .ci/setup)")
modes = {"none": {"HOTSCAN_BENCH_NO_VERIFY": "1"}, "per-fix": {"HOTSCAN_BENCH_VERIFY_PER_FIX": "1"}, "per-tu": {}}
if skip_per_fix:
    del modes["per-fix"]
cpu = {m: [] for m in modes}
reparses = {}
fixes = {}
with tempfile.TemporaryDirectory() as tmp:
    for _ in range(runs):
        for mode, extra in modes.items():
            env = {k: v for k, v in os.environ.items() if not k.startswith("HOTSCAN_BENCH_")}
            stats = os.path.join(tmp, "stats")
            if os.path.exists(stats):
                os.unlink(stats)
            # HOTSCAN_NO_CACHE: every run parses (a facts-cache hit would skip extraction).
            env.update(extra, HOTSCAN_BENCH_VERIFY_STATS=stats, HOTSCAN_NO_CACHE="1")
            cmd = [sys.executable, os.path.join(here, "measure.py"), "--json", "--", hotscan, "scan",
                   "--format", "json", "--exit-zero", "--min-confidence", "low", "-j", "1",
                   "-o", os.path.join(tmp, "report.json"), "-p", db, "--root", root or db] + args[1:]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"fix_cost.py: {mode}: exit {p.returncode}\n{p.stderr[-2000:]}")
            cpu[mode].append(json.loads(p.stdout)["cpu"])
            m = re.search(r"verify: (\d+) fix-its, (\d+) reparses", open(stats).read()) if os.path.exists(stats) else None
            fixes[mode], reparses[mode] = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
base = statistics.median(cpu["none"])
print(f"{'fix stage':<10} {'CPU s (median of %d)' % runs:>22} {'reparses':>9} {'/ no fix stage':>15}")
for mode in modes:
    c = statistics.median(cpu[mode])
    print(f"{mode:<10} {c:>22.2f} {reparses[mode]:>9} {c / base if base else 0:>15.3f}")
print(f"fix-its checked: {fixes['per-tu']}")
