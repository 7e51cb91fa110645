/* The rate limiter's internal ordered structures against brute-force references:
 * - the timeline (radix calendar standing in for the P-heap): pops in (key, insertion) order,
 *   including keys that settle below the current base ("late") and ties;
 * - the descriptor heaps: waiting by start, eligible by (finish, descriptor number);
 * and the engine contract's edges: registers coalesced, rl_advance stopping at a full TX port
 * (one long call delivers every rate), the 2^64 wrap (an engine started near UINT64_MAX
 * against one started at 0), trace events, tags and addresses carried to every packet.
 * The engine's static functions are reachable because this file implements the header. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

static uint32_t no_wqes(void *user, uint32_t qp, uint32_t seq, rnic_work *out, uint32_t max)
{
    (void)user, (void)qp, (void)seq, (void)out, (void)max;
    return 0;
}

typedef struct ref_entry {
    uint64_t key, ins;
    uint32_t qp;
} ref_entry;

static unsigned char mem_buf[1u << 22];
static rl engine;

static rl *make_engine(uint32_t max_qps)
{
    rl_config c;
    rl_config_default(&c);
    c.max_flows = max_qps;
    c.desc_depth = RL_MAX_DESC;
    c.source = no_wqes;
    if (rl_mem_size(&c) > sizeof mem_buf || rl_init(&engine, &c, mem_buf, sizeof mem_buf) != RNIC_OK)
        return NULL;
    return &engine;
}

/* Key generator: a drifting floor, with ties, late keys and far keys (the engine's keys lie
 * within 2^62 of one another and compare modulo 2^64: floors near 2^64 cross the wrap). */
static uint64_t draw_key(rnic_prng *p, uint64_t floor_key)
{
    uint64_t k;
    switch (rnic_prng_below(p, 8)) {
    case 0: return floor_key;                                        /* tie with the floor */
    case 1: return floor_key - rnic_prng_below(p, 64);               /* late: below the base */
    case 2: return floor_key + rnic_prng_below(p, 4);                /* near ties */
    case 3: return floor_key + (rnic_prng_next(p) >> (2u + rnic_prng_below(p, 62))); /* any distance below 2^62 */
    case 4: return floor_key + ((uint64_t)1 << 62) - rnic_prng_below(p, 3);        /* the far end */
    default:
        k = floor_key + rnic_prng_below(p, 1u << 20);
        return k;
    }
}

static void test_timeline_order(void)
{
    enum { N = 4096 };
    static ref_entry ref[N];
    static uint8_t in[N];
    rnic_prng p;
    uint32_t round, n_ref, i, ops = 0, lates = 0, refills = 0, removes = 0;
    uint32_t rounds = (uint32_t)test_length(15, 40); /* 15: every floor (round % 3) with every shift (round % 5) */
    rnic_prng_seed(&p, 0x71e11e5u);
    for (round = 0; round < rounds && !TEST_FAILS(); round++) {
        rl *r = make_engine(N);
        uint64_t floor_key = round % 3 == 0 ? 0 : round % 3 == 1 ? 0u - rnic_prng_below(&p, 1u << 20) : rnic_prng_next(&p) >> (round % 5), ins = 0;
        uint32_t steps = 20000u, bias = rnic_prng_below(&p, 3); /* grow, balanced, shrink */
        CHECK(r != NULL);
        if (!r)
            return;
        memset(in, 0, sizeof in);
        n_ref = 0;
        while (steps-- && !TEST_FAILS()) {
            bool insert = n_ref == 0 || (n_ref < N && rnic_prng_below(&p, 10) < 5u + (bias == 0 ? 3u : 0u) - (bias == 2 ? 3u : 0u));
            if (!insert && rnic_prng_below(&p, 4) == 0) { /* a re-timed flow leaves from anywhere */
                uint32_t j = rnic_prng_below(&p, n_ref);
                rl__tl_remove(r, ref[j].qp);
                in[ref[j].qp] = 0;
                ref[j] = ref[--n_ref];
                removes++;
            } else if (insert) {
                uint32_t qp;
                do
                    qp = rnic_prng_below(&p, N);
                while (in[qp]);
                in[qp] = 1;
                r->qps[qp].resched = draw_key(&p, floor_key);
                lates += r->heap_count && (int64_t)(r->qps[qp].resched - r->tl_base) < 0;
                rl__tl_insert(r, qp);
                ref[n_ref].key = r->qps[qp].resched;
                ref[n_ref].ins = ins++;
                ref[n_ref].qp = qp;
                n_ref++;
            } else {
                uint32_t best = 0, got, min_qp = rl__tl_peek(r);
                for (i = 1; i < n_ref; i++)
                    if ((int64_t)(ref[i].key - ref[best].key) < 0 || (ref[i].key == ref[best].key && ref[i].ins < ref[best].ins))
                        best = i;
                CHECK_EQ(min_qp, ref[best].qp);
                refills += r->tl_late_head == RNIC_NONE && !(r->tl_levels & 1u); /* this pop spreads a higher list into level 0 */
                got = rl__tl_pop(r);
                CHECK_EQ(got, ref[best].qp);
                in[got] = 0;
                if ((int64_t)(ref[best].key - floor_key) > 0)
                    floor_key = ref[best].key; /* keys drift upwards as in the engine */
                ref[best] = ref[--n_ref];
            }
            CHECK_EQ(r->heap_count, n_ref);
            ops++;
        }
    }
    printf("  %u operations, %u late inserts, %u level-0 refills, %u removals\n", ops, lates, refills, removes);
    CHECK(removes > 1000u);
    CHECK(lates > 1000u);
    CHECK(refills > 1000u);
}

