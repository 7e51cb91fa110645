/* Transaction and flow ID FIFOs with the reset initializer (interface: ids.h). */

/* A hot internal function called from more than one place, which the compiler would otherwise
 * leave out of line: its call costs as much as its work (measured with tools/callgrind_qos.sh; the
 * QoS engine's files use it too). */
#if defined(__GNUC__) || defined(__clang__)
#define RQ__HOT __attribute__((always_inline)) static inline
#else
#define RQ__HOT static inline
#endif


RQ_API void rq_ids_config_default(rq_ids_config *cfg)
{
    cfg->tids = 512;
    cfg->flow_blocks = 4;
    cfg->fids_unipath = 64;
    cfg->fid_groups = 16;
}

static bool rq__pow2(uint32_t x) { return x && !(x & (x - 1u)); }

static bool rq__ids_config_valid(const rq_ids_config *c)
{
    return c && rq__pow2(c->tids) && c->tids >= 4u && c->tids <= ((uint32_t)1 << 20) && rq__pow2(c->flow_blocks) &&
           c->flow_blocks <= 64u && c->tids % c->flow_blocks == 0 && c->fid_groups <= c->tids &&
           (uint64_t)c->fids_unipath + 4u * (uint64_t)c->fid_groups == c->tids / c->flow_blocks &&
           c->fids_unipath + c->fid_groups > 0u;
}

static size_t rq__ids_layout(const rq_ids_config *c, rq_ids *ids, unsigned char *mem)
{
    size_t off = 0, at;
    uint32_t caps[3], i;
    caps[0] = c->tids;
    caps[1] = c->fids_unipath ? c->fids_unipath : 1u;
    caps[2] = c->fid_groups ? c->fid_groups : 1u;
    for (i = 0; i < 3u; i++) {
        if (!rnic__mem_reserve(&off, caps[i], sizeof(uint32_t), &at))
            return 0;
        if (ids)
            rnic_ring_init(&ids->pool[i], sizeof(uint32_t), caps[i], mem + at, rnic_align_up((size_t)caps[i] * 4u));
    }
    if (!rnic__mem_reserve(&off, RNIC_BITMAP_WORDS(2u * c->tids), sizeof(uint64_t), &at))
        return 0;
    if (ids)
        ids->is_free = (uint64_t *)(void *)(mem + at);
    return off;
}

RQ_API size_t rq_ids_mem_size(const rq_ids_config *cfg)
{
    return rq__ids_config_valid(cfg) ? rq__ids_layout(cfg, NULL, NULL) : 0;
}

RQ_API rnic_err rq_ids_init(rq_ids *ids, const rq_ids_config *cfg, void *mem, size_t size)
{
    size_t need;
    if (!ids || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || !rq__ids_config_valid(cfg))
        return RNIC_EINVAL;
    need = rq__ids_layout(cfg, NULL, NULL);
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(ids, 0, sizeof *ids);
    ids->cfg = *cfg;
    rq__ids_layout(cfg, ids, (unsigned char *)mem);
    RNIC_MEMSET(ids->is_free, 0, RNIC_BITMAP_WORDS(2u * cfg->tids) * sizeof(uint64_t));
    ids->fid_base = cfg->tids / cfg->flow_blocks;
    while (((uint32_t)1 << ids->flow_shift) < cfg->flow_blocks)
        ids->flow_shift++;
    return RNIC_OK;
}

/* Bit of an ID in is_free: TIDs first, then FIDs (a group by its first FID). */
static uint32_t rq__ids_bit(const rq_ids *ids, rq_id_pool pool, uint32_t id)
{
    return pool == RQ_POOL_TID ? id : ids->cfg.tids + (id - ids->fid_base);
}

/* Whether id is an ID of pool. */
static bool rq__ids_member(const rq_ids *ids, rq_id_pool pool, uint32_t id)
{
    uint32_t first_group = ids->fid_base + ids->cfg.fids_unipath;
    switch (pool) {
    case RQ_POOL_TID: return id < ids->cfg.tids;
    case RQ_POOL_FID1: return id >= ids->fid_base && id < first_group;
    case RQ_POOL_FID4: return id >= first_group && id < first_group + 4u * ids->cfg.fid_groups && (id - first_group) % 4u == 0;
    default: return false; /* defensive: the callers refuse a pool > 2 first */
    }
}

