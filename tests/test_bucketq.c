/* Hierarchical bitmap bucket queue (src/common/bucketq.h) against a naive reference: a
 * dynamic array (stb_ds) of (item, key, insertion seq) scanned for the minimum, on random
 * insert / remove / pop_min / find_ge / find_ge_wrap / min_key / bucket walks with nkeys
 * from 1 to 2^24 + 1 (1 to 5 bitmap levels); layout and init; bad input. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "test.h"
/* stb_ds.h tests `#if __clang__`, which -Wundef rejects under gcc */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#include <stb_ds.h>
#pragma GCC diagnostic pop

typedef struct ref_ent {
    uint32_t item, key;
    uint64_t seq;
} ref_ent;

/* The reference: queued entries in no particular order, plus a global insertion counter. */
typedef struct ref_q {
    ref_ent *ents; /* stb_ds array */
    uint64_t seq;
} ref_q;

/* A queue under test with its caller memory (and a guard tail after the bytes it needs). */
typedef struct tq {
    rnic_bq q;
    rnic_bq_config cfg;
    unsigned char *mem;
    size_t size;
    ref_q ref;
} tq;

#define GUARD_BYTES 64u
static uint64_t cases;
#define BIG_MIN ((size_t)32 << 20)
static unsigned char *big_mem; /* one reused block for the big queues (page faults are slow under ASan) */
static size_t big_size;
static uint32_t *order; /* scratch: a bucket's items in reference order (stb_ds array) */

static long ref_find(const ref_q *r, uint32_t item)
{
    long i;
    for (i = 0; i < (long)arrlen(r->ents); i++)
        if (r->ents[i].item == item)
            return i;
    return -1;
}

static uint32_t ref_key_of(const ref_q *r, uint32_t item)
{
    long i = ref_find(r, item);
    return i < 0 ? RNIC_NONE : r->ents[i].key;
}

/* Index of the entry with the smallest (key, seq) among keys >= from, -1 if none. */
static long ref_min_from(const ref_q *r, uint32_t from)
{
    long i, best = -1;
    for (i = 0; i < (long)arrlen(r->ents); i++) {
        const ref_ent *e = &r->ents[i];
        if (e->key < from)
            continue;
        if (best < 0 || e->key < r->ents[best].key || (e->key == r->ents[best].key && e->seq < r->ents[best].seq))
            best = i;
    }
    return best;
}

static uint32_t ref_find_ge(const ref_q *r, uint32_t from)
{
    long i = ref_min_from(r, from);
    return i < 0 ? RNIC_NONE : r->ents[i].key;
}

static uint32_t ref_find_ge_wrap(const ref_q *r, uint32_t from)
{
    uint32_t k = ref_find_ge(r, from);
    return k != RNIC_NONE ? k : ref_find_ge(r, 0);
}

/* The items of bucket `key` in insertion order, into out[] (stb_ds array, reset first). */
static void ref_bucket(const ref_q *r, uint32_t key, uint32_t **out)
{
    uint64_t last = 0;
    int first = 1;
    if (arrlen(*out))
        arrdeln(*out, 0, arrlen(*out));
    for (;;) { /* repeatedly the smallest seq greater than the last one: O(n^2), naive */
        long i, best = -1;
        for (i = 0; i < (long)arrlen(r->ents); i++) {
            const ref_ent *e = &r->ents[i];
            if (e->key == key && (first || e->seq > last) && (best < 0 || e->seq < r->ents[best].seq))
                best = i;
        }
        if (best < 0)
            return;
        arrput(*out, r->ents[best].item);
        last = r->ents[best].seq;
        first = 0;
    }
}

static void ref_insert(ref_q *r, uint32_t item, uint32_t key)
{
    ref_ent e;
    e.item = item;
    e.key = key;
    e.seq = r->seq++;
    arrput(r->ents, e);
}

static int tq_open(tq *t, uint32_t nkeys, uint32_t nitems)
{
    rnic_err e;
    memset(t, 0, sizeof *t);
    t->cfg.nkeys = nkeys;
    t->cfg.nitems = nitems;
    t->size = rnic_bq_mem_size(&t->cfg);
    CHECK(t->size > 0);
    if (t->size + GUARD_BYTES > BIG_MIN) { /* the 2^24-key queues share one block */
        if (big_size < t->size + GUARD_BYTES) {
            free(big_mem);
            big_size = t->size + GUARD_BYTES;
            big_mem = (unsigned char *)malloc(big_size);
        }
        t->mem = big_mem;
    } else {
        t->mem = (unsigned char *)malloc(t->size + GUARD_BYTES);
    }
    CHECK(t->mem != NULL);
    if (!t->mem || !t->size)
        return 0;
    memset(t->mem + t->size, 0x5a, GUARD_BYTES);
    e = rnic_bq_init(&t->q, &t->cfg, t->mem, t->size);
    CHECK_EQ(e, RNIC_OK);
    return e == RNIC_OK;
}

