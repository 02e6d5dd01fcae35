#!/usr/bin/env bash
# Integration test: a sweep run as a Slurm job array on a real one-node Slurm cluster started here (Debian's
# slurm-wlm and munge), merged, and compared with the same sweep run locally.
#   slurm_sweep.sh GPUSCHED TRACES_DIR
# Exit 0: passed; 1: failed; 77: skipped (the reason is printed), e.g. not root or Slurm not installed.
set -uo pipefail
gpusched=$1
traces=$2

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; for f in "$work"/slurmctld.log "$work"/slurmd.log "$work"/job/logs/*; do
  [[ -f $f ]] && { echo "--- $f"; tail -20 "$f"; }; done; exit 1; }

[[ $(id -u) == 0 ]] || skip "slurmd needs root to start jobs"
for tool in munged mungekey slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$tool" >/dev/null || skip "$tool not found (Debian: apt-get install slurm-wlm munge)"
done

work=$(mktemp -d /tmp/gpusched-slurm.XXXXXX)
chmod 755 "$work"
host=$(hostname)
export SLURM_CONF=$work/slurm.conf

cleanup() {
  [[ -f $work/slurmctld.pid ]] && scontrol shutdown >/dev/null 2>&1
  for pidfile in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/pid; do
    [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 0.5
  for pidfile in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/pid; do
    [[ -f $pidfile ]] && kill -9 "$(cat "$pidfile")" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

# munge with a generated key, on a socket of our own.
mkdir -p "$work/munge" "$work/state" "$work/spool"
chmod 711 "$work/munge"
mungekey -c -k "$work/munge/munge.key" -b 1024 -f || skip "mungekey failed"
munged -f --socket="$work/munge/sock" --key-file="$work/munge/munge.key" --log-file="$work/munge/log" \
  --pid-file="$work/munge/pid" --seed-file="$work/munge/seed" || skip "munged did not start: $(tail -3 "$work/munge/log")"

# Ports of our own, so a cluster already on this machine is not disturbed.
base=$(( 20000 + (RANDOM % 20000) ))
cat > "$SLURM_CONF" <<CONF
ClusterName=gpuschedtest
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$(( base + 1 ))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -i || skip "slurmctld did not start: $(tail -3 "$work/slurmctld.log" 2>/dev/null)"
slurmd || skip "slurmd did not start: $(tail -3 "$work/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [[ $state == idle* || $state == mixed* ]] && break
  sleep 0.5
done
[[ $state == idle* || $state == mixed* ]] || skip "the Slurm node did not come up (state '${state:-none}')"
echo "slurm: one-node cluster up on $host (ports $base, $((base + 1)))"

# The sweep: the 56 ERCBench pairs under every registered policy, two seeds, in three shards.
cat > "$work/sweep.toml" <<SWEEP
format = "gpusched-sweep"
version = 1
name = "slurm-test"
seeds = [1, 2]

[[workloads]]
generator = "pairs"
kernels = ["$traces/ercbench/*.kernel.toml"]
gpu = "gtx480"

[[policies]]
name = "all"
SWEEP
expected=$("$gpusched" sweep "$work/sweep.toml" --list | wc -l)
"$gpusched" sweep "$work/sweep.toml" --emit-slurm "$work/job" --shards 3 --cpus-per-task 1 || fail "--emit-slurm"
timeout 300 sbatch --wait --quiet "$work/job/sweep.sbatch" || fail "the job array failed"
n=$(ls "$work"/job/results/shard-*.db 2>/dev/null | wc -l)
[[ $n == 3 ]] || fail "expected 3 shard stores, found $n"
bash "$work/job/merge.sh" || fail "merge.sh"
bash "$work/job/merge.sh" | grep -q "0 runs added" || fail "merging again added runs"

"$gpusched" sweep "$work/sweep.toml" --db "$work/local.db" --jobs 2 >/dev/null || fail "local sweep"
report() { "$gpusched" report "$1" --group-by workload,policy,seed --format csv; }
report "$work/job/merged.db" > "$work/merged.csv" || fail "report of the merged store"
report "$work/local.db" > "$work/local.csv" || fail "report of the local store"
runs=$(( $(wc -l < "$work/merged.csv") - 1 ))
[[ $runs == "$expected" ]] || fail "the merged store has $runs runs, expected $expected"
cmp -s "$work/merged.csv" "$work/local.csv" || { diff "$work/merged.csv" "$work/local.csv" | head; fail "metrics differ"; }
echo "PASSED: $expected runs in 3 Slurm array tasks, merged, equal to the local sweep"
