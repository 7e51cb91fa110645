/* ---- the Palos chunk slicer (Palos, shared/seeds/001, §IV; contract: docs/palos_model.md) ----
 * Sits between doorbells and an unmodified protocol engine and rewrites WQEs so that every active
 * QP moves its chunk of data per scheduling round, whatever its message sizes: a WQE larger than
 * the chunk is cut (address and length adjusted), WQEs smaller than it are passed on together
 * until the chunk is used. Chunks come from hierarchical weights (rq_pw: Eq. 1/2, Fig. 6).
 *
 * Workflow of Fig. 5, one operation per module per cycle (modules evaluated back to front, so a
 * doorbell taken in cycle t is fetched in t+1):
 *   doorbell module  one (qp, tail) per cycle from a bounded port; an idle QP enters the schedule
 *                    queue of its class, an active one only moves its tail;
 *   schedule queues  FIFOs of QP ids: the latency class (strict priority, §IV-C) and the
 *                    bandwidth class; a QP is in at most one place at a time;
 *   WQE fetch        one QP per cycle (latency queue first) into a free fetch slot of its class:
 *                    a batch of up to max_batch WQEs read from the WQE buffer (the caller's
 *                    callback) that arrives fetch_latency cycles later; each class's slots are
 *                    served in order, a ready latency-class batch before a bandwidth one;
 *   message slicing  one output WQE per cycle into the output port: credit = the QP's chunk plus
 *                    what it carried (deficit round robin). A WQE no larger than the chunk goes
 *                    whole (small WQEs are combined; the last may overdraw the credit, and the
 *                    deficit is carried); a larger one is cut where the credit ends. A visit goes
 *                    on while credit is left, reading the QP's next batch (fetch_latency later)
 *                    when the current one runs out, so max_batch never cuts a chunk short. At the
 *                    end head and fetch offset are written back and the QP re-enters the tail of
 *                    its queue while WQEs remain.
 * The latency class (§IV-C) sends messages of at most priority_max_msg bytes (larger ones are
 * refused), one per visit, before any bandwidth visit (a long bandwidth visit steps aside at its
 * next batch boundary and resumes after): it is strict priority, outside the weights, for flows
 * the control path marks as latency-sensitive.
 * PACKET_RR mode is the commodity baseline (§II-B): every visit sends one packet,
 * min(MTU, rest of the WQE), and there is no priority queue. */

typedef enum rq_palos_mode { RQ_PALOS_CHUNK = 0, RQ_PALOS_PACKET_RR = 1 } rq_palos_mode;
typedef enum rq_palos_class { RQ_PALOS_BANDWIDTH = 0, RQ_PALOS_LATENCY = 1 } rq_palos_class;

typedef struct rq_palos_config {
    rq_pw_config weights;      /* max_qps, max_groups, mtu (N = QPs x mtu); max_qps x mtu <= 2^30 */
    uint32_t mode;             /* rq_palos_mode */
    uint32_t ring_entries;     /* WQE ring size of every QP (overrun check), 1 .. 2^24; default 4096 */
    uint32_t doorbell_port;    /* doorbells waiting for the doorbell module; default 64 */
    uint32_t out_port;         /* output WQEs waiting for the protocol engine; default 2 (a shallow hand-off: the
                                  schedule, not a queue behind it, decides what goes next) */
    uint32_t fetch_slots;      /* batch reads in flight per class; default 16 */
    uint32_t fetch_latency;    /* cycles from fetch to slicing (WQE buffer read); default 4 */
    uint32_t max_batch;        /* WQEs per read, 1 .. 4096; default 64 */
    uint32_t priority_max_msg; /* the latency class's largest message (one per visit); default 4096 */
    uint32_t packet_overhead;  /* bytes charged per packet of a piece (0: chunks count payload, as in
                                  the paper; the wire header to make chunks shares of link time); <= 4096 */
} rq_palos_config;

