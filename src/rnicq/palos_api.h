/* ---- the Palos chunk slicer (Palos, shared/seeds/001, §IV; contract: docs/palos_model.md) ----
 * Sits between doorbells and an unmodified protocol engine and rewrites WQEs so that every active
 * QP moves its chunk of data per scheduling round, whatever its message sizes: a WQE larger than
 * the chunk is cut (address and length adjusted), WQEs smaller than it are passed on together
 * until the chunk is used. Chunks come from hierarchical weights (rq_pw: Eq. 1/2, Fig. 6).
 *
 * Workflow of Fig. 5, one operation per module per cycle (modules evaluated back to front, so a
 * doorbell taken in cycle t is fetched in t+1):
 *   doorbell module  one flow per cycle from the FIFO of flows whose tail register was written
 *                    (coalesced: the newest tail); an idle QP enters the schedule queue of its
 *                    class, an active one only moves its tail;
 *   schedule queues  FIFOs of QP ids: the latency class (strict priority, §IV-C) and the
 *                    bandwidth class; a QP is in at most one place at a time;
 *   WQE fetch        one QP per cycle (latency queue first) into a free fetch slot of its class:
 *                    a batch of up to max_batch WQEs that is there fetch_latency_ns later (the
 *                    entries themselves are read from cfg.source by the slicer as it reaches
 *                    them, one per call: docs/palos_model.md, Fig. 5 step by step); each class's
 *                    slots are served in order, a ready latency-class batch before a bandwidth one;
 *   message slicing  one launch per cycle into the output port (Fig. 5: "launches multiple WQEs at
 *                    one time"): up to launch_wqes records of one visit and one batch; credit = the QP's chunk plus
 *                    what it carried (deficit round robin). A WQE no larger than the chunk goes
 *                    whole (small WQEs are combined; the last may overdraw the credit, and the
 *                    deficit is carried); a larger one is cut where the credit ends. A visit goes
 *                    on while credit is left, reading the QP's next batch (fetch_latency_ns later)
 *                    when the current one runs out, so max_batch never cuts a chunk short (with
 *                    cut_align a cut falls on a segment boundary and a visit goes on only while
 *                    its credit pays a whole segment). Head and
 *                    fetch offset are written back once per launch; at the visit's end the QP
 *                    re-enters the tail of its queue while WQEs remain.
 * The latency class (§IV-C) sends messages of at most priority_max_msg bytes (larger ones are
 * refused), one per visit, before any bandwidth visit (a long bandwidth visit steps aside at its
 * next batch boundary and resumes after): it is strict priority, outside the weights, for flows
 * the control path marks as latency-sensitive.
 * PACKET_RR mode is the commodity baseline (§II-B): every visit sends one packet,
 * min(MTU, rest of the WQE), and there is no priority queue.
 * Beyond the paper (issue 30): rq_palos_flow_hold, the protocol engine's per-QP ready bit, keeps a
 * QP whose downstream queue is full out of the schedule, so it never blocks the others. */

typedef enum rq_palos_mode { RQ_PALOS_CHUNK = 0, RQ_PALOS_PACKET_RR = 1 } rq_palos_mode;
typedef enum rq_palos_class { RQ_PALOS_BANDWIDTH = 0, RQ_PALOS_LATENCY = 1 } rq_palos_class;

