/* The compile-time size macros (RL_MEM_SIZE, RQ_QOS_MEM_SIZE, RQ_PALOS_MEM_SIZE, TP_MEM_SIZE,
 * TP_RX_MEM_SIZE, HCC_HOST_MEM_SIZE, HCC_RX_MEM_SIZE, HCC_TX_MEM_SIZE) against the engines'
 * X_mem_size: equal for the default config and for many seeded random valid configs (a
 * property test; every engine must see at least MIN_VALID valid configs, or the case fails,
 * so a generator that only makes invalid configs cannot pass quietly). The macros must also be
 * integer constant expressions: the file-scope arrays below are sized by them, and each one's
 * size is compared with its engine's X_mem_size of the same config, then initialised with it. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "test.h"

#define CONFIGS 4000u   /* random configs drawn per engine */
#define MIN_VALID 1000u /* of which at least this many must be valid */

static uint64_t g_seed;

/* ---- constant expressions: static buffers sized at compile time (as firmware does) ---- */
static uint64_t rl_buf[RL_MEM_SIZE(16, 1, RL_SCHEDULE_RANKED, 160, 250000000u, 8, 60, 8) / 8u];
static uint64_t qos_buf[RQ_QOS_MEM_SIZE(2, 32, 32, 4, 2, 64, 8, 2, 8, 8, 8, 4, 16, 8, 8) / 8u];
static uint64_t palos_buf[RQ_PALOS_MEM_SIZE(16, 2, 16, 2, 64) / 8u];
static uint64_t tp_buf[TP_MEM_SIZE(4, 128, 4, 8, 64, 16, 64, sizeof(tp_tcp_ctx)) / 8u];
static uint64_t tp_rx_buf[TP_RX_MEM_SIZE(4, 128, 64, 64, 64, 50, TP_RX_CNP_DEFERRED, 0) / 8u];
static uint64_t hcc_host_buf[HCC_HOST_MEM_SIZE(64, 8, 4, 64, 64, 256) / 8u];
static uint64_t hcc_rx_buf[HCC_RX_MEM_SIZE(4, 4) / 8u];
static uint64_t hcc_tx_buf[HCC_TX_MEM_SIZE(4, 8, 8) / 8u];
/* a case label must be an integer constant expression too */
static int is_rl_default_size(size_t n)
{
    switch (n) {
    case RL_MEM_SIZE(1024, 1, RL_SCHEDULE_FIFO, 1000, 250000000u, 64, 60, 8):
        return 1;
    default:
        return 0;
    }
}

static uint32_t src_none(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    (void)user, (void)flow, (void)index, (void)out, (void)max;
    return 0;
}

/* A value in [lo, hi], log-uniform-ish (a random bit width first), so that small and large
 * sizes both come up; now and then exactly lo or hi. */
static uint64_t draw(rnic_prng *p, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo, v;
    unsigned bits;
    switch (rnic_prng_below(p, 8)) {
    case 0:
        return lo;
    case 1:
        return hi;
    default:
        break;
    }
    bits = (unsigned)rnic_prng_below(p, 64) + 1u;
    v = rnic_prng_next(p);
    if (bits < 64)
        v &= ((uint64_t)1 << bits) - 1u;
    return span == UINT64_MAX ? v : lo + v % (span + 1u);
}
static uint32_t draw32(rnic_prng *p, uint32_t lo, uint32_t hi) { return (uint32_t)draw(p, lo, hi); }
static uint32_t pick(rnic_prng *p, const uint32_t *v, uint32_t n) { return v[rnic_prng_below(p, n)]; }

static const uint32_t windows[] = {64u, 128u, 256u};

