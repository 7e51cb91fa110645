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
#include "lat_store.h"

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
/* ---- the trace events of the model's own modules (rnic_trace_event: engine, kind; the trace
 * CSV names them, examples/rnic_model/fm_trace.h) ---- */
#define RM_TRACE_HOST RNIC_ENGINE_MODEL              /* engine: the sending host (rm_host, rm_qos_host) */
#define RM_TRACE_RECEIVER (RNIC_ENGINE_MODEL + 2u)   /* engine: the receiver's byte checker (rm_receiver) */
#define RM_TRACE_POST 1u         /* host: a message posted: id = QP, a = tag (RM_TAG) or message number, b = bytes */
#define RM_TRACE_TRANSFER_END 4u /* host (sched = qos): a transfer's status read: id = QP, a = latency (cycles), b = status */
#define RM_TRACE_CHECK 3u        /* receiver: a packet checked in order: id = rx flow, a = remote address, b = bytes */
#define RM_TRACE_PLACE 4u        /* receiver (out-of-order kinds): a packet placed: id = rx flow, a = remote address, b = bytes */

/* qos mode: a block's tag carries what the receiver's ACK needs back -- the block's TID and
 * sequence number -- and, in the same low 24 bits as RM_TAG, the message's number on its flow */
#define RM_QOS_TAG(tid, seq, msg_seq)                                                              \
    (((uint64_t)((tid) & 0xffffu) << 48) | ((uint64_t)((seq) & 0xffffu) << 32) | ((uint64_t)(msg_seq) & 0xffffffu))
#define RM_QOS_TAG_TID(tag) ((uint32_t)((tag) >> 48))
#define RM_QOS_TAG_SEQ(tag) ((uint32_t)((tag) >> 32) & 0xffffu)

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
 * outstanding until the transport reports it fully acknowledged (the send completion). */
typedef struct rm_flow_gen {
    rnic_prng prng;
    uint32_t head, tail; /* ring counters: oldest not consumed, next to post */
    uint32_t completed;  /* messages whose last byte left the NIC (the send completion) */
    uint32_t seq;        /* messages posted */
    uint64_t raddr;      /* next remote byte of the flow's target buffer */
    uint64_t posted_bytes;
    uint32_t stopped;
    uint32_t min_msg, max_msg; /* the flow's message sizes (rm_host_set_sizes; the host's by default) */
    uint8_t postable;          /* rm_host_can_post, kept by rm_host__recount */
    uint8_t open;              /* an open-loop QP: posts the jobs given to it, nothing else */
    uint32_t wait_head, wait_tail, waiting; /* open: its jobs not yet posted (FIFO through rm_job.next) */
    uint32_t out_head, out_tail;            /* open: its jobs posted, not completed, oldest first */
    uint64_t cnps;             /* CNPs the QP received (a job's CNPs: the difference over its life) */
} rm_flow_gen;

/* A flow of an open-loop workload at its sending host (the fabric's fm_job keeps the rest): it
 * arrives at `start`, goes to the least loaded of its QPs (qp0 .. qp0 + nqp - 1, this host's
 * numbers), is posted as one message and completes when its transport reports the message
 * acknowledged. Cycles; `done` 0 = not yet. */
typedef struct rm_job {
    uint64_t start, posted, done;
    uint32_t size;
    uint32_t qp0, nqp, qp;
    uint32_t next;             /* the next job in its QP's FIFO (RM_NO_JOB: none) */
    uint64_t cnps_at_post;
} rm_job;
#define RM_NO_JOB 0xffffffffu

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
    bool posting;            /* false: the run is draining, post nothing more (open-loop jobs still are) */
    uint32_t postable;       /* flows with room to post (the step and next event scan none while 0) */
    uint64_t msgs_posted, bytes_posted;
    rm_job *job;             /* the workload's jobs (rm_host_set_jobs; not owned) */
    const uint32_t *arrivals; /* this host's jobs in start order (not owned) */
    uint32_t narrivals, next_arrival;
    uint64_t jobs_done;
    void (*on_job_done)(void *user, uint32_t job); /* optional: told as each job completes */
    void *job_user;
} rm_host;

