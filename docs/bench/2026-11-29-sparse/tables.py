#!/usr/bin/env python3
"""Median over launches of each launch's median-of-reps (and the least min) per row."""
import glob, re, statistics, sys, os
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__) or "."
rows = {}
for f in glob.glob(os.path.join(d, "sparse-np*-l*.txt")):
    for line in open(f):
        m = re.match(r"RESULT .*op=(sparse_\w+) size=\d+ nproc=(\d+) value=([\d.e+]+) unit=ns min=([\d.e+]+)", line)
        if m:
            rows.setdefault((m[1], int(m[2])), []).append((float(m[3]), float(m[4])))
ops = ["sparse_fence", "sparse_allfence", "sparse_barrier", "sparse_dgop"]
nps = sorted({k[1] for k in rows})
print("| row, ns (median of launches; least min) | " + " | ".join(f"N = {n}" for n in nps) + " | N = %d / N = 2 |" % nps[-1])
print("| --- | " + " | ".join("---:" for _ in nps) + " | ---: |")
for op in ops:
    cells, med = [], {}
    for n in nps:
        v = rows.get((op, n))
        if not v:
            cells.append("-"); continue
        med[n] = statistics.median(x[0] for x in v)
        cells.append(f"{med[n]:.1f} ({min(x[1] for x in v):.1f}), {len(v)}x")
    ratio = f"{med[nps[-1]] / med[nps[0]]:.2f}x" if nps[0] in med and nps[-1] in med else "-"
    print(f"| {op} | " + " | ".join(cells) + f" | {ratio} |")
