/* The Palos chunk slicer (interface and workflow: palos_api.h; contract: docs/palos_model.md).
 * Tick path: 32-bit arithmetic beside the 64-bit clock (a 32-bit divide per piece when
 * packet_overhead is set, one more per cut when cut_align is), no allocation, no floating point. */

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
    cfg->out_port = 2;
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
    RQ__PALOS_BAD(c->weights.max_qps < 1u || c->weights.max_qps > 65536u, "weights.max_qps");
    RQ__PALOS_BAD(c->weights.max_groups < 1u || c->weights.max_groups > 4096u, "weights.max_groups");
    RQ__PALOS_BAD(c->weights.mtu < 64u || c->weights.mtu > 65536u, "weights.mtu");
    /* chunk <= N <= 2^30 */
    RQ__PALOS_BAD((uint64_t)c->weights.max_qps * c->weights.mtu > ((uint64_t)1 << 30), "weights.mtu");
    RQ__PALOS_BAD(c->mode > (uint32_t)RQ_PALOS_PACKET_RR, "mode");
    RQ__PALOS_BAD(c->ring_entries < 1u || c->ring_entries > (1u << 24), "ring_entries");
    RQ__PALOS_BAD(c->out_port < 1u || c->out_port > (1u << 20), "out_port");
    RQ__PALOS_BAD(c->fetch_slots < 1u || c->fetch_slots > 4096u, "fetch_slots");
    RQ__PALOS_BAD(c->clock_hz < 1000000u || c->clock_hz > 100000000000u, "clock_hz");
    RQ__PALOS_BAD(rnic_ns_to_cycles(c->fetch_latency_ns, c->clock_hz) > (1u << 20), "fetch_latency_ns");
    RQ__PALOS_BAD(c->max_batch < 1u || c->max_batch > 4096u, "max_batch");
    RQ__PALOS_BAD(c->launch_wqes < 1u || c->launch_wqes > 4096u, "launch_wqes");
    RQ__PALOS_BAD((uint64_t)c->out_port * c->launch_wqes > (1u << 20), "launch_wqes"); /* port records */
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
    RQ__PART((size_t)c->weights.max_qps * sizeof(rq_palos_qp), p->qps = (rq_palos_qp *)(void *)(mem + at));
    /* a flow is in the doorbell FIFO at most once: max_qps entries never overflow */
    RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), c->weights.max_qps),
             rnic_ring_init(&p->doorbells, sizeof(uint32_t), c->weights.max_qps, mem + at, n));
    for (k = 0; k < 2u; k++) /* a QP is in at most one queue once: max_qps entries never overflow */
        RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), c->weights.max_qps),
                 rnic_ring_init(&p->queue[k], sizeof(uint32_t), c->weights.max_qps, mem + at, n));
    for (k = 0; k < 2u; k++)
        RQ__PART(rnic_ring_mem_size(sizeof(rq_palos_slot), c->fetch_slots),
                 rnic_ring_init(&p->slots[k], sizeof(rq_palos_slot), c->fetch_slots, mem + at, n));
    /* out_port launches of at most launch_wqes records each */
    RQ__PART(rnic_ring_mem_size(sizeof(rnic_work), c->out_port * c->launch_wqes),
             rnic_ring_init(&p->out, sizeof(rnic_work), c->out_port * c->launch_wqes, mem + at, n));
    RQ__PART(rnic_align_up((size_t)c->out_port * sizeof(uint32_t)), p->launch_len = (uint32_t *)(void *)(mem + at));
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
    /* a segment's charge: cut_align <= 2^24 plus at most 4096 per 64 B packet fits 32 bits */
    p->seg_charge = cfg->cut_align + cfg->packet_overhead * ((cfg->cut_align + cfg->weights.mtu - 1u) / cfg->weights.mtu);
    (void)rq__palos_layout(cfg, p, (unsigned char *)mem);
    return RNIC_OK;
}

/* ---- trace (zero cost beyond one branch when cfg.trace is NULL) ---- */

