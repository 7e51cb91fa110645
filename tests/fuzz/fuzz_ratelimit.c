/* libFuzzer harness for Tassel (ratelimit.h, rl_). FUZZ_MAX_LEN 512
 *
 * The input is decoded into a config (small sizes, hostile values mixed in) and then a program
 * of API calls: WQEs posted to the flows' sources (zero, oversized and error-marked entries
 * among them), doorbells, rate and credit writes (unknown flows, zero and absurd rates),
 * ticks, advances, pops and peeks (NULL records too). Two identically configured engines get
 * the same program: A ticks every cycle, B jumps with rl_advance / rl_advance_to. After every
 * step the harness checks, against its own model of the flows (never against the engine's
 * counters alone):
 *   - refused calls: the right code, the matching errors.by_cause counter bumped by one and
 *     nothing else in the statistics changed; calls that return RNIC_OK bump no error counter;
 *     rate writes outside [min_rate, link] are clamped and counted in rate_clamped, not refused;
 *   - conservation: every packet out of the TX port is the next piece of its flow's WQEs in
 *     order (index, offset, len = min(mtu, rest), addr/raddr + offset, tag/op carried, FIRST /
 *     LAST), a bad WQE leaves as one ERROR record with its status; at the end every posted WQE
 *     has left exactly once (the engine is drained with every flow at the link rate);
 *   - rate: from a flow's activation (a doorbell on an idle flow) the bytes it sent before its
 *     latest packet, each charged at its rate, never exceed the cycles elapsed: WF2Q+ lets a
 *     packet leave only when its virtual start <= the system time, and the system time runs at
 *     most one cycle per cycle (slower under oversubscription). That is "rate x time plus one
 *     packet"; the catch-up a flow may make after waiting (docs/tassel_model.md: a flow behind
 *     its schedule keeps what it is owed) is inside it, a burst beyond it is not. Around a rate
 *     write the smaller of the two rates is charged (the write applies within max_flows
 *     cycles and re-charges the last packet sent at the new rate);
 *   - rate 0 pauses: nothing of the flow leaves from max_flows cycles after the write;
 *   - fast-forward: A and B agree on everything observable (records, statistics, a digest of
 *     every trace event) whenever the program looks, and a tick of A taken while
 *     rl_next_event(A) > now changes nothing observable (no trace event, no record, no
 *     counter beyond the cycle count and the waiting counters that rl_advance also adds);
 *   - rl_next_output: no record reaches A's TX port before the bound read when the stretch
 *     since the last input, pop or record began. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "fuzz.h"

__extension__ typedef unsigned __int128 fr_u128;

#define FR_FLOWS 6u      /* flows of a run (max_flows above it: only the config is checked) */
#define FR_RING 16u      /* WQEs a flow's source holds */
#define FR_BUDGET 256u   /* cycles A ticks per input, beyond them the program only posts and pops */
#define FR_DRAIN_PACKETS 256u /* the final drain runs when at most this many packets are left */
#define FR_MEM_WORDS 16384u

typedef struct fr_flow {
    rnic_work wqe[FR_RING]; /* the source: entry i of the flow is wqe[i % FR_RING] */
    uint32_t tail;          /* entries posted */
    uint32_t exp_index, exp_offset; /* the next piece expected on the TX port */
    /* rate model */
    uint64_t bps;           /* rate register as the harness clamps it (last non-zero one) */
    fr_u128 cpb;            /* cycles per byte at bps, Q32.32, rounded down as the engine does */
    fr_u128 amb_cpb;        /* smallest cpb charged until amb_until (a write may not have applied) */
    uint64_t amb_until;
    int amb;
    uint64_t c0;            /* window start: the doorbell that activated the flow */
    int window;             /* a window is open */
    fr_u128 spend;          /* bytes sent in the window before the last packet, x their cpb */
    fr_u128 last_charge;    /* the last packet's charge (re-charged at a lower rate on a write) */
    uint32_t last_len;
    int paused;             /* the rate register is 0 ... */
    uint64_t paused_at;     /* ... since this call cycle */
    uint64_t packets, bytes; /* data records seen */
} fr_flow;

