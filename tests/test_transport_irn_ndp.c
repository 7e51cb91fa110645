/* IRN and NDP (transport.h's tp_protocol_irn / tp_protocol_ndp) in small closed loops, against
 * what the papers say they do, counted per segment id by the test (not by the engine):
 *   IRN (Mittal et al., SIGCOMM'18): the real tp_rx (nack = true, an ACK per packet) behind a
 *     fixed-delay channel that drops chosen transmissions: the retransmitted ids are exactly the
 *     dropped ones (each as often as it was dropped), every byte arrives once, RTO_low when at most
 *     N = 3 packets are in flight and RTO_high otherwise (timeout time after the last ACK), and
 *     highest_sent - wnd_start never exceeds the BDP cap (checked every cycle).
 *   NDP (Handley et al., SIGCOMM'17): a receiver written here (independent of receiver.c): every
 *     arrival, data or trimmed header, queues one pull (GRANT, aux = the segment's bytes) paced at
 *     a fixed gap; a trimmed header is answered by a trim notice (NACK, offset = its id, len 0).
 *     The sender sends exactly the initial window before any pull, then one segment per pull; a
 *     trimmed segment is resent once; under seeded random trimming every byte arrives once and
 *     each id is resent exactly as often as it was trimmed; a lost tail is recovered by a timeout.
 * Clock 100 MHz, link 100 Gb/s (12.5 B per cycle), 1,000 B segments. */
#define TP_IMPLEMENTATION
#include "transport.h"
#include "test.h"

#define MAXSEG 4096u /* per-id arrays, indexed by id - init_seq */
#define CH 8192u

typedef struct chent {
    uint64_t due;
    rnic_work w;
} chent;

typedef struct chan { /* a constant-delay line: FIFO, due times non-decreasing */
    chent e[CH];
    uint32_t head, count;
} chan;

static void ch_push(chan *c, uint64_t due, const rnic_work *w)
{
    if (c->count == CH) {
        printf("channel full\n");
        exit(2);
    }
    c->e[(c->head + c->count) % CH].due = due;
    c->e[(c->head + c->count) % CH].w = *w;
    c->count++;
}

static const rnic_work *ch_peek(const chan *c, uint64_t now)
{
    return c->count && c->e[c->head].due <= now ? &c->e[c->head].w : NULL;
}

static void ch_pop(chan *c)
{
    c->head = (c->head + 1u) % CH;
    c->count--;
}

typedef struct lp {
    tp t;
    void *tmem;
    tp_rx r; /* IRN: the real receiver */
    void *rmem;
    bool ndp;
    uint32_t base, nseg, seg;
    uint64_t now, delay;
    chan data, ctrl;
    /* the network's decisions, per id: drop (IRN) or trim (NDP) the first k transmissions; vanish
     * (NDP: no header either); random drop / trim per transmission */
    uint8_t drop_first[MAXSEG], vanish_first[MAXSEG];
    uint32_t loss_ppm;
    rnic_prng rng;
    /* observations, per id */
    uint32_t sent[MAXSEG], rtx[MAXSEG], dropped[MAXSEG], delivered[MAXSEG];
    uint64_t segments_out, bytes_delivered, completions, first_out_cycle, last_progress_cycle;
    uint64_t timeout_cycles[8];
    uint32_t ntimeouts, cap, max_flight, cap_violations, bad_rtx_flag;
    /* NDP receiver */
    uint32_t expected, pull_gap, pulls_allowed, pulls_sent, pulls_pending, pull_len[MAXSEG];
    uint32_t pull_head;
    uint64_t next_pull;
    uint8_t got[MAXSEG];
} lp;

static void *aligned(size_t n) { return malloc(n + RNIC_MEM_ALIGN); }
static void *align_up(void *p) { return (void *)(((uintptr_t)p + (RNIC_MEM_ALIGN - 1u)) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u)); }

