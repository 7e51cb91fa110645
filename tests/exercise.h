/* Drives every common-core structure through one deterministic scenario using only the
 * header itself (no libc), so the very same code runs hosted, freestanding (rv32, Cortex-M),
 * as C++ and under the malloc trap; with hostcc.h included first, exercise_hostcc() does the
 * same for its three engines (kept out of exercise_common, whose digest is pinned). Returns a digest of everything it observed: builds by
 * different compilers and languages must agree on it (determinism), and tests/run.sh
 * compares them. Include after an rnicq header. */
#ifndef RNIC_TEST_EXERCISE_H
#define RNIC_TEST_EXERCISE_H

/* Words of caller memory exercise_common() needs. */
#define EXERCISE_MEM_WORDS 16384u

static void exercise__mix(uint64_t *digest, uint64_t v)
{
    uint64_t x = *digest ^ v;
    *digest = rnic_splitmix64(&x);
}

/* Trace callback: folds the canonical bytes of each event into the digest. */
static void exercise__on_event(void *user, const rnic_trace_event *ev)
{
    unsigned char buf[RNIC_TRACE_BYTES];
    unsigned i;
    rnic_trace_serialize(ev, buf);
    for (i = 0; i < RNIC_TRACE_BYTES; i++)
        exercise__mix((uint64_t *)user, buf[i]);
}

