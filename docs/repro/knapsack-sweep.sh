#!/usr/bin/env bash
# Seed 002 Tables 2 and 4-7: synthetic workloads (N kernels of 4..NB blocks, 32 streams) submitted in the
# default order (fifo) and reordered (knapsack), on the TITAN X and K40 presets; mean ANTT and STP over the
# seeds. Usage: docs/repro/knapsack-sweep.sh [SEEDS] [GPUSCHED]   (from the repository root; default 50)
set -euo pipefail
seeds=${1:-50}
G=${2:-./build/sim/gpusched}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for gpu in titanx k40; do
  echo "### $gpu ($seeds seeds per cell; mean ANTT and STP, default order / reordered)"
  echo
  echo "| NB | N=32 ANTT | N=32 STP | N=64 ANTT | N=64 STP | N=128 ANTT | N=128 STP | N=256 ANTT | N=256 STP |"
  echo "|---:|---|---|---|---|---|---|---|---|"
  for nb in 32 64 128 256 512; do
    row="| $nb |"
    for n in 32 64 128 256; do
      : > "$work/cell.csv"
      for ((s = 1; s <= seeds; s++)); do
        rm -rf "$work/w"
        "$G" gen synthetic --n "$n" --nb "$nb" --gpu "$gpu" --seed "$s" --out "$work/w" >/dev/null
        "$G" sim -w "$work/w/knapsack-n$n-nb$nb-s$s.toml" -p fifo,knapsack --turnaround-from arrival --format csv | tail -n +2 >> "$work/cell.csv"
      done
      row+=$(awk -F, '{ n[$1]++; antt[$1] += $3; stp[$1] += $2 }
        END { printf " %.1f / %.1f | %.1f / %.1f |", antt["fifo"] / n["fifo"], antt["knapsack"] / n["knapsack"],
                                                     stp["fifo"] / n["fifo"], stp["knapsack"] / n["knapsack"] }' "$work/cell.csv")
    done
    echo "$row"
  done
  echo
done
