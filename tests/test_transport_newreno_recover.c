/* NewReno's recover rule after a timeout (issue 31, part 2): the engine (tp, whole, at its public
 * API) beside a small RFC sender written from the RFCs, on one closed loop with the drop list
 * {14..21, 25} (ns-2's NewReno test list: eight losses in a row and one more in the same window).
 *
 * The loop (one tick = one segment time on the data link, as the Fig. 3 set-up at 10 Gb/s with
 * 1,000 B segments): one sender, a link of one segment per tick with a one-way delay of D ticks,
 * the first transmission of each listed segment lost, a receiver that sends one cumulative ACK
 * per arriving segment (duplicates too) after D ticks. The RTO is RTO_TICKS: short enough that
 * the timer, restarted on the first partial ACK only (RFC 6582 3.2 step 3, "Impatient"), expires
 * while partial ACKs are still repairing the run of losses -- the case where the rule matters.
 * The engine runs K cycles per tick; each ACK is pushed and its hook has run before the next.
 *
 * The reference (struct rfc) is RFC 5681 (slow start, congestion avoidance eq. 3, fast
 * retransmit / recovery with ssthresh from FlightSize eq. 4), RFC 3042 (limited transmit on the
 * first two duplicate ACKs, not counted in FlightSize), RFC 6582 3.2 (recover; the third
 * duplicate ACK's check; partial ACKs retransmit the next hole, deflate, add one segment back,
 * restart the timer on the first only; full ACK: cwnd = ssthresh; after a timeout recover =
 * the highest segment sent) and RFC 6298 (timer start, restart on new data, backoff doubling).
 * After a timeout it goes back N (the sender RFC 6582 section 4 describes) and, until the ACK
 * reaches recover, ignores duplicate ACKs (section 4: they are no sign of a new loss). recover
 * is kept as one past the highest segment sent, so "covers more than recover" is ack > recover.
 *
 * Counted for both: fast retransmits, partial ACKs, timeouts, retransmissions, and the tick the
 * last segment is acknowledged. The counts must agree; the finish ticks need not: during fast
 * recovery the engine keeps ns-3's window (cwnd = ssthresh, dup-acked segments counted out of
 * the flight, a partial ACK un-counting the head) where RFC 6582 inflates cwnd, so it lets fewer
 * new segments out before the timeout and sends the rest after it. Both are printed. */
#define TP_IMPLEMENTATION
#include "transport.h"
#include "test.h"

#define NSEG 60u          /* segments in the transfer */
#define D 6u              /* one-way delay, ticks: RTT 12 segment times (10 us at 10 Gb/s, 1,000 B) */
#define RTO_TICKS 53u     /* a little over four round trips of the loss episode (RTT ~12 ticks) */
#define K 32u             /* engine cycles per tick */
#define HZ 100000000ull   /* engine clock: a tick is K / HZ s */
#define SEG 1000u
#define LIMIT 20000u      /* ticks */
#define QN 4096u

static const uint32_t drops[] = {14, 15, 16, 17, 18, 19, 20, 21, 25};

typedef struct counts {
    uint32_t fast_rtx, partial, timeouts, rtx;
    uint64_t finish;      /* tick the last segment was acknowledged (LIMIT: never) */
    uint32_t fr_at_recover; /* fast retransmits after a timeout with the ACK exactly at recover */
    uint32_t timeouts_seen; /* engine: timeouts so far (read before each ACK) */
} counts;

/* ---------------- the reference sender, from the RFCs ---------------- */

typedef struct rfc {
    uint32_t una, nxt, max; /* first unacked; next to send (pulled back by a timeout); one past the highest sent */
    uint32_t cwnd, ssthresh, recover; /* bytes, bytes, segment (exclusive) */
    int recover_set, in_fr, after_rto, partial_seen;
    uint32_t dupacks, lt;  /* duplicate ACKs; segments sent by limited transmit this episode */
    uint64_t rto, deadline;
    int running;
    counts n;
} rfc;

static void rfc_init(rfc *r)
{
    memset(r, 0, sizeof *r);
    r->cwnd = 10u * SEG;           /* ns-3's and the engine's initial window (RFC 5681 allows up to 4; the loop uses 10) */
    r->ssthresh = UINT32_MAX;      /* "arbitrarily high" (RFC 5681 3.1) */
    r->rto = RTO_TICKS;
}

