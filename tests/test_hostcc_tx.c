/* hcc_tx: the RHCC sender controller (paper §3.3 / §4; docs/hostcc_tx.md).
 * Eq. 1 against double-precision references (the quantised constants, and the paper's real
 * alpha = beta = 0.0005), the Q0.32 constant, probe cadence, Eq. 2 and the rate records, the
 * clamps, every bad input with its code / counter and the state unchanged, back-pressure,
 * fast-forward = ticking (across the 2^64 wrap), trace events and no allocation. */

#include <math.h>
#include "test.h" /* <stdlib.h> etc. first: the macros below then touch only the engine's code */

/* Allocation trap: any malloc/calloc/realloc/free in the engine's source would call these. */
static unsigned long hcc_tx_test_allocs;
static void *hcc_tx_test_trap(void)
{
    hcc_tx_test_allocs++;
    return (void *)0;
}
#define malloc(n) ((void)(n), hcc_tx_test_trap())
#define calloc(n, m) ((void)(n), (void)(m), hcc_tx_test_trap())
#define realloc(p, n) ((void)(p), (void)(n), hcc_tx_test_trap())
#define free(p) ((void)(p), (void)hcc_tx_test_trap())
#define HCC_IMPLEMENTATION
#include "hostcc.h"
static unsigned long test_trap_selfcheck(void)
{
    void *p = malloc(8); /* the trap catches a call made through the macro */
    (void)p;
    return hcc_tx_test_allocs;
}
#undef malloc
#undef calloc
#undef realloc
#undef free

/* ---- helpers ---- */

static uint64_t test_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (test_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t rnd_range(uint64_t lo, uint64_t hi) { return lo + rnd() % (hi - lo + 1u); }

typedef struct env {
    hcc_tx c;
    hcc_tx_config cfg;
    void *mem;
    size_t size;
} env;

static void env_init(env *e, const hcc_tx_config *cfg)
{
    e->cfg = *cfg;
    e->size = hcc_tx_mem_size(cfg);
    CHECK(e->size > 0);
    e->mem = malloc(e->size);
    CHECK(e->mem != NULL);
    memset(e->mem, 0xa5, e->size); /* init must not rely on zeroed memory */
    CHECK_EQ(hcc_tx_init(&e->c, cfg, e->mem, e->size), RNIC_OK);
}
static void env_default(env *e)
{
    hcc_tx_config cfg;
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 16;
    env_init(e, &cfg);
}
static void env_free(env *e) { free(e->mem); }

/* Drain every rate record; return how many. */
static unsigned drain_rates(hcc_tx *c, rnic_work *last)
{
    rnic_work w;
    unsigned n = 0;
    while (hcc_tx_pop_rate(c, &w) == RNIC_OK) {
        n++;
        if (last)
            *last = w;
    }
    return n;
}
static unsigned drain_probes(hcc_tx *c)
{
    rnic_work w;
    unsigned n = 0;
    while (hcc_tx_pop_probe(c, &w) == RNIC_OK)
        n++;
    return n;
}

/* The flow calls with plain arguments (hcc_tx_flow_open takes a config, the sent port a record,
 * hcc_tx_flow_state fills a view). */
static rnic_err tx_open(hcc_tx *c, uint32_t flow, uint64_t init_rate_bps)
{
    hcc_tx_flow_config fc;
    hcc_tx_flow_config_default(&fc);
    fc.init_rate_bps = init_rate_bps;
    return hcc_tx_flow_open(c, flow, &fc);
}
static rnic_err tx_sent(hcc_tx *c, uint32_t flow, uint32_t bytes)
{
    rnic_work w;
    memset(&w, 0, sizeof w);
    w.flow = flow;
    w.len = bytes;
    return hcc_tx_push_sent(c, &w);
}
static hcc_tx_flow_view tx_flow(const hcc_tx *c, uint32_t flow)
{
    hcc_tx_flow_view v;
    memset(&v, 0, sizeof v);
    CHECK_EQ(hcc_tx_flow_state(c, flow, &v), RNIC_OK);
    return v;
}

/* Produce one probe of `flow` (send probe_bytes, tick, pop it) and return its number. */
static uint32_t one_probe(hcc_tx *c, uint32_t flow)
{
    rnic_work w;
    CHECK_EQ(tx_sent(c, flow, c->cfg.probe_bytes), RNIC_OK);
    hcc_tx_tick(c);
    memset(&w, 0, sizeof w);
    CHECK_EQ(hcc_tx_pop_probe(c, &w), RNIC_OK);
    CHECK_EQ(w.flow, flow);
    return w.index;
}
static rnic_err ack(hcc_tx *c, uint32_t flow, uint32_t index, uint64_t rx_ns, uint64_t ack_ns)
{
    rnic_work a;
    memset(&a, 0, sizeof a);
    a.flow = flow;
    a.index = index;
    a.addr = rx_ns;
    a.raddr = ack_ns;
    return hcc_tx_push_probe_ack(c, &a);
}

/* ---- the constant and the config ---- */

static void test_constant_and_config(void)
{
    hcc_tx_config cfg;
    const char *field = "x";
    env e;
    /* 0.0005 per ns x 2^32 = 2147483.648 -> 2147484 (nearest) */
    CHECK_EQ((uint64_t)llround(0.0005 * 4294967296.0), 2147484u);
    CHECK_EQ(HCC_TX_ALPHA_Q32, 2147484u);
    hcc_tx_config_default(&cfg);
    CHECK_EQ(cfg.alpha_q32, (uint64_t)llround(0.0005 * 4294967296.0));
    CHECK_EQ(cfg.beta_q32, (uint64_t)llround(0.0005 * 4294967296.0));
    CHECK(fabs((double)cfg.alpha_q32 / 4294967296.0 - 0.0005) / 0.0005 < 1.7e-7); /* the constant's error */
    CHECK_EQ(cfg.probe_bytes, 32768u);
    CHECK_EQ(cfg.d_thr_ns, 200u);
    CHECK_EQ(cfg.clock_hz, 250000000u);
    CHECK_EQ(cfg.link_bps, 100000000000ull);
    CHECK_EQ(hcc_tx_config_check(&cfg, &field), RNIC_OK);
    CHECK(field == NULL);
#define BAD(stmt, name)                                                                 \
    do {                                                                                \
        hcc_tx_config b = cfg;                                                          \
        stmt;                                                                           \
        field = NULL;                                                                   \
        CHECK_EQ(hcc_tx_config_check(&b, &field), RNIC_EINVAL);                        \
        CHECK(field != NULL && strcmp(field, name) == 0);                               \
        CHECK_EQ(hcc_tx_mem_size(&b), 0);                                               \
    } while (0)
    BAD(b.clock_hz = 0, "clock_hz");
    BAD(b.link_bps = 0, "link_bps");
    BAD(b.link_bps = 900000000000ull, "link_bps");
    BAD(b.rate_floor_bps = 0, "rate_floor_bps");
    BAD(b.rate_floor_bps = b.link_bps + 1u, "rate_floor_bps");
    BAD(b.max_flows = 0, "max_flows");
    BAD(b.probe_bytes = 63, "probe_bytes");
    BAD(b.max_delay_ns = 0, "max_delay_ns");
    BAD(b.max_delay_ns = HCC_TX_MAX_DELAY_NS + 1u, "max_delay_ns");
    BAD(b.d_thr_ns = b.max_delay_ns + 1u, "d_thr_ns");
    BAD(b.alpha_q32 = HCC_TX_MAX_GAIN_Q32 + 1u, "alpha_q32");
    BAD(b.beta_q32 = HCC_TX_MAX_GAIN_Q32 + 1u, "beta_q32");
    BAD(b.rate_depth = 0, "rate_depth");
    BAD(b.probe_depth = 0, "probe_depth");
#undef BAD
    CHECK_EQ(hcc_tx_config_check(NULL, &field), RNIC_EINVAL);
    /* memory */
    {
        size_t need = hcc_tx_mem_size(&cfg);
        uint64_t *mem = (uint64_t *)malloc(need + 16u);
        hcc_tx c;
        CHECK(need > 0);
        CHECK_EQ(hcc_tx_init(&c, &cfg, mem, need - 1u), RNIC_ENOSPC);
        CHECK_EQ(hcc_tx_init(&c, &cfg, (char *)mem + 4, need), RNIC_EINVAL);
        CHECK_EQ(hcc_tx_init(&c, &cfg, NULL, need), RNIC_EINVAL);
        CHECK_EQ(hcc_tx_init(NULL, &cfg, mem, need), RNIC_EINVAL);
        CHECK_EQ(hcc_tx_init(&c, &cfg, mem, need), RNIC_OK);
        /* more flows -> more memory (per-flow state in caller memory) */
        cfg.max_flows *= 2u;
        CHECK(hcc_tx_mem_size(&cfg) > need);
        free(mem);
    }
    env_default(&e);
    CHECK_EQ(hcc_tx_now(&e.c), 0);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    env_free(&e);
}

/* ---- Eq. 1 ---- */

/* One exact step for a known case: R = 2 x 2^32 bps, first ACK with D = 300 ns: D_old = D_cur, so
 * bracket = 2^32 - alpha_q32 x 100 and R' = 2 x (2^32 - 214748400) exactly. */
static void test_eq1_exact_step(void)
{
    env e;
    uint32_t p;
    uint64_t r0 = 2ull << 32;
    env_default(&e);
    CHECK_EQ(tx_open(&e.c, 0, r0), RNIC_OK);
    p = one_probe(&e.c, 0);
    CHECK_EQ(ack(&e.c, 0, p, 1000, 1300), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 0).r_rev, 2u * (4294967296ull - 214748400ull));
    CHECK_EQ(tx_flow(&e.c, 0).d_old, 300);
    /* second: D = 200 (= D_thr), D_old = 300: bracket = 2^32 + beta x 100 */
    p = one_probe(&e.c, 0);
    CHECK_EQ(ack(&e.c, 0, p, 5000, 5200), RNIC_OK);
    /* R'' = floor(2 (2^32 - a)(2^32 + a) / 2^32) = 2^33 - ceil(2 a^2 / 2^32), a = 214748400:
     * 2 a^2 = 92233750605120000 = 21474843 x 2^32 + 2233385472 -> ceil = 21474844 */
    CHECK_EQ(2ull * 214748400ull * 214748400ull, 21474843ull * 4294967296ull + 2233385472ull);
    CHECK_EQ(tx_flow(&e.c, 0).r_rev, (2ull << 32) - 21474844ull);
    CHECK_EQ(e.c.stats.probe_acks, 2);
    env_free(&e);
}

