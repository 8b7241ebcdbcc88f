#!/usr/bin/env bash
# ompi_orphans.sh REF: removes Open MPI's shared-memory files (vader_segment.*
# in /dev/shm) that are newer than the file REF, at least 2 s old, and mapped
# by no live process, and prints how many it removed. A job whose launcher
# or ranks were killed (the fault tests do that on purpose) leaves them
# behind: they are Open MPI's, not Armada's (Armada's own segments have no
# name, decision 044), but a test that provokes the loss cleans up after
# it. A file that a process maps belongs to a job still running (its
# creator maps it from its start until it unlinks it) and is kept; so is one
# younger than 2 s, which a starting job may not have mapped yet.
set -u
ref=$1
now=$(date +%s)
n=0
for f in /dev/shm/vader_segment.*; do
  [ -e "$f" ] && [ "$f" -nt "$ref" ] || continue
  [ $((now - $(stat -c %Y "$f"))) -ge 2 ] || continue
  if ! grep -qsF -- "$f" /proc/[0-9]*/maps; then
    rm -f -- "$f" && n=$((n + 1))
  fi
done
echo "$n"
