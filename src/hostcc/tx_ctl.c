/* RHCC sender controller (hcc_tx). Cycle contract and every choice: docs/hostcc_tx.md.
 * Inputs act at the call; the records they cause are produced by the next tick. A FIFO of flow
 * ids (each flow at most once, capacity max_flows: never overflows) holds the flows with a
 * record to produce, so a tick touches only those flows and next_event is O(1). */

#define HCC__TX_DEFAULT_CLOCK 250000000ull
#define HCC__TX_DEFAULT_LINK 100000000000ull
#define HCC__TX_DEFAULT_MIN 100000000ull
#define HCC__TX_NO_RATE UINT64_MAX

#define HCC__TX_TRACE(c, kind, id, a, b) RNIC__TRACE((c), (kind), (id), (a), (b))

HCC_API void hcc_tx_config_default(hcc_tx_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = HCC__TX_DEFAULT_CLOCK;
    cfg->link_bps = HCC__TX_DEFAULT_LINK;
    cfg->rate_floor_bps = HCC__TX_DEFAULT_MIN;
    cfg->max_flows = 1024;
    cfg->probe_bytes = 32768;
    cfg->d_thr_ns = 200;
    cfg->max_delay_ns = 1000000;
    cfg->alpha_q32 = HCC_TX_ALPHA_Q32;
    cfg->beta_q32 = HCC_TX_ALPHA_Q32;
    cfg->rate_depth = 64;
    cfg->probe_depth = 64;
    cfg->trace_id = RNIC_ENGINE_HCC_TX;
}

HCC_API rnic_err hcc_tx_config_check(const hcc_tx_config *c, const char **field)
{
    if (field)
        *field = NULL;
    if (!c)
        return rnic_config_bad(field, "cfg", RNIC_EINVAL);
    if (c->clock_hz < 1000000u || c->clock_hz > 10000000000ull)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (c->link_bps == 0 || c->link_bps > RNIC_RATE_MAX_BPS)
        return rnic_config_bad(field, "link_bps", RNIC_EINVAL);
    if (c->rate_floor_bps == 0 || c->rate_floor_bps > c->link_bps)
        return rnic_config_bad(field, "rate_floor_bps", RNIC_EINVAL);
    if (c->max_flows == 0 || c->max_flows > HCC_TX_MAX_FLOWS)
        return rnic_config_bad(field, "max_flows", RNIC_EINVAL);
    if (c->probe_bytes < 64u || c->probe_bytes > (1u << 30))
        return rnic_config_bad(field, "probe_bytes", RNIC_EINVAL);
    if (c->max_delay_ns == 0 || c->max_delay_ns > HCC_TX_MAX_DELAY_NS)
        return rnic_config_bad(field, "max_delay_ns", RNIC_EINVAL);
    if (c->d_thr_ns > c->max_delay_ns)
        return rnic_config_bad(field, "d_thr_ns", RNIC_EINVAL);
    if (c->alpha_q32 > HCC_TX_MAX_GAIN_Q32)
        return rnic_config_bad(field, "alpha_q32", RNIC_EINVAL);
    if (c->beta_q32 > HCC_TX_MAX_GAIN_Q32)
        return rnic_config_bad(field, "beta_q32", RNIC_EINVAL);
    if (c->rate_depth == 0 || c->rate_depth > HCC_TX_MAX_DEPTH)
        return rnic_config_bad(field, "rate_depth", RNIC_EINVAL);
    if (c->probe_depth == 0 || c->probe_depth > HCC_TX_MAX_DEPTH)
        return rnic_config_bad(field, "probe_depth", RNIC_EINVAL);
    return RNIC_OK;
}

