/* transport.h's receiver options against small independent reference models written from the
 * specs: the RoCEv2 go-back-N responder (IB spec 9.7.5.1.2: only the expected PSN is accepted,
 * one NAK per sequence error, duplicates acknowledged), the DCQCN notification point (at most
 * one CNP per flow per interval; immediate as the HPCC simulator / NIC firmware, deferred as
 * htsim's DCQCNSink), NDP's pull queue (one pull per arrival, FIFO over all flows, paced at the
 * receiver's link rate) and trimmed headers (a trim notice naming the segment, never
 * delivered; its id in offset with len 0, as proto_ndp.c reads it), and
 * fast-forward (next_event / advance) against ticking with every option on. */
#define TP_IMPLEMENTATION
#include "transport.h"
#include "test.h"

/* The flow's cumulative ack, through tp_rx_flow_state. */
static rnic_err rx_expected(const tp_rx *r, uint32_t flow, uint32_t *out)
{
    tp_rx_flow_view v;
    rnic_err e = tp_rx_flow_state(r, flow, &v);
    *out = v.expected;
    return e;
}

/* ---------------------------------------------------------------- harness */

typedef struct rxh {
    tp_rx *r;
    void *raw;
} rxh;

static tp_rx *rx_new(rxh *h, const tp_rx_config *cfg)
{
    size_t need = tp_rx_mem_size(cfg);
    void *mem;
    h->r = NULL;
    h->raw = NULL;
    if (need == 0)
        return NULL;
    h->raw = malloc(need + RNIC_MEM_ALIGN);
    h->r = (tp_rx *)malloc(sizeof(tp_rx));
    mem = (void *)(((uintptr_t)h->raw + (RNIC_MEM_ALIGN - 1u)) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u));
    if (tp_rx_init(h->r, cfg, mem, need) != RNIC_OK) {
        free(h->r);
        free(h->raw);
        h->r = NULL;
        h->raw = NULL;
    }
    return h->r;
}

static void rx_del(rxh *h)
{
    free(h->r);
    free(h->raw);
}

/* A record out of the receiver, as the tests compare them. */
typedef struct rec {
    uint64_t cycle;
    uint32_t op, flow, index, offset, len, aux, flags;
} rec;

typedef struct recs {
    rec *v;
    size_t n, cap;
} recs;

static void recs_add(recs *l, const rnic_work *w)
{
    rec x;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = (rec *)realloc(l->v, l->cap * sizeof(rec));
    }
    x.cycle = w->cycle;
    x.op = TP_WORK_PKT_TYPE(w->flags); /* the control packet's type */
    x.flow = w->flow;
    x.index = w->index;
    x.offset = w->offset;
    x.len = w->len;
    x.aux = w->aux;
    x.flags = w->flags;
    l->v[l->n++] = x;
}

static void drain(tp_rx *r, recs *acks, recs *dlv)
{
    rnic_work o;
    while (tp_rx_pop_ack(r, &o) == RNIC_OK)
        recs_add(acks, &o);
    while (tp_rx_pop_delivered(r, &o) == RNIC_OK)
        recs_add(dlv, &o);
}

static rnic_work seg_make(uint32_t flow, uint32_t id, uint32_t len, uint32_t flags)
{
    rnic_work s;
    memset(&s, 0, sizeof s);
    s.flow = flow;
    s.index = id;
    s.len = len;
    s.flags = flags;
    s.op = TP_PKT_DATA;
    s.tag = ((uint64_t)flow << 32) | id;
    return s;
}

/* Push one segment and run one cycle; outputs go to the lists. */
static void step(tp_rx *r, const rnic_work *s, recs *acks, recs *dlv)
{
    if (s)
        CHECK_EQ(tp_rx_push_segment(r, s), RNIC_OK);
    tp_rx_tick(r);
    drain(r, acks, dlv);
}

static uint64_t xs_state = 88172645463325252ull;
static uint64_t xs(void)
{
    xs_state ^= xs_state << 13;
    xs_state ^= xs_state >> 7;
    xs_state ^= xs_state << 17;
    return xs_state;
}
static uint32_t rnd(uint32_t n) { return (uint32_t)(xs() % n); }

/* ---------------------------------------------------------------- go-back-N */

/* Reference responder (IB 9.7.5.1.2, per-packet ACKs): expected PSN e; psn == e: accept, ACK
 * e + 1; psn > e: discard, NAK(e) unless one was sent for this gap; psn < e: ACK(e). */
typedef struct gbn_ref {
    uint32_t e;
    int nak_sent;
} gbn_ref;

