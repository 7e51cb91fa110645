/* libFuzzer harness of the Palos chunk slicer (rq_palos_, rnicq.h; contract: docs/palos_model.md).
 * FUZZ_MAX_LEN 1536
 *
 * The input becomes a config (sane or hostile: an invalid one must be refused alike by
 * rq_palos_config_check, rq_palos_mem_size and rq_palos_init, and the run stops there) and then
 * a program of calls: WQEs written to the host rings (hostile lengths, addresses at the 2^64
 * edge, entries the source flags as errors, holes the source does not return), doorbells (unknown
 * flows, stale, wrapped and overrunning tails), control calls with hostile groups, weights and
 * classes, ticks, advance / advance_to, pops and peeks (NULL pointers too).
 * Two engines get the same calls: A is ticked every cycle, B is fast-forwarded with advance /
 * advance_to; everything observable (records, statistics, a digest of the trace, next_event,
 * backlog, QP positions) must be equal after every step, and before each of A's ticks whose
 * cycle next_event says is quiet, the tick must change nothing but the clock (and the stall
 * counter of a full port); a tick next_event names must change something (exact).
 * A's records and trace are checked against a model kept here from the documentation alone:
 *   - every refused call returns the documented code and bumps exactly that counter once; a
 *     call that returns RNIC_OK bumps none;
 *   - every WQE posted comes out exactly once, in order per flow: pieces contiguous from offset
 *     0, FIRST / LAST right, addresses = entry + offset, tag and op carried, or one error record
 *     with the documented status; the engine never reads an entry outside [head, posted);
 *     backlog = WQEs posted and not completed; at quiescence nothing is left;
 *   - doorbells coalesced: the doorbell module takes each ringing flow once, in the order flows
 *     first rang, with its newest tail;
 *   - shares (CHUNK mode): a backlogged QP's visit credit is exactly the carried credit (capped
 *     as documented) plus its chunk; its chunks follow Eq. 1 / Eq. 2 computed here in floating
 *     point from the weights; and between two visits of a backlogged QP every other backlogged
 *     QP of its class is visited at most once (round robin): together, bytes within a bounded
 *     distance of the weighted share;
 *   - PACKET_RR: one packet, min(MTU, rest), per visit; cut_align: cuts on segment boundaries;
 *     latency class: one message per visit;
 *   - holds (rq_palos_flow_hold, issue 30): a held flow begins no visit and emits no record; its
 *     visit ends before the next launch, carrying its credit as any visit end does, and its next
 *     visit after the release starts with exactly that credit plus its chunk; a write of the state
 *     a flow is in changes nothing (no event, no statistic); flow_state's `held` is the model's;
 *     every hold is released before the drain, which must then empty everything. */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "fuzz.h"

/* The flow control calls with the settings as arguments (rq_palos_flow_open takes a config) and
 * a flow's head and fetch offset (rq_palos_flow_state), either pointer may be NULL. */
static rnic_err open_flow(rq_palos *p, uint32_t flow, uint32_t group, uint32_t weight, uint32_t cls)
{
    rq_palos_flow_config fc;
    rq_palos_flow_config_default(&fc);
    fc.group = group;
    fc.weight = weight;
    fc.cls = cls;
    return rq_palos_flow_open(p, flow, &fc);
}

static rnic_err flow_pos(const rq_palos *p, uint32_t flow, uint32_t *head, uint32_t *off)
{
    rq_palos_flow_view st;
    rnic_err e = rq_palos_flow_state(p, flow, &st);
    if (e == RNIC_OK && head)
        *head = st.head;
    if (e == RNIC_OK && off)
        *off = st.offset;
    return e;
}

#define FP_FLOWS 8u        /* flows the model tracks (configs may have more: never assigned) */
#define FP_RING 64u        /* host ring slots per flow in the model */
#define FP_TICK_BUDGET 160u /* ticks of engine A per input, and as many to drain (speed) */
#define FP_MEM (1u << 18)

/* The harness's own checks are not what the fuzzer should steer by, and libFuzzer's comparison
 * tracing of them cost most of the run time (measured: 60 % in __sanitizer_cov_trace_*): they
 * are compiled without coverage; the engine keeps all of its instrumentation. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define FP_NOCOV __attribute__((no_sanitize("coverage")))
#endif
#endif
#ifndef FP_NOCOV
#define FP_NOCOV
#endif

typedef struct fp_entry {
    rnic_work w;
    uint32_t index;
    uint8_t present; /* 0: a hole, the source returns nothing */
} fp_entry;

typedef struct fp_flow {
    fp_entry ring[FP_RING];
    uint32_t written;      /* entries [0, written) are written or holes */
    uint32_t posted;       /* newest accepted doorbell */
    uint32_t applied;      /* tail the doorbell module applied */
    uint32_t e_idx, e_off; /* emission cursor (trace OUT of engine A) */
    uint32_t p_idx, p_off; /* pop cursor (records popped from A) */
    uint32_t group, weight, cls; /* model of the weights table; group RNIC_NONE: unassigned */
    uint8_t db_pending;
    uint8_t ever_latency;
    uint8_t held;          /* rq_palos_flow_hold's register, as written */
    uint8_t carry_kept;    /* parked by a hold with `carried` valid: the next visit starts from it */
    /* the current (or paused) visit of this flow */
    uint8_t in_visit, visit_latency;
    uint32_t visit_msgs;   /* WQEs completed (non-error) in this visit */
    int64_t visit_credit;  /* credit at its start (trace a) */
    uint32_t visit_small;  /* its chunk (trace b) */
    int64_t visit_charged; /* charge of its pieces */
    /* a run of visits while the QP stayed backlogged (no control change since) */
    uint8_t streak;
    uint64_t streak_visits, streak_chunks;
    uint64_t streak_start_serial, last_serial, prev_serial;
    int64_t carried;       /* credit the model says the engine carries after the last visit */
} fp_flow;

typedef struct fp_group {
    uint32_t weight; /* 0: no group */
} fp_group;

typedef struct fp_engine {
    rq_palos p;
    uint64_t digest, events;
    struct fp_harness *h;
    int is_ref;
} fp_engine;

