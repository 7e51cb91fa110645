# RED-SEA QoS engine + send-unit model: throughput vs transfer size (thesis Fig. 4.5/4.6).
# Input: build/qos_throughput --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 900,560 font ",11"
set output out
set datafile separator ","
set logscale x 2
set format x "2^{%L}"
set xlabel "transfer size (bytes)"
set ylabel "throughput (Gb/s)"
set yrange [0:78]
set key bottom right
set grid
set title "rnicq QoS engine, 150 MHz, 512-bit datapath, 1 KB packets (thesis Fig. 4.5/4.6)"
set arrow from 8,68.3 to 4194304,68.3 nohead dt 2 lc 0
set label "68.3 Gb/s maximum (thesis)" at 16,70.5
set label "thesis: 21.6 Gb/s at 128 B, outstanding" at 128,21.6 point pt 6 ps 1.5 lc rgb "#00a0a0" offset 1,-1
set label "thesis: line rate from 16 KB, outstanding" at 16384,68.3 point pt 6 ps 1.5 lc rgb "#00a0a0" offset -6,-2
plot csv using 1:2 skip 1 with linespoints pt 7 lc rgb "#1060c0" title "one transfer at a time (model)", \
     csv using 1:4 skip 1 with linespoints pt 5 lc rgb "#00a0a0" title "32 outstanding, collective polling (model)"
