#!/usr/bin/env bash
# The fabric's cost per delivered packet as the network grows (issue 30: "the scheduler's cost
# per event is flat from 16 to 128 hosts"): callgrind instructions of a fat-tree permutation
# (scenarios/fat_tree_k4.conf, no receiving-host model, no drain) at k = 4 (16 hosts, 20
# switches) and k = 8 (128 hosts, 80 switches), each run counted twice -- for RUN_US and for 1 us
# -- so that the difference is the run without the set-up (topology, engines, memory).
#   tools/bench_fabric_scale.sh [RUN_US]          (default 40)
# Ends with: RESULT fabric_ir_per_pkt_16=... fabric_ir_per_pkt_128=... fabric_scale_ratio=...
#   (ratio = 128-host cost per delivered packet / 16-host cost; flat = 1)
#   fabric_runs_per_pkt_16=... fabric_runs_per_pkt_128=... (node runs per delivered packet)
#   sched_ir_per_run_16=... sched_ir_per_run_128=... sched_scale_ratio=... (the scheduler's own
#   instructions -- every line of fabric.h, inlined or not, by callgrind's source attribution --
#   per node run: the cost of an event in the scheduler itself)
#   fabric_ir_per_host_us_16=... fabric_ir_per_host_us_128=... host_us_scale_ratio=... (instructions
#   per host per simulated us: a NIC is still due nearly every cycle (issue 32), so its work
#   follows simulated time, and per delivered packet it grows where a host delivers less)
#   pkts_per_host_us_16=... pkts_per_host_us_128=... (delivered packets per host per us)
set -eu
cd "$(dirname "$0")/.."
run_us=${1:-40}
command -v valgrind >/dev/null || { echo "bench_fabric_scale: valgrind is not installed (bash tools/deps.sh bench)" >&2; exit 2; }
make -s build/rnic_model
out=build/callgrind
mkdir -p "$out"
count() { # k us -> "instructions delivered_packets node_runs scheduler_instructions"
    local f="$out/fabric_k$1_$2.out" log ir pk runs sched
    log=$(valgrind --tool=callgrind --callgrind-out-file="$f" ./build/rnic_model --scenario scenarios/fat_tree_k4.conf \
        --set topology.k="$1" --set host.model=off --set run.drain=off --set run.duration_us="$2" --set run.warmup_us=0 \
        --quiet 2>/dev/null | grep '^RESULT')
    ir=$(awk '/^(summary|totals):/ { ir = $2 } END { printf "%.0f", ir + 0 }' "$f")
    pk=$(echo "$log" | sed -n 's/.* delivered_packets=\([0-9]*\).*/\1/p')
    runs=$(echo "$log" | sed -n 's/.* node_runs=\([0-9]*\).*/\1/p')
    sched=$(callgrind_annotate --inclusive=no --threshold=100 --auto=no "$f" 2>/dev/null |
        awk '$0 ~ /%\)/ && $0 ~ /fabric\.h:/ && $0 !~ /=>/ { gsub(",", "", $1); s += $1 } END { printf "%.0f", s + 0 }')
    echo "$ir ${pk:-0} ${runs:-0} ${sched:-0}"
}
declare -A per runs_per sched_per per_host_us pk_host_us
for k in 4 8; do
    read -r ir_run pk_run n_run s_run <<<"$(count $k "$run_us")"
    read -r ir_base pk_base n_base s_base <<<"$(count $k 1)"
    hosts=$((k * k * k / 4))
    pk=$((pk_run - pk_base))
    [ "$pk" -gt 0 ] || { echo "bench_fabric_scale: k=$k delivered no packet" >&2; exit 1; }
    per[$hosts]=$(awk -v a="$ir_run" -v b="$ir_base" -v p="$pk" 'BEGIN { printf "%.0f", (a - b) / p }')
    runs_per[$hosts]=$(awk -v a="$n_run" -v b="$n_base" -v p="$pk" 'BEGIN { printf "%.2f", (a - b) / p }')
    per_host_us[$hosts]=$(awk -v a="$ir_run" -v b="$ir_base" -v h="$hosts" -v u="$run_us" 'BEGIN { printf "%.0f", (a - b) / h / (u - 1) }')
    pk_host_us[$hosts]=$(awk -v p="$pk" -v h="$hosts" -v u="$run_us" 'BEGIN { printf "%.3f", p / h / (u - 1) }')
    sched_per[$hosts]=$(awk -v a="$s_run" -v b="$s_base" -v r="$n_run" -v q="$n_base" 'BEGIN { printf "%.1f", (a - b) / (r - q) }')
    echo "k=$k ($hosts hosts): $(awk -v a="$ir_run" -v b="$ir_base" 'BEGIN { printf "%.0f", a - b }') instructions for $pk packets over ${run_us} us -> ${per[$hosts]} per packet, ${runs_per[$hosts]} node runs per packet, ${sched_per[$hosts]} scheduler instructions per node run"
done
awk -v a="${per[16]}" -v b="${per[128]}" -v ra="${runs_per[16]}" -v rb="${runs_per[128]}" \
    -v sa="${sched_per[16]}" -v sb="${sched_per[128]}" -v ha="${per_host_us[16]}" -v hb="${per_host_us[128]}" \
    -v pa="${pk_host_us[16]}" -v pb="${pk_host_us[128]}" 'BEGIN {
    printf "RESULT fabric_ir_per_pkt_16=%s fabric_ir_per_pkt_128=%s fabric_scale_ratio=%.3f fabric_runs_per_pkt_16=%s fabric_runs_per_pkt_128=%s sched_ir_per_run_16=%s sched_ir_per_run_128=%s sched_scale_ratio=%.3f fabric_ir_per_host_us_16=%s fabric_ir_per_host_us_128=%s host_us_scale_ratio=%.3f pkts_per_host_us_16=%s pkts_per_host_us_128=%s\n", a, b, b / a, ra, rb, sa, sb, sb / sa, ha, hb, hb / ha, pa, pb }'
