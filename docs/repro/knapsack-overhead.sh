#!/usr/bin/env bash
# Seed 002 Table 3: the time the reordering itself takes, as a percentage of the absolute gain in mean
# turnaround time it brings (TITAN X preset). Usage: docs/repro/knapsack-overhead.sh [SEEDS] [GPUSCHED]
set -euo pipefail
seeds=${1:-10}
G=${2:-./build/sim/gpusched}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| NB | N=32 | N=64 | N=128 | N=256 |"
echo "|---:|---:|---:|---:|---:|"
for nb in 32 64 128 256 512; do
  row="| $nb |"
  for n in 32 64 128 256; do
    : > "$work/cell"
    for ((s = 1; s <= seeds; s++)); do
      rm -rf "$work/w"
      "$G" gen synthetic --n "$n" --nb "$nb" --gpu titanx --seed "$s" --out "$work/w" >/dev/null
      w="$work/w/knapsack-n$n-nb$nb-s$s.toml"
      t=$("$G" reorder -w "$w" --time-only --solver "${SOLVER:-exact}")
      "$G" sim -w "$w" -p fifo,knapsack --set knapsack.solver="${SOLVER:-exact}" --turnaround-from arrival --format csv | awk -F, -v t="$t" \
        'NR > 1 { tt[$1] = $10 } END { print t, tt["fifo"] - tt["knapsack"] }' >> "$work/cell"
    done
    row+=$(awk '{ t += $1; g += $2 } END { printf " %.2f%% |", 100 * t / g }' "$work/cell")
  done
  echo "$row"
done
