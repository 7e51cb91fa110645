/* rnicq.h -- the RED-SEA QoS engine and the Palos chunk slicer of an RDMA NIC, cycle by cycle.
 *
 * STATUS: the RED-SEA QoS engine rq_qos has landed (issue #4): the host AXI path
 * (descriptor writes through per-domain accumulators, status reads with 32-channel
 * read-and-clear), the 66 shared-space scheduling FIFOs, the TID/FID pools with the reset
 * initializer, the 3-stage segmenter, the message handler, the timeout scanner and
 * retransmission, and remote read requests (the fourth enqueuer) run and are verified
 * (docs/rnicq_qos_model.md), under the engine contract (docs/engine_contract.md: blocks as
 * rnic_work, exact next_event, advance/advance_to, trace events, timeout_ns at clock_hz).
 * Building blocks usable alone: rq_ids, rq_block_plan,
 * rq_status_regs, rq_desc_encode/rq_desc_decode. The Palos chunk slicer rq_palos has landed
 * (issue #5; docs/palos_model.md): doorbell module, latency/bandwidth schedule queues, pipelined
 * WQE fetch, slicing and combining by WQE reconstruction, hierarchical weights rq_pw (Eq. 1/2),
 * the packet round-robin baseline, fast-forward.
 *
 * DO THIS (the QoS engine; runnable: examples/qos_hello.c)
 *   rq_qos_config cfg; rq_qos_config_default(&cfg);      // the thesis's sizes, 150 MHz, 20 us timeout
 *   rq_qos_init(&q, &cfg, mem, rq_qos_mem_size(&cfg));   // caller-owned memory
 *   t.kind = RQ_KIND_REGULAR, t.src = 0x10000, t.dst = 0x80000, t.size = 200000;
 *   rq_desc_encode(&t, line[0], line[1]);                // two 256-bit Transfer Table lines
 *   for (l = 0; l < 2; l++) for (w = 0; w < 4; w += 2)   // domain 0, channels 0-1, 128-bit beats
 *       rq_qos_axi_write(&q, 0, (l << 5) | (w << 3), &line[l][w], 16);
 *   do {
 *       rq_qos_axi_read(&q, 0, 0, 0, 0);                 // poll channel 0 (answered next cycle)
 *       rq_qos_advance(&q, 100);                         // returns early when an output fills
 *       while (rq_qos_pop_bresp(&q, &br) == RNIC_OK) ;   // drain: a full B FIFO stalls the host
 *       while (rq_qos_pop_block(&q, &blk) == RNIC_OK) {  // blocks as rnic_work: flow = line,
 *           rq_response ack = { blk.aux, blk.op, 1 };    // addr/raddr/offset/len, aux = TID,
 *           rq_qos_push_response(&q, &ack);              // op = seq: the send unit ACKs it
 *       }                                                // (and rq_qos_pop_packet: inline/control)
 *   } while (rq_qos_pop_rdata(&q, &rd) != RNIC_OK || rd.data != RQ_DONE);
 *
 * DO THIS (Palos; runnable: examples/palos_hello.c)
 *   static uint32_t my_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
 *   { uint32_t n; for (n = 0; n < max; n++, index++) out[n] = ring[index % 8u]; return n; }
 *   rq_palos_config cfg; rq_palos_config_default(&cfg);  // 1,024 QPs, MTU 1500, 250 MHz
 *   cfg.source = my_source; cfg.cut_align = 1024;          // pieces cut at 1 KB segments
 *   rq_palos_init(&p, &cfg, mem, rq_palos_mem_size(&cfg));
 *   rq_palos_create_group(&p, 0, 10); rq_palos_set_qp(&p, 7, 0, 3, RQ_PALOS_BANDWIDTH);
 *   rq_palos_doorbell(&p, 7, 5);                           // QP 7's tail register: WQEs 0..4
 *   do {                                                   // event-driven loop
 *       while (rq_palos_pop(&p, &w) == RNIC_OK)            // pieces as rnic_work: flow, index,
 *           send(&w);                                      // offset, len, addr, raddr, tag, op,
 *   } while (rq_palos_next_event(&p) != RNIC_NEVER &&      // FIRST/LAST/ERROR, RQ_PALOS_VISIT_END
 *            rq_palos_advance(&p, 1000000) > 0);           // stops when the output port fills
 *
 * PORTS (per cycle): AXI write beats 1 (after an 8-deep AW FIFO, one cycle later); status
 *   reads 1; scheduling FIFOs 1 enqueue (handler > segmenter > host) + 1 dequeue; segmenter 1
 *   block (stage 2 for a first block, stage 3 otherwise); message handler 1 response / 3
 *   cycles; timeout scanner 1 pending entry. Palos: 1 doorbell, 1 fetch, 1 output WQE.
 *
 * What it models:
 *   - RED-SEA QoS engine ("Hardware support for QoS in an RDMA engine", shared/seeds/004):
 *     2,048 channels in 16 protection domains, descriptors with inline payload, scheduling
 *     FIFOs in a shared space (Alg. 1/2, the rnic_ssfifo of the common core), TID/FID pools
 *     and multipath, the 3-stage transfer segmenter (64 KB blocks), the message handler,
 *     status registers with 32-channel collective polling, completions, and the timeouts and
 *     retransmission the thesis left as future work;
 *   - Palos ("Palos: fair and flexible flow scheduling on RNIC", shared/seeds/001): data-chunk
 *     scheduling by WQE reconstruction, hierarchical group/QP weights (Eq. 1/2), a strict-
 *     priority latency queue, and the packet round-robin baseline.
 *
 * Conventions (all rnicq headers): prefix rq_/RQ_; define RQ_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; RQ_STATIC makes the API static;
 * no allocation, no floating point, no globals; every bad input is an rnic_err code
 * counted in the engine's statistics. See README.md.
 */
