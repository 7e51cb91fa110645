/* transport.h: the Tonic RTL timing profile (cfg.timing = TP_TIMING_TONIC_RTL). The same state and
 * protocol hooks as the paper profile, clocked as Tonic's published Verilog (github minmit/tonic,
 * src/tonic.v with the window credit engine) clocks them: every event takes the RTL's pipeline
 * (FIFO or input read, context look-up, processing stage), the two engines talk through five
 * registers each way, the active-flow FIFO is written back through a register (a flow with
 * nothing queued behind it is picked again at once instead), and the retransmission timer
 * follows the RTL's rules. Rules and depths: docs/transport_model.md, "Timing profiles". */

#define TP__RTL_QUEUE 16u      /* the credit engine's packet queue per flow (MAX_PKT_QUEUE_SIZE) */
#define TP__RTL_STOP 11u       /* back pressure from this many segments queued (the queue less 5) */
#define TP__RTL_START 10u      /* ... released below this many (the queue less 6) */
#define TP__RTL_LINE 7u        /* one engine's processing stage -> the other's: 5 registers, a read, a look-up */

static void tp__rtl_reset(tp *t)
{
    uint32_t i;
    tp__rtl *r = &t->rtl;
    r->next_l = r->next_p = r->to_l = r->to_p = r->tx_l = r->tx_p = RNIC_NONE;
    for (i = 0; i < 4u; i++)
        r->enq_reg[i] = RNIC_NONE;
    r->tx_reg[0] = r->tx_reg[1] = RNIC_NONE;
    for (i = 0; i < 8u; i++) {
        r->dp_line[i] = RNIC_NONE;
        r->gen_line[i].flow = RNIC_NONE;
    }
    r->in_l_on = r->in0_on = r->in1_on = 0;
}

/* A flow enters the active-flow FIFO when it opens (the RTL's testbench preloads every flow it
 * initialises); it leaves when found idle and comes back through the write-back ports. */
static void tp__rtl_open(tp *t, uint32_t f)
{
    t->flows[f].rtl_idle = 0;
    if (!tp__fifo_push(&t->active, f))
        t->stats.tx_stalls++; /* cannot happen: the FIFO holds max_flows ids */
}

/* New data for a flow found idle (the RTL has no message port: an infinite backlog): back in. */
static void tp__rtl_wake(tp *t, uint32_t f)
{
    tp__flow *fl = &t->flows[f];
    if (fl->rtl_idle && tp__fifo_push(&t->active, f))
        fl->rtl_idle = 0;
}

static bool tp__rtl_any(const tp *t, uint32_t f, uint32_t which)
{
    const uint64_t *w = tp__bitmap(t, f, which);
    uint32_t i;
    for (i = 0; i < t->wwords; i++)
        if (w[i])
            return true;
    return false;
}

/* Idle as the RTL stores it: no new segment inside the window and nothing marked anywhere in
 * the retransmission bitmap (bits outside the window count until generation masks them). */
static bool tp__rtl_idle(const tp *t, uint32_t f)
{
    const tp__flow *fl = &t->flows[f];
    bool more = fl->highest_sent != fl->data_end && tp__dist(fl->wnd_start + fl->wnd_size, fl->highest_sent) < 0;
    return !more && !tp__rtl_any(t, f, TP__MARKED);
}

/* Marks [from, to) in the retransmission bitmap, skipping acknowledged ones (no clipping to the
 * sent part: the RTL's dd_incoming_1 / dd_timeout set the range as the hook gives it). */
static void tp__rtl_mark(tp *t, uint32_t f, const tp_actions *a)
{
    uint32_t s, n;
    if (!a->mark_rtx)
        return;
    n = a->mark_to - a->mark_from;
    if (n > t->cfg.window)
        n = t->cfg.window;
    for (s = 0; s < n; s++) {
        uint32_t pos = (a->mark_from + s) & (t->cfg.window - 1u);
        if (!rnic_bitmap_test(tp__bitmap(t, f, TP__ACKED), pos))
            rnic_bitmap_set(tp__bitmap(t, f, TP__MARKED), pos);
    }
    t->stats.marks++;
    RNIC__TRACE(t, TP_TRACE_MARK, f, a->mark_from, a->mark_from + n);
}

