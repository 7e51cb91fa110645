/* Every engine's implementation alone, for the code-size links of tools/firmware.sh (with
 * scenarios.c built with -DFW_ENGINES_APART): the engines' code then lives in this object only,
 * and --gc-sections keeps what a scenario calls. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"

/* The scenario driver's digest helpers, from this translation unit's common core. */
uint64_t fw_engines_hash64(const void *data, size_t len, uint64_t seed);
void fw_engines_digest_hook(void *user, const rnic_trace_event *ev);
uint64_t fw_engines_hash64(const void *data, size_t len, uint64_t seed) { return rnic_hash64(data, len, seed); }
void fw_engines_digest_hook(void *user, const rnic_trace_event *ev) { rnic_trace_digest_hook(user, ev); }
