#!/usr/bin/env python3
"""Medians of watch/run.sh's outputs, library before (base) and after (new)."""
import collections, os, re, statistics as st, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
def kv(line):
    return dict(x.split("=", 1) for x in line.split() if "=" in x)
med = lambda v: st.median(v) if v else float("nan")
lone = collections.defaultdict(list)
for l in open(os.path.join(d, "lone.txt")):
    f = l.split(); k = kv(l)
    lone[(f[1], k.get("compute_us", "-"), k.get("what", "total"))].append(float(k["value"]))
cs = sorted({k[1] for k in lone if k[1] != "-"}, key=int)
print("| lone 4 KiB NbPut, medians of 5 launches | put + Wait + fence | " +
      " | ".join(f"fence after {c} us" for c in cs) + " | " + " | ".join(f"hidden, {c} us" for c in cs) + " |")
print("| --- |" + " ---: |" * (1 + 2 * len(cs)))
for lib in ("base", "new"):
    row = [f"{med(lone[(lib, '-', 'total')]):.1f} us"]
    row += [f"{med(lone[(lib, c, 'fence')]):.1f} us" for c in cs]
    row += [f"{med(lone[(lib, c, 'hidden')]):.0f} %" for c in cs]
    print(f"| {'before' if lib == 'base' else 'after'} | " + " | ".join(row) + " |")
ov = collections.defaultdict(list)
for l in open(os.path.join(d, "overlap.txt")):
    f = l.split(); k = kv(l)
    if k.get("what") in ("hidden", "issue"):
        ov[(f[1], k["op"], k.get("compute", "-"), k["what"])].append(float(k["value"]))
print()
print("| 1 MiB strided, 3 launches | " + " | ".join(
    f"{op} {w} {c}" for (_, op, c, w) in sorted({(0,) + k[1:] for k in ov})) + " |")
print("| --- |" + " ---: |" * len({k[1:] for k in ov}))
for lib in ("base", "new"):
    cells = []
    for (_, op, c, w) in sorted({(0,) + k[1:] for k in ov}):
        v = ov[(lib, op, c, w)]
        cells.append("/".join(f"{x:.0f}" for x in v))
    print(f"| {'before' if lib == 'base' else 'after'} | " + " | ".join(cells) + " |")
th = collections.defaultdict(list)
for l in open(os.path.join(d, "threads.txt")):
    f = l.split(); k = kv(l)
    th[(f[1], f[2], k["op"], k["mode"])].append(float(k["value"]))
print()
print("| threads, Mops/s, median of 3 launches | put8 1 thread | put8 2 threads | acc8 1 thread | acc8 2 threads |")
print("| --- | ---: | ---: | ---: | ---: |")
for lib in ("base", "new"):
    print(f"| {'before' if lib == 'base' else 'after'} | " + " | ".join(
        f"{med(th[(lib, 'T=' + t, op, 'threads')]):.2f}" for op in ("put8", "acc8") for t in ("1", "2")) + " |")
ft = collections.defaultdict(list)
for l in open(os.path.join(d, "ft.txt")):
    r, lib, v, t, ok = l.split()
    ft[(lib, v)].append(float(t))
print()
print("| FT class A, s, median of 3 | mpi-alltoall | put-exchange | put-pencils |")
print("| --- | ---: | ---: | ---: |")
for lib in ("base", "new"):
    a = med(ft[(lib, "mpi-alltoall")])
    print(f"| {'before' if lib == 'base' else 'after'} | {a:.3f} | " + " | ".join(
        f"{med(ft[(lib, v)]):.3f} ({a / med(ft[(lib, v)]):.2f}x)" for v in ("put-exchange", "put-pencils")) + " |")
