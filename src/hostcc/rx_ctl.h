/* hostcc.h: rx_ctl.h -- the RHCC receiver controller `hcc_rx` (RHCC §3.2, Fig. 5 receiver:
 * IIO occupancy monitor + MBA level allocation). Cycle contract: docs/hostcc_rx.md; the shapes
 * every engine shares: docs/engine_contract.md.
 *
 * The caller reads the host's cumulative IIO occupancy counter (the MSR analog,
 * hcc_host_iio_occupancy_cum) every sample period and pushes {cycle, cum}. One accepted sample
 * is decided per tick: I_cur = (cum - prev_cum) mod 2^counter_bits over (cycle - prev_cycle)
 * cycles, the average IIO occupancy in lines, compared exactly (no division) with i_thr / i_low.
 * MBA mode (RHCC): I_cur > i_thr -> one level down (less bandwidth to the CPU) once slack has
 * passed since the last change; up_samples consecutive samples with I_cur <= i_low and slack
 * passed -> one level up. ECN mode (hostCC-style marking as a comparison): ecn on while
 * I_cur > i_thr, the level never moves. OFF: monitor only. Each change leaves as an action
 * record (hcc_rx_pop_action); the caller writes hcc_host_set_mba_level / hcc_host_set_ecn. */

/* cfg.mode */
#define HCC_RX_MODE_MBA 0u /* RHCC: step MBA levels (default) */
#define HCC_RX_MODE_ECN 1u /* hostCC-style: ecn on while I_cur > i_thr; levels unchanged */
#define HCC_RX_MODE_OFF 2u /* monitor only: statistics, never an action */

/* Action record flags (engine bits of rnic_work.flags; op is never written). HCC_RX_WORK_MBA or
 * HCC_RX_WORK_ECN says what changed; HCC_WORK_CE (api.h) is set while ECN marking is on, in every
 * record. */
#define HCC_RX_WORK_MBA (128u << RNIC_WORK_ENGINE_SHIFT) /* the MBA level changed */
#define HCC_RX_WORK_ECN (256u << RNIC_WORK_ENGINE_SHIFT) /* the ECN marking state changed */
#define HCC_RX_WORK_DOWN (16u << RNIC_WORK_ENGINE_SHIFT)   /* the last step went one level down */
#define HCC_RX_WORK_UP (32u << RNIC_WORK_ENGINE_SHIFT)     /* the last step went one level up */
#define HCC_RX_WORK_MERGED (64u << RNIC_WORK_ENGINE_SHIFT) /* the port was full: this record replaced
                                                              the newest waiting one (last write wins) */

/* Engine-specific trace kinds (engine RNIC_ENGINE_HCC_RX). */
#define HCC_RX_TRACE_SAMPLE 16u /* a sample decided: a = occupancy-cycles, b = interval cycles */
#define HCC_RX_TRACE_LEVEL 17u  /* MBA level changed: a = new level, b = old level */
#define HCC_RX_TRACE_ECN 18u    /* ECN marking changed: a = 1 on / 0 off */
#define HCC_RX_TRACE_MERGE 19u  /* the action port was full: the newest record was replaced, a = level, b = ECN on */
#define HCC_RX_TRACE_WRAP 20u   /* a sample crossed the counter wrap: a = cum, b = previous cum */

/* Refusal reasons of the sample port (each also counted in stats.errors by its code; a NULL
 * record counts in errors only): stats.reasons.<counter>, hcc_rx_reason_message(HCC_RX_REASON_*)
 * names what to change. */
