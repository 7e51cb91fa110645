/* fm_nic.h -- a full-duplex RNIC as one node of the fabric (issue 30; docs/fabric_model.md).
 *
 * Requester side: the host's WQE rings and doorbells over PCIe (rm_host) -> Palos (per-tenant
 * groups, weights) -> the transports, one per kind (protocol + variant, fm_world.h) among the QPs
 * it sends -> for rate protocols (DCQCN, IRN) Tassel (the rate registers: min(DCQCN or RHCC's
 * Eq. 2, the tenant's cap)), for window and token ones (Reno, NewReno, SACK, NDP) the transport's
 * own credit engine -> DMA (PCIe reads) -> the TX MAC and its link.
 * Responder side: packets from the switch -> the receiving host's data path (hcc_host: RX
 * buffer, PCIe, memory; RHCC's receiver on its IIO counter) -> the transport receiver of the
 * flow's kind -> the checker (every byte of every flow exactly once: in order for go-back-N,
 * placed out of order and checked at the frontier for the others). The receivers' ACKs, NAKs,
 * CNPs and pulls and the host's probe ACKs leave through the same TX MAC, ahead of data.
 *
 * Per-QP back-pressure into Palos (fm_world.h): holds per QP on its own transport's queue.
 *
 * [nic] sched = qos: the RED-SEA QoS engine (rnicq.h rq_qos_) in Palos's place, mapped as
 * rnic_model --sched qos maps it (docs/fabric_model.md): tenant t is protection domain t of the
 * NIC's engine, its j-th QP on this NIC the write channels 2j, 2j + 1 (a regular transfer's two
 * descriptor lines; flow id = the first line); the host core (model_parts.h rm_qos_host) writes
 * one transfer per QP at a time as four 16-byte AXI beats and polls the channels' status; each
 * block is one transport message, and the transport's completion of it is the block's ACK to the
 * engine (a FIFO of them in front of its response port). A channel that reads ERROR is
 * resubmitted by the host until it reads DONE. Per-QP isolation is the engine's own: a transfer
 * has at most max_outstanding (2) blocks unacknowledged, so a QP never has more than 2 messages
 * in its transport queue (FM_TP_MESSAGES = 128): the block at the transaction port's head never
 * waits for a full queue (head_waits counts it if it ever did), and a slow QP's blocks wait in
 * the transport, not in the engine's port.
 *
 * The node contract (fabric.h): fm_nic_advance_to executes the engines' cycles, fm_nic_run
 * moves what can move at cycle t (downstream first), fm_nic_next_event is the earliest engine
 * event (or t when a record still waits on a full neighbour: polled next cycle).
 * fm_nic_accept is how a switch hands it a packet (RNIC_EBUSY: no room, the switch keeps it). */
#ifndef RNIC_FM_NIC_H
#define RNIC_FM_NIC_H
#include "fm_taps.h"

struct fm_nic;

/* One transport of a NIC's requester side: the QPs of one kind (fm_world.h) it sends, numbered
 * 0 .. nflows - 1 here; nic_flow[i] is QP i's local number (Palos's, Tassel's, the host's). */
typedef struct fm_tp_inst {
    struct fm_nic *n;
    uint32_t kind;
    tp t;
    void *mem;
    uint32_t nflows;
    uint32_t *nic_flow;
    int held;                   /* window / token kind: its QPs held in Palos (its backlog, fm_world.h) */
    uint32_t release_from;      /* the QP its next release starts from (a release puts the QPs back in
                                   Palos's queues in this order: rotated, no QP always first) */
} fm_tp_inst;

/* One transport receiver of a NIC's responder side: the flows of one kind it receives, numbered
 * 0 .. nflows - 1 here; nic_flow[i] is the flow's rx number (the checker's). */
typedef struct fm_rx_inst {
    uint32_t kind;
    tp_rx r;
    void *mem;
    uint32_t nflows;
    uint32_t *nic_flow;
} fm_rx_inst;

/* The byte checker for a receiver that delivers out of order (selective repeat, NDP): segments
 * beyond the flow's contiguous frontier wait here (sorted by address, at most FM_TP_WINDOW of
 * them: the sender's window) until the frontier reaches them; then rm_receiver's in-order checks
 * (address, message sequence, first/last) run on them in order. A byte placed twice or a segment
 * overlapping one already placed is bad; a byte never placed is lost. */
typedef struct fm_ooo_seg {
    rnic_work w;
} fm_ooo_seg;
typedef struct fm_ooo {
    uint32_t count;
    fm_ooo_seg seg[FM_TP_WINDOW];
} fm_ooo;

/* The lazy engines' slots (fm_nic.lz_next): Palos, Tassel, the transports, the receivers, the host model. */
#define FM_LZ_PALOS 0u
#define FM_LZ_RL 1u
#define FM_LZ_TP(k) (2u + (k))
#define FM_LZ_RX(k) (2u + FM_MAX_TENANTS + (k))
#define FM_LZ_HH (2u + 2u * FM_MAX_TENANTS) /* the host model */
#define FM_LZ_HTX (3u + 2u * FM_MAX_TENANTS)  /* RHCC's sender */
#define FM_LZ_HRX (4u + 2u * FM_MAX_TENANTS)  /* RHCC's receiver */
#define FM_LZ_N (5u + 2u * FM_MAX_TENANTS)

/* Who emitted a trace event: each engine's trace_user (the trace CSV's engine and instance). The
 * events' own `engine` (the trace ids, fm_trace_id) feed the digest and stay as they are; they
 * do not tell a NIC's later transports and receivers apart beyond a few (FM_TRACE_TP_MORE). */
typedef struct fm_trace_src {
    struct fm_nic *n;
    uint16_t engine;            /* RNIC_ENGINE_*; 0: the model's modules (the event's engine names them) */
    uint16_t instance;          /* the NIC's k-th transport / receiver; 0 for the others */
} fm_trace_src;
#define FM_TS_MODEL 0u
#define FM_TS_QOS 1u
#define FM_TS_PALOS 2u
#define FM_TS_TASSEL 3u
#define FM_TS_HCC_TX 4u
#define FM_TS_HCC_HOST 5u
#define FM_TS_HCC_RX 6u
#define FM_TS_TP(k) (7u + (k))
#define FM_TS_RX(k) (7u + FM_MAX_TENANTS + (k))
#define FM_TS_N (7u + 2u * FM_MAX_TENANTS)

typedef struct fm_nic {
    fm_world *w;
    uint32_t h;                 /* host number */
    uint32_t fab_id;            /* its node in the fabric */
    uint32_t sw, sw_port;       /* the switch it hangs on and its port there */
    rnic_trace trace;           /* its modules' events -> digest (and the trace CSV) */
    fm_trace_src trace_src[FM_TS_N]; /* its engines' and modules' trace_user (fm_nic__trace_user) */
    uint64_t digest;            /* a NIC's own: the fabric may bring nodes up to date in any order,
                                   so one fold across NICs would depend on it (fm_world_digest) */
    /* requester */
    uint32_t nsend;             /* QPs it sends (local flows 0 .. nsend - 1) */
    uint32_t *send_flow;        /* local -> global */
    rm_host host;
    rq_palos palos;
    void *palos_mem;
    fm_tp_inst tpi[FM_MAX_TENANTS]; /* one transport per kind it sends (instance 0: its first QP's kind) */
    uint32_t ntp;
    uint8_t *send_inst;         /* per send flow: its transport */
    uint32_t *send_idx;         /* per send flow: its number there */
    rl tassel;
    void *rl_mem;
    rm_pipe dma;
    net_link up;                /* TX MAC + its link to the switch */
    uint64_t link_bps, line_bps; /* that link's rate, and its payload capacity at the segment size */
    uint32_t up_loss_ppm;       /* random loss on that link (fm_nic__to_switch draws it) */
    rnic_prng up_prng;
    uint64_t up_drops;          /* packets that link lost */
    uint32_t up_lost_head;      /* the head's draw: 0 none yet, 1 lost, 2 goes through (a head that
                                   waits for switch room is drawn once) */
    hcc_tx htx;
    void *htx_mem;
    int htx_on;
    uint8_t *held;              /* per send flow: held in Palos (a slow QP with pieces queued) */
    uint64_t *rate;             /* per send flow: its rate: min(the transport side's, the tenant's cap) */
    uint8_t *cap_bound;         /* per send flow: its cap is below the transport side's rate */
    uint32_t ncapped;           /* send flows of a capped tenant */
    uint64_t cap_factor_q16;    /* the cap-bound registers' scale (fm_nic__cap_scale), Q16 */
    uint64_t cap_next;          /* the cycle the scale is next recomputed */
    int64_t *cap_tokens;        /* per send flow of a capped tenant: its token bucket (units: one
                                   payload bit = clock_hz; one cycle adds the cap in b/s) */
    uint64_t *cap_at;           /* the cycle the bucket was last brought up to date */
    uint64_t *cap_wake;         /* a gated flow: the cycle its bucket is back at 0 */
    uint8_t *cap_gated;         /* its Tassel credit is off until then */
    uint32_t ngated;
    uint64_t cap_gates;         /* times a bucket ran dry (counted) */
    uint64_t *given, *sent;     /* per send flow: bytes given to the transport, bytes sent once */
    uint32_t nheld;
    uint8_t rate_dirty;     /* a rate register changed since the requester last looked (slow / fast may differ) */
    uint8_t budget_blocked; /* the requester's last look: a piece waits for the fast QPs' budget */
    uint8_t hold_retry;     /* a hold or release was refused: look at every QP again */
    uint64_t fast_unsent;   /* sum over the QPs in the NIC's budget of given - sent (fm_nic__in_budget) */
    /* Host-only stretches (fm_nic_step): while nothing but the host model has an event before
     * `others_next` (next_event's last full answer), the scheduler ticks the host alone and the
     * other engines stay at `engines_at` (`lagging`) until the NIC next acts or is brought. */
    uint8_t others_valid, lagging;
    uint64_t others_next, engines_at;
    /* Lazy engines (fm_nic__bring): Palos, Tassel, each transport and each receiver stay at the
     * cycle they last ran while none of their own events is due and the NIC touches none of
     * their inputs; next_event keeps each one's answer (lz_next, valid while its bit is set in
     * lz_ok) until it runs or is touched. */
    uint64_t lz_next[FM_LZ_N];
    uint64_t lz_ok;
    uint64_t rl_out;            /* Tassel's rl_next_output, kept while rl_out_ok (fm_nic__rl_out) */
    uint8_t rl_out_ok;
    uint8_t observed;           /* brought by a reader since the last step (fm_nic_advance_to) */
    uint8_t still;              /* the last step found nothing to move (fm_nic__idle) and nothing
                                   reached the NIC since: next_event needs no fm_nic__can_move */
    /* responder */
    uint32_t nrecv;             /* flows it receives (rx flows 0 .. nrecv - 1) */
    uint32_t *recv_flow;        /* rx -> global */
    fm_rx_inst rxi[FM_MAX_TENANTS]; /* one receiver per kind it receives */
    uint32_t nrx;
    uint8_t *recv_inst;         /* per rx flow: its receiver */
    uint32_t *recv_idx;         /* per rx flow: its number there */
    fm_ooo **ooo;               /* per rx flow: the out-of-order checker (NULL: in-order kind, rm_receiver alone) */
    rm_receiver rx;
    hcc_host hh;
    void *hh_mem;
    hcc_rx hrx;
    void *hrx_mem;
    int hh_on, hrx_on;
    uint64_t region_bytes;
    /* host PFC edges toward the switch's port to this NIC, on their way (one hop) */
    uint64_t pause_at[16];
    uint32_t pause_on[16], pause_head, pause_count;
    uint64_t ext_sent;          /* fm_ext.h: the TX MAC's packets sent over the outside link */
    uint64_t now;
    /* counters over the whole run */
    uint64_t sent_pkts, rtx_pkts, acks_out, naks_out, cnps_out, grants_out, probes_sent, probe_acks_out;
    uint64_t trimmed_in, trimmed_dropped; /* trimmed headers taken by an NDP receiver / dropped (another protocol's) */
    uint64_t piece_errors, order_errors, model_errors, rate_changes, mba_writes, host_pfc_frames;
    uint64_t holds, releases;   /* Palos holds and releases written */
    uint64_t head_waits;        /* runs that left a piece at Palos's port head for a full queue (holds prevent it) */
    /* [nic] sched = qos (the header comment) */
    int qos_on;
    rq_qos qos;
    void *qos_mem;
    rm_qos_host qh;             /* the host core in front of it */
    rm_pipe qos_ack;            /* block ACKs (transport completions) waiting for its response port */
    uint32_t qos_qpt;           /* QPs per domain in the host core (the most any tenant has here) */
    uint32_t *qos_qp;           /* per send flow: its QP in the host core */
    uint32_t *qos_local;        /* per host-core QP: its send flow (nsend: a channel pair not used) */
    uint64_t qos_blocks;        /* blocks given to the transports (retransmitted ones included) */
} fm_nic;

#define FM_QOS_QP_UNUSED 3u     /* rm_qos_qp.state of a channel pair no QP of this NIC uses: never started */

static void fm_nic__die(const char *what, rnic_err e)
{
    fprintf(stderr, "rnic_model: %s: %s\n", what, rnic_strerror(e));
    exit(1);
}

static rq_palos *fm_nic__palos(fm_nic *n);
static rl *fm_nic__rl(fm_nic *n);
static tp *fm_nic__tp(fm_nic *n, uint32_t k);
static tp_rx *fm_nic__rx(fm_nic *n, uint32_t k);
static hcc_host *fm_nic__hh(fm_nic *n);
static hcc_tx *fm_nic__htx(fm_nic *n);
static hcc_rx *fm_nic__hrx(fm_nic *n);

static void fm_nic__ring_palos(void *ctx, uint32_t flow, uint32_t tail)
{
    fm_nic *n = (fm_nic *)ctx;
    rnic_err e = rq_palos_doorbell(fm_nic__palos(n), flow, tail);
    if (e != RNIC_OK)
        fm_nic__die("Palos doorbell refused", e);
}

