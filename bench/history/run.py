#!/usr/bin/env python3
# bench/history/run.py - the history-replay benchmark: for each case of cases.json (a fix a
# project's maintainers made for one of hotscan's reasons), extract the fix's parent commit from
# a local mirror, make its compile database with the case's recipe, scan it with hotscan at the
# case's hot roots, and say whether hotscan finds the line the fix changed (found) and whether
# that finding is shown at the default confidence (shown). A benchmark, not a test: it exits 0
# whatever the result, and non-zero only on a setup error (no mirror, a recipe that fails, a
# case file missing from the compile database, a hotscan run that fails).
#
#   bench/history/run.py [--hotscan PATH] [--label NAME] [--no-case-rules] [--work DIR]
#                        [--mirrors DIR] [--reuse-scans] [--only-ready] [--json FILE]
#                        [FILTER...]
#   bench/history/run.py --compare A.json B.json...
#
# FILTER selects cases whose id, project or rule contains it. Extracted trees, compile
# databases, logs and reports go to --work ($HOTSCAN_HISTORY_WORK, default
# /tmp/hotscan-history), never into the repository; an existing tree and database are reused.
import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The recipes build no program: configure (or cmake/meson setup) runs, then make runs under
# bear with a no-op compiler first on PATH, so the database holds the real flags and the
# generated headers exist, but no object or binary is produced.
SHIM = """#!/bin/sh
# no-op compiler for bench/history recipes: records nothing itself (bear does), writes an
# empty file where -o names one so that make goes on, and succeeds
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
[ -n "$out" ] && : > "$out"
exit 0
"""
# A no-op libtool beside it: libtool's own shell script runs a dozen programs per source file,
# each of them traced by bear, and makes the no-op make of a libtool project take half an hour
# on 2 cores. In compile mode this one runs the compiler command it is given (the no-op
# compiler, which bear records, with the flags libtool would pass less -fPIC -DPIC); in the
# other modes it writes the -o file and succeeds.
LIBTOOL_SHIM = """#!/bin/sh
# no-op libtool for bench/history recipes
mode=""
while [ $# -gt 0 ]; do
    case "$1" in
    --mode=*) mode="${1#--mode=}"; shift ;;
    --mode) mode="$2"; shift 2 ;;
    --tag) shift 2 ;;
    --*|-v|-n) shift ;;
    *) break ;;
    esac
done
if [ "$mode" = compile ]; then
    for a in "$@"; do
        shift
        case "$a" in -prefer-pic|-prefer-non-pic|-no-suppress|-static|-shared) ;;
        *) set -- "$@" "$a" ;; esac
    done
    exec "$@"
fi
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
[ -n "$out" ] && : > "$out"
exit 0
"""
SHIM_NAMES = {"cc": "cc", "gcc": "gcc", "c++": "c++", "g++": "g++", "clang": "clang",
              "clang++": "clang++"}


class SetupError(Exception):
    """A case cannot be measured here: no mirror, a recipe that fails, a file not built."""


def die(msg):
    sys.stderr.write("history: error: %s\n" % msg)
    sys.exit(2)


def sh(cmd, cwd, log, env=None):
    with open(log, "a") as f:
        f.write("$ %s\n" % cmd)
        f.flush()
        r = subprocess.run(["bash", "-eo", "pipefail", "-c", cmd], cwd=cwd, stdout=f,
                           stderr=subprocess.STDOUT, env=env)
    return r.returncode


def write_shim(work):
    d = os.path.join(work, ".shim")
    os.makedirs(d, exist_ok=True)
    for name in SHIM_NAMES:
        p = os.path.join(d, name)
        if not os.path.exists(p):
            with open(p, "w") as f:
                f.write(SHIM)
            os.chmod(p, 0o755)
    p = os.path.join(d, "hh-libtool")
    if not os.path.exists(p):
        with open(p, "w") as f:
            f.write(LIBTOOL_SHIM)
        os.chmod(p, 0o755)
    return d


