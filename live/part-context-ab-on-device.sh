#!/usr/bin/env bash
# Session 59's A/B of the green contexts in the parts replay (docs/validation.md, "Green contexts in the parts
# replay"), executions interleaved so that the GPU's drift falls on both alike: for each CASE (workload:policy),
# validate by default and with the option OPTION, REPEATS times. Writes $OUT/pc-NAME.csv (executor.csv's rows) and
# $OUT/pc-NAME.log, NAME being default or the option's tag; compare with `python3 scripts/executor-table.py`.
#   bash live/part-context-ab-on-device.sh TAG=OPTION CASE...     (CASE: workload:policy, e.g. bursts-h200:srtf)
# DEFAULT: the other arm's options (default none: validate's defaults). ONLY_IF: a regular expression; where set, the
# option's arm runs first, and a case whose first execution's report does not match it is not repeated (the option
# changed nothing there: `auto` chose what the other arm runs).
set -uo pipefail
source live/device-env.sh
pair=${1:?TAG=OPTION}
shift
tag=${pair%%=*}
option=${pair#*=}
run_one() {  # name workload policy repeat extra-options
  echo "=== $1 $2 $3 repeat $4" >> "$out/pc-$1.log"
  # shellcheck disable=SC2086  # the options may be several words
  "$bin" validate -w "traces/workloads/$2.toml" --policy "$3" --interference auto --any-gpu --per-launch $5 \
    --db "/tmp/pc-$1-$2.db" --csv "$out/pc-$1.csv" --repeat "$4" > /tmp/pc-last.log 2>&1
  local rc=$?
  cat /tmp/pc-last.log >> "$out/pc-$1.log"
  echo "$1 $2 $3 repeat $4 exit $rc"
}
cases=()
for c in "$@"; do
  if [ -n "${ONLY_IF:-}" ]; then
    run_one "$tag" "${c%%:*}" "${c#*:}" 1 "$option"
    if grep -qE "$ONLY_IF" /tmp/pc-last.log; then
      run_one default "${c%%:*}" "${c#*:}" 1 "${DEFAULT:-}"
      cases+=("$c")
    else
      echo "$c: not repeated (the report does not match $ONLY_IF)"
    fi
  else
    cases+=("$c")
  fi
done
first=1
[ -n "${ONLY_IF:-}" ] && first=2
for r in $(seq "$first" "${REPEATS:-3}"); do
  for c in "${cases[@]}"; do
    run_one default "${c%%:*}" "${c#*:}" "$r" "${DEFAULT:-}"
    run_one "$tag" "${c%%:*}" "${c#*:}" "$r" "$option"
  done
done
