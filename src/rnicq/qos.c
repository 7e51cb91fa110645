/* The RED-SEA QoS engine (interface: qos_api.h; cycle semantics: docs/rnicq_qos_model.md):
 * configuration and memory; the AXI write path (AW FIFO -> write-data stage -> per-domain
 * accumulators -> Transfer Table -> validation -> status BUSY -> enqueue into the scheduling
 * FIFOs); AXI status reads; the 3-stage segmenter; the message handler; the timeout scanner
 * and retransmission. */

RQ_API void rq_qos_config_default(rq_qos_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = 150000000ull;
    cfg->domains = 16;
    cfg->write_channels = 64;
    cfg->read_channels = 64;
    cfg->intra_priorities = 16;
    cfg->block_bytes = 65536;
    cfg->max_outstanding = 2;
    rq_ids_config_default(&cfg->ids);
    cfg->accumulators = 16; /* one set per domain */
    cfg->aw_fifo = 8;
    cfg->b_fifo = 8;
    cfg->read_port = 8;
    cfg->transaction_port = 4;
    cfg->packet_queue = 16;
    cfg->response_port = 8;
    cfg->seq_bits = 12;
    cfg->timeout_ns = 20000; /* §2: 20 us (3,000 cycles at 150 MHz) */
    cfg->retry_limit = 3;
    cfg->remote_port = 8;
    cfg->trace_id = RNIC_ENGINE_QOS;
}

#define RQ__MAX_CLOCK_HZ 1000000000000ull           /* 1 THz: ns x clock_hz stays in 128 bits */
#define RQ__MAX_TIMEOUT ((uint64_t)1 << 40)         /* cycles: wrap-safe comparisons need < 2^63 */

/* The retransmission timeout in cycles: timeout_ns at clock_hz, to the nearest cycle. */
static uint64_t rq__timeout_of(const rq_qos_config *c) { return rnic_ns_to_cycles(c->timeout_ns, c->clock_hz); }

RQ_API rnic_err rq_qos_config_check(const rq_qos_config *c, const char **field)
{
    uint64_t timeout;
#define RQ__BAD(cond, name, err)                    \
    do {                                            \
        if (cond)                                   \
            return rnic_config_bad(field, name, err); \
    } while (0)
    RQ__BAD(!c, "cfg", RNIC_EINVAL);
    RQ__BAD(c->clock_hz < 1000000u || c->clock_hz > RQ__MAX_CLOCK_HZ, "clock_hz", RNIC_EINVAL);
    RQ__BAD(c->domains == 0 || c->domains > 1024u, "domains", RNIC_EINVAL);
    RQ__BAD(c->write_channels == 0 || c->write_channels % 32u, "write_channels", RNIC_EINVAL);
    RQ__BAD(c->read_channels == 0, "read_channels", RNIC_EINVAL);
    RQ__BAD((uint64_t)c->domains * ((uint64_t)c->write_channels + c->read_channels) > ((uint64_t)1 << 20) ||
                rq_status_mem_size(c->domains, c->write_channels) == 0,
            "write_channels", RNIC_EINVAL); /* domains x channels: at most 2^20 lines */
    RQ__BAD(c->intra_priorities == 0 || c->intra_priorities > 16u, "intra_priorities", RNIC_EINVAL);
    RQ__BAD(c->block_bytes < 64u || c->block_bytes > ((uint32_t)1 << 30) || (c->block_bytes & (c->block_bytes - 1u)),
            "block_bytes", RNIC_EINVAL);
    RQ__BAD(rq_ids_mem_size(&c->ids) == 0, "ids", RNIC_EINVAL);
    RQ__BAD(c->max_outstanding == 0 || c->max_outstanding > 15u, "max_outstanding", RNIC_EINVAL); /* 4-bit counter */
    RQ__BAD(c->accumulators != 1u && c->accumulators != c->domains, "accumulators", RNIC_EINVAL);
    RQ__BAD(c->aw_fifo == 0, "aw_fifo", RNIC_EINVAL);
    RQ__BAD(c->b_fifo == 0, "b_fifo", RNIC_EINVAL);
    RQ__BAD(c->read_port == 0, "read_port", RNIC_EINVAL);
    RQ__BAD(c->transaction_port == 0, "transaction_port", RNIC_EINVAL);
    RQ__BAD(c->packet_queue == 0, "packet_queue", RNIC_EINVAL);
    RQ__BAD(c->response_port == 0, "response_port", RNIC_EINVAL);
    RQ__BAD(c->remote_port == 0, "remote_port", RNIC_EINVAL);
    RQ__BAD(c->seq_bits < 2u || c->seq_bits > 16u, "seq_bits", RNIC_EINVAL);
    timeout = rq__timeout_of(c);
    RQ__BAD(timeout == 0 || timeout > RQ__MAX_TIMEOUT, "timeout_ns", RNIC_EINVAL);
    RQ__BAD(c->retry_limit > 255u, "retry_limit", RNIC_EINVAL);
#undef RQ__BAD
    return RNIC_OK;
}

static bool rq__qos_config_valid(const rq_qos_config *c) { return rq_qos_config_check(c, NULL) == RNIC_OK; }

static size_t rq__qos_layout(const rq_qos_config *c, rq_qos *q, unsigned char *mem)
{
    size_t off = 0, at, n;
    uint32_t lines = c->domains * (c->write_channels + c->read_channels);
    rnic_ssfifo_config fc;
    fc.nqueues = 2u + 4u * c->intra_priorities;
    fc.nentries = lines;
#define RQ__PART(bytes, then)                               \
    do {                                                    \
        n = (bytes);                                        \
        if (n == 0 || !rnic__mem_reserve(&off, n, 1, &at))  \
            return 0;                                       \
        if (q) {                                            \
            then;                                           \
        }                                                   \
    } while (0)
    RQ__PART((size_t)lines * 4u * sizeof(uint64_t), q->table = (uint64_t *)(void *)(mem + at));
    RQ__PART(lines, q->occupied = mem + at);
    RQ__PART((size_t)c->accumulators * sizeof(rq_accumulator), q->acc = (rq_accumulator *)(void *)(mem + at));
    RQ__PART(rnic_ssfifo_mem_size(&fc), rnic_ssfifo_init(&q->sched, &fc, mem + at, n));
    RQ__PART(rq_ids_mem_size(&c->ids), rq_ids_init(&q->ids, &c->ids, mem + at, n));
    RQ__PART(rq_status_mem_size(c->domains, c->write_channels),
             rq_status_init(&q->status, c->domains, c->write_channels, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_beat), c->aw_fifo), rnic_ring_init(&q->aw, sizeof(rq_axi_beat), c->aw_fifo, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_bresp), c->b_fifo), rnic_ring_init(&q->b, sizeof(rq_axi_bresp), c->b_fifo, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_read), c->read_port), rnic_ring_init(&q->rd, sizeof(rq_axi_read), c->read_port, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_rdata), c->read_port), rnic_ring_init(&q->r, sizeof(rq_axi_rdata), c->read_port, mem + at, n));
    RQ__PART((size_t)lines * sizeof(rq_meta), q->meta = (rq_meta *)(void *)(mem + at));
    RQ__PART((size_t)lines * sizeof(rq_xfer), q->xfer = (rq_xfer *)(void *)(mem + at));
    RQ__PART((size_t)2u * c->ids.tids * sizeof(rq_pend), q->pend = (rq_pend *)(void *)(mem + at));
    RQ__PART((size_t)RNIC_BITMAP_WORDS(2u * c->ids.tids) * sizeof(uint64_t), q->due_map = (uint64_t *)(void *)(mem + at));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_block_desc), c->transaction_port),
             rnic_ring_init(&q->tx, sizeof(rq_block_desc), c->transaction_port, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_packet), c->packet_queue), rnic_ring_init(&q->pkt, sizeof(rq_packet), c->packet_queue, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_response), c->response_port),
             rnic_ring_init(&q->resp, sizeof(rq_response), c->response_port, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), 2u * c->ids.tids), rnic_ring_init(&q->retx, sizeof(uint32_t), 2u * c->ids.tids, mem + at, n));
    RQ__PART(rnic_ring_mem_size(2u * sizeof(uint32_t), 3u * c->ids.tids),
             rnic_ring_init(&q->id_returns, 2u * sizeof(uint32_t), 3u * c->ids.tids, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_remote_read), c->remote_port),
             rnic_ring_init(&q->remote, sizeof(rq_remote_read), c->remote_port, mem + at, n));
#undef RQ__PART
    return off;
}

RQ_API size_t rq_qos_mem_size(const rq_qos_config *cfg)
{
    return rq__qos_config_valid(cfg) ? rq__qos_layout(cfg, NULL, NULL) : 0;
}

static bool rq__queue_takes_id(const rq_qos *q, uint32_t qi, rq_id_pool *pool);
static bool rq__queue_has_fid(const rq_qos *q, uint32_t qi);
static void rq__tid_back(rq_qos *q, uint32_t tid);

