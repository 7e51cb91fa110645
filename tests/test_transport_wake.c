/* Transport wake-ups (docs/transport_model.md, "Wake-ups"): a protocol's declared wake-ups change
 * nothing at the ports.
 *
 * Three senders see the same seeded random traffic (messages, ACKs from a fake receiver that
 * acknowledges what it saw leave, with random delays, duplicates, stale ACKs, NAKs and CNPs):
 *   A  the protocol as shipped (declaring wake-ups), driven by tp_advance_to (fast-forward);
 *   B  the same protocol ticked every cycle;
 *   C  a twin whose hooks call the same code but declare nothing (TP_WAKE_NEXT after every hook):
 *      the periodic hook runs at every visit, as before wake-ups existed; ticked.
 * Outputs are drained at the same cycles in all three (every point A's advance stops). Checked:
 * every trace event (cycle, kind, flow, values) in order, every record popped, every statistic (C's
 * periodic_runs is larger: it counts hook calls), each flow's state and context at the end. And A
 * must skip: it ticks fewer cycles than B when traffic is sparse (the point of wake-ups).
 * Protocols: DCQCN (paper preset), DCQCN (Mellanox preset), DCQCN with a byte counter of three
 * segments and short timers (the byte-counter wake-up every few segments), over 1 .. 9 flows. */
#define TP_IMPLEMENTATION
#include "transport.h"
#include "test.h"

#define NENG 3
#define MAXF 9u
#define MAXEV 400000u

typedef struct tr_log {
    uint32_t n;
    uint64_t h;          /* FNV-1a over every event */
} tr_log;

static void tr_fold(uint64_t *h, uint64_t v)
{
    unsigned i;
    for (i = 0; i < 8; i++) {
        *h ^= (v >> (8 * i)) & 0xffu;
        *h *= 1099511628211ull;
    }
}

static void tr_fn(void *user, const rnic_trace_event *e)
{
    tr_log *l = (tr_log *)user;
    l->n++;
    tr_fold(&l->h, e->cycle);
    tr_fold(&l->h, ((uint64_t)e->kind << 32) | e->id);
    tr_fold(&l->h, e->a);
    tr_fold(&l->h, e->b);
}

/* C's hooks: the shipped ones, then "declare nothing" */
static const tp_protocol *twin_base;
static void twin_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    twin_base->incoming(ev, ctx, act);
    act->wake = TP_WAKE_NEXT;
}
static void twin_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    twin_base->periodic(ev, ctx, act);
    act->wake = TP_WAKE_NEXT;
}

typedef struct pending_ack {
    uint64_t at;
    rnic_work w;
} pending_ack;

typedef struct world {
    uint64_t base;             /* the engines' start cycle: times below are relative to it */
    tp *t[NENG];
    void *mem[NENG];
    tr_log log[NENG];
    uint32_t flows;
    uint32_t seen_hi[MAXF];    /* one past the highest segment id seen leave, per flow */
    uint32_t acked[MAXF];      /* the fake receiver's cumulative ack */
    pending_ack q[256];
    uint32_t nq;
    uint64_t records, mismatches;
} world;

