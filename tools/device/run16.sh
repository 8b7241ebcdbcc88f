#!/bin/bash
# The measurements that need the 16-core machine, in one run of about 7
# minutes, for a session that is lent one (see tools/device/pack.sh):
#  - issue 23: NAS FT class B, 16 processes as 4 virtual nodes of 4 over TCP,
#    every variant, 3 rounds; the overlap benchmark over TCP, 3 launches;
#  - issue 20: hot spot (0/11/20/100 % contention) and uncontended get,
#    accumulate, fetch-and-add at 16 virtual nodes over TCP, FCG against
#    MFCG in alternating launches; request-buffer memory under each topology;
#  - issue 25: 1 to 4 threads against 1 to 4 processes, one node and across
#    virtual nodes.
# Raw RESULT lines go to OUTDIR/*.txt, packed into OUTDIR/run16.tgz.
# Usage: run16.sh KIT OUTDIR [SCALE]   (SCALE=small: a 2-core smoke run:
# class A, 4 processes as 2 nodes, 8 virtual nodes, 2 threads)
set -u
KIT=$(cd "$1" && pwd) OUT=$2 SCALE=${3:-full}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$KIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="mpirun --oversubscribe --bind-to none --mca btl self,tcp --mca mpi_yield_when_idle 1"
TCP="-x UCX_TLS=tcp,self"
if [ "$SCALE" = small ]; then
  CLS=A FTNP=4 FTPPN=2 NV=8 T=2
else
  CLS=B FTNP=16 FTPPN=4 NV=16 T=4
fi
BIN=$KIT/bin
log() { echo "## $(date +%T) $*" | tee -a "$OUT/steps.txt"; }
{ nproc; uname -a; cat "$KIT/commit" 2>/dev/null; mpirun --version | head -1; } > "$OUT/machine.txt" 2>&1

log "FT class $CLS np $FTNP ppn $FTPPN over TCP"
for r in 1 2 3; do
  for v in mpi-alltoall put-exchange put-slabs put-pencils mpi-slabs mpi-pencils; do
    timeout 120 $M -np $FTNP -x ARMADA_PPN=$FTPPN $TCP "$BIN/armada-ft" --class $CLS \
      --variant $v 2>&1 | sed -n "s/^RESULT /$r /p" >> "$OUT/ft.txt"
  done
done

log "overlap over TCP"
for r in 1 2 3; do
  timeout 60 $M -np 2 -x ARMADA_PPN=1 $TCP "$BIN/armada-bench-overlap" 2>&1 |
    sed -n "s/^RESULT /$r /p" >> "$OUT/overlap.txt"
done

log "hot spot and uncontended ops, $NV virtual nodes, fcg / mfcg"
for r in 1 2; do
  for topo in fcg mfcg; do
    timeout 150 $M -np $NV -x ARMADA_PPN=1 -x ARMADA_TOPOLOGY=$topo $TCP \
      "$BIN/armada-bench-hotspot" -c 0,11,20,100 -s 2 2>&1 |
      sed -n "s/^RESULT /$r $topo /p" >> "$OUT/hotspot.txt"
    timeout 60 $M -np $NV -x ARMADA_PPN=1 -x ARMADA_TOPOLOGY=$topo $TCP \
      "$BIN/armada-bench-ops" -o get,acc,fadd -T $((NV - 1)) 2>&1 |
      sed -n "s/^RESULT /$r $topo /p" >> "$OUT/ops.txt"
  done
done

log "request-buffer memory, $NV virtual nodes"
for topo in fcg mfcg cfcg hypercube; do
  timeout 60 $M -np $NV -x ARMADA_PPN=1 -x ARMADA_TOPOLOGY=$topo $TCP \
    "$BIN/armada-bench-topomem" 2>&1 | sed -n "s/^RESULT /$topo /p" >> "$OUT/topomem.txt"
done

log "threads 1..$T against processes, one node and virtual nodes"
timeout 90 $M -np $((T + 1)) "$BIN/armada-bench-threads" -T $T -n 200000 2>&1 |
  sed -n "s/^RESULT /node /p" >> "$OUT/threads.txt"
timeout 90 $M -np $((T + 1)) -x ARMADA_PPN=1 $TCP "$BIN/armada-bench-threads" -T $T \
  -n 3000 2>&1 | sed -n "s/^RESULT /vnode-tcp /p" >> "$OUT/threads.txt"

log "done"
tar -C "$OUT" -czf "$OUT/run16.tgz" $(cd "$OUT" && ls *.txt)
