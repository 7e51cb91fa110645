/* hostcc.h: hcc_host -- memory controller (step 1: FCFS service at mem_bps) and CPU traffic
 * (step 2: 1:1 read/write lines at min(offered, MBA cap)) (docs/hostcc_host.md "Memory"). */

static const uint64_t hcc__host_mba_bps[HCC_MBA_LEVELS] = {
    HCC_MBA_LEVEL_0_BPS, HCC_MBA_LEVEL_1_BPS, HCC_MBA_LEVEL_2_BPS, HCC_MBA_LEVEL_3_BPS, HCC_MBA_LEVEL_4_BPS
};

/* ddio.c: a CPU line served evicts cpu_evict_ppm millionths of a DDIO line. */
static void hcc__host_ddio_cpu_line(hcc_host *h);

/* A 64 B line, in the token unit of the memory and CPU buckets: bits x clock_hz. */
static int64_t hcc__host_line_cost(const hcc_host *h)
{
    return (int64_t)(512u * h->cfg.clock_hz);
}

/* Step 1: serve lines from the head of the queue while the tokens are positive (the previous
 * line's service has ended within this cycle); tokens capped at one cycle's worth. */
static void hcc__host_mem_step(hcc_host *h)
{
    int64_t r = (int64_t)h->cfg.mem_bps, cost = hcc__host_line_cost(h);
    h->mem_tok = h->mem_tok + r > r ? r : h->mem_tok + r;
    while (h->mem_tok > 0 && h->mem_q.count) {
        hcc__host_mreq m;
        (void)rnic_ring_pop_n(&h->mem_q, &m, sizeof m);
        h->mem_tok -= cost;
        if (m.type != HCC__HOST_M_CPU_READ && m.type != HCC__HOST_M_CPU_WRITE)
            h->mem_other--;
        switch (m.type) {
        case HCC__HOST_M_CPU_READ:
        case HCC__HOST_M_CPU_WRITE:
            if (m.type == HCC__HOST_M_CPU_READ)
                h->stats.mem_lines_cpu_read++;
            else
                h->stats.mem_lines_cpu_write++;
            h->cpu_out--;
            h->stats.cpu_bytes_served += 64u;
            if (h->ddio)
                hcc__host_ddio_cpu_line(h);
            break;
        case HCC__HOST_M_IIO:
            h->stats.mem_lines_iio++;
            h->stats.bytes_to_memory_or_ddio += m.bytes;
            h->iio_at_mem--;
            hcc__host_free_line(h);
            break;
        case HCC__HOST_M_WB_IIO:
            h->stats.mem_lines_writeback++;
            h->iio_at_mem--;
            hcc__host_free_line(h);
            break;
        case HCC__HOST_M_WB_EVICTED_IO:
            h->stats.mem_lines_writeback++;
            h->iio_wb_evicted--; /* the credit goes back to the IIO; no line of its buffer is freed */
            break;
        default:
            h->stats.mem_lines_writeback++;
            if (h->cfg.cpu_evict_wb == HCC_HOST_EVICT_WB_CPU)
                h->cpu_out--; /* the CPU's own write-back left its window */
            break;
        }
    }
}

/* Step 2: CPU requests. Issue-opportunity tokens gain min(offered, MBA cap) per cycle, capped
 * at one cycle's worth (a core whose window is full loses them: it is stalled). */
static void hcc__host_cpu_step(hcc_host *h)
{
    int64_t r, cost = hcc__host_line_cost(h);
    uint64_t cap = hcc__host_mba_bps[h->mba_level];
    uint32_t owed;
    h->cpu_rate = h->cpu_load < cap ? h->cpu_load : cap;
    r = (int64_t)h->cpu_rate;
    h->cpu_tok = h->cpu_tok + r > r ? r : h->cpu_tok + r;
    /* cpu_evict_wb _CPU: the write-backs the CPU's fills owe (cpu_wb_pending) hold window slots
     * too: a core cannot fill past the dirty lines it must write back first */
    owed = h->cfg.cpu_evict_wb == HCC_HOST_EVICT_WB_CPU ? h->cpu_wb_pending : 0u;
    while (h->cpu_tok > 0 && h->cpu_out + owed < h->cfg.cpu_outstanding && hcc__host_mem_room(h)) {
        hcc__host_mem_put(h, h->cpu_write_next ? HCC__HOST_M_CPU_WRITE : HCC__HOST_M_CPU_READ, 64u);
        h->cpu_write_next = !h->cpu_write_next;
        h->cpu_out++;
        h->cpu_tok -= cost;
    }
}

HCC_API rnic_err hcc_host_set_mba_level(hcc_host *h, uint32_t level)
{
    if (!h)
        return RNIC_EINVAL;
    if (level >= HCC_MBA_LEVELS)
        return hcc__host_refuse(h, RNIC_ERANGE, 0, level);
    h->mba_level = level;
    hcc__host_emit(h, HCC_HOST_TRACE_MBA, 0, level, hcc__host_mba_bps[level]);
    return RNIC_OK;
}

HCC_API rnic_err hcc_host_set_cpu_load(hcc_host *h, uint64_t bps)
{
    uint64_t ceil_bps, v = bps;
    if (!h)
        return RNIC_EINVAL;
    ceil_bps = h->cfg.mem_bps > HCC_MBA_LEVEL_0_BPS ? h->cfg.mem_bps : HCC_MBA_LEVEL_0_BPS;
    if (v > ceil_bps) {
        v = ceil_bps;
        h->stats.cpu_load_clamped++;
    }
    h->cpu_load = v;
    hcc__host_emit(h, HCC_HOST_TRACE_CPU, 0, v, bps);
    return RNIC_OK;
}

HCC_API uint32_t hcc_host_mba_level(const hcc_host *h) { return h ? h->mba_level : 0; }
HCC_API uint64_t hcc_host_cpu_load(const hcc_host *h) { return h ? h->cpu_load : 0; }
