#!/usr/bin/env python3
"""prefilter_bound.py FACTS_DIR [--hot NAME]... [--costs FILE] [--stubs DIR] [--why] [--any-address] [--main-only]

What a sound prefilter could leave out (issue 15), read from one whole scan's facts (the
documents `hotscan scan --facts-dir DIR` writes: whole, no header body left out), with the
real (libclang) call graph, calls through function pointers resolved by slot as the merge does.

A TU is needed when leaving it out could change a finding; it is needed when
  - family: its document has a clock read, an event use or object, a non-plain atomic
    operation, or a plain/inactive use of a variable some TU applies an atomic operation to
    (plain reads decide the atomic verdict and "seen by N of M TUs");
  - hot-path: it defines a function on a path from a hot root to a clock reader (hotness,
    the shortest path, loop callers, strong/narrow edges and the constants hot callers pass
    all live on those paths; a hot path is also a warm one, so such readers are never
    cold-only);
  - cold-only: it defines an ancestor of a clock reader whose reads can be reported with no
    hot root (a read in a loop, or two reads in one function: in-loop and timer-duplicate
    findings read `cold_only`, which depends on every caller above);
  - blocking: it defines a function below such a reader and above a blocking call (a loop or
    a duplicate pair that blocks is not reported);
  - root: it defines a hot root;
  - store: it stores the address of a function into a slot a needed function calls through,
    or the address of a needed function (the indirect edges and their target counts).
"strict" keeps every TU that defines a needed function (what a prefilter reading each TU's
text alone must do: a header's inline function is defined by every TU including it); "one"
keeps one defining TU per function (the first), a lower bound no per-TU test reaches.

--costs FILE: lines "CPU-SECONDS PATH" per TU (build/parse_floor with PARSE_FLOOR_EACH=1
prints them on stderr) to weigh the skipped share of the parse floor. --stubs DIR: writes a
copy of FACTS_DIR with the "one" set's skipped TUs replaced by prefilter stubs, for
`hotscan judge` to show the findings are unchanged. Nothing here is specific to one tree.
"""
import argparse
import collections
import json
import os
import sys

FAMILY_KEYS = ("clock_reads", "events", "event_objects")


def load(dirname):
    docs = []
    for name in sorted(os.listdir(dirname)):
        if name.endswith(".json"):
            with open(os.path.join(dirname, name)) as f:
                docs.append((name, json.load(f)))
    return docs


