#!/usr/bin/env bash
# Soak: run the composed RNIC (build/rnic_model, the built-in incast) for a number of cycles and
# sample its resident memory over time; its RSS must stay flat once warmed up.
#
#   tools/soak.sh [--cycles N] [--warmup-pct P] [--interval S] [--csv FILE] [--max-growth-kb K]
#                 [--model PROG] [-- MODEL_ARGS...]
#
# --cycles      simulated cycles (default 10^9 = 4 s at the model's 250 MHz; whole microseconds)
# --warmup-pct  the warm-up, as a share of the simulated cycles (default 10): the model allocates
#               all it uses at init, but glibc's arenas, stdio and the engines' caller memory
#               are touched lazily in the first simulated moments
# --interval    seconds between samples (default 1)
# --csv         the samples, "seconds,cycle,rss_kb" (default build/soak_rss.csv); the model's report
#               goes beside it (.out), its progress lines too (.progress)
# --max-growth-kb  exit 1 when the growth exceeds K KB (otherwise only a model failure or too few
#               samples after the warm-up fail)
# MODEL_ARGS    more options for the model (e.g. --lat-samples all: the negative control)
#
# The RSS is VmRSS of /proc/<pid>/status; the cycle is the last "progress cycle=C" line the model
# printed (--progress-log: 1,000 per run). warm = the first sample at or past the warm-up cycle,
# end = the last sample taken while the model simulated (the drain included; sampling stops at
# its "progress report" line, before the report sorts a copy of the kept latencies), growth =
# end - warm.
# Prints: RESULT soak_cycles=... soak_rss_warm_kb=... soak_rss_end_kb=... soak_rss_growth_kb=...
#         soak_host_s=... soak_rss_max_kb=... soak_samples=... soak_bytes_lost=... soak_digest=...
# (soak_cycles: the cycles the model simulated, its drain included; soak_rss_max_kb: the largest
# sample after the warm-up; soak_samples: the samples after it.)
set -u
cd "$(dirname "$0")/.."
cycles=1000000000
warmup_pct=10
interval=1
csv=build/soak_rss.csv
max_growth=
model=build/rnic_model
while [ $# -gt 0 ]; do
    case "$1" in
    --cycles) cycles=$2; shift 2 ;;
    --warmup-pct) warmup_pct=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --max-growth-kb) max_growth=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--cycles N] [--warmup-pct P] [--interval S] [--csv FILE] [--max-growth-kb K] [--model PROG] [-- MODEL_ARGS...]" >&2
       exit 2 ;;
    esac
done
for v in "$cycles" "$warmup_pct"; do
    [[ "$v" =~ ^[0-9]+$ ]] || { echo "soak: --cycles and --warmup-pct take whole numbers" >&2; exit 2; }
done
[ -x "$model" ] || { echo "soak: $model not built (make build/rnic_model)" >&2; exit 2; }
clock_hz=250000000 # the model's clock (rnic_model.c CLOCK_HZ)
duration_us=$(((cycles + clock_hz / 1000000 - 1) / (clock_hz / 1000000)))
[ "$duration_us" -ge 4 ] || { echo "soak: at least 1,000 cycles" >&2; exit 2; }
model_warmup_us=2000 # the model's own measurement warm-up (its default), shorter on short runs
[ "$duration_us" -gt 4000 ] || model_warmup_us=$((duration_us / 2))
warm_cycle=$((cycles * warmup_pct / 100))
out=${csv%.csv}.out
progress=${csv%.csv}.progress
mkdir -p "$(dirname "$csv")"

"$model" --progress-log --duration-us "$duration_us" --warmup-us "$model_warmup_us" "$@" >"$out" 2>"$progress" &
pid=$!
start=$(date +%s.%N)
echo "seconds,cycle,rss_kb" >"$csv"
while :; do
    # a zombie (exited, not yet waited for) has no VmRSS line: the run is over
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    [ -n "$rss" ] || break
    last=$(tail -n 1 "$progress" 2>/dev/null)
    # the simulation is over: the report's sort buffers (a copy of the kept latencies, freed at
    # exit) are not the run's memory over time
    case "$last" in "progress report"*) break ;; esac
    cycle=$(echo "$last" | sed -n 's/^progress cycle=\([0-9]*\) packets=.*/\1/p')
    echo "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'),${cycle:-0},$rss" >>"$csv"
    sleep "$interval"
done
wait "$pid"
rc=$?
host_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

value() { sed -n 's/^RESULT.* '"$1"'=\([^ ]*\).*/\1/p' "$out" | head -n 1; }
sim_cycles=$(sed -n 's/^  scheduler: .* cycles of \([0-9]*\) simulated.*/\1/p' "$out" | head -n 1)
lost=$(value bytes_lost)
digest=$(value digest)
read -r warm end max n < <(awk -F, -v w="$warm_cycle" 'NR > 1 && $2 >= w {
        if (!n) warm = $3
        n++; end = $3; if ($3 > max) max = $3
    } END { printf "%s %s %s %d\n", n ? warm : "-", n ? end : "-", n ? max : "-", n }' "$csv")
growth=-
[ "$n" -gt 0 ] && growth=$((end - warm))
echo "RESULT soak_cycles=${sim_cycles:-?} soak_rss_warm_kb=$warm soak_rss_end_kb=$end soak_rss_growth_kb=$growth" \
    "soak_host_s=$host_s soak_rss_max_kb=$max soak_samples=$n soak_bytes_lost=${lost:-?} soak_digest=${digest:-?}"

if [ "$rc" -ne 0 ] || [ -z "$lost" ]; then
    echo "soak: the model failed (exit $rc); its output: $out, $progress" >&2
    exit 1
fi
if [ "$n" -lt 3 ]; then # growth over fewer samples proves nothing
    echo "soak: only $n samples after the warm-up (cycle $warm_cycle): run longer or sample more often" >&2
    exit 1
fi
if [ -n "$max_growth" ] && [ "$growth" -gt "$max_growth" ]; then
    echo "soak: RSS grew $growth KB after the warm-up (more than $max_growth KB); samples: $csv" >&2
    exit 1
fi
exit 0
