/* ratelimit.h: fetch_and_drop.c -- the fetch-and-drop scheduler (Fig. 5): a returned fetch cuts packets, keeps the m urgent ones, drops the rest and reschedules the flow. */

/* Packets the fetched WQEs from entry wi at byte offset off still hold, counted up to `cap`
 * (a bad entry is one error record) -- what the cut loop would cut without storing them. */
static uint32_t rl__packets_left(const rl *r, uint32_t wi, uint32_t w, uint32_t off, uint32_t cap)
{
    uint32_t count = 0;
    for (; wi < w && count < cap; wi++, off = 0) {
        const rnic_work *e = &r->fetched[wi];
        if ((e->flags & RNIC_WORK_ERROR) || e->len == 0 || e->len > RL__MAX_WQE || off >= e->len)
            count++;
        else
            count += (e->len - off - 1u) / r->cfg.mtu + 1u; /* ceil; 32-bit: len <= 2^31 */
    }
    return count < cap ? count : cap;
}

/* Step 2: a round for flow qpi, whose WQE fetch completed this cycle. Cuts packets from the
 * cursor and stores the urgent ones; the first packet not stored ends the work: the packets
 * after it would be cut and dropped, so they are only counted (rl__packets_left). */
static void rl__round(rl *r, uint32_t qpi)
{
    rl__qp *q = &r->qps[qpi];
    uint32_t n = r->cfg.fetch_wqes, w, wi = 0, off, p = 0, m = 0, slot;
    rnic_ftime t, last_start;
    bool stopped = false;

    if (RL__QF(q, RL__QF_PAUSED)) { /* paused while its fetch was in flight: the answer is not used */
        rl__park(r, qpi);
        return;
    }
    r->stats.fetches++;
    RL__QF_SET(q, RL__QF_DOORBELL, 0);
    w = r->cfg.source(r->cfg.source_user, qpi, q->index, r->fetched, n);
    if (w > n) { /* a source that answers more than asked breaks its contract: use the ask, count it */
        r->stats.source_overrun++;
        w = n;
    }
    r->stats.wqes_fetched += w;
    off = q->offset;
    t = last_start = rl__finish(q);
    /* Not oversubscribed (T is real time): a QP starved beyond the lookahead could make up its
     * lag only above its rate, so it replays none of it. Under Phi > 1 the lag is unserved share,
     * which WF2Q+ gives back (docs/tassel_model.md, "A QP's lag"). */
    if (r->phi <= RNIC_Q32_ONE) {
        rnic_ftime floor = rl__lag_floor(r);
        if (rnic_ftime_before(t, floor)) {
            t = last_start = floor;
            r->stats.lag_floored++;
        }
    }
    while (p < n && wi < w) { /* cut at most n packets (an error record counts as one) */
        const rnic_work *e = &r->fetched[wi];
        uint32_t len, flags = off == 0 ? RNIC_WORK_FIRST : 0u;
        int32_t status = 0;
        bool last;
        rl__desc *d;
        if (e->flags & RNIC_WORK_ERROR)
            status = e->status > 0 && e->status < (int32_t)RNIC_ERR__COUNT ? e->status : (int32_t)RNIC_EINVAL;
        else if (e->len == 0 || e->len > RL__MAX_WQE || off >= e->len)
            status = (int32_t)RNIC_EINVAL;
        if (status) {
            len = 0;
            last = true;
            flags |= RNIC_WORK_LAST | RNIC_WORK_ERROR;
        } else {
            uint32_t left = e->len - off;
            len = left < r->cfg.mtu ? left : r->cfg.mtu;
            last = len == left;
            flags |= last ? RNIC_WORK_LAST : 0u;
        }
        slot = RNIC_NONE;
        if (rnic_ftime_before(t, r->A_mono)) { /* urgent: a free slot, else (ranked) a later finish's */
            slot = rl__desc_free_slot(r);
            if (slot == RNIC_NONE && rl__ranked_mode(r)) {
                rnic_ftime f = t;
                rnic_ftime_add_bytes(&f, len, q->cpb);
                slot = rl__evict_later(r, f);
            }
            if (slot == RNIC_NONE)
                r->stats.desc_full++; /* urgent, but the buffer is full */
        }
        if (slot == RNIC_NONE) { /* not urgent, or no room: this packet and the rest are dropped */
            stopped = true;
            break;
        }
        last_start = t;
        d = &r->desc[slot];
        d->start = t;
        rnic_ftime_add_bytes(&t, len, q->cpb);
        d->finish = t;
        d->number = r->desc_numbers++;
        d->addr = e->addr + off;
        d->raddr = e->raddr + off;
        d->tag = e->tag;
        d->flow = qpi;
        d->index = q->index;
        d->offset = off;
        d->len = len;
        d->flags = flags;
        d->op = e->op;
        d->status = status;
        rnic_bitmap_set(r->desc_used, slot);
        if (r->desc_latest != RNIC_NONE && rl__desc_less(r, true, r->desc_latest, slot))
            r->desc_latest = slot;
        if (rnic_ftime_before(r->T, d->start)) /* it waits for T to reach its start (step 5) */
            rl__dheap_push(r, r->desc_waiting, &r->n_waiting, false, slot);
        else /* already eligible: where step 5 of this tick would put it (the ring's order does
              * not depend on the order of its pushes) */
            rl__ready_push(r, slot);
        r->desc_count++;
        q->outstanding++;
        q->offset = last ? 0 : off + len;
        q->index += last;
        m++;
        p++;
        if (last) {
            wi++;
            off = 0;
        } else {
            off += len;
        }
    }
    rl__set_finish(q, t);
    if (stopped) /* the packets the cut would have computed and dropped: the stopped one and those after it */
        p += rl__packets_left(r, wi, w, off, n - p);
    r->stats.packets_computed += p;
    r->stats.packets_dropped += p - m;
    RNIC__TRACE(r, RL_TRACE_ROUND, qpi, m, p);
    /* data beyond the stored packets: a cut packet not stored, uncut bytes of fetched WQEs,
     * or a full fetch (the source may hold more) */
    if (!(stopped || wi < w || w == n)) {
        if (q->outstanding)
            q->state = RL__DRAINING;
        else
            rl__deactivate(r, q);
        return;
    }
    /* reschedule = max(start_i, A_mono), i = min(m + 1, p): the first packet not stored, else
     * the last one stored (p >= 1 here: a full fetch or WQEs left means something was cut) */
    rl__reschedule(r, qpi, stopped ? t : last_start);
}

