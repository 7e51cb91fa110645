/* The Palos chunk slicer (interface and workflow: palos_api.h; contract: docs/palos_model.md).
 * Tick path: 32-bit arithmetic only (one 32-bit divide per piece when packet_overhead is set),
 * no allocation, no floating point. */

enum { RQ__PALOS_IDLE = 0, RQ__PALOS_QUEUED = 1, RQ__PALOS_FETCHING = 2 };
#define RQ__PALOS_MAX_PIECE 0x80000000u /* 2^31: the largest WQE and the largest credit */

typedef struct rq__palos_db {
    uint32_t qp, tail;
} rq__palos_db;

RQ_API void rq_palos_config_default(rq_palos_config *cfg)
{
    rq_pw_config_default(&cfg->weights);
    cfg->mode = RQ_PALOS_CHUNK;
    cfg->ring_entries = 4096;
    cfg->doorbell_port = 64;
    cfg->out_port = 2;
    cfg->fetch_slots = 16;
    cfg->fetch_latency = 4;
    cfg->max_batch = 64;
    cfg->priority_max_msg = 4096;
    cfg->packet_overhead = 0;
}

static bool rq__palos_config_valid(const rq_palos_config *c)
{
    return c && rq_pw_mem_size(&c->weights) != 0 &&
           (uint64_t)c->weights.max_qps * c->weights.mtu <= ((uint64_t)1 << 30) && /* chunk <= N <= 2^30 */
           c->mode <= (uint32_t)RQ_PALOS_PACKET_RR && c->ring_entries >= 1u && c->ring_entries <= (1u << 24) &&
           c->doorbell_port >= 1u && c->doorbell_port <= (1u << 20) && c->out_port >= 1u && c->out_port <= (1u << 20) &&
           c->fetch_slots >= 1u && c->fetch_slots <= 4096u && c->fetch_latency <= (1u << 20) && c->max_batch >= 1u &&
           c->max_batch <= 4096u && c->priority_max_msg >= 1u && c->priority_max_msg <= (1u << 30) &&
           c->packet_overhead <= 4096u;
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
    RQ__PART(rnic_ring_mem_size(sizeof(rq__palos_db), c->doorbell_port),
             rnic_ring_init(&p->doorbells, sizeof(rq__palos_db), c->doorbell_port, mem + at, n));
    for (k = 0; k < 2u; k++) /* a QP is in at most one queue once: max_qps entries never overflow */
        RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), c->weights.max_qps),
                 rnic_ring_init(&p->queue[k], sizeof(uint32_t), c->weights.max_qps, mem + at, n));
    for (k = 0; k < 2u; k++)
        RQ__PART(rnic_ring_mem_size(sizeof(rq_palos_slot), c->fetch_slots),
                 rnic_ring_init(&p->slots[k], sizeof(rq_palos_slot), c->fetch_slots, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_palos_out), c->out_port),
             rnic_ring_init(&p->out, sizeof(rq_palos_out), c->out_port, mem + at, n));
#undef RQ__PART
    return off;
}

RQ_API size_t rq_palos_mem_size(const rq_palos_config *cfg)
{
    return rq__palos_config_valid(cfg) ? rq__palos_layout(cfg, NULL, NULL) : 0;
}

RQ_API rnic_err rq_palos_init(rq_palos *p, const rq_palos_config *cfg, void *mem, size_t size, rq_palos_wqe_fn fetch, void *ctx)
{
    size_t need;
    if (!p || !mem || !fetch || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || !rq__palos_config_valid(cfg))
        return RNIC_EINVAL;
    need = rq__palos_layout(cfg, NULL, NULL);
    if (need == 0)
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(p, 0, sizeof *p);
    RNIC_MEMSET(mem, 0, need);
    p->cfg = *cfg;
    p->fetch = fetch;
    p->ctx = ctx;
    (void)rq__palos_layout(cfg, p, (unsigned char *)mem);
    return RNIC_OK;
}

/* ---- control path ---- */

static rnic_err rq__palos_count(rq_palos *p, rnic_err e)
{
    return rnic_err_note(&p->stats.errors, e);
}

RQ_API rnic_err rq_palos_create_group(rq_palos *p, uint32_t group, uint32_t weight)
{
    return rq__palos_count(p, rq_pw_create_group(&p->weights, group, weight));
}

RQ_API rnic_err rq_palos_set_group_weight(rq_palos *p, uint32_t group, uint32_t weight)
{
    return rq__palos_count(p, rq_pw_set_group_weight(&p->weights, group, weight));
}