static void rq__palos_emit(const rq_palos *p, uint16_t kind, uint32_t id, uint64_t a, uint64_t b)
{
    rnic_trace_event ev;
    ev.cycle = p->now;
    ev.engine = p->cfg.trace_id;
    ev.kind = kind;
    ev.id = id;
    ev.a = a;
    ev.b = b;
    p->cfg.trace(p->cfg.trace_user, &ev);
}

#define RQ__PALOS_TRACE(p, kind, id, a, b)                           \
    do {                                                             \
        if ((p)->cfg.trace)                                          \
            rq__palos_emit((p), (uint16_t)(kind), (id), (a), (b));   \
    } while (0)

/* ---- control path ---- */

/* Count a refused call (and trace it); RNIC_OK passes through. */
static rnic_err rq__palos_count(rq_palos *p, rnic_err e, uint32_t id, uint64_t value)
{
    if (e != RNIC_OK) {
        (void)rnic_err_note(&p->stats.errors, e);
        RQ__PALOS_TRACE(p, RNIC_TRACE_REFUSE, id, (uint64_t)e, value);
    }
    return e;
}

RQ_API rnic_err rq_palos_create_group(rq_palos *p, uint32_t group, uint32_t weight)
{
    if (!p)
        return RNIC_EINVAL;
    return rq__palos_count(p, rq__pw_create_group(&p->weights, group, weight), group, weight);
}

RQ_API rnic_err rq_palos_set_group_weight(rq_palos *p, uint32_t group, uint32_t weight)
{
    if (!p)
        return RNIC_EINVAL;
    return rq__palos_count(p, rq__pw_set_group_weight(&p->weights, group, weight), group, weight);
}

RQ_API rnic_err rq_palos_set_qp(rq_palos *p, uint32_t flow, uint32_t group, uint32_t weight, uint32_t cls)
{
    rnic_err e;
    if (!p)
        return RNIC_EINVAL;
    if (cls > (uint32_t)RQ_PALOS_LATENCY)
        return rq__palos_count(p, RNIC_EINVAL, flow, cls);
    e = rq__pw_set_qp(&p->weights, flow, group, weight);
    if (e == RNIC_OK)
        p->qps[flow].cls = (uint8_t)cls;
    return rq__palos_count(p, e, flow, weight);
}

RQ_API rnic_err rq_palos_remove_qp(rq_palos *p, uint32_t flow)
{
    const rq_palos_qp *q;
    if (!p)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_qps || p->weights.qps[flow].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT, flow, 0);
    q = &p->qps[flow];
    if (q->where != RQ__PALOS_IDLE || q->posted != q->head)
        return rq__palos_count(p, RNIC_ESTATE, flow, 0);
    return rq__palos_count(p, rq__pw_remove_qp(&p->weights, flow), flow, 0);
}

RQ_API rnic_err rq_palos_doorbell(rq_palos *p, uint32_t flow, uint32_t tail)
{
    rq_palos_qp *q;
    uint32_t step;
    if (!p)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_qps || p->weights.qps[flow].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT, flow, tail);
    q = &p->qps[flow];
    step = tail - q->posted; /* ring counters wrap at 2^32 */
    if (step == 0u || step > 0x80000000u)
        return rq__palos_count(p, RNIC_ESTALE, flow, tail);
    if (tail - q->head > p->cfg.ring_entries)
        return rq__palos_count(p, RNIC_ENOSPC, flow, tail);
    q->posted = tail; /* the newest tail: writes before the module takes it are coalesced */
    p->backlog += step;
    p->stats.doorbell_writes++;
    if (!q->db_pending) {
        q->db_pending = 1;
        (void)rnic_ring_push(&p->doorbells, &flow); /* cannot fail: one place per flow */
    }
    return RNIC_OK;
}

/* ---- per-cycle modules ---- */

/* Wrap-safe: cycle `at` has come by `now` (times in flight are far below 2^63 apart). */
static bool rq__palos_due(uint64_t at, uint64_t now) { return now - at < ((uint64_t)1 << 63); }

