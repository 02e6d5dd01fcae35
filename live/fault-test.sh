#!/usr/bin/env bash
# The recorder's error paths on a real GPU: a kernel that hangs (the --timeout watchdog) and one that faults
# (a CUDA error) must end with a clear message and a non-zero exit, and leave no trace file behind. Skips (77)
# where no GPU or driver is present.
#   fault-test.sh GPUSCHED_LIVE
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
check() {  # kind, expected message
  local msg rc files
  msg=$("$bin" record --kernel stencil --size s1 --inject-fault "$1" --timeout 3 --repeats 1 --out "$out/$1" 2>&1)
  rc=$?
  echo "$msg"
  if [[ $rc != 0 ]] && grep -qE "no CUDA GPU is present|driver is missing or older" <<<"$msg"; then
    echo "SKIPPED: no GPU here"
    exit 77
  fi
  files=$(find "$out/$1" -type f 2>/dev/null | wc -l)
  if [[ $rc == 0 ]]; then echo "FAIL: $1: exit 0"; fail=1; fi
  if ! grep -q "$2" <<<"$msg"; then echo "FAIL: $1: message lacks '$2'"; fail=1; fi
  if [[ $files != 0 ]]; then echo "FAIL: $1: $files files left in the output folder"; fail=1; fi
  echo "$1: exit $rc, $files files left"
}
check hang "did not finish within 3 s"
check error "CUDA error"
exit $fail
