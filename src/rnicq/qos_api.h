/* ---- the RED-SEA QoS engine (cycle semantics: docs/rnicq_qos_model.md) ----
 * The host side (AXI descriptor writes through per-domain accumulators, validation, channel
 * status, the enqueue into the shared-space scheduling FIFOs, AXI status reads), the 3-stage
 * segmenter (blocks, inline and control packets), the message handler (ACK/NACK, completion,
 * remote read requests), the timeout scanner and retransmission, and fast-forward. */

#define RQ_QUEUE_CONTROL 0u  /* scheduling queue numbers: 0 is served first */
#define RQ_QUEUE_TID_ONLY 1u

typedef struct rq_qos_config {
    uint64_t clock_hz;         /* default 150 MHz (the thesis's FPGA clock) */
    uint32_t domains;          /* protection domains (pages), default 16 */
    uint32_t write_channels;   /* per domain, default 64 (a multiple of 32) */
    uint32_t read_channels;    /* per domain, default 64 */
    uint32_t intra_priorities; /* default 16: 2 + 4 x 16 = 66 scheduling queues */
    uint32_t block_bytes;      /* default 65536 */
    uint32_t max_outstanding;  /* blocks in flight per transfer, default 2 */
    rq_ids_config ids;         /* 512 TIDs, 4 blocks per flow, 64 unipath FIDs, 16 groups */
    uint32_t aw_fifo;          /* AXI write beats accepted ahead of the data stage, default 8 */
    uint32_t b_fifo;           /* AXI write responses waiting to be popped, default 8 */
    uint32_t read_port;        /* status reads waiting, default 8 */
    uint32_t transaction_port; /* block descriptors waiting for the send unit, default 4 */
    uint32_t packet_queue;     /* inline and control packets waiting, default 16 */
    uint32_t response_port;    /* ACK/NACKs waiting for the message handler, default 8 */
    uint32_t seq_bits;         /* global block sequence number width, default 12 */
    uint64_t timeout_cycles;   /* a block unacknowledged this long is retransmitted; default 20 us */
    uint32_t retry_limit;      /* retransmissions of one block before the transfer is ERROR, default 3 */
    uint32_t remote_port;      /* remote read requests waiting, default 8 */
} rq_qos_config;

/* A block descriptor for the send unit (the Transaction Table entry, §3.3). */
typedef struct rq_block_desc {
    uint64_t cycle;     /* when it was issued */
    uint64_t src, dst;  /* this block's addresses */
    uint32_t tid, seq, size;
    uint32_t transfer;  /* Transfer Table line (the transfer's id) */
    uint32_t domain;
    uint32_t block;     /* block number in the transfer, from 0 */
    uint8_t cm, chained, has_next, notify, retransmit, pad[3];
} rq_block_desc;

typedef enum rq_packet_kind { RQ_PKT_INLINE = 0, RQ_PKT_CONTROL = 1 } rq_packet_kind;

/* A packet the QoS engine builds itself: an inline payload transfer or a control packet
 * (completion notification), for the Packet queue. */
typedef struct rq_packet {
    uint64_t cycle, dst, notify_target;
    uint32_t kind, tid, seq, transfer, domain, size;
    uint8_t retransmit, pad[3];
    uint8_t payload[RQ_INLINE_MAX];
} rq_packet;

/* A response from the network for a block or inline transfer. */
typedef struct rq_response {
    uint32_t tid, seq;
    uint32_t ack; /* 1 ACK, 0 NACK */
} rq_response;

/* One AXI write response (BRESP): per beat, in order. */
typedef struct rq_axi_bresp {
    uint64_t cycle;  /* the cycle the beat was handled */
    uint32_t domain;
    uint32_t addr;
    rnic_err status; /* RNIC_OK, or why the beat was refused (an AXI ERROR response) */
} rq_axi_bresp;

/* One status read answer (RDATA). */
typedef struct rq_axi_rdata {
    uint64_t cycle;
    uint64_t data;   /* one channel: its 2-bit status; 32 channels: 2 bits each */
    rnic_err status; /* RNIC_OK, RNIC_EPERM (another domain's page), RNIC_ENOENT */
} rq_axi_rdata;

