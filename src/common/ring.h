/* Bounded rings: the ports between engines. A push to a full ring is RNIC_EBUSY
 * (back-pressure, counted), never a silent drop; a pop from an empty ring is RNIC_EEMPTY.
 * Elements are copied in and out by value; capacity is any value >= 1 (not only powers of
 * two, so a port can match the hardware FIFO depth exactly). Slots lie at mem + i * elem_size
 * (mem 8-byte aligned), so read elements through pop/memcpy unless elem_size is a multiple of
 * the element's alignment. */
#include "base.h"
#include "error.h"

typedef struct rnic_ring {
    unsigned char *buf;
    uint32_t elem_size, capacity;
    uint32_t head;  /* index of the oldest element */
    uint32_t count; /* elements held */
    uint32_t high_water; /* largest count seen */
    uint64_t pushed, popped;
    uint64_t rejected_full; /* pushes refused with RNIC_EBUSY */
} rnic_ring;

/* Bytes needed for `capacity` elements of `elem_size` bytes; 0 when either is 0 or the
 * product overflows. */
RNIC_INLINE size_t rnic_ring_mem_size(uint32_t elem_size, uint32_t capacity)
{
    if (elem_size == 0 || capacity == 0 || (size_t)capacity > SIZE_MAX / elem_size)
        return 0;
    return rnic_align_up((size_t)elem_size * capacity);
}

RNIC_INLINE rnic_err rnic_ring_init(rnic_ring *r, uint32_t elem_size, uint32_t capacity, void *mem, size_t size)
{
    size_t need = rnic_ring_mem_size(elem_size, capacity);
    if (!r || !mem || need == 0 || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)))
        return RNIC_EINVAL;
    if (size < (size_t)elem_size * capacity)
        return RNIC_ENOSPC;
    RNIC_MEMSET(r, 0, sizeof *r);
    r->buf = (unsigned char *)mem;
    r->elem_size = elem_size;
    r->capacity = capacity;
    return RNIC_OK;
}

RNIC_INLINE uint32_t rnic_ring_count(const rnic_ring *r) { return r->count; }
RNIC_INLINE uint32_t rnic_ring_space(const rnic_ring *r) { return r->capacity - r->count; }
RNIC_INLINE bool rnic_ring_empty(const rnic_ring *r) { return r->count == 0; }
RNIC_INLINE bool rnic_ring_full(const rnic_ring *r) { return r->count == r->capacity; }

/* Slot of the i-th element from the head (i < capacity), without a division. head + i
 * itself may exceed UINT32_MAX when capacity > 2^31, so compare i with the room left. */
RNIC_INLINE unsigned char *rnic__ring_slot(const rnic_ring *r, uint32_t i)
{
    uint32_t room = r->capacity - r->head; /* slots from the head to the end of buf */
    uint32_t pos = i < room ? r->head + i : i - room;
    return r->buf + (size_t)pos * r->elem_size;
}

/* rnic_ring_push / rnic_ring_pop for a caller that knows the element size at compile time
 * (size must equal elem_size): the copy is then a fixed-size move, not a memcpy call. */
RNIC_INLINE rnic_err rnic_ring_push_n(rnic_ring *r, const void *elem, size_t size)
{
    RNIC_ASSERT(size == r->elem_size);
    if (!elem)
        return RNIC_EINVAL;
    if (r->count == r->capacity) {
        r->rejected_full++;
        return RNIC_EBUSY;
    }
    RNIC_MEMCPY(rnic__ring_slot(r, r->count), elem, size);
    r->count++;
    if (r->count > r->high_water)
        r->high_water = r->count;
    r->pushed++;
    return RNIC_OK;
}

RNIC_INLINE rnic_err rnic_ring_pop_n(rnic_ring *r, void *out, size_t size)
{
    RNIC_ASSERT(size == r->elem_size);
    if (r->count == 0)
        return RNIC_EEMPTY;
    if (out)
        RNIC_MEMCPY(out, r->buf + (size_t)r->head * size, size);
    r->head = r->head + 1u == r->capacity ? 0 : r->head + 1u;
    r->count--;
    r->popped++;
    return RNIC_OK;
}

/* Copy *elem in at the tail. RNIC_EBUSY when full (counted in rejected_full); RNIC_EINVAL
 * for a NULL element. */
RNIC_INLINE rnic_err rnic_ring_push(rnic_ring *r, const void *elem) { return rnic_ring_push_n(r, elem, r->elem_size); }

/* Oldest element, or NULL when empty; valid until the next pop. */
RNIC_INLINE const void *rnic_ring_peek(const rnic_ring *r)
{
    return r->count ? (const void *)(r->buf + (size_t)r->head * r->elem_size) : NULL;
}

/* i-th element from the head (0 = oldest), or NULL when i >= count. */
RNIC_INLINE const void *rnic_ring_at(const rnic_ring *r, uint32_t i)
{
    return i < r->count ? (const void *)rnic__ring_slot(r, i) : NULL;
}

/* Copy the oldest element out (out may be NULL to discard it). RNIC_EEMPTY when empty. */
RNIC_INLINE rnic_err rnic_ring_pop(rnic_ring *r, void *out) { return rnic_ring_pop_n(r, out, r->elem_size); }
