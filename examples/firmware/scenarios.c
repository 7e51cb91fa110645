/* The self-test's scenarios (interface and purpose: scenarios.h). Freestanding apart from
 * <stdint.h>/<stddef.h>/<stdbool.h>: no heap, no floating point, no libc call. All state is in
 * static storage; each scenario re-initialises what it uses, so running it twice gives the
 * same digest. */
/* The engines' implementation is compiled here, except in the code-size links of
 * tools/firmware.sh, which compile it alone (engines.c, FW_ENGINES_APART) so that no engine code
 * is inlined into the scenario driver and counted as the driver's. */
#ifndef FW_ENGINES_APART
#define RNIC_IMPLEMENTATION
#endif
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "scenarios.h"

/* The digest's XXH64 and trace hook: the common core's, which exist where a header is
 * implemented -- here, or in engines.c when the engines are compiled apart. */
#ifdef FW_ENGINES_APART
uint64_t fw_engines_hash64(const void *data, size_t len, uint64_t seed);
void fw_engines_digest_hook(void *user, const rnic_trace_event *ev);
#define FW_HASH64 fw_engines_hash64
#define FW_DIGEST_HOOK fw_engines_digest_hook
#else
#define FW_HASH64 rnic_hash64
#define FW_DIGEST_HOOK rnic_trace_digest_hook
#endif

const fw_scenario fw_scenarios[FW_SCENARIOS] = {
    {"tassel", fw_run_tassel},         {"qos", fw_run_qos},           {"palos", fw_run_palos},
    {"tp_newreno", fw_run_tp_newreno}, {"tp_dcqcn", fw_run_tp_dcqcn}, {"hostcc", fw_run_hostcc},
};

/* ---------------- digest helpers ---------------- */

/* Fold one 64-bit value (as 8 little-endian bytes, the same on every target). */
static void fw_fold(uint64_t *digest, uint64_t v)
{
    unsigned char b[8];
    unsigned i;
    for (i = 0; i < 8u; i++)
        b[i] = (unsigned char)(v >> (8u * i));
    *digest = FW_HASH64(b, sizeof b, *digest);
}

/* Fold an output record field by field (never its bytes: struct padding and layout differ). */
static void fw_fold_work(fw_result *r, const rnic_work *w)
{
    fw_fold(&r->digest, w->cycle);
    fw_fold(&r->digest, w->addr ^ (w->raddr << 1));
    fw_fold(&r->digest, w->tag);
    fw_fold(&r->digest, ((uint64_t)w->flow << 32) | w->index);
    fw_fold(&r->digest, ((uint64_t)w->offset << 32) | w->len);
    fw_fold(&r->digest, ((uint64_t)w->flags << 32) | w->op);
    fw_fold(&r->digest, ((uint64_t)(uint32_t)w->status << 32) | w->aux);
    r->records++;
}

static void fw_begin(fw_result *r)
{
    r->digest = 0;
    r->cycles = 0;
    r->records = 0;
    r->ok = 1;
}

#define FW_CHECK(r, cond)     \
    do {                      \
        if (!(cond))          \
            (r)->ok = 0;      \
    } while (0)

void fw_run_none(fw_result *out)
{
    fw_begin(out);
    fw_fold(&out->digest, 42u);
}

/* ---------------- a static WQE source shared by Tassel and Palos ---------------- */

#define FW_SRC_FLOWS 8u
#define FW_SRC_WQES 8u
static rnic_work fw_src[FW_SRC_FLOWS][FW_SRC_WQES];

/* Lengths from 1 byte to ~38 KB, unique tags, an opcode and a remote address to carry. */
static void fw_src_fill(uint32_t scale)
{
    uint32_t f, i;
    for (f = 0; f < FW_SRC_FLOWS; f++)
        for (i = 0; i < FW_SRC_WQES; i++) {
            rnic_work *w = &fw_src[f][i];
            RNIC_MEMSET(w, 0, sizeof *w);
            w->flow = f;
            w->index = i;
            w->len = scale * ((f * 7u + i * 3u) % 9u) + 97u * i + 1u;
            w->addr = ((uint64_t)(f + 1u) << 32) + (uint64_t)i * 0x10000u;
            w->raddr = 0xabc000000ull + ((uint64_t)f << 24) + (uint64_t)i * 0x10000u;
            w->tag = 0xf1a0000000000000ull | ((uint64_t)f << 16) | i;
            w->op = 0x30u + f;
        }
}

/* Bytes the source holds: what an engine must deliver, each byte once. */
static uint64_t fw_src_bytes(void)
{
    uint64_t n = 0;
    uint32_t f, i;
    for (f = 0; f < FW_SRC_FLOWS; f++)
        for (i = 0; i < FW_SRC_WQES; i++)
            n += fw_src[f][i].len;
    return n;
}

/* Bytes a record accounts for: its own, or for an ERROR record (a WQE refused whole, e.g. a
 * latency-class WQE above Palos's priority_max_msg, RNIC_ERANGE) its source entry's. */
static uint64_t fw_src_accounted(const rnic_work *w)
{
    if (!(w->flags & RNIC_WORK_ERROR))
        return w->len;
    return w->flow < FW_SRC_FLOWS && w->index < FW_SRC_WQES ? fw_src[w->flow][w->index].len : 0u;
}