/* A loop for `proto`, one flow, `nseg` segments of 1,000 B pushed as `nmsg` messages. */
static lp *lp_new(const tp_protocol *proto, const tp_flow_config *fp, uint32_t nseg, uint32_t nmsg)
{
    lp *L = (lp *)calloc(1, sizeof *L);
    tp_config tc;
    tp_rx_config rc;
    size_t n;
    uint32_t i, per = (nseg + nmsg - 1u) / nmsg, left = nseg;
    tp_config_default(&tc);
    tc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    tc.max_flows = 1;
    tc.window = 128;
    tc.protocol = proto;
    n = tp_mem_size(&tc);
    L->tmem = aligned(n);
    if (!n || tp_init(&L->t, &tc, align_up(L->tmem), n) != RNIC_OK || tp_flow_open(&L->t, 0, fp) != RNIC_OK) {
        printf("sender init failed\n");
        exit(2);
    }
    L->ndp = proto->credit == TP_CREDIT_TOKEN;
    if (!L->ndp) {
        tp_rx_config_default(&rc);
        rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        rc.max_flows = 1;
        rc.window = 128;
        rc.nack = true;
        rc.sack = true;
        rc.delack_count = 1;
        n = tp_rx_mem_size(&rc);
        L->rmem = aligned(n);
        if (!n || tp_rx_init(&L->r, &rc, align_up(L->rmem), n) != RNIC_OK || tp_rx_flow_open(&L->r, 0, &(tp_rx_flow_config){.init_seq = fp->init_seq}) != RNIC_OK) {
            printf("receiver init failed\n");
            exit(2);
        }
    }
    L->base = L->expected = fp->init_seq;
    L->nseg = nseg;
    L->seg = fp->seg_size;
    L->delay = 100; /* 1 us each way */
    L->pull_gap = 88; /* (1,000 + 64) B at 100 Gb/s: 85 cycles; a little slower */
    L->pulls_allowed = UINT32_MAX;
    L->first_out_cycle = UINT64_MAX;
    rnic_prng_seed(&L->rng, 1);
    for (i = 0; i < nmsg; i++) {
        rnic_work m;
        uint32_t k = left < per ? left : per;
        memset(&m, 0, sizeof m);
        m.flow = 0;
        m.len = k * fp->seg_size;
        m.tag = i;
        if (tp_push_message(&L->t, &m) != RNIC_OK) {
            printf("push failed\n");
            exit(2);
        }
        left -= k;
    }
    return L;
}

static void lp_free(lp *L)
{
    free(L->tmem);
    free(L->rmem);
    free(L);
}

/* NDP receiver: one arrival. */
static void ndp_arrival(lp *L, const rnic_work *s)
{
    rnic_work a;
    uint32_t d = s->index - L->base;
    memset(&a, 0, sizeof a);
    a.flow = 0;
    if (s->flags & TP_WORK_TRIMMED) { /* trim notice */
        a.offset = s->index;
        a.flags = TP_WORK_PKT(TP_PKT_NACK) | TP_WORK_TRIMMED;
    } else {
        if (!L->got[d]) {
            L->got[d] = 1;
            L->delivered[d]++;
            L->bytes_delivered += s->len;
            while (L->expected - L->base < L->nseg && L->got[L->expected - L->base])
                L->expected++;
        } else {
            L->delivered[d]++; /* a duplicate: counted, so "once" can fail */
        }
        a.flags = TP_WORK_PKT(TP_PKT_ACK);
        if ((int32_t)(s->index - L->expected) > 0) { /* beyond the cumulative ack: SACK just it */
            a.offset = s->index;
            a.len = 1;
        }
    }
    a.index = L->expected;
    ch_push(&L->ctrl, L->now + L->delay, &a);
    L->pull_len[(L->pull_head + L->pulls_pending) % MAXSEG] = s->len;
    L->pulls_pending++;
}

static void ndp_pulls(lp *L)
{
    rnic_work g;
    if (!L->pulls_pending || L->pulls_sent >= L->pulls_allowed || L->now < L->next_pull)
        return;
    memset(&g, 0, sizeof g);
    g.flow = 0;
    g.flags = TP_WORK_PKT(TP_PKT_GRANT);
    g.index = L->expected;
    g.aux = L->pull_len[L->pull_head];
    L->pull_head = (L->pull_head + 1u) % MAXSEG;
    L->pulls_pending--;
    L->pulls_sent++;
    L->next_pull = L->now + L->pull_gap;
    ch_push(&L->ctrl, L->now + L->delay, &g);
}

