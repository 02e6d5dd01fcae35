# Shared by the co-run prototypes (scripts/bandwidth-share-prototype.py, scripts/memory-queue-prototype.py): each H100
# kernel's mean block time per recorded residency (traces/live/h100/NAME.rN.csv, end - start) and its counted figures
# (traces/live/h100/*-s1.kernel.toml). Run the prototypes from the repository root.
import glob, re

SMS = 132
_curves = {}


def curve(name):
    """(residency, mean block time ns) of NAME's record sets, by residency."""
    if name not in _curves:
        pts = []
        for f in glob.glob('traces/live/h100/' + name + '.r*.csv'):
            r = int(f.split('.r')[-1].split('.')[0]); s = n = 0
            for i, l in enumerate(open(f)):
                if i == 0: continue
                a = l.split(','); s += int(a[3]) - int(a[2]); n += 1
            pts.append((r, s / n))
        _curves[name] = sorted(pts)
    return _curves[name]


def at(name, x, extrapolate=False):
    """Mean block time at x blocks per SM, linear between record sets; past the last, the last (or its last segment)."""
    pts = curve(name)
    if x <= pts[0][0]: return pts[0][1]
    for (r0, m0), (r1, m1) in zip(pts, pts[1:]):
        if x <= r1: return m0 + (x - r0) / (r1 - r0) * (m1 - m0)
    if not extrapolate: return pts[-1][1]
    (r0, m0), (r1, m1) = pts[-2], pts[-1]
    return m1 + (x - r1) / (r1 - r0) * (m1 - m0)


def counted(field):
    """{suite kernel: the s1 profile's FIELD} (e.g. dram_bytes_per_block)."""
    out = {}
    for f in glob.glob('traces/live/h100/*-s1.kernel.toml'):
        t = open(f).read(); n = re.search(r'name = "([a-z]+)-s1"', t).group(1)
        out[n] = float(re.search(field + r' = ([0-9.]+)', t).group(1))
    return out
