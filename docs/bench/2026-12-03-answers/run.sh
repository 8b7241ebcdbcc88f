#!/bin/bash
# OLD=/path/to/old/build/src run.sh OUTDIR: the library before decisions 094
# and 095 against this build, each round running both (tools/bench/lib_pairs.sh):
# - 8-byte operations and a 32 KiB strided put, 2 processes as 2 virtual
#   nodes over TCP (every answer now checked against its request);
# - strided get and put of 64-byte rows over TCP (segmented gets: the
#   answer's length is summed from the table);
# - strided put and get of 16-byte rows on one node (the argument checks,
#   decision 095). Each line: op=value, the first value of an op in µs.
set -eu
cd "$(dirname "$0")/../../.."
OLD=${OLD:?set OLD to the build/src of the library to compare against}
out=${1:?output directory}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
UCX_TLS=tcp,self tools/bench/lib_pairs.sh 5 2 1 "$OLD" build/src -- \
  build/bench/armada-bench-ops -r 3 -n 1000 -m 8 -M 8 -o get,put,acc,fadd,puts > "$out/ops-tcp.txt"
UCX_TLS=tcp,self tools/bench/lib_pairs.sh 5 2 1 "$OLD" build/src -- \
  build/bench/armada-bench-strided -r 3 -m 64 -M 64 -t 64k > "$out/strided-tcp.txt"
tools/bench/lib_pairs.sh 5 2 2 "$OLD" build/src -- \
  build/bench/armada-bench-strided -r 3 -m 16 -M 16 -t 16k > "$out/strided-node.txt"