typedef struct fp_harness {
    rq_palos_config cfg;
    fp_engine a, b;
    fp_flow flow[FP_FLOWS];
    fp_group group[FP_FLOWS];
    uint32_t nflows;          /* flows the model may assign: min(max_flows, FP_FLOWS) */
    uint32_t db_fifo[FP_FLOWS], db_head, db_count; /* flows waiting for the doorbell module */
    uint64_t refusals;        /* calls refused (counted) */
    uint64_t error_records;   /* error records popped from A */
    uint64_t ticks;           /* ticks of A */
    uint64_t visit_serial;
    uint32_t pushes_this_tick;
    uint64_t last_pop_cycle;
    int have_pop;
    uint64_t tag_next;
    uint64_t holds, releases; /* hold writes that changed the register */
    uint32_t hold_events;     /* RQ_PALOS_TRACE_HOLD events of A */
} fp_harness;

static unsigned char fp_mem_a[FP_MEM] __attribute__((aligned(64)));
static unsigned char fp_mem_b[FP_MEM] __attribute__((aligned(64)));
static fp_harness H;

/* ---- the host's rings (the source both engines read) ---- */

static const fp_entry *fp_lookup(const fp_harness *h, uint32_t flow, uint32_t index)
{
    const fp_entry *e;
    if (flow >= FP_FLOWS)
        return NULL;
    e = &h->flow[flow].ring[index % FP_RING];
    return e->present && e->index == index && index - h->flow[flow].p_idx < FP_RING ? e : NULL;
}

FP_NOCOV static uint32_t fp_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    fp_engine *x = (fp_engine *)user;
    fp_harness *h = x->h;
    const fp_entry *e;
    FZ_CHECK(max >= 1u && out != NULL);
    FZ_CHECK(flow < h->nflows);
    if (x->is_ref) { /* A reads only entries posted and not yet completed */
        const fp_flow *f = &h->flow[flow];
        FZ_CHECK(index - f->e_idx < f->posted - f->e_idx);
    }
    e = fp_lookup(h, flow, index);
    if (!e)
        return 0;
    *out = e->w;
    return 1;
}

/* A valid WQE (docs/palos_model.md: length 1 .. 2^31, last local and remote byte <= 2^64 - 1). */
FP_NOCOV static int fp_wqe_ok(const rnic_work *w)
{
    return w->len >= 1u && w->len <= 0x80000000u && (uint64_t)w->len - 1u <= UINT64_MAX - w->addr &&
           (uint64_t)w->len - 1u <= UINT64_MAX - w->raddr;
}

/* The status of an error record for the entry at (flow, index) (ERANGE also for the latency limit). */
FP_NOCOV static rnic_err fp_entry_error(const fp_entry *e)
{
    if (!e)
        return RNIC_ENOENT;
    if (e->w.flags & RNIC_WORK_ERROR)
        return e->w.status > 0 && e->w.status < (int32_t)RNIC_ERR__COUNT ? (rnic_err)e->w.status : RNIC_EINVAL;
    if (!fp_wqe_ok(&e->w))
        return RNIC_ERANGE;
    return RNIC_OK;
}

FP_NOCOV static uint32_t fp_charge(const fp_harness *h, uint32_t len, int latency)
{
    uint32_t ovh = latency ? 0u : h->cfg.packet_overhead, mtu = h->cfg.weights.mtu;
    return len + ovh * (len / mtu + (len % mtu != 0u));
}

/* ---- Eq. 1 / Eq. 2 in floating point, from the model's weights ---- */

FP_NOCOV static double fp_exact_chunk(const fp_harness *h, uint32_t flow)
{
    const fp_flow *f = &h->flow[flow];
    double sum_gw = 0, sum_w = 0, n = 0;
    uint32_t g, k;
    int members[FP_FLOWS] = { 0 };
    for (k = 0; k < h->nflows; k++)
        if (h->flow[k].group != RNIC_NONE) {
            members[h->flow[k].group]++;
            n += h->cfg.weights.mtu;
            if (h->flow[k].group == f->group)
                sum_w += h->flow[k].weight;
        }
    for (g = 0; g < FP_FLOWS; g++)
        if (members[g])
            sum_gw += h->group[g].weight;
    return (double)h->group[f->group].weight / sum_gw * ((double)f->weight / sum_w) * n;
}

FP_NOCOV static void fp_reset_streaks(fp_harness *h)
{
    uint32_t k;
    for (k = 0; k < FP_FLOWS; k++)
        h->flow[k].streak = 0;
}

/* ---- trace: engine A's events drive the model; both engines fold theirs into a digest ---- */

