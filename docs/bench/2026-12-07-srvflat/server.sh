#!/bin/bash
# Issue 57 (a), decision 100: the overheads suite's server group over TCP,
# every process its own node (ARMADA_PPN=1), 3 to 64 processes; gets as
# UCX's default makes them (auto: over TCP a UCP get that the target's
# server worker answers) and through Armada's request path
# (ARMADA_RMA_PATH=server), launches interleaved.
# Usage: server.sh BUILD OUT LAUNCHES [NP...]
B=${1:-build}; O=${2:-out}; L=${3:-3}; shift 3
NPS=${*:-3 4 8 16 32 64}
mkdir -p "$O"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="timeout 300 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1 -x ARMADA_PPN=1 -x UCX_TLS=tcp,self"
for i in $(seq 1 "$L"); do
  for np in $NPS; do
    $M -np $np $B/bench/armada-bench-overheads -o server -r 3 -S 200 > "$O/auto-np$np-$i.txt" 2>&1
    $M -x ARMADA_RMA_PATH=server -np $np $B/bench/armada-bench-overheads -o server -r 3 -S 200 \
      > "$O/srvpath-np$np-$i.txt" 2>&1
  done
done
