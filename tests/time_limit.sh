#!/usr/bin/env bash
# time_limit.sh LIMIT CMD...: runs CMD, and passes on its exit status. If
# CMD has not ended after LIMIT seconds, says where each process under it
# waits (job_report.sh), kills them all and exits 124. CTest's own limit, a
# few seconds later, stops a test by a kill that leaves no trace of where
# the job hung. Open MPI's files that the killed job left in /dev/shm are
# removed (ompi_orphans.sh).
set -u
limit=$1; shift
. "$(dirname "$0")/job_report.sh"
ref=$(mktemp)
trap 'rm -f "$ref"' EXIT
"$@" &
pid=$!
sleep "$limit" &
timer=$!
trap 'job_kill "$pid"; kill "$timer" 2>/dev/null; exit 143' TERM INT
# Whichever ends first: no polling.
wait -n "$pid" "$timer"
if kill -0 "$pid" 2>/dev/null && ! kill -0 "$timer" 2>/dev/null; then
  job_report "$pid" "$limit"
  job_kill "$pid"
  echo "time_limit: stopped after ${limit} s while CMD ran"
  sleep 2   # ompi_orphans.sh leaves files younger than 2 s
  echo "time_limit: Open MPI files the killed job left, removed: $("$(dirname "$0")/ompi_orphans.sh" "$ref")"
  exit 124
fi
kill "$timer" 2>/dev/null
wait "$pid"
