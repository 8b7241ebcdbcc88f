#!/usr/bin/env bash
# shm_check.sh ok|fail CMD...
# Runs CMD; passes when its exit status is as expected (ok: zero, fail:
# non-zero) and /dev/shm afterwards holds no file named armada-* that was
# not already there before CMD started (other jobs on the machine may own
# those; set SHM_CHECK_STRICT=1 to require /dev/shm free of armada-* files).
set -u
want=$1; shift
shmdir=${SHM_CHECK_DIR:-/dev/shm}
list() { (cd "$shmdir" 2>/dev/null && ls -1A 2>/dev/null | grep '^armada-' | sort) || true; }
before=$(list)
t0=$(date +%s)
"$@"
rc=$?
elapsed=$(( $(date +%s) - t0 ))
echo "shm_check: command exited $rc after ${elapsed} s (expected $want)"
status=0
# SHM_CHECK_MAX_SECONDS: the job must have ended within this many seconds.
if [ -n "${SHM_CHECK_MAX_SECONDS:-}" ] && [ "$elapsed" -gt "$SHM_CHECK_MAX_SECONDS" ]; then
  echo "shm_check: took ${elapsed} s, more than ${SHM_CHECK_MAX_SECONDS} s"; status=1
fi
if [ "$want" = ok ] && [ "$rc" -ne 0 ]; then status=1; fi
if [ "$want" = fail ] && [ "$rc" -eq 0 ]; then status=1; fi
# Cleanup after a crash may finish a moment after mpirun returns: allow 5 s.
for i in 1 2 3 4 5 6 7 8 9 10 11; do
  after=$(list)
  if [ "${SHM_CHECK_STRICT:-0}" = 1 ]; then
    left=$after
  else
    left=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed '/^$/d')
  fi
  [ -z "$left" ] && break
  sleep 0.5
done
if [ -n "$left" ]; then
  echo "shm_check: left in $shmdir:"; printf '  %s\n' $left
  status=1
else
  echo "shm_check: no armada-* segment left in $shmdir"
fi
[ -n "$before" ] && echo "shm_check: (present before the run, ignored: $(echo $before))"
exit $status
