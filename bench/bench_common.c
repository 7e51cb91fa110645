/* bench_common: the common core's three search structures, each against a naive baseline
 * measured in the same run on the same operation tape:
 *   (a) rnic_bitmap_ffs_from on 256-bit rings (1..8 random set bits, random heads) vs a
 *       bit-by-bit loop around the ring;
 *   (b) the shared-space FIFO (66 queues x 2048 entries, RED-SEA thesis §3.7): per cycle one
 *       random dequeue attempt, one random enqueue, rnic_ssfifo_tick() vs statically
 *       partitioned FIFOs (one circular array per queue, each big enough for the whole pool:
 *       66 x 2048 slots, plus a per-entry queued flag), the layout the shared space avoids;
 *       time per cycle and memory in bytes of both are reported (the shared space saves
 *       memory; whether it is also faster is what the measurement says);
 *   (c) the bucket queue: pop_min + insert (hold model, keys in a sliding window of 1024
 *       keys above the popped key) with 1 K and 64 K items vs a binary heap keyed by
 *       (key, insertion seq).
 * Each pair must produce the same results (checked: same checksum), so the baselines do the
 * same work. Times are the best of several repetitions, in ns per operation.
 *
 *   build/bench_common [--quick]      --quick: 10x fewer iterations (a smoke test)
 *
 * Last line: RESULT bitmap_ffs_ns=... naive_ffs_ns=... bitmap_speedup=... fifo_ns=...
 * fifo_naive_ns=... fifo_speedup=... fifo_mem_bytes=... fifo_naive_mem_bytes=... fifo_mem_ratio=...
 * bq_ns_64k=... heap_ns_64k=... bq_speedup=...
 * (fifo_speedup = per-queue-array ns / ssfifo ns; below 1 when the arrays are faster.) */
#define _POSIX_C_SOURCE 199309L
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../examples/cli.h"

#define REPS 5

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_common: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

static int mismatch; /* a structure and its baseline disagreed */

static void same_checksum(const char *what, uint64_t a, uint64_t b)
{
    if (a != b) {
        fprintf(stderr, "bench_common: %s: checksums differ (%016" PRIx64 " vs %016" PRIx64 ")\n", what, a, b);
        mismatch = 1;
    }
}

/* ---------------------------------------------------------------- (a) ring bitmap ffs */

#define FFS_BITS 256u
#define FFS_WORDS RNIC_BITMAP_WORDS(FFS_BITS)
#define FFS_RINGS 4096u
#define FFS_TAPE (1u << 20) /* queries per pass (--quick: a tenth) */
#define FFS_PASSES 8u

static uint32_t naive_ffs_from(const uint64_t *w, uint32_t nbits, uint32_t head)
{
    uint32_t k;
    for (k = 0; k < nbits; k++) {
        uint32_t i = head + k < nbits ? head + k : head + k - nbits;
        if ((w[i / 64u] >> (i % 64u)) & 1u)
            return i;
    }
    return RNIC_NONE;
}

typedef struct ffs_result {
    double ns, naive_ns;
} ffs_result;

