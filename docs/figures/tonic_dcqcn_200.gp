# Tonic §6.2.2 "Multiple Flows": 2 hosts x 100 DCQCN flows to one 40 Gb/s receiver for 1 s --
# per-flow throughput (the paper: 203 +- 0.2 Mb/s) and the distribution of CNPs over the flows.
# Input: build/tonic_dcqcn_200 --csv CSV; -e "csv='...'; out='...'"
# CSV columns: 1 flow, 2 host, 3 mbps, 4 cnps
set terminal pngcairo size 1000,800 font ",11"
set output out
set datafile separator ","
set multiplot layout 2,1
set grid
set key bottom right opaque
set title "200 DCQCN flows on a 40 Gb/s bottleneck: per-flow throughput over 1 s"
set xlabel "flow (0-99 host 0, 100-199 host 1)"
set ylabel "throughput (Mb/s, payload)"
set xrange [-1:200]
plot csv using 1:($2==0?$3:1/0) every ::1 with points pt 7 ps 0.6 lc rgb "#c03030" title "host 0", \
     csv using 1:($2==1?$3:1/0) every ::1 with points pt 7 ps 0.6 lc rgb "#3030c0" title "host 1", \
     203 with lines lw 2 dt 2 lc rgb "#000000" title "paper: 203 Mb/s"
set title "CNPs received per flow (histogram)"
set xlabel "CNPs per flow"
set ylabel "flows"
set xrange [*:*]
set yrange [0:*]
set style fill solid 0.6
stats csv using 4 every ::1 nooutput
bins = 20
width = (STATS_max > STATS_min) ? (STATS_max - STATS_min) / bins : 1
bin(x) = STATS_min + width * (floor((x - STATS_min) / width) + 0.5)
set boxwidth width * 0.9
plot csv using (bin($4)):(1) every ::1 smooth frequency with boxes lc rgb "#30a030" title "flows"
unset multiplot
