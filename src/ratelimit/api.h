/* ratelimit.h: linkage and version. */
#define RL_VERSION_MAJOR 0
#define RL_VERSION_MINOR 1
#define RL_VERSION_PATCH 0

/* RL_API decorates every public function: extern by default, `static` when the user
 * defines RL_STATIC (then implement the header in each translation unit that uses it; the
 * functions a unit does not call raise no unused-function warning).
 * Define RL_API yourself to add visibility or calling-convention attributes. */
#ifndef RL_API
#ifdef RL_STATIC
#define RL_API static RNIC__MAYBE_UNUSED
#else
#define RL_API extern
#endif
#endif

/* The version of the ratelimit.h implementation linked in, e.g. "ratelimit.h 0.1.0 (common 100)".
 * Compare it with RL_VERSION_* to catch a translation unit built from another release. */
RL_API const char *rl_version(void);
