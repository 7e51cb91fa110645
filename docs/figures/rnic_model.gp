# The composed RNIC (make run): a 2:1 incast under RoCEv2 + DCQCN paced by Tassel. Per-QP payload
# throughput measured at the receiver vs its max-min fair share, per-QP FCT p50 / p99, and the
# bottleneck queue over time.
# Input: build/rnic_model --csv FILE --queue-csv QFILE; -e "csv='...'; qcsv='...'; out='...'"
set terminal pngcairo size 1000,1100 font ",11"
set output out
set datafile separator ","
set multiplot layout 3,1
set key top right
set grid
set style fill solid 0.6
set boxwidth 0.8
set xlabel "QP (host 0 first, then host 1; on each host tenant 0 (incast, 64 KB .. 1 MB) then tenant 1 (background, 1 .. 16 KB))"
set ylabel "payload Gb/s"
set yrange [0:*]
set xrange [-1:*]
set title "2:1 incast at 100 Gb/s under DCQCN: measured throughput (bars) vs max-min fair share (points)"
plot csv using 1:($3 == 0 ? $7 : 1/0) skip 1 with boxes lc rgb "#3070c0" title "tenant 0 (incast)", \
     csv using 1:($3 == 1 ? $7 : 1/0) skip 1 with boxes lc rgb "#40a040" title "tenant 1 (background)", \
     csv using 1:6 skip 1 with points pt 7 ps 1.0 lc rgb "#c03030" title "fair share"
set ylabel "FCT (us)"
set logscale y
set yrange [*:*]
set title "message completion time, post -> last byte at the receiver (8 messages outstanding per QP)"
plot csv using 1:12 skip 1 with points pt 7 ps 0.9 lc rgb "#3070c0" title "p50", \
     csv using 1:13 skip 1 with points pt 5 ps 0.9 lc rgb "#c03030" title "p99"
unset logscale y
set xrange [*:*]
set yrange [0:*]
set xlabel "time (us)"
set ylabel "queue (KB)"
set title "the switch port to the receiver: queue every 10 us (RED marks 400 .. 1600 KB; PFC XOFF at 1 MB per ingress)"
plot qcsv using 1:($2/1024) skip 1 with lines lw 1.5 lc rgb "#3070c0" title "queued bytes"
unset multiplot
