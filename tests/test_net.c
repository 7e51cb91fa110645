/* examples/rnic_model/net.h: links and the output-queued switch of the transport experiments.
 * Checked against hand computations and small independent references: a link's per-packet
 * arrival = push + ceil(cumulative bits * clock / rate) + prop over 10^6 back-to-back packets
 * (exact, no drift), the latency of single packets worked out by hand, the shared buffer's
 * drop-tail against a hand-worked overload and against an independent per-port model, the
 * drop list's exact ordinals, the drop probability inside a binomial bound, ECN marks over K,
 * fast-forward (advance_to next_event) against ticking every cycle on a random workload
 * (across the 2^64 wrap, with ECMP, control priority, the dynamic threshold and PFC), and bad
 * input refused with a code and counted. The fabric's switch: ECMP choices against the test's
 * own XXH64 of (src, dst, flow), PFC thresholds derived for 2..64 ports x 10/25/100/400 Gb/s
 * against the headroom formula, the dynamic threshold and control priority against a
 * brute-force shared buffer cycle for cycle, control-before-data by hand, and N:1 incasts
 * (N = 2, 8, 32) at 100 Gb/s with derived thresholds losing nothing. */
#define RNIC_IMPLEMENTATION /* the common core's rnic_hash64 (the Makefile's RNIC_ENGINES_LINKED keeps the engines out) */
#include "../ratelimit.h"
#include "../examples/rnic_model/net.h"
#include "test.h"

static uint64_t seed;

static net_pkt mkpkt(uint32_t src, uint32_t dst, uint32_t wire, uint32_t index)
{
    net_pkt p;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.dst = dst;
    p.wire_bytes = wire;
    p.w.index = index;
    p.w.len = wire > 64 ? wire - 64 : 0;
    return p;
}

static net_link_config link_cfg(uint64_t bps, uint64_t prop_ns, uint64_t hz)
{
    net_link_config c;
    net_link_config_default(&c);
    c.rate_bps = bps;
    c.prop_ns = prop_ns;
    c.clock_hz = hz;
    return c;
}

/* ceil(a / b), the reference's own arithmetic (operands kept below 2^64 by the callers) */
static uint64_t ref_ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* ---- link ---- */

/* One packet on an idle link, worked out by hand: 1064 B at 10 Gb/s = 851.2 ns = 85.12
 * cycles at 100 MHz -> last byte out at cycle 86; 2.5 us = 250 cycles on the wire. */
static void test_link_latency_by_hand(void)
{
    net_link l;
    net_link_config c = link_cfg(10000000000ull, 2500, 100000000ull);
    net_pkt p = mkpkt(0, 1, 1064, 7), q = mkpkt(0, 0, 0, 0);
    uint64_t t;
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), RNIC_NEVER);
    CHECK_EQ(net_link_next_arrival(&l), RNIC_NEVER);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    CHECK_EQ(net_link_next_arrival(&l), 336); /* still queued: its last byte out at 86, + 250 of flight */
    p.w.index = 8;
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK); /* back to back: done at 170.24 -> 171 */
    CHECK_EQ(net_link_queued_bytes(&l), 2128);
    CHECK_EQ(net_link_next_event(&l), 86);
    net_link_advance_to(&l, 85);
    CHECK_EQ(net_link_queued_bytes(&l), 2128);
    net_link_advance_to(&l, 86);
    CHECK_EQ(net_link_queued_bytes(&l), 1064); /* the first left the queue at 86 */
    CHECK_EQ(net_link_next_event(&l), 171);
    net_link_advance_to(&l, 171);
    CHECK_EQ(net_link_queued_bytes(&l), 0);
    CHECK_EQ(net_link_next_event(&l), 336);
    CHECK_EQ(net_link_next_arrival(&l), 336); /* both on the wire: the first arrives first */
    net_link_advance_to(&l, 335);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_EEMPTY);
    net_link_advance_to(&l, 336);
    CHECK_EQ(net_link_next_event(&l), 336); /* a packet waits for its pop */
    CHECK_EQ(net_link_next_arrival(&l), 336);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(q.w.index, 7);
    CHECK_EQ(net_link_next_event(&l), 421);
    CHECK_EQ(net_link_next_arrival(&l), 421); /* the second: out at 171, + 250 */
    net_link_advance_to(&l, 421);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(q.w.index, 8);
    CHECK_EQ(net_link_next_event(&l), RNIC_NEVER);
    CHECK_EQ(net_link_next_arrival(&l), RNIC_NEVER);
    CHECK_EQ(net_link_next_arrival(NULL), RNIC_NEVER);
    /* after an idle gap a packet starts at its push cycle: 1000 + 86 + 250 */
    net_link_advance_to(&l, 1000);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    for (t = 1000; net_link_pop(&l, &q) != RNIC_OK && t < 2000; t++)
        net_link_advance_to(&l, t + 1);
    CHECK_EQ(t, 1336);
    CHECK_EQ(l.stats.popped, 3);
    CHECK_EQ(l.stats.popped_bytes, 3 * 1064);
    CHECK_EQ(l.stats.sent, 3);
    net_link_free(&l);

    /* 100 Gb/s: 1064 B = 85.12 ns = 8.512 cycles -> 9; plus 250 */
    c = link_cfg(100000000000ull, 2500, 100000000ull);
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK); /* 17.024 -> 18 */
    net_link_advance_to(&l, 18);
    CHECK_EQ(net_link_next_event(&l), 259);
    net_link_advance_to(&l, 259);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), 268);
    net_link_free(&l);

    /* an arrival due exactly at cycle 2^64 - 1 is not "never": it is reported a cycle early */
    c = link_cfg(10000000000ull, 2500, 100000000ull);
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    t = UINT64_MAX - 86u - 250u;
    net_link_advance_to(&l, t);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    net_link_advance_to(&l, t + 86u);
    CHECK_EQ(net_link_next_event(&l), UINT64_MAX - 1u);
    net_link_advance_to(&l, UINT64_MAX - 1u);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_EEMPTY);
    CHECK_EQ(net_link_next_event(&l), UINT64_MAX - 1u); /* = now: step one cycle */
    net_link_advance_to(&l, UINT64_MAX);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), RNIC_NEVER);
    /* and a busy period across the wrap: done at 2^64 - 1 + 86 - 16 = 69 after the wrap */
    net_link_advance_to(&l, UINT64_MAX - 16u);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), 69u);
    net_link_advance_to(&l, 69u + 250u);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    net_link_free(&l);
}

/* Keep the link's queue full for n packets (fast-forwarding between events) and check every
 * arrival against ceil(cumulative bits * clock / rate) + prop: throughput exactly the rate. */
static void link_throughput(uint64_t bps, uint64_t prop_ns, uint64_t hz, uint32_t n, uint32_t min_b, uint32_t max_b,
                            uint64_t start)
{
    net_link l;
    net_link_config c = link_cfg(bps, prop_ns, hz);
    rnic_prng rng;
    uint32_t *size = (uint32_t *)malloc((size_t)n * sizeof *size);
    uint64_t prop = (prop_ns * hz + 500000000u) / 1000000000u, bits = 0, total = 0, now = start, last = 0, next;
    uint32_t pushed = 0, popped = 0, i;
    rnic_prng_seed(&rng, seed);
    for (i = 0; i < n; i++) {
        size[i] = (uint32_t)rnic_prng_range(&rng, min_b, max_b);
        total += size[i];
    }
    c.queue_packets = 16;
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    net_link_advance_to(&l, now);
    while (popped < n && TEST_FAILS() < 5) {
        net_pkt p;
        while (net_link_pop(&l, &p) == RNIC_OK) {
            bits += (uint64_t)size[popped] * 8u;
            CHECK_EQ(p.w.index, popped);
            CHECK_EQ(now - start, ref_ceil_div(bits * hz, bps) + prop);
            popped++;
            last = now;
        }
        while (pushed < n && net_link_space(&l)) {
            p = mkpkt(0, 1, size[pushed], pushed);
            CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
            pushed++;
        }
        next = net_link_next_event(&l);
        if (next == RNIC_NEVER)
            break;
        now = next == now ? now + 1u : next; /* == now: an event at 2^64 - 1, reported early */
        net_link_advance_to(&l, now);
    }
    CHECK_EQ(popped, n);
    /* the whole stream: total bytes at the rate, then one propagation delay */
    CHECK_EQ(last - start, ref_ceil_div(total * 8u * hz, bps) + prop);
    CHECK_EQ(l.stats.popped_bytes, total);
    CHECK_EQ(l.stats.sent_bytes, total);
    CHECK_EQ(rnic_err_total(&l.stats.errors), 0);
    net_link_free(&l);
    free(size);
}

static void test_link_throughput_exact(void)
{
    link_throughput(10000000000ull, 2500, 100000000ull, 1000000, 1064, 1064, 0); /* 85.12 cyc each */
    link_throughput(100000000000ull, 2500, 100000000ull, 1000000, 1064, 1064, 0);
    link_throughput(40000000000ull, 1000, 250000000ull, 1000000, 64, 9000, 0);
    link_throughput(25000000000ull, 333, 322265625ull, 200000, 64, 1500, 0); /* an odd clock */
    link_throughput(100000000000ull, 2500, 1000000000ull, 200000, 64, 9216, UINT64_MAX - 50000); /* across the wrap */
}

/* The ring grows from NET_RING_FIRST slots as the queue deepens (net__ring_grow), at whatever
 * head position the ring has reached: bursts of up to 3,000 packets, pops of everything
 * arrived, control packets overtaking data (the head moves back): every packet comes out once,
 * data in push order, control packets in theirs -- checked against two FIFOs kept here. */
static void test_link_ring_grows(void)
{
    static net_link l;
    static uint32_t data_ids[40000], ctl_ids[40000];
    net_link_config c = link_cfg(100000000000ull, 100, 1000000000ull);
    uint64_t rng = test_seed(0x714eull), now = 0;
    uint32_t pushed = 0, data_n = 0, ctl_n = 0, data_out = 0, ctl_out = 0, bad = 0, round, grew = 0;
    c.queue_packets = 5000;
    CHECK(net_link_init(&l, &c) == RNIC_OK);
    CHECK(l.size == NET_RING_FIRST);
    for (round = 0; round < 60 && pushed < 38000u; round++) {
        uint32_t burst = (uint32_t)(rnic_splitmix64(&rng) % 3000u), i;
        net_pkt p, out;
        for (i = 0; i < burst && net_link_space(&l) && pushed < 38000u; i++) {
            int ctl = rnic_splitmix64(&rng) % 8u == 0;
            bool head_started = net__head_started(&l);
            p = mkpkt(1, 2, ctl ? 64u : 1064u, pushed);
            p.control = (uint32_t)ctl;
            CHECK(net_link_push(&l, &p) == RNIC_OK);
            if (ctl) {
                net__control_first(&l, head_started);
                ctl_ids[ctl_n++] = pushed;
            } else {
                data_ids[data_n++] = pushed;
            }
            pushed++;
        }
        grew = l.size > grew ? l.size : grew;
        now += 1u + rnic_splitmix64(&rng) % 200000u;
        net_link_advance_to(&l, now);
        while (net_link_pop(&l, &out) == RNIC_OK) {
            if (out.control)
                bad += ctl_out >= ctl_n || out.w.index != ctl_ids[ctl_out++];
            else
                bad += data_out >= data_n || out.w.index != data_ids[data_out++];
        }
    }
    net_link_advance_to(&l, now + 100000000u);
    {
        net_pkt out;
        while (net_link_pop(&l, &out) == RNIC_OK) {
            if (out.control)
                bad += ctl_out >= ctl_n || out.w.index != ctl_ids[ctl_out++];
            else
                bad += data_out >= data_n || out.w.index != data_ids[data_out++];
        }
    }
    printf("  %u packets, ring grown to %u of %u slots\n", (unsigned)pushed, (unsigned)grew, (unsigned)l.cap);
    CHECK(grew > NET_RING_FIRST);
    CHECK_EQ(bad, 0);
    CHECK_EQ(data_out, data_n);
    CHECK_EQ(ctl_out, ctl_n);
    CHECK_EQ(l.count, 0);
    net_link_free(&l);
}

/* The input queue holds queue_packets; a packet leaves it when its last byte is out. */
static void test_link_queue_bound(void)
{
    net_link l;
    net_link_config c = link_cfg(10000000000ull, 2500, 100000000ull);
    net_pkt p = mkpkt(0, 1, 1000, 0), q; /* 80 cycles each */
    uint32_t i;
    c.queue_packets = 4;
    c.out_packets = 1; /* the ring is then the queue, the wire's worst case, and 1 */
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    for (i = 0; i < 4; i++)
        CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    CHECK_EQ(net_link_space(&l), 0);
    CHECK_EQ(net_link_push(&l, &p), RNIC_EBUSY);
    net_link_advance_to(&l, 79);
    CHECK_EQ(net_link_space(&l), 0);
    net_link_advance_to(&l, 80);
    CHECK_EQ(net_link_space(&l), 1);
    /* packets on the wire do not take queue slots: 4 more fit while all 4 propagate */
    net_link_advance_to(&l, 320);
    CHECK_EQ(net_link_space(&l), 4);
    for (i = 0; i < 4; i++)
        CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    net_link_advance_to(&l, 330);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(l.stats.errors.by_cause[RNIC_EBUSY], 1);
    net_link_free(&l);
}

/* ---- switch ---- */

typedef struct drop_log {
    uint64_t n, cycle[4096];
    uint32_t index[4096], port[4096], cause[4096];
} drop_log;

static void on_drop(void *user, const net_pkt *p, uint32_t port, uint32_t cause, uint64_t cycle)
{
    drop_log *d = (drop_log *)user;
    if (d->n < 4096) {
        d->index[d->n] = p->w.index;
        d->port[d->n] = port;
        d->cause[d->n] = cause;
        d->cycle[d->n] = cycle;
    }
    d->n++;
}

