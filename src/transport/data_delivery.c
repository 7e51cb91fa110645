/* transport.h: the data delivery engine (§3.2, Fig. 2 left): Incoming (a fixed stage, then the
 * protocol's stage the next cycle), Periodic updates (one flow id per cycle), Segment generation
 * (one active flow per cycle: retransmissions first, then new data inside the window) and
 * Segment transmitted (step 9). Cycle contract: docs/transport_model.md. */

#define TP__ACKED 0u
#define TP__MARKED 1u
#define TP__RTXCNT 2u

/* Segment-id distance b - a as a signed number (ids are free-running modulo 2^32). */
static int32_t tp__dist(uint32_t a, uint32_t b) { return (int32_t)(b - a); }

static uint64_t *tp__bitmap(const tp *t, uint32_t flow, uint32_t which)
{
    return t->bits + ((size_t)flow * 3u + which) * t->wwords;
}

static void tp__view(const tp *t, uint32_t flow, uint32_t which, tp_bits *v)
{
    v->words = tp__bitmap(t, flow, which);
    v->nbits = t->cfg.window;
    v->base = t->flows[flow].wnd_start;
}

static unsigned char *tp__ctx(const tp *t, uint32_t flow) { return t->ctx + (size_t)flow * t->ctx_stride; }

/* Ring positions [start, start + count) of W-bit bitmaps, a word at a time. op 0: clear them in
 * a, b and c, returning how many were set in b; op 1: set them in a where mask_out is clear,
 * returning how many were newly set. */
static uint32_t tp__range_words(uint32_t nbits, uint32_t start, uint32_t count, uint64_t *a, uint64_t *b, uint64_t *c,
                                const uint64_t *mask_out, int op)
{
    uint32_t n_b = 0;
    while (count > 0) {
        uint32_t pos = start & (nbits - 1u), word = pos >> 6, lo = pos & 63u;
        uint32_t n = 64u - lo < count ? 64u - lo : count;
        uint64_t m = rnic__bits_between(lo, lo + n);
        if (op == 0) { /* clear in all three */
            n_b += rnic_popcount64(b[word] & m);
            a[word] &= ~m;
            b[word] &= ~m;
            c[word] &= ~m;
        } else { /* set in a the bits not set in mask_out */
            uint64_t add = m & ~mask_out[word] & ~a[word];
            n_b += rnic_popcount64(add);
            a[word] |= add;
        }
        start += n;
        count -= n;
    }
    return n_b;
}

/* Is there a segment to (re)generate, and room in the credit engine's ring? */
static bool tp__eligible(const tp *t, uint32_t f)
{
    const tp__flow *fl = &t->flows[f];
    tp_bits marked;
    uint32_t sent, end;
    if (!fl->open || fl->outstanding >= t->cfg.ring)
        return false;
    sent = fl->highest_sent - fl->wnd_start;
    if (fl->highest_sent != fl->data_end && sent < fl->wnd_size)
        return true;
    if (fl->marked == 0)
        return false;
    end = fl->wnd_start + (sent < fl->wnd_size ? sent : fl->wnd_size);
    tp__view(t, f, TP__MARKED, &marked);
    return tp_bits_find_first(&marked, fl->wnd_start, end) != end;
}

static void tp__activate(tp *t, uint32_t f)
{
    tp__flow *fl = &t->flows[f];
    if (t->cfg.timing == TP_TIMING_TONIC_RTL) /* the RTL's FIFO is fed by its own write-back ports (rtl.c) */
        return;
    if (!fl->in_active && tp__eligible(t, f) && tp__fifo_push(&t->active, f))
        fl->in_active = 1;
}

/* The first visit of the periodic scan to `f` at or after cycle `at` (the scan visits flow id
 * t->scan in cycle t->now, then the next id each cycle). */
