/* transport.h (Tonic, NSDI 2020) against the paper and small independent reference models:
 * exactly-once in-order delivery over a lossy / reordering / duplicating channel (§3.2), the
 * segment generation rules (§3.1, §3.2.3), App. C's find-first against a naive scan, the merge
 * rules and the periodic scan (§3.4), rate credit against an exact pacer (App. B) and token
 * credit, the external pacer (with ratelimit.h's Tassel), fast-forward against ticking, bad
 * input, and the receiver (delayed ACKs, SACK block, NACK). The protocols used here are small
 * test protocols defined in this file (go-back-N, rate, token), not the engine's own. */
#define TP_IMPLEMENTATION
#include "transport.h"
#define RL_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

/* The flow's cumulative ack, through tp_rx_flow_state. */
static rnic_err rx_expected(const tp_rx *r, uint32_t flow, uint32_t *out)
{
    tp_rx_flow_view v;
    rnic_err e = tp_rx_flow_state(r, flow, &v);
    *out = v.expected;
    return e;
}

/* ---------------------------------------------------------------- memory (aligned, freed) */

typedef struct amem {
    void *raw, *mem;
    size_t size;
} amem;

/* malloc `n` bytes rounded up to RNIC_MEM_ALIGN, aligned to RNIC_MEM_ALIGN. */
static void *amem_get(amem *m, size_t n)
{
    size_t r = (n + (RNIC_MEM_ALIGN - 1u)) & ~(size_t)(RNIC_MEM_ALIGN - 1u);
    m->raw = malloc(r + RNIC_MEM_ALIGN);
    m->mem = (void *)(((uintptr_t)m->raw + (RNIC_MEM_ALIGN - 1u)) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u));
    m->size = r;
    return m->mem;
}
static void amem_free(amem *m)
{
    free(m->raw);
    m->raw = m->mem = NULL;
}

static uint64_t errs_total(const rnic_err_stats *e)
{
    uint64_t s = 0;
    int i;
    for (i = 0; i < (int)RNIC_ERR__COUNT; i++)
        s += e->by_cause[i];
    return s;
}

static tp *tp_make(const tp_config *cfg, amem *m)
{
    size_t need = tp_mem_size(cfg);
    tp *t = (tp *)malloc(sizeof(tp));
    void *mem = amem_get(m, need);
    if (need == 0 || !t || tp_init(t, cfg, mem, m->size) != RNIC_OK) {
        printf("tp_make failed (need %zu)\n", need);
        exit(2);
    }
    return t;
}
static void tp_free(tp *t, amem *m)
{
    free(t);
    amem_free(m);
}
static tp_rx *rx_make(const tp_rx_config *cfg, amem *m)
{
    size_t need = tp_rx_mem_size(cfg);
    tp_rx *r = (tp_rx *)malloc(sizeof(tp_rx));
    void *mem = amem_get(m, need);
    if (need == 0 || !r || tp_rx_init(r, cfg, mem, m->size) != RNIC_OK) {
        printf("rx_make failed\n");
        exit(2);
    }
    return r;
}
static void rx_free(tp_rx *r, amem *m)
{
    free(r);
    amem_free(m);
}

static rnic_work ack_pkt(uint32_t flow, uint32_t op, uint32_t cum, uint32_t sack_start, uint32_t sack_len, uint32_t aux)
{
    rnic_work a;
    memset(&a, 0, sizeof a);
    a.flow = flow;
    a.flags = TP_WORK_PKT(op);
    a.index = cum;
    a.offset = sack_start;
    a.len = sack_len;
    a.aux = aux;
    return a;
}

/* ---------------------------------------------------------------- test protocols */

/* Go-back-N with a fixed window: a new cumulative ACK restarts the timer, the third duplicate
 * ACK resends wnd_start, a timeout resends everything sent. */
typedef struct gbn_ctx {
    uint32_t dup;
} gbn_ctx;
static void gbn_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *a)
{
    (void)hz;
    (void)config;
    (void)ctx;
    a->wnd_size = p->init_wnd;
}
static void gbn_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    gbn_ctx *c = (gbn_ctx *)ctx;
    if (ev->new_wnd_start != ev->old_wnd_start) {
        c->dup = 0;
        if (ev->highest_sent != ev->new_wnd_start)
            a->reset_timer = true;
    } else if ((ev->pkt_type == TP_PKT_ACK || ev->pkt_type == TP_PKT_NACK) && ev->highest_sent != ev->wnd_start) {
        if (++c->dup == 3) {
            a->mark_rtx = true;
            a->mark_from = ev->wnd_start;
            a->mark_to = ev->wnd_start + 1u;
            a->reset_timer = true;
        }
    }
}
static void gbn_per(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)ctx;
    if (ev->timeout) {
        a->mark_rtx = true;
        a->mark_from = ev->wnd_start;
        a->mark_to = ev->highest_sent;
        a->reset_timer = true;
    }
}
static const tp_protocol proto_gbn = { "gbn", TP_CREDIT_WINDOW, sizeof(gbn_ctx), gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };

/* The same loss recovery on rate credit: a timeout halves the rate (down to a quarter of the
 * flow's initial rate), a new ACK raises it by 1/32 up to the initial rate (re-timing a waiting flow now and then). */
static void rgbn_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    gbn_in(ev, ctx, a);
    if (ev->new_wnd_start != ev->old_wnd_start) {
        uint64_t r = ev->rate_bps + ev->rate_bps / 32u + 1u;
        a->rate_bps = r > ev->params->init_rate_bps ? ev->params->init_rate_bps : r;
    }
}
static void rgbn_per(const tp_event *ev, void *ctx, tp_actions *a)
{
    gbn_per(ev, ctx, a);
    if (ev->timeout)
        a->rate_bps = ev->rate_bps / 2u > ev->params->init_rate_bps / 4u ? ev->rate_bps / 2u : ev->params->init_rate_bps / 4u;
}
static const tp_protocol proto_rgbn = { "rgbn", TP_CREDIT_RATE, sizeof(gbn_ctx), gbn_init, rgbn_in, rgbn_per, false, TP_MERGE_INCOMING, NULL, NULL };

/* Rate without loss recovery: a CNP sets the rate to its aux kb/s. */
static void rate_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)ctx;
    if (ev->pkt_type == TP_PKT_CNP)
        a->rate_bps = (uint64_t)ev->pkt_data * 1000u;
}
static void nop_per(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)ev;
    (void)ctx;
    (void)a;
}
static const tp_protocol proto_rate = { "rate", TP_CREDIT_RATE, 8, gbn_init, rate_in, nop_per, false, TP_MERGE_INCOMING, NULL, NULL };

/* Tokens: credit only from grants (the engine adds a GRANT's aux). */
static void tok_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)ev;
    (void)ctx;
    (void)a;
}
static const tp_protocol proto_tok = { "tok", TP_CREDIT_TOKEN, 8, gbn_init, tok_in, nop_per, false, TP_MERGE_INCOMING, NULL, NULL };

/* Control by packet: a CNP's aux marks [wnd_start + (aux & 0xff), wnd_start + (aux >> 8 & 0xff))
 * and, when aux >> 16 is non-zero, sets the window to it. */
static void ctl_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)ctx;
    if (ev->pkt_type != TP_PKT_CNP)
        return;
    if ((ev->pkt_data & 0xffffu) != 0) {
        a->mark_rtx = true;
        a->mark_from = ev->wnd_start + (ev->pkt_data & 0xffu);
        a->mark_to = ev->wnd_start + ((ev->pkt_data >> 8) & 0xffu);
    }
    if (ev->pkt_data >> 16)
        a->wnd_size = ev->pkt_data >> 16;
}
static const tp_protocol proto_ctl = { "ctl", TP_CREDIT_WINDOW, 8, gbn_init, ctl_in, nop_per, false, TP_MERGE_INCOMING, NULL, NULL };

/* ---------------------------------------------------------------- the closed loop (tests 1, 7) */

typedef struct chan_ev {
    uint64_t rel;        /* due cycle - start */
    uint32_t src;        /* 0: data to rx, 1: ack to tp, 2: push the flow's next message */
    uint64_t seq;        /* per-source sequence number (the same in tick and fast-forward runs) */
    rnic_work w;
} chan_ev;

typedef struct chan {
    chan_ev *a;
    size_t n, cap;
} chan;

static int chan_less(const chan_ev *x, const chan_ev *y)
{
    if (x->rel != y->rel)
        return x->rel < y->rel;
    if (x->src != y->src)
        return x->src < y->src;
    return x->seq < y->seq;
}
static void chan_push(chan *c, const chan_ev *e)
{
    size_t i;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->a = (chan_ev *)realloc(c->a, c->cap * sizeof *c->a);
    }
    i = c->n++;
    c->a[i] = *e;
    while (i > 0 && chan_less(&c->a[i], &c->a[(i - 1) / 2])) {
        chan_ev tmp = c->a[i];
        c->a[i] = c->a[(i - 1) / 2];
        c->a[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
}
static void chan_pop(chan *c)
{
    size_t i = 0;
    c->a[0] = c->a[--c->n];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->n && chan_less(&c->a[l], &c->a[m]))
            m = l;
        if (r < c->n && chan_less(&c->a[r], &c->a[m]))
            m = r;
        if (m == i)
            break;
        {
            chan_ev tmp = c->a[i];
            c->a[i] = c->a[m];
            c->a[m] = tmp;
        }
        i = m;
    }
}

typedef struct wl {          /* a workload */
    uint32_t W, N, nflows, max_flows, messages, msgs_per_flow;
    const tp_protocol *proto;
    uint32_t loss_ppm, dup_ppm, ack_loss_ppm, dmin, djit;
    uint64_t start;
    bool wrap_seq;           /* flows start near 2^32 */
    uint32_t rto_us, delack_us;
    uint32_t max_msg, max_seg;
    uint64_t rate_lo, rate_hi;
    uint64_t seed, max_cycles;
    bool ff;                 /* fast-forward instead of ticking every cycle */
    bool check;              /* byte placement checks */
} wl;

typedef struct wl_flow {
    uint32_t seg, init_seq, nmsgs, pushed, planned, completed, wnd;
    uint64_t rate;
    uint32_t *len;           /* message lengths */
    uint32_t *first_seg;     /* reference: each message's first segment id */
    uint8_t **cnt;           /* bytes placed per message */
    uint32_t total_segs;
} wl_flow;

typedef struct rec {         /* a logged record: which port, the record */
    uint32_t port;
    rnic_work w;
} rec;
typedef struct reclog {
    rec *a;
    size_t n, cap;
} reclog;
static void log_add(reclog *l, uint32_t port, const rnic_work *w)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->a = (rec *)realloc(l->a, l->cap * sizeof *l->a);
    }
    memset(&l->a[l->n], 0, sizeof l->a[l->n]);
    l->a[l->n].port = port;
    l->a[l->n].w = *w;
    l->n++;
}

typedef struct net {
    const wl *w;
    tp *t;
    tp_rx *r;
    amem tm, rm;
    wl_flow *fl;
    chan ch;
    rnic_prng data_rng, ack_rng, msg_rng;
    uint64_t data_seq, ack_seq, msg_seq;
    uint64_t now;
    reclog logs[4];          /* segments, completions, acks, delivered */
    uint32_t done_flows;
    uint64_t bad_delivered, bad_window, gen_events;
} net;

static uint64_t addr_of(uint32_t flow, uint32_t msg) { return ((uint64_t)(flow + 1u) << 40) | ((uint64_t)msg << 20); }

/* Trace: at every generation the segment lies in [wnd_start, wnd_start + wnd_size) (§3.2). */
static void net_trace(void *user, const rnic_trace_event *e)
{
    net *n = (net *)user;
    tp_flow_view v;
    if (e->kind != TP_TRACE_GENERATE)
        return;
    n->gen_events++;
    if (tp_flow_state(n->t, e->id, &v) != RNIC_OK || (uint32_t)e->a - v.wnd_start >= v.wnd_size)
        n->bad_window++;
}

