/* ratelimit.h: tick.c -- one clock cycle (rl_tick: the steps in order) and the 2^62-cycle epoch catch-up. */

/* The 2^63 horizon of wrap-safe comparisons: a time that stays put while now or T moves on
 * would read as future after 2^63 cycles (the link busy, the P-heap closed, an idle flow's
 * finish ahead of T: the engine or the flow freezes). Whenever now or T crosses a multiple
 * of 2^62 (ticking, or jumps of at most 2^61 in rl_advance), such times are brought up to
 * now / T. Nothing a later tick does changes: a reached "not before" register reads as now,
 * a link that finished before now as one finishing now (step 6 takes the max), an idle
 * flow's finish behind T's epoch (T rounded down to a multiple of 2^62) as that epoch (its
 * doorbell takes the max with T). The epoch, not T itself: rl_advance catches up at the end
 * of a jump, ticking at the cycle now crosses, and an idle flow's finish shows (a rate write's
 * RL_TRACE_RETIME): T's epoch is the same at both points, so ticking and fast-forward stay
 * identical (fuzz_ratelimit found T there). O(max_flows), once per 2^62 cycles. (A flow
 * parked without credit for 2^63 cycles keeps its owed time: out of range.) */
#define RL__EPOCH_BITS 62
#define RL__JUMP ((uint64_t)1 << 61)
static void rl__catch_up(rl *r)
{
    rnic_ftime now_t = rnic_ftime_at(r->now), epoch;
    uint32_t i;
    bool bound_set = false;

    r->tl_stamp++; /* heap_next_op may move */
    if (rl__reached(r->now, r->heap_next_op))
        r->heap_next_op = r->now;
    if (rl__reached(r->now, r->link_free) && rnic_ftime_before(r->link_t, now_t)) {
        r->link_t = now_t;
        r->link_free = r->now;
    }
    if (rl__reached(r->now, r->fetch_free) && rnic_ftime_before(r->fetch_t, now_t)) {
        r->fetch_t = now_t;
        r->fetch_free = r->now;
    }
    epoch.cycle = r->T.cycle & ~(((uint64_t)1 << RL__EPOCH_BITS) - 1u);
    epoch.frac = 0;
    for (i = 0; i < r->cfg.max_flows; i++) {
        const rl__qp *q = &r->qps[i];
        if (q->state == RL__IDLE && rnic_ftime_before(rl__finish(q), epoch))
            rl__set_finish(&r->qps[i], epoch);
        /* the calendar's bound, exact again: it only grows while the calendar holds entries,
         * and must stay within 2^62 of the keys to come */
        if (q->state == RL__DORMANT && q->tl_loc == RL__TL_SETTLED && q->tl_list != RL__RUN &&
            (!bound_set || rl__key_before(r->tl_cal_bound, q->resched))) {
            r->tl_cal_bound = q->resched;
            bound_set = true;
        }
    }
}

RL_API void rl_tick(rl *r)
{
    const rl__timed_qp *f;
    uint64_t t_before;
    if (!r)
        return;
    if (r->inserts_in_flight.count)
        rl__settle(r, false); /* enqueues that settled in cycles fast-forward skipped */
    if (r->registers.count)
        rl__emux(r); /* 1 */
    if (r->fetches.count && rl__reached(r->now, (f = &RL__Q_HEAD(&r->fetches))->cycle)) { /* 2 */
        uint32_t qp = f->qp;
        RL__Q_DROP(&r->fetches);
        rl__round(r, qp);
    }
    rl__timeline(r); /* 3, 4 */
    if (r->n_waiting)
        rl__eligibility(r); /* 5 */
    if (r->n_ready)
        rl__transmit(r); /* 6 */
    if (rl__sched_count(r))
        rl__issue_fetch(r); /* 7 */
    t_before = r->T.cycle;
    if (r->inc == RNIC_Q32_ONE && r->a_tracks) { /* 8; Phi <= 1: a whole cycle on both */
        r->T.cycle++;
        r->A_mono.cycle++;
    } else {
        rnic_ftime_add_q32(&r->T, r->inc);
        if (r->a_tracks)
            rnic_ftime_add_q32(&r->A_mono, r->inc);
        else
            rl__update_activation(r);
    }
    r->now++;
    r->stats.cycles++;
    if (!(r->now << (64 - RL__EPOCH_BITS)) || (r->T.cycle ^ t_before) >> RL__EPOCH_BITS)
        rl__catch_up(r);
}

