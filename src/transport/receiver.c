/* transport.h: the compatible receiver the paper assumes (§2.1, App. A): per flow a bitmap of
 * segments received beyond the cumulative ack, one data segment per cycle in, cumulative ACKs
 * with one SACK block (the run holding the segment just received, RFC 2018's first block),
 * NACKs as an option, and delayed ACKs as ns-3's TcpSocketBase does them: an in-order segment
 * is acknowledged every delack_count-th segment or when the delayed-ACK timer fires; an
 * out-of-order, duplicate or gap-filling segment is acknowledged at once (RFC 5681 §4.2).
 * Options (each off by default, and then nothing above changes): a RoCEv2 go-back-N responder
 * (go_back_n), the DCQCN notification point (cnp_interval_ns, cnp_mode) and NDP's pull queue
 * with trimmed headers answered by NACKs (pull_bps). docs/transport_model.md, "Receiver options". */

#define TP__RX_PULL_MAX 65536u /* pull-queue entries at most (max_flows * window below that) */

TP_API void tp_rx_config_default(tp_rx_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = TP__DEFAULT_CLOCK;
    cfg->max_flows = 1024;
    cfg->window = 128;
    cfg->delack_count = 2;
    cfg->delack_ns = 200000000u;
    cfg->sack = true;
    cfg->segment_depth = 64;
    cfg->ack_depth = 64;
    cfg->delivered_depth = 64;
    cfg->pull_overhead_bytes = 64;
    cfg->trace_id = RNIC_ENGINE_TP_RX;
}

TP_API rnic_err tp_rx_config_check(const tp_rx_config *c, const char **field)
{
    if (field)
        *field = NULL;
    if (!c)
        return rnic_config_bad(field, "cfg", RNIC_EINVAL);
    if (c->clock_hz < RNIC_CLOCK_MIN_HZ || c->clock_hz > RNIC_CLOCK_MAX_HZ)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (c->max_flows == 0 || c->max_flows > TP_MAX_FLOWS)
        return rnic_config_bad(field, "max_flows", RNIC_EINVAL);
    if (c->window != 64u && c->window != 128u && c->window != 256u)
        return rnic_config_bad(field, "window", RNIC_EINVAL);
    if (c->delack_count == 0 || c->delack_count > 65536u)
        return rnic_config_bad(field, "delack_count", RNIC_EINVAL);
    if (c->delack_ns == 0 || c->delack_ns > 100000000000ull)
        return rnic_config_bad(field, "delack_ns", RNIC_EINVAL);
    if (c->segment_depth == 0 || c->segment_depth > 65536u)
        return rnic_config_bad(field, "segment_depth", RNIC_EINVAL);
    if (c->ack_depth == 0 || c->ack_depth > 65536u)
        return rnic_config_bad(field, "ack_depth", RNIC_EINVAL);
    if (c->delivered_depth == 0 || c->delivered_depth > 65536u)
        return rnic_config_bad(field, "delivered_depth", RNIC_EINVAL);
    if (c->cnp_interval_ns > 100000000000ull || (c->cnp_interval_ns && c->ack_depth < 2u))
        return rnic_config_bad(field, "cnp_interval_ns", RNIC_EINVAL); /* a segment's ACK and its CNP */
    if (c->cnp_mode > TP_RX_CNP_DEFERRED)
        return rnic_config_bad(field, "cnp_mode", RNIC_EINVAL);
    if (c->pull_bps && (c->pull_bps < RNIC_RATE_MIN_BPS || c->pull_bps > RNIC_RATE_MAX_BPS))
        return rnic_config_bad(field, "pull_bps", RNIC_EINVAL);
    if (c->pull_overhead_bytes > 65536u)
        return rnic_config_bad(field, "pull_overhead_bytes", RNIC_EINVAL);
    return RNIC_OK;
}

static uint32_t tp__rx_pull_cap(const tp_rx_config *c)
{
    uint64_t n = (uint64_t)c->max_flows * c->window;
    return n < TP__RX_PULL_MAX ? (uint32_t)n : TP__RX_PULL_MAX;
}