static ffs_result bench_ffs(rnic_prng *p, uint32_t tape_len)
{
    const uint32_t passes = FFS_PASSES;
    uint64_t *rings = (uint64_t *)xmalloc((size_t)FFS_RINGS * FFS_WORDS * sizeof(uint64_t));
    uint32_t *tape = (uint32_t *)xmalloc((size_t)tape_len * sizeof(uint32_t));
    uint32_t r, i, rep, pass;
    uint64_t sum = 0, naive_sum = 0;
    double n = (double)tape_len * passes;
    ffs_result res = { 1e300, 1e300 };
    for (r = 0; r < FFS_RINGS; r++) { /* sparse: 1 to 8 random bits */
        uint64_t *w = rings + (size_t)r * FFS_WORDS;
        uint32_t bits = (uint32_t)rnic_prng_range(p, 1, 8);
        rnic_bitmap_zero(w, FFS_BITS);
        for (i = 0; i < bits; i++)
            rnic_bitmap_set(w, (uint32_t)rnic_prng_below(p, FFS_BITS));
    }
    for (i = 0; i < tape_len; i++) /* (ring, head) */
        tape[i] = (uint32_t)rnic_prng_below(p, FFS_RINGS) << 8 | (uint32_t)rnic_prng_below(p, FFS_BITS);
    for (rep = 0; rep < REPS; rep++) {
        uint64_t s = 0;
        double t0 = now_ns(), t;
        for (pass = 0; pass < passes; pass++)
            for (i = 0; i < tape_len; i++)
                s += rnic_bitmap_ffs_from(rings + (size_t)(tape[i] >> 8) * FFS_WORDS, FFS_BITS, tape[i] & 255u);
        t = now_ns() - t0;
        if (t < res.ns)
            res.ns = t;
        sum = s;
        s = 0;
        t0 = now_ns();
        for (pass = 0; pass < passes; pass++)
            for (i = 0; i < tape_len; i++)
                s += naive_ffs_from(rings + (size_t)(tape[i] >> 8) * FFS_WORDS, FFS_BITS, tape[i] & 255u);
        t = now_ns() - t0;
        if (t < res.naive_ns)
            res.naive_ns = t;
        naive_sum = s;
    }
    same_checksum("ffs_from", sum, naive_sum);
    printf("  (a) checksum %016" PRIx64 "\n", sum);
    res.ns /= n;
    res.naive_ns /= n;
    free(rings);
    free(tape);
    return res;
}

/* ---------------------------------------------------------------- (b) shared-space FIFO */

#define FIFO_QUEUES 66u
#define FIFO_ENTRIES 2048u
#define FIFO_TAPE (1u << 18) /* cycles per pass (--quick: a tenth) */
#define FIFO_PASSES 8u

/* Naive baseline: statically partitioned FIFOs. Each queue owns a circular array with room
 * for every entry of the pool (a queue may hold all of them), so 66 x 2048 slots instead of
 * one shared next-pointer array; head/tail/count per queue, and the same per-entry queued
 * flag as the ssfifo (an entry is in at most one queue; enqueueing it twice is refused). */
typedef struct naive_fifo {
    uint32_t slot[FIFO_QUEUES][FIFO_ENTRIES];
    uint32_t head[FIFO_QUEUES], tail[FIFO_QUEUES], count[FIFO_QUEUES];
    uint64_t queued[RNIC_BITMAP_WORDS(FIFO_ENTRIES)];
} naive_fifo;

/* Bytes the per-queue arrays need: the slots, head/tail/count per queue, the queued flags. */
#define NAIVE_FIFO_MEM_BYTES                                                                \
    ((size_t)FIFO_QUEUES * FIFO_ENTRIES * sizeof(uint32_t) + 3u * FIFO_QUEUES * sizeof(uint32_t) + \
     RNIC_BITMAP_WORDS(FIFO_ENTRIES) * sizeof(uint64_t))

static void naive_fifo_init(naive_fifo *f)
{
    memset(f->head, 0, sizeof f->head);
    memset(f->tail, 0, sizeof f->tail);
    memset(f->count, 0, sizeof f->count);
    rnic_bitmap_zero(f->queued, FIFO_ENTRIES);
}

static int naive_fifo_enqueue(naive_fifo *f, uint32_t queue, uint32_t entry)
{
    if (rnic_bitmap_test(f->queued, entry))
        return 0; /* already queued */
    rnic_bitmap_set(f->queued, entry);
    f->slot[queue][f->tail[queue]] = entry;
    f->tail[queue] = (f->tail[queue] + 1u) % FIFO_ENTRIES;
    f->count[queue]++;
    return 1;
}

static uint32_t naive_fifo_dequeue(naive_fifo *f, uint32_t queue)
{
    uint32_t e;
    if (f->count[queue] == 0)
        return RNIC_NONE;
    e = f->slot[queue][f->head[queue]];
    f->head[queue] = (f->head[queue] + 1u) % FIFO_ENTRIES;
    f->count[queue]--;
    rnic_bitmap_clear(f->queued, e);
    return e;
}

typedef struct fifo_result {
    double ns, naive_ns, occupancy;
    size_t mem_bytes, naive_mem_bytes;
} fifo_result;

/* One cycle of the tape: a dequeue attempt on queue (c & 127) when < 66, then an enqueue
 * into queue (c >> 8) of the oldest free entry, when bit 7 is set. Dequeue before enqueue,
 * so an entry is never dequeued in the cycle it was enqueued (same results as the naive). */
