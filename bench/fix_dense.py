#!/usr/bin/env python3
"""bench/fix_dense.py - writes the fix-dense synthetic tree bench/fix_cost.py is measured on.

usage: fix_dense.py DIR [--tus 4] [--counters 40]

Each TU is C++ and includes <atomic>, <map>, <string> and <vector> (headers that take most
of a parse), declares COUNTERS `static std::atomic<long>` counters and bumps each one once
(`hits_T_I++`): every counter is a finding with a fix-it, so every TU carries COUNTERS
fix-its. DIR gets the sources and a compile_commands.json (-std=c++17 -O2).
"""
import json
import os
import sys

args = sys.argv[1:]
if not args or args[0] in ("-h", "--help"):
    sys.exit(__doc__)
out = os.path.abspath(args[0])
tus, counters = 4, 40
rest = args[1:]
while rest:
    if len(rest) < 2 or rest[0] not in ("--tus", "--counters"):
        sys.exit(__doc__)
    if rest[0] == "--tus":
        tus = int(rest[1])
    else:
        counters = int(rest[1])
    rest = rest[2:]
os.makedirs(out, exist_ok=True)
commands = []
for t in range(tus):
    lines = ["#include <atomic>", "#include <map>", "#include <string>", "#include <vector>", ""]
    lines += [f"static std::atomic<long> hits_{t}_{i};" for i in range(counters)]
    lines.append("std::map<std::string, int> table;")
    lines += [f"void bump_{t}_{i}(const std::string &k) {{ hits_{t}_{i}++; table[k]++; }}" for i in range(counters)]
    path = os.path.join(out, f"tu{t}.cpp")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)
    commands.append({"directory": out, "file": path,
                     "arguments": ["c++", "-std=c++17", "-O2", "-c", path, "-o", path + ".o"]})
with open(os.path.join(out, "compile_commands.json.tmp"), "w") as f:
    json.dump(commands, f, indent=1)
os.replace(os.path.join(out, "compile_commands.json.tmp"), os.path.join(out, "compile_commands.json"))
print(out)
