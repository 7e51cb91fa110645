/* Ring bitmaps (src/common/bitmap.h) against a naive per-bit reference: a plain
 * `unsigned char bits[]` array and loops, on millions of random cases. Every mutation is
 * followed by a full comparison of the packed words (including the bits >= nbits of the
 * last word, which must stay zero, and guard words on both sides of the storage). */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

#define MAXBITS 320u
#define MAXWORDS RNIC_BITMAP_WORDS(MAXBITS)
#define GUARD 0xa5a5a5a5a5a5a5a5ull

/* Storage with a guard word before and after the words in use. */
typedef struct bm {
    uint32_t n;
    uint64_t buf[MAXWORDS + 2];
    uint64_t *w;
    unsigned char ref[MAXBITS];
} bm;

static uint64_t cases; /* property cases checked, for the report */

static void bm_init(bm *b, uint32_t n)
{
    uint32_t i;
    b->n = n;
    for (i = 0; i < MAXWORDS + 2; i++)
        b->buf[i] = GUARD;
    b->w = b->buf + 1;
    for (i = RNIC_BITMAP_WORDS(n); i < MAXWORDS + 1; i++)
        b->w[i] = GUARD; /* words past the bitmap must never be touched */
    rnic_bitmap_zero(b->w, n);
    memset(b->ref, 0, sizeof b->ref);
}

/* Random contents with one of several densities (empty, sparse, half, dense, full). */
static void bm_fill(bm *b, rnic_prng *p)
{
    static const uint32_t dens[] = { 0, 1, 4, 32, 128, 224, 252, 255, 256 }; /* of 256 */
    uint32_t d = dens[rnic_prng_below(p, sizeof dens / sizeof dens[0])], i;
    for (i = 0; i < b->n; i++) {
        unsigned char v = (unsigned char)(rnic_prng_below(p, 256) < d);
        b->ref[i] = v;
        if (v)
            rnic_bitmap_set(b->w, i);
        else
            rnic_bitmap_clear(b->w, i);
    }
    if (d == 0 && b->n > 1 && rnic_prng_chance(p, 1, 2)) { /* exactly one bit set */
        i = (uint32_t)rnic_prng_below(p, b->n);
        b->ref[i] = 1;
        rnic_bitmap_set(b->w, i);
    } else if (d == 256 && b->n > 1 && rnic_prng_chance(p, 1, 2)) { /* exactly one bit clear */
        i = (uint32_t)rnic_prng_below(p, b->n);
        b->ref[i] = 0;
        rnic_bitmap_clear(b->w, i);
    }
}

/* The packed words the reference stands for, compared word by word (tail bits zero). */
static int bm_same(const bm *b)
{
    uint32_t nw = RNIC_BITMAP_WORDS(b->n), i, k;
    int ok = 1;
    if (b->buf[0] != GUARD)
        ok = 0;
    for (i = nw; i < MAXWORDS + 1; i++)
        if (b->w[i] != GUARD)
            ok = 0;
    for (i = 0; i < nw; i++) {
        uint64_t want = 0;
        for (k = 0; k < 64 && i * 64 + k < b->n; k++)
            want |= (uint64_t)b->ref[i * 64 + k] << k;
        if (b->w[i] != want)
            ok = 0;
    }
    return ok;
}

static uint32_t ref_ffs_from(const bm *b, uint32_t head, unsigned char want)
{
    uint32_t k;
    for (k = 0; k < b->n; k++) {
        uint32_t i = (head + k) % b->n;
        if (b->ref[i] == want)
            return i;
    }
    return RNIC_NONE;
}

static uint32_t ref_count_range(const bm *b, uint32_t start, uint32_t count)
{
    uint32_t k, sum = 0;
    for (k = 0; k < count; k++)
        sum += b->ref[(start + k) % b->n];
    return sum;
}

static void ref_assign_range(bm *b, uint32_t start, uint32_t count, unsigned char v)
{
    uint32_t k;
    for (k = 0; k < count; k++)
        b->ref[(start + k) % b->n] = v;
}

/* Sizes: every size 1..300 is drawn, with extra weight on the word boundaries. */
static uint32_t pick_size(rnic_prng *p)
{
    static const uint32_t edge[] = { 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 300 };
    if (rnic_prng_chance(p, 1, 3))
        return edge[rnic_prng_below(p, sizeof edge / sizeof edge[0])];
    return (uint32_t)rnic_prng_range(p, 1, 300);
}

