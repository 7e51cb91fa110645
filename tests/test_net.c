/* examples/rnic_model/net.h: links and the output-queued switch of the transport experiments.
 * Checked against hand computations and small independent references: a link's per-packet
 * arrival = push + ceil(cumulative bits * clock / rate) + prop over 10^6 back-to-back packets
 * (exact, no drift), the latency of single packets worked out by hand, the shared buffer's
 * drop-tail against a hand-worked overload and against an independent per-port model, the
 * drop list's exact ordinals, the drop probability inside a binomial bound, ECN marks over K,
 * fast-forward (advance_to next_event) against ticking every cycle on a random workload
 * (across the 2^64 wrap), and bad input refused with a code and counted. */
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
    CHECK_EQ(net_link_push(&l, &p), RNIC_OK);
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
    net_link_advance_to(&l, 335);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_EEMPTY);
    net_link_advance_to(&l, 336);
    CHECK_EQ(net_link_next_event(&l), 336); /* a packet waits for its pop */
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(q.w.index, 7);
    CHECK_EQ(net_link_next_event(&l), 421);
    net_link_advance_to(&l, 421);
    CHECK_EQ(net_link_pop(&l, &q), RNIC_OK);
    CHECK_EQ(q.w.index, 8);
    CHECK_EQ(net_link_next_event(&l), RNIC_NEVER);
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

/* ---- fast-forward: a random workload, two drivers, one log ----
 * Three hosts; hosts 0 and 1 send random-sized packets to random destinations at scheduled
 * cycles over their uplinks (net_link) into a 3-port switch (small buffer, ECN, a drop list,
 * a drop probability); everything popped or dropped is logged with its cycle. One driver
 * ticks every cycle, the other jumps to the minimum next_event (and the next scheduled
 * send); their logs must be identical. */
enum { FF_PKTS = 6000, FF_HOSTS = 3 };

typedef struct ff_event {
    uint64_t cycle;
    uint32_t what, index, port, ecn;
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
} ff_run;

static void ff_note(ff_run *r, uint64_t cycle, uint32_t what, const net_pkt *p, uint32_t port)
{
    ff_event *e = &r->log[r->n++];
    e->cycle = cycle;
    e->what = what;
    e->index = p->w.index;
    e->port = port;
    e->ecn = p->ecn;
}

static void ff_on_drop(void *user, const net_pkt *p, uint32_t port, uint32_t cause, uint64_t cycle)
{
    ff_note((ff_run *)user, cycle, 10u + cause, p, port);
}

static void ff_init(ff_run *r, uint64_t start)
{
    static const uint64_t list[] = { 2, 17, 18, 300, 1001 };
    net_switch_config c;
    net_link_config lc = link_cfg(10000000000ull, 2500, 100000000ull);
    rnic_prng rng;
    uint64_t t = start;
    uint32_t i;
    memset(r, 0, sizeof *r);
    r->start = start;
    r->next[1] = 1;
    r->log = (ff_event *)calloc(4u * FF_PKTS, sizeof *r->log);
    rnic_prng_seed(&rng, seed + 7);
    for (i = 0; i < FF_PKTS; i++) {
        t += rnic_prng_below(&rng, 100) < 70 ? 0 : rnic_prng_below(&rng, 150); /* bursts and gaps */
        r->at[i] = t;
        r->pkt[i] = mkpkt(i % 2u, (uint32_t)rnic_prng_below(&rng, 4) == 0 ? (i % 2u) ^ 1u : 2u,
                          (uint32_t)rnic_prng_range(&rng, 64, 1500), i);
    }
    lc.queue_packets = 8;
    for (i = 0; i < 2; i++) {
        CHECK_EQ(net_link_init(&r->up[i], &lc), RNIC_OK);
        net_link_advance_to(&r->up[i], start);
    }
    net_switch_config_default(&c);
    c.ports = FF_HOSTS;
    c.hosts = FF_HOSTS;
    c.buffer_bytes = 20000;
    c.ecn_k_bytes = 6000;
    c.on_drop = ff_on_drop;
    c.drop_user = r;
    CHECK_EQ(net_switch_init(&r->sw, &c), RNIC_OK);
    for (i = 0; i < FF_HOSTS; i++)
        CHECK_EQ(net_switch_route(&r->sw, i, i), RNIC_OK);
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
    uint32_t h, port;
    for (port = 0; port < FF_HOSTS; port++)
        if (port != 2 || (now & 3u) == 0)
            while (net_switch_pop(&r->sw, port, &p) == RNIC_OK)
                ff_note(r, now, 1, &p, port);
    for (h = 0; h < 2; h++)
        while (net_link_pop(&r->up[h], &p) == RNIC_OK) {
            CHECK_EQ(net_switch_push(&r->sw, &p), RNIC_OK);
            ff_note(r, now, 2, &p, h);
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
    return r->next[0] >= FF_PKTS && r->next[1] >= FF_PKTS + 1u && net_link_next_event(&r->up[0]) == RNIC_NEVER &&
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
    uint32_t s, h;
    if (!tick || !ff) {
        CHECK(tick && ff);
        free(tick);
        free(ff);
        return;
    }
    for (s = 0; s < 2; s++) {
        uint64_t now = starts[s], limit = 5000000;
        size_t i, same = 0;
        ff_init(tick, starts[s]);
        ff_init(ff, starts[s]);
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
            for (h = 0; h < FF_HOSTS; h++) {
                const net_link *l = &ff->sw.port[h].link;
                uint64_t t = net_link_next_event(l);
                gap = min64(gap, ff_gap(now, t, net_link_peek(l, &w) == RNIC_OK));
                if (t != RNIC_NEVER)
                    port_gap = min64(port_gap, t - now);
            }
            sw_next = net_switch_next_event(&ff->sw); /* the switch's own: the earliest port */
            CHECK_EQ(sw_next == RNIC_NEVER ? UINT64_MAX : sw_next - now, port_gap);
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
        /* the workload exercised every path */
        CHECK(tick->sw.stats.dropped[NET_DROP_BUFFER] > 0);
        CHECK_EQ(tick->sw.stats.dropped[NET_DROP_LIST], 5);
        CHECK(tick->sw.stats.dropped[NET_DROP_RANDOM] > 0);
        CHECK(tick->sw.port[2].stats.marked > 0);
        CHECK(ff->visited * 4 < tick->visited); /* and fast-forward skipped most cycles */
        printf("RESULT fast_forward start %" PRIu64 " events %zu ticked %" PRIu64 " visited %" PRIu64
               " drops buffer %" PRIu64 " list %" PRIu64 " random %" PRIu64 " marked %" PRIu64 "\n",
               starts[s], tick->n, tick->visited, ff->visited, tick->sw.stats.dropped[NET_DROP_BUFFER],
               tick->sw.stats.dropped[NET_DROP_LIST], tick->sw.stats.dropped[NET_DROP_RANDOM],
               tick->sw.port[2].stats.marked);
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
    CHECK_EQ(sw.stats.errors.by_cause[RNIC_ENOENT], 6);
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
    RUN(test_link_throughput_exact);
    RUN(test_switch_drop_tail_by_hand);
    RUN(test_switch_drop_tail_reference);
    RUN(test_switch_drop_list);
    RUN(test_switch_drop_probability);
    RUN(test_switch_ecn);
    RUN(test_fast_forward_identical);
    RUN(test_bad_input);
    return test_summary();
}
