/* hcc_host (hostcc.h): the receiving host's data path against independent expectations
 * (docs/hostcc_model.md "The receiving host", docs/hostcc_host.md). */
#define HCC_IMPLEMENTATION
#include "hostcc.h"
#include "test.h"

#define CLK 250000000ull
#define MB 1000000ull
#define GBPS(x) (8u * (uint64_t)((x) * 1e9 + 0.5)) /* GB/s -> b/s */

static uint64_t rng_s = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}
static uint64_t rnd_below(uint64_t n) { return rnd() % n; }

typedef struct eng {
    hcc_host h;
    void *mem;
} eng;

static eng *mk(const hcc_host_config *cfg)
{
    eng *e = (eng *)calloc(1, sizeof *e);
    size_t n = hcc_host_mem_size(cfg);
    CHECK(n > 0);
    e->mem = malloc(n ? n : 8);
    CHECK_EQ(hcc_host_init(&e->h, cfg, e->mem, n), RNIC_OK);
    return e;
}
static void rm(eng *e)
{
    free(e->mem);
    free(e);
}

static rnic_work pkt(uint32_t flow, uint64_t addr, uint32_t len, uint64_t tag)
{
    rnic_work w;
    memset(&w, 0, sizeof w);
    w.flow = flow;
    w.addr = addr;
    w.len = len;
    w.tag = tag;
    w.flags = RNIC_WORK_FIRST | RNIC_WORK_LAST;
    return w;
}

/* lines a write [a, a+b) touches */
static uint64_t ref_lines(uint64_t a, uint64_t b) { return ((a + b - 1) >> 6) - (a >> 6) + 1; }
/* posted writes and lines of a packet: split at pcie_mps boundaries of the address */
static void ref_split(uint64_t addr, uint32_t len, uint32_t mps, uint64_t *writes, uint64_t *lines)
{
    uint64_t a = addr, end = addr + len;
    while (a < end) {
        uint64_t b = mps - a % mps;
        if (b > end - a)
            b = end - a;
        (*writes)++;
        *lines += ref_lines(a, b);
        a += b;
    }
}

/* ---- config ---- */
static void test_config(void)
{
    hcc_host_config c;
    const char *f = NULL;
    hcc_host_config_default(&c);
    CHECK_EQ(c.clock_hz, 250000000u);
    CHECK_EQ(c.pcie_bps, 128000000000ull);
    CHECK_EQ(c.mem_bps, 8u * 33200000000ull);
    CHECK_EQ(c.ddio_lines, 4u * 1024 * 1024 / 64);
    CHECK_EQ(c.pcie_mps, 256);
    CHECK_EQ(c.pcie_tlp_overhead, 24);
    CHECK_EQ(c.pcie_latency_ns, 500);
    CHECK(c.pfc);
    CHECK_EQ(hcc_host_config_check(&c, &f), RNIC_OK);
    c.mba_level = 5;
    CHECK_EQ(hcc_host_config_check(&c, &f), RNIC_EINVAL);
    CHECK(f && strcmp(f, "mba_level") == 0);
    CHECK_EQ(hcc_host_mem_size(&c), 0);
    hcc_host_config_default(&c);
    c.xon_bytes = c.xoff_bytes;
    CHECK_EQ(hcc_host_config_check(&c, &f), RNIC_EINVAL);
    CHECK(f && strcmp(f, "xon_bytes") == 0);
    hcc_host_config_default(&c);
    c.ddio_ways = 3; /* 65536 % 3 != 0 */
    CHECK_EQ(hcc_host_config_check(&c, &f), RNIC_EINVAL);
    CHECK(f && strcmp(f, "ddio_ways") == 0);
    hcc_host_config_default(&c);
    c.iio_lines = 4; /* a 256 B write may touch 5 lines */
    CHECK_EQ(hcc_host_config_check(&c, &f), RNIC_EINVAL);
    hcc_host_config_default(&c);
    {
        hcc_host h;
        size_t n = hcc_host_mem_size(&c);
        void *m = malloc(n);
        CHECK_EQ(hcc_host_init(&h, &c, m, n - 8), RNIC_ENOSPC);
        CHECK_EQ(hcc_host_init(&h, &c, (char *)m + 4, n - 8), RNIC_EINVAL);
        CHECK_EQ(hcc_host_init(NULL, &c, m, n), RNIC_EINVAL);
        CHECK_EQ(hcc_host_init(&h, &c, m, n), RNIC_OK);
        CHECK_EQ(hcc_host_pcie_credits(&h), c.iio_lines);
        CHECK_EQ(hcc_host_next_event(&h), RNIC_NEVER);
        free(m);
    }
}

/* ---- one packet on an idle host: the PCIe serialisation, exactly ----
 * Reference (docs/hostcc_host.md, PCIe): the link earns pcie_bps bit-tokens per cycle starting
 * with the packet's arrival cycle; write k (0-based) of a packet that found the link idle starts
 * in the first cycle j with (j + 1) x pcie_bps > k x cost, cost = (256 + 24) x 8 x clock_hz. The
 * packet's record leaves with the last write; its lines reach the IIO pcie_latency later. */
static void test_single_packet(void)
{
    hcc_host_config c;
    eng *e;
    rnic_work w, o;
    uint64_t cost = (256 + 24) * 8 * CLK, j = 0, lat = 125, t0;
    int k;
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    c.start_cycle = 1000;
    e = mk(&c);
    w = pkt(7, 0x100000, 1024, 42);
    CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
    CHECK_EQ(hcc_host_rx_occupancy(&e->h), 1024);
    t0 = hcc_host_now(&e->h);
    while ((j + 1) * c.pcie_bps <= 3 * cost)
        j++;
    CHECK_EQ(j, 13);
    for (k = 0; k < 400; k++) {
        hcc_host_tick(&e->h);
        if (hcc_host_now(&e->h) - 1 - t0 < j)
            CHECK_EQ(hcc_host_peek_rx(&e->h, &o), RNIC_EEMPTY);
        /* the first write's 4 lines arrive at the IIO at t0 + lat */
        if (hcc_host_now(&e->h) - 1 == t0 + lat - 1)
            CHECK_EQ(hcc_host_get_stats(&e->h)->iio_lines_in, 0);
        if (hcc_host_now(&e->h) - 1 == t0 + lat)
            CHECK_EQ(hcc_host_get_stats(&e->h)->iio_lines_in, 4);
    }
    CHECK_EQ(hcc_host_pop_rx(&e->h, &o), RNIC_OK);
    CHECK_EQ(o.cycle, t0 + j);
    CHECK_EQ(o.aux, j);
    CHECK_EQ(o.offset, j); /* it arrived into an empty buffer: at the head from its arrival */
    CHECK_EQ(o.tag, 42);
    CHECK_EQ(o.flow, 7);
    CHECK_EQ(o.len, 1024);
    CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_writes, 4);
    CHECK_EQ(hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio, 1024);
    CHECK_EQ(hcc_host_get_stats(&e->h)->mem_lines_iio, 16);
    CHECK_EQ(hcc_host_pcie_credits(&e->h), c.iio_lines);
    CHECK_EQ(hcc_host_iio_occupancy(&e->h), 0);
    CHECK_EQ(hcc_host_next_event(&e->h), RNIC_NEVER);
    /* an unaligned packet: 1000 B at 0x...40 -> writes of 192, 256, 256, 256, 40: 5 writes, 16 lines */
    w = pkt(1, 0x200040, 1000, 43);
    CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
    hcc_host_advance(&e->h, 400);
    CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_writes, 9);
    CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_lines, 32);
    CHECK_EQ(hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio, 2024);
    /* two packets at once: the second reaches the head when the first's last write is issued, so
     * its offset (head -> last write) is its aux (arrival -> last write) minus the first's wait */
    {
        rnic_work o1, o2;
        uint64_t arrive = hcc_host_now(&e->h);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o), RNIC_OK); /* the unaligned packet */
        CHECK_EQ(o.tag, 43);
        w = pkt(2, 0x300000, 1024, 44);
        CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        w = pkt(3, 0x400000, 64, 45);
        CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        hcc_host_advance(&e->h, 400);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o1), RNIC_OK);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o2), RNIC_OK);
        CHECK_EQ(o1.offset, o1.aux);
        CHECK_EQ(o1.cycle - o1.aux, arrive);
        CHECK_EQ(o2.cycle - o2.aux, arrive);
        CHECK_EQ(o2.cycle - o2.offset, o1.cycle);
        CHECK(o2.offset < o2.aux);
    }
    /* a probe between two packets: leaves in order, writes nothing (no TLP, no credit, no line),
     * frees its buffer bytes, and passes within a cycle of reaching the head */
    {
        rnic_work o1, op, o3;
        hcc_host_stats before = *hcc_host_get_stats(&e->h);
        w = pkt(4, 0x500000, 1024, 46);
        CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        w = pkt(4, 0x600000, 64, 47);
        w.flags |= HCC_WORK_PROBE;
        CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        w = pkt(4, 0x700000, 1024, 48);
        CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        CHECK_EQ(hcc_host_rx_occupancy(&e->h), 2112);
        hcc_host_advance(&e->h, 400);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o1), RNIC_OK);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &op), RNIC_OK);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o3), RNIC_OK);
        CHECK_EQ(o1.tag, 46);
        CHECK_EQ(op.tag, 47);
        CHECK(op.flags & HCC_WORK_PROBE);
        CHECK_EQ(o3.tag, 48);
        CHECK_EQ(op.cycle - op.offset, o1.cycle);
        if (op.offset > 1)
            fprintf(stderr, "probe offset %u, aux %u\n", op.offset, op.aux);
        CHECK(op.offset <= 1);
        CHECK_EQ(hcc_host_get_stats(&e->h)->probes - before.probes, 1);
        CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_writes - before.pcie_writes, 8); /* 4 + 4 writes of 256 B */
        CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_lines - before.pcie_lines, 32);
        CHECK_EQ(hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio - before.bytes_to_memory_or_ddio, 2048);
        CHECK_EQ(hcc_host_get_stats(&e->h)->packets_out - before.packets_out, 3);
        CHECK_EQ(hcc_host_rx_occupancy(&e->h), 0);
        CHECK_EQ(hcc_host_pcie_credits(&e->h), c.iio_lines);
    }
    rm(e);
}

