/* transport.h: TCP Reno (RFC 5681 with RFC 3042 limited transmit), and the helpers NewReno and
 * SACK share (the congestion window arithmetic of ns-3's TcpNewReno, the retransmission timer).
 * Segment ids are free-running: every compare goes through tp__before. */

static bool tp__before(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

static uint32_t tp__tcp_seg(const tp_event *ev) { return ev->params->seg_size ? ev->params->seg_size : 1u; }

static uint32_t tp__tcp_thresh(const tp_flow_config *p) { return p->param[0] ? p->param[0] : 3u; }

static bool tp__tcp_lt(const tp_flow_config *p) { return (p->param[1] & 1u) == 0; }

/* ns nanoseconds in cycles of a hz clock, to the nearest cycle (a half up), at least 1
 * (exact for clocks below 10^13 Hz). */
static uint64_t tp__tcp_rto(uint64_t hz, uint64_t ns)
{
    /* rounded to nearest, as the us form was; no 64-bit divide helper needed on 32-bit cores */
    uint64_t c = rnic_ns_to_cycles(ns, hz);
    return c ? c : 1u;
}

static void tp__tcp_load(tp_tcp_ctx *c, const void *ctx) { RNIC_MEMCPY(c, ctx, sizeof *c); }
static void tp__tcp_store(void *ctx, const tp_tcp_ctx *c) { RNIC_MEMCPY(ctx, c, sizeof *c); }

static void tp__tcp_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    (void)config;
    tp_tcp_ctx c;
    uint64_t w = (uint64_t)p->init_wnd * p->seg_size;
    RNIC_MEMSET(&c, 0, sizeof c);
    c.cwnd = c.cwnd_infl = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
    w = (uint64_t)p->param[2] * p->seg_size;
    c.ssthresh = p->param[2] == 0 || w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
    c.recover = p->init_seq;
    tp__tcp_store(ctx, &c);
    act->wnd_size = p->init_wnd;
    act->timer_amount = tp__tcp_rto(hz, p->rto_ns);
}

/* An ACK for the TCPs: ACK or NACK (a NACK carries the same cumulative ack). */
static bool tp__tcp_is_ack(const tp_event *ev) { return ev->pkt_type == TP_PKT_ACK || ev->pkt_type == TP_PKT_NACK; }

/* RFC 5681 duplicate ACK: no cumulative advance while data is outstanding. */
static bool tp__tcp_is_dup(const tp_event *ev)
{
    return ev->cum_ack == ev->old_wnd_start && ev->new_wnd_start == ev->old_wnd_start &&
           ev->old_wnd_start != ev->highest_sent;
}

/* ns-3 TcpNewReno::IncreaseWindow: slow start adds one segment per ACK (RFC 5681 min(N, SMSS)),
 * the rest of the ACK's segments go to congestion avoidance if cwnd reached ssthresh, which adds
 * max(1, seg * seg / cwnd) bytes once per ACK. */
static void tp__tcp_grow(tp_tcp_ctx *c, uint32_t seg, uint32_t segs)
{
    uint64_t add;
    if (c->cwnd < c->ssthresh && segs >= 1) {
        c->cwnd = c->cwnd > UINT32_MAX - seg ? UINT32_MAX : c->cwnd + seg;
        segs--;
    }
    if (c->cwnd >= c->ssthresh && segs > 0) {
        add = rnic_udiv64((uint64_t)seg * seg, c->cwnd ? c->cwnd : 1u);
        add = add < 1u ? 1u : add;
        c->cwnd = (uint64_t)c->cwnd + add > UINT32_MAX ? UINT32_MAX : c->cwnd + (uint32_t)add;
    }
}

/* ns-3 TcpNewReno::GetSsThresh: max(2 segments, flight / 2) bytes, flight given in segments. */
static uint32_t tp__tcp_half(uint32_t seg, uint32_t flight)
{
    uint64_t h = (uint64_t)flight * seg / 2u;
    if (h < 2u * (uint64_t)seg)
        h = 2u * (uint64_t)seg;
    return h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
}

/* Segments in [1, W] (cwnd may outgrow the window the engine tracks). */
static uint32_t tp__tcp_clamp(const tp_event *ev, uint64_t w)
{
    return w < 1u ? 1u : w > ev->window_bits && ev->window_bits ? ev->window_bits : (uint32_t)w;
}

/* The segment window: cwnd in whole segments plus the segments known to have left the network
 * (ns-3 counts them out of BytesInFlight; RFC 6675 pipe). */
