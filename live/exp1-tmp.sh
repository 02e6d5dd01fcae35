#!/usr/bin/env bash
set -uo pipefail
bin=build/live/gpusched-live
if ldd "$bin" | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/build/live/lib; fi
out=${OUT:-/tmp/out}; mkdir -p $out
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
for r in 1 2; do
echo "=== bursts fused repeat $r"
$bin validate -w traces/workloads/bursts-h100.toml --policy fifo,srtf,chimera --executor fused --db /tmp/b$r.db --csv $out/exp2.csv --repeat $r
echo "=== validate fused repeat $r"
$bin validate -w traces/workloads/validate-h100.toml --policy fifo,srtf,spatial --executor fused --db /tmp/v$r.db --csv $out/exp2.csv --repeat $r
done
echo "=== alone fused"
$bin validate -w traces/workloads/alone-h100.toml --policy fifo --executor fused --db /tmp/a.db
$bin check 2>&1 | tail -8
} 2>&1 | tee $out/exp2.log
