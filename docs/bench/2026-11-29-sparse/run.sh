#!/bin/bash
# Sparse fence rows (issue 25, "a fence with one target touched"): every
# process writes 8 B to its right neighbour, then times Fence / AllFence /
# Barrier / dgop. ARMADA_PPN=1 (every process its own virtual node), np = 2..64,
# LAUNCHES launches each, interleaved. Usage: run.sh BUILD OUTDIR [LAUNCHES]
set -u
b=${1:-build}; out=${2:-.}; L=${3:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
for l in $(seq 1 "$L"); do
  for np in 2 4 8 16 32 64; do
    timeout 300 mpirun -np $np --oversubscribe --bind-to none -x ARMADA_PPN=1 \
      "$b/bench/armada-bench-overheads" -o sparse -n 20000 -r 7 \
      > "$out/sparse-np$np-l$l.txt" 2>&1 || echo "np=$np launch $l rc=$?"
  done
done
