/* fm_window.h -- the receiving hosts and message latencies over the measurement window (issue 30,
 * item 6: one window for every counter of the host model, as the RHCC paper measures them).
 *
 * At the window's start and end every NIC with a host model is brought up to that cycle
 * (fab_bring: the node contract allows it at any cycle, and the trace digest does not depend on
 * it) and its host's counters, IIO occupancy integral, MBA writes and RHCC probes are copied; the
 * report prints their differences. At the end also each host's MBA level and, over every open
 * flow of every RHCC sender, the mean R_rev and R_cc (the sender's rate registers at that cycle).
 * Message latencies (FCT: post to last byte checked, per message completed in the window) come
 * from the receivers' stores (lat_store.h), merged over the NICs.
 *
 * The report's keys (fm_window_print), all over the window:
 *   fct_mean_us= (over every latency, kept or not) fct_p50_us= fct_p99_us= (the kept ones)
 *   host=0|1, and with the host model: cpu_load_x= rhcc= ddio= host_pauses= host_pause_us=
 *   host_marked= pcie_stalled_writes= pcie_stall_us= ddio_miss_pct= iio_occ_mean= mba_level_end=
 *   mba_steps= probes= r_rev_gbps= r_cc_gbps= host_delay_mean_ns=, and with probe_ts arrival or
 *   pipeline: probe_acks= probe_d_mean_ns= probe_d_over_thr_pct= (the senders' D_cur over the
 *   window) probe_d_max_run_ns= (its largest since the start)
 * Counts and times are sums over the receiving hosts (those some flow sends to) that have the
 * model (probes: over every RHCC sender); iio_occ_mean and
 * host_delay_mean_ns are means over those hosts' cycles and packets; mba_level_end is the lowest
 * level (the most throttled host). Hosted example code: malloc in the report only. */
#ifndef RNIC_FM_WINDOW_H
#define RNIC_FM_WINDOW_H
#include "fm_nic.h"

typedef struct fm_host_snap {
    hcc_host_stats hs;
    uint64_t occ, mba_writes, probes;
    uint64_t acks, d_sum_ns, d_over_thr, d_max_ns; /* the RHCC sender's probe ACKs (hcc_tx_stats) */
} fm_host_snap;

typedef struct fm_window {
    fm_host_snap *start, *end; /* per host, the window's start and end */
    uint32_t *level_end;       /* per host, the MBA level at the end */
    double rev_sum, rcc_sum;   /* R_rev and R_cc of every open RHCC flow at the end, b/s */
    uint32_t rev_n;
    int taken;                 /* 1 after the start, 2 after the end */
} fm_window;

static int fm_window_init(fm_window *x, uint32_t hosts)
{
    memset(x, 0, sizeof *x);
    x->start = (fm_host_snap *)calloc(hosts ? hosts : 1u, sizeof *x->start);
    x->end = (fm_host_snap *)calloc(hosts ? hosts : 1u, sizeof *x->end);
    x->level_end = (uint32_t *)calloc(hosts ? hosts : 1u, sizeof *x->level_end);
    return x->start && x->end && x->level_end ? 0 : -1;
}

static void fm_window_free(fm_window *x)
{
    free(x->start);
    free(x->end);
    free(x->level_end);
    memset(x, 0, sizeof *x);
}

/* At `cycle` (every cycle before it run): at_end 0 the window's start, 1 its end. */
static void fm_window_take(fm_window *x, fm_world *w, uint64_t cycle, int at_end)
{
    uint32_t h, i;
    for (h = 0; h < w->hosts; h++) {
        fm_nic *n = &w->nic[h];
        fm_host_snap *s = at_end ? &x->end[h] : &x->start[h];
        if (!n->hh_on && !n->htx_on)
            continue;
        fab_bring(&w->f, n->fab_id, cycle);
        fm_nic_settle(n); /* lazy engines with no event before `cycle` are brought there too */
        s->probes = n->probes_sent;
        if (n->htx_on) {
            const hcc_tx_stats *ts = hcc_tx_get_stats(&n->htx);
            s->acks = ts->probe_acks;
            s->d_sum_ns = ts->d_sum_ns;
            s->d_over_thr = ts->d_over_thr;
            s->d_max_ns = ts->d_max_ns;
        }
        if (n->hh_on) {
            s->hs = *hcc_host_get_stats(&n->hh);
            s->occ = hcc_host_iio_occupancy_cum(&n->hh);
            s->mba_writes = n->mba_writes;
            if (at_end)
                x->level_end[h] = hcc_host_mba_level(&n->hh);
        }
        for (i = 0; at_end && n->htx_on && i < n->nsend; i++) {
            hcc_tx_flow_view v;
            if (hcc_tx_flow_state(&n->htx, i, &v) == RNIC_OK && v.open) {
                x->rev_sum += (double)v.r_rev;
                x->rcc_sum += (double)v.r_cc;
                x->rev_n++;
            }
        }
    }
    x->taken = at_end ? 2 : 1;
}