/* Descriptor order: the waiting heap (by start) and the eligible ring (by finish, number):
 * random pushes of random (start, finish, number), pops against a scan; the ring also loses
 * random entries (a re-time or an eviction) and keeps its order. */
static void test_descriptor_heaps(void)
{
    rnic_prng p;
    uint32_t round, i;
    rnic_prng_seed(&p, 0xde5c0u);
    for (round = 0; round < 200 && !TEST_FAILS(); round++) {
        rl *r = make_engine(4);
        bool by_finish = round & 1u;
        rl__dkey *h = by_finish ? r->desc_ready : r->desc_waiting;
        uint32_t *count = by_finish ? &r->n_ready : &r->n_waiting, live = 0, steps;
        static uint8_t used[RL_MAX_DESC];
        uint64_t spread = (uint64_t)1 << rnic_prng_below(&p, 40);
        memset(used, 0, sizeof used);
        for (steps = 0; steps < 5000u && !TEST_FAILS(); steps++) {
            if (live < RL_MAX_DESC && (live == 0 || rnic_prng_below(&p, 2))) {
                uint32_t s;
                do
                    s = rnic_prng_below(&p, RL_MAX_DESC);
                while (used[s]);
                used[s] = 1;
                r->desc[s].start.cycle = rnic_prng_below(&p, spread);
                r->desc[s].start.frac = (uint32_t)rnic_prng_below(&p, 3) << 30;
                r->desc[s].finish.cycle = rnic_prng_below(&p, spread);
                r->desc[s].finish.frac = (uint32_t)rnic_prng_below(&p, 3) << 30;
                r->desc[s].number = rnic_prng_next(&p);
                r->desc[s].flow = 0;
                if (by_finish)
                    rl__ready_push(r, s);
                else
                    rl__dheap_push(r, h, count, by_finish, s);
                live++;
            } else if (by_finish && rnic_prng_below(&p, 8) == 0) { /* a random stored packet leaves */
                uint32_t s;
                do
                    s = rnic_prng_below(&p, RL_MAX_DESC);
                while (!used[s]);
                used[s] = 0;
                rl__ready_remove(r, s, 3); /* the slot named; no entry is flow 3's */
                live--;
            } else {
                uint32_t best = RNIC_NONE, got;
                for (i = 0; i < RL_MAX_DESC; i++) {
                    const rl__desc *x, *y;
                    if (!used[i])
                        continue;
                    if (best == RNIC_NONE) {
                        best = i;
                        continue;
                    }
                    x = &r->desc[i];
                    y = &r->desc[best];
                    if (!by_finish) {
                        if (x->start.cycle < y->start.cycle || (x->start.cycle == y->start.cycle && x->start.frac < y->start.frac))
                            best = i;
                    } else if (x->finish.cycle < y->finish.cycle ||
                               (x->finish.cycle == y->finish.cycle &&
                                (x->finish.frac < y->finish.frac || (x->finish.frac == y->finish.frac && x->number < y->number)))) {
                        best = i;
                    }
                }
                got = by_finish ? rl__ready_pop(r) : rl__dheap_pop(r, h, count, by_finish);
                if (by_finish) {
                    CHECK_EQ(got, best); /* a total order: exactly the scan's pick */
                } else {             /* equal starts may leave in any order */
                    CHECK_EQ(r->desc[got].start.cycle, r->desc[best].start.cycle);
                    CHECK_EQ(r->desc[got].start.frac, r->desc[best].start.frac);
                }
                CHECK(used[got]);
                used[got] = 0;
                live--;
            }
            CHECK_EQ(*count, live);
        }
    }
}

