/* examples/rnic_model/workload.h: open-loop workloads' inputs.
 * - the shipped CDFs (web search, Hadoop) read; a million sizes drawn from each follow the file:
 *   the share of draws at most each point's size is within 0.2 percentage points of the point's
 *   percentage, and their mean within 1 % of wl_cdf_mean -- and wl_cdf_mean is the integral of
 *   the piecewise-linear CDF (the test's own: the average of the inverse over a fine grid);
 * - random valid CDFs: every draw lies between the first and the last size and is at least 1,
 *   inversion is monotone (a larger percentile never gives a smaller size);
 * - exponential gaps: mean within 1 % and P(gap > mean) within 0.5 points of e^-1;
 * - bad CDF files and flow files: each refused with the file:line and what is wrong; random
 *   garbage lines never crash and are refused or read;
 * - flow files: fields read as written, comments and blanks skipped; wl_sort orders by start,
 *   then source, then the order given. */
#include "ratelimit.h"
#include "test.h"
#include "../examples/rnic_model/workload.h"

static uint64_t g_seed;

static const char *write_tmp(const char *name, const char *text)
{
    static char path[256];
    FILE *f;
    snprintf(path, sizeof path, "build/test-workload-%s.txt", name);
    f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

static void check_follows_file(const char *path)
{
    wl_cdf c;
    char why[512];
    rnic_prng r;
    uint32_t i, k, n = 1000000, *below;
    double sum = 0, grid = 0;
    CHECK_EQ(wl_cdf_read(&c, path, why, sizeof why), 0);
    if (c.n < 2)
        return;
    below = (uint32_t *)calloc(c.n, sizeof *below);
    rnic_prng_seed(&r, g_seed);
    for (i = 0; i < n; i++) {
        uint64_t x = wl_cdf_sample(&c, &r);
        sum += (double)x;
        for (k = 0; k < c.n; k++)
            below[k] += x <= c.size[k];
    }
    for (k = 1; k < c.n; k++) { /* sizes are whole bytes, cut down: P(size <= s) is the file's CDF at s + 1 */
        double got = 100.0 * below[k] / n, want = (double)c.pct[k] / WL_PCT_ONE, want_hi = want;
        if (k + 1u < c.n)
            want_hi += (double)(c.pct[k + 1u] - c.pct[k]) / WL_PCT_ONE / (double)(c.size[k + 1u] - c.size[k]);
        CHECK(got > want - 0.2 && got < want_hi + 0.2);
        if (!(got > want - 0.2 && got < want_hi + 0.2))
            printf("  %s: %.3f %% of draws at most %llu, the file says %.3f %%\n", path, got,
                   (unsigned long long)c.size[k], want);
    }
    for (i = 0; i < 100000; i++) /* the mean as the integral of the inverse CDF, on a grid */
        grid += (double)wl_cdf_at(&c, (uint64_t)((i + 0.5) * (double)WL_PCT_FULL / 100000.0));
    grid /= 100000.0;
    CHECK(fabs(grid / wl_cdf_mean(&c) - 1.0) < 0.001);
    CHECK(fabs(sum / n / wl_cdf_mean(&c) - 1.0) < 0.01);
    if (!(fabs(sum / n / wl_cdf_mean(&c) - 1.0) < 0.01))
        printf("  %s: sample mean %.0f, CDF mean %.0f\n", path, sum / n, wl_cdf_mean(&c));
    free(below);
    wl_cdf_free(&c);
}

static void test_shipped_cdfs(void)
{
    check_follows_file("scenarios/cdf/websearch.txt");
    check_follows_file("scenarios/cdf/hadoop.txt");
}

static void test_random_cdfs(void)
{
    uint64_t x = g_seed;
    uint32_t round, rounds = (uint32_t)test_length(100, 1000);
    for (round = 0; round < rounds && !TEST_FAILS(); round++) {
        char text[8192], why[512];
        size_t len = 0;
        uint32_t n = 2u + (uint32_t)(rnic_splitmix64(&x) % 30u), i;
        uint64_t size = rnic_splitmix64(&x) % 100u, pct = 0;
        wl_cdf c;
        rnic_prng r;
        for (i = 0; i < n; i++) {
            uint64_t step = 1u + rnic_splitmix64(&x) % (100u * WL_PCT_ONE / n - 1u);
            if (i == n - 1u)
                pct = WL_PCT_FULL;
            len += (size_t)snprintf(text + len, sizeof text - len, "%llu %llu.%06llu\n", (unsigned long long)size,
                                    (unsigned long long)(pct / WL_PCT_ONE), (unsigned long long)(pct % WL_PCT_ONE));
            size += 1u + rnic_splitmix64(&x) % 1000000u;
            pct += step;
        }
        CHECK_EQ(wl_cdf_read(&c, write_tmp("random", text), why, sizeof why), 0);
        if (c.n != n)
            continue;
        rnic_prng_seed(&r, rnic_splitmix64(&x));
        for (i = 0; i < 2000; i++) {
            uint64_t a = rnic_prng_below(&r, WL_PCT_FULL + 1u), b = rnic_prng_below(&r, WL_PCT_FULL + 1u);
            uint64_t sa = wl_cdf_at(&c, a < b ? a : b), sb = wl_cdf_at(&c, a < b ? b : a), d = wl_cdf_sample(&c, &r);
            CHECK(sa <= sb);
            CHECK(d >= 1 && d >= c.size[0] && d <= c.size[c.n - 1u]);
        }
        wl_cdf_free(&c);
    }
}

static void test_exponential(void)
{
    rnic_prng r;
    uint32_t i, n = 1000000, above = 0;
    double sum = 0, mean = 2500.0;
    rnic_prng_seed(&r, g_seed ^ 7u);
    for (i = 0; i < n; i++) {
        double g = wl_exponential_ns(&r, mean);
        CHECK(g >= 0);
        sum += g;
        above += g > mean;
    }
    CHECK(fabs(sum / n / mean - 1.0) < 0.01);
    CHECK(fabs(100.0 * above / n - 100.0 * exp(-1.0)) < 0.5);
    /* the HPCC generator's rate: mean size x 8 / (rate x load) */
    CHECK(fabs(wl_interarrival_ns(1711250.0, 100000000000ull, 30) - 1711250.0 * 8.0 / (100e9 * 0.30) * 1e9) < 1e-6);
}

typedef struct bad_case {
    const char *text, *want;
} bad_case;

static void test_bad_cdfs(void)
{
    static const bad_case cases[] = {
        { "10 0\n5 100\n", ":2: sizes and percentages must both increase" },
        { "0 0\n10 50\n20 50\n30 100\n", ":3: sizes and percentages must both increase" },
        { "0 5\n10 100\n", ":1: the first point must be at 0 %" },
        { "0 0\n10 90\n", "the last at 100 %" },
        { "0 0\n", "at least two points" },
        { "", "at least two points" },
        { "0 0\n10 abc\n", ":2: '10 abc' is not \"SIZE PERCENT\"" },
        { "0 0\n10 50 7\n", ":2: '10 50 7' is not" },
        { "0 0\n-10 50\n", ":2:" },
        { "0 0\n10 50.1234567\n", ":2:" },
        { "0 0\n10 150\n", ":2: percentage above 100" },
        { "0 0\n4294967296 100\n", "above a message's limit" },
        { "# a comment\n\n0 0   # first\n\t10 100\r\n", NULL }, /* fine */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wl_cdf c;
        char why[512] = "";
        const char *path = write_tmp("bad_cdf", cases[i].text);
        int rc = wl_cdf_read(&c, path, why, sizeof why);
        if (!cases[i].want) {
            CHECK_EQ(rc, 0);
            CHECK_EQ(c.n, 2);
            wl_cdf_free(&c);
            continue;
        }
        CHECK_EQ(rc, -1);
        CHECK(strstr(why, cases[i].want) != NULL && strstr(why, path) == why);
        if (!strstr(why, cases[i].want))
            printf("  case %u: got '%s', want '%s'\n", (unsigned)i, why, cases[i].want);
    }
    {
        wl_cdf c;
        char why[512];
        CHECK_EQ(wl_cdf_read(&c, "build/no-such-cdf.txt", why, sizeof why), -1);
        CHECK(strstr(why, "cannot open") != NULL);
    }
}

static int tenant_of(const void *user, const char *name)
{
    (void)user;
    return !strcmp(name, "web") ? 0 : !strcmp(name, "hadoop") ? 1 : -1;
}

static void test_flow_files(void)
{
    static const bad_case bad[] = {
        { "0 16 web 100 0\n", ":1: host 16 is not below the topology's 16 hosts" },
        { "17 1 web 100 0\n", ":1: host 17 is not below the topology's 16 hosts" },
        { "1 2 web\t100 0x\n", ":1: '1 2 web\t100 0x' is not" },
        { "1 2 web 100x 0\n", ":1:" },
        { "1 2 web\n", ":1:" },
        { "1 2 \n", ":1:" },
        { "1 2\n", ":1:" },
        { "1x 2 web 1 0\n", ":1:" },
        { "1 2x web 1 0\n", ":1:" },
        { "1 2 an-extremely-long-tenant-name-that-goes-on-and-on-past-sixty-four-characters 1 0\n", ":1:" },
        { "3 3 web 100 0\n", ":1: host 3 sends to itself" },
        { "1 2 web 0 0\n", ":1: size 0 is not in 1 .. 2147483648 bytes" },
        { "1 2 web 2147483649 0\n", ":1: size 2147483649" },
        { "1 2 mail 100 0\n", ":1: tenant 'mail' is not a tenant" },
        { "1 2 web 100\n", ":1: '1 2 web 100' is not \"SRC DST TENANT SIZE START_NS\"" },
        { "1 2 web 100 5 6\n", ":1:" },
        { "# ok\n1 2 web -100 5\n", ":2:" },
        { "1 2 web 100 18446744073709551616\n", ":1:" },
    };
    wl_flow *v = NULL;
    size_t n = 0, i;
    char why[512];
    const char *path = write_tmp("flows", "# src dst tenant size start\n\n2 5 hadoop 1000 300   # late\n"
                                           "1 0 web 2147483648 100\n7\t6\tweb\t1\t100\t\n1 3 web 5 100\n");
    CHECK_EQ(wl_read_flow_file(path, 16, tenant_of, NULL, &v, &n, why, sizeof why), 0);
    CHECK_EQ(n, 4);
    if (n == 4) {
        CHECK(v[0].src == 2 && v[0].dst == 5 && v[0].tenant == 1 && v[0].size == 1000 && v[0].start_ns == 300 &&
              v[0].line == 3);
        CHECK(v[1].size == 2147483648ull && v[1].line == 4);
        wl_sort(v, n); /* by start, then source, then as given */
        CHECK(v[0].start_ns == 100 && v[0].src == 1 && v[0].dst == 0);
        CHECK(v[1].start_ns == 100 && v[1].src == 1 && v[1].dst == 3);
        CHECK(v[2].start_ns == 100 && v[2].src == 7);
        CHECK(v[3].start_ns == 300);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t m = 0;
        wl_flow *w = NULL;
        const char *p = write_tmp("bad_flows", bad[i].text);
        CHECK_EQ(wl_read_flow_file(p, 16, tenant_of, NULL, &w, &m, why, sizeof why), -1);
        CHECK(strstr(why, bad[i].want) != NULL);
        if (!strstr(why, bad[i].want))
            printf("  case %u: got '%s', want '%s'\n", (unsigned)i, why, bad[i].want);
        free(w);
    }
    free(v);
}

/* Random bytes and random edits of good lines: refused or read, never a crash (ASan watches). */
static void test_garbage(void)
{
    uint64_t x = g_seed ^ 0xabcdefu;
    uint32_t round, rounds = (uint32_t)test_length(300, 3000), read_ok = 0, flows_ok = 0;
    static const char alphabet[] = "0123456789 .\t#-+eExa\n\r/web";
    for (round = 0; round < rounds; round++) {
        char text[600], why[512];
        uint32_t len = (uint32_t)(rnic_splitmix64(&x) % (sizeof text - 1u)), i;
        wl_cdf c;
        wl_flow *v = NULL;
        size_t n = 0;
        const char *p;
        if (round % 3u == 0) {
            for (i = 0; i < len; i++)
                text[i] = alphabet[rnic_splitmix64(&x) % (sizeof alphabet - 1u)];
            text[len] = '\0';
        } else { /* a good CDF or flow file with a few characters changed */
            uint32_t edits = 1u + (uint32_t)(rnic_splitmix64(&x) % 3u);
            snprintf(text, sizeof text, "%s", round % 3u == 1 ? "0 0\n10000 15\n20000 20\n80000 53.5\n1000000 70\n30000000 100\n"
                                                              : "1 2 web 100 0\n3 4\thadoop 2000 10 # x\n\n5 0 web 7 99\n");
            len = (uint32_t)strlen(text);
            for (i = 0; i < edits; i++)
                text[rnic_splitmix64(&x) % len] = alphabet[rnic_splitmix64(&x) % (sizeof alphabet - 1u)];
        }
        p = write_tmp("garbage", text);
        if (wl_cdf_read(&c, p, why, sizeof why) == 0) {
            read_ok++;
            CHECK(c.n >= 2 && c.pct[0] == 0 && c.pct[c.n - 1u] == WL_PCT_FULL);
            wl_cdf_free(&c);
        } else
            CHECK(strstr(why, p) == why);
        if (wl_read_flow_file(p, 16, tenant_of, NULL, &v, &n, why, sizeof why) != 0)
            CHECK(strstr(why, p) == why);
        else {
            flows_ok++;
            for (i = 0; i < n; i++)
                CHECK(v[i].src < 16 && v[i].dst < 16 && v[i].src != v[i].dst && v[i].size >= 1 && v[i].tenant <= 1);
        }
        free(v);
    }
    printf("  %u of %u edited files read as CDFs, %u as flow files\n", read_ok, rounds, flows_ok);
}

int main(void)
{
    g_seed = test_seed(0x77a3e1c2b4d5f607ull);
    RUN(test_shipped_cdfs);
    RUN(test_random_cdfs);
    RUN(test_exponential);
    RUN(test_bad_cdfs);
    RUN(test_flow_files);
    RUN(test_garbage);
    return test_summary();
}
