#!/usr/bin/env bash
# expect_fail.sh [--exit0] REGEX CMD...: passes when CMD exits non-zero (with
# --exit0: exits 0) and its combined output matches the extended regular
# expression REGEX.
set -u
want_ok=0
if [ "${1:-}" = "--exit0" ]; then want_ok=1; shift; fi
re=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 40
if [ "$want_ok" -eq 0 ] && [ "$rc" -eq 0 ]; then
  echo "expect_fail: command exited 0, a failure was expected"; exit 1
fi
if [ "$want_ok" -eq 1 ] && [ "$rc" -ne 0 ]; then
  echo "expect_fail: command exited $rc, exit 0 was expected"; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
  echo "expect_fail: output does not match /$re/"; exit 1
fi
echo "expect_fail: exit $rc and output matched as expected"
