#!/usr/bin/env bash
# The summary table at the top of docs/reproductions.md: every paper's headline numbers beside ours, each taken
# from the output of the reproduction script that prints the full table, with a verdict by a stated rule:
#   yes         ours within 10 % of the paper's value (or inside the paper's range)
#   shape only  not within 10 %, but on the same side (the same sign of a gain, the same order of policies)
#   no          neither; the cause follows in a line
# Usage: docs/repro/summary.sh [GPUSCHED]   (from the repository root; about 12 minutes on 2 cores, most of it
# seed 002's sweep at 50 seeds and seed 000's 1000-instance mixes). Set SWEEP_SEEDS to shorten the sweep.
set -euo pipefail
G=${1:-./build/sim/gpusched}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash docs/repro/ercbench-pairs.sh "$G" > "$work/001.txt"
bash docs/repro/knapsack-sweep.sh "${SWEEP_SEEDS:-50}" "$G" > "$work/002.txt"
SOLVER=greedy bash docs/repro/knapsack-overhead.sh 10 "$G" > "$work/002-overhead.txt"
PARTS=main bash docs/repro/kernelet-mixes.sh "$work/kernelet" > "$work/000.txt"
bash docs/repro/chimera.sh "$G" > "$work/003.txt"
bash docs/repro/sharegpu.sh "$G" > "$work/004.txt"

# verdict PAPER OURS [FALLBACK]: yes within 10 %, else FALLBACK (default: no).
verdict() {
  awk -v p="$1" -v o="$2" -v f="${3:-no}" 'BEGIN { d = o - p; if (d < 0) d = -d; a = p < 0 ? -p : p;
    print (d <= 0.10 * a) ? "yes" : f }'
}
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$@"; }

echo "| seed | result | paper | ours | reproduced | cause, where not |"
echo "|---|---|---|---|---|---|"

