/* rnic_model -- the composed RNIC, first cut (issue 9): the landed engines wired through their
 * public APIs alone, cycle by cycle at one clock, with the network and host pieces no paper
 * describes as small contract-following modules (model_parts.h).
 *
 *   host h (h = 0 .. hosts-1): per-QP WQE rings + doorbells --PCIe (1 us)--> Palos chunk slicer
 *     (or, --sched qos, the RED-SEA QoS engine: see below)
 *     -> per-flow segment rings -> Tassel (one rate register per QP) -> DMA payload read
 *     (PCIe 128 Gb/s, 1 us) -> TX MAC + 100 Gb/s link
 *   -> one output-queued switch port (shared buffer, ECN marking, drops counted) -> 100 Gb/s link
 *   -> receiver: checks every byte of every QP (order, contiguity, message sequence) and counts.
 *
 * --sched qos: the QoS engine (rnicq.h rq_qos_, one per host, at the model's 250 MHz clock)
 * instead of Palos, Tassel still pacing each QP. The model's choices:
 *   - One flow-id space: a QP's flow id IS its QoS transfer line. Host h, tenant t, QP i (of the
 *     tenant on that host) -> protection domain d = h x tenants + t (each host's engine uses only
 *     its own domains), write channels 2i, 2i + 1 (a regular transfer's 2-line descriptor), flow =
 *     d x (write_channels + read_channels) + 2i. Tassel's max_flows and the receiver cover every
 *     line of the domains in use; the QP <-> flow map is the host's configuration. Limits: QPs per
 *     tenant per host <= write_channels / 2 = 32, hosts x tenants <= domains = 16 (refused).
 *   - Host (model_parts.h rm_qos_host): one transfer in flight per QP (the thesis's one
 *     transfer per channel). A backlogged application: when the QP's channel is free its next
 *     message is "posted" (latency starts) and its descriptor (RQ_KIND_REGULAR, src, dst = the
 *     QP's next remote bytes, size = the message) written as four 16-byte AXI beats, one per cycle
 *     per host, while the AW FIFO has room; write responses drained every cycle (an error
 *     response or a refused beat is a model error, counted in bytes_lost). Messages under 33 B
 *     are rounded up to 33 B (regular transfers only: inline packets would need a second path).
 *     Completion: every --poll-cycles (default 250 = 1 us) while transfers are in flight, one
 *     mode-1 status read (32 channels) per domain with one in flight; DONE = the message is
 *     complete at the host (latency = post -> DONE seen), the channel free again. --depth has no
 *     meaning here. Tenant weights have no meaning either: non-congestion-managed transfers all
 *     enter the TID-only scheduling queue, which has no intra-priority (prio 0 is written);
 *     tenants differ by their Tassel rates.
 *   - Blocks (rq_qos_pop_block) go into the per-flow segment rings as Palos's pieces do (ringing
 *     Tassel's doorbell); the engine stalls when a flow's ring is full. The model sets the entry's
 *     tag to TID << 48 | sequence number << 32 | the message's number on its flow (24 bits, where
 *     Palos mode keeps its per-flow sequence too) and op = RM_OP_WRITE (+ RM_OP_RETX for a
 *     retransmission); Tassel carries both to the packets untouched.
 *   - The receiver ACKs a block on the packet that ends it (Tassel's LAST on that entry), a
 *     duplicate too; the ACK (rq_response {tid, seq, ack 1}) goes back through a pipe of
 *     2 x LINK_LATENCY + 64 B at 100 Gb/s to the sending host's engine (rq_qos_push_response,
 *     waiting in the pipe while the response port is full). A retransmitted block whose bytes
 *     are all delivered already is a duplicate (counted, not lost, not corrupt); packets beyond a
 *     gap (one before them dropped at the switch) are discarded unacknowledged (go-back-N): their
 *     block times out and comes again.
 *   - Timeout: the engine's default 20 us counts from the send unit taking a block, but here the
 *     block then waits behind up to max_outstanding - 1 others in its QP's ring and is paced at
 *     the QP's rate (64 KB at 1.5 Gb/s = 350 us): with 20 us the default scenario has 778
 *     timeouts, 579 retransmissions and 134 failed transfers in 1.5 ms (share error 87 %). The
 *     model's timeout (--qos-timeout-us, 0 = automatic) is twice the time to pace
 *     max_outstanding full blocks at the slowest QP's expected rate, rounded up to 100 us
 *     (1,400 us by default): the default run has no timeout.
 *   - Fast-forward includes the engine (rq_qos_next_event / rq_qos_advance_to), the host and
 *     the ACK pipes; --tick-only gives the same digest. The engine's trace events join the
 *     digest (trace_id RNIC_ENGINE_QOS + 32 x host). The RESULT line adds blocks= acks= timeouts=
 *     retransmits= duplicates= and, in both modes, ends with sched=.
 *
 * Tenants: every host carries QPs of every tenant; tenant t is Palos group t (its weight) and
 * its QPs have one Tassel rate limit. Long-run shares follow Tassel's rule (WF2Q+ with the
 * oversubscription fallback): each backlogged QP gets rate / max(1, Phi) of its NIC, Phi =
 * (sum of the NIC's QP rates) / link; Palos's weights order the pieces fed to Tassel. The
 * expected share of a tenant is that sum over its QPs; the run reports how far it is off.
 *
 * Records move between modules only as rnic_work: a message's tag carries its post cycle and
 * per-flow sequence number, the op bits where a piece sits in its message; no side tables.
 * The model fast-forwards: when no record can move, every engine and module jumps to the
 * minimum of their next_event (identical to ticking: --tick-only proves it on the digest).
 *
 *   build/rnic_model [--hosts H] [--tenants T] [--qps N] [--weights w0,w1,..] [--rates-mbps r0,r1,..]
 *                    [--sizes MIN,MAX] [--depth D] [--duration-us U] [--warmup-us U] [--seed S]
 *                    [--csv FILE] [--pcap FILE] [--snaplen B] [--trace-csv FILE] [--vcd FILE] [--tick-only] [--quiet]
 *                    [--sched palos|qos] [--poll-cycles P] [--qos-timeout-us U]
 * Ends with: RESULT composed=1 qps=... tenants=... share_err_pct=... bytes_lost=... digest=...
 *            mcycles_per_s=... pkts_per_s=... [qos: blocks=... acks=... timeouts=... retransmits=...
 *            duplicates=...] sched=palos|qos */
#define _POSIX_C_SOURCE 200809L
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "model_parts.h"
#include "roce_pcap.h"
#include "vcd.h"

#define MAX_TENANTS 16u
#define CLOCK_HZ 250000000ull
#define LINK_BPS 100000000000ull
/* Tassel paces payload bytes, so its link is the wire's payload capacity at full-MTU packets:
 * 100 Gb/s x 4096 / (4096 + 82). Expected shares use the same figure. */
#define TASSEL_LINK_BPS (LINK_BPS * MTU / (MTU + WIRE_OVERHEAD))
#define PCIE_BPS 128000000000ull
#define PCIE_LATENCY_NS 1000u   /* 1 us */
/* the same in cycles of the model's clock, for the model's own parts (Tassel converts the ns itself) */
#define PCIE_LATENCY ((uint32_t)rnic_ns_to_cycles(PCIE_LATENCY_NS, CLOCK_HZ))
#define LINK_LATENCY 25u        /* 100 ns: PHY + a few metres of fibre */
#define WIRE_OVERHEAD 82u       /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20 */
#define MTU 4096u
#define STAGE_DEPTH 1024u      /* per-flow segment ring entries: deep enough that the slicer never waits on one flow */
#define STAGE_DEPTH_QOS 16u     /* qos: a flow holds max_outstanding blocks and their retransmissions */

