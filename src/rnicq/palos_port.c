/* Palos: the output port of pieces (rnic_work records toward the protocol engine), piece_depth
 * launches of up to launch_wqes records each; rq_palos_pop_piece / rq_palos_peek_piece. */

/* The output port holds piece_depth launches. */
static bool rq__palos_port_full(const rq_palos *p) { return p->launch_count == p->cfg.piece_depth; }

/* A record into the output port, part of this cycle's launch (closed by rq__palos_launch_end). */
static void rq__palos_push(rq_palos *p, const rnic_work *o)
{
    (void)rnic_ring_push(&p->out, o); /* cannot fail: a free launch holds launch_wqes records */
    p->launch_now++;
}

/* The launch of this cycle takes its place in the port; step 6 writes the QP's head and fetch
 * offset back. */
static void rq__palos_launch_end(rq_palos *p)
{
    uint32_t t = p->launch_head + p->launch_count;
    p->launch_len[t >= p->cfg.piece_depth ? t - p->cfg.piece_depth : t] = p->launch_now;
    p->launch_count++;
    p->stats.launches++;
    p->launch_now = 0;
    rq__palos_writeback(p);
}

RQ_API rnic_err rq_palos_pop_piece(rq_palos *p, rnic_work *out)
{
    if (!p)
        return RNIC_EINVAL;
    if (!out)
        return rq__palos_count(p, RNIC_EINVAL, RQ_PALOS_REASON_NULL, RNIC_NONE, 0);
    if (rnic_ring_pop(&p->out, out) != RNIC_OK)
        return RNIC_EEMPTY; /* an empty port is the normal idle answer, not an error */
    if (--p->launch_len[p->launch_head] == 0u) { /* the launch's last record: its place frees */
        p->launch_head = p->launch_head + 1u == p->cfg.piece_depth ? 0u : p->launch_head + 1u;
        p->launch_count--;
    }
    RNIC__TRACE_REC(p, RNIC_TRACE_POP, out);
    return RNIC_OK;
}

RQ_API rnic_err rq_palos_peek_piece(const rq_palos *p, rnic_work *out)
{
    const rnic_work *w;
    if (!p)
        return RNIC_EINVAL;
    if (!out) /* counted like pop's: the engine is the caller's, only the statistics change */
        return rq__palos_count((rq_palos *)(uintptr_t)p, RNIC_EINVAL, RQ_PALOS_REASON_NULL, RNIC_NONE, 0);
    w = (const rnic_work *)rnic_ring_peek(&p->out);
    if (!w)
        return RNIC_EEMPTY;
    *out = *w;
    return RNIC_OK;
}
