/* Host speed of the RED-SEA QoS engine model on the thesis's verification workload: random
 * transfers of 1 B .. 1 MB (a quarter inline), random alignment, types, priorities and
 * domains, written as AXI beats, blocks and packets acknowledged by a responder after 5 .. 600
 * cycles, status polled 32 channels at a time. Prints simulated transfers, blocks and cycles
 * per host second.
 *   build/bench_qos [--quick] [--transfers N] [--seed S] [--ticked]
 * The timed loop (qos_run) is event-driven: the responder keeps its pending responses in a
 * bucket ring by due cycle (no per-cycle scan) and offers them only while the response port has
 * room, and the stretches in which neither the engine (rq_qos_next_event) nor the harness has
 * anything to do are skipped with rq_qos_advance_to; --ticked ticks every cycle instead. The
 * engine sees the inputs of the historical every-cycle loop at the same cycles (same blocks,
 * packets, cycles per seed); the refused offers that loop made to a full response port are not
 * made (rq_qos_stats.errors counts only the status reads refused).
 * Then the same workload once ticked and once event-driven, each with a digest of every input
 * accepted and every record taken: RESULT qos_harness_identical=1 when the digests, the
 * counts and the final rq_qos_stats (memcmp) agree.
 * Then fast-forward on a sparse workload (a 200 KB transfer every 20,000 cycles, ACKs 2,000
 * cycles after each block): ticked every cycle vs the event-driven loop (rq_qos_next_event /
 * rq_qos_advance_to), the records of both checked identical.
 * For callgrind (tools/callgrind_qos.sh): the timed part is qos_run().
 * Ends with: RESULT transfers_per_s=... blocks_per_s=... mcycles_per_s=... ns_per_block=...
 *            RESULT qos_harness_identical=1 qos_harness_ticked_pct=...
 *            RESULT qos_ff_identical=1 qos_ff_speedup=... qos_ff_ticked_pct=... */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../examples/cli.h"
#include "bench_util.h"

typedef struct pending_resp {
    uint64_t at;
    rq_response r;
} pending_resp;

enum { MAX_RESP = 4096, RESP_RING = 1024, RESP_NONE = 0xFFFF };

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

/* The responder's pending responses, delivered exactly as the historical harness did -- an
 * array scanned from index 0 each cycle, every response with at <= now offered in turn, a
 * delivered one replaced by the array's last (swap-remove; the moved one looked at next) --
 * without the scan:
 *  - each response keeps its array position (ord[] / pos[]), swap-removes move them as before;
 *  - a bucket ring by due cycle (delays are 5 .. 600 < RESP_RING cycles) holds those not yet
 *    due; at cycle c bucket c mod RESP_RING marks its responses due;
 *  - a two-level bitmap over array positions holds the due ones, so the next due position
 *    from i is two count-trailing-zeros.
 * A push is offered only while the response port has room: the port refuses (RNIC_EBUSY) only
 * when full and a push does not drain it, so the historical harness's refused offers (each
 * counted in rq_qos_stats.errors, about a hundred per cycle once the port backs up) changed
 * nothing else; the accepted responses, their order and their cycles are the same. */
typedef struct resp_sched {
    rq_response r[MAX_RESP]; /* by id */
    uint16_t ord[MAX_RESP];  /* array position -> id */
    uint16_t pos[MAX_RESP];  /* id -> array position */
    uint16_t link[MAX_RESP]; /* next id in the same bucket */
    uint16_t freel[MAX_RESP];
    uint16_t head[RESP_RING]; /* ids due at cycle c, at head[c mod RESP_RING] */
    uint64_t due[MAX_RESP / 64];
    uint64_t due_sum; /* bit w: due[w] != 0 */
    uint32_t n, ndue, nfree;
} resp_sched;

static unsigned ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned k = 0;
    while (!(x & 1u)) {
        x >>= 1;
        k++;
    }
    return k;
#endif
}

static void resp_reset(resp_sched *s)
{
    uint32_t i;
    memset(s->head, 0xFF, sizeof s->head);
    memset(s->due, 0, sizeof s->due);
    s->due_sum = 0;
    s->n = s->ndue = 0;
    for (i = 0; i < MAX_RESP; i++)
        s->freel[i] = (uint16_t)(MAX_RESP - 1u - i);
    s->nfree = MAX_RESP;
}

