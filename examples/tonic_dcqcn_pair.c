/* tonic_dcqcn_pair -- Tonic Fig. 4 (NSDI 2020 §6.2.2): two DCQCN flows from two hosts share one
 * receiver's 40 Gb/s link (RTT 4 us: 1 us propagation per hop, 1,000 B segments, RoCEv2 go-back-N
 * responder that ACKs every segment, CNPs at most one per 50 us per flow, RED marking at the
 * switch's dequeue with the DCQCN paper's 40 G values Kmin 5 KB, Kmax 200 KB, Pmax 1 %), the
 * paper preset of tp_protocol_dcqcn(), Tonic's own rate credit. Both flows start together at
 * line rate (t = 0).
 *
 * Beside the model, an independent fluid model: the DCQCN fluid equations of Zhu et al., "ECN or
 * Delay: Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT'16 (eqs. 1-4: queue, alpha,
 * target rate RT, current rate RC, with the timer and byte-counter increase terms and the RED
 * marking probability of the queue, every feedback term delayed by tau* = RTT), integrated with
 * doubles (forward Euler, 20 ns step) for the same two flows. Rates in the fluid are packets/s of
 * 1,000 B payload (the rate register counts payload, as Tonic's rate credit does); the link drains
 * 40 Gb/s of wire bytes (payload + 42 B header).
 *
 *   build/tonic_dcqcn_pair [--ms N | --quick] [--csv F]
 *
 * Throughput is measured at the receiver (bytes delivered for the first time) and reported as wire
 * rate (payload x (1000 + 42) / 1000), so the fair share is 20 Gb/s; the CSV also has the goodput.
 * CSV (every 100 us): time_ms, rate_a_gbps, rate_b_gbps (wire), goodput_a_gbps, goodput_b_gbps,
 * rc_a_gbps, rt_a_gbps, alpha_a, rc_b_gbps, rt_b_gbps, alpha_b (the DCQCN registers: RC, RT in
 * payload Gb/s, alpha), queue_kb (switch port to the receiver), fluid_a_gbps, fluid_b_gbps (wire),
 * fluid_alpha_a, fluid_alpha_b, fluid_queue_kb.
 * RESULT exp=dcqcn_pair converge_ms rate_a_gbps rate_b_gbps jain fluid_converge_ms fluid_rate_a_gbps
 * fluid_rate_b_gbps: converge_ms = the first time after which both flows stay within 5 % of 20 Gb/s
 * (1 ms windows) to the end (-1: never); rates = means over the last half of the run; in_band_frac =
 * the fraction of 1 ms windows in the last half where both are within 5 % of 20 Gb/s; split_sd_gbps =
 * the standard deviation of flow a's 1 ms window rate over the last half (fluid_*: the same of the
 * fluid model). Variant options (examples/dcqcn_variant.h, --help): one candidate cause at a time. */
#define _POSIX_C_SOURCE 200809L
#include "rnic_model/tonic_sim.h"
#include <math.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "dcqcn_variant.h"

#define LINK_BPS 40000000000ull
#define SEG 1000u
#define HDR 42u
#define SAMPLE_US 100u

/* ---- the fluid model (Zhu et al. CoNEXT'16) ---- */

typedef struct fluid {
    double dt, tau_star;       /* step, feedback delay (s) */
    double C;                  /* link, packets/s (wire) */
    double line;               /* rate cap, packets/s (payload) */
    double g, tau, tau_p, T, B, F, rai, rhai, rmin;
    double kmin, kmax, pmax;   /* packets */
    double q;                  /* packets */
    double rc[2], rt[2], alpha[2];
    /* history of RC and p for the delay tau* (ring of delay steps) */
    double *hrc0, *hrc1, *hp;
    uint32_t hlen, hpos;
} fluid;

static double fl_red(const fluid *m, double q)
{
    if (q <= m->kmin)
        return 0.0;
    if (q >= m->kmax)
        return 1.0;
    return m->pmax * (q - m->kmin) / (m->kmax - m->kmin);
}

/* 1 - (1 - p)^x */
static double fl_atleast1(double p, double x)
{
    if (p >= 1.0)
        return 1.0;
    return -expm1(x * log1p(-p));
}