/* 64 K QPs, all active at once: two WQEs each of random size, random rates (Phi >> 1); the
 * engine must deliver every byte exactly once, in order within each QP, with matching
 * statistics, and end idle. */
enum { BIG_QPS = 65536, BIG_WQES = 2 };
static uint32_t big_len[BIG_QPS][BIG_WQES];

static uint32_t big_source(void *user, uint32_t qp, uint32_t seq, rnic_work *out, uint32_t max)
{
    uint32_t i, n = 0;
    (void)user;
    for (i = 0; i < max && seq + i < BIG_WQES; i++, n++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].tag = qp * BIG_WQES + seq + i;
        out[i].len = big_len[qp][seq + i];
        out[i].addr = (uint64_t)qp << 32 | (uint64_t)(seq + i) << 24;
    }
    return n;
}

static uint32_t next_wqe[BIG_QPS], next_off[BIG_QPS];
static uint64_t big_got, big_packets;

/* Pop every TX record and check it continues its QP's byte stream. */
static void big_drain(rl *r, uint32_t mtu)
{
    rnic_work tx;
    while (rl_pop_tx(r, &tx) == RNIC_OK) {
        uint32_t qp = tx.flow;
        CHECK(qp < BIG_QPS);
        if (qp >= BIG_QPS || next_wqe[qp] >= BIG_WQES) {
            CHECK(!"a packet beyond what the QP posted");
            return;
        }
        CHECK_EQ(tx.tag, qp * BIG_WQES + next_wqe[qp]);
        CHECK_EQ(tx.index, next_wqe[qp]);
        CHECK_EQ(tx.offset, next_off[qp]);
        CHECK_EQ(tx.addr, ((uint64_t)qp << 32 | (uint64_t)next_wqe[qp] << 24) + next_off[qp]);
        CHECK_EQ(!!(tx.flags & RNIC_WORK_FIRST), next_off[qp] == 0);
        CHECK(tx.len >= 1 && tx.len <= mtu);
        next_off[qp] += tx.len;
        CHECK_EQ(!!(tx.flags & RNIC_WORK_LAST), next_off[qp] == big_len[qp][next_wqe[qp]]);
        if (tx.flags & RNIC_WORK_LAST) {
            next_wqe[qp]++;
            next_off[qp] = 0;
        }
        big_got += tx.len;
        big_packets++;
    }
}

