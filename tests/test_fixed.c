/* Fixed-point time and rate (src/common/fixed.h), checked against independent references:
 * exact `unsigned __int128` arithmetic (the compiler's own 128-bit multiply and divide) and
 * `long double` -- never against the implementation's own output.
 *
 * Rounding contract pinned here (see fixed.h):
 *   rnic_rate_to_cpb, rnic_rate_to_bpc    floor   (REF_RATE_FLOOR below; 0 = round to nearest)
 *   rnic_q32_ratio, rnic_cpb_to_rate,
 *   rnic_q32_mul, rnic_ns_to_cycles,
 *   rnic_cycles_to_ns                     round to nearest, ties up
 * With floor, cpb's relative error lies in (-2^-32 / cpb, 0] (< 2.4e-7 over the documented
 * domain) and a paced time is never later than the exact one; with round-to-nearest it is at
 * most 2^-33 / cpb (<= 1.2e-7). Either way the requirement is < 1e-6 with no drift. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

/* 1: rnic_rate_to_cpb / rnic_rate_to_bpc truncate (the contract since cpb rounds down);
 * 0: they round to nearest. Only the references and the bounds below depend on it. */
#define REF_RATE_FLOOR 1

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

static uint64_t g_seed;

#define U128(hi, lo) (((u128)(hi) << 64) | (u128)(lo))
#define HI64(x) ((uint64_t)((u128)(x) >> 64))
#define LO64(x) ((uint64_t)(x))
#define TWO32 ((uint64_t)1 << 32)
#define TWO61 ((uint64_t)1 << 61)
#define TWO63 ((uint64_t)1 << 63)
#define SENTINEL 0x5eed5eed5eed5eedull

/* relative-error bound of cpb over the documented domain, and per byte in cycles */
#if REF_RATE_FLOOR
#define CPB_REL_BOUND 2.4e-7L
#define CPB_ABS_ULPS 1.0L /* |cpb - exact| < 1 ulp = 2^-32 cycle/byte */
#else
#define CPB_REL_BOUND 1.2e-7L
#define CPB_ABS_ULPS 0.5L /* |cpb - exact| <= 1/2 ulp */
#endif

static const uint64_t k_rates[] = { 100000ull, 1000000ull, 10000000ull, 100000000ull,
                                    1000000000ull, 10000000000ull, 25000000000ull,
                                    40000000000ull, 100000000000ull, 200000000000ull,
                                    400000000000ull, 800000000000ull };
static const uint64_t k_clocks[] = { 100000000ull, 156250000ull, 250000000ull, 322265625ull,
                                     1000000000ull };
#define N_RATES (sizeof k_rates / sizeof k_rates[0])
#define N_CLOCKS (sizeof k_clocks / sizeof k_clocks[0])

/* ---- random inputs ---- */

/* A 64-bit value biased towards edges: 0, 1, UINT64_MAX, powers of two and their
 * neighbours, short and long values, and plain uniform bits. */
static uint64_t rand_edge(rnic_prng *p)
{
    unsigned k = (unsigned)rnic_prng_below(p, 64);
    switch (rnic_prng_below(p, 10)) {
    case 0: return rnic_prng_below(p, 4);
    case 1: return UINT64_MAX - rnic_prng_below(p, 4);
    case 2: return (uint64_t)1 << k;
    case 3: return ((uint64_t)1 << k) - 1u;
    case 4: return ((uint64_t)1 << k) + 1u;
    case 5: return rnic_prng_next(p) >> k;
    case 6: return ~(rnic_prng_next(p) >> k);
    case 7: return rnic_prng_next(p) & 0xffffffff00000000ull;
    default: return rnic_prng_next(p);
    }
}

static uint64_t rand_nonzero_edge(rnic_prng *p)
{
    uint64_t v;
    do
        v = rand_edge(p);
    while (v == 0);
    return v;
}

/* A rate in the documented domain: the round values sometimes, else log-spread. */
static uint64_t rand_rate(rnic_prng *p)
{
    if (rnic_prng_chance(p, 1, 8))
        return k_rates[rnic_prng_below(p, N_RATES)];
    return rnic_prng_log_range(p, RNIC_RATE_MIN_BPS, RNIC_RATE_MAX_BPS);
}

static uint64_t rand_clock(rnic_prng *p)
{
    if (rnic_prng_chance(p, 1, 8))
        return k_clocks[rnic_prng_below(p, N_CLOCKS)];
    return rnic_prng_range(p, RNIC_CLOCK_MIN_HZ, RNIC_CLOCK_MAX_HZ);
}

/* ---- references (exact, __int128) ---- */

/* num * 2^32 / den as Q32.32, floor or round-half-up; errors as documented. */
static rnic_err ref_q32_div(uint64_t num, uint64_t den, int nearest, uint64_t *out)
{
    u128 n, q, r;
    if (den == 0)
        return RNIC_EINVAL;
    n = (u128)num << 32;
    q = n / den;
    r = n % den;
    if (nearest && 2 * r >= den)
        q++;
    if (q == 0 || HI64(q) != 0)
        return RNIC_ERANGE;
    *out = LO64(q);
    return RNIC_OK;
}

static rnic_err ref_rate_to_cpb(uint64_t bps, uint64_t clock, uint64_t *out)
{
    if (bps == 0 || clock == 0 || clock >= TWO61)
        return RNIC_EINVAL;
    return ref_q32_div(clock * 8u, bps, !REF_RATE_FLOOR, out);
}

static rnic_err ref_rate_to_bpc(uint64_t bps, uint64_t clock, uint64_t *out)
{
    if (bps == 0 || clock == 0 || clock >= TWO61)
        return RNIC_EINVAL;
    return ref_q32_div(bps, clock * 8u, !REF_RATE_FLOOR, out);
}

/* round(n / d), ties up, saturating at UINT64_MAX */
static uint64_t ref_round_div_sat(u128 n, u128 d)
{
    u128 q = n / d, r = n % d;
    if (2 * r >= d)
        q++;
    return HI64(q) ? UINT64_MAX : LO64(q);
}

static uint64_t ref_cpb_to_rate(uint64_t cpb, uint64_t clock)
{
    if (cpb == 0)
        return 0;
    return ref_round_div_sat((u128)clock << 35, cpb);
}

/* A time as one exact number of 2^-32 cycles, modulo 2^96. */
static u128 ft_raw(rnic_ftime t)
{
    return ((u128)t.cycle << 32) | t.frac;
}

static rnic_ftime ft_of_raw(u128 raw)
{
    rnic_ftime t;
    t.cycle = (uint64_t)(raw >> 32); /* bits 32..95: the cycle wraps modulo 2^64 */
    t.frac = (uint32_t)raw;
    return t;
}

#define MOD96(x) ((u128)(x) & (((u128)1 << 96) - 1u))