RQ_API rnic_err rq_qos_init(rq_qos *q, const rq_qos_config *cfg, void *mem, size_t size)
{
    size_t need;
    uint32_t d;
    rnic_err e = rq_qos_config_check(cfg, NULL);
    if (e != RNIC_OK)
        return e;
    if (!q || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)))
        return RNIC_EINVAL;
    need = rq__qos_layout(cfg, NULL, NULL);
    if (need == 0)
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(q, 0, sizeof *q);
    RNIC_MEMSET(mem, 0, need);
    q->cfg = *cfg;
    q->channels = cfg->write_channels + cfg->read_channels;
    q->lines = cfg->domains * q->channels;
    q->nqueues = 2u + 4u * cfg->intra_priorities;
    rq__qos_layout(cfg, q, (unsigned char *)mem);
    for (d = 0; d < cfg->accumulators; d++)
        q->acc[d].line = q->acc[d].expect_line = RNIC_NONE;
    q->remote_line = RNIC_NONE;
    while (((uint32_t)1 << q->pend_shift) < 2u * cfg->ids.tids)
        q->pend_shift++;
    while (((uint32_t)1 << q->block_shift) < cfg->block_bytes)
        q->block_shift++;
    for (d = 0; d < 2u * cfg->ids.tids; d++)
        q->pend[d].armed_prev = q->pend[d].armed_next = RNIC_NONE;
    q->armed_head = q->armed_tail = RNIC_NONE;
    q->timeout = rq__timeout_of(cfg);
    q->now = cfg->start_cycle;
    q->s1_pick = RNIC_NONE;
    for (d = 0; d < q->nqueues; d++) {
        rq_id_pool pool = RQ_POOL_TID;
        uint32_t cls = rq__queue_takes_id(q, d, &pool) ? (uint32_t)pool : rq__queue_has_fid(q, d) ? 3u : 4u;
        if (cls < 4u)
            q->queue_class[cls][d >> 6] |= (uint64_t)1 << (d & 63u);
    }
    for (d = 0; d < 8u; d++) { /* the queues closed by each set of unavailable pools */
        uint32_t pool;
        for (pool = 0; pool < 3u; pool++)
            if ((d >> pool) & 1u) {
                q->pool_closed[d][0] |= q->queue_class[pool][0];
                q->pool_closed[d][1] |= q->queue_class[pool][1];
            }
    }
    rnic_trace_set(&q->trace, cfg->trace, cfg->trace_user);
    q->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_QOS;
    return RNIC_OK;
}

RQ_API uint64_t rq_qos_now(const rq_qos *q) { return q ? q->now : 0; }
RQ_API uint64_t rq_qos_timeout_cycles(const rq_qos *q) { return q ? q->timeout : 0; }

/* Trace points cost one branch when tracing is off. */
#define RQ__TRACE(q, kind, id, a, b)                     \
    do {                                                 \
        if ((q)->trace.fn)                               \
            rq__trace((q), (kind), (id), (a), (b));       \
    } while (0)

static void rq__trace(rq_qos *q, uint32_t kind, uint32_t id, uint64_t a, uint64_t b)
{
    rnic_trace_emit(&q->trace, q->now, q->trace_id, (uint16_t)kind, id, a, b);
}

/* Outputs are pushed (room checked by the caller) and traced in one place. */
static void rq__emit_block(rq_qos *q, const rq_block_desc *b)
{
    rnic_ring_push_n(&q->tx, b, sizeof *b);
    RQ__TRACE(q, RNIC_TRACE_OUT, b->transfer, ((uint64_t)b->tid << 32) | b->seq, ((uint64_t)b->offset << 32) | b->size);
}

static void rq__emit_packet(rq_qos *q, const rq_packet *pk)
{
    rnic_ring_push_n(&q->pkt, pk, sizeof *pk);
    RQ__TRACE(q, RNIC_TRACE_OUT, pk->transfer, ((uint64_t)pk->tid << 32) | pk->seq, ((uint64_t)pk->kind << 32) | pk->size);
}

/* A refused input: counted (port_full too for back-pressure) and traced. */
static rnic_err rq__refuse(rq_qos *q, rnic_err e, uint32_t id, uint64_t value)
{
    if (e == RNIC_EBUSY)
        q->stats.port_full++;
    rnic_err_note(&q->stats.errors, e);
    RQ__TRACE(q, RNIC_TRACE_REFUSE, id, (uint64_t)e, value);
    return e;
}

/* Wrap-safe "cycle a is after cycle b" (cycles within 2^63 of each other). */
static bool rq__after(uint64_t a, uint64_t b) { return (int64_t)(a - b) > 0; }
RQ_API const rq_qos_stats *rq_qos_get_stats(const rq_qos *q) { return q ? &q->stats : NULL; }
RQ_API bool rq_qos_ready(const rq_qos *q) { return q && rq_ids_ready(&q->ids); }
RQ_API uint32_t rq_qos_free_ids(const rq_qos *q, rq_id_pool pool) { return q ? rq_ids_free_count(&q->ids, pool) : 0; }
RQ_API uint32_t rq_qos_space_axi_write(const rq_qos *q) { return q ? rnic_ring_space(&q->aw) : 0; }
RQ_API uint32_t rq_qos_space_axi_read(const rq_qos *q) { return q ? rnic_ring_space(&q->rd) : 0; }
RQ_API uint32_t rq_qos_space_response(const rq_qos *q) { return q ? rnic_ring_space(&q->resp) : 0; }
RQ_API uint32_t rq_qos_space_remote_read(const rq_qos *q) { return q ? rnic_ring_space(&q->remote) : 0; }

/* The accumulator set a domain's beats go to (one per domain, or the thesis's single set). */
static rq_accumulator *rq__acc(const rq_qos *q, uint32_t domain)
{
    return &q->acc[q->cfg.accumulators == 1u ? 0u : domain];
}

RQ_API bool rq_qos_domain_idle(const rq_qos *q, uint32_t domain)
{
    const rq_accumulator *a;
    if (!q || domain >= q->cfg.domains)
        return false;
    a = rq__acc(q, domain);
    return a->line == RNIC_NONE && a->expect_line == RNIC_NONE;
}

RQ_API rq_status rq_qos_channel_status(const rq_qos *q, uint32_t domain, uint32_t channel)
{
    if (!q || domain >= q->cfg.domains || channel >= q->cfg.write_channels)
        return RQ_IDLE;
    return rq_status_peek(&q->status, domain, channel);
}

RQ_API uint32_t rq_qos_queue_of(const rq_qos *q, const rq_transfer *t)
{
    uint32_t p, prio;
    if (!q || !t)
        return RNIC_NONE;
    p = q->cfg.intra_priorities;
    prio = t->prio < p ? t->prio : p - 1u;
    if (t->kind == RQ_KIND_INLINE || !t->cm)
        return RQ_QUEUE_TID_ONLY;
    /* 2 .. 2+P-1: 1xFID have-FID; then 1xFID no-FID; 4xFID have-FID; 4xFID no-FID */
    return 2u + (t->multipath ? 3u : 1u) * p + prio;
}

/* ---- inputs ---- */


/* The descriptor decoded once, when it is accepted (validated there). */
static void rq__xfer_set(rq_qos *q, uint32_t line, const rq_transfer *t, uint32_t nlines)
{
    rq_xfer *x = &q->xfer[line];
    uint32_t p = q->cfg.intra_priorities;
    RNIC_MEMSET(x, 0, sizeof *x);
    x->is_inline = t->kind == RQ_KIND_INLINE;
    x->cm = t->cm;
    x->multipath = t->multipath;
    x->notify = t->notify;
    x->prio = (uint8_t)(t->prio < p ? t->prio : p - 1u);
    x->nlines = (uint8_t)nlines;
    x->extra_read = x->is_inline && t->size > 8u;
    if (x->is_inline) {
        x->total = 1;
        x->first = x->last = (uint32_t)t->size;
    } else {
        rq_block_plan plan;
        RNIC_MEMSET(&plan, 0, sizeof plan);
        rq_block_plan_make(t->dst, t->size, q->cfg.block_bytes, &plan); /* valid: checked at accept */
        x->total = (uint32_t)plan.total; /* <= 2^32 / 64 + 1 */
        x->first = plan.first;
        x->last = plan.last;
    }
}

/* A fresh metadata entry for a transfer accepted on its line; the line's transfer count
 * carries over (the thesis avoids this write with a first-block bit carried in the
 * scheduling FIFO entry, §3.9.1; the effect is the same). */
static void rq__meta_start(rq_meta *m)
{
    uint32_t index = m->next_index;
    RNIC_MEMSET(m, 0, sizeof *m);
    m->index = index;
    m->next_index = index + 1u;
}

