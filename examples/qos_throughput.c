/* RDMA throughput vs transfer size on the thesis's setup (§4.3, Fig. 4.4-4.6): the QoS engine
 * model at 150 MHz in front of a send-unit model with a 512-bit datapath (a packet = header +
 * up to sixteen 64-byte payload words + footer, 1 KB payload: 16 / 18 of 76.8 Gb/s = 68.3 Gb/s
 * at most), intra-node loopback (the block's ACK comes back a fixed time after its last
 * packet), and a host core that writes descriptors and polls the status registers over the
 * PS-PL interconnect:
 *   single: one transfer at a time -- write it, poll its channel until DONE, next channel;
 *   outstanding: 64 transfers in the 64 write channels of a page, then collective polling
 *     (two 32-channel reads per round) until all are DONE.
 * Host and loopback timings are this model's choices (the thesis gives the PS-PL round trip,
 * 120-150 ns, but not the rest): --rtt-ns 135 (status read round trip), --desc-ns 60 (the core
 * writing one descriptor), --ack-ns 200 (last packet out -> ACK in).
 *   build/qos_throughput [--csv FILE] [--quick] [--rtt-ns N] [--desc-ns N] [--ack-ns N]
 * Ends with: RESULT peak_gbps=... out_128b_gbps=... single_small_latency_ns=...
 *            line_rate_size_out=... line_rate_size_single=... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CLOCK_HZ 150000000.0
#define PAYLOAD_MAX 1024u
#define WORD_BYTES 64u

typedef struct sim {
    rq_qos *q;
    void *mem;
    /* send unit */
    uint64_t busy_until;
    rnic_work blk; /* the block being packetised */
    uint32_t blk_left; /* payload bytes of the current block still to packetise */
    int have_blk;
    /* loopback ACKs */
    uint64_t ack_at[4096];
    rq_response ack[4096];
    uint32_t nack;
    uint64_t ack_cycles;
} sim;

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

static void sim_init(sim *s, uint64_t ack_cycles)
{
    rq_qos_config c;
    memset(s, 0, sizeof *s);
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    s->q = (rq_qos *)malloc(sizeof *s->q);
    s->mem = malloc(rq_qos_mem_size(&c));
    if (!s->q || !s->mem || rq_qos_init(s->q, &c, s->mem, rq_qos_mem_size(&c)) != RNIC_OK) {
        fprintf(stderr, "setup failed\n");
        exit(1);
    }
    while (!rq_qos_ready(s->q))
        rq_qos_tick(s->q);
    s->ack_cycles = ack_cycles;
}

static void sim_free(sim *s)
{
    free(s->mem);
    free(s->q);
}

static void schedule_ack(sim *s, uint64_t at, uint32_t tid, uint32_t seq)
{
    if (s->nack >= 4096u) {
        fprintf(stderr, "too many ACKs in flight\n");
        exit(1);
    }
    s->ack_at[s->nack] = at;
    s->ack[s->nack].tid = tid;
    s->ack[s->nack].seq = seq;
    s->ack[s->nack].ack = 1;
    s->nack++;
}

/* One cycle of everything but the host. */
static void sim_cycle(sim *s)
{
    rq_qos *q = s->q;
    uint32_t i;
    rq_axi_bresp br;
    for (i = 0; i < s->nack;) {
        if (s->ack_at[i] <= rq_qos_now(q) && rq_qos_push_response(q, &s->ack[i]) == RNIC_OK) {
            s->ack_at[i] = s->ack_at[--s->nack];
            s->ack[i] = s->ack[s->nack];
            continue;
        }
        i++;
    }
    rq_qos_tick(q);
    while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
        ;
    if (rq_qos_now(q) < s->busy_until)
        return;
    { /* the send unit: packets first (latency sensitive), then the current block's next packet */
        rq_packet pk;
        if (rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            uint32_t words = pk.kind == RQ_PKT_INLINE ? (pk.size + WORD_BYTES - 1u) / WORD_BYTES : 0u;
            s->busy_until = rq_qos_now(q) + 2u + words; /* header, payload words, footer */
            if (pk.kind == RQ_PKT_INLINE)
                schedule_ack(s, s->busy_until + s->ack_cycles, pk.tid, pk.seq);
            return;
        }
        if (!s->have_blk && rq_qos_pop_block(q, &s->blk) == RNIC_OK) {
            s->have_blk = 1;
            s->blk_left = s->blk.len;
        }
        if (s->have_blk) {
            uint32_t len = s->blk_left < PAYLOAD_MAX ? s->blk_left : PAYLOAD_MAX;
            s->busy_until = rq_qos_now(q) + 2u + (len + WORD_BYTES - 1u) / WORD_BYTES;
            s->blk_left -= len;
            if (s->blk_left == 0) {
                s->have_blk = 0;
                schedule_ack(s, s->busy_until + s->ack_cycles, s->blk.aux, RQ_WORK_SEQ(s->blk.flags));
            }
        }
    }
}

