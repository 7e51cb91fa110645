/* xs_driver.h -- the small S senders -> switch -> receiver driver the IRN and NDP experiments
 * share (examples/tonic_irn_loss.c, examples/tonic_ndp_incast.c): per-message FCTs and up to
 * XS_MAX senders, which tonic_sim.h does not offer. Hosted example code: include it once, after
 * transport.h and net.h, with XS_MAX defined.
 *
 * The parts run under the composed model's event scheduler (fabric.h), as in tonic_sim.h: the
 * switch (node 0), sender h (node 1 + h) and the receiver (node S + 1) run at their own next
 * events or when a record reaches them. In a cycle the switch runs first (uplinks deliver into
 * it, it hands data to the receiver and ACKs to the senders, bringing each to the cycle and
 * waking it), then each engine executes its cycle and puts its outputs on its uplink (waking the
 * switch, whose next event covers the uplinks' arrivals). xs_cfg.tick_only runs every node
 * every cycle instead, with the same results. */
#ifndef RNIC_XS_DRIVER_H
#define RNIC_XS_DRIVER_H
#include "fabric.h"

#ifndef XS_TICK_ONLY
#define XS_TICK_ONLY 0 /* OR-ed into xs_cfg.tick_only: build an example with -DXS_TICK_ONLY=1 to run it under the oracle */
#endif

/* ---------------- the experiment's network: S senders -> switch -> receiver ---------------- */

typedef struct xs_cfg {
    uint32_t senders;
    uint64_t clock_hz, link_bps, prop_ns, buffer_bytes;
    uint32_t seg, hdr, ctrl_bytes;
    const tp_protocol *proto;
    tp_flow_config fp;
    tp_rx_config rc;           /* clock, flows, window set by xs_init */
    uint32_t drop_ppm;         /* random data loss at the receiver's port */
    uint64_t trim_bytes;       /* NDP trimming at the switch (0 = off) */
    int trim_notice_len0;      /* pass NACKs to the sender with len 0 (see tonic_ndp_incast.c) */
    uint64_t seed;
    uint32_t nmsg;             /* messages per flow */
    const uint64_t *sizes;     /* [flow * nmsg + k] */
    int tick_only;             /* 1: the fabric runs every node every cycle (its oracle) */
} xs_cfg;

struct xs;
typedef struct xs_node { /* a fabric node's self: the driver, and the sender's host number */
    struct xs *sim;
    uint32_t host;
} xs_node;

typedef struct xs {
    xs_cfg c;
    tp *snd[XS_MAX];
    void *smem[XS_MAX];
    net_link up[XS_MAX + 1u];
    net_switch sw;
    tp_rx rx;
    void *rmem;
    uint64_t now, end_cycle;
    uint32_t next_msg[XS_MAX], done_msgs;
    uint64_t post[XS_MAX], rx_bytes[XS_MAX], total_bytes;
    double *fct_us;            /* one per message */
    uint32_t nfct;
    fabric fab;                /* the scheduler: the switch, the senders, the receiver */
    xs_node node[XS_MAX + 2u];
    uint32_t switch_id, rx_id, sender_id[XS_MAX];
    uint64_t switch_cycle;     /* the cycle of the switch's last full run (switch_ran: one happened) */
    int switch_ran;
} xs;

static void xs_post(xs *s, uint32_t f)
{
    rnic_work m;
    memset(&m, 0, sizeof m);
    m.flow = f;
    m.len = (uint32_t)s->c.sizes[f * s->c.nmsg + s->next_msg[f]];
    m.tag = s->next_msg[f];
    if (tp_push_message(s->snd[f], &m) != RNIC_OK) {
        fprintf(stderr, "push failed\n");
        exit(1);
    }
    s->post[f] = s->now;
}

static int xs__fabric_init(xs *s);

