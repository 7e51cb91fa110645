/* Bounded rings (src/common/ring.h) against a naive reference: a flat array holding the
 * elements oldest first, popped with memmove. Random push/pop/peek/at sequences for several
 * capacities and element sizes; the ring's buffer is exactly elem_size * capacity bytes of
 * malloc'd memory so that ASan catches any slot outside it. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS / MAP_NORESERVE for the huge-ring case */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"
#if defined(__linux__)
#include <sys/mman.h>
#endif

static uint64_t g_seed;

typedef struct ref_ring {
    unsigned char *data; /* count elements, oldest first */
    uint32_t elem, cap, count, high_water;
    uint64_t pushed, popped, rejected;
} ref_ring;

static void fill_elem(unsigned char *e, uint32_t size, rnic_prng *p)
{
    uint32_t i;
    for (i = 0; i < size; i++)
        e[i] = (unsigned char)rnic_prng_next(p);
}

/* Every element, the counters and the predicates. */
static void compare_all(const rnic_ring *r, const ref_ring *ref)
{
    uint32_t i;
    CHECK_EQ(rnic_ring_count(r), ref->count);
    CHECK_EQ(rnic_ring_space(r), ref->cap - ref->count);
    CHECK_EQ(rnic_ring_empty(r), ref->count == 0);
    CHECK_EQ(rnic_ring_full(r), ref->count == ref->cap);
    CHECK_EQ(r->high_water, ref->high_water);
    CHECK_EQ(r->pushed, ref->pushed);
    CHECK_EQ(r->popped, ref->popped);
    CHECK_EQ(r->rejected_full, ref->rejected);
    for (i = 0; i < ref->count; i++) {
        const void *a = rnic_ring_at(r, i);
        CHECK(a != NULL);
        if (!a || memcmp(a, ref->data + (size_t)i * ref->elem, ref->elem) != 0) {
            CHECK(!"element differs");
            break;
        }
    }
    CHECK(rnic_ring_at(r, ref->count) == NULL);
    CHECK(rnic_ring_at(r, UINT32_MAX) == NULL);
    if (ref->count)
        CHECK(rnic_ring_peek(r) == rnic_ring_at(r, 0));
    else
        CHECK(rnic_ring_peek(r) == NULL);
}

static void random_run(uint32_t elem, uint32_t cap, uint32_t ops, uint64_t seed)
{
    rnic_ring r;
    ref_ring ref;
    rnic_prng p;
    size_t bytes = (size_t)elem * cap;
    unsigned char *mem = (unsigned char *)malloc(bytes);
    unsigned char *e = (unsigned char *)malloc(elem), *out = (unsigned char *)malloc(elem);
    uint32_t op, push_pct = 50, full_seen = 0, empty_pops = 0, wraps = 0;
    memset(&ref, 0, sizeof ref);
    ref.data = (unsigned char *)malloc(bytes);
    CHECK(mem && e && out && ref.data);
    if (!(mem && e && out && ref.data))
        goto done;
    ref.elem = elem;
    ref.cap = cap;
    rnic_prng_seed(&p, seed);
    CHECK_EQ(rnic_ring_init(&r, elem, cap, mem, bytes), RNIC_OK);
    compare_all(&r, &ref);
    for (op = 0; op < ops && TEST_FAILS() == 0; op++) {
        uint32_t roll = (uint32_t)rnic_prng_below(&p, 100);
        if (op % 500 == 0) { /* phases: filling, draining, balanced */
            static const uint32_t pct[] = { 50, 80, 20, 55, 45 };
            push_pct = pct[rnic_prng_below(&p, 5)];
        }
        if (roll < 80) {
            if (rnic_prng_below(&p, 100) < push_pct) { /* push */
                rnic_err got;
                fill_elem(e, elem, &p);
                /* half through the fixed-size variant (size == elem_size) */
                got = rnic_prng_chance(&p, 1, 2) ? rnic_ring_push_n(&r, e, elem) : rnic_ring_push(&r, e);
                if (ref.count == ref.cap) {
                    CHECK_EQ(got, RNIC_EBUSY);
                    ref.rejected++;
                    full_seen++;
                } else {
                    CHECK_EQ(got, RNIC_OK);
                    memcpy(ref.data + (size_t)ref.count * elem, e, elem);
                    ref.count++;
                    ref.pushed++;
                    if (ref.count > ref.high_water)
                        ref.high_water = ref.count;
                }
            } else { /* pop, into a buffer or discarded */
                int discard = rnic_prng_chance(&p, 1, 8);
                const void *head = rnic_ring_peek(&r);
                rnic_err got;
                memset(out, 0xee, elem);
                got = rnic_prng_chance(&p, 1, 2) ? rnic_ring_pop_n(&r, discard ? NULL : out, elem)
                                                 : rnic_ring_pop(&r, discard ? NULL : out);
                if (ref.count == 0) {
                    CHECK_EQ(got, RNIC_EEMPTY);
                    CHECK(head == NULL);
                    empty_pops++;
                } else {
                    CHECK_EQ(got, RNIC_OK);
                    if (!discard)
                        CHECK(memcmp(out, ref.data, elem) == 0);
                    if (rnic_ring_count(&r) > 0 && (const unsigned char *)rnic_ring_peek(&r) < (const unsigned char *)head)
                        wraps++;
                    memmove(ref.data, ref.data + elem, (size_t)(ref.count - 1) * elem);
                    ref.count--;
                    ref.popped++;
                }
            }
        } else if (roll < 90) { /* peek */
            const void *h = rnic_ring_peek(&r);
            if (ref.count == 0)
                CHECK(h == NULL);
            else
                CHECK(h && memcmp(h, ref.data, elem) == 0);
        } else { /* at(i), including out-of-range indices */
            uint32_t i = (uint32_t)rnic_prng_below(&p, (uint64_t)cap + 2);
            const void *a = rnic_ring_at(&r, i);
            if (i >= ref.count)
                CHECK(a == NULL);
            else
                CHECK(a && memcmp(a, ref.data + (size_t)i * elem, elem) == 0);
        }
        if (ref.count <= 8 || op % 64 == 0 || ref.count == ref.cap)
            compare_all(&r, &ref);
        else {
            CHECK_EQ(rnic_ring_count(&r), ref.count);
            CHECK_EQ(r.rejected_full, ref.rejected);
        }
    }
    compare_all(&r, &ref);
    /* drain */
    while (ref.count && TEST_FAILS() == 0) {
        CHECK_EQ(rnic_ring_pop(&r, out), RNIC_OK);
        CHECK(memcmp(out, ref.data, elem) == 0);
        memmove(ref.data, ref.data + elem, (size_t)(ref.count - 1) * elem);
        ref.count--;
        ref.popped++;
    }
    compare_all(&r, &ref);
    CHECK_EQ(rnic_ring_pop(&r, out), RNIC_EEMPTY);
    CHECK_EQ(r.pushed, r.popped);
    /* the run reached full, empty and (for cap > 1) wrapped around the buffer end */
    CHECK(full_seen > 0);
    CHECK(empty_pops > 0);
    CHECK(ref.high_water == cap);
    CHECK(cap == 1 || wraps > 0);
done:
    free(mem);
    free(e);
    free(out);
    free(ref.data);
}