typedef struct options {
    uint32_t hosts, tenants, qps; /* qps: per tenant per host */
    uint32_t weight[MAX_TENANTS];
    uint64_t rate_bps[MAX_TENANTS];
    uint32_t min_msg, max_msg, depth;
    uint64_t duration_us, warmup_us, seed;
    const char *csv, *pcap, *trace_csv, *vcd;
    uint32_t snaplen;
    int tick_only, quiet;
    int sched_qos;                /* --sched qos: the QoS engine instead of Palos */
    uint32_t poll_cycles;         /* qos: status polling period */
    uint64_t qos_timeout_us;      /* qos: retransmission timeout; 0 = the model's automatic choice */
} options;

typedef struct nic {
    rm_host host;              /* palos mode */
    rq_palos palos;
    void *palos_mem;
    rm_qos_host qh;            /* qos mode: the host core, the engine, the ACKs coming back */
    rq_qos qos;
    void *qos_mem;
    rm_pipe ack;
    rl tassel;
    void *rl_mem;
    rm_stage stage;
    rm_pipe dma, mac;
    uint64_t sum_rate_bps;
} nic;

typedef struct model {
    options o;
    uint32_t nflows;       /* flow-id space: QPs (palos), Transfer Table lines in use (qos) */
    uint32_t nqps;
    uint32_t lines_per_domain; /* qos: write + read channels per domain */
    nic *nics;
    rm_switch sw;
    rm_receiver rx;
    uint64_t now;
    uint64_t digest;
    rnic_trace trace;      /* the model's own modules' events */
    FILE *trace_csv;
    FILE *csv;            /* --csv: per-QP results, written after the run */
    rm_vcd vcd;           /* --vcd: chosen ports as a waveform */
    char vcd_names[RM_VCD_MAX_PORTS][32];
    roce_pcap pcap;
    int pcap_on;
    uint32_t *psn;         /* per flow, for the pcap's BTH */
    uint64_t sent_pkts, piece_errors, order_errors;
    uint64_t acks_sent, ack_errors; /* qos mode */
} model;

/* Flow ids: palos mode numbers the QPs host by host, tenant by tenant; qos mode's flow id is
 * the QP's Transfer Table line, domain d = host x tenants + tenant, channel 2 x (QP in tenant). */
static uint32_t tenant_of(const model *m, uint32_t flow)
{
    if (m->o.sched_qos)
        return (flow / m->lines_per_domain) % m->o.tenants;
    return (flow % (m->o.tenants * m->o.qps)) / m->o.qps;
}
static uint32_t host_of(const model *m, uint32_t flow)
{
    if (m->o.sched_qos)
        return flow / m->lines_per_domain / m->o.tenants;
    return flow / (m->o.tenants * m->o.qps);
}
/* Flow of QP number i (host by host, tenant by tenant, QP by QP). */
static uint32_t qp_flow(const model *m, uint32_t i)
{
    uint32_t per_host = m->o.tenants * m->o.qps, local = i % per_host;
    if (!m->o.sched_qos)
        return i;
    return ((i / per_host) * m->o.tenants + local / m->o.qps) * m->lines_per_domain + 2u * (local % m->o.qps);
}

/* Every engine's and module's trace events go here: one digest, optionally a CSV. */
static void on_trace(void *user, const rnic_trace_event *ev)
{
    model *m = (model *)user;
    m->digest = rnic_trace_digest_fold(m->digest, ev);
    if (m->vcd.f)
        rm_vcd_event(&m->vcd, ev);
    if (m->trace_csv)
        fprintf(m->trace_csv, "%llu,%u,%u,%u,%llu,%llu\n", (unsigned long long)ev->cycle, ev->engine, ev->kind, ev->id,
                (unsigned long long)ev->a, (unsigned long long)ev->b);
}

static void ring_palos(void *ctx, uint32_t flow, uint32_t tail)
{
    nic *n = (nic *)ctx;
    rnic_err e = rq_palos_doorbell(&n->palos, flow, tail);
    if (e != RNIC_OK) {
        fprintf(stderr, "rnic_model: doorbell refused: %s\n", rnic_strerror(e));
        exit(1);
    }
}

static void die(const char *what, rnic_err e)
{
    fprintf(stderr, "rnic_model: %s: %s\n", what, rnic_strerror(e));
    exit(1);
}

/* qos mode: the retransmission timeout (us). The engine's default, 20 us (§2), counts from the
 * send unit taking a block; here the block then waits in its QP's segment ring behind up to
 * max_outstanding - 1 others and is paced at the QP's rate (a 64 KB block at 1.5 Gb/s takes
 * 350 us), so 20 us would retransmit nearly every block. The model's choice: twice the time
 * Tassel needs to send max_outstanding full blocks at the slowest QP's expected rate, rounded up
 * to 100 us, at least 20 us (--qos-timeout-us overrides). */
static uint64_t qos_timeout_us(const model *m, const rq_qos_config *qc)
{
    const options *o = &m->o;
    uint64_t sum = 0, slowest = UINT64_MAX, us;
    uint32_t t;
    double r_eff;
    if (o->qos_timeout_us)
        return o->qos_timeout_us;
    for (t = 0; t < o->tenants; t++) {
        sum += o->rate_bps[t] * o->qps;
        if (o->rate_bps[t] < slowest)
            slowest = o->rate_bps[t];
    }
    r_eff = (double)slowest * (double)LINK_BPS / (double)(sum > LINK_BPS ? sum : LINK_BPS);
    us = (uint64_t)(2.0 * qc->max_outstanding * qc->block_bytes * 8.0 / r_eff * 1e6) / 100u * 100u + 100u;
    return us < 20u ? 20u : us;
}

/* qos mode: the QoS engine of host h (domains h x tenants .. + tenants - 1 are its own), its
 * host core, and the reverse path the receiver's ACKs take back to it. */
static void nic_init_qos(model *m, nic *n, uint32_t h)
{
    const options *o = &m->o;
    rq_qos_config qc;
    const char *field = NULL;
    size_t size;
    rnic_err e;

    rq_qos_config_default(&qc);
    qc.clock_hz = CLOCK_HZ; /* the model's single clock */
    qc.timeout_ns = qos_timeout_us(m, &qc) * 1000u;
    qc.trace = on_trace;
    qc.trace_user = m;
    qc.trace_id = (uint16_t)(RNIC_ENGINE_QOS + 32u * h);
    if ((e = rq_qos_config_check(&qc, &field)) != RNIC_OK) {
        fprintf(stderr, "rnic_model: QoS engine config: %s: %s\n", field ? field : "?", rnic_strerror(e));
        exit(1);
    }
    size = rq_qos_mem_size(&qc);
    n->qos_mem = malloc(size);
    if (!n->qos_mem || (e = rq_qos_init(&n->qos, &qc, n->qos_mem, size)) != RNIC_OK)
        die("rq_qos_init", n->qos_mem ? e : RNIC_ENOSPC);
    if (rm_qos_host_init(&n->qh, &n->qos, h * o->tenants, o->tenants, o->qps, m->lines_per_domain, o->min_msg,
                         o->max_msg, o->poll_cycles, o->seed + h) ||
        /* ACKs back: switch + link, 2 x (LINK_LATENCY + serialising a 64 B ACK at 100 Gb/s) */
        rm_pipe_init(&n->ack, 4096u, LINK_BPS, CLOCK_HZ, 0, 2u * LINK_LATENCY + 2u)) {
        fprintf(stderr, "rnic_model: out of memory\n");
        exit(1);
    }
}

