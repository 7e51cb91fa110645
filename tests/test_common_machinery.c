/* The shared machinery of src/common (docs/engine_contract.md, "Shared machinery"): the indexed
 * timer heap against a brute-force reference (wrap-safe order, set/move/remove), the one advance
 * loop on a toy engine against ticking every cycle (stops when a port fills; both skip modes),
 * the reason X-macro (enum, counters, messages, codes; counted once under its code), the node
 * port lookup, and the layout constant expressions against rnic__mem_reserve. */
#include "ratelimit.h"
#include "test.h"

/* ---------------- rnic__heap ---------------- */
#define HN 64u

static void test_heap_against_reference(void)
{
    uint32_t id[HN], pos[HN];
    uint64_t key[HN], ref[HN], seed = 7;
    bool has[HN];
    rnic__heap h;
    uint32_t step, i;
    rnic__heap_init(&h, id, key, pos, HN);
    memset(has, 0, sizeof has);
    CHECK_EQ(rnic__heap_min(&h), UINT64_MAX);
    CHECK_EQ(rnic__heap_min_id(&h), RNIC_NONE);
    for (step = 0; step < 20000u; step++) {
        uint64_t r = rnic_splitmix64(&seed), base = UINT64_MAX - 5000u; /* keys straddle the 2^64 wrap */
        uint32_t x = (uint32_t)(r % HN), best = RNIC_NONE, n = 0;
        if ((r >> 8) % 3u) {
            uint64_t k = base + (r >> 16) % 10000u;
            rnic__heap_set(&h, x, k);
            ref[x] = k;
            has[x] = true;
        } else {
            rnic__heap_remove(&h, x);
            has[x] = false;
        }
        for (i = 0; i < HN; i++)
            if (has[i]) {
                n++;
                if (best == RNIC_NONE || rnic__cycle_before(ref[i], ref[best]))
                    best = i;
            }
        CHECK_EQ(h.count, n);
        if (best == RNIC_NONE)
            CHECK_EQ(rnic__heap_min(&h), UINT64_MAX);
        else
            CHECK_EQ(rnic__heap_min(&h), ref[best]); /* (ties: any id of the minimum key) */
        CHECK_EQ(rnic__heap_key(&h, x), has[x] ? ref[x] : UINT64_MAX);
        if (TEST_FAILS())
            return;
    }
    rnic__heap_clear(&h, HN);
    CHECK_EQ(h.count, 0);
    CHECK_EQ(rnic__heap_key(&h, 3), UINT64_MAX);
}

/* ---------------- rnic__advance on a toy engine ---------------- */
/* Every `period` cycles an event puts one record in a port of depth 4 (if there is room; a full
 * port holds the event until popped). Its skip counts skipped cycles so ticking and skipping can
 * be compared. */
typedef struct toy {
    uint64_t now, next, cycles, ticks, skipped;
    uint32_t held, depth, period;
} toy;
static uint64_t toy_skip(void *x, uint64_t left)
{
    toy *t = (toy *)x;
    uint64_t gap = t->held == t->depth ? left : (t->next - t->now < left ? t->next - t->now : left);
    t->now += gap;
    t->cycles += gap;
    t->skipped += gap;
    return gap;
}
static void toy_tick(void *x)
{
    toy *t = (toy *)x;
    if (t->now == t->next && t->held < t->depth) {
        t->held++;
        t->next += t->period;
    }
    t->now++;
    t->cycles++;
    t->ticks++;
}
static uint32_t toy_full(const void *x) { return ((const toy *)x)->held == ((const toy *)x)->depth; }

static void test_advance_loop(void)
{
    unsigned flags;
    for (flags = 0; flags < 2u; flags++) {
        toy a = {0, 10, 0, 0, 0, 0, 4, 25}, b = a;
        uint64_t ran, i, popped_a = 0, popped_b = 0;
        ran = rnic__advance(&a, 1000, toy_skip, toy_tick, toy_full, flags ? RNIC__ADVANCE_TICK_AFTER_SKIP : 0u);
        /* four records at 10, 35, 60, 85: the port fills in the tick of cycle 85 and advance stops */
        CHECK_EQ(ran, 86);
        CHECK_EQ(a.now, 86);
        CHECK_EQ(a.held, 4);
        CHECK_EQ(a.ticks, 4);
        for (i = 0; i < 86u; i++)
            toy_tick(&b);
        CHECK_EQ(b.held, a.held);
        CHECK_EQ(b.next, a.next);
        /* full: the loop runs on (nothing to pop), then drains and continues to the same end */
        ran = rnic__advance(&a, 100, toy_skip, toy_tick, toy_full, flags ? RNIC__ADVANCE_TICK_AFTER_SKIP : 0u);
        CHECK_EQ(ran, 100);
        popped_a += a.held, a.held = 0;
        for (i = 0; i < 100u; i++)
            toy_tick(&b);
        popped_b += b.held, b.held = 0;
        while (a.now < 1000u) {
            ran = rnic__advance(&a, 1000u - a.now, toy_skip, toy_tick, toy_full, flags ? RNIC__ADVANCE_TICK_AFTER_SKIP : 0u);
            popped_a += a.held, a.held = 0;
            if (!ran)
                break;
        }
        while (b.now < 1000u) {
            toy_tick(&b);
            if (b.held == b.depth)
                popped_b += b.held, b.held = 0;
        }
        CHECK_EQ(a.now, 1000);
        CHECK_EQ(popped_a + a.held, popped_b + b.held);
        CHECK_EQ(a.cycles, 1000);
        CHECK(a.skipped > 500u); /* it did skip */
        CHECK_EQ(rnic__advance(&a, 0, toy_skip, toy_tick, toy_full, 0), 0);
    }
}