static uint32_t tp__tcp_wnd(const tp_event *ev, const tp_tcp_ctx *c, uint32_t seg, uint32_t left)
{
    return tp__tcp_clamp(ev, (uint64_t)(c->cwnd / seg) + left);
}

/* New data acknowledged: restart the timer at the base RTO (RFC 6298 5.3, ns-3 NewAck). */
static void tp__tcp_restart(const tp_event *ev, tp_actions *act)
{
    act->timer_amount = tp__tcp_rto(ev->clock_hz, ev->params->rto_ns);
    act->reset_timer = true;
}

/* Retransmission timeout (RFC 5681 eq. 4, RFC 6298 5.4-5.6, ns-3 ReTxTimeout): ssthresh from
 * `flight` segments unless the head was already retransmitted by a timeout, cwnd = 1 segment,
 * go back N, recover = highest_sent, timer doubled (at most 60 s). */
static void tp__tcp_timeout(const tp_event *ev, tp_tcp_ctx *c, tp_actions *act, uint32_t flight)
{
    uint32_t seg = tp__tcp_seg(ev);
    uint64_t cap = tp__tcp_rto(ev->clock_hz, 60000000u);
    if (c->state != TP_TCP_LOSS || !tp_bits_test(&ev->rtx_cnt, ev->wnd_start))
        c->ssthresh = tp__tcp_half(seg, flight);
    c->cwnd = c->cwnd_infl = seg;
    c->state = TP_TCP_LOSS;
    c->recover = ev->highest_sent;
    c->flags = TP_TCP_F_ACTIVE;
    c->dupacks = c->sacked = 0;
    act->mark_rtx = ev->wnd_start != ev->highest_sent;
    act->mark_from = ev->wnd_start;
    act->mark_to = ev->highest_sent;
    act->timer_amount = ev->timer_amount > cap / 2u ? cap : ev->timer_amount * 2u;
    act->reset_timer = true;
    act->wnd_size = 1;
}

static void tp__reno_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_tcp_ctx c;
    uint32_t seg = tp__tcp_seg(ev), k = ev->new_wnd_start - ev->old_wnd_start;
    uint32_t lt = 0;
    if (!tp__tcp_is_ack(ev))
        return;
    tp__tcp_load(&c, ctx);
    if (tp__tcp_is_dup(ev)) {
        if (c.state == TP_TCP_RECOVERY) {
            c.cwnd_infl += seg; /* step 4: one more segment has left the network */
        } else {
            if (c.dupacks++ == 0)
                c.recover = ev->highest_sent; /* FlightSize without limited-transmit segments */
            c.state = TP_TCP_DISORDER;
            if (c.dupacks == tp__tcp_thresh(ev->params)) { /* steps 2-3: fast retransmit */
                c.ssthresh = tp__tcp_half(seg, c.recover - ev->wnd_start);
                c.cwnd = c.ssthresh;
                c.cwnd_infl = c.ssthresh + c.dupacks * seg;
                c.state = TP_TCP_RECOVERY;
                act->mark_rtx = true;
                act->mark_from = ev->wnd_start;
                act->mark_to = ev->wnd_start + 1u;
            }
        }
    } else if (k > 0) {
        if (c.state == TP_TCP_RECOVERY)
            c.cwnd = c.ssthresh; /* step 6: deflate on the first new ACK, partial or not */
        else
            tp__tcp_grow(&c, seg, k);
        c.cwnd_infl = c.cwnd;
        c.state = TP_TCP_OPEN;
        c.dupacks = 0;
        tp__tcp_restart(ev, act);
    }
    if (c.state == TP_TCP_DISORDER && tp__tcp_lt(ev->params))
        lt = c.dupacks < 2u ? c.dupacks : 2u;
    act->wnd_size = c.state == TP_TCP_RECOVERY ? tp__tcp_clamp(ev, c.cwnd_infl / seg) : tp__tcp_wnd(ev, &c, seg, lt);
    tp__tcp_store(ctx, &c);
}

static void tp__reno_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_tcp_ctx c;
    if (!ev->timeout)
        return;
    tp__tcp_load(&c, ctx);
    tp__tcp_timeout(ev, &c, act, ev->highest_sent - ev->wnd_start);
    tp__tcp_store(ctx, &c);
}

static const tp_protocol tp__reno = {"reno", TP_CREDIT_WINDOW, sizeof(tp_tcp_ctx), tp__tcp_init,
                                     tp__reno_incoming, tp__reno_periodic, false, TP_MERGE_INCOMING, NULL, NULL};

TP_API const tp_protocol *tp_protocol_reno(void) { return &tp__reno; }
