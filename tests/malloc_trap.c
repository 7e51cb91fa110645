/* Tick paths never allocate: linked with -Wl,--wrap=malloc,... every allocation after the
 * trap is armed is counted. The scenario drives every common structure (and, as engines
 * land, their ticks) with the trap armed; a self-test proves the trap does catch a call. */
#include <stdlib.h>
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "test.h"
#include "exercise.h"

/* volatile: the compiler knows malloc's builtin semantics ("reads no globals") and would
 * otherwise drop the stores around an allocation. */
static volatile int trap_armed;
static volatile unsigned long trapped;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_malloc(size_t n) { trapped += (unsigned long)trap_armed; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { trapped += (unsigned long)trap_armed; return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { trapped += (unsigned long)trap_armed; return __real_realloc(p, n); }
void __wrap_free(void *p) { trapped += (unsigned long)trap_armed; __real_free(p); }

static void test_no_allocation_after_init(void)
{
    uint64_t *mem = (uint64_t *)malloc(EXERCISE_MEM_WORDS * sizeof(uint64_t)); /* setup may allocate */
    uint64_t d;
    CHECK(mem != NULL);
    trap_armed = 1;
    d = exercise_common(mem, EXERCISE_MEM_WORDS, 42) ^ rnic_hash64(mem, 4096, 7);
    trap_armed = 0;
    CHECK(d != 0);
    CHECK_EQ(trapped, 0);
    free(mem);
}

static void test_trap_catches_an_allocation(void)
{
    void *volatile p; /* volatile: the compiler may not elide the malloc/free pair */
    unsigned long before = trapped;
    trap_armed = 1;
    p = malloc(16);
    free(p);
    trap_armed = 0;
    CHECK_EQ(trapped - before, 2); /* the malloc and the free were both seen */
}

int main(void)
{
    RUN(test_no_allocation_after_init);
    RUN(test_trap_catches_an_allocation);
    return test_summary();
}
