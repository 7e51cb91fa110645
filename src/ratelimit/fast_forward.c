/* ratelimit.h: fast_forward.c -- rl_next_event (exact, from cached due cycles) and rl_advance / rl_advance_to on the common advance loop. */

/* ---- fast-forward ---- */

/* ftime as a 128-bit count of 2^-32 cycles, (hi, lo). */
static void rl__ft128(rnic_ftime t, uint64_t *hi, uint64_t *lo)
{
    *hi = t.cycle >> 32;
    *lo = (t.cycle << 32) | t.frac;
}

/* Smallest j >= 0 such that x + j * inc reaches `target` (x + j*inc >= target, or > when
 * strict); UINT64_MAX when that is beyond 2^64 cycles. */
static uint64_t rl__cycles_until(const rl *r, rnic_ftime x, rnic_ftime target, bool strict)
{
    uint64_t xh, xl, th, tl, dh, dl, rem, j;
    if (strict ? rnic_ftime_before(target, x) : !rnic_ftime_before(x, target))
        return 0;
    rl__ft128(x, &xh, &xl);
    rl__ft128(target, &th, &tl);
    dl = tl - xl;
    dh = (th - xh - (tl < xl)) & 0xffffffffu; /* modulo 2^96: target may lie past 2^64 */
    if (dh >= r->inc)
        return UINT64_MAX;
    if (r->inc == RNIC_Q32_ONE) { /* Phi <= 1: whole cycles, no divide */
        j = (dh << 32) | (dl >> 32);
        rem = dl & 0xffffffffu;
    } else {
        j = rnic_udiv128_64(dh, dl, r->inc, &rem);
    }
    if (strict || rem)
        j++;
    return j;
}

/* rl__cycles_until(from, target, strict), remembered in *cache as an absolute cycle: within
 * one phi_epoch `from` (T, or A = T + lookahead) moves by exactly inc per cycle, so the answer
 * stays right until inc changes or the target does. The cache is the engine's memory behind
 * a const pointer (rl_next_event is const to its callers); nothing observable changes. */
static bool rl__cache_hit(const rl *r, const rl__due *c, rnic_ftime target, uint64_t *gap)
{
    if (!c->valid || c->epoch != r->phi_epoch || c->target.cycle != target.cycle || c->target.frac != target.frac)
        return false;
    *gap = rl__reached(r->now, c->at) ? 0u : c->at - r->now;
    return true;
}

static uint64_t rl__cached_gap(const rl *r, const rl__due *cache, rnic_ftime from, rnic_ftime target, bool strict)
{
    rl__due *c = (rl__due *)(uintptr_t)cache;
    uint64_t j;
    if (rl__cache_hit(r, c, target, &j))
        return j;
    j = rl__cycles_until(r, from, target, strict);
    c->valid = j < ((uint64_t)1 << 62); /* far ones are recomputed: `at` must stay within reach */
    c->epoch = r->phi_epoch;
    c->target = target;
    c->at = r->now + j;
    return j;
}

/* Cycles until a timeline or wheel key falls due (A + j*inc > key); UINT64_MAX: beyond 2^64. */
static uint64_t rl__key_gap(const rl *r, const rl__due *cache, uint64_t key)
{
    uint64_t gap;
    if (r->inc == RNIC_Q32_ONE) { /* Phi <= 1: A moves a whole cycle per cycle, no division */
        rnic_ftime a;
        if (rl__key_due(r, key))
            return 0;
        a = rl__activation(r); /* key >= A_mono >= A: due once A passes key */
        gap = key - a.cycle;
        if (gap < ((uint64_t)1 << 62))
            return gap + (a.frac == 0);
    }
    if (cache && rl__cache_hit(r, cache, rnic_ftime_at(key), &gap)) /* before A is computed (due stays due within an epoch) */
        return gap;
    if (rl__key_due(r, key))
        return 0;
    return cache ? rl__cached_gap(r, cache, rl__activation(r), rnic_ftime_at(key), true)
                 : rl__cycles_until(r, rl__activation(r), rnic_ftime_at(key), true);
}

/* Cycles from now to the next timeline dequeue when no insert request waits (UINT64_MAX: none
 * without new input): when the smallest settled key falls due, or an enqueue still settling
 * that would leave before it (settled and due), at an operation slot (op: cycles to it). */
