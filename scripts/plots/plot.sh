#!/usr/bin/env bash
# Render the plots of a training run from the CSV files `flashstream train` wrote.
#
#   scripts/plots/plot.sh OUTDIR
#
# Reads, when present, OUTDIR/loss.csv (step,epoch,loss,lr,...), OUTDIR/accuracy.csv
# (epoch,step,test_accuracy,...) and OUTDIR/timeline.csv (resource,start_us,end_us,label: one
# training step's busy intervals) and writes OUTDIR/loss.png, accuracy.png and timeline.png
# (each written to a temporary name first, then renamed); a loss.csv without a finite loss (a
# --fidelity perf run: "nan") gives no loss.png. Needs gnuplot (Debian: gnuplot-nox;
# `make deps` installs it). Exits 1 when gnuplot is missing or no CSV file is there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  echo "usage: $0 OUTDIR   (a directory written by 'flashstream train')" >&2
  exit 2
fi
dir=${1%/}
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot is not installed; install it with 'apt-get install gnuplot-nox' (or 'make deps')" >&2
  exit 1
fi
if [ ! -d "$dir" ]; then
  echo "plot.sh: '$dir' is not a directory; give the output directory of a 'flashstream train' run" >&2
  exit 1
fi
# pngcairo gives antialiased output; plain png (libgd) is the fallback.
term=png
if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then term=pngcairo; fi
run=$(basename "$(cd "$dir" && pwd)")

# rows CSV: data rows of a CSV file (header excluded).
rows() { if [ -f "$1" ]; then tail -n +2 "$1" | grep -c . || true; else echo 0; fi; }
# has_loss CSV: some row of loss.csv has a loss that is a number (perf writes "nan").
has_loss() { awk -F, 'NR > 1 && $3 != "nan" && $3 != "" { found = 1 } END { exit !found }' "$1"; }

render() { # script csv png [extra gnuplot -e text]
  local gp=$1 in=$2 out=$3 extra=${4:-}
  local tmp="$out.tmp.png"
  if ! gnuplot -e "in='$in'; out='$tmp'; term='$term'; run='$run'; $extra" "$here/$gp" 2>"$tmp.log"; then
    echo "plot.sh: gnuplot failed on $in:" >&2
    sed 's/^/  /' "$tmp.log" >&2
    rm -f "$tmp" "$tmp.log"
    return 1
  fi
  rm -f "$tmp.log"
  mv -f "$tmp" "$out"
  echo "plot.sh: wrote $out"
}

made=0
if [ "$(rows "$dir/loss.csv")" -gt 0 ]; then
  if has_loss "$dir/loss.csv"; then
    render loss.gp "$dir/loss.csv" "$dir/loss.png"
    made=$((made + 1))
  else
    echo "plot.sh: $dir/loss.csv has no loss (a perf run): no loss.png"
  fi
fi
if [ "$(rows "$dir/accuracy.csv")" -gt 0 ]; then
  render accuracy.gp "$dir/accuracy.csv" "$dir/accuracy.png"
  made=$((made + 1))
fi
if [ "$(rows "$dir/timeline.csv")" -gt 0 ]; then
  dat=$(mktemp)
  trap 'rm -f "$dat"' EXIT
  # Rows in order of first appearance; a category per resource name. The label column (4th,
  # maybe quoted with commas) is not needed: split on the first three commas only.
  awk -F, -v dat="$dat" '
    BEGIN { n = 0 }
    NR == 1 { next }
    {
      res = $1; gsub(/"/, "", res)
      if (!(res in row)) { row[res] = n; name[n] = res; n++ }
      cat = 5
      if (res ~ /core|dma|vu/) cat = 1
      else if (res ~ /flash/) cat = 2
      else if (res ~ /fabric|link|pcie/) cat = 3
      else if (res ~ /opt/) cat = 4
      printf "%d %s %s %d\n", row[res], $2, $3, cat > dat
      used[cat] = 1
    }
    END {
      printf "%d\n", n
      for (k = 1; k <= 5; k++) printf "%d", (k in used)
      printf "\n"
      for (i = 0; i < n; i++) printf "%s\"%s\" %d", (i ? ", " : ""), name[i], i
      printf "\n"
    }' "$dir/timeline.csv" >"$dat.meta"
  nrows=$(sed -n 1p "$dat.meta")
  usedcats=$(sed -n 2p "$dat.meta")
  ylabels=$(sed -n 3p "$dat.meta" | sed "s/\"/'/g")
  rm -f "$dat.meta"
  render timeline.gp "$dat" "$dir/timeline.png" "nrows=$nrows; used='$usedcats'; ylabels=\"$ylabels\""
  made=$((made + 1))
fi
if [ "$made" -eq 0 ]; then
  echo "plot.sh: no loss.csv, accuracy.csv or timeline.csv with data in '$dir'" >&2
  exit 1
fi