/* Reference models in double. `a`, `b` per ns; the same clamps. */
static double ref_step(double r, double a, double b, double dthr, double dcur, double dold, double lo, double hi)
{
    double br = 1.0 - a * (dcur - dthr) - b * (dcur - dold);
    double n = br <= 0.0 ? 0.0 : r * br;
    return n < lo ? lo : n > hi ? hi : n;
}

/* Random delay sequences on several flows, thousands of steps each, against
 *  (1) a double reference with the engine's constants (alpha_q32 / 2^32): the only difference
 *      is the floor of each step, so the error e obeys |e'| <= |e| x bracket + 1 bps (clamps
 *      never widen it), i.e. relative error <= sum_k 1 / R_k while unclamped (stated in
 *      docs/hostcc_tx.md); <= 1e-6 after 1000 steps for flows that stay at >= 1 Gb/s;
 *  (2) one step of the paper's real arithmetic (alpha = beta = 0.0005 exactly) from the same
 *      R: |R' - R'_real| <= 1 + R x |alpha_q32 / 2^32 - 0.0005| x (|x| + |y|). */
static void test_eq1_against_reference(void)
{
    enum { FLOWS = 8, STEPS = 3000 };
    env e;
    hcc_tx_config cfg;
    double ref[FLOWS], bound[FLOWS], dold[FLOWS], worst_rel = 0, worst_ratio = 0, worst_real = 0;
    double worst_1000_gbps = 0;
    double a, lo, hi, dalpha;
    uint32_t f, s, probe_no[FLOWS];
    int have_old[FLOWS], clamp_hits = 0, unclamped = 0;
    test_rng = 12345;
    hcc_tx_config_default(&cfg);
    cfg.max_flows = FLOWS;
    env_init(&e, &cfg);
    a = (double)cfg.alpha_q32 / 4294967296.0;
    dalpha = fabs(a - 0.0005);
    lo = (double)cfg.rate_floor_bps;
    hi = (double)cfg.link_bps;
    for (f = 0; f < FLOWS; f++) {
        uint64_t init = f < 4 ? rnd_range(20000000000ull, 60000000000ull) : rnd_range(200000000ull, 90000000000ull);
        CHECK_EQ(tx_open(&e.c, f, init), RNIC_OK);
        ref[f] = (double)init;
        bound[f] = 0;
        have_old[f] = 0;
        dold[f] = 0;
        probe_no[f] = 0;
    }
    for (s = 0; s < STEPS && TEST_FAILS() == 0; s++) {
        /* all flows send 32 KB, one tick produces their probes */
        for (f = 0; f < FLOWS; f++)
            CHECK_EQ(tx_sent(&e.c, f, 32768), RNIC_OK);
        hcc_tx_tick(&e.c);
        for (f = 0; f < FLOWS; f++) {
            rnic_work w;
            CHECK_EQ(hcc_tx_pop_probe(&e.c, &w), RNIC_OK);
            CHECK_EQ(w.flow, f);
            CHECK_EQ(w.index, probe_no[f]);
        }
        for (f = 0; f < FLOWS; f++) {
            /* flows 0..3: near D_thr (rarely clamped); 4..5: wide (clamps at both ends);
             * 6..7: random walk of the delay */
            uint64_t d, rx = rnd_range(0, 1ull << 40);
            double r_old = (double)tx_flow(&e.c, f).r_rev, rfix, rreal, x, y, dpo, rel;
            if (f < 4)
                d = rnd_range(160, 240);
            else if (f < 6)
                d = rnd_range(0, 1500);
            else {
                int64_t prev = have_old[f] ? (int64_t)dold[f] : 200;
                int64_t nd = prev + (int64_t)rnd_range(0, 40) - 20;
                d = (uint64_t)(nd < 100 ? 100 : nd > 300 ? 300 : nd);
            }
            dpo = have_old[f] ? dold[f] : (double)d;
            CHECK_EQ(ack(&e.c, f, probe_no[f], rx, rx + d), RNIC_OK);
            probe_no[f]++;
            rfix = (double)tx_flow(&e.c, f).r_rev;
            /* (2) the paper's real arithmetic, one step from the same R */
            x = (double)d - 200.0;
            y = (double)d - dpo;
            rreal = ref_step(r_old, 0.0005, 0.0005, 200.0, (double)d, dpo, lo, hi);
            if (fabs(rfix - rreal) > 1.0 + r_old * dalpha * (fabs(x) + fabs(y)) + r_old * 1e-15)
                CHECK(!"one step differs from the paper's real arithmetic by more than the bound");
            if (fabs(rfix - rreal) / rreal > worst_real)
                worst_real = fabs(rfix - rreal) / rreal;
            /* (1) the running reference */
            ref[f] = ref_step(ref[f], a, a, 200.0, (double)d, dpo, lo, hi);
            if (ref[f] == lo || ref[f] == hi)
                clamp_hits++;
            else
                unclamped++;
            /* |e'| <= |e| max(bracket, 0) + 1 (floor), clamps never widen it */
            {
                double br = 1.0 - a * x - a * y;
                bound[f] = bound[f] * (br > 0 ? br : 0) + 1.0;
            }
            rel = fabs(rfix - ref[f]) / ref[f];
            if (fabs(rfix - ref[f]) > bound[f] * (1.0 + 1e-9) + ref[f] * 1e-12)
                CHECK(!"running error above the stated bound |e'| <= |e| bracket + 1");
            if (rel > worst_rel)
                worst_rel = rel;
            if (fabs(rfix - ref[f]) / bound[f] > worst_ratio)
                worst_ratio = fabs(rfix - ref[f]) / bound[f];
            if (f < 4 && s == 999 && rel > worst_1000_gbps)
                worst_1000_gbps = rel;
            dold[f] = (double)d;
            have_old[f] = 1;
        }
    }
    CHECK_EQ(s, STEPS);
    /* flows 0..3 stay in Gb/s (checked): the headline bound after 1000 steps */
    for (f = 0; f < 4; f++)
        CHECK(ref[f] >= 1e9);
    CHECK(worst_1000_gbps <= 1e-6);
    CHECK(clamp_hits > 100); /* the wide flows did exercise both clamps */
    CHECK(unclamped > 10000);
    CHECK(e.c.stats.rev_floor > 0 && e.c.stats.rev_ceiling > 0 && e.c.stats.bracket_nonpositive > 0);
    printf("  eq1: %d steps x %d flows: max rel err vs quantised-constant reference %.3g (%.3g of the bound), "
           "after 1000 steps (Gb/s flows) %.3g; max one-step rel diff vs real alpha %.3g\n",
           STEPS, FLOWS, worst_rel, worst_ratio, worst_1000_gbps, worst_real);
    env_free(&e);
}

