/* The composed RNIC's trace CSV (--trace-csv FILE, [output] trace_csv): every trace event of
 * every NIC's engines and modules, one row each, with names instead of codes so that a person
 * can read it without the sources (docs/trace_csv.md):
 *
 *   time_ns,cycle,node,engine,instance,event,id,a,b,id_is,a_is,b_is
 *
 * node = the host's topology name (h3), engine and event = names from the one table below,
 * instance = the NIC's k-th transport / receiver (one per protocol kind, 0 for the other
 * engines), id / a / b = the event's numbers, id_is / a_is / b_is = what each one holds.
 * The table below is the only place the names live: `rnic_model --trace-legend` prints it as the
 * markdown tables of docs/trace_csv.md (tests/run.sh fails when the committed tables differ).
 *
 * An (engine, kind) pair missing from the table is still written, as engine<N> / kind<N>, and
 * counted (RESULT trace_unnamed=). The digest is folded from the events, not from these rows.
 * Hosted code, outside the engines: it runs in the trace callback (fm_nic.h). Needs the four
 * headers (the kinds' macros) and model_parts.h included first. */
#ifndef RNIC_FM_TRACE_H
#define RNIC_FM_TRACE_H
#include <stdio.h>
#include <string.h>

/* a is an int64 held in the event's uint64 (a carried credit): written signed */
#define FM_TRACE_A_SIGNED 1u

typedef struct fm_trace_engine_name {
    uint16_t engine;  /* RNIC_ENGINE_* or the model's RM_TRACE_HOST / RM_TRACE_RECEIVER */
    const char *name; /* the CSV's engine column */
    const char *what; /* the legend's sentence */
} fm_trace_engine_name;

typedef struct fm_trace_name {
    uint16_t engine, kind;
    const char *kind_macro;           /* the kind's name in the sources (the legend shows it) */
    const char *event;                /* the CSV's event column */
    const char *id_is, *a_is, *b_is;  /* what id, a and b hold (the CSV's id_is, a_is, b_is) */
    unsigned flags;                   /* FM_TRACE_A_SIGNED */
    const char *what;                 /* the legend's sentence */
} fm_trace_name;

static const fm_trace_engine_name fm_trace_engines[] = {
    { RNIC_ENGINE_TASSEL, "tassel", "ratelimit.h's rate limiter (`rl`): paces each QP's WQEs into packets; id = the NIC's send QP" },
    { RNIC_ENGINE_QOS, "qos", "rnicq.h's RED-SEA QoS engine (`rq_qos`, `[nic] sched = qos`): descriptors to blocks, ACKs, timeouts" },
    { RNIC_ENGINE_PALOS, "palos", "rnicq.h's Palos (`rq_palos`, `[nic] sched = palos`): slices WQEs into pieces by weight; id = the NIC's send QP" },
    { RNIC_ENGINE_TRANSPORT, "transport", "transport.h's sender (`tp`): one per protocol kind the NIC sends (`instance`); id = the QP's number in that instance" },
    { RNIC_ENGINE_TP_RX, "transport_rx", "transport.h's receiver (`tp_rx`): one per protocol kind the NIC receives (`instance`); id = the flow's number in that instance" },
    { RNIC_ENGINE_HCC_HOST, "hostcc_host", "hostcc.h's receiving host (`hcc_host`): RX buffer, PCIe, IIO, memory controller (`[host] model = on`)" },
    { RNIC_ENGINE_HCC_RX, "hostcc_rx", "hostcc.h's RHCC receiver controller (`hcc_rx`): IIO samples to MBA levels and ECN marking" },
    { RNIC_ENGINE_HCC_TX, "hostcc_tx", "hostcc.h's RHCC sender controller (`hcc_tx`): probes, their ACKs, the reverse rate R_rev" },
    { RM_TRACE_HOST, "model_host", "the model's sending host (model_parts.h `rm_host`, `rm_qos_host`): posts messages; id = the NIC's send QP" },
    { RM_TRACE_RECEIVER, "model_rx", "the model's byte checker at the receiving NIC (`rm_receiver`, fm_nic.h): id = the NIC's rx flow" },
};

