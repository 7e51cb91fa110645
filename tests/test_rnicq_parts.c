/* rnicq.h building blocks of the RED-SEA QoS engine against the thesis's numbers and small
 * independent reference models: ID FIFOs and their reset initializer (§3.8, §3.14), the
 * multipath TID frog leap, block segmentation arithmetic (§3.9, Fig. 3.10/3.11), and the
 * status registers with collective polling (§3.4, §3.6.2). */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "test.h"

static unsigned char mem_buf[1u << 16];

static rq_ids *make_ids(rq_ids *ids, const rq_ids_config *c)
{
    CHECK(rq_ids_mem_size(c) > 0 && rq_ids_mem_size(c) <= sizeof mem_buf);
    if (rq_ids_init(ids, c, mem_buf, sizeof mem_buf) != RNIC_OK)
        return NULL;
    return ids;
}

/* §3.14: one ID per cycle until every ID is in its FIFO: 512 + 64 + 16 = 592 cycles (the
 * thesis prints "512 + 64 + 16 = 588", a slip in its sum); IDs come out in order. */
static void test_ids_initializer_592_cycles(void)
{
    rq_ids_config c;
    rq_ids ids;
    uint32_t cycles = 0, id, i;
    rq_ids_config_default(&c);
    if (!make_ids(&ids, &c))
        return;
    CHECK(!rq_ids_ready(&ids));
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_TID, &id), RNIC_EEMPTY); /* nothing before the first cycle */
    while (!rq_ids_ready(&ids) && cycles < 10000u) {
        rq_ids_tick(&ids);
        cycles++;
    }
    CHECK_EQ(cycles, 592);
    CHECK_EQ(rq_ids_free_count(&ids, RQ_POOL_TID), 512);
    CHECK_EQ(rq_ids_free_count(&ids, RQ_POOL_FID1), 64);
    CHECK_EQ(rq_ids_free_count(&ids, RQ_POOL_FID4), 16);
    for (i = 0; i < 3; i++) { /* one dequeue per pool per cycle */
        CHECK_EQ(rq_ids_take(&ids, RQ_POOL_TID, &id), i == 0 ? RNIC_OK : RNIC_EBUSY);
        if (i == 0)
            CHECK_EQ(id, 0);
    }
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_FID1, &id), RNIC_OK);
    CHECK_EQ(id, 128); /* FIDs start at 512 / 4 = 128 */
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_FID4, &id), RNIC_OK);
    CHECK_EQ(id, 192); /* the first multipath group: FIDs 192..195 */
    rq_ids_tick(&ids);
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_FID4, &id), RNIC_OK);
    CHECK_EQ(id, 196);
    CHECK_EQ(ids.stats.port_conflicts, 2);
}

/* §3.8's example: FID 192 (group 192..195), 16 blocks: 768, 772, 776, 780, 769, ..., 783;
 * a unipath flow with FID 128 issues TIDs 512..515 and wraps. */
static void test_ids_tid_mapping_thesis_example(void)
{
    static const uint32_t want[16] = { 768, 772, 776, 780, 769, 773, 777, 781,
                                       770, 774, 778, 782, 771, 775, 779, 783 };
    rq_ids_config c;
    rq_ids ids;
    uint32_t b;
    rq_ids_config_default(&c);
    if (!make_ids(&ids, &c))
        return;
    for (b = 0; b < 16; b++)
        CHECK_EQ(rq_tid_multipath(&ids, 192, b), want[b]);
    CHECK_EQ(rq_tid_multipath(&ids, 192, 16), 768); /* wraps after 4 x 4 blocks */
    for (b = 0; b < 9; b++)
        CHECK_EQ(rq_tid_unipath(&ids, 128, b), 512u + b % 4u);
    CHECK_EQ(rq_tid_unipath(&ids, 255, 3), 1023); /* the last TID of the Transaction Table */
}

