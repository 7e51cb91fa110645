/* Host speed of transport.h (Tonic, NSDI 2020), issue 10's benchmark. One sender engine (tp)
 * with N flows, every flow backlogged (4 queued messages of 1 MB = 1,000 segments of 1,000 B,
 * one pushed again per completion), and the compatible receiver (tp_rx) closing the loop over a
 * fixed delay line of 1,000 cycles each way (10 us RTT at 100 MHz, the paper's); a seeded 1 %
 * drop of data segments for the loss runs. Protocol: tp_protocol_newreno() with its defaults.
 * One simulated cycle = tp_tick + tp_rx_tick + both wires + popping the outputs + refills.
 *
 * Printed per configuration (128, 1,024 and 2,048 flows at W = 128, and 2,048 at W = 256 as in
 * Table 4; each with and without loss): simulated cycles per CPU second of this process (the
 * machine is shared; the best of 5 equal chunks of the measured run, the mean, and the mean per
 * wall-clock second), segments per cycle out of the engine (close to 1.0
 * without loss: the link is kept busy), retransmissions, timeouts, malloc/calloc/realloc/free
 * calls during the measured loop (glibc: counted by wrappers below; must be 0), and engine
 * memory per flow.
 *
 * Baseline measured in the same run: the same loop (same receiver, wires, loss, refills) with
 * the engine replaced by a naive sender that scans all N flows every cycle (timer check and
 * "first flow after the last one served with room in its window"), fixed-window go-back-N;
 * the ratio engine / naive is printed per flow count.
 *
 * Run lengths: 10^6 warm-up cycles, then 10^7 measured cycles for 1,024 flows with loss (the
 * headline and memory figure) and 4 x 10^6 for the other points (--quick: 5 x 10^5 / 2 x 10^5).
 *
 * Memory: VmRSS (/proc/self/statm) after warm-up and after the measured run of the 1,024-flow
 * lossy configuration (10^7 cycles by default; --long: an extra 10^8-cycle run, as the issue
 * asks; the RESULT line says which through rss_cycles).
 *
 *   build/transport_bench [--long] [--quick]
 *   build/transport_bench --one FLOWS W LOSS CYCLES   (one engine point, LOSS 0 or 1; for profiling)
 *   build/transport_bench --callgrind     (1,024 flows with loss: warm-up, then 200,000
 *                                          cycles in transport_run(); tools/callgrind_transport.sh)
 * Ends with: RESULT mcycles_per_s_1k=... mcycles_per_s_2k=... rss_growth_bytes=... (and more;
 * ir_per_cycle_1k comes from tools/callgrind_transport.sh). External figure, not measurable
 * here: the issue author measured Tonic's own C++ simulator at 0.6 - 1.0 M cycles/s at 1,024
 * flows and 1.1 - 1.4 M at 128, about 4,700 instructions per cycle; it cannot be built here. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime, sysconf */
#define RNIC_IMPLEMENTATION
#include "transport.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../examples/cli.h"
#include "bench_util.h"

/* ---- allocation counter (glibc): every malloc/calloc/realloc/free of the process, the
 * engine's included, goes through these; the loop reads the count before and after ---- */
#if defined(__GLIBC__) && defined(__linux__)
#define BENCH_COUNTS_ALLOC 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
/* volatile: the compiler treats malloc as a leaf that touches no globals of this unit */
static volatile unsigned long alloc_calls;
void *malloc(size_t n)
{
    alloc_calls++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    alloc_calls++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    alloc_calls++;
    return __libc_realloc(p, n);
}
void free(void *p)
{
    alloc_calls++;
    __libc_free(p);
}
static unsigned long alloc_count(void) { return alloc_calls; }
#else
#define BENCH_COUNTS_ALLOC 0
static unsigned long alloc_count(void) { return 0; }
#endif

