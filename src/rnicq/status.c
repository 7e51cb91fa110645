/* Status registers (interface: status.h). */

RQ_API size_t rq_status_mem_size(uint32_t domains, uint32_t channels)
{
    if (domains == 0 || channels == 0 || channels % 32u || (uint64_t)domains * channels > ((uint64_t)1 << 24))
        return 0;
    return rnic_align_up((size_t)domains * (channels / 32u) * sizeof(uint64_t));
}

RQ_API rnic_err rq_status_init(rq_status_regs *s, uint32_t domains, uint32_t channels, void *mem, size_t size)
{
    size_t need = rq_status_mem_size(domains, channels);
    if (!s || !mem || need == 0 || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)))
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(s, 0, sizeof *s);
    s->domains = domains;
    s->channels = channels;
    s->words = (uint64_t *)mem;
    RNIC_MEMSET(s->words, 0, need);
    return RNIC_OK;
}

static uint64_t *rq__status_word(const rq_status_regs *s, uint32_t domain, uint32_t channel)
{
    return &s->words[(size_t)domain * (s->channels / 32u) + channel / 32u];
}

RQ_API rq_status rq_status_peek(const rq_status_regs *s, uint32_t domain, uint32_t channel)
{
    if (domain >= s->domains || channel >= s->channels)
        return RQ_IDLE;
    return (rq_status)((*rq__status_word(s, domain, channel) >> (2u * (channel % 32u))) & 3u);
}

RQ_API rnic_err rq_status_set(rq_status_regs *s, uint32_t domain, uint32_t channel, rq_status to)
{
    uint64_t *w;
    rq_status from;
    uint32_t sh;
    if (domain >= s->domains || channel >= s->channels)
        return rnic_err_note(&s->stats.errors, RNIC_ENOENT);
    from = rq_status_peek(s, domain, channel);
    if (!((from == RQ_IDLE && to == RQ_BUSY) || (from == RQ_BUSY && (to == RQ_DONE || to == RQ_ERROR))))
        return rnic_err_note(&s->stats.errors, RNIC_ESTATE);
    w = rq__status_word(s, domain, channel);
    sh = 2u * (channel % 32u);
    *w = (*w & ~((uint64_t)3u << sh)) | ((uint64_t)to << sh);
    return RNIC_OK;
}

/* The bits of a word whose channel is DONE (10) or ERROR (11): the high bit of each pair. */
static uint64_t rq__status_finished(uint64_t w) { return w & 0xaaaaaaaaaaaaaaaaull; }

RQ_API rnic_err rq_status_read_one(rq_status_regs *s, uint32_t reader, uint32_t domain, uint32_t channel, rq_status *out)
{
    rq_status st;
    if (domain >= s->domains || channel >= s->channels || reader >= s->domains || !out)
        return rnic_err_note(&s->stats.errors, RNIC_ENOENT);
    if (reader != domain)
        return rnic_err_note(&s->stats.errors, RNIC_EPERM);
    st = rq_status_peek(s, domain, channel);
    if (st == RQ_DONE || st == RQ_ERROR) {
        *rq__status_word(s, domain, channel) &= ~((uint64_t)3u << (2u * (channel % 32u)));
        s->stats.cleared++;
    }
    s->stats.reads_one++;
    *out = st;
    return RNIC_OK;
}

RQ_API rnic_err rq_status_read32(rq_status_regs *s, uint32_t reader, uint32_t domain, uint32_t half, uint64_t *out)
{
    uint64_t *w, fin;
    if (domain >= s->domains || half >= s->channels / 32u || reader >= s->domains || !out)
        return rnic_err_note(&s->stats.errors, RNIC_ENOENT);
    if (reader != domain)
        return rnic_err_note(&s->stats.errors, RNIC_EPERM);
    w = rq__status_word(s, domain, half * 32u);
    *out = *w;
    fin = rq__status_finished(*w);
    s->stats.cleared += rnic_popcount64(fin);
    *w &= ~(fin | (fin >> 1)); /* DONE/ERROR -> IDLE */
    s->stats.reads_32++;
    return RNIC_OK;
}