typedef struct rq_qos_stats {
    uint64_t cycles;
    uint64_t beats, lines_written, descriptors, transfers_enqueued;
    uint64_t beats_refused;     /* beats answered with an AXI error (causes in errors) */
    uint64_t descriptors_refused;
    uint64_t enqueue_stalls;    /* cycles a complete descriptor waited for the FIFO's enqueue port */
    uint64_t bresp_stalls;      /* cycles the write stage waited for room in the B FIFO */
    uint64_t status_reads;
    uint64_t port_full;         /* pushes refused with RNIC_EBUSY (back-pressure) */
    uint64_t blocks, inline_packets, control_packets, retransmits, timeouts, nacks;
    uint64_t acks, responses_dropped; /* dropped: stale, duplicate or unknown (ESTALE/ENOENT) */
    uint64_t done, failed;            /* transfers completed / ERROR after the retry limit */
    uint64_t seg_stalls_output;       /* segmenter cycles stalled by a full output port */
    uint64_t seg_stalls_enqueue;      /* ... by the scheduling FIFO's enqueue port */
    uint64_t seg_stalls_arbiter;      /* ... by the metadata arbiter (handler served) */
    uint64_t remote_reads;            /* remote read requests placed in a read channel */
    uint64_t remote_waits;            /* cycles one waited: no free read channel or no enqueue port */
    rnic_err_stats errors;      /* refused input by cause */
} rq_qos_stats;

typedef struct rq_qos rq_qos;

RQ_API void rq_qos_config_default(rq_qos_config *cfg);
RQ_API size_t rq_qos_mem_size(const rq_qos_config *cfg);
RQ_API rnic_err rq_qos_init(rq_qos *q, const rq_qos_config *cfg, void *mem, size_t size);
RQ_API void rq_qos_tick(rq_qos *q);
RQ_API uint64_t rq_qos_now(const rq_qos *q);

/* AXI write: one beat of 8 or 16 bytes (data[1] used for 16) from protection domain `domain`.
 * Address: bits 0..2 zero, bits 3..4 the 64-bit word in the line, bits 5.. the Transfer Table
 * line (domain x channels per domain + channel); a 16-byte beat covers words w, w + 1 and must
 * be 16-byte aligned. The beat is queued (AW FIFO; RNIC_EBUSY when full) and handled by the
 * write-data stage from the next cycle on, one per cycle; its verdict comes back as a BRESP. */
RQ_API rnic_err rq_qos_axi_write(rq_qos *q, uint32_t domain, uint32_t addr, const uint64_t data[2], uint32_t bytes);
RQ_API rnic_err rq_qos_pop_bresp(rq_qos *q, rq_axi_bresp *out);
/* AXI status read from `domain` of page `page`: mode 0 one write channel (index), mode 1 the
 * 32 write channels index x 32 .. index x 32 + 31. Queued (RNIC_EBUSY when full); answered one
 * per cycle from the next cycle; DONE/ERROR channels read become IDLE. */
RQ_API rnic_err rq_qos_axi_read(rq_qos *q, uint32_t domain, uint32_t page, uint32_t index, uint32_t mode);
RQ_API rnic_err rq_qos_pop_rdata(rq_qos *q, rq_axi_rdata *out);
/* Network side: a response into the message handler's port (RNIC_EBUSY when full; the
 * handler takes one every 3 cycles at most). */
RQ_API rnic_err rq_qos_push_response(rq_qos *q, const rq_response *r);
/* Network side: a remote read request (another node reads this node's memory: a transfer
 * from here to there) for protection domain `domain`. The message handler, when it has no
 * response to take, places it in a free read channel of that domain and enqueues it with the
 * lowest priority (after the host's writes). RNIC_ENOENT unknown domain, RNIC_EINVAL a
 * transfer rq_desc_encode refuses (both counted), RNIC_EBUSY port full. */
RQ_API rnic_err rq_qos_push_remote_read(rq_qos *q, uint32_t domain, const rq_transfer *t);
/* Outputs to the send unit: block descriptors and packets (RNIC_EEMPTY when none). */
RQ_API rnic_err rq_qos_pop_block(rq_qos *q, rq_block_desc *out);
RQ_API rnic_err rq_qos_pop_packet(rq_qos *q, rq_packet *out);
/* Blocks and inline transfers issued and not yet acknowledged. */
RQ_API uint32_t rq_qos_pending(const rq_qos *q);
#define RQ_NEVER UINT64_MAX
/* Earliest cycle >= now at which a tick could do anything without new input (RQ_NEVER: never);
 * rq_qos_advance(n) runs n cycles, skipping idle stretches, with the results of n ticks. */
