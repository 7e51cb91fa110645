/* tonic_tables -- Tonic's Table 3 and Table 4 (NSDI 2020 §6.1), measured on this model.
 *
 * Table 3: lines of code and user-state bytes of each protocol, read from the sources
 * (src/transport/proto_*.c, counted as the paper counts Verilog: non-blank lines) and from the
 * protocol descriptors (ctx_size), with the credit type.
 * Table 4: the scale limits -- 2,048 concurrent flows, 256-segment windows, 448 B of user context
 * (the window budget): one sender at that configuration, NewReno with its context padded to 448 B
 * of which the rest holds a per-flow pattern checked after every hook, through a lossy,
 * reordering channel to the receiver; every byte must arrive exactly once.
 *
 *   build/tonic_tables [--flows N] [--kb-per-flow N] [--loss-ppm N] [--src DIR] [--verbose]
 *
 * Flows with data left at the end (or every flow with --verbose) are listed with their state.
 *
 * RESULT lines: one per protocol (table3 proto= loc= ctx_bytes= credit=, and wake_loc= for a protocol
 * with wake-up wrappers in proto_<name>_wake.c: the model's, not the hardware's), then
 * table4 flows= window= ctx_bytes= bytes= delivered_exactly_once= duplicates_at_receiver= ... */
#define TP_IMPLEMENTATION
#include "../transport.h"
#include <stdio.h>
#include <stdlib.h>

/* The flow's cumulative ack, through tp_rx_flow_state. */
static rnic_err rx_expected(const tp_rx *r, uint32_t flow, uint32_t *out)
{
    tp_rx_flow_view v;
    rnic_err e = tp_rx_flow_state(r, flow, &v);
    *out = v.expected;
    return e;
}
#include <string.h>
#include "cli.h"

/* ---- Table 3 ---- */
static long count_loc(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    long n = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '\n' && *p != '\0')
            n++;
    }
    fclose(f);
    return n;
}

static int ok_so_far(uint64_t completions, uint32_t flows) { return completions == 2u * (uint64_t)flows; }

static const char *credit_name(uint32_t c) { return c == TP_CREDIT_WINDOW ? "wnd" : c == TP_CREDIT_RATE ? "rate" : "token"; }

/* ---- Table 4: NewReno with a 448-byte context ---- */
#define PAD_CTX 448u
#define NR_CTX sizeof(tp_newreno_ctx)

static uint8_t pattern(uint32_t flow, uint32_t i) { return (uint8_t)(flow * 131u + i * 7u + 1u); }

static uint64_t pad_violations;

static void pad_check(const tp_event *ev, const unsigned char *ctx)
{
    uint32_t i;
    for (i = NR_CTX; i < PAD_CTX; i++)
        if (ctx[i] != pattern(ev->flow, i))
            pad_violations++;
}

static void pad_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *a)
{
    uint32_t i;
    tp_protocol_newreno()->init(p, config, hz, ctx, a);
    for (i = NR_CTX; i < PAD_CTX; i++) /* init does not know the flow: param[5] carries it */
        ((unsigned char *)ctx)[i] = pattern(p->param[5], i);
}

static void pad_incoming(const tp_event *ev, void *ctx, tp_actions *a)
{
    pad_check(ev, (const unsigned char *)ctx);
    tp_protocol_newreno()->incoming(ev, ctx, a);
}

static void pad_periodic(const tp_event *ev, void *ctx, tp_actions *a)
{
    pad_check(ev, (const unsigned char *)ctx);
    tp_protocol_newreno()->periodic(ev, ctx, a);
}

/* A fixed-delay channel (a FIFO: every record waits the same number of cycles). */
typedef struct channel {
    rnic_work *w;
    uint64_t *due;
    uint32_t size, head, count;
} channel;

static int ch_init(channel *c, uint32_t size)
{
    c->w = (rnic_work *)calloc(size, sizeof *c->w);
    c->due = (uint64_t *)calloc(size, sizeof *c->due);
    c->size = size;
    c->head = c->count = 0;
    return c->w && c->due ? 0 : -1;
}

static int ch_push(channel *c, const rnic_work *w, uint64_t due)
{
    uint32_t at = (c->head + c->count) % c->size;
    if (c->count == c->size)
        return -1;
    c->w[at] = *w;
    c->due[at] = due;
    c->count++;
    return 0;
}

