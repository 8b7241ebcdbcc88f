#!/usr/bin/env bash
# expect_output.sh REGEX CMD...: passes when CMD exits 0 and its combined
# output matches the extended regular expression REGEX.
set -u
re=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 40
if [ "$rc" -ne 0 ]; then
  echo "expect_output: command exited $rc"; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
  echo "expect_output: output does not match /$re/"; exit 1
fi
echo "expect_output: exit 0 and output matched as expected"
