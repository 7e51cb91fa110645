# tests/fabric_lib.sh -- what tests/fabric_protocols.sh and tests/fabric_qos.sh share: sourced,
# after `cd` to the repository. Counts checks in $passed / $failed.
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
field() { # RESULT-line field: field NAME LINE
    sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}
check() { # check NAME CONDITION-DESCRIPTION TEST-EXPRESSION...
    local name=$1 what=$2
    shift 2
    if "$@"; then ok "$name: $what"; else bad "$name: $what"; fi
}