typedef struct fr_state {
    rl_config cfg;
    rl a, b;
    uint64_t digest_a, digest_b, events_a;
    fr_flow flow[FR_FLOWS];
    uint64_t refused[RNIC_ERR__COUNT]; /* refusals the harness caused, by code */
    uint64_t error_records[RNIC_ERR__COUNT];
    uint64_t clamped;
    uint64_t data_packets, data_bytes;
    uint64_t ticked;                   /* cycles A ticked */
    uint64_t promise;                  /* rl_next_event(A) when the quiet stretch began ... */
    int promised;                      /* ... valid (no input since) */
    uint64_t out_promise;              /* rl_next_output(A) when the stretch without input, pop or record began ... */
    uint64_t out_read_at;              /* ... the cycle it was read at ... */
    int out_promised;                  /* ... valid */
    uint32_t overrun;                  /* the source answers more than asked (its contract broken) */
    uint64_t overrun_calls[2];         /* ... to A, to B */
} fr_state;

static fr_state S;
static uint64_t mem_a[FR_MEM_WORDS], mem_b[FR_MEM_WORDS];

static void fr_mix(uint64_t *d, uint64_t v)
{
    uint64_t x = *d ^ v;
    *d = rnic_splitmix64(&x);
}

static void fr_trace_a(void *user, const rnic_trace_event *ev)
{
    (void)user;
#ifdef FR_VERBOSE
    fprintf(stderr, "  A ev %llu kind %u id %u a %llu b %llu\n", (unsigned long long)ev->cycle, ev->kind, ev->id,
            (unsigned long long)ev->a, (unsigned long long)ev->b);
#endif
    S.events_a++;
    fr_mix(&S.digest_a, ev->cycle ^ ((uint64_t)ev->kind << 48) ^ ((uint64_t)ev->id << 16));
    fr_mix(&S.digest_a, ev->a ^ (ev->b << 1));
}

static void fr_trace_b(void *user, const rnic_trace_event *ev)
{
    (void)user;
#ifdef FR_VERBOSE
    fprintf(stderr, "  B ev %llu kind %u id %u a %llu b %llu\n", (unsigned long long)ev->cycle, ev->kind, ev->id,
            (unsigned long long)ev->a, (unsigned long long)ev->b);
#endif
    fr_mix(&S.digest_b, ev->cycle ^ ((uint64_t)ev->kind << 48) ^ ((uint64_t)ev->id << 16));
    fr_mix(&S.digest_b, ev->a ^ (ev->b << 1));
}

/* The flows' WQE rings, by free-running index; never consumed. */
static uint32_t fr_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    const fr_flow *f;
    uint32_t i;
    FZ_CHECK(flow < FR_FLOWS && out != NULL && max >= 1u && max <= S.cfg.fetch_wqes);
    f = &S.flow[flow];
    for (i = 0; i < max && index + i != f->tail; i++)
        out[i] = f->wqe[(index + i) % FR_RING];
    if (S.overrun && i == max) { /* a source breaking its contract: says more than it wrote */
        S.overrun_calls[user == (void *)&S.b]++;
        return max + S.overrun;
    }
    return i;
}

static fr_u128 fr_cpb(uint64_t bps)
{
    return (((fr_u128)S.cfg.clock_hz * 8u) << 32) / bps;
}

static uint64_t fr_clamp(uint64_t bps)
{
    if (bps == 0)
        return 0;
    if (bps < S.cfg.min_rate_bps)
        return S.cfg.min_rate_bps;
    return bps > S.cfg.link_bps ? S.cfg.link_bps : bps;
}

/* Statistics that a tick taken while nothing is due may change (rl_advance adds them too). */
static void fr_stats_masked(const rl *r, rl_stats *s)
{
    *s = *rl_get_stats(r);
    s->cycles = s->fetch_gated = s->fetch_throttled = s->tx_stalls = 0;
}

