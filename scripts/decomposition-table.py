#!/usr/bin/env python3
"""Where each policy's turnaround errors come from, over repeats: a table from `gpusched-live validate --per-launch`
logs (plain or gzipped), whose per-launch rows split each launch's error into the shares of its first slot (start),
its block time (blocks: the model's part) and the slots it held at once (width: the dispatch's part); the three sum to
the error (core/store/run_comparison.h).

Per (workload, policy): launches over every repeat, the p90 of |error|, and over the tail (|error| >= TAIL %) how many
launches and the mean of each share's magnitude, in points of the predicted turnaround.
  python3 scripts/decomposition-table.py LOG [LOG...] [--tail 20]
A log's sections start with `== WORKLOAD repeat R` (as live/*-on-device.sh write them).
"""
import argparse
import gzip
import re
import sys
from collections import defaultdict

ROW = re.compile(r"^\d+\s+\S+\s+[\d.]+ \S+\s+[\d.]+ \S+\s+([+-][\d.]+)%\s+([+-][\d.]+)%\s+([+-][\d.]+)%\s+([+-][\d.]+)%$")
POLICY = re.compile(r"^([a-z][a-z0-9-]*)\s+(\S+)\s+\d+\s+\d+\s+[\d.]+ \S+\s+[\d.]+ \S+\s+[+-]")
SECTION = re.compile(r"^== (\S+) repeat (\d+)")


def percentile(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--tail", type=float, default=20.0, help="|error| in %% from which a launch is in the tail")
    args = ap.parse_args()
    rows = defaultdict(list)  # (workload, policy) -> [(err, start, blocks, width)]
    for path in args.logs:
        opener = gzip.open if path.endswith(".gz") else open
        try:
            lines = opener(path, "rt").read().splitlines()
        except OSError as e:
            sys.exit(f"{path}: {e}")
        workload = policy = None
        for line in lines:
            if m := SECTION.match(line):
                workload, policy = m.group(1), None
            elif m := POLICY.match(line):
                policy = m.group(1)
            elif (m := ROW.match(line)) and workload and policy:
                rows[(workload, policy)].append(tuple(float(x) for x in m.groups()))
    if not rows:
        sys.exit("no per-launch rows with start/blocks/width shares found (was validate run with --per-launch?)")
    print(f"| workload | policy | launches | p90 |error| % | tail (>= {args.tail:g} %) | start | blocks | width |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for (workload, policy), r in sorted(rows.items()):
        tail = [x for x in r if abs(x[0]) >= args.tail]
        p90 = percentile([abs(x[0]) for x in r], 0.9)
        mean = lambda i: sum(abs(x[i]) for x in tail) / len(tail) if tail else 0.0  # noqa: E731
        shares = " | ".join(f"{mean(i):.1f}" if tail else "-" for i in (1, 2, 3))
        print(f"| {workload} | {policy} | {len(r)} | {p90:.1f} | {len(tail)} | {shares} |")


if __name__ == "__main__":
    main()
