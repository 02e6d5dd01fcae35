#!/usr/bin/env python3
"""Fits the `equivalent` interference model's weights from native runs (docs/interference.md, "Equivalent
residency") and writes them into the victims' kernel profiles as [equivalent_blocks].

For every measured block of kernel k (the native runs in result stores written by `gpusched-live native --db`), the
blocks sharing its SM are averaged over its life: n_own of its own kernel (itself included) and n_j of each other
kernel j. Its measured time t gives the residency r_eff at which k's recordings run that slowly (the record sets'
mean raw block times, linear between them and along the last segment past them). A block beside exactly one other
kernel j (at least one of its blocks on average, less than 0.2 of any third) gives w = (r_eff - n_own) / n_j; the
weight w(k <- j) is the median over those blocks, kept where at least --min-blocks of them were measured.

    scripts/fit-equivalent-blocks.py --profiles traces/live/h100 STORE.db [STORE.db ...] [--write [--write-to DIR]]

Without --write it prints the weights; with it, each victim's profile gets its [equivalent_blocks] table replaced
(the rest of the file is kept as it is) and a provenance line naming the stores.
"""
import argparse
import bisect
import collections
import os
import re
import sqlite3
import statistics
import sys


def record_means(profile_path):
    """[(residency, mean raw block time)] of a profile's record sets, by residency."""
    text = open(profile_path).read()
    points = []
    for m in re.finditer(r'residency\s*=\s*(\d+)\s*\nfile\s*=\s*"([^"]+)"', text):
        total = count = 0
        with open(os.path.join(os.path.dirname(profile_path), m.group(2))) as f:
            for line in f:
                if not line[:1].isdigit():
                    continue
                fields = line.split(",")
                total += int(fields[3]) - int(fields[2])
                count += 1
        if count:
            points.append((int(m.group(1)), total / count))
    return sorted(points)


def residency_for(points, t):
    """The residency at which the record sets' mean block time is t (linear, extrapolated at both ends)."""
    if len(points) < 2:
        return None
    for (r0, t0), (r1, t1) in zip(points, points[1:]):
        if t <= t1 or (r1, t1) == points[-1]:
            return r0 + (t - t0) * (r1 - r0) / (t1 - t0) if t1 != t0 else float(r1)
    return None


def blocks_of(store):
    """Per measured (live) run: [(kernel, sm, start, end)] of its blocks."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    runs = [r[0] for r in db.execute("select id from runs where mode = 'live'")]
    for run in runs:
        kernel_of = dict(db.execute("select idx, kernel from launches where run_id = ?", (run,)))
        yield [(kernel_of[l], sm, s, e) for l, sm, s, e in
               db.execute("select launch, sm, start_ns, end_ns from blocks where run_id = ?", (run,))]


def samples(blocks, curves):
    """(victim, aggressor) -> [w] from one run's blocks."""
    out = collections.defaultdict(list)
    by_sm = collections.defaultdict(list)
    for b in blocks:
        by_sm[b[1]].append(b)
    for sm_blocks in by_sm.values():
        sm_blocks.sort(key=lambda b: b[2])
        starts = [b[2] for b in sm_blocks]
        longest = max(b[3] - b[2] for b in sm_blocks)
        for i, (k, _, s, e) in enumerate(sm_blocks):
            if e <= s or k not in curves:
                continue
            own, other = 1.0, collections.Counter()
            lo = bisect.bisect_left(starts, s - longest)
            hi = bisect.bisect_left(starts, e)
            for j in range(lo, hi):
                if j == i:
                    continue
                k2, _, s2, e2 = sm_blocks[j]
                overlap = min(e, e2) - max(s, s2)
                if overlap <= 0:
                    continue
                if k2 == k:
                    own += overlap / (e - s)
                else:
                    other[k2] += overlap / (e - s)
            big = [k2 for k2, n in other.items() if n >= 1.0]
            if len(big) != 1 or sum(other.values()) - other[big[0]] >= 0.2:
                continue
            r_eff = residency_for(curves[k], e - s)
            if r_eff is not None:
                out[(k, big[0])].append((r_eff - own) / other[big[0]])
    return out


def write_weights(profile_path, weights, source):
    text = open(profile_path).read()
    text = re.sub(r'\n\[equivalent_blocks\]\n(?:[^\[\n][^\n]*\n)*', "", text)
    text = re.sub(r'\nequivalent_blocks_source = "[^"]*"', "", text)
    text = text.replace("[provenance]\n", f'[provenance]\nequivalent_blocks_source = "{source}"\n', 1)
    table = "".join(f'"{k}" = {w:.3f}\n' for k, w in sorted(weights.items()))
    # After [provenance] and before the record sets.
    at = text.find("\n[[records]]")
    text = text[:at].rstrip("\n") + "\n\n[equivalent_blocks]\n" + table + text[at:]
    tmp = profile_path + ".tmp"
    open(tmp, "w").write(text)
    os.replace(tmp, profile_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profiles", required=True, help="folder of the kernels' profiles (NAME.kernel.toml)")
    ap.add_argument("--min-blocks", type=int, default=200, help="blocks a pair needs for a weight")
    ap.add_argument("--write", action="store_true", help="write the weights into the victims' profiles")
    ap.add_argument("--write-to", help="write into the profiles of this folder instead (another GPU's: a held-out "
                    "test of the weights)")
    ap.add_argument("stores", nargs="+", help="result stores with native runs")
    a = ap.parse_args()
    curves = {}
    for name in os.listdir(a.profiles):
        if name.endswith(".kernel.toml"):
            points = record_means(os.path.join(a.profiles, name))
            if len(points) >= 2:
                curves[name[: -len(".kernel.toml")]] = points
    pooled = collections.defaultdict(list)
    runs = 0
    for store in a.stores:
        if not os.path.exists(store):
            sys.exit(f"{store}: no such result store")
        for blocks in blocks_of(store):
            runs += 1
            for key, ws in samples(blocks, curves).items():
                pooled[key].extend(ws)
    if runs == 0:
        sys.exit("no native (live) runs in the stores")
    weights = collections.defaultdict(dict)
    print(f"{runs} native runs; w(victim <- aggressor): median [p25, p75] over blocks beside that one kernel")
    for (victim, aggressor), ws in sorted(pooled.items()):
        if len(ws) < a.min_blocks:
            continue
        q = statistics.quantiles(ws, n=4)
        w = max(0.0, statistics.median(ws))
        weights[victim][aggressor] = w
        print(f"  {victim:16} <- {aggressor:16} blocks {len(ws):6d}  w {w:5.2f}  [{q[0]:5.2f}, {q[2]:5.2f}]")
    if a.write:
        source = "scripts/fit-equivalent-blocks.py, " + ", ".join(os.path.basename(s) for s in a.stores)
        for victim, ws in weights.items():
            path = os.path.join(a.write_to or a.profiles, victim + ".kernel.toml")
            if os.path.exists(path):
                write_weights(path, ws, source)
        print(f"weights written into {len(weights)} profiles under {a.write_to or a.profiles}")


if __name__ == "__main__":
    main()