/* A switch whose port p leads to host p, links 10 Gb/s 2.5 us at 100 MHz. */
static void make_switch(net_switch *sw, uint32_t ports, uint64_t buffer, uint64_t k, drop_log *log)
{
    net_switch_config c;
    uint32_t p;
    net_switch_config_default(&c);
    c.ports = ports;
    c.hosts = ports;
    c.buffer_bytes = buffer;
    c.ecn_k_bytes = k;
    c.on_drop = log ? on_drop : NULL;
    c.drop_user = log;
    CHECK_EQ(net_switch_init(sw, &c), RNIC_OK);
    for (p = 0; p < ports; p++)
        CHECK_EQ(net_switch_route(sw, p, p), RNIC_OK);
}

/* Hand-worked overload: 1000 B packets (80 cycles at 10 Gb/s, 100 MHz), buffer 10000 B.
 * Cycle 0: 24 packets alternate ports 0 and 1 -> 10 fit (5 per port), 14 dropped.
 * Cycle 79: nothing has left yet -> dropped. Cycle 80: the head of each port left (8000 B in
 * use) -> of 3 packets, 2 fit and 1 is dropped. */
static void test_switch_drop_tail_by_hand(void)
{
    net_switch sw;
    drop_log *log = (drop_log *)calloc(1, sizeof *log);
    net_pkt p;
    uint32_t i;
    make_switch(&sw, 2, 10000, 0, log);
    for (i = 0; i < 24; i++) {
        p = mkpkt(9, i % 2u, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    CHECK_EQ(sw.occupancy, 10000);
    CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], 14);
    CHECK_EQ(sw.port[0].stats.admitted, 5);
    CHECK_EQ(sw.port[1].stats.admitted, 5);
    CHECK_EQ(log->n, 14);
    CHECK_EQ(log->index[0], 10);
    CHECK_EQ(log->cause[0], NET_DROP_BUFFER);
    net_switch_advance_to(&sw, 79);
    p = mkpkt(9, 0, 1000, 100);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], 15);
    net_switch_advance_to(&sw, 80);
    CHECK_EQ(sw.occupancy, 8000);
    for (i = 0; i < 3; i++) {
        p = mkpkt(9, 0, 1000, 101 + i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], 16);
    CHECK_EQ(sw.port[0].stats.admitted_bytes + sw.port[1].stats.admitted_bytes, 12000);
    CHECK_EQ(sw.stats.max_occupancy, 10000);
    CHECK_EQ(log->index[15], 103);
    CHECK_EQ(log->cycle[15], 80);
    /* a packet exactly filling the buffer is admitted (<=), one byte more is not */
    net_switch_free(&sw);
    make_switch(&sw, 2, 10000, 0, NULL);
    p = mkpkt(9, 0, 9000, 0);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    p = mkpkt(9, 1, 1000, 1);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    p = mkpkt(9, 1, 64, 2);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    CHECK_EQ(sw.port[1].stats.admitted, 1);
    CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], 1);
    net_switch_free(&sw);
    free(log);
}

/* Independent reference of a 2-port shared-buffer switch: each port's departures computed
 * from its own busy period in bits (a packet leaves the buffer at the first cycle at or after
 * its last bit), occupancy = bytes of packets not yet left. Random arrivals overload both
 * ports; every admit/drop decision and the occupancy must agree. */
enum { REF_N = 40000 };
typedef struct ref_port {
    uint64_t done[REF_N], epoch, bits, last_done;
    uint32_t bytes[REF_N], head, tail;
} ref_port;

static void test_switch_drop_tail_reference(void)
{
    net_switch sw;
    rnic_prng rng;
    ref_port *ref = (ref_port *)calloc(2, sizeof *ref);
    uint64_t buffer = 30000, now = 0, admitted_bytes = 0;
    uint32_t nadm = 0, i, j, drops = 0;
    rnic_prng_seed(&rng, seed + 1);
    make_switch(&sw, 2, buffer, 0, NULL);
    for (i = 0; i < REF_N && TEST_FAILS() < 5; i++) {
        net_pkt p;
        uint32_t pt = (uint32_t)rnic_prng_below(&rng, 2), wb = (uint32_t)rnic_prng_range(&rng, 64, 1500);
        uint64_t occ = 0;
        ref_port *r = &ref[pt];
        now += rnic_prng_below(&rng, 40); /* ~2x the rate of one port, on each */
        for (j = 0; j < 2; j++) {
            uint32_t k;
            while (ref[j].head < ref[j].tail && ref[j].done[ref[j].head] <= now)
                ref[j].head++;
            for (k = ref[j].head; k < ref[j].tail; k++)
                occ += ref[j].bytes[k];
        }
        net_switch_advance_to(&sw, now);
        CHECK_EQ(sw.occupancy, occ);
        p = mkpkt(5, pt, wb, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
        if (occ + wb <= buffer) {
            if (r->last_done <= now) { /* idle port: a new busy period */
                r->epoch = now;
                r->bits = 0;
            }
            r->bits += (uint64_t)wb * 8u;
            r->last_done = r->epoch + ref_ceil_div(r->bits * 100000000ull, 10000000000ull);
            r->done[r->tail] = r->last_done;
            r->bytes[r->tail++] = wb;
            nadm++;
            admitted_bytes += wb;
        } else {
            drops++;
        }
        CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], drops);
        /* drain the far ends so the links never push back */
        while (net_switch_pop(&sw, 0, &p) == RNIC_OK || net_switch_pop(&sw, 1, &p) == RNIC_OK) {
        }
    }
    CHECK_EQ(sw.port[0].stats.admitted_bytes + sw.port[1].stats.admitted_bytes, admitted_bytes);
    CHECK(drops > REF_N / 4); /* it was overloaded */
    CHECK(nadm > REF_N / 4);
    printf("RESULT drop_tail_reference packets %d admitted %u dropped %u max_occupancy %" PRIu64 " of %" PRIu64 "\n",
           REF_N, nadm, drops, sw.stats.max_occupancy, buffer);
    net_switch_free(&sw);
    free(ref);
}