#define HCC_RX_REASONS(R)                                                                                  \
    R(HCC_RX_REASON_PORT_FULL, RNIC_EBUSY, port_full,                                                      \
      "hcc_rx: the sample port is full (tick between samples, or raise sample_depth)")                    \
    R(HCC_RX_REASON_NOT_AFTER, RNIC_EINVAL, not_after,                                                     \
      "hcc_rx: a sample's cycle is not after the previous sample's (backwards or duplicate)")             \
    R(HCC_RX_REASON_CUM_RANGE, RNIC_ERANGE, cum_range,                                                     \
      "hcc_rx: cum >= 2^counter_bits (set counter_bits to the counter's width)")                          \
    R(HCC_RX_REASON_IMPLAUSIBLE, RNIC_ERANGE, implausible,                                                 \
      "hcc_rx: the counter moved more than max_lines per cycle since the previous sample (raise max_lines)")
RNIC_REASONS(hcc_rx, HCC_RX, HCC_RX_REASONS)

/* Bounds config_check enforces. */
#define HCC_RX_MAX_DEPTH 65536u
#define HCC_RX_MAX_LINES_BOUND (1u << 24)
#define HCC_RX_MAX_UP_SAMPLES (1u << 20)
#define HCC_RX_MAX_PERIOD_NS 1000000000ull    /* 1 s */
#define HCC_RX_MAX_SLACK_NS 10000000000ull    /* 10 s */
#define HCC_RX_MAX_LEVEL_BPS 8000000000000ull /* 8 Tb/s (1 TB/s) */

typedef struct hcc_rx_config {
    uint64_t clock_hz;         /* default 250 MHz; RNIC_CLOCK_MIN_HZ .. RNIC_CLOCK_MAX_HZ */
    uint64_t sample_period_ns; /* default 2000 (2 us, sub-RTT; Choice). Used only for
                                  hcc_rx_sample_due: the caller decides when it samples. 1 .. 1 s */
    uint32_t i_thr;            /* congestion threshold on the AVERAGE IIO occupancy over a sample
                                  interval, lines; default 32 (Choice); 1 .. max_lines */
    uint32_t i_low;            /* step-up threshold, lines; 0 = i_thr / 2 (default); <= i_thr */
    uint32_t up_samples;       /* consecutive samples with I_cur <= i_low before one step up,
                                  default 8 (Choice); 1 .. 2^20 */
    uint32_t start_level;      /* level after init, 0 .. 4, default 0 (33.2 GB/s to the CPU) */
    uint64_t slack_ns;         /* least time between two level changes, default 150000 (hostCC's
                                  150 us); 0 .. 10 s */
    bool fast_down;            /* a step down right after a step UP ignores the slack (undo a
                                  relaxation that brought congestion back at once), default false
                                  (Choice; the composed RNIC turns it on) */
    uint64_t levels_bps[HCC_MBA_LEVELS]; /* b/s left to CPU traffic per level, default the paper's
                                  33.2/26.5/20.0/15.0/10.0 GB/s (x 8); 1 .. 8 Tb/s, non-increasing */
    uint32_t counter_bits;     /* width of the cumulative counter, default 48; 8 .. 64 */
    uint32_t max_lines;        /* plausibility bound: a sample may add at most max_lines per cycle
                                  of its interval (the IIO cannot hold more), default 4096; 1 .. 2^24 */
    uint32_t mode;             /* HCC_RX_MODE_*, default HCC_RX_MODE_MBA */
    uint32_t sample_depth;     /* input port depth (samples waiting for a tick), default 4; 1 .. 65536 */
    uint32_t action_depth;     /* output port depth, default 16; 1 .. 65536 */
    uint32_t pad_;
    uint64_t start_cycle;      /* hcc_rx_now() after init, default 0 */
    rnic_trace_fn trace;       /* NULL: tracing off */
    void *trace_user;
    uint16_t trace_id;         /* `engine` of the trace events, default RNIC_ENGINE_HCC_RX */
} hcc_rx_config;

/* One reading of the cumulative IIO occupancy counter. */
typedef struct hcc_rx_sample {
    uint64_t cycle; /* when the counter was read (the caller's clock = the engine's) */
    uint64_t cum;   /* the counter, < 2^counter_bits */
} hcc_rx_sample;

