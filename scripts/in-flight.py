#!/usr/bin/env python3
"""Blocks in flight per launch, planned against executed, and one launch's block times by when they started.

Reads two Schedule CSVs written by `gpusched export DB --run N --csv F` (the plan and its execution, as `gpusched-live
validate --db` stores them: run 1 the plan, run 2 the execution of the first policy):

    python3 scripts/in-flight.py plan.csv live.csv --at 1400,1500,1600 --launch sad [--window 50]

prints, at each time (us), each launch's blocks in flight in the plan / the execution; then, for --launch, its first
blocks (SM, start, end) and its block times (end - start) grouped by start window, with the blocks not yet started.
Planned pieces are slot times and executed ones raw stamps (docs/formats.md, "slot occupancy"): compare durations
of the same kind. docs/validation.md, "The launch at the p90" (session 41).
"""
import argparse
import collections
import csv
import sys

COLUMNS = ("launch", "sm", "start_ns", "end_ns")


def fail(message):
    sys.exit(f"in-flight: {message}")


def load(path):
    """launch id -> [(start, end, sm)]; a missing file, column or integer is refused naming the file, line and field."""
    blocks = collections.defaultdict(list)
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                fail(f"{path}: no column {', '.join(missing)} (a Schedule CSV of `gpusched export --csv`)")
            for r in reader:
                values = []
                for field in ("start_ns", "end_ns", "sm"):
                    try:
                        values.append(int(r[field]))
                    except (TypeError, ValueError):
                        fail(f"{path} line {reader.line_num}: field '{field}' is not an integer: {r[field]!r}")
                if values[1] < values[0]:
                    fail(f"{path} line {reader.line_num}: field 'end_ns' is before 'start_ns'")
                blocks[r["launch"]].append(tuple(values))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    return blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("plan")
    ap.add_argument("live")
    ap.add_argument("--at", required=True, help="times in us, comma-separated")
    ap.add_argument("--launch", help="a launch id to look at block by block")
    ap.add_argument("--window", type=float, default=50.0, help="start window of --launch's block times, us")
    args = ap.parse_args()
    try:
        times = [float(x) for x in args.at.split(",")]
    except ValueError:
        fail(f"--at: expected times in us separated by commas, found {args.at!r}")
    if args.window <= 0:
        fail("--window: expected a positive number of us")
    plan, live = load(args.plan), load(args.live)
    names = sorted(set(plan) | set(live))
    print("t (us)  " + " ".join(f"{n[:13]:>15s}" for n in names))
    for t_us in times:
        t = t_us * 1e3
        cells = []
        for n in names:
            p = sum(1 for s, e, _ in plan.get(n, []) if s <= t < e)
            x = sum(1 for s, e, _ in live.get(n, []) if s <= t < e)
            cells.append(f"{p:>7d}/{x:<7d}")
        print(f"{t_us:7.1f} " + " ".join(cells))
    if not args.launch:
        return
    for which, blocks in (("plan", plan), ("execution", live)):
        rows = sorted(blocks.get(args.launch, []))
        if not rows:
            continue
        print(f"{which}: {args.launch} first blocks " +
              ", ".join(f"SM {sm} {s / 1e3:.1f}-{e / 1e3:.1f} us" for s, e, sm in rows[:3]) +
              f"; last end {max(e for _, e, _ in rows) / 1e3:.1f} us")
        start = rows[0][0] // int(args.window * 1e3) * int(args.window * 1e3)
        w = int(args.window * 1e3)
        while start <= rows[-1][0]:
            sel = sorted(e - s for s, e, _ in rows if start <= s < start + w)
            if sel:
                q = lambda f: sel[int(f * (len(sel) - 1))] / 1e3
                print(f"  started {start / 1e3:7.0f}-{(start + w) / 1e3:<7.0f} us: {len(sel):6d} blocks, "
                      f"time median {q(0.5):6.1f} p90 {q(0.9):6.1f} max {q(1.0):6.1f} us; "
                      f"{sum(1 for s, _, _ in rows if s >= start)} not started before")
            start += w


if __name__ == "__main__":
    main()
