/* hostcc.h: hcc_host -- PCIe (step 5): credit returns, arrivals at the IIO, posted writes
 * (docs/hostcc_host.md "PCIe"). */

/* a mod d (d > 0): a mask for the usual power of two (pcie_mps, DDIO sets), no division. */
static uint64_t hcc__host_mod(uint64_t a, uint64_t d)
{
    return (d & (d - 1u)) == 0 ? a & (d - 1u) : a - rnic_udiv64(a, d) * d;
}

/* The posted write of packet w that starts `issued` bytes in: its bytes (up to the next
 * pcie_mps boundary of the address) and the 64 B lines it touches (= the credits it needs). */
static uint32_t hcc__host_write_of(const hcc_host *h, const rnic_work *w, uint32_t issued, uint32_t *lines)
{
    uint64_t a = w->addr + issued, room = h->cfg.pcie_mps - hcc__host_mod(a, h->cfg.pcie_mps);
    uint32_t rem = w->len - issued, b = room < rem ? (uint32_t)room : rem;
    *lines = (uint32_t)(((a + b - 1u) >> 6) - (a >> 6) + 1u);
    return b;
}

/* The head packet's next posted write (hcc__host_write_of), and whether it is the packet's last.
 * False when the buffer is empty. A probe (HCC_WORK_PROBE) writes nothing: 0 bytes, 0 lines, last. */
static bool hcc__host_next_write(const hcc_host *h, uint32_t *bytes, uint32_t *lines, bool *last)
{
    const rnic_work *w = (const rnic_work *)rnic_ring_peek(&h->rx);
    if (!w)
        return false;
    if (w->flags & HCC_WORK_PROBE) {
        *bytes = 0;
        *lines = 0;
        *last = true;
        return true;
    }
    *bytes = hcc__host_write_of(h, w, h->head_issued, lines);
    *last = *bytes == w->len - h->head_issued;
    return true;
}

/* The first tick j >= 0 from now at which the link's tokens, at tok now and gaining pcie_bps a
 * cycle, are positive (a write may start). */
static uint64_t hcc__host_link_free_at(const hcc_host *h, int64_t tok)
{
    return h->now + (tok >= 0 ? 0 : rnic_udiv64((uint64_t)(-tok), h->cfg.pcie_bps));
}

/* Cost of a write on the link, bits x clock_hz. */
static int64_t hcc__host_tlp_cost(const hcc_host *h, uint32_t bytes)
{
    return (int64_t)((uint64_t)(bytes + h->cfg.pcie_tlp_overhead) * 8u * h->cfg.clock_hz);
}

/* The head packet leaves the RX buffer for the rx port (its last write issued, or a probe). */
static void hcc__host_out(hcc_host *h)
{
    rnic_work o;
    uint64_t head;
    uint32_t k = h->cfg.rx_stage_packets;
    (void)rnic_ring_pop(&h->rx, &o);
    h->head_issued = 0;
    /* it entered the receive pipeline (aux cycles after its arrival, push_rx / below) */
    head = o.cycle + o.aux;
    if (h->rx.count >= k) { /* the packet k - 1 behind the head enters it now */
        rnic_work *e = (rnic_work *)(void *)rnic__ring_slot(&h->rx, k - 1u);
        e->aux = (h->now - e->cycle) > UINT32_MAX ? UINT32_MAX : (uint32_t)(h->now - e->cycle);
    }
    o.aux = (h->now - o.cycle) > UINT32_MAX ? UINT32_MAX : (uint32_t)(h->now - o.cycle);
    o.offset = (h->now - head) > UINT32_MAX ? UINT32_MAX : (uint32_t)(h->now - head);
    o.cycle = h->now;
    (void)rnic_ring_push(&h->out, &o);
    h->stats.packets_out++;
    h->stats.delay_sum += o.aux;
    if (o.aux > h->stats.delay_max)
        h->stats.delay_max = o.aux;
    RNIC__TRACE_REC(h, RNIC_TRACE_OUT, &o);
}