static void test_gbn_scenario(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    static const uint32_t ids[] = {0, 1, 3, 4, 5, 2, 3, 1, 4, 5, 6, 8, 9, 7, 8};
    /* what IB says each arrival answers: op (0 none), PSN */
    static const uint32_t want_op[] = {TP_PKT_ACK, TP_PKT_ACK, TP_PKT_NACK, 0,          0,
                                       TP_PKT_ACK, TP_PKT_ACK, TP_PKT_ACK,  TP_PKT_ACK, TP_PKT_ACK,
                                       TP_PKT_ACK, TP_PKT_NACK, 0,          TP_PKT_ACK, TP_PKT_ACK};
    static const uint32_t want_psn[] = {1, 2, 2, 0, 0, 3, 4, 4, 5, 6, 7, 7, 0, 8, 9};
    size_t i, k = 0;
    uint32_t exp = 0;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.go_back_n = true;
    c.delack_count = 1;
    r = rx_new(&h, &c);
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
    for (i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        rnic_work s = seg_make(0, ids[i], 1000, 0);
        size_t before = a.n;
        step(r, &s, &a, &d);
        if (want_op[i] == 0) {
            CHECK_EQ(a.n, before);
        } else {
            CHECK_EQ(a.n, before + 1);
            if (a.n == before + 1) {
                CHECK_EQ(a.v[before].op, want_op[i]);
                CHECK_EQ(a.v[before].index, want_psn[i]);
                CHECK_EQ(a.v[before].len, 0); /* no SACK block in RoCE */
            }
        }
    }
    /* deliveries: exactly the in-order prefix 0..8, each once */
    CHECK_EQ(d.n, 9);
    for (k = 0; k < d.n; k++)
        CHECK_EQ(d.v[k].index, k);
    CHECK_EQ(rx_expected(r, 0, &exp), RNIC_OK);
    CHECK_EQ(exp, 9);
    CHECK_EQ(tp_rx_get_stats(r)->naks, 2);
    CHECK_EQ(tp_rx_get_stats(r)->discarded_out_of_sequence, 5); /* 3 4 5, 8 9 */
    CHECK_EQ(tp_rx_get_stats(r)->duplicates, 1);                /* the second 1 */
    CHECK_EQ(tp_rx_get_stats(r)->segments, 9);
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* A random arrival stream (in order, jumps ahead, duplicates, resends from the expected
 * segment) over three flows against the reference responder. */
static void test_gbn_random(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    gbn_ref ref[3];
    uint32_t nxt[3], f, i, naks = 0, disc = 0, dups = 0, dl = 0;
    uint32_t base[3] = {0, 1000, 0xfffffff0u}; /* the last wraps */
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.go_back_n = true;
    c.delack_count = 1;
    c.window = 64;
    r = rx_new(&h, &c);
    CHECK(r != NULL);
    if (!r)
        return;
    for (f = 0; f < 3; f++) {
        CHECK_EQ(tp_rx_flow_open(r, f, &(tp_rx_flow_config){.init_seq = base[f]}), RNIC_OK);
        ref[f].e = base[f];
        ref[f].nak_sent = 0;
        nxt[f] = base[f];
    }
    xs_state = 12345;
    for (i = 0; i < 20000 && !TEST_FAILS(); i++) {
        uint32_t id, x = rnd(100);
        rnic_work s;
        size_t before = a.n, dbefore = d.n;
        gbn_ref *g;
        f = rnd(3);
        g = &ref[f];
        if (x < 60)
            id = nxt[f]++;
        else if (x < 75) { /* a loss: skip some */
            nxt[f] += 1 + rnd(4);
            id = nxt[f]++;
        } else if (x < 85) /* a duplicate of something old */
            id = g->e - 1u - rnd(5);
        else if (x < 95) { /* the sender went back to the expected segment */
            nxt[f] = g->e;
            id = nxt[f]++;
        } else /* far ahead (beyond any window) */
            id = g->e + 100u + rnd(1000);
        s = seg_make(f, id, 100 + id % 7, 0);
        step(r, &s, &a, &d);
        if (id == g->e) {
            g->e++;
            g->nak_sent = 0;
            dl++;
            CHECK_EQ(d.n, dbefore + 1);
            CHECK_EQ(a.n, before + 1);
            if (d.n == dbefore + 1)
                CHECK_EQ(d.v[dbefore].index, id);
            if (a.n == before + 1) {
                CHECK_EQ(a.v[before].op, TP_PKT_ACK);
                CHECK_EQ(a.v[before].index, g->e);
            }
        } else if ((int32_t)(id - g->e) > 0) {
            disc++;
            CHECK_EQ(d.n, dbefore);
            if (!g->nak_sent) {
                g->nak_sent = 1;
                naks++;
                CHECK_EQ(a.n, before + 1);
                if (a.n == before + 1) {
                    CHECK_EQ(a.v[before].op, TP_PKT_NACK);
                    CHECK_EQ(a.v[before].index, g->e);
                    CHECK_EQ(a.v[before].flow, f);
                }
            } else
                CHECK_EQ(a.n, before);
        } else {
            dups++;
            CHECK_EQ(d.n, dbefore);
            CHECK_EQ(a.n, before + 1);
            if (a.n == before + 1) {
                CHECK_EQ(a.v[before].op, TP_PKT_ACK);
                CHECK_EQ(a.v[before].index, g->e);
            }
        }
    }
    CHECK_EQ(tp_rx_get_stats(r)->naks, naks);
    CHECK_EQ(tp_rx_get_stats(r)->discarded_out_of_sequence, disc);
    CHECK_EQ(tp_rx_get_stats(r)->duplicates, dups);
    CHECK_EQ(tp_rx_get_stats(r)->segments, dl);
    CHECK(naks > 100 && disc > naks && dups > 100); /* the stream exercised every case */
    /* per flow the deliveries are exactly base, base + 1, ... */
    for (f = 0; f < 3; f++) {
        uint32_t want = base[f];
        size_t k;
        for (k = 0; k < d.n; k++)
            if (d.v[k].flow == f) {
                CHECK_EQ(d.v[k].index, want);
                want++;
            }
        CHECK_EQ(want, ref[f].e);
    }
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* With delayed ACKs (delack_count 2) go-back-N keeps the delayed-ACK rules for in-order data,
 * and the segment that closes a gap is acknowledged at once. */
static void test_gbn_delack(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    rnic_work s;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.go_back_n = true;
    c.delack_count = 2;
    c.delack_ns = 1000u; /* 100 cycles */
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
    s = seg_make(0, 0, 1000, 0);
    step(r, &s, &a, &d); /* first: delayed */
    CHECK_EQ(a.n, 0);
    s = seg_make(0, 1, 1000, 0);
    step(r, &s, &a, &d); /* second: ACK 2 */
    CHECK_EQ(a.n, 1);
    s = seg_make(0, 3, 1000, 0);
    step(r, &s, &a, &d); /* NAK 2 */
    CHECK_EQ(a.n, 2);
    if (a.n == 2) {
        CHECK_EQ(a.v[1].op, TP_PKT_NACK);
        CHECK_EQ(a.v[1].index, 2);
    }
    s = seg_make(0, 2, 1000, 0);
    step(r, &s, &a, &d); /* closes the gap: ACK 3 at once */
    CHECK_EQ(a.n, 3);
    if (a.n == 3) {
        CHECK_EQ(a.v[2].op, TP_PKT_ACK);
        CHECK_EQ(a.v[2].index, 3);
        CHECK_EQ(a.v[2].cycle, 3);
    }
    s = seg_make(0, 3, 1000, 0);
    step(r, &s, &a, &d); /* in order again: delayed, then the timer after 100 cycles */
    CHECK_EQ(a.n, 3);
    while (tp_rx_now(r) < 200)
        step(r, NULL, &a, &d);
    CHECK_EQ(a.n, 4);
    if (a.n == 4) {
        CHECK_EQ(a.v[3].index, 4);
        CHECK_EQ(a.v[3].cycle, 4 + 100);
    }
    CHECK_EQ(d.n, 4);
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* ---------------------------------------------------------------- CNPs */

#define CNP_FLOWS 4u

/* Reference notification point: per flow the cycle of the last CNP (none at first). Arrival in
 * cycle c with a mark: a CNP at c when none was sent or c - last >= I; else (deferred) pending.
 * Deferred: after the arrivals of cycle c, a pending flow with c >= last + I sends at c. */
typedef struct np_ref {
    int sent, pending;
    uint64_t last;
} np_ref;

static void cnp_run(uint32_t mode, uint64_t seed)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    np_ref ref[CNP_FLOWS];
    uint64_t *want = (uint64_t *)malloc(sizeof(uint64_t) * 400000), cyc, I, first_mark[CNP_FLOWS];
    uint32_t *want_flow = (uint32_t *)malloc(sizeof(uint32_t) * 400000);
    size_t nw = 0, k, got_cnp = 0, i;
    uint32_t f, marks = 0, seqs[CNP_FLOWS] = {0};
    const uint64_t N = 300000;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.cnp_interval_ns = 4000u; /* 400 cycles at 100 MHz */
    c.cnp_mode = mode;
    c.delack_count = 1;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        free(want);
        free(want_flow);
        return;
    }
    I = 400;
    memset(ref, 0, sizeof ref);
    for (f = 0; f < CNP_FLOWS; f++) {
        CHECK_EQ(tp_rx_flow_open(r, f, NULL), RNIC_OK);
        first_mark[f] = UINT64_MAX;
    }
    xs_state = seed;
    for (cyc = 0; cyc < N && !TEST_FAILS(); cyc++) {
        /* phases of 5,000 cycles: quiet (no marks), light, heavy; flow 3 is never marked */
        uint32_t phase = (uint32_t)((cyc / 5000) % 3), pm = phase == 0 ? 0 : phase == 1 ? 3 : 60;
        bool arrive = rnd(100) < 70, mark = false;
        rnic_work s;
        if (arrive) {
            f = rnd(CNP_FLOWS);
            mark = f != 3 && rnd(100) < pm;
            s = seg_make(f, seqs[f]++, 1000, mark ? TP_WORK_ECN : 0u);
            CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
            if (mark) {
                np_ref *g = &ref[f];
                marks++;
                if (first_mark[f] == UINT64_MAX)
                    first_mark[f] = cyc;
                if (!g->sent || cyc - g->last >= I) {
                    g->sent = 1;
                    g->last = cyc;
                    g->pending = 0;
                    want[nw] = cyc;
                    want_flow[nw++] = f;
                } else if (mode == TP_RX_CNP_DEFERRED)
                    g->pending = 1;
            }
        }
        if (mode == TP_RX_CNP_DEFERRED)
            for (f = 0; f < CNP_FLOWS; f++)
                if (ref[f].pending && cyc >= ref[f].last + I) {
                    ref[f].pending = 0;
                    ref[f].last = cyc;
                    want[nw] = cyc;
                    want_flow[nw++] = f;
                }
        tp_rx_tick(r);
        drain(r, &a, &d);
    }
    /* compare, per flow, the cycles of the CNPs */
    for (f = 0; f < CNP_FLOWS; f++) {
        size_t gi = 0, wi = 0, gotf = 0, wantf = 0;
        for (k = 0; k < a.n; k++)
            if (a.v[k].op == TP_PKT_CNP && a.v[k].flow == f)
                gotf++;
        for (k = 0; k < nw; k++)
            if (want_flow[k] == f)
                wantf++;
        CHECK_EQ(gotf, wantf);
        while (gi < a.n && wi < nw) {
            if (a.v[gi].op != TP_PKT_CNP || a.v[gi].flow != f) {
                gi++;
                continue;
            }
            if (want_flow[wi] != f) {
                wi++;
                continue;
            }
            CHECK_EQ(a.v[gi].cycle, want[wi]);
            if (a.v[gi].cycle != want[wi])
                break;
            gi++;
            wi++;
        }
        if (f == 3)
            CHECK_EQ(gotf, 0); /* no marks, no CNPs */
        else {
            /* the first mark sends at once */
            for (k = 0; k < a.n; k++)
                if (a.v[k].op == TP_PKT_CNP && a.v[k].flow == f)
                    break;
            CHECK(k < a.n);
            if (k < a.n)
                CHECK_EQ(a.v[k].cycle, first_mark[f]);
        }
    }
    for (k = 0; k < a.n; k++)
        if (a.v[k].op == TP_PKT_CNP) {
            got_cnp++;
            CHECK_EQ(a.v[k].len, 0);
        } else
            CHECK_EQ(a.v[k].flags & TP_WORK_ECN, 0); /* with CNPs, ACKs carry no ECN echo */
    CHECK_EQ(got_cnp, nw);
    CHECK_EQ(tp_rx_get_stats(r)->cnps, nw);
    CHECK_EQ(tp_rx_get_stats(r)->marked, marks);
    /* no quiet phase ever sends a CNP later than one interval after its start (deferred), and
     * the immediate mode never sends in a quiet phase */
    for (i = 0; i < a.n; i++)
        if (a.v[i].op == TP_PKT_CNP && (a.v[i].cycle / 5000) % 3 == 0) {
            CHECK(mode == TP_RX_CNP_DEFERRED && a.v[i].cycle % 15000 < I);
        }
    CHECK(nw > 300); /* many CNPs, and (below) rate limited: far fewer than marks */
    CHECK(nw < marks);
    rx_del(&h);
    free(a.v);
    free(d.v);
    free(want);
    free(want_flow);
}

static void test_cnp_immediate(void)
{
    cnp_run(TP_RX_CNP_IMMEDIATE, 7);
    cnp_run(TP_RX_CNP_IMMEDIATE, 99);
}

static void test_cnp_deferred(void)
{
    cnp_run(TP_RX_CNP_DEFERRED, 7);
    cnp_run(TP_RX_CNP_DEFERRED, 99);
}

/* The htsim example by hand: marks at 0, 100, 250 and 700 with a 400-cycle interval. Immediate:
 * CNPs at 0 and 700. Deferred: 0, 400 (for 100 and 250), then 800 (700 is inside [400, 800)). */
static void test_cnp_by_hand(void)
{
    uint32_t mode;
    static const uint64_t marks[] = {0, 100, 250, 700};
    static const uint64_t imm[] = {0, 700}, def[] = {0, 400, 800};
    for (mode = 0; mode < 2; mode++) {
        tp_rx_config c;
        rxh h;
        tp_rx *r;
        recs a = {0}, d = {0};
        size_t m = 0, k, n = 0;
        const uint64_t *want = mode ? def : imm;
        size_t nwant = mode ? 3 : 2;
        uint32_t seq = 0;
        tp_rx_config_default(&c);
        c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        c.cnp_interval_ns = 4000u;
        c.cnp_mode = mode;
        r = rx_new(&h, &c);
        if (!r) {
            CHECK(r != NULL);
            return;
        }
        CHECK_EQ(tp_rx_flow_open(r, 5, NULL), RNIC_OK);
        while (tp_rx_now(r) < 2000) {
            rnic_work s;
            if (m < 4 && tp_rx_now(r) == marks[m]) {
                s = seg_make(5, seq++, 1000, TP_WORK_ECN);
                m++;
                step(r, &s, &a, &d);
            } else
                step(r, NULL, &a, &d);
        }
        for (k = 0; k < a.n; k++)
            if (a.v[k].op == TP_PKT_CNP) {
                CHECK(n < nwant);
                if (n < nwant)
                    CHECK_EQ(a.v[k].cycle, want[n]);
                CHECK_EQ(a.v[k].flow, 5);
                /* the expected PSN when sent: segments 0 .. 3 arrive at 0, 100, 250, 700 */
                CHECK_EQ(a.v[k].index, a.v[k].cycle == 0 ? 1 : a.v[k].cycle < 700 ? 3 : 4);
                n++;
            }
        CHECK_EQ(n, nwant);
        rx_del(&h);
        free(a.v);
        free(d.v);
    }
}

/* ---------------------------------------------------------------- NDP: pulls and trimmed headers */

/* (len + overhead) bits x clock: one pull's exact gap in 1/bps cycles */
static uint64_t pull_num(uint64_t len, uint64_t ovh, uint64_t clock)
{
    return (len + ovh) * 8u * clock; /* < 2^64 for the values used here */
}

typedef struct pull_in {
    uint64_t cycle;
    uint32_t flow, len;
} pull_in;

/* Bursts of arrivals over 5 flows (a third of them trimmed headers, lengths varying) against
 * a reference pacer kept in exact time (units of 1/bps cycle): pull k leaves at max(its arrival,
 * ceil(V)); V, the exact due time of the next pull, advances by the previous pull's exact gap when
 * the previous pull left on its due cycle and restarts from the departure otherwise; in arrival
 * order. */
static void test_pull_pacing(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    pull_in *in = (pull_in *)malloc(sizeof(pull_in) * 20000);
    size_t nin = 0, k, np = 0, trimmed = 0;
    uint32_t seqs[5] = {0}, f;
    uint64_t cyc, v = 0; /* v: the next pull's exact due time x bps */
    int first = 1;
    tp_rx_config_default(&c);
    c.pull_bps = 40000000000ull; /* 40 Gb/s */
    c.pull_overhead_bytes = 64;
    c.clock_hz = 250000000ull; /* 250 MHz: 1064 B take 53.2 cycles */
    c.delack_count = 1;
    c.ack_depth = 4096;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        free(in);
        return;
    }
    for (f = 0; f < 5; f++)
        CHECK_EQ(tp_rx_flow_open(r, f, NULL), RNIC_OK);
    xs_state = 4242;
    for (cyc = 0; cyc < 400000 && !TEST_FAILS(); cyc++) {
        bool burst = (cyc / 4000) % 2 == 0; /* ~120 arrivals per burst, the pacer drains ~148 per 8,000 cycles */
        if (cyc < 300000 && rnd(1000) < (burst ? 30u : 2u)) {
            rnic_work s;
            uint32_t len = rnd(4) == 0 ? 1 + rnd(1000) : 1000, trim = rnd(3) == 0;
            f = rnd(5);
            s = seg_make(f, seqs[f]++, len, trim ? TP_WORK_TRIMMED : 0u);
            trimmed += trim;
            CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
            in[nin].cycle = cyc;
            in[nin].flow = f;
            in[nin++].len = len;
        }
        tp_rx_tick(r);
        drain(r, &a, &d);
    }
    for (k = 0; k < a.n; k++) {
        uint64_t want;
        if (a.v[k].op != TP_PKT_GRANT)
            continue;
        if (np >= nin) {
            CHECK(np < nin);
            break;
        }
        want = first ? in[np].cycle : (v + c.pull_bps - 1u) / c.pull_bps;
        if (want < in[np].cycle)
            want = in[np].cycle;
        CHECK_EQ(a.v[k].cycle, want);
        CHECK_EQ(a.v[k].flow, in[np].flow); /* FIFO over all flows */
        CHECK_EQ(a.v[k].aux, in[np].len);   /* the pull grants the segment's bytes */
        CHECK_EQ(a.v[k].len, 0);
        if (TEST_FAILS())
            break;
        if (first || a.v[k].cycle != (v + c.pull_bps - 1u) / c.pull_bps)
            v = a.v[k].cycle * c.pull_bps; /* late (queue was empty): restart from the departure */
        v += pull_num(in[np].len, 64, c.clock_hz);
        first = 0;
        np++;
    }
    CHECK_EQ(np, nin); /* one pull per arrival, trimmed headers included */
    CHECK_EQ(tp_rx_get_stats(r)->pulls, nin);
    CHECK_EQ(tp_rx_get_stats(r)->trimmed, trimmed);
    CHECK(trimmed > 100);
    rx_del(&h);
    free(a.v);
    free(d.v);
    free(in);
}

