# For parts that start late: the free room in their context on SMs outside every earlier pending same-priority part's
# context (where per-SM head-of-line blocking would not hold them), sampled every 2 us until their first start.
import sys, collections
from store_parts import open_store, launch_shapes, launch_names, contexts, priorities, parts, pieces
db = open_store(sys.argv[1]); parts_csv = sys.argv[2]
lk = launch_shapes(sys.argv[3]); names = launch_names(db); ctx = contexts(parts_csv)
prio = {k: p for k, (_i, p) in priorities(parts_csv).items()}
part_of, info = parts(parts_csv)
plan = pieces(db, 1); live = pieces(db, 2); by_sm = collections.defaultdict(list)
for (l, b), xs in live.items():
    for s, e, sm in xs: by_sm[sm].append((s, e, l))
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
