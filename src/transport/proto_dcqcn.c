/* transport.h: RoCEv2 go-back-N with the DCQCN reaction point (proto_dcqcn.h; docs/transport_dcqcn.md).
 * The periodic hook runs at every visit of the flow; a timer is due at a visit at or after its
 * deadline, runs once per visit, and its next deadline keeps the cadence (deadline + period; a
 * visit more than one period late skips the missed updates to the first cadence point after now). */

static const tp_dcqcn_config tp__dcqcn_presets[2] = {
    {TP_DCQCN_ONE >> 8, TP_DCQCN_ONE, TP_DCQCN_ONE, 55000u, 55000u, 0u, 0u, 10000000u, 5u, TP_DCQCN_F_HOLD_AT_LINE,
     40000000u, 200000000u, 100000000u, 0u},
    {TP_DCQCN_ONE >> 8, TP_DCQCN_ONE, TP_DCQCN_ONE, 1000u, 300000u, 4000u, 1u, 0u, 1u,
     TP_DCQCN_F_STAGE | TP_DCQCN_F_CAP_TARGET, 5000000u, 50000000u, 100000000u, 0u}};

TP_API void tp_dcqcn_preset(tp_dcqcn_config *p, uint32_t preset)
{
    if (p && preset <= TP_DCQCN_MELLANOX)
        *p = tp__dcqcn_presets[preset];
    else if (p)
        RNIC_MEMSET(p, 0, sizeof *p);
}

static bool tp__dcqcn_bad_period(uint64_t ns) { return ns == 0 || ns > 1000000000u; }

TP_API rnic_err tp_dcqcn_config_check(const void *config)
{
    const tp_dcqcn_config *p = (const tp_dcqcn_config *)config;
    if (!p)
        return RNIC_OK;
    if (p->g == 0 || p->g >= TP_DCQCN_ONE || p->alpha_init > TP_DCQCN_ONE || p->first_cnp_rate == 0 ||
        p->first_cnp_rate > TP_DCQCN_ONE || p->f == 0 || p->f > 254u || tp__dcqcn_bad_period(p->alpha_period_ns) ||
        tp__dcqcn_bad_period(p->rate_period_ns) ||
        (p->decrease_period_ns && (tp__dcqcn_bad_period(p->decrease_period_ns) || p->decrease_delay_ns > p->decrease_period_ns)) ||
        (p->flags & ~(uint32_t)TP_DCQCN_F__ALL) || p->rate_floor_bps < RNIC_RATE_MIN_BPS ||
        p->rate_floor_bps > RNIC_RATE_MAX_BPS || p->rai_bps > RNIC_RATE_MAX_BPS || p->rhai_bps > RNIC_RATE_MAX_BPS ||
        (p->link_bps && (p->link_bps > RNIC_RATE_MAX_BPS || p->link_bps < p->rate_floor_bps)))
        return RNIC_EINVAL;
    return RNIC_OK;
}

static const tp_dcqcn_config *tp__dcqcn_cfg(const void *cfg) { return cfg ? (const tp_dcqcn_config *)cfg : tp__dcqcn_presets; }

/* A period in cycles (nearest, at least 1): below 2^31 for periods <= 1 s at <= 1 GHz. */
static uint32_t tp__dcqcn_cyc(const tp_event *ev, uint64_t ns)
{
    uint64_t c = rnic_ns_to_cycles(ns, ev->clock_hz);
    return c ? (uint32_t)c : 1u;
}

static bool tp__dcqcn_due(uint64_t now, uint32_t at) { return (int32_t)((uint32_t)now - at) >= 0; }

/* The deadline after a due one (see the top comment). */
static uint32_t tp__dcqcn_next(uint64_t now, uint32_t at, uint32_t per)
{
    uint32_t late = (uint32_t)now - at;
    return late < per ? at + per : at + per * (late / per + 1u);
}

/* (1 - g) a + g [mark], Q1.31, rounded to nearest. */
static uint32_t tp__dcqcn_ewma(uint32_t a, uint32_t g, bool mark)
{
    uint32_t r = a - (uint32_t)(((uint64_t)a * g + (1u << 30)) >> 31) + (mark ? g : 0u);
    return r > TP_DCQCN_ONE ? TP_DCQCN_ONE : r;
}

