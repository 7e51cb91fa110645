/* transport.h -- Tonic: programmable transport logic of an RDMA NIC, cycle by cycle.
 *
 * Models "Enabling Programmable Transport Protocols in High-Speed NICs" (Arashloo et al.,
 * NSDI 2020; shared/seeds/003), one file per box of its Fig. 2 (docs/transport_model.md is the
 * cycle contract, with every choice the paper leaves open marked):
 *   - tp: the data delivery engine (Table 2 state with acked / marked-for-rtx / rtx-cnt ring
 *     bitmaps of W <= 256 segments; Incoming in two stages, Periodic updates, Segment
 *     generation, Segment transmitted; the merge rules of §3.4) and the credit engine (a ring of
 *     N segment addresses per flow, ready-to-transmit, one segment out per cycle; credit by
 *     window, rate with App. B's multi-precision timers, grant tokens, or an outside pacer that
 *     reads the rings as an rnic_source_fn, e.g. ratelimit.h);
 *   - tp_protocol: a protocol is a credit type, a user context (Table 4's budgets: 448 / 340 /
 *     256 B) and two hooks whose inputs and outputs are App. F's ports (tp_event, tp_actions);
 *     Reno, NewReno (RFC 6582, as ns-3's TcpNewReno) and SACK (RFC 6675, one block) ship here;
 *   - tp_rx: the compatible receiver (cumulative ACK + one SACK block, NACK, delayed ACKs).
 *
 * DO THIS: see README.md "transport.h -- Tonic" for a complete closed loop (a 1 MB message over a
 * lossy wire) and examples/tonic_*.c for Fig. 3 and Tables 3/4.
 *
 * WRITING A PROTOCOL: fill a static const tp_protocol { name, credit (TP_CREDIT_*), ctx_size,
 * init, incoming, periodic, periodic_every_visit, merge, config, check }. init(params, config,
 * clock_hz, ctx, act) sets the context (zeroed before) and may change act's preset window, rate,
 * credit and timer period. config is the protocol's constant parameter block (NULL: defaults; a
 * variant is a copy of the protocol with another config, validated by check in tp_config_check);
 * hooks see it as ev->config.
 * Hooks get a tp_event (the packet and the flow's state, bitmaps as read-only tp_bits views) and
 * a tp_actions preset to "no change"; they may mark a range for retransmission, set the window,
 * rate, token credit, timer period, and restart the timer. The engine arms the rtx timer itself
 * when it generates a segment while the timer is stopped, stops it when nothing is in flight,
 * and calls periodic(timeout = true) when it expires (the timer is then stopped: re-arm it).
 * The context is a byte array with no alignment promise: copy it in and out (RNIC_MEMCPY).
 * Hooks must not loop over the window or allocate (they are one cycle of hardware).
 *
 * STATIC MEMORY
 *   TP_MEM_SIZE(max_flows, window, ring, messages, incoming_capacity, tx_capacity,
 *   completion_capacity, protocol->ctx_size) and TP_RX_MEM_SIZE(max_flows, window,
 *   input_capacity, ack_capacity, delivered_capacity, cnp_interval_us, cnp_mode, pull_bps) are
 *   tp_mem_size and tp_rx_mem_size as integer constant expressions (equal for any valid config;
 *   tested), so firmware sizes static buffers without calling them:
 *     static uint64_t mem[TP_MEM_SIZE(4, 128, 4, 8, 64, 16, 64, sizeof(tp_tcp_ctx)) / 8];
 *   (a credit type's budget, e.g. TP_CTX_MAX_RATE, as ctx_size fits any protocol of that type).
 *
 * Conventions (all rnicq headers): prefix tp_/TP_; define TP_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; TP_STATIC makes the API static;
 * no allocation, no floating point, no globals; every bad input is an rnic_err code
 * counted in the engine's statistics. See README.md.
 */
