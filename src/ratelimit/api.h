/* ratelimit.h: linkage and version. */
#define RL_VERSION_MAJOR 0
#define RL_VERSION_MINOR 1
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

/* ---- Tassel rate limiter (cycle semantics: docs/tassel_model.md) ---- */

#define RL_MAX_QPS 65536u
#define RL_NEVER UINT64_MAX /* rl_next_event: nothing will happen without new input */

/* One work queue element as the host posted it: a message of len bytes (1 .. 2^31). */
typedef struct rl_wqe {
    uint32_t id;
    uint32_t len;
} rl_wqe;

/* The WQE source (the host's send queues, read over PCIe): copy up to `max` WQEs of `qp`,
 * starting with the `seq`-th WQE ever posted to it (seq counts from 0, wraps mod 2^32),
 * into out[]; return how many. Called when a fetch completes. Must not call back into rl. */
typedef uint32_t (*rl_wqe_fetch_fn)(void *user, uint32_t qp, uint32_t seq, rl_wqe *out, uint32_t max);

typedef struct rl_config {
    uint64_t clock_hz;       /* default 250 MHz (4 ns cycles, as in the paper) */
    uint64_t link_bps;       /* default 100 Gb/s; up to 800 Gb/s */
    uint64_t min_rate_bps;   /* smallest accepted QP rate, default 100 Kb/s */
    uint32_t max_qps;        /* 1 .. RL_MAX_QPS, default 1024 */
    uint32_t mtu;            /* packet payload bytes, 64 .. 65536, default 4096 */
    uint32_t pcie_latency;   /* WQE fetch latency and wheel span in cycles, default 250 */
    uint32_t fetch_wqes;     /* n: WQEs fetched (and packets cut) per round, default 8 */
    uint32_t desc_capacity;  /* k: descriptor buffer for urgent packets, default 60 */
    uint32_t event_capacity; /* EMUX input port depth, default 64 */
    uint32_t tx_capacity;    /* TX output port depth, default 64 */
    rl_wqe_fetch_fn fetch;   /* required */
    void *fetch_user;
} rl_config;

/* A transmitted packet, as popped from the TX port. */
typedef struct rl_tx {
    uint64_t cycle;  /* the cycle it left the rate limiter */
    uint32_t qp;
    uint32_t wqe_id;
    uint32_t offset; /* byte offset in the WQE's message */
    uint32_t len;
    uint32_t last;   /* 1 when this packet ends its WQE */
} rl_tx;

typedef struct rl_qp_stats {
    uint64_t packets, bytes;
} rl_qp_stats;

typedef struct rl_stats {
    uint64_t cycles, packets, bytes;
    uint64_t doorbells, rate_updates, credit_updates;
    uint64_t fetches, wqes_fetched, packets_computed, packets_dropped; /* dropped: fetch-and-drop, refetched later */
    uint64_t desc_full;         /* rounds cut short by a full descriptor buffer */
    uint64_t fetch_gated;       /* cycles a queued QP waited: no descriptor slot for its fetch */
    uint64_t heap_ops;          /* P-heap operations started */
    uint64_t tx_stalls;         /* cycles a packet was ready but the TX port was full */
    uint64_t event_port_full;   /* pushes refused with RNIC_EBUSY */
    uint64_t max_phi_q32;       /* largest oversubscription factor seen, Q32.32 */
    rnic_err_stats errors;      /* refused input by cause */
} rl_stats;

/* Opaque-by-convention engine state (fields are visible so firmware can place it statically). */
typedef struct rl rl;

RL_API void rl_config_default(rl_config *cfg);
/* Bytes of caller memory rl_init needs for cfg; 0 when cfg is invalid. */
RL_API size_t rl_mem_size(const rl_config *cfg);
/* Engine state bytes per QP (what scales with max_qps) for cfg; 0 when invalid. */
RL_API size_t rl_mem_per_qp(const rl_config *cfg);
RL_API rnic_err rl_init(rl *r, const rl_config *cfg, void *mem, size_t size);

/* EMUX input port. RNIC_ENOENT unknown QP, RNIC_ERANGE rate outside [min_rate, link],
 * RNIC_EBUSY port full; refused input changes nothing. */
RL_API rnic_err rl_push_doorbell(rl *r, uint32_t qp);
RL_API rnic_err rl_push_rate(rl *r, uint32_t qp, uint64_t bps);
RL_API rnic_err rl_push_credit(rl *r, uint32_t qp, bool has_credit);

/* Advance exactly one cycle. */
RL_API void rl_tick(rl *r);
/* Earliest cycle >= now at which a tick could do anything without new input; RL_NEVER when
 * nothing will (or when only popping the full TX port would unblock it). */
RL_API uint64_t rl_next_event(const rl *r);
/* Run `cycles` cycles, skipping idle stretches; identical results to that many rl_tick. */
RL_API void rl_advance(rl *r, uint64_t cycles);

