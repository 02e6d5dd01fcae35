# Does the GPU give a freed slot to the highest-priority grid that may run there? For each executed first piece
# (a block's first piece: no claim wait) that starts on SM s at t, the parts of a strictly greater priority whose
# context holds s, whose grid had started before t and still had first pieces to start after t + margin.
import sys, collections
from store_parts import open_store, launch_shapes, launch_names, contexts, priorities, parts, pieces
db = open_store(sys.argv[1]); parts_csv = sys.argv[2]; margin = float(sys.argv[4]) * 1e3 if len(sys.argv) > 4 else 5000
foot = [threads * max(1, regs) for threads, regs in launch_shapes(sys.argv[3])]
names = launch_names(db); ctx = contexts(parts_csv)
launch_of = {k: i for k, (i, _p) in priorities(parts_csv).items()}
prio = {k: p for k, (_i, p) in priorities(parts_csv).items()}
part_of, _info = parts(parts_csv)
plan = pieces(db, 1); live = pieces(db, 2)
firsts = []  # (t, sm, part)
for k, pp in plan.items():
    pp = sorted(pp); xx = sorted(live.get(k, []))
    if len(pp) != len(xx) or not xx: continue
    firsts.append((xx[0][0], xx[0][2], part_of[(k[0], k[1], pp[0][0])]))
span = {}
for t, sm, p in firsts:
    a, b = span.get(p, (t, t)); span[p] = (min(a, t), max(b, t))
by_sm = collections.defaultdict(list)
for p, (a, b) in span.items():
    for s in ctx[p]: by_sm[s].append((a, b, p))
inv = collections.Counter(); total = collections.Counter(); examples = {}
for t, sm, p in firsts:
    total[names[launch_of[p]]] += 1
    for a, b, q in by_sm[sm]:
        if q != p and prio[q] < prio[p] and a < t and t < b - margin and foot[launch_of[q]] <= foot[launch_of[p]]:
            key = (names[launch_of[p]], names[launch_of[q]])
            inv[key] += 1; examples.setdefault(key, (t, sm, p, q)); break
n = sum(total.values()); m = sum(inv.values())
print(f"first pieces {n}; started while a greater-priority grid eligible on the SM had first pieces still to start (margin {margin/1e3:g} us): {m} ({100*m/n:.1f} %)")
for (a, b), c in inv.most_common(12):
    t, sm, p, q = examples[(a, b)]
    print(f"  {a:>18s} (prio {prio[p]}) before {b:<18s} (prio {prio[q]}): {c:6d} of {total[a]:6d}; e.g. t={t/1e3:.1f} us SM {sm} parts {p}, {q}")