static rnic_ftime rand_ftime(rnic_prng *p)
{
    rnic_ftime t;
    t.cycle = rand_edge(p);
    switch (rnic_prng_below(p, 4)) {
    case 0: t.frac = 0; break;
    case 1: t.frac = UINT32_MAX; break;
    default: t.frac = (uint32_t)rnic_prng_next(p); break;
    }
    return t;
}

/* ---- 128-bit helpers ---- */

static void check_mul(uint64_t a, uint64_t b)
{
    uint64_t hi = 1, lo = 1;
    u128 ref = (u128)a * b;
    rnic_mul64x64(a, b, &hi, &lo);
    CHECK_EQ(hi, HI64(ref));
    CHECK_EQ(lo, LO64(ref));
}

static const uint64_t k_edges[] = { 0, 1, 2, 3, 0xffffffffull, 0x100000000ull, 0x100000001ull,
                                    0xffffffff00000000ull, 0x7fffffffffffffffull, TWO63,
                                    TWO63 + 1, UINT64_MAX - 1, UINT64_MAX,
                                    0xaaaaaaaaaaaaaaaaull, 0x5555555555555555ull };
#define N_EDGES (sizeof k_edges / sizeof k_edges[0])

static void test_mul64x64(void)
{
    rnic_prng p;
    unsigned i, j;
    long n;
    for (i = 0; i < N_EDGES; i++)
        for (j = 0; j < N_EDGES; j++)
            check_mul(k_edges[i], k_edges[j]);
    for (i = 0; i < 64; i++) /* powers of two and their neighbours */
        for (j = 0; j < 64; j++) {
            uint64_t a = (uint64_t)1 << i, b = (uint64_t)1 << j;
            check_mul(a, b);
            check_mul(a - 1u, b + 1u);
            check_mul(~a, ~b);
        }
    rnic_prng_seed(&p, g_seed ^ 0x3011);
    for (n = 0; n < 3000000 && TEST_FAILS() == 0; n++)
        check_mul(rand_edge(&p), rand_edge(&p));
    CHECK_EQ(n, 3000000);
}

static void check_div(uint64_t hi, uint64_t lo, uint64_t d)
{
    u128 num = U128(hi, lo);
    uint64_t rem = SENTINEL, q = rnic_udiv128_64(hi, lo, d, &rem);
    CHECK_EQ(q, LO64(num / d));
    CHECK_EQ(rem, LO64(num % d));
    CHECK_EQ(rnic_udiv128_64(hi, lo, d, NULL), q); /* no remainder wanted */
}

static void test_udiv128_64(void)
{
    rnic_prng p;
    unsigned i, j;
    long n;
    for (i = 0; i < N_EDGES; i++) { /* every edge divisor with the edge high words below it */
        uint64_t d = k_edges[i];
        if (d == 0)
            continue;
        for (j = 0; j < N_EDGES; j++) {
            check_div(0, k_edges[j], d);
            check_div(d - 1u, k_edges[j], d);
            check_div(d / 2u, k_edges[j], d);
            if (k_edges[j] < d)
                check_div(k_edges[j], UINT64_MAX - k_edges[j], d);
        }
    }
    CHECK_EQ(rnic_udiv128_64(UINT64_MAX - 1u, UINT64_MAX, UINT64_MAX, NULL), UINT64_MAX);
    CHECK_EQ(rnic_udiv128_64(0, 1000, 7, NULL), 142);
    CHECK_EQ(rnic_udiv128_64(1, 0, 2, NULL), TWO63); /* 2^64 / 2 */
    rnic_prng_seed(&p, g_seed ^ 0xd17);
    for (n = 0; n < 2000000 && TEST_FAILS() == 0; n++) {
        uint64_t d = rand_nonzero_edge(&p), hi;
        switch (n & 3) {
        case 0: hi = 0; break;
        case 1: hi = d - 1u; break;
        default: hi = rnic_prng_below(&p, d); break;
        }
        check_div(hi, rand_edge(&p), d);
    }
    CHECK_EQ(n, 2000000);
}

static void test_udiv64(void)
{
    rnic_prng p;
    long n;
    unsigned i, j;
    for (i = 0; i < N_EDGES; i++)
        for (j = 0; j < N_EDGES; j++)
            if (k_edges[j] != 0)
                CHECK_EQ(rnic_udiv64(k_edges[i], k_edges[j]), (uint64_t)((u128)k_edges[i] / k_edges[j]));
    rnic_prng_seed(&p, g_seed ^ 0xd64);
    for (n = 0; n < 2000000 && TEST_FAILS() == 0; n++) {
        uint64_t a = rand_edge(&p), d = rand_nonzero_edge(&p);
        CHECK_EQ(rnic_udiv64(a, d), (uint64_t)((u128)a / d));
    }
}

/* ---- Q32.32 ratio ---- */

static void check_ratio(uint64_t num, uint64_t den)
{
    uint64_t want = SENTINEL, got = SENTINEL;
    rnic_err ew = ref_q32_div(num, den, 1, &want), eg = rnic_q32_ratio(num, den, &got);
    CHECK_EQ(eg, ew);
    CHECK_EQ(got, ew == RNIC_OK ? want : SENTINEL); /* untouched on error */
}

