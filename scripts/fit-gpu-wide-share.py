#!/usr/bin/env python3
"""Fits each suite kernel's gpu_wide_share and [gpu_wide_blocks] (docs/interference.md, "A GPU-wide share of the
residency").

The placement co-runs (live/corun-placement-on-device.sh) measured every kernel alone at k blocks an SM on 16 SMs
(the "near" and "apart" references), on 116 (the apart runs' other side) and on all 132. Under the `equivalent`
model with gpu_wide=on a kernel alone on n of the GPU's N SMs reads its recorded curve T at
    r_eff = (1 - mu) k + mu k n / N,
so the time on n SMs over the time on all N is T(r_eff) / T(k). mu is the share in [0, 1] (steps of 0.01) that
minimises the mean |relative error| of that ratio over the kernel's references; the curve is its s1 profile's
record sets (interpolated linearly, extrapolated along the last segment, as the model reads it). The s1 fit is
written into the s1 and s2 profiles of traces/live/GPU (the references are of s1 only).

Then, for every pair, the GPU-wide weight g(k <- j) from the apart co-runs (docs/interference/placement/
coruns-apart*-GPU.csv: k on V SMs at k blocks an SM, j on the other P = N - V at m): alone k reads its curve at
r_a = k + mu (k V / N - k); beside j at r_a + g m P / N; the slowdown is T(r_a + g m P / N) / T(r_a). g in [0, 20]
(steps of 0.01) minimises the mean |relative error| over the pair's partner SM counts (the median of its rows at each).
Written as [gpu_wide_blocks] into both sizes of k, for both sizes of j.

With --held-out FILE the pair weights are fitted without FILE's rows and FILE's rows are predicted (median and p90 of
the |relative error| of each row's slowdown, against none's: slowdown 1).

usage: fit-gpu-wide-share.py GPU [--write] [--held-out FILE]   (GPU: h100 or h200; writes only with --write)
"""
import collections
import csv
import glob
import os
import re
import statistics
import sys
import tomllib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def curve(profile):
    """[(residency, mean block ns)] of a profile's record sets, sorted."""
    with open(profile, "rb") as f:
        records = tomllib.load(f).get("records", [])
    points = []
    for record in records:
        ds = [int(r["end"]) - int(r["start"]) for r in rows(os.path.join(os.path.dirname(profile), record["file"]))]
        points.append((int(record["residency"]), statistics.mean(ds)))
    return sorted(points)


