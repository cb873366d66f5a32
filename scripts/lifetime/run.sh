#!/usr/bin/env bash
# make lifetime: Behemoth's flash over a simulated lifetime, with faults: the V stream's raw bit
# error rate, the read retries, the spare blocks used and the iteration time as P/E cycles
# accumulate, and the year the flash stops keeping up (scripts/lifetime/README.md).
#
#   scripts/lifetime/run.sh [--quick] [OUT [FLASHSTREAM [MODEL]]]
#                           (default out/lifetime, build/rel/flashstream, gpt3-like:1x1)
#
# Accelerated: a lifetime is not simulated iteration by iteration. A fault-free `flashstream
# perf` iteration on configs/behemoth-paper.ini gives the Activation Nodes' V stream's P/E
# cycles per year at its write rate (P/E budget / lifetime_years of stats.json); the life point
# at year Y is then one iteration with `--fault age:pe=N` where N = Y x that rate: every block
# has the P/E cycles of year Y, and the fault model draws every page's errors at its RBER
# there. Points at 0, 1/4, 1/2, 3/4 and 1 of the rated life (the V stream's 2M P/E), then past
# it (blocks kept in service beyond their rating: 2x, 5x, 10x, 15x, 20x, 25x) until an
# iteration is more than 1% slower than the fault-free one or fails. --quick: the points 0, 1
# and 15 only (under a minute). Writes OUT/lifetime.csv, OUT/report.md and OUT/lifetime.png
# (scripts/lifetime/report.py); each point's outputs in OUT/points/<multiple>.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
out=${1:-out/lifetime}
fs=${2:-build/rel/flashstream}
model=${3:-gpt3-like:1x1}
cfg=$here/../../configs/behemoth-paper.ini
if [ ! -x "$fs" ]; then
  echo "lifetime: '$fs' is not an executable flashstream; build it with 'make $fs'" >&2
  exit 2
fi
rm -rf "$out" && mkdir -p "$out/points"

# perf NAME [FAULT...]: one iteration; 0 or its exit status (its log in the point's directory)
perf() {
  local d="$out/points/$1"
  shift
  mkdir -p "$d"
  "$fs" perf --config "$cfg" --model "$model" --storage behemoth --trace-max 0 --out "$d" "$@" \
    >"$d/log.txt" 2>&1
}

if ! perf base; then
  echo "lifetime: the fault-free iteration failed:" >&2
  cat "$out/points/base/log.txt" >&2
  exit 1
fi
rate=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]["an0"]["flash"]["V"]
print("%.6f" % (2e6 / s["lifetime_years"]["value"]))' "$out/points/base/stats.json") || exit 1
echo "lifetime: the V stream takes $rate P/E cycles a year (2M in $(python3 -c "print('%.1f' % (2e6 / $rate))") years)"

if [ $quick = 1 ]; then
  multiples="0 1 15"
else
  multiples="0 0.25 0.5 0.75 1 2 5 10 15 20 25"
fi
for m in $multiples; do
  pe=$(python3 -c "print(round($m * 2e6))")
  years=$(python3 -c "print('%.1f' % ($m * 2e6 / $rate))")
  if perf "$m" --fault "age:pe=$pe,days=0" --fault seed:n=1; then
    echo "lifetime: ${m}x the rated P/E ($pe cycles, year $years): done"
  else
    echo "lifetime: ${m}x the rated P/E ($pe cycles, year $years): the iteration failed" \
      "($(grep -m1 -E 'failed|error' "$out/points/$m/log.txt" | cut -c1-160))"
    break
  fi
  # past the rating, stop at the first point more than 1% slower than the fault-free iteration
  if python3 -c '
import json, sys
it = lambda p: json.load(open(p))["stats"]["perf"]["iteration_ps"]["value"]
sys.exit(0 if it(sys.argv[2]) > 1.01 * it(sys.argv[1]) else 1)' \
    "$out/points/base/stats.json" "$out/points/$m/stats.json"; then
    break
  fi
done
"$here/report.py" "$out" "$rate"
