#!/bin/bash
# Decision 080 measurements: the library before (BASE, a build of 524798a)
# against this one (NEW), alternating launches, over TCP (same runs as
# decision 076, docs/bench/2026-11-28-sweep/run.sh):
#   lone     armada-bench-overlap -o lone, 2 processes / 2 virtual nodes:
#            one 4 KiB NbPut, Wait, 25-400 us of computation, fence;
#   overlap  the 1 MiB strided put and get of the overlap suite (unchanged
#            path: a check that the sweep costs nothing there);
#   threads  8-byte puts and accumulates from 1 and 2 threads, 3 processes
#            (a stream of small writes: the sweep must keep out of its way);
#   ft       NAS FT class A, 4 processes / 2 virtual nodes, the variants
#            whose puts are batched (put-pencils) or not, and mpi-alltoall.
# Usage: run.sh BASE_BUILD NEW_BUILD OUTDIR [ROUNDS]
set -u
BASE=$1 NEW=$2 OUT=$3 ROUNDS=${4:-5}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpirun --oversubscribe --bind-to none --mca btl self,tcp --mca mpi_yield_when_idle 1"
TCP="-x UCX_TLS=tcp,self"
lib_dir() { [ "$1" = new ] && echo "$NEW" || echo "$BASE"; }
: > "$OUT/lone.txt"; : > "$OUT/overlap.txt"; : > "$OUT/threads.txt"; : > "$OUT/ft.txt"
for r in $(seq 1 "$ROUNDS"); do
  for lib in base new; do
    b=$(lib_dir $lib)
    timeout 120 $MPI -np 2 -x ARMADA_PPN=1 $TCP -x LD_LIBRARY_PATH="$b/src" \
      "$b/bench/armada-bench-overlap" -o lone -r 5 2>&1 | sed -n "s/^RESULT /$r $lib /p" >> "$OUT/lone.txt"
  done
done
for r in 1 2 3; do
  for lib in base new; do
    b=$(lib_dir $lib)
    timeout 120 $MPI -np 2 -x ARMADA_PPN=1 $TCP -x LD_LIBRARY_PATH="$b/src" \
      "$b/bench/armada-bench-overlap" -o puts,gets -r 5 2>&1 | sed -n "s/^RESULT /$r $lib /p" >> "$OUT/overlap.txt"
    for T in 1 2; do
      timeout 300 $MPI -np 3 -x ARMADA_PPN=1 $TCP -x LD_LIBRARY_PATH="$b/src" \
        "$b/bench/armada-bench-threads" -T $T -n 30000 -r 5 -o put8,acc8 2>&1 |
        sed -n "s/^RESULT /$r $lib T=$T /p" >> "$OUT/threads.txt"
    done
  done
done
for r in 1 2 3; do
  for v in mpi-alltoall put-exchange put-pencils; do
    for lib in base new; do
      b=$(lib_dir $lib)
      timeout 300 $MPI -np 4 -x ARMADA_PPN=2 $TCP -x LD_LIBRARY_PATH="$b/src" \
        "$b/apps/ft/armada-ft" --class A --variant $v 2>&1 |
        awk -v r=$r -v l=$lib '/^RESULT/ {for(i=2;i<=NF;i++){split($i,kv,"=");f[kv[1]]=kv[2]}
                                          print r, l, f["variant"], f["time"], f["verified"]}' >> "$OUT/ft.txt"
    done
  done
done
