#!/usr/bin/env bash
# tests/fabric_protocols.sh -- any of transport.h's six protocols per tenant in the fabric's NIC
# (issue 30, Build item 2; docs/fabric_model.md, "The NIC"). Runs build/rnic_model on short
# scenarios (tens to a few thousand microseconds of simulated time) and checks its RESULT line:
#   - per protocol, a 2:1 star incast (scenarios/star_incast.conf cut to 3 hosts): every byte
#     checked once (bytes_lost=0), drained, packets delivered; the same with 2,000 ppm random loss
#     on every link and PFC off: still every byte, and retransmissions > 0; --tick-only gives the
#     event scheduler's digest;
#   - NDP through trimming switches (switch.trim = on, PFC off): the trimmed headers are answered
#     (NAKs = trim notices > 0, retransmissions > 0) and every byte arrives;
#   - one NIC with two tenants on two protocols (DCQCN + NewReno, IRN + SACK, NewReno + DCQCN,
#     NDP + IRN, with and without loss): both tenants' bytes delivered, nothing lost, tick-only =
#     event; per-QP holds across transports: an IRN tenant capped, a NewReno one beside it; and
#     isolation: a DCQCN tenant to an idle host keeps the rest of the link while a window / token
#     tenant of the same NIC is held back by a congested path;
#   - one QP on an idle 100 Gb/s two-host star reaches 90 % of the payload line rate, the bound
#     computed here from the scenario's numbers (link rate, payload) and RoCEv2's per-packet
#     overhead on Ethernet (not from the model's output);
#   - two DCQCN tenants with different variants run with different DCQCN settings: from the trace
#     (--trace-csv), the rate increases of each tenant's transport: DCQCN's paper preset increases
#     a rate every 55 us timer period (13,750 cycles at 250 MHz), the Mellanox preset only from its
#     300 us timer (75,000 cycles): the shortest gap between two increases of one QP tells them
#     apart; swapping the tenants' variants swaps the figures;
#   - a rate cap on a window protocol's tenant is refused (exit 2, the key named);
#   - the out-of-order byte checker (tests/fabric_ooo_check.c, built here): its five cases.
# FABRIC_QUICK=1 (make test) stops after the per-protocol incasts and NDP's trimming.
# Ends with "N passed, N failed"; exit 1 on any failure.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${FABRIC_PROTOCOLS_BIN:-build/rnic_model}
[ -x "$BIN" ] || make -s "$BIN" || exit 1
. tests/fabric_lib.sh
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# The 2:1 incast: hosts 1 and 2 send both tenants to host 0 (star_incast.conf is 8:1; small
# messages keep the drain short).
INCAST=(--scenario scenarios/star_incast.conf --quiet --set topology.hosts=3 --set tenant.bulk.src=1-2
    --set tenant.bulk.msg_bytes=4096,65536 --set run.duration_us=50 --set run.warmup_us=10)
LOSSY=(--set topology.loss_ppm=2000 --set switch.pfc=off)
both() { echo --set tenant.bulk.protocol="$1" --set tenant.rpc.protocol="$2"; }

for p in dcqcn irn reno newreno sack ndp; do
    r=$("$BIN" "${INCAST[@]}" $(both $p $p) | grep '^RESULT')
    check "$p incast" "bytes_lost=0 drained=1 delivered_packets>0 ($(field delivered_packets "$r") packets)" \
        test "$(field bytes_lost "$r")" = 0 -a "$(field drained "$r")" = 1 -a "$(field delivered_packets "$r")" -gt 0
    r=$("$BIN" "${INCAST[@]}" "${LOSSY[@]}" $(both $p $p) | grep '^RESULT')
    t=$("$BIN" "${INCAST[@]}" "${LOSSY[@]}" $(both $p $p) --tick-only | grep '^RESULT')
    check "$p lossy incast" "bytes_lost=0 drained=1 with drops=$(field drops "$r") and rtx=$(field rtx "$r") > 0" \
        test "$(field bytes_lost "$r")" = 0 -a "$(field drained "$r")" = 1 -a "$(field drops "$r")" -gt 0 -a "$(field rtx "$r")" -gt 0
    check "$p tick-only" "digest $(field digest "$r") = $(field digest "$t")" \
        test -n "$(field digest "$r")" -a "$(field digest "$r")" = "$(field digest "$t")"