/* rate x q (q Q1.31 <= 1, or q Q0.32 with shift 32), via the 128-bit product. */
static uint64_t tp__dcqcn_mulq(uint64_t rate, uint32_t q, unsigned shift)
{
    uint64_t hi, lo;
    rnic_mul64x64(rate, q, &hi, &lo);
    return (hi << (64u - shift)) | (lo >> shift);
}

/* RC (1 - alpha / 2), at least the floor: alpha in Q1.31 is alpha / 2 in Q0.32. */
static uint64_t tp__dcqcn_cut(uint64_t rc, uint32_t alpha, uint64_t floor)
{
    rc -= tp__dcqcn_mulq(rc, alpha, 32u);
    return rc < floor ? floor : rc;
}

static uint8_t tp__dcqcn_inc8(uint8_t x) { return (uint8_t)(x < 255u ? x + 1u : x); }

/* Fast recovery, additive or hyper increase (T / BC or stage already counted). */
static void tp__dcqcn_increase(const tp_dcqcn_config *p, tp_dcqcn_ctx *c, uint64_t *rc)
{
    uint64_t rt = c->target, add = 0;
    uint32_t hi = c->t > c->bc ? c->t : c->bc, lo = c->t > c->bc ? c->bc : c->t;
    if ((p->flags & TP_DCQCN_F_HOLD_AT_LINE) && *rc >= c->line)
        return;
    if (p->flags & TP_DCQCN_F_STAGE)
        add = c->t < p->f ? 0u : c->t == p->f ? p->rai_bps : p->rhai_bps;
    else
        add = hi <= p->f ? 0u : lo > p->f ? (uint64_t)(lo - p->f) * p->rhai_bps : p->rai_bps;
    rt += add;
    if ((p->flags & TP_DCQCN_F_CAP_TARGET) && rt > c->line)
        rt = c->line;
    if (rt > ((uint64_t)1 << 60)) /* far beyond any line rate: no overflow below */
        rt = (uint64_t)1 << 60;
    c->target = rt;
    *rc = (*rc + rt + 1u) >> 1; /* half up: the rate reaches the target */
    if (*rc > c->line)
        *rc = c->line;
}

static uint32_t tp__dcqcn_window(const tp_event *ev) { return ev->params->param[0] ? ev->params->param[0] : ev->window_bits; }

static void tp__dcqcn_init(const tp_flow_config *fp, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    const tp_dcqcn_config *p = tp__dcqcn_cfg(config);
    tp_dcqcn_ctx c;
    (void)hz;
    RNIC_MEMSET(&c, 0, sizeof c);
    c.line = p->link_bps ? p->link_bps : act->rate_bps;
    c.target = act->rate_bps;
    c.alpha = p->alpha_init;
    RNIC_MEMCPY(ctx, &c, sizeof c);
    if (fp->param[0])
        act->wnd_size = fp->param[0];
}

static void tp__dcqcn_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    const tp_dcqcn_config *p = tp__dcqcn_cfg(ev->config);
    tp_dcqcn_ctx c;
    uint64_t rc = ev->rate_bps;
    act->wnd_size = tp__dcqcn_window(ev);
    if (ev->pkt_type == TP_PKT_ACK || ev->pkt_type == TP_PKT_NACK) {
        act->reset_timer = ev->new_wnd_start != ev->old_wnd_start || ev->pkt_type == TP_PKT_NACK;
        if (ev->pkt_type == TP_PKT_NACK) { /* go back to the PSN the responder expects */
            act->mark_rtx = true, act->mark_from = ev->cum_ack, act->mark_to = ev->highest_sent;
        }
        return;
    }
    if (ev->pkt_type != TP_PKT_CNP)
        return;
    RNIC_MEMCPY(&c, ctx, sizeof c);
    if (p->decrease_period_ns == 0) { /* the paper: cut now */
        if (p->flags & TP_DCQCN_F_ALPHA_FIRST)
            c.alpha = tp__dcqcn_ewma(c.alpha, p->g, true);
        c.target = rc;
        rc = tp__dcqcn_cut(rc, c.alpha, p->rate_floor_bps);
        if (!(p->flags & TP_DCQCN_F_ALPHA_FIRST))
            c.alpha = tp__dcqcn_ewma(c.alpha, p->g, true);
        c.t = c.bc = 0, c.bc_base = ev->total_sent;
        c.alpha_at = (uint32_t)ev->now + tp__dcqcn_cyc(ev, p->alpha_period_ns);
        c.rate_at = (uint32_t)ev->now + tp__dcqcn_cyc(ev, p->rate_period_ns);
        c.flags |= TP_DCQCN_S_ACTIVE | TP_DCQCN_S_RATE_ON;
    } else { /* Mlx: flags for the alpha update and the decrease check */
        c.flags |= TP_DCQCN_S_ALPHA_CNP | TP_DCQCN_S_DEC_CNP;
        if (!(c.flags & TP_DCQCN_S_ACTIVE)) {
            c.flags = TP_DCQCN_S_ACTIVE | TP_DCQCN_S_DEC_CNP;
            c.alpha = p->alpha_init;
            c.alpha_at = (uint32_t)ev->now + tp__dcqcn_cyc(ev, p->alpha_period_ns);
            c.dec_at = (uint32_t)ev->now + tp__dcqcn_cyc(ev, p->decrease_period_ns + p->decrease_delay_ns);
            rc = tp__dcqcn_mulq(rc, p->first_cnp_rate, 31u);
            c.target = rc;
            c.bc_base = ev->total_sent;
        }
    }
    act->rate_bps = rc;
    RNIC_MEMCPY(ctx, &c, sizeof c);
}

