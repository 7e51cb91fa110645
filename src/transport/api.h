/* transport.h: linkage and version. */
#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 3
#define TP_VERSION_PATCH 0

/* TP_API decorates every public function: extern by default, `static` when the user
 * defines TP_STATIC (then implement the header in each translation unit that uses it; the
 * functions a unit does not call raise no unused-function warning).
 * Define TP_API yourself to add visibility or calling-convention attributes. */
#ifndef TP_API
#ifdef TP_STATIC
#define TP_API static RNIC__MAYBE_UNUSED
#else
#define TP_API extern
#endif
#endif

/* The version of the transport.h implementation linked in, e.g. "transport.h 0.2.0 (common 100)".
 * Compare it with TP_VERSION_* to catch a translation unit built from another release. */
TP_API const char *tp_version(void);

/* ---- Tonic (cycle semantics: docs/transport_model.md; the shapes every engine shares:
 * docs/engine_contract.md) ---- */

#define TP_MAX_FLOWS 65536u
#define TP_MAX_WINDOW 256u     /* W: segments tracked per flow (Table 4) */
#define TP_MAX_RING 64u        /* N: segment addresses per flow in the credit engine */
#define TP_MAX_MESSAGES 256u   /* messages queued per flow */

/* Credit types (§3.3.1). A rate protocol may instead be paced outside the engine
 * (cfg.external_pacer): the credit engine's per-flow segment rings are then read by an outside
 * pacer (ratelimit.h's Tassel) through tp_pacer_source, and rate changes go to cfg.pacer.set_rate. */
#define TP_CREDIT_WINDOW 0u
#define TP_CREDIT_RATE 1u
#define TP_CREDIT_TOKEN 2u

/* State budgets of Table 4: user-context bytes the paper's hardware holds per credit type. */
#define TP_CTX_MAX_WINDOW 448u
#define TP_CTX_MAX_RATE 340u
#define TP_CTX_MAX_TOKEN 256u

/* Records. A data segment out of the engine: flow, index =
 * segment id, offset = byte offset in its message, len, addr/raddr = the message's + offset,
 * tag and op = the message's (carried untouched), FIRST/LAST = first/last segment of the
 * message, TP_WORK_RTX for a retransmission, aux = the message's number on the flow. A control
 * packet to the sender: flow, its type below in the engine bits of flags (TP_WORK_PKT(type);
 * read with TP_WORK_PKT_TYPE(flags)), index = cumulative ack (the next segment id the receiver
 * expects), offset/len = one SACK block [offset, offset + len) of segment ids (len 0: none),
 * aux = the packet's data (grant bytes, ...), TP_WORK_ECN for an ECN echo. `op` is never read
 * nor written by either engine (the receiver's control packets carry op 0, tag = the segment's). */
#define TP_PKT_DATA 1u
#define TP_PKT_ACK 2u
#define TP_PKT_NACK 3u  /* an ACK sent for an out-of-order arrival: index = cumulative, offset/len = the run holding it */
#define TP_PKT_CNP 4u
#define TP_PKT_GRANT 5u /* grant tokens: aux = bytes of credit (plus an ACK's fields) */

/* Engine bits of rnic_work.flags on segments. */
#define TP_WORK_RTX (1u << RNIC_WORK_ENGINE_SHIFT)      /* a retransmission */
#define TP_WORK_ECN (2u << RNIC_WORK_ENGINE_SHIFT)      /* on the wire: CE mark; on an ACK: ECN echo */
#define TP_WORK_TRIMMED (4u << RNIC_WORK_ENGINE_SHIFT)  /* a data segment whose payload a switch trimmed (NDP): only its header arrived */
/* A control packet's type (TP_PKT_*): three engine bits of flags. */
#define TP_WORK_PKT_SHIFT (RNIC_WORK_ENGINE_SHIFT + 4u)
#define TP_WORK_PKT_MASK (7u << TP_WORK_PKT_SHIFT)
#define TP_WORK_PKT(type) (((uint32_t)(type) << TP_WORK_PKT_SHIFT) & TP_WORK_PKT_MASK) /* flags bits of a type */
#define TP_WORK_PKT_TYPE(flags) (((uint32_t)(flags) & TP_WORK_PKT_MASK) >> TP_WORK_PKT_SHIFT) /* the type in flags */