static void tq_close(tq *t)
{
    size_t i;
    for (i = 0; i < GUARD_BYTES; i++)
        if (t->mem[t->size + i] != 0x5a)
            break;
    CHECK_EQ(i, GUARD_BYTES); /* nothing written past rnic_bq_mem_size bytes */
    if (t->mem != big_mem)
        free(t->mem);
    arrfree(t->ref.ents);
}

/* White box: level l+1 bit i is set iff word i of level l is non-zero; level 0 bit k is set
 * iff bucket k is non-empty; bits past the end of each level are zero. O(nkeys). */
static int bq_levels_consistent(const rnic_bq *q)
{
    uint32_t l, i, k;
    for (k = 0; k < q->nkeys; k++)
        if (rnic_bitmap_test(q->level[0], k) != (q->bucket_head[k] != RNIC_NONE))
            return 0;
    if (q->nkeys & 63u)
        if (q->level[0][q->nkeys >> 6] >> (q->nkeys & 63u))
            return 0;
    for (l = 0; l + 1 < q->nlevels; l++) {
        uint32_t below = q->level_words[l];
        for (i = 0; i < below; i++)
            if (rnic_bitmap_test(q->level[l + 1], i) != (q->level[l][i] != 0))
                return 0;
        if (below & 63u)
            if (q->level[l + 1][below >> 6] >> (below & 63u))
                return 0;
    }
    return q->level_words[q->nlevels - 1] == 1;
}

/* The whole observable state against the reference. With `full`, every key's bucket and
 * every item's key; otherwise the occupied buckets plus a sample of empty keys. */
static void tq_check(tq *t, rnic_prng *p, int full)
{
    const rnic_bq *q = &t->q;
    ref_q *r = &t->ref;
    uint32_t i, k, it, n;
    long m = ref_min_from(r, 0);
    CHECK_EQ(rnic_bq_count(q), arrlen(r->ents));
    CHECK_EQ(rnic_bq_empty(q), arrlen(r->ents) == 0);
    CHECK_EQ(rnic_bq_min_key(q), m < 0 ? RNIC_NONE : r->ents[m].key);
    if (full || q->nitems <= 4096u)
        for (i = 0; i < q->nitems; i++)
            CHECK_EQ(rnic_bq_key_of(q, i), ref_key_of(r, i));
    for (i = 0; i < (uint32_t)arrlen(r->ents); i++) { /* each occupied bucket, walked */
        uint32_t j;
        k = r->ents[i].key;
        if (!full && i % 8u != 0)
            continue;
        for (j = 0; j < i && r->ents[j].key != k; j++)
            ;
        if (j < i)
            continue; /* this bucket was walked already */
        ref_bucket(r, k, &order);
        n = 0;
        for (it = rnic_bq_bucket_first(q, k); it != RNIC_NONE && n <= q->nitems; it = rnic_bq_bucket_next(q, it)) {
            CHECK(n < (uint32_t)arrlen(order) && order[n] == it);
            CHECK_EQ(rnic_bq_key_of(q, it), k);
            n++;
        }
        CHECK_EQ(n, arrlen(order));
    }
    if (full && q->nkeys <= 1u << 18) {
        for (k = 0; k < q->nkeys; k++)
            if (rnic_bq_bucket_first(q, k) != RNIC_NONE)
                CHECK(ref_find_ge(r, k) == k);
        CHECK(bq_levels_consistent(q));
    } else {
        for (i = 0; i < 16; i++) {
            k = (uint32_t)rnic_prng_below(p, q->nkeys);
            CHECK_EQ(rnic_bq_bucket_first(q, k) != RNIC_NONE, ref_find_ge(r, k) == k);
        }
    }
    cases++;
}

/* A key: uniform, one of a few hot keys (long FIFOs), or next to a level boundary. */
static uint32_t pick_key(rnic_prng *p, uint32_t nkeys)
{
    uint32_t k;
    switch (rnic_prng_below(p, 4)) {
    case 0:
        return (uint32_t)rnic_prng_below(p, nkeys);
    case 1:
        return (uint32_t)(rnic_prng_below(p, 5) * 2654435761u % nkeys); /* hot */
    case 2: { /* around a multiple of 64^j */
        uint32_t j = (uint32_t)rnic_prng_below(p, 5), unit = (uint32_t)1 << (6u * j);
        k = (uint32_t)rnic_prng_below(p, nkeys / unit + 1u) * unit;
        k += (uint32_t)rnic_prng_below(p, 3) - 1u; /* -1, 0, +1 (wraps below 0) */
        return k < nkeys ? k : nkeys - 1u;
    }
    default: /* near the ends */
        k = (uint32_t)rnic_prng_below(p, nkeys < 4u ? nkeys : 4u);
        return rnic_prng_chance(p, 1, 2) ? k : nkeys - 1u - k;
    }
}

