/* Tassel rate limiter engine. Cycle semantics: docs/tassel_model.md (every step below is
 * numbered as there). Software representation: the timeline of dormant QPs is a radix heap
 * on (key, insertion order) -- exactly the P-heap's order, amortised O(1) instead of the
 * O(log n) cache misses of a binary heap -- whose hardware timing (an operation every 2
 * cycles, `height` cycles each) is modelled with two small pipelines; the descriptor buffer
 * (k <= 256 urgent packets) keeps two small binary heaps of slots: waiting by start, eligible
 * by (finish, number), so no cycle scans the buffer. */

enum { RL__IDLE, RL__QUEUED, RL__WAIT_CREDIT, RL__FETCHING, RL__DORMANT, RL__DRAINING };
enum { RL__EV_DOORBELL, RL__EV_RATE, RL__EV_CREDIT };

#define RL__DEFAULT_CLOCK 250000000ull
#define RL__DEFAULT_LINK 100000000000ull
#define RL__MAX_LINK 800000000000ull

RL_API const char *rl_version(void);

RL_API void rl_config_default(rl_config *cfg)
{
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = RL__DEFAULT_CLOCK;
    cfg->link_bps = RL__DEFAULT_LINK;
    cfg->min_rate_bps = RNIC_RATE_MIN_BPS;
    cfg->max_qps = 1024;
    cfg->mtu = 4096;
    cfg->pcie_latency = 250;
    cfg->fetch_wqes = 8;
    cfg->desc_capacity = 60;
    cfg->event_capacity = 64;
    cfg->tx_capacity = 64;
}

static bool rl__config_valid(const rl_config *c)
{
    rnic_q32 q;
    if (!c || !c->fetch || c->max_qps == 0 || c->max_qps > RL_MAX_QPS || c->mtu < 64 || c->mtu > 65536u ||
        c->pcie_latency == 0 || c->pcie_latency > (1u << 20) || c->fetch_wqes == 0 || c->fetch_wqes > RL_MAX_FETCH ||
        c->desc_capacity == 0 || c->desc_capacity > RL_MAX_DESC || c->event_capacity == 0 || c->tx_capacity == 0 ||
        c->link_bps == 0 || c->link_bps > RL__MAX_LINK || c->min_rate_bps == 0 || c->min_rate_bps > c->link_bps ||
        c->clock_hz < 1000000u || c->clock_hz > 10000000000ull)
        return false;
    /* both ends of the rate range must be representable at this clock */
    return rnic_rate_to_cpb(c->min_rate_bps, c->clock_hz, &q) == RNIC_OK &&
           rnic_rate_to_cpb(c->link_bps, c->clock_hz, &q) == RNIC_OK;
}

/* P-heap height: levels of a complete binary tree holding max_qps entries. */
static uint32_t rl__height(uint32_t n)
{
    uint32_t h = 0;
    while (h < 32 && ((uint64_t)1 << h) - 1u < n)
        h++;
    return h;
}

/* One layout for rl_mem_size and rl_init. Returns bytes, 0 if the layout overflows. */
static size_t rl__layout(const rl_config *c, rl *r, unsigned char *mem)
{
    size_t off = 0, at, n = c->max_qps, h = rl__height(c->max_qps) + 2u;
#define RL__ARRAY(field, type, count)                                 \
    do {                                                              \
        if (!rnic__mem_reserve(&off, (count), sizeof(type), &at))     \
            return 0;                                                 \
        if (r)                                                        \
            r->field = (type *)(void *)(mem + at);                    \
    } while (0)
#define RL__RING(ring, type, count)                                                   \
    do {                                                                              \
        if (!rnic__mem_reserve(&off, (count), sizeof(type), &at))                     \
            return 0;                                                                 \
        if (r)                                                                        \
            rnic_ring_init(&r->ring, sizeof(type), (uint32_t)(count), mem + at,       \
                           rnic_align_up((size_t)(count) * sizeof(type)));            \
    } while (0)
    RL__ARRAY(qps, rl_qp, n);
    RL__ARRAY(qp_stats, rl_qp_stats, n);
    RL__ARRAY(tl_next, uint32_t, n);
    RL__ARRAY(tl_prev, uint32_t, n);
    RL__RING(insert_requests, uint32_t, n);
    RL__RING(inserts_in_flight, rl_heap_insert, h);
    RL__RING(deliveries, rl_timed_qp, h);
    RL__RING(schedule, uint32_t, n);
    RL__RING(fetches, rl_timed_qp, (size_t)c->pcie_latency + 1u);
    RL__RING(events, rl_event, c->event_capacity);
    RL__RING(tx, rl_tx, c->tx_capacity);
#undef RL__ARRAY
#undef RL__RING
    return off;
}

