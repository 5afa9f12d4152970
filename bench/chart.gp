# bench/chart.gp - grouped bar chart of the search benchmark (gnuplot)
#
# gnuplot -e "datafile='search.dat'; outfile='search.svg'; logscale=0; corpus='...'" bench/chart.gp
# datafile rows: "pattern" wickfs_s rg_s grep_s (mean wall time, seconds)

set terminal svg size 1000,500 dynamic font "sans,13" background "white"
set output outfile
set termoption noenhanced
set title "wickfs grep, rg and GNU grep: mean wall time per pattern (lower is better)\n" . corpus
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics lc rgb "#dddddd"
set xtics nomirror scale 0 font "monospace,11"
set ytics nomirror
set border 3
if (logscale) {
	set logscale y
	set ylabel "seconds (log scale)"
} else {
	set yrange [0:*]
	set ylabel "seconds"
}
plot datafile using 2:xtic(1) title "wickfs grep" lc rgb "#d95f02", \
     '' using 3 title "rg" lc rgb "#1b9e77", \
     '' using 4 title "GNU grep" lc rgb "#7570b3"
