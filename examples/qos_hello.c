/* The RED-SEA QoS engine in 20 lines (the example of rnicq.h's manual and the README): one
 * 200 KB transfer written as AXI beats on channel 0 of domain 0, its blocks taken by a send
 * unit that ACKs each at once, the write responses drained, the channel polled until DONE.
 *   build/qos_hello      prints: 4 blocks, transfer DONE at cycle ... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static rq_qos q;
    rq_qos_config cfg;
    rq_transfer t;
    uint64_t line[2][4];
    rnic_work blk;
    rq_axi_bresp br;
    rq_axi_rdata rd;
    uint32_t l, w, blocks = 0;
    rq_qos_config_default(&cfg); /* the thesis's sizes, 20 us timeout */
    cfg.clock_hz = 150000000u;   /* the thesis's FPGA clock (the default is 250 MHz) */
    void *mem = malloc(rq_qos_mem_size(&cfg));
    if (!mem || rq_qos_init(&q, &cfg, mem, rq_qos_mem_size(&cfg)) != RNIC_OK)
        return 1;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR, t.src = 0x10000, t.dst = 0x80000, t.size = 200000;
    rq_desc_encode(&t, line[0], line[1]); /* two 256-bit Transfer Table lines */
    for (l = 0; l < 2; l++)               /* channels 0 and 1 of domain 0, 128-bit beats */
        for (w = 0; w < 4; w += 2)
            rq_qos_axi_write(&q, 0, (l << 5) | (w << 3), &line[l][w], 16);
    do {
        rq_qos_axi_read(&q, 0, 0, 0, 0);  /* poll channel 0's status (answered next cycle) */
        rq_qos_advance(&q, 100);          /* returns early when an output port fills */
        while (rq_qos_pop_bresp(&q, &br) == RNIC_OK) /* drain: a full B FIFO stalls the host path */
            ;
        while (rq_qos_pop_block(&q, &blk) == RNIC_OK) { /* the send unit ACKs every block */
            rq_response ack = { blk.aux, RQ_WORK_SEQ(blk.flags), 1 };    /* its TID, its sequence number, ACK */
            rq_qos_push_response(&q, &ack);
            blocks++;
        }
    } while (rq_qos_pop_rdata(&q, &rd) != RNIC_OK || rd.data != RQ_DONE);
    printf("%u blocks, transfer DONE at cycle %llu\n", blocks, (unsigned long long)rq_qos_now(&q));
    printf("RESULT blocks=%u done_cycle=%llu\n", blocks, (unsigned long long)rq_qos_now(&q));
    free(mem);
    return 0;
}
