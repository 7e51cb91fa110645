/* Error paths of every engine that the other tests do not take (found by make coverage,
 * docs/coverage.md): the engine contract (docs/engine_contract.md) says a NULL engine or record
 * pointer is RNIC_EINVAL everywhere, a bad config is refused with the offending field named and
 * X_mem_size 0, caller memory that is misaligned is RNIC_EINVAL and too small RNIC_ENOSPC, an
 * unknown id is refused and counted, and out-of-range rates are clamped and counted. Each check
 * below states one of those rules for one call. Also: each header's X_version string, and the
 * Palos weight table's group-weight change (Palos §IV-B: chunk = Grp_W x W x N / (sum Grp_W x
 * sum W)). */
#include "test.h"
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"

static uint64_t arena[1u << 17]; /* 1 MiB, 8-byte aligned */
#define ARENA ((void *)arena)

static int str_eq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* ---- version strings: "<header> MAJOR.MINOR.PATCH (common N)" from the header's macros ---- */

#define TEST_STR2(x) #x
#define TEST_STR(x) TEST_STR2(x)
static void test_version_strings_name_header_version_and_common_core(void)
{
    const char *common = " (common " TEST_STR(RNIC_COMMON_VERSION) ")";
    CHECK(str_eq(rl_version(), "ratelimit.h " TEST_STR(RL_VERSION_MAJOR) "." TEST_STR(RL_VERSION_MINOR) "." TEST_STR(RL_VERSION_PATCH) " (common " TEST_STR(RNIC_COMMON_VERSION) ")"));
    CHECK(str_eq(rq_version(), "rnicq.h " TEST_STR(RQ_VERSION_MAJOR) "." TEST_STR(RQ_VERSION_MINOR) "." TEST_STR(RQ_VERSION_PATCH) " (common " TEST_STR(RNIC_COMMON_VERSION) ")"));
    CHECK(str_eq(tp_version(), "transport.h " TEST_STR(TP_VERSION_MAJOR) "." TEST_STR(TP_VERSION_MINOR) "." TEST_STR(TP_VERSION_PATCH) " (common " TEST_STR(RNIC_COMMON_VERSION) ")"));
    CHECK(str_eq(hcc_version(), "hostcc.h " TEST_STR(HCC_VERSION_MAJOR) "." TEST_STR(HCC_VERSION_MINOR) "." TEST_STR(HCC_VERSION_PATCH) " (common " TEST_STR(RNIC_COMMON_VERSION) ")"));
    CHECK(strstr(rl_version(), common) != NULL);
}

/* ---- common core: a ring refuses a NULL element; an event in the past gives no idle span; a
 * layout that would pass SIZE_MAX is refused (a 32-bit target asking for more than its address
 * space) and leaves the offset as it was ---- */

