#!/usr/bin/env bash
# Plans that stop and resume blocks (chimera, srtf-chimera) carried out in parts of pieces on green contexts, ungated
# (--green-parts), gated (--gate-parts) and by the fused worker, REPEATS=3 times on validate, live and bursts (H100), then
# under --executor auto. docs/validation.md, "Preempting plans in parts". Everything in $OUT/piece-parts.tgz.
#   bash live/piece-parts-on-device.sh
set -u
REPEATS=3 POLICIES=chimera,srtf-chimera CONFIGS="parts gated fused" LINES_PER_RUN=400 bash live/green-parts-on-device.sh h100 > /dev/null 2>&1
source live/device-env.sh
for r in 1 2 3; do for w in validate live bursts; do any=""; [[ $w == live ]] && any=--any-gpu
  echo "== auto $w repeat $r"
  $bin validate -w traces/workloads/$w-h100.toml --policy chimera,srtf-chimera $any --db /tmp/auto-$w.db --csv $OUT/auto-chimera.csv --repeat $r 2>&1 | grep -vE "^alone:"
done; done > $OUT/auto-chimera.log 2>&1
cd $OUT && tar czf piece-parts.tgz *.csv *.log && ls -la
