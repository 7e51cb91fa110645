/* The second unit: implements rnicq.h and also includes (without implementing) transport.h. */
#define RQ_IMPLEMENTATION
#include "rnicq.h"
#include "transport.h"
#include "exercise.h"

uint64_t link_b_digest(uint64_t *mem, size_t words);
uint64_t link_b_digest(uint64_t *mem, size_t words)
{
    return exercise_common(mem, words, 42) ^ rnic_hash64("a", 1, 0);
}