static void test_q32_ratio(void)
{
    rnic_prng p;
    long n;
    uint64_t out = SENTINEL;
    CHECK_EQ(rnic_q32_ratio(1, 0, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_q32_ratio(0, 0, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_q32_ratio(0, 5, &out), RNIC_ERANGE); /* 0 is not representable */
    CHECK_EQ(out, SENTINEL);
    CHECK_EQ(rnic_q32_ratio(1, (uint64_t)1 << 33, &out), RNIC_OK); /* exactly 2^-33: ties up */
    CHECK_EQ(out, 1);
    CHECK_EQ(rnic_q32_ratio(1, ((uint64_t)1 << 33) + 1u, &out), RNIC_ERANGE); /* just below */
    CHECK_EQ(out, 1);
    CHECK_EQ(rnic_q32_ratio(3, 2, &out), RNIC_OK);
    CHECK_EQ(out, 3 * (TWO32 / 2));
    CHECK_EQ(rnic_q32_ratio(1, 3, &out), RNIC_OK); /* 1431655765.33 -> 1431655765 */
    CHECK_EQ(out, 1431655765u);
    CHECK_EQ(rnic_q32_ratio(2, 3, &out), RNIC_OK); /* 2863311530.67 -> 2863311531 */
    CHECK_EQ(out, 2863311531u);
    out = SENTINEL;
    CHECK_EQ(rnic_q32_ratio(TWO32, 1, &out), RNIC_ERANGE); /* 2^32 does not fit Q32.32 */
    CHECK_EQ(out, SENTINEL);
    CHECK_EQ(rnic_q32_ratio(TWO32 - 1u, 1, &out), RNIC_OK);
    CHECK_EQ(out, UINT64_MAX - 0xffffffffu);
    rnic_prng_seed(&p, g_seed ^ 0x9a7);
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
        uint64_t den = rand_edge(&p), num;
        switch (n % 4) {
        case 0: num = rand_edge(&p); break;
        case 1: /* result near 2^64: num ~ den * 2^32 */
            den = den >> 32 ? den >> 32 : den;
            num = (den << 32) - rnic_prng_below(&p, den + 1u) + den / 2u;
            break;
        case 2: /* result near 2^-32 .. 1: den ~ num * 2^33 */
            num = rnic_prng_below(&p, (uint64_t)1 << 30) + 1u;
            den = (num << 33) + rnic_prng_below(&p, 64) - 32u;
            break;
        default: num = rnic_prng_log_range(&p, 1, UINT64_MAX); den = rnic_prng_log_range(&p, 1, UINT64_MAX); break;
        }
        check_ratio(num, den);
    }
}

/* ---- rates ---- */

/* Everything about one (bps, clock) pair in the documented domain; returns cpb's relative
 * error (signed, against the exact rational clock * 8 / bps). */
static long double check_rate_in_domain(uint64_t bps, uint64_t clock)
{
    uint64_t cpb = SENTINEL, bpc = SENTINEL, want = SENTINEL, rate;
    u128 exact_num = (u128)clock << 35; /* exact cpb = exact_num / bps / 2^32 */
    i128 e;
    long double rel;
    CHECK_EQ(ref_rate_to_cpb(bps, clock, &want), RNIC_OK);
    CHECK_EQ(rnic_rate_to_cpb(bps, clock, &cpb), RNIC_OK);
    CHECK_EQ(cpb, want);
    /* error of cpb in 2^-32 cycle/byte units, times bps: exact */
    e = (i128)((u128)cpb * bps) - (i128)exact_num;
#if REF_RATE_FLOOR
    CHECK(e <= 0 && -e < (i128)bps); /* (-2^-32, 0] cycles per byte */
#else
    CHECK(2 * e <= (i128)bps && -2 * e <= (i128)bps); /* |error| <= 2^-33 cycles per byte */
#endif
    rel = (long double)e / (long double)exact_num;
    CHECK(rel <= CPB_REL_BOUND && rel >= -CPB_REL_BOUND);
    /* the same bound stated as 2^-32 (or 2^-33) / cpb */
    CHECK((rel < 0 ? -rel : rel) <= CPB_ABS_ULPS / (long double)cpb * (1.0L + 1e-12L));
    /* cycles per byte lies in [0.001, 80000] */
    CHECK(cpb >= 4294967u && cpb <= 80000u * TWO32);

    CHECK_EQ(ref_rate_to_bpc(bps, clock, &want), RNIC_OK);
    CHECK_EQ(rnic_rate_to_bpc(bps, clock, &bpc), RNIC_OK);
    CHECK_EQ(bpc, want);

    rate = rnic_cpb_to_rate(cpb, clock);
    CHECK_EQ(rate, ref_cpb_to_rate(cpb, clock));
    { /* round trip: the rate cpb stands for is within the cpb bound (+ 1/2 for rounding) */
        long double d = (long double)rate - (long double)bps;
        CHECK((d < 0 ? -d : d) <= CPB_REL_BOUND * 1.0001L * (long double)bps + 0.5L);
    }
    return rel;
}

static void test_rate_round_values(void)
{
    unsigned i, j;
    uint64_t cpb = 0;
    long double worst = 0;
    for (i = 0; i < N_CLOCKS; i++)
        for (j = 0; j < N_RATES; j++) {
            long double rel = check_rate_in_domain(k_rates[j], k_clocks[i]);
            if ((rel < 0 ? -rel : rel) > worst)
                worst = rel < 0 ? -rel : rel;
        }
    printf("  worst |relative error| of cpb over the round grid: %.3Le\n", worst);
    /* values known by hand */
    CHECK_EQ(rnic_rate_to_cpb(1000000000u, 1000000000u, &cpb), RNIC_OK); /* 8 cycles/byte */
    CHECK_EQ(cpb, 8u * TWO32);
    CHECK_EQ(rnic_rate_to_cpb(100000u, 1000000000u, &cpb), RNIC_OK); /* 80000 */
    CHECK_EQ(cpb, 80000u * TWO32);
    CHECK_EQ(rnic_rate_to_cpb(800000000000ull, 100000000u, &cpb), RNIC_OK); /* 0.001 */
    CHECK_EQ(cpb, 4294967u); /* 4294967.296 */
    CHECK_EQ(rnic_rate_to_cpb(40000000000ull, 250000000u, &cpb), RNIC_OK); /* 0.05 */
    CHECK_EQ(cpb, REF_RATE_FLOOR ? 214748364u : 214748365u); /* 214748364.8 */
    CHECK_EQ(rnic_rate_to_bpc(40000000000ull, 250000000u, &cpb), RNIC_OK); /* 20 bytes/cycle */
    CHECK_EQ(cpb, 20u * TWO32);
    CHECK_EQ(rnic_cpb_to_rate(8u * TWO32, 1000000000u), 1000000000u);
    CHECK_EQ(rnic_cpb_to_rate(214748365u, 250000000u), 39999999963ull); /* 39999999962.747 */
}

static void test_rate_random_domain(void)
{
    rnic_prng p;
    long n;
    long double lo = 0, hi = 0;
    rnic_prng_seed(&p, g_seed ^ 0x7a7e);
    for (n = 0; n < 400000 && TEST_FAILS() == 0; n++) {
        long double rel = check_rate_in_domain(rand_rate(&p), rand_clock(&p));
        if (rel < lo)
            lo = rel;
        if (rel > hi)
            hi = rel;
    }
    /* the corners of the domain */
    check_rate_in_domain(RNIC_RATE_MIN_BPS, RNIC_CLOCK_MIN_HZ);
    check_rate_in_domain(RNIC_RATE_MIN_BPS, RNIC_CLOCK_MAX_HZ);
    check_rate_in_domain(RNIC_RATE_MAX_BPS, RNIC_CLOCK_MIN_HZ);
    check_rate_in_domain(RNIC_RATE_MAX_BPS, RNIC_CLOCK_MAX_HZ);
    printf("  relative error of cpb over %ld random rates: [%.3Le, %.3Le] (bound %.1Le)\n", n, lo,
           hi, CPB_REL_BOUND);
}

/* Outside the domain: every 64-bit bps and clock, outputs and error codes vs the reference. */
static void test_rate_random_any(void)
{
    rnic_prng p;
    long n;
    rnic_prng_seed(&p, g_seed ^ 0xa11);
    for (n = 0; n < 400000 && TEST_FAILS() == 0; n++) {
        uint64_t bps = n & 1 ? rand_edge(&p) : rnic_prng_log_range(&p, 1, UINT64_MAX);
        uint64_t clock = n & 2 ? rand_edge(&p) : rnic_prng_log_range(&p, 1, (uint64_t)1 << 62);
        uint64_t want = SENTINEL, got = SENTINEL, cpb;
        rnic_err ew = ref_rate_to_cpb(bps, clock, &want), eg = rnic_rate_to_cpb(bps, clock, &got);
        CHECK_EQ(eg, ew);
        CHECK_EQ(got, want);
        want = got = SENTINEL;
        ew = ref_rate_to_bpc(bps, clock, &want);
        eg = rnic_rate_to_bpc(bps, clock, &got);
        CHECK_EQ(eg, ew);
        CHECK_EQ(got, want);
        cpb = rand_edge(&p);
        CHECK_EQ(rnic_cpb_to_rate(cpb, clock), ref_cpb_to_rate(cpb, clock));
    }
}

static void test_rate_errors(void)
{
    uint64_t out = SENTINEL;
    CHECK_EQ(rnic_rate_to_cpb(0, 250000000u, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_rate_to_cpb(1000000u, 0, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_rate_to_cpb(0, 0, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_rate_to_cpb(1000000u, TWO61, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_rate_to_bpc(0, 250000000u, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_rate_to_bpc(1000000u, 0, &out), RNIC_EINVAL);
    CHECK_EQ(rnic_rate_to_bpc(1000000u, TWO61, &out), RNIC_EINVAL);
    CHECK_EQ(out, SENTINEL);
    /* too slow: 1 b/s at 1 GHz is 8e9 >= 2^32 cycles per byte */
    CHECK_EQ(rnic_rate_to_cpb(1, 1000000000u, &out), RNIC_ERANGE);
    CHECK_EQ(out, SENTINEL);
    /* 2 b/s at 1 GHz is 4e9 < 2^32: representable */
    CHECK_EQ(rnic_rate_to_cpb(2, 1000000000u, &out), RNIC_OK);
    CHECK_EQ(out, 4000000000ull * TWO32);
    out = SENTINEL;
    /* too fast: UINT64_MAX b/s at 1 Hz is about 2^-61 < 2^-32 cycles per byte */
    CHECK_EQ(rnic_rate_to_cpb(UINT64_MAX, 1, &out), RNIC_ERANGE);
    CHECK_EQ(out, SENTINEL);
    /* bytes per cycle: too slow (< 2^-32) and too fast (>= 2^32) */
    CHECK_EQ(rnic_rate_to_bpc(1, TWO61 - 1u, &out), RNIC_ERANGE);
    CHECK_EQ(rnic_rate_to_bpc(UINT64_MAX, 1, &out), RNIC_ERANGE);
    CHECK_EQ(out, SENTINEL);
    /* the whole documented domain is representable (corners) */
    CHECK_EQ(rnic_rate_to_cpb(RNIC_RATE_MIN_BPS, RNIC_CLOCK_MAX_HZ, &out), RNIC_OK);
    CHECK_EQ(rnic_rate_to_cpb(RNIC_RATE_MAX_BPS, RNIC_CLOCK_MIN_HZ, &out), RNIC_OK);
    CHECK_EQ(rnic_rate_to_bpc(RNIC_RATE_MIN_BPS, RNIC_CLOCK_MAX_HZ, &out), RNIC_OK);
    CHECK_EQ(rnic_rate_to_bpc(RNIC_RATE_MAX_BPS, RNIC_CLOCK_MIN_HZ, &out), RNIC_OK);
    /* cpb -> rate */
    CHECK_EQ(rnic_cpb_to_rate(0, 250000000u), 0);
    CHECK_EQ(rnic_cpb_to_rate(1, UINT64_MAX), UINT64_MAX); /* does not fit */
    CHECK_EQ(rnic_cpb_to_rate(1, 1), (uint64_t)1 << 35);
}

/* ---- fractional time ---- */

static void check_add_bytes(rnic_ftime t0, uint64_t len, uint64_t cpb)
{
    rnic_ftime t = t0;
    u128 span = (u128)len * cpb;
    rnic_err e = rnic_ftime_add_bytes(&t, len, cpb);
    if (span >> 95) { /* >= 2^63 cycles */
        CHECK_EQ(e, RNIC_ERANGE);
        CHECK_EQ(t.cycle, t0.cycle);
        CHECK_EQ(t.frac, t0.frac);
    } else {
        rnic_ftime want = ft_of_raw(ft_raw(t0) + span);
        CHECK_EQ(e, RNIC_OK);
        CHECK_EQ(t.cycle, want.cycle);
        CHECK_EQ(t.frac, want.frac);
    }
}

static uint64_t rand_len(rnic_prng *p)
{
    switch (rnic_prng_below(p, 8)) {
    case 0: return 1;
    case 1: return RNIC_LEN_MAX; /* 4 GiB, inclusive */
    case 2: return RNIC_LEN_MAX - rnic_prng_below(p, 4);
    case 3: return rnic_prng_range(p, 64, 9000);
    default: return rnic_prng_log_range(p, 1, RNIC_LEN_MAX);
    }
}

static void test_ftime_add_bytes_exact(void)
{
    rnic_prng p;
    long n;
    uint64_t cpb_max = 0;
    rnic_prng_seed(&p, g_seed ^ 0xadd);
    /* in the documented domain: lengths 1 B .. 4 GiB, rates and clocks in range */
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
        uint64_t cpb = 0;
        if (rnic_rate_to_cpb(rand_rate(&p), rand_clock(&p), &cpb) != RNIC_OK)
            CHECK(!"in-domain rate not representable");
        check_add_bytes(rand_ftime(&p), rand_len(&p), cpb);
    }
    /* the longest span documented: 4 GiB at 100 Kb/s on 1 GHz stays below 2^49 cycles */
    CHECK_EQ(rnic_rate_to_cpb(RNIC_RATE_MIN_BPS, RNIC_CLOCK_MAX_HZ, &cpb_max), RNIC_OK);
    CHECK(((u128)RNIC_LEN_MAX * cpb_max) >> 32 < ((u128)1 << 49));
    /* any cpb at all, including spans that overflow */
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++)
        check_add_bytes(rand_ftime(&p), n & 1 ? rand_len(&p) : rand_edge(&p), rand_edge(&p));
}

static void test_ftime_add_bytes_overflow_and_wrap(void)
{
    rnic_ftime t = rnic_ftime_at(12345), t0;
    t.frac = 777;
    t0 = t;
    /* span = 2^95 / 2^32 = 2^63 cycles: refused, t untouched */
    CHECK_EQ(rnic_ftime_add_bytes(&t, RNIC_LEN_MAX, TWO63), RNIC_ERANGE);
    CHECK(t.cycle == t0.cycle && t.frac == t0.frac);
    CHECK_EQ(rnic_ftime_add_bytes(&t, TWO63, TWO32), RNIC_ERANGE);
    CHECK_EQ(rnic_ftime_add_bytes(&t, UINT64_MAX, UINT64_MAX), RNIC_ERANGE);
    CHECK(t.cycle == t0.cycle && t.frac == t0.frac);
    /* one 2^-32 cycle below: accepted */
    check_add_bytes(t0, RNIC_LEN_MAX, TWO63 - 1u);
    check_add_bytes(t0, TWO63, TWO32 - 1u);
    check_add_bytes(t0, TWO63 - 1u, TWO32);
    CHECK_EQ(rnic_ftime_add_bytes(&t, TWO63 - 1u, TWO32), RNIC_OK); /* 2^63 - 1 cycles */
    CHECK_EQ(t.cycle, 12345u + TWO63 - 1u);
    CHECK_EQ(t.frac, 777);
    /* zero length or zero cpb: nothing happens */
    t = t0;
    CHECK_EQ(rnic_ftime_add_bytes(&t, 0, UINT64_MAX), RNIC_OK);
    CHECK_EQ(rnic_ftime_add_bytes(&t, UINT64_MAX, 0), RNIC_OK);
    CHECK(t.cycle == t0.cycle && t.frac == t0.frac);
    /* the fraction carries into the cycle */
    t.cycle = 10;
    t.frac = 0xffffffffu;
    CHECK_EQ(rnic_ftime_add_bytes(&t, 1, 1), RNIC_OK);
    CHECK_EQ(t.cycle, 11);
    CHECK_EQ(t.frac, 0);
    /* the cycle wraps modulo 2^64 */
    t.cycle = UINT64_MAX - 1u;
    t.frac = 0x80000000u;
    CHECK_EQ(rnic_ftime_add_bytes(&t, 3, TWO32 / 2u), RNIC_OK); /* + 1.5 cycles */
    CHECK_EQ(t.cycle, 0);
    CHECK_EQ(t.frac, 0);
    t.cycle = UINT64_MAX;
    t.frac = 1;
    CHECK_EQ(rnic_ftime_add_bytes(&t, 150, TWO32 / 2u), RNIC_OK); /* + 75 cycles */
    CHECK_EQ(t.cycle, 74);
    CHECK_EQ(t.frac, 1);
    check_add_bytes(t0, 1, 0);
    check_add_bytes(ft_of_raw(U128(0, 0) - 1u), RNIC_LEN_MAX, TWO63 - 1u);
}

static void test_ftime_add_q32(void)
{
    rnic_prng p;
    long n;
    rnic_prng_seed(&p, g_seed ^ 0xa32);
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
        rnic_ftime t = rand_ftime(&p), want;
        uint64_t q = rand_edge(&p);
        want = ft_of_raw(ft_raw(t) + q);
        rnic_ftime_add_q32(&t, q);
        CHECK_EQ(t.cycle, want.cycle);
        CHECK_EQ(t.frac, want.frac);
    }
}

/* t - q modulo 2^96 against the 128-bit reference (wraps below cycle 0 and borrows from frac). */
static void test_ftime_sub_q32(void)
{
    rnic_prng p;
    long n;
    rnic_ftime z = { 0, 5 };
    rnic_ftime_sub_q32(&z, ((uint64_t)3 << 32) | 6u); /* 0 + 5/2^32 - (3 + 6/2^32): borrow and wrap */
    CHECK_EQ(z.cycle, UINT64_MAX - 3u);
    CHECK_EQ(z.frac, UINT32_MAX);
    rnic_prng_seed(&p, g_seed ^ 0x5b32);
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
        rnic_ftime t = rand_ftime(&p), want, back;
        uint64_t q = rand_edge(&p);
        want = ft_of_raw(ft_raw(t) - q);
        back = t;
        rnic_ftime_sub_q32(&t, q);
        CHECK_EQ(t.cycle, want.cycle);
        CHECK_EQ(t.frac, want.frac);
        rnic_ftime_add_q32(&t, q); /* the inverse of add */
        CHECK_EQ(t.cycle, back.cycle);
        CHECK_EQ(t.frac, back.frac);
    }
}

/* ---- drift: a paced stream against the exact time computed from the TRUE rates ---- */

/* Exact time of `bytes` bytes at bps on clock: integer part into *q, fraction into *f. */
static void ref_segment(uint64_t bytes, uint64_t bps, uint64_t clock, u128 *q, long double *f)
{
    u128 num = (u128)bytes * clock * 8u;
    if (bytes == 0)
        return;
    *q += num / bps;
    *f += (long double)(uint64_t)(num % bps) / (long double)bps;
}

typedef struct drift_check {
    long double rel, per_byte; /* relative error; error in cycles per byte sent */
} drift_check;

/* Compare the paced time with the exact one; returns the errors seen. */
static drift_check check_stream(rnic_ftime start, rnic_ftime t, u128 sum_span, u128 q, long double f,
                                uint64_t bytes)
{
    drift_check r;
    u128 elapsed = MOD96(ft_raw(t) - ft_raw(start)); /* < 2^64 cycles here */
    long double exact = (long double)q + f, err;
    /* 1. accumulation is exact: the time is start + sum(len * cpb), to the last 2^-32 cycle */
    CHECK_EQ(HI64(elapsed), HI64(sum_span));
    CHECK_EQ(LO64(elapsed), LO64(sum_span));
    /* 2. against the true rates */
    err = (long double)((i128)sum_span - (i128)(q << 32)) / 4294967296.0L - f;
    r.rel = err / exact;
    r.per_byte = err / (long double)bytes;
    CHECK(r.rel < 1e-6L && r.rel > -1e-6L); /* the requirement */
    CHECK(r.rel <= CPB_REL_BOUND && r.rel >= -CPB_REL_BOUND);
    /* 3. no drift: the error per byte stays within cpb's own rounding (2^-32 cycle/byte),
     * whatever the packet count */
    CHECK((r.per_byte < 0 ? -r.per_byte : r.per_byte) <= CPB_ABS_ULPS / 4294967296.0L + 1e-15L);
#if REF_RATE_FLOOR
    CHECK(err <= 1e-9L); /* cpb rounds down: never later than the exact time */
#endif
    return r;
}

static void test_drift_paced_stream(void)
{
    /* The stream's relative error is a byte-weighted mean of its rates' cpb errors, which slow
     * rates (many cycles per byte) dilute: one run keeps to the fast end at 100 MHz, where cpb
     * is 0.001 .. 0.008 cycles/byte and its relative error is largest. */
    static const struct {
        uint64_t clock, rate_lo, rate_hi; /* clock 0: random */
    } runs[] = { { RNIC_CLOCK_MIN_HZ, 100000000000ull, RNIC_RATE_MAX_BPS },
                 { 0, RNIC_RATE_MIN_BPS, RNIC_RATE_MAX_BPS },
                 { 0, 1000000000ull, RNIC_RATE_MAX_BPS } };
    rnic_prng p;
    unsigned run;
    rnic_prng_seed(&p, g_seed ^ 0xd71f7);
    for (run = 0; run < sizeof runs / sizeof runs[0]; run++) {
        uint64_t clock = runs[run].clock ? runs[run].clock : rand_clock(&p);
        uint64_t bps = 0, cpb = 0, seg = 0, bytes = 0, changes = 0, next_check = 1000;
        const long packets = 1000000;
        rnic_ftime start, t;
        u128 sum_span = 0, q = 0;
        long double f = 0, worst_rel = 0;
        long n;
        start.cycle = UINT64_MAX - rnic_prng_below(&p, (uint64_t)1 << 40); /* crosses the wrap */
        start.frac = (uint32_t)rnic_prng_next(&p);
        t = start;
        for (n = 0; n < packets && TEST_FAILS() == 0; n++) {
            uint64_t len = rnic_prng_range(&p, 64, 9000);
            if (n == 0 || rnic_prng_chance(&p, 1, 500)) { /* the rate changes at random moments */
                ref_segment(seg, bps, clock, &q, &f);
                seg = 0;
                do
                    bps = rand_rate(&p);
                while (bps < runs[run].rate_lo || bps > runs[run].rate_hi);
                CHECK_EQ(rnic_rate_to_cpb(bps, clock, &cpb), RNIC_OK);
                changes++;
            }
            CHECK_EQ(rnic_ftime_add_bytes(&t, len, cpb), RNIC_OK);
            sum_span += (u128)len * cpb;
            seg += len;
            bytes += len;
            if ((uint64_t)n + 1u == next_check) { /* 1e3, 1e4, 1e5, 1e6 packets */
                drift_check c;
                ref_segment(seg, bps, clock, &q, &f);
                seg = 0;
                c = check_stream(start, t, sum_span, q, f, bytes);
                if ((c.rel < 0 ? -c.rel : c.rel) > worst_rel)
                    worst_rel = c.rel < 0 ? -c.rel : c.rel;
                if (next_check == (uint64_t)packets)
                    printf("  clock %" PRIu64 " Hz, rates %" PRIu64 "..%" PRIu64 " b/s: %ld packets, %" PRIu64
                           " rate changes: relative error %.3Le (worst at a checkpoint %.3Le), per byte %.3Le cycles\n",
                           clock, runs[run].rate_lo, runs[run].rate_hi, n + 1, changes, c.rel, worst_rel, c.per_byte);
                next_check *= 10u;
            }
        }
        CHECK_EQ(n, packets);
        CHECK(changes > 1000);
        CHECK(worst_rel < 1e-6L);
    }
}

/* One rate, random sizes: the error after n packets is exactly bytes * (cpb - exact cpb),
 * i.e. the per-byte (hence per-packet) error is the same constant at 1e3 and at 1e6 packets. */
static void test_drift_constant_rate_does_not_grow(void)
{
    rnic_prng p;
    unsigned c;
    rnic_prng_seed(&p, g_seed ^ 0xc0257);
    for (c = 0; c < N_CLOCKS; c++) {
        uint64_t clock = k_clocks[c], bps = c & 1 ? 25000000000ull : 800000000000ull, cpb = 0;
        uint64_t bytes = 0, next_check = 1000;
        rnic_ftime start = rnic_ftime_at(rnic_prng_next(&p)), t;
        long double cpb_err, first = 0;
        u128 sum_span = 0;
        long n;
        CHECK_EQ(rnic_rate_to_cpb(bps, clock, &cpb), RNIC_OK);
        /* cpb's own error, cycles per byte, exact in long double */
        cpb_err = (long double)((i128)((u128)cpb * bps) - (i128)((u128)clock << 35)) /
                  ((long double)bps * 4294967296.0L);
        t = start;
        for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
            uint64_t len = rnic_prng_range(&p, 64, 9000);
            CHECK_EQ(rnic_ftime_add_bytes(&t, len, cpb), RNIC_OK);
            sum_span += (u128)len * cpb;
            bytes += len;
            if ((uint64_t)n + 1u == next_check) {
                u128 q = 0;
                long double f = 0;
                drift_check r;
                ref_segment(bytes, bps, clock, &q, &f);
                r = check_stream(start, t, sum_span, q, f, bytes);
                /* per-byte error == cpb's error, to long double precision */
                CHECK(r.per_byte - cpb_err < 1e-18L && cpb_err - r.per_byte < 1e-18L);
                if (next_check == 1000)
                    first = r.per_byte;
                else
                    CHECK(r.per_byte - first < 1e-18L && first - r.per_byte < 1e-18L);
                next_check *= 10u;
            }
        }
    }
}

/* The README's promise: 1500 B at 40 Gb/s on 250 MHz is exactly 75 cycles, and with cpb
 * rounded down the n-th departure rnic_ftime_ceil() stays exactly 75 n. */
static void test_whole_cycle_departures(void)
{
    uint64_t cpb = 0;
    rnic_ftime t = rnic_ftime_at(0);
    uint32_t n;
    CHECK_EQ(rnic_rate_to_cpb(40000000000ull, 250000000u, &cpb), RNIC_OK);
    for (n = 1; n <= 1000000u && TEST_FAILS() == 0; n++) {
        CHECK_EQ(rnic_ftime_add_bytes(&t, 1500, cpb), RNIC_OK);
#if REF_RATE_FLOOR
        CHECK_EQ(rnic_ftime_ceil(t), 75u * n);
#else
        CHECK(rnic_ftime_ceil(t) - 75u * n <= 1u);
#endif
    }
}

/* ---- Q32.32 multiply ---- */

static void check_q32_mul(uint64_t a, uint64_t b)
{
    u128 prod = (u128)a * b, r = (prod + 0x80000000u) >> 32; /* ties up */
    uint64_t got = SENTINEL;
    rnic_err e = rnic_q32_mul(a, b, &got);
    if (HI64(r)) {
        CHECK_EQ(e, RNIC_ERANGE);
        CHECK_EQ(got, SENTINEL);
    } else {
        CHECK_EQ(e, RNIC_OK);
        CHECK_EQ(got, LO64(r));
    }
}

static void test_q32_mul(void)
{
    rnic_prng p;
    long n;
    uint64_t out = SENTINEL;
    unsigned i, j;
    CHECK_EQ(rnic_q32_mul(TWO32, TWO32, &out), RNIC_OK); /* 1 * 1 */
    CHECK_EQ(out, TWO32);
    CHECK_EQ(rnic_q32_mul(3u * TWO32 / 2u, 5u * TWO32, &out), RNIC_OK); /* 1.5 * 5 */
    CHECK_EQ(out, 15u * TWO32 / 2u);
    CHECK_EQ(rnic_q32_mul(1, 0x80000000u, &out), RNIC_OK); /* 2^-33: a tie, rounds up */
    CHECK_EQ(out, 1);
    CHECK_EQ(rnic_q32_mul(1, 0x7fffffffu, &out), RNIC_OK); /* just below: rounds to 0 */
    CHECK_EQ(out, 0);
    out = SENTINEL;
    CHECK_EQ(rnic_q32_mul((uint64_t)1 << 48, (uint64_t)1 << 48, &out), RNIC_ERANGE); /* 2^32 */
    CHECK_EQ(out, SENTINEL);
    CHECK_EQ(rnic_q32_mul((uint64_t)1 << 48, ((uint64_t)1 << 48) - 1u, &out), RNIC_OK);
    CHECK_EQ(out, UINT64_MAX - 0xffffu);
    /* (2^64 - 1) + 1/2 ulp: rounding up would overflow */
    out = SENTINEL;
    CHECK_EQ(rnic_q32_mul(66571993088ull, 1190112520884487201ull, &out), RNIC_ERANGE);
    CHECK_EQ(out, SENTINEL);
    CHECK_EQ(rnic_q32_mul(UINT64_MAX, TWO32, &out), RNIC_OK); /* largest value * 1 */
    CHECK_EQ(out, UINT64_MAX);
    for (i = 0; i < N_EDGES; i++)
        for (j = 0; j < N_EDGES; j++)
            check_q32_mul(k_edges[i], k_edges[j]);
    rnic_prng_seed(&p, g_seed ^ 0x3a1);
    for (n = 0; n < 2000000 && TEST_FAILS() == 0; n++) {
        uint64_t a, b;
        if (n & 1) { /* around 1.0 and around the overflow line */
            a = rnic_prng_log_range(&p, 1, UINT64_MAX);
            b = rnic_prng_log_range(&p, 1, UINT64_MAX);
        } else {
            a = rand_edge(&p);
            b = rand_edge(&p);
        }
        check_q32_mul(a, b);
    }
}

/* ---- ns <-> cycles ---- */

static void test_ns_cycles(void)
{
    rnic_prng p;
    long n;
    CHECK_EQ(rnic_ns_to_cycles(1000, 250000000u), 250); /* 1 us at 250 MHz */
    CHECK_EQ(rnic_cycles_to_ns(250, 250000000u), 1000);
    CHECK_EQ(rnic_ns_to_cycles(1, 500000000u), 1);  /* 0.5: ties up */
    CHECK_EQ(rnic_ns_to_cycles(1, 499999999u), 0);
    CHECK_EQ(rnic_ns_to_cycles(3, 322265625u), 1);  /* 0.967 */
    CHECK_EQ(rnic_ns_to_cycles(0, 1000000000u), 0);
    CHECK_EQ(rnic_ns_to_cycles(UINT64_MAX, 1000000000u), UINT64_MAX);
    CHECK_EQ(rnic_ns_to_cycles(UINT64_MAX, UINT64_MAX), UINT64_MAX); /* saturates */
    CHECK_EQ(rnic_cycles_to_ns(1, 3), 333333333u);
    CHECK_EQ(rnic_cycles_to_ns(2, 3), 666666667u);
    CHECK_EQ(rnic_cycles_to_ns(1, 2000000000u), 1); /* 0.5 ns: ties up */
    CHECK_EQ(rnic_cycles_to_ns(5, 0), UINT64_MAX);
    CHECK_EQ(rnic_cycles_to_ns(UINT64_MAX, 1), UINT64_MAX); /* saturates */
    CHECK_EQ(rnic_cycles_to_ns(UINT64_MAX, 1000000000u), UINT64_MAX);
    /* exactly at the saturation line: the product is 2^64 * the divisor */
    CHECK_EQ(rnic_ns_to_cycles(TWO63, 2000000000u), UINT64_MAX);
    CHECK_EQ(rnic_ns_to_cycles(TWO63 - 1u, 2000000000u), UINT64_MAX - 1u);
    CHECK_EQ(rnic_cycles_to_ns(TWO63, 500000000u), UINT64_MAX);
    CHECK_EQ(rnic_cycles_to_ns(TWO63 - 1u, 500000000u), UINT64_MAX - 1u);
    rnic_prng_seed(&p, g_seed ^ 0x45);
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
        uint64_t v = n & 2 ? rand_edge(&p) : rnic_prng_log_range(&p, 1, UINT64_MAX);
        uint64_t clock = n & 1 ? rand_clock(&p) : rand_nonzero_edge(&p);
        CHECK_EQ(rnic_ns_to_cycles(v, clock), ref_round_div_sat((u128)v * clock, 1000000000u));
        CHECK_EQ(rnic_cycles_to_ns(v, clock), ref_round_div_sat((u128)v * 1000000000u, clock));
        /* around the saturation line of each conversion */
        clock = rnic_prng_range(&p, 1000000001u, UINT64_MAX);
        v = (uint64_t)((((u128)1000000000u << 64) - 500000000u) / clock) + rnic_prng_below(&p, 5) - 2u;
        CHECK_EQ(rnic_ns_to_cycles(v, clock), ref_round_div_sat((u128)v * clock, 1000000000u));
        clock = rnic_prng_range(&p, 2, 999999999u);
        v = (uint64_t)((((u128)clock << 64) - clock / 2u) / 1000000000u) + rnic_prng_below(&p, 5) - 2u;
        CHECK_EQ(rnic_cycles_to_ns(v, clock), ref_round_div_sat((u128)v * 1000000000u, clock));
    }
    /* the round trip in the documented domain is exact for whole microseconds */
    for (n = 0; n < (long)N_CLOCKS; n++) {
        uint64_t us = 1000000u; /* one second */
        CHECK_EQ(rnic_cycles_to_ns(rnic_ns_to_cycles(us * 1000u, k_clocks[n]), k_clocks[n]), us * 1000u);
    }
}