/* One layout for hcc_tx_mem_size and hcc_tx_init. Returns bytes, 0 if the layout overflows. */
static size_t hcc__tx_layout(const hcc_tx_config *cfg, hcc_tx *c, unsigned char *mem)
{
    size_t off = 0, at;
#define HCC__TX_RING(ring, type, count)                                                              \
    do {                                                                                             \
        if (!rnic__mem_reserve(&off, (count), sizeof(type), &at))                                    \
            return 0;                                                                                \
        if (c)                                                                                       \
            rnic_ring_init(&c->ring, sizeof(type), (uint32_t)(count), mem + at,                      \
                           rnic_align_up((size_t)(count) * sizeof(type)));                           \
    } while (0)
    if (!rnic__mem_reserve(&off, cfg->max_flows, sizeof(hcc__tx_flow), &at))
        return 0;
    if (c)
        c->flows = (hcc__tx_flow *)(void *)(mem + at);
    HCC__TX_RING(pending, uint32_t, cfg->max_flows);
    HCC__TX_RING(rates, rnic_work, cfg->rate_depth);
    HCC__TX_RING(probes, rnic_work, cfg->probe_depth);
#undef HCC__TX_RING
    return off;
}

HCC_API size_t hcc_tx_mem_size(const hcc_tx_config *cfg)
{
    return hcc_tx_config_check(cfg, NULL) == RNIC_OK ? hcc__tx_layout(cfg, NULL, NULL) : 0;
}

HCC_API rnic_err hcc_tx_init(hcc_tx *c, const hcc_tx_config *cfg, void *mem, size_t size)
{
    size_t need;
    if (!c || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || hcc_tx_config_check(cfg, NULL) != RNIC_OK)
        return RNIC_EINVAL;
    need = hcc__tx_layout(cfg, NULL, NULL);
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(c, 0, sizeof *c);
    c->cfg = *cfg;
    hcc__tx_layout(cfg, c, (unsigned char *)mem);
    RNIC_MEMSET(c->flows, 0, (size_t)cfg->max_flows * sizeof(hcc__tx_flow));
    c->now = cfg->start_cycle;
    rnic_trace_set(&c->trace, cfg->trace, cfg->trace_user);
    c->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_HCC_TX;
    return RNIC_OK;
}

/* ---- refusals and bookkeeping ---- */

/* Count a refused input once (its reason, and its code in errors) and trace it: a = the refused
 * record's index (a register write or a flow call: the value), b = the error. */
static rnic_err hcc__tx_refuse(hcc_tx *c, uint32_t flow, hcc_tx_reason r, uint64_t value)
{
    rnic_err e = hcc_tx__reason_note(&c->stats.reasons, &c->stats.errors, r);
    HCC__TX_TRACE(c, RNIC_TRACE_REFUSE, flow, value, e);
    return e;
}

/* A NULL record: counted in errors only (no reason: it is the caller's bug, not the engine's state). */
static rnic_err hcc__tx_refuse_null(hcc_tx *c)
{
    rnic_err_note(&c->stats.errors, RNIC_EINVAL);
    HCC__TX_TRACE(c, RNIC_TRACE_REFUSE, 0, 0, RNIC_EINVAL);
    return RNIC_EINVAL;
}

/* The open flow `flow`, or NULL (counted as unknown_flow by the caller). */
static hcc__tx_flow *hcc__tx_flow_at(const hcc_tx *c, uint32_t flow)
{
    if (flow >= c->cfg.max_flows || !c->flows[flow].open)
        return NULL;
    return &c->flows[flow];
}

/* Eq. 2: R_trans = min(R_rev, R_cc). The only place it is computed. */
HCC_API uint64_t hcc_tx_rate(const hcc_tx *c, uint32_t flow)
{
    const hcc__tx_flow *f;
    if (!c || !(f = hcc__tx_flow_at(c, flow)))
        return 0;
    return f->r_rev < f->r_cc ? f->r_rev : f->r_cc;
}

/* After any change of a flow: is a rate record due (R_trans differs from the last one sent),
 * and is the flow in the FIFO of flows with records to produce. */
static void hcc__tx_touch(hcc_tx *c, uint32_t flow)
{
    hcc__tx_flow *f = &c->flows[flow];
    uint8_t due = (uint8_t)(f->open && hcc_tx_rate(c, flow) != f->out_rate);
    if (due != f->rate_pending) {
        if (due)
            c->pend_rate_flows++;
        else
            c->pend_rate_flows--;
        f->rate_pending = due;
    }
    if ((f->rate_pending || f->probes_due) && !f->queued) {
        rnic_ring_push(&c->pending, &flow); /* each flow at most once: never full */
        f->queued = 1;
    }
}

