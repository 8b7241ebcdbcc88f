#!/usr/bin/env bash
# amo_paths.sh [BUILD] [NP] [PPN] [BENCH ARGS...]: fetch-and-add latency by
# path (decision 061). Runs armada-bench-amo three times (the allocation
# marked for transport atomics; CPU atomics on the node and UCX's atomics
# across; CPU atomics on the node and the server across) and prints one table:
# the origin (rank 0 itself, a process of its node, one of another node), the
# path its fetch-and-adds took, and the median microseconds per operation.
# Set UCX_TLS=tcp,self in the environment for TCP.
set -eu
build=${1:-build}; np=${2:-4}; ppn=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
prog=$build/bench/armada-bench-amo
run() {
  env "$@" timeout 300 mpirun --allow-run-as-root --oversubscribe --bind-to none \
      --mca btl self,vader --mca mpi_yield_when_idle 1 -x ARMADA_PPN="$ppn" -np "$np" \
      "$prog" ${bench_args[@]+"${bench_args[@]}"} 2>&1
}
bench_args=("$@")
printf '%-42s %-12s %6s  %-7s %10s\n' "setting" "op" "origin" "path" "us/op"
for setting in "ARMADA_AMO_ALLOC=on" "ARMADA_AMO_ALLOC=off ARMADA_AMO_PATH=amo" \
               "ARMADA_AMO_ALLOC=off ARMADA_AMO_PATH=server"; do
  out=$(run $setting)
  if ! printf '%s\n' "$out" | grep -q "^CHECK .*ok=1"; then
    printf '%s\n' "$out" | tail -20 >&2
    echo "amo_paths: the run with $setting failed its count check" >&2
    exit 1
  fi
  printf '%s\n' "$out" | awk -v s="$setting" '/^TABLE / && $2 != "op" {
    printf "%-42s %-12s %6s  %-7s %10s\n", s, $2, $3, $4, $5 }'
done
