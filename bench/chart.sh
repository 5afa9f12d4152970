#!/bin/sh
# bench/chart.sh DATA SVG [CORPUS] - render the search chart with gnuplot (gnuplot-nox)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
data=${1:-$BENCH_OUT/search.dat}
svg=${2:-$BENCH_OUT/search.svg}
title=$(printf '%s' "${3:-the corpus}" | tr -d "'\"")
[ -s "$data" ] || { say "chart: no data in $data"; exit 1; }
need gnuplot gnuplot-nox || exit 1
# A log scale when the slowest bar is 30 times the fastest.
log=$(awk '!/^#/ { for (i = NF - 2; i <= NF; i++) if ($i != "NaN") {
		if (min == "" || $i < min) min = $i; if ($i > max) max = $i } }
	END { print (min > 0 && max / min > 30) ? 1 : 0 }' "$data")
gnuplot -e "datafile='$data'; outfile='$svg'; logscale=$log; corpus='$title'" \
	bench/chart.gp
