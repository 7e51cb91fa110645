/* ratelimit.h: linkage and version. */
#define RL_VERSION_MAJOR 0
#define RL_VERSION_MINOR 3
#define RL_VERSION_PATCH 0

/* RL_API decorates every public function: extern by default, `static` when the user
 * defines RL_STATIC (then implement the header in each translation unit that uses it; the
 * functions a unit does not call raise no unused-function warning).
 * Define RL_API yourself to add visibility or calling-convention attributes. */
#ifndef RL_API
#ifdef RL_STATIC
#define RL_API static RNIC__MAYBE_UNUSED
#else
#define RL_API extern
#endif
#endif

/* The version of the ratelimit.h implementation linked in, e.g. "ratelimit.h 0.1.0 (common 100)".
 * Compare it with RL_VERSION_* to catch a translation unit built from another release. */
RL_API const char *rl_version(void);

/* ---- Tassel rate limiter (cycle semantics: docs/tassel_model.md; the shapes every engine
 * shares: docs/engine_contract.md) ---- */

#define RL_MAX_FLOWS 65536u
#define RL_MAX_DESC 256u    /* upper bound of desc_depth (k) */
#define RL_MAX_FETCH 64u    /* upper bound of fetch_wqes (n) */

/* rl_config.schedule_queue: the order in which queued QPs get their WQE fetch. */
#define RL_SCHEDULE_FIFO 0u   /* the paper's FIFO (default) */
#define RL_SCHEDULE_RANKED 1u /* smallest virtual finish first, plus a reschedule wheel for near
                                 keys: no starvation in wake-up storms (docs/tassel_model.md,
                                 "Schedule-queue option") */

/* Engine-specific trace kinds (RNIC_TRACE_PUSH/REFUSE/OUT/POP/RATE are the common ones). */
#define RL_TRACE_APPLY 16u      /* the EMUX applied a flow's pending registers: a = what (1 doorbell, 2 rate, 4 credit) */
#define RL_TRACE_FETCH 17u      /* a WQE fetch issued: id = flow, a = index, b = offset */
#define RL_TRACE_ROUND 18u      /* a fetch returned: a = packets stored, b = packets cut */
#define RL_TRACE_RESCHEDULE 19u /* a flow entered the timeline: a = key (virtual cycle) */
#define RL_TRACE_RETIME 20u     /* a rate write re-timed a flow: a = new next start (virtual cycle), b = descriptors dropped */
#define RL_TRACE_PARK 21u       /* a flow waits for credit or a non-zero rate */

typedef struct rl_config {
    uint64_t clock_hz;     /* default 250 MHz (4 ns cycles, as in the paper) */
    uint64_t link_bps;     /* default 100 Gb/s; up to 800 Gb/s */
    uint64_t min_rate_bps; /* smallest flow rate; smaller non-zero writes are clamped up, default 100 Kb/s */
    uint32_t max_flows;    /* 1 .. RL_MAX_FLOWS, default 1024 */
    uint32_t mtu;          /* packet payload bytes, 64 .. 65536, default 4096 */
    uint64_t pcie_latency_ns; /* WQE fetch latency and wheel span, default 1000 ns (the paper's 1 us
                                 PCIe latency, 250 cycles at 250 MHz). Converted once by rl_init to
                                 cycles at clock_hz, to the nearest cycle (an exact half rounds up);
                                 that must be 1 .. 2^20 cycles. rl_pcie_latency_cycles gives it. */
    uint32_t fetch_wqes;   /* n: WQEs fetched (and packets cut) per round, 1 .. 64, default 8 */
    uint32_t desc_depth; /* k: descriptor buffer for urgent packets, 1 .. 256, default 60 */
    uint32_t tx_depth;  /* TX output port depth, default 64 */
    uint32_t schedule_queue; /* RL_SCHEDULE_FIFO (default) or RL_SCHEDULE_RANKED */
    uint64_t fetch_bps;    /* PCIe read bandwidth for WQE fetches: 0 = unlimited (default, the
                              paper's model: a fetch costs only its latency); else 1 Mb/s .. 10 Tb/s,
                              a fetch of fetch_wqes x wqe_bytes holds the read channel for its
                              bytes at this rate (docs/tassel_model.md, step 7) */
    uint32_t wqe_bytes;    /* bytes read per WQE, 1 .. 4096, default 64 (RDMA's WQE size) */
    uint32_t flow_stats;     /* 1 (default): per-flow packet and byte counters, 16 B per flow;
                              0: none (rl_get_flow_stats answers NULL; the TX port's records carry
                              flow and len for a caller that counts) */
    uint64_t start_cycle;  /* rl_now() after init, default 0 (a composed model may start every
                              engine at one cycle; tests start near 2^64 to cross the wrap) */
    rnic_source_fn source; /* required by rl_init: the flows' WQEs by free-running index */
    void *source_user;
    rnic_trace_fn trace;   /* NULL: tracing off */
    void *trace_user;
    uint16_t trace_id;     /* `engine` of the trace events, default RNIC_ENGINE_TASSEL */
} rl_config;