static bool rm_host_can_post(const rm_host *h, const rm_flow_gen *g);
/* Flow g's room to post after its counters moved. */
static void rm_host__recount(rm_host *h, rm_flow_gen *g)
{
    uint8_t can = rm_host_can_post(h, g) ? 1u : 0u;
    if (can != g->postable) {
        g->postable = can;
        if (can)
            h->postable++;
        else
            h->postable--;
    }
}

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
    h->posting = true;
    for (i = 0; i < nflows; i++) {
        rnic_prng_seed(&h->gen[i].prng, seed ^ ((uint64_t)(first_flow + i) * 0x9e3779b97f4a7c15ull));
        h->gen[i].raddr = (uint64_t)(first_flow + i) << 40;
        h->gen[i].min_msg = min_msg;
        h->gen[i].max_msg = max_msg;
        rm_host__recount(h, &h->gen[i]);
    }
    return 0;
}

/* Message sizes of one flow (e.g. a tenant's): log-uniform in [min_msg, max_msg]. */
static void rm_host_set_sizes(rm_host *h, uint32_t flow, uint32_t min_msg, uint32_t max_msg)
{
    h->gen[flow - h->first_flow].min_msg = min_msg;
    h->gen[flow - h->first_flow].max_msg = max_msg;
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
static int rm_host_consumed(rm_host *h, uint32_t flow, uint32_t index)
{
    rm_flow_gen *g = &h->gen[flow - h->first_flow];
    if (index != g->head)
        return -1; /* a flow's WQEs are consumed in order */
    g->head++;
    rm_host__recount(h, g);
    return 0;
}

/* The NIC sent the last byte of the flow's oldest outstanding message: a send completion.
 * The application keeps `depth` messages outstanding (posted, not completed). */
static void rm_host_completed(rm_host *h, uint32_t flow)
{
    rm_flow_gen *g = &h->gen[flow - h->first_flow];
    g->completed++;
    if (g->open && g->out_head != RM_NO_JOB) { /* in order: an RC QP completes its messages in order */
        rm_job *j = &h->job[g->out_head];
        j->done = h->now;
        if (h->on_job_done) /* a watcher (fm_ext.h's users: an ns-3 trace source) */
            h->on_job_done(h->job_user, g->out_head);
        g->out_head = j->next;
        if (g->out_head == RM_NO_JOB)
            g->out_tail = RM_NO_JOB;
        h->jobs_done++;
    }
    rm_host__recount(h, g);
}

static bool rm_host_can_post(const rm_host *h, const rm_flow_gen *g)
{
    if (g->open ? !g->waiting : !h->posting)
        return false;
    return (uint32_t)(g->tail - g->completed) < h->depth && (uint32_t)(g->tail - g->head) < h->ring;
}

/* The open-loop jobs of this host: `job` (every job of the run, indexed by `arrivals`) and the
 * flows that take them (rm_flow_gen.open). */
static void rm_host_set_jobs(rm_host *h, rm_job *job, const uint32_t *arrivals, uint32_t narrivals)
{
    h->job = job;
    h->arrivals = arrivals;
    h->narrivals = narrivals;
    h->next_arrival = 0;
}

static void rm_host_set_open(rm_host *h, uint32_t flow)
{
    rm_flow_gen *g = &h->gen[flow - h->first_flow];
    g->open = 1;
    g->wait_head = g->wait_tail = g->out_head = g->out_tail = RM_NO_JOB;
    rm_host__recount(h, g);
}

/* The run drains: the backlogged flows post nothing more; open-loop jobs already arrived still
 * are posted (every job starts before the end). */
static void rm_host_stop_posting(rm_host *h)
{
    uint32_t i;
    h->posting = false;
    for (i = 0; i < h->nflows; i++)
        rm_host__recount(h, &h->gen[i]);
}

/* Jobs whose start has come go to the QP of theirs with the fewest messages (outstanding and
 * waiting): the lowest such QP on a tie. */
static void rm_host__arrive(rm_host *h)
{
    while (h->next_arrival < h->narrivals && h->job[h->arrivals[h->next_arrival]].start <= h->now) {
        uint32_t id = h->arrivals[h->next_arrival++], q, best = 0, best_load = 0xffffffffu;
        rm_job *j = &h->job[id];
        rm_flow_gen *g;
        for (q = j->qp0; q < j->qp0 + j->nqp; q++) {
            const rm_flow_gen *c = &h->gen[q - h->first_flow];
            uint32_t load = (uint32_t)(c->tail - c->completed) + c->waiting;
            if (load < best_load)
                best = q, best_load = load;
        }
        j->qp = best;
        j->next = RM_NO_JOB;
        g = &h->gen[best - h->first_flow];
        if (g->wait_tail == RM_NO_JOB)
            g->wait_head = id;
        else
            h->job[g->wait_tail].next = id;
        g->wait_tail = id;
        g->waiting++;
        rm_host__recount(h, g);
    }
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
    rm_host__arrive(h);
    if (h->db_count == h->db_cap || !h->postable)
        return;
    for (k = 0; k < h->nflows; k++) {
        uint32_t local = (h->cursor + k) % h->nflows;
        rm_flow_gen *g = &h->gen[local];
        if (rm_host_can_post(h, g)) {
            rnic_work *w = &h->wqe[(size_t)local * h->ring + (g->tail % h->ring)];
            uint32_t len;
            if (g->open) { /* the oldest waiting job: waiting -> outstanding */
                uint32_t id = g->wait_head;
                rm_job *j = &h->job[id];
                len = j->size;
                j->posted = h->now;
                j->cnps_at_post = g->cnps;
                g->wait_head = j->next;
                if (g->wait_head == RM_NO_JOB)
                    g->wait_tail = RM_NO_JOB;
                g->waiting--;
                j->next = RM_NO_JOB;
                if (g->out_tail == RM_NO_JOB)
                    g->out_head = id;
                else
                    h->job[g->out_tail].next = id;
                g->out_tail = id;
            } else
                len = (uint32_t)rnic_prng_log_range(&g->prng, g->min_msg, g->max_msg);
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
            rm_host__recount(h, g);
            g->posted_bytes += len;
            h->msgs_posted++;
            h->bytes_posted += len;
            rnic_trace_emit(trace, h->now, (uint16_t)RM_TRACE_HOST, RM_TRACE_POST, w->flow, w->tag, len);
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
    if (h->next_arrival < h->narrivals && h->job[h->arrivals[h->next_arrival]].start < next)
        next = h->job[h->arrivals[h->next_arrival]].start;
    if (next <= h->now)
        return h->now;
    if (h->db_count < h->db_cap && h->postable)
        return h->now;
    return next;
}

#define RM_ECN_CE 3u /* rnic_work.aux bits 0..1 on the model's packets: the IP ECN field */
#define RM_ECN_ECT0 2u

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
    rm_lat_store lat;        /* message latencies in cycles, per message in the window (bounded) */
    /* QoS-engine mode (rnic_model --sched qos): latency is measured by the host (post -> DONE
     * seen), not from the tag; a retransmitted block (RM_OP_RETX) whose bytes are all here
     * already is a duplicate, counted, neither lost nor corrupt; a packet beyond a gap (one
     * before it never came) is discarded and counted (none expected: the transport delivers
     * every block it took, in order, and the host resubmits a failed transfer from its start;
     * bytes never delivered show as bytes_lost) */
    bool latency_at_host, accept_duplicates;
    uint64_t duplicates, duplicate_bytes, beyond_gap;
} rm_receiver;

#define RM_OP_RETX 0x400u        /* the piece is a retransmission (QoS engine timeout / NACK) */
#define RM_RX_BAD 0              /* rm_receiver_take verdicts */
#define RM_RX_OK 1
#define RM_RX_DUPLICATE 2
#define RM_RX_BEYOND_GAP 3

/* lat_samples: latencies kept for the percentiles (rm_lat_store; 0 keeps all), seed: its draws */
static int rm_receiver_init(rm_receiver *r, uint32_t nflows, size_t lat_samples, uint64_t seed)
{
    uint32_t i;
    memset(r, 0, sizeof *r);
    r->f = (rm_rx_flow *)calloc(nflows, sizeof *r->f);
    r->nflows = nflows;
    if (!r->f || rm_lat_init(&r->lat, lat_samples, seed) != 0)
        return -1;
    for (i = 0; i < nflows; i++)
        r->f[i].next_raddr = (uint64_t)i << 40;
    return 0;
}

static void rm_receiver_free(rm_receiver *r)
{
    free(r->f);
    rm_lat_free(&r->lat);
}

/* Keep one message latency (cycles) of `flow` for the report's percentiles. */
static void rm_receiver_note_latency(rm_receiver *r, uint32_t flow, uint64_t cycles)
{
    rm_lat_note(&r->lat, flow, cycles);
}

/* Check and count one packet; RM_RX_OK, RM_RX_DUPLICATE or RM_RX_BAD. */
static int rm_receiver_take(rm_receiver *r, const rnic_work *w, rnic_trace *trace)
{
    rm_rx_flow *f;
    int ok = 1;
    r->packets++;
    rnic_trace_emit(trace, r->now, (uint16_t)RM_TRACE_RECEIVER, RM_TRACE_CHECK, w->flow, w->raddr, w->len);
    if (w->flow >= r->nflows || (w->flags & RNIC_WORK_ERROR)) {
        r->bad++;
        return RM_RX_BAD;
    }
    f = &r->f[w->flow];
    if ((w->aux & 3u) == RM_ECN_CE)
        r->ce++;
    if (r->accept_duplicates && (w->op & RM_OP_RETX) && w->raddr + w->len <= f->next_raddr &&
        w->raddr + w->len > w->raddr) {
        r->duplicates++;
        r->duplicate_bytes += w->len;
        return RM_RX_DUPLICATE;
    }
    if (r->accept_duplicates && w->raddr > f->next_raddr) {
        r->beyond_gap++;
        return RM_RX_BEYOND_GAP;
    }
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
        return RM_RX_BAD;
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
            if (!r->latency_at_host)
                rm_receiver_note_latency(r, w->flow, r->now - RM_TAG_CYCLE(w->tag));
        }
    }
    return RM_RX_OK;
}