static uint64_t tp__visit_at(const tp *t, uint32_t f, uint64_t at)
{
    uint64_t span = at - t->now;
    uint32_t nflows = t->cfg.max_flows, ahead = (uint32_t)(span - rnic_udiv64(span, nflows) * nflows);
    uint32_t scan_then = t->scan + ahead >= nflows ? t->scan + ahead - nflows : t->scan + ahead;
    return at + (f >= scan_then ? f - scan_then : f + nflows - scan_then);
}

/* The rtx timers' heap is lazy: restarting a timer later (every new ACK does) or stopping it
 * leaves the flow's heap entry where it was; when an entry comes due, tp__timers_due moves it
 * to the flow's current visit or drops it. An entry is never later than its flow's visit. */
static void tp__timer_start(tp *t, uint32_t f, uint64_t deadline, uint64_t earliest)
{
    tp__flow *fl = &t->flows[f];
    uint32_t slot = t->rtx_timers.pos[f];
    fl->timer_deadline = deadline;
    fl->timer_fire = tp__visit_at(t, f, rnic__cycle_before(deadline, earliest) ? earliest : deadline);
    fl->timer_on = 1;
    if (slot == RNIC_NONE || rnic__cycle_before(fl->timer_fire, t->rtx_timers.key[slot]))
        rnic__heap_set(&t->rtx_timers, f, fl->timer_fire);
}

static void tp__timer_stop(tp *t, uint32_t f) { t->flows[f].timer_on = 0; }

static bool tp__timer_running(const tp *t, uint32_t f) { return t->flows[f].timer_on != 0; }

/* Heap entries due by now: a running timer whose visit is later is re-keyed, a stopped one or
 * one firing now leaves the heap (the periodic scan sees the firing one this cycle). */
static void tp__timers_due(tp *t)
{
    while (t->rtx_timers.count && !rnic__cycle_before(t->now, rnic__heap_min(&t->rtx_timers))) {
        uint32_t f = t->rtx_timers.id[0];
        const tp__flow *fl = &t->flows[f];
        if (fl->timer_on && rnic__cycle_before(t->now, fl->timer_fire))
            rnic__heap_set(&t->rtx_timers, f, fl->timer_fire);
        else
            rnic__heap_remove(&t->rtx_timers, f);
    }
}

static uint64_t tp__rate_credit_at(const tp__flow *fl, uint64_t now); /* credit.c */

static void tp__event_fill(const tp *t, uint32_t f, tp_event *ev)
{
    const tp__flow *fl = &t->flows[f];
    /* every field written (no memset: this runs for every hook call) */
    ev->timeout = false;
    ev->pkt = NULL;
    ev->pkt_type = ev->pkt_data = 0;
    ev->ecn = false;
    ev->sack_start = fl->wnd_start;
    ev->sack_len = ev->newly_acked = ev->newly_sacked = 0;
    ev->flow = f;
    ev->now = t->now;
    ev->now_ns = rnic_cycles_to_ns(t->now, t->cfg.clock_hz);
    tp__view(t, f, TP__ACKED, &ev->acked);
    tp__view(t, f, TP__MARKED, &ev->marked_for_rtx);
    tp__view(t, f, TP__RTXCNT, &ev->rtx_cnt);
    ev->wnd_start = fl->wnd_start;
    ev->old_wnd_start = ev->new_wnd_start = fl->wnd_start;
    ev->cum_ack = fl->wnd_start;
    ev->wnd_size = fl->wnd_size;
    ev->highest_sent = fl->highest_sent;
    ev->data_end = fl->data_end;
    ev->total_sent = fl->total_sent;
    ev->outstanding = fl->outstanding;
    ev->is_idle = fl->highest_sent == fl->data_end;
    ev->timer_amount = fl->timer_amount;
    ev->timer_running = tp__timer_running(t, f);
    ev->rate_bps = fl->rate_bps;
    ev->credit = t->proto->credit == TP_CREDIT_RATE ? tp__rate_credit_at(fl, t->now) >> 20 : fl->credit_fx;
    ev->params = &fl->params;
    ev->window_bits = t->cfg.window;
    ev->clock_hz = t->cfg.clock_hz;
    ev->config = t->proto->config;
}

