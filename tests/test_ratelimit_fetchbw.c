/* ratelimit.h: the PCIe read channel of the WQE fetches (cfg.fetch_bps, cfg.wqe_bytes; issue 13,
 * docs/tassel_model.md step 7, "Fetch bandwidth"), public API only.
 *
 * Expectations come from the contract and from arithmetic done here, not from the engine:
 * - (a) 64 B WQEs (one 64 B packet each), 1,024 QPs backlogged at the link rate: with
 *   fetch_bps = 128 Gb/s the WQE read rate (fetch_bytes * 8 * clock / cycles) is at most
 *   128 Gb/s plus one fetch over the window (back-to-back reads run at exactly fetch_bps) and at
 *   least 95 % of it (the channel is the bottleneck); with fetch_bps = 0 the same scenario
 *   reads more than 128 Gb/s (the doc's departures item (e): ~188 Gb/s). Every packet sent was
 *   read: packets x 64 B <= WQE bytes read + what the descriptor buffer held before.
 * - (b) 4 KB WQEs: the channel is not the bottleneck (reads ~7 Gb/s), so the link carries the
 *   same bytes with fetch_bps = 128 Gb/s as unlimited, within 1 %.
 * - (c) rl_config_check: fetch_bps 0 or 1 Mb/s .. 10 Tb/s, wqe_bytes 1 .. 4096 (api.h), the
 *   bad field named.
 * - (d) a QP popped by step 7 and parked (no credit, paused) charges nothing: the next QP's fetch
 *   issues in the following cycle; a QP queued behind a busy channel waits exactly until
 *   floor(fetch_t), and every such cycle is counted in fetch_throttled.
 * - (g) back-to-back fetches issue at floor(c0 + i * bytes * cpb), cpb = floor(clock * 8 * 2^32 /
 *   fetch_bps), computed here in 128-bit arithmetic; fetch_bytes = fetches issued x n x wqe_bytes.
 * - (e) rl_advance and rl_tick give the same TX records (every field, the cycle included) and
 *   the same statistics while the channel is busy.
 * - (f) an engine started 30,000 cycles before 2^64 crosses the wrap with a busy channel exactly
 *   as one started at 0 (records shifted by the start).
 * Measurements print as RESULT lines. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

__extension__ typedef unsigned __int128 u128;

/* ---- the WQE source: per flow, `avail` WQEs (UINT32_MAX: endless) of `len[flow]` bytes ---- */
typedef struct src {
    uint32_t nq;
    uint32_t *avail, *len;
} src;

static uint32_t source_fn(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    const src *s = (const src *)user;
    uint32_t n = 0;
    while (n < max && (s->avail[flow] == UINT32_MAX || index + n < s->avail[flow])) {
        memset(&out[n], 0, sizeof out[n]);
        out[n].len = s->len[flow];
        out[n].addr = ((uint64_t)flow << 40) | ((uint64_t)(index + n) << 12);
        out[n].tag = ((uint64_t)flow << 32) | (index + n);
        n++;
    }
    return n;
}

static void src_init(src *s, uint32_t nq, uint32_t avail, uint32_t len)
{
    uint32_t i;
    s->nq = nq;
    s->avail = (uint32_t *)malloc(nq * sizeof *s->avail);
    s->len = (uint32_t *)malloc(nq * sizeof *s->len);
    for (i = 0; i < nq; i++) {
        s->avail[i] = avail;
        s->len[i] = len;
    }
}

static void src_free(src *s)
{
    free(s->avail);
    free(s->len);
}

/* ---- trace: fetch issues and parks ---- */
typedef struct ev {
    uint64_t cycle;
    uint32_t flow, kind;
} ev;

typedef struct tlog {
    ev *e;
    uint32_t n, cap;
    uint64_t fetches; /* RL_TRACE_FETCH events, also past cap */
    uint64_t from;    /* events before this cycle are ignored (engines started at 0) */
} tlog;

static void trace_fn(void *user, const rnic_trace_event *t)
{
    tlog *l = (tlog *)user;
    if ((t->kind != RL_TRACE_FETCH && t->kind != RL_TRACE_PARK) || t->cycle < l->from)
        return;
    if (t->kind == RL_TRACE_FETCH)
        l->fetches++;
    if (l->n < l->cap) {
        l->e[l->n].cycle = t->cycle;
        l->e[l->n].flow = t->id;
        l->e[l->n].kind = t->kind;
        l->n++;
    }
}

/* ---- an engine in malloc'd memory ---- */
typedef struct eng {
    rl *r;
    void *mem;
} eng;

