/* Shared-space multi-queue FIFO (RED-SEA thesis §3.7, Alg. 1/2).
 *
 * nqueues FIFO queues share one pool of nentries entries. The data of an entry is its own
 * index (in the thesis: the transfer-table index), so the only memory is the next-pointer
 * array (the thesis's 2048 x 11-bit dual-port RAM) plus head/tail/empty registers per queue.
 * An entry is in at most one queue at a time (the thesis's isInSchedFIFO bit); enqueueing
 * it twice is refused with RNIC_EEXIST.
 *
 * Cycle model. The next-pointer RAM has two ports, one for enqueues and one for dequeues,
 * so each cycle accepts at most ONE enqueue and ONE dequeue; a second one in the same cycle
 * is RNIC_EBUSY (the caller arbitrates, e.g. ACK > segmenter > host > remote read, and
 * retries next cycle). rnic_ssfifo_tick() ends the cycle. A dequeue takes two cycles in
 * hardware (read next pointer, then update the head register); back-to-back dequeues from
 * the same queue are served every cycle by forwarding the next pointer, which this model
 * counts in `forwards`. An entry enqueued into an empty queue becomes visible to dequeue in
 * the next cycle (the empty register updates at the clock edge). Algorithm 1 and 2 as
 * printed lose an entry when one enqueue and one dequeue hit a one-entry queue in the same
 * cycle (the dequeue sets empty while the enqueue links behind the old tail); here the
 * dequeue takes the old head and the new entry stays queued, as working RTL must do.
 *
 * Memory (caller-owned): 4 B per entry (next) + 1 bit per entry (queued) + 8 B per queue. */
#include "base.h"
#include "error.h"
#include "bitmap.h"

typedef struct rnic_ssfifo_config {
    uint32_t nqueues;  /* 1 .. 65536 (the thesis: 2 + 4 x intra-priorities = 66) */
    uint32_t nentries; /* 1 .. 2^30 (the thesis: 2048 transfers) */
} rnic_ssfifo_config;

typedef struct rnic_ssfifo_stats {
    uint64_t enqueues, dequeues;
    uint64_t forwards;      /* dequeues served back-to-back from the same queue */
    uint64_t port_conflicts; /* second enqueue or dequeue in one cycle (RNIC_EBUSY) */
} rnic_ssfifo_stats;

typedef struct rnic_ssfifo {
    uint32_t nqueues, nentries;
    uint32_t *next;      /* per entry: next pointer (RNIC_NONE at a tail) */
    uint32_t *head;      /* per queue */
    uint32_t *tail;      /* per queue */
    uint64_t *nonempty;  /* per queue: 1 = not empty (the thesis's empty register, inverted) */
    uint64_t *queued;    /* per entry: isInSchedFIFO */
    uint32_t *length;    /* per queue: number of entries (for reports; not in the hardware) */
    /* this cycle's port use */
    bool enq_used, deq_used;
    uint32_t fresh_queue;    /* queue made non-empty by this cycle's enqueue, RNIC_NONE if none */
    uint32_t last_deq_queue; /* queue dequeued in the previous cycle (forwarding), RNIC_NONE if none */
    uint32_t this_deq_queue; /* queue dequeued in this cycle, RNIC_NONE if none */
    rnic_ssfifo_stats stats;
    rnic_err_stats errors;
} rnic_ssfifo;

