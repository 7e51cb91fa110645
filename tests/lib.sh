# Shared by tests/run.sh (make test) and tests/check.sh (make check); sourced, not run.
# One line per step. What counts:
#   prog NAME CMD...   a test program: its closing "N passed, N failed" counts are added, and its
#                      "assertions N" line (tests/test.h) to the assertion total
#   step NAME CMD...   one check that can fail: counts as one test
#   claim NAME CMD...  a paper's or an issue's figure checked on a program's output: one test,
#                      also counted as a claim
#   smoke NAME CMD...  something that must run (a build, a program whose output later claims
#                      read): a failure fails the suite, a success is not counted as a test
#   parallel SPEC...   independent entries two at a time (the machine's two cores)
#   group_begin ... group_end   the entries between them, two at a time (later: after them,
#                      two at a time too)
# The suite ends with the totals and the closing line "N passed, N failed"; the ten longest
# steps (wall and CPU seconds) are listed before it. Logs: $LOGS/<name>.log, times $LOGS/<name>.time
set -u
passed=0
failed=0
assertions=0
claims=0
WARN=(-std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow)
CXXWARN=(-std=c++11 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow)
STRICT=("${WARN[@]}" -Wconversion -Wsign-conversion -Wcast-qual -Wstrict-prototypes -Wmissing-prototypes)
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
PREFIX_RE='^(rnic|rl|rq|tp|hcc)_'
TIMEFORMAT='%R %U %S'

suite_init() { # logs-dir objs-dir
    LOGS=$1
    OBJ=$2
    rm -rf "$LOGS" "$OBJ"
    mkdir -p "$LOGS" "$OBJ"
    export LOGS OBJ
    suite_start=$SECONDS
}

fail_log() { # name: print the tail of the step's log
    sed 's/^/    /' "$LOGS/$1.log" | tail -n 25
}

# run_logged NAME CMD...: CMD with its output in $LOGS/NAME.log and its wall, user and system
# seconds in $LOGS/NAME.time; returns its exit status
run_logged() {
    local name=$1 rc
    shift
    { time { "$@" >"$LOGS/$name.log" 2>&1; echo $? >"$LOGS/$name.rc"; }; } 2>"$LOGS/$name.time"
    rc=$(cat "$LOGS/$name.rc")
    return "$rc"
}

tally() { # kind name rc
    local kind=$1 name=$2 rc=$3 last p f a
    case $kind in
    prog)
        last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOGS/$name.log" | tail -n 1)
        if [ -n "$last" ]; then
            p=${last%% passed*}
            f=${last#*, }
            f=${f%% failed*}
        else
            p=0
            f=0
        fi
        a=$(sed -n 's/^assertions \([0-9][0-9]*\)$/\1/p' "$LOGS/$name.log" | tail -n 1)
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # crashed or never reported
        if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # ran no test case: that is a failure
        passed=$((passed + p))
        failed=$((failed + f))
        assertions=$((assertions + ${a:-0}))
        if [ "$f" -eq 0 ]; then
            echo "ok   $name ($p passed${a:+, $a assertions})"
        else
            echo "FAIL $name ($p passed, $f failed, exit $rc)"
            fail_log "$name"
        fi
        ;;
    step | claim)
        if [ "$rc" -eq 0 ]; then
            passed=$((passed + 1))
            [ "$kind" = claim ] && claims=$((claims + 1))
            echo "ok   $name"
        else
            failed=$((failed + 1))
            echo "FAIL $name"
            fail_log "$name"
        fi
        ;;
    smoke)
        if [ "$rc" -eq 0 ]; then
            echo "ran  $name"
        else
            failed=$((failed + 1))
            echo "FAIL $name"
            fail_log "$name"
        fi
        ;;
    esac
}

run_kind() { # kind name cmd...: now, or collected when inside a group
    local k=$1 n=$2
    if [ "$grouping" = 1 ]; then
        enqueue "$@"
        return 0
    fi
    shift 2
    run_logged "$n" "$@"
    tally "$k" "$n" $?
}
prog() { run_kind prog "$@"; }
step() { run_kind step "$@"; }
claim() { run_kind claim "$@"; }
smoke() { run_kind smoke "$@"; }

# parallel SPEC...: independent entries two at a time, each SPEC "KIND NAME CMD" (KIND prog, step,
# claim or smoke; CMD a shell command line, run with eval in a subshell, so it may call the
# suite's functions and read its arrays); their lines and counts follow in SPEC order, as if run
# one after another.
parallel() {
    local spec kind rest name running=0
    for spec in "$@"; do
        rest=${spec#* }
        name=${rest%% *}
        (
            { time { eval "${rest#* }" >"$LOGS/$name.log" 2>&1; echo $? >"$LOGS/$name.rc"; }; } 2>"$LOGS/$name.time"
        ) &
        running=$((running + 1))
        if [ "$running" -ge 2 ]; then
            wait -n
            running=$((running - 1))
        fi
    done
    wait
    for spec in "$@"; do
        kind=${spec%% *}
        rest=${spec#* }
        name=${rest%% *}
        tally "$kind" "$name" "$(cat "$LOGS/$name.rc" 2>/dev/null || echo 127)"
    done
}

# group_begin ... group_end: the prog/step/claim/smoke lines between them are collected and run
# two at a time at group_end (in the order written); a line prefixed `later` runs after them (a
# step that reads what the group's steps wrote), the later lines two at a time as well: each may
# read what the group wrote, not what another later line writes.
grouping=0
group_specs=()
group_later=()
group_begin() {
    grouping=1
    group_specs=()
    group_later=()
}
enqueue() { # kind name cmd...
    group_specs+=("$1 $2 $(printf '%q ' "${@:3}")")
}
later() {
    if [ "$grouping" = 1 ]; then
        group_later+=("$(printf '%q ' "$@")")
    else
        "$@"
    fi
}
group_end() {
    local l
    grouping=0
    [ ${#group_specs[@]} -eq 0 ] || parallel "${group_specs[@]}"
    group_specs=()
    grouping=1 # the later lines, collected the same way
    for l in "${group_later[@]}"; do
        eval "$l"
    done
    grouping=0
    [ ${#group_specs[@]} -eq 0 ] || parallel "${group_specs[@]}"
    group_specs=()
    group_later=()
}

# A gate must also fail on a file that breaks its rule, or it proves nothing.
expect_fail() { if "$@"; then return 1; else return 0; fi; }

result_value() { # file key: the value of key= on the file's first RESULT line that has it
    sed -n 's/^RESULT.* '"$2"'=\([^ ]*\).*/\1/p;s/^RESULT '"$2"'=\([^ ]*\).*/\1/p' "$1" | head -n 1
}
awk_true() { awk "BEGIN { exit !($1) }"; } # exit 0 when the awk expression over the values holds

suite_end() { # label
    local f
    echo "-- the ten longest steps (wall s, CPU s):"
    for f in "$LOGS"/*.time; do
        [ -e "$f" ] || continue
        awk -v n="$(basename "$f" .time)" 'NF == 3 { printf "%8.1f %8.1f  %s\n", $1, $2 + $3, n }' "$f"
    done | sort -rn | head -n 10
    echo "$1: $((SECONDS - suite_start)) s; $assertions assertions in the test programs, $claims claims checked"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
