/* Shared-space multi-queue FIFO (src/common/ssfifo.h) against an independent reference:
 * one plain array FIFO per queue (each with room for all nentries) plus a per-entry
 * "queued" flag, driven cycle by cycle with the same random attempts. The reference encodes
 * the documented cycle model directly: one enqueue and one dequeue per cycle (a second
 * attempt is RNIC_EBUSY), an entry enqueued into an empty queue is dequeuable from the next
 * cycle, a same-cycle enqueue + dequeue on a one-entry queue keeps the new entry, and a
 * dequeue from the queue dequeued in the previous cycle is a forward. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"

static uint64_t g_seed;

/* ---------------------------------------------------------------- reference model */

typedef struct ref_fifo {
    uint32_t nq, ne;
    uint32_t *buf;   /* nq rows of ne slots: queue q's circular array */
    uint32_t *hd;    /* per queue: index of the oldest element in its row */
    uint32_t *len;   /* per queue */
    unsigned char *queued; /* per entry */
    /* cycle state */
    int enq_used, deq_used;
    uint32_t fresh;     /* queue that was empty when this cycle's enqueue hit it */
    uint32_t prev_deq;  /* queue dequeued in the previous cycle */
    uint32_t this_deq;  /* queue dequeued in this cycle */
    uint64_t enqueues, dequeues, forwards, conflicts;
    uint64_t errs[RNIC_ERR__COUNT];
} ref_fifo;

static int ref_init(ref_fifo *r, uint32_t nq, uint32_t ne)
{
    memset(r, 0, sizeof *r);
    r->nq = nq;
    r->ne = ne;
    r->buf = (uint32_t *)malloc((size_t)nq * ne * sizeof(uint32_t));
    r->hd = (uint32_t *)calloc(nq, sizeof(uint32_t));
    r->len = (uint32_t *)calloc(nq, sizeof(uint32_t));
    r->queued = (unsigned char *)calloc(ne, 1);
    r->fresh = r->prev_deq = r->this_deq = UINT32_MAX;
    return r->buf && r->hd && r->len && r->queued;
}

static void ref_free(ref_fifo *r)
{
    free(r->buf);
    free(r->hd);
    free(r->len);
    free(r->queued);
}

/* Every refusal is tallied here; all but RNIC_EEMPTY (a status) must also be counted by
 * the FIFO's error statistics (see ref_counted). */
static rnic_err ref_err(ref_fifo *r, rnic_err e)
{
    r->errs[e]++;
    return e;
}

static uint32_t ref_at(const ref_fifo *r, uint32_t q, uint32_t i)
{
    return r->buf[(size_t)q * r->ne + (r->hd[q] + i) % r->ne];
}

static rnic_err ref_enqueue(ref_fifo *r, uint32_t q, uint32_t e)
{
    if (q >= r->nq)
        return ref_err(r, RNIC_EINVAL);
    if (e >= r->ne)
        return ref_err(r, RNIC_ENOENT);
    if (r->queued[e])
        return ref_err(r, RNIC_EEXIST);
    if (r->enq_used) {
        r->conflicts++;
        return ref_err(r, RNIC_EBUSY);
    }
    r->enq_used = 1;
    if (r->len[q] == 0)
        r->fresh = q;
    r->buf[(size_t)q * r->ne + (r->hd[q] + r->len[q]) % r->ne] = e;
    r->len[q]++;
    r->queued[e] = 1;
    r->enqueues++;
    return RNIC_OK;
}

/* Dequeuable now: non-empty, and not only holding an entry that arrived this cycle into an
 * empty queue. */
static int ref_ready(const ref_fifo *r, uint32_t q)
{
    return r->len[q] > 0 && !(q == r->fresh && r->len[q] == 1);
}

static rnic_err ref_dequeue(ref_fifo *r, uint32_t q, uint32_t *out)
{
    uint32_t e;
    if (q >= r->nq)
        return ref_err(r, RNIC_EINVAL);
    if (!ref_ready(r, q))
        return ref_err(r, RNIC_EEMPTY);
    if (r->deq_used) {
        r->conflicts++;
        return ref_err(r, RNIC_EBUSY);
    }
    r->deq_used = 1;
    e = ref_at(r, q, 0);
    r->hd[q] = (r->hd[q] + 1) % r->ne;
    r->len[q]--;
    r->queued[e] = 0;
    if (q == r->prev_deq)
        r->forwards++;
    r->this_deq = q;
    r->dequeues++;
    *out = e;
    return RNIC_OK;
}

static void ref_tick(ref_fifo *r)
{
    r->enq_used = r->deq_used = 0;
    r->fresh = UINT32_MAX;
    r->prev_deq = r->this_deq;
    r->this_deq = UINT32_MAX;
}

