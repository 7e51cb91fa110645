# Tonic Fig. 3c: CDF of the average throughput of 200 NewReno flows (2 hosts x 100) sharing one
# 10 Gb/s link for 5 s -- this model beside ns-3's TcpNewReno.
# Input: build/tonic_newreno_200 --csv MODEL --ns3-csv NS3; -e "model='...'; ns3='...'; out='...'"
set terminal pngcairo size 900,560 font ",11"
set output out
set datafile separator ","
set grid
set key bottom right
set xlabel "average throughput per flow (Mb/s)"
set ylabel "CDF"
set yrange [0:1]
set title "Fig. 3c: 200 flows sharing a 10 Gb/s bottleneck"
plot ns3 using 4:(1.0) skip 1 smooth cnormal lw 3 lc rgb "#a0a0a0" title "ns-3 TcpNewReno", \
     model using 3:(1.0) skip 1 smooth cnormal lw 2 lc rgb "#c03030" title "Tonic model (transport.h)"
