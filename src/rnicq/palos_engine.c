/* The Palos chunk slicer (interface and Fig. 5 workflow: palos_api.h; contract: docs/palos_model.md):
 * configuration, memory, init, the trace point, the control path (groups and flows, §IV-B), the
 * flow state and statistics. One file per box of Fig. 5 follows: palos_doorbell.c (the doorbell
 * module and the schedule queues), palos_fetch.c (WQE fetch), palos_slicer.c (message slicing),
 * palos_port.c (the output port of pieces); palos_tick.c runs them in a cycle's order and
 * fast-forwards. Tick path: 32-bit arithmetic beside the 64-bit clock (a 32-bit divide per piece
 * when packet_overhead is set, one more per cut when cut_align is), no allocation, no floating
 * point. */

enum { RQ__PALOS_IDLE = 0, RQ__PALOS_QUEUED = 1, RQ__PALOS_FETCHING = 2 };
#define RQ__PALOS_MAX_PIECE 0x80000000u /* 2^31: the largest WQE and the largest credit */

RQ_API void rq_palos_config_default(rq_palos_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    rq_pw_config_default(&cfg->weights);
    cfg->mode = RQ_PALOS_CHUNK;
    cfg->ring_entries = 4096;
    cfg->piece_depth = 2;
    cfg->fetch_slots = 16;
    cfg->fetch_latency_ns = 16;
    cfg->max_batch = 64;
    cfg->launch_wqes = 64; /* Fig. 5: the combined WQEs of a batch go at one time */
    cfg->priority_max_msg = 4096;
    cfg->packet_overhead = 0;
    cfg->cut_align = 0;
    cfg->clock_hz = 250000000u;
    cfg->trace_id = (uint16_t)RNIC_ENGINE_PALOS;
}

#define RQ__PALOS_BAD(cond, name)                             \
    do {                                                      \
        if (cond)                                             \
            return rnic_config_bad(field, name, RNIC_EINVAL); \
    } while (0)

/* mem_size sizes a config whatever its callbacks (need_source false); init needs the source. */
static rnic_err rq__palos_check(const rq_palos_config *c, const char **field, bool need_source)
{
    if (field)
        *field = NULL;
    RQ__PALOS_BAD(!c, "cfg");
    RQ__PALOS_BAD(c->weights.max_flows < 1u || c->weights.max_flows > 65536u, "weights.max_flows");
    RQ__PALOS_BAD(c->weights.max_groups < 1u || c->weights.max_groups > 4096u, "weights.max_groups");
    RQ__PALOS_BAD(c->weights.mtu < 64u || c->weights.mtu > 65536u, "weights.mtu");
    /* chunk <= N <= 2^30 */
    RQ__PALOS_BAD((uint64_t)c->weights.max_flows * c->weights.mtu > ((uint64_t)1 << 30), "weights.mtu");
    RQ__PALOS_BAD(c->mode > (uint32_t)RQ_PALOS_PACKET_RR, "mode");
    RQ__PALOS_BAD(c->ring_entries < 1u || c->ring_entries > (1u << 24), "ring_entries");
    RQ__PALOS_BAD(c->piece_depth < 1u || c->piece_depth > (1u << 20), "piece_depth");
    RQ__PALOS_BAD(c->fetch_slots < 1u || c->fetch_slots > 4096u, "fetch_slots");
    RQ__PALOS_BAD(c->clock_hz < 1000000u || c->clock_hz > 100000000000u, "clock_hz");
    RQ__PALOS_BAD(rnic_ns_to_cycles(c->fetch_latency_ns, c->clock_hz) > (1u << 20), "fetch_latency_ns");
    RQ__PALOS_BAD(c->max_batch < 1u || c->max_batch > 4096u, "max_batch");
    RQ__PALOS_BAD(c->launch_wqes < 1u || c->launch_wqes > 4096u, "launch_wqes");
    RQ__PALOS_BAD((uint64_t)c->piece_depth * c->launch_wqes > (1u << 20), "launch_wqes"); /* port records */
    RQ__PALOS_BAD(c->priority_max_msg < 1u || c->priority_max_msg > (1u << 30), "priority_max_msg");
    RQ__PALOS_BAD(c->packet_overhead > 4096u, "packet_overhead");
    RQ__PALOS_BAD(c->cut_align > (1u << 24), "cut_align");
    RQ__PALOS_BAD(need_source && !c->source, "source");
    return RNIC_OK;
}
#undef RQ__PALOS_BAD

RQ_API rnic_err rq_palos_config_check(const rq_palos_config *cfg, const char **field)
{
    return rq__palos_check(cfg, field, true);
}

