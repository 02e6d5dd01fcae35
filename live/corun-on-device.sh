#!/usr/bin/env bash
# What the "Fidelity 3" device call runs (docs/interference.md, "Measured co-runs"): records every pair of suite
# kernels (and four triples) sharing the SMs, then runs validate-, live- and bursts-TAG natively three times each
# into a result store, so that `gpusched crossval` can predict those runs under every interference model.
# Outputs under $OUT: coruns-TAG.csv, native-WORKLOAD-TAG.db.gz (the measured and predicted runs, one store per workload: each must stay under
# the device's 16 MiB a file), native-TAG.csv, the log.
#   bash live/corun-on-device.sh TAG        (TAG names the GPU: h100, h200)
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  $bin record-pairs --size s1 --repeats ${REPEATS:-3} --out "$out/coruns-$tag.csv"
  echo "record-pairs exit $?"
  for w in ${WORKLOADS:-validate live bursts}; do
    $bin native -w traces/workloads/$w-$tag.toml --repeats 3 --db /tmp/native-$w-$tag.db --csv "$out/native-$tag.csv"
    echo "native $w exit $?"
  done
} 2>&1 | tee "$out/corun-$tag.log"
for w in ${WORKLOADS:-validate live bursts}; do gzip -c /tmp/native-$w-$tag.db > "$out/native-$w-$tag.db.gz"; done
ls -la "$out"