static uint32_t tp__rtl_window(tp *t, uint32_t w)
{
    if (w < 1u || w > t->cfg.window) {
        t->stats.window_clamped++;
        return w < 1u ? 1u : t->cfg.window;
    }
    return w;
}

static void tp__rtl_in0(tp *t);

/* The message holding segment `seq` of flow f (NULL: none queued holds it). */
static const tp__msg *tp__rtl_msg(const tp *t, uint32_t f, uint32_t seq)
{
    const tp__flow *fl = &t->flows[f];
    uint32_t j, M = t->cfg.message_depth;
    for (j = 0; j < fl->msg_count; j++) {
        uint32_t at = fl->msg_head + j;
        const tp__msg *m = &t->msgs[(size_t)f * M + (at >= M ? at - M : at)];
        if (seq - m->first_seg < m->nsegs)
            return m;
    }
    return NULL;
}

/* Segment generation's output: the segment record, into the line to the credit engine. */
static void tp__rtl_emit(tp *t, uint32_t f, const tp__msg *m, uint32_t seq, bool rtx)
{
    tp__flow *fl = &t->flows[f];
    rnic_work *out = &t->rtl.gen_line[(t->now + TP__RTL_LINE) & 7u];
    *out = m->w;
    out->flow = f;
    out->index = seq;
    out->offset = (seq - m->first_seg) * fl->params.seg_size;
    out->len = m->w.len - out->offset < fl->params.seg_size ? m->w.len - out->offset : fl->params.seg_size;
    out->addr = m->w.addr + out->offset;
    out->raddr = m->w.raddr + out->offset;
    out->flags = (seq == m->first_seg ? RNIC_WORK_FIRST : 0u) | (seq + 1u == m->first_seg + m->nsegs ? RNIC_WORK_LAST : 0u) |
                 (rtx ? TP_WORK_RTX : 0u);
    out->status = 0;
    out->cycle = t->now;
    fl->total_sent++;
    if (rtx)
        t->stats.segments_rtx++;
    else
        t->stats.segments_new++;
    RNIC__TRACE(t, TP_TRACE_GENERATE, f, seq, rtx);
}

/* A hook's window and marks written back (the RTL's dd_incoming_1 / dd_timeout outputs). */
static void tp__rtl_hook_out(tp *t, uint32_t f, const tp_actions *a, uint64_t amnt)
{
    tp__flow *fl = &t->flows[f];
    uint32_t w = tp__rtl_window(t, a->wnd_size);
    tp__rtl_mark(t, f, a);
    if (w != fl->wnd_size) {
        RNIC__TRACE(t, TP_TRACE_WINDOW, f, w, fl->wnd_size);
        fl->wnd_size = w;
    }
    fl->timer_amount = amnt;
}

/* The data delivery engine's processing stage: segment generation (n), dequeue propagation
 * from the credit engine (d), Incoming stage 0 (i0) and 1 (i1), the timeout scan (o). Each reads
 * its flow as it was at the start of the cycle; the merge gives each field to its owner, and
 * the timer to the RTL's store port priority (generation, stage 1, dequeue, timeout). */
