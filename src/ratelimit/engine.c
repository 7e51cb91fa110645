/* Tassel rate limiter engine. Cycle semantics: docs/tassel_model.md (every step below is
 * numbered as there). Software representation: the timeline of dormant QPs is a binary
 * min-heap on (key, insertion number) -- exactly the P-heap's order -- whose hardware timing
 * (an operation every 2 cycles, `height` cycles each) is modelled with two small pipelines;
 * the descriptor buffer (k <= 256 urgent packets) is scanned through occupancy bitmaps. */

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
    RL__ARRAY(heap_key, uint64_t, n);
    RL__ARRAY(heap_ins, uint64_t, n);
    RL__ARRAY(heap_qp, uint32_t, n);
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
    /* everything sized by max_qps: QP state, statistics, timeline entry, two FIFO slots */
    (void)cfg;
    return sizeof(rl_qp) + sizeof(rl_qp_stats) + 2u * sizeof(uint64_t) + sizeof(uint32_t) + 2u * sizeof(uint32_t);
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

/* ---- timeline: binary min-heap on (key, insertion number) ---- */

static bool rl__heap_less(const rl *r, uint32_t a, uint32_t b)
{
    return r->heap_key[a] < r->heap_key[b] || (r->heap_key[a] == r->heap_key[b] && r->heap_ins[a] < r->heap_ins[b]);
}

static void rl__heap_swap(rl *r, uint32_t a, uint32_t b)
{
    uint64_t k = r->heap_key[a], s = r->heap_ins[a];
    uint32_t q = r->heap_qp[a];
    r->heap_key[a] = r->heap_key[b];
    r->heap_ins[a] = r->heap_ins[b];
    r->heap_qp[a] = r->heap_qp[b];
    r->heap_key[b] = k;
    r->heap_ins[b] = s;
    r->heap_qp[b] = q;
}

static void rl__heap_push(rl *r, uint64_t key, uint64_t ins, uint32_t qp)
{
    uint32_t i = r->heap_count++;
    r->heap_key[i] = key;
    r->heap_ins[i] = ins;
    r->heap_qp[i] = qp;
    while (i > 0 && rl__heap_less(r, i, (i - 1u) / 2u)) {
        rl__heap_swap(r, i, (i - 1u) / 2u);
        i = (i - 1u) / 2u;
    }
}

