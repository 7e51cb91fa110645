/* The composed RNIC's own modules -- the pieces no paper describes: the sending host (WQE
 * rings, the message generator, doorbells over PCIe), the per-flow segment rings between the
 * slicer and the pacer, a serialising pipe (PCIe payload reads, TX MAC + link, switch egress),
 * an output-queued switch port with ECN marking, and the receiver that checks every byte.
 *
 * Each follows the engine contract (docs/engine_contract.md) in the small: caller-owned state,
 * bounded ports (push answers RNIC_EBUSY when full, pop RNIC_EEMPTY when empty), a next_event
 * that is exact, and no floating point. Hosted code: it may use stdlib (the engines may not). */
#ifndef RNIC_MODEL_PARTS_H
#define RNIC_MODEL_PARTS_H
#include <stdlib.h>
#include <string.h>

/* ---- op bits the model sets on the entries it hands to Tassel (rnic_work.op, carried to the
 * packets untouched): where the piece sits in its message ---- */
#define RM_OP_WRITE 0x0au        /* low byte: the RoCEv2 opcode family (RDMA WRITE) */
#define RM_OP_MSG_FIRST 0x100u   /* the piece starts its message */
#define RM_OP_MSG_LAST 0x200u    /* the piece ends its message */

/* tag of a message: its post cycle (40 bits) and its per-flow sequence number (24 bits), so
 * the receiver measures latency and checks order from the packet alone */
#define RM_TAG(post_cycle, seq) (((uint64_t)(post_cycle) << 24) | ((uint64_t)(seq) & 0xffffffu))
#define RM_TAG_CYCLE(tag) ((tag) >> 24)
#define RM_TAG_SEQ(tag) ((uint32_t)((tag) & 0xffffffu))

/* ================= a serialising pipe: queue -> serialiser at a rate -> fixed latency ========
 * An item pushed at cycle t starts when the serialiser is free (max(t, busy)), occupies it for
 * (len + overhead) bytes at the pipe's rate, and can be popped `latency` cycles after its last
 * byte left. Capacity counts items anywhere in the pipe. */
typedef struct rm_slot {
    uint64_t ready;
    rnic_work w;
} rm_slot;

typedef struct rm_pipe {
    rm_slot *slot;
    uint32_t capacity, head, count, high_water;
    rnic_q32 cpb;        /* cycles per byte; 0: no serialisation (pure delay) */
    uint32_t overhead;   /* bytes added to every item on the wire */
    uint32_t latency;    /* cycles after serialisation */
    rnic_ftime busy;     /* when the serialiser is free */
    uint64_t now;
    uint64_t items, bytes, refused;
} rm_pipe;

static int rm_pipe_init(rm_pipe *p, uint32_t capacity, uint64_t bps, uint64_t clock_hz, uint32_t overhead,
                        uint32_t latency)
{
    memset(p, 0, sizeof *p);
    p->slot = (rm_slot *)calloc(capacity, sizeof *p->slot);
    if (!p->slot)
        return -1;
    p->capacity = capacity;
    p->overhead = overhead;
    p->latency = latency;
    if (bps && rnic_rate_to_cpb(bps, clock_hz, &p->cpb) != RNIC_OK)
        return -1;
    return 0;
}

static void rm_pipe_free(rm_pipe *p) { free(p->slot); }
static uint32_t rm_pipe_space(const rm_pipe *p) { return p->capacity - p->count; }

/* Bytes still waiting for the serialiser at `now` (the queue a switch port reports), rounded down. */
static uint64_t rm_pipe_backlog_bytes(const rm_pipe *p)
{
    rnic_ftime n = rnic_ftime_at(p->now);
    rnic_q32 d;
    if (!p->cpb || !rnic_ftime_before(n, p->busy) || rnic_ftime_diff(p->busy, n, &d) != RNIC_OK)
        return 0;
    return rnic_udiv64(d, p->cpb); /* (cycles in Q32.32) / (cycles per byte in Q32.32) */
}

