/* fm_ext.h -- the fabric with its links outside the process (issue 34; docs/ns3.md): each process
 * (an ns-3 program, one per MPI rank) builds the nodes of its part of the topology, and the
 * records that cross a link are carried by someone else -- ns-3's point-to-point channels
 * (examples/ns3/rnicq-ns3.h), or, for the tests, fm_ext_loop below, which plays any number of
 * such processes inside one.
 *
 * Why the results are the fabric's own, to the cycle. Without fm_ext.h a node hands a record to
 * its neighbour in its run at the cycle the record reaches the far end of their link (a packet:
 * its last byte out of the serialiser + the propagation; a PFC frame: its hop), waking the
 * neighbour. With it:
 * - the sender sends the record when it leaves (a packet when its last byte is out, a PFC frame
 *   when emitted: both known exactly then, and the sender is due at that cycle), with `at`, the
 *   cycle it reaches the far end; it still takes the packet off its link at `at`, so its own
 *   state is what it was;
 * - the carrier gives it back (fm_ext_arrive) before cycle `at` runs;
 * - each sender with a link into this process has a node of its own here, the far end, right
 *   after the sender's id (fabric ids keep the global order: host 0, its far end, host 1, ...,
 *   switch 0, its far end, ...); in cycle `at` it hands the records over exactly as the sender's
 *   run would have (PFC and host pauses first, then packets port by port; a refused packet
 *   waits at the head, polled), so the neighbours see the same calls in the same order.
 * What differs is only what no result reads: the sender takes a refused packet off its link
 * while it waits at the far end instead (its room counts arrived packets only beyond
 * out_packets: `refused_max` shows how many ever waited), and the runs the polls cost.
 * The run's boundaries (the samples' cycles, the window's end, each drain step) are where the
 * processes agree: each brings its NICs' lazy engines up (fm_nic_settle, as the fabric's run
 * does), stops posting at the window's end, and the drain's condition is summed over all
 * processes (fm_ext_boundary_local / _done). The results are gathered the same way: every
 * figure a process owns, zero elsewhere, summed (fm_ext_results_local / _report).
 * Hosted example code: allocation at set-up, and when a far end's queue grows. */
#ifndef RNIC_FM_EXT_H
#define RNIC_FM_EXT_H
#include "fm_fct.h"

typedef struct fm_ext_queue {   /* a far end's records in arrival order (a ring that grows) */
    fm_frame *f;
    uint32_t head, n, cap;
} fm_ext_queue;

typedef struct fm_ext_wire {
    uint32_t from, to;          /* global nodes: host h, or hosts + switch i */
    uint64_t seq;               /* records sent on it (by the process that has `from`) */
    uint32_t from_port, to_port;
    uint64_t prop;              /* propagation, cycles */
    uint64_t rate_bps;
    uint32_t delay_ns;
    fm_ext_queue data, ctl;     /* at the far end, when `to` is built here */
} fm_ext_wire;

struct fm_ext;
typedef struct fm_ext_far {     /* the far ends of one sender's wires into this process: a node */
    struct fm_ext *x;
    uint32_t from;
    uint32_t first, n;          /* its wires: x->far_wire[first .. first + n), in port order */
    int blocked;                /* a packet was refused at cycle `now`: polled */
    uint64_t now;
    uint32_t fab_id;
} fm_ext_far;

typedef struct fm_ext {
    fm_model m;
    fm_ext_link link;
    uint32_t ranks, rank, nodes; /* nodes: hosts + switches */
    uint32_t *rank_of;          /* per global node */
    uint8_t *part;              /* per global node: built here */
    fm_ext_wire *wire;
    uint32_t nwires;
    uint32_t *nic_wire, **sw_wire;
    fm_ext_far *far;
    uint32_t nfar, *far_of;     /* per global node: its far end's index here, RNIC_NONE */
    uint32_t *far_wire;
    /* the run's boundaries */
    uint64_t boundary, period, step, stop;
    int finished, drained;
    int draining;               /* past the window's end: each boundary checks the drain */
    uint64_t frames_in, refused, refused_max, errors;
    uint64_t reordered;         /* records that reached their far end after a later one of their wire */
    uint64_t frames_cross;      /* records from a node of another process (what crosses ranks) */
    void (*send)(void *user, uint32_t wire, const fm_frame *fr); /* the carrier's */
    void *send_user;
} fm_ext;

