#!/usr/bin/env bash
# tools/callgrind_model.sh [MODEL_BIN [NS3_BIN]] -- callgrind instructions per delivered packet of
# the composed RNIC on the built-in 2:1 incast at 100 Gb/s (1 KB payloads, SIM_US simulated, 10 %
# warm-up), with the host model and RHCC on (the default) and with the host model off, beside
# ns-3 3.37 on the same incast (examples/ns3/incast_ns3.cc: plain UDP, no congestion control) in
# the same run: the baseline of issue 32's targets (model_ir_per_pkt_host <= 13000,
# model_ir_per_pkt_nohost <= 11000). The model is the -O2 build make builds (not -fno-inline);
# delivered packets are each program's delivered_packets=.
# Prints RESULT model_ir_per_pkt_host=... model_ir_per_pkt_nohost=... ns3_ir_per_pkt=...
#   ns3_over_model_host=... ns3_over_model_nohost=... sim_us=... (ns3_* NA without build/incast_ns3).
# Environment: SIM_US (default 2000).
set -u
model=${1:-build/rnic_model}
ns3=${2:-build/incast_ns3}
sim_us=${SIM_US:-2000}
command -v valgrind >/dev/null 2>&1 || { echo "callgrind_model: valgrind is needed (tools/deps.sh bench)" >&2; exit 2; }
[ -x "$model" ] || { echo "callgrind_model: no $model (make build/rnic_model)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ir_per_pkt NAME CMD...: runs CMD under callgrind; prints "Ir packets"
ir_of() {
    local name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.cg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
        { echo "callgrind_model: $name failed" >&2; tail -n 3 "$tmp/$name.err" >&2; exit 1; }
    local ir pk
    ir=$(grep -o 'I *refs: *[0-9,]*' "$tmp/$name.err" | tr -d ', ' | cut -d: -f2)
    pk=$(grep -o 'delivered_packets=[0-9]*' "$tmp/$name.out" | head -n 1 | cut -d= -f2)
    [ -n "$ir" ] && [ -n "$pk" ] && [ "$pk" -gt 0 ] || { echo "callgrind_model: $name gave no Ir or no packets" >&2; exit 1; }
    echo "$ir $pk"
}
warm=$((sim_us / 10))
read -r hir hpk < <(ir_of host "$model" --payload 1024 --duration-us "$sim_us" --warmup-us "$warm" --quiet) || exit 1
read -r nir npk < <(ir_of nohost "$model" --payload 1024 --duration-us "$sim_us" --warmup-us "$warm" --quiet --host off) || exit 1
h=$((hir / hpk))
n=$((nir / npk))
echo "model, host and RHCC on: $hir Ir / $hpk packets = $h Ir per packet"
echo "model, host off:         $nir Ir / $npk packets = $n Ir per packet"
s="NA" ro_h="NA" ro_n="NA"
if [ -x "$ns3" ]; then
    sim_ms=$(( (sim_us + 999) / 1000 ))
    read -r sir spk < <(ir_of ns3 "$ns3" --sim-ms="$sim_ms") || exit 1
    s=$((sir / spk))
    echo "ns-3 3.37 UDP:           $sir Ir / $spk packets = $s Ir per packet ($sim_ms ms)"
    ro_h=$(python3 -c "print('%.2f' % ($s / $h))")
    ro_n=$(python3 -c "print('%.2f' % ($s / $n))")
fi
echo "RESULT model_ir_per_pkt_host=$h model_ir_per_pkt_nohost=$n ns3_ir_per_pkt=$s ns3_over_model_host=$ro_h ns3_over_model_nohost=$ro_n sim_us=$sim_us"
