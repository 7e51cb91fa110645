/* Tassel rate changes act promptly (issue 9, item 3; docs/tassel_model.md "Rate changes").
 * Congestion control moves rates every few tens of microseconds; a raise must not wait for
 * the packet computed at the old rate, a cut must not let one leave early.
 *
 *   raise: one QP at 100 Kb/s with 4 KB messages, raised to 10 Gb/s at cycle 12,500,000 (50 ms):
 *          the cycle of its first packet after the write (target: one packet time at the new
 *          rate, 819.2 cycles, plus 2 x the PCIe latency L, 1 us = 250 cycles), and its bytes
 *          in the ten 10 ms windows that follow (each within 0.5 % of 10 Gb/s);
 *   oversubscription: QP0 at 50 Gb/s and QP1 raised from 100 Kb/s to 100 Gb/s (Phi = 1.5), and
 *          16,384 QPs at 100 Kb/s raised together to 1.5 x the link (Phi = 1.5): link use in
 *          10 ms windows after the raise (target >= 0.99);
 *   lower: one QP at 10 Gb/s cut to 1 Gb/s at 50 ms: bytes in the five 20 ms windows after the
 *          cut within 0.5 % of 1 Gb/s, and no packet after the cut closer to the previous one
 *          than a packet time at the new rate (a packet computed at the old rate leaving early);
 *   cut and raise (issue 31): A at 100 Gb/s and B at 50 Gb/s, both backlogged; at 10 ms B is cut
 *          to 100 Kb/s, at 110 ms A is set to 60 Gb/s and B to 30 Gb/s (the link under-booked:
 *          each should get exactly its rate). The largest measured rate over configured rate of
 *          either QP in the fifty 1 ms windows after the raise (target <= 1.01), in FIFO mode
 *          with k = 60 and 256 and in ranked mode; before the lag floor B got 79.99 Gb/s;
 *   burst: sigma, the largest amount a QP sends beyond rate x window over any window, less one
 *          packet, after a doorbell, after the raise above and after the cut and raise, over the
 *          bound rate x (rl_lookahead_cycles + one packet on the wire at the line rate)
 *          (docs/tassel_model.md, "A QP's lag"; target <= 1).
 * Prints a table and, last, RESULT raise_first_pkt_cycles=... raise_err_pct=...
 * oversub_link_util=... lower_err_pct=... cut_raise_max_ratio=... burst_excess_ratio=... (plus
 * the targets and the early-packet count).
 * --csv FILE: the rates in 0.5 ms bins from 40 to 80 ms (the changes at 50 ms) for
 * docs/figures/tassel_rate_change.gp (make figures). */
#define RL_IMPLEMENTATION
#include "ratelimit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CLOCK_HZ 250000000ull
#define LINK_BPS 100000000000ull
#define MSG 4096u
#define MS 250000ull /* cycles per millisecond */
#define BIN (MS / 2u)   /* --csv: 0.5 ms bins ... */
#define BIN_FROM (40u * MS)
#define NBIN 80u        /* ... from 40 to 80 ms */

/* An endless backlog of 4 KB messages on every QP; the tag names (flow, index). */
static uint32_t backlog(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user;
    for (i = 0; i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].len = MSG;
        out[i].tag = (uint64_t)flow << 32 | (index + i);
    }
    return max;
}

typedef struct run {
    rl *r;
    void *mem;
    uint64_t change_at;   /* the cycle of the rate write */
    uint64_t first_after; /* departure of the first packet after it (0: none yet) */
    uint64_t window, nwin;
    uint64_t *win_bytes;  /* bytes per window after the change, all flows or one */
    uint64_t last_cycle;  /* departure of the previous packet of the watched flow */
    uint64_t min_gap_after; /* smallest gap between packets of the watched flow after the first new one */
    uint32_t watch;       /* the flow measured (UINT32_MAX: all) */
    uint64_t bins[3][NBIN]; /* bytes per 0.5 ms bin: flow 0, flow 1, all flows */
    struct burst *after_burst; /* the watched flow's departures after the change (NULL: none) */
} run;

static void burst_add(struct burst *b, uint64_t cycle, uint32_t len);

static int run_init(run *x, uint32_t flows, uint32_t desc_depth, uint32_t sq)
{
    rl_config cfg;
    size_t size;
    memset(x, 0, sizeof *x);
    rl_config_default(&cfg);
    cfg.clock_hz = CLOCK_HZ;
    cfg.link_bps = LINK_BPS;
    cfg.max_flows = flows;
    cfg.desc_depth = desc_depth;
    cfg.source = backlog;
    cfg.schedule_queue = sq;
    size = rl_mem_size(&cfg);
    x->r = (rl *)malloc(sizeof *x->r);
    x->mem = size ? malloc(size) : NULL;
    x->min_gap_after = UINT64_MAX;
    return x->r && x->mem && rl_init(x->r, &cfg, x->mem, size) == RNIC_OK;
}

