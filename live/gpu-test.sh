#!/usr/bin/env bash
# Runs one gpusched-live command as a test: passes on exit 0, skips (exit 77, the reason printed) where the
# machine has no GPU or no NVIDIA driver, or where the workload was recorded on another GPU than this one and the test
# does not pass --any-gpu (its expected figures are that GPU's: an H100 test on an H200), fails otherwise.
#   gpu-test.sh GPUSCHED_LIVE COMMAND [ARGS...]
bin=$1
shift
out=$("$bin" "$@" 2>&1)
rc=$?
echo "$out"
if [[ $rc != 0 ]] && grep -qE "no CUDA GPU is present|driver is missing or older" <<<"$out"; then
  echo "SKIPPED: no GPU here"
  exit 77
fi
if [[ $rc != 0 ]] && grep -qE "^gpusched-live: error: the workload is for .* but the GPU is " <<<"$out"; then
  echo "SKIPPED: the workload is another GPU's"
  exit 77
fi
exit $rc
