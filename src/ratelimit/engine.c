/* Tassel rate limiter engine. Cycle semantics: docs/tassel_model.md (every step below is
 * numbered as there). Software representation: the timeline of dormant flows is a radix
 * calendar on (key, insertion order) -- exactly the P-heap's order, amortised O(1) instead of the
 * O(log n) cache misses of a binary heap -- whose hardware timing (an operation every 2
 * cycles, `height` cycles each) is modelled with two small pipelines; the descriptor buffer
 * (k <= 256 urgent packets) keeps two small binary heaps of slots: waiting by start, eligible
 * by (finish, number), so no cycle scans the buffer. */

enum { RL__IDLE, RL__QUEUED, RL__PARKED, RL__FETCHING, RL__DORMANT, RL__DRAINING }; /* = RL_FLOW_* */
/* where a DORMANT flow is on the timeline path */
enum { RL__TL_NONE, RL__TL_REQUEST, RL__TL_SETTLED, RL__TL_LEAVING, RL__TL_WHEEL };
#define RL__PEND_DOORBELL 1u
#define RL__PEND_RATE 2u
#define RL__PEND_CREDIT 4u
#define RL__LATE 0xffffu /* tl_list of an entry in the late list */
#define RL__TL_DIGIT 6u   /* timeline calendar: bits per digit ... */
#define RL__TL_LEVELS 11u /* ... and levels (11 x 6 >= 64) */

#define RL__DEFAULT_CLOCK 250000000ull
#define RL__DEFAULT_LINK 100000000000ull
#define RL__MAX_LINK 800000000000ull
#define RL__MAX_WQE 0x80000000u

RL_API const char *rl_version(void);

/* The engine's pipelines (rl__timed_queue): typed, no copies through void pointers; none can
 * overflow (each is sized for the pipeline's length). The flow FIFOs (rl__flow_fifo) are linked
 * through the flows' records: a flow is in each at most once. */
#define RL__Q_AT(q, i) /* the i-th entry from the head (head, i < capacity <= 2^20 + 1: no overflow) */ \
    ((q)->slot[(q)->head + (i) >= (q)->capacity ? (q)->head + (i) - (q)->capacity : (q)->head + (i)])
#define RL__Q_PUSH(q, value)                                                         \
    do {                                                                             \
        RL__Q_AT(q, (q)->count) = (value);                                           \
        (q)->count++;                                                                \
    } while (0)
#define RL__Q_HEAD(q) ((q)->slot[(q)->head])
#define RL__Q_DROP(q)                                                                \
    do {                                                                             \
        (q)->head = (q)->head + 1u == (q)->capacity ? 0u : (q)->head + 1u;           \
        (q)->count--;                                                                \
    } while (0)

/* Packed rl__qp fields (api.h). */
#define RL__QF_CREDIT 1u       /* has credit */
#define RL__QF_DOORBELL 2u     /* a doorbell arrived while DRAINING */
#define RL__QF_PAUSED 4u       /* rate 0 applied */
#define RL__QF_PEND_CREDIT 8u  /* the credit value written, not yet applied */
#define RL__QF_LEN_HI 16u      /* bit 16 of prev_len (an MTU of 65536) */
#define RL__QF(q, bit) (((q)->flags & (bit)) != 0)
#define RL__QF_SET(q, bit, on) ((q)->flags = (uint8_t)((on) ? (q)->flags | (bit) : (q)->flags & ~(bit)))
RNIC_INLINE rnic_ftime rl__finish(const rl__qp *q)
{
    rnic_ftime t;
    t.cycle = q->finish_cycle;
    t.frac = q->finish_frac;
    return t;
}
RNIC_INLINE void rl__set_finish(rl__qp *q, rnic_ftime t)
{
    q->finish_cycle = t.cycle;
    q->finish_frac = t.frac;
}
RNIC_INLINE rnic_ftime rl__prev_start(const rl__qp *q)
{
    rnic_ftime t;
    t.cycle = q->prev_start_cycle;
    t.frac = q->prev_start_frac;
    return t;
}
RNIC_INLINE uint64_t rl__rate(const rl__qp *q) { return (uint64_t)q->rate_hi << 32 | q->rate_lo; }
RNIC_INLINE uint64_t rl__pend_rate(const rl__qp *q) { return (uint64_t)q->pend_rate_hi << 32 | q->pend_rate_lo; }
RNIC_INLINE uint32_t rl__prev_len(const rl__qp *q) { return (uint32_t)q->prev_len_lo | (RL__QF(q, RL__QF_LEN_HI) ? 0x10000u : 0u); }
/* the last packet sent: its start and length (len <= mtu <= 65536: 17 bits) */
RNIC_INLINE void rl__set_prev(rl__qp *q, rnic_ftime start, uint32_t len)
{
    q->prev_start_cycle = start.cycle;
    q->prev_start_frac = start.frac;
    q->prev_len_lo = (uint16_t)len;
    RL__QF_SET(q, RL__QF_LEN_HI, len >> 16);
}

/* Intrusive flow FIFOs: NEXT(qp) is the link that chains them (RL__TL_NEXT, RL__REG_NEXT). */
#define RL__TL_NEXT(qp) r->tl_next[qp]
#define RL__REG_NEXT(qp) r->qps[qp].reg_next
#define RL__FIFO_PUSH(fifo, NEXT, qp)                                                \
    do {                                                                             \
        uint32_t qp_ = (qp);                                                         \
        NEXT(qp_) = RNIC_NONE;                                                       \
        if ((fifo)->count++)                                                         \
            NEXT((fifo)->tail) = qp_;                                                \
        else                                                                         \
            (fifo)->head = qp_;                                                      \
        (fifo)->tail = qp_;                                                          \
    } while (0)
#define RL__FIFO_DROP(fifo, NEXT) /* the head leaves (count > 0) */                  \
    do {                                                                             \
        (fifo)->head = NEXT((fifo)->head);                                           \
        (fifo)->count--;                                                             \
    } while (0)

/* Wrap-safe: cycle `t` has come (t <= now modulo 2^64, within 2^63). */
static bool rl__reached(uint64_t now, uint64_t t) { return now - t < ((uint64_t)1 << 63); }
/* Wrap-safe: timeline key a is earlier than b (within 2^63). */
static bool rl__key_before(uint64_t a, uint64_t b) { return (a - b) >> 63 != 0; }

/* L in cycles: pcie_latency_ns at clock_hz, to the nearest cycle (half up); computed once, by
 * rl_init, so the tick path works in whole cycles (docs/engine_contract.md, "Time"). */
static uint64_t rl__pcie_cycles(const rl_config *c) { return rnic_ns_to_cycles(c->pcie_latency_ns, c->clock_hz); }

RL_API void rl_config_default(rl_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = RL__DEFAULT_CLOCK;
    cfg->link_bps = RL__DEFAULT_LINK;
    cfg->min_rate_bps = RNIC_RATE_MIN_BPS;
    cfg->max_flows = 1024;
    cfg->mtu = 4096;
    cfg->pcie_latency_ns = 1000; /* 1 us: 250 cycles at 250 MHz */
    cfg->fetch_wqes = 8;
    cfg->desc_depth = 60;
    cfg->tx_depth = 64;
    cfg->wqe_bytes = 64;
    cfg->flow_stats = 1;
    cfg->trace_id = RNIC_ENGINE_TASSEL;
}

RL_API rnic_err rl_config_check(const rl_config *c, const char **field)
{
    rnic_q32 q;
    if (field)
        *field = NULL;
    if (!c)
        return rnic_config_bad(field, "cfg", RNIC_EINVAL);
    if (c->clock_hz < 1000000u || c->clock_hz > 10000000000ull)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (c->link_bps == 0 || c->link_bps > RL__MAX_LINK || rnic_rate_to_cpb(c->link_bps, c->clock_hz, &q) != RNIC_OK)
        return rnic_config_bad(field, "link_bps", RNIC_EINVAL);
    /* both ends of the rate range must be representable at this clock */
    if (c->min_rate_bps == 0 || c->min_rate_bps > c->link_bps ||
        rnic_rate_to_cpb(c->min_rate_bps, c->clock_hz, &q) != RNIC_OK)
        return rnic_config_bad(field, "min_rate_bps", RNIC_EINVAL);
    if (c->max_flows == 0 || c->max_flows > RL_MAX_FLOWS)
        return rnic_config_bad(field, "max_flows", RNIC_EINVAL);
    if (c->mtu < 64 || c->mtu > 65536u)
        return rnic_config_bad(field, "mtu", RNIC_EINVAL);
    /* at least one cycle (a latency that rounds to 0 is refused, not silently made 1) */
    if (rl__pcie_cycles(c) == 0 || rl__pcie_cycles(c) > (1u << 20))
        return rnic_config_bad(field, "pcie_latency_ns", RNIC_EINVAL);
    if (c->fetch_wqes == 0 || c->fetch_wqes > RL_MAX_FETCH)
        return rnic_config_bad(field, "fetch_wqes", RNIC_EINVAL);
    if (c->desc_depth == 0 || c->desc_depth > RL_MAX_DESC)
        return rnic_config_bad(field, "desc_depth", RNIC_EINVAL);
    if (c->tx_depth == 0)
        return rnic_config_bad(field, "tx_depth", RNIC_EINVAL);
    if (c->schedule_queue > RL_SCHEDULE_RANKED)
        return rnic_config_bad(field, "schedule_queue", RNIC_EINVAL);
    if (c->fetch_bps && (c->fetch_bps < 1000000u || c->fetch_bps > 10000000000000ull ||
                         rnic_rate_to_cpb(c->fetch_bps, c->clock_hz, &q) != RNIC_OK))
        return rnic_config_bad(field, "fetch_bps", RNIC_EINVAL);
    if (c->wqe_bytes == 0 || c->wqe_bytes > 4096u)
        return rnic_config_bad(field, "wqe_bytes", RNIC_EINVAL);
    if (c->flow_stats > 1u)
        return rnic_config_bad(field, "flow_stats", RNIC_EINVAL);
    return RNIC_OK;
}