RL_API size_t rl_mem_size(const rl_config *cfg)
{
    return rl__config_valid(cfg) ? rl__layout(cfg, NULL, NULL) : 0;
}

RL_API size_t rl_mem_per_qp(const rl_config *cfg)
{
    /* everything sized by max_qps: QP state, statistics, two timeline links, two FIFO slots */
    return rl__config_valid(cfg) ? sizeof(rl_qp) + sizeof(rl_qp_stats) + 4u * sizeof(uint32_t) : 0;
}

/* Phi, inc = 1 / max(1, Phi) and Lambda = (L + height + 1) / max(1, Phi) after the active rate
 * sum changed. Under oversubscription the system time slows down by Phi, so every QP becomes
 * eligible at rate / Phi and the link is shared in proportion to the rates (Fig. 8b);
 * the lookahead covers the whole reactivation path (P-heap dequeue, FIFO -> fetch issue, the
 * PCIe read), so a rescheduled QP's WQEs are back by its next packet's start. */
static void rl__update_phi(rl *r)
{
    rnic_q32 phi = 0, over;
    if (r->sum_active_bps && rnic_q32_ratio(r->sum_active_bps, r->cfg.link_bps, &phi) != RNIC_OK)
        phi = 0; /* a sum too small to represent is Phi = 0 (inc = 1 anyway) */
    r->phi = phi;
    over = phi > RNIC_Q32_ONE ? phi : RNIC_Q32_ONE; /* max(1, Phi) */
    r->inc = rnic_udiv128_64(1, 0, over, NULL);      /* 1 / max(1, Phi): the clock slows down */
    r->lookahead = rnic_udiv128_64((uint64_t)r->cfg.pcie_latency + r->heap_height + 1u, 0, over, NULL);
    if (phi > r->stats.max_phi_q32)
        r->stats.max_phi_q32 = phi;
}

static rnic_ftime rl__activation(const rl *r)
{
    rnic_ftime a = r->T;
    rnic_ftime_add_q32(&a, r->lookahead);
    return a;
}

static void rl__update_activation(rl *r)
{
    rnic_ftime a = rl__activation(r);
    if (rnic_ftime_before(r->A_mono, a))
        r->A_mono = a;
}

RL_API rnic_err rl_init(rl *r, const rl_config *cfg, void *mem, size_t size)
{
    size_t need;
    uint32_t i;
    rnic_q32 link_cpb = 0; /* set below: a valid config has a representable link rate */
    if (!r || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || !rl__config_valid(cfg))
        return RNIC_EINVAL;
    need = rl__layout(cfg, NULL, NULL);
    if (need == 0)
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(r, 0, sizeof *r);
    r->cfg = *cfg;
    rl__layout(cfg, r, (unsigned char *)mem);
    r->heap_height = rl__height(cfg->max_qps);
    rnic_rate_to_cpb(cfg->link_bps, cfg->clock_hz, &link_cpb);
    r->link_cpb = link_cpb;
    for (i = 0; i < 65u; i++)
        r->tl_head[i] = r->tl_tail[i] = RNIC_NONE;
    r->tl_late_head = r->tl_late_tail = r->tl_min = RNIC_NONE;
    for (i = 0; i < cfg->max_qps; i++) {
        rl_qp *q = &r->qps[i];
        RNIC_MEMSET(q, 0, sizeof *q);
        q->rate_bps = cfg->link_bps;
        q->cpb = link_cpb;
        q->credit = 1;
        r->qp_stats[i].packets = r->qp_stats[i].bytes = 0;
    }
    rl__update_phi(r);
    r->A_mono = rl__activation(r);
    return RNIC_OK;
}

