/* fm_build.h -- a scenario (scenario.h) becomes a fabric of NICs and switches (fm_nic.h,
 * fm_switch.h) on a topology (topo.h) under the one scheduler (fabric.h); then the run, the
 * drain and the report (issue 30; docs/fabric_model.md).
 *
 * Traffic: each tenant's QPs per sending host go to the pattern's destinations round robin
 * (QP j of host h -> dst[j mod |dst|]): incast (every host not a destination sends to the
 * destinations, or the `src` list), permutation (a random derangement per tenant, drawn from
 * the run's seed: no host sends to itself), all_to_all (every other host), pairs (each pair
 * gets the tenant's qps QPs).
 * Switch links: every egress link takes its own rate and delay from the topology (the shared
 * buffer's PFC thresholds are derived from the fastest link of the switch: the most headroom). */
#ifndef RNIC_FM_BUILD_H
#define RNIC_FM_BUILD_H
#include <time.h>
#include "fm_links.h"
#include "fm_series.h"
#include "fm_window.h"
#include "scenario.h"
#include "topo.h"
#include "workload.h"

typedef struct fm_model {
    fm_world w;
    topo t;
    uint64_t end;              /* the measurement window's end (cycles) */
    uint64_t drain_limit;      /* cycles after `end` the drain may take */
    int drained;
    double host_s;
    fm_links links;            /* every directed link over the window (fm_links.h) */
    uint64_t sample_us;        /* its queue samples' period */
    fm_series series;          /* each tenant's Gb/s at those samples (fm_series.h) */
    fm_window win;             /* the receiving hosts over the window (fm_window.h) */
    int progress_log;          /* "progress cycle=.. packets=.." lines on stderr (tools/soak.sh) */
    uint64_t *pairs;           /* open-loop tenants: the distinct fm__pair_key of their jobs, sorted */
    uint32_t *pair_qp;         /* ... the first of each pair's QPs (fm_flow index) */
    size_t npairs;
    double load_target;        /* the poisson tenants' load_pct summed, as a fraction */
    const char **trace_host_name; /* the trace CSV's node names: per host, its topology name */
    const uint8_t *part;       /* fm_ext.h: per host, then per switch: 1 = built in this process; NULL = all */
    int ecmp;                  /* switch.ecmp: a switch not built here still routes (fm_model_path) */
    uint64_t seed;             /* run.seed (the switches' ECMP seeds) */
} fm_model;

static void fm__fail(const char *what, const char *why)
{
    fprintf(stderr, "rnic_model: %s: %s\n", what, why);
    exit(1);
}

/* The scenario's values, each valid alone, make a network that cannot be built: exit 2 (a bad
 * scenario), naming the keys to change. */
static void fm__bad_scenario(const char *keys, const char *why)
{
    fprintf(stderr, "rnic_model: %s: %s\n", keys, why);
    exit(2);
}

/* The scenario key behind a switch configuration field net_switch_config_check names. */
static const char *fm__switch_key(const char *field)
{
    if (!field)
        return "[switch]";
    if (!strcmp(field, "pfc_xon_bytes"))
        return "switch.pfc_xon_kb (with switch.pfc_xoff_kb)";
    if (!strcmp(field, "pfc_xoff_bytes"))
        return "switch.pfc_xoff_kb (with switch.pfc_xon_kb, switch.buffer_kb)";
    if (!strcmp(field, "pfc_port_headroom_bytes") || !strcmp(field, "pfc_headroom_bytes"))
        return "switch.pfc_headroom_kb (with switch.buffer_kb)";
    if (!strcmp(field, "buffer_bytes"))
        return "switch.buffer_kb";
    if (!strncmp(field, "ecn", 3) || !strncmp(field, "red", 3))
        return "switch.ecn_kmin_kb / ecn_kmax_kb / ecn_pmax_pct";
    return "[switch]";
}

static void fm__build_topo(fm_model *m, const scn *s)
{
    topo *t = &m->t;
    uint64_t host_bps = s->topo.link_gbps * 1000000000ull, fab_bps = s->topo.fabric_gbps * 1000000000ull;
    uint32_t delay = (uint32_t)s->topo.link_delay_ns;
    rnic_err e = RNIC_OK;
    const char *why = NULL;
    size_t i;
    topo_init(t);
    switch (s->topo.shape) {
    case SCN_STAR:
        e = topo_star(t, s->topo.hosts.v[0], host_bps, delay);
        break;
    case SCN_DUMBBELL:
        e = topo_dumbbell(t, s->topo.hosts.v[0], s->topo.hosts.n > 1 ? s->topo.hosts.v[1] : s->topo.hosts.v[0], host_bps,
                          fab_bps, delay);
        break;
    case SCN_LEAF_SPINE:
        e = topo_leaf_spine(t, s->topo.leaves, s->topo.spines, s->topo.hosts_per_leaf, host_bps, fab_bps, delay);
        break;
    case SCN_FAT_TREE: /* topo.h builds one rate; the switch-to-switch links then take fabric_gbps */
        e = topo_fat_tree(t, s->topo.k, host_bps, delay);
        for (i = 0; e == RNIC_OK && i < t->n_links; i++)
            if (t->node[t->link[i].a].kind == TOPO_SWITCH && t->node[t->link[i].b].kind == TOPO_SWITCH)
                t->link[i].rate_bps = fab_bps;
        break;
    default: /* explicit */
        for (i = 0; i < arrlenu(s->topo.nodes) && e == RNIC_OK; i++)
            if ((s->topo.nodes[i].is_switch ? topo_add_switch(t, s->topo.nodes[i].name,
                                                              s->topo.nodes[i].tier ? s->topo.nodes[i].tier : 1u)
                                            : topo_add_host(t, s->topo.nodes[i].name)) == TOPO_NONE)
                e = RNIC_EINVAL;
        for (i = 0; i < arrlenu(s->topo.links) && e == RNIC_OK; i++)
            e = topo_connect_by_name(t, s->topo.links[i].a, s->topo.links[i].b, s->topo.links[i].gbps * 1000000000ull,
                                     (uint32_t)s->topo.links[i].delay_ns, s->topo.links[i].loss_ppm);
        if (e == RNIC_OK)
            e = topo_finish(t, &why);
        break;
    }
    if (e != RNIC_OK)
        fm__bad_scenario("[topology]", topo_why(t)[0] ? topo_why(t) : rnic_strerror(e));
    if (s->topo.shape != SCN_EXPLICIT) /* topology.loss_ppm: every link of a built shape (an explicit
                                          link has its own); a switch drops at that link's egress */
        for (i = 0; i < t->n_links; i++)
            t->link[i].loss_ppm = s->topo.loss_ppm;
}

/* A derangement of 0..n-1 (no fixed point when n > 1): Fisher-Yates, then fixed points swapped
 * with their neighbour (still a permutation; fixed points cannot remain for n > 1). */
