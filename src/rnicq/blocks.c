/* Block segmentation arithmetic (interface: blocks.h), as the segmenter computes it:
 * total blocks in stage 2 (the thesis's critical path), offsets and the last size in stage 3. */

RQ_API rnic_err rq_block_plan_make(uint64_t dst, uint64_t size, uint32_t block_bytes, rq_block_plan *out)
{
    uint64_t b = block_bytes, end, first;
    uint32_t shift;
    if (!out || size == 0 || block_bytes < 64u || block_bytes > ((uint32_t)1 << 30) || (block_bytes & (block_bytes - 1u)))
        return RNIC_EINVAL;
    shift = rnic_ctz64(b); /* BLOCK is a power of two: shifts, no divide */
    if (dst > UINT64_MAX - size)
        return RNIC_ERANGE;
    end = dst + size;
    first = b - (dst & (b - 1u)); /* BLOCK - dst % BLOCK */
    if (first > size)
        first = size;
    out->block = block_bytes;
    out->first = (uint32_t)first;
    out->total = (end >> shift) - (dst >> shift) + ((end & (b - 1u)) != 0);
    if (out->total == 1) {
        out->last = (uint32_t)size;
    } else {
        uint64_t rest = (size - first) & (b - 1u); /* (size - first) % BLOCK */
        out->last = rest ? (uint32_t)rest : block_bytes;
    }
    return RNIC_OK;
}

RQ_API rnic_err rq_block_plan_at(const rq_block_plan *p, uint64_t i, uint64_t *offset, uint32_t *size)
{
    if (!p || i >= p->total)
        return RNIC_ENOENT;
    if (offset)
        *offset = i == 0 ? 0 : p->first + (i - 1u) * (uint64_t)p->block; /* first + (n - 1) x BLOCK */
    if (size)
        *size = i == 0 ? p->first : i + 1u == p->total ? p->last : p->block;
    return RNIC_OK;
}
