#!/usr/bin/env bash
# The default srtf's plans (each arriving launch sampled on one SM) carried out by the hardware's own dispatch
# (`--executor native`), with each planned sample as a grid of its own in a 2-SM green context at the greatest
# priority and the rest of its launch behind it (`--green-samples`), against the same without (no split: the whole
# launch at the plan's priority), on validate, live and bursts, REPEATS times interleaved. docs/validation.md, "Samples on a
# green context". Rows in $OUT/srtf-samples-{split,whole}.csv, log in $OUT/srtf-samples.log. MODELS: the interference
# models of the predictions (default none; e.g. MODELS="equivalent age"). CONFIGS: any of split, split-first (the rest
# waits for the sample's block 0 alone: --sample-gate first) and whole (default "split whole").
#   bash live/srtf-samples-on-device.sh TAG        (TAG: h100 or h200)
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for r in $(seq 1 "${REPEATS:-3}"); do
    for w in ${WORKLOADS:-validate live bursts}; do
      any=""
      [[ $w == live ]] && any=--any-gpu
      for cfg in ${CONFIGS:-split whole}; do
        green=()
        [[ $cfg == split ]] && green=(--green-samples)
        [[ $cfg == split-first ]] && green=(--green-samples --sample-gate first)
        echo "== $w srtf $cfg repeat $r"
        $bin validate -w "traces/workloads/$w-$tag.toml" --policy srtf --executor native "${green[@]}" \
          --interference ${MODELS:-none} $any --db "/tmp/srtf-$w.db" --csv "$out/srtf-samples-$cfg.csv" --repeat "$r" \
          --per-launch 2>&1 | grep -vE "^alone:" | head -${LINES_PER_RUN:-60}
      done
    done
  done
} 2>&1 | tee "$out/srtf-samples.log"
[[ -n "${KEEP_DB:-}" ]] && cp /tmp/srtf-validate.db "$out/" 2>/dev/null || true
