#!/usr/bin/env bash
# Write the performance table of a `make bench` run into a Markdown file.
#
#   scripts/bench-table.sh LOG DOC
#
# LOG is the output of the benchmarks; each of its lines "figure | WHAT | MEASURED | TARGET"
# (testbench/bench_util.h, bench_figure) becomes a row. The table replaces what stands
# between DOC's two bench-table marker lines; the rest of DOC is kept byte for byte, and DOC is
# replaced atomically. So the table is always one run's output, never edited by hand.
set -uo pipefail
die() { echo "bench-table: $*" >&2; exit 1; }
[ $# -eq 2 ] || { echo "usage: scripts/bench-table.sh LOG DOC" >&2; exit 2; }
log=$1 doc=$2
begin='<!-- bench-table: written by `make bench`; edit the benchmarks, not these lines -->'
end='<!-- bench-table end -->'
[ -f "$log" ] || die "no log $log"
grep -qxF -- "$begin" "$doc" && grep -qxF -- "$end" "$doc" ||
  die "$doc needs the lines '$begin' and '$end' around the place for the table"
rows=$(grep '^figure | ' "$log" | sed -e 's/^figure //' -e 's/ *$/ |/') || die "$log has no 'figure |' line"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)

table=$(
  echo "$begin"
  echo
  echo "Measured by \`make bench\` on $(date +%F): $(nproc) cores${cpu:+, $cpu}, load average ${load:-?} at the end."
  echo
  echo "| figure | measured | target |"
  echo "|---|---|---|"
  echo "$rows"
  echo
  echo "$end"
)
tmp=$(mktemp "$doc.XXXXXX") || die "cannot create a temporary file beside $doc"
awk -v begin="$begin" -v end="$end" -v table="$table" '
  $0 == begin { print table; skip = 1; next }
  $0 == end { skip = 0; next }
  !skip' "$doc" >"$tmp" && mv -f "$tmp" "$doc" || { rm -f "$tmp"; die "cannot write $doc"; }
echo "bench-table: $(grep -c . <<<"$rows") figures written into $doc"