static void net_init(net *n, const wl *w)
{
    tp_config c;
    tp_rx_config rc;
    rnic_prng p;
    uint32_t f, k;
    memset(n, 0, sizeof *n);
    n->w = w;
    rnic_prng_seed(&p, w->seed);
    rnic_prng_seed(&n->data_rng, w->seed ^ 0x1111u);
    rnic_prng_seed(&n->ack_rng, w->seed ^ 0x2222u);
    rnic_prng_seed(&n->msg_rng, w->seed ^ 0x3333u);
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = w->max_flows;
    c.window = w->W;
    c.ring = w->N;
    c.message_depth = w->messages;
    c.protocol = w->proto;
    c.start_cycle = w->start;
    c.trace = net_trace;
    c.trace_user = n;
    n->t = tp_make(&c, &n->tm);
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = w->max_flows;
    rc.window = w->W;
    rc.delack_ns = (uint64_t)w->delack_us * 1000u;
    rc.start_cycle = w->start;
    n->r = rx_make(&rc, &n->rm);
    n->now = w->start;
    n->fl = (wl_flow *)calloc(w->nflows, sizeof *n->fl);
    for (f = 0; f < w->nflows; f++) {
        wl_flow *x = &n->fl[f];
        tp_flow_config pr;
        uint32_t id = f * (w->max_flows / w->nflows);
        tp_flow_config_default(&pr);
        x->seg = (uint32_t)rnic_prng_log_range(&p, 64, w->max_seg);
        x->init_seq = w->wrap_seq ? (uint32_t)(0u - 100u - (uint32_t)rnic_prng_below(&p, 50)) : (uint32_t)rnic_prng_next(&p);
        x->wnd = rnic_prng_chance(&p, 1, 3) ? (uint32_t)rnic_prng_range(&p, 1, w->W) : w->W;
        x->rate = rnic_prng_log_range(&p, w->rate_lo, w->rate_hi);
        pr.seg_size = x->seg;
        pr.max_burst = 2u * (uint64_t)x->seg;
        pr.init_seq = x->init_seq;
        pr.init_wnd = x->wnd;
        pr.init_rate_bps = x->rate;
        pr.rto_ns = (uint64_t)w->rto_us * 1000u;
        CHECK_EQ(tp_flow_open(n->t, id, &pr), RNIC_OK);
        CHECK_EQ(tp_rx_flow_open(n->r, id, &(tp_rx_flow_config){.init_seq = x->init_seq}), RNIC_OK);
        x->nmsgs = w->msgs_per_flow;
        x->len = (uint32_t *)calloc(x->nmsgs, sizeof *x->len);
        x->first_seg = (uint32_t *)calloc(x->nmsgs + 1u, sizeof *x->first_seg);
        x->cnt = (uint8_t **)calloc(x->nmsgs, sizeof *x->cnt);
        x->first_seg[0] = x->init_seq;
        for (k = 0; k < x->nmsgs; k++) {
            x->len[k] = (uint32_t)rnic_prng_log_range(&p, 1, w->max_msg);
            x->first_seg[k + 1] = x->first_seg[k] + (x->len[k] + x->seg - 1u) / x->seg;
            if (w->check)
                x->cnt[k] = (uint8_t *)calloc(x->len[k], 1);
        }
        x->total_segs = x->first_seg[x->nmsgs] - x->init_seq;
    }
}

static void net_free(net *n)
{
    uint32_t f, k;
    for (f = 0; f < n->w->nflows; f++) {
        for (k = 0; k < n->fl[f].nmsgs; k++)
            free(n->fl[f].cnt[k]);
        free(n->fl[f].cnt);
        free(n->fl[f].len);
        free(n->fl[f].first_seg);
    }
    free(n->fl);
    free(n->ch.a);
    for (k = 0; k < 4; k++)
        free(n->logs[k].a);
    tp_free(n->t, &n->tm);
    rx_free(n->r, &n->rm);
}

static uint32_t flow_id(const net *n, uint32_t f) { return f * (n->w->max_flows / n->w->nflows); }

static void net_push_msg(net *n, uint32_t f)
{
    wl_flow *x = &n->fl[f];
    rnic_work m;
    memset(&m, 0, sizeof m);
    m.flow = flow_id(n, f);
    m.len = x->len[x->pushed];
    m.addr = addr_of(f, x->pushed);
    m.raddr = m.addr ^ 0x5a5a000000000000ull;
    m.tag = ((uint64_t)f << 32) | x->pushed;
    m.op = 7u + f;
    CHECK_EQ(tp_push_message(n->t, &m), RNIC_OK);
    x->pushed++;
}

/* A segment delivered for the first time: check it against the reference and place its bytes. */
static void net_delivered(net *n, const rnic_work *d)
{
    uint32_t f = (uint32_t)(d->tag >> 32), k = (uint32_t)d->tag, i;
    wl_flow *x;
    if (f >= n->w->nflows || k >= n->fl[f].nmsgs) {
        n->bad_delivered++;
        return;
    }
    x = &n->fl[f];
    if (d->flow != flow_id(n, f) || d->offset >= x->len[k] || d->offset % x->seg ||
        d->len != (x->len[k] - d->offset < x->seg ? x->len[k] - d->offset : x->seg) || d->addr != addr_of(f, k) + d->offset ||
        d->raddr != ((addr_of(f, k) ^ 0x5a5a000000000000ull) + d->offset) || d->index != x->first_seg[k] + d->offset / x->seg ||
        d->aux != k || d->op != TP_PKT_DATA || !!(d->flags & RNIC_WORK_FIRST) != (d->offset == 0) ||
        !!(d->flags & RNIC_WORK_LAST) != (d->offset + d->len == x->len[k])) {
        if (n->bad_delivered++ < 3)
            printf("  bad delivered record: flow %u msg %u index %u offset %u len %u flags %x aux %u\n", d->flow, k, d->index,
                   d->offset, d->len, d->flags, d->aux);
        return;
    }
    for (i = 0; i < d->len; i++)
        if (x->cnt[k][d->offset + i] != 255)
            x->cnt[k][d->offset + i]++;
}

/* Pop every output of both engines into the logs and the channel (delays drawn per record). */
static void net_drain(net *n)
{
    const wl *w = n->w;
    rnic_work o;
    chan_ev e;
    while (tp_pop_segment(n->t, &o) == RNIC_OK) {
        int copies = 1;
        log_add(&n->logs[0], 0, &o);
        if (o.op != 7u + (uint32_t)(o.tag >> 32))
            n->bad_delivered++;
        if (rnic_prng_below(&n->data_rng, 1000000) < w->loss_ppm)
            copies = 0;
        else if (rnic_prng_below(&n->data_rng, 1000000) < w->dup_ppm)
            copies = 2;
        while (copies-- > 0) {
            memset(&e, 0, sizeof e);
            e.rel = o.cycle - w->start + 1u + w->dmin + rnic_prng_below(&n->data_rng, w->djit + 1u);
            e.src = 0;
            e.seq = n->data_seq++;
            e.w = o;
            e.w.op = TP_PKT_DATA;
            chan_push(&n->ch, &e);
        }
    }
    while (tp_pop_completion(n->t, &o) == RNIC_OK) {
        uint32_t f = (uint32_t)(o.tag >> 32);
        log_add(&n->logs[1], 1, &o);
        if (f < w->nflows) {
            wl_flow *x = &n->fl[f];
            CHECK_EQ(o.tag, ((uint64_t)f << 32) | x->completed);
            CHECK_EQ(o.len, x->len[x->completed < x->nmsgs ? x->completed : 0]);
            CHECK_EQ(o.flow, flow_id(n, f));
            CHECK_EQ(o.flags & (RNIC_WORK_FIRST | RNIC_WORK_LAST), RNIC_WORK_FIRST | RNIC_WORK_LAST);
            x->completed++;
            if (x->completed == x->nmsgs)
                n->done_flows++;
            if (x->planned < x->nmsgs) {
                x->planned++;
                memset(&e, 0, sizeof e);
                e.rel = o.cycle - w->start + 1u + w->dmin + rnic_prng_below(&n->msg_rng, 50);
                e.src = 2;
                e.seq = n->msg_seq++;
                e.w.flow = f;
                chan_push(&n->ch, &e);
            }
        } else {
            CHECK(f < w->nflows);
        }
    }
    while (tp_rx_pop_ack(n->r, &o) == RNIC_OK) {
        log_add(&n->logs[2], 2, &o);
        if (rnic_prng_below(&n->ack_rng, 1000000) < w->ack_loss_ppm)
            continue;
        memset(&e, 0, sizeof e);
        e.rel = o.cycle - w->start + 1u + w->dmin + rnic_prng_below(&n->ack_rng, w->djit + 1u);
        e.src = 1;
        e.seq = n->ack_seq++;
        e.w = o;
        chan_push(&n->ch, &e);
    }
    while (tp_rx_pop_delivered(n->r, &o) == RNIC_OK) {
        log_add(&n->logs[3], 3, &o);
        if (w->check)
            net_delivered(n, &o);
    }
}

/* Hand over what the channel holds for cycle n->now (or earlier, when a port was full). */
static void net_deliver(net *n)
{
    size_t blocked_n = 0;
    chan_ev blocked[64];
    while (n->ch.n && n->ch.a[0].rel <= n->now - n->w->start) {
        chan_ev e = n->ch.a[0];
        bool ok = true;
        chan_pop(&n->ch);
        if (e.src == 0)
            ok = tp_rx_space_segment(n->r) > 0 && tp_rx_push_segment(n->r, &e.w) == RNIC_OK;
        else if (e.src == 1)
            ok = tp_space_incoming(n->t) > 0 && tp_push_incoming(n->t, &e.w) == RNIC_OK;
        else
            net_push_msg(n, e.w.flow);
        if (!ok) {
            if (blocked_n < 64) {
                blocked[blocked_n++] = e;
            } else { /* more refused than the scratch holds: the rest waits in the channel */
                chan_push(&n->ch, &e);
                break;
            }
        }
    }
    while (blocked_n)
        chan_push(&n->ch, &blocked[--blocked_n]);
}

/* The next cycle anything happens: the channel's next item, the engines' next events; a busy
 * engine may emit something due dmin + 1 cycles later at the earliest. */
static uint64_t net_next(const net *n)
{
    uint64_t rel_now = n->now - n->w->start, best = rel_now + 1u + n->w->dmin, e;
    if (n->ch.n) {
        uint64_t d = n->ch.a[0].rel;
        if (d <= rel_now)
            return n->now + 1u;
        if (d < best)
            best = d;
    }
    e = tp_next_event(n->t);
    if (e != RNIC_NEVER && e != n->now && e - n->w->start < best)
        best = e - n->w->start;
    e = tp_rx_next_event(n->r);
    if (e != RNIC_NEVER && e != n->now && e - n->w->start < best)
        best = e - n->w->start;
    if (tp_next_event(n->t) == RNIC_NEVER && tp_rx_next_event(n->r) == RNIC_NEVER && !n->ch.n)
        best = rel_now + 1000000u; /* all idle: a long skip */
    /* An event due at cycle 2^64 - 1 reads RNIC_NEVER (the contract's one ambiguity): never jump
     * across the wrap in one step, stop at 2^64 - 1 and at 0 so its records are drained on time */
    if (n->now != UINT64_MAX && n->w->start + best - n->now > UINT64_MAX - n->now)
        return UINT64_MAX;
    if (n->now == UINT64_MAX)
        return 0;
    return n->w->start + best;
}

/* Run the closed loop until every message of every flow completes (or max_cycles), or, with
 * `until` != 0, until cycle start + until. */
static void net_loop(net *n, uint64_t until)
{
    const wl *w = n->w;
    while (until ? n->now - w->start < until : n->done_flows < w->nflows && n->now - w->start < w->max_cycles) {
        net_deliver(n);
        if (!w->ff) {
            tp_tick(n->t);
            tp_rx_tick(n->r);
            n->now++;
            net_drain(n);
        } else {
            uint64_t to = net_next(n);
            if (until && to - w->start > until)
                to = w->start + until;
            while (tp_now(n->t) != to) {
                tp_advance_to(n->t, to);
                net_drain(n);
            }
            while (tp_rx_now(n->r) != to) {
                tp_rx_advance_to(n->r, to);
                net_drain(n);
            }
            n->now = to;
        }
    }
}

static void net_run(net *n)
{
    uint32_t f, k;
    for (f = 0; f < n->w->nflows; f++)
        for (k = 0; k < n->w->messages && k < n->w->msgs_per_flow; k++) {
            n->fl[f].planned++;
            net_push_msg(n, f);
        }
    net_loop(n, 0);
}