/* One cycle of the loop. */
static void lp_cycle(lp *L)
{
    const rnic_work *w;
    rnic_work s;
    tp_flow_view v;
    uint64_t to = tp_get_stats(&L->t)->timeouts;
    while ((w = ch_peek(&L->data, L->now)) != NULL) {
        if (L->ndp) {
            ndp_arrival(L, w);
        } else {
            if (tp_rx_space_segment(&L->r) == 0)
                break;
            tp_rx_push_segment(&L->r, w);
        }
        ch_pop(&L->data);
    }
    while ((w = ch_peek(&L->ctrl, L->now)) != NULL && tp_space_incoming(&L->t) > 0) {
        L->last_progress_cycle = L->now;
        tp_push_incoming(&L->t, w);
        ch_pop(&L->ctrl);
    }
    if (L->ndp)
        ndp_pulls(L);
    tp_tick(&L->t);
    if (!L->ndp)
        tp_rx_tick(&L->r);
    if (tp_get_stats(&L->t)->timeouts != to && L->ntimeouts < 8u)
        L->timeout_cycles[L->ntimeouts++] = L->now;
    while (tp_pop_segment(&L->t, &s) == RNIC_OK) {
        uint32_t d = s.index - L->base;
        bool lose;
        if (d >= L->nseg) {
            printf("segment id out of range\n");
            exit(2);
        }
        if (L->first_out_cycle == UINT64_MAX)
            L->first_out_cycle = L->now;
        L->segments_out++;
        if (s.flags & TP_WORK_RTX)
            L->rtx[d]++;
        L->bad_rtx_flag += ((s.flags & TP_WORK_RTX) != 0) != (L->sent[d] > 0);
        L->sent[d]++;
        if (L->vanish_first[d]) {
            L->vanish_first[d]--;
            L->dropped[d]++;
            continue;
        }
        lose = L->drop_first[d] > 0;
        if (lose)
            L->drop_first[d]--;
        else if (L->loss_ppm)
            lose = rnic_prng_below(&L->rng, 1000000u) < L->loss_ppm;
        if (lose) {
            L->dropped[d]++;
            if (!L->ndp)
                continue;
            s.flags |= TP_WORK_TRIMMED; /* NDP: the switch trims, the header goes on */
        }
        ch_push(&L->data, L->now + L->delay, &s);
    }
    if (!L->ndp) {
        rnic_work a;
        while (tp_rx_pop_ack(&L->r, &a) == RNIC_OK)
            ch_push(&L->ctrl, L->now + L->delay, &a);
        while (tp_rx_pop_delivered(&L->r, &a) == RNIC_OK) {
            L->delivered[a.index - L->base]++;
            L->bytes_delivered += a.len;
        }
    }
    while (tp_pop_completion(&L->t, &s) == RNIC_OK)
        L->completions++;
    tp_flow_state(&L->t, 0, &v);
    if (v.highest_sent - v.wnd_start > L->max_flight)
        L->max_flight = v.highest_sent - v.wnd_start;
    if (L->cap && v.highest_sent - v.wnd_start > L->cap)
        L->cap_violations++;
    L->now++;
}

static void lp_run(lp *L, uint64_t cycles)
{
    uint64_t end = L->now + cycles;
    while (L->now < end)
        lp_cycle(L);
}

static void lp_run_until_done(lp *L, uint32_t nmsg, uint64_t limit)
{
    uint64_t end = L->now + limit;
    while (L->now < end && L->completions < nmsg)
        lp_cycle(L);
    lp_run(L, 1000); /* let stragglers land */
}

/* Every segment delivered exactly once, every byte, every message completed. */
static void check_once(const lp *L, uint32_t nmsg)
{
    uint32_t i, bad = 0;
    for (i = 0; i < L->nseg; i++)
        bad += L->delivered[i] != 1u;
    CHECK_EQ(bad, 0);
    CHECK_EQ(L->bytes_delivered, (uint64_t)L->nseg * L->seg);
    CHECK_EQ(L->completions, nmsg);
    CHECK_EQ(L->bad_rtx_flag, 0);
}

/* Retransmissions of each id = the transmissions of it the network lost; returns how many ids
 * were resent. */
static uint32_t check_rtx_equals_lost(const lp *L)
{
    uint32_t i, bad = 0, resent = 0;
    for (i = 0; i < L->nseg; i++) {
        bad += L->rtx[i] != L->dropped[i];
        resent += L->rtx[i] > 0;
    }
    CHECK_EQ(bad, 0);
    return resent;
}

/* ---------------------------------------------------------------- IRN */

static tp_irn_config irn_cfg;
static tp_protocol irn_proto;