typedef struct rq_palos_config {
    rq_pw_config weights;      /* max_flows, max_groups, mtu (N = QPs x mtu); max_flows x mtu <= 2^30 */
    uint32_t mode;             /* rq_palos_mode */
    uint32_t ring_entries;     /* WQE ring size of every QP (overrun check), 1 .. 2^24; default 4096 */
    uint32_t piece_depth;      /* the piece port: launches waiting for the protocol engine (each of up to
                                  launch_wqes records); default 2 (a shallow hand-off: the schedule, not a queue
                                  behind it, decides what goes next); piece_depth x launch_wqes <= 2^20 */
    uint32_t fetch_slots;      /* batch reads in flight per class; default 16 */
    uint64_t fetch_latency_ns; /* from fetch to slicing (WQE buffer read); default 16 ns (4 cycles at 250 MHz),
                                  converted to cycles (nearest) once at init; at most 2^20 cycles */
    uint32_t max_batch;        /* WQEs per read, 1 .. 4096; default 64 */
    uint32_t launch_wqes;      /* output WQEs the slicing module launches in one cycle (Fig. 5: "if the message
                                  is smaller than 4 KB [the chunk], the Message Slice module launches multiple
                                  WQEs at one time"); a launch holds WQEs of one visit and one batch; 1 .. 4096,
                                  default 64 (a whole batch); 1: one output WQE per cycle */
    uint32_t priority_max_msg; /* the latency class's largest message (one per visit); default 4096 */
    uint32_t packet_overhead;  /* bytes charged per packet of a piece (0: chunks count payload, as in
                                  the paper; the wire header to make chunks shares of link time); <= 4096 */
    uint32_t cut_align;        /* 0: off (default). Else a WQE cut over several visits is cut at multiples of
                                  cut_align bytes from its start (a segment size, e.g. an MTU of 4096), the
                                  rest of the credit carried, so that only a WQE's last piece is shorter than
                                  a segment; 1 .. 2^24 (CHUNK mode; PACKET_RR ignores it) */
    uint64_t clock_hz;         /* default 250 MHz; 1 MHz .. 100 GHz */
    uint64_t start_cycle;      /* rq_palos_now() after init; default 0 (a test starts near the 2^64 wrap) */
    rnic_source_fn source;     /* the WQE rings: entries of a flow by free-running ring counter (required) */
    void *source_user;
    rnic_trace_fn trace;       /* NULL: no trace events */
    void *trace_user;
    uint16_t trace_id;         /* the `engine` of its events; default RNIC_ENGINE_PALOS */
} rq_palos_config;

/* Output pieces are rnic_work records: flow, index (the WQE's ring counter), offset and len of the
 * piece, addr/raddr = the entry's + offset, tag and op carried untouched, cycle = when the slicing
 * module emitted it, flags RNIC_WORK_FIRST / RNIC_WORK_LAST (the WQE is done: its ring slot may be
 * reused) / RNIC_WORK_ERROR (the WQE was refused, `status` says why, len 0: length 0 or above 2^31,
 * last byte or last remote byte beyond 2^64 - 1, an entry the source flagged RNIC_WORK_ERROR or did
 * not return (RNIC_ENOENT), above priority_max_msg on a latency-class QP (RNIC_ERANGE)), plus: */
#define RQ_PALOS_VISIT_END (1u << RNIC_WORK_ENGINE_SHIFT) /* the last piece of this QP's visit (its chunk or
                                  its WQEs ran out), or of its part before it stepped aside for a latency batch */

/* Trace events in the contract's layout (docs/engine_contract.md, "Trace"): RNIC_TRACE_PUSH, a
 * doorbell taken by the doorbell module: id = flow, a = the tail (the register's value), b = WQEs
 * it added; RNIC_TRACE_REFUSE, a refused call: id = flow or group or RNIC_NONE, a = the value
 * refused (tail, weight, class), b = the rnic_err; RNIC_TRACE_OUT (a piece or error record
 * produced) and RNIC_TRACE_POP (taken): id = flow, a = the WQE's index, b = the piece's len. The
 * engine's own kinds: */
