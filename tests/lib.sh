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

prog() { local n=$1; shift; run_logged "$n" "$@"; tally prog "$n" $?; }
step() { local n=$1; shift; run_logged "$n" "$@"; tally step "$n" $?; }
claim() { local n=$1; shift; run_logged "$n" "$@"; tally claim "$n" $?; }
smoke() { local n=$1; shift; run_logged "$n" "$@"; tally smoke "$n" $?; }

# parallel SPEC...: independent entries two at a time, each SPEC "KIND NAME CMD" (KIND prog, step,
# claim or smoke; CMD one shell command line that may call the functions exported by the suite);
# their lines and counts follow in SPEC order, as if run one after another.
parallel() {
    local spec kind rest name
    printf '%s\n' "$@" | xargs -d '\n' -P 2 -I{} bash -c 'spec=$1; rest=${spec#* }; name=${rest%% *}
        TIMEFORMAT="%R %U %S"; { time { bash -c "${rest#* }" >"$LOGS/$name.log" 2>&1; echo $? >"$LOGS/$name.rc"; }; } 2>"$LOGS/$name.time"' _ {}
    for spec in "$@"; do
        kind=${spec%% *}
        rest=${spec#* }
        name=${rest%% *}
        tally "$kind" "$name" "$(cat "$LOGS/$name.rc" 2>/dev/null || echo 127)"
    done
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
