/* Links link_a.c (ratelimit.h implemented) with link_b.c (rnicq.h implemented) and checks
 * both units compute the same thing. Built in normal and in *_STATIC mode. */
#include "hostcc.h"
#include "test.h"

uint64_t link_a_digest(uint64_t *mem, size_t words);
uint64_t link_b_digest(uint64_t *mem, size_t words);

static uint64_t mem[16384];

static void test_two_units_agree(void)
{
    uint64_t a = link_a_digest(mem, 16384), b = link_b_digest(mem, 16384);
    CHECK(a != 0);
    CHECK_EQ(a, b);
}

int main(void)
{
    RUN(test_two_units_agree);
    return test_summary();
}