static fifo_result bench_fifo(rnic_prng *p, uint32_t tape_len)
{
    const uint32_t passes = FIFO_PASSES;
    rnic_ssfifo_config cfg = { FIFO_QUEUES, FIFO_ENTRIES };
    size_t size = rnic_ssfifo_mem_size(&cfg);
    uint64_t *mem = (uint64_t *)xmalloc(size);
    uint32_t *tape = (uint32_t *)xmalloc((size_t)tape_len * sizeof(uint32_t));
    uint32_t free_ring[FIFO_ENTRIES], i, rep, pass;
    naive_fifo *nf = (naive_fifo *)xmalloc(sizeof *nf);
    rnic_ssfifo f;
    uint64_t sum = 0, naive_sum = 0, occ = 0, naive_occ = 0;
    double n = (double)tape_len * passes;
    fifo_result res = { 1e300, 1e300, 0, 0, 0 };
    for (i = 0; i < tape_len; i++) {
        uint32_t deq = (uint32_t)rnic_prng_below(p, 100) < 55u ? (uint32_t)rnic_prng_below(p, FIFO_QUEUES) : 127u;
        uint32_t enq = rnic_prng_chance(p, 1, 2) ? 128u : 0u;
        tape[i] = (uint32_t)rnic_prng_below(p, FIFO_QUEUES) << 8 | enq | deq;
    }
    for (rep = 0; rep < REPS; rep++) {
        uint64_t s = 0;
        uint32_t fr_head = 0, fr_count = FIFO_ENTRIES; /* free entries, oldest first */
        double t0, t;
        if (rnic_ssfifo_init(&f, &cfg, mem, size) != RNIC_OK) {
            fprintf(stderr, "bench_common: ssfifo init failed\n");
            exit(2);
        }
        for (i = 0; i < FIFO_ENTRIES; i++)
            free_ring[i] = i;
        occ = 0;
        t0 = now_ns();
        for (pass = 0; pass < passes; pass++)
            for (i = 0; i < tape_len; i++) {
                uint32_t c = tape[i], q = c & 127u, e;
                if (q < FIFO_QUEUES && rnic_ssfifo_dequeue(&f, q, &e) == RNIC_OK) {
                    s = s * 31u + e;
                    free_ring[(fr_head + fr_count++) % FIFO_ENTRIES] = e;
                }
                if ((c & 128u) && fr_count) {
                    rnic_ssfifo_enqueue(&f, c >> 8, free_ring[fr_head]);
                    fr_head = (fr_head + 1u) % FIFO_ENTRIES;
                    fr_count--;
                }
                rnic_ssfifo_tick(&f);
                occ += FIFO_ENTRIES - fr_count;
            }
        t = now_ns() - t0;
        if (t < res.ns)
            res.ns = t;
        sum = s;

        s = 0;
        fr_head = 0;
        fr_count = FIFO_ENTRIES;
        naive_fifo_init(nf);
        for (i = 0; i < FIFO_ENTRIES; i++)
            free_ring[i] = i;
        naive_occ = 0; /* same bookkeeping as the ssfifo loop, so both loops do equal work */
        t0 = now_ns();
        for (pass = 0; pass < passes; pass++)
            for (i = 0; i < tape_len; i++) {
                uint32_t c = tape[i], q = c & 127u, e;
                if (q < FIFO_QUEUES && (e = naive_fifo_dequeue(nf, q)) != RNIC_NONE) {
                    s = s * 31u + e;
                    free_ring[(fr_head + fr_count++) % FIFO_ENTRIES] = e;
                }
                if ((c & 128u) && fr_count) {
                    if (!naive_fifo_enqueue(nf, c >> 8, free_ring[fr_head]))
                        mismatch = 1; /* a free entry is never queued */
                    fr_head = (fr_head + 1u) % FIFO_ENTRIES;
                    fr_count--;
                }
                naive_occ += FIFO_ENTRIES - fr_count;
            }
        t = now_ns() - t0;
        if (t < res.naive_ns)
            res.naive_ns = t;
        naive_sum = s;
    }
    same_checksum("ssfifo", sum, naive_sum);
    same_checksum("ssfifo occupancy", occ, naive_occ);
    if (f.stats.port_conflicts || rnic_err_total(&f.errors) != f.errors.by_cause[RNIC_EEMPTY])
        mismatch = 1; /* the tape never asks for a port twice */
    printf("  (b) checksum %016" PRIx64 ", %" PRIu64 " dequeues, %" PRIu64 " forwards\n", sum, f.stats.dequeues,
           f.stats.forwards);
    res.ns /= n;
    res.naive_ns /= n;
    res.occupancy = (double)occ / n;
    res.mem_bytes = size;
    res.naive_mem_bytes = NAIVE_FIFO_MEM_BYTES;
    free(mem);
    free(tape);
    free(nf);
    return res;
}