/* The drop list drops exactly its ordinals on its port, nothing elsewhere. */
static void test_switch_drop_list(void)
{
    static const uint64_t list[] = { 0, 3, 4, 10, 99, 199, 5000 };
    static const uint64_t unsorted[] = { 3, 3 };
    net_switch sw;
    drop_log *log = (drop_log *)calloc(1, sizeof *log);
    uint32_t i, got0 = 0, got1 = 0, k = 0;
    net_pkt p;
    make_switch(&sw, 2, 5500000, 0, log);
    CHECK_EQ(net_switch_set_drop_list(&sw, 0, list, 7), RNIC_OK);
    CHECK_EQ(net_switch_set_drop_list(&sw, 1, unsorted, 2), RNIC_EINVAL);
    for (i = 0; i < 200; i++) {
        p = mkpkt(2, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
        p = mkpkt(2, 1, 1000, 1000 + i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    CHECK_EQ(log->n, 6);
    for (i = 0; i < 6 && i < log->n; i++) {
        CHECK_EQ(log->index[i], list[i]);
        CHECK_EQ(log->port[i], 0);
        CHECK_EQ(log->cause[i], NET_DROP_LIST);
    }
    net_switch_advance_to(&sw, 100000);
    while (net_switch_pop(&sw, 0, &p) == RNIC_OK) {
        while (k < 6 && list[k] < p.w.index)
            k++;
        CHECK(k == 6 || list[k] != p.w.index); /* a delivered packet is not on the list */
        got0++;
    }
    while (net_switch_pop(&sw, 1, &p) == RNIC_OK)
        got1++;
    CHECK_EQ(got0, 194);
    CHECK_EQ(got1, 200);
    CHECK_EQ(sw.port[0].stats.dropped[NET_DROP_LIST], 6);
    CHECK_EQ(sw.stats.dropped[NET_DROP_LIST], 6);
    net_switch_free(&sw);
    free(log);
}

/* Drops at p = ppm / 10^6 over n packets: within 5 standard deviations of n p (a binomial
 * bound a correct implementation misses with probability < 10^-6); the same seed drops the
 * same packets, another seed others. */
static uint64_t random_drops(uint32_t ppm, uint64_t s, uint32_t n, uint64_t *digest)
{
    net_switch sw;
    drop_log *log = (drop_log *)calloc(1, sizeof *log);
    uint64_t d, t = 0;
    uint32_t i;
    net_pkt p;
    make_switch(&sw, 2, 5500000, 0, log);
    CHECK_EQ(net_switch_set_drop_ppm(&sw, 1, ppm, s), RNIC_OK);
    for (i = 0; i < n; i++) {
        p = mkpkt(0, 1, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
        p = mkpkt(0, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
        t += 80;
        net_switch_advance_to(&sw, t);
        while (net_switch_pop(&sw, 1, &p) == RNIC_OK || net_switch_pop(&sw, 0, &p) == RNIC_OK) {
        }
    }
    d = sw.port[1].stats.dropped[NET_DROP_RANDOM];
    CHECK_EQ(sw.port[0].stats.dropped[NET_DROP_RANDOM], 0);
    CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], 0);
    CHECK_EQ(log->n, d);
    *digest = 0; /* which packets were dropped, folded into one number */
    for (i = 0; i < log->n && i < 4096; i++)
        *digest = (*digest ^ log->index[i]) * 0x100000001b3ull;
    net_switch_free(&sw);
    free(log);
    return d;
}

static void test_switch_drop_probability(void)
{
    static const uint32_t ppms[] = { 1000, 10000, 500000 };
    uint32_t n = 200000, i;
    uint64_t f1, f2, f3;
    for (i = 0; i < 3; i++) {
        /* |d - n p| <= 5 sqrt(n p (1 - p)), compared squared */
        uint64_t d = random_drops(ppms[i], seed, n, &f1), mean_e6 = (uint64_t)n * ppms[i];
        uint64_t dev_e6 = d * 1000000u > mean_e6 ? d * 1000000u - mean_e6 : mean_e6 - d * 1000000u;
        double var = (double)n * ppms[i] / 1e6 * (1.0 - ppms[i] / 1e6), dev = (double)dev_e6 / 1e6;
        CHECK(dev * dev <= 25.0 * var);
        printf("RESULT drop_probability ppm %u packets %u dropped %" PRIu64 " expected %.0f variance %.1f\n", ppms[i],
               n, d, (double)n * ppms[i] / 1e6, var);
    }
    CHECK_EQ(random_drops(10000, seed, 20000, &f1), random_drops(10000, seed, 20000, &f2));
    CHECK_EQ(f1, f2);
    random_drops(10000, seed + 12345, 20000, &f3);
    CHECK(f3 != f1); /* another seed, other packets dropped */
    CHECK_EQ(random_drops(0, seed, 1000, &f1), 0);
    CHECK_EQ(random_drops(1000000, seed, 1000, &f1), 1000);
}

/* ECN: 1000 B packets into an idle port at cycle 0 find 0, 1000, ..., 5000 B queued ahead;
 * with K = 3000 the 5th and 6th (more than 3000 B ahead) are marked. K = 0: no marks. */
static void test_switch_ecn(void)
{
    net_switch sw;
    net_pkt p;
    uint32_t i, marks = 0;
    make_switch(&sw, 2, 5500000, 3000, NULL);
    for (i = 0; i < 6; i++) {
        p = mkpkt(1, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    /* at cycle 160 two have left: 4000 B queued -> the next is marked; at 320, 3000: not */
    net_switch_advance_to(&sw, 160);
    p = mkpkt(1, 0, 1000, 6);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    net_switch_advance_to(&sw, 320);
    p = mkpkt(1, 0, 1000, 7);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    net_switch_advance_to(&sw, 10000);
    for (i = 0; net_switch_pop(&sw, 0, &p) == RNIC_OK; i++) {
        CHECK_EQ(p.w.index, i);
        CHECK_EQ(p.ecn, i == 4 || i == 5 || i == 6);
        marks += p.ecn;
    }
    CHECK_EQ(i, 8);
    CHECK_EQ(marks, 3);
    CHECK_EQ(sw.port[0].stats.marked, 3);
    net_switch_free(&sw);
    make_switch(&sw, 2, 5500000, 0, NULL);
    for (i = 0; i < 50; i++) {
        p = mkpkt(1, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    CHECK_EQ(sw.port[0].stats.marked, 0);
    net_switch_free(&sw);
}

/* ---- PFC on a link: pause / resume worked out by hand ----
 * 1000 B at 10 Gb/s, 100 MHz = 80 cycles each. Three pushed at 0 would leave at 80, 160, 240.
 * A pause at 10 until 500: the one in service still leaves at 80, the others start at 500
 * (580, 660). A resume at 300 instead: they start at 300 (380, 460). */
static void test_link_pause_by_hand(void)
{
    net_link l;
    net_link_config c = link_cfg(10000000000ull, 2500, 100000000ull);
    net_pkt p = mkpkt(0, 1, 1000, 0), q;
    uint32_t i;
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    for (i = 0; i < 3; i++)
        CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    net_link_advance_to(&l, 10);
    CHECK_EQ(net_link_pause(&l, 500), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), 80);
    net_link_advance_to(&l, 80);
    CHECK_EQ(l.stats.sent, 1);
    CHECK_EQ(net_link_next_event(&l), 330); /* the first arrives; the second waits for 500 */
    net_link_advance_to(&l, 330);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), 580);
    net_link_advance_to(&l, 579);
    CHECK_EQ(l.stats.sent, 1);
    net_link_advance_to(&l, 580);
    CHECK_EQ(l.stats.sent, 2);
    CHECK_EQ(net_link_next_event(&l), 660);
    net_link_advance_to(&l, 1000);
    CHECK_EQ(l.stats.sent, 3);
    CHECK_EQ(l.stats.paused_cycles, 490);
    CHECK_EQ(l.stats.pauses, 1);
    while (net_link_pop(&l, &q) == RNIC_OK) {
    }
    /* a resume (until = now) at 1300 after a pause at 1010 until 2000 */
    for (i = 0; i < 3; i++)
        CHECK_EQ(net_link_push(&l, &p), RNIC_OK); /* 1080, 1160, 1240 */
    net_link_advance_to(&l, 1010);
    CHECK_EQ(net_link_pause(&l, 2000), RNIC_OK);
    net_link_advance_to(&l, 1300);
    CHECK_EQ(l.stats.sent, 4);
    CHECK_EQ(net_link_pause(&l, 1300), RNIC_OK);
    CHECK_EQ(l.stats.resumes, 1);
    CHECK_EQ(net_link_next_event(&l), 1330); /* the 4th arriving */
    net_link_advance_to(&l, 1379);
    CHECK_EQ(l.stats.sent, 4);
    net_link_advance_to(&l, 1380);
    CHECK_EQ(l.stats.sent, 5);
    net_link_advance_to(&l, 1460);
    CHECK_EQ(l.stats.sent, 6);
    CHECK_EQ(l.stats.paused_cycles, 490 + 290);
    while (net_link_pop(&l, &q) == RNIC_OK) {
    }
    /* a pause on an idle link: a packet pushed during it starts at its end */
    net_link_advance_to(&l, 3000);
    while (net_link_pop(&l, &q) == RNIC_OK) {
    }
    CHECK_EQ(net_link_next_event(&l), RNIC_NEVER);
    CHECK_EQ(net_link_pause(&l, 3100), RNIC_OK);
    net_link_advance_to(&l, 3050);
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), 3180);
    /* a pause in the past is a resume; a pause while no packet waits changes nothing queued */
    CHECK_EQ(net_link_pause(&l, 10), RNIC_OK);
    CHECK_EQ(net_link_next_event(&l), 3130); /* resumed at 3050: starts now */
    net_link_free(&l);

    /* exactness at a fractional end: 1064 B = 85.12 cycles; two pushed at 0 leave at 86, 171.
     * A pause until 86 (after the exact end 85.12) restarts the second at 86: 86 + 86 = 172.
     * A pause until 85 (before it) changes nothing: 171. */
    p = mkpkt(0, 1, 1064, 0);
    for (i = 0; i < 2; i++) {
        CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
        CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
        CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
        net_link_advance_to(&l, 5);
        CHECK_EQ(net_link_pause(&l, i ? 85 : 86), RNIC_OK);
        net_link_advance_to(&l, 86);
        CHECK_EQ(net_link_next_event(&l), i ? 171 : 172);
        net_link_free(&l);
    }
    /* quanta: 65535 x 512 bits at 10 Gb/s = 3,355,392 ns = 335,539.2 cycles -> 335,540 */
    CHECK_EQ(net_pfc_quanta_cycles(&c, 65535), 335540);
    CHECK_EQ(net_pfc_quanta_cycles(&c, 1), 6); /* 5.12 -> 6 */
    CHECK_EQ(net_pfc_quanta_cycles(&c, 0), 0);
}

/* ---- RED at dequeue: hold the egress queue at a level and count marks ----
 * L packets of 1000 B queued, one pushed back at every departure: each departing packet leaves
 * (L - 1) * 1000 B behind it (checked). Marks over n departures against n p,
 * p = pmax (q - kmin) / (kmax - kmin) (0 at or below kmin, 1 above kmax), within 5 standard
 * deviations of the binomial. */
static uint64_t red_marks(uint64_t kmin, uint64_t kmax, uint32_t pmax, uint32_t L, uint32_t n, uint64_t s)
{
    net_switch sw;
    net_switch_config c;
    net_pkt p;
    uint64_t marks = 0, sent = 0, now = 0;
    uint32_t i, popped = 0;
    net_switch_config_default(&c);
    c.ports = 2;
    c.hosts = 2;
    c.ecn_kmin_bytes = kmin;
    c.ecn_kmax_bytes = kmax;
    c.ecn_pmax_ppm = pmax;
    c.ecn_seed = s;
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    CHECK_EQ(net_switch_route(&sw, 0, 0), RNIC_OK);
    for (i = 0; i < L; i++) {
        p = mkpkt(1, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    while (popped < n && TEST_FAILS() < 5) {
        now = net_switch_next_event(&sw);
        net_switch_advance_to(&sw, now);
        while (sw.port[0].link.stats.sent > sent) { /* one left (80 cycles apart): push one back */
            CHECK_EQ(sw.port[0].link.queued_bytes, (uint64_t)(L - 1u) * 1000u);
            sent++;
            p = mkpkt(1, 0, 1000, L + (uint32_t)sent);
            CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
        }
        while (popped < n && net_switch_pop(&sw, 0, &p) == RNIC_OK) {
            marks += p.ecn;
            popped++;
        }
    }
    CHECK(sw.port[0].stats.red_marked >= marks); /* counted (some marked ones not popped yet) */
    CHECK_EQ(sw.port[0].stats.marked, sw.port[0].stats.red_marked);
    net_switch_free(&sw);
    return marks;
}

static void test_red_marking(void)
{
    /* DCQCN's 40 Gb/s settings (Kmin 5 KB, Kmax 200 KB, Pmax 1 %) and a steep one */
    static const struct { uint64_t kmin, kmax; uint32_t pmax, L; } cases[] = {
        { 5000, 200000, 10000, 5 },     /* q = 4000 < Kmin: none */
        { 5000, 200000, 10000, 6 },     /* q = 5000 = Kmin: none */
        { 5000, 200000, 10000, 101 },   /* q = 100000: p = 1 % x 95 / 195 */
        { 5000, 200000, 10000, 201 },   /* q = 200000 = Kmax: p = 1 % */
        { 5000, 200000, 10000, 202 },   /* q = 201000 > Kmax: all */
        { 20000, 60000, 1000000, 41 },  /* q = 40000: p = 50 % */
        { 20000, 60000, 200000, 31 },   /* q = 30000: p = 5 % */
        { 30000, 30000, 500000, 31 },   /* Kmin = Kmax: a step at K; q = 30000: none */
        { 30000, 30000, 500000, 32 },   /* q = 31000: all */
    };
    uint32_t i, n = 20000;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t q = (uint64_t)(cases[i].L - 1u) * 1000u, m = red_marks(cases[i].kmin, cases[i].kmax, cases[i].pmax, cases[i].L, n, seed + i);
        double pr = q <= cases[i].kmin ? 0.0
                    : q > cases[i].kmax ? 1.0
                    : cases[i].pmax / 1e6 * (double)(q - cases[i].kmin) / (double)(cases[i].kmax - cases[i].kmin);
        double mean = n * pr, var = n * pr * (1.0 - pr), d = (double)m > mean ? (double)m - mean : mean - (double)m;
        if (pr == 0.0 || pr == 1.0)
            CHECK_EQ(m, (uint64_t)mean);
        else
            CHECK(d <= 1.0 || (d - 1.0) * (d - 1.0) <= 25.0 * var); /* 5 standard deviations */
        printf("RESULT red q %" PRIu64 " kmin %" PRIu64 " kmax %" PRIu64 " pmax_ppm %u departures %u marked %" PRIu64
               " expected %.1f variance %.1f\n", q, cases[i].kmin, cases[i].kmax, cases[i].pmax, n, m, mean, var);
    }
    /* the same seed marks the same number */
    CHECK_EQ(red_marks(20000, 60000, 200000, 31, 5000, seed), red_marks(20000, 60000, 200000, 31, 5000, seed));
}

/* The presets: DCQCN 5 KB / 200 KB / 1 % at 40 Gb/s, HPCC 100 KB / 400 KB / 20 % at 25 Gb/s,
 * both scaled with the link rate. */
static void test_red_presets(void)
{
    net_switch_config c;
    net_switch_config_default(&c);
    c.link.rate_bps = 40000000000ull;
    net_switch_red_preset(&c, NET_RED_DCQCN);
    CHECK_EQ(c.ecn_kmin_bytes, 5000);
    CHECK_EQ(c.ecn_kmax_bytes, 200000);
    CHECK_EQ(c.ecn_pmax_ppm, 10000);
    c.link.rate_bps = 100000000000ull;
    net_switch_red_preset(&c, NET_RED_DCQCN);
    CHECK_EQ(c.ecn_kmin_bytes, 12500);
    CHECK_EQ(c.ecn_kmax_bytes, 500000);
    net_switch_red_preset(&c, NET_RED_HPCC);
    CHECK_EQ(c.ecn_kmin_bytes, 400000);
    CHECK_EQ(c.ecn_kmax_bytes, 1600000);
    CHECK_EQ(c.ecn_pmax_ppm, 200000);
    c.link.rate_bps = 25000000000ull;
    net_switch_red_preset(&c, NET_RED_HPCC);
    CHECK_EQ(c.ecn_kmin_bytes, 100000);
    CHECK_EQ(c.ecn_kmax_bytes, 400000);
}

/* Turning RED on does not move the random drops (separate streams): the same packets drop. */
static uint64_t drops_digest(bool red, uint64_t *marks)
{
    net_switch sw;
    net_switch_config c;
    drop_log *log = (drop_log *)calloc(1, sizeof *log);
    uint64_t digest = 0, t = 0;
    uint32_t i, j;
    net_pkt p;
    net_switch_config_default(&c);
    c.ports = 2;
    c.hosts = 2;
    if (red) {
        c.ecn_kmin_bytes = 0;
        c.ecn_kmax_bytes = 20000;
        c.ecn_pmax_ppm = 500000;
    }
    c.on_drop = on_drop;
    c.drop_user = log;
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    CHECK_EQ(net_switch_route(&sw, 1, 1), RNIC_OK);
    CHECK_EQ(net_switch_set_drop_ppm(&sw, 1, 100000, seed), RNIC_OK);
    for (i = 0; i < 200; i++) { /* bursts of 10 every 10 packet times: a queue builds and drains */
        for (j = 0; j < 10; j++) {
            p = mkpkt(0, 1, 1000, i * 10u + j);
            CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
        }
        t += 800;
        net_switch_advance_to(&sw, t);
        while (net_switch_pop(&sw, 1, &p) == RNIC_OK) {
        }
    }
    for (i = 0; i < log->n && i < 4096; i++)
        digest = (digest ^ log->index[i]) * 0x100000001b3ull;
    CHECK(log->n > 100);
    *marks = sw.port[1].stats.red_marked;
    net_switch_free(&sw);
    free(log);
    return digest;
}

static void test_red_keeps_drops(void)
{
    uint64_t m_off, m_on;
    CHECK_EQ(drops_digest(false, &m_off), drops_digest(true, &m_on));
    CHECK_EQ(m_off, 0);
    CHECK(m_on > 100);
}

/* ---- trimming ---- */
static void test_trimming(void)
{
    net_switch sw;
    net_switch_config c;
    net_pkt p;
    uint32_t i;
    net_switch_config_default(&c);
    c.ports = 2;
    c.hosts = 2;
    c.trim_bytes = 3000;
    c.link.max_wire_bytes = 1500;
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    CHECK_EQ(net_switch_route(&sw, 0, 0), RNIC_OK);
    /* 1000 B each into an idle port: the 5th finds 4000 B (> 3000) queued: trimmed, the 6th
     * finds 4064: trimmed; 64 B and 63 + 1 B packets: 64 B never trimmed, 65 B trimmed */
    for (i = 0; i < 6; i++) {
        p = mkpkt(1, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    p = mkpkt(1, 0, 64, 6);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    p = mkpkt(1, 0, 65, 7);
    p.w.len = 1;
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    CHECK_EQ(sw.occupancy, 4000 + 4 * 64);
    CHECK_EQ(sw.port[0].stats.trimmed, 3);
    net_switch_advance_to(&sw, 100000);
    for (i = 0; net_switch_pop(&sw, 0, &p) == RNIC_OK; i++) {
        CHECK_EQ(p.w.index, i);
        CHECK_EQ(p.trimmed, i == 4 || i == 5 || i == 7);
        CHECK_EQ(p.wire_bytes, i < 4 ? 1000u : 64u);
        CHECK_EQ(p.w.len, i < 6 ? 936u : i == 6 ? 0u : 1u); /* the header keeps the segment's len */
    }
    CHECK_EQ(i, 8);
    net_switch_free(&sw);

    /* a full buffer trims too; a header that does not fit either is dropped */
    c.trim_bytes = 1000000;
    c.buffer_bytes = 5100;
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    CHECK_EQ(net_switch_route(&sw, 0, 0), RNIC_OK);
    for (i = 0; i < 7; i++) {
        p = mkpkt(1, 0, 1000, i);
        CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    }
    CHECK_EQ(sw.occupancy, 5064);
    CHECK_EQ(sw.port[0].stats.trimmed, 2);
    CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], 1);
    net_switch_free(&sw);
}

/* ---- PFC: an incast ----
 * S senders, each behind its own 10 Gb/s uplink (16-packet NIC queue), send M 1000 B packets
 * to one receiver port through a small shared buffer. Ticked every cycle. PFC frames reach the
 * uplinks one propagation delay after the switch sends them. Without PFC the buffer overflows;
 * with it nothing is lost, every PAUSE is followed by a RESUME, a paused uplink starts nothing
 * new, and what enters from a port after its PAUSE fits in 2 x prop x rate + 2 MTU. */
enum { INC_S = 4, INC_M = 3000, INC_PIPE = 4096 };

typedef struct inc_stats {
    uint64_t delivered, dropped, frames, xoff, refresh, resume, max_after, max_in, paused_cycles, end;
    bool resumed, clean;
} inc_stats;

static void incast(uint64_t xoff, uint32_t quanta, inc_stats *st)
{
    net_link up[INC_S];
    net_switch sw;
    net_switch_config c;
    net_link_config lc = link_cfg(10000000000ull, 2500, 100000000ull);
    net_pfc_frame *pipe = (net_pfc_frame *)calloc(INC_PIPE, sizeof *pipe), f;
    uint8_t *seen = (uint8_t *)calloc(INC_S * INC_M, 1);
    uint32_t next[INC_S] = { 0 }, ph = 0, pn = 0, h, R = INC_S;
    uint64_t now, after[INC_S] = { 0 }, sent_at_pause[INC_S] = { 0 };
    bool in_pause[INC_S] = { false }, paused_state[INC_S + 1] = { false };
    memset(st, 0, sizeof *st);
    st->clean = true;
    lc.max_wire_bytes = 1500;
    net_switch_config_default(&c);
    c.ports = INC_S + 1u;
    c.hosts = INC_S + 1u;
    c.buffer_bytes = 60000;
    c.pfc_xoff_bytes = xoff;
    c.pfc_xon_bytes = xoff / 2u;
    c.pfc_headroom_bytes = 44000;
    c.pfc_quanta = quanta;
    c.link = lc;
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    for (h = 0; h <= INC_S; h++)
        CHECK_EQ(net_switch_route(&sw, h, h), RNIC_OK);
    lc.queue_packets = 16;
    for (h = 0; h < INC_S; h++)
        CHECK_EQ(net_link_init(&up[h], &lc), RNIC_OK);
    for (now = 0; now < 3000000 && st->delivered + st->dropped < (uint64_t)INC_S * INC_M; now++) {
        net_pkt p;
        for (h = 0; h < INC_S; h++)
            net_link_advance_to(&up[h], now);
        net_switch_advance_to(&sw, now);
        /* PFC frames arriving now */
        while (pn && pipe[ph].cycle <= now) {
            f = pipe[ph];
            ph = (ph + 1u) % INC_PIPE;
            pn--;
            CHECK(f.port < INC_S);
            if (f.port >= INC_S)
                continue;
            CHECK_EQ(net_link_pause_quanta(&up[f.port], f.quanta), RNIC_OK);
            if (f.quanta && !in_pause[f.port])
                sent_at_pause[f.port] = up[f.port].stats.sent;
            in_pause[f.port] = f.quanta != 0;
        }
        /* a paused uplink finishes the packet it serialises and starts nothing else */
        for (h = 0; h < INC_S; h++)
            if (in_pause[h] && up[h].paused && up[h].stats.sent > sent_at_pause[h] + 1u)
                st->clean = false;
        /* uplinks -> switch, counting what enters from a port after its PAUSE */
        for (h = 0; h < INC_S; h++)
            while (net_link_pop(&up[h], &p) == RNIC_OK) {
                bool was = sw.port[h].pfc_xoff;
                uint64_t adm = sw.port[R].stats.admitted_bytes;
                CHECK_EQ(net_switch_push_from(&sw, h, &p), RNIC_OK);
                if (was)
                    after[h] += sw.port[R].stats.admitted_bytes - adm;
                else if (sw.port[h].pfc_xoff)
                    after[h] = 0; /* a new PAUSE: count from the next packet */
                if (after[h] > st->max_after)
                    st->max_after = after[h];
            }
        /* frames the switch sent: each port alternates PAUSE (refreshes) and RESUME */
        while (net_switch_pop_pfc(&sw, &f) == RNIC_OK) {
            st->frames++;
            if (f.port > INC_S) {
                CHECK(f.port <= INC_S);
                continue;
            }
            if (f.quanta == 0) {
                if (!paused_state[f.port])
                    st->clean = false; /* a RESUME without a PAUSE */
                paused_state[f.port] = false;
            } else {
                paused_state[f.port] = true;
            }
            CHECK(pn < INC_PIPE);
            f.cycle += sw.port[f.port].link.prop;
            pipe[(ph + pn++) % INC_PIPE] = f;
        }
        while (net_switch_pop(&sw, R, &p) == RNIC_OK) {
            CHECK(p.w.index < INC_S * INC_M && !seen[p.w.index]);
            if (p.w.index < INC_S * INC_M)
                seen[p.w.index] = 1;
            st->delivered++;
        }
        st->dropped = sw.stats.dropped[NET_DROP_BUFFER];
        for (h = 0; h < INC_S; h++)
            while (next[h] < INC_M && net_link_space(&up[h])) {
                p = mkpkt(h, R, 1000, h * INC_M + next[h]++);
                CHECK_EQ(net_link_push(&up[h], &p), RNIC_OK);
            }
    }
    st->end = now;
    st->resumed = true;
    for (h = 0; h <= INC_S; h++) {
        st->xoff += sw.port[h].stats.pfc_xoff;
        st->refresh += sw.port[h].stats.pfc_refresh;
        st->resume += sw.port[h].stats.pfc_resume;
        if (sw.port[h].pfc_xoff || paused_state[h] || (h < INC_S && in_pause[h]))
            st->resumed = false;
        if (sw.port[h].stats.pfc_max_bytes > st->max_in)
            st->max_in = sw.port[h].stats.pfc_max_bytes;
    }
    for (h = 0; h < INC_S; h++)
        st->paused_cycles += up[h].stats.paused_cycles;
    CHECK_EQ(pn, 0);
    CHECK_EQ(sw.stats.pfc_frames_lost, 0);
    for (h = 0; h < INC_S; h++)
        net_link_free(&up[h]);
    net_switch_free(&sw);
    free(pipe);
    free(seen);
}

static void test_pfc_incast(void)
{
    static const uint32_t quanta[] = { 65535, 40 }; /* 40 quanta = 205 cycles: refreshed */
    /* in flight after a PAUSE: 2 x 250 cycles x 100 bit/cycle = 6250 B, + 2 MTU of 1500 */
    uint64_t headroom = 2u * 3125u + 2u * 1500u;
    inc_stats st;
    uint32_t i;
    incast(0, 65535, &st); /* PFC off: the same incast overflows the buffer */
    CHECK(st.dropped > 0);
    CHECK_EQ(st.frames, 0);
    printf("RESULT incast pfc off delivered %" PRIu64 " dropped %" PRIu64 "\n", st.delivered, st.dropped);
    for (i = 0; i < 2; i++) {
        incast(10000, quanta[i], &st);
        CHECK_EQ(st.dropped, 0);
        CHECK_EQ(st.delivered, (uint64_t)INC_S * INC_M);
        CHECK(st.xoff > 0);
        CHECK_EQ(st.xoff, st.resume); /* every PAUSE resumed */
        CHECK(st.resumed);
        CHECK(st.clean);
        CHECK(st.max_after <= headroom);
        CHECK(st.max_in <= 10000u + 1000u + headroom);
        CHECK(st.paused_cycles > 0);
        if (i == 1)
            CHECK(st.refresh > 0);
        printf("RESULT incast pfc quanta %u delivered %" PRIu64 " dropped %" PRIu64 " pauses %" PRIu64 " refreshes %" PRIu64
               " resumes %" PRIu64 " max_bytes_after_pause %" PRIu64 " (bound %" PRIu64 ") max_ingress_bytes %" PRIu64
               " paused_cycles %" PRIu64 " done_at %" PRIu64 "\n", quanta[i], st.delivered, st.dropped, st.xoff,
               st.refresh, st.resume, st.max_after, headroom, st.max_in, st.paused_cycles, st.end);
    }
}

/* ---- config checks of the new options ---- */
static void test_new_config_checks(void)
{
    net_switch_config c, b;
    const char *field = NULL;
    net_switch_config_default(&c);
    c.ports = 5;
    c.hosts = 5;
    c.link.max_wire_bytes = 1500;
    c.buffer_bytes = 60000;
    c.pfc_xoff_bytes = 10000;
    c.pfc_xon_bytes = 5000;
    c.pfc_headroom_bytes = 44000; /* 5 x (10000 + 1500 + 2 x 3126 + 3000) = 103760 <= 104000 */
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_OK);
    b = c;
    b.pfc_headroom_bytes = 43700; /* 103700: not enough */
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "pfc_xoff_bytes"));
    b = c;
    b.pfc_xon_bytes = 10001;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "pfc_xon_bytes"));
    b = c;
    b.pfc_quanta = 0;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "pfc_quanta"));
    b = c;
    b.pfc_quanta = 65536;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    b = c;
    b.ecn_pmax_ppm = 1000001;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "ecn_pmax_ppm"));
    b = c;
    b.ecn_pmax_ppm = 10000;
    b.ecn_kmin_bytes = 5001;
    b.ecn_kmax_bytes = 5000;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "ecn_kmin_bytes"));
    b = c;
    b.trim_bytes = 1000;
    b.trim_header_bytes = 63;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "trim_header_bytes"));
    b.trim_header_bytes = 64;
    CHECK_EQ(net_switch_config_check(&b, &field), RNIC_OK);
}