/* Back-to-back pulls keep the exact rate: six 1,000 B segments queued at once, 1,064 B a pull at
 * 40 Gb/s and 250 MHz = 53.2 cycles, leave at ceil(k x 53.2) = 0, 54, 107, 160, 213, 266 (not every
 * 54 cycles); after an idle stretch the pacer restarts from the late pull's own cycle. */
static void test_pull_exact_rate(void)
{
    static const uint64_t want[8] = {0, 54, 107, 160, 213, 266, 1000, 1054};
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    uint32_t k, n = 0;
    uint64_t cyc, first = 0;
    tp_rx_config_default(&c);
    c.pull_bps = 40000000000ull;
    c.pull_overhead_bytes = 64;
    c.clock_hz = 250000000ull;
    c.delack_count = 1;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
    for (cyc = 0; cyc < 1200; cyc++) {
        if (cyc < 6 || cyc == 1000 || cyc == 1001) {
            rnic_work s = seg_make(0, (uint32_t)(cyc < 6 ? cyc : cyc - 994), 1000, 0u);
            CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
        }
        tp_rx_tick(r);
        drain(r, &a, &d);
    }
    for (k = 0; k < a.n; k++) /* relative to the first pull: a segment is taken the cycle it is pushed or later */
        if (a.v[k].op == TP_PKT_GRANT) {
            if (n == 0)
                first = a.v[k].cycle;
            if (n < 8)
                CHECK_EQ(a.v[k].cycle - first, want[n]);
            n++;
        }
    CHECK_EQ(n, 8);
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* A pull carries the flow's cumulative ack when it leaves (never behind an ACK sent before it). */
static void test_pull_index(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    uint32_t i, last_ack = 0;
    size_t k;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.pull_bps = 1000000000ull; /* 1 Gb/s: pulls queue up behind the data */
    c.delack_count = 1;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 1, &(tp_rx_flow_config){.init_seq = 10}), RNIC_OK);
    for (i = 0; i < 20; i++) {
        rnic_work s = seg_make(1, 10 + i, 1000, 0);
        step(r, &s, &a, &d);
    }
    while (tp_rx_now(r) < 20 * 900)
        step(r, NULL, &a, &d);
    CHECK_EQ(tp_rx_get_stats(r)->pulls, 20);
    for (k = 0; k < a.n; k++) {
        if (a.v[k].op == TP_PKT_ACK)
            last_ack = a.v[k].index;
        else if (a.v[k].op == TP_PKT_GRANT) {
            CHECK(a.v[k].index >= last_ack);
            CHECK_EQ(a.v[k].index, a.v[k].cycle < 20 ? a.v[k].cycle + 11u : 30u);
        }
    }
    rx_del(&h);
    free(a.v);
    free(d.v);
}

