#!/usr/bin/env bash
# Instructions per output WQE of the Palos slicer model (valgrind --tool=callgrind, counting only
# the timed dense workload palos_run(): 1,024 backlogged QPs, the host topping up one ring per
# cycle, one output WQE popped per cycle).
#   tools/callgrind_palos.sh
# Ends with: RESULT palos_ir_per_out_wqe=... palos_ir_per_cycle=...
set -eu
cd "$(dirname "$0")/.."
out=build/callgrind
mkdir -p "$out"
f="$out/palos.out"
log=$(./build/bench_palos --quick)
outs=$(echo "$log" | sed -n 's/^dense: \([0-9]*\) output WQEs.*/\1/p')
cycles=$(echo "$log" | sed -n 's/^dense: .* in \([0-9]*\) cycles.*/\1/p')
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=palos_run --callgrind-out-file="$f" \
    ./build/bench_palos --quick >/dev/null 2>&1
ir=$(awk '/^(summary|totals):/ { ir = $2 } END { print ir + 0 }' "$f")
echo "dense: $outs output WQEs, $cycles cycles, $ir instructions"
awk -v ir="$ir" -v o="$outs" -v c="$cycles" 'BEGIN { printf "RESULT palos_ir_per_out_wqe=%.0f palos_ir_per_cycle=%.0f\n", ir / o, ir / c }'
