#!/usr/bin/env bash
# Runs the GPU tests (ctest's live_* entries, generated into build/devtests/ from build/tests/CTestTestfile.cmake by
#   grep -E 'add_test\(\[=\[live_|set_tests_properties\(\[=\[live_' build/tests/CTestTestfile.cmake
# ) on the device machine, whose checkout is linked to the path they were configured at, then re-measures the
# executor validations of docs/validation.md. Outputs under $OUT.
# The working tree and what is carried must stay under the device tool's 64 MiB: carry one archive made here,
#   tar czf build/carry.tgz build/live/gpusched-live build/live/lib build/devtests build/sim/gpusched
# and unpack it first on the device (`tar xzf build/carry.tgz && VALIDATE=0 bash live/gpu-tests-on-device.sh`).
set -uo pipefail
root=${GPUSCHED_CONFIGURED_ROOT:-/work/main}
if [[ $PWD != "$root" ]]; then mkdir -p "$(dirname "$root")"; ln -sfn "$PWD" "$root"; fi
export LD_LIBRARY_PATH=$root/build/live/lib
mkdir -p "$root/build/tests" "${OUT:=/tmp/out}"
(cd "$root" && ctest --test-dir build/devtests --output-on-failure 2>&1 | tee "$OUT/gpu-tests.txt")
[[ ${VALIDATE:-1} == 1 ]] || exit 0
bin=$root/build/live/gpusched-live
cd "$root"
$bin validate --workload traces/workloads/alone-h100.toml --any-gpu --policy fifo,srtf,chimera,spatial,timeshare \
  --db /tmp/alone.db > "$OUT/validate-alone-h100.txt" 2>&1; echo "alone exit $?"
$bin validate --workload traces/workloads/validate-h100.toml --policy all --interference none residency markov \
  --db /tmp/v.db > "$OUT/validate-validate-h100.txt" 2>&1; echo "validate-h100 exit $?"
