/* tonic_sim.h -- the Tonic experiments' end-to-end set-up (NSDI 2020 §6.2): sender hosts, each a
 * transport.h engine (Tonic) behind a NIC uplink, one output-queued switch (net.h) and one
 * receiving host (transport.h's receiver). Flows are backlogged (bulk data). Everything runs on
 * one clock under the composed model's event scheduler (fabric.h): the switch (node 0), each
 * sender (node 1 + h) and the receiver (node S + 1) run at their own next events or when a record
 * reaches them, so idle stretches and idle parts cost nothing; ts_config.tick_only runs every
 * node every cycle instead (the same results). Hosted example code (malloc at init, doubles only
 * in reports).
 *
 * In every cycle the switch runs first: PFC frames reach the hosts, the uplinks deliver into the
 * switch, and the switch hands data to the receiver and ACKs to the senders; then each sender
 * and the receiver executes its cycle and puts its outputs on its uplink. An uplink is the edge
 * from a host to the switch: the host pushes onto it at cycle t (waking the switch unless it ran
 * at t: its next event covers every uplink's next arrival); the host's own next event covers the
 * uplink's departures while a segment waits for room on it. processed_cycles counts the cycles
 * at which some part had work, in either mode.
 *
 *   sender h: tp --TX--> uplink h --> switch port R --> receiver (tp_rx): data
 *   receiver: tp_rx --ACK--> uplink R --> switch port h --> tp_push_incoming: ACKs
 *
 * Host ids: senders 0 .. S-1, the receiver S; switch port p leads to host p (and host p's uplink
 * enters the switch by port p). A flow's id is the same in every engine: sender h owns flows
 * [h * F, (h + 1) * F).
 *
 * Beyond the NewReno set-up (whose behaviour the defaults keep byte-identical): the switch's RED
 * marking at dequeue, PFC and trimming (net.h), the receiver's RoCEv2 / DCQCN / NDP options, the
 * sender's flow parameters, and the control records' wire sizes are ts_config fields. Data
 * reaches the receiver with TP_WORK_ECN (CE) and TP_WORK_TRIMMED (payload trimmed) set from the
 * packet; every record the receiver emits (ACK, NACK, CNP, GRANT) goes back to its sender like an
 * ACK. PFC frames the switch sends reach the host uplink after one propagation delay (a FIFO
 * here: every frame has the same delay, so FIFO order is arrival order) and pause it there
 * (net_link_pause_quanta); a host puts a segment on its uplink only while the uplink's input
 * queue has room (uplink_queue_packets), so a paused uplink fills and the sender's TX port backs
 * up (tp_stats.tx_stalls). The senders use Tonic's own rate credit (no external pacer). */
#ifndef TONIC_SIM_H
#define TONIC_SIM_H
#define TP_IMPLEMENTATION
#include "../../transport.h"
#include "net.h"
#include "fabric.h"
#include <stdio.h>

#define TS_MAX_SENDERS 8u
#ifndef TS_TICK_ONLY
#define TS_TICK_ONLY 0 /* ts_config_default's tick_only: build an example with -DTS_TICK_ONLY=1 to run it under the oracle */
#endif

