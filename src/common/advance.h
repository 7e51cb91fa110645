/* The one advance loop every engine's X_advance runs (docs/engine_contract.md, "advance"):
 * run `cycles` cycles, jumping over idle stretches and ticking where something happens, and
 * stop right after the tick in which an output port filled (the caller drains it, then calls
 * again). An engine supplies three functions:
 *
 *   skip(x, left)  skips the idle cycles from now on, at most `left` (> 0), moving its clock and
 *                  its per-cycle statistics as `skip` ticks would, and returns how many it
 *                  skipped: 0 when something happens in the current cycle (then it ticks);
 *   tick(x)        one cycle;
 *   full(x)        a bit per output port that is full (an engine whose ports stop advance only
 *                  when none was full before returns one bit for "any full").
 *
 * Flags: RNIC__ADVANCE_TICK_AFTER_SKIP ticks right after a skip that ended before `left` ran out
 * (the engine's skip stops exactly on its next event) instead of asking skip again.
 * Returns the cycles run (< cycles only when a port filled). Internal: engines wrap it. */
#include "base.h"

#define RNIC__ADVANCE_TICK_AFTER_SKIP 1u

typedef uint64_t (*rnic__skip_fn)(void *x, uint64_t left);
typedef void (*rnic__tick_fn)(void *x);
typedef uint32_t (*rnic__full_fn)(const void *x);

RNIC_INLINE uint64_t rnic__advance(void *x, uint64_t cycles, rnic__skip_fn skip, rnic__tick_fn tick,
                                   rnic__full_fn full, unsigned flags)
{
    uint64_t left = cycles;
    while (left) {
        uint64_t skipped = skip(x, left);
        uint32_t before;
        RNIC_ASSERT(skipped <= left);
        if (skipped) {
            left -= skipped;
            if (!left)
                break;
            if (!(flags & RNIC__ADVANCE_TICK_AFTER_SKIP))
                continue;
        }
        before = full(x);
        tick(x);
        left--;
        if (full(x) & ~before)
            break; /* an output port filled: the caller drains it */
    }
    return cycles - left;
}
