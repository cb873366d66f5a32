# Training loss per step (left axis, with a moving average) and learning rate (right axis).
#   gnuplot -e "in='out/run/loss.csv'; out='out/run/loss.png'; term='pngcairo'" loss.gp
# loss.csv: step,epoch,loss,lr,... with a header row (written by `flashstream train`).
if (!exists("term")) term = "pngcairo"
if (term eq "pngcairo") {
    set terminal pngcairo size 1000,560 font "sans,11" noenhanced
} else {
    set terminal png size 1000,560 noenhanced
}
set output out
set datafile separator comma
set key top right box opaque
set title "Training loss" . (exists("run") ? " - " . run : "")
set xlabel "step"
set ylabel "loss (mean cross-entropy of the batch)"
set y2label "learning rate"
set ytics nomirror
set y2tics
set grid xtics ytics
set yrange [0:*]

stats in using (column("lr")) nooutput
lrmax = STATS_max > 0 ? STATS_max : 1
set y2range [0:lrmax * 1.15]
set format y2 "%g"
n_rows = STATS_records

# Moving average over a window of about 1/40 of the run (at least 1 step).
N = n_rows >= 80 ? int(n_rows / 40) : 1
array B[N]
cnt = 0
s = 0
push(x) = (cnt = cnt + 1, ix = int(cnt - 1) % N + 1, s = s - (cnt > N ? B[ix] : 0) + x, \
           B[ix] = x, s / (cnt < N ? cnt : N))

plot in using (column("step")):(column("loss")) with lines lw 1 lc rgb "#a6c8e6" title "loss", \
     in using (column("step")):(push(column("loss"))) with lines lw 2.5 lc rgb "#1f4e9e" \
        title sprintf("mean of %d steps", N), \
     in using (column("step")):(column("lr")) axes x1y2 with lines lw 1.5 dt 2 \
        lc rgb "#ff7f0e" title "lr"