#define DELAY 1000u                 /* cycles each way: 10 us RTT at 100 MHz */
#define SEG 1000u                   /* segment bytes (the paper's ns-3 runs) */
#define MSG_LEN (1000u * SEG)       /* 1 MB messages */
#define MSGS_PER_FLOW 4u            /* queued per flow, topped up on every completion */
#define LOSS_PERMILLE 10u           /* 1 % of data segments dropped */
/* Timers: the paper's ns-3 runs use a 200 ms minimum RTO and ns-3's 200 ms delayed-ACK timeout,
 * made for a WAN; with 1 % random loss a flow whose window fell to 2 segments then waits 200 ms
 * (20 M cycles) for a lost segment or a held ACK, and within a few M cycles most flows sit idle
 * (measured at 1,024 flows, engine 953edea: 1.0 segment per cycle until 3 M cycles, 0.17 at 6 M,
 * 0.007 at 8 M). Scaled to this 10 us RTT so that every flow stays backlogged and the engine
 * busy (measured: 1.0 segment per cycle over 10^8 cycles): */
#ifndef RTO_US
#define RTO_US 1000u                /* minimum RTO 1 ms = 100 base RTTs (NewReno doubles it per consecutive timeout) */
#endif
#ifndef DELACK_US
#define DELACK_US 40u               /* delayed-ACK timeout 40 us = 4 base RTTs (every 2nd segment is ACKed at once) */
#endif
#define NAIVE_WND 32u               /* the naive sender's fixed window (segments) */
#define NAIVE_RTO (RTO_US * 100u)  /* its retransmission timeout in cycles (100 MHz) */

/* The protocol: NewReno (RFC 6582, as ns-3 runs it; the paper's App. F) with its defaults:
 * initial window 10 segments, DupThresh 3, limited transmit, minimum RTO 200 ms (the paper's
 * ns-3 runs), doubled per consecutive timeout. */
#define PROTOCOL (tp_protocol_newreno())

/* ---- the loop: engine, receiver, two delay lines ---- */

typedef struct line { /* a fixed delay line: what enters in cycle c leaves in cycle c + DELAY */
    rnic_work w[DELAY];
    unsigned char full[DELAY];
} line;

typedef struct naive_flow {
    uint32_t una, nxt, hi, dup;  /* first unacked, next to send, one past the highest sent */
    uint64_t rto_at;
} naive_flow;

typedef struct bench {
    uint32_t nflows, window;
    tp *t;
    tp_rx *rx;
    void *tmem, *rmem;
    naive_flow *nv;              /* the naive sender instead of t (baseline) */
    uint32_t nv_rr;
    uint64_t nv_now, nv_out, nv_rtx;
    line data, ack;
    uint32_t slot;               /* cycle mod DELAY */
    rnic_prng g;
    uint64_t drop_below;         /* a data segment is dropped when the PRNG draws below this */
    uint64_t drops, delivered, refills, refused;
    size_t mem_bytes;
} bench;

static void die(const char *what)
{
    fprintf(stderr, "transport_bench: %s\n", what);
    exit(1);
}

static void refill(bench *b, uint32_t flow, uint64_t tag)
{
    rnic_work m;
    memset(&m, 0, sizeof m);
    m.flow = flow;
    m.len = MSG_LEN;
    m.addr = (uint64_t)flow << 32;
    m.raddr = m.addr;
    m.tag = tag;
    if (tp_push_message(b->t, &m) != RNIC_OK)
        die("tp_push_message refused a refill");
}

