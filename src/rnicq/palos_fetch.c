/* Palos Fig. 5, steps 3-4: WQE fetch. One flow per cycle from the schedule queues (latency
 * first) into a free fetch slot of its class: a batch of up to max_batch WQEs, readable
 * fetch_latency_ns later. */

/* WQEs one batch read takes: those posted from the head, at most max_batch. */
static uint32_t rq__palos_batch(const rq_palos *p, const rq__palos_qp *q)
{
    uint32_t pending = q->tail - q->head;
    return pending < p->cfg.max_batch ? pending : p->cfg.max_batch;
}

static void rq__palos_fetch_module(rq_palos *p)
{
    rq__palos_slot s;
    rq__palos_qp *q;
    uint32_t cls = RQ_PALOS_LATENCY;
    /* strict priority: the latency queue first, into its own slots (§IV-C) */
    if (rnic_ring_empty(&p->queue[cls]) || rnic_ring_full(&p->slots[cls]))
        cls = RQ_PALOS_BANDWIDTH;
    if (rnic_ring_full(&p->slots[cls]) || rnic_ring_pop(&p->queue[cls], &s.qp) != RNIC_OK)
        return;
    q = &p->qps[s.qp];
    if (q->held) { /* held while queued: parked instead of fetched (this cycle's dequeue) */
        rq__palos_park(p, s.qp);
        return;
    }
    s.count = rq__palos_batch(p, q);
    s.ready = p->now + p->fetch_latency;
    q->where = RQ__PALOS_FETCHING;
    (void)rnic_ring_push(&p->slots[cls], &s);
    RNIC__TRACE(p, RQ_PALOS_TRACE_FETCH, s.qp, s.count, s.ready);
}
