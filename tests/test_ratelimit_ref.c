/* Independent brute-force reference of the Tassel model (docs/tassel_model.md) and
 * differential tests of ratelimit.h against it.
 *
 * The reference below uses nothing of the engine but its public types (rl_config, rnic_work,
 * the source callback): plain arrays, O(N) scans every cycle, and its own fixed-point
 * arithmetic in unsigned __int128 (every time is a u128 in units of 2^-32 cycles).
 * Where docs/tassel_model.md can be read two ways, the reference takes the most literal
 * reading; each such place is marked "(literal)".
 *
 * The ranked schedule-queue option (cfg.schedule_queue = RL_SCHEDULE_RANKED, the doc's
 * "Schedule-queue option: ranked") is modelled the same way: the ranked queue popped by the
 * smallest (rank, push number) in an O(N) scan, the reschedule wheel as a list of QPs whose
 * slots are their keys, Lambda with one MTU on the wire, the displacement of the latest stored
 * packet (largest (finish, number)) and the gate's second condition.
 *
 * Tests: (1) differential -- random and edge configurations and workloads pushed to the
 * engine and the reference alike, every register write's code, source callback, Phi and TX
 * record (every rnic_work field) compared cycle by cycle, counters at the end; rate changes
 * (raises, cuts, pauses) re-time the schedule by the rule of docs/tassel_model.md; (2) fast-forward -- rl_advance against
 * rl_tick, and rl_next_event against the cycles that do something; (3) paper-level sanity
 * of the reference alone (single-QP pacing, Phi = 2 sharing); (4) refused input and bad
 * configurations.
 *
 * Replay one differential workload: RL_REF_WSEED=<workload seed printed on failure>
 * (RL_REF_EDGE=<i> for an edge configuration; RL_REF_TRACE=1 for a per-cycle trace of the
 * reference); one fast-forward workload: RL_REF_FF_WSEED=<seed> (RL_REF_HEAVY=1 for the
 * rate-heavy ones: every third fast-forward workload, the rate-change differential ones;
 * RL_REF_RANKED=1 for the ranked schedule-queue option: the failure message says RANKED). */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

#include <stdarg.h>

__extension__ typedef unsigned __int128 u128;

/* Knobs for experiments beyond the literal model text (all 0 = docs/tassel_model.md as written):
 * REF_FULL_FETCH_MORE: a fetch that returned all n WQEs counts as "data remains" (the source
 *   may hold more) -- what the engine does; the model text does not say so.
 * REF_SLOW_CLOCK: under oversubscription the system time advances by 1/max(1, Phi) per cycle
 *   (the paper's prose, "slows down the system time proportionally") instead of max(1, Phi).
 * REF_LOOKAHEAD_EXTRA: Lambda = (L + height + 1 + extra) / max(1, Phi). */
#ifndef REF_FULL_FETCH_MORE
#define REF_FULL_FETCH_MORE 1
#endif
#ifndef REF_SLOW_CLOCK
#define REF_SLOW_CLOCK 1
#endif

#ifndef REF_LOOKAHEAD_EXTRA /* cycles added to L + height + 1 in Lambda */
#define REF_LOOKAHEAD_EXTRA 0u
#endif

/* Sizes of the randomized tests (ASan builds run them all in a few seconds). */
#ifndef RANDOM_WORKLOADS
#define RANDOM_WORKLOADS 700
#endif
#ifndef FF_WORKLOADS
#define FF_WORKLOADS 120
#endif

/* Differential runs of the ranked schedule-queue option (RL_SCHEDULE_RANKED) against the
 * engine: every third random and rate-change workload, two more per edge configuration, a
 * third of the fast-forward workloads (-DREF_RANKED_DIFF=0: those run in FIFO mode; the
 * reference-only ranked tests run either way). */
#ifndef REF_RANKED_DIFF
#define REF_RANKED_DIFF 1
#endif

static int g_ranked; /* the workload being generated runs RL_SCHEDULE_RANKED */
static int g_dyadic;
static int g_rate_heavy; /* workloads with many rate writes (raises, cuts, pauses) */
static uint64_t g_ff_stops; /* rl_advance calls that stopped at a full TX port */
/* rl_next_output in the fast-forward workloads: packets sent while a bound taken since the last
 * input or pop said later (must stay 0), packets checked; and for the first packet after an
 * input or pop, how often the bound taken right then was its exact cycle (not a bound that is
 * merely always early) */
static uint64_t g_out_late, g_out_checked, g_out_first, g_out_tight;
static uint64_t g_ff_fetch_limited, g_ff_throttled; /* fast-forward workloads with cfg.fetch_bps; their throttled cycles */ /* the workload being generated is "dyadic" (see pick_rate) */
#define Q32 ((u128)1 << 32)

/* ======================================================================================
 * Host send queues: the WQE source both models read (same content, same cycle).
 * ====================================================================================== */

typedef struct hq {
    rnic_work *w;
    uint32_t n, cap;
} hq;

typedef struct host {
    hq *q;
    uint32_t nq;
} host;

typedef struct flog {
    uint32_t qp, seq, max, got;
} flog;

typedef struct fsrc { /* one per model: the callback's user pointer, with a call log */
    host *h;
    flog log[64];
    uint32_t nlog;
    uint64_t calls;
} fsrc;

static void host_init(host *h, uint32_t nq)
{
    h->nq = nq;
    h->q = (hq *)calloc(nq, sizeof *h->q);
}

static void host_free(host *h)
{
    uint32_t i;
    for (i = 0; i < h->nq; i++)
        free(h->q[i].w);
    free(h->q);
    h->q = NULL;
}

static void host_post(host *h, uint32_t qp, uint32_t id, uint32_t len)
{
    hq *q = &h->q[qp];
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 16;
        q->w = (rnic_work *)realloc(q->w, q->cap * sizeof *q->w);
    }
    memset(&q->w[q->n], 0, sizeof q->w[q->n]);
    q->w[q->n].tag = id; /* carried untouched to every packet */
    q->w[q->n].len = len;
    q->w[q->n].addr = ((uint64_t)qp << 40) + (uint64_t)q->n * 0x100000u;
    q->w[q->n].raddr = 0x7000000000000000ull + ((uint64_t)id << 20);
    q->w[q->n].op = id % 5u;
    q->w[q->n].aux = 0xdeadu; /* not carried */
    q->n++;
}

/* A WQE the source itself marks as failed (RNIC_WORK_ERROR, status `st`). */
static void host_post_error(host *h, uint32_t qp, uint32_t id, uint32_t len, rnic_err st)
{
    host_post(h, qp, id, len);
    h->q[qp].w[h->q[qp].n - 1u].flags = RNIC_WORK_ERROR;
    h->q[qp].w[h->q[qp].n - 1u].status = (int32_t)st;
}

static uint32_t host_fetch(void *user, uint32_t qp, uint32_t seq, rnic_work *out, uint32_t max)
{
    fsrc *f = (fsrc *)user;
    uint32_t got = 0, i;
    f->calls++;
    if (qp < f->h->nq && seq < f->h->q[qp].n) {
        got = f->h->q[qp].n - seq;
        if (got > max)
            got = max;
        for (i = 0; i < got; i++)
            out[i] = f->h->q[qp].w[seq + i];
    }
    if (f->nlog < 64) {
        f->log[f->nlog].qp = qp;
        f->log[f->nlog].seq = seq;
        f->log[f->nlog].max = max;
        f->log[f->nlog].got = got;
        f->nlog++;
    }
    return got;
}

/* ======================================================================================
 * The reference model.
 * ====================================================================================== */

enum { RS_IDLE, RS_QUEUED, RS_PARKED, RS_FETCHING, RS_DORMANT, RS_DRAINING };
enum { EV_DOORBELL, EV_RATE, EV_CREDIT };
static const char *const rs_name[] = { "IDLE", "QUEUED", "PARKED", "FETCHING", "DORMANT", "DRAINING" };

typedef struct ref_qp {
    uint64_t rate, cpb;
    u128 finish;
    u128 sent_start; /* start of the last packet sent, or of the activation (sent_len 0) */
    uint32_t sent_len;
    uint64_t resched; /* timeline key while DORMANT */
    uint32_t seq, off;
    int credit, doorbell_pending, state, paused;
    int pend; /* registers written and not yet applied: bit (1 << EV_*) */
    int pend_credit;
    uint64_t pend_rate;
    uint32_t outstanding;
    uint64_t packets, bytes;
    /* ranked option */
    uint64_t rank, push; /* while QUEUED: rank and push number recorded at the push */
    int on_wheel;        /* DORMANT on the reschedule wheel (key: resched) */
} ref_qp;

typedef struct ref_desc {
    u128 start, finish;
    uint64_t number;
    int eligible;
    rnic_work w; /* the record it becomes (cycle set when it leaves) */
} ref_desc;

typedef struct ref_ent { /* a timeline entry (settled from `settle`); its key is the QP's resched */
    uint64_t settle, ins;
    uint32_t qp;
} ref_ent;

typedef struct ref_tq { /* a QP due somewhere at a given cycle */
    uint64_t cycle;
    uint32_t qp;
} ref_tq;

typedef struct ref {
    uint64_t clock, link, min_rate;
    uint32_t nq, mtu, L, n, k, txcap;
    rnic_source_fn fetch;
    void *user;

    uint64_t now;
    u128 T, A_mono, lambda, link_t;
    uint64_t sum, phi, inc, link_cpb, link_free;
    uint32_t height;
    uint64_t next_op, ins_counter, desc_counter;
    /* the PCIe read channel of the WQE fetches (step 7, "Fetch bandwidth"): fetch_bps 0 = unlimited */
    uint64_t fetch_bps, fetch_cpb, fetch_free;
    u128 fetch_t;
    uint32_t wqe_bytes;

    ref_qp *q;
    uint32_t *rf; /* flows with a register write pending, oldest first */
    uint32_t nrf;
    uint32_t *ireq; /* insert requests, oldest first */
    uint32_t nireq;
    ref_ent *ent; /* timeline entries, settled or not (settle cycle) */
    uint32_t nent;
    ref_tq *dl; /* dequeued QPs on their way to the schedule FIFO */
    uint32_t ndl;
    uint32_t *fifo; /* the schedule queue in push order (ranked: popped by (rank, push number)) */
    uint32_t nfifo;
    /* ranked option (docs/tassel_model.md, "Schedule-queue option: ranked") */
    int ranked;
    uint32_t W;       /* wheel slots: L */
    uint64_t P;       /* one MTU on the wire, whole cycles (in Lambda) */
    uint64_t low;     /* the wheel's low key (see ref_wheel_place) */
    uint32_t *wheel;  /* QPs on the wheel, any order (their keys: resched) */
    uint32_t nwheel;
    uint64_t push_counter;
    uint64_t wheel_inserts, wheel_collisions, wheel_spills, wheel_releases;
    uint64_t desc_evictions, evict_not_last; /* evict_not_last: the doc's claim broken (must stay 0) */
    ref_tq *fp; /* outstanding fetches, oldest first */
    uint32_t nfp;
    ref_desc *d; /* stored packets in descriptor-number order */
    uint32_t nd;
    rnic_work *tx;
    uint32_t ntx;
    rnic_work *wbuf;

    /* stats */
    uint64_t packets, bytes, tx_stalls, heap_ops, fetches, wqes_fetched, error_records;
    uint64_t packets_computed, packets_dropped, desc_full, max_phi, fetch_gated;
    uint64_t fetch_throttled, fetch_bytes, fetches_issued; /* issued: step 7 pops that start a fetch */
    uint64_t doorbells, rate_updates, credit_updates, credit_waits, coalesced, clamped, retimes;
    uint64_t lag_floored; /* re-timings whose next start was raised to the lag floor T - Lambda */
    uint64_t err[RNIC_ERR__COUNT];

    int active; /* the last tick did something besides advancing time (and TX stalls) */
    int trace;
} ref;

/* The reference's own time conversion (api.h: ns at clock_hz to the nearest cycle, a half
 * rounding up), in plain 128-bit arithmetic. */
static uint64_t ref_ns_to_cycles(uint64_t ns, uint64_t clock)
{
    return (uint64_t)(((u128)ns * clock + 500000000u) / 1000000000u);
}

/* The pcie_latency_ns that gives L cycles at `clock` (<= 1 GHz: the nearest ns is within half
 * a cycle, so it converts back to L exactly). The tests below choose L in cycles. */
static uint32_t ns_for_cycles(uint64_t L, uint64_t clock)
{
    return (uint32_t)(((u128)L * 1000000000u + clock / 2u) / clock);
}

static uint64_t ref_cpb(uint64_t clock, uint64_t bps)
{
    return (uint64_t)((((u128)clock * 8u) << 32) / bps);
}

static uint64_t u128_ceil_cycles(u128 t)
{
    return (uint64_t)((t + Q32 - 1) >> 32);
}

static void ref_phi(ref *r)
{
    r->phi = (uint64_t)((((u128)r->sum << 32) + r->link / 2) / r->link);
    r->inc = r->phi > ((uint64_t)1 << 32) ? r->phi : ((uint64_t)1 << 32);
    r->lambda = ((u128)(r->L + r->height + 1u + REF_LOOKAHEAD_EXTRA + r->P) << 64) / r->inc;
#if REF_SLOW_CLOCK
    r->inc = (uint64_t)(((u128)1 << 64) / r->inc);
#endif
    if (r->phi > r->max_phi)
        r->max_phi = r->phi;
}

static void ref_init(ref *r, const rl_config *c)
{
    uint32_t i;
    memset(r, 0, sizeof *r);
    r->clock = c->clock_hz;
    r->link = c->link_bps;
    r->min_rate = c->min_rate_bps;
    r->nq = c->max_flows;
    r->mtu = c->mtu;
    r->L = ref_ns_to_cycles(c->pcie_latency_ns, c->clock_hz);
    r->n = c->fetch_wqes;
    r->k = c->desc_depth;
    r->txcap = c->tx_depth;
    r->fetch = c->source;
    r->user = c->source_user;
    r->q = (ref_qp *)calloc(r->nq, sizeof *r->q);
    r->rf = (uint32_t *)calloc(r->nq, sizeof *r->rf);
    r->ireq = (uint32_t *)calloc(r->nq, sizeof *r->ireq);
    r->ent = (ref_ent *)calloc(r->nq, sizeof *r->ent);
    r->dl = (ref_tq *)calloc(r->nq, sizeof *r->dl);
    r->fifo = (uint32_t *)calloc(r->nq, sizeof *r->fifo);
    r->fp = (ref_tq *)calloc(r->nq, sizeof *r->fp);
    r->d = (ref_desc *)calloc(r->k, sizeof *r->d);
    r->tx = (rnic_work *)calloc(r->txcap, sizeof *r->tx);
    r->wbuf = (rnic_work *)calloc(r->n, sizeof *r->wbuf);
    r->link_cpb = ref_cpb(r->clock, r->link);
    r->fetch_bps = c->fetch_bps;
    r->wqe_bytes = c->wqe_bytes;
    if (r->fetch_bps) /* like the link's: floor(clock * 8 * 2^32 / fetch_bps) */
        r->fetch_cpb = ref_cpb(r->clock, r->fetch_bps);
    r->ranked = c->schedule_queue == RL_SCHEDULE_RANKED;
    if (r->ranked) {
        r->W = r->L;
        r->P = u128_ceil_cycles((u128)r->mtu * r->link_cpb); /* ceil(mtu * link_cpb) */
    }
    r->wheel = (uint32_t *)calloc(r->nq, sizeof *r->wheel);
    for (i = 0; i < r->nq; i++) {
        r->q[i].rate = r->link;
        r->q[i].cpb = r->link_cpb;
        r->q[i].credit = 1;
        r->q[i].state = RS_IDLE;
    }
    r->height = 0;
    while (((uint64_t)1 << r->height) < (uint64_t)r->nq + 1u)
        r->height++;
    ref_phi(r);
    r->A_mono = r->T + r->lambda;
}

static void ref_free(ref *r)
{
    free(r->q);
    free(r->rf);
    free(r->ireq);
    free(r->ent);
    free(r->dl);
    free(r->fifo);
    free(r->wheel);
    free(r->fp);
    free(r->d);
    free(r->tx);
    free(r->wbuf);
}

/* A register write: unknown QP refused; rates clamped into [min, link] (0 pauses); the QP
 * joins the pending FIFO on its first pending write; a second write of one register before
 * the EMUX applies it replaces the first (coalesced). */
static rnic_err ref_push(ref *r, int kind, uint32_t qp, uint64_t value)
{
    ref_qp *q;
    if (qp >= r->nq) {
        r->err[RNIC_ENOENT]++;
        return RNIC_ENOENT;
    }
    q = &r->q[qp];
    if (kind == EV_RATE) {
        if (value != 0 && value < r->min_rate) {
            value = r->min_rate;
            r->clamped++;
        } else if (value > r->link) {
            value = r->link;
            r->clamped++;
        }
        q->pend_rate = value;
    } else if (kind == EV_CREDIT) {
        q->pend_credit = value != 0;
    }
    if (q->pend & (1 << kind))
        r->coalesced++;
    if (!q->pend)
        r->rf[r->nrf++] = qp;
    q->pend |= 1 << kind;
    return RNIC_OK;
}