/* ---- ECMP ----
 * The reference packs (src, dst, flow) as 12 little-endian bytes itself and hashes them with
 * the built-in XXH64 written from the specification (rnic__xxh64), while the switch calls
 * rnic_hash64 (the system's xxHash where present); the choice is set[h % n]. 65,536 host ids,
 * two multi-port sets and plain routes; random flows spread within 10 % per port; another
 * seed agrees with this one on about 1/n of the flows (decorrelated switches). */
static uint64_t ref_flow_hash(uint32_t src, uint32_t dst, uint32_t flow, uint64_t s)
{
    unsigned char b[12];
    uint32_t i;
    for (i = 0; i < 4; i++) {
        b[i] = (unsigned char)(src >> (8 * i));
        b[4 + i] = (unsigned char)(dst >> (8 * i));
        b[8 + i] = (unsigned char)(flow >> (8 * i));
    }
    return rnic__xxh64(b, sizeof b, s);
}

enum { ECMP_HOSTS = 65536, ECMP_N = 60000 };

static void make_ecmp_switch(net_switch *sw, uint64_t ecmp_seed)
{
    static const uint32_t four[] = { 1, 3, 5, 7 }, two[] = { 6, 2 };
    net_switch_config c;
    uint32_t d;
    net_switch_config_default(&c);
    c.ports = 8;
    c.hosts = ECMP_HOSTS;
    c.ecmp_seed = ecmp_seed;
    CHECK_EQ(net_switch_init(sw, &c), RNIC_OK);
    for (d = 0; d < ECMP_HOSTS; d++) {
        rnic_err e = d % 3 == 0 ? net_switch_route_ecmp(sw, d, four, 4)
                     : d % 3 == 1 ? net_switch_route_ecmp(sw, d, two, 2) : net_switch_route(sw, d, d % 8);
        if (e != RNIC_OK)
            CHECK_EQ(e, RNIC_OK);
    }
    CHECK_EQ(sw->ecmp_count, 2); /* every dst shares the two sets */
}

static void test_ecmp_choice(void)
{
    static const uint32_t four[] = { 1, 3, 5, 7 }, two[] = { 6, 2 };
    net_switch *sw = (net_switch *)calloc(2, sizeof *sw);
    rnic_prng rng;
    uint64_t s1 = seed * 31 + 5, s2 = s1 ^ 0x5555aaaa5555aaaaull, want[8] = { 0 }, chosen = 0;
    uint32_t i, p, same4 = 0, n4 = 0, same2 = 0, n2 = 0, wrong = 0;
    make_ecmp_switch(&sw[0], s1);
    make_ecmp_switch(&sw[1], s2);
    rnic_prng_seed(&rng, seed + 11);
    for (i = 0; i < ECMP_N; i++) {
        net_pkt pk;
        uint32_t src = (uint32_t)rnic_prng_below(&rng, ECMP_HOSTS), dst = (uint32_t)rnic_prng_below(&rng, ECMP_HOSTS);
        uint32_t flow = (uint32_t)rnic_prng_next(&rng), exp, other, got = 8;
        uint64_t before[8];
        if (i == 0)
            dst = ECMP_HOSTS - 1u; /* the largest host id */
        pk = mkpkt(src, dst, 64, i);
        pk.w.flow = flow;
        CHECK_EQ(net_switch_flow_hash(&pk, s1), ref_flow_hash(src, dst, flow, s1));
        for (p = 0; p < 8; p++)
            before[p] = sw[0].port[p].stats.arrivals;
        CHECK_EQ(net_switch_push(&sw[0], &pk), RNIC_OK);
        CHECK_EQ(net_switch_push(&sw[1], &pk), RNIC_OK);
        for (p = 0; p < 8; p++)
            if (sw[0].port[p].stats.arrivals != before[p])
                got = p;
        if (dst % 3 == 0) {
            exp = four[ref_flow_hash(src, dst, flow, s1) % 4];
            other = four[ref_flow_hash(src, dst, flow, s2) % 4];
            same4 += exp == other;
            n4++;
            want[exp]++;
            chosen++;
        } else if (dst % 3 == 1) {
            exp = two[ref_flow_hash(src, dst, flow, s1) % 2];
            other = two[ref_flow_hash(src, dst, flow, s2) % 2];
            same2 += exp == other;
            n2++;
            want[exp]++;
            chosen++;
        } else {
            exp = dst % 8;
        }
        wrong += got != exp;
    }
    CHECK_EQ(wrong, 0);
    for (p = 0; p < 8; p++)
        CHECK_EQ(sw[0].port[p].stats.ecmp_chosen, want[p]); /* counted per port */
    CHECK_EQ(sw[0].port[0].stats.ecmp_chosen + sw[0].port[4].stats.ecmp_chosen, 0);
    {
        uint64_t total = 0;
        for (p = 0; p < 8; p++)
            total += sw[0].port[p].stats.ecmp_chosen;
        CHECK_EQ(total, chosen);
    }
    /* spread: each member of a set within 10 % of its fair share */
    for (p = 0; p < 4; p++) {
        uint64_t w = want[four[p]], mean = n4 / 4u;
        CHECK(w * 10 >= mean * 9 && w * 10 <= mean * 11);
    }
    for (p = 0; p < 2; p++) {
        uint64_t w = want[two[p]], mean = n2 / 2u;
        CHECK(w * 10 >= mean * 9 && w * 10 <= mean * 11);
    }
    /* another seed: agreement near 1/n (the two seeds' choices independent) */
    CHECK(same4 * 100 >= n4 * 22 && same4 * 100 <= n4 * 28);
    CHECK(same2 * 100 >= n2 * 46 && same2 * 100 <= n2 * 54);
    printf("RESULT ecmp flows %u four-way %u per port %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
           " two-way %u per port %" PRIu64 " %" PRIu64 " agree_other_seed four %u two %u\n",
           ECMP_N, n4, want[1], want[3], want[5], want[7], n2, want[6], want[2], same4, same2);
    net_switch_free(&sw[0]);
    net_switch_free(&sw[1]);
    free(sw);
}

/* ---- PFC thresholds derived from the port count, rate and delay ----
 * The reference, written from the sources: headroom per ingress = 2 x prop x rate + 2 MTU (a
 * frame in service on each side) + the reaction time (D-Resp: 30,720 / 40,960 / 201,728 /
 * 463,360 bit times at 10 / 25 / 100 / 400 Gb/s) + 1 MTU (this model admits the whole packet
 * that crosses xoff), prop x rate rounded down and + 1 byte as the model's cycle rounding;
 * xoff = (buffer - ports x headroom) / ports; xon = xoff - 2 MTU. Every port count 2..64 at
 * each rate and MTU must be accepted with a 12 MB buffer and 1 us links. */
