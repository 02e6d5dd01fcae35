#!/usr/bin/env python3
"""How each launch shared its SMs, planned and executed: for every validation in a store (gpusched-live validate --db:
a predicted run followed by its live run), per launch its blocks, first start and last end (us), mean block time (us),
SMs used, width (block time summed over the launch's span: its mean blocks in flight) and, averaged over its blocks at
each block's midpoint, the blocks of its own launch (itself included) and of other launches on the same SM
(docs/validation.md, "What the hardware makes of a plan in parts").

    python3 scripts/per-sm-mix.py STORE.db [--policy P]
"""
import argparse
import bisect
import collections
import sqlite3


def summary(db, run):
    name = dict(db.execute("select idx, launch_id from launches where run_id = ?", (run,)))
    blocks = db.execute("select launch, sm, start_ns, end_ns from blocks where run_id = ? and outcome = 0",
                        (run,)).fetchall()
    by_sm = collections.defaultdict(list)
    for launch, sm, start, end in blocks:
        by_sm[sm].append((start, end, launch))
    own, other = collections.defaultdict(list), collections.defaultdict(list)
    for sm_blocks in by_sm.values():
        sm_blocks.sort()
        starts = [b[0] for b in sm_blocks]
        longest = max(e - s for s, e, _ in sm_blocks)
        for start, end, launch in sm_blocks:
            mid = (start + end) // 2
            mine = others = 0
            for s2, e2, l2 in sm_blocks[bisect.bisect_left(starts, mid - longest):bisect.bisect_right(starts, mid)]:
                if s2 <= mid < e2:
                    if l2 == launch:
                        mine += 1
                    else:
                        others += 1
            own[launch].append(mine)
            other[launch].append(others)
    per = collections.defaultdict(list)
    for launch, sm, start, end in blocks:
        per[launch].append((sm, start, end))
    out = {}
    for launch, v in per.items():
        first, last = min(b[1] for b in v), max(b[2] for b in v)
        busy = sum(b[2] - b[1] for b in v)
        out[name[launch]] = (len(v), first / 1e3, last / 1e3, busy / len(v) / 1e3, len({b[0] for b in v}),
                             busy / max(1, last - first), sum(own[launch]) / len(v), sum(other[launch]) / len(v))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store")
    parser.add_argument("--policy")
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    runs = db.execute("select id, mode, policy, workload, interference from runs order by id").fetchall()
    row = lambda t: f"{t[1]:8.1f} {t[2]:8.1f} {t[3]:7.1f} {t[4]:3d} {t[5]:6.1f} {t[6]:4.1f} {t[7]:4.1f}"
    for planned, live in zip(runs, runs[1:]):
        if planned[1] != "sim" or live[1] != "live" or (args.policy and planned[2] != args.policy):
            continue
        print(f"== {planned[3]} {planned[2]} ({planned[4]}): runs {planned[0]} (plan) and {live[0]} (executed)")
        print(f"{'launch':14s} {'blocks':>6s} | plan: first last blk_us SMs width own other"
              f" | executed: first last blk_us SMs width own other")
        a, b = summary(db, planned[0]), summary(db, live[0])
        for launch, t in a.items():
            print(f"{launch:14s} {t[0]:6d} | {row(t)} | {row(b[launch]) if launch in b else '-'}")


if __name__ == "__main__":
    main()
