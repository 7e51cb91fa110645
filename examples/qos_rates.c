/* The RED-SEA QoS engine's rates and latency (thesis §4.2.1, Fig. 4.3), measured on the model:
 *   inline latency: one 8-byte inline payload transfer written as two 128-bit beats; cycles
 *     from the beat carrying its last descriptor word to the packet in the Packet queue
 *     (thesis: word at CC2, packet at CC4 = 2 cycles; 4 cycles from the write address);
 *   host path: back-to-back 8-byte inline transfers to different channels, 256-bit
 *     descriptors over the 128-bit path (thesis: 1 transfer per 2 cycles);
 *   segmenter: 64 large transfers queued, blocks issued per cycle while they all have
 *     outstanding credit (thesis: 1 block per cycle);
 *   message handler: 16 ACKs waiting in the response port at once, cycles between successive
 *     ACKs applied (thesis §3.11: a 3-state FSM, S1 accept, S2 pending entry, S3 metadata = 3).
 *   build/qos_rates
 * Ends with: RESULT inline_latency_cycles=... inline_latency_from_aw_cycles=...
 *            host_transfers_per_cycle=... segmenter_blocks_per_cycle=... handler_cycles_per_ack=... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rq_qos *make(void **mem)
{
    rq_qos_config c;
    rq_qos *q = (rq_qos *)malloc(sizeof *q);
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    c.block_depth = 16; /* room for the handler measurement's 16 blocks (the others never fill 4) */
    *mem = malloc(rq_qos_mem_size(&c));
    if (!q || !*mem || rq_qos_init(q, &c, *mem, rq_qos_mem_size(&c)) != RNIC_OK) {
        fprintf(stderr, "setup failed\n");
        exit(1);
    }
    while (!rq_qos_ready(q)) /* the reset initializer: 592 cycles */
        rq_qos_tick(q);
    return q;
}

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

static void push_descriptor(rq_qos *q, uint32_t domain, uint32_t channel, const rq_transfer *t)
{
    uint64_t l[2][4], d[2];
    uint32_t ln, w;
    rq_desc_encode(t, l[0], l[1]);
    for (ln = 0; ln < rq_desc_lines(l[0][3]); ln++)
        for (w = 0; w < 4; w += 2) {
            d[0] = l[ln][w];
            d[1] = l[ln][w + 1u];
            if (rq_qos_axi_write(q, domain, addr_of(domain, channel + ln, w), d, 16) != RNIC_OK) {
                fprintf(stderr, "AW FIFO full\n");
                exit(1);
            }
        }
}

/* n regular transfers of t's size, 16 MB apart, two channels each over the 16 domains, written
 * as the AW FIFO takes them; then 100 cycles in which every descriptor lands. */
static void queue_regular(rq_qos *q, rq_transfer *t, uint32_t n)
{
    rq_axi_bresp br;
    uint32_t i;
    for (i = 0; i < n; i++) {
        t->src = (uint64_t)i << 24;
        t->dst = (uint64_t)i << 24;
        while (rq_qos_space_axi_write(q) < 4u) {
            rq_qos_tick(q);
            while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
                ;
        }
        push_descriptor(q, i % 16u, 2u * (i / 16u), t);
    }
    for (i = 0; i < 100u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            ;
    }
}

