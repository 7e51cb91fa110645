/* hostcc.h: hcc_host -- shared helpers and the RNIC RX buffer (step 6 of the cycle: PFC / marking;
 * docs/hostcc_host.md). Every queue of hcc_host is an rnic_ring over caller memory. */

static void hcc__host_emit(hcc_host *h, uint16_t kind, uint32_t id, uint64_t a, uint64_t b)
{
    RNIC__TRACE(h, kind, id, a, b);
}

/* Count a refused input once (errors) and trace it: a = the refused record's index (a register
 * write: the value), b = the error. */
static rnic_err hcc__host_refuse(hcc_host *h, rnic_err e, uint32_t id, uint64_t value)
{
    hcc__host_emit(h, RNIC_TRACE_REFUSE, id, value, (uint64_t)e);
    return rnic_err_note(&h->stats.errors, e);
}

HCC_API rnic_err hcc_host_push_rx(hcc_host *h, const rnic_work *pkt)
{
    rnic_work w;
    if (!h)
        return RNIC_EINVAL;
    if (!pkt || pkt->len == 0)
        return hcc__host_refuse(h, RNIC_EINVAL, pkt ? pkt->flow : 0, pkt ? pkt->index : 0);
    if (pkt->len > h->cfg.rx_buffer_bytes || pkt->addr > UINT64_MAX - pkt->len)
        return hcc__host_refuse(h, RNIC_ERANGE, pkt->flow, pkt->index);
    if (rnic_ring_full(&h->rx) || pkt->len > h->cfg.rx_buffer_bytes - h->rx_bytes) {
        h->stats.dropped++;
        h->stats.dropped_bytes += pkt->len;
        hcc__host_emit(h, HCC_HOST_TRACE_DROP, pkt->flow, pkt->index, pkt->len);
        return hcc__host_refuse(h, RNIC_EBUSY, pkt->flow, pkt->index);
    }
    w = *pkt;
    w.cycle = h->now; /* arrival */
    w.status = 0;
    if (h->ecn || (!h->cfg.pfc && h->rx_bytes > h->cfg.cnp_bytes)) {
        w.flags |= HCC_WORK_CE;
        h->stats.marked++;
    }
    (void)rnic_ring_push(&h->rx, &w);
    /* while buffered, aux holds the cycles from arrival to its entry into the receive pipeline
     * (hcc__host_out rewrites it): 0 when it arrives within rx_stage_packets of the head */
    if (h->rx.count <= h->cfg.rx_stage_packets)
        ((rnic_work *)(void *)rnic__ring_slot(&h->rx, h->rx.count - 1u))->aux = 0;
    h->rx_bytes += w.len;
    h->stats.packets_in++;
    h->stats.bytes_in += w.len;
    RNIC__TRACE_REC(h, RNIC_TRACE_PUSH, &w);
    return RNIC_OK;
}

HCC_API uint32_t hcc_host_space_rx(const hcc_host *h)
{
    if (!h || rnic_ring_full(&h->rx))
        return 0;
    return h->cfg.rx_buffer_bytes - h->rx_bytes;
}

static rnic_err hcc__host_take(hcc_host *h, rnic_ring *r, rnic_work *out, bool pop)
{
    const rnic_work *w;
    if (!out)
        return rnic_err_note(&h->stats.errors, RNIC_EINVAL);
    w = (const rnic_work *)rnic_ring_peek(r);
    if (!w)
        return RNIC_EEMPTY;
    *out = *w;
    if (pop) {
        (void)rnic_ring_pop(r, NULL);
        RNIC__TRACE_REC(h, RNIC_TRACE_POP, out);
    }
    return RNIC_OK;
}

HCC_API rnic_err hcc_host_pop_rx(hcc_host *h, rnic_work *out)
{
    return h ? hcc__host_take(h, &h->out, out, true) : RNIC_EINVAL;
}
HCC_API rnic_err hcc_host_peek_rx(const hcc_host *h, rnic_work *out)
{
    /* the engine is the caller's: a NULL record is counted like every refused input */
    return h ? hcc__host_take((hcc_host *)(uintptr_t)h, (rnic_ring *)(uintptr_t)&h->out, out, false) : RNIC_EINVAL;
}
HCC_API rnic_err hcc_host_pop_signal(hcc_host *h, rnic_work *out)
{
    return h ? hcc__host_take(h, &h->sig, out, true) : RNIC_EINVAL;
}
HCC_API rnic_err hcc_host_peek_signal(const hcc_host *h, rnic_work *out)
{
    return h ? hcc__host_take((hcc_host *)(uintptr_t)h, (rnic_ring *)(uintptr_t)&h->sig, out, false) : RNIC_EINVAL;
}

/* The PFC decision of this cycle: +1 PAUSE, -1 RESUME, 0 none. */
static int hcc__host_pfc_due(const hcc_host *h)
{
    if (!h->cfg.pfc)
        return 0;
    if (!h->paused && h->rx_bytes >= h->cfg.xoff_bytes)
        return 1;
    if (h->paused && h->rx_bytes <= h->cfg.xon_bytes)
        return -1;
    return 0;
}

/* Step 6: PFC frames. A frame that finds the signal port full waits (the state does not change)
 * and is sent in the first cycle the port has room and the condition still holds. */
static void hcc__host_rx_step(hcc_host *h)
{
    int due = hcc__host_pfc_due(h);
    rnic_work s;
    if (due == 0 || rnic_ring_full(&h->sig))
        return;
    RNIC_MEMSET(&s, 0, sizeof s);
    s.cycle = h->now;
    s.addr = h->rx_bytes;
    s.flags = due > 0 ? HCC_HOST_WORK_PAUSE : HCC_HOST_WORK_RESUME;
    (void)rnic_ring_push(&h->sig, &s);
    RNIC__TRACE_REC(h, RNIC_TRACE_OUT, &s);
    if (due > 0) {
        h->paused = true;
        h->pause_start = h->now;
        h->stats.pfc_pauses++;
        hcc__host_emit(h, HCC_HOST_TRACE_PAUSE, 0, h->rx_bytes, 0);
    } else {
        h->paused = false;
        h->stats.pfc_resumes++;
        hcc__host_emit(h, HCC_HOST_TRACE_RESUME, 0, h->rx_bytes, h->now - h->pause_start);
    }
}
