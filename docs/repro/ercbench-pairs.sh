#!/usr/bin/env bash
# Seed 001 Tables 5 and 6: the 56 ordered two-program workloads of the eight ERCBench kernels on the
# GTX480 preset under fifo, mpmax, srtf, srtf-adaptive and sjf; STP, ANTT and StrictF averaged over the
# workloads (arithmetic mean, and geometric mean in parentheses).
# Usage: [POLICIES=a,b,...] [SIM_ARGS='--set srtf.remaining=gpu ...'] docs/repro/ercbench-pairs.sh [GPUSCHED]
#        (from the repository root; SIM_ARGS are added to every `gpusched sim` of the tables)
set -euo pipefail
G=${1:-./build/sim/gpusched}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
policies=${POLICIES:-fifo,mpmax,srtf,srtf-adaptive,sjf}

run_setting() {  # title, gen-pairs arguments...
  local title=$1
  shift
  "$G" gen pairs --kernels traces/ercbench/*.kernel.toml --gpu gtx480 --out "$work/$title" "$@" >/dev/null
  : > "$work/$title.csv"
  for w in "$work/$title"/*.toml; do
    # shellcheck disable=SC2086 # SIM_ARGS is a list of arguments
    "$G" sim -w "$w" -p "$policies" ${SIM_ARGS:-} --format csv | tail -n +2 >> "$work/$title.csv"
  done
  if [[ $title == staggered-0-100-cycles && ,$policies, == *,sjf,* ]]; then
    # The paper's SJF is an oracle that "schedules kernels even before they run": both kernels of a pair are
    # known at t = 0. The same pairs with both arrivals at 0, under sjf, as the row "sjf-oracle".
    "$G" gen pairs --kernels traces/ercbench/*.kernel.toml --gpu gtx480 --out "$work/$title-oracle" \
      --offset-cycles 0 --seed 1 >/dev/null
    for w in "$work/$title-oracle"/*.toml; do
      "$G" sim -w "$w" -p sjf --format csv | tail -n +2 | sed 's/^sjf,/sjf-oracle,/' >> "$work/$title.csv"
    done
    policies_shown="$policies,sjf-oracle"
  else
    policies_shown=$policies
  fi
  echo "### $title"
  echo
  echo "| policy | STP | ANTT | StrictF |"
  echo "|---|---:|---:|---:|"
  awk -F, -v order="$policies_shown" '
    { n[$1]++; stp[$1] += $2; antt[$1] += $3; f[$1] += $4;
      lstp[$1] += log($2); lantt[$1] += log($3); lf[$1] += log($4 > 0 ? $4 : 1e-9) }
    END { k = split(order, p, ",");
      for (i = 1; i <= k; i++) { q = p[i];
        printf "| %s | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) |\n", q, stp[q] / n[q], exp(lstp[q] / n[q]),
               antt[q] / n[q], exp(lantt[q] / n[q]), f[q] / n[q], exp(lf[q] / n[q]) } }' "$work/$title.csv"
  echo
}

run_setting "staggered-0-100-cycles" --offset-cycles 100 --seed 1
run_setting "second-at-25pct" --offset-fraction 0.25
run_setting "second-at-50pct" --offset-fraction 0.5

# MPMax's worst pair (the paper: 10.08, SHA1+JPEG-d), on the staggered pairs, with the engine's instant block
# placement and with GPGPU-Sim's CTA issue rate (one CTA per cluster per cycle: traces/gpus/gtx480-gpgpusim-dispatch.toml).
echo "### mpmax's worst ANTT over the staggered pairs"
echo
for gpu in "" traces/gpus/gtx480-gpgpusim-dispatch.toml; do
  for w in "$work/staggered-0-100-cycles"/*.toml; do
    printf '%s,' "$(basename "$w" .toml)"
    "$G" sim -w "$w" -p mpmax ${gpu:+--gpu "$gpu"} --format csv | tail -n +1 | awk -F, 'NR == 2 { print $3 }'
  done | sort -t, -k2 -g -r | head -1 | awk -F, -v g="${gpu:-gtx480 (instant placement)}" '{ printf "- %s: %s, ANTT %.2f\n", g, $1, $2 }'
done
