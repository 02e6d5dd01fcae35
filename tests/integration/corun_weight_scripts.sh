#!/usr/bin/env bash
# Integration test of scripts/equivalent-corun-weights.py and scripts/corun-separable-bound.py on the shipped H100
# co-run records: the figures docs/interference.md quotes ("How far a weight per pair can go", session 41), the
# profile copies the first writes (221 weights added, the record files referenced in place, so the copies load), and
# a missing --out refused.
#   corun_weight_scripts.sh GPUSCHED SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3 3.11 with tomllib).
set -uo pipefail
gpusched=$1
src=$2
python3 -c "import tomllib" 2> /dev/null || { echo "SKIPPED: python3 with tomllib (3.11) not found"; exit 77; }
source "$(dirname "$0")/common.sh" corun-weights
cd "$src" || fail "no source folder $src"
out=$(python3 scripts/equivalent-corun-weights.py --gpusched "$gpusched" --fit-report 2>&1) || fail "fit report: $out"
echo "$out"
grep -q "^one weight per pair (both launch orders, every mix): co-run block time error median 6.6 %, p90 44.3 % (1057 rows, 72 weights)" <<< "$out" || fail "per pair"
grep -q "^per pair and launch order: co-run block time error median 2.9 %, p90 31.6 % (1057 rows, 126 weights)" <<< "$out" || fail "per pair and order"
grep -q "^per pair, launch order and mix (the victim's blocks an SM): co-run block time error median 0.3 %, p90 5.1 %" <<< "$out" || fail "per pair, order and mix"
out=$(python3 scripts/equivalent-corun-weights.py --gpusched "$gpusched" 2>&1) && fail "no --out passed"
grep -q -- "--out is required" <<< "$out" || fail "no --out: $out"
out=$(python3 scripts/equivalent-corun-weights.py --gpusched "$gpusched" --out "$work/cw" 2>&1) || fail "copies: $out"
grep -q "^221 weights added to the profiles in $work/cw/h100" <<< "$out" || fail "weights added: $(tail -1 <<< "$out")"
grep -q '^"spmv-s1" = 3.088' "$work/cw/h100/sad-s1.kernel.toml" || fail "sad-s1 <- spmv-s1's co-run weight"
grep -q '^"gather-s1" = 4.928' "$work/cw/h100/sad-s1.kernel.toml" || fail "sad-s1 <- gather-s1's native fit kept"
"$gpusched" validate "$work/cw/h100/sad-s1.kernel.toml" > /dev/null || fail "the copied profile does not load"
"$gpusched" validate "$work/cw/workloads/validate-h100.toml" > /dev/null || fail "the copied workload does not load"
out=$(python3 scripts/corun-separable-bound.py --gpusched "$gpusched" 2>&1) || fail "separable bound: $out"
echo "$out"
grep -q "^eqw            in sample median  10.1 %, p90  52.3 %; held out median  13.9 %, p90  66.8 %" <<< "$out" || fail "eqw"
grep -q "^lnln + order   in sample median  10.7 %, p90  65.7 %; held out median  13.3 %, p90  75.5 %" <<< "$out" || fail "lnln + order"
echo "co-run weight scripts: passed"
