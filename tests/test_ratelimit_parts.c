/* The rate limiter's internal ordered structures against brute-force references:
 * - the timeline (radix heap standing in for the P-heap): pops in (key, insertion) order,
 *   including keys that settle below the current base ("late") and ties;
 * - the descriptor heaps: waiting by start, eligible by (finish, descriptor number).
 * The engine's static functions are reachable because this file implements the header. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

static uint32_t no_wqes(void *user, uint32_t qp, uint32_t seq, rl_wqe *out, uint32_t max)
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
    c.max_qps = max_qps;
    c.fetch = no_wqes;
    if (rl_mem_size(&c) > sizeof mem_buf || rl_init(&engine, &c, mem_buf, sizeof mem_buf) != RNIC_OK)
        return NULL;
    return &engine;
}

/* Key generator: a drifting floor, with ties, late keys, far keys and the top of the range. */
static uint64_t draw_key(rnic_prng *p, uint64_t floor_key)
{
    uint64_t k;
    switch (rnic_prng_below(p, 8)) {
    case 0: return floor_key;                                        /* tie with the floor */
    case 1: return floor_key - rnic_prng_below(p, 64);               /* late: below the base */
    case 2: return floor_key + rnic_prng_below(p, 4);                /* near ties */
    case 3: return floor_key + (rnic_prng_next(p) >> rnic_prng_below(p, 64)); /* any distance */
    case 4: return UINT64_MAX - rnic_prng_below(p, 3);              /* the top of the range */
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
    uint32_t round, n_ref, i, ops = 0, lates = 0, refills = 0;
    rnic_prng_seed(&p, 0x71e11e5u);
    for (round = 0; round < 40 && !TEST_FAILS(); round++) {
        rl *r = make_engine(N);
        uint64_t floor_key = round % 3 == 0 ? 0 : rnic_prng_next(&p) >> (round % 5), ins = 0;
        uint32_t steps = 20000u, bias = rnic_prng_below(&p, 3); /* grow, balanced, shrink */
        CHECK(r != NULL);
        if (!r)
            return;
        memset(in, 0, sizeof in);
        n_ref = 0;
        while (steps-- && !TEST_FAILS()) {
            bool insert = n_ref == 0 || (n_ref < N && rnic_prng_below(&p, 10) < 5u + (bias == 0 ? 3u : 0u) - (bias == 2 ? 3u : 0u));
            if (insert) {
                uint32_t qp;
                do
                    qp = rnic_prng_below(&p, N);
                while (in[qp]);
                in[qp] = 1;
                r->qps[qp].resched = draw_key(&p, floor_key);
                lates += r->heap_count && r->qps[qp].resched < r->tl_base;
                rl__tl_insert(r, qp);
                ref[n_ref].key = r->qps[qp].resched;
                ref[n_ref].ins = ins++;
                ref[n_ref].qp = qp;
                n_ref++;
            } else {
                uint32_t best = 0, got, min_qp = rl__tl_peek(r);
                for (i = 1; i < n_ref; i++)
                    if (ref[i].key < ref[best].key || (ref[i].key == ref[best].key && ref[i].ins < ref[best].ins))
                        best = i;
                CHECK_EQ(min_qp, ref[best].qp);
                refills += r->tl_head[0] != RNIC_NONE && r->tl_next[r->tl_head[0]] == RNIC_NONE;
                got = rl__tl_pop(r);
                CHECK_EQ(got, ref[best].qp);
                in[got] = 0;
                if (ref[best].key > floor_key && ref[best].key < UINT64_MAX - 100u)
                    floor_key = ref[best].key; /* keys drift upwards as in the engine */
                ref[best] = ref[--n_ref];
            }
            CHECK_EQ(r->heap_count, n_ref);
            ops++;
        }
    }
    printf("  %u operations, %u late inserts, %u bucket-0 refills\n", ops, lates, refills);
    CHECK(lates > 1000u);
    CHECK(refills > 1000u);
}

/* Descriptor heaps: random pushes of random (start, finish, number), pops against a scan. */
static void test_descriptor_heaps(void)
{
    rnic_prng p;
    uint32_t round, i;
    rnic_prng_seed(&p, 0xde5c0u);
    for (round = 0; round < 200 && !TEST_FAILS(); round++) {
        rl *r = make_engine(4);
        bool by_finish = round & 1u;
        uint16_t *h = by_finish ? r->desc_ready : r->desc_waiting;
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
                rl__dheap_push(r, h, count, by_finish, s);
                live++;
            } else {
                uint32_t best = RNIC_NONE, got;
                for (i = 0; i < RL_MAX_DESC; i++) {
                    const rl_desc *x, *y;
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
                got = rl__dheap_pop(r, h, count, by_finish);
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

static uint32_t big_source(void *user, uint32_t qp, uint32_t seq, rl_wqe *out, uint32_t max)
{
    uint32_t i, n = 0;
    (void)user;
    for (i = 0; i < max && seq + i < BIG_WQES; i++, n++) {
        out[i].id = qp * BIG_WQES + seq + i;
        out[i].len = big_len[qp][seq + i];
    }
    return n;
}

static uint32_t next_wqe[BIG_QPS], next_off[BIG_QPS];
static uint64_t big_got, big_packets;

/* Pop every TX record and check it continues its QP's byte stream. */
static void big_drain(rl *r, uint32_t mtu)
{
    rl_tx tx;
    while (rl_pop_tx(r, &tx) == RNIC_OK) {
        uint32_t qp = tx.qp;
        CHECK(qp < BIG_QPS);
        if (qp >= BIG_QPS || next_wqe[qp] >= BIG_WQES) {
            CHECK(!"a packet beyond what the QP posted");
            return;
        }
        CHECK_EQ(tx.wqe_id, qp * BIG_WQES + next_wqe[qp]);
        CHECK_EQ(tx.offset, next_off[qp]);
        CHECK(tx.len >= 1 && tx.len <= mtu);
        next_off[qp] += tx.len;
        CHECK_EQ(tx.last, next_off[qp] == big_len[qp][next_wqe[qp]]);
        if (tx.last) {
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
    c.max_qps = BIG_QPS;
    c.fetch = big_source;
    c.tx_capacity = 256;
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
    /* a rate and a doorbell per QP through the bounded EMUX port, ticking when it is full */
    for (i = 0; i < 2u * BIG_QPS && !TEST_FAILS();) {
        uint32_t q = i / 2u;
        rnic_err e = i % 2u ? rl_push_doorbell(r, q)
                            : rl_push_rate(r, q, rnic_prng_log_range(&p, 100000000ull, 10000000000ull));
        if (e == RNIC_OK)
            i++;
        else if (e == RNIC_EBUSY)
            rl_advance(r, 1);
        else
            CHECK_EQ(e, RNIC_OK);
        big_drain(r, c.mtu);
    }
    while (rl_next_event(r) != RL_NEVER && guard++ < 100000000u && !TEST_FAILS()) {
        rl_advance(r, 4096);
        big_drain(r, c.mtu);
    }
    CHECK_EQ(big_got, posted);
    CHECK_EQ(rl_get_stats(r)->bytes, posted);
    CHECK_EQ(rl_get_stats(r)->packets, big_packets);
    CHECK_EQ(rnic_err_total(&rl_get_stats(r)->errors), 0);
    for (i = 0; i < BIG_QPS && !TEST_FAILS(); i++) {
        CHECK_EQ(next_wqe[i], BIG_WQES);
        CHECK_EQ(rl_get_qp_stats(r, i)->bytes, (uint64_t)big_len[i][0] + big_len[i][1]);
    }
    CHECK_EQ(rl_phi_q32(r), 0); /* every QP went idle again */
    printf("  %" PRIu64 " packets, %" PRIu64 " bytes, %" PRIu64 " cycles, max Phi %.1f\n", big_packets, big_got,
           rl_now(r), (double)rl_get_stats(r)->max_phi_q32 / 4294967296.0);
}

int main(void)
{
    RUN(test_timeline_order);
    RUN(test_descriptor_heaps);
    RUN(test_64k_qps_deliver_everything);
    return test_summary();
}
