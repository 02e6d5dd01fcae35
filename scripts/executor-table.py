#!/usr/bin/env python3
"""Medians over repeats of an executor CSV (docs/validation/executor.csv: one row per execution of
`gpusched-live validate --csv`), per workload and policy, as the Markdown table of docs/validation.md: per-launch
turnaround error median and p90, makespan error (median over the executions, range in brackets), start delay (hand-offs, or part starts where the
hardware placed the blocks: docs/validation.md, "Start delays where the hardware places the blocks").
Usage: scripts/executor-table.py executor.csv"""
import csv
import statistics
import sys
from collections import defaultdict

groups = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    groups[(row["workload"], row["policy"].split("/")[0])].append(row)


def spread(xs):
    xs = sorted(xs)
    return f"{statistics.median(xs):.1f} ({xs[0]:.1f}-{xs[-1]:.1f})" if len(xs) > 1 else f"{xs[0]:.1f}"


print("| workload | policy | runs | turnaround err median % | p90 % | makespan err % | start delay median us | p99 us |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
counts = defaultdict(lambda: [0, 0, 0, 0, 0])  # gpu -> pairs, turnarounds in, delays measured, in signed, in by size
for (workload, policy), rows in sorted(groups.items()):
    col = lambda c: [float(r[c]) for r in rows if r.get(c, "") != ""]
    delay = col("start_delay_median_us")
    p99 = col("start_delay_p99_us")
    print(f"| {workload} | {policy} | {len(rows)} | {spread(col('turnaround_err_median_pct'))} | "
          f"{spread(col('turnaround_err_p90_pct'))} | {spread(col('makespan_err_pct'))} | "
          f"{statistics.median(delay):.1f} | {statistics.median(p99):.0f} |" if delay else
          f"| {workload} | {policy} | {len(rows)} | {spread(col('turnaround_err_median_pct'))} | "
          f"{spread(col('turnaround_err_p90_pct'))} | {spread(col('makespan_err_pct'))} | native | native |")
    c = counts[workload.rsplit("-", 1)[-1]]  # the GPU's tag ends the workload's name (validate-h100)
    c[0] += 1
    c[1] += statistics.median(col("turnaround_err_median_pct")) < 10 and statistics.median(
        col("turnaround_err_p90_pct")) < 25
    if delay:
        median_delay, p99_in = statistics.median(delay), statistics.median(p99) < 50
        c[2] += 1
        c[3] += median_delay < 5 and p99_in
        c[4] += abs(median_delay) < 5 and p99_in

print()
for gpu, (pairs, turnarounds, measured, signed, by_size) in sorted(counts.items()):
    print(f"{gpu}: turnarounds within the bound {turnarounds} / {pairs}; start delays within the bound "
          f"{signed} / {measured} measured (median signed), {by_size} / {measured} (median by size)")