static void test_common_ring_null_idle_span_past_and_layout_overflow(void)
{
    rnic_ring r;
    uint64_t mem[4];
    uint32_t v = 5;
    size_t off, at = 123;
    CHECK_EQ(rnic_ring_init(&r, sizeof v, 4, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(rnic_ring_push(&r, NULL), RNIC_EINVAL);
    CHECK_EQ(rnic_ring_count(&r), 0);
    CHECK_EQ(rnic_ring_push(&r, &v), RNIC_OK);
    CHECK_EQ(rnic_ring_count(&r), 1);

    CHECK_EQ(rnic_idle_span(100, 150, 1000), 50);
    CHECK_EQ(rnic_idle_span(100, 150, 20), 20);
    CHECK_EQ(rnic_idle_span(100, 99, 1000), 0); /* the event has passed */
    CHECK_EQ(rnic_idle_span(5, UINT64_MAX - 2u, 1000), 0); /* ... also across the wrap */
    CHECK_EQ(rnic_idle_span(100, RNIC_NEVER, 1000), 1000);

    off = 64;
    CHECK(!rnic__mem_reserve(&off, SIZE_MAX / 8u, 16, &at));
    CHECK_EQ(off, 64);
    CHECK_EQ(at, 123);
    off = SIZE_MAX - 4u;
    CHECK(!rnic__mem_reserve(&off, 1, 1, &at));
    off = 64;
    CHECK(rnic__mem_reserve(&off, 3, 4, &at)); /* 12 bytes, aligned up to 16 */
    CHECK_EQ(at, 64);
    CHECK_EQ(off, 80);
}

/* ---- hcc_host: every config bound names its field; X_mem_size is then 0 ---- */

typedef void (*host_bad_fn)(hcc_host_config *c);
#define HOST_BAD(name, stmt) \
    static void host_bad_##name(hcc_host_config *c) { stmt; }
HOST_BAD(rx_buffer_bytes, c->rx_buffer_bytes = 1023u)
HOST_BAD(rx_buffer_bytes_big, c->rx_buffer_bytes = (1u << 30) + 1u)
HOST_BAD(rx_packets, c->rx_packets = 0)
HOST_BAD(rx_packets_big, c->rx_packets = (1u << 24) + 1u)
HOST_BAD(xoff_bytes, (c->pfc = true, c->xoff_bytes = 0))
HOST_BAD(xoff_bytes_big, (c->pfc = true, c->xoff_bytes = c->rx_buffer_bytes + 1u))
HOST_BAD(cnp_bytes, c->cnp_bytes = c->rx_buffer_bytes + 1u)
HOST_BAD(pcie_bps, c->pcie_bps = 999999u)
HOST_BAD(pcie_bps_big, c->pcie_bps = 2000000000001ull)
HOST_BAD(pcie_latency_ns, c->pcie_latency_ns = 1000001u)
HOST_BAD(pcie_mps, c->pcie_mps = 63u)
HOST_BAD(pcie_mps_big, c->pcie_mps = 4097u)
HOST_BAD(pcie_tlp_overhead, c->pcie_tlp_overhead = 257u)
HOST_BAD(mem_bps, c->mem_bps = 7999999u)
HOST_BAD(mem_bps_big, c->mem_bps = ((uint64_t)1 << 43) + 1u)
HOST_BAD(mem_queue, c->mem_queue = 1u)
HOST_BAD(mem_queue_big, c->mem_queue = (1u << 20) + 1u)
HOST_BAD(cpu_outstanding, c->cpu_outstanding = 0)
HOST_BAD(cpu_outstanding_big, c->cpu_outstanding = (1u << 20) + 1u)
HOST_BAD(cpu_load_bps, c->cpu_load_bps = ((uint64_t)1 << 43) + 1u)
HOST_BAD(ddio_lines, c->ddio_lines = (1u << 26) + 1u)
HOST_BAD(cpu_evict_ppm, c->cpu_evict_ppm = 1000001u)
HOST_BAD(rx_depth, c->rx_depth = 0)
HOST_BAD(rx_depth_big, c->rx_depth = (1u << 20) + 1u)
HOST_BAD(signal_depth, c->signal_depth = 0)
HOST_BAD(signal_depth_big, c->signal_depth = (1u << 20) + 1u)

static void test_hcc_host_config_bounds_name_their_field(void)
{
    static const struct {
        host_bad_fn set;
        const char *field;
    } bad[] = {
        {host_bad_rx_buffer_bytes, "rx_buffer_bytes"}, {host_bad_rx_buffer_bytes_big, "rx_buffer_bytes"},
        {host_bad_rx_packets, "rx_packets"}, {host_bad_rx_packets_big, "rx_packets"},
        {host_bad_xoff_bytes, "xoff_bytes"}, {host_bad_xoff_bytes_big, "xoff_bytes"},
        {host_bad_cnp_bytes, "cnp_bytes"}, {host_bad_pcie_bps, "pcie_bps"}, {host_bad_pcie_bps_big, "pcie_bps"},
        {host_bad_pcie_latency_ns, "pcie_latency_ns"}, {host_bad_pcie_mps, "pcie_mps"},
        {host_bad_pcie_mps_big, "pcie_mps"}, {host_bad_pcie_tlp_overhead, "pcie_tlp_overhead"},
        {host_bad_mem_bps, "mem_bps"}, {host_bad_mem_bps_big, "mem_bps"}, {host_bad_mem_queue, "mem_queue"},
        {host_bad_mem_queue_big, "mem_queue"}, {host_bad_cpu_outstanding, "cpu_outstanding"},
        {host_bad_cpu_outstanding_big, "cpu_outstanding"}, {host_bad_cpu_load_bps, "cpu_load_bps"},
        {host_bad_ddio_lines, "ddio_lines"}, {host_bad_cpu_evict_ppm, "cpu_evict_ppm"},
        {host_bad_rx_depth, "rx_depth"}, {host_bad_rx_depth_big, "rx_depth"}, {host_bad_signal_depth, "signal_depth"},
        {host_bad_signal_depth_big, "signal_depth"},
    };
    hcc_host_config def, c;
    const char *field;
    size_t i;
    hcc_host_config_default(&def);
    field = "untouched";
    CHECK_EQ(hcc_host_config_check(&def, &field), RNIC_OK);
    CHECK(hcc_host_mem_size(&def) > 0);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = def;
        bad[i].set(&c);
        field = NULL;
        CHECK_EQ(hcc_host_config_check(&c, &field), RNIC_EINVAL);
        if (!str_eq(field, bad[i].field))
            printf("  case %u: field %s, want %s\n", (unsigned)i, field ? field : "(null)", bad[i].field);
        CHECK(str_eq(field, bad[i].field));
        CHECK_EQ(hcc_host_mem_size(&c), 0);
    }
}

/* ---- hcc_host / hcc_rx / hcc_tx: NULL engines, the rx controller's period, clamped rates ---- */

static void test_hostcc_null_engine_and_bad_inputs(void)
{
    hcc_rx_config rc;
    hcc_tx_config tc;
    hcc_tx_flow_config fc;
    hcc_tx *tx = (hcc_tx *)malloc(sizeof *tx);
    const char *field = NULL;
    CHECK_EQ(hcc_host_set_ecn(NULL, true), RNIC_EINVAL);
    CHECK_EQ(hcc_host_set_cpu_load(NULL, 1000u), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_sample_due(NULL), 0);
    CHECK_EQ(hcc_tx_flow_close(NULL, 0), RNIC_EINVAL);

    /* a sample period shorter than half a cycle rounds to 0 cycles: refused, field named */
    hcc_rx_config_default(&rc);
    rc.clock_hz = RNIC_CLOCK_MIN_HZ;
    rc.sample_period_ns = 1u; /* 0.1 cycle at 100 MHz */
    CHECK_EQ(hcc_rx_config_check(&rc, &field), RNIC_EINVAL);
    CHECK(str_eq(field, "sample_period_ns"));
    CHECK_EQ(hcc_rx_mem_size(&rc), 0);

    /* an opening rate outside [min_rate, line] is clamped into it and counted (contract: rates
     * are clamped and counted, never refused) */
    hcc_tx_config_default(&tc);
    hcc_tx_flow_config_default(&fc);
    CHECK(tx != NULL && hcc_tx_mem_size(&tc) <= sizeof arena);
    if (!tx)
        return;
    CHECK_EQ(hcc_tx_init(tx, &tc, ARENA, sizeof arena), RNIC_OK);
    fc.init_rate_bps = tc.link_bps + 1u;
    CHECK_EQ(hcc_tx_flow_open(tx, 0, &fc), RNIC_OK);
    CHECK_EQ(hcc_tx_get_stats(tx)->rate_clamped, 1);
    CHECK_EQ(hcc_tx_rate(tx, 0), tc.link_bps);
    fc.init_rate_bps = tc.link_bps;
    CHECK_EQ(hcc_tx_flow_open(tx, 1, &fc), RNIC_OK); /* in range: not counted */
    CHECK_EQ(hcc_tx_get_stats(tx)->rate_clamped, 1);
    if (tc.rate_floor_bps > 0) {
        fc.init_rate_bps = tc.rate_floor_bps - 1u;
        CHECK_EQ(hcc_tx_flow_open(tx, 2, &fc), RNIC_OK);
        CHECK_EQ(hcc_tx_get_stats(tx)->rate_clamped, 2);
        CHECK_EQ(hcc_tx_rate(tx, 2), tc.rate_floor_bps);
    }
    free(tx);
}

/* ---- ratelimit ---- */

static void test_ratelimit_bad_schedule_queue_and_null(void)
{
    rl_config c;
    const char *field = NULL;
    rl_config_default(&c);
    c.schedule_queue = RL_SCHEDULE_RANKED + 1u;
    CHECK_EQ(rl_config_check(&c, &field), RNIC_EINVAL);
    CHECK(str_eq(field, "schedule_queue"));
    CHECK_EQ(rl_mem_size(&c), 0);
    CHECK_EQ(rl_set_credit(NULL, 0, true), RNIC_EINVAL);
}

/* The ranked schedule's lookahead adds one MTU's time on the link (the longest a due QP waits for
 * a descriptor slot), capped at 2^30 cycles for a very slow link so the window stays below 2^31 */
static uint32_t no_wqes(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    (void)user, (void)flow, (void)index, (void)out, (void)max;
    return 0;
}

static void test_ratelimit_ranked_lookahead_one_mtu_capped(void)
{
    rl_config c;
    rl *r = (rl *)malloc(sizeof *r);
    uint32_t base;
    CHECK(r != NULL);
    if (!r)
        return;
    rl_config_default(&c);
    c.source = no_wqes;
    c.max_flows = 16;
    c.clock_hz = 250000000u;
    c.mtu = 1500;
    CHECK(rl_mem_size(&c) > 0 && rl_mem_size(&c) <= sizeof arena);
    CHECK_EQ(rl_init(r, &c, ARENA, sizeof arena), RNIC_OK);
    base = r->lookahead_cycles; /* FIFO schedule: L + height + 1 */
    CHECK_EQ(base, r->pcie_latency + r->heap_height + 1u);
    c.schedule_queue = RL_SCHEDULE_RANKED;
    c.link_bps = 100000000u; /* 100 Mb/s at 250 MHz: 20 cycles a byte, 30,000 an MTU */
    c.min_rate_bps = 1000u;
    CHECK_EQ(rl_init(r, &c, ARENA, sizeof arena), RNIC_OK);
    CHECK_EQ(r->lookahead_cycles, base + 30000u);
    c.link_bps = 1000u; /* 1 kb/s: 3 x 10^9 cycles an MTU, above the cap */
    CHECK_EQ(rl_init(r, &c, ARENA, sizeof arena), RNIC_OK);
    CHECK_EQ(r->lookahead_cycles, base + (1u << 30));
    free(r);
}

/* ---- rnicq: block plans, descriptors, the Palos weight table, status registers, QoS init ---- */

static void test_rnicq_helpers_refuse_bad_input(void)
{
    rq_block_plan plan;
    uint64_t l0[4] = {0}, l1[4] = {0}, word = 0;
    rq_status_regs s;
    rq_status st = RQ_IDLE;
    size_t need;
    /* a transfer whose destination range would wrap past 2^64 */
    CHECK_EQ(rq_block_plan_make(UINT64_MAX - 10u, 100u, 64u, &plan), RNIC_ERANGE);
    CHECK_EQ(rq_block_plan_make(UINT64_MAX - 100u, 100u, 64u, &plan), RNIC_OK); /* ends exactly at 2^64 - 1 */
    CHECK_EQ(rq_desc_decode(l0, l1, NULL), RNIC_EINVAL);

    /* status registers: bad memory, then unknown domain / channel / reader / half */
    need = rq_status_mem_size(2, 64);
    CHECK(need > 0 && need <= sizeof arena);
    CHECK_EQ(rq_status_init(&s, 2, 64, NULL, need), RNIC_EINVAL);
    CHECK_EQ(rq_status_init(&s, 2, 64, (unsigned char *)ARENA + 4, need), RNIC_EINVAL);
    CHECK_EQ(rq_status_init(&s, 2, 64, ARENA, need - 1u), RNIC_ENOSPC);
    CHECK_EQ(rq_status_init(&s, 2, 64, ARENA, need), RNIC_OK);
    CHECK_EQ(rq_status_set(&s, 1, 63, RQ_BUSY), RNIC_OK);
    CHECK_EQ(rq_status_set(&s, 1, 63, RQ_DONE), RNIC_OK);
    CHECK_EQ(rq_status_peek(&s, 1, 63), RQ_DONE);
    CHECK_EQ(rq_status_peek(&s, 2, 0), RQ_IDLE);  /* unknown domain reads as idle */
    CHECK_EQ(rq_status_peek(&s, 0, 64), RQ_IDLE); /* unknown channel */
    CHECK_EQ(rq_status_read_one(&s, 0, 2, 0, &st), RNIC_ENOENT);
    CHECK_EQ(rq_status_read_one(&s, 2, 0, 0, &st), RNIC_ENOENT);
    CHECK_EQ(rq_status_read_one(&s, 0, 0, 0, NULL), RNIC_ENOENT);
    CHECK_EQ(rq_status_read32(&s, 0, 0, 2, &word), RNIC_ENOENT); /* 64 channels: halves 0 and 1 */
    CHECK_EQ(rq_status_read32(&s, 0, 0, 0, NULL), RNIC_ENOENT);
    CHECK_EQ(s.stats.errors.by_cause[RNIC_ENOENT], 5);
}

/* rq_desc_encode refuses what the descriptor format cannot say (thesis Table 3.1: inline up to
 * 32 bytes and never congestion-managed; regular above 32 bytes; multipath only with CM; a
 * two-line descriptor needs its second line); rq_ids_take an unknown pool or no output */
static void test_rnicq_descriptor_encode_and_id_pool_refusals(void)
{
    rq_transfer t;
    uint64_t l0[4], l1[4];
    rq_ids_config ic;
    rq_ids ids;
    uint32_t id = 0;
    size_t need;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE;
    t.size = RQ_INLINE_MAX + 1u;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_EINVAL);
    t.size = 8;
    t.cm = true;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_EINVAL);
    t.cm = false;
    CHECK_EQ(rq_desc_encode(&t, l0, NULL), RNIC_OK); /* one line: no second needed */
    t.size = 9;
    CHECK_EQ(rq_desc_encode(&t, l0, NULL), RNIC_EINVAL); /* two lines, no second line */
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    t.kind = RQ_KIND_REGULAR;
    t.size = RQ_INLINE_MAX;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_EINVAL);
    t.size = RQ_INLINE_MAX + 1u;
    t.multipath = true;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_EINVAL);
    t.cm = true;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);

    rq_ids_config_default(&ic);
    need = rq_ids_mem_size(&ic);
    CHECK(need > 0 && need <= sizeof arena);
    CHECK_EQ(rq_ids_init(&ids, &ic, ARENA, sizeof arena), RNIC_OK);
    while (!rq_ids_ready(&ids))
        rq_ids_tick(&ids);
    CHECK_EQ(rq_ids_take(&ids, (rq_id_pool)3, &id), RNIC_EINVAL);
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_TID, NULL), RNIC_EINVAL);
    CHECK_EQ(ids.stats.errors.by_cause[RNIC_EINVAL], 2);
    CHECK_EQ(rq_ids_give_back(&ids, (rq_id_pool)3, 0), RNIC_ENOENT);
    CHECK_EQ(ids.stats.errors.by_cause[RNIC_ENOENT], 1);
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_TID, &id), RNIC_OK); /* the pool itself is intact */
}

