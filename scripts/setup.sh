#!/usr/bin/env bash
# Installs the Debian packages gpusched needs (only those missing; quick when all are there) and builds
# the release configuration into build/. Nothing is downloaded from outside the Debian archive.
# Usage: scripts/setup.sh [--main-job] [extra cmake arguments]
#   --main-job: only what `gpusched` needs (its packages and its target: no Qt, tests, benchmarks or
#               gpusched-live), so the README's main job prints its first table sooner on a fresh machine.
#               The test command runs the full set-up afterwards in the same build/.
set -euo pipefail
cd "$(dirname "$0")/.."

main_job=0
if [ "${1:-}" = "--main-job" ]; then
  main_job=1
  shift
fi
start=$SECONDS
step() { echo "setup [$((SECONDS - start)) s]: $*"; }

packages=(
  cmake ninja-build g++ pkg-config git
  libboost-graph-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libsqlite3-dev
)
if ((!main_job)); then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    clang libclang-rt-14-dev
    slurmctld slurmd slurm-client munge
    qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins
  )
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  step "installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  step "packages already installed"
fi

# The parts are switched explicitly both ways: build/'s cache keeps what the last configure chose.
if ((main_job)); then
  parts=(-DGPUSCHED_BUILD_TESTS=OFF -DGPUSCHED_BUILD_BENCH=OFF -DGPUSCHED_BUILD_GUI=OFF -DGPUSCHED_BUILD_LIVE=OFF)
  target=(--target gpusched)
else
  parts=(-DGPUSCHED_BUILD_TESTS=ON -DGPUSCHED_BUILD_BENCH=ON -DGPUSCHED_BUILD_GUI=ON -DGPUSCHED_BUILD_LIVE=ON)
  target=()
fi
step "configuring build/ (release)"
cmake --preset release "${parts[@]}" "$@" >/dev/null
step "building ${target[*]:-everything} with $(nproc) jobs"
cmake --build --preset release -j "$(nproc)" "${target[@]}"
step "done"
