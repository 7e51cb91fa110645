# RHCC paper Fig. 6 (Sec. 4): PFC on, one sender, one receiver, 4 QPs of 256 KB, CPU memory traffic
# 0x .. 3x, without RHCC (plain DCQCN) and with RHCC (receiver MBA controller + sender probes, Eq. 1/2),
# plus the variants at 3x: receiver only (rx), sender only (tx = the RHCC sender against plain DCQCN on
# the same host), hostCC-style ECN marking (ecn). The composed RNIC (build/rnic_model --host on) beside
# the paper's numbers (stalls -80 / -93 / -97 % at 1x / 2x / 3x, PFC pause -64 %, throughput up to x2,
# latency up to x1.4 at 3x), drawn as open marks relative to this model's run without RHCC.
# Input: python3 tools/hostcc_experiments.py --csv-dir DIR; -e "dir='...'; out='...'"
# CSV DIR/hostcc_fig6.csv, one row per run: rhcc off rows, both rows (by load), then rx, tx, ecn at 3x
# columns 1-25 as in hostcc_fig2.gp (1 variant, 3 load_x, 7 rx_gbps, 8 fct_mean_us, 9 host_pause_us,
# 11 pcie_stalled_writes, 17 mba_level_end, 20 r_rev_gbps, 21 r_cc_gbps, 23 pcie_stall_us,
# 24 pcie_stall_pct), then 26 stall_time_over_off, 27 pause_over_off, 28 tput_over_off,
# 29 lat_off_over_this (all against rhcc off at the same load), 30 paper_stall_ref (both rows 1x..3x,
# stall time), 31 paper_pause_ref, 32 paper_tput_ref, 33 paper_lat_ref (both row at 3x),
# 34 stalled_writes_over_off.
# PCIe back-pressure is the stall time (the ConnectX outbound_pci_stalled_wr that Neohost reads is a
# share of time); the count of writes that waited is drawn thin beside it.
csv = dir.'/hostcc_fig6.csv'
set terminal pngcairo size 1500,900 font ",10"
set output out
set datafile separator ","
set multiplot layout 2,3 title "RHCC Fig. 6: with and without RHCC, PFC on (model lines and bars; paper marks relative to the model's run without RHCC)"
set grid
set key top right
set xrange [-0.3:3.3]
set xtics ("0x" 0, "1x" 1, "2x" 2, "3x" 3)
set xlabel "CPU memory traffic (0x / 1x / 2x / 3x = 0 / 19.0 / 25.3 / 30.3 GB/s)"
wo = "#3070c0"
wi = "#c03030"
isv(s) = strcol(1) eq s
set title "(a) receiver throughput (paper: up to x2 at 3x)"
set ylabel "Gb/s"
set yrange [0:*]
set key bottom left
plot csv using 3:(isv("off") ? $7 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb wo title "without RHCC (DCQCN)", \
     csv using 3:(isv("both") ? $7 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb wi title "with RHCC", \
     csv using 3:(isv("both") ? $32 : 1/0) skip 1 with points pt 8 ps 2.5 lw 2 lc rgb wi title "paper: x2 of without"
set title "(b) mean message latency (paper: up to 1.4x lower at 3x)"
set ylabel "us (post -> completion)"
set key top left
plot csv using 3:(isv("off") ? $8 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb wo title "without RHCC", \
     csv using 3:(isv("both") ? $8 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb wi title "with RHCC", \
     csv using 3:(isv("both") ? $33 : 1/0) skip 1 with points pt 8 ps 2.5 lw 2 lc rgb wi title "paper: without / 1.4"
set title "(c) PFC pause duration (paper: -64 % at 3x)"
set ylabel "us paused (measurement window)"
plot csv using 3:(isv("off") ? $9 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb wo title "without RHCC", \
     csv using 3:(isv("both") ? $9 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb wi title "with RHCC", \
     csv using 3:(isv("both") ? $31 : 1/0) skip 1 with points pt 8 ps 2.5 lw 2 lc rgb wi title "paper: without x 0.36"
set title "(d) PCIe back-pressure: stall time (paper: -80 / -93 / -97 %)"
set ylabel "us stalled on credits (log)"
set y2label "writes that waited for credits (log)"
set y2tics
set logscale y
set logscale y2
set y2range [*:*]
set yrange [*:*]
plot csv using 3:(isv("off") && $23 > 0 ? $23 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb wo title "stall time, without RHCC", \
     csv using 3:(isv("both") && $23 > 0 ? $23 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb wi title "stall time, with RHCC", \
     csv using 3:(isv("both") && $30 > 0 ? $30 : 1/0) skip 1 with points pt 8 ps 2.5 lw 2 lc rgb wi title "paper: without x 0.20 / 0.07 / 0.03", \
     csv using 3:(isv("off") && $11 > 0 ? $11 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 4 lc rgb wo title "writes that waited, without (right)", \
     csv using 3:(isv("both") && $11 > 0 ? $11 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc rgb wi title "writes that waited, with (right)"
unset y2tics
unset y2label
unset logscale y2
unset logscale y
# the variants at 3x, against the run without RHCC at 3x
pos(s) = s eq "off" ? 0 : s eq "rx" ? 1 : s eq "tx" ? 2 : s eq "both" ? 3 : s eq "ecn" ? 4 : 1/0
set xrange [-0.6:4.6]
set xtics ("off" 0, "rx only" 1, "tx only" 2, "both" 3, "ecn" 4)
set xlabel "at 3x (rx: receiver MBA only, tx: sender probes only, ecn: hostCC-style)"
set offsets 0, 0, graph 0.3, 0
set style fill solid 0.6 border -1
set boxwidth 0.35
set yrange [0:*]
set key top left
set title "(e) the variants at 3x: throughput and latency gain over DCQCN alone"
set ylabel "x of the run without RHCC"
plot csv using (pos(strcol(1)) - 0.18):($3 == 3 ? $28 : 1/0) skip 1 with boxes lc rgb "#40a040" title "throughput gain", \
     csv using (pos(strcol(1)) + 0.18):($3 == 3 ? $29 : 1/0) skip 1 with boxes lc rgb "#a060c0" title "latency gain (without / with)", \
     "+" using (3 - 0.18):(2.0) every ::0::0 with points pt 8 ps 2.5 lw 2 lc rgb wi title "paper (both): x2 / x1.4", \
     "+" using (3 + 0.18):(1.4) every ::0::0 with points pt 8 ps 2.5 lw 2 lc rgb wi notitle
set title "(f) the variants at 3x: PCIe stall time and PFC pause / DCQCN alone"
set ylabel "fraction of the run without RHCC"
set yrange [0:*]
plot csv using (pos(strcol(1)) - 0.18):($3 == 3 ? $26 : 1/0) skip 1 with boxes lc rgb "#3070c0" title "PCIe stall time", \
     csv using (pos(strcol(1)) + 0.18):($3 == 3 ? $27 : 1/0) skip 1 with boxes lc rgb "#e0a020" title "PFC pause duration", \
     "+" using (3 - 0.18):(0.03) every ::0::0 with points pt 8 ps 2.5 lw 2 lc rgb wi title "paper (both): 0.03 / 0.36", \
     "+" using (3 + 0.18):(0.36) every ::0::0 with points pt 8 ps 2.5 lw 2 lc rgb wi notitle
unset multiplot