static void test_palos_weights_memory_group_weight_and_unknown_qp(void)
{
    rq_pw_config c;
    rq_pw w;
    size_t need;
    rq_pw_config_default(&c);
    c.max_flows = 4;
    c.max_groups = 2;
    c.mtu = 1500;
    need = rq_pw_mem_size(&c);
    CHECK(need > 0 && need <= sizeof arena);
    c.max_flows = 0;
    CHECK_EQ(rq_pw_mem_size(&c), 0);
    CHECK_EQ(rq_pw_init(&w, &c, ARENA, sizeof arena), RNIC_EINVAL);
    c.max_flows = 4;
    CHECK_EQ(rq_pw_init(NULL, &c, ARENA, need), RNIC_EINVAL);
    CHECK_EQ(rq_pw_init(&w, &c, (unsigned char *)ARENA + 4, need), RNIC_EINVAL);
    CHECK_EQ(rq_pw_init(&w, &c, ARENA, need - 1u), RNIC_ENOSPC);
    CHECK_EQ(rq_pw_init(&w, &c, ARENA, need), RNIC_OK);
    /* two groups of weight 1 and 3, one QP of weight 1 each: N = 2 x 1500 = 3000 bytes, cut
     * 1 x 1 x 3000 / (4 x 1) = 750 and 3 x 1 x 3000 / (4 x 1) = 2250 */
    CHECK_EQ(rq_pw_create_group(&w, 0, 1), RNIC_OK);
    CHECK_EQ(rq_pw_create_group(&w, 1, 3), RNIC_OK);
    CHECK_EQ(rq_pw_set_qp(&w, 0, 0, 1), RNIC_OK);
    CHECK_EQ(rq_pw_set_qp(&w, 1, 1, 1), RNIC_OK);
    CHECK_EQ(rq_pw_next_chunk(&w, 0), 750);
    CHECK_EQ(rq_pw_next_chunk(&w, 1), 2250);
    /* the group weight register: equal weights cut N / 2 each */
    CHECK_EQ(rq_pw_set_group_weight(&w, 0, 3), RNIC_OK);
    CHECK_EQ(rq_pw_next_chunk(&w, 0), 1500);
    CHECK_EQ(rq_pw_next_chunk(&w, 1), 1500);
    /* a QP in no group gets no chunk; an unknown QP neither */
    CHECK_EQ(rq_pw_next_chunk(&w, 2), 0);
    CHECK_EQ(rq_pw_next_chunk(&w, 4), 0);
    CHECK_EQ(rq_pw_set_group_weight(&w, 2, 1) != RNIC_OK, 1); /* no group 2: refused, counted */
    CHECK_EQ(rq_pw_next_chunk(&w, 0), 1500);                   /* and nothing changed */
    CHECK(w.errors.by_cause[RNIC_ENOENT] + w.errors.by_cause[RNIC_EINVAL] >= 1);
}

