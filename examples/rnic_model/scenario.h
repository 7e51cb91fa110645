/* scenario.h -- the composed RNIC's scenario file: a plain-text description of a run (topology,
 * links, switches, NICs, hosts, tenants and their traffic, outputs), parsed into one struct that
 * the fabric builds its network from. The format is documented in docs/scenario.md.
 *
 *   scn s;
 *   scn_error err;
 *   scn_config_default(&s);                       today's default: a 2:1 incast, 2 tenants
 *   if (scn_parse_file(&s, "scenarios/default.conf", &err) ||
 *       scn_set(&s, "tenant.web.qps", "8", &err) ||    a --set override after the file
 *       scn_validate(&s, &err)) {
 *       fprintf(stderr, "%s\n", err.message);     "file:line: [section] key: what is wrong"
 *       exit(2);
 *   }
 *   ... build the network from s ...
 *   scn_dump(&s, stdout);                          a file that parses back to the same struct
 *   scn_free(&s);
 *
 * Hosted C99 (and C++11), one header of static functions: every program that includes it gets
 * its own copy; nothing is global, no state is kept between calls.
 *
 * stb_ds (Debian libstb-dev, /usr/include/stb) holds the growing arrays (tenants, explicit nodes
 * and links, host lists, pairs) and the name tables (a string hash map from "section.key" to
 * the key descriptor table, scn_keys()). Debian's libstb already contains stb_ds's
 * implementation: link with `pkg-config --cflags --libs stb` (-lstb). A program that does not
 * link libstb defines SCN_STB_DS_IMPLEMENTATION before including this header in exactly one
 * translation unit, and this header then defines STB_DS_IMPLEMENTATION for stb_ds.h (which must
 * not have been included before in that unit).
 *
 * The parser only reads; scn_validate does the cross-key checks (shape numbers, host ids inside
 * the shape's host count, warm-up below duration, ...). Every function that can fail returns
 * SCN_OK (0) or an scn_code and fills an scn_error: file, line (0 when not from a line), the key
 * ("switch.pfc_xoff_kb", "tenant.web.qps") and one message naming all three. */
#ifndef RNIC_MODEL_SCENARIO_H
#define RNIC_MODEL_SCENARIO_H
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* stb_ds.h tests `#if __clang__`, which -Wundef rejects under gcc */
#if defined(SCN_STB_DS_IMPLEMENTATION) && !defined(STB_DS_IMPLEMENTATION)
#define STB_DS_IMPLEMENTATION
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#endif
#include <stb_ds.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#if defined(__GNUC__)
#define SCN_DEF static __attribute__((unused))
#else
#define SCN_DEF static
#endif

#define SCN_NAME_MAX 24u       /* tenant and node names, the NUL included (topo.h's limit) */
#define SCN_MAX_TIER 15u       /* an explicit switch's tier: 1 edge/leaf, 2 aggregation/spine, 3 core .. */
#define SCN_PATH_MAX 256u      /* output paths, the terminating NUL included */
#define SCN_MAX_HOSTS 65536u   /* hosts of any shape (a k = 64 fat tree); host ids are below it */
#define SCN_MAX_TENANTS 16u    /* the composed model's MAX_TENANTS */
#define SCN_MAX_NODES 65536u   /* explicit nodes, and explicit links */

/* Result codes (scn_error.code and the return value). */
typedef enum scn_code {
    SCN_OK = 0,
    SCN_EIO,        /* the file cannot be read */
    SCN_ESYNTAX,    /* a line that is no section, no `key = value` */
    SCN_EUNKNOWN,   /* unknown section, key or tenant */
    SCN_EDUPLICATE, /* a key set twice in its section, a tenant or node defined twice */
    SCN_EVALUE,     /* a value that is not what the key takes (junk, not a choice, empty) */
    SCN_ERANGE,     /* a number below the key's minimum, above its limit or above 2^64 - 1 */
    SCN_EINVALID    /* scn_validate: keys that do not fit together */
} scn_code;

typedef struct scn_error {
    scn_code code;
    char file[SCN_PATH_MAX]; /* the file, the name given to scn_parse_text, or "--set" */
    uint32_t line;           /* 1-based; 0 for scn_set and scn_validate */
    char key[96];            /* "switch.pfc_xoff_kb", "tenant.web.qps", "" when no key applies */
    char message[1024];      /* "x.conf:12: [switch] pfc_xoff_kb: 99999999 is above the limit 1048576" */
} scn_error;

enum scn_shape { SCN_STAR, SCN_DUMBBELL, SCN_LEAF_SPINE, SCN_FAT_TREE, SCN_EXPLICIT };
enum scn_ecn { SCN_ECN_OFF, SCN_ECN_RED };
enum scn_sched { SCN_SCHED_PALOS, SCN_SCHED_QOS };
enum scn_rhcc { SCN_RHCC_OFF, SCN_RHCC_RX, SCN_RHCC_TX, SCN_RHCC_BOTH, SCN_RHCC_ECN };
enum scn_protocol { SCN_DCQCN, SCN_IRN, SCN_NDP, SCN_RENO, SCN_NEWRENO, SCN_SACK };
/* default: the protocol's own default (for dcqcn: htsim, today's model's choice) */
enum scn_variant { SCN_VARIANT_DEFAULT, SCN_VARIANT_PAPER, SCN_VARIANT_MELLANOX, SCN_VARIANT_HTSIM, SCN_VARIANT_HPCC };
enum scn_pattern { SCN_INCAST, SCN_PERMUTATION, SCN_ALL_TO_ALL, SCN_PAIRS };
enum scn_traffic { SCN_TRAFFIC_BACKLOG, SCN_TRAFFIC_POISSON, SCN_TRAFFIC_BURST, SCN_TRAFFIC_FILE };
enum scn_probe_ts { SCN_PROBE_TS_HEAD, SCN_PROBE_TS_ARRIVAL, SCN_PROBE_TS_PIPELINE };
enum scn_slack { SCN_SLACK_FAST_DOWN, SCN_SLACK_UNIFORM };

typedef struct scn_counts { uint32_t n, v[2]; } scn_counts;     /* "8" (n 1) or "8,8" (n 2) */
typedef struct scn_sizes { uint32_t min, max; } scn_sizes;     /* "1024,16384" or "4096" */
typedef struct scn_fraction { uint32_t num, den; } scn_fraction; /* "1", "1/2"; kept unreduced */
typedef struct scn_pair { uint32_t src, dst; } scn_pair;       /* "0>1" */
typedef struct scn_node {
    char name[SCN_NAME_MAX];
    uint32_t is_switch;
    uint32_t tier;                                             /* switches 1..SCN_MAX_TIER, hosts 0 */
} scn_node;
typedef struct scn_link {
    char a[SCN_NAME_MAX], b[SCN_NAME_MAX]; /* node names (scn_node_index) */
    uint64_t gbps, delay_ns;
    uint32_t loss_ppm;
} scn_link;

typedef struct scn_tenant {
    char name[SCN_NAME_MAX];
    uint32_t weight;    /* the scheduler's (Palos) weight */
    uint64_t cap_mbps;  /* per QP; 0 = none */
    uint32_t protocol;  /* enum scn_protocol */
    uint32_t variant;   /* enum scn_variant */
    uint32_t recover;   /* NewReno's recover rule: 0 ns3, 1 rfc6582 (TP_NEWRENO_RECOVER_*) */
    uint32_t qps;       /* per sending host */
    scn_sizes msg_bytes;
    uint32_t depth;     /* messages outstanding per QP */
    uint32_t pattern;   /* enum scn_pattern */
    uint32_t *dst;      /* stb_ds: incast destinations */
    uint32_t *src;      /* stb_ds: sending hosts; empty = every host (incast: every other host) */
    scn_pair *pairs;    /* stb_ds: pattern pairs */
    uint32_t traffic;   /* enum scn_traffic: backlogged QPs, or open-loop flows (docs/workloads.md) */
    uint32_t load_pct;  /* poisson: offered load of each sending host's link [%] */
    uint64_t burst_us;  /* burst: the period of the incast bursts [us] */
    char size_cdf[SCN_PATH_MAX]; /* poisson, burst: flow sizes from this CDF file; "" = msg_bytes */
} scn_tenant;

typedef struct scn {
    struct {
        uint64_t duration_us, warmup_us, seed;
        uint32_t drain;            /* keep running after duration until every posted byte arrived */
        uint64_t drain_limit_us;   /* ... for at most this long */
        char flow_file[SCN_PATH_MAX]; /* the flows of the traffic = file tenants; "" = none */
    } run;
    struct {
        uint32_t shape;            /* enum scn_shape */
        uint32_t k;                /* fat_tree */
        scn_counts hosts;          /* star: N; dumbbell: left,right */
        uint32_t leaves, spines, hosts_per_leaf; /* leaf_spine */
        uint64_t link_gbps;        /* host links */
        uint64_t fabric_gbps;      /* switch-to-switch links (leaf_spine, dumbbell, fat_tree) */
        uint64_t link_delay_ns;
        uint32_t loss_ppm;
        scn_node *nodes;           /* stb_ds: explicit */
        scn_link *links;           /* stb_ds: explicit */
    } topo;
    struct {
        uint64_t buffer_kb;
        uint32_t ecn;              /* enum scn_ecn */
        uint64_t ecn_kmin_kb, ecn_kmax_kb;
        uint32_t ecn_pmax_pct;
        uint32_t pfc;
        uint64_t pfc_xoff_kb, pfc_xon_kb, pfc_headroom_kb; /* 0 = derived by the fabric */
        scn_fraction dt_alpha;     /* dynamic threshold: a port may hold alpha x the free buffer */
        uint32_t trim, ecmp;
    } sw;
    struct {
        uint32_t sched;            /* enum scn_sched */
        uint64_t pcie_gbps, pcie_latency_ns;
        uint32_t payload, mtu, cnp_interval_us;
        uint64_t qos_timeout_us;   /* sched = qos: the engine's retransmission timeout, 0 = automatic */
        uint32_t ack_every;        /* RoCE responder: an ACK per this many in-order packets (coalesced) */
        uint64_t ack_timeout_ns;   /* ... or this long after the first one it has not acknowledged */
    } nic;
    struct {
        uint32_t model, cpu_load, rhcc, ddio, footprint_mb;
        uint32_t cpu_outstanding;  /* CPU cache lines in flight at most */
        uint32_t cpu_evict_wb;     /* HCC_HOST_EVICT_WB_*: who holds a CPU-evicted I/O line's write-back */
        uint32_t probe_ts;         /* enum scn_probe_ts: a probe's receive stamp */
        uint32_t rx_pipeline;      /* probe_ts = pipeline: the RNIC's receive-pipeline depth [packets] */
        uint32_t probe_base_ns;    /* probe_ts = pipeline: the RNIC's own probe-to-ACK latency [ns] */
        uint32_t rhcc_slack;       /* enum scn_slack */
    } host;
    scn_tenant *tenants;           /* stb_ds */
    struct {
        char csv[SCN_PATH_MAX], queue_csv[SCN_PATH_MAX], links_csv[SCN_PATH_MAX], pcap[SCN_PATH_MAX],
            trace_csv[SCN_PATH_MAX], vcd[SCN_PATH_MAX], fct_csv[SCN_PATH_MAX],
            fct_buckets_csv[SCN_PATH_MAX], tenants_csv[SCN_PATH_MAX],
            plots[SCN_PATH_MAX]; /* "" = none; plots: a directory */
        uint32_t snaplen;
        uint64_t pcap_us;          /* 0 = the whole run */
        uint64_t queue_sample_us;  /* links' queue samples: every N us of the window */
        uint64_t lat_samples;      /* message latencies kept per receiving NIC, 0 = all */
    } out;
} scn;

