/* hostcc.h -- RHCC: intra-host congestion control for RDMA, and the receiving host it acts on,
 * cycle by cycle.
 *
 * WHAT IT MODELS
 *   Paper: "Rethinking Intra-host Congestion Control in RDMA Networks" (RHCC, APNet 2024), with
 *   the cycle model of the receiving host its experiments need. Exact cycle semantics and every
 *   choice: docs/hostcc_model.md (the whole), docs/hostcc_host.md, docs/hostcc_rx.md,
 *   docs/hostcc_tx.md; the contract every engine follows: docs/engine_contract.md. Three engines:
 *   hcc_host, the receiving host's data path: the RNIC RX buffer (PFC watermarks, or CE marking
 *   without PFC) -> PCIe posted writes paced by IIO credits -> the IIO write buffer (its
 *   cumulative occupancy is the MSR RHCC reads) -> the memory controller (first come, first
 *   served) shared with CPU memory traffic throttled by the five MBA levels, and an optional
 *   DDIO cache (LRU ways, write-back of dirty victims). Source: rx_buffer.c, pcie.c, iio.c,
 *   memctl.c, ddio.c, host.c (one block each).
 *   hcc_rx, the receiver controller (§3.2): I_cur from two occupancy samples against I_thr steps
 *   the MBA level down (less memory bandwidth to the CPU) and back up after calm samples, with
 *   a slack time between steps; hostCC-style ECN marking as a comparison mode. Source: rx_ctl.c.
 *   hcc_tx, the sender controller (§3.3): a probe every 32 KB per flow, R_rev by Eq. 1 (alpha =
 *   beta = 0.0005 per ns in Q0.32, D_thr = 200 ns) and R_trans = min(R_rev, R_cc) (Eq. 2) in
 *   exactly one function, hcc_tx_rate; each change leaves as a rate record for Tassel's rate
 *   register. Source: tx_ctl.c.
 *
 * DO THIS (the three engines in a loop; make test compiles and runs this text as C and C++)
 *   #define HCC_IMPLEMENTATION                // (or RNIC_IMPLEMENTATION) in one .c file
 *   #include "hostcc.h"
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *
 *   int main(void)
 *   {
 *       static hcc_host h;
 *       static hcc_rx c;
 *       static hcc_tx t;
 *       hcc_host_config hc;
 *       hcc_rx_config rc;
 *       hcc_tx_config tc;
 *       hcc_rx_sample s;
 *       rnic_work w;
 *       void *hm, *rm, *tm;
 *       uint32_t cyc, sent = 0, steps = 0, rates = 0;
 *       hcc_host_config_default(&hc);           // 256 KB RX buffer, PCIe 128 Gb/s, 33.2 GB/s, 250 MHz
 *       hc.ddio_lines = 0;                      // no DDIO: every line goes to memory
 *       hc.cpu_load_bps = 8u * 30300000000ull;  // the paper's 3x CPU memory traffic, 30.3 GB/s
 *       hcc_rx_config_default(&rc);             // I_thr 32 lines, 150 us slack, five MBA levels
 *       hcc_tx_config_default(&tc);             // a probe per 32 KB, Eq. 1, link 100 Gb/s
 *       hm = malloc(hcc_host_mem_size(&hc));    // caller-owned memory
 *       rm = malloc(hcc_rx_mem_size(&rc));
 *       tm = malloc(hcc_tx_mem_size(&tc));
 *       if (!hm || !rm || !tm || hcc_host_init(&h, &hc, hm, hcc_host_mem_size(&hc)) != RNIC_OK ||
 *           hcc_rx_init(&c, &rc, rm, hcc_rx_mem_size(&rc)) != RNIC_OK ||
 *           hcc_tx_init(&t, &tc, tm, hcc_tx_mem_size(&tc)) != RNIC_OK)
 *           return 1;
 *       hcc_tx_flow_open(&t, 0, NULL);          // flow 0 at link_bps
 *       for (cyc = 0; cyc < 250000u; cyc++) {   // 1 ms at 250 MHz
 *           if (cyc % 21u == 0 && !hcc_host_paused(&h)) { // 1 KB every 84 ns: 97.5 Gb/s
 *               memset(&w, 0, sizeof w);
 *               w.len = 1024;
 *               w.index = sent;
 *               w.addr = (uint64_t)(sent++ % 1024u) * 1024u; // a 1 MB receive footprint
 *               hcc_host_push_rx(&h, &w);       // a full RX buffer drops it (counted)
 *           }
 *           if (cyc % 500u == 0) {              // the receiver reads the IIO counter every 2 us
 *               s.cycle = hcc_host_now(&h);
 *               s.cum = hcc_host_iio_occupancy_cum(&h);
 *               hcc_rx_push_sample(&c, &s);
 *           }
 *           hcc_host_tick(&h);
 *           hcc_rx_tick(&c);
 *           hcc_tx_tick(&t);
 *           while (hcc_host_pop_rx(&h, &w) == RNIC_OK) // written to memory: the sender counts it
 *               hcc_tx_push_sent(&t, &w);
 *           while (hcc_host_pop_signal(&h, &w) == RNIC_OK) // PFC PAUSE / RESUME for the switch
 *               ;
 *           while (hcc_rx_pop_action(&c, &w) == RNIC_OK) // the controller's register writes
 *               if (w.flags & HCC_RX_WORK_MBA)
 *                   steps += hcc_host_set_mba_level(&h, w.aux) == RNIC_OK;
 *           while (hcc_tx_pop_probe(&t, &w) == RNIC_OK) { // D_cur 300 ns > D_thr: R_rev falls
 *               w.addr = (uint64_t)cyc * 4u;    // receive timestamp, ns
 *               w.raddr = w.addr + 300u;        // ACK timestamp, ns
 *               hcc_tx_push_probe_ack(&t, &w);
 *           }
 *           while (hcc_tx_pop_rate(&t, &w) == RNIC_OK) // R_trans in addr: Tassel's rate register
 *               rates++;
 *       }
 *       printf("MBA level %u after %u steps; %llu packets written; R_trans %llu b/s (%u records)\n",
 *              hcc_host_mba_level(&h), steps, (unsigned long long)hcc_host_get_stats(&h)->packets_out,
 *              (unsigned long long)hcc_tx_rate(&t, 0), rates);
 *       free(hm);
 *       free(rm);
 *       free(tm);
 *       return 0;
 *   }
 *
 * CONFIG (every field, its default and range; X_config_default sets the defaults,
 * X_config_check names the first bad field)
 *   hcc_host_config:
 *     clock_hz           250 MHz                                      1 MHz .. 10 GHz
 *     rx_buffer_bytes    256 KB, the RNIC RX buffer                   1 KB .. 2^30
 *     rx_packets         4096 packet slots in it                      1 .. 2^24
 *     rx_stage_packets   1: receive-pipeline depth (records' offset)  1 .. rx_packets
 *     pfc                true                                         false: mark CE instead
 *     xoff_bytes         buffer - 40 KB: PAUSE at this occupancy      1 .. rx_buffer_bytes
 *     xon_bytes          xoff - 16 KB: RESUME at this occupancy       < xoff_bytes
 *     cnp_bytes          32 KB: without PFC, mark HCC_WORK_CE above   <= rx_buffer_bytes
 *     pcie_bps           128 Gb/s (PCIe 3.0 x16)                      1 Mb/s .. 2 Tb/s
 *     pcie_latency_ns    500 (uint64_t), one way; also the credit return   <= 1 ms
 *     pcie_mps           256, max payload of a posted write           64 .. 4096
 *     pcie_tlp_overhead  24 bytes per write on the link               <= 256
 *     iio_lines          256 64 B lines = the RNIC's credits    (pcie_mps + 62) / 64 + 1 .. 2^20
 *     iio_mem_credits    64 IIO lines at the memory controller        1 .. iio_lines
 *     mem_bps            265.6 Gb/s (33.2 GB/s) memory bandwidth       8 Mb/s .. 2^43
 *     mem_queue          256 memory controller entries                 2 .. 2^20
 *     cpu_outstanding    180 CPU lines in flight (18 cores x 10)      1 .. 2^20
 *     cpu_evict_wb       HCC_HOST_EVICT_WB_IO: a CPU-evicted I/O line's write-back holds an
 *                        IIO memory credit (_CPU: the CPU's window; _QUEUED: nobody's)
 *     cpu_load_bps       0, the initial CPU offered load (b/s)        <= 2^43
 *     mba_level          0, the initial MBA level                     0 .. 4
 *     ddio_lines         65536 (4 MB); 0 = DDIO off                   <= 2^26
 *     ddio_ways          2 ways per set                               1 .. 64, divides ddio_lines
 *     cpu_evict_ppm      181818 DDIO lines evicted per CPU line, millionths   <= 1,000,000
 *     rx_depth           64, the rx output port                       1 .. 2^20
 *     signal_depth       16, the signal output port                   1 .. 2^20
 *     start_cycle        0; trace NULL; trace_user; trace_id RNIC_ENGINE_HCC_HOST (0 = it)
 *   hcc_rx_config:
 *     clock_hz           250 MHz                                      RNIC_CLOCK_MIN_HZ .. _MAX_HZ
 *     sample_period_ns   2000 (for hcc_rx_sample_due only)            1 .. 1 s, >= 1 cycle
 *     i_thr              32 lines of average IIO occupancy            1 .. max_lines
 *     i_low              0 = i_thr / 2: the step-up threshold         <= i_thr
 *     up_samples         8 calm samples before a step up              1 .. 2^20
 *     start_level        0 (33.2 GB/s to the CPU)                     0 .. 4
 *     slack_ns           150000 (hostCC's 150 us) between two steps    0 .. 10 s
 *     fast_down          false: a step down right after a step up waits for the slack too
 *     levels_bps[5]      the paper's 33.2 / 26.5 / 20 / 15 / 10 GB/s, in b/s   1 .. 8 Tb/s,
 *                        non-increasing
 *     counter_bits       48, the occupancy counter's width           8 .. 64
 *     max_lines          4096 lines per cycle at most (plausibility)  1 .. 2^24
 *     mode               HCC_RX_MODE_MBA (or _ECN, _OFF)
 *     sample_depth       4, the sample input port                     1 .. 65536
 *     action_depth       16, the action output port                   1 .. 65536
 *     start_cycle        0; trace NULL; trace_user; trace_id RNIC_ENGINE_HCC_RX (0 = it)
 *   hcc_tx_config:
 *     clock_hz           250 MHz (checked, kept: no timed behaviour)  1 MHz .. 10 GHz
 *     link_bps           100 Gb/s: R_rev ceiling, initial R_cc        1 .. 800 Gb/s
 *     rate_floor_bps       100 Mb/s: R_rev floor                        1 .. link_bps
 *     max_flows          1024                                         1 .. 2^24
 *     probe_bytes        32768: a probe per this many bytes sent      64 .. 2^30
 *     d_thr_ns           200 (uint64_t)                               <= max_delay_ns
 *     max_delay_ns       1,000,000 (uint64_t): a larger D_cur is refused   1 .. 2^28
 *     alpha_q32, beta_q32  HCC_TX_ALPHA_Q32 (0.0005 per ns in Q0.32)  <= 2^32
 *     rate_depth         64, the rate output port                     1 .. 2^24
 *     probe_depth        64, the probe output port                    1 .. 2^24
 *     probe_op           0: the op of probe records (the caller's opcode)
 *     start_cycle        0; trace NULL; trace_user; trace_id RNIC_ENGINE_HCC_TX (0 = it)
 *   An hcc_tx flow (hcc_tx_flow_config, hcc_tx_flow_config_default; NULL = the defaults):
 *   init_rate_bps 0 = link_bps, else clamped into [rate_floor_bps, link_bps] (counted).
 *
 * PORTS (records are rnic_work unless named; per cycle; latency)
 *   hcc_host: input rx (hcc_host_push_rx / hcc_host_space_rx): packets from the wire, taken at
 *   hcc_host_now(); a packet that does not fit is dropped (counted, RNIC_EBUSY). Outputs rx
 *   (hcc_host_pop_rx / _peek_rx: the packet once its last posted write left, aux = cycles since
 *   arrival, offset = cycles since it reached the head) and signal (hcc_host_pop_signal /
 *   _peek_signal: flags HCC_HOST_WORK_PAUSE / _RESUME, addr = RX buffer bytes). Registers
 *   hcc_host_set_mba_level, hcc_host_set_cpu_load, hcc_host_set_ecn (from the next tick). Per
 *   cycle, downstream first: memory controller (mem_Bps), CPU traffic, DDIO write-backs, IIO (to
 *   memory or DDIO), PCIe (credit returns, arrivals pcie_latency_ns after the write, writes at
 *   pcie_bps while credits last), RX buffer (PFC); a hand-off takes one cycle.
 *   hcc_rx: input sample (hcc_rx_push_sample / _space_sample, hcc_rx_sample {cycle, cum}),
 *   one decided per tick; output action (hcc_rx_pop_action / _peek_action: flags
 *   HCC_RX_WORK_MBA or _ECN, aux = the level, addr = its b/s, index = the change's number),
 *   stamped with the deciding tick. A change that finds the port full replaces the newest
 *   waiting record (HCC_RX_WORK_MERGED: last write wins).
 *   hcc_tx: inputs sent (hcc_tx_push_sent / _space_sent: flow, len bytes sent) and probe_ack
 *   (hcc_tx_push_probe_ack / _space_probe_ack: index = the probe's number, addr / raddr = the
 *   receiver's receive / ACK timestamps in ns), flows (hcc_tx_flow_open / _close / _state) and
 *   the register hcc_tx_set_rcc: all act at the call, never fill. Outputs probe
 *   (hcc_tx_pop_probe / _peek_probe: flags HCC_WORK_PROBE, index = the probe's number) and rate
 *   (hcc_tx_pop_rate / _peek_rate: addr = R_trans in b/s, index = the flow's record number),
 *   produced by the next tick, as many as the ports take.
 *
 * WHAT IT DOES NOT DO
 *   No data moves (records are descriptors). The host has one RX buffer and one PCIe link, no
 *   NUMA, no CPU cache beyond DDIO's ways, no memory timing beyond a bandwidth and a FCFS queue;
 *   CPU traffic is 1:1 read/write lines. hcc_rx does not read the counter itself (the caller
 *   samples); hcc_tx does not send probes or ACKs (the caller carries them) and knows no
 *   inter-host algorithm (R_cc is written by the caller, e.g. DCQCN).
 *
 * ERRORS
 *   Refused input returns an rnic_err, is counted once (stats.errors by cause; hcc_tx's inputs
 *   and hcc_rx's samples also under their reason in stats.reasons, HCC_TX_REASONS /
 *   HCC_RX_REASONS, X_reason_message naming what to change) and
 *   changes nothing else: NULL record RNIC_EINVAL; a full hcc_rx sample port or a packet the RX
 *   buffer cannot hold RNIC_EBUSY (the packet is dropped); a packet of len 0 RNIC_EINVAL, longer
 *   than the buffer or wrapping the address space RNIC_ERANGE; a sample backwards in time
 *   RNIC_EINVAL, beyond the counter or implausible RNIC_ERANGE; an MBA level > 4 RNIC_ERANGE;
 *   an unknown or closed flow RNIC_ENOENT, an open one opened again RNIC_EEXIST, a probe ACK
 *   never issued RNIC_ENOENT, already answered RNIC_ESTALE, with a bad delay RNIC_ERANGE, probe
 *   requests past 2^32 - 1 RNIC_EBUSY; bad config RNIC_EINVAL with the field named, too little
 *   memory RNIC_ENOSPC. Rates and CPU loads out of range are clamped and counted, never refused.
 *
 * LIMITS
 *   A probe ACK may name one of the newest 2^31 probes of its flow. The IIO occupancy counter
 *   wraps at 2^48. Delays in Eq. 1 up to 2^28 ns. A posted write waiting for credits makes every
 *   cycle an event (ticked, not skipped). An hcc_rx action's raddr is the cycle of the sample
 *   that caused it (the one engine-written raddr: docs/engine_contract.md).
 *   Static memory: HCC_HOST_MEM_SIZE(rx_packets, rx_depth, signal_depth, iio_lines, mem_queue,
 *   ddio_lines), HCC_RX_MEM_SIZE(sample_depth, action_depth) and HCC_TX_MEM_SIZE(max_flows,
 *   rate_depth, probe_depth) are the three X_mem_size as integer constant expressions (equal
 *   for any valid config; tested), so firmware sizes static buffers without calling them:
 *     static uint64_t mem[HCC_TX_MEM_SIZE(1024, 64, 64) / 8];   // the defaults
 *
 * VERSION
 *   HCC_VERSION_MAJOR / MINOR / PATCH and hcc_version(). Conventions (all rnicq headers): prefix
 *   hcc_/HCC_ (internal names hcc__); define HCC_IMPLEMENTATION (or RNIC_IMPLEMENTATION) in one
 *   .c file before including; HCC_STATIC makes the API static; no allocation, no floating point,
 *   no globals. Renames of issue 29: docs/CHANGES.md.
 */
