/* ratelimit.h: transmit.c -- eligibility (step 5) and the link: one packet at a time on an idle link, smallest finish first (step 6). */

/* Step 5: waiting descriptors whose start has come become eligible. */
static void rl__eligibility(rl *r)
{
    while (r->n_waiting && !rnic_ftime_before(r->T, r->desc[r->desc_waiting[0].slot].start))
        rl__ready_push(r, rl__dheap_pop(r, r->desc_waiting, &r->n_waiting, false));
}

/* Step 6. */
static void rl__transmit(rl *r)
{
    uint32_t i;
    rl__desc *d;
    rnic_work out;
    rl__qp *q;
    rnic_ftime now_t;
    if (!rl__reached(r->now, r->link_free) || r->n_ready == 0)
        return;
    if (rnic_ring_full(&r->tx)) {
        r->stats.tx_stalls++;
        return;
    }
    i = rl__ready_pop(r);
    d = &r->desc[i];
    out.cycle = r->now;
    out.addr = d->addr;
    out.raddr = d->raddr;
    out.tag = d->tag;
    out.flow = d->flow;
    out.index = d->index;
    out.offset = d->offset;
    out.len = d->len;
    out.flags = d->flags;
    out.op = d->op;
    out.status = d->status;
    out.aux = 0;
    rnic_ring_push_n(&r->tx, &out, sizeof out); /* a fixed-size move */
    RNIC__TRACE_REC(r, RNIC_TRACE_OUT, &out);
    now_t = rnic_ftime_at(r->now);
    if (rnic_ftime_before(r->link_t, now_t))
        r->link_t = now_t;
    rnic_ftime_add_bytes(&r->link_t, d->len, r->link_cpb);
    r->link_free = r->link_t.cycle; /* idle from the cycle in which this packet ends: the next
                                     * one continues on the wire at link_t, back to back */
    rnic_bitmap_clear(r->desc_used, i);
    r->desc_count--;
    if (r->desc_latest == i)
        r->desc_latest = RNIC_NONE;
    if (d->flags & RNIC_WORK_ERROR) {
        r->stats.error_records++;
        rnic_err_note(&r->stats.errors, (rnic_err)d->status);
    } else {
        r->stats.packets++;
        r->stats.bytes += d->len;
        if (r->flow_stats) {
            r->flow_stats[d->flow].packets++;
            r->flow_stats[d->flow].bytes += d->len;
        }
    }
    q = &r->qps[d->flow];
    rl__set_prev(q, d->start, d->len);
    q->outstanding--;
    if (q->outstanding == 0 && q->state == RL__DRAINING) {
        if (RL__QF(q, RL__QF_DOORBELL)) {
            RL__QF_SET(q, RL__QF_DOORBELL, 0);
            rl__enqueue_schedule(r, d->flow);
        } else {
            rl__deactivate(r, q);
        }
    }
}