static bench *bench_new(uint32_t nflows, uint32_t window, int loss, int naive)
{
    bench *b = (bench *)calloc(1, sizeof *b);
    tp_rx_config rc;
    uint32_t f, k;
    if (!b)
        die("out of memory");
    b->nflows = nflows;
    b->window = window;
    rnic_prng_seed(&b->g, 20200225u + nflows + window);
    b->drop_below = loss ? (UINT64_MAX / 1000u) * LOSS_PERMILLE : 0;
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = nflows;
    rc.window = window;
    rc.delack_ns = (uint64_t)DELACK_US * 1000u;
    rc.sack = false; /* NewReno: cumulative ACKs only, as ns-3 with Sack=false (the paper's runs) */
    b->rx = (tp_rx *)malloc(sizeof(tp_rx));
    b->rmem = malloc(tp_rx_mem_size(&rc));
    if (!b->rx || !b->rmem || tp_rx_init(b->rx, &rc, b->rmem, tp_rx_mem_size(&rc)) != RNIC_OK)
        die("tp_rx_init failed");
    b->mem_bytes = tp_rx_mem_size(&rc);
    for (f = 0; f < nflows; f++)
        if (tp_rx_flow_open(b->rx, f, NULL) != RNIC_OK)
            die("tp_rx_flow_open failed");
    if (naive) {
        b->nv = (naive_flow *)calloc(nflows, sizeof *b->nv);
        if (!b->nv)
            die("out of memory");
        return b;
    } else {
        tp_config c;
        tp_flow_config p;
        const char *field;
        tp_config_default(&c);
        c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        c.max_flows = nflows;
        c.window = window;
        c.protocol = PROTOCOL;
        if (tp_config_check(&c, &field) != RNIC_OK) {
            fprintf(stderr, "bad config field %s\n", field ? field : "?");
            exit(1);
        }
        b->t = (tp *)malloc(sizeof(tp));
        b->tmem = malloc(tp_mem_size(&c));
        if (!b->t || !b->tmem || tp_init(b->t, &c, b->tmem, tp_mem_size(&c)) != RNIC_OK)
            die("tp_init failed");
        b->mem_bytes += tp_mem_size(&c);
        tp_flow_config_default(&p);
        p.seg_size = SEG;
        p.rto_ns = (uint64_t)RTO_US * 1000u;
        for (f = 0; f < nflows; f++) {
            if (tp_flow_open(b->t, f, &p) != RNIC_OK)
                die("tp_flow_open failed");
            for (k = 0; k < MSGS_PER_FLOW; k++)
                refill(b, f, (uint64_t)f * 1000000u + k);
        }
    }
    return b;
}

static void bench_free(bench *b)
{
    free(b->tmem);
    free(b->t);
    free(b->rmem);
    free(b->rx);
    free(b->nv);
    free(b);
}

/* The wire into the receiver: the segment dropped (loss runs) or put on the delay line. */
static void wire_data(bench *b, const rnic_work *seg, uint32_t s)
{
    if (b->drop_below && rnic_prng_next(&b->g) < b->drop_below) {
        b->drops++;
        return;
    }
    b->data.w[s] = *seg;
    b->data.full[s] = 1;
}

/* The receiver's side of one cycle, shared by both senders: the data line's exit into tp_rx,
 * its tick, one ACK onto the return line, delivered segments drained. */
static void receiver_cycle(bench *b, uint32_t s)
{
    rnic_work w;
    if (b->data.full[s] && tp_rx_push_segment(b->rx, &b->data.w[s]) != RNIC_OK)
        b->refused++;
    b->data.full[s] = 0;
    tp_rx_tick(b->rx);
    b->ack.full[s] = tp_rx_pop_ack(b->rx, &b->ack.w[s]) == RNIC_OK;
    while (tp_rx_pop_delivered(b->rx, &w) == RNIC_OK)
        b->delivered++;
}

/* The loop with the engine. */
NOINLINE void transport_run(bench *b, uint64_t cycles);
NOINLINE void transport_run(bench *b, uint64_t cycles)
{
    tp *t = b->t;
    rnic_work w;
    uint32_t s = b->slot;
    uint64_t i;
    for (i = 0; i < cycles; i++) {
        if (b->ack.full[s] && tp_push_incoming(t, &b->ack.w[s]) != RNIC_OK)
            b->refused++;
        tp_tick(t);
        if (tp_pop_segment(t, &w) == RNIC_OK)
            wire_data(b, &w, s);
        receiver_cycle(b, s);
        while (tp_pop_completion(t, &w) == RNIC_OK) {
            refill(b, w.flow, w.tag + MSGS_PER_FLOW);
            b->refills++;
        }
        s = s + 1u == DELAY ? 0 : s + 1u;
    }
    b->slot = s;
}