/* P-heap height: levels of a complete binary tree holding max_flows entries. */
static uint32_t rl__height(uint32_t n)
{
    uint32_t h = 0;
    while (h < 32 && ((uint64_t)1 << h) - 1u < n)
        h++;
    return h;
}

/* The eligible packets' ring: the power of two >= k (k <= 256). */
static size_t rl__ready_ring(size_t k)
{
    size_t n = 1;
    while (n < k)
        n <<= 1;
    return n;
}

/* One layout for rl_mem_size and rl_init. Returns bytes, 0 if the layout overflows. */
static size_t rl__layout(const rl_config *c, rl *r, unsigned char *mem)
{
    size_t off = 0, at, n = c->max_flows, h = rl__height(c->max_flows) + 2u, k = c->desc_depth;
    bool ranked = c->schedule_queue == RL_SCHEDULE_RANKED;
    size_t wheel = ranked ? (size_t)rl__pcie_cycles(c) : 0u;
#define RL__ARRAY(field, type, count)                                 \
    do {                                                              \
        if (!rnic__mem_reserve(&off, (count), sizeof(type), &at))     \
            return 0;                                                 \
        if (r)                                                        \
            r->field = (type *)(void *)(mem + at);                    \
    } while (0)
#define RL__QUEUE(queue, type, count)                                  \
    do {                                                              \
        RL__ARRAY(queue.slot, type, count);                           \
        if (r)                                                        \
            r->queue.capacity = (uint32_t)(count);                    \
    } while (0)
#define RL__RING(ring, type, count)                                                   \
    do {                                                                              \
        if (!rnic__mem_reserve(&off, (count), sizeof(type), &at))                     \
            return 0;                                                                 \
        if (r)                                                                        \
            rnic_ring_init(&r->ring, sizeof(type), (uint32_t)(count), mem + at,       \
                           rnic_align_up((size_t)(count) * sizeof(type)));            \
    } while (0)
    RL__ARRAY(qps, rl__qp, n);
    RL__ARRAY(flow_stats, rl_flow_stats, c->flow_stats ? n : 0u);
    RL__ARRAY(tl_next, uint32_t, n);
    RL__ARRAY(tl_prev, uint32_t, n);
    RL__ARRAY(tl_head, uint32_t, RL__TL_LEVELS * 64u);
    RL__ARRAY(tl_tail, uint32_t, RL__TL_LEVELS * 64u);
    RL__QUEUE(inserts_in_flight, rl__timed_qp, h);
    RL__QUEUE(deliveries, rl__timed_qp, h);
    RL__ARRAY(ranked, rl__ranked, ranked ? n : 0u);
    RL__ARRAY(wheel_qp, uint32_t, wheel);
    RL__ARRAY(wheel_used, uint64_t, (wheel + 63u) / 64u);
    RL__QUEUE(fetches, rl__timed_qp, (size_t)rl__pcie_cycles(c) + 1u);
    RL__RING(tx, rnic_work, c->tx_depth);
    RL__ARRAY(desc, rl__desc, k);
    RL__ARRAY(desc_used, uint64_t, (k + 63u) / 64u);
    RL__ARRAY(desc_waiting, rl__dkey, k);
    RL__ARRAY(desc_ready, rl__dkey, rl__ready_ring(k));
    RL__ARRAY(desc_scratch, uint16_t, k);
    RL__ARRAY(fetched, rnic_work, c->fetch_wqes);
#undef RL__ARRAY
#undef RL__QUEUE
#undef RL__RING
    return off;
}

RL_API size_t rl_mem_size(const rl_config *cfg)
{
    return rl_config_check(cfg, NULL) == RNIC_OK ? rl__layout(cfg, NULL, NULL) : 0;
}

RL_API size_t rl_mem_per_flow(const rl_config *cfg)
{
    /* everything sized by max_flows: the flow's record, its two timeline / FIFO links, its
     * statistics when kept, its ranked-queue entry in the ranked option */
    if (rl_config_check(cfg, NULL) != RNIC_OK)
        return 0;
    return sizeof(rl__qp) + 2u * sizeof(uint32_t) + (cfg->flow_stats ? sizeof(rl_flow_stats) : 0u) +
           (cfg->schedule_queue == RL_SCHEDULE_RANKED ? sizeof(rl__ranked) : 0u);
}

/* Phi, inc = 1 / max(1, Phi) and Lambda = (L + height + 1) / max(1, Phi) after the active rate
 * sum changed. Under oversubscription the system time slows down by Phi, so every flow becomes
 * eligible at rate / Phi and the link is shared in proportion to the rates (Fig. 8b);
 * the lookahead covers the whole reactivation path (P-heap dequeue, FIFO -> fetch issue, the
 * PCIe read), so a rescheduled flow's WQEs are back by its next packet's start. */
static void rl__update_phi(rl *r)
{
    rnic_q32 phi = 0, over;
    if (r->sum_active_bps && rnic_q32_ratio(r->sum_active_bps, r->cfg.link_bps, &phi) != RNIC_OK)
        phi = 0; /* a sum too small to represent is Phi = 0 (inc = 1 anyway) */
    r->phi = phi;
    over = phi > RNIC_Q32_ONE ? phi : RNIC_Q32_ONE; /* max(1, Phi) */
    r->inc = rnic_udiv128_64(1, 0, over, NULL);      /* 1 / max(1, Phi): the clock slows down */
    r->lookahead = rnic_udiv128_64(r->lookahead_cycles, 0, over, NULL);
    r->phi_epoch++; /* the fast-forward caches' due cycles assumed the old inc */
    r->a_tracks = 0; /* the lookahead changed: A_mono is max(A_mono, A) again */
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
    /* while A_mono is A itself it moves with T: the tick adds inc to both (exact, modulo 2^96) */
    r->a_tracks = r->A_mono.cycle == a.cycle && r->A_mono.frac == a.frac;
}

RL_API rnic_err rl_init(rl *r, const rl_config *cfg, void *mem, size_t size)
{
    size_t need;
    uint32_t i;
    rnic_q32 link_cpb = 0; /* set below: a valid config has a representable link rate */
    if (!r || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || rl_config_check(cfg, NULL) != RNIC_OK ||
        !cfg->source)
        return RNIC_EINVAL;
    need = rl__layout(cfg, NULL, NULL);
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(r, 0, sizeof *r);
    r->cfg = *cfg;
    rl__layout(cfg, r, (unsigned char *)mem);
    if (!cfg->flow_stats)
        r->flow_stats = NULL; /* the layout points the 0-entry array at the next one */
    r->heap_height = rl__height(cfg->max_flows);
    r->pcie_latency = (uint32_t)rl__pcie_cycles(cfg); /* 1 .. 2^20: checked above */
    rnic_rate_to_cpb(cfg->link_bps, cfg->clock_hz, &link_cpb);
    r->link_cpb = link_cpb;
    if (cfg->fetch_bps)
        rnic_rate_to_cpb(cfg->fetch_bps, cfg->clock_hz, &r->fetch_cpb); /* checked: representable */
    r->fetch_req_bytes = cfg->fetch_wqes * cfg->wqe_bytes;
    r->lookahead_cycles = r->pcie_latency + r->heap_height + 1u;
    if (cfg->schedule_queue == RL_SCHEDULE_RANKED) {
        /* one MTU on the link: the longest a due QP waits for a descriptor slot */
        uint64_t hi, lo, p;
        rnic_mul64x64(cfg->mtu, link_cpb, &hi, &lo);
        p = (hi << 32) | (lo >> 32);
        p += (lo & 0xffffffffu) != 0;
        if (hi >> 20 || p > (1u << 30)) /* the window stays below 2^31 cycles (a very slow link) */
            p = 1u << 30;
        r->lookahead_cycles += (uint32_t)p;
        r->wheel_size = r->pcie_latency;
        rnic_bitmap_zero(r->wheel_used, r->wheel_size);
    }
    r->now = r->heap_next_op = r->link_free = r->fetch_free = cfg->start_cycle;
    r->link_t = r->fetch_t = rnic_ftime_at(cfg->start_cycle);
    rnic_trace_set(&r->trace, cfg->trace, cfg->trace_user);
    r->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_TASSEL;
    for (i = 0; i < RL__TL_LEVELS * 64u; i++)
        r->tl_head[i] = r->tl_tail[i] = RNIC_NONE;
    r->tl_late_head = r->tl_late_tail = r->tl_min = RNIC_NONE;
    r->tl_base = cfg->start_cycle; /* keys are >= ceil(A_mono) >= the start */
    r->desc_latest = RNIC_NONE;
    r->ready_mask = (uint32_t)rl__ready_ring(cfg->desc_depth) - 1u;
    for (i = 0; i < cfg->max_flows; i++) {
        rl__qp *q = &r->qps[i];
        RNIC_MEMSET(q, 0, sizeof *q);
        q->rate_lo = (uint32_t)cfg->link_bps;
        q->rate_hi = (uint8_t)(cfg->link_bps >> 32); /* <= 800 Gb/s < 2^40 */
        q->cpb = link_cpb;
        q->flags = RL__QF_CREDIT;
        q->reg_next = RNIC_NONE;
        r->tl_next[i] = r->tl_prev[i] = RNIC_NONE;
        if (cfg->flow_stats)
            r->flow_stats[i].packets = r->flow_stats[i].bytes = 0;
    }
    rnic_bitmap_zero(r->desc_used, cfg->desc_depth);
    rl__update_phi(r);
    r->A_mono = rl__activation(r);
    return RNIC_OK;
}

