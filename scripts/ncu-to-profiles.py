#!/usr/bin/env python3
"""Writes Nsight Compute counts into the recorded kernel profiles (docs/interference.md, "Counted instructions
and DRAM traffic").

Input: the CSV that live/counters-on-device.sh writes (one row per profiled launch of each suite kernel and
size). For each kernel and size the launch with the fewest instructions is the uninstrumented one (the recorder's
warm-up: stamping adds instructions); per block it gives

  instructions_per_block         = smsp__inst_executed.sum / grid            (warp instructions)
  memory_instructions_per_block  = (global load + global store warp instructions) / grid
  dram_bytes_per_block           = (dram__bytes_read.sum + dram__bytes_write.sum) / grid
  uncoalesced_fraction           = clamp((sectors per request - 4) / (32 - 4), 0, 1)

the last because a warp's coalesced 4-byte access touches 4 sectors of 32 bytes and a fully uncoalesced one 32
(one per thread). The fields are written into PROFILE_DIR/KERNEL-SIZE.kernel.toml after shared_memory_per_block
(replacing earlier values), with a provenance entry `counters`.

Usage: scripts/ncu-to-profiles.py COUNTERS.csv PROFILE_DIR "NOTE FOR PROVENANCE"
"""
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

FIELDS = ["instructions_per_block", "memory_instructions_per_block", "dram_bytes_per_block", "uncoalesced_fraction"]


def per_block(rows):
    f = lambda r, k: float(r[k])
    r = min(rows, key=lambda r: f(r, "smsp__inst_executed.sum"))
    grid = f(r, "launch__grid_size")
    requests = f(r, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") + f(
        r, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
    sectors = f(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + f(
        r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
    spr = sectors / requests if requests > 0 else 4.0
    return {
        "instructions_per_block": round(f(r, "smsp__inst_executed.sum") / grid, 1),
        "memory_instructions_per_block": round(
            (f(r, "smsp__inst_executed_op_global_ld.sum") + f(r, "smsp__inst_executed_op_global_st.sum")) / grid, 2),
        "dram_bytes_per_block": round((f(r, "dram__bytes_read.sum") + f(r, "dram__bytes_write.sum")) / grid, 1),
        "uncoalesced_fraction": round(min(1.0, max(0.0, (spr - 4.0) / 28.0)), 4),
    }


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    counters, profile_dir, note = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    groups = defaultdict(list)
    with open(counters) as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            if not row.get("kernel") or not row.get("size"):
                sys.exit(f"{counters}:{line}: field kernel/size: missing")
            groups[(row["kernel"], row["size"])].append(row)
    for (kernel, size), rows in sorted(groups.items()):
        path = profile_dir / f"{kernel}-{size}.kernel.toml"
        if not path.exists():
            print(f"skip {kernel}-{size}: no {path}")
            continue
        values = per_block(rows)
        lines = [l for l in path.read_text().splitlines() if not re.match(rf"^({'|'.join(FIELDS)}|counters) = ", l)]
        at = next(i for i, l in enumerate(lines) if l.startswith("shared_memory_per_block = ")) + 1
        lines[at:at] = [f"{k} = {values[k]}" for k in FIELDS]
        prov = next(i for i, l in enumerate(lines) if l.strip() == "[provenance]") + 1
        lines.insert(prov, f'counters = "{note}"')
        path.write_text("\n".join(lines) + "\n")
        print(f"{kernel}-{size}: " + ", ".join(f"{k} {values[k]}" for k in FIELDS))


if __name__ == "__main__":
    main()
