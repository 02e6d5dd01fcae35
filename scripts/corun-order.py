#!/usr/bin/env python3
"""Does launch order on the SM matter for co-run slowdowns? (docs/interference.md, "Who came first")

Reads a coruns.csv written by `gpusched-live record-pairs` and prints, per victim and partner kernel, the mean
slowdown at the 0.5:0.5 mix with the victim launched first and with the partner launched first; then how well
ln(slowdown) = beta x exposure/partner_limit fits when beta is kept per pair, and per pair and order, in sample
and on held-out pairs (the product rule of the `corun` model, five seeded splits of the pairs into halves).
Plain Python, no packages.  Usage: scripts/corun-order.py [traces/live/h100/coruns.csv]
"""
import collections
import csv
import math
import random
import re
import sys


def load(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith('#')]
    rows = []
    for r in csv.DictReader(lines):
        if ';' in r['partners']:
            continue  # mixes of three: not used here
        names = r['run'].split('@')[0].split('+')
        order = r['run'].split('/')[-1]
        first = names[ord(order[0]) - ord('a')]
        rows.append({
            'victim': re.sub(r'-s\d+$', '', r['victim']),
            'partner': re.sub(r'-s\d+$', '', r['partners']),
            'k': int(r['victim_blocks_per_sm']),
            'x': float(r['exposure']) / int(r['partners_full']),
            's': float(r['corun_mean_ns']) / float(r['alone_mean_ns']),
            'victim_first': first == r['victim'],
        })
    return rows


def percentile(v, p):
    v = sorted(v)
    return v[min(len(v), max(1, math.ceil(p * len(v)))) - 1]


def fit(rows, key):
    sums = collections.defaultdict(lambda: [0.0, 0.0])
    for r in rows:
        s = sums[key(r)]
        s[0] += r['x'] * math.log(r['s'])
        s[1] += r['x'] * r['x']
    return {k: v[0] / v[1] for k, v in sums.items() if v[1] > 0}


def product_rule(betas):
    by_v, by_p = collections.defaultdict(list), collections.defaultdict(list)
    for (v, p, *_), b in betas.items():
        by_v[v].append(b)
        by_p[p].append(b)
    g = sum(betas.values()) / len(betas)
    sv = {k: sum(x) / len(x) for k, x in by_v.items()}
    sp = {k: sum(x) / len(x) for k, x in by_p.items()}
    return lambda v, p: sv.get(v, g) * sp.get(p, g) / g


def errors(rows, beta_of):
    return [abs(math.exp(beta_of(r) * r['x']) - r['s']) / r['s'] * 100 for r in rows]


def summary(e):
    return f'median {percentile(e, 0.5):5.1f} %  p90 {percentile(e, 0.9):6.1f} %'


def main():
    rows = load(sys.argv[1] if len(sys.argv) > 1 else 'traces/live/h100/coruns.csv')
    kernels = sorted({r['victim'] for r in rows})
    cells = collections.defaultdict(list)
    mids = {}
    for r in rows:
        mids.setdefault((r['victim'], r['partner']), set()).add(r['k'])
    for r in rows:
        ks = sorted(mids[(r['victim'], r['partner'])])
        if r['k'] == ks[len(ks) // 2]:
            cells[(r['victim'], r['partner'], r['victim_first'])].append(r['s'])
    for first, title in ((True, 'victim launched first'), (False, 'partner launched first')):
        print(f'mean slowdown at the middle mix, {title} (rows: victim, columns: partner)')
        print(' ' * 13 + ''.join(f'{p[:8]:>9}' for p in kernels))
        for v in kernels:
            line = f'{v:<13}'
            for p in kernels:
                xs = cells.get((v, p, first))
                line += f'{sum(xs) / len(xs):9.2f}' if xs else f'{"-":>9}'
            print(line)
        print()
    pair = lambda r: (r['victim'], r['partner'])
    pair_order = lambda r: (r['victim'], r['partner'], r['victim_first'])
    print('ln(slowdown) = beta x exposure / partner limit, fitted in sample:')
    for name, key in (('beta per pair', pair), ('beta per pair and order', pair_order)):
        b = fit(rows, key)
        print(f'  {name:<28} {summary(errors(rows, lambda r: b.get(key(r), 0.0)))}')
    unordered = sorted({tuple(sorted(pair(r))) for r in rows})
    print('held-out pairs (product rule, 5 seeded splits into halves, both folds):')
    for name, ordered in (('beta per pair', False), ('beta per pair and order', True)):
        e = []
        for seed in range(5):
            ps = unordered[:]
            random.Random(seed).shuffle(ps)
            halves = (set(ps[:len(ps) // 2]), set(ps[len(ps) // 2:]))
            for h in (0, 1):
                train = [r for r in rows if tuple(sorted(pair(r))) in halves[h]]
                test = [r for r in rows if tuple(sorted(pair(r))) in halves[1 - h]]
                if ordered:
                    rules = {o: product_rule(fit([r for r in train if r['victim_first'] == o], pair)) for o in (True, False)}
                    e += errors(test, lambda r: rules[r['victim_first']](r['victim'], r['partner']))
                else:
                    rule = product_rule(fit(train, pair))
                    e += errors(test, lambda r: rule(r['victim'], r['partner']))
        print(f'  {name:<28} {summary(e)}')


if __name__ == '__main__':
    main()
