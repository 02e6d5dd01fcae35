# Each part's executed first start and last end, beside the first start of its launch's next part.
import sys, collections
from store_parts import open_store, launch_names, parts, pieces
db = open_store(sys.argv[1]); parts_csv = sys.argv[2]
names = launch_names(db)
part_of, parts_info = parts(parts_csv)
info = {pid: (d['launch'], d['j'], d['start']) for pid, d in parts_info.items()}
plan = pieces(db, 1); live = pieces(db, 2)
first = {}; last = {}; plast = {}
for k, pp in plan.items():
    pp = sorted(pp); xx = sorted(live.get(k, []))
    if len(pp) != len(xx): continue
    for p, x in zip(pp, xx):
        pid = part_of[(k[0], k[1], p[0])]
        first[pid] = min(first.get(pid, 1 << 62), x[0]); last[pid] = max(last.get(pid, 0), x[1]); plast[pid] = max(plast.get(pid, 0), p[1])
by_launch = collections.defaultdict(list)
for pid, (i, j, st) in info.items(): by_launch[i].append((j, pid))
n_close = n = 0
for i in sorted(by_launch):
    ps = [pid for _, pid in sorted(by_launch[i])]
    for a, b in zip(ps, ps[1:]):
        if a not in last or b not in first: continue
        n += 1
        gap = (first[b] - last[a]) / 1e3
        late = (first[b] - info[b][2]) / 1e3
        if late > 20: 
            print(f"{names[i]:14s} part {info[a][1]:2d} ends {last[a]/1e3:8.1f} (planned {plast[a]/1e3:8.1f}); part {info[b][1]:2d} planned {info[b][2]/1e3:8.1f} first {first[b]/1e3:8.1f} (+{late:6.1f}), {gap:+7.1f} us after the earlier part's end")