/* TX output port: RNIC_EEMPTY when nothing waits. */
RL_API rnic_err rl_pop_tx(rl *r, rl_tx *out);

RL_API uint64_t rl_now(const rl *r);
RL_API const rl_stats *rl_get_stats(const rl *r);
/* Per-QP counters; NULL for an unknown QP. */
RL_API const rl_qp_stats *rl_get_qp_stats(const rl *r, uint32_t qp);
/* Current oversubscription factor Phi (Q32.32). */
RL_API uint64_t rl_phi_q32(const rl *r);

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

#define RL_MAX_DESC 256u  /* upper bound of desc_capacity (k) */
#define RL_MAX_FETCH 64u  /* upper bound of fetch_wqes (n) */

typedef struct rl_qp { /* per-QP scheduling state */
    uint64_t rate_bps;
    rnic_q32 cpb;
    rnic_ftime finish;  /* virtual finish of the last packet stored for this QP */
    uint64_t resched;   /* timeline key while DORMANT: reschedule time, whole virtual cycle */
    uint32_t wqe_seq;   /* cursor: next WQE (sequence number at the source) ... */
    uint32_t offset;    /* ... and byte offset in it */
    uint16_t outstanding; /* descriptors held (up to desc_capacity = 256) */
    uint8_t state, credit, doorbell_pending;
} rl_qp;

typedef struct rl_desc { /* one urgent packet in the descriptor buffer */
    rnic_ftime start, finish;
    uint64_t number; /* global descriptor number: tie-break and stable identity */
    uint32_t qp, wqe_id, offset, len, last;
} rl_desc;

typedef struct rl_event {
    uint32_t kind, qp;
    uint64_t value;
} rl_event;

typedef struct rl_timed_qp { /* a QP in a fixed-latency pipeline */
    uint64_t cycle;
    uint32_t qp;
} rl_timed_qp;

typedef struct rl_heap_insert { /* an enqueue travelling down the P-heap */
    uint64_t settle; /* cycle from which dequeues see it */
    uint64_t key;    /* reschedule time, whole virtual cycle */
    uint64_t ins;    /* insertion number */
    uint32_t qp;
} rl_heap_insert;

struct rl {
    rl_config cfg;
    uint64_t now;
    rnic_ftime T;           /* virtual system time */
    rnic_ftime A_mono;      /* largest activation time seen */
    rnic_q32 inc;           /* system-time step per cycle: 1 / max(1, Phi) */
    rnic_q32 phi;           /* Phi */
    rnic_q32 lookahead;     /* Lambda = L / max(1, Phi) */
    rnic_q32 link_cpb;
    uint64_t sum_active_bps;
    rnic_ftime link_t;      /* when the link finishes the last packet */
    uint64_t link_free;     /* first cycle the link is idle */
    uint32_t heap_height;
    uint64_t heap_next_op;
    uint64_t heap_inserts;  /* insertion numbers (timeline tie-break) */
    uint64_t desc_numbers;
    rl_qp *qps;
    rl_qp_stats *qp_stats;
    /* timeline (P-heap order): settled entries in a radix heap on (key, insertion order);
     * keys are QPs' `resched`, lists run through tl_next (RNIC_NONE ends a list) */
    uint32_t *tl_next, *tl_prev; /* tl_prev: the late list only */
    uint32_t tl_head[65], tl_tail[65]; /* bucket b > 0: keys whose highest bit differing from tl_base is b - 1 */
    uint64_t tl_nonempty;              /* bit b - 1: bucket b (1..64) holds entries */
    uint64_t tl_base;                  /* the last key dequeued from the buckets */
    uint32_t tl_min;                   /* the smallest bucketed entry */
    uint32_t tl_late_head, tl_late_tail; /* keys < tl_base that settled late, sorted */
    uint32_t heap_count;               /* settled entries */
    rnic_ring insert_requests; /* QPs waiting for a P-heap operation slot (uint32_t) */
    rnic_ring inserts_in_flight; /* rl_heap_insert: enqueues not yet settled */
    rnic_ring deliveries;      /* rl_timed_qp: dequeued QPs on their way to the FIFO */
    rnic_ring schedule;        /* uint32_t: the schedule FIFO */
    rnic_ring fetches;         /* rl_timed_qp: outstanding WQE fetches */
    rnic_ring events;          /* rl_event: EMUX input port */
    rnic_ring tx;              /* rl_tx: output port */
    rl_desc desc[RL_MAX_DESC];
    uint64_t desc_used[RL_MAX_DESC / 64u]; /* slot holds a packet */
    uint16_t desc_waiting[RL_MAX_DESC];    /* binary heap of slots by start: not yet eligible */
    uint16_t desc_ready[RL_MAX_DESC];      /* binary heap of slots by (finish, number): eligible */
    uint32_t n_waiting, n_ready;
    uint32_t desc_count;
    rl_wqe fetched[RL_MAX_FETCH];
    rl_stats stats;
};