static void due_set(resp_sched *s, uint32_t p)
{
    s->due[p >> 6] |= 1ull << (p & 63u);
    s->due_sum |= 1ull << (p >> 6);
}

static void due_clear(resp_sched *s, uint32_t p)
{
    s->due[p >> 6] &= ~(1ull << (p & 63u));
    if (!s->due[p >> 6])
        s->due_sum &= ~(1ull << (p >> 6));
}

/* The first due array position >= from, RESP_NONE when none. */
static uint32_t due_first(const resp_sched *s, uint32_t from)
{
    uint32_t w = from >> 6;
    uint64_t m;
    if (w >= MAX_RESP / 64u)
        return RESP_NONE;
    m = s->due[w] & (~0ull << (from & 63u));
    if (m)
        return (w << 6) | ctz64(m);
    m = w == 63u ? 0 : s->due_sum & (~0ull << (w + 1u));
    if (!m)
        return RESP_NONE;
    w = ctz64(m);
    return (w << 6) | ctz64(s->due[w]);
}

static void resp_add(resp_sched *s, uint64_t at, uint32_t tid, uint32_t seq)
{
    uint32_t id = s->freel[--s->nfree], b = (uint32_t)(at % RESP_RING);
    s->r[id].tid = tid;
    s->r[id].seq = seq;
    s->r[id].ack = 1;
    s->pos[id] = (uint16_t)s->n;
    s->ord[s->n++] = (uint16_t)id;
    s->link[id] = s->head[b];
    s->head[b] = (uint16_t)id;
}

/* 64-bit digest of the engine's inputs and outputs (the verification runs only). */
static void dg_mix(uint64_t *h, uint64_t x)
{
    *h = (*h ^ x) * 0x100000001b3ull;
    *h ^= *h >> 29;
}
#define DG(x) (dg ? dg_mix(dg, (uint64_t)(x)) : (void)0)

typedef struct run_result {
    uint64_t transfers, blocks, packets, cycles, ticks;
} run_result;

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

typedef char rq_status_is_2_bits[(RQ_IDLE == 0 && RQ_BUSY == 1 && RQ_DONE == 2 && RQ_ERROR == 3) ? 1 : -1];

/* The workload. fast = 0 ticks every cycle; fast = 1 skips the stretches in which neither the
 * engine (rq_qos_next_event) nor the harness (a due response it may push, a descriptor write,
 * a status poll) has anything to do, with rq_qos_advance_to: the engine sees the same inputs
 * at the same cycles. dg (NULL in the timed run) receives a digest of every input accepted and
 * every record taken, with its cycle. */