static void test_trimmed_scenario(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    rnic_work s;
    size_t k;
    uint32_t seen[6] = {0};
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.pull_bps = 100000000000ull;
    c.delack_count = 1;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
    s = seg_make(0, 0, 1000, 0);
    step(r, &s, &a, &d);
    s = seg_make(0, 2, 1000, TP_WORK_TRIMMED);
    step(r, &s, &a, &d);
    /* the trim notice names segment 2: index = expected 1, offset 2, no SACK block, TRIMMED */
    for (k = 0; k < a.n; k++)
        if (a.v[k].op == TP_PKT_NACK)
            break;
    CHECK(k < a.n);
    if (k < a.n) {
        CHECK_EQ(a.v[k].index, 1);
        CHECK_EQ(a.v[k].offset, 2);
        CHECK_EQ(a.v[k].len, 0);
        CHECK_EQ(a.v[k].flags, TP_WORK_PKT(TP_PKT_NACK) | TP_WORK_TRIMMED);
        CHECK_EQ(a.v[k].cycle, 1);
    }
    s = seg_make(0, 1, 1000, TP_WORK_TRIMMED); /* the expected one trimmed too */
    step(r, &s, &a, &d);
    s = seg_make(0, 3, 1000, 0);
    step(r, &s, &a, &d);
    s = seg_make(0, 2, 1000, 0); /* the resent full segment */
    step(r, &s, &a, &d);
    s = seg_make(0, 2, 1000, 0); /* a second copy: a duplicate */
    step(r, &s, &a, &d);
    s = seg_make(0, 3, 1000, TP_WORK_TRIMMED); /* already here: an ACK, not a NACK */
    step(r, &s, &a, &d);
    s = seg_make(0, 1, 1000, 0);
    step(r, &s, &a, &d);
    for (k = 0; k < d.n; k++) {
        CHECK(d.v[k].index < 6);
        if (d.v[k].index < 6)
            seen[d.v[k].index]++;
        CHECK_EQ(d.v[k].flags & TP_WORK_TRIMMED, 0);
    }
    CHECK_EQ(seen[0], 1);
    CHECK_EQ(seen[1], 1);
    CHECK_EQ(seen[2], 1);
    CHECK_EQ(seen[3], 1);
    CHECK_EQ(d.n, 4);
    CHECK_EQ(tp_rx_get_stats(r)->trimmed, 3);
    CHECK_EQ(tp_rx_get_stats(r)->naks, 2);
    {
        uint32_t nacks = 0, nb = 0, exp = 0;
        for (k = 0; k < a.n; k++)
            if (a.v[k].op == TP_PKT_NACK) {
                nacks++;
                nb += a.v[k].offset == 1 && a.v[k].len == 0 && a.v[k].index == 1;
            }
        CHECK_EQ(nacks, 2);
        CHECK_EQ(nb, 1);
        CHECK_EQ(rx_expected(r, 0, &exp), RNIC_OK);
        CHECK_EQ(exp, 4);
    }
    /* a trimmed header of an unknown flow is refused like any other segment, and pulls nothing */
    {
        uint64_t e0 = rnic_err_total(&tp_rx_get_stats(r)->errors), p0;
        while (tp_rx_now(r) < 500)
            step(r, NULL, &a, &d);
        p0 = tp_rx_get_stats(r)->pulls;
        CHECK_EQ(p0, 8);
        s = seg_make(9, 0, 1000, TP_WORK_TRIMMED);
        step(r, &s, &a, &d);
        while (tp_rx_now(r) < 1000)
            step(r, NULL, &a, &d);
        CHECK_EQ(rnic_err_total(&tp_rx_get_stats(r)->errors), e0 + 1);
        CHECK_EQ(tp_rx_get_stats(r)->errors.by_cause[RNIC_ENOENT], 1);
        CHECK_EQ(tp_rx_get_stats(r)->pulls, p0);
        CHECK_EQ(tp_rx_get_stats(r)->trimmed, 3);
    }
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* An NDP-like exchange over a lossless trimming channel: segments of 4 flows arrive in random
 * order, each copy trimmed with probability 1/3; every NACK puts its segment back in the channel.
 * Every segment is delivered exactly once, never from a header. */
static void test_trimmed_random(void)
{
    enum { NF = 4, NS = 300 };
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    uint32_t chan[4096][2], nch = 0, f, i, got[NF][NS], nacks_seen = 0;
    size_t k, ak = 0;
    memset(got, 0, sizeof got);
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.pull_bps = 100000000000ull;
    c.window = 256;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    for (f = 0; f < NF; f++)
        CHECK_EQ(tp_rx_flow_open(r, f, NULL), RNIC_OK);
    xs_state = 777;
    for (f = 0; f < NF; f++) /* a window's worth of each flow in flight */
        for (i = 0; i < 200; i++) {
            chan[nch][0] = f;
            chan[nch++][1] = i;
        }
    {
        uint32_t sent[NF] = {200, 200, 200, 200};
        uint64_t guard = 0, narr = 0;
        while ((nch || tp_rx_get_stats(r)->pulls < narr) && guard++ < 1000000 && !TEST_FAILS()) {
            if (nch) {
                uint32_t j = rnd(nch), fl = chan[j][0], id = chan[j][1];
                rnic_work s = seg_make(fl, id, 1000, rnd(3) == 0 ? TP_WORK_TRIMMED : 0u);
                chan[j][0] = chan[nch - 1][0];
                chan[j][1] = chan[nch - 1][1];
                nch--;
                narr++;
                step(r, &s, &a, &d);
            } else
                step(r, NULL, &a, &d);
            for (; ak < a.n; ak++) {
                uint32_t exp = 0;
                if (a.v[ak].op == TP_PKT_NACK) {
                    nacks_seen++;
                    CHECK_EQ(a.v[ak].len, 0);
                    CHECK_EQ(a.v[ak].flags & TP_WORK_TRIMMED, TP_WORK_TRIMMED);
                    chan[nch][0] = a.v[ak].flow;
                    chan[nch++][1] = a.v[ak].offset;
                } else if (a.v[ak].op == TP_PKT_GRANT) { /* a pull: the sender sends its next new segment */
                    uint32_t g = a.v[ak].flow;
                    CHECK_EQ(rx_expected(r, g, &exp), RNIC_OK);
                    if (sent[g] < NS && sent[g] < exp + 250u) {
                        chan[nch][0] = g;
                        chan[nch++][1] = sent[g]++;
                    }
                }
            }
        }
        CHECK(guard < 1000000);
        for (f = 0; f < NF; f++)
            CHECK_EQ(sent[f], NS);
    }
    for (k = 0; k < d.n; k++) {
        CHECK_EQ(d.v[k].flags & TP_WORK_TRIMMED, 0);
        if (d.v[k].flow < NF && d.v[k].index < NS)
            got[d.v[k].flow][d.v[k].index]++;
    }
    for (f = 0; f < NF; f++)
        for (i = 0; i < NS; i++)
            CHECK_EQ(got[f][i], 1);
    CHECK_EQ(d.n, NF * NS);
    CHECK_EQ(tp_rx_get_stats(r)->naks, nacks_seen);
    CHECK(tp_rx_get_stats(r)->trimmed >= nacks_seen);
    CHECK(nacks_seen > 200);
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* End to end: the engine's NDP protocol (tp_protocol_ndp) sending one message through a channel
 * that trims 30 % of the data segments (the header goes on), this receiver pulling at the link
 * rate: every segment is delivered exactly once and the message completes, without a timeout. */
static void test_ndp_closed_loop(void)
{
    enum { NSEG = 400, DELAY = 100, QN = 8192 };
    tp_config tc;
    tp_rx_config rc;
    tp_flow_config fp;
    rxh h;
    tp_rx *r;
    tp *t = (tp *)malloc(sizeof(tp));
    void *traw = NULL;
    rnic_work msg, w;
    /* two delay lines: data (sender -> receiver), control (receiver -> sender) */
    static rnic_work dq[QN], cq[QN];
    static uint64_t dt[QN], ct[QN];
    static uint32_t got[NSEG];
    size_t dh = 0, dn = 0, chd = 0, cn = 0, need;
    uint64_t now = 0, trims = 0;
    int done = 0;
    uint32_t k;
    memset(got, 0, sizeof got);
    tp_config_default(&tc);
    tc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    tc.protocol = tp_protocol_ndp();
    tc.max_flows = 4;
    need = tp_mem_size(&tc);
    traw = malloc(need + RNIC_MEM_ALIGN);
    CHECK(need > 0);
    CHECK_EQ(tp_init(t, &tc, (void *)(((uintptr_t)traw + (RNIC_MEM_ALIGN - 1u)) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u)), need),
             RNIC_OK);
    tp_flow_config_default(&fp);
    fp.rto_ns = 1000000u; /* far above the 2 us RTT: a timeout would be a failure here */
    CHECK_EQ(tp_flow_open(t, 1, &fp), RNIC_OK);
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = 4;
    rc.window = 256;
    rc.delack_count = 1;
    rc.pull_bps = tc.link_bps;
    r = rx_new(&h, &rc);
    if (!r) {
        CHECK(r != NULL);
        free(t);
        free(traw);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 1, NULL), RNIC_OK);
    memset(&msg, 0, sizeof msg);
    msg.flow = 1;
    msg.len = NSEG * 1000u;
    msg.tag = 77;
    CHECK_EQ(tp_push_message(t, &msg), RNIC_OK);
    xs_state = 31337;
    for (now = 0; now < 2000000 && !done && !TEST_FAILS(); now++) {
        tp_tick(t);
        while (tp_pop_segment(t, &w) == RNIC_OK) {
            if (rnd(10) < 3) {
                w.flags |= TP_WORK_TRIMMED;
                trims++;
            }
            CHECK(dn < QN);
            dq[(dh + dn) % QN] = w;
            dt[(dh + dn++) % QN] = now + DELAY;
        }
        while (dn && dt[dh] <= now && tp_rx_space_segment(r)) {
            CHECK_EQ(tp_rx_push_segment(r, &dq[dh]), RNIC_OK);
            dh = (dh + 1) % QN;
            dn--;
        }
        tp_rx_tick(r);
        while (tp_rx_pop_ack(r, &w) == RNIC_OK) {
            CHECK(cn < QN);
            cq[(chd + cn) % QN] = w;
            ct[(chd + cn++) % QN] = now + DELAY;
        }
        while (tp_rx_pop_delivered(r, &w) == RNIC_OK) {
            CHECK(w.index < NSEG);
            if (w.index < NSEG)
                got[w.index]++;
        }
        while (cn && ct[chd] <= now && tp_space_incoming(t)) {
            CHECK_EQ(tp_push_incoming(t, &cq[chd]), RNIC_OK);
            chd = (chd + 1) % QN;
            cn--;
        }
        while (tp_pop_completion(t, &w) == RNIC_OK) {
            CHECK_EQ(w.tag, 77);
            done = 1;
        }
    }
    CHECK(done);
    for (k = 0; k < NSEG; k++)
        CHECK_EQ(got[k], 1);
    CHECK_EQ(tp_get_stats(t)->timeouts, 0);
    CHECK(trims > 50);
    CHECK_EQ(tp_rx_get_stats(r)->trimmed, trims);
    CHECK_EQ(tp_rx_get_stats(r)->naks, trims); /* nothing was trimmed twice after arriving whole */
    CHECK_EQ(tp_get_stats(t)->segments_rtx, trims);
    rx_del(&h);
    free(t);
    free(traw);
}

