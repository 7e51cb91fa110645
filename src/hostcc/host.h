/* ---- hcc_host: the receiving host's data path (docs/hostcc_model.md "The receiving host";
 * every choice: docs/hostcc_host.md) ----
 *
 * RNIC RX buffer -> PCIe posted writes (credits = IIO lines) -> IIO buffer -> memory controller
 * (FCFS queue shared with CPU traffic under an MBA cap) or DDIO ways (LRU, write-back on a
 * dirty victim). Per cycle, downstream first: memory controller, CPU traffic, DDIO write-backs,
 * IIO, PCIe, RX buffer (PFC). */

/* Records on the signal port: PFC frames toward the upstream switch, told by an engine bit of
 * rnic_work.flags (op is never written). */
#define HCC_HOST_WORK_PAUSE (512u << RNIC_WORK_ENGINE_SHIFT)
#define HCC_HOST_WORK_RESUME (1024u << RNIC_WORK_ENGINE_SHIFT)

/* cpu_evict_wb: the write-back of an I/O line a CPU fill evicted is held by
 * _IO (default): one of the IIO's iio_mem_credits, like the write-back of its own allocations --
 *   I/O data pays its own way to memory; while iio_mem_credits of them are owed, CPU fills evict
 *   no more I/O lines (the LLC takes a clean victim: ddio_cpu_evictions_deferred);
 * _CPU: the CPU's cpu_outstanding window (the fill holds its slot until the write-back is queued);
 * _QUEUED: nobody: an unbounded count queued ahead of the IIO (the model before issue 31; starves
 *   the IIO for hundreds of microseconds at a time, kept to reproduce earlier figures). */
#define HCC_HOST_EVICT_WB_IO 0u
#define HCC_HOST_EVICT_WB_CPU 1u
#define HCC_HOST_EVICT_WB_QUEUED 2u

/* Engine-specific trace kinds (engine RNIC_ENGINE_HCC_HOST). */
#define HCC_HOST_TRACE_PAUSE 16u  /* PAUSE sent: a = RX buffer bytes */
#define HCC_HOST_TRACE_RESUME 17u /* RESUME sent: a = RX buffer bytes, b = cycles paused */
#define HCC_HOST_TRACE_DROP 18u   /* a packet dropped (RX buffer full): id = flow, a = index, b = len */
#define HCC_HOST_TRACE_MBA 19u    /* MBA level written: a = level, b = its b/s */
#define HCC_HOST_TRACE_CPU 20u    /* CPU load written: a = applied b/s, b = asked b/s */
#define HCC_HOST_TRACE_STALL 21u  /* a posted write waited for credits: a = lines needed, b = credits held */

