/* hostcc.h: hcc_host -- DDIO ways (LRU per set, write-allocate, write-back of dirty victims) and
 * step 3 (queue the write-backs of CPU evictions) (docs/hostcc_host.md "DDIO"). */

#define HCC__HOST_D_VALID 1u
#define HCC__HOST_D_DIRTY 2u

/* Move entry `pos` of `set` to the MRU position with value v. */
static void hcc__host_ddio_mru(uint64_t *set, uint32_t pos, uint64_t v)
{
    while (pos > 0) {
        set[pos] = set[pos - 1u];
        pos--;
    }
    set[0] = v;
}

static int hcc__host_ddio_write(hcc_host *h, const hcc__host_line *x, bool can_queue)
{
    uint32_t ways = h->cfg.ddio_ways, i, victim;
    uint64_t *set = h->ddio + (size_t)hcc__host_mod(x->addr, h->ddio_sets) * ways;
    uint64_t v = (x->addr << 2) | HCC__HOST_D_VALID | HCC__HOST_D_DIRTY;
    for (i = 0; i < ways; i++) {
        if ((set[i] & HCC__HOST_D_VALID) && (set[i] >> 2) == x->addr) {
            hcc__host_ddio_mru(set, i, v);
            h->stats.ddio_hits++;
            return 1;
        }
    }
    /* miss: the first invalid way, else the LRU one (valid ways are kept in front) */
    victim = ways - 1u;
    for (i = 0; i < ways; i++) {
        if (!(set[i] & HCC__HOST_D_VALID)) {
            victim = i;
            break;
        }
    }
    if ((set[victim] & (HCC__HOST_D_VALID | HCC__HOST_D_DIRTY)) == (HCC__HOST_D_VALID | HCC__HOST_D_DIRTY)) {
        if (!can_queue)
            return -1; /* nothing changes: the line waits at the IIO head */
        hcc__host_ddio_mru(set, victim, v);
        h->stats.ddio_misses++;
        h->stats.ddio_writebacks++;
        return 0;
    }
    if (!(set[victim] & HCC__HOST_D_VALID))
        h->ddio_valid++;
    hcc__host_ddio_mru(set, victim, v);
    h->stats.ddio_misses++;
    return 1;
}

/* A CPU line was served: evict cpu_evict_ppm millionths of a DDIO line, the LRU valid line of
 * the next set in round-robin order (none when that set is empty); dirty ones are written back. */
static void hcc__host_ddio_cpu_line(hcc_host *h)
{
    h->evict_acc += h->cfg.cpu_evict_ppm;
    while (h->evict_acc >= 1000000u) {
        uint32_t ways = h->cfg.ddio_ways, i;
        uint64_t *set = h->ddio + (size_t)h->evict_set * ways;
        if (h->cfg.cpu_evict_wb == HCC_HOST_EVICT_WB_IO && h->cpu_wb_pending >= h->cfg.iio_mem_credits) {
            /* every credit's worth of I/O write-backs is owed: the LLC takes a clean CPU victim
             * instead; the owed eviction waits (kept, not accumulated further) */
            h->evict_acc = 1000000u;
            h->stats.ddio_cpu_evictions_deferred++;
            break;
        }
        h->evict_acc -= 1000000u;
        h->evict_set = h->evict_set + 1u == h->ddio_sets ? 0 : h->evict_set + 1u;
        for (i = ways; i-- > 0;) {
            if (set[i] & HCC__HOST_D_VALID) {
                if (set[i] & HCC__HOST_D_DIRTY) {
                    h->cpu_wb_pending++;
                    h->stats.ddio_writebacks++;
                }
                set[i] = 0;
                h->ddio_valid--;
                h->stats.ddio_cpu_evictions++;
                break;
            }
        }
    }
}

/* Step 3: write-backs of CPU evictions enter the memory queue while it has room (cpu_evict_wb
 * _IO: and the IIO has a memory credit free; they are older than the IIO's waiting lines). */
static void hcc__host_ddio_step(hcc_host *h)
{
    bool io = h->cfg.cpu_evict_wb == HCC_HOST_EVICT_WB_IO;
    while (h->cpu_wb_pending && hcc__host_mem_room(h) && (!io || hcc__host_iio_credit_free(h))) {
        h->cpu_wb_pending--;
        hcc__host_mem_put(h, io ? HCC__HOST_M_WB_EVICTED_IO : HCC__HOST_M_WB_CPU, 0);
        if (io)
            h->iio_wb_evicted++;
        else if (h->cfg.cpu_evict_wb == HCC_HOST_EVICT_WB_CPU)
            h->cpu_out++; /* served: memctl.c gives the slot back */
    }
}
