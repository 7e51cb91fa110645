/* ---- block segmentation arithmetic (RED-SEA thesis §3.9, Fig. 3.10/3.11) ----
 * A transfer of `size` bytes to destination `dst` is cut at the receiver's block boundaries:
 * first block = min(size, BLOCK - dst % BLOCK), then whole blocks, then the rest;
 * total = (dst + size) / BLOCK - dst / BLOCK (+1 when (dst + size) % BLOCK != 0). Source and
 * destination advance by the same offset. */

typedef struct rq_block_plan {
    uint64_t total;  /* blocks, >= 1 */
    uint32_t first;  /* bytes in block 0 */
    uint32_t last;   /* bytes in the last block (== first when total == 1) */
    uint32_t block;  /* BLOCK */
} rq_block_plan;

/* RNIC_EINVAL size 0 or block not a power of two in 64 .. 2^30; RNIC_ERANGE dst + size wraps. */
RQ_API rnic_err rq_block_plan_make(uint64_t dst, uint64_t size, uint32_t block_bytes, rq_block_plan *out);
/* Byte offset (from the transfer's start) and size of block i; RNIC_ENOENT when i >= total. */
RQ_API rnic_err rq_block_plan_at(const rq_block_plan *p, uint64_t i, uint64_t *offset, uint32_t *size);