/* Engine-specific trace kinds. */
#define TP_TRACE_GENERATE 16u  /* segment generation: a = segment id, b = 1 if retransmission */
#define TP_TRACE_ACK 17u       /* incoming fixed stage: a = new wnd_start, b = newly acked */
#define TP_TRACE_TIMEOUT 18u   /* rtx timer expired: a = wnd_start, b = highest_sent */
#define TP_TRACE_MERGE 19u     /* a timeout discarded: an ACK hit the flow in the same cycle */
#define TP_TRACE_MARK 20u      /* a hook marked [a, b) for retransmission */
#define TP_TRACE_WINDOW 21u    /* window size changed: a = new size, b = old */
#define TP_TRACE_COMPLETE 22u  /* a message fully acknowledged: a = its number on the flow (the completion's aux), b = len */
#define TP_TRACE_SKIP 23u      /* a retransmission acknowledged in the ring left it unsent: a = segment id, b = len */

/* A read-only view of one per-flow ring bitmap: segment s lives at bit s mod nbits (nbits = the
 * window W, a power of two); only segments in [base, base + nbits) are meaningful. */
typedef struct tp_bits {
    const uint64_t *words;
    uint32_t nbits, base;
} tp_bits;

/* Bitmap helpers for hooks (the "limited set of read-only bitmap operations" of §3.5). Segment
 * ids are free-running uint32 and compared modulo 2^32. */
TP_API bool tp_bits_test(const tp_bits *b, uint32_t seg);
/* The first set bit in [from, to) (App. C: find-first from a moving head); `to` when none. */
TP_API uint32_t tp_bits_find_first(const tp_bits *b, uint32_t from, uint32_t to);
/* The first clear bit in [from, to); `to` when none. */
TP_API uint32_t tp_bits_find_first_zero(const tp_bits *b, uint32_t from, uint32_t to);
/* Set bits in [from, to). */
TP_API uint32_t tp_bits_count(const tp_bits *b, uint32_t from, uint32_t to);

/* Per-flow parameters, fixed while the flow is open (tp_flow_open). */
typedef struct tp_flow_config {
    uint32_t seg_size;     /* bytes of every segment but the last of a message; 1 .. 65536, default 1000 */
    uint32_t init_seq;     /* id of the flow's first segment (free-running, wraps), default 0 */
    uint32_t init_wnd;     /* initial window in segments, default 10 (protocol init may change it) */
    uint64_t init_rate_bps; /* initial rate for rate credit, default = cfg.link_bps */
    uint64_t init_credit;  /* initial token credit in bytes, default 0 */
    uint64_t max_burst;    /* D: rate credit saturates here (bytes); 0 (default) = 2 segments; rate credit only */
    uint64_t rto_ns;       /* retransmission timeout (the minimum RTO), default 200000000 (200 ms); > 0 */
    uint32_t param[6];     /* protocol parameters (each protocol documents them), default 0 */
} tp_flow_config;

/* What a hook sees (App. F's input ports). Window state is as after the incoming packet's fixed
 * stage (for an incoming event) or as read this cycle (periodic). */