static int fm_window__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile (nearest rank on 0..n-1, rounded) of sorted v, in cycles. */
static double fm_window__pct(const uint64_t *v, size_t n, double p)
{
    return n ? (double)v[(size_t)(p / 100.0 * (double)(n - 1u) + 0.5)] : 0.0;
}

/* Appends the window's keys to the RESULT line (the header comment); with `text`, a readable
 * summary before it instead (text = 1: those lines, no keys). */
static void fm_window_print(const fm_window *x, const fm_world *w, int text)
{
    uint64_t seen = 0, sum = 0, kept = 0, *lat;
    uint64_t pauses = 0, pause_cycles = 0, marked = 0, stalled = 0, stall_cycles = 0, hits = 0, misses = 0;
    uint64_t cycles = 0, occ = 0, out = 0, delay = 0, mba = 0, probes = 0, served = 0;
    uint64_t acks = 0, d_sum = 0, d_over = 0, d_max = 0;
    uint32_t h, level = UINT32_MAX, with_host = 0;
    int sampled = 0;
    double hz = (double)w->p.clock_hz, fct_mean, p50, p99;
    static const char *const rhcc[] = { "off", "rx", "tx", "both", "ecn" };
    size_t i, k = 0;
    for (h = 0; h < w->hosts; h++) {
        seen += w->nic[h].rx.lat.seen;
        sum += w->nic[h].rx.lat.sum;
        kept += w->nic[h].rx.lat.n;
        sampled |= rm_lat_sampled(&w->nic[h].rx.lat);
    }
    lat = (uint64_t *)malloc((kept + 1u) * sizeof *lat);
    for (h = 0; lat && h < w->hosts; h++)
        for (i = 0; i < w->nic[h].rx.lat.n; i++)
            lat[k++] = w->nic[h].rx.lat.lat[i];
    if (lat)
        qsort(lat, k, sizeof *lat, fm_window__cmp_u64);
    fct_mean = seen ? (double)sum / (double)seen / hz * 1e6 : 0.0;
    p50 = lat ? fm_window__pct(lat, k, 50) / hz * 1e6 : 0.0;
    p99 = lat ? fm_window__pct(lat, k, 99) / hz * 1e6 : 0.0;
    free(lat);
    for (h = 0; x->taken == 2 && h < w->hosts; h++) {
        const fm_host_snap *a = &x->start[h], *b = &x->end[h];
        probes += b->probes - a->probes;
        acks += b->acks - a->acks;
        d_sum += b->d_sum_ns - a->d_sum_ns;
        d_over += b->d_over_thr - a->d_over_thr;
        if (b->d_max_ns > d_max)
            d_max = b->d_max_ns;
        if (!w->nic[h].hh_on || !w->nic[h].nrecv)
            continue; /* a host no flow sends to gets ACKs only: not a receiving host */
        with_host++;
        pauses += b->hs.pfc_pauses - a->hs.pfc_pauses;
        pause_cycles += b->hs.pause_cycles - a->hs.pause_cycles;
        marked += b->hs.marked - a->hs.marked;
        stalled += b->hs.pcie_stalled_writes - a->hs.pcie_stalled_writes;
        stall_cycles += b->hs.pcie_stall_cycles - a->hs.pcie_stall_cycles;
        hits += b->hs.ddio_hits - a->hs.ddio_hits;
        misses += b->hs.ddio_misses - a->hs.ddio_misses;
        cycles += b->hs.cycles - a->hs.cycles;
        occ += (b->occ - a->occ) & ((1ull << 48) - 1u); /* the integral wraps at 2^48 (hostcc.h) */
        out += b->hs.packets_out - a->hs.packets_out;
        delay += b->hs.delay_sum - a->hs.delay_sum;
        mba += b->mba_writes - a->mba_writes;
        served += b->hs.cpu_bytes_served - a->hs.cpu_bytes_served;
        if (x->level_end[h] < level)
            level = x->level_end[h];
    }
    if (text) {
        double win_s = (double)(w->window_end - w->window_start) / hz;
        printf("  messages completed in the window: %llu, FCT mean %.2f us, p50 %.2f us, p99 %.2f us%s\n",
               (unsigned long long)seen, fct_mean, p50, p99,
               sampled ? " (percentiles from a uniform sample: [output] lat_samples)" : "");
        if (with_host)
            printf("  receiving hosts (%u, with the host model; the window's counters): CPU memory traffic %ux, %.2f GB/s "
                   "served; %llu PAUSEs (%.1f us paused), %llu CE marks; PCIe %llu writes stalled for credits (%.1f us); "
                   "DDIO %s, %.1f %% misses; IIO occupancy mean %.1f lines; RX -> write delay mean %.0f ns; RHCC %s: "
                   "MBA level %u at the end (lowest), %llu steps, %llu probes%s\n",
                   with_host, w->p.cpu_load_x, (double)served / win_s / 1e9, (unsigned long long)pauses,
                   (double)pause_cycles / hz * 1e6, (unsigned long long)marked, (unsigned long long)stalled,
                   (double)stall_cycles / hz * 1e6, w->p.ddio ? "on" : "off",
                   hits + misses ? 100.0 * (double)misses / (double)(hits + misses) : 0.0,
                   cycles ? (double)occ / (double)cycles : 0.0, out ? (double)delay / (double)out / hz * 1e9 : 0.0,
                   rhcc[w->p.rhcc], level == UINT32_MAX ? 0u : level, (unsigned long long)mba, (unsigned long long)probes,
                   x->rev_n ? "" : " (no RHCC sender flow open at the end)");
        if (x->rev_n)
            printf("  RHCC senders at the window's end: R_rev mean %.2f Gb/s, R_cc (DCQCN) mean %.2f Gb/s over %u flows\n",
                   x->rev_sum / x->rev_n / 1e9, x->rcc_sum / x->rev_n / 1e9, x->rev_n);
        return;
    }
    printf(" fct_mean_us=%.2f fct_p50_us=%.2f fct_p99_us=%.2f", fct_mean, p50, p99);
    if (!with_host) {
        printf(" host=0");
        return;
    }
    printf(" host=1 cpu_load_x=%u rhcc=%s ddio=%d host_pauses=%llu host_pause_us=%.1f host_marked=%llu "
           "pcie_stalled_writes=%llu pcie_stall_us=%.1f ddio_miss_pct=%.2f iio_occ_mean=%.2f mba_level_end=%u mba_steps=%llu "
           "probes=%llu r_rev_gbps=%.3f r_cc_gbps=%.3f host_delay_mean_ns=%.1f",
           w->p.cpu_load_x, rhcc[w->p.rhcc], w->p.ddio != 0, (unsigned long long)pauses, (double)pause_cycles / hz * 1e6,
           (unsigned long long)marked, (unsigned long long)stalled, (double)stall_cycles / hz * 1e6,
           hits + misses ? 100.0 * (double)misses / (double)(hits + misses) : 0.0, cycles ? (double)occ / (double)cycles : 0.0,
           level == UINT32_MAX ? 0u : level, (unsigned long long)mba, (unsigned long long)probes,
           x->rev_n ? x->rev_sum / x->rev_n / 1e9 : 0.0, x->rev_n ? x->rcc_sum / x->rev_n / 1e9 : 0.0,
           out ? (double)delay / (double)out / hz * 1e9 : 0.0);
    /* the probe delay D_cur the RHCC senders saw (only where it is modelled: probe_ts arrival or
       pipeline; with the default head stamp the line is as it was) */
    if (w->p.probe_ts_arrival || w->p.rx_pipeline > 1u || w->p.probe_base_ns)
        printf(" probe_acks=%llu probe_d_mean_ns=%.1f probe_d_over_thr_pct=%.2f probe_d_max_run_ns=%llu",
               (unsigned long long)acks, acks ? (double)d_sum / (double)acks : 0.0,
               acks ? 100.0 * (double)d_over / (double)acks : 0.0, (unsigned long long)d_max);
}

#endif /* RNIC_FM_WINDOW_H */
