# Tassel wake-up storm (issue 13, item 1): a QP at 80 Gb/s beside N QPs at 100 Kb/s (4 KB messages)
# that all come due together; the fast QP's largest gap (x its ideal 102.4 cycles) and its largest
# burst above its rate, against N. Input: build/tassel_storm --csv FILE
# (n,gap_cycles,gap_x,burst_bytes,rate_err_pct, then the same four for the ranked option);
# -e "csv='...'; out='...'".
# Dashed: what a FIFO costs on paper -- the fast QP waits behind N slow packets on the link
# (N x 4096 B at 100 Gb/s = N x 81.92 cycles) and then owes 80 Gb/s x that wait.
set terminal pngcairo size 900,700 font ",11"
set output out
set datafile separator ","
set multiplot layout 2,1 title "rnicq Tassel: slow QPs coming due together starve a fast QP in the FIFO schedule queue, not in the ranked one"
set logscale x
set format x "10^{%L}"
set xrange [50:32000]
set xlabel "slow QPs (100 Kb/s each) due together"
set grid
set key top left box opaque
ideal = 4096.0 * 8 * 250e6 / 80e9
set title "largest gap between the fast QP's packets (ideal 102.4 cycles; issue 13's target with the option: <= 2x)"
set logscale y
set format y "10^{%L}"
set ylabel "largest gap (x ideal)"
set yrange [0.5:1e5]
plot csv using 1:3 skip 1 with linespoints pt 7 lw 2 lc rgb "#c03020" title "FIFO (paper's schedule queue)", \
     [50:32000] x * 81.92 / ideal with lines dt 2 lc 0 title "N slow packets on the link (N x 81.92 cycles)", \
     csv using 1:7 skip 1 with linespoints pt 5 lw 2 lc rgb "#2060c0" title "ranked option (RL\\_SCHEDULE\\_RANKED)", \
     [50:32000] 2 with lines dt 3 lw 2 lc rgb "#208020" title "target: 2x ideal"
set title "largest burst above its rate: max over runs of its packets of (bytes - 80 Gb/s x time)"
set logscale y
set ylabel "burst (MB)"
set yrange [0.001:100]
plot csv using 1:($4 / 1e6) skip 1 with linespoints pt 7 lw 2 lc rgb "#c03020" title "FIFO", \
     csv using 1:($8 / 1e6) skip 1 with linespoints pt 5 lw 2 lc rgb "#2060c0" title "ranked option", \
     [50:32000] x * 81.92 * 40 / 1e6 with lines dt 2 lc 0 title "80 Gb/s x that wait", \
     [50:32000] 4096 / 1e6 with lines dt 3 lw 2 lc rgb "#208020" title "one packet (a paced stream)"
unset multiplot