typedef struct tp_event {
    uint32_t flow;
    bool timeout;            /* periodic: the rtx timer has expired (a timeout event) */
    const rnic_work *pkt;    /* incoming: the control packet; NULL in periodic */
    uint32_t pkt_type;       /* TP_PKT_*; 0 in periodic */
    uint32_t pkt_data;       /* the packet's aux */
    bool ecn;                /* the packet carries TP_WORK_ECN */
    uint32_t cum_ack;        /* the packet's cumulative ack */
    uint32_t sack_start, sack_len; /* its SACK block (len 0: none) */
    uint32_t newly_acked;    /* segments acked by this packet for the first time: cumulatively plus selectively */
    uint32_t newly_sacked;   /* of which selectively (its SACK block) */
    uint32_t old_wnd_start, new_wnd_start;
    uint64_t now;            /* cycle */
    uint64_t now_ns;
    tp_bits acked, marked_for_rtx, rtx_cnt; /* rtx_cnt: retransmitted at least once */
    uint32_t wnd_start;      /* first unacknowledged segment */
    uint32_t wnd_size;       /* segments the flow may have in [wnd_start, wnd_start + wnd_size) */
    uint32_t highest_sent;   /* one past the highest segment ever generated (snd_nxt): sent = highest_sent - wnd_start */
    uint32_t data_end;       /* one past the last segment the flow's queued messages hold */
    uint32_t total_sent;     /* segments generated so far, retransmissions included */
    uint32_t outstanding;    /* segment addresses in the credit engine's ring */
    bool is_idle;            /* nothing left to generate */
    uint64_t timer_amount;   /* rtx timer period, cycles */
    bool timer_running;
    uint64_t rate_bps;       /* rate credit: the flow's rate */
    uint64_t credit;         /* token credit, bytes */
    const tp_flow_config *params;
    uint32_t window_bits;    /* W */
    uint64_t clock_hz;
    const void *config;      /* the protocol's parameter block (tp_protocol.config) */
} tp_event;

/* What a hook may change (App. F's outputs). Preset to "no change". */
typedef struct tp_actions {
    bool mark_rtx;           /* mark [mark_from, mark_to) for retransmission (clipped to the sent part of the window; acked ones skipped) */
    uint32_t mark_from, mark_to;
    uint32_t wnd_size;       /* new window (segments), clamped to [1, W] */
    uint64_t rate_bps;       /* new rate (rate credit), clamped to [min_rate, link]; 0 pauses */
    uint64_t add_credit;     /* token credit to add (bytes), e.g. for retransmissions on timeout */
    uint64_t timer_amount;   /* new rtx timer period (cycles) */
    bool reset_timer;        /* restart the rtx timer: expires at now + timer_amount */
    /* Wake-ups (periodic_every_visit protocols; docs/transport_model.md, "Wake-ups"): when the
     * periodic hook can next change anything, so the engine runs it only at those visits and an
     * idle stretch can be skipped. Preset TP_WAKE_NEXT: at the flow's next visit, as always. */
    uint32_t wake;           /* TP_WAKE_* */
    uint64_t wake_at;        /* TP_WAKE_AT: due at the first visit at or after this cycle; RNIC_NEVER: no time */
    bool wake_sent_on;       /* TP_WAKE_AT: also due at the first visit after total_sent reaches wake_sent */
    uint32_t wake_sent;
} tp_actions;

#define TP_WAKE_NEXT 0u /* the periodic hook runs at the flow's next visit (the preset) */
#define TP_WAKE_AT 1u   /* periodic: it changes nothing before wake_at / wake_sent (or a timeout,
                         * or an incoming hook without TP_WAKE_KEEP): skip the visits before */
#define TP_WAKE_KEEP 2u /* incoming: this hook left the context as it was: the declaration stands */

typedef void (*tp_hook_fn)(const tp_event *ev, void *ctx, tp_actions *act);

#define TP_MERGE_INCOMING 0u /* both hooks changed the context in one cycle: incoming's wins */
#define TP_MERGE_PERIODIC 1u /* ... periodic's wins */

/* A protocol (§3.5): credit type, user context (size and initial value) and two hooks. Hooks run
 * in one cycle: integer arithmetic and the tp_bits helpers only, no loops over the window, no
 * allocation. The context is a byte array of ctx_size (<= the credit type's budget, Table 4).
 * `config` is the protocol's constant parameter block (what the hardware would synthesise in, e.g.
 * a DCQCN variant): init and both hooks see it; `check` (optional) validates it in
 * tp_config_check. A variant is a copy of a protocol with another config. */
