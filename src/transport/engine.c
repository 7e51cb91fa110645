/* transport.h: the engine's lifecycle, ports and clock: one tick runs the modules of Fig. 2 in
 * the order of docs/transport_model.md ("One cycle"). */

#define TP__DEFAULT_CLOCK 250000000ull /* every engine's default clock (docs/engine_contract.md) */
#define TP__DEFAULT_LINK 100000000000ull

TP_API void tp_config_default(tp_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = TP__DEFAULT_CLOCK;
    cfg->link_bps = TP__DEFAULT_LINK;
    cfg->min_rate_bps = RNIC_RATE_MIN_BPS;
    cfg->max_flows = 1024;
    cfg->window = 128;
    cfg->ring = 4;
    cfg->message_depth = 8;
    cfg->incoming_depth = 64;
    cfg->segment_depth = 16;
    cfg->completion_depth = 64;
    cfg->trace_id = RNIC_ENGINE_TRANSPORT;
}

static bool tp__pow2(uint32_t x) { return x && !(x & (x - 1u)); }

static uint32_t tp__ctx_budget(uint32_t credit)
{
    return credit == TP_CREDIT_WINDOW ? TP_CTX_MAX_WINDOW : credit == TP_CREDIT_RATE ? TP_CTX_MAX_RATE : TP_CTX_MAX_TOKEN;
}

TP_API rnic_err tp_config_check(const tp_config *c, const char **field)
{
    if (field)
        *field = NULL;
    if (!c)
        return rnic_config_bad(field, "cfg", RNIC_EINVAL);
    if (c->clock_hz < RNIC_CLOCK_MIN_HZ || c->clock_hz > RNIC_CLOCK_MAX_HZ)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (c->link_bps < RNIC_RATE_MIN_BPS || c->link_bps > RNIC_RATE_MAX_BPS)
        return rnic_config_bad(field, "link_bps", RNIC_EINVAL);
    if (c->min_rate_bps < RNIC_RATE_MIN_BPS || c->min_rate_bps > c->link_bps)
        return rnic_config_bad(field, "min_rate_bps", RNIC_EINVAL);
    if (c->max_flows == 0 || c->max_flows > TP_MAX_FLOWS)
        return rnic_config_bad(field, "max_flows", RNIC_EINVAL);
    if (c->window != 64u && c->window != 128u && c->window != 256u)
        return rnic_config_bad(field, "window", RNIC_EINVAL);
    if (!tp__pow2(c->ring) || c->ring > TP_MAX_RING)
        return rnic_config_bad(field, "ring", RNIC_EINVAL);
    if (c->message_depth == 0 || c->message_depth > TP_MAX_MESSAGES)
        return rnic_config_bad(field, "message_depth", RNIC_EINVAL);
    if (c->incoming_depth == 0 || c->incoming_depth > 65536u)
        return rnic_config_bad(field, "incoming_depth", RNIC_EINVAL);
    if (c->segment_depth == 0 || c->segment_depth > 65536u)
        return rnic_config_bad(field, "segment_depth", RNIC_EINVAL);
    if (c->completion_depth == 0 || c->completion_depth > 65536u)
        return rnic_config_bad(field, "completion_depth", RNIC_EINVAL);
    if (!c->protocol || c->protocol->credit > TP_CREDIT_TOKEN ||
        c->protocol->ctx_size > tp__ctx_budget(c->protocol->credit))
        return rnic_config_bad(field, "protocol", RNIC_EINVAL);
    if (c->protocol->check && c->protocol->check(c->protocol->config) != RNIC_OK)
        return rnic_config_bad(field, "protocol.config", RNIC_EINVAL);
    if (c->external_pacer && c->protocol->credit != TP_CREDIT_RATE)
        return rnic_config_bad(field, "external_pacer", RNIC_EINVAL);
    if (c->timing > TP_TIMING_TONIC_RTL)
        return rnic_config_bad(field, "timing", RNIC_EINVAL);
    /* the RTL profile models the window credit engine (cr_engine/cwnd) and its 16-entry packet queue */
    if (c->timing == TP_TIMING_TONIC_RTL &&
        (c->protocol->credit != TP_CREDIT_WINDOW || c->external_pacer || c->ring < TP__RTL_QUEUE))
        return rnic_config_bad(field, "timing", RNIC_EINVAL);
    return RNIC_OK;
}