def load_cases(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))
    recipes = doc.get("recipes", {})
    cases = doc.get("cases", [])
    need = ["id", "project", "repo", "fix", "parent", "file", "lines", "rule", "hot",
            "recipe", "reading"]
    for c in cases:
        for k in need:
            if k not in c:
                die("%s: case %s has no '%s'" % (path, c.get("id", "?"), k))
        if c["recipe"] not in recipes:
            die("%s: case %s names recipe '%s', which recipes does not define"
                % (path, c["id"], c["recipe"]))
    return recipes, cases


def tree_dir(work, case):
    return os.path.join(work, "%s-%s" % (case["project"], case["parent"][:12]))


def extract(mirrors, work, case):
    top = tree_dir(work, case)
    src = os.path.join(top, "src")
    if os.path.isfile(os.path.join(top, ".extracted")):
        return top, src
    git_dir = os.path.join(mirrors, case["repo"].replace("/", "+"), "repo")
    if not os.path.isdir(git_dir):
        raise SetupError("no mirror of %s at %s (bring it with the search tool's fetch, or set "
            "--mirrors)" % (case["repo"], git_dir))
    if os.path.isdir(src):
        shutil.rmtree(src)
    os.makedirs(src)
    arch = subprocess.Popen(["git", "--git-dir", git_dir, "archive", case["parent"]],
                            stdout=subprocess.PIPE)
    tar = subprocess.run(["tar", "x", "-C", src], stdin=arch.stdout)
    arch.stdout.close()
    if arch.wait() != 0 or tar.returncode != 0:
        raise SetupError("could not extract %s at %s from %s" % (case["repo"], case["parent"], git_dir))
    open(os.path.join(top, ".extracted"), "w").close()
    return top, src


def fix_database(db, shim):
    """Name the real compilers instead of the no-op ones, and drop duplicate entries."""
    with open(db) as f:
        entries = json.load(f)
    seen, out = set(), []
    for e in entries:
        args = e.get("arguments")
        if args and args[0].startswith(shim + "/"):
            args[0] = SHIM_NAMES.get(os.path.basename(args[0]), "cc")
        if "command" in e and e["command"].startswith(shim + "/"):
            e["command"] = e["command"][len(shim) + 1:]
        key = (e.get("directory"), e.get("file"))
        if key in seen:
            continue
        seen.add(key)
        out.append(e)
    with open(db, "w") as f:
        json.dump(out, f, indent=1)
    return out


def make_database(recipes, work, case, top, src, shim):
    recipe = recipes[case["recipe"]]
    db = os.path.join(src, recipe["database"])
    done = os.path.join(top, ".database")
    if os.path.isfile(done) and os.path.isfile(db):
        fix_database(db, shim)
        return db
    log = os.path.join(top, "recipe.log")
    env = dict(os.environ)
    env["HH_SHIM"] = shim
    # one autoconf cache per recipe, shared by that project's parents: the checks that
    # configure compiles and runs give the same answers on this machine for every parent,
    # and a later parent's configure then takes a fraction of the time
    cache_dir = os.path.join(work, ".config-cache")
    os.makedirs(cache_dir, exist_ok=True)
    env["HH_CONFIG_CACHE"] = os.path.join(cache_dir, case["recipe"] + ".cache")
    env["HH_MAKE"] = ("env PATH=%s:%s bear --output compile_commands.json -- make -k -j2 "
                      "LIBTOOL=%s/hh-libtool" % (shim, env.get("PATH", "/usr/bin:/bin"), shim))
    t0 = time.time()
    for step in recipe["steps"]:
        rc = sh(step, src, log, env)
        if rc != 0 and not recipe.get("ignore_failures", False):
            raise SetupError("recipe %s failed at '%s' (exit %d) for %s; see %s"
                % (case["recipe"], step, rc, os.path.basename(top), log))
    if not os.path.isfile(db):
        raise SetupError("recipe %s made no %s for %s; see %s" % (case["recipe"], recipe["database"],
                                                    os.path.basename(top), log))
    fix_database(db, shim)
    with open(done, "w") as f:
        f.write("%.0f s\n" % (time.time() - t0))
    return db