/* The key descriptor table (scn_keys): every key of every section. */
typedef enum scn_type {
    SCN_T_U64,      /* a whole number in [min, max], field of `size` bytes */
    SCN_T_CHOICE,   /* one of choices[] (NULL-terminated), stored as its index (uint32_t) */
    SCN_T_BOOL,     /* on | off (uint32_t 1 | 0) */
    SCN_T_FRACTION, /* "N" or "N/D", N and D in [min, max] (scn_fraction) */
    SCN_T_STRING,   /* the rest of the line, up to SCN_PATH_MAX - 1 bytes ("" = none) */
    SCN_T_COUNTS,   /* list: one or two numbers in [min, max] (scn_counts) */
    SCN_T_SIZES,    /* list: "MIN,MAX" or one value, each in [min, max], MIN <= MAX (scn_sizes) */
    SCN_T_HOSTS,    /* list: host ids "1-15", "1,3,5", "" (uint32_t * stb_ds) */
    SCN_T_PAIRS,    /* list: "0>1, 2>3" (scn_pair * stb_ds) */
    SCN_T_NODE,     /* repeatable: "NAME host" or "NAME switch [TIER]" appends to topo.nodes */
    SCN_T_LINK      /* repeatable: "A B GBPS DELAY_NS [LOSS_PPM]" appends to topo.links */
} scn_type;

enum scn_section { SCN_SEC_RUN, SCN_SEC_TOPOLOGY, SCN_SEC_SWITCH, SCN_SEC_NIC, SCN_SEC_HOST, SCN_SEC_TENANT,
                   SCN_SEC_OUTPUT, SCN_SECTIONS };

typedef struct scn_key {
    uint32_t section;            /* enum scn_section */
    const char *name;
    scn_type type;
    size_t offset;               /* in scn, or in scn_tenant for SCN_SEC_TENANT */
    uint32_t size;               /* SCN_T_U64: 4 or 8 bytes */
    uint64_t min, max;           /* the numbers' range */
    const char *const *choices;  /* SCN_T_CHOICE */
    const char *doc;
} scn_key;

#define SCN__KEY(sec, name, type, base, field, min, max, choices, doc) \
    { sec, name, type, offsetof(base, field), (uint32_t)sizeof(((base *)0)->field), min, max, choices, doc }

/* The section names, index = enum scn_section. */
SCN_DEF const char *scn_section_name(uint32_t section)
{
    static const char *const names[SCN_SECTIONS] = { "run", "topology", "switch", "nic", "host", "tenant",
                                                     "output" };
    return section < SCN_SECTIONS ? names[section] : "?";
}

SCN_DEF const char *const *scn_shape_names(void)
{
    static const char *const n[] = { "star", "dumbbell", "leaf_spine", "fat_tree", "explicit", NULL };
    return n;
}
SCN_DEF const char *const *scn_protocol_names(void)
{
    static const char *const n[] = { "dcqcn", "irn", "ndp", "reno", "newreno", "sack", NULL };
    return n;
}
SCN_DEF const char *const *scn_variant_names(void)
{
    static const char *const n[] = { "default", "paper", "mellanox", "htsim", "hpcc", NULL };
    return n;
}
SCN_DEF const char *const *scn_traffic_names(void)
{
    static const char *const n[] = { "backlog", "poisson", "burst", "file", NULL };
    return n;
}
SCN_DEF const char *const *scn_pattern_names(void)
{
    static const char *const n[] = { "incast", "permutation", "all_to_all", "pairs", NULL };
    return n;
}