RNIC_INLINE size_t rnic__ssfifo_layout(const rnic_ssfifo_config *cfg, rnic_ssfifo *f, unsigned char *mem)
{
    size_t off = 0, at;
    if (cfg->nqueues == 0 || cfg->nqueues > 65536u || cfg->nentries == 0 || cfg->nentries > ((uint32_t)1 << 30))
        return 0;
#define RNIC__SSFIFO_ARRAY(field, type, n)                        \
    do {                                                          \
        if (!rnic__mem_reserve(&off, (n), sizeof(type), &at))     \
            return 0; /* more than the address space (32-bit) */  \
        if (f && mem)                                             \
            f->field = (type *)(void *)(mem + at);                \
    } while (0)
    RNIC__SSFIFO_ARRAY(nonempty, uint64_t, RNIC_BITMAP_WORDS(cfg->nqueues));
    RNIC__SSFIFO_ARRAY(queued, uint64_t, RNIC_BITMAP_WORDS(cfg->nentries));
    RNIC__SSFIFO_ARRAY(next, uint32_t, cfg->nentries);
    RNIC__SSFIFO_ARRAY(head, uint32_t, cfg->nqueues);
    RNIC__SSFIFO_ARRAY(tail, uint32_t, cfg->nqueues);
    RNIC__SSFIFO_ARRAY(length, uint32_t, cfg->nqueues);
#undef RNIC__SSFIFO_ARRAY
    return off;
}

/* Bytes of memory rnic_ssfifo_init needs; 0 when cfg is invalid. */
RNIC_INLINE size_t rnic_ssfifo_mem_size(const rnic_ssfifo_config *cfg)
{
    return cfg ? rnic__ssfifo_layout(cfg, NULL, NULL) : 0;
}

RNIC_INLINE rnic_err rnic_ssfifo_init(rnic_ssfifo *f, const rnic_ssfifo_config *cfg, void *mem, size_t size)
{
    size_t need;
    uint32_t i;
    if (!f || !cfg || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)))
        return RNIC_EINVAL;
    need = rnic__ssfifo_layout(cfg, NULL, NULL);
    if (need == 0)
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(f, 0, sizeof *f);
    rnic__ssfifo_layout(cfg, f, (unsigned char *)mem);
    f->nqueues = cfg->nqueues;
    f->nentries = cfg->nentries;
    rnic_bitmap_zero(f->nonempty, cfg->nqueues);
    rnic_bitmap_zero(f->queued, cfg->nentries);
    for (i = 0; i < cfg->nentries; i++)
        f->next[i] = RNIC_NONE;
    for (i = 0; i < cfg->nqueues; i++) {
        f->head[i] = f->tail[i] = RNIC_NONE;
        f->length[i] = 0;
    }
    f->fresh_queue = f->last_deq_queue = f->this_deq_queue = RNIC_NONE;
    return RNIC_OK;
}

RNIC_INLINE bool rnic_ssfifo_empty(const rnic_ssfifo *f, uint32_t queue)
{
    return queue >= f->nqueues || !rnic_bitmap_test(f->nonempty, queue);
}

RNIC_INLINE uint32_t rnic_ssfifo_length(const rnic_ssfifo *f, uint32_t queue)
{
    return queue < f->nqueues ? f->length[queue] : 0;
}

RNIC_INLINE bool rnic_ssfifo_is_queued(const rnic_ssfifo *f, uint32_t entry)
{
    return entry < f->nentries && rnic_bitmap_test(f->queued, entry);
}

/* Head entry of a queue (what a dequeue would return), RNIC_NONE when empty. */
RNIC_INLINE uint32_t rnic_ssfifo_peek(const rnic_ssfifo *f, uint32_t queue)
{
    return rnic_ssfifo_empty(f, queue) ? RNIC_NONE : f->head[queue];
}

/* Lowest-numbered non-empty queue at or after `from` (queue number = priority, 0 first);
 * RNIC_NONE when all are empty. This is storage state: a queue filled by this cycle's
 * enqueue counts, although it cannot be dequeued before the next cycle (see first_ready). */
RNIC_INLINE uint32_t rnic_ssfifo_first_nonempty(const rnic_ssfifo *f, uint32_t from)
{
    if (from >= f->nqueues)
        return RNIC_NONE;
    return rnic__bitmap_find_linear(f->nonempty, f->nqueues, from, false);
}

/* True when a dequeue of `queue` would find an entry this cycle: non-empty, and not only
 * holding an entry that this cycle's enqueue put into an empty queue. */
RNIC_INLINE bool rnic_ssfifo_ready(const rnic_ssfifo *f, uint32_t queue)
{
    return !rnic_ssfifo_empty(f, queue) && !(queue == f->fresh_queue && f->head[queue] == f->tail[queue]);
}