static size_t tp__rx_layout(const tp_rx_config *c, tp_rx *r, unsigned char *mem)
{
    size_t off = 0, at;
    uint32_t F = c->max_flows;
    TP__LAYOUT_ARRAY(r, flows, tp__rx_flow, F);
    TP__LAYOUT_ARRAY(r, bits, uint64_t, (size_t)F * (c->window / 64u));
    TP__LAYOUT_HEAP(r, delack, F);
    TP__LAYOUT_PORT(r, input, c->segment_depth);
    TP__LAYOUT_PORT(r, acks, c->ack_depth);
    TP__LAYOUT_PORT(r, delivered, c->delivered_depth);
    if (c->cnp_interval_ns)
        TP__LAYOUT_ARRAY(r, cnp_last, uint64_t, F);
    if (c->cnp_interval_ns && c->cnp_mode == TP_RX_CNP_DEFERRED)
        TP__LAYOUT_HEAP(r, cnp, F);
    if (c->pull_bps)
        TP__LAYOUT_ARRAY(r, pulls, uint64_t, tp__rx_pull_cap(c));
    return off;
}

TP_API size_t tp_rx_mem_size(const tp_rx_config *cfg)
{
    return tp_rx_config_check(cfg, NULL) == RNIC_OK ? tp__rx_layout(cfg, NULL, NULL) : 0;
}

TP_API rnic_err tp_rx_init(tp_rx *r, const tp_rx_config *cfg, void *mem, size_t size)
{
    size_t need;
    if (!r || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || tp_rx_config_check(cfg, NULL) != RNIC_OK)
        return RNIC_EINVAL;
    need = tp__rx_layout(cfg, NULL, NULL);
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(r, 0, sizeof *r);
    RNIC_MEMSET(mem, 0, need);
    r->cfg = *cfg;
    tp__rx_layout(cfg, r, (unsigned char *)mem);
    r->now = cfg->start_cycle;
    r->wwords = cfg->window / 64u;
    r->delack_cycles = rnic_ns_to_cycles(cfg->delack_ns, cfg->clock_hz);
    if (r->delack_cycles == 0)
        r->delack_cycles = 1;
    rnic__heap_clear(&r->delack, cfg->max_flows);
    r->seg_acks = cfg->cnp_interval_ns ? 2u : 1u;
    if (cfg->cnp_interval_ns) {
        r->cnp_cycles = rnic_ns_to_cycles(cfg->cnp_interval_ns, cfg->clock_hz);
        if (r->cnp_cycles == 0)
            r->cnp_cycles = 1;
        if (cfg->cnp_mode == TP_RX_CNP_DEFERRED)
            rnic__heap_clear(&r->cnp, cfg->max_flows);
    }
    if (cfg->pull_bps)
        r->pull_cap = tp__rx_pull_cap(cfg);
    r->pull_next = cfg->start_cycle;
    rnic_trace_set(&r->trace, cfg->trace, cfg->trace_user);
    r->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_TP_RX;
    return RNIC_OK;
}

static rnic_err tp__rx_bad(tp_rx *r, uint32_t flow, rnic_err e, uint64_t value)
{
    rnic_err_note(&r->stats.errors, e);
    RNIC__TRACE(r, RNIC_TRACE_REFUSE, flow, value, e);
    return e;
}

TP_API void tp_rx_flow_config_default(tp_rx_flow_config *fc)
{
    if (fc)
        RNIC_MEMSET(fc, 0, sizeof *fc);
}

TP_API rnic_err tp_rx_flow_open(tp_rx *r, uint32_t flow, const tp_rx_flow_config *fc)
{
    tp__rx_flow *fl;
    uint32_t init_seq;
    if (!r)
        return RNIC_EINVAL;
    init_seq = fc ? fc->init_seq : 0u;
    if (flow >= r->cfg.max_flows)
        return tp__rx_bad(r, flow, RNIC_ENOENT, init_seq);
    fl = &r->flows[flow];
    if (fl->open)
        return tp__rx_bad(r, flow, RNIC_EEXIST, init_seq);
    RNIC_MEMSET(fl, 0, sizeof *fl);
    RNIC_MEMSET(r->bits + (size_t)flow * r->wwords, 0, r->wwords * sizeof(uint64_t));
    fl->expected = init_seq;
    fl->pending = r->cfg.ack_first ? r->cfg.delack_count - 1u : 0u;
    fl->open = 1;
    return RNIC_OK;
}

