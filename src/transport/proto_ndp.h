/* transport.h: NDP (Handley et al., "Re-architecting datacenter networks and stacks for low latency
 * and high performance", SIGCOMM 2017) on grant-token credit -- its parameters and context (the
 * protocol: tp_protocol_ndp(), proto_ndp.c).
 *
 * Receiver-driven: a flow starts with init_window segments of token credit (sent at line rate
 * before any pull); every pull (TP_PKT_GRANT, aux = bytes) adds its bytes of credit in the engine's
 * fixed stage, so one pulled segment goes per pull. A trim notice (TP_PKT_NACK, pkt->offset = the
 * id of the segment whose payload a switch trimmed) marks that segment for retransmission: it goes
 * before new data, on the credit the pull for the trimmed header brings. The receiver runs with
 * nack = false (every NACK an NDP flow gets is a trim notice) and pull_bps set. A timeout (only when
 * packets vanish whole: no header, so no pull) marks every unacked segment and adds the credit
 * they lack. A variant is a copy of *tp_protocol_ndp() with .config pointing at another
 * tp_ndp_config (checked by tp_config_check). */
typedef struct tp_ndp_config {
    uint32_t init_window; /* segments sent before the first pull (initial credit = init_window x seg_size,
                             unless params.init_credit is set); default 16. NDP sends about one BDP:
                             set it to link rate x RTT / seg_size */
    uint32_t window;      /* in-flight limit in segments; 0 (default) = the engine's W */
    uint64_t rto_ns;      /* base retransmission timeout; 0 (default) = the flow's rto_ns. Doubled per
                             consecutive timeout (up to 2^6 x), back to base when a packet arrives */
} tp_ndp_config;

/* Defaults above. */
TP_API void tp_ndp_config_default(tp_ndp_config *c);
/* RNIC_EINVAL: NULL, init_window 0 or above 65536, window above TP_MAX_WINDOW, rto_ns above 100 s. */
TP_API rnic_err tp_ndp_config_check(const void *config);

/* The per-flow context (1 byte). */
typedef struct tp_ndp_ctx {
    uint8_t timeouts;   /* consecutive timeouts (RTO backoff exponent, at most 6) */
} tp_ndp_ctx;
