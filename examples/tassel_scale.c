/* Tassel Fig. 8 (scalability): many concurrent, always-backlogged QPs whose rate limits span
 * 100 Kb/s .. 100 Gb/s on a 100 Gb/s link, 250 MHz clock, mtu 4096, the paper's n = 8,
 * L = 1 us = 250 cycles (rl_config_default's pcie_latency_ns), k as desc_for() below.
 *   (a) not oversubscribed: the rates sum to 0.95 x link; each QP should get its rate;
 *   (b) Phi = 2: more high-rate QPs, the rates sum to 2 x link; each QP should get rate / Phi
 *       (weighted sharing).
 * Both with 1,024 and with 65,536 QPs. Each QP's throughput is measured over a window
 * [t0, t1) after a warm-up, from the cycles of its TX records, against its expected rate.
 *
 * Rates (deterministic, seeded): a few QPs per high decade and many in the low ones (top
 * decade first: 1, 4, 16, 64, 256 QPs for (a); 4, 8, 16, 64, 256 for (b); every other QP in
 * 100 Kb/s .. 1 Mb/s), each drawn log-uniformly inside its decade (rnic_prng_log_range), then
 * scaled in log space, r = 100K * (r0 / 100K)^gamma (the 100 Kb/s floor stays put, the
 * spread stays logarithmic, nothing leaves [100 Kb/s, link]), with gamma chosen so that the
 * sum is exactly 0.95 x link or 2 x link (the few bps of integer rounding go to the largest
 * QP).
 *
 * WQE (message) sizes scale with the rate -- the largest power of two from 64 B to 4096 B
 * (= mtu, one packet per WQE) that still gives the QP at least --packets packets in the
 * window -- so that one packet is at most 1 / --packets of every QP's count while the slow
 * QPs stay cheap to simulate. The window is as long as the slowest QP needs at 64 B.
 *
 * Two baselines the paper argues against run on the same rates, WQE sizes and windows,
 * modelled here (not in the engine), event-driven at cycle granularity:
 *   token bucket (SENIC-style): one bucket per QP of --burst bytes, refilled every cycle at
 *     the QP's rate; the link (serialising at line rate) serves, round-robin, the QPs whose
 *     bucket holds their next packet;
 *   round robin: one packet per backlogged QP per round, no rate enforcement (link share).
 *     It is periodic, so it is measured over --packets rounds.
 * Burstiness: sigma, the smallest bucket depth (bytes) at the QP's expected rate to which its
 * departures in the window conform, max over A(s,t) - rate (t - s); one packet for a perfect
 * pacer. Also the longest run of back-to-back packets of one QP on the wire.
 *
 *   build/tassel_scale [--quick] [--qps N] [--desc K] [--csv FILE] [--packets N] [--burst BYTES] [--seed S]
 *                      [--no-big-baselines]
 * --quick: 1,024 QPs only, 400 packets per QP. --qps N: only N QPs (64 .. 65536).
 * --desc K: descriptor buffer capacity k for every run (default: 60, the paper's, up to 1,024
 * QPs; 256 at 65,536 QPs -- see desc_for()).
 * CSV: one row per QP and scheme.
 * Ends with: RESULT qps=... max_err_pct_phi1=... max_err_pct_phi2=... tb_max_err_pct=...
 * rr_max_err_pct=... (tassel worst over both sizes; baselines worst over every case run). */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"

#define CLOCK_HZ 250000000ull
#define LINK_BPS 100000000000ull
#define MIN_RATE 100000ull
#define MIN_WQE 64u
#define NDEC 6 /* decades 100K..1M .. 10G..100G */
#define WARMUP_S 0.05

/* Descriptor buffer k: the paper's 60 up to 1,024 QPs (its setup); 256 (RL_MAX_DESC) for the
 * 65,536-QP runs, where k = 60 leaves the fastest QPs short under Phi = 2 (the default run also
 * measures that case and reports it: phi2_64k_k60_pct). --desc K forces one k everywhere. */
static uint32_t desc_capacity_k = 60;
static uint32_t desc_for(uint32_t n, uint32_t forced) { return forced ? forced : n <= 1024u ? 60u : RL_MAX_DESC; }

/* ---- small math without libm (the examples link no -lm) ---- */

static const double LN2 = 0.69314718055994530942;

static double ln_(double x) /* x > 0 */
{
    double k = 0, y, y2, s = 0, t;
    int i;
    while (x > 2) {
        x *= 0.5;
        k += 1;
    }
    while (x < 1) {
        x *= 2;
        k -= 1;
    }
    y = (x - 1) / (x + 1); /* ln x = 2 atanh y, |y| <= 1/3 */
    y2 = y * y;
    t = y;
    for (i = 1; i < 64; i += 2) {
        s += t / i;
        t *= y2;
    }
    return 2 * s + k * LN2;
}

static double exp_(double x)
{
    double k = x / LN2, r, s = 1, t = 1;
    long ki = (long)(k < 0 ? k - 0.5 : k + 0.5), j;
    int i;
    r = x - (double)ki * LN2;
    for (i = 1; i < 30; i++) {
        t *= r / i;
        s += t;
    }
    for (j = 0; j < ki; j++)
        s *= 2;
    for (j = 0; j > ki; j--)
        s *= 0.5;
    return s;
}