/* The R_rev floor and ceiling. */
static void test_clamps(void)
{
    env e;
    uint32_t p;
    env_default(&e);
    /* floor: D = 2400 ns: bracket = 1 - 0.0005 x 2200 < 0 -> 0 -> min_rate */
    CHECK_EQ(tx_open(&e.c, 1, 5000000000ull), RNIC_OK);
    p = one_probe(&e.c, 1);
    CHECK_EQ(ack(&e.c, 1, p, 10, 2410), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 1).r_rev, e.cfg.rate_floor_bps);
    CHECK_EQ(e.c.stats.bracket_nonpositive, 1);
    CHECK_EQ(e.c.stats.rev_floor, 1);
    /* D = 300 after D_old = 2400: bracket = 2^32 - 100 a + 2100 a = 2^32 + 2000 a (about 2.0) */
    p = one_probe(&e.c, 1);
    CHECK_EQ(ack(&e.c, 1, p, 10, 310), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 1).r_rev,
             (e.cfg.rate_floor_bps * (4294967296ull + 2000ull * HCC_TX_ALPHA_Q32)) >> 32); /* 200000016 */
    CHECK_EQ(tx_flow(&e.c, 1).r_rev, 200000016ull);
    p = one_probe(&e.c, 1);
    CHECK_EQ(ack(&e.c, 1, p, 10, 310), RNIC_OK); /* bracket 0.95: 1.9e8 */
    /* a positive bracket that lands under the floor: D = 1000 after 300: 1 - 0.4 - 0.35 = 0.25 */
    p = one_probe(&e.c, 1);
    CHECK_EQ(ack(&e.c, 1, p, 10, 1010), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 1).r_rev, e.cfg.rate_floor_bps);
    CHECK_EQ(e.c.stats.rev_floor, 2);
    /* ceiling: at line, D = 0 < D_thr: bracket 1.1 -> line */
    CHECK_EQ(tx_open(&e.c, 2, e.cfg.link_bps), RNIC_OK);
    p = one_probe(&e.c, 2);
    CHECK_EQ(ack(&e.c, 2, p, 77, 77), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 2).r_rev, e.cfg.link_bps);
    CHECK_EQ(e.c.stats.rev_ceiling, 1);
    /* R_rev never leaves [min, line] over random delays, including the largest accepted one */
    {
        unsigned i;
        test_rng = 99;
        for (i = 0; i < 2000; i++) {
            uint64_t d = (i % 97) == 0 ? e.cfg.max_delay_ns : rnd_range(0, 3000), r;
            p = one_probe(&e.c, 2);
            CHECK_EQ(ack(&e.c, 2, p, 1000, 1000 + d), RNIC_OK);
            r = tx_flow(&e.c, 2).r_rev;
            CHECK(r >= e.cfg.rate_floor_bps && r <= e.cfg.link_bps);
        }
    }
    /* the largest gains and delays the config allows: no overflow, still clamped */
    {
        env g;
        hcc_tx_config cfg;
        hcc_tx_config_default(&cfg);
        cfg.max_flows = 2;
        cfg.alpha_q32 = cfg.beta_q32 = HCC_TX_MAX_GAIN_Q32;
        cfg.max_delay_ns = HCC_TX_MAX_DELAY_NS;
        cfg.d_thr_ns = HCC_TX_MAX_DELAY_NS;
        env_init(&g, &cfg);
        CHECK_EQ(tx_open(&g.c, 0, cfg.rate_floor_bps), RNIC_OK);
        p = one_probe(&g.c, 0);
        CHECK_EQ(ack(&g.c, 0, p, 0, HCC_TX_MAX_DELAY_NS), RNIC_OK); /* bracket = 1 */
        CHECK_EQ(tx_flow(&g.c, 0).r_rev, cfg.rate_floor_bps);
        p = one_probe(&g.c, 0);
        CHECK_EQ(ack(&g.c, 0, p, 0, 0), RNIC_OK); /* bracket = 1 + 2^28 + 2^28: huge -> line */
        CHECK_EQ(tx_flow(&g.c, 0).r_rev, cfg.link_bps);
        p = one_probe(&g.c, 0);
        CHECK_EQ(ack(&g.c, 0, p, 0, HCC_TX_MAX_DELAY_NS), RNIC_OK); /* bracket = 1 - 2^28: negative */
        CHECK_EQ(tx_flow(&g.c, 0).r_rev, cfg.rate_floor_bps);
        env_free(&g);
    }
    env_free(&e);
}