static uint64_t hcc__tx_clamp(const hcc_tx *c, uint64_t bps, bool *clamped)
{
    *clamped = false;
    if (bps < c->cfg.rate_floor_bps) {
        *clamped = true;
        return c->cfg.rate_floor_bps;
    }
    if (bps > c->cfg.link_bps) {
        *clamped = true;
        return c->cfg.link_bps;
    }
    return bps;
}

/* ---- inputs ---- */

HCC_API void hcc_tx_flow_config_default(hcc_tx_flow_config *fc)
{
    if (fc)
        RNIC_MEMSET(fc, 0, sizeof *fc);
}

HCC_API rnic_err hcc_tx_flow_open(hcc_tx *c, uint32_t flow, const hcc_tx_flow_config *fc)
{
    hcc__tx_flow *f;
    bool clamped = false;
    uint8_t queued;
    uint64_t init;
    if (!c)
        return RNIC_EINVAL;
    init = fc && fc->init_rate_bps ? fc->init_rate_bps : c->cfg.link_bps;
    if (flow >= c->cfg.max_flows)
        return hcc__tx_refuse(c, flow, HCC_TX_REASON_UNKNOWN_FLOW, init);
    f = &c->flows[flow];
    if (f->open)
        return hcc__tx_refuse(c, flow, HCC_TX_REASON_FLOW_EXISTS, init);
    queued = f->queued; /* a closed flow may still sit in the FIFO: keep it there once */
    RNIC_MEMSET(f, 0, sizeof *f);
    f->queued = queued;
    f->open = 1;
    f->r_rev = hcc__tx_clamp(c, init, &clamped);
    if (clamped)
        c->stats.rate_clamped++;
    f->r_cc = c->cfg.link_bps;
    f->out_rate = HCC__TX_NO_RATE;
    c->stats.flows_opened++;
    HCC__TX_TRACE(c, HCC_TX_TRACE_OPEN, flow, f->r_rev, f->r_cc);
    hcc__tx_touch(c, flow);
    return RNIC_OK;
}

HCC_API rnic_err hcc_tx_flow_close(hcc_tx *c, uint32_t flow)
{
    hcc__tx_flow *f;
    if (!c)
        return RNIC_EINVAL;
    if (!(f = hcc__tx_flow_at(c, flow)))
        return hcc__tx_refuse(c, flow, HCC_TX_REASON_UNKNOWN_FLOW, 0);
    HCC__TX_TRACE(c, HCC_TX_TRACE_CLOSE, flow, f->probes_due, 0);
    c->stats.probes_dropped += f->probes_due;
    c->pend_probes -= f->probes_due;
    f->probes_due = 0;
    f->open = 0;
    hcc__tx_touch(c, flow); /* clears rate_pending; the tick drops the flow from the FIFO */
    c->stats.flows_closed++;
    return RNIC_OK;
}

HCC_API rnic_err hcc_tx_push_sent(hcc_tx *c, const rnic_work *sent)
{
    hcc__tx_flow *f;
    uint64_t sum, n, bytes;
    if (!c)
        return RNIC_EINVAL;
    if (!sent)
        return hcc__tx_refuse_null(c);
    bytes = sent->len;
    if (!(f = hcc__tx_flow_at(c, sent->flow)))
        return hcc__tx_refuse(c, sent->flow, HCC_TX_REASON_UNKNOWN_FLOW, sent->index);
    sum = f->bytes + bytes; /* < 2^30 + 2^32: no overflow */
    n = rnic_udiv64(sum, c->cfg.probe_bytes);
    if (n > (uint64_t)(UINT32_MAX - f->probes_due))
        return hcc__tx_refuse(c, sent->flow, HCC_TX_REASON_PROBE_OVERFLOW, sent->index);
    f->bytes = sum - n * c->cfg.probe_bytes;
    f->bytes_total += bytes;
    f->probes_due += (uint32_t)n;
    c->pend_probes += n;
    c->stats.bytes_sent += bytes;
    c->stats.probes_requested += n;
    RNIC__TRACE_REC(c, RNIC_TRACE_PUSH, sent);
    hcc__tx_touch(c, sent->flow);
    return RNIC_OK;
}