/* ---- inputs: per-flow registers ---- */

static rnic_err rl__refuse(rl *r, uint32_t flow, rnic_err e, uint64_t value)
{
    rnic_err_note(&r->stats.errors, e);
    RNIC__TRACE(r, RNIC_TRACE_REFUSE, flow, value, e);
    return e;
}

static void rl__write(rl *r, uint32_t flow, uint8_t reg, uint64_t value)
{
    rl__qp *q = &r->qps[flow];
    if (q->pend & reg)
        r->stats.coalesced++;
    if (!q->pend)
        RL__FIFO_PUSH(&r->registers, RL__REG_NEXT, flow); /* each flow at most once */
    q->pend |= reg;
    RNIC__TRACE(r, RNIC_TRACE_PUSH, flow, value, reg);
}

RL_API rnic_err rl_doorbell(rl *r, uint32_t flow)
{
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows)
        return rl__refuse(r, flow, RNIC_ENOENT, 0);
    rl__write(r, flow, RL__PEND_DOORBELL, 0);
    return RNIC_OK;
}

RL_API rnic_err rl_set_rate(rl *r, uint32_t flow, uint64_t bps)
{
    uint64_t asked = bps;
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows)
        return rl__refuse(r, flow, RNIC_ENOENT, bps);
    if (bps && (bps < r->cfg.min_rate_bps || bps > r->cfg.link_bps)) {
        bps = bps < r->cfg.min_rate_bps ? r->cfg.min_rate_bps : r->cfg.link_bps;
        r->stats.rate_clamped++;
    }
    r->qps[flow].pend_rate_lo = (uint32_t)bps;
    r->qps[flow].pend_rate_hi = (uint8_t)(bps >> 32); /* <= link_bps <= 800 Gb/s < 2^40 */
    RNIC__TRACE(r, RNIC_TRACE_RATE, flow, bps, asked);
    rl__write(r, flow, RL__PEND_RATE, bps);
    return RNIC_OK;
}

RL_API rnic_err rl_set_credit(rl *r, uint32_t flow, bool has_credit)
{
    if (!r)
        return RNIC_EINVAL;
    if (flow >= r->cfg.max_flows)
        return rl__refuse(r, flow, RNIC_ENOENT, has_credit);
    RL__QF_SET(&r->qps[flow], RL__QF_PEND_CREDIT, has_credit);
    rl__write(r, flow, RL__PEND_CREDIT, has_credit);
    return RNIC_OK;
}

/* ---- flow activity ---- */

static void rl__activate(rl *r, rl__qp *q)
{
    if (RL__QF(q, RL__QF_PAUSED))
        return;
    r->sum_active_bps += rl__rate(q);
    rl__update_phi(r);
}

static void rl__deactivate(rl *r, rl__qp *q)
{
    q->state = RL__IDLE;
    if (RL__QF(q, RL__QF_PAUSED))
        return;
    r->sum_active_bps -= rl__rate(q);
    rl__update_phi(r);
}

/* ---- the schedule queue: the paper's FIFO, or ranked (smallest virtual finish first) ---- */

static bool rl__ranked_mode(const rl *r) { return r->cfg.schedule_queue == RL_SCHEDULE_RANKED; }

/* A virtual time as a rank: 2^-16-cycle units in 64 bits, compared wrap-safe. */
static uint64_t rl__rank_of(rnic_ftime t) { return (t.cycle << 16) | (t.frac >> 16); }

static uint32_t rl__sched_count(const rl *r)
{
    return rl__ranked_mode(r) ? r->ranked_count : r->schedule.count;
}

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

/* ---- descriptor buffer ---- */

static uint32_t rl__desc_free_slot(const rl *r)
{
    return rnic_bitmap_ffz_from(r->desc_used, r->cfg.desc_depth, 0);
}

/* The descriptor heaps' orders: waiting by start (any order among equal starts: they become
 * eligible together); eligible by (finish, descriptor number), the transmit order. */
static bool rl__desc_less(const rl *r, bool by_finish, uint32_t a, uint32_t b)
{
    const rl__desc *x = &r->desc[a], *y = &r->desc[b];
    if (!by_finish)
        return rnic_ftime_before(x->start, y->start);
    if (x->finish.cycle != y->finish.cycle || x->finish.frac != y->finish.frac)
        return rnic_ftime_before(x->finish, y->finish);
    return x->number < y->number;
}

/* The same orders on heap entries that carry their key inline (no trip to the slot, except
 * for a tie on finish): rnic_ftime_before on (cycle, frac), then the descriptor number. */
static bool rl__dkey_less(const rl *r, bool by_finish, const rl__dkey *a, const rl__dkey *b)
{
    /* rnic_ftime_before's 96-bit difference, on the inline fields (through rnic_ftime
     * copies it costs ~50 more instructions per decision, measured) */
    uint64_t hi = b->cycle - a->cycle - (uint64_t)(b->frac < a->frac);
    if ((hi | (uint64_t)(b->frac ^ a->frac)) == 0) /* equal times */
        return by_finish && r->desc[a->slot].number < r->desc[b->slot].number;
    return (hi >> 63) == 0;
}

static void rl__dheap_push(rl *r, rl__dkey *h, uint32_t *count, bool by_finish, uint32_t slot)
{
    uint32_t i = (*count)++;
    rl__dkey e;
    const rnic_ftime *t = by_finish ? &r->desc[slot].finish : &r->desc[slot].start;
    e.cycle = t->cycle;
    e.frac = t->frac;
    e.slot = (uint16_t)slot;
    e.pad_ = 0;
    while (i > 0 && rl__dkey_less(r, by_finish, &e, &h[(i - 1u) / 2u])) {
        h[i] = h[(i - 1u) / 2u];
        i = (i - 1u) / 2u;
    }
    h[i] = e;
}

/* Pop the top: the hole goes down to a leaf along the smaller children (one comparison per
 * level), then the last entry rises from there (it came from the bottom: rarely far). */
static uint32_t rl__dheap_pop(rl *r, rl__dkey *h, uint32_t *count, bool by_finish)
{
    uint32_t top = h[0].slot, n, i = 0;
    rl__dkey last;
    n = --(*count);
    if (n == 0)
        return top;
    last = h[n];
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && rl__dkey_less(r, by_finish, &h[c + 1u], &h[c]))
            c++;
        h[i] = h[c];
        i = c;
    }
    while (i > 0 && rl__dkey_less(r, by_finish, &last, &h[(i - 1u) / 2u])) {
        h[i] = h[(i - 1u) / 2u];
        i = (i - 1u) / 2u;
    }
    h[i] = last;
    return top;
}

/* Rebuild a heap without slot `slot` and without flow qi's slots (RNIC_NONE: none of that
 * kind), pushing in place: writes stay at or below the element being read. */
static void rl__dheap_remove(rl *r, rl__dkey *h, uint32_t *count, bool by_finish, uint32_t slot, uint32_t qi)
{
    uint32_t i, n = *count;
    *count = 0;
    for (i = 0; i < n; i++) {
        uint32_t x = h[i].slot;
        if (x != slot && r->desc[x].flow != qi)
            rl__dheap_push(r, h, count, by_finish, x);
    }
}

/* The eligible packets in transmit order, (finish, number), in a sorted ring: a packet joins
 * where its order puts it -- after a binary search, moving the shorter side by one (usually
 * at the tail: at equal rates packets become eligible in finish order) -- and the first
 * leaves from the head. The same order as a heap on the same total order, in O(1) for the
 * common case instead of a sift over log2(k) levels per pop. */
