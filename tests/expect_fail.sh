#!/usr/bin/env bash
# expect_fail.sh REGEX CMD...: passes when CMD exits non-zero and its combined
# output matches the extended regular expression REGEX.
set -u
re=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 40
if [ "$rc" -eq 0 ]; then
  echo "expect_fail: command exited 0, a failure was expected"; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
  echo "expect_fail: output does not match /$re/"; exit 1
fi
echo "expect_fail: exit $rc and message matched as expected"