static rnic_err rm_pipe_push(rm_pipe *p, const rnic_work *w)
{
    rm_slot *s;
    rnic_ftime start = rnic_ftime_at(p->now);
    if (p->count == p->capacity) {
        p->refused++;
        return RNIC_EBUSY;
    }
    if (rnic_ftime_before(start, p->busy))
        start = p->busy;
    if (p->cpb)
        rnic_ftime_add_bytes(&start, (uint64_t)w->len + p->overhead, p->cpb);
    p->busy = start;
    s = &p->slot[(p->head + p->count) % p->capacity];
    s->ready = rnic_ftime_ceil(start) + p->latency;
    s->w = *w;
    p->count++;
    if (p->count > p->high_water)
        p->high_water = p->count;
    p->items++;
    p->bytes += w->len;
    return RNIC_OK;
}

static rnic_err rm_pipe_peek(const rm_pipe *p, rnic_work *out)
{
    if (!p->count || p->slot[p->head].ready > p->now)
        return RNIC_EEMPTY;
    *out = p->slot[p->head].w;
    return RNIC_OK;
}

static rnic_err rm_pipe_pop(rm_pipe *p, rnic_work *out)
{
    if (rm_pipe_peek(p, out) != RNIC_OK)
        return RNIC_EEMPTY;
    p->head = (p->head + 1u) % p->capacity;
    p->count--;
    out->cycle = p->now;
    return RNIC_OK;
}

/* The cycle the head item can be popped (now when it already can); RNIC_NEVER when empty. */
static uint64_t rm_pipe_next_event(const rm_pipe *p)
{
    if (!p->count)
        return RNIC_NEVER;
    return p->slot[p->head].ready > p->now ? p->slot[p->head].ready : p->now;
}

static void rm_pipe_advance_to(rm_pipe *p, uint64_t cycle) { p->now = cycle; }

/* ================= the sending host: per-flow WQE rings and a backlogged generator ===========
 * Every flow keeps `depth` messages posted (a backlogged application). The host writes at most
 * one WQE per cycle (its CPU's posting rate) and rings the flow's doorbell with the new tail;
 * the doorbell reaches the NIC pcie_latency cycles later (an MMIO write over PCIe). A WQE's ring
 * slot is reused once the slicer has passed on its last piece (the record with
 * RNIC_WORK_LAST): the contract's "consumed" signal, no side table. A message counts as
 * outstanding until its last packet leaves the pacer (the send completion). */
typedef struct rm_flow_gen {
    rnic_prng prng;
    uint32_t head, tail; /* ring counters: oldest not consumed, next to post */
    uint32_t completed;  /* messages whose last byte left the NIC (the send completion) */
    uint32_t seq;        /* messages posted */
    uint64_t raddr;      /* next remote byte of the flow's target buffer */
    uint64_t posted_bytes, consumed_bytes;
    uint32_t stopped;
} rm_flow_gen;

typedef struct rm_doorbell {
    uint64_t at;
    uint32_t flow, tail;
} rm_doorbell;

typedef struct rm_host {
    uint32_t first_flow, nflows, ring, depth;
    uint32_t min_msg, max_msg;
    uint32_t pcie_latency;
    rnic_work *wqe;          /* nflows x ring */
    rm_flow_gen *gen;
    rm_doorbell *db;         /* doorbells in flight over PCIe (FIFO) */
    uint32_t db_cap, db_head, db_count;
    uint32_t cursor;         /* round-robin over flows for posting */
    uint64_t now;
    bool posting;            /* false: the run is draining, post nothing more */
    uint64_t msgs_posted, bytes_posted;
} rm_host;

static int rm_host_init(rm_host *h, uint32_t first_flow, uint32_t nflows, uint32_t ring, uint32_t depth,
                        uint32_t min_msg, uint32_t max_msg, uint32_t pcie_latency, uint64_t seed)
{
    uint32_t i;
    memset(h, 0, sizeof *h);
    h->first_flow = first_flow;
    h->nflows = nflows;
    h->ring = ring;
    h->depth = depth < ring ? depth : ring;
    h->min_msg = min_msg;
    h->max_msg = max_msg;
    h->pcie_latency = pcie_latency;
    h->wqe = (rnic_work *)calloc((size_t)nflows * ring, sizeof *h->wqe);
    h->gen = (rm_flow_gen *)calloc(nflows, sizeof *h->gen);
    h->db_cap = pcie_latency + 2u * nflows + 16u;
    h->db = (rm_doorbell *)calloc(h->db_cap, sizeof *h->db);
    if (!h->wqe || !h->gen || !h->db)
        return -1;
    for (i = 0; i < nflows; i++) {
        rnic_prng_seed(&h->gen[i].prng, seed ^ ((uint64_t)(first_flow + i) * 0x9e3779b97f4a7c15ull));
        h->gen[i].raddr = (uint64_t)(first_flow + i) << 40;
    }
    h->posting = true;
    return 0;
}