static void rl__ready_push(rl *r, uint32_t slot)
{
    rl__dkey *a = r->desc_ready, e;
    uint32_t n = r->n_ready, m = r->ready_mask, h = r->ready_head, lo = 0, hi, i;
    const rnic_ftime *f = &r->desc[slot].finish;
    e.cycle = f->cycle;
    e.frac = f->frac;
    e.slot = (uint16_t)slot;
    e.pad_ = 0;
    r->n_ready = n + 1u;
    if (n == 0 || !rl__dkey_less(r, true, &e, &a[(h + n - 1u) & m])) {
        a[(h + n) & m] = e;
        return;
    }
    hi = n - 1u; /* the first entry after e lies in [lo, hi] */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        if (rl__dkey_less(r, true, &e, &a[(h + mid) & m]))
            hi = mid;
        else
            lo = mid + 1u;
    }
    if (lo < n - lo) { /* the entries before it move one toward the head */
        h = (h - 1u) & m;
        r->ready_head = h;
        for (i = 0; i < lo; i++)
            a[(h + i) & m] = a[(h + i + 1u) & m];
    } else { /* the entries from it move one toward the tail */
        for (i = n; i > lo; i--)
            a[(h + i) & m] = a[(h + i - 1u) & m];
    }
    a[(h + lo) & m] = e;
}

static uint32_t rl__ready_pop(rl *r)
{
    uint32_t slot = r->desc_ready[r->ready_head].slot;
    r->ready_head = (r->ready_head + 1u) & r->ready_mask;
    r->n_ready--;
    return slot;
}

/* Drop slot `slot` and flow qi's slots (RNIC_NONE: none of that kind), keeping the order. */
static void rl__ready_remove(rl *r, uint32_t slot, uint32_t qi)
{
    rl__dkey *a = r->desc_ready;
    uint32_t i, kept = 0, m = r->ready_mask, h = r->ready_head;
    for (i = 0; i < r->n_ready; i++) {
        uint32_t x = a[(h + i) & m].slot;
        if (x != slot && r->desc[x].flow != qi)
            a[(h + kept++) & m] = a[(h + i) & m];
    }
    r->n_ready = kept;
}

/* Ranked option: the stored packet with the largest (finish, number) -- what a fetch of a QP
 * ranked before it may displace. A scan of the k slots, cached in desc_latest until a store
 * or removal changes it (RNIC_NONE: unknown, or the buffer is empty). */
static uint32_t rl__desc_latest_scan(const rl *r)
{
    uint32_t s, best = RNIC_NONE;
    if (!r->desc_count)
        return RNIC_NONE;
    for (s = 0; s < r->cfg.desc_depth; s++)
        if (rnic_bitmap_test(r->desc_used, s) && (best == RNIC_NONE || rl__desc_less(r, true, best, s)))
            best = s;
    return best;
}

static uint32_t rl__desc_latest(const rl *r)
{
    if (r->desc_latest == RNIC_NONE) /* a cache in the engine's memory, as rl__cached_gap's */
        ((rl *)(uintptr_t)r)->desc_latest = rl__desc_latest_scan(r);
    return r->desc_latest;
}

/* The ranked queue's head would displace stored packet `slot`: its rank (the finish of a full
 * packet from its next start) is before that packet's finish. */
static bool rl__head_beats(const rl *r, uint32_t slot)
{
    uint64_t fin;
    if (slot == RNIC_NONE || !r->ranked_count)
        return false;
    fin = rl__rank_of(r->desc[slot].finish);
    return r->ranked[0].rank != fin && r->ranked[0].rank - fin >= ((uint64_t)1 << 63);
}

/* ---- rate changes: re-timing what is scheduled (docs/tassel_model.md, "Rate changes") ---- */

/* The next start N after T moves to max(T, prev_start + prev_len * new_cpb): the last
 * packet sent is charged at the new rate from its start (N <= T: nothing owed, N stays). */
static rnic_ftime rl__retimed_start(const rl *r, const rl__qp *q, rnic_ftime N, rnic_q32 new_cpb)
{
    rnic_ftime c = rl__prev_start(q);
    if (!rnic_ftime_before(r->T, N))
        return N;
    rnic_ftime_add_bytes(&c, rl__prev_len(q), new_cpb);
    return rnic_ftime_before(c, r->T) ? r->T : c;
}

/* Flow qi's stored descriptors, in number order (their chain order), into desc_scratch. */
static uint32_t rl__collect(rl *r, uint32_t qi)
{
    uint32_t s, n = 0, i;
    for (s = 0; s < r->cfg.desc_depth; s++) {
        if (!rnic_bitmap_test(r->desc_used, s) || r->desc[s].flow != qi)
            continue;
        for (i = n++; i > 0 && r->desc[r->desc_scratch[i - 1u]].number > r->desc[s].number; i--)
            r->desc_scratch[i] = r->desc_scratch[i - 1u];
        r->desc_scratch[i] = (uint16_t)s;
    }
    return n;
}

/* Re-time flow qi's schedule at new_cpb (keep) or drop it all (pause). The next start N
 * (the first stored packet's, else `finish`) becomes N' (rl__retimed_start); stored
 * packets are re-chained from N' while still urgent (start < A_mono), the rest is dropped and
 * the cursor moves back to the first dropped one. Returns the packets dropped. */
static uint32_t rl__retime(rl *r, uint32_t qi, rnic_q32 new_cpb, bool keep)
{
    rl__qp *q = &r->qps[qi];
    uint32_t n = q->outstanding ? rl__collect(r, qi) : 0, i, dropped = 0;
    rnic_ftime t = n ? r->desc[r->desc_scratch[0]].start : rl__finish(q);
    if (keep)
        t = rl__retimed_start(r, q, t, new_cpb);
    for (i = 0; i < n; i++) {
        uint32_t s = r->desc_scratch[i];
        rl__desc *d = &r->desc[s];
        if (keep && dropped == 0 && rnic_ftime_before(t, r->A_mono)) {
            d->start = t;
            rnic_ftime_add_bytes(&t, d->len, new_cpb);
            d->finish = t;
            continue;
        }
        if (dropped++ == 0) {
            q->index = d->index;
            q->offset = d->offset;
        }
        rnic_bitmap_clear(r->desc_used, s);
        r->desc_count--;
        q->outstanding--;
        r->stats.packets_dropped++;
    }
    rl__set_finish(q, t);
    if (keep)
        q->cpb = new_cpb;
    r->desc_latest = RNIC_NONE; /* finishes moved */
    if (n) {
        rl__dheap_remove(r, r->desc_waiting, &r->n_waiting, false, RNIC_NONE, qi);
        rl__ready_remove(r, RNIC_NONE, qi);
        for (i = 0; i < n - dropped; i++) /* step 5 makes those that have started eligible again */
            rl__dheap_push(r, r->desc_waiting, &r->n_waiting, false, r->desc_scratch[i]);
    }
    return dropped;
}

static void rl__tl_remove(rl *r, uint32_t qp);

/* A DORMANT flow's timeline key after a re-time: ceil(max(finish, A_mono)). A settled entry
 * leaves the timeline and re-enters through the next operation slot (the hardware's tagged
 * re-insert, its stale twin dropped when it surfaces); a request not yet settled reads the
 * key when it settles; a flow already dequeued goes on to its fetch. */
static void rl__rekey(rl *r, uint32_t qi)
{
    rl__qp *q = &r->qps[qi];
    rnic_ftime res = rl__finish(q);
    if (q->tl_loc == RL__TL_LEAVING)
        return;
    if (rnic_ftime_before(res, r->A_mono))
        res = r->A_mono;
    if (q->tl_loc == RL__TL_WHEEL)
        rl__wheel_remove(r, qi); /* before the new key is read: the slot is found from the old one */
    q->resched = rnic_ftime_ceil(res);
    if (q->tl_loc == RL__TL_REQUEST && r->inserts_in_flight.count && rl__key_before(q->resched, r->inflight_key_floor))
        r->inflight_key_floor = q->resched; /* it may be one of the enqueues in flight */
    if (q->tl_loc == RL__TL_SETTLED || q->tl_loc == RL__TL_WHEEL) {
        if (q->tl_loc == RL__TL_SETTLED)
            rl__tl_remove(r, qi);
        if (!rl__ranked_mode(r) || !rl__wheel_place(r, qi, q->resched)) {
            q->tl_loc = RL__TL_REQUEST;
            RL__FIFO_PUSH(&r->insert_requests, RL__TL_NEXT, qi);
        }
    }
    RNIC__TRACE(r, RL_TRACE_RESCHEDULE, qi, q->resched, 1);
}

/* Ranked option: an urgent packet of finish f that finds the buffer full takes the slot of
 * the stored packet with the largest (finish, number) when that finish is later than f -- the
 * buffer keeps the k smallest finishes, as WF2Q+ would send them. The victim is the last
 * stored packet of its QP (a QP's finishes increase); the QP's cursor moves back to it and its
 * schedule continues from its start (fetched again, as after fetch-and-drop). Returns the
 * freed slot, RNIC_NONE when no stored packet finishes later. */
