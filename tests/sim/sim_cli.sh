#!/bin/bash
# sim.cli: armada-sim end to end. Every hot-spot run must pass its own
# invariants (SIMCHECK ok=1, exit 0); one seed must give one output; the
# memory study must find made servers equal to their layout; calibration from
# the stored topology report must succeed and load back. Usage: sim_cli.sh SIM SRC
set -u
SIM=$1 SRC=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL: $*"; fail=1; }

for topo in fcg mfcg cfcg hypercube; do
  for op in fadd putv; do
    for lvl in 0 20 100; do
      out=$("$SIM" hotspot --topology $topo --procs 16 --ppn 2 --op $op --level $lvl --iters 5) \
        || bad "hotspot $topo $op $lvl exited $?"
      grep -q "SIMCHECK .*ok=1" <<<"$out" || bad "hotspot $topo $op $lvl: $(grep SIMCHECK <<<"$out")"
      grep -q "rank=mean us=[0-9]" <<<"$out" || bad "hotspot $topo $op $lvl: no mean"
    done
  done
  out=$("$SIM" hot100 --topology $topo --procs 64 --ppn 4 --iters 3) || bad "hot100 $topo exited $?"
  grep -q "SIMCHECK .*ok=1" <<<"$out" || bad "hot100 $topo: $(grep SIMCHECK <<<"$out")"
done

# Answers to origins that never connected to the target's server go back
# along their route (relayed): under edges (the connect experiment), never
# under eager, and no longer under lazy, whose clients say hello to every
# node they send to (decision 070).
relayed() { ARMADA_SIM_SERVERS=1 "$SIM" "$@" | awk '/SIMCHECK .*ok=1/ {ok=1}
              /^SIMSRV/ {for (i = 1; i <= NF; i++) if ($i ~ /^relayed=/) {sub("relayed=", "", $i); r += $i}}
              END {print (ok ? r : -1)}'; }
hot="hotspot --topology mfcg --procs 16 --ppn 1 --op putv --level 20 --iters 5"
lz=$(relayed $hot --connect lazy); eg=$(relayed $hot --connect eager)
ed=$(relayed connect --topology mfcg --procs 16 --ppn 1 --pattern all --mode edges)
[ "$ed" -gt 0 ] 2>/dev/null || bad "connect --mode edges: no answer relayed ($ed)"
[ "$lz" = 0 ] || bad "--connect lazy: answers relayed ($lz)"
[ "$eg" = 0 ] || bad "--connect eager: answers relayed ($eg)"
"$SIM" hotspot --topology fcg --procs 8 --ppn 1 --connect sometimes 2>/dev/null \
  && bad "a bad --connect was accepted"

# One seed, one result (the wall time aside); another seed, another.
a=$("$SIM" --seed 5 hot100 --topology mfcg --procs 128 --ppn 4 --iters 2 | grep -v SIMSTAT)
b=$("$SIM" --seed 5 hot100 --topology mfcg --procs 128 --ppn 4 --iters 2 | grep -v SIMSTAT)
c=$("$SIM" --seed 6 hot100 --topology mfcg --procs 128 --ppn 4 --iters 2 | grep -v SIMSTAT)
[ "$a" = "$b" ] || bad "seed 5 twice gave two results"
[ "$a" != "$c" ] || bad "seeds 5 and 6 gave one result"

# The memory study: servers small enough are made and must match the layout.
for topo in fcg mfcg cfcg hypercube; do
  out=$("$SIM" memory --topology $topo --procs 1536 --ppn 12 --slots 4 --slot-size 16384 \
        --edge-slots 4) || bad "memory $topo exited $?"
  grep -q "node=max .*made=1 match=1" <<<"$out" || bad "memory $topo: $(grep node=max <<<"$out")"
done
# topology auto (decision 049) by the processes' slots per server against 32 MiB:
# FCG at 96 processes, MFCG at 1,536 (128 nodes of 12), CFCG at 12,288.
for v in 96:fcg 1536:mfcg 12288:cfcg; do
  out=$("$SIM" memory --topology auto --procs ${v%%:*} --ppn 12) || bad "memory auto exited $?"
  grep -q "topo=auto:${v##*:} " <<<"$out" || bad "auto at ${v%%:*} processes is not ${v##*:}: $out"
done

# Bad input stops with a message naming the option.
"$SIM" hotspot --topology ring --procs 8 --ppn 1 2>"$tmp/err" && bad "a bad topology was accepted"
grep -q -- "--topology" "$tmp/err" || bad "bad topology: no message naming --topology"

# Calibration from the stored report, and the model file it writes loads back.
rep="$SRC/docs/bench/2026-11-24-topo/results.json"
"$SIM" --calibrate "$rep" --out "$tmp/model.txt" >"$tmp/cal" || bad "calibrate exited $?"
grep -q "^MODEL " "$tmp/cal" || bad "calibrate printed no MODEL line"
out=$("$SIM" --model "$tmp/model.txt" hotspot --topology fcg --procs 8 --ppn 1 --op fadd \
      --level 0 --iters 3) || bad "a calibrated model did not load"
[ "$(grep '^MODEL' <<<"$out" | sed 's/source=[^ ]* //')" = "$(sed 's/source=[^ ]* //' "$tmp/cal")" ] \
  || bad "the saved model is not the calibrated one"

[ $fail = 0 ] && echo "sim.cli: passed"
exit $fail