typedef struct tp_protocol {
    const char *name;
    uint32_t credit;         /* TP_CREDIT_* */
    uint32_t ctx_size;
    /* Sets the flow's initial context and actions (window, rate, credit, timer amount). */
    void (*init)(const tp_flow_config *p, const void *config, uint64_t clock_hz, void *ctx, tp_actions *act);
    tp_hook_fn incoming;     /* every control packet, the cycle after its fixed stage */
    tp_hook_fn periodic;     /* a periodic visit: at least on rtx timer expiry (and with
                              * periodic_every_visit, at every visit it has not excused: wake) */
    bool periodic_every_visit; /* false: periodic runs only when the timer expired */
    uint32_t merge;          /* TP_MERGE_* */
    const void *config;      /* NULL: the protocol's defaults */
    rnic_err (*check)(const void *config); /* NULL: any config */
} tp_protocol;

TP_API const tp_protocol *tp_protocol_reno(void);
TP_API const tp_protocol *tp_protocol_newreno(void);
TP_API const tp_protocol *tp_protocol_sack(void);
/* Rate and token protocols (Table 3); their parameters and contexts: proto_dcqcn.h, proto_irn.h,
 * proto_ndp.h sections below. */
TP_API const tp_protocol *tp_protocol_dcqcn(void); /* RoCEv2 go-back-N + DCQCN (rate), the paper preset */
TP_API const tp_protocol *tp_protocol_irn(void);   /* IRN (rate) */
TP_API const tp_protocol *tp_protocol_ndp(void);   /* NDP (grant tokens) */

/* Outside pacer (cfg.external_pacer): called from tp_tick. */
typedef struct tp_pacer {
    void (*doorbell)(void *user, uint32_t flow);           /* a segment entered the flow's ring */
    void (*set_rate)(void *user, uint32_t flow, uint64_t bps); /* a hook changed the flow's rate */
    void *user;
} tp_pacer;

/* Timing profiles (tp_config.timing; docs/transport_model.md, "Timing profiles"). */
#define TP_TIMING_PAPER 0u     /* the paper's Fig. 2 cycle: the default */
#define TP_TIMING_TONIC_RTL 1u /* Tonic's published Verilog (minmit/tonic): its pipeline depths, the
                                  active-flow FIFO's registered write-back and re-pick, its timer rules;
                                  window credit only, ring >= 16 (its packet queue) */

typedef struct tp_config {
    uint64_t clock_hz;       /* default 250 MHz (every engine's; the Tonic prototype ran at 100 MHz) */
    uint64_t link_bps;       /* the highest rate (rate credit), default 100 Gb/s */
    uint64_t min_rate_bps;   /* default 100 Kb/s */
    uint32_t max_flows;      /* 1 .. TP_MAX_FLOWS, default 1024 */
    uint32_t window;         /* W: 64, 128 or 256 segments, default 128 */
    uint32_t ring;           /* N: segment addresses per flow in the credit engine, 1 .. 64, default 4 */
    uint32_t message_depth;  /* message port: messages queued per flow, 1 .. 256, default 8 */
    uint32_t incoming_depth; /* incoming port (control-packet FIFO), 1 .. 65536, default 64 */
    uint32_t segment_depth;  /* segment output port, 1 .. 65536, default 16 */
    uint32_t completion_depth; /* completion output port, 1 .. 65536, default 64 */
    const tp_protocol *protocol; /* required */
    bool external_pacer;     /* rate credit by an outside pacer (ratelimit.h): see tp_pacer_source */
    tp_pacer pacer;
    uint64_t start_cycle;
    rnic_trace_fn trace;
    void *trace_user;
    uint16_t trace_id;       /* default RNIC_ENGINE_TRANSPORT */
    uint32_t timing;         /* TP_TIMING_*, default TP_TIMING_PAPER */
} tp_config;