/* Offer `gbps` of `len`-byte packets; the sender stops while paused (PFC) and resumes at line
 * rate. Returns packets offered. `addr_span` = the receive buffer footprint. */
typedef struct run_out {
    uint64_t out_bytes, out_pkts, delay_sum, pushed_bytes;
    uint64_t pause_seen, resume_seen;
    int64_t tok; /* the sender's tokens, bits x clock_hz */
} run_out;

static void drain_out(eng *e, run_out *r)
{
    rnic_work o;
    while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK) {
        r->out_bytes += o.len;
        r->out_pkts++;
        r->delay_sum += o.aux;
    }
    while (hcc_host_pop_signal(&e->h, &o) == RNIC_OK) {
        if ((o.flags & HCC_HOST_WORK_PAUSE))
            r->pause_seen++;
        else
            r->resume_seen++;
    }
}

static void offer(eng *e, uint64_t cycles, uint64_t bps, uint32_t len, uint64_t footprint, uint64_t *addr_cur,
                  run_out *r)
{
    /* sender tokens in bits x clock_hz: gains bps per cycle; a packet costs len x 8 x clk */
    int64_t tok = r->tok;
    uint64_t i, cost = (uint64_t)len * 8 * CLK;
    for (i = 0; i < cycles; i++) {
        if (!hcc_host_paused(&e->h)) {
            tok += (int64_t)bps;
            if (tok > (int64_t)cost)
                tok = (int64_t)cost;
            if (tok > 0) {
                rnic_work w = pkt(0, *addr_cur, len, 0);
                if (hcc_host_push_rx(&e->h, &w) == RNIC_OK) {
                    r->pushed_bytes += len;
                    *addr_cur += len;
                    if (*addr_cur >= footprint)
                        *addr_cur = 0;
                }
                tok -= (int64_t)cost;
            }
        }
        hcc_host_tick(&e->h);
        drain_out(e, r);
    }
    r->tok = tok;
}

/* ---- 100 Gb/s, no CPU load: no stall, no pause, delay = the serialisation of one packet ---- */
static void test_100g_no_cpu(void)
{
    int ddio;
    for (ddio = 0; ddio < 2; ddio++) {
        hcc_host_config c;
        eng *e;
        run_out r;
        uint64_t addr = 0;
        const hcc_host_stats *s;
        hcc_host_config_default(&c);
        if (!ddio)
            c.ddio_lines = 0;
        e = mk(&c);
        memset(&r, 0, sizeof r);
        offer(e, 200000, 100000000000ull, 1024, 1 << 20, &addr, &r);
        s = hcc_host_get_stats(&e->h);
        CHECK_EQ(s->pcie_stall_cycles, 0);
        CHECK_EQ(s->pcie_stalled_writes, 0);
        CHECK_EQ(s->pfc_pauses, 0);
        CHECK_EQ(s->dropped, 0);
        /* 100 Gb/s x 200000 cycles / 250 MHz = 2.5 MB offered, 2441 packets; all but at most one out */
        CHECK(r.out_pkts + 1 >= 2500000 / 1024);
        /* each packet finds an idle link (20.48 cycles apart, 17.5 to serialise): delay 13 */
        CHECK_EQ(s->delay_max, 13);
        CHECK_EQ(r.delay_sum, 13 * r.out_pkts);
        if (ddio) /* 1 MB footprint in 4 MB of DDIO, no CPU: compulsory misses only */
            CHECK_EQ(s->ddio_misses, (1 << 20) / 64);
        rm(e);
    }
}

/* ---- conservation over random workloads ---- */
static void check_invariants(eng *e, const hcc_host_config *c)
{
    const hcc_host_stats *s = hcc_host_get_stats(&e->h);
    uint64_t occ = hcc_host_iio_occupancy(&e->h);
    CHECK_EQ(s->bytes_in, s->pcie_bytes + hcc_host_rx_occupancy(&e->h));
    CHECK_EQ(s->iio_lines_in, s->iio_lines_freed + occ);
    /* credits at the RNIC + lines on the link + lines in the IIO + credits on their way back */
    CHECK_EQ(hcc_host_pcie_credits(&e->h) + (s->pcie_lines - s->iio_lines_in) + occ +
                 (s->iio_lines_freed - s->credits_returned),
             c->iio_lines);
    CHECK(occ <= c->iio_lines);
    CHECK(s->iio_max <= c->iio_lines);
}

static void test_conservation(void)
{
    int round;
    rng_s = test_seed(12345);
    for (round = 0; round < 6 && TEST_FAILS() == 0; round++) {
        hcc_host_config c;
        eng *e;
        uint64_t offered = 0, offered_bytes = 0, ref_writes = 0, ref_lines_sum = 0, i, popped = 0, popped_bytes = 0;
        rnic_work o;
        const hcc_host_stats *s;
        hcc_host_config_default(&c);
        c.pfc = round & 1;
        c.rx_buffer_bytes = 64 * 1024;
        c.xoff_bytes = 48 * 1024;
        c.xon_bytes = 32 * 1024;
        c.cnp_bytes = 16 * 1024;
        c.ddio_lines = round < 2 ? 0 : (round < 4 ? 1024 : 256);
        c.ddio_ways = round < 4 ? 4 : 1;
        c.mem_bps = GBPS(8 + rnd_below(20));
        c.iio_mem_credits = 1 + (uint32_t)rnd_below(c.iio_lines);
        c.mem_queue = 2 + (uint32_t)rnd_below(300);
        c.cpu_outstanding = 1 + (uint32_t)rnd_below(200);
        c.rx_depth = 4;
        e = mk(&c);
        for (i = 0; i < 60000; i++) {
            if (rnd_below(8) == 0) {
                rnic_work w = pkt((uint32_t)rnd_below(8), rnd_below(1 << 18), 1 + (uint32_t)rnd_below(9000), i);
                rnic_err err = hcc_host_push_rx(&e->h, &w);
                offered++;
                offered_bytes += w.len;
                if (err == RNIC_OK)
                    ref_split(w.addr, w.len, c.pcie_mps, &ref_writes, &ref_lines_sum);
                else
                    CHECK_EQ(err, RNIC_EBUSY);
            }
            if (rnd_below(5000) == 0)
                hcc_host_set_cpu_load(&e->h, GBPS(rnd_below(40)));
            if (rnd_below(5000) == 0)
                hcc_host_set_mba_level(&e->h, (uint32_t)rnd_below(5));
            hcc_host_tick(&e->h);
            if (rnd_below(3)) /* a slow consumer: the rx port fills now and then */
                while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK) {
                    popped++;
                    popped_bytes += o.len;
                }
            while (hcc_host_pop_signal(&e->h, &o) == RNIC_OK)
                ;
            if (i % 97 == 0)
                check_invariants(e, &c);
        }
        /* drain: no new packets, no CPU load */
        hcc_host_set_cpu_load(&e->h, 0);
        for (i = 0; i < 1000000 && hcc_host_next_event(&e->h) != RNIC_NEVER; i++) {
            hcc_host_advance(&e->h, 1000);
            while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK) {
                popped++;
                popped_bytes += o.len;
            }
            while (hcc_host_pop_signal(&e->h, &o) == RNIC_OK)
                ;
        }
        check_invariants(e, &c);
        s = hcc_host_get_stats(&e->h);
        CHECK_EQ(s->packets_in + s->dropped, offered);
        CHECK_EQ(s->bytes_in + s->dropped_bytes, offered_bytes);
        CHECK_EQ(s->errors.by_cause[RNIC_EBUSY], s->dropped);
        CHECK_EQ(s->bytes_to_memory_or_ddio, s->bytes_in); /* every accepted byte, exactly once */
        CHECK_EQ(popped, s->packets_in);
        CHECK_EQ(popped_bytes, s->bytes_in);
        CHECK_EQ(s->pcie_writes, ref_writes);
        CHECK_EQ(s->pcie_lines, ref_lines_sum);
        CHECK_EQ(s->iio_lines_in, ref_lines_sum);
        CHECK_EQ(s->iio_lines_freed, ref_lines_sum);
        CHECK_EQ(hcc_host_pcie_credits(&e->h), c.iio_lines);
        if (!c.ddio_lines)
            CHECK_EQ(s->mem_lines_iio, ref_lines_sum);
        else
            CHECK_EQ(s->ddio_hits + s->ddio_misses, ref_lines_sum);
        CHECK_EQ(s->mem_lines_cpu_read + s->mem_lines_cpu_write, s->cpu_bytes_served / 64);
        CHECK_EQ(s->mem_lines_writeback, s->ddio_writebacks);
        CHECK(s->dropped > 0 || c.pfc); /* the workload overloads the slow host */
        rm(e);
    }
}

