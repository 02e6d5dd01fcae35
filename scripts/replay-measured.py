#!/usr/bin/env python3
"""What a validation's error would be with a perfect duration model: each stored live run's blocks, with the
durations they had on the GPU, simulated again under the same policy, and the live turnarounds compared with that.

For every validation in STORE (gpusched-live validate --db), per launch of the live run a kernel profile is written
whose one record set holds that launch's measured block times (a block's pieces summed, flushed and killed ones left
out; block i's time at block i), and a workload in which every launch has its own such kernel, arrivals and every
other field as in the validated workload. `gpusched sim` runs it under the validation's policy and parameters with
`--interference none --block-time raw`, each block's time being the time it held its slot as measured (see
slot_times: from the end of the piece whose slot it took, or with --slot-window-us 0 its stamped end - start),
and the script prints, per validation, the median and p90 of |turnaround error| of the live run against the original
prediction and against this replay. What the replay leaves is not the duration model's: the plan's timing and order as
the dispatcher (or executor) carried it out, and what the slot times do not hold (the hand-off of a slot freed more than the window
before the next block's start). Where the policy's own decisions depend on
block times (srtf's predictions, chimera's preemption costs), the replay's plan may differ from the one executed.
Plans of fifo, sjf and knapsack, which validate carries out natively with stream priorities, are replayed as they
were executed: under the `priority` policy at the priorities `gpusched as-priorities` gives the plan (so the order
is the executed one, not re-decided from the measured block times).

  python3 scripts/replay-measured.py STORE.db --gpusched build/sim/gpusched [--work DIR] [--per-launch]
Run from the repository root (stores name workloads by the path validate was given).
"""
import argparse
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None


def read_workload(path):
    text = open(path, encoding="utf-8").read()
    if tomllib:
        return tomllib.loads(text)
    # The workloads this runs on are flat: [kernels] name = "path" and [[launch]] tables of scalars.
    doc_kernels = {}
    doc = {"launch": [], "kernels": doc_kernels}
    cur = doc
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line == "[kernels]":
            cur = doc_kernels
        elif line == "[[launch]]":
            cur = {}
            doc["launch"].append(cur)
        elif "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            cur[k.strip('"')] = v.strip('"') if v.startswith('"') else (float(v) if "." in v else int(v))
    return doc


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise ValueError(f"cannot write {v!r}")


def profile_without_records(path, new_name, records_file, residency):
    """The profile's text with its name replaced and its record sets replaced by one."""
    out, skipping = [], False
    for line in open(path, encoding="utf-8").read().splitlines():
        s = line.strip()
        if s.startswith("[["):
            skipping = s == "[[records]]"
        elif s.startswith("["):
            skipping = False
        if skipping:
            continue
        if re.match(r'^name\s*=', s):
            line = f'name = "{new_name}"'
        out.append(line)
    out += ["", "[[records]]", f"residency = {residency}", f'file = "{records_file}"', ""]
    return "\n".join(out)


def last_residency(path):
    r = re.findall(r"^\s*residency\s*=\s*(\d+)", open(path, encoding="utf-8").read(), re.M)
    if not r:
        raise ValueError(f"{path}: no record set")
    return int(r[-1])


