/* What every benchmark here needs: a monotonic clock and a way to keep the timed function out
 * of line (so that callgrind can toggle on it by name). Define _POSIX_C_SOURCE >= 199309L
 * before any system header in the benchmark that includes this. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif
