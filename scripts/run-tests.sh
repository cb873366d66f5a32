#!/usr/bin/env bash
# Run test suites and sum their results.
#
#   run-tests.sh LOGDIR SUITE...
#
# A suite is a command (quoted if it has arguments), optionally labelled
# "label::command"; without a label it is named after its program. A suite that prints TAP
# ("ok N ..." / "not ok N ...", as cmocka does with CMOCKA_MESSAGE_OUTPUT=TAP)
# counts each of its test cases; any other suite counts as one case, passed
# when it exits 0. A suite that crashes or exits non-zero without reporting a
# failed case counts one failure more, and a missing program is a failure.
# Prints one line per suite, then "N passed, M failed"; exits 1 on failure.
set -uo pipefail

logdir=$1
shift
mkdir -p "$logdir"
export CMOCKA_MESSAGE_OUTPUT=TAP
passed=0
failed=0

for suite in "$@"; do
  if [[ "$suite" == *::* ]]; then
    name=${suite%%::*}
    suite=${suite#*::}
  else
    name=$(basename "${suite%% *}")
  fi
  log="$logdir/$name.log"
  start=$EPOCHREALTIME
  # shellcheck disable=SC2086 # a suite is a command line
  $suite >"$log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  ok=$(grep -cE '^ok [0-9]+' "$log")
  notok=$(grep -cE '^not ok [0-9]+' "$log")
  if [ $((ok + notok)) -eq 0 ]; then
    if [ $rc -eq 0 ]; then ok=1; else notok=1; fi
  elif [ $rc -ne 0 ] && [ "$notok" -eq 0 ]; then
    notok=1 # crashed or exited non-zero after its last reported case
  fi
  passed=$((passed + ok))
  failed=$((failed + notok))
  if [ "$notok" -eq 0 ]; then verdict=PASS; else verdict=FAIL; fi
  printf '%-4s %-34s %4d passed %3d failed %6ss\n' "$verdict" "$name" "$ok" "$notok" "$secs"
  if [ "$notok" -ne 0 ]; then
    # The failed cases and error lines, or else the end of the log (a suite that could not
    # start, such as a missing program, says why only there).
    { grep -E '^not ok|rror|ssert|FAIL' "$log" || tail -n 5 "$log"; } | head -20 | sed 's/^/       /'
    echo "       (full log: $log)"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
