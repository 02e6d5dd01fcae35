#!/usr/bin/env bash
# Native fifo runs of validate-, live- and bursts-TAG stored for `gpusched crossval` (docs/interference.md, "Slowdown
# over a block's life"): three repeats each, predicted with INTERFERENCE (default age), rows appended to
# $OUT/native-INTERFERENCE-TAG.csv, stores gzipped under $OUT (bursts one repeat per store: each file under 16 MiB).
#   bash live/native-stores-on-device.sh TAG [INTERFERENCE]
set -uo pipefail
tag=${1:?tag}
model=${2:-age}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for w in validate live; do
    $bin native -w traces/workloads/$w-$tag.toml --interference "$model" --repeats 3 --db /tmp/native-$w-$tag.db \
      --csv "$out/native-$model-$tag.csv" --per-launch
    echo "native $w exit $?"
    gzip -c /tmp/native-$w-$tag.db > "$out/native-$w-$tag.db.gz"
  done
  for r in 1 2 3; do
    $bin native -w traces/workloads/bursts-$tag.toml --interference "$model" --repeats 1 --db /tmp/native-bursts-$tag.r$r.db \
      --csv "$out/native-$model-$tag.csv" --per-launch
    echo "native bursts repeat $r exit $?"
    gzip -c /tmp/native-bursts-$tag.r$r.db > "$out/native-bursts-$tag.r$r.db.gz"
  done
} 2>&1 | tee "$out/native-$model-$tag.log"
