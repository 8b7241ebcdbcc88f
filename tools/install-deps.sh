#!/usr/bin/env bash
# Installs, from Debian's packages, whatever Armada needs that is missing.
set -eu
pkgs="build-essential make cmake pkg-config gdb openmpi-bin libopenmpi-dev libucx-dev ucx-utils
      libarmci-mpi-dev libglobalarrays-dev libscalapack-openmpi-dev liblapack-dev
      libblas-dev gfortran libfftw3-dev hpcc python3 python3-matplotlib slurm-wlm"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