static uint32_t ref_first_ready(const ref_fifo *r, uint32_t from)
{
    uint32_t q;
    for (q = from; q < r->nq; q++)
        if (ref_ready(r, q))
            return q;
    return RNIC_NONE;
}

static uint32_t ref_first_nonempty(const ref_fifo *r, uint32_t from)
{
    uint32_t q;
    for (q = from; q < r->nq; q++)
        if (r->len[q])
            return q;
    return RNIC_NONE;
}

/* ---------------------------------------------------------------- helpers */

static void *alloc_fifo(rnic_ssfifo *f, uint32_t nq, uint32_t ne)
{
    rnic_ssfifo_config cfg;
    size_t need;
    void *mem;
    cfg.nqueues = nq;
    cfg.nentries = ne;
    need = rnic_ssfifo_mem_size(&cfg);
    CHECK(need > 0);
    mem = malloc(need); /* exactly mem_size bytes: ASan catches any overrun */
    CHECK(mem != NULL);
    if (!mem)
        return NULL;
    /* garbage in the memory: init must not depend on it being zero */
    memset(mem, 0xa5, need);
    CHECK_EQ(rnic_ssfifo_init(f, &cfg, mem, need), RNIC_OK);
    return mem;
}

static void compare_queue(const rnic_ssfifo *f, const ref_fifo *r, uint32_t q)
{
    CHECK_EQ(rnic_ssfifo_length(f, q), r->len[q]);
    CHECK_EQ(rnic_ssfifo_empty(f, q), r->len[q] == 0);
    CHECK_EQ(rnic_ssfifo_peek(f, q), r->len[q] ? ref_at(r, q, 0) : RNIC_NONE);
}

static uint32_t g_touched[16], g_ntouched;

/* Everything observable must agree: every queue, every first_nonempty start, every entry's
 * queued flag, the statistics and the error counters. */
static void compare_state(const rnic_ssfifo *f, const ref_fifo *r, uint64_t cycle)
{
    uint32_t q, e, next = RNIC_NONE;
    int bad = TEST_FAILS();
    g_ntouched = 0;
    for (q = r->nq; q-- > 0;) {
        if (r->len[q])
            next = q;
        compare_queue(f, r, q);
        CHECK_EQ(rnic_ssfifo_first_nonempty(f, q), next);
        CHECK_EQ(rnic_ssfifo_ready(f, q), ref_ready(r, q));
        CHECK_EQ(rnic_ssfifo_first_ready(f, q), ref_first_ready(r, q));
        if (TEST_FAILS() != bad)
            break;
    }
    CHECK_EQ(rnic_ssfifo_first_nonempty(f, r->nq), RNIC_NONE);
    for (e = 0; e < r->ne; e++) {
        CHECK_EQ(rnic_ssfifo_is_queued(f, e), r->queued[e]);
        if (TEST_FAILS() != bad)
            break;
    }
    CHECK_EQ(f->stats.enqueues, r->enqueues);
    CHECK_EQ(f->stats.dequeues, r->dequeues);
    CHECK_EQ(f->stats.forwards, r->forwards);
    CHECK_EQ(f->stats.port_conflicts, r->conflicts);
    for (e = 0; e < RNIC_ERR__COUNT; e++)
        CHECK_EQ(f->errors.by_cause[e], e == RNIC_EEMPTY ? 0 : r->errs[e]);
    if (TEST_FAILS() != bad)
        printf("  state mismatch after cycle %" PRIu64 "\n", cycle);
}

/* The cheap per-cycle comparison: the queues this cycle touched, a few random queues and
 * first_nonempty starts, the statistics and the error counters. */

static void touch(uint32_t q)
{
    if (g_ntouched < 16)
        g_touched[g_ntouched++] = q;
}

static void compare_some(const rnic_ssfifo *f, const ref_fifo *r, rnic_prng *p, uint64_t cycle)
{
    uint32_t i, q, e;
    int bad = TEST_FAILS();
    for (i = 0; i < g_ntouched; i++)
        if (g_touched[i] < r->nq)
            compare_queue(f, r, g_touched[i]);
    g_ntouched = 0;
    for (i = 0; i < 4; i++) {
        q = (uint32_t)rnic_prng_below(p, r->nq);
        compare_queue(f, r, q);
        CHECK_EQ(rnic_ssfifo_first_nonempty(f, q), ref_first_nonempty(r, q));
        e = (uint32_t)rnic_prng_below(p, r->ne);
        CHECK_EQ(rnic_ssfifo_is_queued(f, e), r->queued[e]);
    }
    CHECK_EQ(rnic_ssfifo_first_nonempty(f, 0), ref_first_nonempty(r, 0));
    CHECK_EQ(f->stats.enqueues, r->enqueues);
    CHECK_EQ(f->stats.dequeues, r->dequeues);
    CHECK_EQ(f->stats.forwards, r->forwards);
    CHECK_EQ(f->stats.port_conflicts, r->conflicts);
    for (e = 0; e < RNIC_ERR__COUNT; e++)
        CHECK_EQ(f->errors.by_cause[e], e == RNIC_EEMPTY ? 0 : r->errs[e]);
    if (TEST_FAILS() != bad)
        printf("  state mismatch after cycle %" PRIu64 "\n", cycle);
}

