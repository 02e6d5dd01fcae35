#!/usr/bin/env bash
# Instrumentation cost of the two ways of stamping a block's end (docs/live.md): every suite kernel at both
# sizes, recorded with each --stamping (barrier, last-warp, per-warp); prints the overhead lines of each.
#   bash live/stamping-compare.sh [REPEATS]     (on a GPU machine, from the repository root)
set -uo pipefail
bin=build/live/gpusched-live
if ldd "$bin" | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/build/live/lib; fi
repeats=${1:-21}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in sgemm histogram gather spmv stencil blackscholes sad xtea mriq; do
  for s in s1 s2; do
    for st in barrier last-warp per-warp; do
      line=$($bin record --kernel $k --size $s --stamping $st --repeats "$repeats" --residency 1 --out "$tmp/$st" 2>&1 | grep overhead)
      echo "$st $k-$s: ${line#*: wrote *; }"
    done
  done
done