/* Random operation sequences against the reference: `ops` operations, with the occupancy
 * swinging between empty and full in phases. */
static void random_ops(uint32_t nkeys, uint32_t nitems, uint32_t ops, uint32_t check_every, rnic_prng *p)
{
    tq t;
    uint32_t op, fill = 50;
    if (!tq_open(&t, nkeys, nitems))
        return;
    tq_check(&t, p, 1);
    for (op = 0; op < ops && TEST_FAILS() == 0; op++) {
        rnic_bq *q = &t.q;
        ref_q *r = &t.ref;
        uint32_t item, key, got_item, got_key, from;
        long i;
        if (op % 512u == 0)
            fill = (uint32_t)rnic_prng_below(p, 101); /* % chance of an insert, this phase */
        switch (rnic_prng_below(p, 10)) {
        case 0:
        case 1:
        case 2: /* insert (a free item) */
            if (!rnic_prng_chance(p, fill, 100) || (uint32_t)arrlen(r->ents) == nitems)
                goto pop;
            do
                item = (uint32_t)rnic_prng_below(p, nitems);
            while (ref_find(r, item) >= 0);
            key = pick_key(p, nkeys);
            CHECK_EQ(rnic_bq_insert(q, item, key), RNIC_OK);
            ref_insert(r, item, key);
            CHECK_EQ(rnic_bq_key_of(q, item), key);
            break;
        case 3: /* remove a queued item from anywhere */
            if (arrlen(r->ents) == 0)
                break;
            i = (long)rnic_prng_below(p, (uint64_t)arrlen(r->ents));
            item = r->ents[i].item;
            CHECK_EQ(rnic_bq_remove(q, item), RNIC_OK);
            arrdelswap(r->ents, i);
            CHECK_EQ(rnic_bq_key_of(q, item), RNIC_NONE);
            CHECK_EQ(rnic_bq_bucket_next(q, item), RNIC_NONE);
            break;
        case 4:
        pop: /* pop_min: the oldest item of the smallest key */
            if (rnic_prng_chance(p, fill, 100))
                break;
            i = ref_min_from(r, 0);
            if (i < 0) {
                CHECK_EQ(rnic_bq_pop_min(q, &got_item, &got_key), RNIC_EEMPTY);
                break;
            }
            got_item = got_key = 12345;
            CHECK_EQ(rnic_bq_pop_min(q, &got_item, &got_key), RNIC_OK);
            CHECK_EQ(got_item, r->ents[i].item);
            CHECK_EQ(got_key, r->ents[i].key);
            arrdelswap(r->ents, i);
            break;
        case 5:
        case 6: /* find_ge / find_ge_wrap from a random key, an occupied key, or next to one */
            from = pick_key(p, nkeys);
            if (arrlen(r->ents) && rnic_prng_chance(p, 1, 2)) {
                from = r->ents[rnic_prng_below(p, (uint64_t)arrlen(r->ents))].key;
                from += (uint32_t)rnic_prng_below(p, 3) - 1u;
                if (from >= nkeys)
                    from = rnic_prng_chance(p, 1, 2) ? 0 : from;
            }
            CHECK_EQ(rnic_bq_find_ge(q, from), from < nkeys ? ref_find_ge(r, from) : RNIC_NONE);
            CHECK_EQ(rnic_bq_find_ge_wrap(q, from), ref_find_ge_wrap(r, from < nkeys ? from : 0));
            break;
        case 7: /* min_key and the whole walk of the minimum bucket */
            key = rnic_bq_min_key(q);
            CHECK_EQ(key, ref_find_ge(r, 0));
            if (key != RNIC_NONE) {
                uint32_t n = 0;
                ref_bucket(r, key, &order);
                for (item = rnic_bq_bucket_first(q, key); item != RNIC_NONE && n <= nitems; item = rnic_bq_bucket_next(q, item))
                    CHECK(n < (uint32_t)arrlen(order) && order[n++] == item);
                CHECK_EQ(n, arrlen(order));
            }
            break;
        default: /* key_of of any item */
            item = (uint32_t)rnic_prng_below(p, nitems);
            CHECK_EQ(rnic_bq_key_of(q, item), ref_key_of(r, item));
            break;
        }
        cases++;
        if (check_every && op % check_every == check_every - 1u)
            tq_check(&t, p, 0);
    }
    tq_check(&t, p, 1);
    tq_close(&t);
}