TP_API rnic_err tp_rx_flow_close(tp_rx *r, uint32_t flow)
{
    tp__rx_flow *fl;
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows || !r->flows[flow].open)
        return tp__rx_bad(r, flow, RNIC_ENOENT, 0);
    fl = &r->flows[flow];
    if (fl->delack_on || fl->cnp_pending || fl->held)
        return tp__rx_bad(r, flow, RNIC_EBUSY, fl->expected);
    rnic__heap_remove(&r->delack, flow); /* a stale (lazy) entry */
    fl->open = 0;
    return RNIC_OK;
}

TP_API rnic_err tp_rx_push_segment(tp_rx *r, const rnic_work *seg)
{
    if (!r)
        return RNIC_EINVAL;
    if (!seg)
        return tp__rx_bad(r, RNIC_NONE, RNIC_EINVAL, 0);
    if (tp__port_full(&r->input))
        return tp__rx_bad(r, seg->flow, RNIC_EBUSY, seg->index);
    tp__port_push(&r->input, seg);
    return RNIC_OK;
}

TP_API uint32_t tp_rx_space_segment(const tp_rx *r) { return r ? tp__port_space(&r->input) : 0; }

/* The run of received segments holding `seg` (seg is received and beyond expected). */
static void tp__rx_block(const tp_rx *r, uint32_t f, uint32_t seg, uint32_t *start, uint32_t *len)
{
    tp_bits v;
    const tp__rx_flow *fl = &r->flows[f];
    uint32_t lo = seg, end;
    v.words = r->bits + (size_t)f * r->wwords;
    v.nbits = r->cfg.window;
    v.base = fl->expected;
    end = tp_bits_find_first_zero(&v, seg, fl->expected + r->cfg.window);
    /* walk back bit by bit: the run is at most W <= 256 bits (an out-of-order arrival only) */
    while (lo != fl->expected && tp_bits_test(&v, lo - 1u))
        lo--;
    *start = lo;
    *len = end - lo;
}

static void tp__rx_ack(tp_rx *r, uint32_t f, uint32_t op, uint32_t sack_start, uint32_t sack_len, uint64_t tag)
{
    tp__rx_flow *fl = &r->flows[f];
    rnic_work a;
    RNIC_MEMSET(&a, 0, sizeof a);
    a.flow = f;
    a.index = fl->expected;
    a.offset = r->cfg.sack ? sack_start : 0u;
    a.len = r->cfg.sack ? sack_len : 0u;
    a.tag = tag;
    a.flags = TP_WORK_PKT(op) | (fl->ecn ? TP_WORK_ECN : 0u);
    a.cycle = r->now;
    fl->ecn = 0;
    fl->pending = 0;
    fl->delack_on = 0; /* its heap entry, if any, is dropped when it comes due (lazy) */
    tp__port_push(&r->acks, &a);
    r->stats.acks++;
    if (op == TP_PKT_NACK)
        r->stats.naks++;
    RNIC__TRACE(r, RNIC_TRACE_OUT, f, a.index, a.len);
}

/* A control record that is not an acknowledgment proper (CNP, pull): index = expected, no
 * block, no ECN echo; the flow's delayed-ACK state is untouched. */
static void tp__rx_ctl(tp_rx *r, uint32_t f, uint32_t op, uint32_t aux)
{
    rnic_work a;
    RNIC_MEMSET(&a, 0, sizeof a);
    a.flow = f;
    a.flags = TP_WORK_PKT(op);
    a.index = r->flows[f].expected;
    a.aux = aux;
    a.cycle = r->now;
    tp__port_push(&r->acks, &a);
    RNIC__TRACE(r, RNIC_TRACE_OUT, f, a.index, a.len);
}

static void tp__rx_cnp_send(tp_rx *r, uint32_t f)
{
    tp__rx_flow *fl = &r->flows[f];
    tp__rx_ctl(r, f, TP_PKT_CNP, 0);
    r->stats.cnps++;
    fl->cnp_sent = 1;
    fl->cnp_pending = 0;
    r->cnp_last[f] = r->now;
}

/* The notification point for a CE-marked segment of flow f: a CNP now when none went out in
 * the last interval (the first mark always sends one); otherwise nothing (immediate) or one
 * CNP at the interval's end (deferred). */
static void tp__rx_cnp_mark(tp_rx *r, uint32_t f)
{
    tp__rx_flow *fl = &r->flows[f];
    if (!fl->cnp_sent || r->now - r->cnp_last[f] >= r->cnp_cycles) {
        if (fl->cnp_pending)
            rnic__heap_remove(&r->cnp, f);
        tp__rx_cnp_send(r, f);
    } else if (r->cfg.cnp_mode == TP_RX_CNP_DEFERRED && !fl->cnp_pending) {
        fl->cnp_pending = 1;
        rnic__heap_set(&r->cnp, f, r->cnp_last[f] + r->cnp_cycles);
    }
}