/* A random entry that is not queued (RNIC_NONE if all are), by probing then scanning. */
static uint32_t pick_free_entry(const ref_fifo *r, rnic_prng *p)
{
    uint32_t e, i, start;
    for (i = 0; i < 8; i++) {
        e = (uint32_t)rnic_prng_below(p, r->ne);
        if (!r->queued[e])
            return e;
    }
    start = (uint32_t)rnic_prng_below(p, r->ne);
    for (i = 0; i < r->ne; i++) {
        e = (start + i) % r->ne;
        if (!r->queued[e])
            return e;
    }
    return RNIC_NONE;
}

static uint32_t pick_queued_entry(const ref_fifo *r, rnic_prng *p)
{
    uint32_t e, i, start = (uint32_t)rnic_prng_below(p, r->ne);
    for (i = 0; i < r->ne; i++) {
        e = (start + i) % r->ne;
        if (r->queued[e])
            return e;
    }
    return RNIC_NONE;
}

/* A queue to dequeue from: usually a ready one, often the previous cycle's (forwarding). */
static uint32_t pick_deq_queue(const ref_fifo *r, rnic_prng *p)
{
    uint32_t q, i;
    if (r->prev_deq != UINT32_MAX && rnic_prng_chance(p, 1, 2))
        return r->prev_deq;
    if (rnic_prng_chance(p, 1, 8))
        return (uint32_t)rnic_prng_below(p, r->nq);
    for (i = 0; i < 8; i++) {
        q = (uint32_t)rnic_prng_below(p, r->nq);
        if (ref_ready(r, q))
            return q;
    }
    q = ref_first_nonempty(r, (uint32_t)rnic_prng_below(p, r->nq));
    if (q == RNIC_NONE)
        q = ref_first_nonempty(r, 0);
    return q != RNIC_NONE ? q : (uint32_t)rnic_prng_below(p, r->nq);
}

/* The queue count is small relative to the entry pool in most configs, so enqueues go to a
 * few "hot" queues more often, making long queues and back-to-back dequeues likely. */
static uint32_t pick_enq_queue(const ref_fifo *r, rnic_prng *p)
{
    if (rnic_prng_chance(p, 1, 2))
        return (uint32_t)rnic_prng_below(p, r->nq < 4 ? r->nq : 4);
    return (uint32_t)rnic_prng_below(p, r->nq);
}

/* Phase bias (percent of attempts that are enqueues); during a fill phase most dequeue
 * attempts are skipped and during a drain phase most enqueue attempts, so the pool reaches
 * both full and empty. */
static uint32_t g_enq_bias = 50;

static void do_enqueue(rnic_ssfifo *f, ref_fifo *r, rnic_prng *p, uint64_t cycle)
{
    uint32_t q = pick_enq_queue(r, p), e, roll = (uint32_t)rnic_prng_below(p, 100);
    uint32_t len_before;
    bool queued_before;
    rnic_err got, want;
    if (g_enq_bias < 50 && rnic_prng_below(p, 100) < (50 - g_enq_bias) * 2)
        return;
    if (roll < 3)
        q = r->nq + (uint32_t)rnic_prng_below(p, 3); /* unknown queue */
    if (roll >= 3 && roll < 6)
        e = r->ne + (uint32_t)rnic_prng_below(p, 2); /* entry out of range */
    else if (roll >= 6 && roll < 12)
        e = pick_queued_entry(r, p); /* already queued somewhere */
    else
        e = pick_free_entry(r, p);
    if (e == RNIC_NONE) /* nothing free (or nothing queued): try any entry */
        e = (uint32_t)rnic_prng_below(p, r->ne);
    if (roll == 99)
        e = UINT32_MAX;
    touch(q);
    len_before = rnic_ssfifo_length(f, q);
    queued_before = rnic_ssfifo_is_queued(f, e);
    want = ref_enqueue(r, q, e);
    got = rnic_ssfifo_enqueue(f, q, e);
    if (got != want)
        printf("  cycle %" PRIu64 ": enqueue(q=%u, e=%u) gave %s, want %s\n", cycle, q, e,
               rnic_err_name(got), rnic_err_name(want));
    CHECK_EQ(got, want);
    if (want != RNIC_OK) { /* rejected: nothing changed */
        CHECK_EQ(rnic_ssfifo_length(f, q), len_before);
        CHECK_EQ(rnic_ssfifo_is_queued(f, e), queued_before);
    } else {
        CHECK(rnic_ssfifo_is_queued(f, e));
        CHECK_EQ(rnic_ssfifo_length(f, q), len_before + 1u);
        CHECK(!rnic_ssfifo_empty(f, q)); /* a fresh queue already counts as non-empty */
    }
}