typedef struct tp_stats {
    uint64_t cycles;
    uint64_t messages, segments_new, segments_rtx, segments_out, bytes_out;
    uint64_t acks, acks_dup, newly_acked, completions; /* stale ACKs: errors.by_cause[RNIC_ESTALE] */
    uint64_t timeouts, timeouts_discarded, marks;
    uint64_t periodic_runs;  /* periodic hook calls (a visit a wake-up excused runs none) */
    uint64_t tx_stalls;      /* cycles a ready segment waited for the full TX port */
    uint64_t rate_clamped, window_clamped, timer_clamped; /* hook outputs brought into range */
    uint64_t sack_clipped;   /* SACK blocks reaching beyond what was sent (the rest is used) */
    uint64_t pacer_consumed;
    uint64_t segments_skipped; /* retransmissions acknowledged while in the ring: dropped, not sent */
    rnic_err_stats errors;   /* refused input by cause */
} tp_stats;

/* A snapshot of one flow (tp_flow_state). */
typedef struct tp_flow_view {
    bool open;
    uint32_t wnd_start, wnd_size, highest_sent, data_end, total_sent, outstanding;
    uint32_t messages;       /* queued, not yet fully acknowledged */
    bool timer_running;
    uint64_t timer_deadline, timer_amount;
    uint64_t rate_bps, credit;
    const void *ctx;         /* the user context (protocol's layout) */
} tp_flow_view;

typedef struct tp tp;

TP_API void tp_config_default(tp_config *cfg);
TP_API rnic_err tp_config_check(const tp_config *cfg, const char **field);
TP_API size_t tp_mem_size(const tp_config *cfg);
/* TP_MEM_SIZE: tp_mem_size as an integer constant expression, so firmware can size a static
 * buffer at compile time (for a config tp_config_check accepts it is exactly tp_mem_size(&cfg);
 * tests/test_mem_size_macros.c checks it). Arguments are the config fields that size the
 * memory, and ctx_size = cfg.protocol->ctx_size (NewReno and Reno: sizeof(tp_tcp_ctx), SACK:
 * sizeof(tp_sack_ctx), DCQCN: sizeof(tp_dcqcn_ctx), IRN: TP_IRN_CTX_BYTES, NDP:
 * sizeof(tp_ndp_ctx); or the credit type's budget TP_CTX_MAX_*, an upper bound for any protocol
 * of that type). At the defaults with NewReno: TP_MEM_SIZE(1024, 128, 4, 8, 64, 16, 64,
 * sizeof(tp_tcp_ctx)). Evaluates its arguments several times: pass constants. */
#define TP_MEM_SIZE(max_flows, window, ring, message_depth, incoming_depth, segment_depth, completion_depth,    \
                    ctx_size)                                                                                  \
    (RNIC__MEM_PART((max_flows), tp__flow) + RNIC__MEM_PART((uint64_t)(max_flows) * 3u * ((window) / 64u), uint64_t) + \
     RNIC__MEM_PART((uint64_t)(max_flows) * RNIC__MEM_ALIGN_UP(ctx_size), uint8_t) +                                  \
     RNIC__MEM_PART(RNIC__MEM_ALIGN_UP(ctx_size) * 2u + 8u, uint8_t) +                                                \
     RNIC__MEM_PART((uint64_t)(max_flows) * (message_depth), tp__msg) +                                               \
     RNIC__MEM_PART((uint64_t)(max_flows) * (ring), rnic_work) + 3u * RNIC__MEM_PART((max_flows), uint32_t) +      \
     3u * RNIC__HEAP_MEM(max_flows) + RNIC__MEM_PART((incoming_depth), rnic_work) +       \
     RNIC__MEM_PART((segment_depth), rnic_work) +                                             \
     RNIC__MEM_PART((completion_depth), rnic_work))
/* TP_MEM_SIZE's and TP_RX_MEM_SIZE's parts mirror the init layouts with the common core's
 * RNIC__MEM_PART, RNIC__MEM_ALIGN_UP and RNIC__HEAP_MEM (a timer heap); a port is `depth` records. */
