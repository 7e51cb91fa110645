/* hostcc.h: hcc_host -- configuration, layout, the cycle order, fast-forward
 * (docs/hostcc_model.md "The receiving host"; docs/hostcc_host.md). */

HCC_API void hcc_host_config_default(hcc_host_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = 250000000u;
    cfg->rx_buffer_bytes = 256u * 1024u;
    cfg->rx_packets = 4096u;
    cfg->rx_stage_packets = 1u;
    cfg->pfc = true;
    cfg->xoff_bytes = 256u * 1024u - 40u * 1024u;
    cfg->xon_bytes = 256u * 1024u - 56u * 1024u;
    cfg->cnp_bytes = 32u * 1024u;
    cfg->pcie_bps = 128000000000ull;
    cfg->pcie_latency_ns = 500u;
    cfg->pcie_mps = 256u;
    cfg->pcie_tlp_overhead = 24u;
    cfg->iio_lines = 256u;
    cfg->iio_mem_credits = 64u;
    cfg->mem_bps = 8u * 33200000000ull;
    cfg->mem_queue = 256u;
    cfg->cpu_outstanding = 180u;
    cfg->cpu_load_bps = 0;
    cfg->mba_level = 0;
    cfg->ddio_lines = 65536u;
    cfg->ddio_ways = 2u;
    cfg->cpu_evict_ppm = 181818u;
    cfg->cpu_evict_wb = HCC_HOST_EVICT_WB_IO;
    cfg->rx_depth = 64u;
    cfg->signal_depth = 16u;
    cfg->start_cycle = 0;
    cfg->trace = NULL;
    cfg->trace_user = NULL;
    cfg->trace_id = RNIC_ENGINE_HCC_HOST;
}