static void do_dequeue(rnic_ssfifo *f, ref_fifo *r, rnic_prng *p, uint64_t cycle)
{
    uint32_t q = pick_deq_queue(r, p), got_e = 0xdeadbeefu, want_e = 0xdeadbeefu;
    uint32_t len_before, peek_before;
    rnic_err got, want;
    if (g_enq_bias > 50 && rnic_prng_below(p, 100) < (g_enq_bias - 50) * 2)
        return;
    if (rnic_prng_chance(p, 1, 50))
        q = r->nq + (uint32_t)rnic_prng_below(p, 5);
    touch(q);
    len_before = rnic_ssfifo_length(f, q);
    peek_before = rnic_ssfifo_peek(f, q);
    want = ref_dequeue(r, q, &want_e);
    got = rnic_ssfifo_dequeue(f, q, &got_e);
    if (got != want)
        printf("  cycle %" PRIu64 ": dequeue(q=%u) gave %s, want %s\n", cycle, q, rnic_err_name(got),
               rnic_err_name(want));
    CHECK_EQ(got, want);
    if (want == RNIC_OK) {
        CHECK_EQ(got_e, want_e);
        CHECK_EQ(got_e, peek_before); /* a dequeue returns what peek showed */
        CHECK(!rnic_ssfifo_is_queued(f, got_e));
        CHECK_EQ(rnic_ssfifo_length(f, q), len_before - 1u);
    } else {
        CHECK_EQ(got_e, 0xdeadbeefu); /* output untouched */
        CHECK_EQ(rnic_ssfifo_length(f, q), len_before);
        CHECK_EQ(rnic_ssfifo_peek(f, q), peek_before);
    }
}

/* Run `cycles` random cycles on an nq x ne fifo; then drain it completely. */
static void random_run(uint32_t nq, uint32_t ne, uint64_t cycles, uint64_t seed)
{
    rnic_ssfifo f;
    ref_fifo r;
    rnic_prng p;
    void *mem;
    uint64_t c, max_held = 0;
    /* full comparisons cost O(nq + ne): about one per 64 queue-or-entry checks per cycle */
    uint64_t full_every = 1 + (nq + ne) / 64u;
    mem = alloc_fifo(&f, nq, ne);
    if (!mem)
        return;
    if (!ref_init(&r, nq, ne)) {
        CHECK(!"reference allocation");
        free(mem);
        return;
    }
    rnic_prng_seed(&p, seed);
    compare_state(&f, &r, 0);
    for (c = 1; c <= cycles && TEST_FAILS() == 0; c++) {
        /* Phases: fill, drain, balanced, so the pool reaches both full and empty. */
        if (c % 3000 == 1) {
            static const uint32_t bias[] = { 50, 85, 15, 60, 40 };
            g_enq_bias = bias[rnic_prng_below(&p, 5)];
        }
        switch (rnic_prng_below(&p, 8)) {
        case 0: /* idle cycle */
            break;
        case 1: /* enqueue only */
            do_enqueue(&f, &r, &p, c);
            break;
        case 2: /* dequeue only */
            do_dequeue(&f, &r, &p, c);
            break;
        case 3: /* dequeue then enqueue */
            do_dequeue(&f, &r, &p, c);
            do_enqueue(&f, &r, &p, c);
            break;
        case 4: /* enqueue then dequeue */
            do_enqueue(&f, &r, &p, c);
            do_dequeue(&f, &r, &p, c);
            break;
        default: { /* a burst of attempts: the extra ones are EBUSY (or another error) */
            uint32_t n = 1 + (uint32_t)rnic_prng_below(&p, 5), i;
            for (i = 0; i < n; i++) {
                if (rnic_prng_below(&p, 100) < g_enq_bias)
                    do_enqueue(&f, &r, &p, c);
                else
                    do_dequeue(&f, &r, &p, c);
            }
            break;
        }
        }
        rnic_ssfifo_tick(&f);
        ref_tick(&r);
        if (c % full_every == 0)
            compare_state(&f, &r, c);
        else
            compare_some(&f, &r, &p, c);
        if (r.enqueues - r.dequeues > max_held)
            max_held = r.enqueues - r.dequeues;
    }
    /* Drain: one dequeue per cycle, always from the lowest non-empty queue. */
    for (; TEST_FAILS() == 0; c++) {
        uint32_t q = ref_first_nonempty(&r, 0), want_e = 0, got_e = 1;
        if (q == RNIC_NONE)
            break;
        CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), q);
        CHECK_EQ(ref_dequeue(&r, q, &want_e), RNIC_OK);
        CHECK_EQ(rnic_ssfifo_dequeue(&f, q, &got_e), RNIC_OK);
        CHECK_EQ(got_e, want_e);
        rnic_ssfifo_tick(&f);
        ref_tick(&r);
    }
    compare_state(&f, &r, c);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), RNIC_NONE);
    CHECK_EQ(f.stats.enqueues, f.stats.dequeues);
    /* the run must have exercised what it claims to */
    CHECK(r.dequeues > 0);
    CHECK(r.forwards > 0);
    CHECK(ne == 1 || r.conflicts > 0); /* with one entry no second attempt gets that far */
    CHECK(r.errs[RNIC_EINVAL] > 0 && r.errs[RNIC_ENOENT] > 0 && r.errs[RNIC_EEXIST] > 0 && r.errs[RNIC_EEMPTY] > 0);
    CHECK(max_held == ne || ne > 1000); /* the small pools were filled completely */
    printf("  %u x %u: %" PRIu64 " cycles, %" PRIu64 " enqueues, %" PRIu64 " forwards, %" PRIu64
           " conflicts, at most %" PRIu64 " entries held\n",
           nq, ne, cycles, r.enqueues, r.forwards, r.conflicts, max_held);
    ref_free(&r);
    free(mem);
}

