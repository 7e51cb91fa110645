/* Host speed of the Palos slicer model: 1,024 QPs in 16 groups (weights 1..16, QP weights 1..4),
 * half sending 64 B messages and half 64 KB, all backlogged, output popped every cycle.
 * Prints output WQEs and simulated cycles per host second (one record popped per cycle, so one
 * launch of launch_wqes records is taken over as many cycles), and the output WQEs per cycle when
 * the port is drained every cycle (the slicer's own rate with multi-WQE launch). Second figure, against a baseline
 * measured in the same run: a sparse workload (one 4 KB message every 10,000 cycles on a random
 * QP) driven by rq_palos_advance (fast-forward) vs the same driven tick by tick; the outputs
 * must match.
 *   build/bench_palos [--quick]
 * Ends with: RESULT ns_per_out_wqe=... mcycles_per_s=... out_wqes_per_cycle=... sparse_ff_speedup=...
 *            drained_out_wqes_per_cycle=... */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../examples/cli.h"
#include "bench_util.h"

#define NQPS 1024u

static uint32_t bench_wqe(void *user, uint32_t qp, uint32_t index, rnic_work *w, uint32_t max)
{
    (void)user;
    (void)max;
    memset(w, 0, sizeof *w);
    w->addr = ((uint64_t)qp << 36) + (uint64_t)(index & 4095u) * 65536u;
    w->len = qp & 1u ? 65536u : 64u;
    w->tag = index;
    return 1;
}

static rq_palos *make(void **mem)
{
    rq_palos_config c;
    rq_palos *p = (rq_palos *)malloc(sizeof *p);
    uint32_t g, q;
    rq_palos_config_default(&c);
    c.source = bench_wqe;
    *mem = malloc(rq_palos_mem_size(&c));
    if (!p || !*mem || rq_palos_init(p, &c, *mem, rq_palos_mem_size(&c)) != RNIC_OK) {
        fprintf(stderr, "setup failed\n");
        exit(1);
    }
    for (g = 0; g < 16u; g++)
        (void)rq_palos_create_group(p, g, g + 1u);
    for (q = 0; q < NQPS; q++) {
        rq_palos_flow_config fc;
        rq_palos_flow_config_default(&fc);
        fc.group = q % 16u;
        fc.weight = 1u + q % 4u;
        (void)rq_palos_flow_open(p, q, &fc);
    }
    return p;
}

typedef struct result {
    uint64_t outs, bytes, cycles, digest;
} result;

static result palos_loop(rq_palos *p, uint64_t cycles, int drain)
{
    result r = {0, 0, 0, 0};
    uint32_t q = 0, head = 0;
    rnic_work o;
    uint64_t end = rq_palos_now(p) + cycles;
    while (rq_palos_now(p) < end) {
        /* the host tops up one QP's ring per cycle */
        rq_palos_flow_view st;
        (void)rq_palos_flow_state(p, q, &st);
        head = st.head;
        (void)rq_palos_doorbell(p, q, head + 1024u);
        q = (q + 1u) % NQPS;
        rq_palos_tick(p);
        while (rq_palos_pop_piece(p, &o) == RNIC_OK) {
            r.outs++;
            r.bytes += o.len;
            if (!drain)
                break; /* one record per cycle */
        }
    }
    r.cycles = cycles;
    return r;
}

/* the timed workload (tools/callgrind_palos.sh counts this function only): one pop per cycle */
NOINLINE result palos_run(rq_palos *p, uint64_t cycles);
NOINLINE result palos_run(rq_palos *p, uint64_t cycles) { return palos_loop(p, cycles, 0); }