HCC_API rnic_err hcc_host_config_check(const hcc_host_config *cfg, const char **field)
{
    const uint64_t tb = (uint64_t)1 << 40;
    if (field) /* the contract: NULL when the config is valid */
        *field = NULL;
    if (!cfg)
        return rnic_config_bad(field, "cfg", RNIC_EINVAL);
    if (cfg->clock_hz < 1000000u || cfg->clock_hz > 10000000000ull)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (cfg->rx_buffer_bytes < 1024u || cfg->rx_buffer_bytes > (1u << 30))
        return rnic_config_bad(field, "rx_buffer_bytes", RNIC_EINVAL);
    if (cfg->rx_packets < 1u || cfg->rx_packets > (1u << 24))
        return rnic_config_bad(field, "rx_packets", RNIC_EINVAL);
    if (cfg->rx_stage_packets < 1u || cfg->rx_stage_packets > cfg->rx_packets)
        return rnic_config_bad(field, "rx_stage_packets", RNIC_EINVAL);
    if (cfg->pfc && (cfg->xoff_bytes == 0 || cfg->xoff_bytes > cfg->rx_buffer_bytes))
        return rnic_config_bad(field, "xoff_bytes", RNIC_EINVAL);
    if (cfg->pfc && cfg->xon_bytes >= cfg->xoff_bytes)
        return rnic_config_bad(field, "xon_bytes", RNIC_EINVAL);
    if (cfg->cnp_bytes > cfg->rx_buffer_bytes)
        return rnic_config_bad(field, "cnp_bytes", RNIC_EINVAL);
    if (cfg->pcie_bps < 1000000u || cfg->pcie_bps > 2000000000000ull)
        return rnic_config_bad(field, "pcie_bps", RNIC_EINVAL);
    if (cfg->pcie_latency_ns > 1000000u)
        return rnic_config_bad(field, "pcie_latency_ns", RNIC_EINVAL);
    if (cfg->pcie_mps < 64u || cfg->pcie_mps > 4096u)
        return rnic_config_bad(field, "pcie_mps", RNIC_EINVAL);
    if (cfg->pcie_tlp_overhead > 256u)
        return rnic_config_bad(field, "pcie_tlp_overhead", RNIC_EINVAL);
    /* one posted write needs a credit per 64 B line it touches, all at once: up to pcie_mps
     * bytes starting at byte 63 of a line touch (pcie_mps + 62) / 64 + 1 lines (pcie_mps/64 + 1
     * for a multiple of 64; 7 for 371, not 6). With fewer credits than that the head write waits
     * for credits that can never come back: the host stalls for good (fuzz_hostcc found it). */
    if (cfg->iio_lines < (cfg->pcie_mps + 62u) / 64u + 1u || cfg->iio_lines > (1u << 20))
        return rnic_config_bad(field, "iio_lines", RNIC_EINVAL);
    if (cfg->iio_mem_credits < 1u || cfg->iio_mem_credits > cfg->iio_lines)
        return rnic_config_bad(field, "iio_mem_credits", RNIC_EINVAL);
    if (cfg->mem_bps < 8000000u || cfg->mem_bps > 8u * tb)
        return rnic_config_bad(field, "mem_bps", RNIC_EINVAL);
    if (cfg->mem_queue < 2u || cfg->mem_queue > (1u << 20))
        return rnic_config_bad(field, "mem_queue", RNIC_EINVAL);
    if (cfg->cpu_outstanding < 1u || cfg->cpu_outstanding > (1u << 20))
        return rnic_config_bad(field, "cpu_outstanding", RNIC_EINVAL);
    if (cfg->cpu_evict_wb > HCC_HOST_EVICT_WB_QUEUED)
        return rnic_config_bad(field, "cpu_evict_wb", RNIC_EINVAL);
    if (cfg->cpu_load_bps > 8u * tb)
        return rnic_config_bad(field, "cpu_load_bps", RNIC_EINVAL);
    if (cfg->mba_level >= HCC_MBA_LEVELS)
        return rnic_config_bad(field, "mba_level", RNIC_EINVAL);
    if (cfg->ddio_lines > (1u << 26))
        return rnic_config_bad(field, "ddio_lines", RNIC_EINVAL);
    if (cfg->ddio_lines && (cfg->ddio_ways < 1u || cfg->ddio_ways > 64u || cfg->ddio_lines % cfg->ddio_ways))
        return rnic_config_bad(field, "ddio_ways", RNIC_EINVAL);
    if (cfg->cpu_evict_ppm > 1000000u)
        return rnic_config_bad(field, "cpu_evict_ppm", RNIC_EINVAL);
    if (cfg->rx_depth < 1u || cfg->rx_depth > (1u << 20))
        return rnic_config_bad(field, "rx_depth", RNIC_EINVAL);
    if (cfg->signal_depth < 1u || cfg->signal_depth > (1u << 20))
        return rnic_config_bad(field, "signal_depth", RNIC_EINVAL);
    return RNIC_OK;
}

typedef struct hcc__host_layout {
    size_t rx, out, sig, flight, ret, iio, mem, ddio, total;
} hcc__host_layout;

static bool hcc__host_layout_of(const hcc_host_config *cfg, hcc__host_layout *l)
{
    size_t off = 0;
    if (hcc_host_config_check(cfg, NULL) != RNIC_OK)
        return false;
    if (!rnic__mem_reserve(&off, cfg->rx_packets, sizeof(rnic_work), &l->rx) ||
        !rnic__mem_reserve(&off, cfg->rx_depth, sizeof(rnic_work), &l->out) ||
        !rnic__mem_reserve(&off, cfg->signal_depth, sizeof(rnic_work), &l->sig) ||
        !rnic__mem_reserve(&off, cfg->iio_lines, sizeof(hcc__host_line), &l->flight) ||
        !rnic__mem_reserve(&off, cfg->iio_lines, sizeof(hcc__host_ret), &l->ret) ||
        !rnic__mem_reserve(&off, cfg->iio_lines, sizeof(hcc__host_line), &l->iio) ||
        !rnic__mem_reserve(&off, cfg->mem_queue, sizeof(hcc__host_mreq), &l->mem) ||
        !rnic__mem_reserve(&off, cfg->ddio_lines, sizeof(uint64_t), &l->ddio))
        return false;
    l->total = off;
    return true;
}

