#!/usr/bin/env bash
# slurm-local.sh start|stop|status|env: a Slurm of one host, for trying and
# testing `srun` on this machine (Debian's slurm-wlm).
#
#   start   installs slurm-wlm if it is missing (apt-get), writes a slurm.conf
#           for this host alone into $LOCAL_SLURM_DIR, starts slurmctld and
#           slurmd as the current user (root) in the background and waits
#           until the node is idle. Does nothing when they already run.
#   stop    cancels every job, stops both daemons and the step daemons of
#           this Slurm (found by their SLURM_CONF), removes the directory.
#   status  exits 0 when both daemons run and the node answers.
#   env     prints the line to paste into a shell: export SLURM_CONF=...
#
# The Slurm listens on 127.0.0.1 only and authenticates with a munged of its
# own (a key made at start, readable by root alone), tracks processes by process group
# (proctrack/pgid: no cgroups needed) and binds nothing (task/none). The node
# declares LOCAL_SLURM_CPUS CPUs (default 16, or the cores online if more):
# jobs of up to that many tasks fit without --overcommit, as under
# `mpirun --oversubscribe`. MpiDefault=pmix: srun hands Open MPI its PMIx
# (decision 101).
#
# Settings (environment): LOCAL_SLURM_DIR (default /tmp/armada-slurm),
# LOCAL_SLURM_PORT (slurmctld's port, default 6817; slurmd takes the next;
# "auto": the first free pair from 6817 on, as the tests use it),
# LOCAL_SLURM_CPUS, LOCAL_SLURM_WAIT (seconds to wait for the node, 30).
set -u
dir=${LOCAL_SLURM_DIR:-/tmp/armada-slurm}
port=${LOCAL_SLURM_PORT:-6817}
wait_s=${LOCAL_SLURM_WAIT:-30}
host=$(hostname -s)
conf=$dir/slurm.conf
export SLURM_CONF=$conf

say() { echo "slurm-local: $*" >&2; }