/* ---------------- the defaults ---------------- */
static void test_defaults(void)
{
    rl_config rc;
    rq_qos_config qc;
    rq_palos_config pc;
    tp_config tc;
    tp_rx_config xc;
    hcc_host_config hc;
    hcc_rx_config cc;
    hcc_tx_config sc;
    rl_config_default(&rc);
    rc.source = src_none;
    CHECK(rl_mem_size(&rc) != 0);
    CHECK_EQ(RL_MEM_SIZE(1024, 1, RL_SCHEDULE_FIFO, 1000, 250000000u, 64, 60, 8), rl_mem_size(&rc));
    CHECK(is_rl_default_size(rl_mem_size(&rc)));
    CHECK(!is_rl_default_size(rl_mem_size(&rc) + 8u)); /* the switch really compares */
    rq_qos_config_default(&qc);
    CHECK(rq_qos_mem_size(&qc) != 0);
    CHECK_EQ(RQ_QOS_MEM_SIZE(16, 64, 64, 16, 16, 512, 64, 16, 8, 8, 8, 4, 16, 8, 8), rq_qos_mem_size(&qc));
    rq_palos_config_default(&pc);
    CHECK(rq_palos_mem_size(&pc) != 0);
    CHECK_EQ(RQ_PALOS_MEM_SIZE(1024, 64, 16, 2, 64), rq_palos_mem_size(&pc));
    tp_config_default(&tc);
    tc.protocol = tp_protocol_newreno();
    CHECK(tp_mem_size(&tc) != 0);
    CHECK_EQ(TP_MEM_SIZE(1024, 128, 4, 8, 64, 16, 64, sizeof(tp_tcp_ctx)), tp_mem_size(&tc));
    tc.protocol = tp_protocol_dcqcn();
    CHECK_EQ(TP_MEM_SIZE(1024, 128, 4, 8, 64, 16, 64, sizeof(tp_dcqcn_ctx)), tp_mem_size(&tc));
    /* the credit type's budget bounds every protocol of that type */
    CHECK(TP_MEM_SIZE(1024, 128, 4, 8, 64, 16, 64, TP_CTX_MAX_RATE) >= tp_mem_size(&tc));
    tp_rx_config_default(&xc);
    CHECK(tp_rx_mem_size(&xc) != 0);
    CHECK_EQ(TP_RX_MEM_SIZE(1024, 128, 64, 64, 64, 0, 0, 0), tp_rx_mem_size(&xc));
    hcc_host_config_default(&hc);
    CHECK(hcc_host_mem_size(&hc) != 0);
    CHECK_EQ(HCC_HOST_MEM_SIZE(4096, 64, 16, 256, 256, 65536), hcc_host_mem_size(&hc));
    hcc_rx_config_default(&cc);
    CHECK(hcc_rx_mem_size(&cc) != 0);
    CHECK_EQ(HCC_RX_MEM_SIZE(4, 16), hcc_rx_mem_size(&cc));
    hcc_tx_config_default(&sc);
    CHECK(hcc_tx_mem_size(&sc) != 0);
    CHECK_EQ(HCC_TX_MEM_SIZE(1024, 64, 64), hcc_tx_mem_size(&sc));
}

