/* ratelimit.h: descriptors.c -- the descriptor buffer (k urgent packets): the waiting heap by start, the eligible ring by (finish, number). */

/* ---- descriptor buffer ---- */

static uint32_t rl__desc_free_slot(const rl *r)
{
    return rnic_bitmap_ffz_from(r->desc_used, r->cfg.desc_depth, 0);
}

/* The descriptor heaps' orders: waiting by start (any order among equal starts: they become
 * eligible together); eligible by (finish, descriptor number), the transmit order. */
static bool rl__desc_less(const rl *r, bool by_finish, uint32_t a, uint32_t b)
{
    const rl__desc *x = &r->desc[a], *y = &r->desc[b];
    if (!by_finish)
        return rnic_ftime_before(x->start, y->start);
    if (x->finish.cycle != y->finish.cycle || x->finish.frac != y->finish.frac)
        return rnic_ftime_before(x->finish, y->finish);
    return x->number < y->number;
}

/* The same orders on heap entries that carry their key inline (no trip to the slot, except
 * for a tie on finish): rnic_ftime_before on (cycle, frac), then the descriptor number. */
static bool rl__dkey_less(const rl *r, bool by_finish, const rl__dkey *a, const rl__dkey *b)
{
    /* rnic_ftime_before's 96-bit difference, on the inline fields (through rnic_ftime
     * copies it costs ~50 more instructions per decision, measured) */
    uint64_t hi = b->cycle - a->cycle - (uint64_t)(b->frac < a->frac);
    if ((hi | (uint64_t)(b->frac ^ a->frac)) == 0) /* equal times */
        return by_finish && r->desc[a->slot].number < r->desc[b->slot].number;
    return (hi >> 63) == 0;
}

static void rl__dheap_push(rl *r, rl__dkey *h, uint32_t *count, bool by_finish, uint32_t slot)
{
    uint32_t i = (*count)++;
    rl__dkey e;
    const rnic_ftime *t = by_finish ? &r->desc[slot].finish : &r->desc[slot].start;
    e.cycle = t->cycle;
    e.frac = t->frac;
    e.slot = (uint16_t)slot;
    e.pad_ = 0;
    while (i > 0 && rl__dkey_less(r, by_finish, &e, &h[(i - 1u) / 2u])) {
        h[i] = h[(i - 1u) / 2u];
        i = (i - 1u) / 2u;
    }
    h[i] = e;
}

/* Pop the top: the hole goes down to a leaf along the smaller children (one comparison per
 * level), then the last entry rises from there (it came from the bottom: rarely far). */
static uint32_t rl__dheap_pop(rl *r, rl__dkey *h, uint32_t *count, bool by_finish)
{
    uint32_t top = h[0].slot, n, i = 0;
    rl__dkey last;
    n = --(*count);
    if (n == 0)
        return top;
    last = h[n];
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n)
            break;
        if (c + 1u < n && rl__dkey_less(r, by_finish, &h[c + 1u], &h[c]))
            c++;
        h[i] = h[c];
        i = c;
    }
    while (i > 0 && rl__dkey_less(r, by_finish, &last, &h[(i - 1u) / 2u])) {
        h[i] = h[(i - 1u) / 2u];
        i = (i - 1u) / 2u;
    }
    h[i] = last;
    return top;
}

/* Rebuild a heap without slot `slot` and without flow qi's slots (RNIC_NONE: none of that
 * kind), pushing in place: writes stay at or below the element being read. */
static void rl__dheap_remove(rl *r, rl__dkey *h, uint32_t *count, bool by_finish, uint32_t slot, uint32_t qi)
{
    uint32_t i, n = *count;
    *count = 0;
    for (i = 0; i < n; i++) {
        uint32_t x = h[i].slot;
        if (x != slot && r->desc[x].flow != qi)
            rl__dheap_push(r, h, count, by_finish, x);
    }
}