/* ---- partition: hosts in contiguous blocks; a switch goes with its first neighbour one tier
 * down (so a fat tree's pods stay whole); the top tier is spread evenly over the ranks (a fat
 * tree is cut at its core links). ---- */
static void fm_ext_partition(const topo *t, uint32_t ranks, uint32_t *rank_of)
{
    uint32_t H = t->n_hosts, node, tier, top = 0, ntop = 0, j = 0;
    for (node = 0; node < t->n_nodes; node++)
        if (t->node[node].tier > top)
            top = t->node[node].tier;
    for (node = 0; node < t->n_nodes; node++)
        ntop += t->node[node].kind == TOPO_SWITCH && t->node[node].tier == top;
    for (node = 0; node < t->n_nodes; node++)
        if (t->node[node].kind == TOPO_HOST)
            rank_of[t->node[node].index] = (uint32_t)((uint64_t)t->node[node].index * ranks / (H ? H : 1u));
    for (tier = 1; tier <= top; tier++)
        for (node = 0; node < t->n_nodes; node++) {
            uint32_t p, g, r = 0, found = 0;
            if (t->node[node].kind != TOPO_SWITCH || t->node[node].tier != tier)
                continue;
            g = H + t->node[node].index;
            if (tier == top && top > 1u) {
                rank_of[g] = (uint32_t)((uint64_t)j++ * ranks / ntop);
                continue;
            }
            for (p = 0; p < t->node[node].ports && !found; p++) {
                uint32_t pp = 0, peer = topo_peer(t, node, p, &pp);
                if (t->node[peer].tier + 1u == tier) {
                    r = rank_of[t->node[peer].kind == TOPO_HOST ? t->node[peer].index : H + t->node[peer].index];
                    found = 1;
                }
            }
            rank_of[g] = r;
        }
}

/* In send order: a carrier may hand two records of one wire over out of order when they reach
 * the far end in the same cycle (a packet under one cycle on the wire; ns-3's MPI interface takes
 * the messages from its receive slots in slot order), so each goes behind those sent before it. */
static int fm_ext__queue_push(fm_ext_queue *q, const fm_frame *fr)
{
    uint32_t i;
    int moved = 0;
    if (q->n == q->cap) { /* grow: unwrap into a ring twice the size */
        uint32_t cap = q->cap ? 2u * q->cap : 64u;
        fm_frame *f = (fm_frame *)malloc((size_t)cap * sizeof *f);
        if (!f)
            fm__fail("outside links", "no memory");
        for (i = 0; i < q->n; i++)
            f[i] = q->f[(q->head + i) % q->cap];
        free(q->f);
        q->f = f;
        q->head = 0;
        q->cap = cap;
    }
    for (i = q->n; i > 0 && q->f[(q->head + i - 1u) % q->cap].seq > fr->seq; i--) {
        q->f[(q->head + i) % q->cap] = q->f[(q->head + i - 1u) % q->cap];
        moved = 1;
    }
    q->f[(q->head + i) % q->cap] = *fr;
    q->n++;
    return moved;
}

static const fm_frame *fm_ext__queue_head(const fm_ext_queue *q) { return q->n ? &q->f[q->head] : NULL; }
static void fm_ext__queue_pop(fm_ext_queue *q)
{
    q->head = (q->head + 1u) % q->cap;
    q->n--;
}

/* ---- the far end of one sender's wires: hands over what arrived, as the sender's run would ---- */
static void fm_ext__far_advance(void *self, uint64_t cycle)
{
    fm_ext_far *d = (fm_ext_far *)self;
    if (cycle > d->now)
        d->now = cycle;
}

static uint32_t fm_ext__fab_id(const fm_ext *x, uint32_t g)
{
    return g < x->m.w.hosts ? x->m.w.nic[g].fab_id : x->m.w.sw[g - x->m.w.hosts].fab_id;
}