static void run_free(run *x)
{
    free(x->win_bytes);
    free(x->mem);
    free(x->r);
}

/* Advance to `until`, draining the TX port and metering what leaves. */
static void run_to(run *x, uint64_t until)
{
    rnic_work w;
    while (rl_now(x->r) < until) {
        rl_advance_to(x->r, until);
        while (rl_pop_tx(x->r, &w) == RNIC_OK) {
            if (w.cycle >= BIN_FROM && (w.cycle - BIN_FROM) / BIN < NBIN) {
                uint64_t b = (w.cycle - BIN_FROM) / BIN;
                if (w.flow < 2u)
                    x->bins[w.flow][b] += w.len;
                x->bins[2][b] += w.len;
            }
            if (x->watch != UINT32_MAX && w.flow != x->watch)
                continue;
            if (x->change_at && w.cycle >= x->change_at) {
                uint64_t k = (w.cycle - x->change_at) / x->window;
                if (!x->first_after)
                    x->first_after = w.cycle;
                else if (w.cycle - x->last_cycle < x->min_gap_after)
                    x->min_gap_after = w.cycle - x->last_cycle;
                if (k < x->nwin)
                    x->win_bytes[k] += w.len;
                if (x->after_burst)
                    burst_add(x->after_burst, w.cycle, w.len);
            }
            x->last_cycle = w.cycle;
        }
    }
}

static void run_windows(run *x, uint64_t change_at, uint64_t window, uint64_t nwin)
{
    x->change_at = change_at;
    x->window = window;
    x->nwin = nwin;
    x->win_bytes = (uint64_t *)calloc(nwin, sizeof *x->win_bytes);
}

/* Worst |bytes - due| / due over the windows, in %. */
static double worst_err_pct(const run *x, uint64_t bps)
{
    double due = (double)bps / 8.0 * (double)x->window / (double)CLOCK_HZ, worst = 0;
    uint64_t k;
    for (k = 0; k < x->nwin; k++) {
        double e = 100.0 * ((double)x->win_bytes[k] - due) / due;
        if (e < 0)
            e = -e;
        if (e > worst)
            worst = e;
    }
    return worst;
}

/* Lowest link use over the windows. */
static double worst_util(const run *x)
{
    double cap = (double)LINK_BPS / 8.0 * (double)x->window / (double)CLOCK_HZ, worst = 2;
    uint64_t k;
    for (k = 0; k < x->nwin; k++)
        if ((double)x->win_bytes[k] / cap < worst)
            worst = (double)x->win_bytes[k] / cap;
    return worst;
}

/* Oversubscription: `flows` QPs, the first `fixed` of them at fixed_bps, the others at 100 Kb/s
 * raised at 50 ms to raised_bps; link use in ten 10 ms windows from the raise. */
static double oversub(uint32_t flows, uint32_t fixed, uint64_t fixed_bps, uint64_t raised_bps, uint32_t k,
                      double *phi_after, uint64_t (*bins)[NBIN])
{
    run x;
    uint32_t f;
    double util;
    if (!run_init(&x, flows, k, RL_SCHEDULE_FIFO))
        return -1;
    x.watch = UINT32_MAX;
    for (f = 0; f < flows; f++) {
        rl_set_rate(x.r, f, f < fixed ? fixed_bps : 100000ull);
        rl_doorbell(x.r, f);
    }
    run_to(&x, 50 * MS);
    run_windows(&x, 50 * MS, 10 * MS, 10);
    for (f = fixed; f < flows; f++)
        rl_set_rate(x.r, f, raised_bps);
    run_to(&x, 150 * MS);
    util = worst_util(&x);
    *phi_after = (double)rl_phi_q32(x.r) / 4294967296.0;
    if (bins)
        memcpy(bins, x.bins, sizeof x.bins);
    run_free(&x);
    return util;
}

/* sigma - one packet: the bytes a flow sends beyond bpc x (d_j - d_i) over any run of its
 * departures i..j, less the largest packet (a perfect pacer's sigma is one packet). */
typedef struct burst {
    double bpc;        /* the configured rate, bytes per cycle */
    double cum;        /* bytes so far */
    double best;       /* max over i of bpc x d_i - bytes before i */
    double sigma;
    uint32_t max_len;
    uint64_t n;
} burst;