typedef struct ts_config {
    uint64_t clock_hz;         /* 100 MHz */
    uint64_t link_bps;         /* 10 Gb/s */
    uint64_t prop_ns;          /* per hop, 2,500 ns: RTT 10 us */
    uint64_t buffer_bytes;     /* switch buffer, 5.5 MB */
    uint32_t senders, flows_per_sender;
    uint32_t seg_size;         /* 1,000 B */
    uint32_t header_bytes;     /* per packet on the wire: 42 (PPP 2 + IPv4 20 + TCP 20), as ns-3's p2p links */
    uint32_t window;           /* W, 128 */
    uint32_t init_wnd;         /* 10 segments (ns-3's initial cwnd) */
    uint32_t rto_us;           /* 200,000 */
    uint32_t delack_count, delack_us; /* 2, 200,000 (ns-3's defaults) */
    bool sack;                 /* ACKs carry a SACK block (false for the NewReno runs: ns-3 with Sack=false) */
    const tp_protocol *protocol; /* per sim: every sender runs it (a variant: a copy with its own config) */
    const tp_flow_config *flow_params; /* NULL: defaults with seg_size, init_wnd, rto_us above; else
                                  used as given for every flow (seg_size is taken from it) */
    uint32_t tx_capacity;      /* the senders' segment output port; 0 = the engine's default */
    uint32_t uplink_queue_packets; /* each host's NIC queue in front of its uplink; default 1024 */
    /* control records on the wire (bytes): ACK (0 = header_bytes), NACK / GRANT, CNP */
    uint32_t ack_bytes, ctrl_bytes, cnp_bytes; /* 0, 64, 78 */
    /* the receiver (tp_rx_config, passed through) */
    bool ack_first;            /* true (ns-3's receiver ACKs the first data segment at once) */
    bool nack, go_back_n;
    uint32_t cnp_interval_us, cnp_mode;
    uint64_t pull_bps;
    uint32_t pull_overhead_bytes; /* 0 = the receiver's default */
    /* the switch (net_switch_config, passed through; 0 = off) */
    uint64_t ecn_k_bytes;      /* step marking at enqueue */
    uint64_t ecn_kmin_bytes, ecn_kmax_bytes; /* RED at dequeue */
    uint32_t ecn_pmax_ppm;
    uint64_t ecn_seed;
    uint64_t pfc_xoff_bytes, pfc_xon_bytes, pfc_headroom_bytes;
    uint32_t pfc_quanta;       /* 0 = 65535 */
    uint64_t trim_bytes;
    uint32_t trim_header_bytes; /* 0 = 64 */
    uint32_t max_wire_bytes;   /* the links' MTU; 0 = seg_size + header_bytes (at least 128) */
    const uint64_t *drop_list; /* ordinals of packets reaching the receiver's port to drop */
    uint32_t drop_len;
    uint64_t message_bytes;    /* backlog: messages of this size, refilled on completion */
    /* observation hooks (NULL = off) */
    void (*on_segment)(void *user, const rnic_work *seg, uint64_t cycle);   /* a segment left a sender */
    void (*on_ack)(void *user, const tp *sender, uint32_t flow, uint64_t cycle); /* an ACK reached a sender */
    void *user;
    int tick_only;             /* 1: the fabric runs every node every cycle (its oracle); default 0 */
} ts_config;

struct ts_sim;
typedef struct ts_node { /* a fabric node's self: the sim, and the sender's host number */
    struct ts_sim *sim;
    uint32_t host;
} ts_node;

typedef struct ts_sim {
    ts_config cfg;
    tp senders[TS_MAX_SENDERS];
    void *sender_mem[TS_MAX_SENDERS];
    net_link uplink[TS_MAX_SENDERS + 1u];
    net_switch sw;
    tp_rx rx;
    void *rx_mem;
    uint64_t now;
    uint64_t *acked_bytes;     /* per flow: bytes the receiver got for the first time */
    uint64_t rx_bytes, rx_segments, dup_segments;
    uint64_t processed_cycles; /* cycles actually ticked (the rest fast-forwarded) */
    net_pfc_frame *pfc_pipe;   /* PFC frames travelling to the hosts: cycle = arrival */
    uint32_t pfc_size, pfc_head, pfc_count;
    uint64_t pfc_pipe_lost;    /* frames the pipe could not hold (never, at its size) */
    fabric fab;                /* the scheduler: the switch, the senders, the receiver */
    ts_node node[TS_MAX_SENDERS + 2u];
    uint32_t switch_id, rx_id, sender_id[TS_MAX_SENDERS];
    uint64_t switch_cycle;     /* the cycle of the switch's last full run (switch_ran: one happened) */
    int switch_ran;
    uint64_t counted_to;       /* 1 + the last cycle counted in processed_cycles */
} ts_sim;