/* p / ((1 - p)^-x - 1): the rate of increase events per packet (the limit 1 / x as p -> 0) */
static double fl_incr(double p, double x)
{
    double d;
    if (x <= 0)
        return 0.0;
    if (p <= 0)
        return 1.0 / x;
    if (p >= 1.0)
        return 0.0;
    d = expm1(-x * log1p(-p));
    return d > 0 ? p / d : 1.0 / x;
}

/* (1 - p)^x */
static double fl_none(double p, double x) { return p >= 1.0 ? 0.0 : exp(x * log1p(-p)); }

static int fl_init(fluid *m, const tp_dcqcn_config *dp, double rtt_s, double cnp_interval_s, double kmin_b,
                   double kmax_b, double pmax)
{
    uint32_t i;
    memset(m, 0, sizeof *m);
    m->dt = 20e-9;
    m->tau_star = rtt_s;
    m->C = (double)LINK_BPS / ((SEG + HDR) * 8.0);
    m->line = (double)LINK_BPS / (SEG * 8.0);
    m->g = (double)dp->g / (double)TP_DCQCN_ONE;
    m->tau = cnp_interval_s;
    m->tau_p = dp->alpha_period_ns * 1e-9;
    m->T = dp->rate_period_ns * 1e-9;
    m->B = (double)dp->byte_counter / SEG;
    m->F = dp->f;
    m->rai = (double)dp->rai_bps / (SEG * 8.0);
    m->rhai = (double)dp->rhai_bps / (SEG * 8.0);
    m->rmin = (double)dp->rate_floor_bps / (SEG * 8.0);
    m->kmin = kmin_b / (SEG + HDR);
    m->kmax = kmax_b / (SEG + HDR);
    m->pmax = pmax;
    for (i = 0; i < 2; i++) {
        m->rc[i] = m->line;
        m->rt[i] = m->line;
        m->alpha[i] = (double)dp->alpha_init / (double)TP_DCQCN_ONE;
    }
    m->hlen = (uint32_t)(rtt_s / m->dt + 0.5);
    if (m->hlen < 1)
        m->hlen = 1;
    m->hrc0 = (double *)malloc(m->hlen * sizeof(double));
    m->hrc1 = (double *)malloc(m->hlen * sizeof(double));
    m->hp = (double *)malloc(m->hlen * sizeof(double));
    if (!m->hrc0 || !m->hrc1 || !m->hp)
        return -1;
    for (i = 0; i < m->hlen; i++) {
        m->hrc0[i] = m->line;
        m->hrc1[i] = m->line;
        m->hp[i] = 0.0;
    }
    return 0;
}

static void fl_free(fluid *m)
{
    free(m->hrc0);
    free(m->hrc1);
    free(m->hp);
}

/* One Euler step. The ring holds the values of the last hlen steps; hpos is the oldest (delay tau*). */
static void fl_step(fluid *m)
{
    double pd = m->hp[m->hpos], rcd[2], drc[2], drt[2], da[2], dq, p;
    uint32_t i;
    rcd[0] = m->hrc0[m->hpos];
    rcd[1] = m->hrc1[m->hpos];
    for (i = 0; i < 2; i++) {
        double cut = fl_atleast1(pd, m->tau * rcd[i]);      /* a CNP within tau */
        double bc = fl_incr(pd, m->B) * rcd[i];              /* byte-counter increase events / s */
        double tm = fl_incr(pd, m->T * rcd[i]) * rcd[i];     /* timer increase events / s */
        da[i] = m->g / m->tau_p * (fl_atleast1(pd, m->tau_p * rcd[i]) - m->alpha[i]);
        drt[i] = -(m->rt[i] - m->rc[i]) / m->tau * cut + m->rai * bc * fl_none(pd, m->F * m->B) +
                 m->rai * tm * fl_none(pd, m->F * m->T * rcd[i]);
        drc[i] = -m->rc[i] * m->alpha[i] / (2.0 * m->tau) * cut + (m->rt[i] - m->rc[i]) / 2.0 * bc +
                 (m->rt[i] - m->rc[i]) / 2.0 * tm;
    }
    dq = m->rc[0] + m->rc[1] - m->C;
    for (i = 0; i < 2; i++) {
        m->alpha[i] += da[i] * m->dt;
        m->rt[i] += drt[i] * m->dt;
        m->rc[i] += drc[i] * m->dt;
        if (m->rt[i] > m->line)
            m->rt[i] = m->line;
        if (m->rc[i] > m->line)
            m->rc[i] = m->line;
        if (m->rc[i] < m->rmin)
            m->rc[i] = m->rmin;
        if (m->alpha[i] < 0)
            m->alpha[i] = 0;
        if (m->alpha[i] > 1)
            m->alpha[i] = 1;
    }
    m->q += dq * m->dt;
    if (m->q < 0)
        m->q = 0;
    p = fl_red(m, m->q);
    /* the current values replace the oldest */
    m->hrc0[m->hpos] = m->rc[0];
    m->hrc1[m->hpos] = m->rc[1];
    m->hp[m->hpos] = p;
    m->hpos = (m->hpos + 1u) % m->hlen;
}