/* Bad give-backs are refused, counted, and change nothing. */
static void test_ids_bad_input(void)
{
    rq_ids_config c;
    rq_ids ids;
    uint32_t id, i;
    rq_ids_config_default(&c);
    if (!make_ids(&ids, &c))
        return;
    for (i = 0; i < 592; i++)
        rq_ids_tick(&ids);
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_TID, 5), RNIC_EEXIST);   /* already free */
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_TID, 512), RNIC_ENOENT); /* a congestion-managed TID */
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_FID1, 192), RNIC_ENOENT); /* a multipath FID */
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_FID4, 193), RNIC_ENOENT); /* not a group's first FID */
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_FID4, 256), RNIC_ENOENT);
    CHECK_EQ(rq_ids_give_back(&ids, (rq_id_pool)7, 1), RNIC_ENOENT);
    CHECK_EQ(ids.stats.errors.by_cause[RNIC_EEXIST], 1);
    CHECK_EQ(ids.stats.errors.by_cause[RNIC_ENOENT], 5);
    CHECK_EQ(rq_ids_free_count(&ids, RQ_POOL_TID), 512);
    CHECK_EQ(rq_ids_take(&ids, RQ_POOL_TID, &id), RNIC_OK);
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_TID, id), RNIC_OK);
    CHECK_EQ(rq_ids_give_back(&ids, RQ_POOL_TID, id), RNIC_EEXIST); /* duplicate return */
    CHECK_EQ(rq_ids_free_count(&ids, RQ_POOL_TID), 512);
    {
        rq_ids_config bad = c;
        bad.fid_groups = 15; /* 64 + 60 != 128 */
        CHECK_EQ(rq_ids_mem_size(&bad), 0);
        CHECK_EQ(rq_ids_init(&ids, &bad, mem_buf, sizeof mem_buf), RNIC_EINVAL);
        CHECK_EQ(rq_ids_init(&ids, &c, mem_buf, 8), RNIC_ENOSPC);
    }
}

/* Random takes and give-backs across cycles, during and after initialization, against a
 * reference of three plain FIFOs with a one-enqueue/one-dequeue-per-pool-per-cycle rule and
 * the initializer yielding to give-backs. */
static void test_ids_against_reference(void)
{
    enum { MAXQ = 1024 };
    static uint32_t fifo[3][MAXQ], held[3][MAXQ];
    uint32_t head[3], count[3], nheld[3], init_next = 0, cyc, pool;
    rq_ids_config c;
    rq_ids ids;
    rnic_prng p;
    uint64_t ops = 0;
    rnic_prng_seed(&p, 0x1d5u);
    rq_ids_config_default(&c);
    c.tids = 64; /* small pools so that they run dry */
    c.fids_unipath = 8;
    c.fid_groups = 2;
    if (!make_ids(&ids, &c))
        return;
    memset(head, 0, sizeof head);
    memset(count, 0, sizeof count);
    memset(nheld, 0, sizeof nheld);
    for (cyc = 0; cyc < 200000u && !TEST_FAILS(); cyc++) {
        int enq[3] = { 0, 0, 0 }, deq[3] = { 0, 0, 0 }, k;
        for (k = 0; k < 4; k++) {
            uint32_t id = 0, got = 0;
            rnic_err e, want;
            pool = (uint32_t)rnic_prng_below(&p, 3);
            if (rnic_prng_below(&p, 2)) { /* take */
                want = deq[pool] ? RNIC_EBUSY : count[pool] ? RNIC_OK : RNIC_EEMPTY;
                e = rq_ids_take(&ids, (rq_id_pool)pool, &got);
                CHECK_EQ(e, want);
                if (want == RNIC_OK) {
                    id = fifo[pool][head[pool]];
                    head[pool] = (head[pool] + 1u) % MAXQ;
                    count[pool]--;
                    deq[pool] = 1;
                    CHECK_EQ(got, id);
                    held[pool][nheld[pool]++] = id;
                }
            } else if (nheld[pool]) { /* give back a held ID */
                uint32_t at = (uint32_t)rnic_prng_below(&p, nheld[pool]);
                id = held[pool][at];
                want = enq[pool] ? RNIC_EBUSY : RNIC_OK;
                e = rq_ids_give_back(&ids, (rq_id_pool)pool, id);
                CHECK_EQ(e, want);
                if (want == RNIC_OK) {
                    fifo[pool][(head[pool] + count[pool]) % MAXQ] = id;
                    count[pool]++;
                    enq[pool] = 1;
                    held[pool][at] = held[pool][--nheld[pool]];
                }
            }
            ops++;
        }
        /* the reference initializer */
        if (init_next < 64u + 8u + 2u) {
            uint32_t ip = init_next < 64u ? 0u : init_next < 72u ? 1u : 2u;
            uint32_t iid = init_next < 64u ? init_next : init_next < 72u ? 16u + (init_next - 64u) : 24u + 4u * (init_next - 72u);
            if (!enq[ip]) {
                fifo[ip][(head[ip] + count[ip]) % MAXQ] = iid;
                count[ip]++;
                init_next++;
            }
        }
        rq_ids_tick(&ids);
        for (pool = 0; pool < 3; pool++)
            CHECK_EQ(rq_ids_free_count(&ids, (rq_id_pool)pool), count[pool]);
    }
    CHECK(rq_ids_ready(&ids));
    CHECK(ids.stats.init_waits > 0); /* give-backs did meet the initializer */
    printf("  %" PRIu64 " operations, %" PRIu64 " empty takes, %" PRIu64 " port conflicts, %" PRIu64
           " initializer waits\n",
           ops, ids.stats.empty_takes, ids.stats.port_conflicts, ids.stats.init_waits);
}