static inline void ts_config_default(ts_config *c)
{
    memset(c, 0, sizeof *c);
    c->clock_hz = 100000000ull;
    c->link_bps = 10000000000ull;
    c->prop_ns = 2500;
    c->buffer_bytes = 5500000ull;
    c->senders = 1;
    c->flows_per_sender = 1;
    c->seg_size = 1000;
    c->header_bytes = 42;
    c->window = 128;
    c->init_wnd = 10;
    c->rto_us = 200000;
    c->delack_count = 2;
    c->delack_us = 200000;
    c->message_bytes = 1000000000ull;
    c->ctrl_bytes = 64;
    c->cnp_bytes = 78;
    c->ack_first = true;
    c->tick_only = TS_TICK_ONLY;
}

static inline void *ts__alloc(size_t n) { return malloc(n); } /* RNIC_MEM_ALIGN is 8 */

static inline uint32_t ts_flows(const ts_sim *s) { return s->cfg.senders * s->cfg.flows_per_sender; }

static inline int ts__fabric_init(ts_sim *s);

static inline int ts_init(ts_sim *s, const ts_config *c)
{
    uint32_t h, i, nflows = c->senders * c->flows_per_sender;
    net_link_config lc;
    net_switch_config sc;
    tp_rx_config rc;
    memset(s, 0, sizeof *s);
    s->cfg = *c;
    if (c->senders == 0 || c->senders > TS_MAX_SENDERS || nflows == 0)
        return -1;
    net_link_config_default(&lc);
    lc.rate_bps = c->link_bps;
    lc.prop_ns = c->prop_ns;
    lc.clock_hz = c->clock_hz;
    lc.min_wire_bytes = 40;
    if (c->uplink_queue_packets)
        lc.queue_packets = c->uplink_queue_packets;
    {
        uint32_t seg = c->flow_params ? c->flow_params->seg_size : c->seg_size;
        uint32_t mtu = c->max_wire_bytes ? c->max_wire_bytes : seg + c->header_bytes;
        lc.max_wire_bytes = mtu < 128u ? 128u : mtu;
    }
    net_switch_config_default(&sc);
    sc.ports = c->senders + 1u;
    sc.hosts = c->senders + 1u;
    sc.buffer_bytes = c->buffer_bytes;
    sc.ecn_k_bytes = c->ecn_k_bytes;
    sc.ecn_kmin_bytes = c->ecn_kmin_bytes;
    sc.ecn_kmax_bytes = c->ecn_kmax_bytes;
    sc.ecn_pmax_ppm = c->ecn_pmax_ppm;
    sc.ecn_seed = c->ecn_seed;
    sc.pfc_xoff_bytes = c->pfc_xoff_bytes;
    sc.pfc_xon_bytes = c->pfc_xon_bytes;
    sc.pfc_headroom_bytes = c->pfc_headroom_bytes;
    if (c->pfc_quanta)
        sc.pfc_quanta = c->pfc_quanta;
    sc.trim_bytes = c->trim_bytes;
    if (c->trim_header_bytes)
        sc.trim_header_bytes = c->trim_header_bytes;
    sc.link = lc;
    if (net_switch_init(&s->sw, &sc) != RNIC_OK)
        return -1;
    for (h = 0; h <= c->senders; h++) {
        net_switch_route(&s->sw, h, h);
        if (net_link_init(&s->uplink[h], &lc) != RNIC_OK)
            return -1;
    }
    if (c->drop_len)
        net_switch_set_drop_list(&s->sw, c->senders, c->drop_list, c->drop_len);
    s->pfc_size = 64u * (c->senders + 1u);
    s->pfc_pipe = (net_pfc_frame *)calloc(s->pfc_size, sizeof *s->pfc_pipe);
    if (!s->pfc_pipe)
        return -1;
    for (h = 0; h < c->senders; h++) {
        tp_config tc;
        size_t n;
        tp_config_default(&tc);
        tc.clock_hz = c->clock_hz;
        tc.link_bps = c->link_bps;
        tc.max_flows = nflows;
        tc.window = c->window;
        tc.protocol = c->protocol;
        tc.external_pacer = false; /* Tonic's own rate credit */
        if (c->tx_capacity)
            tc.segment_depth = c->tx_capacity;
        tc.trace_id = (uint16_t)(RNIC_ENGINE_MODEL + h);
        n = tp_mem_size(&tc);
        s->sender_mem[h] = ts__alloc(n);
        if (!s->sender_mem[h] || tp_init(&s->senders[h], &tc, s->sender_mem[h], n) != RNIC_OK)
            return -1;
        for (i = 0; i < c->flows_per_sender; i++) {
            tp_flow_config p;
            uint32_t f = h * c->flows_per_sender + i;
            rnic_work m;
            if (c->flow_params) {
                p = *c->flow_params;
            } else {
                tp_flow_config_default(&p);
                p.seg_size = c->seg_size;
                p.init_wnd = c->init_wnd;
                p.rto_ns = (uint64_t)c->rto_us * 1000u;
            }
            if (tp_flow_open(&s->senders[h], f, &p) != RNIC_OK)
                return -1;
            memset(&m, 0, sizeof m);
            m.flow = f;
            m.len = (uint32_t)(c->message_bytes > 0xffffffffull ? 0xffffffffull : c->message_bytes);
            while (tp_flow_message_room(&s->senders[h], f) > 0 && tp_push_message(&s->senders[h], &m) == RNIC_OK)
                m.tag++;
        }
    }
    tp_rx_config_default(&rc);
    rc.clock_hz = c->clock_hz;
    rc.max_flows = nflows;
    rc.window = c->window;
    rc.delack_count = c->delack_count;
    rc.delack_ns = (uint64_t)c->delack_us * 1000u;
    rc.sack = c->sack;
    rc.ack_first = c->ack_first; /* ns-3's receiver ACKs the first data segment at once */
    rc.nack = c->nack;
    rc.go_back_n = c->go_back_n;
    rc.cnp_interval_ns = (uint64_t)c->cnp_interval_us * 1000u;
    rc.cnp_mode = c->cnp_mode;
    rc.pull_bps = c->pull_bps;
    if (c->pull_overhead_bytes)
        rc.pull_overhead_bytes = c->pull_overhead_bytes;
    {
        size_t n = tp_rx_mem_size(&rc);
        s->rx_mem = ts__alloc(n);
        if (!s->rx_mem || tp_rx_init(&s->rx, &rc, s->rx_mem, n) != RNIC_OK)
            return -1;
    }
    for (i = 0; i < nflows; i++)
        tp_rx_flow_open(&s->rx, i, NULL);
    s->acked_bytes = (uint64_t *)calloc(nflows, sizeof(uint64_t));
    return s->acked_bytes ? ts__fabric_init(s) : -1;
}

