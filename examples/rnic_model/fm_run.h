/* fm_run.h -- one run of a scenario on the fabric (issue 30; docs/fabric_model.md,
 * docs/scenario.md): build it, run it, write its outputs and print its report. rnic_model.c
 * turns the command line into the scenario and the options below.
 *
 * Ends with: RESULT fabric=1 hosts=... switches=... flows=... tenants=... rx_gbps=...
 *   tenant<i>_gbps=... (each tenant's delivered payload over the window) cnps=... naks=... rtx=...
 *   ecn_marked=... drops=... pfc_frames=... host_drops=... bytes_lost=... bytes_undelivered=...
 *   (posted, not yet checked at a receiver when the run stopped) drained=... digest=...
 *   delivered_packets=... node_runs=... cycles_visited=... mcycles_per_s=... (rss_kb= and
 *   rss_per_host_kb= come before cnps=: the process's peak resident memory, whole and per host;
 *   sched=palos|qos palos_holds= head_waits=: the NIC's scheduler, per-QP back-pressure into Palos,
 *   and runs a piece (a QoS block) still waited; with sched=qos also qos_blocks= qos_timeouts=
 *   qos_resubmits= duplicates= (blocks given to the transports, the engine's timeouts, transfers
 *   the host wrote again after an ERROR, packets the receivers got twice);
 *   link_util_max_pct= queue_max_kb=: the busiest link's use of its line rate and the deepest
 *   queue sampled, both over the window, fm_links.h), then the window's messages and receiving
 *   hosts (fm_window.h): fct_mean_us= fct_p50_us= fct_p99_us= host=0|1 [host_pauses= ...];
 *   last, with a trace CSV only: trace_events= (the engines' own count of their trace events: the
 *   CSV's rows) trace_unnamed= (rows whose engine and kind fm_trace.h does not name)
 * Every counter is over the whole run (the drain included) except *_gbps, link_util_max_pct,
 * queue_max_kb and fm_window.h's keys after mcycles_per_s (the window).
 * Exit status 3 when the run lost bytes or, draining, did not drain; 2 on a bad scenario. */
#ifndef RNIC_FM_RUN_H
#define RNIC_FM_RUN_H
#include <errno.h>
#include <sys/resource.h>
#include "fm_plots.h"
#include "fm_ext.h"

/* Prints the report; returns the bytes checked bad plus the records the model could not place
 * (nonzero: the run lost or corrupted data). */