/* Saturate the RNIC (4 KB packets whenever they fit, PFC off) against CPU load L; measure
 * rates over [warm, warm + span). */
static void saturate(hcc_host_config *c, uint64_t L, uint64_t warm, uint64_t span, double *rnic_GBps,
                     double *cpu_GBps)
{
    eng *e;
    uint64_t i, addr = 0, b0 = 0, c0 = 0;
    rnic_work o;
    const hcc_host_stats *s;
    c->pfc = false;
    c->cpu_load_bps = L;
    e = mk(c);
    s = hcc_host_get_stats(&e->h);
    for (i = 0; i < warm + span; i++) {
        if (i == warm) {
            b0 = s->bytes_to_memory_or_ddio;
            c0 = s->cpu_bytes_served;
        }
        if (hcc_host_space_rx(&e->h) >= 4096) {
            rnic_work w = pkt(0, addr, 4096, i);
            CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
            addr = (addr + 4096) % (1u << 24);
        }
        hcc_host_tick(&e->h);
        while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
            ;
    }
    *rnic_GBps = (double)(s->bytes_to_memory_or_ddio - b0) * CLK / span / 1e9;
    *cpu_GBps = (double)(s->cpu_bytes_served - c0) * CLK / span / 1e9;
    rm(e);
}

static bool within(double x, double ref, double tol) { return x >= ref * (1 - tol) && x <= ref * (1 + tol); }

/* ---- the memory share rule (docs/hostcc_host.md "Memory share"):
 * FCFS with windows: CPU = min(C, M W_cpu / (W_cpu + W_iio)), C = min(L, MBA cap);
 * RNIC = min(its offered share, M - CPU) when mem_queue >= W_cpu + W_iio. */
static void test_memory_share(void)
{
    hcc_host_config c;
    double rn, cpu, M = 33.2, ref_cpu;
    /* (a) the default windows bind: CPU 180 lines, IIO 64 lines */
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    saturate(&c, GBPS(30.3), 100000, 300000, &rn, &cpu);
    ref_cpu = M * 180.0 / (180 + 64);
    printf("  share (a): cpu %.3f (ref %.3f) rnic %.3f (ref %.3f) GB/s\n", cpu, ref_cpu, rn, M - ref_cpu);
    CHECK(within(cpu, ref_cpu, 0.02));
    CHECK(within(rn, M - ref_cpu, 0.02));
    /* (b) a deep CPU window: the CPU is an open-loop requester and gets all it offers */
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    c.cpu_outstanding = 1000;
    c.mem_queue = 1100;
    saturate(&c, GBPS(25.3), 100000, 300000, &rn, &cpu);
    printf("  share (b): cpu %.3f (ref 25.300) rnic %.3f (ref %.3f) GB/s\n", cpu, rn, M - 25.3);
    CHECK(within(cpu, 25.3, 0.02));
    CHECK(within(rn, M - 25.3, 0.02));
    /* (c) the MBA cap enters as C: level 2 (20 GB/s) with 30.3 offered, deep window */
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    c.cpu_outstanding = 1000;
    c.mem_queue = 1100;
    c.mba_level = 2;
    saturate(&c, GBPS(30.3), 100000, 300000, &rn, &cpu);
    printf("  share (c): cpu %.3f (ref 20.000) rnic %.3f (ref %.3f) GB/s\n", cpu, rn, M - 20.0);
    CHECK(within(cpu, 20.0, 0.02));
    CHECK(within(rn, M - 20.0, 0.02));
}

/* ---- MBA caps the CPU's bandwidth at the level (no RNIC traffic) ---- */
static void test_mba_cap(void)
{
    static const double level[5] = { 33.2, 26.5, 20.0, 15.0, 10.0 };
    uint32_t l;
    for (l = 0; l < 5; l++) {
        hcc_host_config c;
        eng *e;
        uint64_t i, c0 = 0, span = 200000;
        double got, ref = level[l] < 30.3 ? level[l] : 30.3;
        hcc_host_config_default(&c);
        e = mk(&c);
        CHECK_EQ(hcc_host_set_cpu_load(&e->h, GBPS(30.3)), RNIC_OK);
        CHECK_EQ(hcc_host_set_mba_level(&e->h, l), RNIC_OK);
        CHECK_EQ(hcc_host_mba_level(&e->h), l);
        for (i = 0; i < 20000 + span; i++) {
            if (i == 20000)
                c0 = hcc_host_get_stats(&e->h)->cpu_bytes_served;
            hcc_host_tick(&e->h);
        }
        got = (double)(hcc_host_get_stats(&e->h)->cpu_bytes_served - c0) * CLK / span / 1e9;
        CHECK(within(got, ref, 0.01));
        /* 1:1 read / write */
        CHECK(hcc_host_get_stats(&e->h)->mem_lines_cpu_read - hcc_host_get_stats(&e->h)->mem_lines_cpu_write <= 1);
        rm(e);
    }
}

/* ---- the cumulative occupancy counter = the sum of per-cycle occupancy ---- */
static void test_iio_cum(void)
{
    hcc_host_config c;
    eng *e;
    uint64_t i, ref = 0, addr = 0;
    rnic_work o;
    hcc_host_config_default(&c);
    c.mem_bps = GBPS(10); /* slow memory: the IIO fills */
    c.pfc = false;
    e = mk(&c);
    hcc_host_set_cpu_load(&e->h, GBPS(5));
    for (i = 0; i < 50000; i++) {
        const hcc_host_stats *s = hcc_host_get_stats(&e->h);
        if (rnd_below(6) == 0) {
            rnic_work w = pkt(0, addr, 1024 + (uint32_t)rnd_below(3000), i);
            hcc_host_push_rx(&e->h, &w);
            addr += 8192;
        }
        hcc_host_tick(&e->h);
        ref += s->iio_lines_in - s->iio_lines_freed; /* lines held at the end of the cycle */
        while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
            ;
    }
    CHECK(ref > 50000); /* the IIO did hold lines */
    CHECK_EQ(hcc_host_iio_occupancy_cum(&e->h), ref & ((1ull << 48) - 1));
    CHECK(hcc_host_get_stats(&e->h)->iio_max > 0);
    rm(e);
}

/* ---- PCIe stalls appear exactly when credits run out ----
 * Reference link (the test's own): bit-tokens gain pcie_bps per cycle, capped at one cycle's
 * worth; a write may start while they are positive and costs (256 + 24) x 8 x clock_hz. In a
 * cycle with a positive count and a packet waiting, exactly one of two things happens: a write
 * starts, or (credits short) a stall cycle is counted. */
static void test_pcie_stalls(void)
{
    hcc_host_config c;
    eng *e;
    uint64_t i, addr = 0, prev_stall = 0, prev_w = 0, stall_ticks = 0;
    int64_t tok, R = 128000000000ll, cost = (256 + 24) * 8 * (int64_t)CLK;
    rnic_work o;
    const hcc_host_stats *s;
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    c.mem_bps = GBPS(4); /* far below PCIe: the credits run out */
    c.pfc = false;
    e = mk(&c);
    s = hcc_host_get_stats(&e->h);
    tok = R;
    for (i = 0; i < 60000; i++) {
        bool waiting, issued, stalled;
        if (hcc_host_space_rx(&e->h) >= 4096) {
            rnic_work w = pkt(0, addr, 4096, i); /* aligned: every write is 256 B = 4 lines */
            hcc_host_push_rx(&e->h, &w);
            addr += 4096;
        }
        waiting = hcc_host_rx_occupancy(&e->h) > 0;
        hcc_host_tick(&e->h);
        tok = tok + R > R ? R : tok + R;
        issued = s->pcie_writes != prev_w;
        stalled = s->pcie_stall_cycles != prev_stall;
        CHECK(s->pcie_writes - prev_w <= 1);
        CHECK(s->pcie_stall_cycles - prev_stall <= 1);
        if (tok > 0 && waiting) {
            CHECK(issued != stalled);
        } else {
            CHECK(!issued && !stalled);
        }
        if (stalled) {
            CHECK(hcc_host_pcie_credits(&e->h) < 4); /* no write of 4 lines could start */
            stall_ticks++;
        }
        if (issued)
            tok -= cost;
        prev_stall = s->pcie_stall_cycles;
        prev_w = s->pcie_writes;
        while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
            ;
    }
    CHECK(stall_ticks > 1000);
    CHECK(s->pcie_stalled_writes > 0 && s->pcie_stalled_writes <= s->pcie_writes);
    CHECK(s->pcie_stalled_writes <= s->pcie_stall_cycles);
    /* the RNIC's rate = the memory's */
    CHECK(within((double)s->bytes_to_memory_or_ddio * CLK / 60000 / 1e9, 4.0, 0.05));
    rm(e);
}

