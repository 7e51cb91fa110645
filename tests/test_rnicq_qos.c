/* The RED-SEA QoS engine's host side (AXI descriptor writes, status reads, the enqueue into
 * the scheduling FIFOs) against the thesis's timing (§3.6, §4.2.1), its error cases, and an
 * independent expectation of where every accepted transfer lands. */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "test.h"

/* The refusal counts the statistics no longer keep apart from the reasons (issue 29): beats
 * answered with an AXI error, responses dropped. */
static uint64_t beats_refused(const rq_qos_stats *s)
{
    const rq_qos_reason_stats *r = &s->reasons;
    return r->beat_align + r->beat_unknown + r->beat_perm + r->beat_interleaved + r->channel_busy + r->desc_invalid +
           r->desc_range + r->desc_no_fid;
}
static uint64_t responses_dropped(const rq_qos_stats *s) { return s->reasons.response_unknown + s->reasons.response_stale; }
#include <stddef.h>

static unsigned char mem_buf[1u << 20];
static rq_qos engine;

static rq_qos *make_qos(void)
{
    rq_qos_config c;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    CHECK(rq_qos_mem_size(&c) > 0 && rq_qos_mem_size(&c) <= sizeof mem_buf);
    if (rq_qos_init(&engine, &c, mem_buf, sizeof mem_buf) != RNIC_OK)
        return NULL;
    return &engine;
}

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

/* Pop a block record and spell it out (rq_qos_block_info); the record's flags must agree
 * with the decoded fields. */
static rnic_err pop_block(rq_qos *q, rnic_work *w, rq_block_desc *b)
{
    rnic_err e = rq_qos_pop_block(q, w);
    if (e != RNIC_OK)
        return e;
    CHECK_EQ(rq_qos_block_info(q, w, b), RNIC_OK);
    CHECK_EQ((w->flags & RNIC_WORK_FIRST) != 0, b->block == 0u);
    CHECK_EQ(w->tag, 0);
    CHECK_EQ(w->status, 0);
    return e;
}

static void inline8(rq_transfer *t, uint64_t dst)
{
    memset(t, 0, sizeof *t);
    t->kind = RQ_KIND_INLINE;
    t->size = 8;
    t->dst = dst;
    t->payload[0] = 0x42;
}

/* Push a 1-line descriptor as two 128-bit beats (the thesis's 128-bit datapath). */
static void write_line128(rq_qos *q, uint32_t domain, uint32_t channel, const uint64_t w[4])
{
    uint64_t d[2];
    d[0] = w[0];
    d[1] = w[1];
    CHECK_EQ(rq_qos_axi_write(q, domain, addr_of(domain, channel, 0), d, 16), RNIC_OK);
    d[0] = w[2];
    d[1] = w[3];
    CHECK_EQ(rq_qos_axi_write(q, domain, addr_of(domain, channel, 2), d, 16), RNIC_OK);
}

/* The small one-domain config the fuzz-found regression tests share: 32 write channels,
 * `read_channels` read channels, one accumulator set, 64-B blocks, `tids` TIDs of one block each,
 * `fids_unipath` 1xFIDs and `fid_groups` 4xFID groups. */
static void small_config(rq_qos_config *c, uint32_t read_channels, uint32_t tids, uint32_t fids_unipath, uint32_t fid_groups)
{
    rq_qos_config_default(c);
    c->clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    c->domains = 1;
    c->write_channels = 32;
    c->read_channels = read_channels;
    c->accumulators = 1;
    c->ids.tids = tids;
    c->ids.flow_blocks = 1;
    c->ids.fids_unipath = fids_unipath;
    c->ids.fid_groups = fid_groups;
    c->block_bytes = 64;
}

/* rq_qos_init into `mem`, then the ID pools' initialiser runs; false (a failed check) when the
 * config does not fit. */
static bool start_qos(rq_qos *q, const rq_qos_config *c, unsigned char *mem, size_t size)
{
    CHECK(rq_qos_mem_size(c) > 0 && rq_qos_mem_size(c) <= size);
    if (rq_qos_init(q, c, mem, size) != RNIC_OK)
        return false;
    while (!rq_qos_ready(q))
        rq_qos_tick(q);
    return true;
}

/* §4.2.1: AW at cycle 0, data words at cycles 1 and 2, the transfer enqueued at cycle 2 and
 * visible to the segmenter's dequeue at cycle 3; BRESPs in order. */
static void test_inline_descriptor_timing(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4];
    rq_axi_bresp r;
    if (!q)
        return;
    inline8(&t, 0x1000);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 3, 5, l0); /* pushed before cycle 0 */
    rq_qos_tick(q);             /* cycle 0: AW only */
    CHECK_EQ(rq_qos_pop_bresp(q, &r), RNIC_EEMPTY);
    rq_qos_tick(q); /* cycle 1: first 128-bit word */
    CHECK_EQ(rq_qos_pop_bresp(q, &r), RNIC_OK);
    CHECK_EQ(r.cycle, 1);
    CHECK_EQ(r.status, RNIC_OK);
    CHECK(rnic_ssfifo_empty(&q->sched, RQ_QUEUE_TID_ONLY));
    CHECK_EQ(rq_qos_channel_status(q, 3, 5), RQ_IDLE);
    rq_qos_tick(q); /* cycle 2: second word, table write, enqueue */
    CHECK_EQ(rq_qos_pop_bresp(q, &r), RNIC_OK);
    CHECK_EQ(r.cycle, 2);
    CHECK_EQ(r.status, RNIC_OK);
    CHECK_EQ(rq_qos_channel_status(q, 3, 5), RQ_BUSY);
    CHECK_EQ(rnic_ssfifo_peek(&q->sched, RQ_QUEUE_TID_ONLY), 3u * 128u + 5u);
    CHECK(rnic_ssfifo_ready(&q->sched, RQ_QUEUE_TID_ONLY)); /* cycle 3: the segmenter may dequeue */
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 1);
}

/* §3.6.1 i: 100 back-to-back beats need 101 cycles; §4.2.1: one 256-bit descriptor per 2
 * cycles on the 128-bit path. */
static void test_host_path_rates(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4];
    uint32_t ch, cyc, last_done = 0;
    rq_axi_bresp r;
    if (!q)
        return;
    inline8(&t, 0x2000);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    for (cyc = 0, ch = 0; ch < 50u; cyc++) { /* 50 descriptors = 100 beats, pushed as room allows */
        while (ch < 50u && rq_qos_space_axi_write(q) >= 2u) {
            write_line128(q, ch % 16u, ch / 16u, l0);
            ch++;
        }
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
            last_done = (uint32_t)r.cycle;
    }
    while (rq_qos_get_stats(q)->beats < 100u && cyc < 1000u) {
        rq_qos_tick(q);
        cyc++;
        while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
            last_done = (uint32_t)r.cycle;
    }
    CHECK_EQ(rq_qos_get_stats(q)->beats, 100);
    CHECK_EQ(last_done, 100); /* cycles 0..100: 101 cycles */
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 50); /* one per 2 cycles */
    CHECK_EQ(beats_refused(rq_qos_get_stats(q)), 0);
}

/* Bad writes are refused with an AXI error, counted, and change nothing. */
static void test_write_errors(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4], d[2] = { 1, 2 };
    rq_axi_bresp r;
    uint32_t i;
    if (!q)
        return;
    inline8(&t, 0x3000);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    CHECK_EQ(rq_qos_axi_write(q, 0, addr_of(0, 0, 0) | 4u, d, 8), RNIC_OK);  /* address bits 0..2 */
    CHECK_EQ(rq_qos_axi_write(q, 0, addr_of(0, 0, 1), d, 16), RNIC_OK);      /* 16 B at an odd word */
    CHECK_EQ(rq_qos_axi_write(q, 0, addr_of(0, 0, 0), d, 4), RNIC_OK);       /* bad strobes */
    CHECK_EQ(rq_qos_axi_write(q, 1, addr_of(2, 0, 0), d, 8), RNIC_OK);       /* domain 1 writes page 2 */
    CHECK_EQ(rq_qos_axi_write(q, 1, addr_of(1, 64, 0), d, 8), RNIC_OK);      /* a read channel */
    CHECK_EQ(rq_qos_axi_write(q, 16, addr_of(0, 0, 0), d, 8), RNIC_OK);      /* unknown domain */
    CHECK_EQ(rq_qos_axi_write(q, 0, 2048u << 5, d, 8), RNIC_OK);             /* beyond the table */
    for (i = 0; i < 9; i++)
        rq_qos_tick(q);
    {
        static const rnic_err want[7] = { RNIC_EALIGN, RNIC_EALIGN, RNIC_EALIGN, RNIC_EPERM, RNIC_EPERM, RNIC_ENOENT, RNIC_ENOENT };
        for (i = 0; i < 7; i++) {
            CHECK_EQ(rq_qos_pop_bresp(q, &r), RNIC_OK);
            CHECK_EQ(r.status, want[i]);
        }
    }
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EALIGN], 3);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EPERM], 2);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ENOENT], 2);
    CHECK(rq_qos_domain_idle(q, 0)); /* nothing reached an accumulator */
    /* a transfer on channel 0, then a second descriptor to the same busy channel */
    write_line128(q, 0, 0, l0);
    for (i = 0; i < 3; i++)
        rq_qos_tick(q);
    write_line128(q, 0, 0, l0);
    for (i = 0; i < 3; i++)
        rq_qos_tick(q);
    while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
        ;
    CHECK_EQ(r.status, RNIC_EBUSY);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EBUSY], 2);
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 1);
    /* size 0: the descriptor is refused when its last line completes; the channel stays IDLE */
    l0[2] = 0;
    write_line128(q, 0, 7, l0);
    for (i = 0; i < 3; i++)
        rq_qos_tick(q);
    while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
        ;
    CHECK_EQ(r.status, RNIC_EINVAL);
    CHECK_EQ(rq_qos_channel_status(q, 0, 7), RQ_IDLE);
    CHECK_EQ(rq_qos_get_stats(q)->reasons.desc_invalid, 1);
    /* the AW FIFO holds 8 beats: the ninth push is back-pressure */
    for (i = 0; i < 8; i++)
        CHECK_EQ(rq_qos_axi_write(q, 5, addr_of(5, 1, 0), d, 8), RNIC_OK);
    CHECK_EQ(rq_qos_axi_write(q, 5, addr_of(5, 1, 0), d, 8), RNIC_EBUSY);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EBUSY], 3); /* counted once, by cause (2 above) */
    /* the same events by reason: two descriptors to a busy channel, one full AW FIFO */
    CHECK_EQ(rq_qos_get_stats(q)->reasons.channel_busy, 2);
    CHECK_EQ(rq_qos_get_stats(q)->reasons.axi_write_full, 1);
    CHECK_EQ(rq_qos_reason_code(RQ_QOS_REASON_AXI_WRITE_FULL), RNIC_EBUSY);
    CHECK(strstr(rq_qos_reason_message(RQ_QOS_REASON_AXI_WRITE_FULL), "axi_write_depth") != NULL);
    CHECK(strcmp(rq_qos_reason_message((rq_qos_reason)RQ_QOS_REASON__COUNT), "?") == 0);
    { /* every reason counts an event errors counts under the reason's code, and nothing else */
        const rq_qos_stats *st = rq_qos_get_stats(q);
        const uint64_t *rs = (const uint64_t *)(const void *)&st->reasons;
        uint64_t by_code[RNIC_ERR__COUNT];
        unsigned k;
        memset(by_code, 0, sizeof by_code);
        for (k = 0; k < (unsigned)RQ_QOS_REASON__COUNT; k++)
            by_code[rq_qos_reason_code((rq_qos_reason)k)] += rs[k];
        for (k = 0; k < RNIC_ERR__COUNT; k++)
            CHECK_EQ(by_code[k], st->errors.by_cause[k]);
    }
}

/* One accumulator per domain: interleaved descriptor writes from two domains both succeed;
 * within one domain, a beat of another line while a line is half written is an error and the
 * half-written line survives. */
static void test_accumulators_per_domain(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t a0[4], a1[4], d[2];
    rq_axi_bresp r;
    uint32_t i, errs = 0;
    if (!q)
        return;
    inline8(&t, 0x4000);
    CHECK_EQ(rq_desc_encode(&t, a0, a1), RNIC_OK);
    for (i = 0; i < 4; i++) { /* 64-bit beats, domains 2 and 9 alternating, words in reverse */
        d[0] = a0[3u - i];
        CHECK_EQ(rq_qos_axi_write(q, 2, addr_of(2, 10, 3u - i), d, 8), RNIC_OK);
        CHECK_EQ(rq_qos_axi_write(q, 9, addr_of(9, 11, 3u - i), d, 8), RNIC_OK);
    }
    for (i = 0; i < 10; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 2);
    CHECK_EQ(rq_qos_channel_status(q, 2, 10), RQ_BUSY);
    CHECK_EQ(rq_qos_channel_status(q, 9, 11), RQ_BUSY);
    while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
        errs += r.status != RNIC_OK;
    CHECK_EQ(errs, 0);
    /* same domain: word 0 of channel 20, then word 0 of channel 21 (interleaving), then the rest */
    d[0] = a0[0];
    CHECK_EQ(rq_qos_axi_write(q, 4, addr_of(4, 20, 0), d, 8), RNIC_OK);
    CHECK_EQ(rq_qos_axi_write(q, 4, addr_of(4, 21, 0), d, 8), RNIC_OK);
    for (i = 1; i < 4; i++) {
        d[0] = a0[i];
        CHECK_EQ(rq_qos_axi_write(q, 4, addr_of(4, 20, i), d, 8), RNIC_OK);
    }
    for (i = 0; i < 8; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ESTATE], 1);
    CHECK_EQ(rq_qos_channel_status(q, 4, 20), RQ_BUSY);
    CHECK_EQ(rq_qos_channel_status(q, 4, 21), RQ_IDLE);
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 3);
}

/* Status reads through the AXI read port: one channel, 32 channels, another domain's page. */
static void test_status_reads(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4];
    rq_axi_rdata rd;
    uint32_t i;
    if (!q)
        return;
    inline8(&t, 0x5000);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 6, 33, l0);
    for (i = 0; i < 3; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_axi_read(q, 6, 6, 33, 0), RNIC_OK);
    CHECK_EQ(rq_qos_axi_read(q, 6, 6, 1, 1), RNIC_OK);
    CHECK_EQ(rq_qos_axi_read(q, 7, 6, 33, 0), RNIC_OK);
    for (i = 0; i < 4; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_rdata(q, &rd), RNIC_OK);
    CHECK_EQ(rd.status, RNIC_OK);
    CHECK_EQ(rd.data, RQ_BUSY);
    CHECK_EQ(rq_qos_pop_rdata(q, &rd), RNIC_OK);
    CHECK_EQ(rd.data, (uint64_t)RQ_BUSY << 2); /* channel 33 = bit pair 1 of the upper half */
    CHECK_EQ(rq_qos_pop_rdata(q, &rd), RNIC_OK);
    CHECK_EQ(rd.status, RNIC_EPERM);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EPERM], 1);
}

