/* Drives every common-core structure through one deterministic scenario using only the
 * header itself (no libc), so the very same code runs hosted, freestanding (rv32, Cortex-M),
 * as C++ and under the malloc trap. Returns a digest of everything it observed: builds by
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
#endif
