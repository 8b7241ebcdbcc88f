#!/usr/bin/env python3
"""Decision 081's longer checks: threads30.txt (30 alternating launches of
armada-bench-threads -T 1), overlap6.txt (6 of armada-bench-overlap -o
puts,gets) and nb/ (10 of armada-bench-overheads -o nb): medians, before
(base) and after (new)."""
import collections, glob, os, re, statistics as st, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
kv = lambda f: dict(x.split("=", 1) for x in f if "=" in x)
th = collections.defaultdict(list)
for l in open(os.path.join(d, "threads30.txt")):
    f = l.split()
    th[(f[1], kv(f)["op"])].append(float(kv(f)["value"]))
print("| 1 thread, 3 processes, Mops/s | before: median (launches below 10) | after | after / before |")
print("| --- | ---: | ---: | ---: |")
for op in ("put8", "acc8"):
    b, n = th[("base", op)], th[("new", op)]
    print(f"| {op}, {len(b)} launches each | {st.median(b):.2f} ({sum(x < 10 for x in b)}) | "
          f"{st.median(n):.2f} ({sum(x < 10 for x in n)}) | {st.median(n) / st.median(b):.2f} |")
ov = collections.defaultdict(list)
for l in open(os.path.join(d, "overlap6.txt")):
    f = l.split(); k = kv(f)
    if k.get("what") == "hidden":
        ov[(f[1], k["op"], k["compute"])].append(float(k["value"]))
print()
print("| 1 MiB strided, % hidden, 6 launches each | before (median; launches) | after |")
print("| --- | ---: | ---: |")
for op, c in sorted({k[1:] for k in ov}):
    b, n = ov[("base", op, c)], ov[("new", op, c)]
    print(f"| {op} {c} | {st.median(b):.0f} ({'/'.join(f'{x:.0f}' for x in b)}) | "
          f"{st.median(n):.0f} ({'/'.join(f'{x:.0f}' for x in n)}) |")
nb = collections.defaultdict(list)
for p in glob.glob(os.path.join(d, "nb", "*_r*.txt")):
    lib = os.path.basename(p).split("_")[0]
    for l in open(p):
        m = re.search(r"op=(nb_put_\w+) .*value=(\S+)", l)
        if m:
            nb[(lib, m[1])].append(float(m[2]))
print()
print("| 8-byte NbPut across 2 nodes, ns, 10 launches each | before | after | after / before |")
print("| --- | ---: | ---: | ---: |")
for op in sorted({k[1] for k in nb}):
    b, n = nb[("base", op)], nb[("new", op)]
    print(f"| {op} | {st.median(b):.0f} | {st.median(n):.0f} | {st.median(n) / st.median(b):.2f} |")