typedef struct hcc_host_config {
    uint64_t clock_hz;        /* default 250 MHz (the composed RNIC's clock); 1 MHz .. 10 GHz */
    uint32_t rx_buffer_bytes; /* RNIC receive buffer, default 256 KB (Choice); 1 KB .. 2^30 */
    uint32_t rx_packets;      /* packet slots in it, default 4096; 1 .. 2^24 */
    uint32_t rx_stage_packets; /* the RNIC's receive pipeline: the packets at the front of the RX
                                  buffer it has taken in (parsed, timestamped) ahead of their DMA
                                  writes; a record's offset counts from that entry. Default 1 (the
                                  head: the packet being written); 1 .. rx_packets */
    bool pfc;                 /* default true */
    uint32_t xoff_bytes;      /* PAUSE when occupancy >= xoff, default buffer - 40 KB (Choice) */
    uint32_t xon_bytes;       /* RESUME when occupancy <= xon, default xoff - 16 KB (Choice) */
    uint32_t cnp_bytes;       /* without PFC: mark HCC_WORK_CE above it, default 32 KB (Choice) */
    uint64_t pcie_bps;        /* PCIe link, default 128 Gb/s (3.0 x16); 1 Mb/s .. 2 Tb/s */
    uint64_t pcie_latency_ns; /* write start -> IIO arrival, and credit return, default 500; <= 1 ms */
    uint32_t pcie_mps;        /* max payload of a posted write, default 256; 64 .. 4096 */
    uint32_t pcie_tlp_overhead; /* bytes per write on the link beyond payload, default 24; <= 256 */
    uint32_t iio_lines;       /* IIO write buffer = the RNIC's credits, 64 B lines, default 256
                                 (Choice: the PCIe credit loop at 128 Gb/s); >= (pcie_mps + 62)/64
                                 + 1, the lines one write may touch (pcie_mps/64 + 1 for a multiple
                                 of 64); <= 2^20 */
    uint32_t iio_mem_credits; /* IIO lines at the memory controller at most, default 64 (Choice); 1 .. iio_lines */
    uint64_t mem_bps;         /* memory bandwidth, b/s, default 265.6 Gb/s (33.2 GB/s); 8 Mb/s .. 2^43 */
    uint32_t mem_queue;       /* memory controller queue entries (lines), default 256 (Choice); 2 .. 2^20 */
    uint32_t cpu_outstanding; /* CPU lines in flight at most, default 180 (18 cores x 10 LFBs); 1 .. 2^20 */
    uint32_t cpu_evict_wb;    /* who holds the write-back of a dirty DDIO line a CPU fill evicts
                                 until memory serves it (HCC_HOST_EVICT_WB_*; docs/hostcc_model.md
                                 "CPU-eviction write-backs"): default _IO, the IIO's memory credits */
    uint64_t cpu_load_bps;    /* initial CPU offered load, b/s (set_cpu_load), default 0; <= 2^43 */
    uint32_t mba_level;       /* initial MBA level, 0 .. 4, default 0 */
    uint32_t ddio_lines;      /* DDIO lines, default 65536 (4 MB); 0 = DDIO off; <= 2^26 */
    uint32_t ddio_ways;       /* ways per set, default 2 (Choice); 1 .. 64, divides ddio_lines */
    uint32_t cpu_evict_ppm;   /* DDIO lines evicted per CPU line served, millionths, default
                                 181818 (2 of 11 LLC ways, Choice); <= 1,000,000 */
    uint32_t rx_depth;        /* rx output port (pop_rx) depth, default 64; 1 .. 2^20 */
    uint32_t signal_depth;    /* signal output port (pop_signal) depth, default 16; 1 .. 2^20 */
    uint64_t start_cycle;     /* hcc_host_now() after init, default 0 */
    rnic_trace_fn trace;      /* NULL: off */
    void *trace_user;
    uint16_t trace_id;        /* default RNIC_ENGINE_HCC_HOST */
} hcc_host_config;

typedef struct hcc_host_stats {
    uint64_t cycles;
    uint64_t packets_in, bytes_in;           /* accepted into the RX buffer */
    uint64_t dropped, dropped_bytes;         /* refused with RNIC_EBUSY: the buffer was full */
    uint64_t marked;                         /* packets marked HCC_WORK_CE */
    uint64_t pfc_pauses, pfc_resumes, pause_cycles;
    uint64_t packets_out;                    /* records put on the rx port */
    uint64_t delay_sum, delay_max;           /* aux (cycles) of those records */
    uint64_t pcie_writes, pcie_bytes, pcie_lines; /* posted writes issued; their payload; lines */
    uint64_t probes;                         /* HCC_WORK_PROBE packets passed in order, nothing written */
    uint64_t pcie_stall_cycles;              /* cycles a ready write waited for credits on a free link */
    uint64_t pcie_stalled_writes;            /* writes that waited at least one such cycle */
    uint64_t iio_lines_in, iio_lines_freed, iio_max, credits_returned;
    uint64_t mem_lines_iio, mem_lines_cpu_read, mem_lines_cpu_write, mem_lines_writeback;
    uint64_t ddio_hits, ddio_misses, ddio_writebacks, ddio_cpu_evictions;
    uint64_t ddio_cpu_evictions_deferred;    /* _IO: a CPU fill's I/O eviction waited for a credit */
    uint64_t bytes_to_memory_or_ddio;        /* IIO payload bytes taken by memory or DDIO */
    uint64_t cpu_bytes_served;
    uint64_t cpu_load_clamped;               /* set_cpu_load above the ceiling, clamped */
    rnic_err_stats errors;
} hcc_host_stats;

typedef struct hcc_host hcc_host;

HCC_API void hcc_host_config_default(hcc_host_config *cfg);
HCC_API rnic_err hcc_host_config_check(const hcc_host_config *cfg, const char **field);
HCC_API size_t hcc_host_mem_size(const hcc_host_config *cfg);
/* HCC_HOST_MEM_SIZE: hcc_host_mem_size as an integer constant expression, so firmware can size
 * a static buffer at compile time (for a config hcc_host_config_check accepts it is exactly
 * hcc_host_mem_size(&cfg); tests/test_mem_size_macros.c checks it). Arguments are the config
 * fields that size the memory; at the defaults HCC_HOST_MEM_SIZE(4096, 64, 16, 256, 256, 65536).
 * Evaluates its arguments several times: pass constants. */
