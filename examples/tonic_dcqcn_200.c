/* tonic_dcqcn_200 -- Tonic §6.2.2, "Multiple Flows" (NSDI 2020): two senders each start 100 DCQCN
 * flows to one receiver, 200 flows share its 40 Gb/s link for 1 s (RTT 4 us: 1 us propagation per
 * hop, 1,000 B segments, the paper preset of tp_protocol_dcqcn(), Tonic's own rate credit, per-packet
 * round robin among a host's flows; RoCEv2 go-back-N responder ACKing every segment, at most one CNP
 * per 50 us per flow; RED marking at the switch's dequeue, Kmin 5 KB, Kmax 200 KB, Pmax 1 %). The
 * paper reports 203 +- 0.2 Mb/s per flow and a matching distribution of CNPs.
 *
 *   build/tonic_dcqcn_200 [--ms N | --quick] [--flows-per-host N] [--no-pfc] [--csv F] [variant options]
 *
 * PFC is on (xoff 1 MB, xon 900 KB per ingress, 100 KB headroom, in the 5.5 MB buffer): the 200
 * flows all start at line rate (40 Gb/s each, limited to 400 Mb/s by the host's round robin) and
 * need about 1 ms of CNPs (one per flow per ~60 us, each about halving the rate) to come down, while
 * the two hosts offer 80 Gb/s to a 40 Gb/s port: without PFC (--no-pfc) the 5.5 MB buffer overflows
 * in the first 2 ms (go-back-N then recovers by NAK and timeouts).
 *
 * Variant options (one at a time, to measure what each candidate cause of the spread does;
 * docs/transport_dcqcn.md "The 200-flow experiment beside the paper"): --kmin/--kmax (bytes),
 * --pmax-ppm, --seed (RED's random stream), --cnp-deferred (htsim's notification point: marks
 * inside the interval send one CNP at its end), --rate-us / --alpha-us (the two timers),
 * --byte-counter (bytes), --f, --alpha-first (cut with the updated alpha), --alpha-init-half,
 * --no-marking (ECN off: PFC and the hosts' round robin alone), --ns3-defaults (the parameters of
 * the authors' ns-3 code that Tonic's paper names, ref. [44], mix/config.txt: Kmin 40 and Kmax
 * 1,000 cells of 1,030 B, Pmax 100 %, rate timer 60 us, byte counter 300 KB, alpha updated before
 * the cut and starting at 0.5, and its fast-recovery count: the increase after the F-th timer event
 * is additive, which is F - 1 in this model's counting).
 *
 * Throughput is goodput (payload bytes the receiver delivered for the first time / run time).
 * CSV: flow,host,mbps,cnps (CNPs that reached the flow's sender).
 * RESULT exp=dcqcn_200 flows mean_mbps stdev_mbps min_mbps max_mbps cnps cnps_per_flow_min
 * cnps_per_flow_max wire_mbps link_util_pct sem_mbps: wire_mbps = mean_mbps x (1,000 + 42) / 1,000
 * (the rate on the wire, headers included), link_util_pct = 200 x wire_mbps over the 40 Gb/s line
 * rate, sem_mbps = stdev_mbps / sqrt(flows) (the standard error of the mean over the flows). */
#define _POSIX_C_SOURCE 200809L
#include "rnic_model/tonic_sim.h"
#include <math.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "dcqcn_variant.h"

/* CNP counting: a copy of DCQCN whose incoming hook counts CNPs per flow */
static tp_hook_fn dcqcn_incoming;
static uint64_t *cnp_count;
static uint32_t cnp_flows;

static void count_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    if (ev->pkt_type == TP_PKT_CNP && ev->flow < cnp_flows)
        cnp_count[ev->flow]++;
    dcqcn_incoming(ev, ctx, act);
}

