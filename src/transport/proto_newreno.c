/* transport.h: TCP NewReno (RFC 6582; App. F of the paper) as ns-3 3.37 runs it: TcpNewReno
 * congestion ops with TcpClassicRecovery, no SACK, limited transmit. ns-3 counts each duplicate
 * ACK as one delivered segment ("Reno SACK": TcpTxBuffer::AddRenoSack); ctx.sacked is that count,
 * and the window is cwnd / seg + sacked, which is ns-3's cwnd - BytesInFlight test. During
 * recovery cwnd = ssthresh and cwnd_infl = ssthresh + 3 segments, + 1 per further dup ACK,
 * deflated by partial ACKs (RFC 6582 3.2 step 5), as ns-3's m_cWndInfl. */

/* A dup ACK counted as delivered (ns-3 AddRenoSack): the counted segments are one run, from
 * wnd_start + 1 (or from wnd_start once an ACK made a counted segment the head); a new one is
 * the first uncounted after the head, if any. */
static void tp__newreno_sack1(tp_tcp_ctx *c, uint32_t sent)
{
    if ((uint32_t)c->sacked + ((c->flags & TP_TCP_F_HEAD) ? 0u : 1u) < sent && c->sacked < UINT16_MAX)
        c->sacked++;
}

/* ns-3 EnterRecovery: recover = highest_sent, ssthresh from the data in flight (dup-acked
 * segments out, the head counted in), cwnd = ssthresh, cwnd_infl = ssthresh + dupacks segments,
 * the head marked for retransmission (it is sent whatever the window: it is inside it). */
static void tp__newreno_enter(const tp_event *ev, tp_tcp_ctx *c, tp_actions *act, uint32_t seg)
{
    uint32_t sent = ev->highest_sent - ev->wnd_start;
    tp__newreno_sack1(c, sent);
    if (c->flags & TP_TCP_F_HEAD) { /* MarkHeadAsLost uncounts a counted head */
        c->sacked--;
        c->flags &= (uint8_t)~TP_TCP_F_HEAD;
    }
    c->recover = ev->highest_sent;
    c->flags = (uint8_t)((c->flags & TP_TCP_F_HEAD) | TP_TCP_F_ACTIVE);
    c->state = TP_TCP_RECOVERY;
    c->ssthresh = tp__tcp_half(seg, sent - c->sacked);
    c->cwnd = c->ssthresh;
    c->cwnd_infl = c->ssthresh + (uint32_t)c->dupacks * seg;
    act->mark_rtx = true;
    act->mark_from = ev->wnd_start;
    act->mark_to = ev->wnd_start + 1u;
}

/* May three duplicate ACKs start fast retransmit? Always before recover is set; after, the rule
 * of param[3]: RFC 6582 3.2 step 2 asks the ACK to cover more than recover (the segments
 * outstanding when recovery or the timeout began, and at least one more), and recover stays set;
 * ns-3 (m_highRxAckMark >= m_recover, and m_recoverActive cleared once the ACK reaches recover)
 * and Tonic's App. F (recover = the highest segment sent, inclusive, ack > recover) let an ACK
 * that just reaches it do, so the duplicates a go-back-N after a timeout produces start one. */
static void tp__newreno_incoming(const tp_event *ev, void *ctx, tp_actions *act);

static bool tp__newreno_recover_ok(const tp_event *ev, const tp_tcp_ctx *c)
{
    if (!(c->flags & TP_TCP_F_ACTIVE))
        return true;
    if (ev->params->param[3] == TP_NEWRENO_RECOVER_RFC6582)
        return tp__before(c->recover, ev->wnd_start);
    return !tp__before(ev->wnd_start, c->recover);
}

/* tp_flow_open asks this of every protocol: NewReno's param[3] is one of TP_NEWRENO_RECOVER_*
 * (a copy of the protocol has the same hook, so variants are checked too). */
static bool tp__flow_params_ok(const tp_protocol *proto, const tp_flow_config *p)
{
    return proto->incoming != tp__newreno_incoming || p->param[3] <= TP_NEWRENO_RECOVER_RFC6582;
}