static void test_64k_qps_deliver_everything(void)
{
    static unsigned char big_mem[16u << 20];
    rl_config c;
    rl *r = &engine;
    rnic_prng p;
    uint64_t posted = 0, guard = 0;
    uint32_t i, w;
    rl_config_default(&c);
    c.max_flows = BIG_QPS;
    c.source = big_source;
    c.tx_depth = 256;
    CHECK(rl_mem_size(&c) <= sizeof big_mem);
    if (rl_init(r, &c, big_mem, sizeof big_mem) != RNIC_OK) {
        CHECK(!"rl_init");
        return;
    }
    rnic_prng_seed(&p, 0x64c0u);
    for (i = 0; i < BIG_QPS; i++)
        for (w = 0; w < BIG_WQES; w++) {
            big_len[i][w] = (uint32_t)rnic_prng_range(&p, 1, 3u * c.mtu);
            posted += big_len[i][w];
        }
    /* a rate and a doorbell per QP, all written at once: registers never refuse */
    for (i = 0; i < BIG_QPS; i++) {
        CHECK(rl_set_rate(r, i, rnic_prng_log_range(&p, 100000000ull, 10000000000ull)) == RNIC_OK);
        CHECK(rl_doorbell(r, i) == RNIC_OK);
    }
    while (rl_next_event(r) != RNIC_NEVER && guard++ < 100000000u && !TEST_FAILS()) {
        rl_advance(r, 4096);
        big_drain(r, c.mtu);
    }
    CHECK_EQ(big_got, posted);
    CHECK_EQ(rl_get_stats(r)->bytes, posted);
    CHECK_EQ(rl_get_stats(r)->packets, big_packets);
    CHECK_EQ(rnic_err_total(&rl_get_stats(r)->errors), 0);
    for (i = 0; i < BIG_QPS && !TEST_FAILS(); i++) {
        CHECK_EQ(next_wqe[i], BIG_WQES);
        CHECK_EQ(rl_get_flow_stats(r, i)->bytes, (uint64_t)big_len[i][0] + big_len[i][1]);
    }
    CHECK_EQ(rl_phi_q32(r), 0); /* every QP went idle again */
    printf("  %" PRIu64 " packets, %" PRIu64 " bytes, %" PRIu64 " cycles, max Phi %.1f\n", big_packets, big_got,
           rl_now(r), (double)rl_get_stats(r)->max_phi_q32 / 4294967296.0);
}

/* ---- the engine contract's edges ---- */

/* Flow f's WQEs: an endless backlog of mixed sizes, the tag naming (flow, index). */
static uint32_t mixed_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user;
    for (i = 0; i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].len = (flow * 7777u + (index + i) * 1313u) % 9000u + 1u;
        out[i].tag = (uint64_t)flow << 32 | (index + i);
        out[i].addr = 0x1000000ull * flow;
        out[i].op = 3;
    }
    return max;
}

static unsigned char wrap_mem[2][1u << 20];
static rl wrap_eng[2];

static rl *wrap_engine(int which, uint64_t start, uint32_t tx_depth)
{
    rl_config c;
    rl_config_default(&c);
    c.max_flows = 16;
    c.source = mixed_source;
    c.start_cycle = start;
    c.tx_depth = tx_depth;
    c.pcie_latency_ns = 400; /* L = 100 cycles at the default 250 MHz */
    if (rl_mem_size(&c) > sizeof wrap_mem[which] ||
        rl_init(&wrap_eng[which], &c, wrap_mem[which], sizeof wrap_mem[which]) != RNIC_OK)
        return NULL;
    return &wrap_eng[which];
}

/* The same inputs to an engine started at 0 (ticked) and one started 40,000 cycles before
 * 2^64 (advanced in random chunks across the wrap): every record and counter the same, every
 * cycle shifted by the start. */
/* A source that answers more WQEs than asked: the engine takes the ask and counts it; every
 * packet still leaves once, in order. */
static uint32_t overrun_src(void *user, uint32_t qp, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user, (void)qp;
    for (i = 0; i < max && index + i < 40; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].len = 1024;
        out[i].tag = index + i;
    }
    return i == max ? max + 3u : i; /* claims three more than it was asked for */
}

static void test_source_overrun(void)
{
    rl_config c;
    rnic_work w;
    uint32_t next = 0;
    rl_config_default(&c);
    c.max_flows = 4;
    c.source = overrun_src;
    CHECK(rl_mem_size(&c) <= sizeof mem_buf);
    CHECK_EQ(rl_init(&engine, &c, mem_buf, sizeof mem_buf), RNIC_OK);
    CHECK_EQ(rl_doorbell(&engine, 2), RNIC_OK);
    while (rl_now(&engine) < 200000) {
        rl_advance_to(&engine, 200000);
        while (rl_pop_tx(&engine, &w) == RNIC_OK) {
            CHECK_EQ(w.tag, next);
            next++;
        }
    }
    CHECK_EQ(next, 40);
    CHECK(rl_get_stats(&engine)->source_overrun >= 40u / c.fetch_wqes);
    /* the clamp: never more WQEs taken than asked for */
    CHECK(rl_get_stats(&engine)->wqes_fetched <= rl_get_stats(&engine)->fetches * c.fetch_wqes);
}

