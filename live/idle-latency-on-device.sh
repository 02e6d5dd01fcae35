#!/usr/bin/env bash
# Launch latency on an idle GPU (docs/validation.md, "Launch latency on an idle GPU"): the calibration's probe beside
# native runs of idle-TAG (each launch finds the GPU idle) and of bursts-TAG, with the default 300 us lead-in and
# a longer one, three repeats each. Output: $OUT/idle-TAG.log.
#   bash live/idle-latency-on-device.sh TAG [LEAD_IN_US...]
set -uo pipefail
tag=${1:?tag}
shift
leads=("${@:-300 5000}")
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  $bin calibrate --repeats 3 --samples 51 --out /tmp/cal-$tag.toml
  for lead in ${leads[@]}; do
    for w in idle bursts; do
      echo "== native $w-$tag lead-in $lead us"
      $bin native -w traces/workloads/$w-$tag.toml --repeats 3 --per-launch --lead-in "$lead" --alone-repeats 3
      echo "native $w lead-in $lead exit $?"
    done
  done
} 2>&1 | tee "$out/idle-$tag.log"
