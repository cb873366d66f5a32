# Test accuracy after each epoch.
#   gnuplot -e "in='out/run/accuracy.csv'; out='out/run/accuracy.png'" accuracy.gp
# accuracy.csv: epoch,step,test_accuracy,... with a header row.
if (!exists("term")) term = "pngcairo"
if (term eq "pngcairo") {
    set terminal pngcairo size 1000,560 font "sans,11" noenhanced
} else {
    set terminal png size 1000,560 noenhanced
}
set output out
set datafile separator comma
set key bottom right box opaque
set title "Test accuracy" . (exists("run") ? " - " . run : "")
set xlabel "step"
set ylabel "test accuracy"
set yrange [0:1]
set ytics 0.1
set grid xtics ytics
set xrange [0:*]
set offsets 0, graph 0.03, 0, 0
plot in using (column("step")):(column("test_accuracy")) with linespoints pt 7 ps 1.4 lw 2 \
        lc rgb "#2ca02c" title "after each epoch", \
     in using (column("step")):(column("test_accuracy")):(sprintf("%.3f", column("test_accuracy"))) \
        with labels offset 0,1.2 notitle
