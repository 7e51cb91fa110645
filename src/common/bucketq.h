/* Hierarchical bitmap bucket queue: an O(1) priority structure for integer keys.
 *
 * Keys are 0 .. nkeys-1 (nkeys <= 2^30); items are ids 0 .. nitems-1. Each key is a bucket
 * holding a FIFO of items (doubly linked, so any item is removed in O(1)); items of equal
 * key come out in insertion order, which makes every user deterministic. Occupied buckets
 * are marked in a bitmap with 64-ary summary levels above it (level l+1 bit i = "word i of
 * level l is non-zero"), so the smallest key, or the smallest key >= k, is found with one
 * find-first-set per level: at most 5 levels (64^5 = 2^30 keys), usually 2 or 3.
 *
 * Memory (caller-owned, see rnic_bq_mem_size): 8 B per key (bucket head and tail),
 * 12 B per item (next, prev, key), plus nkeys/8 * (1 + 1/64 + ...) bytes of bitmap. */
#include "base.h"
#include "error.h"
#include "bitmap.h"

#define RNIC_BQ_MAX_LEVELS 5
#define RNIC_BQ_MAX_KEYS ((uint32_t)1 << 30)

typedef struct rnic_bq_config {
    uint32_t nkeys;  /* keys 0 .. nkeys-1, 1 <= nkeys <= RNIC_BQ_MAX_KEYS */
    uint32_t nitems; /* item ids 0 .. nitems-1, 1 <= nitems < RNIC_NONE */
} rnic_bq_config;

typedef struct rnic_bq {
    uint32_t nkeys, nitems, nlevels, count;
    uint64_t *level[RNIC_BQ_MAX_LEVELS]; /* level[0]: one bit per key */
    uint32_t level_words[RNIC_BQ_MAX_LEVELS];
    uint32_t *bucket_head, *bucket_tail; /* per key; RNIC_NONE when the bucket is empty */
    uint32_t *next, *prev;               /* per item: links inside its bucket */
    uint32_t *key;                       /* per item: its key, RNIC_NONE when not queued */
    rnic_err_stats errors;               /* rejected calls by cause */
} rnic_bq;

/* The one layout function behind both rnic_bq_mem_size and rnic_bq_init, so the size and
 * the carve-up cannot disagree. Returns the bytes needed, 0 for an invalid config; with
 * q != NULL and mem != NULL it also points q's arrays into mem. */
RNIC_INLINE size_t rnic__bq_layout(const rnic_bq_config *cfg, rnic_bq *q, unsigned char *mem)
{
    size_t off = 0, at;
    uint32_t words = cfg->nkeys, l, nlevels = 0;
    if (cfg->nkeys == 0 || cfg->nkeys > RNIC_BQ_MAX_KEYS || cfg->nitems == 0 || cfg->nitems == RNIC_NONE)
        return 0;
    do { /* level sizes: ceil(n / 64) words each, up to a single word */
        words = RNIC_BITMAP_WORDS(words);
        if (!rnic__mem_reserve(&off, words, sizeof(uint64_t), &at))
            return 0;
        if (q && mem) {
            q->level[nlevels] = (uint64_t *)(void *)(mem + at);
            q->level_words[nlevels] = words;
        }
        nlevels++;
    } while (words > 1u);
    if (q) {
        q->nlevels = nlevels;
        for (l = nlevels; l < RNIC_BQ_MAX_LEVELS; l++) {
            q->level[l] = NULL;
            q->level_words[l] = 0;
        }
    }
#define RNIC__BQ_ARRAY(field, n)                                      \
    do {                                                              \
        if (!rnic__mem_reserve(&off, (n), sizeof(uint32_t), &at))     \
            return 0; /* more than the address space (32-bit) */      \
        if (q && mem)                                                 \
            q->field = (uint32_t *)(void *)(mem + at);                \
    } while (0)
    RNIC__BQ_ARRAY(bucket_head, cfg->nkeys);
    RNIC__BQ_ARRAY(bucket_tail, cfg->nkeys);
    RNIC__BQ_ARRAY(next, cfg->nitems);
    RNIC__BQ_ARRAY(prev, cfg->nitems);
    RNIC__BQ_ARRAY(key, cfg->nitems);
#undef RNIC__BQ_ARRAY
    return off;
}