HCC_API size_t hcc_host_mem_size(const hcc_host_config *cfg)
{
    hcc__host_layout l;
    return hcc__host_layout_of(cfg, &l) ? l.total : 0;
}

HCC_API rnic_err hcc_host_init(hcc_host *h, const hcc_host_config *cfg, void *mem, size_t size)
{
    hcc__host_layout l;
    unsigned char *m = (unsigned char *)mem;
    uint64_t lat;
    if (!h || !cfg || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || !hcc__host_layout_of(cfg, &l))
        return RNIC_EINVAL;
    if (size < l.total)
        return RNIC_ENOSPC;
    RNIC_MEMSET(h, 0, sizeof *h);
    RNIC_MEMSET(mem, 0, l.total);
    h->cfg = *cfg;
    h->now = cfg->start_cycle;
    h->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_HCC_HOST;
    rnic_trace_set(&h->trace, cfg->trace, cfg->trace_user);
    (void)rnic_ring_init(&h->rx, sizeof(rnic_work), cfg->rx_packets, m + l.rx, (size_t)cfg->rx_packets * sizeof(rnic_work));
    (void)rnic_ring_init(&h->out, sizeof(rnic_work), cfg->rx_depth, m + l.out, (size_t)cfg->rx_depth * sizeof(rnic_work));
    (void)rnic_ring_init(&h->sig, sizeof(rnic_work), cfg->signal_depth, m + l.sig, (size_t)cfg->signal_depth * sizeof(rnic_work));
    (void)rnic_ring_init(&h->flight_q, sizeof(hcc__host_line), cfg->iio_lines, m + l.flight,
                         (size_t)cfg->iio_lines * sizeof(hcc__host_line));
    (void)rnic_ring_init(&h->ret_q, sizeof(hcc__host_ret), cfg->iio_lines, m + l.ret,
                         (size_t)cfg->iio_lines * sizeof(hcc__host_ret));
    (void)rnic_ring_init(&h->iio_q, sizeof(hcc__host_line), cfg->iio_lines, m + l.iio,
                         (size_t)cfg->iio_lines * sizeof(hcc__host_line));
    (void)rnic_ring_init(&h->mem_q, sizeof(hcc__host_mreq), cfg->mem_queue, m + l.mem,
                         (size_t)cfg->mem_queue * sizeof(hcc__host_mreq));
    h->ddio = cfg->ddio_lines ? (uint64_t *)(void *)(m + l.ddio) : NULL;
    h->ddio_sets = cfg->ddio_lines ? cfg->ddio_lines / cfg->ddio_ways : 0;
    lat = rnic_ns_to_cycles(cfg->pcie_latency_ns, cfg->clock_hz); /* nearest, an exact half up */
    h->lat = lat;
    h->credits = cfg->iio_lines;
    h->pcie_tok = (int64_t)cfg->pcie_bps;
    h->mem_tok = (int64_t)cfg->mem_bps;
    h->mba_level = cfg->mba_level;
    h->cpu_load = cfg->cpu_load_bps;
    return RNIC_OK;
}

/* One cycle, downstream first (so a hand-off takes one cycle):
 * 1 memory controller, 2 CPU traffic, 3 DDIO write-backs of CPU evictions, 4 IIO,
 * 5 PCIe (credit returns, arrivals, writes), 6 RX buffer (PFC); then the occupancy counter. */