static void drain(world *w, rnic_prng *rng, uint32_t ack_delay_max)
{
    rnic_work s[NENG], c[NENG];
    uint32_t i;
    for (;;) { /* segments: the same in all three, in the same order */
        rnic_err e[NENG];
        for (i = 0; i < NENG; i++)
            e[i] = tp_pop_segment(w->t[i], &s[i]);
        CHECK(e[0] == e[1] && e[0] == e[2]);
        if (e[0] != RNIC_OK)
            break;
        w->records++;
        for (i = 1; i < NENG; i++)
            if (memcmp(&s[0], &s[i], sizeof s[0]) != 0)
                w->mismatches++;
        if (s[0].flow < w->flows) {
            uint32_t f = s[0].flow;
            if ((int32_t)(s[0].index + 1u - w->seen_hi[f]) > 0)
                w->seen_hi[f] = s[0].index + 1u;
            /* lose one in 64 (a later ACK / NAK / timeout recovers it), else ACK it later */
            if (rnic_prng_below(rng, 64) != 0 && w->nq < 256u) {
                pending_ack *p = &w->q[w->nq++];
                memset(p, 0, sizeof *p);
                p->at = tp_now(w->t[0]) - w->base + 1u + rnic_prng_below(rng, ack_delay_max);
                p->w.flow = f;
                p->w.index = s[0].index + 1u; /* cumulative (may run ahead of a loss: go-back-N tolerates it) */
                p->w.flags = TP_WORK_PKT(TP_PKT_ACK);
                if (rnic_prng_below(rng, 16) == 0)
                    p->w.flags = TP_WORK_PKT(TP_PKT_CNP);
                else if (rnic_prng_below(rng, 40) == 0) {
                    p->w.flags = TP_WORK_PKT(TP_PKT_NACK);
                    p->w.index = s[0].index > 3u ? s[0].index - 3u : 0u;
                }
            }
        }
    }
    for (;;) {
        rnic_err e[NENG];
        for (i = 0; i < NENG; i++)
            e[i] = tp_pop_completion(w->t[i], &c[i]);
        CHECK(e[0] == e[1] && e[0] == e[2]);
        if (e[0] != RNIC_OK)
            break;
        w->records++;
        for (i = 1; i < NENG; i++)
            if (memcmp(&c[0], &c[i], sizeof c[0]) != 0)
                w->mismatches++;
    }
}

/* ACKs due by `now`, in order, to all three (a full incoming port refuses it in all three alike). */
static void deliver(world *w, uint64_t now)
{
    uint32_t k = 0, i;
    while (k < w->nq) {
        if (w->q[k].at <= now) {
            for (i = 0; i < NENG; i++)
                tp_push_incoming(w->t[i], &w->q[k].w);
            w->q[k] = w->q[--w->nq];
        } else {
            k++;
        }
    }
}

static uint64_t next_ack(const world *w)
{
    uint64_t m = RNIC_NEVER;
    uint32_t k;
    for (k = 0; k < w->nq; k++)
        if (w->q[k].at < m)
            m = w->q[k].at;
    return m;
}