static void fm__derangement(uint32_t *pi, uint32_t n, uint64_t seed)
{
    rnic_prng r;
    uint32_t i;
    rnic_prng_seed(&r, seed);
    for (i = 0; i < n; i++)
        pi[i] = i;
    for (i = n; i > 1; i--) {
        uint32_t j = (uint32_t)rnic_prng_below(&r, i), x = pi[i - 1u];
        pi[i - 1u] = pi[j];
        pi[j] = x;
    }
    for (i = 0; i < n && n > 1; i++)
        if (pi[i] == i) {
            uint32_t j = (i + 1u) % n, x = pi[i];
            pi[i] = pi[j];
            pi[j] = x;
        }
}

static void fm__add_flow(fm_world *w, uint32_t src, uint32_t dst, uint32_t tenant, uint32_t *nsend, uint32_t *nrecv)
{
    fm_flow *f = &w->flow[w->nflows++];
    f->src = src;
    f->dst = dst;
    f->tenant = tenant;
    f->local = nsend[src]++;
    f->rx = nrecv[dst]++;
}

/* Tenant tn's destinations from host h (its pattern; pi: tn's derangement, for permutation):
 * their count, 0 when h does not send. Pairs: the pairs' destinations of h, in list order. */
static uint32_t fm__dests(const scn_tenant *tn, uint32_t H, uint32_t h, const uint32_t *pi, uint32_t *dsts)
{
    uint32_t nd = 0, d;
    size_t i;
    int sends = 1;
    if (tn->pattern == SCN_PAIRS) {
        for (i = 0; i < arrlenu(tn->pairs); i++)
            if (tn->pairs[i].src == h)
                dsts[nd++] = tn->pairs[i].dst;
        return nd;
    }
    if (arrlenu(tn->src)) {
        sends = 0;
        for (i = 0; i < arrlenu(tn->src); i++)
            sends |= tn->src[i] == h;
    }
    if (tn->pattern == SCN_INCAST) {
        int is_dst = 0;
        if (!arrlenu(tn->dst))
            dsts[nd++] = 0;
        for (i = 0; i < arrlenu(tn->dst); i++)
            dsts[nd++] = tn->dst[i];
        for (i = 0; i < nd; i++)
            is_dst |= dsts[i] == h;
        if (is_dst && !arrlenu(tn->src))
            sends = 0;
    } else if (tn->pattern == SCN_PERMUTATION) {
        dsts[nd++] = pi[h];
    } else { /* all to all */
        for (d = 0; d < H; d++)
            if (d != h)
                dsts[nd++] = d;
    }
    return sends ? nd : 0u;
}

/* The (source, tenant, destination) of a job as one sortable key. */
static uint64_t fm__pair_key(uint32_t src, uint32_t tenant, uint32_t dst)
{
    return ((uint64_t)src << 40) | ((uint64_t)tenant << 32) | dst;
}

static int fm__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A host's own link rate (an explicit topology's links may differ). */
static uint64_t fm__host_link_bps(const fm_model *m, uint32_t h)
{
    return m->t.link[topo_port_link(&m->t, topo_host_node(&m->t, h), 0)].rate_bps;
}

/* The mean of the log-uniform message sizes rm_host draws in [lo, hi] (the arrival rate of a
 * poisson tenant without a size CDF): (hi - lo) / ln(hi / lo). */
static double fm__log_uniform_mean(uint32_t lo, uint32_t hi)
{
    return hi > lo ? (double)(hi - lo) / log((double)hi / (double)lo) : (double)lo;
}

/* A flow file's tenant: an index, or -1 when no traffic = file tenant has the name. */
static int fm__file_tenant(const void *user, const char *name)
{
    const scn *s = (const scn *)user;
    size_t t;
    for (t = 0; t < arrlenu(s->tenants); t++)
        if (!strcmp(s->tenants[t].name, name) && s->tenants[t].traffic == SCN_TRAFFIC_FILE)
            return (int)t;
    return -1;
}

static void fm__job_add(wl_flow **v, size_t *n, size_t *cap, uint32_t src, uint32_t dst, uint32_t t, uint64_t size,
                        uint64_t start_ns)
{
    wl_flow *f;
    if (*n == *cap) {
        *cap = *cap ? 2u * *cap : 1024u;
        if (!(*v = (wl_flow *)realloc(*v, *cap * sizeof **v)))
            fm__fail("workload", "no memory");
    }
    f = &(*v)[(*n)++];
    memset(f, 0, sizeof *f);
    f->src = src;
    f->dst = dst;
    f->tenant = t;
    f->size = size;
    f->start_ns = start_ns;
}

/* A flow the run would never reach is refused (exit 2), naming where it came from. */
static void fm__check_start(const wl_flow *f, uint64_t end_ns, const char *from)
{
    char why[SCN_PATH_MAX + 160];
    if (f->start_ns < end_ns)
        return;
    snprintf(why, sizeof why, "%s:%u: the flow starts at %llu ns, at or after the run's end %llu ns: lengthen "
                              "run.duration_us", from, f->line, (unsigned long long)f->start_ns, (unsigned long long)end_ns);
    fm__bad_scenario("run.duration_us", why);
}

/* The open-loop tenants' jobs (docs/workloads.md): poisson arrivals and bursts drawn from the
 * run's seed, the flow file's and the caller's flows (given: the HPCC reader's), in start order;
 * then the (source, tenant, destination) pairs they use. Every job starts before the run's end. */
