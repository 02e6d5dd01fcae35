#!/usr/bin/env python3
# A prototype outside the tool (docs/interference.md, "A memory-system queue, tried"): a victim's memory part slows
# with the GPU-wide DRAM demand of every block on the SMs (each kernel's counted bytes per block over its block time
# alone at its residency, traces/live/h100/*-s1.kernel.toml and its record sets) through a queue form f(D / B):
#   lin: max(1, u)   mm1: 1 / (1 - u) (M/M/1, u clamped at 0.98)   exp: e^(a u)   pow: 1 + u^a
# slowdown = (1 - mu_v + mu_v f(D_corun)) / (1 - mu_v + mu_v f(D_alone)), with mu per victim kernel and B (and a)
# fitted by coordinate search on log errors; `fixed` solves the closed loop (slower blocks demand less). Two folds
# over pairs, as scripts/bandwidth-share-prototype.py; prints held-out and in-sample median / p90 and `none`'s.
#   python3 scripts/memory-queue-prototype.py CORUNS.csv lin|mm1|exp|pow [fixed]   (from the repository root)
import csv, math, random, statistics as st, glob, sys, re
sys.path.insert(0, 'scripts')
from corun_profiles import SMS, at as at_clamped, counted
def at(name, x): return at_clamped(name, x, extrapolate=True)
dram = counted('dram_bytes_per_block')
def load(F):
    rows = []
    for r in csv.DictReader([l for l in open(F) if not l.startswith('#')]):
        if ';' in r['partners']: continue
        k = int(r['victim_blocks_per_sm']); own = max(1.0, float(r['victim_exposure']))
        a = float(r['alone_mean_ns']) * at(r['victim'], own) / at(r['victim'], k)
        v = r['victim'].split('-')[0]; p = r['partners'].split('-')[0]; x = float(r['exposure'])
        m = int(r['partners_blocks_per_sm'])
        rows.append(dict(v=v, p=p, s=float(r['corun_mean_ns']) / a, own=own, x=x, m=m, pair=tuple(sorted((v, p))), k=k))
    return rows
F = sys.argv[1]; form = sys.argv[2]
rows = load(F)
kernels = sorted({r['v'] for r in rows})
def dem(k, n, s=1.0): return SMS * n * dram[k] / (at(k + '-s1', max(1.0, n)) * s)
for r in rows:
    r['da'] = dem(r['v'], r['own'])
    r['dp'] = SMS * r['x'] * dram[r['p']] / at(r['p'] + '-s1', max(1.0, r['m']))
def f(D, P):
    u = D / P['bw']
    if form == 'mm1': return 1 / (1 - min(u, 0.98))
    if form == 'exp': return math.exp(P['al'] * u)
    if form == 'pow': return 1 + u ** P['al']
    if form == 'lin': return max(1.0, u)
def pred(P, r, fixed=True):
    mu = P['mu'][r['v']]
    if not fixed:
        return (1 - mu + mu * f(r['da'] + r['dp'], P)) / (1 - mu + mu * f(r['da'], P))
    # closed loop: demand falls as the blocks slow; partner slows like a victim with mu_p
    mup = P['mu'][r['p']]
    sv = sp = 1.0
    base_v = 1 - mu + mu * f(r['da'], P)
    for it in range(30):
        D = r['da'] / sv + r['dp'] / sp
        sv_n = (1 - mu + mu * f(D, P)) / base_v
        sp_n = (1 - mup + mup * f(D, P)) / (1 - mup + mup * f(r['dp'] * (1.0), P))
        sv = 0.5 * sv + 0.5 * sv_n; sp = max(1.0, 0.5 * sp + 0.5 * sp_n)
    return sv
FIX = len(sys.argv) > 3 and sys.argv[3] == 'fixed'
def loss(P, rs): return sum((math.log(pred(P, r, FIX)) - math.log(r['s'])) ** 2 for r in rs)
def fit(rs):
    P = dict(mu={k: 0.5 for k in kernels}, bw=3000.0, al=1.0)
    for it in range(4):
        for key, grid in (('bw', [500 * 1.1 ** i for i in range(40)]), ('al', [0.25 * i for i in range(1, 25)])):
            if key == 'al' and form in ('mm1', 'lin'): continue
            best = None
            for g in grid:
                P[key] = g; L = loss(P, rs)
                if best is None or L < best[0]: best = (L, g)
            P[key] = best[1]
        for k in kernels:
            best = None
            for g in [i / 20 for i in range(21)]:
                P['mu'][k] = g; L = loss(P, rs)
                if best is None or L < best[0]: best = (L, g)
            P['mu'][k] = best[1]
    return P
pairs = sorted({r['pair'] for r in rows}); random.Random(1).shuffle(pairs)
fold = {pr: i % 2 for i, pr in enumerate(pairs)}
errs = []
for fo in (0, 1):
    P = fit([r for r in rows if fold[r['pair']] != fo])
    errs += [abs(pred(P, r, FIX) - r['s']) / r['s'] * 100 for r in rows if fold[r['pair']] == fo]
errs.sort()
none = sorted(abs(1 - r['s']) / r['s'] * 100 for r in rows)
P = fit(rows); ins = sorted(abs(pred(P, r, FIX) - r['s']) / r['s'] * 100 for r in rows)
print(F.split('/')[-1], form, 'fixed' if FIX else 'open', 'rows', len(rows), 'held-out: %.1f / %.1f | in-sample %.1f / %.1f | none %.1f / %.1f' % (
    st.median(errs), errs[int(.9 * len(errs))], st.median(ins), ins[int(.9*len(ins))], st.median(none), none[int(.9 * len(none))]))
print('  bw %.0f al %.2f' % (P['bw'], P['al']), {k: P['mu'][k] for k in kernels})
