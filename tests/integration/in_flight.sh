#!/usr/bin/env bash
# Integration test of scripts/in-flight.py on a hand-made plan and execution (docs/validation.md, "The launch at the
# p90"). Plan: launch a, blocks 0 and 1 on SM 0 at (0, 10000) ns; launch b, block 0 on SM 1 at (5000, 25000).
# Execution: a at (0, 12000) and (1000, 13000), b at (8000, 40000).
# At 6 us: plan a 2, b 1; execution a 2, b 0. At 12.5 us: plan a 0, b 1; execution a 1 (the second ends at 13), b 1.
# b by 10-us start windows: planned 1 block started in 0-10 us, time 20.0 us, last end 25.0 us; executed 32.0 us, last
# end 40.0 us.
# A missing file, a CSV without a column, a field that is not an integer, an end before its start and a bad --at are
# refused with a message naming the file (and line and field), exit 1.
#   in_flight.sh SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3).
set -uo pipefail
src=$1
command -v python3 > /dev/null || { echo "SKIPPED: python3 not found"; exit 77; }
source "$(dirname "$0")/common.sh" in-flight
header='launch,kernel,block,gpu,sm,start_ns,end_ns,outcome'
printf '%s\na,k,0,0,0,0,10000,completed\na,k,1,0,0,0,10000,completed\nb,k,0,0,1,5000,25000,completed\n' "$header" \
  > "$work/plan.csv"
printf '%s\na,k,0,0,0,0,12000,completed\na,k,1,0,0,1000,13000,completed\nb,k,0,0,1,8000,40000,completed\n' "$header" \
  > "$work/live.csv"
run() { python3 "$src/scripts/in-flight.py" "$@" 2>&1; }
out=$(run "$work/plan.csv" "$work/live.csv" --at 6,12.5 --launch b --window 10) || fail "in-flight: $out"
echo "$out"
row() { grep -E "^ +$1 " <<< "$out" | tr -s ' '; }
[[ $(row 6.0) == " 6.0 2/2 1/0 " ]] || fail "at 6 us: '$(row 6.0)'"
[[ $(row 12.5) == " 12.5 0/1 1/1 " ]] || fail "at 12.5 us: '$(row 12.5)'"
grep -q "^plan: b first blocks SM 1 5.0-25.0 us; last end 25.0 us" <<< "$out" || fail "b's planned block"
grep -q "^execution: b first blocks SM 1 8.0-40.0 us; last end 40.0 us" <<< "$out" || fail "b's executed block"
grep -qE "started +0-10 +us: +1 blocks, time median +20.0" <<< "$out" || fail "b's planned time"
grep -qE "started +0-10 +us: +1 blocks, time median +32.0" <<< "$out" || fail "b's executed time"

out=$(run "$work/nosuch.csv" "$work/live.csv" --at 1) && fail "a missing file passed"
grep -q "nosuch.csv: No such file" <<< "$out" || fail "missing file: $out"
printf 'launch,start_ns,end_ns\na,0,1\n' > "$work/nosm.csv"
out=$(run "$work/nosm.csv" "$work/live.csv" --at 1) && fail "a CSV without sm passed"
grep -q "nosm.csv: no column sm" <<< "$out" || fail "missing column: $out"
printf '%s\na,k,0,0,0,x,10,completed\n' "$header" > "$work/bad.csv"
out=$(run "$work/plan.csv" "$work/bad.csv" --at 1) && fail "a bad start passed"
grep -q "bad.csv line 2: field 'start_ns' is not an integer" <<< "$out" || fail "bad field: $out"
printf '%s\na,k,0,0,0,10,5,completed\n' "$header" > "$work/back.csv"
out=$(run "$work/back.csv" "$work/live.csv" --at 1) && fail "an end before its start passed"
grep -q "back.csv line 2: field 'end_ns' is before 'start_ns'" <<< "$out" || fail "end before start: $out"
out=$(run "$work/plan.csv" "$work/live.csv" --at 1,x) && fail "a bad --at passed"
grep -q "^in-flight: --at" <<< "$out" || fail "bad --at: $out"
echo "in-flight: passed"
