#!/usr/bin/env bash
# Run test suites, JOBS at a time, and sum their results.
#
#   run-tests.sh [-j JOBS] LOGDIR SUITE... [-- SUITE...]
#
# A suite is a command (quoted if it has arguments), optionally labelled
# "label::command"; without a label it is named after its program. Up to JOBS suites (1
# unless given) run at once, started in the order given; a "--" waits for every suite before
# it to end before the next starts (the build before the suites that run what it built).
# Each suite writes LOGDIR/<name>.log. A suite that prints TAP ("ok N ..." / "not ok N ...",
# as cmocka does with CMOCKA_MESSAGE_OUTPUT=TAP) counts each of its test cases; any other
# suite counts as one case, passed when it exits 0. A suite that crashes or exits non-zero
# without reporting a failed case counts one failure more, and a missing program is a failure.
# Prints one line per suite, in the order given, as soon as it and those before it have
# ended; then "N passed, M failed"; exits 1 on failure.
set -uo pipefail

jobs=1
if [ "${1:-}" = -j ]; then
  jobs=${2:?usage: run-tests.sh [-j JOBS] LOGDIR SUITE... [-- SUITE...]}
  shift 2
fi
case $jobs in '' | *[!0-9]* | 0)
  echo "run-tests.sh: -j takes a positive number of suites, not '$jobs'" >&2
  exit 2
  ;;
esac
logdir=$1
shift
mkdir -p "$logdir"
export CMOCKA_MESSAGE_OUTPUT=TAP
passed=0
failed=0

names=()    # per suite, in order
printed=0   # suites reported so far
running=0   # suites started and not yet waited for

name_of() {
  if [[ "$1" == *::* ]]; then echo "${1%%::*}"; else basename "${1%% *}"; fi
}

# run NAME COMMAND: the suite, its log, then its exit status and seconds beside the log.
run() {
  local log=$logdir/$1.log start=$EPOCHREALTIME rc
  # shellcheck disable=SC2086 # a suite is a command line
  $2 >"$log" 2>&1
  rc=$?
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$log.secs"
  echo "$rc" >"$log.rc"
}

# report I: the line of suite I (ended), and its failures.
report() {
  local name=${names[$1]} log=$logdir/${names[$1]}.log rc secs ok notok verdict
  rc=$(cat "$log.rc")
  secs=$(cat "$log.secs")
  rm -f "$log.rc" "$log.secs"
  ok=$(grep -cE '^ok [0-9]+' "$log")
  notok=$(grep -cE '^not ok [0-9]+' "$log")
  if [ $((ok + notok)) -eq 0 ]; then
    if [ "$rc" -eq 0 ]; then ok=1; else notok=1; fi
  elif [ "$rc" -ne 0 ] && [ "$notok" -eq 0 ]; then
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
}

# flush: report the suites that have ended, in order, up to the first still running.
flush() {
  while [ "$printed" -lt ${#names[@]} ] && [ -e "$logdir/${names[$printed]}.log.rc" ]; do
    report "$printed"
    printed=$((printed + 1))
  done
}

# settle N: wait until fewer than N suites run, reporting those that end.
settle() {
  while [ "$running" -ge "$1" ]; do
    wait -n
    running=$((running - 1))
    flush
  done
}

for suite in "$@"; do
  if [ "$suite" = -- ]; then
    settle 1
    continue
  fi
  settle "$jobs"
  name=$(name_of "$suite")
  names+=("$name")
  rm -f "$logdir/$name.log.rc"
  run "$name" "${suite#*::}" &
  running=$((running + 1))
done
settle 1
flush

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