/* ---- PFC: PAUSE at xoff, RESUME at xon, pause duration ---- */
static void test_pfc(void)
{
    hcc_host_config c;
    eng *e;
    uint64_t i, addr = 0, pause_at = 0, dur = 0, pauses = 0, resumes = 0;
    bool ref_paused = false;
    int64_t tok = 0;
    const int64_t cost = 1024 * 8 * (int64_t)CLK;
    rnic_work o;
    const hcc_host_stats *s;
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    e = mk(&c);
    s = hcc_host_get_stats(&e->h);
    hcc_host_set_cpu_load(&e->h, GBPS(30.3)); /* 3x: the RNIC gets less than 100 Gb/s */
    for (i = 0; i < 400000; i++) {
        bool pause_sig = false, resume_sig = false;
        if (!hcc_host_paused(&e->h)) {
            tok += 100000000000ll;
            if (tok > cost)
                tok = cost;
            if (tok > 0) {
                rnic_work w = pkt(0, addr, 1024, i);
                CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
                addr = (addr + 1024) % (1 << 20);
                tok -= cost;
            }
        }
        hcc_host_tick(&e->h);
        while (hcc_host_pop_signal(&e->h, &o) == RNIC_OK) {
            CHECK_EQ(o.cycle, hcc_host_now(&e->h) - 1);
            if ((o.flags & HCC_HOST_WORK_PAUSE)) {
                pause_sig = true;
                CHECK(o.addr >= c.xoff_bytes);
                pause_at = o.cycle;
                pauses++;
            } else {
                CHECK_EQ(o.flags & (HCC_HOST_WORK_PAUSE | HCC_HOST_WORK_RESUME), HCC_HOST_WORK_RESUME);
                resume_sig = true;
                CHECK(o.addr <= c.xon_bytes);
                dur += o.cycle - pause_at;
                resumes++;
            }
        }
        /* reference: the occupancy at the end of the cycle crossed a watermark */
        if (!ref_paused && hcc_host_rx_occupancy(&e->h) >= c.xoff_bytes) {
            CHECK(pause_sig);
            ref_paused = true;
        } else if (ref_paused && hcc_host_rx_occupancy(&e->h) <= c.xon_bytes) {
            CHECK(resume_sig);
            ref_paused = false;
        } else {
            CHECK(!pause_sig && !resume_sig);
        }
        CHECK(ref_paused == hcc_host_paused(&e->h));
        while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
            ;
    }
    if (ref_paused)
        dur += hcc_host_now(&e->h) - pause_at;
    CHECK(pauses > 5);
    CHECK_EQ(s->pfc_pauses, pauses);
    CHECK_EQ(s->pfc_resumes, resumes);
    CHECK_EQ(s->pause_cycles, dur);
    CHECK_EQ(s->dropped, 0);
    CHECK_EQ(s->marked, 0);
    rm(e);
}

/* ---- no PFC: CE marks above cnp_bytes; drops answered EBUSY and counted ---- */
static void test_nopfc_marking(void)
{
    hcc_host_config c;
    eng *e;
    uint64_t i, tag = 0, marks_ref = 0, drops = 0, drop_bytes = 0;
    static uint8_t expect_ce[100000];
    rnic_work o;
    const hcc_host_stats *s;
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    c.pfc = false;
    c.mem_bps = GBPS(2);
    e = mk(&c);
    s = hcc_host_get_stats(&e->h);
    for (i = 0; i < 60000; i++) {
        uint32_t occ = hcc_host_rx_occupancy(&e->h);
        rnic_work w = pkt(0, (tag * 2048) % (1 << 20), 2048, tag);
        rnic_err err = hcc_host_push_rx(&e->h, &w);
        if (occ + 2048 > c.rx_buffer_bytes) {
            uint64_t before[3];
            before[0] = hcc_host_rx_occupancy(&e->h);
            before[1] = s->packets_in;
            before[2] = s->bytes_in;
            CHECK_EQ(err, RNIC_EBUSY);
            drops++;
            drop_bytes += 2048;
            CHECK_EQ(hcc_host_rx_occupancy(&e->h), before[0]);
            CHECK_EQ(s->packets_in, before[1]);
            CHECK_EQ(s->bytes_in, before[2]);
        } else {
            CHECK_EQ(err, RNIC_OK);
            expect_ce[tag] = occ > c.cnp_bytes;
            marks_ref += occ > c.cnp_bytes;
        }
        tag++;
        hcc_host_tick(&e->h);
        while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK) {
            CHECK(o.tag < tag);
            CHECK_EQ(!!(o.flags & HCC_WORK_CE), expect_ce[o.tag]);
            CHECK_EQ(o.flags & (RNIC_WORK_FIRST | RNIC_WORK_LAST), RNIC_WORK_FIRST | RNIC_WORK_LAST);
        }
    }
    CHECK(drops > 1000 && marks_ref > 100);
    CHECK_EQ(s->marked, marks_ref);
    CHECK_EQ(s->dropped, drops);
    CHECK_EQ(s->dropped_bytes, drop_bytes);
    CHECK_EQ(s->errors.by_cause[RNIC_EBUSY], drops);
    CHECK_EQ(s->pfc_pauses, 0);
    /* hostCC mode: every packet marked while on */
    hcc_host_set_ecn(&e->h, true);
    {
        uint64_t m0 = s->marked;
        for (i = 0; i < 2000; i++) {
            if (hcc_host_space_rx(&e->h) >= 100) {
                rnic_work w = pkt(0, 0, 100, 0);
                CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
                CHECK_EQ(s->marked, ++m0);
            }
            hcc_host_tick(&e->h);
            while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
                ;
        }
    }
    rm(e);
}

/* ---- DDIO: a footprint that fits hits after warm-up; a larger one misses with write-backs ---- */
static void test_ddio(void)
{
    int big;
    for (big = 0; big < 2; big++) {
        hcc_host_config c;
        eng *e;
        run_out r;
        uint64_t addr = 0, h0, m0, w0, fp = big ? 16u << 20 : 1u << 20;
        const hcc_host_stats *s;
        hcc_host_config_default(&c);
        e = mk(&c);
        s = hcc_host_get_stats(&e->h);
        memset(&r, 0, sizeof r);
        /* warm-up: 24 MB at 100 Gb/s = 480,000 cycles > one pass over either footprint + the cache */
        offer(e, 500000, 100000000000ull, 1024, fp, &addr, &r);
        h0 = s->ddio_hits;
        m0 = s->ddio_misses;
        w0 = s->ddio_writebacks;
        offer(e, 200000, 100000000000ull, 1024, fp, &addr, &r);
        if (!big) {
            CHECK_EQ(s->ddio_misses, m0);
            CHECK(s->ddio_hits - h0 > 30000);
            CHECK_EQ(s->ddio_writebacks, 0);
            CHECK_EQ(s->mem_lines_writeback, 0);
        } else {
            /* streaming 16 MB through 4 MB of 2-way LRU: every line misses and evicts a dirty one */
            CHECK_EQ(s->ddio_hits, h0);
            CHECK(s->ddio_misses - m0 > 30000);
            CHECK_EQ(s->ddio_writebacks - w0, s->ddio_misses - m0);
        }
        CHECK_EQ(s->pcie_stall_cycles, 0);
        rm(e);
    }
}

/* ---- bad input is refused and counted, state intact (a twin that never saw it agrees) ---- */
/* ---- trace: the contract's layout under the engine's own id (issue 29) ---- */
typedef struct tr_log {
    rnic_trace_event ev[64];
    unsigned n;
} tr_log;
static void tr_note(void *user, const rnic_trace_event *ev)
{
    tr_log *l = (tr_log *)user;
    if (l->n < 64u)
        l->ev[l->n] = *ev;
    l->n++;
}
static const rnic_trace_event *tr_find(const tr_log *l, uint16_t kind, unsigned from)
{
    unsigned i;
    for (i = from; i < l->n && i < 64u; i++)
        if (l->ev[i].kind == kind)
            return &l->ev[i];
    return NULL;
}
static void test_trace_layout(void)
{
    hcc_host_config c;
    tr_log l;
    eng *e;
    rnic_work w, o;
    const rnic_trace_event *ev;
    unsigned i, mark;
    memset(&l, 0, sizeof l);
    hcc_host_config_default(&c);
    CHECK_EQ(c.trace_id, RNIC_ENGINE_HCC_HOST);
    c.rx_buffer_bytes = 4096;
    c.xoff_bytes = 2000;
    c.xon_bytes = 500;
    c.cnp_bytes = 2048;
    c.trace = tr_note;
    c.trace_user = &l;
    e = mk(&c);
    w = pkt(3, 0x10000, 1500, 77);
    w.index = 41;
    CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
    ev = tr_find(&l, RNIC_TRACE_PUSH, 0);
    CHECK(ev != NULL);
    if (ev)
        CHECK(ev->engine == RNIC_ENGINE_HCC_HOST && ev->id == 3 && ev->a == 41 && ev->b == 1500);
    w.index = 42;
    CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
    w.index = 43;
    CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_EBUSY); /* 4500 > 4096: dropped */
    ev = tr_find(&l, HCC_HOST_TRACE_DROP, 0);
    CHECK(ev != NULL);
    if (ev)
        CHECK(ev->a == 43 && ev->b == 1500);
    ev = tr_find(&l, RNIC_TRACE_REFUSE, 0);
    CHECK(ev != NULL);
    if (ev)
        CHECK(ev->a == 43 && ev->b == RNIC_EBUSY);
    mark = l.n;
    hcc_host_advance(&e->h, 2000);
    ev = tr_find(&l, HCC_HOST_TRACE_PAUSE, mark); /* 3000 bytes, a write leaves: >= xoff */
    CHECK(ev != NULL);
    CHECK(hcc_host_pop_signal(&e->h, &o) == RNIC_OK && (o.flags & HCC_HOST_WORK_PAUSE) && o.op == 0);
    ev = tr_find(&l, RNIC_TRACE_OUT, mark);
    CHECK(ev != NULL);
    mark = l.n;
    for (i = 0; i < 2u; i++) {
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o), RNIC_OK);
        CHECK_EQ(o.index, 41u + i);
        CHECK_EQ(o.tag, 77);
    }
    ev = tr_find(&l, RNIC_TRACE_POP, mark);
    CHECK(ev != NULL);
    if (ev)
        CHECK(ev->a == 41 && ev->b == 1500 && ev->id == 3);
    for (i = 0; i < l.n && i < 64u; i++)
        CHECK_EQ(l.ev[i].engine, RNIC_ENGINE_HCC_HOST);
    rm(e);
}

