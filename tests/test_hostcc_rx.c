/* Tests of the RHCC receiver controller hcc_rx (hostcc.h; docs/hostcc_rx.md).
 *
 * The level sequence is checked against an independent reference model written here from the
 * rules of RHCC §3.2 and docs/hostcc_model.md: unbounded time and counter values (no wraps),
 * a plain "last change at t" with no change = -infinity, an unbounded calm counter, and the
 * average occupancy compared as occ > i_thr x interval in plain 64-bit integers (the test keeps
 * the values small enough). The engine is fed the same samples wrapped modulo 2^48 (counter)
 * and 2^64 (time) and must produce the same changes at the same cycles. */
#define HCC_IMPLEMENTATION
#include "hostcc.h"
#include "test.h"

/* ---- helpers ---- */

typedef struct eng {
    hcc_rx c;
    void *mem;
} eng;

static eng *eng_new(const hcc_rx_config *cfg)
{
    eng *e = (eng *)calloc(1, sizeof *e);
    size_t n = hcc_rx_mem_size(cfg);
    if (!e || n == 0)
        return NULL;
    e->mem = malloc(n);
    if (!e->mem || hcc_rx_init(&e->c, cfg, e->mem, n) != RNIC_OK) {
        free(e->mem);
        free(e);
        return NULL;
    }
    return e;
}

static void eng_free(eng *e)
{
    if (e) {
        free(e->mem);
        free(e);
    }
}

/* Trace collector. */
typedef struct tlog {
    rnic_trace_event *ev;
    size_t n, cap;
} tlog;

static void tlog_fn(void *user, const rnic_trace_event *ev)
{
    tlog *l = (tlog *)user;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->ev = (rnic_trace_event *)realloc(l->ev, l->cap * sizeof *l->ev);
        if (!l->ev)
            abort();
    }
    l->ev[l->n++] = *ev;
}

/* A sample in unbounded units: t cycles after the run's start, cum lines-cycles since it. */
typedef struct smp {
    uint64_t t, cum;
} smp;

/* A level/ecn change: at t (the deciding sample's time), the state after it. */
typedef struct chg {
    uint64_t t;
    uint32_t level, ecn, dir; /* dir: 1 down, 2 up, 0 ecn */
} chg;

static uint64_t cycles_of_ns(uint64_t ns, uint64_t hz) /* nearest, independent of the engine */
{
    double x = (double)ns * (double)hz / 1e9;
    return (uint64_t)(x + 0.5);
}

/* ---- the reference model ---- */

typedef struct ref_params {
    uint32_t mode, thr, low, up, start_level;
    uint64_t slack; /* cycles */
} ref_params;

typedef struct ref_out {
    chg *ch;
    size_t n;
    uint64_t congested, calm, decisions;
    uint32_t final_level, final_ecn;
} ref_out;

static void ref_run(const ref_params *p, const smp *s, size_t ns, ref_out *o)
{
    uint32_t level = p->start_level, ecn = 0;
    uint64_t calm_run = 0;
    int have_change = 0;
    uint64_t last_change = 0;
    size_t i;
    memset(o, 0, sizeof *o);
    o->ch = (chg *)calloc(ns + 1, sizeof(chg));
    for (i = 1; i < ns; i++) {
        uint64_t interval = s[i].t - s[i - 1].t;
        uint64_t occ = s[i].cum - s[i - 1].cum;
        int congested = occ > (uint64_t)p->thr * interval;
        int calm = occ <= (uint64_t)p->low * interval;
        int slack_ok = !have_change || s[i].t - last_change >= p->slack;
        int changed = 0;
        uint32_t dir = 0;
        o->decisions++;
        o->congested += (uint64_t)congested;
        o->calm += (uint64_t)calm;
        if (p->mode == HCC_RX_MODE_OFF)
            continue;
        if (p->mode == HCC_RX_MODE_ECN) {
            if ((uint32_t)congested != ecn) {
                ecn = (uint32_t)congested;
                changed = 1;
            }
        } else if (congested) {
            calm_run = 0;
            if (level < 4 && slack_ok) {
                level++;
                changed = 1;
                dir = 1;
            }
        } else if (calm) {
            calm_run++;
            if (calm_run >= p->up && level > 0 && slack_ok) {
                level--;
                calm_run = 0;
                changed = 1;
                dir = 2;
            }
        } else {
            calm_run = 0;
        }
        if (changed) {
            if (p->mode == HCC_RX_MODE_MBA) {
                have_change = 1;
                last_change = s[i].t;
            }
            o->ch[o->n].t = s[i].t;
            o->ch[o->n].level = level;
            o->ch[o->n].ecn = ecn;
            o->ch[o->n].dir = dir;
            o->n++;
        }
    }
    o->final_level = level;
    o->final_ecn = ecn;
}

/* ---- random sample sequences: piecewise congested / calm / in-between phases ---- */

static size_t gen_samples(rnic_prng *g, uint32_t thr, uint32_t low, uint64_t period, size_t n, smp *s)
{
    size_t i = 0;
    uint64_t t = rnic_prng_range(g, 0, 1000), cum = 0;
    s[i].t = t;
    s[i].cum = cum;
    i++;
    while (i < n) {
        uint32_t kind = (uint32_t)rnic_prng_below(g, 5);
        size_t len = (size_t)rnic_prng_range(g, 1, 150), k;
        if (rnic_prng_chance(g, 1, 20)) /* a long idle gap (several slack times) */
            t += rnic_prng_range(g, 1, 200000);
        for (k = 0; k < len && i < n; k++, i++) {
            uint64_t iv = rnic_prng_range(g, period / 2, period + period / 2), occ;
            uint64_t lo_b = (uint64_t)low * iv, thr_b = (uint64_t)thr * iv;
            switch (kind) {
            case 0: /* congested */
                occ = rnic_prng_range(g, thr_b + 1, 4 * thr_b);
                break;
            case 1: /* calm */
                occ = rnic_prng_range(g, 0, lo_b);
                break;
            case 2: /* in between */
                occ = lo_b < thr_b ? rnic_prng_range(g, lo_b + 1, thr_b) : thr_b;
                break;
            case 3: { /* exactly on a boundary */
                uint64_t b[4];
                b[0] = thr_b;
                b[1] = thr_b + 1;
                b[2] = lo_b;
                b[3] = lo_b + 1;
                occ = b[rnic_prng_below(g, 4)];
                break;
            }
            default: /* mixed */
                occ = rnic_prng_range(g, 0, 3 * thr_b);
                break;
            }
            t += iv;
            cum += occ;
            s[i].t = t;
            s[i].cum = cum;
        }
    }
    return n;
}

