/* rnic_model -- the composed RNIC: the landed engines wired through their public APIs alone,
 * cycle by cycle at one clock, with the network and host pieces no paper describes as small
 * contract-following modules (model_parts.h, net.h).
 *
 *   sender host h (h = 0 .. hosts-1): per-QP WQE rings + doorbells --PCIe (1 us)--> Palos chunk
 *     slicer (or, --sched qos, the RED-SEA QoS engine: see below) -> transport.h (Tonic: RoCEv2
 *     go-back-N + DCQCN, one flow per QP) -> the credit engine's per-flow segment rings, read by
 *     Tassel in external-pacer mode (one rate register per QP, written by DCQCN) -> DMA payload
 *     read (PCIe 128 Gb/s, 1 us) -> TX MAC + 100 Gb/s link (net.h)
 *   -> one output-queued switch (net.h: shared buffer, ECN marking, optional random loss)
 *   -> 100 Gb/s link -> the receiving host's data path (hostcc.h hcc_host, --host on, the default:
 *     RNIC RX buffer with PFC XOFF/XON toward the switch or, --pfc off, CE marks -> PCIe posted
 *     writes on credits -> IIO -> memory controller shared with CPU traffic (--cpu-load 0..3, the
 *     paper's 0x..3x) under MBA, DDIO) -> receiver host: transport.h's receiver (RoCEv2 responder: in-sequence
 *     delivery, per-packet ACKs, a NAK per sequence error, the DCQCN notification point sending
 *     CNPs) -> the checker (every byte of every QP: order, contiguity, message sequence)
 *   receiver -> ACK / NAK / CNP -> its 100 Gb/s link -> switch -> the sender's link -> the
 *     sender's transport engine (incoming) -> DCQCN -> Tassel's rate register.
 *
 * RHCC (hostcc.h, --rhcc off|rx|tx|both|ecn, default both): the receiver controller (hcc_rx)
 * reads the host's cumulative IIO occupancy every 2 us and writes the host's MBA level (ecn:
 * hostCC-style CE marking instead); the sender controller (hcc_tx, one per sender host) asks a
 * probe per 32 KB sent, the probe (a 64 B packet of the RNIC's own) crosses the network and the
 * host's RX buffer, and its ACK carries the receive (head of the RX buffer; --probe-ts arrival:
 * buffer entry) and ACK timestamps back to Eq. 1; DCQCN's rate is R_cc, and Eq. 2's
 * R_trans = min(R_rev, R_cc) (hcc_tx_rate, in the sender's rate records) is what the one rate
 * callback writes into Tassel's register.
 *
 * The default scenario is a 2:1 incast at 100 Gb/s: two sender hosts, one receiver, each host
 * carrying an incast tenant (large messages) and a background tenant (small messages); both
 * senders can fill their links, the receiver's link is the bottleneck, DCQCN shares it.
 *
 * Records move between modules only as rnic_work; a message's tag carries its post cycle and
 * per-flow sequence number, the op bits where a piece sits in its message. The transport engine
 * gets each slicer piece as a message and cuts it into --payload segments; a segment id is the
 * packet's PSN. Tassel reads the segment rings through tp_pacer_source, its MTU is the segment
 * size (one packet per ring entry), and the model tells the transport each sent entry
 * (tp_push_consumed) as Tonic's "segment transmitted" event. A message (WQE) completes when the
 * transport reports every segment of its last piece acknowledged; the host then posts another.
 *
 * --sched qos: the QoS engine (rnicq.h rq_qos_, one per host, at the model's 250 MHz clock)
 * instead of Palos. Its choices:
 *   - One flow-id space: a QP's flow id IS its QoS transfer line. Host h, tenant t, QP i (of the
 *     tenant on that host) -> protection domain d = h x tenants + t, write channels 2i, 2i + 1
 *     (a regular transfer's 2-line descriptor), flow = d x (write_channels + read_channels) + 2i.
 *     Limits: QPs per tenant per host <= write_channels / 2 = 32, hosts x tenants <= 16.
 *   - Host (model_parts.h rm_qos_host): one transfer in flight per QP (the thesis's one transfer
 *     per channel), descriptors as four 16-byte AXI beats, status polled every --poll-cycles;
 *     messages under 33 B are rounded up to 33 B; all tenants use the first --sizes pair.
 *   - Blocks (rq_qos_pop_block) become transport messages; the transport's completion of a
 *     block (all its segments acknowledged) is the block's ACK to the engine (rq_response {tid,
 *     seq, ack 1}). The engine's own timeout (20 us by default from the send unit's take) would
 *     fire behind pacing and congestion: the model sets it from the slowest rate a QP can be
 *     sent at, DCQCN's floor (100 Mb/s: 10.5 ms; --qos-timeout-us overrides), so it is the last
 *     resort above the reliable transport; a block resent on a timeout arrives as a duplicate
 *     (counted). A channel that reads ERROR (a block's retry limit reached) is resubmitted by
 *     the host, same message, until it reads DONE: no byte is given up (counted: resubmits=).
 *
 * Rates: DCQCN writes each QP's rate register; --rates-mbps adds a per-tenant cap, and the
 * register gets min(DCQCN, cap) -- computed in one place (set_rate_cb). Without caps (the
 * default) the expected share of a QP is its max-min fair share of the links (each sender's and
 * the receiver's payload capacity); the run reports how far each tenant is off
 * (share_err_pct) and Jain's index over the QPs.
 *
 * `make run` writes build/rnic_model.csv (per QP), build/rnic_model_queue.csv (the bottleneck
 * queue over time) and build/rnic_model.pcap.
 *
 * The model fast-forwards: when no record can move, every engine and module jumps to the
 * minimum of their next_event (identical to ticking: --tick-only proves it on the digest).
 *
 *   build/rnic_model [--hosts H] [--tenants T] [--qps N] [--weights w0,w1,..] [--rates-mbps r0,r1,..]
 *                    [--sizes MIN,MAX[,MIN,MAX..]] [--depth D] [--payload B] [--dcqcn htsim|paper|mellanox]
 *                    [--cnp-interval-us U] [--loss-ppm P] [--pfc on|off] [--duration-us U] [--warmup-us U] [--seed S]
 *                    [--csv FILE] [--queue-csv FILE] [--pcap FILE] [--snaplen B] [--trace-csv FILE]
 *                    [--vcd FILE] [--tick-only] [--quiet] [--sched palos|qos] [--poll-cycles P]
 *                    [--qos-timeout-us U] [--host on|off] [--cpu-load 0|1|2|3] [--rhcc off|rx|tx|both|ecn]
 *                    [--ddio on|off] [--rx-footprint-mb N] [--probe-ts head|arrival] [--cpu-outstanding N]
 *                    [--rhcc-slack fast-down|uniform] [--lat-samples N|all] [--progress-log]
 * --lat-samples: latencies kept for the FCT percentiles, in storage fixed at init (lat_store.h:
 * exact up to N, then a uniform sample; `all` grows with the run). --progress-log: a line
 * "progress cycle=C packets=P" on stderr 1,000 times over the run, then "progress report
 * cycle=C" when the drain is over and the report begins (tools/soak.sh reads them).
 * Ends with: RESULT composed=1 qps=... tenants=... transport=dcqcn variant=... share_err_pct=...
 *            jain=... cnps=... naks=... rtx=... ecn_marked=... drops=... pfc_pauses=... pause_us=... queue_max_kb=...
 *            fct_p50_us=... fct_p99_us=... bytes_lost=... digest=... mcycles_per_s=...
 *            pkts_per_s=... delivered_packets=... (checked at the receiver, the drain included) [qos: blocks=... timeouts=... retransmits=... duplicates=... resubmits=...]
 *            rx_gbps=... fct_mean_us=... host=0|1 [host: cpu_load_x=... rhcc=... ddio=... host_pauses=...
 *            host_pause_us=... host_drops=... host_marked=... pcie_stalled_writes=... pcie_stall_us=...
 *            ddio_miss_pct=... iio_occ_mean=... mba_level_end=... mba_steps=... probes=... r_rev_gbps=...
 *            r_cc_gbps=... host_delay_mean_ns=...] drained=... sched=palos|qos [lat_kept=... lat_seen=...
 *            when the percentiles come from a sample]
 * (the host's counters are over the measurement window, after the warm-up)
 * Exit status: 0; 3 when the run did not drain or lost bytes (the RESULT line is printed
 * first); 1 on a set-up error; 2 on a bad argument. */
#define _POSIX_C_SOURCE 200809L
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "model_parts.h"
#include "net.h"
#include "roce_pcap.h"
#include "vcd.h"
/* the fabric: `--scenario FILE` (issue 30); stb_ds (Debian libstb-dev: -lstb) holds the scenario's tables */
#include "fm_main.h"

#define MAX_TENANTS 16u
#define CLOCK_HZ 250000000ull
#define LINK_BPS 100000000000ull
#define PCIE_BPS 128000000000ull
#define PCIE_LATENCY_NS 1000u   /* 1 us */
/* the same in cycles of the model's clock, for the model's own parts (Tassel converts the ns itself) */
#define PCIE_LATENCY ((uint32_t)rnic_ns_to_cycles(PCIE_LATENCY_NS, CLOCK_HZ))
#define LINK_PROP_NS 100u       /* PHY + a few metres of fibre, per hop */
#define WIRE_OVERHEAD 82u       /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20 */
#define ACK_WIRE 86u            /* ... + AETH 4, no payload */
#define CNP_WIRE 98u            /* ... + 16 reserved bytes */
#define RING_READ_NS 40u        /* Tassel reads the transport's on-chip segment rings (not host memory) */
#define SEG_RING 64u            /* N: segment addresses per flow in the credit engine */
#define TP_WINDOW 256u          /* W: segments tracked per flow */
#define TP_MESSAGES 64u         /* slicer pieces queued per flow in the transport */
#define PALOS_CHUNK 16384u      /* Palos's chunk per QP visit (the weights' mtu with equal weights) */
#define SWITCH_BUFFER (4ull << 20)
#define QUEUE_SAMPLE_NS 10000u  /* --queue-csv: the bottleneck queue every 10 us */
/* The switch's ECN: RED at dequeue with the HPCC simulator's thresholds for 25 Gb/s (Kmin
 * 100 KB, Kmax 400 KB, Pmax 0.2) scaled to 100 Gb/s; PFC per ingress, above the marking range so
 * DCQCN acts first (docs/network_model.md has the sources). */
#define ECN_KMIN (400ull << 10)
#define ECN_KMAX (1600ull << 10)
#define ECN_PMAX_PPM 200000u
#define PFC_XOFF (1024ull << 10)
#define PFC_XON (896ull << 10)
#define PFC_QUEUE 64u           /* PAUSE frames travelling back to the senders */
/* The receiving host (hostcc.h, --host on): the paper's CPU memory traffic levels 0x .. 3x
 * (MLC, 1:1 read/write, §2.2), bytes per second. */
static const uint64_t cpu_load_Bps[4] = { 0, 19000000000ull, 25300000000ull, 30300000000ull };
#define PROBE_LEN 64u           /* a probe's payload: one 64 B posted write at the receiver (Choice) */
#define PROBE_WIRE (PROBE_LEN + WIRE_OVERHEAD)
#define PROBE_ACK_OP 0x40u      /* rnic_work.op of a probe ACK (clear of TP_PKT_*) */
#define HOST_PFC_PORT 0xffffffffu /* a PFC frame from the receiving host's RNIC to the switch */
#define HOST_PAUSE_CYCLES (1ull << 62) /* XOFF holds until XON (the host sends edges, not quanta) */

enum { RHCC_OFF, RHCC_RX, RHCC_TX, RHCC_BOTH, RHCC_ECN };
static const char *const rhcc_name[5] = { "off", "rx", "tx", "both", "ecn" };

static const char *const variant_name[3] = { "paper", "mellanox", "htsim" };

typedef struct options {
    uint32_t hosts, tenants, qps; /* qps: per tenant per host */
    uint32_t weight[MAX_TENANTS];
    uint64_t cap_bps[MAX_TENANTS]; /* 0: no cap (DCQCN alone) */
    uint32_t min_msg[MAX_TENANTS], max_msg[MAX_TENANTS];
    uint32_t depth, payload;
    int dcqcn_variant;           /* 0 paper, 1 mellanox, 2 htsim */
    uint32_t cnp_interval_us, loss_ppm;
    int no_pfc;
    uint64_t duration_us, warmup_us, seed;
    const char *csv, *queue_csv, *pcap, *trace_csv, *vcd;
    uint32_t snaplen;
    int tick_only, quiet;
    int sched_qos;                /* --sched qos: the QoS engine instead of Palos */
    uint32_t poll_cycles;         /* qos: status polling period */
    uint64_t qos_timeout_us;      /* qos: retransmission timeout; 0 = the model's automatic choice */
    int host_on;                  /* --host on: the receiving host's data path (hcc_host) */
    uint32_t cpu_load_x;          /* --cpu-load 0..3: the paper's 0x .. 3x CPU memory traffic */
    int rhcc;                     /* RHCC_*: which controllers run */
    int ddio;                     /* --ddio on|off */
    uint32_t footprint_mb;        /* --rx-footprint-mb: receive buffers' total size */
    int probe_ts_arrival;         /* --probe-ts arrival: a probe's receive stamp at RX-buffer entry */
    uint32_t cpu_outstanding;     /* --cpu-outstanding: CPU lines in flight at most (default 400) */
    int uniform_slack;            /* --rhcc-slack uniform: hostCC's slack before every step (no fast_down) */
    size_t lat_samples;           /* --lat-samples: latencies kept for the percentiles; 0 = all */
    int progress_log;             /* --progress-log: progress lines on stderr for tools/soak.sh */
} options;

struct model;

typedef struct nic {
    struct model *m;
    uint32_t h;
    rm_host host;              /* palos mode */
    rq_palos palos;
    void *palos_mem;
    rm_qos_host qh;            /* qos mode: the host core, the engine, the block ACKs waiting for it */
    rq_qos qos;
    void *qos_mem;
    rm_pipe ack;
    tp tx;                     /* the transport engine (Tonic) */
    void *tp_mem;
    rl tassel;
    void *rl_mem;
    rm_pipe dma;
    net_link up;               /* TX MAC + link to the switch */
    uint64_t rate_changes;
    hcc_tx htx;                /* --rhcc tx|both: the RHCC sender (probes, Eq. 1, Eq. 2) */
    void *htx_mem;
    int htx_on;
    uint64_t probes_sent;
} nic;

