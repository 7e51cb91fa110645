/* The Palos experiments' setup (Palos §V: PCIe 128 Gb/s, network 100 Gb/s, RoCE MTU 1500 B,
 * small flows 64 B messages, large flows 2 MB), shared by examples/palos_*.c:
 *
 *   host      per QP a WQE ring and a workload: backlogged (the ring is kept full: a doorbell
 *             whenever fewer than ring/2 WQEs wait) or ping (one message, the next one a random
 *             gap after the previous one has left the wire);
 *   Palos     rq_palos at 250 MHz (the composed RNIC's clock), in CHUNK or PACKET_RR mode, with
 *             multi-WQE launch (launch_wqes: the default 64 unless an experiment sets it);
 *   protocol  an unmodified protocol engine that takes one output WQE per cycle while less than
 *   engine    one PCIe bandwidth-delay product (1 us x 128 Gb/s = 16,000 B) is in flight, cuts it
 *             into MTU packets, reads each payload over PCIe (128 Gb/s, 1 us, 24 B of TLP header
 *             per 256 B) and sends it on the 100 Gb/s link with 82 B of wire overhead per packet
 *             (RoCEv2: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20).
 * The protocol engine's window, the TLP and wire overheads are this model's choices; the paper
 * does not give them. Times are integer picoseconds; doubles appear only in the reports.
 *
 * The host, the protocol engine and Palos are one node of the composed model's event scheduler
 * (fabric.h), as fm_nic.h's NIC holds its host rings, Palos and transport: it runs at the
 * earliest of its parts' next events -- the host's every 16th cycle (it checks its rings) or a
 * ping's posting time, the engine's next packet leaving the wire or a piece it can take, Palos's
 * next event -- and then does a whole cycle in the fixed order (host, engine, Palos's tick); the
 * cycles in between change nothing. Built with -DSIM_TICK_ONLY=1 the fabric runs it every cycle
 * instead (what this driver did before), with the same results. */
#ifndef PALOS_SIM_H
#define PALOS_SIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "rnic_model/fabric.h"

#define SIM_CYCLE_PS 4000u         /* 250 MHz */
#define SIM_LINK_PS_PER_BYTE 80u   /* 100 Gb/s */
#define SIM_PCIE_LATENCY_PS 1000000u
#define SIM_WINDOW_BYTES 16000u
#define SIM_WIRE_OVERHEAD 82u
#define SIM_TLP_OVERHEAD 24u
#define SIM_TLP_PAYLOAD 256u
#define SIM_MTU 1500u
#define SIM_MAX_QPS 64u
#define SIM_RING 1024u
#define SIM_INFLIGHT 65536u
#ifndef SIM_TICK_ONLY
#define SIM_TICK_ONLY 0 /* 1: the fabric runs every node every cycle (its oracle) */
#endif

enum { SIM_BACKLOGGED = 0, SIM_PING = 1 };

typedef struct sim_qp {
    int used, kind;
    uint32_t msg;             /* message size, bytes */
    uint32_t posted;          /* ring counter of the next WQE to post */
    uint64_t ping_post_ps;    /* ping: when its current message was posted */
    uint64_t ping_next_ps;    /* ping: when to post the next one (0: waiting for completion) */
    uint64_t gap_max_ps;
    /* measured (only while measuring) */
    uint64_t bytes, wire_bytes, msgs;
    uint64_t lat_sum_ps, lat_n, lat_max_ps;
} sim_qp;

typedef struct sim_piece {
    uint64_t done_ps;
    uint32_t qp, len, wire, last;
} sim_piece;

typedef struct sim {
    rq_palos *p;
    void *mem;
    rq_palos_config cfg;
    sim_qp qp[SIM_MAX_QPS];
    uint32_t nqp;
    uint64_t now_ps;
    uint64_t pcie_free_ps2; /* in half-picoseconds */
    uint64_t link_free_ps;
    sim_piece fly[SIM_INFLIGHT];
    uint32_t fly_head, fly_count;
    uint64_t fly_bytes;
    int measuring;
    uint64_t measure_from_ps;
    uint64_t wire_total;
    rnic_prng rng;
    fabric fab;              /* the scheduler, with one node: the host, the engine and Palos */
} sim;

/* The host's WQE rings as the slicer's source: every QP's WQEs have its message size. */
static uint32_t sim_wqe(void *user, uint32_t qp, uint32_t index, rnic_work *w, uint32_t max)
{
    const sim *s = (const sim *)user;
    uint32_t k;
    for (k = 0; k < max; k++, index++) {
        memset(&w[k], 0, sizeof w[k]);
        w[k].len = s->qp[qp].msg;
        w[k].addr = ((uint64_t)(qp + 1u) << 40) + (uint64_t)(index % SIM_RING) * s->qp[qp].msg;
        w[k].tag = index;
    }
    return max;
}

