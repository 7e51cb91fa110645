/* net.h -- a small cycle-stepped network for the transport experiments (examples/rnic_model/):
 * point-to-point links with a rate and a propagation delay, and an output-queued switch with
 * one shared buffer, drop-tail, and two injected-loss modes (a deterministic drop list, a
 * seeded drop probability). Hosted example code, not an engine: it uses malloc/free at init
 * (nowhere else) and no floating point. Every function is static inline.
 *
 * Time follows the engine contract (docs/engine_contract.md) in the small: a part's state is a
 * function of its inputs and `now` only, so net_X_advance_to(c) jumping straight to `c` gives
 * exactly what ticking every cycle gives (tests/test_net.c compares the two on a random
 * workload); net_X_next_event is O(1) for a link and O(ports) for the switch. Like rm_pipe in
 * model_parts.h, next_event answers `now` while a packet waits to be popped (the composed
 * model's "can move" test); otherwise the next cycle a packet finishes serialisation (a queue
 * slot and its bytes free up) or arrives, RNIC_NEVER when empty. Cycles wrap modulo 2^64, and
 * RNIC_NEVER is also cycle 2^64 - 1 (the contract's one ambiguity): an event due then is
 * reported one cycle early (2^64 - 2; a visit there finds nothing to do, step one cycle), and
 * at now = 2^64 - 1 "a packet waits" reads as RNIC_NEVER, so a driver asks peek first.
 *
 * A link serialises exactly: a busy period that starts at cycle e and has put b bits on the
 * wire so far ends at e + ceil(b * clock_hz / rate_bps), computed with a 128-bit product, so
 * 10^6 back-to-back packets take exactly ceil(total bits * clock / rate) cycles (no Q32
 * rounding, no drift). A packet pushed at cycle t onto an idle link is popped at the far end
 * at t + ceil(wire_bits * clock / rate) + prop, prop = round(prop_ns * clock_hz / 10^9).
 *
 * The switch: ingress is instantaneous (a packet pushed at cycle t is in its egress queue at
 * t, and starts on an idle egress link at t). A packet holds switch buffer from admission until
 * its last byte is serialised on the egress link. Checks, in order, for a packet routed to
 * port p: the drop list (ordinal = number of earlier packets routed to p), the drop
 * probability (one draw of port p's PRNG per routed packet), then the shared buffer
 * (admitted when occupancy + wire_bytes <= buffer_bytes, else drop-tail). An admitted packet
 * is marked CE (ecn = 1) when p's egress queue holds more than ecn_k_bytes (0 = no marking).
 *
 * API:
 *   void     net_link_config_default(net_link_config *c);
 *   rnic_err net_link_config_check(const net_link_config *c, const char **field);
 *   rnic_err net_link_init(net_link *l, const net_link_config *c);
 *   void     net_link_free(net_link *l);
 *   rnic_err net_link_push(net_link *l, const net_pkt *p);
 *   uint32_t net_link_space(const net_link *l);
 *   rnic_err net_link_peek(const net_link *l, net_pkt *out);
 *   rnic_err net_link_pop(net_link *l, net_pkt *out);
 *   uint64_t net_link_next_event(const net_link *l);
 *   void     net_link_advance_to(net_link *l, uint64_t cycle);
 *   uint64_t net_link_now(const net_link *l);
 *   uint64_t net_link_queued_bytes(const net_link *l);
 *   void     net_switch_config_default(net_switch_config *c);
 *   rnic_err net_switch_config_check(const net_switch_config *c, const char **field);
 *   rnic_err net_switch_init(net_switch *sw, const net_switch_config *c);
 *   void     net_switch_free(net_switch *sw);
 *   rnic_err net_switch_route(net_switch *sw, uint32_t dst, uint32_t port);
 *   rnic_err net_switch_set_drop_list(net_switch *sw, uint32_t port, const uint64_t *ordinals, uint32_t n);
 *   rnic_err net_switch_set_drop_ppm(net_switch *sw, uint32_t port, uint32_t ppm, uint64_t seed);
 *   rnic_err net_switch_push(net_switch *sw, const net_pkt *p);
 *   rnic_err net_switch_peek(const net_switch *sw, uint32_t port, net_pkt *out);
 *   rnic_err net_switch_pop(net_switch *sw, uint32_t port, net_pkt *out);
 *   uint64_t net_switch_next_event(const net_switch *sw);
 *   void     net_switch_advance_to(net_switch *sw, uint64_t cycle);
 *   uint64_t net_switch_now(const net_switch *sw);
 * Statistics are plain struct fields: net_link.stats, net_switch.stats, net_switch.port[p].stats. */
