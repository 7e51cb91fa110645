# The composed RNIC (make run): per-QP payload throughput measured at the receiver vs expected
# (Tassel's rule, rate / max(1, Phi)), and per-QP message latency p50 / p99.
# Input: build/rnic_model --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 1000,760 font ",11"
set output out
set datafile separator ","
set multiplot layout 2,1
set key top right
set grid
set style fill solid 0.6
set boxwidth 0.8
set xlabel "QP (host 0: 0..23, host 1: 24..47; tenant 0 then tenant 1 on each host)"
set ylabel "payload Gb/s"
set yrange [0:*]
set xrange [-1:*]
set title "composed RNIC: measured throughput (bars, by tenant) vs expected (points)"
plot csv using 1:($3 == 0 ? $7 : 1/0) skip 1 with boxes lc rgb "#3070c0" title "tenant 0 (weight 2, 2 Gb/s per QP)", \
     csv using 1:($3 == 1 ? $7 : 1/0) skip 1 with boxes lc rgb "#40a040" title "tenant 1 (weight 1, 1.5 Gb/s per QP)", \
     csv using 1:6 skip 1 with points pt 7 ps 1.0 lc rgb "#c03030" title "expected"
set ylabel "latency (us)"
set logscale y
set yrange [*:*]
set title "message latency, post -> last byte at the receiver (8 messages outstanding per QP)"
plot csv using 1:12 skip 1 with points pt 7 ps 0.9 lc rgb "#3070c0" title "p50", \
     csv using 1:13 skip 1 with points pt 5 ps 0.9 lc rgb "#c03030" title "p99"
unset multiplot
