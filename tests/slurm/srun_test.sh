#!/usr/bin/env bash
# srun_test.sh STEP...: starts a Slurm of this host alone
# (tools/slurm/slurm-local.sh, in a directory and on ports of its own), runs
# each STEP under `srun`, and stops the Slurm again, also on failure or
# interruption.
#
# STEP is KIND:PPN:NP: srun -n NP of the program KIND with ARMADA_PPN=PPN
# (0: unset, the host is one node). KIND and its program (environment):
#   demo       $DEMO_PROG      armada-demo: "every result checked: all
#                                correct" on the expected number of nodes
#   ga_basic   $GA_BASIC_PROG  tests/ga/test_ga_basic: "... 0 failed: PASSED"
#   ga_wide    $GA_WIDE_PROG   tests/ga/test_ga_wide: the same
# A step passes when srun exits 0 within STEP_LIMIT seconds (default 180)
# and the output says so. At the end /dev/shm must hold no armada-* file
# that was not there before (as tests/mpi/shm_check.sh). The demo must warn
# that MPI does not yield exactly when its processes outnumber the cores and
# OMPI_MCA_mpi_yield_when_idle is not set.
# SRUN_MPI: srun's --mpi= value (default: the slurm.conf's, pmix).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
slurm_local=$root/tools/slurm/slurm-local.sh
limit=${STEP_LIMIT:-180}
[ $# -gt 0 ] || { echo "usage: $0 KIND:PPN:NP..." >&2; exit 2; }

# Nothing of a surrounding Slurm job (when this runs inside one) may steer
# our srun to another cluster or allocation.
for v in $(compgen -e | grep '^SLURM_'); do unset "$v"; done
export LOCAL_SLURM_DIR
LOCAL_SLURM_DIR=$(mktemp -d /tmp/armada-slurm-test.XXXXXX) || exit 1
export LOCAL_SLURM_PORT=auto
export SLURM_CONF=$LOCAL_SLURM_DIR/slurm.conf
log=$(mktemp)
shm_list() { (cd /dev/shm 2>/dev/null && ls -1A | grep '^armada-' | sort) || true; }
shm_before=$(shm_list)

cleanup() {
  timeout 60 bash "$slurm_local" stop
  # stop removes only a directory it has written a slurm.conf into.
  rmdir "$LOCAL_SLURM_DIR" 2>/dev/null
  rm -f "$log"
}
trap cleanup EXIT
trap 'echo "srun_test: interrupted"; exit 143' TERM INT

fail() { echo "srun_test: FAIL: $*"; exit 1; }

t0=$SECONDS
timeout 900 bash "$slurm_local" start ||
  fail "the local Slurm did not start (tools/slurm/slurm-local.sh start, above); is slurm-wlm installed (tools/install-deps.sh)?"
echo "srun_test: Slurm up in $((SECONDS - t0)) s ($SLURM_CONF)"

mpi_opt=()
[ -n "${SRUN_MPI:-}" ] && mpi_opt=(--mpi="$SRUN_MPI")

# Armada warns when a host's processes outnumber its cores and MPI does not
# yield (srun without OMPI_MCA_mpi_yield_when_idle=1); the demo's output
# must have that warning exactly then.
warn_ok() {  # warn_ok KIND PPN NP
  [ "$1" = demo ] || return 0
  local cores re
  cores=$(nproc)
  re="WARN init: $3 processes share $cores cores on this host"
  if [ "$3" -gt "$cores" ] && [ "${OMPI_MCA_mpi_yield_when_idle:-0}" = 0 ]; then
    grep -q "$re" "$log" || { echo "srun_test: $1:$2:$3: FAIL: no warning /$re/"; return 1; }
  elif grep -q "WARN init: .* processes share" "$log"; then
    echo "srun_test: $1:$2:$3: FAIL: a warning about yielding where none is due"; return 1
  fi
}

status=0
for step in "$@"; do
  IFS=: read -r kind ppn np <<<"$step"
  case "$kind" in
    demo) prog=${DEMO_PROG:-} ;;
    ga_basic) prog=${GA_BASIC_PROG:-} ;;
    ga_wide) prog=${GA_WIDE_PROG:-} ;;
    *) fail "unknown step kind '$kind'" ;;
  esac
  [ -n "$prog" ] && [ -x "$prog" ] || fail "$step: program '$prog' not found or not executable"
  envs=()
  nodes=1
  if [ "$ppn" -gt 0 ]; then
    envs=(ARMADA_PPN="$ppn")
    nodes=$(( (np + ppn - 1) / ppn ))
  fi
  # -K1: a task that fails ends the step; -W 60: the others have 60 s to
  # follow the first that exits.
  cmd=(srun "${mpi_opt[@]}" -n "$np" -K1 -W 60 "$prog")
  echo "== $step: ${envs[*]} ${cmd[*]}"
  s0=$SECONDS
  env "${envs[@]}" timeout -k 15 "$limit" "${cmd[@]}" >"$log" 2>&1
  rc=$?
  cat "$log"
  case "$kind" in
    demo) want="processes on $nodes node\(s\)" ok="every result checked: all correct" ;;
    ga_*) want="^${kind}: $np processes: [0-9]+ checks, 0 failed: PASSED" ok=$want ;;
  esac
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "srun_test: $step: FAIL: no end after $limit s"; status=1
  elif [ "$rc" -ne 0 ]; then
    echo "srun_test: $step: FAIL: srun exited $rc"; status=1
  elif ! grep -Eq "$want" "$log" || ! grep -Eq "$ok" "$log"; then
    echo "srun_test: $step: FAIL: the output lacks /$want/ or /$ok/"; status=1
  elif ! warn_ok "$kind" "$ppn" "$np"; then
    status=1
  else
    echo "srun_test: $step: passed in $((SECONDS - s0)) s"
  fi
done

# Segments are unlinked by the processes; allow 5 s after a crash.
for _ in $(seq 11); do
  left=$(comm -13 <(printf '%s\n' "$shm_before") <(shm_list) | sed '/^$/d')
  [ -z "$left" ] && break
  sleep 0.5
done
if [ -n "$left" ]; then
  echo "srun_test: FAIL: left in /dev/shm:"; printf '  %s\n' $left; status=1
else
  echo "srun_test: no armada-* segment left in /dev/shm"
fi
echo "srun_test: $([ $status -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - t0)) s"
exit $status
