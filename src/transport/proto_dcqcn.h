/* transport.h: RoCEv2 with DCQCN (rate credit) -- its parameter block and user context.
 *
 * Reaction point of DCQCN (Zhu et al., SIGCOMM'15) over RoCEv2 go-back-N. The variant is a
 * parameter set (tp_protocol.config points at a tp_dcqcn_config); two presets:
 *   TP_DCQCN_PAPER     the paper and its authors' simulators (htsim dcqcn.cpp): on every CNP the
 *                      target takes the rate, the rate is cut with the OLD alpha, then alpha moves
 *                      towards 1; alpha decays every 55 us without a CNP; rate timer 55 us and a
 *                      10 MB byte counter drive fast recovery / additive / hyper increase by
 *                      max / min(T, BC) against F = 5; g = 1/256, R_AI 40 Mb/s, R_HAI 200 Mb/s,
 *                      min rate 100 Mb/s; no increase while the rate is at line rate.
 *   TP_DCQCN_MELLANOX  the HPCC simulator's *Mlx functions (rdma-hw.cc): a CNP only sets two
 *                      flags; alpha is updated every 1 us, the rate decrease is checked every 4 us
 *                      (+ 1 ns after the first CNP), increases come from a 300 us timer by a stage
 *                      counter against F = 1, R_AI 5 Mb/s, R_HAI 50 Mb/s, target capped at line
 *                      rate, no byte counter.
 * Sources, departures and the golden vectors: docs/transport_dcqcn.md. A variant:
 *     tp_dcqcn_config my;  tp_protocol p = *tp_protocol_dcqcn();
 *     tp_dcqcn_preset(&my, TP_DCQCN_MELLANOX);  my.rate_period_ns = 55000;  p.config = &my;
 * (tp_config_check runs tp_dcqcn_config_check on it: field "protocol.config" when refused.)
 *
 * Go-back-N (RoCEv2): TP_PKT_ACK slides the window (the engine) and restarts the rtx timer when it
 * acknowledges something; TP_PKT_NACK (a NAK: index = the PSN the responder expects) marks
 * [index, highest_sent) for retransmission and restarts the timer; a timeout (rto_ns) marks
 * [wnd_start, highest_sent) and re-arms the timer; TP_PKT_CNP drives the rate.
 *
 * tp_flow_config.param[]:
 *   param[0]  the flow's window in segments (outstanding PSNs); 0 = cfg.window (W). It takes
 *             effect at the first hook call (init_wnd until the flow's first periodic visit).
 *   param[1..5] unused.
 * The line rate is tp_dcqcn_config.link_bps, or the flow's initial rate when 0 (init_rate_bps,
 * else cfg.link_bps). Fractions are Q1.31 in a uint32: TP_DCQCN_ONE = 1.0. */

#define TP_DCQCN_ONE 0x80000000u

#define TP_DCQCN_PAPER 0u    /* SIGCOMM'15 + htsim (the default: tp_protocol_dcqcn()'s config) */
#define TP_DCQCN_MELLANOX 1u /* HPCC simulator, rdma-hw.cc *Mlx */

/* tp_dcqcn_config.flags */
#define TP_DCQCN_F_ALPHA_FIRST 1u  /* per-CNP cut: update alpha first and cut with the new one (paper: old) */
#define TP_DCQCN_F_STAGE 2u        /* increase by the stage counter (Mlx: stage < F fast recovery, == F
                                    * additive, > F hyper by R_HAI) instead of max / min(T, BC) */
#define TP_DCQCN_F_CAP_TARGET 4u   /* the target is capped at line rate on increase (Mlx) */
#define TP_DCQCN_F_CLAMP_TARGET 8u /* timed decrease: target = rate at every decrease (HPCC
                                    * clamp_target); without it only when stage > 0 */
#define TP_DCQCN_F_HOLD_AT_LINE 16u /* no increase while the rate is at line rate (htsim) */
#define TP_DCQCN_F__ALL 31u