static void rq__palos_enqueue(rq_palos *p, uint32_t qp)
{
    rq_palos_qp *q = &p->qps[qp];
    uint32_t cls = p->cfg.mode == RQ_PALOS_PACKET_RR ? (uint32_t)RQ_PALOS_BANDWIDTH : q->cls;
    (void)rnic_ring_push(&p->queue[cls], &qp); /* cannot fail: one place per QP */
    q->where = RQ__PALOS_QUEUED;
}

static void rq__palos_doorbell_module(rq_palos *p)
{
    uint32_t flow;
    rq_palos_qp *q;
    if (rnic_ring_pop(&p->doorbells, &flow) != RNIC_OK)
        return;
    q = &p->qps[flow];
    RQ__PALOS_TRACE(p, RNIC_TRACE_PUSH, flow, q->posted, (uint32_t)(q->posted - q->tail));
    q->tail = q->posted;
    q->db_pending = 0;
    p->stats.doorbells++;
    if (q->where == RQ__PALOS_IDLE)
        rq__palos_enqueue(p, flow);
}

/* WQEs one batch read takes: those posted from the head, at most max_batch. */
static uint32_t rq__palos_batch(const rq_palos *p, const rq_palos_qp *q)
{
    uint32_t pending = q->tail - q->head;
    return pending < p->cfg.max_batch ? pending : p->cfg.max_batch;
}

static void rq__palos_fetch_module(rq_palos *p)
{
    rq_palos_slot s;
    rq_palos_qp *q;
    uint32_t cls = RQ_PALOS_LATENCY;
    /* strict priority: the latency queue first, into its own slots (§IV-C) */
    if (rnic_ring_empty(&p->queue[cls]) || rnic_ring_full(&p->slots[cls]))
        cls = RQ_PALOS_BANDWIDTH;
    if (rnic_ring_full(&p->slots[cls]) || rnic_ring_pop(&p->queue[cls], &s.qp) != RNIC_OK)
        return;
    q = &p->qps[s.qp];
    s.count = rq__palos_batch(p, q);
    s.ready = p->now + p->fetch_latency;
    q->where = RQ__PALOS_FETCHING;
    (void)rnic_ring_push(&p->slots[cls], &s);
    RQ__PALOS_TRACE(p, RQ_PALOS_TRACE_FETCH, s.qp, s.count, s.ready);
}

/* Bytes the current visit is charged per packet on top of the payload: packet_overhead, none
 * for a latency-class visit (its limit is a message size, §IV-C). */
static uint32_t rq__palos_overhead(const rq_palos *p) { return p->visit.latency ? 0u : p->cfg.packet_overhead; }

/* Largest piece (<= want) whose charge fits `credit` (> 0): payload plus the overhead per packet. */
static uint32_t rq__palos_affordable(const rq_palos *p, uint32_t credit, uint32_t want)
{
    uint32_t ovh = rq__palos_overhead(p), mtu = p->cfg.weights.mtu, full, rem, len;
    if (ovh == 0u)
        return credit < want ? credit : want;
    full = credit / (mtu + ovh);
    rem = credit - full * (mtu + ovh);
    if ((uint64_t)full * mtu >= want)
        return want;
    len = full * mtu + (rem > ovh ? rem - ovh : 0u);
    return len < want ? len : want;
}

static uint32_t rq__palos_charge(const rq_palos *p, uint32_t len)
{
    uint32_t mtu = p->cfg.weights.mtu;
    uint32_t ovh = rq__palos_overhead(p);
    return ovh == 0u ? len : len + ovh * (len / mtu + (len % mtu != 0u));
}

/* The credit a visit needs to go on: more than one packet's overhead, so a cut piece carries
 * at least one byte. */
static int64_t rq__palos_floor(const rq_palos *p) { return (int64_t)rq__palos_overhead(p); }

/* cut_align applies to bandwidth visits in CHUNK mode (a latency visit finishing a WQE begun
 * before its QP changed class cuts at priority_max_msg; PACKET_RR cuts at the MTU). */