static void fm__build_jobs(fm_model *m, const scn *s, const wl_flow *given, size_t ngiven, const char *given_from)
{
    fm_world *w = &m->w;
    uint32_t H = w->hosts, t, h, *pi = (uint32_t *)calloc(H, sizeof *pi), *dsts = (uint32_t *)calloc(H, sizeof *dsts);
    uint64_t end_ns = s->run.duration_us * 1000u;
    wl_flow *v = NULL;
    size_t n = 0, cap = 0, i;
    char why[512 + SCN_PATH_MAX];
    if (!pi || !dsts)
        fm__fail("workload", "no memory");
    for (t = 0; t < arrlenu(s->tenants); t++) {
        const scn_tenant *tn = &s->tenants[t];
        wl_cdf cdf;
        double mean;
        if (tn->traffic != SCN_TRAFFIC_POISSON && tn->traffic != SCN_TRAFFIC_BURST)
            continue;
        memset(&cdf, 0, sizeof cdf);
        if (tn->size_cdf[0] && wl_cdf_read(&cdf, tn->size_cdf, why, sizeof why) != 0) {
            char key[SCN_NAME_MAX + 32];
            snprintf(key, sizeof key, "tenant.%s.size_cdf", tn->name);
            fm__bad_scenario(key, why);
        }
        mean = cdf.n ? wl_cdf_mean(&cdf) : fm__log_uniform_mean(tn->msg_bytes.min, tn->msg_bytes.max);
        if (tn->traffic == SCN_TRAFFIC_POISSON)
            m->load_target += (double)tn->load_pct / 100.0;
        if (tn->pattern == SCN_PERMUTATION)
            fm__derangement(pi, H, s->run.seed * 0x9e3779b97f4a7c15ull + t + 1u);
        for (h = 0; h < H; h++) {
            uint32_t nd = fm__dests(tn, H, h, pi, dsts), k;
            rnic_prng r;
            if (!nd)
                continue;
            rnic_prng_seed(&r, s->run.seed ^ (((uint64_t)t << 32 | h) * 0xd6e8feb86659fd93ull) ^ 0x5851f42d4c957f2dull);
            if (tn->traffic == SCN_TRAFFIC_POISSON) { /* the HPCC generator's: exponential gaps, a uniform other host */
                double gap = wl_interarrival_ns(mean, fm__host_link_bps(m, h), tn->load_pct), at = 0;
                for (;;) {
                    uint32_t d;
                    at += wl_exponential_ns(&r, gap);
                    if (at >= (double)end_ns)
                        break;
                    d = dsts[rnic_prng_below(&r, nd)];
                    fm__job_add(&v, &n, &cap, h, d, t,
                                cdf.n ? wl_cdf_sample(&cdf, &r) : rnic_prng_log_range(&r, tn->msg_bytes.min, tn->msg_bytes.max),
                                (uint64_t)at);
                }
            } else { /* burst: every burst_us, a flow to each destination */
                uint64_t at;
                for (at = 0; at < end_ns; at += tn->burst_us * 1000u)
                    for (k = 0; k < nd; k++)
                        fm__job_add(&v, &n, &cap, h, dsts[k], t,
                                    cdf.n ? wl_cdf_sample(&cdf, &r)
                                          : rnic_prng_log_range(&r, tn->msg_bytes.min, tn->msg_bytes.max),
                                    at);
            }
        }
        wl_cdf_free(&cdf);
    }
    if (s->run.flow_file[0]) {
        size_t n0 = n;
        cap = n;
        if (wl_read_flow_file(s->run.flow_file, H, fm__file_tenant, s, &v, &n, why, sizeof why) != 0)
            fm__bad_scenario("run.flow_file", why);
        cap = n;
        for (i = n0; i < n; i++)
            fm__check_start(&v[i], end_ns, s->run.flow_file);
    }
    for (i = 0; i < ngiven; i++) {
        if (given[i].src >= H || given[i].dst >= H || given[i].src == given[i].dst || !given[i].size ||
            given[i].size > WL_MAX_FLOW_BYTES || given[i].tenant >= arrlenu(s->tenants) ||
            s->tenants[given[i].tenant].traffic != SCN_TRAFFIC_FILE)
            fm__bad_scenario("flows", "a given flow has a bad host, size or tenant (its tenant needs traffic = file)");
        fm__check_start(&given[i], end_ns, given_from ? given_from : "the given flows");
        fm__job_add(&v, &n, &cap, given[i].src, given[i].dst, given[i].tenant, given[i].size, given[i].start_ns);
        v[n - 1u].line = given[i].line;
    }
    if (n > 0xfffffff0u)
        fm__bad_scenario("workload", "more than 2^32 - 16 flows");
    wl_sort(v, n);
    w->njobs = (uint32_t)n;
    w->job = (fm_job *)calloc(n ? n : 1u, sizeof *w->job);
    w->rmjob = (rm_job *)calloc(n ? n : 1u, sizeof *w->rmjob);
    m->pairs = (uint64_t *)malloc((n ? n : 1u) * sizeof *m->pairs);
    if (!w->job || !w->rmjob || !m->pairs)
        fm__fail("workload", "no memory");
    for (i = 0; i < n; i++) {
        w->job[i].src = v[i].src;
        w->job[i].dst = v[i].dst;
        w->job[i].tenant = v[i].tenant;
        w->job[i].size = v[i].size;
        w->job[i].start_ns = v[i].start_ns;
        w->rmjob[i].size = (uint32_t)v[i].size;
        w->rmjob[i].start = rnic_ns_to_cycles(v[i].start_ns, w->p.clock_hz);
        w->rmjob[i].next = RM_NO_JOB;
        m->pairs[i] = fm__pair_key(v[i].src, v[i].tenant, v[i].dst);
    }
    qsort(m->pairs, n, sizeof *m->pairs, fm__cmp_u64);
    for (i = 0; i < n; i++)
        if (!m->npairs || m->pairs[m->npairs - 1u] != m->pairs[i])
            m->pairs[m->npairs++] = m->pairs[i];
    if (!(m->pair_qp = (uint32_t *)calloc(m->npairs ? m->npairs : 1u, sizeof *m->pair_qp)))
        fm__fail("workload", "no memory");
    free(v);
    free(pi);
    free(dsts);
}

/* After the flow table: each job's QPs at its sending host, and each host's arrivals. */
static void fm__place_jobs(fm_model *m, const scn *s)
{
    fm_world *w = &m->w;
    uint32_t i, h;
    w->arrivals_of = (uint32_t **)calloc(w->hosts, sizeof *w->arrivals_of);
    w->narrivals_of = (uint32_t *)calloc(w->hosts, sizeof *w->narrivals_of);
    if (!w->arrivals_of || !w->narrivals_of)
        fm__fail("workload", "no memory");
    for (i = 0; i < w->njobs; i++)
        w->narrivals_of[w->job[i].src]++;
    for (h = 0; h < w->hosts; h++)
        if (w->narrivals_of[h] && !(w->arrivals_of[h] = (uint32_t *)malloc(w->narrivals_of[h] * sizeof **w->arrivals_of)))
            fm__fail("workload", "no memory");
    memset(w->narrivals_of, 0, w->hosts * sizeof *w->narrivals_of);
    for (i = 0; i < w->njobs; i++) {
        const fm_job *j = &w->job[i];
        uint64_t key = fm__pair_key(j->src, j->tenant, j->dst), *at;
        at = (uint64_t *)bsearch(&key, m->pairs, m->npairs, sizeof *m->pairs, fm__cmp_u64);
        w->rmjob[i].qp0 = w->flow[m->pair_qp[at - m->pairs]].local;
        w->rmjob[i].nqp = (uint32_t)s->tenants[j->tenant].qps;
        w->arrivals_of[j->src][w->narrivals_of[j->src]++] = i;
    }
}

/* The flow table from the tenants' patterns (two passes: count, then fill). An open-loop
 * tenant gets `qps` QPs for each (source, destination) its jobs use (pairs: the sorted distinct
 * keys of m->pairs, first QP of each in m->pair_qp). */