static void test_wrap_2_64(void)
{
    uint64_t seed = test_seed(0x2f64u);
    uint32_t run;
    for (run = 0; run < 6 && !TEST_FAILS(); run++) {
        uint64_t startB = UINT64_MAX - 40000u + run * 977u, t = 0, end = 120000, compared = 0;
        rl *A = wrap_engine(0, 0, 4), *B = wrap_engine(1, startB, 4);
        rnic_prng p;
        bool crossed = false;
        CHECK(A && B);
        if (!A || !B)
            return;
        rnic_prng_seed(&p, rnic_splitmix64(&seed));
        while (t < end && !TEST_FAILS()) {
            uint64_t chunk = rnic_prng_range(&p, 1, 3000), i, nA, nB;
            rnic_work a, b;
            if (rnic_prng_chance(&p, 1, 2)) { /* register writes, to both at the same relative cycle */
                uint32_t f = (uint32_t)rnic_prng_below(&p, 16);
                uint64_t bps = rnic_prng_chance(&p, 1, 8) ? 0 : rnic_prng_log_range(&p, 100000000ull, 100000000000ull);
                switch (rnic_prng_below(&p, 3)) {
                case 0: CHECK(rl_doorbell(A, f) == RNIC_OK && rl_doorbell(B, f) == RNIC_OK); break;
                case 1: CHECK(rl_set_rate(A, f, bps) == RNIC_OK && rl_set_rate(B, f, bps) == RNIC_OK); break;
                default: {
                    bool on = rnic_prng_chance(&p, 3, 4);
                    CHECK(rl_set_credit(A, f, on) == RNIC_OK && rl_set_credit(B, f, on) == RNIC_OK);
                }
                }
            }
            nA = rl_next_event(A);
            nB = rl_next_event(B);
            if ((nA == RNIC_NEVER) != (nB == RNIC_NEVER) || (nA != RNIC_NEVER && nA - 0 != nB - startB)) {
                if (!(nB == RNIC_NEVER && nA == UINT64_MAX - startB)) { /* an event exactly at 2^64 - 1 */
                    printf("  wrap run %u at +%" PRIu64 ": next_event %" PRIu64 " vs %" PRIu64 " (shifted)\n",
                           (unsigned)run, t, nA, nB - startB);
                    CHECK(!"rl_next_event differs across the wrap");
                }
            }
            for (i = 0; i < chunk; i++)
                rl_tick(A);
            for (i = 0; i < chunk;)
                i += rl_advance(B, chunk - i); /* going on past a full port is what ticking does */
            t += chunk;
            CHECK_EQ(rl_now(A), t);
            CHECK_EQ(rl_now(B), startB + t);
            crossed |= rl_now(B) < startB;
            for (;;) {
                rnic_err ea = rl_pop_tx(A, &a), eb = rl_pop_tx(B, &b);
                CHECK_EQ(ea, eb);
                if (ea != RNIC_OK || eb != RNIC_OK)
                    break;
                b.cycle -= startB;
                if (memcmp(&a, &b, sizeof a) != 0) {
                    printf("  wrap run %u: record %" PRIu64 " differs (cycle %" PRIu64 " vs %" PRIu64 ", flow %u vs %u)\n",
                           (unsigned)run, compared, a.cycle, b.cycle, (unsigned)a.flow, (unsigned)b.flow);
                    CHECK(!"a record differs across the wrap");
                    break;
                }
                compared++;
            }
        }
        CHECK(crossed);
        CHECK(compared > 100);
        {
            rl_stats sa = *rl_get_stats(A), sb = *rl_get_stats(B);
            CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        }
        if (run == 0)
            printf("  %" PRIu64 " records identical across the wrap (started at 2^64 - %" PRIu64 ")\n", compared,
                   (uint64_t)0 - startB);
    }
}