#ifndef RNIC_NET_H
#define RNIC_NET_H
#include "../../ratelimit.h" /* the rnicq common core: rnic_work, rnic_err, rnic_prng, 128-bit helpers */
#include <stdlib.h>
#include <string.h>

/* A packet on the network: the transport's record travels untouched inside it. */
typedef struct net_pkt {
    rnic_work w;          /* flow, index = segment id, len = payload, op = packet type, ... */
    uint32_t src, dst;    /* host ids; the switch routes by dst */
    uint32_t wire_bytes;  /* what the link serialises (payload + headers), set by the sender */
    uint32_t ecn;         /* 1: CE, set by a switch queue over its threshold */
} net_pkt;

/* ================================ link =================================================== */

typedef struct net_link_config {
    uint64_t rate_bps, prop_ns, clock_hz;
    uint32_t queue_packets;   /* input queue: packets waiting for, or in, the serialiser */
    uint32_t out_packets;     /* arrived packets that may wait for a pop before push says EBUSY */
    uint32_t min_wire_bytes;  /* smaller packets are refused (bounds the packets on the wire) */
    uint32_t max_wire_bytes;  /* larger packets are refused (the MTU) */
} net_link_config;

typedef struct net_link_stats {
    uint64_t pushed, pushed_bytes;  /* accepted into the input queue (wire bytes) */
    uint64_t sent, sent_bytes;      /* last byte serialised by now */
    uint64_t popped, popped_bytes;  /* taken at the far end */
    rnic_err_stats errors;          /* refused calls by cause (EBUSY, ERANGE, EINVAL) */
} net_link_stats;

typedef struct net_link_slot {
    net_pkt p;
    uint64_t done;  /* cycle its last byte leaves the serialiser; it arrives at done + prop */
} net_link_slot;

/* One ring, three regions in FIFO order from head: `arrived` packets ready to pop, then
 * `on_wire` packets propagating, then the input queue (count - arrived - on_wire). */
typedef struct net_link {
    net_link_config cfg;
    net_link_slot *slot;
    uint32_t size, head, count, arrived, on_wire;
    uint64_t prop;           /* propagation delay in cycles */
    uint64_t queued_bytes;   /* wire bytes in the input queue (the switch's buffer use) */
    uint64_t epoch, bits;    /* current busy period: started at cycle epoch, bits put on wire */
    uint64_t now;
    net_link_stats stats;
} net_link;

static inline void net_link_config_default(net_link_config *c)
{
    memset(c, 0, sizeof *c);
    c->rate_bps = 10000000000ull; /* the Tonic experiments: 10 Gb/s host links, */
    c->prop_ns = 2500;            /* 2.5 us per hop (10 us RTT through one switch), */
    c->clock_hz = 100000000ull;   /* 100 MHz (Tonic's 100 ns cycle at 10G) */
    c->queue_packets = 1024;
    c->out_packets = 64;
    c->min_wire_bytes = 64;       /* minimum Ethernet frame */
    c->max_wire_bytes = 9216;     /* jumbo frame */
}

static inline uint32_t net__queued(const net_link *l) { return l->count - l->arrived - l->on_wire; }
static inline net_link_slot *net__at(const net_link *l, uint32_t i) { return &l->slot[(l->head + i) % l->size]; }
static inline bool net__due(uint64_t t, uint64_t now) { return rnic_cycle_before_eq(t, now); }

