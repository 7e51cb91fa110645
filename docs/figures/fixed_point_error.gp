# Achieved pacing-rate error of Q32.32 cycles-per-byte vs rate, per clock, beside the
# analytical bound 2^-32 / cpb. Input: build/fixed_point_range --csv FILE (set via -e "csv='...'").
set terminal pngcairo size 900,560 font ",11"
set output out
set datafile separator ","
set logscale x
set format x "10^{%L}"
set xlabel "target rate (b/s)"
set ylabel "|achieved - target| / target (ppm)"
set title "rnicq fixed point: 100,000 x 1500 B packets paced with rnic\\_ftime\\_add\\_bytes"
set key top left
set grid
bound(x, clk) = 1e6 * x / (clk * 8.0 * 2**32)
plot \
  "< grep '^pace,100000000,.*,1500,' ".csv using 3:(abs($8)) with linespoints pt 7 lc 1 title "100 MHz (measured)", \
  "< grep '^pace,250000000,.*,1500,' ".csv using 3:(abs($8)) with linespoints pt 7 lc 2 title "250 MHz (measured)", \
  "< grep '^pace,1000000000,.*,1500,' ".csv using 3:(abs($8)) with linespoints pt 7 lc 3 title "1 GHz (measured)", \
  [1e5:8e11] bound(x, 1e8) with lines dt 2 lc 1 title "100 MHz bound 2^{-32}/cpb", \
  [1e5:8e11] bound(x, 2.5e8) with lines dt 2 lc 2 title "250 MHz bound", \
  [1e5:8e11] bound(x, 1e9) with lines dt 2 lc 3 title "1 GHz bound"
