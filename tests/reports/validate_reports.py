#!/usr/bin/env python3
"""validate_reports.py - checks hotscan's JSON documents against their schemas.

    validate_reports.py [--require N] PATH...

Each PATH is a JSON file or a folder of them (*.json, not recursive). A document with
"findings" is a scan report and is checked against docs/report.schema.json; one with
"rules" is `hotscan rules --format json` and is checked against docs/rules.schema.json.
Prints each violation with the file, the place in the document and the rule it breaks, then
"N passed, M failed". Exits 1 when any document fails, or when fewer than N were checked
(so a test whose collection went wrong cannot pass by checking nothing).

Needs the Python module jsonschema 4.0 or later (Debian 12: python3-jsonschema).
"""
import json
import os
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit("validate_reports: needs the Python module jsonschema 4.0 or later "
             "(Debian 12: apt-get install python3-jsonschema)")

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs")


def validator(name):
    with open(os.path.join(DOCS, name), encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def files_of(paths):
    for path in paths:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith(".json"):
                    yield os.path.join(path, name)
        else:
            yield path


def where(error):
    return "/" + "/".join(str(p) for p in error.absolute_path)


def main(argv):
    require = 0
    if len(argv) >= 2 and argv[0] == "--require":
        require = int(argv[1])
        argv = argv[2:]
    schemas = {"report": validator("report.schema.json"), "rules": validator("rules.schema.json")}
    passed = failed = 0
    for path in files_of(argv):
        label = path
        cmd = path[:-len(".json")] + ".cmd"
        if os.path.exists(cmd):
            with open(cmd, encoding="utf-8", errors="replace") as f:
                label = "%s (%s)" % (path, f.read().strip())
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("validate_reports: %s: not a JSON document: %s" % (label, e))
            failed += 1
            continue
        kind = "report" if isinstance(doc, dict) and "findings" in doc else \
               "rules" if isinstance(doc, dict) and "rules" in doc else None
        if kind is None:
            print("validate_reports: %s: neither a report nor a rule list" % label)
            failed += 1
            continue
        errors = sorted(schemas[kind].iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            failed += 1
            for e in errors[:20]:
                print("validate_reports: %s: %s: %s (schema: %s)" %
                      (label, where(e), e.message[:300], "/".join(str(p) for p in e.absolute_schema_path)))
        else:
            passed += 1
    if passed + failed < require:
        print("validate_reports: %d documents checked, fewer than the %d expected" % (passed + failed, require))
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