static void tp__actions_preset(const tp__flow *fl, tp_actions *a)
{
    RNIC_MEMSET(a, 0, sizeof *a);
    a->wnd_size = fl->wnd_size;
    a->rate_bps = fl->rate_bps;
    a->timer_amount = fl->timer_amount;
}

/* Wake-ups (docs/transport_model.md, "Wake-ups"): a protocol whose periodic hook runs at every
 * visit may declare when it can next change anything; the visits before are skipped (the hook
 * would return "no change"), so an engine with open flows need not be due every cycle. */
static bool tp__wakes(const tp *t) { return t->proto->periodic_every_visit && t->proto->periodic; }

/* Flow f's periodic hook is due at every visit again (nothing declared, an incoming hook changed
 * the context, or a merge discarded the periodic hook's results). */
static void tp__wake_every(tp *t, uint32_t f)
{
    tp__flow *fl = &t->flows[f];
    if (!fl->wake_declared)
        return;
    fl->wake_declared = 0;
    fl->wake_visit = RNIC_NEVER;
    t->every_visit_flows++;
    rnic__heap_remove(&t->wake_timers, f);
}

/* A hook's declaration for flow f; `earliest`: the first cycle whose visit it may excuse (the
 * periodic hook: the next cycle; an incoming hook, which runs before this cycle's visit: now). */
static void tp__wake_set(tp *t, uint32_t f, const tp_actions *a, uint64_t earliest)
{
    tp__flow *fl = &t->flows[f];
    if (a->wake == TP_WAKE_KEEP && fl->wake_declared)
        return;
    if (a->wake != TP_WAKE_AT) {
        tp__wake_every(t, f);
        return;
    }
    if (!fl->wake_declared) {
        fl->wake_declared = 1;
        t->every_visit_flows--;
    }
    fl->wake_sent_on = a->wake_sent_on;
    fl->wake_sent = a->wake_sent;
    if (a->wake_at == RNIC_NEVER) {
        fl->wake_visit = RNIC_NEVER;
        rnic__heap_remove(&t->wake_timers, f);
        return;
    }
    fl->wake_visit = tp__visit_at(t, f, rnic__cycle_before(a->wake_at, earliest) ? earliest : a->wake_at);
    rnic__heap_set(&t->wake_timers, f, fl->wake_visit);
}

/* Segment generation raised total_sent to the declared count: due at the next visit. */
static void tp__wake_sent(tp *t, uint32_t f)
{
    tp__flow *fl = &t->flows[f];
    uint64_t v;
    if (!fl->wake_declared || !fl->wake_sent_on || fl->total_sent != fl->wake_sent)
        return;
    v = tp__visit_at(t, f, t->now + 1u);
    if (t->wake_timers.pos[f] == RNIC_NONE || rnic__cycle_before(v, fl->wake_visit)) {
        fl->wake_visit = v;
        rnic__heap_set(&t->wake_timers, f, v);
    }
}

static void tp__credit_set_rate(tp *t, uint32_t f, uint64_t bps);
static void tp__credit_add(tp *t, uint32_t f, uint64_t bytes);
static void tp__credit_acked(tp *t, uint32_t f);

/* Write a hook's outputs back (the Merge modules of Fig. 2). `earliest`: the first cycle a
 * re-armed timer may be seen by the periodic scan. */