static int eng_init(eng *e, const rl_config *c)
{
    size_t sz = rl_mem_size(c);
    e->r = (rl *)calloc(1, sizeof *e->r);
    e->mem = sz ? malloc(sz) : NULL;
    return e->r && e->mem && rl_init(e->r, c, e->mem, sz) == RNIC_OK;
}

static void eng_free(eng *e)
{
    free(e->r);
    free(e->mem);
}

/* cycles per byte of a rate, Q32.32, rounded down (the doc: "as the link") */
static uint64_t cpb_of(uint64_t clock, uint64_t bps)
{
    return (uint64_t)((((u128)clock * 8u) << 32) / bps);
}

/* ---- (a), (b): every QP backlogged at the link rate ---- */
typedef struct meas {
    double read_gbps, link_gbps;
    uint64_t cycles, fetch_bytes, bytes, packets, throttled, gated, fetches_traced;
} meas;

static void backlogged(uint32_t nq, uint32_t wqe_len, uint64_t fetch_bps, uint64_t warm, uint64_t cycles, meas *m)
{
    rl_config c;
    src s;
    eng e;
    tlog tl;
    uint32_t i;
    uint64_t t;
    rl_stats a, b;
    char fbuf[32];
    memset(&a, 0, sizeof a);
    memset(m, 0, sizeof *m);
    memset(&tl, 0, sizeof tl);
    src_init(&s, nq, UINT32_MAX, wqe_len);
    rl_config_default(&c); /* 250 MHz, 100 Gb/s, L = 250 cycles, n = 8, k = 60, mtu 4096, 64 B WQEs */
    c.max_flows = nq;
    c.fetch_bps = fetch_bps;
    c.source = source_fn;
    c.source_user = &s;
    c.trace = trace_fn;
    c.trace_user = &tl;
    if (!eng_init(&e, &c)) {
        CHECK(!"rl_init");
        src_free(&s);
        return;
    }
    for (i = 0; i < nq; i++)
        CHECK(rl_doorbell(e.r, i) == RNIC_OK); /* new QPs run at the link rate */
    for (t = 0; t < warm + cycles; t++) {
        rnic_work w;
        if (t == warm) {
            a = *rl_get_stats(e.r);
            tl.fetches = 0;
        }
        rl_tick(e.r);
        while (rl_pop_tx(e.r, &w) == RNIC_OK)
            ;
    }
    b = *rl_get_stats(e.r);
    m->cycles = cycles;
    m->fetch_bytes = b.fetch_bytes - a.fetch_bytes;
    m->bytes = b.bytes - a.bytes;
    m->packets = b.packets - a.packets;
    m->throttled = b.fetch_throttled - a.fetch_throttled;
    m->gated = b.fetch_gated - a.fetch_gated;
    m->fetches_traced = tl.fetches;
    m->read_gbps = (double)m->fetch_bytes * 8.0 * (double)c.clock_hz / (double)cycles / 1e9;
    m->link_gbps = (double)m->bytes * 8.0 * (double)c.clock_hz / (double)cycles / 1e9;
    /* fetch_bytes adds n x wqe_bytes per fetch issued (the trace shows every issue) */
    CHECK_EQ(m->fetch_bytes, m->fetches_traced * c.fetch_wqes * c.wqe_bytes);
    /* every packet sent was read: its WQE was fetched in the window, or was stored or in flight
     * when the window opened (held + in flight < k, at most n packets per fetch) */
    if (wqe_len == 64)
        CHECK(m->packets * 64u <= m->fetch_bytes + (uint64_t)c.desc_depth * c.fetch_wqes * 64u);
    snprintf(fbuf, sizeof fbuf, "%.0f Gb/s", (double)fetch_bps / 1e9);
    printf("RESULT fetchbw %u QPs, %u B WQEs, fetch_bps %s: reads %.2f Gb/s (%.4f fetches/cycle), link %.2f Gb/s "
           "(%.2f %% of 100), %.2f Mpps; throttled %.3f, gated %.3f of cycles (%" PRIu64 " cycles after %" PRIu64
           " warm-up)\n",
           (unsigned)nq, (unsigned)wqe_len,
           fetch_bps ? fbuf : "0 (unlimited)", m->read_gbps,
           (double)m->fetches_traced / (double)cycles, m->link_gbps, m->link_gbps,
           (double)m->packets * (double)c.clock_hz / (double)cycles / 1e6, (double)m->throttled / (double)cycles,
           (double)m->gated / (double)cycles, cycles, warm);
    eng_free(&e);
    src_free(&s);
}

