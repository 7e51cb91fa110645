/* transport.h: TCP SACK (RFC 6675 with one SACK block per ACK; Table 3's SACK). The scoreboard is
 * the engine's acked bitmap. IsLost(s): DupThresh SACKed segments above s, i.e. s below the
 * DupThresh-th highest SACKed segment, kept in ctx.top (DupThresh 1..3 here). SetPipe and NextSeg
 * use tp_bits counts over the window. One mark range per ACK: NextSeg marks one contiguous run
 * of lost segments (up to cwnd - pipe of them); new data goes only when no lost segment is left.
 * Congestion window arithmetic as Reno/NewReno; entry sets ssthresh = cwnd = FlightSize / 2. */

static uint32_t tp__sack_thresh(const tp_flow_config *p)
{
    uint32_t t = tp__tcp_thresh(p);
    return t > 3u ? 3u : t;
}

/* Keeps top[] the three highest distinct SACKed ids (none: wnd_start - 1). */
static void tp__sack_insert(uint32_t *top, uint32_t id)
{
    if (id == top[0] || id == top[1] || id == top[2])
        return;
    if (tp__before(top[0], id)) {
        top[2] = top[1], top[1] = top[0], top[0] = id;
    } else if (tp__before(top[1], id)) {
        top[2] = top[1], top[1] = id;
    } else if (tp__before(top[2], id)) {
        top[2] = id;
    }
}

static void tp__sack_update(const tp_event *ev, tp_sack_ctx *c)
{
    uint32_t lo = ev->sack_start, hi = ev->sack_start + ev->sack_len, i;
    for (i = 0; i < 3u; i++) /* acked cumulatively: no longer SACKed */
        if (tp__before(c->top[i], ev->wnd_start))
            c->top[i] = ev->wnd_start - 1u;
    if (ev->sack_len == 0)
        return;
    if (tp__before(lo, ev->wnd_start))
        lo = ev->wnd_start;
    if (tp__before(ev->highest_sent, hi))
        hi = ev->highest_sent;
    for (i = 1; i <= 3u && tp__before(lo, hi - i + 1u); i++) /* the block's three highest */
        tp__sack_insert(c->top, hi - i);
}

/* The IsLost frontier: every unSACKed segment below it is lost; wnd_start when none is. */
static uint32_t tp__sack_frontier(const tp_event *ev, const tp_sack_ctx *c)
{
    uint32_t x = c->top[tp__sack_thresh(ev->params) - 1u];
    return tp__before(x, ev->wnd_start) ? ev->wnd_start : x;
}

/* RFC 6675 (C): SetPipe, then NextSeg rule 1 (one run of lost segments from HighRxt) and rule 2
 * (new data, while cwnd - pipe allows and nothing lost is left). */
static void tp__sack_send(const tp_event *ev, tp_sack_ctx *c, tp_actions *act, uint32_t seg)
{
    uint32_t ws = ev->wnd_start, hs = ev->highest_sent, x = tp__sack_frontier(ev, c), s, e;
    uint32_t sent = hs - ws, lost, rtx, pipe;
    int64_t room;
    if (tp__before(c->high_rxt, ws))
        c->high_rxt = ws;
    lost = (x - ws) - tp_bits_count(&ev->acked, ws, x);
    rtx = (c->high_rxt - ws) - tp_bits_count(&ev->acked, ws, c->high_rxt);
    pipe = sent - tp_bits_count(&ev->acked, ws, hs) - lost + rtx;
    room = (int64_t)(c->tcp.cwnd / seg) - pipe;
    s = tp_bits_find_first_zero(&ev->acked, c->high_rxt, x);
    if (room > 0 && s != x && (!act->mark_rtx || s == act->mark_to)) {
        e = tp_bits_find_first(&ev->acked, s, x);
        if ((int64_t)(e - s) > room)
            e = s + (uint32_t)room;
        if (!act->mark_rtx)
            act->mark_from = s;
        act->mark_rtx = true;
        act->mark_to = e;
        room -= e - s;
        c->high_rxt = e;
        s = tp_bits_find_first_zero(&ev->acked, e, x);
    }
    act->wnd_size = tp__tcp_clamp(ev, room > 0 && s == x ? (uint64_t)sent + (uint64_t)room : sent);
}