done

# NDP through trimming switches: no PFC, so the incast's queue trims; every trimmed header is
# answered by a trim notice (a NAK) and the segment comes again.
r=$("$BIN" "${INCAST[@]}" $(both ndp ndp) --set switch.trim=on --set switch.pfc=off | grep '^RESULT')
t=$("$BIN" "${INCAST[@]}" $(both ndp ndp) --set switch.trim=on --set switch.pfc=off --tick-only | grep '^RESULT')
check "ndp trimming" "bytes_lost=0 drained=1, trim notices naks=$(field naks "$r") > 0, rtx=$(field rtx "$r") > 0, drops=0" \
    test "$(field bytes_lost "$r")" = 0 -a "$(field drained "$r")" = 1 -a "$(field naks "$r")" -gt 0 \
    -a "$(field rtx "$r")" -gt 0 -a "$(field drops "$r")" = 0
check "ndp trimming tick-only" "digest $(field digest "$r") = $(field digest "$t")" test "$(field digest "$r")" = "$(field digest "$t")"
if [ -n "${FABRIC_QUICK:-}" ]; then # make test: the per-protocol incasts and NDP's trimming; make check: all
    echo "$passed passed, $failed failed (FABRIC_QUICK: the rest runs in make check)"
    [ "$failed" = 0 ]
    exit
fi

# Two protocols in one NIC: hosts 1 and 2 each send tenant bulk on one and tenant rpc on the
# other (and with loss: each protocol's control packets reach its own transport).
for pair in "dcqcn newreno" "irn sack" "newreno dcqcn" "ndp irn"; do
    set -- $pair
    for extra in "" "lossy"; do
        args=("${INCAST[@]}" $(both $1 $2))
        [ -n "$extra" ] && args+=("${LOSSY[@]}")
        r=$("$BIN" "${args[@]}" | grep '^RESULT')
        t=$("$BIN" "${args[@]}" --tick-only | grep '^RESULT')
        check "$1+$2${extra:+ $extra}" "both tenants delivered (tenant0_gbps=$(field tenant0_gbps "$r") tenant1_gbps=$(field tenant1_gbps "$r")), bytes_lost=0 drained=1, tick-only digest equal" \
            test "$(field bytes_lost "$r")" = 0 -a "$(field drained "$r")" = 1 \
            -a "$(field digest "$r")" = "$(field digest "$t")"
        check "$1+$2${extra:+ $extra} shares" "tenant0_gbps > 1 and tenant1_gbps > 1" \
            ge "$(awk -v a="$(field tenant0_gbps "$r")" -v b="$(field tenant1_gbps "$r")" 'BEGIN { print (a < b ? a : b) }')" 1
    done
done

# One QP on an idle two-host star: the payload line rate from the scenario's numbers.
LR=scenarios/protocols_line_rate.conf
gbps=$(sed -n 's/^link_gbps *= *\([0-9]*\).*/\1/p' $LR)
payload=$(sed -n 's/^payload *= *\([0-9]*\).*/\1/p' $LR)
overhead=$((14 + 20 + 8 + 12 + 4 + 4 + 20)) # Ethernet, IPv4, UDP, BTH, ICRC, FCS, preamble + IFG
bound=$(awk -v g="$gbps" -v p="$payload" -v o="$overhead" 'BEGIN { printf "%.3f", 0.9 * g * p / (p + o) }')
for p in dcqcn irn reno newreno sack ndp; do
    r=$("$BIN" --scenario $LR --quiet --set tenant.solo.protocol=$p | grep '^RESULT')
    check "$p line rate" "one QP $(field tenant0_gbps "$r") Gb/s >= 90 % of ${gbps} G x $payload / ($payload + $overhead) = $bound, bytes_lost=0" \
        ge "$(field tenant0_gbps "$r")" "$bound"
    test "$(field bytes_lost "$r")" = 0 || bad "$p line rate: bytes_lost=$(field bytes_lost "$r")"
done