/* ---------------- the static buffers: sized by the macros, taken by init ---------------- */
static void test_static_buffers(void)
{
    static rl r;
    static rq_qos q;
    static rq_palos p;
    static tp t;
    static tp_rx x;
    static hcc_host h;
    static hcc_rx c;
    static hcc_tx s;
    rl_config rc;
    rq_qos_config qc;
    rq_palos_config pc;
    tp_config tc;
    tp_rx_config xc;
    hcc_host_config hc;
    hcc_rx_config cc;
    hcc_tx_config sc;

    rl_config_default(&rc);
    rc.max_flows = 16, rc.schedule_queue = RL_SCHEDULE_RANKED, rc.pcie_latency_ns = 160, rc.tx_depth = 8;
    rc.source = src_none;
    CHECK_EQ(sizeof rl_buf, rl_mem_size(&rc));
    CHECK_EQ(rl_init(&r, &rc, rl_buf, sizeof rl_buf), RNIC_OK);
    CHECK_EQ(rl_init(&r, &rc, rl_buf, sizeof rl_buf - 8u), RNIC_ENOSPC); /* exact: nothing spare */

    rq_qos_config_default(&qc);
    qc.domains = 2, qc.write_channels = 32, qc.read_channels = 32, qc.intra_priorities = 4, qc.accumulators = 2;
    qc.ids.tids = 64, qc.ids.flow_blocks = 4, qc.ids.fids_unipath = 8, qc.ids.fid_groups = 2;
    CHECK_EQ(sizeof qos_buf, rq_qos_mem_size(&qc));
    CHECK_EQ(rq_qos_init(&q, &qc, qos_buf, sizeof qos_buf), RNIC_OK);

    rq_palos_config_default(&pc);
    pc.weights.max_flows = 16, pc.weights.max_groups = 2;
    pc.source = src_none;
    CHECK_EQ(sizeof palos_buf, rq_palos_mem_size(&pc));
    CHECK_EQ(rq_palos_init(&p, &pc, palos_buf, sizeof palos_buf), RNIC_OK);

    tp_config_default(&tc);
    tc.max_flows = 4;
    tc.protocol = tp_protocol_newreno();
    CHECK_EQ(sizeof tp_buf, tp_mem_size(&tc));
    CHECK_EQ(tp_init(&t, &tc, tp_buf, sizeof tp_buf), RNIC_OK);

    tp_rx_config_default(&xc);
    xc.max_flows = 4, xc.cnp_interval_ns = 50000, xc.cnp_mode = TP_RX_CNP_DEFERRED;
    CHECK_EQ(sizeof tp_rx_buf, tp_rx_mem_size(&xc));
    CHECK_EQ(tp_rx_init(&x, &xc, tp_rx_buf, sizeof tp_rx_buf), RNIC_OK);

    hcc_host_config_default(&hc);
    hc.rx_packets = 64, hc.rx_depth = 8, hc.signal_depth = 4, hc.iio_lines = 64, hc.iio_mem_credits = 8;
    hc.mem_queue = 64, hc.ddio_lines = 256;
    CHECK_EQ(sizeof hcc_host_buf, hcc_host_mem_size(&hc));
    CHECK_EQ(hcc_host_init(&h, &hc, hcc_host_buf, sizeof hcc_host_buf), RNIC_OK);

    hcc_rx_config_default(&cc);
    cc.sample_depth = 4, cc.action_depth = 4;
    CHECK_EQ(sizeof hcc_rx_buf, hcc_rx_mem_size(&cc));
    CHECK_EQ(hcc_rx_init(&c, &cc, hcc_rx_buf, sizeof hcc_rx_buf), RNIC_OK);

    hcc_tx_config_default(&sc);
    sc.max_flows = 4, sc.rate_depth = 8, sc.probe_depth = 8;
    CHECK_EQ(sizeof hcc_tx_buf, hcc_tx_mem_size(&sc));
    CHECK_EQ(hcc_tx_init(&s, &sc, hcc_tx_buf, sizeof hcc_tx_buf), RNIC_OK);
}

/* ---------------- random configs, one case per engine ---------------- */
/* Each case counts the valid configs it compared; too few is a failure of the generator. */
#define COMPARE(valid, macro, fn_size)                                                   \
    do {                                                                                 \
        size_t by_function = (fn_size), by_macro = (macro);                             \
        if (by_function != 0) {                                                          \
            (valid)++;                                                                   \
            CHECK_EQ(by_macro, by_function);                                             \
        }                                                                                \
    } while (0)

