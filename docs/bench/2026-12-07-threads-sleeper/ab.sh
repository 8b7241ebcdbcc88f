#!/bin/bash
# usage: ab.sh OUT ROUNDS TLS(default|tcp) LIBS...(dir containing libarmci.so.0, or "cur")
out=$1; rounds=$2; tls=$3; shift 3
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -np 3 -x ARMADA_PPN=1"
[ "$tls" = tcp ] && M="$M -x UCX_TLS=tcp,self"
for r in $(seq $rounds); do for lib in "$@"; do
  if [ "$lib" = cur ]; then L=/work/wt-threads/build/src; else L=$lib; fi
  timeout 600 $M -x LD_LIBRARY_PATH=$L /work/wt-threads/build/bench/armada-bench-threads -T 2 -n ${N:-30000} -r 5 -o ${OPS:-acc8,fadd} 2>&1 | grep -E "RESULT|CHECK" | sed "s|^|lib=$lib tls=$tls round=$r load=$(cut -d' ' -f1 /proc/loadavg) |" >> $out
done; done