static void rm_host_free(rm_host *h)
{
    free(h->wqe);
    free(h->gen);
    free(h->db);
}

/* The rnic_source_fn the slicer reads WQEs through: entries by index, never consumed here. */
static uint32_t rm_host_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    rm_host *h = (rm_host *)user;
    rm_flow_gen *g;
    uint32_t n = 0, local = flow - h->first_flow;
    if (local >= h->nflows)
        return 0;
    g = &h->gen[local];
    while (n < max && (uint32_t)(index + n - g->head) < (uint32_t)(g->tail - g->head)) {
        out[n] = h->wqe[(size_t)local * h->ring + ((index + n) % h->ring)];
        n++;
    }
    return n;
}

/* The slicer passed on the last piece of WQE `index` of `flow`: its slot may be reused. */
static int rm_host_consumed(rm_host *h, uint32_t flow, uint32_t index, uint32_t len)
{
    rm_flow_gen *g = &h->gen[flow - h->first_flow];
    if (index != g->head)
        return -1; /* a flow's WQEs are consumed in order */
    g->head++;
    g->consumed_bytes += len;
    return 0;
}

/* The NIC sent the last byte of the flow's oldest outstanding message: a send completion.
 * The application keeps `depth` messages outstanding (posted, not completed). */
static void rm_host_completed(rm_host *h, uint32_t flow) { h->gen[flow - h->first_flow].completed++; }

static bool rm_host_can_post(const rm_host *h, const rm_flow_gen *g)
{
    return (uint32_t)(g->tail - g->completed) < h->depth && (uint32_t)(g->tail - g->head) < h->ring;
}

/* One cycle of the host: post one WQE (round robin over flows with room) and hand the
 * doorbells whose PCIe latency has passed to `ring(flow, tail)`. */
static void rm_host_step(rm_host *h, void (*ring)(void *, uint32_t, uint32_t), void *ctx,
                         rnic_trace *trace)
{
    uint32_t k;
    while (h->db_count && h->db[h->db_head].at <= h->now) {
        rm_doorbell *d = &h->db[h->db_head];
        ring(ctx, d->flow, d->tail);
        h->db_head = (h->db_head + 1u) % h->db_cap;
        h->db_count--;
    }
    if (!h->posting || h->db_count == h->db_cap)
        return;
    for (k = 0; k < h->nflows; k++) {
        uint32_t local = (h->cursor + k) % h->nflows;
        rm_flow_gen *g = &h->gen[local];
        if (rm_host_can_post(h, g)) {
            rnic_work *w = &h->wqe[(size_t)local * h->ring + (g->tail % h->ring)];
            uint32_t len = (uint32_t)rnic_prng_log_range(&g->prng, h->min_msg, h->max_msg);
            memset(w, 0, sizeof *w);
            w->flow = h->first_flow + local;
            w->index = g->tail;
            w->len = len;
            w->addr = ((uint64_t)w->flow << 36) + ((uint64_t)(g->tail % h->ring) << 24);
            w->raddr = g->raddr;
            w->tag = RM_TAG(h->now, g->seq);
            w->op = RM_OP_WRITE;
            g->raddr += len;
            g->seq++;
            g->tail++;
            g->posted_bytes += len;
            h->msgs_posted++;
            h->bytes_posted += len;
            rnic_trace_emit(trace, h->now, (uint16_t)RNIC_ENGINE_MODEL, 1, w->flow, w->tag, len);
            {
                rm_doorbell *d = &h->db[(h->db_head + h->db_count) % h->db_cap];
                d->at = h->now + h->pcie_latency;
                d->flow = w->flow;
                d->tail = g->tail;
            }
            h->db_count++;
            h->cursor = (local + 1u) % h->nflows;
            return;
        }
    }
}