#define RQ_PALOS_TRACE_VISIT_START 16u /* id = flow, a = credit of the visit (int64), b = its chunk */
#define RQ_PALOS_TRACE_VISIT_END 17u   /* id = flow, a = credit carried (int64), b = WQEs left posted */
#define RQ_PALOS_TRACE_FETCH 18u       /* a batch read: id = flow, a = WQEs, b = cycle it is readable */
#define RQ_PALOS_TRACE_PAUSE 19u       /* a bandwidth visit steps aside for a latency batch: id = flow */
#define RQ_PALOS_TRACE_RESUME 20u      /* and resumes: id = flow */
#define RQ_PALOS_TRACE_HOLD 21u        /* rq_palos_flow_hold changed a flow's hold: id = flow, a = 1 held / 0
                                          released, b = WQEs posted not yet sliced */
#define RQ_PALOS_TRACE_PARK 22u        /* a held QP kept out of its schedule queue (stats.held_parks): id = flow,
                                          a = the credit it keeps (int64), b = WQEs posted not yet sliced */

/* Why a call or a WQE was refused: each refusal is counted once, in stats.errors by its code
 * and, when it has one, in stats.reasons by its reason (rq_palos_reason_message names what to
 * change). A WQE the source itself flagged RNIC_WORK_ERROR keeps the source's code: errors only. */
#define RQ_PALOS_REASONS(R)                                                                                    \
    R(RQ_PALOS_REASON_NULL, RNIC_EINVAL, null_pointer, "a NULL record or flow config")                        \
    R(RQ_PALOS_REASON_FLOW_CLASS, RNIC_EINVAL, flow_class, "a flow class other than RQ_PALOS_BANDWIDTH / RQ_PALOS_LATENCY") \
    R(RQ_PALOS_REASON_UNKNOWN, RNIC_ENOENT, unknown,                                                          \
      "a flow >= weights.max_flows or not open, or a group not created or >= weights.max_groups")              \
    R(RQ_PALOS_REASON_WEIGHT_RANGE, RNIC_ERANGE, weight_range, "a group or flow weight outside 1 .. 65535")   \
    R(RQ_PALOS_REASON_GROUP_EXISTS, RNIC_EEXIST, group_exists, "a group created twice (change it with rq_palos_set_group_weight)") \
    R(RQ_PALOS_REASON_FLOW_BUSY, RNIC_ESTATE, flow_busy, "closing a flow with posted work or in the schedule: drain it first") \
    R(RQ_PALOS_REASON_DOORBELL_STALE, RNIC_ESTALE, doorbell_stale, "a doorbell whose tail does not move forward") \
    R(RQ_PALOS_REASON_RING_OVERRUN, RNIC_ENOSPC, ring_overrun,                                                \
      "a doorbell more than ring_entries ahead of the flow's head: raise ring_entries")                        \
    R(RQ_PALOS_REASON_WQE_MISSING, RNIC_ENOENT, wqe_missing, "a posted WQE the source did not return")        \
    R(RQ_PALOS_REASON_WQE_BAD, RNIC_ERANGE, wqe_bad,                                                          \
      "a WQE of length 0 or above 2^31, past 2^64 - 1, or above priority_max_msg in the latency class")
RNIC_REASONS(rq_palos, RQ_PALOS, RQ_PALOS_REASONS)

