/* ratelimit.h: linkage and version. */
#define RL_VERSION_MAJOR 0
#define RL_VERSION_MINOR 1
#define RL_VERSION_PATCH 0

/* RL_API decorates every public function: extern by default, `static` when the user
 * defines RL_STATIC (then implement the header in each translation unit that uses it).
 * Define RL_API yourself to add visibility or calling-convention attributes. */
#ifndef RL_API
#ifdef RL_STATIC
#define RL_API static
#else
#define RL_API extern
#endif
#endif
