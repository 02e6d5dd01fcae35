#!/usr/bin/env python3
"""Where a co-runner's slowdown comes from: the same pairs recorded sharing every SM, sharing a green context of a
few SMs ("near"), and apart (no SM shared), by live/corun-placement-on-device.sh.

Prints, per victim and partner (mix 0.5:0.5, mean over repeats and both launch orders), the victim's slowdown
(co-run mean block time over its mean alone on the same SMs) in each placement, and a summary: how much of the
whole-GPU slowdown (all - 1) the SM-local (near - 1) and the GPU-wide (apart - 1) placements reproduce.

  scripts/corun-placement.py ALL.csv NEAR.csv APART.csv
"""
import csv
import statistics
import sys
from collections import defaultdict


def read(path):
    rows = defaultdict(list)
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    for r in csv.DictReader(lines):
        if "@thirds" in r["run"]:
            continue
        slowdown = float(r["corun_mean_ns"]) / float(r["alone_mean_ns"])
        rows[(r["victim"], r["partners"])].append(slowdown)
    return {k: statistics.mean(v) for k, v in rows.items()}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    every, near, apart = (read(p) for p in sys.argv[1:])
    keys = sorted(set(every) & set(near))
    print(f"{'victim':<14} {'partner':<14} {'all SMs':>8} {'near':>8} {'apart':>8}")
    local_share, wide_share = [], []
    for k in keys:
        a, n = every[k], near[k]
        # apart has one row direction per pair (first kernel near, second on the rest): either victim is there
        p = apart.get(k)
        print(f"{k[0]:<14} {k[1]:<14} {a:8.3f} {n:8.3f} {p:8.3f}" if p else f"{k[0]:<14} {k[1]:<14} {a:8.3f} {n:8.3f} {'-':>8}")
        if a - 1 > 0.1:  # only victims the whole-GPU co-run slows by over 10 %
            local_share.append((n - 1) / (a - 1))
            if p:
                wide_share.append((p - 1) / (a - 1))
    if local_share:
        print(f"\nvictims slowed over 10 % on every SM: {len(local_share)}")
        print(f"near (SM-local) / all, median of (slowdown - 1): {statistics.median(local_share):.2f} "
              f"(p10 {sorted(local_share)[len(local_share) // 10]:.2f}, p90 {sorted(local_share)[len(local_share) * 9 // 10]:.2f})")
    if wide_share:
        print(f"apart (GPU-wide) / all, median of (slowdown - 1): {statistics.median(wide_share):.2f} over {len(wide_share)}")


if __name__ == "__main__":
    main()
