#!/usr/bin/env python3
# The ladder table of docs/interference.md ("A ladder of partner blocks"): from co-run records made with several
# partner counts (gpusched-live record-pairs --mix 0.25:F --mix F:0.25 ...), the mean slowdown (corun / alone) of each
# victim beside one partner kernel, by the victim's blocks per SM, launch order and the partner's blocks per SM.
#   python3 scripts/corun-ladder-table.py CORUNS.csv [PARTNER]      (PARTNER: a suite kernel, default gather)
import collections
import csv
import statistics
import sys

path = sys.argv[1]
partner = sys.argv[2] if len(sys.argv) > 2 else "gather"
with open(path) as f:
    rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#")) if ";" not in r["partners"]]
table = collections.defaultdict(lambda: collections.defaultdict(list))
for r in rows:
    victim, other = r["victim"].split("-")[0], r["partners"].split("-")[0]
    if other != partner:
        continue
    first = r["run"].split("+")[0].split("-")[0]
    victim_first = (first == victim) == r["run"].endswith("/ab")
    key = (victim_first, victim, int(r["victim_blocks_per_sm"]))
    table[key][int(r["partners_blocks_per_sm"])].append(float(r["corun_mean_ns"]) / float(r["alone_mean_ns"]))
for victim_first in (True, False):
    print(f"beside {partner}, victim launched {'first' if victim_first else 'second'}: slowdown by {partner}'s blocks a SM")
    for (vf, victim, k), by_m in sorted(table.items()):
        if vf != victim_first or len(by_m) < 2:
            continue
        cells = "  ".join(f"{m}: {statistics.mean(s):.2f}" for m, s in sorted(by_m.items()))
        print(f"  {victim:<13} k={k:<3} {cells}")
