#!/usr/bin/env bash
# Seed 002 Tables 2 and 4-7: synthetic workloads (N kernels of 4..NB blocks, 32 streams) submitted in the
# default order (fifo) and reordered (knapsack), on the TITAN X and K40 presets; mean ANTT and STP over the
# seeds. Usage: docs/repro/knapsack-sweep.sh [SEEDS] [GPUSCHED]   (from the repository root; default 50)
# The seeds of a cell run in parallel on JOBS processes (default: every core); the rows are gathered in seed
# order, so the means are those of a serial run.
set -euo pipefail
seeds=${1:-50}
G=${2:-./build/sim/gpusched}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One seed of one cell: generate the workload, simulate it under fifo and knapsack, keep the rows.
one_seed() {
  local gpu=$1 n=$2 nb=$3 s=$4 dir="$work/$1-$2-$3-$4"
  mkdir -p "$dir"
  "$G" gen synthetic --n "$n" --nb "$nb" --gpu "$gpu" --seed "$s" --out "$dir" >/dev/null
  "$G" sim -w "$dir/knapsack-n$n-nb$nb-s$s.toml" -p fifo,knapsack --turnaround-from arrival --format csv |
    tail -n +2 > "$dir/rows.csv"
}
export -f one_seed
export G work
cells=40 done_cells=0 start=$SECONDS
for gpu in titanx k40; do
  echo "### $gpu ($seeds seeds per cell; mean ANTT and STP, default order / reordered)"
  echo
  echo "| NB | N=32 ANTT | N=32 STP | N=64 ANTT | N=64 STP | N=128 ANTT | N=128 STP | N=256 ANTT | N=256 STP |"
  echo "|---:|---|---|---|---|---|---|---|---|"
  for nb in 32 64 128 256 512; do
    row="| $nb |"
    for n in 32 64 128 256; do
      seq 1 "$seeds" | xargs -P "$jobs" -I{} bash -c 'one_seed "$@"' _ "$gpu" "$n" "$nb" {}
      : > "$work/cell.csv"
      for ((s = 1; s <= seeds; s++)); do
        cat "$work/$gpu-$n-$nb-$s/rows.csv" >> "$work/cell.csv"
        rm -rf "$work/$gpu-$n-$nb-$s"
      done
      done_cells=$((done_cells + 1))
      elapsed=$((SECONDS - start))
      if [[ -t 2 ]]; then  # a progress line on a terminal only
        printf '\r\033[Kknapsack sweep: %d/%d cells, %d s, ETA %d s' "$done_cells" "$cells" "$elapsed" \
          $((elapsed * (cells - done_cells) / done_cells)) >&2
      fi
      row+=$(awk -F, '{ n[$1]++; antt[$1] += $3; stp[$1] += $2 }
        END { printf " %.1f / %.1f | %.1f / %.1f |", antt["fifo"] / n["fifo"], antt["knapsack"] / n["knapsack"],
                                                     stp["fifo"] / n["fifo"], stp["knapsack"] / n["knapsack"] }' "$work/cell.csv")
    done
    echo "$row"
  done
  echo
done
[[ -t 2 ]] && echo >&2
exit 0
