#!/usr/bin/env bash
# What ns-3 costs around the fabric (issue 34; docs/ns3.md): callgrind instruction counts of the
# same run -- the k = 4 web search at 50 % load, 1 ms of arrivals after a 0.2 ms warm-up -- in
# the standalone fabric (build/rnic_model) and inside ns-3 (build/rnicq_fabric_ns3, one process:
# every record crossing a link is an ns-3 Packet on a point-to-point channel, every cycle with
# work an ns-3 event). Both runs give the same digest (checked). Prints
#   RESULT bench=ns3_fabric delivered_packets= frames= fabric_ir= ns3_ir= fabric_ir_per_pkt=
#     ns3_ir_per_pkt= ns3_overhead_ir_per_pkt= ns3_overhead_ir_per_frame= ns3_ratio=
#     ns3_lib_ir_per_pkt= ns3_lib_pct=
# ns3_overhead_*: (ns-3 build - fabric) instructions per delivered data packet and per record
# carried over a channel (frames: data, ACK, CNP, PFC, each hop); ns3_lib_*: the instructions
# spent in ns-3's libraries, the C++ runtime and the allocator (every object but the program
# itself), per delivered packet and as a share of the ns-3 build's total.
set -u
cd "$(dirname "$0")/.." || exit 2
make -s build/rnic_model build/rnicq_fabric_ns3 || exit 1
keys="tenant.web.load_pct=50;run.duration_us=1200;run.warmup_us=200"
args=(--scenario scenarios/websearch_fattree.conf)
IFS=';' read -r -a kv <<<"$keys"
for x in "${kv[@]}"; do args+=(--set "$x"); done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$dir/fabric.cg" ./build/rnic_model "${args[@]}" --quiet \
    >"$dir/fabric.out" 2>"$dir/fabric.err" || { cat "$dir/fabric.err" >&2; exit 1; }
valgrind --tool=callgrind --callgrind-out-file="$dir/ns3.cg" ./build/rnicq_fabric_ns3 \
    --scenario=scenarios/websearch_fattree.conf "--set=$keys" >"$dir/ns3.out" 2>"$dir/ns3.err" ||
    { cat "$dir/ns3.err" >&2; exit 1; }
python3 - "$dir" <<'EOF'
import re, sys
d = sys.argv[1]

def result(path, first):
    for l in open(path):
        if l.startswith("RESULT " + first + "="):
            return dict(re.findall(r"(\w+)=(\S+)", l))
    sys.exit(f"bench_ns3_fabric: no RESULT {first}= in {path}")

def totals(path):
    for l in open(path):
        if l.startswith("summary:") or l.startswith("totals:"):
            return int(l.split()[1])
    sys.exit(f"bench_ns3_fabric: no totals in {path}")

def self_by_object(path):
    """callgrind's cost lines after a calls= line are the call's inclusive cost: skip them."""
    names, cost, ob, after_call = {}, {}, None, False
    for line in open(path):
        if line.startswith(("ob=", "cob=")):  # a name is given once, where an id first appears (either)
            m = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if m and m.group(2):
                names[m.group(1)] = m.group(2)
            if line.startswith("ob="):
                ob = names.get(m.group(1), m.group(1)) if m else line[3:].strip()
        elif line.startswith("calls="):
            after_call = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if after_call:
                after_call = False
                continue
            parts = line.split()
            if len(parts) >= 2 and ob is not None:
                cost[ob] = cost.get(ob, 0) + int(parts[1])
    return cost

fab = result(f"{d}/fabric.out", "fabric")
ns3 = result(f"{d}/ns3.out", "ns3_fabric")
if fab["digest"] != ns3["digest"] or fab["delivered_packets"] != ns3["delivered_packets"]:
    sys.exit(f"bench_ns3_fabric: the runs differ: digest {fab['digest']} vs {ns3['digest']}")
pkts, frames = int(fab["delivered_packets"]), int(ns3["frames"])
fi, ni = totals(f"{d}/fabric.cg"), totals(f"{d}/ns3.cg")
objs = self_by_object(f"{d}/ns3.cg")
prog = sum(v for k, v in objs.items() if k.endswith("rnicq_fabric_ns3"))
lib = sum(objs.values()) - prog
print(f"RESULT bench=ns3_fabric delivered_packets={pkts} frames={frames} fabric_ir={fi} ns3_ir={ni} "
      f"fabric_ir_per_pkt={fi / pkts:.0f} ns3_ir_per_pkt={ni / pkts:.0f} "
      f"ns3_overhead_ir_per_pkt={(ni - fi) / pkts:.0f} ns3_overhead_ir_per_frame={(ni - fi) / frames:.0f} "
      f"ns3_ratio={ni / fi:.3f} ns3_lib_ir_per_pkt={lib / pkts:.0f} ns3_lib_pct={100.0 * lib / sum(objs.values()):.1f}")
EOF
