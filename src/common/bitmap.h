/* Ring bitmaps: bit arrays of any size (typically 64..256+ bits, e.g. Tonic's per-flow
 * acked / sacked / marked-for-retransmission windows) with find-first-set from a moving
 * head, population count and ring range set/clear.
 *
 * Storage is the caller's: uint64_t words, bit i in word i/64 at position i%64; bits at
 * positions >= nbits in the last word are kept zero by every function here.
 *
 * These are hot-path primitives with stated preconditions (an index or start < nbits, a
 * count <= nbits, 1 <= nbits <= 2^32 - 64), checked by RNIC_ASSERT in RNIC_DEBUG builds (the
 * test suite's); engines validate their inputs before they reach them.
 *
 * Find-first from a moving head uses Tonic's pre-processing (App. C): mask off the bits
 * before the head and search from zero; if nothing is found, search the unmasked bitmap
 * from zero. Both searches have the head fixed at zero, so no per-layer head arithmetic. */
#include "base.h"

#define RNIC_BITMAP_WORDS(nbits) (((nbits) + 63u) / 64u)

/* Index of the lowest set bit of x (x != 0). */
RNIC_INLINE unsigned rnic_ctz64(uint64_t x)
{
#if (defined(__GNUC__) || defined(__clang__)) && UINTPTR_MAX > 0xffffffffu && !defined(RNIC_PORTABLE_ARITH)
    return (unsigned)__builtin_ctzll(x);
#else
    /* de Bruijn multiply: no libgcc helper on 32-bit cores without a ctz instruction */
    static const unsigned char pos[64] = {
        0, 1, 2, 53, 3, 7, 54, 27, 4, 38, 41, 8, 34, 55, 48, 28, 62, 5, 39, 46, 44, 42,
        22, 9, 24, 35, 59, 56, 49, 18, 29, 11, 63, 52, 6, 26, 37, 40, 33, 47, 61, 45, 43,
        21, 23, 58, 17, 10, 51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12
    };
    return pos[((x & (~x + 1u)) * 0x022fdd63cc95386dull) >> 58];
#endif
}

/* Number of set bits (SWAR: no popcount helper call on any target). */
RNIC_INLINE unsigned rnic_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* Mask of bits [lo, hi) within one word, 0 <= lo <= hi <= 64. */
RNIC_INLINE uint64_t rnic__bits_between(unsigned lo, unsigned hi)
{
    uint64_t upto_hi = hi >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << hi) - 1u);
    uint64_t below_lo = lo >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << lo) - 1u);
    return upto_hi & ~below_lo;
}

RNIC_INLINE bool rnic_bitmap_test(const uint64_t *w, uint32_t i) { return (w[i >> 6] >> (i & 63u)) & 1u; }
RNIC_INLINE void rnic_bitmap_set(uint64_t *w, uint32_t i) { w[i >> 6] |= (uint64_t)1 << (i & 63u); }
RNIC_INLINE void rnic_bitmap_clear(uint64_t *w, uint32_t i) { w[i >> 6] &= ~((uint64_t)1 << (i & 63u)); }

RNIC_INLINE void rnic_bitmap_zero(uint64_t *w, uint32_t nbits)
{
    uint32_t i, n = RNIC_BITMAP_WORDS(nbits);
    for (i = 0; i < n; i++)
        w[i] = 0;
}

/* Set (value = true) or clear the linear range [start, end), start <= end <= nbits. */
RNIC_INLINE void rnic__bitmap_fill_linear(uint64_t *w, uint32_t start, uint32_t end, bool value)
{
    while (start < end) {
        uint32_t word = start >> 6, lo = start & 63u;
        uint32_t hi = (end - (start - lo)) > 64u ? 64u : end - (start - lo);
        uint64_t m = rnic__bits_between(lo, hi);
        if (value)
            w[word] |= m;
        else
            w[word] &= ~m;
        start = (start - lo) + hi;
    }
}

/* Set / clear `count` bits starting at `start`, wrapping around the ring of nbits bits.
 * Requires start < nbits and count <= nbits. */
