#!/usr/bin/env bash
# srtf's plans carried out by the hardware's own dispatch (stream priorities from the plan; `--executor native`)
# against the fused worker, on validate, live and bursts, REPEATS times interleaved, for the default srtf (which
# samples each arriving launch on one SM: a per-SM decision that priorities cannot express, so the dispatcher replays
# its plan only approximately: `gpusched as-priorities`) and for `srtf.sampling=false` (the paper's zero-sampling
# experiment, which the dispatcher replays within the bound, so `--executor auto` runs it natively). docs/validation.md,
# "Which plans stream priorities can carry out". Rows in $OUT/srtf-native.csv (policy column: srtf or
# srtf[sampling=false], /none, and the executor as the stored run's name says), logs in $OUT/srtf-native.log.
#   bash live/srtf-native-on-device.sh TAG        (TAG: h100 or h200)
set -uo pipefail
tag=${1:?tag}
source "$(dirname "${BASH_SOURCE[0]}")/device-env.sh"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for r in $(seq 1 "${REPEATS:-3}"); do
    for w in validate live bursts; do
      any=""
      [[ $w == live ]] && any=--any-gpu
      for cfg in "native" "fused" "auto sampling=false" "fused sampling=false"; do
        set -- $cfg
        ex=$1
        sets=()
        [[ $# -gt 1 ]] && sets=(--set "srtf.$2")
        echo "== $w srtf ${2:-} --executor $ex repeat $r"
        $bin validate -w "traces/workloads/$w-$tag.toml" --policy srtf "${sets[@]}" --executor "$ex" \
          --interference none $any --db "/tmp/srtf-$w.db" --csv "$out/srtf-native-$ex.csv" --repeat "$r" 2>&1 |
          grep -E "^srtf|carried out|replays|launch start|launch order|turnaround|hand-off|error" | head -12
      done
    done
  done
} 2>&1 | tee "$out/srtf-native.log"
