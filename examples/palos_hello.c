/* The Palos slicer in 20 lines (the usage example of rnicq.h's manual and the README): one QP
 * posts five 3,000 B WQEs; alone in its group its chunk is N = 1 x MTU = 1,500 B, and with
 * cut_align = 1,024 every piece but a WQE's last is a multiple of 1,024 B from the WQE start.
 *   build/palos_hello */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include <stdio.h>
#include <stdlib.h>

static rnic_work ring[8]; /* QP 7's send queue: entry i at ring[i % 8] */

static uint32_t my_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t n;
    (void)user;
    (void)flow;
    for (n = 0; n < max; n++, index++)
        out[n] = ring[index % 8u];
    return n;
}

int main(void)
{
    rq_palos p;
    rq_palos_config cfg;
    rq_palos_flow_config fc;
    rnic_work w;
    void *mem;
    uint32_t i, pieces = 0, done = 0;
    rq_palos_config_default(&cfg); /* 1,024 QPs, 64 groups, MTU 1500, 250 MHz */
    cfg.source = my_source;
    cfg.cut_align = 1024; /* segments for the transport downstream */
    mem = malloc(rq_palos_mem_size(&cfg));
    if (!mem || rq_palos_init(&p, &cfg, mem, rq_palos_mem_size(&cfg)) != RNIC_OK)
        return 1;
    rq_palos_create_group(&p, 0, 10);                 /* tenant 0, weight 10 */
    rq_palos_flow_config_default(&fc);                /* QP 7 in group 0, weight 3 */
    fc.group = 0;
    fc.weight = 3;
    rq_palos_flow_open(&p, 7, &fc);
    for (i = 0; i < 5u; i++) {
        ring[i].addr = 0x100000u * (i + 1u);
        ring[i].len = 3000;
        ring[i].tag = 100u + i; /* carried to every piece untouched */
    }
    rq_palos_doorbell(&p, 7, 5); /* WQEs 0..4 posted */
    do {                         /* event-driven: skip idle cycles, stop when the port fills */
        while (rq_palos_pop_piece(&p, &w) == RNIC_OK) {
            pieces++;
            done += (w.flags & RNIC_WORK_LAST) != 0;
            printf("cycle %3llu qp %u wqe %u tag %llu offset %4u len %4u%s%s\n", (unsigned long long)w.cycle,
                   (unsigned)w.flow, (unsigned)w.index, (unsigned long long)w.tag, (unsigned)w.offset,
                   (unsigned)w.len, w.flags & RNIC_WORK_LAST ? " LAST" : "",
                   w.flags & RQ_PALOS_VISIT_END ? " VISIT_END" : "");
        }
    } while (rq_palos_next_event(&p) != RNIC_NEVER && rq_palos_advance(&p, 1000000) > 0u);
    printf("RESULT pieces=%u wqes_done=%u\n", pieces, done);
    free(mem);
    return done == 5u ? 0 : 1;
}