def slot_times(pieces, window_ns, share):
    """Each piece's time holding its share of its SM. A piece's start stamp comes after its dispatch (its warps wait
    behind older ones before thread 0 stamps: docs/formats.md, "Block time"), so its measured end - start leaves out
    part of that time. Each piece of launch l takes share[l] of its SM (1 / the kernel's residency alone). Per SM, in
    start order, a piece is taken as dispatched when the room it needs last appeared: walking back from its start
    over the SM's earlier pieces' ends and dispatches, the latest instant before which they left less than its share
    free; no earlier than `window_ns` before its start nor than its launch's first start anywhere (a slot free
    longer was not waited for). window_ns 0: stamped end - start. Yields (launch, block, start, held, outcome)."""
    eps = 1e-9
    first = {}
    for p in pieces:
        first[p[0]] = min(first.get(p[0], p[4]), p[4])
    by_sm = {}
    for p in pieces:
        by_sm.setdefault((p[2], p[3]), []).append(p)
    for sm_pieces in by_sm.values():
        sm_pieces.sort(key=lambda p: (p[4], p[5]))
        placed = []  # (dispatch, end, share) of the SM's earlier pieces
        for launch, block, _, _, start, end, outcome in sm_pieces:
            if window_ns <= 0:
                yield launch, block, start, end - start, outcome
                continue
            f = share[launch]
            lower = max(first[launch], start - window_ns)
            occupied = sum(g for d, e, g in placed if d <= start < e)
            events = []  # going back from the start: an end adds its piece's share, a dispatch removes it
            for d, e, g in placed:
                if lower < e <= start and d < e:
                    events.append((e, g))
                if lower < d <= start < e or (lower < d and e <= start and d < e):
                    events.append((d, -g))
            events.sort(key=lambda x: -x[0])
            slot = lower
            if occupied + f > 1 + eps:
                slot = start  # more than the SM holds by the stamps: jitter; taken as dispatched at its start
            else:
                for t, g in events:
                    occupied += g
                    if occupied + f > 1 + eps:
                        slot = t
                        break
            slot = min(slot, start)
            placed.append((slot, end, f))
            if len(placed) > 256:  # pieces that ended before any later start's window can go
                placed = [x for x in placed if x[1] > start - window_ns]
            yield launch, block, slot, end - slot, outcome


def turnarounds(db, run_id):
    return {i: t for i, t in db.execute("SELECT idx, turnaround_ns FROM launches WHERE run_id = ?", (run_id,))}


def errors(live, reference):
    return [abs(live[i] / reference[i] - 1) * 100 for i in reference if i in live and reference[i] > 0]


def p90(v):
    v = sorted(v)
    k = (len(v) - 1) * 0.9
    lo = int(k)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (k - lo)


NATIVE_WHOLE = ("fifo", "sjf", "knapsack")  # carried out by the dispatcher at the plan's stream priorities


