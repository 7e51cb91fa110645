/* Minimal test harness: RUN(fn) runs one test case; CHECK* record failures (the first few
 * per case are printed with file:line); test_summary() prints the closing line
 * "N passed, N failed" (test cases) that tests/run.sh adds up, after "assertions N" (every CHECK
 * evaluated), and returns the exit code. */
#ifndef RNIC_TEST_H
#define RNIC_TEST_H
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test__cases_passed, test__cases_failed, test__case_fails;
static unsigned long long test__assertions; /* every CHECK evaluated, printed by test_summary() */
static const char *test__case_name = "?";

static void test__fail(const char *file, int line, const char *what)
{
    if (test__case_fails < 8)
        printf("FAIL %s (%s:%d): %s\n", test__case_name, file, line, what);
    test__case_fails++;
}

#define CHECK(cond)                                     \
    do {                                                \
        test__assertions++;                             \
        if (!(cond))                                    \
            test__fail(__FILE__, __LINE__, #cond);      \
    } while (0)

/* Compare two unsigned 64-bit values and print both on mismatch. */
#define CHECK_EQ(a, b)                                                                       \
    do {                                                                                     \
        uint64_t test__a = (uint64_t)(a), test__b = (uint64_t)(b);                           \
        test__assertions++;                                                                  \
        if (test__a != test__b) {                                                            \
            char test__buf[256];                                                             \
            snprintf(test__buf, sizeof test__buf, "%s == %s (%" PRIu64 " vs %" PRIu64 ")", #a, \
                     #b, test__a, test__b);                                                  \
            test__fail(__FILE__, __LINE__, test__buf);                                       \
        }                                                                                    \
    } while (0)

/* Number of failed checks so far in the current case (to stop a property loop early). */
#define TEST_FAILS() (test__case_fails)

static void test__run(const char *name, void (*fn)(void))
{
    test__case_name = name;
    test__case_fails = 0;
    fn();
    if (test__case_fails) {
        test__cases_failed++;
        printf("not ok %s (%d failed checks)\n", name, test__case_fails);
    } else {
        test__cases_passed++;
        printf("ok %s\n", name);
    }
}
#define RUN(fn) test__run(#fn, fn)

static int test_summary(void)
{
    printf("assertions %llu\n", test__assertions);
    printf("%d passed, %d failed\n", test__cases_passed, test__cases_failed);
    return test__cases_failed != 0;
}

/* Seed for property tests: RNIC_TEST_SEED in the environment, else a fixed default, printed
 * so that a failure can be replayed. */
static inline uint64_t test_seed(uint64_t dflt)
{
    const char *s = getenv("RNIC_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : dflt;
    printf("seed %" PRIu64 "\n", seed);
    return seed;
}

/* The length of a long seeded property loop: make test runs `quick` (a prefix of the same run that
 * still reaches every line and branch direction the full run does: tools/short_covers_long.sh),
 * make check the full length (RNIC_TEST_LONG=1 in the environment). */
static inline uint64_t test_length(uint64_t quick, uint64_t full)
{
    const char *s = getenv("RNIC_TEST_LONG");
    uint64_t n = s && *s && strcmp(s, "0") != 0 ? full : quick;
    printf("length %" PRIu64 " of %" PRIu64 "%s\n", n, full, n == full ? "" : " (RNIC_TEST_LONG=1: the full run)");
    return n;
}
#endif