/* The case: flows at 1, 10 and 40 Gb/s, 1 ms asked of rl_advance at once. It stops
 * when the TX port fills; a loop that drains and calls again gets every rate. */
static void test_advance_stops_at_full_port(void)
{
    rl *r = wrap_engine(0, 0, 64);
    rnic_work w;
    uint64_t bytes[3] = { 0, 0, 0 }, end = 250000, first;
    static const uint64_t rate[3] = { 1000000000ull, 10000000000ull, 40000000000ull };
    uint32_t f, calls = 0;
    if (!r)
        return;
    for (f = 0; f < 3; f++) {
        CHECK(rl_set_rate(r, f, rate[f]) == RNIC_OK);
        CHECK(rl_doorbell(r, f) == RNIC_OK);
    }
    first = rl_advance(r, end);
    CHECK(first < end);
    CHECK_EQ(rl_peek_tx(r, &w), RNIC_OK);
    CHECK_EQ(r->tx.count, 64u); /* it stopped right after the tick that filled the port */
    CHECK_EQ(rl_advance(r, 0), 0);
    do {
        while (rl_pop_tx(r, &w) == RNIC_OK)
            bytes[w.flow] += w.len;
        calls++;
    } while (rl_now(r) < end && rl_advance_to(r, end) > 0);
    while (rl_pop_tx(r, &w) == RNIC_OK)
        bytes[w.flow] += w.len;
    CHECK_EQ(rl_now(r), end);
    for (f = 0; f < 3; f++) {
        uint64_t due = rate[f] / 8u / 1000u; /* bytes in 1 ms */
        printf("  flow %u: %" PRIu64 " B in 1 ms (%" PRIu64 " due)\n", (unsigned)f, bytes[f], due);
        /* within 1 % and one packet (the one at the window's edge) */
        CHECK(bytes[f] + due / 100u + 4096u >= due && bytes[f] <= due + due / 100u + 4096u);
    }
    printf("  first call ran %" PRIu64 " of %" PRIu64 " cycles; %u calls in all\n", first, end, (unsigned)calls);
}

typedef struct trace_count {
    uint64_t by_kind[32], wrong_engine, apply_cycle[8];
    uint32_t apply_id[8], napply;
} trace_count;

static void count_event(void *user, const rnic_trace_event *ev)
{
    trace_count *t = (trace_count *)user;
    t->by_kind[ev->kind < 32 ? ev->kind : 31]++;
    t->wrong_engine += ev->engine != 77;
    if (ev->kind == RL_TRACE_APPLY && t->napply < 8) {
        t->apply_cycle[t->napply] = ev->cycle;
        t->apply_id[t->napply++] = ev->id;
    }
}

/* Registers: coalesced, last write wins, applied one flow per cycle in FIFO order; and the
 * trace sees every port operation. */
