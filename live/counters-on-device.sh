#!/usr/bin/env bash
# What the "Fidelity 3, counters" device call runs (docs/interference.md, "Counted instructions and DRAM
# traffic"): each suite kernel at s1 and s2 recorded once at its full residency under Nsight Compute, which
# counts per launch its warp instructions, global load/store instructions and their L1 requests and sectors,
# and its DRAM bytes. `scripts/ncu-to-profiles.py` turns the CSV into the profiles' per-block fields.
# Outputs under $OUT: counters-TAG.csv (ncu's raw page, one row per launch) and the log.
#   bash live/counters-on-device.sh TAG        (TAG names the GPU: h100, h200)
set -uo pipefail
tag=${1:?tag}
bin=$PWD/build/live/gpusched-live
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
metrics=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,smsp__inst_executed.sum
metrics+=,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,launch__grid_size,launch__block_size
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  echo "ncu: $ncu"; "$ncu" --version
  first=1
  for k in $suite_kernels; do
    for s in $suite_sizes; do
      # --clock-control none: the clocks stay as the recordings had them (METHOD.md); one recording at the full
      # residency (the largest the kernel's own profile lists), no cost-measurement batches.
      full=$(awk '/^residency/ {r=$3} END {print r}' traces/live/$tag/$k-$s.kernel.toml)
      "$ncu" --clock-control none --metrics "$metrics" --csv --page raw --print-units base \
        --log-file /tmp/ncu-$k-$s.csv \
        "$bin" record --kernel $k --size $s --residency "$full" --repeats 1 --batch 1 --out /tmp/rec-$k-$s
      rc=$?
      echo "ncu $k $s residency $full exit $rc"
      if ((first)); then
        head -c 2000 /tmp/ncu-$k-$s.csv
        first=0
      fi
      # ncu's CSV: one header row, one units row, then one row per profiled launch; keep the suite kernels'
      # rows (the data-filling kernels are named fill_*, the clock probe timer_steps_kernel).
      python3 - "$k" "$s" "$full" /tmp/ncu-$k-$s.csv "$out/counters-$tag.csv" <<'PY'
import csv, os, sys
kernel, size, full, src, dst = sys.argv[1:]
with open(src) as f:
    lines = [l for l in f if l.startswith('"')]
rows = list(csv.reader(lines))
if len(rows) < 3:
    print(f"no ncu rows for {kernel}-{size}"); sys.exit(0)
head, rows = rows[0], rows[2:]
name_col = head.index("Kernel Name")
keep = [r for r in rows if not r[name_col].startswith(("fill_", "timer_", "void gpusched::live::(anonymous namespace)::fill"))
        and "fill_" not in r[name_col] and "timer_steps" not in r[name_col]]
wanted = ("dram__", "gpu__time", "l1tex__", "lts__", "sm__cycles", "smsp__inst")
metric_cols = [i for i, h in enumerate(head) if h.startswith(wanted) and h.endswith(".sum")]
metric_cols += [head.index(h) for h in ("sm__cycles_active.avg", "launch__grid_size", "launch__block_size",
                                        "launch__registers_per_thread", "launch__barrier_count")]
new = not os.path.exists(dst)
with open(dst, "a", newline="") as f:
    w = csv.writer(f)
    if new:
        w.writerow(["kernel", "size", "residency", "launch", "name"] + [head[i] for i in metric_cols])
    for n, r in enumerate(keep):
        w.writerow([kernel, size, full, n, r[name_col][:80]] + [r[i].replace(",", "") for i in metric_cols])
print(f"{kernel}-{size}: {len(keep)} suite launches of {len(rows)}")
PY
    done
  done
} 2>&1 | tee "$out/counters-$tag.log"
ls -la "$out"
