/* The Transfer Segmenter (thesis §3.9, Fig. 3.9): a three-stage pipeline, one block per cycle.
 * Stage 1 picks a scheduling queue (IDs free, the flow's next TID back: the tid_bitmap) and
 * dequeues; stage 2 updates the metadata, re-enqueues and issues the first block (bypass);
 * stage 3 computes a block's addresses and writes its descriptor to the send unit. */

/* Whether dequeuing from queue qi takes a new ID, and from which pool: TID-only a TID,
 * no-FID queues a FID (1x) or a group (4x); control and have-FID queues none. */
static bool rq__queue_takes_id(const rq_qos *q, uint32_t qi, rq_id_pool *pool)
{
    if (rq__queue_is(q, RQ__CLASS_TAKES_TID, qi))
        *pool = RQ_POOL_TID;
    else if (rq__queue_is(q, RQ__CLASS_TAKES_FID1, qi))
        *pool = RQ_POOL_FID1;
    else if (rq__queue_is(q, RQ__CLASS_TAKES_FID4, qi))
        *pool = RQ_POOL_FID4;
    else
        return false;
    return true;
}

static void rq__stage3(rq_qos *q, bool *issued)
{
    *issued = false;
    if (!q->s3_valid)
        return;
    if (rnic_ring_full(&q->tx)) {
        q->stats.seg_stalls_output++;
        return;
    }
    q->s3.cycle = q->now;
    rq__emit_block(q, &q->s3);
    q->s3_valid = false;
    q->stats.blocks++;
    *issued = true;
}

/* A packet of the transfer on `line` leaving stage 2 now: its record with the fields every
 * packet has (the rest 0). */
static void rq__packet_start(const rq_qos *q, uint32_t line, rq_packet *pk)
{
    RNIC_MEMSET(pk, 0, sizeof *pk);
    pk->cycle = q->now;
    pk->transfer = line;
    pk->domain = line / q->channels;
    pk->index = q->meta[line].index;
}

/* Stage 2: everything is checked first; nothing changes unless the whole step can happen. */
static void rq__stage2(rq_qos *q, bool stage3_issued)
{
    rq__stage2_reg *s = &q->s2;
    rq_transfer t;
    rq__meta *m;
    const rq__xfer *x;
    rq_packet pk;
    uint32_t line, tid, block, seq, requeue = RNIC_NONE;
    bool control = false, bypass;
    if (!s->valid)
        return;
    if (s->wait) { /* a second descriptor line costs one more Transfer Table read */
        s->wait--;
        return;
    }
    line = s->line;
    m = &q->meta[line];
    x = &q->xfer[line];
    if (s->queue == RQ_QUEUE_CONTROL) { /* a completion notification */
        if (m->failed) { /* the transfer failed after its notification was queued: it did not
                            complete, and it has its one ending (ERROR) already (found by
                            tests/fuzz/fuzz_qos.c: a control packet and a second, DONE, ending) */
            s->valid = 0;
            rq__release_held(q, line); /* its last entry: the lines are free now */
            return;
        }
        if (rnic_ring_full(&q->pkt)) {
            q->stats.seg_stalls_output++;
            return;
        }
        rq__decode_line(q, line, &t);
        rq__packet_start(q, line, &pk);
        pk.kind = RQ_PKT_CONTROL;
        pk.dst = t.dst;
        pk.notify_target = t.notify_target;
        pk.tid = m->last_tid;
        pk.seq = m->last_seq;
        rq__emit_packet(q, &pk);
        m->control_sent = 1;
        q->stats.control_packets++;
        s->valid = 0;
        if (m->block_num == m->total && m->outstanding == 0u) /* every ACK came first */
            rq__finish(q, line, RQ_DONE);
        return;
    }
    if (m->failed) { /* the transfer failed while queued: give its new ID back, issue nothing */
        rq_id_pool pool;
        if (rq__queue_takes_id(q, s->queue, &pool))
            rq__defer_return(q, pool, s->id);
        s->valid = 0;
        rq__release_held(q, line); /* its last entry: the lines are free now */
        return;
    }
    if (x->is_inline) {
        if (rnic_ring_full(&q->pkt)) {
            q->stats.seg_stalls_output++;
            return;
        }
        rq__decode_line(q, line, &t); /* the payload */
        rq__packet_start(q, line, &pk);
        pk.kind = RQ_PKT_INLINE;
        pk.dst = t.dst;
        pk.size = (uint32_t)t.size;
        pk.tid = s->id;
        pk.seq = rq__next_seq(q);
        RNIC_MEMCPY(pk.payload, t.payload, sizeof pk.payload);
        rq__emit_packet(q, &pk);
        m->total = 1;
        m->block_num = 1;
        m->outstanding = 1;
        m->last_issued = 1;
        m->last_tid = (uint16_t)s->id;
        m->last_seq = (uint16_t)pk.seq;
        seq = pk.seq;
        tid = s->id;
        block = 0;
        q->stats.inline_packets++;
    } else {
        rq_block_desc b;
        if (m->block_num == 0u) { /* the first block: the transfer's metadata start here */
            m->total = x->total;
            if (x->cm) {
                m->fid = (uint16_t)s->id;
                m->has_fid = 1;
            }
        }
        block = m->block_num;
        tid = rq__block_tid(q, x, m, block, s->id);
        RNIC_ASSERT(!q->pend[tid].valid); /* stage 1 waited for it (tid_bitmap) */
        control = x->notify && block + 1u == m->total && (block - m->outstanding) + 1u == m->total;
        if (block + 1u < m->total && m->outstanding + 1u < q->cfg.max_outstanding)
            requeue = rq__requeue_of(q, x);
        bypass = block == 0u && !stage3_issued && !q->s3_valid;
        if ((bypass ? rnic_ring_full(&q->tx) : q->s3_valid) || (control && rnic_ring_full(&q->pkt))) {
            q->stats.seg_stalls_output++;
            return;
        }
        if (requeue != RNIC_NONE && q->enq_port_used) {
            q->stats.seg_stalls_enqueue++;
            return;
        }
        if (requeue != RNIC_NONE && rnic_ssfifo_enqueue(&q->sched, requeue, line) != RNIC_OK) {
            q->stats.seg_stalls_enqueue++;
            return;
        }
        if (requeue != RNIC_NONE)
            q->enq_port_used = true;
        rq__fill_block(q, x, line, block, &b);
        b.tid = tid;
        b.seq = rq__next_seq(q);
        if (bypass) { /* the first block leaves from stage 2 (stage-3 bypass) */
            rq__emit_block(q, &b);
            q->stats.blocks++;
        } else {
            q->s3 = b;
            q->s3_valid = true;
        }
        m->block_num++;
        m->outstanding++;
        if (block + 1u == m->total) {
            m->last_issued = 1;
            m->last_tid = (uint16_t)tid;
            m->last_seq = (uint16_t)b.seq;
        }
        seq = b.seq;
        if (control) { /* the last block with N - 1 ACKs in: the notification goes too */
            rq__packet_start(q, line, &pk);
            pk.seq = b.seq;
            pk.kind = RQ_PKT_CONTROL;
            pk.dst = rq__dst_of(q, line);
            pk.notify_target = q->table[(size_t)(line + 1u) * 4u]; /* line 1, word 0 */
            pk.tid = tid;
            rq__emit_packet(q, &pk);
            m->control_sent = 1;
            q->stats.control_packets++;
        }
    }
    q->pend[tid].valid = 1;
    q->pend[tid].issued = q->now;
    q->pend[tid].line = line;
    q->pend[tid].block = block;
    q->pend[tid].seq = (uint16_t)seq;
    q->pend[tid].retries = 0;
    q->pend[tid].retx_queued = 0;
    q->pend[tid].taken = 0;
    rq__timer_sync(q, tid);
    q->npending++;
    s->valid = 0;
}