static void tp__apply(tp *t, uint32_t f, const tp_actions *a, uint64_t earliest)
{
    tp__flow *fl = &t->flows[f];
    uint32_t w = a->wnd_size;
    if (a->mark_rtx) {
        uint32_t sent = fl->highest_sent - fl->wnd_start;
        int32_t lo = tp__dist(fl->wnd_start, a->mark_from), hi = tp__dist(fl->wnd_start, a->mark_to);
        if (lo < 0)
            lo = 0;
        if (hi > (int32_t)sent)
            hi = (int32_t)sent;
        if (hi > lo) {
            fl->marked += tp__range_words(t->cfg.window, fl->wnd_start + (uint32_t)lo, (uint32_t)(hi - lo),
                                          tp__bitmap(t, f, TP__MARKED), NULL, NULL, tp__bitmap(t, f, TP__ACKED), 1);
            t->stats.marks++;
            RNIC__TRACE(t, TP_TRACE_MARK, f, fl->wnd_start + (uint32_t)lo, fl->wnd_start + (uint32_t)hi);
        }
    }
    if (w < 1u || w > t->cfg.window) {
        w = w < 1u ? 1u : t->cfg.window;
        t->stats.window_clamped++;
    }
    if (w != fl->wnd_size) {
        RNIC__TRACE(t, TP_TRACE_WINDOW, f, w, fl->wnd_size);
        fl->wnd_size = w;
    }
    fl->timer_amount = a->timer_amount;
    if (fl->timer_amount == 0 || fl->timer_amount > ((uint64_t)1 << 62)) { /* keep deadlines comparable */
        fl->timer_amount = fl->timer_amount ? (uint64_t)1 << 62 : 1u;
        t->stats.timer_clamped++;
    }
    if (a->reset_timer)
        tp__timer_start(t, f, t->now + fl->timer_amount, earliest);
    if (t->proto->credit == TP_CREDIT_RATE && a->rate_bps != fl->rate_bps)
        tp__credit_set_rate(t, f, a->rate_bps);
    if (a->add_credit)
        tp__credit_add(t, f, a->add_credit);
    if (fl->wnd_start == fl->highest_sent) /* nothing in flight: no timer (RFC 6298 5.2) */
        tp__timer_stop(t, f);
    tp__activate(t, f);
}

/* Completions: head messages whose segments are all below wnd_start. */
static void tp__note_completions(tp *t, uint32_t f)
{
    tp__flow *fl = &t->flows[f];
    while (fl->msg_done < fl->msg_count) {
        const tp__msg *m = &t->msgs[(size_t)f * t->cfg.message_depth + (fl->msg_head + fl->msg_done) % t->cfg.message_depth];
        if (tp__dist(m->first_seg + m->nsegs, fl->wnd_start) < 0)
            break;
        fl->msg_done++;
    }
    if (fl->msg_done && !fl->in_compl && tp__fifo_push(&t->compl_flows, f))
        fl->in_compl = 1;
}

static void tp__refuse(tp *t, uint32_t f, rnic_err e, uint64_t value)
{
    rnic_err_note(&t->stats.errors, e);
    RNIC__TRACE(t, RNIC_TRACE_REFUSE, f, value, e);
}

