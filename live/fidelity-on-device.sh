#!/usr/bin/env bash
# What the "Fidelity 1" device call runs (docs/validation.md, "Native hardware vs prediction"): calibrates the
# GPU's front end, then runs validate-, live-, bursts- and idle-TAG natively three times each against the fifo
# prediction with that calibration. Outputs under $OUT: TAG.toml (the calibration), native-TAG.csv, the log, and
# the bursts workload's first measured Schedule beside its prediction (CSV, gzipped).
#   bash live/fidelity-on-device.sh TAG [EXTRA NATIVE ARGS]       (TAG names the GPU: h100, h200)
set -uo pipefail
tag=${1:?tag}
shift
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  gpu_arg=()  # CALIBRATE=0: predict with the presets (their shipped calibration) instead of a fresh one
  [[ ${CALIBRATE:-1} == 1 ]] && gpu_arg=(--gpu "$out/$tag.toml")
  [[ ${CALIBRATE:-1} == 1 ]] && { $bin calibrate --repeats 3 --samples 101 --out "$out/$tag.toml"; echo "calibrate exit $?"; }
  for w in validate live bursts idle; do
    extra=()
    [[ $w == bursts ]] && extra=(--timeline /tmp/bursts-$tag.csv)
    $bin native -w traces/workloads/$w-$tag.toml "${gpu_arg[@]}" --repeats 3 --csv "$out/native-$tag.csv" \
      --per-launch "${extra[@]}" "$@"
    echo "native $w exit $?"
  done
} 2>&1 | tee "$out/fidelity-$tag.log"
gzip -c /tmp/bursts-$tag.csv > "$out/bursts-$tag.measured.csv.gz"
gzip -c /tmp/bursts-$tag.predicted.csv > "$out/bursts-$tag.predicted.csv.gz"