/* ================= the sending host in front of the QoS engine (rnic_model --sched qos) =======
 * The host talks to the engine the way the thesis's host core does (§3.6): it writes a
 * transfer's 2-line descriptor as four 16-byte AXI beats into the QP's channel pair, drains the
 * write responses, and polls the channels' status registers, 32 at a time (mode 1), until the
 * channel reads DONE. One transfer per channel pair at a time (the thesis's rule): a QP's next
 * message is written once its previous one read DONE. The application is backlogged: a QP
 * always has its next message the moment its channel is free (`post` = the first beat).
 * A channel that reads ERROR (a block's retry limit exhausted) does not lose its message: the
 * host sees the failure and writes the same transfer again (same source, destination and size;
 * RDMA writes are idempotent), also while draining, until it reads DONE -- its latency counts
 * from the first post. The receiver already has a prefix of the message's blocks (the engine
 * emits a transfer's blocks in order, the transport delivers every one it took): the ones the
 * resubmission sends again arrive as duplicates, the rest continue the flow.
 * The QP <-> flow map is configuration (flow = the channel pair's first Transfer Table line). */
#define RM_QOS_DESC_BEATS 4u     /* 2 lines x 32 B in 16-byte beats */
#define RM_QOS_MIN_MSG 33u       /* regular transfers are > 32 B; shorter messages are rounded up */
#define RM_QOS_RING 64u          /* status reads to issue / issued, per host */