def mean_at(points, r):
    r = max(1.0, r)
    for (r0, t0), (r1, t1) in zip(points, points[1:]):
        if r <= r1:
            return t0 + (t1 - t0) * (r - r0) / (r1 - r0)
    (r0, t0), (r1, t1) = points[-2], points[-1]
    return t1 + max(0.0, (t1 - t0) / (r1 - r0)) * (r - r1)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("h100", "h200"):
        sys.exit(__doc__)
    gpu, write = sys.argv[1], "--write" in sys.argv[2:]
    held_out = sys.argv[sys.argv.index("--held-out") + 1] if "--held-out" in sys.argv else None
    shares = {}
    sms = 132
    refs = collections.defaultdict(list)  # (kernel, k, SMs it ran on) -> alone means
    for placement in ("all", "near", "apart"):
        path = os.path.join(ROOT, f"docs/interference/placement/coruns-{placement}-{gpu}.csv")
        for r in rows(path):
            k = int(r["victim_blocks_per_sm"])
            refs[(r["victim"], k, int(r["blocks"]) // k)].append(float(r["alone_mean_ns"]))
    print(f"# scripts/fit-gpu-wide-share.py {gpu}: kernel, share, mean |error| of the time on n SMs over the time "
          "on all, references (k blocks an SM, n SMs, median ns alone)")
    for kernel in sorted({key[0] for key in refs}):
        points = curve(os.path.join(ROOT, f"traces/live/{gpu}/{kernel}.kernel.toml"))
        obs = [(k, n, statistics.median(v)) for (name, k, n), v in refs.items() if name == kernel]
        on_all = {k: t for k, n, t in obs if n == sms}
        fit = [(k, n, t) for k, n, t in obs if n != sms and k in on_all]
        if len(points) < 2 or not fit:
            print(f"{kernel}: no fit (curve {len(points)} points, {len(fit)} references)")
            continue
        best = None
        for step in range(101):
            mu = step / 100
            err = statistics.mean(
                abs(on_all[k] * mean_at(points, (1 - mu) * k + mu * k * n / sms) / mean_at(points, k) / t - 1)
                for k, n, t in fit)
            if best is None or err < best[1] - 1e-12:
                best = (mu, err)
        mu, err = best
        shares[kernel] = mu
        print(f"{kernel}: {mu:.2f} ({100 * err:.1f} %) {sorted((k, n, round(t)) for k, n, t in obs)}")
        if write:
            suite = kernel.rsplit("-", 1)[0]
            for size in ("s1", "s2"):
                path = os.path.join(ROOT, f"traces/live/{gpu}/{suite}-{size}.kernel.toml")
                if not os.path.exists(path):
                    continue
                lines = [l for l in open(path).read().split("\n") if not l.startswith("gpu_wide_share = ")]
                at = next(i for i, l in enumerate(lines) if l.startswith("context_bytes_per_block = "))
                lines.insert(at, f"gpu_wide_share = {mu:.2f}")
                open(path, "w").write("\n".join(lines))
    fit_pairs(gpu, sms, shares, write and not held_out, held_out)


def apart_rows(path, sms):
    for r in rows(path):
        k = int(r["victim_blocks_per_sm"])
        on = int(r["blocks"]) // k
        yield (r["victim"], r["partners"], k, on, sms - on, int(r["partners_blocks_per_sm"]),
               float(r["corun_mean_ns"]) / float(r["alone_mean_ns"]))


def fit_pairs(gpu, sms, shares, write, held_out):
    points = collections.defaultdict(list)  # (victim, partner) -> [(k, V, P, m, slowdown)]
    for path in sorted(glob.glob(os.path.join(ROOT, f"docs/interference/placement/coruns-apart*-{gpu}.csv"))):
        if held_out and os.path.samefile(path, held_out):
            continue
        for r in rows(path):
            k = int(r["victim_blocks_per_sm"])
            on = int(r["blocks"]) // k
            points[(r["victim"], r["partners"])].append(
                (k, on, sms - on, int(r["partners_blocks_per_sm"]), float(r["corun_mean_ns"]) / float(r["alone_mean_ns"])))
    print(f"# GPU-wide weights g(victim <- partner) from the apart co-runs, mean |error| of the slowdown against "
          "none's, partner SM counts")
    weights = collections.defaultdict(dict)
    for (victim, partner), obs in sorted(points.items()):
        if victim not in shares:
            continue
        curve_points = curve(os.path.join(ROOT, f"traces/live/{gpu}/{victim}.kernel.toml"))
        by_placement = collections.defaultdict(list)
        for k, v, p, m, s in obs:
            by_placement[(k, v, p, m)].append(s)
        fit = [(k, v, p, m, statistics.median(s)) for (k, v, p, m), s in by_placement.items()]
        mu = shares[victim]

        def error(g):
            total = 0.0
            for k, v, p, m, s in fit:
                alone = k + mu * (k * v / sms - k)
                total += abs(mean_at(curve_points, alone + g * m * p / sms) / mean_at(curve_points, alone) / s - 1)
            return total / len(fit)

        g = min((step / 100 for step in range(2001)), key=lambda x: (round(error(x), 12), x))
        none = statistics.mean(abs(1 / s - 1) for *_, s in fit)
        print(f"{victim} <- {partner}: {g:.2f} ({100 * error(g):.1f} %, none {100 * none:.1f} %) "
              f"{sorted({p for _, _, p, _, _ in fit})}")
        if g > 0:
            weights[victim.rsplit("-", 1)[0]][partner.rsplit("-", 1)[0]] = g
    if held_out:
        errors, nones = [], []
        for victim, partner, k, v, p, m, s in apart_rows(held_out, sms):
            if victim not in shares:
                continue
            g = weights[victim.rsplit("-", 1)[0]].get(partner.rsplit("-", 1)[0], 0.0)
            curve_points = curve(os.path.join(ROOT, f"traces/live/{gpu}/{victim}.kernel.toml"))
            alone = k + shares[victim] * (k * v / sms - k)
            errors.append(abs(mean_at(curve_points, alone + g * m * p / sms) / mean_at(curve_points, alone) / s - 1))
            nones.append(abs(1 / s - 1))

        def pct(xs, q):
            xs = sorted(xs)
            return 100 * xs[min(len(xs) - 1, int(q * len(xs)))]

        print(f"held out {os.path.basename(held_out)}: {len(errors)} rows, |error| median {pct(errors, 0.5):.1f} % "
              f"p90 {pct(errors, 0.9):.1f} %; none median {pct(nones, 0.5):.1f} % p90 {pct(nones, 0.9):.1f} %")
    if not write:
        return
    for suite, row in weights.items():
        for size in ("s1", "s2"):
            path = os.path.join(ROOT, f"traces/live/{gpu}/{suite}-{size}.kernel.toml")
            if not os.path.exists(path):
                continue
            text = re.sub(r"\n\[gpu_wide_blocks\]\n(?:[^\[\n][^\n]*\n|\n(?!\[))*", "\n", open(path).read())
            table = "[gpu_wide_blocks]\n" + "".join(
                f'"{other}-{other_size}" = {g:.2f}\n' for other, g in sorted(row.items()) for other_size in ("s1", "s2")
                if os.path.exists(os.path.join(ROOT, f"traces/live/{gpu}/{other}-{other_size}.kernel.toml")))
            at = text.index("[[records]]")
            open(path, "w").write(text[:at] + table + "\n" + text[at:])


if __name__ == "__main__":
    main()