/* Most packets on the wire at once: their serialisations end inside one window of prop
 * cycles and are at least min_wire_bytes apart, so floor(prop * rate / (min bits * clock)) + 1
 * (+1 for safety). Returns 0 when that is absurd (> 2^24). */
static inline uint64_t net__wire_bound(const net_link_config *c, uint64_t prop)
{
    uint64_t hi, lo, per = (uint64_t)c->min_wire_bytes * 8u * c->clock_hz, n;
    rnic_mul64x64(prop, c->rate_bps, &hi, &lo);
    if (hi >= per)
        return 0;
    n = rnic_udiv128_64(hi, lo, per, NULL) + 2u;
    return n > (1u << 24) ? 0 : n;
}

static inline rnic_err net_link_config_check(const net_link_config *c, const char **field)
{
    if (!c)
        return rnic_config_bad(field, "config", RNIC_EINVAL);
    if (c->clock_hz == 0 || c->clock_hz > 10000000000ull)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (c->rate_bps == 0)
        return rnic_config_bad(field, "rate_bps", RNIC_EINVAL);
    if (c->queue_packets == 0 || c->queue_packets > (1u << 24))
        return rnic_config_bad(field, "queue_packets", RNIC_ERANGE);
    if (c->out_packets == 0 || c->out_packets > (1u << 24))
        return rnic_config_bad(field, "out_packets", RNIC_ERANGE);
    if (c->max_wire_bytes == 0 || c->max_wire_bytes > (1u << 24))
        return rnic_config_bad(field, "max_wire_bytes", RNIC_ERANGE);
    if (c->min_wire_bytes == 0 || c->min_wire_bytes > c->max_wire_bytes)
        return rnic_config_bad(field, "min_wire_bytes", RNIC_ERANGE);
    if (c->prop_ns > 1000000000000ull || !net__wire_bound(c, rnic_ns_to_cycles(c->prop_ns, c->clock_hz)))
        return rnic_config_bad(field, "prop_ns", RNIC_ERANGE); /* over 1000 s, or 2^24 packets in flight */
    return RNIC_OK;
}

static inline rnic_err net_link_init(net_link *l, const net_link_config *c)
{
    rnic_err e;
    if (!l)
        return RNIC_EINVAL;
    memset(l, 0, sizeof *l);
    if ((e = net_link_config_check(c, NULL)) != RNIC_OK)
        return e;
    l->cfg = *c;
    l->prop = rnic_ns_to_cycles(c->prop_ns, c->clock_hz);
    l->size = c->queue_packets + c->out_packets + (uint32_t)net__wire_bound(c, l->prop);
    l->slot = (net_link_slot *)calloc(l->size, sizeof *l->slot);
    return l->slot ? RNIC_OK : RNIC_ENOSPC;
}

static inline void net_link_free(net_link *l)
{
    if (l) {
        free(l->slot);
        l->slot = NULL;
    }
}

static inline uint32_t net_link_space(const net_link *l)
{
    uint32_t q, r;
    if (!l || !l->slot)
        return 0;
    q = l->cfg.queue_packets - net__queued(l);
    r = l->size - l->count;
    return q < r ? q : r;
}