static void fm_ext__far_run(void *self, uint64_t t)
{
    fm_ext_far *d = (fm_ext_far *)self;
    fm_ext *x = d->x;
    fm_world *w = &x->m.w;
    uint32_t i;
    const fm_frame *fr;
    d->now = t;
    d->blocked = 0;
    for (i = 0; i < d->n; i++) { /* PFC and host pauses first (fm_switch_run, fm_nic__to_switch) */
        fm_ext_wire *wi = &x->wire[x->far_wire[d->first + i]];
        uint32_t id = fm_ext__fab_id(x, wi->to);
        while ((fr = fm_ext__queue_head(&wi->ctl)) && fr->at <= t) {
            rnic_err e;
            fab_bring(&w->f, id, t);
            if (fr->kind == FM_FRAME_PFC)
                e = wi->to < w->hosts ? net_link_pause_quanta(&w->nic[wi->to].up, fr->value)
                                      : net_switch_pause_port_quanta(&w->sw[wi->to - w->hosts].sw, wi->to_port, fr->value);
            else
                e = wi->to >= w->hosts ? net_switch_pause_port(&w->sw[wi->to - w->hosts].sw, wi->to_port,
                                                               fr->value ? t + FM_HOST_PAUSE_CYCLES : t)
                                       : RNIC_EINVAL;
            if (e != RNIC_OK)
                x->errors++;
            fab_wake(&w->f, id);
            fm_ext__queue_pop(&wi->ctl);
        }
    }
    for (i = 0; i < d->n; i++) { /* then the packets, port by port */
        fm_ext_wire *wi = &x->wire[x->far_wire[d->first + i]];
        uint32_t id = fm_ext__fab_id(x, wi->to);
        while ((fr = fm_ext__queue_head(&wi->data)) && fr->at <= t) {
            rnic_err e;
            fab_bring(&w->f, id, t);
            e = wi->to < w->hosts ? fm_nic_accept(&w->nic[wi->to], &fr->p)
                                  : net_switch_push_from(&w->sw[wi->to - w->hosts].sw, wi->to_port, &fr->p);
            if (e != RNIC_OK) { /* no room: it waits at the head, as it would at the sender's link */
                d->blocked = 1;
                x->refused++;
                if (wi->data.n > x->refused_max)
                    x->refused_max = wi->data.n;
                break;
            }
            fab_wake(&w->f, id);
            fm_ext__queue_pop(&wi->data);
        }
    }
}

static uint64_t fm_ext__far_next(const void *self)
{
    const fm_ext_far *d = (const fm_ext_far *)self;
    uint64_t next = RNIC_NEVER;
    uint32_t i;
    if (d->blocked)
        return d->now;
    for (i = 0; i < d->n; i++) {
        const fm_ext_wire *wi = &d->x->wire[d->x->far_wire[d->first + i]];
        const fm_frame *a = fm_ext__queue_head(&wi->data), *b = fm_ext__queue_head(&wi->ctl);
        if (a && a->at < next)
            next = a->at;
        if (b && b->at < next)
            next = b->at;
    }
    return next;
}

static const fab_node_ops fm_ext_far_ops = { fm_ext__far_advance, fm_ext__far_run, fm_ext__far_next, NULL };

/* A record of `wire` given back by its carrier, before cycle fr->at runs (between cycles). */
static void fm_ext_arrive(fm_ext *x, uint32_t wire, const fm_frame *fr)
{
    fm_ext_wire *wi;
    fm_ext_far *d;
    if (wire >= x->nwires || !x->part[x->wire[wire].to] || x->far_of[x->wire[wire].from] == RNIC_NONE ||
        fr->at < x->m.w.f.now) {
        x->errors++; /* not ours, or too late to take in its cycle */
        return;
    }
    wi = &x->wire[wire];
    x->reordered += (uint64_t)fm_ext__queue_push(fr->kind == FM_FRAME_DATA ? &wi->data : &wi->ctl, fr);
    d = &x->far[x->far_of[wi->from]];
    fab_wake_at(&x->m.w.f, d->fab_id, fr->at);
    x->frames_in++;
    x->frames_cross += !x->part[wi->from];
}

/* ---- set-up ---- */

/* Every record a node sends: numbered on its wire, then to the carrier. */
static void fm_ext__send(void *user, uint32_t wire, const fm_frame *fr)
{
    fm_ext *x = (fm_ext *)user;
    fm_frame f = *fr;
    f.seq = x->wire[wire].seq++;
    x->send(x->send_user, wire, &f);
}

/* Rank `rank` of `ranks` (fm_ext_partition): its nodes, every wire, the far ends of the wires
 * into its nodes, all added to its scheduler in the global order. `send` carries a record of a
 * wire away (called inside a cycle, at the cycle the record left: fm_frame.at - wire.prop or
 * more for PFC). Exits with a message on a scenario the outside links cannot carry. */