/* One layout for tp_mem_size and tp_init. Returns bytes, 0 if it overflows. */
static size_t tp__layout(const tp_config *c, tp *t, unsigned char *mem)
{
    size_t off = 0, at;
    uint32_t F = c->max_flows, wwords = c->window / 64u, stride = (uint32_t)rnic_align_up(c->protocol->ctx_size);
    TP__LAYOUT_ARRAY(t, flows, tp__flow, F);
    TP__LAYOUT_ARRAY(t, bits, uint64_t, (size_t)F * 3u * wwords);
    TP__LAYOUT_ARRAY(t, ctx, unsigned char, (size_t)F * stride);
    TP__LAYOUT_ARRAY(t, scratch, unsigned char, (size_t)stride * 2u + 8u);
    TP__LAYOUT_ARRAY(t, msgs, tp__msg, (size_t)F * c->message_depth);
    TP__LAYOUT_ARRAY(t, rings, rnic_work, (size_t)F * c->ring);
    TP__LAYOUT_ARRAY(t, active.ids, uint32_t, F);
    TP__LAYOUT_ARRAY(t, ready.ids, uint32_t, F);
    TP__LAYOUT_ARRAY(t, compl_flows.ids, uint32_t, F);
    TP__LAYOUT_HEAP(t, rtx_timers, F);
    TP__LAYOUT_HEAP(t, rate_timers, F);
    TP__LAYOUT_HEAP(t, wake_timers, F);
    TP__LAYOUT_PORT(t, incoming, c->incoming_depth);
    TP__LAYOUT_PORT(t, tx, c->segment_depth);
    TP__LAYOUT_PORT(t, completions, c->completion_depth);
    return off;
}

TP_API size_t tp_mem_size(const tp_config *cfg)
{
    if (tp_config_check(cfg, NULL) != RNIC_OK)
        return 0;
    return tp__layout(cfg, NULL, NULL);
}

TP_API rnic_err tp_init(tp *t, const tp_config *cfg, void *mem, size_t size)
{
    size_t need;
    if (!t || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || tp_config_check(cfg, NULL) != RNIC_OK)
        return RNIC_EINVAL;
    need = tp__layout(cfg, NULL, NULL);
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(t, 0, sizeof *t);
    RNIC_MEMSET(mem, 0, need);
    t->cfg = *cfg;
    t->proto = cfg->protocol;
    tp__layout(cfg, t, (unsigned char *)mem);
    t->now = cfg->start_cycle;
    t->wwords = cfg->window / 64u;
    t->ctx_stride = (uint32_t)rnic_align_up(cfg->protocol->ctx_size);
    t->active.capacity = t->ready.capacity = t->compl_flows.capacity = cfg->max_flows;
    rnic__heap_clear(&t->rtx_timers, cfg->max_flows);
    rnic__heap_clear(&t->rate_timers, cfg->max_flows);
    rnic__heap_clear(&t->wake_timers, cfg->max_flows);
    rnic_trace_set(&t->trace, cfg->trace, cfg->trace_user);
    t->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_TRANSPORT;
    if (cfg->timing == TP_TIMING_TONIC_RTL)
        tp__rtl_reset(t);
    return RNIC_OK;
}

TP_API void tp_flow_config_default(tp_flow_config *p)
{
    if (!p)
        return;
    RNIC_MEMSET(p, 0, sizeof *p);
    p->seg_size = 1000;
    p->init_wnd = 10;
    p->max_burst = 0; /* 2 segments */
    p->rto_ns = 200000000u;
}

static rnic_err tp__bad(tp *t, uint32_t flow, rnic_err e, uint64_t value)
{
    if (t)
        tp__refuse(t, flow, e, value);
    return e;
}

static bool tp__flow_params_ok(const tp_protocol *proto, const tp_flow_config *p); /* proto_newreno.c */

