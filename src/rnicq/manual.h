/* rnicq.h -- the RED-SEA QoS engine and the Palos chunk slicer of an RDMA NIC, cycle by cycle.
 *
 * Papers: "Hardware Support for Quality of Service in an RDMA Engine" (Bartzis, FORTH/UoC 2022,
 * shared/seeds/004) and "Palos: fair and flexible flow scheduling on RNIC" (shared/seeds/001).
 * Exact cycle semantics: docs/rnicq_qos_model.md and docs/palos_model.md.
 *
 * WHAT IT MODELS
 *   rq_qos, the RED-SEA QoS engine: 2,048 Transfer Table channels in 16 protection domains
 *   written by AXI beats through accumulators (one set per domain, or the thesis's single set),
 *   descriptors with inline payloads, 2-bit status registers with 32-channel read-and-clear,
 *   66 scheduling FIFOs in one shared space (Alg. 1/2) with their enqueue priority, TID/FID
 *   pools with the reset initializer, unipath and multipath TIDs with the tid_bitmap, the
 *   3-stage transfer segmenter (64 KB blocks, stage-3 bypass, control packets), the message
 *   handler's 3-state FSM and the metadata arbiter, Transfer Table port 0 shared by local and
 *   remote descriptor writes, remote read requests, and the timeout scanner and retransmission
 *   the thesis left as future work (sharing the pending table's port with the handler).
 *   rq_palos, Palos: doorbells, latency and bandwidth schedule queues, pipelined WQE fetch,
 *   data-chunk scheduling by WQE reconstruction (slicing and combining, several WQEs launched
 *   per cycle), hierarchical group/QP weights rq_pw (Eq. 1/2), a strict-priority latency
 *   class, and the packet round-robin baseline. Building blocks usable alone: rq_ids,
 *   rq_block_plan, rq_status_regs, rq_desc_encode / rq_desc_decode, rq_pw.
 *
 * DO THIS (the QoS engine; a complete program: make test compiles and runs this text as C and C++)
 *   #define RQ_IMPLEMENTATION                 // (or RNIC_IMPLEMENTATION) in one .c file
 *   #include "rnicq.h"
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   int main(void)
 *   {
 *       static rq_qos q;
 *       rq_qos_config cfg;
 *       rq_transfer t;
 *       uint64_t line[2][4];
 *       rnic_work blk;
 *       rq_axi_bresp br;
 *       rq_axi_rdata rd;
 *       uint32_t l, w, blocks = 0;
 *       void *mem;
 *       rq_qos_config_default(&cfg);            // the thesis's sizes, 150 MHz, 20 us timeout
 *       mem = malloc(rq_qos_mem_size(&cfg));    // caller-owned memory
 *       if (!mem || rq_qos_init(&q, &cfg, mem, rq_qos_mem_size(&cfg)) != RNIC_OK)
 *           return 1;
 *       memset(&t, 0, sizeof t);
 *       t.kind = RQ_KIND_REGULAR;
 *       t.src = 0x10000;
 *       t.dst = 0x80000;
 *       t.size = 200000;
 *       rq_desc_encode(&t, line[0], line[1]);   // two 256-bit Transfer Table lines
 *       for (l = 0; l < 2; l++)                 // domain 0, channels 0-1, 128-bit beats
 *           for (w = 0; w < 4; w += 2)
 *               rq_qos_axi_write(&q, 0, (l << 5) | (w << 3), &line[l][w], 16);
 *       do {
 *           rq_qos_axi_read(&q, 0, 0, 0, 0);    // poll channel 0 (answered next cycle)
 *           rq_qos_advance(&q, 100);            // returns early when an output fills
 *           while (rq_qos_pop_bresp(&q, &br) == RNIC_OK) // drain: a full B FIFO stalls the host
 *               ;
 *           while (rq_qos_pop_block(&q, &blk) == RNIC_OK) { // flow = line, addr/raddr/offset/len
 *               rq_response ack;
 *               ack.tid = blk.aux;              // the block's TID and sequence number: the
 *               ack.seq = blk.op;               // send unit ACKs it (rq_qos_pop_packet gives
 *               ack.ack = 1;                    // inline and control packets)
 *               rq_qos_push_response(&q, &ack);
 *               blocks++;
 *           }
 *       } while (rq_qos_pop_rdata(&q, &rd) != RNIC_OK || rd.data != RQ_DONE);
 *       printf("%u blocks, DONE\n", blocks);
 *       free(mem);
 *       return 0;
 *   }
 *
 * DO THIS (Palos; a complete program: make test compiles and runs this text as C and C++)
 *   #define RQ_IMPLEMENTATION
 *   #include "rnicq.h"
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   static rnic_work ring[8];                   // QP 7's send queue: entry i at ring[i % 8]
 *
 *   static uint32_t my_source(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
 *   {
 *       uint32_t n;
 *       (void)user;
 *       (void)flow;
 *       for (n = 0; n < max; n++, index++)      // copy, never consume: refetches happen
 *           out[n] = ring[index % 8u];
 *       return n;
 *   }
 *
 *   int main(void)
 *   {
 *       static rq_palos p;
 *       rq_palos_config cfg;
 *       rnic_work w;
 *       void *mem;
 *       uint32_t i, pieces = 0, done = 0;
 *       rq_palos_config_default(&cfg);          // 1,024 QPs, MTU 1500, 250 MHz
 *       cfg.source = my_source;
 *       cfg.cut_align = 1024;                   // pieces cut at 1 KB segments
 *       mem = malloc(rq_palos_mem_size(&cfg));
 *       if (!mem || rq_palos_init(&p, &cfg, mem, rq_palos_mem_size(&cfg)) != RNIC_OK)
 *           return 1;
 *       rq_palos_create_group(&p, 0, 10);       // tenant 0, weight 10
 *       rq_palos_set_qp(&p, 7, 0, 3, RQ_PALOS_BANDWIDTH); // QP 7 in group 0, weight 3
 *       memset(ring, 0, sizeof ring);
 *       for (i = 0; i < 5u; i++) {
 *           ring[i].addr = 0x100000u * (i + 1u);
 *           ring[i].len = 3000;
 *       }
 *       rq_palos_doorbell(&p, 7, 5);            // QP 7's tail register: WQEs 0..4
 *       do {                                    // event-driven: skip idle cycles
 *           while (rq_palos_pop(&p, &w) == RNIC_OK) { // pieces as rnic_work: flow, index,
 *               pieces++;                       // offset, len, addr, raddr, tag, op, flags
 *               done += (w.flags & RNIC_WORK_LAST) != 0;
 *           }
 *       } while (rq_palos_next_event(&p) != RNIC_NEVER && rq_palos_advance(&p, 1000000) > 0u);
 *       printf("%u pieces, %u WQEs done\n", pieces, done);
 *       free(mem);
 *       return 0;
 *   }
 *
 * CONFIG (rq_qos_config / rq_palos_config; *_config_default sets the defaults, *_config_check
 * names the first bad field)
 *   QoS: clock_hz 150 MHz; domains 16; write_channels 64, read_channels 64 per domain;
 *   intra_priorities 16 (66 queues); block_bytes 65536; max_outstanding 2 (1 .. 15, the 4-bit
 *   counter); accumulators 16 (= domains) or 1; ids: tids 512, flow_blocks 4, 64 unipath FIDs,
 *   16 multipath groups; aw_fifo 8, b_fifo 8, read_port 8, transaction_port 4, packet_queue 16,
 *   response_port 8, remote_port 8; seq_bits 12; timeout_ns 20,000; retry_limit 3;
 *   start_cycle 0; trace NULL.
 *   Palos: weights (max_qps 1,024, max_groups 64, mtu 1500); mode CHUNK (or PACKET_RR);
 *   ring_entries 4096; out_port 2 launches; launch_wqes 64 output WQEs per cycle; fetch_slots 16;
 *   fetch_latency_ns 16; max_batch 64; priority_max_msg 4096; packet_overhead 0; cut_align 0;
 *   clock_hz 250 MHz; source (the caller's WQE reader) required.
 *
 * PORTS (per cycle; latency)
 *   QoS inputs: 1 AXI write beat handled per cycle, one cycle after it enters the 8-deep AW
 *   FIFO (the last descriptor word -> inline packet in 2 cycles, 4 from the write address; one
 *   256-bit descriptor per 2 cycles on the 128-bit path); 1 status read (answer next cycle);
 *   the message handler takes 1 response per 3 cycles (S1 accept, S2 pending entry, S3
 *   metadata); remote reads: one Transfer Table line per cycle when the AXI stage writes none.
 *   QoS outputs: 1 block per cycle from the segmenter (stage 2 for a first block, else stage 3;
 *   measured 0.99 over 100 cycles); inline and control packets to the Packet queue; BRESP per
 *   beat; status read data. Scheduling FIFOs: 1 enqueue (handler > segmenter > AXI > remote)
 *   and 1 dequeue per cycle. Timeout scanner: 1 pending entry per cycle (1,024 per sweep),
 *   waiting a cycle when the handler's S1 reads the table.
 *   Palos: 1 doorbell applied, 1 fetch issued, 1 launch of up to launch_wqes output WQEs.
 *
 * LIMITS AND WHAT IT DOES NOT DO
 *   The QoS engine matches a response by TID and its 12-bit global sequence number (equality,
 *   as the thesis): a response delayed by 4,096 block issues or more (all transfers together;
 *   27 us at one block per cycle and 150 MHz) can match a newer block on the same TID when the
 *   numbers coincide, so the network must deliver responses within that window (a larger
 *   seq_bits widens it). A full B FIFO stalls the AXI write stage (counted in bresp_stalls):
 *   the thesis's FIFO "does not induce any stalling" because its interconnect always takes
 *   responses; a caller must drain BRESPs the same way. Pending-table writes (stage 2, S3, the
 *   NACK and timeout marks, retransmission) are not arbitrated against each other. No data
 *   moves: blocks and packets are descriptors for a send unit.
 *   Palos: its departures from the paper are listed in docs/palos_model.md.
 *
 * ERRORS
 *   Refused input returns an rnic_err, is counted in the engine's statistics (errors by cause;
 *   port_full for RNIC_EBUSY) and changes nothing else: full input port RNIC_EBUSY, NULL record
 *   RNIC_EINVAL, unknown domain / line / TID RNIC_ENOENT, another domain's page RNIC_EPERM,
 *   misaligned beat RNIC_EALIGN, interleaved descriptor RNIC_ESTATE (an AXI error response),
 *   stale or duplicate response RNIC_ESTALE (dropped, counted), bad descriptor RNIC_EINVAL or
 *   RNIC_ERANGE, bad config RNIC_EINVAL with the field named, too little memory RNIC_ENOSPC.
 *   Palos: unknown QP or group RNIC_ENOENT, weight outside 1 .. 65535 RNIC_ERANGE, a group that
 *   exists RNIC_EEXIST, removing a busy QP RNIC_ESTATE, a doorbell that does not move the tail
 *   forward RNIC_ESTALE, one past the ring RNIC_ENOSPC; a WQE the source cannot supply or
 *   marks bad completes as an ERROR record.
 *
 * STATIC MEMORY
 *   RQ_QOS_MEM_SIZE(domains, write_channels, read_channels, intra_priorities, accumulators,
 *   ids.tids, ids.fids_unipath, ids.fid_groups, aw_fifo, b_fifo, read_port, transaction_port,
 *   packet_queue, response_port, remote_port) and RQ_PALOS_MEM_SIZE(weights.max_qps,
 *   weights.max_groups, fetch_slots, out_port, launch_wqes) are rq_qos_mem_size and
 *   rq_palos_mem_size as integer constant expressions (equal for any valid config; tested), so
 *   firmware sizes static buffers without calling them:
 *     static uint64_t mem[RQ_PALOS_MEM_SIZE(1024, 64, 16, 2, 64) / 8];   // the defaults
 *
 * Conventions (all rnicq headers): prefix rq_/RQ_; define RQ_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; RQ_STATIC makes the API static;
 * no allocation, no floating point, no globals; version: RQ_VERSION_MAJOR/MINOR/PATCH and
 * rq_version(). See README.md.
 */
