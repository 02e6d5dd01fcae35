# Parts whose first piece started late although their green context had room (by threads and registers) for one of
# their workers from their planned start on: how long the room stayed free before the part's first piece started.
import sys, collections
from store_parts import open_store, launch_shapes, launch_names, contexts, parts, pieces
db = open_store(sys.argv[1]); parts_csv = sys.argv[2]
lk = launch_shapes(sys.argv[3]); names = launch_names(db); ctx = contexts(parts_csv)
part_of, info = parts(parts_csv)
plan = pieces(db, 1); live = pieces(db, 2)
allx = [(sm, s, e, l) for (l, b), xs in live.items() for s, e, sm in xs]
first = {}; hidden = []
for k, pp in plan.items():
    pp = sorted(pp); xx = sorted(live.get(k, []))
    if len(pp) != len(xx): continue
    for n, (p, x) in enumerate(zip(pp, xx)):
        pid = part_of[(k[0], k[1], p[0])]; first[pid] = min(first.get(pid, 1 << 62), x[0])
        # the most a worker of a later piece could have waited in its claim, placed on its SM: from its part's start
        if n > 0 and x[0] > info[pid]['start']: hidden.append((x[2], info[pid]['start'], x[0], k[0]))
by_sm = collections.defaultdict(list)
for sm, s, e, l in allx: by_sm[sm].append((s, e, l))
if len(sys.argv) > 4:
    for sm, s, e, l in hidden: by_sm[sm].append((s, e, l))
    print("with", len(hidden), "later pieces' workers placed from their part's start (the most they could have waited)")
def room_at(sms, t, th, rg):
    n = 0
    for sm in sms:
        ut = ur = ub = 0
        for s, e, l in by_sm[sm]:
            if s <= t < e: ut += lk[l][0]; ur += lk[l][0] * lk[l][1]; ub += 1
        n += max(0, min((2048 - ut) // th, (65536 - ur) // (th * rg), 32 - ub))
    return n
rows = []
for pid, d in info.items():
    if pid not in first: continue
    late = first[pid] - d['start']
    if late < 20000: continue
    th, rg = lk[d['launch']]
    # room sampled every 2 us from the planned start to the first start
    free_us = 0; t = d['start']
    while t < first[pid]:
        if room_at(ctx[pid], t, th, rg) > 0: free_us += 2
        t += 2000
    rows.append((free_us, late / 1e3, pid, names[d['launch']], d['start'] / 1e3))
rows.sort(reverse=True)
print("parts first started >= 20 us late:", len(rows))
for free_us, late, pid, n, st in rows[:25]:
    print(f"  part {pid:4d} {n:18s} planned {st:8.1f} us, first start +{late:6.1f} us, room free for {free_us:4d} us of it")
