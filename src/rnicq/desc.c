/* Transfer descriptors (interface: desc.h). */

#define RQ__DESC_FLAGS (RQ_DESC_LAST_LINE | RQ_DESC_INLINE | RQ_DESC_CM | RQ_DESC_MULTIPATH | RQ_DESC_NOTIFY)

static uint32_t rq__desc_lines_for(bool is_inline, uint64_t size) { return is_inline && size <= 8u ? 1u : 2u; }

RQ_API uint32_t rq_desc_lines(uint64_t control0)
{
    /* one line only for a one-line descriptor: an inline payload whose last-line bit is set */
    return (control0 & RQ_DESC_INLINE) && (control0 & RQ_DESC_LAST_LINE) ? 1u : 2u;
}

RQ_API rnic_err rq_desc_decode(const uint64_t line0[4], const uint64_t line1[4], rq_transfer *out)
{
    uint64_t c0 = line0[3], size = line0[2];
    bool is_inline = (c0 & RQ_DESC_INLINE) != 0;
    uint32_t lines, i;
    if (!out)
        return RNIC_EINVAL;
    if ((c0 & ~(RQ__DESC_FLAGS | RQ_DESC_PRIO_MASK)) || size == 0 || size > ((uint64_t)1 << 32))
        return RNIC_EINVAL;
    lines = rq__desc_lines_for(is_inline, size);
    if ((lines == 1u) != ((c0 & RQ_DESC_LAST_LINE) != 0)) /* last-line bit must match the length */
        return RNIC_EINVAL;
    if (lines == 2u && (!line1 || line1[3] != RQ_DESC_LAST_LINE))
        return RNIC_EINVAL;
    if (is_inline ? size > RQ_INLINE_MAX || (c0 & (RQ_DESC_CM | RQ_DESC_MULTIPATH | RQ_DESC_NOTIFY))
                  : size <= RQ_INLINE_MAX || ((c0 & RQ_DESC_MULTIPATH) && !(c0 & RQ_DESC_CM)))
        return RNIC_EINVAL;
    RNIC_MEMSET(out, 0, sizeof *out);
    out->kind = is_inline ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
    out->size = size;
    out->prio = (uint32_t)(c0 & RQ_DESC_PRIO_MASK);
    out->cm = (c0 & RQ_DESC_CM) != 0;
    out->multipath = (c0 & RQ_DESC_MULTIPATH) != 0;
    out->notify = (c0 & RQ_DESC_NOTIFY) != 0;
    if (is_inline) {
        uint64_t words[4];
        out->dst = line0[0];
        words[0] = line0[1];
        words[1] = lines == 2u ? line1[0] : 0;
        words[2] = lines == 2u ? line1[1] : 0;
        words[3] = lines == 2u ? line1[2] : 0;
        for (i = 0; i < size; i++) /* little-endian byte order within each word */
            out->payload[i] = (uint8_t)(words[i / 8u] >> (8u * (i % 8u)));
    } else {
        if (line1[1] || line1[2]) /* reserved words */
            return RNIC_EINVAL;
        out->src = line0[0];
        out->dst = line0[1];
        out->notify_target = line1[0];
    }
    return RNIC_OK;
}

RQ_API rnic_err rq_desc_encode(const rq_transfer *t, uint64_t line0[4], uint64_t line1[4])
{
    uint64_t c0;
    uint32_t lines, i;
    bool is_inline;
    if (!t || !line0 || t->size == 0 || t->size > ((uint64_t)1 << 32) || t->prio > RQ_DESC_PRIO_MASK)
        return RNIC_EINVAL;
    is_inline = t->kind == RQ_KIND_INLINE;
    if (is_inline ? t->size > RQ_INLINE_MAX || t->cm || t->multipath || t->notify
                  : t->size <= RQ_INLINE_MAX || (t->multipath && !t->cm))
        return RNIC_EINVAL;
    lines = rq__desc_lines_for(is_inline, t->size);
    if (lines == 2u && !line1)
        return RNIC_EINVAL;
    c0 = t->prio | (is_inline ? RQ_DESC_INLINE : 0) | (t->cm ? RQ_DESC_CM : 0) | (t->multipath ? RQ_DESC_MULTIPATH : 0) |
         (t->notify ? RQ_DESC_NOTIFY : 0) | (lines == 1u ? RQ_DESC_LAST_LINE : 0);
    line0[2] = t->size;
    line0[3] = c0;
    if (lines == 2u) {
        line1[0] = line1[1] = line1[2] = 0;
        line1[3] = RQ_DESC_LAST_LINE;
    }
    if (is_inline) {
        uint64_t words[4] = { 0, 0, 0, 0 };
        for (i = 0; i < t->size; i++)
            words[i / 8u] |= (uint64_t)t->payload[i] << (8u * (i % 8u));
        line0[0] = t->dst;
        line0[1] = words[0];
        if (lines == 2u) {
            line1[0] = words[1];
            line1[1] = words[2];
            line1[2] = words[3];
        }
    } else {
        line0[0] = t->src;
        line0[1] = t->dst;
        line1[0] = t->notify_target;
    }
    return RNIC_OK;
}
#undef RQ__DESC_FLAGS
