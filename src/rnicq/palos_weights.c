/* Palos hierarchical weights -> chunk sizes (interface: palos_weights.h). Control path: the
 * group-table rewrite uses the portable 128/64 divide, never a compiler divide helper. */

RQ_API void rq_pw_config_default(rq_pw_config *cfg)
{
    cfg->max_flows = 1024;
    cfg->max_groups = 64;
    cfg->mtu = 1500;
}

static bool rq__pw_config_valid(const rq_pw_config *c)
{
    return c && c->max_flows >= 1u && c->max_flows <= 65536u && c->max_groups >= 1u && c->max_groups <= 4096u &&
           c->mtu >= 64u && c->mtu <= 65536u;
}

RQ_API size_t rq_pw_mem_size(const rq_pw_config *cfg)
{
    if (!rq__pw_config_valid(cfg))
        return 0;
    return rnic_align_up((size_t)cfg->max_flows * sizeof(rq_pw_qp)) + rnic_align_up((size_t)cfg->max_groups * sizeof(rq_pw_group));
}

RQ_API rnic_err rq_pw_init(rq_pw *w, const rq_pw_config *cfg, void *mem, size_t size)
{
    size_t need = rq_pw_mem_size(cfg);
    uint32_t i;
    if (!w || !mem || need == 0 || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)))
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(w, 0, sizeof *w);
    RNIC_MEMSET(mem, 0, need);
    w->cfg = *cfg;
    w->qps = (rq_pw_qp *)mem;
    w->groups = (rq_pw_group *)(void *)((unsigned char *)mem + rnic_align_up((size_t)cfg->max_flows * sizeof(rq_pw_qp)));
    for (i = 0; i < cfg->max_flows; i++)
        w->qps[i].group = RNIC_NONE;
    return RNIC_OK;
}

/* Rewrite the group table (Fig. 6: one entry per group; the QP table is not touched). */
static void rq__pw_recompute(rq_pw *w)
{
    uint64_t n = (uint64_t)w->assigned_qps * w->cfg.mtu; /* N */
    uint32_t g;
    for (g = 0; g < w->cfg.max_groups; g++) {
        rq_pw_group *gr = &w->groups[g];
        uint64_t hi, lo, den;
        if (!gr->weight || !gr->members || !w->sum_group_weights) {
            gr->granularity = 0;
            continue;
        }
        /* Grp_W x N x 2^32 / (sum(Grp_W) x sum(W)): 16 + 30 + 32 bits over at most 28 + 32; the
         * quotient is at most N x 2^32 <= 2^62. A share below the table's resolution (2^-32 B
         * per weight unit) is held at that resolution so that the QP still moves, slowly. */
        rnic_mul64x64((uint64_t)gr->weight * n, (uint64_t)1 << 32, &hi, &lo);
        den = w->sum_group_weights * gr->sum_weights;
        gr->granularity = hi < den ? rnic_udiv128_64(hi, lo, den, NULL) : UINT64_MAX;
        if (gr->granularity == 0u)
            gr->granularity = 1u;
    }
    w->recomputes++;
}

static bool rq__pw_weight_ok(uint32_t weight) { return weight >= 1u && weight <= 65535u; }

/* The control calls without counting (rq__pw_*): the public ones count a refusal in w->errors;
 * rq_palos calls these and counts it once, in its own statistics. */
static rnic_err rq__pw_create_group(rq_pw *w, uint32_t group, uint32_t weight)
{
    if (group >= w->cfg.max_groups)
        return RNIC_ENOENT;
    if (!rq__pw_weight_ok(weight))
        return RNIC_ERANGE;
    if (w->groups[group].weight)
        return RNIC_EEXIST;
    w->groups[group].weight = weight;
    return RNIC_OK; /* no members yet: nothing to recompute */
}

static rnic_err rq__pw_set_group_weight(rq_pw *w, uint32_t group, uint32_t weight)
{
    rq_pw_group *gr;
    if (group >= w->cfg.max_groups || !w->groups[group].weight)
        return RNIC_ENOENT;
    if (!rq__pw_weight_ok(weight))
        return RNIC_ERANGE;
    gr = &w->groups[group];
    if (gr->members)
        w->sum_group_weights = w->sum_group_weights - gr->weight + weight;
    gr->weight = weight;
    rq__pw_recompute(w);
    return RNIC_OK;
}

static void rq__pw_leave(rq_pw *w, rq_pw_qp *q)
{
    rq_pw_group *gr = &w->groups[q->group];
    gr->sum_weights -= q->weight;
    if (--gr->members == 0u)
        w->sum_group_weights -= gr->weight;
    w->assigned_qps--;
    q->group = RNIC_NONE;
    q->weight = 0;
    q->carry = 0;
}

static rnic_err rq__pw_set_qp(rq_pw *w, uint32_t qp, uint32_t group, uint32_t weight)
{
    rq_pw_qp *q;
    rq_pw_group *gr;
    if (qp >= w->cfg.max_flows || group >= w->cfg.max_groups || !w->groups[group].weight)
        return RNIC_ENOENT;
    if (!rq__pw_weight_ok(weight))
        return RNIC_ERANGE;
    q = &w->qps[qp];
    if (q->group != RNIC_NONE)
        rq__pw_leave(w, q);
    gr = &w->groups[group];
    if (gr->members++ == 0u)
        w->sum_group_weights += gr->weight;
    gr->sum_weights += weight;
    w->assigned_qps++;
    q->group = group;
    q->weight = weight;
    rq__pw_recompute(w);
    return RNIC_OK;
}

static rnic_err rq__pw_remove_qp(rq_pw *w, uint32_t qp)
{
    if (qp >= w->cfg.max_flows || w->qps[qp].group == RNIC_NONE)
        return RNIC_ENOENT;
    rq__pw_leave(w, &w->qps[qp]);
    rq__pw_recompute(w);
    return RNIC_OK;
}

RQ_API rnic_err rq_pw_create_group(rq_pw *w, uint32_t group, uint32_t weight)
{
    return rnic_err_note(&w->errors, rq__pw_create_group(w, group, weight));
}

RQ_API rnic_err rq_pw_set_group_weight(rq_pw *w, uint32_t group, uint32_t weight)
{
    return rnic_err_note(&w->errors, rq__pw_set_group_weight(w, group, weight));
}

RQ_API rnic_err rq_pw_set_qp(rq_pw *w, uint32_t qp, uint32_t group, uint32_t weight)
{
    return rnic_err_note(&w->errors, rq__pw_set_qp(w, qp, group, weight));
}

RQ_API rnic_err rq_pw_remove_qp(rq_pw *w, uint32_t qp)
{
    return rnic_err_note(&w->errors, rq__pw_remove_qp(w, qp));
}

RQ_API uint64_t rq_pw_next_chunk(rq_pw *w, uint32_t qp)
{
    rq_pw_qp *q;
    uint64_t hi, lo, bytes;
    if (qp >= w->cfg.max_flows || w->qps[qp].group == RNIC_NONE)
        return 0;
    q = &w->qps[qp];
    /* weight x granularity (Q32.32) + carry: the bytes, and a new carry below one byte */
    rnic_mul64x64(q->weight, w->groups[q->group].granularity, &hi, &lo);
    lo += q->carry;
    hi += lo < q->carry;
    bytes = (hi << 32) | (lo >> 32);
    q->carry = (uint32_t)(lo & 0xffffffffu);
    return bytes; /* 0 when the chunk is under a byte: the fraction waits for the next round */
}
