#!/usr/bin/env python3
"""Per-launch decomposition of a validation's turnaround error, from a result store (gpusched-live validate --db).

For each stored validation (live run against its prediction) and each launch, the launch's span from its first
block's start to its last block's end is blocks x mean block time / mean blocks in flight. So the live turnaround
over the predicted one splits into factors:

  start     (first start - arrival), live against predicted: how late the launch got its first slot;
  duration  mean block time, live / predicted: the model's part (interference, block-time variance);
  width     mean blocks in flight over the span, predicted / live: how many slots the launch held, i.e. the
            dispatch's part (the hardware or the executor giving slots in another order than the plan).

Prints one line per launch; with --worst N only the N launches of largest |turnaround error| per validation.
  python3 scripts/launch-decomposition.py STORE.db [--worst N]
"""
import argparse
import sqlite3
import sys


def launch_stats(db, run_id):
    rows = db.execute(
        "SELECT l.idx, l.launch_id, l.arrival_ns, l.turnaround_ns, COUNT(b.block), MIN(b.start_ns), MAX(b.end_ns), "
        "SUM(b.end_ns - b.start_ns) FROM launches l LEFT JOIN blocks b ON b.run_id = l.run_id AND b.launch = l.idx "
        "WHERE l.run_id = ? GROUP BY l.idx ORDER BY l.idx", (run_id,)).fetchall()
    out = {}
    for idx, name, arrival, turnaround, pieces, first, last, busy in rows:
        if not pieces:
            continue
        span = max(1, last - first)
        out[idx] = dict(name=name, start=first - arrival, turnaround=turnaround, pieces=pieces,
                        mean=busy / pieces, width=busy / span, span=span)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--worst", type=int, default=0)
    args = ap.parse_args()
    try:
        db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        pairs = db.execute(
            "SELECT v.live_run_id, v.predicted_run_id, r.policy, r.interference, r.workload FROM validations v "
            "JOIN runs r ON r.id = v.predicted_run_id ORDER BY v.live_run_id").fetchall()
    except sqlite3.Error as e:
        sys.exit(f"{args.db}: {e}")
    for live_id, pred_id, policy, interference, workload in pairs:
        live, pred = launch_stats(db, live_id), launch_stats(db, pred_id)
        print(f"== {workload} {policy} {interference} (live run {live_id}, predicted {pred_id})")
        print(f"{'launch':<16}{'turn err':>9}{'start us':>18}{'block us':>18}{'dur':>7}{'width':>15}{'wid':>7}")
        rows = []
        for idx, p in pred.items():
            if idx not in live:
                continue
            q = live[idx]
            err = q["turnaround"] / p["turnaround"] - 1
            rows.append((abs(err), idx, err, p, q))
        if args.worst:
            rows = sorted(rows, reverse=True)[: args.worst]
        for _, idx, err, p, q in sorted(rows, key=lambda r: r[1]):
            print(f"{p['name']:<16}{err * 100:>+8.1f}%"
                  f"{p['start'] / 1e3:>9.1f}{q['start'] / 1e3:>9.1f}"
                  f"{p['mean'] / 1e3:>9.1f}{q['mean'] / 1e3:>9.1f}{(q['mean'] / p['mean'] - 1) * 100:>+6.0f}%"
                  f"{p['width']:>8.1f}{q['width']:>7.1f}{(p['width'] / q['width'] - 1) * 100:>+6.0f}%")
        print()


if __name__ == "__main__":
    main()
