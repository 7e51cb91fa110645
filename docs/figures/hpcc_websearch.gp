# The HPCC paper's web-search experiment on the fabric (tools/exp_hpcc_websearch.sh): FCT slowdown
# against flow size, DCQCN, k = 4 fat tree (16 hosts, every link 100 Gb/s), 30 % and 50 % load.
# Input: -e "dir='build/hpcc_websearch'; out='...png'"
# CSV DIR/buckets_<load>.csv (rnic_model --fct-buckets-csv), one row per size tenth, columns:
#  1 bucket, 2 max_size_bytes (x: the tenth's largest flow), 3 flows, 4 slowdown_p50,
#  5 slowdown_p95, 6 slowdown_p99 (the HPCC analysis's nearest-rank percentiles).
set terminal pngcairo size 1500,480 font ",10"
set output out
set datafile separator ","
set multiplot layout 1,3 title "HPCC paper's web search on the fabric: FCT slowdown per size tenth (DCQCN, k = 4 fat tree, 100 Gb/s hosts)"
set grid
set logscale x
set format x "10^{%L}"
set xlabel "flow size, the tenth's largest (bytes)"
set ylabel "FCT slowdown"
set yrange [1:*]
set key top left
do for [c in "4 5 6"] {
    col = int(c)
    set title (col == 4 ? "median" : col == 5 ? "95th percentile" : "99th percentile")
    plot dir.'/buckets_30.csv' every ::1 using 2:col with linespoints pt 7 title "30 % load", \
         dir.'/buckets_50.csv' every ::1 using 2:col with linespoints pt 5 title "50 % load"
}
unset multiplot