static inline void ts_free(ts_sim *s)
{
    uint32_t h;
    for (h = 0; h < s->cfg.senders; h++)
        free(s->sender_mem[h]);
    for (h = 0; h <= s->cfg.senders; h++)
        net_link_free(&s->uplink[h]);
    net_switch_free(&s->sw);
    free(s->rx_mem);
    free(s->acked_bytes);
    free(s->pfc_pipe);
    fab_free(&s->fab);
}

/* The earlier of two event cycles; RNIC_NEVER is later than any cycle (compare it before the
 * wrap-safe difference, which would read it as one cycle before 0). */
static inline uint64_t ts__min(uint64_t a, uint64_t b)
{
    if (a == RNIC_NEVER)
        return b;
    if (b == RNIC_NEVER)
        return a;
    return rnic_cycle_before(a, b) ? a : b;
}

/* ---- the fabric's nodes: the switch (id 0), sender h (id 1 + h), the receiver (id S + 1) ---- */

/* The switch's next event: the next packet reaching an egress link's end (with PFC, every
 * event of its egress links: a departure may send a RESUME), PFC frames to send, the next packet
 * reaching it on an uplink, the next PFC frame reaching its host. Departures alone need no run:
 * they free buffer and draw RED marks inside advance_to, which replays them in order. */
