/* Retransmission (beyond the thesis, its §5): blocks timed out by the scanner or NACKed go out
 * again ahead of new blocks; after retry_limit the transfer fails (status ERROR). */

static void rq__fail_transfer(rq_qos *q, uint32_t line)
{
    uint32_t i;
    rq__meta *m = &q->meta[line];
    const rq__xfer *x = &q->xfer[line];
    for (i = 0; i < 2u * q->cfg.ids.tids; i++) /* its blocks in flight are forgotten */
        if (q->pend[i].valid && q->pend[i].line == line) {
            q->pend[i].valid = 0;
            rq__tid_back(q, i);
            rq__timer_sync(q, i);
            q->npending--;
            if (!x->cm || x->is_inline)
                rq__defer_return(q, RQ_POOL_TID, i);
        }
    if (q->s3_valid && q->s3.transfer == line)
        q->s3_valid = false; /* its block waiting in stage 3 too: its entry (and TID) went above, and
                                emitting it after the transfer's end would send a block that no
                                pending entry covers, on a TID already given back */
    m->failed = 1;
    m->outstanding = 0;
    rq__finish(q, line, RQ_ERROR);
}

/* A TID into the retransmission queue, once: if it is still there from an entry that was
 * acknowledged or failed meanwhile, that place serves the TID's new entry (so the queue, 2 x tids
 * deep, never overflows). */
static void rq__retx_queue(rq_qos *q, uint32_t tid)
{
    if (!q->pend[tid].in_retx) {
        q->pend[tid].in_retx = 1;
        rnic_ring_push(&q->retx, &tid); /* at most one place per TID: never full */
    }
}

static void rq__retransmit(rq_qos *q)
{
    const uint32_t *head = (const uint32_t *)rnic_ring_peek(&q->retx);
    uint32_t tid;
    rq__pend *pe;
    rq_transfer t;
    if (!head)
        return;
    tid = *head;
    pe = &q->pend[tid];
    if (!pe->valid || !pe->retx_queued) {
        /* acknowledged or failed meanwhile: the TID may already carry a new block, which nothing
         * asked to retransmit (found by tests/fuzz/fuzz_qos.c: it went again with a new number,
         * and counted a retry against a transfer that had none) */
        rnic_ring_pop(&q->retx, NULL);
        pe->in_retx = 0;
        return;
    }
    if (pe->retries >= q->cfg.retry_limit) {
        rnic_ring_pop(&q->retx, NULL);
        pe->in_retx = 0;
        pe->retx_queued = 0;
        rq__fail_transfer(q, pe->line);
        return;
    }
    if (q->xfer[pe->line].is_inline) {
        rq_packet pk;
        if (rnic_ring_full(&q->pkt))
            return;
        rq__decode_line(q, pe->line, &t); /* the payload */
        RNIC_MEMSET(&pk, 0, sizeof pk);
        pk.cycle = q->now;
        pk.kind = RQ_PKT_INLINE;
        pk.dst = t.dst;
        pk.size = (uint32_t)t.size;
        pk.tid = tid;
        pk.transfer = pe->line;
        pk.domain = pe->line / q->channels;
        pk.index = q->meta[pe->line].index;
        pk.retransmit = 1;
        RNIC_MEMCPY(pk.payload, t.payload, sizeof pk.payload);
        pe->seq = (uint16_t)rq__next_seq(q);
        pk.seq = pe->seq;
        rq__emit_packet(q, &pk);
    } else {
        rq_block_desc b;
        if (rnic_ring_full(&q->tx))
            return;
        rq__fill_block(q, &q->xfer[pe->line], pe->line, pe->block, &b);
        b.tid = tid;
        pe->seq = (uint16_t)rq__next_seq(q);
        b.seq = pe->seq;
        b.retransmit = 1;
        rq__emit_block(q, &b);
    }
    pe->issued = q->now;
    pe->taken = 0; /* the timeout restarts when the send unit takes it */
    pe->retries++;
    pe->retx_queued = 0;
    rq__timer_sync(q, tid);
    q->stats.retransmits++;
    RNIC__TRACE(q, RQ_QOS_TRACE_RETRANSMIT, tid, pe->line, pe->seq);
    rnic_ring_pop(&q->retx, NULL);
    pe->in_retx = 0;
}
