# Palos Fig. 3 / Fig. 8: latency of a 64 B latency-sensitive flow vs the number of large flows.
# Input: build/palos_latency --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 900,560 font ",11"
set output out
set xlabel "large flows (2 MB messages)"
set ylabel "latency / latency with no large flow"
set yrange [0:9]
set key top left
set grid
set title "Latency-sensitive flow beside large flows (Fig. 3/8); doorbell -> last byte on the wire"
set label "paper CX-5: 7.8x at 24 (Fig. 3)" at 24,7.8 point pt 6 ps 1.6 lc rgb "#c03030" offset -20,0.6
set label "paper CX-5: 5x at 16 (Fig. 8)" at 16,5 point pt 6 ps 1.6 lc rgb "#c03030" offset -18,0.6
set label "paper Palos: 1.79x at 16" at 16,1.79 point pt 6 ps 1.6 lc rgb "#008060" offset -4,-1.2
plot csv using 1:5 skip 1 with linespoints pt 7 lc rgb "#c03030" title "packet round-robin (model)", \
     csv using 1:6 skip 1 with linespoints pt 4 dt 2 lc rgb "#3030c0" title "Palos, same class (model)", \
     csv using 1:7 skip 1 with linespoints pt 5 lc rgb "#008060" title "Palos with priority (model)"