/* The eligible packets in transmit order, (finish, number), in a sorted ring: a packet joins
 * where its order puts it -- after a binary search, moving the shorter side by one (usually
 * at the tail: at equal rates packets become eligible in finish order) -- and the first
 * leaves from the head. The same order as a heap on the same total order, in O(1) for the
 * common case instead of a sift over log2(k) levels per pop. */
static void rl__ready_push(rl *r, uint32_t slot)
{
    rl__dkey *a = r->desc_ready, e;
    uint32_t n = r->n_ready, m = r->ready_mask, h = r->ready_head, lo = 0, hi, i;
    const rnic_ftime *f = &r->desc[slot].finish;
    e.cycle = f->cycle;
    e.frac = f->frac;
    e.slot = (uint16_t)slot;
    e.pad_ = 0;
    r->n_ready = n + 1u;
    if (n == 0 || !rl__dkey_less(r, true, &e, &a[(h + n - 1u) & m])) {
        a[(h + n) & m] = e;
        return;
    }
    hi = n - 1u; /* the first entry after e lies in [lo, hi] */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        if (rl__dkey_less(r, true, &e, &a[(h + mid) & m]))
            hi = mid;
        else
            lo = mid + 1u;
    }
    if (lo < n - lo) { /* the entries before it move one toward the head */
        h = (h - 1u) & m;
        r->ready_head = h;
        for (i = 0; i < lo; i++)
            a[(h + i) & m] = a[(h + i + 1u) & m];
    } else { /* the entries from it move one toward the tail */
        for (i = n; i > lo; i--)
            a[(h + i) & m] = a[(h + i - 1u) & m];
    }
    a[(h + lo) & m] = e;
}

static uint32_t rl__ready_pop(rl *r)
{
    uint32_t slot = r->desc_ready[r->ready_head].slot;
    r->ready_head = (r->ready_head + 1u) & r->ready_mask;
    r->n_ready--;
    return slot;
}

/* Drop slot `slot` and flow qi's slots (RNIC_NONE: none of that kind), keeping the order. */
static void rl__ready_remove(rl *r, uint32_t slot, uint32_t qi)
{
    rl__dkey *a = r->desc_ready;
    uint32_t i, kept = 0, m = r->ready_mask, h = r->ready_head;
    for (i = 0; i < r->n_ready; i++) {
        uint32_t x = a[(h + i) & m].slot;
        if (x != slot && r->desc[x].flow != qi)
            a[(h + kept++) & m] = a[(h + i) & m];
    }
    r->n_ready = kept;
}

/* Ranked option: the stored packet with the largest (finish, number) -- what a fetch of a QP
 * ranked before it may displace. A scan of the k slots, cached in desc_latest until a store
 * or removal changes it (RNIC_NONE: unknown, or the buffer is empty). */
static uint32_t rl__desc_latest_scan(const rl *r)
{
    uint32_t s, best = RNIC_NONE;
    if (!r->desc_count)
        return RNIC_NONE;
    for (s = 0; s < r->cfg.desc_depth; s++)
        if (rnic_bitmap_test(r->desc_used, s) && (best == RNIC_NONE || rl__desc_less(r, true, best, s)))
            best = s;
    return best;
}

static uint32_t rl__desc_latest(const rl *r)
{
    if (r->desc_latest == RNIC_NONE) /* a cache in the engine's memory, as rl__cached_gap's */
        ((rl *)(uintptr_t)r)->desc_latest = rl__desc_latest_scan(r);
    return r->desc_latest;
}

/* The ranked queue's head would displace stored packet `slot`: its rank (the finish of a full
 * packet from its next start) is before that packet's finish. */
static bool rl__head_beats(const rl *r, uint32_t slot)
{
    uint64_t fin;
    if (slot == RNIC_NONE || !r->ranked_count)
        return false;
    fin = rl__rank_of(r->desc[slot].finish);
    return r->ranked[0].rank != fin && r->ranked[0].rank - fin >= ((uint64_t)1 << 63);
}

