/* tonic_newreno_200 -- Tonic Fig. 3c (NSDI 2020 §6.2.1): two senders each start 100 NewReno flows
 * to one receiver, 200 flows share its 10 Gb/s link for 5 s (5.5 MB switch buffer, RTT 10 us,
 * 1,000 B segments, 200 ms minimum RTO, delayed ACKs); the CDF of each flow's average throughput
 * beside ns-3's TcpNewReno on the same set-up (examples/ns3/tonic_newreno_ns3.cc --mode=many, run
 * here when built).
 *
 *   build/tonic_newreno_200 [--ms N | --quick] [--flows-per-host N] [--csv F] [--ns3 BIN] [--ns3-csv F]
 *
 * CSV: flow,host,mbps (the model); ns-3 writes flow,host,bytes_acked,mbps to --ns3-csv.
 * RESULT mean_mbps_model mean_mbps_ns3 cdf_ks_distance jain_model jain_ns3 model_host_s ns3_host_s. */
#define _POSIX_C_SOURCE 200809L
#include "rnic_model/tonic_sim.h"
#include <string.h>
#include <time.h>
#include "cli.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double jain(const double *x, uint32_t n)
{
    double s = 0, q = 0;
    uint32_t i;
    for (i = 0; i < n; i++) {
        s += x[i];
        q += x[i] * x[i];
    }
    return q > 0 ? s * s / ((double)n * q) : 0.0;
}

static double mean(const double *x, uint32_t n)
{
    double s = 0;
    uint32_t i;
    for (i = 0; i < n; i++)
        s += x[i];
    return n ? s / n : 0.0;
}

/* Two-sample Kolmogorov-Smirnov distance: the largest gap between the empirical CDFs. */
static double ks_distance(double *a, uint32_t na, double *b, uint32_t nb)
{
    uint32_t i = 0, j = 0;
    double d = 0;
    qsort(a, na, sizeof *a, cmp_double);
    qsort(b, nb, sizeof *b, cmp_double);
    while (i < na && j < nb) {
        double x = a[i] <= b[j] ? a[i] : b[j], gap;
        while (i < na && a[i] <= x)
            i++;
        while (j < nb && b[j] <= x)
            j++;
        gap = (double)i / na - (double)j / nb;
        if (gap < 0)
            gap = -gap;
        if (gap > d)
            d = gap;
    }
    return d;
}

