/* Seeded pseudo-random numbers for tests, traffic generators and randomised protocol
 * choices: xoshiro256** seeded through splitmix64 (Blackman & Vigna). Same seed, same
 * sequence, on every compiler and target. The state lives in the caller's struct. */
#include "base.h"
#include "fixed.h"

typedef struct rnic_prng {
    uint64_t s[4];
} rnic_prng;

/* One splitmix64 step: advances *x and returns a well-mixed 64-bit value. */
RNIC_INLINE uint64_t rnic_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

RNIC_INLINE void rnic_prng_seed(rnic_prng *p, uint64_t seed)
{
    uint64_t x = seed;
    p->s[0] = rnic_splitmix64(&x);
    p->s[1] = rnic_splitmix64(&x);
    p->s[2] = rnic_splitmix64(&x);
    p->s[3] = rnic_splitmix64(&x);
}

RNIC_INLINE uint64_t rnic__rotl64(uint64_t x, unsigned k) { return (x << (k & 63u)) | (x >> ((64u - k) & 63u)); }

/* Next 64 random bits (xoshiro256**). */
RNIC_INLINE uint64_t rnic_prng_next(rnic_prng *p)
{
    uint64_t *s = p->s;
    uint64_t result = rnic__rotl64(s[1] * 5u, 7) * 9u, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rnic__rotl64(s[3], 45);
    return result;
}

/* Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject); 0 when n == 0. */
RNIC_INLINE uint64_t rnic_prng_below(rnic_prng *p, uint64_t n)
{
    uint64_t hi, lo, threshold;
    if (n == 0)
        return 0;
    rnic_mul64x64(rnic_prng_next(p), n, &hi, &lo);
    if (lo < n) {
        threshold = (0u - n) - rnic_udiv64(0u - n, n) * n; /* 2^64 mod n */
        while (lo < threshold)
            rnic_mul64x64(rnic_prng_next(p), n, &hi, &lo);
    }
    return hi;
}

/* Uniform integer in [lo, hi] (inclusive); lo when hi <= lo. */
RNIC_INLINE uint64_t rnic_prng_range(rnic_prng *p, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return lo;
    if (hi - lo == UINT64_MAX)
        return rnic_prng_next(p);
    return lo + rnic_prng_below(p, hi - lo + 1u);
}

/* True with probability num / den (den > 0). */
RNIC_INLINE bool rnic_prng_chance(rnic_prng *p, uint64_t num, uint64_t den)
{
    return rnic_prng_below(p, den) < num;
}

/* Integer in [lo, hi] spread log-uniformly (each power of two about equally likely, then
 * uniform inside it): the shape of "rates from 100 Kb/s to 100 Gb/s" or "1 B .. 1 MB"
 * workloads, without floating point. lo when hi <= lo; a lo of 0 draws from [1, hi]. */
RNIC_INLINE uint64_t rnic_prng_log_range(rnic_prng *p, uint64_t lo, uint64_t hi)
{
    unsigned lo_exp = 0, hi_exp = 0, e;
    uint64_t a, b;
    if (hi <= lo)
        return lo;
    if (lo == 0)
        lo = 1;
    while ((lo >> lo_exp) > 1u)
        lo_exp++;
    while ((hi >> hi_exp) > 1u)
        hi_exp++;
    e = lo_exp + (unsigned)rnic_prng_below(p, hi_exp - lo_exp + 1u);
    a = (uint64_t)1 << e; /* [2^e, 2^(e+1)) clipped to [lo, hi] */
    b = e >= 63 ? UINT64_MAX : ((uint64_t)1 << (e + 1u)) - 1u;
    if (a < lo)
        a = lo;
    if (b > hi)
        b = hi;
    return rnic_prng_range(p, a, b);
}
