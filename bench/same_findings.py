#!/usr/bin/env python3
"""same_findings.py BEFORE.json AFTER.json - do two hotscan reports hold the same findings?

For refactors that must not change behaviour: compares the findings by fingerprint (and,
for each fingerprint, the whole finding), the errors and every report-level section. Prints the counts per
rule and every difference; exits 1 when they differ.
"""
import collections
import json
import sys


def load(path):
    with open(path) as f:
        report = json.load(f)
    by_fp = collections.defaultdict(list)
    for finding in report.get("findings", []):
        by_fp[finding.get("fingerprint")].append(finding)
    return report, by_fp


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, bfp = load(sys.argv[1])
    after, afp = load(sys.argv[2])
    same = True
    for fp in sorted(set(bfp) | set(afp), key=str):
        b, a = bfp.get(fp, []), afp.get(fp, [])
        if b != a:
            same = False
            for f in b:
                if f not in a:
                    print(f"- {f['rule']} {f['file']}:{f['line']}: {f['message'][:100]}")
            for f in a:
                if f not in b:
                    print(f"+ {f['rule']} {f['file']}:{f['line']}: {f['message'][:100]}")
    # Report-level sections (os-event's "objects", the fixed files' hashes) must match too;
    # not the invocation, which names the command line and the folder of each run.
    for key in sorted((set(before) | set(after)) - {"findings", "errors", "summary", "tool", "invocation"}):
        if before.get(key) != after.get(key):
            same = False
            print(f"report member {key!r} differs")
    if before.get("errors") != after.get("errors"):
        same = False
        print(f"errors differ: {len(before.get('errors', []))} before, {len(after.get('errors', []))} after")
    rules = collections.Counter(f["rule"] for f in before.get("findings", []))
    print(f"{len(before.get('findings', []))} findings before, {len(after.get('findings', []))} after; "
          f"by rule before: {dict(sorted(rules.items()))}")
    print("same" if same else "DIFFERENT")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
