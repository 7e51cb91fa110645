/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_<engine>.c): a reader that decodes the
 * fuzzer's bytes into bounded values (past the end every read is 0, so any input is a valid
 * program), and the check that turns a broken invariant into a crash libFuzzer reports.
 * Each harness defines LLVMFuzzerTestOneInput; it is built with clang -fsanitize=fuzzer,
 * address,undefined (tools/fuzz.sh), or with tests/fuzz/replay_main.c by any compiler to run a
 * corpus (make test's replay under gcc, make coverage). */
#ifndef RNIC_FUZZ_H
#define RNIC_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fz_in {
    const uint8_t *p;
    size_t n, at;
} fz_in;

static inline void fz_init(fz_in *in, const uint8_t *data, size_t size)
{
    in->p = data;
    in->n = size;
    in->at = 0;
}

static inline int fz_more(const fz_in *in) { return in->at < in->n; }

static inline uint8_t fz_u8(fz_in *in) { return in->at < in->n ? in->p[in->at++] : 0u; }

static inline uint16_t fz_u16(fz_in *in)
{
    uint16_t v = fz_u8(in);
    return (uint16_t)(v | (uint16_t)(fz_u8(in) << 8));
}

static inline uint32_t fz_u32(fz_in *in)
{
    uint32_t v = fz_u16(in);
    return v | ((uint32_t)fz_u16(in) << 16);
}

static inline uint64_t fz_u64(fz_in *in)
{
    uint64_t v = fz_u32(in);
    return v | ((uint64_t)fz_u32(in) << 32);
}

/* A value in [0, n) (n > 0). */
static inline uint32_t fz_below(fz_in *in, uint32_t n) { return n ? fz_u32(in) % n : 0u; }

/* The extreme a selector 0..7 names: 0, 1, UINT64_MAX, UINT32_MAX, one past the bound hi, a power
 * of two, or raw bits (6, 7). */
static inline uint64_t fz_extreme(fz_in *in, unsigned which, uint64_t hi)
{
    switch (which) {
    case 0: return 0;
    case 1: return 1;
    case 2: return UINT64_MAX;
    case 3: return UINT32_MAX;
    case 4: return hi + 1u;
    case 5: return (uint64_t)1 << (fz_u8(in) & 63u);
    default: return fz_u64(in);
    }
}

/* Mostly-sane values with hostile ones mixed in: 1 in 8 reads is an extreme (0, 1, max,
 * max - 1, a power of two, or raw bits); the rest are in [lo, hi]. */
static inline uint64_t fz_hostile(fz_in *in, uint64_t lo, uint64_t hi)
{
    uint8_t sel = fz_u8(in);
    if ((sel & 7u) == 7u)
        return fz_extreme(in, (sel >> 3) & 7u, hi);
    if (hi <= lo)
        return lo;
    if (hi - lo == UINT64_MAX) /* the whole 64-bit range: hi - lo + 1 would wrap to 0 */
        return fz_u64(in);
    return lo + fz_u64(in) % (hi - lo + 1u);
}

/* A broken invariant: say which, where, and crash so libFuzzer keeps the input. */
#define FZ_CHECK(cond)                                                                      \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

/* The engine contract's counting rule for one call that answered rc: a refusal bumped its own
 * cause by exactly one and nothing else moved; an accepted call moved no counter. Needs an rnicq
 * header included before this file (rnic_err_stats). */
#define FZ_CHECK_COUNTED(before, now, rc)                                                           \
    do {                                                                                        \
        uint32_t fz__k;                                                                         \
        for (fz__k = 0; fz__k < (uint32_t)RNIC_ERR__COUNT; fz__k++)                             \
            FZ_CHECK((now)->by_cause[fz__k] ==                                                  \
                     (before)->by_cause[fz__k] + ((rc) != RNIC_OK && fz__k == (uint32_t)(rc))); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
