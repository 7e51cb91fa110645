/* fm_fct.h -- the open-loop flows' completion times as congestion-control papers report them
 * (issue 33; docs/workloads.md): each flow's FCT (from its start to the sender's completion,
 * the last byte acknowledged), its ideal FCT on an idle network of the same path and the
 * slowdown (FCT over ideal); percentiles over all flows, per tenant and per size bucket; the
 * per-flow and per-bucket CSVs.
 *
 * The ideal FCT is the HPCC simulator's "standalone FCT", so slowdowns compare with that
 * simulator's and its paper's: base RTT (2 x the path's propagation delays + one payload's
 * serialization at each hop of the data path) + the flow's wire bytes (payload + each packet's
 * headers) at the path's slowest link. The NIC's own latencies (the doorbell over PCIe, the WQE
 * and payload reads) are not in it: they show in the slowdown of the smallest flows. As that
 * simulator's analysis does, the percentiles take a slowdown below 1 as 1 (flows_below_ideal
 * counts them: 0 when the ideal is a true lower bound); the CSV keeps the measured value. */
#ifndef RNIC_FM_FCT_H
#define RNIC_FM_FCT_H
#include "fm_build.h"

#define FM_FCT_SMALL_BYTES 100000u /* "small flows": under 100 KB (the HPCC paper's short flows) */
#define FM_FCT_BUCKETS 10u         /* size buckets: flows sorted by size, tenths of the flows */

/* One flow's outcome (ns). */
typedef struct fm_fct_flow {
    uint64_t fct_ns, ideal_ns;
    double slowdown;
    uint64_t cnps;
} fm_fct_flow;

/* A set of slowdowns' percentiles (nearest rank below, as the HPCC analysis: a[floor(n p)]). */
typedef struct fm_fct_pct {
    uint32_t n;
    double p50, p95, p99;
} fm_fct_pct;

static uint64_t fm__ns_of(const fm_world *w, uint64_t cycle) { return cycle * 1000000000ull / w->p.clock_hz; }

/* Job i's ideal FCT on its QP's path (fm_model_path: the switches' ECMP choice), ns. */
static uint64_t fm_fct_ideal_ns(const fm_model *m, uint32_t i)
{
    const fm_world *w = &m->w;
    const fm_job *j = &w->job[i];
    uint32_t links[64], n, k, pkts;
    uint64_t delay = 0, tx = 0, slowest = UINT64_MAX, wire;
    n = fm_model_path(m, j->src, j->dst, w->rmjob[i].qp, links, 64);
    for (k = 0; k < n; k++) {
        const topo_link *l = &m->t.link[links[k] / 2u];
        delay += l->delay_ns;
        tx += (uint64_t)w->p.payload * 8u * 1000000000ull / l->rate_bps;
        if (l->rate_bps < slowest)
            slowest = l->rate_bps;
    }
    pkts = (uint32_t)((j->size + w->p.payload - 1u) / w->p.payload);
    wire = j->size + (uint64_t)pkts * FM_WIRE_OVERHEAD;
    return 2u * delay + tx + wire * 8u * 1000000000ull / slowest;
}

static fm_fct_flow fm_fct_of(const fm_model *m, uint32_t i)
{
    const fm_world *w = &m->w;
    const rm_job *r = &w->rmjob[i];
    const fm_job *j = &w->job[i];
    fm_fct_flow o;
    memset(&o, 0, sizeof o);
    o.ideal_ns = fm_fct_ideal_ns(m, i);
    if (r->done) {
        o.fct_ns = fm__ns_of(w, r->done) - j->start_ns;
        o.slowdown = (double)o.fct_ns / (double)o.ideal_ns;
        o.cnps = w->job_cnps ? w->job_cnps[i] : w->nic[j->src].host.gen[r->qp].cnps - r->cnps_at_post;
    }
    return o;
}

static int fm__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Percentiles of v[0..n) (sorted here; slowdowns below 1 taken as 1). */
static fm_fct_pct fm_fct_percentiles(double *v, uint32_t n)
{
    fm_fct_pct p;
    uint32_t i;
    memset(&p, 0, sizeof p);
    p.n = n;
    if (!n)
        return p;
    for (i = 0; i < n; i++)
        if (v[i] < 1.0)
            v[i] = 1.0;
    qsort(v, n, sizeof *v, fm__cmp_double);
    p.p50 = v[(uint32_t)((uint64_t)n * 50u / 100u)];
    p.p95 = v[(uint32_t)((uint64_t)n * 95u / 100u)];
    p.p99 = v[(uint32_t)((uint64_t)n * 99u / 100u)];
    return p;
}

