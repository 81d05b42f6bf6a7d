#!/usr/bin/env python3
"""nobuild_compare.py FULL.json NOBUILD.json [--built COMPILE_COMMANDS ROOT] [--list]

How the no-build mode's findings (scan --no-build) compare with a full scan's, by (rule,
file, line): fingerprints differ between the two (a syntax-only finding hashes other facts),
places do not. Prints per rule and in total: the full scan's findings, the no-build
findings, the places both have, recall (full findings the no-build scan also found) and
precision (no-build findings the full scan also has). Duplicate places count once.

--built also prints the numbers for the files the build compiles (the database's files) and
headers: the full scan never reads sources its build leaves out (haproxy's QUIC code, the
tree's dev/ and contrib/ tools), the no-build mode reads every C/C++ file under its PATHs.
--list prints the misses and the extras."""
import json
import os
import sys
from collections import defaultdict


def places(path):
    with open(path) as f:
        report = json.load(f)
    out = defaultdict(set)
    for x in report.get("findings", []):
        out[x["rule"]].add((x["file"], x["line"]))
    return out


def built_files(db, root):
    with open(db) as f:
        entries = json.load(f)
    root = os.path.realpath(root)
    return {os.path.relpath(os.path.realpath(os.path.join(e["directory"], e["file"])), root) for e in entries}


def table(full, nb, title):
    print(title)
    rules = sorted(set(full) | set(nb))
    tf = tn = tm = 0
    print("  %-24s %6s %8s %7s %7s %9s" % ("rule", "full", "nobuild", "match", "recall", "precision"))
    for r in rules:
        f, n = full.get(r, set()), nb.get(r, set())
        m = len(f & n)
        tf, tn, tm = tf + len(f), tn + len(n), tm + m
        print("  %-24s %6d %8d %7d %7s %9s" % (r, len(f), len(n), m, "%.0f%%" % (100.0 * m / len(f)) if f else "-",
                                              "%.0f%%" % (100.0 * m / len(n)) if n else "-"))
    print("  %-24s %6d %8d %7d %7s %9s" % ("total", tf, tn, tm, "%.0f%%" % (100.0 * tm / tf) if tf else "-",
                                          "%.0f%%" % (100.0 * tm / tn) if tn else "-"))


def main():
    argv = sys.argv[1:]
    built = None
    if "--built" in argv:
        i = argv.index("--built")
        built = built_files(argv[i + 1], argv[i + 2])
        del argv[i:i + 3]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    full, nb = places(args[0]), places(args[1])
    table(full, nb, "all files:")
    if built is not None:
        def keep(d):
            return {r: {p for p in ps if p[0] in built or not p[0].endswith((".c", ".cc", ".cpp", ".cxx", ".C"))}
                    for r, ps in d.items()}
        table(keep(full), keep(nb), "files the build compiles, and headers:")
    if "--list" in argv:
        for r in sorted(set(full) | set(nb)):
            for p in sorted(full.get(r, set()) - nb.get(r, set())):
                print("missed %s %s:%d" % (r, p[0], p[1]))
            for p in sorted(nb.get(r, set()) - full.get(r, set())):
                print("extra  %s %s:%d" % (r, p[0], p[1]))


if __name__ == "__main__":
    main()
