/* rnic_hash64(): the one hash every engine uses (flow hashing for multipath/ECMP, flow
 * lookup, trace digests). It is always XXH64, whichever code computes it:
 *   - the system's xxHash (Debian libxxhash-dev), compiled inline (XXH_INLINE_ALL) into the
 *     implementing translation unit only, when the compiler says `__has_include(<xxhash.h>)`;
 *   - otherwise (no __has_include, no <xxhash.h>, or RNIC_NO_XXHASH defined to force it) a
 *     built-in XXH64 written from the public specification (xxHash's doc/xxhash_spec.md):
 *     no libc, byte-wise little-endian reads (any target, any alignment), no divide.
 * Both give bit-identical values (tests/test_hash.c compares them), so a trace digest is the
 * same whichever was used. RNIC_HASH_BUILTIN tells which: 1 built-in, 0 system xxHash
 * (left undefined when you define RNIC_HASH64 yourself).
 *
 * Override: define RNIC_HASH64(data, len, seed) to your own function-like macro before
 * including the implementation. */

/* ---- built-in XXH64: always compiled (the tests call it next to the system's) ---- */
#define RNIC__XXH_P1 0x9E3779B185EBCA87ull
#define RNIC__XXH_P2 0xC2B2AE3D27D4EB4Full
#define RNIC__XXH_P3 0x165667B19E3779F9ull
#define RNIC__XXH_P4 0x85EBCA77C2B2AE63ull
#define RNIC__XXH_P5 0x27D4EB2F165667C5ull

/* Little-endian lanes read byte by byte: correct on big-endian and strict-alignment targets;
 * compilers fuse them into one load where that is legal. */
RNIC_INLINE uint64_t rnic__xxh_read64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

RNIC_INLINE uint64_t rnic__xxh_read32(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

/* The spec's round: one 8-byte lane into one accumulator. */
RNIC_INLINE uint64_t rnic__xxh_round(uint64_t acc, uint64_t lane)
{
    acc += lane * RNIC__XXH_P2;
    return rnic__rotl64(acc, 31) * RNIC__XXH_P1;
}

/* The spec's merge step of one accumulator into the converged value. */
RNIC_INLINE uint64_t rnic__xxh_merge(uint64_t h, uint64_t acc)
{
    h ^= rnic__xxh_round(0, acc);
    return h * RNIC__XXH_P1 + RNIC__XXH_P4;
}

/* The spec's convergence of the four accumulators after the stripes. */
RNIC_INLINE uint64_t rnic__xxh_converge(uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
    uint64_t h = rnic__rotl64(a1, 1) + rnic__rotl64(a2, 7) + rnic__rotl64(a3, 12) + rnic__rotl64(a4, 18);
    h = rnic__xxh_merge(h, a1);
    h = rnic__xxh_merge(h, a2);
    h = rnic__xxh_merge(h, a3);
    return rnic__xxh_merge(h, a4);
}

/* The spec's final avalanche. */
RNIC_INLINE uint64_t rnic__xxh_avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= RNIC__XXH_P2;
    h ^= h >> 29;
    h *= RNIC__XXH_P3;
    return h ^ (h >> 32);
}