/* Drive the engine through samples: move to each sample's cycle (advance_to or one tick at a
 * time), push it, run one cycle, drain the actions. Returns the records (caller frees). */
typedef struct drive_out {
    rnic_work *rec;
    size_t n;
    int bad; /* a push or pop failed */
} drive_out;

static void drive(eng *e, const smp *s, size_t ns, uint64_t start, uint64_t cum0, int by_tick, uint64_t tail,
                  drive_out *o)
{
    hcc_rx *c = &e->c;
    size_t i;
    uint64_t mask = c->cum_mask;
    memset(o, 0, sizeof *o);
    o->rec = (rnic_work *)calloc(ns + 1, sizeof(rnic_work));
    for (i = 0; i < ns; i++) {
        hcc_rx_sample x;
        rnic_work w;
        uint64_t at = start + s[i].t;
        if (by_tick) {
            while (hcc_rx_now(c) != at)
                hcc_rx_tick(c);
        } else {
            uint64_t want = at - hcc_rx_now(c);
            if (hcc_rx_advance_to(c, at) != want || hcc_rx_now(c) != at)
                o->bad = 1;
        }
        x.cycle = at;
        x.cum = (cum0 + s[i].cum) & mask;
        if (hcc_rx_push_sample(c, &x) != RNIC_OK)
            o->bad = 1;
        if (hcc_rx_next_event(c) != at)
            o->bad = 1;
        if (by_tick)
            hcc_rx_tick(c);
        else if (hcc_rx_advance(c, 1) != 1)
            o->bad = 1;
        if (hcc_rx_next_event(c) != RNIC_NEVER)
            o->bad = 1;
        while (hcc_rx_pop_action(c, &w) == RNIC_OK)
            o->rec[o->n++] = w;
    }
    if (by_tick) {
        uint64_t k;
        for (k = 0; k < tail; k++)
            hcc_rx_tick(c);
    } else if (hcc_rx_advance(c, tail) != tail) {
        o->bad = 1;
    }
}

static void default_cfg(hcc_rx_config *cfg)
{
    hcc_rx_config_default(cfg);
    cfg->action_depth = 64;
}

/* Compare engine records with the reference changes; returns nonzero when they match. */
static void check_against_ref(const hcc_rx_config *cfg, const ref_out *r, const drive_out *d, uint64_t start)
{
    size_t i;
    CHECK(!d->bad);
    CHECK_EQ(d->n, r->n);
    for (i = 0; i < d->n && i < r->n && TEST_FAILS() < 4; i++) {
        const rnic_work *w = &d->rec[i];
        uint32_t dir = (w->flags & HCC_RX_WORK_DOWN) ? 1u : (w->flags & HCC_RX_WORK_UP) ? 2u : 0u;
        CHECK_EQ(w->cycle, start + r->ch[i].t);
        CHECK_EQ(w->raddr, start + r->ch[i].t);
        CHECK_EQ(w->index, (uint32_t)i); /* the change's number */
        CHECK_EQ(w->aux, r->ch[i].level);
        CHECK_EQ(w->addr, cfg->levels_bps[r->ch[i].level]);
        CHECK_EQ((w->flags & HCC_WORK_CE) != 0, r->ch[i].ecn);
        CHECK_EQ(dir, r->ch[i].dir);
        CHECK_EQ(w->op, 0); /* never written */
        CHECK_EQ(w->flags & (HCC_RX_WORK_MBA | HCC_RX_WORK_ECN), cfg->mode == HCC_RX_MODE_ECN ? HCC_RX_WORK_ECN : HCC_RX_WORK_MBA);
        CHECK_EQ(w->flags & HCC_RX_WORK_MERGED, 0);
    }
}

/* Reference time at each level (and with ecn on) for a run from t = 0 to t = end. */
static void ref_time_at(const ref_out *r, uint32_t start_level, uint64_t end, uint64_t tl[5], uint64_t *ecn_t)
{
    uint64_t t = 0;
    uint32_t level = start_level, ecn = 0;
    size_t i;
    memset(tl, 0, 5 * sizeof tl[0]);
    *ecn_t = 0;
    for (i = 0; i < r->n; i++) {
        tl[level] += r->ch[i].t - t;
        if (ecn)
            *ecn_t += r->ch[i].t - t;
        t = r->ch[i].t;
        level = r->ch[i].level;
        ecn = r->ch[i].ecn;
    }
    tl[level] += end - t;
    if (ecn)
        *ecn_t += end - t;
}

/* ---- tests ---- */