static void test_levels(void)
{
    static const struct {
        uint32_t nkeys, levels;
    } tab[] = { { 1, 1 }, { 63, 1 }, { 64, 1 }, { 65, 2 }, { 4095, 2 }, { 4096, 2 }, { 4097, 3 },
                { 262144, 3 }, { 262145, 4 }, { 1u << 24, 4 }, { (1u << 24) + 1u, 5 } };
    unsigned i;
    for (i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        tq t;
        uint32_t l, words = tab[i].nkeys;
        if (!tq_open(&t, tab[i].nkeys, 8))
            continue;
        CHECK_EQ(t.q.nlevels, tab[i].levels);
        for (l = 0; l < t.q.nlevels; l++) {
            words = (words + 63u) / 64u;
            CHECK_EQ(t.q.level_words[l], words);
        }
        CHECK_EQ(words, 1);
        CHECK_EQ(rnic_bq_min_key(&t.q), RNIC_NONE);
        CHECK_EQ(rnic_bq_find_ge(&t.q, 0), RNIC_NONE);
        CHECK_EQ(rnic_bq_find_ge_wrap(&t.q, tab[i].nkeys - 1u), RNIC_NONE);
        CHECK_EQ(rnic_bq_count(&t.q), 0);
        CHECK(rnic_bq_empty(&t.q));
        tq_close(&t);
    }
}

/* rnic_bq_mem_size against the documented layout; init's rejections. */
static void test_mem_size_and_init(void)
{
    static const uint32_t keys[] = { 1, 2, 63, 64, 65, 100, 4095, 4096, 4097, 262145, 1u << 24, 1u << 30 };
    static const uint32_t items[] = { 1, 2, 3, 7, 1000, 65536, RNIC_NONE - 1u };
    rnic_bq_config cfg;
    rnic_bq q;
    unsigned i, j;
    uint64_t *mem;
    size_t need;
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        for (j = 0; j < sizeof items / sizeof items[0]; j++) {
            uint64_t want = 0, words = keys[i];
            do {
                words = (words + 63u) / 64u;
                want += words * 8u;
            } while (words > 1u);
            want += 2u * (((uint64_t)keys[i] * 4u + 7u) & ~(uint64_t)7u);
            want += 3u * (((uint64_t)items[j] * 4u + 7u) & ~(uint64_t)7u);
            cfg.nkeys = keys[i];
            cfg.nitems = items[j];
            if ((uint64_t)(size_t)want != want)
                want = 0; /* does not fit a 32-bit address space: invalid there */
            CHECK_EQ(rnic_bq_mem_size(&cfg), want);
        }
    cfg.nkeys = 0;
    cfg.nitems = 5;
    CHECK_EQ(rnic_bq_mem_size(&cfg), 0);
    cfg.nkeys = RNIC_BQ_MAX_KEYS + 1u;
    CHECK_EQ(rnic_bq_mem_size(&cfg), 0);
    cfg.nkeys = RNIC_NONE;
    CHECK_EQ(rnic_bq_mem_size(&cfg), 0);
    cfg.nkeys = 10;
    cfg.nitems = 0;
    CHECK_EQ(rnic_bq_mem_size(&cfg), 0);
    cfg.nitems = RNIC_NONE;
    CHECK_EQ(rnic_bq_mem_size(&cfg), 0);
    CHECK_EQ(rnic_bq_mem_size(NULL), 0);

    cfg.nkeys = 4097;
    cfg.nitems = 100;
    need = rnic_bq_mem_size(&cfg);
    mem = (uint64_t *)malloc(need + 64);
    if (!mem)
        return;
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, need - 1u), RNIC_ENOSPC);
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, 0), RNIC_ENOSPC);
    CHECK_EQ(rnic_bq_init(&q, &cfg, (unsigned char *)mem + 4, need + 8), RNIC_EINVAL); /* misaligned */
    CHECK_EQ(rnic_bq_init(&q, &cfg, (unsigned char *)mem + 1, need + 8), RNIC_EINVAL);
    CHECK_EQ(rnic_bq_init(&q, &cfg, (unsigned char *)mem + 8, need), RNIC_OK); /* aligned, not at malloc's start */
    CHECK_EQ(rnic_bq_init(NULL, &cfg, mem, need), RNIC_EINVAL);
    CHECK_EQ(rnic_bq_init(&q, NULL, mem, need), RNIC_EINVAL);
    CHECK_EQ(rnic_bq_init(&q, &cfg, NULL, need), RNIC_EINVAL);
    cfg.nkeys = 0;
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, need), RNIC_EINVAL);
    cfg.nkeys = RNIC_BQ_MAX_KEYS + 1u;
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, (size_t)-1), RNIC_EINVAL); /* bad config beats size */
    cfg.nkeys = 10;
    cfg.nitems = 0;
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, need), RNIC_EINVAL);
    cfg.nitems = RNIC_NONE;
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, (size_t)-1), RNIC_EINVAL);
    cfg.nkeys = 4097;
    cfg.nitems = 100;
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, need), RNIC_OK);
    CHECK_EQ(q.nkeys, 4097);
    CHECK_EQ(q.nitems, 100);
    CHECK_EQ(rnic_err_total(&q.errors), 0);
    /* re-init of a used queue starts it empty again */
    CHECK_EQ(rnic_bq_insert(&q, 3, 4000), RNIC_OK);
    CHECK_EQ(rnic_bq_insert(&q, 200, 1), RNIC_ENOENT);
    CHECK_EQ(rnic_bq_init(&q, &cfg, mem, need), RNIC_OK);
    CHECK_EQ(rnic_bq_count(&q), 0);
    CHECK_EQ(rnic_bq_key_of(&q, 3), RNIC_NONE);
    CHECK_EQ(rnic_bq_min_key(&q), RNIC_NONE);
    CHECK_EQ(rnic_err_total(&q.errors), 0);
    free(mem);
}