static const tp_protocol *irn_with(uint32_t bdp_bytes)
{
    tp_irn_config_default(&irn_cfg);
    irn_cfg.bdp_bytes = bdp_bytes;
    irn_proto = *tp_protocol_irn();
    irn_proto.config = &irn_cfg;
    return &irn_proto;
}

static void irn_params(tp_flow_config *p, uint32_t init_seq)
{
    tp_flow_config_default(p);
    p->seg_size = 1000;
    p->init_seq = init_seq;
}

/* A chosen drop set, no tail loss: the NACKs recover everything, no timeout. */
static void irn_retransmits_exactly_dropped(void)
{
    static const uint32_t drops[] = {5, 6, 7, 40, 41, 63, 100, 150, 151, 152, 153, 180};
    tp_flow_config p;
    lp *L;
    uint32_t i;
    irn_params(&p, 0);
    L = lp_new(irn_with(20000), &p, 200, 1);
    for (i = 0; i < sizeof drops / sizeof drops[0]; i++)
        L->drop_first[drops[i]] = 1;
    L->cap = 20;
    lp_run_until_done(L, 1, 2000000);
    check_once(L, 1);
    CHECK_EQ(check_rtx_equals_lost(L), sizeof drops / sizeof drops[0]);
    CHECK_EQ(L->ntimeouts, 0);
    CHECK_EQ(L->segments_out, 200u + sizeof drops / sizeof drops[0]);
    CHECK_EQ(L->cap_violations, 0);
    CHECK_EQ(L->max_flight, 20); /* the cap binds */
    lp_free(L);
}

/* A lost tail (no later packet, so no NACK): one timeout resends exactly the lost ones (the
 * SACKed are skipped); an earlier loss is still recovered by its NACK. */
static void irn_tail_loss_timeout(void)
{
    static const uint32_t drops[] = {3, 30, 31, 96, 97, 98, 99};
    tp_flow_config p;
    lp *L;
    uint32_t i;
    irn_params(&p, 0xffffffc0u); /* ids wrap inside the flow */
    L = lp_new(irn_with(16000), &p, 100, 2);
    for (i = 0; i < sizeof drops / sizeof drops[0]; i++)
        L->drop_first[drops[i]] = 1;
    L->cap = 16;
    lp_run_until_done(L, 2, 2000000);
    check_once(L, 2);
    CHECK_EQ(check_rtx_equals_lost(L), sizeof drops / sizeof drops[0]);
    CHECK_EQ(L->ntimeouts, 1);
    CHECK_EQ(L->cap_violations, 0);
    lp_free(L);
}

/* Random loss of any transmission (retransmissions too), 1 % and 5 %, several seeds: every byte
 * once, and no segment is resent unless the network lost it (no spurious retransmission). */
static void irn_random_loss(void)
{
    uint32_t seed, ppm;
    for (ppm = 10000; ppm <= 50000; ppm += 40000)
        for (seed = 1; seed <= 6; seed++) {
            tp_flow_config p;
            lp *L;
            irn_params(&p, seed * 0x9e3779b9u);
            L = lp_new(irn_with(32000), &p, 1500, 6);
            rnic_prng_seed(&L->rng, seed);
            L->loss_ppm = ppm;
            L->cap = 32;
            lp_run_until_done(L, 6, 50000000);
            check_once(L, 6);
            check_rtx_equals_lost(L);
            CHECK_EQ(L->cap_violations, 0);
            CHECK(L->max_flight == 32);
            lp_free(L);
            if (TEST_FAILS())
                return;
        }
}

/* RTO_low (100 us = 10,000 cycles) with at most N = 3 in flight, RTO_high (320 us = 32,000
 * cycles) with more: a 10-segment message whose last k first transmissions are lost; the timer
 * runs from the last ACK (its hook runs a cycle after the fixed stage, the periodic scan sees the
 * expiry at once: 1 flow). k = 1, 3 -> low; k = 4, 8 -> high; k = 10 (no ACK) -> low. */