static void run_case(const tp_protocol *proto, uint32_t flows, uint64_t seed, uint64_t cycles, uint32_t gap_max)
{
    tp_protocol twin = *proto;
    world *w = (world *)calloc(1, sizeof *w);
    rnic_prng rng;
    uint64_t now = 0, next_msg = 0, skipped_a = 0;
    bool stepwise = (seed / 2u) % 2u == 0; /* else A runs tp_advance_to's own loop to each input */
    uint32_t i, f;
    char what[160];
    twin_base = proto;
    twin.incoming = twin_incoming;
    twin.periodic = twin_periodic;
    rnic_prng_seed(&rng, seed);
    w->flows = flows;
    for (i = 0; i < NENG; i++) {
        tp_config c;
        size_t n;
        tp_config_default(&c);
        c.clock_hz = 250000000u;
        c.link_bps = 100000000000ull;
        c.max_flows = flows + (uint32_t)(seed % 3u); /* some ids never open: visits to closed flows */
        c.start_cycle = seed % 4u == 3u ? UINT64_MAX - 60000u : 0; /* the clock wraps inside the run */
        c.segment_depth = 4;
        c.completion_depth = 4;
        c.protocol = i == 2 ? &twin : proto;
        c.trace = tr_fn;
        c.trace_user = &w->log[i];
        n = tp_mem_size(&c);
        CHECK(n > 0);
        w->mem[i] = malloc(n + RNIC_MEM_ALIGN);
        w->t[i] = (tp *)calloc(1, sizeof(tp));
        w->log[i].h = 1469598103934665603ull;
        CHECK_EQ(tp_init(w->t[i], &c, (void *)(((uintptr_t)w->mem[i] + RNIC_MEM_ALIGN - 1u) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u)), n), RNIC_OK);
    }
    w->base = tp_now(w->t[0]);
    for (f = 0; f < flows; f++) {
        tp_flow_config p;
        tp_flow_config_default(&p);
        p.seg_size = 1000;
        p.rto_ns = 20000u + 1000u * f; /* timeouts happen (lost segments) */
        p.init_rate_bps = 10000000000ull * (1u + f % 4u);
        for (i = 0; i < NENG; i++)
            CHECK_EQ(tp_flow_open(w->t[i], f, &p), RNIC_OK);
    }
    while (now < cycles) {
        uint64_t target = next_msg < next_ack(w) ? next_msg : next_ack(w);
        if (target > cycles)
            target = cycles;
        /* A fast-forwards towards the next input; B and C tick to wherever A stopped */
        while (tp_now(w->t[0]) - w->base < target) {
            uint64_t at = tp_now(w->t[0]) - w->base, next = tp_next_event(w->t[0]) - w->base; /* (never: huge) */
            if (!stepwise) {
                tp_advance_to(w->t[0], w->base + target); /* its own loop: skips, ticks, stops at a full port */
            } else if (next != at) { /* idle until min(next, target): skipped */
                skipped_a += (next < target ? next : target) - at;
                tp_advance_to(w->t[0], w->base + (next < target ? next : target));
            } else {
                tp_advance(w->t[0], 1);
            }
            while (tp_now(w->t[1]) != tp_now(w->t[0])) {
                tp_tick(w->t[1]);
                tp_tick(w->t[2]);
            }
            drain(w, &rng, gap_max);
            at = tp_now(w->t[0]) - w->base;
            if (next_ack(w) < target) /* an ACK scheduled by this drain comes first */
                target = next_ack(w) > at ? next_ack(w) : at;
        }
        now = tp_now(w->t[0]) - w->base;
        deliver(w, now);
        if (now >= next_msg) {
            rnic_work m;
            memset(&m, 0, sizeof m);
            m.flow = (uint32_t)rnic_prng_below(&rng, flows);
            m.len = 1u + (uint32_t)rnic_prng_below(&rng, 12000);
            m.tag = now;
            for (i = 0; i < NENG; i++)
                tp_push_message(w->t[i], &m); /* a full queue refuses it in all three */
            next_msg = now + 1u + rnic_prng_below(&rng, gap_max);
        }
    }
    /* the same events, records and statistics */
    CHECK_EQ(w->mismatches, 0);
    CHECK(w->records > 0);
    for (i = 1; i < NENG; i++) {
        tp_stats a = *tp_get_stats(w->t[0]), b = *tp_get_stats(w->t[i]);
        snprintf(what, sizeof what, "engine %u vs A", i);
        CHECK_EQ(w->log[0].n, w->log[i].n);
        CHECK_EQ(w->log[0].h, w->log[i].h);
        if (i == 2) { /* C runs the periodic hook at every visit */
            CHECK(b.periodic_runs > a.periodic_runs);
            a.periodic_runs = b.periodic_runs;
        }
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        if (memcmp(&a, &b, sizeof a) != 0)
            printf("  %s: stats differ (segments %" PRIu64 " / %" PRIu64 ", stalls %" PRIu64 " / %" PRIu64 ")\n", what,
                   a.segments_out, b.segments_out, a.tx_stalls, b.tx_stalls);
    }
    for (f = 0; f < flows; f++) {
        tp_flow_view v[NENG];
        for (i = 0; i < NENG; i++)
            CHECK_EQ(tp_flow_state(w->t[i], f, &v[i]), RNIC_OK);
        for (i = 1; i < NENG; i++) {
            CHECK_EQ(v[0].wnd_start, v[i].wnd_start);
            CHECK_EQ(v[0].highest_sent, v[i].highest_sent);
            CHECK_EQ(v[0].total_sent, v[i].total_sent);
            CHECK_EQ(v[0].rate_bps, v[i].rate_bps);
            CHECK_EQ(v[0].credit, v[i].credit);
            CHECK(memcmp(v[0].ctx, v[i].ctx, proto->ctx_size) == 0);
        }
    }
    /* A skipped idle stretches: the point of wake-ups */
    if (stepwise && gap_max >= 20000u) /* sparse traffic: most cycles idle */
        CHECK(skipped_a > tp_get_stats(w->t[1])->cycles / 2u);
    if (seed % 8u == 5u)
        printf("  %s, %u flows, seed %" PRIu64 ": %" PRIu64 " records, %u events, A skipped at least %" PRIu64 " of %" PRIu64
               " cycles, periodic hook calls %" PRIu64 " (every visit: %" PRIu64 ")\n",
               proto->name, flows, seed, w->records, w->log[0].n, skipped_a, tp_get_stats(w->t[1])->cycles,
               tp_get_stats(w->t[0])->periodic_runs, tp_get_stats(w->t[2])->periodic_runs);
    for (i = 0; i < NENG; i++) {
        free(w->mem[i]);
        free(w->t[i]);
    }
    free(w);
}