static void fr_same(void)
{
    rnic_work wa, wb;
    rnic_err ea, eb;
    FZ_CHECK(rl_now(&S.a) == rl_now(&S.b));
    FZ_CHECK(memcmp(rl_get_stats(&S.a), rl_get_stats(&S.b), sizeof(rl_stats)) == 0);
    FZ_CHECK(S.digest_a == S.digest_b);
    FZ_CHECK(rl_next_event(&S.a) == rl_next_event(&S.b));
    ea = rl_peek_tx(&S.a, &wa);
    eb = rl_peek_tx(&S.b, &wb);
    FZ_CHECK(ea == eb);
    FZ_CHECK(ea != RNIC_OK || memcmp(&wa, &wb, sizeof wa) == 0);
}

/* One cycle of A, checked against rl_next_event's promise. The promise is the answer read
 * when the quiet stretch began (not re-read every cycle: an answer that is late only while
 * the event is far would pass a per-cycle check); any input ends it (S.promised = 0). */
static void fr_tick_a(void)
{
    uint64_t now = rl_now(&S.a), ne = rl_next_event(&S.a), events = S.events_a;
    rl_stats before, after;
    uint32_t tx = S.a.tx.count;
    FZ_CHECK(ne == RNIC_NEVER || ne - now < ((uint64_t)1 << 63)); /* never in the past */
    if (!S.out_promised) {
        S.out_promise = rl_next_output(&S.a);
        S.out_read_at = now;
        S.out_promised = 1;
        FZ_CHECK(S.out_promise == RNIC_NEVER || S.out_promise - now < ((uint64_t)1 << 63));
    }
    if (!S.promised) {
        S.promise = ne;
        S.promised = 1;
    }
    if (S.promise != now) {
        fr_stats_masked(&S.a, &before);
        rl_tick(&S.a);
        fr_stats_masked(&S.a, &after);
        FZ_CHECK(S.events_a == events);
        FZ_CHECK(S.a.tx.count == tx);
        FZ_CHECK(memcmp(&before, &after, sizeof before) == 0);
    } else { /* the promised cycle (RNIC_NEVER at now = 2^64 - 1 too: it may mean an event
              * there, documented): anything may happen, read the next promise after it */
        rl_tick(&S.a);
        S.promised = 0;
    }
    if (S.a.tx.count != tx) { /* a record left now: the output bound read before must allow it */
        if (S.out_promise != RNIC_NEVER)
            FZ_CHECK(now - S.out_promise < ((uint64_t)1 << 63));
        else /* RNIC_NEVER also reads a bound at cycle 2^64 - 1 (documented): not before it */
            FZ_CHECK(now - S.out_read_at >= UINT64_MAX - S.out_read_at);
        S.out_promised = 0;
    }
    S.ticked++;
}

/* n cycles: A ticks, B fast-forwards (advance or advance_to), going on past a full TX port. */
static void fr_run(uint64_t n, int use_to)
{
    uint64_t i, target = rl_now(&S.b) + n;
    for (i = 0; i < n; i++)
        fr_tick_a();
    while (rl_now(&S.b) != target) {
        uint64_t before = rl_now(&S.b), left = target - before, ran;
        ran = use_to ? rl_advance_to(&S.b, target) : rl_advance(&S.b, left);
        FZ_CHECK(ran >= 1u && ran <= left && rl_now(&S.b) - before == ran);
    }
}