static void hcc__host_mem_materialize(hcc_host *h);
HCC_API void hcc_host_tick(hcc_host *h)
{
    if (!h)
        return;
    if (h->paused)
        h->stats.pause_cycles++;
    if (h->mem_q_virtual)
        hcc__host_mem_materialize(h);
    hcc__host_mem_step(h);
    hcc__host_cpu_step(h);
    if (h->ddio)
        hcc__host_ddio_step(h);
    hcc__host_iio_step(h);
    hcc__host_pcie_step(h);
    hcc__host_rx_step(h);
    h->iio_cum = (h->iio_cum + h->iio_q.count + h->iio_at_mem) & HCC__HOST_CUM_MASK;
    h->stats.cycles++;
    h->now++;
}

static uint64_t hcc__host_cpu_rate_now(const hcc_host *h)
{
    uint64_t cap = hcc__host_mba_bps[h->mba_level];
    return h->cpu_load < cap ? h->cpu_load : cap;
}

/* CPU traffic alone (docs/hostcc_host.md, "CPU traffic alone"): nothing of the RNIC's is in the
 * host -- no packet, PCIe write or credit in flight, IIO line, owed write-back or non-CPU memory
 * request, and no valid DDIO line a CPU fill could evict. A tick then moves only the memory and
 * CPU token buckets, the queue of CPU lines (alternating reads and writes) and their counters;
 * hcc__host_cpu_span does that without the queue's per-line pushes and pops, and next_event
 * leaves such traffic out: nothing the ports or the RNIC see changes. */
static bool hcc__host_cpu_only(const hcc_host *h)
{
    return h->rx.count == 0 && h->flight_q.count == 0 && h->ret_q.count == 0 && h->iio_q.count == 0 &&
           h->iio_at_mem == 0 && h->iio_wb_evicted == 0 && h->cpu_wb_pending == 0 && h->mem_other == 0 &&
           (!h->ddio || h->ddio_valid == 0 || h->cfg.cpu_evict_ppm == 0);
}

/* CPU lines requested in the first n cycles from a bucket at ct (<= 0, > -cost) gaining r a
 * cycle, when the window never binds: the cap never acts (ct stays <= 0), so after n cycles the
 * tokens gained are ct + n r and each request took cost of them, leaving at most 0. */
static uint64_t hcc__host_cpu_requests(int64_t ct, int64_t r, int64_t cost, uint64_t n)
{
    int64_t t = ct + (int64_t)n * r;
    return t > 0 ? rnic_udiv64((uint64_t)t + (uint64_t)cost - 1u, (uint64_t)cost) : 0;
}

/* `k` ticks of CPU traffic alone (hcc__host_cpu_only): steps 1 and 2 of every tick on the queue's
 * length and its head's type; the lines left in the queue written back to it at the end. */