/* The TID of the tid_bitmap wait of queue qi's head. */
static uint32_t rq__next_tid_of(const rq_qos *q, uint32_t qi)
{
    const rq__meta *m = &q->meta[rnic_ssfifo_peek(&q->sched, qi)];
    return rq__queue_is(q, RQ__CLASS_MULTIPATH, qi) ? rq_tid_multipath(&q->ids, m->fid, m->block_num)
                                                   : rq_tid_unipath(&q->ids, m->fid, m->block_num);
}

/* tid_bitmap (§3.2): the head transfer of a have-FID queue may go on only when its flow's next
 * TID is back (its previous block on that TID acknowledged). The bitmap is the pending table's
 * valid bit of that TID here. */
static bool rq__next_tid_busy(const rq_qos *q, uint32_t qi) { return q->pend[rq__next_tid_of(q, qi)].valid != 0; }

/* Anything in the scheduling FIFOs (the common idle case: nothing). */
static bool rq__queued(const rq_qos *q)
{
    return (q->sched.nonempty[0] | (q->nqueues > 64u ? q->sched.nonempty[1] : 0u)) != 0u;
}

/* Stage 1's choice: the first queue, in priority order, that a dequeue would find an entry in
 * and whose IDs are free -- a pool ID for TID-only and no-FID queues (a pool whose FIFO is empty
 * or whose dequeue port is taken this cycle masks its queues), the flow's next TID for have-FID
 * queues. *tid_wait: a have-FID queue ahead of the choice was passed over for its tid_bitmap.
 * RNIC_NONE: none. Queues already known to wait (tid_wait_mask: set by the probe, cleared when
 * the TID comes back) are not looked at again; found[] returns the ones newly found waiting. */