static void fm__build_flows(fm_model *m, const scn *s)
{
    fm_world *w = &m->w;
    uint32_t H = w->hosts, pass, t, h, j, *pi = (uint32_t *)calloc(H, sizeof *pi), *dsts = (uint32_t *)calloc(H, sizeof *dsts);
    uint32_t *nsend = (uint32_t *)calloc(H, sizeof *nsend), *nrecv = (uint32_t *)calloc(H, sizeof *nrecv);
    uint64_t count = 0;
    if (!pi || !dsts || !nsend || !nrecv)
        fm__fail("flows", "no memory");
    for (pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            int open = 0; /* an open-loop workload may have no flow in a short run: the network idles */
            for (t = 0; t < arrlenu(s->tenants); t++)
                open |= s->tenants[t].traffic != SCN_TRAFFIC_BACKLOG;
            if ((!count && !open) || count > (1u << 24))
                fm__fail("flows", count ? "more than 2^24 QPs" : "no QP: every tenant's pattern is empty");
            w->flow = (fm_flow *)calloc(count ? count : 1u, sizeof *w->flow);
            if (!w->flow)
                fm__fail("flows", "no memory");
            memset(nsend, 0, H * sizeof *nsend);
            memset(nrecv, 0, H * sizeof *nrecv);
        }
        for (t = 0; t < arrlenu(s->tenants); t++) {
            const scn_tenant *tn = &s->tenants[t];
            if (tn->traffic != SCN_TRAFFIC_BACKLOG) {
                size_t i;
                for (i = 0; i < m->npairs; i++) {
                    if ((uint32_t)((m->pairs[i] >> 32) & 0xffu) != t)
                        continue;
                    if (pass)
                        m->pair_qp[i] = w->nflows;
                    for (j = 0; j < tn->qps; j++) {
                        if (pass)
                            fm__add_flow(w, (uint32_t)(m->pairs[i] >> 40), (uint32_t)(m->pairs[i] & 0xffffffffu), t,
                                         nsend, nrecv);
                        count += !pass;
                    }
                }
                continue;
            }
            if (tn->pattern == SCN_PAIRS) {
                size_t i;
                for (i = 0; i < arrlenu(tn->pairs); i++)
                    for (j = 0; j < tn->qps; j++) {
                        if (pass)
                            fm__add_flow(w, tn->pairs[i].src, tn->pairs[i].dst, t, nsend, nrecv);
                        count += !pass;
                    }
                continue;
            }
            if (tn->pattern == SCN_PERMUTATION)
                fm__derangement(pi, H, s->run.seed * 0x9e3779b97f4a7c15ull + t + 1u);
            for (h = 0; h < H; h++) {
                uint32_t nd = fm__dests(tn, H, h, pi, dsts), d;
                if (!nd)
                    continue;
                for (j = 0; j < tn->qps; j++) {
                    d = dsts[j % nd];
                    if (d == h)
                        continue; /* a host does not send to itself over the network */
                    if (pass)
                        fm__add_flow(w, h, d, t, nsend, nrecv);
                    count += !pass;
                }
            }
        }
    }
    w->flow_of = (uint32_t **)calloc(H, sizeof *w->flow_of);
    if (!w->flow_of)
        fm__fail("flows", "no memory");
    for (h = 0; h < H; h++)
        if (nsend[h] && !(w->flow_of[h] = (uint32_t *)calloc(nsend[h], sizeof **w->flow_of)))
            fm__fail("flows", "no memory");
    for (j = 0; j < w->nflows; j++)
        w->flow_of[w->flow[j].src][w->flow[j].local] = j;
    free(pi);
    free(dsts);
    free(nsend);
    free(nrecv);
}

static void fm__params(fm_world *w, const scn *s)
{
    fm_params *p = &w->p;
    size_t t;
    memset(p, 0, sizeof *p);
    p->clock_hz = 250000000ull;
    p->link_bps = s->topo.link_gbps * 1000000000ull;
    p->link_prop_ns = (uint32_t)s->topo.link_delay_ns;
    p->pcie_bps = s->nic.pcie_gbps * 1000000000ull;
    p->pcie_latency_ns = (uint32_t)s->nic.pcie_latency_ns;
    p->payload = s->nic.payload;
    p->tenants = (uint32_t)arrlenu(s->tenants);
    for (t = 0; t < p->tenants && t < FM_MAX_TENANTS; t++) {
        const scn_tenant *tn = &s->tenants[t];
        p->tenant[t].weight = tn->weight;
        p->tenant[t].cap_bps = tn->cap_mbps * 1000000ull;
        p->tenant[t].min_msg = tn->msg_bytes.min;
        p->tenant[t].max_msg = tn->msg_bytes.max;
        p->tenant[t].depth = tn->depth;
        p->tenant[t].protocol = tn->protocol; /* scn_protocol and FM_PROTO_* list the same protocols in the same order */
        p->tenant[t].newreno_recover = tn->recover ? TP_NEWRENO_RECOVER_RFC6582 : TP_NEWRENO_RECOVER_NS3;
        p->tenant[t].dcqcn_variant = tn->variant == SCN_VARIANT_PAPER      ? 0
                                     : tn->variant == SCN_VARIANT_MELLANOX ? 1
                                     : tn->variant == SCN_VARIANT_HPCC     ? 3
                                                                           : 2;
        if (tn->cap_mbps && tn->protocol != SCN_DCQCN && tn->protocol != SCN_IRN) {
            /* a cap is a rate register in Tassel; window and token QPs are not paced by it */
            fprintf(stderr, "rnic_model: tenant %s: cap_mbps needs a rate protocol (dcqcn, irn): %s runs on the "
                            "transport's own window/token credit, which has no rate register to cap\n",
                    tn->name, scn_protocol_names()[tn->protocol]);
            exit(2);
        }
    }
    for (t = 0; t < p->tenants && t < FM_MAX_TENANTS; t++)
        p->tenant[t].open = s->tenants[t].traffic != SCN_TRAFFIC_BACKLOG;
    p->sched_qos = s->nic.sched == SCN_SCHED_QOS;
    for (t = 0; p->sched_qos && t < p->tenants && t < FM_MAX_TENANTS; t++)
        if (p->tenant[t].open) {
            /* the QoS engine's host (fm_nic.h) posts backlogged transfers only */
            fprintf(stderr, "rnic_model: nic.sched = qos with tenant.%s.traffic = %s: open-loop flows run on Palos's "
                            "host rings only; use nic.sched = palos\n",
                    s->tenants[t].name, scn_traffic_names()[s->tenants[t].traffic]);
            exit(2);
        }
    for (t = 1; p->sched_qos && t < p->tenants && t < FM_MAX_TENANTS; t++)
        if (s->tenants[t].weight != s->tenants[0].weight) {
            /* the QoS engine serves every tenant's transfers from one FIFO, a block each in turn:
               it has no tenant weights to set (docs/fabric_model.md), so weights are refused, not
               ignored -- as rnic_model --sched qos refuses --weights */
            fprintf(stderr, "rnic_model: nic.sched = qos with tenant.%s.weight = %u and tenant.%s.weight = %u: the QoS "
                            "engine has no tenant weights (it serves every QP's transfer in turn, a block at a time); "
                            "give every tenant the same weight, or use nic.sched = palos\n",
                    s->tenants[0].name, (unsigned)s->tenants[0].weight, s->tenants[t].name, (unsigned)s->tenants[t].weight);
            exit(2);
        }
    p->dcqcn_variant = p->tenant[0].dcqcn_variant;
    p->cnp_interval_us = s->nic.cnp_interval_us;
    p->host_on = s->host.model != 0;
    p->cpu_load_x = s->host.cpu_load;
    p->rhcc = (int)s->host.rhcc; /* scn_rhcc and FM_RHCC_* list the same modes in the same order */
    p->ddio = s->host.ddio != 0;
    p->footprint_mb = s->host.footprint_mb;
    p->cpu_outstanding = s->host.cpu_outstanding;
    p->cpu_evict_wb = s->host.cpu_evict_wb;
    p->probe_ts_arrival = s->host.probe_ts == SCN_PROBE_TS_ARRIVAL;
    p->rx_pipeline = s->host.probe_ts == SCN_PROBE_TS_PIPELINE ? s->host.rx_pipeline : 1u;
    p->probe_base_ns = s->host.probe_ts == SCN_PROBE_TS_PIPELINE ? s->host.probe_base_ns : 0u;
    p->uniform_slack = s->host.rhcc_slack == SCN_SLACK_UNIFORM;
    p->qos_timeout_us = s->nic.qos_timeout_us;
    p->ack_every = s->nic.ack_every;
    p->ack_timeout_ns = s->nic.ack_timeout_ns;
    p->pfc = s->sw.pfc != 0;
    p->trim = s->sw.trim != 0;
    p->lat_samples = (size_t)s->out.lat_samples;
    p->seed = s->run.seed;
}

