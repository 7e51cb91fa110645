/* Palos Fig. 9: group isolation. Group A holds 16 small flows (64 B messages), group B 1..8
 * large flows (2 MB messages), both groups weighted alike, all backlogged, on the paper's setup
 * (examples/palos_sim.h). Reported, normalised to the run with one large flow: group A's
 * message rate and group B's bandwidth, under the packet round-robin and under Palos with its
 * chunks charged in wire bytes (packet_overhead = 82: the headline) and in payload bytes (the
 * paper's accounting: B's chunks end in short packets whose headers change with B's flow
 * count). A second Palos run with ONE small flow in A puts A's chunk (up to 13.5 KB) far above
 * max_batch x 64 B: the visit must read further batches to use it.
 * The paper (ConnectX-5 without QoS): with 8 large flows group A drops to 10 % and group B
 * reaches 1.55x; Palos: neither moves with B's flow count.
 *   build/palos_groups [--csv FILE] [--quick]
 * Ends with: RESULT groupA_drift_pct=... groupB_drift_pct=... payload_chunks_groupA_drift_pct=...
 *            one_small_groupA_drift_pct=... rr_groupA_at8=... rr_groupB_at8=... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "palos_sim.h"
#include <math.h>

#define NSMALL 16u
#define LARGE_MSG 2097152u

static void run(uint32_t mode, uint32_t ovh, uint32_t nsmall, uint32_t nlarge, uint64_t us, double *a_rate, double *b_gbps)
{
    sim s;
    uint32_t i;
    uint64_t msgs = 0, bytes = 0;
    double secs;
    sim_init(&s, mode, ovh, 5u + nlarge);
    sim_group(&s, 0, 1); /* A */
    sim_group(&s, 1, 1); /* B */
    for (i = 0; i < nsmall; i++)
        (void)sim_add_qp(&s, 0, 1, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, 64);
    for (i = 0; i < nlarge; i++)
        (void)sim_add_qp(&s, 1, 1, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, LARGE_MSG);
    secs = sim_run(&s, 100, us);
    for (i = 0; i < nsmall; i++)
        msgs += s.qp[i].msgs;
    for (i = nsmall; i < s.nqp; i++)
        bytes += s.qp[i].bytes;
    *a_rate = (double)msgs / secs;
    *b_gbps = sim_gbps(bytes, secs);
    sim_free(&s);
}

int main(int argc, char **argv)
{
    int quick;
    uint64_t us;
    uint32_t k;
    FILE *f = NULL;
    double ra1 = 0, rb1 = 0, pa1 = 0, pb1 = 0, drift_a = 0, drift_b = 0, rr_a8 = 0, rr_b8 = 0;
    double ya1 = 0, drift_pay = 0, oa1 = 0, drift_one = 0;
    f = sim_options(argc, argv, &quick, NULL);
    us = quick ? 400 : 2000;
    if (f)
        fprintf(f, "large_flows rr_a rr_b palos_a palos_b rr_a_mps palos_a_mps rr_b_gbps palos_b_gbps payload_a one_small_a\n");
    printf("%6s  %8s %8s  %8s %8s  %9s %9s   (normalised to one large flow)  A Mmsg/s rr/palos\n", "large", "rr_A", "rr_B",
           "palos_A", "palos_B", "payload_A", "1small_A");
    for (k = 1; k <= 8; k++) {
        double ra, rb, pa, pb, ya, yb, oa, ob;
        run(RQ_PALOS_PACKET_RR, 0, NSMALL, k, us, &ra, &rb);
        run(RQ_PALOS_CHUNK, SIM_WIRE_OVERHEAD, NSMALL, k, us, &pa, &pb);
        run(RQ_PALOS_CHUNK, 0, NSMALL, k, us, &ya, &yb);
        run(RQ_PALOS_CHUNK, SIM_WIRE_OVERHEAD, 1, k, us, &oa, &ob);
        if (k == 1) {
            ra1 = ra;
            rb1 = rb;
            pa1 = pa;
            pb1 = pb;
            ya1 = ya;
            oa1 = oa;
        }
        drift_a = fmax(drift_a, fabs(pa / pa1 - 1.0) * 100.0);
        drift_b = fmax(drift_b, fabs(pb / pb1 - 1.0) * 100.0);
        drift_pay = fmax(drift_pay, fabs(ya / ya1 - 1.0) * 100.0);
        drift_one = fmax(drift_one, fabs(oa / oa1 - 1.0) * 100.0);
        if (k == 8) {
            rr_a8 = ra / ra1;
            rr_b8 = rb / rb1;
        }
        printf("%6u  %8.4f %8.4f  %8.4f %8.4f  %9.4f %9.4f   %.2f / %.2f\n", (unsigned)k, ra / ra1, rb / rb1, pa / pa1, pb / pb1, ya / ya1,
               oa / oa1, ra / 1e6, pa / 1e6);
        if (f)
            fprintf(f, "%u %.6f %.6f %.6f %.6f %.1f %.1f %.4f %.4f %.6f %.6f\n", (unsigned)k, ra / ra1, rb / rb1, pa / pa1, pb / pb1, ra, pa, rb,
                    pb, ya / ya1, oa / oa1);
    }
    if (f)
        fclose(f);
    printf("paper: ConnectX-5 without QoS at 8 large flows: group A 0.10, group B 1.55; Palos: flat\n");
    printf("RESULT groupA_drift_pct=%.3f groupB_drift_pct=%.3f payload_chunks_groupA_drift_pct=%.3f one_small_groupA_drift_pct=%.3f "
           "rr_groupA_at8=%.4f rr_groupB_at8=%.4f\n",
           drift_a, drift_b, drift_pay, drift_one, rr_a8, rr_b8);
    return 0;
}
