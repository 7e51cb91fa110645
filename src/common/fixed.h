/* Fixed-point time and rate.
 *
 * Time is a cycle count (rnic_cycle, uint64_t). Rates enter the API in bits per second and
 * are kept as unsigned Q32.32 *cycles per byte* (rnic_q32) at a given clock, so a finish
 * time is `start + len * cpb`: one multiply per packet; the only division happens when a
 * rate (or clock) is set.
 *
 * Precision. cpb is rounded DOWN (truncated), so its relative error lies in (-2^-32 / cpb, 0].
 * Over the documented domain (100 Kb/s .. 800 Gb/s, clocks 100 MHz .. 1 GHz) cpb lies in
 * [0.001, 80000] cycles/byte, hence a relative error < 2.4e-7 (worst at 800 Gb/s, 100 MHz).
 * Rounding down means a computed time is never later than the exact one, so a departure that
 * falls exactly on a whole cycle (1500 B at 40 Gb/s, 250 MHz = 75 cycles) stays exact under
 * rnic_ftime_ceil(); round-to-nearest would put it one cycle late whenever cpb rounds up.
 * Times accumulate in rnic_ftime (cycle + 32-bit fraction), which carries the fraction from
 * packet to packet and across rate changes, so the long-run error of a paced stream stays
 * within that 2.4e-7 bound no matter how many packets or rate changes: there is no drift.
 *
 * Range and overflow policy. A representable rate has cpb in [2^-32, 2^32) cycles/byte;
 * anything else is RNIC_ERANGE (never a silent clamp). One span `len * cpb` must stay below
 * 2^63 cycles or rnic_ftime_add_bytes() returns RNIC_ERANGE and leaves the time untouched
 * (in the documented domain a span of 4 GiB is at most 2^49 cycles). Absolute times wrap
 * modulo 2^64 cycles (584 years at 1 GHz); compare them with rnic_cycle_before() and
 * rnic_ftime_before(), which are exact while two times are less than 2^63 cycles apart.
 *
 * Division is a portable shift-subtract loop (rnic_udiv128_64): no compiler helper such as
 * __udivdi3 / __aeabi_uldivmod is ever referenced, so it runs on rv32 and Cortex-M. */
#include "base.h"
#include "error.h"

typedef uint64_t rnic_cycle; /* absolute clock cycle; wraps modulo 2^64 */
typedef uint64_t rnic_q32;   /* unsigned Q32.32 fixed point: value = raw / 2^32 */

#define RNIC_Q32_ONE ((rnic_q32)1 << 32)

/* A point in time with sub-cycle precision: cycle + frac / 2^32. */
typedef struct rnic_ftime {
    rnic_cycle cycle;
    uint32_t frac;
} rnic_ftime;

/* Documented domain of the rate helpers (the tests sweep all of it). Values outside it
 * still work while they are representable; they are simply not covered by the bounds. */
#define RNIC_RATE_MIN_BPS 100000ull        /* 100 Kb/s */
#define RNIC_RATE_MAX_BPS 800000000000ull  /* 800 Gb/s */
#define RNIC_CLOCK_MIN_HZ 100000000ull     /* 100 MHz */
#define RNIC_CLOCK_MAX_HZ 1000000000ull    /* 1 GHz */
#define RNIC_LEN_MAX ((uint64_t)1 << 32)   /* 4 GiB: the largest single span documented */

/* ---- 128-bit helpers, portable (no __int128, no division helpers) ---- */

/* Full 64 x 64 -> 128-bit product. */
#if defined(__SIZEOF_INT128__) && !defined(RNIC_PORTABLE_ARITH)
#define RNIC__HAVE_U128 1
__extension__ typedef unsigned __int128 rnic__u128;
#endif

RNIC_INLINE void rnic_mul64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#ifdef RNIC__HAVE_U128 /* one multiply instruction on 64-bit hosts */
    rnic__u128 p = (rnic__u128)a * b;
    *lo = (uint64_t)p;
    *hi = (uint64_t)(p >> 64);
#else
    uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
    uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    *lo = (mid << 32) | (ll & 0xffffffffu);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* (hi:lo) / d for hi < d (so the quotient fits 64 bits); remainder to *rem if non-NULL.
 * Native 128-bit division where the compiler has it (64-bit hosts: a rate change costs a few
 * ns, which matters when congestion control retunes 64 K QPs); elsewhere a restoring
 * shift-subtract loop of 64 iterations. Both give the exact quotient. */
RNIC_INLINE uint64_t rnic_udiv128_64(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
#ifdef RNIC__HAVE_U128
    rnic__u128 n = ((rnic__u128)hi << 64) | lo;
    RNIC_ASSERT(d != 0 && hi < d);
    if (rem)
        *rem = (uint64_t)(n % d);
    return (uint64_t)(n / d);
#else
    uint64_t q = 0;
    int i;
    RNIC_ASSERT(d != 0 && hi < d);
    for (i = 0; i < 64; i++) {
        uint64_t top = hi >> 63; /* the bit shifted out of hi: remainder >= 2^64 > d */
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        q <<= 1;
        if (top || hi >= d) {
            hi -= d;
            q |= 1u;
        }
    }
    if (rem)
        *rem = hi;
    return q;
#endif
}