static void burst_init(burst *b, uint64_t bps) { memset(b, 0, sizeof *b); b->bpc = (double)bps / 8.0 / (double)CLOCK_HZ; }

static void burst_add(struct burst *b, uint64_t cycle, uint32_t len)
{
    double at = b->bpc * (double)cycle;
    if (b->n++ == 0 || at - b->cum > b->best)
        b->best = at - b->cum;
    b->cum += len;
    if (b->cum - at + b->best > b->sigma)
        b->sigma = b->cum - at + b->best;
    if (len > b->max_len)
        b->max_len = len;
}

/* One 4 KB packet on the wire at the line rate, whole cycles (82): a packet that becomes
 * eligible may wait for the one the link is sending. */
#define WIRE_CYCLES ((MSG * 8ull * CLOCK_HZ + LINK_BPS - 1u) / LINK_BPS)

/* Excess over one packet, as a fraction of the bound rate x (lookahead + one packet on the wire). */
static double burst_ratio(const burst *b, uint32_t lookahead)
{
    double excess = b->sigma - (double)b->max_len;
    return excess <= 0 ? 0 : excess / (b->bpc * (double)(lookahead + WIRE_CYCLES));
}

/* Cut and raise: see the top. Returns the largest rate / configured over 1 ms windows after the
 * raise; *burst_out: the larger burst ratio of A and B after the raise. */
static double cut_raise(uint32_t k, int ranked, double *gbps_a, double *gbps_b, double *burst_out)
{
    static const uint64_t after[2] = { 60000000000ull, 30000000000ull };
    enum { NWIN = 50 };
    uint64_t bytes[2][NWIN], total[2] = { 0, 0 };
    const uint64_t cut_at = 10 * MS, raise_at = 110 * MS, end = raise_at + NWIN * MS;
    burst b[2];
    double worst = 0;
    uint32_t f, i;
    rnic_work w;
    run x;
    memset(bytes, 0, sizeof bytes);
    if (!run_init(&x, 2, k, ranked ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO)) {
        run_free(&x);
        return -1;
    }
    for (f = 0; f < 2; f++)
        burst_init(&b[f], after[f]);
    rl_set_rate(x.r, 0, LINK_BPS);
    rl_set_rate(x.r, 1, 50000000000ull);
    rl_doorbell(x.r, 0);
    rl_doorbell(x.r, 1);
    while (rl_now(x.r) < end) {
        uint64_t until = rl_now(x.r) < cut_at ? cut_at : rl_now(x.r) < raise_at ? raise_at : end;
        rl_advance_to(x.r, until);
        while (rl_pop_tx(x.r, &w) == RNIC_OK)
            if (w.cycle >= raise_at && w.cycle < end && w.flow < 2u) {
                bytes[w.flow][(w.cycle - raise_at) / MS] += w.len;
                total[w.flow] += w.len;
                burst_add(&b[w.flow], w.cycle, w.len);
            }
        if (rl_now(x.r) == cut_at)
            rl_set_rate(x.r, 1, 100000ull);
        else if (rl_now(x.r) == raise_at) {
            rl_set_rate(x.r, 0, after[0]);
            rl_set_rate(x.r, 1, after[1]);
        }
    }
    for (f = 0; f < 2; f++)
        for (i = 0; i < NWIN; i++) {
            double ratio = (double)bytes[f][i] * 8.0 / ((double)after[f] / 1000.0);
            if (ratio > worst)
                worst = ratio;
        }
    *gbps_a = (double)total[0] * 8.0 / ((double)NWIN / 1000.0) / 1e9;
    *gbps_b = (double)total[1] * 8.0 / ((double)NWIN / 1000.0) / 1e9;
    *burst_out = burst_ratio(&b[0], rl_lookahead_cycles(x.r));
    if (burst_ratio(&b[1], rl_lookahead_cycles(x.r)) > *burst_out)
        *burst_out = burst_ratio(&b[1], rl_lookahead_cycles(x.r));
    run_free(&x);
    return worst;
}

/* One QP at `bps` from a doorbell at cycle 0, 2 ms: its burst ratio (the first packets after
 * the doorbell come back from the fetch L cycles late, all due at once). */
static double doorbell_burst(uint64_t bps, uint32_t *lookahead)
{
    burst b;
    rnic_work w;
    run x;
    double ratio;
    if (!run_init(&x, 16, 60, RL_SCHEDULE_FIFO)) {
        run_free(&x);
        return -1;
    }
    burst_init(&b, bps);
    rl_set_rate(x.r, 0, bps);
    rl_doorbell(x.r, 0);
    while (rl_now(x.r) < 2 * MS) {
        rl_advance_to(x.r, 2 * MS);
        while (rl_pop_tx(x.r, &w) == RNIC_OK)
            burst_add(&b, w.cycle, w.len);
    }
    *lookahead = rl_lookahead_cycles(x.r);
    ratio = burst_ratio(&b, *lookahead);
    run_free(&x);
    return ratio;
}

