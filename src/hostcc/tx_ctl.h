/* ---- RHCC sender controller hcc_tx (paper §3.3, Fig. 5 sender; cycle contract:
 * docs/hostcc_tx.md, docs/hostcc_model.md "Sender controller") ----
 *
 * Per flow: bytes since the last probe, R_rev (Eq. 1), D_old, R_cc (the inter-host algorithm's
 * rate, DCQCN). A probe request every probe_bytes of data (hcc_tx_pop_probe); a probe ACK
 * updates R_rev by Eq. 1; R_trans = min(R_rev, R_cc) (Eq. 2, hcc_tx_rate) leaves as a rate
 * record (hcc_tx_pop_rate) whenever it changes, for the caller to write into Tassel.
 *
 * Timing: every input is applied at the call (validated, state updated, refused with the state
 * intact); the records it causes are produced by the next tick (the tick of cycle hcc_tx_now()),
 * stamped with that cycle. Rates are bits per second (uint64_t); delays are nanoseconds of the
 * receiver's timestamps. */

#define HCC_TX_MAX_FLOWS (1u << 24)
#define HCC_TX_MAX_DEPTH (1u << 24)
#define HCC_TX_MAX_DELAY_NS (1u << 28)   /* upper bound of max_delay_ns (268 ms): no overflow in Eq. 1 */
#define HCC_TX_MAX_GAIN_Q32 (1ull << 32) /* upper bound of alpha_q32 / beta_q32 (1.0 per ns) */
#define HCC_TX_ALPHA_Q32 2147484u        /* 0.0005 per ns x 2^32, rounded to nearest (2147483.648) */

/* Engine-specific trace kinds (engine RNIC_ENGINE_HCC_TX). */
#define HCC_TX_TRACE_REV 16u   /* Eq. 1 applied: id = flow, a = new R_rev (b/s), b = D_cur (ns) */
#define HCC_TX_TRACE_OPEN 17u  /* flow opened: id = flow, a = R_rev, b = R_cc */
#define HCC_TX_TRACE_CLOSE 18u /* flow closed: id = flow, a = probes not yet emitted (dropped) */

/* Refusal reasons (each also counted in stats.errors by its code): stats.reasons.<counter>,
 * hcc_tx_reason_message(HCC_TX_REASON_*) names the setting or call to change. */
#define HCC_TX_REASONS(R)                                                                                  \
    R(HCC_TX_REASON_UNKNOWN_FLOW, RNIC_ENOENT, unknown_flow,                                               \
      "hcc_tx: flow >= max_flows or not open (raise max_flows; hcc_tx_flow_open it first)")                \
    R(HCC_TX_REASON_FLOW_EXISTS, RNIC_EEXIST, flow_exists, "hcc_tx: flow already open (hcc_tx_flow_close it first)") \
    R(HCC_TX_REASON_ACK_NO_PROBE, RNIC_ENOENT, ack_no_probe,                                               \
      "hcc_tx: probe ACK with no probe outstanding or a number never issued (index)")                      \
    R(HCC_TX_REASON_ACK_STALE, RNIC_ESTALE, ack_stale, "hcc_tx: probe ACK for a probe already acknowledged or overtaken") \
    R(HCC_TX_REASON_ACK_RANGE, RNIC_ERANGE, ack_range,                                                     \
      "hcc_tx: probe ACK timestamp before its receive timestamp, or D_cur > max_delay_ns (raise max_delay_ns)") \
    R(HCC_TX_REASON_PROBE_OVERFLOW, RNIC_EBUSY, probe_overflow,                                            \
      "hcc_tx: a flow's unproduced probe requests would pass 2^32 - 1 (drain the probe port; raise probe_bytes)")
RNIC_REASONS(hcc_tx, HCC_TX, HCC_TX_REASONS)

