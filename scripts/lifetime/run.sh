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
# cycles per year at its write rate (an0.flash.V.pe_per_year of stats.json), and the Weight
# Node's at its busiest stream's; the life point at year Y is then one iteration with each node
# aged by its own rate (`--fault age:pe=N,days=0,node=an|wn`, N = Y x the node's rate) and
# wear-out on (`--fault wear`): every block has the P/E cycles of year Y, the FTL finds the
# blocks failed by then and takes spares for them, and the fault model draws every page's
# errors at its RBER there. Points at 0, 1/4, 1/2, 3/4 and 1 of the rated life (the V stream's 2M P/E), then past
# it (blocks kept in service beyond their rating: 2x, 5x, 10x, 15x, 20x, 25x) until an
# iteration is more than 1% slower than the fault-free one or fails. --quick: the points 0,
# 0.25, 1 and 15 only (under a minute). Writes OUT/lifetime.csv, OUT/report.md and OUT/lifetime.png
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
print("%.6f" % s["pe_per_year"]["value"])' "$out/points/base/stats.json") || exit 1
wrate=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]["wn"]["flash"]
print("%.6f" % max(v["pe_per_year"]["value"] for v in s.values() if "pe_per_year" in v))' \
  "$out/points/base/stats.json") || exit 1
echo "lifetime: the V stream takes $rate P/E cycles a year (2M in $(python3 -c "print('%.1f' % (2e6 / $rate))") years), the WN's busiest stream $wrate"

if [ $quick = 1 ]; then
  multiples="0 0.25 1 15"
else
  multiples="0 0.05 0.1 0.15 0.2 0.25 0.5 0.75 1 2 5 10 15 20 25"
fi
# Every node aged by its own rate, wear-out on, until a point fails (the machine's first limit:
# a node's spares run out, or an uncorrectable page); the points after it are the V stream's
# bit errors alone (the ANs aged, the WN not, no wear-out: blocks as if replaced from an
# unlimited pool), to show where bit errors alone would end it. Each point's series in
# OUT/points/<m>/series.
series=machine
for m in $multiples; do
  pe=$(python3 -c "print(round($m * 2e6))")
  wpe=$(python3 -c "print(round($m * 2e6 / $rate * $wrate))")
  years=$(python3 -c "print('%.1f' % ($m * 2e6 / $rate))")
  if [ $series = machine ]; then
    set -- --fault "age:pe=$pe,days=0,node=an" --fault "age:pe=$wpe,days=0,node=wn" --fault wear
  else
    set -- --fault "age:pe=$pe,days=0,node=an"
  fi
  if perf "$m" "$@" --fault seed:n=1; then
    echo "lifetime: ${m}x the rated P/E ($pe cycles, year $years, $series): done"
  else
    grep -m1 '^flashstream' "$out/points/$m/log.txt" >"$out/points/$m/failed.txt"
    echo "lifetime: ${m}x the rated P/E ($pe cycles, year $years, $series): the iteration" \
      "failed ($(cut -c1-200 "$out/points/$m/failed.txt"))"
    echo $series >"$out/points/$m/series"
    [ $series = machine ] || break
    series=bit-errors
    continue
  fi
  echo $series >"$out/points/$m/series"
  # past the rating, stop at the first point more than 1% slower than the fault-free iteration
  if python3 -c '
import json, sys
it = lambda p: json.load(open(p))["stats"]["perf"]["iteration_ps"]["value"]
sys.exit(0 if it(sys.argv[2]) > 1.01 * it(sys.argv[1]) else 1)' \
    "$out/points/base/stats.json" "$out/points/$m/stats.json"; then
    break
  fi
done
"$here/report.py" "$out" "$rate" "$wrate"