static void rfc_send(rfc *r, uint64_t now, uint32_t *out, uint32_t *nout, uint32_t s)
{
    if (s < r->max)
        r->n.rtx++;
    if (s + 1u > r->max)
        r->max = s + 1u;
    if (!r->running) /* RFC 6298 5.1 */
        r->running = 1, r->deadline = now + r->rto;
    out[(*nout)++] = s;
}

/* Send what the window allows: RFC 5681's rule (outstanding + one segment <= cwnd), new data or,
 * after a timeout, the go-back-N pointer. */
static void rfc_output(rfc *r, uint64_t now, uint32_t *out, uint32_t *nout)
{
    while (r->nxt < NSEG && (uint64_t)(r->nxt - r->una + 1u) * SEG <= r->cwnd) {
        rfc_send(r, now, out, nout, r->nxt);
        r->nxt++;
    }
}

static void rfc_ack(rfc *r, uint32_t ack, uint64_t now, uint32_t *out, uint32_t *nout)
{
    *nout = 0;
    if (ack < r->una || ack > r->max)
        return;
    if (ack == r->una) {
        if (r->una == r->max) /* nothing outstanding: not a duplicate (RFC 5681 2) */
            return;
        if (r->in_fr) { /* RFC 5681 3.2 step 4: inflate */
            r->cwnd += SEG;
            rfc_output(r, now, out, nout);
            return;
        }
        if (r->after_rto) /* RFC 6582 4: duplicates of a go-back-N, not a new loss */
            return;
        r->dupacks++;
        if (r->dupacks < 3u) { /* RFC 3042: one new segment each, beyond cwnd */
            if (r->nxt < NSEG && r->nxt == r->max && (uint64_t)(r->nxt - r->una) * SEG <= (uint64_t)r->cwnd + 2u * SEG) {
                rfc_send(r, now, out, nout, r->nxt);
                r->nxt++;
                r->lt++;
            }
            return;
        }
        if (r->dupacks == 3u) {
            int covers = !r->recover_set || ack > r->recover; /* "covers more than recover" */
            uint32_t flight;
            if (!covers) /* RFC 6582 3.2 step 2: no fast retransmit, ssthresh kept */
                return;
            if (r->recover_set && ack == r->recover)
                r->n.fr_at_recover++;
            r->recover = r->max; /* step 2: the highest segment sent (one past it here) */
            r->recover_set = 1;
            flight = (r->max - r->una - r->lt) * SEG; /* RFC 5681 eq. 4, without limited transmit */
            r->ssthresh = flight / 2u > 2u * SEG ? flight / 2u : 2u * SEG;
            r->n.fast_rtx++;
            rfc_send(r, now, out, nout, r->una); /* step 3 */
            r->cwnd = r->ssthresh + 3u * SEG;
            r->in_fr = 1, r->partial_seen = 0;
            rfc_output(r, now, out, nout);
        }
        return;
    }
    /* new data acknowledged */
    {
        uint32_t acked = ack - r->una;
        r->una = ack;
        if (r->nxt < ack)
            r->nxt = ack;
        r->dupacks = 0, r->lt = 0;
        if (r->in_fr) {
            if (ack >= r->recover) { /* RFC 6582 3.2 step 3, full ACK: cwnd = ssthresh, exit */
                r->cwnd = r->ssthresh;
                r->in_fr = 0;
                r->running = 1, r->deadline = now + (r->rto = RTO_TICKS); /* RFC 6298 5.3 */
            } else { /* partial ACK */
                r->n.partial++;
                rfc_send(r, now, out, nout, r->una);
                r->cwnd = r->cwnd > acked * SEG ? r->cwnd - acked * SEG : 0u;
                r->cwnd += SEG; /* acked at least one segment */
                if (!r->partial_seen) /* the first only (Impatient) */
                    r->running = 1, r->deadline = now + (r->rto = RTO_TICKS);
                r->partial_seen = 1;
            }
        } else {
            if (r->after_rto && ack >= r->recover)
                r->after_rto = 0;
            if (r->cwnd < r->ssthresh) /* RFC 5681 eq. 2 with N >= SMSS */
                r->cwnd += SEG;
            else /* eq. 3 */
                r->cwnd += SEG * SEG / r->cwnd ? SEG * SEG / r->cwnd : 1u;
            r->running = 1, r->deadline = now + (r->rto = RTO_TICKS);
        }
        if (r->una == r->max) /* RFC 6298 5.2 */
            r->running = 0;
        rfc_output(r, now, out, nout);
    }
}

