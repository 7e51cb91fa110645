/* The RED-SEA QoS engine's host side (AXI descriptor writes, status reads, the enqueue into
 * the scheduling FIFOs) against the thesis's timing (§3.6, §4.2.1), its error cases, and an
 * independent expectation of where every accepted transfer lands. */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "test.h"

static unsigned char mem_buf[1u << 20];
static rq_qos engine;

static rq_qos *make_qos(void)
{
    rq_qos_config c;
    rq_qos_config_default(&c);
    CHECK(rq_qos_mem_size(&c) > 0 && rq_qos_mem_size(&c) <= sizeof mem_buf);
    if (rq_qos_init(&engine, &c, mem_buf, sizeof mem_buf) != RNIC_OK)
        return NULL;
    return &engine;
}

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

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
    CHECK_EQ(rq_status_peek(&q->status, 3, 5), RQ_IDLE);
    rq_qos_tick(q); /* cycle 2: second word, table write, enqueue */
    CHECK_EQ(rq_qos_pop_bresp(q, &r), RNIC_OK);
    CHECK_EQ(r.cycle, 2);
    CHECK_EQ(r.status, RNIC_OK);
    CHECK_EQ(rq_status_peek(&q->status, 3, 5), RQ_BUSY);
    CHECK_EQ(rnic_ssfifo_peek(&q->sched, RQ_QUEUE_TID_ONLY), 3u * 128u + 5u);
    CHECK(rnic_ssfifo_ready(&q->sched, RQ_QUEUE_TID_ONLY)); /* cycle 3: the segmenter may dequeue */
    CHECK_EQ(q->stats.transfers_enqueued, 1);
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
        while (ch < 50u && rnic_ring_space(&q->aw) >= 2u) {
            write_line128(q, ch % 16u, ch / 16u, l0);
            ch++;
        }
        rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
            last_done = (uint32_t)r.cycle;
    }
    while (q->stats.beats < 100u && cyc < 1000u) {
        rq_qos_tick(q);
        cyc++;
        while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
            last_done = (uint32_t)r.cycle;
    }
    CHECK_EQ(q->stats.beats, 100);
    CHECK_EQ(last_done, 100); /* cycles 0..100: 101 cycles */
    CHECK_EQ(q->stats.transfers_enqueued, 50); /* one per 2 cycles */
    CHECK_EQ(q->stats.beats_refused, 0);
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
    CHECK_EQ(q->stats.errors.by_cause[RNIC_EALIGN], 3);
    CHECK_EQ(q->stats.errors.by_cause[RNIC_EPERM], 2);
    CHECK_EQ(q->stats.errors.by_cause[RNIC_ENOENT], 2);
    CHECK_EQ(q->acc[0].line, RNIC_NONE); /* nothing reached an accumulator */
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
    CHECK_EQ(q->stats.errors.by_cause[RNIC_EBUSY], 2);
    CHECK_EQ(q->stats.transfers_enqueued, 1);
    /* size 0: the descriptor is refused when its last line completes; the channel stays IDLE */
    l0[2] = 0;
    write_line128(q, 0, 7, l0);
    for (i = 0; i < 3; i++)
        rq_qos_tick(q);
    while (rq_qos_pop_bresp(q, &r) == RNIC_OK)
        ;
    CHECK_EQ(r.status, RNIC_EINVAL);
    CHECK_EQ(rq_status_peek(&q->status, 0, 7), RQ_IDLE);
    CHECK_EQ(q->stats.descriptors_refused, 1);
    /* the AW FIFO holds 8 beats: the ninth push is back-pressure */
    for (i = 0; i < 8; i++)
        CHECK_EQ(rq_qos_axi_write(q, 5, addr_of(5, 1, 0), d, 8), RNIC_OK);
    CHECK_EQ(rq_qos_axi_write(q, 5, addr_of(5, 1, 0), d, 8), RNIC_EBUSY);
    CHECK_EQ(q->stats.port_full, 1);
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
    CHECK_EQ(q->stats.transfers_enqueued, 2);
    CHECK_EQ(rq_status_peek(&q->status, 2, 10), RQ_BUSY);
    CHECK_EQ(rq_status_peek(&q->status, 9, 11), RQ_BUSY);
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
    CHECK_EQ(q->stats.errors.by_cause[RNIC_ESTATE], 1);
    CHECK_EQ(rq_status_peek(&q->status, 4, 20), RQ_BUSY);
    CHECK_EQ(rq_status_peek(&q->status, 4, 21), RQ_IDLE);
    CHECK_EQ(q->stats.transfers_enqueued, 3);
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
    CHECK_EQ(q->stats.errors.by_cause[RNIC_EPERM], 1);
}

/* Random valid descriptors (1- and 2-line, inline and regular) from random domains, as 64-
 * and 128-bit beats in random order within each line, domains interleaved beat by beat: every
 * one is accepted and lands in the queue an independent rule names, in completion order. */
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
        static rq_axi_beat beats[N * 8];
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
                        rq_axi_beat *b = &beats[nb++];
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
                        rq_axi_beat *b = &beats[nb++];
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
                if (nlive && !rnic_ring_full(&q->aw)) {
                    k = (uint32_t)rnic_prng_below(&p, nlive);
                    {
                        rq_axi_beat *b = &beats[stream_first[live[k]] + pos[k]];
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
    CHECK_EQ(q->stats.transfers_enqueued, N);
    CHECK_EQ(q->stats.beats_refused, 0);
    /* every queue holds its transfers; every transfer is in the queue the rule names */
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
    CHECK_EQ(seen, N);
    for (i = 0; i < N; i++)
        CHECK_EQ(rq_status_peek(&q->status, order[i] / 128u, order[i] % 128u), RQ_BUSY);
}

int main(void)
{
    RUN(test_inline_descriptor_timing);
    RUN(test_host_path_rates);
    RUN(test_write_errors);
    RUN(test_accumulators_per_domain);
    RUN(test_status_reads);
    RUN(test_random_descriptors_land_in_their_queues);
    return test_summary();
}
