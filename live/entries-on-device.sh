#!/usr/bin/env bash
# The worker stamps of chimera-family plans carried out in parts of pieces (docs/validation.md, "Entries stamped before
# their claims"): validate with --entries-csv on each workload, REPEATS times, then scripts/entries-table.py on each
# execution's rows. Outputs under $OUT: entries-TAG.log (validate's reports and the tables) and, per workload and
# repeat, the rows, gathered into entries-TAG.tgz (the device tool brings back few files).
#   bash live/entries-on-device.sh TAG        (TAG names the GPU: h100, h200)
# Environment: WORKLOADS (default "validate bursts"), POLICIES (default chimera), REPEATS (default 1), VALIDATE_ARGS.
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
rows=/tmp/entries-$tag
rm -rf "$rows"; mkdir -p "$rows"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for r in $(seq 1 "${REPEATS:-1}"); do
    for w in ${WORKLOADS:-validate bursts}; do
      any=""
      [ "$w" = live ] && any=--any-gpu
      csv=$rows/entries-$w-$tag.r$r.csv
      $bin validate -w traces/workloads/$w-$tag.toml -p "${POLICIES:-chimera}" --interference auto --per-launch $any \
        --entries-csv "$csv" --db "$rows/entries-$w-$tag.db" --repeat "$r" ${VALIDATE_ARGS:-}
      echo "validate $w repeat $r exit $?"
      python3 scripts/entries-table.py "$csv"
    done
  done
} 2>&1 | tee "$out/entries-$tag.log"
tar czf "$out/entries-$tag.tgz" -C "$rows" .
