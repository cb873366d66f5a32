# Gantt chart of one training step: one row per resource, a bar per busy interval.
#   gnuplot -e "in='timeline.dat'; out='timeline.png'; nrows=N; ylabels='...'" timeline.gp
# `in` is prepared by plot.sh from timeline.csv: "row start_us end_us category" per interval,
# whitespace separated; ytics is a gnuplot tics list naming each row.
if (!exists("term")) term = "pngcairo"
h = 140 + 26 * nrows
if (term eq "pngcairo") {
    set terminal pngcairo size 1400,h font "sans,10" noenhanced
} else {
    set terminal png size 1400,h noenhanced
}
set output out
set title "Where the time of one step went" . (exists("run") ? " - " . run : "")
set xlabel "simulated time (us)"
set yrange [nrows - 0.5:-0.5]
eval "set ytics (" . ylabels . ")"
set ytics nomirror scale 0
set grid xtics
set key outside right top box
set style fill solid 0.9 noborder
# Category colours: compute, flash, fabric, optimizer (Weight Node), other.
array col[5] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#7f7f7f"]
array nam[5] = ["compute (core, dma, vu)", "flash", "fabric", "optimizer", "other"]
# `used` (from plot.sh): a digit per category, 1 when the step has intervals of it.
if (!exists("used")) used = "11111"
set xrange [0:*]
plot for [k=1:5] in using (($4 == k) ? ($2 + $3) / 2 : NaN):1:(($3 - $2) / 2):(0.38) \
        with boxxyerror lc rgb col[k] title (used[k:k] eq "1" ? nam[k] : "")