static void fm_ext_init(fm_ext *x, const scn *s, uint32_t ranks, uint32_t rank,
                        void (*send)(void *user, uint32_t wire, const fm_frame *fr), void *user, const wl_flow *given,
                        size_t ngiven, const char *given_from)
{
    fm_model probe;
    fm_world *w;
    topo *t;
    uint32_t g, p, k, H;
    memset(x, 0, sizeof *x);
    if (!ranks || rank >= ranks)
        fm__bad_scenario("ranks", "the rank must be below the number of ranks");
    x->ranks = ranks;
    x->rank = rank;
    memset(&probe, 0, sizeof probe); /* the partition needs the topology before the build */
    fm__build_topo(&probe, s);
    x->nodes = probe.t.n_hosts + probe.t.n_switches;
    x->rank_of = (uint32_t *)calloc(x->nodes, sizeof *x->rank_of);
    x->part = (uint8_t *)calloc(x->nodes, 1);
    if (!x->rank_of || !x->part)
        fm__fail("outside links", "no memory");
    fm_ext_partition(&probe.t, ranks, x->rank_of);
    topo_free(&probe.t);
    for (g = 0; g < x->nodes; g++)
        x->part[g] = x->rank_of[g] == rank;
    fm_model_init_part(&x->m, s, 0, NULL, given, ngiven, given_from, x->part);
    w = &x->m.w;
    t = &x->m.t;
    H = w->hosts;
    for (g = 0; g < x->nodes; g++)
        x->nwires += t->node[g < H ? topo_host_node(t, g) : topo_switch_node(t, g - H)].ports;
    x->wire = (fm_ext_wire *)calloc(x->nwires + 1u, sizeof *x->wire);
    x->nic_wire = (uint32_t *)calloc(H + 1u, sizeof *x->nic_wire);
    x->sw_wire = (uint32_t **)calloc(w->switches + 1u, sizeof *x->sw_wire);
    x->far = (fm_ext_far *)calloc(x->nodes, sizeof *x->far);
    x->far_of = (uint32_t *)calloc(x->nodes, sizeof *x->far_of);
    x->far_wire = (uint32_t *)calloc(x->nwires + 1u, sizeof *x->far_wire);
    if (!x->wire || !x->nic_wire || !x->sw_wire || !x->far || !x->far_of || !x->far_wire)
        fm__fail("outside links", "no memory");
    x->nwires = 0;
    for (g = 0; g < x->nodes; g++) { /* the wires, by sender and port */
        uint32_t node = g < H ? topo_host_node(t, g) : topo_switch_node(t, g - H), ports = t->node[node].ports;
        if (g >= H && !(x->sw_wire[g - H] = (uint32_t *)calloc(ports + 1u, sizeof **x->sw_wire)))
            fm__fail("outside links", "no memory");
        x->far_of[g] = RNIC_NONE;
        for (p = 0; p < ports; p++) {
            uint32_t pp = 0, peer = topo_peer(t, node, p, &pp), l = topo_port_link(t, node, p);
            fm_ext_wire *wi = &x->wire[x->nwires];
            wi->from = g;
            wi->from_port = p;
            wi->to = t->node[peer].kind == TOPO_HOST ? t->node[peer].index : H + t->node[peer].index;
            wi->to_port = pp;
            wi->rate_bps = t->link[l].rate_bps;
            wi->delay_ns = t->link[l].delay_ns;
            wi->prop = rnic_ns_to_cycles(wi->delay_ns, w->p.clock_hz);
            if (!wi->prop)
                fm__bad_scenario("topology.link_delay_ns",
                                 "a link shorter than one clock cycle cannot be carried outside the fabric "
                                 "(its far end would take a packet in the cycle it left)");
            if (g < H)
                x->nic_wire[g] = x->nwires;
            else
                x->sw_wire[g - H][p] = x->nwires;
            x->nwires++;
        }
    }
    /* the far ends: per sender, its wires into this process in port order (the wires are in
     * sender, then port order) */
    for (k = 0, p = 0; k < x->nwires; k++) { /* p: the far ends' wires listed so far */
        const fm_ext_wire *wi = &x->wire[k];
        fm_ext_far *d;
        if (!x->part[wi->to])
            continue;
        if (x->far_of[wi->from] == RNIC_NONE) {
            d = &x->far[x->far_of[wi->from] = x->nfar++];
            d->x = x;
            d->from = wi->from;
            d->first = p;
        }
        d = &x->far[x->far_of[wi->from]];
        d->n++;
        x->far_wire[p++] = k;
    }
    for (g = 0; g < x->nodes; g++) { /* the scheduler's nodes, in the global order */
        if (x->part[g]) {
            if (g < H)
                w->nic[g].fab_id = fab_add(&w->f, &fm_nic_ops, &w->nic[g]);
            else
                w->sw[g - H].fab_id = fab_add(&w->f, &fm_switch_ops, &w->sw[g - H]);
        }
        if (x->far_of[g] != RNIC_NONE)
            x->far[x->far_of[g]].fab_id = fab_add(&w->f, &fm_ext_far_ops, &x->far[x->far_of[g]]);
    }
    x->send = send;
    x->send_user = user;
    x->link.send = fm_ext__send;
    x->link.user = x;
    x->link.nic_wire = x->nic_wire;
    x->link.sw_wire = x->sw_wire;
    w->ext = &x->link;
    for (k = 0; k < w->switches; k++)
        if (x->part[H + k]) {
            w->sw[k].sw.on_depart = fm_switch_ext_depart;
            w->sw[k].sw.depart_user = &w->sw[k];
        }
    x->period = rnic_ns_to_cycles(s->out.queue_sample_us * 1000u, w->p.clock_hz); /* fm_links_init's */
    if (!x->period)
        x->period = 1;
    x->step = rnic_ns_to_cycles(10000u, w->p.clock_hz); /* fm_model_run's drain step */
    x->stop = x->m.end + x->m.drain_limit;
    x->boundary = w->window_start;
}

