#!/usr/bin/env bash
# make coverage: line and branch coverage of src/ (gcc --coverage -O0, gcovr) over what make test
# runs of the engines: every unit test tests/test_*.c, every fuzz harness tests/fuzz/fuzz_*.c
# replayed over its seed corpus tests/fuzz/corpus/<engine>/ (tests/fuzz/replay_main.c), the
# composed RNIC's short scenarios of tests/run.sh section 16, and the examples that run in
# seconds.
#
# The tests include the generated headers, so gcov would credit every line to ratelimit.h & co.
# Instead `amalgamate.py --line-directives` writes the headers with #line directives into
# build/coverage/tree/, beside copies of tests/ and examples/ (so that their relative includes,
# "../transport.h", find those headers too), and gcov credits each line to its src/ file.
#
# RNIC_DEBUG is on, as in make test, so debug-only checks count; RNIC_ASSERT is routed through
# an out-of-line function (build/coverage/cov_assert.c): the invariant's expression is evaluated
# on its src/ line, but the abort arm (which a correct engine never takes) is not a src/ branch.
#
# Writes docs/coverage.md (the table between its coverage:begin/end markers; the rest of the file
# is written by hand) and docs/coverage.txt (gcovr's text summary), the per-line HTML report in
# build/coverage/html/, the uncovered lines per file in build/coverage/uncovered.txt, and ends with
#   RESULT line_cov_pct=X branch_cov_pct=Y     (src/ totals)
# Exits non-zero when a program fails (its log: build/coverage/logs/).
set -u
cd "$(dirname "$0")/.."
COV=build/coverage
TREE=$COV/tree
rm -rf "$COV"
mkdir -p "$TREE" "$COV/bin" "$COV/logs" "$COV/html"
python3 amalgamate.py --line-directives "$TREE" >/dev/null || exit 1
cp -r tests examples "$TREE/"

cat >"$COV/cov_assert.h" <<'EOF'
/* make coverage: RNIC_ASSERT evaluates its invariant on the engine's line; the check is here. */
void coverage_assert_hook(int holds, const char *expr, const char *file, int line);
#define RNIC_ASSERT(x) coverage_assert_hook(!!(x), #x, __FILE__, __LINE__)
EOF
cat >"$COV/cov_assert.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
void coverage_assert_hook(int holds, const char *expr, const char *file, int line);
void coverage_assert_hook(int holds, const char *expr, const char *file, int line)
{
    if (!holds) {
        fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, expr);
        abort();
    }
}
EOF
gcc -std=c99 -O1 -c "$COV/cov_assert.c" -o "$COV/cov_assert.o" || exit 1

WARN=(-std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow)
CFLAGS=("${WARN[@]}" -O0 -g --coverage -DRNIC_DEBUG -include "$COV/cov_assert.h" -I"$TREE" -I"$TREE/tests")
read -r -a STB <<<"$(pkg-config --cflags --libs stb 2>/dev/null || echo -I/usr/include/stb -lstb)"
failed=0
ran=0

# build NAME SOURCES... [-- EXTRA LINK ARGS]: one coverage binary build/coverage/bin/NAME
build() {
    local name=$1
    shift
    gcc "${CFLAGS[@]}" "$@" "$COV/cov_assert.o" -o "$COV/bin/$name" "${STB[@]}" -lxxhash -lm >"$COV/logs/$name.build.log" 2>&1 || {
        echo "FAIL build $name"
        sed 's/^/    /' "$COV/logs/$name.build.log" | tail -n 15
        failed=$((failed + 1))
        return 1
    }
}
# run LOGNAME CMD...: runs from the repository root (tests read their files from there)
run() {
    local log=$1 t0 rc
    shift
    t0=$(date +%s)
    "$@" >"$COV/logs/$log.log" 2>&1
    rc=$?
    ran=$((ran + 1))
    if [ $rc -ne 0 ]; then
        echo "FAIL $log (exit $rc)"
        sed 's/^/    /' "$COV/logs/$log.log" | tail -n 15
        failed=$((failed + 1))
    else
        echo "ok   $log ($(($(date +%s) - t0)) s) $(grep -E '^[0-9]+ passed, [0-9]+ failed$|^RESULT' "$COV/logs/$log.log" | tail -n 1 | cut -c1-100)"
    fi
}