typedef struct rl_flow_stats {
    uint64_t packets, bytes;
} rl_flow_stats;

typedef struct rl_stats {
    uint64_t cycles, packets, bytes;
    uint64_t doorbells, rate_updates, credit_updates; /* register writes applied by the EMUX */
    uint64_t coalesced;         /* register writes merged into one still pending for the flow */
    uint64_t rate_clamped;      /* rate writes outside [min_rate, link] clamped into it */
    uint64_t retimes;           /* rate changes that re-timed a flow's schedule */
    uint64_t lag_floored;       /* rate changes and rounds that found a flow's next start more than the
                                   lookahead behind the system time and raised it to T - Lambda */
    uint64_t fetches, wqes_fetched, packets_computed, packets_dropped; /* dropped: fetch-and-drop, refetched later */
    uint64_t source_overrun;    /* fetches whose source returned more WQEs than asked (clamped to the ask) */
    uint64_t error_records;     /* bad WQEs completed with an ERROR record */
    uint64_t desc_full;         /* rounds cut short by a full descriptor buffer */
    uint64_t fetch_gated;       /* cycles a queued flow waited: no descriptor slot for its fetch */
    uint64_t fetch_throttled;   /* cycles a queued flow waited for the PCIe read channel (fetch_bps) */
    uint64_t fetch_bytes;       /* WQE bytes read (fetch_wqes x wqe_bytes per fetch issued) */
    uint64_t heap_ops;          /* P-heap operations started */
    uint64_t wheel_inserts;     /* ranked option: reschedules placed on the reschedule wheel */
    uint64_t wheel_collisions;  /* ... of which moved to a later slot (their own was taken) */
    uint64_t desc_evictions;    /* ranked option: stored packets displaced by an urgent packet finishing earlier */
    uint64_t wheel_spills;      /* ... reschedules near enough for the wheel that found no free slot (P-heap) */
    uint64_t tx_stalls;         /* cycles a packet was ready but the TX port was full */
    uint64_t max_phi_q32;       /* largest oversubscription factor seen, Q32.32 */
    rnic_err_stats errors;      /* refused input by cause */
} rl_stats;

/* Opaque-by-convention engine state (fields are visible so firmware can place it statically). */
typedef struct rl rl;

RL_API void rl_config_default(rl_config *cfg);
/* RNIC_OK, or RNIC_EINVAL with *field (when field is not NULL) naming the bad field. The
 * source is not checked here (rl_init requires it). */
RL_API rnic_err rl_config_check(const rl_config *cfg, const char **field);
/* Bytes of caller memory rl_init needs for cfg; 0 when cfg is invalid (rl_config_check says why). */
RL_API size_t rl_mem_size(const rl_config *cfg);
/* Engine state bytes per flow (what scales with max_flows) for cfg; 0 when invalid. */
RL_API size_t rl_mem_per_flow(const rl_config *cfg);

/* RL_MEM_SIZE: rl_mem_size as an integer constant expression, so firmware can size a static
 * buffer at compile time (a config valid for rl_config_check; the value is exactly
 * rl_mem_size(&cfg), tests/test_mem_size_macros.c checks it). Arguments are the config fields
 * that size the memory; pcie_latency_ns and clock_hz give the fetch latency in cycles (rounded
 * to the nearest, as rl_init does). Round the result up to 8-byte words for a uint64_t array:
 *   static uint64_t mem[RL_MEM_SIZE(16, 1, RL_SCHEDULE_FIFO, 1000, 250000000, 64, 60, 8) / 8];
 * The macro evaluates its arguments several times: pass constants. */
