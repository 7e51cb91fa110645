# Palos Fig. 2 / Fig. 7: 1 large + 16 small flows, small message size swept.
# Input: build/palos_isolation --csv FILE; -e "csv='...'; out='...'"
set terminal pngcairo size 1000,600 font ",11"
set output out
set logscale x 2
set xlabel "small message size (bytes)"
set ylabel "share of the class's peak (message rate / bandwidth)"
set yrange [0:1.05]
set xrange [48:5500]
set key outside right
set grid
set title "Palos vs packet round-robin: 1 large (2 MB) + 16 small flows, 100 Gb/s, MTU 1500 (Fig. 2/7)"
set arrow from 48,16.0/17 to 5500,16.0/17 nohead dt 3 lc 0
set arrow from 48,1.0/17 to 5500,1.0/17 nohead dt 3 lc 0
set label "paper: 16/17, 1/17 (Palos)" at 56,0.90
set label "paper CX-5: small 0.45" at 64,0.45 point pt 6 ps 1.6 lc rgb "#c03030" offset 1,-1
set label "paper CX-5: large 0.67" at 64,0.67 point pt 6 ps 1.6 lc rgb "#3030c0" offset 1,0.5
set label "paper CX-5: large 0.47" at 256,0.47 point pt 6 ps 1.6 lc rgb "#3030c0" offset 1,0.5
# the text says "from 47% to 0.058%": read as 0.058 (= 1/17, one packet each once messages pass the MTU)
set label "paper CX-5: large \"0.058%\" (read 0.058)" at 4096,0.058 point pt 6 ps 1.6 lc rgb "#3030c0" offset -14,1.2
plot csv using 1:2 skip 1 with linespoints pt 7 lc rgb "#c03030" title "RR small (model)", \
     csv using 1:3 skip 1 with linespoints pt 7 lc rgb "#3030c0" title "RR large (model)", \
     csv using 1:4 skip 1 with lines dt 2 lw 2 lc rgb "#c03030" title "RR small (calculation)", \
     csv using 1:5 skip 1 with lines dt 2 lw 2 lc rgb "#3030c0" title "RR large (calculation)", \
     csv using 1:8 skip 1 with linespoints pt 5 lc rgb "#e08000" title "Palos small (wire chunks)", \
     csv using 1:9 skip 1 with linespoints pt 5 lc rgb "#008060" title "Palos large (wire chunks)", \
     csv using 1:6 skip 1 with linespoints pt 4 dt 4 lc rgb "#e08000" title "Palos small (payload chunks)", \
     csv using 1:7 skip 1 with linespoints pt 4 dt 4 lc rgb "#008060" title "Palos large (payload chunks)"