/* ---------------------------------------------------------------- test cases */

static void test_random_thesis_66x2048(void) { random_run(66, 2048, 200000, g_seed); }
static void test_random_1x1(void) { random_run(1, 1, 20000, g_seed + 1); }
static void test_random_2x3(void) { random_run(2, 3, 40000, g_seed + 2); }
static void test_random_1000x50(void) { random_run(1000, 50, test_length(20000, 100000), g_seed + 3); }
static void test_random_3x200(void) { random_run(3, 200, 60000, g_seed + 4); }
static void test_random_130x64(void) { random_run(130, 64, 40000, g_seed + 5); }

static void test_fresh_entry_visible_next_cycle(void)
{
    rnic_ssfifo f;
    uint32_t e = 77;
    void *mem = alloc_fifo(&f, 4, 16);
    if (!mem)
        return;
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 2, 5), RNIC_OK);
    /* visible to peek / empty / first_nonempty at once, but not dequeuable yet */
    CHECK(!rnic_ssfifo_empty(&f, 2));
    CHECK_EQ(rnic_ssfifo_peek(&f, 2), 5);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), 2);
    CHECK(!rnic_ssfifo_ready(&f, 2));
    CHECK_EQ(rnic_ssfifo_first_ready(&f, 0), RNIC_NONE);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 2, &e), RNIC_EEMPTY);
    CHECK_EQ(e, 77);
    CHECK_EQ(f.errors.by_cause[RNIC_EEMPTY], 0); /* a status, not counted */
    CHECK_EQ(rnic_ssfifo_length(&f, 2), 1);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 2, &e), RNIC_OK);
    CHECK_EQ(e, 5);
    CHECK(rnic_ssfifo_empty(&f, 2));
    CHECK_EQ(rnic_ssfifo_peek(&f, 2), RNIC_NONE);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), RNIC_NONE);
    /* an enqueue into a NON-empty queue does not hide the old head */
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 3), RNIC_OK);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 4), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(e, 3);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(e, 4);
    free(mem);
}

/* The case where Algorithms 1/2 as printed lose an entry: one enqueue and one dequeue on a
 * one-entry queue in the same cycle, in both orders. */