static void test_registers_and_trace(void)
{
    static unsigned char mem[1u << 20];
    static rl eng;
    trace_count tc;
    rl_config c;
    rnic_work w;
    uint64_t popped = 0, writes = 0;
    rl_config_default(&c);
    c.max_flows = 16;
    c.source = mixed_source;
    c.trace = count_event;
    c.trace_user = &tc;
    c.trace_id = 77;
    memset(&tc, 0, sizeof tc);
    CHECK(rl_init(&eng, &c, mem, sizeof mem) == RNIC_OK);
    CHECK(rl_set_rate(&eng, 3, 5000000000ull) == RNIC_OK);
    CHECK(rl_doorbell(&eng, 1) == RNIC_OK);
    CHECK(rl_set_rate(&eng, 3, 20000000000ull) == RNIC_OK); /* last write wins */
    CHECK(rl_doorbell(&eng, 3) == RNIC_OK);
    CHECK(rl_doorbell(&eng, 3) == RNIC_OK); /* rung twice before the EMUX: one doorbell */
    CHECK(rl_set_rate(&eng, 1, 1000000000000ull) == RNIC_OK); /* above the link: clamped */
    CHECK(rl_doorbell(&eng, 99) == RNIC_ENOENT);
    writes = 6;
    CHECK_EQ(rl_get_stats(&eng)->coalesced, 2);
    CHECK_EQ(rl_get_stats(&eng)->rate_clamped, 1);
    CHECK_EQ(rl_next_event(&eng), 0);
    rl_tick(&eng); /* flow 3 first: it was written first */
    CHECK_EQ(rl_get_stats(&eng)->doorbells, 1);
    CHECK_EQ(rl_get_stats(&eng)->rate_updates, 1);
    CHECK_EQ(rl_phi_q32(&eng), ((uint64_t)1 << 32) / 5u); /* 20 Gb/s of 100: Phi = 0.2 in Q32.32 */
    rl_tick(&eng); /* then flow 1: its doorbell and its clamped rate (the link) */
    CHECK_EQ(rl_get_stats(&eng)->doorbells, 2);
    CHECK_EQ(rl_phi_q32(&eng), ((uint64_t)12 << 32) / 10u);
    CHECK_EQ(tc.napply, 2);
    CHECK(tc.apply_id[0] == 3 && tc.apply_cycle[0] == 0 && tc.apply_id[1] == 1 && tc.apply_cycle[1] == 1);
    while (rl_now(&eng) < 100000) {
        rl_advance_to(&eng, 100000);
        while (rl_pop_tx(&eng, &w) == RNIC_OK) {
            CHECK_EQ(w.tag >> 32, w.flow);
            CHECK_EQ((uint32_t)w.tag, w.index);
            CHECK_EQ(w.op, 3);
            popped++;
        }
    }
    CHECK(rl_pop_tx(&eng, NULL) == RNIC_EINVAL);
    CHECK_EQ(tc.by_kind[RNIC_TRACE_OUT], rl_get_stats(&eng)->packets);
    CHECK_EQ(tc.by_kind[RNIC_TRACE_POP], popped);
    CHECK_EQ(tc.by_kind[RNIC_TRACE_PUSH], writes);
    CHECK_EQ(tc.by_kind[RNIC_TRACE_RATE], 3);
    CHECK_EQ(tc.by_kind[RNIC_TRACE_REFUSE], 2); /* the unknown flow, the NULL pop */
    CHECK(tc.by_kind[RL_TRACE_FETCH] >= rl_get_stats(&eng)->fetches); /* some still in flight */
    CHECK_EQ(tc.by_kind[RL_TRACE_ROUND], rl_get_stats(&eng)->fetches);
    CHECK(tc.by_kind[RL_TRACE_RESCHEDULE] > 0);
    CHECK_EQ(tc.wrong_engine, 0);
    CHECK(popped > 100);
    /* tracing off: not one event reaches the counter */
    c.trace = NULL;
    CHECK(rl_init(&eng, &c, mem, sizeof mem) == RNIC_OK);
    CHECK(rl_doorbell(&eng, 1) == RNIC_OK);
    rl_advance(&eng, 10000);
    CHECK(rl_get_stats(&eng)->packets > 0);
    CHECK_EQ(eng.trace.events, 0);
}

/* The trace layout of docs/engine_contract.md: OUT and POP carry the record's index and len,
 * REFUSE the value written and the error. */
typedef struct trace_keep {
    rnic_trace_event out[64], pop[64], refuse[4];
    uint32_t nout, npop, nrefuse;
} trace_keep;
static void keep_event(void *user, const rnic_trace_event *ev)
{
    trace_keep *t = (trace_keep *)user;
    if (ev->kind == RNIC_TRACE_OUT && t->nout < 64)
        t->out[t->nout++] = *ev;
    if (ev->kind == RNIC_TRACE_POP && t->npop < 64)
        t->pop[t->npop++] = *ev;
    if (ev->kind == RNIC_TRACE_REFUSE && t->nrefuse < 4)
        t->refuse[t->nrefuse++] = *ev;
}