static int xs_init(xs *s, const xs_cfg *c)
{
    uint32_t h, k;
    net_link_config lc;
    net_switch_config sc;
    size_t n;
    memset(s, 0, sizeof *s);
    s->c = *c;
    net_link_config_default(&lc);
    lc.rate_bps = c->link_bps;
    lc.prop_ns = c->prop_ns;
    lc.clock_hz = c->clock_hz;
    lc.min_wire_bytes = 40;
    lc.max_wire_bytes = c->seg + c->hdr;
    lc.queue_packets = 4; /* the NIC's queue: the engine's TX port backs up behind it */
    net_switch_config_default(&sc);
    sc.ports = sc.hosts = c->senders + 1u;
    sc.buffer_bytes = c->buffer_bytes;
    sc.link = lc;
    sc.link.queue_packets = 65536;
    sc.trim_bytes = c->trim_bytes;
    if (net_switch_init(&s->sw, &sc) != RNIC_OK)
        return -1;
    for (h = 0; h <= c->senders; h++) {
        net_switch_route(&s->sw, h, h);
        if (net_link_init(&s->up[h], &lc) != RNIC_OK)
            return -1;
    }
    if (c->drop_ppm)
        net_switch_set_drop_ppm(&s->sw, c->senders, c->drop_ppm, c->seed);
    for (h = 0; h < c->senders; h++) {
        tp_config tc;
        tp_config_default(&tc);
        tc.clock_hz = c->clock_hz;
        tc.link_bps = c->link_bps;
        tc.max_flows = c->senders; /* flow id = host id; each engine opens its own */
        tc.window = 128;
        tc.protocol = c->proto;
        n = tp_mem_size(&tc);
        s->snd[h] = (tp *)malloc(sizeof(tp));
        s->smem[h] = malloc(n);
        if (!s->snd[h] || !s->smem[h] || tp_init(s->snd[h], &tc, s->smem[h], n) != RNIC_OK ||
            tp_flow_open(s->snd[h], h, &c->fp) != RNIC_OK)
            return -1;
    }
    s->c.rc.clock_hz = c->clock_hz;
    s->c.rc.max_flows = c->senders;
    s->c.rc.window = 128;
    n = tp_rx_mem_size(&s->c.rc);
    s->rmem = malloc(n);
    if (!s->rmem || tp_rx_init(&s->rx, &s->c.rc, s->rmem, n) != RNIC_OK)
        return -1;
    for (h = 0; h < c->senders; h++) {
        tp_rx_flow_open(&s->rx, h, &(tp_rx_flow_config){.init_seq = c->fp.init_seq});
        for (k = 0; k < c->nmsg; k++)
            s->total_bytes += c->sizes[h * c->nmsg + k];
        xs_post(s, h);
    }
    s->fct_us = (double *)calloc((size_t)c->senders * c->nmsg, sizeof(double));
    return s->fct_us ? xs__fabric_init(s) : -1;
}

static void xs_free(xs *s)
{
    uint32_t h;
    for (h = 0; h < s->c.senders; h++) {
        free(s->snd[h]);
        free(s->smem[h]);
    }
    for (h = 0; h <= s->c.senders; h++)
        net_link_free(&s->up[h]);
    net_switch_free(&s->sw);
    free(s->rmem);
    free(s->fct_us);
    fab_free(&s->fab);
}

static uint64_t xs_min(uint64_t a, uint64_t b)
{
    if (a == RNIC_NEVER)
        return b;
    if (b == RNIC_NEVER)
        return a;
    return rnic_cycle_before(a, b) ? a : b;
}

/* ---- the fabric's nodes: the switch (id 0), sender h (id 1 + h), the receiver (id S + 1) ---- */

/* The switch's next event: the next packet reaching an egress link's end or reaching the switch
 * on an uplink. Departures alone need no run: they free buffer inside advance_to, which replays
 * them in order. */
static uint64_t xs__switch_next(const xs *s)
{
    uint64_t next = RNIC_NEVER;
    uint32_t h;
    if (s->sw.cfg.pfc_xoff_bytes || s->sw.cfg.control_priority)
        next = net_switch_next_event(&s->sw);
    else
        for (h = 0; h < s->sw.cfg.ports; h++)
            next = xs_min(next, net_link_next_arrival(&s->sw.port[h].link));
    for (h = 0; h <= s->c.senders; h++)
        next = xs_min(next, net_link_next_arrival(&s->up[h]));
    return next;
}

/* Sender h's next event: the engine's own, now while it has a completion or a segment its
 * uplink can take; a segment waiting for a full uplink is no work until the uplink's next event. */
static uint64_t xs__sender_next(const xs *s, uint32_t h)
{
    const tp *t = s->snd[h];
    uint64_t next = tp_next_event(t);
    rnic_work w;
    if (next == tp_now(t) || tp_peek_completion(t, &w) == RNIC_OK) /* nothing is earlier */
        return tp_now(t);
    if (tp_peek_segment(t, &w) == RNIC_OK)
        next = xs_min(next, net_link_space(&s->up[h]) > 0 ? tp_now(t) : net_link_next_event(&s->up[h]));
    return next;
}

static uint64_t xs__rx_next(const xs *s)
{
    const net_link *up = &s->up[s->c.senders];
    uint64_t next = tp_rx_next_event(&s->rx);
    rnic_work w;
    if (next == tp_rx_now(&s->rx) || tp_rx_peek_delivered(&s->rx, &w) == RNIC_OK) /* nothing is earlier */
        return tp_rx_now(&s->rx);
    if (tp_rx_peek_ack(&s->rx, &w) == RNIC_OK)
        next = xs_min(next, net_link_space(up) > 0 ? tp_rx_now(&s->rx) : net_link_next_event(up));
    return next;
}