enum { RM_QP_IDLE = 0, RM_QP_WRITING = 1, RM_QP_IN_FLIGHT = 2 };

typedef struct rm_qos_qp {
    rnic_prng prng;
    uint32_t flow, domain, channel, state;
    uint32_t msgs_posted, msgs_done, errors;
    uint32_t attempt;        /* ERRORs of the current message: > 0, it is written again (resubmitted) */
    uint64_t raddr;          /* next remote byte of the QP's target buffer */
    uint64_t post_cycle, len;
    uint64_t posted_bytes, done_bytes;
    uint32_t min_msg, max_msg; /* its tenant's message sizes (rm_qos_host_set_sizes; the host's by default) */
} rm_qos_qp;

typedef struct rm_qos_read {
    uint32_t domain, index;  /* mode 1 read of channels index x 32 .. index x 32 + 31 */
} rm_qos_read;

typedef struct rm_qos_host {
    rq_qos *q;
    rm_qos_qp *qp;
    uint32_t nqps, qps_per_tenant, tenants, first_domain, lines_per_domain;
    uint32_t min_msg, max_msg, poll_cycles;
    uint32_t cursor;         /* round robin over QPs for the next descriptor */
    uint32_t writing, beat;  /* QP whose descriptor is being written (nqps: none), next beat */
    uint64_t words[2][4];
    rm_qos_read todo[RM_QOS_RING], issued[RM_QOS_RING];
    uint32_t todo_head, todo_count, issued_head, issued_count;
    uint32_t *inflight_by_domain;   /* tenants entries */
    uint32_t inflight;
    uint64_t next_poll;
    uint64_t now;
    bool posting;
    uint64_t msgs_posted, bytes_posted, beats, polls, status_reads;
    uint64_t resubmits;      /* descriptors written again after an ERROR */
    uint64_t model_errors;   /* refused beats, AXI error responses, failed reads: none expected */
    uint64_t transfer_errors; /* channels that read ERROR (retry limit exhausted): each resubmitted */
} rm_qos_host;

