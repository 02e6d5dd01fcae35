#!/usr/bin/env bash
# Records every suite kernel (both sizes, the default residencies) again, REPEATS times, to compare with the shipped
# recordings (docs/formats.md, "Recorded launches run warm"): $OUT/rec.tgz holds rec1 .. recN, each a folder of
# profiles as `gpusched-live record` writes them. Compare with
#   tar xzf rec.tgz && python3 scripts/record-drift.py traces/live/TAG rec1 rec2
#   bash live/rerecord-on-device.sh TAG [REPEATS]      (TAG names the GPU: h100, h200; REPEATS default 2; KERNELS,
#   SIZES narrow it, e.g. KERNELS=gather)
set -uo pipefail
tag=${1:?tag}
repeats=${2:-2}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/rerecord-$tag.txt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$repeats"); do
  mkdir -p "$work/rec$r"
  for k in $suite_kernels; do
    for s in $suite_sizes; do
      $bin record --kernel $k --size $s --seed 1 --out "$work/rec$r" > "$work/rec$r/$k-$s.log" 2>&1 ||
        echo "record $k $s repeat $r failed" | tee -a "$out/rerecord-$tag.txt"
    done
  done
done
(cd "$work" && tar czf "$out/rec.tgz" rec*)
ls -la "$out"