static double dabs(double x) { return x < 0 ? -x : x; }
static uint64_t ceil_u64(double x) /* x >= 0 */
{
    uint64_t c = (uint64_t)x;
    return (double)c < x ? c + 1u : c;
}

static double cpu_s(void) { return (double)clock() / (double)CLOCKS_PER_SEC; }

/* ---- scenario: rates, expected rates, WQE sizes, window ---- */

typedef struct scenario {
    uint32_t n;
    int oversub;         /* 0: (a) sum 0.95 x link; 1: (b) sum 2 x link */
    uint64_t sum_bps;
    double phi;          /* sum / link */
    double gamma;        /* log-space scale exponent */
    uint64_t *rate;      /* configured rate limit */
    double *expect;      /* expected throughput: rate / max(1, Phi) */
    uint32_t *wqe;       /* WQE (= packet) size */
    int *decade;
    uint64_t t0, t1;     /* measurement window, cycles */
    uint32_t packets;    /* per-QP packet target in the window */
} scenario;

static int decade_of(uint64_t r)
{
    int d = 0;
    uint64_t hi = MIN_RATE * 10u;
    while (d < NDEC - 1 && r >= hi) {
        d++;
        hi *= 10u;
    }
    return d;
}

static const char *decade_name[NDEC] = { "100K-1M", "1M-10M", "10M-100M", "100M-1G", "1G-10G", "10G-100G" };

static double sum_at(const scenario *s, const double *lnr, double gamma)
{
    double sum = 0, cap = (double)LINK_BPS;
    uint32_t i;
    for (i = 0; i < s->n; i++) {
        double v = (double)MIN_RATE * exp_(gamma * lnr[i]);
        sum += v < cap ? v : cap;
    }
    return sum;
}

static int make_scenario(scenario *s, uint32_t n, int oversub, uint32_t packets, uint64_t seed)
{
    static const uint32_t top_a[NDEC - 1] = { 1, 4, 16, 64, 256 }, top_b[NDEC - 1] = { 4, 8, 16, 64, 256 };
    const uint32_t *top = oversub ? top_b : top_a;
    rnic_prng p;
    double *lnr, lo = 0, hi = 4, min_expect = 0, window_s;
    uint64_t sum = 0, warm;
    uint32_t i, j, d, left = n;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->oversub = oversub;
    s->packets = packets;
    s->sum_bps = oversub ? 2u * LINK_BPS : LINK_BPS / 100u * 95u;
    s->rate = (uint64_t *)malloc(n * sizeof *s->rate);
    s->expect = (double *)malloc(n * sizeof *s->expect);
    s->wqe = (uint32_t *)malloc(n * sizeof *s->wqe);
    s->decade = (int *)malloc(n * sizeof *s->decade);
    lnr = (double *)malloc(n * sizeof *lnr);
    if (!s->rate || !s->expect || !s->wqe || !s->decade || !lnr)
        return 1;
    /* decades: the top ones get the fixed few QPs, the lowest everything else */
    i = 0;
    for (d = NDEC - 1; d >= 1; d--) {
        uint32_t c = top[NDEC - 1 - d] < left ? top[NDEC - 1 - d] : left;
        for (j = 0; j < c; j++)
            s->decade[i++] = (int)d;
        left -= c;
    }
    while (i < n)
        s->decade[i++] = 0;
    rnic_prng_seed(&p, seed ^ ((uint64_t)n << 20) ^ (uint64_t)oversub);
    for (i = n - 1; i > 0; i--) { /* shuffle: QP numbers (RR order, tie-breaks) carry no rate order */
        uint32_t k = (uint32_t)rnic_prng_below(&p, (uint64_t)i + 1u);
        int t = s->decade[i];
        s->decade[i] = s->decade[k];
        s->decade[k] = t;
    }
    for (i = 0; i < n; i++) {
        uint64_t a = MIN_RATE, b;
        for (d = 0; d < (uint32_t)s->decade[i]; d++)
            a *= 10u;
        b = s->decade[i] == NDEC - 1 ? LINK_BPS : a * 10u - 1u;
        lnr[i] = ln_((double)rnic_prng_log_range(&p, a, b) / (double)MIN_RATE);
    }
    /* gamma by bisection: sum_at is increasing in gamma */
    if (sum_at(s, lnr, 0) > (double)s->sum_bps || sum_at(s, lnr, hi) < (double)s->sum_bps) {
        fprintf(stderr, "cannot reach a rate sum of %llu with %u QPs\n", (unsigned long long)s->sum_bps, n);
        return 1;
    }
    for (j = 0; j < 200; j++) {
        double mid = 0.5 * (lo + hi);
        if (sum_at(s, lnr, mid) <= (double)s->sum_bps)
            lo = mid;
        else
            hi = mid;
    }
    s->gamma = lo;
    for (i = 0; i < n; i++) {
        double v = (double)MIN_RATE * exp_(lo * lnr[i]);
        uint64_t r = v >= (double)LINK_BPS ? LINK_BPS : (uint64_t)v;
        s->rate[i] = r < MIN_RATE ? MIN_RATE : r;
        sum += s->rate[i];
    }
    while (sum != s->sum_bps) { /* integer rounding: the residue goes to the largest QP(s) below the link */
        uint32_t best = n;
        for (i = 0; i < n; i++)
            if ((sum < s->sum_bps ? s->rate[i] < LINK_BPS : s->rate[i] > MIN_RATE) &&
                (best == n || s->rate[i] > s->rate[best]))
                best = i;
        if (best == n)
            return 1;
        if (sum < s->sum_bps) {
            uint64_t add = s->sum_bps - sum, room = LINK_BPS - s->rate[best];
            add = add < room ? add : room;
            s->rate[best] += add;
            sum += add;
        } else {
            uint64_t sub = sum - s->sum_bps, room = s->rate[best] - MIN_RATE;
            sub = sub < room ? sub : room;
            s->rate[best] -= sub;
            sum -= sub;
        }
    }
    s->phi = (double)s->sum_bps / (double)LINK_BPS;
    for (i = 0; i < n; i++) {
        s->decade[i] = decade_of(s->rate[i]);
        s->expect[i] = (double)s->rate[i] / (s->phi > 1 ? s->phi : 1.0);
        if (min_expect == 0 || s->expect[i] < min_expect)
            min_expect = s->expect[i];
    }
    /* window: the slowest QP sends `packets` packets of MIN_WQE bytes */
    window_s = (double)packets * MIN_WQE * 8.0 / min_expect;
    for (i = 0; i < n; i++) {
        double need = s->expect[i] * window_s / 8.0 / (double)packets; /* bytes per packet for `packets` */
        uint32_t w = MIN_WQE;
        while (w < 4096u && (double)(2u * w) <= need)
            w *= 2u;
        s->wqe[i] = w;
    }
    warm = (uint64_t)(WARMUP_S * (double)CLOCK_HZ);
    s->t0 = warm;
    s->t1 = warm + ceil_u64(window_s * (double)CLOCK_HZ);
    free(lnr);
    return 0;
}

