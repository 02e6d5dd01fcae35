#!/usr/bin/env python3
"""Median |error| over the policies of `gpusched-live validate` outputs, per interference model (the table in
docs/validation.md, "Predictions against executions on an H100").

Usage: python3 scripts/validation-medians.py docs/validation/validate-*.txt
"""
import re
import statistics
import sys

ROW = re.compile(r"^(\S+)\s+(\S+)\s+\d+\s+\d+\s+\S+ \S+\s+\S+ \S+\s+(\S+)%\s+(\S+)%\s+(\S+)%\s+(\S+)%\s+(\S+)")


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("| file | model | makespan | STP | ANTT | turnaround | block-time KS | policies |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        rows = {}
        with open(path) as f:
            for line in f:
                m = ROW.match(line)
                if m:
                    rows.setdefault(m.group(2), []).append([float(m.group(i)) for i in range(3, 7)] + [m.group(7)])
        for model, values in rows.items():
            cells = [f"{statistics.median(abs(v[i]) for v in values):.1f}%" for i in range(4)]
            ks = [float(v[4]) for v in values if v[4] != "-"]
            cells.append(f"{statistics.median(ks):.3f}" if ks else "-")
            print(f"| {path} | {model} | " + " | ".join(cells) + f" | {len(values)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
