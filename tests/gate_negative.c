/* Negative control for the symbol gates: this object breaks every rule (an unprefixed
 * global, a float operation, a 64-bit division, an allocation), so the gates must flag it.
 * A gate that passes this file is broken. */
#include <stdint.h>
#include <stddef.h>
void *malloc(size_t n);
int unprefixed_global;
float gate_bad_float(float a, float b);
float gate_bad_float(float a, float b) { return a * b; }
uint64_t gate_bad_div(uint64_t a, uint64_t b);
uint64_t gate_bad_div(uint64_t a, uint64_t b) { return a / b; }
void *gate_bad_alloc(size_t n);
void *gate_bad_alloc(size_t n) { return malloc(n); }