static void fm_ext_free(fm_ext *x)
{
    uint32_t i;
    for (i = 0; i < x->nwires; i++) {
        free(x->wire[i].data.f);
        free(x->wire[i].ctl.f);
    }
    for (i = 0; x->sw_wire && i < x->m.w.switches; i++)
        free(x->sw_wire[i]);
    fm_model_free(&x->m);
    free(x->wire);
    free(x->nic_wire);
    free(x->sw_wire);
    free(x->far);
    free(x->far_of);
    free(x->far_wire);
    free(x->rank_of);
    free(x->part);
    memset(x, 0, sizeof *x);
}

/* ---- the run ---- */

/* The next cycle this process acts at: its scheduler's next event or the next boundary (the
 * boundary first when both); RNIC_NEVER once the run is over. */
static uint64_t fm_ext_next(const fm_ext *x)
{
    uint64_t e;
    if (x->finished)
        return RNIC_NEVER;
    e = fab_next_event(&x->m.w.f);
    return e < x->boundary ? e : x->boundary;
}

static int fm_ext_at_boundary(const fm_ext *x, uint64_t t) { return !x->finished && t == x->boundary; }

/* Run cycle t (every boundary up to t handled). */
static void fm_ext_cycle(fm_ext *x, uint64_t t)
{
    if (x->finished || t >= x->boundary) {
        x->errors++;
        return;
    }
    fab_run_until(&x->m.w.f, t + 1u);
}

#define FM_EXT_VALUES FM_DRAIN_VALUES
/* At the boundary (every cycle before it run): bring the NICs up, stop posting at the window's
 * end, and this process's part of the drain's condition (fm_model_drain_state), to be summed over
 * the processes. */
static void fm_ext_boundary_local(fm_ext *x, uint64_t *v)
{
    fm_world *w = &x->m.w;
    uint32_t h;
    fab_run_until(&w->f, x->boundary);
    for (h = 0; h < w->hosts; h++) /* fm__run_logged's */
        if (w->nic[h].w)
            fm_nic_settle(&w->nic[h]);
    if (!x->draining) { /* a sample: fm_links_sample's bring of every node, fm_window_take's at the ends */
        w->observing = 1;
        for (h = 0; h < w->hosts + w->switches; h++)
            if (x->part[h]) {
                fab_bring(&w->f, fm_ext__fab_id(x, h), x->boundary);
                if (h >= w->hosts)
                    net_switch_settle(&w->sw[h - w->hosts].sw);
            }
        w->observing = 0;
        for (h = 0; h < w->hosts && (x->boundary == w->window_start || x->boundary == x->m.end); h++)
            if (w->nic[h].w && (w->nic[h].hh_on || w->nic[h].htx_on)) {
                fab_bring(&w->f, w->nic[h].fab_id, x->boundary);
                fm_nic_settle(&w->nic[h]);
            }
    }
    for (h = 0; h < w->hosts && x->boundary == x->m.end && !x->draining; h++)
        if (w->nic[h].w)
            fm_nic_stop_posting(&w->nic[h]);
    fm_model_drain_state(&x->m, v);
}