/* Returns the digest, or 0 when a structure could not be set up in `mem`. */
static uint64_t exercise_common(uint64_t *mem, size_t mem_words, uint64_t seed)
{
    uint64_t digest = 0x5eed, bits[4];
    rnic_prng prng;
    rnic_err_stats errs;
    rnic_ftime t;
    rnic_q32 cpb, bpc, prod;
    rnic_bq bq;
    rnic_bq_config bq_cfg;
    rnic_ssfifo fifo;
    rnic_ssfifo_config fifo_cfg;
    rnic_ring ring;
    rnic_trace trace;
    unsigned char *base = (unsigned char *)mem;
    size_t total = mem_words * sizeof(uint64_t), bq_size, fifo_size;
    uint32_t i, item, key, entry;
    static const uint64_t rates[] = { 100000u, 1000000000u, 25000000000u, 100000000000u, 800000000000u };

    rnic_prng_seed(&prng, seed);
    RNIC_MEMSET(&trace, 0, sizeof trace);
    rnic_trace_set(&trace, exercise__on_event, &digest);
    RNIC_MEMSET(&errs, 0, sizeof errs);

    /* errors */
    exercise__mix(&digest, (uint64_t)rnic_err_note(&errs, RNIC_EBUSY));
    exercise__mix(&digest, rnic_err_total(&errs));

    /* fixed-point rates and time */
    t = rnic_ftime_at(1000);
    for (i = 0; i < 5; i++) {
        if (rnic_rate_to_cpb(rates[i], 250000000u, &cpb) != RNIC_OK)
            return 0;
        if (rnic_rate_to_bpc(rates[i], 250000000u, &bpc) != RNIC_OK)
            return 0;
        exercise__mix(&digest, cpb);
        exercise__mix(&digest, bpc);
        exercise__mix(&digest, rnic_cpb_to_rate(cpb, 250000000u));
        rnic_ftime_add_bytes(&t, 64u + rnic_prng_below(&prng, 9000), cpb);
        exercise__mix(&digest, rnic_ftime_ceil(t));
        if (rnic_q32_mul(cpb, RNIC_Q32_ONE + (RNIC_Q32_ONE >> 1), &prod) == RNIC_OK)
            exercise__mix(&digest, prod);
    }
    exercise__mix(&digest, rnic_ns_to_cycles(1000, 250000000u));
    exercise__mix(&digest, rnic_cycles_to_ns(333, 156250000u));
    exercise__mix(&digest, rnic_udiv64(rnic_prng_next(&prng), 1000000007u));

    /* wrap-safe compares */
    exercise__mix(&digest, (uint64_t)rnic_seq_lt(0xfffffeu, 3u, 24) | ((uint64_t)rnic_seq_lt(3u, 0xfffffeu, 24) << 1));
    exercise__mix(&digest, (uint64_t)rnic_seq_diff(2u, 4090u, 12));
    exercise__mix(&digest, rnic_cycle_before(UINT64_MAX - 5u, 7u));
    exercise__mix(&digest, (uint64_t)rnic_cycle_diff(3u, UINT64_MAX));

    /* ring bitmaps */
    rnic_bitmap_zero(bits, 256);
    rnic_bitmap_set_range(bits, 256, 250, 20);
    rnic_bitmap_set(bits, 100);
    exercise__mix(&digest, rnic_bitmap_ffs_from(bits, 256, 101));
    exercise__mix(&digest, rnic_bitmap_ffz_from(bits, 256, 250));
    exercise__mix(&digest, rnic_bitmap_count(bits, 256));
    exercise__mix(&digest, rnic_bitmap_count_range(bits, 256, 255, 10));

    /* bucket queue: keys in a sliding window, as a timing wheel uses them */
    bq_cfg.nkeys = 4096;
    bq_cfg.nitems = 256;
    bq_size = rnic_bq_mem_size(&bq_cfg);
    if (bq_size == 0 || bq_size > total || rnic_bq_init(&bq, &bq_cfg, base, bq_size) != RNIC_OK)
        return 0;
    for (i = 0; i < 256; i++)
        rnic_bq_insert(&bq, i, (uint32_t)rnic_prng_below(&prng, 4096));
    exercise__mix(&digest, (uint64_t)rnic_bq_insert(&bq, 7, 1)); /* duplicate: EEXIST */
    for (i = 0; i < 600; i++) {
        if (rnic_bq_pop_min(&bq, &item, &key) != RNIC_OK)
            break;
        exercise__mix(&digest, ((uint64_t)key << 32) | item);
        if (i < 344)
            rnic_bq_insert(&bq, item, key + (uint32_t)rnic_prng_below(&prng, 4096u - key));
    }
    exercise__mix(&digest, rnic_bq_find_ge_wrap(&bq, 17));

    /* shared-space FIFO (after the bucket queue's memory) */
    fifo_cfg.nqueues = 66;
    fifo_cfg.nentries = 2048;
    fifo_size = rnic_ssfifo_mem_size(&fifo_cfg);
    if (fifo_size == 0 || bq_size + fifo_size > total ||
        rnic_ssfifo_init(&fifo, &fifo_cfg, base + bq_size, fifo_size) != RNIC_OK)
        return 0;
    for (i = 0; i < 5000; i++) {
        uint32_t q = (uint32_t)rnic_prng_below(&prng, 66);
        rnic_ssfifo_enqueue(&fifo, q, (uint32_t)rnic_prng_below(&prng, 2048));
        q = rnic_ssfifo_first_ready(&fifo, 0);
        if (q != RNIC_NONE && rnic_ssfifo_dequeue(&fifo, q, &entry) == RNIC_OK)
            rnic_trace_emit(&trace, i, 1, 2, q, entry, fifo.stats.forwards);
        rnic_ssfifo_tick(&fifo);
    }
    exercise__mix(&digest, fifo.stats.forwards);
    exercise__mix(&digest, rnic_err_total(&fifo.errors));

    /* bounded ring (after the FIFO's memory) */
    if (bq_size + fifo_size + rnic_ring_mem_size(12, 5) > total ||
        rnic_ring_init(&ring, 12, 5, base + bq_size + fifo_size, rnic_ring_mem_size(12, 5)) != RNIC_OK)
        return 0;
    for (i = 0; i < 100; i++) {
        unsigned char elem[12];
        RNIC_MEMSET(elem, (int)i, sizeof elem);
        if (rnic_prng_chance(&prng, 2, 3))
            rnic_ring_push(&ring, elem);
        else if (rnic_ring_pop(&ring, elem) == RNIC_OK)
            exercise__mix(&digest, elem[0]);
    }
    exercise__mix(&digest, ring.rejected_full);
    exercise__mix(&digest, rnic_prng_log_range(&prng, 100000u, 100000000000u));
    exercise__mix(&digest, trace.events);
    return digest;
}
#ifdef HCC_VERSION_MAJOR
/* The three hostcc.h engines in a closed loop, through their tick paths, with the same
 * no-libc code: a receiving host (hcc_host) takes 1 KB packets every 16 cycles (~128 Gb/s;
 * none in cycles 4000 .. 6499, so the controller sees calm too) against 3x CPU memory traffic; the receiver controller (hcc_rx) samples its cumulative IIO
 * occupancy every 125 cycles and its actions are written back into the host (pass 0: MBA levels,
 * DDIO off, PFC on -- the sender holds while paused; pass 1: hostCC ECN marking, a small DDIO
 * with dirty write-backs, PFC off -- marks and drops, MBA levels written on a schedule); the
 * sender controller (hcc_tx) is told of every packet delivered, its probes are answered with the
 * host's delay, R_cc is written now and then. Then fast-forward to quiescence. Tracing folds
 * every event into the digest. Returns the digest (0 when the engines do not fit in `mem`). */
#define EXERCISE_HCC_MEM_WORDS 4096u

typedef struct exercise_hcc_report {
    uint64_t packets_out, pfc_pauses, marked, dropped, stalled_writes, ddio_writebacks;
    uint64_t level_downs, level_ups, ecn_on, mba_writes, probe_acks, rate_records, refused;
} exercise_hcc_report;