static void rfc_timer(rfc *r, uint64_t now, uint32_t *out, uint32_t *nout)
{
    uint32_t flight = (r->max - r->una) * SEG;
    *nout = 0;
    if (!r->running || r->deadline > now)
        return;
    r->n.timeouts++;
    r->ssthresh = flight / 2u > 2u * SEG ? flight / 2u : 2u * SEG; /* RFC 5681 eq. 4 */
    r->cwnd = SEG;                                                 /* LW */
    r->recover = r->max, r->recover_set = 1;                       /* RFC 6582 3.2 step 4 */
    r->in_fr = 0, r->after_rto = 1, r->dupacks = 0, r->lt = 0;
    r->nxt = r->una;                                               /* go back N */
    r->rto *= 2u;                                                  /* RFC 6298 5.5 */
    r->running = 1, r->deadline = now + r->rto;                    /* 5.6 */
    rfc_output(r, now, out, nout);
}

/* ---------------- the engine ---------------- */

typedef struct eng {
    tp t;
    void *mem;
    uint32_t rule;
    uint64_t rtx_before;
    counts n;
} eng;

static int eng_init(eng *e, uint32_t rule)
{
    tp_config c;
    tp_flow_config fp;
    rnic_work m;
    size_t need;
    memset(e, 0, sizeof *e);
    e->rule = rule;
    tp_config_default(&c);
    c.clock_hz = HZ;
    c.max_flows = 1;
    c.protocol = tp_protocol_newreno();
    need = tp_mem_size(&c);
    e->mem = malloc(need + RNIC_MEM_ALIGN);
    if (!e->mem || tp_init(&e->t, &c, (void *)(((uintptr_t)e->mem + RNIC_MEM_ALIGN - 1u) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u)), need) != RNIC_OK)
        return 0;
    tp_flow_config_default(&fp);
    fp.seg_size = SEG;
    fp.init_wnd = 10;
    fp.rto_ns = (uint64_t)RTO_TICKS * K * (1000000000ull / HZ);
    fp.param[3] = rule;
    if (tp_flow_open(&e->t, 0, &fp) != RNIC_OK)
        return 0;
    memset(&m, 0, sizeof m);
    m.flow = 0, m.len = NSEG * SEG;
    return tp_push_message(&e->t, &m) == RNIC_OK;
}

static tp_tcp_ctx eng_ctx(const eng *e, uint32_t *wnd_start)
{
    tp_flow_view v;
    tp_tcp_ctx c;
    memset(&c, 0, sizeof c);
    if (tp_flow_state(&e->t, 0, &v) == RNIC_OK) {
        memcpy(&c, v.ctx, sizeof c);
        *wnd_start = v.wnd_start;
    }
    return c;
}

static void eng_pop(eng *e, uint32_t *out, uint32_t *nout)
{
    rnic_work w;
    while (*nout < 4096u && tp_pop_segment(&e->t, &w) == RNIC_OK)
        out[(*nout)++] = w.index;
}

/* An ACK at the start of tick `now`: pushed, its fixed stage and hook run (4 cycles). */
static void eng_ack(eng *e, uint32_t ack, uint32_t *out, uint32_t *nout)
{
    rnic_work a;
    uint32_t ws0 = 0, ws1 = 0, i;
    tp_tcp_ctx c0 = eng_ctx(e, &ws0), c1;
    e->n.timeouts_seen = (uint32_t)tp_get_stats(&e->t)->timeouts;
    memset(&a, 0, sizeof a);
    a.flow = 0, a.index = ack, a.flags = TP_WORK_PKT(TP_PKT_ACK);
    CHECK(tp_push_incoming(&e->t, &a) == RNIC_OK);
    for (i = 0; i < 4u; i++) {
        tp_tick(&e->t);
        eng_pop(e, out, nout);
    }
    c1 = eng_ctx(e, &ws1);
    if (c1.state == TP_TCP_RECOVERY && c0.state != TP_TCP_RECOVERY) {
        e->n.fast_rtx++;
        if (e->n.timeouts_seen && ws1 == c0.recover) /* the ACK just at the recover of the timeout */
            e->n.fr_at_recover++;
    }
    if (c0.state == TP_TCP_RECOVERY && c1.state == TP_TCP_RECOVERY && ws1 != ws0)
        e->n.partial++;
}