typedef struct model {
    options o;
    uint32_t nflows;       /* flow-id space: QPs (palos), Transfer Table lines in use (qos) */
    uint32_t nqps;
    uint32_t lines_per_domain; /* qos: write + read channels per domain */
    uint64_t line_bps;     /* payload capacity of a 100 Gb/s link at --payload segments */
    tp_dcqcn_config dcqcn;
    tp_protocol proto;
    nic *nics;
    net_switch sw;
    tp_rx rxe;             /* the receiver's transport */
    void *rxe_mem;
    net_link rx_up;        /* the receiver's link to the switch (ACK, NAK, CNP) */
    net_pfc_frame pfc[PFC_QUEUE]; /* PAUSE / RESUME frames on their way to a sender (cycle = arrival) */
    uint32_t pfc_head, pfc_count;
    uint64_t pfc_frames;
    rm_receiver rx;        /* the checker behind it */
    hcc_host hh;           /* --host on: the receiving host's data path, between the switch and rxe */
    void *hh_mem;
    hcc_rx hrx;            /* --rhcc rx|both|ecn: the RHCC receiver (IIO monitor -> MBA level / ECN) */
    void *hrx_mem;
    int hrx_on;
    uint64_t region_bytes; /* receive buffer per flow (footprint / flows, 64 B aligned) */
    hcc_host_stats hw0, hw1; /* host statistics at the window's start and end */
    uint64_t occ0, occ1;   /* cumulative IIO occupancy there */
    int hw0_taken, hw1_taken;
    uint64_t probe_acks_out, host_pfc_frames, mba_writes;
    uint64_t mba_w0, mba_w1, probes_w0, probes_w1; /* MBA writes and probes sent at the window's start / end */
    uint32_t level_w1;     /* MBA level at the window's end */
    uint64_t now;
    uint64_t digest;
    rnic_trace trace;      /* the model's own modules' events */
    FILE *trace_csv;
    FILE *csv;             /* --csv: per-QP results, written after the run */
    FILE *queue_csv;
    uint64_t next_sample, queue_sum, queue_samples, queue_max;
    rm_vcd vcd;            /* --vcd: chosen ports as a waveform */
    char vcd_names[RM_VCD_MAX_PORTS][32];
    roce_pcap pcap;
    int pcap_on;
    uint64_t sent_pkts, piece_errors, order_errors, model_errors;
    uint64_t acks_out, naks_out, cnps_out, rtx_pkts;
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

/* QP number (0 .. nqps - 1) of a flow: the inverse of qp_flow. */
static uint32_t qp_index(const model *m, uint32_t flow)
{
    uint32_t d;
    if (!m->o.sched_qos)
        return flow;
    d = flow / m->lines_per_domain; /* domain = host x tenants + tenant */
    return d * m->o.qps + (flow % m->lines_per_domain) / 2u;
}

static uint64_t probes_sent(const model *m)
{
    uint64_t n = 0;
    uint32_t h;
    for (h = 0; h < m->o.hosts; h++)
        n += m->nics[h].probes_sent;
    return n;
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

static void die(const char *what, rnic_err e)
{
    fprintf(stderr, "rnic_model: %s: %s\n", what, rnic_strerror(e));
    exit(1);
}

static void ring_palos(void *ctx, uint32_t flow, uint32_t tail)
{
    nic *n = (nic *)ctx;
    rnic_err e = rq_palos_doorbell(&n->palos, flow, tail);
    if (e != RNIC_OK)
        die("Palos doorbell refused", e);
}

/* The transport's external pacer: a segment entered a flow's ring -> Tassel's doorbell. */
static void doorbell_cb(void *user, uint32_t flow)
{
    nic *n = (nic *)user;
    rnic_err e = rl_doorbell(&n->tassel, flow);
    if (e != RNIC_OK)
        die("Tassel doorbell refused", e);
}

/* The rate register Tassel paces the QP at. The one place the register's value is decided:
 * min(the transport side's rate, the tenant's cap), where the transport side's rate is DCQCN's
 * rate, or with the RHCC sender hcc_tx_rate's Eq. 2 min(R_rev, R_cc) (its rate records). */
static void write_rate_register(nic *n, uint32_t flow, uint64_t bps)
{
    uint64_t cap = n->m->o.cap_bps[tenant_of(n->m, flow)];
    rnic_err e;
    if (cap && bps > cap)
        bps = cap;
    n->rate_changes++;
    if ((e = rl_set_rate(&n->tassel, flow, bps)) != RNIC_OK)
        die("rl_set_rate", e);
}

/* DCQCN changed a flow's rate: with the RHCC sender it is R_cc (Eq. 2 decides, a rate record
 * follows at hcc_tx's next tick), without it the register's value. */
static void set_rate_cb(void *user, uint32_t flow, uint64_t bps)
{
    nic *n = (nic *)user;
    rnic_err e;
    if (!n->htx_on) {
        write_rate_register(n, flow, bps);
        return;
    }
    if ((e = hcc_tx_set_rcc(&n->htx, flow, bps)) != RNIC_OK)
        die("hcc_tx_set_rcc", e);
}

/* qos mode: the retransmission timeout (us). The engine's default, 20 us (§2), counts from the
 * send unit taking a block; here the block then waits in the transport behind up to
 * max_outstanding - 1 others and is paced at the QP's rate, so 20 us would retransmit nearly
 * every block. The model's choice: twice the time to send max_outstanding full blocks at the
 * slowest rate the QP's register can hold -- DCQCN's floor (rate_floor_bps, also RHCC's R_rev
 * floor), or a lower cap -- rounded up to 100 us, at least 20 us (--qos-timeout-us overrides).
 * Not the fair share: DCQCN holds QPs below it for milliseconds (3x host load, 20 ms: the
 * QPs' mean R_cc 1.8 Gb/s at the end against a 2.9 Gb/s share), and a timeout from the share
 * fired for blocks that were only queued behind their transfer's other block -- each resend
 * queued one more block ahead of the next copy, a block reached the retry limit and its
 * transfer read ERROR.
 * The transport under the engine is reliable (go-back-N, its own RTO), so the engine's timeout
 * is the last resort: it fires only when the transport is slower than its floor (long pauses);
 * then the host resubmits what read ERROR (model_parts.h rm_qos_host). */
static uint64_t qos_timeout_us(const model *m, const rq_qos_config *qc)
{
    const options *o = &m->o;
    uint64_t us;
    uint32_t t;
    double r_eff = (double)m->dcqcn.rate_floor_bps; /* the slowest a QP is ever sent */
    if (o->qos_timeout_us)
        return o->qos_timeout_us;
    for (t = 0; t < o->tenants; t++)
        if (o->cap_bps[t] && (double)o->cap_bps[t] < r_eff)
            r_eff = (double)o->cap_bps[t];
    us = (uint64_t)(2.0 * qc->max_outstanding * qc->block_bytes * 8.0 / r_eff * 1e6) / 100u * 100u + 100u;
    return us < 20u ? 20u : us;
}

/* qos mode: the QoS engine of host h (domains h x tenants .. + tenants - 1 are its own), its
 * host core, and the FIFO of block ACKs waiting for its response port. */
static void nic_init_qos(model *m, nic *n, uint32_t h)
{
    const options *o = &m->o;
    rq_qos_config qc;
    const char *field = NULL;
    size_t size;
    rnic_err e;
    uint32_t t;

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
    if (rm_qos_host_init(&n->qh, &n->qos, h * o->tenants, o->tenants, o->qps, m->lines_per_domain, o->min_msg[0],
                         o->max_msg[0], o->poll_cycles, o->seed + h) ||
        rm_pipe_init(&n->ack, 4096u, LINK_BPS, CLOCK_HZ, 0, 1u)) {
        fprintf(stderr, "rnic_model: out of memory\n");
        exit(1);
    }
    for (t = 0; t < o->tenants; t++) /* each tenant's own sizes, as in Palos mode */
        rm_qos_host_set_sizes(&n->qh, t, o->min_msg[t], o->max_msg[t]);
}

static void link_config(net_link_config *lc, uint32_t queue_packets)
{
    net_link_config_default(lc);
    lc->rate_bps = LINK_BPS;
    lc->prop_ns = LINK_PROP_NS;
    lc->clock_hz = CLOCK_HZ;
    lc->queue_packets = queue_packets;
    lc->out_packets = 4096;
}

static void nic_init(model *m, nic *n, uint32_t h)
{
    const options *o = &m->o;
    uint32_t per_host = o->tenants * o->qps, first = h * per_host, t, i;
    rq_palos_config pc;
    rl_config rc;
    tp_config tc;
    tp_flow_config fp;
    tp_rx_flow_config rfc;
    net_link_config lc;
    const char *field = NULL;
    size_t size;
    rnic_err e;

    n->m = m;
    n->h = h;
    n->htx_on = o->host_on && (o->rhcc == RHCC_TX || o->rhcc == RHCC_BOTH);
    if (o->sched_qos)
        nic_init_qos(m, n, h);
    else if (rm_host_init(&n->host, first, per_host, o->depth * 2u, o->depth, o->min_msg[0], o->max_msg[0],
                          PCIE_LATENCY, o->seed + h)) {
        fprintf(stderr, "rnic_model: out of memory\n");
        exit(1);
    }
    link_config(&lc, 4u); /* the TX MAC's FIFO */
    if (rm_pipe_init(&n->dma, 64u, PCIE_BPS, CLOCK_HZ, 0, PCIE_LATENCY) || net_link_init(&n->up, &lc) != RNIC_OK) {
        fprintf(stderr, "rnic_model: out of memory\n");
        exit(1);
    }

    if (!o->sched_qos) {
        for (t = 0; t < o->tenants; t++)
            for (i = 0; i < o->qps; i++)
                rm_host_set_sizes(&n->host, first + t * o->qps + i, o->min_msg[t], o->max_msg[t]);
        rq_palos_config_default(&pc);
        pc.weights.max_flows = m->nflows;
        pc.weights.max_groups = o->tenants;
        pc.weights.mtu = PALOS_CHUNK;
        pc.clock_hz = CLOCK_HZ;
        pc.cut_align = o->payload; /* pieces of whole segments for the transport behind it */
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

    /* the transport: RoCEv2 + DCQCN, rate credit through Tassel */
    tp_config_default(&tc);
    tc.clock_hz = CLOCK_HZ;
    tc.link_bps = m->line_bps;
    tc.min_rate_bps = m->dcqcn.rate_floor_bps;
    tc.max_flows = m->nflows;
    tc.window = TP_WINDOW;
    tc.ring = SEG_RING;
    tc.message_depth = TP_MESSAGES;
    tc.incoming_depth = 1024;
    tc.completion_depth = 256;
    tc.protocol = &m->proto;
    tc.external_pacer = true;
    tc.pacer.doorbell = doorbell_cb;
    tc.pacer.set_rate = set_rate_cb;
    tc.pacer.user = n;
    tc.trace = on_trace;
    tc.trace_user = m;
    tc.trace_id = (uint16_t)(RNIC_ENGINE_TRANSPORT + 32u * h);
    if ((e = tp_config_check(&tc, &field)) != RNIC_OK) {
        fprintf(stderr, "rnic_model: transport config: %s: %s\n", field ? field : "?", rnic_strerror(e));
        exit(1);
    }
    size = tp_mem_size(&tc);
    n->tp_mem = malloc(size);
    if (!n->tp_mem || (e = tp_init(&n->tx, &tc, n->tp_mem, size)) != RNIC_OK)
        die("tp_init", n->tp_mem ? e : RNIC_ENOSPC);

    rl_config_default(&rc);
    rc.clock_hz = CLOCK_HZ;
    rc.link_bps = m->line_bps;
    rc.max_flows = m->nflows;
    rc.mtu = o->payload; /* one packet per segment-ring entry */
    rc.pcie_latency_ns = RING_READ_NS;
    rc.source = tp_pacer_source;
    rc.source_user = &n->tx;
    rc.trace = on_trace;
    rc.trace_user = m;
    rc.trace_id = (uint16_t)(RNIC_ENGINE_TASSEL + 32u * h);
    if ((e = rl_config_check(&rc, &field)) != RNIC_OK) {
        fprintf(stderr, "rnic_model: Tassel config: %s: %s\n", field ? field : "?", rnic_strerror(e));
        exit(1);
    }
    size = rl_mem_size(&rc);
    n->rl_mem = malloc(size);
    if (!n->rl_mem || (e = rl_init(&n->tassel, &rc, n->rl_mem, size)) != RNIC_OK)
        die("rl_init", n->rl_mem ? e : RNIC_ENOSPC);

    if (n->htx_on) { /* the RHCC sender: Eq. 1 on probe ACKs, Eq. 2 into the rate register */
        hcc_tx_config hc;
        hcc_tx_config_default(&hc);
        hc.clock_hz = CLOCK_HZ;
        hc.link_bps = m->line_bps;
        hc.rate_floor_bps = m->dcqcn.rate_floor_bps;
        hc.max_flows = m->nflows;
        hc.rate_depth = m->nflows + 1u; /* a record per flow at most waits: never full */
        hc.probe_depth = 1024;
        hc.max_delay_ns = HCC_TX_MAX_DELAY_NS; /* a host stall of any length is a delay, not bad input */
        hc.trace = on_trace;
        hc.trace_user = m;
        hc.trace_id = (uint16_t)(RNIC_ENGINE_HCC_TX + 32u * h);
        if ((e = hcc_tx_config_check(&hc, &field)) != RNIC_OK) {
            fprintf(stderr, "rnic_model: RHCC sender config: %s: %s\n", field ? field : "?", rnic_strerror(e));
            exit(1);
        }
        size = hcc_tx_mem_size(&hc);
        n->htx_mem = malloc(size);
        if (!n->htx_mem || (e = hcc_tx_init(&n->htx, &hc, n->htx_mem, size)) != RNIC_OK)
            die("hcc_tx_init", n->htx_mem ? e : RNIC_ENOSPC);
    }

    tp_flow_config_default(&fp);
    fp.seg_size = o->payload;
    fp.init_rate_bps = m->line_bps; /* DCQCN starts at line rate */
    fp.rto_ns = 2000000u;               /* RoCE NICs: a few ms (PFC makes loss rare) */
    for (t = 0; t < o->tenants; t++)
        for (i = 0; i < o->qps; i++) {
            uint32_t flow = qp_flow(m, first + t * o->qps + i);
            rq_palos_flow_config pf;
            rq_palos_flow_config_default(&pf); /* weight 1, bandwidth class */
            pf.group = t;
            if (!o->sched_qos && (e = rq_palos_flow_open(&n->palos, flow, &pf)) != RNIC_OK)
                die("rq_palos_flow_open", e);
            if (n->htx_on && (e = hcc_tx_flow_open(&n->htx, flow, NULL)) != RNIC_OK) /* at link_bps */
                die("hcc_tx_flow_open", e);
            write_rate_register(n, flow, m->line_bps); /* Tassel's register before the transport's first word */
            if ((e = tp_flow_open(&n->tx, flow, &fp)) != RNIC_OK)
                die("tp_flow_open", e);
            tp_rx_flow_config_default(&rfc);
            rfc.init_seq = fp.init_seq;
            if ((e = tp_rx_flow_open(&m->rxe, flow, &rfc)) != RNIC_OK)
                die("tp_rx_flow_open", e);
        }
    n->rate_changes = 0;
}

static void nic_free(nic *n)
{
    rm_qos_host_free(&n->qh);
    rm_pipe_free(&n->ack);
    free(n->qos_mem);
    rm_host_free(&n->host);
    rm_pipe_free(&n->dma);
    net_link_free(&n->up);
    free(n->palos_mem);
    free(n->tp_mem);
    free(n->rl_mem);
    free(n->htx_mem);
}

/* The receiver's side: its transport (RoCEv2 responder + the DCQCN notification point), its
 * link to the switch, and the switch (every host's port, random loss on the receiver's). */
static void receiver_init(model *m)
{
    const options *o = &m->o;
    tp_rx_config rc;
    net_switch_config sc;
    net_link_config lc;
    const char *field = NULL;
    size_t size;
    rnic_err e;
    uint32_t h;

    tp_rx_config_default(&rc);
    rc.clock_hz = CLOCK_HZ;
    rc.max_flows = m->nflows;
    rc.window = TP_WINDOW;
    rc.delack_count = 1; /* an ACK per packet, as RoCE NICs and the HPCC simulator do */
    rc.sack = false;
    rc.go_back_n = true;
    rc.cnp_interval_ns = (uint64_t)o->cnp_interval_us * 1000u;
    rc.cnp_mode = TP_RX_CNP_IMMEDIATE;
    rc.segment_depth = 256;
    rc.ack_depth = 4096;
    rc.delivered_depth = 256;
    rc.trace = on_trace;
    rc.trace_user = m;
    rc.trace_id = (uint16_t)(RNIC_ENGINE_TRANSPORT + 32u * o->hosts);
    if ((e = tp_rx_config_check(&rc, &field)) != RNIC_OK) {
        fprintf(stderr, "rnic_model: receiver config: %s: %s\n", field ? field : "?", rnic_strerror(e));
        exit(1);
    }
    size = tp_rx_mem_size(&rc);
    m->rxe_mem = malloc(size);
    if (!m->rxe_mem || (e = tp_rx_init(&m->rxe, &rc, m->rxe_mem, size)) != RNIC_OK)
        die("tp_rx_init", m->rxe_mem ? e : RNIC_ENOSPC);

    if (o->host_on) {
        hcc_host_config hc;
        hcc_rx_config xc;
        hcc_host_config_default(&hc);
        hc.clock_hz = CLOCK_HZ;
        hc.pfc = !o->no_pfc; /* without PFC the RX buffer marks CE above cnp_bytes and drops when full */
        hc.cpu_load_bps = 8u * cpu_load_Bps[o->cpu_load_x]; /* bytes/s -> b/s */
        hc.ddio_lines = o->ddio ? hc.ddio_lines : 0u;
        if (o->cpu_outstanding)
            hc.cpu_outstanding = o->cpu_outstanding;
        /* room for both windows, so the windows and not the queue set the shares (the FCFS rule
         * of docs/hostcc_host.md) */
        hc.mem_queue = hc.cpu_outstanding + hc.iio_mem_credits;
        hc.rx_depth = 256;
        hc.trace = on_trace;
        hc.trace_user = m;
        hc.trace_id = (uint16_t)(RNIC_ENGINE_HCC_HOST + 32u * o->hosts);
        if ((e = hcc_host_config_check(&hc, &field)) != RNIC_OK) {
            fprintf(stderr, "rnic_model: host config: %s: %s\n", field ? field : "?", rnic_strerror(e));
            exit(1);
        }
        size = hcc_host_mem_size(&hc);
        m->hh_mem = malloc(size);
        if (!m->hh_mem || (e = hcc_host_init(&m->hh, &hc, m->hh_mem, size)) != RNIC_OK)
            die("hcc_host_init", m->hh_mem ? e : RNIC_ENOSPC);
        /* each QP's receive buffer: the footprint split evenly, whole 64 B lines (at least one) */
        m->region_bytes = ((uint64_t)o->footprint_mb << 20) / m->nqps / 64u * 64u;
        if (m->region_bytes < 64u)
            m->region_bytes = 64u;
        m->hrx_on = o->rhcc == RHCC_RX || o->rhcc == RHCC_BOTH || o->rhcc == RHCC_ECN;
        if (m->hrx_on) {
            hcc_rx_config_default(&xc);
            xc.clock_hz = CLOCK_HZ;
            xc.mode = o->rhcc == RHCC_ECN ? HCC_RX_MODE_ECN : HCC_RX_MODE_MBA;
            xc.fast_down = !o->uniform_slack; /* undo a trial step up at once (docs/hostcc_rx.md) */
            xc.trace = on_trace;
            xc.trace_user = m;
            xc.trace_id = (uint16_t)(RNIC_ENGINE_HCC_RX + 32u * (o->hosts + 1u));
            if ((e = hcc_rx_config_check(&xc, &field)) != RNIC_OK) {
                fprintf(stderr, "rnic_model: RHCC receiver config: %s: %s\n", field ? field : "?", rnic_strerror(e));
                exit(1);
            }
            size = hcc_rx_mem_size(&xc);
            m->hrx_mem = malloc(size);
            if (!m->hrx_mem || (e = hcc_rx_init(&m->hrx, &xc, m->hrx_mem, size)) != RNIC_OK)
                die("hcc_rx_init", m->hrx_mem ? e : RNIC_ENOSPC);
        }
    }
    link_config(&lc, 8192u);
    if ((e = net_link_init(&m->rx_up, &lc)) != RNIC_OK)
        die("receiver link", e);
    net_switch_config_default(&sc);
    sc.ports = o->hosts + 1u;
    sc.hosts = o->hosts + 1u;
    sc.buffer_bytes = SWITCH_BUFFER;
    sc.ecn_kmin_bytes = ECN_KMIN;
    sc.ecn_kmax_bytes = ECN_KMAX;
    sc.ecn_pmax_ppm = ECN_PMAX_PPM;
    sc.ecn_seed = o->seed;
    link_config(&sc.link, 1u);
    if (!o->no_pfc) {
        /* the fixed thresholds of the 2:1 run where they fit the buffer (its results unchanged);
         * with more hosts, thresholds derived from the port count, rate and delay (net.h) */
        sc.pfc_xoff_bytes = PFC_XOFF;
        sc.pfc_xon_bytes = PFC_XON;
        if (net_switch_config_check(&sc, NULL) != RNIC_OK && (e = net_switch_pfc_derive(&sc, sc.ports, &sc.link)) != RNIC_OK)
            die("switch PFC thresholds", e);
    }
    if ((e = net_switch_init(&m->sw, &sc)) != RNIC_OK)
        die("switch", e);
    for (h = 0; h <= o->hosts; h++)
        net_switch_route(&m->sw, h, h);
    if (o->loss_ppm && (e = net_switch_set_drop_ppm(&m->sw, o->hosts, o->loss_ppm, o->seed)) != RNIC_OK)
        die("loss", e);
}

/* BTH opcode of a packet of an RDMA WRITE message, from where it sits in the message. */
static uint8_t write_opcode(const rnic_work *w)
{
    int first = (w->op & RM_OP_MSG_FIRST) && (w->flags & RNIC_WORK_FIRST);
    int last = (w->op & RM_OP_MSG_LAST) && (w->flags & RNIC_WORK_LAST);
    return first && last ? ROCE_OP_WRITE_ONLY : first ? ROCE_OP_WRITE_FIRST : last ? ROCE_OP_WRITE_LAST : ROCE_OP_WRITE_MIDDLE;
}

static void pcap_write(model *m, const roce_frame_spec *f)
{
    if (roce_pcap_write(&m->pcap, rnic_cycles_to_ns(m->now, CLOCK_HZ), f) != 0) {
        fprintf(stderr, "rnic_model: pcap write failed\n");
        m->pcap_on = 0;
    }
}

/* Host h is 10.0.0.(h+1), MAC 02:..:(h+1); the receiver 10.0.1.1, MAC 02:..:fe. */
static void pcap_addresses(roce_frame_spec *f, uint32_t h, int to_receiver)
{
    uint32_t host_ip = 0x0a000001u + h, rx_ip = 0x0a000101u;
    f->src_ip = to_receiver ? host_ip : rx_ip;
    f->dst_ip = to_receiver ? rx_ip : host_ip;
    f->src_mac[0] = f->dst_mac[0] = 0x02;
    f->src_mac[5] = to_receiver ? (uint8_t)(h + 1u) : 0xfe;
    f->dst_mac[5] = to_receiver ? 0xfe : (uint8_t)(h + 1u);
}

/* The DMA length of the message a packet belongs to (the RETH of WRITE First / Only). Palos
 * mode: the WQE the host posted as message RM_TAG_SEQ(tag) of the flow, still in the host's
 * ring (a slot is reused only after `depth` later messages were posted, and a message stays
 * outstanding until every byte is acknowledged: no packet of it is sent after that). qos mode:
 * the QP's one message in flight. A WQE that is not found is a model error (never expected). */
static uint32_t message_dma_len(model *m, const rnic_work *w)
{
    nic *n = &m->nics[host_of(m, w->flow)];
    if (m->o.sched_qos)
        return (uint32_t)n->qh.qp[qp_index(m, w->flow) % n->qh.nqps].len;
    {
        const rm_host *h = &n->host;
        uint32_t seq = RM_TAG_SEQ(w->tag), local = w->flow - h->first_flow;
        const rnic_work *q = &h->wqe[(size_t)local * h->ring + (seq % h->ring)];
        if (local < h->nflows && q->flow == w->flow && RM_TAG_SEQ(q->tag) == seq)
            return q->len;
    }
    m->model_errors++;
    return w->len;
}

static void pcap_data(model *m, const rnic_work *w)
{
    roce_frame_spec f;
    memset(&f, 0, sizeof f);
    pcap_addresses(&f, host_of(m, w->flow), 1);
    f.ecn = ROCE_ECN_ECT0;
    f.udp_sport = (uint16_t)(0xc000u | (w->flow & 0x3fffu));
    f.opcode = write_opcode(w);
    f.dest_qp = 0x100u + w->flow;
    f.psn = w->index & 0xffffffu; /* the transport's segment id */
    f.ack_req = 1;               /* RoCE asks an ACK per packet here (the receiver ACKs each) */
    f.reth_va = w->raddr;
    f.reth_rkey = 0x1000u + w->flow;
    if (f.opcode == ROCE_OP_WRITE_FIRST || f.opcode == ROCE_OP_WRITE_ONLY)
        f.reth_len = message_dma_len(m, w); /* the whole message's (IBA 9.3.3) */
    f.payload_len = w->len;
    f.payload_seed = w->tag;
    f.payload_offset = w->raddr; /* content depends on the byte's place only */
    pcap_write(m, &f);
}

/* ACK / NAK (AETH) and CNP frames from the receiver to the QP's sender. */
static void pcap_control(model *m, const rnic_work *w)
{
    roce_frame_spec f;
    memset(&f, 0, sizeof f);
    pcap_addresses(&f, host_of(m, w->flow), 0);
    f.udp_sport = (uint16_t)(0xc000u | (w->flow & 0x3fffu));
    f.dest_qp = 0x100u + w->flow;
    if (TP_WORK_PKT_TYPE(w->flags) == TP_PKT_CNP) {
        f.opcode = ROCE_OP_CNP;
        f.ecn = ROCE_ECN_NOT_ECT;
        f.dscp = 48; /* CNPs ride a high priority (NIC default DSCP 48) */
    } else {
        f.opcode = ROCE_OP_ACK;
        f.ecn = ROCE_ECN_ECT0;
        f.psn = (w->index - 1u) & 0xffffffu; /* an ACK names the last PSN received in order */
        f.aeth_syndrome = TP_WORK_PKT_TYPE(w->flags) == TP_PKT_NACK ? 0x60u : 0x1fu; /* NAK: PSN sequence error; ACK: no credit count */
        if (TP_WORK_PKT_TYPE(w->flags) == TP_PKT_NACK)
            f.psn = w->index & 0xffffffu; /* a NAK names the PSN expected */
        f.aeth_msn = 0;
    }
    pcap_write(m, &f);
}

/* qos mode: a status poll saw the QP's channel DONE (ok) or ERROR: the message is complete at
 * the host; its latency (post -> DONE seen) goes to the report. */
static void on_qos_done(void *ctx, uint32_t flow, uint64_t latency, int ok)
{
    model *m = (model *)ctx;
    if (ok && m->now >= m->rx.window_start && m->now < m->rx.window_end)
        rm_receiver_note_latency(&m->rx, flow, latency);
}

/* qos mode: blocks from the QoS engine into the transport as messages, the tag and op set for
 * the receiver: TID, sequence number and the message's number on the flow in the tag; where
 * the block sits in its message and whether it is a retransmission in op. */
static void qos_blocks_to_transport(model *m, nic *n)
{
    rnic_work w;
    rq_packet pk;
    while (rq_qos_peek_block(&n->qos, &w) == RNIC_OK) {
        const rm_qos_qp *p;
        if (w.flow >= m->nflows || (p = &n->qh.qp[qp_index(m, w.flow) % n->qh.nqps])->flow != w.flow) {
            rq_qos_pop_block(&n->qos, &w);
            m->piece_errors++;
            continue;
        }
        if (tp_flow_message_room(&n->tx, w.flow) == 0)
            break; /* the flow's message queue is full: the transaction port fills, the engine stalls */
        rq_qos_pop_block(&n->qos, &w);
        /* the message's number on its flow: the QP's current message (one in flight; a transfer
         * that read ERROR is written again as the same message, so the engine's transfer index
         * runs ahead of it), and a resubmission's blocks are retransmissions */
        w.tag = RM_QOS_TAG(w.aux, RQ_WORK_SEQ(w.flags), p->msgs_posted - 1u);
        w.flags &= (1u << RQ_WORK_SEQ_SHIFT) - 1u; /* the block's number travels in the tag */
        w.op = RM_OP_WRITE | (((w.flags & RQ_WORK_RETRANSMIT) || p->attempt) ? RM_OP_RETX : 0u) |
               ((w.flags & RNIC_WORK_FIRST) ? RM_OP_MSG_FIRST : 0u) | ((w.flags & RNIC_WORK_LAST) ? RM_OP_MSG_LAST : 0u);
        if (tp_push_message(&n->tx, &w) != RNIC_OK)
            m->model_errors++;
    }
    while (rq_qos_pop_packet(&n->qos, &pk) == RNIC_OK)
        m->piece_errors++; /* no inline transfers and no notifications are posted: none expected */
}

/* A transport completion: every segment of a message (a slicer piece or a QoS block)
 * acknowledged. Palos: the WQE completes with its last piece; qos: the block's ACK. */
static void completion(model *m, nic *n, const rnic_work *c)
{
    if (m->o.sched_qos) {
        rnic_work a;
        memset(&a, 0, sizeof a);
        a.flow = c->flow;
        a.aux = RM_QOS_TAG_TID(c->tag);
        a.op = RM_QOS_TAG_SEQ(c->tag);
        a.len = 8;
        if (rm_pipe_push(&n->ack, &a) != RNIC_OK)
            m->model_errors++;
    } else if (c->op & RM_OP_MSG_LAST) {
        rm_host_completed(&n->host, c->flow);
    }
}

/* A packet Tassel sent: the segment-ring entry it came from is the packet (Tassel's MTU is the
 * segment size), and the transport learns that its entry left. */
static int tassel_packet(model *m, nic *n, rnic_work *w)
{
    rnic_work seg;
    uint32_t index = w->index;
    if (w->flags & RNIC_WORK_ERROR) {
        m->piece_errors++;
        return 0;
    }
    rnic_work consumed;
    memset(&consumed, 0, sizeof consumed);
    consumed.flow = w->flow;
    consumed.index = index;
    if (tp_pacer_source(&n->tx, w->flow, index, &seg, 1) != 1 || seg.len != w->len || !(w->flags & RNIC_WORK_LAST) ||
        tp_push_consumed(&n->tx, &consumed) != RNIC_OK) {
        m->order_errors++;
        return 0;
    }
    *w = seg;
    if (seg.flags & TP_WORK_RTX)
        m->rtx_pkts++;
    m->sent_pkts++;
    return 1;
}

/* PFC: the switch's PAUSE / RESUME frames travel back to the neighbour (one hop: propagation
 * plus a 64 B frame) and pause its link's serialiser on arrival. */
static void pfc_frames(model *m)
{
    net_pfc_frame f;
    uint64_t hop = m->rx_up.prop + rnic_ns_to_cycles(6u, CLOCK_HZ);
    while (m->pfc_count < PFC_QUEUE && net_switch_pop_pfc(&m->sw, &f) == RNIC_OK) {
        f.cycle = m->now + hop;
        m->pfc[(m->pfc_head + m->pfc_count++) % PFC_QUEUE] = f;
    }
    if (m->o.host_on) { /* the receiving host's RNIC: XOFF / XON edges toward the switch's port to it */
        rnic_work s;
        while (m->pfc_count < PFC_QUEUE && hcc_host_pop_signal(&m->hh, &s) == RNIC_OK) {
            f.port = HOST_PFC_PORT;
            f.quanta = (s.flags & HCC_HOST_WORK_PAUSE) ? 0xffffu : 0u;
            f.cycle = m->now + hop;
            m->pfc[(m->pfc_head + m->pfc_count++) % PFC_QUEUE] = f;
            m->host_pfc_frames++;
        }
    }
    while (m->pfc_count && m->pfc[m->pfc_head].cycle <= m->now) {
        net_pfc_frame *a = &m->pfc[m->pfc_head];
        if (a->port == HOST_PFC_PORT) {
            net_link *l = &m->sw.port[m->o.hosts].link;
            if (net_link_pause(l, a->quanta ? m->now + HOST_PAUSE_CYCLES : m->now) != RNIC_OK)
                m->model_errors++;
        } else {
            if (net_link_pause_quanta(a->port < m->o.hosts ? &m->nics[a->port].up : &m->rx_up, a->quanta) != RNIC_OK)
                m->model_errors++;
            m->pfc_frames++; /* the switch's frames (the host's: host_pfc_frames) */
        }
        m->pfc_head = (m->pfc_head + 1u) % PFC_QUEUE;
        m->pfc_count--;
    }
}

/* The receiving host (--host on), between the switch and the receiver's transport: the RHCC
 * receiver reads the IIO counter when a sample is due and writes the host's MBA level (or ECN
 * marking); packets from the switch enter the RNIC's RX buffer (a full buffer drops them: the
 * host counts it, go-back-N resends); packets whose posted writes left go to the transport,
 * probes turn into probe ACKs stamped with the receive and ACK times. */
static void host_transfer(model *m)
{
    rnic_work w;
    net_pkt p;
    uint32_t R = m->o.hosts;
    rnic_err e;
    if (m->hrx_on) {
        if (hcc_rx_sample_due(&m->hrx) <= m->now) {
            hcc_rx_sample smp;
            smp.cycle = m->now;
            smp.cum = hcc_host_iio_occupancy_cum(&m->hh);
            if (hcc_rx_push_sample(&m->hrx, &smp) != RNIC_OK)
                m->model_errors++;
        }
        while (hcc_rx_pop_action(&m->hrx, &w) == RNIC_OK) {
            e = (w.flags & HCC_RX_WORK_MBA) ? hcc_host_set_mba_level(&m->hh, w.aux)
                                            : hcc_host_set_ecn(&m->hh, (w.flags & HCC_WORK_CE) != 0);
            m->mba_writes += (w.flags & HCC_RX_WORK_MBA) != 0;
            if (e != RNIC_OK)
                m->model_errors++;
        }
    }
    while (net_switch_pop(&m->sw, R, &p) == RNIC_OK) {
        w = p.w;
        w.flags = p.ecn ? (w.flags | TP_WORK_ECN) : (w.flags & ~TP_WORK_ECN);
        /* the QP's receive buffer, written in stream order and reused round (a probe writes nothing) */
        w.addr = (uint64_t)qp_index(m, w.flow) * m->region_bytes +
                 ((w.flags & HCC_WORK_PROBE) ? 0u : (w.raddr & ((1ull << 40) - 1u)) % m->region_bytes);
        e = hcc_host_push_rx(&m->hh, &w);
        if (e != RNIC_OK && e != RNIC_EBUSY) /* EBUSY: the RX buffer was full, the host dropped and counted it */
            m->model_errors++;
    }
    while (hcc_host_peek_rx(&m->hh, &w) == RNIC_OK) {
        if (w.flags & HCC_WORK_PROBE) {
            if (!net_link_space(&m->rx_up))
                break;
            hcc_host_pop_rx(&m->hh, &w);
            memset(&p, 0, sizeof p);
            p.w.flow = w.flow;
            p.w.index = w.index;
            p.w.op = PROBE_ACK_OP;
            p.w.flags = HCC_WORK_PROBE;
            /* received: when the probe reached the head of the RX buffer (default), so D_cur is the
             * processing delay (the paper measures 120 ns idle, ~900 ns congested); or, with
             * --probe-ts arrival, when it entered the buffer (the RX-buffer queue included) */
            p.w.addr = rnic_cycles_to_ns(w.cycle - (m->o.probe_ts_arrival ? w.aux : w.offset), CLOCK_HZ);
            p.w.raddr = rnic_cycles_to_ns(w.cycle, CLOCK_HZ);        /* processed: its write left, the ACK goes */
            p.src = R;
            p.dst = host_of(m, w.flow);
            p.wire_bytes = ACK_WIRE;
            m->probe_acks_out++;
            if (net_link_push(&m->rx_up, &p) != RNIC_OK)
                m->model_errors++;
            continue;
        }
        if (!tp_rx_space_segment(&m->rxe))
            break;
        hcc_host_pop_rx(&m->hh, &w);
        if (tp_rx_push_segment(&m->rxe, &w) != RNIC_OK)
            m->model_errors++;
    }
}

/* Move every record that can move at cycle m->now, downstream first: the switch into the
 * receiver and the senders, the receiver's checker and link, the hosts' links into the switch,
 * the DMA pipes into the links, Tassel into the DMA pipes, completions back to the hosts, the
 * slicers into the transport, the hosts into the slicers. */
static void transfer(model *m)
{
    rnic_work w;
    net_pkt p;
    uint32_t h, R = m->o.hosts;
    if (m->o.host_on)
        host_transfer(m);
    while (!m->o.host_on && tp_rx_space_segment(&m->rxe) && net_switch_pop(&m->sw, R, &p) == RNIC_OK) {
        p.w.flags = p.ecn ? (p.w.flags | TP_WORK_ECN) : (p.w.flags & ~TP_WORK_ECN);
        if (tp_rx_push_segment(&m->rxe, &p.w) != RNIC_OK)
            m->model_errors++;
    }
    while (tp_rx_pop_delivered(&m->rxe, &w) == RNIC_OK) {
        m->rx.now = m->now;
        w.aux = (w.flags & TP_WORK_ECN) ? RM_ECN_CE : RM_ECN_ECT0;
        rm_receiver_take(&m->rx, &w, &m->trace);
    }
    while (net_link_space(&m->rx_up) && tp_rx_pop_ack(&m->rxe, &w) == RNIC_OK) {
        memset(&p, 0, sizeof p);
        p.w = w;
        p.src = R;
        p.dst = host_of(m, w.flow);
        p.wire_bytes = TP_WORK_PKT_TYPE(w.flags) == TP_PKT_CNP ? CNP_WIRE : ACK_WIRE;
        m->acks_out += TP_WORK_PKT_TYPE(w.flags) == TP_PKT_ACK;
        m->naks_out += TP_WORK_PKT_TYPE(w.flags) == TP_PKT_NACK;
        m->cnps_out += TP_WORK_PKT_TYPE(w.flags) == TP_PKT_CNP;
        if (m->pcap_on)
            pcap_control(m, &w);
        if (net_link_push(&m->rx_up, &p) != RNIC_OK)
            m->model_errors++;
    }
    while (net_link_peek(&m->rx_up, &p) == RNIC_OK && net_switch_push_from(&m->sw, R, &p) == RNIC_OK)
        net_link_pop(&m->rx_up, &p);
    pfc_frames(m);
    for (h = 0; h < m->o.hosts; h++) {
        nic *n = &m->nics[h];
        while (tp_space_incoming(&n->tx) && net_switch_pop(&m->sw, h, &p) == RNIC_OK) {
            if (p.w.op == PROBE_ACK_OP && (p.w.flags & HCC_WORK_PROBE)) { /* to the RHCC sender: Eq. 1 */
                if (!n->htx_on || hcc_tx_push_probe_ack(&n->htx, &p.w) != RNIC_OK)
                    m->model_errors++;
                continue;
            }
            if (tp_push_incoming(&n->tx, &p.w) != RNIC_OK)
                m->model_errors++;
        }
        while (n->htx_on && hcc_tx_pop_rate(&n->htx, &w) == RNIC_OK) /* Eq. 2's R_trans -> Tassel */
            write_rate_register(n, w.flow, w.addr);
        if (m->o.sched_qos)
            while (rq_qos_space_response(&n->qos) && rm_pipe_pop(&n->ack, &w) == RNIC_OK) {
                rq_response r;
                r.tid = w.aux;
                r.seq = w.op;
                r.ack = 1;
                if (rq_qos_push_response(&n->qos, &r) != RNIC_OK)
                    m->model_errors++;
            }
        while (net_link_peek(&n->up, &p) == RNIC_OK && net_switch_push_from(&m->sw, h, &p) == RNIC_OK)
            net_link_pop(&n->up, &p);
        while (n->htx_on && net_link_space(&n->up) && hcc_tx_pop_probe(&n->htx, &w) == RNIC_OK) {
            memset(&p, 0, sizeof p); /* a probe: the RNIC's own small packet, ahead of the DMA'd data */
            p.w.flow = w.flow;
            p.w.index = w.index;
            p.w.len = PROBE_LEN;
            p.w.flags = HCC_WORK_PROBE;
            p.src = h;
            p.dst = R;
            p.wire_bytes = PROBE_WIRE;
            n->probes_sent++;
            if (net_link_push(&n->up, &p) != RNIC_OK)
                m->model_errors++;
        }
        while (net_link_space(&n->up) && rm_pipe_pop(&n->dma, &w) == RNIC_OK) {
            if (m->pcap_on)
                pcap_data(m, &w);
            memset(&p, 0, sizeof p);
            p.w = w;
            p.src = h;
            p.dst = R;
            p.wire_bytes = w.len + WIRE_OVERHEAD;
            if (net_link_push(&n->up, &p) != RNIC_OK)
                m->model_errors++;
        }
        while (rm_pipe_space(&n->dma) && rl_pop_tx(&n->tassel, &w) == RNIC_OK)
            if (tassel_packet(m, n, &w)) {
                if (n->htx_on && hcc_tx_push_sent(&n->htx, &w) != RNIC_OK)
                    m->model_errors++;
                rm_pipe_push(&n->dma, &w);
            }
        while (tp_pop_completion(&n->tx, &w) == RNIC_OK)
            completion(m, n, &w);
        if (m->o.sched_qos) {
            qos_blocks_to_transport(m, n);
            rm_qos_host_step(&n->qh, on_qos_done, m, &m->trace);
            continue;
        }
        while (rq_palos_peek_piece(&n->palos, &w) == RNIC_OK) {
            if (!(w.flags & RNIC_WORK_ERROR) && tp_flow_message_room(&n->tx, w.flow) == 0)
                break; /* the flow's message queue is full: Palos waits (its output port fills) */
            rq_palos_pop_piece(&n->palos, &w);
            if (w.flags & RNIC_WORK_LAST)
                if (rm_host_consumed(&n->host, w.flow, w.index) != 0)
                    m->order_errors++;
            if (w.flags & RNIC_WORK_ERROR) {
                m->piece_errors++;
                continue;
            }
            w.op |= ((w.flags & RNIC_WORK_FIRST) ? RM_OP_MSG_FIRST : 0u) | ((w.flags & RNIC_WORK_LAST) ? RM_OP_MSG_LAST : 0u);
            w.flags = 0;
            if (tp_push_message(&n->tx, &w) != RNIC_OK)
                m->model_errors++;
        }
        rm_host_step(&n->host, ring_palos, n, &m->trace);
    }
}

/* Something can move right now (a record is waiting and its consumer has room). */
static int can_move(model *m)
{
    rnic_work w;
    net_pkt p;
    uint32_t h, R = m->o.hosts;
    if (m->sw.pfc_count || (m->pfc_count && m->pfc[m->pfc_head].cycle <= m->now))
        return 1;
    if (m->o.host_on) {
        if (net_switch_peek(&m->sw, R, &p) == RNIC_OK || hcc_host_peek_signal(&m->hh, &w) == RNIC_OK)
            return 1;
        if (hcc_host_peek_rx(&m->hh, &w) == RNIC_OK &&
            ((w.flags & HCC_WORK_PROBE) ? net_link_space(&m->rx_up) != 0 : tp_rx_space_segment(&m->rxe) != 0))
            return 1;
        if (m->hrx_on && (hcc_rx_sample_due(&m->hrx) <= m->now || hcc_rx_peek_action(&m->hrx, &w) == RNIC_OK))
            return 1;
    } else if (tp_rx_space_segment(&m->rxe) && net_switch_peek(&m->sw, R, &p) == RNIC_OK)
        return 1;
    if (tp_rx_peek_delivered(&m->rxe, &w) == RNIC_OK)
        return 1;
    if (net_link_space(&m->rx_up) && tp_rx_peek_ack(&m->rxe, &w) == RNIC_OK)
        return 1;
    if (net_link_peek(&m->rx_up, &p) == RNIC_OK && net_link_space(&m->sw.port[p.dst].link))
        return 1;
    for (h = 0; h < m->o.hosts; h++) {
        nic *n = &m->nics[h];
        if (tp_space_incoming(&n->tx) && net_switch_peek(&m->sw, h, &p) == RNIC_OK)
            return 1;
        if (n->htx_on && (hcc_tx_peek_rate(&n->htx, &w) == RNIC_OK ||
                          (net_link_space(&n->up) && hcc_tx_peek_probe(&n->htx, &w) == RNIC_OK)))
            return 1;
        if (net_link_peek(&n->up, &p) == RNIC_OK && net_link_space(&m->sw.port[R].link))
            return 1;
        if (net_link_space(&n->up) && rm_pipe_next_event(&n->dma) <= m->now)
            return 1;
        if (rm_pipe_space(&n->dma) && rl_peek_tx(&n->tassel, &w) == RNIC_OK)
            return 1;
        if (tp_peek_completion(&n->tx, &w) == RNIC_OK)
            return 1;
        if (m->o.sched_qos) {
            rq_packet pk;
            if (rq_qos_space_response(&n->qos) && rm_pipe_next_event(&n->ack) <= m->now)
                return 1;
            if (rq_qos_peek_block(&n->qos, &w) == RNIC_OK && (w.flow >= m->nflows || tp_flow_message_room(&n->tx, w.flow)))
                return 1;
            if (rq_qos_peek_packet(&n->qos, &pk) == RNIC_OK || rm_qos_host_next_event(&n->qh) <= m->now)
                return 1;
            continue;
        }
        if (rq_palos_peek_piece(&n->palos, &w) == RNIC_OK && ((w.flags & RNIC_WORK_ERROR) || tp_flow_message_room(&n->tx, w.flow)))
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
    uint64_t next = min64(net_switch_next_event(&m->sw), net_link_next_event(&m->rx_up));
    uint32_t h;
    if (m->pfc_count)
        next = min64(next, m->pfc[m->pfc_head].cycle);
    next = min64(next, tp_rx_next_event(&m->rxe));
    if (m->o.host_on)
        next = min64(next, hcc_host_next_event(&m->hh));
    if (m->hrx_on)
        next = min64(next, min64(hcc_rx_next_event(&m->hrx), hcc_rx_sample_due(&m->hrx)));
    for (h = 0; h < m->o.hosts; h++) {
        nic *n = &m->nics[h];
        if (n->htx_on)
            next = min64(next, hcc_tx_next_event(&n->htx));
        next = min64(next, net_link_next_event(&n->up));
        next = min64(next, rm_pipe_next_event(&n->dma));
        next = min64(next, rl_next_event(&n->tassel));
        next = min64(next, tp_next_event(&n->tx));
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
    net_switch_advance_to(&m->sw, cycle);
    net_link_advance_to(&m->rx_up, cycle);
    m->rx.now = cycle;
    for (h = 0; h < m->o.hosts; h++) {
        m->nics[h].host.now = cycle;
        m->nics[h].qh.now = cycle;
        rm_pipe_advance_to(&m->nics[h].ack, cycle);
        rm_pipe_advance_to(&m->nics[h].dma, cycle);
        net_link_advance_to(&m->nics[h].up, cycle);
    }
}

/* The bottleneck queue (the switch port to the receiver) at the sample points. */
static void sample_queue(model *m)
{
    uint64_t q = net_link_queued_bytes(&m->sw.port[m->o.hosts].link);
    if (q > m->queue_max)
        m->queue_max = q;
    while (m->now >= m->next_sample && m->next_sample < m->rx.window_end) {
        m->queue_sum += q;
        m->queue_samples++;
        if (m->queue_csv)
            fprintf(m->queue_csv, "%.3f,%llu\n", (double)m->next_sample / (double)CLOCK_HZ * 1e6, (unsigned long long)q);
        m->next_sample += rnic_ns_to_cycles(QUEUE_SAMPLE_NS, CLOCK_HZ);
    }
}

/* Drained: every posted byte checked at the receiver and every message acknowledged (the
 * DCQCN timers never stop, so "no next event" never comes). */
static int all_done(const model *m)
{
    uint64_t posted = 0;
    uint32_t h;
    for (h = 0; h < m->o.hosts; h++) {
        const nic *n = &m->nics[h];
        const tp_stats *ts = tp_get_stats(&n->tx);
        if (ts->completions != ts->messages)
            return 0;
        if (m->o.sched_qos) {
            uint32_t i;
            for (i = 0; i < m->o.tenants * m->o.qps; i++) {
                if (n->qh.qp[i].msgs_done != n->qh.qp[i].msgs_posted) /* a failed one: resubmitted */
                    return 0;
                posted += n->qh.qp[i].posted_bytes;
            }
        } else {
            posted += n->host.bytes_posted;
        }
    }
    return posted == m->rx.bytes;
}

/* Advance one engine to `target`; an engine stops early only when an output port fills. */
#define ADVANCE(now_fn, advance_fn, eng, target)                 \
    do {                                                         \
        while (now_fn(eng) < (target))                           \
            if (advance_fn((eng), (target)) == 0)                \
                break;                                           \
        if (now_fn(eng) != (target)) {                           \
            fprintf(stderr, "rnic_model: %s stopped early at %llu (target %llu)\n", #eng, \
                    (unsigned long long)now_fn(eng), (unsigned long long)(target)); \
            exit(1);                                             \
        }                                                        \
    } while (0)

/* Run until cycle `end` (or, draining, until nothing is left to do). One iteration: move what
 * can move, then tick the engines one cycle -- or, when nothing can move and no engine has
 * work this cycle, jump every engine and module to the next event.
 * Returns 1 when, draining, nothing was left anywhere before `end`. */
static int run_until(model *m, uint64_t end, int draining, uint64_t progress_total, double t0)
{
    uint64_t last_report = m->now, last_log = m->now;
    int tty = !m->o.quiet && isatty(2);
    while (m->now < end) {
        uint64_t next, target;
        uint32_t h;
        transfer(m);
        sample_queue(m);
        next = can_move(m) ? m->now : next_event(m);
        if (draining && (next == RNIC_NEVER || all_done(m)))
            return 1; /* nothing left anywhere: drained */
        if (m->o.tick_only)
            next = m->now;
        target = next <= m->now ? m->now + 1u : min64(next, end);
        if (m->next_sample > m->now && target > m->next_sample && !draining)
            target = m->next_sample; /* stop at each queue sample point */
        /* per host: the slicer, the transport, then Tassel (the transport's doorbells and rate
         * changes reach Tassel in the cycle they happen, before Tassel's own tick) */
        for (h = 0; h < m->o.hosts; h++) {
            nic *n = &m->nics[h];
            if (m->o.sched_qos)
                ADVANCE(rq_qos_now, rq_qos_advance_to, &n->qos, target);
            else
                ADVANCE(rq_palos_now, rq_palos_advance_to, &n->palos, target);
            ADVANCE(tp_now, tp_advance_to, &n->tx, target);
            if (n->htx_on) /* after the transport (R_cc written), before Tassel */
                ADVANCE(hcc_tx_now, hcc_tx_advance_to, &n->htx, target);
            ADVANCE(rl_now, rl_advance_to, &n->tassel, target);
        }
        if (m->o.host_on)
            ADVANCE(hcc_host_now, hcc_host_advance_to, &m->hh, target);
        if (m->hrx_on)
            ADVANCE(hcc_rx_now, hcc_rx_advance_to, &m->hrx, target);
        ADVANCE(tp_rx_now, tp_rx_advance_to, &m->rxe, target);
        set_now(m, target);
        if (m->o.host_on && !m->hw0_taken && m->now >= m->rx.window_start) { /* the window's host counters */
            m->hw0 = *hcc_host_get_stats(&m->hh);
            m->occ0 = hcc_host_iio_occupancy_cum(&m->hh);
            m->mba_w0 = m->mba_writes;
            m->probes_w0 = probes_sent(m);
            m->hw0_taken = 1;
        }
        if (tty && m->now - last_report >= progress_total / 50u + 1u) {
            double el = (double)(clock()) / CLOCKS_PER_SEC - t0;
            last_report = m->now;
            fprintf(stderr, "\r[rnic_model] %s %5.1f ms simulated, %6.2f s host, %llu packets   ",
                    draining ? "draining" : "running ", (double)m->now / (double)CLOCK_HZ * 1e3, el,
                    (unsigned long long)m->rx.packets);
        }
        if (m->o.progress_log && m->now - last_log >= progress_total / 1000u + 1u) {
            last_log = m->now; /* one line per 1/1000 of the run: a soak's sampler learns the cycle */
            fprintf(stderr, "progress cycle=%llu packets=%llu\n", (unsigned long long)m->now,
                    (unsigned long long)m->rx.packets);
        }
    }
    return 0;
}

/* Max-min fair payload rate of every QP (index = QP number): each sender's link and the
 * receiver's link carry line_bps of payload, a QP at most its tenant's cap (progressive
 * filling). The expected share of a backlogged QP under a fair congestion control. */
static void max_min_share(const model *m, double *share)
{
    uint32_t nq = m->nqps, per_host = m->o.tenants * m->o.qps, i, h, left = nq;
    double line = (double)m->line_bps, level = 0;
    char *frozen = (char *)calloc(nq, 1);
    double *host_used = (double *)calloc(m->o.hosts, sizeof *host_used);
    if (!frozen || !host_used) {
        fprintf(stderr, "rnic_model: out of memory\n");
        exit(1);
    }
    while (left) {
        double step = 1e300, total = 0;
        uint32_t active_total = 0;
        for (i = 0; i < nq; i++) /* the next constraint to bind as all unfrozen QPs rise together */
            if (!frozen[i]) {
                double cap = (double)m->o.cap_bps[(i % per_host) / m->o.qps];
                active_total++;
                if (cap > 0 && cap - level < step)
                    step = cap - level;
            }
        for (h = 0; h < m->o.hosts; h++) {
            uint32_t a = 0;
            for (i = h * per_host; i < (h + 1u) * per_host; i++)
                a += !frozen[i];
            if (a && (line - host_used[h]) / a - level < step)
                step = (line - host_used[h]) / a - level;
        }
        for (i = 0; i < nq; i++)
            total += frozen[i] ? share[i] : 0;
        if ((line - total) / active_total - level < step)
            step = (line - total) / active_total - level;
        level += step > 0 ? step : 0;
        /* freeze the QPs whose constraint binds at this level */
        {
            int receiver_binds = (line - total) / active_total <= level * (1 + 1e-12);
            uint32_t froze = 0;
            for (i = 0; i < nq; i++) {
                uint32_t hh = i / per_host, a = 0, j;
                double cap = (double)m->o.cap_bps[(i % per_host) / m->o.qps];
                if (frozen[i])
                    continue;
                for (j = hh * per_host; j < (hh + 1u) * per_host; j++)
                    a += !frozen[j];
                if (receiver_binds || (cap > 0 && cap <= level * (1 + 1e-12)) ||
                    (line - host_used[hh]) / a <= level * (1 + 1e-12)) {
                    share[i] = level;
                    frozen[i] = 2; /* frozen this round: host_used counts it below */
                    froze++;
                }
            }
            for (i = 0; i < nq; i++)
                if (frozen[i] == 2) {
                    frozen[i] = 1;
                    host_used[i / per_host] += share[i];
                    left--;
                }
            if (!froze)
                break;
        }
    }
    free(frozen);
    free(host_used);
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

/* A command-line error: one line on stderr naming the argument and why, exit status 2. */
static void bad_arg(const char *fmt, ...)
{
    va_list ap;
    fputs("rnic_model: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(rnic_model --help lists every option)\n", stderr);
    exit(2);
}

/* A whole decimal number in [lo, hi]: digits only (leading zeros are still decimal: 010 is ten;
 * no sign, blank, 0x or suffix); anything else is refused naming the option. */
static uint64_t parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
    const char *c;
    unsigned long long v;
    for (c = s; *c >= '0' && *c <= '9'; c++)
        ;
    if (c == s || *c)
        bad_arg("%s: '%s' is not a decimal number%s", opt, s,
                s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? " (hexadecimal is not accepted)" : "");
    errno = 0;
    v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        bad_arg("%s: %s is out of range %llu..%llu", opt, s, (unsigned long long)lo, (unsigned long long)hi);
    return v;
}

/* A comma-separated list of 1 .. max numbers in [lo, hi]; returns how many. */
static uint32_t parse_list(const char *opt, const char *s, uint64_t *out, uint32_t max, uint64_t lo, uint64_t hi)
{
    char item[64];
    const char *all = s;
    uint32_t n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (n == max || len == 0 || len >= sizeof item)
            bad_arg("%s: '%s' is not a list of 1..%u comma-separated numbers", opt, all, max);
        memcpy(item, s, len);
        item[len] = 0;
        out[n++] = parse_u64(opt, item, lo, hi);
        s += len;
        if (*s == ',' && !*++s)
            bad_arg("%s: '%s' ends in a comma", opt, all);
    }
    if (!n)
        bad_arg("%s: '' is not a list of 1..%u comma-separated numbers", opt, max);
    return n;
}

/* The index of v in names[0 .. n-1]; anything else is refused naming the option and the choices. */
static int parse_choice(const char *opt, const char *v, const char *const *names, int n)
{
    char list[128] = "";
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(v, names[i]))
            return i;
    for (i = 0; i < n; i++) {
        strncat(list, names[i], sizeof list - strlen(list) - 1u);
        if (i + 1 < n)
            strncat(list, i + 2 < n ? ", " : " or ", sizeof list - strlen(list) - 1u);
    }
    bad_arg("%s: '%s' is not one of %s", opt, v, list);
    return 0;
}

static const char *const off_on[2] = { "off", "on" };
static const char *const on_off[2] = { "on", "off" };
static const char *const sched_name[2] = { "palos", "qos" };
static const char *const probe_ts_name[2] = { "head", "arrival" };
static const char *const slack_name[2] = { "fast-down", "uniform" };

/* The options that take a value (a missing value is named as such, an unknown option as unknown). */
static const char *const value_opts[] = {
    "--hosts", "--tenants", "--qps", "--weights", "--rates-mbps", "--sizes", "--depth", "--payload", "--dcqcn",
    "--cnp-interval-us", "--loss-ppm", "--pfc", "--duration-us", "--warmup-us", "--seed", "--lat-samples", "--csv",
    "--queue-csv", "--pcap", "--snaplen", "--trace-csv", "--vcd", "--sched", "--poll-cycles", "--qos-timeout-us",
    "--host", "--cpu-load", "--rhcc", "--ddio", "--probe-ts", "--rhcc-slack", "--cpu-outstanding", "--rx-footprint-mb"
};

static int takes_value(const char *a)
{
    size_t i;
    for (i = 0; i < sizeof value_opts / sizeof value_opts[0]; i++)
        if (!strcmp(a, value_opts[i]))
            return 1;
    return 0;
}

/* The built-in scenario (make run): a 2:1 incast of two tenants. */
static void options_default(options *o)
{
    uint32_t t;
    memset(o, 0, sizeof *o);
    o->hosts = 2;     /* a 2:1 incast */
    o->tenants = 2;   /* tenant 0: the incast's bulk messages; tenant 1: background, small messages */
    o->qps = 8;
    for (t = 0; t < MAX_TENANTS; t++) {
        o->weight[t] = 1;
        o->cap_bps[t] = 0;
        o->min_msg[t] = t == 0 ? 65536u : 1024u;
        o->max_msg[t] = t == 0 ? 1048576u : 16384u;
    }
    o->depth = 8;
    o->payload = 1024;
    o->cnp_interval_us = 50;
    o->dcqcn_variant = 2; /* htsim: at 100 Gb/s the paper's 40 Mb/s step needs ~60 ms to recover a cut */
    o->duration_us = 10000;
    o->warmup_us = 2000;
    o->seed = 1;
    o->snaplen = 128;
    o->poll_cycles = 250; /* qos: 1 us */
    o->host_on = 1;       /* the receiving host, at the paper's 3x CPU memory traffic, RHCC on both sides */
    o->cpu_load_x = 3;
    o->rhcc = RHCC_BOTH;
    o->ddio = 1;
    o->footprint_mb = 16;
    o->lat_samples = RM_LAT_SAMPLES_DEFAULT;
    o->cpu_outstanding = 400; /* dual Xeon 6240: 36 cores x ~11 line-fill buffers (Choice: docs/hostcc_model.md) */
}

/* --help: on stdout, one line per option: meaning [unit]; default; range (the defaults are the
 * ones options_default sets, the ranges the ones the parser in main checks). */
static void usage(void)
{
    options d;
    options_default(&d);
    printf("usage: rnic_model [OPTION VALUE | FLAG]...\n"
           "The composed RNIC: H sender hosts x T tenants x N QPs -> one receiving host (an H:1 incast) at %llu Gb/s,\n"
           "one %u MHz clock; a RESULT line at the end. Numbers are whole decimal numbers (010 is ten).\n"
           "Each line: option, meaning [unit]; default; range.\n",
           (unsigned long long)(LINK_BPS / 1000000000u), (unsigned)(CLOCK_HZ / 1000000u));
    printf("a fabric (issue 30; docs/scenario.md, docs/fabric_model.md):\n");
    printf("  --scenario FILE        run a scenario file on the fabric of full-duplex NICs and switches instead; then only\n"
           "                         --set section.key=value (repeatable), --tick-only, --quiet, --trace-csv FILE,\n"
           "                         --flows-json FILE, --shares-csv FILE, --pcap FILE, --csv FILE, --queue-csv FILE,\n"
           "                         --links-csv FILE and --vcd FILE apply; default none (the fixed incast below)\n");
    printf("scenario:\n");
    printf("  --hosts H              sender hosts [hosts]; default %u; range 1..16\n", d.hosts);
    printf("  --tenants T            tenants on each sender host [tenants]; default %u; range 1..%u\n", d.tenants,
           MAX_TENANTS);
    printf("  --qps N                QPs per tenant per host [QPs]; default %u; range 1..1024 (--sched qos: 1..32)\n",
           d.qps);
    printf("  --weights W,..         Palos weight of each tenant, the last one repeats [weight]; default %u each; "
           "range 1..65535, at most one per tenant\n", d.weight[0]);
    printf("  --rates-mbps R,..      rate cap of each tenant's QPs on Tassel's registers, the last one repeats [Mb/s]; "
           "default none (DCQCN alone); range 1..800000, at most one per tenant\n");
    printf("  --sizes MIN,MAX[,..]   message sizes of each tenant, uniform in MIN..MAX, the last pair repeats [bytes]; "
           "default %u,%u,%u,%u; range 1..1073741824, MIN <= MAX\n", d.min_msg[0], d.max_msg[0], d.min_msg[1],
           d.max_msg[1]);
    printf("  --depth D              messages posted per QP at a time [messages]; default %u; range 1..4096\n", d.depth);
    printf("  --payload B            segment (RoCEv2 packet payload) size [bytes]; default %u; range 256..4096\n",
           d.payload);
    printf("  --dcqcn V              DCQCN parameters: htsim (the paper's algorithm, increase steps scaled to the "
           "link), paper or mellanox; default %s\n", variant_name[d.dcqcn_variant]);
    printf("  --cnp-interval-us U    least time between two CNPs of a flow [us]; default %u; range 1..1000000\n",
           d.cnp_interval_us);
    printf("  --loss-ppm P           random loss of packets toward the receiver [per million]; default %u; "
           "range 0..100000\n", d.loss_ppm);
    printf("  --pfc on|off           PFC at the switch and the receiving host (off: CE marks only); default %s\n",
           on_off[d.no_pfc]);
    printf("  --duration-us U        simulated time, the drain not included [us]; default %llu; range 2..1000000000\n",
           (unsigned long long)d.duration_us);
    printf("  --warmup-us U          start of the measurement window [us]; default %llu; range 0..1000000000, "
           "below --duration-us\n", (unsigned long long)d.warmup_us);
    printf("  --seed S               seed of the message sizes, ECN marking and losses; default %llu; range 0..%llu\n",
           (unsigned long long)d.seed, (unsigned long long)UINT64_MAX);
    printf("  --sched palos|qos      the slicer: Palos, or the RED-SEA QoS engine; default %s\n",
           sched_name[d.sched_qos]);
    printf("  --poll-cycles P        --sched qos: the host's status polling period [cycles]; default %u; "
           "range 1..1000000000\n", d.poll_cycles);
    printf("  --qos-timeout-us U     --sched qos: the engine's retransmission timeout, 0 = from DCQCN's rate floor "
           "[us]; default %llu; range 0..1000000\n", (unsigned long long)d.qos_timeout_us);
    printf("receiving host (hostcc.h):\n");
    printf("  --host on|off          the receiving host's data path (RX buffer, PCIe, IIO, memory); default %s\n",
           off_on[d.host_on]);
    printf("  --cpu-load X           CPU memory traffic, the paper's 0x..3x [level]; default %u; range 0..3\n",
           d.cpu_load_x);
    printf("  --rhcc M               RHCC controllers: off, rx, tx, both or ecn (hostCC-style CE marks); default %s\n",
           rhcc_name[d.rhcc]);
    printf("  --ddio on|off          DDIO (writes into the LLC); default %s\n", off_on[d.ddio]);
    printf("  --rx-footprint-mb N    receive buffers' total size [MB]; default %u; range 1..4096\n", d.footprint_mb);
    printf("  --probe-ts head|arrival  a probe's receive stamp: at the RX buffer's head or at its entry; default %s\n",
           probe_ts_name[d.probe_ts_arrival]);
    printf("  --cpu-outstanding N    CPU cache lines in flight at most [lines]; default %u; range 1..1048576\n",
           d.cpu_outstanding);
    printf("  --rhcc-slack fast-down|uniform  fast-down: a step down right after a step up skips hostCC's slack; "
           "uniform: the slack before every step; default %s\n", slack_name[d.uniform_slack]);
    printf("output:\n");
    printf("  --csv FILE             per-QP results as CSV; default none\n");
    printf("  --queue-csv FILE       the bottleneck queue every 10 us as CSV; default none\n");
    printf("  --pcap FILE            every packet as a RoCEv2 pcap; default none\n");
    printf("  --snaplen B            --pcap: bytes kept of each frame [bytes]; default %u; range 64..65535\n",
           d.snaplen);
    printf("  --trace-csv FILE       every engine's trace events as CSV; default none\n");
    printf("  --vcd FILE             the engines' ports as a VCD waveform; default none\n");
    printf("  --lat-samples N|all    latencies kept for the FCT percentiles (then a uniform sample; all: every one) "
           "[samples]; default %lu; range 1..268435456 or all\n", (unsigned long)d.lat_samples);
    printf("  --quiet                no scenario lines before the run; the RESULT line only\n");
    printf("  --tick-only            tick every cycle instead of fast-forwarding (the same digest)\n");
    printf("  --progress-log         progress lines on stderr (tools/soak.sh)\n");
    printf("  --help, -h             this text, exit status 0; a bad option exits 2 naming it\n");
    exit(0);
}

static void open_vcd(model *m)
{
    const options *o = &m->o;
    rm_vcd_port ports[RM_VCD_MAX_PORTS];
    uint32_t np = 0, h;
    for (h = 0; h < o->hosts && np + 5u < RM_VCD_MAX_PORTS; h++) { /* each host's slicer output and Tassel's TX */
        snprintf(m->vcd_names[np], sizeof m->vcd_names[np], "host%u_%s_out", h, o->sched_qos ? "qos" : "palos");
        ports[np].engine = (uint16_t)((o->sched_qos ? RNIC_ENGINE_QOS : RNIC_ENGINE_PALOS) + 32u * h);
        ports[np].kind = RNIC_TRACE_OUT;
        ports[np].name = m->vcd_names[np];
        np++;
        snprintf(m->vcd_names[np], sizeof m->vcd_names[np], "host%u_tassel_tx", h);
        ports[np].engine = (uint16_t)(RNIC_ENGINE_TASSEL + 32u * h);
        ports[np].kind = RNIC_TRACE_OUT;
        ports[np].name = m->vcd_names[np];
        np++;
    }
    ports[np].engine = (uint16_t)RNIC_ENGINE_MODEL, ports[np].kind = 1, ports[np].name = "host_post", np++;
    ports[np].engine = (uint16_t)(RNIC_ENGINE_MODEL + 2u), ports[np].kind = 3, ports[np].name = "receiver_packet", np++;
    if (rm_vcd_open(&m->vcd, o->vcd, ports, np, CLOCK_HZ) != 0) {
        perror(o->vcd);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    model m;
    options *o = &m.o;
    uint64_t tmp[2u * MAX_TENANTS], end, window_cycles, total_posted = 0;
    {
        int a;
        for (a = 1; a < argc; a++)
            if (!strcmp(argv[a], "--scenario"))
                return fm_main(argc, argv); /* a scenario file runs on the fabric */
    }
    double t0, host_s;
    uint32_t h, t, i;
    int k;
    uint32_t nparsed, weights_given = 0, rates_given = 0, sizes_given = 0;
    int host_opts_given = 0;
    int drained;
    uint64_t bytes_lost = 0; /* the exit status is 3 unless the run drained and lost nothing */
    double rev_sum = 0, rcc_sum = 0;
    uint32_t rev_n = 0;

    memset(&m, 0, sizeof m);
    options_default(o);
    for (k = 1; k < argc; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--tick-only")) { o->tick_only = 1; continue; }
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--progress-log")) { o->progress_log = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
        if (!takes_value(a))
            bad_arg("unknown option '%s'", a);
        if (!v)
            bad_arg("%s needs a value", a);
        k++;
        if (!strcmp(a, "--hosts")) o->hosts = (uint32_t)parse_u64(a, v, 1, 16);
        else if (!strcmp(a, "--tenants")) o->tenants = (uint32_t)parse_u64(a, v, 1, MAX_TENANTS);
        else if (!strcmp(a, "--qps")) o->qps = (uint32_t)parse_u64(a, v, 1, 1024);
        else if (!strcmp(a, "--weights")) { /* one per tenant; the last one repeats */
            nparsed = parse_list(a, v, tmp, MAX_TENANTS, 1, 65535);
            for (t = 0; t < MAX_TENANTS; t++)
                o->weight[t] = (uint32_t)tmp[t < nparsed ? t : nparsed - 1u];
            weights_given = nparsed;
        } else if (!strcmp(a, "--rates-mbps")) { /* per-tenant caps on the rate register, 1 Mb/s .. 800 Gb/s */
            nparsed = parse_list(a, v, tmp, MAX_TENANTS, 1, 800000);
            for (t = 0; t < MAX_TENANTS; t++)
                o->cap_bps[t] = tmp[t < nparsed ? t : nparsed - 1u] * 1000000ull;
            rates_given = nparsed;
        } else if (!strcmp(a, "--sizes")) { /* MIN,MAX per tenant; the last pair repeats */
            nparsed = parse_list(a, v, tmp, 2u * MAX_TENANTS, 1, 1u << 30);
            if (nparsed % 2u)
                bad_arg("%s: '%s' is not a list of MIN,MAX pairs", a, v);
            for (t = 0; t < MAX_TENANTS; t++) {
                uint32_t pr = t < nparsed / 2u ? t : nparsed / 2u - 1u;
                o->min_msg[t] = (uint32_t)tmp[2u * pr];
                o->max_msg[t] = (uint32_t)tmp[2u * pr + 1u];
                if (o->max_msg[t] < o->min_msg[t])
                    bad_arg("%s: '%s': MIN %u is above MAX %u", a, v, o->min_msg[t], o->max_msg[t]);
            }
            sizes_given = nparsed / 2u;
        } else if (!strcmp(a, "--depth")) o->depth = (uint32_t)parse_u64(a, v, 1, 4096);
        else if (!strcmp(a, "--payload")) o->payload = (uint32_t)parse_u64(a, v, 256, 4096);
        else if (!strcmp(a, "--dcqcn")) o->dcqcn_variant = parse_choice(a, v, variant_name, 3); /* 0 paper, 1 mellanox, 2 htsim */
        else if (!strcmp(a, "--cnp-interval-us")) o->cnp_interval_us = (uint32_t)parse_u64(a, v, 1, 1000000);
        else if (!strcmp(a, "--loss-ppm")) o->loss_ppm = (uint32_t)parse_u64(a, v, 0, 100000);
        else if (!strcmp(a, "--pfc")) o->no_pfc = parse_choice(a, v, on_off, 2);
        else if (!strcmp(a, "--duration-us")) o->duration_us = parse_u64(a, v, 2, 1000000000ull); /* up to 1,000 s */
        else if (!strcmp(a, "--warmup-us")) o->warmup_us = parse_u64(a, v, 0, 1000000000ull);
        else if (!strcmp(a, "--seed")) o->seed = parse_u64(a, v, 0, UINT64_MAX);
        else if (!strcmp(a, "--lat-samples")) /* all: 0, keep every latency */
            o->lat_samples = v && !strcmp(v, "all") ? 0 : (size_t)parse_u64(a, v, 1, 1u << 28);
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--queue-csv")) o->queue_csv = v;
        else if (!strcmp(a, "--pcap")) o->pcap = v;
        else if (!strcmp(a, "--snaplen")) o->snaplen = (uint32_t)parse_u64(a, v, 64, 65535);
        else if (!strcmp(a, "--trace-csv")) o->trace_csv = v;
        else if (!strcmp(a, "--vcd")) o->vcd = v;
        else if (!strcmp(a, "--sched")) o->sched_qos = parse_choice(a, v, sched_name, 2);
        else if (!strcmp(a, "--poll-cycles")) o->poll_cycles = (uint32_t)parse_u64(a, v, 1, 1000000000ull);
        else if (!strcmp(a, "--qos-timeout-us")) o->qos_timeout_us = parse_u64(a, v, 0, 1000000u);
        else if (!strcmp(a, "--host")) o->host_on = parse_choice(a, v, off_on, 2);
        else if (!strcmp(a, "--cpu-load") && (host_opts_given = 1)) o->cpu_load_x = (uint32_t)parse_u64(a, v, 0, 3);
        else if (!strcmp(a, "--rhcc") && (host_opts_given = 1)) o->rhcc = parse_choice(a, v, rhcc_name, 5);
        else if (!strcmp(a, "--ddio") && (host_opts_given = 1)) o->ddio = parse_choice(a, v, off_on, 2);
        else if (!strcmp(a, "--probe-ts") && (host_opts_given = 1)) o->probe_ts_arrival = parse_choice(a, v, probe_ts_name, 2);
        else if (!strcmp(a, "--rhcc-slack") && (host_opts_given = 1)) o->uniform_slack = parse_choice(a, v, slack_name, 2);
        else if (!strcmp(a, "--cpu-outstanding") && (host_opts_given = 1)) o->cpu_outstanding = (uint32_t)parse_u64(a, v, 1, 1u << 20);
        else if (!strcmp(a, "--rx-footprint-mb") && (host_opts_given = 1)) o->footprint_mb = (uint32_t)parse_u64(a, v, 1, 4096);
        else bad_arg("unknown option '%s'", a); /* in value_opts but not parsed here */
    }
    if (!o->host_on && host_opts_given)
        fprintf(stderr, "rnic_model: --host off: the receiving host's options (--cpu-load, --rhcc, ...) do nothing\n");
    if (o->warmup_us >= o->duration_us)
        bad_arg("--warmup-us %llu must be shorter than --duration-us %llu", (unsigned long long)o->warmup_us,
                (unsigned long long)o->duration_us);
    if (weights_given && o->sched_qos) {
        fprintf(stderr, "rnic_model: --weights are Palos's; the QoS engine (--sched qos) has no tenant weights\n");
        exit(2);
    }
    if (weights_given > o->tenants || rates_given > o->tenants || sizes_given > o->tenants) {
        fprintf(stderr, "rnic_model: %u tenants but %u weights, %u rates and %u size pairs given\n", o->tenants,
                weights_given, rates_given, sizes_given);
        exit(2);
    }
    m.line_bps = LINK_BPS * o->payload / (o->payload + WIRE_OVERHEAD); /* payload capacity of a link */
    for (t = 0; t < o->tenants; t++)
        if (o->cap_bps[t] > m.line_bps) { /* what the rate register would do: clamp to its link */
            fprintf(stderr, "rnic_model: tenant %u's cap %.3f Gb/s is above the link's payload rate (%.3f Gb/s): "
                            "clamped to it\n", t, (double)o->cap_bps[t] / 1e9, (double)m.line_bps / 1e9);
            o->cap_bps[t] = m.line_bps;
        }
    tp_dcqcn_preset(&m.dcqcn, o->dcqcn_variant == 1 ? TP_DCQCN_MELLANOX : TP_DCQCN_PAPER);
    if (o->dcqcn_variant == 2) { /* htsim: the paper's algorithm, increase steps scaled to the link */
        m.dcqcn.rai_bps = m.line_bps / 20u;
        m.dcqcn.rhai_bps = m.line_bps / 10u;
    }
    m.proto = *tp_protocol_dcqcn();
    m.proto.config = &m.dcqcn;

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
    m.nics = (nic *)calloc(o->hosts, sizeof *m.nics);
    if (!m.nics || rm_receiver_init(&m.rx, m.nflows, o->lat_samples, o->seed)) {
        fprintf(stderr, "rnic_model: out of memory\n");
        return 1;
    }
    m.rx.latency_at_host = o->sched_qos;
    m.rx.accept_duplicates = o->sched_qos; /* a block resent on a QoS timeout arrives twice */
    if (o->csv && !(m.csv = fopen(o->csv, "w"))) { /* opened now: a bad path fails before the run */
        perror(o->csv);
        return 1;
    }
    if (o->queue_csv) {
        if (!(m.queue_csv = fopen(o->queue_csv, "w"))) {
            perror(o->queue_csv);
            return 1;
        }
        fprintf(m.queue_csv, "time_us,queue_bytes\n");
    }
    if (o->pcap) {
        if (roce_pcap_open(&m.pcap, o->pcap, o->snaplen) != 0) {
            perror(o->pcap);
            return 1;
        }
        m.pcap_on = 1;
    }
    receiver_init(&m);
    for (h = 0; h < o->hosts; h++)
        nic_init(&m, &m.nics[h], h);
    if (o->vcd)
        open_vcd(&m);

    end = rnic_ns_to_cycles(o->duration_us * 1000u, CLOCK_HZ);
    m.rx.window_start = rnic_ns_to_cycles(o->warmup_us * 1000u, CLOCK_HZ);
    m.rx.window_end = end;
    window_cycles = m.rx.window_end - m.rx.window_start;

    if (!o->quiet) {
        printf("rnic_model: %u sender hosts x %u tenants x %u QPs = %u QPs -> 1 receiver (a %u:1 incast); %u MHz "
               "clock, %llu Gb/s links, %u B segments; PCIe %llu Gb/s / %u ns; %s\n",
               o->hosts, o->tenants, o->qps, m.nqps, o->hosts, (unsigned)(CLOCK_HZ / 1000000u),
               (unsigned long long)(LINK_BPS / 1000000000u), o->payload, (unsigned long long)(PCIE_BPS / 1000000000u),
               (unsigned)PCIE_LATENCY_NS, o->tick_only ? "ticking every cycle" : "fast-forward");
        printf("  per host: %s -> transport.h RoCEv2 + DCQCN (%s variant, CNP every %u us at most) -> Tassel (rate "
               "registers set by DCQCN) -> DMA -> MAC; switch: %llu MB shared buffer, RED ECN %llu .. %llu KB, "
               "PFC %s%s; %llu us (%llu us warm-up)\n",
               o->sched_qos ? "QoS engine" : "Palos chunk slicer", variant_name[o->dcqcn_variant],
               o->cnp_interval_us, (unsigned long long)(SWITCH_BUFFER >> 20), (unsigned long long)(ECN_KMIN >> 10),
               (unsigned long long)(ECN_KMAX >> 10), o->no_pfc ? "off" : "on", o->loss_ppm ? ", random loss to the receiver" : "", (unsigned long long)o->duration_us,
               (unsigned long long)o->warmup_us);
        if (o->host_on)
            printf("  receiving host (hostcc.h): RX buffer 256 KB, PFC %s, PCIe 128 Gb/s on IIO credits, memory 33.2 "
                   "GB/s shared with %.1f GB/s of CPU traffic (%ux), DDIO %s, %u MB of receive buffers; RHCC %s%s\n",
                   o->no_pfc ? "off (CE marks)" : "on", (double)cpu_load_Bps[o->cpu_load_x] / 1e9, o->cpu_load_x,
                   o->ddio ? "4 MB" : "off", o->footprint_mb, rhcc_name[o->rhcc],
                   o->rhcc == RHCC_TX || o->rhcc == RHCC_BOTH ? " (Tassel's registers = min(R_rev, DCQCN))" : "");
        for (t = 0; t < o->tenants; t++) {
            printf("  tenant %u: messages %u B .. %u B, ", t, o->min_msg[t], o->max_msg[t]);
            if (o->sched_qos) /* one transfer in flight per QP; the engine serves the domains alike */
                printf("1 in flight per QP, QoS engine domain (no weights), rate cap ");
            else
                printf("%u posted per QP, Palos weight %u, rate cap ", o->depth, o->weight[t]);
            if (o->cap_bps[t])
                printf("%.3f Gb/s\n", (double)o->cap_bps[t] / 1e9);
            else
                printf("none\n");
        }
        fflush(stdout);
    }

    t0 = (double)clock() / CLOCKS_PER_SEC;
    m.next_sample = 0;
    run_until(&m, end, 0, end, t0);
    if (o->host_on) { /* the window's end: host counters and the RHCC sender's registers */
        m.hw1 = *hcc_host_get_stats(&m.hh);
        m.occ1 = hcc_host_iio_occupancy_cum(&m.hh);
        m.mba_w1 = m.mba_writes;
        m.probes_w1 = probes_sent(&m);
        m.level_w1 = hcc_host_mba_level(&m.hh);
        m.hw1_taken = 1;
        for (h = 0; h < o->hosts; h++)
            for (i = 0; i < m.nflows && m.nics[h].htx_on; i++) {
                hcc_tx_flow_view hf;
                if (hcc_tx_flow_state(&m.nics[h].htx, i, &hf) == RNIC_OK && hf.open) {
                    rev_sum += (double)hf.r_rev;
                    rcc_sum += (double)hf.r_cc;
                    rev_n++;
                }
            }
    }
    for (h = 0; h < o->hosts; h++) {
        m.nics[h].host.posting = false;
        m.nics[h].qh.posting = false;
    }
    drained = run_until(&m, end + rnic_ns_to_cycles(100000000u, CLOCK_HZ), 1, end, t0); /* drain: at most 100 ms */
    host_s = (double)clock() / CLOCKS_PER_SEC - t0;
    if (o->progress_log) /* the simulation is over: what follows (the report) is not the run's memory */
        fprintf(stderr, "progress report cycle=%llu\n", (unsigned long long)m.now);
    if (!o->quiet && isatty(2))
        fprintf(stderr, "\r%90s\r", "");

    /* ---------------- report ---------------- */
    {
        double tenant_got[MAX_TENANTS] = { 0 }, tenant_exp[MAX_TENANTS] = { 0 }, tenant_msgs[MAX_TENANTS] = { 0 };
        double worst_share = 0, win_s = (double)window_cycles / (double)CLOCK_HZ, jain_sum = 0, jain_sq = 0;
        double *share = (double *)calloc(m.nqps, sizeof *share);
        uint64_t received = 0, qos_errors = 0, qos_failed = 0, qos_resubmits = 0, drops = 0, rate_changes = 0, timeouts = 0;
        uint64_t pfc_pauses = 0, paused_cycles = 0;
        const tp_rx_stats *rs = tp_rx_get_stats(&m.rxe);
        FILE *csv = m.csv;
        const rm_lat_store *ls = &m.rx.lat; /* every latency, or a uniform sample of them (lat_store.h) */
        uint64_t *lat = (uint64_t *)malloc((ls->n + 1u) * sizeof *lat);
        double fct50, fct99, fct_sum = 0, rx_gbps = 0;
        hcc_host_stats hd; /* the host's counters over the window */
        if (!share || !lat) {
            fprintf(stderr, "rnic_model: out of memory\n");
            return 1;
        }
        max_min_share(&m, share);
        if (csv)
            fprintf(csv, "qp,host,tenant,weight,cap_gbps,expected_gbps,gbps,err_pct,msgs_per_s,bytes_posted,bytes_received,"
                         "fct_p50_us,fct_p99_us,rate_gbps_end\n");
        /* per-QP latency percentiles: the window's latencies sorted by (flow, latency) */
        for (i = 0; i < ls->n; i++)
            lat[i] = ((uint64_t)ls->flow[i] << 40) | (ls->lat[i] < (1ull << 40) ? ls->lat[i] : (1ull << 40) - 1u);
        qsort(lat, ls->n, sizeof *lat, cmp_u64);
        for (i = 0; i < m.nqps; i++) {
            uint32_t f = qp_flow(&m, i);
            nic *n = &m.nics[host_of(&m, f)];
            uint64_t posted = o->sched_qos ? n->qh.qp[i % (o->tenants * o->qps)].posted_bytes
                                           : n->host.gen[f - n->host.first_flow].posted_bytes;
            uint32_t tn = tenant_of(&m, f);
            double exp_gbps = share[i] / 1e9;
            double got = (double)m.rx.f[f].window_bytes * 8 / win_s / 1e9;
            tp_flow_view fv;
            tenant_got[tn] += got;
            tenant_exp[tn] += exp_gbps;
            tenant_msgs[tn] += (double)m.rx.f[f].window_msgs / win_s;
            jain_sum += got / exp_gbps;
            jain_sq += (got / exp_gbps) * (got / exp_gbps);
            total_posted += posted;
            received += m.rx.f[f].bytes;
            tp_flow_state(&n->tx, f, &fv);
            if (csv) {
                size_t lo = 0, hi, count = ls->n;
                while (count) { /* first latency of flow f: binary search on the sorted keys */
                    size_t half = count / 2u;
                    if ((lat[lo + half] >> 40) < f) {
                        lo += half + 1u;
                        count -= half + 1u;
                    } else
                        count = half;
                }
                for (hi = lo; hi < ls->n && (lat[hi] >> 40) == f; hi++)
                    ;
                fprintf(csv, "%u,%u,%u,%u,%.6f,%.6f,%.6f,%.4f,%.1f,%llu,%llu,%.3f,%.3f,%.6f\n", i, host_of(&m, f), tn,
                        o->weight[tn], (double)o->cap_bps[tn] / 1e9, exp_gbps, got, (got - exp_gbps) / exp_gbps * 100,
                        (double)m.rx.f[f].window_msgs / win_s, (unsigned long long)posted,
                        (unsigned long long)m.rx.f[f].bytes,
                        hi > lo ? (double)(lat[lo + (size_t)(0.50 * (double)(hi - lo - 1u) + 0.5)] & ((1ull << 40) - 1u)) / (double)CLOCK_HZ * 1e6 : 0.0,
                        hi > lo ? (double)(lat[lo + (size_t)(0.99 * (double)(hi - lo - 1u) + 0.5)] & ((1ull << 40) - 1u)) / (double)CLOCK_HZ * 1e6 : 0.0,
                        (double)fv.rate_bps / 1e9);
            }
        }
        if (csv)
            fclose(csv);
        free(share);
        for (h = 0; h < o->hosts; h++) {
            const tp_stats *ts = tp_get_stats(&m.nics[h].tx);
            rate_changes += m.nics[h].rate_changes;
            timeouts += ts->timeouts;
            if (o->sched_qos) {
                qos_errors += m.nics[h].qh.model_errors; /* a transfer's ERROR is resubmitted, not lost */
                qos_failed += m.nics[h].qh.transfer_errors;
                qos_resubmits += m.nics[h].qh.resubmits;
            }
        }
        for (k = 0; k < (int)NET_DROP__COUNT; k++)
            drops += m.sw.stats.dropped[k];
        for (h = 0; h <= o->hosts; h++) {
            pfc_pauses += m.sw.port[h].stats.pfc_xoff;
            paused_cycles += h < o->hosts ? m.nics[h].up.stats.paused_cycles : m.rx_up.stats.paused_cycles;
        }
        for (i = 0; i < ls->n; i++)
            lat[i] = ls->lat[i];
        fct_sum = (double)ls->sum; /* over every latency, kept or not */
        qsort(lat, ls->n, sizeof *lat, cmp_u64);
        fct50 = pct(lat, ls->n, 50) / (double)CLOCK_HZ * 1e6;
        fct99 = pct(lat, ls->n, 99) / (double)CLOCK_HZ * 1e6;
        if (!o->quiet)
            printf("\n  tenant  QPs  expected Gb/s  measured Gb/s   err %%   msgs/s      FCT p50 / p99 / p99.9 (us)\n");
        for (t = 0; t < o->tenants; t++) {
            size_t nl = 0, j;
            double e = (tenant_got[t] - tenant_exp[t]) / tenant_exp[t] * 100;
            for (j = 0; j < ls->n; j++)
                if (tenant_of(&m, ls->flow[j]) == t)
                    lat[nl++] = ls->lat[j];
            qsort(lat, nl, sizeof *lat, cmp_u64);
            rx_gbps += tenant_got[t];
            if ((e < 0 ? -e : e) > worst_share)
                worst_share = e < 0 ? -e : e;
            if (!o->quiet)
                printf("  %6u  %3u  %13.3f  %13.3f  %+6.2f  %9.0f   %8.2f / %8.2f / %8.2f\n", t, o->qps * o->hosts,
                       tenant_exp[t], tenant_got[t], e, tenant_msgs[t], pct(lat, nl, 50) / (double)CLOCK_HZ * 1e6,
                       pct(lat, nl, 99) / (double)CLOCK_HZ * 1e6, pct(lat, nl, 99.9) / (double)CLOCK_HZ * 1e6);
        }
        free(lat);
        if (!o->quiet) {
            const net_port_stats *ps = &m.sw.port[o->hosts].stats;
            printf("\n  DCQCN: %llu CE-marked packets, %llu CNPs (at most one per QP per %u us), %llu rate-register "
                   "writes; RoCE: %llu ACKs, %llu NAKs, %llu retransmitted packets, %llu timeouts\n",
                   (unsigned long long)ps->marked, (unsigned long long)m.cnps_out, o->cnp_interval_us,
                   (unsigned long long)rate_changes, (unsigned long long)m.acks_out, (unsigned long long)m.naks_out,
                   (unsigned long long)m.rtx_pkts, (unsigned long long)timeouts);
            printf("  PFC %s: %llu PAUSE frames (first of a pause; %llu frames in all), senders' links paused %.1f us\n",
                   o->no_pfc ? "off" : "on", (unsigned long long)pfc_pauses, (unsigned long long)m.pfc_frames,
                   (double)paused_cycles / (double)CLOCK_HZ * 1e6);
            printf("  switch: bottleneck queue max %.1f KB, mean %.1f KB (every %u us%s); buffer max %llu B of %llu; "
                   "%llu dropped (%llu at random)\n",
                   (double)m.queue_max / 1024.0,
                   m.queue_samples ? (double)m.queue_sum / (double)m.queue_samples / 1024.0 : 0.0, QUEUE_SAMPLE_NS / 1000u,
                   o->queue_csv ? ", --queue-csv has them" : "", (unsigned long long)m.sw.stats.max_occupancy,
                   (unsigned long long)SWITCH_BUFFER, (unsigned long long)drops,
                   (unsigned long long)m.sw.stats.dropped[NET_DROP_RANDOM]);
            for (h = 0; h < o->hosts; h++) {
                const rl_stats *rls = rl_get_stats(&m.nics[h].tassel);
                const tp_stats *ts = tp_get_stats(&m.nics[h].tx);
                printf("  host %u: transport %llu messages, %llu segments (%llu resent), %llu completions; Tassel %llu "
                       "packets, %llu TX stalls; DMA max %u in flight\n",
                       h, (unsigned long long)ts->messages, (unsigned long long)ts->segments_out,
                       (unsigned long long)ts->segments_rtx, (unsigned long long)ts->completions,
                       (unsigned long long)rls->packets, (unsigned long long)rls->tx_stalls, m.nics[h].dma.high_water);
                if (o->sched_qos) {
                    const rq_qos_stats *qs = rq_qos_get_stats(&m.nics[h].qos);
                    printf("          QoS engine %llu transfers done, %llu failed, %llu blocks, %llu ACKs, %llu "
                           "timeouts, %llu retransmits\n",
                           (unsigned long long)qs->done, (unsigned long long)qs->failed, (unsigned long long)qs->blocks,
                           (unsigned long long)qs->acks, (unsigned long long)qs->timeouts,
                           (unsigned long long)qs->retransmits);
                } else {
                    const rq_palos_stats *pst = rq_palos_get_stats(&m.nics[h].palos);
                    printf("          Palos %llu visits, %llu pieces, %llu cut WQEs, %llu output stalls\n",
                           (unsigned long long)pst->visits, (unsigned long long)pst->out_wqes,
                           (unsigned long long)pst->cut_wqes, (unsigned long long)pst->out_stalls);
                }
            }
            printf("  receiver: %llu segments (%llu out of sequence discarded, %llu duplicates); checked %llu packets, "
                   "%llu B of %llu B posted; %llu out of order or corrupt\n",
                   (unsigned long long)rs->segments, (unsigned long long)rs->discarded_out_of_sequence,
                   (unsigned long long)rs->duplicates, (unsigned long long)m.rx.packets, (unsigned long long)received,
                   (unsigned long long)total_posted, (unsigned long long)m.rx.bad);
            if (o->sched_qos)
                printf("  qos: %llu packets arrived twice (resent on a QoS timeout or resubmitted; %llu B, not counted "
                       "twice); %llu transfers ended in ERROR, %llu resubmitted by the host; %llu model errors\n",
                       (unsigned long long)m.rx.duplicates, (unsigned long long)m.rx.duplicate_bytes,
                       (unsigned long long)qos_failed, (unsigned long long)qos_resubmits, (unsigned long long)qos_errors);
            if (!drained)
                printf("  warning: the drain stopped 100 ms after the run with %llu B still queued in the model: "
                       "bytes_lost counts them (RESULT drained=0)\n",
                       (unsigned long long)(total_posted - received));
            printf("  simulated %.3f ms (%llu cycles) in %.2f s host time\n", (double)m.now / (double)CLOCK_HZ * 1e3,
                   (unsigned long long)m.now, host_s);
            if (rm_lat_sampled(ls))
                printf("  FCT percentiles from a uniform sample of %llu of the window's %llu messages (--lat-samples; "
                       "the mean is over all of them)\n",
                       (unsigned long long)ls->n, (unsigned long long)ls->seen);
            if (o->pcap)
                printf("  pcap: %s (%llu data + %llu ACK + %llu NAK + %llu CNP frames, snaplen %u)\n", o->pcap,
                       (unsigned long long)m.sent_pkts, (unsigned long long)m.acks_out, (unsigned long long)m.naks_out,
                       (unsigned long long)m.cnps_out, o->snaplen);
        }
        memset(&hd, 0, sizeof hd);
        if (o->host_on && m.hw0_taken && m.hw1_taken) {
#define HD(x) hd.x = m.hw1.x - m.hw0.x
            HD(cycles); HD(packets_in); HD(bytes_in); HD(dropped); HD(marked); HD(pfc_pauses); HD(pause_cycles);
            HD(packets_out); HD(delay_sum); HD(pcie_writes); HD(pcie_stall_cycles); HD(pcie_stalled_writes);
            HD(ddio_hits); HD(ddio_misses); HD(ddio_writebacks); HD(cpu_bytes_served); HD(mem_lines_iio);
#undef HD
        }
        if (o->host_on && !o->quiet) {
            const hcc_host_stats *hs = hcc_host_get_stats(&m.hh);
            printf("  receiving host (hostcc.h; the window's counters): CPU memory traffic %ux = %.1f GB/s asked, "
                   "%.2f GB/s served; RX buffer %llu packets, %llu dropped, %llu CE-marked, %llu PAUSEs (%.1f us paused); "
                   "PCIe %llu posted writes, %llu stalled for credits (%.1f us); DDIO %s: %.1f %% misses, %llu "
                   "write-backs; IIO occupancy mean %.1f lines (max %llu); RX -> write delay mean %.0f ns; %llu PFC frames to the switch in the whole run\n",
                   o->cpu_load_x, (double)cpu_load_Bps[o->cpu_load_x] / 1e9,
                   (double)hd.cpu_bytes_served / win_s / 1e9, (unsigned long long)hd.packets_in,
                   (unsigned long long)hd.dropped, (unsigned long long)hd.marked, (unsigned long long)hd.pfc_pauses,
                   (double)hd.pause_cycles / (double)CLOCK_HZ * 1e6, (unsigned long long)hd.pcie_writes,
                   (unsigned long long)hd.pcie_stalled_writes, (double)hd.pcie_stall_cycles / (double)CLOCK_HZ * 1e6,
                   o->ddio ? "on" : "off",
                   hd.ddio_hits + hd.ddio_misses ? 100.0 * (double)hd.ddio_misses / (double)(hd.ddio_hits + hd.ddio_misses) : 0.0,
                   (unsigned long long)hd.ddio_writebacks,
                   hd.cycles ? (double)((m.occ1 - m.occ0) & ((1ull << 48) - 1u)) / (double)hd.cycles : 0.0,
                   (unsigned long long)hs->iio_max,
                   hd.packets_out ? (double)hd.delay_sum / (double)hd.packets_out * 1e9 / (double)CLOCK_HZ : 0.0,
                   (unsigned long long)m.host_pfc_frames);
            printf("  RHCC %s: ", rhcc_name[o->rhcc]);
            if (m.hrx_on) {
                const hcc_rx_stats *xs = hcc_rx_get_stats(&m.hrx);
                printf("receiver: MBA level %u at the window's end, %llu steps in the window%s; over the whole run "
                       "(drain included) %llu samples (%llu congested), %llu down, %llu up, %llu held by the slack; ",
                       m.level_w1, (unsigned long long)(m.mba_w1 - m.mba_w0),
                       o->rhcc == RHCC_ECN ? " (ECN mode: levels fixed)" : "", (unsigned long long)xs->samples,
                       (unsigned long long)xs->congested_samples, (unsigned long long)xs->level_downs,
                       (unsigned long long)xs->level_ups, (unsigned long long)xs->held_by_slack);
            }
            if (rev_n)
                printf("senders: %llu probes in the window (%llu ACKs in the whole run; not in the pcap), R_rev mean "
                       "%.2f Gb/s vs R_cc (DCQCN) mean %.2f Gb/s at the window's end",
                       (unsigned long long)(m.probes_w1 - m.probes_w0), (unsigned long long)m.probe_acks_out,
                       rev_sum / rev_n / 1e9, rcc_sum / rev_n / 1e9);
            printf("\n");
        }
        if (m.pcap_on)
            roce_pcap_close(&m.pcap);
        if (m.trace_csv)
            fclose(m.trace_csv);
        if (m.queue_csv)
            fclose(m.queue_csv);
        if (m.vcd.f) {
            if (!o->quiet)
                printf("  vcd: %s (%llu events on %u ports; %llu out of time order not shown)\n", o->vcd,
                       (unsigned long long)m.vcd.events, m.vcd.nports, (unsigned long long)m.vcd.late);
            rm_vcd_close(&m.vcd);
        }
        bytes_lost = total_posted - received + m.rx.bad + m.order_errors + m.piece_errors + m.model_errors + qos_errors;
        printf("RESULT composed=1 qps=%u tenants=%u transport=dcqcn variant=%s share_err_pct=%.3f jain=%.4f cnps=%llu "
               "naks=%llu rtx=%llu ecn_marked=%llu drops=%llu pfc_pauses=%llu pause_us=%.1f queue_max_kb=%.1f "
               "fct_p50_us=%.2f fct_p99_us=%.2f "
               "bytes_lost=%llu digest=%016llx mcycles_per_s=%.2f pkts_per_s=%.0f delivered_packets=%llu",
               m.nqps, o->tenants, variant_name[o->dcqcn_variant], worst_share,
               jain_sum * jain_sum / ((double)m.nqps * jain_sq), (unsigned long long)m.cnps_out,
               (unsigned long long)m.naks_out, (unsigned long long)m.rtx_pkts,
               (unsigned long long)m.sw.port[o->hosts].stats.marked, (unsigned long long)drops,
               (unsigned long long)pfc_pauses, (double)paused_cycles / (double)CLOCK_HZ * 1e6,
               (double)m.queue_max / 1024.0, fct50, fct99,
               (unsigned long long)bytes_lost,
               (unsigned long long)m.digest, (double)m.now / host_s / 1e6, (double)m.rx.packets / host_s,
               (unsigned long long)m.rx.packets);
        if (o->sched_qos) {
            uint64_t blocks = 0, retx = 0, tmo = 0;
            for (h = 0; h < o->hosts; h++) {
                const rq_qos_stats *qs = rq_qos_get_stats(&m.nics[h].qos);
                blocks += qs->blocks;
                retx += qs->retransmits;
                tmo += qs->timeouts;
            }
            printf(" blocks=%llu timeouts=%llu retransmits=%llu duplicates=%llu resubmits=%llu", (unsigned long long)blocks,
                   (unsigned long long)tmo, (unsigned long long)retx, (unsigned long long)m.rx.duplicates,
                   (unsigned long long)qos_resubmits);
        }
        printf(" rx_gbps=%.3f fct_mean_us=%.2f", rx_gbps, ls->seen ? fct_sum / (double)ls->seen / (double)CLOCK_HZ * 1e6 : 0.0);
        if (o->host_on) {
            printf(" host=1 cpu_load_x=%u rhcc=%s ddio=%d host_pauses=%llu host_pause_us=%.1f host_drops=%llu "
                   "host_marked=%llu pcie_stalled_writes=%llu pcie_stall_us=%.1f ddio_miss_pct=%.2f iio_occ_mean=%.2f "
                   "mba_level_end=%u mba_steps=%llu probes=%llu r_rev_gbps=%.3f r_cc_gbps=%.3f host_delay_mean_ns=%.1f",
                   o->cpu_load_x, rhcc_name[o->rhcc], o->ddio, (unsigned long long)hd.pfc_pauses,
                   (double)hd.pause_cycles / (double)CLOCK_HZ * 1e6, (unsigned long long)hd.dropped,
                   (unsigned long long)hd.marked, (unsigned long long)hd.pcie_stalled_writes,
                   (double)hd.pcie_stall_cycles / (double)CLOCK_HZ * 1e6,
                   hd.ddio_hits + hd.ddio_misses ? 100.0 * (double)hd.ddio_misses / (double)(hd.ddio_hits + hd.ddio_misses) : 0.0,
                   hd.cycles ? (double)((m.occ1 - m.occ0) & ((1ull << 48) - 1u)) / (double)hd.cycles : 0.0,
                   m.level_w1, (unsigned long long)(m.mba_w1 - m.mba_w0), (unsigned long long)(m.probes_w1 - m.probes_w0),
                   rev_n ? rev_sum / rev_n / 1e9 : 0.0, rev_n ? rcc_sum / rev_n / 1e9 : 0.0,
                   hd.packets_out ? (double)hd.delay_sum / (double)hd.packets_out * 1e9 / (double)CLOCK_HZ : 0.0);
        } else
            printf(" host=0");
        printf(" drained=%d sched=%s", drained, o->sched_qos ? "qos" : "palos");
        if (rm_lat_sampled(ls)) /* only then: a run that kept every latency prints what it always did */
            printf(" lat_kept=%llu lat_seen=%llu", (unsigned long long)ls->n, (unsigned long long)ls->seen);
        printf("\n");
    }
    for (h = 0; h < o->hosts; h++)
        nic_free(&m.nics[h]);
    net_switch_free(&m.sw);
    net_link_free(&m.rx_up);
    free(m.rxe_mem);
    free(m.hh_mem);
    free(m.hrx_mem);
    rm_receiver_free(&m.rx);
    free(m.nics);
    if (!drained || bytes_lost) { /* a script must not take a run that lost bytes for a good one */
        fprintf(stderr, "rnic_model: the run %s (bytes_lost=%llu drained=%d): exit status 3\n",
                bytes_lost ? "lost bytes" : "did not drain", (unsigned long long)bytes_lost, drained);
        return 3;
    }
    return 0;
}