static void test_bad_input(void)
{
    hcc_host_config c;
    eng *a, *b;
    uint64_t i;
    rnic_work w, oa, ob;
    hcc_host_config_default(&c);
    c.rx_buffer_bytes = 16 * 1024;
    c.xoff_bytes = 12 * 1024;
    c.xon_bytes = 8 * 1024;
    c.cnp_bytes = 4 * 1024;
    a = mk(&c);
    b = mk(&c);
    CHECK_EQ(hcc_host_push_rx(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_host_pop_rx(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_host_set_mba_level(NULL, 1), RNIC_EINVAL);
    CHECK_EQ(hcc_host_next_event(NULL), RNIC_NEVER);
    hcc_host_tick(NULL);
    CHECK_EQ(hcc_host_get_stats(NULL) == NULL, 1);
    for (i = 0; i < 20000; i++) {
        if (i % 10 == 0) {
            w = pkt(1, i * 64, 1500, i);
            CHECK_EQ(hcc_host_push_rx(&a->h, &w), hcc_host_push_rx(&b->h, &w));
        }
        if (i == 100) {
            hcc_host_set_cpu_load(&a->h, GBPS(20));
            hcc_host_set_cpu_load(&b->h, GBPS(20));
        }
        if (i % 1000 == 7) { /* the bad inputs, to `a` only */
            w = pkt(1, 0, 0, 0);
            CHECK_EQ(hcc_host_push_rx(&a->h, &w), RNIC_EINVAL);
            CHECK_EQ(hcc_host_push_rx(&a->h, NULL), RNIC_EINVAL);
            w = pkt(1, 0, c.rx_buffer_bytes + 1, 0);
            CHECK_EQ(hcc_host_push_rx(&a->h, &w), RNIC_ERANGE);
            w = pkt(1, UINT64_MAX - 10, 100, 0);
            CHECK_EQ(hcc_host_push_rx(&a->h, &w), RNIC_ERANGE);
            CHECK_EQ(hcc_host_set_mba_level(&a->h, 5), RNIC_ERANGE);
            CHECK_EQ(hcc_host_set_mba_level(&a->h, UINT32_MAX), RNIC_ERANGE);
            CHECK_EQ(hcc_host_pop_rx(&a->h, NULL), RNIC_EINVAL);
            CHECK_EQ(hcc_host_peek_signal(&a->h, NULL), RNIC_EINVAL);
        }
        hcc_host_tick(&a->h);
        hcc_host_tick(&b->h);
        for (;;) {
            rnic_err ea = hcc_host_pop_rx(&a->h, &oa), eb = hcc_host_pop_rx(&b->h, &ob);
            CHECK_EQ(ea, eb);
            if (ea != RNIC_OK)
                break;
            CHECK(memcmp(&oa, &ob, sizeof oa) == 0);
        }
        for (;;) {
            rnic_err ea = hcc_host_pop_signal(&a->h, &oa), eb = hcc_host_pop_signal(&b->h, &ob);
            CHECK_EQ(ea, eb);
            if (ea != RNIC_OK)
                break;
            CHECK(memcmp(&oa, &ob, sizeof oa) == 0);
        }
    }
    CHECK_EQ(hcc_host_get_stats(&a->h)->errors.by_cause[RNIC_EINVAL], 4 * 20);
    CHECK_EQ(hcc_host_get_stats(&a->h)->errors.by_cause[RNIC_ERANGE], 4 * 20);
    CHECK_EQ(hcc_host_get_stats(&a->h)->bytes_to_memory_or_ddio, hcc_host_get_stats(&b->h)->bytes_to_memory_or_ddio);
    CHECK_EQ(hcc_host_iio_occupancy_cum(&a->h), hcc_host_iio_occupancy_cum(&b->h));
    CHECK_EQ(hcc_host_mba_level(&a->h), 0);
    /* an absurd CPU load is clamped to the ceiling and counted, never refused */
    CHECK_EQ(hcc_host_set_cpu_load(&a->h, UINT64_MAX), RNIC_OK);
    CHECK_EQ(hcc_host_cpu_load(&a->h), HCC_MBA_LEVEL_0_BPS);
    CHECK_EQ(hcc_host_get_stats(&a->h)->cpu_load_clamped, 1);
    CHECK_EQ(hcc_host_set_cpu_load(&a->h, GBPS(19)), RNIC_OK);
    CHECK_EQ(hcc_host_get_stats(&a->h)->cpu_load_clamped, 1);
    rm(a);
    rm(b);
}

/* ---- fast-forward: advance gives the records and counters of ticking, across the 2^64 wrap ---- */
typedef struct rec {
    uint64_t cycle, tag, addr;
    uint32_t aux, flags, op, len;
} rec;

static void ff_run(int mode, uint64_t seed, rec *out, size_t *n, rec *sig, size_t *ns, hcc_host_stats *st, uint64_t *cum)
{
    hcc_host_config c;
    eng *e;
    uint64_t t, end, k = 0;
    rnic_work o;
    hcc_host_config_default(&c);
    c.start_cycle = UINT64_MAX - 700000;
    c.rx_buffer_bytes = 32 * 1024;
    c.xoff_bytes = 24 * 1024;
    c.xon_bytes = 16 * 1024;
    c.ddio_lines = 4096;
    c.rx_depth = 8;
    c.signal_depth = 2;
    e = mk(&c);
    rng_s = seed;
    *n = 0;
    *ns = 0;
    t = hcc_host_now(&e->h);
    end = t + 1500000;
    while (t != end) {
        /* next input: a burst now and then, gaps up to 20000 cycles, CPU phases */
        uint64_t gap = rnd_below(16) ? rnd_below(40) : rnd_below(20000), target = t + gap;
        if (target - hcc_host_now(&e->h) > end - hcc_host_now(&e->h))
            target = end;
        while (hcc_host_now(&e->h) != target) {
            if (mode == 0)
                hcc_host_tick(&e->h);
            else
                hcc_host_advance_to(&e->h, target);
            while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK && *n < 200000) {
                rec r = { o.cycle, o.tag, o.addr, o.aux, o.flags, o.op, o.len };
                out[(*n)++] = r;
            }
            while (hcc_host_pop_signal(&e->h, &o) == RNIC_OK && *ns < 200000) {
                rec r = { o.cycle, o.tag, o.addr, o.aux, o.flags, o.op, o.len };
                sig[(*ns)++] = r;
            }
        }
        t = target;
        if (t == end)
            break;
        {
            rnic_work w = pkt((uint32_t)rnd_below(4), rnd_below(1 << 22), 1 + (uint32_t)rnd_below(4096), k++);
            hcc_host_push_rx(&e->h, &w);
        }
        if (rnd_below(200) == 0)
            hcc_host_set_cpu_load(&e->h, rnd_below(2) ? 0 : GBPS(rnd_below(34)));
        if (rnd_below(300) == 0)
            hcc_host_set_mba_level(&e->h, (uint32_t)rnd_below(5));
    }
    *st = *hcc_host_get_stats(&e->h);
    *cum = hcc_host_iio_occupancy_cum(&e->h);
    rm(e);
}

static void test_fast_forward(void)
{
    static rec a[200000], b[200000], sa_[200000], sb_[200000];
    size_t na, nb, nsa, nsb, i;
    hcc_host_stats sa, sb;
    uint64_t ca, cb;
    ff_run(0, 777, a, &na, sa_, &nsa, &sa, &ca);
    ff_run(1, 777, b, &nb, sb_, &nsb, &sb, &cb);
    CHECK(na > 1000);
    CHECK_EQ(na, nb);
    CHECK(nsa > 2);
    CHECK_EQ(nsa, nsb);
    for (i = 0; i < na && i < nb; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) {
            CHECK_EQ(i, UINT64_MAX);
            break;
        }
    for (i = 0; i < nsa && i < nsb; i++)
        if (memcmp(&sa_[i], &sb_[i], sizeof sa_[i]) != 0) {
            CHECK_EQ(i, UINT64_MAX);
            break;
        }
    CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
    CHECK_EQ(ca, cb);
    CHECK(sa.pfc_pauses > 0 && sa.cpu_bytes_served > 0);
}

/* ---- CPU traffic alone (docs/hostcc_host.md): advance computes the CPU-only stretches in closed
 * form (hcc__host_cpu_span); every counter, record, signal and the occupancy sum must equal
 * ticking. 40 random configurations (memory and CPU rates, queue and window sizes, clock, MBA,
 * DDIO off / on with evictions, the three write-back accountings), each with bursts of packets
 * between long CPU-only stretches (and stretches where DDIO still holds valid lines), against a
 * twin ticked every cycle ---- */
static void cpu_span_run(int mode, uint64_t seed, hcc_host_stats *st, uint64_t *cum, uint64_t *sum_out, uint64_t *nsig)
{
    hcc_host_config c;
    eng *e;
    uint64_t t, end, k = 0, i;
    rnic_work o;
    uint64_t piece_s = seed * 0x9E3779B97F4A7C15ull + 1u;
    rng_s = seed;
    hcc_host_config_default(&c);
    c.clock_hz = rnd_below(2) ? 250000000u : 100000000u + rnd_below(900000000u);
    c.mem_bps = GBPS(5 + rnd_below(300));
    c.mem_queue = 2 + (uint32_t)rnd_below(300);
    c.cpu_outstanding = 1 + (uint32_t)rnd_below(250);
    c.cpu_load_bps = GBPS(rnd_below(400));
    c.mba_level = (uint32_t)rnd_below(5);
    c.ddio_lines = rnd_below(3) == 0 ? 0u : 256u << rnd_below(4);
    c.cpu_evict_ppm = rnd_below(4) == 0 ? 0u : (uint32_t)rnd_below(1000001);
    c.cpu_evict_wb = (uint32_t)rnd_below(3);
    c.start_cycle = rnd_below(2) ? UINT64_MAX - 300000 : rnd();
    c.rx_depth = 16;
    if (rnd_below(4) == 0) /* rates that are whole lines per cycle: a bucket lands on exactly 0 */
        c.mem_bps = (uint64_t)512u * c.clock_hz * (1u + rnd_below(6));
    if (rnd_below(4) == 0)
        c.cpu_load_bps = (uint64_t)512u * c.clock_hz * (1u + rnd_below(6)) / (1u + rnd_below(3));
    if (seed % 8u == 5u) { /* fast memory, more than a line a cycle asked for, a window of 1 or 2:
                              the window binds (no closed form for the CPU's requests) */
        c.clock_hz = 250000000u;
        c.mem_bps = (uint64_t)512u * c.clock_hz * 8u;
        c.cpu_load_bps = (uint64_t)512u * c.clock_hz * 3u - 1u;
        c.cpu_outstanding = 1u + (uint32_t)rnd_below(2);
        c.mba_level = 0;
    }
    e = mk(&c);
    t = hcc_host_now(&e->h);
    end = t + 600000;
    *sum_out = *nsig = 0;
    while (t != end) {
        /* mostly long quiet stretches; now and then a burst of packets, a load or an MBA change */
        uint64_t gap = rnd_below(4) ? rnd_below(30000) : rnd_below(50), target = t + gap;
        if (target - hcc_host_now(&e->h) > end - hcc_host_now(&e->h))
            target = end;
        while (hcc_host_now(&e->h) != target) {
            /* in random pieces, so spans start and end anywhere; both twins take the records at
               the same points -- a piece's end, or right after the tick that filled a port, where
               advance stops (the engine contract): a caller that drains more often sees more
               room in the record port, and then a different run (a tick may finish two packets) */
            uint64_t left = target - hcc_host_now(&e->h), piece;
            piece_s ^= piece_s << 13, piece_s ^= piece_s >> 7, piece_s ^= piece_s << 17; /* its own stream: the twins' inputs stay equal */
            piece = 1 + piece_s % (left < 5000 ? left : 5000);
            if (mode == 0) {
                uint64_t stop = hcc_host_now(&e->h) + piece;
                while (hcc_host_now(&e->h) != stop) {
                    unsigned before = (rnic_ring_full(&e->h.out) ? 1u : 0u) | (rnic_ring_full(&e->h.sig) ? 2u : 0u);
                    hcc_host_tick(&e->h);
                    if (((rnic_ring_full(&e->h.out) ? 1u : 0u) | (rnic_ring_full(&e->h.sig) ? 2u : 0u)) & ~before)
                        break;
                }
            } else {
                hcc_host_advance_to(&e->h, hcc_host_now(&e->h) + piece);
            }
            while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
                *sum_out = *sum_out * 31u + o.cycle + o.tag + o.aux;
            while (hcc_host_pop_signal(&e->h, &o) == RNIC_OK) {
                *sum_out = *sum_out * 37u + o.cycle + o.flags;
                (*nsig)++;
            }
        }
        t = target;
        if (t == end)
            break;
        if (rnd_below(3) == 0)
            for (i = rnd_below(20); i-- > 0;) {
                rnic_work w = pkt((uint32_t)rnd_below(4), rnd_below(1 << 20), 1 + (uint32_t)rnd_below(4096), k++);
                hcc_host_push_rx(&e->h, &w);
            }
        if (rnd_below(5) == 0)
            hcc_host_set_cpu_load(&e->h, rnd_below(3) ? GBPS(rnd_below(400)) : 0);
        if (rnd_below(7) == 0)
            hcc_host_set_mba_level(&e->h, (uint32_t)rnd_below(5));
    }
    *st = *hcc_host_get_stats(&e->h);
    *cum = hcc_host_iio_occupancy_cum(&e->h);
    rm(e);
}

static void test_cpu_span(void)
{
    uint64_t seed, seeds = test_length(40, 400), base = test_seed(4242), spans = 0;
    for (seed = base; seed < base + seeds; seed++) {
        hcc_host_stats sa, sb;
        uint64_t ca, cb, oa, ob, na, nb;
        cpu_span_run(0, seed, &sa, &ca, &oa, &na);
        cpu_span_run(1, seed, &sb, &cb, &ob, &nb);
        CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        if (memcmp(&sa, &sb, sizeof sa) != 0)
            printf("  seed %" PRIu64 ": cpu bytes %" PRIu64 " / %" PRIu64 ", reads %" PRIu64 " / %" PRIu64
                   ", evictions %" PRIu64 " / %" PRIu64 ", packets out %" PRIu64 " / %" PRIu64 "\n",
                   seed, sa.cpu_bytes_served, sb.cpu_bytes_served, sa.mem_lines_cpu_read, sb.mem_lines_cpu_read,
                   sa.ddio_cpu_evictions, sb.ddio_cpu_evictions, sa.packets_out, sb.packets_out);
        CHECK_EQ(ca, cb);
        CHECK_EQ(oa, ob);
        CHECK_EQ(na, nb);
        spans += sa.cpu_bytes_served > 0;
    }
    CHECK(spans > seeds / 2); /* the CPU ran in most configurations */
}

/* ---- hcc_host_next_output: a lower bound on the next record or trace event of a tick ----
 * Random configurations where writes wait for the link's tokens, for credits (few IIO lines,
 * slow memory, DDIO on / off, CPU load) and for pops (shallow ports), with PFC on a small
 * buffer, probes, and pushes, pops and register writes at random cycles; ticked every cycle.
 * The bound is taken after every input and after every tick that showed something; a tick
 * before the bound must put nothing on the rx or signal port and emit no trace event. A bound
 * that is always early also passes that: the first output after a bound must come exactly at it
 * in at least half of the cases (it is early when credits come back or lines free first; a bound
 * that counted half of each earlier write's link time fails this). */
typedef struct no_trace {
    uint64_t events;
} no_trace;
static void no_note(void *user, const rnic_trace_event *ev)
{
    (void)ev;
    ((no_trace *)user)->events++;
}

/* An output at `now` comes before the bound read at bound_at (a bound at cycle 2^64 - 1 reads
 * RNIC_NEVER, next_event's convention: an output at or after that cycle is not early). */
static int no_early(uint64_t bound, uint64_t bound_at, uint64_t now)
{
    if (bound == RNIC_NEVER)
        return now - bound_at < UINT64_MAX - bound_at;
    return (int64_t)(now - bound) < 0;
}

static void test_next_output(void)
{
    uint64_t seed, seeds = test_length(60, 600), base = test_seed(5151);
    uint64_t shown = 0, violations = 0, exact = 0, firsts = 0, stalls = 0, resumes = 0, probes = 0;
    for (seed = base; seed < base + seeds; seed++) {
        hcc_host_config c;
        eng *e;
        no_trace tr = { 0 };
        uint64_t i, bound = 0, bound_at = 0, k = 0, addr = 0;
        int have = 0, first = 0;
        rng_s = seed * 0x2545F4914F6CDD1Dull + 7u;
        hcc_host_config_default(&c);
        c.clock_hz = rnd_below(2) ? 250000000u : 100000000u + rnd_below(900000000u);
        c.pcie_bps = 1000000000ull * (1u + rnd_below(128));
        c.pcie_mps = 64u << rnd_below(4);
        c.pcie_tlp_overhead = (uint32_t)rnd_below(40);
        c.pcie_latency_ns = rnd_below(4) == 0 ? 0u : rnd_below(2000);
        c.iio_lines = (c.pcie_mps + 62u) / 64u + 1u + (uint32_t)rnd_below(40);
        c.iio_mem_credits = 1u + (uint32_t)rnd_below(c.iio_lines);
        c.mem_bps = GBPS(1 + rnd_below(40));
        c.mem_queue = 2u + (uint32_t)rnd_below(64);
        c.cpu_load_bps = rnd_below(2) ? 0 : GBPS(rnd_below(40));
        c.ddio_lines = rnd_below(3) == 0 ? 0u : 64u << rnd_below(4);
        c.cpu_evict_wb = (uint32_t)rnd_below(3);
        c.rx_buffer_bytes = 4096u + (uint32_t)rnd_below(60000);
        c.xoff_bytes = c.rx_buffer_bytes - (uint32_t)rnd_below(c.rx_buffer_bytes / 2);
        c.xon_bytes = (uint32_t)rnd_below(c.xoff_bytes);
        c.pfc = rnd_below(4) != 0;
        c.cnp_bytes = c.rx_buffer_bytes / 2u;
        c.rx_depth = 1u + (uint32_t)rnd_below(4);
        c.signal_depth = 1u + (uint32_t)rnd_below(2);
        c.start_cycle = rnd_below(4) == 0 ? UINT64_MAX - 10000 : rnd();
        c.trace = no_note;
        c.trace_user = &tr;
        e = mk(&c);
        for (i = 0; i < 30000; i++) {
            uint64_t now = hcc_host_now(&e->h), ev;
            uint32_t nout = e->h.out.count, nsig = e->h.sig.count;
            rnic_work o;
            uint64_t r = rnd_below(1000);
            if (r < 100) { /* inputs: each may change what comes next */
                if (r < 10) { /* a burst of packets */
                    uint64_t n = 1u + rnd_below(8);
                    while (n--) {
                        rnic_work w = pkt((uint32_t)rnd_below(4), addr, 1 + (uint32_t)rnd_below(3000), k++);
                        addr += w.len + rnd_below(300);
                        if (rnd_below(10) == 0)
                            w.flags |= HCC_WORK_PROBE;
                        hcc_host_push_rx(&e->h, &w);
                    }
                } else if (r < 80) {
                    hcc_host_pop_rx(&e->h, &o);
                } else if (r < 96) {
                    hcc_host_pop_signal(&e->h, &o);
                } else if (r < 98) {
                    hcc_host_set_cpu_load(&e->h, rnd_below(2) ? 0 : GBPS(rnd_below(40)));
                } else {
                    hcc_host_set_mba_level(&e->h, (uint32_t)rnd_below(5));
                }
                have = 0;
                nout = e->h.out.count;
                nsig = e->h.sig.count;
            }
            if (!have) {
                bound = hcc_host_next_output(&e->h);
                bound_at = now;
                CHECK(bound == RNIC_NEVER || (int64_t)(bound - now) >= 0);
                have = 1;
                first = 1;
            }
            ev = tr.events;
            hcc_host_tick(&e->h);
            if (tr.events != ev || e->h.out.count != nout || e->h.sig.count != nsig) {
                shown++;
                if (no_early(bound, bound_at, now)) {
                    violations++;
                    if (violations <= 3)
                        printf("  seed %" PRIu64 ": output at %" PRIu64 " before the bound %" PRIu64 "\n", seed, now, bound);
                }
                if (first) {
                    firsts++;
                    exact += now == bound;
                }
                have = 0;
            }
        }
        stalls += hcc_host_get_stats(&e->h)->pcie_stalled_writes;
        resumes += hcc_host_get_stats(&e->h)->pfc_resumes;
        probes += hcc_host_get_stats(&e->h)->probes;
        rm(e);
    }
    printf("  hcc_host_next_output: %" PRIu64 " ticks with an output, %" PRIu64 " before the bound; the first after a bound"
           " at it exactly %" PRIu64 " of %" PRIu64 " (%" PRIu64 " stalled writes, %" PRIu64 " RESUMEs, %" PRIu64 " probes)\n",
           shown, violations, exact, firsts, stalls, resumes, probes);
    CHECK_EQ(violations, 0);
    CHECK(!no_early(RNIC_NEVER, UINT64_MAX - 5u, UINT64_MAX) && !no_early(RNIC_NEVER, UINT64_MAX - 5u, 3u));
    CHECK(no_early(RNIC_NEVER, UINT64_MAX - 5u, UINT64_MAX - 1u) && no_early(7u, 5u, 6u) && !no_early(7u, 5u, 7u));
    CHECK(shown > seeds * 100);
    CHECK(exact * 2 >= firsts);
    CHECK(stalls > 0 && resumes > 0 && probes > 0);
}

/* ---- host_sweep: 100 Gb/s of 1 KB packets, CPU load 0 / 1x / 2x / 3x, MBA 0, PFC on, the
 * sender stopping while paused; defaults otherwise (DDIO 4 MB); 1 MB receive footprint ---- */
static void host_sweep(void)
{
    static const double load[4] = { 0, 19.0, 25.3, 30.3 };
    static const uint32_t ddio_of[3] = { 65536, 0, 65536 };
    static const uint64_t fp_of[3] = { 1u << 20, 1u << 20, 16u << 20 };
    const uint64_t warm = 400000, span = 1000000; /* 4 ms measured after 1.6 ms */
    double base = 0;
    int k, v;
    for (v = 0; v < 3; v++)
    for (k = 0; k < 4; k++) {
        hcc_host_config c;
        eng *e;
        run_out r;
        uint64_t addr = 0, b0, p0, n0, d0, sw0, w0, hit0, mis0, pc0;
        double tput, delay, miss;
        const hcc_host_stats *s;
        hcc_host_config_default(&c);
        c.cpu_load_bps = GBPS(load[k]);
        c.ddio_lines = ddio_of[v];
        e = mk(&c);
        s = hcc_host_get_stats(&e->h);
        memset(&r, 0, sizeof r);
        offer(e, warm, 100000000000ull, 1024, fp_of[v], &addr, &r);
        b0 = r.out_bytes;
        n0 = r.out_pkts;
        d0 = r.delay_sum;
        sw0 = s->pcie_stalled_writes;
        w0 = s->pcie_writes;
        hit0 = s->ddio_hits;
        mis0 = s->ddio_misses;
        pc0 = s->pause_cycles;
        p0 = s->cpu_bytes_served;
        offer(e, span, 100000000000ull, 1024, fp_of[v], &addr, &r);
        tput = (double)(r.out_bytes - b0) * 8 * CLK / span / 1e9;
        delay = r.out_pkts > n0 ? (double)(r.delay_sum - d0) / (r.out_pkts - n0) * 1e9 / CLK : 0;
        miss = c.ddio_lines ? (double)(s->ddio_misses - mis0) / (double)(s->ddio_hits - hit0 + s->ddio_misses - mis0) : 1.0;
        if (k == 0)
            base = tput;
        printf("RESULT host_sweep case=ddio%u_fp%u_%dx ddio_MB=%u footprint_MB=%u load_GBps=%.1f nic_gbps=%.2f tput_drop_pct=%.1f mean_delay_ns=%.0f "
               "stalled_writes=%" PRIu64 " stalled_write_frac=%.4f ddio_miss_rate=%.4f pause_frac=%.4f "
               "cpu_GBps=%.2f\n",
               c.ddio_lines * 64u >> 20, (unsigned)(fp_of[v] >> 20), k, c.ddio_lines * 64u >> 20, (unsigned)(fp_of[v] >> 20), load[k], tput, base > 0 ? 100.0 * (base - tput) / base : 0.0, delay, s->pcie_stalled_writes - sw0,
               (double)(s->pcie_stalled_writes - sw0) / (double)(s->pcie_writes - w0), miss,
               (double)(s->pause_cycles - pc0) / span, (double)(s->cpu_bytes_served - p0) * CLK / span / 1e9);
        CHECK_EQ(s->dropped, 0); /* PFC: lossless */
        rm(e);
    }
}

/* Found by tests/fuzz/fuzz_hostcc.c: a packet on the address space's last 64 B line (push_rx
 * accepts addr + len up to 2^64 - 1). The line's end, lo + 64, wrapped to 0, and the line
 * carried 64 - (addr mod 64) bytes instead of the packet's: 1 byte written counted 39. Every
 * payload byte must reach memory exactly once, as anywhere else. */
static void test_top_line_of_address_space(void)
{
    static const struct { uint64_t addr; uint32_t len; } cases[] = {
        { UINT64_MAX - 0x26u, 1 },     /* the fuzzer's input: 1 byte inside the top line */
        { UINT64_MAX - 1u, 1 },        /* the last byte push_rx accepts (addr + len <= 2^64 - 1) */
        { UINT64_MAX - 63u, 63 },      /* the top line up to that byte */
        { UINT64_MAX - 100u, 100 },    /* two lines, the second the top one */
        { UINT64_MAX - 1024u, 1024 },  /* five writes (mps boundaries), the last on the top line */
    };
    unsigned i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcc_host_config c;
        eng *e;
        rnic_work w, o;
        uint64_t writes = 0, lines = 0;
        hcc_host_config_default(&c);
        c.ddio_lines = i & 1u ? 0u : 256u; /* memory and DDIO */
        e = mk(&c);
        w = pkt(1, cases[i].addr, cases[i].len, i);
        CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        CHECK(hcc_host_advance(&e->h, 100000) > 0);
        CHECK_EQ(hcc_host_pop_rx(&e->h, &o), RNIC_OK);
        CHECK_EQ(o.tag, i);
        ref_split(cases[i].addr, cases[i].len, c.pcie_mps, &writes, &lines);
        CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_writes, writes);
        CHECK_EQ(hcc_host_get_stats(&e->h)->pcie_lines, lines);
        CHECK_EQ(hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio, cases[i].len);
        CHECK_EQ(hcc_host_pcie_credits(&e->h), c.iio_lines);
        CHECK_EQ(hcc_host_iio_occupancy(&e->h), 0);
        rm(e);
    }
}

