#!/usr/bin/env bash
# Check the waveform path end to end: a block test writes an FST, fst2vcd
# reads it back, every signal that the GTKWave save file shows is in it, and the save file
# opens on a window where the block is working.
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

# The save file opens on a window where the block works: its start ([timestart]) and zoom (the
# "*Z" line; GTKWave shows 2^-Z time units per 200 pixels over the waves' width, [size] less the
# tree and the names) hold changes of at least three of its signals (clock and reset aside)
# after the trace's first time, not flat lines.
window=$(python3 - "$gtkw" "$outdir/dump.vcd" <<'PY'
import re, sys
gtkw = open(sys.argv[1]).read()
def key(k, d=0):
    m = re.search(r"^\[" + k + r"\] (\d+)", gtkw, re.M)
    return int(m.group(1)) if m else d
zoom = re.search(r"^\*(-?[0-9.]+)", gtkw, re.M)
px = key("size", 1000) - key("sst_width") - key("signals_width")
t0 = key("timestart")
t1 = t0 + px / 200 * 2 ** -float(zoom.group(1) if zoom else 0)
want = {re.sub(r"\[[0-9:]*\]$", "", l.strip()) for l in gtkw.splitlines() if l.startswith("TOP.")}
scope, code_of, moved, first, t = [], {}, set(), None, 0
with open(sys.argv[2]) as f:
    for line in f:
        p = line.split()
        if not p:
            continue
        if p[0] == "$scope":
            scope.append(p[2])
        elif p[0] == "$upscope":
            scope.pop()
        elif p[0] == "$var":
            name = ".".join(scope + [p[4]])
            if name in want and not re.search(r"clk|rst", p[4]):
                code_of.setdefault(p[3], set()).add(name)
        elif line[0] == "#":
            t = int(line[1:])
            first = t if first is None else first
        elif first is not None and first < t and t0 <= t <= t1:
            code = p[1] if line[0] in "bBrR" else line.strip()[1:]
            moved |= code_of.get(code, set())
print(f"{t0} {t1:.0f} {len(moved)}")
PY
) || die "cannot read the window of $gtkw"
read -r w0 w1 wmoved <<<"$window"
[ "$wmoved" -ge 3 ] ||
  die "$gtkw opens on $w0..$w1 ps, where $wmoved of its signals change; set [timestart] and the zoom line on the block's first activity"

if [ -z "$test_bin" ]; then
  echo "check-waves: $fst ok ($changes time steps, $(wc -l <<<"$signals") save-file signals found, $wmoved moving in its window $w0..$w1 ps)"
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

echo "check-waves: $fst ok ($changes time steps, $(wc -l <<<"$signals") save-file signals found, $wmoved moving in its window $w0..$w1 ps)"
