# Tonic Fig. 3a/3b: one NewReno flow (10 Gb/s, RTT 10 us, drops at the receiver from a seeded
# list) -- this model (transport.h) beside ns-3's TcpNewReno on the same drops.
# Input: build/tonic_newreno_single --csv MODEL --ns3-csv NS3; -e "model='...'; ns3='...'; out='...'"
# CSV columns: t_us,kind,seq,value (kind cwnd: value = bytes; kind tx: value 1 = retransmission)
set terminal pngcairo size 1000,800 font ",11"
set output out
set datafile separator ","
set multiplot layout 2,1
set grid
set key top left
set xlabel "time (ms)"
set ylabel "cwnd (KB)"
set logscale y
set title "Fig. 3a: congestion window (ns-3 never caps cwnd: it grows while the 128-segment window limits sending)"
plot "< awk -F, '$2==\"cwnd\"' ".ns3 using ($1/1000):($4/1000) with steps lw 3 lc rgb "#a0a0a0" title "ns-3 TcpNewReno", \
     "< awk -F, '$2==\"cwnd\"' ".model using ($1/1000):($4/1000) with steps lw 1 lc rgb "#c03030" title "Tonic model (transport.h)"
unset logscale y
set ylabel "segment number (thousands)"
set title "Fig. 3b: transmitted segments; retransmissions as large dots"
plot "< awk -F, '$2==\"tx\" && NR % 50 == 0' ".ns3 using ($1/1000):($3/1000) with dots lc rgb "#a0a0a0" title "ns-3 (every 50th)", \
     "< awk -F, '$2==\"tx\" && NR % 50 == 0' ".model using ($1/1000):($3/1000) with dots lc rgb "#c03030" title "model (every 50th)", \
     "< awk -F, '$2==\"tx\" && $4==1' ".ns3 using ($1/1000):($3/1000) with points pt 6 ps 2.5 lc rgb "#606060" title "ns-3 retransmission", \
     "< awk -F, '$2==\"tx\" && $4==1' ".model using ($1/1000):($3/1000) with points pt 7 ps 1.2 lc rgb "#c03030" title "model retransmission"
unset multiplot
