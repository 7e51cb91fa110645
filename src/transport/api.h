/* transport.h: linkage and version. */
#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 1
#define TP_VERSION_PATCH 0

/* TP_API decorates every public function: extern by default, `static` when the user
 * defines TP_STATIC (then implement the header in each translation unit that uses it).
 * Define TP_API yourself to add visibility or calling-convention attributes. */
#ifndef TP_API
#ifdef TP_STATIC
#define TP_API static
#else
#define TP_API extern
#endif
#endif
