/* The RED-SEA QoS engine (interface: qos_api.h; cycle semantics: docs/rnicq_qos_model.md).
 * This part: configuration, memory, the AXI write path (AW FIFO -> write-data stage ->
 * per-domain accumulators -> Transfer Table -> validation -> status BUSY -> enqueue into the
 * scheduling FIFOs) and the AXI status reads. */

RQ_API void rq_qos_config_default(rq_qos_config *cfg)
{
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = 150000000ull;
    cfg->domains = 16;
    cfg->write_channels = 64;
    cfg->read_channels = 64;
    cfg->intra_priorities = 16;
    cfg->block_bytes = 65536;
    cfg->max_outstanding = 2;
    rq_ids_config_default(&cfg->ids);
    cfg->aw_fifo = 8;
    cfg->b_fifo = 8;
    cfg->read_port = 8;
}

static bool rq__qos_config_valid(const rq_qos_config *c)
{
    uint64_t lines;
    if (!c || c->clock_hz < 1000000u || c->domains == 0 || c->domains > 1024u || c->write_channels == 0 ||
        c->write_channels % 32u || c->intra_priorities == 0 || c->intra_priorities > 16u || c->block_bytes < 64u ||
        c->block_bytes > ((uint32_t)1 << 30) || (c->block_bytes & (c->block_bytes - 1u)) || c->max_outstanding == 0 ||
        c->max_outstanding > 15u || c->aw_fifo == 0 || c->b_fifo == 0 || c->read_port == 0 ||
        rq_ids_mem_size(&c->ids) == 0)
        return false;
    lines = (uint64_t)c->domains * ((uint64_t)c->write_channels + c->read_channels);
    return lines <= ((uint64_t)1 << 20) && rq_status_mem_size(c->domains, c->write_channels) != 0;
}

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
    RQ__PART((size_t)c->domains * sizeof(rq_accumulator), q->acc = (rq_accumulator *)(void *)(mem + at));
    RQ__PART(rnic_ssfifo_mem_size(&fc), rnic_ssfifo_init(&q->sched, &fc, mem + at, n));
    RQ__PART(rq_ids_mem_size(&c->ids), rq_ids_init(&q->ids, &c->ids, mem + at, n));
    RQ__PART(rq_status_mem_size(c->domains, c->write_channels),
             rq_status_init(&q->status, c->domains, c->write_channels, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_beat), c->aw_fifo), rnic_ring_init(&q->aw, sizeof(rq_axi_beat), c->aw_fifo, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_bresp), c->b_fifo), rnic_ring_init(&q->b, sizeof(rq_axi_bresp), c->b_fifo, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_read), c->read_port), rnic_ring_init(&q->rd, sizeof(rq_axi_read), c->read_port, mem + at, n));
    RQ__PART(rnic_ring_mem_size(sizeof(rq_axi_rdata), c->read_port), rnic_ring_init(&q->r, sizeof(rq_axi_rdata), c->read_port, mem + at, n));
#undef RQ__PART
    return off;
}

RQ_API size_t rq_qos_mem_size(const rq_qos_config *cfg)
{
    return rq__qos_config_valid(cfg) ? rq__qos_layout(cfg, NULL, NULL) : 0;
}

RQ_API rnic_err rq_qos_init(rq_qos *q, const rq_qos_config *cfg, void *mem, size_t size)
{
    size_t need;
    uint32_t d;
    if (!q || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || !rq__qos_config_valid(cfg))
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
    for (d = 0; d < cfg->domains; d++)
        q->acc[d].line = q->acc[d].expect_line = RNIC_NONE;
    return RNIC_OK;
}

RQ_API uint64_t rq_qos_now(const rq_qos *q) { return q->now; }
RQ_API const rq_qos_stats *rq_qos_get_stats(const rq_qos *q) { return &q->stats; }

RQ_API uint32_t rq_qos_queue_of(const rq_qos *q, const rq_transfer *t)
{
    uint32_t p = q->cfg.intra_priorities, prio = t->prio < p ? t->prio : p - 1u;
    if (t->kind == RQ_KIND_INLINE || !t->cm)
        return RQ_QUEUE_TID_ONLY;
    /* 2 .. 2+P-1: 1xFID have-FID; then 1xFID no-FID; 4xFID have-FID; 4xFID no-FID */
    return 2u + (t->multipath ? 3u : 1u) * p + prio;
}

/* ---- inputs ---- */