/* What flow a's / b's wire rate is in the fluid: RC packets/s x wire bytes, or the link share when
 * the queue is non-empty and both together exceed it. */
static double fl_wire_gbps(const fluid *m, uint32_t i)
{
    double sum = m->rc[0] + m->rc[1], r = m->rc[i];
    if (m->q > 0 && sum > 0)
        r = m->C * m->rc[i] / sum;
    else if (sum > m->C)
        r = m->C * m->rc[i] / sum;
    return r * (SEG + HDR) * 8.0 / 1e9;
}

/* ---- CNP counting: a copy of DCQCN whose incoming hook counts CNPs per flow ---- */

static tp_hook_fn dcqcn_incoming;
static uint64_t cnp_count[2];

static void count_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    if (ev->pkt_type == TP_PKT_CNP && ev->flow < 2u)
        cnp_count[ev->flow]++;
    dcqcn_incoming(ev, ctx, act);
}

/* ---- reporting ---- */

/* First time (ms) after which every 1 ms window mean of both series stays within 5 % of 20; -1 if never. */
static double converge_ms(const double *a, const double *b, uint32_t n, uint32_t per_ms)
{
    uint32_t w, nw = n / per_ms, last_bad = 0;
    int any_bad = 0;
    if (nw == 0)
        return -1.0;
    for (w = 0; w < nw; w++) {
        double sa = 0, sb = 0;
        uint32_t k;
        for (k = 0; k < per_ms; k++) {
            sa += a[w * per_ms + k];
            sb += b[w * per_ms + k];
        }
        sa /= per_ms;
        sb /= per_ms;
        if (fabs(sa - 20.0) > 1.0 || fabs(sb - 20.0) > 1.0) {
            last_bad = w;
            any_bad = 1;
        }
    }
    if (!any_bad)
        return 0.0;
    if (last_bad + 1u >= nw)
        return -1.0;
    return (double)(last_bad + 1u);
}

/* Of the 1 ms windows in the last half, the fraction with both series within 5 % of 20. */
static double in_band_frac(const double *a, const double *b, uint32_t n, uint32_t per_ms)
{
    uint32_t w, nw = n / per_ms, ok = 0, cnt = 0;
    for (w = nw / 2; w < nw; w++) {
        double sa = 0, sb = 0;
        uint32_t k;
        for (k = 0; k < per_ms; k++) {
            sa += a[w * per_ms + k];
            sb += b[w * per_ms + k];
        }
        sa /= per_ms;
        sb /= per_ms;
        cnt++;
        ok += fabs(sa - 20.0) <= 1.0 && fabs(sb - 20.0) <= 1.0;
    }
    return cnt ? (double)ok / cnt : 0.0;
}

/* The standard deviation of one series' 1 ms window means over the last half: how far the split
 * between the two flows wanders around 20 Gb/s. */
static double split_sd(const double *a, uint32_t n, uint32_t per_ms)
{
    uint32_t w, nw = n / per_ms, cnt = 0;
    double s = 0, sq = 0;
    for (w = nw / 2; w < nw; w++) {
        double x = 0;
        uint32_t k;
        for (k = 0; k < per_ms; k++)
            x += a[w * per_ms + k];
        x /= per_ms;
        s += x, sq += x * x, cnt++;
    }
    return cnt > 1 ? sqrt((sq - s * s / cnt) / (cnt - 1)) : 0.0;
}