/* ... and with v summed over every process: the next boundary, or the run's end. */
static void fm_ext_boundary_done(fm_ext *x, const uint64_t *v)
{
    if (!x->draining && x->boundary < x->m.end) {
        x->boundary = x->boundary + x->period < x->m.end ? x->boundary + x->period : x->m.end;
        return;
    }
    x->draining = 1;
    x->drained = fm_drained(v);
    x->m.drained = x->drained;
    if (x->drained || x->boundary >= x->stop)
        x->finished = 1;
    else
        x->boundary = x->boundary + x->step < x->stop ? x->boundary + x->step : x->stop;
}

/* ---- the results: what this process owns, zero elsewhere; summed over the processes ---- */
enum { FM_EXT_R_PACKETS, FM_EXT_R_BYTES, FM_EXT_R_CNPS, FM_EXT_R_PFC, FM_EXT_R_MARKED, FM_EXT_R_DROPPED,
       FM_EXT_R_ERRORS, FM_EXT_R_LATE, FM_EXT_R_REFUSED, FM_EXT_R_RUNS, FM_EXT_R_FRAMES, FM_EXT_R_REORDERED,
       FM_EXT_R_CROSS, FM_EXT_R_N };

static size_t fm_ext_results_len(const fm_ext *x) { return FM_EXT_R_N + x->m.w.hosts + 3u * (size_t)x->m.w.njobs; }

static void fm_ext_results_local(fm_ext *x, uint64_t *v)
{
    fm_world *w = &x->m.w;
    uint64_t *digest = v + FM_EXT_R_N, *job = digest + w->hosts;
    uint32_t h, i, p, c;
    memset(v, 0, fm_ext_results_len(x) * sizeof *v);
    for (h = 0; h < w->hosts; h++) {
        const fm_nic *n = &w->nic[h];
        if (!n->w)
            continue;
        digest[h] = n->digest;
        v[FM_EXT_R_PACKETS] += n->rx.packets;
        v[FM_EXT_R_BYTES] += n->rx.bytes;
        v[FM_EXT_R_CNPS] += n->cnps_out;
        v[FM_EXT_R_PFC] += n->host_pfc_frames;
        v[FM_EXT_R_DROPPED] += n->up_drops;
        v[FM_EXT_R_ERRORS] += n->model_errors + n->piece_errors + n->order_errors;
    }
    for (i = 0; i < w->switches; i++) {
        const fm_switch *s = &w->sw[i];
        if (!s->w)
            continue;
        v[FM_EXT_R_PFC] += s->pfc_frames;
        for (p = 0; p < s->sw.cfg.ports; p++)
            v[FM_EXT_R_MARKED] += s->sw.port[p].stats.marked;
        for (c = 0; c < NET_DROP__COUNT; c++)
            v[FM_EXT_R_DROPPED] += s->sw.stats.dropped[c];
    }
    for (i = 0; i < w->njobs; i++) {
        const rm_job *r = &w->rmjob[i];
        const fm_nic *n = &w->nic[w->job[i].src];
        if (!n->w)
            continue;
        job[3u * i] = r->done;
        job[3u * i + 1u] = r->qp;
        job[3u * i + 2u] = r->done ? n->host.gen[r->qp].cnps - r->cnps_at_post : 0;
    }
    v[FM_EXT_R_ERRORS] += w->model_errors + x->errors;
    v[FM_EXT_R_LATE] = x->link.late;
    v[FM_EXT_R_REFUSED] = x->refused;
    v[FM_EXT_R_RUNS] = w->f.stats.runs;
    v[FM_EXT_R_FRAMES] = x->frames_in;
    v[FM_EXT_R_REORDERED] = x->reordered;
    v[FM_EXT_R_CROSS] = x->frames_cross;
}

/* With v summed over every process (any process may report): the per-flow CSV (fm_fct.h's, the
 * same columns), the workload's RESULT line and `RESULT <name>=1 ... digest=` (the fabric's own
 * fold of every NIC's digest in host order). Returns the digest. */