#ifndef WARM
#define WARM 400000u
#endif
#ifndef MEAS
#define MEAS 1000000u
#endif

/* at most fetch_bps plus one fetch (n x wqe_bytes) over the window: back-to-back reads run at
 * exactly fetch_bps (cpb rounded down: at 250 MHz, 64 and 128 Gb/s are exact) */
static int within_rate(const meas *m, uint64_t fbps, uint64_t clock, uint64_t fetch_req)
{
    return (u128)m->fetch_bytes * 8u * clock <= (u128)fbps * m->cycles + (u128)fetch_req * 8u * clock;
}

/* (a) 64 B WQEs, 1,024 QPs at the link rate, always backlogged. The start-up holds every QP's
 * first reschedule until T reaches the A_mono of cycle 0 (one QP active: ~259 virtual cycles,
 * ~265,000 cycles at Phi = 1,024), so the window opens after 400,000 cycles. */
static void test_a_small_wqes_1024(void)
{
    meas u, l, b;
    const uint64_t clock = 250000000ull;
    backlogged(1024, 64, 0, WARM, MEAS, &u);
    backlogged(1024, 64, 128000000000ull, WARM, MEAS, &l);
    backlogged(1024, 64, 64000000000ull, WARM, MEAS, &b);
    /* unlimited: the model reads faster than a 128 Gb/s host link could deliver */
    CHECK(u.read_gbps > 128.0);
    CHECK_EQ(u.throttled, 0);
    /* 128 Gb/s: never above it (plus one fetch), and below the unlimited rate */
    CHECK(within_rate(&l, 128000000000ull, clock, 512));
    CHECK(l.fetch_bytes < u.fetch_bytes);
    CHECK(l.throttled > 0);
    /* 64 Gb/s, below the 100 Gb/s of reads the link needs (one 64 B WQE per 64 B packet): the
     * channel is the bottleneck, the reads run at >= 95 % of it */
    CHECK(within_rate(&b, 64000000000ull, clock, 512));
    CHECK((u128)b.fetch_bytes * 8u * clock * 100u >= (u128)64000000000ull * b.cycles * 95u);
    CHECK(b.throttled > b.cycles / 2); /* a QP waits for the channel most of the time */
    printf("RESULT fetchbw 64 B WQEs, 1,024 QPs: reads unlimited %.2f Gb/s, at fetch_bps 128 Gb/s %.2f Gb/s (%.2f %% of "
           "it), at 64 Gb/s %.2f Gb/s (%.2f %%); link %.2f / %.2f / %.2f Gb/s\n",
           u.read_gbps, l.read_gbps, l.read_gbps / 1.28, b.read_gbps, b.read_gbps / 0.64, u.link_gbps, l.link_gbps,
           b.link_gbps);
}

static void test_b_4k_wqes(void)
{
    meas u, l;
    backlogged(1024, 4096, 0, WARM, MEAS, &u);
    backlogged(1024, 4096, 128000000000ull, WARM, MEAS, &l);
    CHECK(u.bytes > 0);
    /* the link carries the same within 1 % */
    CHECK(l.bytes * 100u >= u.bytes * 99u && l.bytes * 100u <= u.bytes * 101u);
    CHECK(l.read_gbps < 128.0 * 0.2); /* far from the channel's limit */
    printf("RESULT fetchbw 4 KB WQEs, 1,024 QPs: link unlimited %.3f Gb/s, at fetch_bps 128 Gb/s %.3f Gb/s (ratio "
           "%.5f); reads %.2f / %.2f Gb/s\n",
           u.link_gbps, l.link_gbps, (double)l.bytes / (double)u.bytes, u.read_gbps, l.read_gbps);
}

