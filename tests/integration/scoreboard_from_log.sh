#!/usr/bin/env bash
# Integration test of scripts/scoreboard-from-log.py on a hand-made log of two validate runs (docs/validation.md,
# "Parts held by the phase of the plan"). Workload w, policy p, repeat 1: launch errors +4, -8, +30 % -> |e| sorted
# [4, 8, 30], nearest rank median (2nd) 8, p90 (ceil(2.7) = 3rd) 30; repeat 2: +2, +6, -10 -> [2, 6, 10]: 6 and 10.
# Medians over the two repeats: (8 + 6) / 2 = 7.0 and (30 + 10) / 2 = 20.0, within 10 % / 25 %. Policy q, one repeat:
# +50 % and +1 % -> [1, 50]: median 1 (1st), p90 50 (2nd): out. So 1 of 2 within.
# A missing file and a log without per-launch tables are refused with a message naming the file, exit 1.
#   scoreboard_from_log.sh SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3).
set -uo pipefail
src=$1
command -v python3 > /dev/null || { echo "SKIPPED: python3 not found"; exit 77; }
source "$(dirname "$0")/common.sh" scoreboard
row() { printf '%-6s %-20s %10s %14s %+9.2f%%    +0.00%%    +0.00%%    +0.00%%\n' "$1" "$2" "1.000 ms" "1.000 ms" "$3"; }
{
  echo "p                equivalent:gpu_wide=on     1     2    1.000 ms    1.010 ms     +1.0%    +0.0%    +0.0%      1.0%   0.100      0"
  echo "launch id                   turnaround      reference     error     start    blocks     width"
  row 0 a 4; row 1 b -8; row 2 c 30
  echo "q                equivalent:gpu_wide=on     3     4    1.000 ms    1.010 ms     +1.0%    +0.0%    +0.0%      1.0%   0.100      0"
  echo "launch id                   turnaround      reference     error     start    blocks     width"
  row 0 a 50; row 1 b 1
  echo "  carried out by the hardware's own dispatch"
  echo "validate w repeat 1 exit 0"
  echo "p                equivalent:gpu_wide=on     1     2    1.000 ms    1.010 ms     +1.0%    +0.0%    +0.0%      1.0%   0.100      0"
  echo "launch id                   turnaround      reference     error     start    blocks     width"
  row 0 a 2; row 1 b 6; row 2 c -10
  echo "validate w repeat 2 exit 0"
} > "$work/run.log"
out=$(python3 "$src/scripts/scoreboard-from-log.py" "$work/run.log") || fail "scoreboard-from-log: $out"
echo "$out"
grep -q "^| w | p | 2 | 7.0 | 20.0 | yes |$" <<< "$out" || fail "w / p is not 7.0 / 20.0 over 2 repeats, within"
grep -q "^| w | q | 1 | 1.0 | 50.0 | no |$" <<< "$out" || fail "w / q is not 1.0 / 50.0, out"
grep -q "^within 10 % / 25 %: 1 of 2$" <<< "$out" || fail "the count is not 1 of 2"
gzip -c "$work/run.log" > "$work/run.log.gz"
out=$(python3 "$src/scripts/scoreboard-from-log.py" "$work/run.log.gz") || fail "a gzipped log: $out"
grep -q "^within 10 % / 25 %: 1 of 2$" <<< "$out" || fail "the gzipped log's count is not 1 of 2"
out=$(python3 "$src/scripts/scoreboard-from-log.py" "$work/nosuch.log" 2>&1) && fail "a missing log passed"
grep -q "^scoreboard-from-log: .*nosuch.log: No such file" <<< "$out" || fail "a missing log is not named: $out"
echo "validate w repeat 1 exit 0" > "$work/empty.log"
out=$(python3 "$src/scripts/scoreboard-from-log.py" "$work/empty.log" 2>&1) && fail "a log without tables passed"
grep -q "^scoreboard-from-log: no per-launch tables in .*empty.log" <<< "$out" || fail "a log without tables: $out"
echo "scoreboard_from_log: passed"