static void tp__newreno_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_tcp_ctx c;
    uint32_t seg = tp__tcp_seg(ev), k = ev->new_wnd_start - ev->old_wnd_start;
    uint32_t sent = ev->highest_sent - ev->wnd_start, thresh = tp__tcp_thresh(ev->params), segs = k;
    if (!tp__tcp_is_ack(ev))
        return;
    tp__tcp_load(&c, ctx);
    if (tp__tcp_is_dup(ev)) {
        if (c.state == TP_TCP_RECOVERY) { /* ns-3 DupAck in recovery: DoRecovery */
            tp__newreno_sack1(&c, sent);
            c.cwnd_infl += seg;
        } else if (c.state != TP_TCP_LOSS) { /* dup ACKs after a timeout are ignored */
            bool may = tp__newreno_recover_ok(ev, &c);
            c.dupacks++;
            c.state = TP_TCP_DISORDER;
            if (!may && ev->params->param[3] == TP_NEWRENO_RECOVER_RFC6582) {
                /* RFC 6582 3.2 step 2: no fast retransmit (by either test), ssthresh kept;
                 * limited transmit for the first two only (RFC 3042), as below */
                if (c.dupacks < thresh && tp__tcp_lt(ev->params))
                    tp__newreno_sack1(&c, sent);
            } else if ((c.dupacks == thresh && may) ||
                       c.sacked - ((c.flags & TP_TCP_F_HEAD) ? 1u : 0u) >= thresh) /* ns-3 IsLost(head) */
                tp__newreno_enter(ev, &c, act, seg);
            else if (tp__tcp_lt(ev->params))
                tp__newreno_sack1(&c, sent); /* limited transmit: one more segment may go */
        }
    } else if (k > 0) {
        /* counted segments leave the count as they are acked (DiscardUpTo); the rest then
         * starts at the new head; a partial ACK uncounts the head (MarkHeadAsLost) */
        uint32_t off = (c.flags & TP_TCP_F_HEAD) ? 0u : 1u, run = off + c.sacked;
        c.sacked = (uint16_t)(run > k ? run - k : 0u);
        c.flags = (uint8_t)(c.sacked ? c.flags | TP_TCP_F_HEAD : c.flags & ~TP_TCP_F_HEAD);
        c.dupacks = 0;
        if (c.state == TP_TCP_RECOVERY && tp__before(ev->new_wnd_start, c.recover)) {
            if (c.sacked) {
                c.sacked--;
                c.flags &= (uint8_t)~TP_TCP_F_HEAD;
            }
            /* partial ACK (RFC 6582 3.2 step 5): retransmit the next hole, deflate by the
             * amount acked and add one segment back; restart the timer on the first only */
            c.cwnd_infl = c.cwnd_infl + seg > k * seg ? c.cwnd_infl + seg - k * seg : 0u;
            act->mark_rtx = true;
            act->mark_from = ev->new_wnd_start;
            act->mark_to = ev->new_wnd_start + 1u;
            if (!(c.flags & TP_TCP_F_PARTIAL))
                tp__tcp_restart(ev, act);
            c.flags |= TP_TCP_F_PARTIAL;
        } else {
            if (c.state == TP_TCP_LOSS && tp__before(ev->new_wnd_start, c.recover)) {
                segs = k; /* still in loss: slow start from 1 segment (ns-3 leaves m_cWndInfl) */
            } else {
                if (c.state == TP_TCP_RECOVERY) /* full ACK: cwnd = ssthresh (ns-3 exit) */
                    c.cwnd = c.ssthresh;
                else if (c.state == TP_TCP_LOSS) /* ns-3 counts the segments past recover */
                    segs = ev->new_wnd_start - c.recover;
                c.state = TP_TCP_OPEN;
                /* ns-3 forgets recover here (m_recoverActive = false); RFC 6582 keeps it for
                 * the next third duplicate ACK's check */
                c.flags &= ev->params->param[3] == TP_NEWRENO_RECOVER_RFC6582 ? TP_TCP_F_HEAD | TP_TCP_F_ACTIVE : TP_TCP_F_HEAD;
            }
            tp__tcp_grow(&c, seg, segs);
            if (c.state == TP_TCP_OPEN)
                c.cwnd_infl = c.cwnd;
            tp__tcp_restart(ev, act);
        }
    }
    act->wnd_size = tp__tcp_wnd(ev, &c, seg, c.sacked);
    tp__tcp_store(ctx, &c);
}

/* Timeout: ns-3's in-flight estimate (sent minus dup-acked minus those marked lost and not yet
 * retransmitted) halves ssthresh. */
static void tp__newreno_periodic(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp_tcp_ctx c;
    uint32_t sent = ev->highest_sent - ev->wnd_start, lost;
    if (!ev->timeout)
        return;
    tp__tcp_load(&c, ctx);
    lost = tp_bits_count(&ev->marked_for_rtx, ev->wnd_start, ev->highest_sent);
    tp__tcp_timeout(ev, &c, act, sent > c.sacked + lost ? sent - c.sacked - lost : 0u);
    tp__tcp_store(ctx, &c);
}

static const tp_protocol tp__newreno = {"newreno", TP_CREDIT_WINDOW, sizeof(tp_tcp_ctx), tp__tcp_init,
                                        tp__newreno_incoming, tp__newreno_periodic, false, TP_MERGE_INCOMING, NULL, NULL};

TP_API const tp_protocol *tp_protocol_newreno(void) { return &tp__newreno; }
