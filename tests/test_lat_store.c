/* examples/rnic_model/lat_store.h: the composed model's bounded store of message latencies.
 * Below its capacity it keeps every latency in order (so a short run reports exactly what it
 * did when the model kept them all); past it, the kept ones are a uniform sample of all noted
 * (checked by chi-square over many seeds: every value equally likely to be kept, whatever its
 * position), the arrays never move or grow, and the count and sum still cover every latency.
 * Keep-all mode (capacity 0) keeps every latency past any size. Same seed, same sample. */
#include "ratelimit.h"
#include "test.h"
#include "../examples/rnic_model/lat_store.h"

static uint64_t g_seed;

static void test_exact_below_cap(void)
{
    rm_lat_store s;
    uint64_t i, sum = 0;
    CHECK(rm_lat_init(&s, 1000, g_seed) == 0);
    CHECK(!rm_lat_sampled(&s));
    for (i = 0; i < 1000; i++) {
        rm_lat_note(&s, (uint32_t)(i % 7u), 3u * i + 1u);
        sum += 3u * i + 1u;
    }
    CHECK_EQ(s.n, 1000);
    CHECK_EQ(s.seen, 1000);
    CHECK_EQ(s.sum, sum);
    CHECK(!rm_lat_sampled(&s)); /* exactly full is still every latency */
    for (i = 0; i < 1000 && TEST_FAILS() == 0; i++) {
        CHECK_EQ(s.lat[i], 3u * i + 1u);
        CHECK_EQ(s.flow[i], i % 7u);
    }
    rm_lat_free(&s);
}

/* Past the cap: n stays at cap, the arrays stay where init put them, every kept latency is one
 * that was noted and appears once, it keeps its own flow, and count and sum cover all. */
static void test_bounded_past_cap(void)
{
    rm_lat_store s;
    uint64_t *lat0;
    uint32_t *flow0;
    uint64_t i, sum = 0;
    static unsigned char seen_value[200000];
    CHECK(rm_lat_init(&s, 4096, g_seed) == 0);
    lat0 = s.lat;
    flow0 = s.flow;
    memset(seen_value, 0, sizeof seen_value);
    for (i = 0; i < 200000; i++) {
        rm_lat_note(&s, (uint32_t)(i * 2654435761u >> 20), i);
        sum += i;
    }
    CHECK_EQ(s.n, 4096);
    CHECK_EQ(s.cap, 4096);
    CHECK(s.lat == lat0 && s.flow == flow0);
    CHECK_EQ(s.seen, 200000);
    CHECK_EQ(s.sum, sum);
    CHECK(rm_lat_sampled(&s));
    for (i = 0; i < s.n && TEST_FAILS() == 0; i++) {
        uint64_t v = s.lat[i];
        CHECK(v < 200000);
        if (v < 200000) {
            CHECK(!seen_value[v]);
            seen_value[v] = 1;
            CHECK_EQ(s.flow[i], (uint32_t)(v * 2654435761u >> 20));
        }
    }
    rm_lat_free(&s);
}

/* Uniformity: over 2,000 seeds, 64 kept of 1,024 noted; how often each sixteenth of the stream
 * (by position) is kept must match 1/16 (chi-square, 15 degrees of freedom; 60 is far beyond
 * p = 1e-6). A store that let every newcomer in, or never replaced, or favoured early slots,
 * is off by thousands. Also the kept sample's median is near the stream's. */
static void test_uniform_sample(void)
{
    enum { TRIALS = 2000, CAP = 64, N = 1024, BUCKETS = 16 };
    uint64_t count[BUCKETS] = { 0 };
    uint64_t t, i, b, median_off = 0;
    double chi = 0, expect = (double)TRIALS * CAP / BUCKETS;
    for (t = 0; t < TRIALS; t++) {
        rm_lat_store s;
        uint64_t below = 0;
        CHECK(rm_lat_init(&s, CAP, g_seed + t) == 0);
        for (i = 0; i < N; i++)
            rm_lat_note(&s, 0, i);
        CHECK_EQ(s.n, CAP);
        for (i = 0; i < s.n; i++) {
            count[s.lat[i] / (N / BUCKETS)]++;
            below += s.lat[i] < N / 2;
        }
        median_off += below > CAP / 2 ? below - CAP / 2 : CAP / 2 - below;
        rm_lat_free(&s);
    }
    for (b = 0; b < BUCKETS; b++)
        chi += ((double)count[b] - expect) * ((double)count[b] - expect) / expect;
    printf("  chi-square over %d position buckets: %.2f (counts %llu .. of %.0f expected)\n", BUCKETS, chi,
           (unsigned long long)count[0], expect);
    CHECK(chi < 60.0);
    /* half of a uniform sample of 64 lies below the stream's median, +- 4 on average
     * (hypergeometric sd ~ 3.9; mean absolute deviation ~ 3.1) */
    CHECK((double)median_off / TRIALS < 5.0);
}

static void test_same_seed_same_sample(void)
{
    rm_lat_store a, b, c;
    uint64_t i, differ = 0;
    CHECK(rm_lat_init(&a, 512, 42) == 0);
    CHECK(rm_lat_init(&b, 512, 42) == 0);
    CHECK(rm_lat_init(&c, 512, 43) == 0);
    for (i = 0; i < 50000; i++) {
        rm_lat_note(&a, (uint32_t)i, i);
        rm_lat_note(&b, (uint32_t)i, i);
        rm_lat_note(&c, (uint32_t)i, i);
    }
    CHECK(memcmp(a.lat, b.lat, 512 * sizeof *a.lat) == 0);
    CHECK(memcmp(a.flow, b.flow, 512 * sizeof *a.flow) == 0);
    for (i = 0; i < 512; i++)
        differ += a.lat[i] != c.lat[i];
    CHECK(differ > 400); /* another seed: another sample (~97 % of slots differ) */
    rm_lat_free(&a);
    rm_lat_free(&b);
    rm_lat_free(&c);
}

/* Capacity 0: every latency, in order, past many doublings (the soak's negative control). */
static void test_keep_all_grows(void)
{
    rm_lat_store s;
    uint64_t i;
    CHECK(rm_lat_init(&s, 0, g_seed) == 0);
    CHECK(s.grow);
    for (i = 0; i < 100000; i++)
        rm_lat_note(&s, (uint32_t)(i & 31u), i * 5u);
    CHECK_EQ(s.n, 100000);
    CHECK_EQ(s.seen, 100000);
    CHECK(s.cap >= 100000);
    CHECK(!rm_lat_sampled(&s));
    for (i = 0; i < 100000 && TEST_FAILS() == 0; i++) {
        CHECK_EQ(s.lat[i], i * 5u);
        CHECK_EQ(s.flow[i], i & 31u);
    }
    rm_lat_free(&s);
}

int main(void)
{
    g_seed = test_seed(0x1a75);
    RUN(test_exact_below_cap);
    RUN(test_bounded_past_cap);
    RUN(test_uniform_sample);
    RUN(test_same_seed_same_sample);
    RUN(test_keep_all_grows);
    return test_summary();
}