/* Every key, in the order scn_dump writes them. *count gets their number. */
SCN_DEF const scn_key *scn_keys(size_t *count)
{
    static const char *const ecn[] = { "off", "red", NULL };
    static const char *const sched[] = { "palos", "qos", NULL };
    static const char *const rhcc[] = { "off", "rx", "tx", "both", "ecn", NULL };
    static const char *const shape[] = { "star", "dumbbell", "leaf_spine", "fat_tree", "explicit", NULL };
    static const char *const proto[] = { "dcqcn", "irn", "ndp", "reno", "newreno", "sack", NULL };
    static const char *const variant[] = { "default", "paper", "mellanox", "htsim", "hpcc", NULL };
    static const char *const recover[] = { "ns3", "rfc6582", NULL };
    static const char *const pattern[] = { "incast", "permutation", "all_to_all", "pairs", NULL };
    static const char *const traffic[] = { "backlog", "poisson", "burst", "file", NULL };
    static const char *const probe_ts[] = { "head", "arrival", "pipeline", NULL };
    static const char *const evict_wb[] = { "io", "cpu", "queued", NULL }; /* HCC_HOST_EVICT_WB_* order */
    static const char *const slack[] = { "fast_down", "uniform", NULL };
    static const scn_key keys[] = {
        SCN__KEY(SCN_SEC_RUN, "duration_us", SCN_T_U64, scn, run.duration_us, 1, 1000000000, NULL,
                 "simulated time of the run, the drain not included [us]"),
        SCN__KEY(SCN_SEC_RUN, "warmup_us", SCN_T_U64, scn, run.warmup_us, 0, 1000000000, NULL,
                 "start of the measurement window, below duration_us [us]"),
        SCN__KEY(SCN_SEC_RUN, "seed", SCN_T_U64, scn, run.seed, 0, UINT64_MAX, NULL,
                 "seed of message sizes, ECN marking, losses and ECMP salts"),
        SCN__KEY(SCN_SEC_RUN, "drain", SCN_T_BOOL, scn, run.drain, 0, 1, NULL,
                 "after duration_us, run on until every posted byte arrived"),
        SCN__KEY(SCN_SEC_RUN, "drain_limit_us", SCN_T_U64, scn, run.drain_limit_us, 1, 1000000000, NULL,
                 "longest drain [us]"),
        SCN__KEY(SCN_SEC_RUN, "flow_file", SCN_T_STRING, scn, run.flow_file, 0, 0, NULL,
                 "flows of the traffic = file tenants, one per line: SRC DST TENANT SIZE START_NS; empty = none"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "shape", SCN_T_CHOICE, scn, topo.shape, 0, 0, shape,
                 "the network's shape"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "k", SCN_T_U64, scn, topo.k, 2, 64, NULL,
                 "fat_tree: ports per switch, even; k^3/4 hosts"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "hosts", SCN_T_COUNTS, scn, topo.hosts, 1, SCN_MAX_HOSTS, NULL,
                 "star: N hosts on one switch; dumbbell: LEFT,RIGHT hosts"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "leaves", SCN_T_U64, scn, topo.leaves, 1, 4096, NULL, "leaf_spine: leaf switches"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "spines", SCN_T_U64, scn, topo.spines, 1, 4096, NULL, "leaf_spine: spine switches"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "hosts_per_leaf", SCN_T_U64, scn, topo.hosts_per_leaf, 1, 4096, NULL,
                 "leaf_spine: hosts under each leaf"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "link_gbps", SCN_T_U64, scn, topo.link_gbps, 1, 1600, NULL,
                 "host-to-switch links [Gb/s]"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "fabric_gbps", SCN_T_U64, scn, topo.fabric_gbps, 1, 1600, NULL,
                 "switch-to-switch links [Gb/s]"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "link_delay_ns", SCN_T_U64, scn, topo.link_delay_ns, 0, 1000000000, NULL,
                 "propagation delay of every link of a built shape [ns]"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "loss_ppm", SCN_T_U64, scn, topo.loss_ppm, 0, 1000000, NULL,
                 "random loss on every link of a built shape [per million]"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "node", SCN_T_NODE, scn, topo.nodes, 0, 0, NULL,
                 "explicit: one node; hosts take ids 0, 1, ... in node order; a switch's tier defaults to 1"),
        SCN__KEY(SCN_SEC_TOPOLOGY, "link", SCN_T_LINK, scn, topo.links, 0, 0, NULL,
                 "explicit: one full-duplex link between two nodes"),
        SCN__KEY(SCN_SEC_SWITCH, "buffer_kb", SCN_T_U64, scn, sw.buffer_kb, 1, 1048576, NULL,
                 "shared buffer of each switch [KB]"),
        SCN__KEY(SCN_SEC_SWITCH, "ecn", SCN_T_CHOICE, scn, sw.ecn, 0, 0, ecn,
                 "ECN marking of the switch queues: RED at dequeue, or none"),
        SCN__KEY(SCN_SEC_SWITCH, "ecn_kmin_kb", SCN_T_U64, scn, sw.ecn_kmin_kb, 0, 1048576, NULL,
                 "queue where marking starts [KB]"),
        SCN__KEY(SCN_SEC_SWITCH, "ecn_kmax_kb", SCN_T_U64, scn, sw.ecn_kmax_kb, 0, 1048576, NULL,
                 "queue where marking reaches ecn_pmax_pct [KB]"),
        SCN__KEY(SCN_SEC_SWITCH, "ecn_pmax_pct", SCN_T_U64, scn, sw.ecn_pmax_pct, 0, 100, NULL,
                 "marking probability at ecn_kmax_kb [%]"),
        SCN__KEY(SCN_SEC_SWITCH, "pfc", SCN_T_BOOL, scn, sw.pfc, 0, 1, NULL, "PFC per ingress (and at the hosts)"),
        SCN__KEY(SCN_SEC_SWITCH, "pfc_xoff_kb", SCN_T_U64, scn, sw.pfc_xoff_kb, 0, 1048576, NULL,
                 "ingress bytes that send XOFF, 0 = derived from port count, rate and delay [KB]"),
        SCN__KEY(SCN_SEC_SWITCH, "pfc_xon_kb", SCN_T_U64, scn, sw.pfc_xon_kb, 0, 1048576, NULL,
                 "ingress bytes that send XON, 0 = derived [KB]"),
        SCN__KEY(SCN_SEC_SWITCH, "pfc_headroom_kb", SCN_T_U64, scn, sw.pfc_headroom_kb, 0, 1048576, NULL,
                 "per ingress, above XOFF, 0 = derived [KB]"),
        SCN__KEY(SCN_SEC_SWITCH, "dt_alpha", SCN_T_FRACTION, scn, sw.dt_alpha, 1, 1024, NULL,
                 "dynamic threshold alpha: \"1\", \"1/2\", \"2\""),
        SCN__KEY(SCN_SEC_SWITCH, "trim", SCN_T_BOOL, scn, sw.trim, 0, 1, NULL, "NDP payload trimming"),
        SCN__KEY(SCN_SEC_SWITCH, "ecmp", SCN_T_BOOL, scn, sw.ecmp, 0, 1, NULL,
                 "ECMP by a hash of the flow's headers (off: the first shortest path)"),
        SCN__KEY(SCN_SEC_NIC, "sched", SCN_T_CHOICE, scn, nic.sched, 0, 0, sched,
                 "the NIC's scheduler: Palos, or the RED-SEA QoS engine"),
        SCN__KEY(SCN_SEC_NIC, "pcie_gbps", SCN_T_U64, scn, nic.pcie_gbps, 1, 1600, NULL, "PCIe bandwidth [Gb/s]"),
        SCN__KEY(SCN_SEC_NIC, "pcie_latency_ns", SCN_T_U64, scn, nic.pcie_latency_ns, 0, 1000000, NULL,
                 "PCIe latency [ns]"),
        SCN__KEY(SCN_SEC_NIC, "payload", SCN_T_U64, scn, nic.payload, 256, 4096, NULL,
                 "RoCEv2 packet payload (segment) [bytes]"),
        SCN__KEY(SCN_SEC_NIC, "mtu", SCN_T_U64, scn, nic.mtu, 256, 9000, NULL, "path MTU, at least payload [bytes]"),
        SCN__KEY(SCN_SEC_NIC, "cnp_interval_us", SCN_T_U64, scn, nic.cnp_interval_us, 1, 1000000, NULL,
                 "least time between two CNPs of a flow [us]"),
        SCN__KEY(SCN_SEC_NIC, "qos_timeout_us", SCN_T_U64, scn, nic.qos_timeout_us, 0, 1000000, NULL,
                 "sched = qos: the engine's retransmission timeout, 0 = from DCQCN's rate floor [us]"),
        SCN__KEY(SCN_SEC_NIC, "ack_every", SCN_T_U64, scn, nic.ack_every, 1, 64, NULL,
                 "RoCE (DCQCN) responder: one ACK per this many in-order packets, coalesced (1 = every packet)"),
        SCN__KEY(SCN_SEC_NIC, "ack_timeout_ns", SCN_T_U64, scn, nic.ack_timeout_ns, 1, 1000000000, NULL,
                 "ack_every > 1: the ACK also leaves this long after the oldest packet it covers [ns]"),
        SCN__KEY(SCN_SEC_HOST, "model", SCN_T_BOOL, scn, host.model, 0, 1, NULL,
                 "the receiving host's data path (RX buffer, PCIe, IIO, memory)"),
        SCN__KEY(SCN_SEC_HOST, "cpu_load", SCN_T_U64, scn, host.cpu_load, 0, 3, NULL,
                 "CPU memory traffic, the RHCC paper's 0x..3x"),
        SCN__KEY(SCN_SEC_HOST, "rhcc", SCN_T_CHOICE, scn, host.rhcc, 0, 0, rhcc,
                 "RHCC's controllers: receiver, sender, both, or hostCC-style CE marks"),
        SCN__KEY(SCN_SEC_HOST, "ddio", SCN_T_BOOL, scn, host.ddio, 0, 1, NULL, "DDIO (writes into the LLC)"),
        SCN__KEY(SCN_SEC_HOST, "footprint_mb", SCN_T_U64, scn, host.footprint_mb, 1, 4096, NULL,
                 "receive buffers' total size [MB]"),
        SCN__KEY(SCN_SEC_HOST, "cpu_outstanding", SCN_T_U64, scn, host.cpu_outstanding, 1, 1048576, NULL,
                 "CPU cache lines in flight at most [lines]"),
        SCN__KEY(SCN_SEC_HOST, "cpu_evict_wb", SCN_T_CHOICE, scn, host.cpu_evict_wb, 0, 0, evict_wb,
                 "who holds the write-back of a dirty DDIO line a CPU fill evicts: one of the IIO's memory credits (io), the CPU's cpu_outstanding window (cpu), or nobody, queued ahead of the IIO (queued, the model before issue 31)"),
        SCN__KEY(SCN_SEC_HOST, "probe_ts", SCN_T_CHOICE, scn, host.probe_ts, 0, 0, probe_ts,
                 "an RHCC probe's receive stamp: at the RX buffer's head, at its entry, or at its entry into the RNIC's receive pipeline (rx_pipeline packets before the DMA writes; the ACK stamp + probe_base_ns)"),
        SCN__KEY(SCN_SEC_HOST, "rx_pipeline", SCN_T_U64, scn, host.rx_pipeline, 1, 4096, NULL,
                 "probe_ts = pipeline: packets of the RX buffer the RNIC has parsed and stamped ahead of their DMA writes [packets]"),
        SCN__KEY(SCN_SEC_HOST, "probe_base_ns", SCN_T_U64, scn, host.probe_base_ns, 0, 100000, NULL,
                 "probe_ts = pipeline: the RNIC's probe-to-ACK latency without congestion (the RHCC paper: 120) [ns]"),
        SCN__KEY(SCN_SEC_HOST, "rhcc_slack", SCN_T_CHOICE, scn, host.rhcc_slack, 0, 0, slack,
                 "RHCC receiver: a step down right after a step up skips hostCC's slack, or the slack before every step"),
        SCN__KEY(SCN_SEC_TENANT, "weight", SCN_T_U64, scn_tenant, weight, 1, 65535, NULL, "scheduler weight"),
        SCN__KEY(SCN_SEC_TENANT, "cap_mbps", SCN_T_U64, scn_tenant, cap_mbps, 0, 1600000, NULL,
                 "rate cap per QP, 0 = none [Mb/s]"),
        SCN__KEY(SCN_SEC_TENANT, "protocol", SCN_T_CHOICE, scn_tenant, protocol, 0, 0, proto,
                 "transport protocol of the tenant's QPs"),
        SCN__KEY(SCN_SEC_TENANT, "variant", SCN_T_CHOICE, scn_tenant, variant, 0, 0, variant,
                 "DCQCN's parameters (hpcc: the HPCC simulator's dcqcn at this link rate); default: the protocol's own (dcqcn: htsim)"),
        SCN__KEY(SCN_SEC_TENANT, "recover", SCN_T_CHOICE, scn_tenant, recover, 0, 0, recover,
                 "NewReno: 3 dup ACKs after a recovery or timeout need the ACK at (ns3, Tonic's) or past (rfc6582) recover"),
        SCN__KEY(SCN_SEC_TENANT, "qps", SCN_T_U64, scn_tenant, qps, 1, 1024, NULL, "QPs per sending host"),
        SCN__KEY(SCN_SEC_TENANT, "msg_bytes", SCN_T_SIZES, scn_tenant, msg_bytes, 1, 1073741824, NULL,
                 "MIN,MAX (uniform in log) or one size [bytes]"),
        SCN__KEY(SCN_SEC_TENANT, "depth", SCN_T_U64, scn_tenant, depth, 1, 4096, NULL,
                 "messages outstanding per QP"),
        SCN__KEY(SCN_SEC_TENANT, "pattern", SCN_T_CHOICE, scn_tenant, pattern, 0, 0, pattern,
                 "who sends to whom"),
        SCN__KEY(SCN_SEC_TENANT, "dst", SCN_T_HOSTS, scn_tenant, dst, 0, SCN_MAX_HOSTS - 1, NULL,
                 "incast: destination hosts"),
        SCN__KEY(SCN_SEC_TENANT, "src", SCN_T_HOSTS, scn_tenant, src, 0, SCN_MAX_HOSTS - 1, NULL,
                 "sending hosts, empty = all (incast: all but dst)"),
        SCN__KEY(SCN_SEC_TENANT, "pairs", SCN_T_PAIRS, scn_tenant, pairs, 0, SCN_MAX_HOSTS - 1, NULL,
                 "pattern pairs: SRC>DST, ..."),
        SCN__KEY(SCN_SEC_TENANT, "traffic", SCN_T_CHOICE, scn_tenant, traffic, 0, 0, traffic,
                 "backlog: every QP keeps depth messages posted; poisson: flows arrive at load_pct of each sender's link; burst: every burst_us each sender starts a flow to each destination; file: the flows of run.flow_file"),
        SCN__KEY(SCN_SEC_TENANT, "load_pct", SCN_T_U64, scn_tenant, load_pct, 1, 100, NULL,
                 "traffic = poisson: offered load of each sending host's link [%]"),
        SCN__KEY(SCN_SEC_TENANT, "burst_us", SCN_T_U64, scn_tenant, burst_us, 1, 1000000000, NULL,
                 "traffic = burst: the bursts' period [us]"),
        SCN__KEY(SCN_SEC_TENANT, "size_cdf", SCN_T_STRING, scn_tenant, size_cdf, 0, 0, NULL,
                 "traffic = poisson or burst: flow sizes from this CDF file (HPCC simulator's format: SIZE PERCENT per line); empty = msg_bytes"),
        SCN__KEY(SCN_SEC_OUTPUT, "csv", SCN_T_STRING, scn, out.csv, 0, 0, NULL, "per-QP results, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "queue_csv", SCN_T_STRING, scn, out.queue_csv, 0, 0, NULL,
                 "queues over time, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "links_csv", SCN_T_STRING, scn, out.links_csv, 0, 0, NULL,
                 "per-link utilization, queue, marks, drops, pauses over the window, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "pcap", SCN_T_STRING, scn, out.pcap, 0, 0, NULL, "every packet, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "trace_csv", SCN_T_STRING, scn, out.trace_csv, 0, 0, NULL,
                 "engines' trace events, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "vcd", SCN_T_STRING, scn, out.vcd, 0, 0, NULL, "VCD waveform, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "fct_csv", SCN_T_STRING, scn, out.fct_csv, 0, 0, NULL,
                 "open-loop flows: one line per flow (its FCT and slowdown), empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "fct_buckets_csv", SCN_T_STRING, scn, out.fct_buckets_csv, 0, 0, NULL,
                 "open-loop flows: FCT slowdown p50 / p95 / p99 per size bucket (tenths of the flows by size), empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "tenants_csv", SCN_T_STRING, scn, out.tenants_csv, 0, 0, NULL,
                 "each tenant's delivered Gb/s per queue sample period, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "plots", SCN_T_STRING, scn, out.plots, 0, 0, NULL,
                 "a directory: the run's figures (PNG, gnuplot) and the CSVs they draw, empty = none"),
        SCN__KEY(SCN_SEC_OUTPUT, "snaplen", SCN_T_U64, scn, out.snaplen, 64, 65535, NULL,
                 "pcap bytes kept per frame"),
        SCN__KEY(SCN_SEC_OUTPUT, "queue_sample_us", SCN_T_U64, scn, out.queue_sample_us, 1, 1000000, NULL,
                 "queue samples (queue_csv, queue_max_kb) every N us of the window"),
        SCN__KEY(SCN_SEC_OUTPUT, "pcap_us", SCN_T_U64, scn, out.pcap_us, 0, 1000000000, NULL,
                 "pcap: frames sent in the first N us only, 0 = all"),
        SCN__KEY(SCN_SEC_OUTPUT, "lat_samples", SCN_T_U64, scn, out.lat_samples, 0, 268435456, NULL,
                 "message latencies kept per receiving NIC for the FCT percentiles, then a uniform sample; 0 = all"),
    };
    *count = sizeof keys / sizeof keys[0];
    return keys;
}

/* ---------------------------------------------------------------- small helpers */

SCN_DEF void scn__copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Fill err: "file:line: [section] key: message" (the parts that apply). */
SCN_DEF int scn__fail(scn_error *err, scn_code code, const char *file, uint32_t line, uint32_t section,
                      const char *tenant, const char *key, const char *fmt, ...)
{
    char what[640], where[SCN_PATH_MAX + 32], sec[SCN_NAME_MAX + 24];
    va_list ap;
    if (!err)
        return (int)code;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    err->code = code;
    scn__copy(err->file, sizeof err->file, file ? file : "");
    err->line = line;
    err->key[0] = '\0';
    sec[0] = '\0';
    if (section < SCN_SECTIONS) {
        if (section == SCN_SEC_TENANT && tenant)
            snprintf(sec, sizeof sec, "[tenant %s] ", tenant);
        else
            snprintf(sec, sizeof sec, "[%s] ", scn_section_name(section));
        if (key && *key) {
            if (section == SCN_SEC_TENANT && tenant)
                snprintf(err->key, sizeof err->key, "tenant.%s.%s", tenant, key);
            else
                snprintf(err->key, sizeof err->key, "%s.%s", scn_section_name(section), key);
        }
    }
    if (line)
        snprintf(where, sizeof where, "%s:%u: ", err->file, (unsigned)line);
    else if (err->file[0])
        snprintf(where, sizeof where, "%s: ", err->file);
    else
        where[0] = '\0';
    snprintf(err->message, sizeof err->message, "%s%s%s%s%s", where, sec, key && *key ? key : "",
             key && *key ? ": " : "", what);
    return (int)code;
}

SCN_DEF int scn__space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* Trim a [b, e) slice in place. */
SCN_DEF void scn__trim(const char **b, const char **e)
{
    while (*b < *e && scn__space(**b))
        (*b)++;
    while (*e > *b && scn__space((*e)[-1]))
        (*e)--;
}