/* The pull pacer after a pull of `len` bytes leaves this cycle: the next may leave at the exact
 * time (len + overhead) * 8 / pull_bps later, rounded up to a cycle, with the rounding carried
 * (pull_early, in 1/pull_bps of a cycle) so that back-to-back pulls keep the exact long-run rate.
 * A pull that leaves after its due cycle (the queue was empty, or the ACK port full) restarts the
 * pacer from its own cycle: idle time earns no credit. At most one pull per cycle. */
static void tp__rx_pull_pace(tp_rx *r, uint32_t len)
{
    uint64_t hi, lo, q, rem, early = r->now == r->pull_next ? r->pull_early : 0;
    rnic_mul64x64(((uint64_t)len + r->cfg.pull_overhead_bytes) * 8u, r->cfg.clock_hz, &hi, &lo);
    if (hi == 0 && lo <= early) { /* shorter than the carried rounding: the one-per-cycle limit */
        r->pull_next = r->now + 1u;
        r->pull_early = 0;
        return;
    }
    if (lo < early)
        hi--;
    lo -= early;
    q = rnic_udiv128_64(hi, lo, r->cfg.pull_bps, &rem); /* hi < 2^6 <= pull_bps */
    if (rem) {
        q++;
        rem = r->cfg.pull_bps - rem;
    }
    r->pull_next = r->now + q;
    r->pull_early = rem;
}

/* A segment cannot be taken this cycle: an output it may produce has no room. */
static bool tp__rx_blocked(const tp_rx *r)
{
    return tp__port_space(&r->acks) < r->seg_acks || tp__port_full(&r->delivered) ||
           (r->cfg.pull_bps && r->pull_count == r->pull_cap);
}

static void tp__rx_delack_arm(tp_rx *r, uint32_t f)
{
    tp__rx_flow *fl = &r->flows[f];
    uint32_t slot = r->delack.pos[f];
    fl->delack_on = 1;
    fl->delack_deadline = r->now + r->delack_cycles;
    if (slot == RNIC_NONE || rnic__cycle_before(fl->delack_deadline, r->delack.key[slot]))
        rnic__heap_set(&r->delack, f, fl->delack_deadline);
}

/* Go-back-N (RoCEv2 responder): only the expected segment is accepted. */
static void tp__rx_gbn(tp_rx *r, uint32_t f, rnic_work *seg)
{
    tp__rx_flow *fl = &r->flows[f];
    uint32_t d = seg->index - fl->expected;
    bool filled;
    if ((int32_t)d < 0) { /* duplicate: re-acknowledge with the expected PSN */
        r->stats.duplicates++;
        tp__rx_ack(r, f, TP_PKT_ACK, 0, 0, seg->tag);
        return;
    }
    if (d > 0) { /* sequence error: discard; one NAK per gap */
        r->stats.discarded_out_of_sequence++;
        if (!fl->nak_sent) {
            fl->nak_sent = 1;
            tp__rx_ack(r, f, TP_PKT_NACK, 0, 0, seg->tag);
        }
        return;
    }
    r->stats.segments++;
    r->stats.bytes += seg->len;
    seg->cycle = r->now;
    tp__port_push(&r->delivered, seg);
    fl->expected++;
    filled = fl->nak_sent != 0; /* the resent segment closes the gap: acknowledged at once */
    fl->nak_sent = 0;
    fl->pending++;
    fl->last_tag = seg->tag;
    if (filled || fl->pending >= r->cfg.delack_count)
        tp__rx_ack(r, f, TP_PKT_ACK, 0, 0, seg->tag);
    else if (!fl->delack_on)
        tp__rx_delack_arm(r, f);
}

/* A trimmed header (NDP): nothing delivered or recorded; a trim notice asks for the segment
 * again (TP_PKT_NACK with TP_WORK_TRIMMED, offset = its id, len 0: the sender's fixed stage
 * reads any block as a SACK, so the id travels without one), unless it is already here (then
 * an ACK). */
