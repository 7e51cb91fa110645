/* The RED-SEA QoS engine where the thesis (seed 004) fixes the hardware's behaviour at the cycle:
 * the message handler's 3-state FSM (§3.11: one response per 3 cycles), the tid_bitmap that holds
 * a congestion-managed flow back until its next TID is acknowledged (§3.2, §3.9.2 iii), Transfer
 * Table port 0 shared by local and remote descriptor writes (§3.1), the Pending Transactions
 * Table's port shared by the handler and the timeout FSM (§3.5), and the single accumulator set
 * the thesis was built and tested with (§3.6.1 i). Each expectation comes from the thesis's
 * text, not from the engine. */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "test.h"

static unsigned char mem_buf[1u << 20];
static rq_qos engine;

typedef struct ev_log {
    uint32_t n;
    uint16_t kind[4096];
    uint64_t cycle[4096];
    uint32_t id[4096];
} ev_log;
static ev_log lg;

static void hook(void *user, const rnic_trace_event *ev)
{
    ev_log *l = (ev_log *)user;
    if (l->n < 4096u) {
        l->kind[l->n] = ev->kind;
        l->cycle[l->n] = ev->cycle;
        l->id[l->n] = ev->id;
        l->n++;
    }
}

static rq_qos *make(rq_qos_config *c)
{
    memset(&lg, 0, sizeof lg);
    c->trace = hook;
    c->trace_user = &lg;
    CHECK(rq_qos_mem_size(c) > 0 && rq_qos_mem_size(c) <= sizeof mem_buf);
    if (rq_qos_init(&engine, c, mem_buf, sizeof mem_buf) != RNIC_OK)
        return NULL;
    while (!rq_qos_ready(&engine))
        rq_qos_tick(&engine);
    return &engine;
}

static uint32_t addr_of(uint32_t domain, uint32_t channel, uint32_t word) { return ((domain * 128u + channel) << 5) | (word << 3); }

/* A descriptor as 128-bit beats (two per line). */
static void write_desc(rq_qos *q, uint32_t domain, uint32_t channel, const rq_transfer *t)
{
    uint64_t l[2][4], d[2];
    uint32_t ln, w;
    CHECK_EQ(rq_desc_encode(t, l[0], l[1]), RNIC_OK);
    for (ln = 0; ln < rq_desc_lines(l[0][3]); ln++)
        for (w = 0; w < 4; w += 2) {
            d[0] = l[ln][w];
            d[1] = l[ln][w + 1u];
            CHECK_EQ(rq_qos_axi_write(q, domain, addr_of(domain, channel + ln, w), d, 16), RNIC_OK);
        }
}

static void regular(rq_transfer *t, uint64_t size, bool cm, bool multipath)
{
    memset(t, 0, sizeof *t);
    t->kind = RQ_KIND_REGULAR;
    t->src = 1ull << 32;
    t->dst = 1ull << 36; /* block aligned: size / 64 KB blocks */
    t->size = size;
    t->cm = cm;
    t->multipath = multipath;
}

static void drain_bresps(rq_qos *q)
{
    rq_axi_bresp b;
    while (rq_qos_pop_bresp(q, &b) == RNIC_OK)
        CHECK_EQ(b.status, RNIC_OK);
}

/* §3.11: S1 accepts a response, S2 reads the pending entry, S3 the metadata -- a 3-state FSM,
 * so with responses waiting the handler applies one ACK every 3 cycles. */
static void test_handler_one_ack_per_three_cycles(void)
{
    rq_qos_config c;
    rq_qos *q;
    rq_transfer t;
    rnic_work w[8];
    rq_response r;
    uint32_t i, n = 0, acks = 0;
    uint64_t at[8];
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    c.block_depth = 16;
    if (!(q = make(&c)))
        return;
    regular(&t, 1000, false, false); /* one block each, no requeue: the segmenter stays idle */
    for (i = 0; i < 8u; i++) {
        t.dst = (1ull << 36) + ((uint64_t)i << 20);
        write_desc(q, 0, 2u * i, &t);
        while (rq_qos_space_axi_write(q) < 4u)
            rq_qos_tick(q), drain_bresps(q);
    }
    for (i = 0; i < 100u; i++)
        rq_qos_tick(q), drain_bresps(q);
    while (n < 8u && rq_qos_pop_block(q, &w[n]) == RNIC_OK)
        n++;
    CHECK_EQ(n, 8);
    for (i = 0; i < n; i++) { /* all eight responses wait in the port at once */
        r.tid = w[i].aux;
        r.seq = RQ_WORK_SEQ(w[i].flags);
        r.ack = 1;
        CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    }
    lg.n = 0;
    for (i = 0; i < 60u; i++)
        rq_qos_tick(q);
    for (i = 0; i < lg.n; i++)
        if (lg.kind[i] == RQ_QOS_TRACE_ACK && acks < 8u)
            at[acks++] = lg.cycle[i];
    CHECK_EQ(acks, 8);
    for (i = 1; i < acks; i++)
        CHECK_EQ(at[i] - at[i - 1u], 3);
    CHECK_EQ(rq_qos_get_stats(q)->done, 8);
}

