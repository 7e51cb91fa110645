# The built-in incast (rnic_model without --scenario: hosts 1 and 2 send to host 0 through one
# switch) under RoCEv2 + DCQCN paced by Tassel, on the fabric. Per-QP payload throughput measured
# at the receiver over the window against an equal share of what the receiver absorbed (every QP
# has the same path, weight and no cap, so max-min gives each the same), per-QP FCT p50 / p99,
# and the switch port to the receiver over time.
# Input: build/rnic_model --csv FILE --queue-csv QFILE; -e "csv='...'; qcsv='...'; out='...'"
set terminal pngcairo size 1000,1100 font ",11"
set output out
set datafile separator ","
stats csv using 5 skip 1 nooutput
equal = STATS_sum / STATS_records
set multiplot layout 3,1
set key top right
set grid
set style fill solid 0.6
set boxwidth 0.8
set xlabel "QP (host 1 first, then host 2; on each host tenant 0 (bulk, 64 KB .. 1 MB) then tenant 1 (background, 1 .. 16 KB))"
set ylabel "payload Gb/s"
set yrange [0:*]
set xrange [-1:*]
set title "2:1 incast at 100 Gb/s under DCQCN: measured throughput per QP (bars) vs an equal share (line)"
plot csv using 1:($4 == 0 ? $5 : 1/0) skip 1 with boxes lc rgb "#3070c0" title "tenant 0 (bulk)", \
     csv using 1:($4 == 1 ? $5 : 1/0) skip 1 with boxes lc rgb "#40a040" title "tenant 1 (background)", \
     equal with lines lw 2 lc rgb "#c03030" title sprintf("equal share %.2f Gb/s", equal)
set ylabel "FCT (us)"
set logscale y
set yrange [*:*]
set title "message completion time in the window, post -> last byte checked at the receiver (8 messages outstanding per QP)"
plot csv using 1:($7 > 0 ? $7 : 1/0) skip 1 with points pt 7 ps 0.9 lc rgb "#3070c0" title "p50", \
     csv using 1:($8 > 0 ? $8 : 1/0) skip 1 with points pt 5 ps 0.9 lc rgb "#c03030" title "p99"
unset logscale y
set xrange [*:*]
set yrange [0:*]
set xlabel "time (us)"
set ylabel "queue (KB)"
set title "the switch port to the receiver (sw0 -> h0): queue every 10 us of the window (RED marks 400 .. 1600 KB)"
plot qcsv using 1:(strcol(3) eq "sw0" && strcol(4) eq "h0" ? $5/1024 : 1/0) skip 1 with points pt 7 ps 0.4 lc rgb "#3070c0" title "queued bytes (sampled)"
unset multiplot