/* The baseline: the same loop with a naive sender that scans every flow every cycle. */
NOINLINE void naive_run(bench *b, uint64_t cycles);
NOINLINE void naive_run(bench *b, uint64_t cycles)
{
    uint32_t s = b->slot, n = b->nflows, k;
    uint64_t i;
    for (i = 0; i < cycles; i++, b->nv_now++) {
        uint32_t pick = RNIC_NONE, f = b->nv_rr;
        if (b->ack.full[s]) { /* one ACK per cycle: cumulative, 3 duplicates go back N */
            const rnic_work *a = &b->ack.w[s];
            naive_flow *fl = &b->nv[a->flow];
            if ((int32_t)(a->index - fl->una) > 0 && (int32_t)(a->index - fl->hi) <= 0) {
                fl->una = a->index;
                if ((int32_t)(fl->nxt - fl->una) < 0)
                    fl->nxt = fl->una;
                fl->dup = 0;
                fl->rto_at = b->nv_now + NAIVE_RTO;
            } else if (a->index == fl->una && fl->nxt != fl->una && ++fl->dup == 3u) {
                b->nv_rtx += fl->nxt - fl->una;
                fl->nxt = fl->una;
            }
        }
        for (k = 0; k < n; k++) { /* every flow: timer, and the first with room after the last served */
            naive_flow *fl = &b->nv[f];
            if (fl->nxt != fl->una && b->nv_now >= fl->rto_at) {
                b->nv_rtx += fl->nxt - fl->una;
                fl->nxt = fl->una;
                fl->dup = 0;
                fl->rto_at = b->nv_now + NAIVE_RTO;
            }
            if (pick == RNIC_NONE && fl->nxt - fl->una < NAIVE_WND)
                pick = f;
            f = f + 1u == n ? 0 : f + 1u;
        }
        if (pick != RNIC_NONE) {
            naive_flow *fl = &b->nv[pick];
            rnic_work w;
            memset(&w, 0, sizeof w);
            w.flow = pick;
            w.index = fl->nxt;
            w.len = SEG;
            w.op = TP_PKT_DATA;
            w.cycle = b->nv_now;
            if (fl->nxt == fl->una)
                fl->rto_at = b->nv_now + NAIVE_RTO;
            fl->nxt++;
            if ((int32_t)(fl->nxt - fl->hi) > 0)
                fl->hi = fl->nxt;
            b->nv_out++;
            b->nv_rr = pick + 1u == n ? 0 : pick + 1u;
            wire_data(b, &w, s);
        }
        receiver_cycle(b, s);
        s = s + 1u == DELAY ? 0 : s + 1u;
    }
    b->slot = s;
}

/* CPU seconds of this process: the machine is shared, and a benchmark descheduled for part of
 * a chunk would otherwise be charged for others' work (wall time is printed as well). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rss_bytes(void)
{
    unsigned long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

typedef struct result {
    double best_mcps, mean_mcps;   /* simulated M cycles per CPU second: best chunk, whole run */
    double wall_mcps;              /* per wall-clock second, whole run */
    double segs_per_cycle;
    uint64_t cycles, segs, rtx, timeouts, drops, delivered, refused;
    unsigned long allocs;
    uint64_t rss_before, rss_after;
    size_t mem_bytes;
} result;

#define CHUNKS 5u

static result run(uint32_t nflows, uint32_t window, int loss, int naive, uint64_t warm, uint64_t cycles)
{
    bench *b = bench_new(nflows, window, loss, naive);
    result r;
    uint64_t segs0 = 0, rtx0 = 0, to0 = 0, drops0, del0, ref0, chunk = cycles / CHUNKS;
    unsigned long a0;
    double total = 0, best = 1e30, wall = 0;
    uint32_t i;
    memset(&r, 0, sizeof r);
    if (naive)
        naive_run(b, warm);
    else
        transport_run(b, warm);
    if (naive) {
        segs0 = b->nv_out;
        rtx0 = b->nv_rtx;
    } else {
        segs0 = tp_get_stats(b->t)->segments_out;
        rtx0 = tp_get_stats(b->t)->segments_rtx;
        to0 = tp_get_stats(b->t)->timeouts;
    }
    drops0 = b->drops;
    del0 = b->delivered;
    ref0 = b->refused;
    r.rss_before = rss_bytes();
    a0 = alloc_count();
    for (i = 0; i < CHUNKS; i++) {
        double w0 = now_s(), t0 = cpu_s(), dt;
        if (naive)
            naive_run(b, chunk);
        else
            transport_run(b, chunk);
        dt = cpu_s() - t0;
        wall += now_s() - w0;
        total += dt;
        if (dt < best)
            best = dt;
    }
    r.allocs = alloc_count() - a0;
    r.rss_after = rss_bytes();
    r.cycles = chunk * CHUNKS;
    r.best_mcps = (double)chunk / best / 1e6;
    r.mean_mcps = (double)r.cycles / total / 1e6;
    r.wall_mcps = (double)r.cycles / wall / 1e6;
    if (naive) {
        r.segs = b->nv_out - segs0;
        r.rtx = b->nv_rtx - rtx0;
    } else {
        r.segs = tp_get_stats(b->t)->segments_out - segs0;
        r.rtx = tp_get_stats(b->t)->segments_rtx - rtx0;
        r.timeouts = tp_get_stats(b->t)->timeouts - to0;
    }
    r.drops = b->drops - drops0;
    r.delivered = b->delivered - del0;
    r.refused = b->refused - ref0;
    r.segs_per_cycle = (double)r.segs / (double)r.cycles;
    r.mem_bytes = b->mem_bytes;
    bench_free(b);
    return r;
}