static void test_random_rl(void)
{
    rnic_prng p;
    uint32_t i, valid = 0;
    rnic_prng_seed(&p, g_seed ^ 1u);
    for (i = 0; i < CONFIGS && TEST_FAILS() < 4; i++) {
        rl_config c;
        rl_config_default(&c);
        c.source = src_none;
        c.max_flows = draw32(&p, 0, RL_MAX_FLOWS + 1u);
        c.flow_stats = draw32(&p, 0, 1);
        c.schedule_queue = draw32(&p, 0, RL_SCHEDULE_RANKED);
        c.clock_hz = draw(&p, 1000000u, 10000000000ull);
        c.pcie_latency_ns = draw32(&p, 0, 1000000u);
        c.tx_depth = draw32(&p, 1, 4096);
        c.desc_depth = draw32(&p, 1, RL_MAX_DESC);
        c.fetch_wqes = draw32(&p, 1, RL_MAX_FETCH);
        COMPARE(valid,
                RL_MEM_SIZE(c.max_flows, c.flow_stats, c.schedule_queue, c.pcie_latency_ns, c.clock_hz, c.tx_depth,
                            c.desc_depth, c.fetch_wqes),
                rl_mem_size(&c));
    }
    printf("rl: %u valid configs of %u\n", valid, i);
    CHECK(valid >= MIN_VALID);
}

static void test_random_qos(void)
{
    rnic_prng p;
    uint32_t i, valid = 0;
    rnic_prng_seed(&p, g_seed ^ 2u);
    for (i = 0; i < CONFIGS && TEST_FAILS() < 4; i++) {
        rq_qos_config c;
        uint32_t per_block;
        rq_qos_config_default(&c);
        c.domains = draw32(&p, 1, 64);
        c.write_channels = 32u * draw32(&p, 1, 16);
        c.read_channels = draw32(&p, 1, 512);
        c.intra_priorities = draw32(&p, 1, 16);
        c.accumulators = rnic_prng_below(&p, 2) ? 1u : c.domains;
        c.ids.tids = 1u << draw32(&p, 2, 14);
        c.ids.flow_blocks = 1u << draw32(&p, 0, 6);
        if (c.ids.flow_blocks > c.ids.tids)
            c.ids.flow_blocks = c.ids.tids;
        per_block = c.ids.tids / c.ids.flow_blocks;
        c.ids.fid_groups = draw32(&p, 0, per_block / 4u);
        c.ids.fids_unipath = per_block - 4u * c.ids.fid_groups;
        c.axi_write_depth = draw32(&p, 1, 256);
        c.bresp_depth = draw32(&p, 1, 256);
        c.axi_read_depth = draw32(&p, 1, 256);
        c.block_depth = draw32(&p, 1, 256);
        c.packet_depth = draw32(&p, 1, 256);
        c.response_depth = draw32(&p, 1, 256);
        c.remote_read_depth = draw32(&p, 1, 256);
        COMPARE(valid,
                RQ_QOS_MEM_SIZE(c.domains, c.write_channels, c.read_channels, c.intra_priorities, c.accumulators,
                                c.ids.tids, c.ids.fids_unipath, c.ids.fid_groups, c.axi_write_depth, c.bresp_depth, c.axi_read_depth,
                                c.block_depth, c.packet_depth, c.response_depth, c.remote_read_depth),
                rq_qos_mem_size(&c));
    }
    printf("qos: %u valid configs of %u\n", valid, i);
    CHECK(valid >= MIN_VALID);
}

static void test_random_palos(void)
{
    rnic_prng p;
    uint32_t i, valid = 0;
    rnic_prng_seed(&p, g_seed ^ 3u);
    for (i = 0; i < CONFIGS && TEST_FAILS() < 4; i++) {
        rq_palos_config c;
        rq_palos_config_default(&c);
        c.source = src_none;
        c.weights.max_flows = draw32(&p, 1, 65536);
        c.weights.max_groups = draw32(&p, 1, 4096);
        c.weights.mtu = draw32(&p, 64, 16384);
        c.fetch_slots = draw32(&p, 1, 4096);
        c.piece_depth = draw32(&p, 1, 4096);
        c.launch_wqes = draw32(&p, 1, 4096);
        COMPARE(valid, RQ_PALOS_MEM_SIZE(c.weights.max_flows, c.weights.max_groups, c.fetch_slots, c.piece_depth, c.launch_wqes),
                rq_palos_mem_size(&c));
    }
    printf("palos: %u valid configs of %u\n", valid, i);
    CHECK(valid >= MIN_VALID);
}