static size_t rq__palos_layout(const rq_palos_config *c, rq_palos *p, unsigned char *mem)
{
    size_t off = 0, at, n;
    uint32_t k;
#define RQ__PART(bytes, then)                              \
    do {                                                   \
        n = (bytes);                                       \
        if (n == 0 || !rnic__mem_reserve(&off, n, 1, &at)) \
            return 0;                                      \
        if (p) {                                           \
            then;                                          \
        }                                                  \
    } while (0)
    RQ__PART(rq_pw_mem_size(&c->weights), (void)rq_pw_init(&p->weights, &c->weights, mem + at, n));
    RQ__PART((size_t)c->weights.max_flows * sizeof(rq__palos_qp), p->qps = (rq__palos_qp *)(void *)(mem + at));
    /* a flow is in the doorbell FIFO at most once: max_flows entries never overflow */
    RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), c->weights.max_flows),
             rnic_ring_init(&p->doorbells, sizeof(uint32_t), c->weights.max_flows, mem + at, n));
    for (k = 0; k < 2u; k++) /* a QP is in at most one queue once: max_flows entries never overflow */
        RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), c->weights.max_flows),
                 rnic_ring_init(&p->queue[k], sizeof(uint32_t), c->weights.max_flows, mem + at, n));
    for (k = 0; k < 2u; k++)
        RQ__PART(rnic_ring_mem_size(sizeof(rq__palos_slot), c->fetch_slots),
                 rnic_ring_init(&p->slots[k], sizeof(rq__palos_slot), c->fetch_slots, mem + at, n));
    /* piece_depth launches of at most launch_wqes records each */
    RQ__PART(rnic_ring_mem_size(sizeof(rnic_work), c->piece_depth * c->launch_wqes),
             rnic_ring_init(&p->out, sizeof(rnic_work), c->piece_depth * c->launch_wqes, mem + at, n));
    RQ__PART(rnic_align_up((size_t)c->piece_depth * sizeof(uint32_t)), p->launch_len = (uint32_t *)(void *)(mem + at));
#undef RQ__PART
    return off;
}

RQ_API size_t rq_palos_mem_size(const rq_palos_config *cfg)
{
    return rq__palos_check(cfg, NULL, false) == RNIC_OK ? rq__palos_layout(cfg, NULL, NULL) : 0;
}

RQ_API rnic_err rq_palos_init(rq_palos *p, const rq_palos_config *cfg, void *mem, size_t size)
{
    size_t need;
    if (!p || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || rq_palos_config_check(cfg, NULL) != RNIC_OK)
        return RNIC_EINVAL;
    need = rq__palos_layout(cfg, NULL, NULL);
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(p, 0, sizeof *p);
    RNIC_MEMSET(mem, 0, need);
    p->cfg = *cfg;
    p->now = cfg->start_cycle;
    p->fetch_latency = (uint32_t)rnic_ns_to_cycles(cfg->fetch_latency_ns, cfg->clock_hz);
    rnic_trace_set(&p->trace, cfg->trace, cfg->trace_user); /* the common trace point, RNIC__TRACE */
    p->trace_id = cfg->trace_id;
    /* a segment's charge: cut_align <= 2^24 plus at most 4096 per 64 B packet fits 32 bits */
    p->seg_charge = cfg->cut_align + cfg->packet_overhead * ((cfg->cut_align + cfg->weights.mtu - 1u) / cfg->weights.mtu);
    (void)rq__palos_layout(cfg, p, (unsigned char *)mem);
    return RNIC_OK;
}

/* ---- control path ---- */

/* Count a refusal once: its code e in errors and, when r is e's reason, the reason. */
static rnic_err rq__palos_note(rq_palos *p, rnic_err e, rq_palos_reason r)
{
    if (rq_palos_reason_code(r) == e)
        return rq_palos__reason_note(&p->stats.reasons, &p->stats.errors, r);
    return rnic_err_note(&p->stats.errors, e);
}

/* The reason of a control call's refusal by the weights table (rq__pw_*). */
static rq_palos_reason rq__palos_control_reason(rnic_err e)
{
    return e == RNIC_ERANGE ? RQ_PALOS_REASON_WEIGHT_RANGE : e == RNIC_EEXIST ? RQ_PALOS_REASON_GROUP_EXISTS : RQ_PALOS_REASON_UNKNOWN;
}

/* Count a refused call (and trace it); RNIC_OK passes through. */
static rnic_err rq__palos_count(rq_palos *p, rnic_err e, rq_palos_reason r, uint32_t id, uint64_t value)
{
    if (e != RNIC_OK) {
        (void)rq__palos_note(p, e, r);
        RNIC__TRACE(p, RNIC_TRACE_REFUSE, id, value, (uint64_t)e); /* a = the value refused, b = the code */
    }
    return e;
}
/* A control call's result from the weights table, counted under its reason. */
static rnic_err rq__palos_control(rq_palos *p, rnic_err e, uint32_t id, uint64_t value)
{
    return rq__palos_count(p, e, rq__palos_control_reason(e), id, value);
}

RQ_API rnic_err rq_palos_create_group(rq_palos *p, uint32_t group, uint32_t weight)
{
    if (!p)
        return RNIC_EINVAL;
    return rq__palos_control(p, rq__pw_create_group(&p->weights, group, weight), group, weight);
}