/* Random valid descriptors (1- and 2-line, inline and regular) from random domains, as 64-
 * and 128-bit beats in random order within each line, domains interleaved beat by beat: every
 * one is accepted, and each one still queued is in the queue an independent rule names. */
static void test_random_descriptors_land_in_their_queues(void)
{
    enum { N = 300 }; /* mostly two-line descriptors: 300 x 2 of the 1,024 write channels */
    static uint32_t want_queue[N], order[N];
    rq_qos *q = make_qos();
    rnic_prng p;
    uint32_t n = 0, cyc, i, qi, seen = 0;
    uint8_t used[16][64];
    if (!q)
        return;
    memset(used, 0, sizeof used);
    rnic_prng_seed(&p, 0x90500u);
    /* build the beats of N descriptors, 8 interleaved streams */
    {
        static rq__axi_beat beats[N * 8];
        uint32_t nb = 0, k;
        static uint32_t stream_first[N], stream_len[N];
        for (n = 0; n < N; n++) {
            rq_transfer t;
            uint64_t l[2][4];
            uint32_t d, ch, lines, ln;
            memset(&t, 0, sizeof t);
            do {
                d = (uint32_t)rnic_prng_below(&p, 16);
                ch = (uint32_t)rnic_prng_below(&p, 63);
            } while (used[d][ch] || used[d][ch + 1u]);
            t.kind = rnic_prng_below(&p, 3) == 0 ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
            t.size = t.kind == RQ_KIND_INLINE ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 33, (uint64_t)1 << 32);
            t.prio = (uint32_t)rnic_prng_below(&p, 16);
            t.dst = rnic_prng_next(&p);
            if (t.kind == RQ_KIND_REGULAR) {
                t.cm = rnic_prng_below(&p, 2) != 0;
                t.multipath = t.cm && rnic_prng_below(&p, 2);
            }
            CHECK_EQ(rq_desc_encode(&t, l[0], l[1]), RNIC_OK);
            lines = rq_desc_lines(l[0][3]);
            used[d][ch] = 1;
            if (lines == 2u)
                used[d][ch + 1u] = 1;
            /* the independent rule: Fig. 2.4 and §3.9.1 */
            want_queue[n] = t.kind == RQ_KIND_INLINE || !t.cm ? 1u : t.multipath ? 2u + 3u * 16u + t.prio : 2u + 16u + t.prio;
            order[n] = d * 128u + ch;
            stream_first[n] = nb;
            for (ln = 0; ln < lines; ln++) {
                uint32_t perm[4] = { 0, 1, 2, 3 }, j;
                int wide = rnic_prng_below(&p, 2) != 0;
                if (wide) { /* two 128-bit beats, either order */
                    uint32_t first_half = (uint32_t)rnic_prng_below(&p, 2) * 2u;
                    for (j = 0; j < 2; j++) {
                        uint32_t w = j == 0 ? first_half : 2u - first_half;
                        rq__axi_beat *b = &beats[nb++];
                        b->domain = d;
                        b->addr = addr_of(d, ch + ln, w);
                        b->data[0] = l[ln][w];
                        b->data[1] = l[ln][w + 1u];
                        b->bytes = 16;
                    }
                } else {
                    for (j = 3; j > 0; j--) { /* shuffle the four words */
                        uint32_t x = (uint32_t)rnic_prng_below(&p, j + 1u), tmp = perm[j];
                        perm[j] = perm[x];
                        perm[x] = tmp;
                    }
                    for (j = 0; j < 4; j++) {
                        rq__axi_beat *b = &beats[nb++];
                        b->domain = d;
                        b->addr = addr_of(d, ch + ln, perm[j]);
                        b->data[0] = l[ln][perm[j]];
                        b->data[1] = 0;
                        b->bytes = 8;
                    }
                }
            }
            stream_len[n] = nb - stream_first[n];
        }
        /* feed: 8 concurrent descriptors from distinct domains, a random one advances a beat */
        {
            uint32_t live[8], pos[8], next = 0, nlive = 0;
            uint32_t busy_domain[16];
            memset(busy_domain, 0, sizeof busy_domain);
            for (cyc = 0; cyc < 100000u && (next < N || nlive); cyc++) {
                while (nlive < 8u && next < N) {
                    uint32_t dd = order[next] / 128u;
                    if (busy_domain[dd])
                        break; /* one descriptor per domain at a time (one accumulator each) */
                    busy_domain[dd] = 1;
                    live[nlive] = next++;
                    pos[nlive] = 0;
                    nlive++;
                }
                if (nlive && rq_qos_space_axi_write(q) > 0) {
                    k = (uint32_t)rnic_prng_below(&p, nlive);
                    {
                        rq__axi_beat *b = &beats[stream_first[live[k]] + pos[k]];
                        CHECK_EQ(rq_qos_axi_write(q, b->domain, b->addr, b->data, b->bytes), RNIC_OK);
                    }
                    if (++pos[k] == stream_len[live[k]]) {
                        busy_domain[order[live[k]] / 128u] = 0;
                        live[k] = live[--nlive];
                        pos[k] = pos[nlive];
                    }
                }
                rq_qos_tick(q);
                {
                    rq_axi_bresp r;
                    while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
                        CHECK_EQ(r.status, RNIC_OK);
                }
            }
            for (i = 0; i < 20; i++)
                rq_qos_tick(q);
        }
    }
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, N);
    CHECK_EQ(beats_refused(rq_qos_get_stats(q)), 0);
    /* every queue holds its transfers; every transfer is in the queue the rule names (white-box
     * on purpose: the scheduling FIFOs, the metadata and stage 2 are internals) */
    for (qi = 0; qi < q->nqueues; qi++) {
        uint32_t e;
        for (e = rnic_ssfifo_peek(&q->sched, qi); e != RNIC_NONE; e = q->sched.next[e]) {
            for (i = 0; i < N && order[i] != e; i++)
                ;
            CHECK(i < N);
            if (i < N)
                CHECK_EQ(want_queue[i], qi);
            seen++;
            if (e == q->sched.tail[qi])
                break;
        }
    }
    /* the segmenter may already have taken some (those whose IDs were initialised): they have
     * started issuing or sit in its stage 2 */
    for (i = 0; i < N; i++) {
        uint32_t line = order[i];
        if (!rnic_ssfifo_is_queued(&q->sched, line)) {
            CHECK(q->meta[line].block_num > 0u || (q->s2.valid && q->s2.line == line));
            seen++;
        }
        CHECK(rq_qos_channel_status(q, line / 128u, line % 128u) == RQ_BUSY ||
              rq_qos_channel_status(q, line / 128u, line % 128u) == RQ_DONE);
    }
    CHECK_EQ(seen, N);
}

/* ---- the thesis's verification method (Ch. 4.2), in C: random transfers through the engine,
 * every block and packet compared with an independent computation, a responder that ACKs in
 * and out of order, loses some responses (timeouts), NACKs some, repeats stale ones, and a
 * host that polls the status registers 32 channels at a time ---- */

typedef struct e2e_xfer {
    rq_transfer t;
    uint32_t line, domain, channel;
    uint32_t total;          /* blocks expected (independent walk) */
    uint32_t next_block;     /* blocks seen (first transmissions) */
    uint32_t fid;            /* CM: the flow (or group) seen on block 0 */
    uint32_t acked;          /* distinct blocks acknowledged */
    int black_hole;          /* the responder never answers: must end in ERROR */
    int control_seen, done;
    int done_waits_control; /* DONE read while its control packet still sat in the output */
    uint32_t max_fails;     /* most consecutive lost or NACKed transmissions of one block */
    uint32_t index;         /* its number on its line (transfers written to the line before) */
} e2e_xfer;

typedef struct e2e_resp {
    uint64_t at;
    rq_response r;
} e2e_resp;

enum { E2E_LIVE = 512, E2E_RESP = 8192 };
static e2e_xfer e2e_x[E2E_LIVE];
static e2e_resp e2e_q[E2E_RESP];
static uint32_t e2e_nq;
static uint64_t e2e_fail_notes;
static uint32_t e2e_last_seq[1024];
static uint32_t e2e_fails[1024]; /* per TID: consecutive transmissions the responder failed */
static uint32_t e2e_line_uses[2048];

static int e2e_find(uint32_t line)
{
    int i;
    for (i = 0; i < E2E_LIVE; i++)
        if (e2e_x[i].t.size && e2e_x[i].line == line && !e2e_x[i].done)
            return i;
    return -1;
}

/* Expected block k of a transfer: walk the destination's block boundaries. */
static void e2e_expect(const rq_transfer *t, uint32_t k, uint64_t *off, uint32_t *size)
{
    const uint64_t B = 65536;
    uint64_t start = k == 0 ? t->dst : (t->dst / B + k) * B, end = (t->dst / B + k + 1u) * B;
    if (end > t->dst + t->size)
        end = t->dst + t->size;
    *off = start - t->dst;
    *size = (uint32_t)(end - start);
}

static void e2e_schedule(rnic_prng *p, uint64_t now, uint32_t tid, uint32_t seq, e2e_xfer *x, int retransmit)
{
    uint32_t r = (uint32_t)rnic_prng_below(p, 1000);
    if (!retransmit) /* a block's first transmission: a TID reused by another block starts over */
        e2e_fails[tid] = 0;
    if (x->black_hole || e2e_nq + 2u >= E2E_RESP)
        return;
    /* lost (the timeout brings it back) or NACKed: counted towards the retry limit */
    e2e_fails[tid] = r < 40 ? e2e_fails[tid] + 1u : 0u;
    if (e2e_fails[tid] > x->max_fails)
        x->max_fails = e2e_fails[tid];
    if (r < 20)
        return;
    e2e_q[e2e_nq].at = now + rnic_prng_range(p, 5, 600); /* out of order */
    e2e_q[e2e_nq].r.tid = tid;
    e2e_q[e2e_nq].r.seq = seq;
    e2e_q[e2e_nq].r.ack = r < 40 ? 0u : 1u; /* some NACKs */
    e2e_nq++;
    if (r >= 40 && r < 60) { /* a duplicate that will be stale by the time it arrives */
        e2e_q[e2e_nq] = e2e_q[e2e_nq - 1u];
        e2e_q[e2e_nq].at += rnic_prng_range(p, 1, 900);
        e2e_nq++;
    }
}