RQ_API rnic_err rq_palos_set_qp(rq_palos *p, uint32_t qp, uint32_t group, uint32_t weight, uint32_t cls)
{
    rnic_err e;
    if (cls > (uint32_t)RQ_PALOS_LATENCY)
        return rq__palos_count(p, RNIC_EINVAL);
    e = rq_pw_set_qp(&p->weights, qp, group, weight);
    if (e == RNIC_OK)
        p->qps[qp].cls = (uint8_t)cls;
    return rq__palos_count(p, e);
}

RQ_API rnic_err rq_palos_remove_qp(rq_palos *p, uint32_t qp)
{
    const rq_palos_qp *q;
    if (qp >= p->cfg.weights.max_qps || p->weights.qps[qp].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT);
    q = &p->qps[qp];
    if (q->where != RQ__PALOS_IDLE || q->posted != q->head)
        return rq__palos_count(p, RNIC_ESTATE);
    return rq__palos_count(p, rq_pw_remove_qp(&p->weights, qp));
}

RQ_API rnic_err rq_palos_doorbell(rq_palos *p, uint32_t qp, uint32_t tail)
{
    rq__palos_db db;
    const rq_palos_qp *q;
    uint32_t step;
    if (qp >= p->cfg.weights.max_qps || p->weights.qps[qp].group == RNIC_NONE)
        return rq__palos_count(p, RNIC_ENOENT);
    q = &p->qps[qp];
    step = tail - q->posted; /* ring counters wrap at 2^32 */
    if (step == 0u || step > 0x80000000u)
        return rq__palos_count(p, RNIC_ESTALE);
    if (tail - q->head > p->cfg.ring_entries)
        return rq__palos_count(p, RNIC_ENOSPC);
    if (rnic_ring_full(&p->doorbells))
        return rq__palos_count(p, RNIC_EBUSY);
    db.qp = qp;
    db.tail = tail;
    (void)rnic_ring_push(&p->doorbells, &db);
    p->qps[qp].posted = tail;
    p->backlog += step;
    return RNIC_OK;
}

/* ---- per-cycle modules ---- */

static void rq__palos_enqueue(rq_palos *p, uint32_t qp)
{
    rq_palos_qp *q = &p->qps[qp];
    uint32_t cls = p->cfg.mode == RQ_PALOS_PACKET_RR ? (uint32_t)RQ_PALOS_BANDWIDTH : q->cls;
    (void)rnic_ring_push(&p->queue[cls], &qp); /* cannot fail: one place per QP */
    q->where = RQ__PALOS_QUEUED;
}

static void rq__palos_doorbell_module(rq_palos *p)
{
    rq__palos_db db;
    rq_palos_qp *q;
    if (rnic_ring_pop(&p->doorbells, &db) != RNIC_OK)
        return;
    q = &p->qps[db.qp];
    q->tail = db.tail;
    p->stats.doorbells++;
    if (q->where == RQ__PALOS_IDLE)
        rq__palos_enqueue(p, db.qp);
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
    s.ready = p->now + p->cfg.fetch_latency;
    q->where = RQ__PALOS_FETCHING;
    (void)rnic_ring_push(&p->slots[cls], &s);
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
}

static void rq__palos_end_visit(rq_palos *p)
{
    rq_palos_visit *v = &p->visit;
    rq_palos_qp *q = &p->qps[v->qp];
    int64_t cap;
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
        return;
    }
    if (p->cfg.mode == RQ_PALOS_CHUNK && !v->latency) {
        /* carry the deficit of a small WQE sent whole past the chunk, or the surplus too small
         * to pay a packet's overhead; a surplus of at most one chunk plus one packet */
        cap = (int64_t)v->small + p->cfg.weights.mtu + p->cfg.packet_overhead;
        q->credit = v->credit < cap ? v->credit : cap;
    }
    rq__palos_enqueue(p, v->qp);
}

static bool rq__palos_wqe_ok(const rq_wqe *w)
{
    return w->len >= 1u && w->len <= RQ__PALOS_MAX_PIECE && w->len - 1u <= UINT64_MAX - w->addr; /* last byte <= 2^64-1 */
}

