/* Wrap-safe comparisons (src/common/seq.h): 64-bit cycle counters and N-bit sequence numbers
 * (PSN: 24 bits, block sequence numbers: 12 / 14 bits; also 1, 31, 32), checked against a
 * naive reference that unwraps one operand next to the other in a wide signed integer.
 *
 * Convention pinned here (RFC 1982, documented in seq.h): two values exactly half the space
 * apart are unordered -- rnic_seq_lt(a, b) and rnic_seq_lt(b, a) are both false, and so are
 * rnic_cycle_before(a, b) and (b, a) at a distance of exactly 2^63 cycles. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

__extension__ typedef __int128 i128;

static uint64_t g_seed;

#define TWO63 ((uint64_t)1 << 63)

/* ---- reference for cycles: the wrapped distance b - a as a signed 128-bit integer in
 * [-2^63, 2^63]; +-2^63 is the unordered case. ---- */
static i128 ref_cycle_delta(uint64_t a, uint64_t b)
{
    i128 d = (i128)b - (i128)a; /* in (-2^64, 2^64) */
    i128 m = (i128)1 << 64, h = (i128)1 << 63;
    if (d > h)
        d -= m;
    if (d < -h)
        d += m;
    return d;
}

static int ref_cycle_before(uint64_t a, uint64_t b)
{
    i128 d = ref_cycle_delta(a, b), h = (i128)1 << 63;
    return d > 0 && d != h;
}

/* a - b in [-2^63, 2^63): the unordered case reads -2^63 (the two's complement value). */
static i128 ref_cycle_diff(uint64_t a, uint64_t b)
{
    i128 d = -ref_cycle_delta(a, b), h = (i128)1 << 63;
    if (d == h)
        d = -h;
    return d;
}

static void check_cycle_pair(uint64_t a, uint64_t b)
{
    int lt = ref_cycle_before(a, b), gt = ref_cycle_before(b, a);
    i128 diff = ref_cycle_diff(a, b);
    CHECK(rnic_cycle_before(a, b) == (lt != 0));
    CHECK(rnic_cycle_before_eq(a, b) == (a == b || lt));
    CHECK((i128)rnic_cycle_diff(a, b) == diff);
    CHECK(rnic_cycle_max(a, b) == (lt ? b : a));
    CHECK(rnic_cycle_min(a, b) == (lt ? a : b));
    if (lt || gt) { /* ordered pairs: max/min are symmetric and cover both values */
        CHECK(rnic_cycle_max(a, b) == rnic_cycle_max(b, a));
        CHECK(rnic_cycle_min(a, b) == rnic_cycle_min(b, a));
        CHECK(rnic_cycle_max(a, b) != rnic_cycle_min(a, b));
    }
}

static void test_cycle_edges(void)
{
    static const uint64_t base[] = { 0, 1, 2, TWO63 - 2, TWO63 - 1, TWO63, TWO63 + 1, TWO63 + 2,
                                     UINT64_MAX - 1, UINT64_MAX, 0x123456789abcdefull };
    static const uint64_t off[] = { 0, 1, 2, 3, 1000, TWO63 - 2, TWO63 - 1, TWO63, TWO63 + 1,
                                    TWO63 + 2, UINT64_MAX - 1, UINT64_MAX };
    size_t i, j;
    for (i = 0; i < sizeof base / sizeof base[0]; i++)
        for (j = 0; j < sizeof off / sizeof off[0]; j++) {
            check_cycle_pair(base[i], base[i] + off[j]);
            check_cycle_pair(base[i] + off[j], base[i]);
        }
    /* across the 2^64 wrap */
    CHECK(rnic_cycle_before(UINT64_MAX, 0));
    CHECK(!rnic_cycle_before(0, UINT64_MAX));
    CHECK(rnic_cycle_before(UINT64_MAX - 5, 3));
    CHECK(rnic_cycle_diff(0, UINT64_MAX) == 1);
    CHECK(rnic_cycle_diff(UINT64_MAX, 0) == -1);
    CHECK(rnic_cycle_max(UINT64_MAX, 1) == 1);
    CHECK(rnic_cycle_min(UINT64_MAX, 1) == UINT64_MAX);
    CHECK(rnic_cycle_before_eq(7, 7));
    CHECK(!rnic_cycle_before(7, 7));
    /* just under half the space: still ordered */
    CHECK(rnic_cycle_before(0, TWO63 - 1));
    CHECK(!rnic_cycle_before(TWO63 - 1, 0));
    CHECK(rnic_cycle_diff(TWO63 - 1, 0) == INT64_MAX);
    CHECK(rnic_cycle_diff(0, TWO63 - 1) == -INT64_MAX);
    /* just over half: the order flips (the later value is reached by wrapping) */
    CHECK(!rnic_cycle_before(0, TWO63 + 1));
    CHECK(rnic_cycle_before(TWO63 + 1, 0));
}