static uint32_t rl__evict_later(rl *r, rnic_ftime f)
{
    uint32_t victim = rl__desc_latest(r);
    rl__qp *q;
    rl__desc *d;
    if (victim == RNIC_NONE || !rnic_ftime_before(f, r->desc[victim].finish))
        return RNIC_NONE;
    r->desc_latest = RNIC_NONE;
    d = &r->desc[victim];
    q = &r->qps[d->flow];
    rl__dheap_remove(r, r->desc_waiting, &r->n_waiting, false, victim, RNIC_NONE);
    rl__ready_remove(r, victim, RNIC_NONE);
    rnic_bitmap_clear(r->desc_used, victim);
    r->desc_count--;
    q->outstanding--;
    q->index = d->index;
    q->offset = d->offset;
    rl__set_finish(q, d->start);
    r->stats.packets_dropped++;
    r->stats.desc_evictions++;
    if (q->state == RL__DRAINING) /* it has data to fetch again */
        rl__reschedule(r, d->flow, d->start);
    else if (q->state == RL__DORMANT)
        rl__rekey(r, d->flow);
    return victim;
}

static void rl__park(rl *r, uint32_t qi)
{
    r->qps[qi].state = RL__PARKED;
    RNIC__TRACE(r, RL_TRACE_PARK, qi, RL__QF(&r->qps[qi], RL__QF_CREDIT), RL__QF(&r->qps[qi], RL__QF_PAUSED));
}

static void rl__apply_rate(rl *r, uint32_t qi, uint64_t bps)
{
    rl__qp *q = &r->qps[qi];
    bool active = q->state != RL__IDLE;
    rnic_q32 cpb = 0;
    uint32_t dropped;
    if (bps == 0) { /* pause: nothing more is sent, the stored packets go back to the source */
        if (RL__QF(q, RL__QF_PAUSED))
            return;
        dropped = rl__retime(r, qi, q->cpb, false);
        RL__QF_SET(q, RL__QF_PAUSED, 1);
        if (active) {
            r->sum_active_bps -= rl__rate(q);
            rl__update_phi(r);
        }
        if (q->state == RL__DRAINING)
            rl__park(r, qi);
        RNIC__TRACE(r, RL_TRACE_RETIME, qi, q->finish_cycle, dropped);
        return;
    }
    rnic_rate_to_cpb(bps, r->cfg.clock_hz, &cpb); /* clamped at the write: representable */
    if (active && !RL__QF(q, RL__QF_PAUSED))
        r->sum_active_bps -= rl__rate(q);
    q->rate_lo = (uint32_t)bps;
    q->rate_hi = (uint8_t)(bps >> 32);
    if (RL__QF(q, RL__QF_PAUSED)) { /* resume: re-timed as below, but no earlier than now */
        rnic_ftime f = rl__retimed_start(r, q, rl__finish(q), cpb);
        RL__QF_SET(q, RL__QF_PAUSED, 0);
        rl__set_finish(q, rnic_ftime_before(f, r->T) ? r->T : f);
        q->cpb = cpb;
        r->stats.retimes++;
        if (q->state == RL__PARKED && RL__QF(q, RL__QF_CREDIT))
            rl__enqueue_schedule(r, qi);
        else if (q->state == RL__DORMANT)
            rl__rekey(r, qi);
        RNIC__TRACE(r, RL_TRACE_RETIME, qi, q->finish_cycle, 0);
    } else if (cpb != q->cpb) {
        dropped = rl__retime(r, qi, cpb, true);
        r->stats.retimes++;
        if (q->state == RL__DORMANT)
            rl__rekey(r, qi);
        else if (q->state == RL__DRAINING && dropped)
            rl__reschedule(r, qi, rl__finish(q));
        RNIC__TRACE(r, RL_TRACE_RETIME, qi, q->finish_cycle, dropped);
    }
    if (active) {
        r->sum_active_bps += rl__rate(q);
        rl__update_phi(r);
    }
}

/* Step 1: the EMUX applies one flow's pending registers: rate, then credit, then doorbell. */
static void rl__emux(rl *r)
{
    uint32_t flow;
    rl__qp *q;
    uint8_t pend;
    if (!r->registers.count) /* defensive: rl_tick calls this only with a register pending */
        return;
    flow = r->registers.head;
    RL__FIFO_DROP(&r->registers, RL__REG_NEXT);
    q = &r->qps[flow];
    pend = q->pend;
    q->pend = 0;
    RNIC__TRACE(r, RL_TRACE_APPLY, flow, pend, 0);
    if (pend & RL__PEND_RATE) {
        r->stats.rate_updates++;
        rl__apply_rate(r, flow, rl__pend_rate(q));
    }
    if (pend & RL__PEND_CREDIT) {
        r->stats.credit_updates++;
        RL__QF_SET(q, RL__QF_CREDIT, RL__QF(q, RL__QF_PEND_CREDIT));
        if ((q->flags & (RL__QF_CREDIT | RL__QF_PAUSED)) == RL__QF_CREDIT && q->state == RL__PARKED)
            rl__enqueue_schedule(r, flow);
    }
    if (pend & RL__PEND_DOORBELL) {
        r->stats.doorbells++;
        if (q->state == RL__IDLE) {
            if (rnic_ftime_before(rl__finish(q), r->T))
                rl__set_finish(q, r->T);
            rl__set_prev(q, rl__finish(q), 0); /* the re-timing anchor: nothing sent in this activity */
            rl__activate(r, q);
            rl__enqueue_schedule(r, flow);
        } else if (q->state == RL__DRAINING) {
            RL__QF_SET(q, RL__QF_DOORBELL, 1);
        }
    }
}

/* Packets the fetched WQEs from entry wi at byte offset off still hold, counted up to `cap`
 * (a bad entry is one error record) -- what the cut loop would cut without storing them. */
static uint32_t rl__packets_left(const rl *r, uint32_t wi, uint32_t w, uint32_t off, uint32_t cap)
{
    uint32_t count = 0;
    for (; wi < w && count < cap; wi++, off = 0) {
        const rnic_work *e = &r->fetched[wi];
        if ((e->flags & RNIC_WORK_ERROR) || e->len == 0 || e->len > RL__MAX_WQE || off >= e->len)
            count++;
        else
            count += (e->len - off - 1u) / r->cfg.mtu + 1u; /* ceil; 32-bit: len <= 2^31 */
    }
    return count < cap ? count : cap;
}

/* Step 2: a round for flow qpi, whose WQE fetch completed this cycle. Cuts packets from the
 * cursor and stores the urgent ones; the first packet not stored ends the work: the packets
 * after it would be cut and dropped, so they are only counted (rl__packets_left). */
static void rl__round(rl *r, uint32_t qpi)
{
    rl__qp *q = &r->qps[qpi];
    uint32_t n = r->cfg.fetch_wqes, w, wi = 0, off, p = 0, m = 0, slot;
    rnic_ftime t, last_start;
    bool stopped = false;

    if (RL__QF(q, RL__QF_PAUSED)) { /* paused while its fetch was in flight: the answer is not used */
        rl__park(r, qpi);
        return;
    }
    r->stats.fetches++;
    RL__QF_SET(q, RL__QF_DOORBELL, 0);
    w = r->cfg.source(r->cfg.source_user, qpi, q->index, r->fetched, n);
    if (w > n) { /* a source that answers more than asked breaks its contract: use the ask, count it */
        r->stats.source_overrun++;
        w = n;
    }
    r->stats.wqes_fetched += w;
    off = q->offset;
    t = last_start = rl__finish(q);
    while (p < n && wi < w) { /* cut at most n packets (an error record counts as one) */
        const rnic_work *e = &r->fetched[wi];
        uint32_t len, flags = off == 0 ? RNIC_WORK_FIRST : 0u;
        int32_t status = 0;
        bool last;
        rl__desc *d;
        if (e->flags & RNIC_WORK_ERROR)
            status = e->status > 0 && e->status < (int32_t)RNIC_ERR__COUNT ? e->status : (int32_t)RNIC_EINVAL;
        else if (e->len == 0 || e->len > RL__MAX_WQE || off >= e->len)
            status = (int32_t)RNIC_EINVAL;
        if (status) {
            len = 0;
            last = true;
            flags |= RNIC_WORK_LAST | RNIC_WORK_ERROR;
        } else {
            uint32_t left = e->len - off;
            len = left < r->cfg.mtu ? left : r->cfg.mtu;
            last = len == left;
            flags |= last ? RNIC_WORK_LAST : 0u;
        }
        slot = RNIC_NONE;
        if (rnic_ftime_before(t, r->A_mono)) { /* urgent: a free slot, else (ranked) a later finish's */
            slot = rl__desc_free_slot(r);
            if (slot == RNIC_NONE && rl__ranked_mode(r)) {
                rnic_ftime f = t;
                rnic_ftime_add_bytes(&f, len, q->cpb);
                slot = rl__evict_later(r, f);
            }
            if (slot == RNIC_NONE)
                r->stats.desc_full++; /* urgent, but the buffer is full */
        }
        if (slot == RNIC_NONE) { /* not urgent, or no room: this packet and the rest are dropped */
            stopped = true;
            break;
        }
        last_start = t;
        d = &r->desc[slot];
        d->start = t;
        rnic_ftime_add_bytes(&t, len, q->cpb);
        d->finish = t;
        d->number = r->desc_numbers++;
        d->addr = e->addr + off;
        d->raddr = e->raddr + off;
        d->tag = e->tag;
        d->flow = qpi;
        d->index = q->index;
        d->offset = off;
        d->len = len;
        d->flags = flags;
        d->op = e->op;
        d->status = status;
        rnic_bitmap_set(r->desc_used, slot);
        if (r->desc_latest != RNIC_NONE && rl__desc_less(r, true, r->desc_latest, slot))
            r->desc_latest = slot;
        rl__dheap_push(r, r->desc_waiting, &r->n_waiting, false, slot);
        r->desc_count++;
        q->outstanding++;
        q->offset = last ? 0 : off + len;
        q->index += last;
        m++;
        p++;
        if (last) {
            wi++;
            off = 0;
        } else {
            off += len;
        }
    }
    rl__set_finish(q, t);
    if (stopped) /* the packets the cut would have computed and dropped: the stopped one and those after it */
        p += rl__packets_left(r, wi, w, off, n - p);
    r->stats.packets_computed += p;
    r->stats.packets_dropped += p - m;
    RNIC__TRACE(r, RL_TRACE_ROUND, qpi, m, p);
    /* data beyond the stored packets: a cut packet not stored, uncut bytes of fetched WQEs,
     * or a full fetch (the source may hold more) */
    if (!(stopped || wi < w || w == n)) {
        if (q->outstanding)
            q->state = RL__DRAINING;
        else
            rl__deactivate(r, q);
        return;
    }
    /* reschedule = max(start_i, A_mono), i = min(m + 1, p): the first packet not stored, else
     * the last one stored (p >= 1 here: a full fetch or WQEs left means something was cut) */
    rl__reschedule(r, qpi, stopped ? t : last_start);
}