typedef struct rq_palos_stats {
    uint64_t cycles;
    uint64_t doorbell_writes;/* accepted tail-register writes */
    uint64_t doorbells;      /* taken by the doorbell module (writes to one flow before it are coalesced) */
    uint64_t visits;         /* schedule-queue dequeues that were sliced */
    uint64_t priority_visits;
    uint64_t out_wqes, out_bytes;
    uint64_t launches;       /* cycles in which the slicing module launched records (out_wqes over launches:
                                WQEs per launch) */
    uint64_t wqes_done;      /* WQEs sliced to their end (RNIC_WORK_LAST without RNIC_WORK_ERROR) */
    uint64_t cut_wqes;       /* WQEs split over more than one visit */
    uint64_t combined_visits;/* visits that passed on more than one WQE */
    uint64_t refetches;      /* further batch reads inside a visit (its chunk outlasted a batch) */
    uint64_t preemptions;    /* bandwidth visits paused at a batch boundary for a latency batch */
    uint64_t out_stalls;     /* cycles the slicing module waited on a full output port */
    uint64_t holds;          /* rq_palos_flow_hold writes that held a flow (writes that change nothing: none) */
    uint64_t releases;       /* and that released one */
    uint64_t held_visit_ends;/* visits a hold ended early: before a further launch, or before it began (a
                                fetched batch of a held QP is dropped, its credit untouched) */
    uint64_t held_parks;     /* a held QP with WQEs kept out of its schedule queue (at a visit's end, a
                                doorbell on an idle QP, or taken from the queue by the fetch module) */
    uint64_t bad_wqes;       /* error records produced (WQEs completed with RNIC_WORK_ERROR; an output
                                count like wqes_done: each refused WQE is also in errors, by its code) */
    rnic_err_stats errors;   /* refused calls and refused WQEs by cause, each counted once: a control call the
                                weights table refuses is counted here, not in rq_palos_weights(p)->errors */
    rq_palos_reason_stats reasons; /* the same refusals by reason (RQ_PALOS_REASONS) */
} rq_palos_stats;

typedef struct rq_palos rq_palos;

RQ_API void rq_palos_config_default(rq_palos_config *cfg);
/* RNIC_OK, or RNIC_EINVAL with *field naming the offending config field. */
RQ_API rnic_err rq_palos_config_check(const rq_palos_config *cfg, const char **field);
RQ_API size_t rq_palos_mem_size(const rq_palos_config *cfg); /* 0: invalid config */
/* RQ_PALOS_MEM_SIZE: rq_palos_mem_size as an integer constant expression, so firmware can size
 * a static buffer at compile time (for a config rq_palos_config_check accepts it is exactly
 * rq_palos_mem_size(&cfg); tests/test_mem_size_macros.c checks it). Arguments are the config
 * fields that size the memory; at the defaults RQ_PALOS_MEM_SIZE(1024, 64, 16, 2, 64).
 * Evaluates its arguments several times: pass constants. */
#define RQ_PALOS_MEM_SIZE(weights_max_flows, weights_max_groups, fetch_slots, piece_depth, launch_wqes)           \
    (RNIC__MEM_PART((weights_max_flows), rq_pw_qp) + RNIC__MEM_PART((weights_max_groups), rq_pw_group) +           \
     RNIC__MEM_PART((weights_max_flows), rq__palos_qp) + 3u * RNIC__MEM_PART((weights_max_flows), uint32_t) +       \
     2u * RNIC__MEM_PART((fetch_slots), rq__palos_slot) +                                                         \
     RNIC__MEM_PART((uint64_t)(piece_depth) * (launch_wqes), rnic_work) + RNIC__MEM_PART((piece_depth), uint32_t))
RQ_API rnic_err rq_palos_init(rq_palos *p, const rq_palos_config *cfg, void *mem, size_t size);

/* Control path (§IV-B): groups and flows (QPs). A flow must be open (in a group) before its
 * doorbells are taken. */
RQ_API rnic_err rq_palos_create_group(rq_palos *p, uint32_t group, uint32_t weight);
RQ_API rnic_err rq_palos_set_group_weight(rq_palos *p, uint32_t group, uint32_t weight);

/* A flow's control-path settings (the QP table entry, Fig. 6). */
typedef struct rq_palos_flow_config {
    uint32_t group;  /* its group (tenant), created first with rq_palos_create_group; default 0 */
    uint32_t weight; /* 1 .. 65535 inside the group; default 1 */
    uint32_t cls;    /* rq_palos_class: RQ_PALOS_BANDWIDTH (default) or RQ_PALOS_LATENCY */
} rq_palos_flow_config;
RQ_API void rq_palos_flow_config_default(rq_palos_flow_config *fc);
/* Open a flow in a group with a weight and a traffic class. Opening a flow that is open moves it
 * or changes its weight or class (the control path rewrites its QP table entry): that takes
 * effect at its next visit (a queued flow keeps its queue place). RNIC_EINVAL a NULL config or a
 * bad class, RNIC_ENOENT flow >= weights.max_flows or a group that does not exist, RNIC_ERANGE a
 * weight out of range (all counted). */