/* Incoming, fixed stage: validate, move the window, slide the bitmaps, record the SACK block. */
static void tp__incoming_fixed(tp *t)
{
    tp__incoming *in = &t->stage2;
    tp__flow *fl;
    uint32_t f, sent, d, before = 0, fresh = 0;
    if (!tp__port_pop(&t->incoming, &in->pkt))
        return;
    f = in->pkt.flow;
    if (f >= t->cfg.max_flows || !t->flows[f].open) {
        tp__refuse(t, f, RNIC_ENOENT, in->pkt.index);
        return;
    }
    fl = &t->flows[f];
    in->old_wnd_start = in->new_wnd_start = fl->wnd_start;
    in->newly_acked = 0;
    in->newly_sacked = 0;
    in->sack_start = fl->wnd_start;
    in->sack_len = 0;
    if (TP_WORK_PKT_TYPE(in->pkt.flags) == TP_PKT_GRANT && in->pkt.aux) /* tokens count even when the ack fields are refused */
        tp__credit_add(t, f, in->pkt.aux);
    if (TP_WORK_PKT_TYPE(in->pkt.flags) != TP_PKT_CNP) {
        sent = fl->highest_sent - fl->wnd_start;
        if (tp__dist(fl->wnd_start, in->pkt.index) < 0) {
            tp__refuse(t, f, RNIC_ESTALE, in->pkt.index);
            return;
        }
        d = in->pkt.index - fl->wnd_start;
        if (d > sent) { /* acknowledges what was never sent */
            tp__refuse(t, f, RNIC_ERANGE, in->pkt.index);
            return;
        }
        if (d > 0) {
            tp_bits acked;
            tp__view(t, f, TP__ACKED, &acked);
            before = tp_bits_count(&acked, fl->wnd_start, in->pkt.index);
            fl->marked -= tp__range_words(t->cfg.window, fl->wnd_start, d, tp__bitmap(t, f, TP__ACKED),
                                          tp__bitmap(t, f, TP__MARKED), tp__bitmap(t, f, TP__RTXCNT), NULL, 0);
            fl->wnd_start = in->pkt.index;
        } else if (sent > 0) {
            t->stats.acks_dup++;
        }
        if (in->pkt.len > 0) { /* the SACK block, clipped to what is sent and not yet acked */
            int64_t lo = tp__dist(fl->wnd_start, in->pkt.offset); /* 64-bit: no overflow for any block */
            int64_t hi = lo + (in->pkt.len > t->cfg.window ? t->cfg.window : in->pkt.len);
            int64_t top = (int64_t)(fl->highest_sent - fl->wnd_start);
            if (hi > top || in->pkt.len > t->cfg.window)
                t->stats.sack_clipped++;
            lo = lo < 0 ? 0 : lo;
            hi = hi > top ? top : hi;
            if (hi > lo) {
                uint64_t *acked = tp__bitmap(t, f, TP__ACKED), *marked = tp__bitmap(t, f, TP__MARKED);
                tp_bits view;
                uint32_t start = fl->wnd_start + (uint32_t)lo, n = (uint32_t)(hi - lo);
                tp__view(t, f, TP__ACKED, &view);
                fresh = n - tp_bits_count(&view, start, start + n);
                if (fl->marked) {
                    view.words = marked;
                    fl->marked -= tp_bits_count(&view, start, start + n);
                }
                rnic_bitmap_set_range(acked, t->cfg.window, start & (t->cfg.window - 1u), n);
                rnic_bitmap_clear_range(marked, t->cfg.window, start & (t->cfg.window - 1u), n);
                in->sack_start = start;
                in->sack_len = n;
            }
        }
        in->newly_acked = d - before + fresh;
        in->newly_sacked = fresh;
        in->new_wnd_start = fl->wnd_start;
        t->stats.newly_acked += in->newly_acked;
        if (d > 0)
            tp__note_completions(t, f);
        if (in->newly_acked)
            tp__credit_acked(t, f);
    }
    t->stats.acks++;
    RNIC__TRACE(t, TP_TRACE_ACK, f, fl->wnd_start, in->newly_acked);
    t->stage2_valid = true;
    tp__activate(t, f);
}

/* Incoming, programmable stage (one cycle after the fixed stage). */
static void tp__incoming_hook(tp *t)
{
    const tp__incoming *in = &t->stage2;
    uint32_t f = in->pkt.flow;
    tp__flow *fl = &t->flows[f];
    tp_event ev;
    tp_actions act;
    t->stage2_valid = false;
    if (!fl->open)
        return;
    tp__event_fill(t, f, &ev);
    ev.pkt = &in->pkt;
    ev.pkt_type = TP_WORK_PKT_TYPE(in->pkt.flags);
    ev.pkt_data = in->pkt.aux;
    ev.ecn = (in->pkt.flags & TP_WORK_ECN) != 0;
    ev.cum_ack = ev.pkt_type == TP_PKT_CNP ? fl->wnd_start : in->pkt.index;
    ev.sack_start = in->sack_start;
    ev.sack_len = in->sack_len;
    ev.newly_acked = in->newly_acked;
    ev.newly_sacked = in->newly_sacked;
    ev.old_wnd_start = in->old_wnd_start;
    ev.new_wnd_start = in->new_wnd_start;
    tp__actions_preset(fl, &act);
    if (t->proto->incoming)
        t->proto->incoming(&ev, tp__ctx(t, f), &act);
    tp__apply(t, f, &act, t->now);
    if (tp__wakes(t))
        tp__wake_set(t, f, &act, t->now);
}