def scan(hotscan, top, src, db, group, reuse):
    hot, rules, paths = group
    args = [hotscan, "scan", "-q", "-p", db, "--root", src, "--format", "json",
            "--min-confidence", "low", "--exit-zero", "-j2", "--no-cache"]
    for h in hot:
        args += ["--hot", h]
    for r in rules:
        args += ["--rules", os.path.join(HERE, r)]
    args += [os.path.join(src, p) for p in paths]
    key = hashlib.sha1("\0".join(args).encode()).hexdigest()[:10]
    out = os.path.join(top, "report-%s.json" % key)
    log = os.path.join(top, "scan-%s.log" % key)
    if (reuse and os.path.isfile(out)
            and os.path.getmtime(out) > os.path.getmtime(hotscan)):
        with open(out) as f:
            return json.load(f), 0.0, out
    t0 = time.time()
    with open(log, "w") as f:
        r = subprocess.run(args + ["-o", out], stdout=f, stderr=subprocess.STDOUT)
    secs = time.time() - t0
    # exit 2 with a report: some TU had compile errors (listed in the report's errors)
    if r.returncode not in (0, 2) or not os.path.isfile(out):
        die("hotscan failed (exit %d) on %s; see %s" % (r.returncode, os.path.basename(top),
                                                        log))
    with open(out) as f:
        return json.load(f), secs, out


def match(case, report):
    """The best finding of the case's rule at its file and lines, or whose hot path calls
    through one of them. Returns (finding, how) or (None, None)."""
    lines = set(case["lines"])
    best, how, rank = None, None, -1
    order = {"low": 0, "medium": 1, "high": 2}
    for f in report.get("findings", []):
        if f.get("rule") != case["rule"]:
            continue
        here = None
        if f.get("file") == case["file"] and (
                lines & set(range(f.get("line", 0), f.get("end_line", f.get("line", 0)) + 1))):
            here = "at the line"
        else:
            for step in f.get("hot_path", [])[:-1]:
                if step.get("file") == case["file"] and step.get("line") in lines:
                    here = "through the call"
                    break
        if here and order.get(f.get("confidence"), 0) > rank:
            best, how, rank = f, here, order.get(f.get("confidence"), 0)
    return best, how


def nearest(case, report, n=2):
    out = []
    for f in report.get("findings", []):
        if f.get("file") == case["file"]:
            d = min(abs(f.get("line", 0) - l) for l in case["lines"])
            out.append((d, f))
    out.sort(key=lambda x: x[0])
    return [f for _, f in out[:n]]