/* ---- probes ---- */

static void test_probe_cadence(void)
{
    env e;
    uint64_t total[3] = { 0, 0, 0 }, seen[3] = { 0, 0, 0 };
    unsigned i;
    rnic_work w;
    hcc_tx_config cfg;
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 3;
    cfg.probe_depth = 4096;
    env_init(&e, &cfg);
    for (i = 0; i < 3; i++)
        CHECK_EQ(tx_open(&e.c, i, 10000000000ull), RNIC_OK);
    /* boundary: 32767 bytes -> none, one more -> exactly one */
    CHECK_EQ(tx_sent(&e.c, 0, 32767), RNIC_OK);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_probes(&e.c), 0);
    CHECK_EQ(tx_sent(&e.c, 0, 1), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(&e.c), hcc_tx_now(&e.c));
    hcc_tx_tick(&e.c);
    CHECK_EQ(hcc_tx_pop_probe(&e.c, &w), RNIC_OK);
    CHECK_EQ(w.flow, 0);
    CHECK_EQ(w.index, 0);
    CHECK_EQ(w.flags, HCC_WORK_PROBE);
    CHECK_EQ(w.cycle, hcc_tx_now(&e.c) - 1u);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    total[0] = 32768;
    seen[0] = 1;
    /* random send sizes, three flows interleaved: probes = floor(total / 32768), numbered 0.. */
    test_rng = 7;
    for (i = 0; i < 20000 && TEST_FAILS() == 0; i++) {
        uint32_t f = (uint32_t)(rnd() % 3u);
        uint64_t b = (rnd() % 10u) == 0 ? rnd_range(0, 1u << 20) : rnd_range(1, 9000);
        CHECK_EQ(tx_sent(&e.c, f, b), RNIC_OK);
        total[f] += b;
        if (rnd() % 4u == 0) {
            hcc_tx_tick(&e.c);
            while (hcc_tx_pop_probe(&e.c, &w) == RNIC_OK) {
                CHECK(w.flow < 3);
                CHECK_EQ(w.index, seen[w.flow]);
                CHECK_EQ(w.flags, HCC_WORK_PROBE);
                seen[w.flow]++;
            }
            for (f = 0; f < 3; f++) {
                CHECK_EQ(seen[f], total[f] / 32768u);
                CHECK_EQ(tx_flow(&e.c, f).bytes, total[f] % 32768u);
            }
        }
    }
    CHECK_EQ(e.c.stats.bytes_sent, total[0] + total[1] + total[2]);
    CHECK_EQ(e.c.stats.probes_out, seen[0] + seen[1] + seen[2]);
    /* one large send: 1 MiB -> 32 probes at once */
    {
        uint64_t before = seen[1];
        CHECK_EQ(tx_sent(&e.c, 1, 1u << 20), RNIC_OK);
        hcc_tx_tick(&e.c);
        while (hcc_tx_pop_probe(&e.c, &w) == RNIC_OK)
            seen[w.flow]++;
        total[1] += 1u << 20;
        CHECK_EQ(seen[1] - before, (total[1] / 32768u) - before);
        CHECK(seen[1] - before >= 32u);
    }
    env_free(&e);
}

/* ---- Eq. 2 and the rate records ---- */

