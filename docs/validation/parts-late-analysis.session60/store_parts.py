# What the scripts beside it read: a validate store (run 1 the plan, run 2 its execution), the workload's kernels
# and the part files parts_of_store.cpp writes (PARTS.csv, PARTS.csv.ctx, PARTS.csv.prio).
import collections, os, sqlite3, tomllib


def launch_shapes(workload):
    """Per launch of the workload: (threads a block, registers a thread)."""
    w = tomllib.load(open(workload, 'rb'))
    base = os.path.dirname(workload)
    kern = {n: tomllib.load(open(os.path.join(base, p), 'rb')) for n, p in w['kernels'].items()}
    return [(kern[l['kernel']]['block'][0], kern[l['kernel']]['registers_per_thread']) for l in w['launch']]


def launch_names(db):
    return [r[0] for r in db.execute("select launch_id from launches where run_id=1 order by idx")]


def contexts(parts_csv, sm_count=132):
    """Per part: its cover context's SMs (every SM where the file lists none)."""
    ctx = {}
    for line in open(parts_csv + '.ctx'):
        f = list(map(int, line.strip().split(',')))
        ctx[f[0]] = set(f[1:] or range(sm_count))
    return ctx


def priorities(parts_csv):
    """Per part: (its launch, its CUDA stream priority; -6 a sample part at the greatest)."""
    out = {}
    for line in open(parts_csv + '.prio'):
        k, i, p, _sample = map(int, line.split(','))
        out[k] = (i, p)
    return out


def parts(parts_csv):
    """part_of[(launch, block, planned start)] = part; info[part] = dict(launch, j, start)."""
    part_of, info = {}, {}
    for line in open(parts_csv):
        pid, i, j, start, _nsms, block, _sm, pstart = map(int, line.split(','))
        part_of[(i, block, pstart)] = pid
        info.setdefault(pid, dict(launch=i, j=j, start=start))
    return part_of, info


def pieces(db, run):
    """Per (launch, block): its pieces (start, end, sm) in the run, unsorted."""
    out = collections.defaultdict(list)
    for l, b, s, e, sm in db.execute("select launch,block,start_ns,end_ns,sm from blocks where run_id=?", (run,)):
        out[(l, b)].append((s, e, sm))
    return out


def open_store(path):
    return sqlite3.connect(path)
