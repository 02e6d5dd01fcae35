#!/usr/bin/env python3
"""Where the late pieces of a plan carried out in parts of pieces lost their time, from `gpusched-live validate
--entries-csv` (live/executor/entry_rows.h; docs/validation.md, "Entries stamped before their claims"). Per
execution, over the entries that ran a piece (skipped and never-taken entries left out), in us:
  late      start - planned start (the piece's start delay against the plan's own time)
  to entry  entered - planned start (before the worker began: the host's call and the hardware's placement)
  claim     start - entered (the worker waited for its block, which another worker was running)
(entered is the start where the part has no claims.) And per part, its first worker against its call: the host's lag
(call - first planned start), the placement (first entry - call) and the first claim (first start - first entry).
Usage: scripts/entries-table.py ENTRIES.csv [--late-us 20]"""
import argparse
import collections
import csv
import math
import sys


def rank(values, q):
    v = sorted(values)
    return v[max(0, math.ceil(q * len(v)) - 1)] if v else float("nan")


def stats(values):
    return f"{rank(values, 0.5):8.1f} {rank(values, 0.9):8.1f} {rank(values, 0.99):8.1f} {max(values, default=float('nan')):8.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--late-us", type=float, default=20.0, help="a piece this late or later counts as late")
    a = ap.parse_args()
    try:
        rows = list(csv.DictReader(open(a.csv)))
    except OSError as e:
        raise SystemExit(f"entries-table: {a.csv}: {e.strerror}")
    need = {"execution", "launch", "part", "outcome", "planned_start_us", "part_called_us", "entered_us", "start_us"}
    if rows and not need <= set(rows[0]):
        raise SystemExit(f"entries-table: {a.csv}: missing columns {sorted(need - set(rows[0]))}")
    by_execution = collections.defaultdict(list)
    for line, r in enumerate(rows, start=2):
        if r["outcome"] in ("skipped", "none"):
            continue
        try:
            planned, start = float(r["planned_start_us"]), float(r["start_us"])
            entered = float(r["entered_us"]) if r["entered_us"] else start
            called = float(r["part_called_us"]) if r["part_called_us"] else float("nan")
        except ValueError as e:
            raise SystemExit(f"entries-table: {a.csv}:{line}: {e}")
        by_execution[r["execution"]].append((r["launch"], int(r["part"]), planned, called, entered, start,
                                             bool(r["entered_us"])))
    for execution, entries in by_execution.items():
        late = [s - p for _, _, p, _, _, s, _ in entries]
        to_entry = [e - p for _, _, p, _, e, _, _ in entries]
        claim = [s - e for *_, e, s, stamped in entries if stamped]
        print(f"{execution}: {len(entries)} pieces, {sum(1 for *_, st in entries if st)} stamped before a claim")
        print(f"  {'us':18s} {'median':>8s} {'p90':>8s} {'p99':>8s} {'max':>8s}")
        print(f"  {'late':18s} {stats(late)}")
        print(f"  {'to entry':18s} {stats(to_entry)}")
        if claim:
            print(f"  {'claim':18s} {stats(claim)}")
        slow = [(s - p, e - p, s - e) for _, _, p, _, e, s, _ in entries if s - p >= a.late_us]
        if slow:
            total = sum(x for x, _, _ in slow)
            print(f"  {len(slow)} pieces {a.late_us:g} us late or more: {total:.0f} us in all, "
                  f"{100 * sum(y for _, y, _ in slow) / total:.0f} % before their workers began, "
                  f"{100 * sum(z for _, _, z in slow) / total:.0f} % waiting for their claims")
        parts = collections.defaultdict(list)
        for launch, part, p, c, e, s, _ in entries:
            parts[(launch, part)].append((p, c, e, s))
        host, placed, first_claim = [], [], []
        for pieces in parts.values():
            first_planned = min(p for p, _, _, _ in pieces)
            called = pieces[0][1]
            first_entry = min(e for _, _, e, _ in pieces)
            first_start = min(s for _, _, _, s in pieces)
            if not math.isnan(called):
                host.append(called - first_planned)
                placed.append(first_entry - called)
            first_claim.append(first_start - first_entry)
        print(f"  {len(parts)} parts, their first workers:")
        if host:
            print(f"  {'call - planned':18s} {stats(host)}")
            print(f"  {'entry - call':18s} {stats(placed)}")
        print(f"  {'start - entry':18s} {stats(first_claim)}")
    if not by_execution:
        raise SystemExit(f"entries-table: {a.csv}: no entry ran a piece")


if __name__ == "__main__":
    sys.exit(main())
