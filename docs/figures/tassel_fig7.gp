# Tassel Fig. 7 reproduced: one QP, target vs measured rate (100 Kb/s .. 400 Gb/s), with the
# relative error on the right axis. Input: build/tassel_accuracy --csv FILE (-e "csv='...'; out='...'").
set terminal pngcairo size 900,560 font ",11"
set output out
set datafile separator ","
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "target rate (b/s)"
set ylabel "measured rate (b/s)"
set y2label "|rate error| (%)"
set y2tics
set logscale y2
set format y2 "10^{%L}"
set key top left
set grid
set title "rnicq Tassel: single-QP accuracy (paper Fig. 7: accurate from 100 Kb/s to 100 Gb/s)"
plot csv using 2:($2*(1+$6/100)) skip 1 with linespoints pt 7 lc 1 title "measured (rnicq)", \
     csv using 2:2 skip 1 with lines dt 2 lc 0 title "target (= paper: on the diagonal)", \
     csv using 2:(abs($6) > 1e-7 ? abs($6) : 1e-7) skip 1 axes x1y2 with points pt 6 lc 2 title "|error| % (floored at 1e-7)"
