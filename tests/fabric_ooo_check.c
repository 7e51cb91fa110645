/* tests/fabric_ooo_check.c -- the fabric's byte checker for receivers that deliver out of order
 * (fm_nic.h, fm_nic__check: IRN, SACK, NDP and the TCPs' receivers deliver each segment as it
 * first arrives). Built and run by tests/fabric_protocols.sh (not a tests/test_*.c unit test:
 * it takes the composed model's headers, whose unused static functions the unit-test flags
 * refuse).
 *
 * The reference here is independent: a flow's messages are cut into segments the way the
 * transport cuts them (payload-sized, the last shorter, message numbers in the tag, FIRST / LAST
 * on the first / last segment of each message), then delivered in a random order within the
 * window, and the expected counts are the generator's own sums:
 *   - a permutation within the window: every byte counted once, every message once, 0 bad;
 *   - one segment delivered twice (at once, or after the frontier passed it): 1 bad, bytes once;
 *   - a segment overlapping another by part: bad;
 *   - one segment never delivered (the rest within the window behind it): its bytes missing,
 *     the messages from its own on not counted (the frontier stops there), 0 bad;
 *   - a segment beyond the window: bad. */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "fm_switch.h"
#include "test.h"

#define SEGS_MAX 4096u

typedef struct gen {
    rnic_work seg[SEGS_MAX];
    uint32_t n, msgs;
    uint32_t msg_of[SEGS_MAX]; /* the message each segment belongs to */
    uint64_t bytes;
} gen;

static fm_world world;
static fm_nic nic;

static void nic_setup(uint64_t base)
{
    memset(&world, 0, sizeof world);
    world.p.payload = 1024;
    memset(&nic, 0, sizeof nic);
    nic.w = &world;
    nic.nrecv = 1;
    nic.ooo = (fm_ooo **)calloc(1, sizeof *nic.ooo);
    nic.ooo[0] = (fm_ooo *)calloc(1, sizeof **nic.ooo);
    if (!nic.ooo || !nic.ooo[0] || rm_receiver_init(&nic.rx, 1, 1024, 1))
        exit(2);
    nic.rx.f[0].next_raddr = base;
    nic.rx.window_end = UINT64_MAX;
}

static void nic_teardown(void)
{
    free(nic.ooo[0]);
    free(nic.ooo);
    rm_receiver_free(&nic.rx);
}

/* `msgs` messages of 1 .. 20,000 bytes from address base, in 1,024-byte segments. */
static void generate(gen *g, rnic_prng *r, uint32_t msgs, uint64_t base)
{
    uint32_t m;
    uint64_t at = base;
    memset(g, 0, sizeof *g);
    for (m = 0; m < msgs; m++) {
        uint32_t len = 1u + (uint32_t)rnic_prng_below(r, 20000), off;
        for (off = 0; off < len && g->n < SEGS_MAX; off += 1024u) {
            rnic_work *w = &g->seg[g->n];
            w->flow = 0;
            w->raddr = at + off;
            w->len = len - off < 1024u ? len - off : 1024u;
            w->tag = RM_TAG(5u, m);
            w->op = RM_OP_MSG_FIRST | RM_OP_MSG_LAST;
            w->flags = (off == 0 ? RNIC_WORK_FIRST : 0u) | (off + 1024u >= len ? RNIC_WORK_LAST : 0u);
            g->msg_of[g->n++] = m;
        }
        at += len;
        g->bytes += len;
        g->msgs++;
    }
}

/* A delivery order: each segment moves at most `reach` places (a shuffle of blocks). */
static void shuffle_within(uint32_t *order, uint32_t n, uint32_t reach, rnic_prng *r)
{
    uint32_t i, b;
    for (i = 0; i < n; i++)
        order[i] = i;
    for (b = 0; b < n; b += reach) {
        uint32_t len = n - b < reach ? n - b : reach;
        for (i = len; i > 1; i--) {
            uint32_t j = (uint32_t)rnic_prng_below(r, i), x = order[b + i - 1u];
            order[b + i - 1u] = order[b + j];
            order[b + j] = x;
        }
    }
}

static gen g;
static uint32_t order[SEGS_MAX];