static void fm__build_switch(fm_model *m, const scn *s, uint32_t i)
{
    fm_world *w = &m->w;
    fm_switch *x = &w->sw[i];
    topo *t = &m->t;
    uint32_t node = topo_switch_node(t, i), ports = t->node[node].ports, p, d;
    net_switch_config sc;
    const char *field = NULL;
    rnic_err e;
    uint32_t *set = (uint32_t *)calloc(ports + 1u, sizeof *set);
    memset(x, 0, sizeof *x);
    x->w = w;
    x->index = i;
    x->peer = (fm_peer *)calloc(ports, sizeof *x->peer);
    if (!x->peer || !set)
        fm__fail("switch", "no memory");
    net_switch_config_default(&sc);
    sc.ports = ports;
    sc.hosts = w->hosts;
    sc.buffer_bytes = s->sw.buffer_kb << 10;
    if (s->sw.ecn == SCN_ECN_RED) {
        sc.ecn_kmin_bytes = s->sw.ecn_kmin_kb << 10;
        sc.ecn_kmax_bytes = s->sw.ecn_kmax_kb << 10;
        sc.ecn_pmax_ppm = s->sw.ecn_pmax_pct * 10000u;
    }
    sc.ecn_seed = s->run.seed ^ ((uint64_t)(i + 1u) * 0x9e3779b97f4a7c15ull);
    sc.ecmp_seed = s->run.seed ^ ((uint64_t)(i + 1u) * 0xc2b2ae3d27d4eb4full);
    sc.ecmp_groups = ports + 1u;
    sc.control_priority = 1;
    sc.dt_alpha_num = s->sw.dt_alpha.num;
    sc.dt_alpha_den = s->sw.dt_alpha.den ? s->sw.dt_alpha.den : 1u;
    sc.link.clock_hz = w->p.clock_hz;
    sc.link.prop_ns = w->p.link_prop_ns;
    sc.link.rate_bps = w->p.link_bps;
    sc.link.out_packets = 4096;
    for (p = 0; p < ports; p++) { /* the fastest link sets the headroom */
        uint32_t l = topo_port_link(t, node, p);
        if (t->link[l].rate_bps > sc.link.rate_bps)
            sc.link.rate_bps = t->link[l].rate_bps;
        if (t->link[l].delay_ns > sc.link.prop_ns)
            sc.link.prop_ns = t->link[l].delay_ns;
    }
    if (s->sw.trim) /* NDP: the trimmed header goes on to the receiver (fm_nic_accept: TP_WORK_TRIMMED) */
        sc.trim_bytes = FM_TRIM_PACKETS * (uint64_t)(w->p.payload + FM_WIRE_OVERHEAD);
    if (s->sw.pfc) {
        if (net_switch_pfc_derive(&sc, ports, &sc.link) != RNIC_OK)
            fm__bad_scenario("switch.buffer_kb", "PFC's headroom for every port does not fit the buffer (raise it, or switch.pfc = off)");
        if (s->sw.pfc_xoff_kb)
            sc.pfc_xoff_bytes = s->sw.pfc_xoff_kb << 10;
        if (s->sw.pfc_xon_kb)
            sc.pfc_xon_bytes = s->sw.pfc_xon_kb << 10;
        if (s->sw.pfc_headroom_kb)
            sc.pfc_port_headroom_bytes = s->sw.pfc_headroom_kb << 10;
    }
    if ((e = net_switch_config_check(&sc, &field)) != RNIC_OK) {
        char why[160];
        snprintf(why, sizeof why, "switch %u: %s: %s", i, field ? field : "?", rnic_strerror(e));
        fm__bad_scenario(fm__switch_key(field), why);
    }
    if ((e = net_switch_init(&x->sw, &sc)) != RNIC_OK)
        fm__fail("switch", rnic_strerror(e));
    for (p = 0; p < ports; p++) {
        uint32_t peer_port = 0, peer = topo_peer(t, node, p, &peer_port), l = topo_port_link(t, node, p);
        net_link_config lc = x->sw.port[p].link.cfg;
        x->peer[p].is_switch = t->node[peer].kind == TOPO_SWITCH;
        x->peer[p].index = t->node[peer].index;
        x->peer[p].port = peer_port;
        if (t->link[l].rate_bps != lc.rate_bps || t->link[l].delay_ns != lc.prop_ns) { /* this port's own link */
            lc.rate_bps = t->link[l].rate_bps;
            lc.prop_ns = t->link[l].delay_ns;
            net_link_free(&x->sw.port[p].link);
            if (net_link_init(&x->sw.port[p].link, &lc) != RNIC_OK)
                fm__fail("switch link", "bad rate or delay");
        }
        if (t->link[l].loss_ppm && net_switch_set_drop_ppm(&x->sw, p, t->link[l].loss_ppm, s->run.seed + node) != RNIC_OK)
            fm__fail("switch", "loss");
    }
    for (d = 0; d < w->hosts; d++) {
        uint32_t n = topo_route_count(t, node, d), k;
        for (k = 0; k < n; k++)
            set[k] = topo_route_port(t, node, d, k);
        if (n && (e = (s->sw.ecmp ? net_switch_route_ecmp(&x->sw, d, set, n) : net_switch_route(&x->sw, d, set[0]))) != RNIC_OK)
            fm__fail("switch route", rnic_strerror(e));
    }
    free(set);
}

/* DCQCN's parameters of a variant: 0 paper, 1 mellanox, 2 htsim (the paper's with htsim's
 * R_AI = line / 20 and R_HAI = line / 10), 3 hpcc (Mellanox's with the HPCC simulator's steps and
 * floor at this line rate). */
static void fm__dcqcn_variant(tp_dcqcn_config *c, int variant, uint64_t line_bps, uint64_t link_bps)
{
    tp_dcqcn_preset(c, variant == 1 || variant == 3 ? TP_DCQCN_MELLANOX : TP_DCQCN_PAPER);
    if (variant == 2) {
        c->rai_bps = line_bps / 20u;
        c->rhai_bps = line_bps / 10u;
    }
    if (variant == 3) { /* the HPCC simulator's run.py `dcqcn` at --bw B: Mellanox's timers, g and F, R_AI 5 B/25 and
                           R_HAI 50 B/25 Mb/s (B in Gb/s: 20 and 200 Mb/s at 100), MIN_RATE 1 Gb/s */
        c->rai_bps = link_bps / 5000u;
        c->rhai_bps = link_bps / 500u;
        c->rate_floor_bps = line_bps >= 1000000000ull ? 1000000000ull : line_bps;
    }
}