static double gbps(uint64_t bytes) { return (double)bytes * 8.0 / ((double)BIN / (double)CLOCK_HZ) / 1e9; }

static void usage(const char *argv0)
{
    printf("usage: %s [--csv FILE]\n"
           "Tassel rate changes: a raise, a cut and oversubscription at 250 MHz on a 100 Gb/s link; a RESULT line\n"
           "at the end.\n"
           "  --csv FILE   the rates in 0.5 ms bins from 40 to 80 ms as CSV (make figures); default none\n"
           "  --help, -h   this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    static uint64_t raise_bins[3][NBIN], lower_bins[3][NBIN], over_bins[3][NBIN];
    const char *csv = NULL;
    run x;
    uint64_t L; /* the PCIe latency in cycles: rl_config_default's pcie_latency_ns at CLOCK_HZ */
    const double new_pkt = (double)MSG * 8.0 * (double)CLOCK_HZ / 10e9; /* 819.2 cycles */
    uint64_t raise_first, early = 0;
    double raise_err, lower_err, util2, util16k, phi2, phi16k, util, first_target;
    double cr[3], cr_a[3], cr_b[3], cr_burst[3], cut_raise_max = 0, raise_burst, db_burst[2], burst_max = 0;
    burst raise_b;
    uint32_t lookahead = 0;
    static const char *const cr_name[3] = { "FIFO, k = 60", "FIFO, k = 256", "ranked, k = 60" };
    int met, i;

    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--csv"))
            csv = CLI_VALUE(i);
        else
            cli_unknown(argv[0], argv[i]);
    }

    /* raise */
    if (!run_init(&x, 1024, 60, RL_SCHEDULE_FIFO))
        return 1;
    L = rl_pcie_latency_cycles(x.r);
    first_target = new_pkt + 2.0 * (double)L;
    printf("Tassel rate changes (250 MHz, 100 Gb/s link, 4 KB messages, PCIe latency %u cycles)\n\n", (unsigned)L);
    x.watch = 0;
    rl_set_rate(x.r, 0, 100000ull);
    rl_doorbell(x.r, 0);
    run_to(&x, 50 * MS);
    run_windows(&x, 50 * MS, 10 * MS, 10);
    burst_init(&raise_b, 10000000000ull);
    x.after_burst = &raise_b;
    rl_set_rate(x.r, 0, 10000000000ull);
    run_to(&x, 150 * MS);
    raise_burst = burst_ratio(&raise_b, rl_lookahead_cycles(x.r));
    raise_first = x.first_after - x.change_at;
    raise_err = worst_err_pct(&x, 10000000000ull);
    memcpy(raise_bins, x.bins, sizeof x.bins);
    printf("raise 100 Kb/s -> 10 Gb/s at cycle %llu: first packet %llu cycles later (target <= %.1f =\n"
           "  one packet at the new rate %.1f + 2 x PCIe latency); 10 ms windows after the raise: worst %.4f %%\n"
           "  off 10 Gb/s (before the fix: next packet at cycle 81,920,001, 0 B in 100 ms)\n",
           (unsigned long long)x.change_at, (unsigned long long)raise_first, first_target, new_pkt, raise_err);
    run_free(&x);

    /* oversubscription with raised QPs */
    util2 = oversub(2, 1, 50000000000ull, LINK_BPS, 60, &phi2, over_bins);
    util16k = oversub(16384, 0, 0, LINK_BPS * 3u / 2u / 16384u, 60, &phi16k, NULL);
    util = util2 < util16k ? util2 : util16k;
    printf("oversubscription: QP0 50 Gb/s + QP1 raised 100 Kb/s -> 100 Gb/s (Phi %.2f): link use >= %.4f\n"
           "  16,384 QPs raised together from 100 Kb/s to 1.5 x the link (Phi %.2f): link use >= %.4f\n"
           "  (before the fix: 0.33 and 0.01)\n",
           phi2, util2, phi16k, util16k);

    /* lower */
    if (!run_init(&x, 1024, 60, RL_SCHEDULE_FIFO))
        return 1;
    x.watch = 0;
    rl_set_rate(x.r, 0, 10000000000ull);
    rl_doorbell(x.r, 0);
    run_to(&x, 50 * MS);
    run_windows(&x, 50 * MS, 20 * MS, 5);
    rl_set_rate(x.r, 0, 1000000000ull);
    run_to(&x, 150 * MS);
    lower_err = worst_err_pct(&x, 1000000000ull);
    memcpy(lower_bins, x.bins, sizeof x.bins);
    /* a packet time at 1 Gb/s is 8192 cycles: a closer gap after the cut is an old-rate packet */
    early = x.min_gap_after + 1u < 8192u;
    printf("lower 10 Gb/s -> 1 Gb/s at cycle %llu: 20 ms windows after the cut: worst %.4f %% off 1 Gb/s;\n"
           "  closest packets after the cut %llu cycles apart (a packet time at 1 Gb/s: 8192)\n",
           (unsigned long long)x.change_at, lower_err, (unsigned long long)x.min_gap_after);
    run_free(&x);

    /* cut and raise */
    printf("cut and raise: A 100 Gb/s, B 50 Gb/s; B cut to 100 Kb/s at 10 ms; A -> 60 Gb/s, B -> 30 Gb/s at 110 ms;\n"
           "  over the 50 ms after the raise (each should get its rate):\n");
    for (i = 0; i < 3; i++) {
        cr[i] = cut_raise(i == 1 ? 256u : 60u, i == 2, &cr_a[i], &cr_b[i], &cr_burst[i]);
        if (cr[i] < 0)
            return 1;
        if (cr[i] > cut_raise_max)
            cut_raise_max = cr[i];
        printf("  %-15s A %.3f Gb/s, B %.3f Gb/s; largest 1 ms rate / configured %.4f\n", cr_name[i], cr_a[i],
               cr_b[i], cr[i]);
    }
    printf("  (before the lag floor, FIFO k = 60: A 20.01 Gb/s, B 79.99 Gb/s)\n");

    /* bursts beyond one packet, against rate x lookahead */
    db_burst[0] = doorbell_burst(10000000000ull, &lookahead);
    db_burst[1] = doorbell_burst(1000000000ull, &lookahead);
    for (i = 0; i < 3; i++)
        if (cr_burst[i] > burst_max)
            burst_max = cr_burst[i];
    for (i = 0; i < 2; i++)
        if (db_burst[i] > burst_max)
            burst_max = db_burst[i];
    if (raise_burst > burst_max)
        burst_max = raise_burst;
    printf("bursts beyond rate x window + one packet, over rate x (the lookahead %u + one packet on the wire %u\n"
           "  cycles; target <= 1):\n"
           "  doorbell at 10 Gb/s %.3f, at 1 Gb/s %.3f; after the raise to 10 Gb/s %.3f; after the cut and raise %.3f\n",
           (unsigned)lookahead, (unsigned)WIRE_CYCLES, db_burst[0], db_burst[1], raise_burst, cr_burst[0]);
    printf("  (cut and raise: FIFO k = 256 %.3f, ranked %.3f)\n", cr_burst[1], cr_burst[2]);

    if (csv) {
        FILE *f = fopen(csv, "w");
        uint32_t b;
        if (!f)
            return 1;
        fprintf(f, "t_ms,raise_gbps,lower_gbps,oversub_qp0_gbps,oversub_qp1_gbps,oversub_link_gbps\n");
        for (b = 0; b < NBIN; b++)
            fprintf(f, "%.2f,%.4f,%.4f,%.4f,%.4f,%.4f\n", (double)(BIN_FROM + b * BIN) / (double)MS,
                    gbps(raise_bins[0][b]), gbps(lower_bins[0][b]), gbps(over_bins[0][b]), gbps(over_bins[1][b]),
                    gbps(over_bins[2][b]));
        fclose(f);
    }
    met = (double)raise_first <= first_target && raise_err <= 0.5 && util >= 0.99 && lower_err <= 0.5 && !early &&
          cut_raise_max <= 1.01 && burst_max <= 1.0;
    printf("\ntargets %s\n", met ? "met" : "NOT MET (figures above are the measured ones)");
    printf("RESULT raise_first_pkt_cycles=%llu raise_first_target_cycles=%.1f raise_err_pct=%.4f oversub_link_util=%.4f "
           "lower_err_pct=%.4f lower_early_pkts=%llu cut_raise_max_ratio=%.4f cut_raise_b_gbps=%.3f cut_raise_a_gbps=%.3f "
           "burst_excess_ratio=%.3f\n",
           (unsigned long long)raise_first, first_target, raise_err, util, lower_err, (unsigned long long)early,
           cut_raise_max, cr_b[0], cr_a[0], burst_max);
    return 0;
}