/* mode: RQ_PALOS_CHUNK or RQ_PALOS_PACKET_RR; packet_overhead: 0 (payload chunks, the paper) or
 * SIM_WIRE_OVERHEAD (chunks in wire bytes); cut_align: 0, or the segment size WQEs are cut at;
 * launch_wqes: 0 for the default, else the records one launch may carry. */
static void sim__fabric_init(sim *s);

static void sim_init_full(sim *s, uint32_t mode, uint32_t packet_overhead, uint64_t seed, uint32_t cut_align,
                          uint32_t launch_wqes)
{
    size_t n;
    memset(s, 0, sizeof *s);
    rq_palos_config_default(&s->cfg);
    s->cfg.weights.max_flows = SIM_MAX_QPS;
    s->cfg.weights.mtu = SIM_MTU;
    s->cfg.mode = mode;
    s->cfg.ring_entries = SIM_RING;
    s->cfg.packet_overhead = packet_overhead;
    s->cfg.cut_align = cut_align;
    if (launch_wqes)
        s->cfg.launch_wqes = launch_wqes;
    s->cfg.source = sim_wqe;
    s->cfg.source_user = s;
    n = rq_palos_mem_size(&s->cfg);
    s->p = (rq_palos *)malloc(sizeof *s->p);
    s->mem = malloc(n);
    if (!s->p || !s->mem || rq_palos_init(s->p, &s->cfg, s->mem, n) != RNIC_OK) {
        fprintf(stderr, "palos setup failed\n");
        exit(1);
    }
    rnic_prng_seed(&s->rng, seed);
    sim__fabric_init(s);
}

static inline void sim_init_aligned(sim *s, uint32_t mode, uint32_t packet_overhead, uint64_t seed, uint32_t cut_align)
{
    sim_init_full(s, mode, packet_overhead, seed, cut_align, 0);
}

static inline void sim_init(sim *s, uint32_t mode, uint32_t packet_overhead, uint64_t seed)
{
    sim_init_aligned(s, mode, packet_overhead, seed, 0);
}

static void sim_free(sim *s)
{
    fab_free(&s->fab);
    free(s->mem);
    free(s->p);
}

static void sim_group(sim *s, uint32_t group, uint32_t weight)
{
    if (rq_palos_create_group(s->p, group, weight) != RNIC_OK) {
        fprintf(stderr, "create_group %u failed\n", (unsigned)group);
        exit(1);
    }
}

static uint32_t sim_add_qp(sim *s, uint32_t group, uint32_t weight, uint32_t cls, int kind, uint32_t msg)
{
    uint32_t q = s->nqp++;
    rq_palos_flow_config fc;
    rq_palos_flow_config_default(&fc);
    fc.group = group;
    fc.weight = weight;
    fc.cls = cls;
    if (q >= SIM_MAX_QPS || rq_palos_flow_open(s->p, q, &fc) != RNIC_OK) {
        fprintf(stderr, "flow_open %u failed\n", (unsigned)q);
        exit(1);
    }
    s->qp[q].used = 1;
    s->qp[q].kind = kind;
    s->qp[q].msg = msg;
    s->qp[q].gap_max_ps = 2000000u;
    s->qp[q].ping_next_ps = kind == SIM_PING ? 1 : 0;
    return q;
}

static void sim_host(sim *s)
{
    uint32_t i;
    for (i = 0; i < s->nqp; i++) {
        sim_qp *q = &s->qp[i];
        rq_palos_flow_view st;
        uint32_t head = rq_palos_flow_state(s->p, i, &st) == RNIC_OK ? st.head : 0u;
        if (q->kind == SIM_BACKLOGGED) {
            if (q->posted - head < SIM_RING / 2u && rq_palos_doorbell(s->p, i, head + SIM_RING) == RNIC_OK)
                q->posted = head + SIM_RING;
        } else if (q->ping_next_ps && s->now_ps >= q->ping_next_ps) {
            if (rq_palos_doorbell(s->p, i, q->posted + 1u) == RNIC_OK) {
                q->posted++;
                q->ping_post_ps = s->now_ps;
                q->ping_next_ps = 0;
            }
        }
    }
}

static uint32_t sim_packets(uint32_t len) { return (len + SIM_MTU - 1u) / SIM_MTU; }

/* The protocol engine: one output WQE per cycle while the window has room. */
static uint32_t sim_peek_len_packets(const sim *s)
{
    rnic_work o;
    return rq_palos_peek_piece(s->p, &o) == RNIC_OK ? sim_packets(o.len) + 1u : 0u;
}