SCN_DEF int scn__name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* A tenant or node name: 1..SCN_NAME_MAX-1 of [A-Za-z0-9_-]; NULL or what is wrong. */
SCN_DEF const char *scn__check_name(const char *b, const char *e)
{
    const char *p;
    if (b == e)
        return "an empty name";
    if ((size_t)(e - b) >= SCN_NAME_MAX)
        return "a name longer than 23 characters";
    for (p = b; p < e; p++)
        if (!scn__name_char(*p))
            return "a name with a character other than letters, digits, '_' and '-'";
    return NULL;
}

/* One decimal whole number, the slice [b, e) trimmed, in [min, max]: SCN_OK, or SCN_EVALUE (not
 * a number) / SCN_ERANGE (negative, above 2^64 - 1, outside the range) with why[] filled. */
SCN_DEF int scn__number(const char *b, const char *e, uint64_t min, uint64_t max, uint64_t *out, char *why,
                        size_t whycap)
{
    const char *p;
    uint64_t v = 0;
    int overflow = 0;
    scn__trim(&b, &e);
    if (b == e) {
        snprintf(why, whycap, "empty value (a whole number %llu..%llu)", (unsigned long long)min,
                 (unsigned long long)max);
        return SCN_EVALUE;
    }
    if (*b == '-') {
        snprintf(why, whycap, "'%.*s' is negative (range %llu..%llu)", (int)(e - b), b, (unsigned long long)min,
                 (unsigned long long)max);
        return SCN_ERANGE;
    }
    for (p = b; p < e && *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10u)
            overflow = 1;
        else
            v = v * 10u + d;
    }
    if (p == b) {
        snprintf(why, whycap, "'%.*s' is not a whole number", (int)(e - b), b);
        return SCN_EVALUE;
    }
    if (p < e) {
        snprintf(why, whycap, "'%.*s' is not a whole number (trailing '%.*s')", (int)(e - b), b, (int)(e - p), p);
        return SCN_EVALUE;
    }
    if (overflow) {
        snprintf(why, whycap, "%.*s does not fit in 64 bits (the limit is %llu)", (int)(e - b), b,
                 (unsigned long long)max);
        return SCN_ERANGE;
    }
    if (v > max) {
        snprintf(why, whycap, "%llu is above the limit %llu", (unsigned long long)v, (unsigned long long)max);
        return SCN_ERANGE;
    }
    if (v < min) {
        snprintf(why, whycap, "%llu is below the minimum %llu", (unsigned long long)v, (unsigned long long)min);
        return SCN_ERANGE;
    }
    *out = v;
    return SCN_OK;
}

static int scn__cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int scn__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A host list "1-15, 17" (empty: none) into a new stb_ds array *out: SCN_OK or a code + why[]. */
SCN_DEF int scn__hosts(const char *b, const char *e, uint64_t max, uint32_t **out, char *why, size_t whycap)
{
    uint32_t *list = NULL, *sorted;
    size_t i, n;
    int rc = SCN_EVALUE;
    scn__trim(&b, &e);
    while (b < e) {
        const char *c = b, *dash, *ie;
        uint64_t lo, hi, h;
        while (c < e && *c != ',')
            c++;
        ie = c;
        scn__trim(&b, &ie);
        if (b == ie) {
            snprintf(why, whycap, "an empty entry in the host list");
            goto bad;
        }
        for (dash = b; dash < ie && *dash != '-'; dash++)
            ;
        if (dash == b) /* a leading '-': a negative number */
            dash = ie;
        if ((rc = scn__number(b, dash, 0, max, &lo, why, whycap)) != SCN_OK)
            goto bad;
        hi = lo;
        if (dash < ie && (rc = scn__number(dash + 1, ie, 0, max, &hi, why, whycap)) != SCN_OK)
            goto bad;
        rc = SCN_EVALUE;
        if (hi < lo) {
            snprintf(why, whycap, "the range %llu-%llu runs backwards", (unsigned long long)lo,
                     (unsigned long long)hi);
            goto bad;
        }
        if ((uint64_t)arrlenu(list) + (hi - lo + 1u) > SCN_MAX_HOSTS) {
            snprintf(why, whycap, "more than %u hosts in the list", SCN_MAX_HOSTS);
            rc = SCN_ERANGE;
            goto bad;
        }
        for (h = lo; h <= hi; h++)
            arrput(list, (uint32_t)h);
        b = c < e ? c + 1 : c;
        if (c < e && b == e) {
            snprintf(why, whycap, "a trailing ',' in the host list");
            goto bad;
        }
    }
    n = arrlenu(list);
    if (n > 1) { /* a host twice is a mistake: say which */
        sorted = (uint32_t *)malloc(n * sizeof *sorted);
        if (!sorted) {
            snprintf(why, whycap, "out of memory");
            goto bad;
        }
        memcpy(sorted, list, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, scn__cmp_u32);
        for (i = 1; i < n; i++)
            if (sorted[i] == sorted[i - 1]) {
                snprintf(why, whycap, "host %u is listed twice", (unsigned)sorted[i]);
                free(sorted);
                goto bad;
            }
        free(sorted);
    }
    *out = list;
    return SCN_OK;
bad:
    arrfree(list);
    return rc;
}

/* Pairs "0>1, 2>3" (empty: none) into a new stb_ds array *out: SCN_OK or a code + why[]. */
SCN_DEF int scn__pairs(const char *b, const char *e, uint64_t max, scn_pair **out, char *why, size_t whycap)
{
    scn_pair *list = NULL;
    uint64_t *keys;
    size_t i, n;
    int rc = SCN_EVALUE;
    scn__trim(&b, &e);
    while (b < e) {
        const char *c = b, *gt, *ie;
        uint64_t s, d;
        scn_pair p;
        while (c < e && *c != ',')
            c++;
        ie = c;
        scn__trim(&b, &ie);
        for (gt = b; gt < ie && *gt != '>'; gt++)
            ;
        if (b == ie || gt == ie) {
            snprintf(why, whycap, "'%.*s' is not a pair SRC>DST", (int)(ie - b), b);
            goto bad;
        }
        if ((rc = scn__number(b, gt, 0, max, &s, why, whycap)) != SCN_OK ||
            (rc = scn__number(gt + 1, ie, 0, max, &d, why, whycap)) != SCN_OK)
            goto bad;
        rc = SCN_EVALUE;
        if (s == d) {
            snprintf(why, whycap, "the pair %llu>%llu sends to itself", (unsigned long long)s,
                     (unsigned long long)d);
            goto bad;
        }
        p.src = (uint32_t)s;
        p.dst = (uint32_t)d;
        arrput(list, p);
        b = c < e ? c + 1 : c;
        if (c < e && b == e) {
            snprintf(why, whycap, "a trailing ',' in the pair list");
            goto bad;
        }
    }
    n = arrlenu(list);
    if (n > 1) { /* a pair twice is a mistake: say which */
        keys = (uint64_t *)malloc(n * sizeof *keys);
        if (!keys) {
            snprintf(why, whycap, "out of memory");
            goto bad;
        }
        for (i = 0; i < n; i++)
            keys[i] = (uint64_t)list[i].src << 32 | list[i].dst;
        qsort(keys, n, sizeof *keys, scn__cmp_u64);
        for (i = 1; i < n; i++)
            if (keys[i] == keys[i - 1]) {
                snprintf(why, whycap, "the pair %u>%u is listed twice", (unsigned)(keys[i] >> 32),
                         (unsigned)(keys[i] & 0xffffffffu));
                free(keys);
                goto bad;
            }
        free(keys);
    }
    *out = list;
    return SCN_OK;
bad:
    arrfree(list);
    return rc;
}

/* Split the slice at whitespace into at most `max` words; returns the count (max + 1: too many). */
SCN_DEF size_t scn__words(const char *b, const char *e, const char **wb, const char **we, size_t max)
{
    size_t n = 0;
    for (;;) {
        while (b < e && scn__space(*b))
            b++;
        if (b == e)
            return n;
        if (n == max)
            return max + 1;
        wb[n] = b;
        while (b < e && !scn__space(*b))
            b++;
        we[n++] = b;
    }
}

/* ---------------------------------------------------------------- defaults */

SCN_DEF void scn__tenant_default(scn_tenant *t, const char *name)
{
    memset(t, 0, sizeof *t);
    scn__copy(t->name, sizeof t->name, name);
    t->weight = 1;
    t->cap_mbps = 0;
    t->protocol = SCN_DCQCN;
    t->variant = SCN_VARIANT_DEFAULT;
    t->recover = 0;
    t->qps = 8;
    t->msg_bytes.min = 1024;
    t->msg_bytes.max = 16384;
    t->depth = 8;
    t->pattern = SCN_INCAST;
    t->traffic = SCN_TRAFFIC_BACKLOG;
    t->load_pct = 30;
    t->burst_us = 100;
}

SCN_DEF void scn__tenant_free(scn_tenant *t)
{
    arrfree(t->dst);
    arrfree(t->src);
    arrfree(t->pairs);
}

/* Today's composed model (rnic_model.c's options_default and constants): a 2:1 incast on a
 * star of 3 hosts (hosts 1 and 2 send to host 0) at 100 Gb/s, tenant "bulk" (64 KB..1 MB) and
 * tenant "background" (1..16 KB), 8 QPs each, the host model at 3x CPU load with RHCC on both
 * sides. Two departures, both issue 30's: PFC thresholds default to derived (0) instead of the
 * fixed 1024/896 KB that refused more than two senders, and the switch's dynamic threshold
 * alpha is 1. Call scn_free when done. */
SCN_DEF void scn_config_default(scn *s)
{
    scn_tenant t;
    memset(s, 0, sizeof *s);
    s->run.duration_us = 10000;
    s->run.warmup_us = 2000;
    s->run.seed = 1;
    s->run.drain = 1;
    s->run.drain_limit_us = 100000;
    s->topo.shape = SCN_STAR;
    s->topo.k = 4;
    s->topo.hosts.n = 1;
    s->topo.hosts.v[0] = 3;
    s->topo.hosts.v[1] = 0;
    s->topo.leaves = 4;
    s->topo.spines = 2;
    s->topo.hosts_per_leaf = 4;
    s->topo.link_gbps = 100;
    s->topo.fabric_gbps = 100;
    s->topo.link_delay_ns = 100; /* LINK_PROP_NS: PHY + a few metres of fibre */
    s->topo.loss_ppm = 0;
    s->sw.buffer_kb = 4096;      /* SWITCH_BUFFER 4 MB */
    s->sw.ecn = SCN_ECN_RED;
    s->sw.ecn_kmin_kb = 400;
    s->sw.ecn_kmax_kb = 1600;
    s->sw.ecn_pmax_pct = 20;
    s->sw.pfc = 1;
    s->sw.dt_alpha.num = 1;
    s->sw.dt_alpha.den = 1;
    s->sw.trim = 0;
    s->sw.ecmp = 1;
    s->nic.sched = SCN_SCHED_PALOS;
    s->nic.pcie_gbps = 128;
    s->nic.pcie_latency_ns = 1000;
    s->nic.payload = 1024;
    s->nic.mtu = 1024;
    s->nic.cnp_interval_us = 50;
    s->host.model = 1;
    s->host.cpu_load = 3;
    s->host.rhcc = SCN_RHCC_BOTH;
    s->host.ddio = 1;
    s->host.footprint_mb = 16;
    s->nic.ack_every = 1;
    s->nic.ack_timeout_ns = 5000; /* under one round trip of the shipped fabrics */
    s->host.cpu_outstanding = 400; /* dual Xeon 6240: 36 cores x ~11 line-fill buffers (docs/hostcc_model.md) */
    s->host.probe_ts = SCN_PROBE_TS_PIPELINE; /* the paper's 120 - 900 ns probe delays (docs/hostcc_model.md) */
    s->host.cpu_evict_wb = 0; /* io */
    s->host.rx_pipeline = 4;
    s->host.probe_base_ns = 120;
    s->host.rhcc_slack = SCN_SLACK_FAST_DOWN;
    scn__tenant_default(&t, "bulk");
    t.msg_bytes.min = 65536;
    t.msg_bytes.max = 1048576;
    arrput(t.dst, 0u);
    arrput(s->tenants, t);
    scn__tenant_default(&t, "background");
    arrput(t.dst, 0u);
    arrput(s->tenants, t);
    s->out.snaplen = 128;
    s->out.queue_sample_us = 10;
    s->out.lat_samples = 65536;
}