# ---- the unit tests ----
# (the loops read the snapshot in $TREE: a file that lands while this runs waits for the next run)
for src in "$TREE"/tests/test_*.c; do
    t=$(basename "$src" .c)
    build "$t" "$TREE/tests/$t.c" && run "$t" "$COV/bin/$t"
done

# ---- the fuzz harnesses over their seed corpora (each harness picked up as it lands) ----
for src in "$TREE"/tests/fuzz/fuzz_*.c; do
    [ -e "$src" ] || continue
    n=$(basename "$src" .c)
    n=${n#fuzz_}
    [ -d "$TREE/tests/fuzz/corpus/$n" ] || { echo "skip fuzz_$n: no corpus tests/fuzz/corpus/$n"; continue; }
    build "fuzz_$n" -I"$TREE/tests/fuzz" "$TREE/tests/fuzz/fuzz_$n.c" "$TREE/tests/fuzz/replay_main.c" &&
        run "fuzz_$n" "$COV/bin/fuzz_$n" "$TREE/tests/fuzz/corpus/$n"
done

# ---- the composed RNIC: the short scenarios of tests/run.sh section 16 ----
MODEL_ARGS=(--duration-us 3000 --warmup-us 1000 --quiet)
CAP_ARGS=(--rates-mbps 2000,1500 --qps 12 --sizes 64,262144 --depth 16 --duration-us 3000 --warmup-us 500 --quiet)
if build rnic_model -I"$TREE/examples/rnic_model" "$TREE/examples/rnic_model/rnic_model.c"; then
    run rnic_model-incast "$COV/bin/rnic_model" "${MODEL_ARGS[@]}"
    run rnic_model-caps "$COV/bin/rnic_model" "${CAP_ARGS[@]}"
    run rnic_model-loss "$COV/bin/rnic_model" --loss-ppm 1000 --pfc off --duration-us 2000 --warmup-us 500 --quiet
    run rnic_model-qos "$COV/bin/rnic_model" --sched qos "${CAP_ARGS[@]}"
    run rnic_model-tick-only "$COV/bin/rnic_model" "${MODEL_ARGS[@]}" --duration-us 1500 --tick-only
fi

# ---- the examples that take seconds (their --quick runs where make test uses --quick) ----
for ex in palos_hello qos_hello palos_isolation palos_weights qos_rates tassel_accuracy tassel_rate_change \
    tassel_storm:--quick tonic_irn_loss:--quick tonic_ndp_incast:--quick tonic_dcqcn_pair:--quick tonic_tables; do
    name=${ex%%:*}
    arg=${ex#*:}
    if [ "$arg" = "$ex" ]; then arg=""; fi
    [ -e "$TREE/examples/$name.c" ] || continue
    build "$name" "$TREE/examples/$name.c" && run "$name" "$COV/bin/$name" $arg
done

# ---- the report ----
GCOVR=(gcovr --root . --filter 'src/' --exclude-unreachable-branches -j 1 "$COV/bin")
"${GCOVR[@]}" --json-summary "$COV/summary.json" --json-summary-pretty --json "$COV/lines.json" \
    --txt "$COV/coverage.txt" --html-details "$COV/html/index.html" >"$COV/logs/gcovr.log" 2>&1 || {
    echo "gcovr failed"
    tail -n 20 "$COV/logs/gcovr.log"
    exit 1
}
cp "$COV/coverage.txt" docs/coverage.txt
python3 tools/coverage_report.py "$COV/summary.json" "$COV/lines.json" docs/coverage.md "$COV/uncovered.txt" \
    "$ran runs: the unit tests, the fuzz corpora, the composed RNIC's short scenarios and the quick examples" || exit 1
[ "$failed" -eq 0 ] || { echo "coverage: $failed program(s) failed (logs in $COV/logs/)"; exit 1; }
