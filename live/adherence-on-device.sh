#!/usr/bin/env bash
# What the "Fidelity 2" device call runs (docs/validation.md, "Plan adherence"): validate on each workload under the
# issue's nine policies (interference none), REPEATS times, printing each execution's hand-off delays and the split
# of its turnaround errors, and appending one row per execution to $OUT/executor.csv.
#   bash live/adherence-on-device.sh TAG        (TAG names the GPU: h100, h200)
# Environment: WORKLOADS (default "validate live bursts"), REPEATS (default 1), POLICIES (default the issue's nine).
# EXECUTOR: validate's --executor (default auto). INTERFERENCE: the models predicted and carried out (default none).
# VALIDATE_ARGS: more arguments for validate (e.g. "--set srtf.remaining=gpu").
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
policies=${POLICIES:-fifo,sjf,srtf,srtf-adaptive,mpmax,spatial,knapsack,chimera,srtf-chimera}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for r in $(seq 1 "${REPEATS:-1}"); do
    for w in ${WORKLOADS:-validate live bursts}; do
      any=""
      [ "$w" = live ] && any=--any-gpu
      $bin validate -w traces/workloads/$w-$tag.toml --policy "$policies" --interference ${INTERFERENCE:-none} $any \
        --db /tmp/adherence-$w-$tag.db --csv "$out/executor.csv" --repeat "$r" ${EXECUTOR:+--executor $EXECUTOR} \
        ${VALIDATE_ARGS:-}
      echo "validate $w repeat $r exit $?"
    done
  done
} 2>&1 | tee "$out/adherence-$tag.log"
ls -la "$out"