static void nic_init(model *m, nic *n, uint32_t h)
{
    const options *o = &m->o;
    uint32_t per_host = o->tenants * o->qps, first = h * per_host, t, i;
    rq_palos_config pc;
    rl_config rc;
    size_t size;
    rnic_err e;

    if (o->sched_qos) {
        nic_init_qos(m, n, h);
        if (rm_stage_init(&n->stage, m->nflows, STAGE_DEPTH_QOS) ||
            rm_pipe_init(&n->dma, 64u, PCIE_BPS, CLOCK_HZ, 0, PCIE_LATENCY) ||
            rm_pipe_init(&n->mac, 4u, LINK_BPS, CLOCK_HZ, WIRE_OVERHEAD, LINK_LATENCY)) {
            fprintf(stderr, "rnic_model: out of memory\n");
            exit(1);
        }
    } else if (rm_host_init(&n->host, first, per_host, o->depth * 2u, o->depth, o->min_msg, o->max_msg, PCIE_LATENCY,
                     o->seed + h) ||
        rm_stage_init(&n->stage, m->nflows, STAGE_DEPTH) ||
        rm_pipe_init(&n->dma, 64u, PCIE_BPS, CLOCK_HZ, 0, PCIE_LATENCY) ||
        rm_pipe_init(&n->mac, 4u, LINK_BPS, CLOCK_HZ, WIRE_OVERHEAD, LINK_LATENCY)) {
        fprintf(stderr, "rnic_model: out of memory\n");
        exit(1);
    }

    if (!o->sched_qos) {
        rq_palos_config_default(&pc);
        pc.weights.max_qps = m->nflows;
        pc.weights.max_groups = o->tenants;
        pc.weights.mtu = MTU;
        pc.clock_hz = CLOCK_HZ;
        pc.cut_align = MTU; /* pieces of whole MTU segments for the pacer behind it */
        pc.source = rm_host_source;
        pc.source_user = &n->host;
        pc.trace = on_trace;
        pc.trace_user = m;
        pc.trace_id = (uint16_t)(RNIC_ENGINE_PALOS + 32u * h);
        size = rq_palos_mem_size(&pc);
        if (!size)
            die("palos config", RNIC_EINVAL);
        n->palos_mem = malloc(size);
        if ((e = rq_palos_init(&n->palos, &pc, n->palos_mem, size)) != RNIC_OK)
            die("rq_palos_init", e);
        for (t = 0; t < o->tenants; t++)
            if ((e = rq_palos_create_group(&n->palos, t, o->weight[t])) != RNIC_OK)
                die("rq_palos_create_group", e);
    }

    rl_config_default(&rc);
    rc.clock_hz = CLOCK_HZ;
    rc.link_bps = TASSEL_LINK_BPS;
    rc.max_flows = m->nflows;
    rc.mtu = MTU;
    rc.pcie_latency_ns = PCIE_LATENCY_NS; /* here: the read of the per-flow segment ring (DESIGN) */
    rc.source = rm_stage_source;
    rc.source_user = &n->stage;
    rc.trace = on_trace;
    rc.trace_user = m;
    rc.trace_id = (uint16_t)(RNIC_ENGINE_TASSEL + 32u * h);
    size = rl_mem_size(&rc);
    if (!size)
        die("tassel config", RNIC_EINVAL);
    n->rl_mem = malloc(size);
    if ((e = rl_init(&n->tassel, &rc, n->rl_mem, size)) != RNIC_OK)
        die("rl_init", e);

    n->sum_rate_bps = 0;
    for (t = 0; t < o->tenants; t++)
        for (i = 0; i < o->qps; i++) {
            uint32_t flow = qp_flow(m, first + t * o->qps + i);
            if (!o->sched_qos && (e = rq_palos_set_qp(&n->palos, flow, t, 1, RQ_PALOS_BANDWIDTH)) != RNIC_OK)
                die("rq_palos_set_qp", e);
            if ((e = rl_set_rate(&n->tassel, flow, o->rate_bps[t])) != RNIC_OK)
                die("rl_set_rate", e);
            n->sum_rate_bps += o->rate_bps[t];
        }
}

static void nic_free(nic *n)
{
    rm_qos_host_free(&n->qh);
    rm_pipe_free(&n->ack);
    free(n->qos_mem);
    rm_host_free(&n->host);
    rm_stage_free(&n->stage);
    rm_pipe_free(&n->dma);
    rm_pipe_free(&n->mac);
    free(n->palos_mem);
    free(n->rl_mem);
}

/* BTH opcode of a packet of an RDMA WRITE message, from where it sits in the message. */
static uint8_t write_opcode(const rnic_work *w)
{
    int first = (w->op & RM_OP_MSG_FIRST) && (w->flags & RNIC_WORK_FIRST);
    int last = (w->op & RM_OP_MSG_LAST) && (w->flags & RNIC_WORK_LAST);
    return first && last ? ROCE_OP_WRITE_ONLY : first ? ROCE_OP_WRITE_FIRST : last ? ROCE_OP_WRITE_LAST : ROCE_OP_WRITE_MIDDLE;
}

static void pcap_packet(model *m, const rnic_work *w)
{
    roce_frame_spec f;
    uint32_t h = host_of(m, w->flow);
    memset(&f, 0, sizeof f);
    f.src_ip = 0x0a000001u + h;   /* 10.0.0.(h+1) -> 10.0.1.1 */
    f.dst_ip = 0x0a000101u;
    f.src_mac[0] = 0x02;
    f.src_mac[5] = (uint8_t)(h + 1u);
    f.dst_mac[0] = 0x02;
    f.dst_mac[5] = 0xfe;
    f.ecn = (uint8_t)(w->aux & 3u);
    f.udp_sport = (uint16_t)(0xc000u | (w->flow & 0x3fffu));
    f.opcode = write_opcode(w);
    f.dest_qp = 0x100u + w->flow;
    f.psn = m->psn[w->flow] & 0xffffffu;
    f.ack_req = (w->op & RM_OP_MSG_LAST) && (w->flags & RNIC_WORK_LAST);
    f.reth_va = w->raddr;
    f.reth_rkey = 0x1000u + w->flow;
    f.reth_len = w->len; /* the packet's length: the message's DMA length on WRITE Only; on WRITE First the
                            record does not carry the message length, so the RETH under-states it */
    f.payload_len = w->len;
    f.payload_seed = w->tag;
    f.payload_offset = w->raddr; /* content depends on the byte's place only */
    m->psn[w->flow]++;
    if (roce_pcap_write(&m->pcap, rnic_cycles_to_ns(m->now, CLOCK_HZ), &f) != 0) {
        fprintf(stderr, "rnic_model: pcap write failed\n");
        m->pcap_on = 0;
    }
}

/* qos mode: a status poll saw the QP's channel DONE (ok) or ERROR: the message is complete at
 * the host; its latency (post -> DONE seen) goes to the report. */