#define RL_MEM_SIZE(max_flows, flow_stats, schedule_queue, pcie_latency_ns, clock_hz, tx_depth, desc_depth, \
                    fetch_wqes)                                                                              \
    (RNIC__MEM_PART((max_flows), rl__qp) + RNIC__MEM_PART((flow_stats) ? (max_flows) : 0u, rl_flow_stats) +            \
     2u * RNIC__MEM_PART((max_flows), uint32_t) + 2u * RNIC__MEM_PART(RL__MEM_TL_SLOTS, uint32_t) +              \
     2u * RNIC__MEM_PART(RNIC__BITLEN(max_flows) + 2u, rl__timed_qp) +                                        \
     RNIC__MEM_PART((schedule_queue) == RL_SCHEDULE_RANKED ? (max_flows) : 0u, rl__ranked) +                    \
     RNIC__MEM_PART(RL__MEM_WHEEL(schedule_queue, pcie_latency_ns, clock_hz), uint32_t) +                      \
     RNIC__MEM_PART((RL__MEM_WHEEL(schedule_queue, pcie_latency_ns, clock_hz) + 63u) / 64u, uint64_t) +         \
     RNIC__MEM_PART(RL__MEM_PCIE_CYCLES(pcie_latency_ns, clock_hz) + 1u, rl__timed_qp) +                        \
     RNIC__MEM_PART((tx_depth), rnic_work) + RNIC__MEM_PART((desc_depth), rl__desc) +                        \
     RNIC__MEM_PART(((desc_depth) + 63u) / 64u, uint64_t) + RNIC__MEM_PART((desc_depth), rl__dkey) +        \
     RNIC__MEM_PART(RNIC__POW2_AT_LEAST(desc_depth), rl__dkey) + RNIC__MEM_PART((desc_depth), uint16_t) + \
     RNIC__MEM_PART((fetch_wqes), rnic_work))
/* RL_MEM_SIZE's parts, mirroring rl_init's layout: n elements rounded up to RNIC_MEM_ALIGN; the
 * timeline's 11 levels x 64 list heads and tails; the P-heap height (bits of max_flows); the
 * fetch latency in cycles and the ranked option's wheel; the eligible ring (a power of two). */
#define RL__MEM_TL_SLOTS (11u * 64u)
#define RL__MEM_PCIE_CYCLES(ns, hz) (((uint64_t)(ns) * (uint64_t)(hz) + 500000000u) / 1000000000u)
#define RL__MEM_WHEEL(q, ns, hz) ((q) == RL_SCHEDULE_RANKED ? RL__MEM_PCIE_CYCLES(ns, hz) : 0u)
/* RNIC_EINVAL: bad config, NULL source, NULL or misaligned memory; RNIC_ENOSPC: size too small. */
RL_API rnic_err rl_init(rl *r, const rl_config *cfg, void *mem, size_t size);

/* Per-flow registers, last write wins. A flow with a write pending joins a FIFO of flow ids
 * (capacity max_flows: it never overflows, so these never answer RNIC_EBUSY); the EMUX applies
 * one flow's pending registers per cycle, rate then credit then doorbell. A write made before
 * the tick of cycle c applies in cycle c + (flows ahead of it in that FIFO). Two writes of one
 * register before it applies are one (counted in stats.coalesced). Unknown flow: RNIC_ENOENT.
 * Rates are clamped into [min_rate_bps, link_bps] (counted in rate_clamped); 0 pauses the flow
 * (its data waits, nothing is sent; a later non-zero rate resumes it). A rate change re-times
 * what is already scheduled for the flow (docs/tassel_model.md, "Rate changes"). */
RL_API rnic_err rl_doorbell(rl *r, uint32_t flow);
RL_API rnic_err rl_set_rate(rl *r, uint32_t flow, uint64_t bps);
RL_API rnic_err rl_set_credit(rl *r, uint32_t flow, bool has_credit);

/* Advance exactly one cycle. */
RL_API void rl_tick(rl *r);
/* Earliest cycle >= now at which a tick changes anything without new input; RNIC_NEVER when
 * nothing will (also when only a pop of the full TX port would unblock it). */