/* A record's tag, op and remote address are the source entry's, carried untouched. */
static int fw_src_carried(const rnic_work *w)
{
    const rnic_work *e;
    if (w->flow >= FW_SRC_FLOWS || w->index >= FW_SRC_WQES)
        return 0;
    e = &fw_src[w->flow][w->index];
    return w->tag == e->tag && w->op == e->op && w->raddr == e->raddr + w->offset;
}

static uint32_t fw_src_read(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t n = 0;
    (void)user;
    while (flow < FW_SRC_FLOWS && n < max && index + n < FW_SRC_WQES) {
        out[n] = fw_src[flow][index + n];
        n++;
    }
    return n;
}

/* ---------------- Tassel (ratelimit.h) ---------------- */
/* 8 flows at 5 .. 40 Gb/s on a 100 Gb/s link, 8 WQEs each; flow 0 is raised to 60 Gb/s at
 * cycle 8,000, flow 7 paused at 4,000 and resumed at 12,000; the TX port (8 deep) is drained
 * every other cycle so it fills now and then. Done when every WQE's LAST packet is out. */
#define FW_RL_FLOWS 8u
#define FW_RL_PCIE_NS 160u
#define FW_RL_CLOCK 250000000u
#define FW_RL_TX 8u
#define FW_RL_DESC 60u
#define FW_RL_FETCH 8u
static rl fw_rl;
static uint64_t fw_rl_mem[RL_MEM_SIZE(FW_RL_FLOWS, 1, RL_SCHEDULE_FIFO, FW_RL_PCIE_NS, FW_RL_CLOCK, FW_RL_TX, FW_RL_DESC,
                                      FW_RL_FETCH) /
                          8u];

void fw_run_tassel(fw_result *out)
{
    rl_config cfg;
    rnic_work w;
    uint32_t f, lasts = 0, cyc;
    uint64_t bytes = 0;
    int carried = 1;
    fw_begin(out);
    fw_src_fill(4000u);
    rl_config_default(&cfg);
    cfg.max_flows = FW_RL_FLOWS;
    cfg.mtu = 1024;
    cfg.pcie_latency_ns = FW_RL_PCIE_NS;
    cfg.clock_hz = FW_RL_CLOCK;
    cfg.tx_depth = FW_RL_TX;
    cfg.desc_depth = FW_RL_DESC;
    cfg.fetch_wqes = FW_RL_FETCH;
    cfg.source = fw_src_read;
    cfg.trace = FW_DIGEST_HOOK;
    cfg.trace_user = &out->digest;
    FW_CHECK(out, sizeof fw_rl_mem == rl_mem_size(&cfg));
    if (rl_init(&fw_rl, &cfg, fw_rl_mem, sizeof fw_rl_mem) != RNIC_OK) {
        out->ok = 0;
        return;
    }
    for (f = 0; f < FW_RL_FLOWS; f++) {
        FW_CHECK(out, rl_set_rate(&fw_rl, f, 5000000000ull * (f + 1u)) == RNIC_OK);
        FW_CHECK(out, rl_doorbell(&fw_rl, f) == RNIC_OK);
    }
    /* refused input: counted, nothing else */
    FW_CHECK(out, rl_doorbell(&fw_rl, FW_RL_FLOWS) == RNIC_ENOENT);
    FW_CHECK(out, rl_pop_tx(&fw_rl, NULL) == RNIC_EINVAL);
    for (cyc = 0; cyc < 200000u && lasts < FW_RL_FLOWS * FW_SRC_WQES; cyc++) {
        if (cyc == 4000u)
            (void)rl_set_rate(&fw_rl, 7, 0);
        if (cyc == 8000u)
            (void)rl_set_rate(&fw_rl, 0, 60000000000ull);
        if (cyc == 12000u)
            (void)rl_set_rate(&fw_rl, 7, 40000000000ull);
        rl_tick(&fw_rl);
        out->cycles++;
        if (cyc & 1u)
            continue;
        while (rl_pop_tx(&fw_rl, &w) == RNIC_OK) {
            fw_fold_work(out, &w);
            bytes += fw_src_accounted(&w);
            carried &= fw_src_carried(&w);
            if (w.flags & RNIC_WORK_LAST)
                lasts++;
        }
    }
    FW_CHECK(out, lasts == FW_RL_FLOWS * FW_SRC_WQES);
    /* every byte sent once (or its WQE completed as one ERROR record), tags carried */
    FW_CHECK(out, bytes == fw_src_bytes() && carried);
    FW_CHECK(out, rnic_err_total(&rl_get_stats(&fw_rl)->errors) == 2u);
    fw_fold(&out->digest, rl_get_stats(&fw_rl)->packets ^ rl_now(&fw_rl));
}

/* ---------------- the QoS engine (rnicq.h) ---------------- */
/* 2 domains x 32 write channels; 8 regular transfers of 3 .. 24 KB in 2 KB blocks (two lines
 * each: channels 2k, 2k + 1), half of them congestion-managed; every block is ACKed 40 cycles
 * after it leaves except every 5th block's first issue, whose ACK is lost (the 4 us timeout
 * retransmits it). Status is polled over AXI (a read clears DONE); done when every transfer has
 * completed. */