static void test_config(void)
{
    hcc_rx_config cfg, bad;
    const char *field = NULL;
    hcc_rx c;
    unsigned char *mem;
    size_t n;
    hcc_rx_config_default(&cfg);
    /* the paper's values (§3.2 footnote 3, hostCC's 150 us slack, 48-bit uncore counters) */
    CHECK_EQ(cfg.levels_bps[0], 8u * 33200000000ull); /* the paper's GB/s, in b/s */
    CHECK_EQ(cfg.levels_bps[1], 8u * 26500000000ull);
    CHECK_EQ(cfg.levels_bps[2], 8u * 20000000000ull);
    CHECK_EQ(cfg.levels_bps[3], 8u * 15000000000ull);
    CHECK_EQ(cfg.levels_bps[4], 8u * 10000000000ull);
    CHECK_EQ(cfg.slack_ns, 150000);
    CHECK_EQ(cfg.clock_hz, 250000000);
    CHECK_EQ(cfg.counter_bits, 48);
    CHECK_EQ(cfg.start_level, 0);
    CHECK_EQ(cfg.mode, HCC_RX_MODE_MBA);
    CHECK_EQ(cfg.trace_id, RNIC_ENGINE_HCC_RX);
    CHECK_EQ(hcc_rx_config_check(&cfg, &field), RNIC_OK);
    CHECK(hcc_rx_mem_size(&cfg) >= cfg.sample_depth * sizeof(hcc__rx_entry) + cfg.action_depth * sizeof(rnic_work));

#define BAD(stmt, name)                                                  \
    do {                                                                 \
        bad = cfg;                                                       \
        stmt;                                                            \
        field = NULL;                                                    \
        CHECK_EQ(hcc_rx_config_check(&bad, &field), RNIC_EINVAL);        \
        CHECK(field != NULL && strcmp(field, name) == 0);                \
        CHECK_EQ(hcc_rx_mem_size(&bad), 0);                              \
    } while (0)
    BAD(bad.clock_hz = 0, "clock_hz");
    BAD(bad.clock_hz = 5000000000ull, "clock_hz");
    BAD(bad.sample_period_ns = 0, "sample_period_ns");
    BAD(bad.sample_period_ns = 2000000000ull, "sample_period_ns");
    BAD(bad.i_thr = 0, "i_thr");
    BAD(bad.i_thr = 5000, "i_thr");
    BAD(bad.i_low = 33, "i_low");
    BAD(bad.up_samples = 0, "up_samples");
    BAD(bad.start_level = 5, "start_level");
    BAD(bad.slack_ns = 20000000000ull, "slack_ns");
    BAD(bad.levels_bps[2] = 0, "levels_bps");
    BAD(bad.levels_bps[3] = 300000000000ull, "levels_bps"); /* increasing: not a step down */
    BAD(bad.levels_bps[0] = 8000000000001ull, "levels_bps");
    BAD(bad.counter_bits = 4, "counter_bits");
    BAD(bad.counter_bits = 65, "counter_bits");
    BAD(bad.max_lines = 0, "max_lines");
    BAD(bad.mode = 3, "mode");
    BAD(bad.sample_depth = 0, "sample_depth");
    BAD(bad.action_depth = 0, "action_depth");
    BAD(bad.action_depth = 70000, "action_depth");
#undef BAD
    field = NULL;
    CHECK_EQ(hcc_rx_config_check(NULL, &field), RNIC_EINVAL);
    /* init refusals */
    n = hcc_rx_mem_size(&cfg);
    mem = (unsigned char *)malloc(n + 8);
    CHECK_EQ(hcc_rx_init(NULL, &cfg, mem, n), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_init(&c, &cfg, NULL, n), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_init(&c, &cfg, mem + 1, n), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_init(&c, &cfg, mem, n - 1), RNIC_ENOSPC);
    bad = cfg;
    bad.mode = 7;
    CHECK_EQ(hcc_rx_init(&c, &bad, mem, n), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_init(&c, &cfg, mem, n), RNIC_OK);
    CHECK_EQ(hcc_rx_level(&c), 0);
    CHECK_EQ(hcc_rx_level_bps(&c), 8u * 33200000000ull);
    CHECK_EQ(c.slack_cycles, 37500); /* 150 us at 250 MHz */
    CHECK_EQ(c.sample_cycles, 500);  /* 2 us */
    CHECK_EQ(c.i_low, 16);           /* i_thr / 2 */
    CHECK_EQ(hcc_rx_next_event(&c), RNIC_NEVER);
    free(mem);
}

/* Random sequences, several configurations, against the reference model. */
static void test_reference_random(void)
{
    uint64_t seed = test_seed(12);
    unsigned run;
    for (run = 0; run < 24 && TEST_FAILS() == 0; run++) {
        rnic_prng g;
        hcc_rx_config cfg;
        ref_params p;
        ref_out r;
        drive_out d;
        smp *s;
        eng *e;
        size_t ns = 1500;
        uint64_t start, cum0, tl[5], ecn_t, end;
        const hcc_rx_stats *st;
        unsigned k;
        rnic_prng_seed(&g, seed + run);
        default_cfg(&cfg);
        cfg.mode = run % 6 == 4 ? HCC_RX_MODE_ECN : run % 6 == 5 ? HCC_RX_MODE_OFF : HCC_RX_MODE_MBA;
        cfg.up_samples = (uint32_t)rnic_prng_range(&g, 1, 12);
        cfg.i_thr = (uint32_t)rnic_prng_range(&g, 4, 64);
        cfg.i_low = run % 2 ? 0 : (uint32_t)rnic_prng_range(&g, 0, cfg.i_thr);
        cfg.start_level = (uint32_t)rnic_prng_below(&g, 5);
        cfg.slack_ns = run % 3 == 0 ? 150000 : run % 3 == 1 ? rnic_prng_range(&g, 0, 20000) : 0;
        if (run % 4 == 3)
            cfg.clock_hz = 100000000;
        start = run % 2 ? UINT64_MAX - rnic_prng_below(&g, 300000) : rnic_prng_next(&g);
        cfg.start_cycle = start;
        cum0 = ((uint64_t)1 << 48) - rnic_prng_range(&g, 1, 200000);
        s = (smp *)malloc(ns * sizeof *s);
        gen_samples(&g, cfg.i_thr, cfg.i_low ? cfg.i_low : cfg.i_thr / 2, 500, ns, s);
        p.mode = cfg.mode;
        p.thr = cfg.i_thr;
        p.low = cfg.i_low ? cfg.i_low : cfg.i_thr / 2;
        p.up = cfg.up_samples;
        p.start_level = cfg.start_level;
        p.slack = cycles_of_ns(cfg.slack_ns, cfg.clock_hz);
        ref_run(&p, s, ns, &r);
        e = eng_new(&cfg);
        CHECK(e != NULL);
        if (!e)
            return;
        drive(e, s, ns, start, cum0, 0, 777, &d);
        check_against_ref(&cfg, &r, &d, start);
        st = hcc_rx_get_stats(&e->c);
        CHECK_EQ(st->samples, ns);
        CHECK_EQ(st->decisions, r.decisions);
        CHECK_EQ(st->congested_samples, r.congested);
        CHECK_EQ(st->calm_samples, r.calm);
        CHECK_EQ(hcc_rx_level(&e->c), r.final_level);
        CHECK_EQ(hcc_rx_ecn(&e->c), r.final_ecn);
        CHECK(st->wraps >= 1); /* cum0 sits below 2^48: the counter wrapped */
        CHECK_EQ(rnic_err_total(&st->errors), 0);
        end = s[ns - 1].t + 1 + 777;
        ref_time_at(&r, cfg.start_level, end, tl, &ecn_t);
        CHECK_EQ(st->cycles, end);
        for (k = 0; k < 5; k++)
            CHECK_EQ(st->time_at_level[k], tl[k]);
        CHECK_EQ(st->ecn_cycles, ecn_t);
        if (cfg.mode == HCC_RX_MODE_OFF)
            CHECK_EQ(d.n, 0);
        /* no two level changes closer than the slack (also the records' own spacing) */
        if (cfg.mode == HCC_RX_MODE_MBA) {
            size_t i;
            for (i = 1; i < d.n; i++)
                CHECK(d.rec[i].raddr - d.rec[i - 1].raddr >= p.slack);
        }
        free(r.ch);
        free(d.rec);
        free(s);
        eng_free(e);
    }
}

/* Constant congestion, then calm, at the defaults: the exact cycles of every step. */
static void test_slack_steps(void)
{
    hcc_rx_config cfg;
    smp s[1200];
    size_t ns = 0, i;
    drive_out d;
    eng *e;
    uint64_t t;
    default_cfg(&cfg);
    /* samples every 500 cycles; 40 lines average (> 32) up to t = 150000, then 2 lines (< 16) */
    for (t = 0; t <= 400000; t += 500, ns++) {
        s[ns].t = t;
        s[ns].cum = ns == 0 ? 0 : s[ns - 1].cum + (t <= 150000 ? 40u : 2u) * 500u;
    }
    e = eng_new(&cfg);
    drive(e, s, ns, 1000, 0, 0, 0, &d);
    CHECK(!d.bad);
    /* downs: at the first decision (t = 500), then every 37500 cycles (150 us at 250 MHz) until
     * level 4: 500, 38000, 75500, 113000. Ups: calm from t = 150500; 8 calm samples reached at
     * 154000 but the slack since 113000 runs to 150500 -> at 154000 (the 8th calm sample), then
     * each further up needs the slack again (8 calm samples take only 4000 cycles). */
    {
        static const uint64_t want_t[8] = { 500, 38000, 75500, 113000, 154000, 191500, 229000, 266500 };
        static const uint32_t want_l[8] = { 1, 2, 3, 4, 3, 2, 1, 0 };
        CHECK_EQ(d.n, 8);
        for (i = 0; i < d.n && i < 8; i++) {
            CHECK_EQ(d.rec[i].raddr, 1000 + want_t[i]);
            CHECK_EQ(d.rec[i].aux, want_l[i]);
            CHECK_EQ(d.rec[i].addr, cfg.levels_bps[want_l[i]]);
            CHECK(d.rec[i].flags & (i < 4 ? HCC_RX_WORK_DOWN : HCC_RX_WORK_UP));
        }
    }
    CHECK_EQ(hcc_rx_level(&e->c), 0);
    CHECK_EQ(e->c.stats.level_downs, 4);
    CHECK_EQ(e->c.stats.level_ups, 4);
    CHECK(e->c.stats.at_bound > 0);      /* congested at level 4, calm at level 0 */
    CHECK(e->c.stats.held_by_slack > 0); /* congested between steps */
    free(d.rec);
    eng_free(e);

    /* 100 MHz: the slack is 15000 cycles, the step spacing follows */
    default_cfg(&cfg);
    cfg.clock_hz = 100000000;
    e = eng_new(&cfg);
    ns = 0;
    for (t = 0; t <= 60000; t += 200, ns++) {
        s[ns].t = t;
        s[ns].cum = ns == 0 ? 0 : s[ns - 1].cum + 100u * 200u;
    }
    drive(e, s, ns, 0, 0, 0, 0, &d);
    CHECK_EQ(d.n, 4);
    for (i = 1; i < d.n; i++)
        CHECK_EQ(d.rec[i].raddr - d.rec[i - 1].raddr, 15000);
    free(d.rec);
    eng_free(e);
}

/* fast_down: congestion that returns right after a step up is answered at once; without it the
 * down step waits for the slack (150 us = 37500 cycles from the up step). */
static void test_fast_down(void)
{
    static smp s[600];
    size_t ns, i;
    drive_out d;
    eng *e;
    uint64_t t;
    int fast;
    for (fast = 0; fast <= 1; fast++) {
        hcc_rx_config cfg;
        default_cfg(&cfg);
        cfg.fast_down = fast != 0;
        /* 40 lines (> 32) to t = 150000, 2 (< 16) to 156000, 40 again after */
        for (t = 0, ns = 0; t <= 250000; t += 500, ns++) {
            s[ns].t = t;
            s[ns].cum = ns == 0 ? 0 : s[ns - 1].cum + (t <= 150000 || t > 156000 ? 40u : 2u) * 500u;
        }
        e = eng_new(&cfg);
        drive(e, s, ns, 0, 0, 0, 0, &d);
        CHECK(!d.bad);
        /* downs at 500, 38000, 75500, 113000 (level 4); the 8th calm sample (154000) steps up to 3;
         * congestion again from 156500: down to 4 at 156500 (fast) or after the slack, 191500 */
        CHECK_EQ(d.n, 6);
        for (i = 0; i < d.n && i < 6; i++) {
            static const uint64_t want_t[6] = { 500, 38000, 75500, 113000, 154000, 0 };
            static const uint32_t want_l[6] = { 1, 2, 3, 4, 3, 4 };
            CHECK_EQ(d.rec[i].aux, want_l[i]);
            if (i < 5)
                CHECK_EQ(d.rec[i].raddr, want_t[i]);
        }
        if (d.n == 6)
            CHECK_EQ(d.rec[5].raddr, fast ? 156500u : 191500u);
        CHECK_EQ(hcc_rx_level(&e->c), 4);
        free(d.rec);
        eng_free(e);
    }
}

/* Calm must be consecutive: an in-between sample restarts the count. */
static void test_calm_consecutive(void)
{
    hcc_rx_config cfg;
    smp s[64];
    size_t ns = 0;
    drive_out d;
    eng *e;
    /* per-sample average occupancy (interval 500); i_thr 32, i_low 16, up_samples 3, no slack */
    static const uint32_t avg[] = { 0, 40, 10, 10, 20, 10, 10, 10, 10, 17, 16, 16, 16 };
    default_cfg(&cfg);
    cfg.slack_ns = 0;
    cfg.up_samples = 3;
    for (ns = 0; ns < sizeof avg / sizeof avg[0]; ns++) {
        s[ns].t = 500 * ns;
        s[ns].cum = ns == 0 ? 0 : s[ns - 1].cum + (uint64_t)avg[ns] * 500u;
    }
    e = eng_new(&cfg);
    drive(e, s, ns, 0, 0, 0, 0, &d);
    /* down at t = 500 (40 > 32); calm 10,10 then 20 (in between) resets; 10,10,10 -> up at 3500;
     * 17 resets, then 16 x 3 (16 <= i_low counts as calm) at level 0: nothing more */
    CHECK_EQ(d.n, 2);
    if (d.n == 2) {
        CHECK_EQ(d.rec[0].raddr, 500);
        CHECK_EQ(d.rec[0].aux, 1);
        CHECK_EQ(d.rec[1].raddr, 3500);
        CHECK_EQ(d.rec[1].aux, 0);
    }
    CHECK_EQ(e->c.stats.calm_samples, 9);
    free(d.rec);
    eng_free(e);
}

/* Wraps of the 48-bit counter, and implausible jumps refused with the state intact. */
static void test_wrap_and_implausible(void)
{
    hcc_rx_config cfg;
    eng *e;
    hcc_rx_sample x;
    rnic_work w;
    const uint64_t M = (uint64_t)1 << 48;
    default_cfg(&cfg);
    e = eng_new(&cfg);
    x.cycle = 100;
    x.cum = M - 10;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    hcc_rx_advance(&e->c, 200);
    /* across the wrap: 40 lines x 500 cycles added, the counter reads (M - 10 + 20000) mod M */
    x.cycle = 600;
    x.cum = (M - 10 + 20000) & (M - 1);
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    CHECK_EQ(e->c.stats.wraps, 1);
    hcc_rx_advance_to(&e->c, 700);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_OK);
    CHECK_EQ(w.aux, 1);
    CHECK_EQ(hcc_rx_occupancy(&e->c), 40);
    /* a counter reading at or above 2^48 */
    x.cycle = 1100;
    x.cum = M;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_ERANGE);
    /* backwards by 1000: (cum - prev) mod 2^48 = 2^48 - 1000 > 4096 x 500: implausible */
    x.cum = 20000 - 10 - 1000;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_ERANGE);
    /* forward by one more than the bound */
    x.cum = 20000 - 10 + 4096u * 500u + 1u;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_ERANGE);
    CHECK_EQ(e->c.stats.errors.by_cause[RNIC_ERANGE], 3);
    CHECK_EQ(rnic_err_total(&e->c.stats.errors), 3); /* each refusal counted once */
    CHECK_EQ(e->c.stats.reasons.cum_range, 1);         /* ... under its one reason */
    CHECK_EQ(e->c.stats.reasons.implausible, 2);
    CHECK_EQ(hcc_rx_reason_code(HCC_RX_REASON_IMPLAUSIBLE), RNIC_ERANGE);
    CHECK(strstr(hcc_rx_reason_message(HCC_RX_REASON_IMPLAUSIBLE), "max_lines") != NULL);
    CHECK(strstr(hcc_rx_reason_message(HCC_RX_REASON_CUM_RANGE), "counter_bits") != NULL);
    CHECK_EQ(e->c.stats.samples, 2);
    CHECK_EQ(e->c.stats.wraps, 1);
    CHECK_EQ(hcc_rx_space_sample(&e->c), cfg.sample_depth);
    CHECK_EQ(hcc_rx_next_event(&e->c), RNIC_NEVER);
    /* exactly the bound: accepted (4096 lines average > 32: congested, but inside the slack) */
    x.cum = 20000 - 10 + 4096u * 500u;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    hcc_rx_advance(&e->c, 10);
    CHECK_EQ(hcc_rx_occupancy(&e->c), 4096);
    CHECK_EQ(e->c.stats.held_by_slack, 1);
    CHECK_EQ(hcc_rx_level(&e->c), 1);
    CHECK_EQ(e->c.stats.wraps, 1);
    eng_free(e);

    /* a 64-bit counter wraps at 2^64 */
    default_cfg(&cfg);
    cfg.counter_bits = 64;
    cfg.slack_ns = 0;
    e = eng_new(&cfg);
    x.cycle = 0;
    x.cum = UINT64_MAX - 99;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    x.cycle = 10;
    x.cum = 300; /* +400 over 10 cycles: 40 lines */
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    hcc_rx_advance(&e->c, 5);
    CHECK_EQ(e->c.stats.wraps, 1);
    CHECK_EQ(hcc_rx_level(&e->c), 1);
    CHECK_EQ(hcc_rx_occupancy(&e->c), 40);
    eng_free(e);
}

