#!/usr/bin/env bash
# Seed 000 Figure 13 / Figure 14: total time of Table 5's mixes under base, kernelet and kernelet-opt, and the
# distribution of Monte Carlo co-schedules, on the C2050 and GTX680 presets, with the `markov` interference
# model (so co-scheduling gains and losses come from the same model Kernelet plans with).
#   bash docs/repro/kernelet-mixes.sh [OUT_DIR]
# Environment: INSTANCES (1000) kernels per mix for the main comparison; ROLLOUTS (8) for OPT's rollout oracle; MC_INSTANCES (100) and MC_SAMPLES
# (100) for the Monte Carlo distribution (each sample is a whole simulation); JOBS (every core); SLURM_DIR and
# MC_DB to run the Monte Carlo sweep on a Slurm cluster (below); PARTS ("main mc h100":
# h100 runs the same mixes on the live suite's H100 recordings, beyond the paper).
# Needs the sqlite3 command (Debian package sqlite3) for the Monte Carlo table.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=build/sim/gpusched
out=${1:-/tmp/gpusched-kernelet}
instances=${INSTANCES:-1000}
mc_instances=${MC_INSTANCES:-100}
mc_samples=${MC_SAMPLES:-100}
jobs=${JOBS:-$(nproc)}
parts=${PARTS:-main mc h100}
mkdir -p "$out"

if [[ $parts == *main* ]]; then
# One (GPU, mix) per job, JOBS at a time: base, kernelet and both readings of OPT (oracle=decision, the text's;
# oracle=rollout, pre-executing whole schedules: Figure 13's), with the paper's loop and with solo_without_gain.
main_mix() {
  local gpu=$1 mix=$2 alpha_m=0.1
  # Section 5.4: alpha_p, alpha_m = 0.4, 0.1 on the C2050 and 0.4, 0.105 on the GTX680.
  [[ $gpu == gtx680 ]] && alpha_m=0.105
  local w="$out/$gpu-$mix.toml" csv="$out/$gpu-$mix.csv"
  $G gen kernelet-mix --mix $mix --traces traces/kernelet/$gpu --instances "$instances" --seed 1 --out "$w" >/dev/null
  $G sim -w "$w" -p base,kernelet,kernelet-opt --set kernelet.alpha_m=$alpha_m --interference markov \
    --format csv > "$csv.part"
  for solo in false true; do
    local tag=""
    [[ $solo == true ]] && tag=-solo
    [[ $solo == true ]] && $G sim -w "$w" -p kernelet --set kernelet.alpha_m=$alpha_m --set kernelet.solo_without_gain=true \
      --interference markov --format csv | sed 's/^kernelet,/kernelet-solo,/' | tail -n +2 >> "$csv.part"
    $G sim -w "$w" -p kernelet-opt --set kernelet-opt.alpha_m=$alpha_m --set kernelet-opt.solo_without_gain=$solo \
      --set kernelet-opt.oracle=rollout --set kernelet-opt.rollouts="${ROLLOUTS:-8}" --interference markov --format csv |
      sed "s/^kernelet-opt,/kernelet-rollout$tag,/" | tail -n +2 >> "$csv.part"
  done
  mv "$csv.part" "$csv"
}
export -f main_mix
export G out instances
for gpu in c2050 gtx680; do for mix in CI MI MIX ALL; do echo "$gpu $mix"; done; done |
  xargs -P "$jobs" -L 1 bash -c 'main_mix "$0" "$1"'
echo "| GPU | mix | base | kernelet | OPT per decision | OPT rollout | kernelet vs base | kernelet vs OPT rollout | kernelet solo | OPT rollout solo | solo vs base | solo vs its OPT rollout |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for gpu in c2050 gtx680; do
  for mix in CI MI MIX ALL; do
    awk -F, -v gpu=$gpu -v mix=$mix 'NR > 1 { t[$1] = $5 / 1e9 }
      END { printf "| %s | %s | %.3f s | %.3f s | %.3f s | %.3f s | %+.1f%% | %+.1f%% | %.3f s | %.3f s | %+.1f%% | %+.1f%% |\n", gpu, mix,
            t["base"], t["kernelet"], t["kernelet-opt"], t["kernelet-rollout"], 100 * (t["base"] / t["kernelet"] - 1),
            100 * (t["kernelet"] / t["kernelet-rollout"] - 1), t["kernelet-solo"], t["kernelet-rollout-solo"],
            100 * (t["base"] / t["kernelet-solo"] - 1), 100 * (t["kernelet-solo"] / t["kernelet-rollout-solo"] - 1) }' \
      "$out/$gpu-$mix.csv"
  done
