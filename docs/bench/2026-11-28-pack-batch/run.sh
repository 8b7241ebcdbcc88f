#!/bin/bash
# Decision 073 measurements: the library before (BASE, a build of 4610d16)
# against this one (NEW), alternating, on 2 processes / 2 virtual nodes
# (strided) and 4 processes / 2 virtual nodes (NAS FT class A), all over TCP.
# Usage: run.sh BASE_BUILD NEW_BUILD OUTDIR [ROUNDS]
set -u
BASE=$1 NEW=$2 OUT=$3 ROUNDS=${4:-5}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpirun --oversubscribe --bind-to none --mca btl self,tcp --mca mpi_yield_when_idle 1"
: > "$OUT/strided-tcp-np2.txt"
for r in 1 2 3; do
  for lib in base new; do
    b=$BASE; [ $lib = new ] && b=$NEW
    timeout 300 $MPI -np 2 -x ARMADA_PPN=1 -x UCX_TLS=tcp,self \
      "$b/bench/armada-bench-strided" -t 1M -m 64 -M 64k -r 3 -o puts,gets 2>&1 |
      awk -v r=$r -v l=$lib '/unit=MB\/s/ {split($4,o,"=");split($5,s,"=");split($7,v,"=");
                                            print r, l, o[2], s[2], v[2]}' >> "$OUT/strided-tcp-np2.txt"
  done
done
: > "$OUT/ft-classA-tcp-np4-ppn2.txt"
for r in $(seq 1 "$ROUNDS"); do
  for v in mpi-alltoall put-exchange put-slabs put-pencils mpi-slabs; do
    for lib in base new; do
      b=$BASE; [ $lib = new ] && b=$NEW
      timeout 300 $MPI -np 4 -x ARMADA_PPN=2 -x UCX_TLS=tcp,self \
        "$b/apps/ft/armada-ft" --class A --variant $v 2>&1 |
        awk -v r=$r -v l=$lib '/^RESULT/ {for(i=2;i<=NF;i++){split($i,kv,"=");f[kv[1]]=kv[2]}
                                          print r, l, f["variant"], f["time"], f["init"], f["wait"], f["verified"]}' \
        >> "$OUT/ft-classA-tcp-np4-ppn2.txt"
    done
  done
done
