/* fm_switch.h -- a switch of the fabric as one node (issue 30; docs/fabric_model.md): net.h's
 * output-queued switch (shared buffer, RED/ECN, PFC per ingress, control packets first, ECMP),
 * its egress links, and where each port leads (a NIC, or another switch's port). Its run hands
 * every packet that reached the far end of an egress link to that neighbour (a NIC through
 * fm_nic_accept, a switch through net_switch_push_from), and carries its PAUSE / RESUME frames
 * one hop back to the neighbour whose link it pauses. */
#ifndef RNIC_FM_SWITCH_H
#define RNIC_FM_SWITCH_H
#include "fm_nic.h"

#define FM_PFC_QUEUE 256u /* PAUSE / RESUME frames travelling back to neighbours */

typedef struct fm_peer {
    uint32_t is_switch;        /* 0: NIC, 1: switch */
    uint32_t index;            /* host number or switch number */
    uint32_t port;             /* the neighbour switch's port (is_switch) */
} fm_peer;

typedef struct fm_switch {
    fm_world *w;
    uint32_t index, fab_id;
    net_switch sw;
    fm_peer *peer;             /* per port */
    net_pfc_frame pfc[FM_PFC_QUEUE];
    uint32_t pfc_head, pfc_count;
    uint64_t pfc_last;         /* fm_ext.h: the cycle the last queued frame is handed over (they go in order) */
    uint64_t pfc_frames;
    uint64_t now;
} fm_switch;

/* A PAUSE from switch s's ingress `port` (quanta 0: RESUME) arriving now at the neighbour whose
 * link into that port it stops: a switch's egress port, or a NIC's uplink. */
static void fm_switch__pause_upstream(fm_world *w, const fm_switch *s, uint32_t port, uint32_t quanta, uint64_t t)
{
    const fm_peer *pr = &s->peer[port];
    uint32_t id = pr->is_switch ? w->sw[pr->index].fab_id : w->nic[pr->index].fab_id;
    rnic_err e;
    fab_bring(&w->f, id, t);
    if (pr->is_switch)
        e = net_switch_pause_port_quanta(&w->sw[pr->index].sw, pr->port, quanta);
    else
        e = net_link_pause_quanta(&w->nic[pr->index].up, quanta);
    if (e != RNIC_OK)
        w->model_errors++;
    fab_wake(&w->f, id);
}

static void fm_switch_advance_to(void *self, uint64_t cycle)
{
    fm_switch *s = (fm_switch *)self;
    if (cycle <= s->now)
        return;
    net_switch_advance_to(&s->sw, cycle);
    s->now = cycle;
}

static void fm_switch_run(void *self, uint64_t t)
{
    fm_switch *s = (fm_switch *)self;
    fm_world *w = s->w;
    net_pfc_frame fr;
    net_pkt pk;
    uint32_t p;
    uint64_t hop;
    /* PAUSE / RESUME frames: one hop back (propagation + a 64 B frame), then the link obeys */
    while (s->pfc_count < FM_PFC_QUEUE && net_switch_pop_pfc(&s->sw, &fr) == RNIC_OK) {
        hop = s->sw.port[fr.port].link.prop + rnic_ns_to_cycles(6u, w->p.clock_hz);
        fr.cycle = t + hop;
        s->pfc[(s->pfc_head + s->pfc_count++) % FM_PFC_QUEUE] = fr;
        s->pfc_frames++;
        if (w->ext) { /* sent now; handed over when the frames before it are and its hop is done */
            fm_frame f;
            memset(&f, 0, sizeof f);
            s->pfc_last = fr.cycle > s->pfc_last ? fr.cycle : s->pfc_last;
            f.kind = FM_FRAME_PFC;
            f.at = s->pfc_last;
            f.value = fr.quanta;
            w->ext->send(w->ext->user, w->ext->sw_wire[s->index][fr.port], &f);
        }
    }
    while (s->pfc_count && s->pfc[s->pfc_head].cycle <= t) {
        if (!w->ext)
            fm_switch__pause_upstream(w, s, s->pfc[s->pfc_head].port, s->pfc[s->pfc_head].quanta, t);
        s->pfc_head = (s->pfc_head + 1u) % FM_PFC_QUEUE;
        s->pfc_count--;
    }
    /* packets at the far end of each egress link, to the neighbour (the ports that have one) */
    for (p = net_switch_next_ready(&s->sw, 0); p != NET_NO_PORT; p = net_switch_next_ready(&s->sw, p + 1u)) {
        const fm_peer *pr = &s->peer[p];
        while (net_switch_peek(&s->sw, p, &pk) == RNIC_OK) {
            rnic_err e;
            if (w->ext) { /* it went over the outside link when it left (fm_switch_ext_depart) */
                net_switch_pop(&s->sw, p, &pk);
                continue;
            }
            if (pr->is_switch) {
                fm_switch *d = &w->sw[pr->index];
                fab_bring(&w->f, d->fab_id, t);
                e = net_switch_push_from(&d->sw, pr->port, &pk);
                if (e == RNIC_OK)
                    fab_wake(&w->f, d->fab_id);
            } else {
                fm_nic *n = &w->nic[pr->index];
                fab_bring(&w->f, n->fab_id, t);
                e = fm_nic_accept(n, &pk);
                if (e == RNIC_OK)
                    fab_wake(&w->f, n->fab_id);
            }
            if (e != RNIC_OK)
                break; /* the neighbour has no room: the packet waits (polled) */
            net_switch_pop(&s->sw, p, &pk);
        }
    }
}