/* ---- inputs (EMUX port) ---- */

static rnic_err rl__push_event(rl *r, uint32_t kind, uint32_t qp, uint64_t value)
{
    rl_event ev;
    if (qp >= r->cfg.max_qps)
        return rnic_err_note(&r->stats.errors, RNIC_ENOENT);
    ev.kind = kind;
    ev.qp = qp;
    ev.value = value;
    if (rnic_ring_push(&r->events, &ev) != RNIC_OK) {
        r->stats.event_port_full++;
        return RNIC_EBUSY;
    }
    return RNIC_OK;
}

RL_API rnic_err rl_push_doorbell(rl *r, uint32_t qp) { return rl__push_event(r, RL__EV_DOORBELL, qp, 0); }

RL_API rnic_err rl_push_rate(rl *r, uint32_t qp, uint64_t bps)
{
    if (qp >= r->cfg.max_qps)
        return rnic_err_note(&r->stats.errors, RNIC_ENOENT);
    if (bps < r->cfg.min_rate_bps || bps > r->cfg.link_bps)
        return rnic_err_note(&r->stats.errors, RNIC_ERANGE);
    return rl__push_event(r, RL__EV_RATE, qp, bps);
}

RL_API rnic_err rl_push_credit(rl *r, uint32_t qp, bool has_credit)
{
    return rl__push_event(r, RL__EV_CREDIT, qp, has_credit ? 1u : 0u);
}

/* ---- QP activity ---- */

static void rl__activate(rl *r, rl_qp *q)
{
    r->sum_active_bps += q->rate_bps;
    rl__update_phi(r);
}

static void rl__deactivate(rl *r, rl_qp *q)
{
    q->state = RL__IDLE;
    r->sum_active_bps -= q->rate_bps;
    rl__update_phi(r);
}

static void rl__enqueue_schedule(rl *r, uint32_t qp)
{
    r->qps[qp].state = RL__QUEUED;
    rnic_ring_push(&r->schedule, &qp); /* cannot be full: each QP is in it at most once */
}

/* Step 1. */
static void rl__emux(rl *r)
{
    rl_event ev;
    rl_qp *q;
    if (rnic_ring_pop(&r->events, &ev) != RNIC_OK)
        return;
    q = &r->qps[ev.qp];
    switch (ev.kind) {
    case RL__EV_DOORBELL:
        r->stats.doorbells++;
        if (q->state == RL__IDLE) {
            if (rnic_ftime_before(q->finish, r->T))
                q->finish = r->T;
            rl__activate(r, q);
            rl__enqueue_schedule(r, ev.qp);
        } else if (q->state == RL__DRAINING) {
            q->doorbell_pending = 1;
        }
        break;
    case RL__EV_RATE:
        r->stats.rate_updates++;
        if (q->state != RL__IDLE)
            r->sum_active_bps -= q->rate_bps;
        q->rate_bps = ev.value;
        rnic_rate_to_cpb(ev.value, r->cfg.clock_hz, &q->cpb);
        if (q->state != RL__IDLE) {
            r->sum_active_bps += q->rate_bps;
            rl__update_phi(r);
        }
        break;
    default:
        r->stats.credit_updates++;
        q->credit = ev.value ? 1u : 0u;
        if (q->credit && q->state == RL__WAIT_CREDIT)
            rl__enqueue_schedule(r, ev.qp);
        break;
    }
}

/* ---- descriptor buffer ---- */