static void sim_protocol(sim *s)
{
    rnic_work o;
    uint32_t left, pkt;
    while (s->fly_count && s->fly[s->fly_head].done_ps <= s->now_ps) {
        sim_piece *f = &s->fly[s->fly_head];
        sim_qp *q = &s->qp[f->qp];
        if (s->measuring) {
            q->bytes += f->len;
            q->wire_bytes += f->wire;
            s->wire_total += f->wire;
            if (f->last)
                q->msgs++;
        }
        if (f->last && q->kind == SIM_PING) {
            uint64_t lat = f->done_ps - q->ping_post_ps;
            if (s->measuring) {
                q->lat_sum_ps += lat;
                q->lat_n++;
                if (lat > q->lat_max_ps)
                    q->lat_max_ps = lat;
            }
            q->ping_next_ps = f->done_ps + 1u + rnic_prng_below(&s->rng, q->gap_max_ps);
        }
        s->fly_bytes -= f->len;
        s->fly_head = (s->fly_head + 1u) % SIM_INFLIGHT;
        s->fly_count--;
    }
    if (s->fly_bytes >= SIM_WINDOW_BYTES || s->fly_count + sim_peek_len_packets(s) > SIM_INFLIGHT || rq_palos_pop_piece(s->p, &o) != RNIC_OK)
        return;
    if (o.flags & RNIC_WORK_ERROR) {
        fprintf(stderr, "unexpected WQE error\n");
        exit(1);
    }
    left = o.len;
    while (left) {
        uint64_t issue2, arrive, start;
        sim_piece *f;
        pkt = left < SIM_MTU ? left : SIM_MTU;
        left -= pkt;
        /* PCIe read of the payload: serialised at 128 Gb/s (62.5 ps/B, kept in half-ps) */
        issue2 = s->pcie_free_ps2 > 2u * s->now_ps ? s->pcie_free_ps2 : 2u * s->now_ps;
        s->pcie_free_ps2 = issue2 + 125u * (pkt + SIM_TLP_OVERHEAD * ((pkt + SIM_TLP_PAYLOAD - 1u) / SIM_TLP_PAYLOAD));
        arrive = (s->pcie_free_ps2 + 1u) / 2u + SIM_PCIE_LATENCY_PS;
        start = arrive > s->link_free_ps ? arrive : s->link_free_ps;
        s->link_free_ps = start + (uint64_t)SIM_LINK_PS_PER_BYTE * (pkt + SIM_WIRE_OVERHEAD);
        /* one in-flight entry per packet: the window frees as packets leave */
        f = &s->fly[(s->fly_head + s->fly_count) % SIM_INFLIGHT];
        f->done_ps = s->link_free_ps;
        f->qp = o.flow;
        f->len = pkt;
        f->wire = pkt + SIM_WIRE_OVERHEAD;
        f->last = left == 0u && (o.flags & RNIC_WORK_LAST) != 0u;
        s->fly_count++;
        s->fly_bytes += pkt;
    }
}

/* ---- the fabric's node: the host, the protocol engine and Palos ---- */

/* The first cycle t with t * SIM_CYCLE_PS >= ps. */
static uint64_t sim__cycle_at(uint64_t ps) { return (ps + SIM_CYCLE_PS - 1u) / SIM_CYCLE_PS; }