static void irn_rto_low_high(void)
{
    static const uint32_t lost[] = {1, 3, 4, 8, 10};
    static const uint64_t expect[] = {10000, 10000, 32000, 32000, 10000};
    uint32_t i;
    for (i = 0; i < 5; i++) {
        tp_flow_config p;
        lp *L;
        uint32_t j;
        uint64_t last_ack = 0, t0;
        irn_params(&p, 0);
        L = lp_new(irn_with(0), &p, 10, 1);
        for (j = 10u - lost[i]; j < 10u; j++)
            L->drop_first[j] = 1;
        while (L->ntimeouts == 0 && L->now < 200000) {
            lp_cycle(L);
            if (L->last_progress_cycle)
                last_ack = L->last_progress_cycle;
        }
        CHECK_EQ(L->ntimeouts, 1);
        /* no ACK at all (everything lost): the timer runs from the first transmission, with the
         * period set before any ACK (nothing known in flight: RTO_low) */
        t0 = lost[i] == 10u ? L->first_out_cycle - 2u : last_ack; /* the timer starts at generation, <= 2 cycles before */
        CHECK(L->timeout_cycles[0] >= t0 + expect[i] && L->timeout_cycles[0] <= t0 + expect[i] + 4u);
        if (TEST_FAILS())
            printf("  lost %u: timeout at %" PRIu64 ", from %" PRIu64 " (+%" PRIu64 "), expected +%" PRIu64 "\n",
                   lost[i], L->timeout_cycles[0], t0, L->timeout_cycles[0] - t0, expect[i]);
        lp_run_until_done(L, 1, 200000);
        check_once(L, 1);
        check_rtx_equals_lost(L);
        lp_free(L);
        if (TEST_FAILS())
            return;
    }
}

/* Parameters: defaults, checks, variants refused by tp_config_check. */
static void irn_config(void)
{
    tp_irn_config c;
    tp_protocol v = *tp_protocol_irn();
    tp_config tc;
    tp_irn_config_default(&c);
    CHECK_EQ(c.rto_low_ns, 100000);
    CHECK_EQ(c.rto_high_ns, 320000);
    CHECK_EQ(c.rto_low_pkts, 3);
    CHECK_EQ(tp_irn_config_check(&c), RNIC_OK);
    CHECK_EQ(tp_irn_config_check(NULL), RNIC_EINVAL);
    c.rto_low_ns = 400000u;
    CHECK_EQ(tp_irn_config_check(&c), RNIC_EINVAL);
    c.rto_low_ns = 0u;
    CHECK_EQ(tp_irn_config_check(&c), RNIC_EINVAL);
    tp_config_default(&tc);
    tc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    tc.protocol = &v;
    v.config = &c;
    CHECK_EQ(tp_config_check(&tc, NULL), RNIC_EINVAL);
    tp_irn_config_default(&c);
    CHECK_EQ(tp_config_check(&tc, NULL), RNIC_OK);
    CHECK_EQ(tp_protocol_irn()->credit, TP_CREDIT_RATE);
    CHECK(tp_protocol_irn()->ctx_size <= TP_CTX_MAX_RATE);
}

/* A fixed rate parameter paces the flow: 1,000 segments at 10 Gb/s take >= 800 us. */
static void irn_fixed_rate(void)
{
    tp_flow_config p;
    lp *L;
    irn_params(&p, 0);
    tp_irn_config_default(&irn_cfg);
    irn_cfg.rate_bps = 10000000000ull;
    irn_cfg.bdp_bytes = 64000;
    irn_proto = *tp_protocol_irn();
    irn_proto.config = &irn_cfg;
    L = lp_new(&irn_proto, &p, 1000, 4);
    lp_run_until_done(L, 4, 2000000);
    check_once(L, 4);
    /* 1,000 x 1,000 B at 10 Gb/s = 800 us = 80,000 cycles (2 segments of initial burst) */
    CHECK(L->now >= 79800u && L->now <= 82000u + 2u * L->delay + 1000u);
    lp_free(L);
}

/* ---------------------------------------------------------------- NDP */

static tp_ndp_config ndp_cfg;
static tp_protocol ndp_proto;

static const tp_protocol *ndp_with(uint32_t iw, uint32_t rto_us)
{
    tp_ndp_config_default(&ndp_cfg);
    ndp_cfg.init_window = iw;
    ndp_cfg.rto_ns = (uint64_t)rto_us * 1000u;
    ndp_proto = *tp_protocol_ndp();
    ndp_proto.config = &ndp_cfg;
    return &ndp_proto;
}

static void ndp_params(tp_flow_config *p, uint32_t init_seq)
{
    tp_flow_config_default(p);
    p->seg_size = 1000;
    p->init_seq = init_seq;
    p->rto_ns = 1000000000u; /* 1 s: no timeout unless a test wants one */
}

/* Exactly the initial window before any pull; then one segment per pull; the credit left at the
 * end is the initial window plus the pulled bytes minus the bytes sent. */