static void print_result(const char *who, uint32_t nflows, uint32_t window, int loss, const result *r)
{
    printf("%-6s flows=%-5u W=%-3u loss=%-3s %6.2f Mcycles/s (mean %5.2f, wall %5.2f) seg/cycle=%.3f rtx=%llu timeouts=%llu "
           "delivered/cycle=%.3f refused=%llu allocs=%lu mem/flow=%zu B\n",
           who, nflows, window, loss ? "1%" : "0", r->best_mcps, r->mean_mcps, r->wall_mcps, r->segs_per_cycle,
           (unsigned long long)r->rtx, (unsigned long long)r->timeouts, (double)r->delivered / (double)r->cycles,
           (unsigned long long)r->refused, r->allocs, r->mem_bytes / nflows);
    fflush(stdout);
}

/* The part callgrind counts (--toggle-collect=measured_run): warm-up runs outside it. */
NOINLINE void measured_run(bench *b, uint64_t cycles);
NOINLINE void measured_run(bench *b, uint64_t cycles) { transport_run(b, cycles); }

static int callgrind_mode(void)
{
    bench *b = bench_new(1024, 128, 1, 0);
    transport_run(b, 1000000u);
    measured_run(b, 200000u);
    printf("callgrind: 1024 flows W=128 1%% loss, warm-up 1000000 cycles, then measured 200000 cycles; segments_out=%llu\n",
           (unsigned long long)tp_get_stats(b->t)->segments_out);
    bench_free(b);
    return 0;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--long] [--quick]\n"
           "       %s --one FLOWS W LOSS CYCLES | --callgrind\n"
           "Host speed of Tonic (transport.h) at 128, 1,024 and 2,048 flows, with and without loss, and its memory over a\n"
           "long lossy run; a RESULT line at the end.\n"
           "  --long       an extra 10^8-cycle lossy run; default off\n"
           "  --quick      fewer cycles per point (a smoke test); default off\n"
           "  --one FLOWS W LOSS CYCLES\n"
           "               one engine point for profiling: FLOWS [flows] range 1..%u, window W [segments] range 1..%u,\n"
           "               LOSS 0 or 1, CYCLES [cycles] range 1..1000000000000\n"
           "  --callgrind  1,024 flows with loss for tools/callgrind_transport.sh\n"
           "  --help, -h   this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), cli_prog(argv0), TP_MAX_FLOWS, TP_MAX_WINDOW);
    exit(0);
}

