#!/usr/bin/env bash
# Instructions per block of the QoS engine model (valgrind --tool=callgrind, counting only the
# timed workload qos_run(): descriptor writes, segmenter, handler, status polls, responder;
# the event-driven harness of bench/bench_qos.c, which skips the cycles in which neither the
# engine nor the harness has anything to do).
#   tools/callgrind_qos.sh [TRANSFERS]      (default 10000; BENCH_QOS=path picks another binary)
# Ends with: RESULT qos_ir_per_block=... qos_ir_per_cycle=... qos_harness_pct=... qos_engine_ir_per_block=...
#
# How the harness share (qos_harness_pct) is measured: callgrind runs with --compress-strings=no
# --compress-pos=no and its output file is read directly (no callgrind_annotate). The total is
# everything executed while qos_run is on the stack, split into
#   engine  = the inclusive cost of every call from qos_run to a function named rq_qos_* (with
#             compiler clones such as rq_qos_tick.part.0) or rq__* (the engine's internals,
#             reached through an rq_qos_* wrapper the compiler inlined, e.g. rq__next_event),
#             plus qos_run's self cost on lines of rnicq.h (inlined code, fi=/fe=) that lie
#             inside an rq_qos_* or rq__* function of the header (rq_qos_now, the space_*
#             accessors, the inlined part of rq_qos_pop_block, ...);
#   harness = the rest: qos_run's own lines of bench/bench_qos.c, rnicq.h code of other
#             functions inlined into it (the PRNG, rnic_ring_space), and its calls to anything
#             else (rq_desc_encode, the PRNG's out-of-line parts, the responder's helpers).
# qos_harness_pct = 100 * harness / total; qos_engine_ir_per_block = engine / blocks. The script
# checks that the parts add up to callgrind's total.
set -eu
cd "$(dirname "$0")/.."
n=${1:-10000}
bin=${BENCH_QOS:-./build/bench_qos}
out=build/callgrind
mkdir -p "$out"
f="$out/qos.out"
log=$("$bin" --quick --transfers "$n" | grep "^bench_qos: ")  # the first line: the timed run
blocks=$(echo "$log" | sed -n 's/^bench_qos: [0-9]* transfers, \([0-9]*\) blocks.*/\1/p')
cycles=$(echo "$log" | sed -n 's/.* in \([0-9]*\) cycles.*/\1/p')
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qos_run --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$f" "$bin" --quick --transfers "$n" >/dev/null 2>&1
ir=$(awk '/^(summary|totals):/ { ir = $2 } END { print ir + 0 }' "$f")
# self and call costs of fn=qos_run: a cost line is "<line> <Ir>"; after "calls=" the next cost
# line is the call's inclusive cost, charged to the callee named by the preceding cfn=. A self
# cost line of code inlined from another file (fi=/fe=, i.e. rnicq.h) is charged to the function
# of the header that encloses that line: engine when it is rq_qos_* or rq__*, else harness.
split=$(awk '
    function owner(file, ln,    line, k, fn2, cur) {  # the function a header line lies in
        if (!(file in loaded)) {
            loaded[file] = 1; k = 0; cur = ""
            while ((getline line < file) > 0) {
                k++
                if (line ~ /^[A-Za-z_][A-Za-z_0-9 *]*[ *]([a-z_][a-z_0-9]*)\(/ && line !~ /;[ \t]*$/ && line !~ /^(typedef|#)/) {
                    fn2 = line; sub(/\(.*/, "", fn2); sub(/.*[ *]/, "", fn2); cur = fn2
                }
                fnof[file, k] = cur
            }
            close(file)
        }
        return fnof[file, ln]
    }
    /^fl=/ { fl = substr($0, 4); cf = fl; next }
    /^(fi|fe)=/ { cf = substr($0, 4); next }
    /^fn=/ { fn = substr($0, 4); cf = fl; next }
    /^cfn=/ { cfn = substr($0, 5); next }
    /^calls=/ { incall = 1; next }
    /^[0-9+*-]/ {
        if (incall) {
            incall = 0
            if (fn == "qos_run") { if (cfn ~ /^rq_(qos)?_/) eng += $2; else other += $2 }
        } else if (fn == "qos_run") {
            if (cf != fl && owner(cf, $1) ~ /^rq_(qos)?_/) inl += $2; else self += $2
        }
        next
    }
    END { printf "%.0f %.0f %.0f %.0f\n", self, other, eng, inl }' "$f")
read -r self other eng inl <<<"$split"
echo "$n transfers: $blocks blocks, $cycles cycles, $ir instructions in qos_run: harness $self self + $other in other" \
    "calls, engine $eng in rq_qos_* / rq__* calls + $inl inlined into qos_run"
if [ "$((self + other + eng + inl))" -ne "$ir" ]; then
    echo "callgrind_qos: qos_run's self + calls ($((self + other + eng + inl))) != total ($ir)" >&2
    exit 1
fi
awk -v ir="$ir" -v b="$blocks" -v c="$cycles" -v h="$((self + other))" -v e="$((eng + inl))" 'BEGIN {
    printf "RESULT qos_ir_per_block=%.0f qos_ir_per_cycle=%.0f qos_harness_pct=%.1f qos_engine_ir_per_block=%.0f\n",
        ir / b, ir / c, 100 * h / ir, e / b }'
