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
 * does not give them. Times are integer picoseconds; doubles appear only in the reports. */
#ifndef PALOS_SIM_H
#define PALOS_SIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

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

static void sim_cycle(sim *s)
{
    if ((rq_palos_now(s->p) & 15u) == 0u)
        sim_host(s); /* the host checks its rings every 16 cycles */
    else {
        uint32_t i; /* pings are posted at once */
        for (i = 0; i < s->nqp; i++)
            if (s->qp[i].kind == SIM_PING && s->qp[i].ping_next_ps && s->now_ps >= s->qp[i].ping_next_ps) {
                sim_host(s);
                break;
            }
    }
    sim_protocol(s);
    rq_palos_tick(s->p);
    s->now_ps += SIM_CYCLE_PS;
}

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
    uint64_t end = s->now_ps + warm_us * 1000000u;
    while (s->now_ps < end)
        sim_cycle(s);
    sim_reset_counters(s);
    end = s->now_ps + measure_us * 1000000u;
    while (s->now_ps < end)
        sim_cycle(s);
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