#define FW_QOS_DOMAINS 2u
#define FW_QOS_WCH 32u
#define FW_QOS_RCH 32u
#define FW_QOS_PRIOS 4u
#define FW_QOS_TIDS 64u
#define FW_QOS_XFERS 8u
static rq_qos fw_qos;
static uint64_t fw_qos_mem[RQ_QOS_MEM_SIZE(FW_QOS_DOMAINS, FW_QOS_WCH, FW_QOS_RCH, FW_QOS_PRIOS, FW_QOS_DOMAINS,
                                           FW_QOS_TIDS, 8, 2, 32, 32, 8, 4, 16, 8, 8) /
                           8u];
/* ACKs in flight to the engine: (due cycle, response) */
#define FW_QOS_ACKS 64u
static struct {
    uint64_t due;
    rq_response r;
} fw_qos_acks[FW_QOS_ACKS];

void fw_run_qos(fw_result *out)
{
    rq_qos_config cfg;
    rnic_work blk;
    rq_packet pkt;
    rq_axi_bresp br;
    rq_axi_rdata rd;
    uint32_t k, l, half, done = 0, cyc, ack_head = 0, ack_count = 0, blocks = 0;
    fw_begin(out);
    rq_qos_config_default(&cfg);
    cfg.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    cfg.domains = FW_QOS_DOMAINS;
    cfg.write_channels = FW_QOS_WCH;
    cfg.read_channels = FW_QOS_RCH;
    cfg.intra_priorities = FW_QOS_PRIOS;
    cfg.accumulators = FW_QOS_DOMAINS;
    cfg.ids.tids = FW_QOS_TIDS;
    cfg.ids.flow_blocks = 4;
    cfg.ids.fids_unipath = 8;
    cfg.ids.fid_groups = 2;
    cfg.axi_write_depth = 32;
    cfg.bresp_depth = 32;
    cfg.block_bytes = 2048;
    cfg.timeout_ns = 4000; /* 600 cycles at 150 MHz */
    cfg.trace = FW_DIGEST_HOOK;
    cfg.trace_user = &out->digest;
    FW_CHECK(out, sizeof fw_qos_mem == rq_qos_mem_size(&cfg));
    if (rq_qos_init(&fw_qos, &cfg, fw_qos_mem, sizeof fw_qos_mem) != RNIC_OK) {
        out->ok = 0;
        return;
    }
    for (k = 0; k < FW_QOS_XFERS; k++) {
        rq_transfer t;
        uint64_t line[2][4], d[2];
        uint32_t dom = k & 1u, ch = 2u * (k >> 1), line_base = dom * (FW_QOS_WCH + FW_QOS_RCH);
        RNIC_MEMSET(&t, 0, sizeof t);
        t.kind = RQ_KIND_REGULAR;
        t.src = 0x100000ull * (k + 1u);
        t.dst = 0x900000ull * (k + 1u);
        t.size = 3000u + 12000u * k;
        t.prio = k % FW_QOS_PRIOS;
        t.cm = (k & 2u) != 0;
        FW_CHECK(out, rq_desc_encode(&t, line[0], line[1]) == RNIC_OK);
        for (l = 0; l < 2u; l++)
            for (half = 0; half < 2u; half++) {
                d[0] = line[l][2u * half];
                d[1] = line[l][2u * half + 1u];
                FW_CHECK(out, rq_qos_axi_write(&fw_qos, dom, ((line_base + ch + l) << 5) | ((2u * half) << 3), d, 16) ==
                                  RNIC_OK);
            }
    }
    FW_CHECK(out, rq_qos_push_response(&fw_qos, NULL) == RNIC_EINVAL); /* refused, counted */
    for (cyc = 0; cyc < 100000u && done < FW_QOS_XFERS; cyc++) {
        uint64_t now = rq_qos_now(&fw_qos);
        while (ack_count && fw_qos_acks[ack_head].due <= now && rq_qos_space_response(&fw_qos)) {
            (void)rq_qos_push_response(&fw_qos, &fw_qos_acks[ack_head].r);
            ack_head = (ack_head + 1u) % FW_QOS_ACKS;
            ack_count--;
        }
        if ((cyc & 63u) == 0)
            (void)rq_qos_axi_read(&fw_qos, cyc & 1u ? 1u : 0u, 0, (cyc >> 6) % FW_QOS_WCH, 0);
        rq_qos_tick(&fw_qos);
        out->cycles++;
        while (rq_qos_pop_bresp(&fw_qos, &br) == RNIC_OK)
            fw_fold(&out->digest, br.cycle ^ ((uint64_t)br.addr << 32) ^ (uint64_t)(uint32_t)br.status);
        while (rq_qos_pop_rdata(&fw_qos, &rd) == RNIC_OK)
            fw_fold(&out->digest, rd.cycle ^ (rd.data << 40) ^ (uint64_t)(uint32_t)rd.status);
        while (rq_qos_pop_packet(&fw_qos, &pkt) == RNIC_OK)
            fw_fold(&out->digest, pkt.cycle ^ ((uint64_t)pkt.tid << 32) ^ pkt.seq);
        while (rq_qos_pop_block(&fw_qos, &blk) == RNIC_OK) {
            fw_fold_work(out, &blk);
            blocks++;
            if (blocks % 5u == 0 && !(blk.flags & (RNIC_WORK_ERROR | RQ_WORK_RETRANSMIT)))
                continue; /* this ACK is lost: the timeout retransmits the block */
            if (ack_count < FW_QOS_ACKS) {
                uint32_t at = (ack_head + ack_count) % FW_QOS_ACKS;
                fw_qos_acks[at].due = blk.cycle + 40u;
                fw_qos_acks[at].r.tid = blk.aux;
                fw_qos_acks[at].r.seq = RQ_WORK_SEQ(blk.flags);
                fw_qos_acks[at].r.ack = 1;
                ack_count++;
            }
        }
        /* the AXI status reads above clear DONE (read-to-clear): count completions instead */
        done = (uint32_t)rq_qos_get_stats(&fw_qos)->done;
    }
    FW_CHECK(out, done == FW_QOS_XFERS);
    FW_CHECK(out, rq_qos_get_stats(&fw_qos)->retransmits > 0); /* the lost ACKs were recovered */
    fw_fold(&out->digest, rq_qos_get_stats(&fw_qos)->blocks ^ (rq_qos_get_stats(&fw_qos)->timeouts << 32));
}

