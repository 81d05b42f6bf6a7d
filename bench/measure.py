#!/usr/bin/env python3
"""bench/measure.py - run one command and report its wall time, CPU and peak memory.

usage: measure.py [--json] [--stdout FILE] -- COMMAND [ARG...]

Reports, for the command and every process it forks (hotscan's supervisor and workers):

  wall       seconds from start to exit
  cpu        user + system CPU seconds of the command and its waited-for children
  maxrss     peak RSS of the largest single process (getrusage RUSAGE_CHILDREN ru_maxrss,
             or /usr/bin/time -v's "Maximum resident set size" when /usr/bin/time exists:
             both come from the same wait4 rusage and give the same number; set
             MEASURE_NO_GNU_TIME=1 to use getrusage even where /usr/bin/time exists)
  sum_rss    peak of the summed RSS of the command and all its descendants, sampled
             from /proc every 50 ms (the tree from /proc/PID/task/TID/children; where the
             kernel lacks those, the command's process group). Pages shared between processes (libclang's code, copy-on-write
             pages a worker inherited from the supervisor) count once per process, so
             this is an upper bound
  sum_uss    peak of the summed private memory (USS: Private_Clean + Private_Dirty of
             /proc/PID/smaps_rollup) of the same processes, sampled every 50 ms but
             throttled to 5% of the sampler's time (smaps_rollup is slow on big processes
             and holds their memory lock: a 6 GB scan gets a sample about every 5 s, so the
             peak can be missed by what grows in that time): pages no
             other process maps, so a lower bound. The scan's real footprint lies between
             sum_uss and sum_rss. (PSS is left out on purpose: it splits libclang's pages
             with every other process on the machine that maps them, so it moves with
             what other users run.)

The command runs in a new session (its own process group, pgid = its pid). A process that
lives less than 50 ms between two samples can be missed by the sums (never by maxrss).
Exit status is the command's. Without --json prints "wall cpu maxrss_kb sum_rss_kb
sum_uss_kb exit_status" on one line.
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def group_pids(pgid):
    """Every process whose process group is pgid (a scan of /proc: a few ms)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the command name, which is in parentheses and may hold spaces.
        rest = stat[stat.rfind(b")") + 2:].split()
        if int(rest[2]) == pgid:   # field 5: pgrp
            pids.append(int(name))
    return pids


def tree_pids(root):
    """root and all its descendants, from /proc/PID/task/TID/children (tens of us); None
    where the kernel lacks those files."""
    if not os.path.exists(f"/proc/{root}/task/{root}/children"):
        return None
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                pass
    return pids


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE_KB
    except (OSError, ValueError, IndexError):
        return 0


def uss_kb(pid):
    uss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    uss += int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return uss


def sampler(root, skip, done, peak):
    # RSS (statm) is cheap: every 50 ms. smaps_rollup walks the page tables under the
    # process's memory lock (about 40 ms per GB here), so USS is sampled at most 5% of
    # the time: after a sample that took t seconds, the next comes 20 t later (at least
    # 50 ms: a 6 GB process gets one every ~5 s).
    next_uss = 0.0
    while not done.is_set():
        pids = tree_pids(root)
        if pids is None:
            pids = group_pids(root)
        pids = [p for p in pids if p not in skip]
        peak["rss"] = max(peak["rss"], sum(rss_kb(p) for p in pids))
        now = time.monotonic()
        if now >= next_uss:
            peak["uss"] = max(peak["uss"], sum(uss_kb(p) for p in pids))
            took = time.monotonic() - now
            next_uss = now + max(0.05, 20 * took)
        done.wait(0.05)


def measure(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd (call once per Python process: see maxrss above); returns a dict with wall, cpu, maxrss_kb, sum_rss_kb, sum_uss_kb, status,
    source (where maxrss and cpu came from)."""
    gnu_time = None if os.environ.get("MEASURE_NO_GNU_TIME") else shutil.which("time", path="/usr/bin")
    timefile = None
    argv = list(cmd)
    if gnu_time:
        fd, timefile = tempfile.mkstemp(prefix="measure-time.")
        os.close(fd)
        argv = [gnu_time, "-v", "-o", timefile] + argv
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    # The command is in its own session: pass a TERM or an INT on to its whole group, or
    # killing this script would leave the scan running.
    stopped = []

    def forward(signum, _frame):
        stopped.append(signum)
        try:
            os.killpg(proc.pid, signum)
        except OSError:
            pass
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    peak = {"rss": 0, "uss": 0}
    done = threading.Event()
    # /usr/bin/time itself is in the group; leave it out of the sums.
    skip = {proc.pid} if gnu_time else set()
    th = threading.Thread(target=sampler, args=(proc.pid, skip, done, peak), daemon=True)
    th.start()
    status = proc.wait()
    wall = time.monotonic() - t0
    done.set()
    th.join()
    if stopped:
        if timefile:
            os.unlink(timefile)
        sys.exit(128 + stopped[0])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {
        "wall": wall,
        "status": status,
        "sum_rss_kb": peak["rss"],
        "sum_uss_kb": peak["uss"],
    }
    if gnu_time:
        fields = {}
        with open(timefile) as f:
            for line in f:
                key, _, value = line.strip().rpartition(": ")
                fields[key] = value
        os.unlink(timefile)
        out["maxrss_kb"] = int(fields["Maximum resident set size (kbytes)"])
        out["cpu"] = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
        out["source"] = "/usr/bin/time -v"
        if fields.get("Exit status") is not None:
            out["status"] = int(fields["Exit status"])
    else:
        # ru_maxrss of RUSAGE_CHILDREN is the largest of all descendants this process ever
        # waited for: exact here because each measure.py runs one command.
        out["maxrss_kb"] = after.ru_maxrss
        out["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out["source"] = "getrusage(RUSAGE_CHILDREN)"
    return out


def main(argv):
    as_json = False
    stdout = subprocess.DEVNULL
    while argv and argv[0] != "--":
        opt = argv.pop(0)
        if opt == "--json":
            as_json = True
        elif opt == "--stdout":
            stdout = open(argv.pop(0), "wb")
        else:
            sys.exit(__doc__)
    if not argv or len(argv) < 2:
        sys.exit(__doc__)
    r = measure(argv[1:], stdout)
    if as_json:
        print(json.dumps(r))
    else:
        print(f"{r['wall']:.2f} {r['cpu']:.2f} {r['maxrss_kb']} {r['sum_rss_kb']} "
              f"{r['sum_uss_kb']} {r['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