/* The record must be the next piece of its flow (conservation, order) and within its rate. */
static void fr_check_record(const rnic_work *w)
{
    fr_flow *f;
    const rnic_work *e;
    uint32_t off, rest, len, flags;
    int32_t status = 0;
    FZ_CHECK(w->flow < S.cfg.max_flows && w->flow < FR_FLOWS);
    f = &S.flow[w->flow];
    FZ_CHECK(f->exp_index != f->tail); /* something posted is outstanding */
    e = &f->wqe[f->exp_index % FR_RING];
    off = f->exp_offset;
    FZ_CHECK(w->index == f->exp_index && w->offset == off);
    FZ_CHECK(w->tag == e->tag && w->op == e->op && w->aux == 0);
    if (e->flags & RNIC_WORK_ERROR)
        status = e->status > 0 && e->status < (int32_t)RNIC_ERR__COUNT ? e->status : (int32_t)RNIC_EINVAL;
    else if (e->len == 0 || e->len > 0x80000000u)
        status = (int32_t)RNIC_EINVAL;
    if (status) {
        FZ_CHECK(w->len == 0 && w->status == status);
        FZ_CHECK(w->flags == (RNIC_WORK_FIRST | RNIC_WORK_LAST | RNIC_WORK_ERROR));
        S.error_records[status]++;
        f->exp_index++;
        f->exp_offset = 0;
        f->last_charge = 0; /* an error record is the last packet sent, of length 0 */
        f->last_len = 0;
    } else {
        rest = e->len - off;
        len = rest < S.cfg.mtu ? rest : S.cfg.mtu;
        flags = (off == 0 ? RNIC_WORK_FIRST : 0u) | (len == rest ? RNIC_WORK_LAST : 0u);
        FZ_CHECK(w->len == len && w->flags == flags && w->status == 0);
        FZ_CHECK(w->addr == e->addr + off && w->raddr == e->raddr + off);
        if (len == rest) {
            f->exp_index++;
            f->exp_offset = 0;
        } else {
            f->exp_offset = off + len;
        }
        f->packets++;
        f->bytes += len;
        S.data_packets++;
        S.data_bytes += len;
        /* rate: what the flow sent before this packet fits the cycles since its activation */
        /* (a record sent before the window opened is still in the port: the flow was idle
         * at the doorbell, so it belongs to the window before, which the harness closed) */
        if (f->window && w->cycle - f->c0 < ((uint64_t)1 << 63)) {
            fr_u128 cpb = f->cpb;
            FZ_CHECK(f->spend <= (fr_u128)(w->cycle - f->c0) << 32);
            if (f->amb && w->cycle - f->amb_until >= ((uint64_t)1 << 63)) /* before amb_until */
                cpb = f->amb_cpb < cpb ? f->amb_cpb : cpb;
            else
                f->amb = 0;
            f->last_charge = (fr_u128)len * cpb;
            f->last_len = len;
            f->spend += f->last_charge;
        }
    }
    /* a paused flow sends nothing once its write has applied (within max_flows cycles) */
    if (f->paused && w->cycle - f->paused_at < ((uint64_t)1 << 63)) /* left after the write */
        FZ_CHECK(w->cycle - f->paused_at < S.cfg.max_flows);
}

/* Pop up to n records from both engines, in lockstep; they must agree. */
static void fr_pop(uint32_t n)
{
    uint32_t i;
    S.promised = 0; /* a pop may unblock a full port */
    S.out_promised = 0;
    for (i = 0; i < n; i++) {
        rnic_work wa, wb;
        rnic_err ea = rl_pop_tx(&S.a, &wa), eb = rl_pop_tx(&S.b, &wb);
        FZ_CHECK(ea == eb);
        if (ea != RNIC_OK) {
            FZ_CHECK(ea == RNIC_EEMPTY);
            break;
        }
        FZ_CHECK(memcmp(&wa, &wb, sizeof wa) == 0);
        FZ_CHECK(wa.cycle - S.cfg.start_cycle < rl_now(&S.a) - S.cfg.start_cycle); /* left in the past */
        fr_check_record(&wa);
    }
}

/* With the TX port of r empty, its counters equal the harness's. */
static void fr_check_counters(const rl *r)
{
    const rl_stats *s = rl_get_stats(r);
    uint32_t c, fl;
    if (r->tx.count)
        return;
    for (c = 1; c < RNIC_ERR__COUNT; c++)
        FZ_CHECK(s->errors.by_cause[c] == S.refused[c] + S.error_records[c]);
    FZ_CHECK(s->errors.by_cause[RNIC_OK] == 0);
    FZ_CHECK(s->packets == S.data_packets && s->bytes == S.data_bytes);
    FZ_CHECK(s->rate_clamped == S.clamped);
    FZ_CHECK(s->source_overrun == S.overrun_calls[r == &S.b]);
    for (fl = 0; fl < S.cfg.max_flows && fl < FR_FLOWS; fl++) {
        const rl_flow_stats *q = rl_get_flow_stats(r, fl);
        FZ_CHECK((q != NULL) == (S.cfg.flow_stats == 1u));
        FZ_CHECK(!q || (q->packets == S.flow[fl].packets && q->bytes == S.flow[fl].bytes));
    }
}