#define HCC_HOST_MEM_SIZE(rx_packets, rx_depth, signal_depth, iio_lines, mem_queue, ddio_lines)              \
    (RNIC__MEM_PART((rx_packets), rnic_work) + RNIC__MEM_PART((rx_depth), rnic_work) +                         \
     RNIC__MEM_PART((signal_depth), rnic_work) + 2u * RNIC__MEM_PART((iio_lines), hcc__host_line) +            \
     RNIC__MEM_PART((iio_lines), hcc__host_ret) + RNIC__MEM_PART((mem_queue), hcc__host_mreq) +                \
     RNIC__MEM_PART((ddio_lines), uint64_t))
/* RNIC_EINVAL: NULL, bad config, misaligned memory; RNIC_ENOSPC: size too small. */
HCC_API rnic_err hcc_host_init(hcc_host *h, const hcc_host_config *cfg, void *mem, size_t size);

/* A packet from the wire (len = payload bytes, addr = host buffer address, flow/tag/op/raddr/flags
 * carried). A probe (flags & HCC_WORK_PROBE: a sender controller's probe the RNIC answers itself)
 * takes its len in the buffer and leaves in order, writing nothing (no TLP, no credit). RNIC_EINVAL: NULL or len 0; RNIC_ERANGE: len > rx_buffer_bytes or addr + len wraps;
 * RNIC_EBUSY: the buffer (bytes or slots) is full -- the packet is DROPPED and counted
 * (dropped, dropped_bytes). Accepted packets enter the buffer at hcc_host_now(). */
HCC_API rnic_err hcc_host_push_rx(hcc_host *h, const rnic_work *pkt);
/* Bytes a packet may have now without a drop (0 when every packet slot is taken). */
HCC_API uint32_t hcc_host_space_rx(const hcc_host *h);

/* Packets whose last posted write left the RNIC: cycle = that cycle, aux = cycles since arrival,
 * offset = cycles since it entered the receive pipeline, the last rx_stage_packets packets of the
 * RX buffer (its arrival, or the last write of the packet rx_stage_packets ahead of it, the
 * later; with the default 1: since it reached the head): the RNIC's processing delay without the
 * rest of the RX-buffer queue. */
HCC_API rnic_err hcc_host_pop_rx(hcc_host *h, rnic_work *out);
HCC_API rnic_err hcc_host_peek_rx(const hcc_host *h, rnic_work *out);
/* PFC frames: flags = HCC_HOST_WORK_PAUSE / _RESUME, cycle, addr = RX buffer bytes then. */
HCC_API rnic_err hcc_host_pop_signal(hcc_host *h, rnic_work *out);
HCC_API rnic_err hcc_host_peek_signal(const hcc_host *h, rnic_work *out);

/* Registers (applied from the next tick). Level > 4: RNIC_ERANGE, refused and counted. A CPU
 * load (b/s) above max(mem_bps, HCC_MBA_LEVEL_0_BPS) is clamped to it (cpu_load_clamped), never refused. */
HCC_API rnic_err hcc_host_set_mba_level(hcc_host *h, uint32_t level);
HCC_API rnic_err hcc_host_set_cpu_load(hcc_host *h, uint64_t bps);
HCC_API rnic_err hcc_host_set_ecn(hcc_host *h, bool on);
HCC_API uint32_t hcc_host_mba_level(const hcc_host *h);
HCC_API uint64_t hcc_host_cpu_load(const hcc_host *h); /* b/s */

/* Cumulative IIO occupancy (lines x cycles, added at the end of every tick), modulo 2^48. */
HCC_API uint64_t hcc_host_iio_occupancy_cum(const hcc_host *h);
HCC_API uint32_t hcc_host_iio_occupancy(const hcc_host *h); /* lines held now */
HCC_API uint32_t hcc_host_rx_occupancy(const hcc_host *h);  /* RX buffer bytes now */
HCC_API uint32_t hcc_host_pcie_credits(const hcc_host *h);  /* credits at the RNIC now */
HCC_API bool hcc_host_paused(const hcc_host *h);