/* The next cycle the host does something: a doorbell arrives, or it can post. */
static uint64_t rm_host_next_event(const rm_host *h)
{
    uint64_t next = h->db_count ? h->db[h->db_head].at : RNIC_NEVER;
    uint32_t i;
    if (next <= h->now)
        return h->now;
    if (h->posting && h->db_count < h->db_cap)
        for (i = 0; i < h->nflows; i++)
            if (rm_host_can_post(h, &h->gen[i]))
                return h->now;
    return next;
}

/* ================= per-flow segment rings between the slicer and the pacer ===================
 * The transport's per-flow segment rings (DESIGN: Tassel's WQE source); until transport.h lands
 * they hold the slicer's pieces as they are. Tassel reads them by index through rm_stage_source
 * and says it is done with an entry by the packet carrying RNIC_WORK_LAST. */
typedef struct rm_stage {
    rnic_work *e;       /* nflows x depth */
    uint32_t *head, *tail;
    uint32_t nflows, depth, high_water;
} rm_stage;

static int rm_stage_init(rm_stage *s, uint32_t nflows, uint32_t depth)
{
    memset(s, 0, sizeof *s);
    s->e = (rnic_work *)calloc((size_t)nflows * depth, sizeof *s->e);
    s->head = (uint32_t *)calloc(nflows, sizeof *s->head);
    s->tail = (uint32_t *)calloc(nflows, sizeof *s->tail);
    s->nflows = nflows;
    s->depth = depth;
    return (s->e && s->head && s->tail) ? 0 : -1;
}

static void rm_stage_free(rm_stage *s)
{
    free(s->e);
    free(s->head);
    free(s->tail);
}

static uint32_t rm_stage_space(const rm_stage *s, uint32_t flow) { return s->depth - (s->tail[flow] - s->head[flow]); }

static void rm_stage_push(rm_stage *s, const rnic_work *piece)
{
    uint32_t f = piece->flow, used;
    rnic_work *e = &s->e[(size_t)f * s->depth + (s->tail[f] % s->depth)];
    *e = *piece;
    e->index = s->tail[f];
    e->offset = 0; /* the entry is the piece: Tassel's offsets count inside it */
    e->flags = 0;
    e->op = piece->op | ((piece->flags & RNIC_WORK_FIRST) ? RM_OP_MSG_FIRST : 0u) |
            ((piece->flags & RNIC_WORK_LAST) ? RM_OP_MSG_LAST : 0u);
    s->tail[f]++;
    used = s->tail[f] - s->head[f];
    if (used > s->high_water)
        s->high_water = used;
}

static uint32_t rm_stage_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    rm_stage *s = (rm_stage *)user;
    uint32_t n = 0;
    if (flow >= s->nflows)
        return 0;
    while (n < max && (uint32_t)(index + n - s->head[flow]) < (uint32_t)(s->tail[flow] - s->head[flow])) {
        out[n] = s->e[(size_t)flow * s->depth + ((index + n) % s->depth)];
        n++;
    }
    return n;
}

static int rm_stage_consumed(rm_stage *s, uint32_t flow, uint32_t index)
{
    if (flow >= s->nflows || index != s->head[flow])
        return -1;
    s->head[flow]++;
    return 0;
}

/* ================= an output-queued switch port ==============================================
 * Packets from every input link share one queue of `buffer` bytes in front of the egress
 * serialiser. A packet that finds more than ecn_k bytes queued is marked CE (if ECN-capable);
 * one that does not fit is dropped and counted (nothing here retransmits yet: the run reports
 * bytes_lost). */
typedef struct rm_switch {
    rm_pipe egress;
    uint64_t buffer, ecn_k;
    uint64_t max_queue_bytes, marked, dropped, dropped_bytes;
} rm_switch;

#define RM_ECN_CE 3u /* rnic_work.aux bits 0..1 on the model's packets: the IP ECN field */
#define RM_ECN_ECT0 2u

static rnic_err rm_switch_push(rm_switch *sw, rnic_work *w, rnic_trace *trace)
{
    uint64_t q = rm_pipe_backlog_bytes(&sw->egress);
    if (q > sw->max_queue_bytes)
        sw->max_queue_bytes = q;
    if (q + w->len > sw->buffer || rm_pipe_space(&sw->egress) == 0) {
        sw->dropped++;
        sw->dropped_bytes += w->len;
        rnic_trace_emit(trace, sw->egress.now, (uint16_t)(RNIC_ENGINE_MODEL + 1u), 2, w->flow, w->tag, w->len);
        return RNIC_ENOSPC;
    }
    if (q > sw->ecn_k && (w->aux & 3u) != 0) {
        w->aux = (w->aux & ~3u) | RM_ECN_CE;
        sw->marked++;
    }
    return rm_pipe_push(&sw->egress, w);
}