/* Block arithmetic against a walk over the destination's block boundaries. */
static void test_block_plan_against_walk(void)
{
    rnic_prng p;
    uint32_t t;
    rnic_prng_seed(&p, 0xb10c5u);
    for (t = 0; t < 200000u && !TEST_FAILS(); t++) {
        uint32_t block = 1u << rnic_prng_range(&p, 6, t % 7 == 0 ? 30 : 16);
        uint64_t size = t % 3 == 0 ? rnic_prng_range(&p, 1, 4u * block) : rnic_prng_log_range(&p, 1, (uint64_t)1 << 32);
        uint64_t dst = t % 5 == 0 ? (uint64_t)rnic_prng_below(&p, 4) * block + rnic_prng_below(&p, 2)
                                  : rnic_prng_next(&p) >> rnic_prng_below(&p, 64);
        rq_block_plan plan;
        uint64_t at = dst, i = 0, off, blocks_walked;
        uint32_t sz;
        if (dst > UINT64_MAX - size) {
            CHECK_EQ(rq_block_plan_make(dst, size, block, &plan), RNIC_ERANGE);
            continue;
        }
        CHECK_EQ(rq_block_plan_make(dst, size, block, &plan), RNIC_OK);
        /* the walk: each block ends at the next multiple of BLOCK or at the transfer's end */
        blocks_walked = (dst + size - 1u) / block - dst / block + 1u;
        CHECK_EQ(plan.total, blocks_walked);
        if (plan.total > 70u) { /* check the ends and a few inner blocks of big transfers */
            uint64_t probe[4];
            int k;
            probe[0] = 0;
            probe[1] = 1;
            probe[2] = plan.total / 2u;
            probe[3] = plan.total - 1u;
            for (k = 0; k < 4; k++) {
                uint64_t b = probe[k], start = b == 0 ? dst : (dst / block + b) * block;
                uint64_t end = (dst / block + b + 1u) * block;
                if (end > dst + size)
                    end = dst + size;
                CHECK_EQ(rq_block_plan_at(&plan, b, &off, &sz), RNIC_OK);
                CHECK_EQ(off, start - dst);
                CHECK_EQ(sz, end - start);
            }
            continue;
        }
        while (at < dst + size) {
            uint64_t end = (at / block + 1u) * block;
            if (end > dst + size)
                end = dst + size;
            CHECK_EQ(rq_block_plan_at(&plan, i, &off, &sz), RNIC_OK);
            CHECK_EQ(off, at - dst);
            CHECK_EQ(sz, end - at);
            at = end;
            i++;
        }
        CHECK_EQ(i, plan.total);
        CHECK_EQ(rq_block_plan_at(&plan, i, &off, &sz), RNIC_ENOENT);
    }
    {
        rq_block_plan plan;
        CHECK_EQ(rq_block_plan_make(0, 0, 65536, &plan), RNIC_EINVAL);
        CHECK_EQ(rq_block_plan_make(0, 1, 65535, &plan), RNIC_EINVAL);
        CHECK_EQ(rq_block_plan_make(0, 1, 32, &plan), RNIC_EINVAL);
        /* the thesis's case: a 4 GiB transfer at an unaligned destination */
        CHECK_EQ(rq_block_plan_make(65536u * 3u + 100u, (uint64_t)1 << 32, 65536, &plan), RNIC_OK);
        CHECK_EQ(plan.total, 65537);
        CHECK_EQ(plan.first, 65436);
        CHECK_EQ(plan.last, 100);
    }
}

