/* The engine contract (docs/engine_contract.md), checked the same way on every engine: one
 * generic harness drives Tassel, the QoS engine, Palos and the transport engine through an adapter each (a table of
 * the engine's own public functions -- no engine is special-cased in the checks) and fails if
 * any engine differs:
 *   NULL record pointers refused and counted; an empty output answers EEMPTY;
 *   next_event + advance_to give exactly the records of ticking every cycle (fast-forward);
 *   advance stops right after the tick in which the output port filled, and says how far it ran;
 *   advance_to lands on the cycle asked for; nothing is lost while the port is full;
 *   the same workload started just below 2^64 crosses the wrap with the same records, shifted;
 *   tags (and op, raddr) pass through from the source to the outputs untouched;
 *   rates (Tassel) are clamped and counted, 0 pauses, a raise re-times within a packet time. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "test.h"

#define MAX_OUT 4096u
#define NFLOWS 4u
#define WQES_PER_FLOW 6u

/* ---------------- a shared WQE source: every flow's entries, tags unique ---------------- */
static rnic_work src_entries[NFLOWS][WQES_PER_FLOW];

static void source_fill(uint32_t len_scale)
{
    uint32_t f, i;
    memset(src_entries, 0, sizeof src_entries);
    for (f = 0; f < NFLOWS; f++)
        for (i = 0; i < WQES_PER_FLOW; i++) {
            rnic_work *w = &src_entries[f][i];
            w->flow = f;
            w->index = i;
            w->len = len_scale * (1u + (f * 7u + i * 3u) % 9u) + 100u * i + 1u;
            w->addr = ((uint64_t)f << 32) + (uint64_t)i * 0x100000u;
            w->raddr = 0xabc0000000ull + ((uint64_t)f << 28) + (uint64_t)i * 0x100000u;
            w->tag = 0x7a90000000000000ull | ((uint64_t)f << 16) | i;
            w->op = 0x55u + f;
        }
}

static uint32_t source_read(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t n = 0;
    (void)user;
    while (flow < NFLOWS && n < max && index + n < WQES_PER_FLOW) {
        out[n] = src_entries[flow][index + n];
        n++;
    }
    return n;
}

/* ---------------- the adapter: one table of public functions per engine ---------------- */
typedef struct eng {
    const char *name;
    void *x;
    void *mem;
    uint32_t out_capacity; /* depth of the output port the harness drains */
    int has_tags;          /* records carry the source's tag/op/raddr */
    void (*tick)(void *);
    uint64_t (*next_event)(const void *);
    uint64_t (*advance)(void *, uint64_t);
    uint64_t (*advance_to)(void *, uint64_t);
    uint64_t (*now)(const void *);
    rnic_err (*pop)(void *, rnic_work *);
    rnic_err (*peek)(const void *, rnic_work *);
    uint64_t (*refused)(const void *);
    void (*load)(void *);  /* post the standard workload */
    void (*destroy)(struct eng *);
} eng;