/* Bytes of memory rnic_bq_init needs for cfg; 0 when cfg is invalid. */
RNIC_INLINE size_t rnic_bq_mem_size(const rnic_bq_config *cfg)
{
    return cfg ? rnic__bq_layout(cfg, NULL, NULL) : 0;
}

/* Set q up in caller memory `mem` (8-byte aligned, at least rnic_bq_mem_size bytes). */
RNIC_INLINE rnic_err rnic_bq_init(rnic_bq *q, const rnic_bq_config *cfg, void *mem, size_t size)
{
    size_t need;
    uint32_t i, l;
    if (!q || !cfg || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)))
        return RNIC_EINVAL;
    need = rnic__bq_layout(cfg, NULL, NULL);
    if (need == 0)
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(q, 0, sizeof *q);
    rnic__bq_layout(cfg, q, (unsigned char *)mem);
    q->nkeys = cfg->nkeys;
    q->nitems = cfg->nitems;
    for (l = 0; l < q->nlevels; l++)
        for (i = 0; i < q->level_words[l]; i++)
            q->level[l][i] = 0;
    for (i = 0; i < cfg->nkeys; i++)
        q->bucket_head[i] = q->bucket_tail[i] = RNIC_NONE;
    for (i = 0; i < cfg->nitems; i++)
        q->next[i] = q->prev[i] = q->key[i] = RNIC_NONE;
    return RNIC_OK;
}

RNIC_INLINE uint32_t rnic_bq_count(const rnic_bq *q) { return q->count; }
RNIC_INLINE bool rnic_bq_empty(const rnic_bq *q) { return q->count == 0; }

/* The key of a queued item, RNIC_NONE when the item is not queued or out of range. */
RNIC_INLINE uint32_t rnic_bq_key_of(const rnic_bq *q, uint32_t item)
{
    return item < q->nitems ? q->key[item] : RNIC_NONE;
}

/* Mark bucket `key` occupied in every level (stop at the first level already marked). */
RNIC_INLINE void rnic__bq_mark(rnic_bq *q, uint32_t key)
{
    uint32_t l;
    for (l = 0; l < q->nlevels; l++, key >>= 6) {
        uint64_t *w = &q->level[l][key >> 6], was = *w;
        *w = was | ((uint64_t)1 << (key & 63u));
        if (was)
            break;
    }
}

/* Unmark bucket `key` (now empty), clearing summary bits of words that became zero. */
RNIC_INLINE void rnic__bq_unmark(rnic_bq *q, uint32_t key)
{
    uint32_t l;
    for (l = 0; l < q->nlevels; l++, key >>= 6) {
        uint64_t *w = &q->level[l][key >> 6];
        *w &= ~((uint64_t)1 << (key & 63u));
        if (*w)
            break;
    }
}

/* Append `item` to bucket `key`. RNIC_ENOENT for an unknown item, RNIC_ERANGE for a key
 * >= nkeys, RNIC_EEXIST when the item is already queued; the queue is unchanged then. */
RNIC_INLINE rnic_err rnic_bq_insert(rnic_bq *q, uint32_t item, uint32_t key)
{
    uint32_t tail;
    if (item >= q->nitems)
        return rnic_err_note(&q->errors, RNIC_ENOENT);
    if (key >= q->nkeys)
        return rnic_err_note(&q->errors, RNIC_ERANGE);
    if (q->key[item] != RNIC_NONE)
        return rnic_err_note(&q->errors, RNIC_EEXIST);
    tail = q->bucket_tail[key];
    q->key[item] = key;
    q->next[item] = RNIC_NONE;
    q->prev[item] = tail;
    if (tail == RNIC_NONE) {
        q->bucket_head[key] = item;
        rnic__bq_mark(q, key);
    } else {
        q->next[tail] = item;
    }
    q->bucket_tail[key] = item;
    q->count++;
    return RNIC_OK;
}

