/* transport.h -- Tonic: programmable transport protocols in an RDMA NIC, cycle by cycle.
 *
 * STATUS: the engine has not landed yet. This header carries the rnicq common core
 * (fixed-point time and rate, wrap-safe compares, ring bitmaps with Tonic's find-first
 * from a moving head, bucket queue, shared-space FIFO, bounded rings, PRNG, error codes)
 * and this manual of what it will model.
 *
 * What it will model ("Tonic: programmable transport protocols in high-speed NICs",
 * NSDI 2020; shared/seeds/003):
 *   - the data delivery engine (which segment to send next: new, lost, timed out) and the
 *     credit engine (window, rate and grant-token credit) with per-flow segment rings;
 *   - the programmable incoming / periodic hooks and the conflict merge rules;
 *   - protocols Reno, NewReno, SACK, NDP, RoCEv2 + DCQCN and IRN, and the receiver.
 *
 * Conventions (all rnicq headers): prefix tp_/TP_; define TP_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; TP_STATIC makes the API static;
 * no allocation, no floating point, no globals; every bad input is an rnic_err code
 * counted in the engine's statistics. See README.md.
 */
