/* hostcc.h: linkage and version. */
#define HCC_VERSION_MAJOR 0
#define HCC_VERSION_MINOR 1
#define HCC_VERSION_PATCH 0

/* HCC_API decorates every public function: extern by default, `static` when the user
 * defines HCC_STATIC (then implement the header in each translation unit that uses it).
 * Define HCC_API yourself to add visibility or calling-convention attributes. */
#ifndef HCC_API
#ifdef HCC_STATIC
#define HCC_API static
#else
#define HCC_API extern
#endif
#endif
