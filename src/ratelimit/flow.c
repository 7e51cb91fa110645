/* ratelimit.h: flow.c -- Tassel's engine, one hardware block per file (Fig. 5 of the paper; cycle
 * semantics: docs/tassel_model.md, every step numbered as there):
 *   flow.c              the per-flow record (the QPC: virtual times, rates, cursor), flow FIFOs
 *   oversubscription.c  Phi and the system-time step (the oversubscription fallback)
 *   engine.c            configuration, memory layout, rl_init
 *   registers.c         the per-flow registers (doorbell, rate, credit), flow activity
 *   schedule_queue.c    the schedule FIFO (or the ranked option) and the reschedule wheel
 *   descriptors.c       the descriptor buffer: waiting heap by start, eligible ring by finish
 *   rate_change.c       re-timing on a rate write; the EMUX (step 1)
 *   fetch_and_drop.c    a returned fetch: cut, keep m urgent packets, drop the rest, reschedule
 *   timeline.c          the P-heap timeline (a radix calendar on (key, insertion order) -- exactly
 *                       the P-heap's order, amortised O(1) -- whose hardware timing, an operation
 *                       every 2 cycles of `height` cycles, is modelled with two small pipelines)
 *   transmit.c          eligibility (step 5) and the link (step 6)
 *   fetch.c             WQE fetches (step 7): descriptor gate, read channel, latency L
 *   tick.c              rl_tick: one cycle, the steps in order
 *   fast_forward.c      rl_next_event, rl_advance (the common advance loop)
 *   ports.c             the TX port and the read accessors */

enum { RL__IDLE, RL__QUEUED, RL__PARKED, RL__FETCHING, RL__DORMANT, RL__DRAINING }; /* = RL_FLOW_* */
/* where a DORMANT flow is on the timeline path */
enum { RL__TL_NONE, RL__TL_REQUEST, RL__TL_SETTLED, RL__TL_LEAVING, RL__TL_WHEEL };
#define RL__PEND_DOORBELL 1u
#define RL__PEND_RATE 2u
#define RL__PEND_CREDIT 4u
#define RL__LATE 0xffffu /* tl_list of an entry in the late list */
#define RL__RUN 0xfffeu  /* tl_list of an entry in the run (timeline.c) */
#define RL__TL_DIGIT 6u   /* timeline calendar: bits per digit ... */
#define RL__TL_LEVELS 11u /* ... and levels (11 x 6 >= 64) */

#define RL__DEFAULT_CLOCK 250000000ull
#define RL__DEFAULT_LINK 100000000000ull
#define RL__MAX_LINK 800000000000ull
#define RL__MAX_WQE 0x80000000u

RL_API const char *rl_version(void);

/* The engine's pipelines (rl__timed_queue): typed, no copies through void pointers; none can
 * overflow (each is sized for the pipeline's length). The flow FIFOs (rl__flow_fifo) are linked
 * through the flows' records: a flow is in each at most once. */
#define RL__Q_AT(q, i) /* the i-th entry from the head (head, i < capacity <= 2^20 + 1: no overflow) */ \
    ((q)->slot[(q)->head + (i) >= (q)->capacity ? (q)->head + (i) - (q)->capacity : (q)->head + (i)])
#define RL__Q_PUSH(q, value)                                                         \
    do {                                                                             \
        RL__Q_AT(q, (q)->count) = (value);                                           \
        (q)->count++;                                                                \
    } while (0)
#define RL__Q_HEAD(q) ((q)->slot[(q)->head])
#define RL__Q_DROP(q)                                                                \
    do {                                                                             \
        (q)->head = (q)->head + 1u == (q)->capacity ? 0u : (q)->head + 1u;           \
        (q)->count--;                                                                \
    } while (0)

/* Packed rl__qp fields (api.h). */
#define RL__QF_CREDIT 1u       /* has credit */
#define RL__QF_DOORBELL 2u     /* a doorbell arrived while DRAINING */
#define RL__QF_PAUSED 4u       /* rate 0 applied */
#define RL__QF_PEND_CREDIT 8u  /* the credit value written, not yet applied */
#define RL__QF_LEN_HI 16u      /* bit 16 of prev_len (an MTU of 65536) */
#define RL__QF(q, bit) (((q)->flags & (bit)) != 0)
#define RL__QF_SET(q, bit, on) ((q)->flags = (uint8_t)((on) ? (q)->flags | (bit) : (q)->flags & ~(bit)))
RNIC_INLINE rnic_ftime rl__finish(const rl__qp *q)
{
    rnic_ftime t;
    t.cycle = q->finish_cycle;
    t.frac = q->finish_frac;
    return t;
}
RNIC_INLINE void rl__set_finish(rl__qp *q, rnic_ftime t)
{
    q->finish_cycle = t.cycle;
    q->finish_frac = t.frac;
}
RNIC_INLINE rnic_ftime rl__prev_start(const rl__qp *q)
{
    rnic_ftime t;
    t.cycle = q->prev_start_cycle;
    t.frac = q->prev_start_frac;
    return t;
}
RNIC_INLINE uint64_t rl__rate(const rl__qp *q) { return (uint64_t)q->rate_hi << 32 | q->rate_lo; }
RNIC_INLINE uint64_t rl__pend_rate(const rl__qp *q) { return (uint64_t)q->pend_rate_hi << 32 | q->pend_rate_lo; }
RNIC_INLINE uint32_t rl__prev_len(const rl__qp *q) { return (uint32_t)q->prev_len_lo | (RL__QF(q, RL__QF_LEN_HI) ? 0x10000u : 0u); }
/* the last packet sent: its start and length (len <= mtu <= 65536: 17 bits) */
RNIC_INLINE void rl__set_prev(rl__qp *q, rnic_ftime start, uint32_t len)
{
    q->prev_start_cycle = start.cycle;
    q->prev_start_frac = start.frac;
    q->prev_len_lo = (uint16_t)len;
    RL__QF_SET(q, RL__QF_LEN_HI, len >> 16);
}

/* Intrusive flow FIFOs: NEXT(qp) is the link that chains them (RL__TL_NEXT, RL__REG_NEXT). */
#define RL__TL_NEXT(qp) r->tl_next[qp]
#define RL__REG_NEXT(qp) r->qps[qp].reg_next
#define RL__FIFO_PUSH(fifo, NEXT, qp)                                                \
    do {                                                                             \
        uint32_t qp_ = (qp);                                                         \
        NEXT(qp_) = RNIC_NONE;                                                       \
        if ((fifo)->count++)                                                         \
            NEXT((fifo)->tail) = qp_;                                                \
        else                                                                         \
            (fifo)->head = qp_;                                                      \
        (fifo)->tail = qp_;                                                          \
    } while (0)
#define RL__FIFO_DROP(fifo, NEXT) /* the head leaves (count > 0) */                  \
    do {                                                                             \
        (fifo)->head = NEXT((fifo)->head);                                           \
        (fifo)->count--;                                                             \
    } while (0)

/* Wrap-safe: cycle `t` has come (t <= now modulo 2^64, within 2^63). */
static bool rl__reached(uint64_t now, uint64_t t) { return now - t < ((uint64_t)1 << 63); }
/* Wrap-safe: timeline key a is earlier than b (within 2^63). */
static bool rl__key_before(uint64_t a, uint64_t b) { return (a - b) >> 63 != 0; }