static void test_random_tp(void)
{
    rnic_prng p;
    uint32_t i, valid = 0;
    const tp_protocol *protos[6];
    protos[0] = tp_protocol_reno();
    protos[1] = tp_protocol_newreno();
    protos[2] = tp_protocol_sack();
    protos[3] = tp_protocol_dcqcn();
    protos[4] = tp_protocol_irn();
    protos[5] = tp_protocol_ndp();
    rnic_prng_seed(&p, g_seed ^ 4u);
    for (i = 0; i < CONFIGS && TEST_FAILS() < 4; i++) {
        tp_config c;
        size_t budget;
        tp_config_default(&c);
        c.protocol = protos[rnic_prng_below(&p, 6)];
        c.max_flows = draw32(&p, 1, 8192);
        c.window = pick(&p, windows, 3);
        c.ring = draw32(&p, 1, TP_MAX_RING);
        c.message_depth = draw32(&p, 1, TP_MAX_MESSAGES);
        c.incoming_depth = draw32(&p, 1, 65536);
        c.segment_depth = draw32(&p, 1, 65536);
        c.completion_depth = draw32(&p, 1, 65536);
        COMPARE(valid,
                TP_MEM_SIZE(c.max_flows, c.window, c.ring, c.message_depth, c.incoming_depth, c.segment_depth,
                            c.completion_depth, c.protocol->ctx_size),
                tp_mem_size(&c));
        /* the budget of the protocol's credit type is an upper bound */
        budget = c.protocol->credit == TP_CREDIT_WINDOW ? TP_CTX_MAX_WINDOW
                 : c.protocol->credit == TP_CREDIT_RATE ? TP_CTX_MAX_RATE
                                                        : TP_CTX_MAX_TOKEN;
        if (tp_mem_size(&c))
            CHECK(TP_MEM_SIZE(c.max_flows, c.window, c.ring, c.message_depth, c.incoming_depth, c.segment_depth,
                              c.completion_depth, budget) >= tp_mem_size(&c));
    }
    printf("tp: %u valid configs of %u\n", valid, i);
    CHECK(valid >= MIN_VALID);
}

static void test_random_tp_rx(void)
{
    rnic_prng p;
    uint32_t i, valid = 0;
    rnic_prng_seed(&p, g_seed ^ 5u);
    for (i = 0; i < CONFIGS && TEST_FAILS() < 4; i++) {
        tp_rx_config c;
        tp_rx_config_default(&c);
        c.max_flows = draw32(&p, 1, 8192);
        c.window = pick(&p, windows, 3);
        c.segment_depth = draw32(&p, 1, 65536);
        c.ack_depth = draw32(&p, 1, 65536);
        c.delivered_depth = draw32(&p, 1, 65536);
        c.cnp_interval_ns = rnic_prng_below(&p, 2) ? (uint64_t)draw32(&p, 1, 1000) * 1000u : 0u;
        c.cnp_mode = draw32(&p, 0, TP_RX_CNP_DEFERRED);
        c.pull_bps = rnic_prng_below(&p, 2) ? draw(&p, RNIC_RATE_MIN_BPS, 400000000000ull) : 0u;
        COMPARE(valid,
                TP_RX_MEM_SIZE(c.max_flows, c.window, c.segment_depth, c.ack_depth, c.delivered_depth,
                               c.cnp_interval_ns, c.cnp_mode, c.pull_bps),
                tp_rx_mem_size(&c));
    }
    printf("tp_rx: %u valid configs of %u\n", valid, i);
    CHECK(valid >= MIN_VALID);
}