TP_API rnic_err tp_flow_open(tp *t, uint32_t flow, const tp_flow_config *p)
{
    tp_flow_config def;
    tp__flow *fl;
    tp_actions act;
    if (!t)
        return RNIC_EINVAL;
    if (flow >= t->cfg.max_flows)
        return tp__bad(t, flow, RNIC_ENOENT, 0);
    fl = &t->flows[flow];
    if (fl->open)
        return tp__bad(t, flow, RNIC_EEXIST, 0);
    if (!p) {
        tp_flow_config_default(&def);
        p = &def;
    }
    if (p->seg_size == 0 || p->seg_size > 65536u || p->init_wnd == 0 || p->rto_ns == 0 ||
        (t->proto->credit == TP_CREDIT_RATE && p->max_burst != 0 &&
         (p->max_burst < p->seg_size || p->max_burst > ((uint64_t)1 << 40))))
        return tp__bad(t, flow, RNIC_EINVAL, p->seg_size);
    if (!tp__flow_params_ok(t->proto, p)) /* a protocol parameter out of its range */
        return tp__bad(t, flow, RNIC_EINVAL, p->param[3]);
    RNIC_MEMSET(fl, 0, sizeof *fl);
    RNIC_MEMSET(t->bits + (size_t)flow * 3u * t->wwords, 0, (size_t)3u * t->wwords * sizeof(uint64_t));
    RNIC_MEMSET(tp__ctx(t, flow), 0, t->ctx_stride);
    fl->params = *p;
    if (fl->params.max_burst == 0)
        fl->params.max_burst = 2u * (uint64_t)p->seg_size;
    fl->wnd_start = fl->highest_sent = fl->data_end = p->init_seq;
    fl->wnd_size = 1;
    fl->timer_amount = 1;
    fl->credit_at = t->now;
    fl->wake_visit = RNIC_NEVER;
    fl->open = 1;
    if (tp__wakes(t)) /* no wake-up declared yet: due at every visit */
        t->every_visit_flows++;
    tp__actions_preset(fl, &act);
    act.wnd_size = p->init_wnd;
    act.rate_bps = p->init_rate_bps ? p->init_rate_bps : t->cfg.link_bps;
    act.timer_amount = rnic_ns_to_cycles(p->rto_ns, t->cfg.clock_hz);
    act.add_credit = p->init_credit;
    if (t->proto->init)
        t->proto->init(p, t->proto->config, t->cfg.clock_hz, tp__ctx(t, flow), &act);
    if (t->proto->credit == TP_CREDIT_RATE)
        fl->credit_fx = tp__credit_cap(fl); /* a rate flow starts with a full bucket */
    fl->rate_bps = 0;
    tp__credit_set_rate(t, flow, act.rate_bps);
    act.rate_bps = fl->rate_bps;
    tp__apply(t, flow, &act, t->now);
    if (t->cfg.timing == TP_TIMING_TONIC_RTL)
        tp__rtl_open(t, flow);
    t->open_flows++;
    RNIC__TRACE(t, RNIC_TRACE_PUSH, flow, p->init_seq, p->seg_size);
    return RNIC_OK;
}

TP_API rnic_err tp_flow_close(tp *t, uint32_t flow)
{
    tp__flow *fl;
    if (!t)
        return RNIC_EINVAL;
    if (flow >= t->cfg.max_flows || !t->flows[flow].open)
        return tp__bad(t, flow, RNIC_ENOENT, 0);
    fl = &t->flows[flow];
    if (fl->msg_count || fl->ring_count || fl->in_active || fl->in_ready || fl->in_compl ||
        (t->stage2_valid && t->stage2.pkt.flow == flow))
        return tp__bad(t, flow, RNIC_EBUSY, fl->msg_count);
    tp__timer_stop(t, flow);
    rnic__heap_remove(&t->rtx_timers, flow);
    rnic__heap_remove(&t->rate_timers, flow);
    if (tp__wakes(t)) {
        tp__wake_every(t, flow);
        t->every_visit_flows--;
    }
    fl->open = 0;
    t->open_flows--;
    return RNIC_OK;
}

