#!/usr/bin/env bash
# The showcase: armada-demo on 4 processes of this machine, first as one node
# (shared memory), then as two virtual nodes (ARMADA_PPN=2: the
# communication servers and UCX carry every operation between them).
set -eu
build=${1:-build}
run="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1"
echo "== one node: shared memory"
timeout 120 $run -np 4 "$build/tools/armada-demo"
echo
echo "== two virtual nodes (ARMADA_PPN=2): communication servers over UCX"
ARMADA_PPN=2 timeout 120 $run -x ARMADA_PPN -np 4 "$build/tools/armada-demo"
echo
"$build/tools/armada-info" | head -4