typedef struct hcc_tx_config {
    uint64_t clock_hz;      /* default 250 MHz (the composed RNIC's clock); 1 MHz .. 10 GHz */
    uint64_t link_bps;      /* R_rev ceiling and initial R_cc, default 100 Gb/s; 1 .. 800 Gb/s */
    uint64_t rate_floor_bps;  /* RHCC's rate floor (R_rev, and R_cc writes, clamp up to it: a protocol's
                                 floor like DCQCN's, not a register's min_rate_bps), default 100 Mb/s;
                                 1 .. link_bps */
    uint32_t max_flows;     /* flows [0, max_flows), default 1024; 1 .. HCC_TX_MAX_FLOWS */
    uint32_t probe_bytes;   /* one probe per this many bytes sent, default 32768 (§4); 64 .. 2^30 */
    uint64_t d_thr_ns;      /* D_thr, default 200 ns (§4); <= max_delay_ns */
    uint64_t max_delay_ns;  /* a larger D_cur is refused (RNIC_ERANGE), default 1 ms; 1 .. HCC_TX_MAX_DELAY_NS */
    uint64_t alpha_q32;     /* alpha per ns, Q0.32, default HCC_TX_ALPHA_Q32 (0.0005); <= 2^32 */
    uint64_t beta_q32;      /* beta per ns, Q0.32, default HCC_TX_ALPHA_Q32 (0.0005); <= 2^32 */
    uint32_t rate_depth;    /* rate output port depth, default 64; 1 .. HCC_TX_MAX_DEPTH */
    uint32_t probe_depth;   /* probe output port depth, default 64; 1 .. HCC_TX_MAX_DEPTH */
    uint32_t probe_op;      /* rnic_work.op of probe records (the caller's opcode), default 0 */
    uint64_t start_cycle;   /* hcc_tx_now() after init, default 0 */
    rnic_trace_fn trace;    /* NULL: tracing off */
    void *trace_user;
    uint16_t trace_id;      /* `engine` of the trace events, default RNIC_ENGINE_HCC_TX */
} hcc_tx_config;

typedef struct hcc_tx_stats {
    uint64_t cycles;
    uint64_t flows_opened, flows_closed;
    uint64_t bytes_sent;        /* bytes reported on the sent port (hcc_tx_push_sent) */
    uint64_t probes_requested;  /* probe requests counted (every probe_bytes) */
    uint64_t probes_out;        /* probe records produced */
    uint64_t probes_dropped;    /* requests not yet produced when their flow was closed */
    uint64_t probe_acks;        /* ACKs accepted: Eq. 1 updates */
    uint64_t d_sum_ns, d_max_ns; /* D_cur of those ACKs: sum and largest (ns) */
    uint64_t d_over_thr;        /* those with D_cur > D_thr (Eq. 1's error term cuts) */
    uint64_t rev_floor;         /* Eq. 1 results raised to rate_floor_bps */
    uint64_t rev_ceiling;       /* Eq. 1 results lowered to link_bps */
    uint64_t bracket_nonpositive; /* Eq. 1 brackets <= 0 (R_rev -> 0, then the floor) */
    uint64_t rcc_writes;        /* hcc_tx_set_rcc accepted */
    uint64_t rate_clamped;      /* set_rcc / flow_open rates outside [min_rate, link] clamped into it */
    uint64_t rate_records;      /* rate records produced */
    uint64_t port_stalls;       /* ticks that left records waiting for a full output port */
    hcc_tx_reason_stats reasons; /* refused input by reason (HCC_TX_REASONS; NULL records: errors only) */
    rnic_err_stats errors;      /* refused input by code: the one refusal count */
} hcc_tx_stats;

/* Per-flow parameters (hcc_tx_flow_open). */
typedef struct hcc_tx_flow_config {
    uint64_t init_rate_bps; /* initial R_rev; 0 (default) = link_bps; others clamped into
                               [rate_floor_bps, link_bps] (counted in rate_clamped) */
} hcc_tx_flow_config;

