#!/usr/bin/env bash
# hpcc_ra.sh: Debian's hpcc (HPC Challenge) as the MPI reference for
# armada-ra.  Runs the whole suite in a temporary directory, with an
# hpccinf.txt whose HPL problem makes MPIRandomAccess use a table of 2^K
# words, and prints MPIRandomAccess's figures as one RESULT line:
#
#   RESULT app=ra impl=hpcc np=N log2=K updates=.. time=.. gups=.. errors=.. verified=1
#
# usage: hpcc_ra.sh [--mpirun "PREFIX"] [-np N] -k K [--hpcc PATH] [--timeout S] [--keep]
#   --mpirun  the launcher and its options (default $HPCC_MPIRUN or "mpirun"),
#             e.g. --mpirun "mpirun --mca btl self,tcp"; it may hold the process
#             count itself ("mpirun ... -np 4"), and then -np may be left out
#
# How hpcc sizes RandomAccess: every test takes its memory from HPL's largest
# N and smallest process grid P x Q in hpccinf.txt (N^2 doubles spread over
# P*Q processes, per process), and MPIRandomAccess's table is the largest
# power of two of words not above that memory times the process count.  HPL
# here runs on a 1 x 1 grid (the other processes idle during HPL), so the
# table is floor_pow2(N^2 * np) words and N = ceil(sqrt(2^K / np)): HPL costs
# one process 2/3 N^3 flops (N = 1024 for K = 22 on 4 processes).  The
# script checks the table size hpcc reports and fails when it is not 2^K.
# Exit status: 0 when MPIRandomAccess ran with no errors, 1 otherwise.
set -u
mpirun_prefix=${HPCC_MPIRUN:-mpirun}
hpcc_bin=${HPCC:-hpcc}
np="" k="" limit=600 keep=0
die() { echo "hpcc_ra.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case $1 in
    --mpirun) [ $# -ge 2 ] || die "option --mpirun needs a value"; mpirun_prefix=$2; shift 2 ;;
    -np|--np) [ $# -ge 2 ] || die "option -np needs a value"; np=$2; shift 2 ;;
    -k|--log2) [ $# -ge 2 ] || die "option -k needs a value"; k=$2; shift 2 ;;
    --hpcc) [ $# -ge 2 ] || die "option --hpcc needs a value"; hpcc_bin=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || die "option --timeout needs a value"; limit=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1'" ;;
  esac
done
read -r -a launcher <<< "$mpirun_prefix"
# A process count in the prefix (-np N, -n N, --np N, -c N) counts; -np adds one.
in_prefix=""
for ((i = 0; i + 1 < ${#launcher[@]}; i++)); do
  case ${launcher[i]} in -np|-n|--np|-c) in_prefix=${launcher[i + 1]} ;; esac
done
if [ -n "$in_prefix" ]; then
  [ -z "$np" ] || [ "$np" = "$in_prefix" ] ||
    die "option -np $np and the launcher's process count $in_prefix differ"
  np=$in_prefix
elif [ -n "$np" ]; then
  launcher+=(-np "$np")
fi
[[ $np =~ ^[1-9][0-9]*$ ]] || die "option -np needs a whole number of processes, got '$np'"
[[ $k =~ ^[0-9]+$ ]] && [ "$k" -ge 4 ] && [ "$k" -le 34 ] ||
  die "option -k needs a whole number from 4 to 34, got '$k'"
[[ $limit =~ ^[1-9][0-9]*$ ]] || die "option --timeout needs whole seconds, got '$limit'"
command -v "$hpcc_bin" >/dev/null 2>&1 || die "hpcc not found ('$hpcc_bin'; Debian package hpcc)"
hpcc_bin=$(command -v "$hpcc_bin")

# N = ceil(sqrt(2^k / np)), raised until N^2 * np reaches 2^k.
words=$((1 << k))
n=$(awk -v w="$words" -v p="$np" 'BEGIN { n = int(sqrt(w / p)); if (n < 1) n = 1; print n }')
while [ $((n * n * np)) -lt "$words" ]; do n=$((n + 1)); done
[ $((n * n * np)) -lt $((2 * words)) ] ||
  die "no HPL size gives a table of 2^$k words on $np processes (2^k too small for np)"
nb=32
[ "$n" -lt "$nb" ] && nb=$n

dir=$(mktemp -d "${TMPDIR:-/tmp}/hpcc_ra.XXXXXX") || die "cannot make a temporary directory"
[ "$keep" -eq 1 ] || trap 'rm -rf "$dir"' EXIT
cat > "$dir/hpccinf.txt" <<INF
HPLinpack benchmark input file (written by hpcc_ra.sh)
sized so that MPIRandomAccess uses a table of 2^$k words on $np processes
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n           Ns
1            # of NBs
$nb          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
1            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0            Number of additional problem sizes for PTRANS
1200         values of N
0            number of additional blocking sizes for PTRANS
40           values of NB
INF

start=$(date +%s.%N)
(cd "$dir" && timeout "$limit" "${launcher[@]}" "$hpcc_bin") > "$dir/stdout.txt" 2>&1
rc=$?
wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
out=$dir/hpccoutf.txt
if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then
  tail -n 20 "$dir/stdout.txt" >&2
  die "hpcc failed (exit $rc) after ${wall}s; files in $dir"
fi
get() { sed -n "s/^$1=//p" "$out" | tail -n 1; }
table=$(get MPIRandomAccess_N) gups=$(get MPIRandomAccess_GUPs) time=$(get MPIRandomAccess_time)
errors=$(get MPIRandomAccess_Errors) updates=$(get MPIRandomAccess_ExeUpdates)
hpl_time=$(sed -n 's/^HPL_time=//p' "$out" | tail -n 1)
grep -m 1 "Total Main table size" "$out" | sed 's/^/ hpcc: /'
echo " hpcc: HPL N=$n on a 1x1 grid (HPL_time=${hpl_time:-?}s), whole suite ${wall}s"
[ -n "$gups" ] && [ -n "$table" ] || die "no MPIRandomAccess figures in $out"
[ "$table" = "$words" ] || die "hpcc used a table of $table words, not 2^$k = $words"
verified=0
if [ "$errors" = "0" ]; then
  verified=1
  echo " VERIFICATION SUCCESSFUL"
else
  echo " VERIFICATION FAILED ($errors errors)"
fi
echo "RESULT app=ra impl=hpcc np=$np log2=$k updates=$updates mode=mpi" \
     "time=$time gups=$gups errors=$errors verified=$verified hpl_n=$n"
[ "$verified" -eq 1 ]
