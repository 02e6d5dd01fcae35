#!/usr/bin/env bash
# Integration test of scripts/record-drift.py on hand-made recordings (docs/formats.md, "Recorded launches run warm").
# Profile "cold": shipped blocks (start, end in ns) (0, 20000) x2 then (20000, 30000) x2: span 30 us, first wave (blocks
# starting within 5 us of the first) median 20 us, every block's median (10+10+20+20 us -> 15 us); both fresh
# recordings (0, 11000) x2 then (11000, 21000) x2: span 21 us (-30.0 %, the repeats' spread 0.0 %), first wave 11 us
# (-45.0 %), median 10.5 us (-30.0 %): flagged. Profile "same": the shipped blocks recorded again unchanged: not
# flagged. A recording missing from a fresh folder is named and skipped; a missing folder, a record file without its
# columns and a bad field are refused with a message naming file, line and field, exit 1.
#   record_drift.sh SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3).
set -uo pipefail
src=$1
command -v python3 > /dev/null || { echo "SKIPPED: python3 not found"; exit 77; }
source "$(dirname "$0")/common.sh" drift
mkdir -p "$work/shipped" "$work/rec1" "$work/rec2"
profile() {  # NAME: a profile with one record set at residency 2
  printf 'format = "gpusched-kernel"\nname = "%s"\n\n[[records]]\nresidency = 2\nfile = "%s.r2.csv"\n' "$1" "$1"
}
blocks() {  # FIRST_WAVE_END LATER_END: four blocks
  printf 'block,sm,start,end\n0,0,0,%s\n1,1,0,%s\n2,0,%s,%s\n3,1,%s,%s\n' "$1" "$1" "$1" "$2" "$1" "$2"
}
for n in cold same; do profile $n > "$work/shipped/$n.kernel.toml"; done
blocks 20000 30000 > "$work/shipped/cold.r2.csv"
blocks 20000 30000 > "$work/shipped/same.r2.csv"
for r in rec1 rec2; do
  blocks 11000 21000 > "$work/$r/cold.r2.csv"
  blocks 20000 30000 > "$work/$r/same.r2.csv"
done
out=$(python3 "$src/scripts/record-drift.py" "$work/shipped" "$work/rec1" "$work/rec2") || fail "record-drift: $out"
echo "$out"
line=$(grep "^cold " <<< "$out") || fail "no line for cold"
grep -q -- "-30.0% (0.0%)" <<< "$line" || fail "cold's span change is not -30.0 % (0.0 %): $line"
grep -q -- "-45.0%" <<< "$line" || fail "cold's first-wave change is not -45.0 %: $line"
grep -q "differs" <<< "$line" || fail "cold is not flagged: $line"
line=$(grep "^same " <<< "$out") || fail "no line for same"
grep -q "differs" <<< "$line" && fail "same is flagged: $line"
grep -q "^1 record sets differ" <<< "$out" || fail "the count is not 1"
out=$(python3 "$src/scripts/record-drift.py" "$work/shipped" "$work/nosuch" 2>&1) && fail "a missing fresh folder passed"
grep -q "^record-drift: .*nosuch: not a folder" <<< "$out" || fail "a missing fresh folder is not named: $out"
rm "$work/rec2/same.r2.csv"
out=$(python3 "$src/scripts/record-drift.py" "$work/shipped" "$work/rec2") || fail "a recording missing from a folder: $out"
grep -q "^same .*not in .*rec2/same.r2.csv" <<< "$out" || fail "a recording missing from a folder is not named: $out"
printf 'block,sm,start,end\n0,0,0,x\n' > "$work/rec2/cold.r2.csv"
out=$(python3 "$src/scripts/record-drift.py" "$work/shipped" "$work/rec2" 2>&1) && fail "a bad end passed: $out"
grep -q "^record-drift: .*rec2/cold.r2.csv: line 2: field 'end'" <<< "$out" || fail "no file, line and field for a bad end: $out"
printf 'block,sm\n0,0\n' > "$work/rec1/cold.r2.csv"
out=$(python3 "$src/scripts/record-drift.py" "$work/shipped" "$work/rec1" 2>&1) && fail "a record file without start and end passed: $out"
grep -q "^record-drift: .*rec1/cold.r2.csv: line 1: no 'start' column" <<< "$out" || fail "no clear message for a record file without start and end: $out"
echo "PASSED"