static uint32_t rl__desc_free_slot(const rl *r)
{
    return rnic_bitmap_ffz_from(r->desc_used, r->cfg.desc_capacity, 0);
}

/* The descriptor heaps' orders: waiting by start (any order among equal starts: they become
 * eligible together); eligible by (finish, descriptor number), the transmit order. */
static bool rl__desc_less(const rl *r, bool by_finish, uint32_t a, uint32_t b)
{
    const rl_desc *x = &r->desc[a], *y = &r->desc[b];
    if (!by_finish)
        return rnic_ftime_before(x->start, y->start);
    if (x->finish.cycle != y->finish.cycle || x->finish.frac != y->finish.frac)
        return rnic_ftime_before(x->finish, y->finish);
    return x->number < y->number;
}

static void rl__dheap_push(rl *r, uint16_t *h, uint32_t *count, bool by_finish, uint32_t slot)
{
    uint32_t i = (*count)++;
    while (i > 0 && rl__desc_less(r, by_finish, slot, h[(i - 1u) / 2u])) {
        h[i] = h[(i - 1u) / 2u];
        i = (i - 1u) / 2u;
    }
    h[i] = (uint16_t)slot;
}

static uint32_t rl__dheap_pop(rl *r, uint16_t *h, uint32_t *count, bool by_finish)
{
    uint32_t top = h[0], last, n, i = 0;
    n = --(*count);
    if (n == 0)
        return top;
    last = h[n];
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && rl__desc_less(r, by_finish, h[c + 1u], h[c]))
            c++;
        if (!rl__desc_less(r, by_finish, h[c], last))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = (uint16_t)last;
    return top;
}

/* Step 2: a round for QP qpi, whose WQE fetch completed this cycle. */
static void rl__round(rl *r, uint32_t qpi)
{
    rl_qp *q = &r->qps[qpi];
    uint32_t n = r->cfg.fetch_wqes, w, valid, wi = 0, off, p = 0, m = 0, slot;
    rnic_ftime t, res, starts[RL_MAX_FETCH];
    bool storing = true, more;

    r->stats.fetches++;
    q->doorbell_pending = 0;
    w = r->cfg.fetch(r->cfg.fetch_user, qpi, q->wqe_seq, r->fetched, n);
    if (w > n)
        w = n;
    for (valid = 0; valid < w; valid++) /* a malformed WQE ends the usable data of this fetch */
        if (r->fetched[valid].len == 0 || r->fetched[valid].len > 0x80000000u) {
            rnic_err_note(&r->stats.errors, RNIC_EINVAL);
            break;
        }
    r->stats.wqes_fetched += valid;
    off = q->offset;
    t = q->finish;
    while (p < n && wi < valid) { /* cut at most n packets */
        uint32_t left = r->fetched[wi].len - off, len = left < r->cfg.mtu ? left : r->cfg.mtu;
        starts[p] = t;
        rnic_ftime_add_bytes(&t, len, q->cpb);
        r->stats.packets_computed++;
        if (storing && rnic_ftime_before(starts[p], r->A_mono) && (slot = rl__desc_free_slot(r)) != RNIC_NONE) {
            rl_desc *d = &r->desc[slot];
            d->start = starts[p];
            d->finish = t;
            d->number = r->desc_numbers++;
            d->qp = qpi;
            d->wqe_id = r->fetched[wi].id;
            d->offset = off;
            d->len = len;
            d->last = len == left;
            rnic_bitmap_set(r->desc_used, slot);
            rl__dheap_push(r, r->desc_waiting, &r->n_waiting, false, slot);
            r->desc_count++;
            q->outstanding++;
            q->finish = t;
            q->offset = len == left ? 0 : off + len;
            q->wqe_seq += len == left;
            m++;
        } else {
            if (storing && rnic_ftime_before(starts[p], r->A_mono))
                r->stats.desc_full++; /* urgent, but the buffer is full */
            storing = false;
            r->stats.packets_dropped++; /* fetch-and-drop: cut again next round */
        }
        p++;
        off += len;
        if (off == r->fetched[wi].len) {
            wi++;
            off = 0;
        }
    }
    /* data beyond the stored packets: a cut packet not stored, uncut bytes of fetched WQEs,
     * or a full fetch (the source may hold more) */
    more = m < p || wi < valid || (valid == w && w == n);
    if (!more) {
        if (q->outstanding)
            q->state = RL__DRAINING;
        else
            rl__deactivate(r, q);
        return;
    }
    /* reschedule = max(start_i, A_mono), i = min(m + 1, p); p >= 1 here */
    res = starts[(m + 1u < p ? m + 1u : p) - 1u];
    if (rnic_ftime_before(res, r->A_mono))
        res = r->A_mono;
    q->resched = rnic_ftime_ceil(res);
    q->state = RL__DORMANT;
    rnic_ring_push(&r->insert_requests, &qpi); /* at most once per QP: cannot be full */
}