/* Ranked: an ftime truncated to cycle * 2^16 + (fraction >> 16), in 64 bits (mod 2^64). */
static uint64_t ref_trunc16(u128 t)
{
    uint64_t cyc = (uint64_t)(t >> 32), frac = (uint64_t)(uint32_t)t;
    return cyc * 65536u + (frac >> 16);
}

/* Ranked: the stored packet with the largest (finish, descriptor number): the latest. */
static uint32_t ref_latest(const ref *r)
{
    uint32_t i, b = 0;
    for (i = 1; i < r->nd; i++)
        if (r->d[i].finish > r->d[b].finish || (r->d[i].finish == r->d[b].finish && r->d[i].number > r->d[b].number))
            b = i;
    return b;
}

/* A push to the schedule queue (steps 1, 3w, 4, 6). Ranked: the QP's rank R = finish + mtu *
 * cpb (at the push, never updated while queued) truncated to R.cycle * 2^16 + (R.frac >> 16)
 * in 64 bits, and a push number. */
static void ref_fifo_push(ref *r, uint32_t qp)
{
    ref_qp *q = &r->q[qp];
    RNIC_ASSERT(r->nfifo < r->nq);
    q->state = RS_QUEUED;
    if (r->ranked) {
        q->rank = ref_trunc16(q->finish + (u128)r->mtu * q->cpb);
        q->push = r->push_counter++;
    }
    r->fifo[r->nfifo++] = qp;
}

/* Ranked: (rank, push number) of a before b; ranks compared wrap-safe (signed difference). */
static int ref_rank_before(const ref_qp *a, const ref_qp *b)
{
    int64_t d = (int64_t)(a->rank - b->rank);
    return d < 0 || (d == 0 && a->push < b->push);
}

/* Ranked: is a wheel slot (a key) taken? */
static int ref_wheel_has(const ref *r, uint64_t key)
{
    uint32_t i;
    for (i = 0; i < r->nwheel; i++)
        if (r->q[r->wheel[i]].resched == key)
            return 1;
    return 0;
}

/* A reschedule with key k (already ceil(max(reschedule, A_mono))): DORMANT. FIFO mode: an
 * insert request. Ranked: on the wheel when k < low + W, at the first free slot of k, k + 1, ...
 * below low + W (that slot's key becomes its key; a later one is a collision); else (no free
 * slot: a spill, or k too far) an insert request. `low` is ceil(A_mono) when the wheel is empty
 * at the insertion (also when a re-key just freed the wheel's only slot: (literal) it frees the
 * slot, then re-inserts), and otherwise the register set then or by the last release (key + 1):
 * the wheel's low key as a register. (Read as the pure function "the last released key + 1
 * whenever the wheel is non-empty", a wheel refilled after an idle stretch would lie outside
 * [low, low + W), against the doc's own invariant.) */
static void ref_place(ref *r, uint32_t qp, uint64_t k)
{
    ref_qp *q = &r->q[qp];
    q->state = RS_DORMANT;
    if (r->ranked) {
        uint64_t low = r->nwheel ? r->low : u128_ceil_cycles(r->A_mono), s;
        RNIC_ASSERT(k >= low); /* the doc: every new key is at least ceil(A_mono) >= low */
        if (k < low + r->W) {
            for (s = k; s < low + r->W && ref_wheel_has(r, s); s++)
                ;
            if (s < low + r->W) {
                r->low = low;
                r->wheel_inserts++;
                r->wheel_collisions += s != k;
                q->resched = s;
                q->on_wheel = 1;
                r->wheel[r->nwheel++] = qp;
                if (r->trace)
                    printf("  ref %" PRIu64 ": wheel qp %u key %" PRIu64 " (asked %" PRIu64 ", low %" PRIu64 ")\n",
                           r->now, (unsigned)qp, s, k, low);
                return;
            }
            r->wheel_spills++;
        }
    }
    q->resched = k;
    r->ireq[r->nireq++] = qp;
}

static void ref_wheel_remove(ref *r, uint32_t qp)
{
    uint32_t i;
    for (i = 0; i < r->nwheel; i++)
        if (r->wheel[i] == qp) {
            r->wheel[i] = r->wheel[--r->nwheel];
            r->q[qp].on_wheel = 0;
            return;
        }
    RNIC_ASSERT(0);
}

static void ref_activate(ref *r, uint32_t qp)
{
    if (r->q[qp].paused)
        return;
    r->sum += r->q[qp].rate;
    ref_phi(r);
}

static void ref_deactivate(ref *r, uint32_t qp)
{
    r->q[qp].state = RS_IDLE;
    if (r->q[qp].paused)
        return;
    r->sum -= r->q[qp].rate;
    ref_phi(r);
}

/* DORMANT with an insert request for key ceil(max(res, A_mono)). */
static void ref_resched(ref *r, uint32_t qp, u128 res)
{
    if (res < r->A_mono)
        res = r->A_mono;
    ref_place(r, qp, u128_ceil_cycles(res));
}

/* The rate rule: a next start N after T becomes max(T, start of the last packet sent + its
 * length at the new rate); N <= T stays, but while Phi <= 1 (before the write) at least
 * T - Lambda (the lag floor: no QP keeps more lag than the lookahead into its new rate). */
static u128 ref_next_start(ref *r, const ref_qp *q, u128 N, uint64_t new_cpb)
{
    u128 c = q->sent_start + (u128)q->sent_len * new_cpb;
    if (N <= r->T) {
        u128 floor = r->T > r->lambda && r->phi <= ((uint64_t)1 << 32) ? r->T - r->lambda : 0; /* Phi before the write */
        r->lag_floored += N < floor;
        return N < floor ? floor : N;
    }
    return c < r->T ? r->T : c;
}

/* Re-time qp at new_cpb (keep) or drop all its packets (pause): next start N (first stored
 * packet's, else finish) -> rescaled when after T; stored packets re-chained from there while
 * start < A_mono, the first that is not and all after it dropped, the cursor back to it. */
static uint32_t ref_retime(ref *r, uint32_t qp, uint64_t new_cpb, int keep)
{
    ref_qp *q = &r->q[qp];
    u128 t = q->finish;
    uint32_t i, dropped = 0;
    int first = 1;
    for (i = 0; i < r->nd; i++)
        if (r->d[i].w.flow == qp) {
            t = r->d[i].start;
            break;
        }
    if (keep)
        t = ref_next_start(r, q, t, new_cpb);
    for (i = 0; i < r->nd; i++) {
        ref_desc *d = &r->d[i];
        if (d->w.flow != qp)
            continue;
        if (keep && !dropped && t < r->A_mono) {
            d->start = t;
            d->finish = t + (u128)d->w.len * new_cpb;
            t = d->finish;
            d->eligible = 0;
            first = 0;
            continue;
        }
        if (!dropped++) {
            q->seq = d->w.index;
            q->off = d->w.offset;
        }
        memmove(r->d + i, r->d + i + 1, (r->nd - i - 1u) * sizeof *r->d);
        r->nd--;
        i--;
        q->outstanding--;
        r->packets_dropped++;
    }
    (void)first;
    q->finish = t;
    if (keep)
        q->cpb = new_cpb;
    return dropped;
}

/* A DORMANT QP's key after a re-time: ceil(max(finish, A_mono)). An entry that settled in an
 * earlier cycle leaves the timeline and asks for a new insert; one still settling, or a
 * request, takes the new key (read when it is compared); one already dequeued goes on. */
static void ref_rekey(ref *r, uint32_t qp)
{
    ref_qp *q = &r->q[qp];
    u128 res = q->finish;
    uint32_t i;
    for (i = 0; i < r->ndl; i++)
        if (r->dl[i].qp == qp)
            return;
    if (res < r->A_mono)
        res = r->A_mono;
    if (q->on_wheel) { /* ranked: frees its slot and re-inserts by the same rule */
        ref_wheel_remove(r, qp);
        ref_place(r, qp, u128_ceil_cycles(res));
        return;
    }
    q->resched = u128_ceil_cycles(res);
    for (i = 0; i < r->nent; i++)
        if (r->ent[i].qp == qp && r->ent[i].settle < r->now) { /* (literal) settled: before this cycle */
            r->ent[i] = r->ent[--r->nent];
            ref_place(r, qp, q->resched); /* ranked: may go to the wheel */
            return;
        }
    /* (literal) an insert request or an enqueue still settling is "on its way in", not "in the
     * timeline": it takes the new key and stays where it is, in ranked mode too */
}

/* Ranked, a round's urgent packet finds no free slot: the latest stored packet (d[li]) is
 * dropped; its QP loses it as after a rate cut -- outstanding--, cursor back to it, finish =
 * its start; DRAINING: rescheduled at that start; DORMANT: re-keyed as a rate write does;
 * QUEUED, PARKED, FETCHING: nothing. */
static void ref_evict(ref *r, uint32_t li)
{
    ref_desc d = r->d[li];
    ref_qp *q = &r->q[d.w.flow];
    uint32_t i;
    for (i = 0; i < r->nd; i++) /* it is its QP's last stored packet (a QP's finishes increase) */
        if (i != li && r->d[i].w.flow == d.w.flow && r->d[i].number > d.number)
            r->evict_not_last++;
    memmove(r->d + li, r->d + li + 1, (r->nd - li - 1u) * sizeof *r->d);
    r->nd--;
    q->outstanding--;
    q->seq = d.w.index;
    q->off = d.w.offset;
    q->finish = d.start;
    r->packets_dropped++;
    r->desc_evictions++;
    if (r->trace)
        printf("  ref %" PRIu64 ": evict qp %u wqe %u off %u (state %s)\n", r->now, (unsigned)d.w.flow,
               (unsigned)d.w.index, (unsigned)d.w.offset, rs_name[q->state]);
    if (q->state == RS_DRAINING)
        ref_resched(r, d.w.flow, d.start);
    else if (q->state == RS_DORMANT)
        ref_rekey(r, d.w.flow);
}

static void ref_apply_rate(ref *r, uint32_t qp, uint64_t bps)
{
    ref_qp *q = &r->q[qp];
    int active = q->state != RS_IDLE;
    uint64_t cpb;
    uint32_t dropped;
    if (bps == 0) {
        if (q->paused)
            return;
        ref_retime(r, qp, q->cpb, 0);
        q->paused = 1;
        if (active) {
            r->sum -= q->rate;
            ref_phi(r);
        }
        if (q->state == RS_DRAINING)
            q->state = RS_PARKED;
        return;
    }
    cpb = ref_cpb(r->clock, bps);
    if (active && !q->paused)
        r->sum -= q->rate;
    q->rate = bps;
    if (q->paused) {
        q->paused = 0;
        q->finish = ref_next_start(r, q, q->finish, cpb);
        if (q->finish < r->T)
            q->finish = r->T;
        q->cpb = cpb;
        r->retimes++;
        if (q->state == RS_PARKED && q->credit)
            ref_fifo_push(r, qp);
        else if (q->state == RS_DORMANT)
            ref_rekey(r, qp);
    } else if (cpb != q->cpb) {
        dropped = ref_retime(r, qp, cpb, 1);
        r->retimes++;
        if (q->state == RS_DORMANT)
            ref_rekey(r, qp);
        else if (q->state == RS_DRAINING && dropped)
            ref_resched(r, qp, q->finish);
    }
    if (active) {
        r->sum += q->rate;
        ref_phi(r);
    }
}

/* Step 1: the oldest QP with pending registers: rate, then credit, then doorbell. */
static void ref_apply(ref *r, uint32_t qp)
{
    ref_qp *q = &r->q[qp];
    int pend = q->pend;
    q->pend = 0;
    if (pend & (1 << EV_RATE)) {
        r->rate_updates++;
        ref_apply_rate(r, qp, q->pend_rate);
    }
    if (pend & (1 << EV_CREDIT)) {
        r->credit_updates++;
        q->credit = q->pend_credit;
        if (q->credit && !q->paused && q->state == RS_PARKED)
            ref_fifo_push(r, qp);
    }
    if (pend & (1 << EV_DOORBELL)) {
        r->doorbells++;
        if (q->state == RS_IDLE) {
            if (q->finish < r->T)
                q->finish = r->T;
            q->sent_start = q->finish;
            q->sent_len = 0;
            ref_activate(r, qp);
            ref_fifo_push(r, qp);
        } else if (q->state == RS_DRAINING) {
            q->doorbell_pending = 1;
        }
    }
}

typedef struct ref_pkt {
    u128 start, finish;
    uint32_t widx, off, len, last;
    int32_t status;
} ref_pkt;

/* Step 2: one round for qp (its fetch returned this cycle). */
static void ref_round(ref *r, uint32_t qp)
{
    ref_qp *q = &r->q[qp];
    ref_pkt pk[RL_MAX_FETCH];
    uint32_t got, p = 0, j = 0, off = q->off, m, i;
    int remains;

    if (q->paused) {
        q->state = RS_PARKED;
        return;
    }
    r->fetches++;
    q->doorbell_pending = 0;
    got = r->fetch(r->user, qp, q->seq, r->wbuf, r->n);
    if (got > r->n)
        got = r->n;
    r->wqes_fetched += got;
    if (r->trace)
        printf("  ref %" PRIu64 ": round qp %u seq %u off %u: %u WQEs\n", r->now, (unsigned)qp, (unsigned)q->seq,
               (unsigned)off, (unsigned)got);
    if (got == 0) {
        if (q->outstanding > 0)
            q->state = RS_DRAINING;
        else
            ref_deactivate(r, qp);
        return;
    }
    /* cut: a bad WQE (marked by the source, length 0 or over 2^31, or shorter than the cursor
     * says) becomes one zero-length error record */
    while (p < r->n && j < got) {
        const rnic_work *e = &r->wbuf[j];
        uint32_t wl = e->len, len;
        pk[p].status = 0;
        if (e->flags & RNIC_WORK_ERROR)
            pk[p].status = e->status >= 1 && e->status < (int32_t)RNIC_ERR__COUNT ? e->status : (int32_t)RNIC_EINVAL;
        else if (wl < 1u || wl > 0x80000000u || off >= wl)
            pk[p].status = RNIC_EINVAL;
        if (pk[p].status)
            len = 0;
        else
            len = wl - off > r->mtu ? r->mtu : wl - off;
        pk[p].widx = j;
        pk[p].off = off;
        pk[p].len = len;
        pk[p].last = pk[p].status || off + len == wl;
        off += len;
        if (pk[p].last) {
            j++;
            off = 0;
        }
        p++;
    }
    remains = j < got; /* bytes or WQEs beyond the cut packets (literal: a fetch that filled all
                        * n slots is not by itself "data remains") */
#if REF_FULL_FETCH_MORE
    if (got == r->n)
        remains = 1;
#endif
    for (i = 0; i < p; i++) {
        pk[i].start = i == 0 ? q->finish : pk[i - 1].finish;
        if (i == 0 && r->phi <= ((uint64_t)1 << 32) && pk[0].start + r->lambda < r->T) { /* the lag floor, Phi <= 1 */
            pk[0].start = r->T - r->lambda;
            r->lag_floored++;
        }
        pk[i].finish = pk[i].start + (u128)pk[i].len * q->cpb;
    }
    /* urgent */
    m = 0;
    while (m < p && pk[m].start < r->A_mono) {
        ref_desc *d;
        if (r->nd >= r->k) { /* ranked: displace the latest stored packet if it finishes after */
            uint32_t li;
            if (!r->ranked)
                break;
            li = ref_latest(r);
            if (!(r->d[li].finish > pk[m].finish))
                break;
            ref_evict(r, li);
        }
        d = &r->d[r->nd++];
        const rnic_work *e = &r->wbuf[pk[m].widx];
        d->start = pk[m].start;
        d->finish = pk[m].finish;
        d->number = r->desc_counter++;
        d->eligible = 0;
        memset(&d->w, 0, sizeof d->w);
        d->w.flow = qp;
        d->w.index = q->seq + pk[m].widx;
        d->w.offset = pk[m].off;
        d->w.len = pk[m].len;
        d->w.addr = e->addr + pk[m].off;
        d->w.raddr = e->raddr + pk[m].off;
        d->w.tag = e->tag;
        d->w.op = e->op;
        d->w.status = pk[m].status;
        d->w.flags = (pk[m].off == 0 ? RNIC_WORK_FIRST : 0u) | (pk[m].last ? RNIC_WORK_LAST : 0u) |
                     (pk[m].status ? RNIC_WORK_ERROR : 0u);
        m++;
    }
    if (m < p && pk[m].start < r->A_mono)
        r->desc_full++;
    r->packets_computed += p;
    r->packets_dropped += p - m;
    if (m > 0) {
        q->finish = pk[m - 1].finish;
        if (pk[m - 1].last) {
            q->seq += pk[m - 1].widx + 1u;
            q->off = 0;
        } else {
            q->seq += pk[m - 1].widx;
            q->off = pk[m - 1].off + pk[m - 1].len;
        }
        q->outstanding += m;
    } else if (p > 0) {
        q->finish = pk[0].start; /* nothing stored: the schedule continues from the first (floored) start */
    }
    if (m < p)
        remains = 1;
    if (r->trace)
        printf("  ref %" PRIu64 ": qp %u cut %u stored %u remains %d (A_mono %" PRIu64 "+%u)\n", r->now,
               (unsigned)qp, (unsigned)p, (unsigned)m, remains, (uint64_t)(r->A_mono >> 32),
               (unsigned)(uint32_t)r->A_mono);
    if (remains)
        ref_resched(r, qp, pk[(m + 1u < p ? m + 1u : p) - 1u].start);
    else if (q->outstanding > 0)
        q->state = RS_DRAINING;
    else
        ref_deactivate(r, qp);
}

