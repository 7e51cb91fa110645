/* ratelimit.h: registers.c -- the per-flow registers (doorbell, rate, credit) written by the host, and flow activity (the active rate sum). */

/* ---- inputs: per-flow registers ---- */

static rnic_err rl__refuse(rl *r, uint32_t flow, rnic_err e, uint64_t value)
{
    rnic_err_note(&r->stats.errors, e);
    RNIC__TRACE(r, RNIC_TRACE_REFUSE, flow, value, e);
    return e;
}

static void rl__write(rl *r, uint32_t flow, uint8_t reg, uint64_t value)
{
    rl__qp *q = &r->qps[flow];
    if (q->pend & reg)
        r->stats.coalesced++;
    if (!q->pend)
        RL__FIFO_PUSH(&r->registers, RL__REG_NEXT, flow); /* each flow at most once */
    q->pend |= reg;
    RNIC__TRACE(r, RNIC_TRACE_PUSH, flow, value, reg);
}

RL_API rnic_err rl_doorbell(rl *r, uint32_t flow)
{
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows)
        return rl__refuse(r, flow, RNIC_ENOENT, 0);
    rl__write(r, flow, RL__PEND_DOORBELL, 0);
    return RNIC_OK;
}

RL_API rnic_err rl_set_rate(rl *r, uint32_t flow, uint64_t bps)
{
    uint64_t asked = bps;
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows)
        return rl__refuse(r, flow, RNIC_ENOENT, bps);
    if (bps && (bps < r->cfg.min_rate_bps || bps > r->cfg.link_bps)) {
        bps = bps < r->cfg.min_rate_bps ? r->cfg.min_rate_bps : r->cfg.link_bps;
        r->stats.rate_clamped++;
    }
    r->qps[flow].pend_rate_lo = (uint32_t)bps;
    r->qps[flow].pend_rate_hi = (uint8_t)(bps >> 32); /* <= link_bps <= 800 Gb/s < 2^40 */
    RNIC__TRACE(r, RNIC_TRACE_RATE, flow, bps, asked);
    rl__write(r, flow, RL__PEND_RATE, bps);
    return RNIC_OK;
}

RL_API rnic_err rl_set_credit(rl *r, uint32_t flow, bool has_credit)
{
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows)
        return rl__refuse(r, flow, RNIC_ENOENT, has_credit);
    RL__QF_SET(&r->qps[flow], RL__QF_PEND_CREDIT, has_credit);
    rl__write(r, flow, RL__PEND_CREDIT, has_credit);
    return RNIC_OK;
}

/* ---- flow activity ---- */

static void rl__activate(rl *r, rl__qp *q)
{
    if (RL__QF(q, RL__QF_PAUSED))
        return;
    r->sum_active_bps += rl__rate(q);
    rl__update_phi(r);
}

static void rl__deactivate(rl *r, rl__qp *q)
{
    q->state = RL__IDLE;
    if (RL__QF(q, RL__QF_PAUSED))
        return;
    r->sum_active_bps -= rl__rate(q);
    rl__update_phi(r);
}

