#!/bin/bash
# OLD=/path/to/old/build/src apps.sh [ROUNDS]: FT, LU, LJ, the barrier and
# allocation at 16 virtual nodes, alternating the old library with this
# build at ARMADA_BARRIER_YIELD_US -1 (100), 300 and 1000 (decision 092).
# Output: apps.txt (times in s, barrier and alloc in us).
cd "$(dirname "$0")/../../.."
OLD=${OLD:?set OLD to the build/src of the library to compare against}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1"
V=("old $OLD -1" "new100 $PWD/build/src -1" "new300 $PWD/build/src 300" "new1000 $PWD/build/src 1000")
for r in $(seq ${1:-3}); do
 for v in "${V[@]}"; do
  set -- $v; name=$1; lib=$2; by=$3
  E="-x LD_LIBRARY_PATH=$lib -x ARMADA_BARRIER_YIELD_US=$by"
  ft=$($M -np 4 $E -x ARMADA_PPN=2 -x UCX_TLS=tcp,self build/apps/ft/armada-ft --class A --variant put-slabs 2>&1 | grep ^RESULT | sed 's/.* time=\([0-9.]*\).*/\1/')
  lu=$($M -np 4 $E -x ARMADA_PPN=1 build/apps/lu/armada-lu -n 2048 2>&1 | grep ^RESULT | sed 's/.* time=\([0-9.]*\).*/\1/')
  lj=$($M -np 8 $E -x ARMADA_PPN=2 build/apps/lj/armada-lj -N 4096 -s 20 2>&1 | grep ^RESULT | sed 's/.* time=\([0-9.]*\).*/\1/')
  lj16=$($M -np 16 $E -x ARMADA_PPN=1 build/apps/lj/armada-lj -N 4096 -s 10 2>&1 | grep ^RESULT | sed 's/.* time=\([0-9.]*\).*/\1/')
  bar=$($M -np 16 $E -x ARMADA_PPN=1 build/bench/armada-bench-barrier -r 3 2>&1 | grep "op=barrier_armci " | sed 's/.* value=\([0-9.]*\).*/\1/')
  al=$($M -np 16 $E -x ARMADA_PPN=1 build/bench/armada-bench-alloc -r 3 -R 0.05 2>&1 | grep RESULT | awk '{for(i=1;i<=NF;i++) if($i ~ /^op=|^value=/) printf "%s ", $i}')
  echo "round $r $name ft=$ft lu=$lu lj8=$lj lj16=$lj16 bar16=$bar $al"
 done
done
