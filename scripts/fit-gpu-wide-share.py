#!/usr/bin/env python3
"""Fits each suite kernel's gpu_wide_share (docs/interference.md, "A GPU-wide share of the residency").

The placement co-runs (live/corun-placement-on-device.sh) measured every kernel alone at k blocks an SM on 16 SMs
(the "near" and "apart" references), on 116 (the apart runs' other side) and on all 132. Under the `equivalent`
model with gpu_wide=on a kernel alone on n of the GPU's N SMs reads its recorded curve T at
    r_eff = (1 - mu) k + mu k n / N,
so the time on n SMs over the time on all N is T(r_eff) / T(k). mu is the share in [0, 1] (steps of 0.01) that
minimises the mean |relative error| of that ratio over the kernel's references; the curve is its s1 profile's
record sets (interpolated linearly, extrapolated along the last segment, as the model reads it). The s1 fit is
written into the s1 and s2 profiles of traces/live/GPU (the references are of s1 only).

usage: fit-gpu-wide-share.py GPU [--write]     (GPU: h100 or h200; prints the fit, writes only with --write)
"""
import collections
import csv
import os
import re
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def curve(profile):
    """[(residency, mean block ns)] of a profile's record sets, sorted."""
    text = open(profile).read()
    points = []
    for res, name in re.findall(r'\[\[records\]\]\s*residency\s*=\s*(\d+)\s*file\s*=\s*"([^"]+)"', text):
        ds = [int(r["end"]) - int(r["start"]) for r in rows(os.path.join(os.path.dirname(profile), name))]
        points.append((int(res), statistics.mean(ds)))
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


if __name__ == "__main__":
    main()