static void tp__rx_trimmed(tp_rx *r, uint32_t f, const rnic_work *seg)
{
    tp__rx_flow *fl = &r->flows[f];
    uint32_t d = seg->index - fl->expected, start = 0, len = 0;
    r->stats.trimmed++;
    if ((int32_t)d < 0) {
        tp__rx_ack(r, f, TP_PKT_ACK, 0, 0, seg->tag);
        return;
    }
    if (!r->cfg.go_back_n && d > 0 && d < r->cfg.window &&
        rnic_bitmap_test(r->bits + (size_t)f * r->wwords, seg->index & (r->cfg.window - 1u))) {
        tp__rx_block(r, f, seg->index, &start, &len);
        tp__rx_ack(r, f, TP_PKT_ACK, start, len, seg->tag);
        return;
    }
    {
        rnic_work a;
        RNIC_MEMSET(&a, 0, sizeof a);
        a.flow = f;
        a.index = fl->expected;
        a.offset = seg->index;
        a.len = 0;
        a.tag = seg->tag;
        a.flags = TP_WORK_PKT(TP_PKT_NACK) | TP_WORK_TRIMMED | (fl->ecn ? TP_WORK_ECN : 0u);
        a.cycle = r->now;
        fl->ecn = 0;
        fl->pending = 0;
        fl->delack_on = 0;
        tp__port_push(&r->acks, &a);
        r->stats.acks++;
        r->stats.naks++;
        RNIC__TRACE(r, RNIC_TRACE_OUT, f, a.index, a.len);
    }
}

/* The selective receiver (the paper's default): every segment seen for the first time is
 * delivered and recorded in the bitmap. */
static void tp__rx_selective(tp_rx *r, uint32_t f, const rnic_work *seg_in)
{
    rnic_work seg = *seg_in;
    tp__rx_flow *fl = &r->flows[f];
    uint64_t *bits = r->bits + (size_t)f * r->wwords;
    uint32_t d, pos, start = 0, len = 0;
    bool gap_before, dup;
    d = seg.index - fl->expected;
    if ((int32_t)d < 0 || d >= r->cfg.window) { /* old duplicate, or beyond what we can track */
        if ((int32_t)d < 0)
            r->stats.duplicates++;
        else
            r->stats.out_of_window++;
        tp__rx_ack(r, f, TP_PKT_ACK, 0, 0, seg.tag);
        return;
    }
    pos = seg.index & (r->cfg.window - 1u);
    dup = d > 0 && rnic_bitmap_test(bits, pos); /* bits hold only segments beyond expected */
    if (dup) {
        r->stats.duplicates++;
        tp__rx_block(r, f, seg.index, &start, &len);
        tp__rx_ack(r, f, TP_PKT_ACK, start, len, seg.tag);
        return;
    }
    r->stats.segments++;
    r->stats.bytes += seg.len;
    seg.cycle = r->now;
    tp__port_push(&r->delivered, &seg);
    if (d > 0) { /* out of order: an immediate (duplicate) ACK, or a NACK */
        rnic_bitmap_set(bits, pos);
        fl->held++;
        tp__rx_block(r, f, seg.index, &start, &len);
        tp__rx_ack(r, f, r->cfg.nack ? TP_PKT_NACK : TP_PKT_ACK, start, len, seg.tag);
        return;
    }
    if (fl->held == 0) { /* in order with nothing held beyond: the common case */
        fl->expected++;
        gap_before = false;
    } else { /* in order: move the cumulative ack over the run now complete */
        tp_bits v;
        uint32_t next, run;
        v.words = bits;
        v.nbits = r->cfg.window;
        v.base = fl->expected;
        rnic_bitmap_set(bits, pos);
        next = tp_bits_find_first_zero(&v, fl->expected, fl->expected + r->cfg.window);
        run = next - fl->expected;
        rnic_bitmap_clear_range(bits, r->cfg.window, fl->expected & (r->cfg.window - 1u), run);
        fl->held -= run - 1u;
        fl->expected = next;
        gap_before = true; /* it filled (part of) a gap: RFC 5681 4.2, ns-3 ACKs at once */
    }
    fl->pending++;
    fl->last_tag = seg.tag;
    if (gap_before || fl->pending >= r->cfg.delack_count) /* filled a gap, or the n-th segment */
        tp__rx_ack(r, f, TP_PKT_ACK, 0, 0, seg.tag);
    else if (!fl->delack_on)
        tp__rx_delack_arm(r, f);
}

