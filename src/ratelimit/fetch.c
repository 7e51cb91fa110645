/* ratelimit.h: fetch.c -- WQE fetches (step 7): the descriptor gate, the PCIe read channel (fetch_bps) and the fetch pipeline of latency L. */

/* Step 7's descriptor gate: a QP is queued and the buffer has a slot for its fetch (ranked:
 * or the queue head would displace a later-finishing stored packet). */
RNIC_INLINE bool rl__fetch_gate_open(const rl *r)
{
    if (!rl__sched_count(r))
        return false;
    if (r->desc_count + r->fetches.count < r->cfg.desc_depth)
        return true;
    return rl__ranked_mode(r) &&
           rl__head_beats(r, rl__desc_latest(r));
}

/* Step 7. */
static void rl__issue_fetch(rl *r)
{
    uint32_t qp;
    rl__qp *q;
    rl__timed_qp f;
    /* a fetch is issued only when the buffer will have a slot for it: one free slot reserved
     * per fetch in flight (without the gate, rounds that find the buffer full refetch in a
     * loop: ~40 PCIe reads per packet sent when over k flows have urgent packets) */
    if (!rl__fetch_gate_open(r)) {
        if (rl__sched_count(r))
            r->stats.fetch_gated++;
        return;
    }
    if (r->fetch_cpb && !rl__reached(r->now, r->fetch_free)) { /* the PCIe read channel is busy */
        if (rl__sched_count(r))
            r->stats.fetch_throttled++;
        return;
    }
    if (!rl__sched_pop(r, &qp)) /* defensive: rl_tick calls this only with a QP scheduled */
        return;
    q = &r->qps[qp];
    if ((q->flags & (RL__QF_CREDIT | RL__QF_PAUSED)) != RL__QF_CREDIT) {
        rl__park(r, qp);
        return;
    }
    r->stats.fetch_bytes += r->fetch_req_bytes;
    if (r->fetch_cpb) { /* the request holds the read channel for its bytes, back to back as the link */
        rnic_ftime now_t = rnic_ftime_at(r->now);
        if (rnic_ftime_before(r->fetch_t, now_t))
            r->fetch_t = now_t;
        rnic_ftime_add_bytes(&r->fetch_t, r->fetch_req_bytes, r->fetch_cpb);
        r->fetch_free = r->fetch_t.cycle;
    }
    q->state = RL__FETCHING;
    f.qp = qp;
    f.cycle = r->now + r->pcie_latency;
    RL__Q_PUSH(&r->fetches, f); /* at most L + 1 in flight: cannot be full */
    RNIC__TRACE(r, RL_TRACE_FETCH, qp, q->index, q->offset);
}