FP_NOCOV static void fp_trace(void *user, const rnic_trace_event *ev)
{
    fp_engine *x = (fp_engine *)user;
    fp_harness *h = x->h;
    fp_flow *f;
    uint64_t v[4];
    uint32_t k;
    v[0] = ev->cycle;
    v[1] = ((uint64_t)ev->engine << 48) | ((uint64_t)ev->kind << 32) | ev->id;
    v[2] = ev->a;
    v[3] = ev->b;
    for (k = 0; k < 4u; k++) /* FNV-1a over the event's fields */
        x->digest = (x->digest ^ v[k]) * 0x100000001b3ull;
    x->events++;
    if (!x->is_ref)
        return;
    FZ_CHECK(ev->engine == RNIC_ENGINE_PALOS && ev->cycle == x->p.now);
    switch (ev->kind) {
    case RNIC_TRACE_PUSH: /* the doorbell module took a flow: FIFO order, newest tail, once */
        FZ_CHECK(h->pushes_this_tick++ == 0u);
        FZ_CHECK(h->db_count > 0u && h->db_fifo[h->db_head] == ev->id);
        f = &h->flow[ev->id];
        FZ_CHECK(f->db_pending && ev->a == f->posted && ev->b == (uint32_t)(f->posted - f->applied));
        f->applied = f->posted;
        f->db_pending = 0;
        h->db_head = (h->db_head + 1u) % FP_FLOWS;
        h->db_count--;
        break;
    case RQ_PALOS_TRACE_VISIT_START: {
        uint64_t serial = ++h->visit_serial;
        int latency = h->cfg.mode == RQ_PALOS_CHUNK && ev->id < FP_FLOWS && h->flow[ev->id].cls == RQ_PALOS_LATENCY;
        FZ_CHECK(ev->id < h->nflows);
        f = &h->flow[ev->id];
        FZ_CHECK(!f->in_visit); /* one visit of a QP at a time (active or paused) */
        FZ_CHECK(!f->held);     /* a held QP's visit does not begin */
        if (f->carry_kept && !f->streak && h->cfg.mode == RQ_PALOS_CHUNK && !latency) {
            /* the first visit after a hold: the credit its last visit's end carried, plus the chunk */
            int64_t want = f->carried + (int64_t)ev->b;
            if (want > (int64_t)0x80000000)
                want = (int64_t)0x80000000;
            FZ_CHECK((int64_t)ev->a == want);
        }
        f->carry_kept = 0;
        f->in_visit = 1;
        f->visit_latency = (uint8_t)latency;
        f->visit_msgs = 0;
        f->visit_credit = (int64_t)ev->a;
        f->visit_small = (uint32_t)ev->b;
        f->visit_charged = 0;
        if (!latency) { /* the bandwidth class (every QP in PACKET_RR): one round-robin FIFO */
            if (f->streak) {
                if (h->cfg.mode == RQ_PALOS_CHUNK) {
                    /* deficit round robin: the carried credit (as the model computed it) plus the chunk */
                    int64_t want = f->carried + (int64_t)ev->b;
                    if (want > (int64_t)0x80000000)
                        want = (int64_t)0x80000000;
                    FZ_CHECK((int64_t)ev->a == want);
                }
                /* round robin: between this QP's last visit and this one, every QP backlogged
                 * since before that visit was visited at most once */
                for (k = 0; k < h->nflows; k++) {
                    const fp_flow *o = &h->flow[k];
                    if (k != ev->id && o->streak && o->streak_start_serial < f->last_serial)
                        FZ_CHECK(o->prev_serial < f->last_serial || o->streak_visits < 2u);
                }
            } else {
                f->streak = 1;
                f->streak_visits = 0;
                f->streak_chunks = 0;
                f->streak_start_serial = serial;
            }
            f->streak_visits++;
            f->streak_chunks += ev->b;
            if (h->cfg.mode == RQ_PALOS_CHUNK) { /* the chunks follow Eq. 1 / Eq. 2 (the fraction of a
                 byte is carried, the granularity is Q32.32, held at 2^-32 at least) */
                double exact = fp_exact_chunk(h, ev->id) * (double)f->streak_visits;
                double tol = 2.0 + (double)f->streak_visits * ((double)f->weight * 2.0 / 4294967296.0) + exact * 1e-9;
                double got = (double)f->streak_chunks;
                FZ_CHECK(got <= exact + tol && got >= exact - tol);
            }
            f->prev_serial = f->last_serial;
            f->last_serial = serial;
        } else
            f->streak = 0;
        break;
    }
    case RQ_PALOS_TRACE_VISIT_END: {
        int64_t left, cap;
        FZ_CHECK(ev->id < h->nflows);
        f = &h->flow[ev->id];
        FZ_CHECK(f->in_visit);
        f->in_visit = 0;
        f->carry_kept = 0; /* set again below when a hold parks it with WQEs */
        left = f->visit_credit - f->visit_charged;
        if (h->cfg.mode == RQ_PALOS_CHUNK && !f->visit_latency) {
            /* every piece starts with credit above 0 and costs at most the credit, or is a WQE no
             * larger than the chunk sent whole: the visit overdraws by less than that one's charge */
            FZ_CHECK(f->visit_charged == 0 || left >= 0 || left > -(int64_t)fp_charge(h, f->visit_small, 0));
            /* carried: the rest, capped at one chunk plus one packet (plus a segment with cut_align) */
            cap = (int64_t)f->visit_small + h->cfg.weights.mtu + h->cfg.packet_overhead;
            if (h->cfg.cut_align) {
                uint32_t seg = h->cfg.cut_align;
                cap += (int64_t)fp_charge(h, seg, 0) + h->cfg.packet_overhead;
            }
            f->carried = left < cap ? left : cap;
            if (f->held && f->applied != f->e_idx) { /* parked by a hold with WQEs: carried as if backlogged */
                FZ_CHECK((int64_t)ev->a == f->carried);
                f->carry_kept = 1;
            } else if (x->p.qps[ev->id].where != 0u) /* still backlogged: exactly that is carried */
                FZ_CHECK((int64_t)ev->a == f->carried);
            else /* emptied: a deficit is kept, a surplus dropped */
                FZ_CHECK((int64_t)ev->a == (left < 0 ? left : 0));
        }
        if (x->p.qps[ev->id].where == 0u) /* idle (emptied): the backlogged run ends */
            f->streak = 0;
        if (f->visit_latency)
            FZ_CHECK(f->visit_msgs <= 1u); /* §IV-C: one message per latency visit */
        if (h->cfg.mode == RQ_PALOS_PACKET_RR)
            FZ_CHECK(f->visit_msgs <= 1u);
        break;
    }
    case RNIC_TRACE_OUT: { /* the contract's layout: a = the WQE's index, b = the piece's len */
        uint32_t off, len = (uint32_t)ev->b;
        const fp_entry *e;
        rnic_err want;
        FZ_CHECK(ev->id < h->nflows);
        f = &h->flow[ev->id];
        FZ_CHECK(f->in_visit);
        FZ_CHECK(!f->held); /* no record of a held QP after the hold was written */
        FZ_CHECK(f->e_idx != f->posted);     /* something posted is left */
        FZ_CHECK(ev->a == f->e_idx);         /* in order: the WQE the model expects next */
        off = f->e_off;                      /* contiguous (the records' offsets are checked at the pop) */
        e = fp_lookup(h, ev->id, f->e_idx);
        want = fp_entry_error(e);
        if (want == RNIC_OK && f->visit_latency && off == 0u && e->w.len > h->cfg.priority_max_msg)
            want = RNIC_ERANGE; /* above the latency class's largest message */
        if (want != RNIC_OK) {
            FZ_CHECK(len == 0u);
        } else {
            FZ_CHECK(len >= 1u && len <= e->w.len - off);
            if (h->cfg.mode == RQ_PALOS_CHUNK)
                f->visit_charged += fp_charge(h, len, f->visit_latency);
        }
        if (len == 0u || off + len == e->w.len) {
            f->e_idx++;
            f->e_off = 0;
            if (len)
                f->visit_msgs++;
        } else
            f->e_off = off + len;
        break;
    }
    case RQ_PALOS_TRACE_HOLD: /* only a write that changes the register; b = WQEs posted, not sliced */
        FZ_CHECK(ev->id < h->nflows);
        f = &h->flow[ev->id];
        FZ_CHECK(ev->a == f->held && ev->b == (uint32_t)(f->posted - f->e_idx));
        h->hold_events++;
        break;
    case RQ_PALOS_TRACE_PARK: /* only a held QP is parked, and not in a visit */
        FZ_CHECK(ev->id < h->nflows && h->flow[ev->id].held && ev->b == (uint32_t)(h->flow[ev->id].posted - h->flow[ev->id].e_idx));
        break;
    case RNIC_TRACE_REFUSE:
        break;
    default:
        break;
    }
}

