#!/usr/bin/env python3
"""Medians over repeats of docs/validation/executor.csv (per workload and policy) beside the turnaround-error split
that `gpusched-live validate` prints ("plan adherence" lines of a log such as docs/validation/adherence-h100.*.txt).
Usage: scripts/adherence-table.py executor.csv [validate.log]"""
import csv
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        rows[(r["workload"], r["policy"].split("/")[0])].append(r)

split = defaultdict(list)  # (workload, policy) -> [(executor, model, release, order)] per execution
if len(sys.argv) > 2:
    pending, policy = [], None  # a block of executions ends with "validate WORKLOAD repeat R exit N"
    for line in open(sys.argv[2]):
        m = re.match(r"(\S+)\s+none\s+\d+\s+\d+", line)
        if m:
            policy = m.group(1)
        m = re.search(r"executor ([-+\d.]+)%, model ([-+\d.]+)%, release ([-+\d.]+)%, order ([-+\d.]+)%", line)
        if m and policy:
            pending.append((policy, tuple(float(x) for x in m.groups())))
        m = re.match(r"validate (\S+) repeat \d+ exit", line)
        if m:
            for p, parts in pending:
                split[(m.group(1), p)].append(parts)
            pending = []

def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs):
    return f"{med(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"


print("| workload | policy | runs | turnaround err median % | p90 % | makespan err % | hand-off delay median us | p99 us |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for (w, p), rs in sorted(rows.items()):
    f = lambda k: [float(r[k]) for r in rs if r[k] != ""]
    print(f"| {w} | {p} | {len(rs)} | {spread(f('turnaround_err_median_pct'))} | {spread(f('turnaround_err_p90_pct'))} | "
          f"{spread([abs(x) for x in f('makespan_err_pct')])} | {med(f('start_delay_median_us')):.1f} | "
          f"{med(f('start_delay_p99_us')):.0f} |")

if split:
    print()
    print("| workload | policy | executor % | model % | release % | order % |")
    print("|---|---|---:|---:|---:|---:|")
    for (w, p), xs in sorted(split.items()):
        print(f"| {w} | {p} | " + " | ".join(f"{med([x[i] for x in xs]):+.1f}" for i in range(4)) + " |")