done
fi
if [[ $parts == *h100* ]]; then
echo
echo "Beyond the paper: the same mixes on the live suite's H100 recordings (s1; PC = gather, MM = sgemm, ST = stencil,"
echo "BS = blackscholes, TEA = xtea), $instances instances, under four interference models"
echo
echo "| interference | mix | fifo | base | kernelet | OPT per decision | OPT rollout | kernelet vs base | kernelet vs fifo | OPT rollout vs fifo |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for model in ${H100_MODELS:-none residency markov age}; do
  for mix in CI MI MIX ALL; do
    w="$out/h100-$mix.toml"
    [[ -f $w ]] || $G gen kernelet-mix --mix $mix --traces traces/live/h100 --live-size s1 --instances "$instances" \
      --seed 1 --out "$w" >/dev/null
    $G sim -w "$w" -p fifo,base,kernelet,kernelet-opt --interference $model --format csv > "$out/h100-$mix-$model.csv"
    $G sim -w "$w" -p kernelet-opt --set kernelet-opt.oracle=rollout --set kernelet-opt.rollouts="${ROLLOUTS:-8}" \
      --interference $model --format csv | sed 's/^kernelet-opt,/kernelet-rollout,/' | tail -n +2 >> "$out/h100-$mix-$model.csv"
    awk -F, -v model=$model -v mix=$mix 'NR > 1 { t[$1] = $5 / 1e6 }
      END { printf "| %s | %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %+.1f%% | %+.1f%% | %+.1f%% |\n", model, mix,
            t["fifo"], t["base"], t["kernelet"], t["kernelet-opt"], t["kernelet-rollout"], 100 * (t["base"] / t["kernelet"] - 1),
            100 * (t["fifo"] / t["kernelet"] - 1), 100 * (t["fifo"] / t["kernelet-rollout"] - 1) }' "$out/h100-$mix-$model.csv"
  done
done
fi
[[ $parts == *mc* ]] || exit 0

# Monte Carlo: MC_SAMPLES random co-schedulings of smaller workloads, run as a sweep (kernelet-mc's `sample`
# parameter as a grid), with kernelet and base on the same workloads for comparison.
samples=$(seq -s, 0 $((mc_samples - 1)))
rm -rf "$out/mc"
mkdir -p "$out/mc"
for gpu in c2050 gtx680; do
  for mix in CI MI MIX ALL; do
    $G gen kernelet-mix --mix $mix --traces traces/kernelet/$gpu --instances "$mc_instances" --seed 1 \
      --out "$out/mc/$gpu-$mix.toml" >/dev/null
  done
done
cat > "$out/mc-sweep.toml" <<SWEEP
format = "gpusched-sweep"
version = 1
name = "kernelet-mc"
interference = ["markov"]
[[workloads]]
files = ["mc/*.toml"]
[[policies]]
name = "kernelet-mc"
[policies.grid]
sample = [$samples]
[[policies]]
name = "kernelet"
[[policies]]
name = "base"
SWEEP
# On a Slurm cluster (docs/sweeps.md): SLURM_DIR=/shared/dir writes the sweep as a job array there and stops;
# after `sbatch $SLURM_DIR/sweep.sbatch` and `bash $SLURM_DIR/merge.sh`, MC_DB=$SLURM_DIR/merged.db prints the table
# from the merged store instead of running the sweep here.
if [[ -n ${SLURM_DIR:-} ]]; then
  $G sweep "$out/mc-sweep.toml" --emit-slurm "$SLURM_DIR" --shards "${SHARDS:-16}" --cpus-per-task "${CPUS:-8}"
  echo "then: sbatch $SLURM_DIR/sweep.sbatch; when it has finished: bash $SLURM_DIR/merge.sh;"
  echo "then: MC_DB=$SLURM_DIR/merged.db PARTS=mc MC_SAMPLES=$mc_samples MC_INSTANCES=$mc_instances bash $0 $out"
  exit 0
fi
db=${MC_DB:-$out/mc/runs.db}
if [[ -z ${MC_DB:-} ]]; then
  rm -f "$db"*
  $G sweep "$out/mc-sweep.toml" --db "$db" --jobs "$jobs" >/dev/null
fi
echo
echo "Monte Carlo ($mc_samples samples of $mc_instances kernels): makespan of MC samples against kernelet and base"
echo
echo "| workload | MC min | MC median | MC max | kernelet | base | MC samples slower than kernelet |"
echo "|---|---:|---:|---:|---:|---:|---:|"
sqlite3 -separator ' ' "$db" \
  "SELECT r.workload, r.policy, m.makespan_ns FROM runs r JOIN metrics m ON m.run_id = r.id ORDER BY r.workload" |
  awk '{ w[$1] = 1; if ($2 == "kernelet-mc") { n[$1]++; mc[$1, n[$1]] = $3 } else t[$1, $2] = $3 }
    END { for (x in w) { k = n[x]; for (i = 1; i <= k; i++) a[i] = mc[x, i]; asort_n(a, k)
            slower = 0; for (i = 1; i <= k; i++) if (a[i] > t[x, "kernelet"]) slower++
            printf "| %s | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | %d of %d |\n", x, a[1] / 1e9, a[int((k + 1) / 2)] / 1e9,
                   a[k] / 1e9, t[x, "kernelet"] / 1e9, t[x, "base"] / 1e9, slower, k } }
    function asort_n(arr, k,   i, j, v) { for (i = 2; i <= k; i++) { v = arr[i]; j = i - 1
        while (j > 0 && arr[j] > v) { arr[j + 1] = arr[j]; j-- } arr[j + 1] = v } }' | sort
