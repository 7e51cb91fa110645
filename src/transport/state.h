/* transport.h: engine state (transparent so firmware can place it statically; use the API).
 * Everything that scales with flows, window, ring or messages lives in caller memory. */

typedef struct tp__msg {          /* a message queued on a flow, until fully acknowledged */
    rnic_work w;                 /* as pushed: flow, len, addr, raddr, tag, op */
    uint32_t first_seg, nsegs;   /* its segment ids [first_seg, first_seg + nsegs) */
} tp__msg;

typedef struct tp__flow {
    /* data delivery engine, Table 2 */
    uint32_t wnd_start, wnd_size, highest_sent, data_end, total_sent;
    uint32_t outstanding;        /* segment addresses in the credit engine's ring */
    uint32_t marked;             /* bits set in marked_for_rtx (a count the hardware keeps beside the bitmap) */
    uint64_t timer_deadline, timer_amount;
    uint64_t timer_fire;         /* the periodic scan's visit at or after the deadline */
    uint32_t msg_head, msg_count; /* message queue (ring of cfg.message_depth) */
    uint32_t msg_gen;            /* messages ahead of the one holding highest_sent */
    uint32_t msg_number;         /* messages ever pushed */
    uint32_t msg_done;           /* head messages acknowledged, completion not yet out */
    uint8_t open, in_active, in_compl, in_ready;
    uint8_t timer_on;            /* the rtx timer runs (its heap entry may be older: see queues.c) */
    uint8_t rtl_idle, rtl_back_pressure; /* TP_TIMING_TONIC_RTL: the context's stored idle and back-pressure flags */
    /* credit engine */
    uint32_t ring_head, ring_count; /* free-running head index; entries */
    uint64_t rate_bps;
    uint32_t rate_level[6];      /* App. B: bytes per 2^(4j) cycles, j = 0..5 */
    uint64_t credit_fx;          /* rate: credit in 2^-20 bytes; tokens: bytes */
    uint64_t credit_at;          /* rate: cycle the credit was last brought up to date */
    uint64_t rate_wake;          /* rate: when the timer puts the flow in ready-to-tx */
    uint64_t wake_visit;         /* TP_WAKE_AT: the visit the periodic hook is due at, while the flow is in
                                  * wake_timers (a visit may fall on cycle 2^64 - 1: no sentinel) */
    uint32_t wake_sent;          /* ... or the first visit after total_sent reaches this */
    uint8_t wake_declared;       /* the last hook declared TP_WAKE_AT (else: due every visit) */
    uint8_t wake_sent_on;
    tp_flow_config params;
} tp__flow;

typedef struct tp__fifo {         /* a FIFO of flow ids, each at most once (round robin) */
    uint32_t *ids;
    uint32_t capacity, head, count;
} tp__fifo;

/* TP_TIMING_TONIC_RTL: the pipeline registers between the RTL's stages (rtl.c). A delay line
 * of TP__RTL_LINE cycles is a ring of 8 slots indexed by cycle. */
typedef struct tp__rtl {
    uint32_t next_l, next_p;     /* segment generation: the flow at the look-up and at the processing stage */
    uint32_t enq_reg[4];         /* write-backs into the active-flow FIFO, registered: ports 0..3 */
    uint32_t to_l, to_p;         /* the timeout scan's look-up and processing stages */
    rnic_work in_l, in0, in1;    /* an ACK at look-up, at Incoming stage 0 and at stage 1 */
    uint8_t in_l_on, in0_on, in1_on;
    uint32_t in1_old_wnd_start, in1_newly_acked; /* what stage 0 handed to stage 1 */
    uint32_t dp_line[8];         /* credit engine's transmit -> data delivery's dequeue stage */
    rnic_work gen_line[8];       /* segment generation -> credit engine's enqueue stage (flow RNIC_NONE: empty) */
    uint32_t tx_l, tx_p;         /* credit engine's transmit look-up and processing stages */
    uint32_t tx_reg[2];          /* write-backs into ready-to-tx, registered: ports 0..1 */
} tp__rtl;

typedef struct tp__incoming {     /* a control packet between the Incoming pipeline's stages */
    rnic_work pkt;
    uint32_t newly_acked, newly_sacked, old_wnd_start, new_wnd_start;
    uint32_t sack_start, sack_len; /* the block after clipping */
} tp__incoming;

struct tp {
    tp_config cfg;
    const tp_protocol *proto;
    uint64_t now;
    uint32_t scan;               /* Periodic updates: the flow id visited this cycle */
    uint32_t wwords;             /* words per bitmap (W / 64) */
    uint32_t ctx_stride;
    uint32_t open_flows;
    uint32_t every_visit_flows;  /* open flows whose periodic hook is due at every visit (no wake declared) */
    uint64_t msgs_queued;        /* messages queued over all flows (tp_space_message) */
    bool stage2_valid;
    tp__incoming stage2;          /* fixed stage done last cycle, programmable stage this cycle */
    rnic_trace trace;
    uint16_t trace_id;
    tp__flow *flows;
    uint64_t *bits;              /* per flow: acked, marked, rtx_cnt, W bits each */
    unsigned char *ctx;          /* per flow: user context */
    unsigned char *scratch;      /* two contexts: a hook's working copy and the periodic one */
    tp__msg *msgs;                /* per flow: cfg.message_depth */
    rnic_work *rings;            /* per flow: cfg.ring segment addresses */
    tp__fifo active, ready, compl_flows;
    rnic__heap rtx_timers, rate_timers, wake_timers; /* wake_timers: declared wake-ups, keyed by visit */
    rnic_ring incoming, tx, completions; /* ports */
    tp_stats stats;
    tp__rtl rtl;                 /* TP_TIMING_TONIC_RTL only */
};

typedef struct tp__rx_flow {
    uint32_t expected;           /* next in-order segment id (the cumulative ack) */
    uint32_t pending;            /* in-order segments not yet acknowledged (delayed ACK) */
    uint32_t held;               /* segments received beyond expected (bits set) */
    uint64_t delack_deadline;
    uint64_t last_tag;
    uint8_t open, ecn, delack_on;
    uint8_t nak_sent;            /* go-back-N: a NAK went out for the current gap (IB "NAK sent" state) */
    uint8_t cnp_sent;            /* CNP notification point: a CNP was ever sent (cnp_last is valid) */
    uint8_t cnp_pending;         /* deferred CNPs: a mark inside the interval waits for its end */
} tp__rx_flow;

struct tp_rx {
    tp_rx_config cfg;
    uint64_t now;
    uint32_t wwords;
    uint64_t delack_cycles;
    rnic_trace trace;
    uint16_t trace_id;
    tp__rx_flow *flows;
    uint64_t *bits;              /* per flow: received beyond expected, W bits */
    rnic__heap delack;
    rnic_ring input, acks, delivered; /* ports */
    tp_rx_stats stats;
    /* options (laid out only when on, so the default memory is unchanged) */
    uint32_t seg_acks;           /* ACK-port records one data segment may produce (1, or 2 with CNPs) */
    uint64_t cnp_cycles;         /* CNP interval in cycles; 0 = no CNPs */
    uint64_t *cnp_last;          /* per flow: cycle of its last CNP */
    rnic__heap cnp;                 /* deferred CNPs: flows with a pending mark, keyed by their interval's end */
    uint64_t *pulls;             /* NDP pull queue (FIFO, all flows): flow << 32 | len */
    uint32_t pull_cap, pull_head, pull_count;
    uint64_t pull_next;          /* earliest cycle the next pull may leave */
    uint64_t pull_early;         /* how far pull_next lies after the exact time, in 1/pull_bps cycles */
};