static void test_end_to_end_random_transfers(void)
{
    const uint32_t N = 100000u;
    rq_qos *q = make_qos();
    rnic_prng p;
    uint32_t issued = 0, finished = 0, errors_seen = 0, expected_errors = 0, black_holes = 0, i;
    uint64_t cyc, blocks = 0, packets = 0, retx = 0, stale = 0;
    uint8_t busy[16][64];
    if (!q)
        return;
    memset(e2e_x, 0, sizeof e2e_x);
    memset(e2e_fails, 0, sizeof e2e_fails);
    memset(busy, 0, sizeof busy);
    e2e_nq = 0;
    rnic_prng_seed(&p, 0xe2e0u);
    memset(e2e_line_uses, 0, sizeof e2e_line_uses);
    for (cyc = 0; cyc < 60000000u && finished < N && !TEST_FAILS(); cyc++) {
        rq_block_desc b;
        rnic_work rec;
        rq_packet pk;
        rq_axi_bresp br;
        rq_axi_rdata rd;
        /* host: start a transfer when the AW FIFO has room for a whole descriptor */
        if (issued < N && rq_qos_space_axi_write(q) >= 8u && rnic_prng_below(&p, 4) == 0) {
            uint32_t d = (uint32_t)rnic_prng_below(&p, 16), ch = 2u * (uint32_t)rnic_prng_below(&p, 32), slot;
            for (slot = 0; slot < E2E_LIVE && e2e_x[slot].t.size && !e2e_x[slot].done; slot++)
                ;
            if (slot < E2E_LIVE && !busy[d][ch] && !busy[d][ch + 1u] && rq_qos_domain_idle(q, d)) {
                e2e_xfer *x = &e2e_x[slot];
                uint64_t l[2][4], dd[2];
                uint32_t ln, w, lines;
                memset(x, 0, sizeof *x);
                x->t.size = rnic_prng_below(&p, 4) == 0 ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 1, 1u << 20);
                x->t.kind = x->t.size <= 32u ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
                x->t.dst = rnic_prng_next(&p) >> 20;
                x->t.prio = (uint32_t)rnic_prng_below(&p, 16);
                if (x->t.kind == RQ_KIND_REGULAR) {
                    x->t.src = rnic_prng_next(&p) >> 20;
                    x->t.cm = rnic_prng_below(&p, 2) != 0;
                    x->t.multipath = x->t.cm && rnic_prng_below(&p, 2);
                    x->t.notify = rnic_prng_below(&p, 3) == 0;
                    x->t.notify_target = rnic_prng_next(&p);
                } else {
                    for (w = 0; w < x->t.size; w++)
                        x->t.payload[w] = (uint8_t)rnic_prng_next(&p);
                }
                x->domain = d;
                x->channel = ch;
                x->line = d * 128u + ch;
                x->index = e2e_line_uses[x->line]++; /* the transfer's number on its line */
                x->total = x->t.kind == RQ_KIND_INLINE ? 1u : (uint32_t)((x->t.dst + x->t.size - 1u) / 65536u - x->t.dst / 65536u + 1u);
                x->black_hole = rnic_prng_below(&p, 2000) == 0;
                black_holes += (uint32_t)x->black_hole;
                CHECK_EQ(rq_desc_encode(&x->t, l[0], l[1]), RNIC_OK);
                lines = rq_desc_lines(l[0][3]);
                busy[d][ch] = 1;
                busy[d][ch + 1u] = 1; /* keep pairs simple: a channel pair per transfer */
                for (ln = 0; ln < lines; ln++)
                    for (w = 0; w < 4; w += 2) {
                        dd[0] = l[ln][w];
                        dd[1] = l[ln][w + 1u];
                        CHECK_EQ(rq_qos_axi_write(q, d, addr_of(d, ch + ln, w), dd, 16), RNIC_OK);
                    }
                issued++;
            }
        }
        /* the network: responses due this cycle */
        for (i = 0; i < e2e_nq;) {
            if (e2e_q[i].at <= rq_qos_now(q) && rq_qos_push_response(q, &e2e_q[i].r) == RNIC_OK) {
                e2e_q[i] = e2e_q[--e2e_nq];
                continue;
            }
            i++;
        }
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            CHECK_EQ(br.status, RNIC_OK);
        /* the send unit, stalling at random (both outputs back-pressure the segmenter): blocks
         * and packets, checked against the independent expectation */
        while (rnic_prng_below(&p, 10) < 7u && pop_block(q, &rec, &b) == RNIC_OK) {
            int xi = e2e_find(b.transfer);
            e2e_xfer *x;
            uint64_t off;
            uint32_t size, k;
            CHECK(xi >= 0);
            if (xi < 0)
                break;
            x = &e2e_x[xi];
            blocks++;
            k = b.block;
            if (!b.retransmit) {
                CHECK_EQ(k, x->next_block); /* blocks in order */
                x->next_block++;
            } else {
                retx++;
                CHECK(k < x->next_block);
                CHECK(b.seq != e2e_last_seq[b.tid]); /* a fresh sequence number */
            }
            CHECK(b.seq < 4096u); /* 12-bit global sequence numbers, wrapping */
            e2e_last_seq[b.tid] = b.seq;
            e2e_expect(&x->t, k, &off, &size);
            CHECK_EQ(b.size, size);
            CHECK_EQ(b.src, x->t.src + off);
            CHECK_EQ(b.dst, x->t.dst + off);
            CHECK_EQ(b.cm, x->t.cm);
            CHECK_EQ(b.chained, x->t.cm && k > 0u);
            CHECK_EQ(b.has_next, x->t.cm && k + 1u < x->total);
            CHECK_EQ(b.notify, x->t.notify && k + 1u == x->total);
            /* the rnic_work record itself (docs/rnicq_qos_model.md, "Outputs") */
            CHECK_EQ(rec.flow, x->line);
            CHECK_EQ(rec.index, x->index);
            CHECK_EQ(rec.offset, off);
            CHECK_EQ(rec.len, size);
            CHECK_EQ(rec.addr, x->t.src + off);
            CHECK_EQ(rec.raddr, x->t.dst + off);
            CHECK_EQ((rec.flags & RNIC_WORK_FIRST) != 0, k == 0u);
            CHECK_EQ((rec.flags & RNIC_WORK_LAST) != 0, k + 1u == x->total);
            CHECK_EQ((rec.flags & RQ_WORK_RETRANSMIT) != 0, b.retransmit);
            CHECK_EQ(rec.aux, b.tid);
            CHECK_EQ(RQ_WORK_SEQ(rec.flags), b.seq);
            CHECK_EQ(rec.op, 0); /* the caller's field: the engine writes nothing there */
            CHECK_EQ(b.domain, x->domain);
            if (!x->t.cm) {
                CHECK(b.tid < 512u);
            } else if (!x->t.multipath) {
                if (k == 0 && !b.retransmit)
                    x->fid = b.tid >> 2;
                CHECK(x->fid >= 128u && x->fid < 192u);
                CHECK_EQ(b.tid, (x->fid << 2) + k % 4u);
            } else {
                if (k == 0 && !b.retransmit)
                    x->fid = b.tid >> 2;
                CHECK(x->fid >= 192u && x->fid < 256u && x->fid % 4u == 0);
                CHECK_EQ(b.tid, ((x->fid + k % 4u) << 2) + (k / 4u) % 4u);
            }
            e2e_schedule(&p, rq_qos_now(q), b.tid, b.seq, x, b.retransmit);
        }
        while (rnic_prng_below(&p, 10) < 7u && rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            int xi = e2e_find(pk.transfer);
            e2e_xfer *x;
            CHECK(xi >= 0);
            if (xi < 0)
                break;
            x = &e2e_x[xi];
            packets++;
            if (pk.kind == RQ_PKT_CONTROL) {
                CHECK(x->t.notify);
                CHECK(x->next_block + 1u >= x->total); /* with or after the last block (the two
                                                        * outputs are separate queues) */
                CHECK_EQ(x->control_seen, 0);
                CHECK_EQ(pk.notify_target, x->t.notify_target);
                x->control_seen = 1;
                if (x->done_waits_control) {
                    x->done = 1;
                    busy[x->domain][x->channel] = busy[x->domain][x->channel + 1u] = 0;
                    finished++;
                }
                continue;
            }
            CHECK_EQ(x->t.kind, RQ_KIND_INLINE);
            CHECK_EQ(pk.index, x->index);
            CHECK_EQ(pk.size, x->t.size);
            CHECK_EQ(pk.dst, x->t.dst);
            CHECK(memcmp(pk.payload, x->t.payload, RQ_INLINE_MAX) == 0);
            CHECK(pk.tid < 512u);
            if (!pk.retransmit)
                x->next_block = 1;
            else
                CHECK(pk.seq != e2e_last_seq[pk.tid]);
            e2e_last_seq[pk.tid] = pk.seq;
            e2e_schedule(&p, rq_qos_now(q), pk.tid, pk.seq, x, pk.retransmit);
        }
        /* the host polls: one 32-channel status read every few cycles */
        if (cyc % 4u == 0)
            rq_qos_axi_read(q, (uint32_t)(cyc / 4u) % 16u, (uint32_t)(cyc / 4u) % 16u, (uint32_t)(cyc / 64u) % 2u, 1);
        while (rq_qos_pop_rdata(q, &rd) == RNIC_OK) {
            uint32_t j, d = (uint32_t)((rd.cycle - 1u) / 4u) % 16u, half = (uint32_t)((rd.cycle - 1u) / 64u) % 2u;
            CHECK_EQ(rd.status, RNIC_OK);
            for (j = 0; j < 32; j++) {
                uint32_t st = (uint32_t)(rd.data >> (2u * j)) & 3u, ch = half * 32u + j;
                int xi;
                if (st < RQ_DONE)
                    continue;
                xi = e2e_find(d * 128u + ch);
                CHECK(xi >= 0);
                if (xi < 0)
                    continue;
                if (st == RQ_ERROR) {
                    errors_seen++;
                    /* ERROR exactly when some block failed retry_limit + 1 = 4 times in a row */
                    if (e2e_x[xi].black_hole || e2e_x[xi].max_fails >= 4u)
                        expected_errors++;
                    else if (e2e_fail_notes++ < 3)
                        printf("  note: transfer at line %u ended in ERROR (most consecutive failures %u)\n",
                               e2e_x[xi].line, e2e_x[xi].max_fails);
                } else {
                    CHECK(!e2e_x[xi].black_hole);
                    CHECK(e2e_x[xi].max_fails < 4u);
                    CHECK_EQ(e2e_x[xi].next_block, e2e_x[xi].total);
                    if (e2e_x[xi].t.notify && !e2e_x[xi].control_seen) {
                        /* the control packet was queued before DONE; the stalling send unit has
                         * not taken it yet: the transfer ends when it does */
                        e2e_x[xi].done_waits_control = 1;
                        continue;
                    }
                }
                e2e_x[xi].done = 1;
                busy[d][ch] = busy[d][ch + 1u] = 0;
                finished++;
            }
        }
    }
    stale = responses_dropped(rq_qos_get_stats(q));
    printf("  %u transfers (%u black holes) in %" PRIu64 " cycles: %" PRIu64 " blocks (%" PRIu64
           " retransmitted), %" PRIu64 " packets, %" PRIu64 " timeouts, %" PRIu64 " NACKs, %" PRIu64
           " stale/duplicate responses dropped, %u ERROR\n",
           finished, black_holes, cyc, blocks, retx, packets, rq_qos_get_stats(q)->timeouts, rq_qos_get_stats(q)->nacks, stale, errors_seen);
    CHECK_EQ(finished, N);
    CHECK_EQ(errors_seen, expected_errors); /* ERROR exactly when the retry limit was hit */
    CHECK(black_holes > 0 && errors_seen >= black_holes);
    CHECK_EQ(rq_qos_pending(q), 0);
    for (i = 0; i < 2000u; i++) /* let deferred ID returns drain */
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_TID), 512); /* no TID or FID leaked */
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_FID1), 64);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_FID4), 16);
    CHECK(rq_qos_get_stats(q)->timeouts > 0 && rq_qos_get_stats(q)->nacks > 0 && stale > 0 && retx > 0);
    CHECK(rq_qos_get_stats(q)->seg_stalls_output > 0); /* the stalling send unit did stall the segmenter */
    printf("  segmenter stalls: %" PRIu64 " output, %" PRIu64 " enqueue port, %" PRIu64 " arbiter\n",
           rq_qos_get_stats(q)->seg_stalls_output, rq_qos_get_stats(q)->seg_stalls_enqueue, rq_qos_get_stats(q)->seg_stalls_arbiter);
}

/* Responses that match nothing are dropped and counted, and change nothing: an unknown TID, a
 * stale sequence number (a retransmission's older copy), a duplicate after completion. */
static void test_bad_responses(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4];
    rq_packet pk;
    rq_response r;
    uint32_t i;
    if (!q)
        return;
    while (!rq_qos_ready(q))
        rq_qos_tick(q);
    inline8(&t, 0x6000);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 2, 8, l0);
    for (i = 0; i < 6; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_packet(q, &pk), RNIC_OK);
    r.tid = 5000; /* not a TID */
    r.seq = pk.seq;
    r.ack = 1;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    r.tid = pk.tid;
    r.seq = (pk.seq + 1u) & 4095u; /* wrong sequence number */
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    for (i = 0; i < 8; i++)
        rq_qos_tick(q);
    CHECK_EQ(responses_dropped(rq_qos_get_stats(q)), 2);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ENOENT], 1);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ESTALE], 1);
    CHECK_EQ(rq_qos_pending(q), 1); /* still waiting for its real ACK */
    CHECK_EQ(rq_qos_channel_status(q, 2, 8), RQ_BUSY);
    r.seq = pk.seq; /* the real one */
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK); /* and a duplicate of it */
    for (i = 0; i < 10; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_channel_status(q, 2, 8), RQ_DONE);
    CHECK_EQ(responses_dropped(rq_qos_get_stats(q)), 3);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ESTALE], 2);
    CHECK_EQ(rq_qos_pending(q), 0);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_TID), 512);
}

/* Fast-forward: an engine driven with rq_qos_advance over idle stretches produces exactly the
 * outputs (same records, same cycles) of one ticked every cycle, on a sparse workload whose
 * responder loses responses so that only the timeout scanner wakes the engine. */
typedef struct ff_input {
    uint64_t cycle;
    int kind; /* 0 write beat, 1 response */
    uint32_t domain, addr;
    uint64_t data[2];
    rq_response r;
} ff_input;

enum { FF_MAX = 20000 };
static ff_input ff_in[FF_MAX];
static uint64_t ff_out_a[FF_MAX][3], ff_out_b[FF_MAX][3];

static uint32_t ff_drain(rq_qos *q, uint64_t out[][3], uint32_t n)
{
    rq_block_desc b;
    rnic_work w;
    rq_packet pk;
    rq_axi_bresp br;
    while (n < FF_MAX && pop_block(q, &w, &b) == RNIC_OK) {
        out[n][0] = b.cycle;
        out[n][1] = ((uint64_t)b.tid << 32) | b.seq;
        out[n][2] = b.dst ^ b.size;
        n++;
    }
    while (n < FF_MAX && rq_qos_pop_packet(q, &pk) == RNIC_OK) {
        out[n][0] = pk.cycle;
        out[n][1] = ((uint64_t)pk.tid << 32) | pk.seq | ((uint64_t)pk.kind << 62);
        out[n][2] = pk.dst;
        n++;
    }
    while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
        ;
    return n;
}

static void test_fast_forward_matches_ticks(void)
{
    static unsigned char mem_b[1u << 20];
    static rq_qos qa, qb;
    rq_qos_config c;
    rnic_prng p;
    uint32_t nin = 0, na = 0, nb = 0, i, k, t;
    uint64_t cyc, end = 400000, ticks_b = 0;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    c.timeout_ns = 13333; /* 1,999.95 cycles at 150 MHz: 2,000 */
    CHECK_EQ(rq_qos_init(&qa, &c, mem_buf, sizeof mem_buf), RNIC_OK);
    CHECK_EQ(rq_qos_timeout_cycles(&qa), 2000);
    CHECK_EQ(rq_qos_init(&qb, &c, mem_b, sizeof mem_b), RNIC_OK);
    rnic_prng_seed(&p, 0xff00u);
    /* A: ticked every cycle; a sparse host and a responder that loses a third of the responses */
    for (cyc = 0; cyc < end && !TEST_FAILS(); cyc++) {
        uint32_t before = na;
        if (cyc >= 600u && cyc % 5000u == 0 && nin + 8u < FF_MAX) { /* a transfer every 5,000 cycles */
            rq_transfer tr;
            uint64_t l[2][4];
            uint32_t ch = (uint32_t)(cyc / 5000u) % 32u * 2u, ln, w;
            memset(&tr, 0, sizeof tr);
            tr.kind = RQ_KIND_REGULAR;
            tr.size = rnic_prng_range(&p, 33, 300000);
            tr.dst = rnic_prng_next(&p) >> 24;
            tr.cm = rnic_prng_below(&p, 2) != 0;
            rq_desc_encode(&tr, l[0], l[1]);
            for (ln = 0; ln < 2; ln++)
                for (w = 0; w < 4; w += 2) {
                    ff_input *in = &ff_in[nin++];
                    in->cycle = cyc;
                    in->kind = 0;
                    in->domain = 1;
                    in->addr = addr_of(1, ch + ln, w);
                    in->data[0] = l[ln][w];
                    in->data[1] = l[ln][w + 1u];
                    CHECK_EQ(rq_qos_axi_write(&qa, 1, in->addr, in->data, 16), RNIC_OK);
                }
        }
        for (i = 0; i < nin; i++) /* responses recorded for this cycle */
            if (ff_in[i].kind == 1 && ff_in[i].cycle == cyc)
                rq_qos_push_response(&qa, &ff_in[i].r);
        rq_qos_tick(&qa);
        na = ff_drain(&qa, ff_out_a, na);
        for (k = before; k < na && nin < FF_MAX; k++) { /* answer new blocks later, or never */
            if (ff_out_a[k][1] >> 62)
                continue; /* control packets are not acknowledged */
            if (rnic_prng_below(&p, 3) == 0)
                continue;
            ff_in[nin].cycle = rq_qos_now(&qa) + rnic_prng_range(&p, 50, 3000);
            ff_in[nin].kind = 1;
            ff_in[nin].r.tid = (uint32_t)(ff_out_a[k][1] >> 32) & 0x3fffffffu;
            ff_in[nin].r.seq = (uint32_t)ff_out_a[k][1];
            ff_in[nin].r.ack = 1;
            nin++;
        }
    }
    /* B: the same inputs at the same cycles, fast-forwarding in between */
    while (rq_qos_now(&qb) < end && !TEST_FAILS()) {
        uint64_t next_in = end, ne;
        for (i = 0; i < nin; i++)
            if (ff_in[i].cycle >= rq_qos_now(&qb) && ff_in[i].cycle < next_in)
                next_in = ff_in[i].cycle;
        for (i = 0; i < nin; i++)
            if (ff_in[i].cycle == rq_qos_now(&qb)) {
                if (ff_in[i].kind == 0)
                    CHECK_EQ(rq_qos_axi_write(&qb, ff_in[i].domain, ff_in[i].addr, ff_in[i].data, 16), RNIC_OK);
                else
                    rq_qos_push_response(&qb, &ff_in[i].r);
            }
        if (next_in == rq_qos_now(&qb)) { /* inputs this cycle were pushed: tick it */
            next_in = end;
            for (i = 0; i < nin; i++)
                if (ff_in[i].cycle > rq_qos_now(&qb) && ff_in[i].cycle < next_in)
                    next_in = ff_in[i].cycle;
        }
        ne = rq_qos_next_event(&qb);
        if (ne <= rq_qos_now(&qb)) {
            rq_qos_tick(&qb);
            ticks_b++;
        } else {
            rq_qos_advance(&qb, (ne < next_in ? ne : next_in) - rq_qos_now(&qb));
        }
        nb = ff_drain(&qb, ff_out_b, nb);
    }
    CHECK_EQ(na, nb);
    for (t = 0; t < na && t < nb && !TEST_FAILS(); t++) {
        CHECK_EQ(ff_out_a[t][0], ff_out_b[t][0]);
        CHECK_EQ(ff_out_a[t][1], ff_out_b[t][1]);
        CHECK_EQ(ff_out_a[t][2], ff_out_b[t][2]);
    }
    CHECK_EQ(rq_qos_get_stats(&qa)->timeouts, rq_qos_get_stats(&qb)->timeouts);
    CHECK_EQ(rq_qos_get_stats(&qa)->retransmits, rq_qos_get_stats(&qb)->retransmits);
    CHECK_EQ(rq_qos_get_stats(&qa)->done, rq_qos_get_stats(&qb)->done);
    CHECK(rq_qos_get_stats(&qa)->timeouts > 10u);
    printf("  %u outputs identical; %" PRIu64 " timeouts; B ticked %" PRIu64 " of %" PRIu64 " cycles\n", na,
           rq_qos_get_stats(&qa)->timeouts, ticks_b, end);
    CHECK(ticks_b < end / 2u);
}