/* ---- (c) ---- */
static void test_c_config(void)
{
    static const struct {
        uint64_t fetch_bps;
        uint32_t wqe_bytes;
        const char *bad; /* NULL: accepted */
    } cases[] = {
        { 0, 64, NULL },
        { 999999ull, 64, "fetch_bps" },
        { 1000000ull, 64, NULL },
        { 1ull, 64, "fetch_bps" },
        { 10000000000000ull, 64, NULL },
        { 10000000000001ull, 64, "fetch_bps" },
        { UINT64_MAX, 64, "fetch_bps" },
        { 0, 0, "wqe_bytes" },
        { 0, 4097, "wqe_bytes" },
        { 128000000000ull, 0, "wqe_bytes" },
        { 128000000000ull, 4097, "wqe_bytes" },
        { 128000000000ull, UINT32_MAX, "wqe_bytes" },
        { 0, 1, NULL },
        { 0, 4096, NULL },
        { 128000000000ull, 1, NULL },
        { 128000000000ull, 4096, NULL },
    };
    rl_config c;
    uint32_t i;
    rl_config_default(&c);
    CHECK_EQ(c.fetch_bps, 0);    /* off by default: the paper's model */
    CHECK_EQ(c.wqe_bytes, 64);   /* RDMA's WQE size */
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *field = NULL;
        rnic_err e;
        rl_config_default(&c);
        c.fetch_bps = cases[i].fetch_bps;
        c.wqe_bytes = cases[i].wqe_bytes;
        e = rl_config_check(&c, &field);
        if (cases[i].bad) {
            CHECK(e == RNIC_EINVAL);
            CHECK(field != NULL && strcmp(field, cases[i].bad) == 0);
            CHECK_EQ(rl_mem_size(&c), 0);
            if (e != RNIC_EINVAL || !field || strcmp(field, cases[i].bad) != 0)
                printf("  case %u (fetch_bps %" PRIu64 ", wqe_bytes %u): %s, field %s\n", (unsigned)i,
                       cases[i].fetch_bps, (unsigned)cases[i].wqe_bytes, rnic_err_name(e), field ? field : "(null)");
        } else {
            CHECK(e == RNIC_OK);
            CHECK(rl_mem_size(&c) > 0);
        }
    }
    { /* rl_init refuses a bad one too, and takes the good one */
        src s;
        eng e;
        size_t sz;
        src_init(&s, 4, 0, 64);
        rl_config_default(&c);
        c.max_flows = 4;
        c.source = source_fn;
        c.source_user = &s;
        sz = rl_mem_size(&c);
        e.r = (rl *)calloc(1, sizeof *e.r);
        e.mem = malloc(sz);
        c.wqe_bytes = 0;
        CHECK(rl_init(e.r, &c, e.mem, sz) == RNIC_EINVAL);
        c.wqe_bytes = 64;
        c.fetch_bps = 999999ull;
        CHECK(rl_init(e.r, &c, e.mem, sz) == RNIC_EINVAL);
        c.fetch_bps = 1000000ull;
        CHECK(rl_init(e.r, &c, e.mem, sz) == RNIC_OK);
        eng_free(&e);
        src_free(&s);
    }
}