#define FM_TRACE_ROW(engine, kind, event, id_is, a_is, b_is, flags, what) \
    { (uint16_t)(engine), (uint16_t)(kind), #kind, event, id_is, a_is, b_is, flags, what }

/* Every (engine, kind) the engines and modules emit: tests/test_trace_names.py checks that each
 * kind their sources emit has its row. The common port kinds (RNIC_TRACE_PUSH, REFUSE, OUT,
 * POP, RATE: docs/engine_contract.md, "Trace") are named here by what they are at each engine. */
static const fm_trace_name fm_trace_names[] = {
    /* ---- tassel ---- */
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RNIC_TRACE_PUSH, "register_write", "qp", "value", "register", 0,
                 "the NIC wrote a QP's register: a = the value (a rate in b/s, 1 / 0 credit on / off, 0 for a doorbell), b = which register (1 doorbell, 2 rate, 4 credit)"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RNIC_TRACE_REFUSE, "refuse", "qp", "value", "error", 0,
                 "a register write refused: a = the value, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RNIC_TRACE_RATE, "rate_write", "qp", "applied_bps", "asked_bps", 0,
                 "a rate register written: a = the rate applied (clamped to the engine's range), b = the rate asked (b/s)"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RNIC_TRACE_OUT, "packet_out", "qp", "wqe_index", "bytes", 0,
                 "a packet left the pacer: a = its WQE's index, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RNIC_TRACE_POP, "packet_taken", "qp", "wqe_index", "bytes", 0,
                 "the NIC took a paced packet: a = its WQE's index, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RL_TRACE_APPLY, "registers_applied", "qp", "registers", "zero", 0,
                 "the EMUX applied a QP's pending registers: a = which (1 doorbell, 2 rate, 4 credit; or-ed)"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RL_TRACE_FETCH, "fetch", "qp", "wqe_index", "offset", 0,
                 "a WQE fetch issued: a = the WQE's index, b = the byte offset in it"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RL_TRACE_ROUND, "fetch_return", "qp", "packets_stored", "packets_computed", 0,
                 "a fetch returned: a = packets stored, b = packets computed (those beyond a are cut)"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RL_TRACE_RESCHEDULE, "reschedule", "qp", "key", "by_rate_change", 0,
                 "a QP entered the timeline: a = its key (virtual cycle), b = 1 when a rate change re-keyed it"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RL_TRACE_RETIME, "retime", "qp", "next_start", "dropped", 0,
                 "a rate write re-timed a QP: a = its new next start (virtual cycle), b = stored packets dropped"),
    FM_TRACE_ROW(RNIC_ENGINE_TASSEL, RL_TRACE_PARK, "park", "qp", "has_credit", "paused", 0,
                 "a QP waits: a = 1 when it has credit, b = 1 when its rate is 0 (paused)"),
    /* ---- qos ---- */
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RNIC_TRACE_PUSH, "input", "by_port", "by_port", "by_port", 0,
                 "an input accepted; by port: AXI write (id = address / 32, a = domain << 32 | address, b = bytes), "
                 "status read (id = domain, a = page << 32 | index, b = mode), response (id = TID, a = seq, b = 1 ACK / 0 NACK), "
                 "remote read (id = domain, a = source address, b = bytes)"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RNIC_TRACE_REFUSE, "refuse", "by_port", "value", "error", 0,
                 "an input refused: id as for `input` of its port, a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RNIC_TRACE_OUT, "output", "by_port", "by_port", "by_port", 0,
                 "an output queued; by port: write response (id = address / 32, a = status, b = address), "
                 "status read data (id = domain, a = the data, b = status), block or packet (id = transfer line, a = index, b = bytes)"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RNIC_TRACE_POP, "taken", "by_port", "by_port", "by_port", 0,
                 "an output taken; by port: write response (id = address / 32, a = status, b = address), "
                 "status read data (id = 0, a = the data, b = status), block or packet (id = transfer line, a = index, b = bytes)"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_ACCEPT, "accept", "line", "queue", "index", 0,
                 "a descriptor accepted and enqueued: id = its Transfer Table line, a = its scheduling queue, b = its index"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_REMOTE, "remote_read", "line", "queue", "index", 0,
                 "a remote read placed and enqueued: id = its line, a = its queue, b = its index"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_TIMEOUT, "timeout", "tid", "line", "seq", 0,
                 "the scanner found a block due: id = its TID, a = its line, b = its sequence number"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_RETRANSMIT, "retransmit", "tid", "line", "new_seq", 0,
                 "a block or inline packet sent again: a = its line, b = its new sequence number"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_ACK, "ack", "tid", "line", "seq", 0,
                 "an ACK applied: a = the block's line, b = its sequence number"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_NACK, "nack", "tid", "line", "seq", 0,
                 "a NACK taken (a retransmission queued): a = the block's line, b = its sequence number"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_DROP, "response_drop", "tid", "error", "seq", 0,
                 "a response dropped: a = why (rnic_err: ESTALE, ENOENT), b = its sequence number"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_COMPLETE, "complete", "line", "status", "index", 0,
                 "a transfer ended: a = its status (2 DONE, 3 ERROR), b = its index"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_RELEASE, "release", "line", "zero", "index", 0,
                 "a failed transfer's lines freed when its last queued entry left: b = its index"),
    FM_TRACE_ROW(RNIC_ENGINE_QOS, RQ_QOS_TRACE_BLOCK_ID, "block_id", "line", "tid_seq", "offset_what", 0,
                 "right after an `output` of a block or packet: a = TID << 32 | seq, b = offset << 32 | what (0, 1 packet kinds, 2 block)"),
    /* ---- palos ---- */
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RNIC_TRACE_PUSH, "doorbell", "qp", "posted", "new_wqes", 0,
                 "a doorbell applied: a = WQEs posted on the QP so far, b = WQEs it added"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RNIC_TRACE_REFUSE, "refuse", "qp", "value", "error", 0,
                 "an input refused: a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RNIC_TRACE_OUT, "piece_out", "qp", "wqe_index", "bytes", 0,
                 "a piece sliced: a = its WQE's index, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RNIC_TRACE_POP, "piece_taken", "qp", "wqe_index", "bytes", 0,
                 "the NIC took a piece: a = its WQE's index, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_VISIT_START, "visit_start", "qp", "credit", "chunk", FM_TRACE_A_SIGNED,
                 "a QP's visit starts: a = its credit (bytes, signed), b = its chunk"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_VISIT_END, "visit_end", "qp", "credit", "wqes_left", FM_TRACE_A_SIGNED,
                 "a QP's visit ends: a = the credit it carries (signed), b = WQEs left posted"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_FETCH, "fetch", "qp", "wqes", "ready_cycle", 0,
                 "a batch of WQEs read: a = how many, b = the cycle they are readable"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_PAUSE, "visit_pause", "qp", "zero", "zero", 0,
                 "a bandwidth visit steps aside for a latency batch"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_RESUME, "visit_resume", "qp", "zero", "zero", 0,
                 "the bandwidth visit resumes"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_HOLD, "hold", "qp", "held", "wqes_unsliced", 0,
                 "the NIC changed a QP's hold: a = 1 held / 0 released, b = WQEs posted not yet sliced"),
    FM_TRACE_ROW(RNIC_ENGINE_PALOS, RQ_PALOS_TRACE_PARK, "park", "qp", "credit", "wqes_unsliced", FM_TRACE_A_SIGNED,
                 "a held QP kept out of its schedule queue: a = the credit it keeps (signed), b = WQEs posted not yet sliced"),
    /* ---- transport ---- */
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, RNIC_TRACE_PUSH, "post", "qp", "index_or_init_seq", "bytes_or_seg_size", 0,
                 "a message posted (a = its WQE index, b = its bytes) or a flow opened (a = its initial sequence number, b = its segment size)"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, RNIC_TRACE_REFUSE, "refuse", "qp", "value", "error", 0,
                 "an input refused: a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, RNIC_TRACE_OUT, "segment_out", "qp", "segment", "bytes", 0,
                 "a segment sent on the TX port: a = its segment number, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, RNIC_TRACE_POP, "taken", "qp", "index", "bytes", 0,
                 "the NIC took a segment (a = its segment number) or a completion (a = its WQE index): b = bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, RNIC_TRACE_RATE, "rate", "qp", "applied_bps", "asked_bps", 0,
                 "the protocol set the QP's rate: a = the rate applied, b = the rate asked (b/s)"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_GENERATE, "generate", "qp", "segment", "retransmission", 0,
                 "a segment generated: a = its number, b = 1 when it is a retransmission"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_ACK, "ack", "qp", "wnd_start", "newly_acked", 0,
                 "an acknowledgment applied: a = the window's new start, b = segments newly acknowledged"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_TIMEOUT, "timeout", "qp", "wnd_start", "highest_sent", 0,
                 "the retransmission timer expired: a = the window's start, b = the highest segment sent"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_MERGE, "timeout_discarded", "qp", "wnd_start", "zero", 0,
                 "a timeout discarded: an acknowledgment reached the QP in the same cycle"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_MARK, "mark", "qp", "from", "to", 0,
                 "the protocol marked segments [a, b) for retransmission"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_WINDOW, "window", "qp", "new_size", "old_size", 0,
                 "the congestion window changed (segments)"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_COMPLETE, "complete", "qp", "message", "bytes", 0,
                 "a message fully acknowledged: a = its number on the QP, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_TRANSPORT, TP_TRACE_SKIP, "skip", "qp", "segment", "bytes", 0,
                 "a retransmission acknowledged while queued, not sent: a = its segment number, b = its bytes"),
    /* ---- transport_rx ---- */
    FM_TRACE_ROW(RNIC_ENGINE_TP_RX, RNIC_TRACE_REFUSE, "refuse", "flow", "value", "error", 0,
                 "an input refused: a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_TP_RX, RNIC_TRACE_OUT, "ack_out", "flow", "expected", "sack_bytes", 0,
                 "an ACK, NACK, CNP or pull queued: a = the next segment expected, b = its SACK block's length (0: none)"),
    /* ---- hostcc_host ---- */
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, RNIC_TRACE_PUSH, "packet_in", "flow", "index", "bytes", 0,
                 "a packet entered the RX buffer: id = its rx flow, a = its index, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, RNIC_TRACE_REFUSE, "refuse", "flow", "value", "error", 0,
                 "an input refused: a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, RNIC_TRACE_OUT, "output", "flow", "index", "bytes", 0,
                 "a packet written to memory (id = its rx flow, a = its index, b = its bytes) or a PAUSE / RESUME signal queued (all 0)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, RNIC_TRACE_POP, "taken", "flow", "index", "bytes", 0,
                 "the NIC took an output: a written packet or a PAUSE / RESUME signal (as `output`)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, HCC_HOST_TRACE_PAUSE, "pause", "zero", "rx_bytes", "zero", 0,
                 "PAUSE sent: a = the RX buffer's bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, HCC_HOST_TRACE_RESUME, "resume", "zero", "rx_bytes", "paused_cycles", 0,
                 "RESUME sent: a = the RX buffer's bytes, b = cycles it was paused"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, HCC_HOST_TRACE_DROP, "drop", "flow", "index", "bytes", 0,
                 "a packet dropped, the RX buffer full: id = its rx flow, a = its index, b = its bytes"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, HCC_HOST_TRACE_MBA, "mba_level", "zero", "level", "bps", 0,
                 "the MBA level written: a = the level, b = its memory bandwidth (b/s)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, HCC_HOST_TRACE_CPU, "cpu_load", "zero", "applied_bps", "asked_bps", 0,
                 "the CPU's memory load written: a = applied, b = asked (b/s)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_HOST, HCC_HOST_TRACE_STALL, "pcie_stall", "zero", "lines", "credits", 0,
                 "a posted write waited for PCIe credits: a = cache lines needed, b = credits held"),
    /* ---- hostcc_rx ---- */
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, RNIC_TRACE_PUSH, "sample_in", "zero", "occupancy_cum", "sample_cycle", 0,
                 "an IIO occupancy sample accepted: a = the cumulative counter, b = the cycle it was read"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, RNIC_TRACE_REFUSE, "refuse", "zero", "value", "error", 0,
                 "a sample or register write refused: a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, RNIC_TRACE_OUT, "action_out", "zero", "action", "zero", 0,
                 "an action record (MBA level, ECN) queued: a = its number"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, RNIC_TRACE_POP, "action_taken", "zero", "action", "zero", 0,
                 "the NIC took an action record: a = its number"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, HCC_RX_TRACE_SAMPLE, "sample", "zero", "occupancy_cycles", "interval_cycles", 0,
                 "a sample decided on: a = occupancy x cycles over the interval, b = the interval (cycles)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, HCC_RX_TRACE_LEVEL, "mba_level", "zero", "new_level", "old_level", 0,
                 "the MBA level changed"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, HCC_RX_TRACE_ECN, "ecn", "zero", "on", "zero", 0,
                 "ECN marking changed: a = 1 on, 0 off"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, HCC_RX_TRACE_MERGE, "action_merged", "zero", "level", "ecn", 0,
                 "the action port was full: its newest record now holds a = the level, b = 1 ECN on"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_RX, HCC_RX_TRACE_WRAP, "counter_wrap", "zero", "occupancy_cum", "previous_cum", 0,
                 "a sample crossed the occupancy counter's wrap"),
    /* ---- hostcc_tx ---- */
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, RNIC_TRACE_PUSH, "input", "qp", "index", "bytes", 0,
                 "bytes sent (a = the WQE index, b = bytes) or a probe's ACK (a = the probe's number) taken in"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, RNIC_TRACE_REFUSE, "refuse", "qp", "value", "error", 0,
                 "an input refused: a = the value refused, b = the rnic_err"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, RNIC_TRACE_OUT, "output", "qp", "number", "zero", 0,
                 "a rate record (a = its number on the QP) or a probe (a = the probe's number) queued"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, RNIC_TRACE_POP, "taken", "qp", "number", "zero", 0,
                 "the NIC took a rate record or a probe (as `output`)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, RNIC_TRACE_RATE, "rate", "qp", "applied_bps", "asked_bps", 0,
                 "the congestion control's rate written: a = applied (min with R_rev), b = asked (b/s)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, HCC_TX_TRACE_REV, "r_rev", "qp", "r_rev_bps", "d_cur_ns", 0,
                 "Eq. 1 applied on a probe's ACK: a = the new R_rev (b/s), b = the host delay D_cur (ns)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, HCC_TX_TRACE_OPEN, "open", "qp", "r_rev_bps", "r_cc_bps", 0,
                 "a QP opened: a = R_rev, b = R_cc (b/s)"),
    FM_TRACE_ROW(RNIC_ENGINE_HCC_TX, HCC_TX_TRACE_CLOSE, "close", "qp", "probes_dropped", "zero", 0,
                 "a QP closed: a = probes due and not emitted"),
    /* ---- the model's own modules ---- */
    FM_TRACE_ROW(RM_TRACE_HOST, RM_TRACE_POST, "post", "qp", "tag_or_message", "bytes", 0,
                 "a message posted: a = its tag (`sched = palos`: post cycle << 24 | sequence) or its number (`sched = qos`), b = its bytes"),
    FM_TRACE_ROW(RM_TRACE_HOST, RM_TRACE_TRANSFER_END, "transfer_end", "qp", "latency_cycles", "status", 0,
                 "`sched = qos`: a transfer's end read from its status: a = cycles since it was posted, b = its status (2 DONE, 3 ERROR)"),
    FM_TRACE_ROW(RM_TRACE_RECEIVER, RM_TRACE_CHECK, "check", "flow", "raddr", "bytes", 0,
                 "a packet's bytes checked in order: id = its rx flow, a = its remote address, b = its bytes"),
    FM_TRACE_ROW(RM_TRACE_RECEIVER, RM_TRACE_PLACE, "place", "flow", "raddr", "bytes", 0,
                 "out-of-order kinds: a packet placed, checked when the flow's frontier reaches it: a = its remote address, b = its bytes"),
};
#undef FM_TRACE_ROW