# Whether something listens on 127.0.0.1:$1.
port_busy() { timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# The pid in FILE if that process runs the program NAME and is not a zombie.
pid_of() {  # pid_of FILE NAME
  local p c st
  [ -r "$1" ] || return 1
  read -r p 2>/dev/null <"$1" || return 1
  [ -n "$p" ] || return 1
  read -r c 2>/dev/null <"/proc/$p/comm" || return 1
  [ "$c" = "$2" ] || return 1
  st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
  [ "$st" != Z ] && echo "$p"
}

# Step daemons (slurmstepd) started by this Slurm and still alive: their
# environment names our slurm.conf. Builtins only in the scan: the host may
# run hundreds of processes.
step_pids() {
  local p c
  for p in /proc/[0-9]*; do
    read -r c 2>/dev/null <"$p/comm" || continue
    [ "$c" = slurmstepd ] || continue
    tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "SLURM_CONF=$conf" || continue
    [ "$(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -c1)" = Z ] || echo "${p#/proc/}"
  done
}

node_state() { timeout 5 sinfo -h -n "$host" -o '%t' 2>/dev/null | head -1; }

running() { munged_pid >/dev/null && slurmctld_pid >/dev/null && slurmd_pid >/dev/null; }

install_missing() {
  local missing="" p
  for p in munge slurmctld slurmd slurm-client; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  say "installing$missing"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  timeout 300 $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive timeout 600 $sudo apt-get install -y -qq $missing >/dev/null
}

write_conf() {
  local cpus=${LOCAL_SLURM_CPUS:-}
  if [ -z "$cpus" ]; then
    cpus=$(nproc 2>/dev/null || echo 1)
    [ "$cpus" -lt 16 ] && cpus=16
  fi
  mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
  # munged wants its socket's directories open to all, its key's closed.
  chmod 755 "$dir"
  mkdir -p -m 755 "$dir/munge"
  mkdir -p -m 700 "$dir/key"
  cat >"$conf" <<EOF
# Written by Armada's tools/slurm/slurm-local.sh: one host, root, localhost.
ClusterName=armada-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmix
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
KillWait=5
InactiveLimit=0
MinJobAge=60
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
}

# Ends the processes named (pids), TERM first, then KILL after LIMIT seconds.
end_pids() {  # end_pids LIMIT LISTER
  local limit=$1 lister=$2 p
  p=$($lister)
  [ -z "$p" ] && return 0
  kill -TERM $p 2>/dev/null
  for _ in $(seq $((limit * 2))); do
    p=$($lister)
    [ -z "$p" ] && return 0
    sleep 0.5
  done
  for p in $($lister); do
    say "killing $p ($(cat /proc/"$p"/comm 2>/dev/null)): still there after ${limit} s"
    kill -KILL "$p" 2>/dev/null
  done
  sleep 0.5
}
slurmd_pid() { pid_of "$dir/slurmd.pid" slurmd; }
slurmctld_pid() { pid_of "$dir/slurmctld.pid" slurmctld; }
munged_pid() { pid_of "$dir/munge/pid" munged; }

stop() {
  if [ -f "$conf" ]; then
    # Jobs first (bounded), while both daemons still talk to each other;
    # then slurmd with its steps, then slurmctld: a slurmd whose controller
    # is gone retries its last messages for a minute.
    if slurmctld_pid >/dev/null && [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; then
      timeout 10 scancel --quiet --user "$(id -un)" 2>/dev/null
      for _ in $(seq 20); do
        [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
      done
    fi
    end_pids 10 slurmd_pid
    end_pids 5 step_pids
    end_pids 10 slurmctld_pid
    end_pids 5 munged_pid
  fi
  # Only a directory this script made: it holds our slurm.conf.
  if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    if [ -f "$conf" ] && grep -q "slurm-local.sh" "$conf"; then
      rm -rf "$dir"
    else
      say "$dir is not one of ours; left alone"
    fi
  fi
  return 0
}

start() {
  if running && [ "$(node_state)" = idle ]; then
    say "already running ($conf)"
    return 0
  fi
  stop   # whatever half of a former start is left
  install_missing || { say "FAILED: could not install slurm-wlm from Debian"; return 1; }
  local b
  for b in munged mungekey slurmctld slurmd sinfo srun; do
    command -v "$b" >/dev/null || { say "FAILED: $b not found after installing"; return 1; }
  done
  if [ "$port" = auto ]; then
    port=6817
    while port_busy "$port" || port_busy $((port + 1)); do
      port=$((port + 2))
      [ "$port" -gt 6917 ] && { say "FAILED: no free port pair in 6817-6918"; return 1; }
    done
  fi
  write_conf
  # A munge of our own: its key, made here, is readable by root alone.
  mungekey -c -k "$dir/key/munge.key" &&
    munged -S "$dir/munge/socket" --key-file="$dir/key/munge.key" --pid-file="$dir/munge/pid" \
      --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" ||
    { say "FAILED: munged did not start"; tail -5 "$dir/munge/munged.log" 2>/dev/null >&2; stop; return 1; }
  # -i: ignore (absent) saved state; both daemonize and write their pid files.
  slurmctld -f "$conf" -i || { say "FAILED: slurmctld did not start"; tail -20 "$dir/slurmctld.log" 2>/dev/null >&2; stop; return 1; }
  slurmd -f "$conf" || { say "FAILED: slurmd did not start"; tail -20 "$dir/slurmd.log" 2>/dev/null >&2; stop; return 1; }
  local t0=$SECONDS st=""
  while [ $((SECONDS - t0)) -lt "$wait_s" ]; do
    st=$(node_state)
    case "$st" in idle) break ;; esac
    sleep 0.5
  done
  if [ "$st" != idle ]; then
    say "FAILED: node $host not idle after ${wait_s} s (state '${st:-no answer}')"
    for n in slurmctld slurmd; do
      echo "--- $dir/$n.log (last lines)" >&2
      tail -15 "$dir/$n.log" >&2 2>/dev/null
    done
    stop
    return 1
  fi
  say "up in $((SECONDS - t0)) s: node $host idle; export SLURM_CONF=$conf"
}

status() {
  if running; then
    local st
    st=$(node_state)
    echo "slurm-local: munged $(munged_pid), slurmctld $(slurmctld_pid), slurmd $(slurmd_pid), node $host ${st:-not answering}; SLURM_CONF=$conf"
    [ -n "$st" ]
  else
    echo "slurm-local: not running"
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