static void ndp_init_window_then_pulls(void)
{
    tp_flow_config p;
    lp *L;
    tp_flow_view v;
    ndp_params(&p, 0);
    L = lp_new(ndp_with(8, 0), &p, 60, 2);
    L->pulls_allowed = 0;
    lp_run(L, 20000);
    CHECK_EQ(L->segments_out, 8);
    CHECK_EQ(L->pulls_pending, 8); /* the receiver got them and wants to pull */
    L->pulls_allowed = 5;
    lp_run(L, 20000);
    CHECK_EQ(L->pulls_sent, 5);
    CHECK_EQ(L->segments_out, 13);
    L->pulls_allowed = UINT32_MAX;
    lp_run_until_done(L, 2, 1000000);
    check_once(L, 2);
    CHECK_EQ(L->segments_out, 60);
    CHECK_EQ(L->pulls_sent, 60);
    tp_flow_state(&L->t, 0, &v);
    CHECK_EQ(v.credit, 8000u + 60u * 1000u - 60u * 1000u);
    lp_free(L);
}

/* A trimmed segment is resent once, on the pull its header brings; nothing else is resent. */
static void ndp_trim_resent_once(void)
{
    static const uint32_t trims[] = {3, 10, 11, 12, 39};
    tp_flow_config p;
    lp *L;
    uint32_t i;
    ndp_params(&p, 0);
    L = lp_new(ndp_with(16, 0), &p, 40, 1);
    for (i = 0; i < 5; i++)
        L->drop_first[trims[i]] = 1;
    lp_run_until_done(L, 1, 1000000);
    check_once(L, 1);
    CHECK_EQ(check_rtx_equals_lost(L), 5);
    CHECK_EQ(L->ntimeouts, 0);
    CHECK_EQ(L->segments_out, 45);
    CHECK_EQ(L->pulls_sent, 45); /* one pull per arrival, trimmed headers included */
    lp_free(L);
}

/* Random trimming of any transmission (10 %, 30 %), seeds 1..8: every byte once, each id resent
 * exactly as often as it was trimmed, no timeout (a trimmed header always arrives). */
static void ndp_random_trim(void)
{
    uint32_t seed, ppm;
    for (ppm = 100000; ppm <= 300000; ppm += 200000)
        for (seed = 1; seed <= 8; seed++) {
            tp_flow_config p;
            lp *L;
            ndp_params(&p, seed * 0x7f4a7c15u);
            L = lp_new(ndp_with(12, 0), &p, 800, 5);
            rnic_prng_seed(&L->rng, seed * 77u);
            L->loss_ppm = ppm;
            lp_run_until_done(L, 5, 20000000);
            check_once(L, 5);
            check_rtx_equals_lost(L);
            CHECK_EQ(L->ntimeouts, 0);
            CHECK_EQ(L->pulls_sent, L->segments_out);
            lp_free(L);
            if (TEST_FAILS())
                return;
        }
}

/* The last three packets vanish whole (no header, no pull): a timeout (200 us after the last
 * packet from the receiver) resends exactly them with the credit they lack (an initial window of
 * 3 leaves no credit once the other pulls are spent). */
static void ndp_timeout_tail(void)
{
    tp_flow_config p;
    lp *L;
    uint64_t last = 0;
    ndp_params(&p, 0);
    L = lp_new(ndp_with(3, 200), &p, 50, 1);
    L->vanish_first[47] = L->vanish_first[48] = L->vanish_first[49] = 1;
    L->drop_first[20] = 1; /* and one trimmed on the way */
    while (L->ntimeouts == 0 && L->now < 1000000) {
        lp_cycle(L);
        last = L->last_progress_cycle;
    }
    CHECK_EQ(L->ntimeouts, 1);
    CHECK(L->timeout_cycles[0] >= last + 20000u && L->timeout_cycles[0] <= last + 20004u);
    lp_run_until_done(L, 1, 1000000);
    check_once(L, 1);
    CHECK_EQ(check_rtx_equals_lost(L), 4);
    CHECK_EQ(L->ntimeouts, 1);
    lp_free(L);
}

/* A one-flow NDP sender (ring of one segment, initial window 3) driven directly, for the state
 * the fuzz harness found (corpus/transport/ndp_stale_rtx_stall). */
typedef struct ndp_direct {
    tp t;
    void *mem;
    rnic_work out[16];
    uint32_t nout;
} ndp_direct;