/* ================= the receiver: checks and counts every byte per flow ======================= */
typedef struct rm_rx_flow {
    uint64_t next_raddr;     /* bytes arrive in order and contiguous per flow */
    uint32_t next_seq;       /* messages in order */
    uint32_t in_msg;         /* inside a message (its first packet seen) */
    uint64_t bytes, msgs;
    uint64_t window_bytes, window_msgs;
    uint64_t errors;
} rm_rx_flow;

typedef struct rm_receiver {
    rm_rx_flow *f;
    uint32_t nflows;
    uint64_t now, window_start, window_end;
    uint64_t packets, bytes, bad, ce;
    uint64_t *lat;           /* message latencies in cycles, per message in the window */
    uint32_t *lat_flow;
    size_t nlat, lat_cap;
} rm_receiver;

static int rm_receiver_init(rm_receiver *r, uint32_t nflows)
{
    uint32_t i;
    memset(r, 0, sizeof *r);
    r->f = (rm_rx_flow *)calloc(nflows, sizeof *r->f);
    r->nflows = nflows;
    if (!r->f)
        return -1;
    for (i = 0; i < nflows; i++)
        r->f[i].next_raddr = (uint64_t)i << 40;
    return 0;
}

static void rm_receiver_free(rm_receiver *r)
{
    free(r->f);
    free(r->lat);
    free(r->lat_flow);
}

static void rm_receiver_take(rm_receiver *r, const rnic_work *w, rnic_trace *trace)
{
    rm_rx_flow *f;
    int ok = 1;
    r->packets++;
    rnic_trace_emit(trace, r->now, (uint16_t)(RNIC_ENGINE_MODEL + 2u), 3, w->flow, w->raddr, w->len);
    if (w->flow >= r->nflows || (w->flags & RNIC_WORK_ERROR)) {
        r->bad++;
        return;
    }
    f = &r->f[w->flow];
    if ((w->aux & 3u) == RM_ECN_CE)
        r->ce++;
    if (w->raddr != f->next_raddr || RM_TAG_SEQ(w->tag) != (f->next_seq & 0xffffffu))
        ok = 0;
    if ((w->op & RM_OP_MSG_FIRST) && (w->flags & RNIC_WORK_FIRST)) {
        if (f->in_msg)
            ok = 0;
        f->in_msg = 1;
    } else if (!f->in_msg) {
        ok = 0;
    }
    if (!ok) {
        f->errors++;
        r->bad++;
        return;
    }
    f->next_raddr += w->len;
    f->bytes += w->len;
    r->bytes += w->len;
    if (r->now >= r->window_start && r->now < r->window_end)
        f->window_bytes += w->len;
    if ((w->op & RM_OP_MSG_LAST) && (w->flags & RNIC_WORK_LAST)) {
        f->in_msg = 0;
        f->next_seq++;
        f->msgs++;
        if (r->now >= r->window_start && r->now < r->window_end) {
            f->window_msgs++;
            if (r->nlat == r->lat_cap) {
                size_t cap = r->lat_cap ? r->lat_cap * 2u : 4096u;
                uint64_t *l = (uint64_t *)realloc(r->lat, cap * sizeof *l);
                uint32_t *lf = (uint32_t *)realloc(r->lat_flow, cap * sizeof *lf);
                if (!l || !lf) {
                    free(l ? l : r->lat);
                    free(lf ? lf : r->lat_flow);
                    r->lat = NULL;
                    r->lat_flow = NULL;
                    r->nlat = r->lat_cap = 0;
                    return;
                }
                r->lat = l;
                r->lat_flow = lf;
                r->lat_cap = cap;
            }
            r->lat[r->nlat] = r->now - RM_TAG_CYCLE(w->tag);
            r->lat_flow[r->nlat] = w->flow;
            r->nlat++;
        }
    }
}
#endif