/* Remote read requests (the fourth enqueuer, beyond the thesis): placed in free read channels
 * of their domain, segmented like local transfers, completed by their ACKs without a status
 * register, their channels free again; bad requests refused and counted; a domain with every
 * read channel busy makes the next request wait (back-pressure), not vanish. */
static void test_remote_reads(void)
{
    rq_qos *q = make_qos();
    rnic_prng p;
    uint32_t pushed = 0, i, blocks = 0, lines_busy;
    uint64_t cyc, bytes_expected = 0, bytes_seen = 0;
    rq_transfer t;
    if (!q)
        return;
    while (!rq_qos_ready(q))
        rq_qos_tick(q);
    memset(&t, 0, sizeof t);
    CHECK_EQ(rq_qos_push_remote_read(q, 16, &t), RNIC_ENOENT);
    CHECK_EQ(rq_qos_push_remote_read(q, 0, &t), RNIC_EINVAL); /* size 0 */
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ENOENT], 1);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EINVAL], 1);
    rnic_prng_seed(&p, 0x4eadu);
    for (cyc = 0; cyc < 2000000u && (pushed < 500u || rq_qos_get_stats(q)->done < 500u) && !TEST_FAILS(); cyc++) {
        rq_block_desc b;
        rnic_work w;
        rq_packet pk;
        if (pushed < 500u) {
            memset(&t, 0, sizeof t);
            t.size = rnic_prng_below(&p, 4) == 0 ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 33, 1u << 19);
            t.kind = t.size <= 32u ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
            t.src = rnic_prng_next(&p) >> 20;
            t.dst = rnic_prng_next(&p) >> 20;
            t.cm = t.kind == RQ_KIND_REGULAR && rnic_prng_below(&p, 2);
            t.multipath = t.cm && rnic_prng_below(&p, 2);
            if (rq_qos_push_remote_read(q, pushed % 2u, &t) == RNIC_OK) { /* two domains: their read channels fill */
                pushed++;
                bytes_expected += t.size;
            }
        }
        rq_qos_tick(q);
        while (pop_block(q, &w, &b) == RNIC_OK) {
            rq_response r;
            CHECK(b.transfer % 128u >= 64u); /* a read channel */
            CHECK(b.transfer / 128u < 2u);
            r.tid = b.tid;
            r.seq = b.seq;
            r.ack = 1;
            while (rq_qos_push_response(q, &r) != RNIC_OK)
                rq_qos_tick(q);
            bytes_seen += b.size;
            blocks++;
        }
        while (rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            rq_response r;
            if (pk.kind != RQ_PKT_INLINE)
                continue;
            r.tid = pk.tid;
            r.seq = pk.seq;
            r.ack = 1;
            while (rq_qos_push_response(q, &r) != RNIC_OK)
                rq_qos_tick(q);
            bytes_seen += pk.size;
        }
    }
    for (i = 0; i < 100; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->remote_reads, 500);
    CHECK_EQ(rq_qos_get_stats(q)->done, 500);
    CHECK_EQ(bytes_seen, bytes_expected);
    CHECK(rq_qos_get_stats(q)->remote_waits > 0); /* the read channels of a domain did run out */
    for (i = 0, lines_busy = 0; i < q->lines; i++)
        lines_busy += q->occupied[i] != 0;
    CHECK_EQ(lines_busy, 0);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_TID), 512);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_FID1), 64);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_FID4), 16);
    printf("  500 remote reads: %u blocks, %" PRIu64 " bytes, %" PRIu64 " cycles waiting for a read channel\n", blocks,
           bytes_seen, rq_qos_get_stats(q)->remote_waits);
}


/* The engine contract's ports (docs/engine_contract.md): NULL records refused with
 * RNIC_EINVAL and counted, state intact; a NULL engine refused everywhere; peeks copy without
 * taking; space_* follow the configured depths; a full input counts EBUSY. */
static void test_null_pointers_peeks_and_space(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4], d[2] = { 0, 0 };
    rnic_work w, w2;
    rq_block_desc bd;
    rq_packet pk, pk2;
    rq_axi_bresp br, br2;
    rq_axi_rdata rd, rd2;
    rq_response r;
    uint64_t einval;
    uint32_t i;
    if (!q)
        return;
    memset(&t, 0, sizeof t); /* given to calls that refuse it before reading it */
    /* a NULL engine: every call answers EINVAL or 0, nothing crashes */
    CHECK_EQ(rq_qos_pop_block(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(rq_qos_peek_block(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(rq_qos_pop_packet(NULL, &pk), RNIC_EINVAL);
    CHECK_EQ(rq_qos_peek_packet(NULL, &pk), RNIC_EINVAL);
    CHECK_EQ(rq_qos_pop_bresp(NULL, &br), RNIC_EINVAL);
    CHECK_EQ(rq_qos_pop_rdata(NULL, &rd), RNIC_EINVAL);
    CHECK_EQ(rq_qos_push_response(NULL, &r), RNIC_EINVAL);
    CHECK_EQ(rq_qos_axi_write(NULL, 0, 0, d, 8), RNIC_EINVAL);
    CHECK_EQ(rq_qos_axi_read(NULL, 0, 0, 0, 0), RNIC_EINVAL);
    CHECK_EQ(rq_qos_push_remote_read(NULL, 0, &t), RNIC_EINVAL);
    CHECK_EQ(rq_qos_space_axi_write(NULL), 0);
    CHECK(!rq_qos_ready(NULL));
    CHECK_EQ(rq_qos_next_event(NULL), RNIC_NEVER);
    CHECK_EQ(rq_qos_advance(NULL, 10), 0);
    CHECK_EQ(rq_qos_advance_to(NULL, 10), 0);
    CHECK_EQ(rq_qos_queue_of(NULL, &t), RNIC_NONE);
    CHECK_EQ(rq_qos_queue_of(q, NULL), RNIC_NONE);
    CHECK(rq_qos_get_stats(NULL) == NULL);
    rq_qos_config_default(NULL);
    rq_qos_tick(NULL);
    /* the configured depths */
    CHECK_EQ(rq_qos_space_axi_write(q), 8);
    CHECK_EQ(rq_qos_space_axi_read(q), 8);
    CHECK_EQ(rq_qos_space_response(q), 8);
    CHECK_EQ(rq_qos_space_remote_read(q), 8);
    while (!rq_qos_ready(q))
        rq_qos_tick(q);
    /* one inline transfer and one regular transfer: a packet, a block, BRESPs, then a read */
    inline8(&t, 0x7000);
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 1, 4, l0);
    CHECK_EQ(rq_qos_space_axi_write(q), 6);
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR;
    t.size = 1000;
    t.src = 0x100;
    t.dst = 0x20000;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 2, 6, l0);
    write_line128(q, 2, 7, l1);
    CHECK_EQ(rq_qos_space_axi_write(q), 2);
    for (i = 0; i < 12; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_axi_read(q, 1, 1, 4, 0), RNIC_OK);
    CHECK_EQ(rq_qos_space_axi_read(q), 7);
    rq_qos_tick(q);
    rq_qos_tick(q);
    einval = rq_qos_get_stats(q)->errors.by_cause[RNIC_EINVAL];
    CHECK_EQ(rq_qos_pop_block(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_pop_packet(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_pop_bresp(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_pop_rdata(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_push_response(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_push_remote_read(q, 0, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_axi_write(q, 0, 0, NULL, 8), RNIC_EINVAL);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EINVAL], einval + 7u);
    CHECK_EQ(rq_qos_peek_block(q, NULL), RNIC_EINVAL); /* peeks count them too */
    CHECK_EQ(rq_qos_peek_packet(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_peek_bresp(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_peek_rdata(q, NULL), RNIC_EINVAL);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EINVAL], einval + 11u);
    /* nothing was lost: peeks see what the pops then take */
    CHECK_EQ(rq_qos_peek_block(q, &w), RNIC_OK);
    CHECK_EQ(rq_qos_pop_block(q, &w2), RNIC_OK);
    CHECK(memcmp(&w, &w2, sizeof w) == 0);
    CHECK_EQ(w.flow, 2u * 128u + 6u);
    CHECK_EQ(w.index, 0);
    CHECK_EQ(w.len, 1000);
    CHECK_EQ(w.addr, 0x100);
    CHECK_EQ(w.raddr, 0x20000);
    CHECK_EQ(w.offset, 0);
    CHECK_EQ(w.flags & ((1u << RQ_WORK_SEQ_SHIFT) - 1u), RNIC_WORK_FIRST | RNIC_WORK_LAST);
    CHECK_EQ(w.op, 0);
    CHECK_EQ(rq_qos_block_info(q, &w, &bd), RNIC_OK);
    CHECK_EQ(bd.seq, RQ_WORK_SEQ(w.flags));
    CHECK_EQ(bd.domain, 2);
    CHECK_EQ(bd.block, 0);
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_EEMPTY);
    CHECK_EQ(rq_qos_block_info(q, NULL, &bd), RNIC_EINVAL);
    CHECK_EQ(rq_qos_peek_packet(q, &pk), RNIC_OK);
    CHECK_EQ(rq_qos_pop_packet(q, &pk2), RNIC_OK);
    CHECK(memcmp(&pk, &pk2, sizeof pk) == 0);
    CHECK_EQ(pk.transfer, 1u * 128u + 4u);
    CHECK_EQ(rq_qos_peek_bresp(q, &br), RNIC_OK);
    CHECK_EQ(rq_qos_pop_bresp(q, &br2), RNIC_OK);
    CHECK(memcmp(&br, &br2, sizeof br) == 0);
    while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
        ;
    CHECK_EQ(rq_qos_peek_rdata(q, &rd), RNIC_OK);
    CHECK_EQ(rq_qos_pop_rdata(q, &rd2), RNIC_OK);
    CHECK(memcmp(&rd, &rd2, sizeof rd) == 0);
    CHECK_EQ(rd.data, RQ_BUSY);
    /* a full input: EBUSY, counted once as back-pressure in errors */
    r.tid = 4000;
    r.seq = 0;
    r.ack = 1;
    for (i = 0; i < 8; i++)
        CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    CHECK_EQ(rq_qos_space_response(q), 0);
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_EBUSY);
    CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_EBUSY], 1);
}


/* ---- fast-forward under the engine contract: one workload on three engines -- A ticked
 * every cycle from cycle 0, B driven by rq_qos_advance_to from cycle 0, C the same as B but
 * started 150,000 cycles below 2^64 so the run crosses the wrap. The send unit is lazy: it
 * drains the outputs only every `period` cycles (hundreds to thousands), so the outputs sit
 * full for long stretches (the engine waits on them: next_event RNIC_NEVER unless a timeout
 * is armed), and loses a fifth of the responses (timeouts, retransmissions). Every record
 * popped, its cycle (shifted for C), and the final statistics must be identical. ---- */
typedef struct adv_resp {
    uint64_t at; /* cycle offset from the run's start */
    rq_response r;
} adv_resp;

enum { ADV_RESP = 4096, ADV_XFERS = 300 };

typedef struct adv_run {
    rq_qos *q[3];
    uint64_t start[3];
    adv_resp resp[ADV_RESP];
    uint32_t nresp;
    uint64_t records, stops, skipped_quiet;
} adv_run;

/* Drain every output of engine k at its cycle; compare with engine 0's records (already in
 * `ref`), or, for engine 0, fill `ref` and schedule responses. */
typedef struct adv_rec {
    rnic_work w[64];
    rq_packet pk[64];
    rq_axi_bresp br[64];
    rq_axi_rdata rd[64];
    uint32_t nw, npk, nbr, nrd;
} adv_rec;

static void adv_drain(rq_qos *q, adv_rec *r)
{
    memset(r, 0, sizeof *r);
    while (r->nw < 64u && rq_qos_pop_block(q, &r->w[r->nw]) == RNIC_OK)
        r->nw++;
    while (r->npk < 64u && rq_qos_pop_packet(q, &r->pk[r->npk]) == RNIC_OK)
        r->npk++;
    while (r->nbr < 64u && rq_qos_pop_bresp(q, &r->br[r->nbr]) == RNIC_OK)
        r->nbr++;
    while (r->nrd < 64u && rq_qos_pop_rdata(q, &r->rd[r->nrd]) == RNIC_OK)
        r->nrd++;
}

static int adv_same(const adv_rec *a, const adv_rec *b, uint64_t shift)
{
    uint32_t i;
    if (a->nw != b->nw || a->npk != b->npk || a->nbr != b->nbr || a->nrd != b->nrd)
        return 0;
    for (i = 0; i < a->nw; i++) {
        rnic_work x = a->w[i];
        x.cycle += shift;
        if (memcmp(&x, &b->w[i], sizeof x) != 0)
            return 0;
    }
    for (i = 0; i < a->npk; i++) {
        rq_packet x = a->pk[i];
        x.cycle += shift;
        if (memcmp(&x, &b->pk[i], sizeof x) != 0)
            return 0;
    }
    for (i = 0; i < a->nbr; i++)
        if (a->br[i].cycle + shift != b->br[i].cycle || a->br[i].status != b->br[i].status || a->br[i].addr != b->br[i].addr)
            return 0;
    for (i = 0; i < a->nrd; i++)
        if (a->rd[i].cycle + shift != b->rd[i].cycle || a->rd[i].data != b->rd[i].data || a->rd[i].status != b->rd[i].status)
            return 0;
    return 1;
}

static void test_advance_is_ticking_with_full_outputs_and_wrap(void)
{
    static unsigned char mem3[3][1u << 20];
    static rq_qos eng3[3];
    static adv_run run;
    static adv_rec rec[3];
    rq_qos_config c;
    rnic_prng p;
    uint64_t t = 0, end = 1500000, period = 500, next_drain = 0;
    uint32_t k, i, started = 0;
    memset(&run, 0, sizeof run);
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    run.start[0] = run.start[1] = 0;
    run.start[2] = UINT64_MAX - 150000u;
    for (k = 0; k < 3; k++) {
        c.start_cycle = run.start[k];
        CHECK_EQ(rq_qos_init(&eng3[k], &c, mem3[k], sizeof mem3[k]), RNIC_OK);
        run.q[k] = &eng3[k];
        CHECK_EQ(rq_qos_now(run.q[k]), run.start[k]);
    }
    rnic_prng_seed(&p, 0xadfau);
    while (t < end && !TEST_FAILS()) {
        /* the next action: a drain, a response due, or the host's next descriptor */
        uint64_t next = next_drain;
        for (i = 0; i < run.nresp; i++)
            if (run.resp[i].at < next)
                next = run.resp[i].at;
        if (next <= t)
            next = t;
        /* move every engine to `next`: A by ticks, B and C by advance_to (which may stop
         * early when an output fills: call again) */
        while (rq_qos_now(run.q[0]) != next)
            rq_qos_tick(run.q[0]);
        for (k = 1; k < 3; k++) {
            uint64_t target = run.start[k] + next;
            while (rq_qos_now(run.q[k]) != target) {
                uint64_t before = rq_qos_now(run.q[k]), ran = rq_qos_advance_to(run.q[k], target);
                CHECK_EQ(rq_qos_now(run.q[k]), before + ran);
                CHECK(ran > 0u);
                if (ran == 0u)
                    return;
                run.stops += rq_qos_now(run.q[k]) != target;
            }
        }
        t = next;
        /* inputs at t, the same to all three */
        for (i = 0; i < run.nresp;) {
            if (run.resp[i].at <= t) {
                rnic_err e0 = rq_qos_push_response(run.q[0], &run.resp[i].r);
                for (k = 1; k < 3; k++)
                    CHECK_EQ(rq_qos_push_response(run.q[k], &run.resp[i].r), e0);
                if (e0 == RNIC_OK) {
                    run.resp[i] = run.resp[--run.nresp];
                    continue;
                }
                run.resp[i].at = t + 1u; /* port full: again next cycle */
            }
            i++;
        }
        if (t == next_drain) {
            for (k = 0; k < 3; k++)
                adv_drain(run.q[k], &rec[k]);
            for (k = 1; k < 3; k++)
                CHECK(adv_same(&rec[0], &rec[k], run.start[k]));
            run.records += rec[0].nw + rec[0].npk;
            /* the network: a fifth lost, one in twenty NACKed, the rest ACKed later */
            for (i = 0; i < rec[0].nw + rec[0].npk && run.nresp < ADV_RESP; i++) {
                uint32_t r = (uint32_t)rnic_prng_below(&p, 100);
                adv_resp *ar = &run.resp[run.nresp];
                if (i >= rec[0].nw && rec[0].pk[i - rec[0].nw].kind != RQ_PKT_INLINE)
                    continue;
                if (r < 20)
                    continue;
                ar->at = t + rnic_prng_range(&p, 50, 3000);
                ar->r.tid = i < rec[0].nw ? rec[0].w[i].aux : rec[0].pk[i - rec[0].nw].tid;
                ar->r.seq = i < rec[0].nw ? RQ_WORK_SEQ(rec[0].w[i].flags) : rec[0].pk[i - rec[0].nw].seq;
                ar->r.ack = r >= 25;
                run.nresp++;
            }
            /* the host: a new descriptor (fresh channel pair) when the AW FIFO has room, and
             * a status read of one page */
            if (started < ADV_XFERS && rq_qos_space_axi_write(run.q[0]) >= 4u && rq_qos_ready(run.q[0])) {
                rq_transfer tr;
                uint64_t l[2][4];
                uint32_t d = started % 16u, ch = 2u * (started / 16u), ln, w;
                memset(&tr, 0, sizeof tr);
                tr.size = rnic_prng_below(&p, 5) == 0 ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 33, 1u << 19);
                tr.kind = tr.size <= 32u ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
                tr.dst = rnic_prng_next(&p) >> 24;
                tr.src = tr.kind == RQ_KIND_REGULAR ? rnic_prng_next(&p) >> 24 : 0;
                tr.cm = tr.kind == RQ_KIND_REGULAR && rnic_prng_below(&p, 2);
                tr.multipath = tr.cm && rnic_prng_below(&p, 2);
                tr.notify = tr.kind == RQ_KIND_REGULAR && rnic_prng_below(&p, 3) == 0;
                CHECK_EQ(rq_desc_encode(&tr, l[0], l[1]), RNIC_OK);
                for (ln = 0; ln < rq_desc_lines(l[0][3]); ln++)
                    for (w = 0; w < 4; w += 2)
                        for (k = 0; k < 3; k++)
                            CHECK_EQ(rq_qos_axi_write(run.q[k], d, addr_of(d, ch + ln, w), &l[ln][w], 16), RNIC_OK);
                started++;
            }
            {
                uint32_t page = (uint32_t)rnic_prng_below(&p, 16), half = (uint32_t)rnic_prng_below(&p, 2);
                for (k = 0; k < 3; k++)
                    rq_qos_axi_read(run.q[k], page, page, half, 1);
            }
            if (rnic_prng_below(&p, 20) == 0) /* phases of eager and lazy send units */
                period = rnic_prng_below(&p, 2) ? rnic_prng_range(&p, 1, 20) : rnic_prng_range(&p, 200, 5000);
            next_drain = t + period;
        }
    }
    for (k = 1; k < 3; k++) {
        rq_qos_stats a = *rq_qos_get_stats(run.q[0]), b = *rq_qos_get_stats(run.q[k]);
        CHECK(memcmp(&a, &b, sizeof a) == 0); /* every counter, stall counters included */
        if (memcmp(&a, &b, sizeof a) != 0)
            printf("  engine %u: cycles %" PRIu64 "/%" PRIu64 " bresp_stalls %" PRIu64 "/%" PRIu64
                   " seg_stalls_output %" PRIu64 "/%" PRIu64 " timeouts %" PRIu64 "/%" PRIu64 "\n",
                   k, a.cycles, b.cycles, a.bresp_stalls, b.bresp_stalls, a.seg_stalls_output, b.seg_stalls_output,
                   a.timeouts, b.timeouts);
    }
    CHECK(rq_qos_now(run.q[2]) < run.start[2]); /* C crossed the wrap */
    CHECK(rq_qos_get_stats(run.q[0])->timeouts > 20u && rq_qos_get_stats(run.q[0])->retransmits > 20u);
    CHECK(rq_qos_get_stats(run.q[0])->seg_stalls_output > 100000u); /* outputs sat full */
    CHECK(run.stops > 10u); /* advance did stop at outputs that filled */
    printf("  %u transfers, %" PRIu64 " records identical over %" PRIu64 " cycles (and across 2^64); %" PRIu64
           " timeouts, %" PRIu64 " early stops at a filled output\n",
           started, run.records, end, rq_qos_get_stats(run.q[0])->timeouts, run.stops);
}

