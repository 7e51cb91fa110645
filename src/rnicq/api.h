/* rnicq.h: linkage and version. */
#define RQ_VERSION_MAJOR 0
#define RQ_VERSION_MINOR 1
#define RQ_VERSION_PATCH 0

/* RQ_API decorates every public function: extern by default, `static` when the user
 * defines RQ_STATIC (then implement the header in each translation unit that uses it; the
 * functions a unit does not call raise no unused-function warning).
 * Define RQ_API yourself to add visibility or calling-convention attributes. */
#ifndef RQ_API
#ifdef RQ_STATIC
#define RQ_API static RNIC__MAYBE_UNUSED
#else
#define RQ_API extern
#endif
#endif

/* The version of the rnicq.h implementation linked in, e.g. "rnicq.h 0.1.0 (common 100)".
 * Compare it with RQ_VERSION_* to catch a translation unit built from another release. */
RQ_API const char *rq_version(void);