/* ---------------- RNIC_REASONS ---------------- */
#define TT_REASONS(R)                                                             \
    R(TT_REASON_FULL, RNIC_EBUSY, full, "the port is full: raise port_depth")     \
    R(TT_REASON_NULL, RNIC_EINVAL, null_record, "a NULL record")                  \
    R(TT_REASON_LATE, RNIC_EBUSY, late, "a second EBUSY reason: raise late_depth")
RNIC_REASONS(tt, TT, TT_REASONS)

static void test_reasons(void)
{
    tt_reason_stats s;
    rnic_err_stats e;
    memset(&s, 0, sizeof s);
    memset(&e, 0, sizeof e);
    CHECK_EQ(TT_REASON__COUNT, 3);
    CHECK_EQ(sizeof s, 3u * sizeof(uint64_t));
    CHECK_EQ(tt__reason_note(&s, &e, TT_REASON_FULL), RNIC_EBUSY);
    CHECK_EQ(tt__reason_note(&s, &e, TT_REASON_LATE), RNIC_EBUSY);
    CHECK_EQ(tt__reason_note(&s, &e, TT_REASON_NULL), RNIC_EINVAL);
    CHECK(s.full == 1 && s.late == 1 && s.null_record == 1);
    CHECK_EQ(e.by_cause[RNIC_EBUSY], 2);
    CHECK_EQ(e.by_cause[RNIC_EINVAL], 1);
    CHECK_EQ(rnic_err_total(&e), 3); /* each refusal once under its code */
    CHECK(!strcmp(tt_reason_message(TT_REASON_NULL), "a NULL record"));
    CHECK(!strcmp(tt_reason_message((tt_reason)7), "?"));
    CHECK_EQ(tt_reason_code(TT_REASON_LATE), RNIC_EBUSY);
    CHECK_EQ(tt_reason_code((tt_reason)9), RNIC_EINVAL);
}

/* ---------------- node port lookup, layout macros ---------------- */
static void test_node_lookup_and_layout(void)
{
    static const rnic_node_port in[] = {{"rx", 64}, {"rx_extra", 8}};
    rnic_node_ops ops;
    size_t off = 0, at = 0, want = 0;
    memset(&ops, 0, sizeof ops);
    ops.n_in = 2;
    ops.in = in;
    CHECK_EQ(rnic_node_in_port(&ops, "rx"), 0);
    CHECK_EQ(rnic_node_in_port(&ops, "rx_extra"), 1);
    CHECK_EQ(rnic_node_in_port(&ops, "rx_"), RNIC_NONE);
    CHECK_EQ(rnic_node_in_port(&ops, "r"), RNIC_NONE);
    CHECK_EQ(rnic_node_out_port(&ops, "rx"), RNIC_NONE);
    CHECK_EQ(rnic_node_in_port(NULL, "rx"), RNIC_NONE);
    CHECK_EQ(RNIC__BITLEN(0), 0);
    CHECK_EQ(RNIC__BITLEN(1), 1);
    CHECK_EQ(RNIC__BITLEN(65536), 17);
    CHECK_EQ(RNIC__POW2_AT_LEAST(1), 1);
    CHECK_EQ(RNIC__POW2_AT_LEAST(60), 64);
    CHECK_EQ(RNIC__POW2_AT_LEAST(64), 64);
    CHECK(rnic__mem_reserve(&off, 13, 3, &at));
    CHECK(rnic__mem_reserve(&off, 5, sizeof(uint64_t), &at));
    want = RNIC__MEM_PART(13, char[3]) + RNIC__MEM_PART(5, uint64_t);
    CHECK_EQ(off, want);
    CHECK_EQ(RNIC__HEAP_MEM(10), 2u * RNIC__MEM_PART(10, uint32_t) + RNIC__MEM_PART(10, uint64_t));
}

int main(void)
{
    RUN(test_heap_against_reference);
    RUN(test_advance_loop);
    RUN(test_reasons);
    RUN(test_node_lookup_and_layout);
    return test_summary();
}