static void test_cycle_half_space_unordered(void)
{
    static const uint64_t a[] = { 0, 1, 12345, TWO63 - 1, TWO63, UINT64_MAX };
    size_t i;
    for (i = 0; i < sizeof a / sizeof a[0]; i++) {
        uint64_t b = a[i] + TWO63;
        CHECK(!rnic_cycle_before(a[i], b));
        CHECK(!rnic_cycle_before(b, a[i]));
        CHECK(!rnic_cycle_before_eq(a[i], b));
        CHECK(rnic_cycle_diff(a[i], b) == INT64_MIN);
        CHECK(rnic_cycle_diff(b, a[i]) == INT64_MIN);
        CHECK(rnic_cycle_max(a[i], b) == a[i]); /* unordered: the first argument */
    }
}

static void test_cycle_random_vs_reference(void)
{
    rnic_prng p;
    long i;
    rnic_prng_seed(&p, g_seed ^ 0xc1c1e);
    for (i = 0; i < 2000000 && TEST_FAILS() == 0; i++) {
        uint64_t a = rnic_prng_next(&p), b;
        switch (i & 3) {
        case 0: b = rnic_prng_next(&p); break;
        case 1: b = a + rnic_prng_range(&p, 0, 64) - 32; break;              /* close */
        case 2: b = a + TWO63 + rnic_prng_range(&p, 0, 64) - 32; break;      /* near half */
        default: b = a + (rnic_prng_next(&p) >> rnic_prng_below(&p, 64)); break; /* any scale */
        }
        check_cycle_pair(a, b);
    }
    CHECK_EQ(i, 2000000);
}

/* ---- reference for N-bit sequence numbers: unwrap b into the integer nearest to a ---- */
typedef struct seq_ref {
    int64_t delta; /* b' - a, b' = the representative of b nearest to a; |delta| <= half */
    int unordered; /* |delta| == half: exactly half the space apart */
} seq_ref;

static seq_ref ref_seq(uint32_t a, uint32_t b, unsigned bits)
{
    int64_t m = (int64_t)1 << bits, half = m / 2;
    int64_t A = (int64_t)(a & (uint32_t)(m - 1)), B = (int64_t)(b & (uint32_t)(m - 1)), best = 0;
    int64_t k;
    seq_ref r;
    int first = 1;
    for (k = -1; k <= 1; k++) { /* candidates b + k * 2^bits; keep the nearest (first on a tie) */
        int64_t c = B + k * m, d = c > A ? c - A : A - c;
        if (first || d < (best > A ? best - A : A - best))
            best = c;
        first = 0;
    }
    r.delta = best - A;
    r.unordered = (r.delta == half || r.delta == -half) && bits > 0;
    return r;
}