static void ref_tick(ref *r)
{
    uint32_t i;
    int best;
    r->active = 0;

    /* 1. EMUX: the oldest QP with pending registers */
    if (r->nrf) {
        uint32_t qp = r->rf[0];
        memmove(r->rf, r->rf + 1, (r->nrf - 1u) * sizeof *r->rf);
        r->nrf--;
        if (r->trace)
            printf("  ref %" PRIu64 ": registers %d of qp %u (rate %" PRIu64 ", state %s)\n", r->now, r->q[qp].pend,
                   (unsigned)qp, r->q[qp].pend_rate, rs_name[r->q[qp].state]);
        ref_apply(r, qp);
        r->active = 1;
    }
    /* 2. fetch completion */
    if (r->nfp && r->fp[0].cycle == r->now) {
        uint32_t qp = r->fp[0].qp;
        memmove(r->fp, r->fp + 1, (r->nfp - 1u) * sizeof *r->fp);
        r->nfp--;
        ref_round(r, qp);
        r->active = 1;
    }
    /* 3. timeline operation slot */
    if (r->now >= r->next_op) {
        best = -1;
        for (i = 0; i < r->nent; i++) {
            const ref_ent *e = &r->ent[i];
            uint64_t key = r->q[e->qp].resched, bkey = best >= 0 ? r->q[r->ent[best].qp].resched : 0;
            if (e->settle > r->now || ((u128)key << 32) >= r->A_mono)
                continue;
            if (best < 0 || key < bkey || (key == bkey && e->ins < r->ent[best].ins))
                best = (int)i;
        }
        if (best >= 0 || r->nireq) {
            r->next_op = r->now + 2u;
            r->heap_ops++;
            r->active = 1;
            if (best >= 0) {
                r->dl[r->ndl].cycle = r->now + r->height;
                r->dl[r->ndl].qp = r->ent[best].qp;
                r->ndl++;
                if (r->trace)
                    printf("  ref %" PRIu64 ": dequeue qp %u key %" PRIu64 "\n", r->now, (unsigned)r->ent[best].qp,
                           r->q[r->ent[best].qp].resched);
                r->ent[best] = r->ent[--r->nent];
            }
            if (r->nireq) {
                ref_ent e;
                e.qp = r->ireq[0];
                memmove(r->ireq, r->ireq + 1, (r->nireq - 1u) * sizeof *r->ireq);
                r->nireq--;
                e.settle = r->now + r->height;
                e.ins = r->ins_counter++;
                r->ent[r->nent++] = e;
                if (r->trace)
                    printf("  ref %" PRIu64 ": enqueue qp %u key %" PRIu64 "\n", r->now, (unsigned)e.qp,
                           r->q[e.qp].resched);
            }
        }
    }
    /* 3w. ranked: the wheel releases its smallest key if due, at most one per cycle */
    if (r->ranked && r->nwheel) {
        uint32_t bi = 0;
        for (i = 1; i < r->nwheel; i++)
            if (r->q[r->wheel[i]].resched < r->q[r->wheel[bi]].resched)
                bi = i;
        if (((u128)r->q[r->wheel[bi]].resched << 32) < r->A_mono) {
            uint32_t qp = r->wheel[bi];
            r->low = r->q[qp].resched + 1u;
            ref_wheel_remove(r, qp);
            r->wheel_releases++;
            if (r->trace)
                printf("  ref %" PRIu64 ": wheel releases qp %u key %" PRIu64 "\n", r->now, (unsigned)qp,
                       r->q[qp].resched);
            ref_fifo_push(r, qp);
            r->active = 1;
        }
    }
    /* 4. deliveries */
    while (r->ndl && r->dl[0].cycle == r->now) {
        uint32_t qp = r->dl[0].qp;
        memmove(r->dl, r->dl + 1, (r->ndl - 1u) * sizeof *r->dl);
        r->ndl--;
        ref_fifo_push(r, qp);
        r->active = 1;
    }
    /* 5. eligibility */
    for (i = 0; i < r->nd; i++)
        if (!r->d[i].eligible && r->d[i].start <= r->T)
            r->d[i].eligible = 1;
    /* 6. transmit */
    if (r->now >= r->link_free) {
        best = -1;
        for (i = 0; i < r->nd; i++) {
            if (!r->d[i].eligible)
                continue;
            if (best < 0 || r->d[i].finish < r->d[best].finish ||
                (r->d[i].finish == r->d[best].finish && r->d[i].number < r->d[best].number))
                best = (int)i;
        }
        if (best >= 0 && r->ntx == r->txcap) {
            r->tx_stalls++;
        } else if (best >= 0) {
            ref_desc d = r->d[best];
            ref_qp *q = &r->q[d.w.flow];
            rnic_work *t = &r->tx[r->ntx++];
            u128 base = (u128)r->now << 32;
            *t = d.w;
            t->cycle = r->now;
            q->sent_start = d.start;
            q->sent_len = d.w.len;
            if (d.w.flags & RNIC_WORK_ERROR) {
                r->error_records++;
                r->err[d.w.status]++;
            } else {
                r->packets++;
                r->bytes += d.w.len;
                q->packets++;
                q->bytes += d.w.len;
            }
            if (r->link_t > base)
                base = r->link_t;
            r->link_t = base + (u128)d.w.len * r->link_cpb;
            r->link_free = (uint64_t)(r->link_t >> 32); /* floor: back-to-back at the line rate */
            memmove(r->d + best, r->d + best + 1, (r->nd - (uint32_t)best - 1u) * sizeof *r->d);
            r->nd--;
            q->outstanding--;
            if (q->outstanding == 0 && q->state == RS_DRAINING) {
                if (q->doorbell_pending) {
                    q->doorbell_pending = 0;
                    ref_fifo_push(r, d.w.flow);
                } else {
                    ref_deactivate(r, d.w.flow);
                }
            }
            r->active = 1;
            if (r->trace)
                printf("  ref %" PRIu64 ": tx qp %u wqe %u off %u len %u flags %u\n", r->now, (unsigned)d.w.flow,
                       (unsigned)d.w.index, (unsigned)d.w.offset, (unsigned)d.w.len, (unsigned)d.w.flags);
        }
    }
    /* 7. schedule queue -> fetch, gated: a descriptor slot reserved per fetch in flight;
     * ranked: the head is the smallest (rank, push number), and it also passes when its rank is
     * before the latest stored packet's finish (2^-16 truncation, wrap-safe) */
    if (r->nfifo) {
        uint32_t qp, at = 0;
        int pass = r->nd + r->nfp < r->k;
        if (r->ranked) {
            for (i = 1; i < r->nfifo; i++)
                if (ref_rank_before(&r->q[r->fifo[i]], &r->q[r->fifo[at]]))
                    at = i;
            if (!pass && r->nd > 0) {
                uint64_t lf = ref_trunc16(r->d[ref_latest(r)].finish);
                pass = (int64_t)(r->q[r->fifo[at]].rank - lf) < 0;
            }
        }
        if (!pass) {
            r->fetch_gated++;
            goto end_of_cycle;
        }
        /* the read channel, checked after the descriptor gate: busy -> nothing is popped */
        if (r->fetch_bps && r->now < r->fetch_free) {
            r->fetch_throttled++;
            goto end_of_cycle;
        }
        qp = r->fifo[at];
        memmove(r->fifo + at, r->fifo + at + 1, (r->nfifo - at - 1u) * sizeof *r->fifo);
        r->nfifo--;
        if (!r->q[qp].credit || r->q[qp].paused) {
            r->q[qp].state = RS_PARKED;
            r->credit_waits++;
        } else {
            uint64_t bytes = (uint64_t)r->n * r->wqe_bytes; /* the request, whatever the source answers */
            r->q[qp].state = RS_FETCHING;
            r->fetch_bytes += bytes;
            r->fetches_issued++;
            if (r->fetch_bps) { /* fetch_t = max(fetch_t, now) + bytes * fetch_cpb; free at its floor */
                u128 base = (u128)r->now << 32;
                if (r->fetch_t > base)
                    base = r->fetch_t;
                r->fetch_t = base + (u128)bytes * r->fetch_cpb;
                r->fetch_free = (uint64_t)(r->fetch_t >> 32);
            }
            r->fp[r->nfp].cycle = r->now + r->L;
            r->fp[r->nfp].qp = qp;
            r->nfp++;
        }
        r->active = 1;
    }
end_of_cycle:
    /* 8. end of cycle (literal: A and A_mono move only here, not when Phi changes mid-cycle) */
    r->T += r->inc;
    {
        u128 A = r->T + r->lambda;
        if (A > r->A_mono)
            r->A_mono = A;
    }
    r->now++;
}

static rnic_err ref_pop(ref *r, rnic_work *out)
{
    if (!r->ntx)
        return RNIC_EEMPTY;
    *out = r->tx[0];
    memmove(r->tx, r->tx + 1, (r->ntx - 1u) * sizeof *r->tx);
    r->ntx--;
    return RNIC_OK;
}

/* ======================================================================================
 * Engine helpers.
 * ====================================================================================== */

typedef struct eng {
    rl *r;
    void *mem;
} eng;

static rnic_err eng_init(eng *e, const rl_config *c)
{
    size_t sz = rl_mem_size(c);
    e->r = (rl *)calloc(1, sizeof *e->r);
    e->mem = sz ? malloc(sz) : NULL;
    if (!e->mem)
        return RNIC_EINVAL;
    return rl_init(e->r, c, e->mem, sz);
}

static void eng_free(eng *e)
{
    free(e->r);
    free(e->mem);
    e->r = NULL;
    e->mem = NULL;
}

static int tx_same(const rnic_work *a, const rnic_work *b)
{
    return a->cycle == b->cycle && a->flow == b->flow && a->index == b->index && a->offset == b->offset &&
           a->len == b->len && a->flags == b->flags && a->addr == b->addr && a->raddr == b->raddr &&
           a->tag == b->tag && a->op == b->op && a->status == b->status && a->aux == b->aux;
}

static void tx_str(char *buf, size_t n, const rnic_work *t)
{
    snprintf(buf, n, "{cycle %" PRIu64 ", flow %u, index %u, off %u, len %u, flags %u, tag %" PRIu64 ", status %d}",
             t->cycle, (unsigned)t->flow, (unsigned)t->index, (unsigned)t->offset, (unsigned)t->len,
             (unsigned)t->flags, t->tag, (int)t->status);
}

static void cfg_str(char *buf, size_t n, const rl_config *c)
{
    snprintf(buf, n,
             "clock %" PRIu64 " link %" PRIu64 " min_rate %" PRIu64
             " max_flows %u mtu %u L %u ns n %u k %u txcap %u fetch_bps %" PRIu64 " wqe_bytes %u%s",
             c->clock_hz, c->link_bps, c->min_rate_bps, (unsigned)c->max_flows, (unsigned)c->mtu,
             (unsigned)c->pcie_latency_ns, (unsigned)c->fetch_wqes, (unsigned)c->desc_depth,
             (unsigned)c->tx_depth, c->fetch_bps, (unsigned)c->wqe_bytes,
             c->schedule_queue == RL_SCHEDULE_RANKED ? " RANKED (replay with RL_REF_RANKED=1)" : "");
}

/* "Soft" statistics: counters whose exact definition the model text leaves open (when a
 * doorbell is counted, what a fetch is, ...). A mismatch is reported, not failed. */
static uint64_t soft_mismatch[20];
static const char *const soft_name[20] = { "doorbells", "rate_updates", "credit_updates", "fetches",
                                           "wqes_fetched", "packets_computed", "packets_dropped",
                                           "desc_full", "tx_stalls", "fetch_gated", "coalesced",
                                           "rate_clamped", "retimes", "error_records", "wheel_inserts",
                                           "wheel_collisions", "wheel_spills", "desc_evictions" };

/* What the differential workloads exercised (summed over workloads, from the reference). */
static struct {
    uint64_t workloads, cycles, tx, stalls, desc_full, dropped, heap_ops, wait_credit, einval, coalesced, enoent, clamped;
    uint64_t retimes, pauses, error_records, lag_floored;
    uint64_t phi_over1, max_phi;
    uint64_t ranked, wheel_inserts, wheel_collisions, wheel_spills, wheel_releases, evictions; /* ranked workloads */
    uint64_t fetch_limited, fetch_limited_ranked, throttled, throttled_wl; /* workloads with cfg.fetch_bps set */
} cov;

/* ======================================================================================
 * A differential pair: engine + reference on one host.
 * ====================================================================================== */

typedef struct pair {
    rl_config cfg;
    eng e;
    ref r;
    host h;
    fsrc fe, fr;
    uint64_t wseed;
    int failed; /* first divergence found: the workload stops */
    uint64_t txs; /* records compared */
} pair;

static void pair_fail(pair *p, const char *fmt, ...)
{
    char msg[512], cs[256];
    va_list ap;
    if (p->failed)
        return;
    p->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cfg_str(cs, sizeof cs, &p->cfg);
    if (TEST_FAILS() < 10)
        printf("  DIVERGENCE (workload seed %" PRIu64 ", %s) at cycle %" PRIu64 ": %s\n", p->wseed, cs, p->r.now,
               msg);
    CHECK(!"engine and reference diverge (see line above)");
}

static int pair_init(pair *p, const rl_config *c, uint64_t wseed)
{
    memset(p, 0, sizeof *p);
    p->cfg = *c;
    p->wseed = wseed;
    host_init(&p->h, c->max_flows);
    p->fe.h = p->fr.h = &p->h;
    p->cfg.source = host_fetch;
    p->cfg.source_user = &p->fe;
    if (eng_init(&p->e, &p->cfg) != RNIC_OK) {
        pair_fail(p, "rl_init refused a valid config");
        return 0;
    }
    {
        rl_config rc = p->cfg;
        rc.source_user = &p->fr;
        ref_init(&p->r, &rc);
    }
    if (rl_pcie_latency_cycles(p->e.r) != p->r.L) {
        pair_fail(p, "rl_pcie_latency_cycles differs from the reference's conversion");
        return 0;
    }
    return 1;
}

static void pair_free(pair *p)
{
    eng_free(&p->e);
    ref_free(&p->r);
    host_free(&p->h);
}

static void pair_push(pair *p, int kind, uint32_t qp, uint64_t v)
{
    rnic_err a, b = ref_push(&p->r, kind, qp, v);
    if (kind == EV_DOORBELL)
        a = rl_doorbell(p->e.r, qp);
    else if (kind == EV_RATE)
        a = rl_set_rate(p->e.r, qp, v);
    else
        a = rl_set_credit(p->e.r, qp, v != 0);
    if (a != b)
        pair_fail(p, "push kind %d qp %u value %" PRIu64 ": engine %s, reference %s", kind, (unsigned)qp, v,
                  rnic_err_name(a), rnic_err_name(b));
}

static void pair_tick(pair *p)
{
    uint32_t i;
    p->fe.nlog = p->fr.nlog = 0;
    rl_tick(p->e.r);
    ref_tick(&p->r);
    if (p->failed)
        return;
    if (p->fe.nlog != p->fr.nlog) {
        pair_fail(p, "fetch callbacks this cycle: engine %u, reference %u (ref: qp %u seq %u)", (unsigned)p->fe.nlog,
                  (unsigned)p->fr.nlog, p->fr.nlog ? (unsigned)p->fr.log[0].qp : 0u,
                  p->fr.nlog ? (unsigned)p->fr.log[0].seq : 0u);
        return;
    }
    for (i = 0; i < p->fe.nlog; i++)
        if (memcmp(&p->fe.log[i], &p->fr.log[i], sizeof p->fe.log[i]) != 0) {
            pair_fail(p, "fetch callback: engine (qp %u seq %u max %u), reference (qp %u seq %u max %u)",
                      (unsigned)p->fe.log[i].qp, (unsigned)p->fe.log[i].seq, (unsigned)p->fe.log[i].max,
                      (unsigned)p->fr.log[i].qp, (unsigned)p->fr.log[i].seq, (unsigned)p->fr.log[i].max);
            return;
        }
    if (rl_now(p->e.r) != p->r.now)
        pair_fail(p, "rl_now %" PRIu64 ", reference %" PRIu64, rl_now(p->e.r), p->r.now);
    else if (rl_phi_q32(p->e.r) != p->r.phi)
        pair_fail(p, "Phi (after the cycle): engine %" PRIu64 ", reference %" PRIu64 " (sum of active %" PRIu64 ")",
                  rl_phi_q32(p->e.r), p->r.phi, p->r.sum);
}