TP_API rnic_err tp_init(tp *t, const tp_config *cfg, void *mem, size_t size);

TP_API void tp_flow_config_default(tp_flow_config *p);
/* Adds a connection (§5: flow ids come from outside). RNIC_ENOENT: flow >= max_flows;
 * RNIC_EEXIST: already open; RNIC_EINVAL: bad params (NULL = defaults), or a protocol parameter
 * out of its documented range (NewReno's param[3]): counted in stats.errors, nothing changed. */
TP_API rnic_err tp_flow_open(tp *t, uint32_t flow, const tp_flow_config *p);
/* Removes it; RNIC_EBUSY while it holds unacknowledged data. */
TP_API rnic_err tp_flow_close(tp *t, uint32_t flow);

/* New data: a message (flow, len 1 .. 2^32 - 1, addr, raddr, tag, op) split into params.seg_size
 * segments, the last shorter. Its tag comes back on the completion once every segment is
 * acknowledged. RNIC_ENOENT unknown or closed flow, RNIC_EINVAL NULL / len 0 / too long,
 * RNIC_EBUSY the flow's message queue is full. Seen by the engine at the next tick. */
TP_API rnic_err tp_push_message(tp *t, const rnic_work *msg);
/* Free slots of the message store over all flows (max_flows x messages minus the messages
 * queued): the port's space. A flow's own queue may still be full: tp_flow_message_room. */
TP_API uint32_t tp_space_message(const tp *t);
/* Messages the flow's own queue takes now (0 for an unknown or closed flow). */
TP_API uint32_t tp_flow_message_room(const tp *t, uint32_t flow);

/* A control packet for the sender (ACK, NACK, CNP, GRANT). Queued; the Incoming pipeline takes
 * one per cycle. Checked at its fixed stage: unknown flow, an ack beyond highest_sent, or a
 * cumulative ack behind wnd_start (stale) is refused there, counted, and changes nothing.
 * RNIC_EBUSY when the FIFO is full, RNIC_EINVAL for NULL or an unknown type. */
TP_API rnic_err tp_push_incoming(tp *t, const rnic_work *pkt);
TP_API uint32_t tp_space_incoming(const tp *t);

TP_API void tp_tick(tp *t);
TP_API uint64_t tp_next_event(const tp *t);
TP_API uint64_t tp_advance(tp *t, uint64_t cycles);
TP_API uint64_t tp_advance_to(tp *t, uint64_t cycle);
TP_API uint64_t tp_now(const tp *t);

/* Segment output (window, rate and token credit): one per cycle out of the credit engine. */
TP_API rnic_err tp_pop_segment(tp *t, rnic_work *out);
TP_API rnic_err tp_peek_segment(const tp *t, rnic_work *out);
/* Completions: the message record (len = its bytes, tag, FIRST|LAST) once fully acknowledged. */
TP_API rnic_err tp_pop_completion(tp *t, rnic_work *out);
TP_API rnic_err tp_peek_completion(const tp *t, rnic_work *out);

/* External pacer mode: an rnic_source_fn (user = the tp) over each flow's segment ring, indexed
 * by a free-running counter; tp_push_consumed tells the engine the pacer sent the entry
 * (flow, index) of the record (index must be the ring's head: RNIC_ESTALE otherwise; the other
 * fields are not looked at). Acts at the call. tp_space_consumed: UINT32_MAX with an outside
 * pacer (a register-like input that never fills), 0 without one. */
TP_API uint32_t tp_pacer_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max);
TP_API rnic_err tp_push_consumed(tp *t, const rnic_work *w);
TP_API uint32_t tp_space_consumed(const tp *t);

TP_API const tp_stats *tp_get_stats(const tp *t);
/* A snapshot of the flow; RNIC_ENOENT (out->open false) for an unknown or closed flow. */
TP_API rnic_err tp_flow_state(const tp *t, uint32_t flow, tp_flow_view *out);