static inline rnic_err net_link_push(net_link *l, const net_pkt *p)
{
    net_link_slot *s;
    uint64_t hi, lo, d = 0;
    if (!l || !l->slot)
        return RNIC_EINVAL;
    if (!p)
        return rnic_err_note(&l->stats.errors, RNIC_EINVAL);
    if (p->wire_bytes < l->cfg.min_wire_bytes || p->wire_bytes > l->cfg.max_wire_bytes)
        return rnic_err_note(&l->stats.errors, RNIC_ERANGE);
    if (!net_link_space(l))
        return rnic_err_note(&l->stats.errors, RNIC_EBUSY);
    if (!net__queued(l)) { /* the serialiser finished everything by now: a new busy period */
        l->epoch = l->now;
        l->bits = 0;
    }
    l->bits += (uint64_t)p->wire_bytes * 8u;
    /* done = epoch + ceil(bits * clock / rate): exact, whatever the packet count */
    rnic_mul64x64(l->bits, l->cfg.clock_hz, &hi, &lo);
    lo += l->cfg.rate_bps - 1u;
    hi += lo < l->cfg.rate_bps - 1u;
    if (hi < l->cfg.rate_bps) /* always, for busy periods shorter than 2^64 cycles */
        d = rnic_udiv128_64(hi, lo, l->cfg.rate_bps, NULL);
    s = net__at(l, l->count);
    s->p = *p;
    s->done = l->epoch + d;
    l->count++;
    l->queued_bytes += p->wire_bytes;
    l->stats.pushed++;
    l->stats.pushed_bytes += p->wire_bytes;
    return RNIC_OK;
}

static inline rnic_err net_link_peek(const net_link *l, net_pkt *out)
{
    if (!l || !l->slot || !out)
        return RNIC_EINVAL;
    if (!l->arrived)
        return RNIC_EEMPTY;
    *out = l->slot[l->head].p;
    return RNIC_OK;
}

/* RNIC_EEMPTY when nothing has arrived (not counted: polling is normal); RNIC_EINVAL for a
 * NULL record (counted). */
static inline rnic_err net_link_pop(net_link *l, net_pkt *out)
{
    rnic_err e = net_link_peek(l, out);
    if (e == RNIC_EINVAL && l && l->slot)
        return rnic_err_note(&l->stats.errors, e);
    if (e != RNIC_OK)
        return e;
    l->head = (l->head + 1u) % l->size;
    l->count--;
    l->arrived--;
    l->stats.popped++;
    l->stats.popped_bytes += out->wire_bytes;
    return RNIC_OK;
}

/* The serialisation end of the oldest queued packet, the arrival of the oldest packet on the
 * wire, whichever comes first; `now` while a packet can be popped. */
static inline uint64_t net_link_next_event(const net_link *l)
{
    uint64_t next;
    if (!l || !l->slot || !l->count)
        return RNIC_NEVER;
    if (l->arrived)
        return l->now;
    if (!l->on_wire)
        next = net__at(l, 0)->done;
    else if (!net__queued(l))
        next = net__at(l, 0)->done + l->prop;
    else { /* both: the earlier (wrap-safe) */
        uint64_t arrive = net__at(l, 0)->done + l->prop, leave = net__at(l, l->on_wire)->done;
        next = rnic_cycle_before(leave, arrive) ? leave : arrive;
    }
    /* an event due exactly at cycle 2^64 - 1 would read as RNIC_NEVER: report it one cycle
     * early (a visit that finds nothing to do) rather than lose it */
    return next == RNIC_NEVER ? RNIC_NEVER - 1u : next;
}

/* Move to `cycle` (at or after now): every packet whose last byte left by then leaves the
 * queue (and the switch buffer), every packet whose propagation ended by then can be popped. */
static inline void net_link_advance_to(net_link *l, uint64_t cycle)
{
    if (!l || !l->slot)
        return;
    l->now = cycle;
    while (net__queued(l)) {
        net_link_slot *s = net__at(l, l->arrived + l->on_wire);
        if (!net__due(s->done, cycle))
            break;
        l->on_wire++;
        l->queued_bytes -= s->p.wire_bytes;
        l->stats.sent++;
        l->stats.sent_bytes += s->p.wire_bytes;
    }
    while (l->on_wire && net__due(net__at(l, l->arrived)->done + l->prop, cycle)) {
        l->on_wire--;
        l->arrived++;
    }
}

static inline uint64_t net_link_now(const net_link *l) { return l ? l->now : 0; }
static inline uint64_t net_link_queued_bytes(const net_link *l) { return l ? l->queued_bytes : 0; }

/* ================================ switch ================================================= */

