/* Determinism: prints the digest of the common-core scenario. tests/run.sh builds this file
 * with several compilers, optimisation levels and as C++, and requires identical digests. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "test.h"
#include "exercise.h"

static uint64_t mem[EXERCISE_MEM_WORDS];

static void test_scenario_runs(void)
{
    uint64_t d = exercise_common(mem, EXERCISE_MEM_WORDS, 42);
    CHECK(d != 0);
    printf("digest %016" PRIx64 " hash %016" PRIx64 "\n", d, rnic_hash64("rnicq", 5, 42));
}

int main(void)
{
    RUN(test_scenario_runs);
    return test_summary();
}
