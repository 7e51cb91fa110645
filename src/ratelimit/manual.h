/* ratelimit.h -- Tassel: an accurate, scalable rate limiter for RDMA NICs, cycle by cycle.
 *
 * STATUS: the engine has not landed yet (issue #3). This header carries the rnicq common
 * core (fixed-point time and rate, wrap-safe compares, ring bitmaps, bucket queue,
 * shared-space FIFO, bounded rings, PRNG, error codes) and this manual of what it will model.
 *
 * What it will model (paper: "Tassel: accurate and scalable rate limiter for RNICs",
 * APNet 2023; shared/seeds/000):
 *   - WF2Q+ non-work-conserving rate limiting: per-QP start/finish times, eligibility
 *     start <= system time, smallest finish first, one packet at a time on an idle link;
 *   - the timeline: a timing wheel (1 cycle x 250 slots at 250 MHz = the PCIe latency) for
 *     urgent packets, a P-heap for QP rescheduling times with its hardware timing;
 *   - oversubscription: system time advances by delta * max(1, Phi);
 *   - the cache-free fetch-and-drop scheduler (n = 8 WQEs fetched, k = 60 descriptors);
 *   - any rate from 100 Kb/s to 800 Gb/s, up to 65,536 QPs, caller-owned memory.
 *
 * Conventions (all rnicq headers): prefix rl_/RL_; define RL_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; RL_STATIC makes the API static;
 * no allocation, no floating point, no globals; every bad input is an rnic_err code
 * counted in the engine's statistics. See README.md.
 */
