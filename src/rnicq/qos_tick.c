/* One cycle of the QoS engine, its blocks in their order, and fast-forward over quiet cycles
 * (next_event / advance). */

RQ_API void rq_qos_tick(rq_qos *q)
{
    bool seg_wants, issued, handler_read;
    if (!q)
        return;
    /* scheduling-FIFO enqueue priority: handler (ACK) > segmenter > AXI writes > remote reads */
    rq__handler_s3(q);
    if (!rnic_ring_empty(&q->retx))
        rq__retransmit(q);    /* retransmissions go out ahead of new blocks */
    rq__stage3(q, &issued);
    rq__stage2(q, issued);
    seg_wants = rq__stage1_probe(q);                /* does stage 1 need the metadata read? */
    handler_read = rq__handler_s1_s2(q, seg_wants); /* the arbiter decides between the two */
    if (seg_wants) {
        if (handler_read) {
            q->stats.seg_stalls_arbiter++;
        } else {
            q->arb_handler_last = false;
            rq__stage1_commit(q);
        }
    }
    rq__write_stage(q);
    rq__remote_stage(q);
    rq__read_stage(q);
    rq__timeout_scan(q);
    rq__drain_returns(q);
    if (q->ids_done)
        rq__ids_ports_free(&q->ids); /* what rq_ids_tick does once the initializer is done */
    else
        rq_ids_tick(&q->ids);
    rnic_ssfifo_tick(&q->sched);
    q->enq_port_used = false;
    q->table_port_used = false;
    q->mh.s3_ran = 0u;
    q->mh.s1_ran = 0u;
    q->now++;
    q->stats.cycles++;
    if (!q->ids_done)
        q->ids_done = rq_ids_ready(&q->ids);
    if (rq__armed_head_due(q))
        rq__timers_due(q); /* (the test first: most cycles nothing falls due) */
}

/* Whether a tick now would change anything but stall counters, the scanner's position and
 * the clock ("quiet"), with what such a tick adds to the stall counters (*bresp_stalls,
 * *seg_stalls) and the cycles until an accepted input becomes ready (*wake, UINT64_MAX if
 * none). Mirrors rq_qos_tick's stages in their order; anything it does not recognise as a
 * wait on a full output or on new input counts as work. */
static bool rq__quiet(const rq_qos *q, uint64_t *wake, uint32_t *bresp_stalls, uint32_t *seg_stalls, uint32_t *tid_stalls)
{
    const rq__axi_beat *beat = (const rq__axi_beat *)rnic_ring_peek(&q->aw);
    const rq__axi_read *rd = (const rq__axi_read *)rnic_ring_peek(&q->rd);
    const uint32_t *retx = (const uint32_t *)rnic_ring_peek(&q->retx);
    bool tx_full = rnic_ring_full(&q->tx), pkt_full = rnic_ring_full(&q->pkt);
    *wake = UINT64_MAX;
    *bresp_stalls = *seg_stalls = *tid_stalls = 0;
    if (!rnic_ring_empty(&q->resp) || !rnic_ring_empty(&q->id_returns) || !rnic_ring_empty(&q->remote) ||
        q->mh.state != RQ__MH_READY || !rq_ids_ready(&q->ids))
        return false;
    if (retx) { /* the retransmission path waits only on its output */
        const rq__pend *pe = &q->pend[*retx];
        if (!pe->valid || !pe->retx_queued || pe->retries >= q->cfg.retry_limit)
            return false;
        if (!(q->xfer[pe->line].is_inline ? pkt_full : tx_full))
            return false;
    }
    if (q->s3_valid) {
        if (!tx_full)
            return false;
        (*seg_stalls)++;
    }
    if (q->s2.valid) {
        const rq__meta *m = &q->meta[q->s2.line];
        if (q->s2.wait || m->failed)
            return false;
        const rq__xfer *x = &q->xfer[q->s2.line];
        if (q->s2.queue == RQ_QUEUE_CONTROL || x->is_inline) {
            if (!pkt_full)
                return false;
            (*seg_stalls)++;
        } else {
            uint32_t block = m->block_num, tid;
            bool control;
            if (m->total == 0u)
                return false; /* stage 2's first look at a transfer writes its metadata */
            tid = rq__block_tid(q, x, m, block, q->s2.id);
            if (!q->pend[tid].valid) { /* (valid: cannot be, stage 1 waited at the tid_bitmap) */
                control = x->notify && block + 1u == m->total && (block - m->outstanding) + 1u == m->total;
                if (!(q->s3_valid || (block == 0u && tx_full) || (control && pkt_full)))
                    return false;
                (*seg_stalls)++;
            }
        }
    } else {
        /* stage 1: is there a queue it may dequeue from (its pool has an ID, or its head's
         * next TID is back)? */
        bool tid_wait = false;
        uint64_t found[2];
        if (rq__stage1_pick(q, &tid_wait, found) != RNIC_NONE)
            return false;
        *tid_stalls = tid_wait ? 1u : 0u;
    }
    if (beat) { /* the write-data stage waits for its beat's ready cycle or for room in B */
        if (rq__after(beat->ready, q->now))
            *wake = beat->ready - q->now;
        else if (rnic_ring_full(&q->b))
            (*bresp_stalls)++;
        else
            return false;
    }
    if (rd) {
        if (rq__after(rd->ready, q->now)) {
            if (rd->ready - q->now < *wake)
                *wake = rd->ready - q->now;
        } else if (!rnic_ring_full(&q->r)) {
            return false;
        }
    }
    return true;
}

