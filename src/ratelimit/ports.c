/* ratelimit.h: ports.c -- the TX output port and the read accessors (stats, flow state, Phi, L). */

RL_API rnic_err rl_pop_tx(rl *r, rnic_work *out)
{
    if (!r)
        return RNIC_EINVAL;
    if (!out)
        return rl__refuse(r, 0, RNIC_EINVAL, 0);
    if (rnic_ring_pop_n(&r->tx, out, sizeof *out) != RNIC_OK)
        return RNIC_EEMPTY;
    RNIC__TRACE_REC(r, RNIC_TRACE_POP, out);
    return RNIC_OK;
}

RL_API rnic_err rl_peek_tx(const rl *r, rnic_work *out)
{
    const rnic_work *w;
    if (!r)
        return RNIC_EINVAL;
    if (!out) /* counted like pop's: the engine is the caller's, only the statistics change */
        return rl__refuse((rl *)(uintptr_t)r, 0, RNIC_EINVAL, 0);
    if (!(w = (const rnic_work *)rnic_ring_peek(&r->tx)))
        return RNIC_EEMPTY;
    *out = *w;
    return RNIC_OK;
}

RL_API uint64_t rl_now(const rl *r) { return r ? r->now : 0; }
RL_API const rl_stats *rl_get_stats(const rl *r) { return r ? &r->stats : NULL; }
RL_API const rl_flow_stats *rl_get_flow_stats(const rl *r, uint32_t flow)
{
    return r && r->flow_stats && flow < r->cfg.max_flows ? &r->flow_stats[flow] : NULL;
}
RL_API rnic_err rl_flow_state(const rl *r, uint32_t flow, rl_flow_view *out)
{
    const rl__qp *q;
    if (!r)
        return RNIC_EINVAL;
    if (!out) /* counted like peek's: only the statistics change */
        return rl__refuse((rl *)(uintptr_t)r, flow, RNIC_EINVAL, 0);
    if (flow >= r->cfg.max_flows)
        return rl__refuse((rl *)(uintptr_t)r, flow, RNIC_ENOENT, 0);
    q = &r->qps[flow];
    RNIC_MEMSET(out, 0, sizeof *out);
    out->rate_bps = rl__rate(q);
    out->pending_rate_bps = rl__pend_rate(q);
    if (r->flow_stats) {
        out->packets = r->flow_stats[flow].packets;
        out->bytes = r->flow_stats[flow].bytes;
    }
    out->state = q->state; /* RL__IDLE .. RL__DRAINING = RL_FLOW_IDLE .. RL_FLOW_DRAINING */
    out->pending = q->pend;
    out->index = q->index;
    out->offset = q->offset;
    out->outstanding = q->outstanding;
    out->credit = RL__QF(q, RL__QF_CREDIT);
    out->paused = RL__QF(q, RL__QF_PAUSED);
    return RNIC_OK;
}
RL_API uint64_t rl_phi_q32(const rl *r) { return r ? r->phi : 0; }
RL_API uint32_t rl_pcie_latency_cycles(const rl *r) { return r ? r->pcie_latency : 0; }
RL_API uint32_t rl_lookahead_cycles(const rl *r) { return r ? (uint32_t)r->lookahead_cycles : 0; }