SCN_DEF void scn_free(scn *s)
{
    size_t i;
    for (i = 0; i < arrlenu(s->tenants); i++)
        scn__tenant_free(&s->tenants[i]);
    arrfree(s->tenants);
    arrfree(s->topo.nodes);
    arrfree(s->topo.links);
}

/* ---------------------------------------------------------------- setting one key */

typedef struct scn__where {
    const char *file;
    uint32_t line;
    const char *tenant; /* the tenant's name in SCN_SEC_TENANT */
} scn__where;

/* Apply `value` to key k of `base` (scn, or scn_tenant for tenant keys); s for the lists. */
SCN_DEF int scn__apply(scn *s, void *base, const scn_key *k, const char *value, const scn__where *w, scn_error *err)
{
    char why[512];
    const char *b = value, *e = value + strlen(value);
    unsigned char *field = (unsigned char *)base + k->offset;
    uint64_t v;
    size_t i;
    int rc;
    why[0] = '\0';
    scn__trim(&b, &e);
#define SCN__BAD(code, ...) return scn__fail(err, code, w->file, w->line, k->section, w->tenant, k->name, __VA_ARGS__)
    switch (k->type) {
    case SCN_T_U64:
        if ((rc = scn__number(b, e, k->min, k->max, &v, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "%s", why);
        if (k->size == 8) {
            uint64_t x = v;
            memcpy(field, &x, 8);
        } else {
            uint32_t x = (uint32_t)v;
            memcpy(field, &x, 4);
        }
        return SCN_OK;
    case SCN_T_CHOICE: {
        char list[256];
        size_t used = 0;
        for (i = 0; k->choices[i]; i++)
            if (strlen(k->choices[i]) == (size_t)(e - b) && !memcmp(k->choices[i], b, (size_t)(e - b))) {
                uint32_t x = (uint32_t)i;
                memcpy(field, &x, 4);
                return SCN_OK;
            }
        list[0] = '\0';
        for (i = 0; k->choices[i]; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? " | " : "", k->choices[i]);
        if (b == e)
            SCN__BAD(SCN_EVALUE, "empty value (one of %s)", list);
        SCN__BAD(SCN_EVALUE, "unknown %s '%.*s' (one of %s)", k->name, (int)(e - b), b, list);
    }
    case SCN_T_BOOL: {
        uint32_t x;
        if ((e - b) == 2 && !memcmp(b, "on", 2))
            x = 1;
        else if ((e - b) == 3 && !memcmp(b, "off", 3))
            x = 0;
        else if (b == e)
            SCN__BAD(SCN_EVALUE, "empty value (on or off)");
        else
            SCN__BAD(SCN_EVALUE, "'%.*s' is neither on nor off", (int)(e - b), b);
        memcpy(field, &x, 4);
        return SCN_OK;
    }
    case SCN_T_FRACTION: {
        const char *slash = b;
        uint64_t num, den = 1;
        scn_fraction f;
        while (slash < e && *slash != '/')
            slash++;
        if ((rc = scn__number(b, slash, k->min, k->max, &num, why, sizeof why)) != SCN_OK ||
            (slash < e && (rc = scn__number(slash + 1, e, k->min, k->max, &den, why, sizeof why)) != SCN_OK))
            SCN__BAD((scn_code)rc, "%s (a fraction N or N/D)", why);
        f.num = (uint32_t)num;
        f.den = (uint32_t)den;
        memcpy(field, &f, sizeof f);
        return SCN_OK;
    }
    case SCN_T_STRING:
        if ((size_t)(e - b) >= SCN_PATH_MAX)
            SCN__BAD(SCN_ERANGE, "%u bytes is above the limit %u", (unsigned)(e - b), SCN_PATH_MAX - 1u);
        for (i = 0; i < (size_t)(e - b); i++)
            if (b[i] == '#' || b[i] == '\n' || b[i] == '\r')
                SCN__BAD(SCN_EVALUE, "a path cannot hold '#' or a line break (the file format could not write it)");
        memcpy(field, b, (size_t)(e - b));
        field[e - b] = '\0';
        return SCN_OK;
    case SCN_T_COUNTS:
    case SCN_T_SIZES: {
        const char *comma = b;
        uint64_t x = 0, y = 0;
        while (comma < e && *comma != ',')
            comma++;
        if ((rc = scn__number(b, comma, k->min, k->max, &x, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "%s", why);
        y = x;
        if (comma < e && (rc = scn__number(comma + 1, e, k->min, k->max, &y, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "%s (one number, or two: A,B)", why);
        if (k->type == SCN_T_SIZES) {
            scn_sizes z;
            if (y < x)
                SCN__BAD(SCN_EVALUE, "MIN %llu is above MAX %llu", (unsigned long long)x, (unsigned long long)y);
            z.min = (uint32_t)x;
            z.max = (uint32_t)y;
            memcpy(field, &z, sizeof z);
        } else {
            scn_counts z;
            z.n = comma < e ? 2u : 1u;
            z.v[0] = (uint32_t)x;
            z.v[1] = comma < e ? (uint32_t)y : 0u;
            memcpy(field, &z, sizeof z);
        }
        return SCN_OK;
    }
    case SCN_T_HOSTS: {
        uint32_t *list = NULL, *old;
        if ((rc = scn__hosts(b, e, k->max, &list, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "%s", why);
        memcpy(&old, field, sizeof old);
        arrfree(old);
        memcpy(field, &list, sizeof list);
        return SCN_OK;
    }
    case SCN_T_PAIRS: {
        scn_pair *list = NULL, *old;
        if ((rc = scn__pairs(b, e, k->max, &list, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "%s", why);
        memcpy(&old, field, sizeof old);
        arrfree(old);
        memcpy(field, &list, sizeof list);
        return SCN_OK;
    }
    case SCN_T_NODE: {
        const char *wb[4], *we[4], *bad;
        scn_node n;
        size_t nw = scn__words(b, e, wb, we, 3);
        if (nw < 2 || nw > 3)
            SCN__BAD(SCN_EVALUE, "'%.*s' is not NAME host, or NAME switch [TIER]", (int)(e - b), b);
        if ((bad = scn__check_name(wb[0], we[0])) != NULL)
            SCN__BAD(SCN_EVALUE, "'%.*s' is %s", (int)(we[0] - wb[0]), wb[0], bad);
        memset(&n, 0, sizeof n);
        memcpy(n.name, wb[0], (size_t)(we[0] - wb[0]));
        if (we[1] - wb[1] == 4 && !memcmp(wb[1], "host", 4)) {
            if (nw == 3)
                SCN__BAD(SCN_EVALUE, "host '%s' takes no tier (hosts are tier 0)", n.name);
        } else if (we[1] - wb[1] == 6 && !memcmp(wb[1], "switch", 6)) {
            n.is_switch = 1;
            n.tier = 1;
            if (nw == 3) {
                if ((rc = scn__number(wb[2], we[2], 1, SCN_MAX_TIER, &v, why, sizeof why)) != SCN_OK)
                    SCN__BAD((scn_code)rc, "TIER: %s", why);
                n.tier = (uint32_t)v;
            }
        } else
            SCN__BAD(SCN_EVALUE, "unknown node kind '%.*s' (host | switch)", (int)(we[1] - wb[1]), wb[1]);
        for (i = 0; i < arrlenu(s->topo.nodes); i++)
            if (!strcmp(s->topo.nodes[i].name, n.name))
                SCN__BAD(SCN_EDUPLICATE, "node '%s' is defined twice", n.name);
        if (arrlenu(s->topo.nodes) >= SCN_MAX_NODES)
            SCN__BAD(SCN_ERANGE, "more than %u nodes", SCN_MAX_NODES);
        arrput(s->topo.nodes, n);
        return SCN_OK;
    }
    case SCN_T_LINK: {
        const char *wb[6], *we[6], *bad;
        scn_link l;
        size_t nw = scn__words(b, e, wb, we, 5);
        uint64_t x;
        if (nw < 4 || nw > 5)
            SCN__BAD(SCN_EVALUE, "'%.*s' is not A B GBPS DELAY_NS [LOSS_PPM]", (int)(e - b), b);
        memset(&l, 0, sizeof l);
        for (i = 0; i < 2; i++)
            if ((bad = scn__check_name(wb[i], we[i])) != NULL)
                SCN__BAD(SCN_EVALUE, "'%.*s' is %s", (int)(we[i] - wb[i]), wb[i], bad);
        memcpy(l.a, wb[0], (size_t)(we[0] - wb[0]));
        memcpy(l.b, wb[1], (size_t)(we[1] - wb[1]));
        if ((rc = scn__number(wb[2], we[2], 1, 1600, &l.gbps, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "GBPS: %s", why);
        if ((rc = scn__number(wb[3], we[3], 0, 1000000000, &l.delay_ns, why, sizeof why)) != SCN_OK)
            SCN__BAD((scn_code)rc, "DELAY_NS: %s", why);
        if (nw == 5) {
            if ((rc = scn__number(wb[4], we[4], 0, 1000000, &x, why, sizeof why)) != SCN_OK)
                SCN__BAD((scn_code)rc, "LOSS_PPM: %s", why);
            l.loss_ppm = (uint32_t)x;
        }
        if (arrlenu(s->topo.links) >= SCN_MAX_NODES)
            SCN__BAD(SCN_ERANGE, "more than %u links", SCN_MAX_NODES);
        arrput(s->topo.links, l);
        return SCN_OK;
    }
    }
#undef SCN__BAD
    return scn__fail(err, SCN_EVALUE, w->file, w->line, k->section, w->tenant, k->name, "key of unknown type");
}

/* The key table as a string hash map "section.key" -> index (stb_ds, built per call: ~60 keys). */
typedef struct scn__keymap { char *key; size_t value; } scn__keymap;

SCN_DEF scn__keymap *scn__keymap_build(void)
{
    scn__keymap *map = NULL;
    size_t n, i;
    const scn_key *keys = scn_keys(&n);
    char buf[96];
    sh_new_strdup(map);
    for (i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%s.%s", scn_section_name(keys[i].section), keys[i].name);
        shput(map, buf, i);
    }
    return map;
}

/* "the keys of [switch]: a, b, c" for an unknown key's message. */
SCN_DEF void scn__section_keys(uint32_t section, char *out, size_t cap)
{
    size_t n, i, used = 0;
    const scn_key *keys = scn_keys(&n);
    out[0] = '\0';
    for (i = 0; i < n && used < cap; i++)
        if (keys[i].section == section)
            used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? ", " : "", keys[i].name);
}

SCN_DEF int scn__find_tenant(const scn *s, const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < arrlenu(s->tenants); i++)
        if (strlen(s->tenants[i].name) == len && !memcmp(s->tenants[i].name, name, len))
            return (int)i;
    return -1;
}

/* The index of the explicit node named `name`, -1 when none. */
SCN_DEF int scn_node_index(const scn *s, const char *name)
{
    size_t i;
    for (i = 0; i < arrlenu(s->topo.nodes); i++)
        if (!strcmp(s->topo.nodes[i].name, name))
            return (int)i;
    return -1;
}

/* ---------------------------------------------------------------- parsing */

/* Parse a scenario held in `text` (NUL-terminated; `name` is the file name for messages) on top
 * of what s holds (scn_config_default first). A file that names tenants replaces the tenant
 * list; the first node (link) line replaces the explicit nodes (links). On error s keeps the
 * keys set before the bad line; scn_free it either way. */
SCN_DEF int scn_parse_text(scn *s, const char *name, const char *text, scn_error *err)
{
    scn__keymap *map = scn__keymap_build();
    struct { char *key; uint32_t value; } *seen = NULL; /* "section.key" -> line it was set on */
    const char *p = text;
    uint32_t line = 0;
    int section = -1, tenant = -1, rc = SCN_OK;
    int tenants_replaced = 0, nodes_replaced = 0, links_replaced = 0;
    char id[SCN_NAME_MAX + 160], why[512];
    char *value = NULL; /* stb_ds: the current value, NUL-terminated */
    size_t nkeys;
    const scn_key *keys = scn_keys(&nkeys);
    if (!name)
        name = "(text)";
    if (!s || !text) {
        shfree(map);
        return scn__fail(err, SCN_EVALUE, name, 0, SCN_SECTIONS, NULL, NULL, "no scenario or no text (NULL)");
    }
    sh_new_strdup(seen);
    while (*p && rc == SCN_OK) {
        const char *b = p, *e, *eq, *hash;
        scn__where w;
        ptrdiff_t ki;
        const scn_key *k;
        while (*p && *p != '\n')
            p++;
        e = p;
        if (*p)
            p++;
        line++;
        for (hash = b; hash < e && *hash != '#'; hash++)
            ;
        e = hash;
        scn__trim(&b, &e);
        if (b == e)
            continue;
        w.file = name;
        w.line = line;
        w.tenant = section == SCN_SEC_TENANT && tenant >= 0 ? s->tenants[tenant].name : NULL;
        if (*b == '[') {
            const char *nb, *ne, *sb, *se;
            uint32_t sec;
            if (e[-1] != ']') {
                rc = scn__fail(err, SCN_ESYNTAX, name, line, SCN_SECTIONS, NULL, NULL,
                               "'%.*s': a section header without its closing ']'", (int)(e - b), b);
                break;
            }
            sb = b + 1;
            se = e - 1;
            scn__trim(&sb, &se);
            for (ne = sb; ne < se && !scn__space(*ne); ne++)
                ;
            nb = ne;
            scn__trim(&nb, &se);
            for (sec = 0; sec < SCN_SECTIONS; sec++)
                if (strlen(scn_section_name(sec)) == (size_t)(ne - sb) && !memcmp(scn_section_name(sec), sb, (size_t)(ne - sb)))
                    break;
            if (sec == SCN_SECTIONS) {
                rc = scn__fail(err, SCN_EUNKNOWN, name, line, SCN_SECTIONS, NULL, NULL,
                               "unknown section [%.*s] (run, topology, switch, nic, host, tenant NAME, output)",
                               (int)(ne - sb), sb);
                break;
            }
            section = (int)sec;
            tenant = -1;
            if (sec != SCN_SEC_TENANT) {
                if (nb < se) {
                    rc = scn__fail(err, SCN_ESYNTAX, name, line, sec, NULL, NULL,
                                   "section [%s] takes no name ('%.*s')", scn_section_name(sec), (int)(se - nb), nb);
                    break;
                }
                continue;
            }
            {
                const char *bad = scn__check_name(nb, se);
                scn_tenant t;
                uint32_t first;
                if (nb == se) {
                    rc = scn__fail(err, SCN_ESYNTAX, name, line, SCN_SECTIONS, NULL, NULL,
                                   "[tenant] needs a name: [tenant NAME]");
                    break;
                }
                if (bad) {
                    rc = scn__fail(err, SCN_ESYNTAX, name, line, SCN_SECTIONS, NULL, NULL, "[tenant %.*s]: %s",
                                   (int)(se - nb), nb, bad);
                    break;
                }
                snprintf(id, sizeof id, "tenant.%.*s", (int)(se - nb), nb);
                if ((first = shget(seen, id)) != 0) {
                    rc = scn__fail(err, SCN_EDUPLICATE, name, line, SCN_SECTIONS, NULL, NULL,
                                   "[tenant %.*s] is defined twice (first at line %u)", (int)(se - nb), nb,
                                   (unsigned)first);
                    break;
                }
                shput(seen, id, line);
                if (!tenants_replaced) {
                    size_t i;
                    for (i = 0; i < arrlenu(s->tenants); i++)
                        scn__tenant_free(&s->tenants[i]);
                    arrfree(s->tenants);
                    tenants_replaced = 1;
                }
                if (arrlenu(s->tenants) >= SCN_MAX_TENANTS) {
                    rc = scn__fail(err, SCN_ERANGE, name, line, SCN_SECTIONS, NULL, NULL,
                                   "[tenant %.*s]: more than %u tenants", (int)(se - nb), nb, SCN_MAX_TENANTS);
                    break;
                }
                memcpy(id, nb, (size_t)(se - nb));
                id[se - nb] = '\0';
                scn__tenant_default(&t, id);
                arrput(s->tenants, t);
                tenant = (int)arrlen(s->tenants) - 1;
            }
            continue;
        }
        for (eq = b; eq < e && *eq != '='; eq++)
            ;
        {
            const char *kb = b, *ke = eq;
            char keyname[64];
            uint32_t first;
            scn__trim(&kb, &ke);
            if (eq == e) /* no '=': the key is the first word */
                for (ke = kb; ke < e && !scn__space(*ke); ke++)
                    ;
            snprintf(keyname, sizeof keyname, "%.*s", (int)(ke - kb), kb);
            if (eq == e) {
                rc = scn__fail(err, SCN_ESYNTAX, name, line, section >= 0 ? (uint32_t)section : (uint32_t)SCN_SECTIONS,
                               w.tenant, NULL, "'%.*s': missing '=' (key = value)", (int)(e - b), b);
                if (err)
                    snprintf(err->key, sizeof err->key, "%s%s%s", section >= 0 ? scn_section_name((uint32_t)section) : "",
                             section >= 0 ? "." : "", keyname);
                break;
            }
            if (section < 0) {
                rc = scn__fail(err, SCN_ESYNTAX, name, line, SCN_SECTIONS, NULL, NULL,
                               "%s: a key before any [section]", keyname);
                if (err)
                    scn__copy(err->key, sizeof err->key, keyname);
                break;
            }
            if (kb == ke) {
                rc = scn__fail(err, SCN_ESYNTAX, name, line, (uint32_t)section, w.tenant, NULL,
                               "a value without a key ('= ...')");
                break;
            }
            snprintf(id, sizeof id, "%s.%s", scn_section_name((uint32_t)section), keyname);
            ki = shgeti(map, id);
            if (ki < 0) {
                scn__section_keys((uint32_t)section, why, sizeof why);
                rc = scn__fail(err, SCN_EUNKNOWN, name, line, (uint32_t)section, w.tenant, keyname,
                               "unknown key (the keys of [%s]: %s)", scn_section_name((uint32_t)section), why);
                break;
            }
            k = &keys[map[ki].value];
            if (k->type != SCN_T_NODE && k->type != SCN_T_LINK) {
                if (w.tenant)
                    snprintf(id, sizeof id, "tenant.%s.%s", w.tenant, keyname);
                if ((first = shget(seen, id)) != 0) {
                    rc = scn__fail(err, SCN_EDUPLICATE, name, line, (uint32_t)section, w.tenant, keyname,
                                   "set twice in this section (first at line %u)", (unsigned)first);
                    break;
                }
                shput(seen, id, line);
            } else if (k->type == SCN_T_NODE && !nodes_replaced) {
                arrfree(s->topo.nodes);
                nodes_replaced = 1;
            } else if (k->type == SCN_T_LINK && !links_replaced) {
                arrfree(s->topo.links);
                links_replaced = 1;
            }
            {
                const char *vb = eq + 1, *ve = e;
                scn__trim(&vb, &ve);
                arrsetlen(value, (size_t)(ve - vb) + 1u);
                memcpy(value, vb, (size_t)(ve - vb));
                value[ve - vb] = '\0';
            }
            rc = scn__apply(s, section == SCN_SEC_TENANT ? (void *)&s->tenants[tenant] : (void *)s, k, value, &w,
                            err);
        }
    }
    arrfree(value);
    shfree(seen);
    shfree(map);
    return rc;
}

/* Read the file at `path` and parse it (scn_parse_text). A file that cannot be read is SCN_EIO,
 * its message naming the path and the system's reason. */
SCN_DEF int scn_parse_file(scn *s, const char *path, scn_error *err)
{
    FILE *f;
    char *text = NULL;
    size_t n = 0, got;
    int rc;
    if (!s || !path)
        return scn__fail(err, SCN_EVALUE, path ? path : "", 0, SCN_SECTIONS, NULL, NULL, "no scenario or no path (NULL)");
    f = fopen(path, "rb");
    if (!f)
        return scn__fail(err, SCN_EIO, path, 0, SCN_SECTIONS, NULL, NULL, "cannot open: %s", strerror(errno));
    for (;;) {
        arrsetlen(text, n + 65536u);
        got = fread(text + n, 1, 65536u, f);
        n += got;
        if (got < 65536u)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        arrfree(text);
        return scn__fail(err, SCN_EIO, path, 0, SCN_SECTIONS, NULL, NULL, "cannot read: %s", strerror(e));
    }
    fclose(f);
    arrsetlen(text, n + 1u);
    text[n] = '\0';
    if (memchr(text, '\0', n)) { /* a NUL would end the text early: say where */
        uint32_t line = 1;
        const char *q;
        for (q = text; *q; q++)
            line += *q == '\n';
        arrfree(text);
        return scn__fail(err, SCN_ESYNTAX, path, line, SCN_SECTIONS, NULL, NULL, "a NUL byte (not a text file)");
    }
    rc = scn_parse_text(s, path, text, err);
    arrfree(text);
    return rc;
}

/* A command-line override: `section.key` (`tenant.NAME.key` for a tenant's key) = value, as if
 * the line `key = value` stood in that section. node and link append. Errors name "--set". */
SCN_DEF int scn_set(scn *s, const char *section_dot_key, const char *value, scn_error *err)
{
    const char *dot, *keyname;
    scn__keymap *map;
    scn__where w;
    char id[160];
    ptrdiff_t ki;
    uint32_t sec;
    int tenant = -1, rc;
    size_t nkeys;
    const scn_key *keys = scn_keys(&nkeys);
    w.file = "--set";
    w.line = 0;
    w.tenant = NULL;
    if (!s || !section_dot_key || !value)
        return scn__fail(err, SCN_EVALUE, "--set", 0, SCN_SECTIONS, NULL, NULL, "no scenario, key or value (NULL)");
    dot = strchr(section_dot_key, '.');
    if (!dot)
        return scn__fail(err, SCN_ESYNTAX, "--set", 0, SCN_SECTIONS, NULL, NULL,
                         "'%s': expected SECTION.KEY=VALUE (tenant.NAME.KEY=VALUE)", section_dot_key);
    for (sec = 0; sec < SCN_SECTIONS; sec++)
        if (strlen(scn_section_name(sec)) == (size_t)(dot - section_dot_key) &&
            !memcmp(scn_section_name(sec), section_dot_key, (size_t)(dot - section_dot_key)))
            break;
    if (sec == SCN_SECTIONS)
        return scn__fail(err, SCN_EUNKNOWN, "--set", 0, SCN_SECTIONS, NULL, NULL,
                         "'%s': unknown section '%.*s' (run, topology, switch, nic, host, tenant, output)",
                         section_dot_key, (int)(dot - section_dot_key), section_dot_key);
    keyname = dot + 1;
    if (sec == SCN_SEC_TENANT) {
        const char *dot2 = strchr(keyname, '.');
        if (!dot2)
            return scn__fail(err, SCN_ESYNTAX, "--set", 0, SCN_SECTIONS, NULL, NULL,
                             "'%s': a tenant's key is tenant.NAME.KEY", section_dot_key);
        tenant = scn__find_tenant(s, keyname, (size_t)(dot2 - keyname));
        if (tenant < 0) {
            rc = scn__fail(err, SCN_EUNKNOWN, "--set", 0, SCN_SECTIONS, NULL, NULL, "'%s': no tenant named '%.*s'",
                           section_dot_key, (int)(dot2 - keyname), keyname);
            if (err)
                scn__copy(err->key, sizeof err->key, section_dot_key);
            return rc;
        }
        w.tenant = s->tenants[tenant].name;
        keyname = dot2 + 1;
    }
    snprintf(id, sizeof id, "%s.%s", scn_section_name(sec), keyname);
    map = scn__keymap_build();
    ki = shgeti(map, id);
    if (ki < 0) {
        char list[512];
        shfree(map);
        scn__section_keys(sec, list, sizeof list);
        return scn__fail(err, SCN_EUNKNOWN, "--set", 0, sec, w.tenant, keyname, "unknown key (the keys of [%s]: %s)",
                         scn_section_name(sec), list);
    }
    rc = scn__apply(s, tenant >= 0 ? (void *)&s->tenants[tenant] : (void *)s, &keys[map[ki].value], value, &w, err);
    shfree(map);
    return rc;
}

/* ---------------------------------------------------------------- shape and validation */

/* Hosts of the shape: ids 0 .. count-1 (star and dumbbell left to right, leaf_spine leaf by
 * leaf, fat_tree pod by pod, explicit in node order). */
SCN_DEF uint64_t scn_host_count(const scn *s)
{
    size_t i;
    uint64_t n = 0;
    switch (s->topo.shape) {
    case SCN_STAR: return s->topo.hosts.v[0];
    case SCN_DUMBBELL: return (uint64_t)s->topo.hosts.v[0] + s->topo.hosts.v[1];
    case SCN_LEAF_SPINE: return (uint64_t)s->topo.leaves * s->topo.hosts_per_leaf;
    case SCN_FAT_TREE: return (uint64_t)s->topo.k * s->topo.k * s->topo.k / 4u;
    default:
        for (i = 0; i < arrlenu(s->topo.nodes); i++)
            n += !s->topo.nodes[i].is_switch;
        return n;
    }
}

/* Switches of the shape (star 1, dumbbell 2, leaf_spine leaves + spines, fat_tree 5k^2/4). */
SCN_DEF uint64_t scn_switch_count(const scn *s)
{
    size_t i;
    uint64_t n = 0;
    switch (s->topo.shape) {
    case SCN_STAR: return 1;
    case SCN_DUMBBELL: return 2;
    case SCN_LEAF_SPINE: return (uint64_t)s->topo.leaves + s->topo.spines;
    case SCN_FAT_TREE: return 5ull * s->topo.k * s->topo.k / 4u;
    default:
        for (i = 0; i < arrlenu(s->topo.nodes); i++)
            n += s->topo.nodes[i].is_switch;
        return n;
    }
}

#define SCN__INVALID(sec, tenant, key, ...) scn__fail(err, SCN_EINVALID, "", 0, sec, tenant, key, __VA_ARGS__)

SCN_DEF int scn__check_ids(const uint32_t *ids, uint64_t hosts, const char *tenant, const char *key, scn_error *err)
{
    size_t i;
    for (i = 0; i < arrlenu(ids); i++)
        if (ids[i] >= hosts)
            return SCN__INVALID(SCN_SEC_TENANT, tenant, key, "host %u is not below the shape's %llu hosts",
                                (unsigned)ids[i], (unsigned long long)hosts);
    return SCN_OK;
}

/* Cross-key checks (and every key's range again, for a struct filled by hand). */
SCN_DEF int scn_validate(const scn *s, scn_error *err)
{
    size_t nkeys, i, j, t, file_tenants = 0;
    const scn_key *keys = scn_keys(&nkeys);
    uint64_t hosts;
    for (t = 0; t <= arrlenu(s->tenants); t++) /* the ranges: every number key of s and of each tenant */
        for (i = 0; i < nkeys; i++) {
            const scn_key *k = &keys[i];
            const unsigned char *base;
            uint64_t v;
            if ((t == 0) != (k->section != SCN_SEC_TENANT))
                continue;
            base = t == 0 ? (const unsigned char *)s : (const unsigned char *)&s->tenants[t - 1];
            if (k->type == SCN_T_U64 || k->type == SCN_T_BOOL || k->type == SCN_T_CHOICE) {
                uint64_t max = k->max;
                if (k->type == SCN_T_U64 && k->size == 8)
                    memcpy(&v, base + k->offset, 8);
                else {
                    uint32_t x;
                    memcpy(&x, base + k->offset, 4);
                    v = x;
                }
                if (k->type == SCN_T_CHOICE)
                    for (max = 0; k->choices[max + 1]; max++)
                        ;
                if (v < k->min || v > max)
                    return SCN__INVALID(k->section, t ? s->tenants[t - 1].name : NULL, k->name,
                                        "%llu is outside %llu..%llu", (unsigned long long)v,
                                        (unsigned long long)k->min, (unsigned long long)max);
            } else if (k->type == SCN_T_SIZES || k->type == SCN_T_FRACTION) {
                uint32_t x[2];
                memcpy(x, base + k->offset, sizeof x);
                if (x[0] < k->min || x[0] > k->max || x[1] < k->min || x[1] > k->max ||
                    (k->type == SCN_T_SIZES && x[0] > x[1]))
                    return SCN__INVALID(k->section, t ? s->tenants[t - 1].name : NULL, k->name,
                                        "%u,%u is outside %llu..%llu (or MIN above MAX)", (unsigned)x[0],
                                        (unsigned)x[1], (unsigned long long)k->min, (unsigned long long)k->max);
            }
        }
    if (s->run.warmup_us >= s->run.duration_us)
        return SCN__INVALID(SCN_SEC_RUN, NULL, "warmup_us", "%llu is not below duration_us %llu",
                            (unsigned long long)s->run.warmup_us, (unsigned long long)s->run.duration_us);
    if (s->topo.shape != SCN_EXPLICIT && (arrlenu(s->topo.nodes) || arrlenu(s->topo.links)))
        return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, arrlenu(s->topo.nodes) ? "node" : "link",
                            "given with shape %s (node and link are for shape explicit)",
                            scn_shape_names()[s->topo.shape]);
    switch (s->topo.shape) {
    case SCN_STAR:
        if (s->topo.hosts.n != 1 || s->topo.hosts.v[0] < 2)
            return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "hosts", "star takes one number of hosts, at least 2");
        break;
    case SCN_DUMBBELL:
        if (s->topo.hosts.n != 2 || !s->topo.hosts.v[0] || !s->topo.hosts.v[1])
            return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "hosts", "dumbbell takes LEFT,RIGHT hosts, each at least 1");
        break;
    case SCN_LEAF_SPINE:
        if ((uint64_t)s->topo.leaves * s->topo.hosts_per_leaf < 2)
            return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "hosts_per_leaf", "leaf_spine needs at least 2 hosts");
        break;
    case SCN_FAT_TREE:
        if (s->topo.k % 2u)
            return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "k", "fat_tree needs an even k, not %u", (unsigned)s->topo.k);
        break;
    default: /* explicit */
        for (i = 0; i < arrlenu(s->topo.nodes); i++)
            for (j = i + 1; j < arrlenu(s->topo.nodes); j++)
                if (!strcmp(s->topo.nodes[i].name, s->topo.nodes[j].name))
                    return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "node", "node '%s' is defined twice",
                                        s->topo.nodes[i].name);
        for (i = 0; i < arrlenu(s->topo.links); i++) {
            const scn_link *l = &s->topo.links[i];
            if (scn_node_index(s, l->a) < 0 || scn_node_index(s, l->b) < 0)
                return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "link", "link %s %s names an undefined node '%s'", l->a,
                                    l->b, scn_node_index(s, l->a) < 0 ? l->a : l->b);
            if (!strcmp(l->a, l->b))
                return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "link", "link %s %s joins a node to itself", l->a, l->b);
            if (!l->gbps)
                return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "link", "link %s %s has rate 0", l->a, l->b);
        }
        if (scn_host_count(s) < 2)
            return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "node", "explicit needs at least 2 host nodes");
        {
            size_t nn = arrlenu(s->topo.nodes), pieces = nn, *root = (size_t *)malloc((nn + 1u) * sizeof *root);
            uint32_t *links = (uint32_t *)calloc(nn + 1u, sizeof *links);
            int rc = SCN_OK;
            if (!root || !links) {
                free(root);
                free(links);
                return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "node", "out of memory");
            }
            for (i = 0; i < nn; i++)
                root[i] = i;
            for (i = 0; i < arrlenu(s->topo.links); i++) { /* union-find: the graph in one piece */
                size_t a = (size_t)scn_node_index(s, s->topo.links[i].a), b = (size_t)scn_node_index(s, s->topo.links[i].b);
                links[a]++;
                links[b]++;
                while (root[a] != a)
                    a = root[a] = root[root[a]];
                while (root[b] != b)
                    b = root[b] = root[root[b]];
                if (a != b) {
                    root[a] = b;
                    pieces--;
                }
            }
            for (i = 0; i < nn && rc == SCN_OK; i++) {
                const scn_node *n = &s->topo.nodes[i];
                if (n->is_switch && (n->tier < 1 || n->tier > SCN_MAX_TIER))
                    rc = SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "node", "switch '%s': tier %u is outside 1..%u", n->name,
                                      (unsigned)n->tier, SCN_MAX_TIER);
                else if (!n->is_switch && n->tier)
                    rc = SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "node", "host '%s' has tier %u (hosts are tier 0)",
                                      n->name, (unsigned)n->tier);
                else if (!links[i])
                    rc = SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "node", "node '%s' has no link", n->name);
                else if (!n->is_switch && links[i] > 1)
                    rc = SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "link", "host '%s' has %u links (a host has exactly one)",
                                      n->name, (unsigned)links[i]);
            }
            if (rc == SCN_OK && pieces > 1)
                rc = SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "link", "the nodes and links form %u separate pieces, not one",
                                  (unsigned)pieces);
            free(root);
            free(links);
            if (rc != SCN_OK)
                return rc;
        }
        break;
    }
    hosts = scn_host_count(s);
    if (hosts > SCN_MAX_HOSTS)
        return SCN__INVALID(SCN_SEC_TOPOLOGY, NULL, "shape", "%llu hosts is above the limit %u",
                            (unsigned long long)hosts, SCN_MAX_HOSTS);
    if (s->sw.ecn_kmin_kb > s->sw.ecn_kmax_kb)
        return SCN__INVALID(SCN_SEC_SWITCH, NULL, "ecn_kmin_kb", "%llu is above ecn_kmax_kb %llu",
                            (unsigned long long)s->sw.ecn_kmin_kb, (unsigned long long)s->sw.ecn_kmax_kb);
    if (s->sw.ecn_kmax_kb > s->sw.buffer_kb)
        return SCN__INVALID(SCN_SEC_SWITCH, NULL, "ecn_kmax_kb", "%llu is above buffer_kb %llu",
                            (unsigned long long)s->sw.ecn_kmax_kb, (unsigned long long)s->sw.buffer_kb);
    if (s->sw.pfc_xoff_kb && s->sw.pfc_xon_kb > s->sw.pfc_xoff_kb)
        return SCN__INVALID(SCN_SEC_SWITCH, NULL, "pfc_xon_kb", "%llu is above pfc_xoff_kb %llu",
                            (unsigned long long)s->sw.pfc_xon_kb, (unsigned long long)s->sw.pfc_xoff_kb);
    if (!s->sw.pfc_xoff_kb && s->sw.pfc_xon_kb)
        return SCN__INVALID(SCN_SEC_SWITCH, NULL, "pfc_xon_kb", "set while pfc_xoff_kb is derived (0): set both");
    if (s->sw.pfc_xoff_kb + s->sw.pfc_headroom_kb > s->sw.buffer_kb)
        return SCN__INVALID(SCN_SEC_SWITCH, NULL, "pfc_xoff_kb", "pfc_xoff_kb + pfc_headroom_kb (%llu) is above buffer_kb %llu",
                            (unsigned long long)(s->sw.pfc_xoff_kb + s->sw.pfc_headroom_kb),
                            (unsigned long long)s->sw.buffer_kb);
    if (s->nic.payload > s->nic.mtu)
        return SCN__INVALID(SCN_SEC_NIC, NULL, "payload", "%u is above mtu %u", (unsigned)s->nic.payload,
                            (unsigned)s->nic.mtu);
    if (!arrlenu(s->tenants))
        return SCN__INVALID(SCN_SECTIONS, NULL, NULL, "no tenant: a scenario needs at least one [tenant NAME]");
    if (arrlenu(s->tenants) > SCN_MAX_TENANTS)
        return SCN__INVALID(SCN_SECTIONS, NULL, NULL, "%u tenants is above the limit %u",
                            (unsigned)arrlenu(s->tenants), SCN_MAX_TENANTS);
    for (t = 0; t < arrlenu(s->tenants); t++) {
        const scn_tenant *tn = &s->tenants[t];
        const char *nm = tn->name;
        int rc;
        if (scn__check_name(tn->name, tn->name + strlen(tn->name)))
            return SCN__INVALID(SCN_SECTIONS, NULL, NULL, "tenant %u has no valid name", (unsigned)t);
        if (scn__find_tenant(s, tn->name, strlen(tn->name)) != (int)t)
            return SCN__INVALID(SCN_SEC_TENANT, nm, NULL, "the tenant name is used twice");
        if (tn->protocol != SCN_DCQCN && tn->variant != SCN_VARIANT_DEFAULT)
            return SCN__INVALID(SCN_SEC_TENANT, nm, "variant", "%s applies to dcqcn only (%s takes default)",
                                scn_variant_names()[tn->variant], scn_protocol_names()[tn->protocol]);
        if (tn->protocol != SCN_NEWRENO && tn->recover != 0)
            return SCN__INVALID(SCN_SEC_TENANT, nm, "recover", "rfc6582 applies to newreno only (%s takes ns3)",
                                scn_protocol_names()[tn->protocol]);
        if ((rc = scn__check_ids(tn->dst, hosts, nm, "dst", err)) != SCN_OK ||
            (rc = scn__check_ids(tn->src, hosts, nm, "src", err)) != SCN_OK)
            return rc;
        if (tn->size_cdf[0] && tn->traffic != SCN_TRAFFIC_POISSON && tn->traffic != SCN_TRAFFIC_BURST)
            return SCN__INVALID(SCN_SEC_TENANT, nm, "size_cdf", "given with traffic %s (a size CDF is for poisson and burst)",
                                scn_traffic_names()[tn->traffic]);
        if (tn->traffic == SCN_TRAFFIC_FILE) { /* its hosts and sizes are the flows' */
            if (arrlenu(tn->src) || arrlenu(tn->dst) || arrlenu(tn->pairs))
                return SCN__INVALID(SCN_SEC_TENANT, nm, arrlenu(tn->src) ? "src" : arrlenu(tn->dst) ? "dst" : "pairs",
                                    "traffic = file takes its hosts from its flows (run.flow_file), not from src, dst or pairs");
            file_tenants++;
            continue;
        }
        for (i = 0; i < arrlenu(tn->pairs); i++)
            if (tn->pairs[i].src >= hosts || tn->pairs[i].dst >= hosts)
                return SCN__INVALID(SCN_SEC_TENANT, nm, "pairs", "pair %u>%u: a host is not below the shape's %llu hosts",
                                    (unsigned)tn->pairs[i].src, (unsigned)tn->pairs[i].dst, (unsigned long long)hosts);
        if (tn->pattern == SCN_PAIRS) {
            if (!arrlenu(tn->pairs))
                return SCN__INVALID(SCN_SEC_TENANT, nm, "pairs", "pattern pairs needs pairs = SRC>DST, ...");
            if (arrlenu(tn->src) || arrlenu(tn->dst))
                return SCN__INVALID(SCN_SEC_TENANT, nm, arrlenu(tn->src) ? "src" : "dst",
                                    "pattern pairs takes its hosts from pairs only");
        } else if (arrlenu(tn->pairs))
            return SCN__INVALID(SCN_SEC_TENANT, nm, "pairs", "given with pattern %s (pairs is for pattern pairs)",
                                scn_pattern_names()[tn->pattern]);
        if (tn->pattern == SCN_INCAST) {
            if (!arrlenu(tn->dst))
                return SCN__INVALID(SCN_SEC_TENANT, nm, "dst", "pattern incast needs dst = host list");
            for (i = 0; i < arrlenu(tn->src); i++)
                for (j = 0; j < arrlenu(tn->dst); j++)
                    if (tn->src[i] == tn->dst[j])
                        return SCN__INVALID(SCN_SEC_TENANT, nm, "src", "host %u is both a source and a destination",
                                            (unsigned)tn->src[i]);
            if (hosts - arrlenu(tn->dst) < 1)
                return SCN__INVALID(SCN_SEC_TENANT, nm, "dst", "every host is a destination: no sender is left");
        } else if (tn->pattern != SCN_PAIRS) {
            if (arrlenu(tn->dst))
                return SCN__INVALID(SCN_SEC_TENANT, nm, "dst", "given with pattern %s (dst is for pattern incast)",
                                    scn_pattern_names()[tn->pattern]);
            if ((arrlenu(tn->src) ? arrlenu(tn->src) : hosts) < 2)
                return SCN__INVALID(SCN_SEC_TENANT, nm, "src", "pattern %s needs at least 2 hosts",
                                    scn_pattern_names()[tn->pattern]);
        }
    }
    if (s->run.flow_file[0] && !file_tenants)
        return SCN__INVALID(SCN_SEC_RUN, NULL, "flow_file", "no tenant has traffic = file to run its flows");
    return SCN_OK;
}
#undef SCN__INVALID

