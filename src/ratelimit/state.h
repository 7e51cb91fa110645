/* ratelimit.h: state.h -- the engine state, transparent so that firmware can place it
 * statically (sizeof(rl)); use the API. The types here are internal (rl__*). */

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

typedef struct rl__qp { /* per-flow scheduling state, packed into 72 bytes (+ 8 B of links in rl) */
    uint64_t finish_cycle;     /* virtual finish of the last packet stored for this flow ... */
    uint64_t prev_start_cycle; /* virtual start of the last packet sent (of the activation if none) */
    uint64_t resched;          /* timeline key while DORMANT: reschedule time, whole virtual cycle */
    rnic_q32 cpb;              /* cycles per byte at the applied rate */
    uint32_t finish_frac, prev_start_frac; /* ... their fractions (rnic_ftime split: no padding) */
    uint32_t index;            /* cursor: next WQE (free-running index at the source) ... */
    uint32_t offset;           /* ... and byte offset in it */
    uint32_t rate_lo, pend_rate_lo; /* applied rate (the last non-zero one while paused) and the
                                   rate register written, not yet applied (0: pause): 40-bit
                                   b/s (<= 800 Gb/s), the top byte in rate_hi / pend_rate_hi */
    uint32_t reg_next;         /* link in the register-write FIFO (RNIC_NONE ends) */
    uint16_t outstanding;      /* descriptors held (up to desc_depth = 256) */
    uint16_t tl_list;          /* its timeline list (level x 64 + digit, 0xffff: late) */
    uint16_t prev_len_lo;      /* bytes of the last packet sent (0: none), low 16 of 17 bits */
    uint8_t rate_hi, pend_rate_hi;
    uint8_t state, pend;       /* RL__ state; registers written (RL__PEND_*) */
    uint8_t tl_loc;            /* where the flow is in the timeline path */
    uint8_t flags;             /* credit, doorbell pending, paused, the credit written, prev_len bit 16 */
} rl__qp;

typedef struct rl__desc { /* one urgent packet (or error record) in the descriptor buffer */
    rnic_ftime start, finish;
    uint64_t number; /* global descriptor number: tie-break and stable identity */
    uint64_t addr, raddr, tag; /* the WQE's, carried to the record */
    uint32_t flow, index, offset, len, flags, op;
    int32_t status;
    uint32_t pad_;
} rl__desc;

typedef struct rl__timed_qp { /* a flow in a fixed-latency pipeline */
    uint64_t cycle;
    uint32_t qp;
} rl__timed_qp;

typedef struct rl__ranked { /* a QP in the ranked schedule queue (RL_SCHEDULE_RANKED) */
    uint64_t rank;  /* virtual finish of a full packet from its next start, 2^-16 cycles */
    uint64_t order; /* push number: ties leave in push order */
    uint32_t qp, pad_;
} rl__ranked;

typedef struct rl__dkey { /* a descriptor heap entry: the slot and its key (start or finish) */
    uint64_t cycle;
    uint32_t frac;
    uint16_t slot, pad_;
} rl__dkey;

typedef struct rl__due { /* fast-forward: when a time reaches `target`, cached while inc holds */
    rnic_ftime target;
    uint64_t epoch; /* rl.phi_epoch it was computed in */
    uint64_t at;    /* the cycle */
    uint32_t valid, pad_;
} rl__due;

typedef struct rl__flow_fifo { /* a FIFO of flows linked through the flows' records */
    uint32_t head, tail, count;
} rl__flow_fifo;

typedef struct rl__timed_queue { /* a fixed-latency pipeline: flows by the cycle they come out */
    rl__timed_qp *slot;
    uint32_t head, count, capacity, pad_;
} rl__timed_queue;

