# RHCC paper Fig. 4 (Sec. 2.2): receiver throughput at 3x CPU memory contention (30.3 GB/s), PFC on,
# no RHCC, against the message size (64 KB .. 1 MB, 4 QPs) and the QP count (1 .. 8, 256 KB) -- the
# composed RNIC (build/rnic_model --host on); the paper: "the throughput slightly increases".
# Input: python3 tools/hostcc_experiments.py --csv-dir DIR; -e "dir='...'; out='...'"
# CSV DIR/hostcc_fig4.csv, one row per run, the size sweep then the QP sweep; columns 1-22 as in
# hostcc_fig2.gp (3 load_x, 5 size_kb, 6 qps, 7 rx_gbps, 8 fct_mean_us, 9 host_pause_us,
# 11 pcie_stalled_writes, 12 ddio_miss_pct, 24 pcie_stall_pct), 26 sweep ("size" or "qps"),
# 27 tput_over_first (throughput / the sweep's first point: 64 KB, 1 QP)
csv = dir.'/hostcc_fig4.csv'
set terminal pngcairo size 1300,550 font ",10"
set output out
set datafile separator ","
set multiplot layout 1,2 title "RHCC Fig. 4: receiver throughput at 3x contention, PFC on, no RHCC (paper: a slight increase with size and QPs)"
set grid
set key below
set style fill solid 0.6 border -1
set ylabel "receiver throughput (Gb/s)"
set y2label "% (DDIO miss rate; PCIe stall time share)"
set y2range [0:105]
set y2tics
set yrange [0:*]
set offsets 0, 0, graph 0.15, 0
set title "(a) against the message size (4 QPs)"
set xlabel "message size (KB)"
set logscale x 2
set xrange [45:1450]
set xtics (64, 128, 256, 512, 1024)
set boxwidth 0.6 relative
bw(x) = x * 0.18
plot csv using 5:(strcol(26) eq "size" ? $7 : 1/0):(bw($5)) skip 1 with boxes lc rgb "#3070c0" title "model", \
     csv using 5:(strcol(26) eq "size" ? $7 : 1/0):(sprintf("%.1f", $7)) skip 1 with labels offset 0,0.8 notitle, \
     csv using 5:(strcol(26) eq "size" ? $12 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc rgb "#808080" title "DDIO miss (right)", \
     csv using 5:(strcol(26) eq "size" ? $24 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 3 pt 4 lc rgb "#c03030" title "PCIe stall time (right)"
unset logscale x
set title "(b) against the QP count (256 KB messages)"
set xlabel "QPs"
set xrange [0.5:8.5]
set xtics (1, 2, 4, 8)
plot csv using 6:(strcol(26) eq "qps" ? $7 : 1/0):(0.6) skip 1 with boxes lc rgb "#3070c0" title "model", \
     csv using 6:(strcol(26) eq "qps" ? $7 : 1/0):(sprintf("%.1f", $7)) skip 1 with labels offset 0,0.8 notitle, \
     csv using 6:(strcol(26) eq "qps" ? $12 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc rgb "#808080" title "DDIO miss (right)", \
     csv using 6:(strcol(26) eq "qps" ? $24 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 3 pt 4 lc rgb "#c03030" title "PCIe stall time (right)"
unset multiplot
