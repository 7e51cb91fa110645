/* The engines' code for the unit tests: compiled once per test configuration (gcc, clang,
 * portable arithmetic) and linked into every unit-test program, which includes the headers
 * with RNIC_ENGINES_LINKED (it keeps the common inline implementation, rnic_hash64 and the
 * trace digest, and leaves the engines to this object). */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