/* Status registers against a plain array: transitions, single and collective reads with
 * clear-on-read, protection. */
static void test_status_against_reference(void)
{
    enum { D = 16, C = 64 };
    static uint8_t ref[D][C];
    rq_status_regs s;
    rnic_prng p;
    uint32_t t;
    uint64_t refused = 0;
    CHECK_EQ(rq_status_mem_size(16, 64), 16u * 2u * 8u);
    CHECK_EQ(rq_status_mem_size(16, 48), 0);
    if (rq_status_init(&s, D, C, mem_buf, sizeof mem_buf) != RNIC_OK) {
        CHECK(!"init");
        return;
    }
    memset(ref, 0, sizeof ref);
    rnic_prng_seed(&p, 0x57a7u);
    for (t = 0; t < 300000u && !TEST_FAILS(); t++) {
        uint32_t d = (uint32_t)rnic_prng_below(&p, D), ch = (uint32_t)rnic_prng_below(&p, C), op = (uint32_t)rnic_prng_below(&p, 8);
        uint32_t reader = rnic_prng_below(&p, 10) == 0 ? (uint32_t)rnic_prng_below(&p, D) : d;
        if (op < 5) { /* an engine transition, sometimes an illegal one */
            rq_status to = (rq_status)rnic_prng_below(&p, 4);
            int legal = (ref[d][ch] == RQ_IDLE && to == RQ_BUSY) || (ref[d][ch] == RQ_BUSY && (to == RQ_DONE || to == RQ_ERROR));
            CHECK_EQ(rq_status_set(&s, d, ch, to), legal ? RNIC_OK : RNIC_ESTATE);
            if (legal)
                ref[d][ch] = (uint8_t)to;
            else
                refused++;
        } else if (op < 7) {
            rq_status st = RQ_IDLE;
            rnic_err e = rq_status_read_one(&s, reader, d, ch, &st);
            CHECK_EQ(e, reader == d ? RNIC_OK : RNIC_EPERM);
            if (e == RNIC_OK) {
                CHECK_EQ(st, ref[d][ch]);
                if (ref[d][ch] >= RQ_DONE)
                    ref[d][ch] = RQ_IDLE;
            }
        } else {
            uint32_t half = ch / 32u, j;
            uint64_t bits = 0, want = 0;
            rnic_err e = rq_status_read32(&s, reader, d, half, &bits);
            CHECK_EQ(e, reader == d ? RNIC_OK : RNIC_EPERM);
            if (e == RNIC_OK) {
                for (j = 0; j < 32; j++) {
                    want |= (uint64_t)ref[d][half * 32u + j] << (2u * j);
                    if (ref[d][half * 32u + j] >= RQ_DONE)
                        ref[d][half * 32u + j] = RQ_IDLE;
                }
                CHECK_EQ(bits, want);
            }
        }
        CHECK_EQ(rq_status_peek(&s, d, ch), ref[d][ch]);
    }
    CHECK_EQ(s.stats.errors.by_cause[RNIC_ESTATE], refused);
    CHECK(s.stats.errors.by_cause[RNIC_EPERM] > 1000u);
    CHECK_EQ(rq_status_set(&s, D, 0, RQ_BUSY), RNIC_ENOENT);
    CHECK_EQ(rq_status_set(&s, 0, C, RQ_BUSY), RNIC_ENOENT);
}

