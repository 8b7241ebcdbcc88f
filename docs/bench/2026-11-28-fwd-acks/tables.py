#!/usr/bin/env python3
"""Medians over the rounds of run.sh's outputs (raw/): AllFence after
acknowledged writes, and after writes left to be acknowledged by the idle
servers, before (base) and after decision 078."""
import collections, glob, os, re, statistics as st

d = collections.defaultdict(list)
here = os.path.dirname(os.path.abspath(__file__))
for f in glob.glob(os.path.join(here, "raw", "fence_*_r*.txt")):
    topo, np, lib = re.match(r"fence_(\w+)_np(\d+)_(base|new)_r\d+\.txt",
                             os.path.basename(f)).groups()
    lines = open(f).read().split("\n")
    head = [k for k, l in enumerate(lines) if l.startswith(" targets")]
    for l in lines[head[0] + 1:] if head else []:
        p = l.split()
        if len(p) == 10:
            # allfence_acked, msgs_ackd, allfence_done, msgs_done
            d[(topo, int(np), int(p[0]), lib)].append(
                (float(p[3]), float(p[9]), float(p[2]), float(p[8])))
print("| topology, nodes | targets | AllFence acked, before (msgs) | after (msgs) "
      "| AllFence done, before (msgs) | after (msgs) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for k in sorted(set(k[:3] for k in d)):
    b, n = d[k + ("base",)], d[k + ("new",)]
    m = lambda L, i: st.median(x[i] for x in L)
    print(f"| {k[0]} {k[1]} | {k[2]} | {m(b,0):.2f} ({m(b,1):.2f}) | {m(n,0):.2f} ({m(n,1):.2f}) "
          f"| {m(b,2):.2f} ({m(b,3):.2f}) | {m(n,2):.2f} ({m(n,3):.2f}) |")