static void test_permutation_counts_every_byte_once(void)
{
    rnic_prng r;
    uint32_t round;
    rnic_prng_seed(&r, test_seed(11));
    for (round = 0; round < 50 && !TEST_FAILS(); round++) {
        uint64_t base = (uint64_t)round << 40;
        uint32_t i;
        generate(&g, &r, 1u + (uint32_t)rnic_prng_below(&r, 60), base);
        shuffle_within(order, g.n, 1u + (uint32_t)rnic_prng_below(&r, FM_TP_WINDOW), &r);
        nic_setup(base);
        for (i = 0; i < g.n; i++)
            fm_nic__check(&nic, &g.seg[order[i]]);
        CHECK_EQ(nic.rx.bad, 0);
        CHECK_EQ(nic.rx.bytes, g.bytes);
        CHECK_EQ(nic.rx.f[0].msgs, g.msgs);
        CHECK_EQ(nic.rx.f[0].next_raddr, base + g.bytes);
        CHECK_EQ(nic.rx.packets, g.n);
        CHECK_EQ(nic.ooo[0]->count, 0);
        nic_teardown();
    }
}

static void test_duplicate_is_bad(void)
{
    rnic_prng r;
    uint32_t round;
    rnic_prng_seed(&r, 12);
    for (round = 0; round < 50 && !TEST_FAILS(); round++) {
        uint32_t i, dup, late = round & 1u;
        generate(&g, &r, 8u + (uint32_t)rnic_prng_below(&r, 20), 0);
        shuffle_within(order, g.n, 32, &r);
        dup = (uint32_t)rnic_prng_below(&r, g.n);
        nic_setup(0);
        for (i = 0; i < g.n; i++) {
            fm_nic__check(&nic, &g.seg[order[i]]);
            if (i == dup && !late)
                fm_nic__check(&nic, &g.seg[order[i]]); /* twice at once */
        }
        if (late)
            fm_nic__check(&nic, &g.seg[order[dup]]); /* again after everything (behind the frontier) */
        CHECK_EQ(nic.rx.bad, 1);
        CHECK_EQ(nic.rx.bytes, g.bytes);
        CHECK_EQ(nic.rx.f[0].msgs, g.msgs);
        nic_teardown();
    }
}

static void test_overlap_is_bad(void)
{
    rnic_prng r;
    rnic_work w;
    rnic_prng_seed(&r, 13);
    generate(&g, &r, 10, 0);
    nic_setup(0);
    fm_nic__check(&nic, &g.seg[3]); /* ahead of the frontier */
    w = g.seg[3];
    w.raddr += 1u; /* one byte into it */
    fm_nic__check(&nic, &w);
    w = g.seg[2];
    w.len += 1u; /* reaches one byte into segment 3 */
    fm_nic__check(&nic, &w);
    CHECK_EQ(nic.rx.bad, 2);
    CHECK_EQ(nic.rx.bytes, g.seg[3].len);
    nic_teardown();
}

static void test_missing_segment_is_lost(void)
{
    rnic_prng r;
    uint32_t round;
    rnic_prng_seed(&r, 14);
    for (round = 0; round < 50 && !TEST_FAILS(); round++) {
        uint32_t i, gone, done_msgs;
        generate(&g, &r, 4u + (uint32_t)rnic_prng_below(&r, 9), 0); /* < 240 KB: inside the window behind the gap */
        shuffle_within(order, g.n, 16, &r);
        gone = (uint32_t)rnic_prng_below(&r, g.n);
        done_msgs = g.msg_of[order[gone]]; /* messages before the missing segment's complete */
        nic_setup(0);
        for (i = 0; i < g.n; i++)
            if (i != gone)
                fm_nic__check(&nic, &g.seg[order[i]]);
        CHECK_EQ(nic.rx.bad, 0);
        CHECK_EQ(nic.rx.bytes, g.bytes - g.seg[order[gone]].len);
        CHECK_EQ(nic.rx.f[0].msgs, done_msgs);
        CHECK_EQ(nic.rx.f[0].next_raddr, g.seg[order[gone]].raddr);
        nic_teardown();
    }
}

static void test_beyond_window_is_bad(void)
{
    rnic_work w;
    nic_setup(0);
    memset(&w, 0, sizeof w);
    w.raddr = (uint64_t)FM_TP_WINDOW * 1024u; /* ends one segment past the window */
    w.len = 1024;
    w.tag = RM_TAG(5u, 0);
    fm_nic__check(&nic, &w);
    CHECK_EQ(nic.rx.bad, 1);
    CHECK_EQ(nic.rx.bytes, 0);
    nic_teardown();
}

int main(void)
{
    RUN(test_permutation_counts_every_byte_once);
    RUN(test_duplicate_is_bad);
    RUN(test_overlap_is_bad);
    RUN(test_missing_segment_is_lost);
    RUN(test_beyond_window_is_bad);
    return test_summary();
}