enum { NET_DROP_BUFFER = 0, NET_DROP_LIST = 1, NET_DROP_RANDOM = 2, NET_DROP__COUNT = 3 };
#define NET_NO_PORT UINT32_MAX

/* Called for every dropped packet (traces); cause is NET_DROP_*. */
typedef void (*net_drop_fn)(void *user, const net_pkt *p, uint32_t port, uint32_t cause, uint64_t cycle);

typedef struct net_switch_config {
    uint32_t ports;            /* egress ports, each with its link towards its neighbour */
    uint32_t hosts;            /* dst ids the route table covers: [0, hosts) */
    uint64_t buffer_bytes;     /* one buffer shared by every egress queue */
    uint64_t ecn_k_bytes;      /* mark CE when the egress queue holds more at enqueue; 0 = off */
    net_link_config link;      /* every egress link; queue_packets is sized by init so that the
                                  buffer, not a packet count, limits a queue */
    net_drop_fn on_drop;       /* NULL = off */
    void *drop_user;
} net_switch_config;

typedef struct net_port_stats {
    uint64_t arrivals;                  /* packets routed to the port (the drop-list ordinals) */
    uint64_t admitted, admitted_bytes;
    uint64_t dropped[NET_DROP__COUNT], dropped_bytes;
    uint64_t marked;
} net_port_stats;

typedef struct net_port {
    net_link link;
    const uint64_t *drop_list; /* sorted ordinals to drop; the caller's memory */
    uint32_t drop_len, drop_next;
    uint32_t drop_ppm;         /* drop probability in parts per million (0 = off) */
    rnic_prng prng;            /* the port's own stream */
    net_port_stats stats;
} net_port;

typedef struct net_switch_stats {
    uint64_t dropped[NET_DROP__COUNT];
    uint64_t max_occupancy;    /* most buffer bytes in use right after an admission */
    rnic_err_stats errors;     /* refused pushes/calls by cause (ENOENT, ERANGE, EINVAL, EBUSY) */
} net_switch_stats;

typedef struct net_switch {
    net_switch_config cfg;
    net_port *port;
    uint32_t *route;           /* dst -> port, NET_NO_PORT when unknown */
    uint64_t occupancy;        /* buffer bytes in use = sum of the egress queues */
    uint64_t now;
    net_switch_stats stats;
} net_switch;

static inline void net_switch_config_default(net_switch_config *c)
{
    memset(c, 0, sizeof *c);
    c->ports = 3;              /* two senders and one receiver */
    c->hosts = 3;
    c->buffer_bytes = 5500000; /* the Tonic experiments' 5.5 MB */
    net_link_config_default(&c->link);
}

static inline uint64_t net__egress_queue_packets(const net_switch_config *c)
{
    return c->link.min_wire_bytes ? c->buffer_bytes / c->link.min_wire_bytes + 1u : 0;
}

static inline rnic_err net_switch_config_check(const net_switch_config *c, const char **field)
{
    net_link_config lc;
    rnic_err e;
    uint64_t q;
    if (!c)
        return rnic_config_bad(field, "config", RNIC_EINVAL);
    if (c->ports == 0 || c->ports > 4096)
        return rnic_config_bad(field, "ports", RNIC_ERANGE);
    if (c->hosts == 0 || c->hosts > (1u << 24))
        return rnic_config_bad(field, "hosts", RNIC_ERANGE);
    lc = c->link;
    lc.queue_packets = 1;
    if ((e = net_link_config_check(&lc, field)) != RNIC_OK)
        return e;
    q = net__egress_queue_packets(c);
    if (c->buffer_bytes < c->link.max_wire_bytes || q > (1u << 24))
        return rnic_config_bad(field, "buffer_bytes", RNIC_ERANGE);
    return RNIC_OK;
}

static inline void net_switch_free(net_switch *sw)
{
    uint32_t p;
    if (!sw)
        return;
    if (sw->port)
        for (p = 0; p < sw->cfg.ports; p++)
            net_link_free(&sw->port[p].link);
    free(sw->port);
    free(sw->route);
    sw->port = NULL;
    sw->route = NULL;
}

