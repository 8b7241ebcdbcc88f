#!/bin/bash
# Decision 080: AllFence / Fence after writes and a pause ("done"), the
# library before and after, alternating. Virtual nodes over TCP, writes by
# the server path. usage: run.sh BASE_LIBDIR NEW_LIBDIR OUT ROUNDS
set -u
base=$1 new=$2 out=$3 rounds=${4:-3}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in $(seq 1 "$rounds"); do
  for cfg in "fcg 4" "fcg 8" "mfcg 8" "mfcg 16"; do
    set -- $cfg
    for lib in base new; do
      dir=$base; [ $lib = new ] && dir=$new
      timeout 300 mpirun --oversubscribe --bind-to none -np $2 -x LD_LIBRARY_PATH=$dir \
        -x ARMADA_PPN=1 -x ARMADA_TOPOLOGY=$1 -x UCX_TLS=tcp,self -x ARMADA_RMA_PATH=server \
        build/bench/armada-bench-fence -n 20 -r 3 > "$out/fence_${1}_np$2_${lib}_r$r.txt" 2>&1
    done
  done
done