static void tp__rtl_dd(tp *t)
{
    tp__rtl *r = &t->rtl;
    uint32_t n = r->next_p, d = r->dp_line[t->now & 7u], i0 = r->in0_on ? r->in0.flow : RNIC_NONE;
    uint32_t i1 = r->in1_on ? r->in1.flow : RNIC_NONE, o = r->to_p, W = t->cfg.window;
    bool expired = false, n_gen = false, n_rtx = false, reset1 = false, d_act = false;
    bool idle0_i1 = false, idle0_o = false, on_o = false, on_i1 = false, on_n = false;
    uint32_t seq = 0, next_ws = 0, next_size = 0;
    uint64_t exp_d = 0, exp_i1 = 0, exp_n = 0, exp_o = 0, amnt1 = 0, amnt_o = 0;
    const tp__msg *m = NULL;
    tp_actions act1, act_o;
    r->dp_line[t->now & 7u] = RNIC_NONE;
    if (n != RNIC_NONE && (n >= t->cfg.max_flows || !t->flows[n].open))
        n = RNIC_NONE;
    if (d != RNIC_NONE && (d >= t->cfg.max_flows || !t->flows[d].open))
        d = RNIC_NONE;
    if (i1 != RNIC_NONE && !t->flows[i1].open)
        i1 = RNIC_NONE;
    if (o != RNIC_NONE && (o >= t->cfg.max_flows || !t->flows[o].open))
        o = RNIC_NONE;
    /* -- reads: the state at the start of the cycle -- */
    if (o != RNIC_NONE) {
        const tp__flow *fl = &t->flows[o];
        /* a timeout is cancelled while an ACK for its flow is in either Incoming stage */
        expired = fl->timer_on && fl->timer_deadline <= t->now && o != i0 && o != i1;
        idle0_o = fl->rtl_idle;
    }
    if (n != RNIC_NONE) { /* dd_next: the first marked segment inside the window, else a new one */
        const tp__flow *fl = &t->flows[n];
        tp_bits marked;
        uint32_t end = fl->wnd_start + fl->wnd_size;
        tp__view(t, n, TP__MARKED, &marked);
        next_ws = fl->wnd_start;
        next_size = fl->wnd_size;
        seq = tp_bits_find_first(&marked, fl->wnd_start, end);
        n_rtx = seq != end;
        if (!n_rtx && fl->highest_sent != fl->data_end && tp__dist(end, fl->highest_sent) < 0)
            seq = fl->highest_sent;
        m = seq != end ? tp__rtl_msg(t, n, seq) : NULL;
        n_gen = m != NULL;
        if (!n_gen) {
            n_rtx = false;
            seq = end;
        }
    }
    if (i1 != RNIC_NONE) { /* Incoming stage 1: the protocol's hook */
        tp__flow *fl = &t->flows[i1];
        tp_event ev;
        tp__event_fill(t, i1, &ev);
        ev.pkt = &r->in1;
        ev.pkt_type = TP_WORK_PKT_TYPE(r->in1.flags);
        ev.pkt_data = r->in1.aux;
        ev.ecn = (r->in1.flags & TP_WORK_ECN) != 0;
        ev.cum_ack = r->in1.index;
        ev.old_wnd_start = r->in1_old_wnd_start;
        ev.new_wnd_start = fl->wnd_start;
        ev.newly_acked = r->in1_newly_acked;
        tp__actions_preset(fl, &act1);
        if (t->proto->incoming)
            t->proto->incoming(&ev, tp__ctx(t, i1), &act1);
        reset1 = act1.reset_timer;
        amnt1 = act1.timer_amount ? act1.timer_amount : 1u;
        idle0_i1 = fl->rtl_idle;
    }
    if (expired) { /* dd_timeout: the protocol's periodic hook with timeout = true */
        tp__flow *fl = &t->flows[o];
        tp_event ev;
        tp__event_fill(t, o, &ev);
        ev.timeout = true;
        tp__actions_preset(fl, &act_o);
        if (t->proto->periodic) {
            t->proto->periodic(&ev, tp__ctx(t, o), &act_o);
            t->stats.periodic_runs++;
        }
        amnt_o = act_o.timer_amount ? act_o.timer_amount : 1u;
        t->stats.timeouts++;
        RNIC__TRACE(t, TP_TRACE_TIMEOUT, o, fl->wnd_start, fl->highest_sent);
    }
    if (d != RNIC_NONE) { /* dequeue propagation: a send starts the timer when it is off */
        const tp__flow *fl = &t->flows[d];
        uint64_t amnt_d = d == i1 ? amnt1 : d == o && expired ? amnt_o : fl->timer_amount;
        exp_d = d == i1 && reset1 ? t->now + amnt1
                : !fl->timer_on || (d == o && expired) ? t->now + amnt_d : fl->timer_deadline;
        d_act = fl->rtl_back_pressure && fl->outstanding <= TP__RTL_START;
    }
    if (i1 != RNIC_NONE) {
        const tp__flow *fl = &t->flows[i1];
        on_i1 = i1 == d || reset1 || fl->timer_on;
        exp_i1 = (d == i1 && !fl->timer_on) || reset1 ? t->now + amnt1 : fl->timer_deadline;
    }
    if (o != RNIC_NONE) {
        const tp__flow *fl = &t->flows[o];
        on_o = expired ? o == d : fl->timer_on;
        exp_o = d == o && expired ? exp_d : fl->timer_deadline;
    }
    if (n != RNIC_NONE) {
        const tp__flow *fl = &t->flows[n];
        on_n = n == d ? true : n == i1 ? on_i1 : n == o && expired ? false : fl->timer_on;
        exp_n = n == i1 && reset1 ? exp_i1 : n == d ? exp_d : fl->timer_deadline;
    }
    /* -- writes -- */
    tp__rtl_in0(t); /* Incoming stage 0 moves wnd_start (its own field) */
    if (i1 != RNIC_NONE)
        tp__rtl_hook_out(t, i1, &act1, amnt1);
    if (expired)
        tp__rtl_hook_out(t, o, &act_o, amnt_o);
    if (n != RNIC_NONE) {
        tp__flow *fl = &t->flows[n];
        uint64_t *marked = tp__bitmap(t, n, TP__MARKED);
        uint32_t k, pos = seq & (W - 1u);
        for (k = 0; k < W; k++) /* generation masks the retransmission bitmap to the window it read */
            if ((uint32_t)(((k - next_ws) & (W - 1u))) >= next_size)
                rnic_bitmap_clear(marked, k);
        rnic_bitmap_clear(marked, pos);
        if (n_gen) {
            if (n_rtx)
                rnic_bitmap_set(tp__bitmap(t, n, TP__RTXCNT), pos);
            else {
                rnic_bitmap_clear(tp__bitmap(t, n, TP__RTXCNT), pos);
                fl->highest_sent++;
            }
            tp__rtl_emit(t, n, m, seq, n_rtx);
        }
        if (n_gen && n != d)
            fl->outstanding++;
        else if (!n_gen && n == d)
            fl->outstanding--;
        fl->rtl_back_pressure = n == d ? 0 : fl->outstanding >= TP__RTL_STOP;
    }
    if (d != RNIC_NONE && d != n) {
        tp__flow *fl = &t->flows[d];
        fl->outstanding--;
        fl->rtl_back_pressure = fl->rtl_back_pressure && !d_act;
    }
    if (o != RNIC_NONE) {
        t->flows[o].timer_on = on_o;
        t->flows[o].timer_deadline = exp_o;
    }
    if (d != RNIC_NONE) {
        t->flows[d].timer_on = 1;
        t->flows[d].timer_deadline = exp_d;
    }
    if (i1 != RNIC_NONE) {
        t->flows[i1].timer_on = on_i1;
        t->flows[i1].timer_deadline = exp_i1;
    }
    if (n != RNIC_NONE) {
        t->flows[n].timer_on = on_n;
        t->flows[n].timer_deadline = exp_n;
    }
    /* -- idle flags and the write-backs into the active-flow FIFO (registered: seen next cycle) -- */
    r->enq_reg[0] = r->enq_reg[1] = r->enq_reg[2] = r->enq_reg[3] = RNIC_NONE;
    if (n != RNIC_NONE)
        t->flows[n].rtl_idle = tp__rtl_idle(t, n);
    if (i1 != RNIC_NONE)
        t->flows[i1].rtl_idle = tp__rtl_idle(t, i1);
    if (expired)
        t->flows[o].rtl_idle = tp__rtl_idle(t, o);
    if (d != RNIC_NONE && d != n && !t->flows[d].rtl_idle && d_act)
        r->enq_reg[1] = d;
    if (i1 != RNIC_NONE && i1 != n && !t->flows[i1].rtl_idle && idle0_i1 && !t->flows[i1].rtl_back_pressure &&
        (i1 != d || !d_act))
        r->enq_reg[2] = i1;
    if (expired && o != n && !t->flows[o].rtl_idle && idle0_o && !t->flows[o].rtl_back_pressure && (o != d || !d_act))
        r->enq_reg[3] = o;
    /* generation: the flow is picked again at once when nothing came out of the FIFO last
     * cycle, else written back */
    if (n != RNIC_NONE && !t->flows[n].rtl_idle && !t->flows[n].rtl_back_pressure) {
        if (r->next_l == RNIC_NONE)
            r->next_l = n;
        else
            r->enq_reg[0] = n;
    }
}

