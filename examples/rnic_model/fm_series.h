/* fm_series.h -- each tenant's delivered payload over time (issue 33, item 3: the figures of a
 * run). At every queue sample (fm_links_sample's instants: the window's start, every
 * queue_sample_us, its end) the payload every receiver has checked so far is summed per tenant;
 * the difference from the previous sample over the period is that tenant's Gb/s in the period.
 * The receivers' byte counters are the ones fm_report's tenant Gb/s counts (rx.f[i], in the
 * window), so the series integrates to the reported figure.
 *
 * The NICs are read the way fm_links_sample reads them (brought to the sample's cycle with
 * w->observing set), so sampling changes no result. One CSV row per tenant per sample is written
 * as it is taken: nothing accumulates in memory over the run. */
#ifndef RNIC_FM_SERIES_H
#define RNIC_FM_SERIES_H
#include "fm_nic.h"
#include "scenario.h"

typedef struct fm_series {
    FILE *tenants_csv;                       /* t_us,tenant,name,gbps per tenant per sample, NULL = none */
    uint64_t last_bytes[FM_MAX_TENANTS];     /* payload checked by the previous sample */
    uint64_t last_cycle;
    char name[FM_MAX_TENANTS][SCN_NAME_MAX]; /* the scenario's tenant names */
} fm_series;

/* Writes the tenants CSV to f (header now, rows at every sample); names from scenario s. */
static void fm_series_open(fm_series *x, FILE *f, const scn *s)
{
    uint32_t t;
    memset(x, 0, sizeof *x);
    x->tenants_csv = f;
    for (t = 0; t < arrlenu(s->tenants) && t < FM_MAX_TENANTS; t++)
        snprintf(x->name[t], sizeof x->name[t], "%s", s->tenants[t].name);
    fprintf(f, "t_us,tenant,name,gbps\n");
}

/* At `cycle`, right beside fm_links_sample (what: 0 the window's start, 1 inside it, 2 its end).
 * gbps is the period since the previous sample; it is empty at the window's start. */
static void fm_series_sample(fm_series *x, fm_world *w, uint64_t cycle, int what)
{
    uint64_t bytes[FM_MAX_TENANTS];
    uint32_t h, i, t;
    if (!x->tenants_csv)
        return;
    memset(bytes, 0, sizeof bytes);
    w->observing = 1;
    for (h = 0; h < w->hosts; h++) {
        const fm_nic *n = &w->nic[h];
        fab_bring(&w->f, n->fab_id, cycle);
        for (i = 0; i < n->nrecv; i++)
            bytes[w->flow[n->recv_flow[i]].tenant] += n->rx.f[i].bytes;
    }
    w->observing = 0;
    for (t = 0; t < w->p.tenants && t < FM_MAX_TENANTS; t++) {
        fprintf(x->tenants_csv, "%.3f,%u,%s,", (double)cycle * 1e6 / (double)w->p.clock_hz, t, x->name[t]);
        if (what != 0 && cycle > x->last_cycle)
            fprintf(x->tenants_csv, "%.6f", (double)(bytes[t] - x->last_bytes[t]) * 8.0 * (double)w->p.clock_hz /
                                                (double)(cycle - x->last_cycle) / 1e9);
        fputc('\n', x->tenants_csv);
        x->last_bytes[t] = bytes[t];
    }
    x->last_cycle = cycle;
}

#endif /* RNIC_FM_SERIES_H */