static void tp__dcqcn_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    const tp_dcqcn_config *p = tp__dcqcn_cfg(ev->config);
    tp_dcqcn_ctx c;
    uint64_t rc = ev->rate_bps;
    act->wnd_size = tp__dcqcn_window(ev);
    if (ev->timeout) { /* go back to the first unacknowledged PSN */
        act->mark_rtx = true, act->mark_from = ev->wnd_start, act->mark_to = ev->highest_sent;
        act->reset_timer = true;
    }
    RNIC_MEMCPY(&c, ctx, sizeof c);
    if (!(c.flags & TP_DCQCN_S_ACTIVE))
        return;
    /* due in one visit: htsim's order (bytes, alpha, T), and HPCC's: the rate timer, scheduled
     * earlier, before a decrease check at the same instant (ns-3 runs ties in schedule order) */
    if (p->byte_counter && (uint64_t)(ev->total_sent - c.bc_base) * ev->params->seg_size >= p->byte_counter) {
        c.bc_base = ev->total_sent; /* htsim: the counter restarts at 0 */
        c.bc = tp__dcqcn_inc8(c.bc);
        tp__dcqcn_increase(p, &c, &rc);
    }
    if (tp__dcqcn_due(ev->now, c.alpha_at)) { /* paper: no CNP for a period; Mlx: the flag */
        c.alpha = tp__dcqcn_ewma(c.alpha, p->g, (c.flags & TP_DCQCN_S_ALPHA_CNP) != 0);
        c.flags &= (uint8_t)~TP_DCQCN_S_ALPHA_CNP;
        c.alpha_at = tp__dcqcn_next(ev->now, c.alpha_at, tp__dcqcn_cyc(ev, p->alpha_period_ns));
    }
    if ((c.flags & TP_DCQCN_S_RATE_ON) && tp__dcqcn_due(ev->now, c.rate_at)) {
        c.rate_at = tp__dcqcn_next(ev->now, c.rate_at, tp__dcqcn_cyc(ev, p->rate_period_ns));
        if (p->flags & TP_DCQCN_F_STAGE) { /* Mlx: increase by the stage, then stage++ */
            tp__dcqcn_increase(p, &c, &rc);
            c.t = tp__dcqcn_inc8(c.t);
        } else { /* paper: T++, then increase */
            c.t = tp__dcqcn_inc8(c.t);
            tp__dcqcn_increase(p, &c, &rc);
        }
    }
    if (p->decrease_period_ns && tp__dcqcn_due(ev->now, c.dec_at)) {
        uint32_t at = c.dec_at;
        c.dec_at = tp__dcqcn_next(ev->now, at, tp__dcqcn_cyc(ev, p->decrease_period_ns));
        if (c.flags & TP_DCQCN_S_DEC_CNP) {
            if ((p->flags & TP_DCQCN_F_CLAMP_TARGET) || c.t > 0)
                c.target = rc;
            rc = tp__dcqcn_cut(rc, c.alpha, p->rate_floor_bps);
            c.t = 0;
            c.flags = (uint8_t)((c.flags & ~TP_DCQCN_S_DEC_CNP) | TP_DCQCN_S_RATE_ON);
            c.rate_at = at + tp__dcqcn_cyc(ev, p->rate_period_ns); /* restart the rate timer */
        }
    }
    act->rate_bps = rc;
    RNIC_MEMCPY(ctx, &c, sizeof c);
}