/* §3.2 / §3.9.2 iii: a congestion-managed unipath flow has 4 TIDs, (FID << 2) + k, given in
 * turn; with up to 6 blocks allowed in flight the fifth block must wait until the first
 * block's TID is acknowledged. The wait is at stage 1 (the queue is passed over, counted), so
 * a transfer in a lower-priority queue still gets its blocks out meanwhile. */
static void test_tid_bitmap_holds_the_flow(void)
{
    rq_qos_config c;
    rq_qos *q;
    rq_transfer t;
    rnic_work w;
    rq_response r;
    uint32_t i, cm_blocks = 0, other_blocks = 0, fid = 0, first_tid = 0, first_seq = 0;
    uint64_t stalls;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    c.max_outstanding = 6; /* more than ids.flow_blocks = 4: legal, the 4-bit counter allows 15 */
    c.block_depth = 64;
    if (!(q = make(&c)))
        return;
    regular(&t, 8u * 65536u, true, false); /* 8 blocks, CM, unipath */
    write_desc(q, 0, 0, &t);
    for (i = 0; i < 40u; i++)
        rq_qos_tick(q), drain_bresps(q);
    regular(&t, 4u * 65536u, true, true); /* multipath: served after the unipath have-FID queues */
    t.dst = 1ull << 40;
    write_desc(q, 0, 2, &t);
    for (i = 0; i < 200u; i++)
        rq_qos_tick(q), drain_bresps(q);
    while (rq_qos_pop_block(q, &w) == RNIC_OK) {
        if (w.flow == 0u) {
            if (cm_blocks == 0u) {
                fid = w.aux >> 2;
                first_tid = w.aux;
                first_seq = RQ_WORK_SEQ(w.flags);
            }
            CHECK_EQ(w.aux, (fid << 2) + cm_blocks % 4u); /* its TIDs in turn */
            cm_blocks++;
        } else {
            other_blocks++;
        }
    }
    CHECK_EQ(cm_blocks, 4); /* four TIDs in flight: the fifth block waits at the tid_bitmap */
    CHECK_EQ(other_blocks, 4); /* not stuck behind it */
    stalls = rq_qos_get_stats(q)->seg_stalls_tid;
    CHECK(stalls > 100u); /* counted every cycle the head waited */
    for (i = 0; i < 50u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_get_stats(q)->seg_stalls_tid, stalls + 50u);
    /* waiting for an ACK is waiting for input: fast-forward may skip to the first timeout */
    CHECK(rq_qos_next_event(q) > rq_qos_now(q) + 1000u);
    r.tid = first_tid;
    r.seq = first_seq;
    r.ack = 1;
    CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
    for (i = 0; i < 20u; i++)
        rq_qos_tick(q);
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK);
    CHECK_EQ(w.flow, 0);
    CHECK_EQ(w.aux, first_tid); /* block 4 reuses the acknowledged TID */
    CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_EEMPTY);
}

/* §3.1: Transfer Table port 0 takes the descriptor writes of the local CPUs (AXI) and of remote
 * ones (remote read requests), one line per cycle. Local first: a remote read whose line would
 * be written in the cycle an AXI line completes waits a cycle; a two-line remote descriptor
 * takes two cycles. */
