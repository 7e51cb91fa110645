/* RoCEv2 go-back-N + DCQCN (proto_dcqcn.h) through the transport engine, against the equations.
 *
 * Golden vectors: one flow at 100 Gb/s, 1 GHz clock (1 ns cycles), max_flows = 1 (the periodic
 * scan visits the flow every cycle), one CNP, no further marks; every rate change is recorded
 * through the external pacer's set_rate with its cycle. The expected values and cycles come from
 * small double-precision reference models of the two presets written here from the papers /
 * simulators' equations (event lists in continuous time), and are also checked against the
 * numbers of the issue. Further: alpha EWMA over random CNP patterns (both presets' rules) against
 * a double reference, the byte counter with data and a fake receiver, the alpha/rate ordering
 * flag, the min-rate floor, late periodic visits, go-back-N on NAK and on timeout, the parameter
 * check, the state size. */
#define TP_IMPLEMENTATION
#include "transport.h"
#include "test.h"

#define GBPS 1e9
#define LINE 100000000000ull
#define G (1.0 / 256)

static double fabs_(double d) { return d < 0 ? -d : d; }

/* ---------------------------------------------------------------- harness */

typedef struct amem {
    void *raw, *mem;
    size_t size;
} amem;

typedef struct rec {
    tp *t;
    uint32_t n;
    uint64_t cyc[4096], bps[4096];
} rec;

typedef struct gen_rec {
    uint32_t n;
    uint64_t cyc[8192];
    uint32_t seg[8192], rtx[8192], kind[8192];
} gen_rec;

typedef struct rig {
    amem m;
    tp *t;
    tp_protocol proto;
    tp_dcqcn_config prm;
    rec *r;
    gen_rec *g;
} rig;

static void rec_rate(void *user, uint32_t flow, uint64_t bps)
{
    rec *r = (rec *)user;
    (void)flow;
    if (r->n < 4096u) {
        r->cyc[r->n] = tp_now(r->t);
        r->bps[r->n++] = bps;
    }
}

static void rec_trace(void *user, const rnic_trace_event *ev)
{
    gen_rec *g = (gen_rec *)user;
    if ((ev->kind == TP_TRACE_GENERATE || ev->kind == TP_TRACE_TIMEOUT || ev->kind == TP_TRACE_MARK) && g->n < 8192u) {
        g->cyc[g->n] = ev->cycle;
        g->kind[g->n] = ev->kind;
        g->seg[g->n] = (uint32_t)ev->a;
        g->rtx[g->n++] = (uint32_t)ev->b;
    }
}

static void doorbell(void *user, uint32_t flow)
{
    (void)user;
    (void)flow;
}

/* One flow (id 0) at 100 Gb/s, 1 GHz. external: rates through set_rate (no data leaves). */
static void rig_open(rig *x, const tp_dcqcn_config *prm, uint32_t max_flows, bool external, const tp_flow_config *fp)
{
    tp_config c;
    size_t need, r;
    memset(x, 0, sizeof *x);
    x->prm = *prm;
    x->proto = *tp_protocol_dcqcn();
    x->proto.config = &x->prm;
    x->r = (rec *)calloc(1, sizeof *x->r);
    x->g = (gen_rec *)calloc(1, sizeof *x->g);
    tp_config_default(&c);
    c.clock_hz = 1000000000u;
    c.link_bps = LINE;
    c.max_flows = max_flows;
    c.window = 256;
    c.protocol = &x->proto;
    c.external_pacer = external;
    c.pacer.set_rate = rec_rate;
    c.pacer.doorbell = doorbell;
    c.pacer.user = x->r;
    c.trace = rec_trace;
    c.trace_user = x->g;
    need = tp_mem_size(&c);
    r = (need + 7u) & ~(size_t)7u;
    x->m.raw = malloc(r + 8u);
    x->m.mem = (void *)(((uintptr_t)x->m.raw + 7u) & ~(uintptr_t)7u);
    x->t = (tp *)malloc(sizeof(tp));
    if (need == 0 || tp_init(x->t, &c, x->m.mem, r) != RNIC_OK || tp_flow_open(x->t, 0, fp) != RNIC_OK) {
        printf("rig_open failed\n");
        exit(2);
    }
    x->r->t = x->t;
    x->r->n = 0; /* forget the rate set at open */
    x->g->n = 0;
}

