/* The AXI write slave (thesis §3.6, Fig. 3.5): the AW FIFO, the write-data stage (one beat per
 * cycle), the per-domain accumulators (or the as-built single one), Transfer Table port 0, the
 * descriptor's validation, status BUSY and the enqueue into the scheduling FIFOs; BRESP. */

RQ_API rnic_err rq_qos_axi_write(rq_qos *q, uint32_t domain, uint32_t addr, const uint64_t data[2], uint32_t bytes)
{
    rq__axi_beat b;
    if (!q)
        return RNIC_EINVAL;
    if (!data)
        return rq__refuse(q, RQ_QOS_REASON_NULL, addr >> 5, ((uint64_t)domain << 32) | addr);
    b.ready = q->now + 1u; /* the AW FIFO costs one cycle (§3.6.1 i) */
    b.data[0] = data[0];
    b.data[1] = bytes == 16u ? data[1] : 0;
    b.domain = domain;
    b.addr = addr;
    b.bytes = bytes;
    if (rnic_ring_push_n(&q->aw, &b, sizeof b) != RNIC_OK)
        return rq__refuse(q, RQ_QOS_REASON_AXI_WRITE_FULL, addr >> 5, ((uint64_t)domain << 32) | addr);
    RNIC__TRACE(q, RNIC_TRACE_PUSH, addr >> 5, ((uint64_t)domain << 32) | addr, bytes);
    return RNIC_OK;
}

RQ_API rnic_err rq_qos_pop_bresp(rq_qos *q, rq_axi_bresp *out)
{
    rnic_err e = q ? rq__pop_ring(q, &q->b, out, sizeof *out) : RNIC_EINVAL;
    if (e == RNIC_OK)
        RNIC__TRACE(q, RNIC_TRACE_POP, out->addr >> 5, (uint64_t)out->status, out->addr);
    return e;
}

RQ_API rnic_err rq_qos_peek_bresp(const rq_qos *q, rq_axi_bresp *out) { return q ? rq__peek_ring(q, &q->b, out, sizeof *out) : RNIC_EINVAL; }