static void on_qos_done(void *ctx, uint32_t flow, uint64_t latency, int ok)
{
    model *m = (model *)ctx;
    if (ok && m->now >= m->rx.window_start && m->now < m->rx.window_end)
        rm_receiver_note_latency(&m->rx, flow, latency);
}

/* qos mode: the receiver acknowledges a block on the packet that ends it (Tassel's LAST on the
 * segment-ring entry made from the block), duplicates too; the ACK travels back to the engine
 * of the host the flow belongs to. */
static void qos_ack(model *m, const rnic_work *w)
{
    rnic_work a;
    uint32_t h = host_of(m, w->flow);
    memset(&a, 0, sizeof a);
    a.flow = w->flow;
    a.aux = RM_QOS_TAG_TID(w->tag);
    a.op = RM_QOS_TAG_SEQ(w->tag);
    a.len = 64; /* the ACK's bytes on the wire */
    if (h >= m->o.hosts || rm_pipe_push(&m->nics[h].ack, &a) != RNIC_OK)
        m->ack_errors++;
    m->acks_sent++;
}

/* qos mode: blocks from the QoS engine into the per-flow segment rings (as Palos's pieces),
 * the tag and op set for the receiver: TID, sequence number and the message's number on the
 * flow (the transfer's number on its channel) in the tag; where the block sits in its message
 * and whether it is a retransmission in op. */
static void qos_blocks_to_stage(model *m, nic *n)
{
    rnic_work w;
    rq_packet pk;
    while (rq_qos_peek_block(&n->qos, &w) == RNIC_OK) {
        if (w.flow >= m->nflows) {
            rq_qos_pop_block(&n->qos, &w);
            m->piece_errors++;
            continue;
        }
        if (rm_stage_space(&n->stage, w.flow) == 0)
            break; /* the flow's segment ring is full: the transaction port fills, the engine stalls */
        rq_qos_pop_block(&n->qos, &w);
        w.tag = RM_QOS_TAG(w.aux, w.op, w.index);
        w.op = RM_OP_WRITE | ((w.flags & RQ_WORK_RETRANSMIT) ? RM_OP_RETX : 0u);
        rm_stage_push(&n->stage, &w);
        rl_doorbell(&n->tassel, w.flow);
    }
    while (rq_qos_pop_packet(&n->qos, &pk) == RNIC_OK)
        m->piece_errors++; /* no inline transfers and no notifications are posted: none expected */
}

/* Move every record that can move at cycle m->now, downstream first: the switch egress into
 * the receiver, the MACs into the switch, the DMA pipes into the MACs, Tassel into the DMA
 * pipes, Palos into the segment rings (ringing Tassel's doorbell), the hosts into Palos. */
static void transfer(model *m)
{
    rnic_work w;
    uint32_t h;
    while (rm_pipe_pop(&m->sw.egress, &w) == RNIC_OK) {
        int verdict;
        m->rx.now = m->now;
        verdict = rm_receiver_take(&m->rx, &w, &m->trace);
        if (m->o.sched_qos && (w.flags & RNIC_WORK_LAST) && (verdict == RM_RX_OK || verdict == RM_RX_DUPLICATE))
            qos_ack(m, &w);
    }
    for (h = 0; h < m->o.hosts; h++) {
        nic *n = &m->nics[h];
        if (m->o.sched_qos)
            while (rq_qos_space_response(&n->qos) && rm_pipe_pop(&n->ack, &w) == RNIC_OK) {
                rq_response r;
                r.tid = w.aux;
                r.seq = w.op;
                r.ack = 1;
                if (rq_qos_push_response(&n->qos, &r) != RNIC_OK)
                    m->ack_errors++;
            }
        while (rm_pipe_pop(&n->mac, &w) == RNIC_OK)
            rm_switch_push(&m->sw, &w, &m->trace);
        while (rm_pipe_space(&n->mac) && rm_pipe_pop(&n->dma, &w) == RNIC_OK) {
            if (m->pcap_on)
                pcap_packet(m, &w);
            rm_pipe_push(&n->mac, &w);
        }
        while (rm_pipe_space(&n->dma) && rl_pop_tx(&n->tassel, &w) == RNIC_OK) {
            if ((w.flags & RNIC_WORK_LAST) && rm_stage_consumed(&n->stage, w.flow, w.index) != 0)
                m->order_errors++;
            if (!m->o.sched_qos && (w.flags & RNIC_WORK_LAST) && (w.op & RM_OP_MSG_LAST))
                rm_host_completed(&n->host, w.flow);
            if (w.flags & RNIC_WORK_ERROR) {
                m->piece_errors++;
                continue;
            }
            w.aux = RM_ECN_ECT0;
            m->sent_pkts++;
            rm_pipe_push(&n->dma, &w);
        }
        if (m->o.sched_qos) {
            qos_blocks_to_stage(m, n);
            rm_qos_host_step(&n->qh, on_qos_done, m, &m->trace);
            continue;
        }
        while (rq_palos_peek(&n->palos, &w) == RNIC_OK) {
            if (!(w.flags & RNIC_WORK_ERROR) && rm_stage_space(&n->stage, w.flow) == 0)
                break; /* the flow's segment ring is full: Palos waits (its output port fills) */
            rq_palos_pop(&n->palos, &w);
            if (w.flags & RNIC_WORK_LAST)
                if (rm_host_consumed(&n->host, w.flow, w.index) != 0)
                    m->order_errors++;
            if (w.flags & RNIC_WORK_ERROR) {
                m->piece_errors++;
                continue;
            }
            rm_stage_push(&n->stage, &w);
            rl_doorbell(&n->tassel, w.flow);
        }
        rm_host_step(&n->host, ring_palos, n, &m->trace);
    }
}