static void test_random_hcc(void)
{
    rnic_prng p;
    uint32_t i, valid_host = 0, valid_rx = 0, valid_tx = 0;
    rnic_prng_seed(&p, g_seed ^ 6u);
    for (i = 0; i < CONFIGS && TEST_FAILS() < 4; i++) {
        hcc_host_config h;
        hcc_rx_config r;
        hcc_tx_config t;
        hcc_host_config_default(&h);
        h.rx_packets = draw32(&p, 1, 1u << 16);
        h.rx_depth = draw32(&p, 1, 1u << 12);
        h.signal_depth = draw32(&p, 1, 1u << 12);
        h.pcie_mps = 64u << rnic_prng_below(&p, 7);
        h.iio_lines = draw32(&p, h.pcie_mps / 64u + 1u, 1u << 16);
        h.iio_mem_credits = draw32(&p, 1, h.iio_lines);
        h.mem_queue = draw32(&p, 2, 1u << 16);
        h.ddio_ways = 1u << rnic_prng_below(&p, 4);
        h.ddio_lines = rnic_prng_below(&p, 3) ? h.ddio_ways * draw32(&p, 1, 1u << 14) : 0u;
        COMPARE(valid_host, HCC_HOST_MEM_SIZE(h.rx_packets, h.rx_depth, h.signal_depth, h.iio_lines, h.mem_queue, h.ddio_lines),
                hcc_host_mem_size(&h));
        hcc_rx_config_default(&r);
        r.sample_depth = draw32(&p, 1, HCC_RX_MAX_DEPTH);
        r.action_depth = draw32(&p, 1, HCC_RX_MAX_DEPTH);
        COMPARE(valid_rx, HCC_RX_MEM_SIZE(r.sample_depth, r.action_depth), hcc_rx_mem_size(&r));
        hcc_tx_config_default(&t);
        t.max_flows = draw32(&p, 1, HCC_TX_MAX_FLOWS);
        t.rate_depth = draw32(&p, 1, HCC_TX_MAX_DEPTH);
        t.probe_depth = draw32(&p, 1, HCC_TX_MAX_DEPTH);
        COMPARE(valid_tx, HCC_TX_MEM_SIZE(t.max_flows, t.rate_depth, t.probe_depth), hcc_tx_mem_size(&t));
    }
    printf("hcc: host %u, rx %u, tx %u valid configs of %u\n", valid_host, valid_rx, valid_tx, i);
    CHECK(valid_host >= MIN_VALID && valid_rx >= MIN_VALID && valid_tx >= MIN_VALID);
}

/* Negative control: the comparison sees a difference of one element anywhere, so equal
 * results above are not a property of a weak compare. */
static void test_macros_see_every_field(void)
{
    CHECK(RL_MEM_SIZE(16, 1, RL_SCHEDULE_FIFO, 160, 250000000u, 8, 60, 8) !=
          RL_MEM_SIZE(16, 1, RL_SCHEDULE_FIFO, 160, 250000000u, 8, 60, 9));
    CHECK(RQ_PALOS_MEM_SIZE(16, 2, 16, 2, 64) != RQ_PALOS_MEM_SIZE(16, 2, 17, 2, 64));
    CHECK(TP_MEM_SIZE(4, 128, 4, 8, 64, 16, 64, 40) != TP_MEM_SIZE(4, 128, 4, 8, 64, 17, 64, 40));
    CHECK(HCC_TX_MEM_SIZE(4, 8, 8) != HCC_TX_MEM_SIZE(5, 8, 8));
}

int main(void)
{
    g_seed = test_seed(0x51e5u);
    RUN(test_defaults);
    RUN(test_static_buffers);
    RUN(test_random_rl);
    RUN(test_random_qos);
    RUN(test_random_palos);
    RUN(test_random_tp);
    RUN(test_random_tp_rx);
    RUN(test_random_hcc);
    RUN(test_macros_see_every_field);
    return test_summary();
}