HCC_API void hcc_host_tick(hcc_host *h);
HCC_API uint64_t hcc_host_next_event(const hcc_host *h);
/* A lower bound on the first cycle at which a tick puts a record on the rx or signal port or
 * emits a trace event, without new input (a push, a pop, a register write); RNIC_NEVER when only
 * such input can bring one (a bound at cycle 2^64 - 1 reads RNIC_NEVER too, as next_event's
 * does). Between now and then ticks move only state the statistics and the counters show: a
 * caller that reads those through hcc_host_advance_to first may leave the host alone until then
 * (the composed RNIC does; docs/hostcc_host.md "Next output"). */
HCC_API uint64_t hcc_host_next_output(const hcc_host *h);
HCC_API uint64_t hcc_host_advance(hcc_host *h, uint64_t cycles);
HCC_API uint64_t hcc_host_advance_to(hcc_host *h, uint64_t cycle);
HCC_API uint64_t hcc_host_now(const hcc_host *h);
HCC_API const hcc_host_stats *hcc_host_get_stats(const hcc_host *h);

/* ---- engine state (transparent so firmware can place it statically; use the API) ---- */

typedef struct hcc__host_line { /* one 64 B line of a posted write */
    uint64_t cycle;             /* PCIe flight: arrival at the IIO */
    uint64_t addr;              /* line address (byte address >> 6) */
    uint32_t bytes, pad;        /* payload bytes in the line */
} hcc__host_line;

typedef struct hcc__host_ret { /* credits coming back to the RNIC */
    uint64_t cycle;
    uint32_t count, pad;
} hcc__host_ret;

typedef struct hcc__host_mreq { /* one line in the memory controller queue */
    uint32_t type;              /* HCC__HOST_M_* */
    uint32_t bytes;             /* IIO payload bytes (type IIO) */
} hcc__host_mreq;

struct hcc_host {
    hcc_host_config cfg;
    uint64_t now;
    hcc_host_stats stats;
    rnic_trace trace;
    uint16_t trace_id;
    /* RX buffer */
    rnic_ring rx;               /* rnic_work; cycle = arrival */
    rnic_ring out, sig;
    uint32_t rx_bytes;
    uint32_t head_issued;       /* bytes of the head packet already written */
    bool head_stalled;          /* the head write has waited for credits */
    bool paused, ecn;
    uint64_t pause_start;
    /* PCIe */
    uint64_t lat;               /* pcie_latency_ns in cycles */
    int64_t pcie_tok;           /* bits x clock_hz: gains pcie_bps per cycle, capped at it */
    uint32_t credits;
    rnic_ring flight_q;         /* hcc__host_line: lines on the link */
    rnic_ring ret_q;            /* hcc__host_ret: credits on their way back */
    /* IIO */
    rnic_ring iio_q;            /* hcc__host_line: lines waiting to be forwarded */
    uint32_t iio_at_mem;        /* lines forwarded, waiting for memory (their own or a write-back) */
    uint32_t iio_wb_evicted;    /* cpu_evict_wb _IO: CPU-evicted I/O write-backs on IIO memory credits
                                   (credits, not lines of the IIO buffer: not in its occupancy) */
    uint64_t iio_cum;
    /* memory controller and CPU */
    rnic_ring mem_q;            /* hcc__host_mreq */
    int64_t mem_tok;            /* bits x clock_hz */
    uint64_t cpu_load, cpu_rate; /* offered; min(offered, MBA cap) applied at the tick */
    int64_t cpu_tok;
    uint32_t cpu_out;           /* CPU lines in the memory queue */
    uint32_t mba_level;
    bool cpu_write_next;        /* 1:1 read / write alternation */
    /* DDIO */
    uint64_t *ddio;             /* per line: (line addr << 2) | dirty << 1 | valid, MRU first per set */
    uint32_t ddio_sets;
    uint32_t evict_set;
    uint32_t evict_acc;         /* millionths of an eviction owed */
    uint32_t cpu_wb_pending;    /* write-backs of CPU evictions waiting for queue room (_IO: and a credit) */
    uint32_t mem_other;         /* entries of mem_q that are not CPU lines (host.c, "CPU traffic alone") */
    uint32_t ddio_valid;        /* valid DDIO lines */
    bool mem_q_virtual;         /* mem_q's count and head are right but its slots unwritten: count CPU
                                   lines alternating from mem_q_head_write (hcc__host_cpu_span) */
    bool mem_q_head_write;
};
