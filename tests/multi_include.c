/* Every header included twice, in mixed order, before and after the implementation switch;
 * also compiled with -Wconversion -Wsign-conversion to keep the headers clean for users
 * with strict flags. */
#include "rnicq.h"
#include "ratelimit.h"
#include "transport.h"
#define RNIC_IMPLEMENTATION
#include "hostcc.h"
#include "transport.h"
#include "rnicq.h"
#include "ratelimit.h"
#include "hostcc.h"
#include "rnicq.h"
#include "test.h"
#include "exercise.h"

static uint64_t mem[EXERCISE_MEM_WORDS];

static void test_all_headers_twice(void)
{
    CHECK(exercise_common(mem, EXERCISE_MEM_WORDS, 42) != 0);
    CHECK(rnic_hash64("x", 1, 0) == rnic_hash64("x", 1, 0));
#if !defined(RL__IMPLEMENTATION_DONE) || !defined(RQ__IMPLEMENTATION_DONE) || \
    !defined(TP__IMPLEMENTATION_DONE) || !defined(HCC__IMPLEMENTATION_DONE)
    CHECK(!"RNIC_IMPLEMENTATION must implement every header it meets");
#endif
}

int main(void)
{
    RUN(test_all_headers_twice);
    return test_summary();
}