static void test_eq2_rate_records(void)
{
    env e;
    rnic_work w;
    unsigned i;
    uint64_t line;
    env_default(&e);
    line = e.cfg.link_bps;
    CHECK_EQ(tx_open(&e.c, 3, 40000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_rate(&e.c, 3), 40000000000ull); /* min(40 G, R_cc = line) */
    CHECK_EQ(hcc_tx_next_event(&e.c), 0);
    CHECK_EQ(hcc_tx_pop_rate(&e.c, &w), RNIC_EEMPTY); /* produced by the tick, not by the call */
    hcc_tx_tick(&e.c);
    CHECK_EQ(hcc_tx_pop_rate(&e.c, &w), RNIC_OK);
    CHECK_EQ(w.flow, 3);
    CHECK_EQ(w.addr, 40000000000ull);
    CHECK_EQ(w.raddr, 0); /* never written (R_rev: hcc_tx_flow_state) */
    CHECK_EQ(w.cycle, 0);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    /* R_cc above R_rev: R_trans unchanged -> no record */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 50000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, NULL), 0);
    /* R_cc below: a record with R_cc */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 10000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_rate(&e.c, 3), 10000000000ull);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, &w), 1);
    CHECK_EQ(w.addr, 10000000000ull);
    CHECK_EQ(tx_flow(&e.c, 3).r_rev, 40000000000ull);
    CHECK_EQ(w.cycle, 2);
    /* the same value again: nothing */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 10000000000ull), RNIC_OK);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, NULL), 0);
    /* changed and changed back before the tick: nothing */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 20000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(&e.c), hcc_tx_now(&e.c));
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 10000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, NULL), 0);
    /* two changes before a tick: one record with the newest */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 20000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 30000000000ull), RNIC_OK);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, &w), 1);
    CHECK_EQ(w.addr, 30000000000ull);
    /* 0 pauses: R_trans = 0; absurd values are clamped and counted */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 0), RNIC_OK);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, &w), 1);
    CHECK_EQ(w.addr, 0);
    CHECK_EQ(e.c.stats.rate_clamped, 0);
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, UINT64_MAX), RNIC_OK);
    CHECK_EQ(e.c.stats.rate_clamped, 1);
    CHECK_EQ(tx_flow(&e.c, 3).r_cc, line);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, &w), 1);
    CHECK_EQ(w.addr, 40000000000ull);
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, 1), RNIC_OK);
    CHECK_EQ(e.c.stats.rate_clamped, 2);
    CHECK_EQ(hcc_tx_rate(&e.c, 3), e.cfg.rate_floor_bps);
    /* an Eq. 1 update that lowers R_rev below R_cc produces a record with the new R_rev */
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, line), RNIC_OK);
    hcc_tx_tick(&e.c);
    drain_rates(&e.c, NULL);
    {
        uint32_t p = one_probe(&e.c, 3);
        CHECK_EQ(ack(&e.c, 3, p, 0, 400), RNIC_OK);
        CHECK(tx_flow(&e.c, 3).r_rev < 40000000000ull);
        hcc_tx_tick(&e.c);
        CHECK_EQ(drain_rates(&e.c, &w), 1);
        CHECK_EQ(w.addr, tx_flow(&e.c, 3).r_rev);
    }
    /* random: hcc_tx_rate = min(R_rev, R_cc), and a record exactly when the value changed */
    test_rng = 5;
    {
        uint64_t last = hcc_tx_rate(&e.c, 3);
        for (i = 0; i < 3000 && TEST_FAILS() == 0; i++) {
            uint64_t want;
            unsigned n;
            if (rnd() % 2u) {
                uint64_t v = (rnd() % 5u == 0) ? last : rnd_range(e.cfg.rate_floor_bps, line);
                CHECK_EQ(hcc_tx_set_rcc(&e.c, 3, v), RNIC_OK);
            } else {
                uint32_t p = one_probe(&e.c, 3);
                CHECK_EQ(ack(&e.c, 3, p, 0, rnd_range(150, 260)), RNIC_OK);
            }
            want = tx_flow(&e.c, 3).r_rev < tx_flow(&e.c, 3).r_cc ? tx_flow(&e.c, 3).r_rev
                                                                                      : tx_flow(&e.c, 3).r_cc;
            CHECK_EQ(hcc_tx_rate(&e.c, 3), want);
            hcc_tx_tick(&e.c);
            n = drain_rates(&e.c, &w);
            CHECK_EQ(n, want != last ? 1u : 0u);
            if (n)
                CHECK_EQ(w.addr, want);
            last = want;
        }
    }
    env_free(&e);
}

/* ---- bad input: code, counter, state unchanged ---- */

typedef struct snap {
    unsigned char *mem;
    hcc_tx c;
} snap;

static void snap_take(snap *s, const env *e)
{
    s->mem = (unsigned char *)malloc(e->size);
    memcpy(s->mem, e->mem, e->size);
    s->c = e->c;
}
/* Everything but the statistics and the trace counter is as it was. */
static int snap_same(const snap *s, const env *e)
{
    hcc_tx a = s->c, b = e->c;
    memset(&a.stats, 0, sizeof a.stats);
    memset(&b.stats, 0, sizeof b.stats);
    a.trace.events = b.trace.events = 0;
    a.rates.rejected_full = b.rates.rejected_full = 0;
    a.probes.rejected_full = b.probes.rejected_full = 0;
    return memcmp(s->mem, e->mem, e->size) == 0 && memcmp(&a, &b, sizeof a) == 0;
}

static void test_bad_input(void)
{
    env e;
    snap s;
    rnic_work w;
    uint32_t p0, p1;
    memset(&w, 0, sizeof w);
    env_default(&e);
    CHECK_EQ(tx_open(&e.c, 0, 10000000000ull), RNIC_OK);
    CHECK_EQ(tx_open(&e.c, 1, 10000000000ull), RNIC_OK);
    hcc_tx_tick(&e.c);
    drain_rates(&e.c, NULL);
    p0 = one_probe(&e.c, 0);
    p1 = one_probe(&e.c, 0);
    CHECK_EQ(p0, 0);
    CHECK_EQ(p1, 1);
    CHECK_EQ(tx_sent(&e.c, 0, 100), RNIC_OK);
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 0, 7000000000ull), RNIC_OK); /* a rate record pending */
    snap_take(&s, &e);
