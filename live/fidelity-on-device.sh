#!/usr/bin/env bash
# What the "Fidelity 1" device call runs (docs/validation.md, "Native hardware vs prediction"): calibrates the
# GPU's front end, then runs validate-, live- and bursts-TAG natively three times each against the fifo
# prediction with that calibration. Outputs under $OUT: TAG.toml (the calibration), native-TAG.csv, the log.
#   bash live/fidelity-on-device.sh TAG        (TAG names the GPU: h100, h200)
set -uo pipefail
tag=${1:?tag}
bin=build/live/gpusched-live
if ldd "$bin" | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/build/live/lib; fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  $bin calibrate --repeats 3 --samples 101 --out "$out/$tag.toml"; echo "calibrate exit $?"
  for w in validate live bursts; do
    $bin native -w traces/workloads/$w-$tag.toml --gpu "$out/$tag.toml" --repeats 3 --csv "$out/native-$tag.csv" \
      --db "$out/native-$tag.db" --per-launch
    echo "native $w exit $?"
  done
} 2>&1 | tee "$out/fidelity-$tag.log"
