/* Error codes, their descriptions and per-cause counters, generated from ONE X-macro list
 * so that the enum, rnic_strerror() and the counters cannot drift apart. */
#include "base.h"

/* X(name, description) */
#define RNIC_ERR_LIST(X)                                                          \
    X(OK, "ok")                                                                   \
    X(EINVAL, "invalid argument (null pointer, zero or absurd size, bad config)") \
    X(EBUSY, "port full or unit busy this cycle: retry later (back-pressure)")    \
    X(ENOSPC, "out of space (caller memory, table or id pool too small)")         \
    X(ERANGE, "value outside the supported range (rate, length, time span)")      \
    X(EPERM, "access outside the caller's protection domain")                     \
    X(ENOENT, "unknown id")                                                       \
    X(EEXIST, "already present (id queued or registered twice)")                  \
    X(EEMPTY, "nothing to take (empty queue or port)")                            \
    X(ESTALE, "stale, duplicate or out-of-window sequence number")                \
    X(ESTATE, "operation not valid in the current state")                         \
    X(EALIGN, "misaligned address or bad byte strobes")

#define RNIC__ERR_ENUM(name, text) RNIC_##name,
typedef enum rnic_err { RNIC_ERR_LIST(RNIC__ERR_ENUM) RNIC_ERR__COUNT } rnic_err;
#undef RNIC__ERR_ENUM

/* Human-readable description of an error code; never NULL. Define RNIC_NO_STRERROR to
 * compile the strings out (firmware): every code then reads "rnicq error". */
RNIC_INLINE const char *rnic_strerror(rnic_err e)
{
#ifdef RNIC_NO_STRERROR
    (void)e;
    return "rnicq error";
#else
#define RNIC__ERR_TEXT(name, text) "RNIC_" #name ": " text,
    static const char *const text[] = { RNIC_ERR_LIST(RNIC__ERR_TEXT) };
#undef RNIC__ERR_TEXT
    unsigned i = (unsigned)e;
    return i < (unsigned)RNIC_ERR__COUNT ? text[i] : "RNIC_?: unknown error code";
#endif
}

/* Short symbolic name ("EBUSY"), for reports and CSV columns. */
RNIC_INLINE const char *rnic_err_name(rnic_err e)
{
#define RNIC__ERR_NAME(name, text) #name,
    static const char *const name[] = { RNIC_ERR_LIST(RNIC__ERR_NAME) };
#undef RNIC__ERR_NAME
    unsigned i = (unsigned)e;
    return i < (unsigned)RNIC_ERR__COUNT ? name[i] : "?";
}

/* Per-cause error counters: every engine embeds one and counts each rejected input. */
typedef struct rnic_err_stats {
    uint64_t by_cause[RNIC_ERR__COUNT]; /* by_cause[RNIC_OK] stays 0 */
} rnic_err_stats;

/* Count `e` (unless it is RNIC_OK) and return it: `return rnic_err_note(&s, RNIC_EINVAL);` */
RNIC_INLINE rnic_err rnic_err_note(rnic_err_stats *s, rnic_err e)
{
    unsigned i = (unsigned)e;
    if (s && i != (unsigned)RNIC_OK && i < (unsigned)RNIC_ERR__COUNT)
        s->by_cause[i]++;
    return e;
}

/* Sum of all counted errors. */
RNIC_INLINE uint64_t rnic_err_total(const rnic_err_stats *s)
{
    uint64_t sum = 0;
    unsigned i;
    for (i = 1; i < (unsigned)RNIC_ERR__COUNT; i++)
        sum += s->by_cause[i];
    return sum;
}