/* Equal keys come out in insertion order, also after removals from the middle, and a
 * removed-then-reinserted item goes to the back. */
static void test_fifo_within_key(void)
{
    tq t;
    uint32_t i, it = 0, k = 0;
    if (!tq_open(&t, 4097, 64))
        return;
    for (i = 0; i < 10; i++)
        CHECK_EQ(rnic_bq_insert(&t.q, 9 - i, 4096), RNIC_OK); /* items 9, 8, ..., 0 */
    CHECK_EQ(rnic_bq_insert(&t.q, 20, 4095), RNIC_OK);
    CHECK_EQ(rnic_bq_remove(&t.q, 5), RNIC_OK); /* middle */
    CHECK_EQ(rnic_bq_remove(&t.q, 9), RNIC_OK); /* head */
    CHECK_EQ(rnic_bq_remove(&t.q, 0), RNIC_OK); /* tail */
    CHECK_EQ(rnic_bq_insert(&t.q, 5, 4096), RNIC_OK); /* back at the tail */
    {
        static const uint32_t want[] = { 8, 7, 6, 4, 3, 2, 1, 5 };
        i = 0;
        for (it = rnic_bq_bucket_first(&t.q, 4096); it != RNIC_NONE; it = rnic_bq_bucket_next(&t.q, it), i++)
            CHECK(i < 8 && want[i] == it);
        CHECK_EQ(i, 8);
        CHECK_EQ(rnic_bq_pop_min(&t.q, &it, &k), RNIC_OK);
        CHECK_EQ(it, 20);
        CHECK_EQ(k, 4095);
        for (i = 0; i < 8; i++) {
            CHECK_EQ(rnic_bq_pop_min(&t.q, &it, NULL), RNIC_OK);
            CHECK_EQ(it, want[i]);
        }
    }
    CHECK_EQ(rnic_bq_pop_min(&t.q, NULL, NULL), RNIC_EEMPTY);
    CHECK_EQ(t.q.errors.by_cause[RNIC_EEMPTY], 0); /* an empty poll is a status, not counted */
    CHECK_EQ(rnic_bq_insert(&t.q, 1, 0), RNIC_OK);
    CHECK_EQ(rnic_bq_pop_min(&t.q, NULL, NULL), RNIC_OK); /* NULL outputs are allowed */
    CHECK(rnic_bq_empty(&t.q));
    tq_close(&t);
}

/* find_ge and find_ge_wrap from EVERY key, for random sparse and dense key sets; the
 * reference is the next occupied key computed by one backward scan of a plain array. */