static inline uint64_t ts__switch_next(const ts_sim *s)
{
    uint64_t next = RNIC_NEVER;
    uint32_t h;
    if (s->sw.cfg.pfc_xoff_bytes || s->sw.cfg.control_priority)
        next = net_switch_next_event(&s->sw);
    else
        for (h = 0; h < s->sw.cfg.ports; h++)
            next = ts__min(next, net_link_next_arrival(&s->sw.port[h].link));
    for (h = 0; h <= s->cfg.senders; h++)
        next = ts__min(next, net_link_next_arrival(&s->uplink[h]));
    if (s->pfc_count)
        next = ts__min(next, s->pfc_pipe[s->pfc_head].cycle == RNIC_NEVER ? RNIC_NEVER - 1u : s->pfc_pipe[s->pfc_head].cycle);
    return next;
}

/* Sender h's next event: the engine's own, now while it has a segment its uplink can take or a
 * completion; a segment waiting for a full uplink is no work until the uplink's next event. */
static inline uint64_t ts__sender_next(const ts_sim *s, uint32_t h)
{
    const tp *t = &s->senders[h];
    uint64_t next = tp_next_event(t);
    rnic_work w;
    if (next == tp_now(t) || tp_peek_completion(t, &w) == RNIC_OK) /* nothing is earlier */
        return tp_now(t);
    if (tp_peek_segment(t, &w) == RNIC_OK)
        next = ts__min(next, net_link_space(&s->uplink[h]) > 0 ? tp_now(t) : net_link_next_event(&s->uplink[h]));
    return next;
}

static inline uint64_t ts__rx_next(const ts_sim *s)
{
    const net_link *up = &s->uplink[s->cfg.senders];
    uint64_t next = tp_rx_next_event(&s->rx);
    rnic_work w;
    if (next == tp_rx_now(&s->rx) || tp_rx_peek_delivered(&s->rx, &w) == RNIC_OK) /* nothing is earlier */
        return tp_rx_now(&s->rx);
    if (tp_rx_peek_ack(&s->rx, &w) == RNIC_OK)
        next = ts__min(next, net_link_space(up) > 0 ? tp_rx_now(&s->rx) : net_link_next_event(up));
    return next;
}

/* processed_cycles counts the cycles at which some part had work (its next event was due when
 * it ran), whichever nodes the scheduler visits: the fabric's first cycle, a cycle the switch
 * only re-reads, and tick-only mode's idle ticks are not counted. */
static inline void ts__count(ts_sim *s, uint64_t t, uint64_t next)
{
    if (s->counted_to != t + 1u && next != RNIC_NEVER && rnic_cycle_before_eq(next, t)) {
        s->processed_cycles++;
        s->counted_to = t + 1u;
    }
}

/* ts__switch_next(s) <= t, for the switch brought to t (every departure, arrival and PFC
 * refresh up to t done): a packet waits at a link's end, a PFC frame waits to leave or reaches
 * its host. The cheap form of the test, asked at every switch run. */
static inline int ts__switch_due(const ts_sim *s, uint64_t t)
{
    net_pkt p;
    uint32_t i;
    if (s->sw.pfc_count || (s->pfc_count && rnic_cycle_before_eq(s->pfc_pipe[s->pfc_head].cycle, t)))
        return 1;
    for (i = 0; i <= s->cfg.senders; i++)
        if (net_link_peek(&s->uplink[i], &p) == RNIC_OK || net_switch_peek(&s->sw, i, &p) == RNIC_OK)
            return 1;
    return 0;
}

/* A host filled its uplink at cycle t: the switch's next event may be earlier now. The fabric
 * asks it again after any cycle it ran in, so it is woken only when it has not run at t. */
static inline void ts__wake_switch(ts_sim *s, uint64_t t)
{
    if (!(s->switch_ran && s->switch_cycle == t))
        fab_wake(&s->fab, s->switch_id);
}

/* The switch changed host h's uplink at cycle t (a PFC frame paused or resumed it, or it took
 * the packets that had arrived): a host whose record waits for room there has a new next event. */
static inline void ts__wake_host(ts_sim *s, uint32_t h)
{
    rnic_work w;
    if (h < s->cfg.senders) {
        if (tp_peek_segment(&s->senders[h], &w) == RNIC_OK)
            fab_wake(&s->fab, s->sender_id[h]);
    } else if (tp_rx_peek_ack(&s->rx, &w) == RNIC_OK) {
        fab_wake(&s->fab, s->rx_id);
    }
}