int main(void)
{
    void *mem;
    rq_qos *q;
    rq_transfer t;
    rq_axi_bresp br;
    rq_packet pk;
    rnic_work b;
    uint64_t aw_cycle, last_word = 0, packet_cycle = 0, first_done = 0, last_done = 0, first_block = 0, nth_block = 0;
    uint32_t i, sent = 0, done = 0, blocks = 0;
    double host_rate, seg_rate, handler_rate;

    /* 1. inline latency */
    q = make(&mem);
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE;
    t.size = 8;
    t.dst = 0x10000;
    aw_cycle = rq_qos_now(q);
    push_descriptor(q, 0, 0, &t);
    for (i = 0; i < 20 && !packet_cycle; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            last_word = br.cycle;
        if (rq_qos_pop_packet(q, &pk) == RNIC_OK)
            packet_cycle = pk.cycle;
    }
    printf("inline 8 B transfer: write address at cycle %llu, last descriptor word at %llu, packet in the "
           "Packet queue at %llu\n",
           (unsigned long long)(aw_cycle - aw_cycle), (unsigned long long)(last_word - aw_cycle),
           (unsigned long long)(packet_cycle - aw_cycle));
    printf("  latency %llu cycles from the last word (thesis: 2, CC2 -> CC4), %llu from the write address "
           "(thesis: 4)\n",
           (unsigned long long)(packet_cycle - last_word), (unsigned long long)(packet_cycle - aw_cycle));
    free(mem);
    free(q);

    /* 2. host path: 200 back-to-back inline transfers (16 domains x ...) */
    q = make(&mem);
    while (done < 200u) {
        if (sent < 200u && rq_qos_space_axi_write(q) >= 2u) {
            push_descriptor(q, sent % 16u, 2u * (sent / 16u), &t);
            sent++;
        }
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            ;
        while (rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            if (done == 0)
                first_done = pk.cycle;
            last_done = pk.cycle;
            done++;
        }
    }
    host_rate = (double)(done - 1u) / (double)(last_done - first_done);
    printf("host path: %u inline transfers, packets from cycle %llu to %llu: %.3f transfers per cycle "
           "(thesis: 0.5, 256-bit descriptors over 128 bits)\n",
           done, (unsigned long long)first_done, (unsigned long long)last_done, host_rate);
    free(mem);
    free(q);

    /* 3. segmenter: 64 non-congestion-managed 1 MB transfers queued while the send unit is not
     * reading (the full transaction port stalls the pipeline); then the send unit reads every
     * cycle and we count the blocks issued over the next 100 cycles: the 64 transfers have 2
     * blocks of outstanding credit each, so nothing but the segmenter limits the rate */
    q = make(&mem);
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR;
    t.size = 1u << 20;
    queue_regular(q, &t, 64);
    first_block = rq_qos_now(q);
    while (rq_qos_pop_block(q, &b) == RNIC_OK) /* the backlog issued before the window */
        ;
    for (i = 0; i < 100u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &b) == RNIC_OK)
            if (b.cycle >= first_block) {
                blocks++;
                nth_block = b.cycle;
            }
    }
    seg_rate = (double)blocks / 100.0;
    printf("segmenter: %u blocks issued in the 100 cycles from cycle %llu (last at %llu): %.3f blocks per "
           "cycle (thesis: 1)\n",
           blocks, (unsigned long long)first_block, (unsigned long long)nth_block, seg_rate);
    free(mem);
    free(q);

    /* 4. message handler: 16 one-block transfers (no requeue: the segmenter stays out of the
     * metadata arbiter), their 16 ACKs pushed at once; the cycle each is applied is the cycle
     * the acks counter moves */
    q = make(&mem);
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR;
    t.size = 1000;
    queue_regular(q, &t, 16);
    {
        rq_response rs[16];
        uint64_t acks_before, first_ack = 0, last_ack = 0;
        uint32_t n = 0, applied = 0;
        while (n < 16u && rq_qos_pop_block(q, &b) == RNIC_OK) {
            rs[n].tid = b.aux;
            rs[n].seq = RQ_WORK_SEQ(b.flags);
            rs[n].ack = 1;
            n++;
        }
        for (i = 0; i < n; i++)
            if (rq_qos_space_response(q) == 0 || rq_qos_push_response(q, &rs[i]) != RNIC_OK)
                break;
        sent = i; /* the response port's depth (8): the rest as room frees */
        for (i = 0; i < 200u && applied < n; i++) {
            acks_before = rq_qos_get_stats(q)->acks;
            while (sent < n && rq_qos_space_response(q) > 0 && rq_qos_push_response(q, &rs[sent]) == RNIC_OK)
                sent++;
            rq_qos_tick(q);
            if (rq_qos_get_stats(q)->acks != acks_before) {
                if (applied == 0)
                    first_ack = rq_qos_now(q) - 1u;
                last_ack = rq_qos_now(q) - 1u;
                applied++;
            }
        }
        handler_rate = applied > 1u ? (double)(last_ack - first_ack) / (double)(applied - 1u) : 0.0;
        printf("message handler: %u ACKs waiting, applied from cycle %llu to %llu: %.3f cycles per ACK "
               "(thesis: 3, S1 -> S2 -> S3)\n",
               applied, (unsigned long long)first_ack, (unsigned long long)last_ack, handler_rate);
    }
    free(mem);
    free(q);
    printf("RESULT inline_latency_cycles=%llu inline_latency_from_aw_cycles=%llu host_transfers_per_cycle=%.3f "
           "segmenter_blocks_per_cycle=%.3f handler_cycles_per_ack=%g\n",
           (unsigned long long)(packet_cycle - last_word), (unsigned long long)(packet_cycle - aw_cycle), host_rate,
           seg_rate, handler_rate);
    return 0;
}