/* A register write on both engines; `kind` 0 doorbell, 1 rate, 2 credit. */
static void fr_write(uint32_t kind, uint32_t flow, uint64_t value)
{
    rl_stats before, after;
    rnic_err ea, eb, want = flow < S.cfg.max_flows ? RNIC_OK : RNIC_ENOENT;
    uint64_t now = rl_now(&S.a);
    int clamped = kind == 1 && fr_clamp(value) != value;
    int idle = want == RNIC_OK && S.a.qps[flow].state == RL__IDLE;
    S.promised = 0;
    S.out_promised = 0;
    before = *rl_get_stats(&S.a);
    if (kind == 0) {
        ea = rl_doorbell(&S.a, flow);
        eb = rl_doorbell(&S.b, flow);
    } else if (kind == 1) {
        ea = rl_set_rate(&S.a, flow, value);
        eb = rl_set_rate(&S.b, flow, value);
    } else {
        ea = rl_set_credit(&S.a, flow, value & 1u);
        eb = rl_set_credit(&S.b, flow, value & 1u);
    }
    FZ_CHECK(ea == want && eb == want);
    after = *rl_get_stats(&S.a);
    if (want != RNIC_OK) {
        S.refused[want]++;
        FZ_CHECK(after.errors.by_cause[want] == before.errors.by_cause[want] + 1u);
        after.errors.by_cause[want]--;
        FZ_CHECK(memcmp(&before, &after, sizeof before) == 0); /* nothing else changed */
        return;
    }
    FZ_CHECK(memcmp(&before.errors, &after.errors, sizeof before.errors) == 0);
    FZ_CHECK(after.rate_clamped == before.rate_clamped + (uint64_t)clamped);
    S.clamped += (uint64_t)clamped;
    if (flow >= FR_FLOWS)
        return;
    if (kind == 0 && idle) { /* activation: start = max(finish, T) >= T now */
        fr_flow *f = &S.flow[flow];
        f->window = 1;
        f->c0 = now;
        f->spend = f->last_charge = 0;
        f->last_len = 0;
    } else if (kind == 1) {
        fr_flow *f = &S.flow[flow];
        uint64_t bps = fr_clamp(value);
        if (bps == 0) {
            if (!f->paused)
                f->paused_at = now;
            f->paused = 1;
            return;
        }
        f->paused = 0;
        {
            fr_u128 lo = fr_cpb(bps), old = f->amb ? (f->amb_cpb < f->cpb ? f->amb_cpb : f->cpb) : f->cpb;
            fr_u128 amb = lo < old ? lo : old, recharged = (fr_u128)f->last_len * amb;
            f->amb_cpb = amb;
            f->amb = 1;
            f->amb_until = now + S.cfg.max_flows;
            if (recharged < f->last_charge) { /* the last packet is charged at the new rate */
                f->spend -= f->last_charge - recharged;
                f->last_charge = recharged;
            }
            f->bps = bps;
            f->cpb = lo;
        }
    }
}

