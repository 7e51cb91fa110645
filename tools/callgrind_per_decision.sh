#!/usr/bin/env bash
# Instructions per packet decision (valgrind --tool=callgrind, a stable count where host
# times flake): the Tassel engine and the binary-heap WF2Q+ baseline, counting only the
# timed loops (measured_run / heap_run), never setup or warm-up.
#   tools/callgrind_per_decision.sh [PACKETS]     (default 262144 = 4 x 64 K per point, so that the fair 64 K workload runs whole rounds)
# Ends with: RESULT ir_fair_1k=... ir_fair_64k=... ir_logu_64k=... heap_ir_fair_64k=...
set -eu
cd "$(dirname "$0")/.."
packets=${1:-262144}
bin=build/bench_ratelimit
out=build/callgrind
mkdir -p "$out"
count() { # qps workload [heap]: instructions per decision
    local f="$out/$1-$2${3:+-$3}.out" fn=measured_run
    [ "${3:-}" = heap ] && fn=heap_run
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$fn" --callgrind-out-file="$f" \
        "$bin" --point "$1" "$2" "$packets" ${3:-} >/dev/null 2>&1
    awk -v p="$packets" '/^(summary|totals):/ { ir = $2 } END { if (!ir) exit 1; printf "%.0f", ir / p }' "$f"
}
printf '%-30s %12s\n' "point ($packets packets)" "Ir/decision"
f1=$(count 1024 fair); printf '%-30s %12s\n' "tassel fair 1K QPs" "$f1"
f64=$(count 65536 fair); printf '%-30s %12s\n' "tassel fair 64K QPs" "$f64"
l64=$(count 65536 logu); printf '%-30s %12s\n' "tassel logu 64K QPs" "$l64"
h64=$(count 65536 fair heap); printf '%-30s %12s\n' "binary-heap WF2Q+ fair 64K" "$h64"
echo "RESULT ir_fair_1k=$f1 ir_fair_64k=$f64 ir_logu_64k=$l64 heap_ir_fair_64k=$h64"
