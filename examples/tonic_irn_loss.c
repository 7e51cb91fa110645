/* tonic_irn_loss -- IRN (Mittal et al., SIGCOMM 2018) against RoCE's go-back-N under random loss,
 * both on Tonic (transport.h) without PFC and without congestion control.
 *
 * Set-up: S = 4 sender hosts, one flow each, through one output-queued switch (net.h, 5.5 MB
 * buffer) to one receiver; 100 Gb/s links, 1 us per hop (base RTT ~4.2 us), 1,000 B payloads +
 * 42 B headers. The switch drops packets on the receiver's port at random (net_switch_set_drop_ppm:
 * data only; ACKs / NACKs are not dropped). Each flow sends a fixed, seeded list of messages (8 KB
 * .. 1 MB, log-uniform), one after the other: the next is posted when the previous completes. FCT
 * = completion - post; goodput = all bytes / the time the last message completes.
 *
 *   IRN: tp_protocol_irn() (RTO 100 / 320 us, N = 3), BDP cap = link x base RTT; receiver nack =
 *        true, an ACK per packet.
 *   GBN: RoCE's go-back-N as a protocol defined here: on a NAK (TP_PKT_NACK from the receiver's
 *        go_back_n responder, one per gap) resend everything from the NAKed PSN; timeout 320 us
 *        (RoCE has one timer; we give it IRN's RTO_high) resends from wnd_start. The same BDP cap
 *        and line rate as IRN, so the two differ only in loss recovery. (With DCQCN landed,
 *        tp_protocol_dcqcn() with no ECN marking behaves the same: its rate stays at line rate.)
 *
 *   build/tonic_irn_loss [--quick] [--messages N] [--seed N]
 *
 * RESULT exp=irn_loss loss_pct=... irn_goodput_gbps=... gbn_goodput_gbps=... irn_fct_us_p50=...
 *        gbn_fct_us_p50=... irn_fct_us_p99=... gbn_fct_us_p99=...  (one per loss rate), and a
 * check line per run: every byte delivered exactly once. */
#define TP_IMPLEMENTATION
#include "../transport.h"
#include "rnic_model/net.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define XS_MAX 16u

/* ---------------- RoCE go-back-N (rate credit, line rate, BDP window) ---------------- */

typedef struct gbn_ctx {
    uint32_t naks; /* NAKs acted on */
} gbn_ctx;

static uint32_t gbn_window;

static void gbn_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    gbn_ctx c;
    (void)config;
    (void)p;
    c.naks = 0;
    memcpy(ctx, &c, sizeof c);
    act->wnd_size = gbn_window;
    act->timer_amount = hz / 1000000u * 320u;
}

static void gbn_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    gbn_ctx c;
    memcpy(&c, ctx, sizeof c);
    if (ev->newly_acked)
        act->reset_timer = true;
    if (ev->pkt_type == TP_PKT_NACK && ev->wnd_start != ev->highest_sent) {
        /* the responder sends one NAK per gap; go back to its PSN */
        act->mark_rtx = true;
        act->mark_from = ev->wnd_start;
        act->mark_to = ev->highest_sent;
        c.naks++;
    }
    memcpy(ctx, &c, sizeof c);
}

static void gbn_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    (void)ctx;
    if (!ev->timeout)
        return;
    act->mark_rtx = true;
    act->mark_from = ev->wnd_start;
    act->mark_to = ev->highest_sent;
    act->reset_timer = true;
}

static const tp_protocol gbn_proto = {"roce-gbn", TP_CREDIT_RATE, sizeof(gbn_ctx), gbn_init, gbn_incoming, gbn_periodic,
                                      false, TP_MERGE_INCOMING, NULL, NULL};

#include "rnic_model/xs_driver.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, uint32_t n, double q)
{
    uint32_t i;
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_d);
    i = (uint32_t)(q * (double)(n - 1u) + 0.5);
    return v[i];
}

typedef struct run_out {
    double goodput_gbps, p50, p99;
    uint64_t rtx, timeouts, bytes_ok, dups;
    int complete;
} run_out;