/* ---------------- Palos (rnicq.h) ---------------- */
/* 8 QPs in 2 groups (weights 3 and 1; QP weights 1 .. 4), QPs 6 and 7 in the latency class;
 * each QP posts 5 of its 8 WQEs at once and the rest at cycle 3,000; the output port is popped
 * every third cycle, so launches wait on it. The latency-class WQEs above priority_max_msg
 * (4 KB) complete as ERROR records (RNIC_ERANGE, documented). Done when every WQE's LAST
 * record is out; every byte is accounted for once. */
#define FW_PALOS_QPS 8u
#define FW_PALOS_GROUPS 2u
#define FW_PALOS_SLOTS 16u
#define FW_PALOS_PORT 2u
#define FW_PALOS_LAUNCH 16u
static rq_palos fw_palos;
static uint64_t fw_palos_mem[RQ_PALOS_MEM_SIZE(FW_PALOS_QPS, FW_PALOS_GROUPS, FW_PALOS_SLOTS, FW_PALOS_PORT,
                                               FW_PALOS_LAUNCH) /
                             8u];

void fw_run_palos(fw_result *out)
{
    rq_palos_config cfg;
    rnic_work w;
    uint32_t f, lasts = 0, cyc;
    uint64_t bytes = 0;
    int carried = 1;
    fw_begin(out);
    fw_src_fill(2500u);
    rq_palos_config_default(&cfg);
    cfg.weights.max_flows = FW_PALOS_QPS;
    cfg.weights.max_groups = FW_PALOS_GROUPS;
    cfg.weights.mtu = 1024;
    cfg.fetch_slots = FW_PALOS_SLOTS;
    cfg.piece_depth = FW_PALOS_PORT;
    cfg.launch_wqes = FW_PALOS_LAUNCH;
    cfg.source = fw_src_read;
    cfg.trace = FW_DIGEST_HOOK;
    cfg.trace_user = &out->digest;
    FW_CHECK(out, sizeof fw_palos_mem == rq_palos_mem_size(&cfg));
    if (rq_palos_init(&fw_palos, &cfg, fw_palos_mem, sizeof fw_palos_mem) != RNIC_OK) {
        out->ok = 0;
        return;
    }
    FW_CHECK(out, rq_palos_create_group(&fw_palos, 0, 3) == RNIC_OK);
    FW_CHECK(out, rq_palos_create_group(&fw_palos, 1, 1) == RNIC_OK);
    for (f = 0; f < FW_PALOS_QPS; f++) {
        rq_palos_flow_config fc;
        rq_palos_flow_config_default(&fc);
        fc.group = f & 1u;
        fc.weight = 1u + (f & 3u);
        fc.cls = f >= 6u ? RQ_PALOS_LATENCY : RQ_PALOS_BANDWIDTH;
        FW_CHECK(out, rq_palos_flow_open(&fw_palos, f, &fc) == RNIC_OK);
        FW_CHECK(out, rq_palos_doorbell(&fw_palos, f, 5) == RNIC_OK);
    }
    FW_CHECK(out, rq_palos_doorbell(&fw_palos, FW_PALOS_QPS, 1) != RNIC_OK); /* unknown QP: refused */
    for (cyc = 0; cyc < 200000u && lasts < FW_PALOS_QPS * FW_SRC_WQES; cyc++) {
        if (cyc == 3000u)
            for (f = 0; f < FW_PALOS_QPS; f++)
                (void)rq_palos_doorbell(&fw_palos, f, FW_SRC_WQES);
        rq_palos_tick(&fw_palos);
        out->cycles++;
        if (cyc % 3u)
            continue;
        while (rq_palos_pop_piece(&fw_palos, &w) == RNIC_OK) {
            fw_fold_work(out, &w);
            bytes += fw_src_accounted(&w);
            carried &= fw_src_carried(&w);
            if (w.flags & RNIC_WORK_LAST)
                lasts++;
        }
    }
    FW_CHECK(out, lasts == FW_PALOS_QPS * FW_SRC_WQES);
    /* every byte cut once, or its WQE completed as one ERROR record: the latency-class QPs'
       WQEs above priority_max_msg (4 KB) are refused with RNIC_ERANGE, as palos_api.h documents */
    FW_CHECK(out, bytes == fw_src_bytes() && carried);
    FW_CHECK(out, rq_palos_get_stats(&fw_palos)->errors.by_cause[RNIC_ERANGE] > 0);
    fw_fold(&out->digest, rq_palos_now(&fw_palos) ^ rq_palos_backlog(&fw_palos));
}