static void test_find_ge_every_from(void)
{
    static const uint32_t sizes[] = { 1, 2, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097, 262145 };
    rnic_prng p;
    unsigned si, rep;
    rnic_prng_seed(&p, test_seed(11));
    for (si = 0; si < sizeof sizes / sizeof sizes[0] && TEST_FAILS() == 0; si++) {
        uint32_t n = sizes[si], reps = n > 5000u ? 3u : 40u;
        unsigned char *occ = (unsigned char *)calloc(n, 1);
        uint32_t *next = (uint32_t *)malloc((size_t)n * sizeof *next);
        tq t;
        if (!occ || !next || !tq_open(&t, n, 256)) {
            free(occ);
            free(next);
            continue;
        }
        for (rep = 0; rep < reps; rep++) {
            uint32_t k, cnt = (uint32_t)rnic_prng_below(&p, 257), i, first = RNIC_NONE, nx = RNIC_NONE;
            CHECK_EQ(rnic_bq_init(&t.q, &t.cfg, t.mem, t.size), RNIC_OK);
            memset(occ, 0, n);
            for (i = 0; i < cnt && i < 256; i++) {
                k = rep % 4u == 0 ? pick_key(&p, n) : (uint32_t)rnic_prng_below(&p, n);
                if (rep % 8u == 1)
                    k = (uint32_t)rnic_prng_below(&p, n < 200u ? n : 200u); /* dense at the start */
                CHECK_EQ(rnic_bq_insert(&t.q, i, k), RNIC_OK);
                occ[k] = 1;
            }
            for (k = n; k-- > 0;) {
                if (occ[k])
                    nx = k;
                next[k] = nx;
            }
            first = next[0];
            for (k = 0; k < n; k++) {
                CHECK_EQ(rnic_bq_find_ge(&t.q, k), next[k]);
                CHECK_EQ(rnic_bq_find_ge_wrap(&t.q, k), next[k] != RNIC_NONE ? next[k] : first);
            }
            CHECK_EQ(rnic_bq_find_ge(&t.q, n), RNIC_NONE);
            CHECK_EQ(rnic_bq_find_ge(&t.q, RNIC_NONE), RNIC_NONE);
            CHECK_EQ(rnic_bq_find_ge_wrap(&t.q, n), first);
            CHECK_EQ(rnic_bq_min_key(&t.q), first);
            CHECK(bq_levels_consistent(&t.q));
            cases += n;
        }
        tq_close(&t);
        free(occ);
        free(next);
    }
}

/* Single keys at every level boundary of a 5-level queue (nkeys = 2^24 + 1). */
static void test_five_levels_boundaries(void)
{
    tq t;
    uint32_t j, d, n = (1u << 24) + 1u;
    if (!tq_open(&t, n, 16))
        return;
    CHECK_EQ(t.q.nlevels, 5);
    if (t.q.nlevels != 5) {
        tq_close(&t);
        return;
    }
    for (j = 0; j <= 4; j++)
        for (d = 0; d < 3; d++) {
            uint32_t base = (uint32_t)1 << (6u * j), k = base + d - 1u;
            uint32_t from[5];
            unsigned f;
            if (k >= n)
                continue;
            CHECK_EQ(rnic_bq_insert(&t.q, 1, k), RNIC_OK);
            from[0] = 0;
            from[1] = k;
            from[2] = k > 0 ? k - 1u : 0;
            from[3] = k + 1u;
            from[4] = k > 64u ? k - 64u : 0;
            for (f = 0; f < 5; f++) {
                CHECK_EQ(rnic_bq_find_ge(&t.q, from[f]), from[f] <= k ? k : RNIC_NONE);
                CHECK_EQ(rnic_bq_find_ge_wrap(&t.q, from[f]), k);
            }
            CHECK_EQ(rnic_bq_min_key(&t.q), k);
            CHECK_EQ(rnic_bq_insert(&t.q, 2, n - 1u), RNIC_OK); /* the very last key */
            CHECK_EQ(rnic_bq_find_ge(&t.q, k + 1u), k + 1u < n ? n - 1u : RNIC_NONE);
            CHECK_EQ(rnic_bq_find_ge(&t.q, n - 1u), n - 1u);
            CHECK_EQ(rnic_bq_min_key(&t.q), k);
            CHECK_EQ(rnic_bq_remove(&t.q, 1), RNIC_OK);
            CHECK_EQ(rnic_bq_min_key(&t.q), n - 1u);
            CHECK_EQ(rnic_bq_find_ge_wrap(&t.q, 5), n - 1u);
            CHECK_EQ(rnic_bq_remove(&t.q, 2), RNIC_OK);
            CHECK_EQ(rnic_bq_min_key(&t.q), RNIC_NONE);
            CHECK_EQ(t.q.level[4][0], 0);
        }
    tq_close(&t);
}

static void test_random_small(void)
{
    rnic_prng p;
    rnic_prng_seed(&p, test_seed(12));
    random_ops(1, 40, 20000, 97, &p);
    random_ops(63, 300, 150000, 97, &p);
    random_ops(64, 300, 150000, 97, &p);
    random_ops(65, 300, 150000, 97, &p);
}