RQ_API rnic_err rq_qos_axi_write(rq_qos *q, uint32_t domain, uint32_t addr, const uint64_t data[2], uint32_t bytes)
{
    rq_axi_beat b;
    if (!q)
        return RNIC_EINVAL;
    if (!data)
        return rq__refuse(q, RNIC_EINVAL, addr >> 5, ((uint64_t)domain << 32) | addr);
    b.ready = q->now + 1u; /* the AW FIFO costs one cycle (§3.6.1 i) */
    b.data[0] = data[0];
    b.data[1] = bytes == 16u ? data[1] : 0;
    b.domain = domain;
    b.addr = addr;
    b.bytes = bytes;
    if (rnic_ring_push_n(&q->aw, &b, sizeof b) != RNIC_OK)
        return rq__refuse(q, RNIC_EBUSY, addr >> 5, ((uint64_t)domain << 32) | addr);
    RQ__TRACE(q, RNIC_TRACE_PUSH, addr >> 5, ((uint64_t)domain << 32) | addr, bytes);
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_axi_read(rq_qos *q, uint32_t domain, uint32_t page, uint32_t index, uint32_t mode)
{
    rq_axi_read rd;
    if (!q)
        return RNIC_EINVAL;
    rd.ready = q->now + 1u;
    rd.domain = domain;
    rd.page = page;
    rd.index = index;
    rd.mode = mode;
    if (rnic_ring_push_n(&q->rd, &rd, sizeof rd) != RNIC_OK)
        return rq__refuse(q, RNIC_EBUSY, domain, ((uint64_t)page << 32) | index);
    RQ__TRACE(q, RNIC_TRACE_PUSH, domain, ((uint64_t)page << 32) | index, mode);
    return RNIC_OK;
}

/* A NULL record given to a peek: counted like a pop's (the engine is the caller's; only the
 * statistics change, as for every refused call). */
static rnic_err rq__peek_null(const rq_qos *q)
{ /* counted and traced like any refused call: the engine is the caller's, only statistics change */
    return rq__refuse((rq_qos *)(uintptr_t)q, RNIC_EINVAL, RNIC_NONE, 0);
}

/* Copy the oldest record of an output ring (RNIC_EINVAL for a NULL record). */
static rnic_err rq__peek_ring(const rq_qos *q, const rnic_ring *ring, void *out, size_t size)
{
    const void *head;
    if (!out)
        return rq__peek_null(q);
    head = rnic_ring_peek(ring);
    if (!head)
        return RNIC_EEMPTY;
    RNIC_MEMCPY(out, head, size);
    return RNIC_OK;
}

/* Take the oldest record of an output ring; RNIC_EINVAL counted for a NULL record. */
static rnic_err rq__pop_ring(rq_qos *q, rnic_ring *ring, void *out, size_t size)
{
    if (!out)
        return rq__refuse(q, RNIC_EINVAL, RNIC_NONE, 0);
    return rnic_ring_pop_n(ring, out, size);
}

RQ_API rnic_err rq_qos_pop_bresp(rq_qos *q, rq_axi_bresp *out)
{
    rnic_err e = q ? rq__pop_ring(q, &q->b, out, sizeof *out) : RNIC_EINVAL;
    if (e == RNIC_OK)
        RQ__TRACE(q, RNIC_TRACE_POP, out->addr >> 5, (uint64_t)out->status, out->addr);
    return e;
}
RQ_API rnic_err rq_qos_peek_bresp(const rq_qos *q, rq_axi_bresp *out) { return q ? rq__peek_ring(q, &q->b, out, sizeof *out) : RNIC_EINVAL; }

RQ_API rnic_err rq_qos_pop_rdata(rq_qos *q, rq_axi_rdata *out)
{
    rnic_err e = q ? rq__pop_ring(q, &q->r, out, sizeof *out) : RNIC_EINVAL;
    if (e == RNIC_OK)
        RQ__TRACE(q, RNIC_TRACE_POP, 0, out->data, (uint64_t)out->status);
    return e;
}
RQ_API rnic_err rq_qos_peek_rdata(const rq_qos *q, rq_axi_rdata *out) { return q ? rq__peek_ring(q, &q->r, out, sizeof *out) : RNIC_EINVAL; }

/* ---- the AXI write-data stage: one beat per cycle ---- */

/* Why a beat is refused before it touches the accumulator (RNIC_OK: it may go on). */
static rnic_err rq__beat_check(const rq_qos *q, const rq_axi_beat *b, uint32_t *line_out, uint32_t *word_out)
{
    uint32_t word = (b->addr >> 3) & 3u, line = b->addr >> 5, channel;
    if ((b->addr & 7u) || (b->bytes != 8u && b->bytes != 16u) || (b->bytes == 16u && (word & 1u)))
        return RNIC_EALIGN; /* bad address bits or strobes */
    if (b->domain >= q->cfg.domains || line >= q->lines)
        return RNIC_ENOENT;
    channel = line % q->channels;
    if (line / q->channels != b->domain || channel >= q->cfg.write_channels)
        return RNIC_EPERM; /* another domain's page, or a read channel */
    if (q->occupied[line] || rq_status_peek(&q->status, b->domain, channel) != RQ_IDLE)
        return RNIC_EBUSY; /* a live transfer, or a finished one whose status is unread */
    *line_out = line;
    *word_out = word;
    return RNIC_OK;
}

static void rq__bresp(rq_qos *q, const rq_axi_beat *b, rnic_err status)
{
    rq_axi_bresp r;
    r.cycle = q->now;
    r.domain = b->domain;
    r.addr = b->addr;
    r.status = status;
    rnic_ring_push_n(&q->b, &r, sizeof r); /* room checked by the caller */
    q->stats.beats++;
    if (status != RNIC_OK) {
        q->stats.beats_refused++;
        rnic_err_note(&q->stats.errors, status);
        RQ__TRACE(q, RNIC_TRACE_REFUSE, b->addr >> 5, (uint64_t)status, b->addr);
    }
    RQ__TRACE(q, RNIC_TRACE_OUT, b->addr >> 5, (uint64_t)status, b->addr);
}

static void rq__write_stage(rq_qos *q)
{
    const rq_axi_beat *head = (const rq_axi_beat *)rnic_ring_peek(&q->aw);
    rq_axi_beat b;
    rq_accumulator a, *acc;
    rq_transfer t;
    uint32_t line = 0, word = 0, first, nlines, queue;
    rnic_err e;
    if (!head || rq__after(head->ready, q->now))
        return;
    if (rnic_ring_full(&q->b)) { /* no room for the response: the stage waits */
        q->stats.bresp_stalls++;
        return;
    }
    b = *head;
    e = rq__beat_check(q, &b, &line, &word);
    acc = rq__acc(q, b.domain < q->cfg.domains ? b.domain : 0u);
    a = *acc;
    if (e == RNIC_OK && (a.line != RNIC_NONE || a.expect_line != RNIC_NONE) && a.domain != b.domain)
        e = RNIC_ESTATE; /* the single accumulator set holds another domain's descriptor (§3.6.1 i:
                          * "the interrupting descriptor write receives BRESP = ERROR") */
    if (e == RNIC_OK && a.line != RNIC_NONE && a.line != line)
        e = RNIC_ESTATE; /* interleaved with another line of this domain's accumulator */
    if (e != RNIC_OK) {
        rnic_ring_pop(&q->aw, NULL);
        rq__bresp(q, &b, e);
        return;
    }
    a.line = line;
    a.domain = b.domain;
    a.words[word] = b.data[0];
    a.have |= 1u << word;
    if (b.bytes == 16u) {
        a.words[word + 1u] = b.data[1];
        a.have |= 2u << word;
    }
    if (a.have != 0xfu) { /* the line is not complete yet */
        *acc = a;
        rnic_ring_pop(&q->aw, NULL);
        rq__bresp(q, &b, RNIC_OK);
        return;
    }
    /* a complete line */
    a.line = RNIC_NONE;
    a.have = 0;
    if (a.expect_line != RNIC_NONE && line != a.expect_line) {
        e = RNIC_ESTATE; /* a descriptor's second line must follow its first (§3.6.1 ii) */
    } else if (a.expect_line == RNIC_NONE && !(a.words[3] & RQ_DESC_LAST_LINE)) {
        /* the first line of a two-line descriptor: its second channel must exist and be free */
        uint32_t ch = line % q->channels;
        if (ch + 1u >= q->cfg.write_channels)
            e = RNIC_EINVAL;
        else if (q->occupied[line + 1u] || rq_status_peek(&q->status, b.domain, ch + 1u) != RQ_IDLE)
            e = RNIC_EBUSY;
        if (e == RNIC_OK) {
            RNIC_MEMCPY(&q->table[(size_t)line * 4u], a.words, sizeof a.words);
            q->table_port_used = true;
            a.expect_line = line + 1u;
            *acc = a;
            q->stats.lines_written++;
            rnic_ring_pop(&q->aw, NULL);
            rq__bresp(q, &b, RNIC_OK);
            return;
        }
    }
    if (e != RNIC_OK) {
        a.expect_line = RNIC_NONE; /* the descriptor is abandoned */
        *acc = a;
        q->stats.descriptors_refused++;
        rnic_ring_pop(&q->aw, NULL);
        rq__bresp(q, &b, e);
        return;
    }
    /* the descriptor's last line: decode and validate */
    first = a.expect_line != RNIC_NONE ? line - 1u : line;
    nlines = a.expect_line != RNIC_NONE ? 2u : 1u;
    e = nlines == 2u ? rq_desc_decode(&q->table[(size_t)first * 4u], a.words, &t) : rq_desc_decode(a.words, NULL, &t);
    if (e == RNIC_OK && rq_desc_lines(nlines == 2u ? q->table[(size_t)first * 4u + 3u] : a.words[3]) != nlines)
        e = RNIC_EINVAL;
    if (e == RNIC_OK && t.kind == RQ_KIND_REGULAR && (t.dst > UINT64_MAX - t.size || t.src > UINT64_MAX - t.size))
        e = RNIC_ERANGE; /* the addresses would wrap */
    if (e != RNIC_OK) {
        a.expect_line = RNIC_NONE;
        *acc = a;
        q->stats.descriptors_refused++;
        rnic_ring_pop(&q->aw, NULL);
        rq__bresp(q, &b, e);
        return;
    }
    /* accepted: it needs the scheduling FIFO's enqueue port this cycle (third in priority) */
    if (q->enq_port_used) {
        q->stats.enqueue_stalls++;
        return; /* the beat stays; nothing changed */
    }
    queue = rq_qos_queue_of(q, &t);
    if (rnic_ssfifo_enqueue(&q->sched, queue, first) != RNIC_OK) {
        q->stats.enqueue_stalls++; /* the FIFO's port was taken after all: retry next cycle */
        return;
    }
    q->enq_port_used = true;
    RNIC_MEMCPY(&q->table[(size_t)line * 4u], a.words, sizeof a.words);
    q->table_port_used = true;
    rq__meta_start(&q->meta[first]);
    rq__xfer_set(q, first, &t, nlines);
    q->occupied[first] = 1;
    if (nlines == 2u)
        q->occupied[first + 1u] = 2;
    rq_status_set(&q->status, b.domain, first % q->channels, RQ_BUSY);
    a.expect_line = RNIC_NONE;
    *acc = a;
    q->stats.lines_written++;
    q->stats.descriptors++;
    q->stats.transfers_enqueued++;
    RQ__TRACE(q, RQ_QOS_TRACE_ACCEPT, first, queue, q->meta[first].index);
    rnic_ring_pop(&q->aw, NULL);
    rq__bresp(q, &b, RNIC_OK);
}

/* ---- the AXI read stage: one status read per cycle ---- */

static void rq__read_stage(rq_qos *q)
{
    const rq_axi_read *head = (const rq_axi_read *)rnic_ring_peek(&q->rd);
    rq_axi_rdata out;
    rq_status st = RQ_IDLE;
    if (!head || rq__after(head->ready, q->now) || rnic_ring_full(&q->r))
        return;
    out.cycle = q->now;
    out.data = 0;
    if (head->mode == 0u) {
        out.status = rq_status_read_one(&q->status, head->domain, head->page, head->index, &st);
        out.data = (uint64_t)st;
    } else if (head->mode == 1u) {
        out.status = rq_status_read32(&q->status, head->domain, head->page, head->index, &out.data);
    } else {
        out.status = RNIC_EINVAL;
    }
    if (out.status != RNIC_OK)
        rnic_err_note(&q->stats.errors, out.status);
    q->stats.status_reads++;
    RQ__TRACE(q, RNIC_TRACE_OUT, head->domain, out.data, (uint64_t)out.status);
    rnic_ring_pop(&q->rd, NULL);
    rnic_ring_push_n(&q->r, &out, sizeof out);
}

/* ---- timeout bookkeeping (fast-forward only: the timeout scanner itself is unchanged) ----
 * An entry is armed while valid, taken by the send unit and not queued for retransmission; it
 * is due from cycle issued + timeout on, and the scanner times it out at its first visit from
 * then on. Entries are armed only when the send unit takes them (issued = now), so arming order
 * is due order: a list (O(1) append and unlink) holds those not yet due; at the end of each
 * cycle the ones now due move to due_map, where the scanner will find them. next_event reads
 * the next timeout from both in O(1) plus a bitmap search (rq__next_timeout). */
#define RQ__ARMED_NO 0u
#define RQ__ARMED_LIST 1u
#define RQ__ARMED_DUE 2u

static void rq__disarm(rq_qos *q, uint32_t tid)
{
    rq_pend *pe = &q->pend[tid];
    if (pe->armed == RQ__ARMED_LIST) {
        if (pe->armed_prev != RNIC_NONE)
            q->pend[pe->armed_prev].armed_next = pe->armed_next;
        else
            q->armed_head = pe->armed_next;
        if (pe->armed_next != RNIC_NONE)
            q->pend[pe->armed_next].armed_prev = pe->armed_prev;
        else
            q->armed_tail = pe->armed_prev;
        pe->armed_prev = pe->armed_next = RNIC_NONE;
    } else if (pe->armed == RQ__ARMED_DUE) {
        rnic_bitmap_clear(q->due_map, tid);
        q->ndue--;
    }
    pe->armed = RQ__ARMED_NO;
}

/* After any change to pend[tid]. */
static void rq__timer_sync(rq_qos *q, uint32_t tid)
{
    rq_pend *pe = &q->pend[tid];
    uint64_t due;
    if (!(pe->valid && pe->taken && !pe->retx_queued)) {
        rq__disarm(q, tid);
        return;
    }
    due = pe->issued + q->timeout;
    if (pe->armed != RQ__ARMED_NO && pe->due == due)
        return;
    rq__disarm(q, tid);
    pe->due = due;
    /* arming happens when the send unit takes the entry (issued = now): due = now + timeout is
     * in the future and no armed entry is due later, so the list stays in due order */
    RNIC_ASSERT(rq__after(due, q->now));
    RNIC_ASSERT(q->armed_tail == RNIC_NONE || !rq__after(q->pend[q->armed_tail].due, due));
    pe->armed_prev = q->armed_tail;
    pe->armed_next = RNIC_NONE;
    if (q->armed_tail != RNIC_NONE)
        q->pend[q->armed_tail].armed_next = tid;
    else
        q->armed_head = tid;
    q->armed_tail = tid;
    pe->armed = RQ__ARMED_LIST;
}

/* End of a cycle (or of a skipped stretch): entries due by `now` move to due_map. */
static void rq__timers_due(rq_qos *q)
{
    while (q->armed_head != RNIC_NONE && !rq__after(q->pend[q->armed_head].due, q->now)) {
        uint32_t tid = q->armed_head;
        rq__disarm(q, tid);
        rnic_bitmap_set(q->due_map, tid);
        q->ndue++;
        q->pend[tid].armed = RQ__ARMED_DUE;
    }
}

/* The cycle of the next timeout if the scanner moves every cycle from now on (true in a quiet
 * stretch: only the handler's S1 makes it wait), or a lower bound of it; RNIC_NEVER if none. The
 * scanner stands on (scan + c - now) mod n at cycle c. Due entries: the first set bit from the
 * scanner on. Not yet due: the earliest one's first visit from its due cycle on, exact; any other
 * fires no earlier than its own due cycle, so the second one's due cycle bounds the rest (there
 * both have moved to due_map and the answer is exact again). */
static uint64_t rq__next_timeout(const rq_qos *q)
{
    uint64_t n = 2u * q->cfg.ids.tids, fire = RNIC_NEVER, f;
    uint32_t h = q->armed_head;
    if (q->ndue) {
        uint32_t i = rnic_bitmap_ffs_from(q->due_map, (uint32_t)n, q->scan);
        fire = q->now + (((uint64_t)i - q->scan) & (n - 1u));
    }
    if (h != RNIC_NONE) {
        const rq_pend *pe = &q->pend[h];
        f = pe->due + (((uint64_t)h - (q->scan + (pe->due - q->now))) & (n - 1u));
        if (fire == RNIC_NEVER || rq__after(fire, f))
            fire = f;
        if (pe->armed_next != RNIC_NONE && rq__after(fire, q->pend[pe->armed_next].due))
            fire = q->pend[pe->armed_next].due;
    }
    return fire;
}

/* ---- outputs and the network port ---- */

RQ_API rnic_err rq_qos_push_remote_read(rq_qos *q, uint32_t domain, const rq_transfer *t)
{
    rq_remote_read rr;
    if (!q)
        return RNIC_EINVAL;
    if (domain >= q->cfg.domains)
        return rq__refuse(q, RNIC_ENOENT, domain, t ? t->src : 0);
    if (!t || rq_desc_encode(t, rr.lines, rr.lines + 4) != RNIC_OK ||
        (t->kind == RQ_KIND_REGULAR && (t->dst > UINT64_MAX - t->size || t->src > UINT64_MAX - t->size)))
        return rq__refuse(q, RNIC_EINVAL, domain, t ? t->src : 0);
    rr.domain = domain;
    rr.nlines = rq_desc_lines(rr.lines[3]);
    if (rnic_ring_push(&q->remote, &rr) != RNIC_OK)
        return rq__refuse(q, RNIC_EBUSY, domain, t->src);
    RQ__TRACE(q, RNIC_TRACE_PUSH, domain, t->src, t->size);
    return RNIC_OK;
}

/* The handler, in a cycle in which it is in its ready state and takes no response, places the
 * oldest remote read request: it reserves the first free read channel(s) of the request's domain,
 * writes the descriptor through Transfer Table port 0, one line per cycle in which the AXI write
 * stage writes none (§3.1: port 0 takes the local and the remote CPUs' descriptor writes; local
 * first), and enqueues it with its last line (the lowest enqueue priority). */
static void rq__remote_stage(rq_qos *q)
{
    const rq_remote_read *rr = (const rq_remote_read *)rnic_ring_peek(&q->remote);
    uint32_t base, ch, line = q->remote_line;
    rq_transfer t;
    bool last;
    if (!rr || q->mh.state != 0u || q->mh.s3_ran)
        return;
    if (line == RNIC_NONE) {
        base = rr->domain * q->channels;
        for (ch = q->cfg.write_channels; ch + rr->nlines <= q->channels; ch++)
            if (!q->occupied[base + ch] && (rr->nlines == 1u || !q->occupied[base + ch + 1u])) {
                line = base + ch;
                break;
            }
        if (line == RNIC_NONE) {
            q->stats.remote_waits++;
            return;
        }
        q->remote_line = line; /* reserved: read channels take no AXI writes */
        q->remote_written = 0;
        q->occupied[line] = 1;
        if (rr->nlines == 2u)
            q->occupied[line + 1u] = 2;
    }
    if (q->table_port_used) {
        q->stats.table_port_waits++;
        q->stats.remote_waits++;
        return;
    }
    last = q->remote_written + 1u == rr->nlines; /* the last line goes with the enqueue */
    if (last) {
        rq_desc_decode(rr->lines, rr->nlines == 2u ? rr->lines + 4 : NULL, &t);
        if (q->enq_port_used || rnic_ssfifo_enqueue(&q->sched, rq_qos_queue_of(q, &t), line) != RNIC_OK) {
            q->stats.remote_waits++;
            return;
        }
        q->enq_port_used = true;
    }
    RNIC_MEMCPY(&q->table[(size_t)(line + q->remote_written) * 4u], rr->lines + 4u * q->remote_written, 4u * sizeof(uint64_t));
    q->table_port_used = true;
    q->remote_written++;
    if (!last)
        return;
    rq__meta_start(&q->meta[line]);
    rq__xfer_set(q, line, &t, rr->nlines);
    q->remote_line = RNIC_NONE;
    q->stats.remote_reads++;
    q->stats.transfers_enqueued++;
    RQ__TRACE(q, RQ_QOS_TRACE_REMOTE, line, rq_qos_queue_of(q, &t), q->meta[line].index);
    rnic_ring_pop(&q->remote, NULL);
}

RQ_API rnic_err rq_qos_push_response(rq_qos *q, const rq_response *r)
{
    if (!q)
        return RNIC_EINVAL;
    if (!r)
        return rq__refuse(q, RNIC_EINVAL, 0, 0);
    if (rnic_ring_push_n(&q->resp, r, sizeof *r) != RNIC_OK)
        return rq__refuse(q, RNIC_EBUSY, r->tid, r->seq);
    RQ__TRACE(q, RNIC_TRACE_PUSH, r->tid, r->seq, r->ack);
    return RNIC_OK;
}

/* The timeout counts from when the send unit takes a block (or an inline packet), not from when
 * the segmenter queued it: a backlog in front of the send unit is not a lost block. */
static void rq__taken_by_send_unit(rq_qos *q, uint32_t tid, uint32_t seq)
{
    if (tid < 2u * q->cfg.ids.tids && q->pend[tid].valid && q->pend[tid].seq == seq) {
        q->pend[tid].issued = q->now;
        q->pend[tid].taken = 1;
        rq__timer_sync(q, tid);
    }
}

static void rq__block_to_work(const rq_block_desc *b, rnic_work *w)
{
    w->tag = 0; /* every field is written: an AXI descriptor carries no tag */
    w->status = 0;
    w->cycle = b->cycle;
    w->addr = b->src;
    w->raddr = b->dst;
    w->flow = b->transfer;
    w->index = b->index;
    w->offset = b->offset;
    w->len = b->size;
    w->op = b->seq;
    w->aux = b->tid;
    w->flags = (b->block == 0u ? RNIC_WORK_FIRST : 0u) | (b->last ? RNIC_WORK_LAST : 0u) |
               (b->retransmit ? RQ_WORK_RETRANSMIT : 0u) | (b->notify ? RQ_WORK_NOTIFY : 0u) |
               (b->chained ? RQ_WORK_CHAINED : 0u) | (b->has_next ? RQ_WORK_HAS_NEXT : 0u) | (b->cm ? RQ_WORK_CM : 0u);
}

RQ_API rnic_err rq_qos_peek_block(const rq_qos *q, rnic_work *out)
{
    const rq_block_desc *b;
    if (!q)
        return RNIC_EINVAL;
    if (!out)
        return rq__peek_null(q);
    b = (const rq_block_desc *)rnic_ring_peek(&q->tx);
    if (!b)
        return RNIC_EEMPTY;
    rq__block_to_work(b, out);
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_pop_block(rq_qos *q, rnic_work *out)
{
    rnic_err e = rq_qos_peek_block(q, out); /* a NULL record is counted there */
    if (e == RNIC_OK) {
        rnic_ring_pop(&q->tx, NULL);
        RQ__TRACE(q, RNIC_TRACE_POP, out->flow, ((uint64_t)out->aux << 32) | out->op, ((uint64_t)out->offset << 32) | out->len);
        rq__taken_by_send_unit(q, out->aux, out->op);
    }
    return e;
}

RQ_API rnic_err rq_qos_peek_packet(const rq_qos *q, rq_packet *out) { return q ? rq__peek_ring(q, &q->pkt, out, sizeof *out) : RNIC_EINVAL; }

RQ_API rnic_err rq_qos_pop_packet(rq_qos *q, rq_packet *out)
{
    rnic_err e = q ? rq__pop_ring(q, &q->pkt, out, sizeof *out) : RNIC_EINVAL;
    if (e == RNIC_OK) {
        RQ__TRACE(q, RNIC_TRACE_POP, out->transfer, ((uint64_t)out->tid << 32) | out->seq, ((uint64_t)out->kind << 32) | out->size);
        if (out->kind == RQ_PKT_INLINE)
            rq__taken_by_send_unit(q, out->tid, out->seq);
    }
    return e;
}

RQ_API rnic_err rq_qos_block_info(const rq_qos *q, const rnic_work *w, rq_block_desc *out)
{
    uint64_t dst0;
    if (!q || !w || !out || w->flow >= q->lines)
        return RNIC_EINVAL;
    RNIC_MEMSET(out, 0, sizeof *out);
    out->cycle = w->cycle;
    out->src = w->addr;
    out->dst = w->raddr;
    out->size = w->len;
    out->tid = w->aux;
    out->seq = w->op;
    out->transfer = w->flow;
    out->domain = w->flow / q->channels;
    out->offset = w->offset;
    out->index = w->index;
    /* block k > 0 starts at a receiver block boundary: (dst0 mod BLOCK + offset) / BLOCK = k */
    dst0 = w->raddr - w->offset;
    out->block = (uint32_t)(((dst0 & (q->cfg.block_bytes - 1u)) + w->offset) >> q->block_shift);
    out->retransmit = (w->flags & RQ_WORK_RETRANSMIT) != 0;
    out->notify = (w->flags & RQ_WORK_NOTIFY) != 0;
    out->chained = (w->flags & RQ_WORK_CHAINED) != 0;
    out->has_next = (w->flags & RQ_WORK_HAS_NEXT) != 0;
    out->cm = (w->flags & RQ_WORK_CM) != 0;
    out->last = (w->flags & RNIC_WORK_LAST) != 0;
    return RNIC_OK;
}
RQ_API uint32_t rq_qos_pending(const rq_qos *q) { return q ? q->npending : 0; }

/* ---- shared helpers ---- */

static void rq__decode_line(const rq_qos *q, uint32_t line, rq_transfer *t)
{
    const uint64_t *l0 = &q->table[(size_t)line * 4u];
    /* accepted descriptors decode; the second line is only read for two-line ones */
    rq_desc_decode(l0, rq_desc_lines(l0[3]) == 2u ? l0 + 4 : NULL, t);
}

/* A regular transfer's addresses and size: Transfer Table words 0, 1, 2 of its first line. */
static uint64_t rq__src_of(const rq_qos *q, uint32_t line) { return q->table[(size_t)line * 4u]; }
static uint64_t rq__dst_of(const rq_qos *q, uint32_t line) { return q->table[(size_t)line * 4u + 1u]; }

/* Scheduling queue a transfer returns to once it has its IDs (have-FID / TID-only). */
static uint32_t rq__requeue_of(const rq_qos *q, const rq_xfer *x)
{
    if (x->is_inline || !x->cm)
        return RQ_QUEUE_TID_ONLY;
    return 2u + (x->multipath ? 2u : 0u) * q->cfg.intra_priorities + x->prio;
}

static uint32_t rq__next_seq(rq_qos *q)
{
    uint32_t s = q->seq;
    q->seq = rnic_seq_add(q->seq, 1u, q->cfg.seq_bits);
    return s;
}

static uint32_t rq__block_tid(const rq_qos *q, const rq_xfer *x, const rq_meta *m, uint32_t block, uint32_t taken)
{
    if (!x->cm)
        return taken;
    return x->multipath ? rq_tid_multipath(&q->ids, m->fid, block) : rq_tid_unipath(&q->ids, m->fid, block);
}

/* Block `block` of the regular transfer on `line` (stage 3's arithmetic, §3.9.3). */
static void rq__fill_block(const rq_qos *q, const rq_xfer *x, uint32_t line, uint32_t block, rq_block_desc *b)
{
    uint64_t off = block == 0u ? 0u : x->first + (uint64_t)(block - 1u) * q->cfg.block_bytes; /* first + (n - 1) x BLOCK */
    uint32_t size = block == 0u ? x->first : block + 1u == x->total ? x->last : q->cfg.block_bytes;
    RNIC_MEMSET(b, 0, sizeof *b);
    b->cycle = q->now;
    b->src = rq__src_of(q, line) + off;
    b->dst = rq__dst_of(q, line) + off;
    b->size = size;
    b->transfer = line;
    b->domain = line / q->channels;
    b->block = block;
    b->offset = (uint32_t)off; /* < 2^32: sizes are at most 2^32 */
    b->index = q->meta[line].index;
    b->last = block + 1u == x->total;
    b->cm = x->cm;
    b->chained = x->cm && block > 0u;
    b->has_next = x->cm && block + 1u < x->total;
    b->notify = x->notify && block + 1u == x->total;
}

static void rq__defer_return(rq_qos *q, rq_id_pool pool, uint32_t id);

/* A transfer's end (DONE or ERROR): status, IDs of the flow back, its lines free. */
static void rq__finish(rq_qos *q, uint32_t line, rq_status st)
{
    rq_meta *m = &q->meta[line];
    const rq_xfer *x = &q->xfer[line];
    if (line % q->channels < q->cfg.write_channels) /* read channels have no status register */
        rq_status_set(&q->status, line / q->channels, line % q->channels, st);
    if (m->has_fid) /* FIDs return on completion (§3.11) */
        rq__defer_return(q, x->multipath ? RQ_POOL_FID4 : RQ_POOL_FID1, m->fid);
    q->occupied[line] = 0;
    if (x->nlines == 2u)
        q->occupied[line + 1u] = 0;
    if (st == RQ_DONE)
        q->stats.done++;
    else
        q->stats.failed++;
    RQ__TRACE(q, RQ_QOS_TRACE_COMPLETE, line, (uint64_t)st, m->index);
}

/* ---- the metadata arbiter (§3.12): "last served" between the handler and the segmenter ---- */

static bool rq__arbiter_grant(rq_qos *q, bool handler, bool other_wants)
{
    if (!other_wants || (handler ? !q->arb_handler_last : q->arb_handler_last)) {
        q->arb_handler_last = handler;
        return true;
    }
    return false;
}

/* ---- message handler (§3.11): S1 accept, S2 pending table, S3 metadata ---- */

/* IDs returned off the handler's path (a failed transfer's TIDs, FIDs at completion) queue
 * here and go back one per cycle, after the handler's own returns. */
static void rq__defer_return(rq_qos *q, rq_id_pool pool, uint32_t id)
{
    uint32_t v[2];
    v[0] = (uint32_t)pool;
    v[1] = id;
    rnic_ring_push(&q->id_returns, v); /* every ID is in it at most once: never full */
}

static void rq__drain_returns(rq_qos *q)
{
    const uint32_t *v = (const uint32_t *)rnic_ring_peek(&q->id_returns);
    if (v && rq_ids_give_back(&q->ids, (rq_id_pool)v[0], v[1]) != RNIC_EBUSY)
        rnic_ring_pop(&q->id_returns, NULL);
}

/* S3 (first in the cycle: its enqueue has the highest priority): apply an ACK. */
static void rq__handler_s3(rq_qos *q)
{
    rq_handler *h = &q->mh;
    rq_pend *pe;
    uint32_t line, acks, queue = RNIC_NONE;
    rq_meta *m;
    const rq_xfer *x;
    bool tid_back;
    if (h->state != 2u || rq__after(h->next, q->now))
        return;
    pe = &q->pend[h->r.tid];
    line = pe->line;
    m = &q->meta[line];
    x = &q->xfer[line];
    tid_back = !x->cm || x->is_inline; /* non-CM TIDs return on every ACK */
    /* re-enqueue unless it is queued or in the segmenter already (the isInSchedFIFO bit) */
    if (m->block_num < m->total && !m->failed && !rnic_ssfifo_is_queued(&q->sched, line) &&
        !(q->s2.valid && q->s2.line == line))
        queue = rq__requeue_of(q, x);
    if (tid_back && rq_ids_give_back(&q->ids, RQ_POOL_TID, h->r.tid) == RNIC_EBUSY)
        return; /* the TID FIFO's enqueue port is taken: retry next cycle (nothing changed) */
    if (queue != RNIC_NONE && rnic_ssfifo_enqueue(&q->sched, queue, line) == RNIC_OK)
        q->enq_port_used = true;
    pe->valid = 0;
    rq__tid_back(q, h->r.tid);
    rq__timer_sync(q, h->r.tid);
    q->npending--;
    m->outstanding--;
    q->stats.acks++;
    RQ__TRACE(q, RQ_QOS_TRACE_ACK, h->r.tid, line, h->r.seq);
    acks = m->block_num - m->outstanding;
    if (m->block_num == m->total && !m->failed) {
        if (acks == m->total && (!x->notify || m->control_sent)) {
            rq__finish(q, line, RQ_DONE);
        } else if (acks + 1u >= m->total && x->notify && m->last_issued && !m->control_sent &&
                   !rnic_ssfifo_is_queued(&q->sched, line) && !(q->s2.valid && q->s2.line == line) &&
                   !q->enq_port_used) {
            /* N - 1 ACKs in and the last block issued: the completion notification (§3.11);
             * with all N in, DONE waits until the control packet has left */
            if (rnic_ssfifo_enqueue(&q->sched, RQ_QUEUE_CONTROL, line) == RNIC_OK)
                q->enq_port_used = true;
        }
    }
    h->state = 0u;
    h->s3_ran = 1u; /* S3 was this cycle's state: the next response is taken from the next cycle */
}

/* S1 (accept) and S2 (the pending entry; an ACK then asks the arbiter for the metadata).
 * Returns true when it took the metadata read port this cycle. */
static bool rq__handler_s1_s2(rq_qos *q, bool segmenter_wants)
{
    rq_handler *h = &q->mh;
    rq_pend *pe;
    if (h->state == 0u) {
        if (!h->s3_ran && rnic_ring_pop_n(&q->resp, &h->r, sizeof h->r) == RNIC_OK) {
            h->state = 1u;
            h->s1_ran = 1u; /* the pending table's shared port is the handler's this cycle */
            h->next = q->now + 1u;
        }
        return false;
    }
    if (h->state != 1u || rq__after(h->next, q->now))
        return false;
    pe = h->r.tid < 2u * q->cfg.ids.tids ? &q->pend[h->r.tid] : NULL;
    if (!pe || !pe->valid || pe->seq != h->r.seq) { /* unknown, stale or duplicate */
        q->stats.responses_dropped++;
        rnic_err_note(&q->stats.errors, !pe ? RNIC_ENOENT : RNIC_ESTALE);
        RQ__TRACE(q, RQ_QOS_TRACE_DROP, h->r.tid, (uint64_t)(!pe ? RNIC_ENOENT : RNIC_ESTALE), h->r.seq);
        h->state = 0u;
        return false;
    }
    if (!h->r.ack) { /* NACK: retransmit the block (beyond the thesis, §5) */
        q->stats.nacks++;
        RQ__TRACE(q, RQ_QOS_TRACE_NACK, h->r.tid, pe->line, h->r.seq);
        if (!pe->retx_queued) {
            pe->retx_queued = 1;
            rq__timer_sync(q, h->r.tid);
            rnic_ring_push(&q->retx, &h->r.tid);
        }
        h->state = 0u;
        return false;
    }
    if (!rq__arbiter_grant(q, true, segmenter_wants))
        return false; /* the segmenter is served this cycle: ask again next cycle */
    h->state = 2u;
    h->next = q->now + 1u;
    return true;
}

/* ---- retransmission (timeouts and NACKs): ahead of new blocks at the outputs ---- */

static void rq__fail_transfer(rq_qos *q, uint32_t line)
{
    uint32_t i;
    rq_meta *m = &q->meta[line];
    const rq_xfer *x = &q->xfer[line];
    for (i = 0; i < 2u * q->cfg.ids.tids; i++) /* its blocks in flight are forgotten */
        if (q->pend[i].valid && q->pend[i].line == line) {
            q->pend[i].valid = 0;
            rq__tid_back(q, i);
            rq__timer_sync(q, i);
            q->npending--;
            if (!x->cm || x->is_inline)
                rq__defer_return(q, RQ_POOL_TID, i);
        }
    m->failed = 1;
    m->outstanding = 0;
    rq__finish(q, line, RQ_ERROR);
}

static void rq__retransmit(rq_qos *q)
{
    const uint32_t *head = (const uint32_t *)rnic_ring_peek(&q->retx);
    uint32_t tid;
    rq_pend *pe;
    rq_transfer t;
    if (!head)
        return;
    tid = *head;
    pe = &q->pend[tid];
    if (!pe->valid) { /* acknowledged meanwhile */
        rnic_ring_pop(&q->retx, NULL);
        return;
    }
    if (pe->retries >= q->cfg.retry_limit) {
        rnic_ring_pop(&q->retx, NULL);
        pe->retx_queued = 0;
        rq__fail_transfer(q, pe->line);
        return;
    }
    if (q->xfer[pe->line].is_inline) {
        rq_packet pk;
        if (rnic_ring_full(&q->pkt))
            return;
        rq__decode_line(q, pe->line, &t); /* the payload */
        RNIC_MEMSET(&pk, 0, sizeof pk);
        pk.cycle = q->now;
        pk.kind = RQ_PKT_INLINE;
        pk.dst = t.dst;
        pk.size = (uint32_t)t.size;
        pk.tid = tid;
        pk.transfer = pe->line;
        pk.domain = pe->line / q->channels;
        pk.index = q->meta[pe->line].index;
        pk.retransmit = 1;
        RNIC_MEMCPY(pk.payload, t.payload, sizeof pk.payload);
        pe->seq = (uint16_t)rq__next_seq(q);
        pk.seq = pe->seq;
        rq__emit_packet(q, &pk);
    } else {
        rq_block_desc b;
        if (rnic_ring_full(&q->tx))
            return;
        rq__fill_block(q, &q->xfer[pe->line], pe->line, pe->block, &b);
        b.tid = tid;
        pe->seq = (uint16_t)rq__next_seq(q);
        b.seq = pe->seq;
        b.retransmit = 1;
        rq__emit_block(q, &b);
    }
    pe->issued = q->now;
    pe->taken = 0; /* the timeout restarts when the send unit takes it */
    pe->retries++;
    pe->retx_queued = 0;
    rq__timer_sync(q, tid);
    q->stats.retransmits++;
    RQ__TRACE(q, RQ_QOS_TRACE_RETRANSMIT, tid, pe->line, pe->seq);
    rnic_ring_pop(&q->retx, NULL);
}

/* One pending entry per cycle (§2: 1,024 entries per sweep), through the Pending Transactions
 * Table's port it shares with the message handler (§3.5: "Arbitration to this memory's ports will
 * be required when the Timeout FSM is implemented"): in a cycle in which S1 reads the table the
 * scanner waits on its entry (the handler first: a response in hand must not wait). */
static void rq__timeout_scan(rq_qos *q)
{
    rq_pend *pe = &q->pend[q->scan];
    if (q->mh.s1_ran) {
        q->stats.scan_waits++;
        return;
    }
    /* the bookkeeping agrees with the scanner: an armed entry is in due_map exactly when due */
    RNIC_ASSERT((pe->armed == RQ__ARMED_DUE) == (pe->valid && pe->taken && !pe->retx_queued && q->now - pe->issued >= q->timeout));
    if (pe->valid && pe->taken && !pe->retx_queued && q->now - pe->issued >= q->timeout) {
        pe->retx_queued = 1;
        rq__timer_sync(q, q->scan);
        rnic_ring_push(&q->retx, &q->scan); /* at most one entry per TID: never full */
        q->stats.timeouts++;
        RQ__TRACE(q, RQ_QOS_TRACE_TIMEOUT, q->scan, pe->line, pe->seq);
    }
    q->scan = q->scan + 1u == 2u * q->cfg.ids.tids ? 0u : q->scan + 1u;
}

/* ---- the segmenter (§3.9) ---- */

/* Whether dequeuing from queue qi takes a new ID, and from which pool: TID-only a TID,
 * no-FID queues a FID (1x) or a group (4x); control and have-FID queues none. */
static bool rq__queue_takes_id(const rq_qos *q, uint32_t qi, rq_id_pool *pool)
{
    uint32_t p = q->cfg.intra_priorities;
    if (qi == RQ_QUEUE_TID_ONLY) {
        *pool = RQ_POOL_TID;
        return true;
    }
    if (qi >= 2u + p && qi < 2u + 2u * p) {
        *pool = RQ_POOL_FID1;
        return true;
    }
    if (qi >= 2u + 3u * p) {
        *pool = RQ_POOL_FID4;
        return true;
    }
    return false;
}

static void rq__stage3(rq_qos *q, bool *issued)
{
    *issued = false;
    if (!q->s3_valid)
        return;
    if (rnic_ring_full(&q->tx)) {
        q->stats.seg_stalls_output++;
        return;
    }
    q->s3.cycle = q->now;
    rq__emit_block(q, &q->s3);
    q->s3_valid = false;
    q->stats.blocks++;
    *issued = true;
}

/* Stage 2: everything is checked first; nothing changes unless the whole step can happen. */
static void rq__stage2(rq_qos *q, bool stage3_issued)
{
    rq_stage2 *s = &q->s2;
    rq_transfer t;
    rq_meta *m;
    const rq_xfer *x;
    rq_packet pk;
    uint32_t line, tid, block, requeue = RNIC_NONE;
    bool control = false, bypass;
    if (!s->valid)
        return;
    if (s->wait) { /* a second descriptor line costs one more Transfer Table read */
        s->wait--;
        return;
    }
    line = s->line;
    m = &q->meta[line];
    x = &q->xfer[line];
    RNIC_MEMSET(&pk, 0, sizeof pk);
    pk.cycle = q->now;
    pk.transfer = line;
    pk.domain = line / q->channels;
    pk.index = m->index;
    if (s->queue == RQ_QUEUE_CONTROL) { /* a completion notification */
        if (rnic_ring_full(&q->pkt)) {
            q->stats.seg_stalls_output++;
            return;
        }
        rq__decode_line(q, line, &t);
        pk.kind = RQ_PKT_CONTROL;
        pk.dst = t.dst;
        pk.notify_target = t.notify_target;
        pk.tid = m->last_tid;
        pk.seq = m->last_seq;
        rq__emit_packet(q, &pk);
        m->control_sent = 1;
        q->stats.control_packets++;
        s->valid = 0;
        if (m->block_num == m->total && m->outstanding == 0u) /* every ACK came first */
            rq__finish(q, line, RQ_DONE);
        return;
    }
    if (m->failed) { /* the transfer failed while queued: give its new ID back, issue nothing */
        rq_id_pool pool;
        if (rq__queue_takes_id(q, s->queue, &pool))
            rq__defer_return(q, pool, s->id);
        s->valid = 0;
        return;
    }
    if (x->is_inline) {
        if (rnic_ring_full(&q->pkt)) {
            q->stats.seg_stalls_output++;
            return;
        }
        rq__decode_line(q, line, &t); /* the payload */
        pk.kind = RQ_PKT_INLINE;
        pk.dst = t.dst;
        pk.size = (uint32_t)t.size;
        pk.tid = s->id;
        pk.seq = rq__next_seq(q);
        RNIC_MEMCPY(pk.payload, t.payload, sizeof pk.payload);
        rq__emit_packet(q, &pk);
        m->total = 1;
        m->block_num = 1;
        m->outstanding = 1;
        m->last_issued = 1;
        m->last_tid = (uint16_t)s->id;
        m->last_seq = (uint16_t)pk.seq;
        tid = s->id;
        block = 0;
        q->stats.inline_packets++;
    } else {
        rq_block_desc b;
        if (m->block_num == 0u) { /* the first block: the transfer's metadata start here */
            m->total = x->total;
            if (x->cm) {
                m->fid = (uint16_t)s->id;
                m->has_fid = 1;
            }
        }
        block = m->block_num;
        tid = rq__block_tid(q, x, m, block, s->id);
        RNIC_ASSERT(!q->pend[tid].valid); /* stage 1 waited for it (tid_bitmap) */
        control = x->notify && block + 1u == m->total && (block - m->outstanding) + 1u == m->total;
        if (block + 1u < m->total && m->outstanding + 1u < q->cfg.max_outstanding)
            requeue = rq__requeue_of(q, x);
        bypass = block == 0u && !stage3_issued && !q->s3_valid;
        if ((bypass ? rnic_ring_full(&q->tx) : q->s3_valid) || (control && rnic_ring_full(&q->pkt))) {
            q->stats.seg_stalls_output++;
            return;
        }
        if (requeue != RNIC_NONE && q->enq_port_used) {
            q->stats.seg_stalls_enqueue++;
            return;
        }
        if (requeue != RNIC_NONE && rnic_ssfifo_enqueue(&q->sched, requeue, line) != RNIC_OK) {
            q->stats.seg_stalls_enqueue++;
            return;
        }
        if (requeue != RNIC_NONE)
            q->enq_port_used = true;
        rq__fill_block(q, x, line, block, &b);
        b.tid = tid;
        b.seq = rq__next_seq(q);
        if (bypass) { /* the first block leaves from stage 2 (stage-3 bypass) */
            rq__emit_block(q, &b);
            q->stats.blocks++;
        } else {
            q->s3 = b;
            q->s3_valid = true;
        }
        m->block_num++;
        m->outstanding++;
        if (block + 1u == m->total) {
            m->last_issued = 1;
            m->last_tid = (uint16_t)tid;
            m->last_seq = (uint16_t)b.seq;
        }
        pk.seq = b.seq;
        if (control) { /* the last block with N - 1 ACKs in: the notification goes too */
            pk.kind = RQ_PKT_CONTROL;
            pk.dst = rq__dst_of(q, line);
            pk.notify_target = q->table[(size_t)(line + 1u) * 4u]; /* line 1, word 0 */
            pk.tid = tid;
            rq__emit_packet(q, &pk);
            m->control_sent = 1;
            q->stats.control_packets++;
        }
    }
    q->pend[tid].valid = 1;
    q->pend[tid].issued = q->now;
    q->pend[tid].line = line;
    q->pend[tid].block = block;
    q->pend[tid].seq = (uint16_t)pk.seq;
    q->pend[tid].retries = 0;
    q->pend[tid].retx_queued = 0;
    q->pend[tid].taken = 0;
    rq__timer_sync(q, tid);
    q->npending++;
    s->valid = 0;
}

/* A have-FID queue (1xFID or 4xFID): its transfers already hold their flow's IDs. */
static bool rq__queue_has_fid(const rq_qos *q, uint32_t qi)
{
    uint32_t p = q->cfg.intra_priorities;
    return (qi >= 2u && qi < 2u + p) || (qi >= 2u + 2u * p && qi < 2u + 3u * p);
}

/* tid_bitmap (§3.2): the head transfer of a have-FID queue may go on only when its flow's next
 * TID is back (its previous block on that TID acknowledged). The bitmap is the pending table's
 * valid bit of that TID here. */
static bool rq__next_tid_busy(const rq_qos *q, uint32_t qi)
{
    uint32_t line = rnic_ssfifo_peek(&q->sched, qi);
    const rq_meta *m = &q->meta[line];
    bool multipath = qi >= 2u + 2u * q->cfg.intra_priorities;
    uint32_t tid = multipath ? rq_tid_multipath(&q->ids, m->fid, m->block_num) : rq_tid_unipath(&q->ids, m->fid, m->block_num);
    return q->pend[tid].valid != 0;
}

/* Stage 1's choice: the first queue, in priority order, that a dequeue would find an entry in
 * and whose IDs are free -- a pool ID for TID-only and no-FID queues (a pool whose FIFO is empty
 * or whose dequeue port is taken this cycle masks its queues), the flow's next TID for have-FID
 * queues. *tid_wait: a have-FID queue ahead of the choice was passed over for its tid_bitmap.
 * RNIC_NONE: none. Queues already known to wait (tid_wait_mask: set by the probe, cleared when
 * the TID comes back) are not looked at again; found[] returns the ones newly found waiting. */
static uint32_t rq__stage1_pick(const rq_qos *q, bool *tid_wait, uint64_t found[2])
{
    const rq_ids *ids = &q->ids;
    uint64_t cand[2], waiting[2];
    uint32_t w, closed;
    found[0] = found[1] = 0u;
    *tid_wait = false;
    cand[0] = q->sched.nonempty[0];
    cand[1] = q->nqueues > 64u ? q->sched.nonempty[1] : 0u;
    if ((cand[0] | cand[1]) == 0u)
        return RNIC_NONE; /* nothing queued */
    /* a pool whose FIFO is empty or whose dequeue port is taken closes its queues */
    closed = (rnic_ring_empty(&ids->pool[0]) || ids->deq_used[0] ? 1u : 0u) |
             (rnic_ring_empty(&ids->pool[1]) || ids->deq_used[1] ? 2u : 0u) |
             (rnic_ring_empty(&ids->pool[2]) || ids->deq_used[2] ? 4u : 0u);
    cand[0] &= ~q->pool_closed[closed][0];
    cand[1] &= ~q->pool_closed[closed][1];
    waiting[0] = cand[0] & q->tid_wait_mask[0];
    waiting[1] = cand[1] & q->tid_wait_mask[1];
    for (w = 0; w < 2u; w++) {
        uint64_t c = cand[w] & ~waiting[w];
        while (c) {
            uint32_t bit = rnic_ctz64(c), qi = w * 64u + bit;
            c &= c - 1u;
            if (!rnic_ssfifo_ready(&q->sched, qi))
                continue; /* only this cycle's enqueue into an empty queue */
            if (((q->queue_class[3][w] >> bit) & 1u) && rq__next_tid_busy(q, qi)) {
                found[w] |= (uint64_t)1 << bit;
                continue;
            }
            /* waits ahead of it: everything in earlier words, the lower bits of this one */
            *tid_wait = (w == 1u && (waiting[0] | found[0])) ||
                        ((waiting[w] | found[w]) & (((uint64_t)1 << bit) - 1u)) != 0u;
            return qi;
        }
    }
    *tid_wait = (waiting[0] | waiting[1] | found[0] | found[1]) != 0u;
    return RNIC_NONE;
}

/* The TID of the tid_bitmap wait of queue qi's head. */
static uint32_t rq__next_tid_of(const rq_qos *q, uint32_t qi)
{
    const rq_meta *m = &q->meta[rnic_ssfifo_peek(&q->sched, qi)];
    return qi >= 2u + 2u * q->cfg.intra_priorities ? rq_tid_multipath(&q->ids, m->fid, m->block_num)
                                                   : rq_tid_unipath(&q->ids, m->fid, m->block_num);
}

/* A TID came back (its pending entry was freed): the queue waiting for it may go on. */
static void rq__tid_back(rq_qos *q, uint32_t tid)
{
    uint32_t w;
    for (w = 0; w < 2u; w++) {
        uint64_t m = q->tid_wait_mask[w];
        while (m) {
            uint32_t bit = rnic_ctz64(m);
            m &= m - 1u;
            if (q->tid_waited[w * 64u + bit] == tid)
                q->tid_wait_mask[w] &= ~((uint64_t)1 << bit);
        }
    }
}

/* Stage 1's probe (every cycle stage 1 is free): does it want the metadata read (a queue to
 * dequeue)? Counts the tid_bitmap waits; remembers the choice for the commit and the queues
 * found waiting. */
static bool rq__stage1_probe(rq_qos *q)
{
    bool tid_wait = false;
    uint64_t found[2];
    uint32_t w;
    q->s1_pick = RNIC_NONE;
    if (q->s2.valid)
        return false;
#ifdef RNIC_DEBUG
    for (w = 0; w < 2u; w++) { /* the known waits are still waits, on the TID recorded */
        uint64_t m = q->tid_wait_mask[w];
        for (; m; m &= m - 1u) {
            uint32_t qi = w * 64u + rnic_ctz64(m);
            RNIC_ASSERT(!rnic_ssfifo_empty(&q->sched, qi) && rq__next_tid_of(q, qi) == q->tid_waited[qi] &&
                        q->pend[q->tid_waited[qi]].valid);
        }
    }
#endif
    q->s1_pick = rq__stage1_pick(q, &tid_wait, found);
    for (w = 0; w < 2u; w++)
        for (; found[w]; found[w] &= found[w] - 1u) {
            uint32_t qi = w * 64u + rnic_ctz64(found[w]);
            q->tid_waited[qi] = rq__next_tid_of(q, qi);
            q->tid_wait_mask[w] |= (uint64_t)1 << (qi & 63u);
        }
    if (tid_wait)
        q->stats.seg_stalls_tid++;
    return q->s1_pick != RNIC_NONE;
}

/* Stage 1's commit, once the arbiter granted the metadata read: dequeue, take the ID. */
static void rq__stage1_commit(rq_qos *q)
{
    uint32_t qi = q->s1_pick, line = 0, id = 0;
    rq_id_pool pool = RQ_POOL_TID;
    if (rq__queue_takes_id(q, qi, &pool))
        rq_ids_take(&q->ids, pool, &id);
    rnic_ssfifo_dequeue(&q->sched, qi, &line);
    q->s2.valid = 1;
    q->s2.line = line;
    q->s2.queue = qi;
    q->s2.id = id;
    q->s2.wait = (qi == RQ_QUEUE_CONTROL || q->xfer[line].extra_read) ? 1u : 0u;
}

RQ_API void rq_qos_tick(rq_qos *q)
{
    bool seg_wants, issued, handler_read;
    if (!q)
        return;
    /* scheduling-FIFO enqueue priority: handler (ACK) > segmenter > AXI writes > remote reads */
    rq__handler_s3(q);
    rq__retransmit(q);        /* retransmissions go out ahead of new blocks */
    rq__stage3(q, &issued);
    rq__stage2(q, issued);
    seg_wants = rq__stage1_probe(q);                /* does stage 1 need the metadata read? */
    handler_read = rq__handler_s1_s2(q, seg_wants); /* the arbiter decides between the two */
    if (seg_wants) {
        if (handler_read) {
            q->stats.seg_stalls_arbiter++;
        } else {
            q->arb_handler_last = false;
            rq__stage1_commit(q);
        }
    }
    rq__write_stage(q);
    rq__remote_stage(q);
    rq__read_stage(q);
    rq__timeout_scan(q);
    rq__drain_returns(q);
    rq_ids_tick(&q->ids);
    rnic_ssfifo_tick(&q->sched);
    q->enq_port_used = false;
    q->table_port_used = false;
    q->mh.s3_ran = 0u;
    q->mh.s1_ran = 0u;
    q->now++;
    q->stats.cycles++;
    rq__timers_due(q);
}

/* ---- fast-forward ---- */

/* Whether a tick now would change anything but stall counters, the scanner's position and
 * the clock ("quiet"), with what such a tick adds to the stall counters (*bresp_stalls,
 * *seg_stalls) and the earliest cycle an accepted input becomes ready (*wake, RNIC_NEVER if
 * none). Mirrors rq_qos_tick's stages in their order; anything it does not recognise as a
 * wait on a full output or on new input counts as work. */
static bool rq__quiet(const rq_qos *q, uint64_t *wake, uint32_t *bresp_stalls, uint32_t *seg_stalls, uint32_t *tid_stalls)
{
    const rq_axi_beat *beat = (const rq_axi_beat *)rnic_ring_peek(&q->aw);
    const rq_axi_read *rd = (const rq_axi_read *)rnic_ring_peek(&q->rd);
    const uint32_t *retx = (const uint32_t *)rnic_ring_peek(&q->retx);
    bool tx_full = rnic_ring_full(&q->tx), pkt_full = rnic_ring_full(&q->pkt);
    *wake = RNIC_NEVER;
    *bresp_stalls = *seg_stalls = *tid_stalls = 0;
    if (!rnic_ring_empty(&q->resp) || !rnic_ring_empty(&q->id_returns) || !rnic_ring_empty(&q->remote) ||
        q->mh.state != 0u || !rq_ids_ready(&q->ids))
        return false;
    if (retx) { /* the retransmission path waits only on its output */
        const rq_pend *pe = &q->pend[*retx];
        if (!pe->valid || pe->retries >= q->cfg.retry_limit)
            return false;
        if (!(q->xfer[pe->line].is_inline ? pkt_full : tx_full))
            return false;
    }
    if (q->s3_valid) {
        if (!tx_full)
            return false;
        (*seg_stalls)++;
    }
    if (q->s2.valid) {
        const rq_meta *m = &q->meta[q->s2.line];
        if (q->s2.wait || m->failed)
            return false;
        const rq_xfer *x = &q->xfer[q->s2.line];
        if (q->s2.queue == RQ_QUEUE_CONTROL || x->is_inline) {
            if (!pkt_full)
                return false;
            (*seg_stalls)++;
        } else {
            uint32_t block = m->block_num, tid;
            bool control;
            if (m->total == 0u)
                return false; /* stage 2's first look at a transfer writes its metadata */
            tid = rq__block_tid(q, x, m, block, q->s2.id);
            if (!q->pend[tid].valid) { /* (valid: cannot be, stage 1 waited at the tid_bitmap) */
                control = x->notify && block + 1u == m->total && (block - m->outstanding) + 1u == m->total;
                if (!(q->s3_valid || (block == 0u && tx_full) || (control && pkt_full)))
                    return false;
                (*seg_stalls)++;
            }
        }
    } else {
        /* stage 1: is there a queue it may dequeue from (its pool has an ID, or its head's
         * next TID is back)? */
        bool tid_wait = false;
        uint64_t found[2];
        if (rq__stage1_pick(q, &tid_wait, found) != RNIC_NONE)
            return false;
        *tid_stalls = tid_wait ? 1u : 0u;
    }
    if (beat) { /* the write-data stage waits for its beat's ready cycle or for room in B */
        if (rq__after(beat->ready, q->now))
            *wake = beat->ready;
        else if (rnic_ring_full(&q->b))
            (*bresp_stalls)++;
        else
            return false;
    }
    if (rd) {
        if (rq__after(rd->ready, q->now)) {
            if (*wake == RNIC_NEVER || rq__after(*wake, rd->ready))
                *wake = rd->ready;
        } else if (!rnic_ring_full(&q->r)) {
            return false;
        }
    }
    return true;
}

/* next_event, and what a skipped cycle adds to the stall counters. */
static uint64_t rq__next_event(const rq_qos *q, uint32_t *bresp_stalls, uint32_t *seg_stalls, uint32_t *tid_stalls)
{
    uint64_t wake, fire;
    if (!rq__quiet(q, &wake, bresp_stalls, seg_stalls, tid_stalls))
        return q->now;
    fire = rq__next_timeout(q);
    if (fire == RNIC_NEVER)
        return wake;
    return wake != RNIC_NEVER && rq__after(fire, wake) ? wake : fire;
}

RQ_API uint64_t rq_qos_next_event(const rq_qos *q)
{
    uint32_t b, s, t;
    return q ? rq__next_event(q, &b, &s, &t) : RNIC_NEVER;
}

/* Output ports that are full, one bit each. */
static uint32_t rq__full_outputs(const rq_qos *q)
{
    return (rnic_ring_full(&q->tx) ? 1u : 0u) | (rnic_ring_full(&q->pkt) ? 2u : 0u) | (rnic_ring_full(&q->b) ? 4u : 0u) |
           (rnic_ring_full(&q->r) ? 8u : 0u);
}

RQ_API uint64_t rq_qos_advance(rq_qos *q, uint64_t cycles)
{
    uint64_t ran = 0;
    if (!q)
        return 0;
    while (ran < cycles) {
        uint32_t bresp_stalls, seg_stalls, tid_stalls, full;
        uint64_t next = rq__next_event(q, &bresp_stalls, &seg_stalls, &tid_stalls);
        uint64_t skip = rnic_idle_span(q->now, next, cycles - ran);
        if (skip) {
            /* quiet cycles: the scanner moves (no entry is due before `next`), the stalled
             * stages count their stalls, nothing in the FIFOs carries over */
            q->scan = (uint32_t)((q->scan + skip) & (2u * q->cfg.ids.tids - 1u));
            rnic_ssfifo_tick(&q->sched);
            q->stats.bresp_stalls += skip * bresp_stalls;
            q->stats.seg_stalls_output += skip * seg_stalls;
            q->stats.seg_stalls_tid += skip * tid_stalls;
            q->now += skip;
            q->stats.cycles += skip;
            ran += skip;
            rq__timers_due(q);
            continue;
        }
        full = rq__full_outputs(q);
        rq_qos_tick(q);
        ran++;
        if (rq__full_outputs(q) & ~full)
            break; /* an output filled: the caller drains it */
    }
    return ran;
}

RQ_API uint64_t rq_qos_advance_to(rq_qos *q, uint64_t cycle)
{
    return q ? rq_qos_advance(q, rnic_cycles_until(q->now, cycle)) : 0;
}
