/* rnicq.h: linkage and version. */
#define RQ_VERSION_MAJOR 0
#define RQ_VERSION_MINOR 1
#define RQ_VERSION_PATCH 0

/* RQ_API decorates every public function: extern by default, `static` when the user
 * defines RQ_STATIC (then implement the header in each translation unit that uses it).
 * Define RQ_API yourself to add visibility or calling-convention attributes. */
#ifndef RQ_API
#ifdef RQ_STATIC
#define RQ_API static
#else
#define RQ_API extern
#endif
#endif
