/* Palos Fig. 2 and Fig. 7: one large flow (2 MB messages) and 16 small flows in one group, the
 * small message size swept 64 .. 4096 B, on the paper's setup (examples/palos_sim.h). Each
 * class's result is normalised to its peak, measured alone in the same model: the small flows'
 * message rate, the large flow's bandwidth.
 *   rr        the commodity packet round-robin (one packet per flow per round), beside a
 *             calculation by the paper's method (one packet per flow per round on one link;
 *             the wire bytes w of a packet are this model's): small share =
 *             16 w_s / (16 w_s + w_L), large share = w_L / (16 w_s + w_L). The paper's dashed
 *             line itself is not in its text; its ConnectX-5 points (0.45 / 0.67 at 64 B) sum
 *             to 1.12, which no single-bottleneck calculation gives;
 *   palos     chunks counted in payload bytes, as in the paper (N = 17 x 1500 B: 1500 B each);
 *   palos_wire chunks charged with the 82 B of wire overhead per packet, so that a chunk is a
 *             share of the link's time whatever the message size.
 * The paper's claim for Palos: small flows at 16/17 and the large at 1/17 of their peaks.
 * palos_small_share, palos_large_share (at 64 B) and max_dev_pct (all sizes, both classes,
 * relative to 16/17 and 1/17) are for wire-charged chunks; the palos_payload_* keys for the
 * paper's payload chunks.
 *   build/palos_isolation [--csv FILE] [--quick]
 * Ends with: RESULT rr_small_share_64=... rr_large_share_64=... rr_max_dev_from_calc_pct=...
 *            palos_small_share=... palos_large_share=... max_dev_pct=... palos_payload_small_share_64=...
 *            palos_payload_large_share_64=... palos_payload_max_dev_pct=... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "palos_sim.h"
#include <math.h>

#define NSMALL 16u
#define LARGE_MSG 2097152u

typedef struct shares {
    double small, large;
} shares;

/* which: 0 both, 1 small only, 2 large only; returns small msgs/s and large B/s in *small, *large */
static void run(uint32_t mode, uint32_t ovh, uint32_t small_msg, int which, uint64_t us, double *small, double *large)
{
    sim s;
    uint32_t i, lq = 0;
    double secs;
    uint64_t msgs = 0;
    sim_init(&s, mode, ovh, 7);
    sim_group(&s, 0, 1);
    if (which != 1)
        lq = sim_add_qp(&s, 0, 1, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, LARGE_MSG);
    if (which != 2)
        for (i = 0; i < NSMALL; i++)
            (void)sim_add_qp(&s, 0, 1, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, small_msg);
    secs = sim_run(&s, 100, us);
    for (i = 0; i < s.nqp; i++)
        if (which == 1 || (which == 0 && i != lq))
            msgs += s.qp[i].msgs;
    *small = (double)msgs / secs;
    *large = which == 1 ? 0.0 : (double)s.qp[lq].bytes / secs;
    sim_free(&s);
}

static shares measure(uint32_t mode, uint32_t ovh, uint32_t size, uint64_t us)
{
    double ps, pl, cs, cl, dummy;
    shares r;
    run(mode, ovh, size, 1, us, &ps, &dummy);
    run(mode, ovh, size, 2, us, &dummy, &pl);
    run(mode, ovh, size, 0, us, &cs, &cl);
    r.small = cs / ps;
    r.large = cl / pl;
    return r;
}

static shares rr_calculated(uint32_t size)
{
    uint32_t k = (size + SIM_MTU - 1u) / SIM_MTU; /* packets per small message */
    double ws = ((double)size + (double)k * SIM_WIRE_OVERHEAD) / (double)k, wl = SIM_MTU + SIM_WIRE_OVERHEAD;
    shares r;
    r.small = NSMALL * ws / (NSMALL * ws + wl);
    r.large = wl / (NSMALL * ws + wl);
    return r;
}

static double dev_pct(double got, double want) { return fabs(got / want - 1.0) * 100.0; }

int main(int argc, char **argv)
{
    static const uint32_t sizes[] = {64, 128, 256, 512, 1024, 2048, 4096};
    int quick;
    uint64_t us;
    FILE *f = NULL;
    unsigned i;
    double rr_dev = 0, pal_dev = 0, pay_dev = 0;
    shares rr64 = {0, 0}, pw64 = {0, 0}, pay64 = {0, 0};
    f = sim_options(argc, argv, &quick, NULL);
    us = quick ? 400 : 2000;
    if (f)
        fprintf(f, "size rr_small rr_large calc_small calc_large palos_small palos_large palos_wire_small palos_wire_large\n");
    printf("%6s  %9s %9s  %9s %9s  %9s %9s  %9s %9s\n", "size", "rr_small", "rr_large", "calc_sm", "calc_lg", "palos_sm",
           "palos_lg", "wire_sm", "wire_lg");
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        shares rr = measure(RQ_PALOS_PACKET_RR, 0, sizes[i], us), calc = rr_calculated(sizes[i]);
        shares pay = measure(RQ_PALOS_CHUNK, 0, sizes[i], us), pw = measure(RQ_PALOS_CHUNK, SIM_WIRE_OVERHEAD, sizes[i], us);
        double d;
        printf("%6u  %9.4f %9.4f  %9.4f %9.4f  %9.4f %9.4f  %9.4f %9.4f\n", (unsigned)sizes[i], rr.small, rr.large, calc.small,
               calc.large, pay.small, pay.large, pw.small, pw.large);
        if (f)
            fprintf(f, "%u %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", (unsigned)sizes[i], rr.small, rr.large, calc.small,
                    calc.large, pay.small, pay.large, pw.small, pw.large);
        d = fmax(dev_pct(rr.small, calc.small), dev_pct(rr.large, calc.large));
        rr_dev = fmax(rr_dev, d);
        pal_dev = fmax(pal_dev, fmax(dev_pct(pw.small, 16.0 / 17.0), dev_pct(pw.large, 1.0 / 17.0)));
        pay_dev = fmax(pay_dev, fmax(dev_pct(pay.small, 16.0 / 17.0), dev_pct(pay.large, 1.0 / 17.0)));
        if (sizes[i] == 64) {
            rr64 = rr;
            pw64 = pw;
            pay64 = pay;
        }
    }
    if (f)
        fclose(f);
    printf("paper (ConnectX-5, 64 B): small 0.45, large 0.67; Palos: 16/17 = 0.9412, 1/17 = 0.0588\n");
    printf("RESULT rr_small_share_64=%.4f rr_large_share_64=%.4f rr_max_dev_from_calc_pct=%.3f palos_small_share=%.4f "
           "palos_large_share=%.4f max_dev_pct=%.3f palos_payload_small_share_64=%.4f palos_payload_large_share_64=%.4f "
           "palos_payload_max_dev_pct=%.3f\n",
           rr64.small, rr64.large, rr_dev, pw64.small, pw64.large, pal_dev, pay64.small, pay64.large, pay_dev);
    return 0;
}