/* The whole workload's figures. */
typedef struct fm_fct_summary {
    uint32_t flows, done, below_ideal;
    double load;                     /* offered: the jobs' bytes over the senders' link capacity for the run */
    fm_fct_pct all, small, large, tenant[FM_MAX_TENANTS];
    uint32_t nbuckets;
    uint64_t bucket_max_bytes[FM_FCT_BUCKETS];
    fm_fct_pct bucket[FM_FCT_BUCKETS];
} fm_fct_summary;

/* The offered load: the jobs' bytes over the capacity of the links of the hosts that send any,
 * for duration_ns. */
static double fm_fct_offered_load(const fm_model *m, uint64_t duration_ns)
{
    const fm_world *w = &m->w;
    uint8_t *sends = (uint8_t *)calloc(w->hosts + 1u, 1);
    uint64_t bytes = 0;
    double capacity = 0;
    uint32_t i;
    if (!sends)
        fm__fail("fct", "no memory");
    for (i = 0; i < w->njobs; i++) {
        bytes += w->job[i].size;
        sends[w->job[i].src] = 1;
    }
    for (i = 0; i < w->hosts; i++)
        if (sends[i])
            capacity += (double)fm__host_link_bps(m, i) * (double)duration_ns / 1e9 / 8.0;
    free(sends);
    return capacity > 0 ? (double)bytes / capacity : 0;
}

/* --write-flows FILE: the run's open-loop flows in the flow file's format (workload.h), in start
 * order: a generated workload to edit, or to run again as traffic = file. */
static int fm_fct_write_flows(const fm_model *m, const scn *s, const char *path)
{
    const fm_world *w = &m->w;
    uint32_t i;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# SRC DST TENANT SIZE_BYTES START_NS: %u flows (rnic_model --write-flows)\n", w->njobs);
    for (i = 0; i < w->njobs; i++)
        fprintf(f, "%u %u %s %llu %llu\n", w->job[i].src, w->job[i].dst, s->tenants[w->job[i].tenant].name,
                (unsigned long long)w->job[i].size, (unsigned long long)w->job[i].start_ns);
    return fclose(f) == 0 ? 0 : -1;
}

typedef struct fm__size_slow {
    uint64_t size;
    uint32_t id;
    double slowdown;
} fm__size_slow;

