# Tassel Fig. 8 reproduced: 1,024 concurrent QPs, 100 Kb/s .. 100 Gb/s limits on a 100 Gb/s link;
# measured vs rate limit per QP for Tassel and the two baselines the paper argues against.
# Input: build/tassel_scale --qps 1024 --csv FILE; -e "csv='...'; out='...'; over=0|1"
# over=0: (a) no oversubscription (sum 0.95 x link), expected = limit;
# over=1: (b) Phi = 2 (sum 2 x link), expected = limit / 2.
set terminal pngcairo size 900,600 font ",11"
set output out
set datafile separator ","
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "rate limit (b/s)"
set ylabel "measured rate (b/s)"
set key top left
set grid
sel(scheme) = (over ? $2 > 1.5 : $2 < 1.5) && strcol(7) eq scheme
if (over) {
    set title "(b) Phi = 2: Tassel falls back to weighted sharing (paper Fig. 8b); every QP should get limit / 2"
    expected = 0.5
} else {
    set title "(a) no oversubscription (sum 95 % of link): every QP should get its limit (paper Fig. 8a)"
    expected = 1.0
}
plot csv using (sel("round_robin") ? $3 : NaN):5 skip 1 with points pt 1 ps 0.5 lc rgb "#bbbbbb" title "round robin pacer (no limits)", \
     csv using (sel("token_bucket") ? $3 : NaN):5 skip 1 with points pt 2 ps 0.7 lc rgb "#e08020" title "token bucket (SENIC-style, 16 KB burst)", \
     csv using (sel("tassel") ? $3 : NaN):5 skip 1 with points pt 7 ps 0.5 lc rgb "#1060c0" title "Tassel (rnicq)", \
     [1e5:1e11] expected * x with lines dt 2 lc 0 title (over ? "expected: limit / Phi (paper)" : "expected: limit (paper)")