/* The lookup the rows are written by: [engine code][kind], both below 32 (the engines' codes
 * are 1 .. 9, the model's 16 and 18; kinds below 32). */
#define FM_TRACE_CODES 32u

typedef struct fm_trace_csv {
    FILE *f;
    const char *const *host_name; /* per host: its topology name */
    uint64_t clock_hz;
    uint64_t rows, unnamed;       /* rows written; those whose pair has no name */
    const fm_trace_engine_name *engine[FM_TRACE_CODES];
    const fm_trace_name *name[FM_TRACE_CODES][FM_TRACE_CODES];
} fm_trace_csv;

#define FM_TRACE_CSV_HEADER "time_ns,cycle,node,engine,instance,event,id,a,b,id_is,a_is,b_is\n"

/* Build the lookup and write the header. fm_model_init gives the hosts' names and the clock
 * (fm_trace_csv_attach) once the topology is built and before the NICs are: the engines emit
 * events while they are set up (rates, flows opened), and those are rows too. */
static void fm_trace_csv_init(fm_trace_csv *c, FILE *f)
{
    size_t i;
    memset(c, 0, sizeof *c);
    c->f = f;
    for (i = 0; i < sizeof fm_trace_engines / sizeof fm_trace_engines[0]; i++)
        c->engine[fm_trace_engines[i].engine] = &fm_trace_engines[i];
    for (i = 0; i < sizeof fm_trace_names / sizeof fm_trace_names[0]; i++)
        c->name[fm_trace_names[i].engine][fm_trace_names[i].kind] = &fm_trace_names[i];
    fputs(FM_TRACE_CSV_HEADER, f);
}

