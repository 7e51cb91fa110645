/* Compiled with clang --target=riscv32/thumbv7em -ffreestanding -nostdlibinc (no libc
 * headers at all), and with gcc -mgeneral-regs-only on x86-64: every header and the whole
 * common core, exercised so the code is really emitted (and the hostcc.h engines' closed loop,
 * exercise_hostcc, called so its tick paths are emitted inline here too). tests/run.sh then gates the
 * object's undefined symbols with nm: no allocator, no soft-float, no 64-bit divide helper.
 * No define is needed: -nostdlibinc hides <xxhash.h>, so rnic_hash64 is the built-in XXH64. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "exercise.h"

#if (defined(__riscv) || defined(__arm__)) && !RNIC_HASH_BUILTIN
#error "-nostdlibinc should hide <xxhash.h>: rnic_hash64 must be the built-in XXH64 here"
#endif

uint64_t rnic_fs_run(uint64_t *mem, size_t words, uint64_t seed);
uint64_t rnic_fs_run(uint64_t *mem, size_t words, uint64_t seed)
{
    return exercise_common(mem, words, seed) ^ rnic_hash64(mem, 64, seed);
}

uint64_t rnic_fs_hostcc(uint64_t *mem, size_t words, uint64_t seed);
uint64_t rnic_fs_hostcc(uint64_t *mem, size_t words, uint64_t seed)
{
    exercise_hcc_report rep;
    uint64_t d = exercise_hostcc(mem, words, seed, &rep);
    return d ^ rep.packets_out ^ (rep.level_downs << 32);
}