/* Time going backwards (or standing still) is refused and changes nothing: a twin engine that
 * never saw the bad samples produces the same records and statistics. */
static void test_time_backwards(void)
{
    hcc_rx_config cfg;
    eng *a, *b;
    hcc_rx_sample x;
    rnic_work wa, wb;
    hcc_rx_stats sa, sb;
    uint64_t t;
    int ra, rb;
    default_cfg(&cfg);
    cfg.slack_ns = 0;
    cfg.up_samples = 1;
    cfg.start_cycle = UINT64_MAX - 6000;
    a = eng_new(&cfg);
    b = eng_new(&cfg);
    x.cum = 0;
    for (t = 0; t < 20; t++) {
        x.cycle = UINT64_MAX - 5000 + t * 500; /* crosses 2^64 */
        x.cum += t % 3 ? 20000u : 4000u; /* 40 lines (congested) or 8 (calm) */
        hcc_rx_advance_to(&a->c, x.cycle);
        hcc_rx_advance_to(&b->c, x.cycle);
        CHECK_EQ(hcc_rx_push_sample(&a->c, &x), RNIC_OK);
        CHECK_EQ(hcc_rx_push_sample(&b->c, &x), RNIC_OK);
        if (t > 0) { /* a sees bad samples: the same cycle, an older one, one 2^63 ahead */
            hcc_rx_sample y = x;
            CHECK_EQ(hcc_rx_push_sample(&a->c, &y), RNIC_EINVAL);
            y.cycle = x.cycle - 1;
            y.cum = x.cum + 5;
            CHECK_EQ(hcc_rx_push_sample(&a->c, &y), RNIC_EINVAL);
            y.cycle = x.cycle + ((uint64_t)1 << 63);
            CHECK_EQ(hcc_rx_push_sample(&a->c, &y), RNIC_EINVAL);
        }
        hcc_rx_advance(&a->c, 1);
        hcc_rx_advance(&b->c, 1);
        do {
            ra = hcc_rx_pop_action(&a->c, &wa);
            rb = hcc_rx_pop_action(&b->c, &wb);
            CHECK_EQ(ra, rb);
            if (ra == RNIC_OK && rb == RNIC_OK)
                CHECK(memcmp(&wa, &wb, sizeof wa) == 0);
        } while (ra == RNIC_OK && rb == RNIC_OK);
    }
    CHECK(a->c.stats.level_downs > 0 && a->c.stats.level_ups > 0); /* the sequence did something */
    CHECK_EQ(a->c.stats.errors.by_cause[RNIC_EINVAL], 19 * 3);
    CHECK_EQ(rnic_err_total(&a->c.stats.errors), 19 * 3);
    CHECK_EQ(a->c.stats.reasons.not_after, 19 * 3);
    sa = a->c.stats;
    sb = b->c.stats;
    memset(&sa.errors, 0, sizeof sa.errors);
    memset(&sa.reasons, 0, sizeof sa.reasons);
    CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
    CHECK_EQ(hcc_rx_level(&a->c), hcc_rx_level(&b->c));
    eng_free(a);
    eng_free(b);
}

/* ECN mode: ecn follows I_cur > i_thr sample by sample, with no slack; the level never moves. */
static void test_ecn_mode(void)
{
    hcc_rx_config cfg;
    smp s[16];
    size_t ns;
    drive_out d;
    eng *e;
    static const uint32_t avg[] = { 0, 33, 40, 32, 10, 50, 31, 33 };
    static const uint32_t want_on[] = { 1, 0, 1, 0, 1 };
    static const uint64_t want_t[] = { 500, 1500, 2500, 3000, 3500 };
    size_t i;
    default_cfg(&cfg);
    cfg.mode = HCC_RX_MODE_ECN;
    cfg.start_level = 2;
    cfg.start_cycle = 7;
    for (ns = 0; ns < sizeof avg / sizeof avg[0]; ns++) {
        s[ns].t = 500 * ns;
        s[ns].cum = ns == 0 ? 0 : s[ns - 1].cum + (uint64_t)avg[ns] * 500u;
    }
    e = eng_new(&cfg);
    drive(e, s, ns, 7, 0, 0, 100, &d);
    CHECK_EQ(d.n, 5);
    for (i = 0; i < d.n && i < 5; i++) {
        CHECK_EQ(d.rec[i].flags & HCC_RX_WORK_ECN, HCC_RX_WORK_ECN);
        CHECK_EQ((d.rec[i].flags & HCC_WORK_CE) != 0, want_on[i]);
        CHECK_EQ(d.rec[i].raddr, 7 + want_t[i]);
        CHECK_EQ(d.rec[i].aux, 2);
        CHECK_EQ(d.rec[i].addr, 8u * 20000000000ull);
    }
    CHECK(hcc_rx_ecn(&e->c));
    CHECK_EQ(hcc_rx_level(&e->c), 2);
    CHECK_EQ(e->c.stats.ecn_on, 3);
    CHECK_EQ(e->c.stats.ecn_off, 2);
    CHECK_EQ(e->c.stats.level_downs + e->c.stats.level_ups, 0);
    CHECK_EQ(e->c.stats.time_at_level[2], e->c.stats.cycles);
    CHECK_EQ(e->c.stats.ecn_cycles, (1500 - 500) + (3000 - 2500) + (3500 + 1 + 100 - 3500));
    free(d.rec);
    eng_free(e);
}

