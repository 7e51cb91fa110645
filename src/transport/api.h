/* transport.h: linkage and version. */
#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 1
#define TP_VERSION_PATCH 0

/* TP_API decorates every public function: extern by default, `static` when the user
 * defines TP_STATIC (then implement the header in each translation unit that uses it; the
 * functions a unit does not call raise no unused-function warning).
 * Define TP_API yourself to add visibility or calling-convention attributes. */
#ifndef TP_API
#ifdef TP_STATIC
#define TP_API static RNIC__MAYBE_UNUSED
#else
#define TP_API extern
#endif
#endif

/* The version of the transport.h implementation linked in, e.g. "transport.h 0.1.0 (common 100)".
 * Compare it with TP_VERSION_* to catch a translation unit built from another release. */
TP_API const char *tp_version(void);
