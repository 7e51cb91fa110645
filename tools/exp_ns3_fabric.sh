#!/usr/bin/env bash
# The fabric inside ns-3 (issue 34; docs/ns3.md): the web search on a k-ary fat tree
# (scenarios/websearch_fattree.conf at LOAD % load, DCQCN) run four ways, one after the other (the
# machine is shared), each checked against the first:
#   fabric  build/rnic_model (the standalone fabric)
#   ns3     build/rnicq_fabric_ns3 (Debian's ns-3, one process; --no-single skips it)
#   mpi1    build/rnicq_fabric_ns3_mpi on ns-3's distributed simulator, mpirun -np 1
#   mpi2    the same on 2 ranks (the fat tree cut at its core links)
#
#   tools/exp_ns3_fabric.sh [--k 4] [--load 50] [--duration-us U] [--csv-dir DIR] [--no-single]
# Prints per run
#   RESULT exp=ns3_fabric k=K run=R ranks=N hosts= flows= flows_done= fct_slowdown_p50= fct_slowdown_p99=
#     delivered_packets= frames= digest= same_fct_csv=1 same_digest=1 wall_s= rss_kb=
# (wall_s, rss_kb: the slowest rank's wall time and the largest rank's peak RSS), and per rank of
# the MPI runs
#   RESULT exp=ns3_fabric k=K rank_run=R_rI wall_s= rss_kb= cycles_run= events= (ns-3's events)
# and for the 2-rank run the figures of the scaling estimate (docs/ns3.md):
#   RESULT exp=ns3_fabric k=K run=scaling lookahead_ps= sim_us= windows_max= events_total= events_rank_max=
#     frames= cross_frames= cycles_run_rank_max=
# Exit status: 1 when a run fails or differs from the fabric; 2 on bad arguments.
set -u
k=4
load=50
duration_us=""
csv_dir=build/ns3_fabric
single=1
while [ $# -gt 0 ]; do
    case $1 in
    --k) k=${2:?}; shift ;;
    --load) load=${2:?}; shift ;;
    --duration-us) duration_us=${2:?}; shift ;;
    --csv-dir) csv_dir=${2:?}; shift ;;
    --no-single) single=0 ;;
    *) echo "usage: $0 [--k K] [--load PCT] [--duration-us U] [--csv-dir DIR] [--no-single]" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$csv_dir" || exit 2
cd "$(dirname "$0")/.." || exit 2
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
keys="topology.k=$k;tenant.web.load_pct=$load${duration_us:+;run.duration_us=$duration_us}"
model_args=(--scenario scenarios/websearch_fattree.conf)
IFS=';' read -r -a kv <<<"$keys"
for x in "${kv[@]}"; do model_args+=(--set "$x"); done
ns3_args=(--scenario=scenarios/websearch_fattree.conf "--set=$keys")

value() { sed -n "s/^RESULT $1=.* $2=\([^ ]*\).*/\1/p" "$3" | head -n 1; }
timed() { # out: run "$@" with stdout to out, /usr/bin/time's "wall_s rss_kb" to out.time
    local out=$1
    shift
    /usr/bin/time -f '%e %M' -o "$out.time" "$@" >"$out"
}

ref=$csv_dir/k${k}_fabric
timed "$ref.out" ./build/rnic_model "${model_args[@]}" --quiet --fct-csv "$ref.csv" || exit 1
ref_digest=$(value fabric digest "$ref.out")
bad=0
report() { # run ranks out csv wall rss
    local run=$1 ranks=$2 out=$3 csv=$4 wall=$5 rss=$6 first=$7 digest same_csv=0 same_digest=0
    digest=$(value "$first" digest "$out")
    cmp -s "$ref.csv" "$csv" && same_csv=1
    [ -n "$digest" ] && [ "$digest" = "$ref_digest" ] && same_digest=1
    [ $same_csv = 1 ] && [ $same_digest = 1 ] || bad=1
    echo "RESULT exp=ns3_fabric k=$k run=$run ranks=$ranks hosts=$(value "$first" hosts "$out" || true)" \
        "flows=$(value workload flows "$out") flows_done=$(value workload flows_done "$out")" \
        "fct_slowdown_p50=$(value workload fct_slowdown_p50 "$out") fct_slowdown_p99=$(value workload fct_slowdown_p99 "$out")" \
        "delivered_packets=$(value "$first" delivered_packets "$out") frames=$(value "$first" frames "$out")" \
        "digest=$digest same_fct_csv=$same_csv same_digest=$same_digest wall_s=$wall rss_kb=$rss"
}
read -r w r <"$ref.out.time"
echo "RESULT exp=ns3_fabric k=$k run=fabric ranks=0 hosts=$(value fabric hosts "$ref.out")" \
    "flows=$(value workload flows "$ref.out") flows_done=$(value workload flows_done "$ref.out")" \
    "fct_slowdown_p50=$(value workload fct_slowdown_p50 "$ref.out") fct_slowdown_p99=$(value workload fct_slowdown_p99 "$ref.out")" \
    "delivered_packets=$(value fabric delivered_packets "$ref.out") frames=0 digest=$ref_digest same_fct_csv=1" \
    "same_digest=1 wall_s=$w rss_kb=$r"
if [ $single = 1 ]; then
    o=$csv_dir/k${k}_ns3
    timed "$o.out" ./build/rnicq_fabric_ns3 "${ns3_args[@]}" --fct-csv="$o.csv" || exit 1
    read -r w r <"$o.out.time"
    report ns3 1 "$o.out" "$o.csv" "$w" "$r" ns3_fabric
fi
for n in 1 2; do
    o=$csv_dir/k${k}_mpi$n
    "${MPIRUN[@]}" -np $n ./build/rnicq_fabric_ns3_mpi --mpi=1 "${ns3_args[@]}" --fct-csv="$o.csv" >"$o.out" || exit 1
    report mpi$n $n "$o.out" "$o.csv" "$(value ns3 wall_s_max "$o.out")" "$(value ns3 rss_kb_max "$o.out")" ns3_fabric
    for ((i = 0; i < n; i++)); do
        line=$(grep "^RESULT ns3_rank=1 rank=$i " "$o.out")
        echo "RESULT exp=ns3_fabric k=$k rank_run=mpi${n}_r$i $(grep -o 'wall_s=[^ ]* rss_kb=[^ ]* cycles_run=[^ ]* events=[^ ]*' <<<"$line")"
    done
done
o=$csv_dir/k${k}_mpi2
python3 - "$o.out" "$k" "$(value ns3_fabric end_cycle "$o.out")" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
ranks = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in text.splitlines() if l.startswith("RESULT ns3_rank=1")]
ns3 = dict(re.findall(r"(\w+)=(\S+)", [l for l in text.splitlines() if l.startswith("RESULT ns3=1")][0]))
fab = dict(re.findall(r"(\w+)=(\S+)", [l for l in text.splitlines() if l.startswith("RESULT ns3_fabric=1")][0]))
clock_ps = int(ns3["cycle_ps"])
sim_ps = int(sys.argv[3]) * clock_ps
look = int(ns3["lookahead_ps"])
events = [int(r["events"]) for r in ranks]
print(f"RESULT exp=ns3_fabric k={sys.argv[2]} run=scaling lookahead_ps={look} sim_us={sim_ps / 1e6:.1f} "
      f"windows_max={sim_ps // look} events_total={sum(events)} events_rank_max={max(events)} "
      f"frames={fab['frames']} cross_frames={fab['cross_frames']} cycles_run_rank_max={max(int(r['cycles_run']) for r in ranks)}")
EOF
exit $bad
