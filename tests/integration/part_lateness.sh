#!/usr/bin/env bash
# Integration test of scripts/part-lateness.py on a hand-made plan and store (docs/validation.md, "Late parts").
# Plan (policy p): launch 0, part 0 = blocks 0 and 1 at (0, 10000) ns, part 1 = block 2 at (10000, 20000) ns.
# Executed: blocks 0 and 1 at (0, 8000), block 2 at (15000, 25000). Part 0 starts on time (0 us late), part 1 5 us
# late; both planned in the first 500 us: p10 = 0.0, p50 = p90 = 5.0 (the sorted lateness [0, 5], index int(q x 2)).
# At most one part at once in both (part 0 ends before part 1 starts). Pieces ended: planned [10, 10, 20] us, executed
# [8, 8, 25] us; by nearest rank (the ceil(3q)-th) 5 % to 30 % take the first (lag -2 us), 40 % to 60 % the second
# (-2 us), 70 % to 99 % the third (25 - 20 = +5 us).
# A plan CSV without a column, with a bad field, a missing file and a store without the policy's live run are refused
# with a message naming the file (and line and field), exit 1.
#   part_lateness.sh SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3).
set -uo pipefail
src=$1
command -v python3 > /dev/null || { echo "SKIPPED: python3 not found"; exit 77; }
source "$(dirname "$0")/common.sh" lateness
printf 'policy,launch,launch_id,part,block,start_ns,end_ns\np,0,a,0,0,0,10000\np,0,a,0,1,0,10000\np,0,a,1,2,10000,20000\nq,0,a,0,0,0,1\n' \
  > "$work/plan.csv"
python3 - "$work/store.db" <<'PY' || fail "could not make the store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, mode TEXT, policy TEXT)")
db.execute("CREATE TABLE blocks (run_id INTEGER, launch INTEGER, block INTEGER, start_ns INTEGER, end_ns INTEGER)")
db.execute("INSERT INTO runs VALUES (1, 'sim', 'p'), (2, 'live', 'p (native)')")
db.executemany("INSERT INTO blocks VALUES (2, 0, ?, ?, ?)", [(0, 0, 8000), (1, 0, 8000), (2, 15000, 25000)])
db.commit()
PY
out=$(python3 "$src/scripts/part-lateness.py" "$work/plan.csv" p "$work/store.db") || fail "part-lateness: $out"
echo "$out"
grep -q "^p: 2 parts planned, 2 executed (live run 2)" <<< "$out" || fail "parts or run not found: $out"
grep -Eq "^ +0\.0 ms +2 +0\.0 +5\.0 +5\.0$" <<< "$out" || fail "lateness of the first 500 us is not 0.0 / 5.0 / 5.0"
grep -q "^most parts at once: planned 1, executed 1" <<< "$out" || fail "parts at once are not 1 and 1"
grep -Eq "^lag \(us\) +-2 +-2 +-2 +-2 +-2 +-2 +-2 +5 +5 +5 +5$" <<< "$out" || fail "the lag is not -2 us to 60 %, +5 us from 70 %"
out=$(python3 "$src/scripts/part-lateness.py" "$work/plan.csv" r "$work/store.db" 2>&1) && fail "a policy without parts passed"
grep -q "^part-lateness: .*plan.csv: no rows of policy 'r'" <<< "$out" || fail "a policy without parts is not named: $out"
out=$(python3 "$src/scripts/part-lateness.py" "$work/plan.csv" q "$work/store.db" 2>&1) && fail "a policy without a live run passed"
grep -q "^part-lateness: .*store.db: no live run of q" <<< "$out" || fail "a store without the live run is not named: $out"
out=$(python3 "$src/scripts/part-lateness.py" "$work/nosuch.csv" p "$work/store.db" 2>&1) && fail "a missing plan passed"
grep -q "^part-lateness: .*nosuch.csv: No such file" <<< "$out" || fail "a missing plan is not named: $out"
printf 'policy,launch,part,block,start_ns,end_ns\np,0,0,0,0,x\n' > "$work/bad.csv"
out=$(python3 "$src/scripts/part-lateness.py" "$work/bad.csv" p "$work/store.db" 2>&1) && fail "a bad end passed: $out"
grep -q "^part-lateness: .*bad.csv: line 2: field 'end_ns'" <<< "$out" || fail "no file, line and field for a bad end: $out"
printf 'policy,launch,block,start_ns,end_ns\np,0,0,0,1\n' > "$work/nopart.csv"
out=$(python3 "$src/scripts/part-lateness.py" "$work/nopart.csv" p "$work/store.db" 2>&1) && fail "a plan without parts passed"
grep -q "^part-lateness: .*nopart.csv: line 1: no 'part' column" <<< "$out" || fail "a plan without its part column is not named: $out"
out=$(python3 "$src/scripts/part-lateness.py" "$work/plan.csv" p "$work/plan.csv" 2>&1) && fail "a CSV as the store passed"
grep -q "^part-lateness: .*plan.csv: not a result store" <<< "$out" || fail "a store that is not one is not named: $out"
echo "PASSED"