/* ---- the compatible receiver (rnic_work records in and out, one packet per cycle) ---- */

typedef struct tp_rx_config {
    uint64_t clock_hz;       /* default 250 MHz */
    uint32_t max_flows;      /* default 1024 */
    uint32_t window;         /* receive bitmap bits: 64, 128 or 256, default 128 */
    uint32_t delack_count;   /* ACK every n-th in-order segment (ns-3 DelAckCount), 1 = off; default 2 */
    uint64_t delack_ns;      /* delayed-ACK timeout, default 200000000 (ns-3's 200 ms); 1 ns .. 100 s */
    bool nack;               /* out-of-order arrivals answer TP_PKT_NACK instead of an ACK */
    bool sack;               /* ACKs carry a SACK block (default true; false: cumulative only, a TCP without SACK) */
    bool ack_first;          /* a flow's first segment is acknowledged at once, as ns-3's TCP receiver does
                                (its delayed-ACK pairs then start at the second segment); default false */
    bool go_back_n;          /* RoCEv2 responder: out-of-sequence data is discarded (not delivered) and
                                answered with a NAK (TP_PKT_NACK, index = expected PSN); default false */
    uint64_t cnp_interval_ns; /* DCQCN notification point: at most one CNP (TP_PKT_CNP) per flow per
                                interval for CE-marked data (TP_WORK_ECN); 0 (default) = no CNPs; <= 100 s */
    uint32_t cnp_mode;       /* TP_RX_CNP_*: what a mark inside the interval does */
    uint64_t pull_bps;       /* NDP: every arrival (data or trimmed header) queues one pull
                                (TP_PKT_GRANT, aux = the segment's len); pulls leave paced at this rate
                                (len + pull_overhead_bytes per pull); 0 (default) = no pulls */
    uint32_t pull_overhead_bytes; /* per-packet wire bytes the pull pacing adds to len; default 64 */
    uint32_t segment_depth, ack_depth, delivered_depth; /* port depths (1 .. 65536), defaults 64, 64, 64 */
    uint64_t start_cycle;
    rnic_trace_fn trace;
    void *trace_user;
    uint16_t trace_id;       /* default RNIC_ENGINE_TP_RX */
} tp_rx_config;

#define TP_RX_CNP_IMMEDIATE 0u /* a mark within the interval sends nothing (HPCC simulator, NIC firmware) */
#define TP_RX_CNP_DEFERRED 1u  /* marks within the interval send one CNP when it ends (htsim) */

typedef struct tp_rx_stats {
    uint64_t cycles, segments, bytes, duplicates, out_of_window, acks, delayed_acks_sent;
    uint64_t marked, cnps, naks, discarded_out_of_sequence, trimmed, pulls;
    uint64_t ack_stalls;
    rnic_err_stats errors;
} tp_rx_stats;

typedef struct tp_rx tp_rx;

TP_API void tp_rx_config_default(tp_rx_config *cfg);
TP_API rnic_err tp_rx_config_check(const tp_rx_config *cfg, const char **field);
TP_API size_t tp_rx_mem_size(const tp_rx_config *cfg);
/* TP_RX_MEM_SIZE: tp_rx_mem_size as an integer constant expression (exactly tp_rx_mem_size(&cfg)
 * for a config tp_rx_config_check accepts; tested). cnp_interval_ns, cnp_mode and pull_bps only
 * say whether the CNP timers and the pull queue exist (the pull queue holds max_flows x window
 * entries, at most 65,536). At the defaults: TP_RX_MEM_SIZE(1024, 128, 64, 64, 64, 0, 0, 0). */
