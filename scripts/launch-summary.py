#!/usr/bin/env python3
# Reads a Schedule CSV (gpusched sim --stream-schedule, gpusched export --csv) to see where an executed plan left its
# prediction (docs/validation.md, "Samples on a green context"). By default, per launch: when its 1st, 10th, 100th
# and last blocks started and when it finished, in us. With --sms, every block on those SMs that ran within --window.
#   python3 scripts/launch-summary.py A.csv [B.csv ...] [--sms 0,1 --window 150,520]
import argparse
import collections
import csv

parser = argparse.ArgumentParser()
parser.add_argument("csv", nargs="+")
parser.add_argument("--sms", help="comma-separated SMs: list their blocks instead")
parser.add_argument("--window", default="0,1e18", help="FROM,TO in us (with --sms)")
args = parser.parse_args()

for f in args.csv:
    rows = list(csv.DictReader(open(f)))
    print(f)
    if args.sms:
        sms = set(args.sms.split(","))
        lo, hi = (float(x) * 1e3 for x in args.window.split(","))
        sel = [r for r in rows if r["sm"] in sms and int(r["end_ns"]) > lo and int(r["start_ns"]) < hi]
        for r in sorted(sel, key=lambda r: int(r["start_ns"])):
            print(f"  sm{r['sm']:>3} {r['launch']:14s} block {r['block']:>6} {int(r['start_ns']) / 1e3:9.1f} "
                  f"{int(r['end_ns']) / 1e3:9.1f}")
        continue
    by = collections.defaultdict(list)
    for r in rows:
        by[r["launch"]].append(r)
    for launch, rs in by.items():
        starts = sorted(int(r["start_ns"]) for r in rs)
        nth = lambda n: starts[min(n - 1, len(starts) - 1)] / 1e3
        finish = max(int(r["end_ns"]) for r in rs) / 1e3
        print(f"  {launch:14s} first {nth(1):9.1f} 10th {nth(10):9.1f} 100th {nth(100):9.1f} last {starts[-1] / 1e3:9.1f} "
              f"finish {finish:9.1f}")