# Per-QP holds with two transports in one NIC: one sender, tenant a on IRN capped at 2 Gb/s per
# QP (8 QPs: 16 Gb/s; held in Palos while slow), tenant b on NewReno (weight 3) takes the rest of
# the link's payload rate: the cap binds only its own QPs.
r=$("$BIN" --scenario scenarios/one_sender_two_tenants.conf --quiet --set run.duration_us=2000 --set run.warmup_us=500 \
    --set nic.payload=1024 --set tenant.a.protocol=irn --set tenant.a.cap_mbps=2000 --set tenant.b.protocol=newreno | grep '^RESULT')
line=$(awk -v p=1024 -v o="$overhead" 'BEGIN { printf "%.3f", 100 * p / (p + o) }')
check "irn capped + newreno holds" "tenant a $(field tenant0_gbps "$r") within 3 % of 16, tenant b $(field tenant1_gbps "$r") >= 0.97 x ($line - 16), palos_holds=$(field palos_holds "$r") > 0" \
    awk -v a="$(field tenant0_gbps "$r")" -v b="$(field tenant1_gbps "$r")" -v l="$line" -v h="$(field palos_holds "$r")" \
    'BEGIN { exit !(a >= 16 * 0.97 && a <= 16 * 1.03 && b >= 0.97 * (l - 16) && h > 0) }'

# Palos's weights between two tenants of one window / token protocol on one NIC (one transport:
# its QPs' bytes count in the NIC's budget): 1:3 of the sending link's payload rate, within 2 %.
for p in newreno ndp; do
    r=$("$BIN" --scenario scenarios/one_sender_two_tenants.conf --quiet --set run.duration_us=2000 --set run.warmup_us=500 \
        --set nic.payload=1024 --set tenant.a.protocol=$p --set tenant.b.protocol=$p | grep '^RESULT')
    check "$p weights 1:3" "tenant a $(field tenant0_gbps "$r"), b $(field tenant1_gbps "$r") within 2 % of $line / 4 and 3 x $line / 4" \
        awk -v a="$(field tenant0_gbps "$r")" -v b="$(field tenant1_gbps "$r")" -v l="$line" \
        'BEGIN { ea = a / (l / 4) - 1; eb = b / (3 * l / 4) - 1; exit !(ea < 0.02 && ea > -0.02 && eb < 0.02 && eb > -0.02) }'
done

# Isolation between transports in one NIC (scenarios/protocols_isolation.conf): host 1's tenant a
# (DCQCN) to an idle host, its tenant b on a window / token protocol into a 3:1 incast. Host 2's
# link gives host 1's tenant b about a third of it, so tenant a should get the rest of host 1's
# link: at least 90 % of line x 2/3 (line: the payload rate from the scenario's numbers). Before
# the window transports had budgets of their own, b's unsent bytes filled the NIC's budget and
# tenant a got 17 to 31 Gb/s here.
ISO=scenarios/protocols_isolation.conf
iso_line=$(awk -v g="$(sed -n 's/^link_gbps *= *\([0-9]*\).*/\1/p' $ISO)" -v p="$(sed -n 's/^payload *= *\([0-9]*\).*/\1/p' $ISO)" \
    -v o="$overhead" 'BEGIN { printf "%.3f", g * p / (p + o) }')
iso_bound=$(awk -v l="$iso_line" 'BEGIN { printf "%.3f", 0.9 * l * 2 / 3 }')
CSV=$(mktemp)
for b in newreno sack "ndp --set switch.trim=on"; do
    r=$("$BIN" --scenario $ISO --quiet --set tenant.b.protocol=$b --csv "$CSV" | grep '^RESULT')
    read -r ga gb < <(awk -F, 'NR > 1 && $2 == 1 { s[$4] += $5 } END { printf "%.3f %.3f\n", s[0], s[1] }' "$CSV")
    check "isolation dcqcn + ${b%% *}" "host 1: tenant a $ga Gb/s >= $iso_bound (0.9 x $iso_line x 2/3), tenant b $gb > 1, bytes_lost=0" \
        awk -v a="$ga" -v b="$gb" -v m="$iso_bound" -v l="$(field bytes_lost "$r")" 'BEGIN { exit !(a >= m && b > 1 && l == 0) }'