/* A snapshot of one flow (hcc_tx_flow_state). */
typedef struct hcc_tx_flow_view {
    uint64_t r_rev;     /* R_rev, b/s, in [rate_floor_bps, link_bps] */
    uint64_t r_cc;      /* R_cc, b/s: 0 (paused) or in [rate_floor_bps, link_bps] */
    uint64_t out_rate;  /* R_trans of the last rate record (UINT64_MAX: none yet) */
    uint64_t d_old;     /* D_old, ns (valid when have_d_old) */
    uint64_t bytes;     /* bytes since the last probe request, < probe_bytes */
    uint64_t bytes_total; /* bytes sent since open */
    uint64_t probe_next; /* number of the next probe record (from 0 at open; records carry it mod 2^32) */
    uint64_t ack_next;   /* the oldest probe number an ACK may still name (<= probe_next) */
    uint32_t probes_due; /* probe requests not yet produced (waiting for the tick or port space) */
    uint32_t rate_seq;   /* rate records produced for the flow (the record's index) */
    uint8_t open, have_d_old, rate_pending, pad_;
} hcc_tx_flow_view;

/* Per-flow state (internal; caller memory). */
typedef struct hcc__tx_flow {
    uint64_t r_rev, r_cc, out_rate, d_old, bytes, bytes_total, probe_next, ack_next;
    uint32_t probes_due, rate_seq;
    uint8_t open, queued, have_d_old, rate_pending;
    uint32_t pad_;
} hcc__tx_flow;

typedef struct hcc_tx {
    hcc_tx_config cfg;
    uint64_t now;
    uint64_t pend_rate_flows; /* flows with rate_pending */
    uint64_t pend_probes;     /* sum of probes_due */
    rnic_trace trace;
    uint16_t trace_id;
    hcc__tx_flow *flows;
    rnic_ring pending; /* uint32_t: flows with records to produce, FIFO, each at most once */
    rnic_ring rates;   /* rnic_work: rate output port */
    rnic_ring probes;  /* rnic_work: probe output port */
    hcc_tx_stats stats;
} hcc_tx;

HCC_API void hcc_tx_config_default(hcc_tx_config *cfg);
/* RNIC_OK, or RNIC_EINVAL with *field (when field is not NULL) naming the bad field. */
HCC_API rnic_err hcc_tx_config_check(const hcc_tx_config *cfg, const char **field);
/* Bytes of caller memory hcc_tx_init needs; 0 when cfg is invalid. */
HCC_API size_t hcc_tx_mem_size(const hcc_tx_config *cfg);
/* HCC_TX_MEM_SIZE: hcc_tx_mem_size as an integer constant expression (exactly hcc_tx_mem_size(&cfg)
 * for a valid config; tested). At the defaults: HCC_TX_MEM_SIZE(1024, 64, 64). */
#define HCC_TX_MEM_SIZE(max_flows, rate_depth, probe_depth)                                         \
    (RNIC__MEM_PART((max_flows), hcc__tx_flow) + RNIC__MEM_PART((max_flows), uint32_t) +             \
     RNIC__MEM_PART((rate_depth), rnic_work) + RNIC__MEM_PART((probe_depth), rnic_work))
/* RNIC_EINVAL: bad config, NULL or misaligned memory; RNIC_ENOSPC: size too small. */
HCC_API rnic_err hcc_tx_init(hcc_tx *c, const hcc_tx_config *cfg, void *mem, size_t size);

HCC_API void hcc_tx_flow_config_default(hcc_tx_flow_config *fc);
/* Open a flow: R_rev = fc->init_rate_bps (0: link_bps; else clamped into [min_rate, link],
 * counted in rate_clamped), R_cc = link_bps, no D_old, probe numbers from 0; a rate record
 * follows at the next tick. fc NULL = the defaults. RNIC_ENOENT: flow >= max_flows; RNIC_EEXIST:
 * already open. */
HCC_API rnic_err hcc_tx_flow_open(hcc_tx *c, uint32_t flow, const hcc_tx_flow_config *fc);
/* Close a flow: its unproduced probe requests are dropped (counted), a queued rate record is not
 * produced. RNIC_ENOENT when not open. */
HCC_API rnic_err hcc_tx_flow_close(hcc_tx *c, uint32_t flow);
/* The flow's state (a copy). RNIC_EINVAL NULL engine or out; RNIC_ENOENT flow >= max_flows (a
 * closed flow below it reads open = 0). Not counted: a query, not an input. */
