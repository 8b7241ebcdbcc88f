#!/bin/bash
# What the watch costs where callers never stop writing: the hot-spot suite,
# MFCG, 8 virtual nodes over TCP, the library before and after, alternating.
# usage: hotspot.sh BASE_LIBDIR NEW_LIBDIR OUT ROUNDS; then hotspot.py OUT
set -u
base=$1 new=$2 out=$3 rounds=${4:-5}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in $(seq 1 "$rounds"); do
  for lib in new base; do
    dir=$base; [ $lib = new ] && dir=$new
    timeout 300 mpirun --oversubscribe --bind-to none -np 8 -x LD_LIBRARY_PATH=$dir \
      -x ARMADA_PPN=1 -x ARMADA_TOPOLOGY=mfcg -x UCX_TLS=tcp,self \
      build/bench/armada-bench-hotspot -r 3 -R 0.01 -n 500 > "$out/${lib}_r$r.txt" 2>&1
  done
done