done
rm -f "$CSV"

# DCQCN variants per tenant. Each sending NIC (hosts 1, 2) runs tenant bulk's QPs on its first
# transport (trace CSV: engine transport, instance 0) and tenant rpc's on a second (instance 1)
# when their variants differ. Rate events (event rate, a = the applied rate): per QP, the shortest
# gap in cycles between two increases (docs/trace_csv.md names the columns).
variant_gaps() { # bulk-variant rpc-variant -> "gap0 gap1" (-1: no two increases)
    # 6 ms: under the incast a mellanox flow (300 us timer) raises its rate only after 300 us without
    # a CNP; in 3 ms no flow raised twice once Tassel's lag floor changed the CNP timing (issue 31)
    "$BIN" "${INCAST[@]}" --set host.model=off --set run.duration_us=6000 --set run.drain=off \
        --set tenant.bulk.variant="$1" --set tenant.rpc.variant="$2" --trace-csv /dev/stdout |
        awk -F, '$4 == "transport" && $6 == "rate" && NF == 12 { if ($3 == "h0") next; e = $5;
                   k = $3 "/" $5 "/" $7;
                   if ((k in last) && $8 + 0 > last[k] + 0) {
                       if (k in at) { d = $2 - at[k]; if (!(e in gap) || d < gap[e]) gap[e] = d }
                       at[k] = $2
                   }
                   last[k] = $8 }
                 END { printf "%s %s\n", (0 in gap) ? gap[0] : -1, (1 in gap) ? gap[1] : -1 }'
}
PAPER_PERIOD=13750 # 55 us at 250 MHz
MLX_PERIOD=75000   # 300 us
read -r g0 g1 < <(variant_gaps paper mellanox)
check "variants paper+mellanox" "bulk (paper) increases $g0 cycles apart at least (<= 1.05 x 55 us), rpc (mellanox) $g1 (>= 300 us)" \
    test "$g0" -gt 0 -a "$g0" -le $((PAPER_PERIOD * 105 / 100)) -a "$g1" -ge $MLX_PERIOD
read -r g0 g1 < <(variant_gaps mellanox paper)
check "variants mellanox+paper" "swapped: bulk (mellanox) $g0 cycles (>= 300 us), rpc (paper) $g1 (<= 1.05 x 55 us)" \
    test "$g0" -ge $MLX_PERIOD -a "$g1" -gt 0 -a "$g1" -le $((PAPER_PERIOD * 105 / 100))
read -r g0 g1 < <(variant_gaps paper paper)
check "variants paper+paper" "one transport per NIC (no instance 1: $g1), paper's gap $g0" \
    test "$g1" = -1 -a "$g0" -gt 0 -a "$g0" -le $((PAPER_PERIOD * 105 / 100))

# A cap on a window protocol's tenant: refused, not ignored.
out=$("$BIN" "${INCAST[@]}" $(both newreno dcqcn) --set tenant.bulk.cap_mbps=1000 2>&1)
rc=$?
check "cap on newreno" "exit 2 ($rc) naming cap_mbps" test $rc = 2 -a -n "$(grep -o 'tenant bulk: cap_mbps needs a rate protocol' <<<"$out")"

# The out-of-order byte checker against its own reference (tests/fabric_ooo_check.c): every byte
# once for any order within the window; a duplicate, an overlap, a segment past the window bad;
# a missing segment lost.
OOO=$(mktemp -d)
if ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow -Wno-unused-function -O1 -I. -Iexamples/rnic_model -Itests \
    tests/fabric_ooo_check.c -o "$OOO/ooo" $(pkg-config --cflags --libs stb 2>/dev/null || echo -I/usr/include/stb -lstb) -lm; then
    out=$("$OOO/ooo")
    echo "$out" | grep -v '^ok\|^assertions\| passed, .* failed$' | sed 's/^/fabric_ooo_check: /'
    n=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' <<<"$out")
    passed=$((passed + ${n% *}))
    failed=$((failed + ${n#* }))
    [ -n "$n" ] || bad "fabric_ooo_check: no summary"
else
    bad "fabric_ooo_check: does not build"
fi
rm -rf "$OOO"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