static inline rnic_err net_switch_init(net_switch *sw, const net_switch_config *c)
{
    net_link_config lc;
    rnic_err e;
    uint32_t p;
    if (!sw)
        return RNIC_EINVAL;
    memset(sw, 0, sizeof *sw);
    if ((e = net_switch_config_check(c, NULL)) != RNIC_OK)
        return e;
    sw->cfg = *c;
    lc = c->link;
    lc.queue_packets = (uint32_t)net__egress_queue_packets(c);
    sw->port = (net_port *)calloc(c->ports, sizeof *sw->port);
    sw->route = (uint32_t *)malloc((size_t)c->hosts * sizeof *sw->route);
    if (!sw->port || !sw->route) {
        net_switch_free(sw);
        return RNIC_ENOSPC;
    }
    for (p = 0; p < c->hosts; p++)
        sw->route[p] = NET_NO_PORT;
    for (p = 0; p < c->ports; p++)
        if (net_link_init(&sw->port[p].link, &lc) != RNIC_OK) {
            net_switch_free(sw);
            return RNIC_ENOSPC;
        }
    return RNIC_OK;
}

static inline rnic_err net_switch_route(net_switch *sw, uint32_t dst, uint32_t port)
{
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (dst >= sw->cfg.hosts || port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    sw->route[dst] = port;
    return RNIC_OK;
}

/* Drop the packets routed to `port` whose ordinals (0-based, counting every packet routed to
 * the port) are listed; strictly increasing, the memory stays the caller's. n = 0: none. */
static inline rnic_err net_switch_set_drop_list(net_switch *sw, uint32_t port, const uint64_t *ordinals, uint32_t n)
{
    uint32_t i;
    if (!sw || !sw->port || (n && !ordinals))
        return sw && sw->port ? rnic_err_note(&sw->stats.errors, RNIC_EINVAL) : RNIC_EINVAL;
    if (port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    for (i = 1; i < n; i++)
        if (ordinals[i] <= ordinals[i - 1])
            return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    sw->port[port].drop_list = ordinals;
    sw->port[port].drop_len = n;
    sw->port[port].drop_next = 0;
    while (sw->port[port].drop_next < n && ordinals[sw->port[port].drop_next] < sw->port[port].stats.arrivals)
        sw->port[port].drop_next++; /* ordinals already passed never apply */
    return RNIC_OK;
}

/* Drop each packet routed to `port` with probability ppm / 10^6, from a stream seeded by
 * (seed, port): the same seed gives the same drops. */
static inline rnic_err net_switch_set_drop_ppm(net_switch *sw, uint32_t port, uint32_t ppm, uint64_t seed)
{
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    if (ppm > 1000000u)
        return rnic_err_note(&sw->stats.errors, RNIC_ERANGE);
    sw->port[port].drop_ppm = ppm;
    rnic_prng_seed(&sw->port[port].prng, seed ^ ((uint64_t)(port + 1u) * 0x9e3779b97f4a7c15ull));
    return RNIC_OK;
}

static inline void net__drop(net_switch *sw, net_port *pt, uint32_t port, const net_pkt *p, uint32_t cause)
{
    pt->stats.dropped[cause]++;
    pt->stats.dropped_bytes += p->wire_bytes;
    sw->stats.dropped[cause]++;
    if (sw->cfg.on_drop)
        sw->cfg.on_drop(sw->cfg.drop_user, p, port, cause, sw->now);
}

/* A packet enters the switch at now. RNIC_OK when it was taken -- admitted to its egress queue
 * or dropped (a drop is the network's business, counted in stats.dropped, not an error).
 * Refused and counted in stats.errors: NULL (EINVAL), dst without a route (ENOENT),
 * wire_bytes outside the link's [min, max] (ERANGE), and EBUSY when the egress link has no
 * slot left because the caller does not pop its far end. */
static inline rnic_err net_switch_push(net_switch *sw, const net_pkt *p)
{
    net_port *pt;
    net_pkt in;
    uint32_t port;
    uint64_t ordinal;
    bool listed, unlucky;
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (!p)
        return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    if (p->dst >= sw->cfg.hosts || (port = sw->route[p->dst]) == NET_NO_PORT)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    if (p->wire_bytes < sw->cfg.link.min_wire_bytes || p->wire_bytes > sw->cfg.link.max_wire_bytes)
        return rnic_err_note(&sw->stats.errors, RNIC_ERANGE);
    pt = &sw->port[port];
    if (!net_link_space(&pt->link))
        return rnic_err_note(&sw->stats.errors, RNIC_EBUSY);
    ordinal = pt->stats.arrivals++;
    while (pt->drop_next < pt->drop_len && pt->drop_list[pt->drop_next] < ordinal)
        pt->drop_next++;
    listed = pt->drop_next < pt->drop_len && pt->drop_list[pt->drop_next] == ordinal;
    /* the port's stream advances once per routed packet, so the list does not shift it */
    unlucky = pt->drop_ppm && rnic_prng_chance(&pt->prng, pt->drop_ppm, 1000000u);
    if (listed) {
        net__drop(sw, pt, port, p, NET_DROP_LIST);
        return RNIC_OK;
    }
    if (unlucky) {
        net__drop(sw, pt, port, p, NET_DROP_RANDOM);
        return RNIC_OK;
    }
    if (sw->occupancy + p->wire_bytes > sw->cfg.buffer_bytes) {
        net__drop(sw, pt, port, p, NET_DROP_BUFFER);
        return RNIC_OK;
    }
    in = *p;
    if (sw->cfg.ecn_k_bytes && pt->link.queued_bytes > sw->cfg.ecn_k_bytes) {
        in.ecn = 1;
        pt->stats.marked++;
    }
    if (net_link_push(&pt->link, &in) != RNIC_OK) /* cannot happen: space and size checked */
        return rnic_err_note(&sw->stats.errors, RNIC_ESTATE);
    sw->occupancy += p->wire_bytes;
    if (sw->occupancy > sw->stats.max_occupancy)
        sw->stats.max_occupancy = sw->occupancy;
    pt->stats.admitted++;
    pt->stats.admitted_bytes += p->wire_bytes;
    return RNIC_OK;
}

/* The packet at the far end of egress `port` (its neighbour's input). */
static inline rnic_err net_switch_peek(const net_switch *sw, uint32_t port, net_pkt *out)
{
    if (!sw || !sw->port || !out)
        return RNIC_EINVAL;
    if (port >= sw->cfg.ports)
        return RNIC_ENOENT;
    return net_link_peek(&sw->port[port].link, out);
}

static inline rnic_err net_switch_pop(net_switch *sw, uint32_t port, net_pkt *out)
{
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (!out)
        return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    if (port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    return net_link_pop(&sw->port[port].link, out);
}

static inline uint64_t net_switch_next_event(const net_switch *sw)
{
    uint64_t next = RNIC_NEVER;
    uint32_t p;
    if (!sw || !sw->port)
        return RNIC_NEVER;
    for (p = 0; p < sw->cfg.ports; p++) {
        uint64_t t = net_link_next_event(&sw->port[p].link);
        if (t != RNIC_NEVER && (next == RNIC_NEVER || rnic_cycle_before(t, next)))
            next = t;
    }
    return next;
}

static inline void net_switch_advance_to(net_switch *sw, uint64_t cycle)
{
    uint32_t p;
    if (!sw || !sw->port)
        return;
    sw->now = cycle;
    for (p = 0; p < sw->cfg.ports; p++) {
        net_link *l = &sw->port[p].link;
        uint64_t before = l->queued_bytes;
        net_link_advance_to(l, cycle);
        sw->occupancy -= before - l->queued_bytes; /* bytes whose last bit left the switch */
    }
}

static inline uint64_t net_switch_now(const net_switch *sw) { return sw ? sw->now : 0; }
#endif