static inline void ts__switch_advance_to(void *self, uint64_t cycle)
{
    ts_sim *s = ((ts_node *)self)->sim;
    uint32_t h;
    if (!rnic_cycle_before(net_switch_now(&s->sw), cycle))
        return; /* the uplinks too: they move with the switch, or ahead of it to a host's push */
    net_switch_advance_to(&s->sw, cycle);
    for (h = 0; h <= s->cfg.senders; h++) /* the uplinks end at the switch: it keeps them current */
        net_link_advance_to(&s->uplink[h], cycle);
}

static inline uint64_t ts__switch_next_event(const void *self) { return ts__switch_next(((const ts_node *)self)->sim); }

/* Cycle t at the switch: PFC frames reach the hosts, the uplinks deliver, the switch's PFC frames
 * leave, and the switch hands data to the receiver and ACKs to the senders (brought to t, then
 * woken). A second run in the same cycle (a host woke it after filling its uplink, so that its
 * next event is looked at again) moves nothing: what it could move now goes at t + 1. */
static inline void ts__switch_run(void *self, uint64_t t)
{
    ts_sim *s = ((ts_node *)self)->sim;
    uint32_t h, i, R = s->cfg.senders;
    net_pkt p;
    net_pfc_frame f;
    if (s->switch_ran && s->switch_cycle == t)
        return;
    s->switch_ran = 1;
    s->switch_cycle = t;
    if (s->counted_to != t + 1u)
        ts__count(s, t, ts__switch_due(s, t) ? t : RNIC_NEVER);
    s->now = t;
    /* PFC frames arriving at their hosts now pause / resume the uplinks (before this cycle's
     * pushes onto them) */
    while (s->pfc_count && rnic_cycle_before_eq(s->pfc_pipe[s->pfc_head].cycle, t)) {
        f = s->pfc_pipe[s->pfc_head];
        s->pfc_head = (s->pfc_head + 1u) % s->pfc_size;
        s->pfc_count--;
        net_link_pause_quanta(&s->uplink[f.port], f.quanta);
        ts__wake_host(s, f.port);
    }
    /* uplinks deliver into the switch; packets arriving in one cycle are admitted starting
     * from a host that rotates every cycle (same-rate hosts arrive phase-locked, and a fixed
     * order would give one host every drop when the buffer is nearly full) */
    for (i = 0; i <= R; i++) {
        h = (uint32_t)((t + i) % (R + 1u));
        if (net_link_peek(&s->uplink[h], &p) != RNIC_OK)
            continue;
        while (net_link_peek(&s->uplink[h], &p) == RNIC_OK) {
            net_link_pop(&s->uplink[h], &p);
            net_switch_push_from(&s->sw, h, &p);
        }
        ts__wake_host(s, h);
    }
    /* PFC frames the switch sent (by its departures up to now, or by these arrivals) start
     * towards their hosts */
    while (net_switch_pop_pfc(&s->sw, &f) == RNIC_OK) {
        if (s->pfc_count == s->pfc_size) {
            s->pfc_pipe_lost++;
            continue;
        }
        f.cycle += s->sw.port[f.port].link.prop;
        s->pfc_pipe[(s->pfc_head + s->pfc_count++) % s->pfc_size] = f;
    }
    /* the switch delivers: data to the receiver, ACKs to the senders */
    if (net_switch_peek(&s->sw, R, &p) == RNIC_OK) {
        fab_bring(&s->fab, s->rx_id, t);
        while (tp_rx_space_segment(&s->rx) > 0 && net_switch_pop(&s->sw, R, &p) == RNIC_OK) {
            p.w.flags = p.ecn ? (p.w.flags | TP_WORK_ECN) : (p.w.flags & ~TP_WORK_ECN);
            p.w.flags = p.trimmed ? (p.w.flags | TP_WORK_TRIMMED) : (p.w.flags & ~TP_WORK_TRIMMED);
            tp_rx_push_segment(&s->rx, &p.w);
        }
        fab_wake(&s->fab, s->rx_id);
    }
    for (h = 0; h < R; h++) {
        if (net_switch_peek(&s->sw, h, &p) != RNIC_OK)
            continue;
        fab_bring(&s->fab, s->sender_id[h], t);
        while (tp_space_incoming(&s->senders[h]) > 0 && net_switch_pop(&s->sw, h, &p) == RNIC_OK) {
            tp_push_incoming(&s->senders[h], &p.w);
            if (s->cfg.on_ack)
                s->cfg.on_ack(s->cfg.user, &s->senders[h], p.w.flow, t);
        }
        fab_wake(&s->fab, s->sender_id[h]);
    }
}