static void test_pfc_derive(void)
{
    static const uint64_t gbps[] = { 10, 25, 100, 400 }, resp_bits[] = { 30720, 40960, 201728, 463360 };
    static const uint32_t mtus[] = { 1500, 9216 };
    const uint64_t buffer = 12ull << 20;
    net_switch_config c;
    const char *field = NULL;
    uint32_t r, m, ports, accepted = 0;
    for (r = 0; r < 4; r++)
        for (m = 0; m < 2; m++)
            for (ports = 2; ports <= 64; ports++) {
                uint64_t mtu = mtus[m], prop_bytes = 1000u * gbps[r] / 8u + 1u; /* 1000 cycles at 1 GHz */
                uint64_t h = 2u * prop_bytes + 2u * mtu + resp_bits[r] / 8u + mtu;
                uint64_t xoff = (buffer - ports * h) / ports, xon = xoff > 2u * mtu ? xoff - 2u * mtu : xoff / 2u;
                net_switch_config_default(&c);
                c.ports = ports;
                c.hosts = ports;
                c.buffer_bytes = buffer;
                c.link = link_cfg(gbps[r] * 1000000000ull, 1000, 1000000000ull);
                c.link.max_wire_bytes = mtus[m];
                CHECK_EQ(net_switch_pfc_derive(&c, ports, &c.link), RNIC_OK);
                CHECK_EQ(c.pfc_port_headroom_bytes, h);
                CHECK_EQ(c.pfc_xoff_bytes, xoff);
                CHECK_EQ(c.pfc_xon_bytes, xon);
                CHECK_EQ(c.pfc_headroom_bytes, 0);
                CHECK_EQ(net_switch_config_check(&c, &field), RNIC_OK);
                accepted += net_switch_config_check(&c, NULL) == RNIC_OK;
            }
    CHECK_EQ(accepted, 4u * 2u * 63u);
    /* the default 5.5 MB buffer still holds 64 ports of 100 Gb/s, 1 us, MTU 9216 */
    net_switch_config_default(&c);
    c.ports = 64;
    c.hosts = 64;
    c.link = link_cfg(100000000000ull, 1000, 1000000000ull);
    CHECK_EQ(net_switch_pfc_derive(&c, 64, &c.link), RNIC_OK);
    CHECK_EQ(c.pfc_xoff_bytes, (5500000u - 64u * 77866u) / 64u);
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_OK);
    /* the composed model's switch: 4 MiB, 100 Gb/s, 100 ns at 250 MHz, MTU 9216, 3..33 ports */
    for (ports = 3; ports <= 33; ports++) {
        net_switch_config_default(&c);
        c.ports = ports;
        c.hosts = ports;
        c.buffer_bytes = 4ull << 20;
        c.link = link_cfg(100000000000ull, 100, 250000000ull);
        CHECK_EQ(net_switch_pfc_derive(&c, ports, &c.link), RNIC_OK);
        CHECK_EQ(c.pfc_port_headroom_bytes, 3u * 9216u + 2u * (25u * 100u / 2u + 1u) + 201728u / 8u);
        CHECK_EQ(net_switch_config_check(&c, &field), RNIC_OK);
    }
    /* the boundary: headroom alone filling the buffer is refused, naming the field; one byte of
     * xoff per port is accepted */
    net_switch_config_default(&c);
    c.ports = 16;
    c.hosts = 16;
    c.link = link_cfg(100000000000ull, 1000, 1000000000ull);
    c.link.max_wire_bytes = 1500;
    {
        uint64_t h = net_pfc_headroom_bytes(&c.link);
        CHECK_EQ(h, 2u * 12501u + 3u * 1500u + 25216u);
        c.buffer_bytes = 16u * h;
        CHECK_EQ(net_switch_pfc_derive(&c, 16, &c.link), RNIC_ERANGE);
        CHECK_EQ(net_switch_config_check(&c, &field), RNIC_ERANGE);
        CHECK(field && !strcmp(field, "pfc_port_headroom_bytes"));
        c.buffer_bytes = 16u * h + 16u;
        CHECK_EQ(net_switch_pfc_derive(&c, 16, &c.link), RNIC_OK);
        CHECK_EQ(c.pfc_xoff_bytes, 1);
        CHECK_EQ(net_switch_config_check(&c, &field), RNIC_OK);
        c.pfc_xoff_bytes = 2; /* an override past the reservation */
        CHECK_EQ(net_switch_config_check(&c, &field), RNIC_ERANGE);
        CHECK(field && !strcmp(field, "pfc_xoff_bytes"));
    }
    /* the reaction table itself, and the rates between its rows */
    CHECK_EQ(net_pfc_reaction_quanta(10000000000ull), 60);
    CHECK_EQ(net_pfc_reaction_quanta(1000000000ull), 60);
    CHECK_EQ(net_pfc_reaction_quanta(25000000000ull), 80);
    CHECK_EQ(net_pfc_reaction_quanta(40000000000ull), 118);
    CHECK_EQ(net_pfc_reaction_quanta(50000000000ull), 394);
    CHECK_EQ(net_pfc_reaction_quanta(100000000000ull), 394);
    CHECK_EQ(net_pfc_reaction_quanta(400000000000ull), 905);
    CHECK_EQ(net_pfc_reaction_quanta(800000000000ull), 1810);
    printf("RESULT pfc_derive accepted %u configs (2..64 ports x 10/25/100/400G x MTU 1500/9216, 12 MiB, 1 us);"
           " 64 ports 100G MTU 9216 headroom %" PRIu64 " B\n",
           accepted, (uint64_t)(2u * 12501u + 3u * 9216u + 25216u));
}

/* ---- strict priority for control packets, by hand ----
 * 10 Gb/s at 100 MHz (100 bits a cycle), prop 250 cycles. Cycle 0: data A, B, C (1000 B, 80
 * cycles each) to port 1; cycle 10: control K1, K2 (64 B, 5.12 cycles); cycle 100: control K3.
 * Priority: A 0-80 (it was serialising), K1 80-85.12, K2 -90.24, B -170.24, K3 (B was
 * serialising at 100) -175.36, C -255.36: popped at 330, 336, 341, 421, 426, 506.
 * FIFO: A 80, B 160, C 240, K1 245.12, K2 250.24, K3 255.36: 330, 410, 490, 496, 501, 506. */
static void test_control_priority_by_hand(void)
{
    static const uint32_t want_order[2][6] = { { 0, 1, 2, 10, 11, 12 }, { 0, 10, 11, 1, 12, 2 } };
    static const uint64_t want_cycle[2][6] = { { 330, 410, 490, 496, 501, 506 }, { 330, 336, 341, 421, 426, 506 } };
    uint32_t prio;
    for (prio = 0; prio < 2; prio++) {
        net_switch sw;
        net_switch_config c;
        net_pkt p;
        uint64_t now;
        uint32_t n = 0, i;
        net_switch_config_default(&c);
        c.ports = 2;
        c.hosts = 2;
        c.control_priority = prio;
        CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
        CHECK_EQ(net_switch_route(&sw, 1, 1), RNIC_OK);
        for (now = 0; now < 600; now++) {
            net_switch_advance_to(&sw, now);
            while (net_switch_pop(&sw, 1, &p) == RNIC_OK) {
                if (n < 6) {
                    CHECK_EQ(p.w.index, want_order[prio][n]);
                    CHECK_EQ(now, want_cycle[prio][n]);
                    CHECK_EQ(p.control, p.w.index >= 10);
                }
                n++;
            }
            if (now == 0)
                for (i = 0; i < 3; i++) {
                    p = mkpkt(0, 1, 1000, i);
                    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
                }
            if (now == 10 || now == 100)
                for (i = now == 10 ? 10u : 12u; i < (now == 10 ? 12u : 13u); i++) {
                    p = mkpkt(0, 1, 64, i);
                    p.control = 1;
                    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
                }
        }
        CHECK_EQ(n, 6);
        CHECK_EQ(sw.port[1].stats.control_admitted, 3);
        CHECK_EQ(sw.port[1].control_bytes, 0);
        CHECK_EQ(sw.occupancy, 0);
        net_switch_free(&sw);
    }
    /* A paused egress (a downstream PAUSE until 300, sent at 100 after A left at 80): data B
     * pushed at 110 waits for 300; control K at 120 goes ahead of it although nothing is in
     * service. Priority: K 300-305.12, B -385.12: popped at 556, 636. FIFO: B 300-380, K
     * -385.12: 630, 636. Then a pause at 700 until 1000 with data C in service (700-780):
     * control L pushed at 710 waits for 1000 (non-preemptive, paused), 1000-1005.12: 1256. */
    for (prio = 0; prio < 2; prio++) {
        static const uint32_t order[2][4] = { { 0, 1, 10, 2 }, { 0, 10, 1, 2 } };
        static const uint64_t when[2][5] = { { 330, 630, 636, 1030, 1256 }, { 330, 556, 636, 1030, 1256 } };
        net_switch sw;
        net_switch_config c;
        net_pkt p;
        uint64_t now;
        uint32_t n = 0;
        net_switch_config_default(&c);
        c.ports = 2;
        c.hosts = 2;
        c.control_priority = prio;
        CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
        CHECK_EQ(net_switch_route(&sw, 1, 1), RNIC_OK);
        for (now = 0; now < 1400; now++) {
            net_switch_advance_to(&sw, now);
            while (net_switch_pop(&sw, 1, &p) == RNIC_OK) {
                if (n < 5) {
                    CHECK_EQ(p.w.index, n < 4 ? order[prio][n] : 11u);
                    CHECK_EQ(now, when[prio][n]);
                }
                n++;
            }
            if (now == 100)
                CHECK_EQ(net_switch_pause_port(&sw, 1, 300), RNIC_OK);
            if (now == 700) {
                p = mkpkt(0, 1, 1000, 2); /* C: starts at once, then the pause */
                CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
                CHECK_EQ(net_switch_pause_port(&sw, 1, 1000), RNIC_OK);
            }
            if (now == 0 || now == 110 || now == 120 || now == 710) {
                p = mkpkt(0, 1, now == 120 || now == 710 ? 64 : 1000, now == 0 ? 0u : now == 110 ? 1u : now == 120 ? 10u : 11u);
                p.control = now == 120 || now == 710;
                CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
            }
        }
        CHECK_EQ(n, 5);
        CHECK_EQ(sw.occupancy, 0);
        net_switch_free(&sw);
    }
}

/* ---- dynamic threshold (and control priority) against a brute-force shared buffer ----
 * Four ports at 10 Gb/s, 100 MHz (100 bits a cycle), prop 50 cycles, a 30,000 B buffer; random
 * arrivals in bursts and lulls, half of them to port 0, a quarter control. The reference keeps,
 * per port, one FIFO per class (one in all without priority), the packet in service with its
 * exact end in bit times (a packet starts at the end of the one before it, or at its arrival
 * cycle on an idle port; done = ceil(end / 100)), and admits a packet while its queue's bytes x
 * den < num x (buffer - occupancy) and it fits the buffer. Ticked every cycle: every verdict,
 * the occupancy after every cycle and every packet's pop cycle and port must agree. */
enum { DT_PORTS = 4, DT_CYCLES = 150000, DT_PKTS = 24000, DT_Q = 1024, DT_PROP = 50 };

typedef struct dt_ref_port {
    uint32_t q[2][DT_Q], head[2], n[2]; /* class 0 data (all, without priority), 1 control */
    uint64_t bytes[2];                  /* buffer bytes per class, the packet in service included */
    bool busy;
    uint32_t cur;
    uint64_t end_bt, done;
} dt_ref_port;

typedef struct dt_run {
    dt_ref_port port[DT_PORTS];
    uint32_t wire[DT_PKTS], ctrl[DT_PKTS], cls[DT_PKTS];
    uint64_t ref_pop[DT_PKTS], got_pop[DT_PKTS];
    uint32_t ref_port[DT_PKTS], got_port[DT_PKTS];
    uint64_t occ, drops_dt, drops_buf, overtakes;
} dt_run;

static void dt_start(dt_run *r, uint32_t p, uint32_t idx, uint64_t start_bt)
{
    dt_ref_port *rp = &r->port[p];
    rp->busy = true;
    rp->cur = idx;
    rp->end_bt = start_bt + 8u * (uint64_t)r->wire[idx];
    rp->done = ref_ceil_div(rp->end_bt, 100);
}