/* ---- the refused-call check ---- */

/* Both engines got the same call: the same answer, the predicted one, and exactly its counter. */
FP_NOCOV static void fp_answer(fp_harness *h, rnic_err ra, rnic_err rb, rnic_err want, const rnic_err_stats *before)
{
    const rnic_err_stats *now = &rq_palos_get_stats(&h->a.p)->errors;
    FZ_CHECK(ra == rb);
    FZ_CHECK(ra == want);
    FZ_CHECK_COUNTED(before, now, ra);
    if (ra != RNIC_OK)
        h->refusals++;
}

/* ---- comparing the two engines ---- */

FP_NOCOV static void fp_same(fp_harness *h)
{
    const rq_palos *a = &h->a.p, *b = &h->b.p;
    uint64_t outstanding = 0;
    uint32_t k, ha, oa, hb, ob;
    FZ_CHECK(rq_palos_now(a) == rq_palos_now(b));
    FZ_CHECK(memcmp(rq_palos_get_stats(a), rq_palos_get_stats(b), sizeof(rq_palos_stats)) == 0);
    FZ_CHECK(h->a.digest == h->b.digest && h->a.events == h->b.events);
    FZ_CHECK(rq_palos_next_event(a) == rq_palos_next_event(b));
    FZ_CHECK(rq_palos_backlog(a) == rq_palos_backlog(b));
    for (k = 0; k < h->nflows; k++) {
        const fp_flow *f = &h->flow[k];
        FZ_CHECK(flow_pos(a, k, &ha, &oa) == RNIC_OK);
        FZ_CHECK(flow_pos(b, k, &hb, &ob) == RNIC_OK);
        FZ_CHECK(ha == hb && oa == ob);
        /* the QP table's head and fetch offset are the emitted records' (written back per launch) */
        FZ_CHECK(ha == f->e_idx && oa == f->e_off);
        outstanding += f->posted - f->e_idx;
        {
            rq_palos_flow_view va, vb;
            FZ_CHECK(rq_palos_flow_state(a, k, &va) == RNIC_OK && rq_palos_flow_state(b, k, &vb) == RNIC_OK);
            FZ_CHECK(va.held == f->held && vb.held == f->held);
        }
    }
    FZ_CHECK(rq_palos_get_stats(a)->holds == h->holds && rq_palos_get_stats(a)->releases == h->releases);
    /* backlog: WQEs posted and not sliced to their end (model: posted minus emitted ends) */
    FZ_CHECK(rq_palos_backlog(a) == outstanding);
    /* every counted error is a refused call or an error record */
    FZ_CHECK(rnic_err_total(&rq_palos_get_stats(a)->errors) == h->refusals + rq_palos_get_stats(a)->bad_wqes);
}

/* ---- one tick of A, checked against next_event ---- */

/* Event cycle x is not before y, both seen from cycle `now` (RNIC_NEVER latest; wrap-safe). */
FP_NOCOV static int fp_not_earlier(uint64_t x, uint64_t y, uint64_t now)
{
    if (x == RNIC_NEVER)
        return 1;
    if (y == RNIC_NEVER) /* near the wrap RNIC_NEVER may have been an event due at 2^64 - 1 */
        return now > UINT64_MAX - ((uint64_t)1 << 40);
    return x - now >= y - now;
}

FP_NOCOV static void fp_tick_a(fp_harness *h)
{
    rq_palos *a = &h->a.p;
    uint64_t now = rq_palos_now(a), next = rq_palos_next_event(a), ev0 = h->a.events;
    rq_palos_stats before = *rq_palos_get_stats(a), after;
    FZ_CHECK(next == RNIC_NEVER || next - now < ((uint64_t)1 << 63)); /* never in the past */
    h->pushes_this_tick = 0;
    rq_palos_tick(a);
    h->ticks++;
    after = *rq_palos_get_stats(a);
    FZ_CHECK(rq_palos_now(a) == now + 1u && after.cycles == before.cycles + 1u);
    if (now == RNIC_NEVER) {
        /* at now = 2^64 - 1 a due event and RNIC_NEVER read alike (documented): no claim */
    } else if (next != now) {
        /* quiet cycle: nothing but the clock and the stall counter of a full port moves */
        FZ_CHECK(h->a.events == ev0);
        FZ_CHECK(after.out_stalls - before.out_stalls <= 1u);
        after.cycles = before.cycles;
        after.out_stalls = before.out_stalls;
        FZ_CHECK(memcmp(&before, &after, sizeof before) == 0);
        /* without input the next event never comes earlier (it may prove later: a visit's next
         * batch named while the port is full, which then blocks it, reads RNIC_NEVER after) */
        FZ_CHECK(fp_not_earlier(rq_palos_next_event(a), next, now + 1u));
    } else
        FZ_CHECK(h->a.events != ev0); /* exact: a tick it names does something */
}

