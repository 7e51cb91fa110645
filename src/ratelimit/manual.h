/* ratelimit.h -- Tassel: an accurate, scalable rate limiter for RDMA NICs, cycle by cycle.
 *
 * Paper: "Accurate and Scalable Rate Limiter for RDMA NICs" (Tassel), APNet 2023
 * (shared/seeds/000). Exact cycle semantics: docs/tassel_model.md.
 *
 * WHAT IT MODELS
 *   WF2Q+ non-work-conserving rate limiting per QP (start = max(finish, system time) on
 *   activation, finish = start + len / rate, eligible when start <= system time, smallest
 *   finish first, one packet at a time on an idle link); the oversubscription fallback
 *   (the system time slows down by max(1, Phi), so every QP gets rate / Phi: weighted
 *   sharing); the cache-free scheduler: EMUX events
 *   (doorbell, rate update, credit update), a schedule FIFO, WQE fetches of n WQEs through
 *   the caller's WQE source with the PCIe latency, fetch-and-drop (m urgent packets kept in
 *   a k-entry descriptor buffer, the rest cut again next round), rescheduling at
 *   max(start of packet min(m+1, n), activation time) through a P-heap timeline whose
 *   timing is modelled (one operation every 2 cycles, height cycles each).
 *
 * DO THIS
 *   #define RL_IMPLEMENTATION            // (or RNIC_IMPLEMENTATION) in one .c file
 *   #include "ratelimit.h"
 *
 *   static uint32_t my_wqes(void *u, uint32_t qp, uint32_t seq, rl_wqe *out, uint32_t max)
 *   { ... copy up to max WQEs {id, len} of qp, from its seq-th, into out; return count ... }
 *
 *   rl_config cfg; rl *r = malloc(sizeof *r); void *mem;
 *   rl_config_default(&cfg);            // 250 MHz, 100 Gb/s, 1024 QPs, n = 8, k = 60
 *   cfg.fetch = my_wqes;
 *   mem = malloc(rl_mem_size(&cfg));    // or a static buffer: caller-owned, 8-byte aligned
 *   rl_init(r, &cfg, mem, rl_mem_size(&cfg));
 *   rl_push_rate(r, 7, 25000000000ull); // QP 7 at 25 Gb/s (e.g. min(R_cc, R_rev))
 *   rl_push_doorbell(r, 7);             // QP 7 has WQEs
 *   for (;;) {
 *       rl_tx tx;
 *       rl_advance(r, 1000);            // or rl_tick(r) each cycle
 *       while (rl_pop_tx(r, &tx) == RNIC_OK)
 *           send(tx.qp, tx.wqe_id, tx.offset, tx.len, tx.cycle);
 *   }
 *
 * CONFIG (rl_config; rl_config_default sets the defaults)
 *   clock_hz 250 MHz | link_bps 100 Gb/s (<= 800 Gb/s) | min_rate_bps 100 Kb/s |
 *   max_qps 1024 (<= 65536) | mtu 4096 | pcie_latency 250 cycles | fetch_wqes n = 8 (<= 64) |
 *   desc_capacity k = 60 (<= 256) | event_capacity 64 | tx_capacity 64 | fetch (required).
 *
 * PORTS (per cycle; latency)
 *   EMUX input (rl_push_*): any number of pushes between ticks up to event_capacity; one
 *     event applied per cycle (step 1). Full: RNIC_EBUSY.
 *   WQE fetch: one issued per cycle; the source is read L = pcie_latency cycles later.
 *   Timeline: one P-heap operation every 2 cycles, latency ceil(log2(max_qps + 1)) cycles.
 *   TX output (rl_pop_tx): at most one packet per cycle, and only when the link is idle
 *     (link busy len / link rate); a full port stalls transmission (back-pressure).
 *
 * LIMITS AND WHAT IT DOES NOT DO
 *   One QP sends at most n packets per fetch round trip (L + height + 1 cycles): with n = 8,
 *   4 KB packets and 1 us that is ~260 Gb/s, so a 400 G link needs n = 16 for one QP at
 *   line rate. The timeline orders whole virtual cycles (ties in insertion order); the
 *   software timeline is a radix heap (exact P-heap order, its hardware timing modelled) and
 *   the descriptor buffer two small heaps, so a cycle's cost does not grow with max_qps.
 *   A fetch is issued only while the descriptor buffer has a slot for it (one reserved per
 *   fetch in flight; counted in fetch_gated). Under exactly 100 % booked load (Phi = 2 at
 *   64 K QPs) the paper's k = 60 leaves the fastest QPs short; k = 256 does not
 *   (README, Fig. 8).
 *   A start time beyond the horizon cannot occur: a packet's span is at most
 *   mtu * cpb < 2^16 * 2^32 = 2^48 cycles by construction, and times wrap modulo 2^64.
 *   No packet payload, no transport: it decides who sends what, when.
 *
 * ERRORS
 *   Refused input returns an rnic_err, is counted in rl_get_stats()->errors, and changes
 *   nothing: unknown QP RNIC_ENOENT, rate outside [min_rate, link] RNIC_ERANGE, bad config
 *   or memory RNIC_EINVAL, too little memory RNIC_ENOSPC, a WQE with length 0 or > 2^31
 *   from the source RNIC_EINVAL (it ends the usable data of that fetch; the QP reads from
 *   there again at its next round or doorbell, and each reading is counted).
 *
 * Conventions (all rnicq headers): prefix rl_/RL_; define RL_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; RL_STATIC makes the API static;
 * no allocation, no floating point, no globals; see README.md.
 */
