/* Remote read requests (thesis §3.11): placed by the handler in a free read channel of their
 * domain, written one line per cycle through Transfer Table port 0 (after the AXI writes). */

RQ_API rnic_err rq_qos_push_remote_read(rq_qos *q, uint32_t domain, const rq_transfer *t)
{
    rq__remote_read rr;
    if (!q)
        return RNIC_EINVAL;
    if (domain >= q->cfg.domains)
        return rq__refuse(q, RQ_QOS_REASON_REMOTE_READ_DOMAIN, domain, t ? t->src : 0);
    if (!t || rq_desc_encode(t, rr.lines, rr.lines + 4) != RNIC_OK ||
        (t->kind == RQ_KIND_REGULAR && (t->dst > UINT64_MAX - t->size || t->src > UINT64_MAX - t->size)))
        return rq__refuse(q, RQ_QOS_REASON_REMOTE_READ_INVALID, domain, t ? t->src : 0);
    if (rq__fid_pool_missing(q, t))
        return rq__refuse(q, RQ_QOS_REASON_REMOTE_READ_NO_FID, domain, t->src);
    rr.domain = domain;
    rr.nlines = rq_desc_lines(rr.lines[3]);
    if (rnic_ring_push(&q->remote, &rr) != RNIC_OK)
        return rq__refuse(q, RQ_QOS_REASON_REMOTE_READ_FULL, domain, t->src);
    RNIC__TRACE(q, RNIC_TRACE_PUSH, domain, t->src, t->size);
    return RNIC_OK;
}

/* The handler, in a cycle in which it is in its ready state and takes no response, places the
 * oldest remote read request: it reserves the first free read channel(s) of the request's domain,
 * writes the descriptor through Transfer Table port 0, one line per cycle in which the AXI write
 * stage writes none (§3.1: port 0 takes the local and the remote CPUs' descriptor writes; local
 * first), and enqueues it with its last line (the lowest enqueue priority). */
static void rq__remote_stage(rq_qos *q)
{
    const rq__remote_read *rr = (const rq__remote_read *)rnic_ring_peek(&q->remote);
    uint32_t base, ch, line = q->remote_line;
    rq_transfer t;
    bool last;
    if (!rr || q->mh.state != RQ__MH_READY || q->mh.s3_ran)
        return;
    if (line == RNIC_NONE) {
        base = rr->domain * q->channels;
        for (ch = q->cfg.write_channels; ch + rr->nlines <= q->channels; ch++)
            if (!q->occupied[base + ch] && (rr->nlines == 1u || !q->occupied[base + ch + 1u])) {
                line = base + ch;
                break;
            }
        if (line == RNIC_NONE) {
            q->stats.remote_waits++;
            return;
        }
        q->remote_line = line; /* reserved: read channels take no AXI writes */
        q->remote_written = 0;
        q->occupied[line] = RQ__LINE_FIRST;
        if (rr->nlines == 2u)
            q->occupied[line + 1u] = RQ__LINE_SECOND;
    }
    if (q->table_port_used) {
        q->stats.table_port_waits++;
        q->stats.remote_waits++;
        return;
    }
    last = q->remote_written + 1u == rr->nlines; /* the last line goes with the enqueue */
    if (last) {
        rq_desc_decode(rr->lines, rr->nlines == 2u ? rr->lines + 4 : NULL, &t);
        if (q->enq_port_used || rnic_ssfifo_enqueue(&q->sched, rq_qos_queue_of(q, &t), line) != RNIC_OK) {
            q->stats.remote_waits++;
            return;
        }
        q->enq_port_used = true;
    }
    RNIC_MEMCPY(&q->table[(size_t)(line + q->remote_written) * 4u], rr->lines + 4u * q->remote_written, 4u * sizeof(uint64_t));
    q->table_port_used = true;
    q->remote_written++;
    if (!last)
        return;
    rq__meta_start(&q->meta[line]);
    rq__xfer_set(q, line, &t, rr->nlines);
    q->remote_line = RNIC_NONE;
    q->stats.remote_reads++;
    q->stats.transfers_enqueued++;
    RNIC__TRACE(q, RQ_QOS_TRACE_REMOTE, line, rq_qos_queue_of(q, &t), q->meta[line].index);
    rnic_ring_pop(&q->remote, NULL);
}