/* Fill an adapter from the functions named X_tick, X_next, ... below (one engine's set). */
#define ENG_OPS(e, X)                                                                              \
    ((e).tick = X##_tick, (e).next_event = X##_next, (e).advance = X##_adv, (e).advance_to = X##_adv_to, \
     (e).now = X##_now, (e).pop = X##_pop, (e).peek = X##_peek, (e).refused = X##_refused,           \
     (e).load = X##_load, (e).destroy = engine_free)

/* Tassel */
static void t_tick(void *x) { rl_tick((rl *)x); }
static uint64_t t_next(const void *x) { return rl_next_event((const rl *)x); }
static uint64_t t_adv(void *x, uint64_t n) { return rl_advance((rl *)x, n); }
static uint64_t t_adv_to(void *x, uint64_t c) { return rl_advance_to((rl *)x, c); }
static uint64_t t_now(const void *x) { return rl_now((const rl *)x); }
static rnic_err t_pop(void *x, rnic_work *w) { return rl_pop_tx((rl *)x, w); }
static rnic_err t_peek(const void *x, rnic_work *w) { return rl_peek_tx((const rl *)x, w); }
static uint64_t t_refused(const void *x) { return rnic_err_total(&rl_get_stats((const rl *)x)->errors); }
static void t_load(void *x)
{
    uint32_t f;
    for (f = 0; f < NFLOWS; f++) {
        CHECK_EQ(rl_set_rate((rl *)x, f, 10000000000ull * (f + 1u)), RNIC_OK);
        CHECK_EQ(rl_doorbell((rl *)x, f), RNIC_OK);
    }
}
static void engine_free(eng *e)
{
    free(e->x);
    free(e->mem);
}
static eng make_tassel(uint64_t start, uint32_t tx_capacity)
{
    eng e;
    rl_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    rl_config_default(&cfg);
    cfg.max_flows = 16;
    cfg.mtu = 1024;
    cfg.pcie_latency_ns = 160; /* L = 40 cycles at 250 MHz */
    cfg.tx_capacity = tx_capacity;
    cfg.start_cycle = start;
    cfg.source = source_read;
    size = rl_mem_size(&cfg);
    e.name = "tassel";
    e.x = calloc(1, sizeof(rl));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(rl_init((rl *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = tx_capacity;
    e.has_tags = 1;
    ENG_OPS(e, t);
    return e;
}

/* Palos */
static void p_tick(void *x) { rq_palos_tick((rq_palos *)x); }
static uint64_t p_next(const void *x) { return rq_palos_next_event((const rq_palos *)x); }
static uint64_t p_adv(void *x, uint64_t n) { return rq_palos_advance((rq_palos *)x, n); }
static uint64_t p_adv_to(void *x, uint64_t c) { return rq_palos_advance_to((rq_palos *)x, c); }
static uint64_t p_now(const void *x) { return rq_palos_now((const rq_palos *)x); }
static rnic_err p_pop(void *x, rnic_work *w) { return rq_palos_pop((rq_palos *)x, w); }
static rnic_err p_peek(const void *x, rnic_work *w) { return rq_palos_peek((const rq_palos *)x, w); }
static uint64_t p_refused(const void *x) { return rnic_err_total(&rq_palos_get_stats((const rq_palos *)x)->errors); }
static void p_load(void *x)
{
    uint32_t f;
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(rq_palos_doorbell((rq_palos *)x, f, WQES_PER_FLOW), RNIC_OK);
}
static eng make_palos(uint64_t start, uint32_t out_port)
{
    eng e;
    rq_palos_config cfg;
    size_t size;
    uint32_t f;
    memset(&e, 0, sizeof e);
    rq_palos_config_default(&cfg);
    cfg.weights.max_qps = 16;
    cfg.weights.max_groups = 2;
    cfg.weights.mtu = 1024;
    cfg.out_port = out_port;
    cfg.start_cycle = start;
    cfg.source = source_read;
    size = rq_palos_mem_size(&cfg);
    e.name = "palos";
    e.x = calloc(1, sizeof(rq_palos));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(rq_palos_init((rq_palos *)e.x, &cfg, e.mem, size), RNIC_OK);
    CHECK_EQ(rq_palos_create_group((rq_palos *)e.x, 0, 3), RNIC_OK);
    CHECK_EQ(rq_palos_create_group((rq_palos *)e.x, 1, 1), RNIC_OK);
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(rq_palos_set_qp((rq_palos *)e.x, f, f & 1u, 1u + f, RQ_PALOS_BANDWIDTH), RNIC_OK);
    e.out_capacity = out_port;
    e.has_tags = 1;
    ENG_OPS(e, p);
    return e;
}

/* QoS engine: the output is the block port; the workload is regular transfers written over AXI
 * (the engine's own input), several blocks each, never acknowledged (timeouts then retransmit:
 * the engine stays busy on its own, which next_event must foresee). */
static void q_tick(void *x) { rq_qos_tick((rq_qos *)x); }
static uint64_t q_next(const void *x) { return rq_qos_next_event((const rq_qos *)x); }
static uint64_t q_adv(void *x, uint64_t n) { return rq_qos_advance((rq_qos *)x, n); }
static uint64_t q_adv_to(void *x, uint64_t c) { return rq_qos_advance_to((rq_qos *)x, c); }
static uint64_t q_now(const void *x) { return rq_qos_now((const rq_qos *)x); }
static rnic_err q_pop(void *x, rnic_work *w) { return rq_qos_pop_block((rq_qos *)x, w); }
static rnic_err q_peek(const void *x, rnic_work *w) { return rq_qos_peek_block((const rq_qos *)x, w); }
static uint64_t q_refused(const void *x) { return rnic_err_total(&rq_qos_get_stats((const rq_qos *)x)->errors); }
static void q_load(void *x)
{
    rq_qos *q = (rq_qos *)x;
    uint32_t k;
    for (k = 0; k < NFLOWS; k++) { /* a regular transfer takes two lines: channels 2k and 2k + 1 */
        rq_transfer t;
        uint64_t line[2][4], d[2];
        uint32_t l, half;
        memset(&t, 0, sizeof t);
        t.kind = RQ_KIND_REGULAR;
        t.src = 0x100000ull * (k + 1u);
        t.dst = 0x900000ull * (k + 1u);
        t.size = 3000u + 2000u * k; /* 2 .. 5 blocks of 2 KB */
        CHECK_EQ(rq_desc_encode(&t, line[0], line[1]), RNIC_OK);
        for (l = 0; l < 2u; l++)
            for (half = 0; half < 2u; half++) {
                d[0] = line[l][2u * half];
                d[1] = line[l][2u * half + 1u];
                CHECK_EQ(rq_qos_axi_write(q, 0, ((2u * k + l) << 5) | ((2u * half) << 3), d, 16), RNIC_OK);
            }
    }
}
static eng make_qos(uint64_t start, uint32_t port)
{
    eng e;
    rq_qos_config cfg;
    size_t size;
    memset(&e, 0, sizeof e);
    rq_qos_config_default(&cfg);
    cfg.block_bytes = 2048;
    cfg.aw_fifo = 32;      /* the whole workload is written at once */
    cfg.b_fifo = 32;       /* and its write responses are never popped */
    cfg.transaction_port = port;
    cfg.start_cycle = start;
    size = rq_qos_mem_size(&cfg);
    e.name = "qos";
    e.x = calloc(1, sizeof(rq_qos));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(rq_qos_init((rq_qos *)e.x, &cfg, e.mem, size), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0; /* AXI descriptors carry no caller tag: block records have tag 0 */
    ENG_OPS(e, q);
    return e;
}


/* Transport (Tonic, NewReno): the workload is the source's entries pushed as messages; no ACK
 * ever comes back, so the flows send their initial windows and then time out again and again
 * (the rtx timer, backed off, keeps the engine busy on its own). The output is the segment port. */
static void x_tick(void *x) { tp_tick((tp *)x); }
static uint64_t x_next(const void *x) { return tp_next_event((const tp *)x); }
static uint64_t x_adv(void *x, uint64_t n) { return tp_advance((tp *)x, n); }
static uint64_t x_adv_to(void *x, uint64_t c) { return tp_advance_to((tp *)x, c); }
static uint64_t x_now(const void *x) { return tp_now((const tp *)x); }
static rnic_err x_pop(void *x, rnic_work *w) { return tp_pop_segment((tp *)x, w); }
static rnic_err x_peek(const void *x, rnic_work *w) { return tp_peek_segment((const tp *)x, w); }
static uint64_t x_refused(const void *x) { return rnic_err_total(&tp_get_stats((const tp *)x)->errors); }
static void x_load(void *x)
{
    uint32_t f, i;
    for (f = 0; f < NFLOWS; f++)
        for (i = 0; i < WQES_PER_FLOW; i++)
            CHECK_EQ(tp_push_message((tp *)x, &src_entries[f][i]), RNIC_OK);
}
static eng make_transport(uint64_t start, uint32_t port)
{
    eng e;
    tp_config cfg;
    tp_flow_params fp;
    size_t size;
    uint32_t f;
    memset(&e, 0, sizeof e);
    tp_config_default(&cfg);
    cfg.max_flows = NFLOWS;
    cfg.messages = WQES_PER_FLOW;
    cfg.tx_capacity = port;
    cfg.start_cycle = start;
    cfg.protocol = tp_protocol_newreno();
    size = tp_mem_size(&cfg);
    e.name = "transport";
    e.x = calloc(1, sizeof(tp));
    e.mem = malloc(size);
    CHECK(size != 0);
    CHECK_EQ(tp_init((tp *)e.x, &cfg, e.mem, size), RNIC_OK);
    tp_flow_params_default(&fp);
    fp.seg_size = 512;
    fp.rto_us = 5; /* 500 cycles at 100 MHz */
    for (f = 0; f < NFLOWS; f++)
        CHECK_EQ(tp_flow_open((tp *)e.x, f, &fp), RNIC_OK);
    e.out_capacity = port;
    e.has_tags = 0; /* records are segments: index = segment id, not the source's entry */
    ENG_OPS(e, x);
    return e;
}

/* ---------------- the generic checks ---------------- */
typedef struct rec_log {
    rnic_work w[MAX_OUT];
    uint32_t n;
} rec_log;

static uint32_t drain(eng *e, rec_log *log)
{
    rnic_work w;
    uint32_t n = 0;
    while (e->pop(e->x, &w) == RNIC_OK) {
        if (log && log->n < MAX_OUT)
            log->w[log->n++] = w;
        n++;
    }
    return n;
}

static int same_record(const rnic_work *a, const rnic_work *b, uint64_t shift)
{
    return a->cycle + shift == b->cycle && a->flow == b->flow && a->index == b->index && a->offset == b->offset &&
           a->len == b->len && a->flags == b->flags && a->tag == b->tag && a->addr == b->addr &&
           a->raddr == b->raddr && a->op == b->op && a->status == b->status && a->aux == b->aux;
}

/* Run the workload to quiescence by ticking every cycle (draining after each tick). */
static void run_ticking(eng *e, rec_log *log, uint64_t cycles)
{
    uint64_t i;
    e->load(e->x);
    for (i = 0; i < cycles; i++) {
        e->tick(e->x);
        drain(e, log);
    }
}

/* The same by fast-forward: jump to next_event (tick when it is now), drain after each step. */
static void run_fast(eng *e, rec_log *log, uint64_t cycles)
{
    uint64_t end = e->now(e->x) + cycles;
    e->load(e->x);
    while (e->now(e->x) != end) {
        uint64_t next = e->next_event(e->x), left = end - e->now(e->x);
        if (next == e->now(e->x))
            CHECK_EQ(e->advance(e->x, 1), 1);
        else {
            uint64_t target = (next == RNIC_NEVER || next - e->now(e->x) > left) ? end : next;
            CHECK_EQ(e->advance_to(e->x, target), target - (end - left));
        }
        drain(e, log);
        if (TEST_FAILS())
            return;
    }
}

typedef eng (*make_fn)(uint64_t start, uint32_t port);

static void contract_null_and_empty(make_fn make)
{
    eng e = make(0, 8);
    rnic_work w;
    uint64_t before = e.refused(e.x);
    CHECK_EQ(e.pop(e.x, NULL), RNIC_EINVAL);
    CHECK_EQ(e.peek(e.x, NULL), RNIC_EINVAL);
    CHECK_EQ(e.refused(e.x), before + 2u);
    CHECK_EQ(e.pop(e.x, &w), RNIC_EEMPTY);
    CHECK_EQ(e.peek(e.x, &w), RNIC_EEMPTY);
    /* an engine with no input settles and then says so */
    e.advance(e.x, 100000);
    CHECK_EQ(e.next_event(e.x), RNIC_NEVER);
    CHECK_EQ(e.pop(e.x, &w), RNIC_EEMPTY);
    e.destroy(&e);
}

/* A NULL engine: every call answers without touching memory (EINVAL, NEVER, 0 cycles). */
static void contract_null_engine(make_fn make)
{
    eng e = make(0, 8);
    rnic_work w;
    e.tick(NULL);
    CHECK_EQ(e.next_event(NULL), RNIC_NEVER);
    CHECK_EQ(e.advance(NULL, 100), 0);
    CHECK_EQ(e.advance_to(NULL, 100), 0);
    CHECK_EQ(e.pop(NULL, &w), RNIC_EINVAL);
    CHECK_EQ(e.peek(NULL, &w), RNIC_EINVAL);
    e.destroy(&e);
}

static rec_log log_a, log_b;

static void contract_fast_forward_equals_ticking(make_fn make, uint64_t start_a, uint64_t start_b)
{
    eng a = make(start_a, 8), b = make(start_b, 8);
    uint32_t i;
    log_a.n = log_b.n = 0;
    run_ticking(&a, &log_a, 60000);
    run_fast(&b, &log_b, 60000);
    CHECK(log_a.n > 0);
    CHECK_EQ(log_a.n, log_b.n);
    for (i = 0; i < log_a.n && i < log_b.n; i++)
        if (!same_record(&log_a.w[i], &log_b.w[i], start_b - start_a)) {
            CHECK(!"records differ");
            printf("  record %u: cycle %llu vs %llu (shift %llu)\n", i, (unsigned long long)log_a.w[i].cycle,
                   (unsigned long long)log_b.w[i].cycle, (unsigned long long)(start_b - start_a));
            break;
        }
    CHECK_EQ(a.now(a.x), start_a + 60000u);
    CHECK_EQ(b.now(b.x), start_b + 60000u);
    a.destroy(&a);
    b.destroy(&b);
}

/* advance stops right after the tick in which the port filled; nothing is lost while it is full */
static void contract_advance_stops_when_output_fills(make_fn make, uint32_t port)
{
    eng e = make(0, port), ref = make(0, 64);
    rec_log *all = &log_a;
    uint64_t ran, total = 0;
    uint32_t popped = 0, i;
    rnic_work w;
    e.load(e.x);
    ran = e.advance(e.x, 1000000);
    CHECK(ran < 1000000u);
    CHECK_EQ(e.now(e.x), ran);
    CHECK_EQ(e.peek(e.x, &w), RNIC_OK);
    /* the port is full: exactly `port` records wait, and the last came in the last tick */
    log_b.n = 0;
    popped = drain(&e, &log_b);
    CHECK_EQ(popped, port);
    CHECK_EQ(log_b.w[port - 1u].cycle, ran - 1u);
    /* go on to the end, draining whenever it stops: the records are those of a deep port */
    total = ran;
    while (total < 100000u) {
        uint64_t r = e.advance(e.x, 100000u - total);
        total += r;
        drain(&e, &log_b);
        if (r == 0)
            break;
    }
    CHECK_EQ(e.now(e.x), 100000u);
    all->n = 0;
    run_ticking(&ref, all, 100000);
    CHECK_EQ(log_b.n, all->n);
    for (i = 0; i < log_b.n && i < all->n; i++) {
        rnic_work x = log_b.w[i], y = all->w[i];
        x.cycle = y.cycle = 0; /* a full port delays records: only their content must match */
        if (!same_record(&x, &y, 0)) {
            CHECK(!"record content differs behind a full port");
            break;
        }
    }
    e.destroy(&e);
    ref.destroy(&ref);
}

static void contract_tags_pass_through(make_fn make)
{
    eng e = make(0, 8);
    uint32_t i;
    log_a.n = 0;
    run_ticking(&e, &log_a, 60000);
    CHECK(log_a.n > 0);
    for (i = 0; i < log_a.n; i++) {
        const rnic_work *w = &log_a.w[i];
        const rnic_work *s;
        if (w->flow >= NFLOWS || w->index >= WQES_PER_FLOW) {
            CHECK(!"record names an entry the source never had");
            break;
        }
        s = &src_entries[w->flow][w->index];
        CHECK_EQ(w->tag, s->tag);
        CHECK_EQ(w->op, s->op);
        CHECK_EQ(w->addr, s->addr + w->offset);
        CHECK_EQ(w->raddr, s->raddr + w->offset);
        CHECK(w->offset + w->len <= s->len);
        CHECK_EQ((w->flags & RNIC_WORK_FIRST) != 0, w->offset == 0);
        CHECK_EQ((w->flags & RNIC_WORK_LAST) != 0, w->offset + w->len == s->len);
        if (TEST_FAILS())
            break;
    }
    e.destroy(&e);
}

/* ---------------- the cases: every check on every engine ---------------- */
static eng mk_tassel(uint64_t s, uint32_t p) { return make_tassel(s, p); }
static eng mk_palos(uint64_t s, uint32_t p) { return make_palos(s, p); }
static eng mk_qos(uint64_t s, uint32_t p) { return make_qos(s, p); }
static eng mk_transport(uint64_t s, uint32_t p) { return make_transport(s, p); }

#define NEAR_WRAP (UINT64_MAX - 20000u)

static void test_tassel_null_and_empty(void) { source_fill(700); contract_null_and_empty(mk_tassel); }
static void test_palos_null_and_empty(void) { source_fill(700); contract_null_and_empty(mk_palos); }
static void test_tassel_fast_forward(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_tassel, 0, 0); }
static void test_palos_fast_forward(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_palos, 0, 0); }
static void test_tassel_wrap(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_tassel, 0, NEAR_WRAP); }
static void test_palos_wrap(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_palos, 0, NEAR_WRAP); }
static void test_tassel_advance_stops(void) { source_fill(700); contract_advance_stops_when_output_fills(mk_tassel, 3); }
static void test_palos_advance_stops(void) { source_fill(5000); contract_advance_stops_when_output_fills(mk_palos, 2); }
static void test_qos_null_and_empty(void) { contract_null_and_empty(mk_qos); }
static void test_qos_fast_forward(void) { contract_fast_forward_equals_ticking(mk_qos, 0, 0); }
static void test_qos_wrap(void) { contract_fast_forward_equals_ticking(mk_qos, 0, NEAR_WRAP); }
static void test_qos_advance_stops(void) { contract_advance_stops_when_output_fills(mk_qos, 2); }
static void test_transport_null_and_empty(void) { source_fill(700); contract_null_and_empty(mk_transport); }
static void test_transport_fast_forward(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_transport, 0, 0); }
static void test_transport_wrap(void) { source_fill(700); contract_fast_forward_equals_ticking(mk_transport, 0, NEAR_WRAP); }
static void test_transport_advance_stops(void) { source_fill(700); contract_advance_stops_when_output_fills(mk_transport, 2); }
static void test_null_engines_and_configs(void)
{
    rl_config rc;
    rq_palos_config pc;
    rq_qos_config qc;
    const char *field = "unset";
    source_fill(700);
    contract_null_engine(mk_tassel);
    contract_null_engine(mk_palos);
    contract_null_engine(mk_qos);
    contract_null_engine(mk_transport);
    rl_config_default(NULL); /* must not crash */
    rq_palos_config_default(NULL);
    rq_qos_config_default(NULL);
    /* a bad config field is RNIC_EINVAL in every engine, and named */
    rl_config_default(&rc);
    rc.clock_hz = 0;
    CHECK_EQ(rl_config_check(&rc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    rq_palos_config_default(&pc);
    pc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(rq_palos_config_check(&pc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    rq_qos_config_default(&qc);
    qc.clock_hz = 0;
    field = "unset";
    CHECK_EQ(rq_qos_config_check(&qc, &field), RNIC_EINVAL);
    CHECK(field && !strcmp(field, "clock_hz"));
    CHECK_EQ(rl_mem_size(&rc), 0);
    CHECK_EQ(rq_palos_mem_size(&pc), 0);
    CHECK_EQ(rq_qos_mem_size(&qc), 0);
}

static void test_tassel_tags(void) { source_fill(700); contract_tags_pass_through(mk_tassel); }
static void test_palos_tags(void) { source_fill(5000); contract_tags_pass_through(mk_palos); }

/* Tassel's rate registers: clamped and counted, 0 pauses, a raise acts within a packet time. */
static void test_tassel_rates_clamp_pause_retime(void)
{
    eng e;
    rnic_work w;
    const rl_stats *st;
    uint64_t clamped, t_raise, first_after = 0;
    source_fill(700);
    e = make_tassel(0, 64);
    st = rl_get_stats((rl *)e.x);
    CHECK_EQ(rl_set_rate((rl *)e.x, 0, 1), RNIC_OK);                  /* below min: clamped up */
    CHECK_EQ(rl_set_rate((rl *)e.x, 1, 10000000000000ull), RNIC_OK);  /* above link: clamped down */
    CHECK_EQ(rl_set_rate((rl *)e.x, 99, 1000000000ull), RNIC_ENOENT); /* unknown flow: refused */
    e.advance(e.x, 10);
    CHECK_EQ(st->rate_clamped, 2u);
    clamped = st->rate_clamped;
    (void)clamped;
    /* flow 2 paused: doorbell it, nothing leaves */
    CHECK_EQ(rl_set_rate((rl *)e.x, 2, 0), RNIC_OK);
    CHECK_EQ(rl_doorbell((rl *)e.x, 2), RNIC_OK);
    e.advance(e.x, 20000);
    while (e.pop(e.x, &w) == RNIC_OK)
        CHECK(w.flow != 2u);
    /* resume at 100 Kb/s, then raise to 10 Gb/s: the next packet follows within a packet time
     * at the new rate (700+ B at 10 Gb/s = ~150 cycles) plus two ring reads (2 x 40) */
    CHECK_EQ(rl_set_rate((rl *)e.x, 2, 100000), RNIC_OK);
    e.advance(e.x, 5000);
    while (e.pop(e.x, &w) == RNIC_OK)
        ;
    t_raise = e.now(e.x);
    CHECK_EQ(rl_set_rate((rl *)e.x, 2, 10000000000ull), RNIC_OK);
    while (e.now(e.x) < t_raise + 20000u && !first_after) {
        e.advance(e.x, 1);
        while (e.pop(e.x, &w) == RNIC_OK)
            if (w.flow == 2u && !first_after)
                first_after = w.cycle;
    }
    CHECK(first_after != 0);
    CHECK(first_after - t_raise <= 2000u * 8u * 250u / 10000u + 2u * 40u + 64u);
    e.destroy(&e);
}

int main(void)
{
    RUN(test_transport_null_and_empty);
    RUN(test_transport_fast_forward);
    RUN(test_transport_wrap);
    RUN(test_transport_advance_stops);
    RUN(test_tassel_null_and_empty);
    RUN(test_palos_null_and_empty);
    RUN(test_tassel_fast_forward);
    RUN(test_palos_fast_forward);
    RUN(test_tassel_wrap);
    RUN(test_palos_wrap);
    RUN(test_tassel_advance_stops);
    RUN(test_palos_advance_stops);
    RUN(test_tassel_tags);
    RUN(test_palos_tags);
    RUN(test_qos_null_and_empty);
    RUN(test_qos_fast_forward);
    RUN(test_qos_wrap);
    RUN(test_qos_advance_stops);
    RUN(test_tassel_rates_clamp_pause_retime);
    RUN(test_null_engines_and_configs);
    return test_summary();
}