static int fm__cmp_size_slow(const void *a, const void *b)
{
    const fm__size_slow *x = (const fm__size_slow *)a, *y = (const fm__size_slow *)b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void fm_fct_summarize(const fm_model *m, uint64_t duration_ns, fm_fct_summary *out)
{
    const fm_world *w = &m->w;
    uint32_t i, t, b, n = 0, ns = 0, nl = 0;
    double *all = (double *)calloc(w->njobs + 1u, sizeof *all), *small = (double *)calloc(w->njobs + 1u, sizeof *small);
    double *large = (double *)calloc(w->njobs + 1u, sizeof *large), *tmp = (double *)calloc(w->njobs + 1u, sizeof *tmp);
    fm__size_slow *by_size = (fm__size_slow *)calloc(w->njobs + 1u, sizeof *by_size);
    memset(out, 0, sizeof *out);
    if (!all || !small || !large || !tmp || !by_size)
        fm__fail("fct", "no memory");
    out->flows = w->njobs;
    out->load = fm_fct_offered_load(m, duration_ns);
    for (i = 0; i < w->njobs; i++) {
        fm_fct_flow o = fm_fct_of(m, i);
        if (!w->rmjob[i].done)
            continue;
        out->done++;
        out->below_ideal += o.slowdown < 1.0;
        all[n] = o.slowdown;
        by_size[n].size = w->job[i].size;
        by_size[n].id = i;
        by_size[n].slowdown = o.slowdown;
        n++;
        if (w->job[i].size < FM_FCT_SMALL_BYTES)
            small[ns++] = o.slowdown;
        else
            large[nl++] = o.slowdown;
    }
    for (t = 0; t < w->p.tenants && t < FM_MAX_TENANTS; t++) {
        uint32_t k = 0;
        for (i = 0; i < n; i++)
            if (w->job[by_size[i].id].tenant == t)
                tmp[k++] = by_size[i].slowdown;
        out->tenant[t] = fm_fct_percentiles(tmp, k);
    }
    qsort(by_size, n, sizeof *by_size, fm__cmp_size_slow);
    out->nbuckets = n ? FM_FCT_BUCKETS : 0u;
    for (b = 0; b < out->nbuckets; b++) { /* the HPCC analysis's: flows by size, equal shares of them */
        uint32_t lo = (uint32_t)((uint64_t)n * b / FM_FCT_BUCKETS), hi = (uint32_t)((uint64_t)n * (b + 1u) / FM_FCT_BUCKETS), k;
        for (k = lo; k < hi; k++)
            tmp[k - lo] = by_size[k].slowdown;
        out->bucket_max_bytes[b] = hi > lo ? by_size[hi - 1u].size : 0;
        out->bucket[b] = fm_fct_percentiles(tmp, hi - lo);
    }
    out->all = fm_fct_percentiles(all, n);
    out->small = fm_fct_percentiles(small, ns);
    out->large = fm_fct_percentiles(large, nl);
    free(all);
    free(small);
    free(large);
    free(tmp);
    free(by_size);
}

static void fm_fct_print(const fm_model *m, const fm_fct_summary *f)
{
    const fm_world *w = &m->w;
    uint32_t b, t;
    printf("  open-loop flows: %u, %u completed; offered load %.3f of the senders' links (target %.3f); FCT slowdown "
           "(FCT / ideal FCT on an idle network) p50 %.3f, p95 %.3f, p99 %.3f; flows under %u KB p99 %.3f (%u flows); "
           "%u below the ideal\n", f->flows, f->done, f->load, m->load_target, f->all.p50, f->all.p95, f->all.p99,
           FM_FCT_SMALL_BYTES / 1000u, f->small.p99, f->small.n, f->below_ideal);
    for (t = 0; t < w->p.tenants && t < FM_MAX_TENANTS; t++)
        if (w->p.tenant[t].open)
            printf("    tenant %u: %u flows, slowdown p50 %.3f, p95 %.3f, p99 %.3f\n", t, f->tenant[t].n, f->tenant[t].p50,
                   f->tenant[t].p95, f->tenant[t].p99);
    if (f->nbuckets)
        printf("    by size (tenths of the flows, smallest first): up to bytes: p50 / p95 / p99 slowdown\n");
    for (b = 0; b < f->nbuckets; b++)
        printf("      %10llu: %8.3f / %8.3f / %8.3f (%u flows)\n", (unsigned long long)f->bucket_max_bytes[b],
               f->bucket[b].p50, f->bucket[b].p95, f->bucket[b].p99, f->bucket[b].n);
}

/* The RESULT line of an open-loop run (before the fabric's). */
static void fm_fct_result(const fm_model *m, const fm_fct_summary *f, uint64_t lost)
{
    const fm_world *w = &m->w;
    uint32_t t;
    printf("RESULT workload=1 load=%.4f load_target=%.4f flows=%u flows_done=%u fct_slowdown_p50=%.4f "
           "fct_slowdown_p95=%.4f fct_slowdown_p99=%.4f small_flow_p99=%.4f small_flows=%u large_flow_p99=%.4f "
           "flows_below_ideal=%u", f->load, m->load_target, f->flows, f->done, f->all.p50, f->all.p95, f->all.p99,
           f->small.p99, f->small.n, f->large.p99, f->below_ideal);
    for (t = 0; t < w->p.tenants && t < FM_MAX_TENANTS; t++)
        if (w->p.tenant[t].open)
            printf(" tenant%u_fct_slowdown_p50=%.4f tenant%u_fct_slowdown_p99=%.4f", t, f->tenant[t].p50, t,
                   f->tenant[t].p99);
    printf(" bytes_lost=%llu drained=%d\n", (unsigned long long)lost, m->drained);
}

/* --fct-csv (or [output] fct_csv): one line per open-loop flow. */
static int fm_fct_write_csv(const fm_model *m, const char *path)
{
    const fm_world *w = &m->w;
    uint32_t i;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "id,src,dst,tenant,protocol,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,qp,cnps,done\n");
    for (i = 0; i < w->njobs; i++) {
        const fm_job *j = &w->job[i];
        fm_fct_flow o = fm_fct_of(m, i);
        fprintf(f, "%u,%u,%u,%u,%s,%llu,%llu,%llu,%llu,%.6f,%u,%llu,%d\n", i, j->src, j->dst, j->tenant,
                scn_protocol_names()[w->p.tenant[j->tenant].protocol], (unsigned long long)j->size,
                (unsigned long long)j->start_ns, (unsigned long long)o.fct_ns, (unsigned long long)o.ideal_ns, o.slowdown,
                w->flow_of[j->src][w->rmjob[i].qp], (unsigned long long)o.cnps, w->rmjob[i].done != 0);
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* [output] fct_buckets_csv: the slowdown percentiles per size bucket (the FCT-vs-size figure). */
static int fm_fct_write_buckets_csv(const fm_fct_summary *s, const char *path)
{
    uint32_t b;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "bucket,max_size_bytes,flows,slowdown_p50,slowdown_p95,slowdown_p99\n");
    for (b = 0; b < s->nbuckets; b++)
        fprintf(f, "%u,%llu,%u,%.6f,%.6f,%.6f\n", b, (unsigned long long)s->bucket_max_bytes[b], s->bucket[b].n,
                s->bucket[b].p50, s->bucket[b].p95, s->bucket[b].p99);
    return fclose(f) == 0 ? 0 : -1;
}

#endif /* RNIC_FM_FCT_H */