/* NDP's initial window: about one bandwidth-delay product of a host link (NDP's rule; tp_ndp_config),
 * in full segments, at least FM_NDP_INIT_WINDOW, at most the engine's window. The base RTT is
 * estimated from the topology (ours): one way, 2 x the highest switch tier + 1 hops (a star's 2,
 * plus one for slack), each the longest link delay plus a full packet's serialization; both ways,
 * plus the PCIe latency twice (the DMA read of the data, the completion) and 1 us of turnaround. */
static uint32_t fm__bdp_segments(const fm_model *m)
{
    const topo *t = &m->t;
    const fm_world *w = &m->w;
    uint64_t delay = 0, tier = 1, wire = w->p.payload + FM_WIRE_OVERHEAD, rtt_ns, bdp;
    uint32_t i;
    for (i = 0; i < t->n_links; i++)
        if (t->link[i].delay_ns > delay)
            delay = t->link[i].delay_ns;
    for (i = 0; i < t->n_nodes; i++)
        if (t->node[i].kind == TOPO_SWITCH && t->node[i].tier > tier)
            tier = t->node[i].tier;
    rtt_ns = 2u * (2u * tier + 1u) * (delay + wire * 8u * 1000000000ull / w->p.link_bps) + 2u * w->p.pcie_latency_ns + 1000u;
    bdp = (w->p.link_bps / 8u * rtt_ns / 1000000000ull + wire - 1u) / wire;
    return bdp < FM_NDP_INIT_WINDOW ? FM_NDP_INIT_WINDOW : bdp > FM_TP_WINDOW ? FM_TP_WINDOW : (uint32_t)bdp;
}

/* The transport kinds: one per distinct (protocol, DCQCN variant) among the tenants, in the
 * order of their first tenant (a run of DCQCN tenants of one variant has one kind, as before
 * per-tenant protocols: its NICs run exactly the transport they ran then). */
static void fm__kinds(fm_world *w, uint32_t ndp_window)
{
    uint32_t t, k;
    w->nkinds = 0;
    for (t = 0; t < w->p.tenants; t++) {
        fm_tenant *tn = &w->p.tenant[t];
        fm_kind *kd;
        for (k = 0; k < w->nkinds; k++)
            if (w->kind[k].protocol == tn->protocol &&
                (tn->protocol != FM_PROTO_DCQCN || w->kind[k].dcqcn_variant == tn->dcqcn_variant))
                break;
        tn->kind = k;
        if (k < w->nkinds)
            continue;
        kd = &w->kind[w->nkinds++];
        memset(kd, 0, sizeof *kd);
        kd->protocol = tn->protocol;
        kd->dcqcn_variant = tn->protocol == FM_PROTO_DCQCN ? tn->dcqcn_variant : 0;
        kd->rate = tn->protocol == FM_PROTO_DCQCN || tn->protocol == FM_PROTO_IRN;
        kd->in_order = tn->protocol == FM_PROTO_DCQCN;
        switch (tn->protocol) {
        case FM_PROTO_DCQCN:
            kd->proto = *tp_protocol_dcqcn();
            fm__dcqcn_variant(&kd->dcqcn, kd->dcqcn_variant, w->line_bps, w->p.link_bps);
            kd->proto.config = &kd->dcqcn;
            break;
        case FM_PROTO_IRN:
            kd->proto = *tp_protocol_irn();
            tp_irn_config_default(&kd->irn);
            kd->irn.rate_bps = w->line_bps; /* no congestion control (IRN's headline set-up): line rate */
            kd->proto.config = &kd->irn;
            break;
        case FM_PROTO_NDP:
            kd->proto = *tp_protocol_ndp();
            tp_ndp_config_default(&kd->ndp);
            kd->ndp.init_window = ndp_window;
            kd->proto.config = &kd->ndp;
            break;
        case FM_PROTO_RENO:
            kd->proto = *tp_protocol_reno();
            break;
        case FM_PROTO_NEWRENO:
            kd->proto = *tp_protocol_newreno();
            break;
        default:
            kd->proto = *tp_protocol_sack();
            break;
        }
    }
}

/* Build everything; `tick_only`: the scheduler ticks every node every cycle; `trace`: the trace
 * CSV (its header written; NULL = none), attached before the NICs are built; `given`: open-loop
 * flows besides the scenario's (the HPCC flow file's), read from `given_from` (for messages). */
/* A fabric of the nodes `part` marks (hosts, then switches; NULL: all of them) for fm_ext.h, which
 * adds them to the scheduler with the outside links' far ends; every process builds the same
 * topology, flows and workload. The others stay zero but for a host's QP count (nsend: a
 * packet's sender number is checked against it). */
