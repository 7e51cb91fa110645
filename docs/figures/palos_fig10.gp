# Palos Fig. 10: 16 groups weighted 10..25, two QPs weighted 2 and 3 each; measured vs Eq. 1.
# Input: build/palos_weights --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 1000,560 font ",11"
set output out
set xlabel "QP (group = QP / 2; group weight 10 + group; QP weight 2, 3)"
set ylabel "payload bandwidth (Gb/s)"
set key top left
set grid
set style fill solid 0.6
set boxwidth 0.8
set title "Hierarchical weighted sharing (Fig. 10): model (bars) vs Eq. 1 (points)"
plot csv using 1:5 skip 1 with boxes lc rgb "#3070c0" title "measured", \
     csv using 1:6 skip 1 with points pt 7 ps 1.2 lc rgb "#c03030" title "Eq. 1"