/* host_name[h]: host h's topology name, living as long as the writer. */
static void fm_trace_csv_attach(fm_trace_csv *c, const char *const *host_name, uint64_t clock_hz)
{
    c->host_name = host_name;
    c->clock_hz = clock_hz;
}

/* Decimal digits of v at the end of buf (which ends at `end`): returns the first digit. */
static char *fm_trace__u64(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    return end;
}

/* Append s, then a comma. */
static char *fm_trace__put(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    p[n] = ',';
    return p + n + 1;
}

static char *fm_trace__put_u64(char *p, uint64_t v, int is_signed)
{
    char digits[24], *d;
    if (is_signed && (int64_t)v < 0) {
        *p++ = '-';
        v = 0u - v; /* the magnitude, INT64_MIN included */
    }
    d = fm_trace__u64(digits + sizeof digits, v);
    memcpy(p, d, (size_t)(digits + sizeof digits - d));
    p += digits + sizeof digits - d;
    *p++ = ',';
    return p;
}

/* One row: event ev of `engine` (an RNIC_ENGINE_* code, or a model module's) on host `host`, the
 * NIC's instance-th such engine. Written by hand, not by fprintf: a short run writes millions. */
static void fm_trace_csv_row(fm_trace_csv *c, uint32_t host, uint32_t engine, uint32_t instance,
                             const rnic_trace_event *ev)
{
    char line[512], *p = line, own_engine[16], own_kind[16];
    const fm_trace_engine_name *en = engine < FM_TRACE_CODES ? c->engine[engine] : NULL;
    const fm_trace_name *nm = en && ev->kind < FM_TRACE_CODES ? c->name[engine][ev->kind] : NULL;
    uint64_t whole = ev->cycle / c->clock_hz, part = ev->cycle % c->clock_hz;
    uint64_t ns = whole * 1000000000u + part * 1000000000u / c->clock_hz, ps;
    const char *host_name = c->host_name[host];
    /* time in ns at the model's clock: whole ns at 250 MHz; otherwise ps resolution */
    p = fm_trace__put_u64(p, ns, 0);
    ps = part * 1000000000u % c->clock_hz * 1000u / c->clock_hz;
    if (ps) {
        p[-1] = '.';
        *p++ = (char)('0' + ps / 100u);
        *p++ = (char)('0' + ps / 10u % 10u);
        *p++ = (char)('0' + ps % 10u);
        *p++ = ',';
    }
    p = fm_trace__put_u64(p, ev->cycle, 0);
    if (strlen(host_name) > 64u) /* topology names are at most 23 bytes: the line cannot overflow */
        host_name = "?";
    p = fm_trace__put(p, host_name);
    if (!nm) {
        c->unnamed++;
        snprintf(own_engine, sizeof own_engine, "engine%u", (unsigned)engine);
        snprintf(own_kind, sizeof own_kind, "kind%u", (unsigned)ev->kind);
    }
    p = fm_trace__put(p, en ? en->name : own_engine);
    p = fm_trace__put_u64(p, instance, 0);
    p = fm_trace__put(p, nm ? nm->event : own_kind);
    p = fm_trace__put_u64(p, ev->id, 0);
    p = fm_trace__put_u64(p, ev->a, nm && (nm->flags & FM_TRACE_A_SIGNED));
    p = fm_trace__put_u64(p, ev->b, 0);
    p = fm_trace__put(p, nm ? nm->id_is : "id");
    p = fm_trace__put(p, nm ? nm->a_is : "a");
    p = fm_trace__put(p, nm ? nm->b_is : "b");
    p[-1] = '\n';
    fwrite(line, 1, (size_t)(p - line), c->f);
    c->rows++;
}

