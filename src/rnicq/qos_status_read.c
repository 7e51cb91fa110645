/* The AXI read slave (thesis §3.6, Fig. 3.6): status reads of one channel or of 32, one per
 * cycle, answered the next cycle; DONE and ERROR read back to IDLE. */

RQ_API rnic_err rq_qos_axi_read(rq_qos *q, uint32_t domain, uint32_t page, uint32_t index, uint32_t mode)
{
    rq__axi_read rd;
    if (!q)
        return RNIC_EINVAL;
    rd.ready = q->now + 1u;
    rd.domain = domain;
    rd.page = page;
    rd.index = index;
    rd.mode = mode;
    if (rnic_ring_push_n(&q->rd, &rd, sizeof rd) != RNIC_OK)
        return rq__refuse(q, RQ_QOS_REASON_AXI_READ_FULL, domain, ((uint64_t)page << 32) | index);
    RNIC__TRACE(q, RNIC_TRACE_PUSH, domain, ((uint64_t)page << 32) | index, mode);
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_pop_rdata(rq_qos *q, rq_axi_rdata *out)
{
    rnic_err e = q ? rq__pop_ring(q, &q->r, out, sizeof *out) : RNIC_EINVAL;
    if (e == RNIC_OK)
        RNIC__TRACE(q, RNIC_TRACE_POP, 0, out->data, (uint64_t)out->status);
    return e;
}

RQ_API rnic_err rq_qos_peek_rdata(const rq_qos *q, rq_axi_rdata *out) { return q ? rq__peek_ring(q, &q->r, out, sizeof *out) : RNIC_EINVAL; }

static void rq__read_stage(rq_qos *q)
{
    const rq__axi_read *head = (const rq__axi_read *)rnic_ring_peek(&q->rd);
    rq_axi_rdata out;
    rq_status st = RQ_IDLE;
    if (!head || rq__after(head->ready, q->now) || rnic_ring_full(&q->r))
        return;
    RNIC_MEMSET(&out, 0, sizeof out); /* the record's padding too: callers may compare records whole */
    out.cycle = q->now;
    if (head->mode == 0u) {
        out.status = rq_status_read_one(&q->status, head->domain, head->page, head->index, &st);
        out.data = (uint64_t)st;
    } else if (head->mode == 1u) {
        out.status = rq_status_read32(&q->status, head->domain, head->page, head->index, &out.data);
    } else {
        out.status = RNIC_EINVAL;
    }
    if (out.status != RNIC_OK)
        (void)rq__note(q, out.status, out.status == RNIC_EPERM    ? RQ_QOS_REASON_READ_PERM
                                      : out.status == RNIC_ENOENT ? RQ_QOS_REASON_READ_UNKNOWN
                                                                  : RQ_QOS_REASON_READ_MODE);
    q->stats.status_reads++;
    RNIC__TRACE(q, RNIC_TRACE_OUT, head->domain, out.data, (uint64_t)out.status);
    rnic_ring_pop(&q->rd, NULL);
    rnic_ring_push_n(&q->r, &out, sizeof out);
}