/* OFF mode never acts, whatever the occupancy. */
static void test_off_mode(void)
{
    hcc_rx_config cfg;
    smp s[400];
    drive_out d;
    eng *e;
    rnic_prng g;
    default_cfg(&cfg);
    cfg.mode = HCC_RX_MODE_OFF;
    cfg.slack_ns = 0;
    cfg.up_samples = 1;
    rnic_prng_seed(&g, 99);
    gen_samples(&g, 32, 16, 500, 400, s);
    e = eng_new(&cfg);
    drive(e, s, 400, 0, 0, 0, 0, &d);
    CHECK_EQ(d.n, 0);
    CHECK(e->c.stats.congested_samples > 20 && e->c.stats.calm_samples > 20); /* both kinds were seen */
    CHECK_EQ(e->c.stats.actions, 0);
    CHECK_EQ(hcc_rx_level(&e->c), 0);
    CHECK(!hcc_rx_ecn(&e->c));
    CHECK_EQ(e->c.stats.time_at_level[0], e->c.stats.cycles);
    free(d.rec);
    eng_free(e);
}

/* A full action port keeps the newest state (last write wins) and advance stops when it fills. */
static void test_output_full(void)
{
    hcc_rx_config cfg;
    eng *e;
    hcc_rx_sample x;
    rnic_work w;
    unsigned i;
    /* per sample: 40 (down) x 4, then 0 (up, up_samples 1) */
    static const uint32_t avg[] = { 0, 40, 40, 40, 40, 0 };
    uint64_t cum = 0;
    default_cfg(&cfg);
    cfg.slack_ns = 0;
    cfg.up_samples = 1;
    cfg.action_depth = 3;
    cfg.sample_depth = 8;
    e = eng_new(&cfg);
    for (i = 0; i < 6; i++) {
        cum += (uint64_t)avg[i] * 100u;
        x.cycle = 100u * i;
        x.cum = cum;
        CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    }
    /* six samples wait: the ticks at 0.. decide them one per cycle; the port (3) fills at the
     * 4th tick (third change), so advance stops there */
    CHECK_EQ(hcc_rx_next_event(&e->c), 0);
    CHECK_EQ(hcc_rx_advance(&e->c, 1000), 4);
    CHECK_EQ(hcc_rx_now(&e->c), 4);
    CHECK_EQ(hcc_rx_advance(&e->c, 1000), 1000); /* already full: merges, runs on */
    CHECK_EQ(hcc_rx_level(&e->c), 3);
    CHECK_EQ(e->c.stats.actions, 5);
    CHECK_EQ(e->c.stats.merged, 2);
    CHECK_EQ(hcc_rx_peek_action(&e->c, &w), RNIC_OK);
    CHECK_EQ(w.aux, 1);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_OK);
    CHECK_EQ(w.aux, 1);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_OK);
    CHECK_EQ(w.aux, 2);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_OK); /* the newest: the final state */
    CHECK_EQ(w.aux, 3);
    CHECK_EQ(w.addr, 8u * 15000000000ull);
    CHECK(w.flags & HCC_RX_WORK_MERGED);
    CHECK(w.flags & HCC_RX_WORK_UP);
    CHECK_EQ(w.raddr, 500);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_EEMPTY);
    eng_free(e);

    /* capacity 1, never popped: the one record is always the current level */
    default_cfg(&cfg);
    cfg.slack_ns = 0;
    cfg.up_samples = 1;
    cfg.action_depth = 1;
    e = eng_new(&cfg);
    cum = 0;
    for (i = 0; i < 40; i++) {
        uint32_t a = (i * 7u) % 3u == 0 ? 50u : (i * 7u) % 3u == 1 ? 5u : 20u;
        cum += (uint64_t)a * 100u;
        x.cycle = 100u * i;
        x.cum = cum;
        hcc_rx_advance_to(&e->c, x.cycle);
        CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
        hcc_rx_advance(&e->c, 1);
        if (e->c.stats.actions) {
            CHECK_EQ(hcc_rx_peek_action(&e->c, &w), RNIC_OK);
            CHECK_EQ(w.aux, hcc_rx_level(&e->c));
        }
    }
    CHECK(e->c.stats.actions > 5);
    CHECK_EQ(e->c.stats.merged, e->c.stats.actions - 1);
    eng_free(e);
}

/* Fast-forward (advance_to) and ticking give identical records, statistics and trace events,
 * across 2^64. */