/* A fresh engine whose only work is a full output: next_event is RNIC_NEVER; advance stops
 * right after the tick that filled the port, then (the port already full) runs the whole
 * request in one skip; popping makes the engine busy again. */
/* Found by tests/fuzz/fuzz_qos.c (corpus: regress_advance_at_wrap, regress_timeout_at_wrap): an
 * event at 2^64 - 1 reads RNIC_NEVER from next_event, and rq_qos_advance skipped over it: at
 * now = 2^64 - 1 the ID initializer's cycles after the wrap were lost, and a timeout due at
 * 2^64 - 1 fired 16 cycles late. Advance must give what ticking gives. */
static void test_advance_at_the_last_cycle_before_the_wrap(void)
{
    static unsigned char mem2[2][1u << 16];
    static rq_qos e2[2];
    rq_qos_config c;
    uint32_t i, k;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    c.domains = 1;
    c.write_channels = 32;
    c.read_channels = 1;
    c.ids.tids = 8;
    c.ids.flow_blocks = 1;
    c.ids.fids_unipath = 8;
    c.ids.fid_groups = 0;
    c.accumulators = 1;
    c.start_cycle = UINT64_MAX;
    CHECK(rq_qos_mem_size(&c) > 0 && rq_qos_mem_size(&c) <= sizeof mem2[0]);
    for (k = 0; k < 2u; k++)
        if (rq_qos_init(&e2[k], &c, mem2[k], sizeof mem2[k]) != RNIC_OK)
            return;
    CHECK(rq_qos_next_event(&e2[0]) == RNIC_NEVER); /* work now, at 2^64 - 1 */
    for (i = 0; i < 8u; i++)
        rq_qos_tick(&e2[0]);
    CHECK_EQ(rq_qos_advance(&e2[1], 8), 8);
    CHECK_EQ(rq_qos_now(&e2[1]), rq_qos_now(&e2[0]));
    CHECK_EQ(rq_qos_free_ids(&e2[1], RQ_POOL_TID), rq_qos_free_ids(&e2[0], RQ_POOL_TID));
    CHECK_EQ(rq_qos_free_ids(&e2[1], RQ_POOL_TID), 8);
    CHECK(memcmp(rq_qos_get_stats(&e2[0]), rq_qos_get_stats(&e2[1]), sizeof(rq_qos_stats)) == 0);
    /* and an event due at 2^64 - 1 seen from before it (it reads RNIC_NEVER too): a beat written
     * at 2^64 - 2 is handled at 2^64 - 1, by advance as by ticks (it skipped past it) */
    c.start_cycle = UINT64_MAX - 40u;
    for (k = 0; k < 2u; k++)
        if (rq_qos_init(&e2[k], &c, mem2[k], sizeof mem2[k]) != RNIC_OK)
            return;
    while (rq_qos_now(&e2[0]) != UINT64_MAX - 1u)
        rq_qos_tick(&e2[0]);
    CHECK_EQ(rq_qos_advance_to(&e2[1], UINT64_MAX - 1u), 39);
    {
        uint64_t d[2] = { 0, 0 };
        rq_axi_bresp b0, b1;
        for (k = 0; k < 2u; k++)
            CHECK_EQ(rq_qos_axi_write(&e2[k], 0, 0, d, 8), RNIC_OK);
        CHECK(rq_qos_next_event(&e2[1]) == RNIC_NEVER); /* due at 2^64 - 1 */
        for (i = 0; i < 4u; i++)
            rq_qos_tick(&e2[0]);
        CHECK_EQ(rq_qos_advance(&e2[1], 4), 4);
        CHECK_EQ(rq_qos_pop_bresp(&e2[0], &b0), RNIC_OK);
        CHECK_EQ(rq_qos_pop_bresp(&e2[1], &b1), RNIC_OK);
        CHECK(b0.cycle == UINT64_MAX && b1.cycle == b0.cycle);
    }
}

/* Found by tests/fuzz/fuzz_qos.c: a transfer that failed (retry limit) while one of its blocks
 * waited in segmenter stage 3 behind a full transaction port still emitted that block afterwards,
 * with its pending entry gone and its TID given back. Block 0 is taken and NACKed with
 * retry_limit 0 while block 1 fills the 1-deep port and block 2 waits in stage 3: after the
 * ERROR, only block 1 (issued before) comes out. */
static void test_failed_transfer_emits_no_stage3_block(void)
{
    static unsigned char memf[1u << 16];
    static rq_qos eng;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer t;
    rq_response r;
    rnic_work w;
    rq_axi_bresp br;
    uint64_t l0[4], l1[4];
    uint32_t i, blocks_after = 0;
    small_config(&c, 1, 8, 8, 0);
    c.block_depth = 1;
    c.max_outstanding = 3;
    c.retry_limit = 0;
    if (!start_qos(q, &c, memf, sizeof memf))
        return;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR;
    t.size = 4u * 64u; /* 4 blocks */
    t.src = 0x10000;
    t.dst = 0x20000;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, 0, l0);
    write_line128(q, 0, 1, l1);
    for (i = 0; i < 20u && rq_qos_peek_block(q, &w) != RNIC_OK; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK); /* block 0 taken */
    CHECK_EQ(w.offset, 0);
    for (i = 0; i < 20u && !(q->s3_valid && rnic_ring_full(&q->tx)); i++) /* block 1 fills the port, block 2 waits in stage 3 */
        rq_qos_tick(q);
    CHECK(q->s3_valid && rnic_ring_full(&q->tx)); /* white-box: the state the fuzzer found */
    r.tid = w.aux;
    r.seq = RQ_WORK_SEQ(w.flags);
    r.ack = 0;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK); /* NACK with no retry left: ERROR */
    for (i = 0; i < 20u && rq_qos_channel_status(q, 0, 0) != RQ_ERROR; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_channel_status(q, 0, 0), RQ_ERROR);
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK); /* block 1, issued before the failure */
    CHECK_EQ(w.offset, 64);
    for (i = 0; i < 20u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &w) == RNIC_OK)
            blocks_after++;
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            ;
    }
    CHECK_EQ(blocks_after, 0);
    CHECK_EQ(rq_qos_pending(q), 0);
}

typedef struct qos_event_log {
    uint32_t n, kind[64], id[64];
    uint64_t a[64], cycle[64];
} qos_event_log;

static void log_engine_events(void *user, const rnic_trace_event *ev)
{
    qos_event_log *lg = (qos_event_log *)user;
    if (ev->kind < RQ_QOS_TRACE_ACCEPT || lg->n == 64u)
        return;
    lg->kind[lg->n] = ev->kind;
    lg->id[lg->n] = ev->id;
    lg->a[lg->n] = ev->a;
    lg->cycle[lg->n++] = ev->cycle;
}