/* ---------------------------------------------------------------- (c) bucket queue */

#define BQ_NKEYS (1u << 22)
#define BQ_WINDOW 1024u

typedef struct heap_node {
    uint64_t order; /* key << 40 | insertion seq: (key, seq) in one compare */
    uint32_t item;
} heap_node;

typedef struct heap {
    heap_node *a;
    uint32_t n;
} heap;

static void heap_push(heap *h, uint64_t order, uint32_t item)
{
    uint32_t i = h->n++;
    while (i > 0) {
        uint32_t parent = (i - 1u) / 2u;
        if (h->a[parent].order <= order)
            break;
        h->a[i] = h->a[parent];
        i = parent;
    }
    h->a[i].order = order;
    h->a[i].item = item;
}

static heap_node heap_pop(heap *h)
{
    heap_node top = h->a[0], last = h->a[--h->n];
    uint32_t i = 0, n = h->n;
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && h->a[c + 1u].order < h->a[c].order)
            c++;
        if (last.order <= h->a[c].order)
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    h->a[i] = last;
    return top;
}

typedef struct bq_result {
    double ns, heap_ns;
} bq_result;

/* Hold model: n items with keys in [0, window); each operation pops the minimum (key k,
 * item x) and re-inserts x at k + 1 + delta, delta from the tape (0 .. window-1). */