RQ_API rnic_err rq_palos_set_group_weight(rq_palos *p, uint32_t group, uint32_t weight)
{
    if (!p)
        return RNIC_EINVAL;
    return rq__palos_control(p, rq__pw_set_group_weight(&p->weights, group, weight), group, weight);
}

RQ_API void rq_palos_flow_config_default(rq_palos_flow_config *fc)
{
    if (!fc)
        return;
    fc->group = 0;
    fc->weight = 1;
    fc->cls = RQ_PALOS_BANDWIDTH;
}

RQ_API rnic_err rq_palos_flow_open(rq_palos *p, uint32_t flow, const rq_palos_flow_config *fc)
{
    rnic_err e;
    if (!p)
        return RNIC_EINVAL;
    if (!fc)
        return rq__palos_count(p, RNIC_EINVAL, RQ_PALOS_REASON_NULL, flow, 0);
    if (fc->cls > (uint32_t)RQ_PALOS_LATENCY)
        return rq__palos_count(p, RNIC_EINVAL, RQ_PALOS_REASON_FLOW_CLASS, flow, fc->cls);
    e = rq__pw_set_qp(&p->weights, flow, fc->group, fc->weight);
    if (e == RNIC_OK)
        p->qps[flow].cls = (uint8_t)fc->cls;
    return rq__palos_control(p, e, flow, fc->weight);
}

RQ_API rnic_err rq_palos_flow_close(rq_palos *p, uint32_t flow)
{
    const rq__palos_qp *q;
    if (!p)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_flows || p->weights.qps[flow].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT, RQ_PALOS_REASON_UNKNOWN, flow, 0);
    q = &p->qps[flow];
    if (q->where != RQ__PALOS_IDLE || q->posted != q->head)
        return rq__palos_count(p, RNIC_ESTATE, RQ_PALOS_REASON_FLOW_BUSY, flow, 0);
    p->qps[flow].held = 0; /* a flow opened again later starts served */
    return rq__palos_control(p, rq__pw_remove_qp(&p->weights, flow), flow, 0);
}

static void rq__palos_enqueue(rq_palos *p, uint32_t qp); /* palos_doorbell.c */

/* The protocol engine's ready bit for a flow (issue 30): a held flow is parked wherever it would
 * be served next (palos_doorbell.c, palos_fetch.c, palos_slicer.c); a release puts a parked flow
 * with WQEs back at the tail of its queue at once. */
RQ_API rnic_err rq_palos_flow_hold(rq_palos *p, uint32_t flow, bool hold)
{
    rq__palos_qp *q;
    if (!p)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_flows || p->weights.qps[flow].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT, RQ_PALOS_REASON_UNKNOWN, flow, hold ? 1u : 0u);
    q = &p->qps[flow];
    if ((q->held != 0u) == hold)
        return RNIC_OK; /* the register already holds this value */
    q->held = (uint8_t)hold;
    if (hold)
        p->stats.holds++;
    else {
        p->stats.releases++;
        if (q->where == RQ__PALOS_IDLE && q->tail != q->head)
            rq__palos_enqueue(p, flow); /* parked with WQEs the doorbell module applied */
    }
    RNIC__TRACE(p, RQ_PALOS_TRACE_HOLD, flow, hold ? 1u : 0u, (uint32_t)(q->posted - q->head));
    return RNIC_OK;
}

RQ_API uint64_t rq_palos_now(const rq_palos *p) { return p ? p->now : 0u; }
RQ_API uint64_t rq_palos_backlog(const rq_palos *p) { return p ? p->backlog : 0u; }
RQ_API const rq_palos_stats *rq_palos_get_stats(const rq_palos *p) { return p ? &p->stats : NULL; }
RQ_API const rq_pw *rq_palos_weights(const rq_palos *p) { return p ? &p->weights : NULL; }

RQ_API rnic_err rq_palos_flow_state(const rq_palos *p, uint32_t flow, rq_palos_flow_view *out)
{
    if (!p || !out)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_flows)
        return RNIC_ENOENT;
    out->open = p->weights.qps[flow].group != RNIC_NONE;
    out->head = p->qps[flow].head;
    out->offset = p->qps[flow].offset;
    out->tail = p->qps[flow].posted;
    out->held = p->qps[flow].held;
    return RNIC_OK;
}

/* ---- per-cycle modules ---- */

/* Wrap-safe: cycle `at` has come by `now` (times in flight are far below 2^63 apart). */
static bool rq__palos_due(uint64_t at, uint64_t now) { return now - at < ((uint64_t)1 << 63); }

/* The output port (palos_port.c), used by the slicing module before it. */
static bool rq__palos_port_full(const rq_palos *p);
static void rq__palos_push(rq_palos *p, const rnic_work *o);
static void rq__palos_launch_end(rq_palos *p);
