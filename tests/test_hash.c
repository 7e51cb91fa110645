/* rnic_hash64 (src/common/hash.h) is XXH64: published test vectors, agreement with a
 * transcription of the XXH64 specification written here (every length 0..300 and a few
 * long ones, at every alignment, several seeds), determinism, seed and input sensitivity.
 * The header's built-in XXH64 (rnic__xxh64, used when <xxhash.h> is absent or
 * RNIC_NO_XXHASH is defined) equals Debian libxxhash's XXH64 -- the separately compiled
 * library, linked with -lxxhash -- on xxhsum's sanity vectors and on random inputs.
 * tests/run.sh also builds this file with -DRNIC_NO_XXHASH, so every check on rnic_hash64
 * runs on the built-in too. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

/* The real library function, not the inlined copy the header may have compiled in (which
 * XXH_INLINE_ALL renamed through an XXH64 macro). */
#undef XXH64
unsigned long long XXH64(const void *data, size_t len, unsigned long long seed);

static uint64_t g_seed;

/* ---------------------------------------------------------------- XXH64 from the spec */

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t rd64(const unsigned char *p) /* little-endian, byte by byte */
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t rd32(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t round64(uint64_t acc, uint64_t lane)
{
    acc += lane * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}

static uint64_t merge64(uint64_t acc, uint64_t v)
{
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

static uint64_t ref_xxh64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        while (end - p >= 32) {
            v1 = round64(v1, rd64(p));
            v2 = round64(v2, rd64(p + 8));
            v3 = round64(v3, rd64(p + 16));
            v4 = round64(v4, rd64(p + 24));
            p += 32;
        }
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)len;
    while (end - p >= 8) {
        h ^= round64(0, rd64(p));
        h = rotl(h, 27) * P1 + P4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= rd32(p) * P1;
        h = rotl(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= *p * P5;
        h = rotl(h, 11) * P1;
        p++;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

/* ---------------------------------------------------------------- test cases */

static uint64_t hs(const char *s, uint64_t seed) { return rnic_hash64(s, strlen(s), seed); }

static void test_published_vectors(void)
{
    CHECK_EQ(rnic_hash64("", 0, 0), 0xEF46DB3751D8E999ull);
    CHECK_EQ(rnic_hash64(NULL, 0, 0), 0xEF46DB3751D8E999ull); /* XXH64 accepts NULL for len 0 */
    CHECK_EQ(hs("a", 0), 0xD24EC4F1A98C6E5Bull);
    CHECK_EQ(hs("abc", 0), 0x44BC2CF5AD770999ull);
    /* python-xxhash README: a 6-byte input, with and without a seed */
    CHECK_EQ(hs("xxhash", 0), 0x32DD38952C4BC720ull);
    CHECK_EQ(hs("xxhash", 20141025), 0xB559B98D844E0635ull);
    /* 39 bytes: the 32-byte stripe loop runs */
    CHECK_EQ(hs("Nobody inspects the spammish repetition", 0), 0xFBCEA83C8A378BF1ull);
    /* and the transcription of the spec agrees with all of them */
    CHECK_EQ(ref_xxh64("", 0, 0), 0xEF46DB3751D8E999ull);
    CHECK_EQ(ref_xxh64("a", 1, 0), 0xD24EC4F1A98C6E5Bull);
    CHECK_EQ(ref_xxh64("abc", 3, 0), 0x44BC2CF5AD770999ull);
    CHECK_EQ(ref_xxh64("xxhash", 6, 0), 0x32DD38952C4BC720ull);
    CHECK_EQ(ref_xxh64("xxhash", 6, 20141025), 0xB559B98D844E0635ull);
    CHECK_EQ(ref_xxh64("Nobody inspects the spammish repetition", 39, 0), 0xFBCEA83C8A378BF1ull);
}

static void test_matches_spec_transcription(void)
{
    static unsigned char buf[8192 + 8];
    const uint64_t seeds[] = { 0, 1, 20141025, UINT64_MAX, P1, g_seed };
    const size_t long_lens[] = { 511, 512, 513, 1000, 4096, 8191, 8192 };
    rnic_prng p;
    size_t i, len, off, k;
    rnic_prng_seed(&p, g_seed);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rnic_prng_next(&p);
    for (k = 0; k < sizeof seeds / sizeof seeds[0]; k++)
        for (len = 0; len <= 300 && TEST_FAILS() == 0; len++)
            for (off = 0; off < 8; off++) /* every alignment of the input */
                CHECK_EQ(rnic_hash64(buf + off, len, seeds[k]), ref_xxh64(buf + off, len, seeds[k]));
    for (k = 0; k < sizeof long_lens / sizeof long_lens[0]; k++)
        for (off = 0; off < 8; off += 3)
            CHECK_EQ(rnic_hash64(buf + off, long_lens[k], g_seed), ref_xxh64(buf + off, long_lens[k], g_seed));
    /* random lengths and seeds */
    for (i = 0; i < 2000 && TEST_FAILS() == 0; i++) {
        size_t l = (size_t)rnic_prng_below(&p, 2048), o = (size_t)rnic_prng_below(&p, 8);
        uint64_t s = rnic_prng_next(&p);
        CHECK_EQ(rnic_hash64(buf + o, l, s), ref_xxh64(buf + o, l, s));
    }
    /* all-zero and all-ones inputs */
    memset(buf, 0, 256);
    for (len = 0; len <= 256; len += 32)
        CHECK_EQ(rnic_hash64(buf, len, 0), ref_xxh64(buf, len, 0));
    memset(buf, 0xff, 256);
    for (len = 0; len <= 256; len += 32)
        CHECK_EQ(rnic_hash64(buf, len, 0), ref_xxh64(buf, len, 0));
}

/* xxhsum's sanity buffer (cli/xsum_sanity_check.c): byte i is the top byte of
 * 2654435761 * 11400714785074694797^i (mod 2^64). */
static void fill_sanity_buffer(unsigned char *buf, size_t len)
{
    uint64_t gen = 2654435761u;
    size_t i;
    for (i = 0; i < len; i++) {
        buf[i] = (unsigned char)(gen >> 56);
        gen *= 11400714785074694797ull;
    }
}

static void test_builtin_on_xxhsum_vectors(void)
{
    static const struct { size_t len; uint64_t seed, want; } v[] = {
        { 0, 0, 0xEF46DB3751D8E999ull },   { 0, 2654435761u, 0xAC75FDA2929B17EFull },
        { 1, 0, 0xE934A84ADB052768ull },   { 1, 2654435761u, 0x5014607643A9B4C3ull },
        { 4, 0, 0x9136A0DCA57457EEull },   { 14, 0, 0x8282DCC4994E35C8ull },
        { 14, 2654435761u, 0xC3BD6BF63DEB6DF0ull }, { 222, 0, 0xB641AE8CB691C174ull },
        { 222, 2654435761u, 0x20CB8AB7AE10C14Aull },
    };
    unsigned char buf[222 + 8];
    size_t i, off;
    for (off = 0; off < 8; off++) { /* at every alignment of the input */
        fill_sanity_buffer(buf + off, 222);
        for (i = 0; i < sizeof v / sizeof v[0]; i++) {
            CHECK_EQ(rnic__xxh64(v[i].len ? buf + off : NULL, v[i].len, v[i].seed), v[i].want);
            CHECK_EQ(rnic_hash64(buf + off, v[i].len, v[i].seed), v[i].want);
            CHECK_EQ((uint64_t)XXH64(buf + off, v[i].len, v[i].seed), v[i].want);
        }
    }
    /* the short published strings of test_published_vectors, on the built-in */
    CHECK_EQ(rnic__xxh64("abc", 3, 0), 0x44BC2CF5AD770999ull);
    CHECK_EQ(rnic__xxh64("xxhash", 6, 20141025), 0xB559B98D844E0635ull);
    CHECK_EQ(rnic__xxh64("Nobody inspects the spammish repetition", 39, 0), 0xFBCEA83C8A378BF1ull);
}

/* The built-in against the library over random inputs: every length 0..1000 at a random
 * alignment with a random seed, then random lengths, and a few large inputs. */
static void test_builtin_equals_libxxhash(void)
{
    enum { BIG = (1 << 20) + 77 };
    static unsigned char buf[BIG + 8];
    const size_t big_lens[] = { 4095, 4096, 65536 + 13, 1u << 20, BIG };
    rnic_prng p;
    size_t i, len;
    rnic_prng_seed(&p, g_seed ^ 0x5eed);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rnic_prng_next(&p);
    for (len = 0; len <= 1000 && TEST_FAILS() == 0; len++) {
        size_t off = (size_t)rnic_prng_below(&p, 8);
        uint64_t seed = rnic_prng_next(&p);
        CHECK_EQ(rnic__xxh64(buf + off, len, seed), (uint64_t)XXH64(buf + off, len, seed));
        CHECK_EQ(rnic__xxh64(buf + off, len, 0), (uint64_t)XXH64(buf + off, len, 0));
        CHECK_EQ(rnic_hash64(buf + off, len, seed), (uint64_t)XXH64(buf + off, len, seed));
    }
    for (i = 0; i < 3000 && TEST_FAILS() == 0; i++) {
        size_t l = (size_t)rnic_prng_below(&p, 8192), o = (size_t)rnic_prng_below(&p, 64);
        uint64_t seed = rnic_prng_next(&p);
        CHECK_EQ(rnic__xxh64(buf + o, l, seed), (uint64_t)XXH64(buf + o, l, seed));
    }
    for (i = 0; i < sizeof big_lens / sizeof big_lens[0]; i++) {
        size_t o = (size_t)rnic_prng_below(&p, 8);
        uint64_t seed = rnic_prng_next(&p);
        CHECK_EQ(rnic__xxh64(buf + o, big_lens[i], seed), (uint64_t)XXH64(buf + o, big_lens[i], seed));
    }
    /* extreme seeds */
    for (len = 0; len <= 64; len++) {
        CHECK_EQ(rnic__xxh64(buf, len, UINT64_MAX), (uint64_t)XXH64(buf, len, UINT64_MAX));
        CHECK_EQ(rnic__xxh64(buf, len, 1ull << 63), (uint64_t)XXH64(buf, len, 1ull << 63));
    }
}

/* The trace digest's lane form (rnic__xxh64_lanes4: four little-endian 8-byte lanes, no byte
 * buffer) against the library on the same 32 bytes: random lanes and seeds, and the extremes. */
static void test_lanes4_equals_libxxhash(void)
{
    const uint64_t edge[] = { 0, 1, UINT64_MAX, 1ull << 63, P1, 0x8000000000000001ull };
    rnic_prng p;
    int i, k;
    rnic_prng_seed(&p, g_seed ^ 0x1a4e5);
    for (i = 0; i < 20000 && TEST_FAILS() == 0; i++) {
        uint64_t l[4], seed = i < 36 ? edge[i % 6] : rnic_prng_next(&p);
        unsigned char buf[32];
        for (k = 0; k < 4; k++) {
            int b;
            l[k] = i < 36 ? edge[(i / 6 + k) % 6] : rnic_prng_next(&p);
            for (b = 0; b < 8; b++)
                buf[8 * k + b] = (unsigned char)(l[k] >> (8 * b));
        }
        CHECK_EQ(rnic__xxh64_lanes4(l[0], l[1], l[2], l[3], seed), (uint64_t)XXH64(buf, sizeof buf, seed));
    }
}

/* RNIC_HASH_BUILTIN says which code rnic_hash64 runs: the built-in exactly when forced with
 * RNIC_NO_XXHASH or when the compiler cannot see <xxhash.h>. */
static void test_which_implementation(void)
{
#if defined(RNIC_NO_XXHASH)
    CHECK_EQ(RNIC_HASH_BUILTIN, 1);
#elif defined(__has_include)
#if __has_include(<xxhash.h>)
    CHECK_EQ(RNIC_HASH_BUILTIN, 0);
#else
    CHECK_EQ(RNIC_HASH_BUILTIN, 1);
#endif
#else
    CHECK_EQ(RNIC_HASH_BUILTIN, 1);
#endif
    printf("rnic_hash64 runs the %s XXH64\n", RNIC_HASH_BUILTIN ? "built-in" : "system xxHash's");
}

static void test_deterministic(void)
{
    unsigned char a[200], b[200];
    size_t i;
    for (i = 0; i < sizeof a; i++)
        a[i] = b[i] = (unsigned char)(i * 37u + 11u);
    /* same bytes at different addresses, same value; repeated calls agree */
    for (i = 0; i <= sizeof a; i++) {
        uint64_t h = rnic_hash64(a, i, 42);
        CHECK_EQ(rnic_hash64(b, i, 42), h);
        CHECK_EQ(rnic_hash64(a, i, 42), h);
    }
    /* the input is not modified */
    for (i = 0; i < sizeof a; i++)
        CHECK_EQ(a[i], (unsigned char)(i * 37u + 11u));
    CHECK_EQ(hs("rnicq", 42), rnic_hash64("rnicq", 5, 42));
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* n values all different (sorted copy, adjacent pairs). */
static int all_distinct(uint64_t *v, size_t n)
{
    size_t i;
    qsort(v, n, sizeof v[0], cmp_u64);
    for (i = 1; i < n; i++)
        if (v[i] == v[i - 1])
            return 0;
    return 1;
}

static void test_seed_sensitivity(void)
{
    static uint64_t h[4096];
    const char *msg = "flow 10.0.0.1:4791 -> 10.0.0.2:4791 qp 17";
    size_t i;
    for (i = 0; i < 4096; i++)
        h[i] = hs(msg, i);
    CHECK(all_distinct(h, 4096));
    for (i = 0; i < 64; i++) /* every single-bit seed change */
        h[i] = hs(msg, g_seed ^ ((uint64_t)1 << i));
    h[64] = hs(msg, g_seed);
    CHECK(all_distinct(h, 65));
    /* empty input still depends on the seed */
    for (i = 0; i < 1000; i++)
        h[i] = rnic_hash64("", 0, i);
    CHECK(all_distinct(h, 1000));
}

static void test_input_sensitivity(void)
{
    static unsigned char buf[4096];
    static uint64_t h[4097];
    rnic_prng p;
    size_t i;
    unsigned bit, flips;
    rnic_prng_seed(&p, g_seed + 1);
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rnic_prng_next(&p);
    /* every prefix length of a long buffer gives a different value */
    for (i = 0; i <= sizeof buf; i++)
        h[i] = rnic_hash64(buf, i, 7);
    CHECK(all_distinct(h, sizeof buf + 1));
    /* also of an all-zero buffer (length is mixed in, not only content) */
    memset(buf, 0, sizeof buf);
    for (i = 0; i <= sizeof buf; i++)
        h[i] = rnic_hash64(buf, i, 7);
    CHECK(all_distinct(h, sizeof buf + 1));
    /* every single-bit change of a 64-byte input changes the value, by about 32 bits */
    for (i = 0; i < 64; i++)
        buf[i] = (unsigned char)rnic_prng_next(&p);
    h[0] = rnic_hash64(buf, 64, 0);
    flips = 0;
    for (bit = 0; bit < 512; bit++) {
        uint64_t d;
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        d = rnic_hash64(buf, 64, 0) ^ h[0];
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        CHECK(d != 0);
        while (d) {
            flips += (unsigned)(d & 1u);
            d >>= 1;
        }
    }
    /* mean 32 of 64 output bits flip; 512 trials: sd of the sum about 113 */
    CHECK(flips > 512u * 32u - 1000u && flips < 512u * 32u + 1000u);
}

int main(void)
{
    g_seed = test_seed(0x4a54);
    RUN(test_published_vectors);
    RUN(test_matches_spec_transcription);
    RUN(test_builtin_on_xxhsum_vectors);
    RUN(test_builtin_equals_libxxhash);
    RUN(test_lanes4_equals_libxxhash);
    RUN(test_which_implementation);
    RUN(test_deterministic);
    RUN(test_seed_sensitivity);
    RUN(test_input_sensitivity);
    return test_summary();
}
