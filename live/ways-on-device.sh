#!/usr/bin/env bash
# One gpusched-live, several ways of carrying the same plans out, executions interleaved so that the GPU's drift falls
# on all alike (docs/validation.md, "Block times in the parts replay"): validate on each workload under POLICIES,
# REPEATS times, once per NAME=ARGS in turn, ARGS being validate's extra arguments for that way (empty: auto's
# choice). Writes $OUT/ways-NAME.csv (executor.csv's rows) and $OUT/ways-NAME.log; compare with
# `python3 scripts/executor-table.py ways-NAME.csv`.
#   bash live/ways-on-device.sh TAG NAME=ARGS NAME=ARGS ...     (TAG names the GPU: h100, h200)
#   e.g. POLICIES=srtf-adaptive WORKLOADS="validate live" bash live/ways-on-device.sh h200 auto= held=--capped-parts
# Environment: WORKLOADS (default "validate live bursts"), REPEATS (default 3), POLICIES (default srtf-adaptive),
# INTERFERENCE (the models predicted, default auto).
set -uo pipefail
tag=${1:?tag}
shift
(($# >= 2)) || { echo "usage: $0 TAG NAME=ARGS NAME=ARGS ..." >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
for r in $(seq 1 "${REPEATS:-3}"); do
  for w in ${WORKLOADS:-validate live bursts}; do
    any=""
    [ "$w" = live ] && any=--any-gpu
    for way in "$@"; do
      name=${way%%=*}
      args=${way#*=}
      echo "=== $name $w repeat $r" >> "$out/ways-$name.log"
      # shellcheck disable=SC2086  # ARGS are words for validate
      $bin validate -w traces/workloads/$w-$tag.toml --policy "${POLICIES:-srtf-adaptive}" \
        --interference ${INTERFERENCE:-auto} $any --db /tmp/ways-$name-$w.db --csv "$out/ways-$name.csv" --repeat "$r" \
        --per-launch $args >> "$out/ways-$name.log" 2>&1
      echo "$name $w repeat $r exit $?"
    done
  done
done