static void check_seq_pair(uint32_t a, uint32_t b, unsigned bits)
{
    seq_ref r = ref_seq(a, b, bits);
    int64_t m = (int64_t)1 << bits, half = m / 2;
    int lt = !r.unordered && r.delta > 0;
    int64_t diff = r.unordered ? -half : -r.delta; /* a - b */
    uint32_t dist = (uint32_t)((((int64_t)(b & (uint32_t)(m - 1)) - (int64_t)(a & (uint32_t)(m - 1))) + m) % m);
    int ok = rnic_seq_lt(a, b, bits) == (lt != 0) && rnic_seq_le(a, b, bits) == (r.delta == 0 || lt) &&
             (int64_t)rnic_seq_diff(a, b, bits) == diff && rnic_seq_dist(a, b, bits) == dist;
    if (!ok && TEST_FAILS() < 8)
        printf("  bits %u a %#" PRIx32 " b %#" PRIx32 ": lt %d le %d diff %" PRId32 " dist %" PRIu32
               " (expected lt %d diff %" PRId64 " dist %" PRIu32 ")\n",
               bits, a, b, (int)rnic_seq_lt(a, b, bits), (int)rnic_seq_le(a, b, bits),
               rnic_seq_diff(a, b, bits), rnic_seq_dist(a, b, bits), lt, diff, dist);
    CHECK(ok);
}

static const unsigned k_bits[] = { 1, 12, 14, 24, 31, 32 };

static void test_seq_wrap_point(void)
{
    size_t i;
    for (i = 0; i < sizeof k_bits / sizeof k_bits[0]; i++) {
        unsigned bits = k_bits[i];
        uint32_t mask = rnic_seq_mask(bits);
        CHECK_EQ(mask, bits == 32 ? UINT32_MAX : ((uint32_t)1 << bits) - 1u);
        CHECK_EQ(rnic_seq_add(mask, 1, bits), 0);          /* e.g. 0xFFFFFF -> 0 */
        CHECK_EQ(rnic_seq_add(mask, 3, bits), 2 & mask);
        CHECK_EQ(rnic_seq_dist(mask, 0, bits), 1);
        CHECK_EQ(rnic_seq_dist(0, mask, bits), mask);
        CHECK(rnic_seq_diff(mask, 0, bits) == -1);
        if (bits >= 2) {
            CHECK(rnic_seq_diff(0, mask, bits) == 1); /* with 1 bit the two values are always half the space apart */
            CHECK(rnic_seq_lt(mask, 0, bits));
            CHECK(!rnic_seq_lt(0, mask, bits));
            CHECK(rnic_seq_le(mask, 0, bits));
            CHECK(rnic_seq_lt(mask - 1u, 0, bits) == (bits >= 3)); /* distance 2: half is 2 at 2 bits */
            CHECK(rnic_seq_in_window(0, mask, 2, bits));
            CHECK(rnic_seq_in_window(mask, mask, 2, bits));
            CHECK(!rnic_seq_in_window(1, mask, 2, bits));
        } else {
            CHECK(!rnic_seq_lt(1, 0, 1));
            CHECK(!rnic_seq_lt(0, 1, 1));
            CHECK(rnic_seq_diff(0, 1, 1) == -1); /* unordered: reads -half */
        }
        check_seq_pair(mask, 0, bits);
        check_seq_pair(0, mask, bits);
        check_seq_pair(mask, mask, bits);
    }
    /* the PSN case spelled out */
    CHECK(rnic_seq_lt(0xFFFFFF, 0, 24));
    CHECK(rnic_seq_lt(0xFFFFF0, 0x00000F, 24));
    CHECK(rnic_seq_diff(0x000005, 0xFFFFFB, 24) == 10);
    CHECK_EQ(rnic_seq_add(0xFFFFFE, 5, 24), 3);
}

