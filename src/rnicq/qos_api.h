/* ---- the RED-SEA QoS engine (cycle semantics: docs/rnicq_qos_model.md) ----
 * The host side (AXI descriptor writes through per-domain accumulators, validation, channel
 * status, the enqueue into the shared-space scheduling FIFOs, AXI status reads), the 3-stage
 * segmenter (blocks, inline and control packets), the message handler (ACK/NACK, completion,
 * remote read requests), the timeout scanner and retransmission, and fast-forward. */

#define RQ_QUEUE_CONTROL 0u  /* scheduling queue numbers: 0 is served first */
#define RQ_QUEUE_TID_ONLY 1u

typedef struct rq_qos_config {
    uint64_t clock_hz;         /* default 250 MHz (every engine's; the thesis's FPGA ran at 150 MHz:
                                * set 150000000 for its cycle figures); times in ns use it */
    uint32_t domains;          /* protection domains (pages), default 16 */
    uint32_t write_channels;   /* per domain, default 64 (a multiple of 32) */
    uint32_t read_channels;    /* per domain, default 64 */
    uint32_t intra_priorities; /* default 16: 2 + 4 x 16 = 66 scheduling queues */
    uint32_t block_bytes;      /* default 65536 */
    uint32_t max_outstanding;  /* blocks in flight per transfer, default 2 (the 4-bit counter:
                                * at most 15; a congestion-managed flow also waits for its next
                                * TID at the tid_bitmap, so more than ids.flow_blocks is allowed) */
    rq_ids_config ids;         /* 512 TIDs, 4 blocks per flow, 64 unipath FIDs, 16 groups */
    uint32_t accumulators;     /* AXI accumulator sets: `domains` (default, one per protection
                                * domain, as §3.6.1 recommends) or 1 (the thesis as built: a
                                * beat of another domain that interleaves a descriptor gets an
                                * AXI error, RNIC_ESTATE) */
    uint32_t axi_write_depth;  /* AXI write beats accepted ahead of the data stage (the AW FIFO), default 8 */
    uint32_t bresp_depth;      /* AXI write responses waiting to be popped (the B FIFO), default 8 */
    uint32_t axi_read_depth;   /* status reads waiting, and their answers (RDATA), default 8 */
    uint32_t block_depth;      /* block descriptors waiting for the send unit, default 4 */
    uint32_t packet_depth;     /* inline and control packets waiting (the Packet queue), default 16 */
    uint32_t response_depth;   /* ACK/NACKs waiting for the message handler, default 8 */
    uint32_t seq_bits;         /* global block sequence number width, default 12 */
    uint64_t timeout_ns;       /* a block unacknowledged this long after the send unit took it
                                * is retransmitted; default 20,000 (20 us, §2), converted once at
                                * init with clock_hz to the nearest cycle (5,000 at 250 MHz) */
    uint32_t retry_limit;      /* retransmissions of one block before the transfer is ERROR, default 3 */
    uint32_t remote_read_depth; /* remote read requests waiting, default 8 */
    uint64_t start_cycle;      /* the engine's first cycle (rq_qos_now after init), default 0;
                                * e.g. just below 2^64 to test a run across the wrap */
    rnic_trace_fn trace;       /* trace events (below), NULL = off (one branch per trace point) */
    void *trace_user;          /* passed back to trace */
    uint16_t trace_id;         /* the events' `engine`, default RNIC_ENGINE_QOS */
} rq_qos_config;

/* Trace events (rnic_trace_event; cycle = the engine's cycle: a push or pop between ticks
 * carries the cycle the next tick will process):
 *   RNIC_TRACE_PUSH / RNIC_TRACE_REFUSE (REFUSE: a = the push's a, b = the rnic_err), per input:
 *     AXI write beat      id = its line (addr >> 5), a = domain << 32 | addr, b = bytes
 *     AXI status read     id = domain, a = page << 32 | index, b = mode
 *     response            id = tid, a = seq, b = 1 ACK / 0 NACK
 *     remote read request id = domain, a = src, b = size
 *   RNIC_TRACE_REFUSE also for a beat or descriptor the write stage answers with an AXI error
 *     (id = line, a = addr, b = the rnic_err);
 *   RNIC_TRACE_OUT (produced) and RNIC_TRACE_POP (taken), per output:
 *     block   id = flow (transfer line), a = index, b = len (the record's, as every engine's)
 *     packet  id = transfer line, a = index, b = size
 *     BRESP   id = line (addr >> 5), a = status, b = addr
 *     RDATA   id = domain, a = data, b = status
 *   every block or packet OUT is followed at once by its RQ_QOS_TRACE_BLOCK_ID (TID, sequence
 *   number, offset and what left: the ids an ACK / NACK names); a POP carries index and len only
 *   (the caller holds the record and its ids); and the engine's own kinds below. */
