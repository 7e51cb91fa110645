/* fm_links.h -- every directed link of the fabric over the measurement window (issue 30's
 * reports): its utilization, its queue sampled over time (the switch's egress queue, or the
 * NIC's TX queue into its uplink), the CE marks and drops at its switch port, and the time PFC
 * held it. The links are the NICs' uplinks and the switches' egress ports; each one is read
 * after bringing its node up to the sample's cycle, which the node contract allows at any cycle
 * (tick-only mode does it every cycle), so sampling changes no result and no digest.
 * Counters here are differences across the window [warmup_us, duration_us). With a VCD file
 * (`[output] vcd`), every sample also dumps each link's queue (bytes) and PFC pause state as a
 * waveform (one scope per link, time in ns): what a waveform viewer beside an RTL run shows. */
#ifndef RNIC_FM_LINKS_H
#define RNIC_FM_LINKS_H
#include "fm_switch.h"
#include "topo.h"
#include "vcd.h"


typedef struct fm_link_snap {
    uint64_t sent_bytes, paused_cycles, marked, dropped;
} fm_link_snap;

typedef struct fm_link_mon {
    net_link *link;
    const net_port *port;      /* the switch port it leaves by; NULL for a NIC's uplink */
    net_switch *sw;            /* that port's switch, and its number there */
    uint32_t port_no;
    const uint64_t *lost;      /* a NIC's uplink: the packets it lost (random loss) */
    uint32_t fab_id;           /* the node that owns it */
    uint32_t from, to;         /* topology node ids */
    fm_link_snap start, end;
    uint64_t queue_max;        /* bytes, the largest sample in the window */
} fm_link_mon;

typedef struct fm_links {
    fm_link_mon *l;
    uint32_t n;
    uint64_t period;           /* cycles between queue samples */
    FILE *queue_csv;           /* t_us,link,from,to,queue_bytes,util_pct per sample (the window's
                                  start and end included), NULL = none */
    uint64_t *last_sent;       /* per link: sent_bytes at the previous sample (util_pct's period) */
    uint64_t last_cycle;       /* that sample's cycle */
    FILE *vcd;                 /* the links' waveform, NULL = none */
    uint64_t *vcd_queue;       /* per link: the values last dumped */
    uint8_t *vcd_paused;
} fm_links;

static fm_link_snap fm_links__snap(const fm_link_mon *m)
{
    fm_link_snap s;
    uint32_t c;
    s.sent_bytes = m->link->stats.sent_bytes;
    s.paused_cycles = m->link->stats.paused_cycles;
    s.marked = m->port ? m->port->stats.marked : 0;
    s.dropped = m->lost ? *m->lost : 0;
    if (m->port)
        for (c = 0; c < NET_DROP__COUNT; c++)
            s.dropped += m->port->stats.dropped[c];
    return s;
}

/* The id --flows-json and tools/share_ref.py give the directed link leaving `node` by `port`:
 * topology link l is 2l from its end a to b, 2l + 1 back. */
static uint32_t fm_links__id(const topo *t, uint32_t node, uint32_t port)
{
    uint32_t l = topo_port_link(t, node, port);
    return 2u * l + (t->link[l].a == node ? 0u : 1u);
}

/* Lists every directed link at its --flows-json id: NIC uplinks and switch egress ports cover
 * each exactly once. Returns 0, or -1 without memory (or when a link is missing). */