/* ---- ceil, before, diff ---- */

static void test_ftime_ceil(void)
{
    rnic_prng p;
    long n;
    rnic_ftime t;
    t = rnic_ftime_at(5);
    CHECK_EQ(t.frac, 0);
    CHECK_EQ(rnic_ftime_ceil(t), 5);
    t.frac = 1;
    CHECK_EQ(rnic_ftime_ceil(t), 6);
    t.frac = UINT32_MAX;
    CHECK_EQ(rnic_ftime_ceil(t), 6);
    t.cycle = UINT64_MAX;
    t.frac = 1;
    CHECK_EQ(rnic_ftime_ceil(t), 0); /* wraps */
    t.frac = 0;
    CHECK_EQ(rnic_ftime_ceil(t), UINT64_MAX);
    rnic_prng_seed(&p, g_seed ^ 0xce11);
    for (n = 0; n < 1000000 && TEST_FAILS() == 0; n++) {
        t = rand_ftime(&p);
        CHECK_EQ(rnic_ftime_ceil(t), (uint64_t)((ft_raw(t) + 0xffffffffu) >> 32));
    }
}

/* Reference order: b - a modulo 2^96 (in 2^-32 cycles) is in (0, 2^95); exactly 2^95 apart
 * (2^63 cycles) the two times are unordered, as for sequence numbers. */