def plan_priorities(args, wfile, policy, params, interference):
    """Per launch id: the CUDA stream priority `gpusched as-priorities` gives the plan."""
    cmd = [args.gpusched, "as-priorities", "-w", wfile, "-p", policy, "--interference", interference.split("(")[0],
           "--per-launch"]
    for p in filter(None, params.split(",")):
        cmd += ["--set", f"{policy}.{p}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    out, rows = {}, False
    for line in r.stdout.splitlines():
        if line.strip().startswith("launch ") and "priority" in line:
            rows = True
        elif rows and line.startswith("  "):
            f = line.split()
            out[f[0]] = int(f[1])
    return out


def replay(db, live_id, pred_id, args, work):
    policy, params, wfile, interference = db.execute(
        "SELECT policy, policy_params, workload_file, interference FROM runs WHERE id = ?", (pred_id,)).fetchone()
    priorities = plan_priorities(args, wfile, policy, params, interference) if policy in NATIVE_WHOLE else None
    w = read_workload(wfile)
    wdir = os.path.dirname(os.path.abspath(wfile))
    launches = db.execute("SELECT idx, kernel FROM launches WHERE run_id = ? ORDER BY idx", (live_id,)).fetchall()
    if len(launches) != len(w["launch"]):
        raise ValueError(f"{wfile}: {len(w['launch'])} launches, the live run {live_id} has {len(launches)}")
    blocks = {}
    pieces = db.execute("SELECT launch, block, gpu, sm, start_ns, end_ns, outcome FROM blocks WHERE run_id = ?",
                        (live_id,)).fetchall()
    share = {idx: 1.0 / max(1, last_residency(os.path.join(wdir, w["kernels"][w["launch"][idx]["kernel"]])))
             for idx, _ in launches}
    for launch, block, start, held, outcome in slot_times(pieces, args.slot_window_ns, share):
        if outcome in (2, 5):  # flushed, killed: rerun or dropped, not the block's work
            continue
        b = blocks.setdefault(launch, {})
        s0, d = b.get(block, (start, 0))
        b[block] = (s0, d + held)
    out = os.path.join(work, f"run{live_id}")
    os.makedirs(out, exist_ok=True)
    lines = ["format = \"gpusched-workload\"", "version = 1", f"name = {toml_value(w.get('name', 'replay'))}"]
    if "gpu" in w:
        lines.append(f"gpu = {toml_value(w['gpu'])}")
    lines.append("[kernels]")
    for idx, _ in launches:
        spec = w["launch"][idx]
        profile = os.path.join(wdir, w["kernels"][spec["kernel"]])
        name = f"k{idx}"
        csv = f"{name}.csv"
        with open(os.path.join(out, csv), "w") as f:
            f.write("block,sm,start,end\n")
            for block, (s0, d) in sorted(blocks.get(idx, {}).items()):
                f.write(f"{block},0,{s0},{s0 + d}\n")
        with open(os.path.join(out, f"{name}.kernel.toml"), "w") as f:
            f.write(profile_without_records(profile, name, csv, last_residency(profile)))
        lines.append(f'{name} = "{name}.kernel.toml"')
    for idx, _ in launches:
        lines.append("[[launch]]")
        spec = dict(w["launch"][idx])
        spec["kernel"] = f"k{idx}"
        if priorities is not None:
            spec["priority"] = -priorities[spec["id"]]  # CUDA's lower numbers go first, the workload's higher ones
        for k, v in spec.items():
            lines.append(f"{k} = {toml_value(v)}")
    wpath = os.path.join(out, "workload.toml")
    open(wpath, "w").write("\n".join(lines) + "\n")
    store = os.path.join(out, "replay.db")
    if os.path.exists(store):
        os.remove(store)
    cmd = [args.gpusched, "sim", "-w", wpath, "-p", "priority" if priorities is not None else policy,
           "--interference", "none", "--block-time", "raw", "--db", store, "--format", "csv"]
    if priorities is None:
        for p in filter(None, params.split(",")):
            cmd += ["--set", f"{policy}.{p}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    rdb = sqlite3.connect(store)
    (rid,) = rdb.execute("SELECT MAX(id) FROM runs").fetchone()
    return policy + (" (priorities)" if priorities is not None else ""), turnarounds(rdb, rid)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--gpusched", default="build/sim/gpusched")
    ap.add_argument("--work", help="where the replays' profiles and workloads go (default: a temporary folder)")
    ap.add_argument("--per-launch", action="store_true")
    ap.add_argument("--slot-window-us", type=float, default=100.0,
                    help="a slot freed at most this long before a piece's start is the one it waited for (0: stamped "
                         "end - start)")
    args = ap.parse_args()
    args.slot_window_ns = int(args.slot_window_us * 1000)
    try:
        db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        pairs = db.execute("SELECT live_run_id, predicted_run_id FROM validations ORDER BY live_run_id").fetchall()
    except sqlite3.Error as e:
        sys.exit(f"{args.db}: {e}")
    work = args.work or tempfile.mkdtemp(prefix="gpusched-replay-")
    print(f"{'policy':<22}{'vs prediction: median':>22}{'p90':>7}{'vs replay: median':>19}{'p90':>7}")
    for live_id, pred_id in pairs:
        live, pred = turnarounds(db, live_id), turnarounds(db, pred_id)
        try:
            policy, rep = replay(db, live_id, pred_id, args, work)
        except (OSError, ValueError, KeyError, RuntimeError) as e:
            print(f"run {live_id}: not replayed: {e}", file=sys.stderr)
            continue
        e_pred, e_rep = errors(live, pred), errors(live, rep)
        print(f"{policy:<22}{statistics.median(e_pred):>21.1f}%{p90(e_pred):>6.1f}%"
              f"{statistics.median(e_rep):>18.1f}%{p90(e_rep):>6.1f}%")
        if args.per_launch:
            for i in sorted(live):
                if i in pred and i in rep:
                    print(f"  launch {i}: live {live[i] / 1e3:.1f} us, predicted {pred[i] / 1e3:.1f} us, "
                          f"replayed {rep[i] / 1e3:.1f} us")


if __name__ == "__main__":
    main()