#define RQ_QOS_TRACE_ACCEPT 16u     /* descriptor accepted, enqueued: id = line, a = queue, b = index */
#define RQ_QOS_TRACE_REMOTE 17u     /* remote read placed, enqueued: id = line, a = queue, b = index */
#define RQ_QOS_TRACE_TIMEOUT 18u    /* the scanner found a block due: id = tid, a = line, b = seq */
#define RQ_QOS_TRACE_RETRANSMIT 19u /* a block or inline packet sent again: id = tid, a = line, b = new seq */
#define RQ_QOS_TRACE_ACK 20u        /* an ACK applied (handler S3): id = tid, a = line, b = seq */
#define RQ_QOS_TRACE_NACK 21u       /* a NACK taken (retransmission queued): id = tid, a = line, b = seq */
#define RQ_QOS_TRACE_DROP 22u       /* a response dropped: id = tid, a = rnic_err (ESTALE/ENOENT), b = seq */
#define RQ_QOS_TRACE_COMPLETE 23u   /* a transfer ended: id = line, a = RQ_DONE or RQ_ERROR, b = index */
#define RQ_QOS_TRACE_RELEASE 24u    /* a failed transfer's lines freed when its last queued entry left: id = line, b = index */
#define RQ_QOS_TRACE_BLOCK_ID 25u   /* right after a block or packet OUT: id = transfer line, a = tid << 32 | seq,
                                     * b = offset << 32 | what (a packet's rq_packet_kind, or RQ_QOS_OUT_BLOCK) */
#define RQ_QOS_OUT_BLOCK 2u         /* RQ_QOS_TRACE_BLOCK_ID's `what` for a block (after the packet kinds 0, 1) */

/* Blocks leave the engine as rnic_work records (rq_qos_pop_block / rq_qos_peek_block):
 *   flow   = the transfer's id: its first Transfer Table line, domain x (write_channels +
 *            read_channels) + channel (a write channel for the host's transfers, a read
 *            channel for remote reads); one channel = one flow id
 *   index  = the transfer's number on that line (0 for the first descriptor written to it,
 *            then 1, 2, ... mod 2^32): tells successive transfers of a channel apart
 *   addr   = the block's source address, raddr = its destination address
 *   offset = the block's byte offset in the transfer (block 0: 0; block k: the first
 *            block's size + (k - 1) x block_bytes: blocks follow the receiver's boundaries)
 *   len    = the block's bytes; cycle = the cycle it was issued
 *   aux    = its TID; its sequence number is in the engine bits of flags, RQ_WORK_SEQ(flags)
 *            (the TID and number are what an ACK/NACK rq_response carries back)
 *   flags  = RNIC_WORK_FIRST on block 0, RNIC_WORK_LAST on the transfer's last block, and
 *            the RQ_WORK_* bits below; tag = 0 (an AXI descriptor carries no tag), op = 0 and
 *            raddr as above (the engine writes no caller field: op is never the number); status 0.
 * LAST marks the last piece, not the end of the engine's use of the source memory: a block
 * may still be retransmitted until its ACK; the transfer is consumed when its channel reads
 * DONE or ERROR (rq_qos_axi_read). rq_qos_block_info turns a record back into the
 * rq_block_desc below (domain, block number, flags as fields). */
#define RQ_WORK_RETRANSMIT (1u << RNIC_WORK_ENGINE_SHIFT)      /* a retransmission (timeout or NACK) */
#define RQ_WORK_NOTIFY (1u << (RNIC_WORK_ENGINE_SHIFT + 1u))   /* the last block of a transfer with notification */
#define RQ_WORK_CHAINED (1u << (RNIC_WORK_ENGINE_SHIFT + 2u))  /* congestion managed, not the first block */
#define RQ_WORK_HAS_NEXT (1u << (RNIC_WORK_ENGINE_SHIFT + 3u)) /* congestion managed, more blocks follow */
#define RQ_WORK_CM (1u << (RNIC_WORK_ENGINE_SHIFT + 4u))       /* congestion managed (TIDs from the flow's FID) */
#define RQ_WORK_SEQ_SHIFT 16u /* flags bits 16..31: the block's sequence number (seq_bits <= 16 wide) */
#define RQ_WORK_SEQ(flags) ((uint32_t)(flags) >> RQ_WORK_SEQ_SHIFT)

/* A block descriptor for the send unit (the Transaction Table entry, §3.3), all fields spelt
 * out: what rq_qos_block_info decodes from a block's rnic_work record. */
typedef struct rq_block_desc {
    uint64_t cycle;     /* when it was issued */
    uint64_t src, dst;  /* this block's addresses */
    uint32_t tid, seq, size;
    uint32_t transfer;  /* Transfer Table line (the transfer's id, the record's flow) */
    uint32_t domain;
    uint32_t block;     /* block number in the transfer, from 0 */
    uint32_t offset;    /* byte offset of the block in the transfer */
    uint32_t index;     /* the transfer's number on its line */
    uint8_t cm, chained, has_next, notify, retransmit, last, pad[2];
} rq_block_desc;

typedef enum rq_packet_kind { RQ_PKT_INLINE = 0, RQ_PKT_CONTROL = 1 } rq_packet_kind;

/* A packet the QoS engine builds itself: an inline payload transfer or a control packet
 * (completion notification), for the Packet queue. It keeps its own record rather than
 * rnic_work: the up to 32-byte payload travels inside it (an inline transfer has no source
 * address to point at) and a control packet carries the notification target word. Its ids
 * are those of a block record: transfer = flow, index, tid, seq. */
typedef struct rq_packet {
    uint64_t cycle, dst, notify_target;
    uint32_t kind, tid, seq, transfer, domain, size;
    uint32_t index;     /* the transfer's number on its line (as rnic_work.index of a block) */
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

/* Why an input was refused or a beat, status read or response answered with an error: each
 * such event is counted once, in stats.errors by its code and in stats.reasons by its reason
 * (rq_qos_reason_message names what to change). RNIC_REASONS generates rq_qos_reason,
 * rq_qos_reason_stats, rq_qos_reason_message and rq_qos_reason_code. */
#define RQ_QOS_REASONS(R)                                                                                      \
    R(RQ_QOS_REASON_NULL, RNIC_EINVAL, null_pointer, "a NULL record or data pointer")                          \
    R(RQ_QOS_REASON_AXI_WRITE_FULL, RNIC_EBUSY, axi_write_full,                                                \
      "the AW FIFO is full: raise axi_write_depth, and pop BRESPs (a full B FIFO stalls the write stage)")      \
    R(RQ_QOS_REASON_AXI_READ_FULL, RNIC_EBUSY, axi_read_full, "the status read port is full: raise axi_read_depth, pop RDATA") \
    R(RQ_QOS_REASON_RESPONSE_FULL, RNIC_EBUSY, response_full,                                                  \
      "the response port is full: raise response_depth (the message handler takes one per 3 cycles)")         \
    R(RQ_QOS_REASON_REMOTE_READ_FULL, RNIC_EBUSY, remote_read_full, "the remote read port is full: raise remote_read_depth") \
    R(RQ_QOS_REASON_REMOTE_READ_DOMAIN, RNIC_ENOENT, remote_read_domain, "a remote read for a domain >= domains") \
    R(RQ_QOS_REASON_REMOTE_READ_INVALID, RNIC_EINVAL, remote_read_invalid,                                    \
      "a remote read transfer rq_desc_encode refuses, or whose addresses wrap")                                \
    R(RQ_QOS_REASON_REMOTE_READ_NO_FID, RNIC_ENOSPC, remote_read_no_fid,                                       \
      "a congestion-managed remote read whose FID pool is empty: set ids.fids_unipath / ids.fid_groups")       \
    R(RQ_QOS_REASON_BEAT_ALIGN, RNIC_EALIGN, beat_align, "an AXI beat with bad address bits or size (8 or 16 bytes, aligned)") \
    R(RQ_QOS_REASON_BEAT_UNKNOWN, RNIC_ENOENT, beat_unknown, "an AXI beat for a domain >= domains or a line beyond the table") \
    R(RQ_QOS_REASON_BEAT_PERM, RNIC_EPERM, beat_perm, "an AXI beat to another domain's page or to a read channel") \
    R(RQ_QOS_REASON_BEAT_INTERLEAVED, RNIC_ESTATE, beat_interleaved,                                           \
      "descriptor beats interleaved (with accumulators 1, another domain's): accumulators = domains")          \
    R(RQ_QOS_REASON_CHANNEL_BUSY, RNIC_EBUSY, channel_busy,                                                    \
      "a descriptor to a channel whose transfer is live or whose DONE/ERROR is unread: read its status first") \
    R(RQ_QOS_REASON_DESC_INVALID, RNIC_EINVAL, desc_invalid, "a descriptor rq_desc_decode refuses (size 0, kind, lines)") \
    R(RQ_QOS_REASON_DESC_RANGE, RNIC_ERANGE, desc_range, "a descriptor whose addresses would wrap past 2^64 - 1") \
    R(RQ_QOS_REASON_DESC_NO_FID, RNIC_ENOSPC, desc_no_fid,                                                     \
      "a congestion-managed transfer whose FID pool is empty: set ids.fids_unipath / ids.fid_groups")          \
    R(RQ_QOS_REASON_READ_PERM, RNIC_EPERM, read_perm, "a status read of another domain's page")                \
    R(RQ_QOS_REASON_READ_UNKNOWN, RNIC_ENOENT, read_unknown, "a status read of an unknown page or channel")     \
    R(RQ_QOS_REASON_READ_MODE, RNIC_EINVAL, read_mode, "a status read mode other than 0 (one channel) or 1 (32)") \
    R(RQ_QOS_REASON_RESPONSE_UNKNOWN, RNIC_ENOENT, response_unknown, "a response for a TID >= 2 x ids.tids (dropped)") \
    R(RQ_QOS_REASON_RESPONSE_STALE, RNIC_ESTALE, response_stale,                                               \
      "a stale or duplicate response, dropped (delayed past 2^seq_bits block issues: raise seq_bits)")
RNIC_REASONS(rq_qos, RQ_QOS, RQ_QOS_REASONS)

typedef struct rq_qos_stats {
    uint64_t cycles;
    uint64_t beats, lines_written, descriptors, transfers_enqueued;
    uint64_t enqueue_stalls;    /* cycles a complete descriptor waited for the FIFO's enqueue port */
    uint64_t bresp_stalls;      /* cycles the write stage waited for room in the B FIFO */
    uint64_t status_reads;
    uint64_t blocks, inline_packets, control_packets, retransmits, timeouts, nacks;
    uint64_t acks;
    uint64_t done, failed;            /* transfers completed / ERROR after the retry limit */
    uint64_t seg_stalls_output;       /* segmenter cycles stalled by a full output port */
    uint64_t seg_stalls_enqueue;      /* ... by the scheduling FIFO's enqueue port */
    uint64_t seg_stalls_arbiter;      /* ... by the metadata arbiter (handler served) */
    uint64_t seg_stalls_tid;          /* cycles stage 1 passed over a have-FID queue whose head's
                                       * next TID is still in flight (tid_bitmap, §3.2) */
    uint64_t table_port_waits;        /* cycles a remote read waited for Transfer Table port 0
                                       * (the AXI write stage wrote a line; §3.1) */
    uint64_t scan_waits;              /* cycles the timeout scanner waited for the Pending
                                       * Transactions Table's port (the handler read it, §3.5) */
    uint64_t remote_reads;            /* remote read requests placed in a read channel */
    uint64_t remote_waits;            /* cycles one waited: no free read channel or no enqueue port */
    rnic_err_stats errors;      /* refused input and error answers, by code (each event once) */
    rq_qos_reason_stats reasons; /* the same events by reason (RQ_QOS_REASONS) */
} rq_qos_stats;

typedef struct rq_qos rq_qos;

RQ_API void rq_qos_config_default(rq_qos_config *cfg);
/* RNIC_OK, or the error with *field (when field is not NULL) naming the offending field. */
RQ_API rnic_err rq_qos_config_check(const rq_qos_config *cfg, const char **field);
/* Bytes of caller memory rq_qos_init needs; 0 when the config is invalid. */
RQ_API size_t rq_qos_mem_size(const rq_qos_config *cfg);
/* RQ_QOS_MEM_SIZE: rq_qos_mem_size as an integer constant expression, so firmware can size a
 * static buffer at compile time (for a config rq_qos_config_check accepts it is exactly
 * rq_qos_mem_size(&cfg); tests/test_mem_size_macros.c checks it). Arguments are the config
 * fields that size the memory (ids.* are cfg.ids's; ids.flow_blocks sizes nothing). At the
 * defaults: RQ_QOS_MEM_SIZE(16, 64, 64, 16, 16, 512, 64, 16, 8, 8, 8, 4, 16, 8, 8). Evaluates its
 * arguments several times: pass constants. */
#define RQ_QOS_MEM_SIZE(domains, write_channels, read_channels, intra_priorities, accumulators, ids_tids,        \
                        ids_fids_unipath, ids_fid_groups, axi_write_depth, bresp_depth, axi_read_depth, block_depth,          \
                        packet_depth, response_depth, remote_read_depth)                                                \
    (RNIC__MEM_PART(RQ__MEM_LINES(domains, write_channels, read_channels) * 4u, uint64_t) +                         \
     RNIC__MEM_PART(RQ__MEM_LINES(domains, write_channels, read_channels), uint8_t) +                               \
     RNIC__MEM_PART((accumulators), rq__accumulator) +                                                               \
     RQ__MEM_SSFIFO(2u + 4u * (uint64_t)(intra_priorities), RQ__MEM_LINES(domains, write_channels, read_channels)) + \
     RNIC__MEM_PART((ids_tids), uint32_t) + RNIC__MEM_PART((ids_fids_unipath) ? (ids_fids_unipath) : 1u, uint32_t) +  \
     RNIC__MEM_PART((ids_fid_groups) ? (ids_fid_groups) : 1u, uint32_t) +                                          \
     RNIC__MEM_PART(RNIC_BITMAP_WORDS(2u * (uint64_t)(ids_tids)), uint64_t) +                                      \
     RNIC__MEM_PART((uint64_t)(domains) * ((write_channels) / 32u), uint64_t) +                                    \
     RNIC__MEM_PART((axi_write_depth), rq__axi_beat) + RNIC__MEM_PART((bresp_depth), rq_axi_bresp) +                               \
     RNIC__MEM_PART((axi_read_depth), rq__axi_read) + RNIC__MEM_PART((axi_read_depth), rq_axi_rdata) +                          \
     RNIC__MEM_PART(RQ__MEM_LINES(domains, write_channels, read_channels), rq__meta) +                               \
     RNIC__MEM_PART(RQ__MEM_LINES(domains, write_channels, read_channels), rq__xfer) +                               \
     RNIC__MEM_PART(2u * (uint64_t)(ids_tids), rq__pend) + RNIC__MEM_PART(RNIC_BITMAP_WORDS(2u * (uint64_t)(ids_tids)), uint64_t) + \
     RNIC__MEM_PART((block_depth), rq_block_desc) + RNIC__MEM_PART((packet_depth), rq_packet) +                 \
     RNIC__MEM_PART((response_depth), rq_response) + RNIC__MEM_PART(2u * (uint64_t)(ids_tids), uint32_t) +            \
     RNIC__MEM_PART(3u * (uint64_t)(ids_tids), uint64_t) + RNIC__MEM_PART((remote_read_depth), rq__remote_read) +     \
     RNIC__MEM_PART(2u + 4u * (uint64_t)(intra_priorities), uint32_t))
/* RQ_QOS_MEM_SIZE's parts, mirroring rq_qos_init's layout (RNIC__MEM_PART: n elements rounded
 * up to RNIC_MEM_ALIGN): the Transfer Table's lines; the scheduling FIFOs (rnic_ssfifo's layout).
 * The ID-return ring's two-word entries are sized as uint64_t (the same 8 bytes). */
#define RQ__MEM_LINES(domains, write_channels, read_channels) \
    ((uint64_t)(domains) * ((uint64_t)(write_channels) + (uint64_t)(read_channels)))
#define RQ__MEM_SSFIFO(nqueues, nentries)                                                                      \
    (RNIC__MEM_PART(RNIC_BITMAP_WORDS(nqueues), uint64_t) + RNIC__MEM_PART(RNIC_BITMAP_WORDS(nentries), uint64_t) + \
     RNIC__MEM_PART((nentries), uint32_t) + 3u * RNIC__MEM_PART((nqueues), uint32_t))
RQ_API rnic_err rq_qos_init(rq_qos *q, const rq_qos_config *cfg, void *mem, size_t size);
RQ_API void rq_qos_tick(rq_qos *q);
RQ_API uint64_t rq_qos_now(const rq_qos *q);
/* True once the reset initializer has filled the TID/FID pools (592 cycles at the defaults;
 * a transfer written earlier waits for its IDs, as the thesis advises not to). */
RQ_API bool rq_qos_ready(const rq_qos *q);

/* AXI write: one beat of 8 or 16 bytes (data[1] used for 16) from protection domain `domain`.
 * Address: bits 0..2 zero, bits 3..4 the 64-bit word in the line, bits 5.. the Transfer Table
 * line (domain x channels per domain + channel); a 16-byte beat covers words w, w + 1 and must
 * be 16-byte aligned. The beat is queued (AW FIFO; RNIC_EBUSY when full) and handled by the
 * write-data stage from the next cycle on, one per cycle; its verdict comes back as a BRESP
 * (a descriptor's last beat: RNIC_ENOSPC for a congestion-managed transfer whose FID pool the
 * config leaves empty). */
RQ_API rnic_err rq_qos_axi_write(rq_qos *q, uint32_t domain, uint32_t addr, const uint64_t data[2], uint32_t bytes);
RQ_API uint32_t rq_qos_space_axi_write(const rq_qos *q); /* free AW FIFO slots */
/* True when domain's accumulator holds no part of a descriptor: a new descriptor of that
 * domain may start (beats of two descriptors of one domain must not interleave). */
RQ_API bool rq_qos_domain_idle(const rq_qos *q, uint32_t domain);
/* Outputs: RNIC_EEMPTY when none, RNIC_EINVAL (counted) for a NULL record; peek copies the
 * oldest without taking it. */
RQ_API rnic_err rq_qos_pop_bresp(rq_qos *q, rq_axi_bresp *out);
RQ_API rnic_err rq_qos_peek_bresp(const rq_qos *q, rq_axi_bresp *out);
/* AXI status read from `domain` of page `page`: mode 0 one write channel (index), mode 1 the
 * 32 write channels index x 32 .. index x 32 + 31. Queued (RNIC_EBUSY when full); answered one
 * per cycle from the next cycle; DONE/ERROR channels read become IDLE. */
RQ_API rnic_err rq_qos_axi_read(rq_qos *q, uint32_t domain, uint32_t page, uint32_t index, uint32_t mode);
RQ_API uint32_t rq_qos_space_axi_read(const rq_qos *q);
RQ_API rnic_err rq_qos_pop_rdata(rq_qos *q, rq_axi_rdata *out);
RQ_API rnic_err rq_qos_peek_rdata(const rq_qos *q, rq_axi_rdata *out);
/* A channel's status without the read-and-clear of an AXI read (for tests and reports;
 * RQ_IDLE for an unknown channel). */
RQ_API rq_status rq_qos_channel_status(const rq_qos *q, uint32_t domain, uint32_t channel);
/* Network side: a response into the message handler's port (RNIC_EBUSY when full; the
 * handler takes one every 3 cycles at most). */
RQ_API rnic_err rq_qos_push_response(rq_qos *q, const rq_response *r);
RQ_API uint32_t rq_qos_space_response(const rq_qos *q);
/* Network side: a remote read request (another node reads this node's memory: a transfer
 * from here to there) for protection domain `domain`. The message handler, when it has no
 * response to take, places it in a free read channel of that domain and enqueues it with the
 * lowest priority (after the host's writes). RNIC_ENOENT unknown domain, RNIC_EINVAL a
 * transfer rq_desc_encode refuses, RNIC_ENOSPC a congestion-managed one whose FID pool the
 * config leaves empty (all counted), RNIC_EBUSY port full. */
RQ_API rnic_err rq_qos_push_remote_read(rq_qos *q, uint32_t domain, const rq_transfer *t);
RQ_API uint32_t rq_qos_space_remote_read(const rq_qos *q);
/* Outputs to the send unit: blocks (rnic_work, fields above) and packets (RNIC_EEMPTY when
 * none, RNIC_EINVAL counted for a NULL record). A pop is the send unit taking it: the
 * block's timeout starts then. A peek copies without taking (no timeout starts). */
RQ_API rnic_err rq_qos_pop_block(rq_qos *q, rnic_work *out);
RQ_API rnic_err rq_qos_peek_block(const rq_qos *q, rnic_work *out);
RQ_API rnic_err rq_qos_pop_packet(rq_qos *q, rq_packet *out);
RQ_API rnic_err rq_qos_peek_packet(const rq_qos *q, rq_packet *out);
/* Every field of a block record spelt out (domain, block number, the RQ_WORK_* flags):
 * RNIC_EINVAL for a NULL pointer or a record that is not a block of this engine's
 * geometry (flow beyond the table). A pure function of the record and the config. */
RQ_API rnic_err rq_qos_block_info(const rq_qos *q, const rnic_work *w, rq_block_desc *out);
/* Blocks and inline transfers issued and not yet acknowledged. */
RQ_API uint32_t rq_qos_pending(const rq_qos *q);
/* Earliest cycle >= now at which a tick changes anything but stall counters without new
 * input; RNIC_NEVER when nothing will, including when the engine only waits for a pop of a
 * full output. O(1) but for stage 1's look at the scheduling queues (at most the queues
 * whose IDs are exhausted): the next timeout is the top of a heap of armed entries keyed by
 * the cycle the scanner will reach each (docs/rnicq_qos_model.md, "Fast-forward"). A remote
 * read request waiting for a free read channel counts as work now (the engine polls). */
RQ_API uint64_t rq_qos_next_event(const rq_qos *q);
/* Run up to `cycles` cycles, skipping idle stretches, with the results of as many ticks
 * (records, cycles, statistics), across the 2^64 wrap too. Returns the cycles run: fewer
 * when a tick filled an output port that was not full before it (blocks, packets, BRESPs,
 * RDATA) -- the advance stops right after that tick so the caller can drain it. */
RQ_API uint64_t rq_qos_advance(rq_qos *q, uint64_t cycles);
/* rq_qos_advance(q, cycle - now) (mod 2^64): pass a later cycle. */
RQ_API uint64_t rq_qos_advance_to(rq_qos *q, uint64_t cycle);
/* The retransmission timeout in cycles (timeout_ns at clock_hz). */
RQ_API uint64_t rq_qos_timeout_cycles(const rq_qos *q);

RQ_API const rq_qos_stats *rq_qos_get_stats(const rq_qos *q);
/* IDs free in a pool (RQ_POOL_TID / FID1 / FID4): all of them again once the engine is idle. */
RQ_API uint32_t rq_qos_free_ids(const rq_qos *q, rq_id_pool pool);
/* Scheduling queue a valid transfer enters (RQ_QUEUE_TID_ONLY, or the 1xFID / 4xFID no-FID
 * queue of its intra-priority); RNIC_NONE for a NULL pointer. */
RQ_API uint32_t rq_qos_queue_of(const rq_qos *q, const rq_transfer *t);

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

typedef struct rq__axi_beat {
    uint64_t ready;   /* first cycle the write-data stage may take it */
    uint64_t data[2];
    uint32_t domain, addr, bytes;
} rq__axi_beat;

typedef struct rq__axi_read {
    uint64_t ready;
    uint32_t domain, page, index, mode;
} rq__axi_read;

typedef struct rq__accumulator { /* one per protection domain, or one in total (cfg.accumulators) */
    uint64_t words[4];
    uint32_t line;        /* line being assembled, RNIC_NONE when none */
    uint32_t have;        /* bit w: word w arrived */
    uint32_t expect_line; /* second line of a two-line descriptor, RNIC_NONE when none */
    uint32_t domain;      /* the domain whose descriptor it holds (a shared set) */
} rq__accumulator;

typedef struct rq__xfer { /* per first line: what the segmenter and handler read of a descriptor,
                           * decoded once when it is accepted (addresses and size stay in the
                           * Transfer Table words) */
    uint32_t total;       /* blocks (the Fig. 3.11 circuit; 1 for inline) */
    uint32_t first, last; /* bytes in block 0 and in the last block */
    uint8_t is_inline, cm, multipath, notify;
    uint8_t prio;         /* intra-priority, clamped to the configured count */
    uint8_t nlines;       /* 1 or 2 */
    uint8_t extra_read;   /* stage 2 reads a second line first (inline payload over 8 B) */
    uint8_t pad;
} rq__xfer;

typedef struct rq__meta { /* Transfer Metadata Table entry (§3.2), per line */
    uint32_t total;       /* blocks of the transfer (known from its first block) */
    uint32_t block_num;   /* blocks issued */
    uint16_t fid;         /* FID, or the first FID of a multipath group */
    uint16_t last_tid, last_seq;
    uint8_t outstanding;  /* issued and not acknowledged */
    uint8_t has_fid, last_issued, control_sent, failed, pad[3];
    uint32_t index;       /* this transfer's number on the line */
    uint32_t next_index;  /* the next transfer's (kept across transfers) */
} rq__meta;

typedef struct rq__pend { /* Pending Transactions Table entry (§3.5), per TID */
    uint64_t issued;      /* cycle of the last (re)transmission */
    uint64_t due;         /* armed: issued + timeout (fast-forward bookkeeping) */
    uint32_t line, block;
    uint32_t armed_prev, armed_next; /* in the armed list (by due), RNIC_NONE at its ends */
    uint16_t seq;
    uint8_t valid, retries, retx_queued, taken; /* taken: the send unit has it (timeout runs) */
    uint8_t armed;        /* RQ__ARMED_NO, _LIST (due later), _DUE (due: in due_map) */
    uint8_t in_retx;      /* the TID is in the retransmission queue (at most once; it may outlive the
                           * entry that asked: an ACK or a failure can come first, and the TID's next
                           * entry then is not retransmitted for it) */
} rq__pend;

typedef struct rq__remote_read { /* a remote read request waiting for the handler */
    uint64_t lines[8];
    uint32_t domain, nlines;
} rq__remote_read;

typedef struct rq__stage2_reg { /* segmenter stage-2 register */
    uint32_t valid, line, queue, id, wait;
} rq__stage2_reg;

/* The message handler's FSM states (Fig. 3.13): ready (S1 takes a response), S2 (the pending
 * entry is read), S3 (the metadata is read and updated). */
enum { RQ__MH_READY = 0, RQ__MH_S2 = 1, RQ__MH_S3 = 2 };
/* A Transfer Table line's occupancy: free, the first line of a live transfer, its second line. */
enum { RQ__LINE_FREE = 0, RQ__LINE_FIRST = 1, RQ__LINE_SECOND = 2 };

typedef struct rq__handler { /* message handler FSM */
    uint32_t state;       /* RQ__MH_READY, RQ__MH_S2, RQ__MH_S3 */
    rq_response r;
    uint64_t next;        /* cycle of the next state's work */
    uint32_t s3_ran;      /* S3 was this cycle's state: S1 takes the next response next cycle */
    uint32_t s1_ran;      /* S1 read the Pending Transactions Table this cycle (the scanner waits) */
} rq__handler;

struct rq_qos {
    rq_qos_config cfg;
    uint64_t now;
    uint32_t lines;           /* domains x (write + read channels) */
    uint32_t channels;        /* per domain */
    uint32_t nqueues;
    uint64_t *table;          /* Transfer Table: lines x 4 words */
    uint8_t *occupied;        /* per line: RQ__LINE_FREE, RQ__LINE_FIRST, RQ__LINE_SECOND */
    rq__accumulator *acc;      /* per domain */
    rnic_ssfifo sched;
    rq_ids ids;
    rq_status_regs status;
    rnic_ring aw;             /* rq__axi_beat */
    rnic_ring b;              /* rq_axi_bresp */
    rnic_ring rd;             /* rq__axi_read */
    rnic_ring r;              /* rq_axi_rdata */
    bool enq_port_used;       /* this cycle's scheduling-FIFO enqueue (ACK > segmenter > AXI > remote) */
    bool table_port_used;     /* this cycle's Transfer Table port-0 line write (AXI > remote) */
    uint32_t remote_line;     /* the read channel the head remote read is being written to, or RNIC_NONE */
    uint32_t remote_written;  /* its lines written so far (one per cycle through port 0) */
    rq__meta *meta;            /* per line */
    rq__xfer *xfer;            /* per line (first lines of live transfers) */
    rq__pend *pend;            /* per TID (2 x tids) */
    rnic_ring tx;             /* rq_block_desc: to the send unit */
    rnic_ring pkt;            /* rq_packet: the Packet queue */
    rnic_ring resp;           /* rq_response: from the network */
    rnic_ring retx;           /* uint32_t TIDs to retransmit */
    rnic_ring id_returns;     /* {pool, id}: IDs going back one per cycle */
    rnic_ring remote;         /* rq__remote_read */
    rq__stage2_reg s2;
    rq_block_desc s3;
    bool s3_valid;
    bool arb_handler_last;    /* metadata arbiter: the handler was served last */
    uint32_t s1_pick;         /* the queue stage 1's probe chose this cycle (RNIC_NONE: none) */
    uint64_t tid_wait_mask[2]; /* have-FID queues whose head waits at the tid_bitmap (known busy) */
    uint32_t *tid_waited;     /* ... and the TID each waits for, per scheduling queue (caller memory); the bit
                               * clears when it is back */
    uint64_t queue_class[5][2]; /* queue masks (<= 66 queues), indexed by RQ__CLASS_*: the
                                 * queues taking a TID, a FID, a FID group (= rq_id_pool), the
                                 * have-FID queues, the multipath (4xFID) queues */
    uint64_t pool_closed[8][2]; /* by a bit set of unavailable pools: the queues they close */
    rq__handler mh;
    bool ids_done;            /* the ID initializer has finished (rq_ids_ready; it stays so) */
    uint32_t seq;             /* global sequence number (§3.13) */
    uint32_t scan;            /* timeout scanner position */
    uint32_t pend_shift;      /* log2(pending entries) */
    uint64_t timeout;         /* cycles (timeout_ns at clock_hz) */
    uint32_t armed_head, armed_tail; /* armed entries not yet due, by due (arming order) */
    uint64_t *due_map;        /* armed entries already due, by TID: the scanner's next finds */
    uint32_t ndue;
    uint32_t block_shift;     /* log2(block_bytes) */
    uint32_t npending;
    rnic_trace trace;         /* cfg.trace, cfg.trace_user */
    uint16_t trace_id;
    rq_qos_stats stats;
};
