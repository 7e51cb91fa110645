/* hostcc.h: linkage and version. */
#define HCC_VERSION_MAJOR 0
#define HCC_VERSION_MINOR 1
#define HCC_VERSION_PATCH 0

/* HCC_API decorates every public function: extern by default, `static` when the user
 * defines HCC_STATIC (then implement the header in each translation unit that uses it; the
 * functions a unit does not call raise no unused-function warning).
 * Define HCC_API yourself to add visibility or calling-convention attributes. */
#ifndef HCC_API
#ifdef HCC_STATIC
#define HCC_API static RNIC__MAYBE_UNUSED
#else
#define HCC_API extern
#endif
#endif

/* The version of the hostcc.h implementation linked in, e.g. "hostcc.h 0.1.0 (common 100)".
 * Compare it with HCC_VERSION_* to catch a translation unit built from another release. */
HCC_API const char *hcc_version(void);
