/* fm_world.h -- what every node of the composed fabric shares (issue 30; docs/fabric_model.md):
 * the run's parameters, the flow table (which host sends each QP to which host, its tenant,
 * its number at the sender and at the receiver), the trace CSV, and the node lists. The
 * nodes (fm_nic.h, fm_switch.h) and the builder (fm_build.h) include it.
 *
 * Flow numbering. A QP is flow g in the global table (0 .. nflows - 1). Its sending NIC knows
 * it as `local` (0 .. that NIC's QPs - 1: the index of its transport, Tassel and Palos flows),
 * its receiving NIC as `rx` (0 .. the flows that NIC receives - 1: its transport receiver's and
 * checker's flow). A data packet carries the sender's number (w.flow = local) and its source
 * host (net_pkt.src); the receiver finds g = flow_of[src][local] -> rx. Its ACKs carry `local`
 * back. Hosted example code: allocation at set-up only. */
#ifndef RNIC_FM_WORLD_H
#define RNIC_FM_WORLD_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "model_parts.h"
#include "fm_trace.h"
#include "net.h"

#define FM_MAX_TENANTS 16u
#define FM_WIRE_OVERHEAD 82u /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20 */
#define FM_ACK_WIRE 86u      /* ... + AETH 4, no payload */
#define FM_CNP_WIRE 98u      /* ... + 16 reserved bytes */
#define FM_PROBE_LEN 64u     /* an RHCC probe's payload: one 64 B posted write at the receiver */
#define FM_PROBE_WIRE (FM_PROBE_LEN + FM_WIRE_OVERHEAD)
#define FM_PROBE_ACK_OP 0x40u /* rnic_work.op of a probe ACK (clear of TP_PKT_*) */
#define FM_RING_READ_NS 40u  /* Tassel reads the transport's on-chip segment rings */
#define FM_SEG_RING 64u      /* segment addresses per flow in the credit engine */
#define FM_TP_WINDOW 256u    /* segments tracked per flow */
#define FM_TP_MESSAGES 128u  /* slicer pieces queued per flow in the transport */
/* Back-pressure from the transport into Palos (rq_palos_flow_hold), two rules (ours; see
 * docs/fabric_model.md):
 * - Palos decides the NIC's output order only if the transport does not hold a backlog of many
 *   QPs (Tassel would then divide the link among them by rate, whatever Palos's weights): the
 *   NIC takes a piece from Palos only while the fast QPs have fewer than FM_NIC_BACKLOG bytes
 *   queued in the transport together (given to it, not yet sent once: 64 KB covers Palos's
 *   refill, a fetch and a slice, about 5 us at 100 Gb/s, and is four of Palos's 16 KB chunks);
 * - a slow QP -- its rate register (min(DCQCN or RHCC, the tenant's cap)) below half the link --
 *   would fill that budget or, queued deep, block Palos's one output port: it is held in Palos
 *   once it has FM_QP_HOLD pieces queued (set aside, out of the budget) and released at
 *   FM_QP_RELEASE. After a hold the visit in progress may still emit one launch (a 16 KB chunk
 *   plus carried credit, in pieces of at least a 1 KB segment: 33 records): the transport's
 *   per-QP queue (FM_TP_MESSAGES) has room for them.
 * A window or token QP (no rate register) is never slow. In a NIC of one transport its bytes
 * count in the budget (Palos's weights decide). In a NIC of several transports each window or
 * token transport has a budget of its own, FM_NIC_BACKLOG bytes given and not yet sent over its
 * QPs: reached, all its QPs are held in Palos, released below half of it (ours), so a transport
 * whose QPs cannot send (a congested path) neither fills the rate QPs' budget nor blocks Palos's
 * port for the other transports' QPs (the price: a hold parks the whole transport, and Palos's
 * weights between tenants of that transport hold less exactly). */
#define FM_NIC_BACKLOG (64u * 1024u)
#define FM_QP_HOLD 2u
#define FM_QP_RELEASE 1u
#define FM_PALOS_CHUNK 16384u
/* [nic] sched = qos (fm_nic.h): the host core polls its channels' status every 1 us (250 cycles
 * at the model's clock: rnic_model --sched qos's default --poll-cycles) */
#define FM_QOS_POLL_CYCLES 250u
#define FM_HOST_PAUSE_CYCLES (1ull << 62) /* a host's XOFF holds until its XON */

enum { FM_RHCC_OFF, FM_RHCC_RX, FM_RHCC_TX, FM_RHCC_BOTH, FM_RHCC_ECN };

