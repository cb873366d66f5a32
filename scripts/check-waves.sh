#!/usr/bin/env bash
# Check the waveform path end to end: a block test writes an FST, fst2vcd
# reads it back, and every signal that the GTKWave save file shows is in it.
#
#   check-waves.sh TEST_BINARY SAVE_FILE.gtkw OUTDIR
set -euo pipefail
test_bin=$1 gtkw=$2 outdir=$3
mkdir -p "$outdir"
fst="$outdir/$(basename "$gtkw" .gtkw).fst"
rm -f "$fst"

"$test_bin" --waves "$fst" >"$outdir/test.log" 2>&1 || {
  echo "check-waves: $test_bin failed; see $outdir/test.log" >&2
  exit 1
}
[ -s "$fst" ] || { echo "check-waves: $fst was not written" >&2; exit 1; }
[ ! -e "$fst.tmp" ] || { echo "check-waves: $fst.tmp left behind" >&2; exit 1; }

fst2vcd -f "$fst" -o "$outdir/dump.vcd" >/dev/null 2>&1 || {
  echo "check-waves: fst2vcd cannot read $fst" >&2
  exit 1
}
grep -q '^\$enddefinitions' "$outdir/dump.vcd" || { echo "check-waves: no VCD header" >&2; exit 1; }
changes=$(grep -c '^#' "$outdir/dump.vcd")
[ "$changes" -gt 100 ] || { echo "check-waves: only $changes time steps in the trace" >&2; exit 1; }

# Signals of the save file ("TOP.scope.name" lines) must exist in the dump.
missing=0
while read -r sig; do
  leaf=${sig##*.}
  leaf=${leaf%%[*}
  grep -qE "^\\\$var .* ${leaf}( |\\[)" "$outdir/dump.vcd" || { echo "check-waves: $sig not in the trace" >&2; missing=1; }
done < <(grep -E '^TOP\.' "$gtkw")
[ $missing -eq 0 ]
# A trace limited to a cycle window and a scope list holds just those.
"$test_bin" --waves "$outdir/scoped.fst" --window 100:199 \
  --scopes "$(grep -m2 -E '^TOP\.' "$gtkw" | tail -1)" >/dev/null 2>&1
fst2vcd -f "$outdir/scoped.fst" -o "$outdir/scoped.vcd" >/dev/null 2>&1
vars=$(grep -c '^\$var' "$outdir/scoped.vcd")
times=$(grep -E '^#[0-9]+' "$outdir/scoped.vcd" | tr -d '#' | sort -n | sed -n '1p;$p' | tr '\n' ' ')
[ "$vars" -eq 1 ] || { echo "check-waves: scoped trace has $vars signals, expected 1" >&2; exit 1; }
[ "$times" = "100000 199500 " ] || { echo "check-waves: window 100:199 gave times $times ps" >&2; exit 1; }

echo "check-waves: $fst ok ($changes time steps, $(grep -cE '^TOP\.' "$gtkw") save-file signals found)"