struct rl {
    rl_config cfg;
    uint64_t now;
    rnic_ftime T;           /* virtual system time */
    rnic_ftime A_mono;      /* largest activation time seen */
    uint32_t a_tracks;      /* A_mono == T + lookahead (so a tick adds inc to it) */
    rnic_q32 inc;           /* system-time step per cycle: 1 / max(1, Phi) */
    rnic_q32 phi;           /* Phi */
    rnic_q32 lookahead;     /* Lambda = L / max(1, Phi) */
    rnic_q32 link_cpb;
    uint64_t phi_epoch;     /* bumped whenever inc and the lookahead are recomputed */
    rl__due tl_due, wheel_due, wait_due; /* fast-forward caches (rl__next_gap) */
    uint64_t sum_active_bps;
    rnic_ftime link_t;      /* when the link finishes the last packet */
    uint64_t link_free;     /* first cycle the link is idle */
    rnic_q32 fetch_cpb;     /* cycles per byte of the PCIe read channel (0: unlimited) */
    rnic_ftime fetch_t;     /* when the read channel finishes the last WQE fetch */
    uint64_t fetch_free;    /* first cycle the read channel is idle */
    uint32_t fetch_req_bytes; /* fetch_wqes x wqe_bytes */
    uint32_t heap_height;
    uint32_t pcie_latency;  /* L, cycles: cfg.pcie_latency_ns at clock_hz (rl__pcie_cycles) */
    uint64_t heap_next_op;
    uint64_t desc_numbers;
    rnic_trace trace;
    uint16_t trace_id;
    rl__qp *qps;
    rl_flow_stats *flow_stats;
    /* timeline (P-heap order): settled entries in a radix calendar on (key, insertion order):
     * 11 levels of 64 lists (6-bit digits of the key, timeline.c); keys are flows' `resched`,
     * doubly linked lists through tl_next/tl_prev (RNIC_NONE ends; dense arrays, not in the
     * flows' records: a list operation touches its neighbours' links, not their records) */
    uint32_t *tl_next, *tl_prev; /* per flow: the timeline's lists, or the insert-request /
                                    schedule FIFO the flow is in (one at a time) */
    uint32_t *tl_head, *tl_tail;       /* 11 x 64 lists (caller memory) */
    uint64_t tl_bits[11];              /* per level: lists not empty */
    uint32_t tl_levels;                /* bit l: level l not empty */
    uint64_t tl_base;                  /* every bucketed key is >= it (wrap-safe) */
    uint32_t tl_min;                   /* the smallest bucketed entry */
    uint32_t tl_late_head, tl_late_tail; /* keys < tl_base that settled late, sorted */
    uint32_t tl_run_head, tl_run_tail; /* the run: entries in key order in front of the calendar
                                          (timeline.c), linked through tl_next / tl_prev */
    uint64_t tl_cal_bound;             /* while the calendar (lists and late list) is not empty:
                                          no key in it is larger */
    uint64_t tl_last_pop;              /* the key of the last entry that left */
    uint32_t tl_first;                 /* the smallest settled entry (rl__tl_peek), RNIC_NONE: none */
    uint32_t tl_stamp;                 /* bumped by every change of what rl__tl_gap reads but time */
    uint64_t tl_gap_at;                /* rl__tl_gap_now's answer as a cycle, while ... */
    uint64_t tl_gap_epoch;             /* ... phi_epoch and ... */
    uint32_t tl_gap_stamp, tl_gap_valid; /* ... tl_stamp are these (valid: an answer is cached) */
    uint32_t heap_count;               /* settled entries */
    uint64_t inflight_key_floor;       /* no enqueue in flight has a smaller key */
    rl__flow_fifo registers;       /* flows with a register write pending (through reg_next) */
    rl__flow_fifo insert_requests; /* flows waiting for a P-heap operation slot (through tl_next) */
    rl__timed_queue inserts_in_flight; /* enqueues not yet settled (cycle: when they settle) */
    rl__timed_queue deliveries; /* dequeued flows on their way to the schedule queue */
    rl__flow_fifo schedule;     /* the schedule FIFO (RL_SCHEDULE_FIFO, through tl_next); its
                                   count is the ranked queue's too */
    rl__ranked *ranked;         /* RL_SCHEDULE_RANKED: binary heap on (rank, order), max_flows entries */
    uint32_t ranked_count;
    uint64_t ranked_pushes;
    /* RL_SCHEDULE_RANKED: the reschedule wheel, wheel_size (= L) slots of one QP each; slot
     * wheel_base holds key wheel_low, the next ones the following keys (circularly) */
    uint32_t *wheel_qp;
    uint64_t *wheel_used;
    uint64_t wheel_low;
    uint32_t wheel_base, wheel_size, wheel_count;
    uint32_t lookahead_cycles; /* L + height + 1 (+ one MTU on the link when ranked) */
    rl__timed_queue fetches;    /* outstanding WQE fetches (cycle: when they return) */
    rnic_ring tx;              /* rnic_work: output port */
    /* descriptor buffer (caller memory, desc_depth entries) */
    rl__desc *desc;
    uint64_t *desc_used;       /* slot holds a packet */
    rl__dkey *desc_waiting;     /* binary heap of slots by start: not yet eligible */
    rl__dkey *desc_ready;       /* eligible slots sorted by (finish, number): a ring of
                                  ready_mask + 1 (a power of two >= k) from ready_head */
    uint16_t *desc_scratch;    /* a re-timed flow's slots, in number order */
    uint32_t n_waiting, n_ready;
    uint32_t ready_head, ready_mask;
    uint32_t desc_latest;      /* ranked: slot with the largest (finish, number), RNIC_NONE: unknown */
    uint32_t desc_count;
    rnic_work *fetched;        /* fetch_wqes entries: the source's answer */
    rl_stats stats;
};
