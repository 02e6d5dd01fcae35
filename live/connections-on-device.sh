#!/usr/bin/env bash
# Plans in parts with the CUDA runtime's default 8 hardware work queues per context against 32
# (CUDA_DEVICE_MAX_CONNECTIONS), POLICIES (default chimera,srtf-chimera) under --executor auto and FORCE (default:
# chimera on bursts-h100 in parts, gated) on validate, live and bursts (H100), REPEATS=3 times interleaved.
# docs/validation.md, "Preempting plans in parts". Rows in $OUT/connections-{8,32}.csv, log $OUT/connections.log.
#   bash live/connections-on-device.sh
set -u
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
for r in $(seq 1 "${REPEATS:-3}"); do
  for c in 8 32; do
    for w in ${WORKLOADS:-validate live bursts}; do
      any=""
      [[ $w == live ]] && any=--any-gpu
      echo "== $w connections $c repeat $r"
      CUDA_DEVICE_MAX_CONNECTIONS=$c $bin validate -w "traces/workloads/$w-h100.toml" \
        --policy "${POLICIES:-chimera,srtf-chimera}" $any --db "/tmp/connections-$w.db" --csv "$out/connections-$c.csv" \
        --repeat "$r" 2>&1 | grep -vE "^alone:"
    done
    echo "== bursts forced connections $c repeat $r"
    CUDA_DEVICE_MAX_CONNECTIONS=$c $bin validate -w traces/workloads/bursts-h100.toml --policy chimera --executor native \
      --green-parts --gate-parts --db /tmp/connections-forced.db --csv "$out/connections-forced-$c.csv" --repeat "$r" 2>&1 |
      grep -vE "^alone:"
  done
done > "$out/connections.log" 2>&1