/* Incoming stage 0 (dd_incoming_0): the cumulative ack moves wnd_start; the acked bitmap is
 * cleared from the old start to the new one. Refusals as in the paper profile. */
static void tp__rtl_in0(tp *t)
{
    tp__rtl *r = &t->rtl;
    tp__flow *fl;
    uint32_t f = r->in0.flow, d, sent, before = 0;
    r->in1_on = 0;
    if (!r->in0_on)
        return;
    r->in0_on = 0;
    if (f >= t->cfg.max_flows || !t->flows[f].open) {
        tp__refuse(t, f, RNIC_ENOENT, r->in0.index);
        return;
    }
    fl = &t->flows[f];
    r->in1_old_wnd_start = fl->wnd_start;
    r->in1_newly_acked = 0;
    if (TP_WORK_PKT_TYPE(r->in0.flags) != TP_PKT_CNP) {
        sent = fl->highest_sent - fl->wnd_start;
        if (tp__dist(fl->wnd_start, r->in0.index) < 0) {
            tp__refuse(t, f, RNIC_ESTALE, r->in0.index);
            return;
        }
        d = r->in0.index - fl->wnd_start;
        if (d > sent) {
            tp__refuse(t, f, RNIC_ERANGE, r->in0.index);
            return;
        }
        if (d > 0) {
            tp_bits acked;
            tp__view(t, f, TP__ACKED, &acked);
            before = tp_bits_count(&acked, fl->wnd_start, r->in0.index);
            /* the retransmission bitmap keeps its bits: the RTL clears them only at generation */
            tp__range_words(t->cfg.window, fl->wnd_start, d, tp__bitmap(t, f, TP__ACKED),
                            tp__bitmap(t, f, TP__ACKED), tp__bitmap(t, f, TP__ACKED), NULL, 0);
            fl->wnd_start = r->in0.index;
            tp__note_completions(t, f);
        } else if (sent > 0) {
            t->stats.acks_dup++;
        }
        r->in1_newly_acked = d - before;
        t->stats.newly_acked += d - before;
    }
    t->stats.acks++;
    RNIC__TRACE(t, TP_TRACE_ACK, f, fl->wnd_start, r->in1_newly_acked);
    r->in1 = r->in0;
    r->in1_on = 1;
}

