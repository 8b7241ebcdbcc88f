#!/usr/bin/env bash
# lib_pairs.sh ROUNDS NP PPN LIBDIR... -- PROGRAM [ARGS...]
# Runs one benchmark binary against several builds of libarmci.so, taking
# turns (LIBDIR 1, 2, ..., then again), so that the load of the machine
# falls on every build alike; a change is judged against the build before it
# in the same run (decision 090). Each LIBDIR holds a libarmci.so.0, e.g.
# build/src of a build of the older commit:
#   git worktree add /tmp/old HEAD~1 && cmake -S /tmp/old -B /tmp/oldb \
#     -DARMADA_BUILD_BENCH=OFF -DARMADA_BUILD_APPS=OFF && \
#   cmake --build /tmp/oldb --target armci
# Prints, per run, the library directory and the benchmark's RESULT lines
# as op=value pairs; a run that fails prints its last lines and stops.
# Example: tools/bench/lib_pairs.sh 3 16 1 /tmp/oldb/src build/src -- \
#            build/bench/armada-bench-alloc -r 3 -R 0.05
set -eu
if [ $# -lt 5 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
rounds=$1; np=$2; ppn=$3
shift 3
libs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  libs+=("$(cd "$1" && pwd)")
  shift
done
[ $# -gt 1 ] || { echo "lib_pairs: no program after --" >&2; exit 2; }
shift
for r in $(seq "$rounds"); do
  for lib in "${libs[@]}"; do
    if ! out=$(LD_LIBRARY_PATH="$lib" ARMADA_PPN="$ppn" OMPI_ALLOW_RUN_AS_ROOT=1 \
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun --oversubscribe \
               --bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1 \
               -np "$np" "$@" 2>&1); then
      printf '%s\n' "$out" | tail -20 >&2
      echo "lib_pairs: the run with $lib failed" >&2
      exit 1
    fi
    pairs=$(printf '%s\n' "$out" | sed -n 's/^RESULT .* op=\([^ ]*\) .*value=\([^ ]*\).*/\1=\2/p' |
            tr '\n' ' ')
    echo "round $r $lib $pairs"
  done
done
