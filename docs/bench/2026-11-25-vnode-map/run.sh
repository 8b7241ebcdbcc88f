#!/bin/bash
# Issue 23 / decision 068 measurements, 2-core VM, quiet machine.
O="$(cd "$(dirname "$0")" && pwd)/raw"
mkdir -p "$O"
cd "$(dirname "$0")/../../../build/bench"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="timeout 300 mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1"
for i in 1 2 3; do
  $M -np 2 -x ARMADA_PPN=1 ./armada-bench-contig -o get,put -m 8 -M 1M > $O/contig-armada-map-$i.txt 2>&1
  $M -np 2 -x ARMADA_PPN=1 -x ARMADA_VNODE_MAP=0 ./armada-bench-contig -o get,put -m 8 -M 1M > $O/contig-armada-nomap-$i.txt 2>&1
  $M -np 2 --mca osc ucx ./armcimpi-bench-contig -o get,put -m 8 -M 1M > $O/contig-armcimpi-$i.txt 2>&1
done
for i in 1 2 3; do
  $M -np 2 -x ARMADA_PPN=1 ./armada-bench-overlap > $O/overlap-armada-default-$i.txt 2>&1
  $M -np 2 -x ARMADA_PPN=1 -x UCX_TLS=tcp,self ./armada-bench-overlap > $O/overlap-armada-tcp-$i.txt 2>&1
done
$M -np 2 -x ARMADA_PPN=1 -x ARMADA_VNODE_MAP=0 ./armada-bench-overlap > $O/overlap-armada-default-nomap.txt 2>&1
$M -np 2 --mca osc ucx ./armcimpi-bench-overlap > $O/overlap-armcimpi-default.txt 2>&1
for i in 1 2; do
  $M -np 3 ./armada-bench-threads -T 2 -n 2000000 > $O/threads-node-$i.txt 2>&1
done
$M -np 3 -x ARMADA_PPN=1 ./armada-bench-threads -T 2 -n 2000000 > $O/threads-vnodes.txt 2>&1

# issue 25 rows that the mapping changes: stack overhead and a sparse fence
for v in 1 0; do
  $M -np 2 -x ARMADA_PPN=1 -x ARMADA_VNODE_MAP=$v ./armada-bench-overheads -o stack,wait > $O/overheads-stack-map$v.txt 2>&1
done
for np in 2 4 8 16; do
  $M -np $np -x ARMADA_PPN=1 ./armada-bench-overheads -o sparse > $O/overheads-sparse-np$np.txt 2>&1
done
