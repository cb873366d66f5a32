# The TAP lines of the end-to-end check scripts (scripts/check-*.sh), which scripts/run-tests.sh
# counts: source it, report each case with ok, not_ok, check or tap_expect, end with tap_end.
# `work` must name the script's work directory before tap_expect runs.

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # name, log file
  n=$((n + 1))
  fail=1
  echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -20 "$2" | sed 's/^/     /'
}
# check NAME LOG CONDITION...: ok when the condition (a command) holds.
check() {
  local name=$1 log=$2
  shift 2
  if "$@"; then ok "$name"; else not_ok "$name" "$log"; fi
}
# tap_expect NAME STATUS NEEDLE -- COMMAND...: the command exits with STATUS and prints NEEDLE.
tap_expect() {
  local name=$1 want=$2 needle=$3
  shift 4
  local log="$work/$n.log"
  "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -qF -- "$needle" "$log"; then ok "$name"; else
    echo "     exit $rc (want $want), looking for: $needle" >"$log.why"
    cat "$log" >>"$log.why"
    not_ok "$name" "$log.why"
  fi
}
# The plan line and the status: 1 if any case failed.
tap_end() {
  echo "1..$n"
  exit $fail
}