/* Runs ns-3 and reads its per-flow CSV; returns the number of flows read (0 on failure). */
static uint32_t run_ns3(const char *bin, double seconds, uint32_t fph, const char *csv, double *mbps, uint32_t max,
                        double *host_s)
{
    char cmd[1024], line[512];
    FILE *p;
    uint32_t n = 0;
    snprintf(cmd, sizeof cmd, "%s --mode=many --flows-per-host=%u --duration=%.6f --csv=%s", bin, fph, seconds, csv);
    p = popen(cmd, "r");
    if (!p)
        return 0;
    while (fgets(line, sizeof line, p)) {
        char *s = strstr(line, "ns3_host_s=");
        if (s)
            sscanf(s, "ns3_host_s=%lf", host_s);
    }
    if (pclose(p) != 0)
        return 0;
    p = fopen(csv, "r");
    if (!p)
        return 0;
    while (fgets(line, sizeof line, p) && n < max) {
        unsigned flow, host;
        unsigned long long bytes;
        double m;
        if (sscanf(line, "%u,%u,%llu,%lf", &flow, &host, &bytes, &m) == 4)
            mbps[n++] = m;
    }
    fclose(p);
    return n;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--ms N | --quick] [--flows-per-host N] [--csv F] [--ns3 BIN] [--ns3-csv F]\n"
           "Tonic Fig. 3c: two senders x N NewReno flows, beside ns-3's TcpNewReno when its program is built; a RESULT\n"
           "line at the end.\n"
           "  --ms N               simulated time [ms]; default 5000; range 0.001..1000000\n"
           "  --quick              --ms 100 (make test), ns-3's CSV to build/tonic_newreno_200_quick_ns3.csv\n"
           "  --flows-per-host N   NewReno flows per sender [flows]; default 100; range 1..10000\n"
           "  --csv F              the model's flow,host,mbps as CSV; default none\n"
           "  --ns3 BIN            the ns-3 program (not run when missing); default build/tonic_newreno_ns3\n"
           "  --ns3-csv F          where ns-3 writes its CSV; default build/tonic_newreno_200_ns3.csv\n"
           "  --help, -h           this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    ts_config c;
    ts_sim s;
    double ms = 5000.0, *model, *ns3v, t0, t1, ns3_host_s = 0, seconds;
    uint32_t fph = 100, i, n, nn = 0;
    const char *csv = NULL, *ns3 = "build/tonic_newreno_ns3", *ns3_csv = "build/tonic_newreno_200_ns3.csv";
    FILE *probe;
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--ms"))
            ms = CLI_DOUBLE(i, 0.001, 1000000);
        else if (!strcmp(argv[i], "--quick")) { /* make test: 100 ms instead of the paper's 5 s */
            ms = 100.0;
            ns3_csv = "build/tonic_newreno_200_quick_ns3.csv"; /* leave the full run's CSV (the figure's) alone */
        }
        else if (!strcmp(argv[i], "--flows-per-host"))
            fph = (uint32_t)CLI_U64(i, 1, 10000);
        else if (!strcmp(argv[i], "--csv"))
            csv = CLI_VALUE(i);
        else if (!strcmp(argv[i], "--ns3"))
            ns3 = CLI_VALUE(i);
        else if (!strcmp(argv[i], "--ns3-csv"))
            ns3_csv = CLI_VALUE(i);
        else
            cli_unknown(argv[0], argv[i]);
    }
    ts_config_default(&c);
    c.protocol = tp_protocol_newreno();
    c.sack = false; /* ns-3 runs with Sack=false */
    c.senders = 2;
    c.flows_per_sender = fph;
    if (ts_init(&s, &c) != 0) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    seconds = ms * 1e-3;
    t0 = (double)clock() / CLOCKS_PER_SEC;
    ts_run_to(&s, (uint64_t)(seconds * (double)c.clock_hz));
    t1 = (double)clock() / CLOCKS_PER_SEC;
    n = ts_flows(&s);
    model = (double *)calloc(n, sizeof *model);
    ns3v = (double *)calloc(n, sizeof *ns3v);
    if (!model || !ns3v)
        return 1;
    for (i = 0; i < n; i++)
        model[i] = (double)s.acked_bytes[i] * 8.0 / seconds / 1e6;
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            fprintf(f, "flow,host,mbps\n");
            for (i = 0; i < n; i++)
                fprintf(f, "%u,%u,%.3f\n", i, i / fph, model[i]);
            fclose(f);
        }
    }
    probe = fopen(ns3, "r");
    if (probe) {
        fclose(probe);
        nn = run_ns3(ns3, seconds, fph, ns3_csv, ns3v, n, &ns3_host_s);
        if (nn == 0)
            fprintf(stderr, "ns-3 run failed: %s\n", ns3);
    }
    printf("model: %u flows, %.0f ms, %llu segments delivered, %llu retransmitted, %llu timeouts, %llu buffer drops, "
           "%llu of %llu cycles ticked\n",
           n, ms, (unsigned long long)s.rx_segments,
           (unsigned long long)(tp_get_stats(&s.senders[0])->segments_rtx + tp_get_stats(&s.senders[1])->segments_rtx),
           (unsigned long long)(tp_get_stats(&s.senders[0])->timeouts + tp_get_stats(&s.senders[1])->timeouts),
           (unsigned long long)s.sw.stats.dropped[NET_DROP_BUFFER], (unsigned long long)s.processed_cycles,
           (unsigned long long)s.now);
    printf("RESULT flows=%u mean_mbps_model=%.2f mean_mbps_ns3=%.2f cdf_ks_distance=%.3f jain_model=%.4f "
           "jain_ns3=%.4f model_host_s=%.2f ns3_host_s=%.2f\n",
           n, mean(model, n), nn ? mean(ns3v, nn) : -1.0, nn ? ks_distance(model, n, ns3v, nn) : -1.0, jain(model, n),
           nn ? jain(ns3v, nn) : -1.0, t1 - t0, ns3_host_s);
    free(model);
    free(ns3v);
    ts_free(&s);
    return 0;
}
