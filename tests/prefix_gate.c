/* Every header with every implementation, no main: `nm --defined-only -g` on this object
 * must list only symbols with rnicq's prefixes (rnic_ rl_ rq_ tp_ hcc_). */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
