# Palos Fig. 11: QP 4's weight 1..6 in group B; group A (QP 1-3) keeps 50 Gb/s.
# Input: build/palos_weight_change --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 1000,560 font ",11"
set output out
set xlabel "weight of QP 4"
set ylabel "wire bandwidth (Gb/s)"
set yrange [0:60]
set key outside right
set grid
set title "Weight change inside group B does not move group A (Fig. 11; chunks in wire bytes)"
set arrow from 1,50 to 6,50 nohead dt 3 lc 0
set label "paper: both groups 50 Gb/s" at 1.1,52
ok(c) = (column(1) == 82 ? column(c) : 1/0)
plot csv using 2:(ok(9)) skip 1 with linespoints pt 5 lw 2 lc rgb "#008060" title "group A", \
     csv using 2:(ok(10)) skip 1 with linespoints pt 5 lw 2 lc rgb "#c03030" title "group B", \
     csv using 2:(ok(3)) skip 1 with linespoints pt 7 lc rgb "#60a060" title "QP 1 (A, 2)", \
     csv using 2:(ok(6)) skip 1 with linespoints pt 7 lc rgb "#e08000" title "QP 4 (B, 1..6)", \
     csv using 2:(ok(7)) skip 1 with linespoints pt 7 lc rgb "#a04080" title "QP 5 (B, 2)", \
     csv using 2:(ok(8)) skip 1 with linespoints pt 7 lc rgb "#3030c0" title "QP 6 (B, 3)"