static void run_sizes(uint32_t cap, uint32_t ops)
{
    static const uint32_t sizes[] = { 1, 3, 8, 40 };
    unsigned i;
    for (i = 0; i < 4 && TEST_FAILS() == 0; i++)
        random_run(sizes[i], cap, ops, g_seed + cap * 16u + i);
}

static void test_random_cap1(void) { run_sizes(1, 5000); }
static void test_random_cap2(void) { run_sizes(2, 10000); }
static void test_random_cap3(void) { run_sizes(3, 10000); }
static void test_random_cap7(void) { run_sizes(7, 20000); }
static void test_random_cap64(void) { run_sizes(64, 40000); }
static void test_random_cap1000(void) { run_sizes(1000, 100000); }

static void test_full_and_empty(void)
{
    rnic_ring r;
    uint32_t mem[5], v, i, before[5];
    CHECK_EQ(rnic_ring_init(&r, sizeof(uint32_t), 5, mem, sizeof mem), RNIC_OK);
    CHECK(rnic_ring_empty(&r));
    CHECK(!rnic_ring_full(&r));
    CHECK_EQ(rnic_ring_space(&r), 5);
    v = 7;
    CHECK_EQ(rnic_ring_pop(&r, &v), RNIC_EEMPTY);
    CHECK_EQ(rnic_ring_pop(&r, NULL), RNIC_EEMPTY);
    CHECK_EQ(v, 7);
    CHECK(rnic_ring_peek(&r) == NULL);
    CHECK(rnic_ring_at(&r, 0) == NULL);
    for (i = 0; i < 5; i++) {
        v = 100 + i;
        CHECK_EQ(rnic_ring_push(&r, &v), RNIC_OK);
    }
    CHECK(rnic_ring_full(&r));
    CHECK_EQ(rnic_ring_space(&r), 0);
    memcpy(before, mem, sizeof mem);
    for (i = 0; i < 3; i++) {
        v = 999;
        CHECK_EQ(rnic_ring_push(&r, &v), RNIC_EBUSY);
    }
    CHECK(memcmp(before, mem, sizeof mem) == 0);
    CHECK_EQ(r.rejected_full, 3);
    CHECK_EQ(r.pushed, 5);
    CHECK_EQ(r.high_water, 5);
    CHECK_EQ(rnic_ring_count(&r), 5);
    for (i = 0; i < 5; i++)
        CHECK_EQ(*(const uint32_t *)rnic_ring_at(&r, i), 100 + i);
    /* pop two, push two: wraps; high water stays at 5 */
    CHECK_EQ(rnic_ring_pop(&r, &v), RNIC_OK);
    CHECK_EQ(v, 100);
    CHECK_EQ(rnic_ring_pop(&r, NULL), RNIC_OK);
    CHECK_EQ(rnic_ring_count(&r), 3);
    CHECK_EQ(r.high_water, 5);
    v = 105;
    CHECK_EQ(rnic_ring_push(&r, &v), RNIC_OK);
    v = 106;
    CHECK_EQ(rnic_ring_push(&r, &v), RNIC_OK);
    CHECK_EQ(rnic_ring_push(&r, &v), RNIC_EBUSY);
    for (i = 0; i < 5; i++)
        CHECK_EQ(*(const uint32_t *)rnic_ring_at(&r, i), 102 + i);
    CHECK_EQ(*(const uint32_t *)rnic_ring_peek(&r), 102);
    for (i = 0; i < 5; i++) {
        CHECK_EQ(rnic_ring_pop(&r, &v), RNIC_OK);
        CHECK_EQ(v, 102 + i);
    }
    CHECK(rnic_ring_empty(&r));
    CHECK_EQ(r.pushed, 7);
    CHECK_EQ(r.popped, 7);
    CHECK_EQ(r.rejected_full, 4);
}