/* The descriptor decoded once, when it is accepted (validated there). */
static void rq__xfer_set(rq_qos *q, uint32_t line, const rq_transfer *t, uint32_t nlines)
{
    rq__xfer *x = &q->xfer[line];
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
static void rq__meta_start(rq__meta *m)
{
    uint32_t index = m->next_index;
    RNIC_MEMSET(m, 0, sizeof *m);
    m->index = index;
    m->next_index = index + 1u;
}

/* Why a beat is refused before it touches the accumulator (RNIC_OK: it may go on). */
static rnic_err rq__beat_check(const rq_qos *q, const rq__axi_beat *b, uint32_t *line_out, uint32_t *word_out)
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

static void rq__bresp(rq_qos *q, const rq__axi_beat *b, rnic_err status)
{
    rq_axi_bresp r;
    RNIC_MEMSET(&r, 0, sizeof r); /* the record's padding too: callers may compare records whole */
    r.cycle = q->now;
    r.domain = b->domain;
    r.addr = b->addr;
    r.status = status;
    rnic_ring_push_n(&q->b, &r, sizeof r); /* room checked by the caller */
    q->stats.beats++;
    if (status != RNIC_OK) {
        rq_qos_reason why = status == RNIC_EALIGN   ? RQ_QOS_REASON_BEAT_ALIGN
                            : status == RNIC_ENOENT ? RQ_QOS_REASON_BEAT_UNKNOWN
                            : status == RNIC_EPERM  ? RQ_QOS_REASON_BEAT_PERM
                            : status == RNIC_ESTATE ? RQ_QOS_REASON_BEAT_INTERLEAVED
                            : status == RNIC_EBUSY  ? RQ_QOS_REASON_CHANNEL_BUSY
                            : status == RNIC_ERANGE ? RQ_QOS_REASON_DESC_RANGE
                            : status == RNIC_ENOSPC ? RQ_QOS_REASON_DESC_NO_FID
                                                    : RQ_QOS_REASON_DESC_INVALID;
        (void)rq__note(q, status, why);
        RNIC__TRACE(q, RNIC_TRACE_REFUSE, b->addr >> 5, b->addr, (uint64_t)status); /* a = what was refused, b = the code */
    }
    RNIC__TRACE(q, RNIC_TRACE_OUT, b->addr >> 5, (uint64_t)status, b->addr);
}

/* Every way the write-data stage ends with its beat: the beat leaves the AW FIFO and gets its
 * BRESP (status e); the domain's accumulator takes its new value *a (acc NULL: unchanged).
 * A refusal (e != RNIC_OK) with an accumulator abandons the descriptor being assembled. */
RQ__HOT void rq__write_answer(rq_qos *q, const rq__axi_beat *b, rnic_err e, rq__accumulator *acc, rq__accumulator *a)
{
    if (acc) {
        if (e != RNIC_OK)
            a->expect_line = RNIC_NONE; /* the descriptor is abandoned */
        if (acc != a)
            *acc = *a;
    }
    rq__bresp(q, b, e);         /* b is the AW FIFO's head: answered, then taken */
    rnic_ring_pop(&q->aw, NULL);
}

static void rq__write_stage(rq_qos *q)
{
    const rq__axi_beat *head = (const rq__axi_beat *)rnic_ring_peek(&q->aw);
    const rq__axi_beat *b;
    rq__accumulator a, *acc;
    rq_transfer t;
    uint32_t line = 0, word = 0, first, nlines, queue;
    rnic_err e;
    if (!head || rq__after(head->ready, q->now))
        return;
    if (rnic_ring_full(&q->b)) { /* no room for the response: the stage waits */
        q->stats.bresp_stalls++;
        return;
    }
    b = head; /* read in place: it leaves the FIFO with its answer */
    e = rq__beat_check(q, b, &line, &word);
    acc = rq__acc(q, b->domain < q->cfg.domains ? b->domain : 0u);
    if (e == RNIC_OK && (acc->line != RNIC_NONE || acc->expect_line != RNIC_NONE) && acc->domain != b->domain)
        e = RNIC_ESTATE; /* the single accumulator set holds another domain's descriptor (§3.6.1 i:
                          * "the interrupting descriptor write receives BRESP = ERROR") */
    if (e == RNIC_OK && acc->line != RNIC_NONE && acc->line != line)
        e = RNIC_ESTATE; /* interleaved with another line of this domain's accumulator */
    if (e != RNIC_OK) { /* the beat alone is refused: the accumulator keeps its descriptor */
        rq__write_answer(q, b, e, NULL, NULL);
        return;
    }
    if ((acc->have | (b->bytes == 16u ? 3u << word : 1u << word)) != 0xfu) {
        /* the line is not complete yet: the accumulator takes the beat in place */
        acc->line = line;
        acc->domain = b->domain;
        acc->words[word] = b->data[0];
        acc->have |= 1u << word;
        if (b->bytes == 16u) {
            acc->words[word + 1u] = b->data[1];
            acc->have |= 2u << word;
        }
        rq__write_answer(q, b, RNIC_OK, acc, acc);
        return;
    }
    a = *acc; /* a complete line: worked on in a copy (an enqueue stall leaves the accumulator as it was) */
    a.line = line;
    a.domain = b->domain;
    a.words[word] = b->data[0];
    a.have |= 1u << word;
    if (b->bytes == 16u) {
        a.words[word + 1u] = b->data[1];
        a.have |= 2u << word;
    }
    RNIC_ASSERT(a.have == 0xfu); /* a complete line */
    a.line = RNIC_NONE;
    a.have = 0;
    if (a.expect_line != RNIC_NONE && line != a.expect_line) {
        e = RNIC_ESTATE; /* a descriptor's second line must follow its first (§3.6.1 ii) */
    } else if (a.expect_line == RNIC_NONE && !(a.words[3] & RQ_DESC_LAST_LINE)) {
        /* the first line of a two-line descriptor: its second channel must exist and be free */
        uint32_t ch = line % q->channels;
        if (ch + 1u >= q->cfg.write_channels)
            e = RNIC_EINVAL;
        else if (q->occupied[line + 1u] || rq_status_peek(&q->status, b->domain, ch + 1u) != RQ_IDLE)
            e = RNIC_EBUSY;
        if (e == RNIC_OK) {
            RNIC_MEMCPY(&q->table[(size_t)line * 4u], a.words, sizeof a.words);
            q->table_port_used = true;
            a.expect_line = line + 1u;
            q->stats.lines_written++;
            rq__write_answer(q, b, RNIC_OK, acc, &a);
            return;
        }
    }
    if (e != RNIC_OK) {
        rq__write_answer(q, b, e, acc, &a);
        return;
    }
    /* the descriptor's last line: decode and validate */
    first = a.expect_line != RNIC_NONE ? line - 1u : line;
    nlines = a.expect_line != RNIC_NONE ? 2u : 1u;
    e = nlines == 2u ? rq_desc_decode(&q->table[(size_t)first * 4u], a.words, &t) : rq_desc_decode(a.words, NULL, &t);
    if (e == RNIC_OK && rq_desc_lines(nlines == 2u ? q->table[(size_t)first * 4u + 3u] : a.words[3]) != nlines)
        e = RNIC_EINVAL; /* defensive: rq_desc_decode's last-line check already implies the count */
    if (e == RNIC_OK && t.kind == RQ_KIND_REGULAR && (t.dst > UINT64_MAX - t.size || t.src > UINT64_MAX - t.size))
        e = RNIC_ERANGE; /* the addresses would wrap */
    if (e == RNIC_OK && rq__fid_pool_missing(q, &t))
        e = RNIC_ENOSPC;
    if (e != RNIC_OK) {
        rq__write_answer(q, b, e, acc, &a);
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
    q->occupied[first] = RQ__LINE_FIRST;
    if (nlines == 2u)
        q->occupied[first + 1u] = RQ__LINE_SECOND;
    rq_status_set(&q->status, b->domain, first % q->channels, RQ_BUSY);
    a.expect_line = RNIC_NONE;
    q->stats.lines_written++;
    q->stats.descriptors++;
    q->stats.transfers_enqueued++;
    RNIC__TRACE(q, RQ_QOS_TRACE_ACCEPT, first, queue, q->meta[first].index);
    rq__write_answer(q, b, RNIC_OK, acc, &a);
}