static void fm_nic__doorbell(void *user, uint32_t flow)
{
    fm_tp_inst *ti = (fm_tp_inst *)user;
    /* (inside the transport's tick: Tassel is brought to the NIC's now, where it would stand
       had every engine been advanced, and still runs the cycles after, below in advance_all) */
    rnic_err e = rl_doorbell(fm_nic__rl(ti->n), flow < ti->nflows ? ti->nic_flow[flow] : flow);
    if (e != RNIC_OK)
        fm_nic__die("Tassel doorbell refused", e);
}

/* Send flow f's tenant's cap (payload b/s per QP; 0 = none). */
static uint64_t fm_nic__cap_bps(const fm_nic *n, uint32_t f)
{
    return n->w->p.tenant[n->w->flow[n->send_flow[f]].tenant].cap_bps;
}

/* The rate register of a QP whose cap binds: its cap scaled by cap_factor (at most the link;
 * Tassel clamps it there). */
static uint64_t fm_nic__cap_register(const fm_nic *n, uint32_t local)
{
    uint64_t r = n->rate[local], x;
    if (n->cap_factor_q16 == 65536u)
        return r;
    x = r / 65536u * n->cap_factor_q16 + (r % 65536u) * n->cap_factor_q16 / 65536u;
    return x > n->line_bps ? n->line_bps : x;
}

/* The rate register: min(the transport side's rate, the tenant's cap); a cap that binds is
 * scaled (fm_nic__cap_scale). */
static int fm_nic__in_budget(const fm_nic *n, uint32_t f);
static void fm_nic__write_rate(fm_nic *n, uint32_t local, uint64_t bps)
{
    uint64_t cap = fm_nic__cap_bps(n, local);
    rnic_err e;
    n->cap_bound[local] = cap && bps > cap;
    if (cap && bps > cap)
        bps = cap;
    int was = local < n->nsend && fm_nic__in_budget(n, local);
    n->rate_changes++;
    n->rate[local] = bps;
    n->rate_dirty = 1;
    if (local < n->nsend && was != fm_nic__in_budget(n, local)) { /* slow <-> fast: its unsent bytes move */
        if (was)
            n->fast_unsent -= n->given[local] - n->sent[local];
        else
            n->fast_unsent += n->given[local] - n->sent[local];
    }
    if ((e = rl_set_rate(fm_nic__rl(n), local, n->cap_bound[local] ? fm_nic__cap_register(n, local) : bps)) != RNIC_OK)
        fm_nic__die("rl_set_rate", e);
}

/* A tenant's cap is a limit, not a weight. Tassel, oversubscribed (its active rates above the
 * link), gives every QP its register / Phi (its slowed clock, docs/tassel_model.md): a QP held
 * at a 1 Gb/s cap beside eight at line rate would get 1/8 of its cap while its share of the link
 * is far more. So the NIC scales the registers of the active QPs whose cap binds by
 * U / (L - C) when that is above 1 (U: the other active QPs' registers, C: those caps, L: the
 * link): then Phi = U / (L - C) and each of them gets its cap, the rest of the link going to the
 * others by their registers. Recomputed every microsecond (Tassel's active set changes as QPs
 * drain and refill) and rewritten when the scale moved by more than 1/64; only in a NIC that
 * sends a capped tenant's QPs. */
static void fm_nic__cap_scale(fm_nic *n)
{
    uint64_t u = 0, c = 0, l = n->line_bps, q16 = 65536u;
    uint32_t f;
    rnic_err e;
    n->cap_next = n->now + rnic_ns_to_cycles(1000u, n->w->p.clock_hz);
    for (f = 0; f < n->nsend; f++) {
        rl_flow_view v;
        if (!n->w->kind[n->tpi[n->send_inst[f]].kind].rate || rl_flow_state(fm_nic__rl(n), f, &v) != RNIC_OK ||
            v.state == RL_FLOW_IDLE || v.paused)
            continue;
        if (n->cap_bound[f])
            c += n->rate[f];
        else
            u += n->rate[f];
    }
    if (c && c < l && u > l - c)
        q16 = u / ((l - c + 65535u) / 65536u);
    if (q16 > 1000u * 65536u)
        q16 = 1000u * 65536u;
    if (q16 == n->cap_factor_q16 || (q16 > n->cap_factor_q16 ? q16 - n->cap_factor_q16 : n->cap_factor_q16 - q16) <
                                         n->cap_factor_q16 / 1024u)
        return;
    n->cap_factor_q16 = q16;
    for (f = 0; f < n->nsend; f++)
        if (n->cap_bound[f]) {
            n->rate_changes++;
            if ((e = rl_set_rate(fm_nic__rl(n), f, fm_nic__cap_register(n, f))) != RNIC_OK)
                fm_nic__die("rl_set_rate", e);
        }
}

/* The cap itself is a token bucket per QP of a capped tenant (a scaled register alone would let
 * the QP above its cap whenever Tassel's active set shrinks between two scalings): it fills at
 * the cap, holds FM_CAP_BUCKET_SEGS segments, and pays for every payload byte the TX MAC sends;
 * when it runs dry the QP's Tassel credit goes off until it is back at zero. */
#define FM_CAP_BUCKET_SEGS 4u

static void fm_nic__cap_fill(fm_nic *n, uint32_t f)
{
    int64_t depth = (int64_t)FM_CAP_BUCKET_SEGS * n->w->p.payload * 8 * (int64_t)n->w->p.clock_hz;
    uint64_t add = (n->now - n->cap_at[f]) * fm_nic__cap_bps(n, f);
    n->cap_at[f] = n->now;
    n->cap_tokens[f] = add >= (uint64_t)(depth - n->cap_tokens[f]) ? depth : n->cap_tokens[f] + (int64_t)add;
}

static void fm_nic__cap_pay(fm_nic *n, uint32_t f, uint32_t bytes)
{
    uint64_t cap = fm_nic__cap_bps(n, f);
    if (!cap)
        return;
    fm_nic__cap_fill(n, f);
    n->cap_tokens[f] -= (int64_t)bytes * 8 * (int64_t)n->w->p.clock_hz;
    if (n->cap_tokens[f] >= 0 || n->cap_gated[f])
        return;
    n->cap_gated[f] = 1;
    n->ngated++;
    n->cap_gates++;
    n->cap_wake[f] = n->now + ((uint64_t)-n->cap_tokens[f] + cap - 1u) / cap;
    if (rl_set_credit(fm_nic__rl(n), f, false) != RNIC_OK)
        n->model_errors++;
}

static void fm_nic__cap_release(fm_nic *n)
{
    uint32_t f;
    for (f = 0; f < n->nsend && n->ngated; f++)
        if (n->cap_gated[f] && n->cap_wake[f] <= n->now) {
            n->cap_gated[f] = 0;
            n->ngated--;
            if (rl_set_credit(fm_nic__rl(n), f, true) != RNIC_OK)
                n->model_errors++;
        }
}

static uint64_t fm_nic__cap_next_wake(const fm_nic *n)
{
    uint64_t next = RNIC_NEVER;
    uint32_t f;
    for (f = 0; f < n->nsend; f++)
        if (n->cap_gated[f] && n->cap_wake[f] < next)
            next = n->cap_wake[f];
    return next;
}

static void fm_nic__set_rate(void *user, uint32_t flow, uint64_t bps)
{
    fm_tp_inst *ti = (fm_tp_inst *)user;
    fm_nic *n = ti->n;
    rnic_err e;
    flow = flow < ti->nflows ? ti->nic_flow[flow] : flow;
    if (!n->htx_on) {
        fm_nic__write_rate(n, flow, bps);
        return;
    }
    if ((e = hcc_tx_set_rcc(fm_nic__htx(n), flow, bps)) != RNIC_OK)
        fm_nic__die("hcc_tx_set_rcc", e);
}

/* Tassel's source: the segment ring of local QP `flow` in its transport. */
static uint32_t fm_nic__pacer_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    fm_nic *n = (fm_nic *)user;
    uint32_t k, i;
    if (flow >= n->nsend)
        return 0;
    k = tp_pacer_source(&n->tpi[n->send_inst[flow]].t, n->send_idx[flow], index, out, max);
    for (i = 0; i < k; i++)
        out[i].flow = flow;
    return k;
}

static void *fm__alloc_engine(size_t size, const char *what)
{
    void *p = size ? malloc(size) : NULL;
    if (!p) {
        fprintf(stderr, "rnic_model: %s: no memory (%zu B)\n", what, size);
        exit(1);
    }
    return p;
}

static void fm__config_fail(const char *what, const char *field, rnic_err e)
{
    fprintf(stderr, "rnic_model: %s config: %s: %s\n", what, field ? field : "?", rnic_strerror(e));
    exit(1);
}

/* The QoS engine's retransmission timeout (us), as rnic_model --sched qos chooses it
 * (qos_timeout_us there: the transport under the engine is reliable, so the engine's timeout is
 * the last resort): twice the time to send max_outstanding full blocks at the slowest rate a QP
 * can be held to -- DCQCN's floor or a lower cap -- rounded up to 100 us, at least 20 us. Window
 * and token QPs have no rate floor; the same figure serves them (a block waits in the transport
 * only behind its transfer's other block). Integer arithmetic, at init. */
static uint64_t fm_nic__qos_timeout_us(const fm_world *w, const rq_qos_config *qc)
{
    uint64_t r = w->dcqcn.rate_floor_bps, us;
    uint32_t t;
    for (t = 0; t < w->p.tenants; t++)
        if (w->p.tenant[t].cap_bps && w->p.tenant[t].cap_bps < r)
            r = w->p.tenant[t].cap_bps;
    if (!r)
        r = 1;
    us = 2u * (uint64_t)qc->max_outstanding * qc->block_bytes * 8u * 1000000u / r / 100u * 100u + 100u;
    return us < 20u ? 20u : us;
}

/* Set up NIC h: the flows it sends and receives come from w->flow (fm_build.h fills it). */
static void fm_nic__on_trace(void *user, const rnic_trace_event *ev)
{
    const fm_trace_src *src = (const fm_trace_src *)user;
    fm_nic *n = src->n;
    n->digest = rnic_trace_digest_fold(n->digest, ev);
    if (n->w->trace_csv)
        fm_trace_csv_row(n->w->trace_csv, n->h, src->engine ? src->engine : ev->engine, src->instance, ev);
}

/* The trace_user of NIC n's engine in slot `slot` (FM_TS_*): who it is, for the trace CSV. */
static void *fm_nic__trace_user(fm_nic *n, uint32_t slot, uint32_t engine, uint32_t instance)
{
    fm_trace_src *src = &n->trace_src[slot];
    src->n = n;
    src->engine = (uint16_t)engine;
    src->instance = (uint16_t)instance;
    return src;
}

/* [nic] sched = qos: NIC n's QoS engine (domain t = tenant t), its host core and the ACK FIFO;
 * the QP <-> channel-pair map (the header comment). Run after fm_nic__instances. */
static void fm_nic__qos_init(fm_nic *n)
{
    fm_world *w = n->w;
    const fm_params *p = &w->p;
    uint32_t count[FM_MAX_TENANTS], t, i, lines;
    rq_qos_config qc;
    const char *field = NULL;
    size_t size;
    rnic_err e;
    rq_qos_config_default(&qc);
    qc.clock_hz = p->clock_hz;
    qc.timeout_ns = (p->qos_timeout_us ? p->qos_timeout_us : fm_nic__qos_timeout_us(w, &qc)) * 1000u;
    qc.trace = fm_nic__on_trace;
    qc.trace_user = fm_nic__trace_user(n, FM_TS_QOS, RNIC_ENGINE_QOS, 0);
    qc.trace_id = fm_trace_id(RNIC_ENGINE_QOS, n->h);
    memset(count, 0, sizeof count);
    for (i = 0; i < n->nsend; i++)
        count[w->flow[n->send_flow[i]].tenant]++;
    n->qos_qpt = 1;
    for (t = 0; t < p->tenants; t++) {
        if (count[t] > qc.write_channels / 2u) {
            fprintf(stderr, "rnic_model: nic.sched = qos: host %u sends %u QPs of tenant %u (tenant.qps and its "
                            "pattern); the QoS engine's domain has %u write channels and a transfer takes 2: at most "
                            "%u QPs per tenant per host\n", n->h, count[t], t, qc.write_channels, qc.write_channels / 2u);
            exit(2);
        }
        if (count[t] > n->qos_qpt)
            n->qos_qpt = count[t];
    }
    if (p->tenants > qc.domains) { /* (FM_MAX_TENANTS is the engine's 16 domains) */
        fprintf(stderr, "rnic_model: nic.sched = qos: %u tenants; the QoS engine has %u protection domains\n",
                p->tenants, qc.domains);
        exit(2);
    }
    if ((e = rq_qos_config_check(&qc, &field)) != RNIC_OK)
        fm__config_fail("QoS engine", field, e);
    size = rq_qos_mem_size(&qc);
    n->qos_mem = fm__alloc_engine(size, "QoS engine");
    if ((e = rq_qos_init(&n->qos, &qc, n->qos_mem, size)) != RNIC_OK)
        fm_nic__die("rq_qos_init", e);
    lines = qc.write_channels + qc.read_channels;
    if (rm_qos_host_init(&n->qh, &n->qos, 0, p->tenants, n->qos_qpt, lines, p->tenant[0].min_msg, p->tenant[0].max_msg,
                         FM_QOS_POLL_CYCLES, p->seed + n->h) ||
        rm_pipe_init(&n->qos_ack, 4096u, n->link_bps, p->clock_hz, 0, 1u))
        fm_nic__die("QoS host", RNIC_ENOSPC);
    for (t = 0; t < p->tenants; t++)
        rm_qos_host_set_sizes(&n->qh, t, p->tenant[t].min_msg, p->tenant[t].max_msg);
    n->qos_qp = (uint32_t *)calloc(n->nsend + 1u, sizeof *n->qos_qp);
    n->qos_local = (uint32_t *)calloc(n->qh.nqps + 1u, sizeof *n->qos_local);
    if (!n->qos_qp || !n->qos_local)
        fm_nic__die("QoS host", RNIC_ENOSPC);
    for (i = 0; i < n->qh.nqps; i++)
        n->qos_local[i] = n->nsend;
    memset(count, 0, sizeof count);
    for (i = 0; i < n->nsend; i++) {
        uint32_t g = n->send_flow[i], q = w->flow[g].tenant * n->qos_qpt + count[w->flow[g].tenant]++;
        n->qos_qp[i] = q;
        n->qos_local[q] = i;
        n->qh.qp[q].raddr = (uint64_t)g << 40; /* the global flow's buffer, as the receiver's checker expects */
    }
    for (i = 0; i < n->qh.nqps; i++)
        if (n->qos_local[i] == n->nsend)
            n->qh.qp[i].state = FM_QOS_QP_UNUSED;
    n->qh.posting = n->nsend != 0;
    rm_host_stop_posting(&n->host); /* (Palos's host ring is not used) */
}

