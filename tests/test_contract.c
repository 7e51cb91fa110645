/* The engine contract (docs/engine_contract.md), checked the same way on every engine: one
 * generic harness drives Tassel, the QoS engine, Palos, the transport engine and the three
 * hostcc.h engines (hcc_host, hcc_rx, hcc_tx) through an adapter each (a table of the engine's
 * own public functions -- no engine is special-cased in the checks; an adapter may add a second
 * output port and timed inputs, pushed at their cycles) and fails if any engine differs:
 *   next_event is never late: a tick that puts out a record was announced by next_event = now;
 *   fast-forward ends with the same counters as ticking (engines whose adapter compares them);
 *   NULL record pointers refused and counted; an empty output answers EEMPTY;
 *   next_event + advance_to give exactly the records of ticking every cycle (fast-forward);
 *   advance stops right after the tick in which the output port filled, and says how far it ran;
 *   advance_to lands on the cycle asked for; nothing is lost while the port is full;
 *   the same workload started just below 2^64 crosses the wrap with the same records, shifted;
 *   tags (and op, raddr) pass through from the source to the outputs untouched;
 *   rates (Tassel) are clamped and counted, 0 pauses, a raise re-times within a packet time;
 *   hostcc.h where its manuals document their own shape: the host's records carry the packet
 *   (aux/offset are delays), next_event is now while a posted write waits for credits, the rx
 *   controller's full action port merges (last write wins), hcc_tx's inputs act at the call;
 *   refused input counted by cause (EBUSY too), lifecycle refusals, trace ids, named config fields. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "test.h"

#define MAX_OUT 4096u
#define NFLOWS 4u
#define WQES_PER_FLOW 6u

/* ---------------- a shared WQE source: every flow's entries, tags unique ---------------- */
static rnic_work src_entries[NFLOWS][WQES_PER_FLOW];

static void source_fill(uint32_t len_scale)
{
    uint32_t f, i;
    memset(src_entries, 0, sizeof src_entries);
    for (f = 0; f < NFLOWS; f++)
        for (i = 0; i < WQES_PER_FLOW; i++) {
            rnic_work *w = &src_entries[f][i];
            w->flow = f;
            w->index = i;
            w->len = len_scale * (1u + (f * 7u + i * 3u) % 9u) + 100u * i + 1u;
            w->addr = ((uint64_t)f << 32) + (uint64_t)i * 0x100000u;
            w->raddr = 0xabc0000000ull + ((uint64_t)f << 28) + (uint64_t)i * 0x100000u;
            w->tag = 0x7a90000000000000ull | ((uint64_t)f << 16) | i;
            w->op = 0x55u + f;
        }
}

static uint32_t source_read(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t n = 0;
    (void)user;
    while (flow < NFLOWS && n < max && index + n < WQES_PER_FLOW) {
        out[n] = src_entries[flow][index + n];
        n++;
    }
    return n;
}

/* ---------------- the adapter: each engine's public node table (rnic_node_ops) ---------------- */
struct rec_log;
typedef struct eng {
    const char *name;
    void *x;
    void *mem;
    const rnic_node_ops *ops; /* the engine's X_node_ops(): every call below goes through it */
    uint32_t out;             /* the output port the harness drains (index into ops->out) */
    uint32_t out_capacity;    /* its depth */
    int has_tags;             /* records carry the source's tag/op/raddr */
    void (*load)(void *);     /* post the standard workload */
    void (*destroy)(struct eng *);
    /* optional (0 / NULL for an engine that needs none): */
    int has_side;                              /* a second output port, drained beside the first */
    uint32_t side;                             /* its index */
    struct rec_log *side_log;                  /* where its records go (NULL: dropped) */
    int aux_is_time;                           /* aux and offset are delays: a full port changes them */
    int raddr_is_cycle;                        /* raddr is a cycle: it moves with start_cycle */
    void (*feed)(struct eng *);                /* timed inputs: push those due at now() */
    int (*next_input)(const struct eng *, uint64_t *); /* 1 and its cycle: a timed input is still to come */
    uint64_t fs[16];                           /* the feed's own state */
    uint64_t fed_ok, fed_refused;              /* timed inputs the engine took / refused */
    uint64_t jumps, longest;                   /* run_fast: advance_to calls that skipped cycles; the longest */
    int (*same_state)(const void *, const void *); /* counters (and registers) equal after two runs */
} eng;

static void engine_free(eng *e)
{
    free(e->x);
    free(e->mem);
}

/* Refused input so far, by the table's errors. */
static uint64_t eng_refused(const eng *e) { return rnic_err_total(e->ops->errors(e->x)); }

/* The table of engine X (X_node_ops()), draining its output port `out` (and `side`, if any). */
static void eng_ops(eng *e, const rnic_node_ops *ops, const char *out, const char *side)
{
    e->ops = ops;
    e->out = rnic_node_out_port(ops, out);
    CHECK(e->out != RNIC_NONE);
    if (side) {
        e->has_side = 1;
        e->side = rnic_node_out_port(ops, side);
        CHECK(e->side != RNIC_NONE);
    }
    e->destroy = engine_free;
}