#define REFUSED(call, code, counter)                                                            \
    do {                                                                                        \
        uint64_t before_c = e.c.stats.counter, before_e = e.c.stats.errors.by_cause[code];      \
        uint64_t before_t = rnic_err_total(&e.c.stats.errors);                                  \
        CHECK_EQ((call), (code));                                                               \
        CHECK_EQ(e.c.stats.counter, before_c + 1u);                                             \
        CHECK_EQ(e.c.stats.errors.by_cause[code], before_e + 1u);                               \
        CHECK_EQ(rnic_err_total(&e.c.stats.errors), before_t + 1u);                             \
        CHECK(snap_same(&s, &e));                                                               \
    } while (0)
    /* NULL pointers */
    CHECK_EQ(hcc_tx_push_probe_ack(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(tx_sent(NULL, 0, 1), RNIC_EINVAL);
    CHECK_EQ(hcc_tx_set_rcc(NULL, 0, 1), RNIC_EINVAL);
    CHECK_EQ(tx_open(NULL, 0, 1), RNIC_EINVAL);
    CHECK_EQ(hcc_tx_pop_rate(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_tx_rate(NULL, 0), 0);
    CHECK(hcc_tx_get_stats(NULL) == NULL);
    CHECK_EQ(hcc_tx_next_event(NULL), RNIC_NEVER);
    hcc_tx_tick(NULL);
    CHECK_EQ(hcc_tx_advance(NULL, 5), 0);
    REFUSED(hcc_tx_push_probe_ack(&e.c, NULL), RNIC_EINVAL, errors.by_cause[RNIC_EINVAL]);
    REFUSED(hcc_tx_push_sent(&e.c, NULL), RNIC_EINVAL, errors.by_cause[RNIC_EINVAL]);
    CHECK_EQ(hcc_tx_space_sent(&e.c), UINT32_MAX);
    CHECK_EQ(hcc_tx_space_sent(NULL), 0);
    { /* a query, not an input: refused without a count */
        hcc_tx_flow_view v;
        uint64_t before = rnic_err_total(&e.c.stats.errors);
        CHECK_EQ(hcc_tx_flow_state(&e.c, 16, &v), RNIC_ENOENT);
        CHECK_EQ(hcc_tx_flow_state(&e.c, 0, NULL), RNIC_EINVAL);
        CHECK_EQ(hcc_tx_flow_state(NULL, 0, &v), RNIC_EINVAL);
        CHECK_EQ(hcc_tx_flow_state(&e.c, 5, &v), RNIC_OK);
        CHECK_EQ(v.open, 0);
        CHECK_EQ(rnic_err_total(&e.c.stats.errors), before);
    }
    REFUSED(hcc_tx_pop_rate(&e.c, NULL), RNIC_EINVAL, errors.by_cause[RNIC_EINVAL]);
    REFUSED(hcc_tx_peek_rate(&e.c, NULL), RNIC_EINVAL, errors.by_cause[RNIC_EINVAL]);
    REFUSED(hcc_tx_pop_probe(&e.c, NULL), RNIC_EINVAL, errors.by_cause[RNIC_EINVAL]);
    REFUSED(hcc_tx_peek_probe(&e.c, NULL), RNIC_EINVAL, errors.by_cause[RNIC_EINVAL]);
    /* unknown / unopened flows */
    REFUSED(tx_sent(&e.c, 16, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(tx_sent(&e.c, 5, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(hcc_tx_set_rcc(&e.c, 16, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(hcc_tx_set_rcc(&e.c, 5, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(tx_open(&e.c, 16, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(hcc_tx_flow_close(&e.c, 5), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(ack(&e.c, 16, 0, 0, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(ack(&e.c, 5, 0, 0, 100), RNIC_ENOENT, reasons.unknown_flow);
    REFUSED(tx_open(&e.c, 0, 100), RNIC_EEXIST, reasons.flow_exists);
    CHECK(hcc_tx_rate(&e.c, 5) == 0 && hcc_tx_rate(&e.c, 16) == 0);
    /* probe ACKs: none outstanding on flow 1; a number never produced on flow 0 */
    REFUSED(ack(&e.c, 1, 0, 0, 100), RNIC_ENOENT, reasons.ack_no_probe);
    REFUSED(ack(&e.c, 0, 2, 0, 100), RNIC_ENOENT, reasons.ack_no_probe);
    REFUSED(ack(&e.c, 0, 0x90000000u, 0, 100), RNIC_ENOENT, reasons.ack_no_probe);
    REFUSED(ack(&e.c, 0, 0xffffffffu, 0, 100), RNIC_ENOENT, reasons.ack_no_probe);
    /* timestamps */
    REFUSED(ack(&e.c, 0, 0, 500, 499), RNIC_ERANGE, reasons.ack_range);
    REFUSED(ack(&e.c, 0, 0, 500, 500 + e.cfg.max_delay_ns + 1u), RNIC_ERANGE, reasons.ack_range);
    REFUSED(ack(&e.c, 0, 0, UINT64_MAX, 0), RNIC_ERANGE, reasons.ack_range);
    /* send sizes */
    /* (a sent record's len is at most 2^32 - 1 bytes: no size is out of range) */
    /* stale: accept probe 1 (overtaking 0); then 0 and 1 are stale */
    free(s.mem);
    CHECK_EQ(ack(&e.c, 0, 1, 1000, 1000 + e.cfg.max_delay_ns), RNIC_OK); /* the largest delay is accepted */
    CHECK_EQ(tx_flow(&e.c, 0).r_rev, e.cfg.rate_floor_bps);
    snap_take(&s, &e);
    REFUSED(ack(&e.c, 0, 1, 0, 100), RNIC_ESTALE, reasons.ack_stale);
    REFUSED(ack(&e.c, 0, 0, 0, 100), RNIC_ESTALE, reasons.ack_stale);
    REFUSED(ack(&e.c, 0, 2, 0, 100), RNIC_ENOENT, reasons.ack_no_probe); /* none outstanding now */
    /* full output ports are not input errors: records wait (test_backpressure) */
    free(s.mem);
    /* probe-request overflow: 2^32 - 1 unproduced requests at most (EBUSY, back-pressure) */
    e.c.flows[1].probes_due = UINT32_MAX - 1u; /* white-box: reach the bound without 2^47 bytes */
    e.c.pend_probes += UINT32_MAX - 1u;
    snap_take(&s, &e);
    REFUSED(tx_sent(&e.c, 1, 2u * 32768u), RNIC_EBUSY, reasons.probe_overflow);
    CHECK_EQ(tx_sent(&e.c, 1, 32768u), RNIC_OK);
    free(s.mem);
#undef REFUSED
    env_free(&e);
}

/* Probe and rate records wait in the flow (per-flow counters / flags) when a port is full. */
static void test_backpressure(void)
{
    env e;
    hcc_tx_config cfg;
    rnic_work w;
    uint32_t f, expect_idx = 0;
    unsigned rates = 0, probes = 0;
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 8;
    cfg.rate_depth = 2;
    cfg.probe_depth = 4;
    env_init(&e, &cfg);
    for (f = 0; f < 5; f++)
        CHECK_EQ(tx_open(&e.c, f, 1000000000ull * (f + 1u)), RNIC_OK);
    CHECK_EQ(tx_sent(&e.c, 0, 1u << 20), RNIC_OK); /* 32 probes */
    CHECK_EQ(hcc_tx_advance(&e.c, 1000), 1);               /* stops: ports filled in the first tick */
    CHECK_EQ(e.c.rates.count, 2);
    CHECK_EQ(e.c.probes.count, 4);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER); /* waits only for pops */
    CHECK_EQ(hcc_tx_advance(&e.c, 1000), 1000);
    CHECK_EQ(e.c.stats.port_stalls, 1);
    while (TEST_FAILS() == 0 && (rates < 5 || probes < 32)) {
        if (hcc_tx_pop_rate(&e.c, &w) == RNIC_OK) {
            CHECK_EQ(w.addr, 1000000000ull * (w.flow + 1u));
            rates++;
        }
        if (hcc_tx_pop_probe(&e.c, &w) == RNIC_OK) {
            CHECK_EQ(w.flow, 0);
            CHECK_EQ(w.index, expect_idx);
            expect_idx++;
            probes++;
        }
        CHECK_EQ(hcc_tx_next_event(&e.c), e.c.pend_probes || e.c.pend_rate_flows ? hcc_tx_now(&e.c) : RNIC_NEVER);
        hcc_tx_tick(&e.c);
        if (e.c.stats.cycles > 100000)
            break;
    }
    CHECK_EQ(drain_rates(&e.c, NULL) + rates, 5);
    CHECK_EQ(drain_probes(&e.c) + probes, 32);
    CHECK_EQ(e.c.stats.probes_out, 32);
    CHECK_EQ(e.c.stats.rate_records, 5);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    CHECK_EQ(e.c.pend_probes, 0);
    CHECK_EQ(e.c.pend_rate_flows, 0);
    /* close drops the unproduced requests (counted) and never produces a record for it */
    CHECK_EQ(tx_sent(&e.c, 1, 10u * 32768u), RNIC_OK);
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 1, 1500000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_flow_close(&e.c, 1), RNIC_OK);
    CHECK_EQ(e.c.stats.probes_dropped, 10);
    CHECK_EQ(hcc_tx_next_event(&e.c), RNIC_NEVER);
    /* reopen before the FIFO entry left: one entry, a fresh rate record, probes from 0 */
    CHECK_EQ(tx_open(&e.c, 1, 3000000000ull), RNIC_OK);
    CHECK_EQ(e.c.pending.count, 1);
    CHECK_EQ(tx_sent(&e.c, 1, 32768u), RNIC_OK);
    hcc_tx_tick(&e.c);
    CHECK_EQ(drain_rates(&e.c, &w), 1);
    CHECK_EQ(w.addr, 3000000000ull);
    CHECK_EQ(hcc_tx_pop_probe(&e.c, &w), RNIC_OK);
    CHECK_EQ(w.index, 0);
    CHECK_EQ(e.c.pending.count, 0);
    env_free(&e);
}

/* ---- fast-forward = ticking ---- */

typedef struct rec_log {
    rnic_work w[4096];
    unsigned n;
} rec_log;

static void log_drain(hcc_tx *c, rec_log *l, int rates_too)
{
    rnic_work w;
    while (l->n < 4096 && hcc_tx_pop_probe(c, &w) == RNIC_OK)
        l->w[l->n++] = w;
    while (rates_too && l->n < 4096 && hcc_tx_pop_rate(c, &w) == RNIC_OK)
        l->w[l->n++] = w;
}

static void run_ff(uint64_t start, int fast, rec_log *l, hcc_tx_stats *st, uint64_t *now)
{
    env e;
    hcc_tx_config cfg;
    unsigned k;
    uint64_t t = start;
    uint32_t probe_no[4] = { 0, 0, 0, 0 }, acked[4] = { 0, 0, 0, 0 };
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 4;
    cfg.rate_depth = 3;
    cfg.probe_depth = 5;
    cfg.start_cycle = start;
    env_init(&e, &cfg);
    l->n = 0;
    test_rng = 4242;
    for (k = 0; k < 4; k++)
        CHECK_EQ(tx_open(&e.c, k, 2000000000ull + k), RNIC_OK);
    for (k = 0; k < 600; k++) {
        uint32_t f = (uint32_t)(rnd() % 4u);
        uint64_t gap = (rnd() % 3u == 0) ? rnd_range(0, 3) : rnd_range(1, 5000);
        unsigned op = (unsigned)(rnd() % 4u);
        t += gap;
        if (fast) {
            while (hcc_tx_now(&e.c) != t)
                hcc_tx_advance_to(&e.c, t);
        } else {
            while (hcc_tx_now(&e.c) != t)
                hcc_tx_tick(&e.c);
        }
        if (op == 0)
            tx_sent(&e.c, f, rnd_range(1, 200000));
        else if (op == 1)
            hcc_tx_set_rcc(&e.c, f, rnd_range(0, 120000000000ull));
        else if (op == 2 && acked[f] < probe_no[f]) {
            uint32_t idx = acked[f] + (uint32_t)(rnd() % (probe_no[f] - acked[f]));
            CHECK_EQ(ack(&e.c, f, idx, 100, 100 + rnd_range(50, 900)), RNIC_OK);
            acked[f] = idx + 1u;
        } else if (rnd() % 2u) {
            unsigned before = l->n, i;
            log_drain(&e.c, l, (int)(rnd() % 2u));
            for (i = before; i < l->n; i++)
                if (l->w[i].flags == HCC_WORK_PROBE)
                    probe_no[l->w[i].flow] = l->w[i].index + 1u;
        }
    }
    log_drain(&e.c, l, 1);
    *st = e.c.stats;
    *now = hcc_tx_now(&e.c);
    env_free(&e);
}

/* A record due exactly at cycle 2^64 - 1: next_event reads like RNIC_NEVER, advance tells them apart. */
static void test_due_at_last_cycle(void)
{
    env e;
    hcc_tx_config cfg;
    rnic_work w;
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 2;
    cfg.start_cycle = UINT64_MAX;
    env_init(&e, &cfg);
    CHECK_EQ(tx_open(&e.c, 0, 1000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(&e.c), UINT64_MAX);
    CHECK_EQ(hcc_tx_advance(&e.c, 10), 10);
    CHECK_EQ(hcc_tx_pop_rate(&e.c, &w), RNIC_OK);
    CHECK_EQ(w.cycle, UINT64_MAX);
    CHECK_EQ(hcc_tx_now(&e.c), 9);
    CHECK_EQ(e.c.stats.port_stalls, 0);
    env_free(&e);
}

static void test_fast_forward(void)
{
    static rec_log a, b;
    hcc_tx_stats sa, sb;
    uint64_t na, nb;
    uint64_t starts[2] = { 0, UINT64_MAX - 700000u }; /* the second run crosses 2^64 */
    unsigned i, j;
    for (i = 0; i < 2; i++) {
        run_ff(starts[i], 0, &a, &sa, &na);
        run_ff(starts[i], 1, &b, &sb, &nb);
        CHECK(a.n > 100);
        CHECK_EQ(a.n, b.n);
        for (j = 0; j < a.n && j < b.n; j++)
            if (memcmp(&a.w[j], &b.w[j], sizeof a.w[j]) != 0) {
                CHECK(!"record differs between ticking and advance");
                break;
            }
        if (memcmp(&sa, &sb, sizeof sa) != 0) {
            const uint64_t *x = (const uint64_t *)(const void *)&sa, *y = (const uint64_t *)(const void *)&sb;
            for (j = 0; j < sizeof sa / 8u; j++)
                if (x[j] != y[j])
                    printf("  stats word %u: ticking %" PRIu64 ", advance %" PRIu64 "\n", j, x[j], y[j]);
            CHECK(!"statistics differ between ticking and advance");
        }
        CHECK_EQ(na, nb);
        CHECK(sa.port_stalls > 0);
        CHECK(sa.probe_acks > 10);
        if (i == 1)
            CHECK(na < starts[1]); /* wrapped */
    }
}

/* ---- trace ---- */

typedef struct trace_count {
    unsigned kinds[64];
    uint64_t last_cycle;
    rnic_trace_event last;
} trace_count;

static void last_fn(void *user, const rnic_trace_event *ev)
{
    ((trace_count *)user)->last = *ev;
}

static void trace_fn(void *user, const rnic_trace_event *ev)
{
    trace_count *t = (trace_count *)user;
    if (ev->kind < 64)
        t->kinds[ev->kind]++;
    t->last_cycle = ev->cycle;
    CHECK_EQ(ev->engine, RNIC_ENGINE_HCC_TX);
}

static void test_trace(void)
{
    env e;
    hcc_tx_config cfg;
    trace_count t;
    rnic_work w;
    uint32_t p;
    memset(&t, 0, sizeof t);
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 2;
    cfg.trace = trace_fn;
    cfg.trace_user = &t;
    env_init(&e, &cfg);
    CHECK_EQ(tx_open(&e.c, 0, 5000000000ull), RNIC_OK);
    CHECK_EQ(t.kinds[HCC_TX_TRACE_OPEN], 1);
    CHECK_EQ(hcc_tx_set_rcc(&e.c, 0, 4000000000ull), RNIC_OK);
    CHECK_EQ(t.kinds[RNIC_TRACE_RATE], 1);
    hcc_tx_tick(&e.c);
    CHECK_EQ(t.kinds[RNIC_TRACE_OUT], 1);
    CHECK_EQ(hcc_tx_pop_rate(&e.c, &w), RNIC_OK);
    CHECK_EQ(t.kinds[RNIC_TRACE_POP], 1);
    p = one_probe(&e.c, 0);
    CHECK_EQ(t.kinds[RNIC_TRACE_PUSH], 1); /* push_sent */
    CHECK_EQ(t.kinds[RNIC_TRACE_OUT], 2);
    CHECK_EQ(ack(&e.c, 0, p, 0, 300), RNIC_OK);
    CHECK_EQ(t.kinds[RNIC_TRACE_PUSH], 2);
    CHECK_EQ(t.kinds[HCC_TX_TRACE_REV], 1);
    CHECK_EQ(ack(&e.c, 0, p, 0, 300), RNIC_ESTALE);
    CHECK_EQ(t.kinds[RNIC_TRACE_REFUSE], 1);
    CHECK_EQ(hcc_tx_flow_close(&e.c, 0), RNIC_OK);
    CHECK_EQ(t.kinds[HCC_TX_TRACE_CLOSE], 1);
    env_free(&e);
}

/* Issue 29's contract: a NULL flow config opens at link_bps (not counted as a clamp); the sent
 * port's PUSH event carries the record's index and len; every reason has its code and a message
 * and counts once with its code in errors. */
static void test_flow_config_and_reasons(void)
{
    env e;
    hcc_tx_config cfg;
    trace_count t;
    rnic_work w;
    hcc_tx_flow_config fc;
    unsigned r;
    memset(&t, 0, sizeof t);
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 2;
    cfg.link_bps = 40000000000ull;
    cfg.trace = last_fn;
    cfg.trace_user = &t;
    env_init(&e, &cfg);
    hcc_tx_flow_config_default(&fc);
    CHECK_EQ(fc.init_rate_bps, 0);
    CHECK_EQ(hcc_tx_flow_open(&e.c, 0, NULL), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 0).r_rev, cfg.link_bps);
    CHECK_EQ(hcc_tx_flow_open(&e.c, 1, &fc), RNIC_OK);
    CHECK_EQ(tx_flow(&e.c, 1).r_rev, cfg.link_bps);
    CHECK_EQ(e.c.stats.rate_clamped, 0);
    memset(&w, 0, sizeof w);
    w.flow = 1;
    w.index = 77;
    w.len = 40000;
    CHECK_EQ(hcc_tx_push_sent(&e.c, &w), RNIC_OK);
    CHECK_EQ(t.last.kind, RNIC_TRACE_PUSH);
    CHECK_EQ(t.last.id, 1);
    CHECK_EQ(t.last.a, 77);
    CHECK_EQ(t.last.b, 40000);
    CHECK_EQ(tx_flow(&e.c, 1).probes_due, 1);
    CHECK_EQ(tx_flow(&e.c, 1).bytes, 40000u - 32768u);
    CHECK_EQ(hcc_tx_flow_open(&e.c, 1, NULL), RNIC_EEXIST);
    CHECK_EQ(t.last.kind, RNIC_TRACE_REFUSE);
    CHECK_EQ(t.last.b, RNIC_EEXIST);
    CHECK_EQ(e.c.stats.reasons.flow_exists, 1);
    CHECK_EQ(e.c.stats.errors.by_cause[RNIC_EEXIST], 1);
    for (r = 0; r < (unsigned)HCC_TX_REASON__COUNT; r++) {
        CHECK(strncmp(hcc_tx_reason_message((hcc_tx_reason)r), "hcc_tx: ", 8) == 0);
        CHECK(hcc_tx_reason_code((hcc_tx_reason)r) != RNIC_OK);
    }
    CHECK_EQ(hcc_tx_reason_code(HCC_TX_REASON_ACK_STALE), RNIC_ESTALE);
    CHECK(strcmp(hcc_tx_reason_message(HCC_TX_REASON__COUNT), "?") == 0);
    env_free(&e);
}

static void test_no_allocation(void)
{
    unsigned long before = hcc_tx_test_allocs;
    /* every test above ran the engine with the trap compiled in: nothing was counted */
    CHECK_EQ(before, 0);
    CHECK_EQ(test_trap_selfcheck(), 1); /* and the trap does catch a call */
}

int main(void)
{
    RUN(test_constant_and_config);
    RUN(test_eq1_exact_step);
    RUN(test_eq1_against_reference);
    RUN(test_clamps);
    RUN(test_probe_cadence);
    RUN(test_eq2_rate_records);
    RUN(test_bad_input);
    RUN(test_backpressure);
    RUN(test_fast_forward);
    RUN(test_due_at_last_cycle);
    RUN(test_trace);
    RUN(test_flow_config_and_reasons);
    RUN(test_no_allocation);
    return test_summary();
}