typedef struct tp_dcqcn_config {
    uint32_t g;                  /* alpha gain, Q1.31, 0 < g < 1: 1/256 = TP_DCQCN_ONE >> 8 (both) */
    uint32_t alpha_init;         /* alpha before the first CNP, Q1.31 <= 1: 1.0 (both) */
    uint32_t first_cnp_rate;     /* timed decrease: rate = target = this x rate on the first CNP,
                                    Q1.31, 0 < x <= 1: 1.0 (HPCC rate_on_first_cnp) */
    uint64_t alpha_period_ns;    /* alpha timer K: paper 55000 (restarted by each CNP, decays alpha),
                                    Mlx 1000 (free running, (1-g) a + g x the CNP flag) */
    uint64_t rate_period_ns;     /* rate increase timer: paper 55000, Mlx 300000 */
    uint64_t decrease_period_ns; /* 0 (paper): cut on every CNP; else (Mlx 4000) a CNP sets a flag
                                    that a decrease check every this many ns acts on */
    uint64_t decrease_delay_ns;  /* the first check comes this much after the period: Mlx 1 */
    uint32_t byte_counter;       /* B: BC++ and an increase per B bytes sent; 0 = none (Mlx);
                                    paper 10,000,000 */
    uint32_t f;                  /* F, 1 .. 254: paper 5, Mlx 1 */
    uint32_t flags;              /* TP_DCQCN_F_*: paper HOLD_AT_LINE, Mlx STAGE | CAP_TARGET */
    uint64_t rai_bps;            /* R_AI: paper 40 Mb/s (htsim's own constructor: line / 20), Mlx 5 Mb/s */
    uint64_t rhai_bps;           /* R_HAI: paper 200 Mb/s (htsim: line / 10), Mlx 50 Mb/s */
    uint64_t rate_floor_bps;     /* DCQCN's minimum rate, the floor of a cut: 100 Mb/s (both); >= 100 Kb/s */
    uint64_t link_bps;           /* line rate; 0 = the flow's initial rate */
} tp_dcqcn_config;

/* Fills *p with preset TP_DCQCN_PAPER or TP_DCQCN_MELLANOX (another id: all zero, which
 * tp_dcqcn_config_check refuses). */
TP_API void tp_dcqcn_preset(tp_dcqcn_config *p, uint32_t preset);
/* RNIC_OK for NULL (the paper preset) or a sane block; RNIC_EINVAL for g = 0 or >= 1, alpha_init
 * or first_cnp_rate above 1 (or the latter 0), F outside 1 .. 254, a period of 0 or above 1 s,
 * a decrease delay above its period, unknown flags, rate_floor_bps outside 100 Kb/s .. 800 Gb/s, R_AI or
 * R_HAI above 800 Gb/s, link_bps above 800 Gb/s or below rate_floor_bps. tp_protocol.check of DCQCN. */
TP_API rnic_err tp_dcqcn_config_check(const void *config);

/* tp_dcqcn_ctx.flags */
#define TP_DCQCN_S_ACTIVE 1u    /* a CNP was seen: the timers and the byte counter run (htsim _cc_active) */
#define TP_DCQCN_S_RATE_ON 2u   /* the rate increase timer runs (paper: from the first CNP; Mlx: from the first decrease) */
#define TP_DCQCN_S_ALPHA_CNP 4u /* Mlx: a CNP since the last alpha update */
#define TP_DCQCN_S_DEC_CNP 8u   /* Mlx: a CNP since the last decrease check */

/* The user context (40 bytes). The current rate RC is the engine's flow rate (ev->rate_bps, what
 * act->rate_bps last set). Deadlines are cycles modulo 2^32, compared by signed difference (every
 * period is below 2^31 cycles: at most 1 s at 1 GHz). */
typedef struct tp_dcqcn_ctx {
    uint64_t target;   /* RT, target rate, bps */
    uint64_t line;     /* line rate, bps */
    uint32_t alpha;    /* Q1.31 */
    uint32_t alpha_at; /* next alpha update (cycle mod 2^32) */
    uint32_t rate_at;  /* next rate increase */
    uint32_t dec_at;   /* Mlx: next decrease check */
    uint32_t bc_base;  /* ev->total_sent at the last CNP (paper) or byte-counter event */
    uint8_t t;         /* T, the timer count (Mlx: the rp stage); saturates at 255 */
    uint8_t bc;        /* BC, the byte count; saturates at 255 */
    uint8_t flags;     /* TP_DCQCN_S_* */
    uint8_t pad;
} tp_dcqcn_ctx;