/* high_water is the largest count ever held, not the current one. */
static void test_high_water(void)
{
    rnic_ring r;
    uint64_t mem[2]; /* 10 one-byte slots in memory 8-byte aligned, as rnic_ring_init requires
                      * (an unsigned char array on the stack need not be: at gcc -O0 it was not) */
    unsigned char b = 1;
    uint32_t i;
    CHECK_EQ(rnic_ring_init(&r, 1, 10, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(r.high_water, 0);
    for (i = 0; i < 4; i++)
        CHECK_EQ(rnic_ring_push(&r, &b), RNIC_OK);
    CHECK_EQ(r.high_water, 4);
    for (i = 0; i < 3; i++)
        CHECK_EQ(rnic_ring_pop(&r, NULL), RNIC_OK);
    CHECK_EQ(r.high_water, 4);
    for (i = 0; i < 50; i++) { /* round and round at count 1..2 */
        CHECK_EQ(rnic_ring_push(&r, &b), RNIC_OK);
        CHECK_EQ(rnic_ring_pop(&r, NULL), RNIC_OK);
    }
    CHECK_EQ(r.high_water, 4);
    for (i = 0; i < 6; i++)
        CHECK_EQ(rnic_ring_push(&r, &b), RNIC_OK);
    CHECK_EQ(r.high_water, 7);
}

static void test_mem_size_and_init_errors(void)
{
    rnic_ring r;
    uint64_t mem[16];
    CHECK_EQ(rnic_ring_mem_size(0, 1), 0);
    CHECK_EQ(rnic_ring_mem_size(1, 0), 0);
    CHECK_EQ(rnic_ring_mem_size(0, 0), 0);
    CHECK_EQ(rnic_ring_mem_size(1, 1), 8);
    CHECK_EQ(rnic_ring_mem_size(3, 7), 24);
    CHECK_EQ(rnic_ring_mem_size(40, 1000), 40000);
    CHECK_EQ(rnic_ring_mem_size(8, 3), 24);
    CHECK_EQ(rnic_ring_mem_size(5, 5), 32);
#if SIZE_MAX > 0xffffffffu
    /* no overflow possible with 64-bit size_t: the exact product, rounded up to 8 */
    CHECK_EQ(rnic_ring_mem_size(UINT32_MAX, UINT32_MAX), (uint64_t)UINT32_MAX * UINT32_MAX + 7u);
    CHECK_EQ(rnic_ring_mem_size(1u << 31, 1u << 31), (uint64_t)1 << 62);
#else
    CHECK_EQ(rnic_ring_mem_size(UINT32_MAX, UINT32_MAX), 0);
    CHECK_EQ(rnic_ring_mem_size(1u << 16, 1u << 16), 0);
    CHECK_EQ(rnic_ring_mem_size(2, 1u << 31), 0);
#endif
    CHECK_EQ(rnic_ring_init(NULL, 8, 4, mem, sizeof mem), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_init(&r, 8, 4, NULL, sizeof mem), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_init(&r, 0, 4, mem, sizeof mem), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_init(&r, 8, 0, mem, sizeof mem), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_init(&r, 8, 17, mem, sizeof mem), RNIC_ENOSPC);
    CHECK_EQ(rnic_ring_init(&r, 8, 16, mem, sizeof mem - 1), RNIC_ENOSPC);
    CHECK_EQ(rnic_ring_init(&r, 8, 16, mem, 0), RNIC_ENOSPC);
    CHECK_EQ(rnic_ring_init(&r, 8, 16, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(rnic_ring_init(&r, 3, 7, mem, 21), RNIC_OK); /* the exact product suffices */
    CHECK_EQ(rnic_ring_init(&r, 3, 7, mem, 20), RNIC_ENOSPC);
    /* memory must be 8-byte aligned, like every rnicq init */
    CHECK_EQ(rnic_ring_init(&r, 3, 7, (unsigned char *)mem + 1, 21), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_init(&r, 3, 7, (unsigned char *)mem + 4, 21), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_init(&r, 3, 7, mem, 21), RNIC_OK);
    {
        unsigned char in[3] = { 1, 2, 3 }, out[3] = { 0, 0, 0 };
        CHECK_EQ(rnic_ring_push(&r, in), RNIC_OK);
        CHECK_EQ(rnic_ring_pop(&r, out), RNIC_OK);
        CHECK(memcmp(in, out, 3) == 0);
    }
    /* init resets a used ring */
    CHECK_EQ(rnic_ring_push(&r, mem), RNIC_OK);
    CHECK_EQ(rnic_ring_init(&r, 3, 7, mem, 21), RNIC_OK);
    CHECK_EQ(rnic_ring_count(&r), 0);
    CHECK_EQ(r.pushed, 0);
    CHECK_EQ(r.popped, 0);
    CHECK_EQ(r.high_water, 0);
    CHECK_EQ(r.rejected_full, 0);
    CHECK_EQ(r.capacity, 7);
    CHECK_EQ(r.elem_size, 3);
}

/* A ring of more than 2^31 slots: head + i no longer fits 32 bits near the buffer's end.
 * The memory is a lazily-committed anonymous mapping (only a few pages are touched), and
 * the state near the end is set up by writing head/count directly (public fields) instead
 * of by 3 * 10^9 pushes. */
static void test_huge_capacity_wrap(void)
{
#if defined(__linux__) && UINTPTR_MAX > 0xffffffffu && defined(MAP_NORESERVE)
    const uint32_t cap = 0xC0000000u;
    rnic_ring r;
    unsigned char *m, b;
    uint32_t i;
    m = (unsigned char *)mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        printf("  skipped: no 3 GiB mapping\n");
        return;
    }
    CHECK_EQ(rnic_ring_init(&r, 1, cap, m, cap), RNIC_OK);
    r.head = cap - 3;
    r.count = cap - 5; /* slots cap-3, cap-2, cap-1, 0, ..., cap-9 are "held" */
    CHECK((const unsigned char *)rnic_ring_at(&r, 0) == m + (cap - 3));
    CHECK((const unsigned char *)rnic_ring_at(&r, 2) == m + (cap - 1));
    CHECK((const unsigned char *)rnic_ring_at(&r, 3) == m + 0);
    CHECK((const unsigned char *)rnic_ring_at(&r, cap - 6) == m + (cap - 9));
    for (i = 0; i < 5; i++) { /* fills slots cap-8 .. cap-4 */
        b = (unsigned char)(0xa0 + i);
        CHECK_EQ(rnic_ring_push(&r, &b), RNIC_OK);
    }
    CHECK(rnic_ring_full(&r));
    CHECK_EQ(rnic_ring_push(&r, &b), RNIC_EBUSY);
    for (i = 0; i < 5; i++) {
        const unsigned char *a = (const unsigned char *)rnic_ring_at(&r, cap - 5 + i);
        CHECK(a == m + (cap - 8 + i));
        CHECK(a && *a == 0xa0 + i);
    }
    CHECK((const unsigned char *)rnic_ring_at(&r, cap - 1) == m + (cap - 4));
    /* pop across the end of the buffer */
    for (i = 0; i < 4; i++)
        CHECK_EQ(rnic_ring_pop(&r, NULL), RNIC_OK);
    CHECK_EQ(r.head, 1);
    CHECK((const unsigned char *)rnic_ring_at(&r, cap - 5) == m + (cap - 4));
    CHECK_EQ(*(const unsigned char *)rnic_ring_at(&r, cap - 5), 0xa4);
    munmap(m, cap);
#else
    printf("  skipped: needs a 64-bit Linux host\n");
#endif
}

int main(void)
{
    g_seed = test_seed(0x5191);
    RUN(test_full_and_empty);
    RUN(test_high_water);
    RUN(test_mem_size_and_init_errors);
    RUN(test_huge_capacity_wrap);
    RUN(test_random_cap1);
    RUN(test_random_cap2);
    RUN(test_random_cap3);
    RUN(test_random_cap7);
    RUN(test_random_cap64);
    RUN(test_random_cap1000);
    return test_summary();
}