static void rig_close(rig *x)
{
    free(x->t);
    free(x->m.raw);
    free(x->r);
    free(x->g);
}

static void push_pkt(tp *t, uint32_t op, uint32_t index)
{
    rnic_work w;
    memset(&w, 0, sizeof w);
    w.flow = 0;
    w.flags = TP_WORK_PKT(op);
    w.index = index;
    CHECK_EQ(tp_push_incoming(t, &w), RNIC_OK);
}

static void run_to(tp *t, uint64_t cycle)
{
    while (tp_now(t) < cycle)
        tp_tick(t);
}

static tp_dcqcn_ctx ctx_of(const tp *t)
{
    tp_flow_view v;
    tp_dcqcn_ctx c;
    memset(&c, 0, sizeof c);
    if (tp_flow_state(t, 0, &v) == RNIC_OK)
        memcpy(&c, v.ctx, sizeof c);
    return c;
}

static double worst_rel; /* the largest relative error of any golden value */

static void check_rate(uint64_t got_bps, double want_gbps)
{
    double rel = fabs_((double)got_bps / GBPS - want_gbps) / want_gbps;
    if (rel > worst_rel)
        worst_rel = rel;
    if (!(rel <= 1e-6)) {
        char buf[128];
        snprintf(buf, sizeof buf, "rate %.9f Gb/s, want %.9f", (double)got_bps / GBPS, want_gbps);
        test__fail(__FILE__, __LINE__, buf);
    }
}

/* ---------------------------------------------------------------- reference models (double) */

typedef struct ref_ev {
    double t_ns, gbps;
} ref_ev;

/* The paper / htsim reaction point, one CNP at t = 0 and none after: the rate changes it makes up to
 * `until_ns` (a change = a new RC value). Increase by T (timer, 55 us) only: no data is sent. */
static int ref_paper(double rai_gbps, double rhai_gbps, double period_ns, double until_ns, ref_ev *out)
{
    double link = 100, rc = link, rt = link, alpha = 1, t;
    int n = 0, T = 0, BC = 0, F = 5;
    rt = rc;
    rc = rc * (1 - alpha / 2);
    alpha = (1 - G) * alpha + G;
    out[n].t_ns = 0, out[n++].gbps = rc;
    for (t = period_ns; t <= until_ns; t += period_ns) {
        double old = rc;
        T++;
        if (rc >= link)
            continue;
        if ((T > BC ? T : BC) <= F) {
            rc = (rt + rc) / 2;
        } else if ((T < BC ? T : BC) > F) {
            rt += ((T < BC ? T : BC) - F) * rhai_gbps;
            rc = (rt + rc) / 2;
        } else {
            rt += rai_gbps;
            rc = (rt + rc) / 2;
        }
        if (rc > link)
            rc = link;
        if (rc != old)
            out[n].t_ns = t, out[n++].gbps = rc;
    }
    return n;
}

/* The HPCC simulator's Mlx functions, as discrete events in ns: the first CNP (at 0) sets
 * alpha = 1 and schedules alpha updates every 1 us and decrease checks at 4 us + 1 ns, then every
 * 4 us; later CNPs (times in cnp[], off the timers' grid) set both flags. clamp: target = rate at
 * every decrease (else only when stage > 0). */