static RNIC__MAYBE_UNUSED size_t exercise__round8(size_t n) { return (n + 7u) & ~(size_t)7u; }

static RNIC__MAYBE_UNUSED uint64_t exercise_hostcc(uint64_t *mem, size_t mem_words, uint64_t seed,
                                                   exercise_hcc_report *rep)
{
    uint64_t digest = 0x4cc0u ^ seed;
    unsigned char *base = (unsigned char *)mem;
    size_t total = mem_words * sizeof(uint64_t);
    uint32_t pass;
    exercise_hcc_report r;
    RNIC_MEMSET(&r, 0, sizeof r);
    for (pass = 0; pass < 2u; pass++) {
        hcc_host h;
        hcc_rx c;
        hcc_tx t;
        hcc_host_config hc;
        hcc_rx_config rc;
        hcc_tx_config tc;
        hcc_rx_sample smp, first;
        rnic_work w;
        size_t hs, rs, ts;
        uint32_t cyc, i, f, last_delay = 0;
        const hcc_host_stats *hst;
        const hcc_rx_stats *rst;
        const hcc_tx_stats *tst;

        hcc_host_config_default(&hc);
        hc.rx_buffer_bytes = 32768u;
        hc.rx_packets = 64u;
        hc.xoff_bytes = 24576u;
        hc.xon_bytes = 16384u;
        hc.cnp_bytes = 8192u;
        hc.pfc = pass == 0u;
        hc.pcie_latency_ns = 40u; /* a short credit loop: the IIO, not the credits, fills */
        hc.iio_lines = 64u;
        hc.iio_mem_credits = 8u;
        hc.mem_queue = 64u;
        hc.cpu_outstanding = 40u;
        hc.ddio_lines = pass == 0u ? 0u : 256u;
        hc.cpu_load_bps = 8u * 30300000000ull; /* 3x: 30.3 GB/s */
        hc.rx_depth = 8u;
        hc.signal_depth = 4u;
        hc.trace = exercise__on_event;
        hc.trace_user = &digest;
        hcc_rx_config_default(&rc);
        rc.sample_period_ns = 500u; /* 125 cycles */
        rc.i_thr = 8u;
        rc.i_low = 2u;
        rc.up_samples = 2u;
        rc.slack_ns = 2000u;
        rc.mode = pass == 0u ? HCC_RX_MODE_MBA : HCC_RX_MODE_ECN;
        rc.action_depth = 4u;
        rc.trace = exercise__on_event;
        rc.trace_user = &digest;
        hcc_tx_config_default(&tc);
        tc.max_flows = 4u;
        tc.probe_bytes = 4096u;
        tc.rate_depth = 8u;
        tc.probe_depth = 8u;
        tc.trace = exercise__on_event;
        tc.trace_user = &digest;
        hs = exercise__round8(hcc_host_mem_size(&hc));
        rs = exercise__round8(hcc_rx_mem_size(&rc));
        ts = exercise__round8(hcc_tx_mem_size(&tc));
        if (hs == 0 || rs == 0 || ts == 0 || hs + rs + ts > total)
            return 0;
        if (hcc_host_init(&h, &hc, base, hs) != RNIC_OK || hcc_rx_init(&c, &rc, base + hs, rs) != RNIC_OK ||
            hcc_tx_init(&t, &tc, base + hs + rs, ts) != RNIC_OK)
            return 0;
        for (f = 0; f < 4u; f++)
            (void)hcc_tx_flow_open(&t, f, NULL); /* at link_bps, 100 Gb/s */
        /* refused input: counted, traced, nothing else */
        (void)hcc_host_push_rx(&h, NULL);
        (void)hcc_tx_push_probe_ack(&t, NULL);
        first.cycle = 0;
        first.cum = 0;
        for (cyc = 0; cyc < 8000u; cyc++) {
            if ((cyc & 15u) == 0 && (cyc < 4000u || cyc >= 6500u) && !hcc_host_paused(&h)) {
                RNIC_MEMSET(&w, 0, sizeof w);
                w.flow = (cyc >> 4) & 3u;
                w.len = 1024u;
                w.addr = 0x100000u + (uint64_t)((cyc >> 4) & 1023u) * 1024u; /* a 1 MB footprint */
                w.tag = cyc;
                exercise__mix(&digest, (uint64_t)hcc_host_push_rx(&h, &w));
            }
            if (cyc % 125u == 0) {
                smp.cycle = hcc_host_now(&h);
                smp.cum = hcc_host_iio_occupancy_cum(&h);
                exercise__mix(&digest, (uint64_t)hcc_rx_push_sample(&c, &smp));
                if (cyc == 1000u)
                    exercise__mix(&digest, (uint64_t)hcc_rx_push_sample(&c, &first)); /* backwards */
            }
            if (pass == 1u && cyc % 2000u == 1000u) {
                exercise__mix(&digest, (uint64_t)hcc_host_set_mba_level(&h, (cyc / 2000u) % 5u));
                r.mba_writes++;
            }
            if (cyc % 1000u == 500u)
                (void)hcc_tx_set_rcc(&t, (cyc / 1000u) & 3u, 10000000000ull * (1u + cyc / 1000u));
            hcc_host_tick(&h);
            hcc_rx_tick(&c);
            hcc_tx_tick(&t);
            while (hcc_host_pop_rx(&h, &w) == RNIC_OK) { /* delivered: the sender counts it sent */
                exercise__mix(&digest, w.cycle ^ ((uint64_t)w.aux << 32) ^ w.flags);
                last_delay = w.aux;
                (void)hcc_tx_push_sent(&t, &w);
            }
            while (hcc_host_pop_signal(&h, &w) == RNIC_OK)
                exercise__mix(&digest, w.cycle ^ ((uint64_t)w.flags << 32));
            while (hcc_rx_pop_action(&c, &w) == RNIC_OK) { /* the controller's register writes */
                exercise__mix(&digest, w.cycle ^ ((uint64_t)w.aux << 56) ^ w.flags);
                if (w.flags & HCC_RX_WORK_MBA) {
                    (void)hcc_host_set_mba_level(&h, w.aux);
                    r.mba_writes++;
                } else
                    (void)hcc_host_set_ecn(&h, (w.flags & HCC_WORK_CE) != 0);
            }
            while (hcc_tx_pop_probe(&t, &w) == RNIC_OK) { /* answered with the host's delay */
                rnic_work ack = w;
                ack.addr = (uint64_t)cyc * 4u; /* ns at 250 MHz */
                ack.raddr = ack.addr + 60u + (uint64_t)(last_delay < 200000u ? last_delay : 200000u) * 4u;
                exercise__mix(&digest, (uint64_t)hcc_tx_push_probe_ack(&t, &ack));
                if (w.index > 2u)
                    exercise__mix(&digest, (uint64_t)hcc_tx_push_probe_ack(&t, &ack)); /* stale */
            }
            while (hcc_tx_pop_rate(&t, &w) == RNIC_OK)
                exercise__mix(&digest, w.addr ^ w.raddr);
        }
        /* the load goes: fast-forward to quiescence, draining whenever a port fills */
        (void)hcc_host_set_cpu_load(&h, 0);
        for (i = 0; i < 64u; i++) {
            exercise__mix(&digest, hcc_host_next_event(&h) ^ hcc_rx_next_event(&c) ^ hcc_tx_next_event(&t));
            exercise__mix(&digest, hcc_host_advance(&h, 20000u));
            (void)hcc_rx_advance_to(&c, hcc_host_now(&h));
            (void)hcc_tx_advance_to(&t, hcc_host_now(&h));
            while (hcc_host_pop_rx(&h, &w) == RNIC_OK)
                exercise__mix(&digest, w.cycle);
            while (hcc_host_pop_signal(&h, &w) == RNIC_OK)
                exercise__mix(&digest, w.cycle);
            while (hcc_tx_pop_probe(&t, &w) == RNIC_OK || hcc_tx_pop_rate(&t, &w) == RNIC_OK)
                exercise__mix(&digest, w.cycle);
        }
        exercise__mix(&digest, hcc_host_now(&h) ^ hcc_host_iio_occupancy_cum(&h));
        hst = hcc_host_get_stats(&h);
        rst = hcc_rx_get_stats(&c);
        tst = hcc_tx_get_stats(&t);
        exercise__mix(&digest, hst->bytes_to_memory_or_ddio ^ hst->cpu_bytes_served ^ hst->pause_cycles);
        exercise__mix(&digest, rst->time_at_level[0] ^ rst->ecn_cycles ^ tst->probe_acks);
        exercise__mix(&digest, hcc_tx_rate(&t, 0) ^ hcc_tx_rate(&t, 1));
        r.packets_out += hst->packets_out;
        r.pfc_pauses += hst->pfc_pauses;
        r.marked += hst->marked;
        r.dropped += hst->dropped;
        r.stalled_writes += hst->pcie_stalled_writes;
        r.ddio_writebacks += hst->ddio_writebacks;
        r.level_downs += rst->level_downs;
        r.level_ups += rst->level_ups;
        r.ecn_on += rst->ecn_on;
        r.probe_acks += tst->probe_acks;
        r.rate_records += tst->rate_records;
        r.refused += rnic_err_total(&hst->errors) + rnic_err_total(&rst->errors) + rnic_err_total(&tst->errors);
    }
    if (rep)
        *rep = r;
    return digest;
}
#endif /* HCC_VERSION_MAJOR */
#endif
