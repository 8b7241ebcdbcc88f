#!/bin/bash
# Issue 57 (b): ARMCI_Barrier and armci_msg_dgop (ARMCI's GOp of one double
# sum) beside MPI_Barrier and MPI_Allreduce, and ARMCI-MPI's, from 2 to 64
# virtual nodes (ARMADA_PPN=1, default transports), the sparse rows of the
# overheads suite: every process writes 8 B to its right neighbour, then
# times the call. The three programs in turn at each size, LAUNCHES rounds.
# Usage: growth.sh BUILD OUT LAUNCHES
B=${1:-build}; O=${2:-out}; L=${3:-3}
mkdir -p "$O"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="timeout 400 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1 --mca osc ucx -x ARMADA_PPN=1"
for i in $(seq 1 "$L"); do
  for np in 2 4 8 16 32 64; do
    for p in armada-bench-overheads ref-overheads-mpi armcimpi-bench-overheads; do
      [ -x "$B/bench/$p" ] || continue
      $M -np $np "$B/bench/$p" -o sparse -n 500 -r 3 > "$O/${p%%-*}-np$np-$i.txt" 2>&1 \
        || echo "$p np $np launch $i: rc $?"
    done
  done
done