#define TP_RX_MEM_SIZE(max_flows, window, segment_depth, ack_depth, delivered_depth, cnp_interval_ns,          \
                       cnp_mode, pull_bps)                                                                      \
    (RNIC__MEM_PART((max_flows), tp__rx_flow) + RNIC__MEM_PART((uint64_t)(max_flows) * ((window) / 64u), uint64_t) + \
     RNIC__HEAP_MEM(max_flows) + RNIC__MEM_PART((segment_depth), rnic_work) +                \
     RNIC__MEM_PART((ack_depth), rnic_work) +                                            \
     RNIC__MEM_PART((delivered_depth), rnic_work) +                                      \
     ((cnp_interval_ns) ? RNIC__MEM_PART((max_flows), uint64_t) : 0u) +                                          \
     ((cnp_interval_ns) && (cnp_mode) == TP_RX_CNP_DEFERRED ? RNIC__HEAP_MEM(max_flows) : 0u) +                  \
     ((pull_bps) ? RNIC__MEM_PART((uint64_t)(max_flows) * (window) < 65536u ? (uint64_t)(max_flows) * (window)  \
                                                                          : 65536u,                            \
                                uint64_t)                                                                      \
                 : 0u))
TP_API rnic_err tp_rx_init(tp_rx *r, const tp_rx_config *cfg, void *mem, size_t size);
/* Per-flow parameters of the receiver, fixed while the flow is open (every field's default is 0). */
typedef struct tp_rx_flow_config {
    uint32_t init_seq;       /* id of the flow's first segment (the sender's init_seq), default 0 */
} tp_rx_flow_config;

TP_API void tp_rx_flow_config_default(tp_rx_flow_config *fc);
/* Opens a flow (fc NULL = defaults). RNIC_ENOENT: flow >= max_flows; RNIC_EEXIST: already open. */
TP_API rnic_err tp_rx_flow_open(tp_rx *r, uint32_t flow, const tp_rx_flow_config *fc);
/* Removes it. RNIC_ENOENT: unknown or closed; RNIC_EBUSY while it owes an acknowledgment (a
 * delayed ACK or a deferred CNP) or holds segments beyond its cumulative ack. Pulls already
 * queued for it (NDP) still leave. */
TP_API rnic_err tp_rx_flow_close(tp_rx *r, uint32_t flow);
/* A data segment from the wire (a record tp_pop_segment gave). The receiver's window must be at
 * least the sender's W, or segments beyond it are dropped (counted in out_of_window) and resent. */
TP_API rnic_err tp_rx_push_segment(tp_rx *r, const rnic_work *seg);
TP_API uint32_t tp_rx_space_segment(const tp_rx *r);
TP_API void tp_rx_tick(tp_rx *r);
TP_API uint64_t tp_rx_next_event(const tp_rx *r);
TP_API uint64_t tp_rx_advance(tp_rx *r, uint64_t cycles);
TP_API uint64_t tp_rx_advance_to(tp_rx *r, uint64_t cycle);
TP_API uint64_t tp_rx_now(const tp_rx *r);
/* ACK / NACK records for the sender. */
TP_API rnic_err tp_rx_pop_ack(tp_rx *r, rnic_work *out);
TP_API rnic_err tp_rx_peek_ack(const tp_rx *r, rnic_work *out);
/* Each segment the first time it arrives (out of order too): exactly-once placement. */
TP_API rnic_err tp_rx_pop_delivered(tp_rx *r, rnic_work *out);
TP_API rnic_err tp_rx_peek_delivered(const tp_rx *r, rnic_work *out);
/* A snapshot of one receiver flow (tp_rx_flow_state). */
typedef struct tp_rx_flow_view {
    bool open;
    uint32_t expected;       /* the next segment id the flow expects (its cumulative ack) */
    uint32_t held;           /* segments received beyond expected */
    uint32_t pending;        /* in-order segments not yet acknowledged (delayed ACK) */
    bool delack_running;     /* the delayed-ACK timer runs */
} tp_rx_flow_view;

/* The flow's state; RNIC_ENOENT (all zero) for an unknown or closed flow. */
TP_API rnic_err tp_rx_flow_state(const tp_rx *r, uint32_t flow, tp_rx_flow_view *out);
TP_API const tp_rx_stats *tp_rx_get_stats(const tp_rx *r);