/* The send flow of a QoS block's flow id (a transfer's first Transfer Table line); nsend: none. */
static uint32_t fm_nic__qos_local(const fm_nic *n, uint32_t line)
{
    uint32_t lines = n->qh.lines_per_domain, d = line / lines, ch = line % lines, q;
    if ((ch & 1u) || ch / 2u >= n->qos_qpt || d >= n->qh.tenants)
        return n->nsend;
    q = d * n->qos_qpt + ch / 2u;
    return n->qh.qp[q].flow == line ? n->qos_local[q] : n->nsend;
}

/* The host core saw a channel DONE (ok) or ERROR: a DONE message's latency (post -> DONE seen)
 * goes to the receiving NIC's store (where the report reads every flow's), if in the window. */
static void fm_nic__qos_done(void *ctx, uint32_t line, uint64_t latency, int ok)
{
    fm_nic *n = (fm_nic *)ctx;
    uint32_t local = fm_nic__qos_local(n, line);
    const fm_flow *f;
    if (local >= n->nsend) {
        n->model_errors++;
        return;
    }
    f = &n->w->flow[n->send_flow[local]];
    if (ok && n->now >= n->w->window_start && n->now < n->w->window_end) {
        if (n->w->nic[f->dst].w) /* (fm_ext.h: a host in another process is not built here) */
            rm_receiver_note_latency(&n->w->nic[f->dst].rx, f->rx, latency);
        else
            n->w->ext->remote_latency++;
    }
}

/* Bytes the host has posted (the drain's and the report's count). */
static uint64_t fm_nic_posted(const fm_nic *n)
{
    uint64_t b = 0;
    uint32_t i;
    if (!n->qos_on)
        return n->host.bytes_posted;
    for (i = 0; i < n->qh.nqps; i++)
        b += n->qh.qp[i].posted_bytes;
    return b;
}

/* The host posts no new message (the drain); a QoS channel that read ERROR is still resubmitted. */
static void fm_nic_stop_posting(fm_nic *n)
{
    rm_host_stop_posting(&n->host);
    n->qh.posting = false;
}

/* No message of the host is unfinished at the host (QoS: every transfer read DONE). */
static int fm_nic_host_idle(const fm_nic *n)
{
    uint32_t i;
    for (i = 0; n->qos_on && i < n->qh.nqps; i++)
        if (n->qh.qp[i].msgs_done != n->qh.qp[i].msgs_posted)
            return 0;
    return 1;
}

/* The run's digest: every NIC's own, folded in host order (host h's digest nic_digest after the
 * fold d of the hosts before it; fm_ext.h folds the digests gathered from its processes). */
static uint64_t fm_digest_fold_host(uint64_t d, uint32_t h, uint64_t nic_digest)
{
    rnic_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.id = (uint16_t)h;
    ev.a = nic_digest;
    return rnic_trace_digest_fold(d, &ev);
}

static uint64_t fm_world_digest(const fm_world *w)
{
    uint64_t d = 0;
    uint32_t h;
    for (h = 0; h < w->hosts; h++)
        d = fm_digest_fold_host(d, h, w->nic[h].digest);
    return d;
}

/* The trace events the engines and modules emitted, from their own counters (rnic_trace.events),
 * not from the trace CSV's rows: the count the CSV is checked against (RESULT trace_events=). An
 * engine a NIC does not run was never initialised: its counter is 0 (fm_nic_init's memset). */
static uint64_t fm_world_trace_events(const fm_world *w)
{
    uint64_t sum = 0;
    uint32_t h, k;
    for (h = 0; h < w->hosts; h++) {
        const fm_nic *n = &w->nic[h];
        sum += n->trace.events + n->qos.trace.events + n->palos.trace.events + n->tassel.trace.events +
               n->htx.trace.events + n->hh.trace.events + n->hrx.trace.events;
        for (k = 0; k < FM_MAX_TENANTS; k++)
            sum += n->tpi[k].t.trace.events + n->rxi[k].r.trace.events;
    }
    return sum;
}

/* The trace ids of a NIC's second and later transports and receivers (engine codes past the
 * model's own modules: a digest input only). */
#define FM_TRACE_TP_MORE 20u
#define FM_TRACE_RX_MORE 26u

/* The NIC's transports and receivers: one per kind among the QPs it sends / the flows it
 * receives, in the order of its first such flow; each flow's instance and number there. */
static void fm_nic__instances(fm_nic *n)
{
    fm_world *w = n->w;
    uint32_t i, k, pass;
    for (pass = 0; pass < 2; pass++) {
        for (k = 0; k < n->ntp; k++)
            n->tpi[k].nflows = 0;
        for (k = 0; k < n->nrx; k++)
            n->rxi[k].nflows = 0;
        for (i = 0; i < n->nsend; i++) {
            uint32_t kind = w->p.tenant[w->flow[n->send_flow[i]].tenant].kind;
            for (k = 0; k < n->ntp && n->tpi[k].kind != kind; k++)
                ;
            if (k == n->ntp) {
                n->tpi[k].n = n;
                n->tpi[k].kind = kind;
                n->ntp++;
            }
            n->send_inst[i] = (uint8_t)k;
            n->send_idx[i] = n->tpi[k].nflows++;
            if (pass)
                n->tpi[k].nic_flow[n->send_idx[i]] = i;
        }
        for (i = 0; i < n->nrecv; i++) {
            uint32_t kind = w->p.tenant[w->flow[n->recv_flow[i]].tenant].kind;
            for (k = 0; k < n->nrx && n->rxi[k].kind != kind; k++)
                ;
            if (k == n->nrx) {
                n->rxi[k].kind = kind;
                n->nrx++;
            }
            n->recv_inst[i] = (uint8_t)k;
            n->recv_idx[i] = n->rxi[k].nflows++;
            if (pass)
                n->rxi[k].nic_flow[n->recv_idx[i]] = i;
        }
        if (pass)
            break;
        for (k = 0; k < n->ntp; k++)
            if (!(n->tpi[k].nic_flow = (uint32_t *)calloc(n->tpi[k].nflows + 1u, sizeof *n->tpi[k].nic_flow)))
                fm_nic__die("flow tables", RNIC_ENOSPC);
        for (k = 0; k < n->nrx; k++)
            if (!(n->rxi[k].nic_flow = (uint32_t *)calloc(n->rxi[k].nflows + 1u, sizeof *n->rxi[k].nic_flow)))
                fm_nic__die("flow tables", RNIC_ENOSPC);
    }
    if (!n->ntp) { /* a NIC that sends nothing still has a transport (of the first kind, no flows open) */
        n->tpi[0].n = n;
        n->tpi[0].kind = 0;
        n->tpi[0].nflows = 0;
        n->tpi[0].nic_flow = (uint32_t *)calloc(1, sizeof *n->tpi[0].nic_flow);
        n->ntp = 1;
    }
    if (!n->nrx) {
        n->rxi[0].kind = 0;
        n->rxi[0].nflows = 0;
        n->rxi[0].nic_flow = (uint32_t *)calloc(1, sizeof *n->rxi[0].nic_flow);
        n->nrx = 1;
    }
}