static uint64_t fm_report(fm_model *m, int quiet, const char *last_line, const fm_fct_summary *fct)
{
    fm_world *w = &m->w;
    uint32_t h, i, t;
    uint64_t posted = 0, got = 0, bad = 0, errors = w->model_errors, pkts = 0, cnps = 0, naks = 0, rtx = 0;
    uint64_t marked = 0, drops = 0, pfc = 0, host_drops = 0, holds = 0, head_waits = 0, lost;
    uint64_t qos_blocks = 0, qos_timeouts = 0, qos_resubmits = 0, dups = 0;
    const char *sched = w->p.sched_qos ? "qos" : "palos";
    uint64_t tenant_bytes[FM_MAX_TENANTS];
    double window_s = (double)(w->window_end - w->window_start) / (double)w->p.clock_hz, total_gbps = 0;
    uint32_t busiest = 0, deepest = 0;
    double util_max = 0;
    memset(tenant_bytes, 0, sizeof tenant_bytes);
    for (i = 0; i < m->links.n; i++) {
        double u = fm_links_util_pct(&m->links, w, i);
        if (u > util_max)
            util_max = u, busiest = i;
        if (m->links.l[i].queue_max > m->links.l[deepest].queue_max)
            deepest = i;
    }
    for (h = 0; h < w->hosts; h++) {
        fm_nic *n = &w->nic[h];
        posted += fm_nic_posted(n);
        got += n->rx.bytes;
        bad += n->rx.bad;
        errors += n->model_errors + n->order_errors + n->piece_errors;
        pkts += n->rx.packets;
        cnps += n->cnps_out;
        naks += n->naks_out;
        rtx += n->rtx_pkts;
        holds += n->holds;
        head_waits += n->head_waits;
        drops += n->up_drops; /* a host's link's random loss (the switches' drops are added below) */
        if (n->qos_on) {
            const rq_qos_stats *qs = rq_qos_get_stats(&n->qos);
            qos_blocks += n->qos_blocks;
            qos_timeouts += qs->timeouts;
            qos_resubmits += n->qh.resubmits;
            dups += n->rx.duplicates;
            errors += n->qh.model_errors;
        }
        if (n->hh_on)
            host_drops += hcc_host_get_stats(&n->hh)->dropped;
        for (i = 0; i < n->nrecv; i++)
            tenant_bytes[w->flow[n->recv_flow[i]].tenant] += n->rx.f[i].window_bytes;
    }
    for (i = 0; i < w->switches; i++) {
        const net_switch *s = &w->sw[i].sw;
        uint32_t p;
        for (p = 0; p < s->cfg.ports; p++) {
            marked += s->port[p].stats.marked;
            uint32_t c;
            for (c = 0; c < NET_DROP__COUNT; c++)
                drops += s->port[p].stats.dropped[c];
        }
        pfc += w->sw[i].pfc_frames;
    }
    lost = (m->drained ? posted - got : 0) + bad + errors;
    if (fct && !quiet)
        fm_fct_print(m, fct);
    if (!quiet) {
        printf("rnic_model: fabric of %u hosts and %u switches, %u QPs in %u tenants; NIC scheduler %s; %s scheduler\n",
               w->hosts, w->switches, w->nflows, w->p.tenants,
               w->p.sched_qos ? "the QoS engine (no tenant weights)" : "Palos", w->f.cfg.tick_only ? "tick-every-cycle" : "event");
        for (t = 0; t < w->p.tenants; t++) {
            double g = (double)tenant_bytes[t] * 8.0 / window_s / 1e9;
            uint32_t q = 0;
            for (i = 0; i < w->nflows; i++)
                q += w->flow[i].tenant == t;
            printf("  tenant %u: %u QPs, %s%s, %s %u, cap %s, %.3f Gb/s delivered over the window\n", t, q,
                   scn_protocol_names()[w->p.tenant[t].protocol],
                   w->p.tenant[t].protocol != FM_PROTO_DCQCN ? ""
                   : w->p.tenant[t].dcqcn_variant == 0       ? " (paper)"
                   : w->p.tenant[t].dcqcn_variant == 1       ? " (mellanox)"
                   : w->p.tenant[t].dcqcn_variant == 3       ? " (hpcc)"
                                                              : " (htsim)",
                   w->p.sched_qos ? "QoS domain" : "weight", w->p.sched_qos ? t : w->p.tenant[t].weight,
                   w->p.tenant[t].cap_bps ? "per QP" : "none", g);
        }
        printf("  %llu B posted, %llu B checked at the receivers, %llu bad; %llu CNPs, %llu NAKs, %llu retransmitted, "
               "%llu CE marks, %llu drops, %llu PFC frames, %llu host RX drops; %s\n",
               (unsigned long long)posted, (unsigned long long)got, (unsigned long long)bad, (unsigned long long)cnps,
               (unsigned long long)naks, (unsigned long long)rtx, (unsigned long long)marked, (unsigned long long)drops,
               (unsigned long long)pfc, (unsigned long long)host_drops, m->drained ? "drained" : "NOT drained");
        if (w->p.sched_qos)
            printf("  QoS engine: %llu blocks, %llu timeouts, %llu transfers resubmitted, %llu duplicate packets, %llu runs "
                   "with a block waiting at the port head\n", (unsigned long long)qos_blocks, (unsigned long long)qos_timeouts,
                   (unsigned long long)qos_resubmits, (unsigned long long)dups, (unsigned long long)head_waits);
        else
            printf("  Palos: %llu QP holds (a QP's transport queue nearly full), %llu runs with a piece waiting at the "
                   "port head\n", (unsigned long long)holds, (unsigned long long)head_waits);
        if (m->links.n) {
            const fm_link_mon *b = &m->links.l[busiest], *d = &m->links.l[deepest];
            printf("  links over the window: busiest %s>%s at %.2f %% of its line rate; deepest queue %.1f KB at %s>%s "
                   "(sampled every %llu us)\n", m->t.node[b->from].name, m->t.node[b->to].name, util_max,
                   (double)d->queue_max / 1000.0, m->t.node[d->from].name, m->t.node[d->to].name,
                   (unsigned long long)m->sample_us);
        }
        printf("  scheduler: %llu node runs at %llu cycles of %llu simulated, %.2f s host time\n",
               (unsigned long long)w->f.stats.runs, (unsigned long long)w->f.stats.cycles_visited,
               (unsigned long long)w->f.now, m->host_s);
    }
    for (t = 0; t < w->p.tenants; t++)
        total_gbps += (double)tenant_bytes[t] * 8.0 / window_s / 1e9;
    if (!quiet)
        fm_window_print(&m->win, w, 1);
    if (!quiet && last_line)
        printf("%s\n", last_line);
    if (fct)
        fm_fct_result(m, fct, lost);
    printf("RESULT fabric=1 hosts=%u switches=%u flows=%u tenants=%u rx_gbps=%.3f", w->hosts, w->switches, w->nflows,
           w->p.tenants, total_gbps);
    for (t = 0; t < w->p.tenants; t++)
        printf(" tenant%u_gbps=%.3f", t, (double)tenant_bytes[t] * 8.0 / window_s / 1e9);
    {
        struct rusage ru; /* the process's peak resident memory (Linux: KB), whole and per host */
        long rss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
        printf(" rss_kb=%ld rss_per_host_kb=%ld", rss, w->hosts ? rss / (long)w->hosts : 0);
    }
    printf(" sched=%s palos_holds=%llu head_waits=%llu", sched, (unsigned long long)holds, (unsigned long long)head_waits);
    if (w->p.sched_qos)
        printf(" qos_blocks=%llu qos_timeouts=%llu qos_resubmits=%llu duplicates=%llu", (unsigned long long)qos_blocks,
               (unsigned long long)qos_timeouts, (unsigned long long)qos_resubmits, (unsigned long long)dups);
    printf(" link_util_max_pct=%.3f queue_max_kb=%.3f", util_max,
           m->links.n ? (double)m->links.l[deepest].queue_max / 1000.0 : 0.0);
    printf(" cnps=%llu naks=%llu rtx=%llu ecn_marked=%llu drops=%llu pfc_frames=%llu host_drops=%llu bytes_lost=%llu "
           "bytes_undelivered=%llu drained=%d digest=%016llx delivered_packets=%llu node_runs=%llu cycles_visited=%llu mcycles_per_s=%.2f",
           (unsigned long long)cnps, (unsigned long long)naks, (unsigned long long)rtx, (unsigned long long)marked,
           (unsigned long long)drops, (unsigned long long)pfc, (unsigned long long)host_drops, (unsigned long long)lost,
           (unsigned long long)(posted > got ? posted - got : 0), m->drained, (unsigned long long)fm_world_digest(w), (unsigned long long)pkts, (unsigned long long)w->f.stats.runs,
           (unsigned long long)w->f.stats.cycles_visited, m->host_s > 0 ? (double)w->f.now / m->host_s / 1e6 : 0.0);
    fm_window_print(&m->win, w, 0);
    if (w->trace_csv) /* the engines' own count of what the CSV's rows should be, and rows without a name */
        printf(" trace_events=%llu trace_unnamed=%llu", (unsigned long long)fm_world_trace_events(w),
               (unsigned long long)w->trace_csv->unnamed);
    printf("\n");
    return bad + errors;
}