static uint64_t sim__max(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void sim__advance_to(void *self, uint64_t cycle)
{
    sim *s = (sim *)self;
    if (rq_palos_now(s->p) < cycle)
        rq_palos_advance_to(s->p, cycle);
}

/* The earliest cycle at which a part has work: the host's next 16th cycle or a ping's posting
 * cycle, the engine's next packet leaving the wire (now while it can take a piece), Palos's. */
static uint64_t sim__next_event(const void *self)
{
    const sim *s = (const sim *)self;
    uint64_t now = rq_palos_now(s->p), next = rq_palos_next_event(s->p), at;
    uint32_t i, pk;
    if (next <= now) /* Palos is busy (the common case): nothing is earlier */
        return now;
    pk = sim_peek_len_packets(s);
    if (pk && s->fly_bytes < SIM_WINDOW_BYTES && s->fly_count + pk <= SIM_INFLIGHT)
        return now;
    if ((at = (now + 15u) & ~(uint64_t)15u) < next)
        next = at;
    for (i = 0; i < s->nqp; i++)
        if (s->qp[i].kind == SIM_PING && s->qp[i].ping_next_ps && (at = sim__max(now, sim__cycle_at(s->qp[i].ping_next_ps))) < next)
            next = at;
    if (s->fly_count && (at = sim__max(now, sim__cycle_at(s->fly[s->fly_head].done_ps))) < next)
        next = at;
    return next;
}

/* Cycle t: the host (every 16 cycles, or a ping due), the protocol engine, Palos's tick. */
static void sim__run(void *self, uint64_t t)
{
    sim *s = (sim *)self;
    uint32_t i;
    int host = (t & 15u) == 0u; /* the host checks its rings every 16 cycles */
    if (rq_palos_now(s->p) != t)
        return; /* this cycle is done */
    s->now_ps = t * SIM_CYCLE_PS;
    for (i = 0; i < s->nqp && !host; i++) /* pings are posted at once */
        host = s->qp[i].kind == SIM_PING && s->qp[i].ping_next_ps && s->now_ps >= s->qp[i].ping_next_ps;
    if (host)
        sim_host(s);
    sim_protocol(s);
    rq_palos_tick(s->p);
}

static const fab_node_ops sim__ops = { sim__advance_to, sim__run, sim__next_event, NULL };

static void sim__fabric_init(sim *s)
{
    fab_config fc;
    memset(&fc, 0, sizeof fc);
    fc.max_nodes = 1;
    fc.tick_only = SIM_TICK_ONLY;
    if (fab_init(&s->fab, &fc) != RNIC_OK || fab_add(&s->fab, &sim__ops, s) != 0u) {
        fprintf(stderr, "fabric setup failed\n");
        exit(1);
    }
}

/* Run every cycle before the one at end_ps, the node left there. It looks at its state again
 * first: the caller may have changed it (a weight, a QP) since the last run. */
static void sim__run_to_ps(sim *s, uint64_t end_ps)
{
    uint64_t end = sim__cycle_at(end_ps);
    if (end <= s->now_ps / SIM_CYCLE_PS)
        return;
    fab_wake(&s->fab, 0);
    fab_run_until(&s->fab, end);
    fab_bring(&s->fab, 0, end);
    s->now_ps = end * SIM_CYCLE_PS;
}

/* One cycle: the host, the protocol engine, Palos. */
static inline void sim_cycle(sim *s) { sim__run_to_ps(s, s->now_ps + SIM_CYCLE_PS); }

static void sim_reset_counters(sim *s)
{
    uint32_t i;
    for (i = 0; i < s->nqp; i++) {
        s->qp[i].bytes = s->qp[i].wire_bytes = s->qp[i].msgs = 0;
        s->qp[i].lat_sum_ps = s->qp[i].lat_n = s->qp[i].lat_max_ps = 0;
    }
    s->wire_total = 0;
    s->measuring = 1;
    s->measure_from_ps = s->now_ps;
}

/* Warm up for warm_us, then measure for measure_us; returns the measured span in seconds. */
static double sim_run(sim *s, uint64_t warm_us, uint64_t measure_us)
{
    sim__run_to_ps(s, s->now_ps + warm_us * 1000000u);
    sim_reset_counters(s);
    sim__run_to_ps(s, s->now_ps + measure_us * 1000000u);
    s->measuring = 0;
    return (double)measure_us * 1e-6;
}

/* The options every Palos experiment takes: --csv FILE (opened here for writing; NULL without
 * it), --quick, and --msg BYTES where msg is not NULL (*msg: its default). --help prints them on
 * stdout and exits 0; a bad option exits 2 naming it (cli.h), a CSV file that cannot be opened
 * exits 1. */
static inline FILE *sim_options(int argc, char **argv, int *quick, uint32_t *msg)
{
    const char *csv = NULL;
    FILE *f = NULL;
    int a;
    *quick = 0;
    for (a = 1; a < argc; a++) {
        if (cli_is_help(argv[a])) {
            printf("usage: %s [--csv FILE] [--quick]%s\n"
                   "A Palos experiment on the paper's setup (examples/palos_sim.h: 250 MHz, PCIe 128 Gb/s, 100 Gb/s\n"
                   "link, MTU 1500 B); a RESULT line at the end.\n"
                   "  --csv FILE      the figure's data as CSV; default none\n"
                   "  --quick         shorter measurement windows (make test); default off\n",
                   cli_prog(argv[0]), msg ? " [--msg BYTES]" : "");
            if (msg)
                printf("  --msg BYTES     the latency-sensitive flow's message size [bytes]; default %u; range 1..4096\n",
                       (unsigned)*msg);
            printf("  --help, -h      this text, exit status 0; a bad option exits 2 naming it\n");
            exit(0);
        } else if (!strcmp(argv[a], "--csv"))
            csv = CLI_VALUE(a);
        else if (msg && !strcmp(argv[a], "--msg"))
            *msg = (uint32_t)CLI_U64(a, 1, 4096);
        else if (!strcmp(argv[a], "--quick"))
            *quick = 1;
        else
            cli_unknown(argv[0], argv[a]);
    }
    if (csv && !(f = fopen(csv, "w"))) {
        perror(csv);
        exit(1);
    }
    return f;
}

static inline double sim_gbps(uint64_t bytes, double secs) { return (double)bytes * 8.0 / secs / 1e9; }
#endif