/* ---- timeline: a radix calendar on (key, insertion order) ----
 * Keys are split into 6-bit digits. Level l holds the keys that agree with tl_base above digit
 * l and differ in digit l; slot (l, d) holds those whose digit l is d (a list in insertion
 * order, doubly linked through tl_next / tl_prev so a re-timed flow can leave from anywhere;
 * a 64-bit occupancy word per level). A key's slot depends only on the key and tl_base, and
 * tl_base moves only to the lower bound of the slot being spread, so equal keys always share
 * a list and keep their insertion order: ties leave first-in first-out, as from the P-heap.
 * Lower levels hold smaller keys, and a level-0 list holds one key. After every removal the
 * calendar is normalised (while level 0 is empty, the smallest slot of the lowest level is
 * spread into the levels below it), so the smallest entry is the head of level 0's first
 * list; an entry moves down at most once per level (<= 3 times for keys 2^23 cycles ahead).
 * A key below tl_base (its enqueue was computed before a larger key left) is due as well: it
 * waits in a short sorted "late" list that is served first. Wrap-safe: the top level (4 bits)
 * is searched circularly from tl_base's digit. */

#define RL__TL_LEVEL(key, base) ((key) == (base) ? 0u : rl__msb64((key) ^ (base)) / RL__TL_DIGIT)

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

/* Append qp (key `key`) to its list. */
static void rl__tl_append(rl *r, uint32_t qp, uint64_t key)
{
    uint32_t level = RL__TL_LEVEL(key, r->tl_base), digit = (uint32_t)(key >> (level * RL__TL_DIGIT)) & 63u;
    uint32_t list = level * 64u + digit, tail = r->tl_tail[list];
    r->tl_next[qp] = RNIC_NONE;
    r->tl_prev[qp] = tail;
    if (tail == RNIC_NONE) {
        r->tl_head[list] = qp;
        r->tl_bits[level] |= (uint64_t)1 << digit;
        r->tl_levels |= 1u << level;
    } else {
        r->tl_next[tail] = qp;
    }
    r->tl_tail[list] = qp;
    r->qps[qp].tl_list = (uint16_t)list;
}

/* The smallest occupied digit of `level` (not empty): the top level wraps around tl_base's. */
static uint32_t rl__tl_first_digit(const rl *r, uint32_t level)
{
    uint64_t bits = r->tl_bits[level];
    if (level == RL__TL_LEVELS - 1u) {
        uint64_t at_or_after = bits & (~(uint64_t)0 << (r->tl_base >> 60));
        if (at_or_after)
            bits = at_or_after;
    }
    return rnic_ctz64(bits);
}

/* While level 0 is empty: spread the smallest list of the lowest level into the levels below,
 * tl_base moving to that list's lower bound. Then tl_min = level 0's first head. */
static void rl__tl_normalise(rl *r)
{
    while (r->tl_levels && !(r->tl_levels & 1u)) {
        uint32_t level = rnic_ctz64(r->tl_levels), digit = rl__tl_first_digit(r, level), list = level * 64u + digit;
        uint32_t qp = r->tl_head[list], next;
        uint32_t shift = level * RL__TL_DIGIT;
        uint64_t above = shift + RL__TL_DIGIT >= 64u ? 0u : r->tl_base >> (shift + RL__TL_DIGIT) << (shift + RL__TL_DIGIT);
        r->tl_base = above | ((uint64_t)digit << shift);
        r->tl_head[list] = r->tl_tail[list] = RNIC_NONE;
        r->tl_bits[level] &= ~((uint64_t)1 << digit);
        if (!r->tl_bits[level])
            r->tl_levels &= ~(1u << level);
        for (; qp != RNIC_NONE; qp = next) {
            next = r->tl_next[qp];
            rl__tl_append(r, qp, r->qps[qp].resched);
        }
    }
    r->tl_min = r->tl_levels ? r->tl_head[rnic_ctz64(r->tl_bits[0])] : RNIC_NONE;
}

static void rl__tl_insert(rl *r, uint32_t qp)
{
    uint64_t key = r->qps[qp].resched;
    r->heap_count++;
    r->qps[qp].tl_loc = RL__TL_SETTLED;
    if (rl__key_before(key, r->tl_base)) { /* late: sorted insert after equal keys, searched from the tail
                             * (late keys arrive almost in order: a short walk) */
        uint32_t at = r->tl_late_tail;
        while (at != RNIC_NONE && rl__key_before(key, r->qps[at].resched))
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
        r->qps[qp].tl_list = RL__LATE;
        return;
    }
    rl__tl_append(r, qp, key);
    if (r->tl_min == RNIC_NONE || rl__key_before(key, r->qps[r->tl_min].resched))
        r->tl_min = qp;
}

/* Unlink an entry: a re-timed flow's, or the one leaving. */
static void rl__tl_unlink(rl *r, uint32_t qp)
{
    uint32_t list = r->qps[qp].tl_list, prev = r->tl_prev[qp], next = r->tl_next[qp];
    uint32_t *head = list == RL__LATE ? &r->tl_late_head : &r->tl_head[list];
    uint32_t *tail = list == RL__LATE ? &r->tl_late_tail : &r->tl_tail[list];
    if (prev == RNIC_NONE)
        *head = next;
    else
        r->tl_next[prev] = next;
    if (next == RNIC_NONE)
        *tail = prev;
    else
        r->tl_prev[next] = prev;
    if (list != RL__LATE && *head == RNIC_NONE) {
        uint32_t level = list / 64u;
        r->tl_bits[level] &= ~((uint64_t)1 << (list & 63u));
        if (!r->tl_bits[level])
            r->tl_levels &= ~(1u << level);
    }
    r->heap_count--;
}

static void rl__tl_remove(rl *r, uint32_t qp)
{
    rl__tl_unlink(r, qp);
    if (r->tl_min == qp)
        rl__tl_normalise(r);
}

/* The smallest settled entry (RNIC_NONE when none). */
static uint32_t rl__tl_peek(const rl *r)
{
    return r->tl_late_head != RNIC_NONE ? r->tl_late_head : r->tl_min;
}

static uint32_t rl__tl_pop(rl *r)
{
    uint32_t qp = r->tl_late_head;
    if (qp == RNIC_NONE) {
        /* the smallest entry leaves from level 0, so that tl_base stays within a digit of
         * the keys still to come (later keys lie within 2^62 of it) */
        if (!(r->tl_levels & 1u))
            rl__tl_normalise(r);
        qp = r->tl_min;
    }
    rl__tl_remove(r, qp);
    return qp;
}

/* A timeline key (a whole virtual cycle) is due when it lies before A_mono. */
static bool rl__key_due(const rl *r, uint64_t key)
{
    return rnic_ftime_before(rnic_ftime_at(key), r->A_mono);
}

/* Enqueues that have settled: those due by now (inclusive), or only those of earlier cycles.
 * Settling changes nothing a tick sees before step 3 reads the timeline, so fast-forward does
 * not stop for it (rl__next_gap): the skipped settles happen first thing in the next tick,
 * before step 1 (a re-timed flow's entry is where eager settling would have put it). */