def closure(start, edges):
    seen = set(start)
    todo = list(start)
    while todo:
        f = todo.pop()
        for g in edges.get(f, ()):
            if g not in seen:
                seen.add(g)
                todo.append(g)
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("facts")
    ap.add_argument("--hot", action="append", default=[])
    ap.add_argument("--costs")
    ap.add_argument("--stubs")
    ap.add_argument("--why", action="store_true", help="print each TU's reasons")
    ap.add_argument("--main-only", action="store_true",
                    help="count only atomic facts in the TU's main file (what a stub that carried the "
                         "header-borne uses and 'seen by' counts would leave)")
    ap.add_argument("--any-address", action="store_true",
                    help="a call through a pointer reaches every function whose address is stored")
    ap.add_argument("--ruledata", default=os.path.join(os.path.dirname(__file__), "..", "rules"))
    a = ap.parse_args()
    with open(os.path.join(a.ruledata, "timers", "timers.json")) as f:
        blocking_names = set(b if isinstance(b, str) else b.get("name") for b in json.load(f)["blocking_functions"])
    docs = load(a.facts)
    name_of, cold, hot_attr = {}, set(), set()
    defined_in = collections.defaultdict(list)   # usr -> [tu index]
    callees = collections.defaultdict(set)
    callers = collections.defaultdict(set)
    nonrare = collections.defaultdict(set)        # caller -> callees over edges the blocking walk follows
    slot_calls = collections.defaultdict(set)     # caller -> slots it calls through
    hot_edges = collections.defaultdict(set)      # the edges the hot walk follows (no error path)
    hot_slots = collections.defaultdict(set)
    stores = collections.defaultdict(set)         # slot -> functions
    store_tus = collections.defaultdict(set)      # tu -> {(slot, function)}
    reads = collections.defaultdict(list)
    atomics = []
    family = [False] * len(docs)
    for i, (_, d) in enumerate(docs):
        for fn in d.get("functions", []):
            name_of[fn["usr"]] = fn["name"]
            if fn.get("cold") or fn.get("noreturn"):
                cold.add(fn["usr"])
            if fn.get("hot"):
                hot_attr.add(fn["usr"])
            if fn.get("defined") and i not in defined_in[fn["usr"]]:
                defined_in[fn["usr"]].append(i)
        for s in d.get("fn_stores", []):
            stores[s["slot"]].add(s["function"])
            store_tus[i].add((s["slot"], s["function"]))
        for c in d.get("calls", []):
            if c.get("callee"):
                callees[c["caller"]].add(c["callee"])
                if not c.get("error_path") and not c.get("rare"):
                    nonrare[c["caller"]].add(c["callee"])
                if not c.get("error_path"):
                    hot_edges[c["caller"]].add(c["callee"])
            elif c.get("slot"):
                slot_calls[c["caller"]].add(c["slot"])
                if not c.get("error_path"):
                    hot_slots[c["caller"]].add(c["slot"])
        for r in d.get("clock_reads", []):
            reads[r.get("function")].append(r)
        if any(d.get(k) for k in FAMILY_KEYS):
            family[i] = True
        atomics.append(d.get("atomics", []))
    # The atomic rule's variables: those with an operation that has an order, and (to a fixed
    # point) what reaches a wrapper's parameter through an escape into it; an accessor's call
    # is a load of what it returns.
    real = lambda op: op.get("order") not in (None, "n/a")
    atomic_vars = {op.get("var") for ops in atomics for op in ops if real(op) and op.get("var")}
    escapes = [(op.get("var"), f"param:{op['callee']}:{op.get('arg')}")
               for ops in atomics for op in ops if op.get("op") == "escape" and op.get("callee")]
    grew = True
    while grew:
        grew = False
        for var, param in escapes:
            if var and param in atomic_vars and var not in atomic_vars:
                atomic_vars.add(var)
                grew = True
    returns = {}
    for ops in atomics:
        for op in ops:
            if op.get("op") == "returns" and op.get("function") not in returns:
                returns[op.get("function")] = op.get("var")
    for i, ops in enumerate(atomics):
        for op in ops:
            if a.main_only and op.get("file") != docs[i][1]["tu"]:
                continue
            var = returns.get(op["accessor_of"]) if op.get("accessor_of") else op.get("var")
            if real(op) or var in atomic_vars:
                family[i] = True
                break
    # Calls through a slot reach every function stored into it (hs_program_resolve_indirect);
    # with --any-address every function stored anywhere, as a by-name graph must assume.
    every = set().union(*stores.values()) if stores else set()
    targets = (lambda s: every) if a.any_address else (lambda s: stores.get(s, set()))
    for f, slots in slot_calls.items():
        for s in slots:
            callees[f] |= targets(s)
            nonrare[f] |= targets(s)
    for f, slots in hot_slots.items():
        for s in slots:
            hot_edges[f] |= targets(s)
    for f, gs in callees.items():
        for g in gs:
            callers[g].add(f)
    roots = {u for u, n in name_of.items() if n in a.hot} | hot_attr
    readers = {u for u in reads if u}
    # The hot walk never enters a cold function nor follows an error-path call.
    fwd_roots = closure(roots - cold, {f: gs - cold for f, gs in hot_edges.items()})
    up_readers = closure(readers, callers)
    hot_path = fwd_roots & up_readers
    # Readers reported without a hot root: a read in a loop, or two reads in one function.
    unhot = {u for u, rs in reads.items() if u and (any(r.get("in_loop") for r in rs) or len(rs) > 1)}
    # cold_only of a reader the hot walk reaches is false (a hot path is a warm one) and so is
    # that of one no cold function reaches; the others depend on every caller above them.
    from_cold = closure(cold, callees)
    unhot_cold = {u for u in unhot if u in from_cold and u not in fwd_roots}
    cold_only_deps = closure(unhot_cold, callers)
    rev_nonrare = collections.defaultdict(set)
    for f, gs in nonrare.items():
        for g in gs:
            rev_nonrare[g].add(f)
    blocking = closure({u for u, n in name_of.items() if n in blocking_names}, rev_nonrare)
    below = closure(unhot, callees) & blocking
    need = {"hot-path": hot_path, "cold-only": cold_only_deps, "blocking": below, "root": roots}
    needed = set().union(*need.values())
    called_slots = {s for f in needed for s in slot_calls.get(f, ())}

    def reasons_of(i, definers):
        why = []
        if family[i]:
            why.append("family")
        for tag, fs in need.items():
            if any(i in definers(u) for u in fs):
                why.append(tag)
        # By name (--any-address) a store into any slot feeds every call through a pointer.
        if any(s in called_slots or fn in needed or (a.any_address and called_slots)
               for s, fn in store_tus.get(i, ())):
            why.append("store")
        return why

    strict = [reasons_of(i, lambda u: defined_in.get(u, ())) for i in range(len(docs))]
    one = [reasons_of(i, lambda u: defined_in.get(u, ())[:1]) for i in range(len(docs))]
    costs = {}
    if a.costs:
        with open(a.costs) as f:
            for line in f:
                cpu, path = line.split(None, 1)
                costs[os.path.realpath(path.strip())] = float(cpu)
    tus = [d["tu"] for _, d in docs]
    floor = sum(costs.get(t, 0.0) for t in tus)
    if a.why:
        for i, t in enumerate(tus):
            print(f"{t}\tstrict: {','.join(strict[i]) or 'skip'}\tone: {','.join(one[i]) or 'skip'}")
    count = collections.Counter(r for rs in strict for r in rs)
    print(f"TUs {len(tus)}; functions {len(name_of)}; hot roots {len(roots)}; clock readers {len(readers)}; "
          f"hot-path functions {len(hot_path)}; readers reported without a root {len(unhot)} "
          f"({len(unhot_cold)} of them reached from cold code and not hot), "
          f"their ancestors {len(cold_only_deps)}; blocking below them {len(below)}")
    print("TUs needed by reason (strict): " + ", ".join(f"{k} {v}" for k, v in count.most_common()))
    for label, sets in (("strict", strict), ("one", one)):
        skip = [i for i in range(len(tus)) if not sets[i]]
        share = sum(costs.get(tus[i], 0.0) for i in skip)
        tail = f"; {share:.2f} of the floor's {floor:.2f} CPU-s ({share / floor:.1%})" if floor else ""
        print(f"{label}: {len(skip)} of {len(tus)} TUs could be left out ({len(skip) / max(len(tus), 1):.1%}){tail}")
    if a.stubs:
        os.makedirs(a.stubs, exist_ok=True)
        for i, (name, d) in enumerate(docs):
            if not one[i]:
                d = {"tu": d["tu"], "facts_version": d["facts_version"], "default_flags": d.get("default_flags", False),
                     "prefiltered": True, "command": d.get("command")}
            with open(os.path.join(a.stubs, name), "w") as f:
                json.dump(d, f)


if __name__ == "__main__":
    sys.exit(main())
