#!/usr/bin/env python3
"""Medians over launches of each summary cell (us), library before and after."""
import glob, os, re, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
cols = ["allfence_pending", "allfence_done", "allfence_acked", "fence_pending", "fence_done",
        "fence_acked"]
cells = {}
for f in glob.glob(os.path.join(d, "fence_*_r*.txt")):
    m = re.match(r"fence_(\w+)_np(\d+)_(base|new)_r\d+\.txt", os.path.basename(f))
    topo, np, lib = m[1], int(m[2]), m[3]
    on = False
    for line in open(f):
        if line.startswith(" targets"):
            on = True
            continue
        if on:
            v = line.split()
            if len(v) < 7:
                break
            for c, x in zip(cols, v[1:7]):
                cells.setdefault((topo, np, int(v[0]), c, lib), []).append(float(x))
def med(k):
    return statistics.median(cells[k]) if k in cells else float("nan")
keys = sorted({k[:3] for k in cells}, key=lambda k: (k[1], k[0], k[2]))
print("| topology, nodes | targets | AllFence done, before | after | Fence per target done, before | after | AllFence pending, before | after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for t, n, k in keys:
    row = [f"{med((t, n, k, c, l)):.2f}" for c in ("allfence_done", "fence_done", "allfence_pending")
           for l in ("base", "new")]
    print(f"| {t} {n} | {k} | " + " | ".join(row) + " |")