static int rm_qos_host_init(rm_qos_host *h, rq_qos *q, uint32_t first_domain, uint32_t tenants, uint32_t qps,
                            uint32_t lines_per_domain, uint32_t min_msg, uint32_t max_msg, uint32_t poll_cycles,
                            uint64_t seed)
{
    uint32_t i;
    memset(h, 0, sizeof *h);
    h->q = q;
    h->nqps = tenants * qps;
    h->qps_per_tenant = qps;
    h->tenants = tenants;
    h->first_domain = first_domain;
    h->lines_per_domain = lines_per_domain;
    h->min_msg = min_msg;
    h->max_msg = max_msg;
    h->poll_cycles = poll_cycles;
    h->writing = h->nqps;
    h->qp = (rm_qos_qp *)calloc(h->nqps, sizeof *h->qp);
    h->inflight_by_domain = (uint32_t *)calloc(tenants, sizeof *h->inflight_by_domain);
    if (!h->qp || !h->inflight_by_domain)
        return -1;
    for (i = 0; i < h->nqps; i++) {
        rm_qos_qp *p = &h->qp[i];
        p->domain = first_domain + i / qps;
        p->channel = 2u * (i % qps);
        p->flow = p->domain * lines_per_domain + p->channel;
        rnic_prng_seed(&p->prng, seed ^ ((uint64_t)p->flow * 0x9e3779b97f4a7c15ull));
        p->raddr = (uint64_t)p->flow << 40;
        p->min_msg = min_msg;
        p->max_msg = max_msg;
    }
    h->posting = true;
    return 0;
}

/* Message sizes of one tenant's QPs: log-uniform in [min_msg, max_msg]. */
static void rm_qos_host_set_sizes(rm_qos_host *h, uint32_t tenant, uint32_t min_msg, uint32_t max_msg)
{
    uint32_t i;
    for (i = 0; i < h->nqps; i++)
        if (i / h->qps_per_tenant == tenant) {
            h->qp[i].min_msg = min_msg;
            h->qp[i].max_msg = max_msg;
        }
}

static void rm_qos_host_free(rm_qos_host *h)
{
    free(h->qp);
    free(h->inflight_by_domain);
}

/* An idle QP the host writes a descriptor for now: its next message (while posting) or its
 * failed one again (always, the drain included). */
static bool rm_qos_host_startable(const rm_qos_host *h, const rm_qos_qp *p)
{
    return p->state == RM_QP_IDLE && (h->posting || p->attempt);
}

/* Start the next message of an idle QP (round robin), or resubmit its failed one: encode its
 * descriptor. */