static void test_dynamic_threshold_reference(void)
{
    static const uint32_t alpha[][2] = { { 0, 1 }, { 1, 4 }, { 1, 2 }, { 1, 1 }, { 2, 1 }, { 8, 1 } };
    dt_run *r = (dt_run *)malloc(sizeof *r);
    uint32_t a, prio;
    uint64_t dt_total = 0, buf_total = 0;
    if (!r) {
        CHECK(r != NULL);
        return;
    }
    for (prio = 0; prio < 2; prio++)
        for (a = 0; a < sizeof alpha / sizeof alpha[0]; a++) {
            net_switch sw;
            net_switch_config c;
            rnic_prng rng;
            uint64_t t, buffer = 30000;
            uint32_t n = 0, i, p, bad_occ = 0, bad_verdict = 0, same = 0, popped = 0;
            memset(r, 0, sizeof *r);
            net_switch_config_default(&c);
            c.ports = DT_PORTS;
            c.hosts = DT_PORTS;
            c.buffer_bytes = buffer;
            c.link = link_cfg(10000000000ull, 500, 100000000ull);
            c.link.max_wire_bytes = 1500;
            c.dt_alpha_num = alpha[a][0];
            c.dt_alpha_den = alpha[a][1];
            c.control_priority = prio;
            CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
            for (p = 0; p < DT_PORTS; p++)
                CHECK_EQ(net_switch_route(&sw, p, p), RNIC_OK);
            rnic_prng_seed(&rng, seed + 100 + a);
            for (i = 0; i < DT_PKTS; i++)
                r->got_pop[i] = r->ref_pop[i] = UINT64_MAX;
            for (t = 0; t < DT_CYCLES + 20000; t++) {
                uint32_t phase = (uint32_t)(t / 5000u) % 3u, k, arrivals = 0;
                net_pkt pk;
                /* the reference: departures due by t, the next packet (control first) starts at
                 * the end of the one before */
                for (p = 0; p < DT_PORTS; p++) {
                    dt_ref_port *rp = &r->port[p];
                    while (rp->busy && rp->done <= t) {
                        uint32_t d = rp->cur, cl;
                        r->occ -= r->wire[d];
                        rp->bytes[r->cls[d]] -= r->wire[d];
                        r->ref_pop[d] = rp->done + DT_PROP;
                        r->ref_port[d] = p;
                        rp->busy = false;
                        cl = rp->n[1] ? 1u : 0u;
                        if (rp->n[cl]) {
                            uint32_t nx = rp->q[cl][rp->head[cl]];
                            rp->head[cl] = (rp->head[cl] + 1u) % DT_Q;
                            rp->n[cl]--;
                            if (cl == 1 && rp->n[0])
                                r->overtakes++; /* a control packet goes before waiting data */
                            dt_start(r, p, nx, rp->end_bt);
                        }
                    }
                }
                net_switch_advance_to(&sw, t);
                for (p = 0; p < DT_PORTS; p++)
                    while (net_switch_pop(&sw, p, &pk) == RNIC_OK)
                        if (pk.w.index < DT_PKTS) {
                            r->got_pop[pk.w.index] = t;
                            r->got_port[pk.w.index] = p;
                            popped++;
                        }
                if (t < DT_CYCLES && n < DT_PKTS)
                    arrivals = rnic_prng_chance(&rng, 1, phase == 0 ? 20 : phase == 1 ? 8 : 60) ? 1u + (uint32_t)rnic_prng_below(&rng, 2) : 0u;
                for (k = 0; k < arrivals && n < DT_PKTS; k++, n++) {
                    uint32_t port = rnic_prng_chance(&rng, 1, 2) ? 0u : 1u + (uint32_t)rnic_prng_below(&rng, 3);
                    uint32_t ctl = rnic_prng_chance(&rng, 1, 4) ? 1u : 0u;
                    uint32_t wb = ctl ? (uint32_t)rnic_prng_range(&rng, 64, 128) : (uint32_t)rnic_prng_range(&rng, 64, 1500);
                    dt_ref_port *rp = &r->port[port];
                    uint64_t q, free_b, before_dt = sw.stats.dropped[NET_DROP_THRESHOLD], before_buf = sw.stats.dropped[NET_DROP_BUFFER];
                    uint32_t verdict; /* 0 admitted, 1 threshold, 2 buffer */
                    r->wire[n] = wb;
                    r->ctrl[n] = ctl;
                    r->cls[n] = prio ? ctl : 0u;
                    q = rp->bytes[r->cls[n]];
                    free_b = buffer > r->occ ? buffer - r->occ : 0;
                    if (alpha[a][0] && q * alpha[a][1] >= alpha[a][0] * free_b) {
                        verdict = 1;
                        r->drops_dt++;
                    } else if (r->occ + wb > buffer) {
                        verdict = 2;
                        r->drops_buf++;
                    } else {
                        verdict = 0;
                        r->occ += wb;
                        rp->bytes[r->cls[n]] += wb;
                        if (!rp->busy) {
                            dt_start(r, port, n, t * 100u);
                        } else {
                            uint32_t cl = r->cls[n];
                            CHECK(rp->n[cl] < DT_Q);
                            rp->q[cl][(rp->head[cl] + rp->n[cl]++) % DT_Q] = n;
                        }
                    }
                    pk = mkpkt(9, port, wb, n);
                    pk.control = ctl;
                    CHECK_EQ(net_switch_push(&sw, &pk), RNIC_OK);
                    bad_verdict += (sw.stats.dropped[NET_DROP_THRESHOLD] - before_dt != (verdict == 1)) ||
                                   (sw.stats.dropped[NET_DROP_BUFFER] - before_buf != (verdict == 2));
                }
                bad_occ += sw.occupancy != r->occ;
            }
            CHECK_EQ(bad_verdict, 0);
            CHECK_EQ(bad_occ, 0);
            for (i = 0; i < n; i++)
                same += r->got_pop[i] == r->ref_pop[i] && (r->ref_pop[i] == UINT64_MAX || r->got_port[i] == r->ref_port[i]);
            CHECK_EQ(same, n);
            CHECK_EQ(popped + r->drops_dt + r->drops_buf, n); /* everything admitted came out */
            CHECK_EQ(sw.stats.dropped[NET_DROP_THRESHOLD], r->drops_dt);
            CHECK_EQ(sw.stats.dropped[NET_DROP_BUFFER], r->drops_buf);
            if (alpha[a][0] == 0)
                CHECK_EQ(r->drops_dt, 0);
            if (alpha[a][0] && alpha[a][0] * 2 <= alpha[a][1])
                CHECK(r->drops_dt > 0); /* a small alpha binds */
            if (prio)
                CHECK(r->overtakes > 0);
            dt_total += r->drops_dt;
            buf_total += r->drops_buf;
            printf("RESULT dynamic_threshold priority %u alpha %u/%u packets %u threshold_drops %" PRIu64
                   " buffer_drops %" PRIu64 " max_occupancy %" PRIu64 " control_overtakes %" PRIu64 "\n",
                   prio, alpha[a][0], alpha[a][1], n, r->drops_dt, r->drops_buf, sw.stats.max_occupancy, r->overtakes);
            net_switch_free(&sw);
        }
    CHECK(dt_total > 0);
    CHECK(buf_total > 0);
    free(r);
}

/* ---- PFC with derived thresholds: N:1 incast at 100 Gb/s ----
 * N senders behind 100 Gb/s uplinks (1 us, 250 MHz, MTU 1500, 16-packet NIC queues) send 8 MiB
 * in all, random sizes, to one receiver port of a switch with a 2 MiB buffer whose thresholds
 * net_switch_pfc_derive set for N + 1 ports. PFC frames reach the uplinks one propagation
 * delay after the switch sends them. No packet may be dropped anywhere, every packet must
 * arrive once, and no ingress may hold more than xoff + its headroom. Without PFC the same
 * incast loses packets. */
typedef struct pinc_stats {
    uint64_t sent, delivered, dropped, xoff, resume, max_in, xoff_bytes, headroom, max_occ, end;
    bool resumed;
} pinc_stats;

static void incast_derived(uint32_t senders, bool pfc, pinc_stats *st)
{
    enum { PIPE = 8192 };
    const uint64_t total = 8ull << 20, buffer = 2ull << 20;
    net_link *up = (net_link *)calloc(senders, sizeof *up);
    net_switch sw;
    net_switch_config c;
    net_link_config lc = link_cfg(100000000000ull, 1000, 250000000ull);
    net_pfc_frame *pipe = (net_pfc_frame *)calloc(PIPE, sizeof *pipe), f;
    uint64_t *sent_bytes = (uint64_t *)calloc(senders, sizeof *sent_bytes), now;
    uint8_t *seen = (uint8_t *)calloc(total / 64u + senders, 1);
    uint32_t ph = 0, pn = 0, h, R = senders;
    bool *paused = (bool *)calloc(senders + 1u, sizeof *paused);
    rnic_prng rng;
    memset(st, 0, sizeof *st);
    rnic_prng_seed(&rng, seed + senders);
    lc.max_wire_bytes = 1500;
    net_switch_config_default(&c);
    c.ports = senders + 1u;
    c.hosts = senders + 1u;
    c.buffer_bytes = buffer;
    c.link = lc;
    if (pfc)
        CHECK_EQ(net_switch_pfc_derive(&c, c.ports, &c.link), RNIC_OK);
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    st->xoff_bytes = c.pfc_xoff_bytes;
    st->headroom = c.pfc_port_headroom_bytes;
    for (h = 0; h <= senders; h++)
        CHECK_EQ(net_switch_route(&sw, h, h), RNIC_OK);
    lc.queue_packets = 16;
    for (h = 0; h < senders; h++)
        CHECK_EQ(net_link_init(&up[h], &lc), RNIC_OK);
    for (now = 0; now < 3000000; now++) {
        net_pkt p;
        bool idle = true;
        for (h = 0; h < senders; h++)
            net_link_advance_to(&up[h], now);
        net_switch_advance_to(&sw, now);
        while (pn && pipe[ph].cycle <= now) { /* PFC frames reaching their uplink */
            f = pipe[ph];
            ph = (ph + 1u) % PIPE;
            pn--;
            if (f.port < senders)
                CHECK_EQ(net_link_pause_quanta(&up[f.port], f.quanta), RNIC_OK);
        }
        for (h = 0; h < senders; h++)
            while (net_link_pop(&up[h], &p) == RNIC_OK)
                CHECK_EQ(net_switch_push_from(&sw, h, &p), RNIC_OK);
        while (net_switch_pop_pfc(&sw, &f) == RNIC_OK) {
            CHECK(f.port < senders && pn < PIPE);
            if (f.port >= senders || pn >= PIPE)
                continue;
            paused[f.port] = f.quanta != 0;
            f.cycle += sw.port[f.port].link.prop;
            pipe[(ph + pn++) % PIPE] = f;
        }
        while (net_switch_pop(&sw, R, &p) == RNIC_OK) {
            CHECK(p.w.index < st->sent && !seen[p.w.index]);
            if (p.w.index < st->sent)
                seen[p.w.index] = 1;
            st->delivered++;
        }
        for (h = 0; h < senders; h++)
            while (sent_bytes[h] < total / senders && net_link_space(&up[h])) {
                p = mkpkt(h, R, (uint32_t)rnic_prng_range(&rng, 64, 1500), (uint32_t)st->sent++);
                p.w.flow = h;
                sent_bytes[h] += p.wire_bytes;
                CHECK_EQ(net_link_push(&up[h], &p), RNIC_OK);
            }
        st->dropped = sw.stats.dropped[NET_DROP_BUFFER] + sw.stats.dropped[NET_DROP_THRESHOLD];
        for (h = 0; h < senders; h++)
            idle = idle && sent_bytes[h] >= total / senders;
        if (idle && st->delivered + st->dropped == st->sent && !pn && net_switch_next_event(&sw) == RNIC_NEVER)
            break;
    }
    st->end = now;
    st->max_occ = sw.stats.max_occupancy;
    st->resumed = true;
    st->dropped = 0; /* every cause, every port */
    for (h = 0; h <= senders; h++) {
        uint32_t k;
        st->xoff += sw.port[h].stats.pfc_xoff;
        st->resume += sw.port[h].stats.pfc_resume;
        for (k = 0; k < NET_DROP__COUNT; k++)
            st->dropped += sw.port[h].stats.dropped[k];
        if (sw.port[h].pfc_xoff || paused[h])
            st->resumed = false;
        if (sw.port[h].stats.pfc_max_bytes > st->max_in)
            st->max_in = sw.port[h].stats.pfc_max_bytes;
    }
    CHECK_EQ(sw.stats.pfc_frames_lost, 0);
    for (h = 0; h < senders; h++)
        net_link_free(&up[h]);
    net_switch_free(&sw);
    free(up);
    free(pipe);
    free(sent_bytes);
    free(seen);
    free(paused);
}

static void test_pfc_incast_derived(void)
{
    static const uint32_t ns[] = { 2, 8, 32 };
    uint32_t i;
    for (i = 0; i < 3; i++) {
        pinc_stats on, off;
        incast_derived(ns[i], false, &off);
        CHECK(off.dropped > 0); /* the buffer alone does not hold this incast */
        incast_derived(ns[i], true, &on);
        CHECK_EQ(on.dropped, 0);
        CHECK_EQ(on.delivered, on.sent);
        CHECK(on.sent > 5000);
        CHECK(on.xoff > 0);
        CHECK_EQ(on.xoff, on.resume);
        CHECK(on.resumed);
        CHECK(on.max_in <= on.xoff_bytes + on.headroom); /* the reservation held */
        CHECK(on.max_occ <= 2ull << 20);
        printf("RESULT incast_derived %u:1 100G pfc on: sent %" PRIu64 " delivered %" PRIu64 " dropped %" PRIu64
               " pauses %" PRIu64 " xoff %" PRIu64 " headroom %" PRIu64 " max_ingress_bytes %" PRIu64
               " max_occupancy %" PRIu64 " done_at %" PRIu64 "; pfc off: dropped %" PRIu64 " of %" PRIu64 "\n",
               ns[i], on.sent, on.delivered, on.dropped, on.xoff, on.xoff_bytes, on.headroom, on.max_in, on.max_occ,
               on.end, off.dropped, off.sent);
    }
}

