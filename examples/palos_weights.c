/* Palos Fig. 10: hierarchical weighted sharing. 16 groups weighted 10, 11, .., 25, each with two
 * QPs weighted 2 and 3, all sending 2 MB messages (backlogged), on the paper's setup
 * (examples/palos_sim.h). Every QP's and every group's measured bandwidth is set against
 * Eq. 1: Grp_W / sum(Grp_W) x W / sum(W in group) x MaxRate, MaxRate being the total measured.
 * Then the same setup with cut_align = 4096 (pieces cut on 4 KB segment boundaries, issue 9
 * item 4; chunks of 685 .. 2,571 B, so most QPs send one segment every few rounds): its worst
 * per-QP error against Eq. 1 is cut_align_max_err_pct.
 *   build/palos_weights [--csv FILE] [--quick]
 * Ends with: RESULT max_err_pct=... max_group_err_pct=... total_gbps=... cut_align_max_err_pct=...  */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "palos_sim.h"
#include <math.h>

#define NGROUPS 16u
#define LARGE_MSG 2097152u

#define SEGMENT 4096u

/* The Fig. 10 run: groups and QPs set up, warmed up and measured; the span and total bytes out. */
static void run_fig10(sim *s, int quick, uint32_t cut_align, double *secs_out, uint64_t *total_out)
{
    uint32_t g;
    sim_init_aligned(s, RQ_PALOS_CHUNK, 0, 3, cut_align);
    for (g = 0; g < NGROUPS; g++) {
        sim_group(s, g, 10u + g);
        (void)sim_add_qp(s, g, 2, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, LARGE_MSG);
        (void)sim_add_qp(s, g, 3, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, LARGE_MSG);
    }
    *secs_out = sim_run(s, 100, quick ? 1000 : 5000);
    *total_out = 0;
    for (g = 0; g < s->nqp; g++)
        *total_out += s->qp[g].bytes;
}

int main(int argc, char **argv)
{
    int quick;
    uint64_t total = 0;
    uint32_t g, k, sum_gw = 0;
    FILE *f = NULL;
    sim s;
    double secs, max_err = 0, max_gerr = 0;
    double align_err = 0;
    f = sim_options(argc, argv, &quick, NULL);
    for (g = 0; g < NGROUPS; g++)
        sum_gw += 10u + g;
    run_fig10(&s, quick, SEGMENT, &secs, &total); /* the cut_align variant */
    for (g = 0; g < NGROUPS; g++)
        for (k = 0; k < 2u; k++) {
            uint32_t q = 2u * g + k;
            double exp = (double)(10u + g) / sum_gw * (k ? 3.0 : 2.0) / 5.0 * sim_gbps(total, secs);
            align_err = fmax(align_err, fabs(sim_gbps(s.qp[q].bytes, secs) / exp - 1.0) * 100.0);
        }
    printf("cut_align %u: worst QP error against Eq. 1 %.4f %%, total %.3f Gb/s\n", SEGMENT, align_err, sim_gbps(total, secs));
    sim_free(&s);
    run_fig10(&s, quick, 0, &secs, &total); /* the paper's: no alignment */
    if (f)
        fprintf(f, "qp group group_weight qp_weight gbps expected_gbps group_gbps group_expected_gbps\n");
    printf("%3s %5s %4s %3s %9s %9s %7s\n", "qp", "group", "grpW", "W", "Gb/s", "Eq.1", "err%");
    for (g = 0; g < NGROUPS; g++) {
        double gexp = (double)(10u + g) / sum_gw * sim_gbps(total, secs);
        double ggot = sim_gbps(s.qp[2u * g].bytes + s.qp[2u * g + 1u].bytes, secs);
        max_gerr = fmax(max_gerr, fabs(ggot / gexp - 1.0) * 100.0);
        for (k = 0; k < 2u; k++) {
            uint32_t q = 2u * g + k, w = k ? 3u : 2u;
            double exp = gexp * w / 5.0, got = sim_gbps(s.qp[q].bytes, secs), err = (got / exp - 1.0) * 100.0;
            max_err = fmax(max_err, fabs(err));
            printf("%3u %5u %4u %3u %9.4f %9.4f %7.3f\n", (unsigned)q, (unsigned)g, (unsigned)(10u + g), (unsigned)w, got, exp, err);
            if (f)
                fprintf(f, "%u %u %u %u %.5f %.5f %.5f %.5f\n", (unsigned)q, (unsigned)g, (unsigned)(10u + g), (unsigned)w, got, exp, ggot, gexp);
        }
    }
    if (f)
        fclose(f);
    printf("RESULT max_err_pct=%.4f max_group_err_pct=%.4f total_gbps=%.3f cut_align_max_err_pct=%.4f\n", max_err, max_gerr,
           sim_gbps(total, secs), align_err);
    sim_free(&s);
    return 0;
}
