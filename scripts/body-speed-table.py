#!/usr/bin/env python3
"""The fused worker's cost per kernel alone, from the store live/body-speed-on-device.sh writes: for each one-launch
workload, the live runs carried out natively ("fifo (native)") and by the fused worker ("fifo (fused)"): mean block
time (end - start of the stamps) and makespan (the run's metrics), medians over the repeats, and fused / native.
Usage: scripts/body-speed-table.py body-speed.db"""
import sqlite3
import statistics
import sys
from collections import defaultdict

db = sqlite3.connect(sys.argv[1])
rows = db.execute(
    "SELECT r.workload, r.policy, (SELECT avg(end_ns - start_ns) FROM blocks b WHERE b.run_id = r.id), m.makespan_ns "
    "FROM runs r JOIN metrics m ON m.run_id = r.id WHERE r.mode = 'live' ORDER BY r.workload, r.id").fetchall()
runs = defaultdict(lambda: defaultdict(list))
for workload, policy, block, makespan in rows:
    way = "fused" if "fused" in policy else "native" if "native" in policy else policy
    runs[workload][way].append((block or 0.0, makespan))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


print("| kernel alone | runs | block native us | block fused us | fused / native | makespan native us | makespan fused us "
      "| fused / native |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for workload in sorted(runs):
    n, f = runs[workload]["native"], runs[workload]["fused"]
    bn, bf = med([b for b, _ in n]) / 1e3, med([b for b, _ in f]) / 1e3
    mn, mf = med([m for _, m in n]) / 1e3, med([m for _, m in f]) / 1e3
    print(f"| {workload} | {len(n)} / {len(f)} | {bn:.2f} | {bf:.2f} | {bf / bn:.3f} | {mn:.1f} | {mf:.1f} | {mf / mn:.3f} |")