/* --shares-csv: each tenant's delivered payload over the window (tools/share_ref.py --compare). */
static int fm_model_write_shares(const fm_model *m, const char *path)
{
    const fm_world *w = &m->w;
    uint64_t bytes[FM_MAX_TENANTS];
    double window_s = (double)(w->window_end - w->window_start) / (double)w->p.clock_hz;
    uint32_t h, i, t;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    memset(bytes, 0, sizeof bytes);
    for (h = 0; h < w->hosts; h++)
        for (i = 0; i < w->nic[h].nrecv; i++)
            bytes[w->flow[w->nic[h].recv_flow[i]].tenant] += w->nic[h].rx.f[i].window_bytes;
    fprintf(f, "tenant,measured_gbps\n");
    for (t = 0; t < w->p.tenants; t++)
        fprintf(f, "%u,%.6f\n", t, (double)bytes[t] * 8.0 / window_s / 1e9);
    return fclose(f) == 0 ? 0 : -1;
}

/* The p-th percentile (nearest rank, rounded) of flow `rx`'s kept latencies in `keys` (one NIC's
 * (flow << 40 | cycles), sorted), in us; 0 when it has none. */
static double fm__flow_pct_us(const uint64_t *keys, size_t n, uint32_t rx, double p, uint64_t clock_hz)
{
    size_t lo = 0, hi, count = n;
    while (count) { /* the flow's first key: binary search */
        size_t half = count / 2u;
        if ((keys[lo + half] >> 40) < rx) {
            lo += half + 1u;
            count -= half + 1u;
        } else
            count = half;
    }
    for (hi = lo; hi < n && (keys[hi] >> 40) == rx; hi++)
        ;
    if (hi == lo)
        return 0.0;
    return (double)(keys[lo + (size_t)(p / 100.0 * (double)(hi - lo - 1u) + 0.5)] & ((1ull << 40) - 1u)) /
           (double)clock_hz * 1e6;
}