static void fm_nic_init(fm_nic *n, fm_world *w, uint32_t h)
{
    const fm_params *p = &w->p;
    uint32_t g, t, i, k, pcie_cycles = (uint32_t)rnic_ns_to_cycles(p->pcie_latency_ns, p->clock_hz);
    const char *field = NULL;
    net_link_config lc;
    rnic_err e;

    memset(n, 0, sizeof *n);
    n->link_bps = w->uplink ? w->uplink[h].rate_bps : p->link_bps;
    n->line_bps = n->link_bps * p->payload / (p->payload + FM_WIRE_OVERHEAD);
    n->up_loss_ppm = w->uplink ? w->uplink[h].loss_ppm : 0u;
    rnic_prng_seed(&n->up_prng, p->seed ^ ((uint64_t)(h + 1u) * 0x94d049bb133111ebull));
    n->w = w;
    n->h = h;
    n->trace.fn = fm_nic__on_trace;
    n->trace.user = fm_nic__trace_user(n, FM_TS_MODEL, 0, 0);
    for (g = 0; g < w->nflows; g++) {
        n->nsend += w->flow[g].src == h;
        n->nrecv += w->flow[g].dst == h;
    }
    n->send_flow = (uint32_t *)calloc(n->nsend + 1u, sizeof *n->send_flow);
    n->recv_flow = (uint32_t *)calloc(n->nrecv + 1u, sizeof *n->recv_flow);
    n->held = (uint8_t *)calloc(n->nsend + 1u, sizeof *n->held);
    n->rate = (uint64_t *)calloc(n->nsend + 1u, sizeof *n->rate);
    n->cap_bound = (uint8_t *)calloc(n->nsend + 1u, sizeof *n->cap_bound);
    n->cap_tokens = (int64_t *)calloc(n->nsend + 1u, sizeof *n->cap_tokens);
    n->cap_at = (uint64_t *)calloc(n->nsend + 1u, sizeof *n->cap_at);
    n->cap_wake = (uint64_t *)calloc(n->nsend + 1u, sizeof *n->cap_wake);
    n->cap_gated = (uint8_t *)calloc(n->nsend + 1u, sizeof *n->cap_gated);
    n->cap_factor_q16 = 65536u;
    n->given = (uint64_t *)calloc(n->nsend + 1u, sizeof *n->given);
    n->sent = (uint64_t *)calloc(n->nsend + 1u, sizeof *n->sent);
    n->send_inst = (uint8_t *)calloc(n->nsend + 1u, sizeof *n->send_inst);
    n->send_idx = (uint32_t *)calloc(n->nsend + 1u, sizeof *n->send_idx);
    n->recv_inst = (uint8_t *)calloc(n->nrecv + 1u, sizeof *n->recv_inst);
    n->recv_idx = (uint32_t *)calloc(n->nrecv + 1u, sizeof *n->recv_idx);
    n->ooo = (fm_ooo **)calloc(n->nrecv + 1u, sizeof *n->ooo);
    if (!n->send_flow || !n->recv_flow || !n->held || !n->rate || !n->cap_bound || !n->cap_tokens || !n->cap_at ||
        !n->cap_wake || !n->cap_gated || !n->given || !n->sent || !n->send_inst ||
        !n->send_idx || !n->recv_inst || !n->recv_idx || !n->ooo)
        fm_nic__die("flow tables", RNIC_ENOSPC);
    for (g = 0; g < w->nflows; g++) {
        if (w->flow[g].src == h) {
            n->send_flow[w->flow[g].local] = g;
            n->ncapped += w->p.tenant[w->flow[g].tenant].cap_bps != 0;
        }
        if (w->flow[g].dst == h)
            n->recv_flow[w->flow[g].rx] = g;
    }
    fm_nic__instances(n);
    n->htx_on = p->host_on && (p->rhcc == FM_RHCC_TX || p->rhcc == FM_RHCC_BOTH);
    n->hh_on = p->host_on;
    n->hrx_on = p->host_on && (p->rhcc == FM_RHCC_RX || p->rhcc == FM_RHCC_BOTH || p->rhcc == FM_RHCC_ECN);

    /* ---- requester ---- */
    {
        uint32_t maxdepth = 1;
        for (t = 0; t < p->tenants; t++)
            if (p->tenant[t].depth > maxdepth)
                maxdepth = p->tenant[t].depth;
        if (rm_host_init(&n->host, 0, n->nsend ? n->nsend : 1u, maxdepth * 2u, maxdepth, p->tenant[0].min_msg,
                         p->tenant[0].max_msg, pcie_cycles, p->seed + h))
            fm_nic__die("host", RNIC_ENOSPC);
        for (i = 0; i < n->nsend; i++) {
            const fm_tenant *tn = &p->tenant[w->flow[n->send_flow[i]].tenant];
            rm_host_set_sizes(&n->host, i, tn->min_msg, tn->max_msg);
            n->host.gen[i].raddr = (uint64_t)n->send_flow[i] << 40; /* the global flow's buffer */
        }
        if (!n->nsend)
            rm_host_stop_posting(&n->host);
        for (i = 0; i < n->nsend; i++)
            if (w->p.tenant[w->flow[n->send_flow[i]].tenant].open)
                rm_host_set_open(&n->host, i);
        if (w->njobs)
            rm_host_set_jobs(&n->host, w->rmjob, w->arrivals_of[h], w->narrivals_of[h]);
    }
    net_link_config_default(&lc);
    lc.rate_bps = n->link_bps;
    lc.prop_ns = w->uplink ? w->uplink[h].prop_ns : p->link_prop_ns;
    lc.clock_hz = p->clock_hz;
    lc.queue_packets = 8u; /* the TX MAC's FIFO (control frames and data) */
    lc.out_packets = 4096;
    if (rm_pipe_init(&n->dma, 64u, p->pcie_bps, p->clock_hz, 0, pcie_cycles) || net_link_init(&n->up, &lc) != RNIC_OK)
        fm_nic__die("DMA / link", RNIC_ENOSPC);
    n->qos_on = p->sched_qos;
    if (n->qos_on)
        fm_nic__qos_init(n);
    else {
        rq_palos_config pc;
        size_t size;
        rq_palos_config_default(&pc);
        pc.weights.max_flows = n->nsend ? n->nsend : 1u;
        pc.weights.max_groups = p->tenants;
        pc.weights.mtu = FM_PALOS_CHUNK;
        pc.clock_hz = p->clock_hz;
        pc.cut_align = p->payload;
        pc.source = rm_host_source;
        pc.source_user = &n->host;
        pc.trace = fm_nic__on_trace;
        pc.trace_user = fm_nic__trace_user(n, FM_TS_PALOS, RNIC_ENGINE_PALOS, 0);
        pc.trace_id = fm_trace_id(RNIC_ENGINE_PALOS, h);
        size = rq_palos_mem_size(&pc);
        n->palos_mem = fm__alloc_engine(size, "Palos");
        if ((e = rq_palos_init(&n->palos, &pc, n->palos_mem, size)) != RNIC_OK)
            fm_nic__die("rq_palos_init", e);
        for (t = 0; t < p->tenants; t++)
            if ((e = rq_palos_create_group(&n->palos, t, p->tenant[t].weight)) != RNIC_OK)
                fm_nic__die("rq_palos_create_group", e);
    }
    for (k = 0; k < n->ntp; k++) {
        fm_tp_inst *ti = &n->tpi[k];
        const fm_kind *kd = &w->kind[ti->kind];
        tp_config tc;
        size_t size;
        tp_config_default(&tc);
        tc.clock_hz = p->clock_hz;
        tc.link_bps = n->line_bps;
        tc.min_rate_bps = w->dcqcn.rate_floor_bps;
        tc.max_flows = ti->nflows ? ti->nflows : 1u;
        tc.window = FM_TP_WINDOW;
        tc.ring = FM_SEG_RING;
        tc.message_depth = FM_TP_MESSAGES;
        tc.incoming_depth = 1024;
        tc.completion_depth = 256;
        tc.protocol = &kd->proto;
        tc.external_pacer = kd->rate != 0; /* rate credit from Tassel; window and token credit: the engine's own */
        tc.pacer.doorbell = fm_nic__doorbell;
        tc.pacer.set_rate = fm_nic__set_rate;
        tc.pacer.user = ti;
        tc.trace = fm_nic__on_trace;
        tc.trace_user = fm_nic__trace_user(n, FM_TS_TP(k), RNIC_ENGINE_TRANSPORT, k);
        tc.trace_id = k ? fm_trace_id(FM_TRACE_TP_MORE + k, h) : fm_trace_id(RNIC_ENGINE_TRANSPORT, h);
        if ((e = tp_config_check(&tc, &field)) != RNIC_OK)
            fm__config_fail("transport", field, e);
        size = tp_mem_size(&tc);
        ti->mem = fm__alloc_engine(size, "transport");
        if ((e = tp_init(&ti->t, &tc, ti->mem, size)) != RNIC_OK)
            fm_nic__die("tp_init", e);
    }
    {
        rl_config rc;
        size_t size;
        rl_config_default(&rc);
        rc.clock_hz = p->clock_hz;
        rc.link_bps = n->line_bps;
        rc.max_flows = n->nsend ? n->nsend : 1u;
        rc.mtu = p->payload;
        rc.pcie_latency_ns = FM_RING_READ_NS;
        rc.source = fm_nic__pacer_source;
        rc.source_user = n;
        rc.trace = fm_nic__on_trace;
        rc.trace_user = fm_nic__trace_user(n, FM_TS_TASSEL, RNIC_ENGINE_TASSEL, 0);
        rc.trace_id = fm_trace_id(RNIC_ENGINE_TASSEL, h);
        if ((e = rl_config_check(&rc, &field)) != RNIC_OK)
            fm__config_fail("Tassel", field, e);
        size = rl_mem_size(&rc);
        n->rl_mem = fm__alloc_engine(size, "Tassel");
        if ((e = rl_init(&n->tassel, &rc, n->rl_mem, size)) != RNIC_OK)
            fm_nic__die("rl_init", e);
    }
    if (n->htx_on) {
        hcc_tx_config hc;
        size_t size;
        hcc_tx_config_default(&hc);
        hc.clock_hz = p->clock_hz;
        hc.link_bps = n->line_bps;
        hc.rate_floor_bps = w->dcqcn.rate_floor_bps;
        hc.max_flows = n->nsend ? n->nsend : 1u;
        hc.rate_depth = n->nsend + 1u;
        hc.probe_depth = 1024;
        hc.max_delay_ns = HCC_TX_MAX_DELAY_NS; /* a host stall of any length is a delay, not bad input */
        hc.trace = fm_nic__on_trace;
        hc.trace_user = fm_nic__trace_user(n, FM_TS_HCC_TX, RNIC_ENGINE_HCC_TX, 0);
        hc.trace_id = fm_trace_id(RNIC_ENGINE_HCC_TX, h);
        if ((e = hcc_tx_config_check(&hc, &field)) != RNIC_OK)
            fm__config_fail("RHCC sender", field, e);
        size = hcc_tx_mem_size(&hc);
        n->htx_mem = fm__alloc_engine(size, "RHCC sender");
        if ((e = hcc_tx_init(&n->htx, &hc, n->htx_mem, size)) != RNIC_OK)
            fm_nic__die("hcc_tx_init", e);
    }
    {
        tp_flow_config fp;
        tp_flow_config_default(&fp);
        fp.seg_size = p->payload;
        fp.init_rate_bps = n->line_bps;
        for (i = 0; i < n->nsend; i++) {
            fm_tp_inst *ti = &n->tpi[n->send_inst[i]];
            fp.rto_ns = w->kind[ti->kind].protocol == FM_PROTO_DCQCN ? FM_RTO_NS : FM_RTO_OTHER_NS;
            fp.param[3] = w->kind[ti->kind].protocol == FM_PROTO_NEWRENO ? w->p.tenant[w->flow[n->send_flow[i]].tenant].newreno_recover : 0u;
            rq_palos_flow_config pf;
            rq_palos_flow_config_default(&pf);
            pf.group = w->flow[n->send_flow[i]].tenant;
            if (!n->qos_on && (e = rq_palos_flow_open(&n->palos, i, &pf)) != RNIC_OK)
                fm_nic__die("rq_palos_flow_open", e);
            if (n->htx_on && (e = hcc_tx_flow_open(&n->htx, i, NULL)) != RNIC_OK)
                fm_nic__die("hcc_tx_flow_open", e);
            fm_nic__write_rate(n, i, n->line_bps);
            if ((e = tp_flow_open(&ti->t, n->send_idx[i], &fp)) != RNIC_OK)
                fm_nic__die("tp_flow_open", e);
        }
    }

    /* ---- responder ---- */
    for (k = 0; k < n->nrx; k++) {
        fm_rx_inst *ri = &n->rxi[k];
        uint32_t proto = w->kind[ri->kind].protocol;
        tp_rx_config rc;
        tp_rx_flow_config rfc;
        size_t size;
        tp_rx_config_default(&rc);
        rc.clock_hz = p->clock_hz;
        rc.max_flows = ri->nflows ? ri->nflows : 1u;
        rc.window = FM_TP_WINDOW;
        rc.delack_count = 1;
        rc.segment_depth = 256;
        rc.ack_depth = 4096;
        rc.delivered_depth = 256;
        if (proto == FM_PROTO_DCQCN) { /* RoCEv2 responder: go-back-N, NAKs, CNPs for CE marks */
            rc.sack = false;
            rc.go_back_n = true;
            rc.cnp_interval_ns = (uint64_t)p->cnp_interval_us * 1000u;
            rc.cnp_mode = TP_RX_CNP_IMMEDIATE;
            rc.delack_count = p->ack_every; /* an RC responder may coalesce ACKs (IBTA 9.7.5.1.3 ... */
            rc.delack_ns = p->ack_timeout_ns; /* ... a NAK still leaves at once) */
        } else if (proto == FM_PROTO_IRN) { /* an ACK per in-order packet, a NACK with the run per other one */
            rc.sack = true;
            rc.nack = true;
        } else if (proto == FM_PROTO_NDP) { /* a pull per arrival (data or trimmed header), paced at the link */
            rc.sack = true;
            rc.nack = false;
            rc.pull_bps = n->link_bps;
            rc.pull_overhead_bytes = FM_WIRE_OVERHEAD;
        } else { /* TCP: cumulative ACKs (Reno, NewReno), with a SACK block (SACK); an ACK per segment */
            rc.sack = proto == FM_PROTO_SACK;
        }
        rc.trace = fm_nic__on_trace;
        rc.trace_user = fm_nic__trace_user(n, FM_TS_RX(k), RNIC_ENGINE_TP_RX, k);
        rc.trace_id = k ? fm_trace_id(FM_TRACE_RX_MORE + k, h) : fm_trace_id(RNIC_ENGINE_TP_RX, h);
        if ((e = tp_rx_config_check(&rc, &field)) != RNIC_OK)
            fm__config_fail("receiver", field, e);
        size = tp_rx_mem_size(&rc);
        ri->mem = fm__alloc_engine(size, "receiver");
        if ((e = tp_rx_init(&ri->r, &rc, ri->mem, size)) != RNIC_OK)
            fm_nic__die("tp_rx_init", e);
        tp_rx_flow_config_default(&rfc);
        for (i = 0; i < ri->nflows; i++)
            if ((e = tp_rx_flow_open(&ri->r, i, &rfc)) != RNIC_OK)
                fm_nic__die("tp_rx_flow_open", e);
    }
    {
        for (i = 0; i < n->nrecv; i++)
            if (!w->kind[n->rxi[n->recv_inst[i]].kind].in_order && !(n->ooo[i] = (fm_ooo *)calloc(1, sizeof **n->ooo)))
                fm_nic__die("checker", RNIC_ENOSPC);
        if (rm_receiver_init(&n->rx, n->nrecv ? n->nrecv : 1u, p->lat_samples, p->seed + 7919u * h))
            fm_nic__die("checker", RNIC_ENOSPC);
        for (i = 0; i < n->nrecv; i++)
            n->rx.f[i].next_raddr = (uint64_t)n->recv_flow[i] << 40;
        n->rx.window_start = w->window_start;
        n->rx.window_end = w->window_end;
        n->rx.latency_at_host = n->qos_on != 0;   /* post -> DONE seen, at the sender (fm_nic__qos_done) */
        n->rx.accept_duplicates = n->qos_on != 0; /* a block resent on the engine's timeout arrives twice */
    }
    if (n->hh_on) {
        static const uint64_t cpu_load_Bps[4] = { 0, 19000000000ull, 25300000000ull, 30300000000ull };
        hcc_host_config hc;
        size_t size;
        hcc_host_config_default(&hc);
        hc.clock_hz = p->clock_hz;
        hc.pfc = p->pfc != 0;
        hc.cpu_load_bps = 8u * cpu_load_Bps[p->cpu_load_x & 3u];
        hc.ddio_lines = p->ddio ? hc.ddio_lines : 0u;
        if (p->cpu_outstanding)
            hc.cpu_outstanding = p->cpu_outstanding;
        hc.mem_queue = hc.cpu_outstanding + hc.iio_mem_credits;
        hc.rx_depth = 256;
        hc.rx_stage_packets = p->rx_pipeline;
        hc.cpu_evict_wb = p->cpu_evict_wb;
        hc.trace = fm_nic__on_trace;
        hc.trace_user = fm_nic__trace_user(n, FM_TS_HCC_HOST, RNIC_ENGINE_HCC_HOST, 0);
        hc.trace_id = fm_trace_id(RNIC_ENGINE_HCC_HOST, h);
        if ((e = hcc_host_config_check(&hc, &field)) != RNIC_OK)
            fm__config_fail("host", field, e);
        size = hcc_host_mem_size(&hc);
        n->hh_mem = fm__alloc_engine(size, "host");
        if ((e = hcc_host_init(&n->hh, &hc, n->hh_mem, size)) != RNIC_OK)
            fm_nic__die("hcc_host_init", e);
        n->region_bytes = n->nrecv ? ((uint64_t)p->footprint_mb << 20) / n->nrecv / 64u * 64u : 64u;
        if (n->region_bytes < 64u)
            n->region_bytes = 64u;
    }
    if (n->hrx_on) {
        hcc_rx_config xc;
        size_t size;
        hcc_rx_config_default(&xc);
        xc.clock_hz = p->clock_hz;
        xc.mode = p->rhcc == FM_RHCC_ECN ? HCC_RX_MODE_ECN : HCC_RX_MODE_MBA;
        xc.fast_down = !p->uniform_slack; /* undo a trial step up at once (docs/hostcc_rx.md) */
        xc.trace = fm_nic__on_trace;
        xc.trace_user = fm_nic__trace_user(n, FM_TS_HCC_RX, RNIC_ENGINE_HCC_RX, 0);
        xc.trace_id = fm_trace_id(RNIC_ENGINE_HCC_RX, h);
        if ((e = hcc_rx_config_check(&xc, &field)) != RNIC_OK)
            fm__config_fail("RHCC receiver", field, e);
        size = hcc_rx_mem_size(&xc);
        n->hrx_mem = fm__alloc_engine(size, "RHCC receiver");
        if ((e = hcc_rx_init(&n->hrx, &xc, n->hrx_mem, size)) != RNIC_OK)
            fm_nic__die("hcc_rx_init", e);
    }
    n->rate_changes = 0;
}

static void fm_nic_free(fm_nic *n)
{
    uint32_t k, i;
    rm_host_free(&n->host);
    rm_pipe_free(&n->dma);
    net_link_free(&n->up);
    rm_receiver_free(&n->rx);
    free(n->palos_mem);
    if (n->qos_on) {
        rm_qos_host_free(&n->qh);
        rm_pipe_free(&n->qos_ack);
        free(n->qos_mem);
        free(n->qos_qp);
        free(n->qos_local);
    }
    for (k = 0; k < n->ntp; k++) {
        free(n->tpi[k].mem);
        free(n->tpi[k].nic_flow);
    }
    for (k = 0; k < n->nrx; k++) {
        free(n->rxi[k].mem);
        free(n->rxi[k].nic_flow);
    }
    for (i = 0; i < n->nrecv; i++)
        free(n->ooo[i]);
    free(n->ooo);
    free(n->send_inst);
    free(n->send_idx);
    free(n->recv_inst);
    free(n->recv_idx);
    free(n->rl_mem);
    free(n->htx_mem);
    free(n->hh_mem);
    free(n->hrx_mem);
    free(n->send_flow);
    free(n->recv_flow);
    free(n->held);
    free(n->rate);
    free(n->cap_bound);
    free(n->cap_tokens);
    free(n->cap_at);
    free(n->cap_wake);
    free(n->cap_gated);
    free(n->given);
    free(n->sent);
}