static void free_scenario(scenario *s)
{
    free(s->rate);
    free(s->expect);
    free(s->wqe);
    free(s->decade);
}

/* ---- per-QP measurement, shared by the three schedulers ---- */

#define HIST 32u /* departures remembered per QP for the in-gap burst count (counts cap at HIST) */

typedef struct meter {
    const scenario *s;
    uint64_t *bytes, *pkts;
    double *cum, *minv, *sigma; /* sigma: max over the window of A(s,t) - rho (t - s), bytes */
    uint64_t *hist;             /* HIST most recent departure cycles per QP (ring) */
    uint32_t *in_gap;           /* max packets of the QP within one ideal gap */
    uint32_t last_qp, run, max_run, max_run_qp;
    uint64_t total_pkts;
} meter;

static int meter_init(meter *m, const scenario *s)
{
    uint32_t n = s->n;
    memset(m, 0, sizeof *m);
    m->s = s;
    m->bytes = (uint64_t *)calloc(n, sizeof *m->bytes);
    m->pkts = (uint64_t *)calloc(n, sizeof *m->pkts);
    m->cum = (double *)calloc(n, sizeof *m->cum);
    m->minv = (double *)calloc(n, sizeof *m->minv);
    m->sigma = (double *)calloc(n, sizeof *m->sigma);
    m->hist = (uint64_t *)calloc((size_t)n * HIST, sizeof *m->hist);
    m->in_gap = (uint32_t *)calloc(n, sizeof *m->in_gap);
    m->last_qp = UINT32_MAX;
    return !m->bytes || !m->pkts || !m->cum || !m->minv || !m->sigma || !m->hist || !m->in_gap;
}

static void meter_free(meter *m)
{
    free(m->bytes);
    free(m->pkts);
    free(m->cum);
    free(m->minv);
    free(m->sigma);
    free(m->hist);
    free(m->in_gap);
}

/* one departure of `len` bytes of `qp` at `cycle`, within [t0, t1) (checked by the caller) */
static void meter_packet(meter *m, uint32_t qp, uint32_t len, uint64_t cycle, uint64_t t0)
{
    double rho = m->s->expect[qp] / 8.0 / (double)CLOCK_HZ; /* bytes per cycle */
    double t = (double)(cycle - t0), v = m->cum[qp] - rho * t, e;
    /* ideal gap in whole cycles: departures of a perfect pacer at integer cycles are never
     * closer than floor(gap), so it counts 1 packet per gap */
    uint64_t gap = (uint64_t)((double)len * 8.0 * (double)CLOCK_HZ / m->s->expect[qp]);
    uint64_t *h = m->hist + (size_t)qp * HIST, np = m->pkts[qp];
    uint32_t c = 1;
    while (c < HIST && c <= np && cycle - h[(np - c) % HIST] < gap)
        c++;
    if (c > m->in_gap[qp])
        m->in_gap[qp] = c;
    h[np % HIST] = cycle;
    if (m->pkts[qp] == 0 || v < m->minv[qp])
        m->minv[qp] = v;
    m->cum[qp] += len;
    e = m->cum[qp] - rho * t - m->minv[qp];
    if (e > m->sigma[qp])
        m->sigma[qp] = e;
    m->bytes[qp] += len;
    m->pkts[qp]++;
    m->total_pkts++;
    if (qp == m->last_qp) {
        m->run++;
    } else {
        m->last_qp = qp;
        m->run = 1;
    }
    if (m->run > m->max_run) {
        m->max_run = m->run;
        m->max_run_qp = qp;
    }
}