/* ---------------------------------------------------------------- writing */

SCN_DEF void scn__dump_hosts(FILE *f, const uint32_t *ids)
{
    size_t i = 0, n = arrlenu(ids);
    while (i < n) { /* runs of consecutive ids as ranges */
        size_t j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1u)
            j++;
        if (j > i)
            fprintf(f, "%s%u-%u", i ? "," : "", (unsigned)ids[i], (unsigned)ids[j]);
        else
            fprintf(f, "%s%u", i ? "," : "", (unsigned)ids[i]);
        i = j + 1;
    }
}

SCN_DEF void scn__dump_key(FILE *f, const scn *s, const void *base, const scn_key *k)
{
    const unsigned char *field = (const unsigned char *)base + k->offset;
    size_t i;
    uint32_t x;
    switch (k->type) {
    case SCN_T_U64:
        if (k->size == 8) {
            uint64_t v;
            memcpy(&v, field, 8);
            fprintf(f, "%s = %llu\n", k->name, (unsigned long long)v);
        } else {
            memcpy(&x, field, 4);
            fprintf(f, "%s = %u\n", k->name, (unsigned)x);
        }
        break;
    case SCN_T_CHOICE:
        memcpy(&x, field, 4);
        fprintf(f, "%s = %s\n", k->name, k->choices[x]);
        break;
    case SCN_T_BOOL:
        memcpy(&x, field, 4);
        fprintf(f, "%s = %s\n", k->name, x ? "on" : "off");
        break;
    case SCN_T_FRACTION: {
        scn_fraction fr;
        memcpy(&fr, field, sizeof fr);
        if (fr.den == 1)
            fprintf(f, "%s = %u\n", k->name, (unsigned)fr.num);
        else
            fprintf(f, "%s = %u/%u\n", k->name, (unsigned)fr.num, (unsigned)fr.den);
        break;
    }
    case SCN_T_STRING:
        fprintf(f, "%s =%s%s\n", k->name, *field ? " " : "", (const char *)field);
        break;
    case SCN_T_COUNTS: {
        scn_counts c;
        memcpy(&c, field, sizeof c);
        if (c.n == 2)
            fprintf(f, "%s = %u,%u\n", k->name, (unsigned)c.v[0], (unsigned)c.v[1]);
        else
            fprintf(f, "%s = %u\n", k->name, (unsigned)c.v[0]);
        break;
    }
    case SCN_T_SIZES: {
        scn_sizes z;
        memcpy(&z, field, sizeof z);
        if (z.min == z.max)
            fprintf(f, "%s = %u\n", k->name, (unsigned)z.min);
        else
            fprintf(f, "%s = %u,%u\n", k->name, (unsigned)z.min, (unsigned)z.max);
        break;
    }
    case SCN_T_HOSTS: {
        const uint32_t *ids;
        memcpy(&ids, field, sizeof ids);
        fprintf(f, "%s =%s", k->name, arrlenu(ids) ? " " : "");
        scn__dump_hosts(f, ids);
        fputc('\n', f);
        break;
    }
    case SCN_T_PAIRS: {
        const scn_pair *p;
        memcpy(&p, field, sizeof p);
        fprintf(f, "%s =%s", k->name, arrlenu(p) ? " " : "");
        for (i = 0; i < arrlenu(p); i++)
            fprintf(f, "%s%u>%u", i ? ", " : "", (unsigned)p[i].src, (unsigned)p[i].dst);
        fputc('\n', f);
        break;
    }
    case SCN_T_NODE:
        for (i = 0; i < arrlenu(s->topo.nodes); i++)
            if (s->topo.nodes[i].is_switch)
                fprintf(f, "node = %s switch %u\n", s->topo.nodes[i].name, (unsigned)s->topo.nodes[i].tier);
            else
                fprintf(f, "node = %s host\n", s->topo.nodes[i].name);
        break;
    case SCN_T_LINK:
        for (i = 0; i < arrlenu(s->topo.links); i++) {
            const scn_link *l = &s->topo.links[i];
            fprintf(f, "link = %s %s %llu %llu %u\n", l->a, l->b, (unsigned long long)l->gbps,
                    (unsigned long long)l->delay_ns, (unsigned)l->loss_ppm);
        }
        break;
    }
}

/* Write s as a scenario file: every key, sections in order, tenants in order; parsing it on
 * top of scn_config_default gives back the same struct. */
SCN_DEF void scn_dump(const scn *s, FILE *f)
{
    size_t nkeys, i, t;
    uint32_t sec;
    const scn_key *keys = scn_keys(&nkeys);
    fprintf(f, "# scenario (written by scn_dump; docs/scenario.md)\n");
    for (sec = 0; sec < SCN_SECTIONS; sec++) {
        if (sec == SCN_SEC_TENANT) {
            for (t = 0; t < arrlenu(s->tenants); t++) {
                fprintf(f, "\n[tenant %s]\n", s->tenants[t].name);
                for (i = 0; i < nkeys; i++)
                    if (keys[i].section == sec)
                        scn__dump_key(f, s, &s->tenants[t], &keys[i]);
            }
            continue;
        }
        fprintf(f, "\n[%s]\n", scn_section_name(sec));
        for (i = 0; i < nkeys; i++)
            if (keys[i].section == sec)
                scn__dump_key(f, s, s, &keys[i]);
    }
}

#endif /* RNIC_MODEL_SCENARIO_H */
