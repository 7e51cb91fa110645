/* The RED-SEA QoS engine (interface: qos_api.h; cycle semantics: docs/rnicq_qos_model.md):
 * configuration, memory, init, the scheduling-queue numbering, and the state the hardware
 * blocks share -- the Transfer Table and Transfer Metadata table accessors, the block
 * descriptor, completion, the deferred ID returns. One file per block follows (the thesis's
 * chapter 3): qos_axi_write.c (Fig. 3.5), qos_status_read.c (Fig. 3.6), qos_remote_read.c,
 * qos_send_port.c, qos_pending_table.c (§3.5, the timeout scanner), qos_metadata_arbiter.c
 * (Fig. 3.14), qos_message_handler.c (Fig. 3.13), qos_retransmit.c (beyond the thesis, §5),
 * qos_segmenter.c (Fig. 3.9); qos_tick.c runs them in a cycle's order and fast-forwards. */

RQ_API void rq_qos_config_default(rq_qos_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = 250000000ull; /* every engine's default; the thesis's FPGA: 150 MHz */
    cfg->domains = 16;
    cfg->write_channels = 64;
    cfg->read_channels = 64;
    cfg->intra_priorities = 16;
    cfg->block_bytes = 65536;
    cfg->max_outstanding = 2;
    rq_ids_config_default(&cfg->ids);
    cfg->accumulators = 16; /* one set per domain */
    cfg->axi_write_depth = 8;
    cfg->bresp_depth = 8;
    cfg->axi_read_depth = 8;
    cfg->block_depth = 4;
    cfg->packet_depth = 16;
    cfg->response_depth = 8;
    cfg->seq_bits = 12;
    cfg->timeout_ns = 20000; /* §2: 20 us (5,000 cycles at 250 MHz) */
    cfg->retry_limit = 3;
    cfg->remote_read_depth = 8;
    cfg->trace_id = RNIC_ENGINE_QOS;
}

#define RQ__MAX_CLOCK_HZ 1000000000000ull           /* 1 THz: ns x clock_hz stays in 128 bits */

#define RQ__MAX_TIMEOUT ((uint64_t)1 << 40)         /* cycles: wrap-safe comparisons need < 2^63 */

/* The retransmission timeout in cycles: timeout_ns at clock_hz, to the nearest cycle. */
static uint64_t rq__timeout_of(const rq_qos_config *c) { return rnic_ns_to_cycles(c->timeout_ns, c->clock_hz); }

RQ_API rnic_err rq_qos_config_check(const rq_qos_config *c, const char **field)
{
    uint64_t timeout;
    if (field) /* the contract: NULL when the config is valid */
        *field = NULL;
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
    RQ__BAD(c->axi_write_depth == 0, "axi_write_depth", RNIC_EINVAL);
    RQ__BAD(c->bresp_depth == 0, "bresp_depth", RNIC_EINVAL);
    RQ__BAD(c->axi_read_depth == 0, "axi_read_depth", RNIC_EINVAL);
    RQ__BAD(c->block_depth == 0, "block_depth", RNIC_EINVAL);
    RQ__BAD(c->packet_depth == 0, "packet_depth", RNIC_EINVAL);
    RQ__BAD(c->response_depth == 0, "response_depth", RNIC_EINVAL);
    RQ__BAD(c->remote_read_depth == 0, "remote_read_depth", RNIC_EINVAL);
    RQ__BAD(c->seq_bits < 2u || c->seq_bits > 16u, "seq_bits", RNIC_EINVAL);
    timeout = rq__timeout_of(c);
    RQ__BAD(timeout == 0 || timeout > RQ__MAX_TIMEOUT, "timeout_ns", RNIC_EINVAL);
    RQ__BAD(c->retry_limit > 255u, "retry_limit", RNIC_EINVAL);
#undef RQ__BAD
    return RNIC_OK;
}

static bool rq__qos_config_valid(const rq_qos_config *c) { return rq_qos_config_check(c, NULL) == RNIC_OK; }

/* The scheduling queues (§3.7), numbered in priority order (queue 0 is served first):
 * RQ_QUEUE_CONTROL, RQ_QUEUE_TID_ONLY, then four groups of intra_priorities queues each, by
 * priority within a group. The only place the numbering is written: every other test of a
 * queue's kind goes through the class masks init builds from it. */