RNIC_INLINE void rnic_bitmap_assign_range(uint64_t *w, uint32_t nbits, uint32_t start, uint32_t count, bool value)
{
    uint32_t first;
    RNIC_ASSERT(start < nbits && count <= nbits);
    first = nbits - start < count ? nbits - start : count;
    rnic__bitmap_fill_linear(w, start, start + first, value);
    rnic__bitmap_fill_linear(w, 0, count - first, value);
}
RNIC_INLINE void rnic_bitmap_set_range(uint64_t *w, uint32_t nbits, uint32_t start, uint32_t count)
{
    rnic_bitmap_assign_range(w, nbits, start, count, true);
}
RNIC_INLINE void rnic_bitmap_clear_range(uint64_t *w, uint32_t nbits, uint32_t start, uint32_t count)
{
    rnic_bitmap_assign_range(w, nbits, start, count, false);
}

/* Number of set bits in the whole bitmap. */
RNIC_INLINE uint32_t rnic_bitmap_count(const uint64_t *w, uint32_t nbits)
{
    uint32_t i, n = RNIC_BITMAP_WORDS(nbits), sum = 0;
    for (i = 0; i < n; i++)
        sum += rnic_popcount64(w[i]);
    return sum;
}

RNIC_INLINE uint32_t rnic__bitmap_count_linear(const uint64_t *w, uint32_t start, uint32_t end)
{
    uint32_t sum = 0;
    while (start < end) {
        uint32_t lo = start & 63u;
        uint32_t hi = (end - (start - lo)) > 64u ? 64u : end - (start - lo);
        sum += rnic_popcount64(w[start >> 6] & rnic__bits_between(lo, hi));
        start = (start - lo) + hi;
    }
    return sum;
}

/* Number of set bits among `count` bits from `start`, wrapping (start < nbits, count <= nbits). */
RNIC_INLINE uint32_t rnic_bitmap_count_range(const uint64_t *w, uint32_t nbits, uint32_t start, uint32_t count)
{
    uint32_t first;
    RNIC_ASSERT(start < nbits && count <= nbits);
    first = nbits - start < count ? nbits - start : count;
    return rnic__bitmap_count_linear(w, start, start + first) + rnic__bitmap_count_linear(w, 0, count - first);
}

/* First set bit in linear [start, nbits) when `invert` is false, first clear bit when true;
 * RNIC_NONE if none. */
RNIC_INLINE uint32_t rnic__bitmap_find_linear(const uint64_t *w, uint32_t nbits, uint32_t start, bool invert)
{
    uint32_t word, nwords = RNIC_BITMAP_WORDS(nbits);
    uint64_t flip = invert ? ~(uint64_t)0 : 0, v;
    if (start >= nbits)
        return RNIC_NONE;
    word = start >> 6;
    v = (w[word] ^ flip) & ~rnic__bits_between(0, start & 63u);
    for (;;) {
        if (word == nwords - 1u)
            v &= rnic__bits_between(0, nbits - word * 64u); /* bits past nbits never count */
        if (v)
            return word * 64u + rnic_ctz64(v);
        if (++word >= nwords)
            return RNIC_NONE;
        v = w[word] ^ flip;
    }
}

/* First set bit at or after `head` going around the ring (head < nbits); RNIC_NONE if the
 * bitmap is empty. */
RNIC_INLINE uint32_t rnic_bitmap_ffs_from(const uint64_t *w, uint32_t nbits, uint32_t head)
{
    uint32_t i;
    RNIC_ASSERT(head < nbits);
    i = rnic__bitmap_find_linear(w, nbits, head, false);
    return i != RNIC_NONE ? i : rnic__bitmap_find_linear(w, nbits, 0, false);
}

/* First clear bit at or after `head` going around the ring; RNIC_NONE if all bits are set. */
RNIC_INLINE uint32_t rnic_bitmap_ffz_from(const uint64_t *w, uint32_t nbits, uint32_t head)
{
    uint32_t i;
    RNIC_ASSERT(head < nbits);
    i = rnic__bitmap_find_linear(w, nbits, head, true);
    return i != RNIC_NONE ? i : rnic__bitmap_find_linear(w, nbits, 0, true);
}
