/* libFuzzer harness for Tonic (transport.h): the sender tp_ and the receiver tp_rx_, for every
 * protocol (Reno, NewReno, SACK, RoCEv2 + DCQCN, IRN, NDP; the input picks one), wired through a
 * hostile channel decoded from the input. FUZZ_MAX_LEN 1024
 *
 * Two identical set-ups run side by side: pair A (sender + receiver) is ticked one cycle at a
 * time, pair B is driven only with tp_advance_to / tp_rx_advance_to. Both get the same inputs at
 * the same cycles ("sync points": every channel delivery, every API call the input makes), and at
 * every sync point their outputs, statistics, flow views and trace digests must be identical: so
 * next_event is never later than the next change a tick would make. Each idle tick of A (next
 * event later than now) must also change nothing observable.
 *
 * The channel between the pairs drops, duplicates, delays (so reorders), ECN-marks and trims
 * (NDP) segments and control packets; the input also forges control packets (stale, duplicate,
 * wrapped, never-sent acks, unknown flows, bad types) and data segments the receiver must refuse
 * or not deliver (unknown flows, out of window, old duplicates), and calls every API with hostile
 * arguments (NULL, zero and absurd lengths, unknown flows, full ports, bad pacer indices).
 *
 * Checked after every step, against a small model the harness keeps (messages and segments per
 * flow, what was sent, what was delivered), not against the engine's counters alone:
 *   - every refused call returns its code and bumps errors.by_cause[code] by one; an accepted call
 *     bumps nothing; refusals the engines make later (an unknown flow or a stale / never-sent ack at
 *     the sender's fixed stage, an unknown flow at the receiver) are predicted before the tick that
 *     makes them and checked after it;
 *   - every segment the sender emits is a piece of a pushed message with the right tag, offset,
 *     length, addresses and FIRST / LAST flags; new segments come once each, in order; a
 *     retransmission only of a segment sent before;
 *   - the receiver delivers each segment at most once, only segments that were sent, never a
 *     trimmed one, in order under go-back-N; its ACKs never acknowledge (cumulatively or by SACK)
 *     a segment it has not delivered;
 *   - a completion comes once per message, in push order, with the message's record, and (unless
 *     a forged packet the sender accepted acknowledged data) only once every byte of the message
 *     was delivered; at the end, with the channel made perfect for a while, a flow with unfinished
 *     messages still has an event coming (no dead lock);
 *   - the window: a new segment only while highest_sent - wnd_start < wnd_size, never more than W
 *     in flight; a retransmission only inside the window (from the trace, a model of wnd_start,
 *     wnd_size and highest_sent);
 *   - rate protocols (own pacer): a token bucket at the exact rate (as the trace reports it, the
 *     engine's clamp included), full at D = max_burst when the flow opens and capped at D, never
 *     goes below zero: no flow sends above its rate beyond the documented burst.
 * Any failed check aborts (FZ_CHECK), so libFuzzer keeps the input. */
#define RNIC_IMPLEMENTATION
#include "transport.h"
#include "fuzz.h"

/* The flow's cumulative ack, through tp_rx_flow_state. */
static rnic_err rx_expected(const tp_rx *r, uint32_t flow, uint32_t *out)
{
    tp_rx_flow_view v;
    rnic_err e = tp_rx_flow_state(r, flow, &v);
    *out = v.expected;
    return e;
}

#define FZT_FLOWS 4u            /* flows the model follows (ids above are valid-but-closed or unknown) */
#define FZT_SEGS 2048u          /* segment ids tracked per flow (more than a run can generate) */
#define FZT_MSGS 64u            /* messages per flow over a run */
#define FZT_CHAN 48u            /* packets in flight on the channel */
#define FZT_MIRROR 64u          /* input FIFOs mirrored by the harness (capacities are at most 16) */
#define FZT_MAX_CYCLES 400u     /* cycles per input, quiesce included: keeps an input fast */
#define FZT_QUIESCE 150u        /* cycles of perfect channel at the end, at least */
#define FZT_MEM_WORDS 16384u    /* 128 KB of engine memory per instance */

typedef struct fzt_msg {
    uint64_t tag, addr, raddr;
    uint32_t len, op, first_rel, nsegs, number, seg_size;
} fzt_msg;

typedef struct fzt_flow {
    bool open;          /* the sender's flow is open (model) */
    bool tainted;       /* a forged packet the sender accepted acknowledged data */
    bool rate_check;    /* the token-bucket check applies */
    uint32_t base_seq;  /* the first incarnation's init_seq: rel = id - base_seq */
    uint32_t seg_size, number;
    uint32_t data_end_rel, next_new_rel, delivered_prefix;
    fzt_msg msgs[FZT_MSGS];
    uint32_t nmsgs, compl_next;
    uint32_t pacer_index;  /* external pacer: the ring's free-running head */
    uint8_t sent[FZT_SEGS / 8u], delivered[FZT_SEGS / 8u];
    /* from the trace of the ticked sender */
    uint32_t m_wnd_start, m_wnd_size, m_highest;
    int64_t credit;        /* rate bucket, bytes * 8 * clock_hz */
    int64_t cap;
    uint64_t rate, credit_at;
} fzt_flow;

typedef struct fzt_pkt {
    rnic_work w;
    uint64_t due;
    uint32_t seq;       /* insertion order: ties leave in order */
    bool to_rx;         /* data for the receiver; else a control packet for the sender */
    bool forged;
} fzt_pkt;

typedef struct fzt_mirror { /* what the harness pushed into an engine's input FIFO, in order */
    rnic_work w[FZT_MIRROR];
    bool forged[FZT_MIRROR];
    uint32_t head, count;
} fzt_mirror;

typedef struct fzt_trace {
    uint64_t digest, events;
    int role;           /* 0 sender A, 1 sender B, 2 receiver A, 3 receiver B */
} fzt_trace;

typedef struct fzt {
    fz_in in;
    uint32_t proto_id;
    tp_protocol proto;
    tp_dcqcn_config dcqcn;
    tp_irn_config irn;
    tp_ndp_config ndp;
    tp_config cfg;
    tp_rx_config rcfg;
    tp tx[2];
    tp_rx rx[2];
    fzt_trace ttx[2], trx[2];
    uint32_t nflows;        /* flows modelled: min(max_flows, FZT_FLOWS) */
    fzt_flow fl[FZT_FLOWS];
    fzt_pkt chan[FZT_CHAN];
    uint32_t nchan, chan_seq;
    fzt_mirror tx_in, rx_in; /* pair A's input FIFOs (B's hold the same) */
    uint64_t start, base_delay;
    uint64_t cycles;        /* run so far */
    bool quiesce;
    uint32_t p_drop, p_dup, p_ecn, p_trim, jitter, rng; /* the channel */
    uint32_t drain_tx, drain_ack, drain_compl; /* records popped per sync point (0: none) */
    uint32_t step;          /* sync points at most this far apart while an engine has work */
    uint64_t tag_next;
} fzt;

static fzt S;
static uint64_t mem_tx[2][FZT_MEM_WORDS], mem_rx[2][FZT_MEM_WORDS];

/* ---- input decoding ---- */

/* A value in [lo, hi] (3 bytes at most for small ranges), or 1 in 16 times an extreme: 0, 1,
 * UINT64_MAX, UINT32_MAX, hi + 1, a power of two, raw bits. */
static uint64_t fzt_val(fz_in *in, uint64_t lo, uint64_t hi)
{
    uint8_t sel = fz_u8(in);
    uint64_t span = hi - lo, v;
    if ((sel & 15u) == 15u)
        return fz_extreme(in, (sel >> 4) & 7u, hi);
    if (span < 256u)
        v = fz_u8(in);
    else if (span < 65536u)
        v = fz_u16(in);
    else if (span < ((uint64_t)1 << 32))
        v = fz_u32(in);
    else
        v = fz_u64(in);
    return span == UINT64_MAX ? v : lo + v % (span + 1u);
}

static uint32_t fzt_u32(fz_in *in, uint64_t lo, uint64_t hi) { return (uint32_t)fzt_val(in, lo, hi); }

/* ---- small helpers ---- */

static bool cyc_before(uint64_t a, uint64_t b) { return (int64_t)(a - b) < 0; }

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static bool bit_get(const uint8_t *b, uint32_t i) { return (b[i >> 3] >> (i & 7u)) & 1u; }
static void bit_set(uint8_t *b, uint32_t i) { b[i >> 3] = (uint8_t)(b[i >> 3] | (1u << (i & 7u))); }

