# RHCC paper Fig. 2 and Fig. 3 (Sec. 2.2): one sender, one receiver, 100 G RNIC, DCQCN, 4 QPs of
# 256 KB messages, no RHCC; CPU memory traffic 0x / 1x / 2x / 3x (0 / 19.0 / 25.3 / 30.3 GB/s),
# PFC on and off -- the composed RNIC (build/rnic_model --host on) beside the paper's numbers.
# Input: python3 tools/hostcc_experiments.py --csv-dir DIR; -e "dir='...'; out='...'"
# CSV DIR/hostcc_fig2.csv, one row per run, PFC on rows (load 0..3) then PFC off rows; columns:
#  1 variant (rhcc mode), 2 pfc (1/0), 3 load_x, 4 cpu_GBps, 5 size_kb, 6 qps, 7 rx_gbps,
#  8 fct_mean_us, 9 host_pause_us, 10 cnps, 11 pcie_stalled_writes, 12 ddio_miss_pct, 13 host_drops,
#  14 host_marked, 15 iio_occ_mean, 16 host_delay_mean_ns, 17 mba_level_end, 18 mba_steps, 19 probes,
#  20 r_rev_gbps, 21 r_cc_gbps, 22 host_pauses, 23 pcie_stall_us, 24 pcie_stall_pct (stall time /
#  measurement window: the ConnectX outbound_pci_stalled_wr the paper's Neohost reads), 25 host_pause_pct,
#  26 stall_time_over_1x (same PFC setting), 27 paper_tput_ref (3x rows: this model's 0x throughput
#  x (1 - the paper's drop)), 28 paper_lat_ref (3x rows: this model's 0x latency x the paper's factor)
csv = dir.'/hostcc_fig2.csv'
set terminal pngcairo size 1500,900 font ",10"
set output out
set datafile separator ","
set multiplot layout 2,3 title "RHCC Fig. 2 / Fig. 3: the receiving host under CPU memory contention (no RHCC; model lines, paper marks)"
set grid
set key top right
set xrange [-0.3:3.3]
set xtics ("0x" 0, "1x" 1, "2x" 2, "3x" 3)
set xlabel "CPU memory traffic (0x / 1x / 2x / 3x = 0 / 19.0 / 25.3 / 30.3 GB/s)"
on  = "#c03030"
off = "#3070c0"
set key bottom left
set title "(a) receiver throughput (paper at 3x: -62 % PFC, -68 % no PFC)"
set ylabel "Gb/s"
set yrange [0:*]
plot csv using 3:($2 == 1 ? $7 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb on title "PFC on", \
     csv using 3:($2 == 0 ? $7 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb off title "PFC off", \
     csv using 3:($2 == 1 ? $27 : 1/0) skip 1 with points pt 8 ps 2.5 lw 2 lc rgb on title "paper 3x (PFC on): 0x - 62 %", \
     csv using 3:($2 == 0 ? $27 : 1/0) skip 1 with points pt 10 ps 2.5 lw 2 lc rgb off title "paper 3x (PFC off): 0x - 68 %"
set key top left
set title "(b) mean message latency (paper at 3x: x2.4 PFC, x2.6 no PFC)"
set ylabel "us (post -> completion)"
plot csv using 3:($2 == 1 ? $8 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb on title "PFC on", \
     csv using 3:($2 == 0 ? $8 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb off title "PFC off", \
     csv using 3:($2 == 1 ? $28 : 1/0) skip 1 with points pt 8 ps 2.5 lw 2 lc rgb on title "paper 3x (PFC on): 0x x 2.4", \
     csv using 3:($2 == 0 ? $28 : 1/0) skip 1 with points pt 10 ps 2.5 lw 2 lc rgb off title "paper 3x (PFC off): 0x x 2.6"
set key top left
set title "(c) PFC pause duration sent by the receiving host (PFC on)"
set ylabel "us paused (measurement window)"
set y2label "pause frames"
set y2tics
set y2range [0:*]
plot csv using 3:($2 == 1 ? $9 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb on title "pause duration", \
     csv using 3:($2 == 1 ? $22 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc rgb on title "pause frames (right)"
set title "(d) CNPs and CE marks from the receiving host (PFC off)"
set ylabel "CNPs"
set y2label "CE-marked packets / drops"
plot csv using 3:($2 == 0 ? $10 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb off title "CNPs", \
     csv using 3:($2 == 0 ? $14 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 4 lc rgb off title "CE marked (right)", \
     csv using 3:($2 == 0 ? $13 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 3 pt 2 lc rgb "#000000" title "host drops (right)"
unset y2tics
unset y2label
set title "Fig. 3(a) PCIe back-pressure: time writes waited for credits (paper: grows with the load)"
set ylabel "% of the time stalled (outbound\\_pci\\_stalled\\_wr)"
set yrange [0:105]
set y2label "writes that waited (log)"
set y2tics
set logscale y2
set y2range [*:*]
set key top left
plot csv using 3:($2 == 1 ? $24 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb on title "stall time, PFC on", \
     csv using 3:($2 == 0 ? $24 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb off title "stall time, PFC off", \
     csv using 3:($2 == 1 && $11 > 0 ? $11 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc rgb on title "stalled writes, PFC on (right)", \
     csv using 3:($2 == 0 && $11 > 0 ? $11 : 1/0) skip 1 axes x1y2 with linespoints lw 1 dt 2 pt 4 lc rgb off title "stalled writes, PFC off (right)"
unset y2tics
unset y2label
unset logscale y2
set title "Fig. 3(b) DDIO miss rate (paper: grows with the load)"
set ylabel "% of PCIe writes missing the DDIO ways"
set yrange [0:105]
set key bottom right
plot csv using 3:($2 == 1 ? $12 : 1/0) skip 1 with linespoints lw 2 pt 7 lc rgb on title "PFC on", \
     csv using 3:($2 == 0 ? $12 : 1/0) skip 1 with linespoints lw 2 pt 5 lc rgb off title "PFC off"
unset multiplot