/* Remove a queued item wherever it is. RNIC_ENOENT when unknown or not queued. */
RNIC_INLINE rnic_err rnic_bq_remove(rnic_bq *q, uint32_t item)
{
    uint32_t key, nx, pv;
    if (item >= q->nitems || q->key[item] == RNIC_NONE)
        return rnic_err_note(&q->errors, RNIC_ENOENT);
    key = q->key[item];
    nx = q->next[item];
    pv = q->prev[item];
    if (pv == RNIC_NONE)
        q->bucket_head[key] = nx;
    else
        q->next[pv] = nx;
    if (nx == RNIC_NONE)
        q->bucket_tail[key] = pv;
    else
        q->prev[nx] = pv;
    if (q->bucket_head[key] == RNIC_NONE)
        rnic__bq_unmark(q, key);
    q->key[item] = q->next[item] = q->prev[item] = RNIC_NONE;
    q->count--;
    return RNIC_OK;
}

/* Smallest occupied key >= `from`, or RNIC_NONE. One find-first-set per level going up
 * until a summary word has a candidate, then one per level going down. */
RNIC_INLINE uint32_t rnic_bq_find_ge(const rnic_bq *q, uint32_t from)
{
    uint32_t l = 0, idx = from;
    uint64_t w;
    if (from >= q->nkeys)
        return RNIC_NONE;
    for (;;) { /* up: in level l, look at bits >= idx within idx's word */
        w = q->level[l][idx >> 6] & (~(uint64_t)0 << (idx & 63u));
        if (w) {
            idx = (idx & ~63u) + rnic_ctz64(w);
            break;
        }
        idx = (idx >> 6) + 1u; /* the next word of level l is the next bit of level l+1 */
        if (++l >= q->nlevels || (idx >> 6) >= q->level_words[l])
            return RNIC_NONE;
    }
    while (l > 0) { /* down: the lowest set bit of each chosen word */
        l--;
        idx = (idx << 6) + rnic_ctz64(q->level[l][idx]);
    }
    return idx;
}

/* Smallest occupied key, or RNIC_NONE when empty. */
RNIC_INLINE uint32_t rnic_bq_min_key(const rnic_bq *q)
{
    uint32_t l = q->nlevels - 1u, idx = 0;
    if (l >= RNIC_BQ_MAX_LEVELS || q->level[l][0] == 0) /* l check: only for gcc -O3's flow analysis */
        return RNIC_NONE;
    for (;;) {
        idx = (idx << 6) + rnic_ctz64(q->level[l][idx]);
        if (l == 0)
            return idx;
        l--;
    }
}

/* First occupied key at or after `from` going around the key ring (wraps to 0): the order a
 * timing wheel is read in. RNIC_NONE when empty. */
RNIC_INLINE uint32_t rnic_bq_find_ge_wrap(const rnic_bq *q, uint32_t from)
{
    uint32_t k = rnic_bq_find_ge(q, from);
    return k != RNIC_NONE ? k : rnic_bq_min_key(q);
}

/* Oldest item of bucket `key`, RNIC_NONE when the bucket is empty or key is out of range. */
RNIC_INLINE uint32_t rnic_bq_bucket_first(const rnic_bq *q, uint32_t key)
{
    return key < q->nkeys ? q->bucket_head[key] : RNIC_NONE;
}

/* Item after `item` in its bucket (insertion order), RNIC_NONE at the end. */
RNIC_INLINE uint32_t rnic_bq_bucket_next(const rnic_bq *q, uint32_t item)
{
    return item < q->nitems ? q->next[item] : RNIC_NONE;
}

/* Remove and return the oldest item of the smallest key. RNIC_EEMPTY when empty (a status,
 * not bad input: not counted). */
RNIC_INLINE rnic_err rnic_bq_pop_min(rnic_bq *q, uint32_t *item, uint32_t *key)
{
    uint32_t k = rnic_bq_min_key(q), it;
    if (k == RNIC_NONE)
        return RNIC_EEMPTY;
    it = q->bucket_head[k];
    rnic_bq_remove(q, it);
    if (item)
        *item = it;
    if (key)
        *key = k;
    return RNIC_OK;
}