/* The end state: every byte placed once, cumulative ack at the data end, nothing outstanding. */
static void net_check_end(net *n)
{
    uint32_t f, k, i;
    uint64_t twice = 0, missing = 0;
    CHECK_EQ(n->done_flows, n->w->nflows);
    CHECK_EQ(n->bad_delivered, 0);
    CHECK_EQ(n->bad_window, 0);
    CHECK(n->gen_events > 0);
    for (f = 0; f < n->w->nflows; f++) {
        wl_flow *x = &n->fl[f];
        tp_flow_view v;
        uint32_t exp = 0;
        for (k = 0; k < x->nmsgs; k++)
            for (i = 0; i < x->len[k]; i++) {
                twice += x->cnt[k][i] > 1;
                missing += x->cnt[k][i] == 0;
            }
        CHECK_EQ(x->completed, x->nmsgs);
        CHECK_EQ(rx_expected(n->r, flow_id(n, f), &exp), RNIC_OK);
        CHECK_EQ(exp, x->first_seg[x->nmsgs]);
        CHECK_EQ(tp_flow_state(n->t, flow_id(n, f), &v), RNIC_OK);
        if (v.wnd_start != x->first_seg[x->nmsgs])
            printf("  flow %u stuck: wnd_start %u highest %u data_end %u wnd %u outstanding %u timer %d deadline %" PRIu64
                   " amount %" PRIu64 " now %" PRIu64 " total_sent %u\n",
                   flow_id(n, f), v.wnd_start, v.highest_sent, v.data_end, v.wnd_size, v.outstanding, v.timer_running,
                   v.timer_deadline, v.timer_amount, tp_now(n->t), v.total_sent);
        CHECK_EQ(v.wnd_start, x->first_seg[x->nmsgs]);
        CHECK_EQ(v.highest_sent, v.wnd_start);
        CHECK_EQ(v.data_end, v.wnd_start);
        CHECK_EQ(v.outstanding, 0);
        CHECK_EQ(v.messages, 0);
    }
    CHECK_EQ(twice, 0);
    CHECK_EQ(missing, 0);
    /* reordered ACKs arrive behind wnd_start: refused as stale (and counted), nothing else */
    CHECK_EQ(errs_total(&tp_get_stats(n->t)->errors), tp_get_stats(n->t)->errors.by_cause[RNIC_ESTALE]);
    CHECK_EQ(errs_total(&tp_rx_get_stats(n->r)->errors), 0);
    CHECK_EQ(tp_get_stats(n->t)->segments_out, tp_get_stats(n->t)->segments_new + tp_get_stats(n->t)->segments_rtx);
}

/* 1. Exactly-once, in-order delivery (§3.2) over a channel that loses, reorders and duplicates. */
static void test_exactly_once(void)
{
    static const uint32_t Ws[3] = { 64, 128, 256 }, Ns[3] = { 1, 4, 64 };
    uint64_t seed = test_seed(0x70c1c);
    rnic_prng p;
    int wi, ni, rep, fails_before = 0;
    rnic_prng_seed(&p, seed);
    for (rep = 0; rep < 2; rep++)
        for (wi = 0; wi < 3; wi++)
            for (ni = 0; ni < 3; ni++) {
                wl w;
                net n;
                memset(&w, 0, sizeof w);
                w.W = Ws[wi];
                w.N = Ns[ni];
                w.nflows = 3 + (uint32_t)rnic_prng_below(&p, 3);
                w.max_flows = 16;
                w.messages = 1 + (uint32_t)rnic_prng_below(&p, 8);
                w.msgs_per_flow = 3 + (uint32_t)rnic_prng_below(&p, 6);
                w.proto = &proto_gbn;
                w.loss_ppm = (uint32_t)rnic_prng_below(&p, 40000);
                w.dup_ppm = (uint32_t)rnic_prng_below(&p, 30000);
                w.ack_loss_ppm = (uint32_t)rnic_prng_below(&p, 40000);
                w.dmin = 20 + (uint32_t)rnic_prng_below(&p, 100);
                w.djit = (uint32_t)rnic_prng_below(&p, 300);
                w.start = rnic_prng_next(&p) >> 1;
                w.wrap_seq = rep == 1;
                w.rto_us = 30;
                w.delack_us = 3;
                w.max_msg = 300000;
                w.max_seg = 9000;
                w.rate_lo = w.rate_hi = 100000000000ull;
                w.seed = rnic_prng_next(&p);
                w.max_cycles = 8000000; /* a 3-segment window over 4 % loss needs more than 2 M */
                w.check = true;
                net_init(&n, &w);
                net_run(&n);
                net_check_end(&n);
                if (TEST_FAILS() > fails_before) {
                    printf("  failing workload: W %u N %u flows %u messages %u rep %d\n", w.W, w.N, w.nflows, w.messages, rep);
                    fails_before = TEST_FAILS();
                }
                printf("  W %3u N %2u flows %u: %" PRIu64 " cycles, %" PRIu64 " segments (%" PRIu64 " rtx), %" PRIu64
                       " timeouts\n",
                       w.W, w.N, w.nflows, n.now - w.start, tp_get_stats(n.t)->segments_out, tp_get_stats(n.t)->segments_rtx,
                       tp_get_stats(n.t)->timeouts);
                net_free(&n);
            }
}

/* 7. Fast-forward (tp_advance_to, tp_rx_advance_to, next_event) gives the record logs of
 * ticking every cycle, with timeouts and rate timers, also across the 2^64 wrap. */
static void test_fast_forward(void)
{
    uint64_t seed = test_seed(0xff77);
    rnic_prng p;
    int rep;
    uint64_t all_timeouts = 0;
    bool ident;
    rnic_prng_seed(&p, seed);
    for (rep = 0; rep < 10; rep++) {
        wl w;
        net a, b;
        int k;
        memset(&w, 0, sizeof w);
        w.W = rep % 2 ? 64 : 128;
        w.N = rep % 3 ? 4 : 1;
        w.nflows = 3;
        w.max_flows = 6 + (uint32_t)rnic_prng_below(&p, 8);
        w.messages = 2;
        w.msgs_per_flow = 3;
        w.proto = rep % 4 < 2 ? &proto_rgbn : &proto_gbn;
        w.loss_ppm = 30000;
        w.dup_ppm = 10000;
        w.ack_loss_ppm = 30000;
        w.dmin = 30;
        w.djit = 200;
        w.start = rep % 2 ? (uint64_t)0 - 1000u - rnic_prng_below(&p, 2000) : rnic_prng_next(&p); /* odd reps cross 2^64 */
        w.wrap_seq = rep == 2;
        /* the rate flows' RTO above a 4,000 B segment's time at 0.5 Gb/s (64 us): shorter, go-back-N
         * re-marks the window faster than the pacer can send it and a flow may not finish */
        w.rto_us = w.proto == &proto_rgbn ? 300 : 20;
        w.delack_us = 2;
        w.max_msg = 60000;
        w.max_seg = 4000;
        w.rate_lo = 500000000ull;
        w.rate_hi = 20000000000ull;
        w.seed = rnic_prng_next(&p);
        w.max_cycles = 3000000;
        w.check = false;
        net_init(&a, &w);
        net_run(&a);
        w.ff = true;
        net_init(&b, &w);
        net_run(&b);
        CHECK_EQ(a.done_flows, w.nflows);
        CHECK_EQ(b.done_flows, w.nflows);
        {   /* both to one end cycle: the same records up to it */
            uint64_t end = (a.now - w.start > b.now - w.start ? a.now - w.start : b.now - w.start) + 3000u;
            net_loop(&a, end);
            net_loop(&b, end);
            CHECK_EQ(a.now, b.now);
        }
        all_timeouts += tp_get_stats(a.t)->timeouts;
        ident = true;
        for (k = 0; k < 4; k++) {
            size_t i;
            if (a.logs[k].n != b.logs[k].n)
                ident = false;
            CHECK_EQ(a.logs[k].n, b.logs[k].n);
            for (i = 0; i < a.logs[k].n && i < b.logs[k].n; i++)
                if (memcmp(&a.logs[k].a[i].w, &b.logs[k].a[i].w, sizeof(rnic_work)) != 0) {
                    printf("  port %d record %zu differs: tick cycle %" PRIu64 " index %u, ff cycle %" PRIu64 " index %u\n", k, i,
                           a.logs[k].a[i].w.cycle, a.logs[k].a[i].w.index, b.logs[k].a[i].w.cycle, b.logs[k].a[i].w.index);
                    CHECK(0);
                    ident = false;
                    break;
                }
        }
        {
            tp_stats sa = *tp_get_stats(a.t), sb = *tp_get_stats(b.t);
            sa.cycles = sb.cycles = 0; /* the runs stop at different cycles */
            CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        }
        printf("  rep %d (%s, start %" PRIu64 "): %zu segments, %" PRIu64 " timeouts, %" PRIu64 " cycles; ff %s\n", rep,
               w.proto->name, w.start, a.logs[0].n, tp_get_stats(a.t)->timeouts, a.now - w.start,
               ident ? "identical" : "DIFFERS");
        net_free(&a);
        net_free(&b);
    }
    CHECK(all_timeouts > 0);
}

/* ---------------------------------------------------------------- small scenarios */

static tp *mk(tp_config *c, amem *m, const tp_protocol *proto, uint32_t W, uint32_t N, uint32_t max_flows)
{
    tp_config_default(c);
    c->window = W;
    c->ring = N;
    c->max_flows = max_flows;
    c->protocol = proto;
    return tp_make(c, m);
}

static void open_flow(tp *t, uint32_t flow, uint32_t seg, uint32_t init_seq, uint32_t wnd, uint32_t rto_us, uint64_t rate)
{
    tp_flow_config pr;
    tp_flow_config_default(&pr);
    pr.seg_size = seg;
    pr.max_burst = 2u * (uint64_t)seg;
    pr.init_seq = init_seq;
    pr.init_wnd = wnd;
    pr.rto_ns = (uint64_t)rto_us * 1000u;
    pr.init_rate_bps = rate;
    CHECK_EQ(tp_flow_open(t, flow, &pr), RNIC_OK);
}

static void push_msg(tp *t, uint32_t flow, uint32_t len, uint64_t addr, uint64_t tag)
{
    rnic_work m;
    memset(&m, 0, sizeof m);
    m.flow = flow;
    m.len = len;
    m.addr = addr;
    m.tag = tag;
    CHECK_EQ(tp_push_message(t, &m), RNIC_OK);
}

/* Tick `cycles` cycles, popping every segment (at most one may appear per cycle, §3.1). */
static int tick_pop(tp *t, int cycles, rnic_work *out, int max)
{
    int n = 0, c;
    rnic_work o;
    for (c = 0; c < cycles; c++) {
        int here = 0;
        tp_tick(t);
        while (tp_pop_segment(t, &o) == RNIC_OK) {
            here++;
            if (n < max)
                out[n] = o;
            n++;
        }
        CHECK(here <= 1);
    }
    return n;
}

/* 2. Segment generation (§3.2.3, §3.1): retransmissions first, the first marked from wnd_start,
 * acked ones skipped, inside the window, at most N in the ring, round robin across flows. */
