/* Error codes (src/common/error.h): the enum, rnic_strerror(), rnic_err_name() and the
 * per-cause counters all come from one X-macro list; check them against a table written out
 * here by hand, so that a drift in the list (or a renamed code) shows. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

static const struct {
    rnic_err code;
    const char *name;
} known[] = {
    { RNIC_OK, "OK" },         { RNIC_EINVAL, "EINVAL" }, { RNIC_EBUSY, "EBUSY" },
    { RNIC_ENOSPC, "ENOSPC" }, { RNIC_ERANGE, "ERANGE" }, { RNIC_EPERM, "EPERM" },
    { RNIC_ENOENT, "ENOENT" }, { RNIC_EEXIST, "EEXIST" }, { RNIC_EEMPTY, "EEMPTY" },
    { RNIC_ESTALE, "ESTALE" }, { RNIC_ESTATE, "ESTATE" }, { RNIC_EALIGN, "EALIGN" },
};
#define NKNOWN (sizeof known / sizeof known[0])

static void test_codes_are_dense(void)
{
    unsigned i, j;
    CHECK_EQ(RNIC_OK, 0);
    CHECK_EQ(RNIC_ERR__COUNT, NKNOWN);
    /* every code in [0, COUNT) appears exactly once in the hand-written table */
    for (i = 0; i < (unsigned)RNIC_ERR__COUNT; i++) {
        unsigned seen = 0;
        for (j = 0; j < NKNOWN; j++)
            seen += (unsigned)known[j].code == i;
        CHECK_EQ(seen, 1);
    }
}

static void test_names(void)
{
    unsigned i;
    for (i = 0; i < NKNOWN; i++) {
        const char *n = rnic_err_name(known[i].code);
        CHECK(n != NULL);
        if (n && strcmp(n, known[i].name) != 0) {
            printf("  code %u: name \"%s\", want \"%s\"\n", (unsigned)known[i].code, n, known[i].name);
            CHECK(!"rnic_err_name");
        }
    }
    CHECK(strcmp(rnic_err_name(RNIC_EBUSY), "EBUSY") == 0);
    CHECK(strcmp(rnic_err_name(RNIC_OK), "OK") == 0);
    CHECK(strcmp(rnic_err_name(RNIC_EEMPTY), "EEMPTY") == 0);
    CHECK(strcmp(rnic_err_name(RNIC_EALIGN), "EALIGN") == 0);
}

static void test_strerror(void)
{
    unsigned i, j;
    for (i = 0; i < (unsigned)RNIC_ERR__COUNT; i++) {
        const char *s = rnic_strerror((rnic_err)i), *n = rnic_err_name((rnic_err)i);
        char prefix[64];
        size_t plen;
        CHECK(s != NULL && n != NULL);
        if (!s || !n)
            continue;
        /* "RNIC_<NAME>: <description>" with a non-empty description */
        snprintf(prefix, sizeof prefix, "RNIC_%s: ", n);
        plen = strlen(prefix);
        if (strncmp(s, prefix, plen) != 0 || strlen(s) <= plen || s[plen] == ' ') {
            printf("  code %u: \"%s\" does not start with \"%s\" + text\n", i, s, prefix);
            CHECK(!"strerror format");
        }
        /* distinct from every other code's text and name */
        for (j = 0; j < i; j++) {
            CHECK(strcmp(s, rnic_strerror((rnic_err)j)) != 0);
            CHECK(strcmp(n, rnic_err_name((rnic_err)j)) != 0);
        }
        /* the same pointer every time (static strings) */
        CHECK(rnic_strerror((rnic_err)i) == s);
    }
    CHECK(strcmp(rnic_strerror(RNIC_OK), "RNIC_OK: ok") == 0);
    CHECK(strncmp(rnic_strerror(RNIC_EBUSY), "RNIC_EBUSY: ", 12) == 0);
}

static void test_out_of_range(void)
{
    const unsigned bad[] = { (unsigned)RNIC_ERR__COUNT, (unsigned)RNIC_ERR__COUNT + 1u, 1000u, UINT_MAX };
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rnic_err e = (rnic_err)bad[i];
        CHECK(strcmp(rnic_strerror(e), "RNIC_?: unknown error code") == 0);
        CHECK(strcmp(rnic_err_name(e), "?") == 0);
    }
}

static void test_note_and_total(void)
{
    rnic_err_stats s;
    unsigned i, k;
    memset(&s, 0, sizeof s);
    CHECK_EQ(rnic_err_total(&s), 0);
    /* returns its argument, counted or not */
    for (i = 0; i < (unsigned)RNIC_ERR__COUNT; i++)
        CHECK_EQ(rnic_err_note(&s, (rnic_err)i), i);
    CHECK_EQ(s.by_cause[RNIC_OK], 0); /* OK is never counted */
    for (i = 1; i < (unsigned)RNIC_ERR__COUNT; i++)
        CHECK_EQ(s.by_cause[i], 1);
    CHECK_EQ(rnic_err_total(&s), RNIC_ERR__COUNT - 1);
    /* code i noted i more times: per-cause counts and the total follow */
    for (i = 0; i < (unsigned)RNIC_ERR__COUNT; i++)
        for (k = 0; k < i; k++)
            rnic_err_note(&s, (rnic_err)i);
    for (i = 1; i < (unsigned)RNIC_ERR__COUNT; i++)
        CHECK_EQ(s.by_cause[i], 1u + i);
    CHECK_EQ(s.by_cause[RNIC_OK], 0);
    {
        uint64_t want = 0;
        for (i = 1; i < (unsigned)RNIC_ERR__COUNT; i++)
            want += 1u + i;
        CHECK_EQ(rnic_err_total(&s), want);
    }
    /* the usual idiom */
    memset(&s, 0, sizeof s);
    for (k = 0; k < 1000; k++)
        CHECK_EQ(rnic_err_note(&s, RNIC_EBUSY), RNIC_EBUSY);
    CHECK_EQ(s.by_cause[RNIC_EBUSY], 1000);
    CHECK_EQ(rnic_err_total(&s), 1000);
    /* out-of-range codes are returned but not counted anywhere */
    CHECK_EQ(rnic_err_note(&s, (rnic_err)RNIC_ERR__COUNT), RNIC_ERR__COUNT);
    CHECK_EQ(rnic_err_note(&s, (rnic_err)1000u), 1000);
    CHECK_EQ(rnic_err_total(&s), 1000);
    /* NULL stats: nothing counted, argument returned */
    for (i = 0; i < (unsigned)RNIC_ERR__COUNT; i++)
        CHECK_EQ(rnic_err_note(NULL, (rnic_err)i), i);
    CHECK_EQ(rnic_err_note(NULL, (rnic_err)1000u), 1000);
    /* large counts do not wrap below 2^64 */
    memset(&s, 0, sizeof s);
    s.by_cause[RNIC_EINVAL] = (uint64_t)1 << 62;
    s.by_cause[RNIC_EALIGN] = (uint64_t)1 << 62;
    rnic_err_note(&s, RNIC_EALIGN);
    CHECK_EQ(rnic_err_total(&s), ((uint64_t)1 << 63) + 1u);
}

int main(void)
{
    RUN(test_codes_are_dense);
    RUN(test_names);
    RUN(test_strerror);
    RUN(test_out_of_range);
    RUN(test_note_and_total);
    return test_summary();
}