/* A tenant's transport protocol (scenario.h's enum scn_protocol, same order). */
enum { FM_PROTO_DCQCN, FM_PROTO_IRN, FM_PROTO_NDP, FM_PROTO_RENO, FM_PROTO_NEWRENO, FM_PROTO_SACK };
#define FM_RTO_NS 2000000u       /* DCQCN's (go-back-N) retransmission timeout, as before issue 30's item 2 */
#define FM_RTO_OTHER_NS 500000u  /* the other protocols' (ours: a tail loss costs 0.5 ms, not 2 ms; above
                                    the deepest queue a shipped scenario builds, 4 MB at 100 Gb/s = 0.33 ms) */
#define FM_NDP_INIT_WINDOW 16u   /* NDP's least initial window (tp_ndp_config's default; fm_build.h: a BDP) */
#define FM_TRIM_PACKETS 8u       /* switch.trim: a data packet finding more than 8 full packets queued at
                                    its egress keeps only its header (examples/tonic_ndp_incast.c's choice) */

/* A transport kind: a protocol with its parameters. Tenants with the same protocol and variant
 * share a kind; a NIC runs one transport (and one receiver) per kind it uses, each with its own
 * flow numbers. */
typedef struct fm_kind {
    uint32_t protocol;          /* FM_PROTO_* */
    int dcqcn_variant;          /* 0 paper, 1 mellanox, 2 htsim, 3 hpcc (DCQCN only) */
    int rate;                   /* rate credit: paced by Tassel (DCQCN, IRN); else the transport's own credit */
    int in_order;               /* its receiver delivers in order (go-back-N: DCQCN) */
    tp_protocol proto;          /* .config -> the member below */
    tp_dcqcn_config dcqcn;
    tp_irn_config irn;
    tp_ndp_config ndp;
} fm_kind;

typedef struct fm_tenant {
    uint32_t weight;            /* Palos group weight */
    uint64_t cap_bps;           /* per QP, 0 = none */
    uint32_t min_msg, max_msg;
    uint32_t depth;             /* messages outstanding per QP */
    uint32_t protocol;          /* FM_PROTO_* */
    uint32_t newreno_recover;   /* tp_flow_config.param[3] of its NewReno QPs (TP_NEWRENO_RECOVER_*) */
    int dcqcn_variant;          /* 0 paper, 1 mellanox, 2 htsim, 3 hpcc */
    uint32_t kind;              /* its entry of fm_world.kind */
    int open;                   /* open-loop traffic (poisson, burst, file): QPs post the workload's jobs */
} fm_tenant;

typedef struct fm_params {
    uint64_t clock_hz;
    uint64_t link_bps;          /* a host's link (every NIC's TX MAC) */
    uint32_t link_prop_ns;
    uint64_t pcie_bps;
    uint32_t pcie_latency_ns;
    uint32_t payload;           /* segment payload, bytes */
    uint32_t tenants;
    fm_tenant tenant[FM_MAX_TENANTS];
    int dcqcn_variant;          /* 0 paper, 1 mellanox, 2 htsim, 3 hpcc */
    uint32_t cnp_interval_us;
    int host_on;                /* every NIC's receiving host (hcc_host) */
    uint32_t cpu_load_x;        /* 0..3 */
    int rhcc;                   /* FM_RHCC_* */
    int ddio;
    uint32_t footprint_mb;
    uint32_t cpu_outstanding;   /* the host's CPU cache lines in flight at most */
    uint32_t cpu_evict_wb;      /* the host's cpu_evict_wb (HCC_HOST_EVICT_WB_*) */
    int probe_ts_arrival;       /* an RHCC probe stamped at RX-buffer entry, not at its head */
    uint32_t rx_pipeline;       /* the host's rx_stage_packets: 1 (head) but with probe_ts = pipeline */
    uint32_t probe_base_ns;     /* added to a probe ACK's stamp: 0 but with probe_ts = pipeline */
    int uniform_slack;          /* RHCC receiver: hostCC's slack before every step (no fast_down) */
    uint64_t qos_timeout_us;    /* sched = qos: 0 = from DCQCN's rate floor (fm_nic__qos_timeout_us) */
    uint32_t ack_every;         /* [nic] ack_every: a DCQCN responder's ACK coalescing */
    uint64_t ack_timeout_ns;
    int pfc;                    /* switches' (and hosts') PFC */
    int trim;                   /* switches trim (NDP) */
    int sched_qos;              /* [nic] sched = qos: the RED-SEA QoS engine in Palos's place (fm_nic.h) */
    size_t lat_samples;
    uint64_t seed;
} fm_params;

typedef struct fm_flow {
    uint32_t src, dst, tenant;
    uint32_t local;             /* its number at the sending NIC */
    uint32_t rx;                /* its number at the receiving NIC */
} fm_flow;

/* One flow of an open-loop workload (workload.h; the HPCC simulator's "flow"): its sending host
 * keeps the rm_job (arrival, QP, posting, completion); this is what the results need besides. */
typedef struct fm_job {
    uint32_t src, dst, tenant;
    uint64_t size, start_ns;
} fm_job;

struct fm_nic;
struct fm_switch;

/* Links outside the process (fm_ext.h; the ns-3 devices of examples/ns3/). Where a node would
 * hand a record to its neighbour when it reaches the far end of their link, it sends it instead
 * when it leaves (a packet's last byte out of the serialiser; a PFC frame when emitted), with
 * the cycle it reaches the far end; whoever carries it gives it back to fm_ext_arrive by then,
 * and the neighbour takes it in that cycle at the place the sender's run would have handed it
 * over. Everything else of the nodes is as without (fm_ext.h, docs/ns3.md). */
enum { FM_FRAME_DATA, FM_FRAME_PFC, FM_FRAME_HOST_PAUSE };
typedef struct fm_frame {
    net_pkt p;                  /* FM_FRAME_DATA: the packet, its rnic_work inside */
    uint64_t at;                /* the cycle it reaches the far end */
    uint64_t seq;               /* its number among its wire's records, in send order (fm_ext.h stamps it) */
    uint32_t kind;              /* FM_FRAME_* */
    uint32_t value;             /* PFC: the quanta (0 = RESUME); host pause: 1 XOFF, 0 XON */
} fm_frame;

typedef struct fm_ext_link {
    void (*send)(void *user, uint32_t wire, const fm_frame *fr);
    void *user;
    const uint32_t *nic_wire;   /* per host: the wire of its link to its switch */
    uint32_t *const *sw_wire;   /* [switch][port]: the wire leaving that port */
    uint64_t late;              /* records sent after the cycle they left (a lookahead broken): 0 */
    uint64_t remote_latency;    /* sched = qos latencies of a message to a host in another process (not kept) */
} fm_ext_link;

/* A host's link to its switch as the topology gives it (an explicit topology's `link` line may
 * differ from [topology] link_gbps / link_delay_ns): its rate, delay and random loss. */
typedef struct fm_uplink {
    uint64_t rate_bps;
    uint32_t prop_ns, loss_ppm;
} fm_uplink;

typedef struct fm_world {
    fm_params p;
    fabric f;
    int observing;              /* 1 while a reader brings nodes (fm_links_sample): no input follows */
    uint32_t hosts, switches;
    struct fm_nic *nic;         /* hosts */
    struct fm_switch *sw;       /* switches */
    fm_flow *flow;
    uint32_t nflows;
    uint32_t **flow_of;         /* [src host][local] -> g */
    uint64_t line_bps;          /* payload capacity of a host link at the segment size (link_gbps) */
    fm_uplink *uplink;          /* per host: its own link to its switch, from the topology */
    tp_dcqcn_config dcqcn;      /* tenant 0's DCQCN variant: the rate floor of the NICs' transports and RHCC */
    fm_kind kind[FM_MAX_TENANTS];
    uint32_t nkinds;
    uint64_t window_start, window_end;
    fm_trace_csv *trace_csv;    /* --trace-csv: the rows (fm_trace.h), NULL = off */
    struct roce_pcap *pcap;     /* the TX MACs' frames (fm_taps.h), NULL = off */
    uint64_t pcap_end;          /* frames leaving at this cycle or later are not written; 0 = all */
    uint64_t model_errors;      /* records a node could not place where the model guarantees room */
    fm_ext_link *ext;           /* NULL: every link is inside this fabric (fm_ext.h otherwise) */
    uint64_t *job_cnps;         /* fm_ext.h: each open-loop flow's CNPs, gathered from its sender's process */
    fm_job *job;                /* the open-loop flows, in start order (their ids) */
    rm_job *rmjob;              /* ... their state at the sending hosts (same index) */
    uint32_t njobs;
    uint32_t **arrivals_of;     /* [host] -> its jobs in start order */
    uint32_t *narrivals_of;
} fm_world;

/* The engines' trace ids: engine kind + 32 x node (a node's engines stay apart in the trace). */
static uint16_t fm_trace_id(uint32_t engine, uint32_t node) { return (uint16_t)(engine + 32u * node); }

#endif /* RNIC_FM_WORLD_H */