/* A host filled its uplink at cycle t: the switch's next event may be earlier now. The fabric
 * asks it again after any cycle it ran in, so it is woken only when it has not run at t. */
static void xs__wake_switch(xs *s, uint64_t t)
{
    if (!(s->switch_ran && s->switch_cycle == t))
        fab_wake(&s->fab, s->switch_id);
}

static void xs__switch_advance_to(void *self, uint64_t cycle)
{
    xs *s = ((xs_node *)self)->sim;
    uint32_t h;
    if (!rnic_cycle_before(net_switch_now(&s->sw), cycle))
        return; /* the uplinks too: they move with the switch, or ahead of it to a host's push */
    net_switch_advance_to(&s->sw, cycle);
    for (h = 0; h <= s->c.senders; h++) /* the uplinks end at the switch: it keeps them current */
        net_link_advance_to(&s->up[h], cycle);
}

static uint64_t xs__switch_next_event(const void *self) { return xs__switch_next(((const xs_node *)self)->sim); }

/* Cycle t at the switch: the uplinks deliver, the switch hands data to the receiver and ACKs to
 * the senders (brought to t, then woken). A second run in the same cycle moves nothing: what it
 * could move now goes at t + 1. */
static void xs__switch_run(void *self, uint64_t t)
{
    xs *s = ((xs_node *)self)->sim;
    uint32_t h, i, R = s->c.senders;
    net_pkt p;
    if (s->switch_ran && s->switch_cycle == t)
        return;
    s->switch_ran = 1;
    s->switch_cycle = t;
    s->now = t;
    for (i = 0; i <= R; i++) { /* admit same-cycle arrivals from a rotating host */
        h = (uint32_t)((t + i) % (R + 1u));
        while (net_link_peek(&s->up[h], &p) == RNIC_OK) {
            net_link_pop(&s->up[h], &p);
            net_switch_push(&s->sw, &p);
        }
    }
    if (net_switch_peek(&s->sw, R, &p) == RNIC_OK) {
        fab_bring(&s->fab, s->rx_id, t);
        while (tp_rx_space_segment(&s->rx) > 0 && net_switch_pop(&s->sw, R, &p) == RNIC_OK) {
            p.w.flags = p.trimmed ? (p.w.flags | TP_WORK_TRIMMED) : (p.w.flags & ~TP_WORK_TRIMMED);
            tp_rx_push_segment(&s->rx, &p.w);
        }
        fab_wake(&s->fab, s->rx_id);
    }
    for (h = 0; h < R; h++) {
        if (net_switch_peek(&s->sw, h, &p) != RNIC_OK)
            continue;
        fab_bring(&s->fab, s->sender_id[h], t);
        while (tp_space_incoming(s->snd[h]) > 0 && net_switch_pop(&s->sw, h, &p) == RNIC_OK)
            tp_push_incoming(s->snd[h], &p.w);
        fab_wake(&s->fab, s->sender_id[h]);
    }
}

static void xs__sender_advance_to(void *self, uint64_t cycle)
{
    const xs_node *n = (const xs_node *)self;
    tp *t = n->sim->snd[n->host];
    if (rnic_cycle_before(tp_now(t), cycle))
        tp_advance_to(t, cycle);
}

static uint64_t xs__sender_next_event(const void *self)
{
    const xs_node *n = (const xs_node *)self;
    return xs__sender_next(n->sim, n->host);
}

/* Cycle t at sender h: the engine's cycle, its segments onto its uplink (a segment waits in the
 * engine's port while the uplink is full), its completions timed and the next message posted. */
static void xs__sender_run(void *self, uint64_t t)
{
    const xs_node *n = (const xs_node *)self;
    xs *s = n->sim;
    uint32_t h = n->host;
    tp *e = s->snd[h];
    net_link *up = &s->up[h];
    int pushed = 0;
    net_pkt p;
    rnic_work w;
    s->now = t;
    if (tp_now(e) == t) /* not yet this cycle (a second run in it only moves outputs) */
        tp_tick(e);
    if (tp_peek_segment(e, &w) == RNIC_OK)
        net_link_advance_to(up, t); /* its room at t */
    while (net_link_space(up) > 0 && tp_pop_segment(e, &w) == RNIC_OK) {
        memset(&p, 0, sizeof p);
        p.w = w;
        p.src = h;
        p.dst = s->c.senders;
        p.wire_bytes = w.len + s->c.hdr;
        net_link_push(up, &p);
        pushed = 1;
    }
    if (pushed)
        xs__wake_switch(s, t);
    while (tp_pop_completion(e, &w) == RNIC_OK) {
        s->fct_us[s->nfct++] = (double)(t - s->post[h]) * 1e6 / (double)s->c.clock_hz;
        s->done_msgs++;
        s->end_cycle = t;
        if (++s->next_msg[h] < s->c.nmsg)
            xs_post(s, h);
    }
}