static void test_generation_rules(void)
{
    tp_config c;
    amem m;
    tp *t;
    rnic_work o[64], a;
    tp_flow_view v;
    const uint32_t s0 = 0xfffffffdu; /* ids wrap past 2^32 */
    int n, i;
    static const uint32_t expect[8] = { 1, 2, 4, 5, 8, 9, 10, 11 };

    t = mk(&c, &m, &proto_ctl, 64, 64, 4);
    open_flow(t, 1, 100, s0, 8, 1000000000u, 0);
    push_msg(t, 1, 4000, 0x10000, 99);
    n = tick_pop(t, 40, o, 64);
    CHECK_EQ(n, 8);
    for (i = 0; i < 8 && i < n; i++) {
        CHECK_EQ(o[i].index, s0 + (uint32_t)i);
        CHECK_EQ(o[i].flags & TP_WORK_RTX, 0);
        CHECK_EQ(o[i].offset, 100u * (uint32_t)i);
        CHECK_EQ(o[i].addr, 0x10000u + 100u * (uint32_t)i);
        CHECK_EQ(o[i].len, 100);
        CHECK_EQ(o[i].tag, 99);
    }
    /* a duplicate ACK SACKs s0+3; then the hook marks [s0+1, s0+6) and opens the window to 12 */
    a = ack_pkt(1, TP_PKT_ACK, s0, s0 + 3u, 1, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    CHECK_EQ(tick_pop(t, 10, o, 64), 0);
    a = ack_pkt(1, TP_PKT_CNP, 0, 0, 0, (12u << 16) | (6u << 8) | 1u);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    n = tick_pop(t, 40, o, 64);
    CHECK_EQ(n, 8);
    for (i = 0; i < 8 && i < n; i++) {
        CHECK_EQ(o[i].index, s0 + expect[i]);
        CHECK_EQ(!!(o[i].flags & TP_WORK_RTX), i < 4);
        CHECK_EQ(o[i].offset, 100u * expect[i]);
    }
    CHECK_EQ(tp_flow_state(t, 1, &v), RNIC_OK);
    CHECK_EQ(v.highest_sent, s0 + 12u);
    CHECK_EQ(v.total_sent, 16); /* retransmissions included */
    CHECK_EQ(tp_get_stats(t)->segments_rtx, 4);
    tp_free(t, &m);

    /* at most N segment addresses in the ring: the TX port (1) full, the ring holds N = 4 */
    t = mk(&c, &m, &proto_ctl, 64, 4, 4);
    tp_free(t, &m);
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.window = 64;
    c.ring = 4;
    c.max_flows = 4;
    c.segment_depth = 1;
    c.protocol = &proto_ctl;
    t = tp_make(&c, &m);
    open_flow(t, 2, 100, 7, 64, 1000000000u, 0);
    push_msg(t, 2, 10000, 0, 1);
    for (i = 0; i < 50; i++)
        tp_tick(t);
    CHECK_EQ(tp_flow_state(t, 2, &v), RNIC_OK);
    CHECK_EQ(v.outstanding, 4);
    CHECK_EQ(v.highest_sent - 7u, 5); /* one in the port, four in the ring */
    CHECK(tp_get_stats(t)->tx_stalls > 0);
    {
        uint32_t next = 7;
        for (i = 0; i < 300; i++) {
            tp_tick(t);
            if (i % 3 == 0 && tp_pop_segment(t, &a) == RNIC_OK) {
                CHECK_EQ(a.index, next);
                next++;
            }
            CHECK_EQ(tp_flow_state(t, 2, &v), RNIC_OK);
            CHECK(v.outstanding <= 4);
        }
        CHECK_EQ(next, 7u + 64u); /* the window (64, no ACKs) */
    }
    tp_free(t, &m);

    /* per-packet round robin across three backlogged flows, one segment every cycle */
    t = mk(&c, &m, &proto_ctl, 64, 4, 4);
    for (i = 0; i < 3; i++) {
        open_flow(t, (uint32_t)i, 100, 1000u * (uint32_t)i, 64, 1000000000u, 0);
        push_msg(t, (uint32_t)i, 6000, 0, (uint64_t)i);
    }
    {
        rnic_work seq[200];
        uint32_t next[3] = { 0, 1000, 2000 };
        int k, bad_rr = 0, bad_gap = 0;
        n = tick_pop(t, 200, seq, 200);
        CHECK_EQ(n, 180);
        for (k = 0; k < n && k < 200; k++) {
            uint32_t f = seq[k].flow;
            CHECK(f < 3);
            if (f < 3) {
                if (seq[k].index != next[f])
                    bad_rr++;
                next[f]++;
            }
            if (k >= 3 && k < 177) {
                if (seq[k].flow != seq[k - 3].flow || seq[k].flow == seq[k - 1].flow || seq[k].flow == seq[k - 2].flow)
                    bad_rr++;
            }
            if (k >= 3 && k < 180 && seq[k].cycle != seq[k - 1].cycle + 1u)
                bad_gap++;
        }
        CHECK_EQ(bad_rr, 0);
        CHECK_EQ(bad_gap, 0);
    }
    tp_free(t, &m);
}

/* 3. App. C find-first from a moving head, find-first-zero and count against a naive scan. */
static void test_bitmap_ops(void)
{
    static const uint32_t Ws[3] = { 64, 128, 256 };
    uint64_t words[4];
    rnic_prng p;
    int wi, trial;
    rnic_prng_seed(&p, test_seed(0xb175));
    for (wi = 0; wi < 3; wi++)
        for (trial = 0; trial < 4000; trial++) {
            uint32_t W = Ws[wi], from, to, span, i, ff = 0, fz = 0, cnt = 0, k;
            bool got_ff = false, got_fz = false;
            tp_bits b;
            uint32_t density = (uint32_t)rnic_prng_below(&p, 5);
            for (k = 0; k < 4; k++) {
                uint64_t x = rnic_prng_next(&p);
                if (density == 0)
                    x = 0;
                else if (density == 1)
                    x &= rnic_prng_next(&p) & rnic_prng_next(&p) & rnic_prng_next(&p);
                else if (density == 3)
                    x |= rnic_prng_next(&p) | rnic_prng_next(&p);
                else if (density == 4)
                    x = ~(uint64_t)0 ^ ((uint64_t)1 << rnic_prng_below(&p, 64));
                words[k] = x;
            }
            from = rnic_prng_chance(&p, 1, 3) ? 0u - (uint32_t)rnic_prng_below(&p, 2u * W) : (uint32_t)rnic_prng_next(&p);
            span = (uint32_t)rnic_prng_below(&p, W + 1u);
            to = from + span;
            b.words = words;
            b.nbits = W;
            b.base = from - (uint32_t)rnic_prng_below(&p, W - span + 1u); /* the range inside the ring's window */
            for (i = 0; i < span; i++) {
                uint32_t s = from + i, pos = s & (W - 1u);
                bool set = (words[pos >> 6] >> (pos & 63u)) & 1u;
                if (set && !got_ff) {
                    ff = s;
                    got_ff = true;
                }
                if (!set && !got_fz) {
                    fz = s;
                    got_fz = true;
                }
                cnt += set;
            }
            CHECK_EQ(tp_bits_find_first(&b, from, to), got_ff ? ff : to);
            CHECK_EQ(tp_bits_find_first_zero(&b, from, to), got_fz ? fz : to);
            CHECK_EQ(tp_bits_count(&b, from, to), cnt);
            {
                uint32_t s = b.base + (uint32_t)rnic_prng_below(&p, W), pos = s & (W - 1u);
                CHECK_EQ(tp_bits_test(&b, s), (words[pos >> 6] >> (pos & 63u)) & 1u);
                CHECK_EQ(tp_bits_test(&b, b.base + W + (uint32_t)rnic_prng_below(&p, 1000)), 0);
                CHECK_EQ(tp_bits_test(&b, b.base - 1u - (uint32_t)rnic_prng_below(&p, 1000)), 0);
            }
            if (TEST_FAILS()) {
                printf("  W %u from %u to %u\n", W, from, to);
                return;
            }
        }
    /* the paper's example (App. C): bits 5 and 30 set, head 6 -> 30 (on a 64-bit ring here) */
    {
        tp_bits b;
        words[0] = ((uint64_t)1 << 5) | ((uint64_t)1 << 30);
        b.words = words;
        b.nbits = 64;
        b.base = 6;
        CHECK_EQ(tp_bits_find_first(&b, 6, 6 + 64), 30);
        CHECK_EQ(tp_bits_find_first(&b, 31, 31 + 64), 64 + 5);
        CHECK_EQ(tp_bits_find_first(&b, 31, 31 + 30), 31 + 30);
    }
}

/* ---- 4. merge rules and the periodic scan */

typedef struct mrg_ctx {
    uint32_t in_cnt, per_cnt;
} mrg_ctx;
typedef struct plog {
    uint64_t now;
    uint32_t flow;
    bool timeout;
} plog;
static plog g_plog[4096];
static int g_nplog;
static uint64_t g_last_in_now;
static void mrg_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    ((mrg_ctx *)ctx)->in_cnt++;
    g_last_in_now = ev->now;
    if (ev->pkt_data == 1)
        a->reset_timer = true;
}
static void mrg_per(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)a;
    ((mrg_ctx *)ctx)->per_cnt++;
    if (g_nplog < 4096) {
        g_plog[g_nplog].now = ev->now;
        g_plog[g_nplog].flow = ev->flow;
        g_plog[g_nplog].timeout = ev->timeout;
        g_nplog++;
    }
}
static const tp_protocol proto_mrg = { "mrg", TP_CREDIT_WINDOW, sizeof(mrg_ctx), gbn_init, mrg_in, mrg_per, false, TP_MERGE_INCOMING, NULL, NULL };
static const tp_protocol proto_mrg_in = { "mrg_in", TP_CREDIT_WINDOW, sizeof(mrg_ctx), gbn_init, mrg_in, mrg_per, true, TP_MERGE_INCOMING, NULL, NULL };
static const tp_protocol proto_mrg_per = { "mrg_per", TP_CREDIT_WINDOW, sizeof(mrg_ctx), gbn_init, mrg_in, mrg_per, true, TP_MERGE_PERIODIC, NULL, NULL };

static uint64_t g_gen_cycle;
static void gen_trace(void *user, const rnic_trace_event *e)
{
    (void)user;
    if (e->kind == TP_TRACE_GENERATE)
        g_gen_cycle = e->cycle;
}

static int timeouts_at(uint64_t cycle)
{
    int i, n = 0;
    for (i = 0; i < g_nplog; i++)
        n += g_plog[i].timeout && g_plog[i].now == cycle;
    return n;
}
static int timeouts_total(void)
{
    int i, n = 0;
    for (i = 0; i < g_nplog; i++)
        n += g_plog[i].timeout;
    return n;
}

/* The first cycle >= d at which the scan visits flow f: (cycle - start) mod F == f. */
static uint64_t visit_ref(uint64_t d, uint64_t start, uint32_t F, uint32_t f)
{
    uint64_t c = d;
    while ((c - start) % F != f)
        c++;
    return c;
}

/* kind 0: timer armed by segment generation, nothing else; 1: armed by a hook, nothing at the
 * fire cycle; 2: a duplicate ACK's hook in the fire cycle; 3: an ACK that re-arms in the fire cycle. */
static void timer_case(int kind)
{
    const uint64_t S = 1000003u;
    const uint32_t F = 8, f = 3, rto = 1000; /* 10 us at 100 MHz */
    tp_config c;
    amem m;
    tp *t;
    rnic_work o, a;
    uint64_t D, T;
    const uint32_t s0 = 500;
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = F;
    c.window = 64;
    c.protocol = &proto_mrg;
    c.start_cycle = S;
    c.trace = gen_trace;
    t = tp_make(&c, &m);
    g_nplog = 0;
    open_flow(t, f, 100, s0, 8, 10, 0);
    push_msg(t, f, 100, 0, 1);
    while (tp_pop_segment(t, &o) != RNIC_OK)
        tp_tick(t);
    D = g_gen_cycle + rto;
    if (kind > 0) { /* re-arm from the incoming hook: a duplicate ACK with aux 1 */
        a = ack_pkt(f, TP_PKT_ACK, s0, 0, 0, 1);
        CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
        tp_tick(t);
        tp_tick(t);
        D = g_last_in_now + rto;
    }
    T = visit_ref(D, S, F, f);
    if (kind >= 2) {
        while (tp_now(t) != T - 1u)
            tp_tick(t);
        a = ack_pkt(f, TP_PKT_ACK, s0, 0, 0, kind == 3 ? 1u : 0u);
        CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    }
    while (tp_now(t) != T + 2000u)
        tp_tick(t);
    if (kind <= 1) {
        CHECK_EQ(timeouts_at(T), 1);
        CHECK_EQ(timeouts_total(), 1);
        CHECK_EQ(tp_get_stats(t)->timeouts, 1);
        CHECK_EQ(tp_get_stats(t)->timeouts_discarded, 0);
        CHECK(T - D < F); /* detection latency below one scan round */
    } else {
        CHECK_EQ(g_last_in_now, T); /* the ACK's programmable stage ran in the fire cycle */
        CHECK_EQ(timeouts_at(T), 0);
        CHECK_EQ(tp_get_stats(t)->timeouts_discarded, 1);
        if (kind == 2) {
            CHECK_EQ(timeouts_at(T + F), 1); /* seen at the flow's next visit */
            CHECK_EQ(timeouts_total(), 1);
        } else {
            uint64_t T2 = visit_ref(T + rto, S, F, f);
            CHECK_EQ(timeouts_at(T + F), 0);
            CHECK_EQ(timeouts_at(T2), 1); /* the re-armed timer */
            CHECK_EQ(timeouts_total(), 1);
        }
    }
    if (TEST_FAILS())
        printf("  timer case %d: D %" PRIu64 " T %" PRIu64 " (rel %" PRIu64 "), timeouts %" PRIu64 " discarded %" PRIu64
               ", periodic timeout calls %d\n",
               kind, D - S, T - S, T - D, tp_get_stats(t)->timeouts, tp_get_stats(t)->timeouts_discarded, timeouts_total());
    tp_free(t, &m);
}

static void test_timer_generation_armed(void) { timer_case(0); }