/* Run both engines `n` cycles: A ticked, B by advance (or advance_to). */
FP_NOCOV static void fp_run(fp_harness *h, uint64_t n, int use_to)
{
    rq_palos *b = &h->b.p;
    uint64_t i, ran = 0, target = rq_palos_now(b) + n;
    for (i = 0; i < n; i++)
        fp_tick_a(h);
    while (ran < n) {
        uint64_t r = use_to ? rq_palos_advance_to(b, target) : rq_palos_advance(b, n - ran);
        FZ_CHECK(r <= n - ran);
        if (r < n - ran) /* stopped early: only right after the tick that filled the port */
            FZ_CHECK(b->launch_count == b->cfg.piece_depth && r >= 1u);
        if (r == 0u)
            break;
        ran += r;
    }
    FZ_CHECK(ran == n);
    fp_same(h);
}

/* ---- pops ---- */

FP_NOCOV static void fp_check_record(fp_harness *h, const rnic_work *w)
{
    fp_flow *f;
    const fp_entry *e;
    rnic_err want;
    FZ_CHECK(w->flow < h->nflows);
    f = &h->flow[w->flow];
    FZ_CHECK(w->index == f->p_idx && w->offset == f->p_off);
    FZ_CHECK(!h->have_pop || w->cycle - h->last_pop_cycle < ((uint64_t)1 << 63)); /* in cycle order */
    h->have_pop = 1;
    h->last_pop_cycle = w->cycle;
    e = fp_lookup(h, w->flow, w->index);
    want = fp_entry_error(e);
    FZ_CHECK(((w->flags & RNIC_WORK_FIRST) != 0u) == (w->offset == 0u));
    FZ_CHECK((w->flags & ~(uint32_t)(RNIC_WORK_FIRST | RNIC_WORK_LAST | RNIC_WORK_ERROR | RQ_PALOS_VISIT_END)) == 0u);
    if (w->flags & RNIC_WORK_ERROR) {
        /* a refused WQE: one record, len 0, LAST, the documented status (ERANGE for the latency
         * class's limit on an entry otherwise valid, after a class change at some point) */
        FZ_CHECK(w->len == 0u && (w->flags & RNIC_WORK_LAST));
        if (want == RNIC_OK)
            FZ_CHECK(w->status == (int32_t)RNIC_ERANGE && f->ever_latency && w->offset == 0u &&
                     e->w.len > h->cfg.priority_max_msg);
        else
            FZ_CHECK(w->status == (int32_t)want);
        if (e) {
            FZ_CHECK(w->tag == e->w.tag && w->op == e->w.op);
            FZ_CHECK(w->addr == e->w.addr + w->offset && w->raddr == e->w.raddr + w->offset);
        }
#ifdef FP_VERBOSE
        fprintf(stderr, "error record flow %u index %u status %d\n", w->flow, w->index, w->status);
#endif
        f->p_idx++;
        f->p_off = 0;
        h->error_records++;
        return;
    }
    FZ_CHECK(want == RNIC_OK && e != NULL);
    FZ_CHECK(w->status == 0 && w->len >= 1u && w->len <= e->w.len - w->offset);
    FZ_CHECK(w->tag == e->w.tag && w->op == e->w.op);
    FZ_CHECK(w->addr == e->w.addr + w->offset && w->raddr == e->w.raddr + w->offset);
    FZ_CHECK(((w->flags & RNIC_WORK_LAST) != 0u) == (w->offset + w->len == e->w.len));
    if (h->cfg.mode == RQ_PALOS_PACKET_RR) { /* one packet: min(MTU, rest of the WQE) */
        uint32_t rest = e->w.len - w->offset;
        FZ_CHECK(w->len == (rest < h->cfg.weights.mtu ? rest : h->cfg.weights.mtu));
    } else if (h->cfg.cut_align && !f->ever_latency && !(w->flags & RNIC_WORK_LAST))
        FZ_CHECK((w->offset + w->len) % h->cfg.cut_align == 0u); /* a cut on a segment boundary */
    if (w->flags & RNIC_WORK_LAST) {
        f->p_idx++;
        f->p_off = 0;
    } else
        f->p_off += w->len;
}

FP_NOCOV static void fp_pop(fp_harness *h, int peek_first)
{
    rnic_work wa, wb;
    rnic_err ra, rb;
    if (peek_first) {
        ra = rq_palos_peek_piece(&h->a.p, &wa);
        rb = rq_palos_peek_piece(&h->b.p, &wb);
        FZ_CHECK(ra == rb);
        if (ra == RNIC_OK)
            FZ_CHECK(memcmp(&wa, &wb, sizeof wa) == 0);
        else
            FZ_CHECK(ra == RNIC_EEMPTY);
    }
    ra = rq_palos_pop_piece(&h->a.p, &wa);
    rb = rq_palos_pop_piece(&h->b.p, &wb);
    FZ_CHECK(ra == rb);
    if (ra == RNIC_OK) {
        FZ_CHECK(memcmp(&wa, &wb, sizeof wa) == 0);
        fp_check_record(h, &wa);
    } else
        FZ_CHECK(ra == RNIC_EEMPTY);
    fp_same(h);
}

/* ---- config ---- */

FP_NOCOV static uint64_t fp_val(fz_in *in, int hostile, uint64_t lo, uint64_t hi)
{
    return hostile ? fz_hostile(in, lo, hi) : lo + fz_below(in, (uint32_t)(hi - lo + 1u));
}

/* The documented ranges (palos_api.h, palos_weights.h), written here independently. */
FP_NOCOV static int fp_config_valid(const rq_palos_config *c)
{
    uint64_t fetch = rnic_ns_to_cycles(c->fetch_latency_ns, c->clock_hz);
    if (c->weights.max_flows < 1u || c->weights.max_flows > 65536u || c->weights.max_groups < 1u ||
        c->weights.max_groups > 4096u || c->weights.mtu < 64u || c->weights.mtu > 65536u ||
        (uint64_t)c->weights.max_flows * c->weights.mtu > ((uint64_t)1 << 30))
        return 0;
    if (c->mode > 1u || c->ring_entries < 1u || c->ring_entries > (1u << 24) || c->piece_depth < 1u ||
        c->piece_depth > (1u << 20) || c->fetch_slots < 1u || c->fetch_slots > 4096u)
        return 0;
    if (c->clock_hz < 1000000u || c->clock_hz > 100000000000u || fetch > (1u << 20))
        return 0;
    if (c->max_batch < 1u || c->max_batch > 4096u || c->launch_wqes < 1u || c->launch_wqes > 4096u ||
        (uint64_t)c->piece_depth * c->launch_wqes > (1u << 20))
        return 0;
    if (c->priority_max_msg < 1u || c->priority_max_msg > (1u << 30) || c->packet_overhead > 4096u ||
        c->cut_align > (1u << 24) || !c->source)
        return 0;
    return 1;
}