typedef struct hcc_rx_stats {
    uint64_t cycles;            /* cycles run (ticked or skipped) */
    uint64_t samples;           /* samples accepted (the first is the baseline, no decision) */
    uint64_t decisions;         /* samples decided against a previous one */
    uint64_t congested_samples; /* decisions with I_cur > i_thr */
    uint64_t calm_samples;      /* decisions with I_cur <= i_low */
    uint64_t level_downs, level_ups;
    uint64_t held_by_slack;     /* a step was due but the slack had not passed */
    uint64_t at_bound;          /* a step was due but the level was already 4 (down) or 0 (up) */
    uint64_t ecn_on, ecn_off;   /* ECN mode transitions */
    uint64_t actions;           /* action records produced (merged ones included) */
    uint64_t merged;            /* records that replaced a waiting one (full port, last write wins) */
    uint64_t time_at_level[HCC_MBA_LEVELS]; /* cycles spent at each level (sum = cycles) */
    uint64_t ecn_cycles;        /* cycles with ECN marking on */
    uint64_t wraps;             /* accepted samples across the counter wrap */
    uint64_t max_icur;          /* largest average occupancy decided, lines (floor) */
    hcc_rx_reason_stats reasons; /* refused samples by reason (HCC_RX_REASONS; NULL records: errors only) */
    rnic_err_stats errors;      /* refused input by cause: the one refusal count */
} hcc_rx_stats;

/* A sample accepted into the input port, with its interval already measured at push (internal). */
typedef struct hcc__rx_entry {
    uint64_t cycle;    /* the sample's cycle */
    uint64_t occ;      /* occupancy-cycles since the previous sample (mod 2^counter_bits) */
    uint64_t interval; /* cycles since the previous sample; 0 = the baseline (no previous) */
} hcc__rx_entry;

/* Engine state (transparent so firmware can place it statically; use the API). */
typedef struct hcc_rx {
    hcc_rx_config cfg;
    uint64_t now;
    uint64_t sample_cycles; /* sample_period_ns in cycles */
    uint64_t slack_cycles;  /* slack_ns in cycles */
    uint64_t cum_mask;      /* 2^counter_bits - 1 */
    uint64_t last_cycle, last_cum; /* newest accepted sample (push side) */
    uint64_t last_change;   /* sample cycle of the last level change */
    uint64_t last_icur;     /* average occupancy of the last decided sample, lines (floor) */
    uint32_t i_low;         /* resolved */
    uint32_t level;
    uint32_t calm;          /* consecutive calm samples (saturates at up_samples) */
    uint8_t have_last;      /* a sample has been accepted */
    uint8_t slack_running;  /* a change happened and its slack has not been seen to pass */
    uint8_t last_up;        /* the last change was a step up */
    uint8_t ecn;
    uint8_t pad_;
    rnic_ring in;           /* hcc__rx_entry */
    rnic_ring out;          /* rnic_work */
    rnic_trace trace;
    uint16_t trace_id;
    hcc_rx_stats stats;
} hcc_rx;

HCC_API void hcc_rx_config_default(hcc_rx_config *cfg);
/* RNIC_OK, or RNIC_EINVAL with *field (when field is not NULL) naming the bad field. */
HCC_API rnic_err hcc_rx_config_check(const hcc_rx_config *cfg, const char **field);
/* Bytes of caller memory hcc_rx_init needs (the two ports); 0 when cfg is invalid. */
HCC_API size_t hcc_rx_mem_size(const hcc_rx_config *cfg);
/* HCC_RX_MEM_SIZE: hcc_rx_mem_size as an integer constant expression (exactly hcc_rx_mem_size(&cfg)
 * for a valid config; tested). At the defaults: HCC_RX_MEM_SIZE(4, 16). */
#define HCC_RX_MEM_SIZE(sample_depth, action_depth) \
    (RNIC__MEM_PART((sample_depth), hcc__rx_entry) + RNIC__MEM_PART((action_depth), rnic_work))
