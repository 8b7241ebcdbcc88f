#!/usr/bin/env bash
# check_install.sh BUILD_DIR SOURCE_DIR: installs Armada into a scratch
# prefix, checks the installed files, builds a consumer with
# find_package(Armada) and another with pkg-config, and runs them; then runs
# every installed program from the prefix with no LD_LIBRARY_PATH (their
# RPATH finds libarmci relative to bin/), and again from a moved copy of it.
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
# Installed programs, from the prefix and from a copy of it elsewhere.
unset LD_LIBRARY_PATH
for prefix in "$tmp/p" "$tmp/moved"; do
  [ -d "$prefix" ] || mv "$tmp/p" "$prefix"
  "$prefix/bin/armada-info" >/dev/null || { echo "check_install: armada-info fails"; exit 1; }
  timeout 120 $run "$prefix/bin/armada-demo" >/dev/null \
    || { echo "check_install: armada-demo fails from $prefix"; exit 1; }
  if [ -x "$prefix/bin/armada-ft" ]; then
    timeout 120 $run "$prefix/bin/armada-ft" --class S --variant put-exchange >/dev/null \
      || { echo "check_install: armada-ft fails from $prefix"; exit 1; }
  fi
  # The kernels of issue 24, small: each must verify from the installed tree.
  for k in "armada-lu -n 96 --nb 16" "armada-lj -N 512 -s 2" "armada-ra -k 10"; do
    set -- $k
    [ -x "$prefix/bin/$1" ] || continue
    exe=$1; shift
    timeout 120 $run "$prefix/bin/$exe" "$@" >/dev/null \
      || { echo "check_install: $exe fails from $prefix"; exit 1; }
  done
  echo "check_install: installed programs run from $prefix"
done
echo "check_install: installed tree, find_package(Armada) and pkg-config all work"