static void test_merge_rules(void)
{
    int kind, pi;
    for (kind = 1; kind <= 3; kind++)
        timer_case(kind);
    /* the periodic scan visits flow (now - start) mod max_flows; user context merge (§3.4) */
    for (pi = 0; pi < 2; pi++) {
        const uint64_t S = 77;
        const uint32_t F = 8;
        tp_config c;
        amem m;
        tp *t;
        tp_flow_view v;
        rnic_work a;
        int i, visits3 = 0, visits5 = 0, bad = 0;
        tp_config_default(&c);
        c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        c.max_flows = F;
        c.window = 64;
        c.protocol = pi ? &proto_mrg_per : &proto_mrg_in;
        c.start_cycle = S;
        t = tp_make(&c, &m);
        g_nplog = 0;
        open_flow(t, 3, 100, 0, 8, 1000000, 0);
        open_flow(t, 5, 100, 0, 8, 1000000, 0);
        while ((tp_now(t) - S) % F != 2u)
            tp_tick(t);
        a = ack_pkt(3, TP_PKT_ACK, 0, 0, 0, 0);
        CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
        while (tp_now(t) - S < 200u)
            tp_tick(t);
        CHECK_EQ(g_last_in_now, S + 3u + F * ((g_last_in_now - S) / F)); /* the hook hit a visit of flow 3 */
        for (i = 0; i < g_nplog; i++) {
            if ((g_plog[i].now - S) % F != g_plog[i].flow || g_plog[i].timeout)
                bad++;
            visits3 += g_plog[i].flow == 3;
            visits5 += g_plog[i].flow == 5;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(visits3, 200 / 8);
        CHECK_EQ(visits5, 200 / 8);
        CHECK_EQ(tp_flow_state(t, 3, &v), RNIC_OK);
        if (pi == 0) { /* incoming's update wins: the periodic one of that cycle is lost */
            CHECK_EQ(((const mrg_ctx *)v.ctx)->in_cnt, 1);
            CHECK_EQ(((const mrg_ctx *)v.ctx)->per_cnt, (uint32_t)visits3 - 1u);
        } else {
            CHECK_EQ(((const mrg_ctx *)v.ctx)->in_cnt, 0);
            CHECK_EQ(((const mrg_ctx *)v.ctx)->per_cnt, (uint32_t)visits3);
        }
        CHECK_EQ(tp_flow_state(t, 5, &v), RNIC_OK);
        CHECK_EQ(((const mrg_ctx *)v.ctx)->per_cnt, (uint32_t)visits5);
        tp_free(t, &m);
    }
}

/* ---- 5. rate credit against an exact pacer (App. B), token credit */

typedef struct dep {
    uint64_t cycle;
    uint32_t len;
} dep;

/* Run one backlogged rate flow until `count` segments left; ACK each at once. Returns how
 * many left; their departures in d. */
static int rate_run(tp *t, uint32_t flow, uint32_t count, dep *d)
{
    int n = 0;
    rnic_work o, a;
    while ((uint32_t)n < count) {
        uint64_t ran = tp_advance(t, (uint64_t)1 << 36);
        int got = 0;
        while (tp_pop_segment(t, &o) == RNIC_OK) {
            got++;
            if ((uint32_t)n < count) {
                d[n].cycle = o.cycle;
                d[n].len = o.len;
            }
            n++;
            a = ack_pkt(flow, TP_PKT_ACK, o.index + 1u, 0, 0, 0);
            CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
        }
        if (!got && ran == ((uint64_t)1 << 36))
            break; /* nothing more */
    }
    return n;
}

static void test_rate_credit(void)
{
    const uint64_t hz = 100000000u;
    rnic_prng p;
    int trial;
    double worst_late[6] = { 0 };
    rnic_prng_seed(&p, test_seed(0x4a7e));
    for (trial = 0; trial < 14; trial++) {
        tp_config c;
        amem m;
        tp *t;
        uint64_t R = trial == 0 ? 1000000u : trial == 1 ? 100000000000ull : rnic_prng_log_range(&p, 1000000u, 100000000000ull);
        uint32_t seg = (uint32_t)rnic_prng_log_range(&p, 64, 9000), count = 1000, k;
        uint64_t D, S = 0, t0, start = rnic_prng_next(&p) >> 1, late_max = 0;
        dep *d;
        int n, early = 0, dec = 0;
        double meas, err;
        uint64_t x;
        /* one segment per cycle at most: keep R at or below half of it */
        while ((uint64_t)seg * 8u * hz / 2u < R)
            seg = seg * 2u > 9000u ? 9000u : seg * 2u;
        if ((uint64_t)seg * 8u * hz / 2u < R)
            R = (uint64_t)seg * 8u * hz / 2u;
        for (x = R; x >= 10000000u; x /= 10u)
            dec++;
        /* enough packets that the run lasts >= 30,000 cycles: the engine's pipeline (a segment
         * leaves two cycles after its message is pushed) then weighs < 0.01 % in the long-run rate */
        while (count < 16000u && (uint64_t)count * seg * 8u * hz / R < 30000u)
            count *= 2u;
        d = (dep *)calloc(count, sizeof *d);
        tp_config_default(&c);
        c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        c.window = 256;
        c.max_flows = 4;
        c.message_depth = 64;
        c.protocol = &proto_rate;
        c.start_cycle = start;
        t = tp_make(&c, &m);
        open_flow(t, 1, seg, (uint32_t)rnic_prng_next(&p), 256, 4000000000u, R);
        D = 2u * (uint64_t)seg;
        t0 = tp_now(t);
        for (k = 0; k < 64; k++) /* 64 messages of 20..40 segments, the last one short */
            push_msg(t, 1, seg * (uint32_t)rnic_prng_range(&p, 19, 39) * (count / 1000u) + 1u + (uint32_t)rnic_prng_below(&p, seg), 0, k);
        n = rate_run(t, 1, count, d);
        CHECK((uint32_t)n >= count);
        for (k = 0; k < count && k < (uint32_t)n; k++) {
            uint64_t need = 0, prev;
            S += d[k].len;
            if (S > D) { /* the exact token bucket: S_k <= D + R (t_k - t0) */
                uint64_t num = (S - D) * 8u * hz;
                need = num / R + (num % R != 0);
            }
            if (d[k].cycle - t0 < need)
                early++;
            prev = k ? d[k - 1].cycle - t0 + 1u : 0;
            if (d[k].cycle - t0 > (need > prev ? need : prev) && d[k].cycle - t0 - (need > prev ? need : prev) > late_max)
                late_max = d[k].cycle - t0 - (need > prev ? need : prev);
        }
        CHECK_EQ(early, 0);
        /* long run: the bytes the exact pacer lets out by the last departure (all but the
         * initial bucket D) over the time taken */
        meas = (double)(S - D) * 8.0 * (double)hz / (double)(d[count - 1].cycle - t0);
        err = meas / (double)R - 1.0;
        CHECK(err < 0.001 && err > -0.001);
        if (dec > 4)
            dec = 4;
        if ((double)late_max > worst_late[dec])
            worst_late[dec] = (double)late_max;
        if (TEST_FAILS())
            printf("  rate %" PRIu64 " seg %u: early %d, rate error %.5f %%\n", R, seg, early, err * 100.0);
        free(d);
        tp_free(t, &m);
    }
    printf("  worst lateness (cycles past the exact pacer's earliest time): 1-10 Mb/s %.0f, 10-100 Mb/s %.0f, 0.1-1 Gb/s %.0f,"
           " 1-10 Gb/s %.0f, 10-100 Gb/s %.0f\n",
           worst_late[0], worst_late[1], worst_late[2], worst_late[3], worst_late[4]);

    /* a rate change re-times a waiting flow: 1 Mb/s, then 100 Gb/s while the third segment waits */
    {
        tp_config c;
        amem m;
        tp *t;
        dep d[8];
        rnic_work a, o;
        uint64_t t0, push_at;
        int n = 0;
        tp_config_default(&c);
        c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        c.max_flows = 2;
        c.protocol = &proto_rate;
        t = tp_make(&c, &m);
        open_flow(t, 0, 1000, 0, 64, 4000000000u, 1000000u);
        t0 = tp_now(t);
        push_msg(t, 0, 8000, 0, 1);
        while (tp_now(t) - t0 < 1000u) {
            tp_tick(t);
            while (tp_pop_segment(t, &o) == RNIC_OK && n < 8)
                d[n++].cycle = o.cycle;
        }
        CHECK_EQ(n, 2); /* the burst allowance D = 2 segments; the third waits 8 ms */
        a = ack_pkt(0, TP_PKT_CNP, 0, 0, 0, 100000000u); /* 100 Gb/s in kb/s */
        push_at = tp_now(t);
        CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
        while (tp_now(t) - t0 < 2000u) {
            tp_tick(t);
            while (tp_pop_segment(t, &o) == RNIC_OK && n < 8)
                d[n++].cycle = o.cycle;
        }
        CHECK_EQ(n, 8);
        /* the hook runs at push_at + 1; 1000 B at 125 B/cycle is 8 cycles; then one per 8 cycles */
        CHECK(n > 2 && d[2].cycle >= push_at + 1u && d[2].cycle <= push_at + 1u + 8u + 3u);
        CHECK(n == 8 && d[7].cycle <= push_at + 1u + 6u * 8u + 8u);
        /* and down to 10 Mb/s with more data queued: after the hook (cycle h) the flow sends at
         * most its bucket D = 2000 B plus 10 Mb/s worth: S(t) <= D + R (t - h) */
        push_msg(t, 0, 20000, 0, 2);
        for (n = 0; n < 3; n++) { /* let some leave at 100 Gb/s first */
            tp_tick(t);
            while (tp_pop_segment(t, &o) == RNIC_OK)
                ;
        }
        a = ack_pkt(0, TP_PKT_CNP, 0, 0, 0, 10000u);
        push_at = tp_now(t);
        CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
        {
            uint64_t h = push_at + 1u, sent = 0;
            int early = 0, after = 0;
            while (tp_now(t) - push_at < 20000000u) {
                tp_advance(t, 20000000u - (tp_now(t) - push_at));
                while (tp_pop_segment(t, &o) == RNIC_OK) {
                    if (o.cycle < h)
                        continue;
                    after++;
                    sent += o.len;
                    if (sent > 2000u && (sent - 2000u) * 8u * 100000000u > 10000000u * (o.cycle - h))
                        early++;
                }
            }
            CHECK_EQ(early, 0);
            CHECK(after >= 10); /* ~ 2 + 20 ms * 10 Mb/s / 8 / 1000 B = 27 */
        }
        tp_free(t, &m);
    }

    /* token credit: only as many bytes as grants allowed (greedy prefix of the segments) */
    {
        tp_config c;
        amem m;
        tp *t;
        rnic_work o, a;
        uint32_t lens[200], nseg = 0, k, acked = 10;
        uint64_t granted = 0, sent = 0, ref;
        int cyc, bad = 0;
        tp_config_default(&c);
        c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        c.max_flows = 2;
        c.protocol = &proto_tok;
        c.window = 256;
        t = tp_make(&c, &m);
        open_flow(t, 1, 1000, 10, 256, 4000000000u, 0);
        for (k = 0; k < 5; k++) {
            uint32_t len = 1000u * (uint32_t)rnic_prng_range(&p, 2, 20) + (uint32_t)rnic_prng_below(&p, 1000), off;
            push_msg(t, 1, len, 0, k);
            for (off = 0; off < len; off += 1000)
                lens[nseg++] = len - off < 1000 ? len - off : 1000;
        }
        for (cyc = 0; cyc < 20000; cyc++) {
            if (cyc % 97 == 5 && cyc < 15000 && tp_space_incoming(t)) {
                uint32_t g = 1 + (uint32_t)rnic_prng_below(&p, 2500);
                a = ack_pkt(1, TP_PKT_GRANT, acked, 0, 0, g);
                CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
                granted += g;
            }
            tp_tick(t);
            while (tp_pop_segment(t, &o) == RNIC_OK) {
                sent += o.len;
                acked = o.index + 1u;
            }
            if (sent > granted)
                bad++;
        }
        CHECK_EQ(bad, 0);
        for (ref = 0, k = 0; k < nseg && ref + lens[k] <= granted; k++)
            ref += lens[k];
        CHECK_EQ(sent, ref);
        CHECK(sent > 0);
        tp_free(t, &m);
    }
}

/* ---- 6. external pacer */

typedef struct pacer_log {
    uint32_t doorbells[8];
    uint64_t last_rate[8];
    uint32_t rate_calls;
    rl *r;
} pacer_log;
static void pl_doorbell(void *user, uint32_t flow)
{
    pacer_log *l = (pacer_log *)user;
    if (flow < 8)
        l->doorbells[flow]++;
    if (l->r)
        CHECK_EQ(rl_doorbell(l->r, flow), RNIC_OK);
}
static void pl_rate(void *user, uint32_t flow, uint64_t bps)
{
    pacer_log *l = (pacer_log *)user;
    if (flow < 8)
        l->last_rate[flow] = bps;
    l->rate_calls++;
    if (l->r)
        CHECK_EQ(rl_set_rate(l->r, flow, bps), RNIC_OK);
}

static void test_external_pacer(void)
{
    tp_config c;
    amem m;
    tp *t;
    pacer_log pl;
    rnic_work out[8], a, o;
    tp_flow_view v;
    uint32_t n, i;
    int k;
    memset(&pl, 0, sizeof pl);
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 4;
    c.ring = 4;
    c.protocol = &proto_rate;
    c.external_pacer = true;
    c.pacer.doorbell = pl_doorbell;
    c.pacer.set_rate = pl_rate;
    c.pacer.user = &pl;
    t = tp_make(&c, &m);
    open_flow(t, 2, 1000, 50, 64, 4000000000u, 10000000000ull);
    CHECK_EQ(pl.rate_calls, 1);
    CHECK_EQ(pl.last_rate[2], 10000000000ull);
    push_msg(t, 2, 10000, 0x1000, 5);
    for (k = 0; k < 20; k++)
        tp_tick(t);
    CHECK_EQ(pl.doorbells[2], 4); /* one per segment entering the ring, N = 4 */
    CHECK_EQ(tp_pop_segment(t, &o), RNIC_EEMPTY);
    CHECK_EQ(tp_flow_state(t, 2, &v), RNIC_OK);
    CHECK_EQ(v.outstanding, 4);
    n = tp_pacer_source(t, 2, 0, out, 8);
    CHECK_EQ(n, 4);
    for (i = 0; i < n; i++) {
        CHECK_EQ(out[i].index, 50u + i);
        CHECK_EQ(out[i].offset, 1000u * i);
        CHECK_EQ(out[i].addr, 0x1000u + 1000u * i);
    }
    n = tp_pacer_source(t, 2, 2, out, 8);
    CHECK_EQ(n, 2);
    CHECK(n < 1 || out[0].index == 52u);
    CHECK_EQ(tp_pacer_source(t, 2, 4, out, 8), 0);
    {
        uint64_t e0 = tp_get_stats(t)->errors.by_cause[RNIC_ESTALE];
        CHECK_EQ(tp_push_consumed(t, &(rnic_work){.flow = 2, .index = 1}), RNIC_ESTALE);
        CHECK_EQ(tp_get_stats(t)->errors.by_cause[RNIC_ESTALE], e0 + 1u);
        CHECK_EQ(tp_flow_state(t, 2, &v), RNIC_OK);
        CHECK_EQ(v.outstanding, 4);
    }
    CHECK_EQ(tp_push_consumed(t, &(rnic_work){.flow = 2, .index = 0}), RNIC_OK);
    CHECK_EQ(tp_flow_state(t, 2, &v), RNIC_OK);
    CHECK_EQ(v.outstanding, 3);
    for (k = 0; k < 5; k++)
        tp_tick(t);
    CHECK_EQ(pl.doorbells[2], 5);
    n = tp_pacer_source(t, 2, 1, out, 8);
    CHECK_EQ(n, 4);
    CHECK(n < 4 || (out[0].index == 51u && out[3].index == 54u));
    CHECK_EQ(tp_get_stats(t)->pacer_consumed, 1);
    a = ack_pkt(2, TP_PKT_CNP, 0, 0, 0, 2500000u); /* 2.5 Gb/s */
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    tp_tick(t);
    tp_tick(t);
    CHECK_EQ(pl.rate_calls, 2);
    CHECK_EQ(pl.last_rate[2], 2500000000ull);
    tp_free(t, &m);

    /* with Tassel (ratelimit.h) as the pacer: every segment out once, in order */
    {
        rl_config rc;
        amem rm;
        rl *r = (rl *)malloc(sizeof(rl));
        rnic_prng p;
        uint64_t *want_addr[6];
        uint32_t *want_len[6], nseg[6] = { 0 }, got[6] = { 0 }, f, total = 0, all = 0, bad = 0;
        size_t need;
        uint64_t cyc;
        rnic_prng_seed(&p, 0x7a55e1);
        memset(&pl, 0, sizeof pl);
        rl_config_default(&rc);
        rc.clock_hz = 250000000u;
        rc.max_flows = 8;
        rc.mtu = 4096;
        rc.source = tp_pacer_source;
        tp_config_default(&c);
        c.clock_hz = 250000000u;
        c.max_flows = 8;
        c.ring = 8;
        c.message_depth = 16;
        c.protocol = &proto_rate;
        c.external_pacer = true;
        c.pacer.doorbell = pl_doorbell;
        c.pacer.set_rate = pl_rate;
        c.pacer.user = &pl;
        t = tp_make(&c, &m);
        rc.source_user = t;
        need = rl_mem_size(&rc);
        CHECK_EQ(rl_init(r, &rc, amem_get(&rm, need), need), RNIC_OK);
        pl.r = r;
        for (f = 0; f < 6; f++) {
            uint32_t seg = (uint32_t)rnic_prng_range(&p, 64, 4096), k2, off;
            open_flow(t, f, seg, (uint32_t)rnic_prng_next(&p), 64, 4000000000u, rnic_prng_log_range(&p, 1000000000u, 20000000000ull));
            want_addr[f] = (uint64_t *)malloc(16 * 64 * sizeof(uint64_t));
            want_len[f] = (uint32_t *)malloc(16 * 64 * sizeof(uint32_t));
            for (k2 = 0; k2 < 16; k2++) {
                uint32_t len = (uint32_t)rnic_prng_range(&p, 1, 60u * seg);
                push_msg(t, f, len, ((uint64_t)(f + 1u) << 40) | ((uint64_t)k2 << 24), k2);
                for (off = 0; off < len; off += seg) {
                    want_addr[f][nseg[f]] = (((uint64_t)(f + 1u) << 40) | ((uint64_t)k2 << 24)) + off;
                    want_len[f][nseg[f]++] = len - off < seg ? len - off : seg;
                }
            }
            total += nseg[f];
        }
        for (cyc = 0; cyc < 3000000u && all < total; cyc++) {
            tp_tick(t);
            rl_tick(r);
            while (rl_pop_tx(r, &o) == RNIC_OK) {
                f = o.flow;
                if (f >= 6 || got[f] >= nseg[f] || o.addr != want_addr[f][got[f]] || o.len != want_len[f][got[f]] ||
                    !(o.flags & RNIC_WORK_LAST) || (o.flags & RNIC_WORK_ERROR)) {
                    if (bad++ < 3)
                        printf("  Tassel record: flow %u addr %" PRIx64 " len %u flags %x (segment %u)\n", o.flow, o.addr, o.len,
                               o.flags, f < 6 ? got[f] : 0);
                    continue;
                }
                CHECK_EQ(tp_push_consumed(t, &(rnic_work){.flow = f, .index = o.index}), RNIC_OK);
                got[f]++;
                all++;
                {
                    tp_flow_view fv;
                    CHECK_EQ(tp_flow_state(t, f, &fv), RNIC_OK);
                    a = ack_pkt(f, TP_PKT_ACK, fv.wnd_start + 1u, 0, 0, 0);
                    if (tp_space_incoming(t))
                        CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
                }
            }
            while (tp_pop_completion(t, &o) == RNIC_OK)
                ;
        }
        CHECK_EQ(bad, 0);
        CHECK_EQ(all, total);
        CHECK_EQ(tp_get_stats(t)->pacer_consumed, total);
        CHECK_EQ(tp_get_stats(t)->segments_new, total);
        for (f = 0; f < 6; f++) {
            CHECK_EQ(got[f], nseg[f]);
            CHECK_EQ(pl.doorbells[f], nseg[f]);
            free(want_addr[f]);
            free(want_len[f]);
        }
        printf("  Tassel paced %u segments of 6 flows in %" PRIu64 " cycles\n", all, cyc);
        free(r);
        amem_free(&rm);
        tp_free(t, &m);
    }
}

/* ---- 8. bad input: refused, counted in stats.errors, state intact */

static bool views_equal(const tp_flow_view *a, const tp_flow_view *b)
{
    return a->open == b->open && a->wnd_start == b->wnd_start && a->wnd_size == b->wnd_size &&
           a->highest_sent == b->highest_sent && a->data_end == b->data_end && a->total_sent == b->total_sent &&
           a->outstanding == b->outstanding && a->messages == b->messages && a->timer_running == b->timer_running &&
           a->timer_deadline == b->timer_deadline && a->timer_amount == b->timer_amount && a->rate_bps == b->rate_bps &&
           a->credit == b->credit;
}

static void test_bad_input(void)
{
    tp_config c, bad;
    tp_rx_config rc, rbad;
    amem m;
    tp *t;
    rnic_work w, a, o;
    tp_flow_view v0, v1;
    const char *field;
    uint64_t expect_err = 0, e0;
    int i;
    static const tp_protocol p448 = { "w448", TP_CREDIT_WINDOW, 448, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };
    static const tp_protocol p449 = { "w449", TP_CREDIT_WINDOW, 449, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };
    static const tp_protocol p340 = { "r340", TP_CREDIT_RATE, 340, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };
    static const tp_protocol p341 = { "r341", TP_CREDIT_RATE, 341, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };
    static const tp_protocol p256 = { "t256", TP_CREDIT_TOKEN, 256, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };
    static const tp_protocol p257 = { "t257", TP_CREDIT_TOKEN, 257, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };
    static const tp_protocol pbad = { "bad", 7u, 8, gbn_init, gbn_in, gbn_per, false, TP_MERGE_INCOMING, NULL, NULL };

    /* config checks name the bad field */
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.protocol = &proto_gbn;
    CHECK_EQ(tp_config_check(&c, &field), RNIC_OK);
#define TP_BAD(stmt, name)                                                              \
    do {                                                                                \
        bad = c;                                                                        \
        stmt;                                                                           \
        field = NULL;                                                                   \
        CHECK_EQ(tp_config_check(&bad, &field), RNIC_EINVAL);                           \
        CHECK(field && strcmp(field, name) == 0);                                       \
        CHECK_EQ(tp_mem_size(&bad), 0);                                                 \
    } while (0)
    TP_BAD(bad.clock_hz = 0, "clock_hz");
    TP_BAD(bad.link_bps = 0, "link_bps");
    TP_BAD(bad.min_rate_bps = bad.link_bps + 1u, "min_rate_bps");
    TP_BAD(bad.max_flows = 0, "max_flows");
    TP_BAD(bad.max_flows = TP_MAX_FLOWS + 1u, "max_flows");
    TP_BAD(bad.window = 100, "window");
    TP_BAD(bad.window = 512, "window");
    TP_BAD(bad.ring = 0, "ring");
    TP_BAD(bad.ring = 128, "ring");
    TP_BAD(bad.message_depth = 0, "message_depth");
    TP_BAD(bad.message_depth = TP_MAX_MESSAGES + 1u, "message_depth");
    TP_BAD(bad.incoming_depth = 0, "incoming_depth");
    TP_BAD(bad.segment_depth = 0, "segment_depth");
    TP_BAD(bad.completion_depth = 0, "completion_depth");
    TP_BAD(bad.protocol = NULL, "protocol");
    TP_BAD(bad.protocol = &pbad, "protocol");
    TP_BAD(bad.protocol = &p449, "protocol"); /* Table 4 budgets: 448 / 340 / 256 bytes */
    TP_BAD(bad.protocol = &p341, "protocol");
    TP_BAD(bad.protocol = &p257, "protocol");
    TP_BAD(bad.external_pacer = true, "external_pacer");
#undef TP_BAD
    bad = c;
    bad.protocol = &p448;
    CHECK_EQ(tp_config_check(&bad, NULL), RNIC_OK);
    bad.protocol = &p340;
    CHECK_EQ(tp_config_check(&bad, NULL), RNIC_OK);
    bad.protocol = &p256;
    CHECK_EQ(tp_config_check(&bad, NULL), RNIC_OK);
    CHECK_EQ(tp_config_check(NULL, &field), RNIC_EINVAL);

    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    CHECK_EQ(tp_rx_config_check(&rc, &field), RNIC_OK);
#define RX_BAD(stmt, name)                                                              \
    do {                                                                                \
        rbad = rc;                                                                      \
        stmt;                                                                           \
        field = NULL;                                                                   \
        CHECK_EQ(tp_rx_config_check(&rbad, &field), RNIC_EINVAL);                       \
        CHECK(field && strcmp(field, name) == 0);                                       \
        CHECK_EQ(tp_rx_mem_size(&rbad), 0);                                             \
    } while (0)
    RX_BAD(rbad.clock_hz = 0, "clock_hz");
    RX_BAD(rbad.max_flows = 0, "max_flows");
    RX_BAD(rbad.window = 32, "window");
    RX_BAD(rbad.delack_count = 0, "delack_count");
    RX_BAD(rbad.delack_ns = 0, "delack_ns");
    RX_BAD(rbad.segment_depth = 0, "segment_depth");
    RX_BAD(rbad.ack_depth = 0, "ack_depth");
    RX_BAD(rbad.delivered_depth = 0, "delivered_depth");
#undef RX_BAD

    /* memory: too small, misaligned */
    {
        size_t need;
        tp *t2 = (tp *)malloc(sizeof(tp));
        tp_rx *r2 = (tp_rx *)malloc(sizeof(tp_rx));
        unsigned char *mem;
        need = tp_mem_size(&c);
        mem = (unsigned char *)amem_get(&m, need + 64u);
        CHECK_EQ(tp_init(t2, &c, mem, need - 8u), RNIC_ENOSPC);
        CHECK_EQ(tp_init(t2, &c, mem + 1, need + 8u), RNIC_EINVAL);
        CHECK_EQ(tp_init(NULL, &c, mem, need), RNIC_EINVAL);
        CHECK_EQ(tp_init(t2, &c, NULL, need), RNIC_EINVAL);
        CHECK_EQ(tp_init(t2, &c, mem, need), RNIC_OK);
        amem_free(&m);
        need = tp_rx_mem_size(&rc);
        mem = (unsigned char *)amem_get(&m, need + 64u);
        CHECK_EQ(tp_rx_init(r2, &rc, mem, need - 8u), RNIC_ENOSPC);
        CHECK_EQ(tp_rx_init(r2, &rc, mem + 4, need + 8u), RNIC_EINVAL);
        CHECK_EQ(tp_rx_init(r2, &rc, mem, need), RNIC_OK);
        amem_free(&m);
        free(t2);
        free(r2);
    }

    /* ports and flows */
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 4;
    c.message_depth = 2;
    c.incoming_depth = 2;
    c.protocol = &proto_ctl;
    t = tp_make(&c, &m);
    tp_tick(NULL);
    CHECK_EQ(tp_next_event(NULL), RNIC_NEVER);
    memset(&w, 0, sizeof w);
    w.len = 100;
    CHECK_EQ(tp_push_message(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(tp_pop_segment(NULL, &o), RNIC_EINVAL);
    CHECK_EQ(tp_push_message(t, NULL), RNIC_EINVAL);
    expect_err++;
    CHECK_EQ(tp_pop_segment(t, NULL), RNIC_EINVAL);
    expect_err++;
    CHECK_EQ(tp_pop_completion(t, NULL), RNIC_EINVAL);
    expect_err++;
    CHECK_EQ(tp_push_incoming(t, NULL), RNIC_EINVAL);
    expect_err++;
    CHECK_EQ(tp_pop_segment(t, &o), RNIC_EEMPTY);
    w.flow = 4;
    CHECK_EQ(tp_push_message(t, &w), RNIC_ENOENT);
    expect_err++; /* unknown */
    w.flow = 1;
    CHECK_EQ(tp_push_message(t, &w), RNIC_ENOENT);
    expect_err++; /* not open */
    CHECK_EQ(tp_flow_open(t, 4, NULL), RNIC_ENOENT);
    expect_err++;
    {
        tp_flow_config pr;
        tp_flow_config_default(&pr);
        pr.seg_size = 0;
        CHECK_EQ(tp_flow_open(t, 1, &pr), RNIC_EINVAL);
        expect_err++;
    }
    open_flow(t, 1, 100, 20, 3, 4000000000u, 0);
    CHECK_EQ(tp_flow_open(t, 1, NULL), RNIC_EEXIST);
    expect_err++;
    w.len = 0;
    CHECK_EQ(tp_push_message(t, &w), RNIC_EINVAL);
    expect_err++;
    w.len = 500;
    CHECK_EQ(tp_push_message(t, &w), RNIC_OK);
    CHECK_EQ(tp_push_message(t, &w), RNIC_OK);
    CHECK_EQ(tp_flow_message_room(t, 1), 0);
    CHECK_EQ(tp_push_message(t, &w), RNIC_EBUSY);
    expect_err++; /* messages = 2 */
    CHECK_EQ(errs_total(&tp_get_stats(t)->errors), expect_err);
    for (i = 0; i < 20; i++) {
        tp_tick(t);
        while (tp_pop_segment(t, &o) == RNIC_OK)
            ;
    }
    CHECK_EQ(tp_flow_state(t, 1, &v0), RNIC_OK);
    CHECK_EQ(v0.highest_sent, 23); /* window 3 */
    /* bad packet types */
    a = ack_pkt(1, 0, 20, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_EINVAL);
    expect_err++;
    a.flags = TP_WORK_PKT(TP_PKT_DATA);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_EINVAL);
    expect_err++;
    a.flags = TP_WORK_PKT(TP_PKT_GRANT + 1u);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_EINVAL);
    expect_err++;
    /* an ACK beyond highest_sent: refused at its fixed stage, nothing changes */
    e0 = tp_get_stats(t)->errors.by_cause[RNIC_ERANGE];
    a = ack_pkt(1, TP_PKT_ACK, 24, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    tp_tick(t);
    tp_tick(t);
    expect_err++;
    CHECK_EQ(tp_get_stats(t)->errors.by_cause[RNIC_ERANGE], e0 + 1u);
    CHECK_EQ(tp_flow_state(t, 1, &v1), RNIC_OK);
    CHECK(views_equal(&v0, &v1));
    /* unknown flow in an ACK: refused at the fixed stage */
    a = ack_pkt(3, TP_PKT_ACK, 0, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    tp_tick(t);
    expect_err++;
    /* a valid ACK, then a stale one and a duplicate */
    a = ack_pkt(1, TP_PKT_ACK, 21, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    for (i = 0; i < 5; i++) {
        tp_tick(t);
        while (tp_pop_segment(t, &o) == RNIC_OK)
            ;
    }
    CHECK_EQ(tp_flow_state(t, 1, &v0), RNIC_OK);
    CHECK_EQ(v0.wnd_start, 21);
    CHECK_EQ(v0.highest_sent, 24);
    e0 = tp_get_stats(t)->errors.by_cause[RNIC_ESTALE];
    a = ack_pkt(1, TP_PKT_ACK, 20, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    tp_tick(t);
    tp_tick(t);
    expect_err++;
    CHECK_EQ(tp_get_stats(t)->errors.by_cause[RNIC_ESTALE], e0 + 1u);
    CHECK_EQ(tp_flow_state(t, 1, &v1), RNIC_OK);
    CHECK(views_equal(&v0, &v1));
    e0 = tp_get_stats(t)->acks_dup;
    a = ack_pkt(1, TP_PKT_ACK, 21, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_EBUSY);
    expect_err++; /* incoming_depth = 2 */
    tp_tick(t);
    tp_tick(t);
    tp_tick(t);
    CHECK_EQ(tp_get_stats(t)->acks_dup, e0 + 2u);
    CHECK_EQ(tp_flow_state(t, 1, &v1), RNIC_OK);
    CHECK(views_equal(&v0, &v1));
    /* close with data outstanding */
    CHECK_EQ(tp_flow_close(t, 1), RNIC_EBUSY);
    expect_err++;
    CHECK_EQ(tp_flow_close(t, 2), RNIC_ENOENT);
    expect_err++;
    CHECK_EQ(errs_total(&tp_get_stats(t)->errors), expect_err);
    /* acknowledge everything: then it closes */
    for (i = 0; i < 40; i++) {
        tp_flow_view v;
        tp_flow_state(t, 1, &v);
        if (v.highest_sent != v.wnd_start && tp_space_incoming(t)) {
            a = ack_pkt(1, TP_PKT_ACK, v.highest_sent, 0, 0, 0);
            CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
        }
        tp_tick(t);
        while (tp_pop_segment(t, &o) == RNIC_OK)
            ;
        while (tp_pop_completion(t, &o) == RNIC_OK)
            ;
    }
    CHECK_EQ(tp_flow_state(t, 1, &v1), RNIC_OK);
    CHECK_EQ(v1.wnd_start, 30);
    CHECK_EQ(v1.messages, 0);
    CHECK_EQ(tp_flow_close(t, 1), RNIC_OK);
    CHECK_EQ(tp_flow_close(t, 1), RNIC_ENOENT);
    expect_err++;
    w.flow = 1;
    CHECK_EQ(tp_push_message(t, &w), RNIC_ENOENT);
    expect_err++;
    CHECK_EQ(errs_total(&tp_get_stats(t)->errors), expect_err);
    tp_free(t, &m);

    /* receiver */
    {
        tp_rx *r;
        uint64_t rx_err = 0;
        rnic_work s;
        tp_rx_config_default(&rc);
        rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        rc.max_flows = 4;
        rc.segment_depth = 2;
        r = rx_make(&rc, &m);
        tp_rx_tick(NULL);
        CHECK_EQ(tp_rx_push_segment(NULL, &s), RNIC_EINVAL);
        CHECK_EQ(tp_rx_push_segment(r, NULL), RNIC_EINVAL);
        rx_err++;
        CHECK_EQ(tp_rx_pop_ack(r, NULL), RNIC_EINVAL);
        rx_err++;
        CHECK_EQ(tp_rx_flow_open(r, 4, NULL), RNIC_ENOENT);
        rx_err++;
        CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_OK);
        CHECK_EQ(tp_rx_flow_open(r, 0, NULL), RNIC_EEXIST);
        rx_err++;
        memset(&s, 0, sizeof s);
        s.op = TP_PKT_DATA;
        s.flow = 2; /* not open: refused when processed */
        CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
        CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
        CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_EBUSY);
        rx_err++;
        tp_rx_tick(r);
        tp_rx_tick(r);
        rx_err += 2;
        CHECK_EQ(errs_total(&tp_rx_get_stats(r)->errors), rx_err);
        CHECK_EQ(tp_rx_pop_ack(r, &s), RNIC_EEMPTY);
        CHECK_EQ(tp_rx_pop_delivered(r, &s), RNIC_EEMPTY);
        rx_free(r, &m);
    }
}

/* ---- 9. the receiver: delayed ACKs, immediate ACKs, SACK block, NACK */

static int rx_acks(tp_rx *r, rnic_work *out, int max)
{
    int n = 0;
    rnic_work a;
    while (tp_rx_pop_ack(r, &a) == RNIC_OK) {
        if (n < max)
            out[n] = a;
        n++;
    }
    return n;
}
/* Data segment `id` of `flow` (100 B) into the receiver's input; rx_seg also ticks once. */
static void rx_seg_at(tp_rx *r, uint32_t flow, uint32_t id)
{
    rnic_work s;
    memset(&s, 0, sizeof s);
    s.flow = flow;
    s.index = id;
    s.len = 100;
    s.op = TP_PKT_DATA;
    CHECK_EQ(tp_rx_push_segment(r, &s), RNIC_OK);
}

static void rx_seg(tp_rx *r, uint32_t flow, uint32_t id)
{
    rx_seg_at(r, flow, id);
    tp_rx_tick(r);
}

static void test_receiver(void)
{
    int pass;
    for (pass = 0; pass < 2; pass++) {
        tp_rx_config rc;
        amem m;
        tp_rx *r;
        rnic_work a[8], d;
        const uint32_t s0 = 0xfffffffeu; /* wraps */
        uint64_t at;
        int n, i, delivered = 0;
        tp_rx_config_default(&rc);
        rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        rc.max_flows = 2;
        rc.window = 64;
        rc.delack_ns = 10000u; /* 1000 cycles at 100 MHz */
        rc.nack = pass == 1;
        r = rx_make(&rc, &m);
        CHECK_EQ(tp_rx_flow_open(r, 1, &(tp_rx_flow_config){.init_seq = s0}), RNIC_OK);
        rx_seg(r, 1, s0);
        CHECK_EQ(rx_acks(r, a, 8), 0); /* the first in-order segment waits */
        rx_seg(r, 1, s0 + 1u);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 1); /* every second */
        CHECK(n < 1 || (a[0].index == s0 + 2u && a[0].len == 0 && TP_WORK_PKT_TYPE(a[0].flags) == TP_PKT_ACK && a[0].flow == 1));
        at = tp_rx_now(r);
        rx_seg(r, 1, s0 + 2u); /* processed in cycle `at`: the delayed-ACK timer runs to at + 1000 */
        for (i = 0; i < 998; i++)
            tp_rx_tick(r);
        CHECK_EQ(rx_acks(r, a, 8), 0);
        while (tp_rx_now(r) <= at + 1000u)
            tp_rx_tick(r);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 1);
        CHECK(n < 1 || (a[0].index == s0 + 3u && a[0].cycle == at + 1000u));
        CHECK_EQ(tp_rx_get_stats(r)->delayed_acks_sent, 1);
        /* out of order: immediate ACKs with the run holding the segment */
        rx_seg(r, 1, s0 + 5u);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 1);
        CHECK(n < 1 || (a[0].index == s0 + 3u && a[0].offset == s0 + 5u && a[0].len == 1 &&
                        TP_WORK_PKT_TYPE(a[0].flags) == (pass ? TP_PKT_NACK : TP_PKT_ACK)));
        rx_seg(r, 1, s0 + 7u);
        rx_seg(r, 1, s0 + 6u);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 2);
        CHECK(n < 2 || (a[0].offset == s0 + 7u && a[0].len == 1)); /* [7, 8) alone */
        CHECK(n < 2 || (a[1].index == s0 + 3u && a[1].offset == s0 + 5u && a[1].len == 3)); /* 6 joins [5, 8) */
        /* a duplicate of a held segment: immediate ACK, the run, not delivered again */
        rx_seg(r, 1, s0 + 6u);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 1);
        CHECK(n < 1 || (a[0].index == s0 + 3u && a[0].offset == s0 + 5u && a[0].len == 3 && TP_WORK_PKT_TYPE(a[0].flags) == TP_PKT_ACK));
        /* the gap filled: immediate cumulative ACK over the whole run */
        rx_seg(r, 1, s0 + 4u);
        rx_seg(r, 1, s0 + 3u);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 2);
        CHECK(n < 2 || (a[0].offset == s0 + 4u && a[0].len == 4));
        CHECK(n < 2 || (a[1].index == s0 + 8u && a[1].len == 0 && TP_WORK_PKT_TYPE(a[1].flags) == TP_PKT_ACK));
        /* an old duplicate: immediate ACK */
        rx_seg(r, 1, s0 + 1u);
        n = rx_acks(r, a, 8);
        CHECK_EQ(n, 1);
        CHECK(n < 1 || (a[0].index == s0 + 8u && a[0].len == 0));
        {
            uint32_t e = 0;
            CHECK_EQ(rx_expected(r, 1, &e), RNIC_OK);
            CHECK_EQ(e, s0 + 8u);
        }
        while (tp_rx_pop_delivered(r, &d) == RNIC_OK)
            delivered++;
        CHECK_EQ(delivered, 8); /* s0 .. s0+7, each once */
        CHECK_EQ(tp_rx_get_stats(r)->duplicates, 2);
        CHECK_EQ(errs_total(&tp_rx_get_stats(r)->errors), 0);
        if (TEST_FAILS())
            printf("  receiver pass %d (nack %d)\n", pass, pass);
        rx_free(r, &m);
    }
}