/* RNIC_EINVAL: NULL engine, bad config, NULL or misaligned memory; RNIC_ENOSPC: size too small. */
HCC_API rnic_err hcc_rx_init(hcc_rx *c, const hcc_rx_config *cfg, void *mem, size_t size);

/* Input port: one counter reading. Checked at push against the newest accepted sample:
 * RNIC_EINVAL NULL sample, or cycle not after the previous one (backwards or duplicate, wrap-
 * safe: s->cycle - prev in [1, 2^63)); RNIC_ERANGE cum >= 2^counter_bits, or an implausible
 * difference ((cum - prev_cum) mod 2^counter_bits > max_lines x interval; a counter that went
 * backwards is one wrap when that difference is plausible, counted in wraps); RNIC_EBUSY the port
 * is full (sample_depth samples wait for ticks). Refused samples are counted and change
 * nothing else. The first accepted sample is the baseline. */
HCC_API rnic_err hcc_rx_push_sample(hcc_rx *c, const hcc_rx_sample *s);
HCC_API uint32_t hcc_rx_space_sample(const hcc_rx *c);

/* One cycle: decide the oldest waiting sample (if any), emit an action record stamped with this
 * cycle on a change, then count the cycle at the (new) level. */
HCC_API void hcc_rx_tick(hcc_rx *c);
/* now while a sample waits, else RNIC_NEVER (the output never blocks the engine). */
HCC_API uint64_t hcc_rx_next_event(const hcc_rx *c);
/* Up to `cycles` cycles, skipping idle stretches; returns the cycles run. Stops right after the
 * tick in which the action port became full. Identical to ticking, across 2^64 too. */
HCC_API uint64_t hcc_rx_advance(hcc_rx *c, uint64_t cycles);
HCC_API uint64_t hcc_rx_advance_to(hcc_rx *c, uint64_t cycle);

/* Output port: one record per change. cycle = the tick that decided it; flags: HCC_RX_WORK_MBA
 * or HCC_RX_WORK_ECN (what changed), HCC_RX_WORK_DOWN / HCC_RX_WORK_UP (MBA step direction),
 * HCC_WORK_CE while ECN marking is on, HCC_RX_WORK_MERGED when it replaced a waiting record;
 * index = the change's number (free-running from 0; a merged record takes the number of the
 * change it holds); aux = the level (0..4) after the change; addr = levels_bps[level] (the
 * level's CPU bandwidth in b/s: a rate record's rate); raddr = the cycle of the sample that
 * caused it (a departure: docs/engine_contract.md);
 * flow, len, offset, tag, op, status = 0. A change that finds the port full
 * overwrites the newest waiting record (the register's last write wins): the newest record
 * always holds the controller's current state. RNIC_EEMPTY when nothing waits; RNIC_EINVAL for
 * a NULL record (counted, by peek too). */
HCC_API rnic_err hcc_rx_pop_action(hcc_rx *c, rnic_work *out);
HCC_API rnic_err hcc_rx_peek_action(const hcc_rx *c, rnic_work *out);

HCC_API uint64_t hcc_rx_now(const hcc_rx *c);
HCC_API const hcc_rx_stats *hcc_rx_get_stats(const hcc_rx *c);
HCC_API uint32_t hcc_rx_level(const hcc_rx *c);      /* current MBA level, 0..4 */
HCC_API uint64_t hcc_rx_level_bps(const hcc_rx *c);  /* levels_bps of the current level, b/s */
HCC_API bool hcc_rx_ecn(const hcc_rx *c);            /* ECN marking on (ECN mode only) */
/* Average IIO occupancy of the last decided sample, lines (floor); 0 before the first decision. */
HCC_API uint64_t hcc_rx_occupancy(const hcc_rx *c);
/* The cycle the next sample is due: the newest accepted sample's cycle + sample_period (now when
 * none was accepted). A helper for the caller; the engine does not wait for it. */
HCC_API uint64_t hcc_rx_sample_due(const hcc_rx *c);
