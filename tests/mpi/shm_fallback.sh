#!/usr/bin/env bash
# shm_fallback.sh PROG NP MPIEXEC [FLAGS...]
# Decision 044's automatic fallback, run as an ordinary user (nobody; the
# test needs root to become it and is skipped, code 77, otherwise). First
# PROG as it is: segments pass through /proc and nobody falls back. Then
# with rank 0 not dumpable: the other ranks cannot open its /proc fd
# entries (root could, so the test cannot run as root), every member must
# log the fallback to names, and the data must still be right.
set -u
prog=$1 np=$2; shift 2
if [ "$(id -u)" != 0 ] || ! command -v runuser >/dev/null || ! id nobody >/dev/null 2>&1; then
  echo "shm_fallback: needs root, runuser and the user nobody: skipped"; exit 77
fi
# A checkout the user nobody cannot reach (a home directory of mode 700):
# nothing to learn here, skipped rather than failed.
if ! runuser -u nobody -- test -x "$prog"; then
  echo "shm_fallback: the user nobody cannot run $prog: skipped"; exit 77
fi
out=$(mktemp)
chmod 644 "$out"
trap 'rm -f "$out"' EXIT
fail=0
for mode in plain nodump; do
  runuser -u nobody -- env HOME=/tmp ARMADA_PPN=0 ARMADA_LOG_LEVEL=info \
    timeout -s KILL 90 "$@" -np "$np" "$prog" "$mode" >"$out" 2>&1
  rc=$?
  fell=$(grep -c 'cannot be passed through /proc' "$out")
  good=$(grep -c 'shm_fallback: rank [0-9]*: [1-9][0-9]* passed, 0 failed' "$out")
  echo "shm_fallback $mode: exit $rc, ranks right $good of $np, ranks that fell back to names $fell"
  want_fell=0; [ "$mode" = nodump ] && want_fell=$np
  if [ "$rc" -ne 0 ] || [ "$good" -ne "$np" ] || [ "$fell" -ne "$want_fell" ]; then
    fail=1; tail -n 20 "$out" | sed 's/^/    /'
  fi
done
exit $fail