static void check_before(rnic_ftime a, rnic_ftime b)
{
    u128 d = MOD96(ft_raw(b) - ft_raw(a)), half = (u128)1 << 95;
    int want_ab = d != 0 && d < half, want_ba = d > half;
    CHECK(rnic_ftime_before(a, b) == (want_ab != 0));
    CHECK(rnic_ftime_before(b, a) == (want_ba != 0));
}

static void test_ftime_before(void)
{
    rnic_prng p;
    long n;
    rnic_ftime a, b;
    a = rnic_ftime_at(10);
    b = rnic_ftime_at(10);
    CHECK(!rnic_ftime_before(a, b));
    b.frac = 1;
    CHECK(rnic_ftime_before(a, b));
    CHECK(!rnic_ftime_before(b, a));
    /* across the 2^64 wrap */
    a.cycle = UINT64_MAX;
    a.frac = 0x80000000u;
    b.cycle = 0;
    b.frac = 0x40000000u;
    CHECK(rnic_ftime_before(a, b));
    CHECK(!rnic_ftime_before(b, a));
    b.cycle = UINT64_MAX;
    CHECK(rnic_ftime_before(b, a));
    /* 2^63 - 1/2 cycles apart, the cycle fields 2^63 apart: still ordered */
    a.cycle = 0;
    a.frac = 0x80000000u;
    b.cycle = TWO63;
    b.frac = 0;
    check_before(a, b);
    CHECK(rnic_ftime_before(a, b));
    a.cycle = 7u + TWO63;
    b.cycle = 7u; /* the same across the wrap */
    CHECK(rnic_ftime_before(a, b));
    CHECK(!rnic_ftime_before(b, a));
    /* exactly 2^63 cycles apart: unordered, both false */
    a.frac = b.frac = 99;
    CHECK(!rnic_ftime_before(a, b));
    CHECK(!rnic_ftime_before(b, a));
    rnic_prng_seed(&p, g_seed ^ 0xbef);
    for (n = 0; n < 2000000 && TEST_FAILS() == 0; n++) {
        u128 d;
        a = rand_ftime(&p);
        switch (n & 3) {
        case 0: d = U128(rnic_prng_next(&p), rnic_prng_next(&p)); break;
        case 1: d = (u128)rnic_prng_range(&p, 0, (uint64_t)1 << 36) - ((u128)1 << 35); break;
        case 2: d = ((u128)1 << 95) + rnic_prng_range(&p, 0, (uint64_t)1 << 36) - ((u128)1 << 35); break;
        default: d = (u128)rand_edge(&p) << rnic_prng_below(&p, 33); break;
        }
        b = ft_of_raw(ft_raw(a) + d);
        check_before(a, b);
    }
}

