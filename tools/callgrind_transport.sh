#!/usr/bin/env bash
# Instructions per simulated cycle of the Tonic closed loop (valgrind --tool=callgrind, a stable
# count where host times flake): build/transport_bench --callgrind runs 1,024 NewReno flows at
# W = 128 with 1 % loss, warms up 1,000,000 cycles outside the count, then counts only
# measured_run() (200,000 cycles of tp_tick + tp_rx_tick + both 1,000-cycle wires + pops and
# refills). The split: tp_tick (the sender engine), tp_rx_tick (the receiver), the rest (the
# bench's wires, loss draws, output pops, refills).
#   tools/callgrind_transport.sh
# Ends with: RESULT ir_per_cycle_1k=... ir_tp_tick_1k=... ir_rx_tick_1k=...
# External figure, not measured here: Tonic's C++ simulator runs about 4,700 instructions per
# cycle at 1,024 flows (measured by the issue author; it cannot be built here).
set -eu
cd "$(dirname "$0")/.."
bin=build/transport_bench
out=build/callgrind
mkdir -p "$out"
f="$out/transport.out"
log=$(valgrind --tool=callgrind --collect-atstart=no --toggle-collect=measured_run --callgrind-out-file="$f" \
    "$bin" --callgrind 2>/dev/null)
cycles=$(echo "$log" | sed -n 's/.* measured \([0-9]*\) cycles.*/\1/p')
[ -n "$cycles" ] || { echo "callgrind_transport: no cycle count from $bin --callgrind" >&2; exit 1; }
ir=$(awk '/^(summary|totals):/ { ir = $2 } END { print ir + 0 }' "$f")
# inclusive cost of a function (gcc may split it: tp_rx_tick.part.0; the largest entry wins)
incl() {
    callgrind_annotate --inclusive=yes "$f" 2>/dev/null |
        awk -v fn="$1" '{ n = $1; gsub(",", "", n); for (i = 2; i <= NF; i++) if ($i ~ ("(^|:)" fn "(\\.part\\.[0-9]+)?$")) { if (n + 0 > best) best = n + 0 } } END { print best + 0 }'
}
tick=$(incl tp_tick)
rx=$(incl tp_rx_tick)
echo "$log"
echo "counted: $cycles cycles, $ir instructions (tp_tick $tick, tp_rx_tick $rx)"
awk -v ir="$ir" -v c="$cycles" -v t="$tick" -v r="$rx" 'BEGIN {
    printf "per cycle: %.0f total = %.0f tp_tick + %.0f tp_rx_tick + %.0f wires/pops/refills\n", ir / c, t / c, r / c, (ir - t - r) / c
    printf "RESULT ir_per_cycle_1k=%.0f ir_tp_tick_1k=%.0f ir_rx_tick_1k=%.0f\n", ir / c, t / c, r / c }'
