#!/usr/bin/env bash
# The HPCC paper's web-search experiment (Y. Li et al., SIGCOMM 2019; docs/workloads.md) on the
# fabric: scenarios/websearch_fattree.conf (k = 4 fat tree, 16 hosts at 100 Gb/s, 400 Gb/s switch links, DCQCN
# as the HPCC simulator runs it (variant hpcc), its switch settings) at 30 % and 50 % load, one run
# after the other (the machine is shared).
#
#   tools/exp_hpcc_websearch.sh [--duration-us U] [--csv-dir DIR] [--loads 30,50] [--model PATH]
#                               [rnic_model options...]
# Defaults: 100 ms of flow arrivals per load (then the drain), CSVs in build/hpcc_websearch.
# Per load it writes DIR/fct_<load>.csv (one line per flow) and DIR/buckets_<load>.csv (slowdown
# p50/p95/p99 per size tenth), and prints one line
#   RESULT exp=hpcc_websearch load_pct=L duration_us=U hosts=H flows=N load=.. fct_slowdown_p50=..
#     fct_slowdown_p95=.. fct_slowdown_p99=.. small_flow_p99=.. large_flow_p99=..
#     bucket<i>_max_kb=.. bucket<i>_p50=.. bucket<i>_p95=.. bucket<i>_p99=.. (i = 0..9)
#     cnps=.. ecn_marked=.. pfc_frames=.. queue_max_kb=.. link_util_max_pct=.. bytes_lost=0
# Exit status: 1 when a run fails, loses bytes or does not drain; 2 on bad arguments.
set -u
duration_us=100000
csv_dir=build/hpcc_websearch
loads=30,50
model=./build/rnic_model
while [ $# -gt 0 ]; do
    case $1 in
    --duration-us) duration_us=${2:?}; shift ;;
    --csv-dir) csv_dir=${2:?}; shift ;;
    --loads) loads=${2:?}; shift ;;
    --model) model=${2:?}; shift ;;
    *) break ;;
    esac
    shift
done
mkdir -p "$csv_dir" || exit 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# the value of KEY on the RESULT line of FILE whose first key is FIRST
value() { sed -n "s/^RESULT $1=.* $2=\([^ ]*\).*/\1/p" "$3" | head -n 1; }

for load in ${loads//,/ }; do
    fct=$csv_dir/fct_$load.csv
    buckets=$csv_dir/buckets_$load.csv
    "$model" --scenario scenarios/websearch_fattree.conf --quiet \
        --set "tenant.web.load_pct=$load" --set "run.duration_us=$duration_us" \
        --fct-csv "$fct" --fct-buckets-csv "$buckets" "$@" >"$out"
    rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q '^RESULT workload=1' "$out" || [ ! -s "$buckets" ]; then
        cat "$out"
        echo "exp_hpcc_websearch: the run at $load % failed (exit $rc)" >&2
        exit 1
    fi
    if [ "$(value workload bytes_lost "$out")" != 0 ] || [ "$(value workload drained "$out")" != 1 ]; then
        cat "$out"
        echo "exp_hpcc_websearch: the run at $load % lost bytes or did not drain" >&2
        exit 1
    fi
    line="RESULT exp=hpcc_websearch load_pct=$load duration_us=$duration_us hosts=$(value fabric hosts "$out")"
    for k in flows load fct_slowdown_p50 fct_slowdown_p95 fct_slowdown_p99 small_flow_p99 large_flow_p99; do
        line="$line $k=$(value workload $k "$out")"
    done
    # the size tenths: largest size in KB (the x of the paper's plots) and the three percentiles
    line="$line $(awk -F, 'NR > 1 { printf "%sbucket%d_max_kb=%.1f bucket%d_p50=%.3f bucket%d_p95=%.3f bucket%d_p99=%.3f",
        (NR > 2 ? " " : ""), $1, $2 / 1000, $1, $4, $1, $5, $1, $6 }' "$buckets")"
    for k in cnps ecn_marked pfc_frames queue_max_kb link_util_max_pct bytes_lost; do
        line="$line $k=$(value fabric $k "$out")"
    done
    echo "$line"
done