/* ---- (d) parked pops charge nothing; a QP behind a busy channel waits until floor(fetch_t) ---- */
static void test_d_parked_pop_charges_nothing(void)
{
    rl_config c;
    src s;
    eng e;
    tlog tl;
    ev evs[64];
    uint32_t i, nfetch = 0;
    uint64_t t, fetch_at[3] = { 0, 0, 0 };
    uint32_t fetch_qp[3] = { 0, 0, 0 };
    memset(&tl, 0, sizeof tl);
    tl.e = evs;
    tl.cap = 64;
    src_init(&s, 4, UINT32_MAX, 64);
    rl_config_default(&c); /* 250 MHz, L = 250, n = 8, 64 B WQEs: a fetch reads 512 B */
    c.max_flows = 4;
    c.fetch_bps = 1000000000ull; /* 1 Gb/s: cpb = 2 cycles per byte exactly, 512 B = 1,024 cycles */
    c.source = source_fn;
    c.source_user = &s;
    c.trace = trace_fn;
    c.trace_user = &tl;
    CHECK_EQ(cpb_of(c.clock_hz, c.fetch_bps), (uint64_t)2u << 32);
    if (!eng_init(&e, &c)) {
        CHECK(!"rl_init");
        src_free(&s);
        return;
    }
    /* register FIFO order: QP0 (no credit) applies in cycle 0, QP2 (paused) in 1, QP1 in 2 */
    CHECK(rl_set_credit(e.r, 0, false) == RNIC_OK);
    CHECK(rl_doorbell(e.r, 0) == RNIC_OK);
    CHECK(rl_set_rate(e.r, 2, 0) == RNIC_OK);
    CHECK(rl_doorbell(e.r, 2) == RNIC_OK);
    CHECK(rl_doorbell(e.r, 1) == RNIC_OK);
    for (t = 0; t < 3; t++)
        rl_tick(e.r);
    /* two parks (cycles 0 and 1), then QP1's fetch in cycle 2: the parked pops held no channel */
    CHECK_EQ(tl.n, 3);
    if (tl.n == 3) {
        CHECK(evs[0].kind == RL_TRACE_PARK && evs[0].flow == 0 && evs[0].cycle == 0);
        CHECK(evs[1].kind == RL_TRACE_PARK && evs[1].flow == 2 && evs[1].cycle == 1);
        CHECK(evs[2].kind == RL_TRACE_FETCH && evs[2].flow == 1 && evs[2].cycle == 2);
    }
    CHECK_EQ(rl_get_stats(e.r)->fetch_bytes, 512); /* one fetch; the parked pops charged nothing */
    CHECK_EQ(rl_get_stats(e.r)->fetch_throttled, 0);
    /* QP3's doorbell applies in cycle 10; the channel is busy until floor(2 + 1024) = 1026 */
    for (; t < 10; t++)
        rl_tick(e.r);
    CHECK(rl_doorbell(e.r, 3) == RNIC_OK);
    for (; t < 2100; t++) {
        rnic_work w;
        rl_tick(e.r);
        while (rl_pop_tx(e.r, &w) == RNIC_OK)
            ;
        if (t == 1026)
            /* cycles 10 .. 1025 with QP3 queued, the gate open and the channel busy */
            CHECK_EQ(rl_get_stats(e.r)->fetch_throttled, 1026u - 10u);
    }
    for (i = 0; i < tl.n && i < 64; i++)
        if (evs[i].kind == RL_TRACE_FETCH && nfetch < 3) {
            fetch_at[nfetch] = evs[i].cycle;
            fetch_qp[nfetch] = evs[i].flow;
            nfetch++;
        }
    /* QP1 at 2, QP3 at 1026 (queued first), QP1 again at 2050 (back to back: 1026 + 1024) */
    CHECK_EQ(nfetch, 3);
    CHECK(fetch_at[0] == 2 && fetch_qp[0] == 1);
    CHECK(fetch_at[1] == 1026 && fetch_qp[1] == 3);
    CHECK(fetch_at[2] == 2050 && fetch_qp[2] == 1);
    printf("  fetches issued at cycles %" PRIu64 " (QP %u), %" PRIu64 " (QP %u), %" PRIu64 " (QP %u)\n", fetch_at[0],
           (unsigned)fetch_qp[0], fetch_at[1], (unsigned)fetch_qp[1], fetch_at[2], (unsigned)fetch_qp[2]);
    CHECK_EQ(rl_get_stats(e.r)->fetch_bytes, 512u * tl.fetches);
    /* the parked QPs never read: credit and rate restored, they fetch (and are charged) later */
    {
        uint64_t before = rl_get_stats(e.r)->fetch_bytes, f0 = tl.fetches;
        CHECK(rl_set_credit(e.r, 0, true) == RNIC_OK);
        CHECK(rl_set_rate(e.r, 2, c.link_bps) == RNIC_OK);
        for (; t < 9000; t++) {
            rnic_work w;
            rl_tick(e.r);
            while (rl_pop_tx(e.r, &w) == RNIC_OK)
                ;
        }
        CHECK(tl.fetches > f0);
        CHECK_EQ(rl_get_stats(e.r)->fetch_bytes - before, 512u * (tl.fetches - f0));
        CHECK(rl_get_flow_stats(e.r, 0)->packets > 0 && rl_get_flow_stats(e.r, 2)->packets > 0);
    }
    eng_free(&e);
    src_free(&s);
}