static void check_diff(rnic_ftime b, rnic_ftime a)
{
    u128 d = MOD96(ft_raw(b) - ft_raw(a));
    uint64_t got = SENTINEL;
    rnic_err e = rnic_ftime_diff(b, a, &got);
    if (HI64(d) == 0) { /* 0 <= b - a < 2^32 cycles */
        CHECK_EQ(e, RNIC_OK);
        CHECK_EQ(got, LO64(d));
    } else {
        CHECK_EQ(e, RNIC_ERANGE);
        CHECK_EQ(got, SENTINEL);
    }
}

static void test_ftime_diff(void)
{
    rnic_prng p;
    long n;
    rnic_ftime a, b;
    uint64_t out = SENTINEL;
    a = rnic_ftime_at(100);
    a.frac = 0xc0000000u; /* 100.75 */
    b = rnic_ftime_at(102);
    b.frac = 0x40000000u; /* 102.25 */
    CHECK_EQ(rnic_ftime_diff(b, a, &out), RNIC_OK);
    CHECK_EQ(out, 3u * TWO32 / 2u); /* 1.5 cycles, with the borrow */
    out = SENTINEL;
    CHECK_EQ(rnic_ftime_diff(a, b, &out), RNIC_ERANGE); /* negative */
    CHECK_EQ(out, SENTINEL);
    CHECK_EQ(rnic_ftime_diff(a, a, &out), RNIC_OK);
    CHECK_EQ(out, 0);
    /* across the wrap */
    a.cycle = UINT64_MAX;
    b.cycle = 1;
    CHECK_EQ(rnic_ftime_diff(b, a, &out), RNIC_OK);
    CHECK_EQ(out, 3u * TWO32 / 2u);
    /* the largest difference: 2^32 - 2^-32 cycles; then 2^32 is out of range */
    a = rnic_ftime_at(5);
    b = ft_of_raw(ft_raw(a) + UINT64_MAX);
    CHECK_EQ(rnic_ftime_diff(b, a, &out), RNIC_OK);
    CHECK_EQ(out, UINT64_MAX);
    b = rnic_ftime_at(5u + TWO32);
    out = SENTINEL;
    CHECK_EQ(rnic_ftime_diff(b, a, &out), RNIC_ERANGE);
    CHECK_EQ(out, SENTINEL);
    rnic_prng_seed(&p, g_seed ^ 0xd1ff);
    for (n = 0; n < 2000000 && TEST_FAILS() == 0; n++) {
        u128 d;
        a = rand_ftime(&p);
        switch (n & 3) {
        case 0: d = U128(rnic_prng_next(&p), rnic_prng_next(&p)); break;
        case 1: d = rand_edge(&p); break; /* within range (and its edges) */
        case 2: d = ((u128)1 << 64) + rnic_prng_range(&p, 0, 64) - 32u; break; /* 2^32 cycles */
        default: d = (u128)0 - rnic_prng_range(&p, 1, (uint64_t)1 << 40); break; /* negative */
        }
        b = ft_of_raw(ft_raw(a) + d);
        check_diff(b, a);
    }
}

int main(void)
{
    g_seed = test_seed(20240613);
    RUN(test_mul64x64);
    RUN(test_udiv128_64);
    RUN(test_udiv64);
    RUN(test_q32_ratio);
    RUN(test_rate_round_values);
    RUN(test_rate_random_domain);
    RUN(test_rate_random_any);
    RUN(test_rate_errors);
    RUN(test_ftime_add_bytes_exact);
    RUN(test_ftime_add_bytes_overflow_and_wrap);
    RUN(test_ftime_add_q32);
    RUN(test_ftime_sub_q32);
    RUN(test_drift_paced_stream);
    RUN(test_drift_constant_rate_does_not_grow);
    RUN(test_whole_cycle_departures);
    RUN(test_q32_mul);
    RUN(test_ns_cycles);
    RUN(test_ftime_ceil);
    RUN(test_ftime_before);
    RUN(test_ftime_diff);
    return test_summary();
}