static void tp__rx_segment(tp_rx *r)
{
    rnic_work seg;
    tp__rx_flow *fl;
    uint32_t f;
    bool marked;
    if (tp__port_empty(&r->input))
        return;
    if (tp__rx_blocked(r)) {
        r->stats.ack_stalls++;
        return;
    }
    tp__port_pop(&r->input, &seg);
    f = seg.flow;
    if (f >= r->cfg.max_flows || !r->flows[f].open) {
        tp__rx_bad(r, f, RNIC_ENOENT, seg.index);
        return;
    }
    fl = &r->flows[f];
    marked = (seg.flags & TP_WORK_ECN) != 0;
    if (marked) {
        r->stats.marked++;
        if (!r->cnp_cycles) /* with CNPs the mark is told by them, not echoed on ACKs */
            fl->ecn = 1;
    }
    if (seg.flags & TP_WORK_TRIMMED)
        tp__rx_trimmed(r, f, &seg);
    else if (r->cfg.go_back_n)
        tp__rx_gbn(r, f, &seg);
    else
        tp__rx_selective(r, f, &seg);
    if (marked && r->cnp_cycles)
        tp__rx_cnp_mark(r, f);
    if (r->cfg.pull_bps) { /* NDP: one pull per arrival, FIFO over all flows */
        uint32_t at = r->pull_head + r->pull_count;
        if (at >= r->pull_cap)
            at -= r->pull_cap;
        r->pulls[at] = ((uint64_t)f << 32) | seg.len;
        r->pull_count++;
    }
}

TP_API void tp_rx_tick(tp_rx *r)
{
    if (!r)
        return;
    tp__rx_segment(r);
    /* delayed-ACK timers due: one ACK per cycle, when the ACK port has room; stale heap
     * entries (the flow was acknowledged meanwhile, or re-armed later) are dropped or moved.
     * A stale entry is moved to its flow's deadline even when that deadline has passed too, and
     * only an entry keyed at its own deadline fires: so when several timers are due at once (the
     * ACK port was full) the earliest deadline fires first, whatever stale keys the heap holds.
     * Firing the entry found at the top instead made the order depend on which stale entries
     * earlier ticks had tidied, and a fast-forwarded receiver skips the ticks (next_event is
     * RNIC_NEVER while the ACK port is full) in which a ticked one tidies: their ACKs differed.
     * Every key is its flow's deadline or earlier, and deadlines differ (one arming per cycle). */
    while (r->delack.count && !rnic__cycle_before(r->now, rnic__heap_min(&r->delack))) {
        uint32_t f = r->delack.id[0];
        tp__rx_flow *fl = &r->flows[f];
        if (!fl->delack_on) {
            rnic__heap_remove(&r->delack, f);
        } else if (r->delack.key[0] != fl->delack_deadline) {
            rnic__heap_set(&r->delack, f, fl->delack_deadline);
        } else {
            if (tp__port_full(&r->acks))
                break;
            rnic__heap_remove(&r->delack, f);
            r->stats.delayed_acks_sent++;
            tp__rx_ack(r, f, TP_PKT_ACK, 0, 0, fl->last_tag);
            break;
        }
    }
    /* deferred CNPs whose interval ended: every one due, while the ACK port has room */
    while (r->cnp.count && !rnic__cycle_before(r->now, rnic__heap_min(&r->cnp)) && !tp__port_full(&r->acks)) {
        uint32_t f = r->cnp.id[0];
        rnic__heap_remove(&r->cnp, f);
        tp__rx_cnp_send(r, f);
    }
    /* the pull pacer: the pull at the head of the queue, once the last one's gap has passed */
    if (r->pull_count && !rnic__cycle_before(r->now, r->pull_next) && !tp__port_full(&r->acks)) {
        uint64_t e = r->pulls[r->pull_head];
        uint32_t len = (uint32_t)e;
        r->pull_head = r->pull_head + 1u == r->pull_cap ? 0 : r->pull_head + 1u;
        r->pull_count--;
        tp__rx_ctl(r, (uint32_t)(e >> 32), TP_PKT_GRANT, len);
        r->stats.pulls++;
        tp__rx_pull_pace(r, len);
    }
    r->stats.cycles++;
    r->now++;
}

