/* hostcc.h -- RHCC: intra-host congestion control for RDMA, cycle by cycle.
 *
 * STATUS: the engine has not landed yet. This header carries the rnicq common core
 * (fixed-point time and rate, wrap-safe compares, ring bitmaps, bucket queue, shared-space
 * FIFO, bounded rings, PRNG, error codes) and this manual of what it will model.
 *
 * What it will model ("RHCC: rethinking intra-host congestion control in RDMA networks",
 * APNet 2024; shared/seeds/002):
 *   - the receiver controller: IIO buffer occupancy against a threshold selects one of five
 *     memory-bandwidth (MBA) levels, 33.2 / 26.5 / 20 / 15 / 10 GB/s;
 *   - the sender controller: a probe every 32 KB, R_rev updated by Eq. 1 (alpha = beta =
 *     0.0005 as fixed point, D_thr = 200 ns) and R_trans = min(R_rev, R_cc) (Eq. 2).
 *
 * Conventions (all rnicq headers): prefix hcc_/HCC_; define HCC_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; HCC_STATIC makes the API static;
 * no allocation, no floating point, no globals; every bad input is an rnic_err code
 * counted in the engine's statistics. See README.md.
 */