/* Pieces QP f has queued in the transport. */
static uint32_t fm_nic__room(const fm_nic *n, uint32_t f)
{
    return tp_flow_message_room(&n->tpi[n->send_inst[f]].t, n->send_idx[f]);
}
static uint32_t fm_nic__queued(const fm_nic *n, uint32_t f) { return FM_TP_MESSAGES - fm_nic__room(n, f); }

/* A slow QP: its rate register below half the link (a cap, DCQCN at a congested link). */
static int fm_nic__slow(const fm_nic *n, uint32_t f)
{
    /* a window or token QP has no rate register (its credit is the transport's own): never slow */
    return n->w->kind[n->tpi[n->send_inst[f]].kind].rate && n->rate[f] < n->line_bps / 2u;
}

/* Does QP f's unsent data count in the NIC's budget (FM_NIC_BACKLOG)? A fast QP's does; a window
 * or token QP's in a NIC of several transports counts in its transport's own (fm_nic__window_check). */
static int fm_nic__in_budget(const fm_nic *n, uint32_t f)
{
    if (n->ntp > 1u && !n->w->kind[n->tpi[n->send_inst[f]].kind].rate)
        return 0;
    return !fm_nic__slow(n, f);
}

/* Bytes given to or sent by QP f: the budget's sum follows (kept as the requester's loop would add it). */
static void fm_nic__given_add(fm_nic *n, uint32_t f, uint64_t len)
{
    n->given[f] += len;
    if (fm_nic__in_budget(n, f))
        n->fast_unsent += len;
}
static void fm_nic__sent_add(fm_nic *n, uint32_t f, uint64_t len)
{
    n->sent[f] += len;
    if (fm_nic__in_budget(n, f))
        n->fast_unsent -= len;
}

/* Back-pressure (fm_world.h): a slow QP is held in Palos once FM_QP_HOLD pieces wait for it ... */
static void fm_nic__hold_check(fm_nic *n, uint32_t f)
{
    if (n->held[f] || fm_nic__queued(n, f) < FM_QP_HOLD || !fm_nic__slow(n, f))
        return;
    if (rq_palos_flow_hold(fm_nic__palos(n), f, true) != RNIC_OK) {
        n->model_errors++;
        n->hold_retry = 1;
        return;
    }
    n->held[f] = 1;
    n->nheld++;
    n->holds++;
}

/* ... released when the transport has taken them down to FM_QP_RELEASE (or its rate rose); and
 * the bytes the fast QPs have queued together (the NIC's budget, FM_NIC_BACKLOG; a window or
 * token QP is never slow: in a NIC of one transport its bytes count in the budget).
 * In a NIC of several transports a window / token one has its own budget: its QPs are held
 * together once it has FM_NIC_BACKLOG bytes given and not yet sent, released below half of that
 * (fm_world.h). */
static void fm_nic__window_check(fm_nic *n, uint32_t k)
{
    fm_tp_inst *ti = &n->tpi[k];
    uint64_t unsent = 0;
    uint32_t i;
    int hold;
    for (i = 0; i < ti->nflows; i++)
        unsent += n->given[ti->nic_flow[i]] - n->sent[ti->nic_flow[i]];
    hold = ti->held ? unsent >= FM_NIC_BACKLOG / 2u : unsent >= FM_NIC_BACKLOG;
    if (hold == ti->held)
        return;
    for (i = 0; i < ti->nflows; i++) {
        uint32_t f = ti->nic_flow[hold ? i : (ti->release_from + i) % ti->nflows];
        if (rq_palos_flow_hold(fm_nic__palos(n), f, hold != 0) != RNIC_OK) {
            n->model_errors++;
            continue;
        }
        n->held[f] = (uint8_t)(hold != 0);
        if (hold)
            n->nheld++;
        else
            n->nheld--;
    }
    ti->held = hold;
    if (hold) {
        n->holds++;
    } else {
        n->releases++;
        ti->release_from = (ti->release_from + 1u) % ti->nflows;
    }
}

static uint64_t fm_nic__release_check(fm_nic *n, int look)
{
    uint32_t f, k;
    for (k = 0; k < n->ntp && n->ntp > 1u; k++)
        if (!n->w->kind[n->tpi[k].kind].rate)
            fm_nic__window_check(n, k);
    /* a QP's hold changes only when its queue shrank (a completion), its rate moved, or a hold
     * was refused: otherwise every QP is as the last look left it */
    if (!look && !n->hold_retry)
        return n->fast_unsent;
    n->hold_retry = 0;
    for (f = 0; f < n->nsend; f++) {
        uint32_t q;
        if (n->ntp > 1u && !n->w->kind[n->tpi[n->send_inst[f]].kind].rate)
            continue; /* (its transport's budget, above) */
        q = fm_nic__queued(n, f);
        if (n->held[f] && (q <= FM_QP_RELEASE || !fm_nic__slow(n, f))) {
            if (rq_palos_flow_hold(fm_nic__palos(n), f, false) != RNIC_OK) {
                n->model_errors++;
                n->hold_retry = 1;
                continue;
            }
            n->held[f] = 0;
            n->nheld--;
            n->releases++;
        }
        if (fm_nic__slow(n, f))
            fm_nic__hold_check(n, f); /* its rate may have just fallen */
    }
    return n->fast_unsent;
}

/* Hand the TX MAC's arrived packets to the switch (its ingress never blocks but on a full
 * egress queue's packet count: then the packet waits and the NIC is polled). */
static void fm_nic__to_switch(fm_nic *n, uint64_t t);

/* A packet from the switch, at cycle t (the NIC brought to t). */
static rnic_err fm_nic_accept(fm_nic *n, const net_pkt *pk)
{
    fm_world *w = n->w;
    rnic_work x = pk->w;
    uint32_t type = TP_WORK_PKT_TYPE(x.flags);
    rnic_err e;
    n->still = 0;
    if (x.op == FM_PROBE_ACK_OP && (x.flags & HCC_WORK_PROBE)) { /* to the RHCC sender: Eq. 1 */
        if (!n->htx_on || x.flow >= n->nsend || hcc_tx_push_probe_ack(fm_nic__htx(n), &x) != RNIC_OK)
            n->model_errors++;
        return RNIC_OK;
    }
    if (type == TP_PKT_ACK || type == TP_PKT_NACK || type == TP_PKT_CNP || type == TP_PKT_GRANT) {
        tp *t; /* the transport of the QP's kind (the packet carries its local number) */
        if (x.flow >= n->nsend) {
            n->model_errors++;
            return RNIC_OK;
        }
        t = &n->tpi[n->send_inst[x.flow]].t;
        if (!tp_space_incoming(t))
            return RNIC_EBUSY;
        n->host.gen[x.flow].cnps += type == TP_PKT_CNP;
        t = fm_nic__tp(n, n->send_inst[x.flow]);
        x.flow = n->send_idx[x.flow];
        if (type == TP_PKT_NACK && (x.flags & TP_WORK_TRIMMED))
            x.len = 0; /* a trim notice: never read as a SACK block (examples/tonic_ndp_incast.c's guard) */
        if (tp_push_incoming(t, &x) != RNIC_OK)
            n->model_errors++;
        return RNIC_OK;
    }
    /* data (or a probe) for the responder: the sender's flow number -> this NIC's */
    if (pk->src >= w->hosts || !w->flow_of[pk->src] || x.flow >= w->nic[pk->src].nsend ||
        w->flow[w->flow_of[pk->src][x.flow]].dst != n->h) {
        n->model_errors++;
        return RNIC_OK;
    }
    {
        uint32_t g = w->flow_of[pk->src][x.flow];
        x.flow = w->flow[g].rx;
    }
    x.flags = pk->ecn ? (x.flags | TP_WORK_ECN) : (x.flags & ~TP_WORK_ECN);
    if (pk->trimmed) { /* NDP: a switch cut the payload off; the header goes to the receiver (no host
                          memory write: no payload), which answers it with a trim notice and a pull */
        const fm_rx_inst *ri = &n->rxi[n->recv_inst[x.flow]];
        uint32_t k = n->recv_inst[x.flow];
        tp_rx *r = &n->rxi[k].r;
        x.flags |= TP_WORK_TRIMMED;
        if ((x.flags & HCC_WORK_PROBE) || w->kind[ri->kind].protocol != FM_PROTO_NDP) {
            /* an RHCC probe, or another protocol's packet, whose payload is gone: dropped (the
               protocol's loss recovery acts; a lost probe is RHCC's business, as on a lossy link) */
            n->trimmed_dropped++;
            return RNIC_OK;
        }
        if (!tp_rx_space_segment(r))
            return RNIC_EBUSY;
        x.flow = n->recv_idx[x.flow];
        if (tp_rx_push_segment(fm_nic__rx(n, k), &x) != RNIC_OK)
            n->model_errors++;
        n->trimmed_in++;
        return RNIC_OK;
    }
    x.flags &= ~TP_WORK_TRIMMED;
    if (n->hh_on) {
        x.addr = (uint64_t)x.flow * n->region_bytes +
                 ((x.flags & HCC_WORK_PROBE) ? 0u : (x.raddr & ((1ull << 40) - 1u)) % n->region_bytes);
        e = hcc_host_push_rx(fm_nic__hh(n), &x);
        if (e != RNIC_OK && e != RNIC_EBUSY) /* EBUSY: the RX buffer was full, the host dropped and counted it */
            n->model_errors++;
        return RNIC_OK;
    }
    if (x.flags & HCC_WORK_PROBE) {
        n->model_errors++;
        return RNIC_OK;
    }
    {
        uint32_t k = n->recv_inst[x.flow];
        if (!tp_rx_space_segment(&n->rxi[k].r))
            return RNIC_EBUSY;
        x.flow = n->recv_idx[x.flow];
        if (tp_rx_push_segment(fm_nic__rx(n, k), &x) != RNIC_OK)
            n->model_errors++;
    }
    return RNIC_OK;
}

/* A delivered segment of rx flow x->flow to the byte checker: in order (DCQCN's go-back-N)
 * straight to rm_receiver; otherwise placed (each byte once: a segment overlapping bytes already
 * placed is bad) and handed to rm_receiver's in-order checks when the flow's frontier reaches it.
 * Bytes count when placed (the window's throughput); messages and latency when checked. */
static void fm_nic__check(fm_nic *n, const rnic_work *x)
{
    rm_receiver *r = &n->rx;
    fm_ooo *o = x->flow < n->nrecv ? n->ooo[x->flow] : NULL;
    rm_rx_flow *f;
    rnic_trace silent;
    uint64_t front, end = x->raddr + x->len;
    uint32_t i, at;
    if (!o) {
        rm_receiver_take(r, x, &n->trace);
        return;
    }
    f = &r->f[x->flow];
    front = f->next_raddr;
    rnic_trace_emit(&n->trace, r->now, (uint16_t)RM_TRACE_RECEIVER, RM_TRACE_PLACE, x->flow, x->raddr, x->len);
    r->packets++;
    if (r->accept_duplicates && (x->op & RM_OP_RETX) && end <= front && end > x->raddr) {
        r->duplicates++; /* sched = qos: a block resent on the engine's timeout, its bytes checked before */
        r->duplicate_bytes += x->len;
        return;
    }
    if ((x->flags & RNIC_WORK_ERROR) || x->len == 0 || end < x->raddr || x->raddr < front ||
        end > front + (uint64_t)FM_TP_WINDOW * n->w->p.payload || o->count == FM_TP_WINDOW) {
        f->errors++;
        r->bad++; /* a duplicate of checked bytes, a segment beyond the window, or none of room */
        return;
    }
    for (at = 0; at < o->count && o->seg[at].w.raddr < x->raddr; at++)
        ;
    if ((at > 0 && o->seg[at - 1u].w.raddr + o->seg[at - 1u].w.len > x->raddr) ||
        (at < o->count && o->seg[at].w.raddr < end)) {
        f->errors++;
        r->bad++; /* overlaps a placed segment: a byte twice */
        return;
    }
    for (i = o->count; i > at; i--)
        o->seg[i] = o->seg[i - 1u];
    o->seg[at].w = *x;
    o->count++;
    if ((x->aux & 3u) == RM_ECN_CE)
        r->ce++;
    r->bytes += x->len;
    f->bytes += x->len;
    if (r->now >= r->window_start && r->now < r->window_end)
        f->window_bytes += x->len;
    /* the frontier: rm_receiver checks and counts the contiguous run in order (its byte counts
     * are taken back: counted at placement above) */
    at = 0;
    memset(&silent, 0, sizeof silent); /* (the placement above was the trace event) */
    while (at < o->count && o->seg[at].w.raddr == f->next_raddr) {
        rnic_work y = o->seg[at++].w;
        uint64_t pk = r->packets, win = f->window_bytes;
        y.aux &= ~3u; /* (CE counted at placement) */
        if (rm_receiver_take(r, &y, &silent) == RM_RX_OK) {
            r->bytes -= y.len;
            f->bytes -= y.len;
            f->window_bytes = win;
        } else {
            f->next_raddr += y.len; /* counted bad; the frontier moves past it */
        }
        r->packets = pk;
    }
    for (i = at; i < o->count; i++)
        o->seg[i - at] = o->seg[i];
    o->count -= at;
}

/* The sender-side identity of receiver flow rx: (source host, its flow number there). */
static void fm_nic__origin(const fm_nic *n, uint32_t rx, uint32_t *src, uint32_t *local)
{
    const fm_flow *f = &n->w->flow[n->recv_flow[rx < n->nrecv ? rx : 0u]];
    *src = f->src;
    *local = f->local;
}