/* Returns 0 when the run stops (invalid config refused as documented, or too large). */
FP_NOCOV static int fp_setup(fp_harness *h, fz_in *in)
{
    rq_palos_config *c = &h->cfg;
    const char *field = NULL;
    size_t need;
    int hostile = (fz_u8(in) & 7u) == 0u; /* 1 in 8 inputs: every field may be extreme */
    rnic_err e;
    rq_palos_config_default(c);
    c->weights.max_flows = (uint32_t)fp_val(in, hostile, 1, FP_FLOWS);
    c->weights.max_groups = (uint32_t)fp_val(in, hostile, 1, FP_FLOWS);
    c->weights.mtu = (uint32_t)fp_val(in, hostile, 64, 2048);
    c->mode = (uint32_t)fp_val(in, hostile, 0, 1);
    c->ring_entries = (uint32_t)fp_val(in, hostile, 1, FP_RING);
    c->piece_depth = (uint32_t)fp_val(in, hostile, 1, 4);
    c->fetch_slots = (uint32_t)fp_val(in, hostile, 1, 4);
    c->fetch_latency_ns = (uint32_t)fp_val(in, hostile, 0, 40);
    c->max_batch = (uint32_t)fp_val(in, hostile, 1, 8);
    c->launch_wqes = (uint32_t)fp_val(in, hostile, 1, 8);
    c->priority_max_msg = (uint32_t)fp_val(in, hostile, 1, 8192);
    c->packet_overhead = (fz_u8(in) & 1u) ? (uint32_t)fp_val(in, hostile, 0, 128) : 0u;
    c->cut_align = (fz_u8(in) & 3u) == 0u ? (uint32_t)fp_val(in, hostile, 1, 4096) : 0u;
    c->clock_hz = hostile ? fz_hostile(in, 1000000u, 100000000000u) : 250000000u;
    c->start_cycle = (fz_u8(in) & 3u) == 0u ? UINT64_MAX - fz_below(in, 4096) : fz_u16(in);
    c->source = fp_source;
    c->source_user = &h->a;
    c->trace = fp_trace;
    c->trace_user = &h->a;
    if ((fz_u8(in) & 15u) == 0u)
        c->source = NULL; /* init needs a source */
    e = rq_palos_config_check(c, &field);
    need = rq_palos_mem_size(c);
    if (!fp_config_valid(c)) {
        /* refused alike by the three, with the offending field named; mem_size sizes a config
         * whatever its callbacks, so only a config invalid beyond its source reads 0 */
        rq_palos_config with_source = *c;
        with_source.source = fp_source;
        FZ_CHECK(e == RNIC_EINVAL && field != NULL);
        FZ_CHECK((need == 0u) == !fp_config_valid(&with_source));
        FZ_CHECK(rq_palos_init(&h->a.p, c, fp_mem_a, FP_MEM) == RNIC_EINVAL);
        return 0;
    }
    FZ_CHECK(e == RNIC_OK && need > 0u);
    if (need > FP_MEM) { /* a valid config too large for the harness: init must say ENOSPC */
        FZ_CHECK(rq_palos_init(&h->a.p, c, fp_mem_a, FP_MEM) == RNIC_ENOSPC);
        return 0;
    }
    FZ_CHECK(rq_palos_init(&h->a.p, c, fp_mem_a, need - 1u) == RNIC_ENOSPC);
    FZ_CHECK(rq_palos_init(&h->a.p, c, fp_mem_a, need) == RNIC_OK);
    c->source_user = &h->b;
    c->trace_user = &h->b;
    FZ_CHECK(rq_palos_init(&h->b.p, c, fp_mem_b, need) == RNIC_OK);
    c->source_user = &h->a;
    c->trace_user = &h->a;
    h->nflows = c->weights.max_flows < FP_FLOWS ? c->weights.max_flows : FP_FLOWS;
    return 1;
}

/* ---- the program ---- */

FP_NOCOV static uint32_t fp_pick_flow(const fp_harness *h, fz_in *in)
{
    return (uint32_t)fz_hostile(in, 0, h->nflows); /* nflows itself: unassigned or beyond max_flows */
}

FP_NOCOV static void fp_write_wqes(fp_harness *h, fz_in *in)
{
    uint32_t flow = fz_below(in, h->nflows), n = 1u + fz_below(in, 4), k;
    fp_flow *f = &h->flow[flow];
    for (k = 0; k < n && f->written - f->p_idx < FP_RING; k++) {
        fp_entry *e = &f->ring[f->written % FP_RING];
        uint8_t kind = fz_u8(in);
        uint32_t mtu = h->cfg.weights.mtu;
        memset(e, 0, sizeof *e);
        e->index = f->written++;
        e->present = (kind & 31u) != 31u; /* a hole now and then: the source returns nothing */
        e->w.len = (uint32_t)fz_hostile(in, 1, (kind & 1u) ? 3u * mtu : 128u);
        e->w.addr = (kind & 6u) == 6u ? UINT64_MAX - fz_below(in, 3u * mtu) : (uint64_t)fz_u32(in) << 8;
        e->w.raddr = (kind & 24u) == 24u ? UINT64_MAX - fz_below(in, 3u * mtu) : fz_u32(in);
        e->w.tag = ++h->tag_next * 0x9e3779b97f4a7c15ull;
        e->w.op = fz_u8(in);
        e->w.index = 0xdeadbeefu; /* the engine must use its own counter */
        e->w.flags = (kind & 0xe0u) == 0xe0u ? RNIC_WORK_ERROR : 0u;
        e->w.status = (int32_t)(int8_t)fz_u8(in);
    }
}