static bool rq__palos_aligned(const rq_palos *p)
{
    return p->cfg.cut_align != 0u && p->cfg.mode == RQ_PALOS_CHUNK && !p->visit.latency;
}

/* The credit a visit needs to go on after a piece: above the floor, and with cut_align the
 * charge of a whole segment, so that the next piece is never empty (a visit that had sent pieces
 * could not end without one marked VISIT_END). */
static int64_t rq__palos_go_on_floor(const rq_palos *p)
{
    int64_t seg;
    if (!rq__palos_aligned(p))
        return rq__palos_floor(p);
    seg = (int64_t)p->seg_charge - 1;
    return seg > rq__palos_floor(p) ? seg : rq__palos_floor(p);
}

/* Fig. 5 step 6: the slicing module writes the QP's head and fetch offset back to the QP table,
 * once per launch (and when a visit ends). */
static void rq__palos_writeback(rq_palos *p)
{
    const rq_palos_visit *v = &p->visit;
    rq_palos_qp *q = &p->qps[v->qp];
    q->head = v->head;
    q->offset = v->offset;
    q->cut = (uint8_t)v->cut;
}

/* The output port holds out_port launches. */
static bool rq__palos_port_full(const rq_palos *p) { return p->launch_count == p->cfg.out_port; }

/* A record into the output port, part of this cycle's launch (closed by rq__palos_launch_end). */
static void rq__palos_push(rq_palos *p, const rnic_work *o)
{
    (void)rnic_ring_push(&p->out, o); /* cannot fail: a free launch holds launch_wqes records */
    p->launch_now++;
}

/* The launch of this cycle takes its place in the port; step 6 writes the QP's head and fetch
 * offset back. */
static void rq__palos_launch_end(rq_palos *p)
{
    uint32_t t = p->launch_head + p->launch_count;
    p->launch_len[t >= p->cfg.out_port ? t - p->cfg.out_port : t] = p->launch_now;
    p->launch_count++;
    p->stats.launches++;
    p->launch_now = 0;
    rq__palos_writeback(p);
}

static void rq__palos_begin_visit(rq_palos *p, const rq_palos_slot *s)
{
    rq_palos_visit *v = &p->visit;
    rq_palos_qp *q = &p->qps[s->qp];
    uint64_t chunk;
    v->active = 1;
    v->qp = s->qp;
    v->left = s->count;
    v->ready = s->ready;
    v->emitted_wqes = 0;
    v->have_wqe = 0;
    v->latency = 0;
    v->head = q->head; /* the visit's working copy of the QP's head and fetch offset */
    v->offset = q->offset;
    v->cut = q->cut;
    v->new_batch = 0;
    if (p->cfg.mode == RQ_PALOS_PACKET_RR) {
        v->credit = RQ__PALOS_MAX_PIECE;
        v->small = 0;
    } else if (q->cls == RQ_PALOS_LATENCY) {
        v->credit = p->cfg.priority_max_msg;
        v->small = p->cfg.priority_max_msg; /* every WQE it takes is at most this */
        v->latency = 1;
        p->stats.priority_visits++;
    } else {
        chunk = rq_pw_next_chunk(&p->weights, s->qp);
        v->small = chunk < RQ__PALOS_MAX_PIECE ? (uint32_t)chunk : RQ__PALOS_MAX_PIECE;
        v->credit = q->credit + (int64_t)v->small;
        if (v->credit > (int64_t)RQ__PALOS_MAX_PIECE)
            v->credit = RQ__PALOS_MAX_PIECE;
    }
    p->stats.visits++;
    RQ__PALOS_TRACE(p, RQ_PALOS_TRACE_VISIT_START, s->qp, (uint64_t)v->credit, v->small);
}

