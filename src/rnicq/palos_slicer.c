/* Palos Fig. 5, steps 5-6: message slicing. A visit's credit (the flow's chunk from rq_pw plus
 * what it carried), WQEs passed whole or cut where the credit ends, several launched per cycle,
 * the head and fetch offset written back once per launch, the visit's end (deficit round robin);
 * the latency class's one message per visit and a bandwidth visit stepping aside for it. */

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
    const rq__palos_visit *v = &p->visit;
    rq__palos_qp *q = &p->qps[v->qp];
    q->head = v->head;
    q->offset = v->offset;
    q->cut = (uint8_t)v->cut;
}

static void rq__palos_begin_visit(rq_palos *p, const rq__palos_slot *s)
{
    rq__palos_visit *v = &p->visit;
    rq__palos_qp *q = &p->qps[s->qp];
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
    RNIC__TRACE(p, RQ_PALOS_TRACE_VISIT_START, s->qp, (uint64_t)v->credit, v->small);
}

static void rq__palos_end_visit(rq_palos *p)
{
    rq__palos_visit *v = &p->visit;
    rq__palos_qp *q = &p->qps[v->qp];
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
    RNIC__TRACE(p, RQ_PALOS_TRACE_VISIT_END, v->qp, (uint64_t)q->credit, (uint32_t)(q->posted - q->head));
}

static bool rq__palos_wqe_ok(const rnic_work *w)
{
    return w->len >= 1u && w->len <= RQ__PALOS_MAX_PIECE && w->len - 1u <= UINT64_MAX - w->addr &&
           w->len - 1u <= UINT64_MAX - w->raddr; /* last byte, local and remote, <= 2^64-1 */
}

/* After a piece or an error record: does the visit go on, read another batch, or end? */
static void rq__palos_step_done(rq_palos *p, rnic_work *o, bool cut)
{
    rq__palos_visit *v = &p->visit;
    const rq__palos_qp *q = &p->qps[v->qp];
    bool end, paused = false;
    bool error = (o->flags & RNIC_WORK_ERROR) != 0u;
    if (p->cfg.mode == RQ_PALOS_PACKET_RR)
        end = !error || v->left == 0u; /* one packet per visit */
    else if (cut || (v->latency && !error) || v->credit <= rq__palos_go_on_floor(p))
        end = true; /* the chunk is used (a latency visit: one message) */
    else if (v->left == 0u && v->head != q->tail) {
        /* credit left and WQEs posted beyond the batch: read the next batch for this visit, so
         * that a chunk is never cut short by max_batch (Eq. 1 whatever the message size) */
        const rq__palos_slot *ls = (const rq__palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_LATENCY]);
        uint32_t pending = q->tail - v->head;
        v->left = pending < p->cfg.max_batch ? pending : p->cfg.max_batch;
        v->ready = p->now + p->fetch_latency;
        v->new_batch = 1; /* a launch holds WQEs of one batch */
        p->stats.refetches++;
        end = false;
        RNIC__TRACE(p, RQ_PALOS_TRACE_FETCH, v->qp, v->left, v->ready);
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
    RNIC__TRACE_REC(p, RNIC_TRACE_OUT, o); /* the contract's layout: id = flow, a = index, b = len */
    if (paused)
        RNIC__TRACE(p, RQ_PALOS_TRACE_PAUSE, o->flow, 0, 0);
    if (end)
        rq__palos_end_visit(p);
}

/* Read the WQE at the QP's head from the source: RNIC_OK, or why it is refused. */
static rnic_err rq__palos_read_wqe(rq_palos *p)
{
    rq__palos_visit *v = &p->visit;
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
    rq__palos_visit *v = &p->visit;
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
            (void)rq__palos_note(p, e, e == RNIC_ENOENT ? RQ_PALOS_REASON_WQE_MISSING : RQ_PALOS_REASON_WQE_BAD);
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
    rq__palos_visit *v = &p->visit;
    if (!v->active) { /* a ready latency batch, else a paused visit, else a ready bandwidth batch */
        const rq__palos_slot *s = (const rq__palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_LATENCY]);
        rq__palos_slot taken;
        uint32_t cls = RQ_PALOS_LATENCY;
        if ((!s || !rq__palos_due(s->ready, p->now)) && p->paused.active) {
            *v = p->paused;
            p->paused.active = 0;
            RNIC__TRACE(p, RQ_PALOS_TRACE_RESUME, v->qp, 0, 0);
        } else {
            if (!s || !rq__palos_due(s->ready, p->now)) {
                s = (const rq__palos_slot *)rnic_ring_peek(&p->slots[RQ_PALOS_BANDWIDTH]);
                cls = RQ_PALOS_BANDWIDTH;
            }
            if (!s || !rq__palos_due(s->ready, p->now))
                return;
            (void)rnic_ring_pop(&p->slots[cls], &taken);
            if (p->qps[taken.qp].held) {
                /* held since it was fetched: the visit does not begin (no chunk is drawn, the
                 * carried credit stays), the batch is dropped and the QP parked */
                p->stats.held_visit_ends++;
                rq__palos_park(p, taken.qp);
                return;
            }
            rq__palos_begin_visit(p, &taken);
        }
    }
    if (p->qps[v->qp].held) {
        /* held: the visit ends before its next launch, as a visit whose credit ran out would
         * (credit carried, the QP parked by rq__palos_enqueue while WQEs remain) */
        p->stats.held_visit_ends++;
        rq__palos_end_visit(p);
        return;
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