static int ref_mlx(double until_ns, const double *cnp, int ncnp, bool clamp, ref_ev *out)
{
    double link = 100, rate = link, target = link, alpha = 1;
    double next_alpha = 1000, next_dec = 4001, next_rate = -1;
    int n = 0, stage = 0, F = 1, ci = 0;
    bool alpha_flag = false, dec_flag = true;
    for (;;) {
        double t = next_alpha;
        if (next_dec < t)
            t = next_dec;
        if (next_rate >= 0 && next_rate < t)
            t = next_rate;
        if (ci < ncnp && cnp[ci] < t) {
            alpha_flag = dec_flag = true;
            ci++;
            continue;
        }
        if (t > until_ns)
            break;
        /* events at one instant run in the order ns-3 scheduled them: the rate timer (armed 300 us
         * before) ahead of a decrease check (armed 4 us before); alpha never ties (the + 1 ns) */
        if (t == next_alpha) {
            alpha = alpha_flag ? (1 - G) * alpha + G : (1 - G) * alpha;
            alpha_flag = false;
            next_alpha += 1000;
        } else if (t != next_rate) {
            next_dec += 4000;
            if (dec_flag) {
                if (clamp || stage > 0)
                    target = rate;
                rate = rate * (1 - alpha / 2);
                if (rate < 0.1)
                    rate = 0.1;
                stage = 0;
                dec_flag = false;
                next_rate = t + 300000;
                if (n > 0 && out[n - 1].t_ns == t) /* one rate change per instant: the last value */
                    n--;
                out[n].t_ns = t, out[n++].gbps = rate;
            }
        } else {
            double old = rate;
            next_rate += 300000;
            if (stage < F) {
                rate = (rate + target) / 2;
            } else {
                target += stage == F ? 0.005 : 0.05;
                if (target > link)
                    target = link;
                rate = (rate + target) / 2;
            }
            stage++;
            if (rate != old)
                out[n].t_ns = t, out[n++].gbps = rate;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- golden vectors */

/* The CNP is pushed before the tick of cycle 10: fixed stage in cycle 10, hook (t0) in cycle 11. */
#define CNP_AT 10u
#define T0 (CNP_AT + 1u)

static void golden_run2(const tp_dcqcn_config *prm, const ref_ev *want, int nwant, uint64_t until, const double *cnp,
                        int ncnp)
{
    rig x;
    int i;
    rig_open(&x, prm, 1, true, NULL);
    run_to(x.t, CNP_AT);
    push_pkt(x.t, TP_PKT_CNP, 0);
    for (i = 0; i < ncnp; i++) { /* its hook runs at T0 + cnp[i] */
        run_to(x.t, CNP_AT + (uint64_t)cnp[i]);
        push_pkt(x.t, TP_PKT_CNP, 0);
    }
    run_to(x.t, T0 + until + 1u);
    CHECK_EQ(x.r->n, (uint64_t)nwant);
    for (i = 0; i < nwant && i < (int)x.r->n; i++) {
        CHECK_EQ(x.r->cyc[i], T0 + (uint64_t)want[i].t_ns); /* 1 ns = 1 cycle */
        check_rate(x.r->bps[i], want[i].gbps);
    }
    rig_close(&x);
}

static void golden_run(const tp_dcqcn_config *prm, const ref_ev *want, int nwant, uint64_t until)
{
    golden_run2(prm, want, nwant, until, NULL, 0);
}

static void test_golden_paper(void)
{
    static const double issue[] = {50, 75, 87.5, 93.75, 96.875, 98.4375, 99.23875};
    ref_ev want[64];
    tp_dcqcn_config p;
    int n, i;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    /* R_AI = 40 Mb/s: 50 .. 98.4375 every 55 us, then (100 + 0.04 + 98.4375) / 2 at 330 us */
    n = ref_paper(0.04, 0.2, 55000, 330000, want);
    CHECK_EQ(n, 7);
    for (i = 0; i < 7 && i < n; i++) {
        CHECK(fabs_(want[i].gbps - issue[i]) < 1e-12);
        CHECK(want[i].t_ns == 55000.0 * i);
    }
    golden_run(&p, want, n, 330000);
    /* and on to 1 ms: additive steps (T <= 5 < ... with BC = 0: never hyper) */
    n = ref_paper(0.04, 0.2, 55000, 1000000, want);
    CHECK(n > 7);
    golden_run(&p, want, n, 1000000);
}

static void test_golden_htsim(void)
{
    ref_ev want[64];
    tp_dcqcn_config p;
    int n;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    p.rai_bps = LINE / 20; /* htsim's constructor: R_AI = link / 20, R_HAI = link / 10 */
    p.rhai_bps = LINE / 10;
    n = ref_paper(5, 10, 55000, 600000, want);
    CHECK_EQ(n, 7); /* ... 98.4375 -> 100 (capped) at 330 us, then nothing at line rate */
    if (n == 7) {
        CHECK(want[6].gbps == 100.0 && want[6].t_ns == 330000.0);
    }
    golden_run(&p, want, n, 600000);
}

static void test_golden_mellanox(void)
{
    static const double issue[] = {50.7767, 75.3883, 87.6942, 93.8471, 96.9235, 98.4618};
    ref_ev want[64];
    tp_dcqcn_config p;
    int n, i;
    tp_dcqcn_preset(&p, TP_DCQCN_MELLANOX);
    n = ref_mlx(4001.0 + 5 * 300000.0, NULL, 0, false, want);
    CHECK_EQ(n, 6);
    for (i = 0; i < 6 && i < n; i++) {
        CHECK(fabs_(want[i].gbps - issue[i]) < 0.5e-4);
        CHECK(want[i].t_ns == 4001.0 + 300000.0 * i);
    }
    CHECK(fabs_(want[0].gbps - 100 * (1 - (1 - G) * (1 - G) * (1 - G) * (1 - G) / 2)) < 1e-12);
    golden_run(&p, want, n, 4001u + 5u * 300000u);
}

/* Mellanox with more CNPs: one before the first increase (stage 0: the target stays unless
 * clamp_target), one at stage 2 (target = rate, then fast recovery, additive + 5 Mb/s, hyper
 * + 50 Mb/s below line rate), a burst of three in one decrease interval. */
static void test_mellanox_cnps(void)
{
    static const double cnp[] = {100500, 700500, 1500300, 1500700, 1501900};
    ref_ev want[64];
    tp_dcqcn_config p;
    int n, clamp;
    for (clamp = 0; clamp < 2; clamp++) {
        tp_dcqcn_preset(&p, TP_DCQCN_MELLANOX);
        if (clamp)
            p.flags |= TP_DCQCN_F_CLAMP_TARGET;
        n = ref_mlx(3000000, cnp, 5, clamp != 0, want);
        CHECK(n >= 10);
        golden_run2(&p, want, n, 3000000, cnp, 5);
    }
}

/* Late visits: max_flows = 7, so flow 0 is seen every 7 cycles; each increase happens at the
 * first visit at or after t0 + k x period (the cadence does not drift). */
static void test_late_visits(void)
{
    rig x;
    tp_dcqcn_config p;
    uint64_t scan0, k, want_at;
    uint32_t i;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    p.rate_period_ns = 1000;
    rig_open(&x, &p, 7, true, NULL);
    run_to(x.t, CNP_AT);
    push_pkt(x.t, TP_PKT_CNP, 0);
    scan0 = 0; /* flow 0 is visited at cycles 0, 7, 14, ... (the scan starts at id 0 in cycle 0) */
    run_to(x.t, T0 + 5500u);
    CHECK_EQ(x.r->n, 6);
    CHECK_EQ(x.r->cyc[0], T0);
    for (i = 1; i < x.r->n; i++) {
        k = T0 + i * 1000u;
        want_at = k + (7u - (k - scan0) % 7u) % 7u;
        CHECK_EQ(x.r->cyc[i], want_at);
    }
    rig_close(&x);
    /* a period shorter than the visit interval: one update per visit, every visit */
    p.rate_period_ns = 2;
    rig_open(&x, &p, 7, true, NULL);
    run_to(x.t, CNP_AT);
    push_pkt(x.t, TP_PKT_CNP, 0);
    run_to(x.t, T0 + 40u);
    CHECK_EQ(x.r->n, 7); /* the cut, then fast-recovery steps at the visits 14, 21, ... 49 */
    for (i = 1; i < x.r->n; i++)
        CHECK_EQ(x.r->cyc[i], 7u + 7u * i);
    rig_close(&x);
}

/* ---------------------------------------------------------------- alpha EWMA, random CNPs */

static void test_alpha_mlx_random(void)
{
    rig x;
    tp_dcqcn_config p;
    rnic_prng rng;
    double a = 1, err, worst = 0;
    uint32_t k;
    tp_dcqcn_preset(&p, TP_DCQCN_MELLANOX);
    rnic_prng_seed(&rng, 11);
    rig_open(&x, &p, 1, true, NULL);
    run_to(x.t, CNP_AT);
    push_pkt(x.t, TP_PKT_CNP, 0); /* first CNP: alpha = 1, flag cleared; updates at T0 + 1000 k */
    for (k = 0; k < 1000u; k++) {
        bool mark = rnic_prng_below(&rng, 10) < 3;
        run_to(x.t, T0 + 1000u * k + 400u);
        if (mark) {
            push_pkt(x.t, TP_PKT_CNP, 0);
            if (rnic_prng_below(&rng, 2)) { /* a second CNP in the same interval sets the same flag */
                tp_tick(x.t);
                push_pkt(x.t, TP_PKT_CNP, 0);
            }
        }
        run_to(x.t, T0 + 1000u * (k + 1u) + 1u);
        a = mark ? (1 - G) * a + G : (1 - G) * a;
        err = fabs_(ctx_of(x.t).alpha / 2147483648.0 - a);
        worst = err > worst ? err : worst;
        CHECK(err < 2e-8);
        if (TEST_FAILS())
            break;
    }
    printf("  mellanox alpha: 1000 updates, max |alpha - ref| = %.3g\n", worst);
    rig_close(&x);
}

/* The paper's rule: a CNP moves alpha up at once and restarts the alpha timer; the timer decays it
 * after each period without a CNP. Period 1,500 ns; CNPs at random cycles. */
static void test_alpha_paper_random(void)
{
    rig x;
    tp_dcqcn_config p;
    rnic_prng rng;
    double a = 1, err, worst = 0;
    uint64_t now = 0, next_decay = 0, cnp_hook;
    bool armed = false;
    uint32_t k;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    p.alpha_period_ns = 1500;
    rnic_prng_seed(&rng, 12);
    rig_open(&x, &p, 1, true, NULL);
    for (k = 0; k < 1000u; k++) {
        now += 200u + rnic_prng_below(&rng, 4000); /* the next CNP is pushed before tick `now` */
        cnp_hook = now + 1u;
        while (armed && next_decay < cnp_hook) { /* decays due before the CNP's hook (a tie: the CNP first) */
            a *= 1 - G;
            next_decay += 1500u;
        }
        a = (1 - G) * a + G;
        next_decay = cnp_hook + 1500u;
        armed = true;
        run_to(x.t, now);
        push_pkt(x.t, TP_PKT_CNP, 0);
        run_to(x.t, cnp_hook + 1u);
        err = fabs_(ctx_of(x.t).alpha / 2147483648.0 - a);
        worst = err > worst ? err : worst;
        CHECK(err < 2e-8);
        if (TEST_FAILS())
            break;
    }
    printf("  paper alpha: 1000 CNPs, max |alpha - ref| = %.3g\n", worst);
    rig_close(&x);
}

/* ---------------------------------------------------------------- cut ordering, floor */

static void test_order_flag(void)
{
    rig x;
    tp_dcqcn_config p;
    double a0 = 0.5, a1 = (1 - G) * a0 + G;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    p.alpha_init = TP_DCQCN_ONE / 2;
    rig_open(&x, &p, 1, true, NULL);
    push_pkt(x.t, TP_PKT_CNP, 0);
    run_to(x.t, 3);
    CHECK_EQ(x.r->n, 1);
    check_rate(x.r->bps[0], 100 * (1 - a0 / 2)); /* rate first: the old alpha (75 Gb/s) */
    CHECK(fabs_(ctx_of(x.t).alpha / 2147483648.0 - a1) < 1e-9);
    rig_close(&x);
    p.flags |= TP_DCQCN_F_ALPHA_FIRST;
    rig_open(&x, &p, 1, true, NULL);
    push_pkt(x.t, TP_PKT_CNP, 0);
    run_to(x.t, 3);
    CHECK_EQ(x.r->n, 1);
    check_rate(x.r->bps[0], 100 * (1 - a1 / 2)); /* alpha first: 74.90234375 Gb/s */
    rig_close(&x);
}

static void test_min_rate_floor(void)
{
    rig x;
    tp_dcqcn_config p;
    uint64_t want = LINE;
    uint32_t i;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    rig_open(&x, &p, 1, true, NULL);
    for (i = 0; i < 14u; i++) { /* a CNP every 10 us (< the 55 us timer): alpha stays 1, RC halves */
        push_pkt(x.t, TP_PKT_CNP, 0);
        run_to(x.t, tp_now(x.t) + 10000u);
        want = want / 2 < 100000000u ? 100000000u : want / 2;
        {
            tp_flow_view v;
            tp_flow_state(x.t, 0, &v);
            CHECK_EQ(v.rate_bps, want);
        }
    }
    CHECK_EQ(want, 100000000u);
    rig_close(&x);
}

/* ---------------------------------------------------------------- byte counter with data */

static void test_byte_counter(void)
{
    rig x;
    tp_dcqcn_config p;
    tp_flow_view v;
    rnic_work msg, seg;
    double rc = 100, rt = 100;
    uint32_t sent_before[2] = {0, 0}, base = 0, events = 0, bc = 0;
    uint64_t last_rate = LINE, c, cnp_at = 5000;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    p.byte_counter = 100000; /* B = 100 KB = 100 segments of 1,000 B */
    p.rate_period_ns = 1000000000u; /* the timer stays out of the way */
    rig_open(&x, &p, 1, false, NULL);
    memset(&msg, 0, sizeof msg);
    msg.flow = 0;
    msg.len = 20000000u;
    CHECK_EQ(tp_push_message(x.t, &msg), RNIC_OK);
    for (c = 0; c < 200000u && events < 8u; c++) {
        if (c == cnp_at)
            push_pkt(x.t, TP_PKT_CNP, 0);
        tp_tick(x.t);
        while (tp_pop_segment(x.t, &seg) == RNIC_OK) /* the fake receiver: ACK at once */
            push_pkt(x.t, TP_PKT_ACK, seg.index + 1u);
        tp_flow_state(x.t, 0, &v);
        if (c == cnp_at + 1u) { /* the CNP hook: RC = 50, the counter restarts at what was sent */
            CHECK_EQ(v.rate_bps, LINE / 2);
            rt = rc, rc /= 2;
            base = sent_before[0];
            last_rate = v.rate_bps;
        } else if (v.rate_bps != last_rate) {
            /* an increase at the first visit that sees B bytes sent since the last event */
            CHECK(c > cnp_at + 1u);
            CHECK((uint64_t)(sent_before[0] - base) * 1000u >= p.byte_counter);
            CHECK((uint64_t)(sent_before[1] - base) * 1000u < p.byte_counter);
            base = sent_before[0];
            bc++;
            if (bc <= 5u) { /* max(T = 0, BC) <= F: fast recovery */
                rc = (rt + rc) / 2;
            } else { /* min(T, BC) = 0: additive */
                rt += 0.04;
                rc = (rt + rc) / 2;
            }
            if (rc > 100)
                rc = 100;
            check_rate(v.rate_bps, rc);
            last_rate = v.rate_bps;
            events++;
        }
        sent_before[1] = sent_before[0];
        sent_before[0] = v.total_sent;
    }
    CHECK_EQ(events, 8);
    rig_close(&x);
}

/* ---------------------------------------------------------------- go-back-N */

static void test_gbn_nack(void)
{
    rig x;
    tp_dcqcn_config p;
    tp_flow_view v;
    rnic_work msg, seg;
    uint32_t hs = 0, i, j, next;
    uint64_t c, hook = 0;
    bool nacked = false;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    rig_open(&x, &p, 1, false, NULL);
    memset(&msg, 0, sizeof msg);
    msg.flow = 0;
    msg.len = 60000u; /* 60 segments */
    CHECK_EQ(tp_push_message(x.t, &msg), RNIC_OK);
    for (c = 0; c < 20000u; c++) {
        tp_flow_state(x.t, 0, &v);
        if (!nacked && v.highest_sent >= 25u) { /* PSN 5 .. 7 arrived, 8 was lost: ACK 5, NAK 8 */
            push_pkt(x.t, TP_PKT_ACK, 5);
            tp_tick(x.t);
            hs = 0;
            push_pkt(x.t, TP_PKT_NACK, 8);
            tp_flow_state(x.t, 0, &v);
            hs = v.highest_sent; /* the hook runs next cycle, before that cycle's generation */
            hook = tp_now(x.t) + 1u;
            nacked = true;
            x.g->n = 0;
        }
        tp_tick(x.t);
        while (tp_pop_segment(x.t, &seg) == RNIC_OK) {
        }
    }
    CHECK(nacked);
    /* the mark [8, hs) in the hook cycle, then generation of 8, 9, .. hs - 1 again, then new data */
    CHECK(x.g->n > 0 && x.g->kind[0] == TP_TRACE_MARK);
    if (x.g->n > 0) {
        CHECK_EQ(x.g->cyc[0], hook);
        CHECK_EQ(x.g->seg[0], 8);
        CHECK_EQ(x.g->rtx[0], hs);
    }
    next = 8;
    for (i = 1, j = 0; i < x.g->n && next < 60u; i++) {
        if (x.g->kind[i] != TP_TRACE_GENERATE)
            continue;
        CHECK_EQ(x.g->seg[i], next);
        CHECK_EQ(x.g->rtx[i], next < hs ? 1u : 0u);
        next++;
        j++;
    }
    CHECK_EQ(next, 60);
    CHECK_EQ(tp_get_stats(x.t)->segments_rtx, hs - 8u);
    rig_close(&x);
}

static void test_gbn_timeout(void)
{
    rig x;
    tp_dcqcn_config p;
    tp_flow_config fp;
    rnic_work msg, seg;
    uint32_t i, round = 0, next = 0;
    uint64_t first_gen = 0, last_to = 0;
    tp_dcqcn_preset(&p, TP_DCQCN_PAPER);
    tp_flow_config_default(&fp);
    fp.rto_ns = 20000u; /* 20,000 cycles */
    rig_open(&x, &p, 1, false, &fp);
    memset(&msg, 0, sizeof msg);
    msg.flow = 0;
    msg.len = 30000u; /* 30 segments, never acknowledged */
    CHECK_EQ(tp_push_message(x.t, &msg), RNIC_OK);
    while (tp_now(x.t) < 65000u) {
        tp_tick(x.t);
        while (tp_pop_segment(x.t, &seg) == RNIC_OK) {
        }
    }
    CHECK_EQ(tp_get_stats(x.t)->timeouts, 3);
    /* round 0: 0 .. 29 new; each timeout: 0 .. 29 again (marked all), 20,000 cycles apart */
    for (i = 0; i < x.g->n; i++) {
        if (x.g->kind[i] == TP_TRACE_TIMEOUT) {
            CHECK_EQ(next, 30);
            CHECK_EQ(x.g->cyc[i], round == 0 ? first_gen + 20000u : last_to + 20000u);
            last_to = x.g->cyc[i];
            round++;
            next = 0;
        } else if (x.g->kind[i] == TP_TRACE_MARK) {
            CHECK_EQ(x.g->seg[i], 0);
            CHECK_EQ(x.g->rtx[i], 30);
            CHECK_EQ(x.g->cyc[i], last_to);
        } else {
            if (round == 0 && next == 0)
                first_gen = x.g->cyc[i];
            CHECK_EQ(x.g->seg[i], next);
            CHECK_EQ(x.g->rtx[i], round > 0 ? 1u : 0u);
            next++;
        }
    }
    CHECK_EQ(round, 3);
    rig_close(&x);
}

/* ---------------------------------------------------------------- parameters, state */

static void test_params_check(void)
{
    tp_dcqcn_config good[2], b;
    tp_protocol proto = *tp_protocol_dcqcn();
    tp_config cfg;
    const char *field = NULL;
    int i, k;
    tp_dcqcn_preset(&good[0], TP_DCQCN_PAPER);
    tp_dcqcn_preset(&good[1], TP_DCQCN_MELLANOX);
    CHECK_EQ(tp_dcqcn_config_check(NULL), RNIC_OK);
    CHECK_EQ(tp_dcqcn_config_check(&good[0]), RNIC_OK);
    CHECK_EQ(tp_dcqcn_config_check(&good[1]), RNIC_OK);
    CHECK_EQ(tp_dcqcn_config_check(tp_protocol_dcqcn()->config), RNIC_OK);
    CHECK(memcmp(tp_protocol_dcqcn()->config, &good[0], sizeof good[0]) == 0);
    tp_dcqcn_preset(&b, 7u);
    CHECK_EQ(tp_dcqcn_config_check(&b), RNIC_EINVAL);
    tp_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    cfg.protocol = &proto;
    for (k = 0; k < 2; k++) {
        for (i = 0; i < 22; i++) {
            b = good[k];
            switch (i) {
            case 0: b.g = 0; break;
            case 1: b.g = TP_DCQCN_ONE; break;
            case 2: b.f = 0; break;
            case 3: b.alpha_period_ns = 0; break;
            case 4: b.rate_period_ns = 0; break;
            case 5: b.rate_floor_bps = 200000000000ull, b.link_bps = 100000000000ull; break;
            case 6: b.alpha_init = TP_DCQCN_ONE + 1u; break;
            case 7: b.first_cnp_rate = 0; break;
            case 8: b.first_cnp_rate = TP_DCQCN_ONE + 1u; break;
            case 9: b.f = 255; break;
            case 10: b.rate_period_ns = 1000000001u; break;
            case 11: b.decrease_period_ns = 1000u, b.decrease_delay_ns = 1001u; break;
            case 12: b.flags = 32u; break;
            case 13: b.rate_floor_bps = 0; break;
            case 14: b.rate_floor_bps = RNIC_RATE_MAX_BPS + 1u; break;
            case 15: b.rai_bps = RNIC_RATE_MAX_BPS + 1u; break;
            case 16: b.rhai_bps = RNIC_RATE_MAX_BPS + 1u; break;
            case 17: b.link_bps = RNIC_RATE_MAX_BPS + 1u; break;
            /* 64-bit periods past 2^32 ns: refused whole, not read modulo 2^32 (a 1,000 ns period) */
            case 18: b.alpha_period_ns = (1ull << 32) + 1000u; break;
            case 19: b.rate_period_ns = (1ull << 32) + 1000u; break;
            case 20: b.decrease_period_ns = (1ull << 32) + 1000u, b.decrease_delay_ns = 1u; break;
            default: b.g = 0xffffffffu; break;
            }
            CHECK_EQ(tp_dcqcn_config_check(&b), RNIC_EINVAL);
            proto.config = &b;
            CHECK_EQ(tp_config_check(&cfg, &field), RNIC_EINVAL);
            CHECK(field && strcmp(field, "protocol.config") == 0);
        }
        proto.config = &good[k];
        CHECK_EQ(tp_config_check(&cfg, &field), RNIC_OK);
    }
    /* boundaries that are fine */
    b = good[0];
    b.g = TP_DCQCN_ONE - 1u, b.f = 254, b.rate_period_ns = 1000000000u, b.link_bps = b.rate_floor_bps;
    CHECK_EQ(tp_dcqcn_config_check(&b), RNIC_OK);
}

static void test_state(void)
{
    const tp_protocol *p = tp_protocol_dcqcn();
    CHECK_EQ(p->ctx_size, sizeof(tp_dcqcn_ctx));
    CHECK(p->ctx_size <= TP_CTX_MAX_RATE);
    CHECK_EQ(p->credit, TP_CREDIT_RATE);
    CHECK(p->periodic_every_visit);
    CHECK(strcmp(p->name, "dcqcn") == 0);
    printf("  dcqcn context: %u bytes (budget %u)\n", (unsigned)p->ctx_size, (unsigned)TP_CTX_MAX_RATE);
}

int main(void)
{
    RUN(test_golden_paper);
    RUN(test_golden_htsim);
    RUN(test_golden_mellanox);
    RUN(test_mellanox_cnps);
    printf("  golden vectors: max relative error %.3g\n", worst_rel);
    RUN(test_late_visits);
    RUN(test_alpha_mlx_random);
    RUN(test_alpha_paper_random);
    RUN(test_order_flag);
    RUN(test_min_rate_floor);
    RUN(test_byte_counter);
    RUN(test_gbn_nack);
    RUN(test_gbn_timeout);
    RUN(test_params_check);
    RUN(test_state);
    return test_summary();
}
