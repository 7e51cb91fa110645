/* transport.h: the small queues behind the engines' sets (§3.1): round-robin FIFOs of flow ids
 * (the active set, ready-to-transmit, flows with completions) and the ports; the per-flow timers
 * (retransmission, rate and delayed-ACK) are rnic__heap (src/common/heap.h), so next_event is O(1). */

static bool tp__fifo_push(tp__fifo *f, uint32_t id)
{
    uint32_t at;
    if (f->count == f->capacity)
        return false;
    at = f->head + f->count;
    if (at >= f->capacity)
        at -= f->capacity;
    f->ids[at] = id;
    f->count++;
    return true;
}

static uint32_t tp__fifo_pop(tp__fifo *f)
{
    uint32_t id = f->ids[f->head];
    f->head = f->head + 1u == f->capacity ? 0 : f->head + 1u;
    f->count--;
    return id;
}

/* Wrap-safe: cycle a comes before cycle b. The timer heaps are the common core's rnic__heap
 * (src/common/heap.h: the indexed heap this file used to hold, generalised). */
#define tp__cycle_before rnic__cycle_before

/* Ports: FIFOs of rnic_work with a fixed element type, so a push or pop is one 64-byte copy. */
static uint32_t tp__wring_slots(uint32_t capacity)
{
    uint32_t n = 1;
    while (n < capacity)
        n <<= 1;
    return n;
}

static void tp__wring_init(tp__wring *r, rnic_work *slots, uint32_t capacity)
{
    r->slot = slots;
    r->mask = tp__wring_slots(capacity) - 1u;
    r->capacity = capacity;
    r->head = r->count = 0;
}

static bool tp__wring_full(const tp__wring *r) { return r->count == r->capacity; }
static bool tp__wring_empty(const tp__wring *r) { return r->count == 0; }
static uint32_t tp__wring_space(const tp__wring *r) { return r->capacity - r->count; }

static void tp__wring_push(tp__wring *r, const rnic_work *w) /* the caller checked it is not full */
{
    r->slot[(r->head + r->count) & r->mask] = *w;
    r->count++;
}

static bool tp__wring_pop(tp__wring *r, rnic_work *out)
{
    if (r->count == 0)
        return false;
    *out = r->slot[r->head];
    r->head = (r->head + 1u) & r->mask;
    r->count--;
    return true;
}

/* A port's next record: taken (pop) or copied (peek); RNIC_EEMPTY when none. */
static rnic_err tp__wring_take(tp__wring *r, rnic_work *out, bool pop)
{
    if (r->count == 0)
        return RNIC_EEMPTY;
    if (pop)
        tp__wring_pop(r, out);
    else
        *out = r->slot[r->head];
    return RNIC_OK;
}

/* Cycles an engine may skip from `now` with `left` to run: its next event `next` when `any`
 * (an event at 2^64 - 1 then reads RNIC_NEVER and is not "never"), else all of `left`. */
static uint64_t tp__idle_cycles(uint64_t now, uint64_t next, bool any, uint64_t left)
{
    if (!any)
        return left;
    if (next == RNIC_NEVER)
        return next - now < left ? next - now : left;
    return rnic_idle_span(now, next, left);
}

/* Layout of an engine's arrays in caller memory (inside a function with `size_t off, at` and
 * `unsigned char *mem`; `obj` NULL or mem NULL: sizes only): an array, a heap, a port. */
#define TP__LAYOUT_ARRAY(obj, field, type, count)                     \
    do {                                                              \
        if (!rnic__mem_reserve(&off, (count), sizeof(type), &at))     \
            return 0;                                                 \
        if ((obj) && mem)                                             \
            (obj)->field = (type *)(void *)(mem + at);                \
    } while (0)
#define TP__LAYOUT_HEAP(obj, heap, nflows)                            \
    do {                                                              \
        TP__LAYOUT_ARRAY(obj, heap.id, uint32_t, nflows);             \
        TP__LAYOUT_ARRAY(obj, heap.key, uint64_t, nflows);            \
        TP__LAYOUT_ARRAY(obj, heap.pos, uint32_t, nflows);            \
    } while (0)
#define TP__LAYOUT_PORT(obj, port, capacity)                                                \
    do {                                                                                    \
        if (!rnic__mem_reserve(&off, tp__wring_slots(capacity), sizeof(rnic_work), &at))    \
            return 0;                                                                       \
        if ((obj) && mem)                                                                   \
            tp__wring_init(&(obj)->port, (rnic_work *)(void *)(mem + at), (capacity));      \
    } while (0)