/* The cycles from now to the next event (0: now, UINT64_MAX: none), and what a skipped cycle adds
 * to the stall counters. Distances, not cycles: an event due at 2^64 - 1 reads RNIC_NEVER as a
 * cycle, and fast-forward skipped over it (found by tests/fuzz/fuzz_qos.c). */
static uint64_t rq__next_event(const rq_qos *q, uint32_t *bresp_stalls, uint32_t *seg_stalls, uint32_t *tid_stalls)
{
    uint64_t wake, fire;
    if (!rq__quiet(q, &wake, bresp_stalls, seg_stalls, tid_stalls))
        return 0;
    fire = rq__next_timeout(q);
    return fire < wake ? fire : wake;
}

RQ_API uint64_t rq_qos_next_event(const rq_qos *q)
{
    uint32_t b, s, t;
    uint64_t gap;
    if (!q)
        return RNIC_NEVER;
    gap = rq__next_event(q, &b, &s, &t);
    return gap == UINT64_MAX ? RNIC_NEVER : q->now + gap;
}

/* Output ports that are full, one bit each. */
static uint32_t rq__full_outputs(const rq_qos *q)
{
    return (rnic_ring_full(&q->tx) ? 1u : 0u) | (rnic_ring_full(&q->pkt) ? 2u : 0u) | (rnic_ring_full(&q->b) ? 4u : 0u) |
           (rnic_ring_full(&q->r) ? 8u : 0u);
}

/* rnic__advance's three functions. skip: the quiet cycles up to the next event (at most `left`;
 * 0 when something happens now): the scanner moves (no entry is due before the gap's end), the
 * stalled stages count their stalls, nothing in the FIFOs carries over. */
static uint64_t rq__qos_skip(void *x, uint64_t left)
{
    rq_qos *q = (rq_qos *)x;
    uint32_t bresp_stalls, seg_stalls, tid_stalls;
    uint64_t gap = rq__next_event(q, &bresp_stalls, &seg_stalls, &tid_stalls);
    uint64_t skip = gap < left ? gap : left;
    if (!skip)
        return 0;
    q->scan = (uint32_t)((q->scan + skip) & (2u * q->cfg.ids.tids - 1u));
    rnic_ssfifo_tick(&q->sched);
    q->stats.bresp_stalls += skip * bresp_stalls;
    q->stats.seg_stalls_output += skip * seg_stalls;
    q->stats.seg_stalls_tid += skip * tid_stalls;
    q->now += skip;
    q->stats.cycles += skip;
    rq__timers_due(q);
    return skip;
}
static void rq__qos_tick_fn(void *x) { rq_qos_tick((rq_qos *)x); }
static uint32_t rq__qos_full(const void *x) { return rq__full_outputs((const rq_qos *)x); }

RQ_API uint64_t rq_qos_advance(rq_qos *q, uint64_t cycles)
{
    return q ? rnic__advance(q, cycles, rq__qos_skip, rq__qos_tick_fn, rq__qos_full, 0u) : 0u;
}

RQ_API uint64_t rq_qos_advance_to(rq_qos *q, uint64_t cycle)
{
    return q ? rq_qos_advance(q, rnic_cycles_until(q->now, cycle)) : 0;
}