static uint32_t rl__heap_pop(rl *r)
{
    uint32_t qp = r->heap_qp[0], i = 0;
    r->heap_count--;
    if (r->heap_count) {
        r->heap_key[0] = r->heap_key[r->heap_count];
        r->heap_ins[0] = r->heap_ins[r->heap_count];
        r->heap_qp[0] = r->heap_qp[r->heap_count];
        for (;;) {
            uint32_t l = 2u * i + 1u, rr = l + 1u, best = i;
            if (l < r->heap_count && rl__heap_less(r, l, best))
                best = l;
            if (rr < r->heap_count && rl__heap_less(r, rr, best))
                best = rr;
            if (best == i)
                break;
            rl__heap_swap(r, i, best);
            i = best;
        }
    }
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
        rl__heap_push(r, pending->key, pending->ins, pending->qp);
        rnic_ring_pop(&r->inserts_in_flight, NULL);
    }
    if (r->now >= r->heap_next_op) {
        due = r->heap_count && rl__key_due(r, r->heap_key[0]);
        request = !rnic_ring_empty(&r->insert_requests);
        if (due || request) {
            r->heap_next_op = r->now + 2u;
            r->stats.heap_ops++;
            if (due) {
                tq.qp = rl__heap_pop(r);
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
    uint32_t wi;
    for (wi = 0; wi < RNIC_BITMAP_WORDS(r->cfg.desc_capacity); wi++) {
        uint64_t waiting = r->desc_used[wi] & ~r->desc_eligible[wi];
        while (waiting) {
            uint32_t i = wi * 64u + rnic_ctz64(waiting);
            waiting &= waiting - 1u;
            if (!rnic_ftime_before(r->T, r->desc[i].start))
                rnic_bitmap_set(r->desc_eligible, i);
        }
    }
}

/* The eligible descriptor with the smallest (finish, number); RNIC_NONE if none. */
static uint32_t rl__best_eligible(const rl *r)
{
    uint32_t wi, best = RNIC_NONE;
    for (wi = 0; wi < RNIC_BITMAP_WORDS(r->cfg.desc_capacity); wi++) {
        uint64_t e = r->desc_eligible[wi];
        while (e) {
            uint32_t i = wi * 64u + rnic_ctz64(e);
            e &= e - 1u;
            if (best == RNIC_NONE || rnic_ftime_before(r->desc[i].finish, r->desc[best].finish) ||
                (r->desc[i].finish.cycle == r->desc[best].finish.cycle && r->desc[i].finish.frac == r->desc[best].finish.frac &&
                 r->desc[i].number < r->desc[best].number))
                best = i;
        }
    }
    return best;
}

/* Step 6. */
static void rl__transmit(rl *r)
{
    uint32_t i;
    rl_desc *d;
    rl_tx out;
    rl_qp *q;
    rnic_ftime now_t;
    if (r->now < r->link_free)
        return;
    i = rl__best_eligible(r);
    if (i == RNIC_NONE)
        return;
    if (rnic_ring_full(&r->tx)) {
        r->stats.tx_stalls++;
        return;
    }
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
    rnic_bitmap_clear(r->desc_eligible, i);
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
    j = rnic_udiv128_64(dh, dl, r->inc, &rem);
    if (strict || rem)
        j++;
    return j;
}

RL_API uint64_t rl_next_event(const rl *r)
{
    uint64_t ne = RL_NEVER, c;
    const rl_timed_qp *tq;
    const rl_heap_insert *hi;
    uint32_t wi;
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
        uint64_t j = rl__key_due(r, r->heap_key[0]) ? 0 : rl__cycles_until(r, a, rnic_ftime_at(r->heap_key[0]), true);
        if (j != UINT64_MAX) {
            c = r->now + j;
            RL__MIN(c > r->heap_next_op ? c : r->heap_next_op);
        }
    }
    for (wi = 0; wi < RNIC_BITMAP_WORDS(r->cfg.desc_capacity); wi++) {
        uint64_t waiting = r->desc_used[wi] & ~r->desc_eligible[wi];
        while (waiting) { /* when T reaches a waiting packet's start */
            uint32_t i = wi * 64u + rnic_ctz64(waiting);
            uint64_t j = rl__cycles_until(r, r->T, r->desc[i].start, false);
            waiting &= waiting - 1u;
            if (j != UINT64_MAX)
                RL__MIN(r->now + j);
        }
        if (r->desc_eligible[wi] && !rnic_ring_full(&r->tx))
            RL__MIN(r->link_free > r->now ? r->link_free : r->now);
    }
#undef RL__MIN
    return ne;
}

RL_API void rl_advance(rl *r, uint64_t cycles)
{
    uint64_t target = r->now + cycles;
    while (r->now < target) {
        uint64_t ne = rl_next_event(r);
        if (ne > r->now) {
            uint64_t skip = (ne < target ? ne : target) - r->now, w;
            bool stalled = false;
            for (w = 0; w < RNIC_BITMAP_WORDS(r->cfg.desc_capacity); w++)
                stalled = stalled || r->desc_eligible[w];
            if (stalled && rnic_ring_full(&r->tx)) { /* a ready packet waits for TX room */
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
        } else {
            rl_tick(r);
        }
    }
}

RL_API rnic_err rl_pop_tx(rl *r, rl_tx *out) { return rnic_ring_pop(&r->tx, out); }
RL_API uint64_t rl_now(const rl *r) { return r->now; }
RL_API const rl_stats *rl_get_stats(const rl *r) { return &r->stats; }
RL_API const rl_qp_stats *rl_get_qp_stats(const rl *r, uint32_t qp) { return qp < r->cfg.max_qps ? &r->qp_stats[qp] : NULL; }
RL_API uint64_t rl_phi_q32(const rl *r) { return r->phi; }
