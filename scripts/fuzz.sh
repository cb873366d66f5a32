#!/usr/bin/env bash
# Run each libFuzzer harness for a while and report, one TAP line per harness.
#
#   fuzz.sh SECONDS [DIR]
#
# DIR (default build/fuzz) holds the harnesses, fuzz_<target>; each starts from its committed
# seed corpus testbench/fuzz/corpus/<target>/, which is only read: the inputs it finds go to a
# temporary directory, removed at the end with every scratch file of the harnesses. A harness
# passes when it ran the time with no crash, leak, timeout or sanitizer report and executed at
# least MIN_EXECS inputs (default 5000). Its line gives the executions and the coverage
# (libFuzzer's edges "cov" and features "ft" at the end); on failure the end of its output
# follows, and the crashing input is kept in FUZZ_ARTIFACTS (default build/fuzz/artifacts).
set -uo pipefail
cd "$(dirname "$0")/.."

secs=${1:-}
dir=${2:-build/fuzz}
min=${MIN_EXECS:-5000}
artifacts=${FUZZ_ARTIFACTS:-build/fuzz/artifacts}
if ! [[ "$secs" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: give the seconds per harness, a positive integer ('${secs}' given)" >&2
  exit 2
fi
shopt -s nullglob
harnesses=("$dir"/fuzz_*)
if [ ${#harnesses[@]} -eq 0 ]; then
  echo "fuzz.sh: no harness in $dir; build them first: make fuzz" >&2
  exit 1
fi
tmp=$(mktemp -d) || { echo "fuzz.sh: cannot make a temporary directory" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$artifacts" || { echo "fuzz.sh: cannot make $artifacts" >&2; exit 1; }

echo "1..${#harnesses[@]}"
n=0
fail=0
for bin in "${harnesses[@]}"; do
  n=$((n + 1))
  name=$(basename "$bin")
  target=${name#fuzz_}
  seeds=testbench/fuzz/corpus/$target
  if [ ! -d "$seeds" ]; then
    echo "not ok $n $name: no seed corpus $seeds"
    fail=1
    continue
  fi
  mkdir -p "$tmp/$target/corpus" "$tmp/$target/scratch"
  log=$tmp/$target/log
  # -close_fd_mask=3: the harnesses' own messages (refusals) are not shown; libFuzzer's and
  # the sanitizers' reports still are.
  TMPDIR=$tmp/$target/scratch "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -close_fd_mask=3 -artifact_prefix="$artifacts/$name-" \
    "$tmp/$target/corpus" "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  what="${execs:-0} executions in ${secs} s, ${cov:-no coverage figures}"
  if [ $rc -ne 0 ] || grep -qE '^==[0-9]+==ERROR|runtime error:|SUMMARY: ' "$log"; then
    echo "not ok $n $name: exit status $rc after $what"
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written|^ +#[0-9]+ 0x|^[a-z_]+: ' "$log" | head -14 | sed 's/^/# /'
    fail=1
  elif [ "${execs:-0}" -lt "$min" ]; then
    echo "not ok $n $name: only $what (at least $min expected)"
    fail=1
  else
    echo "ok $n $name: $what"
  fi
done
exit $fail