int main(int argc, char **argv)
{
    static const uint32_t flows[3] = {128u, 1024u, 2048u};
    int long_mode = 0, quick = 0, i, loss;
    uint64_t warm, cycles, naive_cycles[3];
    result eng[3][2], w256[2], nv[3], rss;
    unsigned long allocs = 0;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--long"))
            long_mode = 1;
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--callgrind"))
            return callgrind_mode();
        else if (!strcmp(argv[i], "--one")) { /* --one FLOWS W LOSS(0/1) CYCLES: one engine point */
            uint32_t nf, w;
            int ls;
            uint64_t cyc;
            result r;
            if (i + 4 >= argc)
                cli_error(argv[0], "--one needs FLOWS W LOSS CYCLES");
            nf = (uint32_t)cli_u64(argv[0], "--one FLOWS", argv[i + 1], 1, TP_MAX_FLOWS);
            w = (uint32_t)cli_u64(argv[0], "--one W", argv[i + 2], 1, TP_MAX_WINDOW);
            ls = (int)cli_u64(argv[0], "--one LOSS", argv[i + 3], 0, 1);
            cyc = cli_u64(argv[0], "--one CYCLES", argv[i + 4], 1, 1000000000000ull);
            r = run(nf, w, ls, 0, 1000000u, cyc);
            print_result("engine", nf, w, ls, &r);
            return 0;
        }
        else
            cli_unknown(argv[0], argv[i]);
    }
    { /* the allocation counter must see a call, or allocs=0 below proves nothing */
        unsigned long a0 = alloc_count();
        void *volatile probe = malloc(16);
        free(probe);
        if (BENCH_COUNTS_ALLOC && alloc_count() - a0 != 2u)
            die("the malloc counter missed a call");
    }
    warm = quick ? 200000u : 1000000u;
    cycles = quick ? 500000u : 10000000u;
    naive_cycles[0] = quick ? 100000u : 2000000u;
    naive_cycles[1] = quick ? 50000u : 500000u;
    naive_cycles[2] = quick ? 50000u : 250000u;
    printf("transport.h %s, protocol: %s; RTT %u cycles, %u B segments, %u x 1 MB messages per flow\n", tp_version(),
           PROTOCOL->name, 2u * DELAY, SEG, MSGS_PER_FLOW);
    for (i = 0; i < 3; i++)
        for (loss = 0; loss < 2; loss++) {
            eng[i][loss] = run(flows[i], 128u, loss, 0, warm, i == 1 && loss ? cycles : cycles * 2u / 5u);
            print_result("engine", flows[i], 128u, loss, &eng[i][loss]);
            allocs += eng[i][loss].allocs;
        }
    for (loss = 0; loss < 2; loss++) {
        w256[loss] = run(2048u, 256u, loss, 0, warm, cycles * 2u / 5u);
        print_result("engine", 2048u, 256u, loss, &w256[loss]);
        allocs += w256[loss].allocs;
    }
    for (i = 0; i < 3; i++) {
        nv[i] = run(flows[i], 128u, 1, 1, warm / 4u, naive_cycles[i]);
        print_result("naive", flows[i], 128u, 1, &nv[i]);
        printf("       engine / naive at %u flows with loss: %.1fx\n", flows[i], eng[i][1].best_mcps / nv[i].best_mcps);
    }
    rss = eng[1][1];
    if (long_mode) {
        rss = run(1024u, 128u, 1, 0, warm, 100000000u);
        print_result("long", 1024u, 128u, 1, &rss);
        allocs += rss.allocs;
    }
    printf("memory (1024 flows, 1%% loss, %llu cycles after warm-up): VmRSS %llu -> %llu bytes\n",
           (unsigned long long)rss.cycles, (unsigned long long)rss.rss_before, (unsigned long long)rss.rss_after);
    printf("external figure (not measured here): Tonic's C++ simulator, measured by the issue author, 0.6 - 1.0 M "
           "cycles/s at 1,024 flows, 1.1 - 1.4 M at 128, ~4,700 instructions per cycle (it cannot be built here)\n");
    printf("RESULT mcycles_per_s_1k=%.2f mcycles_per_s_2k=%.2f rss_growth_bytes=%lld rss_cycles=%llu "
           "mcycles_per_s_128=%.2f mcycles_per_s_1k_noloss=%.2f mcycles_per_s_2k_w256=%.2f seg_per_cycle_1k_noloss=%.3f "
           "seg_per_cycle_1k=%.3f naive_mcycles_per_s_1k=%.3f speedup_vs_naive_1k=%.1f allocs_in_loop=%lu%s protocol=%s cycles=%llu\n",
           eng[1][1].best_mcps, eng[2][1].best_mcps, (long long)(rss.rss_after - rss.rss_before),
           (unsigned long long)rss.cycles, eng[0][1].best_mcps, eng[1][0].best_mcps, w256[1].best_mcps,
           eng[1][0].segs_per_cycle, eng[1][1].segs_per_cycle, nv[1].best_mcps, eng[1][1].best_mcps / nv[1].best_mcps,
           allocs, BENCH_COUNTS_ALLOC ? "" : "(uncounted)", PROTOCOL->name, (unsigned long long)eng[1][1].cycles);
    return 0;
}
