#!/bin/bash
# The stack-overhead rows across nodes over TCP, 5 alternating launches per
# program (the quick report's single launch is bimodal on this VM):
#   docs/bench/2026-11-28-overheads/tcp_stack.sh BUILD OUT [ROUNDS]
set -u
b=$1 out=$2 rounds=${3:-5}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
m="mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1 -np 2 -x ARMADA_PPN=1 -x UCX_TLS=tcp,self"
for r in $(seq 1 "$rounds"); do
  for p in armada-bench-overheads armada-nochk-bench-overheads armcimpi-bench-overheads ref-overheads-mpi; do
    osc=""; case $p in armcimpi*|ref-*) osc="--mca osc ucx";; esac
    timeout 300 $m $osc "$b/bench/$p" -r 5 -n 2000 -o stack,nb > "$out/${p}_r$r.txt" 2>&1
  done
done
python3 - "$out" <<'PY'
import collections, glob, os, re, statistics as st, sys
d = collections.defaultdict(list)
for f in glob.glob(os.path.join(sys.argv[1], "*_r*.txt")):
    prog = re.sub(r"_r\d+\.txt$", "", os.path.basename(f))
    for l in open(f):
        m = re.search(r"op=(\S+) size=8 .*value=(\S+) unit=ns", l)
        if l.startswith("RESULT") and m:
            d[(m.group(1), prog)].append(float(m.group(2)))
progs = ["armada-bench-overheads", "armada-nochk-bench-overheads", "armcimpi-bench-overheads",
         "ref-overheads-mpi"]
print("| op (ns, median of launches; range) | " + " | ".join(progs) + " |")
print("| --- |" + " ---: |" * len(progs))
for op in sorted(set(k[0] for k in d)):
    cells = []
    for p in progs:
        v = d.get((op, p))
        cells.append("%.0f (%.0f..%.0f)" % (st.median(v), min(v), max(v)) if v else "-")
    print("| %s | %s |" % (op, " | ".join(cells)))
PY