static void fm_nic__responder(fm_nic *n)
{
    rnic_work x;
    net_pkt pk;
    rnic_err e;
    uint32_t k;
    if (n->hrx_on) {
        if (hcc_rx_sample_due(&n->hrx) <= n->now) {
            hcc_rx_sample smp;
            smp.cycle = n->now;
            smp.cum = hcc_host_iio_occupancy_cum(fm_nic__hh(n));
            if (hcc_rx_push_sample(fm_nic__hrx(n), &smp) != RNIC_OK)
                n->model_errors++;
        }
        while (hcc_rx_peek_action(&n->hrx, &x) == RNIC_OK && hcc_rx_pop_action(fm_nic__hrx(n), &x) == RNIC_OK) {
            e = (x.flags & HCC_RX_WORK_MBA) ? hcc_host_set_mba_level(fm_nic__hh(n), x.aux)
                                            : hcc_host_set_ecn(fm_nic__hh(n), (x.flags & HCC_WORK_CE) != 0);
            n->mba_writes += (x.flags & HCC_RX_WORK_MBA) != 0;
            if (e != RNIC_OK)
                n->model_errors++;
        }
    }
    while (n->hh_on && hcc_host_peek_rx(&n->hh, &x) == RNIC_OK) {
        if (x.flags & HCC_WORK_PROBE) {
            uint32_t src, local;
            if (!net_link_space(&n->up))
                break;
            hcc_host_pop_rx(fm_nic__hh(n), &x);
            fm_nic__origin(n, x.flow, &src, &local);
            memset(&pk, 0, sizeof pk);
            pk.w.flow = local;
            pk.w.index = x.index;
            pk.w.op = FM_PROBE_ACK_OP;
            pk.w.flags = HCC_WORK_PROBE;
            /* received: when the probe reached the RX buffer's head (default), so D_cur is the
               host's own delay; [host] probe_ts = arrival: when it entered the buffer; = pipeline:
               when it entered the RNIC's receive pipeline (offset counts from there, the host's
               rx_stage_packets), the ACK stamped probe_base_ns after it leaves the pipeline
               (docs/hostcc_model.md "Where the probe delay comes from") */
            pk.w.addr = rnic_cycles_to_ns(x.cycle - (n->w->p.probe_ts_arrival ? x.aux : x.offset), n->w->p.clock_hz);
            pk.w.raddr = rnic_cycles_to_ns(x.cycle, n->w->p.clock_hz) + n->w->p.probe_base_ns; /* processed */
            pk.src = n->h;
            pk.dst = src;
            pk.wire_bytes = FM_ACK_WIRE;
            pk.control = 1;
            n->probe_acks_out++;
            if (net_link_push(&n->up, &pk) != RNIC_OK)
                n->model_errors++;
            continue;
        }
        {
            uint32_t ki = n->recv_inst[x.flow < n->nrecv ? x.flow : 0u];
            if (!tp_rx_space_segment(&n->rxi[ki].r))
                break;
            hcc_host_pop_rx(fm_nic__hh(n), &x);
            if (x.flow >= n->nrecv) {
                n->model_errors++;
                continue;
            }
            x.flow = n->recv_idx[x.flow];
            if (tp_rx_push_segment(fm_nic__rx(n, ki), &x) != RNIC_OK)
                n->model_errors++;
        }
    }
    for (k = 0; k < n->nrx; k++) {
        fm_rx_inst *ri = &n->rxi[k];
        while (tp_rx_peek_delivered(&ri->r, &x) == RNIC_OK && tp_rx_pop_delivered(fm_nic__rx(n, k), &x) == RNIC_OK) {
            n->rx.now = n->now;
            x.aux = (x.flags & TP_WORK_ECN) ? RM_ECN_CE : RM_ECN_ECT0;
            x.flow = x.flow < ri->nflows ? ri->nic_flow[x.flow] : n->nrecv; /* (unknown: the checker counts it bad) */
            fm_nic__check(n, &x);
        }
    }
    for (k = 0; k < n->nrx; k++) {
        fm_rx_inst *ri = &n->rxi[k];
        while (net_link_space(&n->up) && tp_rx_peek_ack(&ri->r, &x) == RNIC_OK &&
               tp_rx_pop_ack(fm_nic__rx(n, k), &x) == RNIC_OK) {
            uint32_t src, local, type = TP_WORK_PKT_TYPE(x.flags);
            x.flow = x.flow < ri->nflows ? ri->nic_flow[x.flow] : 0u;
            if (n->w->pcap && x.flow < n->nrecv)
                fm_tap_control(n->w, n->now, n->recv_flow[x.flow], &x);
            fm_nic__origin(n, x.flow, &src, &local);
            memset(&pk, 0, sizeof pk);
            pk.w = x;
            pk.w.flow = local;
            pk.src = n->h;
            pk.dst = src;
            pk.wire_bytes = type == TP_PKT_CNP ? FM_CNP_WIRE : FM_ACK_WIRE;
            pk.control = 1;
            n->acks_out += type == TP_PKT_ACK;
            n->naks_out += type == TP_PKT_NACK;
            n->cnps_out += type == TP_PKT_CNP;
            n->grants_out += type == TP_PKT_GRANT;
            if (net_link_push(&n->up, &pk) != RNIC_OK)
                n->model_errors++;
        }
    }
    while (n->hh_on && n->pause_count < 16u && hcc_host_peek_signal(&n->hh, &x) == RNIC_OK &&
           hcc_host_pop_signal(fm_nic__hh(n), &x) == RNIC_OK) {
        uint32_t q = (n->pause_head + n->pause_count++) % 16u;
        n->pause_at[q] = n->now + n->up.prop + rnic_ns_to_cycles(6u, n->w->p.clock_hz);
        n->pause_on[q] = (x.flags & HCC_HOST_WORK_PAUSE) != 0;
        n->host_pfc_frames++;
        if (n->w->ext) { /* the frame leaves now; the switch obeys it at pause_at (fm_ext.h) */
            fm_frame fr;
            memset(&fr, 0, sizeof fr);
            fr.kind = FM_FRAME_HOST_PAUSE;
            fr.at = n->pause_at[q];
            fr.value = n->pause_on[q];
            n->w->ext->send(n->w->ext->user, n->w->ext->nic_wire[n->h], &fr);
        }
    }
}

/* A packet Tassel sent: the segment-ring entry it came from is the packet. */
static int fm_nic__tassel_packet(fm_nic *n, rnic_work *x)
{
    rnic_work seg, consumed;
    if (x->flags & RNIC_WORK_ERROR) {
        n->piece_errors++;
        return 0;
    }
    if (x->flow >= n->nsend) {
        n->order_errors++;
        return 0;
    }
    memset(&consumed, 0, sizeof consumed);
    consumed.flow = n->send_idx[x->flow];
    consumed.index = x->index;
    if (fm_nic__pacer_source(n, x->flow, x->index, &seg, 1) != 1 || seg.len != x->len || !(x->flags & RNIC_WORK_LAST) ||
        tp_push_consumed(fm_nic__tp(n, n->send_inst[x->flow]), &consumed) != RNIC_OK) {
        n->order_errors++;
        return 0;
    }
    *x = seg; /* (its flow: the local number, fm_nic__pacer_source) */
    if (seg.flags & TP_WORK_RTX)
        n->rtx_pkts++;
    else
        fm_nic__sent_add(n, seg.flow, seg.len); /* (the segment's flow is the NIC's send flow) */
    n->sent_pkts++;
    return 1;
}

/* The DMA length of the message packet x belongs to (the RETH's): the WQE the host posted as
 * message RM_TAG_SEQ(tag) of the flow, still in its ring (a slot is reused only after `depth`
 * later messages, and a message stays outstanding until every byte is acknowledged). */
static uint32_t fm_nic__dma_len(fm_nic *n, const rnic_work *x)
{
    const rm_host *h = &n->host;
    uint32_t seq = RM_TAG_SEQ(x->tag);
    const rnic_work *q = &h->wqe[(size_t)x->flow * h->ring + (seq % h->ring)];
    if (n->qos_on && x->flow < n->nsend) /* the QP's one transfer in flight (DONE only once every byte is acknowledged) */
        return (uint32_t)n->qh.qp[n->qos_qp[x->flow]].len;
    if (x->flow < h->nflows && q->flow == x->flow && RM_TAG_SEQ(q->tag) == seq)
        return q->len;
    n->model_errors++;
    return x->len;
}

/* The DMA takes packets from Tassel (the rate QPs) and from each transport on its own credit
 * (window, token) one at a time in turn, from a start that rotates with the cycle (a function of
 * the cycle, not of how often the node runs in it: tick-only = event), until it is full or none
 * has one: no source keeps the DMA to itself. With Tassel alone it takes Tassel's packets in
 * order, as before per-tenant protocols. */
static void fm_nic__to_dma(fm_nic *n)
{
    uint32_t sources = n->ntp + 1u, j, moved = 1;
    rnic_work x;
    while (moved && rm_pipe_space(&n->dma)) {
        moved = 0;
        for (j = 0; j < sources && rm_pipe_space(&n->dma); j++) {
            uint32_t src = (uint32_t)((n->now + j) % sources);
            fm_tp_inst *ti;
            if (src == 0) {
                if (rl_peek_tx(&n->tassel, &x) != RNIC_OK || rl_pop_tx(fm_nic__rl(n), &x) != RNIC_OK)
                    continue;
                moved = 1;
                if (fm_nic__tassel_packet(n, &x)) {
                    if (n->htx_on && hcc_tx_push_sent(fm_nic__htx(n), &x) != RNIC_OK)
                        n->model_errors++;
                    rm_pipe_push(&n->dma, &x);
                }
                continue;
            }
            ti = &n->tpi[src - 1u];
            if (n->w->kind[ti->kind].rate || tp_peek_segment(&ti->t, &x) != RNIC_OK ||
                tp_pop_segment(fm_nic__tp(n, src - 1u), &x) != RNIC_OK)
                continue;
            moved = 1;
            if (x.flow >= ti->nflows) {
                n->order_errors++;
                continue;
            }
            x.flow = ti->nic_flow[x.flow];
            if (x.flags & TP_WORK_RTX)
                n->rtx_pkts++;
            else
                fm_nic__sent_add(n, x.flow, x.len);
            n->sent_pkts++;
            rm_pipe_push(&n->dma, &x);
        }
    }
}

/* sched = qos, the requester's upper half (after the DMA): block ACKs into the engine, the
 * transports' completions (a block's every segment acknowledged) into the ACK FIFO, blocks into
 * the transports as messages, and the host core's cycle. As rnic_model --sched qos does. */
static void fm_nic__qos_requester(fm_nic *n)
{
    rnic_work x;
    rq_packet pk;
    uint32_t k;
    while (rq_qos_space_response(&n->qos) && rm_pipe_pop(&n->qos_ack, &x) == RNIC_OK) {
        rq_response r;
        r.tid = x.aux;
        r.seq = x.op;
        r.ack = 1;
        if (rq_qos_push_response(&n->qos, &r) != RNIC_OK)
            n->model_errors++;
    }
    for (k = 0; k < n->ntp; k++) {
        fm_tp_inst *ti = &n->tpi[k];
        while (tp_peek_completion(&ti->t, &x) == RNIC_OK && tp_pop_completion(fm_nic__tp(n, k), &x) == RNIC_OK) {
            rnic_work a;
            memset(&a, 0, sizeof a);
            a.flow = x.flow < ti->nflows ? ti->nic_flow[x.flow] : 0u;
            a.aux = RM_QOS_TAG_TID(x.tag);
            a.op = RM_QOS_TAG_SEQ(x.tag);
            a.len = 8;
            if (rm_pipe_push(&n->qos_ack, &a) != RNIC_OK)
                n->model_errors++;
        }
    }
    while (rq_qos_peek_block(&n->qos, &x) == RNIC_OK) {
        uint32_t local = fm_nic__qos_local(n, x.flow);
        const rm_qos_qp *p;
        rnic_work m;
        if (local >= n->nsend) {
            rq_qos_pop_block(&n->qos, &x);
            n->piece_errors++;
            continue;
        }
        if (fm_nic__room(n, local) == 0) {
            n->head_waits++; /* (never expected: at most max_outstanding blocks per QP in its queue) */
            break;
        }
        rq_qos_pop_block(&n->qos, &x);
        p = &n->qh.qp[n->qos_qp[local]];
        /* the message's number on its flow: the QP's current transfer (one in flight; a resubmitted
           one is the same message, and its blocks are retransmissions) */
        m = x;
        m.flow = n->send_idx[local];
        m.tag = RM_QOS_TAG(x.aux, RQ_WORK_SEQ(x.flags), p->msgs_posted - 1u);
        m.flags &= (1u << RQ_WORK_SEQ_SHIFT) - 1u;
        m.op = RM_OP_WRITE | (((x.flags & RQ_WORK_RETRANSMIT) || p->attempt) ? RM_OP_RETX : 0u) |
               ((x.flags & RNIC_WORK_FIRST) ? RM_OP_MSG_FIRST : 0u) | ((x.flags & RNIC_WORK_LAST) ? RM_OP_MSG_LAST : 0u);
        if (tp_push_message(fm_nic__tp(n, n->send_inst[local]), &m) != RNIC_OK)
            n->model_errors++;
        fm_nic__given_add(n, local, x.len);
        n->qos_blocks++;
    }
    while (rq_qos_pop_packet(&n->qos, &pk) == RNIC_OK)
        n->piece_errors++; /* no inline transfer and no notification is posted: none expected */
    n->qh.now = n->now;
    rm_qos_host_step(&n->qh, fm_nic__qos_done, n, &n->trace);
}

