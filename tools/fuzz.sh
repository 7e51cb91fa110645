#!/usr/bin/env bash
# libFuzzer runs of every harness tests/fuzz/fuzz_<engine>.c (clang -fsanitize=fuzzer,address,undefined).
#   tools/fuzz.sh short [names...]   a fixed number of runs each (make test): FUZZ_RUNS, default 20000
#   tools/fuzz.sh long  [names...]   10,000,000 runs each, two harnesses at a time (make fuzz)
# Each run starts from a copy of the checked-in seed corpus tests/fuzz/corpus/<engine>/ (new units
# go to build/fuzz/corpus-<mode>/, never into the repo), with -seed=1 so a short run is repeatable.
# A harness may set its own input bound with a line "FUZZ_MAX_LEN <n>" in its source (default 1024).
# Prints one RESULT line per harness and a closing
#   RESULT fuzz_execs_min=<fewest executions of any harness> findings=<crashes, leaks, timeouts, broken invariants>
# and exits non-zero on any finding (its input is kept in build/fuzz/findings/).
set -u
cd "$(dirname "$0")/.."
mode=${1:-short}
shift || true
# Long runs trade libFuzzer's comparison tracing (trace-cmp) and entropic scheduling for about 3x
# the executions per second (measured on fuzz_transport: 3.0 s -> 1.05 s CPU for 3,000 runs); the
# harness's checks and ASan + UBSan are the same in both modes.
case "$mode" in
short) runs=${FUZZ_RUNS:-20000}; par=1; extra_cflags=(-O1); extra_run=() ;;
long) runs=${FUZZ_RUNS:-10000000}; par=${FUZZ_JOBS:-2}; extra_cflags=(-O2 -fno-sanitize-coverage=trace-cmp); extra_run=(-entropic=0) ;;
*) echo "usage: $0 short|long [harness...]" >&2; exit 2 ;;
esac
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in tests/fuzz/fuzz_*.c; do
        [ -e "$f" ] || continue
        n=${f##*/fuzz_}
        names+=("${n%.c}")
    done
fi
[ ${#names[@]} -gt 0 ] || { echo "fuzz: no harness in tests/fuzz/"; exit 1; }
OUT=build/fuzz
mkdir -p "$OUT/findings" "$OUT/corpus-$mode" "$OUT/logs" "$OUT/bin-$mode"
CFLAGS=(-std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow "${extra_cflags[@]}" -g -DRNIC_DEBUG
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -I. -Itests -Itests/fuzz)

build_one() { # name
    local n=$1
    clang "${CFLAGS[@]}" "tests/fuzz/fuzz_$n.c" -o "$OUT/bin-$mode/fuzz_$n" 2>"$OUT/logs/$n.$mode.build" || {
        cat "$OUT/logs/$n.$mode.build"
        return 1
    }
}

run_one() { # name: runs one harness, writes its log
    local n=$1 max corpus log
    max=$(sed -n 's/.*FUZZ_MAX_LEN \([0-9][0-9]*\).*/\1/p' "tests/fuzz/fuzz_$n.c" | head -n 1)
    corpus="$OUT/corpus-$mode/$n" # per mode: a short run beside a long one leaves its corpus alone
    log="$OUT/logs/$n.$mode.log"
    rm -rf "$corpus" && mkdir -p "$corpus"
    [ -d "tests/fuzz/corpus/$n" ] && cp -r "tests/fuzz/corpus/$n/." "$corpus/"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$OUT/bin-$mode/fuzz_$n" -runs="$runs" -seed=1 -max_len="${max:-1024}" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 $FUZZ_EXTRA_RUN -artifact_prefix="$OUT/findings/$n-" "$corpus" >"$log" 2>&1
    echo "rc=$?" >>"$log"
}

rc_all=0
for n in "${names[@]}"; do
    [ -e "tests/fuzz/fuzz_$n.c" ] || { echo "fuzz: no tests/fuzz/fuzz_$n.c"; exit 2; }
    build_one "$n" || { echo "fuzz: $n does not build"; exit 1; }
done
export -f run_one
export OUT mode runs
export FUZZ_EXTRA_RUN="${extra_run[*]}"
printf '%s\n' "${names[@]}" | xargs -P "$par" -I{} bash -c 'run_one {}'

min=""
findings=0
for n in "${names[@]}"; do
    log="$OUT/logs/$n.$mode.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    secs=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    rc=$(sed -n 's/^rc=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
    f=0
    if [ "${rc:-1}" != 0 ] || [ -z "$execs" ] || grep -Eq '^(==[0-9]+==ERROR|SUMMARY: |.*invariant broken)' "$log"; then
        f=1
        rc_all=1
        echo "fuzz: $n FAILED (exit ${rc:-?}); log $log:"
        grep -E 'ERROR|SUMMARY|invariant broken|runtime error|Test unit written' "$log" | head -n 20
    fi
    findings=$((findings + f))
    execs=${execs:-0}
    if [ -z "$min" ] || [ "$execs" -lt "$min" ]; then min=$execs; fi
    echo "RESULT fuzz_harness=$n mode=$mode execs=$execs execs_per_s=${secs:-0} corpus_units=$(ls "$OUT/corpus-$mode/$n" | wc -l) findings=$f"
done
echo "RESULT fuzz_execs_min=$min findings=$findings"
exit $rc_all