/* A WQE as the host wrote it in the QP's ring (only address and length are rewritten). */
typedef struct rq_wqe {
    uint64_t addr;
    uint64_t user;   /* wr_id, passed through */
    uint32_t len;    /* 1 .. 2^31 bytes; addr + len must not wrap */
    uint32_t flags;  /* opcode and the like, passed through */
} rq_wqe;

/* The WQE buffer: fill *out with the WQE at ring counter `index` of `qp` (the caller reduces
 * index modulo its ring). Called by the slicing module only for posted WQEs. Non-OK return:
 * the WQE is unreadable: completed with RQ_OUT_ERROR and counted under the returned code. */
typedef rnic_err (*rq_palos_wqe_fn)(void *ctx, uint32_t qp, uint32_t index, rq_wqe *out);

#define RQ_OUT_FIRST 1u     /* the piece starts its WQE */
#define RQ_OUT_LAST 2u      /* the piece ends its WQE: the WQE is done */
#define RQ_OUT_VISIT_END 4u /* the last piece of this QP's visit (its chunk or its WQEs ran out), or of
                               its part before it stepped aside for a latency batch */
#define RQ_OUT_ERROR 8u     /* the WQE was refused (length 0 or above 2^31, last byte beyond 2^64 - 1,
                               unreadable, above priority_max_msg on a latency-class QP): len 0 */

typedef struct rq_palos_out {
    uint64_t addr;      /* of the piece: WQE addr + offset */
    uint64_t user;
    uint64_t cycle;     /* when the slicing module emitted it */
    uint32_t qp;
    uint32_t index;     /* ring counter of the source WQE */
    uint32_t offset;    /* of the piece inside the WQE */
    uint32_t len;
    uint32_t wqe_flags; /* the WQE's flags */
    uint32_t flags;     /* RQ_OUT_* */
} rq_palos_out;

typedef struct rq_palos_stats {
    uint64_t cycles;
    uint64_t doorbells;      /* accepted */
    uint64_t visits;         /* schedule-queue dequeues that were sliced */
    uint64_t priority_visits;
    uint64_t out_wqes, out_bytes;
    uint64_t wqes_done;      /* WQEs sliced to their end (RQ_OUT_LAST without RQ_OUT_ERROR) */
    uint64_t cut_wqes;       /* WQEs split over more than one visit */
    uint64_t combined_visits;/* visits that passed on more than one WQE */
    uint64_t refetches;      /* further batch reads inside a visit (its chunk outlasted a batch) */
    uint64_t preemptions;    /* bandwidth visits paused at a batch boundary for a latency batch */
    uint64_t out_stalls;     /* cycles the slicing module waited on a full output port */
    uint64_t bad_wqes;       /* completed with RQ_OUT_ERROR */
    rnic_err_stats errors;   /* refused calls by cause */
} rq_palos_stats;

typedef struct rq_palos rq_palos;

RQ_API void rq_palos_config_default(rq_palos_config *cfg);
RQ_API size_t rq_palos_mem_size(const rq_palos_config *cfg); /* 0: invalid config */
RQ_API rnic_err rq_palos_init(rq_palos *p, const rq_palos_config *cfg, void *mem, size_t size,
                              rq_palos_wqe_fn fetch, void *ctx);

/* Control path (§IV-B): groups and QPs. A QP must be in a group before its doorbells are taken. */
RQ_API rnic_err rq_palos_create_group(rq_palos *p, uint32_t group, uint32_t weight);
RQ_API rnic_err rq_palos_set_group_weight(rq_palos *p, uint32_t group, uint32_t weight);
/* Weight 1 .. 65535, group, traffic class (RQ_PALOS_BANDWIDTH / RQ_PALOS_LATENCY); takes effect
 * at the QP's next visit (a queued QP keeps its queue place). */
RQ_API rnic_err rq_palos_set_qp(rq_palos *p, uint32_t qp, uint32_t group, uint32_t weight, uint32_t cls);
/* Only an idle QP with no posted work (RNIC_ESTATE otherwise). */
RQ_API rnic_err rq_palos_remove_qp(rq_palos *p, uint32_t qp);