static void rq__palos_end_visit(rq_palos *p)
{
    rq_palos_visit *v = &p->visit;
    rq_palos_qp *q = &p->qps[v->qp];
    int64_t cap;
    rq__palos_writeback(p);
    v->active = 0;
    if (v->emitted_wqes > 1u)
        p->stats.combined_visits++;
    q->where = RQ__PALOS_IDLE;
    q->credit = 0;
    if (q->head == q->tail) {
        /* idle: an emptied QP keeps no surplus (it would burst when it comes back) but keeps
         * its deficit, or emptying the ring after each overdraft would beat Eq. 1 */
        if (p->cfg.mode == RQ_PALOS_CHUNK && !v->latency && v->credit < 0)
            q->credit = v->credit;
    } else {
        if (p->cfg.mode == RQ_PALOS_CHUNK && !v->latency) {
            /* carry the deficit of a small WQE sent whole past the chunk, or the surplus too small
             * to pay a packet's overhead; a surplus of at most one chunk plus one packet */
            cap = (int64_t)v->small + p->cfg.weights.mtu + p->cfg.packet_overhead;
            if (rq__palos_aligned(p)) /* a cut on a segment boundary leaves up to a segment */
                cap += (int64_t)p->seg_charge + p->cfg.packet_overhead;
            q->credit = v->credit < cap ? v->credit : cap;
        }
        rq__palos_enqueue(p, v->qp);
    }
    RQ__PALOS_TRACE(p, RQ_PALOS_TRACE_VISIT_END, v->qp, (uint64_t)q->credit, (uint32_t)(q->posted - q->head));
}

static bool rq__palos_wqe_ok(const rnic_work *w)
{
    return w->len >= 1u && w->len <= RQ__PALOS_MAX_PIECE && w->len - 1u <= UINT64_MAX - w->addr &&
           w->len - 1u <= UINT64_MAX - w->raddr; /* last byte, local and remote, <= 2^64-1 */
}

/* After a piece or an error record: does the visit go on, read another batch, or end? */
static void rq__palos_step_done(rq_palos *p, rnic_work *o, bool cut)
{
    rq_palos_visit *v = &p->visit;
    const rq_palos_qp *q = &p->qps[v->qp];
    bool end, paused = false;
    bool error = (o->flags & RNIC_WORK_ERROR) != 0u;
    if (p->cfg.mode == RQ_PALOS_PACKET_RR)
        end = !error || v->left == 0u; /* one packet per visit */
    else if (cut || (v->latency && !error) || v->credit <= rq__palos_go_on_floor(p))
        end = true; /* the chunk is used (a latency visit: one message) */
    else if (v->left == 0u && v->head != q->tail) {
        /* credit left and WQEs posted beyond the batch: read the next batch for this visit, so
         * that a chunk is never cut short by max_batch (Eq. 1 whatever the message size) */
        const rq_palos_slot *ls = (const rq_palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_LATENCY]);
        uint32_t pending = q->tail - v->head;
        v->left = pending < p->cfg.max_batch ? pending : p->cfg.max_batch;
        v->ready = p->now + p->fetch_latency;
        v->new_batch = 1; /* a launch holds WQEs of one batch */
        p->stats.refetches++;
        end = false;
        RQ__PALOS_TRACE(p, RQ_PALOS_TRACE_FETCH, v->qp, v->left, v->ready);
        if (!v->latency && !p->paused.active && ls && rq__palos_due(ls->ready, p->now + 1u)) {
            /* a latency batch is waiting: this long visit steps aside at its batch boundary
             * and resumes after it (strict priority without waiting out a whole chunk) */
            p->paused = *v;
            v->active = 0;
            p->stats.preemptions++;
            o->flags |= RQ_PALOS_VISIT_END; /* the run of this QP's pieces ends here for now */
            paused = true;
        }
    } else
        end = v->left == 0u;
    if (end)
        o->flags |= RQ_PALOS_VISIT_END;
    rq__palos_push(p, o);
    p->stats.out_wqes++;
    RQ__PALOS_TRACE(p, RNIC_TRACE_OUT, o->flow, o->tag, ((uint64_t)o->offset << 32) | o->len);
    if (paused)
        RQ__PALOS_TRACE(p, RQ_PALOS_TRACE_PAUSE, o->flow, 0, 0);
    if (end)
        rq__palos_end_visit(p);
}