/* Periodic updates: the flow id `t->scan` this cycle. `hit` is the flow the Incoming hook
 * updated this cycle (RNIC_NONE if none), `fired` whether this flow's timer was due at the
 * start of the cycle, `pre` its context before the Incoming hook (when both run). */
static void tp__periodic(tp *t, uint32_t hit, bool fired, const unsigned char *pre)
{
    uint32_t f = t->scan;
    tp__flow *fl = &t->flows[f];
    tp_event ev;
    tp_actions act;
    bool timeout = false;
    if (fl->open) {
        if (fired && f == hit) {
            /* §3.4: a timeout in the cycle of an ACK for the flow is discarded; a timer the ACK
             * did not re-arm is seen again at the flow's next visit */
            t->stats.timeouts_discarded++;
            RNIC__TRACE(t, TP_TRACE_MERGE, f, fl->wnd_start, 0);
            if (tp__timer_running(t, f) && fl->timer_fire == t->now)
                tp__timer_start(t, f, fl->timer_deadline, t->now + 1u);
        } else if (fired) {
            timeout = true;
            tp__timer_stop(t, f);
            t->stats.timeouts++;
            RNIC__TRACE(t, TP_TRACE_TIMEOUT, f, fl->wnd_start, fl->highest_sent);
        }
        /* a declared wake-up excuses this visit: the hook would change nothing (in the cycle of
         * an ACK for the flow it runs, as its results may replace the incoming hook's) */
        if (timeout || (tp__wakes(t) && (!fl->wake_declared || f == hit ||
                                         (t->wake_timers.pos[f] != RNIC_NONE && fl->wake_visit == t->now)))) {
            unsigned char *ctx = tp__ctx(t, f);
            bool conflict = f == hit;
            tp__event_fill(t, f, &ev);
            ev.timeout = timeout;
            tp__actions_preset(fl, &act);
            if (conflict) { /* both hooks ran on this flow: the protocol says whose results win */
                ctx = t->scratch;
                RNIC_MEMCPY(ctx, pre, t->ctx_stride);
            }
            if (t->proto->periodic) {
                t->proto->periodic(&ev, ctx, &act);
                t->stats.periodic_runs++;
            }
            if (!conflict || t->proto->merge == TP_MERGE_PERIODIC) {
                if (conflict)
                    RNIC_MEMCPY(tp__ctx(t, f), ctx, t->ctx_stride);
                tp__apply(t, f, &act, t->now + 1u);
                if (tp__wakes(t))
                    tp__wake_set(t, f, &act, t->now + 1u);
            } else if (tp__wakes(t)) { /* its results were discarded: it is due again */
                tp__wake_every(t, f);
            }
        }
    }
}

static void tp__credit_enqueue(tp *t, uint32_t f, const rnic_work *seg);