static void test_same_cycle_enq_deq_one_entry(void)
{
    rnic_ssfifo f;
    uint32_t e = 0;
    int order;
    void *mem = alloc_fifo(&f, 2, 8);
    if (!mem)
        return;
    for (order = 0; order < 2; order++) {
        CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 1), RNIC_OK);
        rnic_ssfifo_tick(&f);
        if (order == 0) {
            CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK);
            CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 2), RNIC_OK);
        } else {
            CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 2), RNIC_OK);
            CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK);
        }
        CHECK_EQ(e, 1);
        CHECK_EQ(rnic_ssfifo_length(&f, 0), 1);
        CHECK(!rnic_ssfifo_empty(&f, 0));
        CHECK_EQ(rnic_ssfifo_peek(&f, 0), 2);
        CHECK(rnic_ssfifo_is_queued(&f, 2));
        CHECK(!rnic_ssfifo_is_queued(&f, 1));
        rnic_ssfifo_tick(&f);
        CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK);
        CHECK_EQ(e, 2);
        CHECK(rnic_ssfifo_empty(&f, 0));
        rnic_ssfifo_tick(&f);
        CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_EEMPTY);
        rnic_ssfifo_tick(&f);
    }
    /* an entry dequeued this cycle may be enqueued again in the same cycle (even into
     * another queue): its queued bit was cleared by the dequeue */
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 6), RNIC_OK);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK);
    CHECK_EQ(e, 6);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 6), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_length(&f, 1), 1);
    CHECK(rnic_ssfifo_empty(&f, 0));
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(e, 6);
    CHECK_EQ(rnic_err_total(&f.errors), 0); /* the two EEMPTY above are statuses, not errors */
    free(mem);
}

static void test_port_conflicts(void)
{
    rnic_ssfifo f;
    uint32_t e = 0;
    void *mem = alloc_fifo(&f, 3, 10);
    if (!mem)
        return;
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 0), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 1), RNIC_EBUSY);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 2), RNIC_EBUSY);
    CHECK(!rnic_ssfifo_is_queued(&f, 1));
    CHECK(!rnic_ssfifo_is_queued(&f, 2));
    CHECK_EQ(rnic_ssfifo_length(&f, 0), 1);
    CHECK_EQ(rnic_ssfifo_length(&f, 1), 0);
    CHECK_EQ(f.stats.port_conflicts, 2);
    CHECK_EQ(f.errors.by_cause[RNIC_EBUSY], 2);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 1), RNIC_OK);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 2), RNIC_OK);
    rnic_ssfifo_tick(&f);
    /* queue 0: 0, 1; queue 1: 2 */
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK);
    CHECK_EQ(e, 0);
    e = 99;
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_EBUSY);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_EBUSY);
    CHECK_EQ(e, 99);
    CHECK_EQ(rnic_ssfifo_length(&f, 0), 1);
    CHECK_EQ(rnic_ssfifo_length(&f, 1), 1);
    /* errors take precedence over the busy port */
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 2, &e), RNIC_EEMPTY);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 3, &e), RNIC_EINVAL);
    /* the enqueue port is independent of the dequeue port */
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 2, 3), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 2, 2), RNIC_EEXIST);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 2, 10), RNIC_ENOENT);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 3, 4), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 2, 4), RNIC_EBUSY);
    CHECK_EQ(f.stats.port_conflicts, 5);
    CHECK_EQ(f.stats.enqueues, 4);
    CHECK_EQ(f.stats.dequeues, 1);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(e, 2);
    free(mem);
}

static void test_forward_counting(void)
{
    rnic_ssfifo f;
    uint32_t e, i;
    void *mem = alloc_fifo(&f, 2, 16);
    if (!mem)
        return;
    for (i = 0; i < 12; i++) {
        CHECK_EQ(rnic_ssfifo_enqueue(&f, i % 2, i), RNIC_OK);
        rnic_ssfifo_tick(&f);
    }
    /* q0 holds 0 2 4 6 8 10, q1 holds 1 3 5 7 9 11 */
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK); /* first dequeue: no forward */
    rnic_ssfifo_tick(&f);
    CHECK_EQ(f.stats.forwards, 0);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK); /* back-to-back: forward */
    rnic_ssfifo_tick(&f);
    CHECK_EQ(f.stats.forwards, 1);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_OK); /* again */
    rnic_ssfifo_tick(&f);
    CHECK_EQ(f.stats.forwards, 2);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK); /* other queue: none */
    rnic_ssfifo_tick(&f);
    CHECK_EQ(f.stats.forwards, 2);
    rnic_ssfifo_tick(&f);                              /* idle cycle */
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK); /* not back-to-back: none */
    rnic_ssfifo_tick(&f);
    CHECK_EQ(f.stats.forwards, 2);
    /* a failed attempt does not count as the cycle's dequeue */
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(f.stats.forwards, 3);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_EBUSY);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(f.stats.forwards, 4);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 5, &e), RNIC_EINVAL);
    rnic_ssfifo_tick(&f);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK); /* after a cycle with no dequeue */
    CHECK_EQ(f.stats.forwards, 4);
    CHECK_EQ(f.stats.dequeues, 8);
    free(mem);
}

