#!/usr/bin/env bash
# The README's test command: set up, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "$@"
ctest --preset release -j "$(nproc)"
