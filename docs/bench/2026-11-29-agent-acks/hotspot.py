#!/usr/bin/env python3
"""Per launch the mean over ranks of each row (us per operation); medians of launches."""
import glob, os, re, statistics as st, sys
d = {}
for f in glob.glob(os.path.join(sys.argv[1], "*_r*.txt")):
    lib = os.path.basename(f).split("_")[0]
    per = {}
    for l in open(f):
        m = re.search(r"op=(\S+) size=\d+ .*value=(\S+) unit=us .*level=(\d+)", l)
        if m:
            per.setdefault((m[1], int(m[3])), []).append(float(m[2]))
    for k, v in per.items():
        d.setdefault(k + (lib,), []).append(st.mean(v))
print("| operation, % of ranks hammering | before, us (launches) | after, us (launches) | after / before |")
print("| --- | ---: | ---: | ---: |")
for k in sorted({k[:2] for k in d}):
    b, n = d[k + ("base",)], d[k + ("new",)]
    print(f"| {k[0]} {k[1]} % | {st.median(b):.1f} ({', '.join(str(round(x)) for x in b)}) | "
          f"{st.median(n):.1f} ({', '.join(str(round(x)) for x in n)}) | {st.median(n) / st.median(b):.2f} |")
