/* Palos Fig. 5, steps 1-2: the tail registers (rq_palos_doorbell), the doorbell module that
 * applies one flow's newest tail per cycle, and the schedule queues an idle flow enters (the
 * latency class's and the bandwidth class's FIFOs of flow ids). */

RQ_API rnic_err rq_palos_doorbell(rq_palos *p, uint32_t flow, uint32_t tail)
{
    rq__palos_qp *q;
    uint32_t step;
    if (!p)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_flows || p->weights.qps[flow].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT, RQ_PALOS_REASON_UNKNOWN, flow, tail);
    q = &p->qps[flow];
    step = tail - q->posted; /* ring counters wrap at 2^32 */
    if (step == 0u || step > 0x80000000u)
        return rq__palos_count(p, RNIC_ESTALE, RQ_PALOS_REASON_DOORBELL_STALE, flow, tail);
    if (tail - q->head > p->cfg.ring_entries)
        return rq__palos_count(p, RNIC_ENOSPC, RQ_PALOS_REASON_RING_OVERRUN, flow, tail);
    q->posted = tail; /* the newest tail: writes before the module takes it are coalesced */
    p->backlog += step;
    p->stats.doorbell_writes++;
    if (!q->db_pending) {
        q->db_pending = 1;
        (void)rnic_ring_push(&p->doorbells, &flow); /* cannot fail: one place per flow */
    }
    return RNIC_OK;
}

/* A held QP is parked: IDLE, out of every queue, its carried credit untouched, until
 * rq_palos_flow_hold releases it. */
static void rq__palos_park(rq_palos *p, uint32_t qp)
{
    rq__palos_qp *q = &p->qps[qp];
    q->where = RQ__PALOS_IDLE;
    p->stats.held_parks++;
    RNIC__TRACE(p, RQ_PALOS_TRACE_PARK, qp, (uint64_t)q->credit, (uint32_t)(q->posted - q->head));
}

/* An idle QP with WQEs joins the tail of its class's queue, or, held, is parked. */
static void rq__palos_enqueue(rq_palos *p, uint32_t qp)
{
    rq__palos_qp *q = &p->qps[qp];
    uint32_t cls = p->cfg.mode == RQ_PALOS_PACKET_RR ? (uint32_t)RQ_PALOS_BANDWIDTH : q->cls;
    if (q->held) {
        rq__palos_park(p, qp);
        return;
    }
    (void)rnic_ring_push(&p->queue[cls], &qp); /* cannot fail: one place per QP */
    q->where = RQ__PALOS_QUEUED;
}

static void rq__palos_doorbell_module(rq_palos *p)
{
    uint32_t flow;
    rq__palos_qp *q;
    if (rnic_ring_pop(&p->doorbells, &flow) != RNIC_OK)
        return;
    q = &p->qps[flow];
    RNIC__TRACE(p, RNIC_TRACE_PUSH, flow, q->posted, (uint32_t)(q->posted - q->tail));
    q->tail = q->posted;
    q->db_pending = 0;
    p->stats.doorbells++;
    if (q->where == RQ__PALOS_IDLE)
        rq__palos_enqueue(p, flow);
}