/* ---- timeline: a radix heap on (key, insertion order) ----
 * tl_base is the last key dequeued from the buckets; bucket b holds keys whose highest bit
 * differing from tl_base is b - 1 (bucket 0: key == tl_base). Lists append, so each stays in
 * insertion order, and a dequeue that finds bucket 0 empty moves the lowest bucket into the
 * empty lower ones in list order: ties leave first-in first-out, as from the P-heap.
 * A key below tl_base (its enqueue was computed before a larger key, already due, left) is
 * due as well: it waits in a short sorted "late" list that is served first. tl_min caches
 * the smallest bucketed entry so that peeking costs nothing. */

static uint32_t rl__msb64(uint64_t x) /* x != 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && UINTPTR_MAX > 0xffffffffu && !defined(RNIC_PORTABLE_ARITH)
    return 63u - (uint32_t)__builtin_clzll(x);
#else
    uint32_t b = 0;
    if (x >> 32) { x >>= 32; b += 32; }
    if (x >> 16) { x >>= 16; b += 16; }
    if (x >> 8) { x >>= 8; b += 8; }
    if (x >> 4) { x >>= 4; b += 4; }
    if (x >> 2) { x >>= 2; b += 2; }
    return b + (uint32_t)(x >> 1);
#endif
}

static void rl__tl_append(rl *r, uint32_t b, uint32_t qp)
{
    r->tl_next[qp] = RNIC_NONE;
    if (r->tl_head[b] == RNIC_NONE)
        r->tl_head[b] = qp;
    else
        r->tl_next[r->tl_tail[b]] = qp;
    r->tl_tail[b] = qp;
    if (b)
        r->tl_nonempty |= (uint64_t)1 << (b - 1u);
}

static uint32_t rl__tl_bucket(const rl *r, uint64_t key)
{
    return key == r->tl_base ? 0u : rl__msb64(key ^ r->tl_base) + 1u;
}

/* tl_min from scratch: bucket 0's head, else the first smallest key of the lowest bucket. */
static void rl__tl_find_min(rl *r)
{
    uint32_t qp, best = RNIC_NONE;
    if (r->tl_head[0] != RNIC_NONE) {
        r->tl_min = r->tl_head[0];
        return;
    }
    if (r->tl_nonempty) {
        for (qp = r->tl_head[rnic_ctz64(r->tl_nonempty) + 1u]; qp != RNIC_NONE; qp = r->tl_next[qp])
            if (best == RNIC_NONE || r->qps[qp].resched < r->qps[best].resched)
                best = qp;
    }
    r->tl_min = best;
}

