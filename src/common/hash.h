/* rnic_hash64(): the one hash every engine uses (flow hashing for multipath/ECMP, flow
 * lookup, trace digests). It is XXH64 from the system's xxHash (Debian libxxhash-dev),
 * compiled inline (XXH_INLINE_ALL) into the implementing translation unit only.
 *
 * Override: define RNIC_HASH64(data, len, seed) to your own function-like macro before
 * including the implementation. Firmware without a C library can define RNIC_NO_XXHASH to
 * get a small built-in 64-bit mix instead (deterministic, but its values differ from XXH64,
 * so traces hashed that way are only comparable with other RNIC_NO_XXHASH builds). */
#ifndef RNIC_HASH64
#ifdef RNIC_NO_XXHASH
RNIC_INLINE uint64_t rnic__mix_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = seed ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull), x;
    size_t i = 0;
    while (i < len) { /* 8 bytes at a time, little-endian, last word zero-padded */
        size_t k;
        x = 0;
        for (k = 0; k < 8 && i < len; k++, i++)
            x |= (uint64_t)p[i] << (8u * k);
        h ^= rnic_splitmix64(&x);
        h = rnic__rotl64(h, 27) * 0x9e3779b97f4a7c15ull + 0x165667b19e3779f9ull;
    }
    return rnic_splitmix64(&h);
}
#define RNIC_HASH64(data, len, seed) rnic__mix_hash64((data), (len), (seed))
#else
/* Engines never allocate. xxHash 0.8.1 compiles its state allocators (XXH*_createState, which
 * rnicq never calls) into this TU, and at -O0 they would make engine objects reference
 * malloc/free. They are pointed at local no-ops while xxhash.h is read, so the `nm` gates
 * hold at every optimisation level. Consequence, documented in README: in the TU that
 * implements an rnicq header, xxHash's *_createState return NULL -- keep xxHash states on
 * the stack there (XXH64_state_t + XXH64_reset), or define RNIC_HASH64 yourself. A malloc or
 * free macro of the user's (a debug allocator) is saved and restored around this. */
#include <stdlib.h>
#include <string.h>
static inline void *rnic__xxh_no_malloc(size_t n) { (void)n; return NULL; }
static inline void rnic__xxh_no_free(void *p) { (void)p; }
#pragma push_macro("malloc")
#pragma push_macro("free")
#undef malloc
#undef free
#define malloc(n) rnic__xxh_no_malloc(n)
#define free(p) rnic__xxh_no_free(p)
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#define RNIC__DEFINED_XXH_INLINE_ALL
#endif
#include <xxhash.h>
#ifdef RNIC__DEFINED_XXH_INLINE_ALL
#undef XXH_INLINE_ALL
#undef RNIC__DEFINED_XXH_INLINE_ALL
#endif
#undef malloc
#undef free
#pragma pop_macro("free")
#pragma pop_macro("malloc")
#define RNIC_HASH64(data, len, seed) XXH64((data), (len), (seed))
#endif
#endif

/* 64-bit hash of len bytes at data with a seed. */
static inline uint64_t rnic_hash64(const void *data, size_t len, uint64_t seed)
{
    return (uint64_t)RNIC_HASH64(data, len, seed);
}

/* Fold one trace event into a running digest: XXH64 of its canonical 32 bytes, seeded with
 * the digest so far (order matters). Start from any fixed value, e.g. 0. */
static inline uint64_t rnic_trace_digest_fold(uint64_t digest, const rnic_trace_event *ev)
{
    unsigned char buf[RNIC_TRACE_BYTES];
    rnic_trace_serialize(ev, buf);
    return rnic_hash64(buf, sizeof buf, digest);
}

/* A ready-made rnic_trace_fn: user points to a uint64_t digest. */
static inline void rnic_trace_digest_hook(void *user, const rnic_trace_event *ev)
{
    uint64_t *digest = (uint64_t *)user;
    *digest = rnic_trace_digest_fold(*digest, ev);
}