/* ---- (g) back-to-back fetches at exactly fetch_bps ---- */
static void test_g_back_to_back_spacing(void)
{
    static const struct {
        uint64_t bps;
        uint32_t wqe_bytes, n;
    } cases[] = {
        { 3000000000ull, 64, 8 },    /* 512 B at 3 Gb/s: 341.33 cycles */
        { 7777777777ull, 77, 5 },    /* odd sizes: 385 B */
        { 400000000000ull, 4096, 8 }, /* 32 KB at 400 Gb/s: 163.84 cycles */
        { 1000000ull, 1, 1 },        /* the slowest: 1 B at 1 Mb/s = 2,000 cycles */
    };
    uint32_t ci;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        rl_config c;
        src s;
        eng e;
        tlog tl;
        ev *evs = (ev *)malloc(400 * sizeof *evs);
        uint32_t i, nf = 0, bad = 0;
        uint64_t t, c0 = 0, bytes, cpb, thr0 = 0, thr_end = 0, end_cycle = 0, fb0 = 0;
        u128 lo = 0, hi = ~(u128)0; /* the origins X (Q32.32) with floor(X + i * bytes * cpb) = issue i */
        memset(&tl, 0, sizeof tl);
        tl.e = evs;
        tl.cap = 400;
        src_init(&s, 64, UINT32_MAX, 64);
        rl_config_default(&c);
        c.max_flows = 64;
        c.fetch_bps = cases[ci].bps;
        c.wqe_bytes = cases[ci].wqe_bytes;
        c.fetch_wqes = cases[ci].n;
        c.source = source_fn;
        c.source_user = &s;
        c.trace = trace_fn;
        c.trace_user = &tl;
        bytes = (uint64_t)c.wqe_bytes * c.fetch_wqes;
        cpb = cpb_of(c.clock_hz, c.fetch_bps);
        if (!eng_init(&e, &c)) {
            CHECK(!"rl_init");
            free(evs);
            src_free(&s);
            continue;
        }
        for (i = 0; i < 64; i++)
            rl_doorbell(e.r, i);
        /* 64 QPs backlogged at the link rate, the channel slower than the link needs (one fetch
         * per n x 5.12 cycles): after the start-up (A_mono, set while one QP was active, holds
         * the first reschedules for ~259 x 64 cycles) the schedule queue never empties and the
         * gate stays open (a few fetches in flight, a few packets stored), so every fetch waits
         * for the channel and issues at floor(c0 + i * bytes * cpb) */
        tl.from = 30000;
        for (t = 0; tl.fetches < 200 && t < 2000000; t++) {
            rnic_work w;
            uint64_t before = tl.fetches;
            rl_tick(e.r);
            while (rl_pop_tx(e.r, &w) == RNIC_OK)
                ;
            if (before == 0 && tl.fetches == 1) {
                thr0 = rl_get_stats(e.r)->fetch_throttled;
                fb0 = rl_get_stats(e.r)->fetch_bytes - bytes; /* before the first collected fetch */
            }
        }
        thr_end = rl_get_stats(e.r)->fetch_throttled;
        /* issue i at floor(X + i * D), D = bytes * cpb, for one origin X in [c0, c0 + 1) (the
         * channel was already busy: X carries the fraction of the fetches before): the
         * intervals [issue_i - i * D, issue_i + 1 - i * D) must share a point */
        for (i = 0; i < tl.n; i++) {
            u128 a, b, d;
            if (evs[i].kind != RL_TRACE_FETCH)
                continue;
            if (nf == 0)
                c0 = evs[i].cycle;
            d = (u128)nf * bytes * cpb;
            a = ((u128)evs[i].cycle << 32) - d;
            b = ((u128)(evs[i].cycle + 1u) << 32) - d;
            if (a > lo)
                lo = a;
            if (b < hi)
                hi = b;
            if (lo >= hi && bad++ < 3)
                printf("  case %u: fetch %u issued at %" PRIu64 ", not floor(X + %u x %.4f) for the X of the"
                       " fetches before (X in [%.4f, %.4f) before it)\n",
                       (unsigned)ci, (unsigned)nf, evs[i].cycle, (unsigned)nf, (double)bytes * (double)cpb / 4294967296.0,
                       (double)lo / 4294967296.0, (double)hi / 4294967296.0);
            end_cycle = evs[i].cycle;
            nf++;
        }
        CHECK_EQ(nf, 200);
        CHECK_EQ(bad, 0);
        CHECK(lo >= (u128)c0 << 32 && lo < (u128)(c0 + 1u) << 32);
        CHECK_EQ(rl_get_stats(e.r)->fetch_bytes - fb0, (uint64_t)nf * bytes);
        /* between the first and the last issue every other cycle was throttled */
        CHECK_EQ(thr_end - thr0, end_cycle - c0 - (nf - 1u));
        printf("  %" PRIu64 " b/s, %u x %u B: 200 fetches issued back to back from cycle %" PRIu64 " to %" PRIu64
               " (%.4f cycles apart; bytes x cpb: %.4f)\n",
               c.fetch_bps, (unsigned)c.fetch_wqes, (unsigned)c.wqe_bytes, c0, end_cycle,
               (double)(end_cycle - c0) / (nf - 1u), (double)bytes * (double)cpb / 4294967296.0);
        eng_free(&e);
        free(evs);
        src_free(&s);
    }
}

/* ---- (e), (f): a mixed workload driven identically on two engines ---- */
typedef struct rec {
    rnic_work *w;
    uint32_t n, cap;
} rec;

static void rec_drain(rl *r, rec *o, uint64_t base)
{
    rnic_work w;
    while (rl_pop_tx(r, &w) == RNIC_OK) {
        if (o->n == o->cap) {
            o->cap = o->cap ? 2 * o->cap : 1024;
            o->w = (rnic_work *)realloc(o->w, o->cap * sizeof *o->w);
        }
        w.cycle -= base;
        o->w[o->n++] = w;
    }
}