static void hcc__host_cpu_span(hcc_host *h, uint64_t k)
{
    int64_t R = (int64_t)h->cfg.mem_bps, cost = hcc__host_line_cost(h), mt = h->mem_tok, ct = h->cpu_tok, r;
    uint64_t cap = hcc__host_mba_bps[h->mba_level], rate = h->cpu_load < cap ? h->cpu_load : cap;
    uint64_t served = 0, pushed = 0, reads = 0, i, slots, adv;
    uint32_t c = h->mem_q.count, hw = h->mem_q.high_water;
    uint32_t lim = h->cfg.cpu_outstanding < h->mem_q.capacity ? h->cfg.cpu_outstanding : h->mem_q.capacity;
    bool next_write = h->cpu_write_next, head_write = false;
    /* the period jump: a tick's outcome depends only on (mt, ct, c, head_write, next_write), so
     * once that state repeats the cycles between repeat exactly; whole periods are added at once.
     * Brent's search: the state is saved at cycles 1, 2, 4, ... of the span and compared after
     * each cycle until the next save. */
    int64_t s_mt = mt, s_ct = ct;
    uint32_t s_c = c;
    bool s_hw = false, s_nw = next_write, jumped = false;
    uint64_t s_at = 0, s_len = 1, s_served = 0, s_reads = 0, s_pushed = 0;
    /* Memory that serves m lines a cycle, m the most the CPU asks for in one (its tokens never
     * exceed rate): from a cycle that starts with at most m lines queued, memory tokens >= 0 and CPU
     * tokens in (-cost, 0], every cycle serves all the lines queued at its start (the ones the
     * cycle before asked for) with R left over, and the CPU's requests follow its bucket alone
     * (hcc__host_cpu_requests; the window, lim >= m, never binds). The rest of the span is then
     * counted in closed form, in chunks that keep n * rate below 2^63. */
    uint64_t m = rate ? rnic_udiv64(rate + (uint64_t)cost - 1u, (uint64_t)cost) : 0;
    bool closed = rate && (uint64_t)R >= m * (uint64_t)cost && lim >= m;
    if (c)
        head_write = h->mem_q_virtual ? h->mem_q_head_write
                                      : ((const hcc__host_mreq *)rnic_ring_peek(&h->mem_q))->type == HCC__HOST_M_CPU_WRITE;
    s_hw = head_write;
    r = (int64_t)rate;
    for (i = 0; i < k; i++) {
        uint64_t lines;
        if (closed && mt >= 0 && ct <= 0 && ct > -cost && c <= m) {
            uint64_t left = k - i;
            while (left) {
                uint64_t n = left < ((uint64_t)1 << 19) ? left : ((uint64_t)1 << 19);
                uint64_t all = hcc__host_cpu_requests(ct, r, cost, n);
                uint64_t before = hcc__host_cpu_requests(ct, r, cost, n - 1u);
                /* the final cycle serves what the one before it asked for (the first: the queue) */
                uint64_t served_last = n >= 2u ? before - hcc__host_cpu_requests(ct, r, cost, n - 2u) : c;
                uint64_t last = all - before, asked_served = all - last, most;
                reads += head_write ? c / 2u : (c + 1u) / 2u;
                reads += next_write ? asked_served / 2u : (asked_served + 1u) / 2u;
                served += c + asked_served;
                pushed += all;
                /* each cycle asks for m - 1 or m lines: all - n (m - 1) of them asked for m */
                most = all > n * (m - 1u) ? m : m - 1u;
                if (most > hw)
                    hw = (uint32_t)most;
                head_write = next_write ^ ((asked_served & 1u) != 0);
                next_write ^= (all & 1u) != 0;
                ct = ct + (int64_t)n * r - (int64_t)all * cost;
                mt = R - (int64_t)served_last * cost;
                c = (uint32_t)last;
                left -= n;
            }
            break;
        }
        mt = mt + R > R ? R : mt + R;
        if (mt > 0 && c) { /* step 1: head lines are served while the tokens stay positive */
            lines = rnic_udiv64((uint64_t)mt + (uint64_t)cost - 1u, (uint64_t)cost);
            if (lines > c)
                lines = c;
            reads += head_write ? lines / 2u : (lines + 1u) / 2u; /* reads and writes alternate */
            head_write ^= (lines & 1u) != 0;
            c -= (uint32_t)lines;
            served += lines;
            mt -= (int64_t)lines * cost;
        }
        ct = ct + r > r ? r : ct + r;
        if (ct > 0 && c < lim) { /* step 2: CPU lines enter the queue while tokens and window allow */
            lines = rnic_udiv64((uint64_t)ct + (uint64_t)cost - 1u, (uint64_t)cost);
            if (lines > lim - c)
                lines = lim - c;
            if (c == 0)
                head_write = next_write;
            next_write ^= (lines & 1u) != 0;
            c += (uint32_t)lines;
            pushed += lines;
            ct -= (int64_t)lines * cost;
        }
        if (c > hw)
            hw = c;
        if (jumped)
            continue;
        if (mt == s_mt && ct == s_ct && c == s_c && head_write == s_hw && next_write == s_nw) {
            uint64_t period = i + 1u - s_at, q = rnic_udiv64(k - (i + 1u), period);
            served += q * (served - s_served);
            reads += q * (reads - s_reads);
            pushed += q * (pushed - s_pushed);
            i += q * period;
            jumped = true;
        } else if (i + 1u - s_at == s_len) {
            s_at = i + 1u;
            s_len *= 2u;
            s_mt = mt, s_ct = ct, s_c = c, s_hw = head_write, s_nw = next_write;
            s_served = served, s_reads = reads, s_pushed = pushed;
        }
    }
    h->mem_tok = mt;
    h->cpu_tok = ct;
    h->cpu_rate = rate;
    h->cpu_write_next = next_write;
    h->cpu_out = c;
    h->stats.mem_lines_cpu_read += reads;
    h->stats.mem_lines_cpu_write += served - reads;
    h->stats.cpu_bytes_served += 64u * served;
    if (h->ddio && h->cfg.cpu_evict_ppm && served) { /* each served line's share of an eviction: no valid line to evict */
        uint64_t hi, lo, ev, rem;
        rnic_mul64x64(served, h->cfg.cpu_evict_ppm, &hi, &lo);
        lo += h->evict_acc;
        hi += lo < h->evict_acc;
        ev = rnic_udiv128_64(hi, lo, 1000000u, &rem);
        h->evict_acc = (uint32_t)rem;
        ev = h->evict_set + (ev - rnic_udiv64(ev, h->ddio_sets) * h->ddio_sets); /* below 2 x ddio_sets */
        h->evict_set = (uint32_t)(ev >= h->ddio_sets ? ev - h->ddio_sets : ev);
    }
    /* the queue: the lines served leave from the head, the new ones join at the tail; its slots
     * are not written (mem_q_virtual: c CPU lines alternating from head_write) until a tick */
    /* every line served moved the head one slot (an original line or a new one) */
    slots = h->mem_q.capacity;
    adv = served - rnic_udiv64(served, slots) * slots + h->mem_q.head;
    h->mem_q.head = (uint32_t)(adv >= slots ? adv - slots : adv);
    h->mem_q.count = c;
    h->mem_q.pushed += pushed;
    h->mem_q.popped += served;
    if (hw > h->mem_q.high_water)
        h->mem_q.high_water = hw;
    h->mem_q_virtual = c != 0;
    h->mem_q_head_write = head_write;
}