static bool rm_qos_host_start(rm_qos_host *h, rnic_trace *trace)
{
    uint32_t k;
    for (k = 0; k < h->nqps; k++) {
        uint32_t i = (h->cursor + k) % h->nqps;
        rm_qos_qp *p = &h->qp[i];
        rq_transfer t;
        if (!rm_qos_host_startable(h, p))
            continue;
        memset(&t, 0, sizeof t);
        if (p->attempt) { /* the message that read ERROR, again: the same transfer, nothing posted anew */
            t.kind = RQ_KIND_REGULAR;
            t.src = ((uint64_t)p->flow << 36) + ((uint64_t)((p->msgs_posted - 1u) & 15u) << 28);
            t.dst = p->raddr - p->len;
            t.size = p->len;
            t.prio = 0;
            if (rq_desc_encode(&t, h->words[0], h->words[1]) != RNIC_OK) {
                h->model_errors++;
                return false;
            }
            p->state = RM_QP_WRITING;
            h->resubmits++;
            h->writing = i;
            h->beat = 0;
            h->cursor = (i + 1u) % h->nqps;
            return true;
        }
        p->len = rnic_prng_log_range(&p->prng, p->min_msg, p->max_msg);
        if (p->len < RM_QOS_MIN_MSG)
            p->len = RM_QOS_MIN_MSG;
        t.kind = RQ_KIND_REGULAR;
        t.src = ((uint64_t)p->flow << 36) + ((uint64_t)(p->msgs_posted & 15u) << 28);
        t.dst = p->raddr;
        t.size = p->len;
        t.prio = 0; /* non-congestion-managed: the TID-only queue, which has no intra-priority */
        if (rq_desc_encode(&t, h->words[0], h->words[1]) != RNIC_OK) {
            h->model_errors++;
            return false;
        }
        p->state = RM_QP_WRITING;
        p->post_cycle = h->now;
        p->raddr += p->len;
        p->posted_bytes += p->len;
        p->msgs_posted++;
        h->msgs_posted++;
        h->bytes_posted += p->len;
        h->writing = i;
        h->beat = 0;
        h->cursor = (i + 1u) % h->nqps;
        rnic_trace_emit(trace, h->now, (uint16_t)RM_TRACE_HOST, RM_TRACE_POST, p->flow, p->msgs_posted - 1u, p->len);
        return true;
    }
    return false;
}

static bool rm_qos_host_has_startable(const rm_qos_host *h)
{
    uint32_t i;
    for (i = 0; i < h->nqps; i++)
        if (rm_qos_host_startable(h, &h->qp[i]))
            return true;
    return false;
}

/* A channel's status seen by a poll: DONE ends the QP's message; ERROR ends the transfer, and
 * the message is resubmitted. `done(ctx, flow, latency, ok)` is told. */
static void rm_qos_host_status(rm_qos_host *h, uint32_t domain, uint32_t index, uint64_t bits,
                               void (*done)(void *, uint32_t, uint64_t, int), void *ctx, rnic_trace *trace)
{
    uint32_t j;
    for (j = 0; j < 32u; j += 2u) {
        uint32_t ch = index * 32u + j, st = (uint32_t)(bits >> (2u * j)) & 3u, i;
        rm_qos_qp *p;
        if (ch / 2u >= h->qps_per_tenant || domain < h->first_domain || domain - h->first_domain >= h->tenants)
            continue;
        i = (domain - h->first_domain) * h->qps_per_tenant + ch / 2u;
        p = &h->qp[i];
        if (p->state != RM_QP_IN_FLIGHT || (st != RQ_DONE && st != RQ_ERROR))
            continue;
        p->state = RM_QP_IDLE;
        h->inflight--;
        h->inflight_by_domain[domain - h->first_domain]--;
        if (st == RQ_DONE) {
            p->msgs_done++;
            p->done_bytes += p->len;
            p->attempt = 0;
        } else {
            p->errors++;
            p->attempt++; /* rm_qos_host_start writes it again */
            h->transfer_errors++;
        }
        rnic_trace_emit(trace, h->now, (uint16_t)RM_TRACE_HOST, RM_TRACE_TRANSFER_END, p->flow, h->now - p->post_cycle, st);
        done(ctx, p->flow, h->now - p->post_cycle, st == RQ_DONE);
    }
}

/* One cycle of the host at h->now (the engine's cycle): drain write responses and status
 * answers, issue queued status reads, start a poll when one is due, and write one beat. */