static tp_dcqcn_config cfg_bytes; /* a byte counter of 3 segments, short timers */

static void run_preset(const tp_dcqcn_config *dc, uint64_t base_seed)
{
    tp_protocol p = *tp_protocol_dcqcn();
    uint64_t s, seeds = test_length(60, 60), seed0 = test_seed(base_seed); /* the quick run is the full one: make test covers every path it reaches */
    p.config = dc;
    for (s = 0; s < seeds; s++) {
        uint32_t flows = 1u + (uint32_t)((seed0 + s) % MAXF);
        /* dense traffic (gaps up to 200 cycles) and sparse (up to 20,000) */
        run_case(&p, flows, seed0 + s, 120000u, (s & 1u) ? 20000u : 200u);
    }
}

static void test_dcqcn_paper(void)
{
    tp_dcqcn_config d;
    tp_dcqcn_preset(&d, TP_DCQCN_PAPER);
    run_preset(&d, 100);
}

static void test_dcqcn_mellanox(void)
{
    tp_dcqcn_config d;
    tp_dcqcn_preset(&d, TP_DCQCN_MELLANOX);
    run_preset(&d, 200);
}

static void test_dcqcn_byte_counter(void)
{
    tp_dcqcn_preset(&cfg_bytes, TP_DCQCN_PAPER);
    cfg_bytes.byte_counter = 2500; /* 3 segments of 1000 B */
    cfg_bytes.alpha_period_ns = 3000;
    cfg_bytes.rate_period_ns = 7000;
    run_preset(&cfg_bytes, 300);
}

/* The declaration itself: DCQCN's periodic hook names its earliest timer and byte step. */
static void test_declaration(void)
{
    const tp_protocol *p = tp_protocol_dcqcn();
    tp_dcqcn_config d;
    tp_flow_config fp;
    tp_event ev;
    tp_actions act;
    tp_dcqcn_ctx c;
    tp_dcqcn_preset(&d, TP_DCQCN_PAPER);
    tp_flow_config_default(&fp);
    memset(&ev, 0, sizeof ev);
    memset(&c, 0, sizeof c);
    ev.params = &fp;
    ev.config = &d;
    ev.clock_hz = 1000000000u;
    ev.window_bits = 128;
    ev.rate_bps = 40000000000ull;
    ev.now = 1000;
    ev.total_sent = 50;
    c.line = 100000000000ull;
    c.target = c.line;
    c.alpha = TP_DCQCN_ONE;
    /* not active: no time, no byte step */
    memset(&act, 0, sizeof act);
    p->periodic(&ev, &c, &act);
    CHECK_EQ(act.wake, TP_WAKE_AT);
    CHECK_EQ(act.wake_at, RNIC_NEVER);
    CHECK(!act.wake_sent_on);
    /* active: alpha at 1,500, rate at 1,200 -> 1,200; bytes: 10 MB / 1000 B = 10,000 segments from 40 */
    c.flags = TP_DCQCN_S_ACTIVE | TP_DCQCN_S_RATE_ON;
    c.alpha_at = 1500;
    c.rate_at = 1200;
    c.bc_base = 40;
    memset(&act, 0, sizeof act);
    p->periodic(&ev, &c, &act);
    CHECK_EQ(act.wake_at, 1200);
    CHECK(act.wake_sent_on);
    CHECK_EQ(act.wake_sent, 40u + 10000u);
    /* an incoming ACK keeps the declaration, a CNP drops it */
    ev.pkt_type = TP_PKT_ACK;
    memset(&act, 0, sizeof act);
    p->incoming(&ev, &c, &act);
    CHECK_EQ(act.wake, TP_WAKE_KEEP);
    ev.pkt_type = TP_PKT_CNP;
    memset(&act, 0, sizeof act);
    p->incoming(&ev, &c, &act);
    CHECK_EQ(act.wake, TP_WAKE_NEXT);
}

int main(void)
{
    RUN(test_declaration);
    RUN(test_dcqcn_paper);
    RUN(test_dcqcn_mellanox);
    RUN(test_dcqcn_byte_counter);
    return test_summary();
}
