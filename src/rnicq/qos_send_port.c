/* The engine's network side: the transaction port to the send unit (blocks), the Packet queue
 * (inline, control, retransmitted packets) and the response port (ACKs and NACKs in). */

RQ_API rnic_err rq_qos_push_response(rq_qos *q, const rq_response *r)
{
    if (!q)
        return RNIC_EINVAL;
    if (!r)
        return rq__refuse(q, RQ_QOS_REASON_NULL, 0, 0);
    if (rnic_ring_push_n(&q->resp, r, sizeof *r) != RNIC_OK)
        return rq__refuse(q, RQ_QOS_REASON_RESPONSE_FULL, r->tid, r->seq);
    RNIC__TRACE(q, RNIC_TRACE_PUSH, r->tid, r->seq, r->ack);
    return RNIC_OK;
}

/* The timeout counts from when the send unit takes a block (or an inline packet), not from when
 * the segmenter queued it: a backlog in front of the send unit is not a lost block. */
static void rq__taken_by_send_unit(rq_qos *q, uint32_t tid, uint32_t seq, uint32_t line, uint32_t index, uint32_t block)
{
    /* the TID and number name the entry, but a short sequence space (seq_bits 2 or 3) lets a
     * stale copy (its entry acknowledged or failed, the TID reused) carry the new entry's number:
     * the block must be the entry's own too, else the new block's timeout would start early
     * (found by tests/fuzz/fuzz_qos.c) */
    if (tid < 2u * q->cfg.ids.tids && q->pend[tid].valid && q->pend[tid].seq == seq && q->pend[tid].line == line &&
        q->pend[tid].block == block && q->meta[line].index == index) {
        q->pend[tid].issued = q->now;
        q->pend[tid].taken = 1;
        rq__timer_sync(q, tid);
    }
}

static void rq__block_to_work(const rq_block_desc *b, rnic_work *w)
{
    w->tag = 0; /* every field is written: an AXI descriptor carries no tag */
    w->status = 0;
    w->cycle = b->cycle;
    w->addr = b->src;
    w->raddr = b->dst;
    w->flow = b->transfer;
    w->index = b->index;
    w->offset = b->offset;
    w->len = b->size;
    w->op = 0; /* the caller's field: the engine puts nothing there (the number is in flags) */
    w->aux = b->tid;
    w->flags = (b->block == 0u ? RNIC_WORK_FIRST : 0u) | (b->last ? RNIC_WORK_LAST : 0u) |
               (b->retransmit ? RQ_WORK_RETRANSMIT : 0u) | (b->notify ? RQ_WORK_NOTIFY : 0u) |
               (b->chained ? RQ_WORK_CHAINED : 0u) | (b->has_next ? RQ_WORK_HAS_NEXT : 0u) | (b->cm ? RQ_WORK_CM : 0u) |
               (b->seq << RQ_WORK_SEQ_SHIFT);
}

RQ_API rnic_err rq_qos_peek_block(const rq_qos *q, rnic_work *out)
{
    const rq_block_desc *b;
    if (!q)
        return RNIC_EINVAL;
    if (!out)
        return rq__peek_null(q);
    b = (const rq_block_desc *)rnic_ring_peek(&q->tx);
    if (!b)
        return RNIC_EEMPTY;
    rq__block_to_work(b, out);
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_pop_block(rq_qos *q, rnic_work *out)
{
    rnic_err e = rq_qos_peek_block(q, out); /* a NULL record is counted there */
    if (e == RNIC_OK) {
        uint32_t block = ((const rq_block_desc *)rnic_ring_peek(&q->tx))->block;
        rnic_ring_pop(&q->tx, NULL);
        RNIC__TRACE_REC(q, RNIC_TRACE_POP, out);
        rq__taken_by_send_unit(q, out->aux, RQ_WORK_SEQ(out->flags), out->flow, out->index, block);
    }
    return e;
}

RQ_API rnic_err rq_qos_peek_packet(const rq_qos *q, rq_packet *out) { return q ? rq__peek_ring(q, &q->pkt, out, sizeof *out) : RNIC_EINVAL; }

RQ_API rnic_err rq_qos_pop_packet(rq_qos *q, rq_packet *out)
{
    rnic_err e;
    if (q && out && rnic_ring_empty(&q->pkt))
        return RNIC_EEMPTY; /* (the common answer, without the copy's call) */
    e = q ? rq__pop_ring(q, &q->pkt, out, sizeof *out) : RNIC_EINVAL;
    if (e == RNIC_OK) {
        RNIC__TRACE(q, RNIC_TRACE_POP, out->transfer, out->index, out->size);
        if (out->kind == RQ_PKT_INLINE)
            rq__taken_by_send_unit(q, out->tid, out->seq, out->transfer, out->index, 0);
    }
    return e;
}

RQ_API rnic_err rq_qos_block_info(const rq_qos *q, const rnic_work *w, rq_block_desc *out)
{
    uint64_t dst0;
    if (!q || !w || !out || w->flow >= q->lines)
        return RNIC_EINVAL;
    RNIC_MEMSET(out, 0, sizeof *out);
    out->cycle = w->cycle;
    out->src = w->addr;
    out->dst = w->raddr;
    out->size = w->len;
    out->tid = w->aux;
    out->seq = RQ_WORK_SEQ(w->flags);
    out->transfer = w->flow;
    out->domain = w->flow / q->channels;
    out->offset = w->offset;
    out->index = w->index;
    /* block k > 0 starts at a receiver block boundary: (dst0 mod BLOCK + offset) / BLOCK = k */
    dst0 = w->raddr - w->offset;
    out->block = (uint32_t)(((dst0 & (q->cfg.block_bytes - 1u)) + w->offset) >> q->block_shift);
    out->retransmit = (w->flags & RQ_WORK_RETRANSMIT) != 0;
    out->notify = (w->flags & RQ_WORK_NOTIFY) != 0;
    out->chained = (w->flags & RQ_WORK_CHAINED) != 0;
    out->has_next = (w->flags & RQ_WORK_HAS_NEXT) != 0;
    out->cm = (w->flags & RQ_WORK_CM) != 0;
    out->last = (w->flags & RNIC_WORK_LAST) != 0;
    return RNIC_OK;
}