static void test_random_medium(void)
{
    rnic_prng p;
    rnic_prng_seed(&p, test_seed(13));
    random_ops(4095, 300, 120000, 211, &p);
    random_ops(4096, 300, 120000, 211, &p);
    random_ops(4097, 300, 120000, 211, &p);
}

static void test_random_large(void)
{
    rnic_prng p;
    rnic_prng_seed(&p, test_seed(14));
    random_ops(262144, 300, 50000, 1009, &p);
    random_ops(262145, 300, 50000, 1009, &p);
    random_ops(1u << 24, 64, 3000, 499, &p);       /* 4 levels: only a few ops */
    random_ops((1u << 24) + 1u, 64, 3000, 499, &p); /* 5 levels */
}

/* A snapshot of everything a caller can observe, plus the raw memory. */
typedef struct snap {
    rnic_bq q;
    unsigned char *mem;
} snap;

static void snap_take(snap *s, const tq *t)
{
    memcpy(&s->q, &t->q, sizeof s->q);
    s->mem = (unsigned char *)malloc(t->size);
    if (s->mem)
        memcpy(s->mem, t->mem, t->size);
}

/* The queue is exactly as in the snapshot, except errors.by_cause[e] which grew by one. */
static void snap_same(snap *s, const tq *t, rnic_err e)
{
    const rnic_bq *a = &s->q, *b = &t->q;
    unsigned l, c;
    CHECK_EQ(a->nkeys, b->nkeys);
    CHECK_EQ(a->nitems, b->nitems);
    CHECK_EQ(a->nlevels, b->nlevels);
    CHECK_EQ(a->count, b->count);
    for (l = 0; l < RNIC_BQ_MAX_LEVELS; l++) {
        CHECK(a->level[l] == b->level[l]);
        CHECK_EQ(a->level_words[l], b->level_words[l]);
    }
    CHECK(a->bucket_head == b->bucket_head && a->bucket_tail == b->bucket_tail);
    CHECK(a->next == b->next && a->prev == b->prev && a->key == b->key);
    for (c = 0; c < RNIC_ERR__COUNT; c++)
        CHECK_EQ(b->errors.by_cause[c], a->errors.by_cause[c] + (e != RNIC_OK && c == (unsigned)e));
    CHECK(s->mem && memcmp(s->mem, t->mem, t->size) == 0);
    free(s->mem);
    s->mem = NULL;
}

