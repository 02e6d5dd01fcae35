#!/usr/bin/env bash
# Where a co-runner's slowdown comes from (docs/interference.md, "Where the slowdown comes from"): every pair of
# suite kernels at 0.5:0.5 of their occupancy, recorded three ways: sharing every SM (as record-pairs does by
# default), sharing a green context of about SMS SMs (the SM-local effect without the whole GPU's memory load),
# and apart (the first kernel on those SMs, the second on all the others: only the GPU-wide effect).
# Outputs under $OUT: coruns-{all,near,apart}-TAG.csv and the log.
#   bash live/corun-placement-on-device.sh TAG [SMS]   (TAG names the GPU: h100, h200; SMS default 16)
set -uo pipefail
tag=${1:?tag}
sms=${2:-16}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
common=(--size s1 --repeats "${REPEATS:-3}" --mix 0.5:0.5)
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  $bin record-pairs "${common[@]}" --out "$out/coruns-all-$tag.csv"
  echo "all exit $?"
  $bin record-pairs "${common[@]}" --sms "$sms" --out "$out/coruns-near-$tag.csv"
  echo "near exit $?"
  $bin record-pairs "${common[@]}" --sms "$sms" --apart --out "$out/coruns-apart-$tag.csv"
  echo "apart exit $?"
} 2>&1 | tee "$out/corun-placement-$tag.log"
ls -la "$out"