/* Tassel */
static void t_load(void *x)
{
    uint32_t f;
    for (f = 0; f < NFLOWS; f++) {
        CHECK_EQ(rl_set_rate((rl *)x, f, 10000000000ull * (f + 1u)), RNIC_OK);
        CHECK_EQ(rl_doorbell((rl *)x, f), RNIC_OK);
    }
}
static uint32_t g_tassel_queue = RL_SCHEDULE_FIFO; /* make_tassel's schedule queue */
static eng make_tassel(uint64_t start, uint32_t tx_capacity)
{
    eng e;
    rl_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    rl_config_default(&cfg);
    cfg.max_flows = 16;
    cfg.mtu = 1024;
    cfg.pcie_latency_ns = 160; /* L = 40 cycles at 250 MHz */
    cfg.tx_depth = tx_capacity;
    cfg.start_cycle = start;
    cfg.source = source_read;
    cfg.schedule_queue = g_tassel_queue;
    size = rl_mem_size(&cfg);
    e.name = g_tassel_queue == RL_SCHEDULE_RANKED ? "tassel-ranked" : "tassel";
    e.x = calloc(1, sizeof(rl));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(rl_init((rl *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = tx_capacity;
    e.has_tags = 1;
    eng_ops(&e, rl_node_ops(), "tx", NULL);
    e.load = t_load;
    return e;
}

/* Palos */
static void p_load(void *x)
{
    uint32_t f;
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(rq_palos_doorbell((rq_palos *)x, f, WQES_PER_FLOW), RNIC_OK);
}
static eng make_palos(uint64_t start, uint32_t piece_depth)
{
    eng e;
    rq_palos_config cfg;
    rq_palos_flow_config fc;
    size_t size;
    uint32_t f;
    memset(&e, 0, sizeof e);
    rq_palos_config_default(&cfg);
    rq_palos_flow_config_default(&fc);
    cfg.weights.max_flows = 16;
    cfg.weights.max_groups = 2;
    cfg.weights.mtu = 1024;
    cfg.piece_depth = piece_depth;
    cfg.start_cycle = start;
    cfg.source = source_read;
    size = rq_palos_mem_size(&cfg);
    e.name = "palos";
    e.x = calloc(1, sizeof(rq_palos));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(rq_palos_init((rq_palos *)e.x, &cfg, e.mem, size), RNIC_OK);
    CHECK_EQ(rq_palos_create_group((rq_palos *)e.x, 0, 3), RNIC_OK);
    CHECK_EQ(rq_palos_create_group((rq_palos *)e.x, 1, 1), RNIC_OK);
    for (f = 0; f < NFLOWS; f++) {
        fc.group = f & 1u;
        fc.weight = 1u + f;
        CHECK_EQ(rq_palos_flow_open((rq_palos *)e.x, f, &fc), RNIC_OK);
    }
    e.out_capacity = piece_depth;
    e.has_tags = 1;
    eng_ops(&e, rq_palos_node_ops(), "piece", NULL);
    e.load = p_load;
    return e;
}

/* QoS engine: the output is the block port; the workload is regular transfers written over AXI
 * (the engine's own input), several blocks each, never acknowledged (timeouts then retransmit:
 * the engine stays busy on its own, which next_event must foresee). */
static void q_load(void *x)
{
    rq_qos *q = (rq_qos *)x;
    uint32_t k;
    for (k = 0; k < NFLOWS; k++) { /* a regular transfer takes two lines: channels 2k and 2k + 1 */
        rq_transfer t;
        uint64_t line[2][4], d[2];
        uint32_t l, half;
        memset(&t, 0, sizeof t);
        t.kind = RQ_KIND_REGULAR;
        t.src = 0x100000ull * (k + 1u);
        t.dst = 0x900000ull * (k + 1u);
        t.size = 3000u + 2000u * k; /* 2 .. 5 blocks of 2 KB */
        CHECK_EQ(rq_desc_encode(&t, line[0], line[1]), RNIC_OK);
        for (l = 0; l < 2u; l++)
            for (half = 0; half < 2u; half++) {
                d[0] = line[l][2u * half];
                d[1] = line[l][2u * half + 1u];
                CHECK_EQ(rq_qos_axi_write(q, 0, ((2u * k + l) << 5) | ((2u * half) << 3), d, 16), RNIC_OK);
            }
    }
}
static eng make_qos(uint64_t start, uint32_t port)
{
    eng e;
    rq_qos_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    rq_qos_config_default(&cfg);
    cfg.block_bytes = 2048;
    cfg.axi_write_depth = 32; /* the whole workload is written at once */
    cfg.bresp_depth = 32;     /* and its write responses are never popped */
    cfg.block_depth = port;
    cfg.start_cycle = start;
    size = rq_qos_mem_size(&cfg);
    e.name = "qos";
    e.x = calloc(1, sizeof(rq_qos));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(rq_qos_init((rq_qos *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0; /* AXI descriptors carry no caller tag: block records have tag 0 */
    eng_ops(&e, rq_qos_node_ops(), "block", NULL);
    e.load = q_load;
    return e;
}


/* Transport (Tonic, NewReno): the workload is the source's entries pushed as messages; no ACK
 * ever comes back, so the flows send their initial windows and then time out again and again
 * (the rtx timer, backed off, keeps the engine busy on its own). The output is the segment port. */
static void x_load(void *x)
{
    uint32_t f, i;
    for (f = 0; f < NFLOWS; f++)
        for (i = 0; i < WQES_PER_FLOW; i++)
            CHECK_EQ(tp_push_message((tp *)x, &src_entries[f][i]), RNIC_OK);
}
static eng make_transport(uint64_t start, uint32_t port)
{
    eng e;
    tp_config cfg;
    tp_flow_config fp;
    size_t size;
    uint32_t f;
    memset(&e, 0, sizeof e);
    tp_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    cfg.max_flows = NFLOWS;
    cfg.message_depth = WQES_PER_FLOW;
    cfg.segment_depth = port;
    cfg.start_cycle = start;
    cfg.protocol = tp_protocol_newreno();
    size = tp_mem_size(&cfg);
    e.name = "transport";
    e.x = calloc(1, sizeof(tp));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(tp_init((tp *)e.x, &cfg, e.mem, size), RNIC_OK);
    tp_flow_config_default(&fp);
    fp.seg_size = 512;
    fp.rto_ns = 5000u; /* 500 cycles at 100 MHz */
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(tp_flow_open((tp *)e.x, f, &fp), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0; /* records are segments: index = segment id, not the source's entry */
    eng_ops(&e, tp_node_ops(), "segment", NULL);
    e.load = x_load;
    return e;
}

/* ---------------- hostcc.h (docs/hostcc_model.md) ---------------- */

/* hcc_host, the receiving host: input = packets from the wire (hcc_host_push_rx, applied at
 * now), output = the rx port (a packet once its last posted write left), second output = the
 * PFC signal port. The standard workload: the source's entries pushed as packets at once (no
 * CPU load: the host settles and next_event skips the PCIe/IIO latencies). The loaded variants
 * feed 1 KB packets every 20 cycles (~102 Gb/s) against CPU memory traffic, with register writes
 * at fixed packets; variant 0: DDIO off, PFC on (the sender holds while paused), the CPU load
 * lowered by MBA level 4 then removed; variant 1: a small DDIO (dirty write-backs), PFC off (CE
 * marks and drops), hostCC ECN on then off. aux and offset (delays) are times: a full port
 * changes them. */
static void hh_load(void *x)
{
    uint32_t f, i;
    for (f = 0; f < NFLOWS; f++)
        for (i = 0; i < WQES_PER_FLOW; i++)
            CHECK_EQ(hcc_host_push_rx((hcc_host *)x, &src_entries[f][i]), RNIC_OK);
}
static void hh_load_none(void *x) { (void)x; }

#define HH_PACKETS 1500u
#define HH_GAP 20u
static int hh_next_input(const eng *e, uint64_t *at)
{
    *at = e->fs[1];
    return e->fs[0] < HH_PACKETS;
}
static void hh_feed(eng *e)
{
    hcc_host *h = (hcc_host *)e->x;
    uint64_t k = e->fs[0], variant = e->fs[2];
    rnic_work w;
    if (k >= HH_PACKETS || e->fs[1] != hcc_host_now(h))
        return;
    if (hcc_host_paused(h)) { /* the upstream sender holds while paused: try again next cycle */
        e->fs[1]++;
        return;
    }
    if (variant == 0 && k == 300u)
        CHECK_EQ(hcc_host_set_mba_level(h, 4), RNIC_OK);
    if (variant == 0 && k == 700u)
        CHECK_EQ(hcc_host_set_mba_level(h, 1), RNIC_OK);
    if (variant == 1 && k == 400u)
        CHECK_EQ(hcc_host_set_ecn(h, true), RNIC_OK);
    if (variant == 1 && k == 800u)
        CHECK_EQ(hcc_host_set_ecn(h, false), RNIC_OK);
    if (k == 990u)
        CHECK_EQ(hcc_host_set_cpu_load(h, 0), RNIC_OK); /* the host can go idle: skips begin */
    memset(&w, 0, sizeof w);
    w.flow = (uint32_t)(k % NFLOWS);
    w.index = (uint32_t)k;
    w.len = 1024;
    w.addr = 0x40000000ull + (k % 4096u) * 1024u; /* a 4 MB footprint, cycled */
    w.raddr = 0xbeef0000ull + k;
    w.tag = 0x7a90000000000000ull | k;
    w.op = 0x42;
    if (hcc_host_push_rx(h, &w) == RNIC_OK)
        e->fed_ok++;
    else
        e->fed_refused++;
    e->fs[0] = k + 1u;
    e->fs[1] += k + 1u == 1000u ? 5000u : HH_GAP; /* a gap after the load goes: an idle stretch */
}

static int hh_same(const void *x, const void *y)
{
    const hcc_host *a = (const hcc_host *)x, *b = (const hcc_host *)y;
    return !memcmp(hcc_host_get_stats(a), hcc_host_get_stats(b), sizeof(hcc_host_stats)) &&
           hcc_host_iio_occupancy_cum(a) == hcc_host_iio_occupancy_cum(b) &&
           hcc_host_pcie_credits(a) == hcc_host_pcie_credits(b) && hcc_host_mba_level(a) == hcc_host_mba_level(b) &&
           hcc_host_rx_occupancy(a) == hcc_host_rx_occupancy(b) && hcc_host_paused(a) == hcc_host_paused(b);
}
static eng make_host_variant(uint64_t start, uint32_t port, int variant)
{
    eng e;
    hcc_host_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    hcc_host_config_default(&cfg);
    cfg.rx_depth = port;
    cfg.start_cycle = start;
    if (variant >= 0) {
        cfg.cpu_load_bps = 8u * 30300000000ull; /* the paper's 3x, b/s */
        cfg.rx_buffer_bytes = 64u * 1024u;
        cfg.xoff_bytes = 48u * 1024u;
        cfg.xon_bytes = 32u * 1024u;
        cfg.cnp_bytes = 16u * 1024u;
        cfg.pfc = variant == 0;
        cfg.ddio_lines = variant == 0 ? 0u : 1024u;
    }
    size = hcc_host_mem_size(&cfg);
    e.name = "hcc_host";
    e.x = calloc(1, sizeof(hcc_host));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(hcc_host_init((hcc_host *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 1;
    e.aux_is_time = 1;
    eng_ops(&e, hcc_host_node_ops(), "rx", "signal");
    e.load = hh_load;
    e.same_state = hh_same;
    if (variant >= 0) {
        e.load = hh_load_none;
        e.feed = hh_feed;
        e.next_input = hh_next_input;
        e.fs[1] = start;
        e.fs[2] = (uint64_t)variant;
    }
    return e;
}
static eng make_host(uint64_t start, uint32_t port) { return make_host_variant(start, port, -1); }

/* hcc_rx, the receiver controller: input = cumulative IIO occupancy samples, output = action
 * records (MBA level / ECN changes). Sample k covers 500 cycles at an average occupancy that
 * goes congested (40 lines > i_thr 32), calm (5 <= i_low 16), in between (20), calm, congested,
 * calm; the counter starts just below 2^48 (it wraps). slack 20 us = 5000 cycles: levels go
 * down twice, then up. The standard workload pushes 61 samples at once (one decided per tick);
 * the fed variants push one every 500 cycles at its own cycle (MBA mode, ECN mode). */
#define HR_PERIOD 500u
#define HR_FED 120u
static uint64_t hr_lines(uint64_t k)
{
    if (k == 0)
        return 0;
    if (k <= 20u)
        return 40;
    if (k <= 40u)
        return 5;
    if (k <= 45u)
        return 20;
    if (k <= 70u)
        return 5;
    if (k <= 90u)
        return 40;
    return 3;
}
#define HR_CUM0 ((1ull << 48) - 30000u)
static void hr_load(void *x)
{
    hcc_rx *c = (hcc_rx *)x;
    hcc_rx_sample s;
    uint64_t k, cum = HR_CUM0;
    for (k = 0; k <= 60u; k++) {
        cum = (cum + hr_lines(k) * HR_PERIOD) & ((1ull << 48) - 1u);
        s.cycle = hcc_rx_now(c) + HR_PERIOD * (k + 1u);
        s.cum = cum;
        CHECK_EQ(hcc_rx_push_sample(c, &s), RNIC_OK);
    }
}
static void hr_load_none(void *x) { (void)x; }
static int hr_next_input(const eng *e, uint64_t *at)
{
    *at = e->fs[1];
    return e->fs[0] < HR_FED;
}
static void hr_feed(eng *e)
{
    hcc_rx *c = (hcc_rx *)e->x;
    hcc_rx_sample s;
    uint64_t k = e->fs[0];
    if (k >= HR_FED || e->fs[1] != hcc_rx_now(c))
        return;
    e->fs[2] = (e->fs[2] + hr_lines(k) * HR_PERIOD) & ((1ull << 48) - 1u);
    s.cycle = hcc_rx_now(c);
    s.cum = e->fs[2];
    if (hcc_rx_push_sample(c, &s) == RNIC_OK)
        e->fed_ok++;
    else
        e->fed_refused++;
    e->fs[0] = k + 1u;
    e->fs[1] += HR_PERIOD;
}
static int hr_same(const void *x, const void *y)
{
    const hcc_rx *a = (const hcc_rx *)x, *b = (const hcc_rx *)y;
    return !memcmp(hcc_rx_get_stats(a), hcc_rx_get_stats(b), sizeof(hcc_rx_stats)) &&
           hcc_rx_level(a) == hcc_rx_level(b) && hcc_rx_ecn(a) == hcc_rx_ecn(b) &&
           hcc_rx_occupancy(a) == hcc_rx_occupancy(b);
}
static eng make_rx_variant(uint64_t start, uint32_t port, int variant)
{
    eng e;
    hcc_rx_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    hcc_rx_config_default(&cfg);
    cfg.slack_ns = 20000; /* 5000 cycles */
    cfg.sample_depth = 64;
    cfg.action_depth = port;
    cfg.start_cycle = start;
    if (variant == 1)
        cfg.mode = HCC_RX_MODE_ECN;
    size = hcc_rx_mem_size(&cfg);
    e.name = "hcc_rx";
    e.x = calloc(1, sizeof(hcc_rx));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(hcc_rx_init((hcc_rx *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0; /* action records carry no source entry */
    e.raddr_is_cycle = 1; /* raddr = the cycle of the sample that caused the change */
    e.same_state = hr_same;
    eng_ops(&e, hcc_rx_node_ops(), "action", NULL);
    e.load = hr_load;
    if (variant >= 0) {
        e.load = hr_load_none;
        e.feed = hr_feed;
        e.next_input = hr_next_input;
        e.fs[1] = start;
        e.fs[2] = HR_CUM0;
    }
    return e;
}
static eng make_rx(uint64_t start, uint32_t port) { return make_rx_variant(start, port, -1); }

/* hcc_tx, the sender controller: inputs act at the call, the records they cause come out of the
 * next tick (docs/hostcc_tx.md). Output = the probe port, second output = the rate port. The
 * standard workload: four flows opened, the source's entries reported sent (probe_bytes 1024:
 * ~100 probes), R_cc written (a raise, a pause, a value clamped up). The fed variant reports
 * sends every 100 cycles, acknowledges the newest probe it knows was produced (delays 100 ..
 * 899 ns: Eq. 1 moves R_rev, so rate records follow), writes R_cc, closes and reopens a flow. */
#define HT_FEEDS 550u
#define HT_GAP 100u
static rnic_err ht_open(hcc_tx *c, uint32_t f, uint64_t init_rate_bps) /* a flow config with a rate */
{
    hcc_tx_flow_config fc;
    hcc_tx_flow_config_default(&fc);
    fc.init_rate_bps = init_rate_bps;
    return hcc_tx_flow_open(c, f, &fc);
}
static rnic_err ht_sent(hcc_tx *c, uint32_t f, uint32_t bytes) /* a sent record of `bytes` */
{
    rnic_work w;
    memset(&w, 0, sizeof w);
    w.flow = f;
    w.len = bytes;
    return hcc_tx_push_sent(c, &w);
}
static void ht_load(void *x)
{
    hcc_tx *c = (hcc_tx *)x;
    uint32_t f, i;
    for (f = 0; f < NFLOWS; f++) {
        CHECK_EQ(ht_open(c, f, 100000000000ull), RNIC_OK);
        for (i = 0; i < WQES_PER_FLOW; i++)
            CHECK_EQ(hcc_tx_push_sent(c, &src_entries[f][i]), RNIC_OK);
    }
    CHECK_EQ(hcc_tx_set_rcc(c, 1, 5000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_set_rcc(c, 2, 0), RNIC_OK);
    CHECK_EQ(hcc_tx_set_rcc(c, 3, 10), RNIC_OK); /* below min_rate: clamped, not refused */
}
static void ht_load_none(void *x)
{
    uint32_t f;
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(ht_open((hcc_tx *)x, f, 100000000000ull), RNIC_OK);
}
static int ht_next_input(const eng *e, uint64_t *at)
{
    *at = e->fs[1];
    return e->fs[0] < HT_FEEDS;
}
static void ht_feed(eng *e)
{
    hcc_tx *c = (hcc_tx *)e->x;
    uint64_t k = e->fs[0];
    uint32_t f = (uint32_t)(k % NFLOWS);
    uint64_t produced;
    rnic_work ack;
    if (k >= HT_FEEDS || e->fs[1] != hcc_tx_now(c))
        return;
    /* fs[2 + f]: bytes reported since open, fs[6 + f]: the next probe number to acknowledge.
     * Every probe of an earlier feed was produced by now (one probe per feed at most, port 8,
     * drained after every step). */
    produced = e->fs[2 + f] / 1024u;
    if (produced > e->fs[6 + f]) {
        memset(&ack, 0, sizeof ack);
        ack.flow = f;
        ack.index = (uint32_t)(produced - 1u);
        ack.addr = 1000u * k;
        ack.raddr = ack.addr + 100u + (k * 37u) % 800u;
        if (hcc_tx_push_probe_ack(c, &ack) == RNIC_OK)
            e->fed_ok++;
        else
            e->fed_refused++;
        e->fs[6 + f] = produced;
    }
    if (ht_sent(c, f, 700u + 37u * (k % 11u)) == RNIC_OK)
        e->fs[2 + f] += 700u + 37u * (k % 11u);
    else
        e->fed_refused++;
    if (k % 50u == 7u && !(f == 3u && k >= 300u && k < 350u)) /* flow 3 is closed meanwhile */
        CHECK_EQ(hcc_tx_set_rcc(c, f, 1000000000ull * (1u + k % 90u)), RNIC_OK);
    if (k == 300u) {
        CHECK_EQ(hcc_tx_flow_close(c, 3), RNIC_OK);
        e->fs[2 + 3] = e->fs[6 + 3] = 0;
    }
    if (k == 350u)
        CHECK_EQ(ht_open(c, 3, 20000000000ull), RNIC_OK);
    e->fs[0] = k + 1u;
    e->fs[1] += HT_GAP;
}
static int ht_same(const void *x, const void *y)
{
    const hcc_tx *a = (const hcc_tx *)x, *b = (const hcc_tx *)y;
    uint32_t f;
    hcc_tx_flow_view va, vb;
    for (f = 0; f < NFLOWS; f++)
        if (hcc_tx_rate(a, f) != hcc_tx_rate(b, f) || hcc_tx_flow_state(a, f, &va) != RNIC_OK ||
            hcc_tx_flow_state(b, f, &vb) != RNIC_OK || va.r_rev != vb.r_rev)
            return 0;
    return !memcmp(hcc_tx_get_stats(a), hcc_tx_get_stats(b), sizeof(hcc_tx_stats));
}
static eng make_tx_variant(uint64_t start, uint32_t port, int fed)
{
    eng e;
    hcc_tx_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    hcc_tx_config_default(&cfg);
    cfg.max_flows = 16;
    cfg.probe_bytes = 1024;
    cfg.probe_depth = port;
    cfg.probe_op = 0x77;
    cfg.start_cycle = start;
    size = hcc_tx_mem_size(&cfg);
    e.name = "hcc_tx";
    e.x = calloc(1, sizeof(hcc_tx));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(hcc_tx_init((hcc_tx *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0; /* probe records: index = probe number */
    eng_ops(&e, hcc_tx_node_ops(), "probe", "rate");
    e.load = ht_load;
    e.same_state = ht_same;
    if (fed) {
        e.load = ht_load_none;
        e.feed = ht_feed;
        e.next_input = ht_next_input;
        e.fs[1] = start;
    }
    return e;
}
static eng make_tx(uint64_t start, uint32_t port) { return make_tx_variant(start, port, 0); }

/* tp_rx, the transport receiver: input = data segments (pushed through the node table's
 * "segment" port), output = the ACK port, second output = the delivered port. The workload:
 * each flow's six segments arrive at once, two of them swapped and one twice (out-of-order
 * ACKs, a duplicate); a delayed-ACK timeout of 10 us keeps a timer pending (next_event must
 * foresee it). Records are ACKs and deliveries: index = segment number, not the source's entry. */
static const uint32_t rxs_order[] = {0, 2, 1, 3, 3, 5, 4};
static void rxs_load(void *x)
{
    const rnic_node_ops *ops = tp_rx_node_ops();
    uint32_t in = rnic_node_in_port(ops, "segment"), f, i;
    for (f = 0; f < NFLOWS; f++)
        for (i = 0; i < sizeof rxs_order / sizeof rxs_order[0]; i++) {
            rnic_work s = src_entries[f][rxs_order[i]];
            s.op = TP_PKT_DATA; /* (a data segment) */
            s.len = 1000;
            CHECK_EQ(ops->push(x, in, &s), RNIC_OK);
        }
}
static eng make_tp_rx(uint64_t start, uint32_t port)
{
    eng e;
    tp_rx_config cfg;
    size_t size;
    uint32_t f;
    memset(&e, 0, sizeof e);
    tp_rx_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    cfg.max_flows = NFLOWS;
    cfg.delack_count = 2;
    cfg.delack_ns = 10000u;
    cfg.ack_depth = port;
    cfg.start_cycle = start;
    size = tp_rx_mem_size(&cfg);
    e.name = "tp_rx";
    e.x = calloc(1, sizeof(tp_rx));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(tp_rx_init((tp_rx *)e.x, &cfg, e.mem, size), RNIC_OK);
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(tp_rx_flow_open((tp_rx *)e.x, f, NULL), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0;
    eng_ops(&e, tp_rx_node_ops(), "ack", "delivered");
    e.load = rxs_load;
    return e;
}

/* ---------------- the generic checks ---------------- */
typedef struct rec_log {
    rnic_work w[MAX_OUT];
    uint32_t n;
} rec_log;

static uint32_t drain(eng *e, rec_log *log)
{
    rnic_work w;
    uint32_t n = 0;
    while (e->ops->pop(e->x, e->out, &w) == RNIC_OK) {
        if (log && log->n < MAX_OUT)
            log->w[log->n++] = w;
        n++;
    }
    if (e->has_side) /* the second output: drained too, logged apart (not counted in n) */
        while (e->ops->pop(e->x, e->side, &w) == RNIC_OK)
            if (e->side_log && e->side_log->n < MAX_OUT)
                e->side_log->w[e->side_log->n++] = w;
    return n;
}

static int same_record(const rnic_work *a, const rnic_work *b, uint64_t shift)
{
    return a->cycle + shift == b->cycle && a->flow == b->flow && a->index == b->index && a->offset == b->offset &&
           a->len == b->len && a->flags == b->flags && a->tag == b->tag && a->addr == b->addr &&
           a->raddr == b->raddr && a->op == b->op && a->status == b->status && a->aux == b->aux;
}

/* Run the workload to quiescence by ticking every cycle (draining after each tick). next_event
 * is never late: a tick that puts out a record (on either port) was announced by next_event = now. */
static void run_ticking(eng *e, rec_log *log, uint64_t cycles)
{
    uint64_t i, late = 0;
    rec_log *side = e->side_log;
    e->load(e->x);
    for (i = 0; i < cycles; i++) {
        uint64_t now, next;
        uint32_t side_n = side ? side->n : 0, main_n;
        if (e->feed)
            e->feed(e);
        now = e->ops->now(e->x);
        next = e->ops->next_event(e->x);
        e->ops->tick(e->x);
        main_n = drain(e, log);
        if ((main_n || (side && side->n != side_n)) && next != now && late++ == 0)
            printf("  %s: a record at cycle %llu, next_event said %llu\n", e->name, (unsigned long long)now,
                   (unsigned long long)next);
    }
    CHECK_EQ(late, 0);
}

/* The same by fast-forward: jump to next_event (tick when it is now), drain after each step.
 * Timed inputs (feed) are pushed at their cycles: a jump never passes the next one. */
static void run_fast(eng *e, rec_log *log, uint64_t cycles)
{
    uint64_t end = e->ops->now(e->x) + cycles;
    e->load(e->x);
    while (e->ops->now(e->x) != end) {
        uint64_t now, next, left, nin = 0;
        int has_in;
        if (e->feed)
            e->feed(e);
        now = e->ops->now(e->x);
        next = e->ops->next_event(e->x);
        left = end - now;
        has_in = e->next_input ? e->next_input(e, &nin) : 0; /* (an input may be due at 2^64 - 1) */
        CHECK(!has_in || nin != now); /* the feed pushed everything due now */
        if (next == now)
            CHECK_EQ(e->ops->advance(e->x, 1), 1);
        else {
            uint64_t target = (next == RNIC_NEVER || next - now > left) ? end : next;
            if (has_in && nin - now < target - now)
                target = nin;
            e->jumps += target - now > 1u;
            if (target - now > e->longest)
                e->longest = target - now;
            CHECK_EQ(e->ops->advance_to(e->x, target), target - now);
        }
        drain(e, log);
        if (TEST_FAILS())
            return;
    }
}

typedef eng (*make_fn)(uint64_t start, uint32_t port);

static void contract_null_and_empty(make_fn make)
{
    eng e = make(0, 8);
    rnic_work w;
    uint64_t before = eng_refused(&e);
    CHECK_EQ(e.ops->pop(e.x, e.out, NULL), RNIC_EINVAL);
    CHECK_EQ(e.ops->peek(e.x, e.out, NULL), RNIC_EINVAL);
    CHECK_EQ(eng_refused(&e), before + 2u);
    CHECK_EQ(e.ops->pop(e.x, e.out, &w), RNIC_EEMPTY);
    CHECK_EQ(e.ops->peek(e.x, e.out, &w), RNIC_EEMPTY);
    /* an engine with no input settles and then says so */
    e.ops->advance(e.x, 100000);
    CHECK_EQ(e.ops->next_event(e.x), RNIC_NEVER);
    CHECK_EQ(e.ops->pop(e.x, e.out, &w), RNIC_EEMPTY);
    e.destroy(&e);
}

/* A NULL engine: every call answers without touching memory (EINVAL, NEVER, 0 cycles). */
static void contract_null_engine(make_fn make)
{
    eng e = make(0, 8);
    rnic_work w;
    e.ops->tick(NULL);
    CHECK_EQ(e.ops->next_event(NULL), RNIC_NEVER);
    CHECK_EQ(e.ops->advance(NULL, 100), 0);
    CHECK_EQ(e.ops->advance_to(NULL, 100), 0);
    CHECK_EQ(e.ops->pop(NULL, e.out, &w), RNIC_EINVAL);
    CHECK_EQ(e.ops->peek(NULL, e.out, &w), RNIC_EINVAL);
    e.destroy(&e);
}

static rec_log log_a, log_b;

static rec_log side_a, side_b;

static void compare_logs(const eng *e, const rec_log *la, const rec_log *lb, uint64_t shift)
{
    uint32_t i;
    CHECK_EQ(la->n, lb->n);
    for (i = 0; i < la->n && i < lb->n; i++) {
        rnic_work x = la->w[i];
        if (e->raddr_is_cycle)
            x.raddr += shift;
        if (!same_record(&x, &lb->w[i], shift)) {
            CHECK(!"records differ");
            printf("  %s record %u: cycle %llu vs %llu (shift %llu)\n", e->name, i, (unsigned long long)la->w[i].cycle,
                   (unsigned long long)lb->w[i].cycle, (unsigned long long)shift);
            break;
        }
    }
}

static void contract_fast_forward_equals_ticking(make_fn make, uint64_t start_a, uint64_t start_b)
{
    eng a = make(start_a, 8), b = make(start_b, 8);
    log_a.n = log_b.n = side_a.n = side_b.n = 0;
    a.side_log = &side_a;
    b.side_log = &side_b;
    run_ticking(&a, &log_a, 60000);
    run_fast(&b, &log_b, 60000);
    CHECK(log_a.n > 0);
    CHECK(b.jumps > 0); /* fast-forward did skip */
    if (getenv("CONTRACT_VERBOSE"))
        printf("  %s: %llu jumps, longest %llu cycles\n", b.name, (unsigned long long)b.jumps, (unsigned long long)b.longest);
    if (a.same_state)
        CHECK(a.same_state(a.x, b.x)); /* the counters too, not only the records */
    compare_logs(&a, &log_a, &log_b, start_b - start_a);
    compare_logs(&a, &side_a, &side_b, start_b - start_a); /* the second output (if any) too */
    if (a.feed) { /* the timed inputs met the same engine state in both runs */
        CHECK(a.fed_ok > 0);
        CHECK_EQ(a.fed_ok, b.fed_ok);
        CHECK_EQ(a.fed_refused, b.fed_refused);
    }
    CHECK_EQ(a.ops->now(a.x), start_a + 60000u);
    CHECK_EQ(b.ops->now(b.x), start_b + 60000u);
    a.destroy(&a);
    b.destroy(&b);
}

/* advance stops right after the tick in which the port filled; nothing is lost while it is full */
static void contract_advance_stops_when_output_fills(make_fn make, uint32_t port)
{
    eng e = make(0, port), ref = make(0, 64);
    rec_log *all = &log_a;
    uint64_t ran, total = 0;
    uint32_t popped = 0, i;
    rnic_work w;
    e.load(e.x);
    ran = e.ops->advance(e.x, 1000000);
    CHECK(ran < 1000000u);
    CHECK_EQ(e.ops->now(e.x), ran);
    CHECK_EQ(e.ops->peek(e.x, e.out, &w), RNIC_OK);
    /* the port is full: exactly `port` records wait, and the last came in the last tick */
    log_b.n = 0;
    popped = drain(&e, &log_b);
    CHECK_EQ(popped, port);
    CHECK_EQ(log_b.w[port - 1u].cycle, ran - 1u);
    /* go on to the end, draining whenever it stops: the records are those of a deep port */
    total = ran;
    while (total < 100000u) {
        uint64_t r = e.ops->advance(e.x, 100000u - total);
        total += r;
        drain(&e, &log_b);
        if (r == 0)
            break;
    }
    CHECK_EQ(e.ops->now(e.x), 100000u);
    all->n = 0;
    run_ticking(&ref, all, 100000);
    CHECK_EQ(log_b.n, all->n);
    for (i = 0; i < log_b.n && i < all->n; i++) {
        rnic_work x = log_b.w[i], y = all->w[i];
        x.cycle = y.cycle = 0; /* a full port delays records: only their content must match */
        if (e.aux_is_time)
            x.aux = y.aux = x.offset = y.offset = 0; /* ... and the delays the record reports */
        if (!same_record(&x, &y, 0)) {
            CHECK(!"record content differs behind a full port");
            break;
        }
    }
    e.destroy(&e);
    ref.destroy(&ref);
}

static void contract_tags_pass_through(make_fn make)
{
    eng e = make(0, 8);
    uint32_t i;
    log_a.n = 0;
    run_ticking(&e, &log_a, 60000);
    CHECK(log_a.n > 0);
    for (i = 0; i < log_a.n; i++) {
        const rnic_work *w = &log_a.w[i];
        const rnic_work *s;
        if (w->flow >= NFLOWS || w->index >= WQES_PER_FLOW) {
            CHECK(!"record names an entry the source never had");
            break;
        }
        s = &src_entries[w->flow][w->index];
        CHECK_EQ(w->tag, s->tag);
        CHECK_EQ(w->op, s->op);
        CHECK_EQ(w->addr, s->addr + w->offset);
        CHECK_EQ(w->raddr, s->raddr + w->offset);
        CHECK(w->offset + w->len <= s->len);
        CHECK_EQ((w->flags & RNIC_WORK_FIRST) != 0, w->offset == 0);
        CHECK_EQ((w->flags & RNIC_WORK_LAST) != 0, w->offset + w->len == s->len);
        if (TEST_FAILS())
            break;
    }
    e.destroy(&e);
}

/* ---------------- the cases: every check on every engine ---------------- */
static eng mk_tassel(uint64_t s, uint32_t p) { return make_tassel(s, p); }
static eng mk_tassel_ranked(uint64_t s, uint32_t p)
{
    eng e;
    g_tassel_queue = RL_SCHEDULE_RANKED;
    e = make_tassel(s, p);
    g_tassel_queue = RL_SCHEDULE_FIFO;
    return e;
}
static eng mk_palos(uint64_t s, uint32_t p) { return make_palos(s, p); }
static eng mk_qos(uint64_t s, uint32_t p) { return make_qos(s, p); }
static eng mk_transport(uint64_t s, uint32_t p) { return make_transport(s, p); }
static eng mk_host(uint64_t s, uint32_t p) { return make_host(s, p); }
static eng mk_host_pfc(uint64_t s, uint32_t p) { return make_host_variant(s, p, 0); }
static eng mk_host_ddio(uint64_t s, uint32_t p) { return make_host_variant(s, p, 1); }
static eng mk_rx(uint64_t s, uint32_t p) { return make_rx(s, p); }
static eng mk_rx_fed(uint64_t s, uint32_t p) { return make_rx_variant(s, p, 0); }
static eng mk_rx_ecn(uint64_t s, uint32_t p) { return make_rx_variant(s, p, 1); }
static eng mk_tx(uint64_t s, uint32_t p) { return make_tx(s, p); }
static eng mk_tp_rx(uint64_t s, uint32_t p) { return make_tp_rx(s, p); }
static eng mk_tx_fed(uint64_t s, uint32_t p) { return make_tx_variant(s, p, 1); }

#define NEAR_WRAP (UINT64_MAX - 20000u)

static void test_tassel_null_and_empty(void) { source_fill(700); contract_null_and_empty(mk_tassel); }
static void test_palos_null_and_empty(void) { source_fill(700); contract_null_and_empty(mk_palos); }
static void test_tassel_fast_forward(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_tassel, 0, 0); }
/* the ranked schedule queue (issue 13) under the same contract checks */
static void test_tassel_ranked_contract(void)
{
    source_fill(700);
    contract_null_and_empty(mk_tassel_ranked);
    source_fill(700);
    contract_fast_forward_equals_ticking(mk_tassel_ranked, 0, 0);
    source_fill(700);
    contract_fast_forward_equals_ticking(mk_tassel_ranked, 0, NEAR_WRAP);
    source_fill(700);
    contract_advance_stops_when_output_fills(mk_tassel_ranked, 3);
    source_fill(700);
    contract_tags_pass_through(mk_tassel_ranked);
}
static void test_palos_fast_forward(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_palos, 0, 0); }
static void test_tassel_wrap(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_tassel, 0, NEAR_WRAP); }
static void test_palos_wrap(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_palos, 0, NEAR_WRAP); }
static void test_tassel_advance_stops(void) { source_fill(700); contract_advance_stops_when_output_fills(mk_tassel, 3); }
static void test_palos_advance_stops(void) { source_fill(5000); contract_advance_stops_when_output_fills(mk_palos, 2); }
static void test_qos_null_and_empty(void) { contract_null_and_empty(mk_qos); }
static void test_qos_fast_forward(void) { contract_fast_forward_equals_ticking(mk_qos, 0, 0); }
static void test_qos_wrap(void) { contract_fast_forward_equals_ticking(mk_qos, 0, NEAR_WRAP); }
static void test_qos_advance_stops(void) { contract_advance_stops_when_output_fills(mk_qos, 2); }
static void test_transport_null_and_empty(void) { source_fill(700); contract_null_and_empty(mk_transport); }
static void test_transport_fast_forward(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_transport, 0, 0); }
static void test_transport_wrap(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_transport, 0, NEAR_WRAP); }
static void test_transport_advance_stops(void) { source_fill(700); contract_advance_stops_when_output_fills(mk_transport, 2); }
static void test_null_engines_and_configs(void)
{
    rl_config rc;
    rq_palos_config pc;
    rq_qos_config qc;
    const char *field = "unset";
    source_fill(700);
    contract_null_engine(mk_tassel);
    contract_null_engine(mk_palos);
    contract_null_engine(mk_qos);
    contract_null_engine(mk_transport);
    contract_null_engine(mk_host);
    contract_null_engine(mk_rx);
    contract_null_engine(mk_tx);
    contract_null_engine(mk_tp_rx);
    rl_config_default(NULL); /* must not crash */
    rq_palos_config_default(NULL);
    rq_qos_config_default(NULL);
    /* a bad config field is RNIC_EINVAL in every engine, and named */
    rl_config_default(&rc);
    rc.clock_hz = 0;
    CHECK_EQ(rl_config_check(&rc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    rq_palos_config_default(&pc);
    pc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(rq_palos_config_check(&pc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    rq_qos_config_default(&qc);
    qc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(rq_qos_config_check(&qc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    CHECK_EQ(rl_mem_size(&rc), 0);
    CHECK_EQ(rq_palos_mem_size(&pc), 0);
    CHECK_EQ(rq_qos_mem_size(&qc), 0);
    /* a valid config: RNIC_OK and the field pointer set to NULL, in every engine */
    {
        tp_config tc;
        tp_rx_config trc;
        hcc_host_config hc;
        hcc_rx_config hrc;
        hcc_tx_config htc;
        rl_config_default(&rc);
        rq_palos_config_default(&pc);
        rq_qos_config_default(&qc);
        tp_config_default(&tc);
        tc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        tp_rx_config_default(&trc);
        trc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
        hcc_host_config_default(&hc);
        hcc_rx_config_default(&hrc);
        hcc_tx_config_default(&htc);
        pc.source = source_read; /* (the two configs with a required field) */
        tc.protocol = tp_protocol_newreno();
        field = "unset";
        CHECK(rl_config_check(&rc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(rq_palos_config_check(&pc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(rq_qos_config_check(&qc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(tp_config_check(&tc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(tp_rx_config_check(&trc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(hcc_host_config_check(&hc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(hcc_rx_config_check(&hrc, &field) == RNIC_OK && field == NULL);
        field = "unset";
        CHECK(hcc_tx_config_check(&htc, &field) == RNIC_OK && field == NULL);
    }
}

static void test_tassel_tags(void) { source_fill(700); contract_tags_pass_through(mk_tassel); }
static void test_palos_tags(void) { source_fill(5000); contract_tags_pass_through(mk_palos); }

/* Tassel's rate registers: clamped and counted, 0 pauses, a raise acts within a packet time. */
static void test_tassel_rates_clamp_pause_retime(void)
{
    eng e;
    rnic_work w;
    const rl_stats *st;
    uint64_t clamped, t_raise, first_after = 0;
    source_fill(700);
    e = make_tassel(0, 64);
    st = rl_get_stats((rl *)e.x);
    CHECK_EQ(rl_set_rate((rl *)e.x, 0, 1), RNIC_OK);                  /* below min: clamped up */
    CHECK_EQ(rl_set_rate((rl *)e.x, 1, 10000000000000ull), RNIC_OK);  /* above link: clamped down */
    CHECK_EQ(rl_set_rate((rl *)e.x, 99, 1000000000ull), RNIC_ENOENT); /* unknown flow: refused */
    e.ops->advance(e.x, 10);
    CHECK_EQ(st->rate_clamped, 2u);
    clamped = st->rate_clamped;
    (void)clamped;
    /* flow 2 paused: doorbell it, nothing leaves */
    CHECK_EQ(rl_set_rate((rl *)e.x, 2, 0), RNIC_OK);
    CHECK_EQ(rl_doorbell((rl *)e.x, 2), RNIC_OK);
    e.ops->advance(e.x, 20000);
    while (e.ops->pop(e.x, e.out, &w) == RNIC_OK)
        CHECK(w.flow != 2u);
    /* resume at 100 Kb/s, then raise to 10 Gb/s: the next packet follows within a packet time
     * at the new rate (700+ B at 10 Gb/s = ~150 cycles) plus two ring reads (2 x 40) */
    CHECK_EQ(rl_set_rate((rl *)e.x, 2, 100000), RNIC_OK);
    e.ops->advance(e.x, 5000);
    while (e.ops->pop(e.x, e.out, &w) == RNIC_OK)
        ;
    t_raise = e.ops->now(e.x);
    CHECK_EQ(rl_set_rate((rl *)e.x, 2, 10000000000ull), RNIC_OK);
    while (e.ops->now(e.x) < t_raise + 20000u && !first_after) {
        e.ops->advance(e.x, 1);
        while (e.ops->pop(e.x, e.out, &w) == RNIC_OK)
            if (w.flow == 2u && !first_after)
                first_after = w.cycle;
    }
    CHECK(first_after != 0);
    CHECK(first_after - t_raise <= 2000u * 8u * 250u / 10000u + 2u * 40u + 64u);
    e.destroy(&e);
}

/* ---------------- hostcc.h: the checks where an hcc engine has its own documented shape ---------------- */
static void test_hcc_null_and_empty(void)
{
    source_fill(700);
    contract_null_and_empty(mk_host);
    contract_null_and_empty(mk_rx);
    contract_null_and_empty(mk_tx);
}
static void test_hcc_fast_forward(void)
{
    source_fill(700);
    contract_fast_forward_equals_ticking(mk_host, 0, 0);
    contract_fast_forward_equals_ticking(mk_host_pfc, 0, 0);
    contract_fast_forward_equals_ticking(mk_host_ddio, 0, 0);
    contract_fast_forward_equals_ticking(mk_rx, 0, 0);
    contract_fast_forward_equals_ticking(mk_rx_fed, 0, 0);
    contract_fast_forward_equals_ticking(mk_rx_ecn, 0, 0);
    contract_fast_forward_equals_ticking(mk_tx, 0, 0);
    contract_fast_forward_equals_ticking(mk_tx_fed, 0, 0);
}
static void test_hcc_wrap(void)
{
    source_fill(700);
    contract_fast_forward_equals_ticking(mk_host, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_host_pfc, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_host_ddio, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_rx, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_rx_fed, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_rx_ecn, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_tx, 0, NEAR_WRAP);
    contract_fast_forward_equals_ticking(mk_tx_fed, 0, NEAR_WRAP);
}
static void test_hcc_advance_stops(void)
{
    source_fill(700);
    contract_advance_stops_when_output_fills(mk_host, 3);
    contract_advance_stops_when_output_fills(mk_tx, 2);
}

/* The loaded host runs did what they are there for: pauses, marks, drops, write-backs, stalls,
 * and an idle stretch that fast-forward skips. */
static void test_hcc_host_loaded_runs_cover_the_paths(void)
{
    eng a = mk_host_pfc(0, 8), b = mk_host_ddio(0, 8);
    const hcc_host_stats *sa = hcc_host_get_stats((hcc_host *)a.x), *sb = hcc_host_get_stats((hcc_host *)b.x);
    log_a.n = log_b.n = side_a.n = 0;
    a.side_log = &side_a;
    run_ticking(&a, &log_a, 60000);
    run_ticking(&b, &log_b, 60000);
    CHECK(sa->pfc_pauses > 0 && sa->pfc_resumes > 0 && sa->pause_cycles > 0);
    CHECK_EQ(side_a.n, sa->pfc_pauses + sa->pfc_resumes); /* every PFC frame is a signal record */
    CHECK(sa->pcie_stalled_writes > 0);
    CHECK_EQ(sa->dropped, 0); /* the sender held while paused */
    CHECK_EQ(log_a.n, HH_PACKETS);
    CHECK(sb->marked > 0);
    CHECK(sb->ddio_writebacks > 0 && sb->ddio_misses > 0);
    CHECK_EQ(log_b.n + sb->dropped, HH_PACKETS);
    CHECK_EQ(hcc_host_next_event((hcc_host *)a.x), RNIC_NEVER); /* drained and idle at the end */
    a.destroy(&a);
    b.destroy(&b);
}

/* hcc_host's records are the packets pushed, in arrival order (one FIFO RX buffer), every field
 * carried but cycle (the last posted write's cycle) and aux (cycles since arrival). */
static void test_hcc_host_records_carry_the_packet(void)
{
    eng e;
    uint32_t k;
    source_fill(700);
    e = mk_host(0, 64);
    log_a.n = 0;
    run_ticking(&e, &log_a, 60000);
    CHECK_EQ(log_a.n, NFLOWS * WQES_PER_FLOW);
    for (k = 0; k < log_a.n; k++) {
        const rnic_work *w = &log_a.w[k], *s = &src_entries[k / WQES_PER_FLOW][k % WQES_PER_FLOW];
        rnic_work x = *w, y = *s;
        CHECK_EQ(w->aux, w->cycle); /* every packet arrived at cycle 0 */
        CHECK(k == 0 || w->cycle > log_a.w[k - 1u].cycle);
        /* offset: cycles since it reached the head (arrival, or the previous packet's last write) */
        CHECK_EQ(w->offset, w->cycle - (k == 0 ? 0u : log_a.w[k - 1u].cycle));
        x.cycle = y.cycle = 0;
        x.aux = y.aux = 0;
        x.offset = y.offset = 0;
        CHECK(same_record(&x, &y, 0));
        if (TEST_FAILS())
            printf("  k %u: flow %u/%u index %u/%u off %u/%u len %u/%u flags %x/%x tag %llx/%llx addr %llx/%llx raddr %llx/%llx op %u/%u st %d/%d\n", k, x.flow, y.flow, x.index, y.index, x.offset, y.offset, x.len, y.len, x.flags, y.flags, (unsigned long long)x.tag, (unsigned long long)y.tag, (unsigned long long)x.addr, (unsigned long long)y.addr, (unsigned long long)x.raddr, (unsigned long long)y.raddr, x.op, y.op, x.status, y.status);
        if (TEST_FAILS())
            break;
    }
    e.destroy(&e);
}

/* next_event never late: whenever a tick changes a counter (other than the cycle counts, which
 * skip reproduces) or produces a record, next_event said `now` before it. In particular while a
 * posted write waits for credits (docs/hostcc_host.md: stall cycles are counted, so next_event
 * is now). Credits are scarce here: 5 IIO lines, a slow memory, DDIO off. */
static void test_hcc_host_next_event_never_late(void)
{
    int pass;
    for (pass = 0; pass < 2; pass++) {
        hcc_host h;
        hcc_host_config cfg;
        hcc_host_stats before, after;
        void *mem;
        rnic_work w;
        uint64_t i, now, ne, late = 0, stalls_seen = 0, records = 0;
        hcc_host_config_default(&cfg);
        if (pass == 1) {
            cfg.iio_lines = 5;
            cfg.iio_mem_credits = 2;
            cfg.mem_bps = 8u * 200000000ull; /* 200 MB/s: a line every 80 cycles */
            cfg.ddio_lines = 0;
        }
        mem = malloc(hcc_host_mem_size(&cfg));
        CHECK_EQ(hcc_host_init(&h, &cfg, mem, hcc_host_mem_size(&cfg)), RNIC_OK);
        memset(&w, 0, sizeof w);
        for (i = 0; i < 6; i++) {
            w.len = 700u + 1000u * (uint32_t)i;
            w.addr = 0x1000u + 0x10000u * i + 8u * i; /* unaligned starts: writes touch extra lines */
            w.index = (uint32_t)i;
            CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_OK);
        }
        for (i = 0; i < 40000u; i++) {
            now = hcc_host_now(&h);
            ne = hcc_host_next_event(&h);
            CHECK(ne == RNIC_NEVER || ne - now < (1ull << 63)); /* never in the past */
            before = *hcc_host_get_stats(&h);
            hcc_host_tick(&h);
            after = *hcc_host_get_stats(&h);
            before.cycles = after.cycles = 0;
            before.pause_cycles = after.pause_cycles = 0;
            if (after.pcie_stall_cycles != before.pcie_stall_cycles) {
                stalls_seen++;
                if (ne != now)
                    late++;
            }
            if (hcc_host_pop_rx(&h, &w) == RNIC_OK) {
                records++;
                if (ne != now)
                    late++;
            }
            if (memcmp(&before, &after, sizeof before) != 0 && ne != now)
                late++;
        }
        CHECK_EQ(late, 0);
        CHECK_EQ(records, 6);
        if (pass == 1)
            CHECK(stalls_seen > 100u);
        CHECK_EQ(hcc_host_next_event(&h), RNIC_NEVER);
        free(mem);
    }
}

/* hcc_rx's action port is a register's history: when a change finds it full the newest waiting
 * record is overwritten (last write wins, docs/hostcc_rx.md). advance still stops right after
 * the tick in which the port became full; after that a full port never blocks the engine. */
static void test_hcc_rx_advance_stops_then_merges(void)
{
    eng e = mk_rx(0, 2), ref = mk_rx(0, 64);
    rec_log *r = &log_a;
    const hcc_rx_stats *st = hcc_rx_get_stats((hcc_rx *)e.x);
    rnic_work w;
    uint64_t ran;
    r->n = 0;
    run_ticking(&ref, r, 100000);
    CHECK(r->n >= 4u); /* downs and ups: more changes than the port holds */
    e.load(e.x);
    ran = e.ops->advance(e.x, 1000000);
    CHECK(ran < 1000000u);
    CHECK_EQ(e.ops->now(e.x), ran);
    CHECK_EQ(ran, r->w[1].cycle + 1u); /* right after the tick of the second record */
    ran += e.ops->advance(e.x, 100000u - ran); /* full: changes merge, nothing stops */
    CHECK_EQ(ran, 100000u);
    CHECK_EQ(e.ops->pop(e.x, e.out, &w), RNIC_OK);
    CHECK(same_record(&w, &r->w[0], 0));
    CHECK_EQ(e.ops->pop(e.x, e.out, &w), RNIC_OK);
    CHECK_EQ(w.flags, r->w[r->n - 1u].flags | HCC_RX_WORK_MERGED);
    w.flags = r->w[r->n - 1u].flags;
    CHECK(same_record(&w, &r->w[r->n - 1u], 0)); /* the newest record holds the current state */
    CHECK_EQ(e.ops->pop(e.x, e.out, &w), RNIC_EEMPTY);
    CHECK_EQ(st->merged, r->n - 2u);
    CHECK_EQ(st->actions, r->n);
    CHECK_EQ(hcc_rx_level((hcc_rx *)e.x), hcc_rx_level((hcc_rx *)ref.x));
    e.destroy(&e);
    ref.destroy(&ref);
}

/* hcc_tx has no timed behaviour of its own: inputs act at the call (hcc_tx_rate reads the new
 * R_trans at once), the records they cause come out of the next tick stamped with its cycle;
 * next_event is now while a record waits and its port has room, NEVER when only a pop would
 * unblock; rates are clamped and counted, 0 pauses; refused input is counted by cause. */
static void test_hcc_tx_inputs_act_at_the_call(void)
{
    eng e = mk_tx(5000, 8);
    hcc_tx *c = (hcc_tx *)e.x;
    const hcc_tx_stats *st = hcc_tx_get_stats(c);
    rnic_work w, ack;
    uint32_t i;
    CHECK_EQ(hcc_tx_now(c), 5000u);
    CHECK_EQ(hcc_tx_next_event(c), RNIC_NEVER);
    CHECK_EQ(ht_open(c, 0, 1000000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_rate(c, 0), 1000000000ull); /* at once */
    CHECK_EQ(hcc_tx_pop_rate(c, &w), RNIC_EEMPTY); /* the record: at the next tick */
    CHECK_EQ(hcc_tx_next_event(c), 5000u);
    hcc_tx_tick(c);
    CHECK_EQ(hcc_tx_pop_rate(c, &w), RNIC_OK);
    CHECK_EQ(w.cycle, 5000u);
    CHECK_EQ(w.flow, 0);
    CHECK_EQ(w.addr, 1000000000ull);
    CHECK_EQ(hcc_tx_next_event(c), RNIC_NEVER);
    /* R_cc: last write wins, 0 pauses, out of range clamped and counted */
    CHECK_EQ(hcc_tx_set_rcc(c, 0, 500000000ull), RNIC_OK);
    CHECK_EQ(hcc_tx_rate(c, 0), 500000000ull);
    CHECK_EQ(hcc_tx_set_rcc(c, 0, 0), RNIC_OK);
    CHECK_EQ(hcc_tx_rate(c, 0), 0);
    CHECK_EQ(hcc_tx_set_rcc(c, 0, 5000000000000ull), RNIC_OK); /* above line: clamped */
    CHECK_EQ(st->rate_clamped, 1);
    CHECK_EQ(hcc_tx_rate(c, 0), 1000000000ull);  /* min(R_rev, line) */
    CHECK_EQ(hcc_tx_advance(c, 10), 10); /* undone before a tick: no record */
    CHECK_EQ(hcc_tx_pop_rate(c, &w), RNIC_EEMPTY);
    /* probes: one per probe_bytes (1024), produced by the next tick; only a pop unblocks a full port */
    CHECK_EQ(ht_sent(c, 0, 20u * 1024u + 5u), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(c), hcc_tx_now(c));
    CHECK_EQ(hcc_tx_advance(c, 100), 1); /* the port (8) became full in that tick */
    CHECK_EQ(hcc_tx_next_event(c), RNIC_NEVER);
    CHECK_EQ(hcc_tx_peek_probe(c, &w), RNIC_OK);
    CHECK_EQ(w.cycle, 5011u); /* the tick after the 10 cycles advanced from 5001 */
    CHECK_EQ(w.flags, HCC_WORK_PROBE);
    CHECK_EQ(w.op, 0x77);
    CHECK_EQ(w.index, 0);
    CHECK_EQ(hcc_tx_pop_probe(c, &w), RNIC_OK);
    CHECK_EQ(hcc_tx_next_event(c), hcc_tx_now(c));
    for (i = 0; i < 30u; i++) {
        hcc_tx_advance(c, 1000);
        while (hcc_tx_pop_probe(c, &w) == RNIC_OK)
            ;
    }
    CHECK_EQ(st->probes_out, 20);
    CHECK_EQ(w.index, 19);
    /* the input side: ACKs act at the call and never fill */
    CHECK_EQ(hcc_tx_space_probe_ack(c), UINT32_MAX);
    CHECK_EQ(hcc_tx_space_probe_ack(NULL), 0);
    memset(&ack, 0, sizeof ack);
    ack.flow = 0;
    ack.index = 19;
    ack.addr = 1000;
    ack.raddr = 1900; /* D_cur 900 ns, well above D_thr: R_rev falls at once */
    CHECK_EQ(hcc_tx_push_probe_ack(c, &ack), RNIC_OK);
    CHECK(hcc_tx_rate(c, 0) < 1000000000ull);
    CHECK_EQ(hcc_tx_push_probe_ack(c, &ack), RNIC_ESTALE); /* duplicate */
    ack.index = 20;
    CHECK_EQ(hcc_tx_push_probe_ack(c, &ack), RNIC_ENOENT); /* never produced */
    ack.flow = 9;
    CHECK_EQ(hcc_tx_push_probe_ack(c, &ack), RNIC_ENOENT); /* flow not open */
    CHECK_EQ(hcc_tx_push_probe_ack(c, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_tx_push_sent(c, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_tx_pop_rate(c, NULL), RNIC_EINVAL);
    CHECK_EQ(st->errors.by_cause[RNIC_ESTALE], 1);
    CHECK_EQ(st->errors.by_cause[RNIC_ENOENT], 2);
    CHECK_EQ(st->errors.by_cause[RNIC_EINVAL], 3);
    CHECK_EQ(rnic_err_total(&st->errors), 6);
    /* EBUSY: a flow's unproduced probe requests would pass 2^32 - 1 (the one back-pressure) */
    CHECK_EQ(ht_open(c, 1, 1000000000ull), RNIC_OK);
    for (i = 0; i < 4u; i++)
        CHECK_EQ(ht_sent(c, 1, UINT32_MAX - 1023u), RNIC_OK); /* 2^22 - 1 requests each */
    {
        rnic_err r = RNIC_OK;
        for (i = 0; i < 2000u && r == RNIC_OK; i++)
            r = ht_sent(c, 1, UINT32_MAX);
        CHECK_EQ(r, RNIC_EBUSY);
        CHECK_EQ(st->errors.by_cause[RNIC_EBUSY], 1);
        CHECK_EQ(st->reasons.probe_overflow, 1);
    }
    e.destroy(&e);
}

/* Refused input on the host and the receiver controller: counted by cause (EBUSY too), state intact. */
static void test_hcc_refused_input_counted(void)
{
    hcc_host h;
    hcc_host_config hc;
    hcc_rx r;
    hcc_rx_config rc;
    hcc_rx_sample smp;
    void *hm, *rm;
    rnic_work w;
    uint32_t space;
    const hcc_host_stats *hs;
    const hcc_rx_stats *rs;
    hcc_host_config_default(&hc);
    hc.rx_packets = 3;
    hm = malloc(hcc_host_mem_size(&hc));
    CHECK_EQ(hcc_host_init(&h, &hc, hm, hcc_host_mem_size(&hc)), RNIC_OK);
    hs = hcc_host_get_stats(&h);
    memset(&w, 0, sizeof w);
    w.len = 1000;
    CHECK_EQ(hcc_host_space_rx(&h), hc.rx_buffer_bytes);
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_OK);
    CHECK_EQ(hcc_host_space_rx(&h), hc.rx_buffer_bytes - 1000u);
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_OK);
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_OK);
    CHECK_EQ(hcc_host_space_rx(&h), 0); /* every packet slot taken */
    space = hcc_host_rx_occupancy(&h);
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_EBUSY); /* dropped, counted */
    CHECK_EQ(hcc_host_rx_occupancy(&h), space);
    CHECK_EQ(hs->dropped, 1);
    CHECK_EQ(hs->dropped_bytes, 1000);
    CHECK_EQ(hcc_host_push_rx(&h, NULL), RNIC_EINVAL);
    w.len = 0;
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_EINVAL);
    w.len = hc.rx_buffer_bytes + 1u;
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_ERANGE);
    CHECK_EQ(hcc_host_set_mba_level(&h, 5), RNIC_ERANGE);
    CHECK_EQ(hcc_host_mba_level(&h), 0);
    CHECK_EQ(hcc_host_set_cpu_load(&h, 1000000000000ull), RNIC_OK); /* a rate: clamped, never refused */
    CHECK_EQ(hs->cpu_load_clamped, 1);
    CHECK_EQ(hcc_host_pop_signal(&h, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_host_peek_signal(&h, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_host_pop_signal(&h, &w), RNIC_EEMPTY);
    CHECK_EQ(hs->errors.by_cause[RNIC_EBUSY], 1);
    CHECK_EQ(hs->errors.by_cause[RNIC_EINVAL], 4);
    CHECK_EQ(hs->errors.by_cause[RNIC_ERANGE], 2);
    CHECK_EQ(rnic_err_total(&hs->errors), 7);
    CHECK_EQ(hcc_host_push_rx(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_host_set_mba_level(NULL, 1), RNIC_EINVAL);
    CHECK_EQ(hcc_host_space_rx(NULL), 0);
    CHECK(hcc_host_get_stats(NULL) == NULL);
    free(hm);

    hcc_rx_config_default(&rc);
    rc.sample_depth = 2;
    rm = malloc(hcc_rx_mem_size(&rc));
    CHECK_EQ(hcc_rx_init(&r, &rc, rm, hcc_rx_mem_size(&rc)), RNIC_OK);
    rs = hcc_rx_get_stats(&r);
    CHECK_EQ(hcc_rx_space_sample(&r), 2);
    smp.cycle = 100;
    smp.cum = 1000;
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_OK);
    CHECK_EQ(hcc_rx_space_sample(&r), 1);
    smp.cycle = 50; /* before the newest accepted */
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_EINVAL);
    smp.cycle = 200;
    smp.cum = 1ull << 48; /* beyond the 48-bit counter */
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_ERANGE);
    CHECK_EQ(hcc_rx_push_sample(&r, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_space_sample(&r), 1); /* refused samples took no room */
    smp.cum = 2000;
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_OK);
    CHECK_EQ(hcc_rx_space_sample(&r), 0);
    smp.cycle = 300;
    smp.cum = 3000;
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_EBUSY); /* back-pressure, counted */
    CHECK_EQ(hcc_rx_pop_action(&r, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_peek_action(&r, NULL), RNIC_EINVAL);
    CHECK_EQ(rs->errors.by_cause[RNIC_EBUSY], 1);
    CHECK_EQ(rs->errors.by_cause[RNIC_EINVAL], 4);
    CHECK_EQ(rs->errors.by_cause[RNIC_ERANGE], 1);
    CHECK_EQ(rnic_err_total(&rs->errors), 6);
    CHECK_EQ(rs->samples, 2);
    CHECK_EQ(hcc_rx_next_event(&r), 0); /* two samples wait */
    CHECK_EQ(hcc_rx_advance(&r, 1000), 1000);
    CHECK_EQ(rs->decisions, 1); /* the first is the baseline */
    CHECK_EQ(hcc_rx_push_sample(NULL, &smp), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_space_sample(NULL), 0);
    CHECK(hcc_rx_get_stats(NULL) == NULL);
    free(rm);
}

/* Lifecycle shapes: default config valid; mem_size; init refuses a NULL engine, NULL or
 * misaligned memory (EINVAL) and a short size (ENOSPC); now = start_cycle after init. */
static void test_hcc_lifecycle(void)
{
    int k;
    for (k = 0; k < 3; k++) {
        hcc_host_config hc;
        hcc_rx_config rc;
        hcc_tx_config tc;
        static hcc_host h;
        static hcc_rx r;
        static hcc_tx t;
        size_t size = 0;
        unsigned char *mem;
        const char *field = "unset";
        rnic_err e1, e2, e3, e4, e5;
        uint64_t now = 0;
        hcc_host_config_default(&hc);
        hcc_rx_config_default(&rc);
        hcc_tx_config_default(&tc);
        hc.start_cycle = rc.start_cycle = tc.start_cycle = 0xfffffffffff0ull;
        if (k == 0) {
            CHECK_EQ(hcc_host_config_check(&hc, &field), RNIC_OK);
            size = hcc_host_mem_size(&hc);
        } else if (k == 1) {
            CHECK_EQ(hcc_rx_config_check(&rc, &field), RNIC_OK);
            size = hcc_rx_mem_size(&rc);
        } else {
            CHECK_EQ(hcc_tx_config_check(&tc, &field), RNIC_OK);
            size = hcc_tx_mem_size(&tc);
        }
        CHECK(size > 0);
        mem = (unsigned char *)malloc(size + 16u);
        if (k == 0) {
            e1 = hcc_host_init(NULL, &hc, mem, size);
            e2 = hcc_host_init(&h, &hc, NULL, size);
            e3 = hcc_host_init(&h, &hc, mem + 1, size);
            e4 = hcc_host_init(&h, &hc, mem, size - 1u);
            e5 = hcc_host_init(&h, &hc, mem, size);
            now = hcc_host_now(&h);
        } else if (k == 1) {
            e1 = hcc_rx_init(NULL, &rc, mem, size);
            e2 = hcc_rx_init(&r, &rc, NULL, size);
            e3 = hcc_rx_init(&r, &rc, mem + 1, size);
            e4 = hcc_rx_init(&r, &rc, mem, size - 1u);
            e5 = hcc_rx_init(&r, &rc, mem, size);
            now = hcc_rx_now(&r);
        } else {
            e1 = hcc_tx_init(NULL, &tc, mem, size);
            e2 = hcc_tx_init(&t, &tc, NULL, size);
            e3 = hcc_tx_init(&t, &tc, mem + 1, size);
            e4 = hcc_tx_init(&t, &tc, mem, size - 1u);
            e5 = hcc_tx_init(&t, &tc, mem, size);
            now = hcc_tx_now(&t);
        }
        CHECK_EQ(e1, RNIC_EINVAL);
        CHECK_EQ(e2, RNIC_EINVAL);
        CHECK_EQ(e3, RNIC_EINVAL);
        CHECK_EQ(e4, RNIC_ENOSPC);
        CHECK_EQ(e5, RNIC_OK);
        CHECK_EQ(now, 0xfffffffffff0ull);
        if (TEST_FAILS())
            printf("  engine %d\n", k);
        free(mem);
    }
}

/* Trace: trace_id defaults to the engine's own id (RNIC_ENGINE_HCC_HOST / _RX / _TX); a caller's id is the `engine` of every event;
 * each engine emits PUSH, REFUSE, OUT and POP for its ports (and the tx RATE for its register). */
typedef struct trace_seen {
    uint64_t events, wrong_engine, kinds; /* kinds: bit per kind < 64 */
} trace_seen;
static void trace_note(void *user, const rnic_trace_event *ev)
{
    trace_seen *t = (trace_seen *)user;
    t->events++;
    if (ev->engine != 0x4d2u)
        t->wrong_engine++;
    if (ev->kind < 64u)
        t->kinds |= 1ull << ev->kind;
}
static void test_tp_rx_contract(void)
{
    source_fill(700);
    contract_null_and_empty(mk_tp_rx);
    contract_fast_forward_equals_ticking(mk_tp_rx, 0, 0);
    contract_fast_forward_equals_ticking(mk_tp_rx, 0, NEAR_WRAP);
    contract_advance_stops_when_output_fills(mk_tp_rx, 2);
}

/* The node tables themselves: every engine has one; names, engine ids and port names are
 * distinct and filled; record sizes are the records'; the stats and errors it points at are
 * the engine's; a port index out of range is RNIC_ENOENT, counted once in the engine's errors
 * (space: 0); a NULL engine is RNIC_EINVAL. */
static void test_node_tables(void)
{
    static const make_fn makes[] = {mk_tassel, mk_qos, mk_palos, mk_transport, mk_tp_rx, mk_host, mk_rx, mk_tx};
    static const char *const names[] = {"rl", "rq_qos", "rq_palos", "tp", "tp_rx", "hcc_host", "hcc_rx", "hcc_tx"};
    uint16_t ids[8];
    uint32_t i, j, p;
    source_fill(700);
    for (i = 0; i < 8u; i++) {
        eng e = makes[i](0, 8);
        const rnic_node_ops *o = e.ops;
        rnic_work w;
        uint64_t before;
        memset(&w, 0, sizeof w);
        CHECK(o != NULL && !strcmp(o->name, names[i]));
        ids[i] = o->engine;
        for (j = 0; j < i; j++)
            CHECK(ids[j] != ids[i]); /* every engine its own trace id */
        CHECK(o->n_out >= 1u && o->out != NULL);
        CHECK(o->n_in == 0 || o->in != NULL);
        for (p = 0; p < o->n_in + o->n_out; p++) {
            const rnic_node_port *port = p < o->n_in ? &o->in[p] : &o->out[p - o->n_in];
            CHECK(port->name && port->name[0]);
            CHECK(port->rec_size >= 8u);
            if (p < o->n_in)
                CHECK_EQ(rnic_node_in_port(o, port->name), p);
            else
                CHECK_EQ(rnic_node_out_port(o, port->name), p - o->n_in);
        }
        CHECK_EQ(o->out[e.out].rec_size, sizeof(rnic_work));
        CHECK_EQ(rnic_node_out_port(o, "no such port"), RNIC_NONE);
        CHECK_EQ(rnic_node_in_port(o, NULL), RNIC_NONE);
        CHECK(o->stats(e.x) != NULL && o->stats_size > sizeof(rnic_err_stats));
        CHECK((const char *)o->errors(e.x) >= (const char *)o->stats(e.x) &&
              (const char *)o->errors(e.x) + sizeof(rnic_err_stats) <= (const char *)o->stats(e.x) + o->stats_size);
        CHECK(o->errors(NULL) == NULL);
        CHECK_EQ(o->now(e.x), 0);
        before = o->errors(e.x)->by_cause[RNIC_ENOENT];
        CHECK_EQ(o->push(e.x, o->n_in, &w), RNIC_ENOENT);
        CHECK_EQ(o->pop(e.x, o->n_out, &w), RNIC_ENOENT);
        CHECK_EQ(o->peek(e.x, o->n_out, &w), RNIC_ENOENT);
        CHECK_EQ(o->space(e.x, o->n_in), 0);
        CHECK_EQ(o->errors(e.x)->by_cause[RNIC_ENOENT], before + 3u);
        CHECK_EQ(o->push(NULL, 0, &w), RNIC_EINVAL);
        CHECK_EQ(o->pop(NULL, 0, &w), RNIC_EINVAL);
        CHECK_EQ(o->errors(e.x)->by_cause[RNIC_ENOENT], before + 3u);
        e.destroy(&e);
    }
}

static void test_hcc_trace_ids(void)
{
    const uint64_t ports = (1ull << RNIC_TRACE_PUSH) | (1ull << RNIC_TRACE_REFUSE) | (1ull << RNIC_TRACE_OUT) |
                           (1ull << RNIC_TRACE_POP);
    trace_seen th, tr, tt;
    hcc_host_config hc;
    hcc_rx_config rc;
    hcc_tx_config tc;
    hcc_host h;
    hcc_rx r;
    hcc_tx t;
    void *hm, *rm, *tm;
    rnic_work w;
    hcc_rx_sample smp;
    uint32_t i;
    memset(&th, 0, sizeof th);
    memset(&tr, 0, sizeof tr);
    memset(&tt, 0, sizeof tt);
    hcc_host_config_default(&hc);
    hcc_rx_config_default(&rc);
    hcc_tx_config_default(&tc);
    CHECK_EQ(hc.trace_id, RNIC_ENGINE_HCC_HOST);
    CHECK_EQ(rc.trace_id, RNIC_ENGINE_HCC_RX);
    CHECK_EQ(tc.trace_id, RNIC_ENGINE_HCC_TX);
    CHECK(hc.trace == NULL && rc.trace == NULL && tc.trace == NULL);
    hc.trace = rc.trace = tc.trace = trace_note;
    hc.trace_id = rc.trace_id = tc.trace_id = 0x4d2u;
    hc.trace_user = &th;
    rc.trace_user = &tr;
    tc.trace_user = &tt;
    rc.slack_ns = 0;
    hm = malloc(hcc_host_mem_size(&hc));
    rm = malloc(hcc_rx_mem_size(&rc));
    tm = malloc(hcc_tx_mem_size(&tc));
    CHECK_EQ(hcc_host_init(&h, &hc, hm, hcc_host_mem_size(&hc)), RNIC_OK);
    CHECK_EQ(hcc_rx_init(&r, &rc, rm, hcc_rx_mem_size(&rc)), RNIC_OK);
    CHECK_EQ(hcc_tx_init(&t, &tc, tm, hcc_tx_mem_size(&tc)), RNIC_OK);
    /* host: a packet in, a bad one refused, out, popped */
    memset(&w, 0, sizeof w);
    w.len = 4096;
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_OK);
    w.len = 0;
    CHECK_EQ(hcc_host_push_rx(&h, &w), RNIC_EINVAL);
    CHECK_EQ(hcc_host_set_mba_level(&h, 2), RNIC_OK);
    hcc_host_advance(&h, 10000);
    CHECK_EQ(hcc_host_pop_rx(&h, &w), RNIC_OK);
    CHECK_EQ(th.kinds & ports, ports);
    CHECK_EQ(th.wrong_engine, 0);
    /* rx: a baseline and a congested sample (one level down), a refused one, the action popped */
    smp.cycle = 0;
    smp.cum = 0;
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_OK);
    smp.cycle = 500;
    smp.cum = 500u * 100u;
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_OK);
    CHECK_EQ(hcc_rx_push_sample(&r, &smp), RNIC_EINVAL); /* duplicate */
    hcc_rx_advance(&r, 10);
    CHECK_EQ(hcc_rx_pop_action(&r, &w), RNIC_OK);
    CHECK_EQ(w.op, 0); /* never written */
    CHECK(w.flags & HCC_RX_WORK_MBA);
    CHECK_EQ(w.aux, 1); /* the level */
    CHECK_EQ(tr.kinds & ports, ports);
    CHECK(tr.kinds & (1ull << HCC_RX_TRACE_LEVEL));
    CHECK_EQ(tr.wrong_engine, 0);
    /* tx: open, sent, a rate write, a refused ACK, records out and popped */
    CHECK_EQ(ht_open(&t, 3, 1000000000ull), RNIC_OK);
    CHECK_EQ(ht_sent(&t, 3, 40000), RNIC_OK);
    CHECK_EQ(hcc_tx_set_rcc(&t, 3, 2000000000ull), RNIC_OK);
    w.flow = 4;
    CHECK_EQ(hcc_tx_push_probe_ack(&t, &w), RNIC_ENOENT);
    hcc_tx_advance(&t, 10);
    CHECK_EQ(hcc_tx_pop_probe(&t, &w), RNIC_OK);
    CHECK_EQ(hcc_tx_pop_rate(&t, &w), RNIC_OK);
    CHECK_EQ(tt.kinds & ports, ports);
    CHECK(tt.kinds & (1ull << RNIC_TRACE_RATE));
    CHECK(tt.kinds & (1ull << HCC_TX_TRACE_OPEN));
    CHECK_EQ(tt.wrong_engine, 0);
    for (i = 0; i < 3u; i++) /* no trace at all: the hook is off by default (checked above) */
        ;
    free(hm);
    free(rm);
    free(tm);
}

/* Bad config: RNIC_EINVAL with the field named, mem_size 0, init refuses; config_default(NULL)
 * is a no-op. Each engine with clock_hz and one field of its own. */
static void test_hcc_bad_configs_named(void)
{
    hcc_host_config hc;
    hcc_rx_config rc;
    hcc_tx_config tc;
    static hcc_host h;
    static hcc_rx r;
    static hcc_tx t;
    uint64_t mem[64];
    const char *field;
    hcc_host_config_default(NULL);
    hcc_rx_config_default(NULL);
    hcc_tx_config_default(NULL);
    CHECK_EQ(hcc_host_config_check(NULL, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_rx_config_check(NULL, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_tx_config_check(NULL, NULL), RNIC_EINVAL);
    CHECK_EQ(hcc_host_mem_size(NULL), 0);
    CHECK_EQ(hcc_rx_mem_size(NULL), 0);
    CHECK_EQ(hcc_tx_mem_size(NULL), 0);

    hcc_host_config_default(&hc);
    hc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(hcc_host_config_check(&hc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    CHECK_EQ(hcc_host_mem_size(&hc), 0);
    CHECK_EQ(hcc_host_init(&h, &hc, mem, sizeof mem), RNIC_EINVAL);
    hcc_host_config_default(&hc);
    hc.iio_mem_credits = hc.iio_lines + 1u;
    field = "unset";
    CHECK_EQ(hcc_host_config_check(&hc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "iio_mem_credits"));
    CHECK_EQ(hcc_host_mem_size(&hc), 0);

    hcc_rx_config_default(&rc);
    rc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(hcc_rx_config_check(&rc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    CHECK_EQ(hcc_rx_mem_size(&rc), 0);
    CHECK_EQ(hcc_rx_init(&r, &rc, mem, sizeof mem), RNIC_EINVAL);
    hcc_rx_config_default(&rc);
    rc.levels_bps[3] = rc.levels_bps[2] + 1u; /* levels must not increase */
    field = "unset";
    CHECK_EQ(hcc_rx_config_check(&rc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "levels_bps"));
    CHECK_EQ(hcc_rx_mem_size(&rc), 0);

    hcc_tx_config_default(&tc);
    tc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(hcc_tx_config_check(&tc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    CHECK_EQ(hcc_tx_mem_size(&tc), 0);
    CHECK_EQ(hcc_tx_init(&t, &tc, mem, sizeof mem), RNIC_EINVAL);
    hcc_tx_config_default(&tc);
    tc.rate_floor_bps = tc.link_bps + 1u;
    field = "unset";
    CHECK_EQ(hcc_tx_config_check(&tc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "rate_floor_bps"));
    CHECK_EQ(hcc_tx_mem_size(&tc), 0);
}

int main(void)
{
    RUN(test_transport_null_and_empty);
    RUN(test_transport_fast_forward);
    RUN(test_transport_wrap);
    RUN(test_transport_advance_stops);
    RUN(test_tassel_null_and_empty);
    RUN(test_palos_null_and_empty);
    RUN(test_tassel_fast_forward);
    RUN(test_tassel_ranked_contract);
    RUN(test_palos_fast_forward);
    RUN(test_tassel_wrap);
    RUN(test_palos_wrap);
    RUN(test_tassel_advance_stops);
    RUN(test_palos_advance_stops);
    RUN(test_tassel_tags);
    RUN(test_palos_tags);
    RUN(test_qos_null_and_empty);
    RUN(test_qos_fast_forward);
    RUN(test_qos_wrap);
    RUN(test_qos_advance_stops);
    RUN(test_tassel_rates_clamp_pause_retime);
    RUN(test_null_engines_and_configs);
    RUN(test_hcc_null_and_empty);
    RUN(test_hcc_fast_forward);
    RUN(test_hcc_wrap);
    RUN(test_hcc_advance_stops);
    RUN(test_hcc_host_loaded_runs_cover_the_paths);
    RUN(test_hcc_host_records_carry_the_packet);
    RUN(test_hcc_host_next_event_never_late);
    RUN(test_hcc_rx_advance_stops_then_merges);
    RUN(test_hcc_tx_inputs_act_at_the_call);
    RUN(test_hcc_refused_input_counted);
    RUN(test_hcc_lifecycle);
    RUN(test_hcc_trace_ids);
    RUN(test_tp_rx_contract);
    RUN(test_node_tables);
    RUN(test_hcc_bad_configs_named);
    return test_summary();
}
