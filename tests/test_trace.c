/* Trace hooks: events reach the callback intact, the canonical serialisation matches a
 * hand-written little-endian layout, and the digest equals XXH64 computed by the system's
 * libxxhash (a separately compiled implementation) over those bytes. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

/* The real library function, not the inlined copy the header compiled in (which
 * XXH_INLINE_ALL renamed through an XXH64 macro). */
#undef XXH64
unsigned long long XXH64(const void *data, size_t len, unsigned long long seed);

typedef struct seen {
    int calls;
    rnic_trace_event last;
} seen;

static void record(void *user, const rnic_trace_event *ev)
{
    seen *s = (seen *)user;
    s->calls++;
    s->last = *ev;
}

static void test_no_callback_counts_only(void)
{
    rnic_trace t = { NULL, NULL, 0 };
    rnic_trace_emit(&t, 5, 1, 2, 3, 4, 5);
    rnic_trace_emit(&t, 6, 1, 2, 3, 4, 5);
    CHECK_EQ(t.events, 2);
}

static void test_callback_gets_every_field(void)
{
    rnic_trace t = { NULL, NULL, 0 };
    seen s;
    memset(&s, 0, sizeof s);
    rnic_trace_set(&t, record, &s);
    rnic_trace_emit(&t, 0x1122334455667788ull, 0xabcd, 0x1234, 0xdeadbeef, UINT64_MAX, 42);
    CHECK_EQ(s.calls, 1);
    CHECK_EQ(s.last.cycle, 0x1122334455667788ull);
    CHECK_EQ(s.last.engine, 0xabcd);
    CHECK_EQ(s.last.kind, 0x1234);
    CHECK_EQ(s.last.id, 0xdeadbeef);
    CHECK_EQ(s.last.a, UINT64_MAX);
    CHECK_EQ(s.last.b, 42);
    CHECK_EQ(t.events, 1);
}

static void test_serialisation_is_fixed_little_endian(void)
{
    static const unsigned char expect[RNIC_TRACE_BYTES] = {
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* cycle */
        0xcd, 0xab,                                     /* engine */
        0x34, 0x12,                                     /* kind */
        0xef, 0xbe, 0xad, 0xde,                         /* id */
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* a */
        0xff, 0, 0, 0, 0, 0, 0, 0x80                    /* b */
    };
    unsigned char out[RNIC_TRACE_BYTES];
    rnic_trace_event ev;
    ev.cycle = 0x1122334455667788ull;
    ev.engine = 0xabcd;
    ev.kind = 0x1234;
    ev.id = 0xdeadbeef;
    ev.a = 0x0807060504030201ull;
    ev.b = 0x80000000000000ffull;
    rnic_trace_serialize(&ev, out);
    CHECK(memcmp(out, expect, sizeof out) == 0);
}

static void test_digest_is_chained_xxh64_of_the_bytes(void)
{
    rnic_prng p;
    uint64_t digest = 0, ref = 0;
    rnic_trace t = { NULL, NULL, 0 };
    int i;
    rnic_prng_seed(&p, test_seed(7));
    rnic_trace_set(&t, rnic_trace_digest_hook, &digest);
    for (i = 0; i < 10000; i++) {
        rnic_trace_event ev;
        unsigned char buf[RNIC_TRACE_BYTES];
        ev.cycle = rnic_prng_next(&p);
        ev.engine = (uint16_t)rnic_prng_next(&p);
        ev.kind = (uint16_t)rnic_prng_next(&p);
        ev.id = (uint32_t)rnic_prng_next(&p);
        ev.a = rnic_prng_next(&p);
        ev.b = rnic_prng_next(&p);
        rnic_trace_emit(&t, ev.cycle, ev.engine, ev.kind, ev.id, ev.a, ev.b);
        rnic_trace_serialize(&ev, buf);
        ref = XXH64(buf, sizeof buf, ref);
    }
    CHECK_EQ(digest, ref);
    CHECK(digest != 0);
}

static void test_digest_depends_on_order(void)
{
    rnic_trace_event a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.cycle = 1;
    b.cycle = 2;
    CHECK(rnic_trace_digest_fold(rnic_trace_digest_fold(0, &a), &b) !=
          rnic_trace_digest_fold(rnic_trace_digest_fold(0, &b), &a));
}

int main(void)
{
    RUN(test_no_callback_counts_only);
    RUN(test_callback_gets_every_field);
    RUN(test_serialisation_is_fixed_little_endian);
    RUN(test_digest_is_chained_xxh64_of_the_bytes);
    RUN(test_digest_depends_on_order);
    return test_summary();
}