/* n / d with d != 0, never calling a compiler division helper on 32-bit targets.
 * RNIC_PORTABLE_ARITH forces the 32-bit-target paths on any host (the tests use it). */
RNIC_INLINE uint64_t rnic_udiv64(uint64_t n, uint64_t d)
{
#if UINTPTR_MAX > 0xffffffffu && !defined(RNIC_PORTABLE_ARITH)
    return n / d;
#else
    return rnic_udiv128_64(0, n, d, NULL);
#endif
}

/* num * 2^32 / den as Q32.32, rounded to nearest (nearest = true) or down. RNIC_EINVAL when
 * den == 0; RNIC_ERANGE when the result is 0 (too small to represent) or >= 2^64 (too
 * large); *out is untouched then. */
RNIC_INLINE rnic_err rnic__q32_div(uint64_t num, uint64_t den, bool nearest, rnic_q32 *out)
{
    uint64_t hi = num >> 32, lo = num << 32, half = nearest ? den >> 1 : 0, q;
    if (den == 0)
        return RNIC_EINVAL;
    lo += half; /* round to nearest: add den/2 before dividing */
    if (lo < half)
        hi++;
    if (hi >= den)
        return RNIC_ERANGE;
    q = rnic_udiv128_64(hi, lo, den, NULL);
    if (q == 0)
        return RNIC_ERANGE;
    *out = q;
    return RNIC_OK;
}

/* round(num * 2^32 / den) as Q32.32; errors as rnic__q32_div. */
RNIC_INLINE rnic_err rnic_q32_ratio(uint64_t num, uint64_t den, rnic_q32 *out)
{
    return rnic__q32_div(num, den, true, out);
}

/* ---- rates ---- */

/* Cycles per byte (Q32.32) of a rate in bits/s at clock_hz: floor(clock_hz * 8 * 2^32 / bps).
 * RNIC_EINVAL for bps == 0, clock_hz == 0 or clock_hz >= 2^61; RNIC_ERANGE when the rate is
 * too slow (>= 2^32 cycles per byte) or too fast (< 2^-32 cycles per byte) to represent. */
RNIC_INLINE rnic_err rnic_rate_to_cpb(uint64_t bps, uint64_t clock_hz, rnic_q32 *cpb)
{
    if (bps == 0 || clock_hz == 0 || clock_hz >= ((uint64_t)1 << 61))
        return RNIC_EINVAL;
    return rnic__q32_div(clock_hz * 8u, bps, false, cpb);
}

/* The rate in bits/s that a Q32.32 cycles-per-byte value stands for, rounded to nearest:
 * round(clock_hz * 8 * 2^32 / cpb). Returns 0 for cpb == 0 and UINT64_MAX when the rate
 * does not fit 64 bits. */
RNIC_INLINE uint64_t rnic_cpb_to_rate(rnic_q32 cpb, uint64_t clock_hz)
{
    uint64_t hi, lo, half = cpb >> 1;
    if (cpb == 0)
        return 0;
    rnic_mul64x64(clock_hz, (uint64_t)8u << 32, &hi, &lo);
    lo += half;
    if (lo < half)
        hi++;
    if (hi >= cpb)
        return UINT64_MAX;
    return rnic_udiv128_64(hi, lo, cpb, NULL);
}

/* Bytes per cycle (Q32.32) of a rate: floor(bps * 2^32 / (8 * clock_hz)); the form a
 * token bucket or credit engine adds every cycle (rounded down: credit never runs ahead of
 * the rate). Same error policy as rnic_rate_to_cpb. */
RNIC_INLINE rnic_err rnic_rate_to_bpc(uint64_t bps, uint64_t clock_hz, rnic_q32 *bpc)
{
    if (bps == 0 || clock_hz == 0 || clock_hz >= ((uint64_t)1 << 61))
        return RNIC_EINVAL;
    return rnic__q32_div(bps, clock_hz * 8u, false, bpc);
}

/* Q32.32 product a * b, rounded to nearest. RNIC_ERANGE (and *out untouched) when the
 * result does not fit Q32.32 (>= 2^32). Used e.g. for Tassel's delta * max(1, Phi). */
RNIC_INLINE rnic_err rnic_q32_mul(rnic_q32 a, rnic_q32 b, rnic_q32 *out)
{
    uint64_t hi, lo, r;
    rnic_mul64x64(a, b, &hi, &lo);
    r = (hi << 32) | (lo >> 32);
    if ((hi >> 32) != 0)
        return RNIC_ERANGE;
    if (lo & 0x80000000u) { /* round half up */
        if (r == UINT64_MAX)
            return RNIC_ERANGE;
        r++;
    }
    *out = r;
    return RNIC_OK;
}