HCC_API uint32_t hcc_tx_space_sent(const hcc_tx *c) { return c ? UINT32_MAX : 0; }

/* Eq. 1 in fixed point. D values are ns in [0, max_delay_ns] (<= 2^28), alpha, beta <= 2^32
 * (Q0.32), so each term |alpha x (D_cur - D_thr)|, |beta x (D_cur - D_old)| <= 2^60 and the
 * bracket (signed Q32.32) lies in (-2^62, 2^62): int64 arithmetic cannot overflow. The product
 * R_rev x bracket is 128 bits (R_rev < 2^40, bracket < 2^62); the result, floor(R_rev x
 * bracket / 2^32), is saturated at 2^64 - 1 before the clamp to [min_rate, line]. */
static uint64_t hcc__tx_eq1(hcc_tx *c, const hcc__tx_flow *f, uint64_t d_cur)
{
    int64_t x = (int64_t)d_cur - (int64_t)c->cfg.d_thr_ns;
    int64_t y = (int64_t)d_cur - (int64_t)f->d_old;
    int64_t bracket = (int64_t)RNIC_Q32_ONE - (int64_t)c->cfg.alpha_q32 * x - (int64_t)c->cfg.beta_q32 * y;
    uint64_t hi, lo, r;
    if (bracket <= 0) {
        c->stats.bracket_nonpositive++;
        r = 0; /* "we ensure that R_rev >= 0" */
    } else {
        rnic_mul64x64(f->r_rev, (uint64_t)bracket, &hi, &lo);
        r = (hi >> 32) ? UINT64_MAX : (hi << 32) | (lo >> 32);
    }
    if (r < c->cfg.rate_floor_bps) {
        c->stats.rev_floor++;
        r = c->cfg.rate_floor_bps;
    } else if (r > c->cfg.link_bps) {
        c->stats.rev_ceiling++;
        r = c->cfg.link_bps;
    }
    return r;
}

HCC_API rnic_err hcc_tx_push_probe_ack(hcc_tx *c, const rnic_work *ack)
{
    hcc__tx_flow *f;
    uint64_t outstanding;
    uint32_t d;
    uint64_t d_cur;
    if (!c)
        return RNIC_EINVAL;
    if (!ack)
        return hcc__tx_refuse_null(c);
    if (!(f = hcc__tx_flow_at(c, ack->flow)))
        return hcc__tx_refuse(c, ack->flow, HCC_TX_REASON_UNKNOWN_FLOW, ack->index);
    outstanding = f->probe_next - f->ack_next; /* <= 2^31: the tick keeps the window */
    d = ack->index - (uint32_t)f->ack_next;     /* distance from the oldest acceptable, mod 2^32 */
    if (d >= outstanding) {
        /* behind the oldest acceptable number (within 2^31 and among the numbers produced):
         * already acknowledged or overtaken; otherwise never produced */
        uint32_t back = (uint32_t)f->ack_next - ack->index;
        if (back != 0 && back <= 0x80000000u && back <= f->ack_next)
            return hcc__tx_refuse(c, ack->flow, HCC_TX_REASON_ACK_STALE, ack->index);
        return hcc__tx_refuse(c, ack->flow, HCC_TX_REASON_ACK_NO_PROBE, ack->index);
    }
    if (ack->raddr < ack->addr || ack->raddr - ack->addr > c->cfg.max_delay_ns)
        return hcc__tx_refuse(c, ack->flow, HCC_TX_REASON_ACK_RANGE, ack->index);
    d_cur = ack->raddr - ack->addr;
    if (!f->have_d_old) { /* the first ACK: D_old = D_cur (no derivative term) */
        f->d_old = d_cur;
        f->have_d_old = 1;
    }
    f->r_rev = hcc__tx_eq1(c, f, d_cur);
    f->d_old = d_cur;
    f->ack_next += (uint64_t)d + 1u;
    c->stats.probe_acks++;
    c->stats.d_sum_ns += d_cur;
    if (d_cur > c->stats.d_max_ns)
        c->stats.d_max_ns = d_cur;
    c->stats.d_over_thr += d_cur > c->cfg.d_thr_ns;
    RNIC__TRACE_REC(c, RNIC_TRACE_PUSH, ack);
    HCC__TX_TRACE(c, HCC_TX_TRACE_REV, ack->flow, f->r_rev, d_cur);
    hcc__tx_touch(c, ack->flow);
    return RNIC_OK;
}