static bool equal_work(const rnic_work *a, const rnic_work *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Stats compared between the ticked and the fast-forwarded engine: all but the stall counters
 * (documented: they count only the cycles actually ticked). */
static tp_stats tx_stats_cmp(const tp *t)
{
    tp_stats s = *tp_get_stats(t);
    s.tx_stalls = 0;
    return s;
}

static tp_rx_stats rx_stats_cmp(const tp_rx *r)
{
    tp_rx_stats s = *tp_rx_get_stats(r);
    s.ack_stalls = 0;
    return s;
}

static uint64_t err_total(const rnic_err_stats *e)
{
    uint64_t n = 0;
    unsigned i;
    for (i = 0; i < (unsigned)RNIC_ERR__COUNT; i++)
        n += e->by_cause[i];
    return n;
}

/* A call returned rc; errors went from `before` to `after`: refused => exactly its cause +1;
 * accepted (or an empty output) => unchanged. */
static void check_counted(rnic_err rc, const rnic_err_stats *before, const rnic_err_stats *after, bool counted)
{
    if (rc != RNIC_OK && counted) {
        FZ_CHECK(after->by_cause[rc] == before->by_cause[rc] + 1u);
        FZ_CHECK(err_total(after) == err_total(before) + 1u);
    } else {
        FZ_CHECK(memcmp(after, before, sizeof *after) == 0);
    }
}

static bool rate_proto(void) { return S.proto.credit == TP_CREDIT_RATE; }

static void mirror_push(fzt_mirror *m, const rnic_work *w, bool forged)
{
    uint32_t at = (m->head + m->count) % FZT_MIRROR;
    FZ_CHECK(m->count < FZT_MIRROR);
    m->w[at] = *w;
    m->forged[at] = forged;
    m->count++;
}

static void mirror_pop(fzt_mirror *m)
{
    m->head = (m->head + 1u) % FZT_MIRROR;
    m->count--;
}

/* ---- the model's view of segments ---- */

static const fzt_msg *msg_of(const fzt_flow *f, uint32_t rel)
{
    uint32_t i;
    for (i = 0; i < f->nmsgs; i++)
        if (rel - f->msgs[i].first_rel < f->msgs[i].nsegs)
            return &f->msgs[i];
    return NULL;
}

/* A segment record (out of the sender, or delivered by the receiver) is the piece of its
 * message the model expects. Returns the segment's rel. */
static uint32_t check_piece(const rnic_work *w)
{
    const fzt_flow *f;
    const fzt_msg *m;
    uint32_t rel, off, len;
    FZ_CHECK(w->flow < S.nflows);
    f = &S.fl[w->flow];
    rel = w->index - f->base_seq;
    FZ_CHECK(rel < f->data_end_rel && rel < FZT_SEGS);
    m = msg_of(f, rel);
    FZ_CHECK(m != NULL);
    off = (rel - m->first_rel) * m->seg_size;
    len = m->len - off < m->seg_size ? m->len - off : m->seg_size;
    FZ_CHECK(w->tag == m->tag && w->op == m->op && w->aux == m->number);
    FZ_CHECK(w->offset == off && w->len == len);
    FZ_CHECK(w->addr == m->addr + off && w->raddr == m->raddr + off);
    FZ_CHECK(((w->flags & RNIC_WORK_FIRST) != 0) == (rel == m->first_rel));
    FZ_CHECK(((w->flags & RNIC_WORK_LAST) != 0) == (rel + 1u == m->first_rel + m->nsegs));
    FZ_CHECK(w->status == 0);
    return rel;
}

/* ---- trace: digest per engine, and the ticked sender's window and rate model ---- */

static void rate_accrue(fzt_flow *f, uint64_t now)
{
    uint64_t dt = now - f->credit_at;
    f->credit_at = now;
    if (!f->rate_check || f->credit >= f->cap)
        return;
    if (f->rate && dt >= (uint64_t)(f->cap - f->credit) / f->rate + 1u)
        f->credit = f->cap;
    else
        f->credit += (int64_t)(dt * f->rate);
    if (f->credit > f->cap)
        f->credit = f->cap;
}

static void on_trace(void *user, const rnic_trace_event *ev)
{
    fzt_trace *tr = (fzt_trace *)user;
    fzt_flow *f;
    tr->events++;
    tr->digest = mix(mix(mix(mix(mix(tr->digest, ev->cycle), ((uint64_t)ev->engine << 16) | ev->kind), ev->id), ev->a), ev->b);
    if (tr->role != 0 || ev->id >= S.nflows)
        return;
    f = &S.fl[ev->id];
    switch (ev->kind) {
    case TP_TRACE_ACK: /* an accepted control packet: wnd_start never goes back */
        FZ_CHECK((int32_t)((uint32_t)ev->a - f->m_wnd_start) >= 0);
        f->m_wnd_start = (uint32_t)ev->a;
        FZ_CHECK((int32_t)(f->m_highest - f->m_wnd_start) >= 0);
        break;
    case TP_TRACE_WINDOW:
        FZ_CHECK(ev->b == f->m_wnd_size);
        FZ_CHECK(ev->a >= 1u && ev->a <= S.cfg.window);
        f->m_wnd_size = (uint32_t)ev->a;
        break;
    case TP_TRACE_GENERATE: {
        uint32_t s = (uint32_t)ev->a, sent = f->m_highest - f->m_wnd_start;
        if (ev->b == 0) { /* new data: only while the window has room */
            FZ_CHECK(s == f->m_highest);
            FZ_CHECK(sent < f->m_wnd_size);
            f->m_highest = s + 1u;
            FZ_CHECK(f->m_highest - f->m_wnd_start <= S.cfg.window);
        } else { /* a retransmission: inside the sent part of the window */
            uint32_t d = s - f->m_wnd_start;
            FZ_CHECK(d < sent && d < f->m_wnd_size);
        }
        break;
    }
    case RNIC_TRACE_RATE:
        FZ_CHECK(ev->a == 0 || (ev->a >= S.cfg.min_rate_bps && ev->a <= S.cfg.link_bps));
        rate_accrue(f, ev->cycle);
        f->rate = ev->a;
        break;
    case RNIC_TRACE_OUT: /* a segment left through the engine's own pacer */
        if (f->rate_check) {
            rate_accrue(f, ev->cycle);
            f->credit -= (int64_t)((ev->b & 0xffffffffu) * 8u * S.cfg.clock_hz);
            FZ_CHECK(f->credit >= 0);
        }
        break;
    default: break;
    }
}

/* ---- set-up ---- */

static uint32_t decode_window(fz_in *in)
{
    uint64_t v = fzt_val(in, 0, 2);
    return v <= 2u ? 64u << v : (uint32_t)v;
}

static void decode_protocol(void)
{
    fz_in *in = &S.in;
    const tp_protocol *base[6];
    base[0] = tp_protocol_reno();
    base[1] = tp_protocol_newreno();
    base[2] = tp_protocol_sack();
    base[3] = tp_protocol_dcqcn();
    base[4] = tp_protocol_irn();
    base[5] = tp_protocol_ndp();
    S.proto = *base[S.proto_id];
    if (S.proto_id == 3) {
        tp_dcqcn_preset(&S.dcqcn, fz_u8(in) & 1u ? TP_DCQCN_MELLANOX : TP_DCQCN_PAPER);
        S.dcqcn.alpha_period_ns = fzt_u32(in, 1, 20000);
        S.dcqcn.rate_period_ns = fzt_u32(in, 1, 20000);
        {
            uint32_t dec = fzt_u32(in, 1, 20000); /* read always: the input's layout does not depend on the preset */
            if (S.dcqcn.decrease_period_ns)
                S.dcqcn.decrease_period_ns = dec;
        }
        S.dcqcn.decrease_delay_ns = fzt_u32(in, 0, 10);
        S.dcqcn.byte_counter = fzt_val(in, 0, 20000);
        S.dcqcn.f = fzt_u32(in, 1, 8);
        S.dcqcn.flags = fzt_u32(in, 0, TP_DCQCN_F__ALL);
        S.dcqcn.rai_bps = fzt_val(in, 0, 10000000000ull);
        S.dcqcn.rhai_bps = fzt_val(in, 0, 10000000000ull);
        S.dcqcn.rate_floor_bps = fzt_val(in, 100000, 10000000000ull);
        S.dcqcn.g = fzt_u32(in, 1, TP_DCQCN_ONE - 1u);
        S.proto.config = &S.dcqcn;
    } else if (S.proto_id == 4) {
        tp_irn_config_default(&S.irn);
        S.irn.rto_low_ns = (uint64_t)fzt_u32(in, 1, 10) * 1000u;
        S.irn.rto_high_ns = S.irn.rto_low_ns + (uint64_t)fzt_u32(in, 0, 20) * 1000u;
        S.irn.rto_low_pkts = fzt_u32(in, 0, 8);
        S.irn.bdp_bytes = fzt_u32(in, 0, 20000);
        S.irn.rate_bps = fzt_val(in, 0, 100000000000ull);
        S.proto.config = &S.irn;
    } else if (S.proto_id == 5) {
        tp_ndp_config_default(&S.ndp);
        S.ndp.init_window = fzt_u32(in, 1, 16);
        S.ndp.window = fzt_u32(in, 0, 64);
        S.ndp.rto_ns = (uint64_t)fzt_u32(in, 0, 20) * 1000u;
        S.proto.config = &S.ndp;
    }
}

/* An invalid config must be refused everywhere with a code; a valid one too large for the
 * harness's buffers must be refused by tp_init with RNIC_ENOSPC. Returns whether to run. */
static bool setup_engines(void)
{
    const char *field = NULL;
    rnic_err ce = tp_config_check(&S.cfg, &field), re;
    size_t need = tp_mem_size(&S.cfg), rneed;
    int i;
    FZ_CHECK((ce == RNIC_OK) == (need != 0));
    FZ_CHECK((ce == RNIC_OK) == (field == NULL));
    if (ce != RNIC_OK) {
        FZ_CHECK(tp_init(&S.tx[0], &S.cfg, mem_tx[0], sizeof mem_tx[0]) == RNIC_EINVAL);
        return false;
    }
    if (need > sizeof mem_tx[0] || S.cfg.max_flows > 64u || S.cfg.incoming_depth > 16u ||
        S.cfg.segment_depth > 16u || S.cfg.completion_depth > 16u || S.cfg.message_depth > 64u) {
        if (need > sizeof mem_tx[0])
            FZ_CHECK(tp_init(&S.tx[0], &S.cfg, mem_tx[0], sizeof mem_tx[0]) == RNIC_ENOSPC);
        FZ_CHECK(tp_init(&S.tx[0], &S.cfg, mem_tx[0], need - 1u) == RNIC_ENOSPC);
        return false;
    }
    re = tp_rx_config_check(&S.rcfg, &field);
    rneed = tp_rx_mem_size(&S.rcfg);
    FZ_CHECK((re == RNIC_OK) == (rneed != 0));
    if (re != RNIC_OK) {
        FZ_CHECK(field != NULL);
        FZ_CHECK(tp_rx_init(&S.rx[0], &S.rcfg, mem_rx[0], sizeof mem_rx[0]) == RNIC_EINVAL);
        return false;
    }
    if (rneed > sizeof mem_rx[0] || S.rcfg.max_flows > 64u || S.rcfg.segment_depth > 16u ||
        S.rcfg.ack_depth > 16u || S.rcfg.delivered_depth > 16u) {
        FZ_CHECK(tp_rx_init(&S.rx[0], &S.rcfg, mem_rx[0], rneed - 1u) == RNIC_ENOSPC);
        return false;
    }
    FZ_CHECK(tp_init(&S.tx[0], &S.cfg, (unsigned char *)mem_tx[0] + 1, need) == RNIC_EINVAL); /* misaligned */
    for (i = 0; i < 2; i++) {
        tp_config c = S.cfg;
        tp_rx_config rc = S.rcfg;
        S.ttx[i].role = i;
        S.trx[i].role = 2 + i;
        c.trace = on_trace;
        c.trace_user = &S.ttx[i];
        rc.trace = on_trace;
        rc.trace_user = &S.trx[i];
        FZ_CHECK(tp_init(&S.tx[i], &c, mem_tx[i], need) == RNIC_OK);
        FZ_CHECK(tp_rx_init(&S.rx[i], &rc, mem_rx[i], rneed) == RNIC_OK);
        FZ_CHECK(tp_now(&S.tx[i]) == S.start && tp_rx_now(&S.rx[i]) == S.start);
    }
    return true;
}

/* Opens sender flow f (both instances) with params p; the model follows. */
static void open_flow(uint32_t f, const tp_flow_config *p, uint32_t expect_seq)
{
    fzt_flow *m = &S.fl[f];
    rnic_err rc[2];
    int i;
    tp_stats before = *tp_get_stats(&S.tx[0]);
    bool valid = p->seg_size >= 1u && p->seg_size <= 65536u && p->init_wnd >= 1u && p->rto_ns >= 1u &&
                 (!rate_proto() || p->max_burst == 0 || (p->max_burst >= p->seg_size && p->max_burst <= ((uint64_t)1 << 40)));
    /* the window and rate model start where tp_flow_open starts the flow, before its trace */
    m->m_wnd_start = m->m_highest = p->init_seq;
    m->m_wnd_size = 1;
    m->rate = 0;
    m->credit_at = tp_now(&S.tx[0]);
    {
        uint64_t burst = p->max_burst ? p->max_burst : 2u * (uint64_t)p->seg_size;
        m->rate_check = rate_proto() && !S.cfg.external_pacer && burst <= ((uint64_t)1 << 24);
        m->cap = m->rate_check ? (int64_t)(burst * 8u * S.cfg.clock_hz) : 0;
        m->credit = m->cap;
    }
    for (i = 0; i < 2; i++)
        rc[i] = tp_flow_open(&S.tx[i], f, p);
    FZ_CHECK(rc[0] == rc[1]);
    FZ_CHECK(rc[0] == (m->open ? RNIC_EEXIST : valid ? RNIC_OK : RNIC_EINVAL));
    check_counted(rc[0], &before.errors, &tp_get_stats(&S.tx[0])->errors, true);
    if (rc[0] == RNIC_OK) {
        FZ_CHECK(p->init_seq == expect_seq);
        m->open = true;
        m->seg_size = p->seg_size;
        m->number = 0;
        m->pacer_index = 0;
    }
}

static void decode_params(tp_flow_config *p)
{
    fz_in *in = &S.in;
    tp_flow_config_default(p);
    p->seg_size = fzt_u32(in, 1, 300);
    p->init_wnd = fzt_u32(in, 1, 64);
    p->init_rate_bps = fzt_val(in, 0, S.cfg.link_bps);
    p->init_credit = fzt_val(in, 0, 4096);
    p->max_burst = fzt_val(in, 0, 4096);
    p->rto_ns = (uint64_t)fzt_u32(in, 1, 8) * 1000u;
    p->param[0] = fzt_u32(in, 0, 64);
}

/* ---- the channel ---- */

static void chan_put(const rnic_work *w, bool to_rx, bool forged, uint64_t delay)
{
    fzt_pkt *p;
    if (S.nchan == FZT_CHAN) /* the wire is full: lost */
        return;
    p = &S.chan[S.nchan++];
    p->w = *w;
    p->to_rx = to_rx;
    p->forged = forged;
    p->due = tp_now(&S.tx[0]) + (delay ? delay : 1u); /* never the cycle it left: that sync point is done */
    p->seq = S.chan_seq++;
}

/* The wire's behaviour: chances out of 256, drawn from a PRNG the input seeds (so a crafted
 * input keeps its meaning whatever the engines emit), and changed by the input at any point. */
static void chan_decode(void)
{
    fz_in *in = &S.in;
    S.p_drop = fz_u8(in);
    S.p_dup = fz_u8(in);
    S.p_ecn = fz_u8(in);
    S.p_trim = fz_u8(in);
    S.jitter = fz_u8(in) & 31u;
    S.rng = fz_u32(in) | 1u;
}

static uint32_t chan_rand(void) /* xorshift32 */
{
    S.rng ^= S.rng << 13;
    S.rng ^= S.rng >> 17;
    S.rng ^= S.rng << 5;
    return S.rng;
}

/* A record leaves an engine onto the wire: dropped, duplicated, delayed (so reordered),
 * ECN-marked (data: CE; an ACK: an echo) or trimmed (data: only the header arrives). */
static void chan_send(const rnic_work *w, bool to_rx)
{
    uint32_t r = chan_rand();
    uint64_t delay = S.base_delay + (S.jitter ? (r >> 24) % (S.jitter + 1u) : 0u);
    rnic_work c = *w;
    if ((r & 0xffu) < S.p_drop)
        return;
    if (((r >> 8) & 0xffu) < S.p_ecn)
        c.flags |= TP_WORK_ECN;
    if (to_rx && ((r >> 16) & 0xffu) < S.p_trim)
        c.flags |= TP_WORK_TRIMMED;
    chan_put(&c, to_rx, false, delay);
    if ((chan_rand() & 0xffu) < S.p_dup) /* the copy comes later */
        chan_put(&c, to_rx, false, delay + 1u + (chan_rand() & 15u));
}

static uint64_t chan_next_due(bool *any)
{
    uint64_t best = 0;
    uint32_t i;
    *any = false;
    for (i = 0; i < S.nchan; i++)
        if (!*any || cyc_before(S.chan[i].due, best)) {
            best = S.chan[i].due;
            *any = true;
        }
    return best;
}

/* ---- pushing into the engines (both instances, same result) ---- */

static void push_rx(const rnic_work *w, bool forged)
{
    rnic_err rc[2];
    tp_rx_stats before = *tp_rx_get_stats(&S.rx[0]);
    uint32_t space = tp_rx_space_segment(&S.rx[0]);
    int i;
    FZ_CHECK(space == tp_rx_space_segment(&S.rx[1]));
    for (i = 0; i < 2; i++)
        rc[i] = tp_rx_push_segment(&S.rx[i], w);
    FZ_CHECK(rc[0] == rc[1]);
    FZ_CHECK(rc[0] == (!w ? RNIC_EINVAL : space == 0 ? RNIC_EBUSY : RNIC_OK));
    check_counted(rc[0], &before.errors, &tp_rx_get_stats(&S.rx[0])->errors, true);
    if (rc[0] == RNIC_OK) {
        FZ_CHECK(tp_rx_space_segment(&S.rx[0]) == space - 1u);
        mirror_push(&S.rx_in, w, forged);
    }
}

static void push_incoming(const rnic_work *w, bool forged)
{
    rnic_err rc[2];
    tp_stats before = *tp_get_stats(&S.tx[0]);
    uint32_t space = tp_space_incoming(&S.tx[0]);
    int i;
    for (i = 0; i < 2; i++)
        rc[i] = tp_push_incoming(&S.tx[i], w);
    FZ_CHECK(rc[0] == rc[1]);
    FZ_CHECK(rc[0] == (!w || TP_WORK_PKT_TYPE(w->flags) < TP_PKT_ACK || TP_WORK_PKT_TYPE(w->flags) > TP_PKT_GRANT ? RNIC_EINVAL : space == 0 ? RNIC_EBUSY : RNIC_OK));
    check_counted(rc[0], &before.errors, &tp_get_stats(&S.tx[0])->errors, true);
    if (rc[0] == RNIC_OK)
        mirror_push(&S.tx_in, w, forged);
}

/* Channel packets due now go into the engines (both at the same cycle). */
static void chan_deliver(void)
{
    uint64_t now = tp_now(&S.tx[0]);
    for (;;) {
        uint32_t i, pick = S.nchan;
        fzt_pkt p;
        for (i = 0; i < S.nchan; i++)
            if (!cyc_before(now, S.chan[i].due) &&
                (pick == S.nchan || cyc_before(S.chan[i].due, S.chan[pick].due) ||
                 (S.chan[i].due == S.chan[pick].due && S.chan[i].seq < S.chan[pick].seq)))
                pick = i;
        if (pick == S.nchan)
            return;
        FZ_CHECK(S.chan[pick].due == now); /* sync points stop at every due cycle */
        p = S.chan[pick];
        S.chan[pick] = S.chan[--S.nchan];
        if (p.to_rx)
            push_rx(&p.w, p.forged);
        else
            push_incoming(&p.w, p.forged);
    }
}

/* ---- ticking pair A one cycle, with its checks ---- */

/* What an idle tick must leave alone (cheap: it runs every idle cycle; the flow views are
 * compared between the pairs at every sync point). */
typedef struct fzt_snap {
    tp_stats st;
    uint64_t events;
    uint64_t spaces;
} fzt_snap;

static void snap_tx(fzt_snap *s)
{
    uint32_t f;
    s->st = *tp_get_stats(&S.tx[0]);
    s->st.cycles = 0;
    s->st.tx_stalls = 0;
    s->events = S.ttx[0].events;
    s->spaces = tp_space_incoming(&S.tx[0]);
    for (f = 0; f < S.nflows; f++)
        s->spaces = (s->spaces << 8) ^ tp_flow_message_room(&S.tx[0], f);
}

/* What the fixed stage will do with the packet at the head of the incoming FIFO. */
static rnic_err predict_incoming(const rnic_work *w, bool forged)
{
    tp_flow_view v;
    uint32_t d;
    if (w->flow >= S.cfg.max_flows || tp_flow_state(&S.tx[0], w->flow, &v) != RNIC_OK)
        return RNIC_ENOENT;
    if (TP_WORK_PKT_TYPE(w->flags) == TP_PKT_CNP)
        return RNIC_OK;
    if ((int32_t)(w->index - v.wnd_start) < 0)
        return RNIC_ESTALE;
    d = w->index - v.wnd_start;
    if (d > v.highest_sent - v.wnd_start)
        return RNIC_ERANGE;
    /* a forged packet that acknowledges data the receiver may not have: the sender will believe it */
    if (forged && w->flow < S.nflows && (d > 0 || w->len > 0))
        S.fl[w->flow].tainted = true;
    return RNIC_OK;
}

static void tick_tx_a(void)
{
    tp *t = &S.tx[0];
    uint64_t now = tp_now(t), ne = tp_next_event(t);
    bool idle = ne != now, have = S.tx_in.count > 0;
    rnic_err predicted = RNIC_OK;
    rnic_err_stats e0 = tp_get_stats(t)->errors;
    uint64_t stale0 = tp_get_stats(t)->errors.by_cause[RNIC_ESTALE];
    uint32_t space0 = tp_space_incoming(t);
    fzt_snap s0, s1;
    FZ_CHECK(ne == RNIC_NEVER || !cyc_before(ne, now));
    if (have)
        predicted = predict_incoming(&S.tx_in.w[S.tx_in.head], S.tx_in.forged[S.tx_in.head]);
    if (idle)
        snap_tx(&s0);
    tp_tick(t);
    FZ_CHECK(tp_now(t) == now + 1u);
    /* the fixed stage takes one packet every cycle it has one */
    FZ_CHECK(tp_space_incoming(t) == space0 + (have ? 1u : 0u));
    FZ_CHECK(!have || !idle);
    if (have) {
        mirror_pop(&S.tx_in);
        check_counted(predicted, &e0, &tp_get_stats(t)->errors, true);
        FZ_CHECK(tp_get_stats(t)->errors.by_cause[RNIC_ESTALE] == stale0 + (predicted == RNIC_ESTALE));
    } else {
        FZ_CHECK(memcmp(&e0, &tp_get_stats(t)->errors, sizeof e0) == 0);
    }
    if (idle) { /* next_event promised nothing happens this cycle */
        snap_tx(&s1);
        FZ_CHECK(memcmp(&s0.st, &s1.st, sizeof s0.st) == 0 && s0.events == s1.events && s0.spaces == s1.spaces);
    }
}

static void tick_rx_a(void)
{
    tp_rx *r = &S.rx[0];
    uint64_t now = tp_rx_now(r), ne = tp_rx_next_event(r);
    bool idle = ne != now, consumed, unknown = false;
    rnic_err_stats e0 = tp_rx_get_stats(r)->errors;
    uint32_t space0 = tp_rx_space_segment(r);
    tp_rx_stats s0 = rx_stats_cmp(r), s1;
    uint64_t ev0 = S.trx[0].events;
    FZ_CHECK(ne == RNIC_NEVER || !cyc_before(ne, now));
    if (S.rx_in.count) {
        const rnic_work *w = &S.rx_in.w[S.rx_in.head];
        uint32_t exp;
        unknown = w->flow >= S.rcfg.max_flows || rx_expected(r, w->flow, &exp) != RNIC_OK;
    }
    tp_rx_tick(r);
    FZ_CHECK(tp_rx_now(r) == now + 1u);
    consumed = tp_rx_space_segment(r) == space0 + 1u;
    FZ_CHECK(consumed || tp_rx_space_segment(r) == space0);
    FZ_CHECK(!consumed || !idle); /* a segment taken was an event */
    if (consumed) {
        FZ_CHECK(S.rx_in.count > 0);
        mirror_pop(&S.rx_in);
    }
    check_counted(consumed && unknown ? RNIC_ENOENT : RNIC_OK, &e0, &tp_rx_get_stats(r)->errors, true);
    if (idle) {
        s1 = rx_stats_cmp(r);
        s0.cycles = s1.cycles = 0;
        FZ_CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
        FZ_CHECK(S.trx[0].events == ev0);
    }
}

/* ---- comparing the pairs, and taking their outputs ---- */

static void compare_pairs(void)
{
    tp_stats a = tx_stats_cmp(&S.tx[0]), b = tx_stats_cmp(&S.tx[1]);
    tp_rx_stats ra = rx_stats_cmp(&S.rx[0]), rb = rx_stats_cmp(&S.rx[1]);
    uint32_t f;
    FZ_CHECK(tp_now(&S.tx[0]) == tp_now(&S.tx[1]));
    FZ_CHECK(tp_rx_now(&S.rx[0]) == tp_rx_now(&S.rx[1]));
    FZ_CHECK(tp_now(&S.tx[0]) == tp_rx_now(&S.rx[0]));
    FZ_CHECK(memcmp(&a, &b, sizeof a) == 0);
    FZ_CHECK(memcmp(&ra, &rb, sizeof ra) == 0);
    FZ_CHECK(S.ttx[0].digest == S.ttx[1].digest && S.ttx[0].events == S.ttx[1].events);
    FZ_CHECK(S.trx[0].digest == S.trx[1].digest && S.trx[0].events == S.trx[1].events);
    /* next_event itself may differ: the rtx and delayed-ACK heaps are lazy (engine_contract.md),
     * and a stale entry the ticked engine tidied at a cycle the other skipped (e.g. while its ACK
     * port was full) makes the skipping one answer earlier. Both are lower bounds: never in the
     * past, never later than a change (tick_*_a's idle checks); the records must be identical. */
    {
        uint64_t now = tp_now(&S.tx[0]), e[4];
        int k;
        e[0] = tp_next_event(&S.tx[0]);
        e[1] = tp_next_event(&S.tx[1]);
        e[2] = tp_rx_next_event(&S.rx[0]);
        e[3] = tp_rx_next_event(&S.rx[1]);
        for (k = 0; k < 4; k++)
            FZ_CHECK(e[k] == RNIC_NEVER || !cyc_before(e[k], now));
    }
    for (f = 0; f < S.nflows; f++) {
        tp_flow_view va, vb;
        rnic_err ea = tp_flow_state(&S.tx[0], f, &va), eb = tp_flow_state(&S.tx[1], f, &vb);
        uint32_t xa, xb;
        FZ_CHECK(ea == eb && va.open == vb.open && (ea == RNIC_OK) == S.fl[f].open);
        if (ea == RNIC_OK) {
            FZ_CHECK(memcmp(va.ctx, vb.ctx, S.proto.ctx_size) == 0);
            va.ctx = vb.ctx = NULL;
            FZ_CHECK(memcmp(&va, &vb, sizeof va) == 0);
            FZ_CHECK(va.data_end - S.fl[f].base_seq == S.fl[f].data_end_rel);
            FZ_CHECK(va.highest_sent - va.wnd_start <= S.cfg.window);
        }
        FZ_CHECK(rx_expected(&S.rx[0], f, &xa) == rx_expected(&S.rx[1], f, &xb) && xa == xb);
    }
}

/* One delivered record: each segment at most once, only what was sent, in order under
 * go-back-N, never a trimmed one. */
static void take_delivered(const rnic_work *w)
{
    fzt_flow *f;
    uint32_t rel = check_piece(w);
    f = &S.fl[w->flow];
    FZ_CHECK(!(w->flags & TP_WORK_TRIMMED));
    FZ_CHECK(bit_get(f->sent, rel));
    FZ_CHECK(!bit_get(f->delivered, rel));
    if (S.rcfg.go_back_n)
        FZ_CHECK(rel == f->delivered_prefix);
    bit_set(f->delivered, rel);
    while (f->delivered_prefix < FZT_SEGS && bit_get(f->delivered, f->delivered_prefix))
        f->delivered_prefix++;
}

/* Pop one record from a port of both instances; they must agree. */
static rnic_err pop_both(int port, rnic_work *out)
{
    rnic_work b, pk;
    rnic_err e[2], ep;
    memset(&pk, 0, sizeof pk);
    switch (port) {
    case 0: ep = tp_peek_segment(&S.tx[0], &pk); e[0] = tp_pop_segment(&S.tx[0], out); e[1] = tp_pop_segment(&S.tx[1], &b); break;
    case 1: ep = tp_peek_completion(&S.tx[0], &pk); e[0] = tp_pop_completion(&S.tx[0], out); e[1] = tp_pop_completion(&S.tx[1], &b); break;
    case 2: ep = tp_rx_peek_ack(&S.rx[0], &pk); e[0] = tp_rx_pop_ack(&S.rx[0], out); e[1] = tp_rx_pop_ack(&S.rx[1], &b); break;
    default: ep = tp_rx_peek_delivered(&S.rx[0], &pk); e[0] = tp_rx_pop_delivered(&S.rx[0], out); e[1] = tp_rx_pop_delivered(&S.rx[1], &b); break;
    }
    FZ_CHECK(e[0] == e[1] && ep == e[0]);
    FZ_CHECK(e[0] == RNIC_OK || e[0] == RNIC_EEMPTY);
    if (e[0] == RNIC_OK)
        FZ_CHECK(equal_work(out, &b) && equal_work(out, &pk));
    return e[0];
}

static void drain_delivered(void)
{
    rnic_work w;
    while (pop_both(3, &w) == RNIC_OK)
        take_delivered(&w);
}

/* An ACK / NACK / CNP / GRANT from the receiver acknowledges only delivered segments. */
static void check_ack(const rnic_work *w)
{
    fzt_flow *f;
    int32_t cum;
    uint32_t i;
    FZ_CHECK(TP_WORK_PKT_TYPE(w->flags) >= TP_PKT_ACK && TP_WORK_PKT_TYPE(w->flags) <= TP_PKT_GRANT && w->op == 0);
    FZ_CHECK(w->flow < S.rcfg.max_flows);
    if (w->flow >= S.nflows)
        return;
    f = &S.fl[w->flow];
    cum = (int32_t)(w->index - f->base_seq);
    FZ_CHECK(cum >= 0);
    if ((uint32_t)cum > f->delivered_prefix)
        drain_delivered(); /* its segments' records may still wait in the delivered port */
    FZ_CHECK((uint32_t)cum <= f->delivered_prefix);
    if (TP_WORK_PKT_TYPE(w->flags) == TP_PKT_CNP || TP_WORK_PKT_TYPE(w->flags) == TP_PKT_GRANT || (w->flags & TP_WORK_TRIMMED)) {
        FZ_CHECK(w->len == 0);
        return;
    }
    FZ_CHECK(w->len <= S.rcfg.window);
    for (i = 0; i < w->len; i++) {
        uint32_t rel = w->offset + i - f->base_seq;
        if (rel >= FZT_SEGS || !bit_get(f->delivered, rel))
            drain_delivered();
        FZ_CHECK(rel < FZT_SEGS && bit_get(f->delivered, rel));
    }
}

static void take_segment(const rnic_work *w)
{
    fzt_flow *f;
    uint32_t rel = check_piece(w);
    f = &S.fl[w->flow];
    if (w->flags & TP_WORK_RTX) {
        FZ_CHECK(bit_get(f->sent, rel));
    } else {
        FZ_CHECK(rel == f->next_new_rel);
        FZ_CHECK(!bit_get(f->sent, rel));
        f->next_new_rel++;
        bit_set(f->sent, rel);
    }
    chan_send(w, true);
}

static void take_completion(const rnic_work *w)
{
    fzt_flow *f;
    const fzt_msg *m;
    uint32_t k;
    FZ_CHECK(w->flow < S.nflows);
    f = &S.fl[w->flow];
    FZ_CHECK(f->compl_next < f->nmsgs);
    m = &f->msgs[f->compl_next++];
    FZ_CHECK(w->tag == m->tag && w->len == m->len && w->addr == m->addr && w->raddr == m->raddr && w->op == m->op);
    FZ_CHECK(w->aux == m->number && w->index == f->base_seq + m->first_rel);
    FZ_CHECK(w->flags == (RNIC_WORK_FIRST | RNIC_WORK_LAST) && w->status == RNIC_OK && w->offset == 0);
    if (f->tainted)
        return;
    /* every byte of the message was delivered (once: take_delivered) before its completion */
    for (k = 0; k < m->nsegs; k++) {
        uint32_t rel = m->first_rel + k;
        if (!bit_get(f->delivered, rel))
            drain_delivered();
        FZ_CHECK(rel < FZT_SEGS && bit_get(f->delivered, rel));
    }
}

/* External pacer: the harness is the pacer; it sends what the rings hold, in order. */
static void pacer_take(uint32_t max)
{
    uint32_t f, n = 0;
    for (f = 0; f < S.nflows && n < max; f++) {
        rnic_work w[2];
        while (n < max && S.fl[f].open && tp_pacer_source(&S.tx[0], f, S.fl[f].pacer_index, &w[0], 1) == 1) {
            rnic_err e[2];
            tp_stats before = *tp_get_stats(&S.tx[0]);
            FZ_CHECK(tp_pacer_source(&S.tx[1], f, S.fl[f].pacer_index, &w[1], 1) == 1 && equal_work(&w[0], &w[1]));
            e[0] = tp_push_consumed(&S.tx[0], &(rnic_work){.flow = f, .index = S.fl[f].pacer_index});
            e[1] = tp_push_consumed(&S.tx[1], &(rnic_work){.flow = f, .index = S.fl[f].pacer_index});
            FZ_CHECK(e[0] == RNIC_OK && e[1] == RNIC_OK);
            check_counted(RNIC_OK, &before.errors, &tp_get_stats(&S.tx[0])->errors, true);
            S.fl[f].pacer_index++;
            take_segment(&w[0]);
            n++;
        }
    }
}

static void take_outputs(void)
{
    rnic_work w;
    uint32_t n;
    for (n = 0; n < S.drain_tx && pop_both(0, &w) == RNIC_OK; n++)
        take_segment(&w);
    if (S.cfg.external_pacer)
        pacer_take(S.drain_tx);
    for (n = 0; n < S.drain_ack && pop_both(2, &w) == RNIC_OK; n++) {
        check_ack(&w);
        chan_send(&w, false);
    }
    for (n = 0; n < S.drain_compl && pop_both(1, &w) == RNIC_OK; n++)
        take_completion(&w);
    if (S.quiesce)
        drain_delivered();
}

/* ---- moving time ---- */

/* Pair B jumps, pair A ticks every cycle to the same point; B may stop early when an output
 * port fills (the contract), A then catches up to where B stopped. */
static void run_until(uint64_t target)
{
    while (tp_now(&S.tx[1]) != target) {
        uint64_t from = tp_now(&S.tx[1]), ran = tp_advance_to(&S.tx[1], target);
        FZ_CHECK(ran > 0 && ran == tp_now(&S.tx[1]) - from);
        while (tp_now(&S.tx[0]) != tp_now(&S.tx[1]))
            tick_tx_a();
    }
    while (tp_rx_now(&S.rx[1]) != target) {
        uint64_t from = tp_rx_now(&S.rx[1]), ran = tp_rx_advance_to(&S.rx[1], target);
        FZ_CHECK(ran > 0 && ran == tp_rx_now(&S.rx[1]) - from);
        while (tp_rx_now(&S.rx[0]) != tp_rx_now(&S.rx[1]))
            tick_rx_a();
    }
}

/* Run `cycles` more, stopping at every channel delivery and, while an engine has work, every
 * `step` cycles, else right after its next event (a sync point: deliver, compare, take outputs). */
static bool all_done(void)
{
    uint32_t f;
    rnic_work w;
    if (S.nchan || tp_peek_segment(&S.tx[1], &w) == RNIC_OK || tp_rx_peek_ack(&S.rx[1], &w) == RNIC_OK)
        return false;
    for (f = 0; f < S.nflows; f++)
        if (S.fl[f].open && S.fl[f].compl_next < S.fl[f].nmsgs)
            return false;
    return true;
}

static void run_for(uint64_t cycles)
{
    uint64_t end;
    if (cycles > FZT_MAX_CYCLES - S.cycles)
        cycles = FZT_MAX_CYCLES - S.cycles;
    end = tp_now(&S.tx[0]) + cycles;
    for (;;) {
        bool any;
        uint64_t now = tp_now(&S.tx[0]), next = chan_next_due(&any), stop;
        chan_deliver();
        compare_pairs();
        take_outputs();
        if (now == end || (S.quiesce && all_done()))
            break;
        next = chan_next_due(&any);
        stop = any && cyc_before(next, end) ? next : end;
        {
            uint64_t et = tp_next_event(&S.tx[1]), er = tp_rx_next_event(&S.rx[1]), e, at;
            e = et == RNIC_NEVER || (er != RNIC_NEVER && cyc_before(er, et)) ? er : et;
            at = e == RNIC_NEVER ? end : cyc_before(e + 1u, now + S.step) ? now + S.step : e + 1u;
            if (e != RNIC_NEVER && cyc_before(at, stop) && cyc_before(now, at))
                stop = at;
        }
        if (stop == now) /* a record sent now with no delay is due now: next cycle */
            stop = now + 1u;
        S.cycles += stop - now;
        run_until(stop);
    }
}

/* ---- operations the input calls ---- */

static uint32_t pick_flow(void)
{
    uint8_t b = fz_u8(&S.in);
    switch (b & 7u) {
    case 5: return S.cfg.max_flows;            /* just out of range */
    case 6: return (uint32_t)fzt_val(&S.in, S.nflows, S.cfg.max_flows); /* valid id, never opened (or out of range) */
    case 7: return UINT32_MAX;
    default: return S.nflows ? (b >> 3) % S.nflows : 0;
    }
}

static void op_push_message(void)
{
    fz_in *in = &S.in;
    rnic_work m;
    rnic_err rc[2], expect;
    tp_stats before = *tp_get_stats(&S.tx[0]);
    tp_flow_view v;
    fzt_flow *f = NULL;
    uint32_t nsegs = 0, space;
    int i;
    memset(&m, 0, sizeof m);
    m.flow = pick_flow();
    m.len = (uint32_t)fzt_val(in, 1, 900);
    m.addr = fz_u8(in) == 0xff ? UINT64_MAX - 100u : 0x10000u * m.flow;
    m.raddr = fz_u64(in) & 0xff00ff00ffffull;
    m.op = fz_u8(in);
    m.aux = 0xdeadu;          /* the engine numbers messages in aux */
    m.cycle = 12345u;         /* ignored */
    m.tag = S.tag_next++;
    space = tp_flow_message_room(&S.tx[0], m.flow);
    if (m.flow >= S.cfg.max_flows || tp_flow_state(&S.tx[0], m.flow, &v) != RNIC_OK) {
        expect = RNIC_ENOENT;
        FZ_CHECK(space == 0);
    } else if (m.len == 0) {
        expect = RNIC_EINVAL;
    } else {
        f = &S.fl[m.flow];
        nsegs = m.len / f->seg_size + (m.len % f->seg_size != 0);
        if ((uint64_t)(v.data_end - v.wnd_start) + nsegs >= ((uint64_t)1 << 31))
            expect = RNIC_ERANGE;
        else if (space == 0)
            expect = RNIC_EBUSY;
        else
            expect = f->nmsgs < FZT_MSGS ? RNIC_OK : RNIC_ERR__COUNT; /* the model is full: not pushed */
        FZ_CHECK(space == S.cfg.message_depth - v.messages);
    }
    if (expect == RNIC_ERR__COUNT)
        return;
    for (i = 0; i < 2; i++)
        rc[i] = tp_push_message(&S.tx[i], &m);
    FZ_CHECK(rc[0] == rc[1] && rc[0] == expect);
    check_counted(rc[0], &before.errors, &tp_get_stats(&S.tx[0])->errors, true);
    if (rc[0] == RNIC_OK) {
        fzt_msg *mm = &f->msgs[f->nmsgs++];
        FZ_CHECK(tp_flow_message_room(&S.tx[0], m.flow) == space - 1u);
        mm->tag = m.tag;
        mm->addr = m.addr;
        mm->raddr = m.raddr;
        mm->len = m.len;
        mm->op = m.op;
        mm->first_rel = f->data_end_rel;
        mm->nsegs = nsegs;
        mm->number = f->number++;
        mm->seg_size = f->seg_size;
        f->data_end_rel += nsegs;
    }
}

/* A forged control packet for the sender. */
static void op_forge_incoming(void)
{
    fz_in *in = &S.in;
    rnic_work w;
    tp_flow_view v;
    uint8_t how = fz_u8(in);
    memset(&w, 0, sizeof w);
    w.flow = pick_flow();
    w.op = (how & 7u) < 6u ? TP_PKT_ACK + (how & 3u) : (how & 7u) == 6u ? 0u : 6u + fz_u8(in); /* carried, never read */
    if (tp_flow_state(&S.tx[0], w.flow, &v) != RNIC_OK)
        v.wnd_start = v.highest_sent = fz_u32(in);
    switch ((how >> 3) & 7u) {
    case 0: w.index = v.wnd_start; break;                               /* duplicate ack */
    case 1: w.index = v.wnd_start - 1u - fzt_u32(in, 0, 1000); break;   /* stale */
    case 2: w.index = v.wnd_start + 0x80000000u; break;                 /* wrapped: stale */
    case 3: w.index = v.highest_sent + 1u + fzt_u32(in, 0, 1000); break; /* never sent (may be by the time) */
    case 4: w.index = v.wnd_start + 0x7fffffffu; break;                 /* far beyond anything sent */
    case 5: w.index = v.wnd_start + fzt_u32(in, 0, v.highest_sent - v.wnd_start); break; /* acks data (taints) */
    default: w.index = fz_u32(in); break;
    }
    if (how & 0x40) { /* a SACK block, hostile */
        w.offset = v.wnd_start + (uint32_t)fzt_val(in, 0, 300);
        w.len = (uint32_t)fzt_val(in, 0, 300);
    }
    w.aux = (uint32_t)fzt_val(in, 0, 4096);
    w.flags = TP_WORK_PKT(w.op) | (how & 0x80 ? TP_WORK_ECN : 0u); /* the type: op's low 3 bits */
    push_incoming(&w, true);
}

/* A forged data segment for the receiver that it must not deliver: an unknown flow, far out of
 * its window, or an old duplicate. */
static void op_forge_data(void)
{
    fz_in *in = &S.in;
    rnic_work w;
    uint32_t exp = 0;
    uint8_t how = fz_u8(in);
    memset(&w, 0, sizeof w);
    w.flow = pick_flow();
    w.len = fz_u16(in);
    w.tag = 0xf00du;
    w.flags = (uint32_t)fz_u8(in) << RNIC_WORK_ENGINE_SHIFT;
    if (w.flow < S.rcfg.max_flows && rx_expected(&S.rx[0], w.flow, &exp) == RNIC_OK) {
        if ((how & 3u) == 0) {
            push_rx(NULL, true);
            return;
        }
        w.index = (how & 3u) == 1 ? exp + 0x40000000u + fz_u16(in) : exp - 0x40000000u - fz_u16(in);
    } else {
        w.index = fz_u32(in);
    }
    push_rx(&w, true);
}

static void op_drain_policy(void)
{
    uint8_t b = fz_u8(&S.in);
    S.drain_tx = (b & 3u) == 0 ? 0 : (b & 3u) == 1 ? 1 : 64;
    S.drain_ack = ((b >> 2) & 3u) == 0 ? 0 : ((b >> 2) & 3u) == 1 ? 1 : 64;
    S.drain_compl = (b & 0x10) ? 0 : 64;
    if (b & 0x20)
        drain_delivered();
    S.step = 1u << (2u * (b >> 6)); /* 1, 4, 16 or 64 cycles between sync points while busy */
}

static void op_close_reopen(void)
{
    uint32_t f = pick_flow();
    rnic_err rc[2];
    tp_stats before = *tp_get_stats(&S.tx[0]);
    tp_flow_view v;
    bool open = f < S.cfg.max_flows && tp_flow_state(&S.tx[0], f, &v) == RNIC_OK;
    int i;
    if (f < S.nflows && !S.fl[f].open) { /* reopen where the receiver expects the flow to go on */
        tp_flow_config p;
        decode_params(&p);
        p.init_seq = S.fl[f].base_seq + S.fl[f].data_end_rel;
        open_flow(f, &p, p.init_seq);
        return;
    }
    for (i = 0; i < 2; i++)
        rc[i] = tp_flow_close(&S.tx[i], f);
    FZ_CHECK(rc[0] == rc[1]);
    FZ_CHECK(open || rc[0] == RNIC_ENOENT);
    FZ_CHECK(rc[0] != RNIC_OK || v.messages == 0);
    FZ_CHECK(rc[0] == RNIC_OK || rc[0] == RNIC_EBUSY || rc[0] == RNIC_ENOENT);
    check_counted(rc[0], &before.errors, &tp_get_stats(&S.tx[0])->errors, true);
    if (rc[0] == RNIC_OK) {
        rnic_work w;
        while (pop_both(1, &w) == RNIC_OK) /* closing needs every completion out of the queue */
            take_completion(&w);
        FZ_CHECK(f < S.nflows && S.fl[f].compl_next == S.fl[f].nmsgs);
        if (!S.fl[f].tainted) /* every message completed: every segment was delivered, so sent */
            FZ_CHECK(S.fl[f].next_new_rel == S.fl[f].data_end_rel);
        S.fl[f].open = false;
    }
}

/* Hostile calls with a fixed answer: NULL records, bad pacer indices, a second open. */
static void op_hostile_calls(void)
{
    uint8_t b = fz_u8(&S.in);
    tp_stats tb = *tp_get_stats(&S.tx[0]);
    tp_rx_stats rb = *tp_rx_get_stats(&S.rx[0]);
    rnic_err rc[2];
    int i;
    switch (b % 7u) {
    case 0:
        for (i = 0; i < 2; i++)
            rc[i] = tp_push_message(&S.tx[i], NULL);
        FZ_CHECK(rc[0] == RNIC_EINVAL && rc[1] == RNIC_EINVAL);
        check_counted(rc[0], &tb.errors, &tp_get_stats(&S.tx[0])->errors, true);
        break;
    case 1:
        push_incoming(NULL, true);
        break;
    case 2:
        for (i = 0; i < 2; i++)
            rc[i] = (b & 8u) ? tp_pop_segment(&S.tx[i], NULL) : tp_peek_completion(&S.tx[i], NULL);
        FZ_CHECK(rc[0] == RNIC_EINVAL && rc[1] == RNIC_EINVAL);
        check_counted(rc[0], &tb.errors, &tp_get_stats(&S.tx[0])->errors, true);
        break;
    case 3:
        for (i = 0; i < 2; i++)
            rc[i] = (b & 8u) ? tp_rx_pop_ack(&S.rx[i], NULL) : tp_rx_peek_delivered(&S.rx[i], NULL);
        FZ_CHECK(rc[0] == RNIC_EINVAL && rc[1] == RNIC_EINVAL);
        check_counted(rc[0], &rb.errors, &tp_rx_get_stats(&S.rx[0])->errors, true);
        break;
    case 4: { /* the pacer's consumed with an index that is not the ring's head, or an unknown flow */
        uint32_t f = pick_flow(), idx = fz_u32(&S.in);
        tp_flow_view v;
        bool known = f < S.cfg.max_flows && tp_flow_state(&S.tx[0], f, &v) == RNIC_OK;
        rnic_err expect;
        if (known && f < S.nflows && idx == S.fl[f].pacer_index)
            idx++; /* never the head: a real consumption is the pacer's job */
        expect = !S.cfg.external_pacer ? RNIC_ESTATE : !known ? RNIC_ENOENT : RNIC_ESTALE;
        for (i = 0; i < 2; i++)
            rc[i] = tp_push_consumed(&S.tx[i], &(rnic_work){.flow = f, .index = idx});
        FZ_CHECK(rc[0] == expect && rc[1] == expect);
        check_counted(rc[0], &tb.errors, &tp_get_stats(&S.tx[0])->errors, true);
        break;
    }
    case 5: { /* a second open of an open flow, or an open out of range */
        uint32_t f = pick_flow();
        rnic_err expect;
        tp_flow_view v;
        if (f < S.nflows && !S.fl[f].open)
            return;
        expect = f >= S.cfg.max_flows ? RNIC_ENOENT : tp_flow_state(&S.tx[0], f, &v) == RNIC_OK ? RNIC_EEXIST : RNIC_ERR__COUNT;
        if (expect == RNIC_ERR__COUNT)
            return; /* a valid id the model does not follow: leave it closed */
        for (i = 0; i < 2; i++)
            rc[i] = tp_flow_open(&S.tx[i], f, NULL);
        FZ_CHECK(rc[0] == expect && rc[1] == expect);
        check_counted(rc[0], &tb.errors, &tp_get_stats(&S.tx[0])->errors, true);
        if (f < S.rcfg.max_flows && f >= S.nflows)
            break; /* a receiver flow never opened: leave it closed */
        for (i = 0; i < 2; i++)
            rc[i] = tp_rx_flow_open(&S.rx[i], f, NULL);
        expect = f >= S.rcfg.max_flows ? RNIC_ENOENT : RNIC_EEXIST;
        FZ_CHECK(rc[0] == expect && rc[1] == expect);
        check_counted(rc[0], &rb.errors, &tp_rx_get_stats(&S.rx[0])->errors, true);
        break;
    }
    default: { /* empty ports answer EEMPTY and count nothing */
        rnic_work w;
        while (pop_both(1, &w) == RNIC_OK)
            take_completion(&w);
        FZ_CHECK(tp_pop_completion(&S.tx[0], &w) == RNIC_EEMPTY && tp_pop_completion(&S.tx[1], &w) == RNIC_EEMPTY);
        check_counted(RNIC_OK, &tb.errors, &tp_get_stats(&S.tx[0])->errors, true);
        break;
    }
    }
}

/* ---- the run ---- */

static void final_checks(void)
{
    uint32_t f;
    bool pending = false;
    rnic_work w;
    S.quiesce = true;
    S.p_drop = S.p_dup = S.p_ecn = S.p_trim = S.jitter = 0; /* a perfect wire */
    S.drain_tx = S.drain_ack = S.drain_compl = 64;
    run_for(FZT_MAX_CYCLES); /* what the budget leaves (at least FZT_QUIESCE) */
    drain_delivered();
    while (pop_both(1, &w) == RNIC_OK)
        take_completion(&w);
    for (f = 0; f < S.nflows; f++) {
        const fzt_flow *m = &S.fl[f];
        if (m->open && !m->tainted && m->compl_next < m->nmsgs)
            pending = true;
    }
#ifdef FZT_VERBOSE /* what an input reached, for crafting seeds: cc -DFZT_VERBOSE ... replay_main.c */
    {
        const tp_stats *ts = tp_get_stats(&S.tx[0]);
        const tp_rx_stats *rs = tp_rx_get_stats(&S.rx[0]);
        fprintf(stderr, "proto=%s pacer=%d cycles=%llu seg_new=%llu seg_rtx=%llu timeouts=%llu rx_segments=%llu dup=%llu "
                "completions=%llu tx_err=%llu rx_err=%llu",
                S.proto.name, (int)S.cfg.external_pacer, (unsigned long long)S.cycles, (unsigned long long)ts->segments_new,
                (unsigned long long)ts->segments_rtx, (unsigned long long)ts->timeouts, (unsigned long long)rs->segments,
                (unsigned long long)rs->duplicates, (unsigned long long)ts->completions,
                (unsigned long long)err_total(&ts->errors), (unsigned long long)err_total(&rs->errors));
        for (f = 0; f < S.nflows; f++)
            fprintf(stderr, " [f%u open=%d taint=%d msgs=%u done=%u]", f, (int)S.fl[f].open, (int)S.fl[f].tainted,
                    S.fl[f].nmsgs, S.fl[f].compl_next);
        fprintf(stderr, "\n");
    }
#endif
    /* no dead lock: unfinished work always has an event coming */
    if (pending && S.nchan == 0 && tp_space_incoming(&S.tx[1]) == S.cfg.incoming_depth &&
        tp_rx_space_segment(&S.rx[1]) == S.rcfg.segment_depth && tp_next_event(&S.tx[1]) == RNIC_NEVER &&
        tp_rx_next_event(&S.rx[1]) == RNIC_NEVER) {
        /* ... unless a retransmission timer's heap entry is due at cycle 2^64 - 1, which reads
         * RNIC_NEVER (docs/engine_contract.md; the entry may be a stale one, earlier than its
         * flow's deadline, which the engine tidies when it falls due). Found by the long run.
         * Then a timer runs, and advancing across the wrap must fire it or bring it into view. */
        bool running = false;
        uint64_t timeouts = tp_get_stats(&S.tx[1])->timeouts, to_wrap = (uint64_t)0 - tp_now(&S.tx[1]), ran;
        for (f = 0; f < S.nflows; f++) {
            tp_flow_view v;
            if (tp_flow_state(&S.tx[1], f, &v) == RNIC_OK && v.timer_running)
                running = true;
        }
        FZ_CHECK(running);
        ran = tp_advance_to(&S.tx[1], 0); /* (it may stop after the timer if its output fills) */
        FZ_CHECK(ran >= 1u && ran <= to_wrap);
        FZ_CHECK(tp_get_stats(&S.tx[1])->timeouts > timeouts || tp_next_event(&S.tx[1]) != RNIC_NEVER);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in *in;
    uint32_t f, ops = 0;
    uint8_t sel, rxflags;
    memset(&S, 0, sizeof S);
    in = &S.in;
    fz_init(in, data, size);
    sel = fz_u8(in);
    S.proto_id = (sel & 0x7fu) % 6u;
    decode_protocol();
    tp_config_default(&S.cfg);
    S.cfg.protocol = &S.proto;
    S.cfg.external_pacer = (sel & 0x80) != 0;
    S.cfg.clock_hz = fzt_val(in, RNIC_CLOCK_MIN_HZ, RNIC_CLOCK_MAX_HZ);
    S.cfg.link_bps = fzt_val(in, 1000000000ull, 100000000000ull);
    S.cfg.min_rate_bps = fzt_val(in, RNIC_RATE_MIN_BPS, 1000000000ull);
    S.cfg.max_flows = fzt_u32(in, 1, FZT_FLOWS);
    S.cfg.window = decode_window(in);
    {
        uint64_t r = fzt_val(in, 0, 3);
        S.cfg.ring = r <= 3u ? 1u << r : (uint32_t)r;
    }
    S.cfg.message_depth = fzt_u32(in, 1, 8);
    S.cfg.incoming_depth = fzt_u32(in, 1, 16);
    S.cfg.segment_depth = fzt_u32(in, 1, 8);
    S.cfg.completion_depth = fzt_u32(in, 1, 8);
    switch (fz_u8(in) & 3u) { /* the clock may start just before the 2^64 wrap */
    case 1: S.start = UINT64_MAX - fzt_val(in, 0, 3000); break;
    case 2: S.start = ((uint64_t)1 << 32) - fzt_val(in, 0, 3000); break;
    case 3: S.start = fz_u64(in); break;
    default: S.start = 0; break;
    }
    S.cfg.start_cycle = S.start;
    /* the receiver: what the protocol expects, with the input's changes */
    tp_rx_config_default(&S.rcfg);
    S.rcfg.clock_hz = S.cfg.clock_hz;
    S.rcfg.start_cycle = S.start;
    S.rcfg.window = decode_window(in);
    rxflags = fz_u8(in);
    S.rcfg.max_flows = rxflags & 0x40 ? fzt_u32(in, 1, FZT_FLOWS) : S.cfg.max_flows;
    S.rcfg.delack_count = fzt_u32(in, 1, 4);
    S.rcfg.delack_ns = (uint64_t)fzt_u32(in, 1, 4) * 1000u;
    S.rcfg.sack = (S.proto_id != 1) != ((rxflags & 1u) != 0);
    S.rcfg.nack = (S.proto_id == 4) != ((rxflags & 2u) != 0);
    S.rcfg.ack_first = (rxflags & 4u) != 0;
    S.rcfg.go_back_n = (S.proto_id == 3) != ((rxflags & 8u) != 0);
    S.rcfg.cnp_mode = (rxflags >> 4) & 1u;
    S.rcfg.cnp_interval_ns = (uint64_t)fzt_u32(in, 0, 5) * 1000u;
    S.rcfg.pull_bps = S.proto_id == 5 || (rxflags & 0x20) ? fzt_val(in, 100000000ull, S.cfg.link_bps) : 0;
    S.rcfg.segment_depth = fzt_u32(in, 1, 16);
    S.rcfg.ack_depth = fzt_u32(in, 1, 16);
    S.rcfg.delivered_depth = fzt_u32(in, 1, 16);
    S.base_delay = fzt_val(in, 1, 16) & 0xffu;
    chan_decode();
    if (!setup_engines())
        return 0;
    S.nflows = S.cfg.max_flows < FZT_FLOWS ? S.cfg.max_flows : FZT_FLOWS;
    for (f = 0; f < S.nflows; f++) {
        tp_flow_config p;
        uint32_t exp;
        int i;
        decode_params(&p);
        switch (fz_u8(in) & 3u) { /* segment ids near the 2^32 and 2^31 wraps */
        case 1: p.init_seq = UINT32_MAX - fzt_u32(in, 0, 300); break;
        case 2: p.init_seq = 0x7fffffffu - fzt_u32(in, 0, 300); break;
        case 3: p.init_seq = fz_u32(in); break;
        default: p.init_seq = 0; break;
        }
        S.fl[f].base_seq = p.init_seq;
        open_flow(f, &p, p.init_seq);
        if (f < S.rcfg.max_flows) {
            for (i = 0; i < 2; i++)
                FZ_CHECK(tp_rx_flow_open(&S.rx[i], f, &(tp_rx_flow_config){.init_seq = p.init_seq}) == RNIC_OK);
            FZ_CHECK(rx_expected(&S.rx[0], f, &exp) == RNIC_OK && exp == p.init_seq);
        }
    }
    S.drain_tx = S.drain_ack = S.drain_compl = 64;
    S.step = 4;
    S.tag_next = 1;
    while (fz_more(in) && S.cycles < FZT_MAX_CYCLES - FZT_QUIESCE && ops++ < 400u) {
        uint8_t op = fz_u8(in);
        switch (op % 12u) {
        case 0: case 1: case 2: run_for(1u + (op >> 4)); break;
        case 3: run_for(fzt_val(in, 1, 100)); break;
        case 4: case 5: op_push_message(); break;
        case 6: op_forge_incoming(); break;
        case 7: op_forge_data(); break;
        case 8:
            if (op & 0x80)
                chan_decode();
            else
                op_drain_policy();
            break;
        case 9: op_close_reopen(); break;
        case 10: op_hostile_calls(); break;
        default: run_for(0); break; /* a sync point now: compare, take outputs */
        }
    }
    final_checks();
    return 0;
}