/* Where in the log the k-th (from 0) event of `kind` is, or RNIC_NONE. */
static uint32_t log_find(const qos_event_log *lg, uint32_t kind, uint32_t k)
{
    uint32_t i;
    for (i = 0; i < lg->n; i++)
        if (lg->kind[i] == kind && k-- == 0u)
            return i;
    return RNIC_NONE;
}

/* Tick until a BRESP comes out: its status (RNIC_ERR__COUNT when none comes in 20 cycles). */
static rnic_err next_bresp_status(rq_qos *q)
{
    rq_axi_bresp br;
    uint32_t i;
    for (i = 0; i < 20u; i++) {
        if (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            return br.status;
        rq_qos_tick(q);
    }
    return RNIC_ERR__COUNT;
}

/* Found by tests/fuzz/fuzz_qos.c (corpus: finding_line_reused_while_queued): a transfer that
 * failed while an entry of it still waited in the scheduling FIFOs (or segmenter stage 2) freed its
 * lines at once; a remote read placed on them next (read channels have no status to read first)
 * was then served from the old entry. The lines now stay occupied until stage 2 drops that entry
 * (RQ_QOS_TRACE_RELEASE). Remote read X (8 blocks, 4 TIDs) fails on a NACK with its entry waiting
 * for a TID; remote read Y, waiting for the domain's only read-channel pair, is placed only after
 * the release, and runs whole and alone. */
static void test_failed_transfer_keeps_lines_until_its_entry_leaves(void)
{
    static unsigned char memf[1u << 16];
    static rq_qos eng;
    static qos_event_log lg;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer x, y;
    rq_response r;
    rnic_work w;
    uint32_t i, k, fail, rel, place_y, y_blocks = 0;
    const uint32_t line = 32; /* domain 0's first read channel */
    small_config(&c, 2, 4, 4, 0);
    c.max_outstanding = 8;
    c.retry_limit = 0;
    c.trace = log_engine_events;
    c.trace_user = &lg;
    memset(&lg, 0, sizeof lg);
    if (!start_qos(q, &c, memf, sizeof memf))
        return;
    memset(&x, 0, sizeof x);
    x.kind = RQ_KIND_REGULAR;
    x.size = 8u * 64u;
    x.src = 0x10000;
    x.dst = 0x20000;
    y = x;
    y.size = 2u * 64u;
    y.src = 0x50000;
    y.dst = 0x60000;
    CHECK_EQ(rq_qos_push_remote_read(q, 0, &x), RNIC_OK);
    CHECK_EQ(rq_qos_push_remote_read(q, 0, &y), RNIC_OK); /* waits: X holds the only pair */
    for (i = 0; i < 40u && rq_qos_pending(q) < 4u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_pending(q), 4); /* X's blocks 0..3 hold every TID */
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK);
    CHECK_EQ(w.flow, line);
    CHECK_EQ(w.offset, 0);
    CHECK(rnic_ssfifo_is_queued(&q->sched, line)); /* white-box: X's entry waits for a TID */
    r.tid = w.aux;
    r.seq = RQ_WORK_SEQ(w.flags);
    r.ack = 0;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK); /* NACK with no retry left: ERROR */
    for (i = 0; i < 40u && log_find(&lg, RQ_QOS_TRACE_REMOTE, 1) == RNIC_NONE; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &w) == RNIC_OK) /* X's blocks 1..3 issued before it failed */
            CHECK(w.addr == 0x10000u + w.offset && w.offset >= 64u && w.offset < 256u);
    }
    fail = log_find(&lg, RQ_QOS_TRACE_COMPLETE, 0);
    rel = log_find(&lg, RQ_QOS_TRACE_RELEASE, 0);
    place_y = log_find(&lg, RQ_QOS_TRACE_REMOTE, 1);
    CHECK(fail != RNIC_NONE && rel != RNIC_NONE && place_y != RNIC_NONE);
    if (fail == RNIC_NONE || rel == RNIC_NONE || place_y == RNIC_NONE)
        return;
    CHECK_EQ(lg.id[fail], line);
    CHECK_EQ(lg.a[fail], RQ_ERROR);
    CHECK_EQ(lg.id[rel], line);
    CHECK(lg.cycle[rel] > lg.cycle[fail]); /* held while the entry waited */
    CHECK(rel < place_y);                  /* Y placed only on free lines */
    CHECK_EQ(lg.id[place_y], line);
    CHECK_EQ(log_find(&lg, RQ_QOS_TRACE_RELEASE, 1), RNIC_NONE);
    CHECK(rq_qos_get_stats(q)->remote_waits > 0u);
    for (i = 0; i < 200u && rq_qos_get_stats(q)->done == 0u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &w) == RNIC_OK) {
            CHECK_EQ(w.flow, line);
            CHECK_EQ(w.addr, 0x50000u + w.offset); /* Y's blocks only, none of X's */
            CHECK_EQ(w.raddr, 0x60000u + w.offset);
            y_blocks++;
            r.tid = w.aux;
            r.seq = RQ_WORK_SEQ(w.flags);
            r.ack = 1;
            CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
        }
    }
    CHECK_EQ(y_blocks, 2);
    CHECK_EQ(rq_qos_get_stats(q)->done, 1);
    CHECK_EQ(rq_qos_get_stats(q)->failed, 1);
    k = log_find(&lg, RQ_QOS_TRACE_COMPLETE, 1);
    CHECK(k != RNIC_NONE && lg.a[k == RNIC_NONE ? 0 : k] == RQ_DONE);
    CHECK_EQ(rq_qos_pending(q), 0);
    for (i = 0; i < 8u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_free_ids(q, RQ_POOL_TID), c.ids.tids);
    CHECK_EQ(q->occupied[line], 0); /* free again */
}

/* Found by tests/fuzz/fuzz_qos.c (corpus: regress_stale_copy_seq_alias): with a 2-bit sequence
 * space, a block whose entry was acknowledged before the send unit took it (a stale copy) carries
 * the same TID and number as the TID's next entry four numbers later; taking the stale copy
 * started the new block's timeout before the new block had left. X (TID t, number 0) is ACKed in
 * the port; Y1..Y3 take numbers 1..3; Z gets TID t and number 0 again. The send unit takes only
 * X: no entry was taken, so no timeout may fire. */
static void test_stale_copy_with_aliased_number_starts_no_timeout(void)
{
    static unsigned char memf[1u << 16];
    static rq_qos eng;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer t;
    rq_response r;
    rnic_work w, x;
    rq_axi_bresp br;
    uint64_t l0[4], l1[4];
    uint32_t i, ch;
    small_config(&c, 1, 4, 4, 0);
    c.seq_bits = 2;
    c.block_depth = 8;
    c.timeout_ns = 400; /* 60 cycles at 150 MHz */
    if (!start_qos(q, &c, memf, sizeof memf))
        return;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR;
    t.size = 64;
    t.src = 0x10000;
    t.dst = 0x20000;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, 0, l0);
    write_line128(q, 0, 1, l1);
    for (i = 0; i < 20u && rq_qos_peek_block(q, &x) != RNIC_OK; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_peek_block(q, &x), RNIC_OK); /* X waits in the port */
    CHECK_EQ(RQ_WORK_SEQ(x.flags), 0);
    r.tid = x.aux;
    r.seq = RQ_WORK_SEQ(x.flags);
    r.ack = 1;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK); /* its ACK comes before the send unit takes it */
    for (i = 0; i < 20u && rq_qos_get_stats(q)->done == 0u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->done, 1);
    for (ch = 2; ch < 10u; ch += 2u) { /* Y1, Y2, Y3, then Z */
        t.src += 0x1000;
        CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
        write_line128(q, 0, ch, l0);
        write_line128(q, 0, ch + 1u, l1);
        for (i = 0; i < 20u && rq_qos_pending(q) < ch / 2u; i++) {
            rq_qos_tick(q);
            while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
                ;
        }
    }
    CHECK_EQ(rq_qos_pending(q), 4);
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK); /* X, the stale copy */
    CHECK_EQ(w.aux, x.aux);
    CHECK_EQ(w.flow, 0);
    CHECK(q->pend[x.aux].valid && q->pend[x.aux].seq == 0u && q->pend[x.aux].line == 8u); /* white-box: Z has X's TID and number */
    for (i = 0; i < 300u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->timeouts, 0); /* nothing was taken after X */
    CHECK_EQ(rq_qos_get_stats(q)->retransmits, 0);
    while (rq_qos_pop_block(q, &w) == RNIC_OK) /* Y1..Y3, Z: taken now, their timeouts run */
        ;
    for (i = 0; i < 300u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->timeouts, 4);
}

/* BRESP and RDATA records come out with their padding bytes zero, whatever the engine memory and
 * the stack held: a caller may compare or hash records whole (the rings were filled with 0xAA). */
static void test_output_records_have_no_stale_padding(void)
{
    rq_qos_config c;
    rq_axi_bresp b;
    rq_axi_rdata r;
    uint64_t d[2] = { 0, 0 };
    size_t i;
    unsigned char pad_b = 0, pad_r = 0;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    memset(mem_buf, 0xAA, sizeof mem_buf);
    if (!start_qos(&engine, &c, mem_buf, sizeof mem_buf))
        return;
    CHECK_EQ(rq_qos_axi_write(&engine, 0, 0, d, 8), RNIC_OK);
    CHECK_EQ(rq_qos_axi_read(&engine, 0, 0, 0, 0), RNIC_OK);
    for (i = 0; i < 8u; i++)
        rq_qos_tick(&engine);
    memset(&b, 0x55, sizeof b);
    memset(&r, 0x55, sizeof r);
    CHECK_EQ(rq_qos_pop_bresp(&engine, &b), RNIC_OK);
    CHECK_EQ(rq_qos_pop_rdata(&engine, &r), RNIC_OK);
    for (i = offsetof(rq_axi_bresp, status) + sizeof b.status; i < sizeof b; i++)
        pad_b |= ((const unsigned char *)&b)[i];
    for (i = offsetof(rq_axi_rdata, status) + sizeof r.status; i < sizeof r; i++)
        pad_r |= ((const unsigned char *)&r)[i];
    CHECK_EQ(pad_b, 0);
    CHECK_EQ(pad_r, 0);
}

/* Found by tests/fuzz/fuzz_qos.c (corpus: finding_cm_empty_fid_pool): a congestion-managed
 * transfer on a valid config whose FID pool for it is empty (fids_unipath 0, or fid_groups 0 for
 * multipath) was accepted and then waited for good. It is refused now: RNIC_ENOSPC, counted, as
 * the descriptor's last beat (AXI write) or at the push (remote read); the others still run. */
static void test_cm_transfer_without_its_fid_pool_is_refused(void)
{
    static unsigned char memf[1u << 16];
    static rq_qos eng;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer t;
    uint64_t l0[4], l1[4];
    uint32_t multipath, i;
    for (multipath = 0; multipath < 2u; multipath++) {
        /* the pool this transfer needs is empty (8 TIDs in 2-block flows: 4 FIDs) */
        small_config(&c, 2, 8, multipath ? 4u : 0u, multipath ? 0u : 1u);
        c.ids.flow_blocks = 2;
        CHECK_EQ(rq_qos_config_check(&c, NULL), RNIC_OK);
        if (!start_qos(q, &c, memf, sizeof memf))
            return;
        memset(&t, 0, sizeof t);
        t.kind = RQ_KIND_REGULAR;
        t.size = 128;
        t.src = 0x1000;
        t.dst = 0x2000;
        t.cm = 1;
        t.multipath = (uint8_t)multipath;
        CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
        write_line128(q, 0, 0, l0);
        write_line128(q, 0, 1, l1);
        for (i = 0; i < 3u; i++) /* the first line (3 beats) is written */
            CHECK_EQ(next_bresp_status(q), RNIC_OK);
        CHECK_EQ(next_bresp_status(q), RNIC_ENOSPC); /* the last beat: refused */
        CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ENOSPC], 1);
        CHECK_EQ(rq_qos_get_stats(q)->descriptors, 0);
        CHECK_EQ(rq_qos_channel_status(q, 0, 0), RQ_IDLE);
        CHECK_EQ(rq_qos_push_remote_read(q, 0, &t), RNIC_ENOSPC);
        CHECK_EQ(rq_qos_get_stats(q)->errors.by_cause[RNIC_ENOSPC], 2);
        t.multipath = (uint8_t)!multipath; /* the other pool is there: accepted, and it ends */
        CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
        write_line128(q, 0, 0, l0);
        write_line128(q, 0, 1, l1);
        for (i = 0; i < 4u; i++)
            CHECK_EQ(next_bresp_status(q), RNIC_OK);
        CHECK_EQ(rq_qos_get_stats(q)->descriptors, 1);
        {
            rnic_work w;
            rq_response r;
            for (i = 0; i < 200u && rq_qos_channel_status(q, 0, 0) != RQ_DONE; i++) {
                rq_qos_tick(q);
                while (rq_qos_pop_block(q, &w) == RNIC_OK) {
                    r.tid = w.aux;
                    r.seq = RQ_WORK_SEQ(w.flags);
                    r.ack = 1;
                    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
                }
            }
        }
        CHECK_EQ(rq_qos_channel_status(q, 0, 0), RQ_DONE);
    }
}

/* Found by tests/fuzz/fuzz_qos.c (corpus: regress_stale_retransmit): a TID queued for
 * retransmission behind another one, whose entry was acknowledged before the retransmission path
 * reached it, then reused by a new block, got that new block retransmitted -- a new number for a
 * block nothing asked to resend, and a retry counted against its transfer. Inline X1 and X2 time
 * out while the 1-deep Packet queue is full (V waits in it); X2's ACK comes; its TID goes to a
 * regular block; when the queue frees, only X1 goes again. */