static uint64_t rl__tl_gap(const rl *r, uint64_t op)
{
    uint32_t min_qp = r->heap_count ? rl__tl_peek(r) : RNIC_NONE, i, n = r->inserts_in_flight.count;
    uint64_t j = min_qp != RNIC_NONE ? rl__key_gap(r, &r->tl_due, r->qps[min_qp].resched) : UINT64_MAX;
    const rl__timed_queue *q = &r->inserts_in_flight;
    if (min_qp != RNIC_NONE && !rl__key_before(r->inflight_key_floor, r->qps[min_qp].resched))
        n = 0; /* every enqueue in flight leaves after the settled minimum */
    for (i = 0; i < n; i++) {
        const rl__timed_qp *e = &RL__Q_AT(q, i);
        uint64_t key = r->qps[e->qp].resched, settle, k;
        if (min_qp != RNIC_NONE && !rl__key_before(key, r->qps[min_qp].resched))
            continue; /* leaves after the settled minimum */
        settle = rl__reached(r->now, e->cycle) ? 0u : e->cycle - r->now;
        k = rl__key_gap(r, NULL, key);
        if (k < settle)
            k = settle;
        if (k < j)
            j = k;
    }
    if (j == UINT64_MAX)
        return j;
    return j > op ? j : op;
}

/* rl__tl_gap at the current operation slot, remembered as a cycle: without a change of the
 * timeline, its enqueues in flight, the operation slot (tl_stamp) or of inc (phi_epoch) the
 * answer moves only with time (every term is a due cycle). A cache in the engine's memory, as
 * rl__cached_gap's. */
static uint64_t rl__tl_gap_fill(const rl *r)
{
    rl *w = (rl *)(uintptr_t)r;
    uint64_t op = rl__reached(r->now, r->heap_next_op) ? 0u : r->heap_next_op - r->now, g = rl__tl_gap(r, op);
    w->tl_gap_valid = g < ((uint64_t)1 << 62); /* far ones are recomputed, as rl__cached_gap's */
    w->tl_gap_at = r->now + g;
    w->tl_gap_stamp = r->tl_stamp;
    w->tl_gap_epoch = r->phi_epoch;
    return g;
}
RNIC_INLINE uint64_t rl__tl_gap_now(const rl *r)
{
    if (r->tl_gap_valid && r->tl_gap_stamp == r->tl_stamp && r->tl_gap_epoch == r->phi_epoch)
        return rl__reached(r->now, r->tl_gap_at) ? 0u : r->tl_gap_at - r->now;
    return rl__tl_gap_fill(r);
}

/* rl__next_gap_of's `leave`: the events it leaves out. */
#define RL__LEAVE_OUTPUT 1u /* those on a packet's way to the TX port (a fetch's return, eligibility,
                               the link): rl__output_gap's rest */
#define RL__LEAVE_TL 2u     /* the timeline's dequeues (rl__skip runs them itself, see there) */
#define RL__LEAVE_DLV 4u    /* the deliveries to the schedule queue (likewise) */

/* Cycles from now to the next event (false: none without new input), leaving out the kinds in
 * `leave`. Distances, not cycles, so that the 2^64 wrap needs no special case. */
static bool rl__next_gap_of(const rl *r, uint64_t *gap, unsigned leave)
{
    uint64_t best = UINT64_MAX, c, op;
    bool any = false, all = !(leave & RL__LEAVE_OUTPUT);
    if (r->registers.count) {
        *gap = 0;
        return true;
    }
    /* the cheap registers first: a tick is due now about half the time, and then nothing
     * later needs computing */
#define RL__IN(d) /* an event `d` cycles from now */ \
    do {                                          \
        uint64_t d_ = (d);                        \
        if (d_ == 0) {                            \
            *gap = 0;                             \
            return true;                          \
        }                                         \
        if (d_ < best)                            \
            best = d_;                            \
        any = true;                               \
    } while (0)
#define RL__AT(cycle) /* an event at an absolute cycle (a past one is due now) */ \
    RL__IN(rl__reached(r->now, (cycle)) ? 0u : (cycle) - r->now)
    if (all && r->fetches.count)
        RL__AT(RL__Q_HEAD(&r->fetches).cycle);
    if (r->deliveries.count && !(leave & RL__LEAVE_DLV))
        RL__AT(RL__Q_HEAD(&r->deliveries).cycle);
    if (all && r->n_ready && !rnic_ring_full(&r->tx))
        RL__AT(r->link_free);
    if (rl__fetch_gate_open(r)) /* step 7 pops, when the read channel is free */
        RL__AT(r->fetch_cpb ? r->fetch_free : r->now);
    op = rl__reached(r->now, r->heap_next_op) ? 0u : r->heap_next_op - r->now;
    if (r->insert_requests.count)
        RL__IN(op);
    if (all && r->n_waiting) { /* when T reaches the earliest waiting packet's start */
        c = rl__cached_gap(r, &r->wait_due, r->T, r->desc[r->desc_waiting[0].slot].start, false);
        if (c != UINT64_MAX)
            RL__IN(c);
    }
    if (r->wheel_count) { /* when the wheel's smallest key falls due */
        uint64_t j = rl__key_gap(r, &r->wheel_due, r->qps[r->wheel_qp[rl__wheel_first(r)]].resched);
        if (j != UINT64_MAX)
            RL__IN(j);
    }
    if ((r->heap_count || r->inserts_in_flight.count) && !(leave & RL__LEAVE_TL)) {
        uint64_t j = rl__tl_gap_now(r);
        if (j != UINT64_MAX)
            RL__IN(j);
    }
#undef RL__AT
#undef RL__IN
    *gap = best;
    return any;
}
static bool rl__next_gap(const rl *r, uint64_t *gap) { return rl__next_gap_of(r, gap, 0u); }