/* Bad input returns its code, is counted under that cause, and changes nothing else. */
static void test_bad_input(void)
{
    static const uint32_t sizes[] = { 1, 65, 4097, 262145 };
    rnic_prng p;
    unsigned si;
    rnic_prng_seed(&p, test_seed(15));
    for (si = 0; si < sizeof sizes / sizeof sizes[0] && TEST_FAILS() == 0; si++) {
        uint32_t nkeys = sizes[si], nitems = 50, round, it = 0, k = 0;
        tq t;
        snap s;
        if (!tq_open(&t, nkeys, nitems))
            continue;
        for (round = 0; round < (nkeys > 5000u ? 60u : 300u) && TEST_FAILS() == 0; round++) {
            uint32_t n = (uint32_t)arrlen(t.ref.ents);
            rnic_err e;
            /* move the state somewhere random first */
            if (n < nitems && rnic_prng_chance(&p, 3, 5)) {
                do
                    it = (uint32_t)rnic_prng_below(&p, nitems);
                while (ref_find(&t.ref, it) >= 0);
                k = pick_key(&p, nkeys);
                CHECK_EQ(rnic_bq_insert(&t.q, it, k), RNIC_OK);
                ref_insert(&t.ref, it, k);
            } else if (n > 0) {
                long i = ref_min_from(&t.ref, 0);
                CHECK_EQ(rnic_bq_pop_min(&t.q, &it, &k), RNIC_OK);
                CHECK_EQ(it, t.ref.ents[i].item);
                arrdelswap(t.ref.ents, i);
            }
            n = (uint32_t)arrlen(t.ref.ents);
            snap_take(&s, &t);
            switch (rnic_prng_below(&p, 7)) {
            case 0: /* unknown item */
                it = nitems + (uint32_t)rnic_prng_below(&p, 3);
                if (rnic_prng_chance(&p, 1, 4))
                    it = RNIC_NONE;
                k = rnic_prng_chance(&p, 1, 2) ? (uint32_t)rnic_prng_below(&p, nkeys) : nkeys; /* item checked first */
                e = rnic_bq_insert(&t.q, it, k);
                CHECK_EQ(e, RNIC_ENOENT);
                snap_same(&s, &t, RNIC_ENOENT);
                break;
            case 1: /* key out of range, for a free or a queued item */
                it = (uint32_t)rnic_prng_below(&p, nitems);
                if (n > 0 && rnic_prng_chance(&p, 1, 2)) /* queued: the key is checked before EEXIST */
                    it = t.ref.ents[rnic_prng_below(&p, n)].item;
                k = rnic_prng_chance(&p, 1, 2) ? nkeys + (uint32_t)rnic_prng_below(&p, 3) : RNIC_NONE;
                e = rnic_bq_insert(&t.q, it, k);
                CHECK_EQ(e, RNIC_ERANGE);
                snap_same(&s, &t, RNIC_ERANGE);
                break;
            case 2: /* duplicate insert, with the same or another key */
                if (n == 0) {
                    free(s.mem);
                    break;
                }
                it = t.ref.ents[rnic_prng_below(&p, n)].item;
                k = rnic_prng_chance(&p, 1, 2) ? ref_key_of(&t.ref, it) : (uint32_t)rnic_prng_below(&p, nkeys);
                e = rnic_bq_insert(&t.q, it, k);
                CHECK_EQ(e, RNIC_EEXIST);
                snap_same(&s, &t, RNIC_EEXIST);
                break;
            case 3: /* remove an unknown item */
                it = rnic_prng_chance(&p, 1, 2) ? nitems : RNIC_NONE;
                CHECK_EQ(rnic_bq_remove(&t.q, it), RNIC_ENOENT);
                snap_same(&s, &t, RNIC_ENOENT);
                break;
            case 4: /* remove an item that is not queued */
                if (n == nitems) {
                    free(s.mem);
                    break;
                }
                do
                    it = (uint32_t)rnic_prng_below(&p, nitems);
                while (ref_find(&t.ref, it) >= 0);
                CHECK_EQ(rnic_bq_remove(&t.q, it), RNIC_ENOENT);
                snap_same(&s, &t, RNIC_ENOENT);
                break;
            case 5: /* pop on empty: drain first (outside the snapshot) */
                free(s.mem);
                while (arrlen(t.ref.ents)) {
                    long i = ref_min_from(&t.ref, 0);
                    CHECK_EQ(rnic_bq_pop_min(&t.q, &it, &k), RNIC_OK);
                    CHECK_EQ(it, t.ref.ents[i].item);
                    CHECK_EQ(k, t.ref.ents[i].key);
                    arrdelswap(t.ref.ents, i);
                }
                snap_take(&s, &t);
                it = k = 777;
                CHECK_EQ(rnic_bq_pop_min(&t.q, &it, &k), RNIC_EEMPTY);
                CHECK_EQ(it, 777); /* outputs untouched */
                CHECK_EQ(k, 777);
                snap_same(&s, &t, RNIC_OK); /* an empty poll counts nothing */
                break;
            default: { /* the queries never fail loudly and count nothing */
                rnic_err_stats before = t.q.errors;
                CHECK_EQ(rnic_bq_key_of(&t.q, nitems), RNIC_NONE);
                CHECK_EQ(rnic_bq_key_of(&t.q, RNIC_NONE), RNIC_NONE);
                CHECK_EQ(rnic_bq_bucket_first(&t.q, nkeys), RNIC_NONE);
                CHECK_EQ(rnic_bq_bucket_first(&t.q, RNIC_NONE), RNIC_NONE);
                CHECK_EQ(rnic_bq_bucket_next(&t.q, nitems), RNIC_NONE);
                CHECK_EQ(rnic_bq_find_ge(&t.q, nkeys), RNIC_NONE);
                CHECK_EQ(rnic_bq_find_ge_wrap(&t.q, nkeys), ref_find_ge(&t.ref, 0));
                CHECK(memcmp(&before, &t.q.errors, sizeof before) == 0);
                snap_same(&s, &t, RNIC_OK);
                break;
            }
            }
            tq_check(&t, &p, 1);
        }
        CHECK(rnic_err_total(&t.q.errors) > 0);
        CHECK_EQ(t.q.errors.by_cause[RNIC_OK], 0);
        tq_close(&t);
    }
}

int main(void)
{
    rnic_bq_config big = { (1u << 24) + 1u, 64 }; /* the largest queue any case opens */
    big_size = rnic_bq_mem_size(&big) + GUARD_BYTES;
    big_mem = (unsigned char *)malloc(big_size);
    RUN(test_levels);
    RUN(test_mem_size_and_init);
    RUN(test_fifo_within_key);
    RUN(test_find_ge_every_from);
    RUN(test_five_levels_boundaries);
    RUN(test_random_small);
    RUN(test_random_medium);
    RUN(test_random_large);
    RUN(test_bad_input);
    arrfree(order);
    free(big_mem);
    printf("%" PRIu64 " property cases\n", cases);
    return test_summary();
}
