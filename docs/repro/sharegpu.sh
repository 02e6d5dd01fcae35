#!/usr/bin/env bash
# Seed 004 (Share-a-GPU): Figures 5, 6, 7, 9 and 10 on the Table I programs (core/sharegpu_programs) on the
# K40 preset under `timeshare`. Usage: docs/repro/sharegpu.sh [GPUSCHED]   (from the repository root; ~2 s)
set -euo pipefail
G=${1:-./build/sim/gpusched}
"$G" sharegpu