#define MIX_NQ 16u

/* Runs `cycles` cycles from `start`, inputs at pseudo-random times (the same for every call with
 * the same seed); mode 0 ticks, mode 1 advances. Records (cycle relative to start) to *o. */
static void mixed_run(uint64_t seed, uint64_t start, int mode, uint64_t cycles, rec *o, rl_stats *st, uint64_t *thr,
                      uint64_t *wrap_fetch_gap)
{
    rl_config c;
    src s;
    eng e;
    tlog tl;
    rnic_prng g;
    ev *evs = (ev *)malloc(20000 * sizeof *evs);
    uint64_t done = 0, next_in = 0;
    uint32_t i;
    memset(&tl, 0, sizeof tl);
    tl.e = evs;
    tl.cap = 20000;
    rnic_prng_seed(&g, seed);
    src_init(&s, MIX_NQ, 0, 0);
    for (i = 0; i < MIX_NQ; i++)
        s.len[i] = (uint32_t)rnic_prng_log_range(&g, 1, 9000);
    rl_config_default(&c);
    c.max_flows = MIX_NQ;
    c.mtu = 1024;
    c.fetch_wqes = 4;
    c.wqe_bytes = 100;
    c.fetch_bps = 2500000000ull; /* 400 B per fetch at 2.5 Gb/s: 320 cycles */
    c.tx_depth = 8;
    c.start_cycle = start;
    c.source = source_fn;
    c.source_user = &s;
    c.trace = trace_fn;
    c.trace_user = &tl;
    if (!eng_init(&e, &c)) {
        CHECK(!"rl_init");
        free(evs);
        src_free(&s);
        return;
    }
    while (done < cycles) {
        uint64_t chunk;
        if (done == next_in) {
            uint32_t k, qp = (uint32_t)rnic_prng_below(&g, MIX_NQ);
            for (k = (uint32_t)rnic_prng_range(&g, 1, 3); k > 0; k--) {
                uint32_t what = (uint32_t)rnic_prng_below(&g, 10);
                if (what < 6) {
                    s.avail[qp] += (uint32_t)rnic_prng_range(&g, 1, 20);
                    rl_doorbell(e.r, qp);
                } else if (what < 9) {
                    rl_set_rate(e.r, qp,
                                rnic_prng_chance(&g, 1, 20) ? 0u
                                                            : rnic_prng_log_range(&g, 1000000000ull, c.link_bps));
                } else {
                    rl_set_credit(e.r, qp, rnic_prng_chance(&g, 3, 4));
                }
                qp = (uint32_t)rnic_prng_below(&g, MIX_NQ);
            }
            next_in = done + rnic_prng_log_range(&g, 1, 2000);
        }
        chunk = next_in - done;
        if (done + chunk > cycles)
            chunk = cycles - done;
        if (mode == 0) {
            uint64_t k;
            for (k = 0; k < chunk; k++) {
                rl_tick(e.r);
                if (k % 7u == 6u || k + 1 == chunk) /* pop now and then: the port fills sometimes */
                    rec_drain(e.r, o, start);
            }
        } else {
            uint64_t got = 0;
            while (got < chunk) { /* advance; it stops when the TX port fills */
                uint64_t ran = rl_advance(e.r, chunk - got);
                got += ran;
                rec_drain(e.r, o, start);
                if (ran == 0 && got < chunk) {
                    CHECK(!"rl_advance ran 0 cycles");
                    break;
                }
            }
        }
        done += chunk;
    }
    rec_drain(e.r, o, start);
    *st = *rl_get_stats(e.r);
    *thr = st->fetch_throttled;
    /* the largest gap between two consecutive fetch issues that straddle the 2^64 wrap */
    *wrap_fetch_gap = 0;
    for (i = 1; i < tl.n; i++)
        if (evs[i].kind == RL_TRACE_FETCH) {
            uint32_t j = i;
            while (j > 0 && evs[--j].kind != RL_TRACE_FETCH)
                ;
            if (evs[j].kind == RL_TRACE_FETCH && evs[i].cycle < evs[j].cycle) /* wrapped between them */
                *wrap_fetch_gap = evs[i].cycle - evs[j].cycle;
        }
    eng_free(&e);
    free(evs);
    src_free(&s);
}

