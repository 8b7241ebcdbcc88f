#!/bin/bash
# Issue 25, flat costs from 2 to 64 virtual nodes (ARMADA_PPN=1) on the
# 2-core VM, nothing else running. The ranks that sit a measurement out
# sleep (bench_sleep_barrier) instead of polling in MPI.
O="$(cd "$(dirname "$0")" && pwd)/raw"
mkdir -p "$O"
cd "$(dirname "$0")/../../../build/bench"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="timeout 400 mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1 -x ARMADA_PPN=1"
# a fence, AllFence, barrier and dgop after touching 1 of N nodes
for np in 2 4 8 16 32 64; do
  $M -np $np ./armada-bench-overheads -o sparse -r 5 > $O/sparse-np$np.txt 2>&1
done
# one request served while k lock requests wait at the same server
for np in 16 32 64; do
  $M -np $np ./armada-bench-overheads -o held -r 3 > $O/held-np$np.txt 2>&1
done
# k clients loading one server: the queued get and the server's time per request
$M -np 16 -x ARMADA_RMA_PATH=server ./armada-bench-overheads -o server -r 3 > $O/server-np16.txt 2>&1
# waiting on one of 0..1024 outstanding, and AllFence after 0..1024
for cfg in map nomap tcp; do
  case $cfg in
    map) E="" ;; nomap) E="-x ARMADA_VNODE_MAP=0" ;; tcp) E="-x UCX_TLS=tcp,self" ;;
  esac
  $M $E -np 2 ./armada-bench-overheads -o wait -r 5 > $O/wait-$cfg-np2.txt 2>&1
done
# the wait and a touched fence at 64 nodes
$M -np 64 ./armada-bench-overheads -o wait -r 3 -K 256 > $O/wait-map-np64.txt 2>&1
