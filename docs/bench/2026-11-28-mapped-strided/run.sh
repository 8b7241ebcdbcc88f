#!/bin/bash
# Strided puts and gets of 8 KiB between 2 virtual nodes of this host (UCX's
# default transports: the segments are mapped, decision 068), the library
# before and after decision 079, and MPI RMA (osc ucx) in the same rounds:
#   docs/bench/2026-11-28-mapped-strided/run.sh BASE_LIBDIR BUILD OUT [ROUNDS]
set -u
base=$1 b=$2 out=$3 rounds=${4:-5}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
m="mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1 -np 2 -x ARMADA_PPN=1"
for r in $(seq 1 "$rounds"); do
  $m -x LD_LIBRARY_PATH="$base" "$b/bench/armada-bench-overheads" -r 5 -n 2000 -o noncontig > "$out/before_r$r.txt" 2>&1
  $m -x LD_LIBRARY_PATH="$b/src" "$b/bench/armada-bench-overheads" -r 5 -n 2000 -o noncontig > "$out/after_r$r.txt" 2>&1
  $m --mca osc ucx "$b/bench/ref-overheads-mpi" -r 5 -n 2000 -o noncontig > "$out/mpi_r$r.txt" 2>&1
  $m --mca osc ucx "$b/bench/armcimpi-bench-overheads" -r 5 -n 2000 -o noncontig > "$out/armcimpi_r$r.txt" 2>&1
done
python3 - "$out" <<'PY'
import collections, glob, os, re, statistics as st, sys
d = collections.defaultdict(list)
for f in glob.glob(os.path.join(sys.argv[1], "*_r*.txt")):
    who = os.path.basename(f).split("_r")[0]
    for l in open(f):
        m = re.search(r"op=(nc_\w+) size=(\d+) .*value=(\S+) unit=ns", l)
        if l.startswith("RESULT") and m:
            d[(m.group(1), int(m.group(2)), who)].append(float(m.group(3)))
cols = ["before", "after", "mpi", "armcimpi"]
print("| op, size (ns: median of launches, range) | " + " | ".join(cols) + " |")
print("| --- |" + " ---: |" * len(cols))
for k in sorted(set(k[:2] for k in d)):
    c = []
    for w in cols:
        v = d.get(k + (w,))
        c.append("%.0f (%.0f..%.0f)" % (st.median(v), min(v), max(v)) if v else "-")
    print("| %s %d | %s |" % (k[0], k[1], " | ".join(c)))
PY