static unsigned naive_ctz(uint64_t x)
{
    unsigned i = 0;
    while (!((x >> i) & 1u))
        i++;
    return i;
}

static unsigned naive_popcount(uint64_t x)
{
    unsigned i, c = 0;
    for (i = 0; i < 64; i++)
        c += (unsigned)((x >> i) & 1u);
    return c;
}

/* A random word with a random density: 1 to 64 random bits ANDed/ORed together. */
static uint64_t random_word(rnic_prng *p)
{
    uint64_t x = rnic_prng_next(p);
    switch (rnic_prng_below(p, 6)) {
    case 0:
        return x & rnic_prng_next(p) & rnic_prng_next(p) & rnic_prng_next(p); /* sparse */
    case 1:
        return x | rnic_prng_next(p) | rnic_prng_next(p); /* dense */
    case 2:
        return (uint64_t)1 << rnic_prng_below(p, 64); /* one bit */
    case 3:
        return x << rnic_prng_below(p, 64); /* low zeros */
    case 4:
        return ~(uint64_t)0 << rnic_prng_below(p, 64);
    default:
        return x;
    }
}

static void test_ctz_popcount(void)
{
    rnic_prng p;
    uint32_t i;
    rnic_prng_seed(&p, test_seed(1));
    for (i = 0; i < 64; i++) {
        CHECK_EQ(rnic_ctz64((uint64_t)1 << i), i);
        CHECK_EQ(rnic_ctz64(~(uint64_t)0 << i), i);
        CHECK_EQ(rnic_popcount64((uint64_t)1 << i), 1);
        CHECK_EQ(rnic_popcount64(~(uint64_t)0 << i), 64 - i);
        CHECK_EQ(rnic_popcount64(((uint64_t)1 << i) - 1u), i);
    }
    CHECK_EQ(rnic_popcount64(0), 0);
    CHECK_EQ(rnic_popcount64(~(uint64_t)0), 64);
    CHECK_EQ(rnic_ctz64(~(uint64_t)0), 0);
    CHECK_EQ(rnic_ctz64((uint64_t)1 << 63), 63);
    for (i = 0; i < (1u << 20) && TEST_FAILS() == 0; i++) {
        uint64_t x = random_word(&p);
        CHECK_EQ(rnic_popcount64(x), naive_popcount(x));
        if (x)
            CHECK_EQ(rnic_ctz64(x), naive_ctz(x));
        cases++;
    }
}

/* bits_between(lo, hi) for every 0 <= lo <= hi <= 64. */
static void test_bits_between(void)
{
    unsigned lo, hi, k;
    for (lo = 0; lo <= 64; lo++)
        for (hi = lo; hi <= 64; hi++) {
            uint64_t want = 0;
            for (k = lo; k < hi; k++)
                want |= (uint64_t)1 << k;
            CHECK_EQ(rnic__bits_between(lo, hi), want);
        }
}

/* Tonic (NSDI'21) App. C: a 32-bit ring with bits 5 and 30 set; from head 6 the first set
 * bit is 30, and from head 31 it wraps to 5. */
static void test_tonic_example(void)
{
    uint64_t w[1] = { 0 };
    uint32_t h;
    rnic_bitmap_set(w, 5);
    rnic_bitmap_set(w, 30);
    CHECK_EQ(w[0], ((uint64_t)1 << 5) | ((uint64_t)1 << 30));
    CHECK_EQ(rnic_bitmap_ffs_from(w, 32, 6), 30);
    CHECK_EQ(rnic_bitmap_ffs_from(w, 32, 31), 5);
    CHECK_EQ(rnic_bitmap_ffs_from(w, 32, 5), 5);
    CHECK_EQ(rnic_bitmap_ffs_from(w, 32, 0), 5);
    CHECK_EQ(rnic_bitmap_ffs_from(w, 32, 30), 30);
    for (h = 0; h < 32; h++)
        CHECK_EQ(rnic_bitmap_ffs_from(w, 32, h), h <= 5 || h > 30 ? 5u : 30u);
    CHECK_EQ(rnic_bitmap_count(w, 32), 2);
    CHECK_EQ(rnic_bitmap_count_range(w, 32, 6, 32), 2);
    CHECK_EQ(rnic_bitmap_count_range(w, 32, 6, 24), 0);
    CHECK_EQ(rnic_bitmap_count_range(w, 32, 6, 25), 1);
    CHECK_EQ(rnic_bitmap_count_range(w, 32, 31, 7), 1);
    CHECK_EQ(rnic_bitmap_ffz_from(w, 32, 5), 6);
    CHECK_EQ(rnic_bitmap_ffz_from(w, 32, 30), 31);
    rnic_bitmap_clear(w, 5);
    rnic_bitmap_clear(w, 30);
    CHECK_EQ(rnic_bitmap_ffs_from(w, 32, 6), RNIC_NONE);
    rnic_bitmap_set_range(w, 32, 0, 32);
    CHECK_EQ(w[0], 0xffffffffull); /* bits 32..63 of the word stay zero */
    CHECK_EQ(rnic_bitmap_ffz_from(w, 32, 7), RNIC_NONE);
}

