/* ratelimit.h -- Tassel: an accurate, scalable rate limiter for RDMA NICs, cycle by cycle.
 *
 * WHAT IT MODELS
 *   Paper: Zilong Wang, Xinchun Wan, Chaoliang Zeng, Kai Chen, "Accurate and Scalable Rate
 *   Limiter for RDMA NICs", 7th Asia-Pacific Workshop on Networking (APNet 2023). Exact cycle
 *   semantics, step by step: docs/tassel_model.md; the shapes every engine shares:
 *   docs/engine_contract.md.
 *   WF2Q+ non-work-conserving rate limiting per QP (start = max(finish, system time) on
 *   activation, finish = start + len / rate, eligible when start <= system time, smallest
 *   finish first, one packet at a time on an idle link); the oversubscription fallback
 *   (the system time slows down by max(1, Phi), so every QP gets rate / Phi: weighted
 *   sharing); the cache-free scheduler: per-flow registers
 *   (doorbell, rate, credit) applied by the EMUX, a schedule FIFO, WQE fetches of n WQEs through
 *   the caller's WQE source with the PCIe latency, fetch-and-drop (m urgent packets kept in
 *   a k-entry descriptor buffer, the rest cut again next round), rescheduling at
 *   max(start of packet min(m+1, n), activation time) through a P-heap timeline whose
 *   timing is modelled (one operation every 2 cycles, height cycles each). Beyond the
 *   paper: a rate write re-times what is already scheduled for the flow (a raise acts within
 *   a packet time at the new rate, a cut never lets an old-rate packet leave early), rate 0
 *   pauses, and a bad WQE completes as an error record (docs/tassel_model.md).
 *   Option (not in the paper): cfg.schedule_queue = RL_SCHEDULE_RANKED replaces the FIFO by a
 *   queue ranked by virtual finish, adds a reschedule wheel for near keys and lets an urgent
 *   packet displace a stored one that finishes later: a fast flow no longer starves when many
 *   slow flows come due together (examples/tassel_storm.c; docs/tassel_model.md,
 *   "Schedule-queue option").
 *   More programs: examples/tassel_accuracy.c (Fig. 7), tassel_scale.c (Fig. 8),
 *   tassel_rate_change.c, tassel_storm.c.
 *
 * DO THIS (the steps as a complete program; the tests compile and run it as C and C++)
 *   #define RL_IMPLEMENTATION            // (or RNIC_IMPLEMENTATION) in one .c file
 *   #include "ratelimit.h"
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   // The flows' WQEs by free-running index (non-destructive: copy, never consume).
 *   static uint32_t wqes(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
 *   {
 *       uint32_t i, posted = 100; // flow 7 posted 100 messages of 64 KB
 *       (void)user;
 *       for (i = 0; i < max && flow == 7 && index + i < posted; i++) {
 *           memset(&out[i], 0, sizeof out[i]);
 *           out[i].len = 65536;
 *           out[i].addr = 0x10000000ull + (uint64_t)(index + i) * 65536u;
 *           out[i].tag = index + i; // e.g. the wr_id: comes back on every packet
 *       }
 *       return i;
 *   }
 *
 *   int main(void)
 *   {
 *       rl_config cfg;
 *       rl *r = (rl *)malloc(sizeof *r);
 *       void *mem;
 *       rnic_work pkt;
 *       uint64_t bytes = 0;
 *       rl_config_default(&cfg);            // 1. defaults: 250 MHz, 100 Gb/s, 1024 flows, n = 8, k = 60
 *       cfg.source = wqes;                  // 2. where the WQEs are
 *       mem = malloc(rl_mem_size(&cfg));    // 3. caller-owned memory (or a static buffer), 8-byte aligned
 *       if (!r || !mem || rl_init(r, &cfg, mem, rl_mem_size(&cfg)) != RNIC_OK)
 *           return 1;
 *       rl_set_rate(r, 7, 25000000000ull); // 4. registers: flow 7 at 25 Gb/s (e.g. min(R_cc, R_rev))
 *       rl_doorbell(r, 7);                  //    flow 7 has WQEs
 *       while (rl_now(r) < 250000) {        // 5. run 1 ms, draining the TX port
 *           rl_advance_to(r, 250000);       // stops early when the TX port fills
 *           while (rl_pop_tx(r, &pkt) == RNIC_OK)
 *               bytes += pkt.len;           // pkt.flags & RNIC_WORK_LAST: WQE pkt.tag done
 *       }
 *       printf("%.2f Gb/s\n", (double)bytes * 8 / 1e-3 / 1e9); // ~25
 *       free(mem);
 *       free(r);
 *       return 0;
 *   }
 *
 * CONFIG (rl_config; rl_config_default sets the defaults)
 *   clock_hz 250 MHz | link_bps 100 Gb/s (<= 800 Gb/s) | min_rate_bps 100 Kb/s |
 *   max_flows 1024 (<= 65536) | mtu 4096 | pcie_latency_ns 1000 (1 us) | fetch_wqes n = 8 (<= 64) |
 *   desc_depth k = 60 (<= 256) | tx_depth 64 | schedule_queue RL_SCHEDULE_FIFO (the
 *   paper's; RL_SCHEDULE_RANKED: the option above, +24 B per flow) | fetch_bps 0 (no
 *   read-channel limit; 1 Mb/s .. 10 Tb/s) | wqe_bytes 64 (1 .. 4096) | flow_stats 1 (per-flow
 *   packet and byte counters; 0: none, 16 B less per flow) | start_cycle 0 |
 *   source (required) | trace NULL, trace_id RNIC_ENGINE_TASSEL.
 *   Times are given in ns and converted once, by rl_init, to cycles at clock_hz, rounded to
 *   the nearest cycle (a half rounds up): pcie_latency_ns 1000 at 250 MHz is L = 250 cycles
 *   (rl_pcie_latency_cycles), and must come to 1 .. 2^20 cycles.
 *   Static memory: RL_MEM_SIZE(max_flows, flow_stats, schedule_queue, pcie_latency_ns, clock_hz,
 *   tx_depth, desc_depth, fetch_wqes) is rl_mem_size as an integer constant expression (equal for any
 *   valid config; tested), so firmware sizes a static buffer without calling rl_mem_size:
 *     static rl r;
 *     static uint64_t mem[RL_MEM_SIZE(16, 1, RL_SCHEDULE_FIFO, 1000, 250000000, 64, 60, 8) / 8];
 *
 * PORTS (throughput per cycle; latency)
 *   Registers (rl_doorbell, rl_set_rate, rl_set_credit): per flow, last write wins, never
 *     busy; the EMUX applies one flow's pending writes per cycle (step 1), FIFO over flows.
 *   WQE fetch: one issued per cycle; the source is read L = rl_pcie_latency_cycles() later.
 *     Fetches use no PCIe bandwidth unless cfg.fetch_bps is set: then a fetch holds one read
 *     channel for fetch_wqes x wqe_bytes at that rate (step 7 waits for it, fetch_throttled).
 *     With 64 B WQEs the unlimited model reads ~190 Gb/s of WQEs and drops 3 of 4 packets
 *     computed; a 64-96 Gb/s channel gives a higher packet rate (docs/tassel_model.md (e)).
 *   Timeline: one P-heap operation every 2 cycles, latency ceil(log2(max_flows + 1)) cycles.
 *   TX output (rl_pop_tx / rl_peek_tx, rnic_work): at most one packet per cycle, and only
 *     when the link is idle (busy len / link rate); a full port stalls transmission.
 *   Rate changes re-time the flow's schedule at once: a raise acts within one packet time at
 *     the new rate plus the fetch path, a decrease never lets an old-rate packet leave early.
 *
 * WHAT IT DOES NOT DO
 *   No packet payload, no transport, no congestion control: it decides who sends what, when
 *   (the rates come from the caller: a congestion controller, hostcc.h's hcc_tx). It does not
 *   read WQEs itself beyond the source callback (non-destructive: an entry may be read again,
 *   fetch-and-drop does) and keeps no per-packet memory beyond the k-entry descriptor buffer.
 *   The timeline orders whole virtual cycles (ties in insertion order).
 *
 * ERRORS
 *   Refused input returns an rnic_err, is counted in rl_get_stats()->errors, and changes
 *   nothing: unknown flow RNIC_ENOENT, NULL output pointer RNIC_EINVAL, bad config or memory
 *   RNIC_EINVAL (rl_config_check names the field), too little memory RNIC_ENOSPC. A WQE with
 *   length 0 or > 2^31 (RNIC_EINVAL), or one the source marks RNIC_WORK_ERROR (its status),
 *   is completed by one ERROR record on the TX port and counted when it leaves.
 *
 * LIMITS
 *   One flow sends at most n packets per fetch round trip (L + height + 1 cycles): with n = 8,
 *   4 KB packets and 1 us that is ~260 Gb/s, so a 400 G link needs n = 16 for one flow at
 *   line rate. The software timeline is a radix calendar (exact P-heap order, its hardware
 *   timing modelled) and the descriptor buffer a small heap and a sorted ring, so a cycle's
 *   cost does not grow with max_flows. Memory per flow (rl_mem_per_flow): 96 B, 80 B with flow_stats 0 (the paper's
 *   hardware keeps 17 B; rates and the WQE cursor, QPC fields there, are kept here).
 *   A fetch is issued only while the descriptor buffer has a slot for it (one reserved per
 *   fetch in flight; counted in fetch_gated). Under exactly 100 % booked load (Phi = 2 at
 *   64 K flows) the paper's k = 60 leaves the fastest flows short; k = 256 does not
 *   (README, Fig. 8).
 *   A newly activated flow is scheduled from its doorbell (WF2Q+: start = max(finish, T)),
 *   but its WQEs arrive L cycles later, so its first packets leave back to back until it is
 *   back on its schedule: a lead of rate x L over the rate (measured: 125 B at 1 Gb/s, 1,250 B
 *   at 10, 5,000 B at 40, 10,000 B at 80 Gb/s with L = 1 us), then exactly the rate.
 *   A source that returns more WQEs than asked is clamped to the ask (stats.source_overrun).
 *   Times that stay put (the link's, an idle flow's finish) are brought up to the clock every
 *   2^62 cycles, so any idle stretch (rl_advance(r, UINT64_MAX) included) is safe, except a
 *   flow kept without credit for 2^63 cycles. A start time beyond the horizon cannot occur: a
 *   packet's span is at most mtu * cpb < 2^16 * 2^32 = 2^48 cycles by construction, and times wrap modulo 2^64.
 *
 * VERSION
 *   RL_VERSION_MAJOR.MINOR.PATCH, and rl_version() for the implementation linked in (two units
 *   built from different releases are caught by comparing them). Renames by release:
 *   docs/CHANGES.md.
 *
 * Conventions (all rnicq headers): prefix rl_/RL_; define RL_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; RL_STATIC makes the API static;
 * no allocation, no floating point, no globals; see README.md.
 */