static void test_qos_init_memory_and_bad_domain_queries(void)
{
    rq_qos_config c;
    rq_qos *q = (rq_qos *)malloc(sizeof *q);
    size_t need;
    rq_qos_config_default(&c);
    need = rq_qos_mem_size(&c);
    CHECK(q != NULL && need > 0 && need <= sizeof arena);
    if (!q)
        return;
    CHECK_EQ(rq_qos_init(NULL, &c, ARENA, need), RNIC_EINVAL);
    CHECK_EQ(rq_qos_init(q, &c, NULL, need), RNIC_EINVAL);
    CHECK_EQ(rq_qos_init(q, &c, (unsigned char *)ARENA + 4, need), RNIC_EINVAL);
    CHECK_EQ(rq_qos_init(q, &c, ARENA, need - 1u), RNIC_ENOSPC);
    CHECK_EQ(rq_qos_init(q, &c, ARENA, need), RNIC_OK);
    CHECK(rq_qos_domain_idle(q, 0));
    CHECK(!rq_qos_domain_idle(q, c.domains)); /* unknown domain: not "idle" */
    CHECK(!rq_qos_domain_idle(NULL, 0));
    CHECK_EQ(rq_qos_channel_status(q, c.domains, 0), RQ_IDLE);
    CHECK_EQ(rq_qos_channel_status(q, 0, c.write_channels), RQ_IDLE);
    CHECK_EQ(rq_qos_channel_status(NULL, 0, 0), RQ_IDLE);
    free(q);
}

/* ---- QoS engine: descriptor writes refused at the write stage (thesis §3.6.1), B FIFO full ---- */

static uint64_t qos_arena[2][1u << 17];

static rq_qos *qos_new(rq_qos *q, unsigned which, uint32_t bresp_depth)
{
    rq_qos_config c;
    rq_qos_config_default(&c);
    c.bresp_depth = bresp_depth;
    if (rq_qos_mem_size(&c) == 0 || rq_qos_mem_size(&c) > sizeof qos_arena[0] ||
        rq_qos_init(q, &c, qos_arena[which], sizeof qos_arena[0]) != RNIC_OK)
        return NULL;
    return q;
}

static uint32_t qos_addr(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

/* one 256-bit line as two 128-bit beats */
static void qos_write_line(rq_qos *q, uint32_t domain, uint32_t channel, const uint64_t w[4])
{
    uint64_t d[2];
    d[0] = w[0];
    d[1] = w[1];
    CHECK_EQ(rq_qos_axi_write(q, domain, qos_addr(domain, channel, 0), d, 16), RNIC_OK);
    d[0] = w[2];
    d[1] = w[3];
    CHECK_EQ(rq_qos_axi_write(q, domain, qos_addr(domain, channel, 2), d, 16), RNIC_OK);
}

/* ticks `cycles`, then pops every BRESP: the status of the last, and how many came */
static rnic_err qos_last_bresp(rq_qos *q, uint32_t cycles, uint32_t *count)
{
    rq_axi_bresp r;
    rnic_err last = RNIC_EEMPTY;
    uint32_t i;
    for (i = 0; i < cycles; i++)
        rq_qos_tick(q);
    *count = 0;
    while (rq_qos_pop_bresp(q, &r) == RNIC_OK) {
        last = r.status;
        (*count)++;
    }
    return last;
}

static void regular(rq_transfer *t, uint64_t src, uint64_t dst, uint64_t size)
{
    memset(t, 0, sizeof *t);
    t->kind = RQ_KIND_REGULAR;
    t->src = src;
    t->dst = dst;
    t->size = size;
}

static void test_qos_write_stage_refuses_bad_descriptors(void)
{
    static rq_qos engine;
    rq_qos *q = qos_new(&engine, 0, 8);
    rq_transfer t;
    uint64_t l0[4], l1[4], one[4], unused[4];
    uint32_t n;
    CHECK(q != NULL);
    if (!q)
        return;
    /* a regular transfer whose destination, or source, range would wrap past 2^64: the
     * descriptor's last beat is answered RNIC_ERANGE, nothing is queued */
    regular(&t, 0x1000, UINT64_MAX - 10u, 100u);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    qos_write_line(q, 0, 0, l0);
    qos_write_line(q, 0, 1, l1);
    CHECK_EQ(qos_last_bresp(q, 8, &n), RNIC_ERANGE);
    CHECK_EQ(n, 4);
    regular(&t, UINT64_MAX - 10u, 0x1000, 100u);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    qos_write_line(q, 0, 0, l0);
    qos_write_line(q, 0, 1, l1);
    CHECK_EQ(qos_last_bresp(q, 8, &n), RNIC_ERANGE);
    CHECK_EQ(n, 4);
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 0);
    CHECK_EQ(rq_qos_channel_status(q, 0, 0), RQ_IDLE);

    /* §3.6.1 ii: a descriptor's second line must follow its first: line 1 on channel 7 after
     * line 0 on channel 4 is refused (RNIC_ESTATE) */
    regular(&t, 0x1000, 0x2000, 100u);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    qos_write_line(q, 1, 4, l0);
    qos_write_line(q, 1, 7, l1);
    CHECK_EQ(qos_last_bresp(q, 8, &n), RNIC_ESTATE);
    CHECK_EQ(n, 4);

    /* the first line of a two-line descriptor on the last write channel: no channel for its
     * second line (RNIC_EINVAL) */
    qos_write_line(q, 2, 63, l0);
    CHECK_EQ(qos_last_bresp(q, 8, &n), RNIC_EINVAL);
    CHECK_EQ(n, 2);

    /* ... or with its second channel busy with another transfer (RNIC_EBUSY) */
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE;
    t.size = 8;
    t.dst = 0x3000;
    CHECK_EQ(rq_desc_encode(&t, one, unused), RNIC_OK);
    CHECK_EQ(rq_desc_lines(one[3]), 1);
    qos_write_line(q, 3, 11, one);
    CHECK_EQ(qos_last_bresp(q, 4, &n), RNIC_OK);
    CHECK_EQ(rq_qos_channel_status(q, 3, 11), RQ_BUSY);
    qos_write_line(q, 3, 10, l0);
    CHECK_EQ(qos_last_bresp(q, 8, &n), RNIC_EBUSY);
    CHECK_EQ(n, 2);
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 1); /* only the inline one */
}