/* ---- bad input to the new calls: refused with a code, counted, state intact ---- */
static void test_bad_input_fabric(void)
{
    static const uint32_t good[] = { 1, 2 }, other[] = { 2, 1 }, out_of_range[] = { 1, 4 }, five[] = { 0, 1, 2, 3, 0 };
    net_switch sw;
    net_switch_config c, copy;
    net_link_config lc = link_cfg(100000000000ull, 1000, 1000000000ull);
    net_pkt p, q;
    const char *field = NULL;
    uint64_t now;
    /* configs */
    net_switch_config_default(&c);
    copy = c;
    CHECK_EQ(net_switch_pfc_derive(&c, 0, &lc), RNIC_ERANGE); /* zero ports */
    CHECK_EQ(net_switch_pfc_derive(&c, 4097, &lc), RNIC_ERANGE);
    CHECK_EQ(net_switch_pfc_derive(NULL, 4, &lc), RNIC_EINVAL);
    CHECK_EQ(net_switch_pfc_derive(&c, 4, NULL), RNIC_EINVAL);
    {
        net_link_config absurd = lc;
        absurd.clock_hz = 0; /* no propagation delay can be had in cycles */
        CHECK_EQ(net_pfc_headroom_bytes(&absurd), UINT64_MAX);
        CHECK_EQ(net_switch_pfc_derive(&c, 4, &absurd), RNIC_ERANGE);
        CHECK_EQ(net_pfc_reaction_quanta(UINT64_MAX), UINT32_MAX);
    }
    CHECK(!memcmp(&c, &copy, sizeof c)); /* untouched */
    c.ports = 0;
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "ports"));
    c = copy;
    c.dt_alpha_num = 1;
    c.dt_alpha_den = 0;
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "dt_alpha_den"));
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_ERANGE);
    net_switch_free(&sw);
    c.dt_alpha_num = 0; /* 0 / 0 is off, like 0 / 1 */
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_OK);
    c = copy;
    c.ecmp_groups = 65537;
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "ecmp_groups"));
    c = copy;
    c.pfc_xoff_bytes = 1000;
    c.pfc_port_headroom_bytes = ((uint64_t)1 << 40) + 1u;
    CHECK_EQ(net_switch_config_check(&c, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "pfc_port_headroom_bytes"));
    /* ECMP routes */
    c = copy;
    c.ports = 4;
    c.hosts = 8;
    c.ecmp_groups = 1;
    CHECK_EQ(net_switch_init(&sw, &c), RNIC_OK);
    CHECK_EQ(net_switch_route(&sw, 5, 3), RNIC_OK);
    CHECK_EQ(net_switch_route_ecmp(&sw, 5, NULL, 2), RNIC_EINVAL);
    CHECK_EQ(net_switch_route_ecmp(&sw, 5, good, 0), RNIC_EINVAL); /* an empty set */
    CHECK_EQ(net_switch_route_ecmp(&sw, 5, out_of_range, 2), RNIC_ENOENT);
    CHECK_EQ(net_switch_route_ecmp(&sw, 8, good, 2), RNIC_ENOENT);  /* no host 8 */
    CHECK_EQ(net_switch_route_ecmp(&sw, 5, five, 5), RNIC_ERANGE);  /* more ports than the switch has */
    CHECK_EQ(net_switch_route_ecmp(NULL, 5, good, 2), RNIC_EINVAL);
    CHECK_EQ(net_switch_route_ecmp(&sw, 6, good, 2), RNIC_OK);      /* the one set there is room for */
    CHECK_EQ(net_switch_route_ecmp(&sw, 7, good, 2), RNIC_OK);      /* the same set again: shared */
    CHECK_EQ(net_switch_route_ecmp(&sw, 5, other, 2), RNIC_ENOSPC); /* another order is another set */
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_EINVAL], 2);
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_ENOENT], 2);
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_ERANGE], 1);
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_ENOSPC], 1);
    CHECK_EQ(sw.ecmp_count, 1);
    CHECK_EQ(sw.ecmp_used, 2);
    /* dst 5 still goes to port 3, alone */
    p = mkpkt(0, 5, 100, 42);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_OK);
    CHECK_EQ(sw.port[3].stats.arrivals, 1);
    CHECK_EQ(sw.port[3].stats.ecmp_chosen, 0);
    for (now = 1; now < 2000 && net_switch_pop(&sw, 3, &q) != RNIC_OK; now++)
        net_switch_advance_to(&sw, now);
    CHECK_EQ(q.w.index, 42);
    /* a one-port set is a plain route */
    CHECK_EQ(net_switch_route_ecmp(&sw, 5, good + 1, 1), RNIC_OK);
    CHECK_EQ(sw.route[5], 2);
    net_switch_free(&sw);
}

/* ---- fast-forward: a random workload, two drivers, one log ----
 * Three hosts; hosts 0 and 1 send random-sized packets to random destinations at scheduled
 * cycles over their uplinks (net_link) into a 3-port switch (small buffer, ECN, a drop list,
 * a drop probability); everything popped or dropped is logged with its cycle. One driver
 * ticks every cycle, the other jumps to the minimum next_event (and the next scheduled
 * send); their logs must be identical. The fabric's modes add a fourth port, an ECMP route
 * {2, 3, 2, 2} to host 2 (flows 0..63), a quarter of the packets small control packets served
 * first, and the dynamic threshold (without PFC) or PFC. */
enum { FF_PKTS = 6000, FF_HOSTS = 3, FF_PIPE = 1024 };
/* modes: the step ECN and drops alone; + RED at dequeue and trimming; + RED, PFC and trimming;
 * + RED, trimming, ECMP, control priority and the dynamic threshold; + RED, trimming, ECMP,
 * control priority and PFC */
enum { FF_PLAIN = 0, FF_RED_TRIM = 1, FF_PFC = 2, FF_DT_ECMP = 3, FF_PFC_ECMP = 4, FF_MODES = 5 };
static bool ff_pfc(uint32_t mode) { return mode == FF_PFC || mode == FF_PFC_ECMP; }
static bool ff_fabric(uint32_t mode) { return mode >= FF_DT_ECMP; }

typedef struct ff_event {
    uint64_t cycle;
    uint32_t what, index, port, ecn, trimmed, wire;
} ff_event;

typedef struct ff_run {
    net_link up[2];
    net_switch sw;
    uint64_t start, at[FF_PKTS];
    net_pkt pkt[FF_PKTS];
    uint32_t next[2]; /* each sender's next packet (sender h sends the indices with i % 2 == h) */
    ff_event *log;
    size_t n;
    uint64_t visited;
    uint32_t mode;
    net_pfc_frame pipe[FF_PIPE]; /* PFC frames on their way to the uplinks (cycle = arrival) */
    uint32_t ph, pn;
} ff_run;

static void ff_note(ff_run *r, uint64_t cycle, uint32_t what, const net_pkt *p, uint32_t port)
{
    ff_event *e = &r->log[r->n++];
    e->cycle = cycle;
    e->what = what;
    e->index = p->w.index;
    e->port = port;
    e->ecn = p->ecn;
    e->trimmed = p->trimmed;
    e->wire = p->wire_bytes;
}

static void ff_on_drop(void *user, const net_pkt *p, uint32_t port, uint32_t cause, uint64_t cycle)
{
    ff_note((ff_run *)user, cycle, 10u + cause, p, port);
}

static void ff_init(ff_run *r, uint64_t start, uint32_t mode)
{
    static const uint64_t list[] = { 2, 17, 18, 300, 1001 };
    net_switch_config c;
    net_link_config lc = link_cfg(10000000000ull, 2500, 100000000ull);
    rnic_prng rng;
    uint64_t t = start;
    uint32_t i;
    memset(r, 0, sizeof *r);
    r->start = start;
    r->mode = mode;
    r->next[1] = 1;
    r->log = (ff_event *)calloc(4u * FF_PKTS + 4000000u * ff_pfc(mode), sizeof *r->log);
    rnic_prng_seed(&rng, seed + 7);
    for (i = 0; i < FF_PKTS; i++) {
        t += rnic_prng_below(&rng, 100) < 70 ? 0 : rnic_prng_below(&rng, 150); /* bursts and gaps */
        r->at[i] = t;
        r->pkt[i] = mkpkt(i % 2u, (uint32_t)rnic_prng_below(&rng, 4) == 0 ? (i % 2u) ^ 1u : 2u,
                          (uint32_t)rnic_prng_range(&rng, 64, 1500), i);
    }
    if (ff_fabric(mode)) { /* a stream of its own: the first modes' workload stays as it was */
        rnic_prng_seed(&rng, seed + 17);
        for (i = 0; i < FF_PKTS; i++) {
            r->pkt[i].w.flow = (uint32_t)rnic_prng_below(&rng, 64);
            if (rnic_prng_chance(&rng, 1, 4)) {
                r->pkt[i].control = 1;
                r->pkt[i].wire_bytes = (uint32_t)rnic_prng_range(&rng, 64, 128);
            }
        }
    }
    lc.queue_packets = 8;
    for (i = 0; i < 2; i++) {
        CHECK_EQ(net_link_init(&r->up[i], &lc), RNIC_OK);
        net_link_advance_to(&r->up[i], start);
    }
    net_switch_config_default(&c);
    c.ports = ff_fabric(mode) ? FF_HOSTS + 1u : FF_HOSTS;
    c.hosts = FF_HOSTS;
    c.buffer_bytes = 20000;
    c.ecn_k_bytes = 6000;
    if (mode != FF_PLAIN) {
        c.ecn_kmin_bytes = 2000;
        c.ecn_kmax_bytes = 12000;
        c.ecn_pmax_ppm = 300000;
        c.ecn_seed = seed + 3;
        c.trim_bytes = mode == FF_PFC ? 15000 : mode == FF_PFC_ECMP ? 9000 : 8000;
    }
    if (ff_fabric(mode)) {
        c.control_priority = 1;
        c.ecmp_seed = seed + 5;
    }
    if (mode == FF_DT_ECMP) {
        c.dt_alpha_num = 1;
        c.dt_alpha_den = 2;
    }
    if (ff_pfc(mode)) { /* 3 x (6000 + 1500 + 6252 + 3000) = 50256 <= 20000 + 31000 (4 ports: 67008 <= 20000 + 48000) */
        c.link.max_wire_bytes = 1500;
        c.pfc_xoff_bytes = 6000;
        c.pfc_xon_bytes = 3000;
        c.pfc_headroom_bytes = ff_fabric(mode) ? 48000 : 31000;
        c.pfc_quanta = 80; /* 410 cycles: refreshed every 205 */
    }
    c.on_drop = ff_on_drop;
    c.drop_user = r;
    CHECK_EQ(net_switch_init(&r->sw, &c), RNIC_OK);
    for (i = 0; i < FF_HOSTS; i++)
        CHECK_EQ(net_switch_route(&r->sw, i, i), RNIC_OK);
    if (ff_fabric(mode)) {
        static const uint32_t to_host2[] = { 2, 3, 2, 2 }; /* weighted 3:1, so port 2 stays the bottleneck */
        CHECK_EQ(net_switch_route_ecmp(&r->sw, 2, to_host2, 4), RNIC_OK);
    }
    CHECK_EQ(net_switch_set_drop_list(&r->sw, 2, list, 5), RNIC_OK);
    CHECK_EQ(net_switch_set_drop_ppm(&r->sw, 2, 20000, seed), RNIC_OK);
    CHECK_EQ(net_switch_set_drop_ppm(&r->sw, 0, 50000, seed), RNIC_OK);
    net_switch_advance_to(&r->sw, start);
}

static void ff_free(ff_run *r)
{
    net_link_free(&r->up[0]);
    net_link_free(&r->up[1]);
    net_switch_free(&r->sw);
    free(r->log);
}

/* Everything that happens at `now` (all parts advanced to it): deliveries, uplink -> switch,
 * sends. The receiver pops host 2's port only every 4th cycle, so packets wait for a pop. */
static void ff_step(ff_run *r, uint64_t now)
{
    net_pkt p;
    net_pfc_frame f;
    uint32_t h, port;
    while (r->pn && rnic_cycle_before_eq(r->pipe[r->ph].cycle, now)) { /* PFC frames arriving */
        f = r->pipe[r->ph];
        r->ph = (r->ph + 1u) % FF_PIPE;
        r->pn--;
        CHECK(f.port < 2);
        if (f.port < 2)
            CHECK_EQ(net_link_pause_quanta(&r->up[f.port], f.quanta), RNIC_OK);
        p = mkpkt(f.port, f.port, 0, f.quanta);
        ff_note(r, now, 4, &p, f.port);
    }
    for (port = 0; port < r->sw.cfg.ports; port++)
        if (port < 2 || (now & 3u) == 0)
            while (net_switch_pop(&r->sw, port, &p) == RNIC_OK) {
                ff_note(r, now, 1, &p, port);
                /* with PFC in the fabric's mode, host 2 pauses egress port 2 now and then (as a
                 * downstream switch would), so control packets overtake data on a paused link */
                if (r->sw.cfg.control_priority && ff_pfc(r->mode) && port == 2 && p.w.index % 16u == 0) {
                    CHECK_EQ(net_switch_pause_port_quanta(&r->sw, 2, 60), RNIC_OK);
                    ff_note(r, now, 5, &p, port);
                }
            }
    for (h = 0; h < 2; h++)
        while (net_link_pop(&r->up[h], &p) == RNIC_OK) {
            CHECK_EQ(net_switch_push_from(&r->sw, h, &p), RNIC_OK);
            ff_note(r, now, 2, &p, h);
        }
    while (net_switch_pop_pfc(&r->sw, &f) == RNIC_OK) { /* PFC frames sent: logged, on their way */
        p = mkpkt(f.port, f.port, 0, f.quanta);
        ff_note(r, f.cycle, 3, &p, f.port);
        CHECK(r->pn < FF_PIPE);
        f.cycle += r->sw.port[f.port].link.prop;
        r->pipe[(r->ph + r->pn++) % FF_PIPE] = f;
    }
    for (h = 0; h < 2; h++)
        while (r->next[h] < FF_PKTS && rnic_cycle_before_eq(r->at[r->next[h]], now) && net_link_space(&r->up[h])) {
            CHECK_EQ(net_link_push(&r->up[h], &r->pkt[r->next[h]]), RNIC_OK);
            r->next[h] += 2;
        }
}

static void ff_advance(ff_run *r, uint64_t to)
{
    net_link_advance_to(&r->up[0], to);
    net_link_advance_to(&r->up[1], to);
    net_switch_advance_to(&r->sw, to);
    r->visited++;
}

static bool ff_done(const ff_run *r)
{
    return r->next[0] >= FF_PKTS && r->next[1] >= FF_PKTS + 1u && !r->pn && net_link_next_event(&r->up[0]) == RNIC_NEVER &&
           net_link_next_event(&r->up[1]) == RNIC_NEVER && net_switch_next_event(&r->sw) == RNIC_NEVER;
}

/* Cycles from `now` to a part's next event t, for a driver that has done all that is due at
 * now: a packet waiting for a pop waits for the receiver's next pop cycle; none (UINT64_MAX)
 * when the part is empty (RNIC_NEVER); t == now otherwise is an event due at 2^64 - 1 that
 * next_event reported a cycle early. */