/* Read the WQE at the QP's head from the source: RNIC_OK, or why it is refused. */
static rnic_err rq__palos_read_wqe(rq_palos *p)
{
    rq_palos_visit *v = &p->visit;
    uint32_t got = p->cfg.source(p->cfg.source_user, v->qp, v->head, &v->wqe, 1);
    if (got == 0u) {
        RNIC_MEMSET(&v->wqe, 0, sizeof v->wqe);
        return RNIC_ENOENT; /* posted, but the source has no such entry */
    }
    if (v->wqe.flags & RNIC_WORK_ERROR) /* the source refused it: its code, when it is one */
        return v->wqe.status > 0 && v->wqe.status < (int32_t)RNIC_ERR__COUNT ? (rnic_err)v->wqe.status : RNIC_EINVAL;
    if (!rq__palos_wqe_ok(&v->wqe) || v->offset >= v->wqe.len ||
        (v->latency && v->offset == 0u && v->wqe.len > p->cfg.priority_max_msg))
        return RNIC_ERANGE; /* a latency-class WQE above priority_max_msg breaks §IV-C's limit (one
                               begun before the QP changed class is finished, cut to the limit) */
    return RNIC_OK;
}

/* One record of the current visit: the next piece of the WQE at its head, or the error record of
 * a refused one (or, with cut_align, the end of a visit whose credit pays no whole segment). */
static void rq__palos_slice_one(rq_palos *p)
{
    rq_palos_visit *v = &p->visit;
    rnic_work o;
    uint32_t rest, piece;
    rnic_err e;
    if (!v->have_wqe) {
        e = rq__palos_read_wqe(p);
        if (e != RNIC_OK) {
            /* refused WQE: complete it with an error record so nothing is lost */
            o = v->wqe;
            o.addr += v->offset;
            o.raddr += v->offset;
            o.flow = v->qp;
            o.index = v->head;
            o.offset = v->offset; /* a WQE already begun ends here (its earlier pieces went out) */
            o.len = 0;
            o.cycle = p->now;
            o.flags = (v->offset == 0u ? RNIC_WORK_FIRST : 0u) | RNIC_WORK_LAST | RNIC_WORK_ERROR;
            o.status = (int32_t)e;
            o.aux = 0;
            v->head++;
            v->offset = 0;
            v->cut = 0;
            v->left--;
            p->backlog--;
            p->stats.bad_wqes++;
            (void)rnic_err_note(&p->stats.errors, e);
            rq__palos_step_done(p, &o, false);
            return;
        }
        v->have_wqe = 1;
    }
    rest = v->wqe.len - v->offset;
    if (p->cfg.mode == RQ_PALOS_PACKET_RR)
        piece = rest < p->cfg.weights.mtu ? rest : p->cfg.weights.mtu;
    else if (v->offset == 0u && v->wqe.len <= v->small)
        piece = rest; /* a WQE no larger than the chunk goes whole (combined), never cut (§IV-A) */
    else {
        piece = rq__palos_affordable(p, (uint32_t)v->credit, rest); /* >= 1: credit > floor */
        if (piece < rest && rq__palos_aligned(p)) {
            /* cut on a segment boundary from the WQE start; the rest of the credit is carried */
            uint32_t end = v->offset + piece;
            end -= end % p->cfg.cut_align;
            piece = end > v->offset ? end - v->offset : 0u;
            if (piece == 0u) { /* not a whole segment this round: the first step of this visit */
                rq__palos_end_visit(p);
                return;
            }
        }
    }
    o.cycle = p->now;
    o.addr = v->wqe.addr + v->offset;
    o.raddr = v->wqe.raddr + v->offset;
    o.tag = v->wqe.tag;
    o.flow = v->qp;
    o.index = v->head;
    o.offset = v->offset;
    o.len = piece;
    o.flags = v->offset == 0u ? RNIC_WORK_FIRST : 0u;
    o.op = v->wqe.op;
    o.status = 0;
    o.aux = 0;
    if (p->cfg.mode == RQ_PALOS_CHUNK)
        v->credit -= rq__palos_charge(p, piece);
    p->stats.out_bytes += piece;
    if (piece == rest) {
        o.flags |= RNIC_WORK_LAST;
        if (v->cut)
            p->stats.cut_wqes++;
        v->head++;
        v->offset = 0;
        v->cut = 0;
        v->left--;
        v->have_wqe = 0;
        v->emitted_wqes++;
        p->backlog--;
        p->stats.wqes_done++;
    } else {
        v->offset += piece;
        v->cut = 1;
    }
    rq__palos_step_done(p, &o, piece != rest && p->cfg.mode == RQ_PALOS_CHUNK);
}