static void fm_nic__requester(fm_nic *n)
{
    rnic_work x;
    net_pkt pk;
    uint64_t backlog;
    uint32_t k;
    int look;
    while (n->htx_on && hcc_tx_peek_rate(&n->htx, &x) == RNIC_OK && hcc_tx_pop_rate(fm_nic__htx(n), &x) == RNIC_OK)
        fm_nic__write_rate(n, x.flow, x.addr);
    while (n->htx_on && net_link_space(&n->up) && hcc_tx_peek_probe(&n->htx, &x) == RNIC_OK && hcc_tx_pop_probe(fm_nic__htx(n), &x) == RNIC_OK) {
        memset(&pk, 0, sizeof pk);
        pk.w.flow = x.flow;
        pk.w.index = x.index;
        pk.w.len = FM_PROBE_LEN;
        pk.w.flags = HCC_WORK_PROBE;
        pk.src = n->h;
        pk.dst = n->w->flow[n->send_flow[x.flow]].dst;
        pk.wire_bytes = FM_PROBE_WIRE;
        n->probes_sent++;
        if (net_link_push(&n->up, &pk) != RNIC_OK)
            n->model_errors++;
    }
    while (net_link_space(&n->up) && rm_pipe_pop(&n->dma, &x) == RNIC_OK) {
        if (n->w->pcap)
            fm_tap_data(n->w, n->now, n->send_flow[x.flow], &x, fm_nic__dma_len(n, &x), 0);
        memset(&pk, 0, sizeof pk);
        pk.w = x;
        pk.src = n->h;
        pk.dst = n->w->flow[n->send_flow[x.flow]].dst;
        pk.wire_bytes = x.len + FM_WIRE_OVERHEAD;
        if (n->ncapped && x.flow < n->nsend)
            fm_nic__cap_pay(n, x.flow, x.len);
        if (net_link_push(&n->up, &pk) != RNIC_OK)
            n->model_errors++;
    }
    fm_nic__to_dma(n);
    look = n->rate_dirty;
    n->rate_dirty = 0; /* every rate written so far is seen below */
    if (n->qos_on) {
        fm_nic__qos_requester(n);
        return;
    }
    for (k = 0; k < n->ntp; k++) {
        fm_tp_inst *ti = &n->tpi[k];
        while (tp_peek_completion(&ti->t, &x) == RNIC_OK && tp_pop_completion(fm_nic__tp(n, k), &x) == RNIC_OK) {
            look = 1; /* a queue shrank */
            if ((x.op & RM_OP_MSG_LAST) && x.flow < ti->nflows)
                rm_host_completed(&n->host, ti->nic_flow[x.flow]);
        }
    }
    backlog = fm_nic__release_check(n, look);
    while (backlog < FM_NIC_BACKLOG && rq_palos_peek_piece(&n->palos, &x) == RNIC_OK) {
        if (!(x.flags & RNIC_WORK_ERROR) && x.flow < n->nsend && fm_nic__room(n, x.flow) == 0) {
            n->head_waits++; /* the QP's message queue is full: Palos's output waits (a hold came too late) */
            break;
        }
        rq_palos_pop_piece(fm_nic__palos(n), &x);
        if ((x.flags & RNIC_WORK_LAST) && rm_host_consumed(&n->host, x.flow, x.index) != 0)
            n->order_errors++;
        if (x.flags & RNIC_WORK_ERROR) {
            n->piece_errors++;
            continue;
        }
        x.op |= ((x.flags & RNIC_WORK_FIRST) ? RM_OP_MSG_FIRST : 0u) | ((x.flags & RNIC_WORK_LAST) ? RM_OP_MSG_LAST : 0u);
        x.flags = 0;
        if (x.flow >= n->nsend) {
            n->piece_errors++;
            continue;
        }
        {
            rnic_work m = x;
            m.flow = n->send_idx[x.flow];
            if (tp_push_message(fm_nic__tp(n, n->send_inst[x.flow]), &m) != RNIC_OK)
                n->model_errors++;
        }
        fm_nic__given_add(n, x.flow, x.len);
        if (n->ntp > 1u && !n->w->kind[n->tpi[n->send_inst[x.flow]].kind].rate)
            fm_nic__window_check(n, n->send_inst[x.flow]);
        else if (fm_nic__slow(n, x.flow))
            fm_nic__hold_check(n, x.flow);
        else
            backlog += x.len;
    }
    n->budget_blocked = backlog >= FM_NIC_BACKLOG && rq_palos_peek_piece(&n->palos, &x) == RNIC_OK;
    rm_host_step(&n->host, fm_nic__ring_palos, n, &n->trace);
}

/* Something can move now inside the NIC (or toward the switch). */
static int fm_nic__can_move(fm_nic *n)
{
    rnic_work x;
    net_pkt pk;
    uint32_t k;
    if (n->pause_count && n->pause_at[n->pause_head] <= n->now)
        return 1;
    /* a held QP is released (or another held) when its queue frees -- a completion, below -- or
     * its rate changes: then the requester looks again */
    if (n->nheld && n->rate_dirty)
        return 1;
    if (net_link_peek(&n->up, &pk) == RNIC_OK)
        return 1;
    if (n->hh_on) {
        if (hcc_host_peek_signal(&n->hh, &x) == RNIC_OK)
            return 1;
        if (hcc_host_peek_rx(&n->hh, &x) == RNIC_OK &&
            ((x.flags & HCC_WORK_PROBE) ? net_link_space(&n->up) != 0
                                        : tp_rx_space_segment(&n->rxi[n->recv_inst[x.flow < n->nrecv ? x.flow : 0u]].r) != 0))
            return 1;
    }
    if (n->hrx_on && (hcc_rx_sample_due(&n->hrx) <= n->now || hcc_rx_peek_action(&n->hrx, &x) == RNIC_OK))
        return 1;
    for (k = 0; k < n->nrx; k++)
        if (tp_rx_peek_delivered(&n->rxi[k].r, &x) == RNIC_OK ||
            (net_link_space(&n->up) && tp_rx_peek_ack(&n->rxi[k].r, &x) == RNIC_OK))
            return 1;
    if (n->htx_on && (hcc_tx_peek_rate(&n->htx, &x) == RNIC_OK ||
                      (net_link_space(&n->up) && hcc_tx_peek_probe(&n->htx, &x) == RNIC_OK)))
        return 1;
    if (net_link_space(&n->up) && rm_pipe_next_event(&n->dma) <= n->now)
        return 1;
    if (rm_pipe_space(&n->dma) && rl_peek_tx(&n->tassel, &x) == RNIC_OK)
        return 1;
    for (k = 0; k < n->ntp; k++)
        if (tp_peek_completion(&n->tpi[k].t, &x) == RNIC_OK ||
            (rm_pipe_space(&n->dma) && tp_peek_segment(&n->tpi[k].t, &x) == RNIC_OK))
            return 1;
    if (n->qos_on) {
        rq_packet pk2;
        uint32_t local;
        if (rq_qos_space_response(&n->qos) && rm_pipe_next_event(&n->qos_ack) <= n->now)
            return 1;
        if (rq_qos_peek_block(&n->qos, &x) == RNIC_OK &&
            ((local = fm_nic__qos_local(n, x.flow)) >= n->nsend || fm_nic__room(n, local)))
            return 1;
        return rq_qos_peek_packet(&n->qos, &pk2) == RNIC_OK || rm_qos_host_next_event(&n->qh) <= n->now;
    }
    /* a piece the fast QPs' budget keeps waits until the budget frees: bytes sent and given move
     * in the NIC's own runs, a QP turns slow or fast with its rate */
    if (rq_palos_peek_piece(&n->palos, &x) == RNIC_OK &&
        ((x.flags & RNIC_WORK_ERROR) || x.flow >= n->nsend || fm_nic__room(n, x.flow)) &&
        (!n->budget_blocked || n->rate_dirty))
        return 1;
    return rm_host_next_event(&n->host) <= n->now;
}

/* A run now would change nothing (fm_nic_run, part by part): nothing can move (fm_nic__can_move),
 * no rate register changed and no hold was refused since the requester last looked, no cap is
 * due, and no piece or block would be looked at in the scheduler's port (a run counts one that
 * waits in head_waits). Most steps are only an engine's internal event (a Tassel stage, a timer)
 * and find this: they do not run. */
static int fm_nic__idle(fm_nic *n)
{
    rnic_work x;
    if (n->rate_dirty || n->hold_retry || n->ngated || (n->ncapped && n->now >= n->cap_next))
        return 0;
    if (n->qos_on ? rq_qos_peek_block(&n->qos, &x) == RNIC_OK
                  : n->fast_unsent < FM_NIC_BACKLOG && rq_palos_peek_piece(&n->palos, &x) == RNIC_OK)
        return 0;
    return !fm_nic__can_move(n);
}

static uint64_t fm__min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Advance one engine to `target`; an engine stops early only when an output port fills, which
 * the NIC's run empties (it never holds more than the port's depth): a stop is a model error. */
