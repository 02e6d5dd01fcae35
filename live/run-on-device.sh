#!/usr/bin/env bash
# What one device call runs (docs/live.md): the GPUs, the suite's checks, the occupancy comparison and the
# recording of every suite kernel at two sizes and three residencies; traces go to $OUT as one archive.
#   bash live/run-on-device.sh TAG        (TAG names the GPU: h100, h200)
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
mkdir -p "$out" /tmp/traces/$tag
{
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  $bin devices; echo "devices exit $?"
  $bin check; echo "check exit $?"
  $bin occupancy-check; echo "occupancy-check exit $?"
  for k in $suite_kernels; do
    for s in $suite_sizes; do
      $bin record --kernel $k --size $s --out /tmp/traces/$tag; echo "record $k $s exit $?"
    done
  done
  $bin record --kernel nosuch --out /tmp/x; echo "bad kernel exit $?"
} 2>&1 | tee "$out/live-$tag.log"
tar czf "$out/traces-$tag.tgz" -C /tmp/traces/$tag .
ls -la /tmp/traces/$tag | head -40