static inline void ts__sender_advance_to(void *self, uint64_t cycle)
{
    const ts_node *n = (const ts_node *)self;
    tp *t = &n->sim->senders[n->host];
    if (rnic_cycle_before(tp_now(t), cycle))
        tp_advance_to(t, cycle);
}

static inline uint64_t ts__sender_next_event(const void *self)
{
    const ts_node *n = (const ts_node *)self;
    return ts__sender_next(n->sim, n->host);
}

/* Cycle t at sender h: the engine's cycle, then its segments onto its uplink (a segment waits in
 * the engine's port while the uplink is full; the switch is woken to look at the uplink's new
 * next event) and its completions refilled (backlogged). */
static inline void ts__sender_run(void *self, uint64_t t)
{
    const ts_node *n = (const ts_node *)self;
    ts_sim *s = n->sim;
    uint32_t h = n->host;
    tp *e = &s->senders[h];
    net_link *up = &s->uplink[h];
    int pushed = 0;
    net_pkt p;
    rnic_work w;
    if (s->counted_to != t + 1u)
        ts__count(s, t, ts__sender_next(s, h));
    s->now = t;
    if (tp_now(e) == t) /* not yet this cycle (a second run in it only moves outputs) */
        tp_tick(e);
    if (tp_peek_segment(e, &w) == RNIC_OK)
        net_link_advance_to(up, t); /* its room at t */
    while (net_link_space(up) > 0 && tp_peek_segment(e, &w) == RNIC_OK) {
        tp_pop_segment(e, &w);
        memset(&p, 0, sizeof p);
        p.w = w;
        p.src = h;
        p.dst = s->cfg.senders;
        p.wire_bytes = w.len + s->cfg.header_bytes;
        net_link_push(up, &p);
        pushed = 1;
        if (s->cfg.on_segment)
            s->cfg.on_segment(s->cfg.user, &w, t);
    }
    if (pushed)
        ts__wake_switch(s, t);
    while (tp_pop_completion(e, &w) == RNIC_OK) { /* backlogged: refill */
        w.flags = 0;
        w.tag += s->cfg.senders * 1000u;
        tp_push_message(e, &w);
    }
}

static inline void ts__rx_advance_to(void *self, uint64_t cycle)
{
    tp_rx *r = &((ts_node *)self)->sim->rx;
    if (rnic_cycle_before(tp_rx_now(r), cycle))
        tp_rx_advance_to(r, cycle);
}

static inline uint64_t ts__rx_next_event(const void *self) { return ts__rx_next(((const ts_node *)self)->sim); }

/* Cycle t at the receiver: the engine's cycle, its ACK / NACK / CNP / GRANT records onto its
 * uplink (waking the switch), its deliveries counted. */