/* A WQE for flow fl's source: mostly valid, sometimes empty, oversized or marked bad. */
static void fr_post(fz_in *in, uint32_t fl)
{
    fr_flow *f = &S.flow[fl];
    rnic_work *e;
    uint8_t kind = fz_u8(in);
    uint32_t a, b;
    /* an entry may be reused once both engines are done with it (LAST seen on the port; A
     * and B pop in lockstep, so exp_index is both) */
    if (f->tail - f->exp_index >= FR_RING)
        return;
    e = &f->wqe[f->tail % FR_RING];
    memset(e, 0, sizeof *e);
    switch (kind & 15u) {
    case 0: e->len = 0; break;
    case 1: e->len = (uint32_t)fz_hostile(in, 0x7fffff00u, 0x80000000u); break; /* around 2^31 */
    case 2:
        e->flags = RNIC_WORK_ERROR;
        e->status = (int32_t)fz_u32(in); /* any value: out-of-range ones become RNIC_EINVAL */
        e->len = fz_u16(in);
        break;
    default: e->len = (uint32_t)fz_hostile(in, 1u, 3u * S.cfg.mtu); break;
    }
    a = fz_u32(in);
    b = fz_u32(in);
    e->addr = (uint64_t)a << (b & 31u) ^ b;
    e->raddr = ~e->addr;
    e->tag = ((uint64_t)fl << 32) | f->tail;
    e->op = kind >> 4;
    e->flags |= (kind & 0x80u) ? RNIC_WORK_FIRST : 0u; /* stray flags from the source are not carried */
    e->cycle = a;
    f->tail++;
}

/* Packets the flows still owe (a bad WQE: one record). */
static uint64_t fr_packets_left(void)
{
    uint64_t sum = 0;
    uint32_t fl, i;
    for (fl = 0; fl < FR_FLOWS && fl < S.cfg.max_flows; fl++) {
        const fr_flow *f = &S.flow[fl];
        for (i = f->exp_index; i != f->tail; i++) {
            const rnic_work *e = &f->wqe[i % FR_RING];
            uint32_t off = i == f->exp_index ? f->exp_offset : 0u;
            if ((e->flags & RNIC_WORK_ERROR) || e->len == 0 || e->len > 0x80000000u)
                sum++;
            else
                sum += (e->len - off + S.cfg.mtu - 1u) / S.cfg.mtu;
        }
    }
    return sum;
}

/* Config: mostly small, with hostile values; an invalid one must be refused everywhere. */
static int fr_config(fz_in *in)
{
    rl_config *c = &S.cfg;
    const char *field = NULL;
    rnic_err e;
    size_t need;
    uint8_t sel = fz_u8(in);
    rl_config_default(c);
    if (sel & 1u)
        c->clock_hz = fz_hostile(in, 100000000u, 1000000000u);
    if (sel & 2u)
        c->link_bps = fz_hostile(in, 1000000000u, 400000000000ull);
    if (sel & 4u)
        c->min_rate_bps = fz_hostile(in, 100000u, 10000000000ull);
    c->max_flows = (uint32_t)fz_hostile(in, 1u, FR_FLOWS);
    c->mtu = (uint32_t)fz_hostile(in, 64u, 2048u);
    c->pcie_latency_ns = (uint32_t)fz_hostile(in, 4u, 120u);
    c->fetch_wqes = (uint32_t)fz_hostile(in, 1u, 8u);
    c->desc_depth = (uint32_t)fz_hostile(in, 1u, 16u);
    c->tx_depth = (uint32_t)fz_hostile(in, 1u, 8u);
    c->schedule_queue = (sel & 8u) ? (uint32_t)fz_hostile(in, 0u, 1u) : 0u;
    if (sel & 16u)
        c->fetch_bps = fz_hostile(in, 1000000u, 200000000000ull);
    if (sel & 32u)
        c->wqe_bytes = (uint32_t)fz_hostile(in, 1u, 256u);
    c->flow_stats = (sel & 64u) ? (uint32_t)fz_hostile(in, 0u, 1u) : 1u;
    if (sel & 128u)
        c->start_cycle = fz_u8(in) & 1u ? UINT64_MAX - fz_u16(in) : fz_u64(in);
    c->source = fr_source;
    c->trace = fr_trace_a;
    e = rl_config_check(c, &field);
    need = rl_mem_size(c);
    if (e != RNIC_OK) { /* refused with a code and a field name, by every entry point */
        FZ_CHECK(e == RNIC_EINVAL && field != NULL && need == 0);
        FZ_CHECK(rl_mem_per_flow(c) == 0);
        FZ_CHECK(rl_init(&S.a, c, mem_a, sizeof mem_a) == RNIC_EINVAL);
        return 0;
    }
    FZ_CHECK(field == NULL && need > 0 && rl_mem_per_flow(c) > 0);
    FZ_CHECK(rl_init(&S.a, c, mem_a, need - 1u) == RNIC_ENOSPC);
    FZ_CHECK(rl_init(&S.a, c, (unsigned char *)mem_a + 1, need) == RNIC_EINVAL); /* misaligned */
    if (c->max_flows > FR_FLOWS || need > sizeof mem_a)
        return 0; /* large: the checks above are what this run does */
    c->source = NULL;
    FZ_CHECK(rl_init(&S.a, c, mem_a, need) == RNIC_EINVAL);
    c->source = fr_source;
    c->source_user = &S.a;
    FZ_CHECK(rl_init(&S.a, c, mem_a, need) == RNIC_OK);
    c->trace = fr_trace_b;
    c->source_user = &S.b;
    FZ_CHECK(rl_init(&S.b, c, mem_b, need) == RNIC_OK);
    c->trace = fr_trace_a;
    c->source_user = &S.a;
    FZ_CHECK(rl_now(&S.a) == c->start_cycle && rl_next_event(&S.a) == RNIC_NEVER);
    return 1;
}

