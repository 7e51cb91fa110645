/* Palos Fig. 3 and Fig. 8: latency of a latency-sensitive flow (one 64 B message at a time; the
 * next one a random 0..2 us after the previous one left the wire) beside 0..24 large flows (2 MB
 * messages, always backlogged), all in one group, on the paper's setup (examples/palos_sim.h).
 * Latency: doorbell -> last byte of the message on the wire (PCIe read and the protocol
 * engine's window included). Three schedulers:
 *   rr          the commodity packet round-robin;
 *   palos       Palos chunks, the small flow in the bandwidth class like the others;
 *   palos_prio  Palos with the small flow in the strict-priority latency queue (§IV-C).
 * The paper: on ConnectX-5 the small flow's latency grows 7.8x with 24 large flows (Fig. 3) and
 * 5x with 16 (Fig. 8), on Palos 1.79x with 16.
 * Beyond the paper, the cost of multi-WQE launch (Fig. 5) to the latency class: its mean latency
 * beside 16 backlogged flows of 64 B messages (bandwidth class), with one WQE per launch and with
 * the default (a launch of a whole small-message visit waits in the output port ahead of it).
 *   build/palos_latency [--csv FILE] [--quick] [--msg BYTES]
 * Ends with: RESULT latency_growth_rr=... latency_growth_palos=... latency_growth_palos_prio=...
 *            (at 24 large flows) growth16_rr=... growth16_palos=... growth16_palos_prio=... base_latency_ns=...
 *            prio_beside16small_ns=... prio_beside16small_launch1_ns=... */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "palos_sim.h"

#define LARGE_MSG 2097152u

/* launch_wqes 0: the default; other_msg: the backlogged flows' message size */
static double latency_ns(uint32_t mode, uint32_t cls, uint32_t nlarge, uint32_t msg, uint64_t us, uint32_t other_msg,
                         uint32_t launch_wqes)
{
    sim s;
    uint32_t i, q;
    double ns;
    sim_init_full(&s, mode, 0, 11u + nlarge, 0, launch_wqes);
    sim_group(&s, 0, 1);
    q = sim_add_qp(&s, 0, 1, cls, SIM_PING, msg);
    for (i = 0; i < nlarge; i++)
        (void)sim_add_qp(&s, 0, 1, RQ_PALOS_BANDWIDTH, SIM_BACKLOGGED, other_msg);
    (void)sim_run(&s, 200, us);
    if (s.qp[q].lat_n == 0) {
        fprintf(stderr, "no latency samples\n");
        exit(1);
    }
    ns = (double)s.qp[q].lat_sum_ps / (double)s.qp[q].lat_n / 1000.0;
    sim_free(&s);
    return ns;
}

static double mean_latency_ns(uint32_t mode, uint32_t cls, uint32_t nlarge, uint32_t msg, uint64_t us)
{
    return latency_ns(mode, cls, nlarge, msg, us, LARGE_MSG, 0);
}

int main(int argc, char **argv)
{
    static const uint32_t flows[] = {0, 1, 2, 4, 8, 12, 16, 20, 24};
    int quick;
    uint32_t msg = 64;
    uint64_t us;
    FILE *f = NULL;
    unsigned i;
    double base[3] = {0, 0, 0}, at16[3] = {0, 0, 0}, at24[3] = {0, 0, 0}, small[2];
    f = sim_options(argc, argv, &quick, &msg);
    if (msg == 0 || msg > 4096) {
        fprintf(stderr, "--msg: 1 .. 4096\n");
        return 2;
    }
    us = quick ? 1000 : 8000;
    if (f)
        fprintf(f, "large_flows rr_ns palos_ns palos_prio_ns rr_growth palos_growth palos_prio_growth\n");
    printf("%6s  %10s %10s %10s   (mean latency, ns)\n", "large", "rr", "palos", "palos_prio");
    for (i = 0; i < sizeof flows / sizeof flows[0]; i++) {
        double l[3];
        l[0] = mean_latency_ns(RQ_PALOS_PACKET_RR, RQ_PALOS_BANDWIDTH, flows[i], msg, us);
        l[1] = mean_latency_ns(RQ_PALOS_CHUNK, RQ_PALOS_BANDWIDTH, flows[i], msg, us);
        l[2] = mean_latency_ns(RQ_PALOS_CHUNK, RQ_PALOS_LATENCY, flows[i], msg, us);
        if (flows[i] == 0)
            memcpy(base, l, sizeof base);
        if (flows[i] == 16)
            memcpy(at16, l, sizeof at16);
        if (flows[i] == 24)
            memcpy(at24, l, sizeof at24);
        printf("%6u  %10.1f %10.1f %10.1f\n", (unsigned)flows[i], l[0], l[1], l[2]);
        if (f)
            fprintf(f, "%u %.2f %.2f %.2f %.4f %.4f %.4f\n", (unsigned)flows[i], l[0], l[1], l[2], l[0] / base[0], l[1] / base[1],
                    l[2] / base[2]);
    }
    if (f)
        fclose(f);
    small[0] = latency_ns(RQ_PALOS_CHUNK, RQ_PALOS_LATENCY, 16, msg, us, 64, 0);
    small[1] = latency_ns(RQ_PALOS_CHUNK, RQ_PALOS_LATENCY, 16, msg, us, 64, 1);
    printf("paper: ConnectX-5 7.8x at 24 large flows (Fig. 3), 5x at 16 (Fig. 8); Palos 1.79x at 16\n");
    printf("palos_prio beside 16 flows of 64 B messages: %.1f ns (default launch), %.1f ns (launch_wqes 1)\n", small[0],
           small[1]);
    printf("RESULT latency_growth_rr=%.3f latency_growth_palos=%.3f latency_growth_palos_prio=%.3f growth16_rr=%.3f "
           "growth16_palos=%.3f growth16_palos_prio=%.3f base_latency_ns=%.1f prio_beside16small_ns=%.1f "
           "prio_beside16small_launch1_ns=%.1f\n",
           at24[0] / base[0], at24[1] / base[1], at24[2] / base[2], at16[0] / base[0], at16[1] / base[1], at16[2] / base[2],
           base[0], small[0], small[1]);
    return 0;
}