/* rl_flow_state: the registers and counters of a flow, as written and as sent; refusals counted. */
static void test_flow_state_and_trace_layout(void)
{
    static unsigned char mem[1u << 20];
    static rl eng;
    static trace_keep tk;
    rl_config c;
    rl_flow_view v;
    rnic_work w[64];
    uint32_t n = 0, i;
    uint64_t bytes = 0, before;
    rl_config_default(&c);
    c.max_flows = 16;
    c.source = mixed_source;
    c.trace = keep_event;
    c.trace_user = &tk;
    memset(&tk, 0, sizeof tk);
    CHECK(rl_init(&eng, &c, mem, sizeof mem) == RNIC_OK);
    CHECK(rl_flow_state(&eng, 3, &v) == RNIC_OK);
    CHECK(v.state == RL_FLOW_IDLE && v.rate_bps == c.link_bps && v.packets == 0 && v.pending == 0); /* reset: the link rate */
    CHECK(rl_set_rate(&eng, 3, 20000000000ull) == RNIC_OK);
    CHECK(rl_set_credit(&eng, 3, true) == RNIC_OK);
    CHECK(rl_doorbell(&eng, 3) == RNIC_OK);
    CHECK(rl_flow_state(&eng, 3, &v) == RNIC_OK); /* written, not yet applied by the EMUX */
    CHECK_EQ(v.pending, 7);
    CHECK_EQ(v.pending_rate_bps, 20000000000ull);
    CHECK_EQ(v.rate_bps, c.link_bps);
    while (rl_now(&eng) < 20000 && n < 64) {
        rl_advance_to(&eng, 20000);
        while (n < 64 && rl_pop_tx(&eng, &w[n]) == RNIC_OK)
            bytes += w[n++].len;
    }
    CHECK(n > 4);
    CHECK(rl_flow_state(&eng, 3, &v) == RNIC_OK);
    CHECK_EQ(v.pending, 0);
    CHECK_EQ(v.rate_bps, 20000000000ull);
    CHECK(v.credit && !v.paused && v.state != RL_FLOW_IDLE);
    CHECK_EQ(v.packets, rl_get_flow_stats(&eng, 3)->packets);
    CHECK_EQ(v.bytes, rl_get_flow_stats(&eng, 3)->bytes);
    CHECK(v.bytes >= bytes);
    /* every record popped: an OUT and a POP event with its index and len */
    CHECK(tk.npop >= n && tk.nout >= n);
    for (i = 0; i < n && i < tk.npop; i++) {
        CHECK_EQ(tk.pop[i].id, w[i].flow);
        CHECK_EQ(tk.pop[i].a, w[i].index);
        CHECK_EQ(tk.pop[i].b, w[i].len);
        CHECK_EQ(tk.out[i].a, w[i].index);
        CHECK_EQ(tk.out[i].b, w[i].len);
        CHECK_EQ(tk.out[i].cycle, w[i].cycle);
    }
    /* refusals: counted once each, traced with the value and the error */
    before = rnic_err_total(&rl_get_stats(&eng)->errors);
    CHECK(rl_flow_state(&eng, 16, &v) == RNIC_ENOENT);
    CHECK(rl_flow_state(&eng, 3, NULL) == RNIC_EINVAL);
    CHECK(rl_flow_state(NULL, 3, &v) == RNIC_EINVAL);
    CHECK(rl_set_rate(&eng, 99, 12345) == RNIC_ENOENT);
    CHECK_EQ(rnic_err_total(&rl_get_stats(&eng)->errors), before + 3u);
    CHECK_EQ(rl_get_stats(&eng)->errors.by_cause[RNIC_ENOENT], 2);
    CHECK(tk.nrefuse == 3 && tk.refuse[2].id == 99 && tk.refuse[2].a == 12345 && tk.refuse[2].b == RNIC_ENOENT);
}

int main(void)
{
    RUN(test_timeline_order);
    RUN(test_descriptor_heaps);
    RUN(test_registers_and_trace);
    RUN(test_flow_state_and_trace_layout);
    RUN(test_advance_stops_at_full_port);
    RUN(test_wrap_2_64);
    RUN(test_source_overrun);
    RUN(test_64k_qps_deliver_everything);
    return test_summary();
}