RQ_API rnic_err rq_palos_flow_open(rq_palos *p, uint32_t flow, const rq_palos_flow_config *fc);
/* Only an idle flow with no posted work (RNIC_ESTATE otherwise; RNIC_ENOENT not open). */
RQ_API rnic_err rq_palos_flow_close(rq_palos *p, uint32_t flow);
/* A flow's state (the struct is rq_palos_flow_view: a C name cannot be both a function and a type). */
typedef struct rq_palos_flow_view {
    uint32_t open;    /* 1: in a group */
    uint32_t head;    /* next WQE to slice (ring counter) */
    uint32_t offset;  /* fetch offset inside WQE head */
    uint32_t tail;    /* the newest accepted doorbell (the tail register) */
    uint32_t held;    /* 1: rq_palos_flow_hold holds it (not served) */
} rq_palos_flow_view;
/* RNIC_EINVAL a NULL engine or out, RNIC_ENOENT flow >= weights.max_flows (not counted: a query). */
RQ_API rnic_err rq_palos_flow_state(const rq_palos *p, uint32_t flow, rq_palos_flow_view *out);

/* Doorbell: write the flow's tail register (free-running ring counter of the next WQE the host
 * will write). Writes are coalesced: the doorbell module takes one flow per cycle, in the order
 * the flows first rang, and applies its newest tail. RNIC_ENOENT unknown flow, RNIC_ESTALE a tail
 * that does not move forward, RNIC_ENOSPC a tail more than ring_entries ahead of the flow's head
 * (ring overrun); all counted, the register unchanged. Never RNIC_EBUSY. */
RQ_API rnic_err rq_palos_doorbell(rq_palos *p, uint32_t flow, uint32_t tail);
/* Back-pressure (beyond the paper, issue 30): the protocol engine's per-QP ready bit, a register
 * write effective at once. A held flow is not served: it does not enter a schedule queue (at a
 * visit's end, a doorbell on an idle flow, or when the fetch module takes it from its queue it is
 * parked instead), a fetched batch of it is dropped when its visit would begin, and a visit of it
 * in progress ends before its next launch (the records already launched stay in the port; none
 * of them is marked VISIT_END by the hold). Its carried credit is kept as a visit's end leaves it.
 * hold = false: a parked flow with WQEs re-enters the tail of its class's queue at once. Writing
 * the state a flow is in: RNIC_OK, nothing changes. RNIC_ENOENT flow >= weights.max_flows or not
 * open (counted); closing a flow clears its hold. */
RQ_API rnic_err rq_palos_flow_hold(rq_palos *p, uint32_t flow, bool hold);
RQ_API void rq_palos_tick(rq_palos *p);
/* The next piece: RNIC_EEMPTY when none (not counted), RNIC_EINVAL for a NULL pointer (counted). */
RQ_API rnic_err rq_palos_pop_piece(rq_palos *p, rnic_work *out);
RQ_API rnic_err rq_palos_peek_piece(const rq_palos *p, rnic_work *out); /* a copy, the piece stays */
RQ_API uint64_t rq_palos_now(const rq_palos *p);
/* Earliest cycle >= now at which a tick changes anything without new input; RNIC_NEVER when
 * nothing happens until new input (a doorbell, a control call) or a pop of a full output port.
 * O(1). */
RQ_API uint64_t rq_palos_next_event(const rq_palos *p);
/* Up to `cycles` cycles with the results of as many ticks, skipping idle stretches; stops right
 * after the tick in which the output port became full. Returns the cycles run. */