enum { RQ__GROUP_FID1_HAVE = 0, RQ__GROUP_FID1_NEED = 1, RQ__GROUP_FID4_HAVE = 2, RQ__GROUP_FID4_NEED = 3 };
enum { RQ__CLASS_TAKES_TID = 0, RQ__CLASS_TAKES_FID1 = 1, RQ__CLASS_TAKES_FID4 = 2, RQ__CLASS_HAS_FID = 3, RQ__CLASS_MULTIPATH = 4 };

static uint32_t rq__queue_count(uint32_t intra_priorities) { return 2u + 4u * intra_priorities; }

static uint32_t rq__queue_number(const rq_qos *q, uint32_t group, uint32_t prio)
{
    return 2u + group * q->cfg.intra_priorities + prio;
}

static bool rq__queue_is(const rq_qos *q, uint32_t cls, uint32_t qi)
{
    return (q->queue_class[cls][qi >> 6] >> (qi & 63u)) & 1u;
}

static void rq__queue_class_add(rq_qos *q, uint32_t cls, uint32_t qi)
{
    q->queue_class[cls][qi >> 6] |= (uint64_t)1 << (qi & 63u);
}

static size_t rq__qos_layout(const rq_qos_config *c, rq_qos *q, unsigned char *mem)
{
    size_t off = 0, at, n;
    uint32_t lines = c->domains * (c->write_channels + c->read_channels);
    rnic_ssfifo_config fc;
    fc.nqueues = rq__queue_count(c->intra_priorities);
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
    RQ__PART((size_t)c->accumulators * sizeof(rq__accumulator), q->acc = (rq__accumulator *)(void *)(mem + at));
    RQ__PART(rnic_ssfifo_mem_size(&fc), rnic_ssfifo_init(&q->sched, &fc, mem + at, n));
    RQ__PART(rq_ids_mem_size(&c->ids), rq_ids_init(&q->ids, &c->ids, mem + at, n));
    RQ__PART(rq_status_mem_size(c->domains, c->write_channels),
             rq_status_init(&q->status, c->domains, c->write_channels, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq__axi_beat), c->axi_write_depth), rnic_ring_init(&q->aw, sizeof(rq__axi_beat), c->axi_write_depth, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_bresp), c->bresp_depth), rnic_ring_init(&q->b, sizeof(rq_axi_bresp), c->bresp_depth, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq__axi_read), c->axi_read_depth), rnic_ring_init(&q->rd, sizeof(rq__axi_read), c->axi_read_depth, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_rdata), c->axi_read_depth), rnic_ring_init(&q->r, sizeof(rq_axi_rdata), c->axi_read_depth, mem + at, n));
    RQ__PART((size_t)lines * sizeof(rq__meta), q->meta = (rq__meta *)(void *)(mem + at));
    RQ__PART((size_t)lines * sizeof(rq__xfer), q->xfer = (rq__xfer *)(void *)(mem + at));
    RQ__PART((size_t)2u * c->ids.tids * sizeof(rq__pend), q->pend = (rq__pend *)(void *)(mem + at));
    RQ__PART((size_t)RNIC_BITMAP_WORDS(2u * c->ids.tids) * sizeof(uint64_t), q->due_map = (uint64_t *)(void *)(mem + at));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_block_desc), c->block_depth),
             rnic_ring_init(&q->tx, sizeof(rq_block_desc), c->block_depth, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_packet), c->packet_depth), rnic_ring_init(&q->pkt, sizeof(rq_packet), c->packet_depth, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_response), c->response_depth),
             rnic_ring_init(&q->resp, sizeof(rq_response), c->response_depth, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(uint32_t), 2u * c->ids.tids), rnic_ring_init(&q->retx, sizeof(uint32_t), 2u * c->ids.tids, mem + at, n));
    RQ__PART(rnic_ring_mem_size(2u * sizeof(uint32_t), 3u * c->ids.tids),
             rnic_ring_init(&q->id_returns, 2u * sizeof(uint32_t), 3u * c->ids.tids, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq__remote_read), c->remote_read_depth),
             rnic_ring_init(&q->remote, sizeof(rq__remote_read), c->remote_read_depth, mem + at, n));
    RQ__PART((size_t)fc.nqueues * sizeof(uint32_t), q->tid_waited = (uint32_t *)(void *)(mem + at));
#undef RQ__PART
    return off;
}

RQ_API size_t rq_qos_mem_size(const rq_qos_config *cfg)
{
    return rq__qos_config_valid(cfg) ? rq__qos_layout(cfg, NULL, NULL) : 0;
}

/* A pending entry's timeout bookkeeping state (qos_pending_table.c): not armed, armed and not
 * yet due (in the arming-order list), due (in due_map). */