# Seed 001: Table 5 (0-100 cycles apart), geometric means; the worst pair of MPMax.
t5() { awk -v p="$1" -v c="$2" '/^### staggered-0-100-cycles/ { on = 1 } /^### second/ { on = 0 }
  on && $2 == p { split($0, f, "|"); v = f[c + 2]; sub(/^ *[0-9.]+ \(/, "", v); sub(/\).*/, "", v); print v; exit }' \
  "$work/001.txt"; }
for x in "srtf STP 1.59 1" "srtf ANTT 1.63 2" "sjf-oracle STP 1.82 1" "sjf-oracle ANTT 1.13 2" "fifo ANTT 3.66 2" \
  "mpmax ANTT 2.15 2"; do
  set -- $x
  ours=$(t5 "$1" "$4")
  v=$(verdict "$3" "$ours" "shape only")
  cause=""
  [[ $1 == fifo && $v != yes ]] && cause="not ours alone: an independent block-level model of the study from Tables 2-3 gives 2.91; what the paper's FIFO does differently is not stated"
  [[ $1 == mpmax && $v != yes ]] && cause="see the worst pair below"
  row 001 "Table 5, $1 $2 (geometric mean)" "$3" "$ours" "$v" "$cause"
done
worst=$(awk '/instant placement/ { sub(/.*ANTT /, ""); print; exit }' "$work/001.txt")
row 001 "MPMax's worst pair ANTT (SHA1+JPEG-d)" "10.08" "$worst" "$(verdict 10.08 "$worst")" \
  "SHA1 takes every block slot before JPEG-d arrives; JIT MPMax reserves only freed slots (not the dispatch rate)"

# Seed 002: ranges over the 20 cells of each GPU's table.
ranges() { awk -v gpu="$1" '$0 ~ "^### " gpu { on = 1; next } /^### / { on = 0 }
  on && /^\| [0-9]+ \|/ { n = split($0, f, "|"); for (i = 3; i + 1 <= n - 1; i += 2) {
      split(f[i], a, " / "); split(f[i + 1], s, " / ");
      r = 100 * (1 - a[2] / a[1]); g = s[2] / s[1];
      if (!seen++) { rmin = rmax = r; gmin = gmax = g }
      if (r < rmin) rmin = r; if (r > rmax) rmax = r; if (g < gmin) gmin = g; if (g > gmax) gmax = g } }
  END { printf "%.0f-%.0f %.2f-%.2f\n", rmin, rmax, gmin, gmax }' "$work/002.txt"; }
read -r titan_antt titan_stp < <(ranges titanx)
read -r k40_antt k40_stp < <(ranges k40)
# range_verdict "LO-HI" "lo-hi": yes when both ends are within 10 %, else shape only.
range_verdict() {
  awk -v p="$1" -v o="$2" 'BEGIN { split(p, a, "-"); split(o, b, "-");
    ok = (b[1] - a[1]) ^ 2 <= (0.1 * a[1]) ^ 2 && (b[2] - a[2]) ^ 2 <= (0.1 * a[2]) ^ 2; print ok ? "yes" : "shape only" }'
}
cause_antt="ours reduces more: sharing is free here (interference none), which favours the dense packing"
row 002 "ANTT reduction by reordering, TITAN X" "45-75 %" "$titan_antt %" "$(range_verdict 45-75 "$titan_antt")" "$cause_antt"
row 002 "STP gain by reordering, TITAN X" "1.6-3.5x" "${titan_stp}x" "$(range_verdict 1.6-3.5 "$titan_stp")" ""
row 002 "ANTT reduction by reordering, K40" "31-73 %" "$k40_antt %" "$(range_verdict 31-73 "$k40_antt")" "$cause_antt"
row 002 "STP gain by reordering, K40" "1.1-3.2x" "${k40_stp}x" "$(range_verdict 1.1-3.2 "$k40_stp")" ""
over=$(awk '/^\| 32 \|/ { n = split($0, f, "|"); v = f[n - 1]; gsub(/[ %]/, "", v); print v; exit }' "$work/002-overhead.txt")
row 002 "Table 3 overhead, N = 256, NB = 32 (greedy solver; within 2x counts as yes)" "2.5 %" "$over %" \
  "$(awk -v o="$over" 'BEGIN { print (o <= 5.0) ? "yes" : "no" }')" "the default exact solver is 88x the paper's there"

# Seed 000: Figure 13, Kernelet against BASE.
k13() { awk -v gpu="$1" -v mix="$2" '$2 == gpu && $4 == mix { split($0, f, "|"); v = f[8]; gsub(/[ %+]/, "", v); print v; exit }' "$work/000.txt"; }
for x in "c2050 ALL 5.0 31.1" "gtx680 ALL 6.7 23.4" "c2050 MI 5.0 31.1" "c2050 MIX 5.0 31.1"; do
  set -- $x
  ours=$(k13 "$1" "$2")
  v=$(awk -v o="$ours" -v lo="$3" -v hi="$4" 'BEGIN { print (o >= lo && o <= hi) ? "yes" : (o > 0 ? "shape only" : "no") }')
  cause=""
  [[ $v == no ]] && cause="the paper's loop pairs PC with SAD at a negative predicted profit; solo_without_gain (not in the paper) wins"
  row 000 "Figure 13, Kernelet faster than BASE, $1 $2" "$3-$4 % (any mix)" "$ours %" "$v" "$cause"
done
# Figure 13's ordering, OPT <= Kernelet < BASE, with the settings that match it (solo_without_gain, OPT as the
# rollout oracle): the mixes where it holds.
held=$(awk -F'|' 'NF > 12 && $2 ~ /c2050|gtx680/ { n++; b = $4 + 0; k = $10 + 0; o = $11 + 0; if (o <= k && k < b) h++ }
  END { printf "%d of %d", h, n }' "$work/000.txt")
v=no
[[ $held == "8 of 8" ]] && v=yes
row 000 "Figure 13, OPT <= Kernelet < BASE (solo_without_gain, oracle=rollout)" "8 of 8 mixes" "$held mixes" "$v" ""

# Seed 003: Figure 6 (per SM preemption request) and Figures 10-11 (LUD pairs).
f6() { awk -v p="$1" '$2 == 15 && $4 == "relaxed" && $6 == p { split($0, f, "|"); v = f[6]; gsub(/[ %]/, "", v); print v; exit }' "$work/003.txt"; }
for x in "preempt-switch 56.0" "preempt-drain 61.3" "preempt-flush 7.3" "chimera 0.2"; do
  set -- $x
  ours=$(f6 "$1")
  v=$(verdict "$2" "$ours" "no")
  cause=""
  [[ $1 == preempt-flush && $v != yes ]] && cause="the idempotence points decide it and the paper gives none: ours put non-idempotent kernels' at 90 % of a block; at 50 % the rate is 6.3 %, but the misses then fall on CP, FWT, LUD and NW, not the paper's BT and FWT"
  [[ $1 == chimera && $v != yes ]] && cause="drain estimates from a kernel-average CPI miss blocks whose CPI varies (0.0 % with drain_cpi=block)"
  row 003 "Figure 6, violations per SM request, $1" "$2 %" "$ours %" "$v" "$cause"
done
lud=$(awk '/^\| mean \|/ { print; exit }' "$work/003.txt")
antt=$(echo "$lud" | awk -F'|' '{ v = $11; gsub(/ /, "", v); print v }')
stp=$(echo "$lud" | awk -F'|' '{ v = $12; gsub(/[ %+]/, "", v); print v }')
row 003 "Figure 10, chimera ANTT improvement beside LUD" "25.4x" "${antt}x" "$(verdict 25.4 "$antt" "shape only")" \
  "FCFS waits less in our traces: only LC and MUM have kernels long enough (26x, 25x); the paper also restarts finished benchmarks"
row 003 "Figure 11, chimera STP improvement beside LUD" "+41.7 %" "+$stp %" "$(verdict 41.7 "$stp" "shape only")" ""

# Seed 004: Figure 5 (overhead alone at a 10 ms slice) and Figure 10 (two GPUs).
f5=$(awk '/^## Figure 5/ { on = 1 } on && /^\| mean \|/ { split($0, f, "|"); print f[7]; exit }' "$work/004.txt" | tr -d ' ')
f5pct=$(awk -v x="$f5" 'BEGIN { printf "%.1f", 100 * (x - 1) }')
row 004 "Figure 5, mean overhead alone at a 10 ms slice" "under 6 %" "$f5pct %" \
  "$(awk -v o="$f5pct" 'BEGIN { print (o <= 6.6) ? "yes" : "shape only" }')" "the per-call registration cost is our assumption"
# Figure 6: each one's share of the slices at 500 ms (the first figure of the pair's 500 ms column).
f6() { awk -v pair="$1" '/^## Figure 6/ { on = 1 } on && index($0, "| " pair " |") == 1 { split($0, f, "|");
  v = f[6]; sub(/^ */, "", v); sub(/%.*/, "", v); print v; exit }' "$work/004.txt"; }
f6mem=$(f6 "mattrans + stringsort")
row 004 "Figure 6, memory pair at a 500 ms slice, matTrans's share of the slices" "about 50 %" "$f6mem %" \
  "$(verdict 50 "$f6mem")" "with half of each footprint saved (--dirty half) 34 %: StringSort must save over 55 % of its state to miss a 500 ms slice"
f6dxtc=$(f6 "dxtc + mattrans")
row 004 "Figure 6, dxtc + matTrans at a 500 ms slice, dxtc's share of the slices" "88 %" "$f6dxtc %" \
  "$(verdict 88 "$f6dxtc" "shape only")" "matTrans's 0.86 s of transfers miss one 500 ms slice, so dxtc runs two for each of matTrans's; 88 % needs about seven (3.5 s), which no transfer of its 5.4 GB at 10 GB/s takes"
f10=$(awk '/Figure 10/ { on = 1 } on && /^\| mean \|/ { split($0, f, "|"); print f[7]; exit }' "$work/004.txt" | tr -d ' ')
f10inter=$(awk '/^## Figure 10 under/ { on = 1 } on && /^\| whole states .*inter-kernel only/ { split($0, f, "|");
  gsub(/ /, "", f[4]); gsub(/ /, "", f[5]); print f[4] "x (" f[5] ")"; exit }' "$work/004.txt")
row 004 "Figure 10, speed-up with two GPUs (mean)" "1.55x" "${f10}x" "$(verdict 1.55 "$f10")" \
  "the reading decides: block-coalesced shares and a second GPU on request, ${f10}x; whole states and one GPU per launch, ${f10inter}; the text does not say which the experiment used"