/* ---- time conversions ---- */

/* Cycles in `ns` nanoseconds at clock_hz, rounded to nearest (e.g. 1 us at 250 MHz = 250).
 * Saturates at UINT64_MAX. */
RNIC_INLINE rnic_cycle rnic_ns_to_cycles(uint64_t ns, uint64_t clock_hz)
{
    uint64_t hi, lo, half = 500000000u;
    rnic_mul64x64(ns, clock_hz, &hi, &lo);
    lo += half;
    if (lo < half)
        hi++;
    if (hi >= 1000000000u)
        return UINT64_MAX;
    return rnic_udiv128_64(hi, lo, 1000000000u, NULL);
}

/* Nanoseconds in `cycles` cycles at clock_hz (clock_hz != 0), rounded to nearest.
 * Saturates at UINT64_MAX; returns UINT64_MAX for clock_hz == 0. */
RNIC_INLINE uint64_t rnic_cycles_to_ns(rnic_cycle cycles, uint64_t clock_hz)
{
    uint64_t hi, lo, half = clock_hz >> 1;
    if (clock_hz == 0)
        return UINT64_MAX;
    rnic_mul64x64(cycles, 1000000000u, &hi, &lo);
    lo += half;
    if (lo < half)
        hi++;
    if (hi >= clock_hz)
        return UINT64_MAX;
    return rnic_udiv128_64(hi, lo, clock_hz, NULL);
}

/* ---- fractional time ---- */

RNIC_INLINE rnic_ftime rnic_ftime_at(rnic_cycle cycle)
{
    rnic_ftime t;
    t.cycle = cycle;
    t.frac = 0;
    return t;
}

/* t += len * cpb exactly (the product is kept to 2^-32 cycle; its fraction carries into
 * t.frac, so nothing is lost between packets). RNIC_ERANGE and t untouched when the span
 * reaches 2^63 cycles. The cycle field wraps modulo 2^64. */
RNIC_INLINE rnic_err rnic_ftime_add_bytes(rnic_ftime *t, uint64_t len, rnic_q32 cpb)
{
    uint64_t hi, lo, whole, frac;
    rnic_mul64x64(len, cpb, &hi, &lo);
    if (hi >> 31) /* span = hi:lo / 2^32 >= 2^63 cycles */
        return RNIC_ERANGE;
    whole = (hi << 32) | (lo >> 32);
    frac = (uint64_t)t->frac + (lo & 0xffffffffu);
    t->frac = (uint32_t)frac;
    t->cycle += whole + (frac >> 32);
    return RNIC_OK;
}

/* t += q (a Q32.32 span in cycles). */
RNIC_INLINE void rnic_ftime_add_q32(rnic_ftime *t, rnic_q32 q)
{
    uint64_t frac = (uint64_t)t->frac + (q & 0xffffffffu);
    t->frac = (uint32_t)frac;
    t->cycle += (q >> 32) + (frac >> 32);
}

/* t -= q (a Q32.32 span in cycles), modulo 2^96 like the additions. */
RNIC_INLINE void rnic_ftime_sub_q32(rnic_ftime *t, rnic_q32 q)
{
    uint32_t lo = (uint32_t)(q & 0xffffffffu);
    t->cycle -= (q >> 32) + (uint64_t)(t->frac < lo);
    t->frac -= lo;
}

/* The first whole cycle at or after t (a packet due at t can leave at this cycle). */
RNIC_INLINE rnic_cycle rnic_ftime_ceil(rnic_ftime t)
{
    return t.cycle + (t.frac != 0);
}

/* Wrap-safe: true when a is strictly earlier than b (exact while |a - b| < 2^63 cycles;
 * exactly 2^63 cycles apart the two are unordered and both orders are false). */
RNIC_INLINE bool rnic_ftime_before(rnic_ftime a, rnic_ftime b)
{
    /* b - a as a 96-bit number modulo 2^96 (hi: whole cycles after the borrow, lo: fraction):
     * a is earlier when that difference is nonzero and below 2^95 */
    uint64_t hi = b.cycle - a.cycle - (uint64_t)(b.frac < a.frac);
    uint32_t lo = b.frac - a.frac;
    return (hi >> 63) == 0 && (hi | lo) != 0;
}

/* b - a as Q32.32 when 0 <= b - a < 2^32 cycles; RNIC_ERANGE otherwise (*out untouched). */
RNIC_INLINE rnic_err rnic_ftime_diff(rnic_ftime b, rnic_ftime a, rnic_q32 *out)
{
    uint64_t whole = b.cycle - a.cycle;
    if (rnic_ftime_before(b, a))
        return RNIC_ERANGE;
    if (b.frac < a.frac)
        whole--; /* borrow; whole >= 1 here because b >= a */
    if (whole >> 32)
        return RNIC_ERANGE;
    *out = (whole << 32) | (uint32_t)(b.frac - a.frac);
    return RNIC_OK;
}
