# For parts that start late: the free room in their context on SMs outside every earlier pending same-priority part's
# context (where per-SM head-of-line blocking would not hold them), sampled every 2 us until their first start.
import sqlite3, sys, collections, tomllib, os
db = sqlite3.connect(sys.argv[1]); parts_csv = sys.argv[2]; wl = sys.argv[3]
W = tomllib.load(open(wl, 'rb')); base = os.path.dirname(wl)
kern = {n: tomllib.load(open(os.path.join(base, p), 'rb')) for n, p in W['kernels'].items()}
lk = [(kern[l['kernel']]['block'][0], kern[l['kernel']]['registers_per_thread']) for l in W['launch']]
names = [r[0] for r in db.execute("select launch_id from launches where run_id=1 order by idx")]
ctx = {}
for line in open(parts_csv + '.ctx'):
    f = list(map(int, line.strip().split(','))); ctx[f[0]] = set(f[1:] or range(132))
prio = {}
for line in open(parts_csv + '.prio'):
    k, i, p, smp = map(int, line.split(',')); prio[k] = p
info = {}; part_of = {}
for line in open(parts_csv):
    pid, i, j, start, nsms, block, sm, pstart = map(int, line.split(','))
    part_of[(i, block, pstart)] = pid; info.setdefault(pid, dict(launch=i, start=start, j=j))
plan = collections.defaultdict(list); live = collections.defaultdict(list); by_sm = collections.defaultdict(list)
for l,b,s,e,sm in db.execute("select launch,block,start_ns,end_ns,sm from blocks where run_id=1"): plan[(l,b)].append((s,e,sm))
for l,b,s,e,sm in db.execute("select launch,block,start_ns,end_ns,sm from blocks where run_id=2"):
    live[(l,b)].append((s,e,sm)); by_sm[sm].append((s, e, l))
first = {}; lastfirst = {}
for k, pp in plan.items():
    pp = sorted(pp); xx = sorted(live.get(k, []))
    if len(pp) != len(xx): continue
    for p, x in zip(pp, xx):
        pid = part_of[(k[0], k[1], p[0])]
        first[pid] = min(first.get(pid, 1 << 62), x[0]); lastfirst[pid] = max(lastfirst.get(pid, 0), x[0])
def room(sm, t, th, rg):
    ut = ur = ub = 0
    for s, e, l in by_sm[sm]:
        if s <= t < e: ut += lk[l][0]; ur += lk[l][0] * lk[l][1]; ub += 1
    return max(0, min((2048 - ut) // th, (65536 - ur) // (th * rg), 32 - ub))
out = []
for pid, d in info.items():
    if pid not in first or first[pid] - d['start'] < 20000: continue
    th, rg = lk[d['launch']]
    t = d['start']; free_out = 0; free_in = 0; blockers = set()
    while t < first[pid] - 2000:
        # older pending parts of the same or a greater priority (CUDA: <=), started, with workers still to start
        older = [q for q, e in info.items() if q != pid and q in first and prio[q] <= prio[pid] and
                 (e['start'], q) < (d['start'], pid) and first[q] <= t < lastfirst[q]]
        held = set().union(*[ctx[q] for q in older]) if older else set()
        blockers |= set(names[info[q]['launch']] + '#' + str(info[q]['j']) for q in older)
        fo = sum(room(sm, t, th, rg) for sm in ctx[pid] - held); fi = sum(room(sm, t, th, rg) for sm in ctx[pid] & held)
        free_out += 2 if fo > 0 else 0; free_in += 2 if fi > 0 else 0
        t += 2000
    out.append((first[pid] - d['start'], pid, free_out, free_in, sorted(blockers)[:6]))
out.sort(reverse=True)
for late, pid, fo, fi, bl in out[:20]:
    d = info[pid]
    print(f"{names[d['launch']]:>14s}#{d['j']:<2d} prio {prio[pid]:2d} +{late/1e3:6.1f} us: room outside older pending parts' contexts {fo:4d} us, inside {fi:4d} us; older pending: {', '.join(bl)}")
