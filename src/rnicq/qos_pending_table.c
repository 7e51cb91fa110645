/* The Pending Transactions Table (thesis §3.5): one entry per TID in flight, the timeout
 * scanner that visits one entry per cycle through the port it shares with the handler's S1,
 * and the model's bookkeeping of when the next timeout fires (for fast-forward).
 *
 * Timeout bookkeeping (fast-forward only: the timeout scanner itself is unchanged): an entry is
 * armed while valid, taken by the send unit and not queued for retransmission; it is due from
 * cycle issued + timeout on, and the scanner times it out at its first visit from then on.
 * Entries are armed only when the send unit takes them (issued = now), so arming order is due
 * order: a list (O(1) append and unlink) holds those not yet due; at the end of each cycle the
 * ones now due move to due_map, where the scanner will find them. next_event reads the next
 * timeout from both in O(1) plus a bitmap search (rq__next_timeout). */

RQ__HOT void rq__disarm(rq_qos *q, uint32_t tid)
{
    rq__pend *pe = &q->pend[tid];
    if (pe->armed == RQ__ARMED_LIST) {
        if (pe->armed_prev != RNIC_NONE)
            q->pend[pe->armed_prev].armed_next = pe->armed_next;
        else
            q->armed_head = pe->armed_next;
        if (pe->armed_next != RNIC_NONE)
            q->pend[pe->armed_next].armed_prev = pe->armed_prev;
        else
            q->armed_tail = pe->armed_prev;
        pe->armed_prev = pe->armed_next = RNIC_NONE;
    } else if (pe->armed == RQ__ARMED_DUE) {
        rnic_bitmap_clear(q->due_map, tid);
        q->ndue--;
    }
    pe->armed = RQ__ARMED_NO;
}

/* After any change to pend[tid]. */
RQ__HOT void rq__timer_sync(rq_qos *q, uint32_t tid)
{
    rq__pend *pe = &q->pend[tid];
    uint64_t due;
    if (!(pe->valid && pe->taken && !pe->retx_queued)) {
        if (pe->armed != RQ__ARMED_NO) /* (a new entry, not yet taken, is not armed: no call) */
            rq__disarm(q, tid);
        return;
    }
    due = pe->issued + q->timeout;
    if (pe->armed != RQ__ARMED_NO && pe->due == due)
        return;
    rq__disarm(q, tid);
    pe->due = due;
    /* arming happens when the send unit takes the entry (issued = now): due = now + timeout is
     * in the future and no armed entry is due later, so the list stays in due order */
    RNIC_ASSERT(rq__after(due, q->now));
    RNIC_ASSERT(q->armed_tail == RNIC_NONE || !rq__after(q->pend[q->armed_tail].due, due));
    pe->armed_prev = q->armed_tail;
    pe->armed_next = RNIC_NONE;
    if (q->armed_tail != RNIC_NONE)
        q->pend[q->armed_tail].armed_next = tid;
    else
        q->armed_head = tid;
    q->armed_tail = tid;
    pe->armed = RQ__ARMED_LIST;
}

/* The earliest armed entry not yet in due_map is due by now. */
static bool rq__armed_head_due(const rq_qos *q)
{
    return q->armed_head != RNIC_NONE && !rq__after(q->pend[q->armed_head].due, q->now);
}

/* End of a cycle (or of a skipped stretch): entries due by `now` move to due_map. */
static void rq__timers_due(rq_qos *q)
{
    while (rq__armed_head_due(q)) {
        uint32_t tid = q->armed_head;
        rq__disarm(q, tid);
        rnic_bitmap_set(q->due_map, tid);
        q->ndue++;
        q->pend[tid].armed = RQ__ARMED_DUE;
    }
}

/* The cycles from now to the next timeout if the scanner moves every cycle from now on (true in a quiet
 * stretch: only the handler's S1 makes it wait), or a lower bound of it; RNIC_NEVER if none. The
 * scanner stands on (scan + c - now) mod n at cycle c. Due entries: the first set bit from the
 * scanner on. Not yet due: the earliest one's first visit from its due cycle on, exact; any other
 * fires no earlier than its own due cycle, so the second one's due cycle bounds the rest (there
 * both have moved to due_map and the answer is exact again). */
static uint64_t rq__next_timeout(const rq_qos *q)
{
    uint64_t n = 2u * q->cfg.ids.tids, gap = UINT64_MAX, g;
    uint32_t h = q->armed_head;
    if (q->ndue) {
        uint32_t i = rnic_bitmap_ffs_from(q->due_map, (uint32_t)n, q->scan);
        gap = ((uint64_t)i - q->scan) & (n - 1u);
    }
    if (h != RNIC_NONE) {
        const rq__pend *pe = &q->pend[h];
        g = (pe->due - q->now) + (((uint64_t)h - (q->scan + (pe->due - q->now))) & (n - 1u));
        if (g < gap)
            gap = g;
        if (pe->armed_next != RNIC_NONE && q->pend[pe->armed_next].due - q->now < gap)
            gap = q->pend[pe->armed_next].due - q->now;
    }
    return gap;
}

/* One pending entry per cycle (§2: 1,024 entries per sweep), through the Pending Transactions
 * Table's port it shares with the message handler (§3.5: "Arbitration to this memory's ports will
 * be required when the Timeout FSM is implemented"): in a cycle in which S1 reads the table the
 * scanner waits on its entry (the handler first: a response in hand must not wait). */
static void rq__timeout_scan(rq_qos *q)
{
    rq__pend *pe = &q->pend[q->scan];
    if (q->mh.s1_ran) {
        q->stats.scan_waits++;
        return;
    }
    /* the bookkeeping agrees with the scanner: an armed entry is in due_map exactly when due, so
     * the map answers the scanner's test (without reading the entry while none is due) */
    RNIC_ASSERT((pe->armed == RQ__ARMED_DUE) == (pe->valid && pe->taken && !pe->retx_queued && q->now - pe->issued >= q->timeout));
    if (q->ndue && rnic_bitmap_test(q->due_map, q->scan)) {
        pe->retx_queued = 1;
        rq__timer_sync(q, q->scan);
        rq__retx_queue(q, q->scan);
        q->stats.timeouts++;
        RNIC__TRACE(q, RQ_QOS_TRACE_TIMEOUT, q->scan, pe->line, pe->seq);
    }
    q->scan = q->scan + 1u == 2u * q->cfg.ids.tids ? 0u : q->scan + 1u;
}
