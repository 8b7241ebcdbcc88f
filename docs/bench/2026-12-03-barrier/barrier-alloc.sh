#!/bin/bash
# OLD=/path/to/old/build/src barrier-alloc.sh: ARMCI_Barrier and ARMCI_Malloc/Free,
# the old library, this build and ARMCI-MPI in turn, 3 rounds, at 16x1,
# 16x4 and 8x1 (decision 092). Output: barrier-alloc.txt (us).
cd "$(dirname "$0")/../../.."
OLD=${OLD:?set OLD to the build/src of the library to compare against}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="mpirun --oversubscribe --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1"
pick() { grep RESULT | awk '{o="";v="";for(i=1;i<=NF;i++){if($i ~ /^op=/)o=substr($i,4); if($i ~ /^value=/)v=substr($i,7)} printf "%s=%.0f ", o, v}'; }
for r in 1 2 3; do
 for np_ppn in "16 1" "16 4" "8 1"; do
  set -- $np_ppn; np=$1; ppn=$2
  o=$($M -np $np -x LD_LIBRARY_PATH=$OLD -x ARMADA_PPN=$ppn build/bench/armada-bench-barrier -r 3 2>&1 | pick; $M -np $np -x LD_LIBRARY_PATH=$OLD -x ARMADA_PPN=$ppn build/bench/armada-bench-alloc -r 3 -R 0.05 2>&1 | pick)
  n=$($M -np $np -x ARMADA_PPN=$ppn build/bench/armada-bench-barrier -r 3 2>&1 | pick; $M -np $np -x ARMADA_PPN=$ppn build/bench/armada-bench-alloc -r 3 -R 0.05 2>&1 | pick)
  p=$($M -np $np build/bench/armcimpi-bench-barrier -r 3 2>&1 | pick; $M -np $np build/bench/armcimpi-bench-alloc -r 3 -R 0.05 2>&1 | pick)
  echo "r$r np$np ppn$ppn | old: $o | new: $n | armci-mpi: $p"
 done
done
