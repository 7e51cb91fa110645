#!/usr/bin/env bash
# Instructions per block of the QoS engine model (valgrind --tool=callgrind, counting only the
# timed workload qos_run(): descriptor writes, segmenter, handler, status polls, responder).
#   tools/callgrind_qos.sh [TRANSFERS]      (default 10000)
# Ends with: RESULT qos_ir_per_block=... qos_ir_per_cycle=...
set -eu
cd "$(dirname "$0")/.."
n=${1:-10000}
out=build/callgrind
mkdir -p "$out"
f="$out/qos.out"
log=$(./build/bench_qos --quick --transfers "$n" | grep "^bench_qos: ")  # the first line: the timed run
blocks=$(echo "$log" | sed -n 's/^bench_qos: [0-9]* transfers, \([0-9]*\) blocks.*/\1/p')
cycles=$(echo "$log" | sed -n 's/.* in \([0-9]*\) cycles.*/\1/p')
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qos_run --callgrind-out-file="$f" \
    ./build/bench_qos --quick --transfers "$n" >/dev/null 2>&1
ir=$(awk '/^(summary|totals):/ { ir = $2 } END { print ir + 0 }' "$f")
echo "$n transfers: $blocks blocks, $cycles cycles, $ir instructions"
awk -v ir="$ir" -v b="$blocks" -v c="$cycles" 'BEGIN { printf "RESULT qos_ir_per_block=%.0f qos_ir_per_cycle=%.0f\n", ir / b, ir / c }'
