/* The message handler (thesis §3.11, Fig. 3.13): a three-state FSM -- S1 takes a response,
 * S2 reads its pending entry, S3 reads and updates the transfer's metadata -- one response per
 * three cycles at most. */

/* S3 (first in the cycle: its enqueue has the highest priority): apply an ACK. */
static void rq__handler_s3(rq_qos *q)
{
    rq__handler *h = &q->mh;
    rq__pend *pe;
    uint32_t line, acks, queue = RNIC_NONE;
    rq__meta *m;
    const rq__xfer *x;
    bool tid_back;
    if (h->state != RQ__MH_S3 || rq__after(h->next, q->now))
        return;
    pe = &q->pend[h->r.tid];
    line = pe->line;
    m = &q->meta[line];
    x = &q->xfer[line];
    tid_back = !x->cm || x->is_inline; /* non-CM TIDs return on every ACK */
    /* re-enqueue unless it is queued or in the segmenter already (the isInSchedFIFO bit) */
    if (m->block_num < m->total && !m->failed && !rnic_ssfifo_is_queued(&q->sched, line) &&
        !(q->s2.valid && q->s2.line == line))
        queue = rq__requeue_of(q, x);
    if (tid_back && rq__ids_give_back(&q->ids, RQ_POOL_TID, h->r.tid) == RNIC_EBUSY)
        return; /* the TID FIFO's enqueue port is taken: retry next cycle (nothing changed) */
    if (queue != RNIC_NONE && rnic_ssfifo_enqueue(&q->sched, queue, line) == RNIC_OK)
        q->enq_port_used = true;
    pe->valid = 0;
    rq__tid_back(q, h->r.tid);
    rq__timer_sync(q, h->r.tid);
    q->npending--;
    m->outstanding--;
    q->stats.acks++;
    RNIC__TRACE(q, RQ_QOS_TRACE_ACK, h->r.tid, line, h->r.seq);
    acks = m->block_num - m->outstanding;
    if (m->block_num == m->total && !m->failed) {
        if (acks == m->total && (!x->notify || m->control_sent)) {
            rq__finish(q, line, RQ_DONE);
        } else if (acks + 1u >= m->total && x->notify && m->last_issued && !m->control_sent &&
                   !rnic_ssfifo_is_queued(&q->sched, line) && !(q->s2.valid && q->s2.line == line) &&
                   !q->enq_port_used) {
            /* N - 1 ACKs in and the last block issued: the completion notification (§3.11);
             * with all N in, DONE waits until the control packet has left */
            if (rnic_ssfifo_enqueue(&q->sched, RQ_QUEUE_CONTROL, line) == RNIC_OK)
                q->enq_port_used = true;
        }
    }
    h->state = RQ__MH_READY;
    h->s3_ran = 1u; /* S3 was this cycle's state: the next response is taken from the next cycle */
}

/* S1 (accept) and S2 (the pending entry; an ACK then asks the arbiter for the metadata).
 * Returns true when it took the metadata read port this cycle. */
static bool rq__handler_s1_s2(rq_qos *q, bool segmenter_wants)
{
    rq__handler *h = &q->mh;
    rq__pend *pe;
    if (h->state == RQ__MH_READY) {
        if (!h->s3_ran && rnic_ring_pop_n(&q->resp, &h->r, sizeof h->r) == RNIC_OK) {
            h->state = RQ__MH_S2;
            h->s1_ran = 1u; /* the pending table's shared port is the handler's this cycle */
            h->next = q->now + 1u;
        }
        return false;
    }
    if (h->state != RQ__MH_S2 || rq__after(h->next, q->now))
        return false;
    pe = h->r.tid < 2u * q->cfg.ids.tids ? &q->pend[h->r.tid] : NULL;
    if (!pe || !pe->valid || pe->seq != h->r.seq) { /* unknown, stale or duplicate */
        (void)rq__note(q, !pe ? RNIC_ENOENT : RNIC_ESTALE, !pe ? RQ_QOS_REASON_RESPONSE_UNKNOWN : RQ_QOS_REASON_RESPONSE_STALE);
        RNIC__TRACE(q, RQ_QOS_TRACE_DROP, h->r.tid, (uint64_t)(!pe ? RNIC_ENOENT : RNIC_ESTALE), h->r.seq);
        h->state = RQ__MH_READY;
        return false;
    }
    if (!h->r.ack) { /* NACK: retransmit the block (beyond the thesis, §5) */
        q->stats.nacks++;
        RNIC__TRACE(q, RQ_QOS_TRACE_NACK, h->r.tid, pe->line, h->r.seq);
        if (!pe->retx_queued) {
            pe->retx_queued = 1;
            rq__timer_sync(q, h->r.tid);
            rq__retx_queue(q, h->r.tid);
        }
        h->state = RQ__MH_READY;
        return false;
    }
    if (!rq__arbiter_grant(q, true, segmenter_wants))
        return false; /* the segmenter is served this cycle: ask again next cycle */
    h->state = RQ__MH_S3;
    h->next = q->now + 1u;
    return true;
}
