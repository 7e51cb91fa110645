/* Host speed of the RED-SEA QoS engine model on the thesis's verification workload: random
 * transfers of 1 B .. 1 MB (a quarter inline), random alignment, types, priorities and
 * domains, written as AXI beats, blocks and packets acknowledged by a responder after 5 .. 600
 * cycles, status polled 32 channels at a time. Prints simulated transfers, blocks and cycles
 * per host second.
 *   build/bench_qos [--quick] [--transfers N]
 * Then fast-forward on a sparse workload (a 200 KB transfer every 20,000 cycles, ACKs 2,000
 * cycles after each block): ticked every cycle vs the event-driven loop (rq_qos_next_event /
 * rq_qos_advance_to), the records of both checked identical.
 * For callgrind (tools/callgrind_qos.sh): the timed part is qos_run().
 * Ends with: RESULT transfers_per_s=... blocks_per_s=... mcycles_per_s=... ns_per_block=...
 *            RESULT qos_ff_identical=1 qos_ff_speedup=... qos_ff_ticked_pct=... */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

typedef struct pending_resp {
    uint64_t at;
    rq_response r;
} pending_resp;

enum { MAX_RESP = 4096 };

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

typedef struct run_result {
    uint64_t transfers, blocks, packets, cycles;
} run_result;

NOINLINE run_result qos_run(rq_qos *q, uint32_t n, uint64_t seed);
NOINLINE run_result qos_run(rq_qos *q, uint32_t n, uint64_t seed)
{
    static pending_resp resp[MAX_RESP];
    static uint8_t busy[16][64];
    uint32_t nresp = 0, issued = 0, i;
    uint64_t now;
    run_result res;
    rnic_prng p;
    memset(&res, 0, sizeof res);
    memset(busy, 0, sizeof busy);
    rnic_prng_seed(&p, seed);
    while (res.transfers < n) {
        rnic_work b;
        rq_packet pk;
        rq_axi_bresp br;
        rq_axi_rdata rd;
        if (issued < n && rq_qos_space_axi_write(q) >= 8u) {
            uint32_t d = (uint32_t)rnic_prng_below(&p, 16), ch = 2u * (uint32_t)rnic_prng_below(&p, 32);
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
                        dd[0] = l[ln][w];
                        dd[1] = l[ln][w + 1u];
                        rq_qos_axi_write(q, d, addr_of(d, ch + ln, w), dd, 16);
                    }
                issued++;
            }
        }
        now = rq_qos_now(q); /* once per cycle: the responder's loop is the bench's, not the engine's */
        for (i = 0; i < nresp;) {
            if (resp[i].at <= now && rq_qos_push_response(q, &resp[i].r) == RNIC_OK) {
                resp[i] = resp[--nresp];
                continue;
            }
            i++;
        }
        rq_qos_tick(q);
        res.cycles++;
        now = rq_qos_now(q);
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            ;
        while (nresp < MAX_RESP && rq_qos_pop_block(q, &b) == RNIC_OK) {
            resp[nresp].at = now + rnic_prng_range(&p, 5, 600);
            resp[nresp].r.tid = b.aux; /* TID */
            resp[nresp].r.seq = b.op; /* sequence number */
            resp[nresp].r.ack = 1;
            nresp++;
            res.blocks++;
        }
        while (nresp < MAX_RESP && rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            res.packets++;
            if (pk.kind != RQ_PKT_INLINE)
                continue;
            resp[nresp].at = now + rnic_prng_range(&p, 5, 600);
            resp[nresp].r.tid = pk.tid;
            resp[nresp].r.seq = pk.seq;
            resp[nresp].r.ack = 1;
            nresp++;
        }
        if (now % 4u == 0) /* answered next cycle; decoded from the answer's cycle below */
            rq_qos_axi_read(q, (uint32_t)(now / 4u) % 16u, (uint32_t)(now / 4u) % 16u, (uint32_t)(now / 64u) % 2u, 1);
        while (rq_qos_pop_rdata(q, &rd) == RNIC_OK) {
            uint32_t j, d = (uint32_t)((rd.cycle - 1u) / 4u) % 16u, half = (uint32_t)((rd.cycle - 1u) / 64u) % 2u;
            for (j = 0; j < 32; j++)
                if (((rd.data >> (2u * j)) & 3u) >= RQ_DONE) {
                    busy[d][half * 32u + j] = 0;
                    res.transfers++;
                }
        }
        if (res.cycles > 100000000ull) { /* a hang is a failure, not a slow run */
            fprintf(stderr, "bench_qos: %llu of %u transfers after %llu cycles\n", (unsigned long long)res.transfers, n,
                    (unsigned long long)res.cycles);
            exit(1);
        }
    }
    return res;
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
                resp[nresp].r.seq = b.op;
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

int main(int argc, char **argv)
{
    uint32_t n = 0;
    int i, quick = 0;
    rq_qos_config c;
    rq_qos *q;
    void *mem;
    run_result r;
    double t0, t1, best = 1e30;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--transfers") && i + 1 < argc)
            n = (uint32_t)strtoul(argv[++i], NULL, 0);
    }
    if (n == 0) /* --quick: a tenth of the thesis's 100,000 transfers, run once */
        n = quick ? 10000u : 100000u;
    rq_qos_config_default(&c);
    q = (rq_qos *)malloc(sizeof *q);
    mem = malloc(rq_qos_mem_size(&c));
    memset(&r, 0, sizeof r);
    for (i = 0; i < (quick ? 1 : 3); i++) {
        if (!q || !mem || rq_qos_init(q, &c, mem, rq_qos_mem_size(&c)) != RNIC_OK)
            return 1;
        while (!rq_qos_ready(q))
            rq_qos_tick(q);
        t0 = now_s();
        r = qos_run(q, n, 7);
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
