/* transport.h: IRN (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018) on rate
 * credit -- its parameters and context (the protocol: tp_protocol_irn(), proto_irn.c).
 *
 * Receiver: tp_rx with nack = true, sack = true, delack_count = 1 (an ACK per in-order packet, a
 * NACK carrying the received run per out-of-order one). Sender: selective retransmission of the
 * segments below the highest SACKed one, RTO_low / RTO_high by the packets in flight, and BDP
 * flow control (at most bdp_bytes / seg_size segments between wnd_start and highest_sent). No
 * congestion control (the paper's headline configuration): the flow sends at rate_bps, 0 = the
 * engine's link rate. A variant is a copy of *tp_protocol_irn() with .config pointing at another
 * tp_irn_config (checked by tp_config_check). */
typedef struct tp_irn_config {
    uint64_t rto_low_ns;   /* RTO_low, used when at most rto_low_pkts packets are in flight; default 100000 (100 us) */
    uint64_t rto_high_ns;  /* RTO_high otherwise; default 320000 (320 us) */
    uint32_t rto_low_pkts; /* N; default 3 */
    uint32_t bdp_bytes;    /* BDP-FC in-flight cap in bytes (link rate x base RTT); 0 (default) = the engine's W */
    uint64_t rate_bps;     /* fixed sending rate; 0 (default) = line rate (cfg.link_bps or params.init_rate_bps) */
} tp_irn_config;

/* Defaults above. */
TP_API void tp_irn_config_default(tp_irn_config *c);
/* RNIC_EINVAL: NULL, an RTO of 0 or above 10 s, rto_low_ns > rto_high_ns. */
TP_API rnic_err tp_irn_config_check(const void *config);

/* The per-flow context (13 bytes: ctx_size stops before the padding). */
typedef struct tp_irn_ctx {
    uint32_t recover;   /* the recovery point: highest_sent when loss recovery began */
    uint32_t high_rxt;  /* one past the highest segment marked for retransmission (RFC 6675 HighRxt) */
    uint32_t high_sack; /* one past the highest SACKed segment seen */
    uint8_t recovery;   /* 1 while in loss recovery */
} tp_irn_ctx;
#define TP_IRN_CTX_BYTES 13u