static int recs_same(const rec *a, const rec *b)
{
    uint32_t i;
    if (a->n != b->n) {
        printf("  %u records vs %u\n", (unsigned)a->n, (unsigned)b->n);
        return 0;
    }
    for (i = 0; i < a->n; i++) {
        const rnic_work *x = &a->w[i], *y = &b->w[i];
        if (x->cycle != y->cycle || x->flow != y->flow || x->index != y->index || x->offset != y->offset ||
            x->len != y->len || x->flags != y->flags || x->addr != y->addr || x->raddr != y->raddr ||
            x->tag != y->tag || x->op != y->op || x->status != y->status || x->aux != y->aux) {
            printf("  record %u: cycle %" PRIu64 " flow %u index %u off %u len %u vs cycle %" PRIu64
                   " flow %u index %u off %u len %u\n",
                   (unsigned)i, x->cycle, (unsigned)x->flow, (unsigned)x->index, (unsigned)x->offset,
                   (unsigned)x->len, y->cycle, (unsigned)y->flow, (unsigned)y->index, (unsigned)y->offset,
                   (unsigned)y->len);
            return 0;
        }
    }
    return 1;
}

static void test_e_advance_equals_tick(void)
{
    uint64_t seed = test_seed(0xfe7c4e0ull);
    uint32_t run, total = 0;
    uint64_t thr_total = 0;
    for (run = 0; run < 6; run++) {
        rec a, b;
        rl_stats sa, sb;
        uint64_t ta, tb, gap;
        uint64_t ws = rnic_splitmix64(&seed);
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        mixed_run(ws, 0, 0, 60000, &a, &sa, &ta, &gap);
        mixed_run(ws, 0, 1, 60000, &b, &sb, &tb, &gap);
        CHECK(recs_same(&a, &b));
        CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        CHECK_EQ(ta, tb);
        CHECK(sa.fetch_throttled > 1000); /* the channel was busy with QPs waiting */
        if (memcmp(&sa, &sb, sizeof sa) != 0)
            printf("  run %u (seed %" PRIu64 "): stats differ: packets %" PRIu64 "/%" PRIu64 ", fetch_throttled %" PRIu64
                   "/%" PRIu64 ", fetch_bytes %" PRIu64 "/%" PRIu64 "\n",
                   (unsigned)run, ws, sa.packets, sb.packets, sa.fetch_throttled, sb.fetch_throttled, sa.fetch_bytes,
                   sb.fetch_bytes);
        total += a.n;
        thr_total += sa.fetch_throttled;
        free(a.w);
        free(b.w);
    }
    printf("  6 runs of 60,000 cycles: %u TX records, %" PRIu64 " throttled cycles, ticked = advanced\n",
           (unsigned)total, thr_total);
    CHECK(total > 1000);
}

static void test_f_wrap(void)
{
    uint64_t seed = test_seed(0xfe7c4f0ull), start = (uint64_t)0 - 30000u;
    uint32_t run, straddled = 0;
    for (run = 0; run < 6; run++) {
        rec a, b, c2;
        rl_stats sa, sb, sc;
        uint64_t ta, tb, tc, gap0, gapw, gapw2;
        uint64_t ws = rnic_splitmix64(&seed);
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        memset(&c2, 0, sizeof c2);
        mixed_run(ws, 0, 1, 60000, &a, &sa, &ta, &gap0);
        mixed_run(ws, start, 1, 60000, &b, &sb, &tb, &gapw);
        mixed_run(ws, start, 0, 60000, &c2, &sc, &tc, &gapw2);
        CHECK(recs_same(&a, &b)); /* advanced across the wrap = advanced from 0 */
        CHECK(recs_same(&a, &c2)); /* ticked across the wrap = advanced from 0 */
        CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        CHECK(memcmp(&sa, &sc, sizeof sa) == 0);
        CHECK(sa.fetch_throttled > 1000);
        /* consecutive fetches across the wrap: the channel holds each one for 319 cycles or more */
        straddled += gapw >= 319u && gapw < 100000u; /* 400 B x floor(0.8 x 2^32) = 319.99.. */
        CHECK_EQ(gapw, gapw2);
        free(a.w);
        free(b.w);
        free(c2.w);
    }
    printf("  6 runs across 2^64: %u with back-to-back fetches straddling the wrap\n", (unsigned)straddled);
    CHECK(straddled >= 3);
}

int main(void)
{
    RUN(test_c_config);
    RUN(test_d_parked_pop_charges_nothing);
    RUN(test_g_back_to_back_spacing);
    RUN(test_e_advance_equals_tick);
    RUN(test_f_wrap);
    RUN(test_a_small_wqes_1024);
    RUN(test_b_4k_wqes);
    return test_summary();
}
