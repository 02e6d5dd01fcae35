#!/usr/bin/env bash
# Parts of pieces under --executor auto with each --part-stops (planned-end, budget), chimera and srtf-chimera on
# validate, live and bursts (H100), REPEATS=3 times interleaved (STOPS: the values to run, default both). docs/validation.md, "Preempting plans in parts". Rows in
# $OUT/part-stops-{planned-end,budget}.csv, log $OUT/part-stops.log.
#   bash live/part-stops-on-device.sh
set -u
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
for r in $(seq 1 "${REPEATS:-3}"); do
  for w in ${WORKLOADS:-validate live bursts}; do
    any=""
    [[ $w == live ]] && any=--any-gpu
    for stops in ${STOPS:-planned-end budget}; do
      echo "== $w $stops repeat $r"
      $bin validate -w "traces/workloads/$w-h100.toml" --policy "${POLICIES:-chimera,srtf-chimera}" --part-stops $stops \
        $any --db "/tmp/part-stops-$w.db" --csv "$out/part-stops-$stops.csv" --repeat "$r" --per-launch 2>&1 |
        grep -vE "^alone:"
    done
  done
done > "$out/part-stops.log" 2>&1
