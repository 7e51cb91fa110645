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

/* The timer heaps are the common core's rnic__heap (src/common/heap.h: the indexed heap this
 * file used to hold, generalised), compared wrap-safely with rnic__cycle_before. */

/* Ports: the common rnic_ring (src/common/ring.h) of rnic_work, exactly `depth` slots; pushes and
 * pops use the fixed-size variants, so each is one 64-byte copy. The engines check for room
 * before they push, so a push never fails here. */
static void tp__port_init(rnic_ring *r, rnic_work *slots, uint32_t depth)
{
    rnic_err e = rnic_ring_init(r, (uint32_t)sizeof(rnic_work), depth, slots, (size_t)depth * sizeof(rnic_work));
    RNIC_ASSERT(e == RNIC_OK);
    (void)e;
}

static bool tp__port_full(const rnic_ring *r) { return rnic_ring_full(r); }
static bool tp__port_empty(const rnic_ring *r) { return rnic_ring_empty(r); }
static uint32_t tp__port_space(const rnic_ring *r) { return rnic_ring_space(r); }

static void tp__port_push(rnic_ring *r, const rnic_work *w) /* the caller checked it is not full */
{
    rnic_err e = rnic_ring_push_n(r, w, sizeof *w);
    RNIC_ASSERT(e == RNIC_OK);
    (void)e;
}

static bool tp__port_pop(rnic_ring *r, rnic_work *out) { return rnic_ring_pop_n(r, out, sizeof *out) == RNIC_OK; }

/* A port's next record: taken (pop) or copied (peek); RNIC_EEMPTY when none. */
static rnic_err tp__port_take(rnic_ring *r, rnic_work *out, bool pop)
{
    if (rnic_ring_empty(r))
        return RNIC_EEMPTY;
    if (pop)
        return rnic_ring_pop_n(r, out, sizeof *out);
    RNIC_MEMCPY(out, rnic_ring_peek(r), sizeof *out);
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
#define TP__LAYOUT_PORT(obj, port, depth)                                                   \
    do {                                                                                    \
        if (!rnic__mem_reserve(&off, (depth), sizeof(rnic_work), &at))                      \
            return 0;                                                                       \
        if ((obj) && mem)                                                                   \
            tp__port_init(&(obj)->port, (rnic_work *)(void *)(mem + at), (depth));          \
    } while (0)
