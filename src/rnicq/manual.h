/* rnicq.h -- the RED-SEA QoS engine and the Palos chunk slicer of an RDMA NIC, cycle by cycle.
 *
 * STATUS: the engines have not landed yet (issues #4 and #5). This header carries the
 * rnicq common core (fixed-point time and rate, wrap-safe compares, ring bitmaps, bucket
 * queue, shared-space FIFO, bounded rings, PRNG, error codes), the first building blocks of
 * the QoS engine -- rq_ids (TID/FID FIFOs with the reset initializer and the multipath TID
 * leap), rq_block_plan (64 KB block segmentation arithmetic), rq_status_regs (2-bit channel
 * status with single and 32-channel read-and-clear, protection-checked), rq_desc_encode/
 * rq_desc_decode (the descriptor layout, inline payloads up to 32 B), and the engine rq_qos
 * with its host side so far (AXI descriptor writes, status reads, scheduling-FIFO enqueue) --
 * and this manual
 * of what it will model (cycle contract: docs/rnicq_qos_model.md).
 *
 * What it will model:
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
