/* rnicq.h -- the RED-SEA QoS engine and the Palos chunk slicer of an RDMA NIC, cycle by cycle.
 *
 * WHAT IT MODELS
 *   Papers: "Hardware Support for Quality of Service in an RDMA Engine" (N. Bartzis, master's
 *   thesis, University of Crete and FORTH-ICS, 2022: the RED-SEA QoS engine) and "Palos: Fair
 *   and Flexible Flow Scheduling on RNIC" (the Palos paper). Exact cycle semantics and every
 *   departure: docs/rnicq_qos_model.md and docs/palos_model.md; the contract every engine
 *   follows: docs/engine_contract.md.
 *   rq_qos, the RED-SEA QoS engine: 2,048 Transfer Table channels in 16 protection domains
 *   written by AXI beats through accumulators (one set per domain, or the thesis's single set),
 *   descriptors with inline payloads, 2-bit status registers with 32-channel read-and-clear,
 *   66 scheduling FIFOs in one shared space (Alg. 1/2) with their enqueue priority, TID/FID
 *   pools with the reset initializer, unipath and multipath TIDs with the tid_bitmap, the
 *   3-stage transfer segmenter (64 KB blocks, stage-3 bypass, control packets), the message
 *   handler's 3-state FSM and the metadata arbiter, Transfer Table port 0 shared by local and
 *   remote descriptor writes, remote read requests, and the timeout scanner and retransmission
 *   the thesis left as future work (sharing the pending table's port with the handler).
 *   Source: one file per hardware block of the thesis's chapter 3 (src/rnicq/qos_*.c).
 *   rq_palos, Palos: doorbells, latency and bandwidth schedule queues, pipelined WQE fetch,
 *   data-chunk scheduling by WQE reconstruction (slicing and combining, several WQEs launched
 *   per cycle), hierarchical group/flow weights rq_pw (Eq. 1/2), a strict-priority latency
 *   class, and the packet round-robin baseline. Source: one file per box of its Fig. 5
 *   (src/rnicq/palos_*.c). Building blocks usable alone: rq_ids, rq_block_plan,
 *   rq_status_regs, rq_desc_encode / rq_desc_decode, rq_pw.
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
 *       rq_qos_config_default(&cfg);            // the thesis's sizes, 20 us timeout, 250 MHz
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
 *               ack.seq = RQ_WORK_SEQ(blk.flags); // send unit ACKs it (rq_qos_pop_packet gives
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
 *       rq_palos_flow_config fc;
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
 *       rq_palos_flow_config_default(&fc);      // bandwidth class
 *       fc.group = 0;
 *       fc.weight = 3;
 *       rq_palos_flow_open(&p, 7, &fc);         // QP 7 in group 0, weight 3
 *       memset(ring, 0, sizeof ring);
 *       for (i = 0; i < 5u; i++) {
 *           ring[i].addr = 0x100000u * (i + 1u);
 *           ring[i].len = 3000;
 *       }
 *       rq_palos_doorbell(&p, 7, 5);            // QP 7's tail register: WQEs 0..4
 *       do {                                    // event-driven: skip idle cycles
 *           while (rq_palos_pop_piece(&p, &w) == RNIC_OK) { // pieces as rnic_work: flow, index,
 *               pieces++;                       // offset, len, addr, raddr, tag, op, flags
 *               done += (w.flags & RNIC_WORK_LAST) != 0;
 *           }
 *       } while (rq_palos_next_event(&p) != RNIC_NEVER && rq_palos_advance(&p, 1000000) > 0u);
 *       printf("%u pieces, %u WQEs done\n", pieces, done);
 *       free(mem);
 *       return 0;
 *   }
 *
 * CONFIG (rq_qos_config / rq_palos_config: every field, its default and range; *_config_default
 * sets the defaults, *_config_check names the first bad field)
 *   QoS (rq_qos_config):
 *     clock_hz           250 MHz (every engine's; the thesis's FPGA: 150 MHz)   1 MHz .. 1 THz
 *     domains            16 protection domains                                  1 .. 1024
 *     write_channels     64 per domain                                          a multiple of 32
 *     read_channels      64 per domain (remote reads)          >= 1; domains x (write + read) <= 2^20
 *     intra_priorities   16 (2 + 4 x 16 = 66 scheduling queues)                 1 .. 16
 *     block_bytes        65536                                       a power of 2, 64 .. 2^30
 *     max_outstanding    2 blocks in flight per transfer                  1 .. 15 (4-bit counter)
 *     ids.tids           512 TIDs                                           a power of 2, 4 .. 2^20
 *     ids.flow_blocks    4 blocks per FID                                   a power of 2, <= 64
 *     ids.fids_unipath   64 unipath FIDs; ids.fid_groups 16 multipath groups
 *                        fids_unipath + 4 x fid_groups = tids / flow_blocks
 *     accumulators       16 (= domains: one set per domain)                     domains or 1
 *     axi_write_depth    8 AXI write beats (the AW FIFO)                        >= 1
 *     bresp_depth        8 write responses (the B FIFO)                         >= 1
 *     axi_read_depth     8 status reads, and as many answers (RDATA)            >= 1
 *     block_depth        4 blocks for the send unit                             >= 1
 *     packet_depth       16 inline and control packets                          >= 1
 *     response_depth     8 ACK/NACKs for the message handler                    >= 1
 *     remote_read_depth  8 remote read requests                                 >= 1
 *     seq_bits           12 (the global block sequence number's width)          2 .. 16
 *     timeout_ns         20,000 (uint64_t)                     1 .. 2^40 cycles at clock_hz
 *     retry_limit        3 retransmissions of a block before ERROR              0 .. 255
 *     start_cycle        0 (rq_qos_now after init; any value, the clock wraps at 2^64)
 *     trace, trace_user  NULL (no events); trace_id RNIC_ENGINE_QOS
 *   Palos (rq_palos_config):
 *     weights.max_flows  1,024 flows                                           1 .. 65536
 *     weights.max_groups 64 groups (tenants)                                   1 .. 4096
 *     weights.mtu        1500 (N = max_flows x mtu)          64 .. 65536; max_flows x mtu <= 2^30
 *     mode               RQ_PALOS_CHUNK (or RQ_PALOS_PACKET_RR, the baseline)
 *     ring_entries       4096 WQEs per flow's ring                             1 .. 2^24
 *     piece_depth        2 launches in the piece port             1 .. 2^20; x launch_wqes <= 2^20
 *     launch_wqes        64 output WQEs per launch (per cycle)                 1 .. 4096
 *     fetch_slots        16 batch reads in flight per class                    1 .. 4096
 *     fetch_latency_ns   16 (uint64_t; 4 cycles at 250 MHz)                    <= 2^20 cycles
 *     max_batch          64 WQEs per read                                      1 .. 4096
 *     priority_max_msg   4096 bytes, the latency class's largest message       1 .. 2^30
 *     packet_overhead    0 bytes charged per packet of a piece                 0 .. 4096
 *     cut_align          0 (off): cuts at multiples of it                      0 .. 2^24
 *     clock_hz           250 MHz                                               1 MHz .. 100 GHz
 *     start_cycle        0; source: the caller's WQE reader (required); trace NULL;
 *                        trace_id RNIC_ENGINE_PALOS
 *   A Palos flow (rq_palos_flow_config, rq_palos_flow_config_default): group 0, weight 1
 *   (1 .. 65535), cls RQ_PALOS_BANDWIDTH (or RQ_PALOS_LATENCY).
 *
 * PORTS (per cycle; latency)
 *   QoS inputs: axi_write (rq_qos_axi_write / rq_qos_space_axi_write): 1 AXI write beat
 *   handled per cycle, one cycle after it enters the AW FIFO (the last descriptor word ->
 *   inline packet in 2 cycles, 4 from the write address; one 256-bit descriptor per 2 cycles on
 *   the 128-bit path); axi_read (rq_qos_axi_read): 1 status read, answered next cycle;
 *   response (rq_qos_push_response): the message handler takes 1 per 3 cycles (S1 accept, S2
 *   pending entry, S3 metadata); remote_read (rq_qos_push_remote_read): one Transfer Table
 *   line per cycle when the AXI stage writes none.
 *   QoS outputs: block (rq_qos_pop_block / _peek_block, rnic_work: flow = the transfer's line,
 *   aux = TID, RQ_WORK_SEQ(flags) = its sequence number): 1 block per cycle from the segmenter
 *   (stage 2 for a first block, else stage 3); packet (rq_packet: inline and control packets);
 *   bresp (one per beat); rdata (status read answers). Scheduling FIFOs: 1 enqueue (handler >
 *   segmenter > AXI > remote) and 1 dequeue per cycle. Timeout scanner: 1 pending entry per
 *   cycle (1,024 per sweep), waiting a cycle when the handler's S1 reads the table.
 *   Palos: registers rq_palos_doorbell (the tail, coalesced), rq_palos_flow_open / _close,
 *   rq_palos_create_group / _set_group_weight, rq_palos_flow_hold (per-QP back-pressure: a held
 *   QP is not served, at once); output piece (rq_palos_pop_piece /
 *   _peek_piece, rnic_work). Per cycle: 1 doorbell applied, 1 fetch issued, 1 launch of up to
 *   launch_wqes output WQEs.
 *
 * WHAT IT DOES NOT DO
 *   No data moves: blocks and packets are descriptors for a send unit, pieces are WQEs for a
 *   protocol engine. The QoS engine does not arbitrate pending-table writes against each other
 *   (stage 2, S3, the NACK and timeout marks, retransmission). Palos's departures from its
 *   paper are listed in docs/palos_model.md.
 *
 * ERRORS
 *   Refused input returns an rnic_err, is counted once in the engine's statistics (errors, by
 *   code; for the QoS engine also stats.reasons, by reason: RQ_QOS_REASONS, with
 *   rq_qos_reason_message naming what to change) and changes nothing else: full input port RNIC_EBUSY,
 *   NULL record RNIC_EINVAL, unknown domain / line / TID RNIC_ENOENT, another domain's page
 *   RNIC_EPERM, misaligned beat RNIC_EALIGN, interleaved descriptor RNIC_ESTATE (an AXI error
 *   response), stale or duplicate response RNIC_ESTALE (dropped, counted), bad descriptor
 *   RNIC_EINVAL or RNIC_ERANGE, a congestion-managed transfer without FIDs RNIC_ENOSPC, bad
 *   config RNIC_EINVAL with the field named, too little memory RNIC_ENOSPC.
 *   Palos: unknown flow or group RNIC_ENOENT, weight outside 1 .. 65535 RNIC_ERANGE, a group
 *   that exists RNIC_EEXIST, closing a busy flow RNIC_ESTATE, a NULL flow config or a bad class
 *   RNIC_EINVAL, a doorbell that does not move the tail forward RNIC_ESTALE, one past the ring
 *   RNIC_ENOSPC; a WQE the source cannot supply or marks bad completes as an ERROR record.
 *
 * LIMITS
 *   The QoS engine matches a response by TID and its seq_bits-wide global sequence number
 *   (equality, as the thesis): a response delayed by 2^seq_bits block issues or more (all
 *   transfers together) can match a newer block on the same TID when the numbers coincide, so
 *   the network must deliver responses within that window (a larger seq_bits widens it). A
 *   full B FIFO stalls the AXI write stage (counted in bresp_stalls): the thesis's FIFO "does
 *   not induce any stalling" because its interconnect always takes responses; a caller must
 *   drain BRESPs the same way. At most 2^20 Transfer Table lines and 2^20 TIDs; Palos at most
 *   65,536 flows, 2^31-byte WQEs.
 *   Static memory: RQ_QOS_MEM_SIZE(domains, write_channels, read_channels, intra_priorities,
 *   accumulators, ids.tids, ids.fids_unipath, ids.fid_groups, axi_write_depth, bresp_depth,
 *   axi_read_depth, block_depth, packet_depth, response_depth, remote_read_depth) and
 *   RQ_PALOS_MEM_SIZE(weights.max_flows, weights.max_groups, fetch_slots, piece_depth,
 *   launch_wqes) are rq_qos_mem_size and rq_palos_mem_size as integer constant expressions
 *   (equal for any valid config; tested), so firmware sizes static buffers without calling
 *   them:
 *     static uint64_t mem[RQ_PALOS_MEM_SIZE(1024, 64, 16, 2, 64) / 8];   // the defaults
 *
 * VERSION
 *   RQ_VERSION_MAJOR / MINOR / PATCH and rq_version(). Conventions (all rnicq headers): prefix
 *   rq_/RQ_ (internal names rq__); define RQ_IMPLEMENTATION (or RNIC_IMPLEMENTATION) in one .c
 *   file before including; RQ_STATIC makes the API static; no allocation, no floating point, no
 *   globals. Renames of issue 29: docs/CHANGES.md.
 */
