#!/usr/bin/env bash
# Plans carried out by the hardware's own dispatch with each launch cut where the plan's SM partition changes and
# every part a grid of its own in a green context of its planned SMs, issued at its planned start (`--executor native
# --green-parts`), against the whole launches natively (`--executor native`) and the fused worker (`--executor
# fused`), on validate, live and bursts, REPEATS times interleaved. docs/validation.md, "Partitions on green
# contexts". Rows in $OUT/green-parts-{parts,gated,whole,fused}.csv, log in $OUT/green-parts.log. POLICIES: a comma
# list (default spatial,srtf,srtf-adaptive,mpmax,kernelet). CONFIGS: any of parts, gated (parts launched ahead behind
# a gate the host raises: --gate-parts), whole and fused (default "parts fused").
# MODELS: the interference models of the predictions (default none).
#   bash live/green-parts-on-device.sh TAG        (TAG: h100 or h200)
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for r in $(seq 1 "${REPEATS:-3}"); do
    for w in ${WORKLOADS:-validate live bursts}; do
      any=""
      [[ $w == live ]] && any=--any-gpu
      for cfg in ${CONFIGS:-parts fused}; do
        how=(--executor native)
        [[ $cfg == parts ]] && how=(--executor native --green-parts)
        [[ $cfg == gated ]] && how=(--executor native --green-parts --gate-parts)
        [[ $cfg == fused ]] && how=(--executor fused)
        echo "== $w ${POLICIES:-spatial,srtf,srtf-adaptive,mpmax,kernelet} $cfg repeat $r"
        $bin validate -w "traces/workloads/$w-$tag.toml" --policy "${POLICIES:-spatial,srtf,srtf-adaptive,mpmax,kernelet}" "${how[@]}" \
          --interference ${MODELS:-none} $any --db "/tmp/green-parts-$w.db" --csv "$out/green-parts-$cfg.csv" --repeat "$r" \
          --per-launch 2>&1 | grep -vE "^alone:" | head -${LINES_PER_RUN:-1000}
      done
    done
  done
} 2>&1 | tee "$out/green-parts.log"