/* Doorbell: the QP's new tail (free-running ring counter of the next WQE the host will write).
 * RNIC_ENOENT unknown QP, RNIC_ESTALE a tail that does not move forward, RNIC_ENOSPC a tail more
 * than ring_entries ahead of the QP's head (ring overrun), RNIC_EBUSY port full; all counted. */
RQ_API rnic_err rq_palos_doorbell(rq_palos *p, uint32_t qp, uint32_t tail);
RQ_API void rq_palos_tick(rq_palos *p);
RQ_API rnic_err rq_palos_pop(rq_palos *p, rq_palos_out *out); /* RNIC_EEMPTY: nothing this cycle */
RQ_API const rq_palos_out *rq_palos_peek(const rq_palos *p);  /* NULL when empty */
RQ_API uint64_t rq_palos_now(const rq_palos *p);
/* Earliest cycle >= now at which a tick could do anything without new input (RQ_NEVER: never;
 * a slicing module blocked on a full output port waits for a pop). rq_palos_advance(n) has the
 * results of n ticks, skipping idle stretches. */
RQ_API uint64_t rq_palos_next_event(const rq_palos *p);
RQ_API void rq_palos_advance(rq_palos *p, uint64_t cycles);
/* WQEs posted and not yet sliced to their end, over all QPs. */
RQ_API uint64_t rq_palos_backlog(const rq_palos *p);
/* The QP's head (next WQE to slice) and fetch offset inside it. */
RQ_API rnic_err rq_palos_qp_position(const rq_palos *p, uint32_t qp, uint32_t *head, uint32_t *offset);
RQ_API const rq_palos_stats *rq_palos_get_stats(const rq_palos *p);
RQ_API const rq_pw *rq_palos_weights(const rq_palos *p);

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

typedef struct rq_palos_qp {
    uint32_t head;      /* next WQE to slice (ring counter) */
    uint32_t tail;      /* as applied by the doorbell module */
    uint32_t posted;    /* latest accepted doorbell (checked at the port) */
    uint32_t offset;    /* fetch offset inside WQE head */
    int64_t credit;     /* carried to the next visit: a deficit (< 0) after a small WQE went whole
                           past the chunk, or a surplus of at most one chunk plus one packet */
    uint8_t cls;
    uint8_t where;      /* RQ__PALOS_IDLE / QUEUED / FETCHING */
    uint8_t cut;        /* WQE head already had a piece sent in an earlier visit */
    uint8_t pad;
} rq_palos_qp;

typedef struct rq_palos_slot { /* a batch read in flight */
    uint64_t ready;
    uint32_t qp, count;
} rq_palos_slot;

typedef struct rq_palos_visit { /* the slicing module's registers */
    uint64_t ready;            /* cycle its current batch is readable */
    int64_t credit;            /* bytes the visit may still send (< 0: overdrawn, the visit ends) */
    uint32_t active, qp, left; /* WQEs of the batch not yet finished */
    uint32_t small;            /* WQEs up to this size go whole: the chunk (priority_max_msg) */
    uint32_t latency;          /* a latency-class visit: one message, no packet_overhead charge */
    uint32_t emitted_wqes;     /* WQEs passed on (whole or the end of one) */
    uint32_t have_wqe;
    rq_wqe wqe;                /* the WQE at the QP's head, as read */
} rq_palos_visit;

struct rq_palos {
    rq_palos_config cfg;
    rq_pw weights;
    rq_palos_qp *qps;
    rnic_ring doorbells;   /* {qp, tail} */
    rnic_ring queue[2];    /* schedule queues: [RQ_PALOS_BANDWIDTH], [RQ_PALOS_LATENCY] */
    rnic_ring slots[2];    /* rq_palos_slot per class, each in fetch order */
    rnic_ring out;         /* rq_palos_out */
    rq_palos_visit visit;
    rq_palos_visit paused; /* a long bandwidth visit stepped aside for a latency batch */
    rq_palos_wqe_fn fetch;
    void *ctx;
    uint64_t now;
    uint64_t backlog;
    rq_palos_stats stats;
};
