#!/usr/bin/env bash
# tools/trace_size.sh [--duration-us U]
# How big the trace CSV (--trace-csv, docs/trace_csv.md) grows per simulated millisecond: the
# default scenario (make run's 16-host leaf-spine, host model and RHCC on) and the k = 4 fat tree,
# each run for U us (default 200; no warm-up, no drain: the run is exactly U us) with the CSV
# counted through a pipe (nothing written to disk). Checks that the CSV has one row per trace
# event the engines counted (RESULT trace_events=) and none unnamed. Prints one line:
#   RESULT trace_sim_us=U trace_csv_bytes_per_sim_ms_default= trace_csv_events_per_sim_ms_default=
#          trace_csv_bytes_per_event_default= ..._fat_tree_k4=
# (bytes include the header line; events are the rows after it). tools/results.py runs it
# (experiment trace_size) and writes the figures into docs/results.md and docs/trace_csv.md.
# Exit status 1 when a run fails or its rows disagree with its count.
set -u
cd "$(dirname "$0")/.."
duration=200
while [ $# -gt 0 ]; do
    case $1 in
    --duration-us) duration=$2; shift 2 ;;
    *) echo "usage: $0 [--duration-us U]" >&2; exit 2 ;;
    esac
done
[ -x build/rnic_model ] || make -s build/rnic_model || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

line="RESULT trace_sim_us=$duration"
for name in default fat_tree_k4; do
    # the scenario's own output files are not wanted (default.conf writes make run's)
    ./build/rnic_model --scenario "scenarios/$name.conf" --quiet --set run.duration_us="$duration" \
        --set run.warmup_us=0 --set run.drain=off --set output.pcap= --set output.csv= \
        --set output.queue_csv= --set output.links_csv= --set output.vcd= \
        --trace-csv >(wc -lc >"$dir/$name.wc") >"$dir/$name.out" || { cat "$dir/$name.out"; exit 1; }
    for _ in $(seq 100); do # the pipe's reader may still be counting after the model exits
        [ -s "$dir/$name.wc" ] && break
        sleep 0.1
    done
    read -r lines bytes <"$dir/$name.wc" || { echo "trace_size: $name: no count of the CSV" >&2; exit 1; }
    events=$(sed -n 's/^RESULT.* trace_events=\([0-9]*\).*/\1/p' "$dir/$name.out")
    unnamed=$(sed -n 's/^RESULT.* trace_unnamed=\([0-9]*\).*/\1/p' "$dir/$name.out")
    if [ -z "$events" ] || [ "$((lines - 1))" != "$events" ] || [ "$unnamed" != 0 ]; then
        echo "trace_size: $name: $((lines - 1)) rows, the engines counted ${events:-?} events, ${unnamed:-?} unnamed" >&2
        exit 1
    fi
    line+=" trace_csv_bytes_per_sim_ms_$name=$((bytes * 1000 / duration))"
    line+=" trace_csv_events_per_sim_ms_$name=$((events * 1000 / duration))"
    line+=" trace_csv_bytes_per_event_$name=$(awk -v b="$bytes" -v e="$events" 'BEGIN { printf "%.1f", b / e }')"
done
echo "$line"