/* The credit engine (cr_core, window credit): enqueue of the segment generated TP__RTL_LINE
 * cycles ago, transmit of the flow at its processing stage, ready-to-tx written back through a
 * register (a flow with nothing behind it in ready-to-tx is picked again at once). */
static void tp__rtl_cr(tp *t)
{
    tp__rtl *r = &t->rtl;
    rnic_work *e = &r->gen_line[t->now & 7u];
    uint32_t x = r->tx_p, enq_req = RNIC_NONE, tx_req = RNIC_NONE;
    bool repick = false;
    if (e->flow != RNIC_NONE && !t->flows[e->flow].open)
        e->flow = RNIC_NONE;
    if (x != RNIC_NONE && (!t->flows[x].open || t->flows[x].ring_count == 0))
        x = RNIC_NONE;
    if (e->flow != RNIC_NONE && t->flows[e->flow].ring_count == 0)
        enq_req = e->flow; /* the queue goes from empty to one: ready to transmit */
    if (x != RNIC_NONE) {
        tp__flow *fl = &t->flows[x];
        rnic_work seg = tp__ring(t, x)[fl->ring_head & (t->cfg.ring - 1u)];
        if (tp__port_full(&t->tx)) {
            t->stats.tx_stalls++; /* the RTL's outq would stop ready-to-tx reads; here the caller drains */
        } else {
            tp__emit_head(t, x, &seg);
            r->dp_line[(t->now + TP__RTL_LINE) & 7u] = x;
        }
    }
    if (e->flow != RNIC_NONE) {
        tp__flow *fl = &t->flows[e->flow];
        if (fl->ring_count < t->cfg.ring) {
            tp__ring(t, e->flow)[(fl->ring_head + fl->ring_count) & (t->cfg.ring - 1u)] = *e;
            fl->ring_count++;
        } else {
            tp__refuse(t, e->flow, RNIC_ENOSPC, e->index); /* beyond the RTL's queue: cannot happen below TP__RTL_STOP */
        }
        e->flow = RNIC_NONE;
    }
    if (x != RNIC_NONE && t->flows[x].ring_count > 0) {
        if (r->tx_l == RNIC_NONE)
            repick = true;
        else
            tx_req = x;
    }
    /* the pipeline moves: processing <- look-up (or the re-pick); look-up <- ready-to-tx's head */
    r->tx_p = repick ? x : r->tx_l;
    if (r->tx_reg[0] != RNIC_NONE)
        tp__fifo_push(&t->ready, r->tx_reg[0]);
    if (r->tx_reg[1] != RNIC_NONE)
        tp__fifo_push(&t->ready, r->tx_reg[1]);
    r->tx_l = t->ready.count ? tp__fifo_pop(&t->ready) : RNIC_NONE;
    r->tx_reg[0] = enq_req;
    r->tx_reg[1] = tx_req;
}