RQ__HOT uint32_t rq__stage1_pick(const rq_qos *q, bool *tid_wait, uint64_t found[2])
{
    const rq_ids *ids = &q->ids;
    uint64_t cand[2], waiting[2];
    uint32_t w, closed;
    found[0] = found[1] = 0u;
    *tid_wait = false;
    if (!rq__queued(q))
        return RNIC_NONE;
    cand[0] = q->sched.nonempty[0];
    cand[1] = q->nqueues > 64u ? q->sched.nonempty[1] : 0u;
    /* a pool whose FIFO is empty or whose dequeue port is taken closes its queues; the port is
     * never taken here: only stage 1's commit takes an ID, after this look, and the end of the
     * cycle frees the ports */
    RNIC_ASSERT(!ids->deq_used[0] && !ids->deq_used[1] && !ids->deq_used[2]);
    closed = (rnic_ring_empty(&ids->pool[0]) ? 1u : 0u) | (rnic_ring_empty(&ids->pool[1]) ? 2u : 0u) |
             (rnic_ring_empty(&ids->pool[2]) ? 4u : 0u);
    cand[0] &= ~q->pool_closed[closed][0];
    cand[1] &= ~q->pool_closed[closed][1];
    waiting[0] = cand[0] & q->tid_wait_mask[0];
    waiting[1] = cand[1] & q->tid_wait_mask[1];
    for (w = 0; w < 2u; w++) {
        uint64_t c = cand[w] & ~waiting[w];
        while (c) {
            uint32_t bit = rnic_ctz64(c), qi = w * 64u + bit;
            c &= c - 1u;
            if (!rnic_ssfifo_ready(&q->sched, qi))
                continue; /* only this cycle's enqueue into an empty queue */
            if (((q->queue_class[RQ__CLASS_HAS_FID][w] >> bit) & 1u) && rq__next_tid_busy(q, qi)) {
                found[w] |= (uint64_t)1 << bit;
                continue;
            }
            /* waits ahead of it: everything in earlier words, the lower bits of this one */
            *tid_wait = (w == 1u && (waiting[0] | found[0])) ||
                        ((waiting[w] | found[w]) & (((uint64_t)1 << bit) - 1u)) != 0u;
            return qi;
        }
    }
    *tid_wait = (waiting[0] | waiting[1] | found[0] | found[1]) != 0u;
    return RNIC_NONE;
}

/* A TID came back (its pending entry was freed): the queue waiting for it may go on. */
RQ__HOT void rq__tid_back(rq_qos *q, uint32_t tid)
{
    uint32_t w;
    if (!(q->tid_wait_mask[0] | q->tid_wait_mask[1]))
        return;
    for (w = 0; w < 2u; w++) {
        uint64_t m = q->tid_wait_mask[w];
        while (m) {
            uint32_t bit = rnic_ctz64(m);
            m &= m - 1u;
            if (q->tid_waited[w * 64u + bit] == tid)
                q->tid_wait_mask[w] &= ~((uint64_t)1 << bit);
        }
    }
}

/* Stage 1's probe (every cycle stage 1 is free): does it want the metadata read (a queue to
 * dequeue)? Counts the tid_bitmap waits; remembers the choice for the commit and the queues
 * found waiting. */
static bool rq__stage1_probe(rq_qos *q)
{
    bool tid_wait = false;
    uint64_t found[2];
    uint32_t w;
    q->s1_pick = RNIC_NONE;
    if (q->s2.valid)
        return false;
#ifdef RNIC_DEBUG
    for (w = 0; w < 2u; w++) { /* the known waits are still waits, on the TID recorded */
        uint64_t m = q->tid_wait_mask[w];
        for (; m; m &= m - 1u) {
            uint32_t qi = w * 64u + rnic_ctz64(m);
            RNIC_ASSERT(!rnic_ssfifo_empty(&q->sched, qi) && rq__next_tid_of(q, qi) == q->tid_waited[qi] &&
                        q->pend[q->tid_waited[qi]].valid);
        }
    }
#endif
    if (!rq__queued(q))
        return false; /* without the call */
    q->s1_pick = rq__stage1_pick(q, &tid_wait, found);
    for (w = 0; (found[0] | found[1]) && w < 2u; w++) /* (mostly none: no loop) */
        for (; found[w]; found[w] &= found[w] - 1u) {
            uint32_t qi = w * 64u + rnic_ctz64(found[w]);
            q->tid_waited[qi] = rq__next_tid_of(q, qi);
            q->tid_wait_mask[w] |= (uint64_t)1 << (qi & 63u);
        }
    if (tid_wait)
        q->stats.seg_stalls_tid++;
    return q->s1_pick != RNIC_NONE;
}

/* Stage 1's commit, once the arbiter granted the metadata read: dequeue, take the ID. */
static void rq__stage1_commit(rq_qos *q)
{
    uint32_t qi = q->s1_pick, line = 0, id = 0;
    rq_id_pool pool = RQ_POOL_TID;
    if (rq__queue_takes_id(q, qi, &pool))
        rq__ids_take(&q->ids, pool, &id);
    rnic_ssfifo_dequeue(&q->sched, qi, &line);
    q->s2.valid = 1;
    q->s2.line = line;
    q->s2.queue = qi;
    q->s2.id = id;
    q->s2.wait = (qi == RQ_QUEUE_CONTROL || q->xfer[line].extra_read) ? 1u : 0u;
}