/* A table cell: s with its '|' escaped (a bit-field "TID << 32 | seq" would end the cell). */
static void fm_trace__cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s, f);
    }
}

/* --trace-legend: the tables of docs/trace_csv.md between its legend markers, from the tables
 * above (tests/run.sh compares them). */
static void fm_trace_legend(FILE *f)
{
    size_t i, j;
    fprintf(f, "| engine | code | what |\n|---|---:|---|\n");
    for (i = 0; i < sizeof fm_trace_engines / sizeof fm_trace_engines[0]; i++) {
        fprintf(f, "| `%s` | %u | ", fm_trace_engines[i].name, (unsigned)fm_trace_engines[i].engine);
        fm_trace__cell(f, fm_trace_engines[i].what);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n| engine | event | kind | id | a | b | meaning |\n|---|---|---|---|---|---|---|\n");
    for (i = 0; i < sizeof fm_trace_engines / sizeof fm_trace_engines[0]; i++)
        for (j = 0; j < sizeof fm_trace_names / sizeof fm_trace_names[0]; j++) {
            const fm_trace_name *nm = &fm_trace_names[j];
            if (nm->engine != fm_trace_engines[i].engine)
                continue;
            fprintf(f, "| `%s` | `%s` | %u `%s` | `%s` | `%s`%s | `%s` | ", fm_trace_engines[i].name, nm->event,
                    (unsigned)nm->kind, nm->kind_macro, nm->id_is, nm->a_is,
                    (nm->flags & FM_TRACE_A_SIGNED) ? " (signed)" : "", nm->b_is);
            fm_trace__cell(f, nm->what);
            fprintf(f, " |\n");
        }
}

#endif /* RNIC_FM_TRACE_H */
