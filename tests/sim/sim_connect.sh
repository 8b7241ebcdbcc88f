#!/bin/bash
# sim.connect: armada-sim connect (issue 22 item 5) on cases whose endpoint
# counts are known exactly. Usage: sim_connect.sh SIM
set -u
SIM=$1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run ARGS...: the SIM exp=connect line of a run that must pass its invariants.
run() {
  local out
  out=$("$SIM" connect "$@") || { bad "connect $* exited $?"; return; }
  grep -q "SIMCHECK exp=connect .*ok=1" <<<"$out" || bad "connect $*: $(grep SIMCHECK <<<"$out")"
  grep "^SIM exp=connect" <<<"$out"
}
# want LINE KEY=VALUE...: every field as given.
want() {
  local line=$1; shift
  for kv in "$@"; do
    grep -q " $kv\( \|$\)" <<<"$line" || bad "wanted $kv in: $line"
  done
}
# field LINE KEY: its value.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

# 8 processes, one per node, each touching every other node once: 7 servers
# per client, 7 clients per server, no server-to-server traffic under FCG.
l=$(run --topology fcg --procs 8 --ppn 1 --pattern all --mode lazy)
want "$l" c2s_mean=7.0000 c2s_max=7 s2c_mean=7.0000 s2c_max=7 s2s_max=0 pairs=112
# The ring's two neighbours: exactly 2 each way.
l=$(run --topology fcg --procs 8 --ppn 1 --pattern clique --k 2 --mode lazy)
want "$l" c2s_mean=2.0000 c2s_max=2 s2c_mean=2.0000 s2c_max=2
# k beyond the other nodes is capped at them.
l=$(run --topology fcg --procs 4 --ppn 1 --pattern clique --k 9)
want "$l" ops=3 c2s_max=3 s2c_max=3
# Everyone to rank 0 (64 processes, 4 per node): one server for each of the
# 60 clients off node 0, node 0's server answers all 60, the others none.
l=$(run --topology fcg --procs 64 --ppn 4 --pattern hotspot --ops 3)
want "$l" c2s_mean=0.9375 c2s_max=1 s2c_mean=3.7500 s2c_max=60
# eager: everything, whatever the pattern.
l=$(run --topology fcg --procs 64 --ppn 4 --pattern hotspot --mode eager)
want "$l" c2s_mean=15.0000 c2s_max=15 s2c_mean=60.0000 s2c_max=60 s2c_per_proc=15.0000

# MFCG 4x4 (every node has 6 neighbours): under edges a client's endpoints
# are its first hops, all 6 when it touches every node, never off an edge;
# servers talk only to neighbours.
l=$(run --topology mfcg --dims 4x4 --procs 16 --ppn 1 --pattern all --mode edges)
want "$l" c2s_mean=6.0000 c2s_max=6 c2s_off_edge=0 s2s_off_edge=0
[ "$(field "$l" s2s_max)" -ge 1 ] 2>/dev/null && [ "$(field "$l" s2s_max)" -le 6 ] \
  || bad "mfcg edges: forwarding servers talk to 1..6 neighbours: $l"
# lazy: these operations all go through the servers; a client connects to
# its first hops and to every node it sends to, whose server answers it
# straight (decision 070): 15 endpoints each, 9 of them off an edge; the
# servers still talk only to their neighbours.
l=$(run --topology mfcg --dims 4x4 --procs 16 --ppn 1 --pattern all --mode lazy)
want "$l" c2s_mean=15.0000 c2s_max=15 c2s_off_edge=144 s2c_off_edge=144 s2s_off_edge=0
# clique of the 2 ring neighbours under edges: at most 2 first hops each.
l=$(run --topology mfcg --dims 4x4 --procs 32 --ppn 2 --pattern clique --k 2 --mode edges)
[ "$(field "$l" c2s_max)" -le 2 ] 2>/dev/null || bad "mfcg clique edges: $l"
want "$l" c2s_off_edge=0
# Combined fetch-and-adds and their split answers under CFCG keep every
# invariant, and node 0's server answers fewer than all 60 remote clients.
l=$(run --topology cfcg --procs 64 --ppn 4 --pattern hotspot --op fadd --ops 5 --mode edges)
[ "$(field "$l" s2c_max)" -le 60 ] 2>/dev/null || bad "cfcg hotspot fadd: $l"

# random: at most --ops servers per client; one seed, one result.
a=$("$SIM" --seed 3 connect --topology cfcg --procs 256 --ppn 4 --pattern random --ops 5 | grep -v SIMSTAT)
b=$("$SIM" --seed 3 connect --topology cfcg --procs 256 --ppn 4 --pattern random --ops 5 | grep -v SIMSTAT)
[ "$a" = "$b" ] || bad "seed 3 twice gave two results"
l=$(grep "^SIM exp=connect" <<<"$a")
[ "$(field "$l" c2s_max)" -le 10 ] 2>/dev/null || bad "random lazy: 5 ops reach at most 10 servers: $l"

# Bad input stops with a message naming the option.
"$SIM" connect --topology fcg --procs 8 --ppn 1 --pattern ring 2>/tmp/sim_connect_err.$$ \
  && bad "--pattern ring was accepted"
grep -q -- "--pattern" /tmp/sim_connect_err.$$ || bad "no message naming --pattern"
"$SIM" connect --topology fcg --procs 8 --ppn 1 --pattern random --op fadd 2>/dev/null \
  && bad "fetch-and-adds outside the hot spot were accepted"
rm -f /tmp/sim_connect_err.$$

[ $fail = 0 ] && echo "sim.connect: passed"
exit $fail