FP_NOCOV static void fp_doorbell(fp_harness *h, fz_in *in)
{
    uint32_t flow = fp_pick_flow(h, in), tail;
    rnic_err want, ra, rb;
    rnic_err_stats before = rq_palos_get_stats(&h->a.p)->errors;
    fp_flow *f = flow < FP_FLOWS ? &h->flow[flow] : NULL;
    uint8_t how = fz_u8(in);
    uint32_t posted = f ? f->posted : 0u, head = f ? f->e_idx : 0u;
    if (f && (how & 3u) != 0u && f->written - posted < 0x80000000u && f->written != posted)
        tail = f->written; /* post what was written */
    else
        tail = posted + (uint32_t)fz_hostile(in, 1, 8); /* 0, wrapped, beyond the ring ... */
    if (flow >= h->nflows || !f || f->group == RNIC_NONE)
        want = RNIC_ENOENT;
    else if (tail == posted || tail - posted > 0x80000000u)
        want = RNIC_ESTALE;
    else if (tail - head > h->cfg.ring_entries)
        want = RNIC_ENOSPC;
    else
        want = RNIC_OK;
    ra = rq_palos_doorbell(&h->a.p, flow, tail);
    rb = rq_palos_doorbell(&h->b.p, flow, tail);
    fp_answer(h, ra, rb, want, &before);
    if (ra == RNIC_OK) {
        /* entries posted before they were written are holes for good */
        if (tail - f->written < 0x80000000u) /* (their slots hold other indices: lookups fail) */
            f->written = tail;
        f->posted = tail;
        if (!f->db_pending) {
            f->db_pending = 1;
            h->db_fifo[(h->db_head + h->db_count) % FP_FLOWS] = flow;
            h->db_count++;
        }
    }
}

FP_NOCOV static void fp_control(fp_harness *h, fz_in *in)
{
    uint8_t what = fz_u8(in) % 4u;
    rnic_err want, ra, rb;
    rnic_err_stats before = rq_palos_get_stats(&h->a.p)->errors;
    uint32_t group = (uint32_t)fz_hostile(in, 0, h->cfg.weights.max_groups < FP_FLOWS ? h->cfg.weights.max_groups : FP_FLOWS);
    uint32_t weight = (uint32_t)fz_hostile(in, 1, (fz_u8(in) & 1u) ? 8u : 65535u);
    uint32_t flow = fp_pick_flow(h, in);
    uint32_t cls = (uint32_t)fz_hostile(in, 0, 1);
    int known_group = group < h->cfg.weights.max_groups && group < FP_FLOWS && h->group[group].weight != 0u;
    if (group >= FP_FLOWS && group < h->cfg.weights.max_groups)
        return; /* a group the model does not track */
    if (flow >= FP_FLOWS && flow < h->cfg.weights.max_flows)
        return; /* a QP the model does not track */
    switch (what) {
    case 0:
        want = group >= h->cfg.weights.max_groups ? RNIC_ENOENT
               : (weight < 1u || weight > 65535u) ? RNIC_ERANGE
               : known_group ? RNIC_EEXIST : RNIC_OK;
        ra = rq_palos_create_group(&h->a.p, group, weight);
        rb = rq_palos_create_group(&h->b.p, group, weight);
        fp_answer(h, ra, rb, want, &before);
        if (ra == RNIC_OK)
            h->group[group].weight = weight;
        break;
    case 1:
        want = !known_group ? RNIC_ENOENT : (weight < 1u || weight > 65535u) ? RNIC_ERANGE : RNIC_OK;
        ra = rq_palos_set_group_weight(&h->a.p, group, weight);
        rb = rq_palos_set_group_weight(&h->b.p, group, weight);
        fp_answer(h, ra, rb, want, &before);
        if (ra == RNIC_OK) {
            h->group[group].weight = weight;
            fp_reset_streaks(h);
        }
        break;
    case 2:
        want = cls > 1u ? RNIC_EINVAL
               : (flow >= h->cfg.weights.max_flows || !known_group) ? RNIC_ENOENT
               : (weight < 1u || weight > 65535u) ? RNIC_ERANGE : RNIC_OK;
        ra = open_flow(&h->a.p, flow, group, weight, cls);
        rb = open_flow(&h->b.p, flow, group, weight, cls);
        fp_answer(h, ra, rb, want, &before);
        if (ra == RNIC_OK) {
            h->flow[flow].group = group;
            h->flow[flow].weight = weight;
            h->flow[flow].cls = cls;
            if (cls == RQ_PALOS_LATENCY)
                h->flow[flow].ever_latency = 1;
            fp_reset_streaks(h);
        }
        break;
    default: {
        const fp_flow *f = flow < FP_FLOWS ? &h->flow[flow] : NULL;
        /* only an idle QP with nothing posted; all emitted and nothing in a doorbell means idle */
        want = (flow >= h->cfg.weights.max_flows || !f || f->group == RNIC_NONE) ? RNIC_ENOENT
               : (f->posted != f->e_idx || f->db_pending) ? RNIC_ESTATE : RNIC_OK;
        ra = rq_palos_flow_close(&h->a.p, flow);
        rb = rq_palos_flow_close(&h->b.p, flow);
        fp_answer(h, ra, rb, want, &before);
        if (ra == RNIC_OK) {
            h->flow[flow].group = RNIC_NONE;
            h->flow[flow].held = 0; /* closing clears the hold */
            h->flow[flow].carry_kept = 0;
            fp_reset_streaks(h);
        }
        break;
    }
    }
}

/* A hold or release (issue 30): unknown flows refused and counted; a write of the state a flow is
 * in changes nothing; a hold ends the QP's backlogged run (round robin and DRR checks restart,
 * the carried credit is checked at its next visit instead). */
FP_NOCOV static void fp_hold(fp_harness *h, fz_in *in, bool hold)
{
    uint32_t flow = fp_pick_flow(h, in);
    rnic_err_stats before = rq_palos_get_stats(&h->a.p)->errors;
    fp_flow *f = flow < FP_FLOWS ? &h->flow[flow] : NULL;
    uint32_t ev0 = h->hold_events;
    int change;
    rnic_err want, ra, rb;
    if (flow >= FP_FLOWS && flow < h->cfg.weights.max_flows)
        return; /* a QP the model does not track */
    want = (flow >= h->nflows || !f || f->group == RNIC_NONE) ? RNIC_ENOENT : RNIC_OK;
    change = want == RNIC_OK && f->held != (uint8_t)hold;
    if (change) { /* the model's register first: the trace event reads it */
        f->held = (uint8_t)hold;
        if (hold) {
            h->holds++;
            f->carry_kept = f->streak; /* backlogged: `carried` is the credit it keeps */
            f->streak = 0;
        } else
            h->releases++;
    }
    ra = rq_palos_flow_hold(&h->a.p, flow, hold);
    rb = rq_palos_flow_hold(&h->b.p, flow, hold);
    fp_answer(h, ra, rb, want, &before);
    FZ_CHECK(h->hold_events == ev0 + (uint32_t)change);
}

