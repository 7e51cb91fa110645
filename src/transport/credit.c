/* transport.h: the credit engine (§3.1, §3.3, Fig. 2 right): a ring of N segment addresses per
 * flow, the ready-to-transmit FIFO, the Enqueue and Transmit modules, and credit by window (always
 * credit here: the window is enforced by the data delivery engine), rate (timers T = ceil(L / R)
 * with App. B's multi-precision rate registers) or grant tokens. With cfg.external_pacer the
 * rings are read by an outside pacer instead (tp_pacer_source). */

#define TP__FX 20u /* rate credit is kept in 2^-20 bytes */

static rnic_work *tp__ring(const tp *t, uint32_t f) { return t->rings + (size_t)f * t->cfg.ring; }

/* App. B: R_j = the rate in bytes per 2^(4j) cycles, an integer register each (32 bits,
 * saturating: a saturated register is not used). */
static void tp__rate_levels(tp *t, tp__flow *fl)
{
    rnic_q32 bpc = 0;
    uint32_t j;
    if (fl->rate_bps)
        rnic_rate_to_bpc(fl->rate_bps, t->cfg.clock_hz, &bpc); /* bytes per cycle, Q32.32 */
    for (j = 0; j < 6u; j++) {
        uint64_t r = bpc >> (32u - 4u * j);
        fl->rate_level[j] = r > 0xffffffffull ? 0xffffffffu : (uint32_t)r;
    }
}

static uint64_t tp__credit_cap(const tp__flow *fl) { return fl->params.max_burst << TP__FX; }

/* Rate: the credit earned by `now` with the finest register (R_5, 2^-20 bytes per cycle),
 * saturating at the burst D; the engine writes it back (tp__rate_accrue), hooks only read it. */
static uint64_t tp__rate_credit_at(const tp__flow *fl, uint64_t now)
{
    uint64_t cap = tp__credit_cap(fl), dt = now - fl->credit_at, r = fl->rate_level[5];
    if (fl->credit_fx >= cap || r == 0)
        return fl->credit_fx;
    if (dt >= rnic_udiv64(cap - fl->credit_fx, r) + 1u) /* no 64-bit divide helper on 32-bit cores */
        return cap;
    return fl->credit_fx + dt * r;
}

static void tp__rate_accrue(tp *t, tp__flow *fl)
{
    fl->credit_fx = tp__rate_credit_at(fl, t->now);
    fl->credit_at = t->now;
}

static bool tp__has_credit(tp *t, tp__flow *fl, uint32_t len)
{
    if (t->proto->credit == TP_CREDIT_WINDOW)
        return true;
    if (t->proto->credit == TP_CREDIT_TOKEN)
        return fl->credit_fx >= len;
    tp__rate_accrue(t, fl);
    return fl->rate_bps != 0 && fl->credit_fx >= (uint64_t)len << TP__FX;
}

/* App. B: the cycles until the flow has `len` bytes of credit, by the register that gives the
 * earliest time (each gives a time >= the exact one, since each R_j is rounded down). */
static uint64_t tp__rate_wait(const tp__flow *fl, uint32_t len)
{
    uint64_t need = ((uint64_t)len << TP__FX) - fl->credit_fx, best = RNIC_NEVER;
    uint32_t j;
    for (j = 0; j < 6u; j++) {
        uint64_t per_unit, units, cycles;
        if (fl->rate_level[j] == 0 || fl->rate_level[j] == 0xffffffffu)
            continue;
        per_unit = (uint64_t)fl->rate_level[j] << TP__FX; /* 2^-20 bytes per unit of 2^(4j) cycles */
        units = rnic_udiv64(need, per_unit);
        units += units * per_unit != need;
        cycles = units << (4u * j);
        if (cycles < best)
            best = cycles;
    }
    return best;
}

/* Is the ring's head a retransmission whose segment was acknowledged while it waited (its
 * original arrived after all: the trimmed header's pull or the loss report was wrong or late)?
 * Such an entry leaves the ring without credit or a TX slot (tp__credit_transmit). A new segment
 * is never treated so: only a faulty peer acknowledges one before it left, and sending it is the
 * safe answer (docs/transport_model.md, "Credit engine"). */
static bool tp__ring_head_acked(const tp *t, uint32_t f)
{
    const tp__flow *fl = &t->flows[f];
    const rnic_work *head = &tp__ring(t, f)[fl->ring_head & (t->cfg.ring - 1u)];
    if (!(head->flags & TP_WORK_RTX))
        return false;
    if (tp__dist(fl->wnd_start, head->index) < 0) /* cumulatively acknowledged */
        return true;
    /* inside [wnd_start, highest_sent), so within W of wnd_start: its acked bit is valid */
    return rnic_bitmap_test(tp__bitmap(t, f, TP__ACKED), head->index & (t->cfg.window - 1u));
}

/* Does the flow qualify for ready-to-tx now, or when? (the Enqueue / Transmit decision) */
static void tp__credit_check(tp *t, uint32_t f)
{
    tp__flow *fl = &t->flows[f];
    uint32_t len;
    if (t->cfg.external_pacer || fl->in_ready || fl->ring_count == 0)
        return;
    len = tp__ring(t, f)[fl->ring_head & (t->cfg.ring - 1u)].len;
    if (tp__ring_head_acked(t, f) || tp__has_credit(t, fl, len)) { /* an acked head needs no credit */
        rnic__heap_remove(&t->rate_timers, f);
        if (tp__fifo_push(&t->ready, f))
            fl->in_ready = 1;
    } else if (t->proto->credit == TP_CREDIT_RATE && fl->rate_bps) {
        uint64_t wait = tp__rate_wait(fl, len);
        if (wait != RNIC_NEVER)
            rnic__heap_set(&t->rate_timers, f, t->now + wait);
    }
}