static void test_table_port0_is_shared(void)
{
    rq_qos_config c;
    rq_qos *q;
    rq_transfer t, rt;
    uint64_t c0, remote_at = 0;
    uint32_t i;
    rq_qos_config_default(&c);
    c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
    if (!(q = make(&c)))
        return;
    regular(&t, 4096, false, false); /* two lines: 4 beats, line 0 complete with beat 2 */
    memset(&rt, 0, sizeof rt);
    rt.kind = RQ_KIND_INLINE;
    rt.size = 8; /* a one-line remote descriptor */
    rt.dst = 0x1000;
    c0 = rq_qos_now(q);
    write_desc(q, 1, 4, &t); /* beats handled at c0 + 1 .. c0 + 4; line 0 written at c0 + 2 */
    rq_qos_tick(q);          /* c0 */
    rq_qos_tick(q);          /* c0 + 1 */
    CHECK_EQ(rq_qos_push_remote_read(q, 1, &rt), RNIC_OK); /* would be written at c0 + 2 */
    lg.n = 0;
    for (i = 0; i < 10u; i++)
        rq_qos_tick(q), drain_bresps(q);
    for (i = 0; i < lg.n; i++)
        if (lg.kind[i] == RQ_QOS_TRACE_REMOTE)
            remote_at = lg.cycle[i];
    CHECK_EQ(remote_at, c0 + 3u);
    CHECK_EQ(rq_qos_get_stats(q)->table_port_waits, 1);
    CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 2);
    /* a two-line remote descriptor with the port free: line 1 in cycle t, line 2 and the
     * enqueue in t + 1 */
    regular(&rt, 100000, false, false);
    c0 = rq_qos_now(q);
    CHECK_EQ(rq_qos_push_remote_read(q, 2, &rt), RNIC_OK);
    lg.n = 0;
    remote_at = 0;
    for (i = 0; i < 10u; i++)
        rq_qos_tick(q);
    for (i = 0; i < lg.n; i++)
        if (lg.kind[i] == RQ_QOS_TRACE_REMOTE)
            remote_at = lg.cycle[i];
    CHECK_EQ(remote_at, c0 + 1u);
    CHECK_EQ(rq_qos_get_stats(q)->table_port_waits, 1);
}

/* §3.6.1 i: the thesis was built with one accumulator set; a descriptor write from another
 * domain that interleaves gets BRESP = ERROR, the interrupted one completes. With one set per
 * domain (the default, the thesis's recommendation) both complete. */
static void test_single_accumulator(void)
{
    uint32_t sets;
    for (sets = 0; sets < 2u; sets++) {
        rq_qos_config c;
        rq_qos *q;
        rq_transfer t;
        uint64_t l[2][4], d[2];
        rq_axi_bresp b;
        uint32_t i, errs = 0, err_domain = 99;
        rq_qos_config_default(&c);
        c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
        c.accumulators = sets == 0u ? 1u : c.domains;
        if (!(q = make(&c)))
            return;
        memset(&t, 0, sizeof t);
        t.kind = RQ_KIND_INLINE;
        t.size = 8;
        t.dst = 0x2000;
        CHECK_EQ(rq_desc_encode(&t, l[0], l[1]), RNIC_OK);
        d[0] = l[0][0];
        d[1] = l[0][1];
        CHECK_EQ(rq_qos_axi_write(q, 3, addr_of(3, 6, 0), d, 16), RNIC_OK); /* domain 3 starts */
        CHECK_EQ(rq_qos_axi_write(q, 5, addr_of(5, 8, 0), d, 16), RNIC_OK); /* domain 5 interleaves */
        d[0] = l[0][2];
        d[1] = l[0][3];
        CHECK_EQ(rq_qos_axi_write(q, 3, addr_of(3, 6, 2), d, 16), RNIC_OK);
        CHECK_EQ(rq_qos_axi_write(q, 5, addr_of(5, 8, 2), d, 16), RNIC_OK);
        for (i = 0; i < 10u; i++)
            rq_qos_tick(q);
        while (rq_qos_pop_bresp(q, &b) == RNIC_OK)
            if (b.status != RNIC_OK) {
                errs++;
                err_domain = b.domain;
                CHECK_EQ(b.status, RNIC_ESTATE);
            }
        CHECK_EQ(rq_qos_channel_status(q, 3, 6), RQ_BUSY); /* the interrupted write completes */
        if (sets == 0u) {
            CHECK_EQ(errs, 1); /* domain 5's interleaving beat */
            CHECK_EQ(err_domain, 5);
            CHECK_EQ(rq_qos_channel_status(q, 5, 8), RQ_IDLE);
            CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 1);
            /* its second beat found the set free again and waits there for its words 0..1:
             * the one shared set is busy for every domain */
            CHECK(!rq_qos_domain_idle(q, 3) && !rq_qos_domain_idle(q, 5));
        } else {
            CHECK_EQ(errs, 0);
            CHECK(rq_qos_domain_idle(q, 3) && rq_qos_domain_idle(q, 5));
            CHECK_EQ(rq_qos_channel_status(q, 5, 8), RQ_BUSY);
            CHECK_EQ(rq_qos_get_stats(q)->transfers_enqueued, 2);
        }
    }
    {
        rq_qos_config c;
        const char *field = NULL;
        rq_qos_config_default(&c);
        c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
        c.accumulators = 2;
        CHECK_EQ(rq_qos_config_check(&c, &field), RNIC_EINVAL);
        CHECK(field && strcmp(field, "accumulators") == 0);
    }
}