/* Something can move right now (a record is waiting and its consumer has room). */
static int can_move(model *m)
{
    rnic_work w;
    uint32_t h;
    if (rm_pipe_next_event(&m->sw.egress) <= m->now)
        return 1;
    for (h = 0; h < m->o.hosts; h++) {
        nic *n = &m->nics[h];
        if (rm_pipe_next_event(&n->mac) <= m->now)
            return 1;
        if (rm_pipe_space(&n->mac) && rm_pipe_next_event(&n->dma) <= m->now)
            return 1;
        if (rm_pipe_space(&n->dma) && rl_peek_tx(&n->tassel, &w) == RNIC_OK)
            return 1;
        if (m->o.sched_qos) {
            rq_packet pk;
            if (rq_qos_space_response(&n->qos) && rm_pipe_next_event(&n->ack) <= m->now)
                return 1;
            if (rq_qos_peek_block(&n->qos, &w) == RNIC_OK && (w.flow >= m->nflows || rm_stage_space(&n->stage, w.flow)))
                return 1;
            if (rq_qos_peek_packet(&n->qos, &pk) == RNIC_OK || rm_qos_host_next_event(&n->qh) <= m->now)
                return 1;
            continue;
        }
        if (rq_palos_peek(&n->palos, &w) == RNIC_OK && rm_stage_space(&n->stage, w.flow))
            return 1;
        if (rm_host_next_event(&n->host) <= m->now)
            return 1;
    }
    return 0;
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The earliest cycle anything happens without a transfer: min over every next_event. */
static uint64_t next_event(model *m)
{
    uint64_t next = rm_pipe_next_event(&m->sw.egress);
    uint32_t h;
    for (h = 0; h < m->o.hosts; h++) {
        nic *n = &m->nics[h];
        next = min64(next, rm_pipe_next_event(&n->mac));
        next = min64(next, rm_pipe_next_event(&n->dma));
        next = min64(next, rl_next_event(&n->tassel));
        if (m->o.sched_qos) {
            next = min64(next, rm_pipe_next_event(&n->ack));
            next = min64(next, rq_qos_next_event(&n->qos));
            next = min64(next, rm_qos_host_next_event(&n->qh));
            continue;
        }
        next = min64(next, rq_palos_next_event(&n->palos));
        next = min64(next, rm_host_next_event(&n->host));
    }
    return next;
}

static void set_now(model *m, uint64_t cycle)
{
    uint32_t h;
    m->now = cycle;
    rm_pipe_advance_to(&m->sw.egress, cycle);
    m->rx.now = cycle;
    for (h = 0; h < m->o.hosts; h++) {
        m->nics[h].host.now = cycle;
        m->nics[h].qh.now = cycle;
        rm_pipe_advance_to(&m->nics[h].ack, cycle);
        rm_pipe_advance_to(&m->nics[h].dma, cycle);
        rm_pipe_advance_to(&m->nics[h].mac, cycle);
    }
}

/* Run until cycle `end` (or, draining, until nothing is left to do). One iteration: move what
 * can move, then tick the engines one cycle -- or, when nothing can move and no engine has
 * work this cycle, jump every engine and module to the next event. */
/* Returns 1 when, draining, nothing was left anywhere before `end`. */
static int run_until(model *m, uint64_t end, int draining, uint64_t progress_total, double t0)
{
    uint64_t last_report = m->now;
    int tty = !m->o.quiet && isatty(2);
    while (m->now < end) {
        uint64_t next, target;
        uint32_t h;
        transfer(m);
        next = can_move(m) ? m->now : next_event(m);
        if (next == RNIC_NEVER && draining)
            return 1; /* nothing left anywhere: drained */
        if (m->o.tick_only)
            next = m->now;
        target = next <= m->now ? m->now + 1u : min64(next, end);
        for (h = 0; h < m->o.hosts; h++) {
            nic *n = &m->nics[h];
            /* an engine stops early only when its output port fills: then the others wait */
            uint64_t sched_now;
            if (m->o.sched_qos) {
                while (rq_qos_now(&n->qos) < target)
                    if (rq_qos_advance_to(&n->qos, target) == 0)
                        break;
                sched_now = rq_qos_now(&n->qos);
            } else {
                while (rq_palos_now(&n->palos) < target)
                    if (rq_palos_advance_to(&n->palos, target) == 0)
                        break;
                sched_now = rq_palos_now(&n->palos);
            }
            while (rl_now(&n->tassel) < target)
                if (rl_advance_to(&n->tassel, target) == 0)
                    break;
            if (sched_now != target || rl_now(&n->tassel) != target) {
                /* an output filled mid-jump: continue from the earliest engine's cycle */
                fprintf(stderr, "rnic_model: engine stopped early at %llu (target %llu)\n",
                        (unsigned long long)min64(sched_now, rl_now(&n->tassel)), (unsigned long long)target);
                exit(1);
            }
        }
        set_now(m, target);
        if (tty && m->now - last_report >= progress_total / 50u + 1u) {
            double el = (double)(clock()) / CLOCKS_PER_SEC - t0;
            last_report = m->now;
            fprintf(stderr, "\r[rnic_model] %s %5.1f ms simulated, %6.2f s host, %llu packets   ",
                    draining ? "draining" : "running ", (double)m->now / (double)CLOCK_HZ * 1e3, el,
                    (unsigned long long)m->rx.packets);
        }
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, size_t n, double p)
{
    size_t i;
    if (!n)
        return 0;
    i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return (double)v[i];
}

/* A whole decimal (or 0x hex) number in [lo, hi]; anything else is refused with a message. */
static uint64_t parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (!*s || *s == '-' || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "rnic_model: %s %s: expected a whole number in [%llu, %llu]\n", opt, s, (unsigned long long)lo,
                (unsigned long long)hi);
        exit(2);
    }
    return v;
}

/* A comma-separated list of 1 .. max numbers in [lo, hi]; returns how many. */
static uint32_t parse_list(const char *opt, const char *s, uint64_t *out, uint32_t max, uint64_t lo, uint64_t hi)
{
    char item[64];
    uint32_t n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (n == max || len == 0 || len >= sizeof item) {
            fprintf(stderr, "rnic_model: %s: expected 1 .. %u comma-separated numbers\n", opt, max);
            exit(2);
        }
        memcpy(item, s, len);
        item[len] = 0;
        out[n++] = parse_u64(opt, item, lo, hi);
        s += len;
        if (*s == ',' && !*++s) {
            fprintf(stderr, "rnic_model: %s: trailing comma\n", opt);
            exit(2);
        }
    }
    return n;
}

static void usage(int code)
{
    fprintf(stderr, "usage: rnic_model [--hosts H] [--tenants T] [--qps N] [--weights w,..] [--rates-mbps r,..]\n"
                    "       [--sizes MIN,MAX] [--depth D] [--duration-us U] [--warmup-us U] [--seed S]\n"
                    "       [--csv FILE] [--pcap FILE] [--snaplen B] [--trace-csv FILE] [--vcd FILE] [--tick-only] [--quiet]\n"
                    "       [--sched palos|qos] [--poll-cycles P] [--qos-timeout-us U]\n");
    exit(code);
}

