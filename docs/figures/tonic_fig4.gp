# Tonic Fig. 4: two DCQCN flows (40 Gb/s, RTT 4 us, paper preset, RED Kmin 5 KB / Kmax 200 KB /
# Pmax 1 %) sharing one receiver's link -- this model (transport.h senders, tonic_sim.h) beside a
# fluid model of DCQCN (Zhu et al. CoNEXT'16) for the same two flows.
# Input: build/tonic_dcqcn_pair --csv CSV; -e "csv='...'; out='...'"
# CSV columns: 1 time_ms, 2 rate_a_gbps, 3 rate_b_gbps (wire, 100 us samples), 4-5 goodput,
# 6 rc_a, 7 rt_a, 8 alpha_a, 9 rc_b, 10 rt_b, 11 alpha_b, 12 queue_kb, 13 fluid_a_gbps,
# 14 fluid_b_gbps, 15-16 fluid alpha, 17 fluid_queue_kb
set terminal pngcairo size 1000,800 font ",11"
set output out
set datafile separator ","
set multiplot layout 2,1
set grid
set key top right
set xlabel "time (ms)"
set ylabel "throughput (Gb/s, wire)"
set yrange [0:42]
set title "Fig. 4: two DCQCN flows on a 40 Gb/s bottleneck (model: 1 ms means of 100 us samples)"
# 1 ms means: every 10th sample averages the last 10 (awk keeps the file's time axis)
mean1ms = "< awk -F, 'NR>1{a+=$2;b+=$3;n++; if(n==10){print $1\",\"a/10\",\"b/10; a=0;b=0;n=0}}' "
plot csv using 1:2 every ::1 with lines lw 1 lc rgb "#f0b0b0" title "flow A (100 us)", \
     csv using 1:3 every ::1 with lines lw 1 lc rgb "#b0b0f0" title "flow B (100 us)", \
     mean1ms.csv using 1:2 with lines lw 2 lc rgb "#c03030" title "flow A (1 ms)", \
     mean1ms.csv using 1:3 with lines lw 2 lc rgb "#3030c0" title "flow B (1 ms)", \
     csv using 1:13 every ::1 with lines lw 2 dt 2 lc rgb "#000000" title "fluid A", \
     csv using 1:14 every ::1 with lines lw 2 dt 3 lc rgb "#606060" title "fluid B"
set title "DCQCN registers of the model (RC, RT) and the switch queue"
set ylabel "rate (Gb/s, payload)"
set y2label "queue (KB)"
set yrange [0:42]
set y2range [0:*]
set y2tics
plot csv using 1:6 every ::1 with lines lw 1 lc rgb "#c03030" title "RC A", \
     csv using 1:9 every ::1 with lines lw 1 lc rgb "#3030c0" title "RC B", \
     csv using 1:12 every ::1 axes x1y2 with lines lw 1 lc rgb "#30a030" title "queue (model)", \
     csv using 1:17 every ::1 axes x1y2 with lines lw 2 dt 2 lc rgb "#000000" title "queue (fluid)"
unset multiplot
