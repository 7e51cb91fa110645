/* xs_driver.h -- the small S senders -> switch -> receiver driver the IRN and NDP experiments
 * share (examples/tonic_irn_loss.c, examples/tonic_ndp_incast.c): per-message FCTs and up to
 * XS_MAX senders, which tonic_sim.h does not offer. Hosted example code: include it once, after
 * transport.h and net.h, with XS_MAX defined. */
#ifndef RNIC_XS_DRIVER_H
#define RNIC_XS_DRIVER_H

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
} xs_cfg;

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
    return s->fct_us ? 0 : -1;
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
}

static uint64_t xs_min(uint64_t a, uint64_t b)
{
    if (a == RNIC_NEVER)
        return b;
    if (b == RNIC_NEVER)
        return a;
    return rnic_cycle_before(a, b) ? a : b;
}

static uint64_t xs_next(const xs *s)
{
    uint64_t next = tp_rx_next_event(&s->rx);
    uint32_t h;
    rnic_work w;
    for (h = 0; h < s->c.senders; h++) {
        next = xs_min(next, tp_next_event(s->snd[h]));
        if (tp_peek_segment(s->snd[h], &w) == RNIC_OK || tp_peek_completion(s->snd[h], &w) == RNIC_OK)
            next = s->now;
    }
    for (h = 0; h <= s->c.senders; h++)
        next = xs_min(next, net_link_next_event(&s->up[h]));
    next = xs_min(next, net_switch_next_event(&s->sw));
    if (tp_rx_peek_ack(&s->rx, &w) == RNIC_OK || tp_rx_peek_delivered(&s->rx, &w) == RNIC_OK)
        next = s->now;
    return next;
}

static void xs_cycle(xs *s)
{
    uint32_t h, i, R = s->c.senders;
    net_pkt p;
    rnic_work w;
    for (i = 0; i <= R; i++) { /* admit same-cycle arrivals from a rotating host */
        h = (uint32_t)((s->now + i) % (R + 1u));
        while (net_link_peek(&s->up[h], &p) == RNIC_OK) {
            net_link_pop(&s->up[h], &p);
            net_switch_push(&s->sw, &p);
        }
    }
    while (tp_rx_space_segment(&s->rx) > 0 && net_switch_pop(&s->sw, R, &p) == RNIC_OK) {
        p.w.flags = p.trimmed ? (p.w.flags | TP_WORK_TRIMMED) : (p.w.flags & ~TP_WORK_TRIMMED);
        tp_rx_push_segment(&s->rx, &p.w);
    }
    for (h = 0; h < R; h++)
        while (tp_space_incoming(s->snd[h]) > 0 && net_switch_pop(&s->sw, h, &p) == RNIC_OK)
            tp_push_incoming(s->snd[h], &p.w);
    for (h = 0; h < R; h++)
        tp_tick(s->snd[h]);
    tp_rx_tick(&s->rx);
    for (h = 0; h < R; h++) {
        while (net_link_space(&s->up[h]) > 0 && tp_pop_segment(s->snd[h], &w) == RNIC_OK) {
            memset(&p, 0, sizeof p);
            p.w = w;
            p.src = h;
            p.dst = R;
            p.wire_bytes = w.len + s->c.hdr;
            net_link_push(&s->up[h], &p);
        }
        while (tp_pop_completion(s->snd[h], &w) == RNIC_OK) {
            s->fct_us[s->nfct++] = (double)(s->now - s->post[h]) * 1e6 / (double)s->c.clock_hz;
            s->done_msgs++;
            s->end_cycle = s->now;
            if (++s->next_msg[h] < s->c.nmsg)
                xs_post(s, h);
        }
    }
    while (net_link_space(&s->up[R]) > 0 && tp_rx_peek_ack(&s->rx, &w) == RNIC_OK) {
        tp_rx_pop_ack(&s->rx, &w);
        memset(&p, 0, sizeof p);
        if (s->c.trim_notice_len0 && TP_WORK_PKT_TYPE(w.flags) == TP_PKT_NACK)
            w.len = 0; /* a trim notice names a segment NOT received: not a SACK block */
        p.w = w;
        p.src = R;
        p.dst = w.flow;
        p.wire_bytes = s->c.ctrl_bytes;
        net_link_push(&s->up[R], &p);
    }
    while (tp_rx_pop_delivered(&s->rx, &w) == RNIC_OK)
        s->rx_bytes[w.flow] += w.len;
    s->now++;
    for (h = 0; h <= R; h++)
        net_link_advance_to(&s->up[h], s->now);
    net_switch_advance_to(&s->sw, s->now);
}

/* Run until every message completed (or `limit` cycles). */
static void xs_run(xs *s, uint64_t limit)
{
    uint32_t total = s->c.senders * s->c.nmsg;
    while (s->done_msgs < total && s->now < limit) {
        uint64_t next = xs_next(s);
        if (next == RNIC_NEVER || rnic_cycle_before(s->now, next)) {
            uint32_t h;
            next = xs_min(next, limit);
            for (h = 0; h < s->c.senders; h++)
                tp_advance_to(s->snd[h], next);
            tp_rx_advance_to(&s->rx, next);
            for (h = 0; h <= s->c.senders; h++)
                net_link_advance_to(&s->up[h], next);
            net_switch_advance_to(&s->sw, next);
            s->now = next;
            continue;
        }
        xs_cycle(s);
    }
}
#endif