typedef struct summary {
    double max_err, mean_err, sigma_pkts, sigma_bytes;
    uint32_t worst_qp, sigma_qp, min_pkts, in_gap, in_gap_qp;
    double dec_max[NDEC], dec_mean[NDEC];
    uint32_t dec_n[NDEC], dec_wqe_lo[NDEC], dec_wqe_hi[NDEC], dec_min_pkts[NDEC];
} summary;

static void summarise(const meter *m, double window_cycles, summary *out, FILE *csv, const char *scheme)
{
    const scenario *s = m->s;
    uint32_t i;
    int d;
    memset(out, 0, sizeof *out);
    out->min_pkts = UINT32_MAX;
    for (d = 0; d < NDEC; d++)
        out->dec_min_pkts[d] = UINT32_MAX;
    for (i = 0; i < s->n; i++) {
        double meas = (double)m->bytes[i] * 8.0 * (double)CLOCK_HZ / window_cycles;
        double err = 100.0 * (meas - s->expect[i]) / s->expect[i], ae = dabs(err);
        double sp = m->sigma[i] / (double)s->wqe[i];
        d = s->decade[i];
        if (ae > out->max_err || i == 0) {
            out->max_err = ae;
            out->worst_qp = i;
        }
        out->mean_err += ae;
        if (sp > out->sigma_pkts || i == 0) {
            out->sigma_pkts = sp;
            out->sigma_bytes = m->sigma[i];
            out->sigma_qp = i;
        }
        if (m->pkts[i] < out->min_pkts)
            out->min_pkts = (uint32_t)m->pkts[i];
        if (m->in_gap[i] > out->in_gap) {
            out->in_gap = m->in_gap[i];
            out->in_gap_qp = i;
        }
        if (ae > out->dec_max[d])
            out->dec_max[d] = ae;
        out->dec_mean[d] += ae;
        if (out->dec_n[d] == 0 || s->wqe[i] < out->dec_wqe_lo[d])
            out->dec_wqe_lo[d] = s->wqe[i];
        if (s->wqe[i] > out->dec_wqe_hi[d])
            out->dec_wqe_hi[d] = s->wqe[i];
        if (m->pkts[i] < out->dec_min_pkts[d])
            out->dec_min_pkts[d] = (uint32_t)m->pkts[i];
        out->dec_n[d]++;
        if (csv)
            fprintf(csv, "%u,%.2f,%llu,%.3f,%.3f,%.6f,%s,%u,%u,%llu,%.1f,%u\n", s->n, s->phi,
                    (unsigned long long)s->rate[i], s->expect[i], meas, err, scheme, i, s->wqe[i],
                    (unsigned long long)m->pkts[i], m->sigma[i], m->in_gap[i]);
    }
    out->mean_err /= s->n;
    for (d = 0; d < NDEC; d++)
        if (out->dec_n[d])
            out->dec_mean[d] /= out->dec_n[d];
}

/* ---- Tassel (the engine) ---- */

static uint32_t source(void *user, uint32_t qp, uint32_t seq, rnic_work *out, uint32_t max)
{
    const uint32_t *wqe = (const uint32_t *)user;
    uint32_t i;
    for (i = 0; i < max; i++) { /* endless backlog */
        memset(&out[i], 0, sizeof out[i]);
        out[i].tag = seq + i;
        out[i].len = wqe[qp];
    }
    return max;
}

typedef struct engine_info {
    double host_s;
    uint64_t packets, cycles, desc_full, dropped, tx_stalls, heap_ops, fetches;
    double max_phi;
} engine_info;

static void drain_tx(rl *r, meter *m, const scenario *s)
{
    rnic_work tx;
    while (rl_pop_tx(r, &tx) == RNIC_OK)
        if (tx.cycle >= s->t0 && tx.cycle < s->t1)
            meter_packet(m, tx.flow, tx.len, tx.cycle, s->t0);
}