/* The memory queue's slots, written before a tick reads them (hcc__host_cpu_span left them out). */
static void hcc__host_mem_materialize(hcc_host *h)
{
    hcc__host_mreq m;
    uint32_t i;
    bool w = h->mem_q_head_write;
    RNIC_MEMSET(&m, 0, sizeof m);
    m.bytes = 64u;
    for (i = 0; i < h->mem_q.count; i++, w = !w) {
        m.type = w ? HCC__HOST_M_CPU_WRITE : HCC__HOST_M_CPU_READ;
        RNIC_MEMCPY(rnic__ring_slot(&h->mem_q, i), &m, sizeof m);
    }
    h->mem_q_virtual = false;
}

/* The next cycle at which a tick changes anything; *never when nothing will (kept apart from an
 * event due at cycle 2^64 - 1, which hcc_host_next_event cannot tell from RNIC_NEVER). */
static uint64_t hcc__host_next(const hcc_host *h, bool *never)
{
    uint64_t next = RNIC_NEVER;
    uint32_t b, lines;
    bool last, have = false;
    int due;
    *never = false;
    if ((h->mem_q.count || h->iio_q.count || h->cpu_wb_pending || hcc__host_cpu_rate_now(h) || h->cpu_tok > 0) &&
        !hcc__host_cpu_only(h))
        return h->now;
    due = hcc__host_pfc_due(h);
    if (due != 0 && !rnic_ring_full(&h->sig))
        return h->now;
    if (h->flight_q.count) {
        next = ((const hcc__host_line *)rnic_ring_peek(&h->flight_q))->cycle;
        have = true;
    }
    if (h->ret_q.count) {
        uint64_t ret = ((const hcc__host_ret *)rnic_ring_peek(&h->ret_q))->cycle;
        if (!have || (int64_t)(ret - next) < 0) {
            next = ret;
            have = true;
        }
    }
    if (have && (int64_t)(next - h->now) <= 0)
        return h->now;
    if (hcc__host_next_write(h, &b, &lines, &last) && !(last && rnic_ring_full(&h->out))) {
        uint64_t at;
        if (lines == 0)
            return h->now; /* a probe at the head passes now */
        if (lines > h->credits)
            return h->now; /* stall cycles are counted: tick (credits come back meanwhile) */
        /* first tick j >= 0 with pcie_tok + (j + 1) * pcie_bps > 0 */
        at = hcc__host_link_free_at(h, h->pcie_tok);
        if (!have || (int64_t)(at - next) < 0)
            next = at;
        have = true;
    }
    *never = !have;
    return next;
}

