#!/usr/bin/env python3
"""stack/: armada-bench-overheads -o stack,nb, 2 virtual nodes over TCP, before/after."""
import glob, os, re, statistics as st, sys
d = {}
for f in glob.glob(os.path.join(sys.argv[1], "*_r*.txt")):
    lib = os.path.basename(f).split("_")[0]
    for l in open(f):
        m = re.search(r"op=(\S+) size=8 .*value=(\S+) unit=ns", l)
        if m and not m[1].endswith("cyc"):
            d.setdefault((m[1], lib), []).append(float(m[2]))
print("| 8 B, ns (median of launches; range) | before | after |")
print("| --- | ---: | ---: |")
for op in sorted({k[0] for k in d}):
    c = []
    for lib in ("base", "new"):
        v = d.get((op, lib), [])
        c.append(f"{st.median(v):.0f} ({min(v):.0f} to {max(v):.0f})" if v else "-")
    print(f"| {op} | " + " | ".join(c) + " |")
