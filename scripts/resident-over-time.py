#!/usr/bin/env python3
"""A plan and its execution side by side over time (docs/validation.md, "Held parts that were not held"): at each
instant, every launch's resident blocks and the SMs they are on, in the plan and in the execution; with --launch, how
many of that launch's blocks had ended by each instant, and the durations of those of its blocks still running at
--tail-from-us.

  gpusched-live validate -w W -p POLICY --interference M --db STORE.db ...   # plan (run 1) and execution (run 2)
  python3 scripts/resident-over-time.py STORE.db --from-us 1350 --to-us 2100 [--step-us 25] [--plan-run 1]
      [--live-run 2] [--launch sad --tail-from-us 1775]

Times are the store's, each run from its own origin (the execution's is aligned to the plan's by validate). A block's
piece counts as resident from its start to its end stamp."""
import argparse
import sqlite3
import sys
from collections import Counter, defaultdict


def load(db, run):
    names = {idx: lid for idx, lid in db.execute("SELECT idx, launch_id FROM launches WHERE run_id = ?", (run,))}
    if not names:
        raise SystemExit(f"resident-over-time: no launches of run {run} in the store")
    blocks = db.execute("SELECT launch, sm, start_ns, end_ns FROM blocks WHERE run_id = ?", (run,)).fetchall()
    return [(names[l], sm, s, e) for l, sm, s, e in blocks]


def quantiles(values, qs=(0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)):
    v = sorted(values)
    return [v[round(q * (len(v) - 1))] for q in qs] if v else []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store")
    ap.add_argument("--from-us", type=float, required=True)
    ap.add_argument("--to-us", type=float, required=True)
    ap.add_argument("--step-us", type=float, default=25.0)
    ap.add_argument("--plan-run", type=int, default=1)
    ap.add_argument("--live-run", type=int, default=2)
    ap.add_argument("--launch", help="a launch id: its blocks ended by each instant, and its tail's durations")
    ap.add_argument("--tail-from-us", type=float, help="with --launch: the durations of its blocks running then")
    a = ap.parse_args()
    if a.step_us <= 0 or a.to_us <= a.from_us:
        sys.exit("resident-over-time: --step-us must be positive and --to-us after --from-us")
    try:
        db = sqlite3.connect(f"file:{a.store}?mode=ro", uri=True)
        runs = {"plan": load(db, a.plan_run), "execution": load(db, a.live_run)}
    except sqlite3.Error as e:
        sys.exit(f"resident-over-time: {a.store}: {e}")
    for what, blocks in runs.items():
        print(f"{what}: launch:resident blocks/SMs")
        t = a.from_us
        while t < a.to_us:
            at = t * 1000
            count, sms = Counter(), defaultdict(set)
            for lid, sm, s, e in blocks:
                if s <= at < e:
                    count[lid] += 1
                    sms[lid].add(sm)
            ended = ""
            if a.launch:
                ended = f"  ({a.launch}: {sum(1 for lid, _, _, e in blocks if lid == a.launch and e <= at)} ended)"
            print(f"  {t:8.0f} us  " + " ".join(f"{k}:{count[k]}/{len(sms[k])}" for k in sorted(count)) + ended)
            t += a.step_us
        if a.launch and a.tail_from_us is not None:
            at = a.tail_from_us * 1000
            tail = [(e - s) / 1000 for lid, _, s, e in blocks if lid == a.launch and s <= at < e]
            q = " ".join(f"{x:.1f}" for x in quantiles(tail))
            print(f"  {a.launch}'s {len(tail)} blocks running at {a.tail_from_us:.0f} us last (min p10 p25 median p75 "
                  f"p90 max, us): {q}")


if __name__ == "__main__":
    main()