static ALWAYS_INLINE run_result qos_core(rq_qos *q, uint32_t n, uint64_t seed, int fast, uint64_t *dg)
{
    static resp_sched rs;
    static uint8_t busy[16][64];
    uint32_t issued = 0, pre = 0, pd = 0, pch = 0, bresp_due = 0, rdata_due = 0, resp_cap;
    uint64_t now, start;
    run_result res;
    rnic_prng p;
    memset(&res, 0, sizeof res);
    memset(busy, 0, sizeof busy);
    resp_reset(&rs);
    rnic_prng_seed(&p, seed);
    resp_cap = rq_qos_space_response(q); /* the response port is empty at the start */
    now = start = rq_qos_now(q);         /* then kept: + 1 per tick, the target of an advance */
    while (res.transfers < n) {
        rnic_work b;
        rq_packet pk;
        rq_axi_bresp br;
        rq_axi_rdata rd;
        uint32_t i, id, bk = (uint32_t)(now % RESP_RING);
        if (issued < n && rq_qos_space_axi_write(q) >= 8u) {
            uint32_t d, ch;
            if (pre) { /* drawn for this cycle while looking ahead (below) */
                d = pd;
                ch = pch;
                pre = 0;
            } else {
                d = (uint32_t)rnic_prng_below(&p, 16);
                ch = 2u * (uint32_t)rnic_prng_below(&p, 32);
            }
            if (!busy[d][ch] && rq_qos_domain_idle(q, d)) {
                rq_transfer t;
                uint64_t l[2][4], dd[2];
                uint32_t ln, w;
                memset(&t, 0, sizeof t);
                t.size = rnic_prng_below(&p, 4) == 0 ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 33, 1u << 20);
                t.kind = t.size <= 32u ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
                t.dst = rnic_prng_next(&p) >> 20;
                t.prio = (uint32_t)rnic_prng_below(&p, 16);
                if (t.kind == RQ_KIND_REGULAR) {
                    t.src = rnic_prng_next(&p) >> 20;
                    t.cm = rnic_prng_below(&p, 2) != 0;
                    t.multipath = t.cm && rnic_prng_below(&p, 2);
                    t.notify = rnic_prng_below(&p, 3) == 0;
                }
                rq_desc_encode(&t, l[0], l[1]);
                busy[d][ch] = 1;
                for (ln = 0; ln < rq_desc_lines(l[0][3]); ln++)
                    for (w = 0; w < 4; w += 2) {
                        rnic_err e;
                        dd[0] = l[ln][w];
                        dd[1] = l[ln][w + 1u];
                        e = rq_qos_axi_write(q, d, addr_of(d, ch + ln, w), dd, 16);
                        bresp_due += e == RNIC_OK; /* one BRESP per beat taken */
                        DG(now), DG(addr_of(d, ch + ln, w)), DG(dd[0]), DG(dd[1]), DG(e);
                    }
                issued++;
            }
        }
        /* the responder: this cycle's bucket becomes due, then the due ones in array order */
        if (rs.head[bk] != RESP_NONE) {
            for (id = rs.head[bk]; id != RESP_NONE; id = rs.link[id]) {
                due_set(&rs, rs.pos[id]);
                rs.ndue++;
            }
            rs.head[bk] = RESP_NONE;
        }
        if (rs.ndue)
            for (i = due_first(&rs, 0); i != RESP_NONE && rq_qos_space_response(q) != 0;) {
                id = rs.ord[i];
                if (rq_qos_push_response(q, &rs.r[id]) != RNIC_OK) { /* not expected with room */
                    i = due_first(&rs, i + 1u);
                    continue;
                }
                DG(now), DG(rs.r[id].tid), DG(rs.r[id].seq);
                due_clear(&rs, i);
                rs.ndue--;
                rs.freel[rs.nfree++] = (uint16_t)id;
                if (i != --rs.n) { /* the last one moves into position i and is looked at next */
                    uint32_t lid = rs.ord[rs.n];
                    rs.ord[i] = (uint16_t)lid;
                    rs.pos[lid] = (uint16_t)i;
                    if ((rs.due[rs.n >> 6] >> (rs.n & 63u)) & 1u) {
                        due_clear(&rs, rs.n);
                        due_set(&rs, i);
                    }
                }
                i = due_first(&rs, i);
            }
        if (fast) {
            /* next_event is asked only when the engine may be quiet: while the response port
             * holds a response the handler works (ticking a quiet cycle is correct anyway) */
            uint64_t ne = rs.ndue || rs.n >= MAX_RESP || rq_qos_space_response(q) != resp_cap ? now : rq_qos_next_event(q),
                     target, c;
            if (ne == now) {
                rq_qos_tick(q);
                res.ticks++;
                now++;
            } else {
                /* quiet: up to the engine's next event, the next status poll (issued after the
                 * tick of cycle target - 1 when target % 4 == 0), the next cycle whose bucket
                 * holds a response, or the next cycle whose write attempt succeeds. The
                 * skipped cycles' write attempts draw from the PRNG as ticking would (the
                 * channel table and the domains' accumulators do not change while nothing
                 * happens); the stopping cycle's draw is kept for it. */
                target = (now | 3u) + 1u;
                if (ne < target)
                    target = ne;
                for (c = now + 1u; c < target; c++) {
                    int drew = 0;
                    if (issued < n && rq_qos_space_axi_write(q) >= 8u) {
                        pd = (uint32_t)rnic_prng_below(&p, 16);
                        pch = 2u * (uint32_t)rnic_prng_below(&p, 32);
                        drew = 1;
                        if (!busy[pd][pch] && rq_qos_domain_idle(q, pd)) {
                            pre = 1;
                            target = c;
                            break;
                        }
                    }
                    if (rs.head[c % RESP_RING] != RESP_NONE) {
                        pre = (uint32_t)drew;
                        target = c;
                        break;
                    }
                }
                rq_qos_advance_to(q, target);
                if (rq_qos_now(q) != target) { /* cannot happen: nothing fills an output */
                    fprintf(stderr, "bench_qos: advance_to %llu stopped at %llu\n", (unsigned long long)target,
                            (unsigned long long)rq_qos_now(q));
                    exit(1);
                }
                now = target;
            }
        } else {
            rq_qos_tick(q);
            res.ticks++;
            now++;
        }
        for (; bresp_due && rq_qos_pop_bresp(q, &br) == RNIC_OK; bresp_due--) /* none is popped before it is due */
            DG(br.cycle), DG(br.domain), DG(br.addr), DG(br.status);
        while (rs.n < MAX_RESP && rq_qos_pop_block(q, &b) == RNIC_OK) {
            resp_add(&rs, now + rnic_prng_range(&p, 5, 600), b.aux /* TID */, RQ_WORK_SEQ(b.flags) /* sequence number */);
            res.blocks++;
            DG(b.cycle), DG(b.flow), DG(b.index), DG(b.offset), DG(b.len), DG(b.flags), DG(b.aux), DG(RQ_WORK_SEQ(b.flags)), DG(b.addr),
                DG(b.raddr);
        }
        while (rs.n < MAX_RESP && rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            res.packets++;
            DG(pk.cycle), DG(pk.kind), DG(pk.tid), DG(pk.seq), DG(pk.transfer), DG(pk.size), DG(pk.retransmit);
            if (pk.kind != RQ_PKT_INLINE)
                continue;
            resp_add(&rs, now + rnic_prng_range(&p, 5, 600), pk.tid, pk.seq);
        }
        if (now % 4u == 0) { /* answered next cycle; decoded from the answer's cycle below */
            rnic_err e = rq_qos_axi_read(q, (uint32_t)(now / 4u) % 16u, (uint32_t)(now / 4u) % 16u, (uint32_t)(now / 64u) % 2u, 1);
            rdata_due += e == RNIC_OK; /* one RDATA per read taken */
            DG(now), DG(e);
        }
        for (; rdata_due && rq_qos_pop_rdata(q, &rd) == RNIC_OK; rdata_due--) {
            uint32_t d = (uint32_t)((rd.cycle - 1u) / 4u) % 16u, half = (uint32_t)((rd.cycle - 1u) / 64u) % 2u;
            uint64_t m = (rd.data >> 1) & 0x5555555555555555ull; /* the channels reading DONE or ERROR */
            DG(rd.cycle), DG(rd.data), DG(rd.status);
            while (m) {
                busy[d][half * 32u + ctz64(m) / 2u] = 0;
                res.transfers++;
                m &= m - 1u;
            }
        }
        if (now - start > 100000000ull) { /* a hang is a failure, not a slow run */
            fprintf(stderr, "bench_qos: %llu of %u transfers after %llu cycles\n", (unsigned long long)res.transfers, n,
                    (unsigned long long)(now - start));
            exit(1);
        }
    }
    res.cycles = now - start;
    return res;
}