/* Regression (fuzz finding tests/fuzz/corpus/transport/regress_rx_trace_ticked_vs_ff): a ticked
 * receiver and a fast-forwarded one (tp_rx_advance_to) given the same inputs emit the same trace
 * events. Two flows' delayed-ACK timers are re-armed in the opposite order of their stale (lazy)
 * heap entries and come due while the ACK port is full. The ticked receiver tidied the stale
 * entries in cycles the other one skips (next_event is RNIC_NEVER while the port is full), so
 * when the port drained each fired the flow at the top of its own heap: flow 1 (earliest
 * deadline) ticked, flow 0 (earliest stale entry) fast-forwarded. Now the earliest deadline
 * fires first in both. */
typedef struct rxlog {
    rnic_trace_event ev[64];
    int n;
} rxlog;

static void rxlog_trace(void *user, const rnic_trace_event *e)
{
    rxlog *l = (rxlog *)user;
    if (l->n < 64)
        l->ev[l->n] = *e;
    l->n++;
}


static void test_rx_delack_order_ticked_vs_ff(void)
{
    tp_rx_config rc;
    amem m[2];
    tp_rx *r[2];
    rxlog lg[2];
    rnic_work a[2][8], w;
    int na[2] = { 0, 0 }, i, k;
    uint64_t D, end;
    /* (flow, id) taken one per cycle: f0 and f1 arm their timers (f0 first), each is acknowledged
     * by its second segment (the entries stay, lazy), then f1 re-arms before f0; an old duplicate
     * on flow 2 fills the one-record ACK port */
    static const uint32_t segs[7][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { 1, 2 }, { 0, 2 }, { 2, 5 } };
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = 3;
    rc.window = 64;
    rc.delack_count = 2;
    rc.delack_ns = 1000u; /* 100 cycles at 100 MHz */
    rc.ack_depth = 1;
    rc.start_cycle = UINT64_MAX - 150u; /* and across the wrap */
    rc.trace = rxlog_trace;
    memset(lg, 0, sizeof lg);
    for (k = 0; k < 2; k++) {
        rc.trace_user = &lg[k];
        r[k] = rx_make(&rc, &m[k]);
        CHECK_EQ(tp_rx_flow_open(r[k], 0, NULL), RNIC_OK);
        CHECK_EQ(tp_rx_flow_open(r[k], 1, NULL), RNIC_OK);
        CHECK_EQ(tp_rx_flow_open(r[k], 2, &(tp_rx_flow_config){.init_seq = 10}), RNIC_OK);
    }
    D = rc.start_cycle + 100u; /* f0's first deadline (its stale entry) */
    end = D + 5u + 20u;        /* both re-armed deadlines (D + 4 for f1, D + 5 for f0) are past */
    for (i = 0; i < 7; i++) {
        for (k = 0; k < 2; k++) {
            rx_seg_at(r[k], segs[i][0], segs[i][1]);
            if (k == 0)
                tp_rx_tick(r[k]);
            else
                tp_rx_advance_to(r[k], tp_rx_now(r[k]) + 1u);
            if (i < 6) /* the last ACK (flow 2's) stays: the port is full */
                while (tp_rx_pop_ack(r[k], &w) == RNIC_OK)
                    ;
        }
    }
    /* the port stays full past both deadlines: ticked every cycle, or one jump */
    while (tp_rx_now(r[0]) != end)
        tp_rx_tick(r[0]);
    CHECK_EQ(tp_rx_advance_to(r[1], end), end - (rc.start_cycle + 7u));
    CHECK_EQ(tp_rx_now(r[1]), end);
    /* drained: the two delayed ACKs leave one per cycle (the port holds one) */
    for (k = 0; k < 2; k++) {
        CHECK_EQ(tp_rx_pop_ack(r[k], &w), RNIC_OK);
        CHECK_EQ(w.flow, 2);
        while (tp_rx_now(r[k]) != end + 10u) {
            if (k == 0)
                tp_rx_tick(r[k]);
            else
                tp_rx_advance_to(r[k], end + 10u);
            while (tp_rx_pop_ack(r[k], &w) == RNIC_OK)
                if (na[k] < 8)
                    a[k][na[k]++] = w;
        }
    }
    CHECK_EQ(tp_rx_get_stats(r[0])->delayed_acks_sent, 2);
    CHECK_EQ(tp_rx_get_stats(r[1])->delayed_acks_sent, 2);
    CHECK_EQ(na[0], 2);
    CHECK_EQ(na[1], 2);
    for (k = 0; k < 2; k++) /* the earliest deadline first: f1's, then f0's */
        CHECK(na[k] == 2 && a[k][0].flow == 1 && a[k][0].cycle == end && a[k][1].flow == 0 && a[k][1].cycle == end + 1u);
    CHECK_EQ(lg[0].n, lg[1].n);
    for (i = 0; i < lg[0].n && i < lg[1].n && i < 64; i++) {
        const rnic_trace_event *x = &lg[0].ev[i], *y = &lg[1].ev[i];
        if (x->cycle != y->cycle || x->kind != y->kind || x->id != y->id || x->a != y->a || x->b != y->b) {
            CHECK(!"trace events differ");
            printf("  event %d: ticked cycle %llu kind %u flow %u a %llu, fast-forwarded cycle %llu kind %u flow %u a %llu\n", i,
                   (unsigned long long)x->cycle, (unsigned)x->kind, (unsigned)x->id, (unsigned long long)x->a,
                   (unsigned long long)y->cycle, (unsigned)y->kind, (unsigned)y->id, (unsigned long long)y->a);
            break;
        }
    }
    for (k = 0; k < 2; k++)
        rx_free(r[k], &m[k]);
}