int main(int argc, char **argv)
{
    model m;
    options *o = &m.o;
    uint64_t tmp[MAX_TENANTS], end, window_cycles, total_posted = 0;
    double t0, host_s;
    uint32_t h, t, i;
    int k;
    uint32_t nparsed, weights_given = 0, rates_given = 0;
    int drained;

    memset(&m, 0, sizeof m);
    o->hosts = 2;
    o->tenants = 2;
    o->qps = 12;
    for (t = 0; t < MAX_TENANTS; t++) { /* tenant 0: weight 2 at 2 Gb/s; the others weight 1 at 1.5 Gb/s */
        o->weight[t] = t == 0 ? 2u : 1u;
        o->rate_bps[t] = t == 0 ? 2000000000ull : 1500000000ull;
    }
    o->min_msg = 64;
    o->max_msg = 262144;
    o->depth = 8;
    o->duration_us = 10000;
    o->warmup_us = 1000;
    o->seed = 1;
    o->snaplen = 128;
    o->poll_cycles = 250; /* qos: 1 us */
    for (k = 1; k < argc; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--tick-only")) { o->tick_only = 1; continue; }
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage(0);
        if (!v)
            usage(2);
        k++;
        if (!strcmp(a, "--hosts")) o->hosts = (uint32_t)parse_u64(a, v, 1, 16);
        else if (!strcmp(a, "--tenants")) o->tenants = (uint32_t)parse_u64(a, v, 1, MAX_TENANTS);
        else if (!strcmp(a, "--qps")) o->qps = (uint32_t)parse_u64(a, v, 1, 1024);
        else if (!strcmp(a, "--weights")) { /* one per tenant; the last one repeats */
            nparsed = parse_list(a, v, tmp, MAX_TENANTS, 1, 65535);
            for (t = 0; t < MAX_TENANTS; t++)
                o->weight[t] = (uint32_t)tmp[t < nparsed ? t : nparsed - 1u];
            weights_given = nparsed;
        } else if (!strcmp(a, "--rates-mbps")) { /* 0.1 Mb/s .. 800 Gb/s: whole Mb/s from 1 */
            nparsed = parse_list(a, v, tmp, MAX_TENANTS, 1, 800000);
            for (t = 0; t < MAX_TENANTS; t++)
                o->rate_bps[t] = tmp[t < nparsed ? t : nparsed - 1u] * 1000000ull;
            rates_given = nparsed;
        } else if (!strcmp(a, "--sizes")) {
            if (parse_list(a, v, tmp, 2, 1, 1u << 30) != 2 || tmp[1] < tmp[0]) {
                fprintf(stderr, "rnic_model: --sizes MIN,MAX with 1 <= MIN <= MAX <= 2^30\n");
                exit(2);
            }
            o->min_msg = (uint32_t)tmp[0];
            o->max_msg = (uint32_t)tmp[1];
        } else if (!strcmp(a, "--depth")) o->depth = (uint32_t)parse_u64(a, v, 1, 4096);
        else if (!strcmp(a, "--duration-us")) o->duration_us = parse_u64(a, v, 2, 1000000000ull); /* up to 1,000 s */
        else if (!strcmp(a, "--warmup-us")) o->warmup_us = parse_u64(a, v, 0, 1000000000ull);
        else if (!strcmp(a, "--seed")) o->seed = parse_u64(a, v, 0, UINT64_MAX);
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--pcap")) o->pcap = v;
        else if (!strcmp(a, "--snaplen")) o->snaplen = (uint32_t)parse_u64(a, v, 64, 65535);
        else if (!strcmp(a, "--trace-csv")) o->trace_csv = v;
        else if (!strcmp(a, "--vcd")) o->vcd = v;
        else if (!strcmp(a, "--sched")) {
            if (!strcmp(v, "qos")) o->sched_qos = 1;
            else if (!strcmp(v, "palos")) o->sched_qos = 0;
            else usage(2);
        } else if (!strcmp(a, "--poll-cycles")) o->poll_cycles = (uint32_t)parse_u64(a, v, 1, 1000000000ull);
        else if (!strcmp(a, "--qos-timeout-us")) o->qos_timeout_us = parse_u64(a, v, 0, 1000000000ull);
        else usage(2);
    }
    if (o->warmup_us >= o->duration_us) {
        fprintf(stderr, "rnic_model: --warmup-us must be shorter than --duration-us\n");
        exit(2);
    }
    for (t = 0; t < o->tenants; t++)
        if (o->rate_bps[t] > TASSEL_LINK_BPS) { /* what Tassel's rate register would do: clamp to its link */
            fprintf(stderr, "rnic_model: tenant %u's rate %.3f Gb/s is above Tassel's link (%.3f Gb/s): clamped to it\n", t,
                    (double)o->rate_bps[t] / 1e9, (double)TASSEL_LINK_BPS / 1e9);
            o->rate_bps[t] = TASSEL_LINK_BPS;
        }
    if (weights_given > o->tenants || rates_given > o->tenants) {
        fprintf(stderr, "rnic_model: %u tenants but %u weights and %u rates given\n", o->tenants, weights_given,
                rates_given);
        exit(2);
    }

    m.nqps = o->hosts * o->tenants * o->qps;
    m.nflows = m.nqps;
    if (o->sched_qos) {
        rq_qos_config qc;
        rq_qos_config_default(&qc);
        m.lines_per_domain = qc.write_channels + qc.read_channels;
        if (o->qps > qc.write_channels / 2u || o->hosts * o->tenants > qc.domains) {
            fprintf(stderr, "rnic_model: --sched qos: QPs per tenant per host must be <= %u (a channel pair "
                            "each) and hosts x tenants <= %u (a protection domain each)\n",
                    qc.write_channels / 2u, qc.domains);
            return 2;
        }
        if (!o->poll_cycles || o->qos_timeout_us > 1000000u) {
            fprintf(stderr, "rnic_model: --poll-cycles must be positive, --qos-timeout-us at most 1 s\n");
            return 2;
        }
        m.nflows = o->hosts * o->tenants * m.lines_per_domain; /* every line of the domains in use */
    }
    m.trace.fn = on_trace;
    m.trace.user = &m;
    if (o->trace_csv && !(m.trace_csv = fopen(o->trace_csv, "w"))) {
        perror(o->trace_csv);
        return 1;
    }
    if (m.trace_csv)
        fprintf(m.trace_csv, "cycle,engine,kind,id,a,b\n");
    m.psn = (uint32_t *)calloc(m.nflows, sizeof *m.psn);
    m.nics = (nic *)calloc(o->hosts, sizeof *m.nics);
    if (!m.psn || !m.nics || rm_receiver_init(&m.rx, m.nflows) ||
        rm_pipe_init(&m.sw.egress, 65536u, LINK_BPS, CLOCK_HZ, WIRE_OVERHEAD, LINK_LATENCY)) {
        fprintf(stderr, "rnic_model: out of memory\n");
        return 1;
    }
    m.rx.latency_at_host = o->sched_qos != 0;
    m.rx.accept_duplicates = o->sched_qos != 0;
    m.sw.buffer = 4u << 20;     /* 4 MB for the port */
    m.sw.ecn_k = 100u << 10;    /* mark above 100 KB queued */
    if (o->csv && !(m.csv = fopen(o->csv, "w"))) { /* opened now: a bad path fails before the run */
        perror(o->csv);
        return 1;
    }
    if (o->pcap) {
        if (roce_pcap_open(&m.pcap, o->pcap, o->snaplen) != 0) {
            perror(o->pcap);
            return 1;
        }
        m.pcap_on = 1;
    }
    for (h = 0; h < o->hosts; h++)
        nic_init(&m, &m.nics[h], h);
    if (o->vcd) { /* ports: each host's scheduler output and Tassel's TX, posts, drops, arrivals */
        rm_vcd_port ports[RM_VCD_MAX_PORTS];
        uint32_t np = 0;
        for (h = 0; h < o->hosts; h++) {
            snprintf(m.vcd_names[np], sizeof m.vcd_names[np], "host%u_%s_out", h, o->sched_qos ? "qos" : "palos");
            ports[np].engine = (uint16_t)((o->sched_qos ? RNIC_ENGINE_QOS : RNIC_ENGINE_PALOS) + 32u * h);
            ports[np].kind = RNIC_TRACE_OUT;
            ports[np].name = m.vcd_names[np];
            np++;
            snprintf(m.vcd_names[np], sizeof m.vcd_names[np], "host%u_tassel_tx", h);
            ports[np].engine = (uint16_t)(RNIC_ENGINE_TASSEL + 32u * h);
            ports[np].kind = RNIC_TRACE_OUT;
            ports[np].name = m.vcd_names[np];
            np++;
        }
        ports[np].engine = (uint16_t)RNIC_ENGINE_MODEL, ports[np].kind = 1, ports[np].name = "host_post", np++;
        ports[np].engine = (uint16_t)(RNIC_ENGINE_MODEL + 1u), ports[np].kind = 2, ports[np].name = "switch_drop", np++;
        ports[np].engine = (uint16_t)(RNIC_ENGINE_MODEL + 2u), ports[np].kind = 3, ports[np].name = "receiver_packet", np++;
        if (rm_vcd_open(&m.vcd, o->vcd, ports, np, CLOCK_HZ) != 0) {
            perror(o->vcd);
            return 1;
        }
    }

    end = rnic_ns_to_cycles(o->duration_us * 1000u, CLOCK_HZ);
    m.rx.window_start = rnic_ns_to_cycles(o->warmup_us * 1000u, CLOCK_HZ);
    m.rx.window_end = end;
    window_cycles = m.rx.window_end - m.rx.window_start;

    if (!o->quiet) {
        printf("rnic_model: %u hosts x %u tenants x %u QPs = %u QPs; %u MHz clock, %llu Gb/s links, "
               "PCIe %llu Gb/s / %u ns; %s\n",
               o->hosts, o->tenants, o->qps, m.nqps, (unsigned)(CLOCK_HZ / 1000000u),
               (unsigned long long)(LINK_BPS / 1000000000u), (unsigned long long)(PCIE_BPS / 1000000000u),
               (unsigned)PCIE_LATENCY_NS, o->tick_only ? "ticking every cycle" : "fast-forward");
        if (o->sched_qos)
            printf("  per host: QoS engine (a domain per tenant, a channel pair per QP, %u KB blocks, status polled "
                   "every %u cycles) -> Tassel -> DMA -> MAC; ACKs back over the switch; messages %u B .. %u B, one "
                   "transfer in flight per QP; %llu us (%llu us warm-up)\n",
                   65536u >> 10, o->poll_cycles, o->min_msg, o->max_msg, (unsigned long long)o->duration_us,
                   (unsigned long long)o->warmup_us);
        else
            printf("  per host: Palos chunk slicer (groups = tenants, cut at %u B) -> Tassel -> DMA -> MAC; "
                   "messages %u B .. %u B, %u posted per QP; %llu us (%llu us warm-up)\n",
                   MTU, o->min_msg, o->max_msg, o->depth, (unsigned long long)o->duration_us,
                   (unsigned long long)o->warmup_us);
        for (t = 0; t < o->tenants; t++)
            printf("  tenant %u: %s weight %u, Tassel rate %.3f Gb/s per QP\n", t,
                   o->sched_qos ? "(unused) Palos" : "Palos", o->weight[t], (double)o->rate_bps[t] / 1e9);
        fflush(stdout);
    }

    t0 = (double)clock() / CLOCKS_PER_SEC;
    run_until(&m, end, 0, end, t0);
    for (h = 0; h < o->hosts; h++) {
        m.nics[h].host.posting = false;
        m.nics[h].qh.posting = false;
    }
    drained = run_until(&m, end + rnic_ns_to_cycles(100000000u, CLOCK_HZ), 1, end, t0); /* drain: at most 100 ms */
    host_s = (double)clock() / CLOCKS_PER_SEC - t0;
    if (!o->quiet && isatty(2))
        fprintf(stderr, "\r%90s\r", "");

    /* ---------------- report ---------------- */
    {
        double tenant_got[MAX_TENANTS] = { 0 }, tenant_exp[MAX_TENANTS] = { 0 }, tenant_msgs[MAX_TENANTS] = { 0 };
        double worst_share = 0, win_s = (double)window_cycles / (double)CLOCK_HZ;
        uint64_t received = 0, qos_errors = m.ack_errors, qos_failed = 0;
        FILE *csv = m.csv;
        uint64_t *lat = (uint64_t *)malloc((m.rx.nlat + 1u) * sizeof *lat);
        if (csv)
            fprintf(csv, "qp,host,tenant,weight,rate_gbps,expected_gbps,gbps,err_pct,msgs_per_s,bytes_posted,bytes_received,"
                         "latency_p50_us,latency_p99_us,segment_ring_max\n");
        /* per-QP latency percentiles: the window's latencies sorted by (flow, latency) */
        for (i = 0; i < m.rx.nlat; i++)
            lat[i] = ((uint64_t)m.rx.lat_flow[i] << 40) | (m.rx.lat[i] < (1ull << 40) ? m.rx.lat[i] : (1ull << 40) - 1u);
        qsort(lat, m.rx.nlat, sizeof *lat, cmp_u64);
        for (i = 0; i < m.nqps; i++) {
            uint32_t f = qp_flow(&m, i);
            nic *n = &m.nics[host_of(&m, f)];
            uint64_t posted = o->sched_qos ? n->qh.qp[i % (o->tenants * o->qps)].posted_bytes
                                           : n->host.gen[f - n->host.first_flow].posted_bytes;
            uint32_t tn = tenant_of(&m, f);
            double phi = (double)n->sum_rate_bps / (double)TASSEL_LINK_BPS;
            double exp_gbps = (double)o->rate_bps[tn] / (phi > 1 ? phi : 1) / 1e9;
            double got = (double)m.rx.f[f].window_bytes * 8 / win_s / 1e9;
            tenant_got[tn] += got;
            tenant_exp[tn] += exp_gbps;
            tenant_msgs[tn] += (double)m.rx.f[f].window_msgs / win_s;
            total_posted += posted;
            received += m.rx.f[f].bytes;
            if (csv) {
                size_t lo = 0, hi, count = m.rx.nlat;
                while (count) { /* first latency of flow f: binary search on the sorted keys */
                    size_t half = count / 2u;
                    if ((lat[lo + half] >> 40) < f) {
                        lo += half + 1u;
                        count -= half + 1u;
                    } else
                        count = half;
                }
                for (hi = lo; hi < m.rx.nlat && (lat[hi] >> 40) == f; hi++)
                    ;
                fprintf(csv, "%u,%u,%u,%u,%.6f,%.6f,%.6f,%.4f,%.1f,%llu,%llu,%.3f,%.3f,%u\n", i, host_of(&m, f), tn,
                        o->weight[tn], (double)o->rate_bps[tn] / 1e9, exp_gbps, got, (got - exp_gbps) / exp_gbps * 100,
                        (double)m.rx.f[f].window_msgs / win_s, (unsigned long long)posted,
                        (unsigned long long)m.rx.f[f].bytes,
                        hi > lo ? (double)(lat[lo + (size_t)(0.50 * (double)(hi - lo - 1u) + 0.5)] & ((1ull << 40) - 1u)) / (double)CLOCK_HZ * 1e6 : 0.0,
                        hi > lo ? (double)(lat[lo + (size_t)(0.99 * (double)(hi - lo - 1u) + 0.5)] & ((1ull << 40) - 1u)) / (double)CLOCK_HZ * 1e6 : 0.0,
                        n->stage.flow_high_water[f]);
            }
        }
        if (csv)
            fclose(csv);
        for (h = 0; h < o->hosts && o->sched_qos; h++) {
            qos_errors += m.nics[h].qh.model_errors + m.nics[h].qh.transfer_errors;
            qos_failed += m.nics[h].qh.transfer_errors;
        }
        if (!o->quiet) {
            printf("\n  tenant  weight  QPs  expected Gb/s  measured Gb/s   err %%   msgs/s      latency p50 / p99 / p99.9 (us)\n");
        }
        for (t = 0; t < o->tenants; t++) {
            size_t nl = 0, j;
            double e = (tenant_got[t] - tenant_exp[t]) / tenant_exp[t] * 100;
            for (j = 0; j < m.rx.nlat; j++)
                if (tenant_of(&m, m.rx.lat_flow[j]) == t)
                    lat[nl++] = m.rx.lat[j];
            qsort(lat, nl, sizeof *lat, cmp_u64);
            if ((e < 0 ? -e : e) > worst_share)
                worst_share = e < 0 ? -e : e;
            if (!o->quiet)
                printf("  %6u  %6u  %3u  %13.3f  %13.3f  %+6.3f  %9.0f   %8.2f / %8.2f / %8.2f\n", t, o->weight[t],
                       o->qps * o->hosts, tenant_exp[t], tenant_got[t], e, tenant_msgs[t],
                       pct(lat, nl, 50) / (double)CLOCK_HZ * 1e6, pct(lat, nl, 99) / (double)CLOCK_HZ * 1e6,
                       pct(lat, nl, 99.9) / (double)CLOCK_HZ * 1e6);
        }
        free(lat);
        if (!o->quiet) {
            printf("\n  queues: switch max %llu B (ECN-marked %llu, dropped %llu); segment rings max %u of %u per QP\n",
                   (unsigned long long)m.sw.max_queue_bytes, (unsigned long long)m.sw.marked,
                   (unsigned long long)m.sw.dropped, m.nics[0].stage.high_water,
                   o->sched_qos ? STAGE_DEPTH_QOS : STAGE_DEPTH);
            for (h = 0; h < o->hosts && o->sched_qos; h++) {
                const rq_qos_stats *qs = rq_qos_get_stats(&m.nics[h].qos);
                const rl_stats *rs = rl_get_stats(&m.nics[h].tassel);
                const rm_qos_host *qh = &m.nics[h].qh;
                printf("  host %u: %llu descriptors (%llu beats), %llu polls (%llu status reads); QoS engine %llu "
                       "transfers done, %llu failed, %llu blocks, %llu ACKs, %llu timeouts, %llu retransmits, %llu "
                       "responses dropped (timeout %llu us); Tassel %llu packets, %llu TX stalls; DMA max %u, MAC "
                       "max %u in flight\n",
                       h, (unsigned long long)qh->msgs_posted, (unsigned long long)qh->beats,
                       (unsigned long long)qh->polls, (unsigned long long)qh->status_reads,
                       (unsigned long long)qs->done, (unsigned long long)qs->failed, (unsigned long long)qs->blocks,
                       (unsigned long long)qs->acks, (unsigned long long)qs->timeouts,
                       (unsigned long long)qs->retransmits, (unsigned long long)qs->responses_dropped,
                       (unsigned long long)(rq_qos_timeout_cycles(&m.nics[h].qos) * 1000000u / CLOCK_HZ),
                       (unsigned long long)rs->packets, (unsigned long long)rs->tx_stalls, m.nics[h].dma.high_water,
                       m.nics[h].mac.high_water);
            }
            for (h = 0; h < o->hosts && !o->sched_qos; h++) {
                const rq_palos_stats *ps = rq_palos_get_stats(&m.nics[h].palos);
                const rl_stats *rs = rl_get_stats(&m.nics[h].tassel);
                printf("  host %u: Palos %llu visits, %llu pieces, %llu cut WQEs, %llu output stalls; Tassel %llu "
                       "packets, %llu fetches, %llu TX stalls; DMA max %u, MAC max %u in flight\n",
                       h, (unsigned long long)ps->visits, (unsigned long long)ps->out_wqes,
                       (unsigned long long)ps->cut_wqes, (unsigned long long)ps->out_stalls,
                       (unsigned long long)rs->packets, (unsigned long long)rs->fetches,
                       (unsigned long long)rs->tx_stalls, m.nics[h].dma.high_water, m.nics[h].mac.high_water);
            }
            printf("  checked at the receiver: %llu packets, %llu B of %llu B posted; %llu out of order or "
                   "corrupt; %llu CE-marked\n",
                   (unsigned long long)m.rx.packets, (unsigned long long)received, (unsigned long long)total_posted,
                   (unsigned long long)m.rx.bad, (unsigned long long)m.rx.ce);
            if (o->sched_qos)
                printf("  qos: %llu retransmitted packets arrived as duplicates (%llu B, not counted twice); %llu "
                       "discarded beyond a gap (a packet before them dropped); %llu ACKs sent; %llu transfers ended in ERROR; "
                       "%llu model errors\n",
                       (unsigned long long)m.rx.duplicates, (unsigned long long)m.rx.duplicate_bytes,
                       (unsigned long long)m.rx.beyond_gap, (unsigned long long)m.acks_sent,
                       (unsigned long long)qos_failed, (unsigned long long)(qos_errors - qos_failed));
            {
                double offered = 0;
                for (t = 0; t < o->tenants; t++)
                    offered += tenant_exp[t];
                if (offered * 1e9 > (double)TASSEL_LINK_BPS)
                    printf("  warning: the tenants' expected %.3f Gb/s exceed the switch port's payload capacity "
                           "(%.3f Gb/s): the expected shares, which ignore the switch, cannot all be met\n",
                           offered, (double)TASSEL_LINK_BPS / 1e9);
            }
            if (!drained)
                printf("  warning: the drain stopped 100 ms after the run with %llu B still queued in the model: "
                       "bytes_lost counts them (RESULT drained=0)\n",
                       (unsigned long long)(total_posted - received));
            printf("  simulated %.3f ms (%llu cycles) in %.2f s host time\n", (double)m.now / (double)CLOCK_HZ * 1e3,
                   (unsigned long long)m.now, host_s);
            if (o->pcap)
                printf("  pcap: %s (%llu frames, snaplen %u)\n", o->pcap, (unsigned long long)m.sent_pkts, o->snaplen);
        }
        if (m.pcap_on)
            roce_pcap_close(&m.pcap);
        if (m.trace_csv)
            fclose(m.trace_csv);
        if (m.vcd.f) {
            if (!o->quiet)
                printf("  vcd: %s (%llu events on %u ports; %llu out of time order not shown)\n", o->vcd,
                       (unsigned long long)m.vcd.events, m.vcd.nports, (unsigned long long)m.vcd.late);
            rm_vcd_close(&m.vcd);
        }
        printf("RESULT composed=1 qps=%u tenants=%u share_err_pct=%.3f bytes_lost=%llu digest=%016llx "
               "mcycles_per_s=%.2f pkts_per_s=%.0f",
               m.nqps, o->tenants, worst_share,
               (unsigned long long)(total_posted - received + m.rx.bad + m.order_errors + m.piece_errors + qos_errors),
               (unsigned long long)m.digest, (double)m.now / host_s / 1e6, (double)m.rx.packets / host_s);
        if (o->sched_qos) {
            uint64_t blocks = 0, retx = 0, tmo = 0, acks = 0;
            for (h = 0; h < o->hosts; h++) {
                const rq_qos_stats *qs = rq_qos_get_stats(&m.nics[h].qos);
                blocks += qs->blocks;
                retx += qs->retransmits;
                tmo += qs->timeouts;
                acks += qs->acks;
            }
            printf(" blocks=%llu acks=%llu timeouts=%llu retransmits=%llu duplicates=%llu", (unsigned long long)blocks,
                   (unsigned long long)acks, (unsigned long long)tmo, (unsigned long long)retx,
                   (unsigned long long)m.rx.duplicates);
        }
        printf(" drained=%d sched=%s\n", drained, o->sched_qos ? "qos" : "palos");
    }
    for (h = 0; h < o->hosts; h++)
        nic_free(&m.nics[h]);
    rm_pipe_free(&m.sw.egress);
    rm_receiver_free(&m.rx);
    free(m.psn);
    free(m.nics);
    return 0;
}
