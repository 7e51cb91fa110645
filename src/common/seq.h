/* Wrap-safe comparison of cycle counters and N-bit sequence numbers.
 *
 * Counters wrap; "a before b" means b is reached from a by going forward less than half
 * the space. At exactly half the space the order is undefined (RFC 1982): both
 * rnic_seq_lt(a, b) and rnic_seq_lt(b, a) are then false, so callers must keep windows
 * below half the space (a 24-bit PSN window < 2^23). */
#include "base.h"
#include "fixed.h"

/* True when cycle a is strictly before cycle b (exact while they are < 2^63 apart). */
RNIC_INLINE bool rnic_cycle_before(rnic_cycle a, rnic_cycle b)
{
    uint64_t d = b - a;
    return d != 0 && d < ((uint64_t)1 << 63);
}

/* True when a is at or before b. */
RNIC_INLINE bool rnic_cycle_before_eq(rnic_cycle a, rnic_cycle b)
{
    return a == b || rnic_cycle_before(a, b);
}

/* Signed distance a - b in cycles (two's complement of the wrapped difference). */
RNIC_INLINE int64_t rnic_cycle_diff(rnic_cycle a, rnic_cycle b)
{
    uint64_t d = a - b;
    /* portable conversion of the upper half to negative numbers (no implementation-defined cast) */
    return d < ((uint64_t)1 << 63) ? (int64_t)d : -(int64_t)(~d) - 1;
}

/* The later / earlier of two cycles in wrap-safe order. */
RNIC_INLINE rnic_cycle rnic_cycle_max(rnic_cycle a, rnic_cycle b) { return rnic_cycle_before(a, b) ? b : a; }
RNIC_INLINE rnic_cycle rnic_cycle_min(rnic_cycle a, rnic_cycle b) { return rnic_cycle_before(a, b) ? a : b; }

/* ---- N-bit sequence numbers, 1 <= bits <= 32 (PSN: 24, block sequence numbers: 12/14) ----
 * `bits` is a compile-time property of a protocol field; outside 1..32 it is a programming
 * error, caught by RNIC_ASSERT in RNIC_DEBUG builds. */

RNIC_INLINE uint32_t rnic_seq_mask(unsigned bits)
{
    return bits >= 32 ? UINT32_MAX : (((uint32_t)1 << bits) - 1u);
}

/* (a + n) mod 2^bits */
RNIC_INLINE uint32_t rnic_seq_add(uint32_t a, uint32_t n, unsigned bits)
{
    return (a + n) & rnic_seq_mask(bits);
}

/* Forward distance from a to b: (b - a) mod 2^bits, in [0, 2^bits). */
RNIC_INLINE uint32_t rnic_seq_dist(uint32_t a, uint32_t b, unsigned bits)
{
    return (b - a) & rnic_seq_mask(bits);
}

/* True when a is strictly before b. */
RNIC_INLINE bool rnic_seq_lt(uint32_t a, uint32_t b, unsigned bits)
{
    uint32_t d = rnic_seq_dist(a, b, bits);
    RNIC_ASSERT(bits >= 1 && bits <= 32);
    return d != 0 && d < ((uint32_t)1 << (bits - 1u));
}

RNIC_INLINE bool rnic_seq_le(uint32_t a, uint32_t b, unsigned bits)
{
    return rnic_seq_dist(a, b, bits) == 0 || rnic_seq_lt(a, b, bits);
}

/* Signed distance a - b in [-2^(bits-1), 2^(bits-1)). */
RNIC_INLINE int32_t rnic_seq_diff(uint32_t a, uint32_t b, unsigned bits)
{
    uint32_t d = rnic_seq_dist(b, a, bits), half;
    RNIC_ASSERT(bits >= 1 && bits <= 32);
    half = (uint32_t)1 << (bits - 1u);
    return d < half ? (int32_t)d : -(int32_t)(rnic_seq_mask(bits) - d) - 1;
}

/* True when x lies in the window [lo, lo + size) modulo 2^bits (size <= 2^bits). */
RNIC_INLINE bool rnic_seq_in_window(uint32_t x, uint32_t lo, uint32_t size, unsigned bits)
{
    return rnic_seq_dist(lo, x, bits) < size;
}
