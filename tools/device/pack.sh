#!/bin/bash
# Packs what tools/device/run16.sh needs on the lent 16-core machine (Ubuntu,
# Open MPI and UCX runtimes, no UCX headers, no network) into build-devkit/,
# which .gitignore's /build*/ keeps out of git: the benchmarks, armada-ft,
# libarmci and the libraries that machine may lack (FFTW). Name build-devkit
# in the run tool's carry list and run:
#   bash tools/device/run16.sh build-devkit "$OUT"
# Usage: tools/device/pack.sh [BUILD] (default build)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$ROOT/build}
K=$ROOT/build-devkit
rm -rf "$K"
mkdir -p "$K/bin" "$K/lib"
for p in hotspot ops threads overlap topomem strided fence; do
  cp "$B/bench/armada-bench-$p" "$K/bin/"
done
cp "$B/apps/ft/armada-ft" "$K/bin/"
cp -P "$B"/src/libarmci.so* "$K/lib/"
for l in libfftw3.so.3; do
  f=$(ldd "$K/bin/armada-ft" | awk -v l=$l '$1 == l {print $3}')
  [ -n "$f" ] && cp -L "$f" "$K/lib/"
done
git -C "$ROOT" rev-parse --short HEAD > "$K/commit"
du -sh "$K"