static void write_descriptor(sim *s, uint32_t channel, uint64_t size)
{
    rq_transfer t;
    uint64_t l[2][4], d[2];
    uint32_t ln, w;
    memset(&t, 0, sizeof t);
    t.kind = size <= RQ_INLINE_MAX ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
    t.size = size;
    t.src = 0x10000000ull + (uint64_t)channel * (8u << 20);
    t.dst = 0x80000000ull + (uint64_t)channel * (8u << 20);
    rq_desc_encode(&t, l[0], l[1]);
    for (ln = 0; ln < rq_desc_lines(l[0][3]); ln++)
        for (w = 0; w < 4; w += 2) {
            d[0] = l[ln][w];
            d[1] = l[ln][w + 1u];
            while (rq_qos_axi_write(s->q, 0, addr_of(0, channel + ln, w), d, 16) != RNIC_OK)
                sim_cycle(s);
        }
}

/* A status read from the host: issued now, answered by the engine, seen rtt cycles later. */
static uint64_t host_read(sim *s, uint32_t index, uint32_t mode, uint64_t rtt)
{
    uint64_t issued = rq_qos_now(s->q);
    rq_axi_rdata rd;
    while (rq_qos_axi_read(s->q, 0, 0, index, mode) != RNIC_OK)
        sim_cycle(s);
    for (;;) {
        sim_cycle(s);
        if (rq_qos_pop_rdata(s->q, &rd) == RNIC_OK)
            break;
    }
    while (rq_qos_now(s->q) < issued + rtt)
        sim_cycle(s);
    return rd.data;
}

static void host_wait(sim *s, uint64_t cycles)
{
    uint64_t until = rq_qos_now(s->q) + cycles;
    while (rq_qos_now(s->q) < until)
        sim_cycle(s);
}

/* Throughput (Gb/s) and mean completion time (ns) of `count` transfers of `size` bytes. */
static void run_mode(uint64_t size, int outstanding, uint32_t batches, uint64_t rtt, uint64_t desc, uint64_t ackc,
                     double *gbps, double *latency_ns)
{
    sim s;
    uint64_t start, transfers = 0;
    uint32_t b, ch;
    sim_init(&s, ackc);
    start = rq_qos_now(s.q);
    for (b = 0; b < batches; b++) {
        if (!outstanding) {
            for (ch = 0; ch < 64u; ch += 2u) { /* even channels: a 512-bit descriptor takes two */
                write_descriptor(&s, ch, size);
                host_wait(&s, desc);
                while ((host_read(&s, ch, 0, rtt) & 3u) < RQ_DONE)
                    ;
                transfers++;
            }
        } else {
            uint64_t done_mask = 0, all = 0;
            for (ch = 0; ch < 64u; ch += 2u) {
                write_descriptor(&s, ch, size);
                host_wait(&s, desc);
                all |= (uint64_t)1 << ch;
            }
            while (done_mask != all) {
                uint32_t half, j;
                for (half = 0; half < 2; half++) {
                    uint64_t bits = host_read(&s, half, 1, rtt);
                    for (j = 0; j < 32; j++)
                        if (((bits >> (2u * j)) & 3u) >= RQ_DONE)
                            done_mask |= (uint64_t)1 << (half * 32u + j);
                }
            }
            transfers += 32;
        }
    }
    *gbps = (double)transfers * (double)size * 8.0 / ((double)(rq_qos_now(s.q) - start) / CLOCK_HZ) / 1e9;
    *latency_ns = (double)(rq_qos_now(s.q) - start) / (double)transfers / CLOCK_HZ * 1e9;
    if (rq_qos_get_stats(s.q)->failed || rq_qos_get_stats(s.q)->retransmits)
        fprintf(stderr, "unexpected: %llu failed, %llu retransmits\n", (unsigned long long)rq_qos_get_stats(s.q)->failed,
                (unsigned long long)rq_qos_get_stats(s.q)->retransmits);
    sim_free(&s);
}