/* The Incoming fixed stage acknowledged segments of flow f: a retransmission waiting at the head
 * of its ring for credit (a pull that will not come, a rate timer) may now leave at once. Only
 * then is the flow re-checked, so a waiting rate flow keeps the timer it has. */
static void tp__credit_acked(tp *t, uint32_t f)
{
    const tp__flow *fl = &t->flows[f];
    if (!t->cfg.external_pacer && !fl->in_ready && fl->ring_count && tp__ring_head_acked(t, f))
        tp__credit_check(t, f);
}

static void tp__credit_enqueue(tp *t, uint32_t f, const rnic_work *seg)
{
    tp__flow *fl = &t->flows[f];
    tp__ring(t, f)[(fl->ring_head + fl->ring_count) & (t->cfg.ring - 1u)] = *seg;
    fl->ring_count++;
    if (t->cfg.external_pacer) {
        if (t->cfg.pacer.doorbell)
            t->cfg.pacer.doorbell(t->cfg.pacer.user, f);
        return;
    }
    if (fl->ring_count == 1u)
        tp__credit_check(t, f);
}

static void tp__credit_set_rate(tp *t, uint32_t f, uint64_t bps)
{
    tp__flow *fl = &t->flows[f];
    uint64_t asked = bps;
    if (bps != 0 && (bps < t->cfg.min_rate_bps || bps > t->cfg.link_bps)) {
        bps = bps < t->cfg.min_rate_bps ? t->cfg.min_rate_bps : t->cfg.link_bps;
        t->stats.rate_clamped++;
    }
    if (t->proto->credit == TP_CREDIT_RATE && !t->cfg.external_pacer)
        tp__rate_accrue(t, fl); /* credit earned so far at the old rate */
    fl->rate_bps = bps;
    tp__rate_levels(t, fl);
    RNIC__TRACE(t, RNIC_TRACE_RATE, f, bps, asked);
    if (t->cfg.external_pacer) {
        if (t->cfg.pacer.set_rate)
            t->cfg.pacer.set_rate(t->cfg.pacer.user, f, bps);
        return;
    }
    rnic__heap_remove(&t->rate_timers, f); /* re-time a pending wait at the new rate */
    tp__credit_check(t, f);
}

static void tp__credit_add(tp *t, uint32_t f, uint64_t bytes)
{
    tp__flow *fl = &t->flows[f];
    if (t->proto->credit != TP_CREDIT_TOKEN)
        return;
    fl->credit_fx = fl->credit_fx > UINT64_MAX - bytes ? UINT64_MAX : fl->credit_fx + bytes;
    tp__credit_check(t, f);
}

/* Rate timers due this cycle put their flows in ready-to-tx. */
static void tp__credit_timers(tp *t)
{
    while (t->rate_timers.count && !rnic__cycle_before(t->now, rnic__heap_min(&t->rate_timers))) {
        uint32_t f = t->rate_timers.id[0];
        rnic__heap_remove(&t->rate_timers, f);
        tp__credit_check(t, f);
    }
}

/* Flow f's ring head leaves on the TX port at this cycle (the caller checked the port has room). */
static void tp__emit_head(tp *t, uint32_t f, rnic_work *seg)
{
    tp__flow *fl = &t->flows[f];
    fl->ring_head++;
    fl->ring_count--;
    seg->cycle = t->now;
    tp__port_push(&t->tx, seg);
    t->stats.segments_out++;
    t->stats.bytes_out += seg->len;
    RNIC__TRACE(t, RNIC_TRACE_OUT, f, seg->index, seg->len);
}

/* Transmit: one segment address out per cycle from the head of ready-to-tx. */
static void tp__credit_transmit(tp *t)
{
    tp__flow *fl;
    rnic_work seg;
    uint32_t f;
    if (t->ready.count == 0)
        return;
    if (tp__port_full(&t->tx)) {
        t->stats.tx_stalls++;
        return;
    }
    f = tp__fifo_pop(&t->ready);
    fl = &t->flows[f];
    fl->in_ready = 0;
    if (fl->ring_count == 0)
        return;
    seg = tp__ring(t, f)[fl->ring_head & (t->cfg.ring - 1u)];
    if (tp__ring_head_acked(t, f)) { /* dropped: no credit spent, no TX record; step 9 as for a send */
        fl->ring_head++;
        fl->ring_count--;
        t->stats.segments_skipped++;
        RNIC__TRACE(t, TP_TRACE_SKIP, f, seg.index, seg.len);
        tp__segment_sent(t, f);
        tp__credit_check(t, f);
        return;
    }
    if (!tp__has_credit(t, fl, seg.len)) { /* the rate fell since it qualified */
        tp__credit_check(t, f);
        return;
    }
    if (t->proto->credit == TP_CREDIT_TOKEN)
        fl->credit_fx -= seg.len;
    else if (t->proto->credit == TP_CREDIT_RATE)
        fl->credit_fx -= (uint64_t)seg.len << TP__FX;
    tp__emit_head(t, f, &seg);
    tp__segment_sent(t, f);
    tp__credit_check(t, f);
}
