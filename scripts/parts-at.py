#!/usr/bin/env python3
"""An execution in parts of pieces against its plan (docs/validation.md, "Grids the GPU starts a second"): how much of
the GPU's block slots each ran over time, and at one instant which SMs sat idle while parts the plan had started by
then were still waiting, and in what order the waiting parts then started.

  gpusched as-priorities -w W -p POLICY --interference M --parts-csv PARTS.csv   # the plan's cut
  gpusched-live validate -w W -p POLICY --interference M --db STORE.db ...          # plan (run 1) and execution (run 2)
  python3 scripts/parts-at.py STORE.db PARTS.csv POLICY --at-us 3350 [--plan-run 1] [--live-run 2] [--bucket-us 250]

A slot's share is weighted by the plan's blocks an SM of its kernel (the most the plan ran at once on one SM), so a
plan that fills every SM reads 1.0. The plan's pieces last their slot time and the execution's their raw stamps
(docs/formats.md, "slot occupancy"): compare the execution with itself over time, and with the plan only roughly.
An executed piece belongs to the plan's piece of its block with the same ordinal, as in scripts/part-lateness.py."""
import argparse
import collections
import sqlite3
import sys

from plan_parts import PlanError, piece_parts, read_plan_parts


def fail(message):
    sys.exit(f"parts-at: {message}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("parts_csv")
    ap.add_argument("policy")
    ap.add_argument("--at-us", type=float, required=True, help="the instant to look at, us from the plan's origin")
    ap.add_argument("--plan-run", type=int, default=1)
    ap.add_argument("--live-run", type=int, default=2)
    ap.add_argument("--bucket-us", type=float, default=250.0)
    ap.add_argument("--list", type=int, default=20, help="waiting parts and starts to list")
    a = ap.parse_args()
    if a.bucket_us <= 0:
        fail("--bucket-us must be positive")
    try:
        db = sqlite3.connect(f"file:{a.store}?mode=ro", uri=True)
        kern = dict(db.execute("select idx, kernel from launches where run_id=?", (a.plan_run,)))
        ids = dict(db.execute("select idx, launch_id from launches where run_id=?", (a.plan_run,)))
        sms = db.execute("select max(sm) + 1 from blocks where run_id=?", (a.plan_run,)).fetchone()[0]

        def load(run):
            return db.execute("select launch, block, sm, start_ns, end_ns from blocks where run_id=?", (run,)).fetchall()

        plan, live = load(a.plan_run), load(a.live_run)
    except sqlite3.Error as e:
        fail(f"{a.store}: {e}")
    if not plan or not live:
        fail(f"{a.store}: run {a.plan_run if not plan else a.live_run} has no blocks")
    try:
        part_of = piece_parts(read_plan_parts(a.parts_csv, a.policy))
    except PlanError as e:
        fail(str(e))

    # The plan's blocks an SM of each kernel.
    events = collections.defaultdict(list)
    for l, _, sm, s, e in plan:
        events[(kern[l], sm)] += [(s, 1), (e, -1)]
    most = collections.defaultdict(int)
    for (k, _), v in events.items():
        now = 0
        for _, d in sorted(v):
            now += d
            most[k] = max(most[k], now)

    bucket = int(a.bucket_us * 1000)

    def use(rows):
        u = collections.defaultdict(float)
        for l, _, _, s, e in rows:
            b = s // bucket
            while b * bucket < e:
                u[b] += (min(e, (b + 1) * bucket) - max(s, b * bucket)) / most[kern[l]]
                b += 1
        return u

    up, ul = use(plan), use(live)
    print(f"share of the GPU's block slots in use ({sms} SMs, {a.bucket_us:g} us buckets): plan, execution")
    for b in range(max(max(up), max(ul)) + 1):
        print(f"  {b * bucket / 1e3:8.0f} us  {up.get(b, 0) / (bucket * sms):5.3f}  {ul.get(b, 0) / (bucket * sms):5.3f}")

    # Parts: planned first start, executed first start, pieces.
    planned = collections.defaultdict(list)
    for l, b, _, s, _ in plan:
        planned[(l, b)].append(s)
    executed = collections.defaultdict(list)
    for l, b, sm, s, _ in live:
        executed[(l, b)].append((s, sm))
    parts = {}
    for key, starts in planned.items():
        if key not in part_of:
            fail(f"{a.parts_csv}: no part for launch {key[0]} block {key[1]} of run {a.plan_run}")
        starts.sort()
        done = sorted(executed.get(key, []))
        for k, s in enumerate(starts):
            p = part_of[key][min(k, len(part_of[key]) - 1)]
            d = parts.setdefault((key[0], p), {"planned": s, "executed": None, "pieces": 0})
            d["planned"] = min(d["planned"], s)
            d["pieces"] += 1
            if k < len(done):
                x = done[k][0]
                d["executed"] = x if d["executed"] is None else min(d["executed"], x)
    t = int(a.at_us * 1000)
    busy = {sm for _, _, sm, s, e in live if s <= t < e}
    idle = [sm for sm in range(sms) if sm not in busy]
    waiting = sorted((d["planned"], key) for key, d in parts.items()
                     if d["planned"] <= t and d["executed"] is not None and d["executed"] > t)
    print(f"at {a.at_us:g} us: {len(idle)} of {sms} SMs idle in the execution; {len(waiting)} parts the plan had "
          f"started by then had not started")
    for s, (l, p) in waiting[: a.list]:
        d = parts[(l, p)]
        print(f"  {ids[l]} part {p}: planned {s / 1e3:.1f} us, started {d['executed'] / 1e3:.1f} us "
              f"({d['pieces']} pieces)")
    later = sorted((d["executed"], key) for key, d in parts.items() if d["executed"] is not None and d["executed"] >= t)
    later = later[: max(a.list, 2)]
    gaps = sorted(y - x for (x, _), (y, _) in zip(later, later[1:]))
    if gaps:
        print(f"the next {len(later)} parts to start after it: {gaps[len(gaps) // 2] / 1e3:.2f} us apart (median)")
    for x, (l, p) in later[: a.list]:
        d = parts[(l, p)]
        print(f"  {x / 1e3:.1f} us: {ids[l]} part {p}, {(x - d['planned']) / 1e3:+.1f} us against the plan")


if __name__ == "__main__":
    main()