/* Review findings of issue 10, each a regression check: grant tokens survive a refused ack
 * field; an absurd SACK block is clipped and counted (no overflow: UBSan watches); a reversed
 * bitmap range is empty; an absurd timer period is clamped and counted, not a wrapped deadline. */
static void huge_timer_in(const tp_event *ev, void *ctx, tp_actions *a)
{
    (void)ev;
    (void)ctx;
    a->timer_amount = UINT64_MAX - 5u;
    a->reset_timer = true;
}
static const tp_protocol proto_huge_timer = { "huge", TP_CREDIT_WINDOW, 8, gbn_init, huge_timer_in, nop_per, false, TP_MERGE_INCOMING, NULL, NULL };

static void test_review_regressions(void)
{
    amem m1, m2, m3;
    tp_config c;
    tp *t;
    rnic_work out[64], a;
    uint64_t w[4] = { 0, 0, 0, 0 };
    tp_bits b;
    tp_flow_view v;
    uint64_t before;
    /* grants: the first ACK is stale (behind wnd_start), its tokens still count */
    t = mk(&c, &m1, &proto_tok, 128, 4, 4);
    open_flow(t, 0, 100, 1000, 8, 1000, 0);
    push_msg(t, 0, 300, 0, 1);
    CHECK_EQ(tick_pop(t, 20, out, 64), 0); /* no credit yet */
    a = ack_pkt(0, TP_PKT_GRANT, 990, 0, 0, 250); /* cum 990 < wnd_start 1000: stale */
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    CHECK_EQ(tick_pop(t, 20, out, 64), 2); /* 250 bytes of tokens: two 100-byte segments */
    CHECK_EQ(tp_get_stats(t)->errors.by_cause[RNIC_ESTALE], 1);
    tp_free(t, &m1);
    /* SACK block with an offset 2^31 away and a length far over W */
    t = mk(&c, &m2, &proto_gbn, 128, 4, 4);
    open_flow(t, 0, 100, 0, 8, 1000, 0);
    push_msg(t, 0, 800, 0, 1);
    CHECK_EQ(tick_pop(t, 20, out, 64), 8);
    tp_flow_state(t, 0, &v);
    a = ack_pkt(0, TP_PKT_ACK, 2, 0x80000001u, 0xfffffff0u, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    tick_pop(t, 3, out, 64);
    CHECK_EQ(tp_get_stats(t)->sack_clipped, 1);
    tp_flow_state(t, 0, &v);
    CHECK_EQ(v.wnd_start, 2);
    tp_free(t, &m2);
    /* a reversed range is empty */
    w[0] = ~(uint64_t)0;
    b.words = w;
    b.nbits = 128;
    b.base = 0;
    CHECK_EQ(tp_bits_find_first(&b, 10, 5), 5);
    CHECK_EQ(tp_bits_count(&b, 10, 5), 0);
    /* a hook asking for a timer 2^64 cycles away: clamped, counted, no immediate timeout */
    t = mk(&c, &m3, &proto_huge_timer, 128, 4, 4);
    open_flow(t, 0, 100, 0, 8, 1000, 0);
    push_msg(t, 0, 800, 0, 1);
    tick_pop(t, 20, out, 64);
    a = ack_pkt(0, TP_PKT_ACK, 1, 0, 0, 0);
    CHECK_EQ(tp_push_incoming(t, &a), RNIC_OK);
    before = tp_get_stats(t)->timeouts;
    tick_pop(t, 200, out, 64);
    CHECK_EQ(tp_get_stats(t)->timeouts, before);
    CHECK_EQ(tp_get_stats(t)->timer_clamped, 1);
    tp_free(t, &m3);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(test_generation_rules);
    RUN(test_bitmap_ops);
    RUN(test_timer_generation_armed);
    RUN(test_merge_rules);
    RUN(test_rate_credit);
    RUN(test_external_pacer);
    RUN(test_bad_input);
    RUN(test_receiver);
    RUN(test_exactly_once);
    RUN(test_fast_forward);
    RUN(test_rx_delack_order_ticked_vs_ff);
    RUN(test_review_regressions);
    return test_summary();
}