static uint64_t ff_gap(uint64_t now, uint64_t t, bool waits_for_pop)
{
    if (waits_for_pop) /* asked first: at now = 2^64 - 1, t == now reads as RNIC_NEVER */
        return ((now | 3u) + 1u) - now;
    if (t == RNIC_NEVER)
        return UINT64_MAX;
    return t != now ? t - now : 1u;
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static void test_fast_forward_identical(void)
{
    static const uint64_t starts[] = { 0, UINT64_MAX - 90000 }; /* the second wraps mid-run */
    ff_run *tick = (ff_run *)malloc(sizeof *tick), *ff = (ff_run *)malloc(sizeof *ff);
    uint32_t s, h, mode;
    if (!tick || !ff) {
        CHECK(tick && ff);
        free(tick);
        free(ff);
        return;
    }
    for (mode = 0; mode < FF_MODES; mode++)
    for (s = 0; s < 2; s++) {
        uint64_t now = starts[s], limit = 5000000, pfc_frames = 0, paused = 0;
        size_t i, same = 0;
        ff_init(tick, starts[s], mode);
        ff_init(ff, starts[s], mode);
        for (; !ff_done(tick) && limit--; now++) {
            ff_advance(tick, now);
            ff_step(tick, now);
        }
        now = starts[s];
        while (!ff_done(ff) && ff->visited < 5000000) {
            uint64_t gap = UINT64_MAX, port_gap = UINT64_MAX, sw_next;
            net_pkt w;
            ff_advance(ff, now);
            ff_step(ff, now);
            for (h = 0; h < 2; h++)
                gap = min64(gap, ff_gap(now, net_link_next_event(&ff->up[h]), false));
            for (h = 0; h < ff->sw.cfg.ports; h++) {
                const net_link *l = &ff->sw.port[h].link;
                uint64_t t = net_link_next_event(l);
                gap = min64(gap, ff_gap(now, t, net_link_peek(l, &w) == RNIC_OK));
                if (t != RNIC_NEVER)
                    port_gap = min64(port_gap, t - now);
                /* with PFC a departure is an event even while a packet waits for its pop (it
                 * may send a RESUME), and next_event then answers now: ask the queue's head */
                if (ff_pfc(mode) && l->count > l->arrived + l->on_wire)
                    gap = min64(gap, ff_gap(now, l->slot[(l->head + l->arrived + l->on_wire) % l->size].done, false));
                if (ff->sw.port[h].pfc_xoff) { /* a pause refresh */
                    t = ff->sw.port[h].pfc_refresh_at;
                    gap = min64(gap, ff_gap(now, t == RNIC_NEVER ? t - 1u : t, false));
                    port_gap = min64(port_gap, (t == RNIC_NEVER ? t - 1u : t) - now);
                }
            }
            sw_next = net_switch_next_event(&ff->sw); /* the switch's own: the earliest port or refresh */
            CHECK_EQ(sw_next == RNIC_NEVER ? UINT64_MAX : sw_next - now, port_gap);
            if (ff->pn) /* the next PFC frame reaching its uplink */
                gap = min64(gap, ff_gap(now, ff->pipe[ff->ph].cycle, false));
            for (h = 0; h < 2; h++)
                if (ff->next[h] < FF_PKTS && ff->at[ff->next[h]] - now - 1u < ((uint64_t)1 << 62))
                    gap = min64(gap, ff->at[ff->next[h]] - now); /* a send scheduled later */
            now += gap == UINT64_MAX ? 1u : gap;
        }
        CHECK(ff_done(tick));
        CHECK(ff_done(ff));
        CHECK_EQ(tick->n, ff->n);
        for (i = 0; i < tick->n && i < ff->n; i++)
            same += !memcmp(&tick->log[i], &ff->log[i], sizeof tick->log[i]);
        CHECK_EQ(same, tick->n);
        for (i = 0; i < tick->n && i < ff->n; i++)
            if (getenv("FF_DEBUG") && memcmp(&tick->log[i], &ff->log[i], sizeof tick->log[i]))
                printf("diff %zu: tick %" PRIu64 " what %u idx %u port %u | ff %" PRIu64 " what %u idx %u port %u\n", i,
                       tick->log[i].cycle, tick->log[i].what, tick->log[i].index, tick->log[i].port, ff->log[i].cycle,
                       ff->log[i].what, ff->log[i].index, ff->log[i].port);
        /* the workload exercised every path */
        CHECK_EQ(tick->sw.stats.dropped[NET_DROP_BUFFER] > 0, mode == FF_PLAIN);
        CHECK_EQ(tick->sw.stats.dropped[NET_DROP_THRESHOLD] > 0, mode == FF_DT_ECMP);
        CHECK_EQ(tick->sw.stats.dropped[NET_DROP_LIST], 5);
        CHECK(tick->sw.stats.dropped[NET_DROP_RANDOM] > 0);
        CHECK(tick->sw.port[2].stats.marked > 0);
        CHECK_EQ(tick->sw.port[2].stats.red_marked > 0, mode != FF_PLAIN);
        CHECK_EQ(tick->sw.port[2].stats.trimmed > 0, mode != FF_PLAIN);
        if (mode == FF_PFC_ECMP) /* host 2 paused egress port 2 */
            CHECK(tick->sw.port[2].link.stats.pauses > 0 && tick->sw.port[2].link.stats.paused_cycles > 0);
        if (ff_fabric(mode)) { /* both paths to host 2 used, control packets served */
            CHECK(tick->sw.port[2].stats.ecmp_chosen > 0 && tick->sw.port[3].stats.ecmp_chosen > 0);
            CHECK(tick->sw.port[2].stats.control_admitted > 0 && tick->sw.port[3].stats.control_admitted > 0);
            CHECK_EQ(tick->sw.port[2].control_bytes + tick->sw.port[3].control_bytes, 0);
        }
        for (h = 0; h < tick->sw.cfg.ports; h++)
            pfc_frames += tick->sw.port[h].stats.pfc_xoff + tick->sw.port[h].stats.pfc_refresh + tick->sw.port[h].stats.pfc_resume;
        for (h = 0; h < 2; h++)
            paused += tick->up[h].stats.paused_cycles;
        if (ff_pfc(mode)) {
            CHECK(tick->sw.port[0].stats.pfc_xoff + tick->sw.port[1].stats.pfc_xoff > 0);
            CHECK(tick->sw.port[0].stats.pfc_refresh + tick->sw.port[1].stats.pfc_refresh > 0);
            CHECK_EQ(tick->sw.port[0].stats.pfc_xoff, tick->sw.port[0].stats.pfc_resume);
            CHECK_EQ(tick->sw.port[1].stats.pfc_xoff, tick->sw.port[1].stats.pfc_resume);
            CHECK(paused > 0);
            CHECK_EQ(tick->sw.stats.pfc_frames_lost, 0);
        } else {
            CHECK_EQ(pfc_frames, 0);
        }
        CHECK(ff->visited * 4 < tick->visited); /* and fast-forward skipped most cycles */
        printf("RESULT fast_forward mode %u start %" PRIu64 " events %zu ticked %" PRIu64 " visited %" PRIu64
               " drops buffer %" PRIu64 " threshold %" PRIu64 " list %" PRIu64 " random %" PRIu64 " marked %" PRIu64
               " red %" PRIu64 " trimmed %" PRIu64 " pfc_frames %" PRIu64 " paused_cycles %" PRIu64
               " ecmp_port2 %" PRIu64 " ecmp_port3 %" PRIu64 " control %" PRIu64 "\n",
               mode, starts[s], tick->n, tick->visited, ff->visited, tick->sw.stats.dropped[NET_DROP_BUFFER],
               tick->sw.stats.dropped[NET_DROP_THRESHOLD], tick->sw.stats.dropped[NET_DROP_LIST],
               tick->sw.stats.dropped[NET_DROP_RANDOM], tick->sw.port[2].stats.marked, tick->sw.port[2].stats.red_marked,
               tick->sw.port[2].stats.trimmed, pfc_frames, paused, tick->sw.port[2].stats.ecmp_chosen,
               ff_fabric(mode) ? tick->sw.port[3].stats.ecmp_chosen : 0u,
               tick->sw.port[2].stats.control_admitted + (ff_fabric(mode) ? tick->sw.port[3].stats.control_admitted : 0u));
        ff_free(tick);
        ff_free(ff);
    }
    free(tick);
    free(ff);
}

/* ---- bad input ---- */
static void test_bad_input(void)
{
    net_link l;
    net_switch sw;
    net_link_config c = link_cfg(10000000000ull, 2500, 100000000ull), bad;
    net_switch_config sc;
    net_pkt p = mkpkt(0, 1, 1000, 0), q;
    const char *field = NULL;
    CHECK_EQ(net_link_init(&l, &c), RNIC_OK);
    CHECK_EQ(net_link_push(NULL, &p), RNIC_EINVAL);
    CHECK_EQ(net_link_push(&l, NULL), RNIC_EINVAL);
    p.wire_bytes = 9217;
    CHECK_EQ(net_link_push(&l, &p), RNIC_ERANGE);
    p.wire_bytes = 63;
    CHECK_EQ(net_link_push(&l, &p), RNIC_ERANGE);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_EEMPTY);
    CHECK_EQ(net_link_pop(&l, NULL), RNIC_EINVAL);
    CHECK_EQ(l.stats.errors.by_cause[RNIC_EINVAL], 2);
    CHECK_EQ(l.stats.errors.by_cause[RNIC_ERANGE], 2);
    CHECK_EQ(l.stats.errors.by_cause[RNIC_EEMPTY], 0); /* polling an empty link is no error */
    CHECK_EQ(l.stats.pushed, 0);
    CHECK_EQ(l.count, 0);
    net_link_free(&l);

    make_switch(&sw, 2, 5500000, 0, NULL);
    p = mkpkt(0, 2, 1000, 0); /* no host 2 */
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_ENOENT);
    CHECK_EQ(net_switch_route(&sw, 2, 0), RNIC_ENOENT);
    CHECK_EQ(net_switch_route(&sw, 0, 2), RNIC_ENOENT); /* no port 2 */
    CHECK_EQ(net_switch_pop(&sw, 2, &q), RNIC_ENOENT);
    CHECK_EQ(net_switch_peek(&sw, 2, &q), RNIC_ENOENT); /* peek is const: refused, not counted */
    CHECK_EQ(net_switch_peek(&sw, 0, &q), RNIC_EEMPTY);
    CHECK_EQ(net_switch_set_drop_ppm(&sw, 5, 10, 1), RNIC_ENOENT);
    CHECK_EQ(net_switch_set_drop_list(&sw, 5, NULL, 0), RNIC_ENOENT);
    CHECK_EQ(net_switch_set_drop_ppm(&sw, 0, 1000001, 1), RNIC_ERANGE);
    p = mkpkt(0, 1, 9217, 0);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_ERANGE);
    CHECK_EQ(net_switch_push(&sw, NULL), RNIC_EINVAL);
    CHECK_EQ(net_switch_push(NULL, &p), RNIC_EINVAL);
    CHECK_EQ(net_switch_pop(&sw, 0, NULL), RNIC_EINVAL);
    CHECK_EQ(net_switch_set_drop_list(&sw, 0, NULL, 3), RNIC_EINVAL);
    CHECK_EQ(net_switch_pause_port(&sw, 2, 100), RNIC_ENOENT); /* the switch's own pause: no port 2 */
    CHECK_EQ(net_switch_pause_port_quanta(&sw, 7, 10), RNIC_ENOENT);
    CHECK_EQ(net_switch_pause_port(NULL, 0, 100), RNIC_EINVAL);
    CHECK_EQ(net_switch_next_ready(&sw, 0), NET_NO_PORT); /* nothing to pop; out of range: none */
    CHECK_EQ(net_switch_next_ready(&sw, 99), NET_NO_PORT);
    CHECK_EQ(net_switch_next_ready(NULL, 0), NET_NO_PORT);
    net_switch_settle(NULL);
    net_switch_settle_port(&sw, 99);
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_ENOENT], 8);
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_ERANGE], 2);
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_EINVAL], 3);
    CHECK_EQ(sw.occupancy, 0);
    CHECK_EQ(sw.port[0].stats.arrivals + sw.port[1].stats.arrivals, 0);
    /* a route can be unknown for a host id inside the table too */
    net_switch_free(&sw);
    net_switch_config_default(&sc);
    sc.ports = 1;
    sc.hosts = 4;
    CHECK_EQ(net_switch_init(&sw, &sc), RNIC_OK);
    p = mkpkt(0, 3, 1000, 0);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_ENOENT);
    CHECK_EQ(net_switch_next_event(&sw), RNIC_NEVER);
    net_switch_free(&sw);

    /* configs: each bad field named */
    bad = c;
    bad.rate_bps = 0;
    CHECK_EQ(net_link_config_check(&bad, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "rate_bps"));
    bad = c;
    bad.clock_hz = 0;
    CHECK_EQ(net_link_init(&l, &bad), RNIC_EINVAL);
    bad = c;
    bad.min_wire_bytes = 10000;
    CHECK_EQ(net_link_config_check(&bad, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "min_wire_bytes"));
    bad = c;
    bad.queue_packets = 0;
    CHECK_EQ(net_link_config_check(&bad, &field), RNIC_ERANGE);
    bad = c;
    bad.prop_ns = 2000000000000ull;
    CHECK_EQ(net_link_config_check(&bad, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "prop_ns"));
    net_switch_config_default(&sc);
    sc.buffer_bytes = 100; /* smaller than one MTU */
    CHECK_EQ(net_switch_config_check(&sc, &field), RNIC_ERANGE);
    CHECK(field && !strcmp(field, "buffer_bytes"));
    sc.buffer_bytes = 5500000;
    sc.ports = 0;
    CHECK_EQ(net_switch_init(&sw, &sc), RNIC_ERANGE);
    CHECK_EQ(net_switch_push(&sw, &p), RNIC_EINVAL); /* never initialised: refused, no crash */
    net_switch_free(&sw);
    CHECK_EQ(net_link_config_check(NULL, &field), RNIC_EINVAL);
}

int main(void)
{
    seed = test_seed(10);
    RUN(test_link_latency_by_hand);
    RUN(test_link_queue_bound);
    RUN(test_link_ring_grows);
    RUN(test_link_throughput_exact);
    RUN(test_switch_drop_tail_by_hand);
    RUN(test_switch_drop_tail_reference);
    RUN(test_switch_drop_list);
    RUN(test_switch_drop_probability);
    RUN(test_switch_ecn);
    RUN(test_link_pause_by_hand);
    RUN(test_red_marking);
    RUN(test_red_keeps_drops);
    RUN(test_red_presets);
    RUN(test_trimming);
    RUN(test_pfc_incast);
    RUN(test_new_config_checks);
    RUN(test_ecmp_choice);
    RUN(test_pfc_derive);
    RUN(test_control_priority_by_hand);
    RUN(test_dynamic_threshold_reference);
    RUN(test_pfc_incast_derived);
    RUN(test_fast_forward_identical);
    RUN(test_bad_input);
    RUN(test_bad_input_fabric);
    return test_summary();
}
