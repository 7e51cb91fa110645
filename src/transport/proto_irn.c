/* transport.h: IRN (SIGCOMM'18) on rate credit. The scoreboard is the engine's acked bitmap: a
 * NACK's block SACKs the out-of-order run, and every unacked segment below the highest SACKed one
 * is lost (IRN §3.1: a NACK names the packet it expected and the one it got). The first NACK
 * starts loss recovery (recovery point = highest_sent); each ACK or NACK in recovery marks the
 * next run of lost segments from HighRxt (one range per event); recovery ends once the cumulative
 * ack reaches the recovery point. A timeout marks [wnd_start, highest_sent) (SACKed ones are
 * skipped by the engine). The timer period is RTO_low while at most N packets are in flight (sent,
 * not acked, counting the segments the window lets go next), RTO_high otherwise, set on every
 * event and restarted when new data is acked. */

static const tp_irn_config tp__irn_defaults = {100000u, 320000u, 3u, 0u, 0u};

TP_API void tp_irn_config_default(tp_irn_config *c)
{
    if (c)
        *c = tp__irn_defaults;
}

TP_API rnic_err tp_irn_config_check(const void *config)
{
    const tp_irn_config *c = (const tp_irn_config *)config;
    if (!c || c->rto_low_ns == 0 || c->rto_high_ns > 10000000000ull || c->rto_low_ns > c->rto_high_ns)
        return RNIC_EINVAL;
    return RNIC_OK;
}

static const tp_irn_config *tp__irn_cfg(const void *config)
{
    return config ? (const tp_irn_config *)config : &tp__irn_defaults;
}

/* The timer period for `flight` packets in flight. */
static uint64_t tp__irn_rto(const tp_irn_config *k, uint64_t hz, uint32_t flight)
{
    return tp__tcp_rto(hz, flight <= k->rto_low_pkts ? k->rto_low_ns : k->rto_high_ns);
}

/* The packets in flight once the flow has sent what it may: unacked segments up to the end of its
 * data or of the BDP window (a rate flow at line rate fills it within a few packet times). */
static uint32_t tp__irn_flight(const tp_event *ev, uint32_t wnd)
{
    uint32_t end = tp__before(ev->data_end, ev->wnd_start + wnd) ? ev->data_end : ev->wnd_start + wnd;
    if (tp__before(end, ev->highest_sent))
        end = ev->highest_sent;
    return end - ev->wnd_start - tp_bits_count(&ev->acked, ev->wnd_start, ev->highest_sent);
}

static void tp__irn_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    const tp_irn_config *k = tp__irn_cfg(config);
    tp_irn_ctx c;
    uint32_t seg = p->seg_size ? p->seg_size : 1u;
    RNIC_MEMSET(&c, 0, sizeof c);
    c.recover = c.high_rxt = c.high_sack = p->init_seq;
    RNIC_MEMCPY(ctx, &c, TP_IRN_CTX_BYTES);
    /* BDP-FC: the cap in segments (at least 1); 0 = W (the engine clamps to it) */
    act->wnd_size = k->bdp_bytes ? (k->bdp_bytes / seg ? k->bdp_bytes / seg : 1u) : TP_MAX_WINDOW;
    if (k->rate_bps)
        act->rate_bps = k->rate_bps;
    act->timer_amount = tp__irn_rto(k, hz, 0); /* before the first ACK the hooks have seen no data */
}

/* Marks the next run of unacked segments in [high_rxt, high_sack). */
static void tp__irn_send_lost(const tp_event *ev, tp_irn_ctx *c, tp_actions *act)
{
    uint32_t s, e;
    if (tp__before(c->high_rxt, ev->wnd_start))
        c->high_rxt = ev->wnd_start;
    if (!tp__before(c->high_rxt, c->high_sack))
        return;
    s = tp_bits_find_first_zero(&ev->acked, c->high_rxt, c->high_sack);
    if (s == c->high_sack) {
        c->high_rxt = s;
        return;
    }
    e = tp_bits_find_first(&ev->acked, s, c->high_sack);
    act->mark_rtx = true;
    act->mark_from = s;
    act->mark_to = e;
    c->high_rxt = e;
}

static void tp__irn_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    const tp_irn_config *k = tp__irn_cfg(ev->config);
    tp_irn_ctx c;
    if (ev->pkt_type != TP_PKT_ACK && ev->pkt_type != TP_PKT_NACK)
        return;
    RNIC_MEMSET(&c, 0, sizeof c);
    RNIC_MEMCPY(&c, ctx, TP_IRN_CTX_BYTES);
    if (tp__before(c.high_sack, ev->wnd_start))
        c.high_sack = ev->wnd_start;
    if (ev->sack_len && tp__before(c.high_sack, ev->sack_start + ev->sack_len))
        c.high_sack = ev->sack_start + ev->sack_len;
    if (c.recovery && !tp__before(ev->wnd_start, c.recover))
        c.recovery = 0; /* the cumulative ack passed the recovery point */
    if (!c.recovery && ev->pkt_type == TP_PKT_NACK && ev->wnd_start != ev->highest_sent) {
        c.recovery = 1; /* first NACK: enter loss recovery */
        c.recover = ev->highest_sent; /* HighRxt stays: what an earlier recovery resent is not resent */
    }
    if (c.recovery) /* NACKs and partial ACKs: the next lost run */
        tp__irn_send_lost(ev, &c, act);
    act->timer_amount = tp__irn_rto(k, ev->clock_hz, tp__irn_flight(ev, act->wnd_size));
    if (ev->newly_acked)
        act->reset_timer = true;
    RNIC_MEMCPY(ctx, &c, TP_IRN_CTX_BYTES);
}

/* Timeout: resend every unacked segment sent (IRN falls back to the timer for lost
 * retransmissions); recovery continues to highest_sent with nothing left to mark. */
static void tp__irn_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    const tp_irn_config *k = tp__irn_cfg(ev->config);
    tp_irn_ctx c;
    if (!ev->timeout)
        return;
    RNIC_MEMSET(&c, 0, sizeof c);
    RNIC_MEMCPY(&c, ctx, TP_IRN_CTX_BYTES);
    act->mark_rtx = true;
    act->mark_from = ev->wnd_start;
    act->mark_to = ev->highest_sent;
    c.recovery = 1;
    c.recover = c.high_rxt = ev->highest_sent;
    act->timer_amount = tp__irn_rto(k, ev->clock_hz, tp__irn_flight(ev, act->wnd_size));
    act->reset_timer = true;
    RNIC_MEMCPY(ctx, &c, TP_IRN_CTX_BYTES);
}

static const tp_protocol tp__irn = {"irn", TP_CREDIT_RATE, TP_IRN_CTX_BYTES, tp__irn_init, tp__irn_incoming,
                                    tp__irn_periodic, false, TP_MERGE_INCOMING, &tp__irn_defaults, tp_irn_config_check};

TP_API const tp_protocol *tp_protocol_irn(void) { return &tp__irn; }