static void tp__sack_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    tp_sack_ctx c;
    tp__tcp_init(p, config, hz, ctx, act);
    RNIC_MEMCPY(&c, ctx, sizeof c.tcp);
    c.high_rxt = p->init_seq;
    c.top[0] = c.top[1] = c.top[2] = p->init_seq - 1u;
    RNIC_MEMCPY(ctx, &c, sizeof c);
}

static void tp__sack_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_sack_ctx c;
    uint32_t seg = tp__tcp_seg(ev), k = ev->new_wnd_start - ev->old_wnd_start, ws = ev->wnd_start;
    /* RFC 6675 dup ACK: the block SACKs something not acknowledged before */
    bool dup = ev->newly_sacked > 0 && ws != ev->highest_sent;
    if (!tp__tcp_is_ack(ev))
        return;
    RNIC_MEMCPY(&c, ctx, sizeof c);
    tp__sack_update(ev, &c);
    if (k > 0) { /* RFC 6675 5: a cumulative ACK resets DupAcks; RFC 6298 5.3 */
        c.tcp.dupacks = 0;
        tp__tcp_restart(ev, act);
    }
    if (c.tcp.state == TP_TCP_RECOVERY || c.tcp.state == TP_TCP_LOSS) {
        if (!tp__before(ev->new_wnd_start, c.tcp.recover)) { /* (A): recovery point covered */
            if (c.tcp.state == TP_TCP_RECOVERY)
                c.tcp.cwnd = c.tcp.ssthresh;
            c.tcp.state = TP_TCP_OPEN;
            tp__tcp_grow(&c.tcp, seg, k);
        } else if (c.tcp.state == TP_TCP_LOSS) {
            tp__tcp_grow(&c.tcp, seg, k); /* slow start after the timeout, dup ACKs ignored */
        } else {
            tp__sack_send(ev, &c, act, seg); /* (B), (C) */
        }
    } else {
        if (dup && c.tcp.dupacks < UINT16_MAX)
            c.tcp.dupacks++;
        c.tcp.state = c.tcp.dupacks ? TP_TCP_DISORDER : TP_TCP_OPEN;
        if (dup && (c.tcp.dupacks >= tp__sack_thresh(ev->params) || tp__before(ws, tp__sack_frontier(ev, &c)))) {
            c.tcp.recover = ev->highest_sent; /* (4): RecoveryPoint = HighData */
            c.tcp.ssthresh = tp__tcp_half(seg, ev->highest_sent - ws);
            c.tcp.cwnd = c.tcp.ssthresh;
            c.tcp.state = TP_TCP_RECOVERY;
            act->mark_rtx = true; /* (4.3): the first segment, HighRxt past it */
            act->mark_from = ws;
            act->mark_to = ws + 1u;
            c.high_rxt = ws + 1u;
            tp__sack_send(ev, &c, act, seg);
        } else if (k > 0) {
            tp__tcp_grow(&c.tcp, seg, k);
        }
    }
    c.tcp.cwnd_infl = c.tcp.cwnd;
    if (c.tcp.state != TP_TCP_RECOVERY) /* pipe = sent - SACKed: cwnd plus the SACKed (RFC 6675 (3)) */
        act->wnd_size = tp__tcp_wnd(ev, &c.tcp, seg, c.tcp.state == TP_TCP_LOSS ? 0u : tp_bits_count(&ev->acked, ws, ev->highest_sent));
    RNIC_MEMCPY(ctx, &c, sizeof c);
}

/* Timeout (RFC 6675 5.1): RecoveryPoint = HighData, recovery ends, go back N over the unSACKed
 * (the engine skips SACKed segments), ssthresh from FlightSize (RFC 5681 eq. 4). */
static void tp__sack_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_sack_ctx c;
    if (!ev->timeout)
        return;
    RNIC_MEMCPY(&c, ctx, sizeof c);
    tp__tcp_timeout(ev, &c.tcp, act, ev->highest_sent - ev->wnd_start);
    c.tcp.flags = 0;
    c.high_rxt = ev->wnd_start;
    RNIC_MEMCPY(ctx, &c, sizeof c);
}

static const tp_protocol tp__sack = {"sack", TP_CREDIT_WINDOW, sizeof(tp_sack_ctx), tp__sack_init,
                                     tp__sack_incoming, tp__sack_periodic, false, TP_MERGE_INCOMING, NULL, NULL};

TP_API const tp_protocol *tp_protocol_sack(void) { return &tp__sack; }
