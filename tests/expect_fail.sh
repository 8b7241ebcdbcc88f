#!/usr/bin/env bash
# expect_fail.sh [--exit0] REGEX CMD...: passes when CMD exits non-zero (with
# --exit0: exits 0) and its combined output matches the extended regular
# expression REGEX.
#
# A launcher that never returns: Open MPI 4.1's mpirun sometimes stays up
# after MPI_Abort when another rank was killed (SIGKILL) before, although
# every rank has ended. So once the output matches REGEX, and CMD has had no
# live descendant (ranks, daemons) for GRACE seconds (EXPECT_FAIL_GRACE,
# default 5), CMD is killed and counts as having failed: the job did end,
# as the message says. A rank still running, or no matching message, keeps
# the test waiting for its own time limit, and so failing.
set -u
want_ok=0
if [ "${1:-}" = "--exit0" ]; then want_ok=1; shift; fi
re=$1; shift
grace=${EXPECT_FAIL_GRACE:-5}
tmp=$(mktemp)
ref=$(mktemp)
orphans=$(dirname "$0")/ompi_orphans.sh
trap 'rm -f "$tmp" "$ref"' EXIT
# Stopped by the test's time limit: what CMD printed so far, then the end.
# CTest may stop a test by SIGKILL, which no trap sees; EXPECT_FAIL_LIMIT
# (seconds: the test's limit, CTest's being 10 s more, armada_add_mpi_test)
# makes this script stop CMD itself first, and say where each process of
# the job waited, so that a hang leaves a trace.
limit=${EXPECT_FAIL_LIMIT:-0}
trap 'tail -n 40 "$tmp"; echo "expect_fail: stopped (time limit) while CMD ran"; kill -KILL "$pid" 2>/dev/null; exit 1' TERM INT

. "$(dirname "$0")/job_report.sh"

# How many live (not zombie) descendants process $1 has.
live_descendants() {
  job_descendants "$1" live | wc -l
}

"$@" >"$tmp" 2>&1 &
pid=$!
matched_at=-1
alone_since=-1   # since when CMD has had no live descendant (-1: it has one)
stalled=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 0.2
  if [ "$limit" -gt 0 ] && [ "$SECONDS" -ge "$limit" ]; then
    tail -n 40 "$tmp"
    job_report "$pid" "$limit"
    job_kill "$pid"
    echo "expect_fail: stopped after ${limit} s (EXPECT_FAIL_LIMIT) while CMD ran"
    sleep 2   # ompi_orphans.sh leaves files younger than 2 s
    echo "expect_fail: Open MPI files the killed job left, removed: $("$orphans" "$ref")"
    exit 1
  fi
  if [ "$matched_at" -lt 0 ] && grep -Eq -- "$re" "$tmp"; then
    matched_at=$SECONDS
  fi
  [ "$matched_at" -ge 0 ] || continue
  # The launcher alone for GRACE seconds, not merely GRACE seconds after the
  # message: a launcher still shutting down when its last rank has just
  # ended is not a stalled one (a message printed at start made that count).
  if [ "$(live_descendants "$pid")" != 0 ]; then
    alone_since=-1
    continue
  fi
  [ "$alone_since" -ge 0 ] || alone_since=$SECONDS
  if [ $((SECONDS - alone_since)) -ge "$grace" ] && kill -0 "$pid" 2>/dev/null; then
    stalled=1
    kill -KILL "$pid" 2>/dev/null
    break
  fi
done
wait "$pid"; rc=$?
out=$(cat "$tmp")
printf '%s\n' "$out" | tail -n 40
if [ "$stalled" -eq 1 ]; then
  echo "expect_fail: every process under the launcher had ended, and ${grace} s later" \
       "the launcher had not returned: killed"
  rc=1
  sleep 2   # ompi_orphans.sh leaves files younger than 2 s
  echo "expect_fail: Open MPI files the killed launcher left, removed: $("$orphans" "$ref")"
fi
if [ "$want_ok" -eq 0 ] && [ "$rc" -eq 0 ]; then
  echo "expect_fail: command exited 0, a failure was expected"; exit 1
fi
if [ "$want_ok" -eq 1 ] && [ "$rc" -ne 0 ]; then
  echo "expect_fail: command exited $rc, exit 0 was expected"; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
  echo "expect_fail: output does not match /$re/"; exit 1
fi
echo "expect_fail: exit $rc and output matched as expected"
