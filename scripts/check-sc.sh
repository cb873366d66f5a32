#!/usr/bin/env bash
# The SystemC traffic generator (models/sc/examples/sc_flashgen: flashbench's workload through
# the TLM-2.0 flash target) against `flashstream flashbench` on the same workloads, as TAP
# lines (scripts/run-tests.sh counts each case):
#
#   scripts/check-sc.sh SC_FLASHGEN FLASHSTREAM
#
# Each case runs both and compares their report lines, from the IOPS/BW line through the
# latency percentiles, and the fault counters line when there are faults, character for
# character: the same figures, or the case fails and shows the difference.
set -uo pipefail

gen=${1:?usage: check-sc.sh SC_FLASHGEN FLASHSTREAM}
fs=${2:?usage: check-sc.sh SC_FLASHGEN FLASHSTREAM}
n=0
fail=0

# The report from the IOPS/BW line to the last percentile line, and the fault counters.
figures() { sed -n '/: IOPS=/,/99\.99th/p; /^  faults:/p'; }

case_() { # case_ NAME ARGS...: one comparison
  local name=$1
  shift
  local a b
  a=$("$gen" "$@" 2>&1 | figures)
  b=$("$fs" flashbench "$@" 2>&1 | figures)
  n=$((n + 1))
  if [ -n "$a" ] && [ "$a" = "$b" ]; then
    echo "ok $n - $name: $(head -n1 <<<"$a" | sed 's/^ *//')"
  else
    fail=1
    echo "not ok $n - $name: sc_flashgen and flashbench differ"
    diff <(echo "$a") <(echo "$b") | sed 's/^/     /'
  fi
}

case_ "sequential write, 64 KiB x 32" --rw write --size 268435456
case_ "sequential read, 64 KiB x 32" --rw read --size 268435456
case_ "random read, 4 KiB x 8" --rw randread --bs 4096 --iodepth 8 --size 67108864 --seed 3
case_ "long reads, 16 MiB x 2 (the controller's fast path)" --rw read --bs 16777216 \
  --iodepth 2 --size 1073741824
case_ "long writes, 16 MiB x 2 (the FTL's fast path)" --rw write --bs 16777216 --iodepth 2 \
  --size 1073741824
case_ "random writes, 64 KiB x 8 (a random logical block's write pointer)" --rw randwrite \
  --iodepth 8 --size 268435456 --seed 5
case_ "random writes on --range 2:12 (blocks outside the layout, no spares)" --rw randwrite \
  --range 2:12 --iodepth 16 --size 1073741824 --seed 2
case_ "random reads on --range 2:12" --rw randread --range 2:12 --bs 4096 --iodepth 8 \
  --size 67108864 --seed 3
case_ "random reads of aged flash (--fault age: read retries)" --rw randread --bs 4096 \
  --iodepth 8 --size 67108864 --seed 3 --fault age:pe=2000000,days=2
case_ "writes with program failures (--fault program: remapped to spares)" --rw write \
  --size 268435456 --fault program:rate=0.01 --fault seed:n=7

echo "1..$n"
exit $fail
