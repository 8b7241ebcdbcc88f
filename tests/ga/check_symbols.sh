#!/bin/sh
# check_symbols.sh LIBGA.a LIBARMCI.so
# Every ARMCI symbol that Global Arrays leaves undefined, and does not define
# itself in another member of its own archive, must be exported by Armada's
# libarmci. GA defines get_armci_nbhandle, ga_get_armci_group_ and its own
# armci_tcgmsg_* layer; those are listed, not required.
set -u
ga=$1
armci=$2
for f in "$ga" "$armci"; do
  [ -r "$f" ] || { echo "check_symbols: cannot read $f"; exit 2; }
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

nm -u "$ga" 2>/dev/null | awk '$1 == "U" { print $2 }' | grep -i armci | sort -u > "$tmp/undef"
nm --defined-only "$ga" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRWV]$/ { print $3 }' |
  sort -u > "$tmp/ga_defs"
nm -D --defined-only "$armci" | awk 'NF == 3 && $2 ~ /^[TDBRWViu]$/ { print $3 }' |
  sed 's/@.*//' | sort -u > "$tmp/armci_defs"

comm -12 "$tmp/undef" "$tmp/ga_defs" > "$tmp/self"
comm -23 "$tmp/undef" "$tmp/ga_defs" > "$tmp/needed"
comm -23 "$tmp/needed" "$tmp/armci_defs" > "$tmp/missing"

echo "check_symbols: $(wc -l < "$tmp/undef") ARMCI symbols undefined in $(basename "$ga")"
echo "check_symbols: $(wc -l < "$tmp/self") of them GA defines itself:" $(cat "$tmp/self")
echo "check_symbols: $(wc -l < "$tmp/needed") must come from $(basename "$armci")"
if [ -s "$tmp/missing" ]; then
  echo "check_symbols: MISSING from $(basename "$armci"):"
  sed 's/^/  /' "$tmp/missing"
  exit 1
fi
echo "check_symbols: all present"