static void usage(const char *argv0)
{
    printf("usage: %s [--ms N | --quick] [--flows-per-host N] [--no-pfc] [--csv F] [variant options]\n"
           "Tonic 6.2.2 Multiple Flows: two senders x N DCQCN flows into one 40 Gb/s port; a RESULT line at the end.\n"
           "  --ms N                simulated time [ms]; default 1000; range 0.001..1000000\n"
           "  --quick               --ms 100 (make test)\n"
           "  --flows-per-host N    DCQCN flows per sender [flows]; default 100; range 1..10000\n"
           "  --no-pfc              no PFC at the switch (the buffer overflows and drops); default PFC on\n"
           "  --csv F               one row per flow as CSV; default none\n"
           "  --help, -h            this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    fputs(DCQCN_VARIANT_HELP, stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    ts_config c;
    ts_sim s;
    tp_protocol proto;
    tp_dcqcn_config dp;
    dcqcn_variant v;
    bool pfc = true;
    double ms = 1000.0, seconds, t0, t1, *mbps, sum = 0, sq = 0, mn = 1e300, mx = 0, mean, sd, wire;
    uint32_t fph = 100, i, n;
    uint64_t cnps = 0, cmin = UINT64_MAX, cmax = 0;
    const char *csv = NULL;
    memset(&v, 0, sizeof v);
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--ms"))
            ms = CLI_DOUBLE(i, 0.001, 1000000);
        else if (!strcmp(argv[i], "--quick"))
            ms = 100.0;
        else if (!strcmp(argv[i], "--flows-per-host"))
            fph = (uint32_t)CLI_U64(i, 1, 10000);
        else if (!strcmp(argv[i], "--csv"))
            csv = CLI_VALUE(i);
        else if (!strcmp(argv[i], "--no-pfc"))
            pfc = false;
        else if (!dcqcn_variant_parse(argc, argv, &i, &v))
            cli_unknown(argv[0], argv[i]);
    }
    if (ms <= 0 || fph == 0)
        return 2;
    tp_dcqcn_preset(&dp, TP_DCQCN_PAPER);
    proto = *tp_protocol_dcqcn();
    proto.config = &dp;
    dcqcn_incoming = proto.incoming;
    proto.incoming = count_incoming;

    ts_config_default(&c);
    c.link_bps = 40000000000ull;
    c.prop_ns = 1000;  /* RTT 4 us */
    c.senders = 2;
    c.flows_per_sender = fph;
    c.seg_size = 1000;
    c.header_bytes = 42;
    c.protocol = &proto;
    c.window = 128;
    c.init_wnd = 128;
    c.rto_us = 1000;
    c.delack_count = 1;
    c.sack = false;
    c.ack_first = true;
    c.go_back_n = true;
    c.cnp_interval_us = 50;
    c.cnp_mode = TP_RX_CNP_IMMEDIATE;
    c.ecn_kmin_bytes = 5000;
    c.ecn_kmax_bytes = 200000;
    c.ecn_pmax_ppm = 10000; /* 1 % */
    c.ecn_seed = 1;
    if (pfc) { /* per ingress: 2 x (1 MB + 100 KB headroom) stays inside the 5.5 MB buffer */
        c.pfc_xoff_bytes = 1000000;
        c.pfc_xon_bytes = 900000;
        c.pfc_headroom_bytes = 100000;
    }
    dcqcn_variant_apply(&v, &c, &dp);
    n = c.senders * fph;
    cnp_flows = n;
    cnp_count = (uint64_t *)calloc(n, sizeof *cnp_count);
    mbps = (double *)calloc(n, sizeof *mbps);
    if (!cnp_count || !mbps || ts_init(&s, &c) != 0) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    seconds = ms * 1e-3;
    t0 = (double)clock() / CLOCKS_PER_SEC;
    ts_run_to(&s, (uint64_t)(seconds * (double)c.clock_hz));
    t1 = (double)clock() / CLOCKS_PER_SEC;
    for (i = 0; i < n; i++) {
        mbps[i] = (double)s.acked_bytes[i] * 8.0 / seconds / 1e6;
        sum += mbps[i];
        if (mbps[i] < mn)
            mn = mbps[i];
        if (mbps[i] > mx)
            mx = mbps[i];
        cnps += cnp_count[i];
        if (cnp_count[i] < cmin)
            cmin = cnp_count[i];
        if (cnp_count[i] > cmax)
            cmax = cnp_count[i];
    }
    mean = sum / n;
    for (i = 0; i < n; i++)
        sq += (mbps[i] - mean) * (mbps[i] - mean);
    sd = n > 1 ? sqrt(sq / (n - 1)) : 0.0;
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            fprintf(f, "flow,host,mbps,cnps\n");
            for (i = 0; i < n; i++)
                fprintf(f, "%u,%u,%.3f,%llu\n", i, i / fph, mbps[i], (unsigned long long)cnp_count[i]);
            fclose(f);
        }
    }
    {
        const tp_stats *s0 = tp_get_stats(&s.senders[0]), *s1 = tp_get_stats(&s.senders[1]);
        const tp_rx_stats *rs = tp_rx_get_stats(&s.rx);
        uint64_t pauses = 0;
        uint32_t h;
        for (h = 0; h < c.senders; h++)
            pauses += s.sw.port[h].stats.pfc_xoff;
        printf("model: %u flows, %.0f ms, %llu segments delivered, %llu marked, %llu CNPs sent by the receiver, "
               "%llu NAKs, %llu retransmitted, %llu timeouts, %llu buffer drops, %llu PFC pauses, %llu of %llu "
               "cycles ticked, %.2f s host\n",
               n, ms, (unsigned long long)s.rx_segments, (unsigned long long)rs->marked,
               (unsigned long long)rs->cnps, (unsigned long long)rs->naks,
               (unsigned long long)(s0->segments_rtx + s1->segments_rtx),
               (unsigned long long)(s0->timeouts + s1->timeouts),
               (unsigned long long)s.sw.stats.dropped[NET_DROP_BUFFER], (unsigned long long)pauses,
               (unsigned long long)s.processed_cycles, (unsigned long long)s.now, t1 - t0);
    }
    wire = mean * (c.seg_size + c.header_bytes) / c.seg_size;
    printf("RESULT exp=dcqcn_200 flows=%u mean_mbps=%.3f stdev_mbps=%.3f min_mbps=%.3f max_mbps=%.3f cnps=%llu "
           "cnps_per_flow_min=%llu cnps_per_flow_max=%llu wire_mbps=%.3f link_util_pct=%.3f sem_mbps=%.3f\n",
           n, mean, sd, mn, mx, (unsigned long long)cnps, (unsigned long long)cmin, (unsigned long long)cmax, wire,
           100.0 * wire * n * 1e6 / (double)c.link_bps, sd / sqrt((double)n));
    free(mbps);
    free(cnp_count);
    ts_free(&s);
    return 0;
}
