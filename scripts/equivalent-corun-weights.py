#!/usr/bin/env python3
"""An experiment of session 41 (docs/validation.md, "The launch at the p90"): `equivalent`'s weights for the pairs
no native run fitted, taken from the co-run records instead of the victim's median weight.

For each co-run record of one victim beside one partner (traces/live/GPU/coruns.csv), the weight that makes
equivalent's rule give the measured slowdown: the victim's block time at its own blocks an SM (its recorded
curve, as `equivalent_mean_ns` reads it: linear between record sets, extrapolated along the last segment) times the
measured slowdown is its time at r_eff, and w = (r_eff - own blocks) / the partner's exposure. The median over a
pair's records (both launch orders, every mix) serves every size of the two suite kernels.

Writes copies of the profiles with those weights added where [equivalent_blocks] has none (their record files
referenced in place), the co-run file beside them, and copies of the three validation workloads reading them:

    python3 scripts/equivalent-corun-weights.py --gpusched build/sim/gpusched --gpu h100 --out scratch-cw
    gpusched-live validate -w scratch-cw/workloads/validate-h100.toml --policy ... --interference auto ...

Prints each pair's weight beside the native-fitted one where the profile has it. Not a model of the project: the
experiment was not kept (docs/validation.md says why).
"""
import argparse
import csv
import glob
import os
import re
import shutil
import statistics
import subprocess
import tomllib

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6}


def suite(name):
    return re.sub(r"-s\d+$", "", name)


def curves_of(gpusched, profiles):
    """Each profile's mean block time per recorded residency, as `gpusched validate` prints it."""
    curves = {}
    for f in profiles:
        out = subprocess.run([gpusched, "validate", f], capture_output=True, text=True, check=True).stdout
        name = re.search(r"kernel (\S+):", out).group(1)
        pts = [(int(m.group(1)), float(m.group(2)) * UNIT_NS[m.group(3)])
               for m in re.finditer(r"records at residency (\d+): .*?block time mean ([\d.]+) (us|ms|ns)", out)]
        curves[name] = sorted(pts)
    return curves


def time_at(curve, r):
    if r <= curve[0][0]:
        return curve[0][1]
    for (r0, v0), (r1, v1) in zip(curve, curve[1:]):
        if r <= r1:
            return v0 + (v1 - v0) * (r - r0) / (r1 - r0)
    (r0, v0), (r1, v1) = curve[-2], curve[-1]
    return v1 + max(0.0, (v1 - v0) / (r1 - r0)) * (r - r1)


def residency_for(curve, t):
    lo, hi = 1.0, 1000.0
    if time_at(curve, lo) >= t:
        return lo
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if time_at(curve, mid) < t else (lo, mid)
    return lo