static void nd_open(ndp_direct *d)
{
    tp_config tc;
    tp_flow_config p;
    rnic_work m;
    size_t n;
    memset(d, 0, sizeof *d);
    tp_config_default(&tc);
    tc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    tc.max_flows = 1;
    tc.ring = 1;
    tc.protocol = ndp_with(3, 0);
    n = tp_mem_size(&tc);
    d->mem = aligned(n);
    ndp_params(&p, 0);
    if (!n || tp_init(&d->t, &tc, align_up(d->mem), n) != RNIC_OK || tp_flow_open(&d->t, 0, &p) != RNIC_OK) {
        printf("sender init failed\n");
        exit(2);
    }
    memset(&m, 0, sizeof m);
    m.len = 3000; /* segments 0, 1, 2: the initial window */
    m.tag = 1;
    CHECK_EQ(tp_push_message(&d->t, &m), RNIC_OK);
}

static void nd_run(ndp_direct *d, uint32_t cycles)
{
    rnic_work s;
    while (cycles--) {
        tp_tick(&d->t);
        while (tp_pop_segment(&d->t, &s) == RNIC_OK)
            if (d->nout < 16u)
                d->out[d->nout++] = s;
    }
}

static void nd_incoming(ndp_direct *d, uint32_t op, uint32_t index, uint32_t offset, uint32_t len, uint32_t aux)
{
    rnic_work a;
    memset(&a, 0, sizeof a);
    a.flags = TP_WORK_PKT(op);
    a.index = index;
    a.offset = offset;
    a.len = len;
    a.aux = aux;
    a.flags |= op == TP_PKT_NACK ? TP_WORK_TRIMMED : 0u;
    CHECK_EQ(tp_push_incoming(&d->t, &a), RNIC_OK);
}

/* Sends segments 0..2 on the initial window, then takes a trim notice for segment 1 whose pull is
 * lost: the retransmission of 1 is generated and waits in the ring with no credit. */
static void nd_rtx_waits_in_ring(ndp_direct *d)
{
    tp_flow_view v;
    nd_open(d);
    nd_run(d, 10);
    CHECK_EQ(d->nout, 3);
    nd_incoming(d, TP_PKT_NACK, 0, 1, 0, 0);
    nd_run(d, 10);
    CHECK_EQ(d->nout, 3);
    tp_flow_state(&d->t, 0, &v);
    CHECK_EQ(v.outstanding, 1); /* the retransmission of 1, in the ring */
    CHECK_EQ(v.credit, 0);
}

/* Regression (fuzz finding ndp_stale_rtx_stall): the original of segment 1 arrives after all and
 * everything is acknowledged while its retransmission waits in the ring for credit. Before the
 * fix the ring stayed full of it, nothing new could be generated, the rtx timer was off (nothing
 * in flight) and the flow stalled for good; a later pull was spent resending acknowledged data.
 * Now the acknowledged retransmission leaves the ring unsent, with no credit spent (counted in
 * segments_skipped), and the next message goes out on the next pulls. */
static void ndp_acked_rtx_in_ring_skipped(void)
{
    ndp_direct d;
    tp_flow_view v;
    rnic_work m, c;
    uint32_t i, rtx_out = 0, completions = 0;
    nd_rtx_waits_in_ring(&d);
    nd_incoming(&d, TP_PKT_ACK, 3, 0, 0, 0); /* cumulative: 0, 1, 2 */
    memset(&m, 0, sizeof m);
    m.len = 2000; /* segments 3, 4 */
    m.tag = 2;
    CHECK_EQ(tp_push_message(&d.t, &m), RNIC_OK);
    nd_run(&d, 10);
    CHECK_EQ(tp_get_stats(&d.t)->segments_skipped, 1);
    CHECK_EQ(d.nout, 3); /* nothing sent: no credit */
    tp_flow_state(&d.t, 0, &v);
    CHECK_EQ(v.highest_sent, 4); /* segment 3 generated into the freed ring */
    CHECK_EQ(v.outstanding, 1);
    CHECK(v.timer_running); /* armed by the generation: a timeout would bring credit */
    CHECK(tp_next_event(&d.t) != RNIC_NEVER);
    nd_incoming(&d, TP_PKT_GRANT, 3, 0, 0, 1000); /* pulls for 3 and 4 */
    nd_run(&d, 10);
    nd_incoming(&d, TP_PKT_GRANT, 3, 0, 0, 1000);
    nd_run(&d, 10);
    CHECK_EQ(d.nout, 5);
    CHECK_EQ(d.out[3].index, 3);
    CHECK_EQ(d.out[4].index, 4);
    for (i = 0; i < d.nout; i++)
        rtx_out += (d.out[i].flags & TP_WORK_RTX) != 0;
    CHECK_EQ(rtx_out, 0);
    nd_incoming(&d, TP_PKT_ACK, 5, 0, 0, 0);
    nd_run(&d, 10);
    while (tp_pop_completion(&d.t, &c) == RNIC_OK)
        completions++;
    CHECK_EQ(completions, 2);
    tp_flow_state(&d.t, 0, &v);
    CHECK_EQ(v.credit, 0); /* both pulls went to new data, none to the skipped entry */
    CHECK_EQ(tp_get_stats(&d.t)->segments_rtx, 1);
    CHECK_EQ(tp_get_stats(&d.t)->segments_out, 5);
    free(d.mem);
}