RQ__HOT void rq__ids_put(rq_ids *ids, rq_id_pool pool, uint32_t id)
{
    rnic_ring_push(&ids->pool[pool], &id); /* never full: each ID is in its pool at most once */
    rnic_bitmap_set(ids->is_free, rq__ids_bit(ids, pool, id));
    ids->enq_used[pool] = 1;
}

/* The end of a cycle: each FIFO's enqueue and dequeue ports are free again. */
static void rq__ids_ports_free(rq_ids *ids)
{
    RNIC_MEMSET(ids->enq_used, 0, sizeof ids->enq_used);
    RNIC_MEMSET(ids->deq_used, 0, sizeof ids->deq_used);
}

RQ_API void rq_ids_tick(rq_ids *ids)
{
    uint32_t n = ids->init_next, t = ids->cfg.tids, u = ids->cfg.fids_unipath, g = ids->cfg.fid_groups;
    if (n < t + u + g) {
        rq_id_pool pool = n < t ? RQ_POOL_TID : n < t + u ? RQ_POOL_FID1 : RQ_POOL_FID4;
        uint32_t id = n < t ? n : n < t + u ? ids->fid_base + (n - t) : ids->fid_base + u + 4u * (n - t - u);
        if (ids->enq_used[pool]) {
            ids->stats.init_waits++;
        } else {
            rq__ids_put(ids, pool, id);
            ids->init_next++;
        }
    }
    rq__ids_ports_free(ids);
}

RQ_API bool rq_ids_ready(const rq_ids *ids)
{
    return ids->init_next == ids->cfg.tids + ids->cfg.fids_unipath + ids->cfg.fid_groups;
}

/* rq_ids_take / rq_ids_give_back, inlined into the QoS engine's stage 1 and message handler. */
RQ__HOT rnic_err rq__ids_take(rq_ids *ids, rq_id_pool pool, uint32_t *id)
{
    uint32_t v;
    if ((unsigned)pool > 2u || !id)
        return rnic_err_note(&ids->stats.errors, RNIC_EINVAL);
    if (ids->deq_used[pool]) {
        ids->stats.port_conflicts++;
        return RNIC_EBUSY;
    }
    if (rnic_ring_pop(&ids->pool[pool], &v) != RNIC_OK) {
        ids->stats.empty_takes++;
        return RNIC_EEMPTY;
    }
    ids->deq_used[pool] = 1;
    rnic_bitmap_clear(ids->is_free, rq__ids_bit(ids, pool, v));
    ids->stats.taken[pool]++;
    *id = v;
    return RNIC_OK;
}

RQ_API rnic_err rq_ids_take(rq_ids *ids, rq_id_pool pool, uint32_t *id) { return rq__ids_take(ids, pool, id); }

RQ__HOT rnic_err rq__ids_give_back(rq_ids *ids, rq_id_pool pool, uint32_t id)
{
    if ((unsigned)pool > 2u || !rq__ids_member(ids, pool, id))
        return rnic_err_note(&ids->stats.errors, RNIC_ENOENT);
    if (rnic_bitmap_test(ids->is_free, rq__ids_bit(ids, pool, id)))
        return rnic_err_note(&ids->stats.errors, RNIC_EEXIST);
    if (ids->enq_used[pool]) {
        ids->stats.port_conflicts++;
        return RNIC_EBUSY;
    }
    rq__ids_put(ids, pool, id);
    ids->stats.given_back[pool]++;
    return RNIC_OK;
}

RQ_API rnic_err rq_ids_give_back(rq_ids *ids, rq_id_pool pool, uint32_t id) { return rq__ids_give_back(ids, pool, id); }

RQ_API uint32_t rq_ids_free_count(const rq_ids *ids, rq_id_pool pool)
{
    return (unsigned)pool > 2u ? 0u : rnic_ring_count(&ids->pool[pool]);
}

RQ_API uint32_t rq_tid_unipath(const rq_ids *ids, uint32_t fid, uint64_t block)
{
    return (fid << ids->flow_shift) + (uint32_t)(block & (ids->cfg.flow_blocks - 1u));
}

RQ_API uint32_t rq_tid_multipath(const rq_ids *ids, uint32_t group, uint64_t block)
{
    return ((group + (uint32_t)(block & 3u)) << ids->flow_shift) + (uint32_t)((block >> 2) & (ids->cfg.flow_blocks - 1u));
}
