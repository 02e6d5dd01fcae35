#!/usr/bin/env bash
# The README's main job: set up, build, and simulate the shipped default workloads under every policy: the
# paper-derived one (ERCBench kernels on a GTX 480) and the one recorded on a real H100.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --main-job
./build/sim/gpusched sim --workload traces/workloads/default.toml --policy all
echo
./build/sim/gpusched sim --workload traces/workloads/live-h100.toml --policy all --interference residency
