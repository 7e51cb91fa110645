/* Two translation units implementing two different headers link together: the common
 * core is static inline, so nothing is defined twice. This one implements ratelimit.h. */
#define RL_IMPLEMENTATION
#include "ratelimit.h"
#include "exercise.h"

uint64_t link_a_digest(uint64_t *mem, size_t words);
uint64_t link_a_digest(uint64_t *mem, size_t words)
{
    return exercise_common(mem, words, 42) ^ rnic_hash64("a", 1, 0);
}