static void rl__settle(rl *r, bool inclusive)
{
    while (r->inserts_in_flight.count) {
        const rl__timed_qp *e = &RL__Q_HEAD(&r->inserts_in_flight);
        if (!rl__reached(r->now, e->cycle) || (!inclusive && e->cycle == r->now))
            break;
        rl__tl_insert(r, e->qp);
        RL__Q_DROP(&r->inserts_in_flight);
    }
}

/* Steps 3 and 4. */
static void rl__timeline(rl *r)
{
    rl__timed_qp tq;
    bool due, request;
    rl__settle(r, true);
    if (rl__reached(r->now, r->heap_next_op)) {
        due = r->heap_count && rl__key_due(r, r->qps[rl__tl_peek(r)].resched);
        request = r->insert_requests.count != 0;
        if (due || request) {
            r->heap_next_op = r->now + 2u;
            r->stats.heap_ops++;
            if (due) {
                tq.qp = rl__tl_pop(r);
                tq.cycle = r->now + r->heap_height;
                r->qps[tq.qp].tl_loc = RL__TL_LEAVING;
                RL__Q_PUSH(&r->deliveries, tq);
            }
            if (request) {
                tq.qp = r->insert_requests.head;
                RL__FIFO_DROP(&r->insert_requests, RL__TL_NEXT);
                tq.cycle = r->now + r->heap_height;
                if (!r->inserts_in_flight.count || rl__key_before(r->qps[tq.qp].resched, r->inflight_key_floor))
                    r->inflight_key_floor = r->qps[tq.qp].resched;
                RL__Q_PUSH(&r->inserts_in_flight, tq);
            }
        }
    }
    if (r->wheel_count) { /* step 3w: the wheel's smallest key, when due, goes to the queue */
        uint32_t slot = rl__wheel_first(r), qp = r->wheel_qp[slot];
        if (rl__key_due(r, r->qps[qp].resched)) {
            uint64_t key = r->qps[qp].resched;
            rnic_bitmap_clear(r->wheel_used, slot);
            r->wheel_count--;
            r->wheel_base = slot + 1u == r->wheel_size ? 0u : slot + 1u;
            r->wheel_low = key + 1u;
            rl__enqueue_schedule(r, qp);
        }
    }
    while (r->deliveries.count && rl__reached(r->now, RL__Q_HEAD(&r->deliveries).cycle)) {
        rl__enqueue_schedule(r, RL__Q_HEAD(&r->deliveries).qp);
        RL__Q_DROP(&r->deliveries);
    }
}

/* Step 5: waiting descriptors whose start has come become eligible. */
static void rl__eligibility(rl *r)
{
    while (r->n_waiting && !rnic_ftime_before(r->T, r->desc[r->desc_waiting[0].slot].start))
        rl__ready_push(r, rl__dheap_pop(r, r->desc_waiting, &r->n_waiting, false));
}

/* Step 6. */
static void rl__transmit(rl *r)
{
    uint32_t i;
    rl__desc *d;
    rnic_work out;
    rl__qp *q;
    rnic_ftime now_t;
    if (!rl__reached(r->now, r->link_free) || r->n_ready == 0)
        return;
    if (rnic_ring_full(&r->tx)) {
        r->stats.tx_stalls++;
        return;
    }
    i = rl__ready_pop(r);
    d = &r->desc[i];
    out.cycle = r->now;
    out.addr = d->addr;
    out.raddr = d->raddr;
    out.tag = d->tag;
    out.flow = d->flow;
    out.index = d->index;
    out.offset = d->offset;
    out.len = d->len;
    out.flags = d->flags;
    out.op = d->op;
    out.status = d->status;
    out.aux = 0;
    rnic_ring_push(&r->tx, &out);
    RNIC__TRACE_REC(r, RNIC_TRACE_OUT, &out);
    now_t = rnic_ftime_at(r->now);
    if (rnic_ftime_before(r->link_t, now_t))
        r->link_t = now_t;
    rnic_ftime_add_bytes(&r->link_t, d->len, r->link_cpb);
    r->link_free = r->link_t.cycle; /* idle from the cycle in which this packet ends: the next
                                     * one continues on the wire at link_t, back to back */
    rnic_bitmap_clear(r->desc_used, i);
    r->desc_count--;
    if (r->desc_latest == i)
        r->desc_latest = RNIC_NONE;
    if (d->flags & RNIC_WORK_ERROR) {
        r->stats.error_records++;
        rnic_err_note(&r->stats.errors, (rnic_err)d->status);
    } else {
        r->stats.packets++;
        r->stats.bytes += d->len;
        if (r->flow_stats) {
            r->flow_stats[d->flow].packets++;
            r->flow_stats[d->flow].bytes += d->len;
        }
    }
    q = &r->qps[d->flow];
    rl__set_prev(q, d->start, d->len);
    q->outstanding--;
    if (q->outstanding == 0 && q->state == RL__DRAINING) {
        if (RL__QF(q, RL__QF_DOORBELL)) {
            RL__QF_SET(q, RL__QF_DOORBELL, 0);
            rl__enqueue_schedule(r, d->flow);
        } else {
            rl__deactivate(r, q);
        }
    }
}

/* Step 7's descriptor gate: a QP is queued and the buffer has a slot for its fetch (ranked:
 * or the queue head would displace a later-finishing stored packet). */
RNIC_INLINE bool rl__fetch_gate_open(const rl *r)
{
    if (!rl__sched_count(r))
        return false;
    if (r->desc_count + r->fetches.count < r->cfg.desc_depth)
        return true;
    return rl__ranked_mode(r) &&
           rl__head_beats(r, rl__desc_latest(r));
}

/* Step 7. */
static void rl__issue_fetch(rl *r)
{
    uint32_t qp;
    rl__qp *q;
    rl__timed_qp f;
    /* a fetch is issued only when the buffer will have a slot for it: one free slot reserved
     * per fetch in flight (without the gate, rounds that find the buffer full refetch in a
     * loop: ~40 PCIe reads per packet sent when over k flows have urgent packets) */
    if (!rl__fetch_gate_open(r)) {
        if (rl__sched_count(r))
            r->stats.fetch_gated++;
        return;
    }
    if (r->fetch_cpb && !rl__reached(r->now, r->fetch_free)) { /* the PCIe read channel is busy */
        if (rl__sched_count(r))
            r->stats.fetch_throttled++;
        return;
    }
    if (!rl__sched_pop(r, &qp)) /* defensive: rl_tick calls this only with a QP scheduled */
        return;
    q = &r->qps[qp];
    if ((q->flags & (RL__QF_CREDIT | RL__QF_PAUSED)) != RL__QF_CREDIT) {
        rl__park(r, qp);
        return;
    }
    r->stats.fetch_bytes += r->fetch_req_bytes;
    if (r->fetch_cpb) { /* the request holds the read channel for its bytes, back to back as the link */
        rnic_ftime now_t = rnic_ftime_at(r->now);
        if (rnic_ftime_before(r->fetch_t, now_t))
            r->fetch_t = now_t;
        rnic_ftime_add_bytes(&r->fetch_t, r->fetch_req_bytes, r->fetch_cpb);
        r->fetch_free = r->fetch_t.cycle;
    }
    q->state = RL__FETCHING;
    f.qp = qp;
    f.cycle = r->now + r->pcie_latency;
    RL__Q_PUSH(&r->fetches, f); /* at most L + 1 in flight: cannot be full */
    RNIC__TRACE(r, RL_TRACE_FETCH, qp, q->index, q->offset);
}

/* The 2^63 horizon of wrap-safe comparisons: a time that stays put while now or T moves on
 * would read as future after 2^63 cycles (the link busy, the P-heap closed, an idle flow's
 * finish ahead of T: the engine or the flow freezes). Whenever now or T crosses a multiple
 * of 2^62 (ticking, or jumps of at most 2^61 in rl_advance), such times are brought up to
 * now / T. Nothing a later tick does changes: a reached "not before" register reads as now,
 * a link that finished before now as one finishing now (step 6 takes the max), an idle
 * flow's finish behind T's epoch (T rounded down to a multiple of 2^62) as that epoch (its
 * doorbell takes the max with T). The epoch, not T itself: rl_advance catches up at the end
 * of a jump, ticking at the cycle now crosses, and an idle flow's finish shows (a rate write's
 * RL_TRACE_RETIME): T's epoch is the same at both points, so ticking and fast-forward stay
 * identical (fuzz_ratelimit found T there). O(max_flows), once per 2^62 cycles. (A flow
 * parked without credit for 2^63 cycles keeps its owed time: out of range.) */
#define RL__EPOCH_BITS 62
#define RL__JUMP ((uint64_t)1 << 61)
static void rl__catch_up(rl *r)
{
    rnic_ftime now_t = rnic_ftime_at(r->now), epoch;
    uint32_t i;
    if (rl__reached(r->now, r->heap_next_op))
        r->heap_next_op = r->now;
    if (rl__reached(r->now, r->link_free) && rnic_ftime_before(r->link_t, now_t)) {
        r->link_t = now_t;
        r->link_free = r->now;
    }
    if (rl__reached(r->now, r->fetch_free) && rnic_ftime_before(r->fetch_t, now_t)) {
        r->fetch_t = now_t;
        r->fetch_free = r->now;
    }
    epoch.cycle = r->T.cycle & ~(((uint64_t)1 << RL__EPOCH_BITS) - 1u);
    epoch.frac = 0;
    for (i = 0; i < r->cfg.max_flows; i++)
        if (r->qps[i].state == RL__IDLE && rnic_ftime_before(rl__finish(&r->qps[i]), epoch))
            rl__set_finish(&r->qps[i], epoch);
}

