/* net.h -- a small cycle-stepped network for the transport experiments (examples/rnic_model/):
 * point-to-point links with a rate and a propagation delay, and an output-queued switch with
 * one shared buffer, drop-tail, and two injected-loss modes (a deterministic drop list, a
 * seeded drop probability), ECMP routes, and the fabric's options below. Hosted example code,
 * not an engine: it uses malloc/free at init (nowhere else) and no floating point. Every
 * function is static inline. It needs the common core's implementation in the translation unit
 * (rnic_hash64): define RNIC_IMPLEMENTATION (or an engine's X_IMPLEMENTATION; with
 * RNIC_ENGINES_LINKED when the engines are compiled elsewhere) before including ratelimit.h.
 *
 * Time follows the engine contract (docs/engine_contract.md) in the small: a part's state is a
 * function of its inputs and `now` only, so net_X_advance_to(c) jumping straight to `c` gives
 * exactly what ticking every cycle gives (tests/test_net.c compares the two on a random
 * workload); net_X_next_event is O(1), and the switch processes an event in O(log ports) (a heap
 * of its ports' next events; a port with nothing due costs nothing). Like rm_pipe in
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
 * its last byte is serialised on the egress link. The route of its dst gives port p: one port
 * (net_switch_route), or a set (net_switch_route_ecmp) of which it takes ports[h % n], h =
 * XXH64 of (src, dst, w.flow) seeded with ecmp_seed (counted in port[p].stats.ecmp_chosen).
 * Checks, in order: the drop list (ordinal = number of earlier packets routed to p), the drop
 * probability (one draw of port p's PRNG per routed packet), trimming, the dynamic threshold,
 * then the shared buffer (admitted when occupancy + wire_bytes <= buffer_bytes, else
 * drop-tail). An admitted packet is marked CE (ecn = 1) when p's egress queue holds more than
 * ecn_k_bytes (0 = no marking). Options (all off by default; docs/network_model.md gives the
 * choices and sources): RED marking when a packet's last byte leaves (ecn_kmin/kmax/pmax), PFC
 * per ingress port (pfc_xoff/xon/headroom/quanta: PAUSE frames are an output,
 * net_switch_pop_pfc; a link obeys them through net_link_pause; net_switch_pfc_derive sets the
 * thresholds from the port count, link rate, delay and MTU), NDP trimming (trim_bytes,
 * trim_header_bytes), a dynamic threshold per egress queue (Choudhury & Hahne: dt_alpha_num /
 * dt_alpha_den; not applied to what PFC keeps lossless) and strict priority for control packets
 * (control_priority: net_pkt.control packets go ahead of every data packet not yet started on
 * their egress link, FIFO among themselves; a data packet being serialised finishes; the switch
 * then times its egress links lazily, so advance them only through net_switch_advance_to). The
 * switch owns its egress links: pause one with net_switch_pause_port(_quanta), not net_link_pause,
 * and call net_switch_settle (or _settle_port) before reading a port link's paused_cycles or now
 * (a port's link is brought to the switch's now only when it has an event). With all of them off the switch behaves exactly as before
 * they existed.
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
 *   rnic_err net_link_pause(net_link *l, uint64_t until_cycle);
 *   rnic_err net_link_pause_quanta(net_link *l, uint32_t quanta);
 *   uint64_t net_pfc_quanta_cycles(const net_link_config *c, uint32_t quanta);
 *   uint64_t net_pfc_in_flight_bytes(const net_link_config *c);
 *   uint32_t net_pfc_reaction_quanta(uint64_t rate_bps);
 *   uint64_t net_pfc_headroom_bytes(const net_link_config *link);
 *   rnic_err net_switch_pfc_derive(net_switch_config *c, uint32_t ports, const net_link_config *link);
 *   void     net_switch_red_preset(net_switch_config *c, uint32_t preset);
 *   void     net_switch_config_default(net_switch_config *c);
 *   rnic_err net_switch_config_check(const net_switch_config *c, const char **field);
 *   rnic_err net_switch_init(net_switch *sw, const net_switch_config *c);
 *   void     net_switch_free(net_switch *sw);
 *   rnic_err net_switch_route(net_switch *sw, uint32_t dst, uint32_t port);
 *   rnic_err net_switch_route_ecmp(net_switch *sw, uint32_t dst, const uint32_t *ports, uint32_t n);
 *   uint64_t net_switch_flow_hash(const net_pkt *p, uint64_t seed);
 *   rnic_err net_switch_set_drop_list(net_switch *sw, uint32_t port, const uint64_t *ordinals, uint32_t n);
 *   rnic_err net_switch_set_drop_ppm(net_switch *sw, uint32_t port, uint32_t ppm, uint64_t seed);
 *   rnic_err net_switch_push(net_switch *sw, const net_pkt *p);
 *   rnic_err net_switch_push_from(net_switch *sw, uint32_t in_port, const net_pkt *p);
 *   rnic_err net_switch_pop_pfc(net_switch *sw, net_pfc_frame *out);
 *   rnic_err net_switch_peek(const net_switch *sw, uint32_t port, net_pkt *out);
 *   rnic_err net_switch_pop(net_switch *sw, uint32_t port, net_pkt *out);
 *   uint32_t net_switch_next_ready(const net_switch *sw, uint32_t from);  (a port with a packet to pop)
 *   rnic_err net_switch_pause_port(net_switch *sw, uint32_t port, uint64_t until_cycle);
 *   rnic_err net_switch_pause_port_quanta(net_switch *sw, uint32_t port, uint32_t quanta);
 *   void     net_switch_settle(net_switch *sw);
 *   void     net_switch_settle_port(net_switch *sw, uint32_t port);
 *   uint64_t net_switch_next_event(const net_switch *sw);
 *   void     net_switch_advance_to(net_switch *sw, uint64_t cycle);
 *   uint64_t net_switch_now(const net_switch *sw);
 * Statistics are plain struct fields: net_link.stats, net_switch.stats, net_switch.port[p].stats. */
#ifndef RNIC_NET_H
#define RNIC_NET_H
#include "../../ratelimit.h" /* the rnicq common core: rnic_work, rnic_err, rnic_prng, 128-bit helpers */
#include <stdlib.h>
#include <string.h>

#if !defined(RNIC__COMMON_IMPLEMENTATION_DONE)
#error "net.h needs rnic_hash64 (the ECMP hash is XXH64): define RNIC_IMPLEMENTATION (or an engine's X_IMPLEMENTATION, plus RNIC_ENGINES_LINKED when the engines are built elsewhere) before including ratelimit.h"
#endif

/* A packet on the network: the transport's record travels untouched inside it. */
#define NET_RING_FIRST 256u /* a link's ring starts with this many slots (it grows when full) */

typedef struct net_pkt {
    rnic_work w;          /* flow, index = segment id, len = payload, op = packet type, ... */
    uint32_t src, dst;    /* host ids; the switch routes by dst */
    uint32_t wire_bytes;  /* what the link serialises (payload + headers), set by the sender */
    uint32_t ecn;         /* 1: CE, set by a switch queue (step marking at enqueue, RED at dequeue) */
    uint32_t trimmed;     /* 1: a switch cut the payload off (NDP): wire_bytes = the header, w.len unchanged */
    uint32_t in_port;     /* the switch port it entered by (net_switch_push_from; NET_NO_PORT otherwise);
                             the switch sets it on the packet it queues, links carry it untouched */
    uint32_t control;     /* 1: a control packet (ACK, NAK, CNP, probe ACK, grant), set by the sender:
                             served before data where the switch's control_priority is on */
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
    uint64_t pauses, resumes;       /* net_link_pause calls: until after now / until at or before now */
    uint64_t paused_cycles;         /* cycles a pause timer ran (whether or not a packet waited) */
    rnic_err_stats errors;          /* refused calls by cause (EBUSY, ERANGE, EINVAL) */
} net_link_stats;

