#!/usr/bin/env python3
"""nobuild_compare.py FULL.json NOBUILD.json [--list] - how the no-build mode's findings compare
with a full scan's, by (rule, file, line): fingerprints differ between the two (a syntax-only
finding hashes other facts), places do not.

Prints per rule and in total: the full scan's findings, the no-build findings, how many of
each match (a place the other report also has), recall (full findings the no-build scan
found) and precision (no-build findings the full scan also has). --list prints the misses
and the extras. Duplicate places count once."""
import json
import sys
from collections import defaultdict


def places(path):
    with open(path) as f:
        report = json.load(f)
    out = defaultdict(set)
    for x in report.get("findings", []):
        out[x["rule"]].add((x["file"], x["line"]))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    full, nb = places(args[0]), places(args[1])
    rules = sorted(set(full) | set(nb))
    tf = tn = tm = 0
    print("%-24s %6s %8s %7s %7s %9s" % ("rule", "full", "nobuild", "match", "recall", "precision"))
    for r in rules:
        f, n = full.get(r, set()), nb.get(r, set())
        m = len(f & n)
        tf, tn, tm = tf + len(f), tn + len(n), tm + m
        print("%-24s %6d %8d %7d %7s %9s" % (r, len(f), len(n), m, "%.0f%%" % (100.0 * m / len(f)) if f else "-",
                                            "%.0f%%" % (100.0 * m / len(n)) if n else "-"))
    print("%-24s %6d %8d %7d %7s %9s" % ("total", tf, tn, tm, "%.0f%%" % (100.0 * tm / tf) if tf else "-",
                                        "%.0f%%" % (100.0 * tm / tn) if tn else "-"))
    if "--list" in sys.argv:
        for r in rules:
            for p in sorted(full.get(r, set()) - nb.get(r, set())):
                print("missed %s %s:%d" % (r, p[0], p[1]))
            for p in sorted(nb.get(r, set()) - full.get(r, set())):
                print("extra  %s %s:%d" % (r, p[0], p[1]))


if __name__ == "__main__":
    main()