/* The same with the original acknowledged by a SACK block (0 and 2 still in flight): the
 * retransmission is skipped as well, and a pull that arrives later goes to new data. */
static void ndp_sacked_rtx_in_ring_skipped(void)
{
    ndp_direct d;
    tp_flow_view v;
    rnic_work m;
    nd_rtx_waits_in_ring(&d);
    nd_incoming(&d, TP_PKT_ACK, 0, 1, 1, 0); /* SACK [1, 2) */
    nd_run(&d, 10);
    CHECK_EQ(tp_get_stats(&d.t)->segments_skipped, 1);
    tp_flow_state(&d.t, 0, &v);
    CHECK_EQ(v.outstanding, 0);
    CHECK_EQ(v.credit, 0);
    CHECK(v.timer_running);
    memset(&m, 0, sizeof m);
    m.len = 1000; /* segment 3 */
    CHECK_EQ(tp_push_message(&d.t, &m), RNIC_OK);
    nd_incoming(&d, TP_PKT_GRANT, 0, 0, 0, 1000);
    nd_run(&d, 10);
    CHECK_EQ(d.nout, 4);
    CHECK_EQ(d.out[3].index, 3);
    CHECK_EQ(d.out[3].flags & TP_WORK_RTX, 0);
    CHECK_EQ(tp_get_stats(&d.t)->segments_out, 4);
    free(d.mem);
}

static void ndp_config(void)
{
    tp_ndp_config c;
    tp_protocol v = *tp_protocol_ndp();
    tp_config tc;
    tp_ndp_config_default(&c);
    CHECK_EQ(tp_ndp_config_check(&c), RNIC_OK);
    CHECK_EQ(tp_ndp_config_check(NULL), RNIC_EINVAL);
    c.init_window = 0;
    CHECK_EQ(tp_ndp_config_check(&c), RNIC_EINVAL);
    tp_config_default(&tc);
    tc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    tc.protocol = &v;
    v.config = &c;
    CHECK_EQ(tp_config_check(&tc, NULL), RNIC_EINVAL);
    tp_ndp_config_default(&c);
    c.window = TP_MAX_WINDOW + 1u;
    CHECK_EQ(tp_config_check(&tc, NULL), RNIC_EINVAL);
    c.window = 0;
    CHECK_EQ(tp_config_check(&tc, NULL), RNIC_OK);
    CHECK_EQ(tp_protocol_ndp()->credit, TP_CREDIT_TOKEN);
    CHECK(tp_protocol_ndp()->ctx_size <= TP_CTX_MAX_TOKEN);
}

int main(void)
{
    RUN(irn_config);
    RUN(irn_retransmits_exactly_dropped);
    RUN(irn_tail_loss_timeout);
    RUN(irn_random_loss);
    RUN(irn_rto_low_high);
    RUN(irn_fixed_rate);
    RUN(ndp_config);
    RUN(ndp_init_window_then_pulls);
    RUN(ndp_trim_resent_once);
    RUN(ndp_random_trim);
    RUN(ndp_timeout_tail);
    RUN(ndp_acked_rtx_in_ring_skipped);
    RUN(ndp_sacked_rtx_in_ring_skipped);
    printf("context bytes: irn %u, ndp %u\n", tp_protocol_irn()->ctx_size, tp_protocol_ndp()->ctx_size);
    return test_summary();
}