HCC_API uint64_t hcc_host_next_event(const hcc_host *h)
{
    bool never;
    uint64_t next;
    if (!h)
        return RNIC_NEVER;
    next = hcc__host_next(h, &never);
    return never ? RNIC_NEVER : next;
}

/* hcc_host_next_output: the first cycle at which a tick may put a record on the rx or signal
 * port or emit a trace event, as a lower bound; *never when only new input (a push, a pop, a
 * register write) can bring one. The rest of a tick -- the memory controller, CPU traffic,
 * DDIO, the IIO, credit returns, arrivals, and posted writes that are not a packet's last --
 * shows nowhere but in the statistics and the counters. For the head packet's writes, in order:
 * a write cannot go before the link's tokens, gaining pcie_bps a cycle from now, cover the
 * writes before it (the cap at one cycle's worth only delays it); the ones that show are its
 * last (the record), one that may find too few credits (its first stall cycle is traced; credits
 * fall only by these writes) and one that takes a paused buffer down to xon (the RESUME). */
#define HCC__HOST_OUTPUT_SCAN 64u /* writes looked at; the last one's bound holds for those after it */
static uint64_t hcc__host_output_next(const hcc_host *h, bool *never)
{
    const rnic_work *w;
    int64_t spent = 0;
    uint64_t at = h->now;
    uint32_t i, used = 0, issued = h->head_issued;
    int due = hcc__host_pfc_due(h);
    *never = false;
    if (due != 0 && !rnic_ring_full(&h->sig))
        return h->now;
    w = (const rnic_work *)rnic_ring_peek(&h->rx);
    if (!w || ((w->flags & HCC_WORK_PROBE) && rnic_ring_full(&h->out))) {
        *never = true; /* nothing to write, or a probe waiting for a pop */
        return RNIC_NEVER;
    }
    if (w->flags & HCC_WORK_PROBE)
        return h->now;
    for (i = 0; i < HCC__HOST_OUTPUT_SCAN; i++) {
        uint32_t lines, b = hcc__host_write_of(h, w, issued, &lines);
        at = hcc__host_link_free_at(h, h->pcie_tok - spent);
        if (b == w->len - issued) {
            if (rnic_ring_full(&h->out)) {
                *never = true; /* the last write waits for a pop: it neither goes nor stalls */
                return RNIC_NEVER;
            }
            return at;
        }
        if ((i > 0 || !h->head_stalled) && used + lines > h->credits)
            return at;
        if (h->cfg.pfc && h->paused && h->rx_bytes - (issued - h->head_issued) - b <= h->cfg.xon_bytes)
            return at;
        spent += hcc__host_tlp_cost(h, b);
        used += lines;
        issued += b;
    }
    return at;
}

HCC_API uint64_t hcc_host_next_output(const hcc_host *h)
{
    bool never = true;
    uint64_t next = h ? hcc__host_output_next(h, &never) : RNIC_NEVER;
    return never ? RNIC_NEVER : next;
}

