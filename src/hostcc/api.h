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

/* ---- RHCC (docs/hostcc_model.md; the shapes every engine shares: docs/engine_contract.md) ---- */

/* rnic_work.flags bits of hostcc.h. HCC_WORK_CE is the same bit as transport.h's TP_WORK_ECN, so
 * a packet the host marks is an ECN-marked packet to tp_rx's DCQCN notification point. */
#define HCC_WORK_CE (2u << RNIC_WORK_ENGINE_SHIFT)
#define HCC_WORK_PROBE (8u << RNIC_WORK_ENGINE_SHIFT) /* a sender-controller probe (clear of transport.h's 1, 2, 4) */

/* The paper's five MBA levels (§3.2, footnote 3): bandwidth left to CPU traffic, in b/s (the
 * paper's 33.2 / 26.5 / 20 / 15 / 10 GB/s x 8). */
#define HCC_MBA_LEVELS 5u
#define HCC_MBA_LEVEL_0_BPS (8u * 33200000000ull)
#define HCC_MBA_LEVEL_1_BPS (8u * 26500000000ull)
#define HCC_MBA_LEVEL_2_BPS (8u * 20000000000ull)
#define HCC_MBA_LEVEL_3_BPS (8u * 15000000000ull)
#define HCC_MBA_LEVEL_4_BPS (8u * 10000000000ull)
