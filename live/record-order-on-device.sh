#!/usr/bin/env bash
# Does a kernel's full-residency recording depend on the padded (lower-residency) launches recorded before it?
# (docs/formats.md, "Recording order and the L1 carve-out".) For each suite kernel and size, records the default
# set (1, half, full residency) and the full residency alone, alternating, REPEATS times each, into $OUT/order/.
#   bash live/record-order-on-device.sh TAG [REPEATS] [KERNEL-SIZE...]     (e.g. h100 3 stencil-s2 sad-s1)
set -uo pipefail
tag=${1:?tag}
repeats=${2:-3}
shift; shift || true
bin=$PWD/build/live/gpusched-live
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
out=$out/order
mkdir -p "$out"
kernels=("$@")
if ((${#kernels[@]} == 0)); then
  for f in traces/live/$tag/*-s[12].kernel.toml; do kernels+=("$(basename "$f" .kernel.toml)"); done
fi
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  for k in "${kernels[@]}"; do
    full=$(grep -o 'residency = [0-9]*' traces/live/$tag/$k.kernel.toml | tail -1 | grep -o '[0-9]*$')
    for ((i = 1; i <= repeats; i++)); do
      $bin record --kernel ${k%-*} --size ${k##*-} --repeats 3 --out "$out/default.$i" > /dev/null
      echo "record $k default (1, half, $full) repeat $i exit $?"
      $bin record --kernel ${k%-*} --size ${k##*-} --repeats 3 --residency $full --out "$out/full-only.$i" > /dev/null
      echo "record $k full-only ($full) repeat $i exit $?"
    done
  done
} 2>&1 | tee "$out/record-order-$tag.log"