static int fm_links_init(fm_links *x, fm_world *w, const topo *t, uint64_t period)
{
    uint32_t h, p, node, peer_port, id, seen = 0;
    memset(x, 0, sizeof *x);
    x->n = 2u * t->n_links;
    x->l = (fm_link_mon *)calloc(x->n ? x->n : 1u, sizeof *x->l);
    if (!x->l)
        return -1;
    x->period = period ? period : 1u;
    if (!(x->last_sent = (uint64_t *)calloc(x->n ? x->n : 1u, sizeof *x->last_sent)))
        return -1;
    for (h = 0; h < w->hosts; h++) {
        node = topo_host_node(t, h);
        id = fm_links__id(t, node, 0);
        x->l[id].link = &w->nic[h].up;
        x->l[id].lost = &w->nic[h].up_drops;
        x->l[id].fab_id = w->nic[h].fab_id;
        x->l[id].from = node;
        x->l[id].to = topo_peer(t, node, 0, &peer_port);
        seen++;
    }
    for (node = 0; node < t->n_nodes; node++) {
        fm_switch *s;
        if (t->node[node].kind != TOPO_SWITCH)
            continue;
        s = &w->sw[t->node[node].index];
        for (p = 0; p < s->sw.cfg.ports; p++) {
            id = fm_links__id(t, node, p);
            x->l[id].link = &s->sw.port[p].link;
            x->l[id].port = &s->sw.port[p];
            x->l[id].sw = &s->sw;
            x->l[id].port_no = p;
            x->l[id].fab_id = s->fab_id;
            x->l[id].from = node;
            x->l[id].to = topo_peer(t, node, p, &peer_port);
            seen++;
        }
    }
    return seen == x->n ? 0 : -1;
}

/* VCD identifier of signal k: printable characters '!' .. '~', base 94. */
static void fm_links__vcd_code(char out[8], uint32_t k)
{
    uint32_t i = 0;
    do {
        out[i++] = (char)('!' + k % 94u);
        k /= 94u;
    } while (k && i < 7u);
    out[i] = 0;
}

/* Opens the links' waveform: a scope per link (from_to), its queue (32 bits) and paused (1 bit).
 * Returns 0, or -1 when the file cannot be written or there is no memory. */
static int fm_links_vcd_open(fm_links *x, const topo *t, const char *path)
{
    uint32_t i;
    char q[8], p[8];
    x->vcd_queue = (uint64_t *)calloc(x->n ? x->n : 1u, sizeof *x->vcd_queue);
    x->vcd_paused = (uint8_t *)calloc(x->n ? x->n : 1u, sizeof *x->vcd_paused);
    if (!x->vcd_queue || !x->vcd_paused || !(x->vcd = fopen(path, "w")))
        return -1;
    fprintf(x->vcd, "$comment rnicq fabric: every link's queue and PFC pause, sampled every queue_sample_us $end\n"
                    "$timescale 1 ns $end\n$scope module fabric $end\n");
    for (i = 0; i < x->n; i++) {
        fm_links__vcd_code(q, 2u * i);
        fm_links__vcd_code(p, 2u * i + 1u);
        fprintf(x->vcd, "$scope module %s_to_%s $end\n$var wire 32 %s queue_bytes [31:0] $end\n"
                        "$var wire 1 %s paused $end\n$upscope $end\n",
                t->node[x->l[i].from].name, t->node[x->l[i].to].name, q, p);
    }
    fprintf(x->vcd, "$upscope $end\n$enddefinitions $end\n");
    return 0;
}

/* One sample's value changes (all values at the first). */
static void fm_links__vcd_sample(fm_links *x, const fm_world *w, uint64_t cycle, int first)
{
    uint32_t i;
    char code[8];
    fprintf(x->vcd, "#%llu\n", (unsigned long long)rnic_cycles_to_ns(cycle, w->p.clock_hz));
    if (first)
        fprintf(x->vcd, "$dumpvars\n");
    for (i = 0; i < x->n; i++) {
        uint64_t q = net_link_queued_bytes(x->l[i].link);
        uint8_t p = x->l[i].link->paused ? 1u : 0u;
        if (q > 0xffffffffull)
            q = 0xffffffffull;
        if (first || q != x->vcd_queue[i]) {
            fm_links__vcd_code(code, 2u * i);
            rm_vcd__bits(x->vcd, q, 32u, code); /* every bit: tools/vcd_check.py wants the declared width */
            x->vcd_queue[i] = q;
        }
        if (first || p != x->vcd_paused[i]) {
            fm_links__vcd_code(code, 2u * i + 1u);
            fprintf(x->vcd, "%u%s\n", (unsigned)p, code);
            x->vcd_paused[i] = p;
        }
    }
    if (first)
        fprintf(x->vcd, "$end\n");
}