HCC_API uint32_t hcc_tx_space_probe_ack(const hcc_tx *c) { return c ? UINT32_MAX : 0; }

HCC_API rnic_err hcc_tx_set_rcc(hcc_tx *c, uint32_t flow, uint64_t bps)
{
    hcc__tx_flow *f;
    uint64_t applied = bps;
    bool clamped = false;
    if (!c)
        return RNIC_EINVAL;
    if (!(f = hcc__tx_flow_at(c, flow)))
        return hcc__tx_refuse(c, flow, HCC_TX_REASON_UNKNOWN_FLOW, bps);
    if (bps != 0)
        applied = hcc__tx_clamp(c, bps, &clamped);
    if (clamped)
        c->stats.rate_clamped++;
    f->r_cc = applied;
    c->stats.rcc_writes++;
    HCC__TX_TRACE(c, RNIC_TRACE_RATE, flow, applied, bps);
    hcc__tx_touch(c, flow);
    return RNIC_OK;
}

HCC_API rnic_err hcc_tx_flow_state(const hcc_tx *c, uint32_t flow, hcc_tx_flow_view *out)
{
    const hcc__tx_flow *f;
    if (!c || !out)
        return RNIC_EINVAL;
    if (flow >= c->cfg.max_flows)
        return RNIC_ENOENT;
    f = &c->flows[flow];
    RNIC_MEMSET(out, 0, sizeof *out);
    out->r_rev = f->r_rev;
    out->r_cc = f->r_cc;
    out->out_rate = f->out_rate;
    out->d_old = f->d_old;
    out->bytes = f->bytes;
    out->bytes_total = f->bytes_total;
    out->probe_next = f->probe_next;
    out->ack_next = f->ack_next;
    out->probes_due = f->probes_due;
    out->rate_seq = f->rate_seq;
    out->open = f->open;
    out->have_d_old = f->have_d_old;
    out->rate_pending = f->rate_pending;
    return RNIC_OK;
}

/* ---- the tick: produce the records of the flows in the FIFO, in FIFO order ---- */

/* A tick now produces a record: one waits and its port has room. (Not next_event() == now:
 * at cycle 2^64 - 1 "now" and RNIC_NEVER are the same number.) */
static bool hcc__tx_due(const hcc_tx *c)
{
    return (c->pend_rate_flows && !rnic_ring_full(&c->rates)) || (c->pend_probes && !rnic_ring_full(&c->probes));
}

HCC_API uint64_t hcc_tx_next_event(const hcc_tx *c)
{
    return c && hcc__tx_due(c) ? c->now : RNIC_NEVER;
}

static void hcc__tx_produce(hcc_tx *c)
{
    uint32_t n = rnic_ring_count(&c->pending), i, flow;
    bool stalled = false;
    for (i = 0; i < n; i++) {
        hcc__tx_flow *f;
        rnic_work w;
        if (rnic_ring_full(&c->rates) && rnic_ring_full(&c->probes)) {
            stalled = true;
            break; /* the rest keep their places */
        }
        rnic_ring_pop(&c->pending, &flow);
        f = &c->flows[flow];
        if (f->rate_pending && !rnic_ring_full(&c->rates)) {
            RNIC_MEMSET(&w, 0, sizeof w);
            w.cycle = c->now;
            w.flow = flow;
            w.addr = hcc_tx_rate(c, flow);
            w.index = f->rate_seq++;
            rnic_ring_push(&c->rates, &w);
            f->out_rate = w.addr;
            f->rate_pending = 0;
            c->pend_rate_flows--;
            c->stats.rate_records++;
            RNIC__TRACE_REC(c, RNIC_TRACE_OUT, &w);
        }
        while (f->probes_due && !rnic_ring_full(&c->probes)) {
            RNIC_MEMSET(&w, 0, sizeof w);
            w.cycle = c->now;
            w.flow = flow;
            w.index = (uint32_t)f->probe_next++;
            w.flags = HCC_WORK_PROBE;
            w.op = c->cfg.probe_op;
            rnic_ring_push(&c->probes, &w);
            if (f->probe_next - f->ack_next > 0x80000000u) /* window of the newest 2^31 probes */
                f->ack_next = f->probe_next - 0x80000000u;
            f->probes_due--;
            c->pend_probes--;
            c->stats.probes_out++;
            RNIC__TRACE_REC(c, RNIC_TRACE_OUT, &w);
        }
        if (f->rate_pending || f->probes_due) {
            stalled = true;
            rnic_ring_push(&c->pending, &flow); /* to the tail: the FIFO never overflows */
        } else {
            f->queued = 0;
        }
    }
    if (stalled)
        c->stats.port_stalls++;
}

