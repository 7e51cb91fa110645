/* ---- transaction and flow IDs (RED-SEA thesis §3.8, §3.14) ----
 * Three ID FIFOs: TIDs for non-congestion-managed blocks and inline transfers (0 .. tids-1);
 * unipath flow IDs (1xFID) and groups of four consecutive flow IDs for multipath transfers
 * (4xFID). A congestion-managed block's TID is derived from its flow: FID f owns TIDs
 * (f << log2(flow_blocks)) + 0 .. flow_blocks-1, and FIDs run from tids / flow_blocks, so
 * congestion-managed TIDs fill tids .. 2 x tids - 1 (thesis: TIDs 512..1023, FIDs 128..255,
 * unipath 128..191, multipath groups 192, 196, .., 252).
 * Each FIFO has one enqueue and one dequeue port per cycle. After init the FIFOs are empty
 * and the reset initializer enqueues one ID per cycle (TIDs, then unipath FIDs, then
 * multipath groups: 512 + 64 + 16 = 592 cycles -- the thesis prints "= 588", a slip in its
 * sum); an ID given back in a cycle takes the enqueue port first and the initializer waits a
 * cycle (nothing is lost). */

typedef enum rq_id_pool { RQ_POOL_TID = 0, RQ_POOL_FID1 = 1, RQ_POOL_FID4 = 2 } rq_id_pool;

typedef struct rq_ids_config {
    uint32_t tids;         /* non-congestion-managed TIDs, default 512 (power of two, 4 .. 2^20) */
    uint32_t flow_blocks;  /* blocks per flow = TIDs per FID, default 4 (power of two, 1 .. 64) */
    uint32_t fids_unipath; /* 1xFID pool, default 64 */
    uint32_t fid_groups;   /* 4xFID pool (groups of 4 FIDs), default 16;
                            * fids_unipath + 4 x fid_groups must equal tids / flow_blocks */
} rq_ids_config;

typedef struct rq_ids_stats {
    uint64_t taken[3], given_back[3];
    uint64_t empty_takes;     /* takes that found the pool empty (RNIC_EEMPTY, not an error) */
    uint64_t port_conflicts;  /* second take or give-back of a pool in one cycle (RNIC_EBUSY) */
    uint64_t init_waits;      /* cycles the initializer yielded the enqueue port to a give-back */
    rnic_err_stats errors;    /* refused give-backs: unknown id (ENOENT), already free (EEXIST) */
} rq_ids_stats;

typedef struct rq_ids {
    rq_ids_config cfg;
    uint32_t fid_base;        /* first FID = tids / flow_blocks */
    uint32_t flow_shift;      /* log2(flow_blocks) */
    rnic_ring pool[3];        /* uint32_t IDs (a group is its first FID) */
    uint64_t *is_free;        /* bitmap over TIDs 0..tids-1, then FIDs fid_base.. */
    uint32_t init_next;       /* initializer position over tids + fids_unipath + fid_groups */
    uint8_t enq_used[3], deq_used[3];
    rq_ids_stats stats;
} rq_ids;

RQ_API void rq_ids_config_default(rq_ids_config *cfg);
/* Bytes of caller memory rq_ids_init needs; 0 when cfg is invalid. */
RQ_API size_t rq_ids_mem_size(const rq_ids_config *cfg);
/* RNIC_EINVAL bad config or memory, RNIC_ENOSPC too little memory. */
RQ_API rnic_err rq_ids_init(rq_ids *ids, const rq_ids_config *cfg, void *mem, size_t size);
/* End of cycle: the initializer enqueues its next ID if the pool's enqueue port is free. */
RQ_API void rq_ids_tick(rq_ids *ids);
/* True once the initializer has enqueued every ID. */
RQ_API bool rq_ids_ready(const rq_ids *ids);
/* Dequeue an ID: RNIC_EEMPTY none free (counted in empty_takes), RNIC_EBUSY the pool's dequeue
 * port was used this cycle. A multipath group comes back as its first FID. */
RQ_API rnic_err rq_ids_take(rq_ids *ids, rq_id_pool pool, uint32_t *id);
/* Enqueue an ID back: RNIC_ENOENT not an ID of that pool, RNIC_EEXIST already free (both
 * counted, nothing changes), RNIC_EBUSY the pool's enqueue port was used this cycle. */
RQ_API rnic_err rq_ids_give_back(rq_ids *ids, rq_id_pool pool, uint32_t id);
RQ_API uint32_t rq_ids_free_count(const rq_ids *ids, rq_id_pool pool);

/* TID of block `block` (counted from 0) of a unipath congestion-managed transfer with FID fid:
 * the flow's TIDs in order, wrapping (§3.8). */
RQ_API uint32_t rq_tid_unipath(const rq_ids *ids, uint32_t fid, uint64_t block);
/* TID of block `block` of a multipath transfer holding FIDs group .. group + 3: consecutive
 * blocks leap across the four flows (block b: FID group + b % 4, slot (b / 4) % flow_blocks). */
RQ_API uint32_t rq_tid_multipath(const rq_ids *ids, uint32_t group, uint64_t block);