#define RQ__ARMED_NO 0u
#define RQ__ARMED_LIST 1u
#define RQ__ARMED_DUE 2u

/* The blocks' internal functions, defined in the files that follow (amalgamation order). */
static void rq__emit_block(rq_qos *q, const rq_block_desc *b);
static void rq__emit_packet(rq_qos *q, const rq_packet *pk);
static rnic_err rq__refuse(rq_qos *q, rq_qos_reason r, uint32_t id, uint64_t value);
static rnic_err rq__note(rq_qos *q, rnic_err e, rq_qos_reason r);
static bool rq__after(uint64_t a, uint64_t b);
static rq__accumulator *rq__acc(const rq_qos *q, uint32_t domain);
static rnic_err rq__peek_null(const rq_qos *q);
static rnic_err rq__peek_ring(const rq_qos *q, const rnic_ring *ring, void *out, size_t size);
static rnic_err rq__pop_ring(rq_qos *q, rnic_ring *ring, void *out, size_t size);
static void rq__decode_line(const rq_qos *q, uint32_t line, rq_transfer *t);
static uint64_t rq__src_of(const rq_qos *q, uint32_t line);
static uint64_t rq__dst_of(const rq_qos *q, uint32_t line);
static uint32_t rq__requeue_of(const rq_qos *q, const rq__xfer *x);
static uint32_t rq__next_seq(rq_qos *q);
static uint32_t rq__block_tid(const rq_qos *q, const rq__xfer *x, const rq__meta *m, uint32_t block, uint32_t taken);
static void rq__fill_block(const rq_qos *q, const rq__xfer *x, uint32_t line, uint32_t block, rq_block_desc *b);
static void rq__finish(rq_qos *q, uint32_t line, rq_status st);
static void rq__defer_return(rq_qos *q, rq_id_pool pool, uint32_t id);
static void rq__drain_returns(rq_qos *q);
static void rq__xfer_set(rq_qos *q, uint32_t line, const rq_transfer *t, uint32_t nlines);
static void rq__meta_start(rq__meta *m);
static rnic_err rq__beat_check(const rq_qos *q, const rq__axi_beat *b, uint32_t *line_out, uint32_t *word_out);
static void rq__bresp(rq_qos *q, const rq__axi_beat *b, rnic_err status);
static inline void rq__write_answer(rq_qos *q, const rq__axi_beat *b, rnic_err e, rq__accumulator *acc, rq__accumulator *a);
static void rq__write_stage(rq_qos *q);
static void rq__read_stage(rq_qos *q);
static void rq__remote_stage(rq_qos *q);
static void rq__taken_by_send_unit(rq_qos *q, uint32_t tid, uint32_t seq, uint32_t line, uint32_t index, uint32_t block);
static void rq__block_to_work(const rq_block_desc *b, rnic_work *w);
static inline void rq__disarm(rq_qos *q, uint32_t tid);
static inline void rq__timer_sync(rq_qos *q, uint32_t tid);
static bool rq__armed_head_due(const rq_qos *q);
static void rq__timers_due(rq_qos *q);
static uint64_t rq__next_timeout(const rq_qos *q);
static void rq__timeout_scan(rq_qos *q);
static bool rq__arbiter_grant(rq_qos *q, bool handler, bool other_wants);
static void rq__handler_s3(rq_qos *q);
static bool rq__handler_s1_s2(rq_qos *q, bool segmenter_wants);
static void rq__fail_transfer(rq_qos *q, uint32_t line);
static bool rq__entry_waits(const rq_qos *q, uint32_t line);
static void rq__release_lines(rq_qos *q, uint32_t line);
static void rq__release_held(rq_qos *q, uint32_t line);
static bool rq__fid_pool_missing(const rq_qos *q, const rq_transfer *t);
static void rq__retransmit(rq_qos *q);
static void rq__retx_queue(rq_qos *q, uint32_t tid);
static bool rq__queue_takes_id(const rq_qos *q, uint32_t qi, rq_id_pool *pool);
static void rq__stage3(rq_qos *q, bool *issued);
static void rq__packet_start(const rq_qos *q, uint32_t line, rq_packet *pk);
static void rq__stage2(rq_qos *q, bool stage3_issued);
static uint32_t rq__next_tid_of(const rq_qos *q, uint32_t qi);
static bool rq__next_tid_busy(const rq_qos *q, uint32_t qi);
static bool rq__queued(const rq_qos *q);
static inline uint32_t rq__stage1_pick(const rq_qos *q, bool *tid_wait, uint64_t found[2]);
static inline void rq__tid_back(rq_qos *q, uint32_t tid);
static bool rq__stage1_probe(rq_qos *q);
static void rq__stage1_commit(rq_qos *q);
static bool rq__quiet(const rq_qos *q, uint64_t *wake, uint32_t *bresp_stalls, uint32_t *seg_stalls, uint32_t *tid_stalls);
static uint64_t rq__next_event(const rq_qos *q, uint32_t *bresp_stalls, uint32_t *seg_stalls, uint32_t *tid_stalls);
static uint32_t rq__full_outputs(const rq_qos *q);

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
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(q, 0, sizeof *q);
    RNIC_MEMSET(mem, 0, need);
    q->cfg = *cfg;
    q->channels = cfg->write_channels + cfg->read_channels;
    q->lines = cfg->domains * q->channels;
    q->nqueues = rq__queue_count(cfg->intra_priorities);
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
    rq__queue_class_add(q, RQ__CLASS_TAKES_TID, RQ_QUEUE_TID_ONLY);
    for (d = 0; d < cfg->intra_priorities; d++) {
        rq__queue_class_add(q, RQ__CLASS_TAKES_FID1, rq__queue_number(q, RQ__GROUP_FID1_NEED, d));
        rq__queue_class_add(q, RQ__CLASS_TAKES_FID4, rq__queue_number(q, RQ__GROUP_FID4_NEED, d));
        rq__queue_class_add(q, RQ__CLASS_HAS_FID, rq__queue_number(q, RQ__GROUP_FID1_HAVE, d));
        rq__queue_class_add(q, RQ__CLASS_HAS_FID, rq__queue_number(q, RQ__GROUP_FID4_HAVE, d));
        rq__queue_class_add(q, RQ__CLASS_MULTIPATH, rq__queue_number(q, RQ__GROUP_FID4_HAVE, d));
        rq__queue_class_add(q, RQ__CLASS_MULTIPATH, rq__queue_number(q, RQ__GROUP_FID4_NEED, d));
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

/* Outputs are pushed (room checked by the caller) and traced in one place: OUT in the contract's
 * layout (index, bytes), then the ids it drops (TID, number, offset, what) that a consumer needs
 * to pair the record with its ACK / NACK, timeout or retransmission. */
static void rq__emit_block(rq_qos *q, const rq_block_desc *b)
{
    rnic_ring_push_n(&q->tx, b, sizeof *b);
    RNIC__TRACE(q, RNIC_TRACE_OUT, b->transfer, b->index, b->size);
    RNIC__TRACE(q, RQ_QOS_TRACE_BLOCK_ID, b->transfer, ((uint64_t)b->tid << 32) | b->seq,
                ((uint64_t)b->offset << 32) | RQ_QOS_OUT_BLOCK);
}

static void rq__emit_packet(rq_qos *q, const rq_packet *pk)
{
    rnic_ring_push_n(&q->pkt, pk, sizeof *pk);
    RNIC__TRACE(q, RNIC_TRACE_OUT, pk->transfer, pk->index, pk->size);
    RNIC__TRACE(q, RQ_QOS_TRACE_BLOCK_ID, pk->transfer, ((uint64_t)pk->tid << 32) | pk->seq, pk->kind); /* offset 0 */
}

/* Count an error event once: its code e in errors and, when r is e's reason, the reason. */
static rnic_err rq__note(rq_qos *q, rnic_err e, rq_qos_reason r)
{
    if (rq_qos_reason_code(r) == e)
        return rq_qos__reason_note(&q->stats.reasons, &q->stats.errors, r);
    return rnic_err_note(&q->stats.errors, e);
}

/* A refused input: counted once (errors by code, reasons by reason) and traced. */
static rnic_err rq__refuse(rq_qos *q, rq_qos_reason r, uint32_t id, uint64_t value)
{
    rnic_err e = rq__note(q, rq_qos_reason_code(r), r);
    RNIC__TRACE(q, RNIC_TRACE_REFUSE, id, value, (uint64_t)e); /* a = the value refused, b = the code */
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
static rq__accumulator *rq__acc(const rq_qos *q, uint32_t domain)
{
    return &q->acc[q->cfg.accumulators == 1u ? 0u : domain];
}

RQ_API bool rq_qos_domain_idle(const rq_qos *q, uint32_t domain)
{
    const rq__accumulator *a;
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
    return rq__queue_number(q, t->multipath ? RQ__GROUP_FID4_NEED : RQ__GROUP_FID1_NEED, prio);
}

/* A NULL record given to a peek: counted like a pop's (the engine is the caller's; only the
 * statistics change, as for every refused call). */
static rnic_err rq__peek_null(const rq_qos *q)
{ /* counted and traced like any refused call: the engine is the caller's, only statistics change */
    return rq__refuse((rq_qos *)(uintptr_t)q, RQ_QOS_REASON_NULL, RNIC_NONE, 0);
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
        return rq__refuse(q, RQ_QOS_REASON_NULL, RNIC_NONE, 0);
    return rnic_ring_pop_n(ring, out, size);
}

RQ_API uint32_t rq_qos_pending(const rq_qos *q) { return q ? q->npending : 0; }

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
static uint32_t rq__requeue_of(const rq_qos *q, const rq__xfer *x)
{
    if (x->is_inline || !x->cm)
        return RQ_QUEUE_TID_ONLY;
    return rq__queue_number(q, x->multipath ? RQ__GROUP_FID4_HAVE : RQ__GROUP_FID1_HAVE, x->prio);
}

static uint32_t rq__next_seq(rq_qos *q)
{
    uint32_t s = q->seq;
    q->seq = rnic_seq_add(q->seq, 1u, q->cfg.seq_bits);
    return s;
}

static uint32_t rq__block_tid(const rq_qos *q, const rq__xfer *x, const rq__meta *m, uint32_t block, uint32_t taken)
{
    if (!x->cm)
        return taken;
    return x->multipath ? rq_tid_multipath(&q->ids, m->fid, block) : rq_tid_unipath(&q->ids, m->fid, block);
}

/* Block `block` of the regular transfer on `line` (stage 3's arithmetic, §3.9.3). */
static void rq__fill_block(const rq_qos *q, const rq__xfer *x, uint32_t line, uint32_t block, rq_block_desc *b)
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

/* A transfer's end (DONE or ERROR): status, IDs of the flow back, its lines free. */
static void rq__finish(rq_qos *q, uint32_t line, rq_status st)
{
    rq__meta *m = &q->meta[line];
    const rq__xfer *x = &q->xfer[line];
    if (line % q->channels < q->cfg.write_channels) /* read channels have no status register */
        rq_status_set(&q->status, line / q->channels, line % q->channels, st);
    if (m->has_fid) /* FIDs return on completion (§3.11) */
        rq__defer_return(q, x->multipath ? RQ_POOL_FID4 : RQ_POOL_FID1, m->fid);
    /* a failed transfer's entry may still wait in a scheduling FIFO or stage 2: its lines stay
     * occupied until stage 2 drops it (rq__release_lines), else a new transfer on the line would
     * be served from the old entry (found by tests/fuzz/fuzz_qos.c) */
    if (!rq__entry_waits(q, line))
        rq__release_lines(q, line);
    if (st == RQ_DONE)
        q->stats.done++;
    else
        q->stats.failed++;
    RNIC__TRACE(q, RQ_QOS_TRACE_COMPLETE, line, (uint64_t)st, m->index);
}

/* Whether the transfer on `line` still has its entry in a scheduling FIFO or in stage 2. */
static bool rq__entry_waits(const rq_qos *q, uint32_t line)
{
    return rnic_ssfifo_is_queued(&q->sched, line) || (q->s2.valid && q->s2.line == line);
}

static void rq__release_lines(rq_qos *q, uint32_t line)
{
    q->occupied[line] = RQ__LINE_FREE;
    if (q->xfer[line].nlines == 2u)
        q->occupied[line + 1u] = RQ__LINE_FREE;
}

/* A failed transfer's last entry left stage 2: its held lines come free. */
static void rq__release_held(rq_qos *q, uint32_t line)
{
    rq__release_lines(q, line);
    RNIC__TRACE(q, RQ_QOS_TRACE_RELEASE, line, 0, q->meta[line].index);
}

/* A congestion-managed regular transfer needs an FID of a pool the config may leave empty
 * (fids_unipath 0, or fid_groups 0 for multipath): it is refused (RNIC_ENOSPC), else it would
 * wait for good (found by tests/fuzz/fuzz_qos.c). */
static bool rq__fid_pool_missing(const rq_qos *q, const rq_transfer *t)
{
    if (t->kind == RQ_KIND_INLINE || !t->cm)
        return false;
    return t->multipath ? q->cfg.ids.fid_groups == 0u : q->cfg.ids.fids_unipath == 0u;
}

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
    if (v && rq__ids_give_back(&q->ids, (rq_id_pool)v[0], v[1]) != RNIC_EBUSY)
        rnic_ring_pop(&q->id_returns, NULL);
}
