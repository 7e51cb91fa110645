#!/usr/bin/env bash
# tools/fat_tree_line_rate.sh [--seeds N] [--model-seeds M] [--duration-us U]
# Issue 30's fat-tree figure: the k = 4 fat tree (scenarios/fat_tree_k4.conf: 16 hosts, a random
# permutation, ECMP, RoCE responders coalescing ACKs, the DCQCN paper's RED) with 8 QPs per host
# over M permutations (seeds 1..M), with 1 QP, and with 8 QPs as the HPCC simulator runs DCQCN
# (an ACK per packet, RED Pmax 20 %), each against the share reference (tools/share_ref.py:
# per-QP max-min over the links each QP's ECMP hash gives it), and the reference alone over N
# permutations and hash draws (seeds 1..N; the model run only long enough to write its flows and
# paths). The reference is what an ideal congestion control would reach on those paths, so it
# bounds what per-flow ECMP allows.
#
# Line rate is each host's payload rate: link_gbps x payload / (payload + wire overhead), from
# the run's --flows-json. Prints one line:
#   RESULT fat_tree_k=4 hosts=16 qps=8 model_seeds= rx_gbps= line_rate_pct= (means over the M
#          permutations) line_rate_min_pct= line_rate_max_pct= ref_pct= model_over_ref_pct=
#          qps1_rx_gbps= qps1_line_rate_pct= qps1_ref_pct= ack1_line_rate_pct= ack1_ref_pct=
#          ecmp_bound_mean_pct= ecmp_bound_min_pct= ecmp_bound_max_pct= seeds=
# Exit status 1 when a run fails or loses bytes.
set -u
cd "$(dirname "$0")/.."
seeds=20
model_seeds=3
duration=10000
while [ $# -gt 0 ]; do
    case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --model-seeds) model_seeds=$2; shift 2 ;;
    --duration-us) duration=$2; shift 2 ;;
    *) echo "usage: $0 [--seeds N] [--model-seeds M] [--duration-us U]" >&2; exit 2 ;;
    esac
done
conf=scenarios/fat_tree_k4.conf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
[ -x build/rnic_model ] || make -s build/rnic_model || exit 1

run() { # name seed qps [--set ...]: the model with --flows-json and --shares-csv, then the reference on its flows
    local name=$1 seed=$2 qps=$3
    shift 3
    ./build/rnic_model --scenario "$conf" --quiet --set run.duration_us="$duration" --set run.seed="$seed" \
        --set tenant.bulk.qps="$qps" "$@" --flows-json "$dir/$name.json" --shares-csv "$dir/$name.csv" >"$dir/$name.out" ||
        { cat "$dir/$name.out"; return 1; }
    python3 tools/share_ref.py "$dir/$name.json" --ack-priority >"$dir/$name.ref" 2>/dev/null || return 1
}
for s in $(seq 1 "$model_seeds"); do
    run "q8s$s" "$s" 8 || exit 1
done
run q1 1 1 || exit 1
run ack1 1 8 --set nic.ack_every=1 --set switch.ecn_pmax_pct=20 || exit 1
for s in $(seq 1 "$seeds"); do # the reference alone: a 20 us run writes the flows and their paths
    ./build/rnic_model --scenario "$conf" --quiet --set run.duration_us=20 --set run.warmup_us=10 --set run.drain=off \
        --set run.seed="$s" --flows-json "$dir/s$s.json" >/dev/null || exit 1
    python3 tools/share_ref.py "$dir/s$s.json" --ack-priority 2>/dev/null | grep '^RESULT' >"$dir/s$s.ref" || exit 1
done
python3 - "$dir" "$seeds" "$model_seeds" <<'EOF'
import json, re, statistics, sys
d, seeds, model_seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def key(path, k):
    m = re.search(r"\b%s=([0-9.]+)" % k, open(path).read())
    return float(m.group(1)) if m else None

def line_total(path):
    j = json.load(open(path))
    up = {l["id"]: l["bps"] for l in j["links"]}
    per = [up[n["uplink"]] * j["payload"] / (j["payload"] + j["wire_overhead"]) for n in j["nics"]]
    return sum(per) / 1e9, len(per)

def result(name):
    total, hosts = line_total("%s/%s.json" % (d, name))
    rx, ref = key("%s/%s.out" % (d, name), "rx_gbps"), key("%s/%s.ref" % (d, name), "total_gbps")
    if rx is None or ref is None or key("%s/%s.out" % (d, name), "bytes_lost") != 0:
        print("fat_tree_line_rate: the %s run failed or lost bytes" % name, file=sys.stderr)
        sys.exit(1)
    return rx, 100 * rx / total, 100 * ref / total, hosts

q8 = [result("q8s%d" % s) for s in range(1, model_seeds + 1)]
q1, ack1 = result("q1"), result("ack1")
bound = []
for s in range(1, seeds + 1):
    total, _ = line_total("%s/s%d.json" % (d, s))
    bound.append(100 * key("%s/s%d.ref" % (d, s), "total_gbps") / total)
rx, pct, ref = (statistics.mean(r[i] for r in q8) for i in range(3))
print("RESULT fat_tree_k=4 hosts=%d qps=8 model_seeds=%d rx_gbps=%.1f line_rate_pct=%.1f line_rate_min_pct=%.1f "
      "line_rate_max_pct=%.1f ref_pct=%.1f model_over_ref_pct=%.1f qps1_rx_gbps=%.1f qps1_line_rate_pct=%.1f "
      "qps1_ref_pct=%.1f ack1_line_rate_pct=%.1f ack1_ref_pct=%.1f ecmp_bound_mean_pct=%.2f ecmp_bound_min_pct=%.1f "
      "ecmp_bound_max_pct=%.1f seeds=%d" % (q8[0][3], model_seeds, rx, pct, min(r[1] for r in q8), max(r[1] for r in q8),
                                            ref, 100 * pct / ref, q1[0], q1[1], q1[2], ack1[1], ack1[2],
                                            statistics.mean(bound), min(bound), max(bound), seeds))
EOF