/* Lowest-numbered queue at or after `from` that a dequeue would succeed on this cycle: what
 * a strict-priority scheduler serves. RNIC_NONE when none is ready. */
RNIC_INLINE uint32_t rnic_ssfifo_first_ready(const rnic_ssfifo *f, uint32_t from)
{
    uint32_t q = rnic_ssfifo_first_nonempty(f, from);
    if (q != RNIC_NONE && !rnic_ssfifo_ready(f, q)) /* only the fresh queue can be unready */
        q = rnic_ssfifo_first_nonempty(f, q + 1u);
    return q;
}

/* Algorithm 1: append `entry` to `queue`. Errors (state unchanged, counted): RNIC_EINVAL for
 * an unknown queue, RNIC_ENOENT for an entry out of range, RNIC_EEXIST when the entry is
 * already queued, RNIC_EBUSY when this cycle's enqueue port is taken. */
RNIC_INLINE rnic_err rnic_ssfifo_enqueue(rnic_ssfifo *f, uint32_t queue, uint32_t entry)
{
    if (queue >= f->nqueues)
        return rnic_err_note(&f->errors, RNIC_EINVAL);
    if (entry >= f->nentries)
        return rnic_err_note(&f->errors, RNIC_ENOENT);
    if (rnic_bitmap_test(f->queued, entry))
        return rnic_err_note(&f->errors, RNIC_EEXIST);
    if (f->enq_used) {
        f->stats.port_conflicts++;
        return rnic_err_note(&f->errors, RNIC_EBUSY);
    }
    f->enq_used = true;
    f->next[entry] = RNIC_NONE;
    if (!rnic_bitmap_test(f->nonempty, queue)) {
        f->head[queue] = entry;
        rnic_bitmap_set(f->nonempty, queue);
        f->fresh_queue = queue;
    } else {
        f->next[f->tail[queue]] = entry;
    }
    f->tail[queue] = entry;
    f->length[queue]++;
    rnic_bitmap_set(f->queued, entry);
    f->stats.enqueues++;
    return RNIC_OK;
}

/* Algorithm 2: take the head of `queue` into *entry. Errors (state unchanged, counted):
 * RNIC_EINVAL for an unknown queue or NULL entry, RNIC_EBUSY when this cycle's dequeue port
 * is taken. RNIC_EEMPTY when the queue is not ready (empty, or only holding an entry enqueued
 * into it this cycle): a status, not bad input, so it is not counted. */
RNIC_INLINE rnic_err rnic_ssfifo_dequeue(rnic_ssfifo *f, uint32_t queue, uint32_t *entry)
{
    uint32_t x;
    if (queue >= f->nqueues || !entry)
        return rnic_err_note(&f->errors, RNIC_EINVAL);
    if (!rnic_ssfifo_ready(f, queue))
        return RNIC_EEMPTY;
    if (f->deq_used) {
        f->stats.port_conflicts++;
        return rnic_err_note(&f->errors, RNIC_EBUSY);
    }
    f->deq_used = true;
    x = f->head[queue];
    if (x == f->tail[queue]) {
        rnic_bitmap_clear(f->nonempty, queue);
        f->head[queue] = f->tail[queue] = RNIC_NONE;
    } else {
        f->head[queue] = f->next[x];
    }
    f->next[x] = RNIC_NONE;
    f->length[queue]--;
    rnic_bitmap_clear(f->queued, x);
    if (queue == f->last_deq_queue)
        f->stats.forwards++;
    f->this_deq_queue = queue;
    f->stats.dequeues++;
    *entry = x;
    return RNIC_OK;
}

/* End the cycle: both ports are free again. */
RNIC_INLINE void rnic_ssfifo_tick(rnic_ssfifo *f)
{
    f->enq_used = f->deq_used = false;
    f->fresh_queue = RNIC_NONE;
    f->last_deq_queue = f->this_deq_queue;
    f->this_deq_queue = RNIC_NONE;
}