static uint64_t fm_ext_results_report(fm_ext *x, const uint64_t *v, const char *name, const char *fct_csv,
                                      uint64_t refused_max)
{
    fm_world *w = &x->m.w;
    const uint64_t *digest = v + FM_EXT_R_N, *job = digest + w->hosts;
    uint64_t d = 0, *cnps = (uint64_t *)calloc(w->njobs + 1u, sizeof *cnps);
    uint32_t h, i, t, open = 0, done = 0;
    fm_fct_summary fct;
    if (!cnps)
        fm__fail("results", "no memory");
    for (h = 0; h < w->hosts; h++)
        d = fm_digest_fold_host(d, h, digest[h]);
    for (i = 0; i < w->njobs; i++) {
        w->rmjob[i].done = job[3u * i];
        w->rmjob[i].qp = (uint32_t)job[3u * i + 1u];
        cnps[i] = job[3u * i + 2u];
        done += job[3u * i] != 0;
    }
    w->job_cnps = cnps;
    for (t = 0; t < w->p.tenants; t++)
        open |= (uint32_t)w->p.tenant[t].open;
    if (open) {
        fm_fct_summarize(&x->m, w->window_end * 1000000000ull / w->p.clock_hz, &fct);
        fm_fct_result(&x->m, &fct, v[FM_EXT_R_DROPPED]);
    }
    if (fct_csv && fm_fct_write_csv(&x->m, fct_csv) != 0)
        perror(fct_csv);
    printf("RESULT %s=1 ranks=%u hosts=%u switches=%u flows=%u flows_done=%u drained=%d end_cycle=%llu "
           "delivered_packets=%llu bytes_checked=%llu cnps=%llu pfc_frames=%llu ecn_marked=%llu dropped=%llu "
           "errors=%llu late=%llu refused=%llu refused_max=%llu frames=%llu cross_frames=%llu reordered=%llu node_runs=%llu digest=%016llx\n",
           name, x->ranks, w->hosts, w->switches, w->njobs, done, x->drained, (unsigned long long)x->boundary,
           (unsigned long long)v[FM_EXT_R_PACKETS], (unsigned long long)v[FM_EXT_R_BYTES],
           (unsigned long long)v[FM_EXT_R_CNPS], (unsigned long long)v[FM_EXT_R_PFC],
           (unsigned long long)v[FM_EXT_R_MARKED], (unsigned long long)v[FM_EXT_R_DROPPED],
           (unsigned long long)v[FM_EXT_R_ERRORS], (unsigned long long)v[FM_EXT_R_LATE],
           (unsigned long long)v[FM_EXT_R_REFUSED], (unsigned long long)refused_max, (unsigned long long)v[FM_EXT_R_FRAMES],
           (unsigned long long)v[FM_EXT_R_CROSS], (unsigned long long)v[FM_EXT_R_REORDERED], (unsigned long long)v[FM_EXT_R_RUNS], (unsigned long long)d);
    w->job_cnps = NULL;
    free(cnps);
    return d;
}

/* ---- fm_ext_loop: `ranks` processes played inside this one, their records carried in time
 * order (a heap by arrival cycle, ties in send order): the tests' carrier, and a check of the
 * partition without ns-3 (rnic_model --ext-ranks). ---- */
typedef struct fm_ext_pending {
    fm_frame fr;
    uint32_t wire;
    uint64_t seq;
} fm_ext_pending;

typedef struct fm_ext_loop {
    fm_ext *x;
    uint32_t ranks;
    fm_ext_pending *heap;
    size_t n, cap;
    uint64_t seq;
    uint32_t skew;              /* the tests' negative control: every record arrives this many cycles late */
} fm_ext_loop;

static int fm_ext__pend_less(const fm_ext_pending *a, const fm_ext_pending *b)
{
    return a->fr.at < b->fr.at || (a->fr.at == b->fr.at && a->seq < b->seq);
}

static void fm_ext__loop_send(void *user, uint32_t wire, const fm_frame *fr)
{
    fm_ext_loop *L = (fm_ext_loop *)user;
    size_t i;
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2u * L->cap : 1024u;
        fm_ext_pending *h = (fm_ext_pending *)realloc(L->heap, cap * sizeof *h);
        if (!h)
            fm__fail("outside links", "no memory");
        L->heap = h;
        L->cap = cap;
    }
    i = L->n++;
    L->heap[i].fr = *fr;
    L->heap[i].fr.at += L->skew;
    L->heap[i].wire = wire;
    L->heap[i].seq = L->seq++;
    while (i && fm_ext__pend_less(&L->heap[i], &L->heap[(i - 1u) / 2u])) {
        fm_ext_pending tmp = L->heap[i];
        L->heap[i] = L->heap[(i - 1u) / 2u];
        L->heap[(i - 1u) / 2u] = tmp;
        i = (i - 1u) / 2u;
    }
}