def main():
    ap = argparse.ArgumentParser(description="history-replay benchmark for hotscan")
    ap.add_argument("filters", nargs="*", help="cases whose id, project or rule contains it")
    ap.add_argument("--hotscan", default=os.environ.get("HOTSCAN"),
                    help="the hotscan binary (default: $HOTSCAN)")
    ap.add_argument("--work", default=os.environ.get("HOTSCAN_HISTORY_WORK",
                                                     "/tmp/hotscan-history"))
    ap.add_argument("--mirrors", default=os.environ.get("HOTSCAN_HISTORY_MIRRORS",
                                                        "/work/.mirror"),
                    help="folder of bare mirrors, OWNER+NAME/repo (default /work/.mirror)")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    ap.add_argument("--reuse-scans", action="store_true",
                    help="use a report already in the work folder for the same scan, when it "
                         "is newer than the hotscan binary, instead of scanning again")
    ap.add_argument("--only-ready", action="store_true",
                    help="leave out the cases whose compile database is not made yet")
    ap.add_argument("--json", help="also write the per-case results as JSON to this file")
    ap.add_argument("--label", help="a name for this run (the binary, the options), written "
                                    "to --json and shown by --compare")
    ap.add_argument("--no-case-rules", action="store_true",
                    help="scan without the cases' own rule data (their 'rules' field)")
    ap.add_argument("--compare", nargs="+", metavar="JSON",
                    help="print the results of earlier runs (their --json files) side by side "
                         "and run nothing")
    ap.add_argument("--markdown", action="store_true",
                    help="with --compare: print the table and the totals as Markdown")
    a = ap.parse_args()
    if a.compare:
        return compare(a.compare, a.markdown)
    if not a.hotscan:
        die("no hotscan: pass --hotscan PATH or set HOTSCAN")
    hotscan = os.path.abspath(a.hotscan)
    if not os.access(hotscan, os.X_OK):
        die("%s is not an executable" % hotscan)
    work = os.path.abspath(a.work)
    repo_top = subprocess.run(["git", "-C", HERE, "rev-parse", "--show-toplevel"],
                              capture_output=True, text=True).stdout.strip()
    if repo_top and (work + "/").startswith(repo_top + "/"):
        die("--work %s is inside the repository; use a folder outside it" % work)
    for tool in ("git", "tar", "bear", "make"):
        if not shutil.which(tool):
            die("%s is not installed (see bench/history/README.md for the packages)" % tool)
    recipes, cases = load_cases(a.cases)
    if a.filters:
        cases = [c for c in cases if any(x in c["id"] or x == c["project"] or x == c["rule"]
                                         for x in a.filters)]
    if not cases:
        die("no case matches %s" % " ".join(a.filters))
    os.makedirs(work, exist_ok=True)
    shim = write_shim(work)

    label = a.label or os.path.basename(hotscan) + (" (no case rules)" if a.no_case_rules
                                                    else "")
    reports = {}
    results = []
    t_start = time.time()
    skipped = []
    setup_failed = []
    for c in cases:
        if a.only_ready and not os.path.isfile(os.path.join(tree_dir(work, c), ".database")):
            skipped.append(c["id"])
            continue
        # one lock per parent: runners started side by side (one per filter) never prepare
        # the same tree at once
        os.makedirs(tree_dir(work, c), exist_ok=True)
        try:
            with open(tree_dir(work, c) + ".lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                top, src = extract(a.mirrors, work, c)
                db = make_database(recipes, work, c, top, src, shim)
            with open(db) as f:
                files = {os.path.normpath(os.path.join(e.get("directory", ""), e["file"]))
                         for e in json.load(f)}
            if os.path.normpath(os.path.join(src, c["file"])) not in files:
                raise SetupError("%s is not in the compile database %s" % (c["file"], db))
        except SetupError as e:
            sys.stderr.write("history: case %s not measured: %s\n" % (c["id"], e))
            setup_failed.append((c["id"], str(e)))
            continue
        rules = [] if a.no_case_rules else c.get("rules", [])
        group = (tuple(c["hot"]), tuple(rules), tuple(c.get("paths", [])))
        key = (top, group)
        if key not in reports:
            sys.stderr.write("history: scanning %s ...\n" % os.path.basename(top))
            reports[key] = scan(hotscan, top, src, db, group, a.reuse_scans)
        report, secs, path = reports[key]
        f, how = match(c, report)
        bad = [e for e in report.get("errors", []) if e.get("file") == c["file"]]
        if bad:
            sys.stderr.write("history: warning: case %s: %s had compile errors: %s\n"
                             % (c["id"], c["file"], bad[0].get("message", "")[:200]))
        r = {"id": c["id"], "project": c["project"], "rule": c["rule"], "label": label,
             "case_rules": list(rules),
             "found": f is not None,
             "shown": f is not None and f.get("confidence") in ("medium", "high"),
             "confidence": f.get("confidence") if f else None,
             "how": how, "message": f.get("message", "")[:70] if f else "",
             "report": path, "compile_errors_in_file": bool(bad),
             "scan_errors": len(report.get("errors", [])),
             "nearest": [] if f else ["%s:%d %s %s %s" % (n["file"], n["line"], n["rule"],
                                                            n["confidence"],
                                                            n["message"][:60])
                                      for n in nearest(c, report)]}
        results.append(r)

    print("%-28s %-9s %-21s %-5s %-5s %s" % ("case", "project", "rule", "found", "shown",
                                              "finding (or nearest in the file)"))
    for r in results:
        detail = ("%s %s: %s" % (r["confidence"], r["how"], r["message"]) if r["found"]
                  else "; ".join(r["nearest"]) or "no finding in the file")
        print("%-28s %-9s %-21s %-5s %-5s %s" % (r["id"], r["project"], r["rule"],
                                                  "yes" if r["found"] else "no",
                                                  "yes" if r["shown"] else "no", detail))
    print()
    rules = sorted({r["rule"] for r in results})
    for rule in rules + [None]:
        sel = [r for r in results if rule is None or r["rule"] == rule]
        print("%-22s found %d/%d, shown %d/%d" % (rule or "total", sum(r["found"] for r in sel),
                                                 len(sel), sum(r["shown"] for r in sel),
                                                 len(sel)))
    print("(%d scans, %.0f s)" % (len(reports), time.time() - t_start))
    if skipped:
        print("not run (no compile database yet): %s" % " ".join(skipped))
    for cid, why in setup_failed:
        print("not measured (set-up failed): %s: %s" % (cid, why))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 2 if setup_failed else 0


def compare(paths, markdown=False):
    """Print runs side by side: per case found/shown for each run, then the totals."""
    runs = []
    for p in paths:
        try:
            with open(p) as f:
                res = json.load(f)
        except (OSError, ValueError) as e:
            die("%s: %s" % (p, e))
        label = (res[0].get("label") if res else None) or os.path.basename(p)
        runs.append((label, {r["id"]: r for r in res}))
    ids, meta = [], {}
    for _, by in runs:
        for i, r in by.items():
            if i not in meta:
                ids.append(i)
                meta[i] = r

    def cell(r):
        if r is None:
            return "-"
        return "%s/%s" % ("yes" if r["found"] else "no", "yes" if r["shown"] else "no")

    def totals(rule):
        out = []
        for _, by in runs:
            sel = [r for r in by.values() if rule is None or r["rule"] == rule]
            out.append("%d/%d found, %d shown" % (sum(r["found"] for r in sel), len(sel),
                                                  sum(r["shown"] for r in sel)))
        return out

    rules = sorted({m["rule"] for m in meta.values()})
    if markdown:
        print("| case | project | rule | %s |" % " | ".join(l for l, _ in runs))
        print("|---|---|---|%s" % ("---|" * len(runs)))
        for i in ids:
            print("| %s | %s | %s | %s |" % (i, meta[i]["project"], meta[i]["rule"],
                                            " | ".join(cell(by.get(i)) for _, by in runs)))
        print()
        print("| rule | %s |" % " | ".join(l for l, _ in runs))
        print("|---|%s" % ("---|" * len(runs)))
        for rule in rules + [None]:
            print("| %s | %s |" % (rule or "total", " | ".join(totals(rule))))
        return 0
    print("found/shown per run:")
    for n, (label, _) in enumerate(runs):
        print("  [%d] %s" % (n + 1, label))
    print("%-30s %-10s %-22s %s" % ("case", "project", "rule",
                                    " ".join("%-8s" % ("[%d]" % (n + 1))
                                             for n in range(len(runs)))))
    for i in ids:
        print("%-30s %-10s %-22s %s" % (i, meta[i]["project"], meta[i]["rule"],
                                        " ".join("%-8s" % cell(by.get(i)) for _, by in runs)))
    print()
    for rule in rules + [None]:
        print("%-22s %s" % (rule or "total", " | ".join(totals(rule))))
    return 0

if __name__ == "__main__":
    sys.exit(main())