/* ---------------- the loop ---------------- */

typedef struct loop {
    uint64_t link_free;
    struct { uint64_t t; uint32_t s; } dq[QN];
    struct { uint64_t t; uint32_t ack; } aq[QN];
    uint32_t dh, dt, ah, at;
    unsigned char sent_once[NSEG], rcvd[NSEG];
    uint32_t cum;
} loop;

static loop L;

static void loop_emit(const uint32_t *out, uint32_t nout, uint64_t now)
{
    uint32_t i, j;
    for (i = 0; i < nout; i++) {
        uint32_t s = out[i];
        int drop = 0;
        uint64_t dep = L.link_free > now ? L.link_free : now;
        L.link_free = dep + 1u;
        if (s < NSEG && !L.sent_once[s]) {
            L.sent_once[s] = 1;
            for (j = 0; j < sizeof drops / sizeof drops[0]; j++)
                drop |= drops[j] == s;
        }
        if (drop)
            continue;
        L.dq[L.dt % QN].t = dep + D, L.dq[L.dt % QN].s = s;
        L.dt++;
    }
}

static void loop_receive(uint64_t now)
{
    while (L.dh != L.dt && L.dq[L.dh % QN].t <= now) {
        uint32_t s = L.dq[L.dh++ % QN].s;
        if (s < NSEG)
            L.rcvd[s] = 1;
        while (L.cum < NSEG && L.rcvd[L.cum])
            L.cum++;
        L.aq[L.at % QN].t = now + D, L.aq[L.at % QN].ack = L.cum;
        L.at++;
    }
}

/* Runs the reference (r) or the engine (e) over the loop; returns its counts. In each tick: the
 * ACKs due, then the timer (the engine: the rest of its K cycles), then the receiver; what the
 * sender sends in a tick enters the link in that tick. */
static counts run(rfc *r, eng *e)
{
    static uint32_t out[4096];
    uint32_t nout = 0;
    uint64_t now;
    counts c;
    memset(&L, 0, sizeof L);
    if (r)
        rfc_output(r, 0, out, &nout);
    loop_emit(out, nout, 0);
    for (now = 0; now < LIMIT; now++) {
        uint32_t una = 0;
        while (L.ah != L.at && L.aq[L.ah % QN].t <= now) {
            uint32_t a = L.aq[L.ah++ % QN].ack;
            nout = 0;
            if (r)
                rfc_ack(r, a, now, out, &nout);
            else
                eng_ack(e, a, out, &nout);
            loop_emit(out, nout, now);
        }
        nout = 0;
        if (r) {
            rfc_timer(r, now, out, &nout);
            una = r->una;
        } else {
            while (tp_now(&e->t) < K * (now + 1u)) {
                tp_tick(&e->t);
                eng_pop(e, out, &nout);
            }
            (void)eng_ctx(e, &una);
        }
        loop_emit(out, nout, now);
        loop_receive(now);
        if (una == NSEG)
            break;
    }
    c = r ? r->n : e->n;
    c.finish = now;
    if (e) {
        c.timeouts = (uint32_t)tp_get_stats(&e->t)->timeouts;
        c.rtx = (uint32_t)tp_get_stats(&e->t)->segments_rtx;
    }
    return c;
}

static void print(const char *who, uint32_t rule, const counts *c)
{
    printf("RESULT sender=%s rule=%s drops=14-21,25 fast_retransmits=%u partial_acks=%u timeouts=%u retransmissions=%u "
           "fr_at_recover=%u finish_ticks=%" PRIu64 "\n",
           who, rule == TP_NEWRENO_RECOVER_RFC6582 ? "rfc6582" : "ns3", c->fast_rtx, c->partial, c->timeouts, c->rtx,
           c->fr_at_recover, c->finish);
}

static counts run_ref(void)
{
    static rfc r;
    counts c;
    rfc_init(&r);
    c = run(&r, NULL);
    print("reference", TP_NEWRENO_RECOVER_RFC6582, &c);
    return c;
}

