/* Cost per packet decision of the Tassel engine vs a plain binary-heap WF2Q+ rate limiter,
 * measured in the same run, at 1 K, 10 K and 64 K backlogged QPs, for two workloads:
 *   logu: rates log-uniform 100 Mb/s .. 100 Gb/s (oversubscribed: Phi >> 1)
 *   fair: every QP at 100 Gb/s / N (Phi = 1; nothing lands in the 1 us wheel)
 * "ns per decision" = host time / packets transmitted, the engine driven with rl_advance
 * (fast-forward) exactly as a simulator would. The baseline does the same decisions with
 * two binary heaps (start-ordered pending, finish-ordered eligible), no hardware model.
 *
 *   build/bench_ratelimit [--quick]
 *   build/bench_ratelimit --point QPS fair|logu PACKETS [heap]
 *     one point, for `valgrind --tool=callgrind --collect-atstart=no
 *     --toggle-collect=measured_run` (tools/callgrind_per_decision.sh): instructions per decision
 * Ends with: RESULT ns_1k=... ns_64k=... heap_ns_64k=... speedup_64k=... flatness=... mem_per_qp=...
 * mem_per_qp_nostats=... (cfg.flow_stats = 0) */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../examples/cli.h"
#include "bench_util.h"

#define CLOCK_HZ 250000000ull
#define LINK_BPS 100000000000ull
#define MTU 4096u

static uint32_t backlog(void *user, uint32_t qp, uint32_t seq, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user;
    for (i = 0; i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].tag = qp ^ (seq + i);
        out[i].len = 1u << 30;
    }
    return max;
}

static void make_rates(uint64_t *rates, uint32_t n, int fair, uint64_t seed)
{
    rnic_prng p;
    uint32_t i;
    rnic_prng_seed(&p, seed);
    for (i = 0; i < n; i++) {
        uint64_t r = fair ? LINK_BPS / n : rnic_prng_log_range(&p, 100000000ull, LINK_BPS);
        rates[i] = r < 100000ull ? 100000ull : r;
    }
}

/* ---- the engine ---- */

/* The timed part (also the callgrind toggle): drive the engine until `packets` left. */
NOINLINE uint64_t measured_run(rl *r, uint64_t packets, uint64_t *sum);
NOINLINE uint64_t measured_run(rl *r, uint64_t packets, uint64_t *sum)
{
    uint64_t sent = 0;
    rnic_work tx;
    while (sent < packets) {
        rl_advance(r, 512); /* stops early if the TX port fills: drained below */
        while (rl_pop_tx(r, &tx) == RNIC_OK) {
            sent++;
            *sum += tx.flow * 31u + tx.cycle;
        }
    }
    return sent;
}
static double bench_engine(uint32_t n, const uint64_t *rates, uint64_t packets, uint64_t *checksum)
{
    rl_config cfg;
    rl *r = (rl *)malloc(sizeof *r);
    void *mem;
    rnic_work tx;
    uint64_t sent = 0, sum = 0, i, warm;
    double t0, t1;
    rl_config_default(&cfg);
    cfg.max_flows = n;
    cfg.source = backlog;
    cfg.tx_depth = 1024;
    mem = malloc(rl_mem_size(&cfg));
    if (!r || !mem || rl_init(r, &cfg, mem, rl_mem_size(&cfg)) != RNIC_OK)
        exit(1);
    for (i = 0; i < n; i++) {
        rl_set_rate(r, (uint32_t)i, rates[i]);
        rl_doorbell(r, (uint32_t)i);
    }
    /* warm-up: every QP activated and fetched once */
    warm = 4u * n + 10000u;
    do
        while (rl_pop_tx(r, &tx) == RNIC_OK)
            ;
    while (rl_now(r) < warm && rl_advance_to(r, warm) > 0);
    while (rl_pop_tx(r, &tx) == RNIC_OK)
        ;
    t0 = now_s();
    sent = measured_run(r, packets, &sum);
    t1 = now_s();
    *checksum += sum;
    free(mem);
    free(r);
    return (t1 - t0) * 1e9 / (double)sent;
}

/* ---- baseline: binary-heap WF2Q+ (Fig. 1), non-work-conserving, V = real time ---- */
typedef struct flow {
    uint64_t start, finish; /* in 2^-32 cycles, truncated to 64 bits of range: plenty here */
    uint64_t cpb;
} flow;

typedef struct heap {
    uint32_t *a, n;
    const flow *f;
    int by_finish;
} heap;

static uint64_t key_of(const heap *h, uint32_t x) { return h->by_finish ? h->f[x].finish : h->f[x].start; }