static void test_bad_input(void)
{
    rnic_ssfifo f, before;
    uint32_t e = 42;
    void *mem = alloc_fifo(&f, 5, 7);
    if (!mem)
        return;
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 3), RNIC_OK);
    rnic_ssfifo_tick(&f);
    before = f;
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 5, 0), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, UINT32_MAX, 0), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 5, 3), RNIC_EINVAL); /* queue is checked first */
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 7), RNIC_ENOENT);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, UINT32_MAX), RNIC_ENOENT);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 1, 3), RNIC_EEXIST); /* same queue */
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 4, 3), RNIC_EEXIST); /* another queue */
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 0, &e), RNIC_EEMPTY);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 5, &e), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, NULL), RNIC_EINVAL);
    CHECK_EQ(e, 42);
    CHECK_EQ(f.errors.by_cause[RNIC_EINVAL], 5);
    CHECK_EQ(f.errors.by_cause[RNIC_ENOENT], 2);
    CHECK_EQ(f.errors.by_cause[RNIC_EEXIST], 2);
    CHECK_EQ(f.errors.by_cause[RNIC_EEMPTY], 0); /* an empty poll is a status */
    CHECK_EQ(f.errors.by_cause[RNIC_OK], 0);
    CHECK_EQ(rnic_err_total(&f.errors), 9);
    /* nothing else changed, and no port was taken */
    CHECK(memcmp(&f.stats, &before.stats, sizeof f.stats) == 0);
    CHECK(f.enq_used == before.enq_used && f.deq_used == before.deq_used);
    CHECK_EQ(rnic_ssfifo_length(&f, 1), 1);
    CHECK(rnic_ssfifo_is_queued(&f, 3));
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, 0), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_dequeue(&f, 1, &e), RNIC_OK);
    CHECK_EQ(e, 3);
    /* out-of-range queries are harmless */
    CHECK(rnic_ssfifo_empty(&f, 5));
    CHECK_EQ(rnic_ssfifo_length(&f, 5), 0);
    CHECK_EQ(rnic_ssfifo_peek(&f, 5), RNIC_NONE);
    CHECK(!rnic_ssfifo_is_queued(&f, 7));
    CHECK(!rnic_ssfifo_is_queued(&f, UINT32_MAX));
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 5), RNIC_NONE);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, UINT32_MAX), RNIC_NONE);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), 0);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 1), RNIC_NONE);
    free(mem);
}

/* All entries in one queue, then all in different queues; order preserved per queue. */
static void test_fill_whole_pool(void)
{
    rnic_ssfifo f;
    uint32_t i, e, nq = 70, ne = 300;
    void *mem = alloc_fifo(&f, nq, ne);
    if (!mem)
        return;
    for (i = 0; i < ne; i++) {
        CHECK_EQ(rnic_ssfifo_enqueue(&f, 69, (i * 7u) % ne), RNIC_OK);
        rnic_ssfifo_tick(&f);
    }
    CHECK_EQ(rnic_ssfifo_length(&f, 69), ne);
    for (i = 0; i < ne; i++)
        CHECK_EQ(rnic_ssfifo_enqueue(&f, 0, i), RNIC_EEXIST);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), 69);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 64), 69);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 69), 69);
    for (i = 0; i < ne; i++) {
        CHECK_EQ(rnic_ssfifo_dequeue(&f, 69, &e), RNIC_OK);
        CHECK_EQ(e, (i * 7u) % ne);
        rnic_ssfifo_tick(&f);
    }
    CHECK_EQ(f.stats.forwards, ne - 1u);
    CHECK(rnic_ssfifo_empty(&f, 69));
    for (i = 0; i < ne; i++) {
        CHECK_EQ(rnic_ssfifo_enqueue(&f, i % nq, i), RNIC_OK);
        rnic_ssfifo_tick(&f);
    }
    for (i = 0; i < nq; i++)
        CHECK_EQ(rnic_ssfifo_length(&f, i), ne / nq + (i < ne % nq ? 1u : 0u));
    /* draining the lowest non-empty queue first: 0, 70, 140, ..., 1, 71, ... */
    {
        uint32_t q, k;
        for (q = 0; q < nq; q++)
            for (k = q; k < ne; k += nq) {
                CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), q);
                CHECK_EQ(rnic_ssfifo_peek(&f, q), k);
                CHECK_EQ(rnic_ssfifo_dequeue(&f, q, &e), RNIC_OK);
                CHECK_EQ(e, k);
                rnic_ssfifo_tick(&f);
            }
    }
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), RNIC_NONE);
    CHECK_EQ(rnic_err_total(&f.errors), ne);
    free(mem);
}