/* ---------------- transport.h: sender + receiver over a bottleneck ---------------- */
/* A one-way link: records leave one per `gap` cycles (a bottleneck queue), arrive `delay`
 * cycles after leaving; above `mark` queued records a data record is CE-marked, above `cap` it
 * is dropped (tail drop). Delivery times only grow, so a ring in arrival order suffices. */
#define FW_LINK_SLOTS 512u
typedef struct fw_link {
    uint64_t at[FW_LINK_SLOTS];
    rnic_work w[FW_LINK_SLOTS];
    uint32_t head, count;
    uint64_t last_depart;
    uint32_t gap, delay, mark, cap;
    uint64_t drops, marks;
} fw_link;

static void fw_link_init(fw_link *l, uint32_t gap, uint32_t delay, uint32_t mark, uint32_t cap)
{
    l->head = l->count = 0;
    l->last_depart = 0;
    l->gap = gap;
    l->delay = delay;
    l->mark = mark;
    l->cap = cap;
    l->drops = l->marks = 0;
}

static void fw_link_send(fw_link *l, uint64_t now, const rnic_work *w, uint32_t op)
{
    uint64_t depart = (l->last_depart > now ? l->last_depart : now) + l->gap;
    uint64_t queued = (depart - now) / l->gap;
    uint32_t at;
    if (queued > l->cap || l->count == FW_LINK_SLOTS) {
        l->drops++;
        return;
    }
    l->last_depart = depart;
    at = (l->head + l->count) % FW_LINK_SLOTS;
    l->at[at] = depart + l->delay;
    l->w[at] = *w;
    if (op)
        l->w[at].op = op;
    if (l->mark && queued > l->mark) {
        l->w[at].flags |= TP_WORK_ECN;
        l->marks++;
    }
    l->count++;
}

/* The record due at `now`, if any (it stays until fw_link_taken). */
static const rnic_work *fw_link_due(const fw_link *l, uint64_t now)
{
    return l->count && l->at[l->head] <= now ? &l->w[l->head] : NULL;
}

static void fw_link_taken(fw_link *l)
{
    l->head = (l->head + 1u) % FW_LINK_SLOTS;
    l->count--;
}

#define FW_TP_FLOWS 4u
#define FW_TP_WINDOW 128u
#define FW_TP_RING 4u
#define FW_TP_MSGS 8u
#define FW_TP_MSGS_PER_FLOW 6u
static tp fw_tp;
static tp_rx fw_tp_rx;
/* sized for the larger context of the two protocols run (DCQCN's 40 B against NewReno's) */
#define FW_TP_CTX (sizeof(tp_dcqcn_ctx) > sizeof(tp_tcp_ctx) ? sizeof(tp_dcqcn_ctx) : sizeof(tp_tcp_ctx))
static uint64_t fw_tp_mem[TP_MEM_SIZE(FW_TP_FLOWS, FW_TP_WINDOW, FW_TP_RING, FW_TP_MSGS, 64, 16, 64, FW_TP_CTX) / 8u];
static uint64_t fw_tp_rx_mem[TP_RX_MEM_SIZE(FW_TP_FLOWS, FW_TP_WINDOW, 64, 64, 64, 4, TP_RX_CNP_IMMEDIATE, 0) / 8u];
static fw_link fw_data_link, fw_ack_link;

/* 4 flows, 6 messages each (3 .. 40 KB, 1,000-byte segments) through a 50 % link (a segment
 * per 16 cycles at 100 MHz) with 200 cycles of delay each way; ACKs come back on a fast link.
 * rate: DCQCN with the receiver as a RoCEv2 responder (go-back-N, CNPs at most one per 4 us);
 * otherwise NewReno with SACK and delayed ACKs. Done when every message has completed. */