static inline void ts__rx_run(void *self, uint64_t t)
{
    ts_sim *s = ((ts_node *)self)->sim;
    uint32_t R = s->cfg.senders;
    net_link *up = &s->uplink[R];
    int pushed = 0;
    net_pkt p;
    rnic_work w;
    if (s->counted_to != t + 1u)
        ts__count(s, t, ts__rx_next(s));
    s->now = t;
    if (tp_rx_now(&s->rx) == t)
        tp_rx_tick(&s->rx);
    if (tp_rx_peek_ack(&s->rx, &w) == RNIC_OK)
        net_link_advance_to(up, t); /* its room at t */
    while (net_link_space(up) > 0 && tp_rx_peek_ack(&s->rx, &w) == RNIC_OK) {
        tp_rx_pop_ack(&s->rx, &w);
        memset(&p, 0, sizeof p);
        p.w = w;
        p.src = R;
        p.dst = w.flow / s->cfg.flows_per_sender;
        if (TP_WORK_PKT_TYPE(w.flags) == TP_PKT_CNP)
            p.wire_bytes = s->cfg.cnp_bytes;
        else if (TP_WORK_PKT_TYPE(w.flags) == TP_PKT_NACK || TP_WORK_PKT_TYPE(w.flags) == TP_PKT_GRANT)
            p.wire_bytes = s->cfg.ctrl_bytes;
        else
            p.wire_bytes = s->cfg.ack_bytes ? s->cfg.ack_bytes : s->cfg.header_bytes;
        net_link_push(up, &p);
        pushed = 1;
    }
    if (pushed)
        ts__wake_switch(s, t);
    while (tp_rx_pop_delivered(&s->rx, &w) == RNIC_OK) {
        s->acked_bytes[w.flow] += w.len;
        s->rx_bytes += w.len;
        s->rx_segments++;
    }
}

static const fab_node_ops ts__switch_ops = { ts__switch_advance_to, ts__switch_run, ts__switch_next_event, NULL };
static const fab_node_ops ts__sender_ops = { ts__sender_advance_to, ts__sender_run, ts__sender_next_event, NULL };
static const fab_node_ops ts__rx_ops = { ts__rx_advance_to, ts__rx_run, ts__rx_next_event, NULL };

/* The fabric: the switch first, so that in every cycle its deliveries reach the engines before
 * their cycle runs (the order the experiments were calibrated with). */
static inline int ts__fabric_init(ts_sim *s)
{
    fab_config fc;
    uint32_t h;
    memset(&fc, 0, sizeof fc);
    fc.max_nodes = s->cfg.senders + 2u;
    fc.tick_only = s->cfg.tick_only;
    if (fab_init(&s->fab, &fc) != RNIC_OK)
        return -1;
    s->node[0].sim = s;
    s->switch_id = fab_add(&s->fab, &ts__switch_ops, &s->node[0]);
    for (h = 0; h < s->cfg.senders; h++) {
        s->node[1u + h].sim = s;
        s->node[1u + h].host = h;
        s->sender_id[h] = fab_add(&s->fab, &ts__sender_ops, &s->node[1u + h]);
    }
    s->node[1u + s->cfg.senders].sim = s;
    s->rx_id = fab_add(&s->fab, &ts__rx_ops, &s->node[1u + s->cfg.senders]);
    return s->rx_id == RNIC_NONE ? -1 : 0;
}

/* Every part to `cycle` (the nodes the scheduler did not visit lag behind), for the examples
 * that read them between runs: fab_bring of every node, its advance_to called directly (ts_step
 * does this at every step, where the indirect calls cost more than the advancing). */
static inline void ts__bring_all(ts_sim *s, uint64_t cycle)
{
    uint32_t h;
    ts__switch_advance_to(&s->node[0], cycle);
    for (h = 0; h < s->cfg.senders; h++)
        ts__sender_advance_to(&s->node[1u + h], cycle);
    ts__rx_advance_to(&s->node[1u + s->cfg.senders], cycle);
    s->now = cycle;
}

/* One step towards cycle `end`: skip to the next cycle at which a node is due and process it,
 * or skip to `end`. Every part is at s->now after it (an observer polling between steps sees
 * each cycle's changes at the cycle after it, as before). */
static inline void ts_step(ts_sim *s, uint64_t end)
{
    uint64_t next = fab_next_event(&s->fab);
    if (next == RNIC_NEVER || !rnic_cycle_before(next, end)) {
        fab_run_until(&s->fab, end);
        ts__bring_all(s, end);
        return;
    }
    fab_run_until(&s->fab, next + 1u);
    ts__bring_all(s, next + 1u);
}

/* Run until cycle `end`: the fabric visits the cycles at which a node is due. */
static inline void ts_run_to(ts_sim *s, uint64_t end)
{
    if (!rnic_cycle_before(s->now, end))
        return;
    fab_run_until(&s->fab, end);
    ts__bring_all(s, end);
}
#endif