/* Pop up to `max` records from both TX ports and compare them. */
static void pair_pop(pair *p, uint32_t max)
{
    uint32_t i;
    for (i = 0; i < max && !p->failed; i++) {
        rnic_work a, b;
        rnic_err ea, eb;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        ea = rl_pop_tx(p->e.r, &a);
        eb = ref_pop(&p->r, &b);
        if (ea != eb) {
            char s[128];
            tx_str(s, sizeof s, ea == RNIC_OK ? &a : &b);
            pair_fail(p, "rl_pop_tx: engine %s, reference %s; the one record: %s (%s)", rnic_err_name(ea),
                      rnic_err_name(eb), s, ea == RNIC_OK ? "engine" : "reference");
        } else if (ea == RNIC_OK && !tx_same(&a, &b)) {
            char s1[128], s2[128];
            tx_str(s1, sizeof s1, &a);
            tx_str(s2, sizeof s2, &b);
            pair_fail(p, "TX record #%" PRIu64 ": engine %s, reference %s", p->txs, s1, s2);
        } else if (ea == RNIC_OK) {
            p->txs++;
        }
        if (ea != RNIC_OK)
            break;
    }
}

static void soft_check(int idx, uint64_t a, uint64_t b, pair *p)
{
    if (a != b) { /* every counter must match the reference too */
        if (!soft_mismatch[idx])
            printf("  stats.%s engine %" PRIu64 ", reference %" PRIu64 " (workload seed %" PRIu64 ")\n",
                   soft_name[idx], a, b, p->wseed);
        soft_mismatch[idx]++;
        pair_fail(p, "final stats.%s differs", soft_name[idx]);
    }
}

static void pair_final(pair *p)
{
    const rl_stats *s = rl_get_stats(p->e.r);
    uint32_t i;
    cov.workloads++;
    cov.cycles += p->r.now;
    cov.tx += p->r.packets;
    cov.stalls += p->r.tx_stalls;
    cov.desc_full += p->r.desc_full;
    cov.dropped += p->r.packets_dropped;
    cov.heap_ops += p->r.heap_ops;
    cov.einval += p->r.err[RNIC_EINVAL];
    cov.wait_credit += p->r.credit_waits;
    cov.enoent += p->r.err[RNIC_ENOENT];
    cov.clamped += p->r.clamped;
    cov.coalesced += p->r.coalesced;
    cov.retimes += p->r.retimes;
    cov.lag_floored += p->r.lag_floored;
    cov.error_records += p->r.error_records;
    cov.phi_over1 += p->r.max_phi > ((uint64_t)1 << 32);
    if (p->r.max_phi > cov.max_phi)
        cov.max_phi = p->r.max_phi;
    cov.ranked += p->r.ranked;
    cov.wheel_inserts += p->r.wheel_inserts;
    cov.wheel_collisions += p->r.wheel_collisions;
    cov.wheel_spills += p->r.wheel_spills;
    cov.wheel_releases += p->r.wheel_releases;
    cov.evictions += p->r.desc_evictions;
    if (p->r.fetch_bps) {
        cov.fetch_limited++;
        cov.fetch_limited_ranked += p->r.ranked;
        cov.throttled += p->r.fetch_throttled;
        cov.throttled_wl += p->r.fetch_throttled > 0;
    }
    CHECK_EQ(p->r.evict_not_last, 0); /* the doc: the latest packet is its QP's last stored one */
    if (p->failed)
        return;
    pair_pop(p, UINT32_MAX);
    if (p->failed)
        return;
#define STRICT(field, val)                                                                                   \
    do {                                                                                                     \
        if ((uint64_t)(field) != (uint64_t)(val))                                                            \
            pair_fail(p, "final %s: engine %" PRIu64 ", reference %" PRIu64, #field, (uint64_t)(field),       \
                      (uint64_t)(val));                                                                      \
    } while (0)
    STRICT(s->cycles, p->r.now);
    STRICT(s->packets, p->r.packets);
    STRICT(s->bytes, p->r.bytes);
    STRICT(s->heap_ops, p->r.heap_ops);
    STRICT(s->max_phi_q32, p->r.max_phi);
    STRICT(s->fetch_throttled, p->r.fetch_throttled);
    STRICT(s->fetch_bytes, p->r.fetch_bytes);
    for (i = 0; i < (uint32_t)RNIC_ERR__COUNT; i++)
        STRICT(s->errors.by_cause[i], p->r.err[i]);
    STRICT(s->errors.by_cause[RNIC_EBUSY], 0);
    STRICT(rl_phi_q32(p->e.r), p->r.phi);
    for (i = 0; i < p->cfg.max_flows && !p->failed; i++) {
        const rl_flow_stats *qs = rl_get_flow_stats(p->e.r, i);
        if (!qs) {
            pair_fail(p, "rl_get_flow_stats(%u) is NULL", (unsigned)i);
            break;
        }
        STRICT(qs->packets, p->r.q[i].packets);
        STRICT(qs->bytes, p->r.q[i].bytes);
    }
    if (rl_get_flow_stats(p->e.r, p->cfg.max_flows) != NULL)
        pair_fail(p, "rl_get_flow_stats(max_flows) is not NULL");
#undef STRICT
    soft_check(0, s->doorbells, p->r.doorbells, p);
    soft_check(1, s->rate_updates, p->r.rate_updates, p);
    soft_check(2, s->credit_updates, p->r.credit_updates, p);
    soft_check(3, s->fetches, p->r.fetches, p);
    soft_check(4, s->wqes_fetched, p->r.wqes_fetched, p);
    soft_check(5, s->packets_computed, p->r.packets_computed, p);
    soft_check(6, s->packets_dropped, p->r.packets_dropped, p);
    soft_check(7, s->desc_full, p->r.desc_full, p);
    soft_check(8, s->tx_stalls, p->r.tx_stalls, p);
    soft_check(9, s->fetch_gated, p->r.fetch_gated, p);
    soft_check(10, s->coalesced, p->r.coalesced, p);
    soft_check(11, s->rate_clamped, p->r.clamped, p);
    soft_check(12, s->retimes, p->r.retimes, p);
    soft_check(13, s->error_records, p->r.error_records, p);
    soft_check(14, s->wheel_inserts, p->r.wheel_inserts, p);
    soft_check(15, s->wheel_collisions, p->r.wheel_collisions, p);
    soft_check(16, s->wheel_spills, p->r.wheel_spills, p);
#if REF_RANKED_DIFF /* the field comes with the engine's ranked option */
    soft_check(17, s->desc_evictions, p->r.desc_evictions, p);
#endif
}

/* ======================================================================================
 * Random workloads.
 * ====================================================================================== */

typedef struct wl {
    uint64_t cycles;
    uint32_t nused;      /* QPs the workload touches */
    uint32_t used[64];   /* their ids */
    uint64_t base_rate;  /* typical rate: load * link / nused */
    uint32_t p_post, p_door, p_rate, p_credit, p_bad, p_pop; /* per mille per cycle */
    uint32_t p_pause; /* per 10000 of rate writes: 0 (pause) */
    uint32_t p_error; /* per 1000 of bad WQEs: marked RNIC_WORK_ERROR by the source instead */
    uint32_t p_bad_wqe; /* per 100000 posted WQEs: len 0 or above 2^31 (the QP stalls on it) */
    uint32_t max_posted; /* per QP */
    int bursty_pop;
} wl;

/* "Dyadic" workloads: clock, link and most rates chosen so that every cycles-per-byte value
 * is an exact binary fraction and packet lengths are multiples of 64 B: start and finish
 * times then land exactly on each other, on whole cycles and on A_mono, which exercises
 * every tie-break and every `<` against `<=`. (g_dyadic is declared at the top.) */

static uint64_t pick_rate(rnic_prng *g, const rl_config *c, uint64_t base)
{
    uint64_t lo = c->min_rate_bps, hi = c->link_bps, a, b;
    if (g_dyadic) {
        static const uint64_t div[] = { 1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 5, 10, 20, 25, 50 };
        uint64_t m = div[rnic_prng_below(g, g_dyadic == 3 ? 3 : g_dyadic == 2 ? 8 : sizeof div / sizeof div[0])];
        return hi % m == 0 && hi / m >= lo ? hi / m : hi;
    }
    switch (rnic_prng_below(g, 12)) {
    case 0:
        return lo;
    case 1:
        return hi;
    case 2:
        return rnic_prng_log_range(g, lo, hi);
    default:
        a = base / 4;
        b = base * 2;
        if (a < lo)
            a = lo;
        if (b > hi)
            b = hi;
        if (a > b)
            a = b;
        return rnic_prng_log_range(g, a, b);
    }
}

static void rand_cfg(rnic_prng *g, rl_config *c)
{
    uint64_t L; /* cycles, drawn first; pcie_latency_ns once the clock is drawn */
    rl_config_default(c);
    c->max_flows = (uint32_t)rnic_prng_log_range(g, 1, 64);
    if (rnic_prng_chance(g, 1, 25))
        c->max_flows = (uint32_t)rnic_prng_log_range(g, 65, 70000 > RL_MAX_FLOWS ? RL_MAX_FLOWS : 70000);
    c->mtu = (uint32_t)rnic_prng_log_range(g, 64, 4096);
    L = rnic_prng_chance(g, 1, 2) ? rnic_prng_range(g, 1, 300) : rnic_prng_log_range(g, 1, 300);
    c->fetch_wqes = (uint32_t)rnic_prng_range(g, 1, 8);
    if (rnic_prng_chance(g, 1, 20))
        c->fetch_wqes = (uint32_t)rnic_prng_range(g, 9, RL_MAX_FETCH);
    c->desc_depth = (uint32_t)rnic_prng_log_range(g, 1, 64);
    if (rnic_prng_chance(g, 1, 20))
        c->desc_depth = (uint32_t)rnic_prng_range(g, 65, RL_MAX_DESC);
    c->tx_depth = (uint32_t)rnic_prng_range(g, 1, 8);
    c->link_bps = rnic_prng_log_range(g, 10000000000ull, 400000000000ull);
    if (rnic_prng_chance(g, 1, 4))
        c->link_bps = 10000000000ull * rnic_prng_range(g, 1, 40); /* round numbers: exact spans */
    c->clock_hz = rnic_prng_range(g, 100000000ull, 1000000000ull);
    if (rnic_prng_chance(g, 1, 4))
        c->clock_hz = 50000000ull * rnic_prng_range(g, 2, 20);
    c->min_rate_bps = rnic_prng_chance(g, 1, 2) ? 100000ull : rnic_prng_log_range(g, 100000ull, c->link_bps / 4);
    g_dyadic = rnic_prng_chance(g, 1, 2) ? 1 + (int)rnic_prng_below(g, 2) : 0; /* 2: powers of two only */
    if (g_dyadic) {
        static const uint64_t cdiv[] = { 1, 2, 4, 5, 8, 10, 16, 20, 25 };
        c->clock_hz = 250000000ull << rnic_prng_below(g, 3); /* 250 MHz, 500 MHz, 1 GHz */
        do { /* link = clock * 8 * 2^j / d: cycles per byte d / 2^j (draws sequenced: same on every compiler) */
            uint64_t j = rnic_prng_below(g, 9), d = cdiv[rnic_prng_below(g, 9)];
            c->link_bps = (c->clock_hz * 8u << j) / d;
        } while (c->link_bps < 10000000000ull || c->link_bps > 400000000000ull);
        c->mtu = 64u * (uint32_t)rnic_prng_range(g, 1, 64);
        c->min_rate_bps = 100000ull;
    }
    c->pcie_latency_ns = ns_for_cycles(L, c->clock_hz); /* mostly not whole cycles: both convert */
}

/* The PCIe read channel (cfg.fetch_bps) in a third of the workloads: 1 .. 400 Gb/s, WQEs of
 * 1 .. 4096 B (64 B, the RDMA size, often; odd sizes too). Drawn from a generator forked off
 * g's state without advancing g: every workload's other draws are those of fetch_bps = 0. */
static void rand_fetch(const rnic_prng *g, rl_config *c)
{
    rnic_prng f = *g;
    rnic_prng_seed(&f, rnic_prng_next(&f) ^ 0xfe7c4b5d0ull);
    c->fetch_bps = 0;
    c->wqe_bytes = 64;
    if (!rnic_prng_chance(&f, 1, 3))
        return;
    c->fetch_bps = rnic_prng_log_range(&f, 1000000000ull, 400000000000ull);
    if (rnic_prng_chance(&f, 1, 4)) /* round numbers: reads end on whole cycles */
        c->fetch_bps = 1000000000ull * rnic_prng_range(&f, 1, 400);
    switch (rnic_prng_below(&f, 4)) {
    case 0: break; /* 64 */
    case 1: c->wqe_bytes = (uint32_t)rnic_prng_log_range(&f, 1, 4096); break;
    case 2: c->wqe_bytes = 2u * (uint32_t)rnic_prng_range(&f, 0, 2047) + 1u; break; /* odd */
    default: c->wqe_bytes = rnic_prng_chance(&f, 1, 2) ? 4096u : (uint32_t)rnic_prng_range(&f, 1, 3); break;
    }
}

static void rand_wl(rnic_prng *g, const rl_config *c, wl *w)
{
    uint32_t i;
    w->cycles = rnic_prng_log_range(g, 2000, 20000);
    w->nused = c->max_flows < 64 ? c->max_flows : (uint32_t)rnic_prng_range(g, 1, 32);
    if (w->nused > 1 && rnic_prng_chance(g, 1, 3))
        w->nused = (uint32_t)rnic_prng_range(g, 1, w->nused);
    for (i = 0; i < w->nused; i++)
        w->used[i] = c->max_flows < 64 ? i : (uint32_t)rnic_prng_below(g, c->max_flows);
    if (c->max_flows <= 64 && w->nused < c->max_flows) /* a random subset, not always the first ids */
        for (i = 0; i < w->nused; i++)
            w->used[i] = (uint32_t)rnic_prng_below(g, c->max_flows);
    /* load: sum of typical rates from 0.2x to 3x the link */
    w->base_rate = c->link_bps / w->nused * rnic_prng_range(g, 2, 30) / 10u;
    if (w->base_rate < c->min_rate_bps)
        w->base_rate = c->min_rate_bps;
    w->p_post = (uint32_t)rnic_prng_log_range(g, 5, 500);
    if (rnic_prng_chance(g, 1, 3)) /* saturating: every QP backlogged, the link the bottleneck */
        w->p_post = (uint32_t)rnic_prng_range(g, 500, 1000);
    w->p_door = (uint32_t)rnic_prng_range(g, 0, 20);
    w->p_rate = (uint32_t)rnic_prng_range(g, 0, 20);
    w->p_credit = (uint32_t)rnic_prng_range(g, 0, 10);
    w->p_bad = (uint32_t)rnic_prng_range(g, 0, 5);
    w->p_pop = (uint32_t)rnic_prng_range(g, 100, 1000);
    w->bursty_pop = rnic_prng_chance(g, 1, 4);
    w->p_bad_wqe = rnic_prng_chance(g, 1, 10) ? (uint32_t)rnic_prng_range(g, 1, 500) : 0;
    w->max_posted = (uint32_t)rnic_prng_range(g, 50, 3000);
    w->p_pause = rnic_prng_chance(g, 1, 3) ? (uint32_t)rnic_prng_range(g, 100, 2000) : 0;
    if (g_rate_heavy) { /* a congestion controller: rates move every few cycles to hundreds */
        w->p_rate = (uint32_t)rnic_prng_range(g, 20, 300);
        w->p_post = (uint32_t)rnic_prng_range(g, 300, 1000);
        w->p_pause = (uint32_t)rnic_prng_range(g, 0, 1500);
    }
    w->p_error = (uint32_t)rnic_prng_range(g, 0, 1000);
}

static uint32_t rand_len(rnic_prng *g, uint32_t mtu)
{
    uint32_t r = (uint32_t)rnic_prng_below(g, 100);
    if (g_dyadic == 3) /* tie mode */
        return r < 90 ? 32u << rnic_prng_below(g, 4) : mtu * (uint32_t)rnic_prng_range(g, 1, 3);
    if (g_dyadic && r < 70)
        return 64u * (uint32_t)rnic_prng_range(g, 1, 4u * mtu / 64u);
    if (r < 10)
        return mtu;
    if (r < 15)
        return mtu * (uint32_t)rnic_prng_range(g, 2, 4);
    if (r < 20)
        return (uint32_t)rnic_prng_range(g, 4 * mtu + 1, 16 * mtu);
    if (r < 23)
        return 1;
    return (uint32_t)rnic_prng_log_range(g, 1, 4 * mtu);
}