RL_API void rl_tick(rl *r)
{
    const rl__timed_qp *f;
    uint64_t t_before;
    if (!r)
        return;
    if (r->inserts_in_flight.count)
        rl__settle(r, false); /* enqueues that settled in cycles fast-forward skipped */
    if (r->registers.count)
        rl__emux(r); /* 1 */
    if (r->fetches.count && rl__reached(r->now, (f = &RL__Q_HEAD(&r->fetches))->cycle)) { /* 2 */
        uint32_t qp = f->qp;
        RL__Q_DROP(&r->fetches);
        rl__round(r, qp);
    }
    rl__timeline(r); /* 3, 4 */
    if (r->n_waiting)
        rl__eligibility(r); /* 5 */
    if (r->n_ready)
        rl__transmit(r); /* 6 */
    if (rl__sched_count(r))
        rl__issue_fetch(r); /* 7 */
    t_before = r->T.cycle;
    rnic_ftime_add_q32(&r->T, r->inc); /* 8 */
    if (r->a_tracks)
        rnic_ftime_add_q32(&r->A_mono, r->inc);
    else
        rl__update_activation(r);
    r->now++;
    r->stats.cycles++;
    if (!(r->now << (64 - RL__EPOCH_BITS)) || (r->T.cycle ^ t_before) >> RL__EPOCH_BITS)
        rl__catch_up(r);
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
    if (cache && rl__cache_hit(r, cache, rnic_ftime_at(key), &gap)) /* before A is computed (due stays due within an epoch) */
        return gap;
    if (rl__key_due(r, key))
        return 0;
    return cache ? rl__cached_gap(r, cache, rl__activation(r), rnic_ftime_at(key), true)
                 : rl__cycles_until(r, rl__activation(r), rnic_ftime_at(key), true);
}

/* Cycles from now to the next event (false: none without new input). Distances, not
 * cycles, so that the 2^64 wrap needs no special case. */
static bool rl__next_gap(const rl *r, uint64_t *gap)
{
    uint64_t best = UINT64_MAX, c, op;
    bool any = false;
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
    if (r->fetches.count)
        RL__AT(RL__Q_HEAD(&r->fetches).cycle);
    if (r->deliveries.count)
        RL__AT(RL__Q_HEAD(&r->deliveries).cycle);
    if (r->n_ready && !rnic_ring_full(&r->tx))
        RL__AT(r->link_free);
    if (rl__fetch_gate_open(r)) /* step 7 pops, when the read channel is free */
        RL__AT(r->fetch_cpb ? r->fetch_free : r->now);
    op = rl__reached(r->now, r->heap_next_op) ? 0u : r->heap_next_op - r->now;
    if (r->insert_requests.count)
        RL__IN(op);
    if (r->n_waiting) { /* when T reaches the earliest waiting packet's start */
        c = rl__cached_gap(r, &r->wait_due, r->T, r->desc[r->desc_waiting[0].slot].start, false);
        if (c != UINT64_MAX)
            RL__IN(c);
    }
    if (r->wheel_count) { /* when the wheel's smallest key falls due */
        uint64_t j = rl__key_gap(r, &r->wheel_due, r->qps[r->wheel_qp[rl__wheel_first(r)]].resched);
        if (j != UINT64_MAX)
            RL__IN(j);
    }
    if (r->heap_count || r->inserts_in_flight.count) {
        /* the next dequeue: when the smallest settled key falls due, or an enqueue still
         * settling that would leave before it (settled and due), at an operation slot */
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
        if (j != UINT64_MAX)
            RL__IN(j > op ? j : op);
    }
#undef RL__AT
#undef RL__IN
    *gap = best;
    return any;
}

RL_API uint64_t rl_next_event(const rl *r)
{
    uint64_t gap;
    if (!r || !rl__next_gap(r, &gap))
        return RNIC_NEVER;
    return r->now + gap; /* an event exactly at cycle 2^64 - 1 reads as RNIC_NEVER: use rl_advance */
}

/* rnic__advance's skip: jump over the idle cycles up to the next event (at most `left`),
 * counting the stalls the skipped cycles would have counted; 0 when something happens now. */
static uint64_t rl__skip(void *x, uint64_t left)
{
    rl *r = (rl *)x;
    uint64_t gap, skip, rest;
    skip = rl__next_gap(r, &gap) ? (gap < left ? gap : left) : left;
    if (!skip)
        return 0;
    if (r->n_ready && rnic_ring_full(&r->tx)) { /* a ready packet waits for TX room */
        uint64_t wait = rl__reached(r->now, r->link_free) ? 0u : r->link_free - r->now;
        if (wait < skip)
            r->stats.tx_stalls += skip - wait;
    }
    if (rl__fetch_gate_open(r)) /* queued flows wait for the read channel meanwhile */
        r->stats.fetch_throttled += skip;
    else if (rl__sched_count(r)) /* ... or at the descriptor gate */
        r->stats.fetch_gated += skip;
    rest = skip;
    while (rest) { /* jumps of at most 2^61 cycles: rest * inc stays below 2^63 (inc <= 1) */
        uint64_t jump = rest < RL__JUMP ? rest : RL__JUMP, n_before = r->now, t_before = r->T.cycle;
        rnic_ftime_add_bytes(&r->T, jump, r->inc);
        if (r->a_tracks) /* A_mono == A moves with T: still equal (jump <= 2^61) */
            r->A_mono = rl__activation(r);
        else
            rl__update_activation(r);
        r->now += jump;
        r->stats.cycles += jump;
        rest -= jump;
        if (((r->now ^ n_before) | (r->T.cycle ^ t_before)) >> RL__EPOCH_BITS)
            rl__catch_up(r);
    }
    return skip;
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

RL_API rnic_err rl_pop_tx(rl *r, rnic_work *out)
{
    if (!r)
        return RNIC_EINVAL;
    if (!out)
        return rl__refuse(r, 0, RNIC_EINVAL, 0);
    if (rnic_ring_pop(&r->tx, out) != RNIC_OK)
        return RNIC_EEMPTY;
    RNIC__TRACE_REC(r, RNIC_TRACE_POP, out);
    return RNIC_OK;
}

RL_API rnic_err rl_peek_tx(const rl *r, rnic_work *out)
{
    const rnic_work *w;
    if (!r)
        return RNIC_EINVAL;
    if (!out) /* counted like pop's: the engine is the caller's, only the statistics change */
        return rl__refuse((rl *)(uintptr_t)r, 0, RNIC_EINVAL, 0);
    if (!(w = (const rnic_work *)rnic_ring_peek(&r->tx)))
        return RNIC_EEMPTY;
    *out = *w;
    return RNIC_OK;
}

RL_API uint64_t rl_now(const rl *r) { return r ? r->now : 0; }
RL_API const rl_stats *rl_get_stats(const rl *r) { return r ? &r->stats : NULL; }
RL_API const rl_flow_stats *rl_get_flow_stats(const rl *r, uint32_t flow)
{
    return r && r->flow_stats && flow < r->cfg.max_flows ? &r->flow_stats[flow] : NULL;
}
RL_API rnic_err rl_flow_state(const rl *r, uint32_t flow, rl_flow_view *out)
{
    const rl__qp *q;
    if (!r)
        return RNIC_EINVAL;
    if (!out) /* counted like peek's: only the statistics change */
        return rl__refuse((rl *)(uintptr_t)r, flow, RNIC_EINVAL, 0);
    if (flow >= r->cfg.max_flows)
        return rl__refuse((rl *)(uintptr_t)r, flow, RNIC_ENOENT, 0);
    q = &r->qps[flow];
    RNIC_MEMSET(out, 0, sizeof *out);
    out->rate_bps = rl__rate(q);
    out->pending_rate_bps = rl__pend_rate(q);
    if (r->flow_stats) {
        out->packets = r->flow_stats[flow].packets;
        out->bytes = r->flow_stats[flow].bytes;
    }
    out->state = q->state; /* RL__IDLE .. RL__DRAINING = RL_FLOW_IDLE .. RL_FLOW_DRAINING */
    out->pending = q->pend;
    out->index = q->index;
    out->offset = q->offset;
    out->outstanding = q->outstanding;
    out->credit = RL__QF(q, RL__QF_CREDIT);
    out->paused = RL__QF(q, RL__QF_PAUSED);
    return RNIC_OK;
}
RL_API uint64_t rl_phi_q32(const rl *r) { return r ? r->phi : 0; }
RL_API uint32_t rl_pcie_latency_cycles(const rl *r) { return r ? r->pcie_latency : 0; }