static double mean_tail(const double *x, uint32_t n)
{
    double s = 0;
    uint32_t i, from = n / 2;
    for (i = from; i < n; i++)
        s += x[i];
    return n > from ? s / (n - from) : 0.0;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--ms N | --quick] [--csv F] [variant options]\n"
           "Tonic Fig. 4: two DCQCN flows share a 40 Gb/s link, beside the DCQCN fluid model; a RESULT line at the end.\n"
           "  --ms N       simulated time [ms]; default 1000; range 1..1000000\n"
           "  --quick      --ms 50 (make test)\n"
           "  --csv F      rates, DCQCN registers and queue every 100 us as CSV; default none\n"
           "  --help, -h   this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    fputs(DCQCN_VARIANT_HELP, stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    ts_config c;
    ts_sim s;
    tp_protocol proto;
    tp_dcqcn_config dp;
    dcqcn_variant var;
    fluid fm;
    double ms = 1000.0, t0, t1, *ra, *rb, *fa, *fb, ma, mb, fma, fmb, jn;
    uint32_t i, n, per_ms = 1000u / SAMPLE_US, fsteps;
    uint64_t prev[2] = {0, 0}, cycles_per_sample;
    const char *csv = NULL;
    FILE *out = NULL;
    memset(&var, 0, sizeof var);
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--ms"))
            ms = CLI_DOUBLE(i, 1, 1000000);
        else if (!strcmp(argv[i], "--quick"))
            ms = 50.0;
        else if (!strcmp(argv[i], "--csv"))
            csv = CLI_VALUE(i);
        else if (!dcqcn_variant_parse(argc, argv, &i, &var))
            cli_unknown(argv[0], argv[i]);
    }
    if (ms < 1.0)
        ms = 1.0;
    tp_dcqcn_preset(&dp, TP_DCQCN_PAPER);
    proto = *tp_protocol_dcqcn();
    proto.config = &dp;
    dcqcn_incoming = proto.incoming;
    proto.incoming = count_incoming;

    ts_config_default(&c);
    c.link_bps = LINK_BPS;
    c.prop_ns = 1000;               /* RTT 4 us */
    c.senders = 2;
    c.flows_per_sender = 1;
    c.seg_size = SEG;
    c.header_bytes = HDR;
    c.protocol = &proto;
    c.window = 128;
    c.init_wnd = 128;               /* DCQCN: param[0] = 0 -> W after the first visit */
    c.rto_us = 1000;
    c.delack_count = 1;
    c.sack = false;
    c.ack_first = true;
    c.go_back_n = true;
    c.cnp_interval_us = 50;
    c.cnp_mode = TP_RX_CNP_IMMEDIATE;
    c.ecn_kmin_bytes = 5000;
    c.ecn_kmax_bytes = 200000;
    c.ecn_pmax_ppm = 10000;         /* 1 % */
    c.ecn_seed = 1;
    dcqcn_variant_apply(&var, &c, &dp);
    if (ts_init(&s, &c) != 0) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    n = (uint32_t)(ms * 1000.0 / SAMPLE_US);
    ra = (double *)calloc(n, sizeof *ra);
    rb = (double *)calloc(n, sizeof *rb);
    fa = (double *)calloc(n, sizeof *fa);
    fb = (double *)calloc(n, sizeof *fb);
    if (!ra || !rb || !fa || !fb ||
        fl_init(&fm, &dp, 4e-6, c.cnp_interval_us * 1e-6, (double)c.ecn_kmin_bytes, (double)c.ecn_kmax_bytes,
                c.ecn_pmax_ppm / 1e6) != 0)
        return 1;
    if (csv) {
        out = fopen(csv, "w");
        if (!out) {
            fprintf(stderr, "cannot write %s\n", csv);
            return 1;
        }
        fprintf(out, "time_ms,rate_a_gbps,rate_b_gbps,goodput_a_gbps,goodput_b_gbps,rc_a_gbps,rt_a_gbps,alpha_a,"
                     "rc_b_gbps,rt_b_gbps,alpha_b,queue_kb,fluid_a_gbps,fluid_b_gbps,fluid_alpha_a,fluid_alpha_b,"
                     "fluid_queue_kb\n");
    }
    cycles_per_sample = c.clock_hz / 1000000u * SAMPLE_US;
    fsteps = (uint32_t)(SAMPLE_US * 1e-6 / fm.dt + 0.5);
    t0 = (double)clock() / CLOCKS_PER_SEC;
    for (i = 0; i < n; i++) {
        double g[2], fsum[2] = {0, 0};
        tp_flow_view v[2];
        uint32_t k, f;
        ts_run_to(&s, (uint64_t)(i + 1u) * cycles_per_sample);
        for (f = 0; f < 2; f++) {
            g[f] = (double)(s.acked_bytes[f] - prev[f]) * 8.0 / (SAMPLE_US * 1e-6) / 1e9;
            prev[f] = s.acked_bytes[f];
            tp_flow_state(&s.senders[f], f, &v[f]);
        }
        ra[i] = g[0] * (SEG + HDR) / SEG;
        rb[i] = g[1] * (SEG + HDR) / SEG;
        for (k = 0; k < fsteps; k++) { /* the fluid: mean wire rate over the sample */
            fl_step(&fm);
            fsum[0] += fl_wire_gbps(&fm, 0);
            fsum[1] += fl_wire_gbps(&fm, 1);
        }
        fa[i] = fsum[0] / fsteps;
        fb[i] = fsum[1] / fsteps;
        if (out) {
            const tp_dcqcn_ctx *ca = (const tp_dcqcn_ctx *)v[0].ctx, *cb = (const tp_dcqcn_ctx *)v[1].ctx;
            fprintf(out, "%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.5f,%.4f,%.4f,%.5f,%.3f,%.4f,%.4f,%.5f,%.5f,%.3f\n",
                    (i + 1u) * SAMPLE_US / 1000.0, ra[i], rb[i], g[0], g[1], v[0].rate_bps / 1e9,
                    ca->target / 1e9, (double)ca->alpha / TP_DCQCN_ONE, v[1].rate_bps / 1e9, cb->target / 1e9,
                    (double)cb->alpha / TP_DCQCN_ONE, net_link_queued_bytes(&s.sw.port[c.senders].link) / 1000.0, fa[i], fb[i],
                    fm.alpha[0], fm.alpha[1], fm.q * (SEG + HDR) / 1000.0);
        }
    }
    t1 = (double)clock() / CLOCKS_PER_SEC;
    if (out)
        fclose(out);
    ma = mean_tail(ra, n);
    mb = mean_tail(rb, n);
    fma = mean_tail(fa, n);
    fmb = mean_tail(fb, n);
    jn = (ma + mb) * (ma + mb) / (2.0 * (ma * ma + mb * mb));
    {
        const tp_stats *s0 = tp_get_stats(&s.senders[0]), *s1 = tp_get_stats(&s.senders[1]);
        const tp_rx_stats *rs = tp_rx_get_stats(&s.rx);
        printf("model: %.0f ms, %llu segments delivered, %llu marked, %llu CNPs (a %llu, b %llu), %llu NAKs, "
               "%llu retransmitted, %llu timeouts, %llu buffer drops, %llu of %llu cycles ticked, %.2f s host\n",
               ms, (unsigned long long)s.rx_segments, (unsigned long long)rs->marked, (unsigned long long)rs->cnps,
               (unsigned long long)cnp_count[0], (unsigned long long)cnp_count[1], (unsigned long long)rs->naks,
               (unsigned long long)(s0->segments_rtx + s1->segments_rtx),
               (unsigned long long)(s0->timeouts + s1->timeouts),
               (unsigned long long)s.sw.stats.dropped[NET_DROP_BUFFER], (unsigned long long)s.processed_cycles,
               (unsigned long long)s.now, t1 - t0);
    }
    printf("RESULT exp=dcqcn_pair converge_ms=%.0f rate_a_gbps=%.3f rate_b_gbps=%.3f jain=%.5f fluid_converge_ms=%.0f "
           "fluid_rate_a_gbps=%.3f fluid_rate_b_gbps=%.3f in_band_frac=%.3f fluid_in_band_frac=%.3f split_sd_gbps=%.3f "
           "fluid_split_sd_gbps=%.3f\n",
           converge_ms(ra, rb, n, per_ms), ma, mb, jn, converge_ms(fa, fb, n, per_ms), fma, fmb,
           in_band_frac(ra, rb, n, per_ms), in_band_frac(fa, fb, n, per_ms), split_sd(ra, n, per_ms),
           split_sd(fa, n, per_ms));
    fl_free(&fm);
    free(ra);
    free(rb);
    free(fa);
    free(fb);
    ts_free(&s);
    return 0;
}
