/* Eq. 2 reaches the wire: hcc_tx's rate records written into Tassel's rate register make a
 * backlogged QP leave at min(R_rev, R_cc), where R_rev follows Eq. 1 in double precision (an
 * independent reference) and R_cc is DCQCN's register, both changed at random. The composed RNIC
 * (examples/rnic_model) wires the two engines the same way. */
#define RNIC_IMPLEMENTATION
#include <math.h>
#include "test.h"
#include "ratelimit.h"
#include "hostcc.h"

#define CLK 250000000ull
#define FLOW 3u
#define LINE 100000000000ull
#define FLOOR 5000000000ull
#define PHASE 62500u   /* 250 us */
#define MEASURE 37500u /* the phase's last 150 us */

static uint32_t backlog(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user;
    for (i = 0; i < max && flow == FLOW; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].len = 65536;
        out[i].addr = (uint64_t)(index + i) * 65536u;
        out[i].tag = index + i;
    }
    return i;
}

/* Eq. 1 in double: R_rev x [1 - a (D - D_thr) - b (D - D_old)], D_old = D on the first ACK,
 * a non-positive bracket -> 0, then [floor, line]. */
static double eq1(double rev, double d, double d_old)
{
    double bracket = 1.0 - 0.0005 * (d - 200.0) - 0.0005 * (d - d_old);
    rev = bracket > 0 ? rev * bracket : 0.0;
    if (rev < (double)FLOOR)
        rev = (double)FLOOR;
    if (rev > (double)LINE)
        rev = (double)LINE;
    return rev;
}

static void test_eq2_reaches_tassel(void)
{
    rl_config rc;
    hcc_tx_config hc;
    rl *r = (rl *)malloc(sizeof *r);
    hcc_tx *tx = (hcc_tx *)malloc(sizeof *tx);
    void *rmem, *hmem;
    rnic_work w;
    rnic_prng g;
    double ref_rev = (double)LINE, ref_rcc = (double)LINE, d_old = 0;
    int have_d_old = 0, phase, checked = 0;
    uint64_t t, last_written = 0, probe_newest = 0;
    int have_probe = 0;

    rl_config_default(&rc);
    rc.clock_hz = CLK;
    rc.link_bps = LINE;
    rc.max_flows = 8;
    rc.source = backlog;
    hcc_tx_config_default(&hc);
    hc.clock_hz = CLK;
    hc.link_bps = LINE;
    hc.rate_floor_bps = FLOOR;
    hc.max_flows = 8;
    rmem = malloc(rl_mem_size(&rc));
    hmem = malloc(hcc_tx_mem_size(&hc));
    CHECK(r && tx && rmem && hmem);
    if (!r || !tx || !rmem || !hmem)
        return;
    CHECK_EQ(rl_init(r, &rc, rmem, rl_mem_size(&rc)), RNIC_OK);
    CHECK_EQ(hcc_tx_init(tx, &hc, hmem, hcc_tx_mem_size(&hc)), RNIC_OK);
    CHECK_EQ(hcc_tx_flow_open(tx, FLOW, NULL), RNIC_OK);
    CHECK_EQ(rl_set_rate(r, FLOW, LINE), RNIC_OK);
    CHECK_EQ(rl_doorbell(r, FLOW), RNIC_OK);
    rnic_prng_seed(&g, 12);

    for (phase = 0; phase < 16; phase++) {
        uint64_t start = (uint64_t)phase * PHASE, bytes = 0;
        double want, got;
        /* the phase's changes, at its first cycle: R_cc at random; one probe ACK (the newest
         * probe) with a random delay, so Eq. 1 runs once */
        if (phase > 0 && rnic_prng_below(&g, 3) != 0) {
            uint64_t rcc = FLOOR + rnic_prng_below(&g, (LINE - FLOOR) / 1000000u) * 1000000ull;
            CHECK_EQ(hcc_tx_set_rcc(tx, FLOW, rcc), RNIC_OK);
            ref_rcc = (double)rcc;
        }
        if (phase > 0 && have_probe) {
            uint32_t d = rnic_prng_below(&g, 601); /* 0 .. 600 ns: brackets 0.55 .. 1.4 */
            memset(&w, 0, sizeof w);
            w.flow = FLOW;
            w.index = (uint32_t)probe_newest;
            w.addr = 1000000u;
            w.raddr = 1000000u + d;
            CHECK_EQ(hcc_tx_push_probe_ack(tx, &w), RNIC_OK);
            ref_rev = eq1(ref_rev, (double)d, have_d_old ? d_old : (double)d);
            d_old = (double)d;
            have_d_old = 1;
            have_probe = 0;
        }
        for (t = start + 1; t <= start + PHASE; t++) {
            hcc_tx_advance_to(tx, t);
            while (hcc_tx_pop_rate(tx, &w) == RNIC_OK) { /* the composed RNIC's rate function */
                CHECK_EQ(w.flow, FLOW);
                CHECK_EQ(rl_set_rate(r, w.flow, w.addr), RNIC_OK);
                last_written = w.addr;
            }
            while (rl_now(r) < t) {
                rl_advance_to(r, t);
                while (rl_pop_tx(r, &w) == RNIC_OK) {
                    CHECK_EQ(hcc_tx_push_sent(tx, &w), RNIC_OK);
                    if (w.cycle > start + PHASE - MEASURE)
                        bytes += w.len;
                }
            }
            while (hcc_tx_pop_probe(tx, &w) == RNIC_OK) {
                probe_newest = w.index;
                have_probe = 1;
            }
        }
        want = ref_rev < ref_rcc ? ref_rev : ref_rcc;
        got = (double)bytes * 8.0 * (double)CLK / (double)MEASURE;
        /* the register: Eq. 2 of the engine's R_rev (Q32.32, within 1e-5 of the double reference) */
        CHECK_EQ(last_written, hcc_tx_rate(tx, FLOW));
        CHECK(fabs((double)last_written - want) <= want * 1e-5 + 1.0);
        /* the wire: within 2 % and two packets of the rate Eq. 2 asks for */
        if (fabs(got - want) > want * 0.02 + 2.0 * 1024.0 * 8.0 * (double)CLK / (double)MEASURE)
            fprintf(stderr, "phase %d: want %.3f Gb/s (R_rev %.3f, R_cc %.3f), Tassel sent %.3f Gb/s\n", phase,
                    want / 1e9, ref_rev / 1e9, ref_rcc / 1e9, got / 1e9);
        CHECK(fabs(got - want) <= want * 0.02 + 2.0 * 1024.0 * 8.0 * (double)CLK / (double)MEASURE);
        checked++;
    }
    /* the phases moved both registers: R_rev below the line and R_cc binding at least once each */
    CHECK_EQ(checked, 16);
    CHECK(hcc_tx_get_stats(tx)->probe_acks >= 10);
    CHECK(hcc_tx_get_stats(tx)->rcc_writes >= 5);
    printf("RESULT hostcc_tassel phases=%d probe_acks=%llu rcc_writes=%llu final_rev_gbps=%.3f final_rcc_gbps=%.3f\n",
           checked, (unsigned long long)hcc_tx_get_stats(tx)->probe_acks,
           (unsigned long long)hcc_tx_get_stats(tx)->rcc_writes, ref_rev / 1e9, ref_rcc / 1e9);
    free(rmem);
    free(hmem);
    free(r);
    free(tx);
}

int main(void)
{
    RUN(test_eq2_reaches_tassel);
    return test_summary();
}
