/* transport.h: the read-only bitmap operations hooks may use (§3.5, App. C).
 *
 * A flow's bitmaps are rings of W bits (W a power of two): segment s lives at bit s mod W, so
 * the ring's head moves with wnd_start and nothing is ever shifted. find-first from the moving
 * head is App. C's: the search from bit `from mod W` to the end, then from bit 0 (two
 * subproblems with the head fixed at zero), done word by word. A range [from, to) wider than
 * the ring is clipped to W segments. */

static uint32_t tp__span(const tp_bits *b, uint32_t from, uint32_t to)
{
    uint32_t d = to - from; /* modulo 2^32: ids are free-running; a reversed range is empty */
    if ((int32_t)d < 0)
        return 0;
    return d > b->nbits ? b->nbits : d;
}

TP_API bool tp_bits_test(const tp_bits *b, uint32_t seg)
{
    if (!b || !b->words || seg - b->base >= b->nbits)
        return false;
    return rnic_bitmap_test(b->words, seg & (b->nbits - 1u));
}

static uint32_t tp__bits_find(const tp_bits *b, uint32_t from, uint32_t to, bool zero)
{
    uint32_t span, head, at, dist;
    if (!b || !b->words || b->nbits == 0)
        return to;
    span = tp__span(b, from, to);
    if (span == 0)
        return to;
    head = from & (b->nbits - 1u);
    at = zero ? rnic_bitmap_ffz_from(b->words, b->nbits, head) : rnic_bitmap_ffs_from(b->words, b->nbits, head);
    if (at == RNIC_NONE)
        return to;
    dist = (at - head) & (b->nbits - 1u);
    return dist < span ? from + dist : to;
}

TP_API uint32_t tp_bits_find_first(const tp_bits *b, uint32_t from, uint32_t to)
{
    return tp__bits_find(b, from, to, false);
}

TP_API uint32_t tp_bits_find_first_zero(const tp_bits *b, uint32_t from, uint32_t to)
{
    return tp__bits_find(b, from, to, true);
}

TP_API uint32_t tp_bits_count(const tp_bits *b, uint32_t from, uint32_t to)
{
    uint32_t span;
    if (!b || !b->words || b->nbits == 0)
        return 0;
    span = tp__span(b, from, to);
    return span ? rnic_bitmap_count_range(b->words, b->nbits, from & (b->nbits - 1u), span) : 0;
}
