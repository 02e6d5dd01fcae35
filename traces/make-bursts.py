#!/usr/bin/env python3
"""Writes traces/workloads/bursts-{h100,h200}.toml: a workload that stresses the GPU's front-end timing (issue
"Fidelity 1"). 8 bursts of 7 launches (56 in all) of the live suite's short kernels (each 30-280 us alone),
bursts 900 us apart (about the work of one burst), launches within a burst staggered by 5-50 us; in each burst the last two launches share a
stream (the second waits for the first), and from the second burst on, one launch waits through an event for a
launch of the burst before. Deterministic (seeded): the command is the record.
    python3 traces/make-bursts.py
"""
import random

KERNELS = ["blackscholes-s1", "histogram-s1", "xtea-s1", "stencil-s1", "sad-s1", "sgemm-s1",
           "blackscholes-s2", "histogram-s2", "xtea-s2"]


def write(gpu: str) -> None:
    rng = random.Random(2211)
    lines = [
        f"# Bursts of short launches on {gpu.upper()} (traces/make-bursts.py writes this file; traces/README.md).",
        "format = \"gpusched-workload\"", "version = 1", f"name = \"bursts-{gpu}\"", f"gpu = \"{gpu}\"", "",
        "[kernels]"]
    for k in KERNELS:
        lines.append(f"{k.replace('-', '_')} = \"../live/{gpu}/{k}.kernel.toml\"")
    for b in range(8):
        t = b * 900_000
        ids = []
        for j in range(7):
            k = rng.choice(KERNELS)
            lid = f"b{b}-{j}-{k.split('-')[0]}"
            ids.append(lid)
            lines += ["", "[[launch]]", f"id = \"{lid}\"", f"kernel = \"{k.replace('-', '_')}\"", f"arrival_ns = {t}"]
            if j >= 5:
                lines.append(f"stream = \"chain{b}\"")
            if j == 3 and b > 0:
                lines.append(f"after = [\"{prev[6]}\"]")
            t += rng.randint(5, 50) * 1000
        prev = ids
    with open(f"traces/workloads/bursts-{gpu}.toml", "w") as f:
        f.write("\n".join(lines) + "\n")


for g in ("h100", "h200"):
    write(g)
