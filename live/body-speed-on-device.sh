#!/usr/bin/env bash
# Each suite kernel alone, carried out natively (--executor native: its plain launch, placed by the GPU) and by the
# fused worker (--executor fused), REPEATS times interleaved: the fused worker's own cost per kernel, with nothing
# else on the GPU (docs/validation.md, "Body speed in the fused worker"). One-launch workloads are written to
# /tmp; the live runs go to $OUT/body-speed.db, and scripts/body-speed-table.py prints the table from it.
#   bash live/body-speed-on-device.sh TAG [SIZE]      (TAG: h100 or h200; SIZE: s1 (default) or s2)
# Environment: KERNELS (default every kernel recorded at SIZE), REPEATS (default 3).
set -uo pipefail
tag=${1:?tag}
size=${2:-s1}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
mkdir -p "$out" /tmp/body-speed
kernels=${KERNELS:-$(for f in traces/live/$tag/*-$size.kernel.toml; do basename "$f" "-$size.kernel.toml"; done)}
for k in $kernels; do
  cat > "/tmp/body-speed/$k-$size.toml" <<TOML
format = "gpusched-workload"
version = 1
name = "$k-$size-alone"
gpu = "$tag"

[kernels]
$k = "$PWD/traces/live/$tag/$k-$size.kernel.toml"

[[launch]]
id = "$k"
kernel = "$k"
arrival_ns = 0
TOML
done
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for r in $(seq 1 "${REPEATS:-3}"); do
    for k in $kernels; do
      for ex in native fused; do
        $bin validate -w "/tmp/body-speed/$k-$size.toml" --policy fifo --executor $ex --interference none \
          --alone-repeats 3 --db "$out/body-speed.db" --csv "$out/body-speed.csv" --repeat "$r" > /tmp/body-speed/log 2>&1
        echo "$k $ex repeat $r exit $?"
      done
    done
  done
} 2>&1 | tee "$out/body-speed-$tag.log"
python3 scripts/body-speed-table.py "$out/body-speed.db" | tee -a "$out/body-speed-$tag.log"