static int ch_pop(channel *c, uint64_t now, rnic_work *out)
{
    if (c->count == 0 || c->due[c->head] > now)
        return -1;
    *out = c->w[c->head];
    c->head = (c->head + 1u) % c->size;
    c->count--;
    return 0;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--flows N] [--kb-per-flow N] [--loss-ppm N] [--src DIR] [--verbose]\n"
           "Tonic's Table 3 (lines of code and context bytes per protocol) and Table 4 (the scale limits: every byte of\n"
           "every flow through a lossy, reordering channel exactly once); RESULT lines at the end.\n"
           "  --flows N          concurrent flows [flows]; default 2048; range 1..%u\n"
           "  --kb-per-flow N    data per flow [KB]; default 96; range 1..1000000\n"
           "  --loss-ppm N       the channel's loss [per million packets]; default 10000; range 0..500000\n"
           "  --src DIR          where the protocols' sources are counted; default src/transport\n"
           "  --verbose          list every flow's state at the end (not only those with data left); default off\n"
           "  --help, -h         this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), TP_MAX_FLOWS);
    exit(0);
}

int main(int argc, char **argv)
{
    static const char *names[6] = { "reno", "newreno", "sack", "ndp", "dcqcn", "irn" };
    const tp_protocol *protos[6];
    tp_protocol padded;
    tp_config cfg;
    tp_rx_config rc;
    tp t;
    tp_rx r;
    void *mem, *rmem;
    channel data, acks;
    rnic_prng g;
    uint32_t flows = 2048, kb = 96, loss_ppm = 10000, f, i, *seen;
    uint64_t total = 0, delivered = 0, completions = 0, now = 0, rtx, limit;
    const char *src = "src/transport";
    int ok, verbose = 0;
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--flows"))
            flows = (uint32_t)CLI_U64(i, 1, TP_MAX_FLOWS);
        else if (!strcmp(argv[i], "--kb-per-flow"))
            kb = (uint32_t)CLI_U64(i, 1, 1000000);
        else if (!strcmp(argv[i], "--loss-ppm"))
            loss_ppm = (uint32_t)CLI_U64(i, 0, 500000);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--src"))
            src = CLI_VALUE(i);
        else
            cli_unknown(argv[0], argv[i]);
    }
    protos[0] = tp_protocol_reno();
    protos[1] = tp_protocol_newreno();
    protos[2] = tp_protocol_sack();
    protos[3] = tp_protocol_ndp();
    protos[4] = tp_protocol_dcqcn();
    protos[5] = tp_protocol_irn();
    printf("Table 3 (paper: Reno 48 LoC / 8 B, NewReno 74 / 13, SACK 193 / 19, all wnd; NDP 20 / 1 token; "
           "RoCE w/ DCQCN 63 / 30 rate; IRN 54 / 14 rate)\n");
    for (i = 0; i < 6; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/proto_%s.c", src, names[i]);
        printf("RESULT table=3 proto=%s loc=%ld ctx_bytes=%u credit=%s", protos[i]->name, count_loc(path),
               protos[i]->ctx_size, credit_name(protos[i]->credit));
        snprintf(path, sizeof path, "%s/proto_%s_wake.c", src, names[i]);
        if (count_loc(path) > 0) /* its wake-up wrappers: a simulation aid, not the protocol */
            printf(" wake_loc=%ld", count_loc(path));
        printf("\n");
    }

    /* Table 4 */
    padded = *tp_protocol_newreno();
    padded.name = "newreno-448";
    padded.ctx_size = PAD_CTX;
    padded.init = pad_init;
    padded.incoming = pad_incoming;
    padded.periodic = pad_periodic;
    tp_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    cfg.max_flows = flows;
    cfg.window = 256;
    cfg.protocol = &padded;
    cfg.incoming_depth = 4096;
    mem = malloc(tp_mem_size(&cfg));
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = flows;
    rc.window = 256;
    rc.sack = false;
    rc.segment_depth = 4096;
    rc.ack_depth = 4096;
    rc.delivered_depth = 4096;
    rmem = malloc(tp_rx_mem_size(&rc));
    seen = (uint32_t *)calloc(flows, sizeof *seen);
    if (!mem || !rmem || !seen || tp_init(&t, &cfg, mem, tp_mem_size(&cfg)) != RNIC_OK ||
        tp_rx_init(&r, &rc, rmem, tp_rx_mem_size(&rc)) != RNIC_OK || ch_init(&data, 1u << 16) || ch_init(&acks, 1u << 16)) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    for (f = 0; f < flows; f++) {
        tp_flow_config p;
        rnic_work m;
        tp_flow_config_default(&p);
        p.init_wnd = 256;
        p.rto_ns = 100000u;
        p.param[5] = f;
        tp_flow_open(&t, f, &p);
        tp_rx_flow_open(&r, f, NULL);
        memset(&m, 0, sizeof m);
        m.flow = f;
        m.len = kb * 1000u / 2u + f % 1000u; /* two messages, the last segment of each shorter */
        m.tag = 2u * f;
        tp_push_message(&t, &m);
        total += m.len;
        m.tag++;
        m.len = kb * 1000u - m.len;
        tp_push_message(&t, &m);
        total += m.len;
    }
    rnic_prng_seed(&g, 4);
    limit = total / 1000u * 50u + 100000000u;
    while (completions < 2u * flows && now < limit) {
        rnic_work w;
        tp_tick(&t);
        tp_rx_tick(&r);
        now++;
        while (tp_pop_segment(&t, &w) == RNIC_OK) /* 10 us at 100 MHz, 1 % lost, some a little late */
            if (rnic_prng_below(&g, 1000000) >= loss_ppm)
                ch_push(&data, &w, now + 1000u + (rnic_prng_below(&g, 50) == 0 ? 3u : 0u));
        while (tp_rx_space_segment(&r) && ch_pop(&data, now, &w) == 0)
            tp_rx_push_segment(&r, &w);
        while (tp_rx_pop_ack(&r, &w) == RNIC_OK)
            ch_push(&acks, &w, now + 1000u);
        while (tp_space_incoming(&t) && ch_pop(&acks, now, &w) == 0)
            tp_push_incoming(&t, &w);
        while (tp_rx_pop_delivered(&r, &w) == RNIC_OK) {
            /* the receiver places each segment the first time it arrives: counted per flow and in
             * bytes, so a segment placed twice or never shows in the totals below */
            delivered += w.len;
            seen[w.flow]++;
        }
        while (tp_pop_completion(&t, &w) == RNIC_OK)
            completions++;
    }
    rtx = tp_get_stats(&t)->segments_rtx;
    if (verbose || !ok_so_far(completions, flows))
        for (f = 0; f < flows; f++) {
            tp_flow_view v;
            uint32_t exp;
            tp_flow_state(&t, f, &v);
            rx_expected(&r, f, &exp);
            if (v.messages || verbose) {
                const tp_newreno_ctx *c = (const tp_newreno_ctx *)v.ctx;
                printf("flow %u: wnd_start %u hs %u end %u wnd %u out %u timer %d deadline %llu amount %llu rx expected %u cwnd %u state %u\n", f, v.wnd_start, v.highest_sent, v.data_end, v.wnd_size, v.outstanding, v.timer_running, (unsigned long long)v.timer_deadline, (unsigned long long)v.timer_amount, exp, c->cwnd, c->state);
            }
        }
    ok = completions == 2u * flows && delivered == total && tp_rx_get_stats(&r)->bytes == total && pad_violations == 0;
    for (f = 0; f < flows && ok; f++) {
        uint32_t exp;
        rx_expected(&r, f, &exp);
        ok = exp == seen[f];
    }
    printf("Table 4 (paper: 2,048 flows, 256-segment window, 448 B user state with window credit)\n");
    printf("RESULT table=4 flows=%u window=%u ctx_bytes=%u bytes=%llu delivered_bytes=%llu completions=%llu "
           "retransmissions=%llu duplicates_at_receiver=%llu ctx_violations=%llu cycles=%llu delivered_exactly_once=%d\n",
           flows, cfg.window, padded.ctx_size, (unsigned long long)total, (unsigned long long)delivered,
           (unsigned long long)completions, (unsigned long long)rtx,
           (unsigned long long)tp_rx_get_stats(&r)->duplicates, (unsigned long long)pad_violations,
           (unsigned long long)now, ok);
    free(mem);
    free(rmem);
    free(seen);
    free(data.w);
    free(data.due);
    free(acks.w);
    free(acks.due);
    return ok ? 0 : 1;
}