/* --csv (or [output] csv): one line per QP -- its hosts, tenant, payload over the window, the
 * messages it completed in the window and their FCT p50 / p99 (from the receiver's kept
 * latencies), and what it delivered and completed over the whole run. */
static int fm_model_write_flows_csv(const fm_model *m, const char *path)
{
    const fm_world *w = &m->w;
    double window_s = (double)(w->window_end - w->window_start) / (double)w->p.clock_hz;
    uint64_t **keys = (uint64_t **)calloc(w->hosts ? w->hosts : 1u, sizeof *keys);
    uint32_t g, h;
    size_t i;
    FILE *f = keys ? fopen(path, "w") : NULL;
    if (!f) {
        free(keys);
        return -1;
    }
    for (h = 0; h < w->hosts; h++) { /* each NIC's kept latencies by (flow, latency) */
        const rm_lat_store *ls = &w->nic[h].rx.lat;
        if (!(keys[h] = (uint64_t *)malloc((ls->n + 1u) * sizeof **keys)))
            break;
        for (i = 0; i < ls->n; i++)
            keys[h][i] = ((uint64_t)ls->flow[i] << 40) | (ls->lat[i] < (1ull << 40) ? ls->lat[i] : (1ull << 40) - 1u);
        qsort(keys[h], ls->n, sizeof **keys, fm_window__cmp_u64);
    }
    fprintf(f, "flow,src,dst,tenant,window_gbps,window_msgs,fct_p50_us,fct_p99_us,delivered_bytes,messages\n");
    for (g = 0; h == w->hosts && g < w->nflows; g++) {
        const fm_flow *fl = &w->flow[g];
        const rm_rx_flow *r = &w->nic[fl->dst].rx.f[fl->rx];
        size_t n = w->nic[fl->dst].rx.lat.n;
        fprintf(f, "%u,%u,%u,%u,%.6f,%llu,%.3f,%.3f,%llu,%llu\n", g, fl->src, fl->dst, fl->tenant,
                (double)r->window_bytes * 8.0 / window_s / 1e9, (unsigned long long)r->window_msgs,
                fm__flow_pct_us(keys[fl->dst], n, fl->rx, 50, w->p.clock_hz),
                fm__flow_pct_us(keys[fl->dst], n, fl->rx, 99, w->p.clock_hz), (unsigned long long)r->bytes,
                (unsigned long long)r->msgs);
    }
    for (g = 0; g < w->hosts; g++)
        free(keys[g]);
    free(keys);
    return (fclose(f) == 0 && h == w->hosts) ? 0 : -1;
}

/* What the command line gives a run besides its scenario (rnic_model.c parses it). Paths
 * override the scenario's [output] keys; NULL: the key's (or none). */
typedef struct fm_run_options {
    const char *trace_csv, *flows_json, *shares_csv, *pcap, *csv, *queue_csv, *links_csv, *vcd;
    const char *fct_csv, *fct_buckets_csv;
    const char *tenants_csv, *plots; /* each tenant's Gb/s per sample; the figures' directory (fm_plots.h) */
    const char *scenario;        /* the scenario file (the figures' titles), NULL = the built-in incast */
    const char *write_flows;     /* the open-loop flows in the flow file's format */
    int workload_only;           /* build the workload, print its figures, do not run */
    int tick_only, quiet, progress_log;
    const wl_flow *given_flows;  /* open-loop flows besides the scenario's (the HPCC flow file's) */
    size_t n_given_flows;
    const char *given_flows_from; /* their file (messages name it) */
    uint32_t ext_ranks;          /* > 0: as that many processes with outside links (fm_ext.h) */
    uint32_t ext_skew;           /* the tests' negative control: their records arrive this many cycles late */
} fm_run_options;

