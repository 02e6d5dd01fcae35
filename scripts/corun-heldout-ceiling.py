#!/usr/bin/env python3
"""What a never-recorded pair's co-run can be predicted from: docs/interference.md, "What the held-out pairs can be
predicted from" (session 45).

Reads one co-run recording (docs/formats.md, "Co-run records"; single-partner rows) and prints, as median / p90 of
|predicted - measured| / measured co-run block time over every repeat, the slowdown being corun_mean / alone_mean as
recorded:

- `noise`: each repeat against the mean of the other repeats of the same cell (the records' own floor);
- `none`: a slowdown of 1;
- `rank R in sample`: ln slowdown of victim v beside partner p, per slice (the victim's and the partner's shares of
  their occupancy limits, and who was launched first), as sum over R of a_v x b_p: R numbers a kernel as a victim and
  R as a partner, fitted on every pair (ridge least squares, alternating). What any model of that form could reach
  if it knew each kernel's numbers exactly;
- `rank R held out`: the same fitted on half the pairs (SPLITS seeded splits into halves, both folds), predicting the
  other half: the issue's cross-validation;
- `transitive`: a never-recorded pair (v, p) from recorded ones, as Bubble-Up (Mars et al., MICRO 2011) predicts co-run
  degradation from a probe: a third kernel P is the probe and a fourth R the reporter. p's pressure is the share of P
  at which R slows as much as it does beside p (R's curve beside P, inverted); v's slowdown is v's curve beside P at
  that share. Curves run through (0, 1) and the recorded partner shares, made non-decreasing, log-linear between
  points and extrapolated along the last segment. The prediction is the median (in log) over every (P, R) whose
  three pairs are recorded. `leave one pair out` predicts each pair from all 35 others; `held out` from a half;
- each `transitive` figure again for the pairs with and without the strongest partner (the kernel beside which
  victims slow most on average).

    python3 scripts/corun-heldout-ceiling.py CORUNS.csv [--splits 5]

Standard library only; about a minute on the ladder recording.
"""
import argparse
import collections
import csv
import importlib.util
import itertools
import math
import os
import random
import statistics

_spec = importlib.util.spec_from_file_location(
    "separable", os.path.join(os.path.dirname(os.path.abspath(__file__)), "corun-separable-bound.py"))
_separable = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_separable)
ridge = _separable.ridge  # ridge least squares, Gaussian elimination (small systems)


def load(path):
    """cells[(victim, partner, victim_share, partner_share, victim_first)] = [slowdown of each repeat]."""
    cells = collections.defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if ";" in row["partners"]:
                continue
            run = row["run"]
            kernels, rest = run.split("@", 1)
            first, second = kernels.split("+")
            shares = rest.split("/")[0].split("@")[0].split(":")
            order = run.rsplit("/", 1)[1]
            victim, partner = row["victim"], row["partners"]
            victim_is_first_named = victim == first
            vshare = float(shares[0] if victim_is_first_named else shares[1])
            pshare = float(shares[1] if victim_is_first_named else shares[0])
            victim_first = (order == "ab") == victim_is_first_named
            s = float(row["corun_mean_ns"]) / float(row["alone_mean_ns"])
            cells[(victim, partner, vshare, pshare, victim_first)].append(s)
    return cells


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def fmt(errs):
    return f"{statistics.median(errs):5.1f} / {pct(errs, 0.9):5.1f} %  ({len(errs)} rows)" if errs else "-"


def low_rank(targets, kernels, rank, lam, iterations=60):
    """targets[(v, p)] = ln slowdown; returns predict(v, p). Alternating ridge fits of a_v and b_p."""
    rnd = random.Random(0)
    a = {k: [0.3 + 0.2 * rnd.random() for _ in range(rank)] for k in kernels}
    b = {k: [0.3 + 0.2 * rnd.random() for _ in range(rank)] for k in kernels}
    by_victim = collections.defaultdict(list)
    by_partner = collections.defaultdict(list)
    for (v, p), y in targets.items():
        by_victim[v].append((p, y))
        by_partner[p].append((v, y))
    for _ in range(iterations):
        for v in kernels:
            if by_victim[v]:
                a[v] = ridge([b[p] for p, _ in by_victim[v]], [y for _, y in by_victim[v]], lam)
        for p in kernels:
            if by_partner[p]:
                b[p] = ridge([a[v] for v, _ in by_partner[p]], [y for _, y in by_partner[p]], lam)
    return lambda v, p: math.exp(sum(x * y for x, y in zip(a[v], b[p])))


def slices(cells):
    out = collections.defaultdict(dict)
    for (v, p, vs, ps, first), reps in cells.items():
        out[(vs, ps, first)][(v, p)] = reps
    return out


def errors(pred, reps):
    return [abs(pred - s) / s * 100 for s in reps]


