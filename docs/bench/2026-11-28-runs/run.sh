#!/bin/bash
# Decision 077 measurements: libarmci before (BASE_LIB, the src/ folder of a
# build of e7a0fcd) against this one (NEW_BUILD), alternating launches of the
# same benchmark binaries, 2 processes as 2 virtual nodes over TCP.
# Usage: run.sh BASE_LIB NEW_BUILD OUTDIR [ROUNDS]
set -u
BASE=$1 NEW=$2 OUT=$3 ROUNDS=${4:-5}
mkdir -p "$OUT/raw"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpirun --oversubscribe --bind-to none -np 2 -x ARMADA_PPN=1 -x UCX_TLS=tcp,self"
lib_of() { if [ "$1" = base ]; then echo "$BASE"; else echo "$NEW/src"; fi; }
for r in $(seq 1 "$ROUNDS"); do
  for lib in base new; do
    timeout 300 $MPI -x LD_LIBRARY_PATH="$(lib_of $lib)" \
      "$NEW/bench/armada-bench-overheads" -o noncontig,stack > "$OUT/raw/ovh-$lib-$r.txt" 2>&1
  done
done
for r in 1 2 3; do
  for lib in base new; do
    timeout 300 $MPI -x LD_LIBRARY_PATH="$(lib_of $lib)" \
      "$NEW/bench/armada-bench-strided" -t 1M -m 8 -M 64k -r 3 -o puts,gets \
      > "$OUT/raw/strided-$lib-$r.txt" 2>&1
  done
done
# Medians per (operation, size, unit), before and after, from the RESULT lines.
python3 - "$OUT" > "$OUT/medians.txt" <<'PY'
import glob, statistics, sys, collections
v = collections.defaultdict(list)
for lib in ("base", "new"):
    for f in sorted(glob.glob(f"{sys.argv[1]}/raw/*-{lib}-*.txt")):
        for line in open(f):
            if line.startswith("RESULT"):
                kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
                v[(kv["suite"], kv["op"], int(kv["size"]), kv["unit"], lib)].append(float(kv["value"]))
print("suite op size unit base new new/base launches")
for k in sorted({k[:4] for k in v}):
    b, n = v.get(k + ("base",), []), v.get(k + ("new",), [])
    if b and n:
        mb, mn = statistics.median(b), statistics.median(n)
        print(*k, f"{mb:.4g}", f"{mn:.4g}", f"{mn / mb:.3f}", f"{len(b)}/{len(n)}")
PY