/* End of the program: every flow at the link rate with credit, B drained to quiescence; every
 * posted WQE must have left exactly once. */
static void fr_drain(void)
{
    uint32_t fl, iter, quiet;
    if (fr_packets_left() > FR_DRAIN_PACKETS)
        return;
    for (fl = 0; fl < S.cfg.max_flows; fl++) {
        fr_write(1, fl, S.cfg.link_bps);
        fr_write(2, fl, 1);
        fr_write(0, fl, 0);
    }
    for (iter = 0, quiet = 0;; iter++) { /* A stays where the program left it: B alone is drained */
        rnic_work w;
        FZ_CHECK(iter < 4u * FR_DRAIN_PACKETS + 1000u); /* liveness */
        while (rl_pop_tx(&S.b, &w) == RNIC_OK) {
            fr_check_record(&w);
            quiet = 0;
        }
        /* RNIC_NEVER also reads "an event at cycle 2^64 - 1" (documented): one more advance
         * runs past it; an engine that still says RNIC_NEVER after it and sent nothing is done */
        if (rl_next_event(&S.b) != RNIC_NEVER)
            quiet = 0;
        else if (quiet++)
            break;
        /* 2^60 cycles: more than any packet's span (< 2^48, docs/tassel_model.md), so a slow
         * config (link_bps 1) still sends a packet per call and the round limit is liveness */
        FZ_CHECK(rl_advance(&S.b, (uint64_t)1 << 60) >= 1u);
    }
    for (fl = 0; fl < FR_FLOWS && fl < S.cfg.max_flows; fl++)
        FZ_CHECK(S.flow[fl].exp_index == S.flow[fl].tail && S.flow[fl].exp_offset == 0);
    FZ_CHECK(S.b.desc_count == 0 && S.b.fetches.count == 0);
    fr_check_counters(&S.b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in;
    uint32_t steps = 0, fl;
    fz_init(&in, data, size);
    memset(&S, 0, sizeof S);
    if (!fr_config(&in))
        return 0;
    for (fl = 0; fl < FR_FLOWS; fl++) {
        S.flow[fl].bps = S.cfg.link_bps;
        S.flow[fl].cpb = fr_cpb(S.cfg.link_bps);
    }
    S.overrun = (fz_u8(&in) & 31u) == 31u ? 1u + fz_u8(&in) % 3u : 0u;
    while (fz_more(&in) && steps++ < 200u) {
        uint8_t op = fz_u8(&in);
        uint32_t flow = (uint32_t)fz_hostile(&in, 0, S.cfg.max_flows - 1u);
#ifdef FR_VERBOSE /* -DFR_VERBOSE: the decoded program on stderr (minimising a finding) */
        fprintf(stderr, "now %llu op %u flow %u\n", (unsigned long long)rl_now(&S.a), op % 12u, flow);
#endif
        switch (op % 12u) {
        case 0:
        case 1: /* post and ring */
            if (flow < FR_FLOWS && flow < S.cfg.max_flows)
                fr_post(&in, flow);
            fr_write(0, flow, 0);
            break;
        case 2: /* post without a doorbell (a later one covers it) */
            if (flow < FR_FLOWS && flow < S.cfg.max_flows)
                fr_post(&in, flow);
            break;
        case 3:
            fr_write(0, flow, 0);
            break;
        case 4: { /* rate: zero, below min, above link, extremes, or sane */
            uint8_t k = fz_u8(&in);
            uint64_t bps = k < 32 ? 0 : k < 64 ? fz_hostile(&in, 0, S.cfg.min_rate_bps)
                                             : fz_hostile(&in, S.cfg.min_rate_bps, S.cfg.link_bps);
            fr_write(1, flow, bps);
            break;
        }
        case 5:
            fr_write(2, flow, fz_u8(&in) & 1u);
            break;
        case 6:
        case 7:
        case 8: { /* run: A ticks, B fast-forwards */
            uint64_t n = fz_u8(&in) & 1u ? fz_u8(&in) : fz_u16(&in) % 512u;
            if (S.ticked + n > FR_BUDGET)
                n = FR_BUDGET - S.ticked;
            fr_run(n, op & 16u);
            fr_same();
            break;
        }
        case 9:
        case 10:
            fr_pop(1u + fz_u8(&in) % 8u);
            fr_same();
            fr_check_counters(&S.a);
            break;
        default: { /* NULL records and peeks: refused, counted, nothing taken */
            rnic_work wa, wb;
            rl_stats before = *rl_get_stats(&S.a);
            FZ_CHECK(rl_pop_tx(&S.a, NULL) == RNIC_EINVAL && rl_pop_tx(&S.b, NULL) == RNIC_EINVAL);
            FZ_CHECK(rl_peek_tx(&S.a, NULL) == RNIC_EINVAL && rl_peek_tx(&S.b, NULL) == RNIC_EINVAL);
            FZ_CHECK(rl_get_stats(&S.a)->errors.by_cause[RNIC_EINVAL] == before.errors.by_cause[RNIC_EINVAL] + 2u);
            S.refused[RNIC_EINVAL] += 2u;
            FZ_CHECK(rl_doorbell(NULL, 0) == RNIC_EINVAL && rl_set_rate(NULL, 0, 1) == RNIC_EINVAL);
            FZ_CHECK(rl_pop_tx(NULL, &wa) == RNIC_EINVAL && rl_advance(NULL, 5) == 0);
            if (rl_peek_tx(&S.a, &wa) == RNIC_OK) { /* a peek takes nothing */
                FZ_CHECK(rl_peek_tx(&S.a, &wb) == RNIC_OK && memcmp(&wa, &wb, sizeof wa) == 0);
            }
            fr_same();
            break;
        }
        }
    }
    fr_pop(UINT32_MAX);
    fr_same();
    fr_check_counters(&S.a);
    fr_drain();
#ifdef FR_VERBOSE
    {
        const rl_stats *st = rl_get_stats(&S.b);
        fprintf(stderr, "end: packets %llu errors %llu retimes %llu dropped %llu evictions %llu gated %llu "
                "throttled %llu tx_stalls %llu overrun %llu clamped %llu refused %llu\n",
                (unsigned long long)st->packets, (unsigned long long)st->error_records,
                (unsigned long long)st->retimes, (unsigned long long)st->packets_dropped,
                (unsigned long long)st->desc_evictions, (unsigned long long)st->fetch_gated,
                (unsigned long long)st->fetch_throttled, (unsigned long long)st->tx_stalls,
                (unsigned long long)st->source_overrun, (unsigned long long)st->rate_clamped,
                (unsigned long long)rnic_err_total(&st->errors));
    }
#endif
    return 0;
}