static run_out run_one(int irn, uint32_t ppm, uint32_t nmsg, const uint64_t *sizes, uint64_t seed)
{
    xs s;
    xs_cfg c;
    run_out o;
    uint32_t h;
    static tp_irn_config ic;
    static tp_protocol ip;
    uint64_t limit;
    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    c.senders = 4;
    c.clock_hz = 100000000ull;
    c.link_bps = 100000000000ull;
    c.prop_ns = 1000;
    c.buffer_bytes = 5500000ull;
    c.seg = 1000;
    c.hdr = 42;
    c.ctrl_bytes = 64;
    c.drop_ppm = ppm;
    c.seed = seed;
    c.nmsg = nmsg;
    c.sizes = sizes;
    /* base RTT: 4 hops of 1 us + a data packet (83 ns) and an ACK (5 ns) per serialisation ~ 4.2 us;
     * BDP = 100 Gb/s x 4.2 us = 52,500 B */
    tp_irn_config_default(&ic);
    ic.bdp_bytes = 52500;
    ip = *tp_protocol_irn();
    ip.config = &ic;
    gbn_window = ic.bdp_bytes / c.seg;
    c.proto = irn ? &ip : &gbn_proto;
    tp_flow_config_default(&c.fp);
    c.fp.seg_size = c.seg;
    tp_rx_config_default(&c.rc);
    c.rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.rc.delack_count = 1; /* an ACK per packet (RoCE and IRN acknowledge every packet here) */
    c.rc.nack = irn != 0;
    c.rc.go_back_n = irn == 0;
    if (xs_init(&s, &c) != 0) {
        fprintf(stderr, "init failed\n");
        exit(1);
    }
    limit = 100ull * c.clock_hz; /* 100 s simulated at most */
    xs_run(&s, limit);
    o.complete = s.done_msgs == c.senders * nmsg;
    o.goodput_gbps = s.end_cycle ? (double)s.total_bytes * 8.0 / ((double)s.end_cycle / (double)c.clock_hz) / 1e9 : 0;
    o.p50 = pct(s.fct_us, s.nfct, 0.50);
    o.p99 = pct(s.fct_us, s.nfct, 0.99);
    for (h = 0; h < c.senders; h++) {
        const tp_stats *st = tp_get_stats(s.snd[h]);
        o.rtx += st->segments_rtx;
        o.timeouts += st->timeouts;
        o.bytes_ok += s.rx_bytes[h];
    }
    o.dups = tp_rx_get_stats(&s.rx)->duplicates;
    o.bytes_ok = o.bytes_ok == s.total_bytes;
    xs_free(&s);
    return o;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--quick] [--messages N] [--seed N]\n"
           "IRN against RoCE's go-back-N under random loss (0.1, 0.5, 1 %%), 4 senders at 100 Gb/s; a RESULT line at\n"
           "the end.\n"
           "  --quick        --messages 10 (make test)\n"
           "  --messages N   messages per flow, 8 KB .. 1 MB log-uniform [messages]; default 40; range 1..100000\n"
           "  --seed N       seed of the message sizes; default 1; range 0..%llu\n"
           "  --help, -h     this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), (unsigned long long)UINT64_MAX);
    exit(0);
}

int main(int argc, char **argv)
{
    static const uint32_t ppms[] = {1000, 5000, 10000};
    uint32_t nmsg = 40, i, k, f;
    uint64_t seed = 1, *sizes;
    int quick = 0, ok = 1;
    rnic_prng g;
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--messages"))
            nmsg = (uint32_t)CLI_U64(i, 1, 100000);
        else if (!strcmp(argv[i], "--seed"))
            seed = CLI_U64(i, 0, UINT64_MAX);
        else
            cli_unknown(argv[0], argv[i]);
    }
    if (quick)
        nmsg = 10;
    if (nmsg == 0)
        return 2;
    /* the workload: 4 flows x nmsg messages, log-uniform 8 KB .. 1 MB (seeded) */
    sizes = (uint64_t *)malloc(4u * nmsg * sizeof *sizes);
    rnic_prng_seed(&g, seed * 7919u + 1u);
    for (f = 0; f < 4u; f++)
        for (k = 0; k < nmsg; k++) {
            uint64_t b = 8000u << rnic_prng_below(&g, 7); /* 8 KB .. 512 KB */
            sizes[f * nmsg + k] = b + rnic_prng_below(&g, b);   /* x [1, 2): up to ~1 MB */
        }
    printf("IRN vs RoCE go-back-N: 4 senders -> 1 receiver, 100 Gb/s, base RTT ~4.2 us, BDP cap 52 x 1,000 B,\n"
           "no PFC, no congestion control, random data loss at the receiver's switch port; %u messages per flow\n",
           nmsg);
    printf("IRN paper (SIGCOMM'18): without PFC and under packet loss, IRN's FCTs are well below RoCE's go-back-N\n"
           "(which resends everything after a loss, up to a BDP per loss).\n");
    for (i = 0; i < 3; i++) {
        run_out a = run_one(1, ppms[i], nmsg, sizes, seed + i);
        run_out b = run_one(0, ppms[i], nmsg, sizes, seed + i);
        printf("  loss %.1f %%: IRN rtx=%" PRIu64 " timeouts=%" PRIu64 " complete=%d once=%d | GBN rtx=%" PRIu64
               " timeouts=%" PRIu64 " complete=%d once=%d\n",
               ppms[i] / 10000.0, a.rtx, a.timeouts, a.complete, (int)a.bytes_ok, b.rtx, b.timeouts, b.complete,
               (int)b.bytes_ok);
        printf("RESULT exp=irn_loss loss_pct=%.1f irn_goodput_gbps=%.2f gbn_goodput_gbps=%.2f irn_fct_us_p50=%.1f "
               "gbn_fct_us_p50=%.1f irn_fct_us_p99=%.1f gbn_fct_us_p99=%.1f\n",
               ppms[i] / 10000.0, a.goodput_gbps, b.goodput_gbps, a.p50, b.p50, a.p99, b.p99);
        ok &= a.complete && b.complete && a.bytes_ok && b.bytes_ok;
    }
    printf("RESULT exp=irn_loss_check every_byte_once=%d\n", ok);
    free(sizes);
    return ok ? 0 : 1;
}
