#!/usr/bin/env bash
# tools/fabric_run.sh [--by-fraction] [--tolerance-pct P] SCENARIO [rnic_model options...]
# Runs build/rnic_model --scenario SCENARIO (SCENARIO "-": the built-in incast, rnic_model
# without --scenario, shaped by the options), then the share reference (tools/share_ref.py, with
# --ack-priority: the fabric's switches serve control packets first) on the
# run's flows and paths (--flows-json) against each tenant's measured payload (--shares-csv), and
# prints the model's report with its RESULT line extended by `share_err_pct=E` (the largest
# tenant's distance from its expected share, %) and `share_mode=gbps|fraction`.
# --by-fraction compares each tenant's fraction of what the receivers absorbed (where a receiving
# host's memory may bind, issue 30), otherwise each tenant's Gb/s.
# Exit status: the model's (3: bytes lost or not drained), else 4 when share_err_pct is above
# --tolerance-pct (default: no limit, the figure is reported), 2 on bad arguments.
set -u
by_fraction=()
tolerance=""
while [ $# -gt 0 ]; do
    case $1 in
    --by-fraction) by_fraction=(--by-fraction) ;;
    --tolerance-pct) tolerance=${2:-}; shift ;;
    *) break ;;
    esac
    shift
done
scenario=${1:-}
[ -n "$scenario" ] || { echo "usage: $0 [--by-fraction] [--tolerance-pct P] SCENARIO [rnic_model options...]" >&2; exit 2; }
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
scenario_args=(--scenario "$scenario")
[ "$scenario" = - ] && scenario_args=()
./build/rnic_model "${scenario_args[@]}" "$@" --flows-json "$dir/flows.json" --shares-csv "$dir/shares.csv" >"$dir/out"
rc=$?
if [ ! -s "$dir/flows.json" ] || [ ! -s "$dir/shares.csv" ]; then
    cat "$dir/out"
    exit $((rc ? rc : 1))
fi
python3 tools/share_ref.py "$dir/flows.json" --compare "$dir/shares.csv" "${by_fraction[@]}" --ack-priority --tolerance-pct 1000000 \
    >"$dir/ref" 2>"$dir/ref.err"
ref_rc=$?
err=$(sed -n 's/^RESULT.* share_err_pct=\([^ ]*\).*/\1/p' "$dir/ref")
if [ "$ref_rc" -ne 0 ] || [ -z "$err" ]; then
    cat "$dir/out" "$dir/ref" "$dir/ref.err"
    echo "fabric_run: the share reference failed" >&2
    exit 1
fi
mode=gbps
[ ${#by_fraction[@]} -gt 0 ] && mode=fraction
grep -v '^RESULT' "$dir/out"
sed 's/^share_ref: /  expected share: /' "$dir/ref.err"
sed -n "s/^\(RESULT .*\)$/\1 share_err_pct=$err share_mode=$mode/p" "$dir/out"
[ "$rc" -ne 0 ] && exit "$rc"
if [ -n "$tolerance" ] && awk -v e="$err" -v t="$tolerance" 'BEGIN { exit !(e > t) }'; then
    echo "fabric_run: share_err_pct=$err is above $tolerance" >&2
    exit 4
fi
exit 0