RQ_API uint64_t rq_palos_advance(rq_palos *p, uint64_t cycles);
RQ_API uint64_t rq_palos_advance_to(rq_palos *p, uint64_t cycle); /* advance(cycle - now), mod 2^64 */
/* WQEs posted and not yet sliced to their end, over all QPs. */
RQ_API uint64_t rq_palos_backlog(const rq_palos *p);
RQ_API const rq_palos_stats *rq_palos_get_stats(const rq_palos *p);
RQ_API const rq_pw *rq_palos_weights(const rq_palos *p);

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

typedef struct rq__palos_qp {
    uint32_t head;      /* next WQE to slice (ring counter) */
    uint32_t tail;      /* as applied by the doorbell module */
    uint32_t posted;    /* latest accepted doorbell (checked at the port) */
    uint32_t offset;    /* fetch offset inside WQE head */
    int64_t credit;     /* carried to the next visit: a deficit (< 0) after a small WQE went whole
                           past the chunk, or a surplus of at most one chunk plus one packet */
    uint8_t cls;
    uint8_t where;      /* RQ__PALOS_IDLE / QUEUED / FETCHING */
    uint8_t cut;        /* WQE head already had a piece sent in an earlier visit */
    uint8_t db_pending; /* in the doorbell FIFO: posted not yet applied to tail */
    uint8_t held;       /* rq_palos_flow_hold: not served (parked: IDLE with WQEs applied) */
} rq__palos_qp;

typedef struct rq__palos_slot { /* a batch read in flight */
    uint64_t ready;
    uint32_t qp, count;
} rq__palos_slot;

typedef struct rq__palos_visit { /* the slicing module's registers */
    uint64_t ready;            /* cycle its current batch is readable */
    int64_t credit;            /* bytes the visit may still send (< 0: overdrawn, the visit ends) */
    uint32_t active, qp, left; /* WQEs of the batch not yet finished */
    uint32_t small;            /* WQEs up to this size go whole: the chunk (priority_max_msg) */
    uint32_t latency;          /* a latency-class visit: one message, no packet_overhead charge */
    uint32_t emitted_wqes;     /* WQEs passed on (whole or the end of one) */
    uint32_t have_wqe;
    uint32_t head, offset;     /* the QP's head and fetch offset as the visit moves them; written back to the
                                  QP table once per launch (Fig. 5 step 6) */
    uint32_t cut;              /* WQE head already had a piece sent in an earlier visit */
    uint32_t new_batch;        /* the visit read a further batch: the launch ends (one batch per launch) */
    rnic_work wqe;             /* the WQE at the QP's head, as read */
} rq__palos_visit;

struct rq_palos {
    rq_palos_config cfg;
    rq_pw weights;
    rq__palos_qp *qps;
    rnic_ring doorbells;   /* flows with a pending tail, in the order they rang (capacity max_flows) */
    rnic_ring queue[2];    /* schedule queues: [RQ_PALOS_BANDWIDTH], [RQ_PALOS_LATENCY] */
    rnic_ring slots[2];    /* rq__palos_slot per class, each in fetch order */
    rnic_ring out;         /* rnic_work: piece_depth launches of up to launch_wqes records */
    uint32_t *launch_len;  /* records left in each launch in the port (a FIFO of piece_depth) */
    uint32_t launch_head, launch_count;
    uint32_t launch_now;   /* records of the launch being built in this cycle */
    rq__palos_visit visit;
    rq__palos_visit paused; /* a long bandwidth visit stepped aside for a latency batch */
    uint64_t now;
    uint32_t fetch_latency; /* cycles (fetch_latency_ns at clock_hz) */
    uint32_t seg_charge;    /* what a cut_align segment costs a bandwidth visit (payload + overhead) */
    uint64_t backlog;
    rnic_trace trace;       /* cfg.trace, cfg.trace_user (RNIC__TRACE) */
    uint16_t trace_id;
    rq_palos_stats stats;
};