/* A full B FIFO stalls the write stage (counted per cycle, bresp_stalls); no beat is lost, and
 * fast-forward over the stall counts what ticking counts. */
static void test_qos_full_bresp_fifo_stalls_and_advance_equals_ticking(void)
{
    static rq_qos a_engine, b_engine;
    rq_qos *a = qos_new(&a_engine, 0, 2), *b = qos_new(&b_engine, 1, 2);
    rq_transfer t;
    uint64_t one[4], unused[4];
    uint32_t i, n, got = 0;
    CHECK(a != NULL && b != NULL);
    if (!a || !b)
        return;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE;
    t.size = 8;
    t.dst = 0x4000;
    CHECK_EQ(rq_desc_encode(&t, one, unused), RNIC_OK);
    for (i = 0; i < 2; i++) { /* 4 beats; the B FIFO holds 2 */
        qos_write_line(a, 0, 20u + i, one);
        qos_write_line(b, 0, 20u + i, one);
    }
    for (i = 0; i < 50; i++)
        rq_qos_tick(a);
    n = (uint32_t)rq_qos_advance(b, 50);
    while (n < 50u) { /* advance may stop early (a port filled): go on, as a caller does */
        uint64_t k = rq_qos_advance(b, 50u - n);
        if (k == 0)
            break;
        n += (uint32_t)k;
    }
    CHECK_EQ(n, 50);
    CHECK_EQ(rq_qos_now(a), rq_qos_now(b));
    CHECK(rq_qos_get_stats(a)->bresp_stalls > 40u);
    CHECK_EQ(rq_qos_get_stats(a)->bresp_stalls, rq_qos_get_stats(b)->bresp_stalls);
    CHECK_EQ(rq_qos_get_stats(a)->beats, 2);
    for (i = 0; i < 3; i++) { /* drain: every beat answered OK, both descriptors enqueued */
        rnic_err e = qos_last_bresp(a, 4, &n);
        got += n;
        if (n)
            CHECK_EQ(e, RNIC_OK);
    }
    CHECK_EQ(got, 4);
    CHECK_EQ(rq_qos_get_stats(a)->transfers_enqueued, 2);
}

/* Status reads (Fig. 3.6): a full read port answers RNIC_EBUSY and counts it; a read of an
 * unknown mode is answered RNIC_EINVAL on the R channel and counted */
static void test_qos_status_read_port_full_and_unknown_mode(void)
{
    static rq_qos engine;
    rq_qos *q = qos_new(&engine, 0, 8);
    rq_axi_rdata d;
    uint32_t room, i;
    uint64_t busy0;
    CHECK(q != NULL);
    if (!q)
        return;
    room = rq_qos_space_axi_read(q);
    CHECK(room > 0u);
    CHECK_EQ(rq_qos_axi_read(q, 0, 0, 0, 2), RNIC_OK); /* mode 2: no such read */
    for (i = 1; i < room; i++)
        CHECK_EQ(rq_qos_axi_read(q, 0, 0, 0, 0), RNIC_OK);
    busy0 = rq_qos_get_stats(q)->errors.by_cause[RNIC_EBUSY];
    CHECK_EQ(rq_qos_space_axi_read(q), 0);
    CHECK_EQ(rq_qos_axi_read(q, 0, 0, 0, 0), RNIC_EBUSY);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EBUSY], busy0 + 1u);
    rq_qos_tick(q);
    rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_rdata(q, &d), RNIC_OK);
    CHECK_EQ(d.status, RNIC_EINVAL);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EINVAL], 1);
    CHECK_EQ(rq_qos_pop_rdata(q, &d), RNIC_EEMPTY); /* one read per cycle */
    rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_rdata(q, &d), RNIC_OK); /* the next read, of channel 0: idle */
    CHECK_EQ(d.status, RNIC_OK);
    CHECK_EQ(d.data, RQ_IDLE);
}

/* Remote reads (§3.11) take free read channels of their domain; with every read channel of the
 * domain held by unfinished transfers the next request waits (remote_waits, per cycle) in its
 * port, nothing lost. The port is one FIFO for every domain: a request of another domain behind
 * it waits too (head of line; docs/coverage.md notes it as a question for the QoS model) */
static void test_qos_remote_read_waits_for_a_free_read_channel(void)
{
    static rq_qos engine;
    rq_qos_config c;
    rq_qos *q = &engine;
    rq_transfer t;
    rnic_work w;
    uint32_t pushed = 0, k;
    rq_qos_config_default(&c);
    c.read_channels = 8; /* 4 two-line regular transfers fill them */
    CHECK(rq_qos_mem_size(&c) > 0 && rq_qos_mem_size(&c) <= sizeof qos_arena[0]);
    CHECK_EQ(rq_qos_init(q, &c, qos_arena[0], sizeof qos_arena[0]), RNIC_OK);
    regular(&t, 0x10000, 0x20000, 100u);
    for (k = 0; k < 400u; k++) {
        if (pushed < 5u && rq_qos_push_remote_read(q, 2, &t) == RNIC_OK)
            pushed++;
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &w) == RNIC_OK) /* blocks go out; no ACK comes back */
            ;
    }
    CHECK_EQ(pushed, 5);
    CHECK_EQ(rq_qos_get_stats(q)->remote_reads, 4); /* the fifth has no read channel */
    CHECK(rq_qos_get_stats(q)->remote_waits > 300u);
    CHECK_EQ(rq_qos_push_remote_read(q, 3, &t), RNIC_OK); /* behind the waiting one: FIFO */
    for (k = 0; k < 50u; k++) {
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &w) == RNIC_OK)
            ;
    }
    CHECK_EQ(rq_qos_get_stats(q)->remote_reads, 4); /* one request port, in order (head-of-line) */
}