/* The timed function (tools/callgrind_qos.sh counts it alone): event-driven unless --ticked. */
NOINLINE run_result qos_run(rq_qos *q, uint32_t n, uint64_t seed, int ticked);
NOINLINE run_result qos_run(rq_qos *q, uint32_t n, uint64_t seed, int ticked)
{
    return ticked ? qos_core(q, n, seed, 0, NULL) : qos_core(q, n, seed, 1, NULL);
}

/* The same workload with a digest, ticked or event-driven (not timed, not counted). */
NOINLINE run_result qos_verify(rq_qos *q, uint32_t n, uint64_t seed, int fast, uint64_t *dg);
NOINLINE run_result qos_verify(rq_qos *q, uint32_t n, uint64_t seed, int fast, uint64_t *dg)
{
    return fast ? qos_core(q, n, seed, 1, dg) : qos_core(q, n, seed, 0, dg);
}

/* The sparse workload, ticked (fast = 0) or event-driven (fast = 1): returns a hash of every
 * record taken (with its cycle); *ticks counts the cycles actually ticked. */
static uint64_t ff_run(rq_qos *q, int fast, uint64_t cycles, uint64_t *ticks)
{
    static pending_resp resp[MAX_RESP];
    uint32_t nresp = 0, i, started = 0;
    uint64_t h = 0, end = rq_qos_now(q) + cycles;
    *ticks = 0;
    while (rq_qos_now(q) != end) {
        uint64_t now = rq_qos_now(q), next = end, ne;
        rnic_work b;
        rq_packet pk;
        rq_axi_bresp br;
        if (now % 20000u == 0 && rq_qos_ready(q)) { /* the host: a transfer on a fresh channel */
            rq_transfer t;
            uint64_t l[2][4];
            uint32_t d = started % 16u, ch = 2u * ((started / 16u) % 32u), ln, w;
            memset(&t, 0, sizeof t);
            t.kind = RQ_KIND_REGULAR;
            t.size = 200000;
            t.src = 0x100000u * (uint64_t)(started + 1u);
            t.dst = 0x900000u * (uint64_t)(started + 1u);
            rq_desc_encode(&t, l[0], l[1]);
            for (ln = 0; ln < 2u; ln++)
                for (w = 0; w < 4; w += 2)
                    rq_qos_axi_write(q, d, addr_of(d, ch + ln, w), &l[ln][w], 16);
            started++;
        }
        for (i = 0; i < nresp;) {
            if (resp[i].at <= now && rq_qos_push_response(q, &resp[i].r) == RNIC_OK) {
                resp[i] = resp[--nresp];
                continue;
            }
            if (resp[i].at < next) /* a refused one (port full) is retried next cycle */
                next = resp[i].at > now ? resp[i].at : now + 1u;
            i++;
        }
        if ((now / 20000u + 1u) * 20000u < next)
            next = (now / 20000u + 1u) * 20000u;
        ne = rq_qos_next_event(q);
        if (!fast || ne == now) {
            rq_qos_tick(q);
            (*ticks)++;
        } else {
            rq_qos_advance_to(q, ne != RNIC_NEVER && ne < next ? ne : next);
        }
        while (rq_qos_pop_block(q, &b) == RNIC_OK) {
            h = h * 1000003u ^ (b.cycle * 31u + b.offset + b.flow);
            if (nresp < MAX_RESP) {
                resp[nresp].at = rq_qos_now(q) + 2000u;
                resp[nresp].r.tid = b.aux;
                resp[nresp].r.seq = RQ_WORK_SEQ(b.flags);
                resp[nresp].r.ack = 1;
                nresp++;
            }
        }
        while (rq_qos_pop_packet(q, &pk) == RNIC_OK)
            h = h * 1000003u ^ pk.cycle;
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            h = h * 1000003u ^ br.cycle;
    }
    return h;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--quick] [--transfers N] [--seed S] [--ticked]\n"
           "Host speed of the RED-SEA QoS engine on the thesis's verification workload (random transfers of\n"
           "1 B .. 1 MB); a RESULT line at the end.\n"
           "  --quick         10,000 transfers, one repetition (a smoke test); default off\n"
           "  --transfers N   transfers per repetition [transfers]; default 100000 (--quick: 10000); range 1..100000000\n"
           "  --seed S        seed of the workload; default 7; range 0..%llu\n"
           "  --ticked        tick every cycle instead of skipping idle stretches; default off\n"
           "  --help, -h      this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), (unsigned long long)UINT64_MAX);
    exit(0);
}

