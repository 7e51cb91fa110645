# Tassel rate changes act promptly (issue 9, item 3): rates in 0.5 ms bins around a change at
# 50 ms. Input: build/tassel_rate_change --csv FILE (-e "csv='...'; out='...'").
set terminal pngcairo size 900,700 font ",11"
set output out
set datafile separator ","
set multiplot layout 2,1 title "rnicq Tassel: a rate write re-times what is scheduled (the write at 50 ms)"
set grid
set xlabel "time (ms)"
set ylabel "Gb/s (0.5 ms bins)"
set xrange [40:80]
set yrange [0:12]
set key center right box opaque
set arrow 1 from 50, graph 0 to 50, graph 1 nohead dt 2 lc 0
set title "one QP: 100 Kb/s raised to 10 Gb/s (before the fix: next packet at 328 ms); 10 Gb/s cut to 1 Gb/s"
plot csv using 1:2 skip 1 with steps lw 2 lc 1 title "raised 100 Kb/s -> 10 Gb/s", \
     csv using 1:3 skip 1 with steps lw 2 lc 2 title "cut 10 Gb/s -> 1 Gb/s"
set yrange [0:110]
set key at graph 0.98, graph 0.27 right top box opaque
set title "oversubscription: QP0 at 50 Gb/s, QP1 raised from 100 Kb/s to 100 Gb/s (Phi 1.5; before: link use 0.33)"
plot csv using 1:4 skip 1 with steps lw 2 lc 3 title "QP0 (50 -> 33.3 Gb/s = rate / Phi)", \
     csv using 1:5 skip 1 with steps lw 2 lc 4 title "QP1 (-> 66.7 Gb/s)", \
     csv using 1:6 skip 1 with steps lw 2 lc 0 title "link"
unset multiplot
