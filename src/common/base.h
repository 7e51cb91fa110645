/* Common base: the only headers the core needs, version, linkage and portability macros.
 *
 * The core includes nothing but <stdint.h> <stddef.h> <stdbool.h> <limits.h>, so every
 * header compiles freestanding. memcpy/memset/assert go through overridable macros. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <limits.h>

/* Version of the common core: major*10000 + minor*100 + patch. Two rnicq headers that
 * carry different common cores refuse to be included together (#error). */
#define RNIC_COMMON_VERSION 200
#define RNIC_VERSION_STRING "0.2.0"

#ifdef __cplusplus
#define RNIC_EXTERN_C_BEGIN extern "C" {
#define RNIC_EXTERN_C_END }
#else
#define RNIC_EXTERN_C_BEGIN
#define RNIC_EXTERN_C_END
#endif

/* Common code is `static inline`: two files that implement two different rnicq headers
 * then link together without duplicate symbols. */
#define RNIC_INLINE static inline

/* No-op marker for an absent index ("none"): every id in rnicq is a uint32_t < RNIC_NONE. */
#define RNIC_NONE UINT32_MAX

#if defined(__GNUC__) || defined(__clang__)
#define RNIC__MAYBE_UNUSED __attribute__((unused))
#define RNIC__LIKELY(x) __builtin_expect(!!(x), 1)
#define RNIC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define RNIC__MAYBE_UNUSED
#define RNIC__LIKELY(x) (x)
#define RNIC__UNLIKELY(x) (x)
#endif

/* memcpy/memset: builtins by default (no <string.h> needed); a freestanding build may
 * still get calls to memcpy/memset from the compiler, which every C runtime provides. */
#ifndef RNIC_MEMCPY
#if defined(__GNUC__) || defined(__clang__)
#define RNIC_MEMCPY(dst, src, n) __builtin_memcpy((dst), (src), (n))
#else
#include <string.h>
#define RNIC_MEMCPY(dst, src, n) memcpy((dst), (src), (n))
#endif
#endif
#ifndef RNIC_MEMSET
#if defined(__GNUC__) || defined(__clang__)
#define RNIC_MEMSET(dst, byte, n) __builtin_memset((dst), (byte), (n))
#else
#include <string.h>
#define RNIC_MEMSET(dst, byte, n) memset((dst), (byte), (n))
#endif
#endif

/* Internal invariants: checked only when RNIC_DEBUG is defined (or RNIC_ASSERT is
 * overridden). Bad *input* is never an assertion: it is an error code and a statistic. */
#ifndef RNIC_ASSERT
#ifdef RNIC_DEBUG
#include <assert.h>
#define RNIC_ASSERT(x) assert(x)
#else
#define RNIC_ASSERT(x) ((void)0)
#endif
#endif

/* Caller-owned memory is carved into arrays with this alignment (enough for uint64_t). */
#define RNIC_MEM_ALIGN 8u
RNIC_INLINE size_t rnic_align_up(size_t n) { return (n + (RNIC_MEM_ALIGN - 1u)) & ~(size_t)(RNIC_MEM_ALIGN - 1u); }

/* Reserve an aligned array of n elements of elem bytes at offset *off of a layout: *at gets
 * its offset and *off moves past it. False when the layout would exceed size_t (a 32-bit
 * target asked for more than its address space); layouts then call the config invalid. */
RNIC_INLINE bool rnic__mem_reserve(size_t *off, size_t n, size_t elem, size_t *at)
{
    if (*off > SIZE_MAX - RNIC_MEM_ALIGN || (elem != 0 && n > (SIZE_MAX - RNIC_MEM_ALIGN - *off) / elem))
        return false;
    *at = *off;
    *off += rnic_align_up(n * elem);
    return true;
}

/* Layout helpers for the X_MEM_SIZE macros (constant expressions that mirror an engine's
 * layout): n elements of `type` rounded up to RNIC_MEM_ALIGN, as rnic__mem_reserve does. */
#define RNIC__MEM_ALIGN_UP(n) (((uint64_t)(n) + (RNIC_MEM_ALIGN - 1u)) & ~(uint64_t)(RNIC_MEM_ALIGN - 1u))
#define RNIC__MEM_PART(n, type) ((size_t)RNIC__MEM_ALIGN_UP((uint64_t)(n) * sizeof(type)))
/* Bits needed to write x (0 for 0), for x < 2^17, as a constant expression. */
#define RNIC__BITLEN(x)                                                                                    \
    (((uint64_t)(x) >= 1u) + ((uint64_t)(x) >= 2u) + ((uint64_t)(x) >= 4u) + ((uint64_t)(x) >= 8u) +        \
     ((uint64_t)(x) >= 16u) + ((uint64_t)(x) >= 32u) + ((uint64_t)(x) >= 64u) + ((uint64_t)(x) >= 128u) +   \
     ((uint64_t)(x) >= 256u) + ((uint64_t)(x) >= 512u) + ((uint64_t)(x) >= 1024u) +                        \
     ((uint64_t)(x) >= 2048u) + ((uint64_t)(x) >= 4096u) + ((uint64_t)(x) >= 8192u) +                       \
     ((uint64_t)(x) >= 16384u) + ((uint64_t)(x) >= 32768u) + ((uint64_t)(x) >= 65536u))
/* The smallest power of two >= k (1 <= k <= 2^17), as a constant expression. */
#define RNIC__POW2_AT_LEAST(k) ((uint64_t)1 << RNIC__BITLEN((uint64_t)(k) - 1u))
