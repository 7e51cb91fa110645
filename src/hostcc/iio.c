/* hostcc.h: hcc_host -- IIO (step 4): forward the oldest waiting line to DDIO or the memory
 * controller; free lines and return their credits (docs/hostcc_host.md "IIO"). */

#define HCC__HOST_M_CPU_READ 0u
#define HCC__HOST_M_CPU_WRITE 1u
#define HCC__HOST_M_IIO 2u    /* an IIO line written to memory (DDIO off) */
#define HCC__HOST_M_WB_IIO 3u /* the write-back an IIO line's DDIO allocation waits for */
#define HCC__HOST_M_WB_CPU 4u /* the write-back of a DDIO line a CPU fill evicted */
#define HCC__HOST_M_WB_EVICTED_IO 5u /* the same, held by an IIO memory credit (cpu_evict_wb _IO) */

#define HCC__HOST_CUM_MASK ((((uint64_t)1) << 48) - 1u)

/* ddio.c: 1 = taken by DDIO now (hit, or allocation without a dirty victim); 0 = allocated, its
 * dirty victim's write-back queued (the line is freed when that is served); -1 = no room: wait. */
static int hcc__host_ddio_write(hcc_host *h, const hcc__host_line *x, bool can_queue);

/* An IIO line leaves the buffer: its credit goes back to the RNIC pcie_latency later. */
static void hcc__host_free_line(hcc_host *h)
{
    uint64_t due = h->now + h->lat;
    h->stats.iio_lines_freed++;
    if (h->ret_q.count) {
        hcc__host_ret *t = (hcc__host_ret *)(void *)rnic__ring_slot(&h->ret_q, h->ret_q.count - 1u);
        if (t->cycle == due) {
            t->count++;
            return;
        }
    }
    {
        hcc__host_ret t;
        t.cycle = due;
        t.count = 1;
        t.pad = 0;
        (void)rnic_ring_push_n(&h->ret_q, &t, sizeof t); /* one entry per line at most: never full */
    }
}

static bool hcc__host_mem_room(const hcc_host *h)
{
    return !rnic_ring_full(&h->mem_q);
}

/* One of the IIO's iio_mem_credits is free: its lines at memory and (cpu_evict_wb _IO) the
 * CPU-evicted I/O write-backs hold them. */
static bool hcc__host_iio_credit_free(const hcc_host *h)
{
    return h->iio_at_mem + h->iio_wb_evicted < h->cfg.iio_mem_credits;
}

static void hcc__host_mem_put(hcc_host *h, uint32_t type, uint32_t bytes)
{
    hcc__host_mreq m;
    m.type = type;
    m.bytes = bytes;
    if (type != HCC__HOST_M_CPU_READ && type != HCC__HOST_M_CPU_WRITE)
        h->mem_other++;
    (void)rnic_ring_push_n(&h->mem_q, &m, sizeof m); /* the caller checked hcc__host_mem_room */
}

static void hcc__host_iio_step(hcc_host *h)
{
    while (h->iio_q.count) {
        const hcc__host_line *x = (const hcc__host_line *)rnic_ring_peek(&h->iio_q);
        bool can_queue = hcc__host_mem_room(h) && hcc__host_iio_credit_free(h);
        if (h->ddio) {
            int r = hcc__host_ddio_write(h, x, can_queue);
            if (r < 0)
                break;
            h->stats.bytes_to_memory_or_ddio += x->bytes;
            if (r > 0) {
                hcc__host_free_line(h);
            } else {
                hcc__host_mem_put(h, HCC__HOST_M_WB_IIO, 0);
                h->iio_at_mem++;
            }
        } else {
            if (!can_queue)
                break;
            hcc__host_mem_put(h, HCC__HOST_M_IIO, x->bytes);
            h->iio_at_mem++;
        }
        (void)rnic_ring_pop_n(&h->iio_q, NULL, sizeof *x);
    }
}
