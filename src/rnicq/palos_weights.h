/* ---- Palos hierarchical weights -> chunk sizes (Palos §IV-B, Eq. 1/2, Fig. 6) ----
 * Groups (tenants) carry a weight, QPs a weight inside their group. A QP's chunk -- the bytes
 * it may send per scheduling round -- is its weight times its group's granularity,
 *   granularity_y = Grp_W_y / sum(Grp_W) x 1 / sum_{QPs in y}(W) x N,  N = QPs x MTU (§V),
 * so that rates follow Eq. 1. Granularities are Q32.32 bytes per weight unit, recomputed for the
 * group table only when a weight or membership changes (a QP weight change touches one entry
 * and its group's sum, as Fig. 6 intends); the fraction a chunk cannot carry is kept per QP and
 * added to its next chunk, so long-run bytes follow Eq. 1 exactly (issue-5 design contract,
 * docs/palos_model.md). This is the first building block of the Palos slicer (issue #5). */

typedef struct rq_pw_config {
    uint32_t max_flows;    /* 1 .. 65536, default 1024 */
    uint32_t max_groups; /* 1 .. 4096, default 64 */
    uint32_t mtu;        /* N = QPs x mtu; default 1500 (RoCE, §V) */
} rq_pw_config;

typedef struct rq_pw_qp {
    uint32_t group;  /* RNIC_NONE: not assigned */
    uint32_t weight;
    uint32_t carry;  /* Q32.32 fraction of a byte carried to the next chunk */
} rq_pw_qp;

typedef struct rq_pw_group {
    uint32_t weight;       /* 0: the group does not exist */
    uint32_t members;
    uint64_t sum_weights;  /* of its QPs */
    uint64_t granularity;  /* Q32.32 bytes per unit of QP weight (at least 2^-32 in a live group) */
} rq_pw_group;

typedef struct rq_pw {
    rq_pw_config cfg;
    rq_pw_qp *qps;
    rq_pw_group *groups;
    uint64_t sum_group_weights; /* of groups with members */
    uint32_t assigned_qps;
    uint64_t recomputes;        /* group-table rewrites */
    rnic_err_stats errors;      /* refused calls by cause (inside rq_palos: 0, each refusal is counted once, in
                                   rq_palos_stats.errors) */
} rq_pw;

RQ_API void rq_pw_config_default(rq_pw_config *cfg);
RQ_API size_t rq_pw_mem_size(const rq_pw_config *cfg);
RQ_API rnic_err rq_pw_init(rq_pw *w, const rq_pw_config *cfg, void *mem, size_t size);
/* Create group `group` with a weight (1 .. 65535): RNIC_EEXIST if it exists, RNIC_ENOENT
 * beyond max_groups, RNIC_ERANGE for a weight out of range (all counted). */
RQ_API rnic_err rq_pw_create_group(rq_pw *w, uint32_t group, uint32_t weight);
RQ_API rnic_err rq_pw_set_group_weight(rq_pw *w, uint32_t group, uint32_t weight);
/* Put a QP in a group with a weight (1 .. 65535), or move it / change its weight. */
RQ_API rnic_err rq_pw_set_qp(rq_pw *w, uint32_t qp, uint32_t group, uint32_t weight);
RQ_API rnic_err rq_pw_remove_qp(rq_pw *w, uint32_t qp);
/* The QP's next chunk in bytes, carrying the fraction under a byte to its next chunk (so a
 * chunk under one byte is 0 in some rounds); 0 for a QP in no group. */
RQ_API uint64_t rq_pw_next_chunk(rq_pw *w, uint32_t qp);