typedef struct net_link_slot {
    net_pkt p;
    uint64_t done;  /* cycle its last byte leaves the serialiser; it arrives at done + prop */
    uint64_t epoch, cum_bits; /* its busy period's start and the bits through it in that period:
                                 its last bit leaves at exactly epoch + cum_bits * clock / rate */
} net_link_slot;

/* One ring, three regions in FIFO order from head: `arrived` packets ready to pop, then
 * `on_wire` packets propagating, then the input queue (count - arrived - on_wire). */
typedef struct net_link {
    net_link_config cfg;
    net_link_slot *slot;
    uint32_t size, head, count, arrived, on_wire; /* size: the ring's modulus, grown up to cap */
    uint32_t cap;            /* slots allocated: queue_packets + out_packets + what the wire holds */
    uint64_t prop;           /* propagation delay in cycles */
    uint64_t queued_bytes;   /* wire bytes in the input queue (the switch's buffer use) */
    uint64_t epoch, bits;    /* current busy period: started at cycle epoch, bits put on wire */
    uint64_t pause_until;    /* PFC: no packet starts before this cycle while `paused` */
    bool paused;             /* a pause timer runs (pause_until is after now) */
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
    l->cap = c->queue_packets + c->out_packets + (uint32_t)net__wire_bound(c, l->prop);
    /* The ring starts small and doubles when full (net__ring_grow): calloc's pages are touched
     * only as the ring uses them, so a link whose worst case is a buffer of minimum-size
     * packets (hundreds of thousands of slots) holds memory for what it really queued. */
    l->size = l->cap < NET_RING_FIRST ? l->cap : NET_RING_FIRST;
    l->slot = (net_link_slot *)calloc(l->cap, sizeof *l->slot);
    return l->slot ? RNIC_OK : RNIC_ENOSPC;
}

/* The ring is full at its modulus: double it (up to cap). The live slots run from head to the
 * old end, then wrap to 0 .. head - 1; those wrapped ones move to just past the old end (mod
 * the new size), in increasing order, so the live run is contiguous again under the new
 * modulus and every slot keeps its place relative to head. */
static inline void net__ring_grow(net_link *l)
{
    uint32_t old = l->size, grown = old > l->cap / 2u ? l->cap : 2u * old, j;
    for (j = 0; j < l->head; j++)
        l->slot[(old + j) % grown] = l->slot[j];
    l->size = grown;
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
    r = l->cap - l->count;
    return q < r ? q : r;
}

/* epoch + ceil(bits * clock / rate): exact, whatever the packet count (busy periods shorter
 * than 2^64 cycles) */
static inline uint64_t net__done(const net_link *l, uint64_t epoch, uint64_t bits)
{
    uint64_t hi, lo, d = 0;
    rnic_mul64x64(bits, l->cfg.clock_hz, &hi, &lo);
    lo += l->cfg.rate_bps - 1u;
    hi += lo < l->cfg.rate_bps - 1u;
    if (hi < l->cfg.rate_bps) /* always, for busy periods shorter than 2^64 cycles */
        d = rnic_udiv128_64(hi, lo, l->cfg.rate_bps, NULL);
    return epoch + d;
}

/* Is cycle t strictly after the exact instant epoch + bits * clock / rate? (t at or after
 * epoch, wrap-safe; (t - epoch) * rate > bits * clock in 128 bits) */
static inline bool net__after_end(const net_link *l, uint64_t t, uint64_t epoch, uint64_t bits)
{
    uint64_t ah, al, bh, bl;
    if (rnic_cycle_before(t, epoch))
        return false;
    rnic_mul64x64(t - epoch, l->cfg.rate_bps, &ah, &al);
    rnic_mul64x64(bits, l->cfg.clock_hz, &bh, &bl);
    return ah > bh || (ah == bh && al > bl);
}

static inline rnic_err net_link_push(net_link *l, const net_pkt *p)
{
    net_link_slot *s;
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
    /* paused: the packet starts at the later of the serialiser's freeing and the pause's end */
    if (l->paused && net__after_end(l, l->pause_until, l->epoch, l->bits)) {
        l->epoch = l->pause_until;
        l->bits = 0;
    }
    l->bits += (uint64_t)p->wire_bytes * 8u;
    if (l->count == l->size)
        net__ring_grow(l);
    s = net__at(l, l->count);
    s->p = *p;
    s->done = net__done(l, l->epoch, l->bits);
    s->epoch = l->epoch;
    s->cum_bits = l->bits;
    l->count++;
    l->queued_bytes += p->wire_bytes;
    l->stats.pushed++;
    l->stats.pushed_bytes += p->wire_bytes;
    return RNIC_OK;
}

/* Re-time every packet of the input queue that has not started: they follow the packet in
 * service (head_started: the head's busy period has begun) as one busy period, or start at now
 * if none is in service, or a new busy period at the pause's end if that is later. Exact: each
 * slot keeps its busy period (epoch, cum_bits). O(queued packets). */
static inline void net__reschedule(net_link *l, bool head_started)
{
    uint32_t i, first = l->arrived + l->on_wire, end = l->count;
    uint64_t epoch, bits;
    if (head_started) {
        net_link_slot *h = net__at(l, first);
        epoch = h->epoch;
        bits = h->cum_bits;
        first++;
    } else {
        epoch = l->now;
        bits = 0;
    }
    if (l->paused && net__after_end(l, l->pause_until, epoch, bits)) {
        epoch = l->pause_until;
        bits = 0;
    }
    for (i = first; i < end; i++) {
        net_link_slot *s = net__at(l, i);
        bits += (uint64_t)s->p.wire_bytes * 8u;
        s->epoch = epoch;
        s->cum_bits = bits;
        s->done = net__done(l, epoch, bits);
    }
    l->epoch = epoch;
    l->bits = bits;
}

/* The head of the input queue is in service iff its busy period has started (a packet behind
 * the head never has: it would start at the head's exact end, which is after now since the
 * head's done is). */
static inline bool net__head_started(const net_link *l)
{
    return net__queued(l) && rnic_cycle_before_eq(net__at(l, l->arrived + l->on_wire)->epoch, l->now);
}

/* PFC (802.1Qbb): from now, the serialiser starts no packet before cycle `until`; a packet being
 * serialised finishes. until at or before now (e.g. = now) resumes at once. A new call replaces
 * the running pause (a PAUSE frame replaces the timer, quanta 0 = RESUME). The queued packets that
 * have not started are rescheduled exactly: they follow the one in service (or start at now) as
 * one busy period, or start a new busy period at `until` if that is later. Call it after
 * advancing the link to the cycle the pause frame arrives. O(queued packets). */
static inline rnic_err net_link_pause(net_link *l, uint64_t until)
{
    if (!l || !l->slot)
        return RNIC_EINVAL;
    if (rnic_cycle_before(l->now, until)) {
        l->paused = true;
        l->stats.pauses++;
    } else {
        until = l->now;
        l->paused = false;
        l->stats.resumes++;
    }
    l->pause_until = until;
    if (net__queued(l))
        net__reschedule(l, net__head_started(l));
    return RNIC_OK;
}

/* PAUSE quanta -> cycles on this link: a quantum is 512 bit times, rounded up. */
static inline uint64_t net_pfc_quanta_cycles(const net_link_config *c, uint32_t quanta)
{
    return ((uint64_t)quanta * 512u * c->clock_hz + c->rate_bps - 1u) / c->rate_bps;
}