static void usage(const char *argv0)
{
    printf("usage: %s [--csv FILE] [--quick] [--rtt-ns N] [--desc-ns N] [--ack-ns N]\n"
           "RDMA throughput vs transfer size: the QoS engine at 150 MHz before a 512-bit send unit, one transfer at a\n"
           "time and 64 outstanding; a RESULT line at the end.\n"
           "  --csv FILE    one row per transfer size as CSV; default none\n"
           "  --quick       sizes up to 64 KB, one batch each (make test); default off\n"
           "  --rtt-ns N    the host's status-read round trip [ns]; default 135; range 0..1000000\n"
           "  --desc-ns N   the host core writing one descriptor [ns]; default 60; range 0..1000000\n"
           "  --ack-ns N    last packet out -> the block's ACK in [ns]; default 200; range 0..1000000\n"
           "  --help, -h    this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    double rtt_ns = 135, desc_ns = 60, ack_ns = 200, peak = 0, out128 = 0, single_small = 0;
    uint64_t line_out = 0, line_single = 0, size;
    FILE *csv = NULL;
    int i, quick = 0;
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(argv[0]);
        } else if (!strcmp(argv[i], "--csv")) {
            if (!(csv = fopen(CLI_VALUE(i), "w"))) {
                perror(argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--rtt-ns")) {
            rtt_ns = CLI_DOUBLE(i, 0, 1000000);
        } else if (!strcmp(argv[i], "--desc-ns")) {
            desc_ns = CLI_DOUBLE(i, 0, 1000000);
        } else if (!strcmp(argv[i], "--ack-ns")) {
            ack_ns = CLI_DOUBLE(i, 0, 1000000);
        } else {
            cli_unknown(argv[0], argv[i]);
        }
    }
    printf("QoS engine + send unit, 150 MHz, 512-bit datapath, 1 KB packets (max 68.3 Gb/s); host: status "
           "read round trip %.0f ns, %.0f ns per descriptor; loopback ACK %.0f ns\n",
           rtt_ns, desc_ns, ack_ns);
    printf("%10s %14s %14s %14s %14s\n", "size B", "single Gb/s", "single ns", "64-out Gb/s", "64-out ns");
    if (csv)
        fprintf(csv, "size,single_gbps,single_ns,outstanding_gbps,outstanding_ns\n");
    for (size = 8; size <= ((uint64_t)4 << 20); size *= 2) {
        double g1, l1, g2, l2;
        uint32_t batches = size >= (1u << 20) ? 1u : quick ? 1u : 4u;
        if (quick && size > (64u << 10))
            break;
        run_mode(size, 0, batches, (uint64_t)(rtt_ns * CLOCK_HZ / 1e9 + 0.5), (uint64_t)(desc_ns * CLOCK_HZ / 1e9 + 0.5),
                 (uint64_t)(ack_ns * CLOCK_HZ / 1e9 + 0.5), &g1, &l1);
        run_mode(size, 1, batches, (uint64_t)(rtt_ns * CLOCK_HZ / 1e9 + 0.5), (uint64_t)(desc_ns * CLOCK_HZ / 1e9 + 0.5),
                 (uint64_t)(ack_ns * CLOCK_HZ / 1e9 + 0.5), &g2, &l2);
        printf("%10llu %14.2f %14.0f %14.2f %14.0f\n", (unsigned long long)size, g1, l1, g2, l2);
        if (csv)
            fprintf(csv, "%llu,%.4f,%.1f,%.4f,%.1f\n", (unsigned long long)size, g1, l1, g2, l2);
        if (g1 > peak)
            peak = g1;
        if (g2 > peak)
            peak = g2;
        if (size == 128)
            out128 = g2;
        if (size == 8)
            single_small = l1;
        if (!line_out && g2 >= 0.95 * 68.27)
            line_out = size;
        if (!line_single && g1 >= 0.95 * 68.27)
            line_single = size;
    }
    if (csv)
        fclose(csv);
    printf("thesis (Fig. 4.4-4.6): max 68.3 Gb/s; line rate from 16 KB with outstanding transfers; 21.6 Gb/s "
           "for 128 B outstanding; 360 ns per small transfer one at a time\n");
    printf("RESULT peak_gbps=%.2f out_128b_gbps=%.2f single_small_latency_ns=%.0f line_rate_size_out=%llu "
           "line_rate_size_single=%llu\n",
           peak, out128, single_small, (unsigned long long)line_out, (unsigned long long)line_single);
    return 0;
}