/* Run `k` cycles in which next_event says nothing happens: only time-driven state moves. */
static void hcc__host_skip(hcc_host *h, uint64_t k)
{
    uint64_t occ = (uint64_t)h->iio_q.count + h->iio_at_mem;
    int64_t r = (int64_t)h->cfg.pcie_bps, m = (int64_t)h->cfg.mem_bps;
    if (h->paused)
        h->stats.pause_cycles += k;
    h->iio_cum = (h->iio_cum + (occ * (k & HCC__HOST_CUM_MASK))) & HCC__HOST_CUM_MASK;
    /* tokens: min(tok + k r, r) without overflow */
    if (rnic_udiv64((uint64_t)(r - h->pcie_tok), (uint64_t)r) < k)
        h->pcie_tok = r;
    else
        h->pcie_tok = h->pcie_tok + (int64_t)k * r > r ? r : h->pcie_tok + (int64_t)k * r;
    if (h->mem_q.count || hcc__host_cpu_rate_now(h)) { /* CPU traffic alone (next_event said so) */
        hcc__host_cpu_span(h, k);
    } else {
        if (rnic_udiv64((uint64_t)(m - h->mem_tok), (uint64_t)m) < k)
            h->mem_tok = m;
        else
            h->mem_tok = h->mem_tok + (int64_t)k * m > m ? m : h->mem_tok + (int64_t)k * m;
        if (h->cpu_tok > 0)
            h->cpu_tok = 0; /* rate 0 (next_event would have said now otherwise) */
        h->cpu_rate = 0;
    }
    h->stats.cycles += k;
    h->now += k;
}

/* rnic__advance's callbacks: skip the cycles before the next event (all of `left` when there is
 * none), 0 when it is now; the rx and the signal port each stop advance when they fill. */
static uint64_t hcc__host_skip_fn(void *x, uint64_t left)
{
    hcc_host *h = (hcc_host *)x;
    bool never;
    uint64_t next = hcc__host_next(h, &never), span;
    if (never)
        span = left;
    else /* 0 when the event is now (or, wrap-safe, passed) */
        span = (int64_t)(next - h->now) <= 0 ? 0 : (next - h->now < left ? next - h->now : left);
    if (span)
        hcc__host_skip(h, span);
    return span;
}
static void hcc__host_tick_fn(void *x) { hcc_host_tick((hcc_host *)x); }
static uint32_t hcc__host_full(const void *x)
{
    const hcc_host *h = (const hcc_host *)x;
    return (rnic_ring_full(&h->out) ? 1u : 0u) | (rnic_ring_full(&h->sig) ? 2u : 0u);
}

HCC_API uint64_t hcc_host_advance(hcc_host *h, uint64_t cycles)
{
    return h ? rnic__advance(h, cycles, hcc__host_skip_fn, hcc__host_tick_fn, hcc__host_full, 0u) : 0;
}

HCC_API uint64_t hcc_host_advance_to(hcc_host *h, uint64_t cycle)
{
    return h ? hcc_host_advance(h, rnic_cycles_until(h->now, cycle)) : 0;
}

HCC_API uint64_t hcc_host_now(const hcc_host *h) { return h ? h->now : 0; }
HCC_API const hcc_host_stats *hcc_host_get_stats(const hcc_host *h) { return h ? &h->stats : NULL; }
HCC_API uint64_t hcc_host_iio_occupancy_cum(const hcc_host *h) { return h ? h->iio_cum : 0; }
HCC_API uint32_t hcc_host_iio_occupancy(const hcc_host *h) { return h ? h->iio_q.count + h->iio_at_mem : 0; }
HCC_API uint32_t hcc_host_rx_occupancy(const hcc_host *h) { return h ? h->rx_bytes : 0; }
HCC_API uint32_t hcc_host_pcie_credits(const hcc_host *h) { return h ? h->credits : 0; }
HCC_API bool hcc_host_paused(const hcc_host *h) { return h && h->paused; }

HCC_API rnic_err hcc_host_set_ecn(hcc_host *h, bool on)
{
    if (!h)
        return RNIC_EINVAL;
    h->ecn = on;
    return RNIC_OK;
}