static void fm_ext__loop_pop(fm_ext_loop *L, fm_ext_pending *out)
{
    size_t i = 0;
    *out = L->heap[0];
    L->heap[0] = L->heap[--L->n];
    for (;;) {
        size_t c = 2u * i + 1u;
        fm_ext_pending tmp;
        if (c >= L->n)
            break;
        if (c + 1u < L->n && fm_ext__pend_less(&L->heap[c + 1u], &L->heap[c]))
            c++;
        if (!fm_ext__pend_less(&L->heap[c], &L->heap[i]))
            break;
        tmp = L->heap[i];
        L->heap[i] = L->heap[c];
        L->heap[c] = tmp;
        i = c;
    }
}

/* Run scenario s as `ranks` processes; prints the results (fm_ext_results_report). Returns the
 * exit status (0, or 3 when bytes were lost or the run did not drain, as rnic_model). */
static int fm_ext_loop_run(const scn *s, uint32_t ranks, uint32_t skew, const char *fct_csv, const wl_flow *given,
                           size_t ngiven, const char *given_from)
{
    fm_ext_loop L;
    uint32_t r;
    size_t len, i;
    uint64_t *v, *sum, refused_max = 0;
    int rc;
    memset(&L, 0, sizeof L);
    L.ranks = ranks;
    L.skew = skew;
    if (!(L.x = (fm_ext *)calloc(ranks, sizeof *L.x)))
        fm__fail("outside links", "no memory");
    for (r = 0; r < ranks; r++)
        fm_ext_init(&L.x[r], s, ranks, r, fm_ext__loop_send, &L, given, ngiven, given_from);
    len = fm_ext_results_len(&L.x[0]);
    v = (uint64_t *)calloc(len, sizeof *v);
    sum = (uint64_t *)calloc(len, sizeof *sum);
    if (!v || !sum)
        fm__fail("outside links", "no memory");
    for (;;) {
        uint64_t t = RNIC_NEVER, vals[FM_EXT_VALUES], tot[FM_EXT_VALUES];
        for (r = 0; r < ranks; r++) {
            uint64_t e = fm_ext_next(&L.x[r]);
            t = e < t ? e : t;
        }
        if (t == RNIC_NEVER)
            break; /* every process is done (records still on their way arrive after the run) */
        if (L.n && L.heap[0].fr.at < t)
            t = L.heap[0].fr.at;
        while (L.n && L.heap[0].fr.at <= t) {
            fm_ext_pending pd;
            fm_ext__loop_pop(&L, &pd);
            fm_ext_arrive(&L.x[L.x[0].rank_of[L.x[0].wire[pd.wire].to]], pd.wire, &pd.fr);
        }
        if (fm_ext_at_boundary(&L.x[0], t)) {
            memset(tot, 0, sizeof tot);
            for (r = 0; r < ranks; r++) {
                fm_ext_boundary_local(&L.x[r], vals);
                for (i = 0; i < FM_EXT_VALUES; i++)
                    tot[i] += vals[i];
            }
            for (r = 0; r < ranks; r++)
                fm_ext_boundary_done(&L.x[r], tot);
            continue;
        }
        for (r = 0; r < ranks; r++)
            if (fab_next_event(&L.x[r].m.w.f) == t)
                fm_ext_cycle(&L.x[r], t);
    }
    for (r = 0; r < ranks; r++) {
        fm_ext_results_local(&L.x[r], v);
        for (i = 0; i < len; i++)
            sum[i] += v[i];
        if (L.x[r].refused_max > refused_max)
            refused_max = L.x[r].refused_max;
    }
    fm_ext_results_report(&L.x[0], sum, "ext_fabric", fct_csv, refused_max);
    rc = s->run.drain && !L.x[0].drained ? 3 : 0;
    for (r = 0; r < ranks; r++)
        fm_ext_free(&L.x[r]);
    free(L.x);
    free(L.heap);
    free(v);
    free(sum);
    return rc;
}

#endif /* RNIC_FM_EXT_H */