static void fm_model_init_part(fm_model *m, const scn *s, int tick_only, fm_trace_csv *trace, const wl_flow *given,
                               size_t ngiven, const char *given_from, const uint8_t *part)
{
    fm_world *w = &m->w;
    fab_config fc;
    uint32_t h, i, t;
    memset(m, 0, sizeof *m);
    m->part = part;
    m->ecmp = s->sw.ecmp;
    m->seed = s->run.seed;
    fm__build_topo(m, s);
    w->hosts = m->t.n_hosts;
    w->switches = m->t.n_switches;
    fm__params(w, s);
    w->line_bps = w->p.link_bps * w->p.payload / (w->p.payload + FM_WIRE_OVERHEAD);
    for (t = 0; t < w->p.tenants; t++)
        if (w->p.tenant[t].cap_bps > w->line_bps)
            w->p.tenant[t].cap_bps = w->line_bps;
    fm__dcqcn_variant(&w->dcqcn, w->p.dcqcn_variant, w->line_bps, w->p.link_bps);
    fm__kinds(w, fm__bdp_segments(m));
    w->window_start = rnic_ns_to_cycles(s->run.warmup_us * 1000u, w->p.clock_hz);
    w->window_end = rnic_ns_to_cycles(s->run.duration_us * 1000u, w->p.clock_hz);
    m->end = w->window_end;
    m->drain_limit = s->run.drain ? rnic_ns_to_cycles(s->run.drain_limit_us * 1000u, w->p.clock_hz) : 0;
    fm__build_jobs(m, s, given, ngiven, given_from);
    fm__build_flows(m, s);
    fm__place_jobs(m, s);
    if (trace) {
        if (!(m->trace_host_name = (const char **)calloc(w->hosts + 1u, sizeof *m->trace_host_name)))
            fm__fail("trace CSV", "no memory");
        for (h = 0; h < w->hosts; h++)
            m->trace_host_name[h] = m->t.node[topo_host_node(&m->t, h)].name;
        fm_trace_csv_attach(trace, m->trace_host_name, w->p.clock_hz);
        w->trace_csv = trace;
    }
    w->nic = (fm_nic *)calloc(w->hosts, sizeof *w->nic);
    w->sw = (fm_switch *)calloc(w->switches, sizeof *w->sw);
    if (!w->nic || !w->sw)
        fm__fail("nodes", "no memory");
    memset(&fc, 0, sizeof fc);
    fc.max_nodes = (w->hosts + w->switches) * (part ? 2u : 1u); /* fm_ext.h: + the far ends */
    fc.tick_only = tick_only;
    if (fab_init(&w->f, &fc) != RNIC_OK)
        fm__fail("scheduler", "no memory");
    if (!(w->uplink = (fm_uplink *)calloc(w->hosts, sizeof *w->uplink)))
        fm__fail("nodes", "no memory");
    for (h = 0; h < w->hosts; h++) { /* each host's own link (explicit topologies may differ) */
        const topo_link *l = &m->t.link[topo_port_link(&m->t, topo_host_node(&m->t, h), 0)];
        w->uplink[h].rate_bps = l->rate_bps;
        w->uplink[h].prop_ns = l->delay_ns;
        w->uplink[h].loss_ppm = l->loss_ppm;
    }
    for (h = 0; h < w->hosts; h++) {
        uint32_t node = topo_host_node(&m->t, h), port = 0, peer = topo_peer(&m->t, node, 0, &port), g;
        if (part && !part[h]) {
            for (g = 0; g < w->nflows; g++)
                w->nic[h].nsend += w->flow[g].src == h;
            w->nic[h].fab_id = RNIC_NONE;
            continue;
        }
        fm_nic_init(&w->nic[h], w, h);
        w->nic[h].sw = m->t.node[peer].index;
        w->nic[h].sw_port = port;
        w->nic[h].fab_id = part ? RNIC_NONE : fab_add(&w->f, &fm_nic_ops, &w->nic[h]);
    }
    for (h = 0; h < w->hosts; h++) { /* say so where Palos's weights cannot divide the NIC */
        const fm_nic *n = &w->nic[h];
        uint32_t f, src0 = 0, wt0 = 0, mixed = 0;
        if (!n->w)
            continue;
        for (f = 0; f < n->nsend && !mixed; f++) {
            uint32_t k = n->send_inst[f], src = w->kind[n->tpi[k].kind].rate ? 0u : k + 1u;
            uint32_t wt = w->p.tenant[w->flow[n->send_flow[f]].tenant].weight;
            if (!f)
                src0 = src, wt0 = wt;
            else
                mixed = src != src0 && wt != wt0;
        }
        if (mixed) {
            fprintf(stderr, "rnic_model: note: host %u sends tenants of different weights through different transports "
                            "(a window or token protocol beside another protocol): the DMA takes turns between "
                            "transports, so Palos's weights divide each transport's turns, not the NIC "
                            "(docs/fabric_model.md, The NIC)\n", h);
            break;
        }
    }
    for (i = 0; i < w->switches; i++) {
        if (part && !part[w->hosts + i]) {
            w->sw[i].fab_id = RNIC_NONE;
            continue;
        }
        fm__build_switch(m, s, i);
        w->sw[i].fab_id = part ? RNIC_NONE : fab_add(&w->f, &fm_switch_ops, &w->sw[i]);
    }
    m->sample_us = s->out.queue_sample_us;
    if (!part && fm_links_init(&m->links, w, &m->t, rnic_ns_to_cycles(s->out.queue_sample_us * 1000u, w->p.clock_hz)) != 0)
        fm__fail("links", "no memory");
    if (fm_window_init(&m->win, w->hosts) != 0)
        fm__fail("window", "no memory");
}

static void fm_model_init(fm_model *m, const scn *s, int tick_only, fm_trace_csv *trace, const wl_flow *given,
                          size_t ngiven, const char *given_from)
{
    fm_model_init_part(m, s, tick_only, trace, given, ngiven, given_from, NULL);
}

static void fm_model_free(fm_model *m)
{
    fm_world *w = &m->w;
    uint32_t i;
    for (i = 0; i < w->hosts; i++) {
        if (w->nic[i].w)
            fm_nic_free(&w->nic[i]);
        free(w->flow_of ? w->flow_of[i] : NULL);
    }
    for (i = 0; i < w->switches; i++) {
        if (!w->sw[i].w)
            continue;
        net_switch_free(&w->sw[i].sw);
        free(w->sw[i].peer);
    }
    free(w->nic);
    free(m->trace_host_name);
    free(w->uplink);
    free(w->sw);
    free(w->flow);
    free(w->flow_of);
    for (i = 0; w->arrivals_of && i < w->hosts; i++)
        free(w->arrivals_of[i]);
    free(w->arrivals_of);
    free(w->narrivals_of);
    free(w->job);
    free(w->rmjob);
    free(m->pairs);
    free(m->pair_qp);
    fab_free(&w->f);
    fm_links_free(&m->links);
    fm_window_free(&m->win);
    topo_free(&m->t);
}

/* Every posted byte checked at its receiver and every message acknowledged. */
/* The drain's condition over the hosts built here (all, but in one part of fm_ext.h's): v[0] the
 * hosts with a message unfinished, v[1] the bytes posted, v[2] the bytes checked at receivers.
 * Summed over every part, the run is drained when v[0] = 0 and v[1] = v[2]. */
#define FM_DRAIN_VALUES 3u
static void fm_model_drain_state(const fm_model *m, uint64_t *v)
{
    const fm_world *w = &m->w;
    uint32_t h, k;
    memset(v, 0, FM_DRAIN_VALUES * sizeof *v);
    for (h = 0; h < w->hosts; h++) {
        const fm_nic *n = &w->nic[h];
        int busy = 0;
        if (!n->w)
            continue;
        for (k = 0; k < n->ntp; k++) {
            const tp_stats *ts = tp_get_stats(&n->tpi[k].t);
            busy |= ts->completions != ts->messages;
        }
        v[0] += busy || !fm_nic_host_idle(n) || n->host.jobs_done != w->narrivals_of[h];
        v[1] += fm_nic_posted(n);
        v[2] += n->rx.bytes;
    }
}

static int fm_drained(const uint64_t *v) { return v[0] == 0 && v[1] == v[2]; }

static int fm_model_drained(const fm_model *m)
{
    uint64_t v[FM_DRAIN_VALUES];
    fm_model_drain_state(m, v);
    return fm_drained(v);
}

/* --progress-log: a line per 1/1000 of the window and one per drain step, so a soak's sampler
 * learns the simulated cycle (tools/soak.sh). Runs the fabric to `target`, stopping at each
 * line's cycle (the run's results do not depend on where it stops). */
static void fm__run_logged(fm_model *m, uint64_t target, uint64_t *next_log)
{
    fm_world *w = &m->w;
    uint32_t h;
    while (m->progress_log && *next_log <= target) {
        uint64_t pkts = 0;
        fab_run_until(&w->f, *next_log);
        for (h = 0; h < w->hosts; h++)
            pkts += w->nic[h].rx.packets;
        fprintf(stderr, "progress cycle=%llu packets=%llu\n", (unsigned long long)w->f.now, (unsigned long long)pkts);
        *next_log += w->window_end / 1000u + 1u;
    }
    fab_run_until(&w->f, target);
    for (h = 0; h < w->hosts; h++) /* a NIC in a host-only stretch or with lazy engines: all to its now */
        fm_nic_settle(&w->nic[h]);
}