/* Empty and full rings of every size: ffs/ffz from every head, count, and the tail bits. */
static void test_empty_full_every_size(void)
{
    bm b;
    uint32_t n, h;
    for (n = 1; n <= 300 && TEST_FAILS() == 0; n++) {
        bm_init(&b, n);
        CHECK(bm_same(&b));
        CHECK_EQ(rnic_bitmap_count(b.w, n), 0);
        for (h = 0; h < n; h++) {
            CHECK_EQ(rnic_bitmap_ffs_from(b.w, n, h), RNIC_NONE);
            CHECK_EQ(rnic_bitmap_ffz_from(b.w, n, h), h);
        }
        rnic_bitmap_set_range(b.w, n, (uint32_t)(n / 3u), n); /* wraps */
        memset(b.ref, 1, n);
        CHECK(bm_same(&b));
        CHECK_EQ(rnic_bitmap_count(b.w, n), n);
        for (h = 0; h < n; h++) {
            CHECK_EQ(rnic_bitmap_ffs_from(b.w, n, h), h);
            CHECK_EQ(rnic_bitmap_ffz_from(b.w, n, h), RNIC_NONE);
            CHECK_EQ(rnic_bitmap_count_range(b.w, n, h, n), n);
            CHECK_EQ(rnic_bitmap_count_range(b.w, n, h, 0), 0);
        }
        rnic_bitmap_clear_range(b.w, n, n - 1u, n);
        memset(b.ref, 0, n);
        CHECK(bm_same(&b));
        cases += 4u * n;
    }
}

/* Random contents of every density, ffs_from / ffz_from / count_range from EVERY head. */
static void test_find_every_head(void)
{
    rnic_prng p;
    bm b;
    uint32_t c, h;
    rnic_prng_seed(&p, test_seed(2));
    for (c = 0; c < 12000 && TEST_FAILS() == 0; c++) {
        uint32_t n = pick_size(&p);
        bm_init(&b, n);
        bm_fill(&b, &p);
        CHECK(bm_same(&b));
        for (h = 0; h < n; h++) {
            uint32_t cnt = (uint32_t)rnic_prng_range(&p, 0, n);
            CHECK_EQ(rnic_bitmap_ffs_from(b.w, n, h), ref_ffs_from(&b, h, 1));
            CHECK_EQ(rnic_bitmap_ffz_from(b.w, n, h), ref_ffs_from(&b, h, 0));
            CHECK_EQ(rnic_bitmap_test(b.w, h), b.ref[h]);
            CHECK_EQ(rnic_bitmap_count_range(b.w, n, h, cnt), ref_count_range(&b, h, cnt));
        }
        CHECK_EQ(rnic_bitmap_count(b.w, n), ref_count_range(&b, 0, n));
        cases += n;
    }
}

/* Every (start, count) of set/clear/assign range and count_range on small and boundary
 * sizes, over random contents. */
static void test_ranges_exhaustive(void)
{
    static const uint32_t sizes[] = { 1, 2, 3, 5, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128, 129, 257 };
    rnic_prng p;
    bm b, tmpl;
    uint32_t si, s, cnt;
    rnic_prng_seed(&p, test_seed(3));
    for (si = 0; si < sizeof sizes / sizeof sizes[0] && TEST_FAILS() == 0; si++) {
        uint32_t n = sizes[si];
        for (s = 0; s < n; s++) {
            bm_init(&tmpl, n);
            bm_fill(&tmpl, &p);
            for (cnt = 0; cnt <= n; cnt++) {
                unsigned op = (unsigned)rnic_prng_below(&p, 3);
                b = tmpl;
                b.w = b.buf + 1;
                CHECK_EQ(rnic_bitmap_count_range(b.w, n, s, cnt), ref_count_range(&b, s, cnt));
                if (op == 0) {
                    rnic_bitmap_set_range(b.w, n, s, cnt);
                    ref_assign_range(&b, s, cnt, 1);
                } else if (op == 1) {
                    rnic_bitmap_clear_range(b.w, n, s, cnt);
                    ref_assign_range(&b, s, cnt, 0);
                } else {
                    bool v = rnic_prng_chance(&p, 1, 2);
                    rnic_bitmap_assign_range(b.w, n, s, cnt, v);
                    ref_assign_range(&b, s, cnt, (unsigned char)v);
                }
                CHECK(bm_same(&b));
                CHECK_EQ(rnic_bitmap_count_range(b.w, n, s, cnt), op == 1 ? 0u : ref_count_range(&b, s, cnt));
                cases++;
            }
        }
    }
}