static counts run_engine(uint32_t rule)
{
    static eng e;
    counts c;
    memset(&c, 0, sizeof c);
    CHECK(eng_init(&e, rule));
    if (TEST_FAILS() == 0)
        c = run(NULL, &e);
    print("engine", rule, &c);
    free(e.mem);
    return c;
}

/* RFC 6582's rule: one recovery with the timeout in it; the duplicates the go-back-N produces at
 * ack == recover start no second fast retransmit. The reference's counts are RFC 6582's on this
 * list (1 / 5 / 1 / 15, the figures); the engine's must be the same. */
static void test_rfc6582_rule(void)
{
    counts ref = run_ref(), got = run_engine(TP_NEWRENO_RECOVER_RFC6582);
    CHECK_EQ(ref.fast_rtx, 1);
    CHECK_EQ(ref.partial, 5);
    CHECK_EQ(ref.timeouts, 1);
    CHECK_EQ(ref.rtx, 15);
    CHECK_EQ(got.fast_rtx, ref.fast_rtx);
    CHECK_EQ(got.partial, ref.partial);
    CHECK_EQ(got.timeouts, ref.timeouts);
    CHECK_EQ(got.rtx, ref.rtx);
    CHECK_EQ(got.fr_at_recover, 0);
    CHECK(got.finish < LIMIT && ref.finish < LIMIT);
}

/* ns-3's rule (the default, Tonic's too): the same recovery and timeout, then the duplicates at
 * ack == recover start a second fast retransmit and more partial ACKs (ns-3's behaviour, which
 * the Fig. 3 comparison against ns-3 checks; tests/test_transport_protocols.c checks the hook
 * step by step against an ns-3 reference). */
static void test_ns3_rule(void)
{
    counts rfc_rule = run_engine(TP_NEWRENO_RECOVER_RFC6582), got = run_engine(TP_NEWRENO_RECOVER_NS3);
    CHECK_EQ(got.timeouts, 1);
    CHECK_EQ(got.fr_at_recover, 1);
    CHECK_EQ(got.fast_rtx, rfc_rule.fast_rtx + got.fr_at_recover);
    CHECK(got.partial > rfc_rule.partial);
    CHECK(got.rtx > rfc_rule.rtx);
    CHECK(got.finish < LIMIT);
}

/* param[3] out of range: refused, counted, the flow stays closed; the default is ns-3's. */
static void test_param_check(void)
{
    tp_config c;
    tp_flow_config fp;
    static tp t;
    void *mem;
    size_t need;
    uint64_t before;
    tp_flow_view v;
    tp_config_default(&c);
    c.max_flows = 2;
    c.protocol = tp_protocol_newreno();
    need = tp_mem_size(&c);
    mem = malloc(need + RNIC_MEM_ALIGN);
    CHECK(mem && tp_init(&t, &c, (void *)(((uintptr_t)mem + RNIC_MEM_ALIGN - 1u) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u)), need) == RNIC_OK);
    tp_flow_config_default(&fp);
    CHECK_EQ(fp.param[3], TP_NEWRENO_RECOVER_NS3);
    fp.param[3] = 2;
    before = tp_get_stats(&t)->errors.by_cause[RNIC_EINVAL];
    CHECK_EQ(tp_flow_open(&t, 0, &fp), RNIC_EINVAL);
    CHECK_EQ(tp_get_stats(&t)->errors.by_cause[RNIC_EINVAL], before + 1u);
    CHECK(tp_flow_state(&t, 0, &v) != RNIC_OK || !v.open);
    fp.param[3] = TP_NEWRENO_RECOVER_RFC6582;
    CHECK_EQ(tp_flow_open(&t, 0, &fp), RNIC_OK);
    free(mem);
    /* Reno ignores param[3] */
    c.protocol = tp_protocol_reno();
    need = tp_mem_size(&c);
    mem = malloc(need + RNIC_MEM_ALIGN);
    CHECK(mem && tp_init(&t, &c, (void *)(((uintptr_t)mem + RNIC_MEM_ALIGN - 1u) & ~(uintptr_t)(RNIC_MEM_ALIGN - 1u)), need) == RNIC_OK);
    fp.param[3] = 7;
    CHECK_EQ(tp_flow_open(&t, 1, &fp), RNIC_OK);
    free(mem);
}

int main(void)
{
    RUN(test_rfc6582_rule);
    RUN(test_ns3_rule);
    RUN(test_param_check);
    return test_summary();
}