TP_API rnic_err tp_push_message(tp *t, const rnic_work *msg)
{
    tp__flow *fl;
    tp__msg *m;
    uint32_t nsegs;
    if (!t)
        return RNIC_EINVAL;
    if (!msg)
        return tp__bad(t, RNIC_NONE, RNIC_EINVAL, 0);
    if (msg->flow >= t->cfg.max_flows || !t->flows[msg->flow].open)
        return tp__bad(t, msg->flow, RNIC_ENOENT, msg->index);
    fl = &t->flows[msg->flow];
    if (msg->len == 0)
        return tp__bad(t, msg->flow, RNIC_EINVAL, msg->index);
    nsegs = msg->len / fl->params.seg_size + (msg->len % fl->params.seg_size != 0);
    if ((uint64_t)(fl->data_end - fl->wnd_start) + nsegs >= ((uint64_t)1 << 31)) /* ids must stay comparable */
        return tp__bad(t, msg->flow, RNIC_ERANGE, msg->index);
    if (fl->msg_count == t->cfg.message_depth)
        return tp__bad(t, msg->flow, RNIC_EBUSY, msg->index);
    m = &t->msgs[(size_t)msg->flow * t->cfg.message_depth + (fl->msg_head + fl->msg_count) % t->cfg.message_depth];
    m->w = *msg;
    m->w.aux = fl->msg_number++;
    m->first_seg = fl->data_end;
    m->nsegs = nsegs;
    fl->msg_count++;
    t->msgs_queued++;
    fl->data_end += nsegs;
    t->stats.messages++;
    RNIC__TRACE(t, RNIC_TRACE_PUSH, msg->flow, msg->index, msg->len);
    if (t->cfg.timing == TP_TIMING_TONIC_RTL)
        tp__rtl_wake(t, msg->flow);
    else
        tp__activate(t, msg->flow);
    return RNIC_OK;
}

TP_API uint32_t tp_space_message(const tp *t)
{
    uint64_t room;
    if (!t)
        return 0;
    room = (uint64_t)t->cfg.max_flows * t->cfg.message_depth - t->msgs_queued;
    return room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
}

TP_API uint32_t tp_flow_message_room(const tp *t, uint32_t flow)
{
    if (!t || flow >= t->cfg.max_flows || !t->flows[flow].open)
        return 0;
    return t->cfg.message_depth - t->flows[flow].msg_count;
}

TP_API rnic_err tp_push_incoming(tp *t, const rnic_work *pkt)
{
    if (!t)
        return RNIC_EINVAL;
    if (!pkt || TP_WORK_PKT_TYPE(pkt->flags) < TP_PKT_ACK || TP_WORK_PKT_TYPE(pkt->flags) > TP_PKT_GRANT)
        return tp__bad(t, pkt ? pkt->flow : RNIC_NONE, RNIC_EINVAL, pkt ? pkt->index : 0);
    if (tp__port_full(&t->incoming))
        return tp__bad(t, pkt->flow, RNIC_EBUSY, pkt->index);
    tp__port_push(&t->incoming, pkt);
    return RNIC_OK;
}

TP_API uint32_t tp_space_incoming(const tp *t) { return t ? tp__port_space(&t->incoming) : 0; }

TP_API void tp_tick(tp *t)
{
    uint32_t hit = RNIC_NONE, f;
    bool fired;
    if (!t)
        return;
    if (t->cfg.timing == TP_TIMING_TONIC_RTL) {
        tp__rtl_tick(t);
        return;
    }
    /* no timer entry is older than now: each is a periodic visit computed when armed */
    RNIC_ASSERT(t->rtx_timers.count == 0 || !rnic__cycle_before(rnic__heap_min(&t->rtx_timers), t->now));
    tp__timers_due(t);
    f = t->scan;
    fired = t->flows[f].open && tp__timer_running(t, f) && t->flows[f].timer_fire == t->now;
    /* credit engine: rate timers, then Transmit (segments generated last cycle may leave now) */
    tp__credit_timers(t);
    if (!t->cfg.external_pacer)
        tp__credit_transmit(t);
    /* Incoming, programmable stage of last cycle's packet; Periodic updates, merged with it
     * (§3.4): when both touch one flow, the periodic hook works on the context as it was at
     * the start of the cycle */
    if (t->stage2_valid) {
        hit = TP_WORK_PKT_TYPE(t->stage2.pkt.flags) != TP_PKT_CNP ? t->stage2.pkt.flow : RNIC_NONE; /* an ACK (§3.4) */
        if (hit == f && t->proto->periodic_every_visit)
            RNIC_MEMCPY(t->scratch + t->ctx_stride, tp__ctx(t, f), t->ctx_stride);
        tp__incoming_hook(t);
    }
    tp__periodic(t, hit, fired, t->scratch + t->ctx_stride);
    /* Incoming, fixed stage of the next packet */
    tp__incoming_fixed(t);
    /* Segment generation (-> Enqueue into the credit engine's ring) */
    tp__generate(t);
    tp__complete(t);
    t->stats.cycles++;
    t->now++;
    t->scan = t->scan + 1u == t->cfg.max_flows ? 0 : t->scan + 1u; /* the flow id visited at `now` */
}

