#!/usr/bin/env python3
"""Shipped recordings against fresh ones of the same kernels (docs/formats.md, "Recorded launches run warm").

For every profile in TRACES (NAME.kernel.toml) and each of its record sets, the span (last block end), the first
wave's median block time (blocks starting within 5 us of the first) and the median of every block's raw time, in the
shipped recording and in each fresh one (folders written by `gpusched-live record`, e.g. by
live/rerecord-on-device.sh). A record set is flagged where the fresh recordings agree with each other and not with the
shipped one: span off by more than 1 % and by more than twice the fresh repeats' spread, or first wave off by more
than 5 %. A recording made on freshly allocated buffers shows as a slow first wave (its blocks touch the memory first).

  python3 scripts/record-drift.py traces/live/h100 rec1 rec2 [--only gather-s1,gather-s2]
"""
import argparse
import csv
import os
import re
import statistics
import sys

FIRST_WAVE_NS = 5000


def summary(path):
    """(span, first-wave median, median) of a record set's raw block times, ns."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        for field in ("start", "end"):
            if field not in (reader.fieldnames or []):
                raise ValueError(f"{path}: line 1: no '{field}' column")
        for line, row in enumerate(reader, start=2):
            try:
                rows.append((int(row["start"]), int(row["end"])))
            except (TypeError, ValueError):
                field = "start" if not (row["start"] or "").strip().isdigit() else "end"
                raise ValueError(f"{path}: line {line}: field '{field}': not a whole number of ns") from None
    if not rows:
        raise ValueError(f"{path}: no blocks")
    rows.sort()
    t0 = rows[0][0]
    first = [e - s for s, e in rows if s < t0 + FIRST_WAVE_NS]
    return max(e for _, e in rows), statistics.median(first), statistics.median(e - s for s, e in rows)


def record_sets(profile):
    """[(residency, file)] of a profile, in file order."""
    text = open(profile).read()
    return [(int(r), f) for r, f in re.findall(r'residency\s*=\s*(\d+)\s*\nfile\s*=\s*"([^"]+)"', text)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", help="folder of the shipped profiles")
    ap.add_argument("fresh", nargs="+", help="folders of fresh recordings of the same kernels")
    ap.add_argument("--only", help="comma-separated profile names (default: every profile in TRACES)")
    a = ap.parse_args()

    for d in [a.traces] + a.fresh:
        if not os.path.isdir(d):
            raise ValueError(f"{d}: not a folder")
    names = sorted(n[: -len(".kernel.toml")] for n in os.listdir(a.traces) if n.endswith(".kernel.toml"))
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    print(f"{'profile':16s} {'res':>4s}  span shipped, fresh (us), change (fresh repeats' spread);"
          " first-wave median shipped, fresh (us), change; median block change")
    flagged = 0
    for name in names:
        for residency, file in record_sets(os.path.join(a.traces, name + ".kernel.toml")):
            fresh_paths = [os.path.join(d, file) for d in a.fresh]
            missing = [p for p in fresh_paths if not os.path.exists(p)]
            if missing:
                print(f"{name:16s} r{residency:>3d}  not in {', '.join(missing)}")
                continue
            shipped = summary(os.path.join(a.traces, file))
            fresh = [summary(p) for p in fresh_paths]
            mean = [statistics.mean(f[i] for f in fresh) for i in range(3)]
            spans = [f[0] for f in fresh]
            spread = (max(spans) - min(spans)) / min(spans)
            d_span, d_first, d_median = (mean[i] / shipped[i] - 1 for i in range(3))
            flag = abs(d_span) > max(0.01, 2 * spread) or abs(d_first) > 0.05
            flagged += flag
            print(f"{name:16s} r{residency:>3d}  {shipped[0] / 1e3:9.1f} {' '.join(f'{s / 1e3:9.1f}' for s in spans)}"
                  f" {100 * d_span:+5.1f}% ({100 * spread:.1f}%);  {shipped[1] / 1e3:7.1f}"
                  f" {' '.join(f'{f[1] / 1e3:7.1f}' for f in fresh)} {100 * d_first:+6.1f}%;  {100 * d_median:+5.1f}%"
                  f"{'  <== differs' if flag else ''}")
    print(f"{flagged} record sets differ beyond the fresh recordings' spread")


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"record-drift: {e}")