/* ---------------------------------------------------------------- fast-forward */

typedef struct sched {
    uint64_t cycle;
    rnic_work seg;
} sched;

/* A sparse random schedule of arrivals (bursts and long idle gaps) over 6 flows. */
static size_t make_schedule(sched *s, size_t max, uint64_t seed, bool gbn)
{
    size_t n = 0;
    uint64_t cyc = 0;
    uint32_t seqs[6] = {0}, f;
    xs_state = seed;
    while (n < max) {
        uint32_t x = rnd(100), id, fl = 0;
        cyc += x < 60 ? 1 : x < 90 ? 1 + rnd(200) : 1 + rnd(30000);
        f = rnd(6);
        id = seqs[f];
        if (gbn && rnd(10) == 0)
            id += 1 + rnd(3); /* a gap */
        else if (rnd(20) == 0 && id > 3)
            id -= 1 + rnd(3); /* a duplicate */
        else
            seqs[f]++;
        if (rnd(10) == 0)
            fl |= TP_WORK_TRIMMED;
        if (rnd(4) == 0)
            fl |= TP_WORK_ECN;
        s[n].cycle = cyc;
        s[n].seg = seg_make(f, id, rnd(5) == 0 ? 1 + rnd(1500) : 1500, fl);
        n++;
    }
    return n;
}