int main(int argc, char **argv)
{
    uint32_t n = 0;
    uint64_t seed = 7;
    int i, quick = 0, ticked = 0;
    rq_qos_config c;
    rq_qos *q;
    void *mem;
    run_result r;
    double t0, t1, best = 1e30;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--ticked"))
            ticked = 1;
        else if (!strcmp(argv[i], "--transfers"))
            n = (uint32_t)CLI_U64(i, 1, 100000000);
        else if (!strcmp(argv[i], "--seed"))
            seed = CLI_U64(i, 0, UINT64_MAX);
        else
            cli_unknown(argv[0], argv[i]);
    }
    if (n == 0) /* --quick: a tenth of the thesis's 100,000 transfers, run once */
        n = quick ? 10000u : 100000u;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    q = (rq_qos *)malloc(sizeof *q);
    mem = malloc(rq_qos_mem_size(&c));
    memset(&r, 0, sizeof r);
    for (i = 0; i < (quick ? 1 : 3); i++) {
        if (!q || !mem || rq_qos_init(q, &c, mem, rq_qos_mem_size(&c)) != RNIC_OK)
            return 1;
        while (!rq_qos_ready(q))
            rq_qos_tick(q);
        t0 = now_s();
        r = qos_run(q, n, seed, ticked);
        t1 = now_s();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    printf("bench_qos: %llu transfers, %llu blocks, %llu packets in %llu cycles (%.3f ms at 150 MHz); best of %d: "
           "%.3f host s\n",
           (unsigned long long)r.transfers, (unsigned long long)r.blocks, (unsigned long long)r.packets,
           (unsigned long long)r.cycles, (double)r.cycles / 150e3, quick ? 1 : 3, best);
    printf("RESULT transfers_per_s=%.0f blocks_per_s=%.0f mcycles_per_s=%.2f ns_per_block=%.1f\n",
           (double)r.transfers / best, (double)r.blocks / best, (double)r.cycles / best / 1e6,
           best * 1e9 / (double)(r.blocks ? r.blocks : 1));
    { /* the timed workload once ticked and once event-driven: same records, inputs, statistics */
        run_result v[2];
        uint64_t h[2], sh[2];
        rq_qos_stats st[2];
        int k, same;
        for (k = 0; k < 2; k++) {
            if (rq_qos_init(q, &c, mem, rq_qos_mem_size(&c)) != RNIC_OK)
                return 1;
            while (!rq_qos_ready(q))
                rq_qos_tick(q);
            h[k] = 0xcbf29ce484222325ull;
            v[k] = qos_verify(q, n, seed, k, &h[k]);
            st[k] = *rq_qos_get_stats(q);
            { /* the statistics but the refused-input counter (errors: the historical harness offered responses to a full port) */
                rq_qos_stats s0 = st[k];
                const unsigned char *bytes = (const unsigned char *)&s0;
                size_t j;
                memset(&s0.errors, 0, sizeof s0.errors);
                sh[k] = 0xcbf29ce484222325ull;
                for (j = 0; j < sizeof s0; j++)
                    dg_mix(&sh[k], bytes[j]);
            }
        }
        same = h[0] == h[1] && memcmp(&st[0], &st[1], sizeof st[0]) == 0 && v[0].transfers == v[1].transfers &&
               v[0].blocks == v[1].blocks && v[0].packets == v[1].packets && v[0].cycles == v[1].cycles &&
               v[0].blocks == r.blocks && v[0].cycles == r.cycles && v[0].packets == r.packets;
        printf("bench_qos harness: seed %llu, %llu blocks in %llu cycles, ticked / event-driven: digest %016llx / %016llx, "
               "stats %s, stats digest (errors excluded) %016llx; event-driven ticked %llu of %llu cycles\n",
               (unsigned long long)seed, (unsigned long long)v[0].blocks, (unsigned long long)v[0].cycles,
               (unsigned long long)h[0], (unsigned long long)h[1],
               memcmp(&st[0], &st[1], sizeof st[0]) == 0 ? "identical" : "DIFFER", (unsigned long long)sh[0],
               (unsigned long long)v[1].ticks, (unsigned long long)v[1].cycles);
        printf("RESULT qos_harness_identical=%d qos_harness_ticked_pct=%.1f\n", same,
               100.0 * (double)v[1].ticks / (double)(v[1].cycles ? v[1].cycles : 1));
        if (!same)
            return 1;
    }
    { /* fast-forward on a sparse workload */
        uint64_t span = quick ? 2000000u : 20000000u, ticks[2], h[2];
        double secs[2];
        int k;
        for (k = 0; k < 2; k++) {
            if (rq_qos_init(q, &c, mem, rq_qos_mem_size(&c)) != RNIC_OK)
                return 1;
            t0 = now_s();
            h[k] = ff_run(q, k, span, &ticks[k]);
            secs[k] = now_s() - t0;
        }
        printf("bench_qos fast-forward: %llu cycles of a sparse workload, ticked %.3f s; event-driven %.3f s "
               "(%llu cycles ticked); records %s\n",
               (unsigned long long)span, secs[0], secs[1], (unsigned long long)ticks[1],
               h[0] == h[1] ? "identical" : "DIFFER");
        printf("RESULT qos_ff_identical=%d qos_ff_speedup=%.1f qos_ff_ticked_pct=%.2f\n", h[0] == h[1],
               secs[0] / (secs[1] > 1e-9 ? secs[1] : 1e-9), 100.0 * (double)ticks[1] / (double)span);
        if (h[0] != h[1])
            return 1;
    }
    free(mem);
    free(q);
    return 0;
}