static void fw_run_tp(fw_result *out, int rate)
{
    tp_config cfg;
    tp_rx_config rc;
    tp_flow_config fp;
    rnic_work w;
    const rnic_work *d;
    uint32_t f, m, cyc, completions = 0;
    uint64_t pushed = 0, delivered = 0, completed = 0;
    tp_dcqcn_config dp;
    static tp_protocol dcqcn;
    fw_begin(out);
    tp_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    cfg.max_flows = FW_TP_FLOWS;
    cfg.window = FW_TP_WINDOW;
    cfg.ring = FW_TP_RING;
    cfg.message_depth = FW_TP_MSGS;
    cfg.trace = FW_DIGEST_HOOK;
    cfg.trace_user = &out->digest;
    if (rate) {
        /* the paper's preset with its 55 us timers shortened to 10 us, so that rate increases
           happen inside this short run */
        tp_dcqcn_preset(&dp, TP_DCQCN_PAPER);
        dp.alpha_period_ns = 10000;
        dp.rate_period_ns = 10000;
        dcqcn = *tp_protocol_dcqcn();
        dcqcn.config = &dp;
        cfg.protocol = &dcqcn;
    } else {
        cfg.protocol = tp_protocol_newreno();
    }
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = FW_TP_FLOWS;
    rc.window = FW_TP_WINDOW;
    rc.trace = FW_DIGEST_HOOK;
    rc.trace_user = &out->digest;
    if (rate) {
        rc.go_back_n = true;
        rc.sack = false;
        rc.delack_count = 1;
        rc.ack_first = true;
        rc.cnp_interval_ns = 4000u;
        rc.cnp_mode = TP_RX_CNP_IMMEDIATE;
    } else {
        rc.delack_count = 2;
        rc.delack_ns = 20000u;
        rc.cnp_interval_ns = 4000u; /* no marks on this run's link: the CNP timers exist, unused */
    }
    FW_CHECK(out, sizeof fw_tp_mem >= tp_mem_size(&cfg));
    FW_CHECK(out, sizeof fw_tp_rx_mem == tp_rx_mem_size(&rc));
    if (tp_init(&fw_tp, &cfg, fw_tp_mem, sizeof fw_tp_mem) != RNIC_OK ||
        tp_rx_init(&fw_tp_rx, &rc, fw_tp_rx_mem, sizeof fw_tp_rx_mem) != RNIC_OK) {
        out->ok = 0;
        return;
    }
    tp_flow_config_default(&fp);
    fp.seg_size = 1000;
    fp.rto_ns = 40000u; /* 4,000 cycles at 100 MHz */
    if (rate)
        fp.init_wnd = FW_TP_WINDOW;
    for (f = 0; f < FW_TP_FLOWS; f++) {
        FW_CHECK(out, tp_flow_open(&fw_tp, f, &fp) == RNIC_OK);
        FW_CHECK(out, tp_rx_flow_open(&fw_tp_rx, f, NULL) == RNIC_OK);
        for (m = 0; m < FW_TP_MSGS_PER_FLOW; m++) {
            RNIC_MEMSET(&w, 0, sizeof w);
            w.flow = f;
            w.len = 3000u + (f * 5u + m * 11u) % 38u * 1000u + 17u * m;
            w.addr = ((uint64_t)(f + 1u) << 32) + (uint64_t)m * 0x100000u;
            w.raddr = 0x7000000000ull + ((uint64_t)f << 28) + (uint64_t)m * 0x100000u;
            w.tag = ((uint64_t)f << 32) | m;
            w.op = 0x11u;
            FW_CHECK(out, tp_push_message(&fw_tp, &w) == RNIC_OK);
            pushed += w.len;
        }
    }
    FW_CHECK(out, tp_push_message(&fw_tp, NULL) == RNIC_EINVAL); /* refused, counted */
    fw_link_init(&fw_data_link, 16, 200, rate ? 8u : 0u, 64);
    fw_link_init(&fw_ack_link, 1, 200, 0, FW_LINK_SLOTS);
    for (cyc = 0; cyc < 400000u && completions < FW_TP_FLOWS * FW_TP_MSGS_PER_FLOW; cyc++) {
        uint64_t now = tp_now(&fw_tp);
        while ((d = fw_link_due(&fw_data_link, now)) != NULL && tp_rx_space_segment(&fw_tp_rx)) {
            (void)tp_rx_push_segment(&fw_tp_rx, d);
            fw_link_taken(&fw_data_link);
        }
        while ((d = fw_link_due(&fw_ack_link, now)) != NULL && tp_space_incoming(&fw_tp)) {
            (void)tp_push_incoming(&fw_tp, d);
            fw_link_taken(&fw_ack_link);
        }
        tp_tick(&fw_tp);
        tp_rx_tick(&fw_tp_rx);
        out->cycles += 2u;
        while (tp_pop_segment(&fw_tp, &w) == RNIC_OK) {
            fw_fold_work(out, &w);
            fw_link_send(&fw_data_link, now, &w, TP_PKT_DATA);
        }
        while (tp_pop_completion(&fw_tp, &w) == RNIC_OK) {
            fw_fold_work(out, &w);
            completed += w.len;
            completions++;
        }
        while (tp_rx_pop_ack(&fw_tp_rx, &w) == RNIC_OK) {
            fw_fold_work(out, &w);
            fw_link_send(&fw_ack_link, now, &w, 0);
        }
        while (tp_rx_pop_delivered(&fw_tp_rx, &w) == RNIC_OK) {
            fw_fold_work(out, &w);
            delivered += w.len;
        }
    }
    FW_CHECK(out, completions == FW_TP_FLOWS * FW_TP_MSGS_PER_FLOW);
    /* every byte pushed was placed exactly once at the receiver and completed at the sender */
    FW_CHECK(out, delivered == pushed && completed == pushed);
    FW_CHECK(out, fw_data_link.drops > 0);                      /* the bottleneck overflowed ... */
    FW_CHECK(out, tp_get_stats(&fw_tp)->segments_rtx > 0);       /* ... and the losses were resent */
    if (rate)
        FW_CHECK(out, tp_rx_get_stats(&fw_tp_rx)->cnps > 0 && fw_data_link.marks > 0);
    fw_fold(&out->digest, fw_data_link.drops ^ (fw_data_link.marks << 20) ^ (tp_now(&fw_tp) << 40));
}