static void rl__tl_insert(rl *r, uint32_t qp)
{
    uint64_t key = r->qps[qp].resched;
    r->heap_count++;
    if (key < r->tl_base) { /* late: sorted insert after equal keys, searched from the tail
                             * (late keys arrive almost in order: a short walk) */
        uint32_t at = r->tl_late_tail;
        while (at != RNIC_NONE && r->qps[at].resched > key)
            at = r->tl_prev[at];
        r->tl_prev[qp] = at;
        r->tl_next[qp] = at == RNIC_NONE ? r->tl_late_head : r->tl_next[at];
        if (at == RNIC_NONE)
            r->tl_late_head = qp;
        else
            r->tl_next[at] = qp;
        if (r->tl_next[qp] == RNIC_NONE)
            r->tl_late_tail = qp;
        else
            r->tl_prev[r->tl_next[qp]] = qp;
        return;
    }
    rl__tl_append(r, rl__tl_bucket(r, key), qp);
    if (r->tl_min == RNIC_NONE || key < r->qps[r->tl_min].resched)
        r->tl_min = qp;
}

/* The smallest settled entry (RNIC_NONE when none). */
static uint32_t rl__tl_peek(const rl *r)
{
    return r->tl_late_head != RNIC_NONE ? r->tl_late_head : r->tl_min;
}

static uint32_t rl__tl_pop(rl *r)
{
    uint32_t qp, b, next;
    r->heap_count--;
    if ((qp = r->tl_late_head) != RNIC_NONE) {
        r->tl_late_head = r->tl_next[qp];
        if (r->tl_late_head == RNIC_NONE)
            r->tl_late_tail = RNIC_NONE;
        else
            r->tl_prev[r->tl_late_head] = RNIC_NONE;
        return qp;
    }
    if (r->tl_head[0] == RNIC_NONE) { /* move the lowest bucket down, from its smallest key */
        b = rnic_ctz64(r->tl_nonempty) + 1u;
        r->tl_base = r->qps[r->tl_min].resched;
        qp = r->tl_head[b];
        r->tl_head[b] = r->tl_tail[b] = RNIC_NONE;
        r->tl_nonempty &= ~((uint64_t)1 << (b - 1u));
        for (; qp != RNIC_NONE; qp = next) {
            next = r->tl_next[qp];
            rl__tl_append(r, rl__tl_bucket(r, r->qps[qp].resched), qp);
        }
    }
    qp = r->tl_head[0];
    r->tl_head[0] = r->tl_next[qp];
    if (r->tl_head[0] == RNIC_NONE)
        r->tl_tail[0] = RNIC_NONE;
    rl__tl_find_min(r);
    return qp;
}

/* A timeline key (a whole virtual cycle) is due when it lies before A_mono. */
static bool rl__key_due(const rl *r, uint64_t key)
{
    return rnic_ftime_before(rnic_ftime_at(key), r->A_mono);
}

/* Steps 3 and 4. */
static void rl__timeline(rl *r)
{
    const rl_heap_insert *pending;
    const rl_timed_qp *arriving;
    rl_heap_insert hi;
    rl_timed_qp tq;
    bool due, request;
    while ((pending = (const rl_heap_insert *)rnic_ring_peek(&r->inserts_in_flight)) && pending->settle <= r->now) {
        rl__tl_insert(r, pending->qp);
        rnic_ring_pop(&r->inserts_in_flight, NULL);
    }
    if (r->now >= r->heap_next_op) {
        due = r->heap_count && rl__key_due(r, r->qps[rl__tl_peek(r)].resched);
        request = !rnic_ring_empty(&r->insert_requests);
        if (due || request) {
            r->heap_next_op = r->now + 2u;
            r->stats.heap_ops++;
            if (due) {
                tq.qp = rl__tl_pop(r);
                tq.cycle = r->now + r->heap_height;
                rnic_ring_push(&r->deliveries, &tq);
            }
            if (request) {
                rnic_ring_pop(&r->insert_requests, &hi.qp);
                hi.key = r->qps[hi.qp].resched;
                hi.ins = r->heap_inserts++;
                hi.settle = r->now + r->heap_height;
                rnic_ring_push(&r->inserts_in_flight, &hi);
            }
        }
    }
    while ((arriving = (const rl_timed_qp *)rnic_ring_peek(&r->deliveries)) && arriving->cycle <= r->now) {
        rl__enqueue_schedule(r, arriving->qp);
        rnic_ring_pop(&r->deliveries, NULL);
    }
}