static int run_tassel(const scenario *s, meter *m, engine_info *info)
{
    rl_config cfg;
    rl *r = (rl *)malloc(sizeof *r);
    void *mem;
    size_t size;
    uint32_t i;
    double start = cpu_s();
    const rl_stats *st;
    rl_config_default(&cfg);
    cfg.clock_hz = CLOCK_HZ;
    cfg.link_bps = LINK_BPS;
    cfg.max_flows = s->n;
    cfg.desc_depth = desc_capacity_k;
    cfg.source = source;
    cfg.source_user = s->wqe;
    size = rl_mem_size(&cfg);
    mem = size ? malloc(size) : NULL;
    if (!r || !mem || rl_init(r, &cfg, mem, size) != RNIC_OK) {
        fprintf(stderr, "engine setup failed\n");
        return 1;
    }
    /* a rate and a doorbell per QP: registers, all written at once (the EMUX applies one
     * QP's per cycle) */
    for (i = 0; i < s->n; i++) {
        if (rl_set_rate(r, i, s->rate[i]) != RNIC_OK || rl_doorbell(r, i) != RNIC_OK) {
            fprintf(stderr, "register write refused for QP %u\n", i);
            return 1;
        }
    }
    if (rl_now(r) >= s->t0) {
        fprintf(stderr, "setup ran into the window\n");
        return 1;
    }
    /* Fast-forward: nothing happens before rl_next_event, and at most one packet leaves per
     * cycle, so advancing to it plus tx_depth cycles cannot overflow the emptied TX port. */
    while (rl_now(r) < s->t1) {
        uint64_t now = rl_now(r), ne = rl_next_event(r);
        if (ne == RNIC_NEVER) {
            fprintf(stderr, "engine went idle with backlogged QPs\n");
            return 1;
        }
        if (ne > s->t1)
            ne = s->t1;
        rl_advance(r, ne - now + cfg.tx_depth);
        drain_tx(r, m, s);
    }
    st = rl_get_stats(r);
    info->host_s = cpu_s() - start;
    info->packets = st->packets;
    info->cycles = st->cycles;
    info->desc_full = st->desc_full;
    info->dropped = st->packets_dropped;
    info->tx_stalls = st->tx_stalls;
    info->heap_ops = st->heap_ops;
    info->fetches = st->fetches;
    info->max_phi = (double)st->max_phi_q32 / 4294967296.0;
    free(mem);
    free(r);
    return 0;
}

/* ---- baseline 1: token bucket per QP (SENIC-style), round robin among QPs with tokens ---- */

typedef struct tb_heap { /* min-heap of (eligible cycle, qp) for QPs short of tokens */
    uint64_t *key;
    uint32_t *qp, count;
} tb_heap;

static int tb_less(const tb_heap *h, uint32_t a, uint32_t b)
{
    return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && h->qp[a] < h->qp[b]);
}

static void tb_swap(tb_heap *h, uint32_t a, uint32_t b)
{
    uint64_t k = h->key[a];
    uint32_t q = h->qp[a];
    h->key[a] = h->key[b];
    h->qp[a] = h->qp[b];
    h->key[b] = k;
    h->qp[b] = q;
}

static void tb_push(tb_heap *h, uint64_t key, uint32_t qp)
{
    uint32_t i = h->count++;
    h->key[i] = key;
    h->qp[i] = qp;
    while (i > 0 && tb_less(h, i, (i - 1u) / 2u)) {
        tb_swap(h, i, (i - 1u) / 2u);
        i = (i - 1u) / 2u;
    }
}

static uint32_t tb_pop(tb_heap *h)
{
    uint32_t qp = h->qp[0], i = 0;
    h->count--;
    if (h->count) {
        h->key[0] = h->key[h->count];
        h->qp[0] = h->qp[h->count];
        for (;;) {
            uint32_t l = 2u * i + 1u, rr = l + 1u, best = i;
            if (l < h->count && tb_less(h, l, best))
                best = l;
            if (rr < h->count && tb_less(h, rr, best))
                best = rr;
            if (best == i)
                break;
            tb_swap(h, i, best);
            i = best;
        }
    }
    return qp;
}

static int run_token_bucket(const scenario *s, meter *m, double burst, double *host_s)
{
    uint32_t n = s->n, i, head = 0, tail = 0, inq = 0;
    double *tokens = (double *)malloc(n * sizeof *tokens), *rate_c = (double *)malloc(n * sizeof *rate_c);
    uint64_t *last = (uint64_t *)malloc(n * sizeof *last), now = 0;
    uint32_t *fifo = (uint32_t *)malloc(n * sizeof *fifo);
    double link_t = 0, link_cpb = (double)CLOCK_HZ * 8.0 / (double)LINK_BPS, start = cpu_s();
    tb_heap h;
    h.key = (uint64_t *)malloc(n * sizeof *h.key);
    h.qp = (uint32_t *)malloc(n * sizeof *h.qp);
    h.count = 0;
    if (!tokens || !rate_c || !last || !fifo || !h.key || !h.qp)
        return 1;
    for (i = 0; i < n; i++) { /* buckets start empty, all QPs backlogged from cycle 0 */
        tokens[i] = 0;
        last[i] = 0;
        rate_c[i] = (double)s->rate[i] / 8.0 / (double)CLOCK_HZ; /* bytes per cycle */
        tb_push(&h, ceil_u64((double)s->wqe[i] / rate_c[i]), i);
    }
    while (now < s->t1) {
        uint32_t q;
        /* QPs whose bucket now holds their packet join the round robin, in eligibility order */
        while (h.count && h.key[0] <= now) {
            fifo[tail] = tb_pop(&h);
            tail = tail + 1u == n ? 0 : tail + 1u;
            inq++;
        }
        if (!inq) { /* link idle until the next QP is eligible */
            now = h.key[0];
            continue;
        }
        q = fifo[head];
        head = head + 1u == n ? 0 : head + 1u;
        inq--;
        tokens[q] += rate_c[q] * (double)(now - last[q]);
        if (tokens[q] > burst)
            tokens[q] = burst;
        last[q] = now;
        tokens[q] -= s->wqe[q];
        if (tokens[q] < 0) /* rounding only: eligibility was computed for this cycle */
            tokens[q] = 0;
        if (now >= s->t0)
            meter_packet(m, q, s->wqe[q], now, s->t0);
        /* link: the next packet may go in the cycle in which this one ends (as in the engine) */
        if (link_t < (double)now)
            link_t = (double)now;
        link_t += s->wqe[q] * link_cpb;
        if (tokens[q] + 1e-9 >= s->wqe[q]) {
            fifo[tail] = q;
            tail = tail + 1u == n ? 0 : tail + 1u;
            inq++;
        } else {
            tb_push(&h, now + ceil_u64((s->wqe[q] - tokens[q]) / rate_c[q] - 1e-9), q);
        }
        now = (uint64_t)link_t > now ? (uint64_t)link_t : now + 1u;
    }
    *host_s = cpu_s() - start;
    free(tokens);
    free(rate_c);
    free(last);
    free(fifo);
    free(h.key);
    free(h.qp);
    return 0;
}