/* Random operation sequences on random rings: set / clear / set_range / clear_range /
 * assign_range (wrapping) / zero, each followed by a full comparison, interleaved with
 * test / count / count_range / ffs_from / ffz_from queries at random heads. */
static void test_random_ops(void)
{
    rnic_prng p;
    bm b;
    uint32_t run, op;
    uint64_t muts = 0, queries = 0;
    rnic_prng_seed(&p, test_seed(4));
    for (run = 0; run < 20000 && TEST_FAILS() == 0; run++) {
        uint32_t n = pick_size(&p);
        bm_init(&b, n);
        bm_fill(&b, &p);
        for (op = 0; op < 100; op++) {
            uint32_t i = (uint32_t)rnic_prng_below(&p, n);
            /* range lengths: often short, sometimes the whole ring */
            uint32_t cnt = rnic_prng_chance(&p, 1, 8) ? n - (uint32_t)rnic_prng_below(&p, 2)
                                                      : (uint32_t)rnic_prng_below(&p, n < 70 ? n + 1u : 70u);
            bool mutated = true;
            if (cnt > n)
                cnt = n;
            switch (rnic_prng_below(&p, 12)) {
            case 0:
                rnic_bitmap_set(b.w, i);
                b.ref[i] = 1;
                break;
            case 1:
                rnic_bitmap_clear(b.w, i);
                b.ref[i] = 0;
                break;
            case 2:
                rnic_bitmap_set_range(b.w, n, i, cnt);
                ref_assign_range(&b, i, cnt, 1);
                break;
            case 3:
                rnic_bitmap_clear_range(b.w, n, i, cnt);
                ref_assign_range(&b, i, cnt, 0);
                break;
            case 4: {
                bool v = rnic_prng_chance(&p, 1, 2);
                rnic_bitmap_assign_range(b.w, n, i, cnt, v);
                ref_assign_range(&b, i, cnt, (unsigned char)v);
                break;
            }
            case 5:
                if (rnic_prng_chance(&p, 1, 8)) {
                    rnic_bitmap_zero(b.w, n);
                    memset(b.ref, 0, sizeof b.ref);
                } else {
                    mutated = false;
                    CHECK_EQ(rnic_bitmap_count(b.w, n), ref_count_range(&b, 0, n));
                }
                break;
            case 6:
            case 7:
                mutated = false;
                CHECK_EQ(rnic_bitmap_ffs_from(b.w, n, i), ref_ffs_from(&b, i, 1));
                break;
            case 8:
                mutated = false;
                CHECK_EQ(rnic_bitmap_ffz_from(b.w, n, i), ref_ffs_from(&b, i, 0));
                break;
            case 9:
                mutated = false;
                CHECK_EQ(rnic_bitmap_count_range(b.w, n, i, cnt), ref_count_range(&b, i, cnt));
                break;
            default:
                mutated = false;
                CHECK_EQ(rnic_bitmap_test(b.w, i), b.ref[i]);
                break;
            }
            if (mutated) {
                CHECK(bm_same(&b));
                muts++;
            } else {
                queries++;
            }
        }
        /* the whole final state, bit by bit, through the public query */
        for (op = 0; op < n; op++)
            CHECK_EQ(rnic_bitmap_test(b.w, op), b.ref[op]);
    }
    cases += muts + queries;
    printf("  random ops: %" PRIu64 " mutations, %" PRIu64 " queries\n", muts, queries);
}

int main(void)
{
    RUN(test_ctz_popcount);
    RUN(test_bits_between);
    RUN(test_tonic_example);
    RUN(test_empty_full_every_size);
    RUN(test_find_every_head);
    RUN(test_ranges_exhaustive);
    RUN(test_random_ops);
    printf("%" PRIu64 " property cases\n", cases);
    return test_summary();
}