/* An independent reading of the descriptor layout (docs/rnicq_qos_model.md): is this pair of
 * lines a descriptor the engine accepts? */
static int ref_desc_valid(const uint64_t l0[4], const uint64_t l1[4])
{
    uint64_t c = l0[3], size = l0[2];
    int inl = (int)((c >> 62) & 1u), cm = (int)((c >> 61) & 1u), mp = (int)((c >> 60) & 1u), nt = (int)((c >> 59) & 1u);
    int last = (int)(c >> 63), lines;
    if (c & 0x07fffffffffffff0ull) /* reserved bits 4..58 */
        return 0;
    if (size == 0 || size > ((uint64_t)1 << 32))
        return 0;
    if (inl && (size > 32 || cm || mp || nt))
        return 0;
    if (!inl && (size <= 32 || (mp && !cm)))
        return 0;
    lines = inl && size <= 8 ? 1 : 2;
    if (last != (lines == 1))
        return 0;
    if (lines == 2 && l1[3] != ((uint64_t)1 << 63))
        return 0;
    if (!inl && (l1[1] || l1[2]))
        return 0;
    return 1;
}

static uint64_t draw_word(rnic_prng *p)
{
    switch (rnic_prng_below(p, 4)) {
    case 0: return 0;
    case 1: return rnic_prng_below(p, 100);
    default: return rnic_prng_next(p);
    }
}

/* Encode/decode round trips, and random lines: decode accepts exactly what the independent
 * reading accepts, and what it accepts re-encodes to the same lines. */
static void test_descriptor_layout(void)
{
    rnic_prng p;
    uint32_t t, accepted = 0, refused = 0;
    rnic_prng_seed(&p, 0xde5cu);
    for (t = 0; t < 300000u && !TEST_FAILS(); t++) {
        uint64_t l0[4], l1[4], e0[4], e1[4];
        rq_transfer tr, back;
        uint32_t i;
        if (t & 1u) { /* a valid transfer through encode */
            memset(&tr, 0, sizeof tr);
            tr.kind = rnic_prng_below(&p, 3) == 0 ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
            tr.size = tr.kind == RQ_KIND_INLINE ? rnic_prng_range(&p, 1, 32) : rnic_prng_log_range(&p, 33, (uint64_t)1 << 32);
            tr.dst = rnic_prng_next(&p);
            tr.prio = (uint32_t)rnic_prng_below(&p, 16);
            if (tr.kind == RQ_KIND_REGULAR) {
                tr.src = rnic_prng_next(&p);
                tr.cm = rnic_prng_below(&p, 2) != 0;
                tr.multipath = tr.cm && rnic_prng_below(&p, 2);
                tr.notify = rnic_prng_below(&p, 2) != 0;
                tr.notify_target = draw_word(&p);
            } else {
                for (i = 0; i < tr.size; i++)
                    tr.payload[i] = (uint8_t)rnic_prng_next(&p);
            }
            memset(l0, 0xa5, sizeof l0);
            memset(l1, 0xa5, sizeof l1);
            CHECK_EQ(rq_desc_encode(&tr, l0, l1), RNIC_OK);
            CHECK_EQ(rq_desc_lines(l0[3]), tr.kind == RQ_KIND_INLINE && tr.size <= 8 ? 1 : 2);
            CHECK_EQ(rq_desc_decode(l0, l1, &back), RNIC_OK);
            CHECK(memcmp(&tr, &back, sizeof tr) == 0);
            continue;
        }
        for (i = 0; i < 4; i++) { /* random lines, often near-valid */
            l0[i] = draw_word(&p);
            l1[i] = draw_word(&p);
        }
        l0[3] = (rnic_prng_next(&p) & 0xf800000000000000ull) | rnic_prng_below(&p, 16) |
                (rnic_prng_below(&p, 8) == 0 ? (uint64_t)1 << rnic_prng_range(&p, 4, 58) : 0);
        if (rnic_prng_below(&p, 2)) /* bias towards the valid flag combinations */
            l0[3] &= ~(rnic_prng_below(&p, 2) ? (uint64_t)7 << 59 : (uint64_t)1 << 60);
        l0[2] = rnic_prng_below(&p, 2) ? rnic_prng_range(&p, 0, 40) : rnic_prng_range(&p, 0, ((uint64_t)1 << 32) + 2);
        if (rnic_prng_below(&p, 2))
            l1[3] = (uint64_t)1 << 63;
        if (rnic_prng_below(&p, 2))
            l1[1] = l1[2] = 0;
        if (rq_desc_decode(l0, l1, &back) == RNIC_OK) {
            CHECK(ref_desc_valid(l0, l1));
            accepted++;
            CHECK_EQ(back.size, l0[2]);
            CHECK_EQ(back.prio, l0[3] & 15u);
            CHECK_EQ(back.dst, back.kind == RQ_KIND_INLINE ? l0[0] : l0[1]);
            if (back.kind == RQ_KIND_INLINE) {
                CHECK_EQ(back.payload[0], l0[1] & 0xffu);
                if (back.size > 8)
                    CHECK_EQ(back.payload[8], l1[0] & 0xffu);
            } else {
                CHECK_EQ(back.src, l0[0]);
                CHECK_EQ(back.notify_target, l1[0]);
            }
            { /* re-encoding gives a descriptor that decodes to the same transfer (bytes of
               * an inline word beyond the size are ignored, so the words may differ there) */
                rq_transfer again;
                CHECK_EQ(rq_desc_encode(&back, e0, e1), RNIC_OK);
                CHECK_EQ(rq_desc_decode(e0, e1, &again), RNIC_OK);
                CHECK(memcmp(&again, &back, sizeof back) == 0);
                CHECK_EQ(e0[3], l0[3]);
                CHECK_EQ(e0[2], l0[2]);
            }
        } else {
            CHECK(!ref_desc_valid(l0, l1));
            refused++;
        }
    }
    printf("  random lines: %u accepted, %u refused\n", accepted, refused);
    CHECK(accepted > 1000u && refused > 1000u);
}