/* One launch per cycle: up to launch_wqes records of one visit and one batch (Fig. 5). */
static void rq__palos_slice_module(rq_palos *p)
{
    rq_palos_visit *v = &p->visit;
    if (!v->active) { /* a ready latency batch, else a paused visit, else a ready bandwidth batch */
        const rq_palos_slot *s = (const rq_palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_LATENCY]);
        rq_palos_slot taken;
        uint32_t cls = RQ_PALOS_LATENCY;
        if ((!s || !rq__palos_due(s->ready, p->now)) && p->paused.active) {
            *v = p->paused;
            p->paused.active = 0;
            RQ__PALOS_TRACE(p, RQ_PALOS_TRACE_RESUME, v->qp, 0, 0);
        } else {
            if (!s || !rq__palos_due(s->ready, p->now)) {
                s = (const rq_palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_BANDWIDTH]);
                cls = RQ_PALOS_BANDWIDTH;
            }
            if (!s || !rq__palos_due(s->ready, p->now))
                return;
            (void)rnic_ring_pop(&p->slots[cls], &taken);
            rq__palos_begin_visit(p, &taken);
        }
    }
    if (!rq__palos_due(v->ready, p->now))
        return; /* waiting for the next batch of this visit */
    if (v->left == 0u || (p->cfg.mode == RQ_PALOS_CHUNK && v->credit <= rq__palos_floor(p))) {
        rq__palos_end_visit(p); /* nothing to send this round (a deficit, or a chunk under a byte) */
        return;
    }
    if (rq__palos_port_full(p)) {
        p->stats.out_stalls++;
        return;
    }
    v->new_batch = 0;
    do /* a record ends the launch when it ends or pauses the visit or starts a further batch */
        rq__palos_slice_one(p);
    while (v->active && !v->new_batch && v->left != 0u && p->launch_now < p->cfg.launch_wqes);
    if (p->launch_now)
        rq__palos_launch_end(p);
}

RQ_API void rq_palos_tick(rq_palos *p)
{
    if (!p)
        return;
    /* back to front: each module sees what the one before it did in the previous cycle */
    rq__palos_slice_module(p);
    rq__palos_fetch_module(p);
    rq__palos_doorbell_module(p);
    p->now++;
    p->stats.cycles++;
}

RQ_API rnic_err rq_palos_pop(rq_palos *p, rnic_work *out)
{
    if (!p)
        return RNIC_EINVAL;
    if (!out)
        return rq__palos_count(p, RNIC_EINVAL, RNIC_NONE, 0);
    if (rnic_ring_pop(&p->out, out) != RNIC_OK)
        return RNIC_EEMPTY; /* an empty port is the normal idle answer, not an error */
    if (--p->launch_len[p->launch_head] == 0u) { /* the launch's last record: its place frees */
        p->launch_head = p->launch_head + 1u == p->cfg.out_port ? 0u : p->launch_head + 1u;
        p->launch_count--;
    }
    RQ__PALOS_TRACE(p, RNIC_TRACE_POP, out->flow, out->tag, ((uint64_t)out->offset << 32) | out->len);
    return RNIC_OK;
}

RQ_API rnic_err rq_palos_peek(const rq_palos *p, rnic_work *out)
{
    const rnic_work *w;
    if (!p)
        return RNIC_EINVAL;
    if (!out) /* counted like pop's: the engine is the caller's, only the statistics change */
        return rq__palos_count((rq_palos *)(uintptr_t)p, RNIC_EINVAL, RNIC_NONE, 0);
    w = (const rnic_work *)rnic_ring_peek(&p->out);
    if (!w)
        return RNIC_EEMPTY;
    *out = *w;
    return RNIC_OK;
}