static void wl_inputs(pair *p, rnic_prng *g, const wl *w, uint32_t *next_id, int allow_bad)
{
    const rl_config *c = &p->cfg;
    uint32_t qp;
    if (rnic_prng_below(g, 1000) < w->p_post) {
        uint32_t cnt = (uint32_t)rnic_prng_range(g, 1, 3), i;
        qp = w->used[rnic_prng_below(g, w->nused)];
        if (p->h.q[qp].n < w->max_posted)
            for (i = 0; i < cnt; i++) {
                if (rnic_prng_below(g, 100000) >= w->p_bad_wqe)
                    host_post(&p->h, qp, (*next_id)++, rand_len(g, c->mtu));
                else if (rnic_prng_below(g, 1000) < w->p_error) {
                    /* draws sequenced (the order gcc took): the same workload on every compiler */
                    rnic_err st = rnic_prng_chance(g, 1, 2) ? RNIC_ENOSPC : RNIC_OK; /* no status: EINVAL */
                    host_post_error(&p->h, qp, (*next_id)++, rand_len(g, c->mtu), st);
                }
                else
                    host_post(&p->h, qp, (*next_id)++, rnic_prng_chance(g, 1, 2) ? 0u : 0x80000001u);
            }
        if (rnic_prng_chance(g, 9, 10))
            pair_push(p, EV_DOORBELL, qp, 0);
    }
    if (rnic_prng_below(g, 1000) < w->p_door)
        pair_push(p, EV_DOORBELL, w->used[rnic_prng_below(g, w->nused)], 0);
    if (rnic_prng_below(g, 1000) < w->p_rate) {
        qp = w->used[rnic_prng_below(g, w->nused)];
        pair_push(p, EV_RATE, qp, rnic_prng_below(g, 10000) < w->p_pause ? 0u : pick_rate(g, c, w->base_rate));
    }
    if (rnic_prng_below(g, 1000) < w->p_credit) {
        qp = w->used[rnic_prng_below(g, w->nused)];
        pair_push(p, EV_CREDIT, qp, rnic_prng_chance(g, 3, 5));
    }
    if (allow_bad && rnic_prng_below(g, 1000) < w->p_bad) {
        uint32_t what = (uint32_t)rnic_prng_below(g, 6);
        qp = w->used[rnic_prng_below(g, w->nused)];
        if (what == 0)
            pair_push(p, EV_DOORBELL, c->max_flows + (uint32_t)rnic_prng_below(g, 3), 0);
        else if (what == 1)
            pair_push(p, EV_CREDIT, rnic_prng_chance(g, 1, 2) ? c->max_flows : UINT32_MAX, 1);
        else if (what == 2)
            pair_push(p, EV_RATE, c->max_flows, c->link_bps);
        else if (what == 3)
            pair_push(p, EV_RATE, qp, 0);
        else if (what == 4)
            pair_push(p, EV_RATE, qp, c->min_rate_bps - 1u);
        else
            pair_push(p, EV_RATE, qp, c->link_bps + 1u);
    }
}

static int run_workload(uint64_t wseed, const rl_config *fixed, int tie, int trace)
{
    rnic_prng g;
    rl_config c;
    wl w;
    pair p;
    uint64_t cyc;
    uint32_t next_id = 1, i;
    int failed;

    rnic_prng_seed(&g, wseed);
    rand_cfg(&g, &c);
    if (fixed) {
        rl_config_default(&c);
        c.clock_hz = fixed->clock_hz;
        c.link_bps = fixed->link_bps;
        c.min_rate_bps = fixed->min_rate_bps;
        c.max_flows = fixed->max_flows;
        c.mtu = fixed->mtu;
        c.pcie_latency_ns = fixed->pcie_latency_ns;
        c.fetch_wqes = fixed->fetch_wqes;
        c.desc_depth = fixed->desc_depth;
        c.tx_depth = fixed->tx_depth;
        g_dyadic = tie ? 3 : 0;
    }
    c.schedule_queue = g_ranked ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO;
    rand_fetch(&g, &c);
    rand_wl(&g, &c, &w);
    if (!pair_init(&p, &c, wseed)) {
        pair_free(&p);
        return 1;
    }
    p.r.trace = trace;
    /* set a rate for every used QP first (most workloads; a new QP runs at the link rate) */
    i = rnic_prng_chance(&g, 1, 8) ? w.nused : 0;
    for (cyc = 0; cyc < w.cycles && !p.failed; cyc++) {
        for (; i < w.nused; i++)
            pair_push(&p, EV_RATE, w.used[i], pick_rate(&g, &c, w.base_rate));
        wl_inputs(&p, &g, &w, &next_id, 1);
        pair_tick(&p);
        if (rnic_prng_below(&g, 1000) < w.p_pop)
            pair_pop(&p, w.bursty_pop ? c.tx_depth : (uint32_t)rnic_prng_range(&g, 1, 2));
    }
    /* drain: no new input, pop everything, until quiet */
    for (cyc = 0; cyc < 4000 && !p.failed; cyc++) {
        pair_tick(&p);
        pair_pop(&p, UINT32_MAX);
    }
    pair_final(&p);
    failed = p.failed;
    pair_free(&p);
    return failed;
}

/* ======================================================================================
 * Test cases.
 * ====================================================================================== */

/* 1. differential: edge configurations first, then random ones. */
static const struct edge_cfg {
    uint64_t clock, link;
    uint32_t nq, mtu, L, n, k, ev, tx;
    int tie; /* rates link / 2^i and packets of 32 B * 2^j: start and finish times collide */
} edges[] = {
    { 1000000000ull, 256000000000ull, 4, 64, 200, 8, 64, 16, 8, 1 },  /* 32 B = 1 cycle at the link */
    { 1000000000ull, 256000000000ull, 8, 128, 64, 4, 16, 4, 2, 1 },
    { 250000000ull, 64000000000ull, 3, 64, 100, 8, 32, 8, 4, 1 },
    { 500000000ull, 128000000000ull, 16, 256, 240, 16, 128, 16, 3, 1 },
    { 1000000000ull, 256000000000ull, 2, 64, 8, 2, 4, 2, 1, 1 },
    { 250000000ull, 100000000000ull, 1, 4096, 250, 8, 60, 64, 64, 0 },     /* the paper's defaults, one QP */
    { 250000000ull, 100000000000ull, 4, 1000, 250, 8, 60, 16, 8, 0 },
    { 1000000000ull, 400000000000ull, 1, 64, 300, 64, 256, 16, 8, 0 },     /* one QP, k = 256 */
    { 1000000000ull, 400000000000ull, 2, 64, 300, 64, 256, 16, 8, 0 },
    { 100000000ull, 400000000000ull, 3, 64, 1, 1, 1, 1, 1, 0 },            /* everything minimal */
    { 100000000ull, 10000000000ull, 64, 4096, 300, 8, 64, 16, 8, 0 },
    { 1000000000ull, 10000000000ull, 64, 64, 2, 2, 3, 2, 1, 0 },
    { 250000000ull, 100000000000ull, 65536, 512, 250, 8, 60, 16, 8, 0 },   /* height 17 */
    { 250000000ull, 100000000000ull, 255, 512, 17, 3, 5, 4, 2, 0 },         /* height 8 */
    { 250000000ull, 100000000000ull, 256, 4096, 40, 64, 256, 16, 8, 0 },   /* height 9 */
};

static void edge_config(uint32_t i, rl_config *c)
{
    rl_config_default(c);
    c->clock_hz = edges[i].clock;
    c->link_bps = edges[i].link;
    c->max_flows = edges[i].nq;
    c->mtu = edges[i].mtu;
    c->pcie_latency_ns = ns_for_cycles(edges[i].L, edges[i].clock);
    c->fetch_wqes = edges[i].n;
    c->desc_depth = edges[i].k;
    c->tx_depth = edges[i].tx;
}

