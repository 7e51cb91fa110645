/* transport.h: NDP (SIGCOMM'17) on grant tokens. The engine does most of it: pulls add credit in
 * the Incoming fixed stage, ACKs slide the window, marked segments go before new ones. The hooks
 * turn trim notices into retransmissions and recover from whole-packet loss by the timer. */

static const tp_ndp_config tp__ndp_defaults = {16u, 0u, 0u};

TP_API void tp_ndp_config_default(tp_ndp_config *c)
{
    if (c)
        *c = tp__ndp_defaults;
}

TP_API rnic_err tp_ndp_config_check(const void *config)
{
    const tp_ndp_config *c = (const tp_ndp_config *)config;
    if (!c || c->init_window == 0 || c->init_window > 65536u || c->window > TP_MAX_WINDOW || c->rto_ns > 100000000000ull)
        return RNIC_EINVAL;
    return RNIC_OK;
}

static const tp_ndp_config *tp__ndp_cfg(const void *config)
{
    return config ? (const tp_ndp_config *)config : &tp__ndp_defaults;
}

static uint64_t tp__ndp_rto(const tp_ndp_config *k, const tp_flow_config *p, uint64_t hz, uint8_t timeouts)
{
    return tp__tcp_rto(hz, k->rto_ns ? k->rto_ns : p->rto_ns) << timeouts;
}

static void tp__ndp_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    const tp_ndp_config *k = tp__ndp_cfg(config);
    RNIC_MEMSET(ctx, 0, sizeof(tp_ndp_ctx));
    if (!p->init_credit)
        act->add_credit = (uint64_t)k->init_window * p->seg_size;
    act->wnd_size = k->window ? k->window : TP_MAX_WINDOW; /* the engine clamps to W */
    act->timer_amount = tp__ndp_rto(k, p, hz, 0);
}

/* Every packet from the receiver shows it is pulling: the timer restarts at the base period. A
 * trim notice marks the trimmed segment (the engine skips it if it was acked meanwhile). */
static void tp__ndp_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_ndp_ctx c;
    c.timeouts = 0;
    RNIC_MEMCPY(ctx, &c, sizeof c);
    if (ev->pkt_type == TP_PKT_NACK) {
        act->mark_rtx = true;
        act->mark_from = ev->pkt->offset;
        act->mark_to = ev->pkt->offset + 1u;
    }
    act->timer_amount = tp__ndp_rto(tp__ndp_cfg(ev->config), ev->params, ev->clock_hz, 0);
    act->reset_timer = true;
}

/* Timeout: every unacked segment sent is resent, with the credit it lacks (no pull will come for
 * a packet that vanished); the period doubles. */
static void tp__ndp_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_ndp_ctx c;
    uint64_t need;
    if (!ev->timeout)
        return;
    RNIC_MEMCPY(&c, ctx, sizeof c);
    if (c.timeouts < 6u)
        c.timeouts++;
    need = (uint64_t)(ev->highest_sent - ev->wnd_start - tp_bits_count(&ev->acked, ev->wnd_start, ev->highest_sent)) *
           ev->params->seg_size;
    act->mark_rtx = true;
    act->mark_from = ev->wnd_start;
    act->mark_to = ev->highest_sent;
    act->add_credit = need > ev->credit ? need - ev->credit : 0u;
    act->timer_amount = tp__ndp_rto(tp__ndp_cfg(ev->config), ev->params, ev->clock_hz, c.timeouts);
    act->reset_timer = true;
    RNIC_MEMCPY(ctx, &c, sizeof c);
}

static const tp_protocol tp__ndp = {"ndp", TP_CREDIT_TOKEN, sizeof(tp_ndp_ctx), tp__ndp_init, tp__ndp_incoming,
                                    tp__ndp_periodic, false, TP_MERGE_INCOMING, &tp__ndp_defaults, tp_ndp_config_check};

TP_API const tp_protocol *tp_protocol_ndp(void) { return &tp__ndp; }