static void rm_qos_host_step(rm_qos_host *h, void (*done)(void *, uint32_t, uint64_t, int), void *ctx,
                             rnic_trace *trace)
{
    rq_axi_bresp br;
    rq_axi_rdata rd;
    uint32_t d, x;
    while (rq_qos_pop_bresp(h->q, &br) == RNIC_OK)
        if (br.status != RNIC_OK)
            h->model_errors++;
    while (rq_qos_pop_rdata(h->q, &rd) == RNIC_OK) {
        rm_qos_read r;
        if (!h->issued_count) {
            h->model_errors++;
            continue;
        }
        r = h->issued[h->issued_head];
        h->issued_head = (h->issued_head + 1u) % RM_QOS_RING;
        h->issued_count--;
        if (rd.status != RNIC_OK) {
            h->model_errors++;
            continue;
        }
        rm_qos_host_status(h, r.domain, r.index, rd.data, done, ctx, trace);
    }
    /* a poll: every poll_cycles while transfers are in flight, a mode-1 read per 32 channels of
     * each domain with one in flight (skipped while the previous poll's reads wait) */
    if (h->inflight && h->now >= h->next_poll) {
        if (!h->todo_count)
            for (d = 0; d < h->tenants; d++)
                if (h->inflight_by_domain[d])
                    for (x = 0; x * 32u < 2u * h->qps_per_tenant && h->todo_count < RM_QOS_RING; x++) {
                        rm_qos_read *r = &h->todo[(h->todo_head + h->todo_count) % RM_QOS_RING];
                        r->domain = h->first_domain + d;
                        r->index = x;
                        h->todo_count++;
                    }
        h->polls++;
        h->next_poll = (h->now / h->poll_cycles + 1u) * h->poll_cycles;
    }
    while (h->todo_count && h->issued_count < RM_QOS_RING && rq_qos_space_axi_read(h->q)) {
        rm_qos_read r = h->todo[h->todo_head];
        if (rq_qos_axi_read(h->q, r.domain, r.domain, r.index, 1) != RNIC_OK) {
            h->model_errors++;
            break;
        }
        h->todo_head = (h->todo_head + 1u) % RM_QOS_RING;
        h->todo_count--;
        h->issued[(h->issued_head + h->issued_count) % RM_QOS_RING] = r;
        h->issued_count++;
        h->status_reads++;
    }
    /* one descriptor beat per cycle (the host core's 128-bit stores) */
    if (!rq_qos_space_axi_write(h->q))
        return;
    if (h->writing == h->nqps && !rm_qos_host_start(h, trace))
        return;
    {
        rm_qos_qp *p = &h->qp[h->writing];
        uint32_t ln = h->beat / 2u, w = (h->beat % 2u) * 2u;
        uint64_t data[2];
        rnic_err e;
        data[0] = h->words[ln][w];
        data[1] = h->words[ln][w + 1u];
        e = rq_qos_axi_write(h->q, p->domain, ((p->flow + ln) << 5) | (w << 3), data, 16);
        if (e != RNIC_OK) {
            h->model_errors++; /* refused although the AW FIFO had room: a model error */
            return;
        }
        h->beats++;
        if (++h->beat == RM_QOS_DESC_BEATS) {
            p->state = RM_QP_IN_FLIGHT;
            h->inflight++;
            h->inflight_by_domain[p->domain - h->first_domain]++;
            h->writing = h->nqps;
        }
    }
}

/* The next cycle the host does something by itself (new engine output also wakes it: the
 * caller checks the engine's B and R FIFOs). */
static uint64_t rm_qos_host_next_event(const rm_qos_host *h)
{
    rq_axi_bresp br;
    rq_axi_rdata rd;
    if (rq_qos_peek_bresp(h->q, &br) == RNIC_OK || rq_qos_peek_rdata(h->q, &rd) == RNIC_OK)
        return h->now;
    if (h->todo_count && h->issued_count < RM_QOS_RING && rq_qos_space_axi_read(h->q))
        return h->now;
    if (rq_qos_space_axi_write(h->q) && (h->writing != h->nqps || rm_qos_host_has_startable(h)))
        return h->now;
    if (h->inflight)
        return h->next_poll > h->now ? h->next_poll : h->now;
    return RNIC_NEVER;
}
#endif