/* Step 5: waiting descriptors whose start has come become eligible. */
static void rl__eligibility(rl *r)
{
    while (r->n_waiting && !rnic_ftime_before(r->T, r->desc[r->desc_waiting[0]].start))
        rl__dheap_push(r, r->desc_ready, &r->n_ready, true, rl__dheap_pop(r, r->desc_waiting, &r->n_waiting, false));
}

/* Step 6. */
static void rl__transmit(rl *r)
{
    uint32_t i;
    rl_desc *d;
    rl_tx out;
    rl_qp *q;
    rnic_ftime now_t;
    if (r->now < r->link_free || r->n_ready == 0)
        return;
    if (rnic_ring_full(&r->tx)) {
        r->stats.tx_stalls++;
        return;
    }
    i = rl__dheap_pop(r, r->desc_ready, &r->n_ready, true);
    d = &r->desc[i];
    out.cycle = r->now;
    out.qp = d->qp;
    out.wqe_id = d->wqe_id;
    out.offset = d->offset;
    out.len = d->len;
    out.last = d->last;
    rnic_ring_push(&r->tx, &out);
    now_t = rnic_ftime_at(r->now);
    if (rnic_ftime_before(r->link_t, now_t))
        r->link_t = now_t;
    rnic_ftime_add_bytes(&r->link_t, d->len, r->link_cpb);
    r->link_free = r->link_t.cycle; /* idle from the cycle in which this packet ends: the next
                                     * one continues on the wire at link_t, back to back */
    rnic_bitmap_clear(r->desc_used, i);
    r->desc_count--;
    r->stats.packets++;
    r->stats.bytes += d->len;
    r->qp_stats[d->qp].packets++;
    r->qp_stats[d->qp].bytes += d->len;
    q = &r->qps[d->qp];
    q->outstanding--;
    if (q->outstanding == 0 && q->state == RL__DRAINING) {
        if (q->doorbell_pending) {
            q->doorbell_pending = 0;
            rl__enqueue_schedule(r, d->qp);
        } else {
            rl__deactivate(r, q);
        }
    }
}

/* Step 7. */
static void rl__issue_fetch(rl *r)
{
    uint32_t qp;
    rl_timed_qp f;
    /* a fetch is issued only when the buffer will have a slot for it: one free slot reserved
     * per fetch in flight (without the gate, rounds that find the buffer full refetch in a
     * loop: ~40 PCIe reads per packet sent when over k QPs have urgent packets) */
    if (r->desc_count + rnic_ring_count(&r->fetches) >= r->cfg.desc_capacity) {
        if (!rnic_ring_empty(&r->schedule))
            r->stats.fetch_gated++;
        return;
    }
    if (rnic_ring_pop(&r->schedule, &qp) != RNIC_OK)
        return;
    if (!r->qps[qp].credit) {
        r->qps[qp].state = RL__WAIT_CREDIT;
        return;
    }
    r->qps[qp].state = RL__FETCHING;
    f.qp = qp;
    f.cycle = r->now + r->cfg.pcie_latency;
    rnic_ring_push(&r->fetches, &f); /* at most L + 1 in flight: cannot be full */
}

RL_API void rl_tick(rl *r)
{
    const rl_timed_qp *f;
    rl__emux(r);                                                             /* 1 */
    if ((f = (const rl_timed_qp *)rnic_ring_peek(&r->fetches)) && f->cycle <= r->now) { /* 2 */
        uint32_t qp = f->qp;
        rnic_ring_pop(&r->fetches, NULL);
        rl__round(r, qp);
    }
    rl__timeline(r);   /* 3, 4 */
    rl__eligibility(r); /* 5 */
    rl__transmit(r);    /* 6 */
    rl__issue_fetch(r); /* 7 */
    rnic_ftime_add_q32(&r->T, r->inc); /* 8 */
    rl__update_activation(r);
    r->now++;
    r->stats.cycles++;
}

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
    dh = th - xh - (tl < xl);
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