static void xs__rx_advance_to(void *self, uint64_t cycle)
{
    tp_rx *r = &((xs_node *)self)->sim->rx;
    if (rnic_cycle_before(tp_rx_now(r), cycle))
        tp_rx_advance_to(r, cycle);
}

static uint64_t xs__rx_next_event(const void *self) { return xs__rx_next(((const xs_node *)self)->sim); }

/* Cycle t at the receiver: the engine's cycle, its records onto its uplink, its deliveries counted. */
static void xs__rx_run(void *self, uint64_t t)
{
    xs *s = ((xs_node *)self)->sim;
    uint32_t R = s->c.senders;
    net_link *up = &s->up[R];
    int pushed = 0;
    net_pkt p;
    rnic_work w;
    s->now = t;
    if (tp_rx_now(&s->rx) == t)
        tp_rx_tick(&s->rx);
    if (tp_rx_peek_ack(&s->rx, &w) == RNIC_OK)
        net_link_advance_to(up, t); /* its room at t */
    while (net_link_space(up) > 0 && tp_rx_peek_ack(&s->rx, &w) == RNIC_OK) {
        tp_rx_pop_ack(&s->rx, &w);
        memset(&p, 0, sizeof p);
        if (s->c.trim_notice_len0 && TP_WORK_PKT_TYPE(w.flags) == TP_PKT_NACK)
            w.len = 0; /* a trim notice names a segment NOT received: not a SACK block */
        p.w = w;
        p.src = R;
        p.dst = w.flow;
        p.wire_bytes = s->c.ctrl_bytes;
        net_link_push(up, &p);
        pushed = 1;
    }
    if (pushed)
        xs__wake_switch(s, t);
    while (tp_rx_pop_delivered(&s->rx, &w) == RNIC_OK)
        s->rx_bytes[w.flow] += w.len;
}

static const fab_node_ops xs__switch_ops = { xs__switch_advance_to, xs__switch_run, xs__switch_next_event, NULL };
static const fab_node_ops xs__sender_ops = { xs__sender_advance_to, xs__sender_run, xs__sender_next_event, NULL };
static const fab_node_ops xs__rx_ops = { xs__rx_advance_to, xs__rx_run, xs__rx_next_event, NULL };

/* The fabric: the switch first, so that in every cycle its deliveries reach the engines before
 * their cycle runs. */
static int xs__fabric_init(xs *s)
{
    fab_config fc;
    uint32_t h;
    memset(&fc, 0, sizeof fc);
    fc.max_nodes = s->c.senders + 2u;
    fc.tick_only = s->c.tick_only || XS_TICK_ONLY;
    if (s->c.senders > XS_MAX || fab_init(&s->fab, &fc) != RNIC_OK)
        return -1;
    s->node[0].sim = s;
    s->switch_id = fab_add(&s->fab, &xs__switch_ops, &s->node[0]);
    for (h = 0; h < s->c.senders; h++) {
        s->node[1u + h].sim = s;
        s->node[1u + h].host = h;
        s->sender_id[h] = fab_add(&s->fab, &xs__sender_ops, &s->node[1u + h]);
    }
    s->node[1u + s->c.senders].sim = s;
    s->rx_id = fab_add(&s->fab, &xs__rx_ops, &s->node[1u + s->c.senders]);
    return s->rx_id == RNIC_NONE ? -1 : 0;
}

/* Every part to `cycle` (the nodes the scheduler did not visit lag behind). */
static void xs__bring_all(xs *s, uint64_t cycle)
{
    uint32_t id;
    for (id = 0; id < s->fab.n; id++)
        fab_bring(&s->fab, id, cycle);
    s->now = cycle;
}

/* Run until every message completed (or `limit` cycles): the fabric visits the cycles at which
 * a node is due, one at a time, so the run stops right after the cycle that completed the last
 * message. */
static void xs_run(xs *s, uint64_t limit)
{
    uint32_t total = s->c.senders * s->c.nmsg;
    while (s->done_msgs < total && s->now < limit) {
        uint64_t next = fab_next_event(&s->fab);
        if (next == RNIC_NEVER || next >= limit) {
            fab_run_until(&s->fab, limit);
            s->now = limit;
            break;
        }
        fab_run_until(&s->fab, next + 1u);
        s->now = next + 1u;
    }
    xs__bring_all(s, s->now);
}
#endif