HCC_API void hcc_tx_tick(hcc_tx *c)
{
    if (!c)
        return;
    if (hcc__tx_due(c))
        hcc__tx_produce(c);
    c->now++;
    c->stats.cycles++;
}

/* rnic__advance's callbacks: nothing happens until new input once no record is due, so a skip
 * runs all of `left`; either output port filling stops advance. */
static uint64_t hcc__tx_skip(void *x, uint64_t left)
{
    hcc_tx *c = (hcc_tx *)x;
    if (hcc__tx_due(c))
        return 0;
    c->now += left;
    c->stats.cycles += left;
    return left;
}
static void hcc__tx_tick_fn(void *x) { hcc_tx_tick((hcc_tx *)x); }
static uint32_t hcc__tx_full(const void *x)
{
    const hcc_tx *c = (const hcc_tx *)x;
    return (rnic_ring_full(&c->rates) ? 1u : 0u) | (rnic_ring_full(&c->probes) ? 2u : 0u);
}

HCC_API uint64_t hcc_tx_advance(hcc_tx *c, uint64_t cycles)
{
    return c ? rnic__advance(c, cycles, hcc__tx_skip, hcc__tx_tick_fn, hcc__tx_full, 0u) : 0;
}

HCC_API uint64_t hcc_tx_advance_to(hcc_tx *c, uint64_t cycle)
{
    return c ? hcc_tx_advance(c, rnic_cycles_until(c->now, cycle)) : 0;
}

HCC_API uint64_t hcc_tx_now(const hcc_tx *c) { return c ? c->now : 0; }

/* ---- outputs ---- */

static rnic_err hcc__tx_pop(hcc_tx *c, rnic_ring *r, rnic_work *out)
{
    if (!c)
        return RNIC_EINVAL;
    if (!out)
        return hcc__tx_refuse_null(c);
    if (rnic_ring_pop(r, out) != RNIC_OK)
        return RNIC_EEMPTY;
    RNIC__TRACE_REC(c, RNIC_TRACE_POP, out);
    return RNIC_OK;
}

static rnic_err hcc__tx_peek(const hcc_tx *c, const rnic_ring *r, rnic_work *out)
{
    const rnic_work *w;
    if (!c)
        return RNIC_EINVAL;
    if (!out) /* counted like pop's: the engine is the caller's, only the statistics change */
        return hcc__tx_refuse_null((hcc_tx *)(uintptr_t)c);
    if (!(w = (const rnic_work *)rnic_ring_peek(r)))
        return RNIC_EEMPTY;
    *out = *w;
    return RNIC_OK;
}

HCC_API rnic_err hcc_tx_pop_probe(hcc_tx *c, rnic_work *out) { return hcc__tx_pop(c, c ? &c->probes : NULL, out); }
HCC_API rnic_err hcc_tx_peek_probe(const hcc_tx *c, rnic_work *out)
{
    return hcc__tx_peek(c, c ? &c->probes : NULL, out);
}
HCC_API rnic_err hcc_tx_pop_rate(hcc_tx *c, rnic_work *out) { return hcc__tx_pop(c, c ? &c->rates : NULL, out); }
HCC_API rnic_err hcc_tx_peek_rate(const hcc_tx *c, rnic_work *out)
{
    return hcc__tx_peek(c, c ? &c->rates : NULL, out);
}

HCC_API const hcc_tx_stats *hcc_tx_get_stats(const hcc_tx *c) { return c ? &c->stats : NULL; }
