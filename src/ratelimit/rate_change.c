/* ratelimit.h: rate_change.c -- rate changes (re-timing what is scheduled) and the EMUX (step 1) that applies the registers. */

/* ---- rate changes: re-timing what is scheduled (docs/tassel_model.md, "Rate changes") ---- */

/* The next start N after T moves to max(T, prev_start + prev_len * new_cpb): the last
 * packet sent is charged at the new rate from its start. N <= T (nothing owed): N stays, but
 * while the link is not oversubscribed (Phi <= 1 before the write) no further behind than the
 * lag floor T - Lambda -- a QP starved or cut keeps no lag to replay above its new rate. Under
 * Phi > 1 its lag is unserved share and stays (a rate write every microsecond must not forgive
 * it, docs/tassel_model.md "A QP's lag"). */
static rnic_ftime rl__retimed_start(rl *r, const rl__qp *q, rnic_ftime N, rnic_q32 new_cpb)
{
    rnic_ftime c = rl__prev_start(q);
    if (!rnic_ftime_before(r->T, N)) {
        rnic_ftime floor;
        if (r->phi > RNIC_Q32_ONE) /* Phi before the write */
            return N;
        floor = rl__lag_floor(r);
        if (!rnic_ftime_before(N, floor))
            return N;
        r->stats.lag_floored++;
        return floor;
    }
    rnic_ftime_add_bytes(&c, rl__prev_len(q), new_cpb);
    return rnic_ftime_before(c, r->T) ? r->T : c;
}

/* Flow qi's stored descriptors, in number order (their chain order), into desc_scratch. */
static uint32_t rl__collect(rl *r, uint32_t qi)
{
    uint32_t s, n = 0, i;
    for (s = 0; s < r->cfg.desc_depth; s++) {
        if (!rnic_bitmap_test(r->desc_used, s) || r->desc[s].flow != qi)
            continue;
        for (i = n++; i > 0 && r->desc[r->desc_scratch[i - 1u]].number > r->desc[s].number; i--)
            r->desc_scratch[i] = r->desc_scratch[i - 1u];
        r->desc_scratch[i] = (uint16_t)s;
    }
    return n;
}

/* Re-time flow qi's schedule at new_cpb (keep) or drop it all (pause). The next start N
 * (the first stored packet's, else `finish`) becomes N' (rl__retimed_start); stored
 * packets are re-chained from N' while still urgent (start < A_mono), the rest is dropped and
 * the cursor moves back to the first dropped one. Returns the packets dropped. */
static uint32_t rl__retime(rl *r, uint32_t qi, rnic_q32 new_cpb, bool keep)
{
    rl__qp *q = &r->qps[qi];
    uint32_t n = q->outstanding ? rl__collect(r, qi) : 0, i, dropped = 0;
    rnic_ftime t = n ? r->desc[r->desc_scratch[0]].start : rl__finish(q);
    if (keep)
        t = rl__retimed_start(r, q, t, new_cpb);
    for (i = 0; i < n; i++) {
        uint32_t s = r->desc_scratch[i];
        rl__desc *d = &r->desc[s];
        if (keep && dropped == 0 && rnic_ftime_before(t, r->A_mono)) {
            d->start = t;
            rnic_ftime_add_bytes(&t, d->len, new_cpb);
            d->finish = t;
            continue;
        }
        if (dropped++ == 0) {
            q->index = d->index;
            q->offset = d->offset;
        }
        rnic_bitmap_clear(r->desc_used, s);
        r->desc_count--;
        q->outstanding--;
        r->stats.packets_dropped++;
    }
    rl__set_finish(q, t);
    if (keep)
        q->cpb = new_cpb;
    r->desc_latest = RNIC_NONE; /* finishes moved */
    if (n) {
        rl__dheap_remove(r, r->desc_waiting, &r->n_waiting, false, RNIC_NONE, qi);
        rl__ready_remove(r, RNIC_NONE, qi);
        for (i = 0; i < n - dropped; i++) /* step 5 makes those that have started eligible again */
            rl__dheap_push(r, r->desc_waiting, &r->n_waiting, false, r->desc_scratch[i]);
    }
    return dropped;
}

