# Sourced by expect_fail.sh and time_limit.sh: what a job that overran its
# time limit was doing.

# Every descendant of process $1, one pid a line; with a second argument
# "live", only those that are not zombies.
job_descendants() {
  ps -e -o pid=,ppid=,stat= | awk -v root="$1" -v live="${2:-}" '
    { ppid[$1] = $2; stat[$1] = $3 }
    END {
      for (p in ppid) {
        q = p; d = 0
        while (q in ppid && q != root && d < 64) { q = ppid[q]; d++ }
        if (q == root && p != root && !(live == "live" && stat[p] ~ /^Z/)) print p
      }
    }'
}

# job_report ROOT LIMIT: where ROOT and each process under it wait: the state and
# kernel wait channel of each thread, and the threads' stacks where gdb is
# installed (not for the launcher and its daemons), within about 8 s: the
# test's CTest limit is 10 s above the one this report is for.
job_report() {
  local t0=$SECONDS
  echo "$(basename "$0"): no end after $2 s; the launcher and the processes under it:"
  for p in "$1" $(job_descendants "$1"); do
    [ -r "/proc/$p/stat" ] || continue
    echo "  pid $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-120)"
    for t in /proc/"$p"/task/*; do
      [ -r "$t/stat" ] || continue
      st=$(sed 's/.*) //' "$t/stat" 2>/dev/null | cut -d' ' -f1)
      echo "    thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)): state $st, waits in $(cat "$t/wchan" 2>/dev/null)"
    done
    case "$(cat "/proc/$p/comm" 2>/dev/null)" in
      mpirun|mpiexec|orterun|orted|prterun|prted) ;;
      *) if command -v gdb >/dev/null 2>&1 && [ $((SECONDS - t0)) -lt 5 ]; then
           timeout 3 gdb -batch -nx -p "$p" -ex "thread apply all bt 12" 2>/dev/null |
             grep -E '^(Thread|#)' | sed 's/^/    /' | head -n 120
         fi ;;
    esac
  done
}

# job_kill ROOT: ROOT and everything under it, at once.
job_kill() {
  for p in $(job_descendants "$1"); do kill -KILL "$p" 2>/dev/null; done
  kill -KILL "$1" 2>/dev/null
}