/* A PAUSE frame with `quanta` arriving now: pause for quanta * 512 bit times; 0 resumes. */
static inline rnic_err net_link_pause_quanta(net_link *l, uint32_t quanta)
{
    if (!l || !l->slot)
        return RNIC_EINVAL;
    return net_link_pause(l, l->now + net_pfc_quanta_cycles(&l->cfg, quanta));
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

/* The next packet to reach the link's far end: now while one waits there, RNIC_NEVER when the
 * link holds none. The ring is arrived, on the wire, queued, in FIFO order; a queued packet's
 * time changes only when a pause re-times it (net_link_pause*). A packet leaving the queue is
 * net_link_next_event's, not an arrival. */
static inline uint64_t net_link_next_arrival(const net_link *l)
{
    if (!l || !l->slot || !l->count)
        return RNIC_NEVER;
    if (l->arrived)
        return l->now;
    return net__at(l, 0)->done + l->prop;
}

/* The head of the input queue leaves it (its last byte is out): now on the wire. */
static inline bool net__depart_due(const net_link *l, uint64_t cycle)
{
    return net__queued(l) && net__due(net__at(l, l->arrived + l->on_wire)->done, cycle);
}

static inline net_link_slot *net__depart(net_link *l)
{
    net_link_slot *s = net__at(l, l->arrived + l->on_wire);
    l->on_wire++;
    l->queued_bytes -= s->p.wire_bytes;
    l->stats.sent++;
    l->stats.sent_bytes += s->p.wire_bytes;
    return s;
}

/* Move to `cycle` (at or after now): every packet whose last byte left by then leaves the
 * queue (and the switch buffer), every packet whose propagation ended by then can be popped. */
static inline void net_link_advance_to(net_link *l, uint64_t cycle)
{
    if (!l || !l->slot)
        return;
    if (l->paused) {
        if (rnic_cycle_before(cycle, l->pause_until)) {
            l->stats.paused_cycles += cycle - l->now;
        } else {
            l->stats.paused_cycles += l->pause_until - l->now;
            l->paused = false;
        }
    }
    l->now = cycle;
    while (net__depart_due(l, cycle))
        net__depart(l);
    while (l->on_wire && net__due(net__at(l, l->arrived)->done + l->prop, cycle)) {
        l->on_wire--;
        l->arrived++;
    }
}

static inline uint64_t net_link_now(const net_link *l) { return l ? l->now : 0; }
static inline uint64_t net_link_queued_bytes(const net_link *l) { return l ? l->queued_bytes : 0; }

/* ================================ switch ================================================= */

/* drop causes: the whole buffer full (drop-tail), the drop list, the drop probability, and the
 * egress queue over its dynamic threshold (dt_alpha) */
enum { NET_DROP_BUFFER = 0, NET_DROP_LIST = 1, NET_DROP_RANDOM = 2, NET_DROP_THRESHOLD = 3, NET_DROP__COUNT = 4 };
#define NET_NO_PORT UINT32_MAX
#define NET_PFC_MAX_QUANTA 65535u

/* Called for every dropped packet (traces); cause is NET_DROP_*. */
typedef void (*net_drop_fn)(void *user, const net_pkt *p, uint32_t port, uint32_t cause, uint64_t cycle);

/* A PFC frame the switch sends towards the neighbour on `port` (the one whose packets enter by
 * that port): quanta > 0 pauses it for quanta * 512 bit times, 0 resumes it (XON). `cycle` is
 * when the switch sent it; the caller delivers it to the neighbour's link after the reverse
 * link's propagation delay (net_link_pause_quanta at cycle + prop). */
typedef struct net_pfc_frame {
    uint32_t port, quanta;
    uint64_t cycle;
} net_pfc_frame;

typedef struct net_switch_config {
    uint32_t ports;            /* egress ports, each with its link towards its neighbour */
    uint32_t hosts;            /* dst ids the route table covers: [0, hosts) */
    uint64_t buffer_bytes;     /* one buffer shared by every egress queue */
    uint64_t ecn_k_bytes;      /* mark CE when the egress queue holds more at enqueue; 0 = off */
    /* RED marking at dequeue (DCQCN's switch), off while ecn_pmax_ppm = 0: when a packet's last
     * byte leaves its egress link, with q = the bytes still queued behind it: q <= kmin no mark,
     * q > kmax mark, else mark with probability pmax (q - kmin) / (kmax - kmin) */
    uint64_t ecn_kmin_bytes, ecn_kmax_bytes;
    uint32_t ecn_pmax_ppm;     /* pmax in parts per million (1 % = 10000) */
    uint64_t ecn_seed;         /* the marking streams (one per port, apart from the drop streams) */
    /* PFC (802.1Qbb, one priority), off while pfc_xoff_bytes = 0: the bytes a port's neighbour has
     * in the buffer over xoff -> PAUSE(pfc_quanta) towards it, refreshed every half pause while
     * over xon; down to xon -> RESUME. Admission then allows buffer_bytes + pfc_headroom_bytes. */
    uint64_t pfc_xoff_bytes, pfc_xon_bytes, pfc_headroom_bytes;
    uint32_t pfc_quanta;       /* default 65535 (the largest) */
    /* PFC headroom reserved per ingress (net_switch_pfc_derive sets it; 0 = none declared): the
     * bytes a neighbour can still send after its PAUSE. Checked, not used per packet: the check
     * refuses ports x headroom over the buffer (+ pfc_headroom_bytes), and ports x (xoff +
     * headroom) over it. */
    uint64_t pfc_port_headroom_bytes;
    /* Dynamic threshold (Choudhury & Hahne), off while dt_alpha_num = 0: an egress queue admits a
     * packet while its bytes < dt_alpha_num / dt_alpha_den x (buffer_bytes - occupancy). Not
     * applied to packets PFC counts (a known ingress while PFC is on): those are lossless. */
    uint32_t dt_alpha_num, dt_alpha_den; /* default 0 / 1 */
    /* Strict priority for control packets (net_pkt.control), off while 0: two queues per egress
     * port, control served first, non-preemptive (a data packet being serialised finishes) */
    uint32_t control_priority;
    /* ECMP (net_switch_route_ecmp): a packet to a multi-port route takes ports[h % n], h = XXH64
     * of (src, dst, w.flow) seeded with ecmp_seed (a different seed per switch decorrelates them) */
    uint64_t ecmp_seed;
    uint32_t ecmp_groups;      /* distinct port sets the switch can hold; default 64 */
    /* Trimming (NDP), off while trim_bytes = 0: a packet over trim_header_bytes that finds its
     * egress queue holding more than trim_bytes (or would not fit the buffer) keeps only its
     * header: wire_bytes = trim_header_bytes, trimmed = 1 */
    uint64_t trim_bytes;
    uint32_t trim_header_bytes; /* default 64 */
    net_link_config link;      /* every egress link; queue_packets is sized by init so that the
                                  buffer, not a packet count, limits a queue */
    net_drop_fn on_drop;       /* NULL = off */
    void *drop_user;
} net_switch_config;

typedef struct net_port_stats {
    uint64_t arrivals;                  /* packets routed to the port (the drop-list ordinals) */
    uint64_t admitted, admitted_bytes;
    uint64_t dropped[NET_DROP__COUNT], dropped_bytes;
    uint64_t marked;                    /* CE marks: step marks at enqueue and RED marks at dequeue */
    uint64_t red_marked;                /* of which RED */
    uint64_t trimmed;                   /* packets routed here that were trimmed */
    /* PFC, counted on the port whose neighbour is paused (its ingress) */
    uint64_t pfc_xoff, pfc_refresh, pfc_resume; /* PAUSE frames (first, refresh), RESUME frames */
    uint64_t pfc_max_bytes;             /* most bytes from this ingress in the buffer at once */
    uint64_t ecmp_chosen;               /* packets an ECMP route sent here (before any drop) */
    uint64_t control_admitted;          /* control packets admitted (served first when control_priority) */
} net_port_stats;

typedef struct net_port {
    net_link link;
    const uint64_t *drop_list; /* sorted ordinals to drop; the caller's memory */
    uint32_t drop_len, drop_next;
    uint32_t drop_ppm;         /* drop probability in parts per million (0 = off) */
    rnic_prng prng;            /* the port's own stream */
    rnic_prng ecn_prng;        /* the port's RED stream */
    uint64_t in_bytes;         /* PFC: buffer bytes of packets that entered by this port */
    bool pfc_xoff;             /* PFC: its neighbour is paused (a PAUSE sent, no RESUME since) */
    uint64_t pfc_refresh_at;   /* PFC: when the pause is refreshed, while pfc_xoff */
    uint64_t control_bytes;    /* control_priority: buffer bytes of control packets queued here */
    net_port_stats stats;
} net_port;

/* An ECMP port set: ports ecmp_port[first .. first + n) */
typedef struct net_ecmp_group {
    uint32_t first, n;
} net_ecmp_group;

typedef struct net_switch_stats {
    uint64_t dropped[NET_DROP__COUNT];
    uint64_t max_occupancy;    /* most buffer bytes in use right after an admission */
    uint64_t pfc_frames_lost;  /* PFC frames not queued: the caller did not pop them (a driver bug) */
    rnic_err_stats errors;     /* refused pushes/calls by cause (ENOENT, ERANGE, EINVAL, EBUSY) */
} net_switch_stats;

typedef struct net_switch {
    net_switch_config cfg;
    net_port *port;
    uint32_t *route;           /* dst -> port, NET__ECMP + group for a port set, NET_NO_PORT when unknown */
    net_ecmp_group *ecmp;      /* the distinct port sets (cfg.ecmp_groups of them at most) */
    uint32_t *ecmp_port;       /* their ports, cfg.ecmp_groups x cfg.ports slots */
    uint32_t ecmp_count, ecmp_used; /* sets and port slots in use */
    uint64_t occupancy;        /* buffer bytes in use = sum of the egress queues */
    uint64_t now;
    uint64_t pfc_quanta_cycles, pfc_refresh_cycles;
    net_pfc_frame *pfc;        /* PFC frames waiting for net_switch_pop_pfc (a ring) */
    uint32_t pfc_size, pfc_head, pfc_count;
    /* The ports' next events, so that an event costs O(log ports), not O(ports): each port's
     * earliest (cycle, kind) -- its queue head's departure (kind 0), its PFC refresh (1), the
     * arrival of its oldest packet on the wire (2) -- in a binary min-heap of ports ordered by
     * (cycle, kind, port), the order the switch processes them in; and a bitmap of the ports
     * with a packet to pop. A port's link is brought to `now` only when it has an event, is
     * pushed, paused or popped (net_switch_settle brings them all, for reading their stats). */
    uint32_t *heap, *heap_at;  /* heap[i] = a port; heap_at[port] = its index */
    uint64_t *key_cycle;       /* per port: its earliest event's cycle (RNIC_NEVER: none) */
    uint8_t *key_kind;         /* per port: that event's kind */
    uint64_t *ready;           /* bit p: port p has an arrived packet (ceil(ports / 64) words) */
    uint32_t ready_count;      /* the bits set */
    /* Optional: told of every packet as its last byte leaves an egress port (after RED's mark),
     * with the cycle it reaches the far end (done + propagation). A fabric whose links are
     * outside the process (fm_ext.h: ns-3 channels) sends it from here. */
    void (*on_depart)(void *user, uint32_t port, const net_pkt *p, uint64_t done, uint64_t arrive);
    void *depart_user;
    net_switch_stats stats;
} net_switch;

static inline void net_switch_config_default(net_switch_config *c)
{
    memset(c, 0, sizeof *c);
    c->ports = 3;              /* two senders and one receiver */
    c->hosts = 3;
    c->buffer_bytes = 5500000; /* the Tonic experiments' 5.5 MB */
    c->pfc_quanta = NET_PFC_MAX_QUANTA;
    c->trim_header_bytes = 64;
    c->dt_alpha_den = 1;
    c->ecmp_groups = 64;
    net_link_config_default(&c->link);
}

/* RED presets (docs/network_model.md), thresholds scaled linearly with c->link.rate_bps:
 * NET_RED_DCQCN: the DCQCN paper's Kmin 5 KB, Kmax 200 KB, Pmax 1 % at 40 Gb/s;
 * NET_RED_HPCC: the HPCC simulator's maps, Kmin 100 KB, Kmax 400 KB, Pmax 0.2 at 25 Gb/s
 * (400 KB / 1600 KB at 100 Gb/s). Set the link rate first. */
#define NET_RED_DCQCN 1u
#define NET_RED_HPCC 2u
static inline void net_switch_red_preset(net_switch_config *c, uint32_t preset)
{
    uint64_t base = preset == NET_RED_HPCC ? 25000000000ull : 40000000000ull;
    uint64_t kmin = preset == NET_RED_HPCC ? 100000u : 5000u, kmax = preset == NET_RED_HPCC ? 400000u : 200000u;
    c->ecn_kmin_bytes = kmin * (c->link.rate_bps / 1000000u) / (base / 1000000u);
    c->ecn_kmax_bytes = kmax * (c->link.rate_bps / 1000000u) / (base / 1000000u);
    c->ecn_pmax_ppm = preset == NET_RED_HPCC ? 200000u : 10000u;
}

static inline bool net__pfc_on(const net_switch_config *c) { return c->pfc_xoff_bytes != 0; }

/* What admission allows: the buffer, plus the PFC headroom while PFC is on. */
static inline uint64_t net__limit(const net_switch_config *c)
{
    return c->buffer_bytes + (net__pfc_on(c) ? c->pfc_headroom_bytes : 0u);
}

static inline uint64_t net__egress_queue_packets(const net_switch_config *c)
{
    return c->link.min_wire_bytes ? net__limit(c) / c->link.min_wire_bytes + 1u : 0;
}

/* Bytes a neighbour can still put into the switch after the switch sends it a PAUSE: what is on
 * the wire towards the switch (one propagation delay), what it sends while the PAUSE propagates
 * (another), the packet it is serialising when the PAUSE arrives and one more MTU (a PAUSE
 * waiting for a frame on the reverse link, which this model does not delay; rounding). */
static inline uint64_t net_pfc_in_flight_bytes(const net_link_config *c)
{
    uint64_t hi, lo, prop = rnic_ns_to_cycles(c->prop_ns, c->clock_hz), per = 8u * c->clock_hz;
    rnic_mul64x64(prop, c->rate_bps, &hi, &lo);
    if (hi >= per)
        return UINT64_MAX;
    return 2u * (rnic_udiv128_64(hi, lo, per, NULL) + 1u) + 2u * (uint64_t)c->max_wire_bytes;
}

/* The PAUSE reaction time of a link of this rate, in pause quanta (512 bit times): the upper
 * bounds IEEE 802.3 Annex 31B sets for a station to stop sending after it receives a PAUSE (the
 * D-Resp term of the 802.1Qbb headroom computation): 60 quanta at 10 Gb/s, 80 at 25, 118 at 40,
 * 394 at 100 and 905 at 400 Gb/s. A rate between two takes the higher rate's (more headroom),
 * slower links 10 Gb/s's; above 400 Gb/s, 905 scaled with the rate and rounded up (ours). */
static inline uint32_t net_pfc_reaction_quanta(uint64_t rate_bps)
{
    static const uint64_t gbps[] = { 10, 25, 40, 100, 400 };
    static const uint32_t quanta[] = { 60, 80, 118, 394, 905 };
    uint64_t mbps = rate_bps / 1000000u + (rate_bps % 1000000u != 0);
    uint32_t i;
    for (i = 0; i < 5; i++)
        if (mbps <= gbps[i] * 1000u)
            return quanta[i];
    if (mbps > ((uint64_t)1 << 40))
        return UINT32_MAX;
    return (uint32_t)((mbps * 905u + 400000u - 1u) / 400000u);
}

/* PFC headroom one ingress needs: what its neighbour can still put into the switch after the
 * switch decides to pause it (the 802.1Qbb headroom: 2 x propagation x rate + one MTU being
 * sent on each side + the reaction time x rate), plus one MTU because this model compares the
 * ingress's bytes with xoff after admitting a whole packet: MTU + net_pfc_in_flight_bytes +
 * net_pfc_reaction_quanta x 64 bytes. UINT64_MAX when absurd (over 2^40). */
static inline uint64_t net_pfc_headroom_bytes(const net_link_config *link)
{
    uint64_t flight = net_pfc_in_flight_bytes(link), react = net_pfc_reaction_quanta(link->rate_bps);
    if (flight > ((uint64_t)1 << 40) || react > (1u << 24))
        return UINT64_MAX;
    return link->max_wire_bytes + flight + react * 64u;
}

/* Derives the PFC thresholds of a switch with `ports` ports whose links are `link` (normally
 * c->ports and &c->link) from c->buffer_bytes (set it first), and turns PFC on:
 *   pfc_port_headroom_bytes = H = net_pfc_headroom_bytes(link), reserved for every ingress out of
 *                             buffer_bytes (pfc_headroom_bytes = 0: no pool on top);
 *   pfc_xoff_bytes          = (buffer_bytes - ports x H) / ports: the rest shared statically;
 *   pfc_xon_bytes           = xoff - 2 MTU (xoff / 2 when xoff <= 2 MTU).
 * Every field can be overridden afterwards; net_switch_config_check verifies them. RNIC_EINVAL
 * for NULL; RNIC_ERANGE for ports 0 or over 4096 or an absurd link (c unchanged), and when the
 * headroom leaves no byte of xoff per port (fields set, xoff = 1, so the check refuses them). */
static inline rnic_err net_switch_pfc_derive(net_switch_config *c, uint32_t ports, const net_link_config *link)
{
    uint64_t h, reserved, xoff, two_mtu;
    if (!c || !link)
        return RNIC_EINVAL;
    if (ports == 0 || ports > 4096)
        return RNIC_ERANGE;
    h = net_pfc_headroom_bytes(link);
    if (h == UINT64_MAX)
        return RNIC_ERANGE;
    reserved = (uint64_t)ports * h;
    c->pfc_port_headroom_bytes = h;
    c->pfc_headroom_bytes = 0;
    if (reserved >= c->buffer_bytes || (c->buffer_bytes - reserved) / ports == 0) {
        c->pfc_xoff_bytes = 1;
        c->pfc_xon_bytes = 0;
        return RNIC_ERANGE;
    }
    xoff = (c->buffer_bytes - reserved) / ports;
    two_mtu = 2u * (uint64_t)link->max_wire_bytes;
    c->pfc_xoff_bytes = xoff;
    c->pfc_xon_bytes = xoff > two_mtu ? xoff - two_mtu : xoff / 2u;
    return RNIC_OK;
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
    if (c->ecn_pmax_ppm) {
        if (c->ecn_pmax_ppm > 1000000u)
            return rnic_config_bad(field, "ecn_pmax_ppm", RNIC_ERANGE);
        if (c->ecn_kmax_bytes > ((uint64_t)1 << 40))
            return rnic_config_bad(field, "ecn_kmax_bytes", RNIC_ERANGE);
        if (c->ecn_kmin_bytes > c->ecn_kmax_bytes)
            return rnic_config_bad(field, "ecn_kmin_bytes", RNIC_ERANGE);
    }
    if (net__pfc_on(c)) {
        uint64_t need, flight = net_pfc_in_flight_bytes(&c->link);
        if (c->pfc_xoff_bytes > ((uint64_t)1 << 40))
            return rnic_config_bad(field, "pfc_xoff_bytes", RNIC_ERANGE);
        if (c->pfc_xon_bytes > c->pfc_xoff_bytes)
            return rnic_config_bad(field, "pfc_xon_bytes", RNIC_ERANGE);
        if (c->pfc_headroom_bytes > ((uint64_t)1 << 40))
            return rnic_config_bad(field, "pfc_headroom_bytes", RNIC_ERANGE);
        if (c->pfc_quanta == 0 || c->pfc_quanta > NET_PFC_MAX_QUANTA || net_pfc_quanta_cycles(&c->link, c->pfc_quanta) < 2u)
            return rnic_config_bad(field, "pfc_quanta", RNIC_ERANGE);
        /* lossless: every ingress at once over xoff by one packet, plus what was in flight */
        if (flight > ((uint64_t)1 << 40))
            return rnic_config_bad(field, "pfc_xoff_bytes", RNIC_ERANGE);
        if (c->pfc_port_headroom_bytes) { /* a declared per-ingress headroom must fit with xoff */
            uint64_t all = c->buffer_bytes + c->pfc_headroom_bytes;
            if (c->pfc_port_headroom_bytes > ((uint64_t)1 << 40) || (uint64_t)c->ports * c->pfc_port_headroom_bytes >= all)
                return rnic_config_bad(field, "pfc_port_headroom_bytes", RNIC_ERANGE);
            if ((uint64_t)c->ports * (c->pfc_xoff_bytes + c->pfc_port_headroom_bytes) > all)
                return rnic_config_bad(field, "pfc_xoff_bytes", RNIC_ERANGE);
        }
        need = (uint64_t)c->ports * (c->pfc_xoff_bytes + c->link.max_wire_bytes + flight);
        if (need > c->buffer_bytes + c->pfc_headroom_bytes)
            return rnic_config_bad(field, "pfc_xoff_bytes", RNIC_ERANGE);
    }
    if (c->dt_alpha_num && c->dt_alpha_den == 0)
        return rnic_config_bad(field, "dt_alpha_den", RNIC_ERANGE);
    if (c->ecmp_groups > 65536u || (uint64_t)c->ecmp_groups * c->ports > (1u << 24))
        return rnic_config_bad(field, "ecmp_groups", RNIC_ERANGE);
    if (c->trim_bytes && (c->trim_header_bytes < c->link.min_wire_bytes || c->trim_header_bytes > c->link.max_wire_bytes))
        return rnic_config_bad(field, "trim_header_bytes", RNIC_ERANGE);
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
    free(sw->pfc);
    free(sw->ecmp);
    free(sw->ecmp_port);
    free(sw->heap);
    free(sw->heap_at);
    free(sw->key_cycle);
    free(sw->key_kind);
    free(sw->ready);
    sw->heap = sw->heap_at = NULL;
    sw->key_cycle = NULL;
    sw->key_kind = NULL;
    sw->ready = NULL;
    sw->port = NULL;
    sw->route = NULL;
    sw->pfc = NULL;
    sw->ecmp = NULL;
    sw->ecmp_port = NULL;
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
    sw->pfc_size = 4u * c->ports + 4u;
    sw->pfc = (net_pfc_frame *)calloc(sw->pfc_size, sizeof *sw->pfc);
    sw->ecmp = (net_ecmp_group *)calloc((size_t)c->ecmp_groups + 1u, sizeof *sw->ecmp);
    sw->ecmp_port = (uint32_t *)calloc((size_t)c->ecmp_groups * c->ports + 1u, sizeof *sw->ecmp_port);
    sw->heap = (uint32_t *)malloc((size_t)c->ports * sizeof *sw->heap);
    sw->heap_at = (uint32_t *)malloc((size_t)c->ports * sizeof *sw->heap_at);
    sw->key_cycle = (uint64_t *)malloc((size_t)c->ports * sizeof *sw->key_cycle);
    sw->key_kind = (uint8_t *)calloc(c->ports, sizeof *sw->key_kind);
    sw->ready = (uint64_t *)calloc((c->ports + 63u) / 64u, sizeof *sw->ready);
    if (!sw->port || !sw->route || !sw->pfc || !sw->ecmp || !sw->ecmp_port || !sw->heap || !sw->heap_at ||
        !sw->key_cycle || !sw->key_kind || !sw->ready) {
        net_switch_free(sw);
        return RNIC_ENOSPC;
    }
    for (p = 0; p < c->hosts; p++)
        sw->route[p] = NET_NO_PORT;
    for (p = 0; p < c->ports; p++) {
        if (net_link_init(&sw->port[p].link, &lc) != RNIC_OK) {
            net_switch_free(sw);
            return RNIC_ENOSPC;
        }
        rnic_prng_seed(&sw->port[p].ecn_prng, c->ecn_seed ^ ((uint64_t)(p + 1u) * 0xbf58476d1ce4e5b9ull));
        sw->heap[p] = sw->heap_at[p] = p; /* every key RNIC_NEVER: already a heap */
        sw->key_cycle[p] = RNIC_NEVER;
    }
    if (net__pfc_on(c)) {
        sw->pfc_quanta_cycles = net_pfc_quanta_cycles(&c->link, c->pfc_quanta);
        sw->pfc_refresh_cycles = sw->pfc_quanta_cycles / 2u;
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

#define NET__ECMP 0x80000000u /* a route at or over this is a port set: NET__ECMP + its group */

/* Route dst over a set of ports: a packet to dst takes ports[h % n], h = XXH64 of its (src,
 * dst, w.flow) seeded with cfg.ecmp_seed, so a flow keeps one path. Order matters, and a port
 * may repeat (weights). The switch keeps each distinct set once (cfg.ecmp_groups at most), so
 * every dst of a leaf can share one; n = 1 is a plain route. Refused and counted, the route
 * unchanged: NULL ports or n = 0 (EINVAL), n over the port count (ERANGE), dst or a port out of
 * range (ENOENT), no room for a new set (ENOSPC). */
static inline rnic_err net_switch_route_ecmp(net_switch *sw, uint32_t dst, const uint32_t *ports, uint32_t n)
{
    uint32_t i, g;
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (!ports || n == 0)
        return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    if (n > sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ERANGE);
    if (dst >= sw->cfg.hosts)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    for (i = 0; i < n; i++)
        if (ports[i] >= sw->cfg.ports)
            return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    if (n == 1) {
        sw->route[dst] = ports[0];
        return RNIC_OK;
    }
    for (g = 0; g < sw->ecmp_count; g++)
        if (sw->ecmp[g].n == n && !memcmp(&sw->ecmp_port[sw->ecmp[g].first], ports, (size_t)n * sizeof *ports))
            break;
    if (g == sw->ecmp_count) {
        if (g >= sw->cfg.ecmp_groups)
            return rnic_err_note(&sw->stats.errors, RNIC_ENOSPC);
        memcpy(&sw->ecmp_port[sw->ecmp_used], ports, (size_t)n * sizeof *ports);
        sw->ecmp[g].first = sw->ecmp_used;
        sw->ecmp[g].n = n;
        sw->ecmp_used += n;
        sw->ecmp_count++;
    }
    sw->route[dst] = NET__ECMP + g;
    return RNIC_OK;
}

/* The ECMP hash of a packet: XXH64 of src, dst and w.flow as 12 little-endian bytes. */
static inline uint64_t net_switch_flow_hash(const net_pkt *p, uint64_t seed)
{
    unsigned char b[12];
    uint32_t v[3], i, k;
    v[0] = p->src;
    v[1] = p->dst;
    v[2] = p->w.flow;
    for (i = 0; i < 3; i++)
        for (k = 0; k < 4; k++)
            b[4u * i + k] = (unsigned char)(v[i] >> (8u * k));
    return rnic_hash64(b, sizeof b, seed);
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

static inline void net__pfc_emit(net_switch *sw, uint32_t port, uint32_t quanta, uint64_t cycle)
{
    net_pfc_frame *f;
    if (sw->pfc_count == sw->pfc_size) {
        sw->stats.pfc_frames_lost++;
        return;
    }
    f = &sw->pfc[(sw->pfc_head + sw->pfc_count++) % sw->pfc_size];
    f->port = port;
    f->quanta = quanta;
    f->cycle = cycle;
}

/* ---- the ports' events (net_switch.heap): O(log ports) per event ---- */

/* Is port a's event before port b's? (cycle, then kind, then port; RNIC_NEVER after all) */
static inline bool net__key_before(const net_switch *sw, uint32_t a, uint32_t b)
{
    uint64_t ta = sw->key_cycle[a], tb = sw->key_cycle[b];
    if (ta != tb) {
        if (ta == RNIC_NEVER || tb == RNIC_NEVER)
            return tb == RNIC_NEVER;
        return rnic_cycle_before(ta, tb);
    }
    if (sw->key_kind[a] != sw->key_kind[b])
        return sw->key_kind[a] < sw->key_kind[b];
    return a < b;
}

/* Port `port`'s key changed: move it up or down the heap. */
static inline void net__heap_fix(net_switch *sw, uint32_t port)
{
    uint32_t i = sw->heap_at[port], start = i, n = sw->cfg.ports, c;
    while (i > 0 && net__key_before(sw, port, sw->heap[(i - 1u) / 2u])) {
        sw->heap[i] = sw->heap[(i - 1u) / 2u];
        sw->heap_at[sw->heap[i]] = i;
        i = (i - 1u) / 2u;
    }
    while (i == start && (c = 2u * i + 1u) < n) {
        if (c + 1u < n && net__key_before(sw, sw->heap[c + 1u], sw->heap[c]))
            c++;
        if (!net__key_before(sw, sw->heap[c], port))
            break;
        sw->heap[i] = sw->heap[c];
        sw->heap_at[sw->heap[i]] = i;
        i = start = c;
    }
    sw->heap[i] = port;
    sw->heap_at[port] = i;
}

/* Port `port`'s earliest event: its queue head's departure (kind 0), its PFC refresh (1), its
 * oldest packet on the wire arriving (2); the earlier kind first on a tie. An event due at
 * 2^64 - 1 is keyed a cycle early (it would read as RNIC_NEVER). */
static inline void net__rekey(net_switch *sw, uint32_t port)
{
    const net_port *pt = &sw->port[port];
    const net_link *l = &pt->link;
    uint64_t t = RNIC_NEVER, x;
    uint8_t kind = 0;
    if (net__queued(l))
        t = net__at(l, l->arrived + l->on_wire)->done;
    if (pt->pfc_xoff && (t == RNIC_NEVER || rnic_cycle_before(pt->pfc_refresh_at, t))) {
        t = pt->pfc_refresh_at;
        kind = 1;
    }
    if (l->on_wire) {
        x = net__at(l, l->arrived)->done + l->prop;
        if (t == RNIC_NEVER || rnic_cycle_before(x, t)) {
            t = x;
            kind = 2;
        }
    }
    if (t == RNIC_NEVER && (net__queued(l) || pt->pfc_xoff || l->on_wire))
        t = RNIC_NEVER - 1u;
    if (t == sw->key_cycle[port] && kind == sw->key_kind[port])
        return;
    sw->key_cycle[port] = t;
    sw->key_kind[port] = kind;
    net__heap_fix(sw, port);
}

/* Bring port `port`'s link to the switch's now (every event of it due by then was processed in
 * order by net_switch_advance_to): its pause timer and clock. */
static inline void net__port_bring(net_switch *sw, uint32_t port)
{
    net_link *l = &sw->port[port].link;
    if (l->now != sw->now)
        net_link_advance_to(l, sw->now);
}

static inline void net__ready_set(net_switch *sw, uint32_t port, bool on)
{
    uint64_t bit = 1ull << (port % 64u), *w = &sw->ready[port / 64u];
    if (on && !(*w & bit)) {
        *w |= bit;
        sw->ready_count++;
    } else if (!on && (*w & bit)) {
        *w &= ~bit;
        sw->ready_count--;
    }
}

/* The lowest port at or after `from` with a packet to pop, NET_NO_PORT if none. */
static inline uint32_t net_switch_next_ready(const net_switch *sw, uint32_t from)
{
    uint32_t words, i = from / 64u;
    uint64_t w;
    if (!sw || !sw->ready || from >= sw->cfg.ports)
        return NET_NO_PORT;
    words = (sw->cfg.ports + 63u) / 64u;
    w = sw->ready[i] & (~0ull << (from % 64u));
    for (;;) {
        if (w)
            return 64u * i + (uint32_t)rnic_ctz64(w);
        if (++i >= words)
            return NET_NO_PORT;
        w = sw->ready[i];
    }
}

/* Bring every port's link to now: read their statistics (paused_cycles) after this. O(ports). */
static inline void net_switch_settle(net_switch *sw)
{
    uint32_t p;
    if (!sw || !sw->port)
        return;
    for (p = 0; p < sw->cfg.ports; p++)
        net__port_bring(sw, p);
}

/* Port `port`'s link only (what a monitor reads): as net_switch_settle, O(1). */
static inline void net_switch_settle_port(net_switch *sw, uint32_t port)
{
    if (sw && sw->port && port < sw->cfg.ports)
        net__port_bring(sw, port);
}

/* PFC from the neighbour on egress `port`: its link starts no packet before `until` (at or
 * before now: resume), as net_link_pause; the switch's own way to pause its links, so that its
 * event heap follows. */
static inline rnic_err net_switch_pause_port(net_switch *sw, uint32_t port, uint64_t until)
{
    rnic_err e;
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    net__port_bring(sw, port);
    e = net_link_pause(&sw->port[port].link, until);
    net__rekey(sw, port);
    return e;
}

/* A PAUSE frame with `quanta` arriving now on egress `port` (0 resumes). */
static inline rnic_err net_switch_pause_port_quanta(net_switch *sw, uint32_t port, uint32_t quanta)
{
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    return net_switch_pause_port(sw, port, sw->now + net_pfc_quanta_cycles(&sw->port[port].link.cfg, quanta));
}

/* control_priority keeps an egress link's schedule lazily: only the head of its input queue
 * has its (epoch, cum_bits, done) right (the packet in service, or the next to start); the
 * packets behind get theirs when they reach the head, here, from the one that just left: they
 * start at its exact end, or at the pause's end if that is later -- what the link computes
 * eagerly at push (net__reschedule), so the times are the same. Called by the switch's own
 * departures, before net_link_advance_to updates `paused` (so a pause that ran out in this
 * advance still holds back what it should). */
static inline void net__schedule_head(net_link *l, const net_link_slot *left)
{
    net_link_slot *h;
    uint64_t epoch = left->epoch, bits = left->cum_bits;
    if (!net__queued(l))
        return;
    h = net__at(l, l->arrived + l->on_wire);
    if (l->paused && net__after_end(l, l->pause_until, epoch, bits)) {
        epoch = l->pause_until;
        bits = 0;
    }
    bits += (uint64_t)h->p.wire_bytes * 8u;
    h->epoch = epoch;
    h->cum_bits = bits;
    h->done = net__done(l, epoch, bits);
}

/* control_priority: the control packet just pushed (the last of the input queue) moves ahead of
 * every data packet that has not started, behind the control packets already waiting;
 * head_started was read before the push. The slots in front of it move one place towards the
 * ring's head, or the data behind it one place back, whichever are fewer: O(min(packets in
 * front, data packets behind)). The link's tail (epoch, bits) already counts it; the packets
 * behind it are re-timed lazily (net__schedule_head). */
static inline void net__control_first(net_link *l, bool head_started)
{
    uint32_t last = l->count - 1u, first = l->arrived + l->on_wire, i = first + (head_started ? 1u : 0u), j;
    net_link_slot moved;
    while (i < last && net__at(l, i)->p.control)
        i++;
    if (i == last) /* nothing to overtake: in place, timed by the push */
        return;
    moved = *net__at(l, last);
    if (i <= last - i) { /* the slot before the head is free: `last` was the tail */
        l->head = (l->head + l->size - 1u) % l->size;
        for (j = 0; j < i; j++)
            *net__at(l, j) = *net__at(l, j + 1u);
    } else {
        for (j = last; j > i; j--)
            *net__at(l, j) = *net__at(l, j - 1u);
    }
    *net__at(l, i) = moved;
    if (i == first) { /* nothing had started (a pause): it opens the waiting busy period */
        net_link_slot *h = net__at(l, i), *next = net__at(l, i + 1u);
        h->epoch = next->epoch;
        h->cum_bits = (uint64_t)h->p.wire_bytes * 8u;
        h->done = net__done(l, h->epoch, h->cum_bits);
    }
}

/* The dynamic threshold: does egress port pt's queue (its control or data queue under
 * control_priority, else the whole port) admit p? bytes x den < num x (buffer - occupancy),
 * in 128 bits. */
static inline bool net__dt_admits(const net_switch *sw, const net_port *pt, const net_pkt *p)
{
    const net_switch_config *c = &sw->cfg;
    uint64_t q = pt->link.queued_bytes, free_bytes, q_hi, q_lo, t_hi, t_lo;
    if (c->control_priority)
        q = p->control ? pt->control_bytes : q - pt->control_bytes;
    free_bytes = c->buffer_bytes > sw->occupancy ? c->buffer_bytes - sw->occupancy : 0u;
    rnic_mul64x64(q, c->dt_alpha_den, &q_hi, &q_lo);
    rnic_mul64x64(free_bytes, c->dt_alpha_num, &t_hi, &t_lo);
    return q_hi < t_hi || (q_hi == t_hi && q_lo < t_lo);
}

/* A packet enters the switch at now by port in_port (the link from that port's neighbour;
 * NET_NO_PORT: unknown, then PFC does not count it). RNIC_OK when it was taken -- admitted to its
 * egress queue (maybe trimmed) or dropped (a drop is the network's business, counted in
 * stats.dropped, not an error). Refused and counted in stats.errors: NULL (EINVAL), dst without a
 * route or in_port out of range (ENOENT), wire_bytes outside the link's [min, max] (ERANGE), and
 * EBUSY when the egress link has no slot left because the caller does not pop its far end. */
static inline rnic_err net_switch_push_from(net_switch *sw, uint32_t in_port, const net_pkt *p)
{
    net_port *pt;
    net_pkt in;
    uint32_t port;
    uint64_t ordinal, limit;
    bool listed, unlucky, ecmp, started;
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (!p)
        return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    if (p->dst >= sw->cfg.hosts || (port = sw->route[p->dst]) == NET_NO_PORT)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    if (in_port != NET_NO_PORT && in_port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    if (p->wire_bytes < sw->cfg.link.min_wire_bytes || p->wire_bytes > sw->cfg.link.max_wire_bytes)
        return rnic_err_note(&sw->stats.errors, RNIC_ERANGE);
    if ((ecmp = port >= NET__ECMP)) {
        const net_ecmp_group *g = &sw->ecmp[port - NET__ECMP];
        port = sw->ecmp_port[g->first + (uint32_t)(net_switch_flow_hash(p, sw->cfg.ecmp_seed) % g->n)];
    }
    pt = &sw->port[port];
    if (!net_link_space(&pt->link))
        return rnic_err_note(&sw->stats.errors, RNIC_EBUSY);
    ordinal = pt->stats.arrivals++;
    if (ecmp)
        pt->stats.ecmp_chosen++;
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
    in = *p;
    in.in_port = in_port;
    limit = net__limit(&sw->cfg);
    if (sw->cfg.trim_bytes && in.wire_bytes > sw->cfg.trim_header_bytes &&
        (pt->link.queued_bytes > sw->cfg.trim_bytes || sw->occupancy + in.wire_bytes > limit)) {
        in.wire_bytes = sw->cfg.trim_header_bytes;
        in.trimmed = 1;
        pt->stats.trimmed++;
    }
    /* the dynamic threshold leaves alone what PFC keeps lossless */
    if (sw->cfg.dt_alpha_num && !(net__pfc_on(&sw->cfg) && in_port != NET_NO_PORT) && !net__dt_admits(sw, pt, &in)) {
        net__drop(sw, pt, port, &in, NET_DROP_THRESHOLD);
        return RNIC_OK;
    }
    if (sw->occupancy + in.wire_bytes > limit) {
        net__drop(sw, pt, port, &in, NET_DROP_BUFFER);
        return RNIC_OK;
    }
    if (sw->cfg.ecn_k_bytes && pt->link.queued_bytes > sw->cfg.ecn_k_bytes) {
        in.ecn = 1;
        pt->stats.marked++;
    }
    net__port_bring(sw, port);
    started = net__head_started(&pt->link);
    if (net_link_push(&pt->link, &in) != RNIC_OK) /* cannot happen: space and size checked */
        return rnic_err_note(&sw->stats.errors, RNIC_ESTATE);
    if (in.control) {
        pt->stats.control_admitted++;
        if (sw->cfg.control_priority) {
            pt->control_bytes += in.wire_bytes;
            net__control_first(&pt->link, started);
        }
    }
    net__rekey(sw, port);
    sw->occupancy += in.wire_bytes;
    if (sw->occupancy > sw->stats.max_occupancy)
        sw->stats.max_occupancy = sw->occupancy;
    pt->stats.admitted++;
    pt->stats.admitted_bytes += in.wire_bytes;
    if (net__pfc_on(&sw->cfg) && in_port != NET_NO_PORT) {
        net_port *ip = &sw->port[in_port];
        ip->in_bytes += in.wire_bytes;
        if (ip->in_bytes > ip->stats.pfc_max_bytes)
            ip->stats.pfc_max_bytes = ip->in_bytes;
        if (!ip->pfc_xoff && ip->in_bytes > sw->cfg.pfc_xoff_bytes) {
            ip->pfc_xoff = true;
            ip->pfc_refresh_at = sw->now + sw->pfc_refresh_cycles;
            ip->stats.pfc_xoff++;
            net__pfc_emit(sw, in_port, sw->cfg.pfc_quanta, sw->now);
            net__rekey(sw, in_port);
        }
    }
    return RNIC_OK;
}

/* net_switch_push_from(sw, NET_NO_PORT, p): a packet of no known ingress (PFC does not see it). */
static inline rnic_err net_switch_push(net_switch *sw, const net_pkt *p)
{
    return net_switch_push_from(sw, NET_NO_PORT, p);
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
    rnic_err e;
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (!out)
        return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    if (port >= sw->cfg.ports)
        return rnic_err_note(&sw->stats.errors, RNIC_ENOENT);
    e = net_link_pop(&sw->port[port].link, out);
    if (!sw->port[port].link.arrived)
        net__ready_set(sw, port, false);
    return e;
}

/* The oldest PFC frame the switch has sent and the caller not yet taken; RNIC_EEMPTY if none. */
static inline rnic_err net_switch_pop_pfc(net_switch *sw, net_pfc_frame *out)
{
    if (!sw || !sw->port)
        return RNIC_EINVAL;
    if (!out)
        return rnic_err_note(&sw->stats.errors, RNIC_EINVAL);
    if (!sw->pfc_count)
        return RNIC_EEMPTY;
    *out = sw->pfc[sw->pfc_head];
    sw->pfc_head = (sw->pfc_head + 1u) % sw->pfc_size;
    sw->pfc_count--;
    return RNIC_OK;
}

static inline uint64_t net_switch_next_event(const net_switch *sw)
{
    if (!sw || !sw->port)
        return RNIC_NEVER;
    if (sw->pfc_count || sw->ready_count)
        return sw->now;
    return sw->cfg.ports ? sw->key_cycle[sw->heap[0]] : RNIC_NEVER;
}

/* Egress `port`'s oldest queued packet leaves the switch (its last byte is out): the buffer
 * frees its bytes, RED decides its mark, PFC counts its ingress down (RESUME at xon). */
static inline void net__switch_depart(net_switch *sw, uint32_t port)
{
    net_port *pt = &sw->port[port];
    net_link_slot *s = net__depart(&pt->link);
    uint64_t q = pt->link.queued_bytes; /* the bytes behind it */
    const net_switch_config *c = &sw->cfg;
    if (c->control_priority)
        net__schedule_head(&pt->link, s);
    sw->occupancy -= s->p.wire_bytes;
    if (c->control_priority && s->p.control)
        pt->control_bytes -= s->p.wire_bytes;
    if (c->ecn_pmax_ppm && q > c->ecn_kmin_bytes &&
        (q > c->ecn_kmax_bytes ||
         rnic_prng_chance(&pt->ecn_prng, (uint64_t)c->ecn_pmax_ppm * (q - c->ecn_kmin_bytes),
                          1000000u * (c->ecn_kmax_bytes - c->ecn_kmin_bytes)))) {
        if (!s->p.ecn) {
            pt->stats.marked++;
            pt->stats.red_marked++;
        }
        s->p.ecn = 1;
    }
    if (net__pfc_on(c) && s->p.in_port != NET_NO_PORT) {
        net_port *ip = &sw->port[s->p.in_port];
        ip->in_bytes -= s->p.wire_bytes;
        if (ip->pfc_xoff && ip->in_bytes <= c->pfc_xon_bytes) {
            ip->pfc_xoff = false;
            ip->stats.pfc_resume++;
            net__pfc_emit(sw, s->p.in_port, 0, s->done);
        }
    }
    if (sw->on_depart)
        sw->on_depart(sw->depart_user, port, &s->p, s->done, s->done + pt->link.prop);
}

/* Move to `cycle`. The ports' events due by then are processed in time order -- departures
 * first, then PFC refreshes, then arrivals within a cycle, the lower port first -- so a jump gives
 * exactly what ticking every cycle gives; each costs O(log ports) (the heap), a port with
 * nothing due costs nothing. */
static inline void net_switch_advance_to(net_switch *sw, uint64_t cycle)
{
    uint32_t p;
    if (!sw || !sw->port)
        return;
    sw->now = cycle;
    while (sw->cfg.ports) {
        uint64_t t;
        net_port *pt;
        p = sw->heap[0];
        t = sw->key_cycle[p];
        if (t == RNIC_NEVER || !net__due(t, cycle))
            break;
        pt = &sw->port[p];
        if (sw->key_kind[p] == 0) {
            uint32_t in = net__at(&pt->link, pt->link.arrived + pt->link.on_wire)->p.in_port;
            bool was = in != NET_NO_PORT && in < sw->cfg.ports && sw->port[in].pfc_xoff;
            net__switch_depart(sw, p);
            if (was && !sw->port[in].pfc_xoff)
                net__rekey(sw, in);
        } else if (sw->key_kind[p] == 1) {
            uint64_t tr = pt->pfc_refresh_at;
            pt->pfc_refresh_at = tr + sw->pfc_refresh_cycles;
            pt->stats.pfc_refresh++;
            net__pfc_emit(sw, p, sw->cfg.pfc_quanta, tr);
        } else {
            net_link *l = &pt->link;
            net_link_advance_to(l, rnic_cycle_before(l->now, t) ? t : l->now);
            if (l->arrived)
                net__ready_set(sw, p, true);
        }
        net__rekey(sw, p);
    }
    /* a port with a packet to pop reads `now` (net_link_next_arrival) */
    for (p = net_switch_next_ready(sw, 0); p != NET_NO_PORT; p = net_switch_next_ready(sw, p + 1u))
        net__port_bring(sw, p);
}

static inline uint64_t net_switch_now(const net_switch *sw) { return sw ? sw->now : 0; }
#endif