static void test_acked_tid_in_retransmit_queue_is_not_resent(void)
{
    static unsigned char memr[1u << 16];
    static rq_qos eng;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer t;
    rq_response r;
    rq_packet pk;
    rnic_work w;
    rq_axi_bresp br;
    uint64_t l0[4], l1[4];
    uint32_t i, ch, tid_x2 = 0, retx_blocks = 0, retx_packets = 0;
    small_config(&c, 1, 4, 4, 0);
    c.packet_depth = 1;
    c.timeout_ns = 400; /* 60 cycles at 150 MHz */
    if (!start_qos(q, &c, memr, sizeof memr))
        return;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE;
    t.size = 4;
    t.dst = 0x100;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    for (ch = 0; ch < 4u; ch += 2u) { /* X1, X2: taken by the send unit, their timeouts run */
        write_line128(q, 0, ch, l0);
        for (i = 0; i < 20u && rq_qos_peek_packet(q, &pk) != RNIC_OK; i++)
            rq_qos_tick(q);
        CHECK_EQ(rq_qos_pop_packet(q, &pk), RNIC_OK);
        tid_x2 = pk.tid;
        r.tid = pk.tid;
        r.seq = pk.seq;
        r.ack = 1;
    }
    write_line128(q, 0, 4, l0); /* V fills the Packet queue and stays there */
    for (i = 0; i < 200u && rq_qos_get_stats(q)->timeouts < 2u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->timeouts, 2); /* both wait for the Packet queue, X1 first */
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK); /* X2's ACK comes first */
    for (i = 0; i < 10u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->acks, 1);
    t.kind = RQ_KIND_REGULAR; /* regular one-block transfers until one reuses X2's TID */
    t.size = 64;
    t.dst = 0x1000;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    for (ch = 6; ch < 14u; ch += 2u) {
        write_line128(q, 0, ch, l0);
        write_line128(q, 0, ch + 1u, l1);
        for (i = 0; i < 20u && rq_qos_peek_block(q, &w) != RNIC_OK; i++) {
            rq_qos_tick(q);
            while (rq_qos_pop_bresp(q, &br) == RNIC_OK) /* (a full B FIFO stops the writes) */
                ;
        }
        CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK);
        if (w.aux == tid_x2)
            break;
    }
    CHECK_EQ(w.aux, tid_x2); /* (white-box: the state the fuzzer found) */
    CHECK_EQ(rq_qos_pop_packet(q, &pk), RNIC_OK); /* V leaves: the Packet queue has room */
    for (i = 0; i < 10u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_block(q, &w) == RNIC_OK)
            retx_blocks += (w.flags & RQ_WORK_RETRANSMIT) != 0u;
        while (rq_qos_pop_packet(q, &pk) == RNIC_OK)
            retx_packets += pk.retransmit;
    }
    CHECK_EQ(retx_packets, 1); /* X1 */
    CHECK_EQ(retx_blocks, 0);
    CHECK_EQ(rq_qos_get_stats(q)->retransmits, 1);
}

/* Found by tests/fuzz/fuzz_qos.c (corpus: regress_control_after_error): a notify transfer whose
 * completion notification was queued (N - 1 ACKs in, the last block out) and then failed (its
 * last block NACKed with no retry left) while the notification waited for the full Packet queue
 * still sent the notification and ended a second time, DONE after ERROR. */
static void test_failed_transfer_sends_no_notification(void)
{
    static unsigned char memn[1u << 16];
    static rq_qos eng;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer t;
    rq_response r;
    rq_packet pk;
    rnic_work w[2];
    rq_axi_bresp br;
    uint64_t l0[4], l1[4];
    uint32_t i, k, control = 0;
    small_config(&c, 1, 8, 8, 0);
    c.packet_depth = 1;
    c.retry_limit = 0;
    if (!start_qos(q, &c, memn, sizeof memn))
        return;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE; /* V fills the Packet queue and stays there */
    t.size = 4;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, 0, l0);
    t.kind = RQ_KIND_REGULAR; /* T: two blocks, with notification */
    t.size = 128;
    t.dst = 0x1000;
    t.notify = true;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, 2, l0);
    write_line128(q, 0, 3, l1);
    for (k = 0; k < 2u; k++) {
        for (i = 0; i < 20u && rq_qos_peek_block(q, &w[k]) != RNIC_OK; i++) {
            rq_qos_tick(q);
            while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
                ;
        }
        CHECK_EQ(rq_qos_pop_block(q, &w[k]), RNIC_OK);
    }
    r.tid = w[0].aux; /* block 0 ACKed: the notification is queued (the Packet queue is full) */
    r.seq = RQ_WORK_SEQ(w[0].flags);
    r.ack = 1;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    r.tid = w[1].aux; /* block 1 NACKed with no retry left: T fails */
    r.seq = RQ_WORK_SEQ(w[1].flags);
    r.ack = 0;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    for (i = 0; i < 20u && rq_qos_channel_status(q, 0, 2) != RQ_ERROR; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_channel_status(q, 0, 2), RQ_ERROR);
    CHECK_EQ(rq_qos_pop_packet(q, &pk), RNIC_OK); /* V leaves: the Packet queue has room */
    for (i = 0; i < 10u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_packet(q, &pk) == RNIC_OK)
            control += pk.kind == RQ_PKT_CONTROL;
    }
    CHECK_EQ(control, 0);
    CHECK_EQ(rq_qos_get_stats(q)->done, 0);
    CHECK_EQ(rq_qos_get_stats(q)->failed, 1);
    CHECK_EQ(rq_qos_channel_status(q, 0, 2), RQ_ERROR);
}

static void test_next_event_never_on_a_full_output(void)
{
    rq_qos *q = make_qos();
    rq_transfer t;
    uint64_t l0[4], l1[4], ran, cyc;
    rq_axi_bresp br;
    rnic_work w;
    uint32_t d;
    if (!q)
        return;
    CHECK(rq_qos_next_event(q) == rq_qos_now(q)); /* the ID initializer runs */
    while (!rq_qos_ready(q))
        rq_qos_tick(q);
    CHECK(rq_qos_next_event(q) == RNIC_NEVER); /* idle */
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_REGULAR;
    t.size = 40u * 65536u; /* 40 blocks, 2 outstanding: 4 transfers fill the 4-deep port */
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    for (d = 0; d < 2u; d++) { /* 8 beats: the AW FIFO's depth */
        write_line128(q, d, 0, l0);
        write_line128(q, d, 1, l1);
    }
    ran = 0;
    while (!rnic_ring_full(&q->tx) && ran < 100u) { /* each advance stops where a port filled */
        uint64_t r = rq_qos_advance(q, 1000000);
        CHECK(r < 20u);
        ran += r;
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            ;
    }
    CHECK(ran < 40u);
    CHECK(rnic_ring_full(&q->tx)); /* white-box: the port that stopped it */
    CHECK(rq_qos_next_event(q) == RNIC_NEVER); /* waits on the full port only (nothing popped: no timer) */
    cyc = rq_qos_now(q);
    CHECK_EQ(rq_qos_advance(q, 1000000), 1000000); /* already full: no new fill, one skip */
    CHECK_EQ(rq_qos_now(q), cyc + 1000000u);
    CHECK_EQ(rq_qos_advance_to(q, cyc + 1500000u), 500000);
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK); /* room again; the block's timeout is armed */
    cyc = rq_qos_now(q);
    /* (2 transfers x 2 outstanding blocks: nothing else to issue until an ACK) the next event
     * is the timeout, where the scanner reaches the TID at or after pop + 3,000 cycles */
    ran = rq_qos_next_event(q);
    CHECK(ran >= cyc + 3000u && ran < cyc + 3000u + 1024u);
    CHECK_EQ((q->scan + (ran - cyc)) % 1024u, w.aux); /* white-box: the scanner stands on the TID then */
    /* the scanner queues it at that cycle, the retransmission fills the port the cycle after */
    CHECK_EQ(rq_qos_advance(q, 1000000), ran - cyc + 2u);
    CHECK_EQ(rq_qos_get_stats(q)->timeouts, 1);
    CHECK_EQ(rq_qos_get_stats(q)->retransmits, 1);
    CHECK(rnic_ring_full(&q->tx));
    CHECK(rq_qos_next_event(q) == RNIC_NEVER);
}


/* ---- trace events: counted against the statistics, block OUT/POP events against the
 * records popped, one digest for a ticked and a fast-forwarded run, and no effect on the
 * engine (a run without a trace gives the same records) ---- */
typedef struct tr_log {
    uint64_t digest, events, by_kind[32], bad_engine, backwards, last_cycle;
} tr_log;

typedef struct tr_counts {
    uint64_t pops, pushes, refused; /* what the driver saw: records taken, inputs accepted / refused */
} tr_counts;

static void tr_hook(void *user, const rnic_trace_event *ev)
{
    tr_log *l = (tr_log *)user;
    l->digest = rnic_trace_digest_fold(l->digest, ev);
    l->events++;
    l->by_kind[ev->kind < 32u ? ev->kind : 31u]++;
    l->bad_engine += ev->engine != 77u;
    l->backwards += ev->cycle < l->last_cycle;
    l->last_cycle = ev->cycle;
}

typedef struct tr_resp {
    uint64_t at;
    rq_response r;
} tr_resp;

/* A deterministic workload: 60 transfers, a send unit draining every 300 cycles, a network
 * that loses every fifth response and NACKs every seventh. Returns a hash of every record
 * popped (with its cycle); `blocks` gets the block records in order. */
static uint64_t tr_run(rq_qos *q, int fast, rnic_work *blocks, uint32_t *nblocks, tr_counts *n)
{
    static tr_resp resp[2048];
    uint32_t nresp = 0, started = 0, i;
    uint64_t t = 0, h = 0, next_drain = 0, end = 400000;
    rnic_prng p;
    *nblocks = 0;
    memset(n, 0, sizeof *n);
    rnic_prng_seed(&p, 0x7ace);
    while (t < end) {
        uint64_t next = next_drain;
        rnic_work w;
        rq_packet pk;
        rq_axi_bresp br;
        for (i = 0; i < nresp; i++)
            if (resp[i].at < next)
                next = resp[i].at;
        if (next < t)
            next = t;
        while (rq_qos_now(q) != next) {
            if (fast)
                rq_qos_advance_to(q, next);
            else
                rq_qos_tick(q);
        }
        t = next;
        for (i = 0; i < nresp;) {
            if (resp[i].at <= t) {
                if (rq_qos_push_response(q, &resp[i].r) == RNIC_OK) {
                    n->pushes++;
                    resp[i] = resp[--nresp];
                    continue;
                }
                n->refused++;
                resp[i].at = t + 1u;
            }
            i++;
        }
        if (t != next_drain)
            continue;
        next_drain = t + 300u;
        if (t + 300u >= end) { /* the last drain: let the engine settle, take everything */
            rq_qos_advance(q, 10000);
            next_drain = end; /* and stop after it */
        }
        while (rq_qos_pop_block(q, &w) == RNIC_OK) {
            n->pops++;
            h = h * 31u + rnic_hash64(&w, sizeof w, 0);
            if (*nblocks < 4096u)
                blocks[(*nblocks)++] = w;
            if (RQ_WORK_SEQ(w.flags) % 5u != 0u && nresp < 2048u) {
                resp[nresp].at = t + 100u + w.aux % 7u; /* bunched: the response port fills */
                resp[nresp].r.tid = w.aux;
                resp[nresp].r.seq = RQ_WORK_SEQ(w.flags);
                resp[nresp].r.ack = RQ_WORK_SEQ(w.flags) % 7u != 0u;
                nresp++;
            }
        }
        while (rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            n->pops++;
            h = h * 31u + pk.cycle + pk.tid * 7u + pk.seq;
            if (pk.kind == RQ_PKT_INLINE && pk.seq % 5u != 0u && nresp < 2048u) {
                resp[nresp].at = t + 100u + pk.tid % 7u;
                resp[nresp].r.tid = pk.tid;
                resp[nresp].r.seq = pk.seq;
                resp[nresp].r.ack = 1;
                nresp++;
            }
        }
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK) {
            n->pops++;
            h = h * 31u + br.cycle;
        }
        if (next_drain == end)
            break;
        if (t == 3000u) { /* a burst of unknown TIDs: 8 fill the response port, 4 are refused */
            rq_response bogus;
            bogus.tid = 4000;
            bogus.seq = 1;
            bogus.ack = 1;
            for (i = 0; i < 12u; i++) {
                if (rq_qos_push_response(q, &bogus) == RNIC_OK)
                    n->pushes++;
                else
                    n->refused++;
            }
        }
        if (started < 60u && rq_qos_ready(q) && rq_qos_space_axi_write(q) >= 4u) {
            rq_transfer tr;
            uint64_t l[2][4];
            uint32_t d = started % 16u, ch = 2u * (started / 16u), ln, wd;
            memset(&tr, 0, sizeof tr);
            tr.size = rnic_prng_below(&p, 4) == 0 ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 33, 1u << 19);
            tr.kind = tr.size <= 32u ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
            tr.dst = rnic_prng_next(&p) >> 24;
            tr.cm = tr.kind == RQ_KIND_REGULAR && rnic_prng_below(&p, 2);
            tr.notify = tr.kind == RQ_KIND_REGULAR && rnic_prng_below(&p, 2);
            rq_desc_encode(&tr, l[0], l[1]);
            for (ln = 0; ln < rq_desc_lines(l[0][3]); ln++)
                for (wd = 0; wd < 4; wd += 2)
                    if (rq_qos_axi_write(q, d, addr_of(d, ch + ln, wd), &l[ln][wd], 16) == RNIC_OK)
                        n->pushes++;
            started++;
        }
    }
    return h;
}

static void test_trace_events(void)
{
    static unsigned char mem3[3][1u << 20];
    static rq_qos e[3];
    static tr_log lg[2];
    static rnic_work blocks[3][4096];
    uint32_t nb[3], k, i;
    uint64_t h[3];
    tr_counts cnt[3];
    rq_qos_config c;
    const char *field = NULL;
    memset(lg, 0, sizeof lg);
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    CHECK_EQ(c.trace_id, RNIC_ENGINE_QOS);
    for (k = 0; k < 3; k++) {
        c.trace = k < 2u ? tr_hook : NULL;
        c.trace_user = k < 2u ? &lg[k] : NULL;
        c.trace_id = 77;
        CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_OK);
        CHECK_EQ(rq_qos_init(&e[k], &c, mem3[k], sizeof mem3[k]), RNIC_OK);
        h[k] = tr_run(&e[k], k == 1u, blocks[k], &nb[k], &cnt[k]);
    }
    /* tracing changes nothing; ticked and fast-forwarded runs give one digest */
    CHECK_EQ(h[0], h[1]);
    CHECK_EQ(h[0], h[2]);
    CHECK_EQ(lg[0].digest, lg[1].digest);
    CHECK_EQ(lg[0].events, lg[1].events);
    for (k = 0; k < 2; k++) {
        const rq_qos_stats *st = rq_qos_get_stats(&e[k]);
        CHECK_EQ(lg[k].bad_engine, 0);
        CHECK_EQ(lg[k].backwards, 0);
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_ACCEPT], st->descriptors);
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_TIMEOUT], st->timeouts);
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_RETRANSMIT], st->retransmits);
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_ACK], st->acks);
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_NACK], st->nacks);
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_DROP], responses_dropped(st));
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_COMPLETE], st->done + st->failed);
        /* the ports: every record produced was taken by the last drain (nothing left: the
         * outputs are empty), every accepted or refused input seen by the driver was traced */
        CHECK_EQ(lg[k].by_kind[RNIC_TRACE_POP], cnt[k].pops);
        CHECK_EQ(lg[k].by_kind[RNIC_TRACE_OUT], cnt[k].pops + st->status_reads);
        /* the ids event follows every block and packet OUT: all records but the BRESPs (one a beat) */
        CHECK_EQ(lg[k].by_kind[RQ_QOS_TRACE_BLOCK_ID], cnt[k].pops - st->beats);
        CHECK_EQ(lg[k].by_kind[RNIC_TRACE_PUSH], cnt[k].pushes);
        CHECK_EQ(lg[k].by_kind[RNIC_TRACE_REFUSE], cnt[k].refused + beats_refused(st));
        CHECK(st->timeouts > 0u); CHECK(st->nacks > 0u); CHECK(st->done > 0u); CHECK(cnt[k].refused > 0u);
    }
    for (i = 0; i < nb[0] && i < nb[1]; i++)
        CHECK(memcmp(&blocks[0][i], &blocks[1][i], sizeof blocks[0][i]) == 0);
    printf("  %" PRIu64 " trace events, digest %016" PRIx64 " (ticked = fast-forwarded), %u blocks\n", lg[0].events,
           lg[0].digest, nb[0]);
}