/* The run: the window (the links sampled every sample period, the hosts at its start and end),
 * then (drain on) no new messages until everything posted arrived. */
static void fm_model_run(fm_model *m)
{
    fm_world *w = &m->w;
    uint64_t step = rnic_ns_to_cycles(10000u, w->p.clock_hz), stop, c = w->window_start, next_log = 0;
    uint32_t h;
    clock_t c0 = clock();
    fm__run_logged(m, c, &next_log);
    fm_links_sample(&m->links, w, &m->t, c, 0);
    fm_series_sample(&m->series, w, c, 0);
    fm_window_take(&m->win, w, c, 0);
    while (c < w->window_end) {
        c = c + m->links.period < w->window_end ? c + m->links.period : w->window_end;
        fm__run_logged(m, c, &next_log);
        fm_links_sample(&m->links, w, &m->t, c, c < w->window_end ? 1 : 2);
        fm_series_sample(&m->series, w, c, c < w->window_end ? 1 : 2);
    }
    fm_window_take(&m->win, w, c, 1);
    for (h = 0; h < w->hosts; h++)
        fm_nic_stop_posting(&w->nic[h]);
    m->drained = fm_model_drained(m);
    stop = m->end + m->drain_limit;
    while (!m->drained && w->f.now < stop) {
        next_log = w->f.now + step < stop ? w->f.now + step : stop;
        fm__run_logged(m, next_log, &next_log);
        m->drained = fm_model_drained(m);
    }
    if (m->progress_log) /* the simulation is over: what follows (the report) is not the run's memory */
        fprintf(stderr, "progress report cycle=%llu\n", (unsigned long long)w->f.now);
    m->host_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
}

/* The directed links a packet from host src to host dst of sender flow `flow` crosses, chosen
 * the way every switch chooses (its route, its ECMP hash of the packet's header): link l of the
 * topology is 2l from its end a to b, 2l + 1 back. Returns the count (at most max). */
static uint32_t fm_model_path(const fm_model *m, uint32_t src, uint32_t dst, uint32_t flow, uint32_t *links, uint32_t max)
{
    const topo *t = &m->t;
    const fm_world *w = &m->w;
    uint32_t node = topo_host_node(t, src), port = 0, n = 0;
    net_pkt pk;
    memset(&pk, 0, sizeof pk);
    pk.src = src;
    pk.dst = dst;
    pk.w.flow = flow;
    while (n < max) {
        uint32_t l = topo_port_link(t, node, port), peer_port = 0, peer = topo_peer(t, node, port, &peer_port), route;
        const net_switch *x;
        links[n++] = 2u * l + (t->link[l].a == node ? 0u : 1u);
        if (t->node[peer].kind == TOPO_HOST)
            break;
        x = &w->sw[t->node[peer].index].sw;
        if (!w->sw[t->node[peer].index].w) { /* not built in this process (fm_ext.h): as it would route */
            uint32_t i = t->node[peer].index, nr = topo_route_count(t, peer, dst);
            uint64_t seed = m->seed ^ ((uint64_t)(i + 1u) * 0xc2b2ae3d27d4eb4full); /* fm__build_switch's */
            if (!nr)
                break;
            node = peer;
            port = topo_route_port(t, peer, dst, m->ecmp && nr > 1u ? (uint32_t)(net_switch_flow_hash(&pk, seed) % nr) : 0u);
            continue;
        }
        route = x->route[dst];
        if (route == NET_NO_PORT)
            break;
        if (route >= NET__ECMP) {
            const net_ecmp_group *g = &x->ecmp[route - NET__ECMP];
            route = x->ecmp_port[g->first + (uint32_t)(net_switch_flow_hash(&pk, x->cfg.ecmp_seed) % g->n)];
        }
        node = peer;
        port = route;
    }
    return n;
}

/* --flows-json: the links, NICs, tenants and every flow's data and ACK paths, for the share
 * reference (tools/share_ref.py; docs/share_reference.md has the format). */
static int fm_model_write_flows(const fm_model *m, const char *path)
{
    const fm_world *w = &m->w;
    const topo *t = &m->t;
    uint32_t i, l, links[64], n, k;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"payload\": %u, \"wire_overhead\": %u, \"ack_wire\": %u, \"host_rx_bps\": 0,\n  \"links\": [",
            w->p.payload, FM_WIRE_OVERHEAD, FM_ACK_WIRE);
    for (l = 0; l < t->n_links; l++)
        for (k = 0; k < 2; k++)
            fprintf(f, "%s\n    {\"id\": %u, \"bps\": %llu, \"delay_ns\": %u, \"from\": \"%s\", \"to\": \"%s\"}",
                    l || k ? "," : "", 2u * l + k, (unsigned long long)t->link[l].rate_bps, t->link[l].delay_ns,
                    t->node[k ? t->link[l].b : t->link[l].a].name,
                    t->node[k ? t->link[l].a : t->link[l].b].name);
    fprintf(f, "\n  ],\n  \"nics\": [");
    for (i = 0; i < w->hosts; i++) {
        fm_model_path(m, i, i, 0, links, 1);
        fprintf(f, "%s\n    {\"host\": %u, \"uplink\": %u}", i ? "," : "", i, links[0]);
    }
    fprintf(f, "\n  ],\n  \"tenants\": [");
    for (i = 0; i < w->p.tenants; i++)
        fprintf(f, "%s\n    {\"id\": %u, \"weight\": %u, \"cap_bps\": %llu}", i ? "," : "", i, w->p.tenant[i].weight,
                (unsigned long long)w->p.tenant[i].cap_bps);
    fprintf(f, "\n  ],\n  \"flows\": [");
    for (i = 0; i < w->nflows; i++) {
        const fm_flow *fl = &w->flow[i];
        fprintf(f, "%s\n    {\"id\": %u, \"src\": %u, \"dst\": %u, \"tenant\": %u, ", i ? "," : "", i, fl->src, fl->dst,
                fl->tenant);
        if (w->p.tenant[fl->tenant].protocol == FM_PROTO_DCQCN && w->p.ack_every > 1) /* coalesced: an ACK per ack_every packets */
            fprintf(f, "\"ack_wire\": %.6f, ", (double)FM_ACK_WIRE / (double)w->p.ack_every);
        fprintf(f, "\"path\": [");
        n = fm_model_path(m, fl->src, fl->dst, fl->local, links, 64);
        for (k = 0; k < n; k++)
            fprintf(f, "%s%u", k ? ", " : "", links[k]);
        fprintf(f, "], \"ack_path\": [");
        n = fm_model_path(m, fl->dst, fl->src, fl->local, links, 64);
        for (k = 0; k < n; k++)
            fprintf(f, "%s%u", k ? ", " : "", links[k]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}

#endif /* RNIC_FM_BUILD_H */
