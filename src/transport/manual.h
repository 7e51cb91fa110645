/* transport.h -- Tonic: programmable transport logic of an RDMA NIC, cycle by cycle.
 *
 * WHAT IT MODELS
 *   "Enabling Programmable Transport Protocols in High-Speed NICs" (Arashloo, Lavrov,
 *   Ghobadi, Rexford, Walker, Wentzlaff; NSDI 2020), one file per box of its Fig. 2
 *   (docs/transport_model.md is the cycle contract, with every choice the paper leaves open):
 *   - tp: the data delivery engine (Table 2 state with acked / marked-for-rtx / rtx-cnt ring
 *     bitmaps of W <= 256 segments; Incoming in two stages, Periodic updates, Segment
 *     generation, Segment transmitted; the merge rules of §3.4) and the credit engine (a ring of
 *     N segment addresses per flow, ready-to-transmit, one segment out per cycle; credit by
 *     window, rate with App. B's multi-precision timers, grant tokens, or an outside pacer that
 *     reads the rings as an rnic_source_fn, e.g. ratelimit.h's Tassel);
 *   - tp_protocol: a protocol is a credit type, a user context (Table 4's budgets: 448 / 340 /
 *     256 B) and two hooks whose inputs and outputs are App. F's ports (tp_event, tp_actions).
 *     Reno, NewReno (RFC 6582, as ns-3's TcpNewReno; param[3] = TP_NEWRENO_RECOVER_RFC6582 for
 *     RFC 6582's own recover check), SACK (RFC 6675, one block), RoCEv2
 *     go-back-N + DCQCN (docs/transport_dcqcn.md), IRN and NDP (docs/transport_irn_ndp.md) ship;
 *   - tp_rx: the compatible receiver (cumulative ACK + one SACK block, NACK, delayed ACKs as
 *     ns-3's TCP, and as options a RoCEv2 go-back-N responder, DCQCN's notification point and
 *     NDP's pull queue).
 *   examples/tonic_*.c reproduce Fig. 3, Fig. 4 and Tables 3/4; examples/rnic_model composes tp
 *   with Palos, Tassel (outside pacer), a switch and tp_rx.
 *
 * DO THIS (a complete program: make test compiles and runs this text as C and C++)
 *   #define TP_IMPLEMENTATION            // (or RNIC_IMPLEMENTATION) in one .c file
 *   #include "transport.h"
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   int main(void)
 *   {
 *       tp_config cfg;
 *       tp_rx_config rcfg;
 *       tp_flow_config fc;
 *       tp *t = (tp *)malloc(sizeof *t);
 *       tp_rx *r = (tp_rx *)malloc(sizeof *r);
 *       rnic_work w, msg;
 *       uint64_t delivered = 0, sent = 0;
 *       void *mem, *rmem;
 *       tp_config_default(&cfg);            // 250 MHz, W = 128 segments, N = 4 per flow
 *       cfg.max_flows = 4;
 *       cfg.protocol = tp_protocol_newreno();
 *       tp_rx_config_default(&rcfg);        // cumulative ACKs, delayed every 2nd segment
 *       rcfg.max_flows = 4;
 *       rcfg.sack = false;
 *       mem = malloc(tp_mem_size(&cfg));    // or a static buffer (TP_MEM_SIZE below)
 *       rmem = malloc(tp_rx_mem_size(&rcfg));
 *       if (!t || !r || !mem || !rmem || tp_init(t, &cfg, mem, tp_mem_size(&cfg)) != RNIC_OK ||
 *           tp_rx_init(r, &rcfg, rmem, tp_rx_mem_size(&rcfg)) != RNIC_OK)
 *           return 1;
 *       tp_flow_config_default(&fc);        // 1,000 B segments, initial window 10, RTO 200 ms
 *       tp_flow_open(t, 1, &fc);
 *       tp_rx_flow_open(r, 1, NULL);        // NULL: the receiver flow's defaults (init_seq 0)
 *       memset(&msg, 0, sizeof msg);
 *       msg.flow = 1;
 *       msg.len = 1000000;                  // one 1 MB message: 1,000 segments
 *       msg.tag = 42;                       // comes back on the completion
 *       tp_push_message(t, &msg);
 *       for (;;) {
 *           tp_tick(t);
 *           tp_rx_tick(r);
 *           while (tp_pop_segment(t, &w) == RNIC_OK)
 *               if (++sent % 100 != 0)      // the wire loses every 100th segment
 *                   tp_rx_push_segment(r, &w);
 *           while (tp_rx_pop_ack(r, &w) == RNIC_OK)
 *               tp_push_incoming(t, &w);    // TP_WORK_PKT_TYPE(w.flags): TP_PKT_ACK here
 *           while (tp_rx_pop_delivered(r, &w) == RNIC_OK)
 *               delivered += w.len;         // each segment once, as it first arrives
 *           if (tp_pop_completion(t, &w) == RNIC_OK)
 *               break;
 *       }
 *       printf("message %u done at cycle %u: %u bytes placed once, %u retransmissions\n",
 *              (unsigned)w.tag, (unsigned)tp_now(t), (unsigned)delivered,
 *              (unsigned)tp_get_stats(t)->segments_rtx);
 *       free(mem);
 *       free(rmem);
 *       free(t);
 *       free(r);
 *       return 0;
 *   }
 *
 * WRITING A PROTOCOL
 *   Fill a static const tp_protocol { name, credit (TP_CREDIT_*), ctx_size, init, incoming,
 *   periodic, periodic_every_visit, merge, config, check }. init(flow config, config, clock_hz,
 *   ctx, act) sets the context (zeroed before) and may change act's preset window, rate, credit
 *   and timer period. config is the protocol's constant parameter block (NULL: defaults; a
 *   variant is a copy of the protocol with another config, validated by check in
 *   tp_config_check); hooks see it as ev->config. Hooks get a tp_event (the packet and the
 *   flow's state, bitmaps as read-only tp_bits views) and a tp_actions preset to "no change";
 *   they may mark a range for retransmission, set the window, rate, token credit, timer period,
 *   and restart the timer. The engine arms the rtx timer itself when it generates a segment
 *   while the timer is stopped, stops it when nothing is in flight, and calls periodic(timeout =
 *   true) when it expires (the timer is then stopped: re-arm it). The context is a byte array
 *   with no alignment promise: copy it in and out (RNIC_MEMCPY). Hooks must not loop over the
 *   window or allocate (they are one cycle of hardware).
 *
 * CONFIG (every field, its default and range; X_config_default sets the defaults)
 *   tp_config: clock_hz 250 MHz (100 MHz .. 1 GHz; the paper's prototype ran at 100 MHz, which
 *   examples/tonic_*.c set) | link_bps 100 Gb/s (100 Kb/s .. 800 Gb/s) | min_rate_bps 100 Kb/s
 *   (.. link_bps; rate credit is clamped to [min_rate_bps, link_bps]) | max_flows 1024
 *   (1 .. 65536) | window W 128 (64, 128 or 256 segments) | ring N 4 (power of two, 1 .. 64) |
 *   message_depth 8 (messages queued per flow, 1 .. 256) | incoming_depth 64, segment_depth 16,
 *   completion_depth 64 (1 .. 65536) | protocol (required) | external_pacer false (rate credit
 *   only), pacer {doorbell, set_rate, user} | start_cycle 0 | trace NULL, trace_user, trace_id
 *   RNIC_ENGINE_TRANSPORT.
 *   tp_flow_config (tp_flow_open; tp_flow_config_default): seg_size 1000 (1 .. 65536) |
 *   init_seq 0 | init_wnd 10 (>= 1) | init_rate_bps 0 (= link_bps) | init_credit 0 bytes |
 *   max_burst 0 (= 2 segments; else seg_size .. 2^40 bytes, rate credit) | rto_ns 200 ms (> 0) |
 *   param[6] 0 (each protocol documents them; tp_flow_open refuses a value out of a
 *   protocol's range with RNIC_EINVAL, e.g. NewReno's param[3] above 1).
 *   tp_rx_config: clock_hz 250 MHz | max_flows 1024 (1 .. 65536) | window 128 (64, 128, 256) |
 *   delack_count 2 (1 .. 65536; 1 = no delayed ACKs) | delack_ns 200 ms (1 ns .. 100 s) | nack
 *   false | sack true | ack_first false | go_back_n false | cnp_interval_ns 0 (no CNPs; <= 100 s,
 *   needs ack_depth >= 2) | cnp_mode TP_RX_CNP_IMMEDIATE (or _DEFERRED) | pull_bps 0 (no pulls;
 *   else 100 Kb/s .. 800 Gb/s) | pull_overhead_bytes 64 (<= 65536) | segment_depth 64, ack_depth
 *   64, delivered_depth 64 (1 .. 65536) | start_cycle 0 | trace NULL, trace_id RNIC_ENGINE_TP_RX.
 *   tp_rx_flow_config (tp_rx_flow_open; NULL or tp_rx_flow_config_default): init_seq 0.
 *   Protocol blocks: tp_dcqcn_config (tp_dcqcn_preset: TP_DCQCN_PAPER / _MELLANOX; rate_floor_bps
 *   100 Mb/s), tp_irn_config (rto_low_ns 100 us, rto_high_ns 320 us, rto_low_pkts 3, bdp_bytes,
 *   rate_bps), tp_ndp_config (init_window 16, window, rto_ns 0 = the flow's): their sections below.
 *   Times are given in ns and converted once, at init / flow open, to cycles at clock_hz
 *   (rounded to nearest, at least 1).
 *
 * PORTS (records are rnic_work; per cycle; latency)
 *   tp inputs: message (tp_push_message / tp_space_message = free slots of the message store;
 *   tp_flow_message_room(t, flow) = room in the flow's own queue, which refuses with RNIC_EBUSY
 *   when full): flow, len (1 .. 2^32 - 1), addr, raddr, tag, op; seen by the next tick.
 *   incoming (tp_push_incoming / tp_space_incoming): control packets, the type in the engine
 *   bits of flags (TP_WORK_PKT(TP_PKT_ACK | _NACK | _CNP | _GRANT)), index = cumulative ack,
 *   offset/len = one SACK block, aux = grant bytes, TP_WORK_ECN = an ECN echo; one per cycle:
 *   its fixed stage, then the protocol's hook the next cycle. consumed (tp_push_consumed /
 *   tp_space_consumed, external_pacer only): the pacer sent ring entry (flow, index); acts at
 *   the call. Outputs segment (tp_pop_segment / tp_peek_segment): one per cycle out of the
 *   credit engine; index = segment id, offset/len/addr/raddr of the piece, tag and op of the
 *   message, FIRST/LAST, TP_WORK_RTX, aux = the message's number on the flow; a segment
 *   generated in cycle t leaves at t + 1 at the earliest. completion (tp_pop_completion /
 *   tp_peek_completion): the message record (FIRST|LAST, len, tag) once every segment is
 *   acknowledged.
 *   tp_rx input: segment (tp_rx_push_segment / tp_rx_space_segment): one taken per cycle.
 *   Outputs ack (tp_rx_pop_ack / _peek_ack): control packets for tp (op 0, tag = the segment's)
 *   in the tick that took the segment (delayed ACKs, deferred CNPs and paced pulls later);
 *   delivered (tp_rx_pop_delivered / _peek_delivered): each segment the first time it arrives.
 *   Flows: tp_flow_open / tp_flow_close / tp_flow_state, tp_rx_flow_open / tp_rx_flow_close /
 *   tp_rx_flow_state.
 *   Trace (docs/engine_contract.md): PUSH / OUT / POP a = the record's index, b = its len;
 *   REFUSE a = index, b = the rnic_err; RATE a = b/s applied, b = asked; TP_TRACE_* below.
 *
 * WHAT IT DOES NOT DO
 *   No packet formats, headers or wire: records are rnic_work and the caller is the network (a
 *   composed model: examples/rnic_model). No connection set-up: flow ids come from outside (§5).
 *   No payload: addresses are carried, bytes are not moved. One SACK block per ACK. The paper's
 *   Verilog timing (clock, pipeline depth) is the cycle contract of docs/transport_model.md, not
 *   a gate-level model.
 *
 * ERRORS
 *   Refused input returns an rnic_err, is counted once (stats.errors by cause) and traced
 *   (REFUSE), and changes nothing else: NULL engine or record RNIC_EINVAL; a full port or flow
 *   message queue RNIC_EBUSY; an unknown or closed flow RNIC_ENOENT, an open one opened again
 *   RNIC_EEXIST, a flow closed while it holds data RNIC_EBUSY; a message of len 0 or a bad flow
 *   config RNIC_EINVAL, ids that would stop being comparable RNIC_ERANGE; a control packet of
 *   an unknown type RNIC_EINVAL; at its fixed stage, a cumulative ack behind wnd_start
 *   RNIC_ESTALE and one beyond what was sent RNIC_ERANGE; tp_push_consumed without an outside
 *   pacer RNIC_ESTATE, not the ring's head RNIC_ESTALE; a bad config RNIC_EINVAL with the field
 *   named by X_config_check; too little memory RNIC_ENOSPC. Hook outputs out of range are
 *   clamped and counted (rate_clamped, window_clamped, timer_clamped), never refused.
 *
 * LIMITS
 *   Segment ids are free-running uint32 compared modulo 2^32: a flow keeps fewer than 2^31
 *   segments queued. W <= 256, N <= 64, 256 messages per flow, 65,536 flows. next_event is a
 *   lower bound for timers (lazy heaps: docs/engine_contract.md, "Tonic"). A delayed ACK or
 *   timer due exactly at cycle 2^64 - 1 reads RNIC_NEVER from X_next_event; X_advance is exact.
 *   Static memory: TP_MEM_SIZE(max_flows, window, ring, message_depth, incoming_depth,
 *   segment_depth, completion_depth, protocol->ctx_size) and TP_RX_MEM_SIZE(max_flows, window,
 *   segment_depth, ack_depth, delivered_depth, cnp_interval_ns, cnp_mode, pull_bps) are
 *   tp_mem_size and tp_rx_mem_size as integer constant expressions (equal for any valid config;
 *   tested), so firmware sizes static buffers without calling them:
 *     static uint64_t mem[TP_MEM_SIZE(4, 128, 4, 8, 64, 16, 64, sizeof(tp_tcp_ctx)) / 8];
 *   (a credit type's budget, e.g. TP_CTX_MAX_RATE, as ctx_size fits any protocol of that type).
 *
 * VERSION
 *   TP_VERSION_MAJOR / MINOR / PATCH and tp_version(). Conventions (all rnicq headers): prefix
 *   tp_/TP_ (internal names tp__); define TP_IMPLEMENTATION (or RNIC_IMPLEMENTATION) in one .c
 *   file before including; TP_STATIC makes the API static; no allocation, no floating point, no
 *   globals. Renames of issue 29: docs/CHANGES.md.
 */
