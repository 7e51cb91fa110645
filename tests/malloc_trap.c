/* Tick paths never allocate: linked with -Wl,--wrap=malloc,... every allocation after the
 * trap is armed is counted. The scenario drives every common structure and every engine's
 * tick path (Tassel, Palos, the QoS engine, Tonic, the three hostcc.h engines) with the trap
 * armed; a self-test proves the trap does catch a call. */
#include <stdlib.h>
#include <string.h>
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "test.h"
#include "exercise.h"

/* volatile: the compiler knows malloc's builtin semantics ("reads no globals") and would
 * otherwise drop the stores around an allocation. */
static volatile int trap_armed;
static volatile unsigned long trapped;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_malloc(size_t n) { trapped += (unsigned long)trap_armed; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { trapped += (unsigned long)trap_armed; return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { trapped += (unsigned long)trap_armed; return __real_realloc(p, n); }
void __wrap_free(void *p) { trapped += (unsigned long)trap_armed; __real_free(p); }

static void test_no_allocation_after_init(void)
{
    uint64_t *mem = (uint64_t *)malloc(EXERCISE_MEM_WORDS * sizeof(uint64_t)); /* setup may allocate */
    uint64_t d;
    CHECK(mem != NULL);
    trap_armed = 1;
    d = exercise_common(mem, EXERCISE_MEM_WORDS, 42) ^ rnic_hash64(mem, 4096, 7);
    trap_armed = 0;
    CHECK(d != 0);
    CHECK_EQ(trapped, 0);
    free(mem);
}

/* An endless backlog of 3000-byte messages for every QP. */
static uint32_t trap_source(void *user, uint32_t qp, uint32_t seq, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user;
    for (i = 0; i < max; i++) {
        RNIC_MEMSET(&out[i], 0, sizeof out[i]);
        out[i].tag = qp * 1000u + seq + i;
        out[i].len = (seq + i) % 97u == 5u ? 0u : 3000u; /* now and then a bad WQE: an error record */
    }
    return max;
}

static void test_rate_limiter_ticks_without_allocating(void)
{
    static rl r;
    rl_config cfg;
    rnic_work tx;
    void *mem;
    uint32_t qp;
    uint64_t sent = 0;
    rl_config_default(&cfg);
    cfg.max_flows = 64;
    cfg.source = trap_source;
    mem = malloc(rl_mem_size(&cfg));
    CHECK(mem != NULL && rl_init(&r, &cfg, mem, rl_mem_size(&cfg)) == RNIC_OK);
    trap_armed = 1;
    CHECK_EQ(rl_pcie_latency_cycles(&r), 250); /* pcie_latency_ns 1000 at 250 MHz, converted by rl_init */
    for (qp = 0; qp < 64; qp++) { /* oversubscribed: 64 x 3 Gb/s on 100 Gb/s... and some slow */
        rl_set_rate(&r, qp, qp % 2 ? 3000000000ull : 100000000ull);
        rl_doorbell(&r, qp);
    }
    while (rl_now(&r) < 200000) { /* rate raises, cuts and pauses re-time the schedule */
        if (rl_now(&r) % 5000 == 0)
            rl_set_rate(&r, rl_now(&r) / 5000 % 64, rl_now(&r) % 15000 == 0 ? 0u : 5000000000ull);
        rl_tick(&r);
        while (rl_pop_tx(&r, &tx) == RNIC_OK)
            sent++;
    }
    while (rl_now(&r) < 1200000) {
        rl_advance_to(&r, 1200000);
        while (rl_pop_tx(&r, &tx) == RNIC_OK)
            sent++;
    }
    trap_armed = 0;
    CHECK(sent > 1000);
    CHECK_EQ(trapped, 0);
    free(mem);
}

/* The Palos slicer's WQE buffer: 3000-byte and 64-byte WQEs, alternating by QP. */
static uint32_t trap_wqe(void *ctx, uint32_t qp, uint32_t index, rnic_work *out, uint32_t max)
{
    (void)ctx;
    (void)max;
    RNIC_MEMSET(out, 0, sizeof *out);
    out->addr = ((uint64_t)qp << 32) + (uint64_t)index * 4096u;
    out->len = qp % 2u ? 3000u : 64u;
    out->tag = index;
    return 1;
}

static void trap_trace(void *user, const rnic_trace_event *ev)
{
    *(uint64_t *)user += ev->kind;
}

static void test_palos_ticks_without_allocating(void)
{
    static rq_palos p;
    rq_palos_config cfg;
    rq_palos_flow_config fc;
    rnic_work o;
    void *mem;
    uint32_t qp, round;
    uint64_t sent = 0, traced = 0;
    rq_palos_config_default(&cfg);
    rq_palos_flow_config_default(&fc);
    cfg.weights.max_flows = 32;
    cfg.packet_overhead = 82;
    cfg.cut_align = 1024;
    cfg.source = trap_wqe;
    cfg.trace = trap_trace;
    cfg.trace_user = &traced;
    mem = malloc(rq_palos_mem_size(&cfg));
    CHECK(mem != NULL && rq_palos_init(&p, &cfg, mem, rq_palos_mem_size(&cfg)) == RNIC_OK);
    trap_armed = 1;
    CHECK(rq_palos_create_group(&p, 0, 3) == RNIC_OK && rq_palos_create_group(&p, 1, 5) == RNIC_OK);
    for (qp = 0; qp < 32; qp++) {
        fc.group = qp % 2u;
        fc.weight = 1u + qp % 4u;
        fc.cls = qp == 0 ? RQ_PALOS_LATENCY : RQ_PALOS_BANDWIDTH;
        CHECK(rq_palos_flow_open(&p, qp, &fc) == RNIC_OK);
    }
    for (round = 1; round <= 20; round++) {
        for (qp = 0; qp < 32; qp++)
            (void)rq_palos_doorbell(&p, qp, round * 100u);
        fc.group = 1;
        fc.weight = round % 7u + 1u;
        fc.cls = RQ_PALOS_BANDWIDTH;
        (void)rq_palos_flow_open(&p, 5, &fc);
        while (rq_palos_backlog(&p) > 1000u) {
            rq_palos_tick(&p);
            while (rq_palos_pop_piece(&p, &o) == RNIC_OK)
                sent += o.len;
            (void)rq_palos_peek_piece(&p, &o);
        }
    }
    for (round = 0; round < 4u; round++) { /* advance stops when the output fills: drain, go on */
        (void)rq_palos_advance(&p, 100000);
        while (rq_palos_pop_piece(&p, &o) == RNIC_OK)
            sent += o.len;
    }
    (void)rq_palos_advance_to(&p, rq_palos_now(&p) + 1000u);
    trap_armed = 0;
    CHECK(sent > 100000);
    CHECK(traced > 0);
    CHECK_EQ(trapped, 0);
    free(mem);
}

/* The RED-SEA QoS engine: descriptors written as AXI beats, blocks and packets acknowledged,
 * status polled, then fast-forward; every call after init with the trap armed, tracing on. */
static void qos_trap_trace(void *user, const rnic_trace_event *ev)
{
    (void)ev;
    (*(uint64_t *)user)++;
}

static void test_qos_engine_ticks_without_allocating(void)
{
    static rq_qos q;
    rq_qos_config cfg;
    rq_transfer t;
    rnic_work b;
    rq_packet pk;
    rq_response r;
    rq_axi_bresp br;
    rq_axi_rdata rd;
    uint64_t line[2][4], beat[2], blocks = 0;
    uint32_t round, l, w, cyc;
    uint64_t qos_traced = 0;
    void *mem;
    rq_qos_config_default(&cfg);
    cfg.trace = qos_trap_trace;
    cfg.trace_user = &qos_traced;
    mem = malloc(rq_qos_mem_size(&cfg));
    CHECK(mem != NULL && rq_qos_init(&q, &cfg, mem, rq_qos_mem_size(&cfg)) == RNIC_OK);
    trap_armed = 1;
    while (!rq_qos_ready(&q))
        rq_qos_tick(&q);
    for (round = 0; round < 64u; round++) {
        uint32_t dom = round % 16u, ch = (round / 16u) * 2u;
        memset(&t, 0, sizeof t);
        t.kind = RQ_KIND_REGULAR;
        t.src = 0x1000u * (round + 1u);
        t.dst = 0x9000u * (round + 1u);
        t.size = 100000u + round;
        t.cm = round % 2u == 0u;
        CHECK(rq_desc_encode(&t, line[0], line[1]) == RNIC_OK);
        for (l = 0; l < rq_desc_lines(line[0][0]); l++)
            for (w = 0; w < 4u; w += 2u) {
                beat[0] = line[l][w];
                beat[1] = line[l][w + 1u];
                (void)rq_qos_axi_write(&q, dom, (((dom * 128u) + ch + l) << 5) | (w << 3), beat, 16);
            }
        for (cyc = 0; cyc < 40u; cyc++) {
            rq_qos_tick(&q);
            while (rq_qos_pop_bresp(&q, &br) == RNIC_OK)
                ;
            (void)rq_qos_peek_block(&q, &b);
            (void)rq_qos_peek_packet(&q, &pk);
            while (rq_qos_pop_block(&q, &b) == RNIC_OK) {
                r.tid = b.aux; /* TID */
                r.seq = b.op;  /* sequence number */
                r.ack = 1;
                (void)rq_qos_push_response(&q, &r);
                blocks++;
            }
            while (rq_qos_pop_packet(&q, &pk) == RNIC_OK) {
                r.tid = pk.tid;
                r.seq = pk.seq;
                r.ack = 1;
                (void)rq_qos_push_response(&q, &r);
            }
            if (cyc == 39u)
                (void)rq_qos_axi_read(&q, dom, 0, 0, 1);
            while (rq_qos_pop_rdata(&q, &rd) == RNIC_OK)
                ;
        }
    }
    (void)rq_qos_next_event(&q);
    (void)rq_qos_advance(&q, 100000);
    (void)rq_qos_advance_to(&q, rq_qos_now(&q) + 100000u);
    trap_armed = 0;
    CHECK(blocks >= 64u);
    CHECK(qos_traced > 1000u);
    CHECK_EQ(trapped, 0);
    free(mem);
}

/* hostcc.h: the receiving host (CPU load, DDIO on and off, PFC pauses), the receiver controller
 * (samples crossing I_thr, MBA levels stepped and written back, ECN mode) and the sender
 * controller (probes answered, R_cc written) in exercise_hostcc's closed loop, init included,
 * with the trap armed; then check the loop did reach every path it is there for. */
static void test_hostcc_ticks_without_allocating(void)
{
    uint64_t *mem = (uint64_t *)malloc(EXERCISE_HCC_MEM_WORDS * sizeof(uint64_t));
    exercise_hcc_report rep;
    uint64_t d;
    unsigned long before = trapped;
    CHECK(mem != NULL);
    memset(&rep, 0, sizeof rep);
    trap_armed = 1;
    d = exercise_hostcc(mem, EXERCISE_HCC_MEM_WORDS, 42, &rep);
    trap_armed = 0;
    CHECK(d != 0);
    CHECK_EQ(trapped - before, 0);
    CHECK(rep.packets_out > 500u);
    CHECK(rep.pfc_pauses > 0);      /* pass 0: PFC on */
    CHECK(rep.marked > 0);          /* pass 1: ECN marks */
    CHECK(rep.stalled_writes > 0);  /* posted writes waited for credits */
    CHECK(rep.ddio_writebacks > 0); /* pass 1: DDIO on, dirty victims */
    CHECK(rep.level_downs > 0);     /* I_cur crossed I_thr: MBA level down ... */
    CHECK(rep.level_ups > 0);       /* ... and back up when calm */
    CHECK(rep.ecn_on > 0);          /* pass 1: ECN mode */
    CHECK(rep.probe_acks > 10u);
    CHECK(rep.rate_records > 10u);
    CHECK(rep.refused >= 6u);       /* the bad inputs, counted */
    printf("hostcc exercise %016llx packets %llu pauses %llu marked %llu dropped %llu stalled %llu wb %llu "
           "downs %llu ups %llu ecn %llu acks %llu rates %llu refused %llu\n",
           (unsigned long long)d, (unsigned long long)rep.packets_out, (unsigned long long)rep.pfc_pauses,
           (unsigned long long)rep.marked, (unsigned long long)rep.dropped, (unsigned long long)rep.stalled_writes,
           (unsigned long long)rep.ddio_writebacks, (unsigned long long)rep.level_downs,
           (unsigned long long)rep.level_ups, (unsigned long long)rep.ecn_on, (unsigned long long)rep.probe_acks,
           (unsigned long long)rep.rate_records, (unsigned long long)rep.refused);
    free(mem);
}

static void test_trap_catches_an_allocation(void)
{
    void *volatile p; /* volatile: the compiler may not elide the malloc/free pair */
    unsigned long before = trapped;
    trap_armed = 1;
    p = malloc(16);
    free(p);
    trap_armed = 0;
    CHECK_EQ(trapped - before, 2); /* the malloc and the free were both seen */
}


/* Tonic: a NewReno sender and the receiver in a closed loop with 1 % loss, timeouts included. */
static void test_transport_ticks_without_allocating(void)
{
    static tp t;
    static tp_rx r;
    tp_config cfg;
    tp_rx_config rc;
    tp_flow_config fp;
    rnic_work w;
    void *mem, *rmem;
    uint32_t f;
    uint64_t n = 0, delivered = 0;
    tp_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    cfg.max_flows = 16;
    cfg.protocol = tp_protocol_newreno();
    mem = malloc(tp_mem_size(&cfg));
    CHECK(mem != NULL && tp_init(&t, &cfg, mem, tp_mem_size(&cfg)) == RNIC_OK);
    tp_rx_config_default(&rc);
    rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    rc.max_flows = 16;
    rmem = malloc(tp_rx_mem_size(&rc));
    CHECK(rmem != NULL && tp_rx_init(&r, &rc, rmem, tp_rx_mem_size(&rc)) == RNIC_OK);
    trap_armed = 1;
    tp_flow_config_default(&fp);
    fp.rto_ns = 100000u; /* short: timeouts happen */
    for (f = 0; f < 16; f++) {
        tp_flow_open(&t, f, &fp);
        tp_rx_flow_open(&r, f, NULL);
        RNIC_MEMSET(&w, 0, sizeof w);
        w.flow = f;
        w.len = 200000;
        tp_push_message(&t, &w);
    }
    while (tp_now(&t) < 300000) {
        tp_tick(&t);
        tp_rx_tick(&r);
        while (tp_pop_segment(&t, &w) == RNIC_OK)
            if (++n % 100u != 7u) /* 1 % loss */
                tp_rx_push_segment(&r, &w);
        while (tp_rx_pop_ack(&r, &w) == RNIC_OK)
            tp_push_incoming(&t, &w);
        while (tp_rx_pop_delivered(&r, &w) == RNIC_OK)
            delivered += w.len;
        while (tp_pop_completion(&t, &w) == RNIC_OK)
            tp_push_message(&t, &w);
    }
    tp_advance(&t, 100000);
    tp_rx_advance(&r, 100000);
    trap_armed = 0;
    CHECK(delivered > 1000000u);
    CHECK(tp_get_stats(&t)->segments_rtx > 0);
    CHECK_EQ(trapped, 0);
    free(mem);
    free(rmem);
}

int main(void)
{
    RUN(test_no_allocation_after_init);
    RUN(test_rate_limiter_ticks_without_allocating);
    RUN(test_palos_ticks_without_allocating);
    RUN(test_qos_engine_ticks_without_allocating);
    RUN(test_transport_ticks_without_allocating);
    RUN(test_hostcc_ticks_without_allocating);
    RUN(test_trap_catches_an_allocation);
    return test_summary();
}
