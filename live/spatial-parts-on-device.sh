#!/usr/bin/env bash
# spatial's plans (the SMs divided among the launches, repartitioned as launches come and go) carried out by the
# hardware's own dispatch with each launch cut where its partition changes and every part a grid of its own in a
# green context of its planned SMs (`--executor native --green-parts`), against the whole launches natively (no
# partition kept: `--executor native`) and the fused worker (`--executor fused`), on validate, live and bursts,
# REPEATS times interleaved. docs/validation.md, "Partitions on green contexts". Rows in
# $OUT/spatial-{parts,whole,fused}.csv, log in $OUT/spatial-parts.log. POLICIES: default spatial. CONFIGS: any of
# parts, whole and fused (default all three). MODELS: the interference models of the predictions (default none).
#   bash live/spatial-parts-on-device.sh TAG        (TAG: h100 or h200)
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for r in $(seq 1 "${REPEATS:-3}"); do
    for w in ${WORKLOADS:-validate live bursts}; do
      any=""
      [[ $w == live ]] && any=--any-gpu
      for cfg in ${CONFIGS:-parts whole fused}; do
        how=(--executor native)
        [[ $cfg == parts ]] && how=(--executor native --green-parts)
        [[ $cfg == fused ]] && how=(--executor fused)
        echo "== $w ${POLICIES:-spatial} $cfg repeat $r"
        $bin validate -w "traces/workloads/$w-$tag.toml" --policy "${POLICIES:-spatial}" "${how[@]}" \
          --interference ${MODELS:-none} $any --db "/tmp/spatial-$w.db" --csv "$out/spatial-$cfg.csv" --repeat "$r" \
          --per-launch 2>&1 | grep -vE "^alone:" | head -${LINES_PER_RUN:-60}
      done
    done
  done
} 2>&1 | tee "$out/spatial-parts.log"