/* Segment generation: one flow from the active set. */
static void tp__generate(tp *t)
{
    tp__flow *fl;
    tp_bits marked;
    const tp__msg *m = NULL;
    rnic_work seg;
    uint32_t f, sent, end, s, k, M = t->cfg.message_depth;
    bool rtx;
    if (t->active.count == 0)
        return;
    f = tp__fifo_pop(&t->active);
    fl = &t->flows[f];
    fl->in_active = 0;
    if (!tp__eligible(t, f))
        return;
    sent = fl->highest_sent - fl->wnd_start;
    end = fl->wnd_start + (sent < fl->wnd_size ? sent : fl->wnd_size);
    s = end;
    if (fl->marked) {
        tp__view(t, f, TP__MARKED, &marked);
        s = tp_bits_find_first(&marked, fl->wnd_start, end);
    }
    rtx = s != end;
    if (rtx) {
        uint32_t pos = s & (t->cfg.window - 1u);
        rnic_bitmap_clear(tp__bitmap(t, f, TP__MARKED), pos);
        fl->marked--;
        rnic_bitmap_set(tp__bitmap(t, f, TP__RTXCNT), pos);
        for (k = 0; k < fl->msg_count; k++) { /* the message holding s: at most cfg.message_depth */
            uint32_t at = fl->msg_head + k;
            m = &t->msgs[(size_t)f * M + (at >= M ? at - M : at)];
            if (s - m->first_seg < m->nsegs)
                break;
        }
        t->stats.segments_rtx++;
    } else {
        s = fl->highest_sent++;
        for (;;) {
            uint32_t at = fl->msg_head + fl->msg_gen;
            m = &t->msgs[(size_t)f * M + (at >= M ? at - M : at)];
            if (s - m->first_seg < m->nsegs)
                break;
            fl->msg_gen++;
        }
        t->stats.segments_new++;
    }
    seg = m->w;
    seg.index = s;
    seg.offset = (s - m->first_seg) * fl->params.seg_size;
    seg.len = m->w.len - seg.offset < fl->params.seg_size ? m->w.len - seg.offset : fl->params.seg_size;
    seg.addr = m->w.addr + seg.offset;
    seg.raddr = m->w.raddr + seg.offset;
    seg.flags = (s == m->first_seg ? RNIC_WORK_FIRST : 0u) | (s + 1u == m->first_seg + m->nsegs ? RNIC_WORK_LAST : 0u) |
                (rtx ? TP_WORK_RTX : 0u);
    seg.status = 0;
    seg.cycle = t->now;
    fl->total_sent++;
    fl->outstanding++;
    tp__wake_sent(t, f);
    if (!tp__timer_running(t, f)) /* RFC 6298 5.1 */
        tp__timer_start(t, f, t->now + fl->timer_amount, t->now + 1u);
    RNIC__TRACE(t, TP_TRACE_GENERATE, f, s, rtx);
    tp__credit_enqueue(t, f, &seg);
    tp__activate(t, f);
}

/* Segment transmitted (step 9): the credit engine sent one of the flow's segment addresses. */
static void tp__segment_sent(tp *t, uint32_t f)
{
    t->flows[f].outstanding--;
    tp__activate(t, f);
}

/* One completion per cycle: the head message of a flow whose segments are all acknowledged. */
static void tp__complete(tp *t)
{
    tp__flow *fl;
    tp__msg *m;
    rnic_work done;
    uint32_t f;
    if (t->compl_flows.count == 0 || tp__port_full(&t->completions))
        return;
    f = tp__fifo_pop(&t->compl_flows);
    fl = &t->flows[f];
    fl->in_compl = 0;
    m = &t->msgs[(size_t)f * t->cfg.message_depth + fl->msg_head];
    done = m->w;
    done.flags = RNIC_WORK_FIRST | RNIC_WORK_LAST;
    done.status = RNIC_OK;
    done.index = m->first_seg;
    done.offset = 0;
    done.cycle = t->now;
    tp__port_push(&t->completions, &done);
    fl->msg_head = fl->msg_head + 1u == t->cfg.message_depth ? 0 : fl->msg_head + 1u;
    fl->msg_count--;
    t->msgs_queued--;
    fl->msg_done--;
    fl->msg_gen = fl->msg_gen ? fl->msg_gen - 1u : 0;
    t->stats.completions++;
    RNIC__TRACE(t, TP_TRACE_COMPLETE, f, done.aux, done.len);
    if (fl->msg_done && tp__fifo_push(&t->compl_flows, f))
        fl->in_compl = 1;
}