RL_API uint64_t rl_next_event(const rl *r)
{
    uint64_t gap;
    if (!r || !rl__next_gap(r, &gap))
        return RNIC_NEVER;
    return r->now + gap; /* an event exactly at cycle 2^64 - 1 reads as RNIC_NEVER: use rl_advance */
}

/* A lower bound on the next TX record (rl_next_output), as a gap from now. Without input the
 * rate registers stay as they are, so Phi and the clock step inc change only at a round (a
 * fetch's return, which may deactivate a QP) or a transmission: until the earlier of the two,
 * a waiting packet becomes eligible exactly when rl_next_event's wait_due says. A packet
 * leaves (step 6) at the earliest:
 *   - a ready one, when the link frees (with room on the TX port: a full port waits for a pop);
 *   - a waiting one, when T reaches its start (step 5, then step 6 in the same tick);
 *   - one of a fetch in flight, at its return (step 2 stores it; 5 and 6 follow in the tick);
 *   - any other: through a fetch not yet issued, which returns pcie_latency cycles after the
 *     earliest event left (the timeline, the wheel, a delivery, an insert, the fetch gate). */
static uint64_t rl__output_gap(const rl *r)
{
    uint64_t best = UINT64_MAX, c, other;
#define RL__GAP(cycle) (rl__reached(r->now, (cycle)) ? 0u : (cycle) - r->now)
    if (r->registers.count)
        return 0; /* a register write lands in the next tick's EMUX: anything may follow */
    if (r->n_ready && !rnic_ring_full(&r->tx))
        best = RL__GAP(r->link_free);
    if (r->n_waiting) {
        c = rl__cached_gap(r, &r->wait_due, r->T, r->desc[r->desc_waiting[0].slot].start, false);
        if (c < best)
            best = c;
    }
    if (r->fetches.count && (c = RL__GAP(RL__Q_HEAD(&r->fetches).cycle)) < best)
        best = c;
    if (best == 0)
        return 0;
    if (rl__next_gap_of(r, &other, RL__LEAVE_OUTPUT) && other < best && best - other > r->pcie_latency)
        best = other + r->pcie_latency;
#undef RL__GAP
    return best;
}

RL_API uint64_t rl_next_output(const rl *r)
{
    uint64_t gap;
    if (!r)
        return RNIC_NEVER;
    gap = rl__output_gap(r);
    return gap == UINT64_MAX ? RNIC_NEVER : r->now + gap;
}

/* Let n cycles pass in which no step has work: T, A_mono, now, the cycle count and the 2^62
 * catch-up; the stall counters those cycles count are rl__skip's. */
RNIC_INLINE void rl__pass(rl *r, uint64_t n)
{
    while (n) { /* jumps of at most 2^61 cycles: n * inc stays below 2^63 (inc <= 1) */
        uint64_t jump = n < RL__JUMP ? n : RL__JUMP, n_before = r->now, t_before = r->T.cycle;
        if (r->inc == RNIC_Q32_ONE) { /* Phi <= 1: whole cycles */
            r->T.cycle += jump;
            if (r->a_tracks) /* A_mono == A = T + lookahead: still equal */
                r->A_mono.cycle += jump;
        } else if (jump < ((uint64_t)1 << 32)) { /* jump * inc < 2^64: one Q32.32 step */
            rnic_ftime_add_q32(&r->T, jump * r->inc);
            if (r->a_tracks)
                rnic_ftime_add_q32(&r->A_mono, jump * r->inc);
        } else {
            rnic_ftime_add_bytes(&r->T, jump, r->inc);
            if (r->a_tracks)
                r->A_mono = rl__activation(r);
        }
        if (!r->a_tracks)
            rl__update_activation(r);
        r->now += jump;
        r->stats.cycles += jump;
        n -= jump;
        if (((r->now ^ n_before) | (r->T.cycle ^ t_before)) >> RL__EPOCH_BITS)
            rl__catch_up(r);
    }
}