static void test_seq_half_space_unordered(void)
{
    size_t i;
    for (i = 0; i < sizeof k_bits / sizeof k_bits[0]; i++) {
        unsigned bits = k_bits[i];
        uint32_t mask = rnic_seq_mask(bits), half = (uint32_t)1 << (bits - 1u);
        int32_t neg_half = bits == 32 ? INT32_MIN : -(int32_t)half;
        uint32_t a[4];
        size_t j;
        a[0] = 0;
        a[1] = 1 & mask;
        a[2] = mask;
        a[3] = 0x5a5a5a5au & mask;
        for (j = 0; j < 4; j++) {
            uint32_t b = rnic_seq_add(a[j], half, bits);
            CHECK(!rnic_seq_lt(a[j], b, bits));
            CHECK(!rnic_seq_lt(b, a[j], bits));
            CHECK(!rnic_seq_le(a[j], b, bits));
            CHECK(!rnic_seq_le(b, a[j], bits));
            CHECK(rnic_seq_diff(a[j], b, bits) == neg_half);
            CHECK(rnic_seq_diff(b, a[j], bits) == neg_half);
            CHECK_EQ(rnic_seq_dist(a[j], b, bits), half);
            if (bits >= 2) { /* one step inside half: ordered */
                uint32_t c = rnic_seq_add(a[j], half - 1u, bits);
                CHECK(rnic_seq_lt(a[j], c, bits));
                CHECK(!rnic_seq_lt(c, a[j], bits));
                CHECK(rnic_seq_diff(c, a[j], bits) == (int32_t)(half - 1u));
            }
        }
    }
}

/* Every pair for bits 1..12 (4096 x 4096 at 12 bits). */
static void test_seq_exhaustive_up_to_12_bits(void)
{
    unsigned bits;
    uint64_t pairs = 0;
    for (bits = 1; bits <= 12 && TEST_FAILS() == 0; bits++) {
        uint32_t m = (uint32_t)1 << bits, a, b;
        for (a = 0; a < m && TEST_FAILS() == 0; a++)
            for (b = 0; b < m; b++) {
                check_seq_pair(a, b, bits);
                pairs++;
            }
    }
    CHECK_EQ(pairs, 22369620u); /* sum of 4^k, k = 1..12 */
}

static void test_seq_random_wide(void)
{
    static const unsigned bits_list[] = { 13, 14, 16, 20, 24, 28, 31, 32 };
    rnic_prng p;
    size_t i;
    long n;
    rnic_prng_seed(&p, g_seed ^ 0x5e9);
    for (i = 0; i < sizeof bits_list / sizeof bits_list[0]; i++) {
        unsigned bits = bits_list[i];
        uint32_t mask = rnic_seq_mask(bits), half = (uint32_t)1 << (bits - 1u);
        for (n = 0; n < 400000 && TEST_FAILS() == 0; n++) {
            uint32_t a = (uint32_t)rnic_prng_next(&p) & mask, b;
            uint32_t jitter = (uint32_t)rnic_prng_range(&p, 0, 8);
            switch (n & 3) {
            case 0: b = (uint32_t)rnic_prng_next(&p) & mask; break;
            case 1: b = rnic_seq_add(a, jitter - 4u, bits); break;        /* close */
            case 2: b = rnic_seq_add(a, half + jitter - 4u, bits); break; /* near half */
            default: a = rnic_seq_add(mask, jitter - 4u, bits);           /* at the wrap */
                b = (uint32_t)rnic_prng_range(&p, 0, 8) & mask;
                break;
            }
            check_seq_pair(a, b, bits);
            check_seq_pair(b, a, bits);
        }
    }
}

/* Only the low `bits` bits matter (everything is computed modulo 2^bits). */
static void test_seq_high_bits_ignored(void)
{
    rnic_prng p;
    long n;
    unsigned bits;
    rnic_prng_seed(&p, g_seed ^ 0x419);
    for (bits = 1; bits < 32; bits++) {
        uint32_t mask = rnic_seq_mask(bits);
        for (n = 0; n < 2000; n++) {
            uint32_t a = (uint32_t)rnic_prng_next(&p), b = (uint32_t)rnic_prng_next(&p);
            uint32_t w = (uint32_t)rnic_prng_next(&p);
            CHECK(rnic_seq_lt(a, b, bits) == rnic_seq_lt(a & mask, b & mask, bits));
            CHECK(rnic_seq_le(a, b, bits) == rnic_seq_le(a & mask, b & mask, bits));
            CHECK(rnic_seq_diff(a, b, bits) == rnic_seq_diff(a & mask, b & mask, bits));
            CHECK_EQ(rnic_seq_dist(a, b, bits), rnic_seq_dist(a & mask, b & mask, bits));
            CHECK_EQ(rnic_seq_add(a, b, bits), (uint32_t)((uint64_t)(a & mask) + (b & mask)) & mask);
            CHECK(rnic_seq_in_window(a, b, w & mask, bits) == rnic_seq_in_window(a & mask, b & mask, w & mask, bits));
            check_seq_pair(a, b, bits);
        }
    }
}

