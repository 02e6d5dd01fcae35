# Sourced by the integration tests after their prerequisite checks: a scratch folder $work (named after NAME, removed
# on exit) and fail MESSAGE (prints FAILED: MESSAGE, exit 1).
#   source common.sh NAME
work=$(mktemp -d "/tmp/gpusched-$1-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*"
  exit 1
}