/* rnic__advance's skip: jump over the idle cycles up to the next event (at most `left`); 0
 * when something happens now. Cycles whose only work is the timeline's (a dequeue at an
 * operation slot, a delivery to the schedule FIFO while the descriptor gate is closed) are
 * run here without a tick: steps 3 and 4 (rl__timeline) are the only ones with work in them,
 * and nothing they do moves another step's next event (the FIFO mode, no insert request
 * waiting: the operation only dequeues; the gate stays closed until a round or a transmission,
 * which are ticked). A dequeue runs at its cycle; deliveries, which only queue their flows in
 * their order, join the FIFO at the next dequeue's cycle or at the end of the stretch, before
 * the skip returns. A delivery while the gate is open would let step 7 pop: it stays an event.
 * Nothing can read the engine inside the stretch: what it returns is the ticked state.
 * The stall counters of the stretch are counted at its end, from the state at its start: a
 * ready packet waits for TX room from the cycle the link frees; queued flows wait for the read
 * channel (the gate open: no delivery in the stretch) or at the descriptor gate, from the
 * first cycle a flow is queued (only a delivery in the stretch queues one). */
static uint64_t rl__skip(void *x, uint64_t left)
{
    rl *r = (rl *)x;
    uint64_t gap, limit, total = 0, tx_wait = UINT64_MAX, gated_from, start = r->now;
    bool lazy = !rl__ranked_mode(r) && !r->registers.count && !r->insert_requests.count, ran = false, throttled;
    bool closed = r->desc_count + r->fetches.count >= r->cfg.desc_depth; /* the descriptor gate */
    unsigned leave = lazy ? RL__LEAVE_TL | (closed ? RL__LEAVE_DLV : 0u) : 0u;
    limit = rl__next_gap_of(r, &gap, leave) ? (gap < left ? gap : left) : left;
    if (!limit)
        return 0;
    if (r->n_ready && rnic_ring_full(&r->tx)) /* a ready packet waits for TX room */
        tx_wait = rl__reached(r->now, r->link_free) ? 0u : r->link_free - r->now;
    throttled = rl__fetch_gate_open(r);
    gated_from = rl__sched_count(r) ? 0u : UINT64_MAX;
    while (lazy) { /* total < limit: the cycles before now are done, steps 3 and 4 of now too if ran */
        uint64_t e = UINT64_MAX, d;
        if (r->heap_count || r->inserts_in_flight.count)
            e = rl__tl_gap_now(r);
        if (r->deliveries.count && !closed) { /* a delivery while the gate is open: ticked */
            d = rl__reached(r->now, RL__Q_HEAD(&r->deliveries).cycle) ? 0u : RL__Q_HEAD(&r->deliveries).cycle - r->now;
            if (d < limit - total)
                limit = total + d;
        }
        if (ran && e == 0) /* this cycle's timeline work is done */
            e = 1;
        if (e >= limit - total)
            break;
        rl__pass(r, e);
        total += e;
        if (gated_from == UINT64_MAX && r->deliveries.count && rl__reached(r->now, RL__Q_HEAD(&r->deliveries).cycle))
            gated_from = RL__Q_HEAD(&r->deliveries).cycle - start; /* the first flow queued waits from its cycle */
        rl__timeline(r); /* steps 3 and 4 of this cycle, its only work (and the deliveries before it) */
        ran = true;
    }
    rl__pass(r, limit - total);
    /* with the gate closed a delivery only queues its flow (the gate stays closed until a round
     * or a transmission, which are ticked): the deliveries of the skipped cycles join the FIFO
     * in their order (nothing else joins it in the stretch) */
    while (closed && r->deliveries.count && rl__reached(r->now - 1u, RL__Q_HEAD(&r->deliveries).cycle)) {
        if (gated_from == UINT64_MAX)
            gated_from = RL__Q_HEAD(&r->deliveries).cycle - start;
        rl__enqueue_schedule(r, RL__Q_HEAD(&r->deliveries).qp);
        RL__Q_DROP(&r->deliveries);
    }
    if (tx_wait < limit)
        r->stats.tx_stalls += limit - tx_wait;
    if (throttled) /* queued flows wait for the read channel meanwhile */
        r->stats.fetch_throttled += limit;
    else if (gated_from != UINT64_MAX) /* ... or at the descriptor gate */
        r->stats.fetch_gated += limit - gated_from;
    return limit;
}
static void rl__tick_fn(void *x) { rl_tick((rl *)x); }
static uint32_t rl__full(const void *x) { return rnic_ring_full(&((const rl *)x)->tx) ? 1u : 0u; }

/* The common advance loop; a skip stops exactly on the next event, so the tick follows at once. */
RL_API uint64_t rl_advance(rl *r, uint64_t cycles)
{
    return r ? rnic__advance(r, cycles, rl__skip, rl__tick_fn, rl__full, RNIC__ADVANCE_TICK_AFTER_SKIP) : 0;
}

RL_API uint64_t rl_advance_to(rl *r, uint64_t cycle)
{
    return r ? rl_advance(r, rnic_cycles_until(r->now, cycle)) : 0;
}

