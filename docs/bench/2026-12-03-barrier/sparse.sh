#!/bin/bash
# OLD=/path/to/old/build/src sparse.sh OUTDIR [LAUNCHES]: the sparse rows of
# the overheads suite (Fence, AllFence, Barrier, dgop with one target
# touched), every process its own virtual node, np 2..32, the old library
# and this build in turn (decision 092). As docs/bench/2026-11-29-sparse
# with -n 2000 instead of 20000, and without np 64 (its barrier alone took
# 2 ms a call there).
set -u
cd "$(dirname "$0")/../../.."
OLD=${OLD:?set OLD to the build/src of the library to compare against}
out=${1:-.}; L=${2:-3}   # LAUNCHES 0: only the summary of OUTDIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
[ "$L" = 0 ] || for l in $(seq 1 "$L"); do
  for np in 2 4 8 16 32; do
    for v in old new; do
      lib=$PWD/build/src; [ $v = old ] && lib=$OLD
      timeout 300 mpirun -np $np --oversubscribe --bind-to none -x ARMADA_PPN=1 \
        -x LD_LIBRARY_PATH=$lib build/bench/armada-bench-overheads -o sparse -n 2000 -r 7 \
        > "$out/sparse-$v-np$np-l$l.txt" 2>&1 || echo "$v np=$np launch $l rc=$?"
    done
  done
done
for v in old new; do
  for np in 2 4 8 16 32; do
    printf '%s np=%-3s' $v $np
    for op in sparse_barrier sparse_dgop sparse_fence; do
      printf ' %s=' $op
      grep -h "op=$op " "$out"/sparse-$v-np$np-l*.txt | \
        awk '{for(i=1;i<=NF;i++) if($i ~ /^value=/) printf "%.0f\n", substr($i,7)}' | \
        sort -g | tr '\n' ',' | sed 's/,$//'
    done
    echo
  done
done
