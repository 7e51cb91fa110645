# Palos Fig. 9: group A (16 small flows) and group B (1..8 large flows), normalised to one large flow.
# Input: build/palos_groups --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 900,560 font ",11"
set output out
set xlabel "large flows in group B"
set ylabel "normalised to one large flow"
set yrange [0:2.4]
set key top left
set grid
set title "Group isolation (Fig. 9): A's message rate, B's bandwidth (Palos: wire-charged chunks)"
set label "paper CX-5: A 0.10 at 8" at 8,0.10 point pt 6 ps 1.6 lc rgb "#c03030" offset -17,0.8
set label "paper CX-5: B 1.55 at 8" at 8,1.55 point pt 6 ps 1.6 lc rgb "#3030c0" offset -17,-0.8
plot csv using 1:2 skip 1 with linespoints pt 7 lc rgb "#c03030" title "RR: group A message rate", \
     csv using 1:3 skip 1 with linespoints pt 7 lc rgb "#3030c0" title "RR: group B bandwidth", \
     csv using 1:4 skip 1 with linespoints pt 5 lc rgb "#e08000" title "Palos: group A message rate", \
     csv using 1:5 skip 1 with linespoints pt 5 lc rgb "#008060" title "Palos: group B bandwidth", \
     csv using 1:10 skip 1 with linespoints pt 4 dt 4 lc rgb "#e08000" title "Palos, payload chunks: group A", \
     csv using 1:11 skip 1 with linespoints pt 6 dt 2 lc rgb "#806000" title "Palos, one small flow in A: group A"
