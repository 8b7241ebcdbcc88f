#!/usr/bin/env bash
# The application kernels side by side (issue 24): LU, Lennard-Jones and
# RandomAccess on Armada, on ARMCI-MPI and on their MPI references, through
# tools/apps/app_compare.py, into one folder with the machine, the versions
# and the commands.
#
#   tools/apps/run_apps.sh [--build build] [--np 4] [--ppn 2] [--tcp]
#                          [--repeats 3] [--size small|bench] [--out DIR]
#                          [--apps lu,lj,ra]
#
# --ppn P makes every P processes a virtual node (ARMADA_PPN=P for Armada);
# --tcp then sends Armada's and ARMCI-MPI's inter-node traffic over UCX's
# TCP transport and the MPI references over Open MPI's TCP BTL, so that all
# cross the same kind of link. Exit status: non-zero when any run failed or
# did not verify.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build np=4 ppn=0 tcp=0 repeats=3 size=bench out="" apps=lu,lj,ra
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --np) np=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    --tcp) tcp=1; shift ;;
    --repeats) repeats=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --apps) apps=$2; shift 2 ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "run_apps.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$size" in small|bench) ;; *) echo "run_apps.sh: --size small|bench" >&2; exit 2 ;; esac
[ -n "$out" ] || out=$root/docs/apps/$(date +%Y-%m-%d)
mkdir -p "$out"
out=$(cd "$out" && pwd)

run="mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1"
[ "$(id -u)" -ne 0 ] || run="$run --allow-run-as-root"
# Armada: its own traffic goes by the servers; MPI (barriers, the ARMCI-MPI
# windows, the references) by vader on one node, by TCP across virtual nodes.
arm_env="" btl="--mca btl self,vader"
if [ "$ppn" -gt 0 ]; then
  arm_env="-x ARMADA_PPN=$ppn"
  [ "$tcp" -eq 0 ] || { arm_env="$arm_env -x UCX_TLS=tcp,self"; btl="--mca btl self,tcp"; }
fi
osc="--mca osc ucx"
[ "$tcp" -eq 0 ] || osc="$osc --mca osc_ucx_tls any --mca osc_ucx_devices any -x UCX_TLS=tcp,self"
arm="$run $btl $arm_env -np {np}"
ampi="$run $btl $osc -np {np}"
ref="$run $btl -np {np}"
b=$build/apps

# Sizes: "small" checks the tool chain in a minute; "bench" is the issue's,
# except Lennard-Jones: 2,048 atoms, because GA on ARMCI-MPI takes minutes a
# step at 8,192 on a small machine (armada-lj alone runs the default).
if [ "$size" = small ]; then
  lu_args="-n 512 --nb 64" lj_args="-N 1024 --steps 3" ra_k=18
else
  lu_args="-n 2048 --nb 64" lj_args="-N 2048 --steps 3" ra_k=20
fi

rc=0
compare() {  # name title metric [app_compare args...]
  local name=$1 title=$2 metric=$3
  shift 3
  echo "== $name: $title" >&2
  python3 "$here/app_compare.py" --title "$title" --metric "$metric" --np "$np" \
    --repeats "$repeats" --out "$out/$name" "$@" >"$out/$name.log" 2>&1 || rc=1
  tail -n +1 "$out/$name/results.md" 2>/dev/null | sed -n '/^| procs/,/^$/p' >&2
}

where="one node"
[ "$ppn" -eq 0 ] || where="virtual nodes of $ppn$([ "$tcp" -eq 0 ] || echo ' over TCP')"
case ",$apps," in *,lu,*)
  compare lu "LU $lu_args, $np processes, $where" gflops --columns comm,resid \
    --baseline armci-mpi \
    --case "armada=$arm $b/lu/armada-lu $lu_args" \
    --case "armci-mpi=$ampi $b/lu/armada-lu-armcimpi $lu_args" \
    --case "armci-mpi-direct=$ampi -x ARMCI_STRIDED_METHOD=DIRECT $b/lu/armada-lu-armcimpi $lu_args" \
    --case "scalapack=$ref $b/lu/armada-lu-scalapack $lu_args" ;;
esac
case ",$apps," in *,lj,*)
  compare lj "Lennard-Jones $lj_args, $np processes, $where" time \
    --columns t_compute,t_comm,counter_ops,energy_drift --baseline armci-mpi \
    --case "armada=$arm $b/lj/armada-lj $lj_args" \
    --case "armci-mpi=$ampi $b/lj/armada-lj-armcimpi $lj_args"
  [ "$size" = small ] || compare lj8192 "Lennard-Jones, the default 8,192 atoms and 10 steps, \
$np processes, $where (Armada alone)" time --columns t_compute,t_comm,t_counter,counter_ops \
    --case "armada=$arm $b/lj/armada-lj" ;;
esac
case ",$apps," in *,ra,*)
  compare ra "RandomAccess 2^$ra_k words, $np processes, $where" gups --columns errors \
    --baseline armci-mpi \
    --case "armada=$arm $b/ra/armada-ra -k $ra_k -t 30" \
    --case "armci-mpi=$ampi $b/ra/armada-ra-armcimpi -k $ra_k -t 30" \
    --case "hpcc=$root/tools/apps/hpcc_ra.sh --mpirun '$ref' -k $ra_k" ;;
esac

{
  echo "# Application kernels: $np processes, $where"
  echo
  echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
  echo "Machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
       "$(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo),"\
       "$(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)  "
  echo "Armada: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), build \`$build\`  "
  echo "Open MPI: $(mpirun --version 2>/dev/null | head -1)  "
  for p in libucx0 libarmci-mpi-dev libglobalarrays-dev libscalapack-openmpi-dev hpcc libblas3; do
    v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo "not a Debian package here")
    echo "$p: $v  "
  done
  echo "Command: \`tools/apps/run_apps.sh --np $np --ppn $ppn$([ "$tcp" -eq 0 ] || echo ' --tcp')"\
       "--repeats $repeats --size $size\`  "
  echo
  for name in lu lj lj8192 ra; do
    [ -f "$out/$name/results.md" ] || continue
    echo "## $name"
    echo
    sed -n '/^Case /p;/^Each cell/p' "$out/$name/results.md"
    echo
    sed -n '/^| procs/,/^$/p' "$out/$name/results.md"
    echo "![$name]($name/$(sed -n 's/^!\[[^]]*\](\(.*\))$/\1/p' "$out/$name/results.md"))"
    echo
  done
} >"$out/README.md"
echo "run_apps.sh: wrote $out/README.md" >&2
exit $rc