static void rl__tl_remove(rl *r, uint32_t qp);

/* A DORMANT flow's timeline key after a re-time: ceil(max(finish, A_mono)). A settled entry
 * leaves the timeline and re-enters through the next operation slot (the hardware's tagged
 * re-insert, its stale twin dropped when it surfaces); a request not yet settled reads the
 * key when it settles; a flow already dequeued goes on to its fetch. */
static void rl__rekey(rl *r, uint32_t qi)
{
    rl__qp *q = &r->qps[qi];
    rnic_ftime res = rl__finish(q);
    if (q->tl_loc == RL__TL_LEAVING)
        return;
    if (rnic_ftime_before(res, r->A_mono))
        res = r->A_mono;
    if (q->tl_loc == RL__TL_WHEEL)
        rl__wheel_remove(r, qi); /* before the new key is read: the slot is found from the old one */
    q->resched = rnic_ftime_ceil(res);
    r->tl_stamp++; /* an enqueue in flight may have a new key */
    if (q->tl_loc == RL__TL_REQUEST && r->inserts_in_flight.count && rl__key_before(q->resched, r->inflight_key_floor))
        r->inflight_key_floor = q->resched; /* it may be one of the enqueues in flight */
    if (q->tl_loc == RL__TL_SETTLED || q->tl_loc == RL__TL_WHEEL) {
        if (q->tl_loc == RL__TL_SETTLED)
            rl__tl_remove(r, qi);
        if (!rl__ranked_mode(r) || !rl__wheel_place(r, qi, q->resched)) {
            q->tl_loc = RL__TL_REQUEST;
            RL__FIFO_PUSH(&r->insert_requests, RL__TL_NEXT, qi);
        }
    }
    RNIC__TRACE(r, RL_TRACE_RESCHEDULE, qi, q->resched, 1);
}

/* Ranked option: an urgent packet of finish f that finds the buffer full takes the slot of
 * the stored packet with the largest (finish, number) when that finish is later than f -- the
 * buffer keeps the k smallest finishes, as WF2Q+ would send them. The victim is the last
 * stored packet of its QP (a QP's finishes increase); the QP's cursor moves back to it and its
 * schedule continues from its start (fetched again, as after fetch-and-drop). Returns the
 * freed slot, RNIC_NONE when no stored packet finishes later. */
static uint32_t rl__evict_later(rl *r, rnic_ftime f)
{
    uint32_t victim = rl__desc_latest(r);
    rl__qp *q;
    rl__desc *d;
    if (victim == RNIC_NONE || !rnic_ftime_before(f, r->desc[victim].finish))
        return RNIC_NONE;
    r->desc_latest = RNIC_NONE;
    d = &r->desc[victim];
    q = &r->qps[d->flow];
    rl__dheap_remove(r, r->desc_waiting, &r->n_waiting, false, victim, RNIC_NONE);
    rl__ready_remove(r, victim, RNIC_NONE);
    rnic_bitmap_clear(r->desc_used, victim);
    r->desc_count--;
    q->outstanding--;
    q->index = d->index;
    q->offset = d->offset;
    rl__set_finish(q, d->start);
    r->stats.packets_dropped++;
    r->stats.desc_evictions++;
    if (q->state == RL__DRAINING) /* it has data to fetch again */
        rl__reschedule(r, d->flow, d->start);
    else if (q->state == RL__DORMANT)
        rl__rekey(r, d->flow);
    return victim;
}

static void rl__park(rl *r, uint32_t qi)
{
    r->qps[qi].state = RL__PARKED;
    RNIC__TRACE(r, RL_TRACE_PARK, qi, RL__QF(&r->qps[qi], RL__QF_CREDIT), RL__QF(&r->qps[qi], RL__QF_PAUSED));
}