/* §3.5: the timeout FSM reads the Pending Transactions Table through a port the message handler
 * also uses. A response the handler takes (S1 reads the table) makes the scanner wait a cycle:
 * one block's timeout comes exactly one cycle later than in a run without that response, and
 * fast-forward (rq_qos_advance, rq_qos_next_event) agrees with ticking. */
static void test_scanner_shares_the_pending_port(void)
{
    static unsigned char mem2[3][1u << 20];
    static rq_qos e[3];
    uint64_t timeout_at[3] = {0, 0, 0}, predicted = 0;
    uint32_t k;
    for (k = 0; k < 3u; k++) { /* 0: no stale response; 1: one, ticked; 2: one, fast-forwarded */
        rq_qos_config c;
        rq_qos *q = &e[k];
        rq_transfer t;
        rnic_work w;
        rq_response r;
        uint32_t i;
        rq_qos_config_default(&c);
        c.clock_hz = 150000000u; /* the thesis's FPGA clock (the default is 250 MHz) */
        CHECK_EQ(rq_qos_init(q, &c, mem2[k], sizeof mem2[k]), RNIC_OK);
        while (!rq_qos_ready(q))
            rq_qos_tick(q);
        regular(&t, 1000, false, false);
        write_desc(q, 0, 0, &t);
        for (i = 0; i < 20u; i++)
            rq_qos_tick(q);
        CHECK_EQ(rq_qos_pop_block(q, &w), RNIC_OK); /* taken: its timeout runs */
        for (i = 0; i < 100u; i++)
            rq_qos_tick(q);
        if (k > 0u) {
            r.tid = 600; /* an unknown TID: S1 reads the table, S2 drops it */
            r.seq = 0;
            r.ack = 1;
            CHECK_EQ(rq_qos_push_response(q, &r), RNIC_OK);
        }
        if (k < 2u) {
            for (i = 0; i < 5000u && rq_qos_get_stats(q)->timeouts == 0; i++)
                rq_qos_tick(q);
            timeout_at[k] = rq_qos_now(q) - 1u;
        } else {
            for (i = 0; i < 5u; i++)
                rq_qos_tick(q); /* the response is handled; quiet from here */
            predicted = rq_qos_next_event(q);
            while (rq_qos_get_stats(q)->timeouts == 0 && rq_qos_advance(q, 1000) > 0)
                ;
            timeout_at[k] = rq_qos_get_stats(q)->timeouts ? predicted : 0;
            CHECK(rq_qos_now(q) > predicted);
        }
        CHECK_EQ(rq_qos_get_stats(q)->timeouts, 1);
        CHECK_EQ(rq_qos_get_stats(q)->scan_waits, k > 0u ? 1u : 0u);
        CHECK_EQ(rq_qos_get_stats(q)->reasons.response_stale + rq_qos_get_stats(q)->reasons.response_unknown, k > 0u ? 1u : 0u);
    }
    CHECK(timeout_at[0] > 3000u);
    CHECK_EQ(timeout_at[1], timeout_at[0] + 1u); /* the scanner is one entry behind */
    CHECK_EQ(timeout_at[2], timeout_at[1]);      /* next_event predicted it exactly */
}

int main(void)
{
    RUN(test_handler_one_ack_per_three_cycles);
    RUN(test_tid_bitmap_holds_the_flow);
    RUN(test_table_port0_is_shared);
    RUN(test_single_accumulator);
    RUN(test_scanner_shares_the_pending_port);
    return test_summary();
}