static void test_differential_edges(void)
{
    uint64_t seed = test_seed(0x7a55e1ull);
    uint32_t i, j, fails = 0, runs = 0, ranked = 0;
    for (i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (j = 0; j < (edges[i].tie ? 10u : 3u) + (REF_RANKED_DIFF ? 2u : 0u); j++, runs++) {
            rl_config c;
            uint64_t ws = rnic_splitmix64(&seed);
            edge_config(i, &c);
            g_ranked = j >= (edges[i].tie ? 10u : 3u); /* the two extra runs */
            ranked += (uint32_t)g_ranked;
            if (run_workload(ws, &c, edges[i].tie, 0)) {
                if (TEST_FAILS() <= 10)
                    printf("  (replay: RL_REF_EDGE=%u RL_REF_WSEED=%" PRIu64 "%s)\n", (unsigned)i, ws,
                           g_ranked ? " RL_REF_RANKED=1" : "");
                fails++;
            }
        }
    g_ranked = 0;
    printf("  edge workloads: %u diverged of %u (%u ranked)\n", (unsigned)fails, (unsigned)runs, (unsigned)ranked);
}

/* The smallest case of "data remains": n = 2, three 100 B WQEs posted, one doorbell. The
 * first round fetches 2 WQEs (all n), cuts and stores both packets; nothing fetched is left
 * over. Whether the third WQE is ever sent depends on whether a full fetch counts as "data
 * remains" (see REF_FULL_FETCH_MORE). */
static void test_differential_minimal_full_fetch(void)
{
    rl_config c;
    pair p;
    uint64_t cyc;
    uint32_t i;
    rl_config_default(&c);
    c.max_flows = 1;
    c.fetch_wqes = 2;
    if (!pair_init(&p, &c, 0))
        return;
    for (i = 0; i < 3; i++)
        host_post(&p.h, 0, 10u + i, 100);
    pair_push(&p, EV_DOORBELL, 0, 0);
    for (cyc = 0; cyc < 2000; cyc++) { /* runs on after a divergence, to count the packets */
        rnic_work t;
        pair_tick(&p);
        if (!p.failed)
            pair_pop(&p, UINT32_MAX);
        while (p.failed && rl_pop_tx(p.e.r, &t) == RNIC_OK)
            ;
        while (p.failed && ref_pop(&p.r, &t) == RNIC_OK)
            ;
    }
    pair_final(&p);
    printf("  reference sent %" PRIu64 " of 3 packets, engine %" PRIu64 "\n", p.r.packets, rl_get_stats(p.e.r)->packets);
    pair_free(&p);
}

/* One QP fills the whole descriptor buffer: the test pops its 1-deep TX port only every
 * `gap` cycles, so eligible descriptors pile up behind the port until all k slots hold that
 * QP's packets (k up to 256, RL_MAX_DESC). The runs vary the amount of data so that the QP's
 * last round lands on every buffer level, the full one included. */
static void test_differential_full_buffer_one_qp(void)
{
    static const uint32_t ks[] = { 255, 256, 256, 200 };
    uint32_t t, reached = 0, runs = 0;
    for (t = 0; t < 4 * 16; t++) {
        rl_config c;
        pair p;
        uint32_t i, max_out = 0, nq = t % 4 == 2 ? 2u : 1u, qp, nwqe = 300u + 41u * (t / 4), gap = 3u + t % 5u;
        uint64_t cyc;
        rl_config_default(&c);
        c.clock_hz = 1000000000ull;
        c.link_bps = 400000000000ull;
        c.max_flows = nq;
        c.mtu = 64;
        c.pcie_latency_ns = 60; /* 60 cycles at 1 GHz */
        c.fetch_wqes = RL_MAX_FETCH;
        c.desc_depth = ks[t % 4];
        c.tx_depth = 1;
        if (!pair_init(&p, &c, 1000u + t))
            break;
        for (qp = 0; qp < nq; qp++) {
            for (i = 0; i < nwqe; i++)
                host_post(&p.h, qp, qp * 10000u + i, t % 4 == 3 ? 128u : 64u);
            pair_push(&p, EV_DOORBELL, qp, 0);
        }
        for (cyc = 0; cyc < 2000 + (uint64_t)gap * nwqe * nq && !p.failed; cyc++) {
            pair_tick(&p);
            if (cyc % gap == 0)
                pair_pop(&p, 1);
            for (qp = 0; qp < nq; qp++)
                if (p.r.q[qp].outstanding > max_out)
                    max_out = p.r.q[qp].outstanding;
        }
        pair_final(&p);
        if (p.failed && TEST_FAILS() <= 10)
            printf("  (k %u, %u QP(s), %u WQEs of %u B each, TX popped every %u cycles)\n", (unsigned)ks[t % 4],
                   (unsigned)nq, (unsigned)nwqe, t % 4 == 3 ? 128u : 64u, (unsigned)gap);
        reached += max_out == ks[t % 4];
        runs++;
        pair_free(&p);
    }
    printf("  %u of %u runs filled the whole buffer with one QP's descriptors\n", (unsigned)reached, (unsigned)runs);
    CHECK(reached >= runs / 2); /* the scenario does what it is for */
}

static void test_differential_random(void)
{
    uint64_t seed = test_seed(0x7a55e12ull);
    uint32_t i, fails = 0, count = (uint32_t)test_length(RANDOM_WORKLOADS / 2u, RANDOM_WORKLOADS), ranked = 0;
    for (i = 0; i < count; i++) {
        g_ranked = REF_RANKED_DIFF && i % 3u == 2u;
        ranked += (uint32_t)g_ranked;
        fails += (uint32_t)run_workload(rnic_splitmix64(&seed), NULL, 0, 0);
    }
    g_ranked = 0;
    printf("  random workloads: %u diverged of %u (%u ranked)\n", (unsigned)fails, (unsigned)count, (unsigned)ranked);
    printf("  covered: %" PRIu64 " workloads, %" PRIu64 " cycles, %" PRIu64 " packets, %" PRIu64 " TX stalls, %" PRIu64
           " desc-full rounds, %" PRIu64 " dropped packets, %" PRIu64 " heap ops, %" PRIu64 " credit waits, %" PRIu64
           " EINVAL/%" PRIu64 " ENOENT, %" PRIu64 " error records, %" PRIu64 " rates clamped, %" PRIu64
           " writes coalesced, %" PRIu64 " re-timings, %" PRIu64 " workloads with Phi > 1 (max %.2f)\n",
           cov.workloads, cov.cycles, cov.tx, cov.stalls, cov.desc_full, cov.dropped, cov.heap_ops, cov.wait_credit,
           cov.einval, cov.enoent, cov.error_records, cov.clamped, cov.coalesced, cov.retimes, cov.phi_over1,
           (double)cov.max_phi / 4294967296.0);
    CHECK(cov.retimes > 1000 && cov.error_records > 10 && cov.coalesced > 100 && cov.clamped > 10);
    if (cov.ranked) {
        printf("  ranked: %" PRIu64 " workloads, %" PRIu64 " wheel inserts (%" PRIu64 " collisions), %" PRIu64
               " spills, %" PRIu64 " releases, %" PRIu64 " descriptors displaced\n",
               cov.ranked, cov.wheel_inserts, cov.wheel_collisions, cov.wheel_spills, cov.wheel_releases,
               cov.evictions);
        CHECK(cov.wheel_inserts > 1000 && cov.wheel_collisions > 10 && cov.wheel_spills > 10 && cov.evictions > 100);
    }
    printf("  read channel (fetch_bps set): %" PRIu64 " workloads (%" PRIu64 " ranked), %" PRIu64
           " of them throttled, %" PRIu64 " throttled cycles\n",
           cov.fetch_limited, cov.fetch_limited_ranked, cov.throttled_wl, cov.throttled);
    CHECK(cov.fetch_limited > 100 && cov.fetch_limited_ranked > 30 && cov.throttled_wl > 50 && cov.throttled > 10000);
}

static ref *sanity_ref(const rl_config *cin, host *h, fsrc *f);

/* Rate-change workloads: every flow backlogged, rates written every few cycles (raises, cuts,
 * clamps, pauses and resumes), engine and reference cycle for cycle. */
static void test_differential_rate_changes(void)
{
    uint64_t seed = test_seed(0x7a7ec4ull), before = cov.retimes, floored = cov.lag_floored;
    uint32_t i, fails = 0, count = (uint32_t)test_length(RANDOM_WORKLOADS / 9u, RANDOM_WORKLOADS / 3u), ranked = 0;
    g_rate_heavy = 1;
    for (i = 0; i < count; i++) {
        g_ranked = REF_RANKED_DIFF && i % 3u == 2u;
        ranked += (uint32_t)g_ranked;
        fails += (uint32_t)run_workload(rnic_splitmix64(&seed), NULL, 0, 0);
    }
    g_rate_heavy = 0;
    g_ranked = 0;
    printf("  rate-change workloads: %u diverged of %u (%u ranked); %" PRIu64 " re-timings, %" PRIu64
           " of them of a QP lagging more than Lambda (starved or cut: its start raised to T - Lambda)\n",
           (unsigned)fails, (unsigned)count, (unsigned)ranked, cov.retimes - before, cov.lag_floored - floored);
    CHECK(cov.retimes - before > 10000u && cov.lag_floored - floored > 100u);
}

/* The issue's cases on the reference alone: a raise from 100 Kb/s to 10 Gb/s acts within one
 * packet time at the new rate + 2 x L; a cut from 10 to 1 Gb/s never lets a packet leave
 * closer to the previous one than a packet time at the new rate. */
static void test_rate_change_sanity(void)
{
    static const uint64_t from[2] = { 100000ull, 10000000000ull }, to[2] = { 10000000000ull, 1000000000ull };
    uint32_t t;
    for (t = 0; t < 2; t++) {
        rl_config c;
        host h;
        fsrc f;
        ref *r;
        uint32_t i;
        uint64_t change = 2500000, first = 0, prev = 0, min_gap = UINT64_MAX, new_pkt = 4096u * 8u * 250000000ull / to[t];
        rnic_work w;
        rl_config_default(&c);
        c.max_flows = 4;
        host_init(&h, 4);
        for (i = 0; i < 6000; i++)
            host_post(&h, 1, i, 4096);
        r = sanity_ref(&c, &h, &f);
        CHECK(ref_push(r, EV_RATE, 1, from[t]) == RNIC_OK);
        CHECK(ref_push(r, EV_DOORBELL, 1, 0) == RNIC_OK);
        while (r->now < change + 40u * new_pkt) {
            if (r->now == change)
                CHECK(ref_push(r, EV_RATE, 1, to[t]) == RNIC_OK);
            ref_tick(r);
            while (ref_pop(r, &w) == RNIC_OK) {
                if (w.cycle >= change) {
                    if (!first)
                        first = w.cycle;
                    else if (w.cycle - prev < min_gap)
                        min_gap = w.cycle - prev;
                }
                prev = w.cycle;
            }
        }
        if (t == 0) {
            printf("  raise 100 Kb/s -> 10 Gb/s: first packet %" PRIu64 " cycles after the write (<= %" PRIu64 ")\n",
                   first - change, new_pkt + 1u + 2u * r->L);
            CHECK(first && first - change <= new_pkt + 1u + 2u * r->L);
        } else {
            printf("  cut 10 -> 1 Gb/s: closest packets after the cut %" PRIu64 " cycles apart (a packet: %" PRIu64 ")\n",
                   min_gap, new_pkt);
            CHECK(min_gap + 1u >= new_pkt);
        }
        ref_free(r);
        free(r);
        host_free(&h);
    }
}

/* 2. fast-forward: one engine ticked every cycle, one advanced over the gaps between inputs;
 * the reference runs in lockstep with the ticked engine and says which cycles do something. */
static void ff_inputs(rnic_prng *g, const rl_config *c, const wl *w, host *h, uint32_t *next_id, rl *A, rl *B,
                      ref *R, int *bad)
{
    uint32_t k, cnt = (uint32_t)rnic_prng_range(g, 1, 3);
    for (k = 0; k < cnt; k++) {
        uint32_t what = (uint32_t)rnic_prng_below(g, 10), qp = w->used[rnic_prng_below(g, w->nused)];
        rnic_err ea, eb, er;
        if (what < 6) {
            uint32_t i, nw = (uint32_t)rnic_prng_range(g, 1, 6);
            if (h->q[qp].n < w->max_posted)
                for (i = 0; i < nw; i++)
                    host_post(h, qp, (*next_id)++, rand_len(g, c->mtu));
            ea = rl_doorbell(A, qp);
            eb = rl_doorbell(B, qp);
            er = ref_push(R, EV_DOORBELL, qp, 0);
        } else if (what < 9) {
            uint64_t bps = rnic_prng_below(g, 10000) < w->p_pause ? 0u : pick_rate(g, c, w->base_rate);
            ea = rl_set_rate(A, qp, bps);
            eb = rl_set_rate(B, qp, bps);
            er = ref_push(R, EV_RATE, qp, bps);
        } else {
            bool on = rnic_prng_chance(g, 2, 3);
            ea = rl_set_credit(A, qp, on);
            eb = rl_set_credit(B, qp, on);
            er = ref_push(R, EV_CREDIT, qp, on);
        }
        if (ea != eb || ea != er)
            *bad = 1;
    }
}

static int ff_one(uint64_t wseed, int trace, uint32_t *ne_late, uint32_t *ref_disagreed, uint64_t *cycles_total)
{
    {
        rnic_prng g;
        rl_config c;
        wl w;
        host h;
        fsrc fa, fb, fr;
        eng A, B;
        ref R;
        uint64_t end, next_in = 0, worst_ne = 0, txn = 0, worst_out = 0, first_out = RNIC_NEVER;
        int first_pending = 0;
        uint32_t next_id = 1;
        int bad = 0, have_ne = 0, reported = 0, r_ok = 1; /* r_ok: the reference still agrees with A */
        char cs[256];

        rnic_prng_seed(&g, wseed);
        rand_cfg(&g, &c);
        c.schedule_queue = g_ranked ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO;
        rand_fetch(&g, &c);
        c.tx_depth = (uint32_t)rnic_prng_range(&g, 1, 64);
        rand_wl(&g, &c, &w);
        end = rnic_prng_range(&g, 5000, 40000);
        host_init(&h, c.max_flows);
        memset(&fa, 0, sizeof fa);
        memset(&fb, 0, sizeof fb);
        memset(&fr, 0, sizeof fr);
        fa.h = fb.h = fr.h = &h;
        c.source = host_fetch;
        c.source_user = &fa;
        CHECK(eng_init(&A, &c) == RNIC_OK);
        c.source_user = &fb;
        CHECK(eng_init(&B, &c) == RNIC_OK);
        c.source_user = &fr;
        ref_init(&R, &c);
        R.trace = trace;
        cfg_str(cs, sizeof cs, &c);

        while (rl_now(A.r) < end && !bad) {
            uint64_t now = rl_now(A.r), chunk, i, ne_b;
            if (now == next_in) {
                ff_inputs(&g, &c, &w, &h, &next_id, A.r, B.r, &R, &bad);
                next_in = now + rnic_prng_log_range(&g, 1, g_rate_heavy ? 300 : 3000);
            }
            /* run a chunk of the gap (popping at the chunk's end on all three) */
            chunk = next_in - now;
            if (rnic_prng_chance(&g, 1, 3))
                chunk = rnic_prng_range(&g, 1, chunk);
            if (now + chunk > end)
                chunk = end - now;
            have_ne = 0; /* new input or TX pops since: earlier predictions no longer bind */
            worst_out = 0;
            first_out = rl_next_output(A.r);
            first_pending = 1;
            ne_b = rl_next_event(B.r);
            if (ne_b != rl_next_event(A.r)) {
                printf("  FF workload %" PRIu64 " (%s): cycle %" PRIu64 ": rl_next_event differs between two engines in the same state (%" PRIu64 " vs %" PRIu64 ")\n",
                       wseed, cs, now, ne_b, rl_next_event(A.r));
                bad = 1;
            }
            { /* rl_advance stops when the TX port fills; going on without a pop is what ticking does */
                uint64_t done = 0, got;
                while (done < chunk) {
                    got = rl_advance(B.r, chunk - done);
                    if (got < chunk - done) {
                        uint32_t held = B.r->tx.count; /* white-box: the port must be full when it stops */
                        if (held != c.tx_depth) {
                            printf("  FF workload %" PRIu64 ": rl_advance stopped after %" PRIu64 " of %" PRIu64
                                   " cycles with the TX port not full (%u of %u)\n",
                                   wseed, got, chunk - done, (unsigned)held, (unsigned)c.tx_depth);
                            bad = 1;
                        }
                        g_ff_stops++;
                    }
                    done += got;
                    if (got == 0 && done < chunk) {
                        printf("  FF workload %" PRIu64 ": rl_advance ran 0 cycles\n", wseed);
                        bad = 1;
                        break;
                    }
                }
            }
            for (i = 0; i < chunk; i++) {
                uint64_t c0 = rl_now(A.r), ne = rl_next_event(A.r);
                if (ne < c0) {
                    if (!reported++)
                        printf("  FF workload %" PRIu64 " (%s): rl_next_event %" PRIu64 " < now %" PRIu64 "\n",
                               wseed, cs, ne, c0);
                    (*ne_late)++;
                }
                if (!have_ne || ne > worst_ne) {
                    worst_ne = ne;
                    have_ne = 1;
                }
                rl_stats before = *rl_get_stats(A.r), after;
                int vis;
                uint64_t out = rl_next_output(A.r);
                uint32_t tx_before = A.r->tx.count; /* white-box: pops come only at the chunk's end */
                if (out < c0) {
                    if (!reported++)
                        printf("  FF workload %" PRIu64 " (%s): rl_next_output %" PRIu64 " < now %" PRIu64 "\n",
                               wseed, cs, out, c0);
                    g_out_late++;
                }
                if (out > worst_out) /* RNIC_NEVER included: no packet may leave at all */
                    worst_out = out;
                uint64_t phi_before = rl_phi_q32(A.r);
                fa.nlog = fr.nlog = 0;
                rl_tick(A.r);
                ref_tick(&R);
                /* a change the API shows (counters other than cycles and TX stalls, Phi) */
                after = *rl_get_stats(A.r);
                before.cycles = after.cycles = before.tx_stalls = after.tx_stalls = 0;
                before.fetch_gated = after.fetch_gated = 0; /* waiting, like a TX stall */
                before.fetch_throttled = after.fetch_throttled = 0; /* waiting for the read channel */
                if (A.r->tx.count > tx_before) { /* this tick put a record on the TX port (error records too) */
                    g_out_checked++;
                    if (first_pending) {
                        g_out_first++;
                        g_out_tight += first_out == c0;
                        first_pending = 0;
                    }
                    if (worst_out > c0) {
                        if (!reported++)
                            printf("  FF workload %" PRIu64 " (%s): a packet left at cycle %" PRIu64
                                   " but rl_next_output said %" PRIu64 "\n", wseed, cs, c0, worst_out);
                        g_out_late++;
                    }
                }
                vis = memcmp(&before, &after, sizeof before) != 0 || phi_before != rl_phi_q32(A.r);
                if (vis && worst_ne > c0) {
                    if (!reported++)
                        printf("  FF workload %" PRIu64 " (%s): cycle %" PRIu64 " changed the engine's counters but rl_next_event said %" PRIu64 "\n",
                               wseed, cs, c0, worst_ne);
                    (*ne_late)++;
                }
                if (r_ok && (fa.nlog != fr.nlog || (fa.nlog && memcmp(&fa.log[0], &fr.log[0], sizeof fa.log[0]) != 0) ||
                             rl_get_stats(A.r)->heap_ops != R.heap_ops || rl_get_stats(A.r)->packets != R.packets ||
                             rl_phi_q32(A.r) != R.phi)) {
                    if (trace)
                        printf("  FF workload %" PRIu64 ": the reference stops agreeing with A at cycle %" PRIu64 "\n",
                               wseed, c0);
                    r_ok = 0;
                    (*ref_disagreed)++;
                }
                if (!r_ok) { /* the reference no longer knows what A does: only the visible check */
                    if (vis)
                        have_ne = 0;
                    continue;
                }
                if (trace && R.active)
                    printf("  cycle %" PRIu64 " active; rl_next_event since the last active cycle: at most %" PRIu64 "\n", c0, worst_ne);
                if (R.active) {
                    if (worst_ne > c0) {
                        if (!reported++)
                            printf("  FF workload %" PRIu64 " (%s): cycle %" PRIu64 " does something (per the reference) but rl_next_event said %" PRIu64 "\n",
                                   wseed, cs, c0, worst_ne);
                        (*ne_late)++;
                    }
                    have_ne = 0;
                }
            }
            if (rl_now(A.r) != rl_now(B.r)) {
                printf("  FF workload %" PRIu64 ": rl_now after advance %" PRIu64 " vs %" PRIu64 "\n", wseed,
                       rl_now(B.r), rl_now(A.r));
                bad = 1;
            }
            for (;;) {
                rnic_work ta, tb, tr;
                memset(&tr, 0, sizeof tr);
                rnic_err ea = rl_pop_tx(A.r, &ta), eb = rl_pop_tx(B.r, &tb), er = RNIC_EEMPTY;
                if (r_ok)
                    er = ref_pop(&R, &tr);
                if (ea != eb || (ea == RNIC_OK && !tx_same(&ta, &tb))) {
                    char s1[128] = "-", s2[128] = "-";
                    if (ea == RNIC_OK)
                        tx_str(s1, sizeof s1, &ta);
                    if (eb == RNIC_OK)
                        tx_str(s2, sizeof s2, &tb);
                    printf("  FF workload %" PRIu64 " (%s): TX #%" PRIu64 " ticked %s, advanced %s\n", wseed, cs, txn, s1,
                           s2);
                    bad = 1;
                    break;
                }
                if (r_ok && (ea != er || (ea == RNIC_OK && !tx_same(&ta, &tr)))) {
                    /* engine vs reference is test 1's business; here it only ends the
                     * rl_next_event checks, which need the reference's view of A */
                    char s1[128] = "-", s3[128] = "-";
                    if (ea == RNIC_OK)
                        tx_str(s1, sizeof s1, &ta);
                    if (er == RNIC_OK)
                        tx_str(s3, sizeof s3, &tr);
                    if (trace)
                        printf("  FF workload %" PRIu64 ": TX #%" PRIu64 " ticked %s, reference %s\n", wseed, txn, s1, s3);
                    r_ok = 0;
                    (*ref_disagreed)++;
                }
                if (ea != RNIC_OK)
                    break;
                txn++;
            }
            if (r_ok && rl_phi_q32(A.r) != R.phi) {
                r_ok = 0;
                (*ref_disagreed)++;
            }
        }
        if (!bad) {
            const rl_stats *sa = rl_get_stats(A.r), *sb = rl_get_stats(B.r);
            /* every counter identical between ticking and advancing */
            if (memcmp(sa, sb, sizeof *sa) != 0) {
                printf("  FF workload %" PRIu64 " (%s): stats differ between ticked and advanced engines"
                       " (packets %" PRIu64 "/%" PRIu64 ", tx_stalls %" PRIu64 "/%" PRIu64 ", heap_ops %" PRIu64 "/%" PRIu64 ", cycles %" PRIu64 "/%" PRIu64 ")\n",
                       wseed, cs, sa->packets, sb->packets, sa->tx_stalls, sb->tx_stalls, sa->heap_ops, sb->heap_ops,
                       sa->cycles, sb->cycles);
                bad = 1;
            }
            if (rl_phi_q32(A.r) != rl_phi_q32(B.r))
                bad = 1;
        }
        *cycles_total += end;
        if (c.fetch_bps) {
            g_ff_fetch_limited++;
            g_ff_throttled += rl_get_stats(A.r)->fetch_throttled;
        }
        if (!bad && r_ok && (rl_get_stats(A.r)->fetch_throttled != R.fetch_throttled ||
                             rl_get_stats(A.r)->fetch_bytes != R.fetch_bytes)) {
            printf("  FF workload %" PRIu64 " (%s): fetch_throttled %" PRIu64 " / fetch_bytes %" PRIu64
                   ", reference %" PRIu64 " / %" PRIu64 "\n",
                   wseed, cs, rl_get_stats(A.r)->fetch_throttled, rl_get_stats(A.r)->fetch_bytes, R.fetch_throttled,
                   R.fetch_bytes);
            bad = 1;
        }
        CHECK(!bad);
        eng_free(&A);
        eng_free(&B);
        ref_free(&R);
        host_free(&h);
        return bad;
    }
}

static void test_fast_forward(void)
{
    uint64_t seed = test_seed(0xfa57f0ull), cycles_total = 0;
    uint32_t wi, nwl = FF_WORKLOADS, diverged = 0, ne_late = 0, dis = 0, ranked = 0;
    for (wi = 0; wi < nwl; wi++) {
        g_rate_heavy = wi % 3u == 2u; /* every third: inputs (a third of them rate writes) every few cycles */
        g_ranked = REF_RANKED_DIFF && (wi / 3u) % 3u == 1u; /* a third, rate-heavy ones included */
        ranked += (uint32_t)g_ranked;
        diverged += (uint32_t)ff_one(rnic_splitmix64(&seed), 0, &ne_late, &dis, &cycles_total);
    }
    g_rate_heavy = 0;
    g_ranked = 0;
    printf("  fast-forward: %u ranked workloads\n", (unsigned)ranked);
    printf("  fast-forward: %u of %u workloads diverged; %u rl_next_event violations; %" PRIu64
           " cycles (rl_next_event checked against the reference in %u of them; in the others the"
           " reference stopped agreeing with the engine, see the differential tests)\n",
           (unsigned)diverged, (unsigned)nwl, (unsigned)ne_late, cycles_total, (unsigned)(nwl - dis));
    printf("  rl_advance stopped at a full TX port %" PRIu64 " times\n", g_ff_stops);
    printf("  fast-forward with the read channel (fetch_bps set): %" PRIu64 " workloads, %" PRIu64
           " throttled cycles\n", g_ff_fetch_limited, g_ff_throttled);
    printf("  rl_next_output: %" PRIu64 " packets checked, %" PRIu64 " violations; of %" PRIu64
           " first packets after an input or pop, %" PRIu64 " left exactly at the bound taken then\n",
           g_out_checked, g_out_late, g_out_first, g_out_tight);
    CHECK(g_ff_fetch_limited > 20 && g_ff_throttled > 1000);
    CHECK_EQ(ne_late, 0);
    CHECK_EQ(g_out_late, 0);
    CHECK(g_out_checked > 10000 && g_out_tight * 10u > g_out_first); /* checked widely; not a bound that is always early */
    CHECK(g_ff_stops > 0); /* the stop was exercised */
}

/* rl_advance over a quiet engine, and rl_next_event's bounds. */
static void test_next_event_basic(void)
{
    rl_config c;
    host h;
    fsrc f;
    eng E;
    rl_config_default(&c);
    c.max_flows = 4;
    host_init(&h, 4);
    memset(&f, 0, sizeof f);
    f.h = &h;
    c.source = host_fetch;
    c.source_user = &f;
    CHECK(eng_init(&E, &c) == RNIC_OK);
    CHECK_EQ(rl_next_event(E.r), RNIC_NEVER); /* fresh engine: nothing will ever happen */
    CHECK_EQ(rl_advance(E.r, 1000000), 1000000);
    CHECK_EQ(rl_now(E.r), 1000000);
    CHECK_EQ(rl_get_stats(E.r)->cycles, 1000000);
    CHECK_EQ(rl_advance(E.r, 0), 0);
    CHECK_EQ(rl_now(E.r), 1000000);
    CHECK(rl_doorbell(E.r, 1) == RNIC_OK); /* doorbell on an empty queue */
    CHECK_EQ(rl_next_event(E.r), 1000000);
    CHECK_EQ(rl_advance_to(E.r, 1100000), 100000);
    CHECK_EQ(rl_now(E.r), 1100000);
    CHECK_EQ(rl_next_event(E.r), RNIC_NEVER); /* it fetched nothing and went idle */
    CHECK_EQ(rl_get_stats(E.r)->packets, 0);
    CHECK_EQ(rl_phi_q32(E.r), 0);
    eng_free(&E);
    host_free(&h);
}

/* 3. paper-level sanity, reference alone. */
static ref *sanity_ref(const rl_config *cin, host *h, fsrc *f)
{
    rl_config c = *cin;
    ref *r = (ref *)calloc(1, sizeof *r);
    memset(f, 0, sizeof *f);
    f->h = h;
    c.source = host_fetch;
    c.source_user = f;
    ref_init(r, &c);
    return r;
}

/* One QP at rate r, no oversubscription: after the initial catch-up burst (its first
 * PCIe-latency worth of packets), packets leave len*8/r seconds apart within 1 cycle. */
static void single_qp_pacing(uint64_t clock, uint64_t link, uint64_t rate, uint32_t mtu, uint32_t len, uint32_t L,
                             uint32_t n, int ranked, uint64_t *worst_dev_milli, uint32_t *npk)
{
    rl_config c;
    host h;
    fsrc f;
    ref *r;
    uint64_t prev = 0, first = 0;
    uint32_t i, got = 0;
    /* exact spacing in cycles: len * 8 * clock / rate, kept as a rational */
    u128 num = (u128)len * 8u * clock, den = rate;
    rl_config_default(&c);
    c.clock_hz = clock;
    c.link_bps = link;
    c.max_flows = 1;
    c.mtu = mtu;
    c.pcie_latency_ns = ns_for_cycles(L, clock);
    c.fetch_wqes = n;
    c.schedule_queue = ranked ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO;
    host_init(&h, 1);
    for (i = 0; i < 3000; i++)
        host_post(&h, 0, i, len);
    r = sanity_ref(&c, &h, &f);
    CHECK(ref_push(r, EV_RATE, 0, rate) == RNIC_OK);
    CHECK(ref_push(r, EV_DOORBELL, 0, 0) == RNIC_OK);
    *worst_dev_milli = 0;
    while (r->now < 3000000 && got < 400) {
        rnic_work t;
        ref_tick(r);
        while (ref_pop(r, &t) == RNIC_OK) {
            CHECK_EQ(t.len, len);
            if (got == 0)
                first = t.cycle;
            /* packet `got` is due at ceil(got * spacing) after the stream's virtual start;
             * compare consecutive spacings once past the initial catch-up (start >= 2L) */
            if (got >= 2 && (u128)(got - 1u) * num >= (u128)(2u * L + 2u * r->height + 8u + 2u * r->P) * den) {
                u128 gap = (u128)(t.cycle - prev) * den; /* in units of 1/den cycles */
                u128 dev = gap > num ? gap - num : num - gap;
                uint64_t milli = (uint64_t)(dev * 1000u / den);
                if (milli > *worst_dev_milli)
                    *worst_dev_milli = milli;
            }
            prev = t.cycle;
            got++;
        }
    }
    (void)first;
    *npk = got;
    ref_free(r);
    free(r);
    host_free(&h);
}

static void test_paper_single_qp_pacing(void)
{
    static const struct {
        uint64_t clock, link, rate;
        uint32_t mtu, len, L, n;
    } cs[] = {
        { 250000000ull, 100000000000ull, 10000000000ull, 4096, 4096, 250, 8 }, /* 819.2 cycles */
        { 250000000ull, 100000000000ull, 40000000000ull, 1500, 1500, 250, 8 }, /* 75 cycles */
        { 250000000ull, 100000000000ull, 25000000000ull, 4096, 4096, 250, 8 }, /* 327.68 cycles */
        { 250000000ull, 100000000000ull, 1000000000ull, 1024, 1024, 250, 8 },  /* 2048 cycles */
        { 1000000000ull, 400000000000ull, 123456789000ull, 4096, 3000, 300, 16 },
        { 100000000ull, 10000000000ull, 3333333333ull, 4096, 777, 100, 4 },
    };
    uint32_t i;
    for (i = 0; i < 2u * (sizeof cs / sizeof cs[0]); i++) {
        uint64_t dev;
        uint32_t npk, ranked = i >= sizeof cs / sizeof cs[0], j = i % (uint32_t)(sizeof cs / sizeof cs[0]);
        single_qp_pacing(cs[j].clock, cs[j].link, cs[j].rate, cs[j].mtu, cs[j].len, cs[j].L, cs[j].n, (int)ranked,
                         &dev, &npk);
        printf("  %s rate %" PRIu64 " b/s, %u B packets (clock %" PRIu64 ", L %u, n %u): %u packets, worst spacing error %" PRIu64 ".%03u cycles\n",
               ranked ? "ranked" : "FIFO", cs[j].rate, (unsigned)cs[j].len, cs[j].clock, (unsigned)cs[j].L,
               (unsigned)cs[j].n, (unsigned)npk, dev / 1000u, (unsigned)(dev % 1000u));
        CHECK(npk >= 100);
        CHECK(dev <= 1000u); /* within 1 cycle */
    }
}

/* Phi = 2: two QPs each at the link rate, always backlogged: each gets half the link. */
static void phi2_fair_share(int ranked)
{
    rl_config c;
    host h;
    fsrc f;
    ref *r;
    uint64_t bytes[2] = { 0, 0 }, t0 = 20000, t1 = 220000, pkt_cycles;
    uint32_t i;
    rl_config_default(&c);
    c.clock_hz = 250000000ull;
    c.link_bps = 100000000000ull;
    c.max_flows = 2;
    c.mtu = 1000; /* 1000 B at 100 Gb/s = 80 ns = 20 cycles: an exact link span */
    c.schedule_queue = ranked ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO;
    host_init(&h, 2);
    for (i = 0; i < 20000; i++) {
        host_post(&h, 0, i, 1000 * (1u + i % 4u));
        host_post(&h, 1, 100000u + i, 1000 * (1u + (i + 2u) % 4u));
    }
    r = sanity_ref(&c, &h, &f);
    r->trace = getenv("RL_REF_TRACE_PHI2") != NULL;
    CHECK(ref_push(r, EV_DOORBELL, 0, 0) == RNIC_OK);
    CHECK(ref_push(r, EV_DOORBELL, 1, 0) == RNIC_OK);
    pkt_cycles = 20;
    while (r->now < t1) {
        rnic_work t;
        ref_tick(r);
        if (r->now == 100)
            CHECK_EQ(r->phi, (uint64_t)2 << 32);
        while (ref_pop(r, &t) == RNIC_OK)
            if (t.cycle >= t0)
                bytes[t.flow] += t.len;
    }
    {
        /* link capacity over [t0, t1): (t1 - t0) / 20 cycles per 1000 B */
        uint64_t cap = (t1 - t0) / pkt_cycles * 1000u, half = cap / 2;
        printf("  %s Phi 2: qp0 %" PRIu64 " B, qp1 %" PRIu64 " B, half the link %" PRIu64 " B\n",
               ranked ? "ranked" : "FIFO", bytes[0], bytes[1], half);
        CHECK(bytes[0] * 100u >= half * 99u && bytes[0] * 100u <= half * 101u);
        CHECK(bytes[1] * 100u >= half * 99u && bytes[1] * 100u <= half * 101u);
        CHECK_EQ(r->max_phi, (uint64_t)2 << 32);
    }
    ref_free(r);
    free(r);
    host_free(&h);
}

static void test_paper_phi2_fair_share(void)
{
    phi2_fair_share(0);
    phi2_fair_share(1);
}

/* A wake-up storm in miniature, on the reference alone (docs/tassel_model.md, "Schedule-queue
 * option: ranked"; examples/tassel_storm.c is the full-size one): one fast QP at 50 Gb/s beside
 * `nslow` QPs at 100 Mb/s (1 KB packets: one every 20,480 cycles each), activated together, so
 * their reschedule keys fall within a few hundred cycles of each other and they come due
 * together at ~20,500 and ~41,000 cycles. The fast QP's ideal gap is 40.96 cycles. In FIFO mode
 * it waits behind the slow QPs in the P-heap and in the schedule FIFO; ranked, it should stay
 * within 2x its ideal gap. */
typedef struct storm_result {
    uint64_t max_gap, fast_pkts, slow_pkts, storm1, inserts, collisions, spills, heap_ops, evictions;
} storm_result;

static void storm_run(int ranked, uint32_t nslow, storm_result *res)
{
    rl_config c;
    host h;
    fsrc f;
    ref *r;
    uint64_t prev = 0;
    uint32_t i, qp;
    rnic_work t;
    rl_config_default(&c);
    c.clock_hz = 250000000ull;
    c.link_bps = 100000000000ull;
    c.max_flows = nslow + 1u;
    c.mtu = 1024;
    c.pcie_latency_ns = 200; /* L = 50 cycles: the wheel has 50 slots */
    c.fetch_wqes = 8;
    c.desc_depth = 60;
    c.tx_depth = 64;
    c.schedule_queue = ranked ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO;
    host_init(&h, c.max_flows);
    for (i = 0; i < 1500; i++)
        host_post(&h, 0, i, 1024);
    for (qp = 1; qp <= nslow; qp++)
        for (i = 0; i < 4; i++)
            host_post(&h, qp, qp * 100u + i, 1024);
    r = sanity_ref(&c, &h, &f);
    memset(res, 0, sizeof *res);
    CHECK(ref_push(r, EV_RATE, 0, 50000000000ull) == RNIC_OK);
    CHECK(ref_push(r, EV_DOORBELL, 0, 0) == RNIC_OK);
    for (qp = 1; qp <= nslow; qp++) {
        CHECK(ref_push(r, EV_RATE, qp, 100000000ull) == RNIC_OK);
        CHECK(ref_push(r, EV_DOORBELL, qp, 0) == RNIC_OK);
    }
    while (r->now < 50000) {
        ref_tick(r);
        while (ref_pop(r, &t) == RNIC_OK) {
            if (t.cycle < 5000) /* past the activation burst */
                continue;
            if (t.flow == 0) {
                if (prev && t.cycle - prev > res->max_gap)
                    res->max_gap = t.cycle - prev;
                prev = t.cycle;
                res->fast_pkts++;
            } else {
                res->slow_pkts++;
                res->storm1 += t.cycle >= 16000 && t.cycle < 36000; /* the slow QPs' second packets */
            }
        }
    }
    res->inserts = r->wheel_inserts;
    res->collisions = r->wheel_collisions;
    res->spills = r->wheel_spills;
    res->heap_ops = r->heap_ops;
    res->evictions = r->desc_evictions;
    CHECK_EQ(r->evict_not_last, 0);
    ref_free(r);
    free(r);
    host_free(&h);
}

static void test_ranked_storm(void)
{
    storm_result fifo, ranked, quiet;
    const uint32_t nslow = 200;
    const uint64_t ideal_x100 = 4096; /* 1024 B * 8 * 250 MHz / 50 Gb/s = 40.96 cycles */
    storm_run(0, nslow, &fifo);
    storm_run(1, nslow, &ranked);
    storm_run(1, 0, &quiet); /* control: the fast QP alone, ranked */
    printf("  storm, 1 fast QP (ideal gap 40.96 cycles) + %u slow QPs: FIFO max gap %" PRIu64 " cycles (%" PRIu64
           " fast, %" PRIu64 " slow packets); ranked max gap %" PRIu64 " cycles (%" PRIu64 " fast, %" PRIu64
           " slow packets; wheel %" PRIu64 " inserts, %" PRIu64 " collisions, %" PRIu64 " spills; %" PRIu64
           " displaced; %" PRIu64 " heap ops vs FIFO %" PRIu64 "); alone, ranked: max gap %" PRIu64 "\n",
           (unsigned)nslow, fifo.max_gap, fifo.fast_pkts, fifo.slow_pkts, ranked.max_gap, ranked.fast_pkts,
           ranked.slow_pkts, ranked.inserts, ranked.collisions, ranked.spills, ranked.evictions, ranked.heap_ops,
           fifo.heap_ops, quiet.max_gap);
    /* the storm happened: every slow QP sent its second packet in [16,000, 36,000) */
    CHECK(fifo.storm1 == nslow && ranked.storm1 == nslow);
    CHECK(ranked.max_gap * 100u <= 2u * ideal_x100);
    CHECK(quiet.max_gap * 100u <= 2u * ideal_x100);
    CHECK(fifo.max_gap * 100u >= 10u * ideal_x100); /* the FIFO starves it */
    /* ranked keeps the fast QP's rate: 45,000 cycles at 40.96 per packet is 1,098 packets */
    CHECK(ranked.fast_pkts * ideal_x100 >= 45000u * 100u * 99u / 100u);
    CHECK(ranked.inserts > 0 && fifo.inserts == 0 && ranked.heap_ops < fifo.heap_ops);
}

/* 4. bad input: refused, counted, and otherwise invisible; bad WQEs completed by an error
 * record; registers coalesced. */
typedef struct bad_run {
    rl_config c;
    host h;
    fsrc f;
    eng e;
    rnic_work tx[4096];
    uint32_t ntx;
} bad_run;

static void bad_setup(bad_run *b, uint32_t nq)
{
    memset(b, 0, sizeof *b);
    rl_config_default(&b->c);
    b->c.max_flows = nq;
    b->c.mtu = 1024;
    b->c.pcie_latency_ns = 200; /* 50 cycles at 250 MHz */
    b->c.fetch_wqes = 4;
    b->c.desc_depth = 8;
    b->c.tx_depth = 4;
    host_init(&b->h, nq);
    b->f.h = &b->h;
    b->c.source = host_fetch;
    b->c.source_user = &b->f;
    CHECK(eng_init(&b->e, &b->c) == RNIC_OK);
}

static void bad_step(bad_run *b)
{
    rnic_work t;
    rl_tick(b->e.r);
    while (rl_pop_tx(b->e.r, &t) == RNIC_OK)
        if (b->ntx < 4096)
            b->tx[b->ntx++] = t;
}

static void bad_free(bad_run *b)
{
    eng_free(&b->e);
    host_free(&b->h);
}

static int bad_same(const bad_run *a, const bad_run *b)
{
    uint32_t i;
    if (a->ntx != b->ntx)
        return 0;
    for (i = 0; i < a->ntx; i++)
        if (!tx_same(&a->tx[i], &b->tx[i]))
            return 0;
    return 1;
}

static void bad_workload(bad_run *b, int variant)
{
    uint32_t i, qp;
    for (qp = 0; qp < 3; qp++)
        for (i = 0; i < 20; i++)
            host_post(&b->h, qp, qp * 100u + i, 100u + 50u * i);
    if (variant == 7) /* a len-0 WQE after QP 1's data, then more */
        for (i = 0; i < 3; i++)
            host_post(&b->h, 1, 999u + i, i == 0 ? 0u : 100u);
    if (variant == 8) /* a WQE above 2^31 B */
        host_post(&b->h, 2, 998u, 0x80000001u);
    if (variant == 9) /* one the source marks as failed */
        host_post_error(&b->h, 0, 997u, 500u, RNIC_EPERM);
    for (i = 0; i < 3000; i++) {
        if (i == 0 || i == 1 || i == 2) {
            uint64_t want = 20000000000ull + 10000000000ull * i;
            if (variant == 2) /* clamped, then overwritten before the EMUX sees it */
                CHECK(rl_set_rate(b->e.r, i, b->c.link_bps + 1u) == RNIC_OK);
            if (variant == 3)
                CHECK(rl_set_rate(b->e.r, i, 1) == RNIC_OK);
            CHECK(rl_set_rate(b->e.r, i, want) == RNIC_OK);
        }
        if (i == 3 || i == 4 || i == 5) {
            CHECK(rl_doorbell(b->e.r, i - 3u) == RNIC_OK);
            if (variant == 6) /* rung twice before the EMUX sees it: one doorbell */
                CHECK(rl_doorbell(b->e.r, i - 3u) == RNIC_OK);
        }
        if (i == 10) {
            if (variant == 1)
                CHECK(rl_doorbell(b->e.r, b->c.max_flows) == RNIC_ENOENT);
            if (variant == 4)
                CHECK(rl_pop_tx(b->e.r, NULL) == RNIC_EINVAL);
            if (variant == 5) {
                CHECK(rl_set_credit(b->e.r, UINT32_MAX, false) == RNIC_ENOENT);
                CHECK(rl_set_rate(b->e.r, b->c.max_flows + 7u, b->c.link_bps) == RNIC_ENOENT);
            }
        }
        if (i == 400 && variant == 6) { /* many credit writes (on) to three flows: never busy */
            uint32_t k;
            for (k = 0; k < 1000; k++)
                CHECK(rl_set_credit(b->e.r, k % 3u, true) == RNIC_OK);
        }
        bad_step(b);
    }
}

/* The error record of WQE `tag` in the TX stream: exactly one, at its place in the flow's order. */
static void check_error_record(const bad_run *b, uint64_t tag, rnic_err st, uint32_t flow)
{
    uint32_t i, found = 0;
    for (i = 0; i < b->ntx; i++) {
        const rnic_work *t = &b->tx[i];
        if (t->tag != tag)
            continue;
        found++;
        CHECK_EQ(t->flow, flow);
        CHECK_EQ(t->len, 0);
        CHECK_EQ(t->flags, RNIC_WORK_FIRST | RNIC_WORK_LAST | RNIC_WORK_ERROR);
        CHECK_EQ(t->status, (int32_t)st);
    }
    CHECK_EQ(found, 1);
}

static void test_bad_input(void)
{
    bad_run *base = (bad_run *)calloc(1, sizeof *base), *b = (bad_run *)calloc(1, sizeof *b);
    int v;
    bad_setup(base, 3);
    bad_workload(base, 0);
    CHECK(base->ntx > 50);
    CHECK_EQ(rnic_err_total(&rl_get_stats(base->e.r)->errors), 0);
    CHECK_EQ(rl_get_stats(base->e.r)->coalesced, 0);
    for (v = 1; v <= 9; v++) {
        const rl_stats *s;
        bad_setup(b, 3);
        bad_workload(b, v);
        s = rl_get_stats(b->e.r);
        if (v < 7 && !bad_same(base, b)) {
            printf("  bad input variant %d changed the TX stream (%u vs %u records)\n", v, (unsigned)b->ntx,
                   (unsigned)base->ntx);
            CHECK(!"bad input changed the TX stream");
        }
        switch (v) {
        case 1:
            CHECK_EQ(s->errors.by_cause[RNIC_ENOENT], 1);
            break;
        case 2:
        case 3:
            CHECK_EQ(s->rate_clamped, 3);
            CHECK_EQ(s->coalesced, 3);
            CHECK_EQ(rnic_err_total(&s->errors), 0);
            break;
        case 4:
            CHECK_EQ(s->errors.by_cause[RNIC_EINVAL], 1);
            break;
        case 5:
            CHECK_EQ(s->errors.by_cause[RNIC_ENOENT], 2);
            break;
        case 6:
            CHECK_EQ(s->doorbells, rl_get_stats(base->e.r)->doorbells);
            CHECK(s->coalesced >= 3u + 997u - 3u); /* at most one credit write per flow applies per cycle */
            CHECK_EQ(s->errors.by_cause[RNIC_EBUSY], 0);
            CHECK_EQ(rnic_err_total(&s->errors), 0);
            break;
        case 7: /* the bad WQE completes as an error record and what follows is sent */
            check_error_record(b, 999u, RNIC_EINVAL, 1);
            CHECK_EQ(s->errors.by_cause[RNIC_EINVAL], 1);
            CHECK_EQ(s->packets, rl_get_stats(base->e.r)->packets + 2u);
            break;
        case 8:
            check_error_record(b, 998u, RNIC_EINVAL, 2);
            CHECK_EQ(s->errors.by_cause[RNIC_EINVAL], 1);
            CHECK_EQ(s->packets, rl_get_stats(base->e.r)->packets);
            break;
        default:
            check_error_record(b, 997u, RNIC_EPERM, 0);
            CHECK_EQ(s->errors.by_cause[RNIC_EPERM], 1);
            CHECK_EQ(s->error_records, 1);
            break;
        }
        if (v <= 6) {
            CHECK_EQ(s->packets, rl_get_stats(base->e.r)->packets);
            CHECK_EQ(s->bytes, rl_get_stats(base->e.r)->bytes);
        }
        bad_free(b);
    }
    bad_free(base);
    free(base);
    free(b);
}

/* Bad WQEs in random differential workloads: the reference emits the same error records. */
static void test_bad_wqe_differential(void)
{
    uint64_t seed = test_seed(0xbadbadull), records = 0;
    uint32_t w;
    for (w = 0; w < 12; w++) {
        rnic_prng g;
        rl_config c;
        pair p;
        uint64_t cyc;
        uint32_t qp, i;
        rnic_prng_seed(&g, rnic_splitmix64(&seed));
        rand_cfg(&g, &c);
        if (c.max_flows > 8)
            c.max_flows = 8;
        if (!pair_init(&p, &c, w))
            break;
        for (qp = 0; qp < c.max_flows; qp++) {
            uint32_t nw = (uint32_t)rnic_prng_range(&g, 0, 12);
            for (i = 0; i < nw; i++)
                host_post(&p.h, qp, qp * 1000u + i, rand_len(&g, c.mtu));
            if (rnic_prng_chance(&g, 1, 2))
                host_post(&p.h, qp, qp * 1000u + 500u, rnic_prng_chance(&g, 1, 2) ? 0u : 0x80000000u + 1u);
            else
                host_post_error(&p.h, qp, qp * 1000u + 500u, 300u, RNIC_ESTALE);
            host_post(&p.h, qp, qp * 1000u + 501u, 10);
        }
        for (cyc = 0; cyc < 6000 && !p.failed; cyc++) {
            if (cyc % 500 == 0)
                for (qp = 0; qp < c.max_flows; qp++)
                    pair_push(&p, EV_DOORBELL, qp, 0);
            pair_tick(&p);
            pair_pop(&p, 2);
        }
        (void)0;
        pair_final(&p);
        CHECK(p.r.error_records <= c.max_flows); /* at most one per flow: never twice */
        records += p.r.error_records;
        pair_free(&p);
    }
    printf("  %" PRIu64 " error records, engine and reference alike\n", records);
    CHECK(records >= 12);
}

/* pcie_latency_ns -> cycles (api.h: nearest, a half up, 1 .. 2^20 cycles), engine against the
 * reference's conversion: every ns from 1 to 40 at clocks where they fall on halves and
 * thirds, then random (ns, clock) pairs over the whole clock range. */
static void test_pcie_latency_ns(void)
{
    static const uint64_t clocks[] = { 1000000ull, 100000000ull, 250000000ull, 333333333ull, 1000000000ull,
                                       1500000000ull, 10000000000ull };
    static uint64_t mem[1u << 17]; /* 1 MB, aligned for rl_init */
    static rl engine;
    rnic_prng g;
    host h;
    fsrc f;
    uint32_t i, checked = 0, refused = 0, halves = 0;
    host_init(&h, 1);
    memset(&f, 0, sizeof f);
    f.h = &h;
    rnic_prng_seed(&g, test_seed(0x9c1eull));
    for (i = 0; i < 7u * 40u + 2000u; i++) {
        rl_config c;
        const char *field = NULL;
        uint64_t want;
        rnic_err e;
        rl_config_default(&c);
        c.max_flows = 1;
        c.source = host_fetch;
        c.source_user = &f;
        if (i < 7u * 40u) {
            c.clock_hz = clocks[i / 40u];
            c.pcie_latency_ns = 1u + i % 40u;
        } else {
            c.clock_hz = rnic_prng_log_range(&g, 1000000ull, 10000000000ull);
            c.pcie_latency_ns = (uint32_t)rnic_prng_log_range(&g, 1, 40000000u);
        }
        want = ref_ns_to_cycles(c.pcie_latency_ns, c.clock_hz);
        halves += ((u128)c.pcie_latency_ns * c.clock_hz) % 1000000000u == 500000000u;
        e = rl_config_check(&c, &field);
        if (want == 0 || want > (1u << 20)) {
            refused++;
            CHECK(e == RNIC_EINVAL && field && strcmp(field, "pcie_latency_ns") == 0);
            continue;
        }
        CHECK(e == RNIC_OK);
        if (rl_mem_size(&c) > sizeof mem) /* a long latency needs a long fetch ring */
            continue;
        CHECK(rl_init(&engine, &c, mem, sizeof mem) == RNIC_OK);
        if (rl_pcie_latency_cycles(&engine) != want)
            printf("  %u ns at %" PRIu64 " Hz: engine %u cycles, reference %" PRIu64 "\n", (unsigned)c.pcie_latency_ns,
                   c.clock_hz, (unsigned)rl_pcie_latency_cycles(&engine), want);
        CHECK_EQ(rl_pcie_latency_cycles(&engine), want);
        checked++;
    }
    printf("  %u conversions checked (%u exact halves), %u out of range refused\n", (unsigned)checked,
           (unsigned)halves, (unsigned)refused);
    CHECK(checked > 1000 && halves >= 10 && refused > 10);
    host_free(&h);
}

static void test_bad_config(void)
{
    rl_config good, c;
    host h;
    fsrc f;
    size_t sz;
    void *mem;
    rl *r = (rl *)calloc(1, sizeof *r);
    const char *field;
    int i;
    host_init(&h, 4);
    memset(&f, 0, sizeof f);
    f.h = &h;
    rl_config_default(&good);
    good.max_flows = 4;
    sz = rl_mem_size(&good); /* no source yet: the size is known all the same */
    CHECK(sz > 0);
    CHECK(rl_config_check(&good, &field) == RNIC_OK);
    mem = malloc(sz + 64);
    CHECK(rl_init(r, &good, mem, sz) == RNIC_EINVAL); /* ... but init needs the source */
    good.source = host_fetch;
    good.source_user = &f;
    CHECK_EQ(rl_mem_size(&good), sz);
    CHECK(rl_init(r, &good, mem, sz - 1) == RNIC_ENOSPC);
    CHECK(rl_init(r, &good, mem, 0) == RNIC_ENOSPC);
    CHECK(rl_init(r, &good, NULL, sz) == RNIC_EINVAL);
    CHECK(rl_init(NULL, &good, mem, sz) == RNIC_EINVAL);
    CHECK(rl_init(r, NULL, mem, sz) == RNIC_EINVAL);
    CHECK(rl_config_check(NULL, &field) == RNIC_EINVAL && field && strcmp(field, "cfg") == 0);
    for (i = 0; i < 18; i++) {
        static const char *const names[18] = { "max_flows", "max_flows", "link_bps", "mtu", "desc_depth",
                                                "desc_depth", "fetch_wqes", "fetch_wqes", "link_bps",
                                                "tx_depth", "tx_depth", "mtu", "mtu", "pcie_latency_ns",
                                                "min_rate_bps", "clock_hz", "pcie_latency_ns",
                                                "pcie_latency_ns" };
        c = good;
        switch (i) {
        case 11: c.mtu = 63; break;              /* api.h: mtu 64 .. 65536 */
        case 12: c.mtu = 65537; break;
        case 13: c.pcie_latency_ns = 0; break;
        case 14: c.min_rate_bps = c.link_bps + 1u; break;
        case 15: c.clock_hz = 0; break;
        case 16: c.pcie_latency_ns = 1; break;       /* 0.25 cycles at 250 MHz: rounds to 0 */
        case 17: c.pcie_latency_ns = 4194306; break; /* 2^20 + 0.5 cycles: rounds up, past 2^20 */
        case 0: c.max_flows = 0; break;
        case 1: c.max_flows = RL_MAX_FLOWS + 1u; break;
        case 2: c.link_bps = 800000000001ull; break;
        case 3: c.mtu = 0; break;
        case 4: c.desc_depth = 0; break;
        case 5: c.desc_depth = RL_MAX_DESC + 1u; break;
        case 6: c.fetch_wqes = 0; break;
        case 7: c.fetch_wqes = RL_MAX_FETCH + 1u; break;
        case 8: c.link_bps = 0; break;
        case 9: c.tx_depth = 0; break;
        default: c.tx_depth = 0; break;
        }
        if (rl_mem_size(&c) != 0)
            printf("  invalid config %d: rl_mem_size %zu (expected 0)\n", i, rl_mem_size(&c));
        CHECK_EQ(rl_mem_size(&c), 0);
        CHECK(rl_init(r, &c, mem, sz + 64) == RNIC_EINVAL);
        field = NULL;
        CHECK(rl_config_check(&c, &field) == RNIC_EINVAL);
        if (!field || strcmp(field, names[i]) != 0) {
            printf("  invalid config %d: rl_config_check names %s, expected %s\n", i, field ? field : "(null)", names[i]);
            CHECK(!"rl_config_check names the wrong field");
        }
    }
    /* the edges of the pcie_latency_ns range at 250 MHz: 2 ns is 0.5 cycles (rounds up to 1),
     * 4194305 ns is 2^20 + 0.25 cycles (rounds down to 2^20) */
    c = good;
    c.pcie_latency_ns = 2;
    CHECK(rl_config_check(&c, &field) == RNIC_OK);
    c.pcie_latency_ns = 4194305;
    CHECK(rl_config_check(&c, &field) == RNIC_OK);
    /* after all that, a good init works and behaves */
    CHECK(rl_init(r, &good, mem, sz) == RNIC_OK);
    CHECK_EQ(rl_now(r), 0);
    CHECK_EQ(rl_pcie_latency_cycles(r), 250); /* the default 1 us at 250 MHz */
    CHECK_EQ(rl_pcie_latency_cycles(NULL), 0);
    CHECK_EQ(rl_phi_q32(r), 0);
    CHECK(rl_doorbell(r, 4) == RNIC_ENOENT);
    CHECK(rl_set_rate(r, 0, good.min_rate_bps) == RNIC_OK);
    CHECK(rl_set_rate(r, 0, good.link_bps) == RNIC_OK);
    CHECK(rl_get_flow_stats(r, 4) == NULL);
    CHECK(rl_get_flow_stats(r, 3) != NULL);
    CHECK(rl_doorbell(NULL, 0) == RNIC_EINVAL);
    CHECK(rl_pop_tx(NULL, NULL) == RNIC_EINVAL);
    {
        uint64_t before = rl_get_stats(r)->errors.by_cause[RNIC_EINVAL];
        CHECK(rl_peek_tx(r, NULL) == RNIC_EINVAL);
        CHECK_EQ(rl_get_stats(r)->errors.by_cause[RNIC_EINVAL], before + 1u);
    }
    {
        rnic_work w;
        CHECK(rl_peek_tx(r, &w) == RNIC_EEMPTY);
        CHECK(rl_pop_tx(r, &w) == RNIC_EEMPTY);
    }
    free(mem);
    free(r);
    host_free(&h);
}

int main(void)
{
    const char *one = getenv("RL_REF_WSEED"), *ff = getenv("RL_REF_FF_WSEED");
    g_rate_heavy = getenv("RL_REF_HEAVY") != NULL;
    g_ranked = getenv("RL_REF_RANKED") != NULL && *getenv("RL_REF_RANKED") == '1';
    if (ff) { /* replay one fast-forward workload */
        uint32_t late = 0;
        uint64_t cyc = 0;
        const char *tr = getenv("RL_REF_TRACE");
        uint32_t dis = 0;
        return ff_one(strtoull(ff, NULL, 0), tr && *tr == '1', &late, &dis, &cyc) || late;
    }
    if (one) { /* replay one differential workload */
        const char *tr = getenv("RL_REF_TRACE"), *edge = getenv("RL_REF_EDGE");
        rl_config c;
        if (edge)
            edge_config((uint32_t)strtoul(edge, NULL, 0), &c);
        return run_workload(strtoull(one, NULL, 0), edge ? &c : NULL, edge ? edges[strtoul(edge, NULL, 0)].tie : 0,
                            tr && *tr == '1');
    }
    RUN(test_bad_config);
    RUN(test_pcie_latency_ns);
    RUN(test_next_event_basic);
    RUN(test_paper_single_qp_pacing);
    RUN(test_paper_phi2_fair_share);
    RUN(test_ranked_storm);
    RUN(test_bad_input);
    RUN(test_bad_wqe_differential);
    RUN(test_differential_edges);
    RUN(test_differential_minimal_full_fetch);
    RUN(test_differential_full_buffer_one_qp);
    RUN(test_differential_random);
    RUN(test_rate_change_sanity);
    RUN(test_differential_rate_changes);
    RUN(test_fast_forward);
    return test_summary();
}