HCC_API rnic_err hcc_tx_flow_state(const hcc_tx *c, uint32_t flow, hcc_tx_flow_view *out);
/* Sent port: sent->flow sent sent->len bytes of its data (other fields ignored): one probe
 * request per probe_bytes, the remainder carried. Applied at the call: the input never fills
 * (hcc_tx_space_sent = UINT32_MAX; 0 for NULL). RNIC_EINVAL NULL record; RNIC_ENOENT unknown
 * flow; RNIC_EBUSY when the flow's unproduced requests would pass 2^32 - 1 (drain the probe port). */
HCC_API rnic_err hcc_tx_push_sent(hcc_tx *c, const rnic_work *sent);
HCC_API uint32_t hcc_tx_space_sent(const hcc_tx *c);
/* A probe ACK: ack->flow, ack->index = the probe number, ack->addr = the receiver's receive
 * timestamp (ns), ack->raddr = its ACK timestamp (ns); D_cur = raddr - addr. Eq. 1 at once.
 * Accepted when index is a produced, not yet acknowledged probe newer than the last one
 * accepted (an ACK overtakes older outstanding probes). RNIC_EINVAL NULL ack; RNIC_ENOENT
 * unknown flow, no probe outstanding, or a number never produced; RNIC_ESTALE a probe already
 * acknowledged or overtaken; RNIC_ERANGE raddr < addr or D_cur > max_delay_ns. Never EBUSY. */
HCC_API rnic_err hcc_tx_push_probe_ack(hcc_tx *c, const rnic_work *ack);
/* Probe ACKs are applied at the call: the input never fills (returns UINT32_MAX; 0 for NULL). */
HCC_API uint32_t hcc_tx_space_probe_ack(const hcc_tx *c);
/* R_cc register (the inter-host algorithm's rate): last write wins; 0 pauses (R_trans = 0);
 * other values are clamped into [min_rate, link] (counted). RNIC_ENOENT unknown flow. */
HCC_API rnic_err hcc_tx_set_rcc(hcc_tx *c, uint32_t flow, uint64_t bps);
/* Eq. 2: R_trans = min(R_rev, R_cc), bps; 0 for a NULL engine or a flow that is not open. */
HCC_API uint64_t hcc_tx_rate(const hcc_tx *c, uint32_t flow);

HCC_API void hcc_tx_tick(hcc_tx *c);
/* hcc_tx_now() while a record waits and its port has room, else RNIC_NEVER. */
HCC_API uint64_t hcc_tx_next_event(const hcc_tx *c);
/* Up to `cycles` cycles, skipping idle stretches; returns the cycles run. Stops right after the
 * tick in which an output port became full. Identical to ticking. */
HCC_API uint64_t hcc_tx_advance(hcc_tx *c, uint64_t cycles);
HCC_API uint64_t hcc_tx_advance_to(hcc_tx *c, uint64_t cycle);
HCC_API uint64_t hcc_tx_now(const hcc_tx *c);

/* Probe output: flow, index = probe number, flags = HCC_WORK_PROBE, op = cfg.probe_op, cycle.
 * Rate output (a rate port): flow, addr = R_trans (b/s, the value for Tassel's rate register),
 * index = the flow's rate record number, cycle. Other fields 0 (R_rev: hcc_tx_flow_state). RNIC_EEMPTY when empty;
 * RNIC_EINVAL for a NULL record (counted). */
HCC_API rnic_err hcc_tx_pop_probe(hcc_tx *c, rnic_work *out);
HCC_API rnic_err hcc_tx_peek_probe(const hcc_tx *c, rnic_work *out);
HCC_API rnic_err hcc_tx_pop_rate(hcc_tx *c, rnic_work *out);
HCC_API rnic_err hcc_tx_peek_rate(const hcc_tx *c, rnic_work *out);

HCC_API const hcc_tx_stats *hcc_tx_get_stats(const hcc_tx *c);