RL_API uint64_t rl_next_event(const rl *r);
/* A lower bound on the cycle of the next TX record: no tick before it puts a packet on the TX
 * port without new input (a register write, a doorbell, a pop); RNIC_NEVER when none can come
 * (a bound exactly at cycle 2^64 - 1 also reads RNIC_NEVER, as in rl_next_event).
 * For a caller that reads only the TX port: the engine may stay unadvanced until then (its
 * other events move only its statistics and internal state). */
RL_API uint64_t rl_next_output(const rl *r);
/* Run up to `cycles` cycles, skipping idle stretches; returns the cycles run. Stops right
 * after the tick in which the TX port became full (drain it and call again). Identical
 * results to ticking, across the 2^64 wrap too. */
RL_API uint64_t rl_advance(rl *r, uint64_t cycles);
/* rl_advance(r, cycle - rl_now(r)) (mod 2^64). */
RL_API uint64_t rl_advance_to(rl *r, uint64_t cycle);

/* TX output port: packets as rnic_work (flow, index of the WQE, offset, len, addr/raddr =
 * the entry's + offset, tag/op untouched, cycle it left, FIRST at offset 0, LAST when it ends
 * the WQE: the source may then reuse the entry). A bad WQE (len 0 or > 2^31, or marked
 * RNIC_WORK_ERROR by the source) leaves as one record with len 0, FIRST|LAST|ERROR and
 * status = the rnic_err. RNIC_EEMPTY when nothing waits; RNIC_EINVAL for a NULL record
 * (counted, by peek too: the engine is the caller's, only its statistics change). */
RL_API rnic_err rl_pop_tx(rl *r, rnic_work *out);
RL_API rnic_err rl_peek_tx(const rl *r, rnic_work *out);

RL_API uint64_t rl_now(const rl *r);
RL_API const rl_stats *rl_get_stats(const rl *r);
/* Per-flow counters; NULL for an unknown flow, or when cfg.flow_stats is 0. */
RL_API const rl_flow_stats *rl_get_flow_stats(const rl *r, uint32_t flow);

/* A flow's registers and scheduling state, as rl_flow_state reads them. */
#define RL_FLOW_IDLE 0u     /* nothing to send (no doorbell since its data ran out) */
#define RL_FLOW_QUEUED 1u   /* in the schedule queue, waiting for its WQE fetch */
#define RL_FLOW_PARKED 2u   /* waiting for credit or a non-zero rate */
#define RL_FLOW_FETCHING 3u /* a WQE fetch in flight */
#define RL_FLOW_DORMANT 4u  /* in the timeline, until its reschedule time */
#define RL_FLOW_DRAINING 5u /* its WQEs ran out: its stored packets leave, a doorbell re-queues it */
typedef struct rl_flow_view {
    uint64_t rate_bps;         /* the rate applied (while paused: the last non-zero one) */
    uint64_t pending_rate_bps; /* the rate register as written, not yet applied (0: a pause) */
    uint64_t packets, bytes;   /* sent (0 when cfg.flow_stats is 0) */
    uint32_t state;            /* RL_FLOW_* */
    uint32_t pending;          /* register writes the EMUX has not applied: 1 doorbell, 2 rate, 4 credit */
    uint32_t index, offset;    /* the next WQE to fetch (free-running index) and the byte offset in it */
    uint32_t outstanding;      /* packets held in the descriptor buffer */
    bool credit, paused;       /* has credit; rate 0 applied */
} rl_flow_view;
/* Copy flow's state into *out. RNIC_EINVAL: NULL engine or out (counted when the engine is
 * not NULL); RNIC_ENOENT: flow >= max_flows (counted). */
RL_API rnic_err rl_flow_state(const rl *r, uint32_t flow, rl_flow_view *out);
/* Current oversubscription factor Phi (Q32.32). */
RL_API uint64_t rl_phi_q32(const rl *r);
/* The WQE fetch latency in cycles: cfg.pcie_latency_ns at clock_hz, to the nearest cycle. */
RL_API uint32_t rl_pcie_latency_cycles(const rl *r);
/* The lookahead in cycles, L + P-heap height + 1 (+ one MTU on the wire in ranked mode): the
 * reactivation path's latency. It is also the lag bound: a flow's next start is never kept more
 * than this (divided by max(1, Phi) in system time) behind the system time, so a flow sends at
 * most rate x (W + this) + one packet in any window W (docs/tassel_model.md, "A QP's lag"). */
RL_API uint32_t rl_lookahead_cycles(const rl *r);