/* ---- baseline 2: round robin, one packet per backlogged QP per round ---- */

static int run_round_robin(const scenario *s, meter *m, uint64_t *t0, uint64_t *t1, double *host_s)
{
    uint32_t rounds = s->packets + 2u, k, q;
    double link_t = 0, link_cpb = (double)CLOCK_HZ * 8.0 / (double)LINK_BPS, start = cpu_s(), round_bytes = 0;
    uint64_t now = 0;
    for (q = 0; q < s->n; q++)
        round_bytes += s->wqe[q];
    /* periodic: skip one round, measure `packets` rounds */
    *t0 = ceil_u64(round_bytes * link_cpb);
    *t1 = *t0 + (uint64_t)(round_bytes * link_cpb * s->packets);
    for (k = 0; k < rounds && now < *t1; k++)
        for (q = 0; q < s->n; q++) {
            if (now >= *t0 && now < *t1)
                meter_packet(m, q, s->wqe[q], now, *t0);
            if (link_t < (double)now)
                link_t = (double)now;
            link_t += s->wqe[q] * link_cpb;
            now = (uint64_t)link_t > now ? (uint64_t)link_t : now + 1u;
        }
    *host_s = cpu_s() - start;
    return 0;
}

/* ---- report ---- */

typedef struct totals {
    double tassel_phi1, tassel_phi2, tb, rr;
    uint32_t max_qps;
    int tb_ran, rr_ran;
} totals;

static void fmt_rate(char *buf, size_t size, double bps)
{
    if (bps >= 1e9)
        snprintf(buf, size, "%.3fG", bps / 1e9);
    else if (bps >= 1e6)
        snprintf(buf, size, "%.3fM", bps / 1e6);
    else
        snprintf(buf, size, "%.1fK", bps / 1e3);
}

static void print_summary(const char *name, const scenario *s, const meter *m, const summary *x)
{
    char r1[32], r2[32], r3[32];
    fmt_rate(r1, sizeof r1, (double)s->rate[x->worst_qp]);
    fmt_rate(r2, sizeof r2, (double)s->rate[x->sigma_qp]);
    printf("  %-12s max |err| %9.4f %%  mean |err| %8.4f %%  worst QP %u (rate %s, WQE %u B, %llu pkts)\n", name,
           x->max_err, x->mean_err, x->worst_qp, r1, s->wqe[x->worst_qp],
           (unsigned long long)m->pkts[x->worst_qp]);
    fmt_rate(r1, sizeof r1, (double)s->rate[m->max_run_qp]);
    fmt_rate(r3, sizeof r3, (double)s->rate[x->in_gap_qp]);
    printf("  %-12s burst: up to %u%s pkts (%u B) of one QP within one ideal gap (QP %u, rate %s); "
           "sigma max %.1f pkts = %.0f B (rate %s); longest back-to-back run %u pkts (rate %s)\n",
           "", x->in_gap, x->in_gap >= HIST ? "+" : "", x->in_gap * s->wqe[x->in_gap_qp], x->in_gap_qp, r3,
           x->sigma_pkts, x->sigma_bytes, r2, m->max_run, r1);
}