static void tp__rtl_tick(tp *t)
{
    tp__rtl *r = &t->rtl;
    uint32_t k, last[4];
    for (k = 0; k < 4u; k++)
        last[k] = r->enq_reg[k];
    tp__rtl_cr(t);
    tp__rtl_dd(t);
    /* segment generation: processing <- look-up; look-up <- the FIFO's head after last cycle's
     * registered write-backs (ports 0..3 in order; a first-word-fall-through FIFO) */
    r->next_p = r->next_l;
    for (k = 0; k < 4u; k++)
        if (last[k] != RNIC_NONE && !tp__fifo_push(&t->active, last[k]))
            t->stats.tx_stalls++; /* cannot happen: the FIFO holds max_flows ids */
    r->next_l = t->active.count ? tp__fifo_pop(&t->active) : RNIC_NONE;
    /* Incoming: look-up -> stage 0; the input FIFO's head -> look-up */
    r->in0 = r->in_l;
    r->in0_on = r->in_l_on;
    r->in_l_on = tp__port_pop(&t->incoming, &r->in_l);
    /* the timeout scan: one flow id per cycle, processed two cycles after its read */
    r->to_p = r->to_l;
    r->to_l = t->scan;
    tp__complete(t);
    t->stats.cycles++;
    t->now++;
    t->scan = t->scan + 1u == t->cfg.max_flows ? 0 : t->scan + 1u;
}