def halves(kernels, splits):
    pairs = list(itertools.combinations(kernels, 2))
    for seed in range(splits):
        shuffled = pairs[:]
        random.Random(seed).shuffle(shuffled)
        for fold in (0, 1):
            known = set(shuffled[: len(pairs) // 2] if fold == 0 else shuffled[len(pairs) // 2:])
            yield known | {(b, a) for a, b in known}


class Curves:
    """Each (victim, partner, victim share, order)'s slowdown against the partner's share."""

    def __init__(self, cells):
        pts = collections.defaultdict(list)
        for (v, p, vs, ps, first), reps in cells.items():
            pts[(v, p, vs, first)].append((ps, statistics.mean(reps)))
        self.curves = {}
        for key, xs in pts.items():
            line = [(0.0, 1.0)]
            for x, y in sorted(xs):
                line.append((x, max(y, line[-1][1])))
            self.curves[key] = line
        self.mean = {(v, p, vs, ps, first): statistics.mean(r) for (v, p, vs, ps, first), r in cells.items()}

    @staticmethod
    def at(line, x):
        for (x0, y0), (x1, y1) in zip(line, line[1:]):
            if x <= x1:
                break
        t = (x - x0) / (x1 - x0)
        return math.exp(min(50.0, math.log(y0) + t * (math.log(y1) - math.log(y0))))

    @staticmethod
    def inverse(line, y):
        if y <= 1.0:
            return 0.0
        for (x0, y0), (x1, y1) in zip(line, line[1:]):
            if y <= y1:
                break
        if y1 <= y0:
            return x1
        return x0 + (math.log(y) - math.log(y0)) / (math.log(y1) - math.log(y0)) * (x1 - x0)

    def transitive(self, v, p, vs, ps, first, kernels, known):
        guesses = []
        for probe, reporter in itertools.permutations(kernels, 2):
            if len({probe, reporter, v, p}) < 4:
                continue
            if not ((v, probe) in known and (reporter, probe) in known and (reporter, p) in known):
                continue
            v_line = self.curves.get((v, probe, vs, first))
            r_line = self.curves.get((reporter, probe, vs, first))
            r_beside_p = self.mean.get((reporter, p, vs, ps, first))
            if not v_line or not r_line or r_beside_p is None:
                continue
            guesses.append(math.log(self.at(v_line, self.inverse(r_line, r_beside_p))))
        return math.exp(statistics.median(guesses)) if guesses else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("coruns")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.1)
    args = ap.parse_args()
    cells = load(args.coruns)
    kernels = sorted({k[0] for k in cells} | {k[1] for k in cells})
    by_slice = slices(cells)
    every_pair = {(v, p) for v in kernels for p in kernels if v != p}

    noise, none = [], []
    for reps in cells.values():
        for i, s in enumerate(reps):
            none.append(abs(1 - s) / s * 100)
            others = reps[:i] + reps[i + 1:]
            if others:
                noise.append(abs(statistics.mean(others) - s) / s * 100)
    print(f"{args.coruns}: {len(kernels)} kernels, {len(cells)} cells, {len(by_slice)} slices")
    print(f"  noise                          {fmt(noise)}")
    print(f"  none                           {fmt(none)}")

    for rank in (1, 2, 3):
        errs = []
        for cell in by_slice.values():
            predict = low_rank({k: math.log(statistics.mean(r)) for k, r in cell.items()}, kernels, rank, args.lam)
            for (v, p), reps in cell.items():
                errs += errors(predict(v, p), reps)
        print(f"  rank {rank} in sample               {fmt(errs)}")
    for rank in (1, 2):
        errs = []
        for known in halves(kernels, args.splits):
            for cell in by_slice.values():
                fit = {k: math.log(statistics.mean(r)) for k, r in cell.items() if k in known}
                predict = low_rank(fit, kernels, rank, args.lam)
                for (v, p), reps in cell.items():
                    if (v, p) not in known:
                        errs += errors(predict(v, p), reps)
        print(f"  rank {rank} held out                {fmt(errs)}")

    curves = Curves(cells)
    beside = collections.defaultdict(list)
    for (v, p, *_), reps in cells.items():
        beside[p] += reps
    strongest = max(kernels, key=lambda k: statistics.mean(beside[k]) if beside[k] else 0)

    def transitive(label, knowns):
        errs = {True: [], False: []}
        uncovered = 0
        for known in knowns:
            for (v, p, vs, ps, first), reps in cells.items():
                if known is None:
                    known_here = every_pair - {(v, p), (p, v)}
                elif (v, p) in known:
                    continue
                else:
                    known_here = known
                pred = curves.transitive(v, p, vs, ps, first, kernels, known_here)
                if pred is None:
                    uncovered += len(reps)
                    continue
                errs[strongest in (v, p)] += errors(pred, reps)
        print(f"  transitive, {label:18s} {fmt(errs[True] + errs[False])}, {uncovered} rows without a probe")
        print(f"    pairs with {strongest:18s} {fmt(errs[True])}")
        print(f"    pairs without it              {fmt(errs[False])}")

    transitive("leave one pair out", [None])
    transitive("held out", halves(kernels, args.splits))


if __name__ == "__main__":
    main()
