// Mixed-language linking, C++ side: calls the C-compiled implementation (tests/mixed_impl.c).
// Built the other way round too: this file compiled as the implementation in C++ and called
// from tests/mixed_user_c.c.
#ifdef MIXED_IMPLEMENT_HERE
#define RNIC_IMPLEMENTATION
#endif
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include <cstring>
#include "test.h"

static void test_version_functions_link()
{
    CHECK(std::strncmp(rl_version(), "ratelimit.h ", 12) == 0);
    CHECK(std::strncmp(rq_version(), "rnicq.h ", 8) == 0);
    CHECK(std::strncmp(tp_version(), "transport.h ", 12) == 0);
    CHECK(std::strncmp(hcc_version(), "hostcc.h ", 9) == 0);
}

#ifdef MIXED_IMPLEMENT_HERE
extern "C" int mixed_c_caller(void);
static void test_c_calls_cxx_implementation() { CHECK_EQ(mixed_c_caller(), 0); }
#endif

int main()
{
    RUN(test_version_functions_link);
#ifdef MIXED_IMPLEMENT_HERE
    RUN(test_c_calls_cxx_implementation);
#endif
    return test_summary();
}