static void test_fast_forward_equals_ticking(void)
{
    unsigned run;
    for (run = 0; run < 3; run++) {
        hcc_rx_config cfg;
        tlog la, lb;
        eng *a, *b;
        drive_out da, db;
        smp *s;
        size_t ns = 600, i;
        rnic_prng g;
        uint64_t start = UINT64_MAX - 100000;
        memset(&la, 0, sizeof la);
        memset(&lb, 0, sizeof lb);
        rnic_prng_seed(&g, 4242 + run);
        default_cfg(&cfg);
        cfg.mode = run == 1 ? HCC_RX_MODE_ECN : HCC_RX_MODE_MBA;
        cfg.slack_ns = 20000;
        cfg.up_samples = 3;
        cfg.action_depth = run == 2 ? 1 : 64;
        cfg.start_cycle = start;
        s = (smp *)malloc(ns * sizeof *s);
        gen_samples(&g, 32, 16, 500, ns, s);
        cfg.trace = tlog_fn;
        cfg.trace_user = &la;
        a = eng_new(&cfg);
        cfg.trace_user = &lb;
        b = eng_new(&cfg);
        drive(a, s, ns, start, 77, 0, 1234, &da);
        drive(b, s, ns, start, 77, 1, 1234, &db);
        CHECK(!da.bad && !db.bad);
        CHECK(da.n > 0);
        CHECK_EQ(da.n, db.n);
        for (i = 0; i < da.n && i < db.n; i++)
            CHECK(memcmp(&da.rec[i], &db.rec[i], sizeof(rnic_work)) == 0);
        CHECK(memcmp(&a->c.stats, &b->c.stats, sizeof a->c.stats) == 0);
        CHECK_EQ(hcc_rx_now(&a->c), hcc_rx_now(&b->c));
        CHECK_EQ(la.n, lb.n);
        CHECK(la.n > ns);
        for (i = 0; i < la.n && i < lb.n; i++)
            CHECK(memcmp(&la.ev[i], &lb.ev[i], sizeof(rnic_trace_event)) == 0);
        { /* the contract's layout: the engine's own id, its kinds from 16, an action's OUT a = its
           * index (the change's number), b = its len (0) */
            uint64_t outs = 0;
            for (i = 0; i < la.n; i++) {
                CHECK_EQ(la.ev[i].engine, RNIC_ENGINE_HCC_RX);
                CHECK(la.ev[i].kind < 16u || (la.ev[i].kind >= HCC_RX_TRACE_SAMPLE && la.ev[i].kind <= HCC_RX_TRACE_WRAP));
                if (la.ev[i].kind == RNIC_TRACE_OUT) {
                    CHECK_EQ(la.ev[i].a, outs);
                    CHECK_EQ(la.ev[i].b, 0);
                    outs++;
                }
            }
            CHECK_EQ(outs, a->c.stats.actions);
        }
        CHECK_EQ(a->c.stats.time_at_level[0] + a->c.stats.time_at_level[1] + a->c.stats.time_at_level[2] +
                     a->c.stats.time_at_level[3] + a->c.stats.time_at_level[4],
                 a->c.stats.cycles);
        free(da.rec);
        free(db.rec);
        free(la.ev);
        free(lb.ev);
        free(s);
        eng_free(a);
        eng_free(b);
    }
}

/* Ports and NULL arguments. */
static void test_ports_and_null(void)
{
    hcc_rx_config cfg;
    eng *e;
    hcc_rx_sample x;
    rnic_work w;
    default_cfg(&cfg);
    cfg.sample_depth = 1;
    e = eng_new(&cfg);
    /* NULL engine: refused, nothing to count */
    x.cycle = 10;
    x.cum = 0;
    CHECK_EQ(hcc_rx_push_sample(NULL, &x), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_pop_action(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_peek_action(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_space_sample(NULL), 0);
    CHECK_EQ(hcc_rx_next_event(NULL), RNIC_NEVER);
    CHECK_EQ(hcc_rx_advance(NULL, 5), 0);
    CHECK_EQ(hcc_rx_advance_to(NULL, 5), 0);
    CHECK(hcc_rx_get_stats(NULL) == NULL);
    hcc_rx_tick(NULL);
    /* NULL records: counted */
    CHECK_EQ(hcc_rx_push_sample(&e->c, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_pop_action(&e->c, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_peek_action(&e->c, NULL), RNIC_EINVAL);
    CHECK_EQ(e->c.stats.errors.by_cause[RNIC_EINVAL], 3);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_EEMPTY);
    CHECK_EQ(hcc_rx_peek_action(&e->c, &w), RNIC_EEMPTY);
    /* a full input port answers EBUSY; the refused sample can be pushed again after a tick */
    CHECK_EQ(hcc_rx_sample_due(&e->c), 0);
    CHECK_EQ(hcc_rx_space_sample(&e->c), 1);
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    CHECK_EQ(hcc_rx_sample_due(&e->c), 510);
    CHECK_EQ(hcc_rx_space_sample(&e->c), 0);
    x.cycle = 510;
    x.cum = 40u * 500u;
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_EBUSY);
    CHECK_EQ(e->c.stats.errors.by_cause[RNIC_EBUSY], 1);
    CHECK_EQ(e->c.stats.reasons.port_full, 1);
    CHECK(strstr(hcc_rx_reason_message(HCC_RX_REASON_PORT_FULL), "sample_depth") != NULL);
    CHECK_EQ(rnic_err_total(&e->c.stats.errors), 4);
    CHECK_EQ(e->c.stats.samples, 1);
    CHECK_EQ(hcc_rx_next_event(&e->c), 0);
    hcc_rx_tick(&e->c);
    CHECK_EQ(hcc_rx_space_sample(&e->c), 1);
    CHECK_EQ(hcc_rx_push_sample(&e->c, &x), RNIC_OK);
    CHECK_EQ(hcc_rx_advance(&e->c, 3), 3);
    CHECK_EQ(hcc_rx_pop_action(&e->c, &w), RNIC_OK);
    CHECK_EQ(w.aux, 1);
    CHECK_EQ(w.cycle, 1);   /* the tick that decided it */
    CHECK_EQ(w.raddr, 510); /* the sample that caused it */
    CHECK_EQ(w.flow, 0);
    CHECK_EQ(w.len, 0);
    CHECK_EQ(w.tag, 0);
    CHECK_EQ(w.status, 0);
    eng_free(e);
}

int main(void)
{
    RUN(test_config);
    RUN(test_reference_random);
    RUN(test_slack_steps);
    RUN(test_fast_down);
    RUN(test_calm_consecutive);
    RUN(test_wrap_and_implausible);
    RUN(test_time_backwards);
    RUN(test_ecn_mode);
    RUN(test_off_mode);
    RUN(test_output_full);
    RUN(test_fast_forward_equals_ticking);
    RUN(test_ports_and_null);
    return test_summary();
}
