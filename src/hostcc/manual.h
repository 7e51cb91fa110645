/* hostcc.h -- RHCC: intra-host congestion control for RDMA, cycle by cycle.
 *
 * "Rethinking Intra-host Congestion Control in RDMA Networks" (RHCC, APNet 2024;
 * shared/seeds/002), with the cycle model of the receiving host its experiments need. Three
 * engines, each following docs/engine_contract.md (config_default / check / mem_size / init /
 * tick / next_event / advance / ports / get_stats); the cycle contract is docs/hostcc_model.md:
 *   - hcc_host: the receiving host's data path -- RNIC RX buffer (PFC watermarks or CE marking)
 *     -> PCIe posted writes with IIO credits (128 Gb/s) -> IIO buffer (cumulative occupancy, the
 *     MSR) -> memory controller (33.2 GB/s, first-come first-served) shared with CPU traffic
 *     throttled by MBA levels, and an optional DDIO cache (docs/hostcc_host.md);
 *   - hcc_rx: the receiver controller -- I_cur from two occupancy samples against I_thr moves
 *     among the five MBA levels 33.2 / 26.5 / 20 / 15 / 10 GB/s with a slack time between steps;
 *     hostCC-style ECN marking as a comparison mode (docs/hostcc_rx.md);
 *   - hcc_tx: the sender controller -- a probe every 32 KB per flow, R_rev by Eq. 1 (alpha =
 *     beta = 0.0005 per ns in Q0.32, D_thr = 200 ns) and R_trans = min(R_rev, R_cc) (Eq. 2) in
 *     exactly one function, hcc_tx_rate (docs/hostcc_tx.md).
 *
 * Static memory: HCC_HOST_MEM_SIZE(rx_packets, rx_port, signal_port, iio_lines, mem_queue,
 * ddio_lines), HCC_RX_MEM_SIZE(sample_capacity, action_capacity) and HCC_TX_MEM_SIZE(max_flows,
 * rate_depth, probe_depth) are the three X_mem_size as integer constant expressions (equal
 * for any valid config; tested), so firmware sizes static buffers without calling them.
 *
 * Conventions (all rnicq headers): prefix hcc_/HCC_; define HCC_IMPLEMENTATION (or
 * RNIC_IMPLEMENTATION) in one .c file before including; HCC_STATIC makes the API static;
 * no allocation, no floating point, no globals; every bad input is an rnic_err code
 * counted in the engine's statistics. See README.md.
 */