/* The block and packet trace events in the contract's layout (docs/engine_contract.md, "Trace"):
 * OUT and POP carry a = the record's index, b = its bytes; every block or packet OUT is followed
 * at once by RQ_QOS_TRACE_BLOCK_ID with the ids the layout leaves out (tid << 32 | seq,
 * offset << 32 | RQ_QOS_OUT_BLOCK or the packet's kind); REFUSE carries a = the value refused,
 * b = the rnic_err. The expectations are the records the send unit popped and the receiver's
 * block boundaries (64-B blocks: a 160-B transfer to an aligned destination is 64 + 64 + 32 B). */
typedef struct layout_event {
    uint32_t kind, id;
    uint64_t a, b;
} layout_event;

typedef struct layout_log {
    uint32_t n;
    layout_event ev[512];
} layout_log;

static void layout_hook(void *user, const rnic_trace_event *ev)
{
    layout_log *lg = (layout_log *)user;
    if (lg->n < 512u) {
        lg->ev[lg->n].kind = ev->kind;
        lg->ev[lg->n].id = ev->id;
        lg->ev[lg->n].a = ev->a;
        lg->ev[lg->n].b = ev->b;
        lg->n++;
    }
}

/* The last event is `kind` with these fields. */
static void check_last(const layout_log *lg, uint32_t kind, uint32_t id, uint64_t a, uint64_t b)
{
    CHECK(lg->n > 0u);
    if (lg->n == 0u)
        return;
    CHECK_EQ(lg->ev[lg->n - 1u].kind, kind);
    CHECK_EQ(lg->ev[lg->n - 1u].id, id);
    CHECK_EQ(lg->ev[lg->n - 1u].a, a);
    CHECK_EQ(lg->ev[lg->n - 1u].b, b);
}

/* Run an inline transfer on `channel` to DONE and read its status (cleared): the line's next
 * transfer gets index 1, so an index in a trace event is not 0 by accident. */
static void layout_warm_channel(rq_qos *q, layout_log *lg, uint32_t channel)
{
    rq_transfer t;
    rq_packet pk;
    rq_response r;
    rq_axi_bresp br;
    rq_axi_rdata rd;
    uint64_t l0[4], l1[4];
    uint32_t i;
    memset(&t, 0, sizeof t);
    t.kind = RQ_KIND_INLINE;
    t.size = 4;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, channel, l0);
    for (i = 0; i < 20u && rq_qos_pop_packet(q, &pk) != RNIC_OK; i++)
        rq_qos_tick(q);
    CHECK_EQ(pk.transfer, channel);
    CHECK_EQ(pk.index, 0);
    check_last(lg, RNIC_TRACE_POP, channel, 0, 4);
    r.tid = pk.tid;
    r.seq = pk.seq;
    r.ack = 1;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    for (i = 0; i < 20u && rq_qos_channel_status(q, 0, channel) != RQ_DONE; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_axi_read(q, 0, 0, channel, 0), RNIC_OK);
    for (i = 0; i < 4u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_rdata(q, &rd), RNIC_OK);
    CHECK_EQ(rd.data, RQ_DONE);
    while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
        ;
}

static void test_trace_block_and_packet_layout(void)
{
    static unsigned char meml[1u << 16];
    static rq_qos eng;
    static layout_log lg;
    rq_qos *q = &eng;
    rq_qos_config c;
    rq_transfer t;
    rq_response r;
    rq_packet pk, pks[8];
    rnic_work w, blocks[8];
    rq_axi_bresp br;
    uint64_t l0[4], l1[4], d[2] = { 1, 2 };
    uint32_t i, k, nb = 0, np = 0, nout = 0, nid = 0, bi = 0, pi = 0, nacked = 0, control = 0;
    uint32_t first_offsets = 0, retx = 0;
    small_config(&c, 1, 8, 8, 0);
    c.trace = layout_hook;
    c.trace_user = &lg;
    memset(&lg, 0, sizeof lg);
    if (!start_qos(q, &c, meml, sizeof meml))
        return;
    layout_warm_channel(q, &lg, 0);
    layout_warm_channel(q, &lg, 2);
    lg.n = 0;
    memset(&t, 0, sizeof t); /* V: inline, 4 B, channel 0 (index 1) */
    t.kind = RQ_KIND_INLINE;
    t.size = 4;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, 0, l0);
    t.kind = RQ_KIND_REGULAR; /* T: 160 B to 0x1000 with notification, channels 2-3 (index 1) */
    t.size = 160;
    t.src = 0x8000;
    t.dst = 0x1000;
    t.notify = true;
    CHECK_EQ(rq_desc_encode(&t, l0, l1), RNIC_OK);
    write_line128(q, 0, 2, l0);
    write_line128(q, 0, 3, l1);
    /* the send unit takes everything; block 1 is NACKed once, the rest ACKed */
    for (i = 0; i < 400u && control == 0u; i++) {
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &br) == RNIC_OK)
            ;
        while (nb < 8u && rq_qos_pop_block(q, &w) == RNIC_OK) {
            check_last(&lg, RNIC_TRACE_POP, w.flow, w.index, w.len); /* POP: index, len */
            blocks[nb++] = w;
            r.tid = w.aux;
            r.seq = RQ_WORK_SEQ(w.flags);
            r.ack = !(w.offset == 64u && nacked++ == 0u);
            CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
        }
        while (np < 8u && rq_qos_pop_packet(q, &pk) == RNIC_OK) {
            check_last(&lg, RNIC_TRACE_POP, pk.transfer, pk.index, pk.size); /* POP: index, size */
            pks[np++] = pk;
            control += pk.kind == RQ_PKT_CONTROL;
            if (pk.kind == RQ_PKT_INLINE) {
                r.tid = pk.tid;
                r.seq = pk.seq;
                r.ack = 1;
                CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
            }
        }
    }
    CHECK_EQ(nb, 4);      /* 3 blocks and block 1 again */
    CHECK_EQ(np, 2);      /* V's inline packet and T's notification */
    CHECK_EQ(control, 1);
    for (k = 0; k < nb; k++) { /* the receiver's boundaries, T's index on its line */
        CHECK_EQ(blocks[k].flow, 2);
        CHECK_EQ(blocks[k].index, 1);
        if (blocks[k].flags & RQ_WORK_RETRANSMIT) {
            CHECK_EQ(blocks[k].offset, 64);
            CHECK_EQ(blocks[k].len, 64);
            retx++;
        } else {
            CHECK_EQ(blocks[k].len, blocks[k].offset == 128u ? 32u : 64u);
            first_offsets |= 1u << (blocks[k].offset / 64u);
        }
    }
    CHECK_EQ(first_offsets, 7); /* 0, 64, 128 once each */
    CHECK_EQ(retx, 1);
    CHECK(pks[0].kind == RQ_PKT_INLINE && pks[0].transfer == 0u && pks[0].index == 1u && pks[0].size == 4u);
    CHECK(pks[1].kind == RQ_PKT_CONTROL && pks[1].transfer == 2u && pks[1].index == 1u);
    /* every block / packet OUT, in order, against the records popped from its port */
    for (k = 0; k < lg.n; k++) {
        const layout_event *e = &lg.ev[k], *id = k + 1u < lg.n ? &lg.ev[k + 1u] : NULL;
        if (e->kind == RQ_QOS_TRACE_BLOCK_ID) {
            nid++;
            CHECK(k > 0u && lg.ev[k - 1u].kind == RNIC_TRACE_OUT && lg.ev[k - 1u].id == e->id);
        }
        if (e->kind != RNIC_TRACE_OUT || !id || id->kind != RQ_QOS_TRACE_BLOCK_ID)
            continue; /* a BRESP's OUT has no ids event */
        nout++;
        CHECK_EQ(id->id, e->id);
        if ((uint32_t)id->b == RQ_QOS_OUT_BLOCK) {
            CHECK(bi < nb);
            if (bi >= nb)
                continue;
            w = blocks[bi++];
            CHECK_EQ(e->id, w.flow);
            CHECK_EQ(e->a, w.index);
            CHECK_EQ(e->b, w.len);
            CHECK_EQ(id->a, ((uint64_t)w.aux << 32) | RQ_WORK_SEQ(w.flags));
            CHECK_EQ(id->b, ((uint64_t)w.offset << 32) | RQ_QOS_OUT_BLOCK);
        } else {
            CHECK(pi < np);
            if (pi >= np)
                continue;
            pk = pks[pi++];
            CHECK_EQ(e->id, pk.transfer);
            CHECK_EQ(e->a, pk.index);
            CHECK_EQ(e->b, pk.size);
            CHECK_EQ(id->a, ((uint64_t)pk.tid << 32) | pk.seq);
            CHECK_EQ(id->b, pk.kind); /* offset 0 */
        }
    }
    CHECK_EQ(bi, nb);
    CHECK_EQ(pi, np);
    CHECK_EQ(nout, nb + np);
    CHECK_EQ(nid, nb + np);
    /* REFUSE: a = the value refused, b = the code */
    CHECK_EQ(rq_qos_push_response(q, NULL), RNIC_EINVAL);
    check_last(&lg, RNIC_TRACE_REFUSE, 0, 0, RNIC_EINVAL);
    r.tid = 4000; /* unknown: the port fills before the handler drops them */
    r.seq = 5;
    r.ack = 1;
    for (i = 0; i < c.response_depth; i++)
        CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_EBUSY);
    check_last(&lg, RNIC_TRACE_REFUSE, 4000, 5, RNIC_EBUSY);
    k = lg.n;
    CHECK_EQ(rq_qos_axi_write(q, 0, addr_of(0, 5, 0) | 4u, d, 8), RNIC_OK); /* misaligned: the write stage refuses it */
    for (i = 0; i < 4u && rq_qos_pop_bresp(q, &br) != RNIC_OK; i++)
        rq_qos_tick(q);
    CHECK_EQ(br.status, RNIC_EALIGN);
    for (i = k; i < lg.n && lg.ev[i].kind != RNIC_TRACE_REFUSE; i++)
        ;
    CHECK(i < lg.n);
    if (i < lg.n) {
        CHECK_EQ(lg.ev[i].id, 5);
        CHECK_EQ(lg.ev[i].a, addr_of(0, 5, 0) | 4u);
        CHECK_EQ(lg.ev[i].b, RNIC_EALIGN);
    }
}

/* config_check names the bad field; clock_hz converts the timeout (20 us: 3,000 cycles at
 * 150 MHz, 6,000 at 300 MHz -- the thesis's 4,000 at its 200 MHz send-unit clock). */
static void test_config_check_and_clock(void)
{
    static unsigned char mem[1u << 20];
    static rq_qos e;
    rq_qos_config c;
    const char *field = NULL;
    rq_qos_config_default(&c);
    CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_OK);
    CHECK_EQ(c.timeout_ns, 20000);
    CHECK_EQ(c.clock_hz, 250000000u); /* every engine's default clock */
    CHECK_EQ(rq_qos_init(&e, &c, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(rq_qos_timeout_cycles(&e), 5000);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock */
    CHECK_EQ(rq_qos_init(&e, &c, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(rq_qos_timeout_cycles(&e), 3000);
    c.clock_hz = 200000000u;
    CHECK_EQ(rq_qos_init(&e, &c, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(rq_qos_timeout_cycles(&e), 4000);
    c.clock_hz = 300000000u;
    CHECK_EQ(rq_qos_init(&e, &c, mem, sizeof mem), RNIC_OK);
    CHECK_EQ(rq_qos_timeout_cycles(&e), 6000);
    c.timeout_ns = 1; /* 0.3 cycles: no timeout at all */
    CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "timeout_ns") == 0);
    CHECK_EQ(rq_qos_mem_size(&c), 0);
    CHECK_EQ(rq_qos_init(&e, &c, mem, sizeof mem), RNIC_EINVAL);
    rq_qos_config_default(&c);
    c.write_channels = 48;
    CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "write_channels") == 0);
    rq_qos_config_default(&c);
    c.clock_hz = 1000;
    CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "clock_hz") == 0);
    rq_qos_config_default(&c);
    c.max_outstanding = 16; /* beyond the 4-bit outstanding counter */
    CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "max_outstanding") == 0);
    rq_qos_config_default(&c);
    c.ids.tids = 100;
    CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "ids") == 0);
    CHECK_EQ(rq_qos_config_check(NULL, &field), RNIC_EINVAL);
    CHECK_EQ(rq_qos_config_check(&c, NULL), RNIC_EINVAL); /* field may be NULL */
}

int main(void)
{
    RUN(test_inline_descriptor_timing);
    RUN(test_host_path_rates);
    RUN(test_write_errors);
    RUN(test_accumulators_per_domain);
    RUN(test_status_reads);
    RUN(test_random_descriptors_land_in_their_queues);
    RUN(test_end_to_end_random_transfers);
    RUN(test_fast_forward_matches_ticks);
    RUN(test_remote_reads);
    RUN(test_bad_responses);
    RUN(test_null_pointers_peeks_and_space);
    RUN(test_next_event_never_on_a_full_output);
    RUN(test_advance_at_the_last_cycle_before_the_wrap);
    RUN(test_failed_transfer_emits_no_stage3_block);
    RUN(test_acked_tid_in_retransmit_queue_is_not_resent);
    RUN(test_failed_transfer_keeps_lines_until_its_entry_leaves);
    RUN(test_cm_transfer_without_its_fid_pool_is_refused);
    RUN(test_stale_copy_with_aliased_number_starts_no_timeout);
    RUN(test_output_records_have_no_stale_padding);
    RUN(test_failed_transfer_sends_no_notification);
    RUN(test_advance_is_ticking_with_full_outputs_and_wrap);
    RUN(test_trace_events);
    RUN(test_trace_block_and_packet_layout);
    RUN(test_config_check_and_clock);
    return test_summary();
}
