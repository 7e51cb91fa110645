// Every rnicq header used from C++ (extern "C" guards, no C-only constructs), with the
// implementation in this translation unit. Prints the same digest as tests/digest.c.
#define RNIC_IMPLEMENTATION
#include "hostcc.h"
#include "transport.h"
#include "rnicq.h"
#include "ratelimit.h"
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>
#include "test.h"
#include "exercise.h"

namespace {
struct Pacer { // a C++ user wrapping the C API
    rnic_q32 cpb = 0;
    rnic_ftime next = rnic_ftime_at(0);
    rnic_err set_rate(uint64_t bps, uint64_t clock_hz) { return rnic_rate_to_cpb(bps, clock_hz, &cpb); }
    rnic_cycle send(uint64_t bytes) { rnic_ftime_add_bytes(&next, bytes, cpb); return rnic_ftime_ceil(next); }
};

void test_pacer_from_cpp()
{
    Pacer p;
    CHECK(p.set_rate(40000000000ull, 250000000u) == RNIC_OK);
    rnic_cycle last = 0;
    for (int i = 0; i < 1000; i++)
        last = p.send(1500);
    CHECK_EQ(last, 75000u); // 1500 B at 40 Gb/s = 300 ns = 75 cycles at 250 MHz
    CHECK(p.set_rate(0, 250000000u) == RNIC_EINVAL);
}

void test_structures_in_std_vector_memory()
{
    std::vector<uint64_t> mem(EXERCISE_MEM_WORDS);
    uint64_t d = exercise_common(mem.data(), mem.size(), 42);
    CHECK(d != 0);
    std::printf("digest %016" PRIx64 " hash %016" PRIx64 "\n", d, rnic_hash64("rnicq", 5, 42));
}

// The three hostcc.h engines in exercise_hostcc's closed loop, from C++ (memory in a vector):
// prints its digest, which must equal the C build's (tests/malloc_trap.c prints it too).
void test_hostcc_from_cpp()
{
    std::vector<uint64_t> mem(EXERCISE_HCC_MEM_WORDS);
    exercise_hcc_report rep;
    uint64_t d = exercise_hostcc(mem.data(), mem.size(), 42, &rep);
    CHECK(d != 0);
    CHECK(rep.packets_out > 0 && rep.level_downs > 0 && rep.probe_acks > 0);
    std::printf("hostcc exercise %016" PRIx64 "\n", d);
}

void test_strerror_from_cpp()
{
    std::string s = rnic_strerror(RNIC_EBUSY);
    CHECK(s.find("EBUSY") != std::string::npos);
}
} // namespace

int main()
{
    RUN(test_pacer_from_cpp);
    RUN(test_structures_in_std_vector_memory);
    RUN(test_strerror_from_cpp);
    RUN(test_hostcc_from_cpp);
    return test_summary();
}