RQ_API rnic_err rq_qos_axi_write(rq_qos *q, uint32_t domain, uint32_t addr, const uint64_t data[2], uint32_t bytes)
{
    rq_axi_beat b;
    if (!data)
        return rnic_err_note(&q->stats.errors, RNIC_EINVAL);
    b.ready = q->now + 1u; /* the AW FIFO costs one cycle (§3.6.1 i) */
    b.data[0] = data[0];
    b.data[1] = bytes == 16u ? data[1] : 0;
    b.domain = domain;
    b.addr = addr;
    b.bytes = bytes;
    if (rnic_ring_push(&q->aw, &b) != RNIC_OK) {
        q->stats.port_full++;
        return RNIC_EBUSY;
    }
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_axi_read(rq_qos *q, uint32_t domain, uint32_t page, uint32_t index, uint32_t mode)
{
    rq_axi_read rd;
    rd.ready = q->now + 1u;
    rd.domain = domain;
    rd.page = page;
    rd.index = index;
    rd.mode = mode;
    if (rnic_ring_push(&q->rd, &rd) != RNIC_OK) {
        q->stats.port_full++;
        return RNIC_EBUSY;
    }
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_pop_bresp(rq_qos *q, rq_axi_bresp *out) { return rnic_ring_pop(&q->b, out); }
RQ_API rnic_err rq_qos_pop_rdata(rq_qos *q, rq_axi_rdata *out) { return rnic_ring_pop(&q->r, out); }

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
    rnic_ring_push(&q->b, &r); /* room checked by the caller */
    q->stats.beats++;
    if (status != RNIC_OK) {
        q->stats.beats_refused++;
        rnic_err_note(&q->stats.errors, status);
    }
}

static void rq__write_stage(rq_qos *q)
{
    const rq_axi_beat *head = (const rq_axi_beat *)rnic_ring_peek(&q->aw);
    rq_axi_beat b;
    rq_accumulator a;
    rq_transfer t;
    uint32_t line = 0, word = 0, first, nlines, queue;
    rnic_err e;
    if (!head || head->ready > q->now)
        return;
    if (rnic_ring_full(&q->b)) { /* no room for the response: the stage waits */
        q->stats.bresp_stalls++;
        return;
    }
    b = *head;
    e = rq__beat_check(q, &b, &line, &word);
    if (e == RNIC_OK) {
        a = q->acc[b.domain];
        if (a.line != RNIC_NONE && a.line != line)
            e = RNIC_ESTATE; /* interleaved with another line of this domain's accumulator */
    }
    if (e != RNIC_OK) {
        rnic_ring_pop(&q->aw, NULL);
        rq__bresp(q, &b, e);
        return;
    }
    a.line = line;
    a.words[word] = b.data[0];
    a.have |= 1u << word;
    if (b.bytes == 16u) {
        a.words[word + 1u] = b.data[1];
        a.have |= 2u << word;
    }
    if (a.have != 0xfu) { /* the line is not complete yet */
        q->acc[b.domain] = a;
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
            a.expect_line = line + 1u;
            q->acc[b.domain] = a;
            q->stats.lines_written++;
            rnic_ring_pop(&q->aw, NULL);
            rq__bresp(q, &b, RNIC_OK);
            return;
        }
    }
    if (e != RNIC_OK) {
        a.expect_line = RNIC_NONE; /* the descriptor is abandoned */
        q->acc[b.domain] = a;
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
    if (e != RNIC_OK) {
        a.expect_line = RNIC_NONE;
        q->acc[b.domain] = a;
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
    q->occupied[first] = 1;
    if (nlines == 2u)
        q->occupied[first + 1u] = 2;
    rq_status_set(&q->status, b.domain, first % q->channels, RQ_BUSY);
    a.expect_line = RNIC_NONE;
    q->acc[b.domain] = a;
    q->stats.lines_written++;
    q->stats.descriptors++;
    q->stats.transfers_enqueued++;
    rnic_ring_pop(&q->aw, NULL);
    rq__bresp(q, &b, RNIC_OK);
}

/* ---- the AXI read stage: one status read per cycle ---- */

static void rq__read_stage(rq_qos *q)
{
    const rq_axi_read *head = (const rq_axi_read *)rnic_ring_peek(&q->rd);
    rq_axi_rdata out;
    rq_status st = RQ_IDLE;
    if (!head || head->ready > q->now || rnic_ring_full(&q->r))
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
    rnic_ring_pop(&q->rd, NULL);
    rnic_ring_push(&q->r, &out);
}

RQ_API void rq_qos_tick(rq_qos *q)
{
    /* enqueue priority: message handler (ACK) > segmenter > AXI write stage > remote reads;
     * the first two are not modelled yet, so the AXI stage has the port to itself */
    rq__write_stage(q);
    rq__read_stage(q);
    rq_ids_tick(&q->ids);
    rnic_ssfifo_tick(&q->sched);
    q->enq_port_used = false;
    q->now++;
    q->stats.cycles++;
}
