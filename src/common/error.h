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

/* Refusal reasons. The only refusal counter is an engine's stats.errors (by error code); where
 * a finer breakdown helps, the engine lists its reasons ONCE, in the style of RNIC_ERR_LIST:
 *
 *   #define X_REASONS(R) \
 *       R(X_REASON_<NAME>, RNIC_E<CODE>, <counter>, "message naming the config field to change")
 *
 * and RNIC_REASONS(x, X, X_REASONS) (at file scope, no semicolon after it) generates
 *   typedef enum x_reason { X_REASON_<NAME>, ..., X_REASON__COUNT } x_reason;
 *   typedef struct x_reason_stats { uint64_t <counter>; ... } x_reason_stats;  (x_stats.reasons)
 *   const char *x_reason_message(x_reason);  the message ("?" for an unknown reason)
 *   rnic_err x_reason_code(x_reason);        its error code (RNIC_EINVAL for an unknown reason)
 *   rnic_err x__reason_note(x_reason_stats *, rnic_err_stats *, x_reason);
 *                                             count one refusal: its reason counter and its code
 *                                             in errors (one event, two views), return the code.
 * No reason counts an event another reason counts. RNIC_NO_STRERROR compiles the messages out. */
#define RNIC__REASON_ENUM(name, code, counter, msg) name,
#define RNIC__REASON_FIELD(name, code, counter, msg) uint64_t counter;
#define RNIC__REASON_CODE(name, code, counter, msg) \
    case name:                                      \
        return code;
#define RNIC__REASON_NOTE(name, code, counter, msg) \
    case name:                                      \
        s->counter++;                               \
        break;
#ifdef RNIC_NO_STRERROR
#define RNIC__REASON_MSG(name, code, counter, msg) "rnicq refusal",
#else
#define RNIC__REASON_MSG(name, code, counter, msg) msg,
#endif
#define RNIC_REASONS(x, X, LIST)                                                                   \
    typedef enum x##_reason { LIST(RNIC__REASON_ENUM) X##_REASON__COUNT } x##_reason;              \
    typedef struct x##_reason_stats {                                                              \
        LIST(RNIC__REASON_FIELD)                                                                   \
    } x##_reason_stats;                                                                            \
    RNIC_INLINE const char *x##_reason_message(x##_reason r)                                       \
    {                                                                                              \
        static const char *const msg[] = { LIST(RNIC__REASON_MSG) "?" };                           \
        unsigned i = (unsigned)r;                                                                  \
        return msg[i < (unsigned)X##_REASON__COUNT ? i : (unsigned)X##_REASON__COUNT];             \
    }                                                                                              \
    RNIC_INLINE rnic_err x##_reason_code(x##_reason r)                                             \
    {                                                                                              \
        switch (r) {                                                                               \
            LIST(RNIC__REASON_CODE)                                                                \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        return RNIC_EINVAL;                                                                        \
    }                                                                                              \
    RNIC_INLINE rnic_err x##__reason_note(x##_reason_stats *s, rnic_err_stats *errors, x##_reason r) \
    {                                                                                              \
        switch (r) {                                                                               \
            LIST(RNIC__REASON_NOTE)                                                                \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        return rnic_err_note(errors, x##_reason_code(r));                                          \
    }