RQ_API uint64_t rq_qos_next_event(const rq_qos *q);
RQ_API void rq_qos_advance(rq_qos *q, uint64_t cycles);

RQ_API const rq_qos_stats *rq_qos_get_stats(const rq_qos *q);
/* Scheduling queue a valid transfer enters (RQ_QUEUE_TID_ONLY, or the 1xFID / 4xFID no-FID
 * queue of its intra-priority). */
RQ_API uint32_t rq_qos_queue_of(const rq_qos *q, const rq_transfer *t);

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

typedef struct rq_axi_beat {
    uint64_t ready;   /* first cycle the write-data stage may take it */
    uint64_t data[2];
    uint32_t domain, addr, bytes;
} rq_axi_beat;

typedef struct rq_axi_read {
    uint64_t ready;
    uint32_t domain, page, index, mode;
} rq_axi_read;

typedef struct rq_accumulator { /* one per protection domain (the thesis: one in total) */
    uint64_t words[4];
    uint32_t line;        /* line being assembled, RNIC_NONE when none */
    uint32_t have;        /* bit w: word w arrived */
    uint32_t expect_line; /* second line of a two-line descriptor, RNIC_NONE when none */
    uint32_t pad;
} rq_accumulator;

typedef struct rq_meta { /* Transfer Metadata Table entry (§3.2), per line */
    uint32_t total;       /* blocks of the transfer (known from its first block) */
    uint32_t block_num;   /* blocks issued */
    uint16_t fid;         /* FID, or the first FID of a multipath group */
    uint16_t last_tid, last_seq;
    uint8_t outstanding;  /* issued and not acknowledged */
    uint8_t has_fid, last_issued, control_sent, failed, pad[3];
} rq_meta;

typedef struct rq_pend { /* Pending Transactions Table entry (§3.5), per TID */
    uint64_t issued;      /* cycle of the last (re)transmission */
    uint32_t line, block;
    uint16_t seq;
    uint8_t valid, retries, retx_queued, taken; /* taken: the send unit has it (timeout runs) */
    uint8_t pad[2];
} rq_pend;

typedef struct rq_remote_read { /* a remote read request waiting for the handler */
    uint64_t lines[8];
    uint32_t domain, nlines;
} rq_remote_read;

typedef struct rq_stage2 { /* segmenter stage-2 register */
    uint32_t valid, line, queue, id, wait;
} rq_stage2;

typedef struct rq_handler { /* message handler FSM */
    uint32_t state;       /* 0 ready, 1 = S2 (pending entry read), 2 = S3 (metadata read) */
    rq_response r;
    uint64_t next;        /* cycle of the next state's work */
} rq_handler;

struct rq_qos {
    rq_qos_config cfg;
    uint64_t now;
    uint32_t lines;           /* domains x (write + read channels) */
    uint32_t channels;        /* per domain */
    uint32_t nqueues;
    uint64_t *table;          /* Transfer Table: lines x 4 words */
    uint8_t *occupied;        /* per line: 1 = first line of a live transfer, 2 = its second line */
    rq_accumulator *acc;      /* per domain */
    rnic_ssfifo sched;
    rq_ids ids;
    rq_status_regs status;
    rnic_ring aw;             /* rq_axi_beat */
    rnic_ring b;              /* rq_axi_bresp */
    rnic_ring rd;             /* rq_axi_read */
    rnic_ring r;              /* rq_axi_rdata */
    bool enq_port_used;       /* this cycle's scheduling-FIFO enqueue (ACK > segmenter > AXI > remote) */
    rq_meta *meta;            /* per line */
    rq_pend *pend;            /* per TID (2 x tids) */
    rnic_ring tx;             /* rq_block_desc: to the send unit */
    rnic_ring pkt;            /* rq_packet: the Packet queue */
    rnic_ring resp;           /* rq_response: from the network */
    rnic_ring retx;           /* uint32_t TIDs to retransmit */
    rnic_ring id_returns;     /* {pool, id}: IDs going back one per cycle */
    rnic_ring remote;         /* rq_remote_read */
    rq_stage2 s2;
    rq_block_desc s3;
    bool s3_valid;
    bool arb_handler_last;    /* metadata arbiter: the handler was served last */
    rq_handler mh;
    uint32_t seq;             /* global sequence number (§3.13) */
    uint32_t scan;            /* timeout scanner position */
    uint32_t pend_shift;      /* log2(pending entries) */
    uint32_t npending;
    rq_qos_stats stats;
};