/* A probe at the head: leaves in order, no TLP, no credit; its bytes free. */
static void hcc__host_pass_probe(hcc_host *h)
{
    h->rx_bytes -= ((const rnic_work *)rnic_ring_peek(&h->rx))->len;
    h->stats.probes++;
    hcc__host_out(h);
}

static void hcc__host_issue(hcc_host *h, uint32_t b, uint32_t lines, bool last)
{
    const rnic_work *w = (const rnic_work *)rnic_ring_peek(&h->rx);
    uint64_t a = w->addr + h->head_issued, end = a + b, l;
    h->credits -= lines;
    h->pcie_tok -= hcc__host_tlp_cost(h, b);
    for (l = a >> 6; l <= (end - 1u) >> 6; l++) {
        hcc__host_line x;
        /* the payload's first and last byte in this line, inclusive: the line's end byte
         * (lo + 63) is representable on the address space's top line, where lo + 64 wraps to 0
         * (push_rx accepts a packet ending at 2^64 - 1; fuzz_hostcc found it) */
        uint64_t lo = l << 6, hi = lo + 63u;
        if (lo < a)
            lo = a;
        if (hi > end - 1u)
            hi = end - 1u;
        x.cycle = h->now + h->lat;
        x.addr = l;
        x.bytes = (uint32_t)(hi - lo + 1u);
        x.pad = 0;
        (void)rnic_ring_push_n(&h->flight_q, &x, sizeof x); /* a credit per line: never full */
    }
    h->stats.pcie_writes++;
    h->stats.pcie_bytes += b;
    h->stats.pcie_lines += lines;
    if (h->head_stalled) {
        h->stats.pcie_stalled_writes++;
        h->head_stalled = false;
    }
    h->rx_bytes -= b;
    h->head_issued += b;
    if (last)
        hcc__host_out(h);
}

static void hcc__host_pcie_step(hcc_host *h)
{
    int64_t r = (int64_t)h->cfg.pcie_bps;
    /* credits back */
    while (h->ret_q.count) {
        const hcc__host_ret *x = (const hcc__host_ret *)rnic_ring_peek(&h->ret_q);
        if ((int64_t)(h->now - x->cycle) < 0)
            break;
        h->credits += x->count;
        h->stats.credits_returned += x->count;
        (void)rnic_ring_pop_n(&h->ret_q, NULL, sizeof *x);
    }
    /* writes arriving at the IIO */
    while (h->flight_q.count) {
        const hcc__host_line *x = (const hcc__host_line *)rnic_ring_peek(&h->flight_q);
        uint32_t occ;
        if ((int64_t)(h->now - x->cycle) < 0)
            break;
        (void)rnic_ring_push_n(&h->iio_q, x, sizeof *x); /* the line's credit holds its place */
        (void)rnic_ring_pop_n(&h->flight_q, NULL, sizeof *x);
        h->stats.iio_lines_in++;
        occ = h->iio_q.count + h->iio_at_mem;
        if (occ > h->stats.iio_max)
            h->stats.iio_max = occ;
    }
    /* the link: a write may start while the link's token count is positive (the previous write
     * has finished within this cycle); tokens are capped at one cycle's worth when idle */
    h->pcie_tok = h->pcie_tok + r > r ? r : h->pcie_tok + r;
    for (;;) {
        uint32_t b, lines;
        bool last;
        const rnic_work *head = (const rnic_work *)rnic_ring_peek(&h->rx);
        if (!head || (h->pcie_tok <= 0 && !(head->flags & HCC_WORK_PROBE)))
            break; /* nothing to write, or the link still busy (only a probe goes without it) */
        if (!hcc__host_next_write(h, &b, &lines, &last))
            break;
        if (last && rnic_ring_full(&h->out))
            break; /* waits for a pop_rx */
        if (lines == 0) { /* a probe: needs neither the link nor credits */
            hcc__host_pass_probe(h);
            continue;
        }
        if (h->pcie_tok <= 0)
            break;
        if (lines > h->credits) {
            h->stats.pcie_stall_cycles++;
            if (!h->head_stalled)
                hcc__host_emit(h, HCC_HOST_TRACE_STALL, 0, lines, h->credits);
            h->head_stalled = true;
            break;
        }
        hcc__host_issue(h, b, lines, last);
    }
}