/* XXH64 of len bytes at data (data may be NULL when len is 0). */
RNIC_INLINE uint64_t rnic__xxh64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t left = len;
    uint64_t h;
    if (left >= 32) { /* four accumulators over 32-byte stripes */
        uint64_t a1 = seed + RNIC__XXH_P1 + RNIC__XXH_P2, a2 = seed + RNIC__XXH_P2;
        uint64_t a3 = seed, a4 = seed - RNIC__XXH_P1;
        do {
            a1 = rnic__xxh_round(a1, rnic__xxh_read64(p));
            a2 = rnic__xxh_round(a2, rnic__xxh_read64(p + 8));
            a3 = rnic__xxh_round(a3, rnic__xxh_read64(p + 16));
            a4 = rnic__xxh_round(a4, rnic__xxh_read64(p + 24));
            p += 32;
            left -= 32;
        } while (left >= 32);
        h = rnic__xxh_converge(a1, a2, a3, a4);
    } else {
        h = seed + RNIC__XXH_P5;
    }
    h += (uint64_t)len;
    for (; left >= 8; p += 8, left -= 8) { /* the tail: 8-byte, then 4-byte, then 1-byte lanes */
        h ^= rnic__xxh_round(0, rnic__xxh_read64(p));
        h = rnic__rotl64(h, 27) * RNIC__XXH_P1 + RNIC__XXH_P4;
    }
    if (left >= 4) {
        h ^= rnic__xxh_read32(p) * RNIC__XXH_P1;
        h = rnic__rotl64(h, 23) * RNIC__XXH_P2 + RNIC__XXH_P3;
        p += 4;
        left -= 4;
    }
    for (; left > 0; p++, left--) {
        h ^= (uint64_t)*p * RNIC__XXH_P5;
        h = rnic__rotl64(h, 11) * RNIC__XXH_P1;
    }
    return rnic__xxh_avalanche(h);
}

/* ---- which XXH64 rnic_hash64 calls ---- */
#ifndef RNIC_HASH64
#ifndef RNIC_NO_XXHASH
#ifdef __has_include
#if __has_include(<xxhash.h>)
#define RNIC__USE_SYSTEM_XXHASH
#endif
#endif
#endif

#ifdef RNIC__USE_SYSTEM_XXHASH
#undef RNIC__USE_SYSTEM_XXHASH
#define RNIC_HASH_BUILTIN 0
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
#else
#define RNIC_HASH_BUILTIN 1
#define RNIC_HASH64(data, len, seed) rnic__xxh64((data), (len), (seed))
#endif
#endif

/* 64-bit hash of len bytes at data with a seed. */
static inline uint64_t rnic_hash64(const void *data, size_t len, uint64_t seed)
{
    return (uint64_t)RNIC_HASH64(data, len, seed);
}

/* XXH64 of exactly 32 bytes given as their four little-endian 8-byte lanes: the spec's one
 * stripe, no tail. A trace event's canonical form is four such lanes, so the digest needs no
 * byte serialisation (the fold ran at ~600 instructions per event through the byte buffer). */
RNIC_INLINE uint64_t rnic__xxh64_lanes4(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3, uint64_t seed)
{
    return rnic__xxh_avalanche(rnic__xxh_converge(rnic__xxh_round(seed + RNIC__XXH_P1 + RNIC__XXH_P2, l0),
                                                  rnic__xxh_round(seed + RNIC__XXH_P2, l1), rnic__xxh_round(seed, l2),
                                                  rnic__xxh_round(seed - RNIC__XXH_P1, l3)) +
                               32u);
}

/* Fold one trace event into a running digest: XXH64 of its canonical 32 bytes, seeded with
 * the digest so far (order matters). Start from any fixed value, e.g. 0. With the hash left
 * as XXH64 (system or built-in: bit-identical) the lanes are hashed directly; a user's own
 * RNIC_HASH64 gets the serialised bytes. */
static inline uint64_t rnic_trace_digest_fold(uint64_t digest, const rnic_trace_event *ev)
{
#ifdef RNIC_HASH_BUILTIN
    return rnic__xxh64_lanes4(ev->cycle,
                              (uint64_t)ev->engine | (uint64_t)ev->kind << 16 | (uint64_t)ev->id << 32,
                              ev->a, ev->b, digest);
#else
    unsigned char buf[RNIC_TRACE_BYTES];
    rnic_trace_serialize(ev, buf);
    return rnic_hash64(buf, sizeof buf, digest);
#endif
}

/* A ready-made rnic_trace_fn: user points to a uint64_t digest. */
static inline void rnic_trace_digest_hook(void *user, const rnic_trace_event *ev)
{
    uint64_t *digest = (uint64_t *)user;
    *digest = rnic_trace_digest_fold(*digest, ev);
}