/* Validate, build, run and report scenario s (freed here). Returns the exit status: 0, 3 when
 * the run lost bytes or did not drain, 2 when the scenario is not valid, 1 on an output error. */
static int fm_run(scn *sp, const fm_run_options *o)
{
    scn s = *sp;
    scn_error err;
    fm_model m;
    const char *trace_csv = o->trace_csv, *flows_json = o->flows_json, *shares_csv = o->shares_csv, *pcap = o->pcap;
    const char *csv = o->csv, *queue_csv = o->queue_csv, *links_csv = o->links_csv, *vcd = o->vcd;
    const char *fct_csv = o->fct_csv, *fct_buckets_csv = o->fct_buckets_csv;
    const char *tenants_csv = o->tenants_csv, *plots_dir = o->plots;
    fm_plots plots;
    FILE *tenants_file = NULL;
    roce_pcap pcap_file;
    fm_fct_summary fct;
    fm_trace_csv trace_rows;
    int tick_only = o->tick_only, quiet = o->quiet, rc;
    uint64_t damaged;
    if (scn_validate(&s, &err) != SCN_OK) {
        fprintf(stderr, "rnic_model: %s\n", err.message);
        scn_free(&s);
        return 2;
    }
    if (o->ext_ranks) { /* the fabric as processes with outside links: the per-flow results and digest */
        const char *fct_path = o->fct_csv ? o->fct_csv : s.out.fct_csv[0] ? s.out.fct_csv : NULL;
        if (tick_only || trace_csv || pcap || o->workload_only || o->plots) {
            fprintf(stderr, "rnic_model: --ext-ranks writes the per-flow results (--fct-csv) and the RESULT lines only\n");
            scn_free(&s);
            return 2;
        }
        rc = fm_ext_loop_run(&s, o->ext_ranks, o->ext_skew, fct_path, o->given_flows, o->n_given_flows, o->given_flows_from);
        scn_free(&s);
        return rc;
    }
    if (!pcap && s.out.pcap[0])
        pcap = s.out.pcap;
    if (!csv && s.out.csv[0])
        csv = s.out.csv;
    if (!trace_csv && s.out.trace_csv[0])
        trace_csv = s.out.trace_csv;
    if (!queue_csv && s.out.queue_csv[0])
        queue_csv = s.out.queue_csv;
    if (!links_csv && s.out.links_csv[0])
        links_csv = s.out.links_csv;
    if (!vcd && s.out.vcd[0])
        vcd = s.out.vcd;
    if (!fct_csv && s.out.fct_csv[0])
        fct_csv = s.out.fct_csv;
    if (!fct_buckets_csv && s.out.fct_buckets_csv[0])
        fct_buckets_csv = s.out.fct_buckets_csv;
    if (!tenants_csv && s.out.tenants_csv[0])
        tenants_csv = s.out.tenants_csv;
    if (!plots_dir && s.out.plots[0])
        plots_dir = s.out.plots;
    if (fm_plots_begin(&plots, plots_dir, &queue_csv, &tenants_csv) != 0) {
        fprintf(stderr, "rnic_model: %s: %s\n", plots_dir, strerror(errno));
        return 1;
    }
    memset(&fct, 0, sizeof fct);
    if (trace_csv) { /* before the build: the engines trace their set-up */
        FILE *f = fopen(trace_csv, "w");
        if (!f) {
            perror(trace_csv);
            return 1;
        }
        fm_trace_csv_init(&trace_rows, f);
    }
    fm_model_init(&m, &s, tick_only, trace_csv ? &trace_rows : NULL, o->given_flows, o->n_given_flows,
                  o->given_flows_from);
    m.progress_log = o->progress_log;
    if (o->write_flows && fm_fct_write_flows(&m, &s, o->write_flows) != 0) {
        perror(o->write_flows);
        return 1;
    }
    if (o->workload_only) { /* the generated workload's own figures (its offered load), no run */
        printf("RESULT workload_generated=1 flows=%u load=%.4f load_target=%.4f duration_us=%llu\n", m.w.njobs,
               fm_fct_offered_load(&m, s.run.duration_us * 1000u), m.load_target, (unsigned long long)s.run.duration_us);
        fm_model_free(&m);
        scn_free(&s);
        return 0;
    }
    if (pcap) {
        if (roce_pcap_open(&pcap_file, pcap, s.out.snaplen ? s.out.snaplen : 128u) != 0) {
            perror(pcap);
            return 1;
        }
        m.w.pcap = &pcap_file;
        m.w.pcap_end = s.out.pcap_us ? rnic_ns_to_cycles(s.out.pcap_us * 1000u, m.w.p.clock_hz) : 0;
    }
    if (vcd && fm_links_vcd_open(&m.links, &m.t, vcd) != 0) {
        perror(vcd);
        return 1;
    }
    if (queue_csv) {
        if (!(m.links.queue_csv = fopen(queue_csv, "w"))) {
            perror(queue_csv);
            return 1;
        }
        fprintf(m.links.queue_csv, "t_us,link,from,to,queue_bytes,util_pct\n");
    }
    if (tenants_csv) {
        if (!(tenants_file = fopen(tenants_csv, "w"))) {
            perror(tenants_csv);
            return 1;
        }
        fm_series_open(&m.series, tenants_file, &s);
    }
    if (flows_json && fm_model_write_flows(&m, flows_json) != 0) {
        perror(flows_json);
        return 1;
    }
    { /* the outputs written after the run: fail now, not after it */
        const char *later[5];
        int k;
        later[0] = shares_csv, later[1] = links_csv, later[2] = csv, later[3] = fct_csv, later[4] = fct_buckets_csv;
        for (k = 0; k < 5; k++) {
            FILE *f = later[k] ? fopen(later[k], "w") : NULL;
            if (later[k] && !f) {
                fprintf(stderr, "rnic_model: %s: %s\n", later[k], strerror(errno));
                return 1;
            }
            if (f)
                fclose(f);
        }
    }
    fm_model_run(&m);
    {
        char last[300 + SCN_PATH_MAX + sizeof plots.lines], name[SCN_PATH_MAX];
        last[0] = '\0';
        if (pcap) { /* reported before the RESULT line, the last line */
            snprintf(last, sizeof last, "  pcap: %s (%llu frames)", pcap, (unsigned long long)pcap_file.frames);
            roce_pcap_close(&pcap_file);
        }
        int open = 0; /* a run with open-loop tenants reports their flows, none included */
        uint32_t t;
        for (t = 0; t < m.w.p.tenants; t++)
            open |= m.w.p.tenant[t].open;
        if (open)
            fm_fct_summarize(&m, m.w.window_end * 1000000000ull / m.w.p.clock_hz, &fct);
        fm_plots_name(name, sizeof name, o->scenario);
        if (fm_plots_end(&plots, &m, open ? &fct : NULL, name, m.links.queue_csv, tenants_file) != 0)
            return 1;
        if (plots.lines[0]) /* the figures' paths, before the RESULT lines too */
            snprintf(last + strlen(last), sizeof last - strlen(last), "%s%s", last[0] ? "\n" : "", plots.lines);
        damaged = fm_report(&m, quiet, last[0] ? last : NULL, open ? &fct : NULL);
    }
    if (shares_csv && fm_model_write_shares(&m, shares_csv) != 0) {
        perror(shares_csv);
        return 1;
    }
    if (links_csv && fm_links_write_csv(&m.links, &m.w, &m.t, links_csv) != 0) {
        perror(links_csv);
        return 1;
    }
    if (m.links.queue_csv && fclose(m.links.queue_csv) != 0) {
        perror(queue_csv);
        return 1;
    }
    m.links.queue_csv = NULL;
    if (fm_links_vcd_close(&m.links) != 0) {
        perror(vcd);
        return 1;
    }
    if (csv && fm_model_write_flows_csv(&m, csv) != 0) {
        perror(csv);
        return 1;
    }
    if (fct_csv && fm_fct_write_csv(&m, fct_csv) != 0) {
        perror(fct_csv);
        return 1;
    }
    if (fct_buckets_csv && fm_fct_write_buckets_csv(&fct, fct_buckets_csv) != 0) {
        perror(fct_buckets_csv);
        return 1;
    }
    if (tenants_file && fclose(tenants_file) != 0) {
        perror(tenants_csv);
        return 1;
    }
    rc = (damaged || (s.run.drain && !m.drained)) ? 3 : 0;
    if (m.w.trace_csv && (ferror(m.w.trace_csv->f) | fclose(m.w.trace_csv->f)) != 0) {
        perror(trace_csv);
        rc = 1;
    }
    fm_model_free(&m);
    scn_free(&s);
    return rc;
}

#endif /* RNIC_FM_RUN_H */
