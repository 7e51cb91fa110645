/* transport.h: the small queues behind the engines' sets (§3.1): round-robin FIFOs of flow ids
 * (the active set, ready-to-transmit, flows with completions) and an indexed min-heap of per-flow
 * timers (retransmission, rate and delayed-ACK timers) so that next_event is exact and O(1). */

static bool tp__fifo_push(tp_fifo *f, uint32_t id)
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

static uint32_t tp__fifo_pop(tp_fifo *f)
{
    uint32_t id = f->ids[f->head];
    f->head = f->head + 1u == f->capacity ? 0 : f->head + 1u;
    f->count--;
    return id;
}

/* Wrap-safe: cycle a comes before cycle b. */
static bool tp__cycle_before(uint64_t a, uint64_t b) { return (int64_t)(a - b) < 0; }

static void tp__heap_place(tp_heap *h, uint32_t slot, uint32_t flow, uint64_t key)
{
    h->flow[slot] = flow;
    h->key[slot] = key;
    h->pos[flow] = slot;
}

static void tp__heap_up(tp_heap *h, uint32_t slot)
{
    uint32_t flow = h->flow[slot];
    uint64_t key = h->key[slot];
    while (slot > 0) {
        uint32_t parent = (slot - 1u) / 2u;
        if (!tp__cycle_before(key, h->key[parent]))
            break;
        tp__heap_place(h, slot, h->flow[parent], h->key[parent]);
        slot = parent;
    }
    tp__heap_place(h, slot, flow, key);
}

static void tp__heap_down(tp_heap *h, uint32_t slot)
{
    uint32_t flow = h->flow[slot];
    uint64_t key = h->key[slot];
    for (;;) {
        uint32_t child = 2u * slot + 1u;
        if (child >= h->count)
            break;
        if (child + 1u < h->count && tp__cycle_before(h->key[child + 1u], h->key[child]))
            child++;
        if (!tp__cycle_before(h->key[child], key))
            break;
        tp__heap_place(h, slot, h->flow[child], h->key[child]);
        slot = child;
    }
    tp__heap_place(h, slot, flow, key);
}

/* Insert flow with key, or move it to key if present. */
static void tp__heap_set(tp_heap *h, uint32_t flow, uint64_t key)
{
    uint32_t slot = h->pos[flow];
    if (slot == RNIC_NONE) {
        slot = h->count++;
        tp__heap_place(h, slot, flow, key);
        tp__heap_up(h, slot);
        return;
    }
    if (tp__cycle_before(key, h->key[slot])) {
        h->key[slot] = key;
        tp__heap_up(h, slot);
    } else {
        h->key[slot] = key;
        tp__heap_down(h, slot);
    }
}

static void tp__heap_remove(tp_heap *h, uint32_t flow)
{
    uint32_t slot = h->pos[flow], last;
    if (slot == RNIC_NONE)
        return;
    h->pos[flow] = RNIC_NONE;
    last = --h->count;
    if (slot == last)
        return;
    tp__heap_place(h, slot, h->flow[last], h->key[last]);
    if (slot > 0 && tp__cycle_before(h->key[slot], h->key[(slot - 1u) / 2u]))
        tp__heap_up(h, slot);
    else
        tp__heap_down(h, slot);
}

static uint64_t tp__heap_min(const tp_heap *h) { return h->count ? h->key[0] : RNIC_NEVER; }

/* Ports: FIFOs of rnic_work with a fixed element type, so a push or pop is one 64-byte copy. */
static uint32_t tp__wring_slots(uint32_t capacity)
{
    uint32_t n = 1;
    while (n < capacity)
        n <<= 1;
    return n;
}

static void tp__wring_init(tp_wring *r, rnic_work *slots, uint32_t capacity)
{
    r->slot = slots;
    r->mask = tp__wring_slots(capacity) - 1u;
    r->capacity = capacity;
    r->head = r->count = 0;
}

static bool tp__wring_full(const tp_wring *r) { return r->count == r->capacity; }
static bool tp__wring_empty(const tp_wring *r) { return r->count == 0; }
static uint32_t tp__wring_space(const tp_wring *r) { return r->capacity - r->count; }

static void tp__wring_push(tp_wring *r, const rnic_work *w) /* the caller checked it is not full */
{
    r->slot[(r->head + r->count) & r->mask] = *w;
    r->count++;
}

static bool tp__wring_pop(tp_wring *r, rnic_work *out)
{
    if (r->count == 0)
        return false;
    *out = r->slot[r->head];
    r->head = (r->head + 1u) & r->mask;
    r->count--;
    return true;
}

/* A port's next record: taken (pop) or copied (peek); RNIC_EEMPTY when none. */
static rnic_err tp__wring_take(tp_wring *r, rnic_work *out, bool pop)
{
    if (r->count == 0)
        return RNIC_EEMPTY;
    if (pop)
        tp__wring_pop(r, out);
    else
        *out = r->slot[r->head];
    return RNIC_OK;
}

/* Every flow absent from a timer heap. */
static void tp__heap_clear(tp_heap *h, uint32_t nflows)
{
    uint32_t i;
    h->count = 0;
    for (i = 0; i < nflows; i++)
        h->pos[i] = RNIC_NONE;
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
        TP__LAYOUT_ARRAY(obj, heap.flow, uint32_t, nflows);           \
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
