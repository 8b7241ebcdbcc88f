#!/bin/bash
# Decision 080's check of decision 076's runs (lone small write, 1 MiB
# overlap, threads, NAS FT class A over TCP): the same script, BASE a build
# of 524798a, NEW the library of decision 080.
# Usage: run.sh BASE_BUILD NEW_BUILD OUTDIR [ROUNDS]
exec bash "$(dirname "$0")/../../2026-11-28-sweep/run.sh" "$@"