/* The earlier of m (valid when *have) and the event at `at` (not before now). */
static uint64_t tp__rx_min(const tp_rx *r, uint64_t m, bool *have, uint64_t at)
{
    if (rnic__cycle_before(at, r->now))
        at = r->now;
    if (!*have || rnic__cycle_before(at, m)) {
        *have = true;
        return at;
    }
    return m;
}

static uint64_t tp__rx_next(const tp_rx *r, bool *any)
{
    uint64_t m = RNIC_NEVER;
    bool have = false;
    *any = true;
    if (!tp__port_empty(&r->input) && !tp__rx_blocked(r))
        return r->now;
    if (tp__port_full(&r->acks)) { /* every timer's record needs the ACK port */
        *any = false;
        return RNIC_NEVER;
    }
    if (r->delack.count)
        m = tp__rx_min(r, m, &have, r->delack.key[0]);
    if (r->cnp.count)
        m = tp__rx_min(r, m, &have, r->cnp.key[0]);
    if (r->pull_count)
        m = tp__rx_min(r, m, &have, r->pull_next);
    *any = have;
    return m;
}

TP_API uint64_t tp_rx_next_event(const tp_rx *r)
{
    bool any;
    return r ? tp__rx_next(r, &any) : RNIC_NEVER;
}

/* rnic__advance's callbacks (as tp's): idle skip, one tick, one bit for "an output is full". */
static uint64_t tp__rx_skip_fn(void *x, uint64_t left)
{
    tp_rx *r = (tp_rx *)x;
    bool any;
    uint64_t next = tp__rx_next(r, &any), span = tp__idle_cycles(r->now, next, any, left);
    r->now += span;
    r->stats.cycles += span;
    return span;
}
static void tp__rx_tick_fn(void *x) { tp_rx_tick((tp_rx *)x); }
static uint32_t tp__rx_full_fn(const void *x)
{
    const tp_rx *r = (const tp_rx *)x;
    return tp__port_full(&r->acks) || tp__port_full(&r->delivered);
}

TP_API uint64_t tp_rx_advance(tp_rx *r, uint64_t cycles)
{
    return r ? rnic__advance(r, cycles, tp__rx_skip_fn, tp__rx_tick_fn, tp__rx_full_fn, 0u) : 0;
}

TP_API uint64_t tp_rx_advance_to(tp_rx *r, uint64_t cycle) { return r ? tp_rx_advance(r, rnic_cycles_until(r->now, cycle)) : 0; }
TP_API uint64_t tp_rx_now(const tp_rx *r) { return r ? r->now : 0; }

static rnic_err tp__rx_take(tp_rx *r, rnic_ring *ring, rnic_work *out, bool pop)
{
    if (!r)
        return RNIC_EINVAL;
    if (!out)
        return tp__rx_bad(r, RNIC_NONE, RNIC_EINVAL, 0);
    return tp__port_take(ring, out, pop);
}

TP_API rnic_err tp_rx_pop_ack(tp_rx *r, rnic_work *out) { return tp__rx_take(r, r ? &r->acks : NULL, out, true); }
TP_API rnic_err tp_rx_peek_ack(const tp_rx *r, rnic_work *out) { return tp__rx_take((tp_rx *)(uintptr_t)r, r ? (rnic_ring *)(uintptr_t)&r->acks : NULL, out, false); }
TP_API rnic_err tp_rx_pop_delivered(tp_rx *r, rnic_work *out) { return tp__rx_take(r, r ? &r->delivered : NULL, out, true); }
TP_API rnic_err tp_rx_peek_delivered(const tp_rx *r, rnic_work *out) { return tp__rx_take((tp_rx *)(uintptr_t)r, r ? (rnic_ring *)(uintptr_t)&r->delivered : NULL, out, false); }

TP_API rnic_err tp_rx_flow_state(const tp_rx *r, uint32_t flow, tp_rx_flow_view *out)
{
    const tp__rx_flow *fl;
    if (!r || !out)
        return RNIC_EINVAL;
    RNIC_MEMSET(out, 0, sizeof *out);
    if (flow >= r->cfg.max_flows || !r->flows[flow].open)
        return RNIC_ENOENT;
    fl = &r->flows[flow];
    out->open = true;
    out->expected = fl->expected;
    out->held = fl->held;
    out->pending = fl->pending;
    out->delack_running = fl->delack_on != 0;
    return RNIC_OK;
}

TP_API const tp_rx_stats *tp_rx_get_stats(const tp_rx *r) { return r ? &r->stats : NULL; }
