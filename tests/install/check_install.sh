#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR: installs Armada into a scratch
# prefix, checks the installed files, builds a consumer with
# find_package(Armada) and another with pkg-config, and runs them.
set -eu
build=$1; here=$2/tests/install
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/p" >/dev/null
for f in lib/libarmci.so lib/libarmci.a include/armci.h include/message.h include/armcix.h \
         include/armada.h bin/armada-info lib/pkgconfig/armci.pc \
         lib/cmake/Armada/ArmadaConfig.cmake; do
  [ -e "$tmp/p/$f" ] || { echo "check_install: missing $f"; exit 1; }
done
"$tmp/p/bin/armada-info" | head -1
cmake -S "$here/consumer" -B "$tmp/c" -DCMAKE_PREFIX_PATH="$tmp/p" >/dev/null
cmake --build "$tmp/c" >/dev/null
PKG_CONFIG_PATH="$tmp/p/lib/pkgconfig" mpicc "$here/consumer.c" -o "$tmp/pc" \
  $(PKG_CONFIG_PATH="$tmp/p/lib/pkgconfig" pkg-config --cflags --libs armci) \
  -Wl,-rpath,"$tmp/p/lib"
run="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -np 2"
LD_LIBRARY_PATH="$tmp/p/lib" timeout 60 $run "$tmp/c/consumer"
timeout 60 $run "$tmp/pc"
echo "check_install: installed tree, find_package(Armada) and pkg-config all work"