/* After a piece or an error record: does the visit go on, read another batch, or end? */
static void rq__palos_step_done(rq_palos *p, rq_palos_out *o, bool cut)
{
    rq_palos_visit *v = &p->visit;
    const rq_palos_qp *q = &p->qps[v->qp];
    bool end;
    bool error = (o->flags & RQ_OUT_ERROR) != 0u;
    if (p->cfg.mode == RQ_PALOS_PACKET_RR)
        end = !error || v->left == 0u; /* one packet per visit */
    else if (cut || (v->latency && !error) || v->credit <= rq__palos_floor(p))
        end = true; /* the chunk is used (a latency visit: one message) */
    else if (v->left == 0u && q->head != q->tail) {
        /* credit left and WQEs posted beyond the batch: read the next batch for this visit, so
         * that a chunk is never cut short by max_batch (Eq. 1 whatever the message size) */
        const rq_palos_slot *ls = (const rq_palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_LATENCY]);
        v->left = rq__palos_batch(p, q);
        v->ready = p->now + p->cfg.fetch_latency;
        p->stats.refetches++;
        end = false;
        if (!v->latency && !p->paused.active && ls && ls->ready <= p->now + 1u) {
            /* a latency batch is waiting: this long visit steps aside at its batch boundary
             * and resumes after it (strict priority without waiting out a whole chunk) */
            p->paused = *v;
            v->active = 0;
            p->stats.preemptions++;
            o->flags |= RQ_OUT_VISIT_END; /* the run of this QP's pieces ends here for now */
        }
    } else
        end = v->left == 0u;
    if (end)
        o->flags |= RQ_OUT_VISIT_END;
    (void)rnic_ring_push(&p->out, o);
    p->stats.out_wqes++;
    if (end)
        rq__palos_end_visit(p);
}

/* One output WQE per cycle. */
static void rq__palos_slice_module(rq_palos *p)
{
    rq_palos_visit *v = &p->visit;
    rq_palos_qp *q;
    rq_palos_out o;
    uint32_t rest, piece;
    rnic_err e;
    if (!v->active) { /* a ready latency batch, else a paused visit, else a ready bandwidth batch */
        const rq_palos_slot *s = (const rq_palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_LATENCY]);
        rq_palos_slot taken;
        uint32_t cls = RQ_PALOS_LATENCY;
        if ((!s || s->ready > p->now) && p->paused.active) {
            *v = p->paused;
            p->paused.active = 0;
        } else {
            if (!s || s->ready > p->now) {
                s = (const rq_palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_BANDWIDTH]);
                cls = RQ_PALOS_BANDWIDTH;
            }
            if (!s || s->ready > p->now)
                return;
            (void)rnic_ring_pop(&p->slots[cls], &taken);
            rq__palos_begin_visit(p, &taken);
        }
    }
    if (v->ready > p->now)
        return; /* waiting for the next batch of this visit */
    q = &p->qps[v->qp];
    if (v->left == 0u || (p->cfg.mode == RQ_PALOS_CHUNK && v->credit <= rq__palos_floor(p))) {
        rq__palos_end_visit(p); /* nothing to send this round (a deficit, or a chunk under a byte) */
        return;
    }
    if (rnic_ring_full(&p->out)) {
        p->stats.out_stalls++;
        return;
    }
    if (!v->have_wqe) {
        e = p->fetch(p->ctx, v->qp, q->head, &v->wqe);
        if (e == RNIC_OK && (!rq__palos_wqe_ok(&v->wqe) || q->offset >= v->wqe.len ||
                             (v->latency && q->offset == 0u && v->wqe.len > p->cfg.priority_max_msg)))
            e = RNIC_ERANGE; /* a latency-class WQE above priority_max_msg breaks §IV-C's limit (one
                                begun before the QP changed class is finished, cut to the limit) */
        if (e != RNIC_OK) {
            /* refused WQE: complete it with an error record so nothing is lost */
            RNIC_MEMSET(&o, 0, sizeof o);
            o.qp = v->qp;
            o.index = q->head;
            o.offset = q->offset; /* a WQE already begun ends here (its earlier pieces went out) */
            o.cycle = p->now;
            o.flags = (q->offset == 0u ? RQ_OUT_FIRST : 0u) | RQ_OUT_LAST | RQ_OUT_ERROR;
            q->head++;
            q->offset = 0;
            q->cut = 0;
            v->left--;
            p->backlog--;
            p->stats.bad_wqes++;
            (void)rnic_err_note(&p->stats.errors, e);
            rq__palos_step_done(p, &o, false);
            return;
        }
        v->have_wqe = 1;
    }
    rest = v->wqe.len - q->offset;
    if (p->cfg.mode == RQ_PALOS_PACKET_RR)
        piece = rest < p->cfg.weights.mtu ? rest : p->cfg.weights.mtu;
    else if (q->offset == 0u && v->wqe.len <= v->small)
        piece = rest; /* a WQE no larger than the chunk goes whole (combined), never cut (§IV-A) */
    else
        piece = rq__palos_affordable(p, (uint32_t)v->credit, rest); /* >= 1: credit > floor */
    o.addr = v->wqe.addr + q->offset;
    o.user = v->wqe.user;
    o.cycle = p->now;
    o.qp = v->qp;
    o.index = q->head;
    o.offset = q->offset;
    o.len = piece;
    o.wqe_flags = v->wqe.flags;
    o.flags = q->offset == 0u ? RQ_OUT_FIRST : 0u;
    if (p->cfg.mode == RQ_PALOS_CHUNK)
        v->credit -= rq__palos_charge(p, piece);
    p->stats.out_bytes += piece;
    if (piece == rest) {
        o.flags |= RQ_OUT_LAST;
        if (q->cut)
            p->stats.cut_wqes++;
        q->head++;
        q->offset = 0;
        q->cut = 0;
        v->left--;
        v->have_wqe = 0;
        v->emitted_wqes++;
        p->backlog--;
        p->stats.wqes_done++;
    } else {
        q->offset += piece;
        q->cut = 1;
    }
    rq__palos_step_done(p, &o, piece != rest && p->cfg.mode == RQ_PALOS_CHUNK);
}

