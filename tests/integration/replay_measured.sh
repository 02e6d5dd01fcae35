#!/usr/bin/env bash
# Integration test of scripts/replay-measured.py on a store made by the simulator:
# a run under `equivalent` stands for a live run, linked as the validation of the same policy's run under `none`.
# Replayed with its own block times, the stand-in must come back exactly (0.0 % error) for fifo and for sjf (at the
# plan's stream priorities), although it is some per cent off its `none` prediction; a missing store is refused.
#   replay_measured.sh GPUSCHED SOURCE_DIR
# Exit 0: passed; 1: failed; 77: skipped (no python3 with sqlite3).
set -uo pipefail
gpusched=$1
src=$2
python3 -c "import sqlite3" 2>/dev/null || { echo "SKIPPED: python3 with sqlite3 not found"; exit 77; }
source "$(dirname "$0")/common.sh" replay
cd "$src" || fail "no source dir $src"
w=traces/workloads/live-h100.toml
"$gpusched" sim -w $w -p fifo,sjf --interference equivalent --db "$work/s.db" --format csv > /dev/null || fail "sim"
"$gpusched" sim -w $w -p fifo,sjf --interference none --db "$work/s.db" --format csv > /dev/null || fail "sim"
python3 - "$work/s.db" <<'PY' || fail "linking the runs"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO validations VALUES (1, 3, 'test'), (2, 4, 'test')")  # fifo, sjf: equivalent against none
db.commit()
PY
out=$(python3 scripts/replay-measured.py "$work/s.db" --gpusched "$gpusched" --work "$work/r") || fail "replay: $out"
echo "$out"
for p in fifo sjf; do
  line=$(grep "^$p (priorities)" <<< "$out") || fail "no $p line"
  read -r -a f <<< "${line#* (priorities)}"
  [[ ${f[2]} == 0.0% && ${f[3]} == 0.0% ]] || fail "$p replayed with its own block times is not exact: $line"
  [[ ${f[1]} != 0.0% ]] || fail "$p: the stand-in equals its prediction, the test proves nothing: $line"
done
if python3 scripts/replay-measured.py "$work/missing.db" 2> "$work/err"; then fail "a missing store was accepted"; fi
grep -q "missing.db" "$work/err" || fail "the error does not name the store: $(cat "$work/err")"
echo "PASSED"
