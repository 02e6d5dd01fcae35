#!/usr/bin/env python3
# A prototype outside the tool (docs/interference.md, "A ladder of partner blocks"): GPU-wide DRAM bandwidth as the
# shared resource. Each kernel's DRAM demand per block is its counted bytes (traces/live/h100/*-s1.kernel.toml) over
# its block time alone at its residency; a victim's memory part (mu, fitted per kernel) slows by the total demand
# on every SM over an effective bandwidth (fitted). Two folds over pairs, as `gpusched crossval` splits them.
#   python3 scripts/bandwidth-share-prototype.py CORUNS.csv   (run from the repository root)
import csv, math, random, statistics as st, glob, sys, re
F = sys.argv[1]
sys.path.insert(0, 'scripts')
from corun_profiles import SMS, at, counted
dram = counted('dram_bytes_per_block')
def rate(k, n):  # bytes per ns of one block of kernel k at n blocks per SM
    return dram[k] / at(k + '-s1', max(1.0, n))
rows = []
for r in csv.DictReader([l for l in open(F) if not l.startswith('#')]):
    if ';' in r['partners']: continue
    k = int(r['victim_blocks_per_sm']); own = float(r['victim_exposure'])
    a = float(r['alone_mean_ns']) * at(r['victim'], own) / at(r['victim'], k)
    v = r['victim'].split('-')[0]; p = r['partners'].split('-')[0]; x = float(r['exposure'])
    m = int(r['partners_blocks_per_sm'])
    # GPU-wide demand: the victim's own blocks and the partner's, on every SM, at their alone rates
    d_alone = SMS * own * rate(v, own)
    d_co = d_alone + SMS * x * rate(p, m)
    rows.append(dict(v=v, p=p, s=float(r['corun_mean_ns']) / a, da=d_alone, dc=d_co, pair=tuple(sorted((v, p)))))
kernels = sorted({r['v'] for r in rows})
pairs = sorted({r['pair'] for r in rows}); random.Random(1).shuffle(pairs)
fold = {pr: i % 2 for i, pr in enumerate(pairs)}
def pred(P, r):
    mu, bw = P['mu'][r['v']], P['bw']
    g = lambda d: max(1.0, d / bw)
    return (1 - mu + mu * g(r['dc'])) / (1 - mu + mu * g(r['da']))
def loss(P, rs): return sum((math.log(pred(P, r)) - math.log(r['s'])) ** 2 for r in rs)
def fit(rs):
    P = dict(mu={k: 0.5 for k in kernels}, bw=1000.0)
    for it in range(5):
        best = None
        for bw in [100 * 1.15 ** i for i in range(40)]:
            P['bw'] = bw; L = loss(P, rs)
            if best is None or L < best[0]: best = (L, bw)
        P['bw'] = best[1]
        for k in kernels:
            best = None
            for g in [i / 40 for i in range(41)]:
                P['mu'][k] = g; L = loss(P, rs)
                if best is None or L < best[0]: best = (L, g)
            P['mu'][k] = best[1]
    return P
errs = []
for f in (0, 1):
    P = fit([r for r in rows if fold[r['pair']] != f])
    errs += [abs(pred(P, r) - r['s']) / r['s'] * 100 for r in rows if fold[r['pair']] == f]
errs.sort()
none = sorted(abs(1 - r['s']) / r['s'] * 100 for r in rows)
print(F.split('/')[-1], 'rows', len(rows), 'held-out bandwidth share: median %.1f p90 %.1f | none: median %.1f p90 %.1f' % (
    st.median(errs), errs[int(.9 * len(errs))], st.median(none), none[int(.9 * len(none))]))
P = fit(rows); print('fitted on all: bw %.0f bytes/ns' % P['bw'], {k: P['mu'][k] for k in kernels})