static void rl__apply_rate(rl *r, uint32_t qi, uint64_t bps)
{
    rl__qp *q = &r->qps[qi];
    bool active = q->state != RL__IDLE;
    rnic_q32 cpb = 0;
    uint32_t dropped;
    if (bps == 0) { /* pause: nothing more is sent, the stored packets go back to the source */
        if (RL__QF(q, RL__QF_PAUSED))
            return;
        dropped = rl__retime(r, qi, q->cpb, false);
        RL__QF_SET(q, RL__QF_PAUSED, 1);
        if (active) {
            r->sum_active_bps -= rl__rate(q);
            rl__update_phi(r);
        }
        if (q->state == RL__DRAINING)
            rl__park(r, qi);
        RNIC__TRACE(r, RL_TRACE_RETIME, qi, q->finish_cycle, dropped);
        return;
    }
    rnic_rate_to_cpb(bps, r->cfg.clock_hz, &cpb); /* clamped at the write: representable */
    if (active && !RL__QF(q, RL__QF_PAUSED))
        r->sum_active_bps -= rl__rate(q);
    q->rate_lo = (uint32_t)bps;
    q->rate_hi = (uint8_t)(bps >> 32);
    if (RL__QF(q, RL__QF_PAUSED)) { /* resume: re-timed as below, but no earlier than now */
        rnic_ftime f = rl__retimed_start(r, q, rl__finish(q), cpb);
        RL__QF_SET(q, RL__QF_PAUSED, 0);
        rl__set_finish(q, rnic_ftime_before(f, r->T) ? r->T : f);
        q->cpb = cpb;
        r->stats.retimes++;
        if (q->state == RL__PARKED && RL__QF(q, RL__QF_CREDIT))
            rl__enqueue_schedule(r, qi);
        else if (q->state == RL__DORMANT)
            rl__rekey(r, qi);
        RNIC__TRACE(r, RL_TRACE_RETIME, qi, q->finish_cycle, 0);
    } else if (cpb != q->cpb) {
        dropped = rl__retime(r, qi, cpb, true);
        r->stats.retimes++;
        if (q->state == RL__DORMANT)
            rl__rekey(r, qi);
        else if (q->state == RL__DRAINING && dropped)
            rl__reschedule(r, qi, rl__finish(q));
        RNIC__TRACE(r, RL_TRACE_RETIME, qi, q->finish_cycle, dropped);
    }
    if (active) {
        r->sum_active_bps += rl__rate(q);
        rl__update_phi(r);
    }
}

/* Step 1: the EMUX applies one flow's pending registers: rate, then credit, then doorbell. */
static void rl__emux(rl *r)
{
    uint32_t flow;
    rl__qp *q;
    uint8_t pend;
    if (!r->registers.count) /* defensive: rl_tick calls this only with a register pending */
        return;
    flow = r->registers.head;
    RL__FIFO_DROP(&r->registers, RL__REG_NEXT);
    q = &r->qps[flow];
    pend = q->pend;
    q->pend = 0;
    RNIC__TRACE(r, RL_TRACE_APPLY, flow, pend, 0);
    if (pend & RL__PEND_RATE) {
        r->stats.rate_updates++;
        rl__apply_rate(r, flow, rl__pend_rate(q));
    }
    if (pend & RL__PEND_CREDIT) {
        r->stats.credit_updates++;
        RL__QF_SET(q, RL__QF_CREDIT, RL__QF(q, RL__QF_PEND_CREDIT));
        if ((q->flags & (RL__QF_CREDIT | RL__QF_PAUSED)) == RL__QF_CREDIT && q->state == RL__PARKED)
            rl__enqueue_schedule(r, flow);
    }
    if (pend & RL__PEND_DOORBELL) {
        r->stats.doorbells++;
        if (q->state == RL__IDLE) {
            if (rnic_ftime_before(rl__finish(q), r->T))
                rl__set_finish(q, r->T);
            rl__set_prev(q, rl__finish(q), 0); /* the re-timing anchor: nothing sent in this activity */
            rl__activate(r, q);
            rl__enqueue_schedule(r, flow);
        } else if (q->state == RL__DRAINING) {
            RL__QF_SET(q, RL__QF_DOORBELL, 1);
        }
    }
}

