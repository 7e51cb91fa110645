/* Palos Fig. 11: changing a QP's weight does not move another group. Group A: QP 1-3 weighted 2;
 * group B: QP 4 (weight 1, 2, .., 6 in turn), QP 5 weighted 2 and QP 6 weighted 3; the groups
 * weighted alike; all send 2 MB messages (backlogged), on the paper's setup
 * (examples/palos_sim.h). One run: QP 4's weight is changed with rq_palos_flow_open while traffic
 * flows, and every phase is measured after a settling time. Bandwidths are on the wire (the
 * paper's "both groups keep 50 Gb/s"), payload beside them. Run twice: chunks charged in wire
 * bytes (packet_overhead = 82: a chunk is a share of the link, the headline) and in payload bytes
 * (the paper's accounting: a chunk that is not a multiple of the MTU ends in a short packet
 * whose header the group pays on the wire).
 *   build/palos_weight_change [--csv FILE] [--quick]
 * Ends with: RESULT groupA_drift_pct=... groupA_gbps_min=... groupA_gbps_max=... max_qp_err_pct=...
 *            payload_chunks_groupA_drift_pct=... payload_chunks_groupA_payload_drift_pct=... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "palos_sim.h"
#include <math.h>

#define LARGE_MSG 2097152u

typedef struct outcome {
    double drift, a_min, a_max, max_qp_err, payload_drift;
} outcome;

/* ovh: packet_overhead of the chunks; f: CSV rows (NULL: none) */
static outcome run(uint32_t ovh, uint64_t us, FILE *f)
{
    uint32_t w4, k, qw[6] = {2, 2, 2, 1, 2, 3};
    rq_palos_flow_config fc;
    sim s;
    double a_first = 0, pa_first = 0;
    outcome r = {0, 1e30, 0, 0, 0};
    sim_init(&s, RQ_PALOS_CHUNK, ovh, 9);
    sim_group(&s, 0, 1);
    sim_group(&s, 1, 1);
    for (k = 0; k < 6u; k++)
        (void)sim_add_qp(&s, k < 3u ? 0u : 1u, qw[k], RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, LARGE_MSG);
    printf("chunks in %s bytes\n%4s %7s %7s %7s %7s %7s %7s  %7s %7s   (wire Gb/s)\n", ovh ? "wire" : "payload", "w4", "QP1", "QP2", "QP3", "QP4", "QP5", "QP6", "A", "B");
    for (w4 = 1; w4 <= 6u; w4++) {
        double secs, g[6], ga, gb, pa = 0, pb = 0, tot = 0;
        qw[3] = w4;
        rq_palos_flow_config_default(&fc);
        fc.group = 1;
        fc.weight = w4;
        if (rq_palos_flow_open(s.p, 3, &fc) != RNIC_OK) { /* an open flow: a new weight */
            fprintf(stderr, "flow_open failed\n");
            exit(1);
        }
        secs = sim_run(&s, 50, us); /* settle, then measure */
        for (k = 0; k < 6u; k++) {
            g[k] = sim_gbps(s.qp[k].wire_bytes, secs);
            tot += g[k];
            if (k < 3u)
                pa += sim_gbps(s.qp[k].bytes, secs);
            else
                pb += sim_gbps(s.qp[k].bytes, secs);
        }
        ga = g[0] + g[1] + g[2];
        gb = g[3] + g[4] + g[5];
        for (k = 0; k < 6u; k++) { /* Eq. 1: 1/2 x W / sum(W in group) of the total, in the charged bytes */
            double sumw = k < 3u ? 6.0 : (double)(w4 + 5u);
            double exp = 0.5 * qw[k] / sumw * (ovh ? tot : pa + pb), got = ovh ? g[k] : sim_gbps(s.qp[k].bytes, secs);
            r.max_qp_err = fmax(r.max_qp_err, fabs(got / exp - 1.0) * 100.0);
        }
        if (w4 == 1u) {
            a_first = ga;
            pa_first = pa;
        }
        r.drift = fmax(r.drift, fabs(ga / a_first - 1.0) * 100.0);
        r.payload_drift = fmax(r.payload_drift, fabs(pa / pa_first - 1.0) * 100.0);
        r.a_min = fmin(r.a_min, ga);
        r.a_max = fmax(r.a_max, ga);
        printf("%4u %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f  %7.3f %7.3f\n", (unsigned)w4, g[0], g[1], g[2], g[3], g[4], g[5], ga, gb);
        if (f)
            fprintf(f, "%u %u %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", (unsigned)ovh, (unsigned)w4, g[0], g[1], g[2], g[3], g[4], g[5], ga, gb, pa, pb);
    }
    sim_free(&s);
    return r;
}

int main(int argc, char **argv)
{
    int quick;
    FILE *f = NULL;
    uint64_t us;
    outcome wire, pay;
    f = sim_options(argc, argv, &quick, NULL);
    us = quick ? 500 : 2000;
    if (f)
        fprintf(f, "overhead qp4_weight qp1 qp2 qp3 qp4 qp5 qp6 groupA groupB groupA_payload groupB_payload\n");
    wire = run(SIM_WIRE_OVERHEAD, us, f);
    pay = run(0, us, f);
    if (f)
        fclose(f);
    printf("paper: both groups keep 50 Gb/s while QP 4's weight goes 1 .. 6\n");
    printf("RESULT groupA_drift_pct=%.4f groupA_gbps_min=%.3f groupA_gbps_max=%.3f max_qp_err_pct=%.4f "
           "payload_chunks_groupA_drift_pct=%.4f payload_chunks_groupA_payload_drift_pct=%.4f\n",
           wire.drift, wire.a_min, wire.a_max, wire.max_qp_err, pay.drift, pay.payload_drift);
    return 0;
}
