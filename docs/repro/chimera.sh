#!/usr/bin/env bash
# Seed 003 (Chimera): the real-time scenario (Figures 6-7 at 15 us, Figure 8's latency sweep, Figure 9's
# strict against relaxed idempotence), the LUD pairs (Figures 10-11), and srtf-chimera against srtf and sjf
# on the 56 ERCBench pairs. Traces: traces/chimera (Table 2 kernels on the chimera-fermi preset).
# Usage: docs/repro/chimera.sh [GPUSCHED]   (from the repository root; about 10 s)
set -euo pipefail
G=${1:-./build/sim/gpusched}
T=traces/chimera
echo "## Figures 6-7: latency limit 15 us"
"$G" chimera-rt --traces $T --latency-limit-us 15
echo
echo "## Figure 8: latency limit 5-20 us (chimera), kernel-average CPI (the paper's) and each block's own CPI"
"$G" chimera-rt --traces $T --latency-limit-us 5,10,15,20 --policies chimera --no-per-benchmark
"$G" chimera-rt --traces $T --latency-limit-us 5,10,15,20 --policies chimera --set drain_cpi=block --no-per-benchmark
echo
echo "## Figure 9: strict against relaxed idempotence, 15 us"
"$G" chimera-rt --traces $T --idempotence strict,relaxed --policies preempt-flush,chimera --no-per-benchmark
echo
echo "## Figures 10-11: LUD beside each benchmark, 30 us"
"$G" chimera-pairs --traces $T --with lud --latency-limit-us 30
echo
echo "## The same, LUD as one launch of each kernel, per kernel launch, against fifo (the model before session 14)"
"$G" chimera-pairs --traces $T --with lud --latency-limit-us 30 --lud single --per launch --baseline fifo | tail -1
echo
echo "## srtf-chimera on the 56 ERCBench pairs"
POLICIES=srtf,srtf-chimera,sjf bash docs/repro/ercbench-pairs.sh "$G"