static void test_mem_size_and_init_errors(void)
{
    rnic_ssfifo_config cfg;
    rnic_ssfifo f;
    size_t need;
    uint64_t *mem;
    static const uint32_t bad[][2] = { { 0, 1 }, { 1, 0 }, { 65537, 1 }, { 1, (1u << 30) + 1u }, { UINT32_MAX, UINT32_MAX } };
    unsigned i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t buf[8];
        cfg.nqueues = bad[i][0];
        cfg.nentries = bad[i][1];
        CHECK_EQ(rnic_ssfifo_mem_size(&cfg), 0);
        CHECK_EQ(rnic_ssfifo_init(&f, &cfg, buf, sizeof buf), RNIC_EINVAL);
    }
    CHECK_EQ(rnic_ssfifo_mem_size(NULL), 0);

    /* the limits themselves are valid; sizes grow with both dimensions, 8-byte multiples */
    cfg.nqueues = 65536;
    cfg.nentries = 1u << 30;
    need = rnic_ssfifo_mem_size(&cfg);
    CHECK(need >= (size_t)4 * (1u << 30) + (size_t)12 * 65536);
    CHECK_EQ(need % 8, 0);
    cfg.nqueues = 1;
    cfg.nentries = 1;
    CHECK(rnic_ssfifo_mem_size(&cfg) > 0);
    CHECK_EQ(rnic_ssfifo_mem_size(&cfg) % 8, 0);
    cfg.nqueues = 66;
    cfg.nentries = 2048;
    need = rnic_ssfifo_mem_size(&cfg);
    /* 4 B per entry + 1 bit per entry + 12 B per queue (head, tail, length) + 1 bit per queue */
    CHECK(need >= 2048u * 4u + 2048u / 8u + 66u * 12u + 66u / 8u);
    CHECK(need <= 2048u * 4u + 2048u / 8u + 66u * 12u + 66u / 8u + 64u);
    cfg.nentries = 2049;
    CHECK(rnic_ssfifo_mem_size(&cfg) > need);
    cfg.nentries = 2048;
    cfg.nqueues = 67;
    CHECK(rnic_ssfifo_mem_size(&cfg) > need);
    cfg.nqueues = 66;

    mem = (uint64_t *)malloc(need + 16);
    CHECK(mem != NULL);
    if (!mem)
        return;
    CHECK_EQ(rnic_ssfifo_init(NULL, &cfg, mem, need), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_init(&f, NULL, mem, need), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, NULL, need), RNIC_EINVAL);
    for (i = 1; i < 8; i++)
        CHECK_EQ(rnic_ssfifo_init(&f, &cfg, (unsigned char *)mem + i, need), RNIC_EINVAL);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, mem, need - 1), RNIC_ENOSPC);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, mem, 0), RNIC_ENOSPC);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, (unsigned char *)mem + 8, need), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, mem, need + 16), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, mem, need), RNIC_OK);
    CHECK_EQ(f.nqueues, 66);
    CHECK_EQ(f.nentries, 2048);
    CHECK_EQ(rnic_ssfifo_first_nonempty(&f, 0), RNIC_NONE);
    CHECK_EQ(rnic_err_total(&f.errors), 0);
    /* re-init wipes a used fifo */
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 3, 3), RNIC_OK);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 3, 4), RNIC_EBUSY);
    CHECK_EQ(rnic_ssfifo_init(&f, &cfg, mem, need), RNIC_OK);
    CHECK(rnic_ssfifo_empty(&f, 3));
    CHECK(!rnic_ssfifo_is_queued(&f, 3));
    CHECK_EQ(f.stats.enqueues, 0);
    CHECK_EQ(rnic_err_total(&f.errors), 0);
    CHECK_EQ(rnic_ssfifo_enqueue(&f, 3, 4), RNIC_OK);
    free(mem);
}

int main(void)
{
    g_seed = test_seed(0x55f1f0);
    RUN(test_fresh_entry_visible_next_cycle);
    RUN(test_same_cycle_enq_deq_one_entry);
    RUN(test_port_conflicts);
    RUN(test_forward_counting);
    RUN(test_bad_input);
    RUN(test_fill_whole_pool);
    RUN(test_mem_size_and_init_errors);
    RUN(test_random_thesis_66x2048);
    RUN(test_random_1x1);
    RUN(test_random_2x3);
    RUN(test_random_1000x50);
    RUN(test_random_3x200);
    RUN(test_random_130x64);
    return test_summary();
}
