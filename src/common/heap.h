/* An indexed timer heap: a binary min-heap of (cycle key, id) with a position per id, so that
 * the earliest timer is read in O(1) (an engine's next_event stays exact) and setting, moving
 * or removing the timer of an id is O(log n). Keys are cycles compared wrap-safe (a before b
 * when (int64_t)(a - b) < 0), so timers keep their order across the 2^64 wrap as long as they
 * lie within 2^63 cycles of each other. Each id (0 .. n-1) has at most one timer. The arrays
 * are the caller's (an engine's layout in caller memory): RNIC__HEAP_MEM(n) bytes. Internal
 * (the transport engine's per-flow timers use it; Tassel's descriptor heaps order by a 96-bit
 * virtual time and a tie-break, not cycles per id, and keep their own). */
#include "base.h"

typedef struct rnic__heap {
    uint32_t count; /* timers held */
    uint32_t *id;   /* slot -> id */
    uint64_t *key;  /* slot -> key (cycle) */
    uint32_t *pos;  /* id -> slot, RNIC_NONE when the id has no timer */
} rnic__heap;

/* Caller memory of a heap of n ids, laid out as three arrays (id, key, pos), each aligned. */
#define RNIC__HEAP_MEM(n) (RNIC__MEM_PART((n), uint32_t) + RNIC__MEM_PART((n), uint64_t) + RNIC__MEM_PART((n), uint32_t))

/* Wrap-safe: cycle a comes before cycle b. */
RNIC_INLINE bool rnic__cycle_before(uint64_t a, uint64_t b) { return (int64_t)(a - b) < 0; }

/* Point the heap at its arrays (each of n entries) and empty it: every id without a timer. */
RNIC_INLINE void rnic__heap_init(rnic__heap *h, uint32_t *id, uint64_t *key, uint32_t *pos, uint32_t n)
{
    uint32_t i;
    h->id = id;
    h->key = key;
    h->pos = pos;
    h->count = 0;
    for (i = 0; i < n; i++)
        pos[i] = RNIC_NONE;
}

/* Every id without a timer (the arrays stay). */
RNIC_INLINE void rnic__heap_clear(rnic__heap *h, uint32_t n) { rnic__heap_init(h, h->id, h->key, h->pos, n); }

RNIC_INLINE void rnic__heap_place(rnic__heap *h, uint32_t slot, uint32_t id, uint64_t key)
{
    h->id[slot] = id;
    h->key[slot] = key;
    h->pos[id] = slot;
}

RNIC_INLINE void rnic__heap_up(rnic__heap *h, uint32_t slot)
{
    uint32_t id = h->id[slot];
    uint64_t key = h->key[slot];
    while (slot > 0) {
        uint32_t parent = (slot - 1u) / 2u;
        if (!rnic__cycle_before(key, h->key[parent]))
            break;
        rnic__heap_place(h, slot, h->id[parent], h->key[parent]);
        slot = parent;
    }
    rnic__heap_place(h, slot, id, key);
}

RNIC_INLINE void rnic__heap_down(rnic__heap *h, uint32_t slot)
{
    uint32_t id = h->id[slot];
    uint64_t key = h->key[slot];
    for (;;) {
        uint32_t child = 2u * slot + 1u;
        if (child >= h->count)
            break;
        if (child + 1u < h->count && rnic__cycle_before(h->key[child + 1u], h->key[child]))
            child++;
        if (!rnic__cycle_before(h->key[child], key))
            break;
        rnic__heap_place(h, slot, h->id[child], h->key[child]);
        slot = child;
    }
    rnic__heap_place(h, slot, id, key);
}

/* Set id's timer to key: inserted if absent, moved if present. */
RNIC_INLINE void rnic__heap_set(rnic__heap *h, uint32_t id, uint64_t key)
{
    uint32_t slot = h->pos[id];
    if (slot == RNIC_NONE) {
        slot = h->count++;
        rnic__heap_place(h, slot, id, key);
        rnic__heap_up(h, slot);
        return;
    }
    if (rnic__cycle_before(key, h->key[slot])) {
        h->key[slot] = key;
        rnic__heap_up(h, slot);
    } else {
        h->key[slot] = key;
        rnic__heap_down(h, slot);
    }
}

/* Remove id's timer (nothing when it has none). */
RNIC_INLINE void rnic__heap_remove(rnic__heap *h, uint32_t id)
{
    uint32_t slot = h->pos[id], last;
    if (slot == RNIC_NONE)
        return;
    h->pos[id] = RNIC_NONE;
    last = --h->count;
    if (slot == last)
        return;
    rnic__heap_place(h, slot, h->id[last], h->key[last]);
    if (slot > 0 && rnic__cycle_before(h->key[slot], h->key[(slot - 1u) / 2u]))
        rnic__heap_up(h, slot);
    else
        rnic__heap_down(h, slot);
}

/* The earliest key (RNIC_NONE's 64-bit twin, UINT64_MAX, when empty: RNIC_NEVER). */
RNIC_INLINE uint64_t rnic__heap_min(const rnic__heap *h) { return h->count ? h->key[0] : UINT64_MAX; }
/* The id of the earliest timer (RNIC_NONE when empty). */
RNIC_INLINE uint32_t rnic__heap_min_id(const rnic__heap *h) { return h->count ? h->id[0] : RNIC_NONE; }
/* id's timer, or UINT64_MAX (RNIC_NEVER) when it has none. */
RNIC_INLINE uint64_t rnic__heap_key(const rnic__heap *h, uint32_t id)
{
    return h->pos[id] == RNIC_NONE ? UINT64_MAX : h->key[h->pos[id]];
}
