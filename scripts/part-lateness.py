#!/usr/bin/env python3
"""An execution in parts laid over its plan's parts (docs/validation.md, "Events behind parts"): how late each part
started against the plan, by the time the plan starts it, how many parts ran at once, and how far behind the plan
the pieces ended.

  gpusched as-priorities -w W -p POLICY --interference M --parts-csv PARTS.csv   # the plan's cut, as validate cuts it
  gpusched-live validate -w W -p POLICY --interference M --db STORE.db ...          # the execution
  python3 scripts/part-lateness.py PARTS.csv POLICY STORE.db [--run ID] [--bucket-us 500]

The plan in PARTS.csv must be the one the execution carried out (same workload, policy, model and seed). An executed
piece is matched to the plan's piece of its block in start order (the k-th piece of block b of launch l runs the
plan's k-th); a part's start is its first matched piece's start, its end its last piece's end. Without --run the
store's first live run of POLICY is read."""
import argparse
import math
import sqlite3
import sys
from collections import Counter, defaultdict

from plan_parts import PlanError, read_plan_parts


LAG_QUANTILES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99)


def nearest_rank(n, q):
    """The index of the q-quantile of n sorted values by nearest rank: the ceil(q n)-th value."""
    return min(n - 1, max(0, math.ceil(q * n) - 1))


def quantile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def most_at_once(spans):
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def fail(message):
    sys.exit(f"part-lateness: {message}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts_csv")
    ap.add_argument("policy")
    ap.add_argument("store")
    ap.add_argument("--run", type=int, help="the live run's id in the store")
    ap.add_argument("--bucket-us", type=float, default=500.0)
    a = ap.parse_args()

    try:
        plan = read_plan_parts(a.parts_csv, a.policy)
    except PlanError as e:
        fail(str(e))
    try:
        db = sqlite3.connect(f"file:{a.store}?mode=ro", uri=True)
        run = a.run
        if run is None:
            row = db.execute("SELECT id FROM runs WHERE mode = 'live' AND (policy = ? OR policy LIKE ?) ORDER BY id",
                             (a.policy, a.policy + " (%")).fetchone()
            if row is None:
                fail(f"{a.store}: no live run of {a.policy}")
            run = row[0]
        rows = db.execute(
            "SELECT launch, block, start_ns, end_ns FROM blocks WHERE run_id = ? ORDER BY launch, block, start_ns",
            (run,)).fetchall()
    except sqlite3.Error as e:
        fail(f"{a.store}: not a result store ({e})")
    live = defaultdict(list)
    for launch, block, start, end in rows:
        live[(launch, block)].append((start, end))

    planned, executed = {}, {}  # (launch, part) -> [start, end]
    for key, pieces in plan.items():
        pieces.sort()
        ran = live.get(key, [])
        for k, (start, end, part) in enumerate(pieces):
            p = planned.setdefault((key[0], part), [start, end])
            p[0], p[1] = min(p[0], start), max(p[1], end)
            if k < len(ran):
                e = executed.setdefault((key[0], part), list(ran[k]))
                e[0], e[1] = min(e[0], ran[k][0]), max(e[1], ran[k][1])

    width = a.bucket_us * 1e3
    late = defaultdict(list)
    for part, (start, _) in planned.items():
        if part in executed:
            late[int(start // width)].append((executed[part][0] - start) / 1e3)
    print(f"{a.policy}: {len(planned)} parts planned, {len(executed)} executed (live run {run})")
    print(f"{'planned start':>14} {'parts':>6} {'start late p10':>15} {'p50':>9} {'p90':>9}  (us)")
    for b in sorted(late):
        v = sorted(late[b])
        print(f"{b * a.bucket_us / 1e3:>11.1f} ms {len(v):>6} {quantile(v, 0.1):>15.1f} {quantile(v, 0.5):>9.1f} "
              f"{quantile(v, 0.9):>9.1f}")
    print(f"most parts at once: planned {most_at_once(planned.values())}, executed {most_at_once(executed.values())}")
    starts_planned = Counter(int(s // width) for s, _ in planned.values())
    starts_executed = Counter(int(s // width) for s, _ in executed.values())
    last = max(max(starts_planned), max(starts_executed, default=0))
    print(f"parts starting per {a.bucket_us:g} us, planned:  " + " ".join(str(starts_planned[i]) for i in range(last + 1)))
    print(f"parts starting per {a.bucket_us:g} us, executed: " + " ".join(str(starts_executed[i]) for i in range(last + 1)))
    # How far the execution as a whole runs behind the plan: the time the k-th piece to end ends, planned and executed
    # (a lag that grows through a busy period and falls back in an idle one is throughput lost per piece, not a delay
    # at the start: docs/validation.md, "Late parts").
    planned_ends = sorted(end for pieces in plan.values() for _, end, _ in pieces)
    executed_ends = sorted(end for pieces in live.values() for _, end in pieces)
    n = min(len(planned_ends), len(executed_ends))
    if n:
        at = [nearest_rank(n, q) for q in LAG_QUANTILES]
        print("pieces ended   " + " ".join(f"{q:>7.0%}" for q in LAG_QUANTILES))
        print("planned (us)   " + " ".join(f"{planned_ends[k] / 1e3:>7.0f}" for k in at))
        print("executed (us)  " + " ".join(f"{executed_ends[k] / 1e3:>7.0f}" for k in at))
        print("lag (us)       " + " ".join(f"{(executed_ends[k] - planned_ends[k]) / 1e3:>7.0f}" for k in at))


if __name__ == "__main__":
    main()