/* The next event and whether there is one: an event due at cycle 2^64 - 1 reads RNIC_NEVER
 * from tp_next_event, tp_advance tells the two apart with `any`. */
static uint64_t tp__next(const tp *t, bool *any)
{
    uint64_t next = 0;
    bool have = false;
    *any = true;
    if (t->cfg.timing == TP_TIMING_TONIC_RTL) /* its registers move every cycle: no idle stretch is skipped */
        return t->now;
    if (t->incoming.count || t->stage2_valid || t->active.count ||
        (t->ready.count && !tp__port_full(&t->tx)) ||
        (t->compl_flows.count && !tp__port_full(&t->completions)) ||
        t->every_visit_flows)
        return t->now;
    if (t->rtx_timers.count) {
        next = t->rtx_timers.key[0];
        have = true;
    }
    if (t->wake_timers.count && (!have || rnic__cycle_before(t->wake_timers.key[0], next))) {
        next = t->wake_timers.key[0];
        have = true;
    }
    if (t->rate_timers.count && (!have || rnic__cycle_before(t->rate_timers.key[0], next))) {
        next = t->rate_timers.key[0];
        have = true;
    }
    if (!have) {
        *any = false;
        return RNIC_NEVER;
    }
    return rnic__cycle_before(next, t->now) ? t->now : next;
}

TP_API uint64_t tp_next_event(const tp *t)
{
    bool any;
    return t ? tp__next(t, &any) : RNIC_NEVER;
}

/* Skip `n` idle cycles: time and the periodic scan move, nothing else can change. */
static void tp__skip(tp *t, uint64_t n)
{
    uint32_t F = t->cfg.max_flows, ahead = (uint32_t)(n - rnic_udiv64(n, F) * F), at = t->scan + ahead;
    t->scan = at >= F ? at - F : at;
    t->now += n;
    t->stats.cycles += n;
}

/* rnic__advance's callbacks: skip the idle cycles before the next event (at most `left`; 0 when
 * something happens now), one tick, and one bit for "an output port is full" (advance stops
 * after the tick that filled one when none was full before). */
static uint64_t tp__skip_fn(void *x, uint64_t left)
{
    tp *t = (tp *)x;
    bool any;
    uint64_t next = tp__next(t, &any), span = tp__idle_cycles(t->now, next, any, left);
    if (span)
        tp__skip(t, span);
    return span;
}
static void tp__tick_fn(void *x) { tp_tick((tp *)x); }
static uint32_t tp__full_fn(const void *x)
{
    const tp *t = (const tp *)x;
    return tp__port_full(&t->tx) || tp__port_full(&t->completions);
}

TP_API uint64_t tp_advance(tp *t, uint64_t cycles)
{
    return t ? rnic__advance(t, cycles, tp__skip_fn, tp__tick_fn, tp__full_fn, 0u) : 0;
}

TP_API uint64_t tp_advance_to(tp *t, uint64_t cycle)
{
    return t ? tp_advance(t, rnic_cycles_until(t->now, cycle)) : 0;
}

TP_API uint64_t tp_now(const tp *t) { return t ? t->now : 0; }

