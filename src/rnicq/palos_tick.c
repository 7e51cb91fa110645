/* Palos: one cycle (the modules back to front) and fast-forward (rq_palos_next_event,
 * rq_palos_advance). */

RQ_API void rq_palos_tick(rq_palos *p)
{
    if (!p)
        return;
    /* back to front: each module sees what the one before it did in the previous cycle */
    rq__palos_slice_module(p);
    rq__palos_fetch_module(p);
    rq__palos_doorbell_module(p);
    p->now++;
    p->stats.cycles++;
}

/* The next cycle at which a tick changes anything: true and *at (now when it is due now), or
 * false when nothing happens without new input. Every case is O(1). */
static bool rq__palos_next(const rq_palos *p, uint64_t *at)
{
    const rq__palos_visit *v = &p->visit;
    bool any = false;
    uint32_t k;
    *at = p->now;
    if (!rnic_ring_empty(&p->doorbells))
        return true;
    for (k = 0; k < 2u; k++)
        if (!rnic_ring_full(&p->slots[k]) && !rnic_ring_empty(&p->queue[k]))
            return true;
    if (!v->active && p->paused.active)
        return true; /* a paused visit resumes (or a latency batch goes first) */
    if (v->active) {
        if (p->qps[v->qp].held)
            return true; /* the hold ends the visit */
        if (!rq__palos_due(v->ready, p->now)) {
            *at = v->ready; /* the visit's next batch */
            return true;
        }
        if (v->left == 0u || (p->cfg.mode == RQ_PALOS_CHUNK && v->credit <= rq__palos_floor(p)))
            return true; /* the visit ends */
        return !rq__palos_port_full(p); /* a full port waits for a pop */
    }
    for (k = 0; k < 2u; k++) { /* the earliest head of the slot FIFOs (wrap-safe) */
        const rq__palos_slot *s = (const rq__palos_slot *)rnic_ring_peek(&p->slots[k]);
        if (!s)
            continue;
        if (rq__palos_due(s->ready, p->now)) {
            *at = p->now;
            return true;
        }
        if (!any || s->ready - p->now < *at - p->now)
            *at = s->ready;
        any = true;
    }
    return any;
}

RQ_API uint64_t rq_palos_next_event(const rq_palos *p)
{
    uint64_t at;
    if (!p)
        return RNIC_NEVER;
    return rq__palos_next(p, &at) ? at : RNIC_NEVER;
}

/* rnic__advance's three functions. skip: the idle cycles up to the next event (at most `left`;
 * 0 when something happens now), counting out_stalls for a visit blocked on the output port as
 * the skipped ticks would. */
static uint64_t rq__palos_skip(void *x, uint64_t left)
{
    rq_palos *p = (rq_palos *)x;
    uint64_t at, skip = left;
    bool has = rq__palos_next(p, &at);
    if (has && at == p->now)
        return 0;
    if (has && at - p->now < skip)
        skip = at - p->now;
    if (p->visit.active && rq__palos_due(p->visit.ready, p->now)) /* blocked on the output port */
        p->stats.out_stalls += skip;
    p->now += skip;
    p->stats.cycles += skip;
    return skip;
}
static void rq__palos_tick_fn(void *x) { rq_palos_tick((rq_palos *)x); }
static uint32_t rq__palos_full(const void *x) { return rq__palos_port_full((const rq_palos *)x) ? 1u : 0u; }

RQ_API uint64_t rq_palos_advance(rq_palos *p, uint64_t cycles)
{
    return p ? rnic__advance(p, cycles, rq__palos_skip, rq__palos_tick_fn, rq__palos_full, 0u) : 0u;
}

RQ_API uint64_t rq_palos_advance_to(rq_palos *p, uint64_t cycle)
{
    if (!p)
        return 0;
    return rq_palos_advance(p, rnic_cycles_until(p->now, cycle));
}
