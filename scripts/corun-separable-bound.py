#!/usr/bin/env python3
"""How well a model that is separable in the two kernels can predict co-runs: docs/interference.md, "How far a weight
per pair can go" (session 41).

Each single-partner co-run record of traces/live/GPU/coruns.csv becomes a target: `eqw`, the log of the `equivalent`
weight that reproduces the measured slowdown on the victim's own residency curve (scripts/equivalent-corun-weights.py's
rule), or `lnln`, log(ln slowdown). The model is a ridge least-squares fit of that target on one term per victim kernel
(its sensitivity), one per partner kernel (its pressure), c x log(partner exposure) and, with `order`, the partner
launched first and that times log(exposure). Printed per target: the fit on every record (in sample), and over five
seeded splits of the kernel pairs into halves, each half predicted from a fit on the other (held out), the median and
p90 of |predicted - measured| / measured slowdown.

    python3 scripts/corun-separable-bound.py --gpusched build/sim/gpusched [--gpu h100]
"""
import argparse
import csv
import glob
import importlib.util
import math
import os
import random
import statistics

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ecw", os.path.join(here, "equivalent-corun-weights.py"))
ecw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ecw)


def solve(a, b):
    """Gaussian elimination with partial pivoting (the systems are small: two terms per kernel and three more)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def ridge(xs, ys, lam=0.1):
    n = len(xs[0])
    a = [[sum(x[i] * x[j] for x in xs) + (lam if i == j else 0.0) for j in range(n)] for i in range(n)]
    b = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(n)]
    return solve(a, b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpusched", required=True)
    ap.add_argument("--gpu", default="h100")
    args = ap.parse_args()
    src = f"traces/live/{args.gpu}"
    curves = ecw.curves_of(args.gpusched, sorted(glob.glob(f"{src}/*.kernel.toml")))
    rows = []
    with open(f"{src}/coruns.csv") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            k, j = r["victim"], r["partners"]
            if ";" in j or len(curves.get(k, [])) < 2 or float(r["exposure"]) <= 0.05:
                continue
            own = float(r["victim_exposure"]) if float(r.get("victim_exposure") or 0) > 0 else float(
                r["victim_blocks_per_sm"])
            e = float(r["exposure"])
            s = float(r["corun_mean_ns"]) / float(r["alone_mean_ns"])
            first = r["run"].split("@")[0].split("+")[0 if r["run"].endswith("/ab") else 1]
            w = (ecw.residency_for(curves[k], ecw.time_at(curves[k], own) * s) - own) / e
            rows.append(dict(k=k, j=j, own=own, e=e, s=s, pf=0.0 if first == k else 1.0, w=w,
                             pair=tuple(sorted((ecw.suite(k), ecw.suite(j))))))
    kernels = sorted({r["k"] for r in rows} | {r["j"] for r in rows})
    index = {k: i for i, k in enumerate(kernels)}

    def features(r, order):
        x = [0.0] * (2 * len(kernels) + 3)
        x[index[r["k"]]] = 1.0
        x[len(kernels) + index[r["j"]]] = 1.0
        x[-3] = math.log(r["e"])
        if order:
            x[-2] = r["pf"]
            x[-1] = r["pf"] * math.log(r["e"])
        return x

    def target(r, kind):
        if kind == "eqw":
            return math.log(max(r["w"], 0.02))
        return math.log(max(math.log(max(r["s"], 1.001)), 1e-3))

    def predicted(r, kind, y):
        if kind == "eqw":
            c = curves[r["k"]]
            return ecw.time_at(c, r["own"] + math.exp(y) * r["e"]) / ecw.time_at(c, r["own"])
        return math.exp(math.exp(y))

    def errors(fit_rows, test_rows, kind, order):
        b = ridge([features(r, order) for r in fit_rows], [target(r, kind) for r in fit_rows])
        return [abs(predicted(r, kind, sum(u * v for u, v in zip(features(r, order), b))) - r["s"]) / r["s"] * 100
                for r in test_rows]

    def summary(errs):
        errs = sorted(errs)
        return f"median {statistics.median(errs):5.1f} %, p90 {errs[int(0.9 * (len(errs) - 1))]:5.1f} %"

    pairs = sorted({r["pair"] for r in rows})
    print(f"{len(rows)} single-partner co-run records, {len(pairs)} kernel pairs, {len(kernels)} kernels")
    for kind in ("eqw", "lnln"):
        for order in (False, True):
            held = []
            for seed in range(5):
                shuffled = pairs[:]
                random.Random(seed).shuffle(shuffled)
                half = set(shuffled[: len(shuffled) // 2])
                for fold in (True, False):
                    fit = [r for r in rows if (r["pair"] in half) == fold]
                    test = [r for r in rows if (r["pair"] in half) != fold]
                    held += errors(fit, test, kind, order)
            label = f"{kind}{' + order' if order else ''}"
            print(f"{label:14s} in sample {summary(errors(rows, rows, kind, order))}; held out {summary(held)}")


if __name__ == "__main__":
    main()
