/* ratelimit.h: schedule_queue.c -- the schedule queue (the paper's FIFO, or the ranked option) and the reschedule wheel. */

/* ---- the schedule queue: the paper's FIFO, or ranked (smallest virtual finish first) ---- */

static bool rl__ranked_mode(const rl *r) { return r->cfg.schedule_queue == RL_SCHEDULE_RANKED; }

/* A virtual time as a rank: 2^-16-cycle units in 64 bits, compared wrap-safe. */
static uint64_t rl__rank_of(rnic_ftime t) { return (t.cycle << 16) | (t.frac >> 16); }

/* Flows queued: the FIFO's count, which the ranked queue keeps too (= ranked_count). */
static uint32_t rl__sched_count(const rl *r) { return r->schedule.count; }

/* (rank, order) before: wrap-safe on the rank (live ranks lie within 2^63 of each other). */
static bool rl__ranked_less(const rl__ranked *a, const rl__ranked *b)
{
    if (a->rank != b->rank)
        return a->rank - b->rank >= ((uint64_t)1 << 63);
    return a->order < b->order;
}

static void rl__ranked_push(rl *r, uint32_t qp)
{
    const rl__qp *q = &r->qps[qp];
    rnic_ftime f = rl__finish(q);
    rl__ranked e;
    uint32_t i = r->ranked_count++;
    r->schedule.count++;
    rnic_ftime_add_bytes(&f, r->cfg.mtu, q->cpb); /* a full packet from the next start */
    e.rank = rl__rank_of(f);
    e.order = r->ranked_pushes++;
    e.qp = qp;
    e.pad_ = 0;
    while (i > 0 && rl__ranked_less(&e, &r->ranked[(i - 1u) / 2u])) {
        r->ranked[i] = r->ranked[(i - 1u) / 2u];
        i = (i - 1u) / 2u;
    }
    r->ranked[i] = e;
}

static uint32_t rl__ranked_pop(rl *r)
{
    uint32_t top = r->ranked[0].qp, n = --r->ranked_count, i = 0;
    r->schedule.count--;
    rl__ranked last;
    if (n == 0)
        return top;
    last = r->ranked[n];
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && rl__ranked_less(&r->ranked[c + 1u], &r->ranked[c]))
            c++;
        if (!rl__ranked_less(&r->ranked[c], &last))
            break;
        r->ranked[i] = r->ranked[c];
        i = c;
    }
    r->ranked[i] = last;
    return top;
}

static void rl__enqueue_schedule(rl *r, uint32_t qp)
{
    r->qps[qp].state = RL__QUEUED;
    r->qps[qp].tl_loc = RL__TL_NONE;
    if (rl__ranked_mode(r))
        rl__ranked_push(r, qp); /* max_flows entries: each flow is in it at most once */
    else
        RL__FIFO_PUSH(&r->schedule, RL__TL_NEXT, qp); /* each flow is in it at most once */
}

static bool rl__sched_pop(rl *r, uint32_t *qp)
{
    if (rl__ranked_mode(r)) {
        if (!r->ranked_count) /* defensive: the caller tests rl__sched_count first */
            return false;
        *qp = rl__ranked_pop(r);
        return true;
    }
    if (!r->schedule.count) /* defensive, as above */
        return false;
    *qp = r->schedule.head;
    RL__FIFO_DROP(&r->schedule, RL__TL_NEXT);
    return true;
}

/* ---- the reschedule wheel (RL_SCHEDULE_RANKED): QPs whose reschedule key is near ----
 * wheel_size slots of one QP; slot wheel_base holds key wheel_low and slot
 * (wheel_base + d) mod size key wheel_low + d, so every key on it lies in
 * [wheel_low, wheel_low + size). */

static uint32_t rl__wheel_slot(const rl *r, uint64_t d) /* d < wheel_size */
{
    uint64_t s = r->wheel_base + d;
    return (uint32_t)(s >= r->wheel_size ? s - r->wheel_size : s);
}

/* Place qp at key (or the first free later slot within the window); false: not on the wheel. */
static bool rl__wheel_place(rl *r, uint32_t qp, uint64_t key)
{
    uint64_t d;
    uint32_t want, slot, rel;
    if (!r->wheel_count) {
        r->wheel_low = rnic_ftime_ceil(r->A_mono);
        r->wheel_base = 0;
    }
    d = key - r->wheel_low;
    if (d >= ((uint64_t)1 << 63)) /* below the window: cannot happen (keys >= ceil(A_mono)) */
        d = 0;
    if (d >= r->wheel_size)
        return false;
    want = rl__wheel_slot(r, d);
    slot = rnic_bitmap_ffz_from(r->wheel_used, r->wheel_size, want);
    rel = slot == RNIC_NONE ? 0u : (slot >= r->wheel_base ? slot - r->wheel_base : slot + r->wheel_size - r->wheel_base);
    if (slot == RNIC_NONE || rel < d) { /* no free slot before the window's end */
        r->stats.wheel_spills++;
        return false;
    }
    if (slot != want)
        r->stats.wheel_collisions++;
    rnic_bitmap_set(r->wheel_used, slot);
    r->wheel_qp[slot] = qp;
    r->wheel_count++;
    r->stats.wheel_inserts++;
    r->qps[qp].resched = r->wheel_low + rel;
    r->qps[qp].tl_loc = RL__TL_WHEEL;
    return true;
}

/* The slot of the wheel's smallest key (RNIC_NONE when empty). */
static uint32_t rl__wheel_first(const rl *r)
{
    return r->wheel_count ? rnic_bitmap_ffs_from(r->wheel_used, r->wheel_size, r->wheel_base) : RNIC_NONE;
}

/* A re-timed QP leaves its slot. */
static void rl__wheel_remove(rl *r, uint32_t qp)
{
    uint64_t d = r->qps[qp].resched - r->wheel_low;
    rnic_bitmap_clear(r->wheel_used, rl__wheel_slot(r, d));
    r->wheel_count--;
}

/* A flow with data beyond its stored packets goes DORMANT: an insert request for key
 * ceil(max(res, A_mono)). */
static void rl__reschedule(rl *r, uint32_t qpi, rnic_ftime res)
{
    rl__qp *q = &r->qps[qpi];
    if (rnic_ftime_before(res, r->A_mono))
        res = r->A_mono;
    q->resched = rnic_ftime_ceil(res);
    q->state = RL__DORMANT;
    if (!rl__ranked_mode(r) || !rl__wheel_place(r, qpi, q->resched)) {
        q->tl_loc = RL__TL_REQUEST;
        RL__FIFO_PUSH(&r->insert_requests, RL__TL_NEXT, qpi); /* at most once per flow */
    }
    RNIC__TRACE(r, RL_TRACE_RESCHEDULE, qpi, q->resched, 0);
}