/* Found by tests/fuzz/fuzz_hostcc.c: pcie_mps 371 with iio_lines 6 passed the config check
 * (pcie_mps/64 + 1 = 6), but a 371-byte write starting at byte 63 of a line touches 7 lines: it
 * waited for a 7th credit that does not exist, and the host never drained (advance ran forever).
 * Such a config is refused; with the credits one write can need, the same packet drains. */
static void test_credits_for_any_write(void)
{
    hcc_host_config c;
    const char *field = NULL;
    eng *e;
    rnic_work w, o;
    uint32_t mps;
    hcc_host_config_default(&c);
    c.ddio_lines = 0;
    c.iio_mem_credits = 1; /* <= iio_lines: out of the way */
    c.pcie_mps = 371;
    c.iio_lines = 6;
    CHECK_EQ(hcc_host_config_check(&c, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "iio_lines") == 0);
    CHECK_EQ(hcc_host_mem_size(&c), 0);
    for (mps = 64; mps <= 4096; mps += mps < 512 ? 1u : 61u) { /* the least credits accepted suffice */
        uint64_t most = 0, a;
        c.pcie_mps = mps;
        for (c.iio_lines = 1; hcc_host_config_check(&c, NULL) != RNIC_OK; c.iio_lines++)
            ;
        for (a = 0; a < 64; a++) { /* the lines the worst-placed write touches */
            uint64_t lines = ref_lines(a, mps);
            most = lines > most ? lines : most;
        }
        CHECK_EQ(c.iio_lines, most);
    }
    c.pcie_mps = 371;
    c.iio_lines = 7;
    e = mk(&c);
    w = pkt(1, 0x10000 + 371 * 8 + 63, 2000, 5); /* writes start at 63 bytes into a line */
    CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
    CHECK(hcc_host_advance(&e->h, 1000000) > 0);
    CHECK_EQ(hcc_host_pop_rx(&e->h, &o), RNIC_OK);
    CHECK_EQ(hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio, 2000);
    CHECK_EQ(hcc_host_pcie_credits(&e->h), 7);
    rm(e);
}