static int rec_eq(const rec *x, const rec *y)
{
    return x->cycle == y->cycle && x->op == y->op && x->flow == y->flow && x->index == y->index &&
           x->offset == y->offset && x->len == y->len && x->aux == y->aux && x->flags == y->flags;
}

static void ff_compare(const tp_rx_config *c, uint64_t seed, bool gbn)
{
    enum { NSCH = 3000 };
    sched *s = (sched *)malloc(sizeof(sched) * NSCH);
    size_t n = make_schedule(s, NSCH, seed, gbn), i, k;
    uint64_t end = s[n - 1].cycle + 2000000, base = c->start_cycle; /* times relative to base */
    recs a1 = {0}, d1 = {0}, a2 = {0}, d2 = {0};
    rxh h1, h2;
    tp_rx *r1 = rx_new(&h1, c), *r2 = rx_new(&h2, c);
    uint64_t ticks2 = 0;
    uint32_t f;
    if (!r1 || !r2) {
        CHECK(r1 && r2);
        free(s);
        return;
    }
    for (f = 0; f < 6; f++) {
        CHECK_EQ(tp_rx_flow_open(r1, f, NULL), RNIC_OK);
        CHECK_EQ(tp_rx_flow_open(r2, f, NULL), RNIC_OK);
    }
    /* run 1: every cycle */
    for (i = 0; tp_rx_now(r1) - base < end;) {
        while (i < n && s[i].cycle == tp_rx_now(r1) - base)
            CHECK_EQ(tp_rx_push_segment(r1, &s[i++].seg), RNIC_OK);
        tp_rx_tick(r1);
        drain(r1, &a1, &d1);
    }
    /* run 2: jump to the next event or the next arrival */
    for (i = 0; tp_rx_now(r2) - base < end;) {
        uint64_t e, t, now = tp_rx_now(r2) - base;
        while (i < n && s[i].cycle == now)
            CHECK_EQ(tp_rx_push_segment(r2, &s[i++].seg), RNIC_OK);
        e = tp_rx_next_event(r2);
        e = e == RNIC_NEVER ? UINT64_MAX : e - base; /* NEVER: advance_to finds the rest itself */
        t = i < n && s[i].cycle < e ? s[i].cycle : e;
        if (t > end)
            t = end;
        if (t > now)
            tp_rx_advance_to(r2, t + base);
        else {
            tp_rx_tick(r2);
            ticks2++;
        }
        drain(r2, &a2, &d2);
    }
    CHECK_EQ(tp_rx_now(r1), tp_rx_now(r2));
    CHECK_EQ(a1.n, a2.n);
    CHECK_EQ(d1.n, d2.n);
    for (k = 0; k < a1.n && k < a2.n; k++)
        if (!rec_eq(&a1.v[k], &a2.v[k])) {
            CHECK_EQ(a1.v[k].cycle, a2.v[k].cycle);
            CHECK_EQ(a1.v[k].op, a2.v[k].op);
            break;
        }
    for (k = 0; k < d1.n && k < d2.n; k++)
        if (!rec_eq(&d1.v[k], &d2.v[k])) {
            CHECK_EQ(d1.v[k].cycle, d2.v[k].cycle);
            break;
        }
    CHECK(memcmp(&tp_rx_get_stats(r1)->marked, &tp_rx_get_stats(r2)->marked, 6 * sizeof(uint64_t)) == 0);
    CHECK_EQ(tp_rx_get_stats(r1)->acks, tp_rx_get_stats(r2)->acks);
    CHECK_EQ(tp_rx_get_stats(r1)->delayed_acks_sent, tp_rx_get_stats(r2)->delayed_acks_sent);
    CHECK(ticks2 * 10 < tp_rx_now(r2) - base); /* it did skip */
    /* every kind of record occurred */
    {
        uint32_t kinds = 0;
        for (k = 0; k < a1.n; k++)
            kinds |= 1u << a1.v[k].op;
        CHECK_EQ(kinds, (1u << TP_PKT_ACK) | (1u << TP_PKT_NACK) | (1u << TP_PKT_CNP) | (1u << TP_PKT_GRANT));
        CHECK(tp_rx_get_stats(r1)->delayed_acks_sent > 0);
    }
    rx_del(&h1);
    rx_del(&h2);
    free(a1.v);
    free(d1.v);
    free(a2.v);
    free(d2.v);
    free(s);
}

