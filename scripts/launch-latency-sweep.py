#!/usr/bin/env python3
"""How much of a native run's error a different launch latency would remove: the per-launch measured turnarounds of
a `gpusched-live native --per-launch` log (its fifo, sjf and knapsack invocations, in that order), against the
workload re-predicted by `gpusched sim` with the GPU file's `launch_latency_ns` set to each value of LATS.

  LATS=8933,10000,12000,14000 python3 scripts/launch-latency-sweep.py WORKLOAD-NAME LOG [MODEL]
      [--gpusched build/sim/gpusched] [--gpu traces/gpus/h100.toml] [--work DIR]

WORKLOAD-NAME is the stem under traces/workloads (bursts-h100); MODEL the interference model of the re-prediction
(default none). Prints, per policy and latency, each repeat's median and p90 of |turnaround error|.
"""
import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import tempfile

UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def parse(log):
    """[(policy, repeat, {launch id: measured turnaround ns})] from the log's per-launch lines."""
    policies = ["fifo", "sjf", "knapsack"]
    runs, k, cur = [], -1, None
    for line in open(log, encoding="utf-8"):
        if line.startswith("workload "):
            k += 1
        m = re.match(r"slot \+ timing \(now\)\s+(\d+)", line)
        if m:
            cur = {}
            runs.append((policies[k], int(m.group(1)), cur))
            continue
        m = re.match(r"\s+(\S+)\s+measured\s+([\d.]+) (\w+) predicted", line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(2)) * UNITS[m.group(3)]
    return runs


def predict(args, policy, latency, model):
    gpu = os.path.join(args.work, f"gpu-{latency}.toml")
    if not os.path.exists(gpu):
        text = open(args.gpu, encoding="utf-8").read()
        open(gpu, "w", encoding="utf-8").write(re.sub(r"launch_latency_ns = \d+", f"launch_latency_ns = {latency}", text))
    db = os.path.join(args.work, f"{args.workload}-{policy}-{latency}-{model}.db")
    if not os.path.exists(db):
        subprocess.run([args.gpusched, "sim", "-w", f"traces/workloads/{args.workload}.toml", "-p", policy, "--gpu", gpu,
                        "--interference", model, "--db", db, "--metrics-only", "--format", "csv"],
                       check=True, capture_output=True)
    with sqlite3.connect(db) as c:
        return dict(c.execute("SELECT launch_id, turnaround_ns FROM launches"))


def p90(v):
    v = sorted(v)
    k = (len(v) - 1) * 0.9
    lo = int(k)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workload")
    ap.add_argument("log")
    ap.add_argument("model", nargs="?", default="none")
    ap.add_argument("--gpusched", default="build/sim/gpusched")
    ap.add_argument("--gpu", default="traces/gpus/h100.toml")
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    args.work = args.work or tempfile.mkdtemp(prefix="latency-sweep-")
    os.makedirs(args.work, exist_ok=True)
    lats = [int(x) for x in os.environ.get("LATS", "8933,10000,12000,14000").split(",")]
    runs = parse(args.log)
    for policy in ("fifo", "sjf", "knapsack"):
        for lat in lats:
            pred = predict(args, policy, lat, args.model)
            meds, tails = [], []
            for p, _, measured in runs:
                if p != policy:
                    continue
                e = [abs(measured[i] / pred[i] - 1) * 100 for i in measured if i in pred]
                meds.append(statistics.median(e))
                tails.append(p90(e))
            print(f"{args.workload} {policy:9s} latency {lat / 1000:5.1f} us: median "
                  + " ".join(f"{x:5.1f}" for x in meds) + " | p90 " + " ".join(f"{x:5.1f}" for x in tails))


if __name__ == "__main__":
    main()