/* sparse: 4 KB posted as 64 WQEs of 64 B on a random even QP every 10,000 cycles */
static result sparse_run(rq_palos *p, uint64_t cycles, int fast, uint64_t seed)
{
    result r = {0, 0, 0, 0};
    rnic_prng g;
    uint64_t end = rq_palos_now(p) + cycles, next = rq_palos_now(p);
    uint32_t posted[NQPS];
    rnic_work o;
    memset(posted, 0, sizeof posted);
    rnic_prng_seed(&g, seed);
    while (rq_palos_now(p) < end) {
        if (rq_palos_now(p) >= next) {
            uint32_t q = 2u * (uint32_t)rnic_prng_below(&g, NQPS / 2u);
            posted[q] += 64u;
            (void)rq_palos_doorbell(p, q, posted[q]);
            next += 10000u;
        }
        while (rq_palos_pop_piece(p, &o) == RNIC_OK) {
            r.outs++;
            r.digest = r.digest * 1000003u + o.cycle * 31u + o.flow * 7u + o.len;
        }
        if (fast) {
            /* idle until the next event (RNIC_NEVER: until the host's next doorbell) */
            uint64_t ne = rq_palos_next_event(p), to = next < end ? next : end;
            if (ne != rq_palos_now(p) && rq_palos_peek_piece(p, &o) == RNIC_EEMPTY) {
                (void)rq_palos_advance_to(p, ne < to ? ne : to);
                continue;
            }
        }
        rq_palos_tick(p);
    }
    return r;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--quick]\n"
           "Host speed of the Palos slicer: 1,024 backlogged QPs in 16 groups, and a sparse workload fast-forwarded vs\n"
           "ticked; a RESULT line at the end.\n"
           "  --quick      10x fewer cycles, one repetition (a smoke test); default off\n"
           "  --help, -h   this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    int quick = 0, i;
    uint64_t cycles, sparse;
    double best = 1e30, tick_s = 1e30, ff_s = 1e30;
    result r = {0, 0, 0, 0}, rt = {0, 0, 0, 0}, rf = {0, 0, 0, 0}, rd = {0, 0, 0, 0};
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else
            cli_unknown(argv[0], argv[i]);
    }
    cycles = quick ? 200000u : 2000000u;
    sparse = quick ? 2000000u : 20000000u;
    for (i = 0; i < (quick ? 1 : 5); i++) {
        void *mem;
        rq_palos *p = make(&mem);
        double t0 = now_s(), dt;
        r = palos_run(p, cycles);
        dt = now_s() - t0;
        if (dt < best)
            best = dt;
        free(mem);
        free(p);
    }
    for (i = 0; i < (quick ? 1 : 3); i++) {
        void *mem;
        rq_palos *p = make(&mem);
        double t0 = now_s(), dt;
        rt = sparse_run(p, sparse, 0, 5);
        dt = now_s() - t0;
        if (dt < tick_s)
            tick_s = dt;
        free(mem);
        free(p);
        p = make(&mem);
        t0 = now_s();
        rf = sparse_run(p, sparse, 1, 5);
        dt = now_s() - t0;
        if (dt < ff_s)
            ff_s = dt;
        free(mem);
        free(p);
    }
    {
        void *mem;
        rq_palos *p = make(&mem);
        rd = palos_loop(p, cycles, 1);
        free(mem);
        free(p);
    }
    if (rt.digest != rf.digest || rt.outs != rf.outs) {
        fprintf(stderr, "fast-forward output differs from ticking\n");
        return 1;
    }
    printf("dense: %llu output WQEs (%llu bytes) in %llu cycles, best of %d: %.3f s\n", (unsigned long long)r.outs,
           (unsigned long long)r.bytes, (unsigned long long)r.cycles, quick ? 1 : 5, best);
    printf("sparse: %llu output WQEs in %llu cycles: ticking %.4f s, fast-forward %.4f s (identical outputs)\n",
           (unsigned long long)rt.outs, (unsigned long long)sparse, tick_s, ff_s);
    {
        rq_palos_config dc;
        rq_palos_config_default(&dc);
        printf("drained: %llu output WQEs in %llu cycles (launch_wqes %u)\n", (unsigned long long)rd.outs,
               (unsigned long long)rd.cycles, (unsigned)dc.launch_wqes);
    }
    printf("RESULT ns_per_out_wqe=%.1f mcycles_per_s=%.2f out_wqes_per_cycle=%.3f sparse_ff_speedup=%.1f "
           "drained_out_wqes_per_cycle=%.3f\n",
           best * 1e9 / (double)r.outs, (double)r.cycles / best / 1e6, (double)r.outs / (double)r.cycles, tick_s / ff_s,
           (double)rd.outs / (double)rd.cycles);
    return 0;
}