def fit_report(rows, curves):
    """In sample: each co-run row predicted with its group's median weight, by equivalent's rule."""
    groups = {
        "one weight per pair (both launch orders, every mix)": lambda r: (r[0], r[1]),
        "per pair and launch order": lambda r: (r[0], r[1], r[5]),
        "per pair, launch order and mix (the victim's blocks an SM)": lambda r: (r[0], r[1], r[5], round(r[2])),
    }
    for label, key in groups.items():
        by = {}
        for r in rows:
            by.setdefault(key(r), []).append(r[6])
        w = {k: max(0.0, statistics.median(v)) for k, v in by.items()}
        errors = sorted(
            abs(time_at(curves[r[0]], r[2] + w[key(r)] * r[3]) / time_at(curves[r[0]], r[2]) - r[4]) / r[4] * 100
            for r in rows)
        print(f"{label}: co-run block time error median {statistics.median(errors):.1f} %, "
              f"p90 {errors[int(0.9 * (len(errors) - 1))]:.1f} % ({len(errors)} rows, {len(w)} weights)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpusched", required=True)
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--out", help="folder for the profile and workload copies (not with --fit-report)")
    ap.add_argument("--order", choices=["both", "victim-first"], default="both",
                    help="co-runs used: both launch orders, or only those that launched the victim first (its blocks "
                         "the older: no young-block starvation in the weight)")
    ap.add_argument("--fit-report", action="store_true",
                    help="only print how well one weight (per pair; per pair and launch order; per pair, order and "
                         "mix) reproduces the co-runs it was taken from, in sample, and write nothing")
    args = ap.parse_args()
    src = f"traces/live/{args.gpu}"
    profiles = sorted(glob.glob(f"{src}/*.kernel.toml"))
    curves = curves_of(args.gpusched, profiles)
    weights, rows = {}, []
    with open(f"{src}/coruns.csv") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            victim, partner = r["victim"], r["partners"]
            first = r["run"].split("@")[0].split("+")[0 if r["run"].endswith("/ab") else 1]
            if args.order == "victim-first" and first != victim:
                continue
            if ";" in partner or len(curves.get(victim, [])) < 2 or float(r["exposure"]) <= 0.05:
                continue
            own = float(r["victim_exposure"]) if float(r.get("victim_exposure") or 0) > 0 else float(
                r["victim_blocks_per_sm"])
            slowdown = float(r["corun_mean_ns"]) / float(r["alone_mean_ns"])
            target = time_at(curves[victim], own) * slowdown
            w = (residency_for(curves[victim], target) - own) / float(r["exposure"])
            weights.setdefault((suite(victim), suite(partner)), []).append(w)
            rows.append((victim, partner, own, float(r["exposure"]), slowdown, first == victim, w))
    # The profile reader takes weights in [0, 64] (a partner that speeds the victim up weighs 0).
    pair_weight = {pair: min(64.0, max(0.0, statistics.median(ws))) for pair, ws in weights.items()}
    if args.fit_report:
        fit_report(rows, curves)
        return
    if not args.out:
        ap.error("--out is required without --fit-report")

    dst = os.path.join(args.out, args.gpu)
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(dst)
    shutil.copy(f"{src}/coruns.csv", dst)
    names = [tomllib.load(open(p, "rb"))["name"] for p in profiles]
    rel = os.path.relpath(src, dst)
    added = 0
    for p in profiles:
        text = open(p).read()
        prof = tomllib.loads(text)
        k = prof["name"]
        fitted = prof.get("equivalent_blocks", {})
        for (v, j), w in sorted(pair_weight.items()):
            if v == suite(k) and k.endswith("-s1"):
                native = fitted.get(f"{j}-s1")
                print(f"{k:16s} <- {j + '-s1':16s} co-runs {w:7.2f}" + ("" if native is None else f"   native fit {native}"))
        new = [f'"{j}" = {pair_weight[(suite(k), suite(j))]:.3f}' for j in names
               if suite(j) != suite(k) and j not in fitted and (suite(k), suite(j)) in pair_weight]
        added += len(new)
        if new and "[equivalent_blocks]\n" in text:
            text = text.replace("[equivalent_blocks]\n", "[equivalent_blocks]\n" + "\n".join(new) + "\n", 1)
        elif new:
            text += "\n[equivalent_blocks]\n" + "\n".join(new) + "\n"
        text = re.sub(r'^file = "(.*)"', lambda m: f'file = "{rel}/{m.group(1)}"', text, flags=re.M)
        open(os.path.join(dst, os.path.basename(p)), "w").write(text)
    os.makedirs(os.path.join(args.out, "workloads"))
    for w in ("validate", "live", "bursts"):
        text = open(f"traces/workloads/{w}-{args.gpu}.toml").read().replace(f"../live/{args.gpu}/", f"../{args.gpu}/")
        open(os.path.join(args.out, "workloads", f"{w}-{args.gpu}.toml"), "w").write(text)
    print(f"{added} weights added to the profiles in {dst}")


if __name__ == "__main__":
    main()
