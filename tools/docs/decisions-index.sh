#!/usr/bin/env bash
# Rewrites docs/decisions/README.md, the index of the decisions, from each
# file's first heading ("# NNN: title"). Run it after adding a decision.
set -eu
cd "$(dirname "$0")/../../docs/decisions"
{
  cat <<'HEAD'
# Decisions

Each file records one choice: the problem, what was chosen and why, what was
tried and dropped, and the figures or tests that back it. A decision that
changes an earlier one says so in its own text and in the earlier one's.
This index is made by `tools/docs/decisions-index.sh`; numbers without a
file were never used.

| no. | decision |
| ---: | --- |
HEAD
  for f in [0-9][0-9][0-9]-*.md; do
    n=${f%%-*}
    t=$(head -1 "$f" | sed 's/^# *[0-9]*: *//')
    echo "| $n | [$t]($f) |"
  done
} > README.md
