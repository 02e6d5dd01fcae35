#!/usr/bin/env bash
# Integration test of scripts/parts-at.py on a hand-made plan and store (docs/validation.md, "Grids the GPU starts a
# second"). Two SMs, one launch `a` of kernel K. Plan (run 1): blocks 0 and 1 on SM 0 at (0, 10000) ns (part 0), block
# 2 on SM 1 at (10000, 20000) (part 1); K's most blocks an SM in the plan: 2. Executed (run 2): blocks 0 and 1 on SM 0
# at (0, 8000), block 2 on SM 1 at (15000, 25000).
# Slot shares in 10 us buckets (block time / 2 a slot, over 10000 ns x 2 SMs): plan 2 x 10000 / 2 / 20000 = 0.500,
# then 10000 / 2 / 20000 = 0.250; execution 2 x 8000 / 2 / 20000 = 0.400, then 5000 / 2 / 20000 = 0.125 twice.
# At 12 us: no block runs (2 of 2 SMs idle); part 1, planned at 10 us, starts at 15 us: +5.0 us.
# A plan CSV without a column, with a bad field, a missing file, a policy without rows and a store that is not one are
# refused with a message naming the file (and line), exit 1.
#   parts_at.sh SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3).
set -uo pipefail
src=$1
command -v python3 > /dev/null || { echo "SKIPPED: python3 not found"; exit 77; }
source "$(dirname "$0")/common.sh" partsat
printf 'policy,launch,launch_id,part,block,start_ns,end_ns\np,0,a,0,0,0,10000\np,0,a,0,1,0,10000\np,0,a,1,2,10000,20000\n' \
  > "$work/plan.csv"
python3 - "$work/store.db" <<'PY' || fail "could not make the store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE launches (run_id INTEGER, idx INTEGER, launch_id TEXT, kernel TEXT)")
db.execute("CREATE TABLE blocks (run_id INTEGER, launch INTEGER, block INTEGER, sm INTEGER, start_ns INTEGER, end_ns INTEGER)")
db.executemany("INSERT INTO launches VALUES (?, 0, 'a', 'K')", [(1,), (2,)])
db.executemany("INSERT INTO blocks VALUES (1, 0, ?, ?, ?, ?)", [(0, 0, 0, 10000), (1, 0, 0, 10000), (2, 1, 10000, 20000)])
db.executemany("INSERT INTO blocks VALUES (2, 0, ?, ?, ?, ?)", [(0, 0, 0, 8000), (1, 0, 0, 8000), (2, 1, 15000, 25000)])
db.commit()
PY
run() { python3 "$src/scripts/parts-at.py" "$@" 2>&1; }
out=$(run "$work/store.db" "$work/plan.csv" p --at-us 12 --bucket-us 10) || fail "parts-at: $out"
echo "$out"
grep -Eq "^ +0 us +0\.500 +0\.400$" <<< "$out" || fail "the first bucket is not 0.500 / 0.400"
grep -Eq "^ +10 us +0\.250 +0\.125$" <<< "$out" || fail "the second bucket is not 0.250 / 0.125"
grep -Eq "^ +20 us +0\.000 +0\.125$" <<< "$out" || fail "the third bucket is not 0.000 / 0.125"
grep -q "^at 12 us: 2 of 2 SMs idle in the execution; 1 parts the plan had started by then had not started" <<< "$out" ||
  fail "the idle SMs or waiting parts at 12 us are wrong"
grep -q "^  a part 1: planned 10.0 us, started 15.0 us (1 pieces)" <<< "$out" || fail "the waiting part is not listed"
grep -q "^  15.0 us: a part 1, +5.0 us against the plan" <<< "$out" || fail "the next start is not listed"
out=$(run "$work/store.db" "$work/plan.csv" r --at-us 12) && fail "a policy without rows passed"
grep -q "^parts-at: .*plan.csv: no rows of policy 'r'" <<< "$out" || fail "a policy without rows is not named: $out"
out=$(run "$work/store.db" "$work/nosuch.csv" p --at-us 12) && fail "a missing plan passed"
grep -q "^parts-at: .*nosuch.csv: No such file" <<< "$out" || fail "a missing plan is not named: $out"
printf 'policy,launch,part,block,start_ns,end_ns\np,0,0,x,0,10\n' > "$work/bad.csv"
out=$(run "$work/store.db" "$work/bad.csv" p --at-us 12) && fail "a bad block passed"
grep -q "^parts-at: .*bad.csv: line 2: field 'block': not an integer" <<< "$out" ||
  fail "no file and line for a bad block: $out"
printf 'policy,launch,block,start_ns\np,0,0,0\n' > "$work/nopart.csv"
out=$(run "$work/store.db" "$work/nopart.csv" p --at-us 12) && fail "a plan without parts passed"
grep -q "^parts-at: .*nopart.csv: line 1: no 'part' column" <<< "$out" || fail "a plan without its part column is not named: $out"
out=$(run "$work/plan.csv" "$work/plan.csv" p --at-us 12) && fail "a CSV as the store passed"
grep -q "^parts-at: .*plan.csv: file is not a database" <<< "$out" || fail "a store that is not one is not named: $out"
echo "PASSED"
