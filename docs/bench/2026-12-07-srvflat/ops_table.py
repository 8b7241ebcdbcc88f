#!/usr/bin/env python3
"""Single-operation latency, old (ff74548) against new library: medians of
the launches' medians, us (ops_table.py DIR/ops)."""
import collections, glob, os, statistics, sys
d = collections.defaultdict(list)
for f in glob.glob(os.path.join(sys.argv[1], "*.txt")):
    v = os.path.basename(f).split("-")[0]
    for line in open(f):
        if line.startswith("RESULT"):
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if kv["unit"] == "us":
                d[(kv["op"], kv["size"], v)].append(float(kv["value"]))
print("| op | size | old | new | new / old |\n| --- | ---: | ---: | ---: | ---: |")
for (op, size) in sorted({(k[0], k[1]) for k in d}, key=lambda x: (int(x[1]), x[0])):
    o, n = d[(op, size, "old")], d[(op, size, "new")]
    if o and n:
        mo, mn = statistics.median(o), statistics.median(n)
        print("| %s | %s | %.2f | %.2f | %.2f |" % (op, size, mo, mn, mn / mo))
