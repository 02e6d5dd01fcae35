#!/usr/bin/env bash
# The README's main job: set up, build, and simulate the shipped default workloads under every policy: the
# paper-derived one (ERCBench kernels on a GTX 480), the one recorded on a real H100, and a batch of seed 002's
# synthetic kernels queued at once (where the submission order, and so knapsack reordering, matters).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --main-job
./build/sim/gpusched sim --workload traces/workloads/default.toml --policy all
echo
./build/sim/gpusched sim --workload traces/workloads/live-h100.toml --policy all --interference residency
echo
./build/sim/gpusched sim --workload traces/synthetic/knapsack-n32-nb64-s1.toml --policy all