static uint64_t fm_switch_next_event(const void *self)
{
    const fm_switch *s = (const fm_switch *)self;
    uint64_t next = net_switch_next_event(&s->sw);
    if (s->sw.pfc_count)
        return s->now;
    if (s->pfc_count && s->pfc[s->pfc_head].cycle < next)
        next = s->pfc[s->pfc_head].cycle;
    return next;
}

static const fab_node_ops fm_switch_ops = { fm_switch_advance_to, fm_switch_run, fm_switch_next_event, NULL };

/* fm_ext.h: a packet whose last byte left egress `port` goes over the outside link now. The
 * switch is due at every departure (net_switch_next_event), so the fabric is at `done` (later
 * would break the carrier's lookahead: counted). */
static void fm_switch_ext_depart(void *user, uint32_t port, const net_pkt *p, uint64_t done, uint64_t arrive)
{
    fm_switch *s = (fm_switch *)user;
    fm_ext_link *x = s->w->ext;
    fm_frame fr;
    if (x->sw_wire[s->index][port] == RNIC_NONE)
        return; /* a port that leads nowhere: the packet stays at its far end, as without fm_ext.h */
    memset(&fr, 0, sizeof fr);
    fr.p = *p;
    fr.at = arrive;
    fr.kind = FM_FRAME_DATA;
    x->late += done < s->w->f.now;
    x->send(x->user, x->sw_wire[s->index][port], &fr);
}

/* The NIC's TX MAC -> its switch, and the host's PFC edges to the switch's port toward it. */
static void fm_nic__to_switch(fm_nic *n, uint64_t t)
{
    fm_world *w = n->w;
    fm_switch *s = &w->sw[n->sw];
    net_pkt pk;
    int woke = 0;
    while (n->pause_count && n->pause_at[n->pause_head] <= t) {
        if (w->ext) { /* it went over the outside link when it was emitted */
            n->pause_head = (n->pause_head + 1u) % 16u;
            n->pause_count--;
            continue;
        }
        fab_bring(&w->f, s->fab_id, t);
        if (net_switch_pause_port(&s->sw, n->sw_port, n->pause_on[n->pause_head] ? t + FM_HOST_PAUSE_CYCLES : t) !=
            RNIC_OK)
            n->model_errors++;
        n->pause_head = (n->pause_head + 1u) % 16u;
        n->pause_count--;
        woke = 1;
    }
    while (net_link_peek(&n->up, &pk) == RNIC_OK) {
        if (w->ext) { /* it went over the outside link when it left (fm_nic__ext_departures) */
            net_link_pop(&n->up, &pk);
            continue;
        }
        if (n->up_loss_ppm && !n->up_lost_head) /* the host's link loses it at random (drawn once) */
            n->up_lost_head = rnic_prng_next(&n->up_prng) % 1000000u < n->up_loss_ppm ? 1u : 2u;
        if (n->up_lost_head == 1u) {
            net_link_pop(&n->up, &pk);
            n->up_drops++;
            n->up_lost_head = 0;
            continue;
        }
        fab_bring(&w->f, s->fab_id, t);
        if (net_switch_push_from(&s->sw, n->sw_port, &pk) != RNIC_OK)
            break; /* the switch's egress queue is full (packet count): waits, polled */
        net_link_pop(&n->up, &pk);
        n->up_lost_head = 0;
        woke = 1;
    }
    if (woke)
        fab_wake(&w->f, s->fab_id);
}

#endif /* RNIC_FM_SWITCH_H */
