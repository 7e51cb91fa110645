/* Mixed-language linking, C side: implements every header in C. tests/mixed_user.cpp calls
 * the implementation from C++, which links only if the headers' extern "C" guards are right. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