/* ---- cpu_evict_wb: who holds the write-back of a dirty I/O line a CPU fill evicts. Set-up of
 * the composed model at 3x: CPU window 400, queue 464, 30.3 GB/s offered, a 16 MB footprint
 * streamed through DDIO (every I/O write misses). References: (a) with _IO or _CPU, lines wait at
 * the IIO while none of them is at memory for at most a cycle (the hand-off); with _QUEUED the
 * CPU's write-backs fill the IIO's room and the IIO starves for long stretches. (b) with _IO every
 * I/O line reaches memory once on an IIO credit (its own allocation's write-back or a CPU
 * eviction's), so the FCFS share rule of test_memory_share holds for I/O data with DDIO on: the
 * RNIC gets mem_bps x 64 / 464 of memory (4.58 GB/s); with _CPU the CPU's window pays for the I/O
 * lines it evicts and the RNIC gets more. (c) with _IO at most iio_mem_credits such write-backs
 * are ever owed (the bound that defers further evictions). */
static void test_cpu_evict_wb(void)
{
    static const char *const name[3] = { "io", "cpu", "queued" };
    uint32_t mode;
    uint64_t starve_max[3] = { 0, 0, 0 }, bytes[3] = { 0, 0, 0 }, deferred = 0;
    const uint64_t n = 1200000, warm = 600000; /* the 4 MB of DDIO fills for free first */
    for (mode = 0; mode < 3; mode++) {
        hcc_host_config c;
        eng *e;
        uint64_t i, addr = 0, run = 0, b0 = 0;
        uint32_t owed_max = 0;
        rnic_work o;
        hcc_host_config_default(&c);
        c.pfc = false;
        c.cpu_outstanding = 400;
        c.mem_queue = 464;
        c.cpu_load_bps = GBPS(30.3);
        c.cpu_evict_wb = mode;
        e = mk(&c);
        for (i = 0; i < n; i++) {
            if (i == warm)
                b0 = hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio;
            if (hcc_host_space_rx(&e->h) >= 4096) {
                rnic_work w = pkt(0, addr, 4096, i);
                CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
                addr = (addr + 4096) % (16u << 20);
            }
            hcc_host_tick(&e->h);
            while (hcc_host_pop_rx(&e->h, &o) == RNIC_OK)
                ;
            if (mode == HCC_HOST_EVICT_WB_CPU)
                CHECK(e->h.cpu_out <= c.cpu_outstanding); /* fills and write-backs together */
            if (e->h.cpu_wb_pending > owed_max)
                owed_max = e->h.cpu_wb_pending;
            run = (i >= warm && e->h.iio_q.count && e->h.iio_at_mem + e->h.iio_wb_evicted == 0) ? run + 1 : 0;
            if (run > starve_max[mode])
                starve_max[mode] = run;
        }
        bytes[mode] = hcc_host_get_stats(&e->h)->bytes_to_memory_or_ddio - b0;
        if (mode == HCC_HOST_EVICT_WB_IO) {
            CHECK(owed_max <= c.iio_mem_credits);
            deferred = hcc_host_get_stats(&e->h)->ddio_cpu_evictions_deferred;
        }
        rm(e);
    }
    for (mode = 0; mode < 3; mode++)
        printf("  %-6s IIO starved at most %llu cycles; RNIC %.2f GB/s\n", name[mode],
               (unsigned long long)starve_max[mode], (double)bytes[mode] * CLK / (double)(n - warm) / 1e9);
    printf("  io: %llu CPU evictions deferred\n", (unsigned long long)deferred);
    CHECK(starve_max[HCC_HOST_EVICT_WB_IO] <= 1);
    CHECK(starve_max[HCC_HOST_EVICT_WB_CPU] <= 1);
    CHECK(starve_max[HCC_HOST_EVICT_WB_QUEUED] > 1000);
    {
        /* (b): share-rule bytes over the measured cycles, +-3 % (integer: 100 x |got - ref| <= 3 x ref) */
        uint64_t ref = 33200000000ull * 64u * (n - warm) / 464u / CLK;
        uint64_t got = bytes[HCC_HOST_EVICT_WB_IO], diff = got > ref ? got - ref : ref - got;
        CHECK(100u * diff <= 3u * ref);
    }
    CHECK(bytes[HCC_HOST_EVICT_WB_CPU] > bytes[HCC_HOST_EVICT_WB_IO]);
    CHECK(deferred > 0);
}

