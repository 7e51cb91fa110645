/* The composed model's message latencies, kept for its report's percentiles (FCT p50 / p99 /
 * p99.9 per tenant, per QP in the CSV) in storage whose size is fixed at init, so that a run of
 * any length -- the soak's 10^9 cycles, millions of messages -- keeps its memory flat.
 *
 * Every latency is kept exactly until `cap` are held, so a run with at most `cap` messages in
 * its window reports exactly what keeping them all would (the default `make run` has ~13 K).
 * After that the store is a uniform random sample of every latency noted so far (reservoir
 * sampling, Vitter's Algorithm R): the n-th latency (n > cap) replaces a uniformly chosen
 * kept one with probability cap / n. The choice draws from the store's own xoshiro256** PRNG,
 * seeded from the run's seed: the model's traffic PRNGs are never touched, so sampling cannot
 * change the simulated run (its digest), and the same seed keeps the same sample.
 * Count and sum cover every latency, so the mean stays exact.
 *
 * Error once sampling: the q-quantile of k uniform samples sits at a true rank q +- e with
 * e ~ sqrt(q (1 - q) / k) (one standard deviation; the binomial spread of the sample's count
 * below the true quantile). With the default k = 262,144: p50 +- 0.10 %, p99 +- 0.019 %,
 * p99.9 +- 0.006 % of rank; per QP, k is shared among the QPs in proportion to their messages.
 *
 * `cap` 0 keeps every latency instead (realloc-doubled arrays): exact percentiles on any run,
 * memory proportional to the messages -- what the model did before, and the soak's negative
 * control (tools/soak.sh must see its RSS grow).
 *
 * The fixed storage is written once at init (memset), so its pages are resident from the
 * start: the process's RSS does not creep while the store fills.
 * Hosted example code (malloc at init); include it after a generated rnicq header. */
#ifndef RNIC_MODEL_LAT_STORE_H
#define RNIC_MODEL_LAT_STORE_H
#include <stdlib.h>
#include <string.h>

#define RM_LAT_SAMPLES_DEFAULT 262144u /* 3 MB: 8 B latency + 4 B flow per sample */
#define RM_LAT_GROW_FIRST 4096u        /* cap 0 (keep all): the arrays' first size */

typedef struct rm_lat_store {
    uint64_t *lat;    /* kept latencies in cycles */
    uint32_t *flow;   /* the flow of each kept latency */
    size_t n, cap;    /* kept, capacity (of the current arrays when growing) */
    bool grow;        /* cap 0 at init: keep every latency, growing the arrays */
    bool grow_failed; /* keep-all mode ran out of memory: later latencies are counted only */
    uint64_t seen;    /* every latency noted */
    uint64_t sum;     /* their sum in cycles (the exact mean) */
    rnic_prng prng;   /* the reservoir's own draws */
} rm_lat_store;

/* A store for up to `cap` latencies (0: every latency, growing); 0 on success, -1 when out of
 * memory. */
static int rm_lat_init(rm_lat_store *s, size_t cap, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    rnic_prng_seed(&s->prng, seed ^ 0x6c617473746f7265ull); /* "latstore": apart from the traffic's seeds */
    s->grow = cap == 0;
    s->cap = s->grow ? RM_LAT_GROW_FIRST : cap;
    s->lat = (uint64_t *)malloc(s->cap * sizeof *s->lat);
    s->flow = (uint32_t *)malloc(s->cap * sizeof *s->flow);
    if (!s->lat || !s->flow) {
        free(s->lat);
        free(s->flow);
        s->lat = NULL;
        s->flow = NULL;
        return -1;
    }
    if (!s->grow) { /* touch every page now: the RSS a soak sees is the final one from the start.
                     * Not with 0: compilers turn malloc + memset(0) into calloc, whose fresh
                     * zero pages stay untouched (not resident) until the store fills them. */
        memset(s->lat, 0xff, s->cap * sizeof *s->lat);
        memset(s->flow, 0xff, s->cap * sizeof *s->flow);
    }
    return 0;
}

static void rm_lat_free(rm_lat_store *s)
{
    free(s->lat);
    free(s->flow);
    s->lat = NULL;
    s->flow = NULL;
    s->n = s->cap = 0;
}

/* Keep-all mode: double the arrays; false when out of memory (the kept ones stay valid). */
static bool rm_lat__grow(rm_lat_store *s)
{
    size_t cap = s->cap * 2u;
    uint64_t *l = (uint64_t *)realloc(s->lat, cap * sizeof *l);
    uint32_t *f;
    if (!l)
        return false;
    s->lat = l;
    f = (uint32_t *)realloc(s->flow, cap * sizeof *f);
    if (!f)
        return false;
    s->flow = f;
    s->cap = cap;
    return true;
}

/* Note one message latency (cycles) of `flow`. */
static void rm_lat_note(rm_lat_store *s, uint32_t flow, uint64_t cycles)
{
    size_t at;
    s->seen++;
    s->sum += cycles;
    if (!s->lat || s->grow_failed)
        return;
    if (s->n < s->cap) {
        at = s->n++;
    } else if (s->grow) {
        if (!rm_lat__grow(s)) {
            s->grow_failed = true;
            return;
        }
        at = s->n++;
    } else {
        uint64_t j = rnic_prng_below(&s->prng, s->seen); /* uniform in [0, seen) */
        if (j >= s->cap)
            return; /* this one stays out of the sample (probability 1 - cap / seen) */
        at = (size_t)j;
    }
    s->lat[at] = cycles;
    s->flow[at] = flow;
}

/* True when the kept latencies are a sample rather than all of them. */
static bool rm_lat_sampled(const rm_lat_store *s) { return s->seen > (uint64_t)s->n; }

#endif
