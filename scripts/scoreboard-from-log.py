#!/usr/bin/env python3
"""The scoreboard of docs/validation.md on the other error scale: from a log of `gpusched-live validate --per-launch`
runs as live/adherence-on-device.sh writes it (each run's per-launch tables, then "validate WORKLOAD repeat R exit
N"), each launch's error as validate prints it, (live - predicted) / predicted, where executor.csv's is
|measured - predicted| / measured (a launch 2.4 times its planned turnaround is +137 % here and 58 % there). Prints
per workload and policy the median over repeats of the per-launch |error| median and p90 (nearest rank), and how many
pairs are within the issue's 10 % / 25 % bound.
Usage: scripts/scoreboard-from-log.py adherence-h200.log[.gz]"""
import collections
import gzip
import math
import re
import statistics
import sys


def nearest_rank(values, q):
    v = sorted(values)
    return v[max(0, math.ceil(q * len(v)) - 1)]


if len(sys.argv) != 2:
    raise SystemExit("usage: scripts/scoreboard-from-log.py LOG[.gz]")
path = sys.argv[1]
try:
    text = (gzip.open(path, "rt") if path.endswith(".gz") else open(path)).read()
except (OSError, UnicodeDecodeError) as e:
    raise SystemExit(f"scoreboard-from-log: {path}: {e.strerror if isinstance(e, OSError) and e.strerror else e}")
runs = collections.defaultdict(list)  # (workload, policy) -> per repeat, the launches' errors in %
policy, errors, pending = None, [], []
for line in text.split("\n"):
    m = re.match(r"^([a-z][a-z0-9-]*) +\S+:\S*|^([a-z][a-z0-9-]*) +(none|residency|equivalent|age|markov)\b", line)
    if m and re.search(r" ms +[-+][\d.]+% ", line):
        if policy and errors:
            pending.append((policy, errors))
        policy, errors = (m.group(1) or m.group(2)), []
        continue
    m = re.match(r"^\d+ +\S+ +[\d.]+ [mu]?s +[\d.]+ [mu]?s +([-+][\d.]+)%", line)
    if m and policy:
        errors.append(float(m.group(1)))
        continue
    m = re.match(r"^validate (\S+) repeat (\d+) exit", line)
    if m:
        if policy and errors:
            pending.append((policy, errors))
        for p, e in pending:
            runs[(m.group(1), p)].append(e)
        policy, errors, pending = None, [], []
if not runs:
    raise SystemExit(f"scoreboard-from-log: no per-launch tables in {path} (was validate run with --per-launch?)")
print("| workload | policy | runs | turnaround err median % | p90 % | within |")
print("|---|---|---:|---:|---:|---|")
within = 0
for (workload, pol), reps in sorted(runs.items()):
    med = statistics.median(nearest_rank([abs(x) for x in e], 0.5) for e in reps)
    p90 = statistics.median(nearest_rank([abs(x) for x in e], 0.9) for e in reps)
    ok = med < 10 and p90 < 25
    within += ok
    print(f"| {workload} | {pol} | {len(reps)} | {med:.1f} | {p90:.1f} | {'yes' if ok else 'no'} |")
print(f"\nwithin 10 % / 25 %: {within} of {len(runs)}")
