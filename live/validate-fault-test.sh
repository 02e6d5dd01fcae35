#!/usr/bin/env bash
# Validation's error paths on a real GPU: the second of two executions hangs (the --timeout watchdog) or faults
# (a CUDA error). Each must end with a clear message and a non-zero exit, and the store must hold the first
# execution whole (its prediction, its live run, their link) and nothing of the second. Skips (77) where no GPU or
# driver is present.
#   validate-fault-test.sh GPUSCHED_LIVE GPUSCHED WORKLOAD [POLICIES [EXECUTOR]]   (POLICIES: the two executions,
#   default fifo,chimera: under auto chimera's plan runs in parts on green contexts; EXECUTOR: --executor's value,
#   default auto. The fault is injected ahead of the second execution's first grid, whichever carries it out)
bin=$1
gpusched=$2
workload=$3
policies=${4:-fifo,chimera}
executor=${5:-auto}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
check() {  # kind, expected message
  local msg rc runs
  msg=$("$bin" validate -w "$workload" --any-gpu -p "$policies" --executor "$executor" --alone-repeats 1 --inject-fault "$1" --timeout 5 \
    --db "$out/$1.db" 2>&1)
  rc=$?
  echo "$msg" | grep -v "^gpusched-live: note"
  if [[ $rc != 0 ]] && grep -qE "no CUDA GPU is present|driver is missing or older" <<<"$msg"; then
    echo "SKIPPED: no GPU here"
    exit 77
  fi
  if [[ $rc == 0 ]]; then echo "FAIL: $1: exit 0"; fail=1; fi
  if ! grep -q "$2" <<<"$msg"; then echo "FAIL: $1: message lacks '$2'"; fail=1; fi
  runs=$("$gpusched" runs "$out/$1.db" 2>&1 | grep -cE "^ *[0-9]+ +(sim|live) ")
  if [[ $runs != 2 ]]; then
    echo "FAIL: $1: the store holds $runs runs, expected 2 (the first execution's prediction and live run)"
    "$gpusched" runs "$out/$1.db"
    fail=1
  fi
  echo "$1: exit $rc, $runs runs stored"
}
check hang "did not finish within 5 s"
check error "CUDA error"
exit $fail