#define FM_ADVANCE(now_fn, advance_fn, eng, target)                                                  \
    do {                                                                                             \
        while (now_fn(eng) < (target))                                                               \
            if (advance_fn((eng), (target)) == 0)                                                    \
                break;                                                                               \
        if (now_fn(eng) != (target)) {                                                               \
            fprintf(stderr, "rnic_model: %s stopped early at %llu (target %llu)\n", #eng,             \
                    (unsigned long long)now_fn(eng), (unsigned long long)(target));                 \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

/* ---- lazy engines ----
 * Palos, Tassel, the transports, the receivers, the host model and RHCC's sender and receiver
 * are advanced only when one of their own events is due before the cycle the NIC is brought to
 * (their next event, kept from the last next_event, is earlier), or when the NIC touches them:
 * a push, a pop, a register write, a doorbell (fm_nic__palos / _rl / _tp / _rx / _hh / _htx /
 * _hrx bring the engine to the NIC's now first). Until
 * then an engine stays at an earlier cycle with no event of its own in between, so bringing it
 * later only skips (no trace event, no record: the order of events is that of advancing every
 * engine every time), and its output ports hold what they would hold now: the NIC's peeks read
 * them as they are. The run's readers (fm_nic_settle) bring every engine to the NIC's now.
 * The host model's kept event is hcc_host_next_output, its next record or trace event: the rest
 * of its ticks (memory, CPU traffic, DDIO, IIO, credits, writes that are not a packet's last)
 * shows only in what the NIC reads through fm_nic__hh, which brings it (and ticks them then). */
static uint64_t fm_nic__lz_now(const fm_nic *n, uint32_t s)
{
    if (s == FM_LZ_HH)
        return hcc_host_now(&n->hh);
    if (s == FM_LZ_HTX)
        return hcc_tx_now(&n->htx);
    if (s == FM_LZ_HRX)
        return hcc_rx_now(&n->hrx);
    if (s == FM_LZ_PALOS)
        return rq_palos_now(&n->palos);
    if (s == FM_LZ_RL)
        return rl_now(&n->tassel);
    if (s < FM_LZ_RX(0))
        return tp_now(&n->tpi[s - FM_LZ_TP(0)].t);
    return tp_rx_now(&n->rxi[s - FM_LZ_RX(0)].r);
}

/* Advance slot s's engine to `cycle`; its kept next event no longer holds. The usual case,
 * one cycle with its kept event due now, is that event's tick: advance would first ask the
 * engine for its next event again (the contract: its skip is 0 then, and a tick is always
 * allowed). */
static void fm_nic__lz_advance(fm_nic *n, uint32_t s, uint64_t cycle)
{
    uint64_t at = n->lz_next[s];
    int tick = (n->lz_ok >> s & 1u) && cycle - 1u == at && fm_nic__lz_now(n, s) == at;
    n->lz_ok &= ~(1ull << s);
    if (tick) {
        if (s == FM_LZ_HH)
            hcc_host_tick(&n->hh);
        else if (s == FM_LZ_HTX)
            hcc_tx_tick(&n->htx);
        else if (s == FM_LZ_HRX)
            hcc_rx_tick(&n->hrx);
        else if (s == FM_LZ_PALOS)
            rq_palos_tick(&n->palos);
        else if (s == FM_LZ_RL)
            rl_tick(&n->tassel);
        else if (s < FM_LZ_RX(0))
            tp_tick(&n->tpi[s - FM_LZ_TP(0)].t);
        else
            tp_rx_tick(&n->rxi[s - FM_LZ_RX(0)].r);
        return;
    }
    if (s == FM_LZ_HH)
        FM_ADVANCE(hcc_host_now, hcc_host_advance_to, &n->hh, cycle);
    else if (s == FM_LZ_HTX)
        FM_ADVANCE(hcc_tx_now, hcc_tx_advance_to, &n->htx, cycle);
    else if (s == FM_LZ_HRX)
        FM_ADVANCE(hcc_rx_now, hcc_rx_advance_to, &n->hrx, cycle);
    else if (s == FM_LZ_PALOS)
        FM_ADVANCE(rq_palos_now, rq_palos_advance_to, &n->palos, cycle);
    else if (s == FM_LZ_RL)
        FM_ADVANCE(rl_now, rl_advance_to, &n->tassel, cycle);
    else if (s < FM_LZ_RX(0))
        FM_ADVANCE(tp_now, tp_advance_to, &n->tpi[s - FM_LZ_TP(0)].t, cycle);
    else
        FM_ADVANCE(tp_rx_now, tp_rx_advance_to, &n->rxi[s - FM_LZ_RX(0)].r, cycle);
}

/* advance_all's step for slot s: advanced when an event of its own comes before `cycle` (or
 * its next event is not known). */
static void fm_nic__lz_due(fm_nic *n, uint32_t s, uint64_t cycle)
{
    if (!(n->lz_ok >> s & 1u) || n->lz_next[s] < cycle)
        fm_nic__lz_advance(n, s, cycle);
}

/* Slot s's next event (kept until it runs or is touched): asked of the engine when not kept. */
static uint64_t fm_nic__lz_ask(fm_nic *n, uint32_t s)
{
    if (s == FM_LZ_HH)
        n->lz_next[s] = hcc_host_next_output(&n->hh);
    else if (s == FM_LZ_HTX)
        n->lz_next[s] = hcc_tx_next_event(&n->htx);
    else if (s == FM_LZ_HRX)
        n->lz_next[s] = hcc_rx_next_event(&n->hrx);
    else if (s == FM_LZ_PALOS)
        n->lz_next[s] = rq_palos_next_event(&n->palos);
    else if (s == FM_LZ_RL) {
        n->lz_next[s] = rl_next_event(&n->tassel);
        n->rl_out_ok = 0;
    } else if (s < FM_LZ_RX(0))
        n->lz_next[s] = tp_next_event(&n->tpi[s - FM_LZ_TP(0)].t);
    else
        n->lz_next[s] = tp_rx_next_event(&n->rxi[s - FM_LZ_RX(0)].r);
    n->lz_ok |= 1ull << s;
    return n->lz_next[s];
}
static inline uint64_t fm_nic__lz_next(fm_nic *n, uint32_t s)
{
    return (n->lz_ok >> s & 1u) ? n->lz_next[s] : fm_nic__lz_ask(n, s);
}

/* Tassel's next packet out (rl_next_output), asked only when its state moved since. */
static uint64_t fm_nic__rl_out(fm_nic *n)
{
    fm_nic__lz_next(n, FM_LZ_RL); /* a moved Tassel is asked again, which drops the kept bound */
    if (!n->rl_out_ok) {
        n->rl_out = rl_next_output(&n->tassel);
        n->rl_out_ok = 1;
    }
    return n->rl_out;
}

/* Slot s's engine at the NIC's now, about to be touched. */
static void fm_nic__bring(fm_nic *n, uint32_t s)
{
    if (fm_nic__lz_now(n, s) != n->now)
        fm_nic__lz_advance(n, s, n->now);
    n->lz_ok &= ~(1ull << s);
}
/* Slot s's engine at the NIC's now for a reader: no input follows, so its kept next event (or,
 * for the host model and Tassel's output, its kept bound) still holds when it lies ahead. Kept,
 * the bound is asked at the same states whether or not the run is looked at in between (a
 * queue sample settles every NIC: it changes no step of the run). */
static void fm_nic__bring_to_read(fm_nic *n, uint32_t s)
{
    uint64_t ok = n->lz_ok & (1ull << s), at = n->lz_next[s];
    if (fm_nic__lz_now(n, s) == n->now)
        return;
    fm_nic__lz_advance(n, s, n->now);
    if (ok && at >= n->now) {
        n->lz_ok |= ok;
        n->lz_next[s] = at;
    }
}
static rq_palos *fm_nic__palos(fm_nic *n)
{
    fm_nic__bring(n, FM_LZ_PALOS);
    return &n->palos;
}
static rl *fm_nic__rl(fm_nic *n)
{
    fm_nic__bring(n, FM_LZ_RL);
    return &n->tassel;
}
static tp *fm_nic__tp(fm_nic *n, uint32_t k)
{
    fm_nic__bring(n, FM_LZ_TP(k));
    return &n->tpi[k].t;
}
static tp_rx *fm_nic__rx(fm_nic *n, uint32_t k)
{
    fm_nic__bring(n, FM_LZ_RX(k));
    return &n->rxi[k].r;
}
static hcc_host *fm_nic__hh(fm_nic *n)
{
    fm_nic__bring(n, FM_LZ_HH);
    return &n->hh;
}
static hcc_tx *fm_nic__htx(fm_nic *n)
{
    fm_nic__bring(n, FM_LZ_HTX);
    return &n->htx;
}
static hcc_rx *fm_nic__hrx(fm_nic *n)
{
    fm_nic__bring(n, FM_LZ_HRX);
    return &n->hrx;
}

static void fm_nic__advance_all(fm_nic *n, uint64_t cycle);

/* The engines other than the host model, brought from a host-only stretch to the NIC's now
 * (they have no event before others_next, so they only skip: no trace event, no record). */
static void fm_nic__sync(fm_nic *n)
{
    uint64_t now = n->now;
    if (!n->lagging)
        return;
    n->lagging = 0;
    n->now = n->engines_at;
    fm_nic__advance_all(n, now);
}

/* fm_nic__sync for a reader: the engines at the NIC's now, and a host-only stretch goes on (no
 * other engine has an event before others_next), so the steps after are those without the read. */
static void fm_nic__sync_to_read(fm_nic *n)
{
    int lagging = n->lagging;
    fm_nic__sync(n);
    n->lagging = lagging;
    n->engines_at = n->now;
}

/* For the run's readers (statistics, the window, the end): every engine at the NIC's now. */
static void fm_nic_settle(fm_nic *n)
{
    uint32_t k;
    fm_nic__sync_to_read(n);
    if (!n->qos_on)
        fm_nic__bring_to_read(n, FM_LZ_PALOS);
    fm_nic__bring_to_read(n, FM_LZ_RL);
    for (k = 0; k < n->ntp; k++)
        fm_nic__bring_to_read(n, FM_LZ_TP(k));
    for (k = 0; k < n->nrx; k++)
        fm_nic__bring_to_read(n, FM_LZ_RX(k));
    if (n->hh_on)
        fm_nic__bring_to_read(n, FM_LZ_HH);
    if (n->htx_on)
        fm_nic__bring_to_read(n, FM_LZ_HTX);
    if (n->hrx_on)
        fm_nic__bring_to_read(n, FM_LZ_HRX);
}

/* fm_ext.h: the packets whose last byte left the TX MAC by `cycle` go over the outside link, each
 * with the cycle it reaches the switch. The NIC is due at each departure there (fm_nic_next_event),
 * so `cycle` is the departure's own; later would break the carrier's lookahead (counted). The
 * link's random loss is drawn here, in the packets' order as without fm_ext.h (there: at the far
 * end), and a lost packet is not sent. */
static void fm_nic__ext_departures(fm_nic *n, uint64_t cycle)
{
    fm_ext_link *x = n->w->ext;
    net_link *l = &n->up;
    while (n->ext_sent < l->stats.sent) {
        const net_link_slot *sl = net__at(l, l->arrived + l->on_wire - (uint32_t)(l->stats.sent - n->ext_sent));
        fm_frame fr;
        n->ext_sent++;
        x->late += sl->done < cycle;
        if (n->up_loss_ppm && rnic_prng_next(&n->up_prng) % 1000000u < n->up_loss_ppm) {
            n->up_drops++;
            continue;
        }
        memset(&fr, 0, sizeof fr);
        fr.p = sl->p;
        fr.at = sl->done + l->prop;
        fr.kind = FM_FRAME_DATA;
        x->send(x->user, x->nic_wire[n->h], &fr);
    }
}

static void fm_nic_advance_to(void *self, uint64_t cycle)
{
    fm_nic *n = (fm_nic *)self;
    if (n->w->observing) { /* a reader (a queue sample): nothing follows, the step caches hold */
        int lagging = n->lagging;
        fm_nic__sync(n);
        fm_nic__advance_all(n, cycle);
        n->lagging = lagging;
        n->engines_at = n->now;
        n->observed = 1;
        return;
    }
    fm_nic__sync(n);
    n->observed = 0;
    n->others_valid = 0; /* brought from outside: an input or a register may follow */
    n->still = 0;
    fm_nic__advance_all(n, cycle);
}

/* The earliest cycle at which an engine other than Tassel and the host model has an event of
 * its own (RNIC_NEVER: none): the lazy slots' kept answers and the QoS engine's. */
static inline uint64_t fm_nic__others_next(fm_nic *n)
{
    uint64_t e = n->qos_on ? rq_qos_next_event(&n->qos) : fm_nic__lz_next(n, FM_LZ_PALOS);
    uint32_t k;
    for (k = 0; k < n->ntp; k++)
        e = fm__min(e, fm_nic__lz_next(n, FM_LZ_TP(k)));
    if (n->htx_on)
        e = fm__min(e, fm_nic__lz_next(n, FM_LZ_HTX));
    if (n->hrx_on)
        e = fm__min(e, fm_nic__lz_next(n, FM_LZ_HRX));
    for (k = 0; k < n->nrx; k++)
        e = fm__min(e, fm_nic__lz_next(n, FM_LZ_RX(k)));
    return e;
}

/* ... and of any engine. */
static uint64_t fm_nic__engines_next(fm_nic *n)
{
    uint64_t e = fm__min(fm_nic__others_next(n), fm_nic__lz_next(n, FM_LZ_RL));
    return n->hh_on ? fm__min(e, fm_nic__lz_next(n, FM_LZ_HH)) : e;
}

/* Execute the engines' cycles before `cycle`, in the order of ticking every engine every cycle:
 * cycle by cycle (each cycle at which one has an event), and within a cycle the slicer, the
 * transports, RHCC's sender, Tassel (the transport's doorbells and rate changes reach Tassel in
 * the cycle they happen), the host model, RHCC's receiver, the receivers. The NIC's now stands
 * at that cycle meanwhile, so an engine touched from inside another's tick (a doorbell, a rate
 * write) is brought to the cycle of that tick. Engines with no event before `cycle` stay where
 * they are (lazy); the QoS engine (not lazy) is brought to `cycle`. */
static void fm_nic__advance_all(fm_nic *n, uint64_t cycle)
{
    uint32_t k;
    uint64_t e;
    if (cycle <= n->now)
        return;
    while ((e = fm_nic__engines_next(n)) < cycle) {
        uint64_t step = e + 1u;
        n->now = e; /* no engine has an event before e (e >= now) */
        if (n->qos_on)
            FM_ADVANCE(rq_qos_now, rq_qos_advance_to, &n->qos, step);
        else
            fm_nic__lz_due(n, FM_LZ_PALOS, step);
        for (k = 0; k < n->ntp; k++)
            fm_nic__lz_due(n, FM_LZ_TP(k), step);
        if (n->htx_on)
            fm_nic__lz_due(n, FM_LZ_HTX, step);
        fm_nic__lz_due(n, FM_LZ_RL, step);
        if (n->hh_on)
            fm_nic__lz_due(n, FM_LZ_HH, step);
        if (n->hrx_on)
            fm_nic__lz_due(n, FM_LZ_HRX, step);
        for (k = 0; k < n->nrx; k++)
            fm_nic__lz_due(n, FM_LZ_RX(k), step);
        n->now = step;
    }
    if (n->qos_on)
        FM_ADVANCE(rq_qos_now, rq_qos_advance_to, &n->qos, cycle);
    n->now = cycle;
    n->host.now = cycle;
    n->rx.now = cycle;
    rm_pipe_advance_to(&n->dma, cycle);
    net_link_advance_to(&n->up, cycle);
    if (n->w->ext)
        fm_nic__ext_departures(n, cycle);
    if (n->qos_on) {
        rm_pipe_advance_to(&n->qos_ack, cycle);
        n->qh.now = cycle;
    }
}

/* The host model has a record the NIC acts on (fm_nic__can_move's host part, without the room
 * tests: a record that cannot move yet makes the NIC run, as it did before host-only stretches). */
static int fm_nic__host_output(const fm_nic *n)
{
    rnic_work x;
    return hcc_host_peek_signal(&n->hh, &x) == RNIC_OK || hcc_host_peek_rx(&n->hh, &x) == RNIC_OK;
}

/* An engine's event at cycle e is executed when the engines are brought to e + 1 (the cycle
 * after it, where its outputs show): that is when the NIC next has something to look at. */
static uint64_t fm__after(uint64_t e) { return e == RNIC_NEVER ? RNIC_NEVER : e + 1u; }

static uint64_t fm_nic_next_event(const void *self)
{
    fm_nic *n = (fm_nic *)(uintptr_t)self; /* peeks only: nothing observable changes (the stretch cache aside) */
    uint64_t next;
    if (n->lagging) /* a host-only stretch: the others' answer stands */
        return fm_nic__host_output(n) ? n->now : fm__min(n->others_next, fm__after(fm_nic__lz_next(n, FM_LZ_HH)));
    n->others_valid = 0;
    if (!n->still && fm_nic__can_move(n))
        return n->now;
    n->still = 0;
    /* The TX MAC's queue: while it has room, a packet leaving it frees room nobody waits for
     * (whatever could use room would have moved: can_move) and only arrivals at the far end are
     * events; while it is full, the DMA's head waits for a departure, so the DMA's readiness is
     * no event and the link's departures are. */
    if (net_link_space(&n->up))
        next = fm__min(net_link_next_arrival(&n->up), rm_pipe_next_event(&n->dma));
    else
        next = net_link_next_event(&n->up);
    if (n->w->ext) /* each departure is sent in its own cycle (fm_nic__ext_departures) */
        next = fm__min(next, net_link_next_event(&n->up));
    if (n->ncapped)
        next = fm__min(next, fm__min(n->cap_next, n->ngated ? fm_nic__cap_next_wake(n) : RNIC_NEVER));
    if (n->pause_count)
        next = fm__min(next, n->pause_at[n->pause_head]);
    if (n->hrx_on)
        next = fm__min(next, hcc_rx_sample_due(&n->hrx));
    if (n->qos_on)
        next = fm__min(next, fm__min(rm_pipe_next_event(&n->qos_ack), rm_qos_host_next_event(&n->qh)));
    else
        next = fm__min(next, rm_host_next_event(&n->host));
    next = fm__min(next, fm__after(fm_nic__others_next(n)));
    /* Tassel: the NIC reads only its TX port (the rest are its own stages, executed in tick
     * order whenever the NIC next steps), so it is due when a packet can next leave */
    if (!n->hh_on)
        return fm__min(next, fm__after(fm_nic__rl_out(n)));
    /* a host-only stretch ends at any engine's event: the host model must not run ahead of
     * Tassel's stages (tick order) */
    n->others_next = fm__min(next, fm__after(fm_nic__lz_next(n, FM_LZ_RL)));
    n->others_valid = n->others_next > n->now;
    return fm__min(fm__min(next, fm__after(fm_nic__rl_out(n))), fm__after(fm_nic__lz_next(n, FM_LZ_HH)));
}

static void fm_nic_run(void *self, uint64_t t)
{
    fm_nic *n = (fm_nic *)self;
    (void)t;
    fm_nic__responder(n);
    fm_nic__to_switch(n, t);
    if (n->ncapped && n->now >= n->cap_next)
        fm_nic__cap_scale(n);
    if (n->ngated)
        fm_nic__cap_release(n);
    fm_nic__requester(n);
    fm_nic__to_switch(n, t);
}

/* The scheduler's step: before others_next, with no host record to act on, only the host model
 * ticks (a run would find nothing to do: every other part's next event is later); otherwise
 * the NIC is brought up to date and runs. The order of trace events is that of ticking every
 * engine: the others have none before others_next. */
static void fm_nic_step(void *self, uint64_t t)
{
    fm_nic *n = (fm_nic *)self;
    /* (t == now: a queue sample brought the NIC here first, fm_nic_advance_to; the step is the
     * one it would be without the sample) */
    int observed = n->observed;
    n->observed = 0;
    if (n->others_valid && t < n->others_next && (t > n->now || (t == n->now && observed))) {
        if (!n->lagging) {
            n->lagging = 1;
            n->engines_at = n->now;
        }
        fm_nic__lz_advance(n, FM_LZ_HH, t);
        n->now = t;
        if (!fm_nic__host_output(n))
            return;
    }
    fm_nic__sync(n);
    fm_nic__advance_all(n, t);
    if (fm_nic__idle(n)) {
        n->still = 1;
        return;
    }
    fm_nic_run(n, t);
}

static const fab_node_ops fm_nic_ops = { fm_nic_advance_to, fm_nic_run, fm_nic_next_event, fm_nic_step };

#endif /* RNIC_FM_NIC_H */
