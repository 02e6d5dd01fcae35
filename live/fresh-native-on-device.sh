#!/usr/bin/env bash
# Native runs against traces recorded in the same session on the same GPU (docs/validation.md, "Native hardware vs
# prediction", fresh traces): records WORKLOAD's kernels into a scratch copy of traces/, then runs native against
# them, so that what differs is the model, not the recording's age or machine.
#   bash live/fresh-native-on-device.sh TAG WORKLOAD_NAME...     (e.g. h100 bursts live)
set -uo pipefail
tag=${1:?tag}
shift
bin=$PWD/build/live/gpusched-live
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
scratch=/tmp/fresh-traces
rm -rf "$scratch"; mkdir -p "$scratch/live/$tag" "$scratch/workloads"
{
  for w in "$@"; do
    cp traces/workloads/$w-$tag.toml "$scratch/workloads/"
    for k in $(grep -o "live/$tag/[a-z]*-s[12]" traces/workloads/$w-$tag.toml | sort -u | sed "s|live/$tag/||"); do
      [[ -f $scratch/live/$tag/$k.kernel.toml ]] && continue
      $bin record --kernel ${k%-*} --size ${k##*-} --out "$scratch/live/$tag" > /dev/null; echo "record $k exit $?"
    done
  done
  for w in "$@"; do
    $bin native -w "$scratch/workloads/$w-$tag.toml" --repeats 3 --csv "$out/fresh-native-$tag.csv" --per-launch
    echo "native $w exit $?"
  done
} 2>&1 | tee "$out/fresh-native-$tag.log"
tar czf "$out/fresh-traces-$tag.tgz" -C "$scratch" .
