#!/usr/bin/env python3
"""Where a native run's block times depart from their recordings (docs/interference.md, "Counted instructions and
DRAM traffic"): per launch of the first measured run in STORE, the median and mean of each block's (end - start)
over its recorded raw time (same block index, highest-residency record set), beside the DRAM demand (counted
dram_bytes_per_block / mean recorded block time, bytes/ns) of the *other* launches' blocks resident anywhere on
the GPU over the block's life, its own launch's, and the other launches' blocks on its own SM (time-weighted).

Usage: scripts/native-pressure.py STORE.db WORKLOAD.toml   (needs python3-numpy; profiles with counted traffic)
"""
import sqlite3, sys, re, csv, numpy as np, collections, os
db, wl = sys.argv[1], sys.argv[2]
tdir = os.path.dirname(wl)
kern = {}
for line in open(wl):
    m = re.match(r'^(\w+) = "(.+\.kernel\.toml)"', line.strip())
    if m: kern[m.group(1)] = os.path.normpath(os.path.join(tdir, m.group(2)))
prof = {}
for name, path in kern.items():
    t = open(path).read()
    rs = re.findall(r'residency = (\d+)\nfile = "(.+)"', t)
    r, f = rs[-1]
    rec = {}
    for row in csv.DictReader(open(os.path.join(os.path.dirname(path), f))):
        rec[int(row['block'])] = int(row['end']) - int(row['start'])
    dram = float(re.search(r'dram_bytes_per_block = (\S+)', t).group(1))
    mean = np.mean(list(rec.values()))
    prof[os.path.basename(path).replace('.kernel.toml', '')] = (rec, dram / mean, int(r))
con = sqlite3.connect(db)
runs = [r[0] for r in con.execute("select id from runs where mode='live'")]
lk = {}
for run in runs[:1]:
    L = {idx: k for idx, k in con.execute("select idx, kernel from launches where run_id=?", (run,))}
    B = np.array(con.execute("select launch, block, sm, start_ns, end_ns from blocks where run_id=?", (run,)).fetchall())
    lau, blk, sm, st, en = B.T
    d = np.array([prof[L[l]][1] for l in lau])
    rec = np.array([prof[L[l]][0].get(b, np.nan) for l, b in zip(lau, blk)])
    ratio = (en - st) / rec
    # GPU-wide demand step function
    times = np.concatenate([st, en]); dd = np.concatenate([d, -d])
    o = np.argsort(times, kind='stable'); times = times[o]; dd = dd[o]
    level = np.cumsum(dd)
    seg = np.diff(times, append=times[-1]) * level
    cum = np.concatenate([[0], np.cumsum(seg)])
    def integral(t):  # integral of D from times[0] to t
        i = np.searchsorted(times, t, side='right') - 1
        return cum[i] + (t - times[i]) * level[i]
    gpu_total = (integral(en) - integral(st)) / (en - st)
    # own launch's GPU-wide demand
    own = np.zeros(len(st))
    for l in np.unique(lau):
        m = lau == l
        t2 = np.concatenate([st[m], en[m]]); d2 = np.concatenate([d[m], -d[m]]); o2 = np.argsort(t2, kind='stable')
        t2 = t2[o2]; lv = np.cumsum(d2[o2]); c2 = np.concatenate([[0], np.cumsum(np.diff(t2, append=t2[-1]) * lv)])
        def it(t):
            i = np.searchsorted(t2, t, side='right') - 1
            return c2[i] + (t - t2[i]) * lv[i]
        own[m] = (it(en[m]) - it(st[m])) / (en[m] - st[m])
    other = gpu_total - own
    # SM-local other-launch block count (time-weighted)
    local = np.zeros(len(st))
    for s in np.unique(sm):
        m = np.where(sm == s)[0]
        for i in m:
            ov = (np.minimum(en[m], en[i]) - np.maximum(st[m], st[i])).clip(0)
            ov[lau[m] == lau[i]] = 0
            local[i] = ov.sum() / (en[i] - st[i])
    print(f"run {run}: {len(st)} blocks; GPU bandwidth share 3350 B/ns")
    print(f"{'launch':14s} {'kernel':16s} {'n':>6s} {'ratio med':>9s} {'mean':>6s} {'other GPU B/ns':>14s} {'own B/ns':>9s} {'local blk':>9s}")
    for l in sorted(np.unique(lau)):
        m = (lau == l) & np.isfinite(ratio)
        lid = con.execute("select launch_id from launches where run_id=? and idx=?", (run, int(l))).fetchone()[0]
        print(f"{lid:14s} {L[l]:16s} {m.sum():6d} {np.median(ratio[m]):9.3f} {np.mean(ratio[m]):6.3f} {np.mean(other[m]):14.0f} {np.mean(own[m]):9.0f} {np.mean(local[m]):9.2f}")
    