/* Closes the waveform; returns 0, or -1 when writing it failed. */
static int fm_links_vcd_close(fm_links *x)
{
    int rc = 0;
    if (x->vcd)
        rc = fclose(x->vcd) == 0 ? 0 : -1;
    x->vcd = NULL;
    return rc;
}

static void fm_links_free(fm_links *x)
{
    if (x->vcd)
        fclose(x->vcd);
    free(x->vcd_queue);
    free(x->vcd_paused);
    free(x->last_sent);
    free(x->l);
    memset(x, 0, sizeof *x);
}

/* At cycle t (every cycle before t run): bring each link's node to t, then record. what: 0 the
 * window's start, 1 a queue sample inside it, 2 its end. The queue CSV's util_pct is the link's
 * wire bytes sent since the previous sample over its line rate for that period (the same measure
 * as fm_links_util_pct's over the window), so the samples' periods add up to the window. */
static void fm_links_sample(fm_links *x, fm_world *w, const topo *t, uint64_t cycle, int what)
{
    uint32_t i;
    w->observing = 1;
    for (i = 0; i < x->n; i++) {
        fm_link_mon *m = &x->l[i];
        uint64_t q;
        fab_bring(&w->f, m->fab_id, cycle);
        if (m->sw) /* a switch brings a port's link to now only when it has an event: now, its pause time */
            net_switch_settle_port(m->sw, m->port_no);
        q = net_link_queued_bytes(m->link);
        if (what == 0)
            m->start = fm_links__snap(m);
        else if (what == 2)
            m->end = fm_links__snap(m);
        if (q > m->queue_max)
            m->queue_max = q;
        if (x->queue_csv) { /* util_pct: the period since the previous sample; none ends at the window's start */
            fprintf(x->queue_csv, "%.3f,%u,%s,%s,%llu,", (double)cycle * 1e6 / (double)w->p.clock_hz, i,
                    t->node[m->from].name, t->node[m->to].name, (unsigned long long)q);
            if (what != 0 && cycle > x->last_cycle && m->link->cfg.rate_bps)
                fprintf(x->queue_csv, "%.3f", (double)(m->link->stats.sent_bytes - x->last_sent[i]) * 8.0 * 100.0 *
                                                  (double)w->p.clock_hz / (double)(cycle - x->last_cycle) /
                                                  (double)m->link->cfg.rate_bps);
            fputc('\n', x->queue_csv);
        }
        x->last_sent[i] = m->link->stats.sent_bytes;
    }
    x->last_cycle = cycle;
    w->observing = 0;
    if (x->vcd)
        fm_links__vcd_sample(x, w, cycle, what == 0);
}

static double fm_links_util_pct(const fm_links *x, const fm_world *w, uint32_t i)
{
    const fm_link_mon *m = &x->l[i];
    double s = (double)(w->window_end - w->window_start) / (double)w->p.clock_hz;
    double bps = (double)m->link->cfg.rate_bps;
    return s > 0 && bps > 0 ? (double)(m->end.sent_bytes - m->start.sent_bytes) * 8.0 / s / bps * 100.0 : 0.0;
}

/* The links CSV: one row per directed link (`link`: its --flows-json id, the one
 * tools/share_ref.py names as a bottleneck), every figure over the window. */
static int fm_links_write_csv(const fm_links *x, const fm_world *w, const topo *t, const char *path)
{
    uint32_t i;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "link,from,to,line_gbps,util_pct,queue_max_kb,ce_marks,drops,paused_us\n");
    for (i = 0; i < x->n; i++) {
        const fm_link_mon *m = &x->l[i];
        fprintf(f, "%u,%s,%s,%.3f,%.3f,%.3f,%llu,%llu,%.3f\n", i, t->node[m->from].name, t->node[m->to].name,
                (double)m->link->cfg.rate_bps / 1e9, fm_links_util_pct(x, w, i), (double)m->queue_max / 1000.0,
                (unsigned long long)(m->end.marked - m->start.marked),
                (unsigned long long)(m->end.dropped - m->start.dropped),
                (double)(m->end.paused_cycles - m->start.paused_cycles) * 1e6 / (double)w->p.clock_hz);
    }
    return fclose(f) == 0 ? 0 : -1;
}

#endif /* RNIC_FM_LINKS_H */