static void test_fast_forward(void)
{
    tp_rx_config c;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.delack_count = 2;
    c.delack_ns = 20000u;
    c.cnp_interval_ns = 50000u;
    c.pull_bps = 10000000000ull; /* 10 Gb/s against 1 arrival per cycle: the pull queue builds */
    c.ack_depth = 1024;
    c.go_back_n = true;
    c.cnp_mode = TP_RX_CNP_DEFERRED;
    ff_compare(&c, 1, true);
    c.cnp_mode = TP_RX_CNP_IMMEDIATE;
    ff_compare(&c, 2, true);
    c.go_back_n = false;
    c.cnp_mode = TP_RX_CNP_DEFERRED;
    c.start_cycle = UINT64_MAX - 1000000; /* across the 2^64 wrap */
    ff_compare(&c, 3, false);
}

/* ---------------------------------------------------------------- options off, config */

static void test_options_off(void)
{
    tp_rx_config c, c2;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    rnic_work s;
    size_t k;
    const char *field = NULL;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    CHECK(!c.go_back_n);
    CHECK_EQ(c.cnp_interval_ns, 0);
    CHECK_EQ(c.cnp_mode, TP_RX_CNP_IMMEDIATE);
    CHECK_EQ(c.pull_bps, 0);
    CHECK_EQ(c.pull_overhead_bytes, 64);
    CHECK_EQ(c.delack_count, 2);
    CHECK(c.sack && !c.nack && !c.ack_first);
    /* the options off cost no memory; each one on adds its arrays */
    c2 = c;
    c2.cnp_mode = TP_RX_CNP_DEFERRED;
    c2.pull_overhead_bytes = 0;
    c2.go_back_n = true;
    CHECK_EQ(tp_rx_mem_size(&c2), tp_rx_mem_size(&c));
    c2.cnp_interval_ns = 50000u;
    CHECK(tp_rx_mem_size(&c2) > tp_rx_mem_size(&c));
    /* options off: marked data is echoed on ACKs (TCP ECE), out-of-order data is delivered and
     * SACKed, no CNPs, NAKs or pulls */
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
    s = seg_make(0, 0, 1000, TP_WORK_ECN);
    step(r, &s, &a, &d); /* delayed */
    s = seg_make(0, 2, 1000, 0);
    step(r, &s, &a, &d); /* out of order: ACK 1, SACK [2, 3), ECN echo */
    CHECK_EQ(a.n, 1);
    if (a.n == 1) {
        CHECK_EQ(a.v[0].op, TP_PKT_ACK);
        CHECK_EQ(a.v[0].index, 1);
        CHECK_EQ(a.v[0].offset, 2);
        CHECK_EQ(a.v[0].len, 1);
        CHECK_EQ(a.v[0].flags, TP_WORK_PKT(TP_PKT_ACK) | TP_WORK_ECN);
    }
    CHECK_EQ(d.n, 2);
    while (tp_rx_now(r) < 100000)
        step(r, NULL, &a, &d);
    for (k = 0; k < a.n; k++)
        CHECK_EQ(a.v[k].op, TP_PKT_ACK);
    CHECK_EQ(tp_rx_get_stats(r)->marked, 1);
    CHECK_EQ(tp_rx_get_stats(r)->cnps + tp_rx_get_stats(r)->pulls + tp_rx_get_stats(r)->naks +
                 tp_rx_get_stats(r)->discarded_out_of_sequence + tp_rx_get_stats(r)->trimmed,
             0);
    rx_del(&h);
    free(a.v);
    free(d.v);
    /* config checks of the new fields */
#define BAD(stmt, name)                                          \
    do {                                                         \
        c2 = c;                                                  \
        stmt;                                                    \
        CHECK_EQ(tp_rx_config_check(&c2, &field), RNIC_EINVAL);  \
        CHECK(field && strcmp(field, name) == 0);                \
        CHECK_EQ(tp_rx_mem_size(&c2), 0);                        \
    } while (0)
    BAD(c2.cnp_mode = 2, "cnp_mode");
    BAD((c2.cnp_interval_ns = 50000, c2.ack_depth = 1), "cnp_interval_ns");
    BAD(c2.cnp_interval_ns = 100000000001ull, "cnp_interval_ns");
    BAD(c2.pull_bps = 99999, "pull_bps");
    BAD(c2.pull_bps = 800000000001ull, "pull_bps");
    BAD(c2.pull_overhead_bytes = 65537, "pull_overhead_bytes");
#undef BAD
    c2 = c;
    c2.cnp_interval_ns = 100000000000ull;
    c2.ack_depth = 2;
    c2.pull_bps = RNIC_RATE_MIN_BPS;
    c2.pull_overhead_bytes = 65536;
    CHECK_EQ(tp_rx_config_check(&c2, &field), RNIC_OK);
}

/* tp_rx_flow_close: refused while the flow owes a delayed ACK or holds segments beyond its
 * cumulative ack (each refusal counted once), then closed; a closed flow's segments are refused
 * and its state reads ENOENT; it opens again with a new first id. */