/* ---- rx_stage_packets: a record's offset counts from its entry into the receive pipeline, the
 * last rx_stage_packets packets of the buffer. Three 1 KB packets and a probe pushed at once with
 * a 3-deep stage: packets 0..2 enter at arrival (offset = aux); the probe, 4th, enters when
 * packet 0 leaves (offset = its cycle - packet 0's cycle). With the default 1 the probe enters
 * when packet 2 leaves (test_single_packet's rule). */
static void test_rx_stage(void)
{
    uint32_t k;
    for (k = 1; k <= 3; k += 2) {
        hcc_host_config c;
        eng *e;
        rnic_work w, o[4];
        int i;
        hcc_host_config_default(&c);
        c.ddio_lines = 0;
        c.rx_stage_packets = k;
        e = mk(&c);
        for (i = 0; i < 4; i++) {
            w = pkt(1, 0x100000u * (uint64_t)(i + 1), i == 3 ? 64u : 1024u, (uint64_t)i);
            if (i == 3)
                w.flags |= HCC_WORK_PROBE;
            CHECK_EQ(hcc_host_push_rx(&e->h, &w), RNIC_OK);
        }
        hcc_host_advance(&e->h, 1000);
        for (i = 0; i < 4; i++) {
            CHECK_EQ(hcc_host_pop_rx(&e->h, &o[i]), RNIC_OK);
            CHECK_EQ(o[i].tag, (uint64_t)i);
        }
        CHECK_EQ(o[0].offset, o[0].aux);
        CHECK_EQ(o[1].cycle - o[1].offset, k == 3 ? o[1].cycle - o[1].aux : o[0].cycle);
        CHECK_EQ(o[2].cycle - o[2].offset, k == 3 ? o[2].cycle - o[2].aux : o[1].cycle);
        CHECK_EQ(o[3].cycle - o[3].offset, k == 3 ? o[0].cycle : o[2].cycle);
        CHECK(o[3].offset < o[3].aux);
        rm(e);
    }
    {
        hcc_host_config c;
        hcc_host_config_default(&c);
        c.rx_stage_packets = 0;
        CHECK_EQ(hcc_host_config_check(&c, NULL), RNIC_EINVAL);
        c.rx_stage_packets = c.rx_packets + 1u;
        CHECK_EQ(hcc_host_config_check(&c, NULL), RNIC_EINVAL);
    }
}

int main(void)
{
    RUN(test_config);
    RUN(test_single_packet);
    RUN(test_100g_no_cpu);
    RUN(test_conservation);
    RUN(test_memory_share);
    RUN(test_mba_cap);
    RUN(test_iio_cum);
    RUN(test_pcie_stalls);
    RUN(test_pfc);
    RUN(test_nopfc_marking);
    RUN(test_ddio);
    RUN(test_bad_input);
    RUN(test_trace_layout);
    RUN(test_fast_forward);
    RUN(test_cpu_span);
    RUN(test_next_output);
    RUN(host_sweep);
    RUN(test_top_line_of_address_space);
    RUN(test_credits_for_any_write);
    RUN(test_cpu_evict_wb);
    RUN(test_rx_stage);
    return test_summary();
}