FP_NOCOV static void fp_null_calls(fp_harness *h, fz_in *in)
{
    rnic_err_stats before = rq_palos_get_stats(&h->a.p)->errors;
    rnic_err ra, rb;
    if (fz_u8(in) & 1u) {
        ra = rq_palos_pop_piece(&h->a.p, NULL);
        rb = rq_palos_pop_piece(&h->b.p, NULL);
    } else {
        ra = rq_palos_peek_piece(&h->a.p, NULL);
        rb = rq_palos_peek_piece(&h->b.p, NULL);
    }
    fp_answer(h, ra, rb, RNIC_EINVAL, &before);
    /* a NULL engine is refused and changes nothing */
    FZ_CHECK(rq_palos_doorbell(NULL, 0, 1) == RNIC_EINVAL && rq_palos_next_event(NULL) == RNIC_NEVER);
}

/* After the program: run until quiet, popping everything; then nothing posted may be left. */
FP_NOCOV static void fp_drain(fp_harness *h)
{
    uint32_t rounds, q;
    for (q = 0; q < h->nflows; q++) /* every hold released: then everything drains */
        if (h->flow[q].held) {
            h->flow[q].held = 0;
            h->releases++;
            FZ_CHECK(rq_palos_flow_hold(&h->a.p, q, false) == RNIC_OK && rq_palos_flow_hold(&h->b.p, q, false) == RNIC_OK);
        }
    fp_same(h);
    for (rounds = 0; rounds < 200u && h->ticks < 2u * FP_TICK_BUDGET; rounds++) {
        uint64_t next = rq_palos_next_event(&h->a.p), gap;
        rnic_work w;
        while (rq_palos_peek_piece(&h->a.p, &w) == RNIC_OK)
            fp_pop(h, 0);
        next = rq_palos_next_event(&h->a.p);
        if (next == RNIC_NEVER && UINT64_MAX - rq_palos_now(&h->a.p) <= (uint64_t)h->a.p.fetch_latency + 2u) {
            /* an event due at 2^64 - 1 reads RNIC_NEVER (documented): run past the wrap first */
            fp_run(h, UINT64_MAX - rq_palos_now(&h->a.p) + 1u, rounds & 1u);
            continue;
        }
        if (next == RNIC_NEVER) {
            uint32_t k;
            /* quiet with an empty port: every WQE posted came out exactly once */
            for (k = 0; k < h->nflows; k++)
                FZ_CHECK(h->flow[k].p_idx == h->flow[k].posted && h->flow[k].p_off == 0u);
            FZ_CHECK(rq_palos_backlog(&h->a.p) == 0u && h->db_count == 0u);
            FZ_CHECK(h->error_records == rq_palos_get_stats(&h->a.p)->bad_wqes);
            return;
        }
        gap = next - rq_palos_now(&h->a.p) + 1u;
        fp_run(h, gap < 64u ? gap : 64u, rounds & 1u);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fp_harness *h = &H;
    fz_in in;
    uint32_t k, steps = 0;
    memset(h, 0, sizeof *h);
    h->a.h = h;
    h->a.is_ref = 1;
    h->b.h = h;
    h->a.digest = h->b.digest = 0xcbf29ce484222325ull;
    for (k = 0; k < FP_FLOWS; k++)
        h->flow[k].group = RNIC_NONE;
    fz_init(&in, data, size);
    if (!fp_setup(h, &in))
        return 0;
    fp_same(h);
    while (fz_more(&in) && steps++ < 400u && h->ticks < FP_TICK_BUDGET) {
        uint8_t op = fz_u8(&in);
        if (op >= 240u) { /* holds and releases (the rest of the byte keeps the older meanings) */
            fp_hold(h, &in, (op & 1u) != 0u);
            fp_same(h);
            continue;
        }
        switch (op % 10u) {
        case 0: fp_write_wqes(h, &in); break;
        case 1: case 2: fp_doorbell(h, &in); break;
        case 3: fp_control(h, &in); break;
        case 4: fp_run(h, 1u + fz_below(&in, 8), 0); break;
        case 5: { /* hostile lengths, bounded: engine A ticks every cycle */
            uint64_t n = fz_hostile(&in, 1, 64);
            fp_run(h, n > 256u ? 1u + n % 256u : n, op & 0x10u);
            break;
        }
        case 6: case 7: {
            uint32_t n = 1u + fz_below(&in, 8);
            while (n--)
                fp_pop(h, op & 0x10u);
            break;
        }
        case 8: fp_null_calls(h, &in); break;
        default: { /* a burst: write and ring a flow */
            fp_write_wqes(h, &in);
            fp_doorbell(h, &in);
            break;
        }
        }
        fp_same(h);
    }
    if (h->ticks < FP_TICK_BUDGET)
        fp_drain(h);
#ifdef FP_VERBOSE /* what a seed reached (tests/fuzz/gen/palos_seeds.py) */
    {
        const rq_palos_stats *st = rq_palos_get_stats(&h->a.p);
        fprintf(stderr, "ticks %llu visits %llu prio %llu out %llu cut %llu combined %llu refetch %llu preempt %llu "
                "stalls %llu bad %llu refused %llu backlog %llu\n", (unsigned long long)h->ticks,
                (unsigned long long)st->visits, (unsigned long long)st->priority_visits,
                (unsigned long long)st->out_wqes, (unsigned long long)st->cut_wqes,
                (unsigned long long)st->combined_visits, (unsigned long long)st->refetches,
                (unsigned long long)st->preemptions, (unsigned long long)st->out_stalls,
                (unsigned long long)st->bad_wqes, (unsigned long long)h->refusals,
                (unsigned long long)rq_palos_backlog(&h->a.p));
    }
#endif
    return 0;
}