static bq_result bench_bq(rnic_prng *p, uint32_t nitems, uint32_t ops)
{
    rnic_bq_config cfg;
    rnic_bq q;
    heap h;
    size_t size;
    uint64_t *mem;
    uint32_t *tape = (uint32_t *)xmalloc((size_t)ops * sizeof(uint32_t));
    uint32_t *init_key = (uint32_t *)xmalloc((size_t)nitems * sizeof(uint32_t));
    uint32_t i, rep;
    uint64_t sum = 0, heap_sum = 0;
    bq_result res = { 1e300, 1e300 };
    cfg.nkeys = BQ_NKEYS;
    cfg.nitems = nitems;
    size = rnic_bq_mem_size(&cfg);
    mem = (uint64_t *)xmalloc(size);
    h.a = (heap_node *)xmalloc((size_t)nitems * sizeof(heap_node));
    for (i = 0; i < ops; i++)
        tape[i] = (uint32_t)rnic_prng_below(p, BQ_WINDOW);
    for (i = 0; i < nitems; i++)
        init_key[i] = (uint32_t)rnic_prng_below(p, BQ_WINDOW);
    for (rep = 0; rep < REPS; rep++) {
        uint64_t s = 0, seq = 0;
        double t0, t;
        if (rnic_bq_init(&q, &cfg, mem, size) != RNIC_OK) {
            fprintf(stderr, "bench_common: bq init failed\n");
            exit(2);
        }
        for (i = 0; i < nitems; i++)
            rnic_bq_insert(&q, i, init_key[i]);
        t0 = now_ns();
        for (i = 0; i < ops; i++) {
            uint32_t item = 0, key = 0;
            rnic_bq_pop_min(&q, &item, &key);
            s = s * 31u + item + key;
            key += 1u + tape[i];
            rnic_bq_insert(&q, item, key < BQ_NKEYS ? key : BQ_NKEYS - 1u);
        }
        t = now_ns() - t0;
        if (t < res.ns)
            res.ns = t;
        sum = s;
        if (rnic_err_total(&q.errors))
            mismatch = 1;

        s = 0;
        h.n = 0;
        for (i = 0; i < nitems; i++)
            heap_push(&h, (uint64_t)init_key[i] << 40 | seq++, i);
        t0 = now_ns();
        for (i = 0; i < ops; i++) {
            heap_node top = heap_pop(&h);
            uint32_t key = (uint32_t)(top.order >> 40);
            s = s * 31u + top.item + key;
            key += 1u + tape[i];
            heap_push(&h, (uint64_t)(key < BQ_NKEYS ? key : BQ_NKEYS - 1u) << 40 | seq++, top.item);
        }
        t = now_ns() - t0;
        if (t < res.heap_ns)
            res.heap_ns = t;
        heap_sum = s;
    }
    same_checksum("bucket queue", sum, heap_sum);
    printf("  (c) %u items: checksum %016" PRIx64 ", last min key %u\n", nitems, sum, rnic_bq_min_key(&q));
    res.ns /= ops;
    res.heap_ns /= ops;
    free(tape);
    free(init_key);
    free(mem);
    free(h.a);
    return res;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--quick]\n"
           "The common core's search structures (bitmap ffs, shared-space FIFO, bucket queue) against naive baselines,\n"
           "ns per operation; a RESULT line at the end.\n"
           "  --quick      10x fewer iterations (a smoke test); default off\n"
           "  --help, -h   this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    int quick = 0, i;
    uint32_t div;
    rnic_prng p;
    ffs_result a;
    fifo_result b;
    bq_result c1, c64;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else
            cli_unknown(argv[0], argv[i]);
    }
    div = quick ? 10u : 1u;
    rnic_prng_seed(&p, 20240601u);
    printf("bench_common%s: best of %d repetitions, ns per operation\n", quick ? " (--quick)" : "", REPS);
    a = bench_ffs(&p, FFS_TAPE / div);
    b = bench_fifo(&p, FIFO_TAPE / div);
    c1 = bench_bq(&p, 1024u, 2000000u / div);
    c64 = bench_bq(&p, 65536u, 2000000u / div);
    printf("\n%-52s %12s %12s %9s\n", "structure", "rnicq ns/op", "naive ns/op", "speedup");
    printf("%-52s %12.2f %12.2f %8.1fx\n", "(a) bitmap_ffs_from, 256-bit ring, 1-8 bits set", a.ns, a.naive_ns,
           a.naive_ns / a.ns);
    printf("%-52s %12.2f %12.2f %8.2fx\n", "(b) ssfifo cycle, 66 q x 2048 (per-queue arrays)", b.ns, b.naive_ns,
           b.naive_ns / b.ns);
    printf("%-52s %12.2f %12.2f %8.1fx\n", "(c) bucket queue pop_min+insert, 1 K items (heap)", c1.ns, c1.heap_ns,
           c1.heap_ns / c1.ns);
    printf("%-52s %12.2f %12.2f %8.1fx\n", "(c) bucket queue pop_min+insert, 64 K items (heap)", c64.ns, c64.heap_ns,
           c64.heap_ns / c64.ns);
    printf("(b) memory: ssfifo %zu B, per-queue arrays %zu B (%u x %u slots + head/tail/count + flags), "
           "%.1fx less for the ssfifo\n",
           b.mem_bytes, b.naive_mem_bytes, FIFO_QUEUES, FIFO_ENTRIES, (double)b.naive_mem_bytes / (double)b.mem_bytes);
    printf("(b) mean occupancy %.0f of %u entries; (c) keys: 2^22, window %u\n", b.occupancy, FIFO_ENTRIES, BQ_WINDOW);
    if (mismatch) {
        fprintf(stderr, "bench_common: a structure disagreed with its baseline\n");
        return 1;
    }
    printf("RESULT bitmap_ffs_ns=%.3f naive_ffs_ns=%.3f bitmap_speedup=%.2f fifo_ns=%.3f fifo_naive_ns=%.3f "
           "fifo_speedup=%.2f fifo_mem_bytes=%zu fifo_naive_mem_bytes=%zu fifo_mem_ratio=%.1f bq_ns_64k=%.3f "
           "heap_ns_64k=%.3f bq_speedup=%.2f\n",
           a.ns, a.naive_ns, a.naive_ns / a.ns, b.ns, b.naive_ns, b.naive_ns / b.ns, b.mem_bytes, b.naive_mem_bytes,
           (double)b.naive_mem_bytes / (double)b.mem_bytes, c64.ns, c64.heap_ns, c64.heap_ns / c64.ns);
    return 0;
}