/* The window [lo, lo + size) enumerated element by element, for every x, lo and size. */
static void test_seq_in_window_exhaustive_small(void)
{
    static unsigned char member[256];
    unsigned bits;
    for (bits = 1; bits <= 8 && TEST_FAILS() == 0; bits++) {
        uint32_t m = (uint32_t)1 << bits, lo, size, k, x;
        for (lo = 0; lo < m; lo++)
            for (size = 0; size <= m; size++) {
                memset(member, 0, sizeof member);
                for (k = 0; k < size; k++)
                    member[(lo + k) % m] = 1;
                for (x = 0; x < m; x++)
                    if (rnic_seq_in_window(x, lo, size, bits) != (member[x] != 0)) {
                        printf("  in_window: bits %u x %u lo %u size %u\n", bits, (unsigned)x, (unsigned)lo, (unsigned)size);
                        CHECK(rnic_seq_in_window(x, lo, size, bits) == (member[x] != 0));
                    }
            }
    }
}

static void test_seq_in_window_wide(void)
{
    static const unsigned bits_list[] = { 12, 14, 24, 31, 32 };
    rnic_prng p;
    size_t i;
    long n;
    rnic_prng_seed(&p, g_seed ^ 0x3d);
    for (i = 0; i < sizeof bits_list / sizeof bits_list[0]; i++) {
        unsigned bits = bits_list[i];
        uint32_t mask = rnic_seq_mask(bits);
        int64_t m = (int64_t)1 << bits;
        /* a 24-bit PSN window straddling the wrap */
        if (bits == 24) {
            CHECK(rnic_seq_in_window(0xFFFFFE, 0xFFFFFE, 4, 24));
            CHECK(rnic_seq_in_window(0x000001, 0xFFFFFE, 4, 24));
            CHECK(!rnic_seq_in_window(0x000002, 0xFFFFFE, 4, 24));
            CHECK(!rnic_seq_in_window(0xFFFFFD, 0xFFFFFE, 4, 24));
            CHECK(!rnic_seq_in_window(0xFFFFFE, 0xFFFFFE, 0, 24));
        }
        for (n = 0; n < 300000 && TEST_FAILS() == 0; n++) {
            uint32_t lo = (uint32_t)rnic_prng_next(&p) & mask;
            uint32_t size = (uint32_t)rnic_prng_log_range(&p, 1, mask);
            int64_t off = (int64_t)rnic_prng_range(&p, 0, 16) - 8, X, L;
            uint32_t x;
            int in;
            switch (n % 3) {
            case 0: x = (uint32_t)rnic_prng_next(&p) & mask; break;
            case 1: x = (uint32_t)((int64_t)lo + off) & mask; break;        /* near lo */
            default: x = (uint32_t)((int64_t)lo + size + off) & mask; break; /* near lo + size */
            }
            /* unwrap: the window is [L, L + size) on the integers, x may sit one period up */
            L = (int64_t)lo;
            X = (int64_t)x < L ? (int64_t)x + m : (int64_t)x;
            in = X - L < (int64_t)size;
            CHECK(rnic_seq_in_window(x, lo, size, bits) == (in != 0));
        }
    }
}

int main(void)
{
    g_seed = test_seed(20240613);
    RUN(test_cycle_edges);
    RUN(test_cycle_half_space_unordered);
    RUN(test_cycle_random_vs_reference);
    RUN(test_seq_wrap_point);
    RUN(test_seq_half_space_unordered);
    RUN(test_seq_exhaustive_up_to_12_bits);
    RUN(test_seq_random_wide);
    RUN(test_seq_high_bits_ignored);
    RUN(test_seq_in_window_exhaustive_small);
    RUN(test_seq_in_window_wide);
    return test_summary();
}