void fw_run_tp_newreno(fw_result *out) { fw_run_tp(out, 0); }
void fw_run_tp_dcqcn(fw_result *out) { fw_run_tp(out, 1); }

/* ---------------- hostcc.h: the three engines in a closed loop ---------------- */
/* A receiving host (hcc_host) takes 1 KB packets every 16 cycles (~128 Gb/s at 250 MHz, none
 * in cycles 4,000 .. 6,499) against 3x CPU memory traffic; the receiver controller (hcc_rx)
 * samples its IIO occupancy every 125 cycles and its actions are written back into the host;
 * the sender controller (hcc_tx) is told of every packet delivered and its probes are answered
 * with the host's delay. Pass 0: MBA levels, PFC on (the sender holds while paused), DDIO off;
 * pass 1: hostCC ECN, PFC off (marks and drops), a small DDIO. Then fast-forward to quiet. */
#define FW_HCC_RX_PACKETS 64u
#define FW_HCC_RX_PORT 8u
#define FW_HCC_SIG_PORT 4u
#define FW_HCC_IIO 64u
#define FW_HCC_MEMQ 64u
#define FW_HCC_DDIO 256u
static hcc_host fw_hcc_host;
static hcc_rx fw_hcc_rx;
static hcc_tx fw_hcc_tx;
static uint64_t fw_hcc_host_mem[HCC_HOST_MEM_SIZE(FW_HCC_RX_PACKETS, FW_HCC_RX_PORT, FW_HCC_SIG_PORT, FW_HCC_IIO,
                                                  FW_HCC_MEMQ, FW_HCC_DDIO) /
                                8u];
static uint64_t fw_hcc_rx_mem[HCC_RX_MEM_SIZE(4, 4) / 8u];
static uint64_t fw_hcc_tx_mem[HCC_TX_MEM_SIZE(4, 8, 8) / 8u];