RL_API uint64_t rl_next_event(const rl *r)
{
    uint64_t ne = RL_NEVER, c;
    const rl_timed_qp *tq;
    const rl_heap_insert *hi;
    if (!rnic_ring_empty(&r->events) ||
        (!rnic_ring_empty(&r->schedule) && r->desc_count + rnic_ring_count(&r->fetches) < r->cfg.desc_capacity))
        return r->now;
#define RL__MIN(x)         \
    do {                   \
        uint64_t v_ = (x); \
        if (v_ < ne)       \
            ne = v_;       \
    } while (0)
    if ((tq = (const rl_timed_qp *)rnic_ring_peek(&r->fetches)))
        RL__MIN(tq->cycle);
    if ((tq = (const rl_timed_qp *)rnic_ring_peek(&r->deliveries)))
        RL__MIN(tq->cycle);
    if ((hi = (const rl_heap_insert *)rnic_ring_peek(&r->inserts_in_flight)))
        RL__MIN(hi->settle);
    if (!rnic_ring_empty(&r->insert_requests))
        RL__MIN(r->heap_next_op > r->now ? r->heap_next_op : r->now);
    if (r->heap_count) { /* when the earliest settled key falls due: A + j*inc > key */
        rnic_ftime a = rl__activation(r);
        uint64_t key = r->qps[rl__tl_peek(r)].resched;
        uint64_t j = rl__key_due(r, key) ? 0 : rl__cycles_until(r, a, rnic_ftime_at(key), true);
        if (j != UINT64_MAX) {
            c = r->now + j;
            RL__MIN(c > r->heap_next_op ? c : r->heap_next_op);
        }
    }
    if (r->n_waiting) { /* when T reaches the earliest waiting packet's start */
        c = rl__cycles_until(r, r->T, r->desc[r->desc_waiting[0]].start, false);
        if (c != UINT64_MAX)
            RL__MIN(r->now + c);
    }
    if (r->n_ready && !rnic_ring_full(&r->tx))
        RL__MIN(r->link_free > r->now ? r->link_free : r->now);
#undef RL__MIN
    return ne;
}

RL_API void rl_advance(rl *r, uint64_t cycles)
{
    uint64_t target = cycles > RL_NEVER - r->now ? RL_NEVER : r->now + cycles; /* saturate */
    while (r->now < target) {
        uint64_t ne = rl_next_event(r);
        if (ne > r->now) {
            uint64_t skip = (ne < target ? ne : target) - r->now;
            if (r->n_ready && rnic_ring_full(&r->tx)) { /* a ready packet waits for TX room */
                uint64_t from = r->link_free > r->now ? r->link_free : r->now;
                if (from < r->now + skip)
                    r->stats.tx_stalls += r->now + skip - from;
            }
            if (!rnic_ring_empty(&r->schedule)) /* queued QPs wait at the fetch gate meanwhile */
                r->stats.fetch_gated += skip;
            rnic_ftime_add_bytes(&r->T, skip, r->inc);
            rl__update_activation(r);
            r->now += skip;
            r->stats.cycles += skip;
            if (r->now != ne || ne >= target)
                continue;
            /* the skip ended at the event: tick it without asking rl_next_event again */
        }
        rl_tick(r);
    }
}

RL_API rnic_err rl_pop_tx(rl *r, rl_tx *out) { return rnic_ring_pop(&r->tx, out); }
RL_API uint64_t rl_now(const rl *r) { return r->now; }
RL_API const rl_stats *rl_get_stats(const rl *r) { return &r->stats; }
RL_API const rl_qp_stats *rl_get_qp_stats(const rl *r, uint32_t qp) { return qp < r->cfg.max_qps ? &r->qp_stats[qp] : NULL; }
RL_API uint64_t rl_phi_q32(const rl *r) { return r->phi; }
