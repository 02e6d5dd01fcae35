#!/usr/bin/env bash
# Two builds of gpusched-live against each other on the device, executions interleaved so that the GPU's drift
# falls on both alike (docs/validation.md, "Who takes the slot"): validate on each workload under the fused
# policies, REPEATS times, through each build in turn. Writes $OUT/ab-NAME.csv (executor.csv's rows) and
# $OUT/ab-NAME.log for each build; compare with `python3 scripts/executor-table.py ab-NAME.csv`.
#   bash live/ab-on-device.sh TAG NAME=BINARY NAME=BINARY     (TAG names the GPU: h100, h200)
# Environment: WORKLOADS (default "validate live bursts"), REPEATS (default 3), POLICIES (default the six the
# fused worker carries out), EXECUTOR (default fused), INTERFERENCE (the models predicted, default none).
set -uo pipefail
tag=${1:?tag}
shift
(($# >= 2)) || { echo "usage: $0 TAG NAME=BINARY NAME=BINARY" >&2; exit 2; }
out=${OUT:-/tmp/out}
mkdir -p "$out"
policies=${POLICIES:-srtf,srtf-adaptive,mpmax,spatial,chimera,srtf-chimera}
for pair in "$@"; do
  bin=${pair#*=}
  [ -x "$bin" ] || { echo "$bin: not an executable" >&2; exit 2; }
  if ldd "$bin" | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/build/live/lib; fi
done
for r in $(seq 1 "${REPEATS:-3}"); do
  for pair in "$@"; do
    name=${pair%%=*}
    bin=${pair#*=}
    for w in ${WORKLOADS:-validate live bursts}; do
      any=""
      [ "$w" = live ] && any=--any-gpu
      echo "=== $name $w repeat $r" >> "$out/ab-$name.log"
      "$bin" validate -w traces/workloads/$w-$tag.toml --policy "$policies" --interference ${INTERFERENCE:-none} $any \
        --db /tmp/ab-$name-$w.db --csv "$out/ab-$name.csv" --repeat "$r" --executor "${EXECUTOR:-fused}" \
        >> "$out/ab-$name.log" 2>&1
      echo "$name $w repeat $r exit $?"
    done
  done
done