void fw_run_hostcc(fw_result *out)
{
    uint32_t pass;
    uint64_t packets = 0, downs = 0;
    fw_begin(out);
    for (pass = 0; pass < 2u; pass++) {
        hcc_host *h = &fw_hcc_host;
        hcc_rx *c = &fw_hcc_rx;
        hcc_tx *t = &fw_hcc_tx;
        hcc_host_config hc;
        hcc_rx_config rc;
        hcc_tx_config tc;
        hcc_rx_sample smp;
        rnic_work w;
        uint32_t cyc, i, f, last_delay = 0;
        hcc_host_config_default(&hc);
        hc.rx_buffer_bytes = 32768u;
        hc.rx_packets = FW_HCC_RX_PACKETS;
        hc.xoff_bytes = 24576u;
        hc.xon_bytes = 16384u;
        hc.cnp_bytes = 8192u;
        hc.pfc = pass == 0u;
        hc.pcie_latency_ns = 40u;
        hc.iio_lines = FW_HCC_IIO;
        hc.iio_mem_credits = 8u;
        hc.mem_queue = FW_HCC_MEMQ;
        hc.cpu_outstanding = 40u;
        hc.ddio_lines = pass == 0u ? 0u : FW_HCC_DDIO;
        hc.cpu_load_bps = 8u * 30300000000ull; /* 3x: 30.3 GB/s */
        hc.rx_depth = FW_HCC_RX_PORT;
        hc.signal_depth = FW_HCC_SIG_PORT;
        hc.trace = FW_DIGEST_HOOK;
        hc.trace_user = &out->digest;
        hcc_rx_config_default(&rc);
        rc.sample_period_ns = 500u;
        rc.i_thr = 8u;
        rc.i_low = 2u;
        rc.up_samples = 2u;
        rc.slack_ns = 2000u;
        rc.mode = pass == 0u ? HCC_RX_MODE_MBA : HCC_RX_MODE_ECN;
        rc.sample_depth = 4u;
        rc.action_depth = 4u;
        rc.trace = FW_DIGEST_HOOK;
        rc.trace_user = &out->digest;
        hcc_tx_config_default(&tc);
        tc.max_flows = 4u;
        tc.probe_bytes = 4096u;
        tc.rate_depth = 8u;
        tc.probe_depth = 8u;
        tc.trace = FW_DIGEST_HOOK;
        tc.trace_user = &out->digest;
        /* pass 0 has no DDIO: the buffer sized for pass 1 is larger than it needs */
        FW_CHECK(out, sizeof fw_hcc_host_mem >= hcc_host_mem_size(&hc));
        FW_CHECK(out, pass == 0u || sizeof fw_hcc_host_mem == hcc_host_mem_size(&hc));
        FW_CHECK(out, sizeof fw_hcc_rx_mem == hcc_rx_mem_size(&rc));
        FW_CHECK(out, sizeof fw_hcc_tx_mem == hcc_tx_mem_size(&tc));
        if (hcc_host_init(h, &hc, fw_hcc_host_mem, sizeof fw_hcc_host_mem) != RNIC_OK ||
            hcc_rx_init(c, &rc, fw_hcc_rx_mem, sizeof fw_hcc_rx_mem) != RNIC_OK ||
            hcc_tx_init(t, &tc, fw_hcc_tx_mem, sizeof fw_hcc_tx_mem) != RNIC_OK) {
            out->ok = 0;
            return;
        }
        for (f = 0; f < 4u; f++)
            FW_CHECK(out, hcc_tx_flow_open(t, f, NULL) == RNIC_OK); /* at link_bps, 100 Gb/s */
        FW_CHECK(out, hcc_host_push_rx(h, NULL) == RNIC_EINVAL); /* refused, counted */
        for (cyc = 0; cyc < 8000u; cyc++) {
            if ((cyc & 15u) == 0 && (cyc < 4000u || cyc >= 6500u) && !hcc_host_paused(h)) {
                RNIC_MEMSET(&w, 0, sizeof w);
                w.flow = (cyc >> 4) & 3u;
                w.len = 1024u;
                w.addr = 0x100000u + (uint64_t)((cyc >> 4) & 1023u) * 1024u;
                w.tag = cyc;
                fw_fold(&out->digest, (uint64_t)(uint32_t)hcc_host_push_rx(h, &w));
            }
            if (cyc % 125u == 0) {
                smp.cycle = hcc_host_now(h);
                smp.cum = hcc_host_iio_occupancy_cum(h);
                fw_fold(&out->digest, (uint64_t)(uint32_t)hcc_rx_push_sample(c, &smp));
            }
            if (cyc % 1000u == 500u)
                (void)hcc_tx_set_rcc(t, (cyc / 1000u) & 3u, 10000000000ull * (1u + cyc / 1000u));
            hcc_host_tick(h);
            hcc_rx_tick(c);
            hcc_tx_tick(t);
            out->cycles += 3u;
            while (hcc_host_pop_rx(h, &w) == RNIC_OK) {
                fw_fold_work(out, &w);
                last_delay = w.aux;
                (void)hcc_tx_push_sent(t, &w);
            }
            while (hcc_host_pop_signal(h, &w) == RNIC_OK)
                fw_fold_work(out, &w);
            while (hcc_rx_pop_action(c, &w) == RNIC_OK) {
                fw_fold_work(out, &w);
                if (w.flags & HCC_RX_WORK_MBA)
                    (void)hcc_host_set_mba_level(h, w.aux);
                else
                    (void)hcc_host_set_ecn(h, (w.flags & HCC_WORK_CE) != 0);
            }
            while (hcc_tx_pop_probe(t, &w) == RNIC_OK) {
                rnic_work ack = w;
                fw_fold_work(out, &w);
                ack.addr = (uint64_t)cyc * 4u; /* ns at 250 MHz */
                ack.raddr = ack.addr + 60u + (uint64_t)(last_delay < 200000u ? last_delay : 200000u) * 4u;
                fw_fold(&out->digest, (uint64_t)(uint32_t)hcc_tx_push_probe_ack(t, &ack));
            }
            while (hcc_tx_pop_rate(t, &w) == RNIC_OK)
                fw_fold_work(out, &w);
        }
        /* the load goes: fast-forward to quiescence, draining whenever a port fills */
        (void)hcc_host_set_cpu_load(h, 0);
        for (i = 0; i < 64u; i++) {
            fw_fold(&out->digest, hcc_host_next_event(h) ^ hcc_rx_next_event(c) ^ hcc_tx_next_event(t));
            fw_fold(&out->digest, hcc_host_advance(h, 20000u));
            (void)hcc_rx_advance_to(c, hcc_host_now(h));
            (void)hcc_tx_advance_to(t, hcc_host_now(h));
            while (hcc_host_pop_rx(h, &w) == RNIC_OK || hcc_host_pop_signal(h, &w) == RNIC_OK)
                fw_fold_work(out, &w);
            while (hcc_tx_pop_probe(t, &w) == RNIC_OK || hcc_tx_pop_rate(t, &w) == RNIC_OK)
                fw_fold_work(out, &w);
        }
        packets += hcc_host_get_stats(h)->packets_out;
        downs += hcc_rx_get_stats(c)->level_downs + hcc_rx_get_stats(c)->ecn_on;
        fw_fold(&out->digest, hcc_host_get_stats(h)->bytes_to_memory_or_ddio ^ hcc_host_get_stats(h)->pause_cycles);
        fw_fold(&out->digest, hcc_tx_rate(t, 0) ^ hcc_tx_rate(t, 1) ^ hcc_tx_get_stats(t)->probe_acks);
    }
    FW_CHECK(out, packets > 0 && downs > 0); /* data went through and the controller acted */
}