/* Palos Eq. 1 / Eq. 2: over many rounds each QP's bytes follow its Eq. 1 share, on the paper's
 * Fig. 10 tree (16 groups weighted 10..25, QPs weighted 2 and 3) and on random trees; a QP
 * weight change in one group leaves another group's bytes per round unchanged (isolation). */
static void test_palos_weights_eq1(void)
{
    static unsigned char pw_mem[1u << 16];
    rq_pw_config c;
    rq_pw w;
    rnic_prng p;
    uint32_t trial;
    double worst = 0;
    rq_pw_config_default(&c);
    rnic_prng_seed(&p, 0x9a105u);
    for (trial = 0; trial < 60 && !TEST_FAILS(); trial++) {
        uint32_t ngroups = trial == 0 ? 16u : (uint32_t)rnic_prng_range(&p, 1, 16), g, k, nq = 0, r;
        uint32_t qgroup[128], qweight[128], gweight[16];
        uint64_t bytes[128], total = 0, sumg = 0, sumw[16];
        CHECK_EQ(rq_pw_init(&w, &c, pw_mem, sizeof pw_mem), RNIC_OK);
        memset(sumw, 0, sizeof sumw);
        for (g = 0; g < ngroups; g++) {
            uint32_t members = trial == 0 ? 2u : (uint32_t)rnic_prng_range(&p, 1, 8);
            gweight[g] = trial == 0 ? 10u + g : (uint32_t)rnic_prng_range(&p, 1, 100);
            CHECK_EQ(rq_pw_create_group(&w, g, gweight[g]), RNIC_OK);
            sumg += gweight[g];
            for (k = 0; k < members; k++) {
                qgroup[nq] = g;
                qweight[nq] = trial == 0 ? 2u + k : (uint32_t)rnic_prng_range(&p, 1, 20);
                sumw[g] += qweight[nq];
                CHECK_EQ(rq_pw_set_qp(&w, nq, g, qweight[nq]), RNIC_OK);
                nq++;
            }
        }
        memset(bytes, 0, sizeof bytes);
        for (r = 0; r < 2000u; r++)
            for (k = 0; k < nq; k++) {
                uint64_t b = rq_pw_next_chunk(&w, k);
                bytes[k] += b;
                total += b;
            }
        /* a round moves N = QPs x MTU bytes in all (to within a byte per QP) */
        CHECK(total <= 2000ull * nq * 1500u && total + 2000ull * nq >= 2000ull * nq * 1500u);
        for (k = 0; k < nq; k++) {
            /* Eq. 1's bytes; allowed: the carry under a byte, the Q32.32 granularity's truncation
             * (weight / 2^32 byte per round), and the same in the total */
            double want = (double)gweight[qgroup[k]] / (double)sumg * (double)qweight[k] / (double)sumw[qgroup[k]] * (double)total;
            double dev = (double)bytes[k] > want ? (double)bytes[k] - want : want - (double)bytes[k];
            double allowed = 2.0 + 2000.0 * (double)qweight[k] / 4294967296.0 + 1e-6 * want;
            if (dev / allowed > worst)
                worst = dev / allowed;
            CHECK(dev <= allowed);
        }
    }
    printf("  worst deviation from Eq. 1 over 60 trees x 2000 rounds: %.2f of the allowed bytes\n", worst);
    /* isolation: group 0 keeps its bytes per round while group 1's QP weights change */
    CHECK_EQ(rq_pw_init(&w, &c, pw_mem, sizeof pw_mem), RNIC_OK);
    CHECK_EQ(rq_pw_create_group(&w, 0, 1), RNIC_OK);
    CHECK_EQ(rq_pw_create_group(&w, 1, 1), RNIC_OK);
    {
        uint32_t k, v, r;
        uint64_t a_before = 0;
        for (k = 0; k < 3; k++)
            CHECK_EQ(rq_pw_set_qp(&w, k, 0, 2), RNIC_OK);
        CHECK_EQ(rq_pw_set_qp(&w, 3, 1, 3), RNIC_OK);
        CHECK_EQ(rq_pw_set_qp(&w, 4, 1, 2), RNIC_OK);
        CHECK_EQ(rq_pw_set_qp(&w, 5, 1, 2), RNIC_OK);
        for (k = 0; k < 3; k++)
            a_before += rq_pw_next_chunk(&w, k);
        CHECK_EQ(a_before, 3u * 1500u); /* half of N = 6 x 1500 */
        for (v = 1; v <= 6; v++) { /* Fig. 11: QP 4's weight 1..6; group 0 over 1,000 rounds each */
            uint64_t a = 0;
            CHECK_EQ(rq_pw_set_qp(&w, 3, 1, v), RNIC_OK);
            for (r = 0; r < 1000u; r++)
                for (k = 0; k < 3; k++)
                    a += rq_pw_next_chunk(&w, k);
            CHECK(a + 3u >= 1000u * a_before && a <= 1000u * a_before + 3u);
        }
    }
    /* bad input: counted, nothing changes */
    CHECK_EQ(rq_pw_create_group(&w, 0, 5), RNIC_EEXIST);
    CHECK_EQ(rq_pw_create_group(&w, 64, 5), RNIC_ENOENT);
    CHECK_EQ(rq_pw_set_qp(&w, 7, 9, 1), RNIC_ENOENT);   /* no group 9 */
    CHECK_EQ(rq_pw_set_qp(&w, 7, 0, 0), RNIC_ERANGE);   /* weight 0 */
    CHECK_EQ(rq_pw_set_qp(&w, 2000, 0, 1), RNIC_ENOENT); /* unknown QP */
    CHECK_EQ(rq_pw_remove_qp(&w, 7), RNIC_ENOENT);
    CHECK_EQ(w.errors.by_cause[RNIC_ENOENT], 4);
    CHECK_EQ(w.assigned_qps, 6);
}

int main(void)
{
    RUN(test_ids_initializer_592_cycles);
    RUN(test_ids_tid_mapping_thesis_example);
    RUN(test_ids_bad_input);
    RUN(test_ids_against_reference);
    RUN(test_block_plan_against_walk);
    RUN(test_status_against_reference);
    RUN(test_descriptor_layout);
    RUN(test_palos_weights_eq1);
    return test_summary();
}
