#!/usr/bin/env python3
"""Full-residency recordings taken after padded launches (default order) against ones taken alone
(live/record-order-on-device.sh): per kernel, the median and mean raw block time (end - start) and the span at full
residency, each repeat, and the ratio default / full-only.

  scripts/record-order.py ORDER_DIR      (the folder with default.N/ and full-only.N/)
"""
import csv
import glob
import os
import re
import statistics
import sys


def full_set(path):
    """(residency, median raw, mean raw, span) of the highest-residency record set of a kernel profile."""
    text = open(path).read()
    files = re.findall(r'residency = (\d+)\s*\nfile = "([^"]+)"', text)
    r, name = max(files, key=lambda x: int(x[0]))
    rows = list(csv.DictReader(open(os.path.join(os.path.dirname(path), name))))
    raw = [int(x["end"]) - int(x["start"]) for x in rows]
    span = max(int(x["end"]) for x in rows) - min(int(x["start"]) for x in rows)
    return int(r), statistics.median(raw), statistics.mean(raw), span


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    kernels = sorted({os.path.basename(p)[: -len(".kernel.toml")] for p in glob.glob(f"{top}/*/*.kernel.toml")})
    print(f"{'kernel':<16} {'r':>3} {'default: median raw us':>24} {'full-only: median raw us':>26} "
          f"{'ratio':>6} {'span ratio':>10}")
    for k in kernels:
        d = [full_set(p) for p in sorted(glob.glob(f"{top}/default.*/{k}.kernel.toml"))]
        f = [full_set(p) for p in sorted(glob.glob(f"{top}/full-only.*/{k}.kernel.toml"))]
        if not d or not f:
            continue
        md = statistics.median(x[1] for x in d)
        mf = statistics.median(x[1] for x in f)
        sd = statistics.median(x[3] for x in d)
        sf = statistics.median(x[3] for x in f)
        print(f"{k:<16} {d[0][0]:>3} {' '.join(f'{x[1] / 1000:7.2f}' for x in d):>24} "
              f"{' '.join(f'{x[1] / 1000:7.2f}' for x in f):>26} {md / mf:6.3f} {sd / sf:10.3f}")


if __name__ == "__main__":
    main()