/* ---- transport: NULL engines, the outside pacer's calls, flow views, the receiver ---- */

static tp *tp_new(bool external_pacer)
{
    tp_config c;
    tp *t = (tp *)malloc(sizeof *t);
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 4;
    c.external_pacer = external_pacer;
    /* an outside pacer needs a rate protocol */
    c.protocol = external_pacer ? tp_protocol_dcqcn() : tp_protocol_newreno();
    if (!t || tp_mem_size(&c) == 0 || tp_mem_size(&c) > sizeof arena || tp_init(t, &c, ARENA, sizeof arena) != RNIC_OK) {
        free(t);
        return NULL;
    }
    return t;
}

static void test_transport_null_and_unknown_flows(void)
{
    tp *t;
    tp_flow_config fp;
    tp_flow_view v;
    rnic_work w;
    uint64_t before;
    memset(&w, 0, sizeof w);
    tp_config_default(NULL); /* documented no-ops on NULL */
    tp_flow_config_default(NULL);
    tp_flow_config_default(&fp);
    CHECK_EQ(tp_flow_open(NULL, 0, &fp), RNIC_EINVAL);
    CHECK_EQ(tp_flow_close(NULL, 0), RNIC_EINVAL);
    CHECK_EQ(tp_push_incoming(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(tp_push_consumed(NULL, &(rnic_work){.flow = 0, .index = 0}), RNIC_EINVAL);
    CHECK_EQ(tp_pacer_source(NULL, 0, 0, &w, 1), 0);
    CHECK_EQ(tp_flow_state(NULL, 0, &v), RNIC_EINVAL);

    t = tp_new(false);
    CHECK(t != NULL);
    if (!t)
        return;
    /* tp_push_consumed without an outside pacer: a state error, counted; a NULL record EINVAL */
    before = t->stats.errors.by_cause[RNIC_ESTATE];
    CHECK_EQ(tp_push_consumed(t, &(rnic_work){.flow = 0, .index = 0}), RNIC_ESTATE);
    CHECK_EQ(t->stats.errors.by_cause[RNIC_ESTATE], before + 1u);
    CHECK_EQ(tp_flow_state(t, 0, NULL), RNIC_EINVAL);
    CHECK_EQ(tp_flow_state(t, 4, &v), RNIC_ENOENT); /* beyond max_flows */
    CHECK_EQ(tp_flow_state(t, 1, &v), RNIC_ENOENT); /* never opened */
    CHECK(!v.open);
    CHECK_EQ(tp_flow_open(t, 1, &fp), RNIC_OK);
    CHECK_EQ(tp_flow_state(t, 1, &v), RNIC_OK);
    CHECK(v.open);
    free(t);

    t = tp_new(true);
    CHECK(t != NULL);
    if (!t)
        return;
    before = t->stats.errors.by_cause[RNIC_ENOENT];
    CHECK_EQ(tp_push_consumed(t, &(rnic_work){.flow = 4, .index = 0}), RNIC_ENOENT); /* beyond max_flows */
    CHECK_EQ(tp_push_consumed(t, &(rnic_work){.flow = 2, .index = 0}), RNIC_ENOENT); /* not open */
    CHECK_EQ(t->stats.errors.by_cause[RNIC_ENOENT], before + 2u);
    CHECK_EQ(tp_pacer_source(t, 2, 0, &w, 1), 0);      /* a closed flow has no entries */
    CHECK_EQ(tp_pacer_source(t, 9, 0, &w, 1), 0);
    free(t);
}

/* A programmable rate protocol (Tonic §3.5) that asks, on each CNP, for a rate above the link,
 * then one below min_rate, then 0: the contract clamps the first two into [min_rate, link] and
 * counts them (rate_clamped); 0 pauses the flow and is not a clamp. */
static void clamp_proto_init(const tp_flow_config *p, const void *config, uint64_t clock_hz, void *ctx, tp_actions *act)
{
    (void)config;
    (void)clock_hz;
    memset(ctx, 0, 8);
    act->rate_bps = p->init_rate_bps;
}

static void clamp_proto_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    static const uint64_t asks[3] = {UINT64_MAX / 2u, 1u, 0u};
    uint64_t n;
    if (ev->pkt_type != TP_PKT_CNP)
        return;
    memcpy(&n, ctx, sizeof n);
    act->rate_bps = asks[n % 3u];
    n++;
    memcpy(ctx, &n, sizeof n);
}

static void test_transport_out_of_range_rates_clamped_and_counted(void)
{
    tp_protocol proto;
    tp_config c;
    tp *t = (tp *)malloc(sizeof *t);
    tp_flow_config fp;
    tp_flow_view v;
    rnic_work cnp;
    uint64_t want[3];
    uint32_t i, k;
    memset(&proto, 0, sizeof proto);
    proto.name = "clamp-test";
    proto.credit = TP_CREDIT_RATE;
    proto.ctx_size = 8;
    proto.init = clamp_proto_init;
    proto.incoming = clamp_proto_incoming;
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 2;
    c.protocol = &proto;
    CHECK(t != NULL && tp_mem_size(&c) > 0 && tp_mem_size(&c) <= sizeof arena);
    if (!t)
        return;
    CHECK_EQ(tp_init(t, &c, ARENA, sizeof arena), RNIC_OK);
    tp_flow_config_default(&fp);
    fp.init_rate_bps = c.link_bps / 2u;
    CHECK_EQ(tp_flow_open(t, 0, &fp), RNIC_OK);
    CHECK_EQ(tp_flow_state(t, 0, &v), RNIC_OK);
    CHECK_EQ(v.rate_bps, c.link_bps / 2u);
    CHECK_EQ(t->stats.rate_clamped, 0);
    want[0] = c.link_bps;
    want[1] = c.min_rate_bps;
    want[2] = 0;
    memset(&cnp, 0, sizeof cnp);
    cnp.flow = 0;
    cnp.flags = TP_WORK_PKT(TP_PKT_CNP);
    for (i = 0; i < 3; i++) {
        CHECK_EQ(tp_push_incoming(t, &cnp), RNIC_OK);
        for (k = 0; k < 20; k++)
            tp_tick(t);
        CHECK_EQ(tp_flow_state(t, 0, &v), RNIC_OK);
        CHECK_EQ(v.rate_bps, want[i]);
        CHECK_EQ(t->stats.rate_clamped, i < 2u ? i + 1u : 2u);
    }
    free(t);
}

/* Segment ids are 32-bit serial numbers compared within 2^31: a message that would leave more
 * than 2^31 - 1 segments between the window's start and the data's end is refused (RNIC_ERANGE,
 * counted) and changes nothing; one that fits exactly is taken */
static void test_transport_message_beyond_the_id_space_refused(void)
{
    tp *t = tp_new(false);
    tp_flow_config fp;
    tp_flow_view v;
    rnic_work m;
    CHECK(t != NULL);
    if (!t)
        return;
    tp_flow_config_default(&fp);
    fp.seg_size = 1;
    fp.max_burst = 2;
    CHECK_EQ(tp_flow_open(t, 0, &fp), RNIC_OK);
    memset(&m, 0, sizeof m);
    m.flow = 0;
    m.len = 0x80000000u; /* 2^31 one-byte segments */
    CHECK_EQ(tp_push_message(t, &m), RNIC_ERANGE);
    CHECK_EQ(t->stats.errors.by_cause[RNIC_ERANGE], 1);
    CHECK_EQ(tp_flow_state(t, 0, &v), RNIC_OK);
    CHECK_EQ(v.data_end, v.wnd_start);
    CHECK_EQ(v.messages, 0);
    m.len = 0x7fffffffu;
    CHECK_EQ(tp_push_message(t, &m), RNIC_OK);
    CHECK_EQ(tp_flow_state(t, 0, &v), RNIC_OK);
    CHECK_EQ(v.data_end - v.wnd_start, 0x7fffffffu);
    m.len = 1; /* one more segment would reach 2^31 */
    CHECK_EQ(tp_push_message(t, &m), RNIC_ERANGE);
    CHECK_EQ(t->stats.errors.by_cause[RNIC_ERANGE], 2);
    free(t);
}

/* tp_actions.mark_rtx is clipped to the sent part of the window (api.h): a window protocol that
 * marks [wnd_start - 5, highest_sent + 100) on a CNP gets exactly the sent, unacknowledged
 * segments retransmitted, once each, in order */
static void wide_mark_init(const tp_flow_config *p, const void *config, uint64_t clock_hz, void *ctx, tp_actions *act)
{
    (void)p, (void)config, (void)clock_hz, (void)ctx;
    act->wnd_size = 4;
    act->timer_amount = (uint64_t)1 << 40; /* no timeout within the test */
}

static void wide_mark_incoming(const tp_event *ev, void *ctx, tp_actions *act)
{
    (void)ctx;
    act->wnd_size = 4;
    if (ev->pkt_type != TP_PKT_CNP)
        return;
    act->mark_rtx = true;
    act->mark_from = ev->wnd_start - 5u;
    act->mark_to = ev->highest_sent + 100u;
}

static void test_transport_marks_clipped_to_the_sent_window(void)
{
    tp_protocol proto;
    tp_config c;
    tp *t = (tp *)malloc(sizeof *t);
    tp_flow_config fp;
    rnic_work m, s, cnp;
    uint32_t k, sent = 0, rtx = 0, first = 0;
    memset(&proto, 0, sizeof proto);
    proto.name = "wide-mark-test";
    proto.credit = TP_CREDIT_WINDOW;
    proto.ctx_size = 8;
    proto.init = wide_mark_init;
    proto.incoming = wide_mark_incoming;
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 2;
    c.protocol = &proto;
    CHECK(t != NULL && tp_mem_size(&c) > 0 && tp_mem_size(&c) <= sizeof arena);
    if (!t)
        return;
    CHECK_EQ(tp_init(t, &c, ARENA, sizeof arena), RNIC_OK);
    tp_flow_config_default(&fp);
    CHECK_EQ(tp_flow_open(t, 0, &fp), RNIC_OK);
    memset(&m, 0, sizeof m);
    m.flow = 0;
    m.len = 10000; /* 10 segments; the window lets 4 out */
    CHECK_EQ(tp_push_message(t, &m), RNIC_OK);
    for (k = 0; k < 200u; k++) {
        tp_tick(t);
        while (tp_pop_segment(t, &s) == RNIC_OK) {
            CHECK_EQ(s.flags & TP_WORK_RTX, 0);
            if (sent == 0)
                first = s.index;
            sent++;
        }
    }
    CHECK_EQ(sent, 4);
    memset(&cnp, 0, sizeof cnp);
    cnp.flow = 0;
    cnp.flags = TP_WORK_PKT(TP_PKT_CNP);
    CHECK_EQ(tp_push_incoming(t, &cnp), RNIC_OK);
    for (k = 0; k < 200u; k++) {
        tp_tick(t);
        while (tp_pop_segment(t, &s) == RNIC_OK) {
            CHECK(s.flags & TP_WORK_RTX);
            CHECK_EQ(s.index, first + rtx); /* the sent ones, in order, nothing beyond */
            rtx++;
        }
    }
    CHECK_EQ(rtx, 4);
    free(t);
}

/* DCQCN's flow parameter 0 is the flow's window (segments); 0 keeps the protocol's default */
static void test_transport_dcqcn_window_parameter(void)
{
    tp_config c;
    tp *t = (tp *)malloc(sizeof *t);
    tp_flow_config fp;
    tp_flow_view v0, v1;
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 2;
    c.protocol = tp_protocol_dcqcn();
    CHECK(t != NULL && tp_mem_size(&c) > 0 && tp_mem_size(&c) <= sizeof arena);
    if (!t)
        return;
    CHECK_EQ(tp_init(t, &c, ARENA, sizeof arena), RNIC_OK);
    tp_flow_config_default(&fp);
    CHECK_EQ(tp_flow_open(t, 0, &fp), RNIC_OK);
    fp.param[0] = 7;
    CHECK_EQ(tp_flow_open(t, 1, &fp), RNIC_OK);
    CHECK_EQ(tp_flow_state(t, 0, &v0), RNIC_OK);
    CHECK_EQ(tp_flow_state(t, 1, &v1), RNIC_OK);
    CHECK_EQ(v1.wnd_size, 7);
    CHECK(v0.wnd_size != 7u);
    free(t);
}

/* IRN's and NDP's periodic hooks act on a timeout only; a variant that visits every cycle
 * (periodic_every_visit, a copy of the protocol) sends exactly what the protocol sends. And a
 * control packet a protocol has no use for (a GRANT to DCQCN, a CNP to IRN) changes nothing. */
static uint32_t run_segments(const tp_protocol *proto, const rnic_work *extra, rnic_work *out, uint32_t max)
{
    static uint64_t mem[1u << 15];
    tp_config c;
    tp *t = (tp *)malloc(sizeof *t);
    tp_flow_config fp;
    rnic_work m, s;
    uint32_t n = 0, k;
    tp_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 2;
    c.protocol = proto;
    if (!t || tp_mem_size(&c) == 0 || tp_mem_size(&c) > sizeof mem || tp_init(t, &c, mem, sizeof mem) != RNIC_OK) {
        free(t);
        return 0;
    }
    tp_flow_config_default(&fp);
    CHECK_EQ(tp_flow_open(t, 1, &fp), RNIC_OK);
    memset(&m, 0, sizeof m);
    m.flow = 1;
    m.len = 20000; /* 20 segments of 1,000 bytes */
    m.tag = 77;
    CHECK_EQ(tp_push_message(t, &m), RNIC_OK);
    for (k = 0; k < 3000u; k++) {
        if (k == 5u && extra)
            CHECK_EQ(tp_push_incoming(t, extra), RNIC_OK);
        tp_tick(t);
        while (tp_pop_segment(t, &s) == RNIC_OK)
            if (n < max)
                out[n++] = s;
    }
    free(t);
    return n;
}

static int same_segments(const rnic_work *a, const rnic_work *b, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (a[i].cycle != b[i].cycle || a[i].index != b[i].index || a[i].len != b[i].len || a[i].flags != b[i].flags)
            return 0;
    return 1;
}

static void test_transport_periodic_every_visit_variants_and_unused_packets(void)
{
    static rnic_work a[64], b[64];
    const tp_protocol *base[2];
    tp_protocol variant;
    rnic_work grant, cnp;
    uint32_t i, na, nb;
    base[0] = tp_protocol_irn();
    base[1] = tp_protocol_ndp();
    for (i = 0; i < 2; i++) {
        variant = *base[i];
        variant.periodic_every_visit = true;
        na = run_segments(base[i], NULL, a, 64);
        nb = run_segments(&variant, NULL, b, 64);
        CHECK(na > 0u);
        CHECK_EQ(na, nb);
        CHECK(same_segments(a, b, na < nb ? na : nb));
    }
    memset(&grant, 0, sizeof grant);
    grant.flow = 1;
    grant.flags = TP_WORK_PKT(TP_PKT_GRANT);
    grant.aux = 1000000u;
    na = run_segments(tp_protocol_dcqcn(), NULL, a, 64);
    nb = run_segments(tp_protocol_dcqcn(), &grant, b, 64);
    CHECK(na > 0u);
    CHECK_EQ(na, nb);
    CHECK(same_segments(a, b, na < nb ? na : nb));
    memset(&cnp, 0, sizeof cnp);
    cnp.flow = 1;
    cnp.flags = TP_WORK_PKT(TP_PKT_CNP);
    na = run_segments(tp_protocol_irn(), NULL, a, 64);
    nb = run_segments(tp_protocol_irn(), &cnp, b, 64);
    CHECK(na > 0u);
    CHECK_EQ(na, nb);
    CHECK(same_segments(a, b, na < nb ? na : nb));
}

static void test_transport_bits_helpers_on_no_bitmap(void)
{
    tp_bits none;
    memset(&none, 0, sizeof none);
    CHECK_EQ(tp_bits_count(NULL, 0, 10), 0);
    CHECK_EQ(tp_bits_count(&none, 0, 10), 0);
    CHECK_EQ(tp_bits_find_first(NULL, 3, 10), 10);      /* none found: `to` */
    CHECK_EQ(tp_bits_find_first_zero(&none, 3, 10), 10);
}

static void test_transport_receiver_null_and_unknown_flow(void)
{
    tp_rx_config c;
    tp_rx *r = (tp_rx *)malloc(sizeof *r);
    rnic_work w;
    tp_rx_flow_view exp;
    const char *field = NULL;
    tp_rx_config_default(NULL);
    CHECK_EQ(tp_rx_config_check(NULL, &field), RNIC_EINVAL);
    CHECK(str_eq(field, "cfg"));
    CHECK_EQ(tp_rx_flow_open(NULL, 0, NULL), RNIC_EINVAL);
    CHECK_EQ(tp_rx_advance(NULL, 10), 0);
    CHECK_EQ(tp_rx_pop_ack(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(tp_rx_peek_delivered(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(tp_rx_flow_state(NULL, 0, &exp), RNIC_EINVAL);
    tp_rx_config_default(&c);
    c.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.max_flows = 4;
    CHECK(r != NULL && tp_rx_mem_size(&c) > 0 && tp_rx_mem_size(&c) <= sizeof arena);
    if (!r)
        return;
    CHECK_EQ(tp_rx_init(r, &c, ARENA, sizeof arena), RNIC_OK);
    CHECK_EQ(tp_rx_flow_state(r, 0, NULL), RNIC_EINVAL);
    CHECK_EQ(tp_rx_flow_state(r, 1, &exp), RNIC_ENOENT); /* not open: all zero and ENOENT */
    CHECK(!exp.open && exp.expected == 0);
    exp.expected = 7;
    CHECK_EQ(tp_rx_flow_state(r, 4, &exp), RNIC_ENOENT); /* beyond max_flows */
    CHECK_EQ(exp.expected, 0);
    CHECK_EQ(tp_rx_flow_open(r, 1, &(tp_rx_flow_config){.init_seq = 1000u}), RNIC_OK);
    CHECK_EQ(tp_rx_flow_state(r, 1, &exp), RNIC_OK);
    CHECK(exp.open && exp.expected == 1000 && exp.held == 0 && exp.pending == 0);
    free(r);
}

int main(void)
{
    RUN(test_version_strings_name_header_version_and_common_core);
    RUN(test_common_ring_null_idle_span_past_and_layout_overflow);
    RUN(test_hcc_host_config_bounds_name_their_field);
    RUN(test_hostcc_null_engine_and_bad_inputs);
    RUN(test_ratelimit_bad_schedule_queue_and_null);
    RUN(test_ratelimit_ranked_lookahead_one_mtu_capped);
    RUN(test_rnicq_helpers_refuse_bad_input);
    RUN(test_rnicq_descriptor_encode_and_id_pool_refusals);
    RUN(test_palos_weights_memory_group_weight_and_unknown_qp);
    RUN(test_qos_init_memory_and_bad_domain_queries);
    RUN(test_qos_write_stage_refuses_bad_descriptors);
    RUN(test_qos_full_bresp_fifo_stalls_and_advance_equals_ticking);
    RUN(test_qos_status_read_port_full_and_unknown_mode);
    RUN(test_qos_remote_read_waits_for_a_free_read_channel);
    RUN(test_transport_null_and_unknown_flows);
    RUN(test_transport_out_of_range_rates_clamped_and_counted);
    RUN(test_transport_message_beyond_the_id_space_refused);
    RUN(test_transport_marks_clipped_to_the_sent_window);
    RUN(test_transport_dcqcn_window_parameter);
    RUN(test_transport_periodic_every_visit_variants_and_unused_packets);
    RUN(test_transport_bits_helpers_on_no_bitmap);
    RUN(test_transport_receiver_null_and_unknown_flow);
    return test_summary();
}