static void heap_push(heap *h, uint32_t x)
{
    uint32_t i = h->n++;
    h->a[i] = x;
    while (i && (key_of(h, h->a[i]) < key_of(h, h->a[(i - 1) / 2]) ||
                 (key_of(h, h->a[i]) == key_of(h, h->a[(i - 1) / 2]) && h->a[i] < h->a[(i - 1) / 2]))) {
        uint32_t t = h->a[i];
        h->a[i] = h->a[(i - 1) / 2];
        h->a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static uint32_t heap_pop(heap *h)
{
    uint32_t top = h->a[0], i = 0;
    h->a[0] = h->a[--h->n];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, b = i, t;
        if (l < h->n && (key_of(h, h->a[l]) < key_of(h, h->a[b]) || (key_of(h, h->a[l]) == key_of(h, h->a[b]) && h->a[l] < h->a[b])))
            b = l;
        if (r < h->n && (key_of(h, h->a[r]) < key_of(h, h->a[b]) || (key_of(h, h->a[r]) == key_of(h, h->a[b]) && h->a[r] < h->a[b])))
            b = r;
        if (b == i)
            break;
        t = h->a[i];
        h->a[i] = h->a[b];
        h->a[b] = t;
        i = b;
    }
    return top;
}

/* The timed part of the baseline (also its callgrind toggle). */
NOINLINE uint64_t heap_run(flow *f, heap *pend, heap *elig, uint64_t link_cpb, uint64_t packets, uint64_t *sum);
NOINLINE uint64_t heap_run(flow *f, heap *pend, heap *elig, uint64_t link_cpb, uint64_t packets, uint64_t *sum)
{
    uint64_t V = 0, sent = 0;
    while (sent < packets) {
        uint32_t x;
        while (pend->n && f[pend->a[0]].start <= V) /* eligibility */
            heap_push(elig, heap_pop(pend));
        if (!elig->n) { /* idle link: jump to the next start */
            V = f[pend->a[0]].start;
            continue;
        }
        x = heap_pop(elig); /* smallest finish */
        sent++;
        *sum += x * 31u + (V >> 32);
        V += MTU * link_cpb; /* the link is busy for one packet */
        f[x].start = f[x].finish;
        f[x].finish = f[x].start + MTU * f[x].cpb;
        heap_push(pend, x);
    }
    return sent;
}

static double bench_heap(uint32_t n, const uint64_t *rates, uint64_t packets, uint64_t *checksum)
{
    flow *f = (flow *)calloc(n, sizeof *f);
    heap pend, elig;
    uint64_t link_cpb = (uint64_t)((double)CLOCK_HZ * 8.0 * 4294967296.0 / (double)LINK_BPS), sent, sum = 0;
    uint32_t i;
    double t0, t1;
    pend.a = (uint32_t *)malloc(n * sizeof(uint32_t));
    elig.a = (uint32_t *)malloc(n * sizeof(uint32_t));
    pend.n = elig.n = 0;
    pend.f = elig.f = f;
    pend.by_finish = 0;
    elig.by_finish = 1;
    for (i = 0; i < n; i++) {
        f[i].cpb = (uint64_t)((double)CLOCK_HZ * 8.0 * 4294967296.0 / (double)rates[i]);
        f[i].start = 0;
        f[i].finish = MTU * f[i].cpb;
        heap_push(&pend, i);
    }
    heap_run(f, &pend, &elig, link_cpb, 2u * n, &sum); /* warm-up: every flow sent, heaps settled */
    t0 = now_s();
    sent = heap_run(f, &pend, &elig, link_cpb, packets, &sum);
    t1 = now_s();
    *checksum += sum;
    free(pend.a);
    free(elig.a);
    free(f);
    return (t1 - t0) * 1e9 / (double)sent;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--quick]\n"
           "       %s --point QPS fair|logu PACKETS [heap]\n"
           "Cost per packet decision of Tassel vs a binary-heap WF2Q+ limiter at 1 K, 10 K and 64 K backlogged QPs;\n"
           "a RESULT line at the end.\n"
           "  --quick           100,000 packets per point, one repetition; default 1,000,000 packets, best of 3\n"
           "  --point QPS fair|logu PACKETS [heap]\n"
           "                    one point for callgrind (tools/callgrind_per_decision.sh): QPS backlogged QPs\n"
           "                    [QPs] range 1..65536; fair (all at link / QPS) or logu (log-uniform 100 Mb/s ..\n"
           "                    100 Gb/s) rates; PACKETS decisions [packets] range 1..10000000000; heap: the baseline\n"
           "  --help, -h        this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    static const uint32_t sizes[] = { 1024, 10240, 65536 };
    int quick = argc == 2 && !strcmp(argv[1], "--quick");
    if (argc > 1 && cli_is_help(argv[1]))
        usage(argv[0]);
    if (argc > 1 && !strcmp(argv[1], "--point")) { /* one point for callgrind */
        uint32_t n;
        uint64_t pk, cs = 0;
        uint64_t *rt;
        if (argc < 5 || argc > 6)
            cli_error(argv[0], "--point needs QPS fair|logu PACKETS [heap]");
        n = (uint32_t)cli_u64(argv[0], "--point QPS", argv[2], 1, 65536);
        if (strcmp(argv[3], "fair") && strcmp(argv[3], "logu"))
            cli_error(argv[0], "--point: '%s' is not one of fair or logu", argv[3]);
        pk = cli_u64(argv[0], "--point PACKETS", argv[4], 1, 10000000000ull);
        if (argc == 6 && strcmp(argv[5], "heap"))
            cli_error(argv[0], "--point: '%s' is not heap", argv[5]);
        rt = (uint64_t *)malloc(n * sizeof(uint64_t));
        if (!rt)
            return 1;
        make_rates(rt, n, !strcmp(argv[3], "fair"), 42);
        if (argc >= 6 && !strcmp(argv[5], "heap"))
            bench_heap(n, rt, pk, &cs);
        else
            bench_engine(n, rt, pk, &cs);
        printf("packets=%llu checksum=%016llx\n", (unsigned long long)pk, (unsigned long long)cs);
        free(rt);
        return 0;
    }
    if (argc > 1 && !quick)
        cli_unknown(argv[0], argv[argc > 2 && !strcmp(argv[1], "--quick") ? 2 : 1]);
    uint64_t packets = quick ? 100000u : 1000000u, checksum = 0;
    uint64_t *rates = (uint64_t *)malloc(65536 * sizeof(uint64_t));
    double eng[2][3], hp[2][3];
    int w, s;
    printf("bench_ratelimit: ns per packet decision, %llu packets per point, best of %d\n",
           (unsigned long long)packets, quick ? 1 : 3);
    printf("%-6s %7s %12s %12s %9s\n", "load", "QPs", "tassel ns", "heap ns", "speedup");
    for (w = 0; w < 2; w++) {
        for (s = 0; s < 3; s++) {
            int rep;
            eng[w][s] = hp[w][s] = 1e30;
            make_rates(rates, sizes[s], w == 1, 42);
            for (rep = 0; rep < (quick ? 1 : 3); rep++) {
                double e = bench_engine(sizes[s], rates, packets, &checksum);
                double h = bench_heap(sizes[s], rates, packets, &checksum);
                if (e < eng[w][s])
                    eng[w][s] = e;
                if (h < hp[w][s])
                    hp[w][s] = h;
            }
            printf("%-6s %7u %12.1f %12.1f %8.2fx\n", w ? "fair" : "logu", sizes[s], eng[w][s], hp[w][s],
                   hp[w][s] / eng[w][s]);
        }
    }
    printf("checksum %016llx\n", (unsigned long long)checksum);
    /* headline: the worse of the two workloads at each size (ns: the slower one) */
    {
        double n1k = eng[0][0] > eng[1][0] ? eng[0][0] : eng[1][0];
        double n64k = eng[0][2] > eng[1][2] ? eng[0][2] : eng[1][2];
        double h64k = hp[0][2] > hp[1][2] ? hp[0][2] : hp[1][2];
        /* speedup: per workload (same rates for both), the worse of the two */
        double sp0 = hp[0][2] / eng[0][2], sp1 = hp[1][2] / eng[1][2];
        /* memory: engine state bytes per QP (rl_mem_per_flow) at 64 K QPs, FIFO and ranked, and
         * whether sizeof(rl) stays the same at the smallest and largest k */
        rl_config mc;
        size_t mem_fifo, mem_ranked, mem_nostats;
        rl_config_default(&mc);
        mc.max_flows = 65536;
        mc.source = backlog;
        mem_fifo = rl_mem_per_flow(&mc);
        mc.flow_stats = 0; /* the per-QP counters are optional */
        mem_nostats = rl_mem_per_flow(&mc);
        mc.flow_stats = 1;
        mc.schedule_queue = RL_SCHEDULE_RANKED;
        mem_ranked = rl_mem_per_flow(&mc);
        printf("RESULT ns_1k=%.1f ns_10k=%.1f ns_64k=%.1f heap_ns_64k=%.1f speedup_64k=%.2f flatness=%.2f mem_per_qp=%zu "
               "mem_per_qp_nostats=%zu mem_per_qp_ranked=%zu sizeof_rl=%zu\n",
               n1k, eng[0][1] > eng[1][1] ? eng[0][1] : eng[1][1], n64k, h64k, sp0 < sp1 ? sp0 : sp1, n64k / n1k,
               mem_fifo, mem_nostats, mem_ranked, sizeof(rl));
    }
    free(rates);
    return 0;
}