static int run_case(uint32_t n, int oversub, uint32_t packets, uint64_t seed, double burst, int baselines, FILE *csv,
                    totals *tot)
{
    scenario s;
    meter mt, mb, mr;
    summary xt, xb, xr;
    engine_info info;
    double tb_s = 0, rr_s = 0, min_rate = 0, max_rate = 0;
    uint64_t rr_t0 = 0, rr_t1 = 0;
    uint32_t i;
    int d;
    char r1[32], r2[32];
    if (make_scenario(&s, n, oversub, packets, seed) || meter_init(&mt, &s) || meter_init(&mb, &s) ||
        meter_init(&mr, &s)) {
        fprintf(stderr, "scenario setup failed\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (i == 0 || (double)s.rate[i] < min_rate)
            min_rate = (double)s.rate[i];
        if ((double)s.rate[i] > max_rate)
            max_rate = (double)s.rate[i];
    }
    fmt_rate(r1, sizeof r1, min_rate);
    fmt_rate(r2, sizeof r2, max_rate);
    printf("\n== %u QPs, k = %u, %s: rates %s .. %s, sum %.3f Gb/s = %.2f x link (gamma %.4f); expected = rate%s ==\n", n, desc_capacity_k,
           oversub ? "(b) oversubscribed" : "(a) not oversubscribed", r1, r2, (double)s.sum_bps / 1e9, s.phi,
           s.gamma, oversub ? " / Phi" : "");
    printf("  window: warm-up %.0f ms, measured [%llu, %llu) cycles = %.3f s\n", WARMUP_S * 1e3,
           (unsigned long long)s.t0, (unsigned long long)s.t1, (double)(s.t1 - s.t0) / (double)CLOCK_HZ);
    if (run_tassel(&s, &mt, &info))
        return 1;
    summarise(&mt, (double)(s.t1 - s.t0), &xt, csv, "tassel");
    if (baselines) {
        if (run_token_bucket(&s, &mb, burst, &tb_s))
            return 1;
        summarise(&mb, (double)(s.t1 - s.t0), &xb, csv, "token_bucket");
        run_round_robin(&s, &mr, &rr_t0, &rr_t1, &rr_s);
        summarise(&mr, (double)(rr_t1 - rr_t0), &xr, csv, "round_robin");
    }
    printf("  %-9s %6s %10s %9s | %-23s", "decade", "QPs", "WQE B", "min pkts", "tassel |err| % mean/max");
    if (baselines)
        printf(" | %-21s | %-21s", "token bucket mean/max", "round robin mean/max");
    printf("\n");
    for (d = 0; d < NDEC; d++) {
        char wq[24];
        if (!xt.dec_n[d])
            continue;
        snprintf(wq, sizeof wq, "%u-%u", xt.dec_wqe_lo[d], xt.dec_wqe_hi[d]);
        printf("  %-9s %6u %10s %9u | %10.4f %10.4f  ", decade_name[d], xt.dec_n[d], wq, xt.dec_min_pkts[d],
               xt.dec_mean[d], xt.dec_max[d]);
        if (baselines)
            printf(" | %9.3f %10.3f  | %9.1f %10.1f", xb.dec_mean[d], xb.dec_max[d], xr.dec_mean[d], xr.dec_max[d]);
        printf("\n");
    }
    print_summary("tassel", &s, &mt, &xt);
    printf("  %-12s %llu packets (%llu in window), %.3f s simulated in %.2f host s: %.2f M packets / host s, "
           "%.1f M cycles / host s\n",
           "", (unsigned long long)info.packets, (unsigned long long)mt.total_pkts,
           (double)info.cycles / (double)CLOCK_HZ, info.host_s, (double)info.packets / info.host_s / 1e6,
           (double)info.cycles / info.host_s / 1e6);
    printf("  %-12s fetches %llu, heap ops %llu, packets dropped %llu, desc-full rounds %llu, tx stalls %llu, "
           "max Phi %.4f\n",
           "", (unsigned long long)info.fetches, (unsigned long long)info.heap_ops, (unsigned long long)info.dropped,
           (unsigned long long)info.desc_full, (unsigned long long)info.tx_stalls, info.max_phi);
    if (baselines) {
        printf("  token bucket, burst %.0f B (%.2f host s):\n", burst, tb_s);
        print_summary("token bucket", &s, &mb, &xb);
        printf("  round robin, %u rounds of %.3f us (%.2f host s):\n", s.packets,
               (double)(rr_t1 - rr_t0) / s.packets / (double)CLOCK_HZ * 1e6, rr_s);
        print_summary("round robin", &s, &mr, &xr);
        if (xb.max_err > tot->tb)
            tot->tb = xb.max_err;
        if (xr.max_err > tot->rr)
            tot->rr = xr.max_err;
        tot->tb_ran = tot->rr_ran = 1;
    }
    if (oversub && xt.max_err > tot->tassel_phi2)
        tot->tassel_phi2 = xt.max_err;
    if (!oversub && xt.max_err > tot->tassel_phi1)
        tot->tassel_phi1 = xt.max_err;
    if (n > tot->max_qps)
        tot->max_qps = n;
    fflush(stdout);
    meter_free(&mt);
    meter_free(&mb);
    meter_free(&mr);
    free_scenario(&s);
    return 0;
}

#define SCALE_SEED 0x7a55e1f18ull /* --seed's default */

static void usage(const char *argv0)
{
    printf("usage: %s [--quick] [--qps N] [--desc K] [--csv FILE] [--packets N] [--burst BYTES] [--seed S]\n"
           "       [--no-big-baselines]\n"
           "Tassel Fig. 8: always-backlogged QPs at 1,024 and 65,536 QPs on a 100 Gb/s link, against a token bucket\n"
           "and round robin; a RESULT line at the end.\n"
           "  --quick              1,024 QPs only, 400 packets per QP (make test); default off\n"
           "  --qps N              only N QPs [QPs]; default 1024 and 65536; range 64..%u\n"
           "  --desc K             descriptor buffer capacity k of every run [descriptors]; default 60 up to 1,024\n"
           "                       QPs, 256 above; range 1..%u\n"
           "  --csv FILE           one row per QP and scheme as CSV; default none\n"
           "  --packets N          least packets per QP in the window [packets]; default 1000 (--quick: 400);\n"
           "                       range 1..100000000\n"
           "  --burst BYTES        the token bucket's depth [bytes]; default 16384; range 4096..1000000000\n"
           "  --seed S             seed of the QPs' rates; default %llu; range 0..%llu\n"
           "  --no-big-baselines   no baselines at 65,536 QPs; default off (they run)\n"
           "  --help, -h           this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), RL_MAX_FLOWS, RL_MAX_DESC, SCALE_SEED, (unsigned long long)UINT64_MAX);
    exit(0);
}

int main(int argc, char **argv)
{
    FILE *csv = NULL;
    int quick = 0, big_baselines = 1, i;
    uint32_t packets = 0, sizes[2] = { 1024u, 65536u }, nsizes = 2, k;
    uint64_t seed = SCALE_SEED;
    double burst = 16384, start = cpu_s();
    totals tot, tot60;
    uint32_t forced_k = 0;
    time_t wall0 = time(NULL);
    memset(&tot, 0, sizeof tot);
    memset(&tot60, 0, sizeof tot60);
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(argv[0]);
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--no-big-baselines")) {
            big_baselines = 0;
        } else if (!strcmp(argv[i], "--csv")) {
            if (!(csv = fopen(CLI_VALUE(i), "w"))) {
                perror(argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--qps")) {
            sizes[0] = (uint32_t)CLI_U64(i, 64u, RL_MAX_FLOWS);
            nsizes = 1;
        } else if (!strcmp(argv[i], "--desc")) {
            forced_k = (uint32_t)CLI_U64(i, 1u, RL_MAX_DESC);
        } else if (!strcmp(argv[i], "--packets")) {
            packets = (uint32_t)CLI_U64(i, 1u, 100000000u);
        } else if (!strcmp(argv[i], "--burst")) {
            burst = CLI_DOUBLE(i, 4096, 1e9);
        } else if (!strcmp(argv[i], "--seed")) {
            seed = CLI_U64(i, 0, UINT64_MAX);
        } else {
            cli_unknown(argv[0], argv[i]);
        }
    }
    if (!packets)
        packets = quick ? 400u : 1000u;
    if (quick && nsizes == 2) {
        sizes[0] = 1024u;
        nsizes = 1;
    }
    if (burst < 4096) {
        fprintf(stderr, "--burst must hold one 4096 B packet\n");
        return 2;
    }
    printf("Tassel scalability (Fig. 8): always-backlogged QPs, 100 Gb/s link, 250 MHz, mtu 4096, n = 8, "
           "L = 250 cycles, k = %s\n", forced_k ? "as forced" : "60 up to 1,024 QPs, 256 above");
    printf("WQE size per QP: largest power of two in 64 .. 4096 B giving >= %u packets in the window "
           "(one packet <= %.3f %% of a QP's count)\n",
           packets, 100.0 / packets);
    printf("|err| = |measured - expected| / expected over the window; sigma = burst (bytes) beyond the expected "
           "rate\n");
    if (csv)
        fprintf(csv, "qps,phi,rate_bps,expected_bps,measured_bps,err_pct,scheme,qp,wqe_bytes,packets,sigma_bytes,max_pkts_in_gap\n");
    for (k = 0; k < nsizes; k++) {
        int baselines = sizes[k] <= 1024u || big_baselines;
        desc_capacity_k = desc_for(sizes[k], forced_k);
        if (run_case(sizes[k], 0, packets, seed, burst, baselines, csv, &tot) ||
            run_case(sizes[k], 1, packets, seed, burst, baselines, csv, &tot))
            return 1;
    }
    if (!forced_k && nsizes == 2) { /* the paper's k at 64 K QPs, Phi = 2: the case k = 256 is for */
        desc_capacity_k = 60;
        printf("\n(the paper's k = 60 at 65,536 QPs under Phi = 2, for comparison)");
        if (run_case(65536u, 1, packets, seed, burst, 0, NULL, &tot60))
            return 1;
    }
    if (csv)
        fclose(csv);
    printf("\ntotal %.1f host CPU s, %.0f wall s\n", cpu_s() - start, difftime(time(NULL), wall0));
    printf("RESULT qps=%u max_err_pct_phi1=%.4f max_err_pct_phi2=%.4f tb_max_err_pct=%.3f rr_max_err_pct=%.1f",
           tot.max_qps, tot.tassel_phi1, tot.tassel_phi2, tot.tb, tot.rr);
    if (!forced_k && nsizes == 2)
        printf(" phi2_64k_k60_pct=%.4f", tot60.tassel_phi2);
    printf("\n");
    return 0;
}