RQ_API void rq_palos_tick(rq_palos *p)
{
    /* back to front: each module sees what the one before it did in the previous cycle */
    rq__palos_slice_module(p);
    rq__palos_fetch_module(p);
    rq__palos_doorbell_module(p);
    p->now++;
    p->stats.cycles++;
}

RQ_API rnic_err rq_palos_pop(rq_palos *p, rq_palos_out *out)
{
    if (!out)
        return rq__palos_count(p, RNIC_EINVAL);
    return rnic_ring_pop(&p->out, out); /* an empty port is the normal idle answer, not an error */
}

RQ_API const rq_palos_out *rq_palos_peek(const rq_palos *p) { return (const rq_palos_out *)rnic_ring_peek(&p->out); }
RQ_API uint64_t rq_palos_now(const rq_palos *p) { return p->now; }
RQ_API uint64_t rq_palos_backlog(const rq_palos *p) { return p->backlog; }
RQ_API const rq_palos_stats *rq_palos_get_stats(const rq_palos *p) { return &p->stats; }
RQ_API const rq_pw *rq_palos_weights(const rq_palos *p) { return &p->weights; }

RQ_API rnic_err rq_palos_qp_position(const rq_palos *p, uint32_t qp, uint32_t *head, uint32_t *offset)
{
    if (qp >= p->cfg.weights.max_qps)
        return RNIC_ENOENT;
    if (head)
        *head = p->qps[qp].head;
    if (offset)
        *offset = p->qps[qp].offset;
    return RNIC_OK;
}

RQ_API uint64_t rq_palos_next_event(const rq_palos *p)
{
    const rq_palos_visit *v = &p->visit;
    uint64_t best = RQ_NEVER;
    uint32_t k;
    if (!rnic_ring_empty(&p->doorbells))
        return p->now;
    for (k = 0; k < 2u; k++)
        if (!rnic_ring_full(&p->slots[k]) && !rnic_ring_empty(&p->queue[k]))
            return p->now;
    if (!v->active && p->paused.active)
        return p->now; /* a paused visit resumes (or a latency batch goes first) */
    if (v->active) {
        if (v->ready > p->now)
            return v->ready; /* the visit's next batch */
        if (v->left == 0u || (p->cfg.mode == RQ_PALOS_CHUNK && v->credit <= rq__palos_floor(p)))
            return p->now; /* the visit ends */
        return rnic_ring_full(&p->out) ? RQ_NEVER : p->now;
    }
    for (k = 0; k < 2u; k++) {
        const rq_palos_slot *s = (const rq_palos_slot *)rnic_ring_peek(&p->slots[k]);
        if (s && s->ready < best)
            best = s->ready;
    }
    return best == RQ_NEVER || best > p->now ? best : p->now;
}

RQ_API void rq_palos_advance(rq_palos *p, uint64_t cycles)
{
    uint64_t target = cycles > RQ_NEVER - p->now ? RQ_NEVER : p->now + cycles; /* saturate */
    while (p->now < target) {
        uint64_t ne = rq_palos_next_event(p), skip;
        if (ne <= p->now) {
            rq_palos_tick(p);
            continue;
        }
        skip = (ne < target ? ne : target) - p->now;
        if (p->visit.active && p->visit.ready <= p->now) /* blocked on the output port */
            p->stats.out_stalls += skip;
        p->now += skip;
        p->stats.cycles += skip;
    }
}