static rnic_err tp__take(tp *t, rnic_ring *ring, rnic_work *out, bool pop)
{
    rnic_err e;
    if (!t)
        return RNIC_EINVAL;
    if (!out)
        return tp__bad(t, RNIC_NONE, RNIC_EINVAL, 0);
    e = tp__port_take(ring, out, pop);
    if (e == RNIC_OK && pop)
        RNIC__TRACE(t, RNIC_TRACE_POP, out->flow, out->index, out->len);
    return e;
}

TP_API rnic_err tp_pop_segment(tp *t, rnic_work *out) { return tp__take(t, t ? &t->tx : NULL, out, true); }
TP_API rnic_err tp_peek_segment(const tp *t, rnic_work *out) { return tp__take((tp *)(uintptr_t)t, t ? (rnic_ring *)(uintptr_t)&t->tx : NULL, out, false); }
TP_API rnic_err tp_pop_completion(tp *t, rnic_work *out) { return tp__take(t, t ? &t->completions : NULL, out, true); }
TP_API rnic_err tp_peek_completion(const tp *t, rnic_work *out) { return tp__take((tp *)(uintptr_t)t, t ? (rnic_ring *)(uintptr_t)&t->completions : NULL, out, false); }

TP_API uint32_t tp_pacer_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    const tp *t = (const tp *)user;
    const tp__flow *fl;
    uint32_t n = 0, skip;
    if (!t || !out || flow >= t->cfg.max_flows || !t->flows[flow].open)
        return 0;
    fl = &t->flows[flow];
    skip = index - fl->ring_head;
    while (n < max && skip + n < fl->ring_count) {
        out[n] = tp__ring(t, flow)[(fl->ring_head + skip + n) & (t->cfg.ring - 1u)];
        n++;
    }
    return n;
}

TP_API rnic_err tp_push_consumed(tp *t, const rnic_work *w)
{
    tp__flow *fl;
    uint32_t flow, index;
    if (!t)
        return RNIC_EINVAL;
    if (!w)
        return tp__bad(t, RNIC_NONE, RNIC_EINVAL, 0);
    flow = w->flow;
    index = w->index;
    if (!t->cfg.external_pacer)
        return tp__bad(t, flow, RNIC_ESTATE, index);
    if (flow >= t->cfg.max_flows || !t->flows[flow].open)
        return tp__bad(t, flow, RNIC_ENOENT, index);
    fl = &t->flows[flow];
    if (fl->ring_count == 0 || index != fl->ring_head)
        return tp__bad(t, flow, RNIC_ESTALE, index);
    fl->ring_head++;
    fl->ring_count--;
    t->stats.pacer_consumed++;
    t->stats.segments_out++;
    tp__segment_sent(t, flow);
    return RNIC_OK;
}

TP_API uint32_t tp_space_consumed(const tp *t) { return t && t->cfg.external_pacer ? UINT32_MAX : 0; }

TP_API const tp_stats *tp_get_stats(const tp *t) { return t ? &t->stats : NULL; }

TP_API rnic_err tp_flow_state(const tp *t, uint32_t flow, tp_flow_view *out)
{
    const tp__flow *fl;
    if (!t || !out)
        return RNIC_EINVAL;
    if (flow >= t->cfg.max_flows)
        return RNIC_ENOENT;
    fl = &t->flows[flow];
    RNIC_MEMSET(out, 0, sizeof *out);
    out->open = fl->open != 0;
    if (!fl->open)
        return RNIC_ENOENT;
    out->wnd_start = fl->wnd_start;
    out->wnd_size = fl->wnd_size;
    out->highest_sent = fl->highest_sent;
    out->data_end = fl->data_end;
    out->total_sent = fl->total_sent;
    out->outstanding = fl->outstanding;
    out->messages = fl->msg_count;
    out->timer_running = tp__timer_running(t, flow);
    out->timer_deadline = fl->timer_deadline;
    out->timer_amount = fl->timer_amount;
    out->rate_bps = fl->rate_bps;
    out->credit = t->proto->credit == TP_CREDIT_RATE ? fl->credit_fx >> TP__FX : fl->credit_fx;
    out->ctx = tp__ctx(t, flow);
    return RNIC_OK;
}
