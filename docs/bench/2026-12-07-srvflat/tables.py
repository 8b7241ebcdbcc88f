#!/usr/bin/env python3
"""Tables of decision 100 from the raw outputs: tables.py DIR (DIR/server,
DIR/growth, DIR/backoff as server.sh and growth.sh wrote them)."""
import collections
import glob
import os
import re
import statistics
import sys

D = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)) + "/raw"


def read(sub):
    d = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(D, sub, "*.txt"))):
        m = re.match(r"(.*)-np(\d+)-(\d+)\.txt$", os.path.basename(f))
        var, np = m.group(1), int(m.group(2))
        for line in open(f):
            if not line.startswith("RESULT"):
                continue
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if kv.get("unit") == "ns":
                d[(var, kv["op"], np, int(kv["size"]))].append(float(kv["value"]))
    return d


def med(v, div=1e3):
    if not v:
        return "-"
    s = "%.1f" % (statistics.median(v) / div)
    return s if len(v) < 2 else "%s (%.1f-%.1f)" % (s, min(v) / div, max(v) / div)


def server_tables(d, var, title):
    print("\n### %s: k loading clients at 64 processes, us, median (range) of %d launches\n"
          % (title, len(d.get((var, "server_per_req", 64, 0), []))))
    ks = sorted({k[3] for k in d if k[0] == var and k[2] == 64 and k[1] == "server_get"})
    print("| k (clients = k + 1) | " + " | ".join(str(k) for k in ks) + " |")
    print("| --- |" + " ---: |" * len(ks))
    for op in ("server_get", "server_per_req", "server_cpu_req"):
        print("| %s | " % op + " | ".join(med(d[(var, op, 64, k)]) for k in ks) + " |")
    # server_get over the gets queued ahead of it (8 per loading client)
    print("| server_get / (8k + 1) | " + " | ".join(
        "%.1f" % (statistics.median(d[(var, "server_get", 64, k)]) / (8 * k + 1) / 1e3)
        if d[(var, "server_get", 64, k)] else "-" for k in ks) + " |")
    nps = sorted({k[2] for k in d if k[0] == var})
    print("\n%s, one loading client (k = 1) and none (k = 0), by processes (all connected), us:\n"
          % title)
    print("| processes | " + " | ".join(str(n) for n in nps) + " |")
    print("| --- |" + " ---: |" * len(nps))
    for op, k in (("server_per_req", 0), ("server_cpu_req", 0), ("server_per_req", 1),
                  ("server_cpu_req", 1)):
        print("| %s, k = %d | " % (op, k) + " | ".join(med(d[(var, op, n, k)]) for n in nps)
              + " |")
    print("\n%s, server_cpu_req at the largest k of each size, us:\n" % title)
    print("| processes | " + " | ".join(str(n) for n in nps) + " |")
    print("| --- |" + " ---: |" * len(nps))
    print("| k = processes - 2 | " + " | ".join(
        med(d[(var, "server_cpu_req", n, n - 2)]) for n in nps) + " |")


def growth_table(d):
    nps = sorted({k[2] for k in d})
    print("\n### Barrier and GOp, 1 target touched, every process its own node, us, "
          "median (range) of the launches\n")
    print("| row | " + " | ".join(str(n) for n in nps) + " | 64 / 2 |")
    print("| --- |" + " ---: |" * (len(nps) + 1))
    for op, name in (("sparse_barrier", "barrier"), ("sparse_dgop", "GOp / Allreduce")):
        for var, impl in (("armada", "Armada `ARMCI_Barrier`" if op == "sparse_barrier"
                           else "Armada `armci_msg_dgop`"),
                          ("ref", "MPI_Barrier" if op == "sparse_barrier"
                           else "MPI_Allreduce"),
                          ("armcimpi", "ARMCI-MPI " + ("`ARMCI_Barrier`" if op ==
                                                       "sparse_barrier" else
                                                       "`armci_msg_dgop`"))):
            v = [d[(var, op, n, n)] for n in nps]
            if not any(v):
                continue
            ratio = (statistics.median(v[-1]) / statistics.median(v[0])
                     if v[0] and v[-1] else 0)
            print("| %s | " % impl + " | ".join(med(x) for x in v) + " | %.0fx |" % ratio)


if __name__ == "__main__":
    s = read("server")
    server_tables(s, "auto", "Default path over TCP (UCP get answered by the server worker)")
    server_tables(s, "srvpath", "Armada's request path (ARMADA_RMA_PATH=server)")
    b = read("backoff")
    if b:
        print("\n### Tried and dropped: idle ranks' naps 1 ms (auto) against doubling to 32 ms "
              "(backoff), np 64, us\n")
        ks = sorted({k[3] for k in b if k[2] == 64 and k[1] == "server_per_req"})
        print("| row | " + " | ".join("k=%d" % k for k in ks) + " |")
        print("| --- |" + " ---: |" * len(ks))
        for var in ("nap1ms", "backoff"):
            for op in ("server_per_req", "server_cpu_req"):
                print("| %s %s | " % (var, op) + " | ".join(med(b[(var, op, 64, k)])
                                                             for k in ks) + " |")
    g = read("growth")
    if g:
        growth_table(g)
