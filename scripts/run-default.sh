#!/usr/bin/env bash
# The README's main job: set up, build, and simulate the shipped default workload under every policy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
./build/sim/gpusched sim --workload traces/workloads/default.toml --policy all
