#!/usr/bin/env bash
# Session 59's A/B of the green contexts in the parts replay (docs/validation.md, "Green contexts in the parts
# replay"), executions interleaved so that the GPU's drift falls on both alike: for each CASE (workload:policy),
# validate by default and with the option OPTION, REPEATS times. Writes $OUT/pc-NAME.csv (executor.csv's rows) and
# $OUT/pc-NAME.log, NAME being default or the option's tag; compare with `python3 scripts/executor-table.py`.
#   bash live/part-context-ab-on-device.sh TAG=OPTION CASE...     (CASE: workload:policy, e.g. bursts-h200:srtf)
set -uo pipefail
source live/device-env.sh
pair=${1:?TAG=OPTION}
shift
tag=${pair%%=*}
option=${pair#*=}
for r in $(seq 1 "${REPEATS:-3}"); do
  for c in "$@"; do
    w=${c%%:*}
    p=${c#*:}
    for name in default "$tag"; do
      extra=""
      [ "$name" = default ] || extra=$option
      echo "=== $name $w $p repeat $r" >> "$out/pc-$name.log"
      # shellcheck disable=SC2086  # the option may be two words
      "$bin" validate -w "traces/workloads/$w.toml" --policy "$p" --interference auto --any-gpu --per-launch $extra \
        --db "/tmp/pc-$name-$w.db" --csv "$out/pc-$name.csv" --repeat "$r" >> "$out/pc-$name.log" 2>&1
      echo "$name $w $p repeat $r exit $?"
    done
  done
done
