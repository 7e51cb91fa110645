/* transport.h: the TCP protocols of Table 3 (Reno, NewReno, SACK) -- their user contexts.
 *
 * All three keep the congestion window in bytes, as ns-3's TcpNewReno congestion ops do (slow
 * start: + 1 segment per ACK of new data; congestion avoidance: + max(1, seg^2 / cwnd) bytes per
 * ACK), and turn it into the engine's segment window: wnd_size = cwnd / seg_size (+ the segments
 * the receiver holds out of order, below). Read the context through tp_flow_view.ctx.
 *
 * tp_flow_config.param[] for all three:
 *   param[0]  DupThresh, duplicate ACKs that start fast retransmit; 0 = 3
 *   param[1]  bit 0 set: no limited transmit (RFC 3042; on by default, as in ns-3)
 *   param[2]  initial ssthresh in segments; 0 = "infinite" (UINT32_MAX bytes, ns-3's default)
 *   param[3]  NewReno only: the recover rule of the third duplicate ACK (TP_NEWRENO_RECOVER_*);
 *             any other value: tp_flow_open refuses the flow (RNIC_EINVAL, counted in
 *             stats.errors). Reno and SACK ignore it.
 * The initial window is init_wnd segments (default 10, ns-3's InitialCwnd); the base RTO is
 * rto_ns, doubled per consecutive timeout up to 60 s (ns-3) and reset when new data is acked.
 *
 * A duplicate ACK (Reno, NewReno) is RFC 5681's without the window-update part: a TP_PKT_ACK or
 * TP_PKT_NACK whose cumulative ack equals wnd_start while data is outstanding. SACK uses RFC
 * 6675's: an ACK whose block SACKs a segment not acknowledged before (newly_acked greater than
 * the cumulative advance). Other packet types are ignored. */

#define TP_TCP_OPEN 0u     /* no loss suspected */
#define TP_TCP_DISORDER 1u /* duplicate ACKs seen, below DupThresh (limited transmit) */
#define TP_TCP_RECOVERY 2u /* fast recovery */
#define TP_TCP_LOSS 3u     /* after a retransmission timeout, until recover is acknowledged */

/* NewReno's recover rule (param[3]): when may three duplicate ACKs start fast retransmit once
 * recover is set (by a recovery or a timeout)? docs/transport_model.md, "NewReno's recover rule". */
#define TP_NEWRENO_RECOVER_NS3 0u     /* when the cumulative ACK reaches recover (ack >= recover):
                                       * ns-3 3.37, and Tonic's App. F and RTL; the default */
#define TP_NEWRENO_RECOVER_RFC6582 1u /* only when it covers more than recover (ack > recover):
                                       * RFC 6582 3.2 step 2 */

#define TP_TCP_F_ACTIVE 1u  /* recover is set (ns-3 m_recoverActive) */
#define TP_TCP_F_PARTIAL 2u /* a partial ACK was seen in this recovery (NewReno: RTO reset only on the first) */
#define TP_TCP_F_HEAD 4u    /* NewReno: the counted dup ACKs start at wnd_start itself (else just after it) */

/* Reno and NewReno (24 bytes). */
typedef struct tp_tcp_ctx {
    uint32_t cwnd;      /* bytes: ns-3's m_cWnd; during fast recovery it is ssthresh */
    uint32_t cwnd_infl; /* bytes: the inflated window of RFC 5681 (ns-3's m_cWndInfl) */
    uint32_t ssthresh;  /* bytes; UINT32_MAX = infinite */
    uint32_t recover;   /* segment id: highest_sent when recovery or the timeout began (RFC 6582
                         * recover, RFC 6675 RecoveryPoint); Reno: highest_sent at the first dup ACK */
    uint16_t dupacks;   /* duplicate ACKs counted outside recovery */
    uint16_t sacked;    /* NewReno: dup ACKs counted as delivered segments (ns-3 "Reno SACK") */
    uint8_t state;      /* TP_TCP_* */
    uint8_t flags;      /* TP_TCP_F_* */
    uint16_t pad;
} tp_tcp_ctx;

typedef tp_tcp_ctx tp_reno_ctx;
typedef tp_tcp_ctx tp_newreno_ctx;

/* SACK (40 bytes): the scoreboard is the engine's acked bitmap. */
typedef struct tp_sack_ctx {
    tp_tcp_ctx tcp;     /* tcp.sacked unused: the bitmap counts SACKed segments */
    uint32_t high_rxt;  /* one past the highest segment marked for retransmission (RFC 6675 HighRxt) */
    uint32_t top[3];    /* the three highest SACKed segments, highest first (wnd_start - 1: none):
                         * top[2] is the IsLost frontier for DupThresh 3 */
} tp_sack_ctx;
