/* ratelimit.h: engine.c -- configuration, memory layout in caller memory, and rl_init. */

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
    r->tl_late_head = r->tl_late_tail = r->tl_min = r->tl_run_head = r->tl_run_tail = r->tl_first = RNIC_NONE;
    r->tl_base = r->tl_last_pop = cfg->start_cycle; /* keys are >= ceil(A_mono) >= the start */
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

