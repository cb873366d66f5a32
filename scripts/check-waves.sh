#!/usr/bin/env bash
# Check the waveform path end to end: a block test writes an FST, fst2vcd
# reads it back, and every signal that the GTKWave save file shows is in it.
#
#   check-waves.sh TEST_BINARY SAVE_FILE.gtkw OUTDIR
#   check-waves.sh FILE.fst SAVE_FILE.gtkw OUTDIR
#
# The second form checks an FST some other run wrote (flashstream train's waves) the same way,
# without the block test's scoped-trace check, and matches signals by path only: the save files'
# bit ranges are the block test's parameters, and the machine's blocks are built wider.
#
# Every failure prints one line "check-waves: <what>" and exits 1. No `set -e`: a command
# that fails is checked where it runs, so none can end the script without a word.
set -uo pipefail
die() { echo "check-waves: $*" >&2; exit 1; }
[ $# -eq 3 ] || { echo "usage: check-waves.sh TEST_BINARY|FILE.fst SAVE_FILE.gtkw OUTDIR" >&2; exit 2; }
test_bin=$1 gtkw=$2 outdir=$3
[ -f "$gtkw" ] || die "no save file $gtkw"
mkdir -p "$outdir" || die "cannot create $outdir"
if [[ "$test_bin" == *.fst ]]; then
  fst=$test_bin
  test_bin=""
  [ -s "$fst" ] || die "$fst was not written"
else
  [ -x "$test_bin" ] || die "$test_bin is not an executable; build it first (make build)"
  fst="$outdir/$(basename "$gtkw" .gtkw).fst"
  rm -f "$fst"
  "$test_bin" --waves "$fst" >"$outdir/test.log" 2>&1 || die "$test_bin failed; see $outdir/test.log"
  [ -s "$fst" ] || die "$fst was not written"
  [ ! -e "$fst.tmp" ] || die "$fst.tmp left behind"
fi

fst2vcd -f "$fst" -o "$outdir/dump.vcd" >/dev/null 2>&1 || die "fst2vcd cannot read $fst"
grep -q '^\$enddefinitions' "$outdir/dump.vcd" || die "no VCD header in $outdir/dump.vcd"
changes=$(grep -c '^#' "$outdir/dump.vcd")
[ "$changes" -gt 100 ] || die "only $changes time steps in the trace"

# Signals of the save file ("TOP.scope.name[range]" lines) must exist in the dump by their
# full path, so that a renamed register or a moved scope is caught, not only a vanished leaf.
signals=$(grep -E '^TOP\.' "$gtkw") || die "$gtkw lists no TOP.* signal"
awk '$1 == "$scope" { scope[++depth] = $3 }
     $1 == "$upscope" { depth-- }
     $1 == "$var" {
       path = ""
       for (i = 1; i <= depth; i++) path = path scope[i] "."
       print path $5 ($6 ~ /^\[/ ? $6 : "")
     }
     $1 == "$enddefinitions" { exit }' "$outdir/dump.vcd" >"$outdir/signals.txt" ||
  die "cannot list the signals of $outdir/dump.vcd"
if [ -z "$test_bin" ]; then # by path only (see above)
  signals=$(sed 's/\[[0-9:]*\]$//' <<<"$signals")
  sed -i 's/\[[0-9:]*\]$//' "$outdir/signals.txt"
fi
missing=""
while read -r sig; do
  grep -qxF -- "$sig" "$outdir/signals.txt" || missing+=" $sig"
done <<<"$signals"
[ -z "$missing" ] || die "signals of $gtkw not in the trace:$missing"

if [ -z "$test_bin" ]; then
  echo "check-waves: $fst ok ($changes time steps, $(wc -l <<<"$signals") save-file signals found)"
  exit 0
fi

# A trace limited to a cycle window and a scope list holds just those.
scope=$(sed -n 2p <<<"$signals")
[ -n "$scope" ] || die "$gtkw needs two TOP.* signals for the scoped-trace check"
"$test_bin" --waves "$outdir/scoped.fst" --window 100:199 --scopes "$scope" >"$outdir/scoped.log" 2>&1 ||
  die "$test_bin --window 100:199 --scopes $scope failed; see $outdir/scoped.log"
fst2vcd -f "$outdir/scoped.fst" -o "$outdir/scoped.vcd" >/dev/null 2>&1 || die "fst2vcd cannot read $outdir/scoped.fst"
vars=$(grep -c '^\$var' "$outdir/scoped.vcd")
times=$(grep -E '^#[0-9]+' "$outdir/scoped.vcd" | tr -d '#' | sort -n | sed -n '1p;$p' | tr '\n' ' ')
[ "$vars" -eq 1 ] || die "scoped trace has $vars signals, expected 1"
[ "$times" = "100000 199500 " ] || die "window 100:199 gave times '$times' ps, expected 100000 to 199500"

echo "check-waves: $fst ok ($changes time steps, $(wc -l <<<"$signals") save-file signals found)"