RQ_API uint64_t rq_palos_now(const rq_palos *p) { return p ? p->now : 0u; }
RQ_API uint64_t rq_palos_backlog(const rq_palos *p) { return p ? p->backlog : 0u; }
RQ_API const rq_palos_stats *rq_palos_get_stats(const rq_palos *p) { return p ? &p->stats : NULL; }
RQ_API const rq_pw *rq_palos_weights(const rq_palos *p) { return p ? &p->weights : NULL; }

RQ_API rnic_err rq_palos_qp_position(const rq_palos *p, uint32_t flow, uint32_t *head, uint32_t *offset)
{
    if (!p)
        return RNIC_EINVAL;
    if (flow >= p->cfg.weights.max_qps)
        return RNIC_ENOENT;
    if (head)
        *head = p->qps[flow].head;
    if (offset)
        *offset = p->qps[flow].offset;
    return RNIC_OK;
}

/* The next cycle at which a tick changes anything: true and *at (now when it is due now), or
 * false when nothing happens without new input. Every case is O(1). */
static bool rq__palos_next(const rq_palos *p, uint64_t *at)
{
    const rq_palos_visit *v = &p->visit;
    bool any = false;
    uint32_t k;
    *at = p->now;
    if (!rnic_ring_empty(&p->doorbells))
        return true;
    for (k = 0; k < 2u; k++)
        if (!rnic_ring_full(&p->slots[k]) && !rnic_ring_empty(&p->queue[k]))
            return true;
    if (!v->active && p->paused.active)
        return true; /* a paused visit resumes (or a latency batch goes first) */
    if (v->active) {
        if (!rq__palos_due(v->ready, p->now)) {
            *at = v->ready; /* the visit's next batch */
            return true;
        }
        if (v->left == 0u || (p->cfg.mode == RQ_PALOS_CHUNK && v->credit <= rq__palos_floor(p)))
            return true; /* the visit ends */
        return !rq__palos_port_full(p); /* a full port waits for a pop */
    }
    for (k = 0; k < 2u; k++) { /* the earliest head of the slot FIFOs (wrap-safe) */
        const rq_palos_slot *s = (const rq_palos_slot *)rnic_ring_peek(&p->slots[k]);
        if (!s)
            continue;
        if (rq__palos_due(s->ready, p->now)) {
            *at = p->now;
            return true;
        }
        if (!any || s->ready - p->now < *at - p->now)
            *at = s->ready;
        any = true;
    }
    return any;
}

RQ_API uint64_t rq_palos_next_event(const rq_palos *p)
{
    uint64_t at;
    if (!p)
        return RNIC_NEVER;
    return rq__palos_next(p, &at) ? at : RNIC_NEVER;
}

RQ_API uint64_t rq_palos_advance(rq_palos *p, uint64_t cycles)
{
    uint64_t ran = 0, at, skip;
    if (!p)
        return 0;
    while (ran < cycles) {
        bool has = rq__palos_next(p, &at);
        if (has && at == p->now) {
            bool was_full = rq__palos_port_full(p);
            rq_palos_tick(p);
            ran++;
            if (!was_full && rq__palos_port_full(p))
                break; /* the caller drains the port, then calls again */
            continue;
        }
        skip = cycles - ran;
        if (has && at - p->now < skip)
            skip = at - p->now;
        if (p->visit.active && rq__palos_due(p->visit.ready, p->now)) /* blocked on the output port */
            p->stats.out_stalls += skip;
        p->now += skip;
        p->stats.cycles += skip;
        ran += skip;
    }
    return ran;
}

RQ_API uint64_t rq_palos_advance_to(rq_palos *p, uint64_t cycle)
{
    if (!p)
        return 0;
    return rq_palos_advance(p, rnic_cycles_until(p->now, cycle));
}