static void test_flow_close(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    tp_rx_flow_view v;
    recs a = {0}, d = {0};
    rnic_work s;
    uint64_t busy, noent, k;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 4;
    c.delack_ns = 1000u; /* 100 cycles */
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_close(NULL, 0), RNIC_EINVAL);
    noent = tp_rx_get_stats(r)->errors.by_cause[RNIC_ENOENT];
    CHECK_EQ(tp_rx_flow_close(r, 1), RNIC_ENOENT); /* never opened */
    CHECK_EQ(tp_rx_flow_close(r, 4), RNIC_ENOENT); /* beyond max_flows */
    CHECK_EQ(tp_rx_get_stats(r)->errors.by_cause[RNIC_ENOENT], noent + 2u);
    CHECK_EQ(tp_rx_flow_open(r, 1, NULL), RNIC_OK);
    s = seg_make(1, 0, 100, 0);
    step(r, &s, &a, &d); /* in order, the first of two: a delayed ACK is owed */
    CHECK_EQ(a.n, 0);
    CHECK_EQ(tp_rx_flow_state(r, 1, &v), RNIC_OK);
    CHECK(v.open && v.expected == 1 && v.pending == 1 && v.delack_running && v.held == 0);
    busy = tp_rx_get_stats(r)->errors.by_cause[RNIC_EBUSY];
    CHECK_EQ(tp_rx_flow_close(r, 1), RNIC_EBUSY);
    s = seg_make(1, 2, 100, 0);
    step(r, &s, &a, &d); /* out of order: acknowledged at once, but held beyond expected */
    CHECK_EQ(a.n, 1);
    CHECK_EQ(tp_rx_flow_state(r, 1, &v), RNIC_OK);
    CHECK(v.held == 1 && !v.delack_running);
    CHECK_EQ(tp_rx_flow_close(r, 1), RNIC_EBUSY);
    CHECK_EQ(tp_rx_get_stats(r)->errors.by_cause[RNIC_EBUSY], busy + 2u);
    s = seg_make(1, 1, 100, 0);
    step(r, &s, &a, &d); /* fills the gap: expected 3, nothing held, ACKed at once */
    CHECK_EQ(a.n, 2);
    CHECK_EQ(tp_rx_flow_state(r, 1, &v), RNIC_OK);
    CHECK(v.expected == 3 && v.held == 0 && !v.delack_running);
    CHECK_EQ(tp_rx_flow_close(r, 1), RNIC_OK);
    CHECK_EQ(tp_rx_flow_state(r, 1, &v), RNIC_ENOENT);
    CHECK(!v.open);
    CHECK_EQ(tp_rx_flow_close(r, 1), RNIC_ENOENT);
    noent = tp_rx_get_stats(r)->errors.by_cause[RNIC_ENOENT];
    s = seg_make(1, 3, 100, 0);
    step(r, &s, &a, &d); /* a closed flow's segment: refused at its tick, nothing out */
    CHECK_EQ(tp_rx_get_stats(r)->errors.by_cause[RNIC_ENOENT], noent + 1u);
    CHECK_EQ(a.n, 2);
    CHECK_EQ(d.n, 3);
    for (k = 0; k < 300; k++)
        step(r, NULL, &a, &d);
    CHECK_EQ(a.n, 2); /* no timer of the closed flow fires */
    CHECK_EQ(tp_rx_flow_open(r, 1, &(tp_rx_flow_config){.init_seq = 100}), RNIC_OK);
    CHECK_EQ(tp_rx_flow_state(r, 1, &v), RNIC_OK);
    CHECK(v.open && v.expected == 100 && v.pending == 0 && v.held == 0);
    rx_del(&h);
    free(a.v);
    free(d.v);
}

/* A full ACK port holds everything back (the deferred CNP's timer and the pulls too); nothing
 * is lost, and next_event says NEVER until a pop makes room. */
static void test_full_port(void)
{
    tp_rx_config c;
    rxh h;
    tp_rx *r;
    recs a = {0}, d = {0};
    rnic_work s, o;
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.ack_depth = 2;
    c.cnp_interval_ns = 1000u; /* 100 cycles */
    c.cnp_mode = TP_RX_CNP_DEFERRED;
    c.pull_bps = 100000000000ull; /* 1064 B: 9 cycles */
    c.delack_count = 1;
    r = rx_new(&h, &c);
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
    s = seg_make(0, 0, 1000, TP_WORK_ECN);
    CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
    s = seg_make(0, 1, 1000, TP_WORK_ECN);
    CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
    tp_rx_tick(r); /* cycle 0: ACK + CNP fill the port; the pull waits, segment 1 waits */
    CHECK_EQ(tp_rx_next_event(r), RNIC_NEVER);
    tp_rx_advance(r, 49);
    CHECK_EQ(tp_rx_now(r), 50);
    CHECK_EQ(tp_rx_get_stats(r)->segments, 1);
    CHECK_EQ(tp_rx_pop_ack(r, &o), RNIC_OK);
    CHECK_EQ(TP_WORK_PKT_TYPE(o.flags), TP_PKT_ACK);
    CHECK_EQ(tp_rx_pop_ack(r, &o), RNIC_OK);
    CHECK_EQ(TP_WORK_PKT_TYPE(o.flags), TP_PKT_CNP);
    CHECK_EQ(o.cycle, 0);
    CHECK_EQ(tp_rx_next_event(r), 50);
    tp_rx_tick(r); /* cycle 50: segment 1's ACK (its mark waits for 100), segment 0's pull */
    CHECK_EQ(tp_rx_next_event(r), RNIC_NEVER);
    tp_rx_advance_to(r, 200); /* the CNP due at 100 cannot leave: the port is full */
    CHECK_EQ(tp_rx_get_stats(r)->cnps, 1);
    drain(r, &a, &d);
    CHECK_EQ(a.n, 2);
    if (a.n == 2) {
        CHECK_EQ(a.v[0].op, TP_PKT_ACK);
        CHECK_EQ(a.v[0].cycle, 50);
        CHECK_EQ(a.v[1].op, TP_PKT_GRANT);
        CHECK_EQ(a.v[1].cycle, 50);
    }
    CHECK_EQ(tp_rx_next_event(r), 200);
    tp_rx_tick(r); /* cycle 200: the deferred CNP, then segment 1's pull (due since 59) */
    drain(r, &a, &d);
    CHECK_EQ(a.n, 4);
    if (a.n == 4) {
        CHECK_EQ(a.v[2].op, TP_PKT_CNP);
        CHECK_EQ(a.v[2].cycle, 200);
        CHECK_EQ(a.v[2].index, 2);
        CHECK_EQ(a.v[3].op, TP_PKT_GRANT);
        CHECK_EQ(a.v[3].cycle, 200);
    }
    CHECK_EQ(tp_rx_get_stats(r)->cnps, 2);
    CHECK_EQ(tp_rx_get_stats(r)->pulls, 2);
    CHECK_EQ(tp_rx_next_event(r), RNIC_NEVER);
    rx_del(&h);
    free(a.v);
    free(d.v);
}

int main(void)
{
    RUN(test_gbn_scenario);
    RUN(test_gbn_random);
    RUN(test_gbn_delack);
    RUN(test_cnp_by_hand);
    RUN(test_cnp_immediate);
    RUN(test_cnp_deferred);
    RUN(test_pull_pacing);
    RUN(test_pull_exact_rate);
    RUN(test_pull_index);
    RUN(test_trimmed_scenario);
    RUN(test_trimmed_random);
    RUN(test_ndp_closed_loop);
    RUN(test_fast_forward);
    RUN(test_options_off);
    RUN(test_full_port);
    RUN(test_flow_close);
    return test_summary();
}
