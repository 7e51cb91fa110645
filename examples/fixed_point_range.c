/* fixed_point_range: how accurate is Q32.32 cycles-per-byte pacing over the whole range?
 *
 * rnicq keeps a rate as cpb = clock * 8 / bps cycles per byte in unsigned Q32.32 (one
 * division when the rate is set), and a paced departure time as start + len * cpb in an
 * rnic_ftime (cycle + 32-bit fraction): one multiply per packet, no floating point.
 *
 * For clocks 100 MHz, 250 MHz, 1 GHz and rates 100 Kb/s .. 800 Gb/s this program paces
 * 100,000 packets (1500 B, then random 64..9000 B from a seeded PRNG) with
 * rnic_ftime_add_bytes() and compares the achieved rate (bytes * 8 * clock / cycles) with the
 * target. A drift test then changes the rate every 1000 packets and compares the final time
 * with the exact one computed from the true rates. Floating point (long double) is used
 * here only to measure; the engines never use it.
 *
 *   build/fixed_point_range [--csv FILE]
 *
 * The last line is "RESULT max_rate_err_ppm=... max_drift_ppm=... worst_case=clock/rate". */
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include <stdio.h>
#include <string.h>
#include "cli.h"

#define PACKETS 100000u
#define SEGMENT 1000u /* drift test: packets between rate changes */
#define SEED 42u

static const uint64_t clocks[] = { 100000000ull, 250000000ull, 1000000000ull };
static const uint64_t rates[] = { 100000ull, 1000000ull, 10000000ull, 100000000ull,
                                  1000000000ull, 10000000000ull, 25000000000ull,
                                  40000000000ull, 100000000000ull, 200000000000ull,
                                  400000000000ull, 800000000000ull };
#define N_CLOCKS (sizeof clocks / sizeof clocks[0])
#define N_RATES (sizeof rates / sizeof rates[0])

/* "100Kbps", "25Gbps", "250MHz", "1GHz": compact labels without spaces */
static const char *label(uint64_t v, const char *unit, char *buf, size_t n)
{
    static const char *const prefix[] = { "", "K", "M", "G", "T" };
    unsigned p = 0;
    while (v >= 1000u && v % 1000u == 0 && p < 4) {
        v /= 1000u;
        p++;
    }
    snprintf(buf, n, "%llu%s%s", (unsigned long long)v, prefix[p], unit);
    return buf;
}

static long double absl(long double x) { return x < 0 ? -x : x; }

/* A time in cycles as a number (the measurement only). */
static long double cycles_of(rnic_ftime t, rnic_ftime start)
{
    return (long double)(t.cycle - start.cycle) + ((long double)t.frac - (long double)start.frac) / 4294967296.0L;
}

/* Pace `PACKETS` packets at cpb; sizes 0 = random 64..9000 B. Returns the achieved rate's
 * relative error against bps. */
static long double pace(uint64_t bps, uint64_t clock, rnic_q32 cpb, uint32_t size, rnic_prng *prng)
{
    rnic_ftime start = rnic_ftime_at(0), t = start;
    uint64_t bytes = 0;
    uint32_t i;
    long double achieved;
    for (i = 0; i < PACKETS; i++) {
        uint64_t len = size ? size : rnic_prng_range(prng, 64, 9000);
        if (rnic_ftime_add_bytes(&t, len, cpb) != RNIC_OK)
            return 1.0L; /* cannot happen in the documented domain; reported as 1e6 ppm */
        bytes += len;
    }
    achieved = (long double)bytes * 8.0L * (long double)clock / cycles_of(t, start);
    return (achieved - (long double)bps) / (long double)bps;
}

/* Drift: random sizes, the rate redrawn from rates[first..N_RATES) every SEGMENT packets.
 * Returns (paced time - exact time) / exact time, the exact time from the true rates. */
static long double drift(uint64_t clock, unsigned first, rnic_prng *prng, long double *err_cycles)
{
    rnic_ftime start = rnic_ftime_at(0), t = start;
    long double exact = 0, paced;
    uint32_t i;
    uint64_t bps = 0, seg_bytes = 0;
    rnic_q32 cpb = 0;
    for (i = 0; i < PACKETS; i++) {
        uint64_t len = rnic_prng_range(prng, 64, 9000);
        if (i % SEGMENT == 0) {
            exact += (long double)seg_bytes * 8.0L * (long double)clock / (long double)(bps ? bps : 1u);
            seg_bytes = 0;
            bps = rates[first + rnic_prng_below(prng, N_RATES - first)];
            if (rnic_rate_to_cpb(bps, clock, &cpb) != RNIC_OK)
                return 1.0L;
        }
        if (rnic_ftime_add_bytes(&t, len, cpb) != RNIC_OK)
            return 1.0L;
        seg_bytes += len;
    }
    exact += (long double)seg_bytes * 8.0L * (long double)clock / (long double)bps;
    paced = cycles_of(t, start);
    *err_cycles = paced - exact;
    return (paced - exact) / exact;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--csv FILE]\n"
           "Q32.32 cycles-per-byte pacing over clocks 100 MHz .. 1 GHz and rates 100 Kb/s .. 800 Gb/s: the achieved\n"
           "rate's error and the drift over rate changes; a RESULT line at the end.\n"
           "  --csv FILE   every clock x rate cell and drift test as CSV; default none\n"
           "  --help, -h   this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    FILE *csv = NULL;
    const char *csv_path = NULL;
    int i;
    rnic_prng prng;
    long double max_rate_err = -1, max_drift = -1, max_gap = 0;
    uint64_t worst_clock = 0, worst_rate = 0;
    unsigned c, r;
    char b1[32], b2[32];

    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--csv"))
            csv_path = CLI_VALUE(i);
        else
            cli_unknown(argv[0], argv[i]);
    }
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            perror(csv_path);
            return 1;
        }
        fprintf(csv, "test,clock_hz,rate_bps,packets,sizes,cpb_raw,cpb_err_ppm,err_ppm\n");
    }
    rnic_prng_seed(&prng, SEED);

    printf("Q32.32 cycles-per-byte pacing: %u packets per cell, achieved rate vs target\n", PACKETS);
    printf("(cpb err: the stored cpb against clock*8/bps; 1500 B / random: achieved rate error)\n\n");
    printf("%-7s %-8s %18s %14s %12s %12s %14s\n", "clock", "rate", "cpb (cycles/B)", "cpb raw",
           "cpb err ppm", "1500 B ppm", "64-9000 B ppm");
    for (c = 0; c < N_CLOCKS; c++) {
        for (r = 0; r < N_RATES; r++) {
            uint64_t clock = clocks[c], bps = rates[r];
            rnic_q32 cpb = 0;
            long double exact, cpb_err, e_fixed, e_rand;
            if (rnic_rate_to_cpb(bps, clock, &cpb) != RNIC_OK) {
                printf("%s at %s: not representable\n", label(bps, "bps", b1, sizeof b1), label(clock, "Hz", b2, sizeof b2));
                return 1;
            }
            exact = (long double)clock * 8.0L / (long double)bps;
            cpb_err = ((long double)cpb / 4294967296.0L - exact) / exact;
            e_fixed = pace(bps, clock, cpb, 1500, &prng);
            e_rand = pace(bps, clock, cpb, 0, &prng);
            printf("%-7s %-8s %18.9Lf %14llu %12.5Lf %12.5Lf %14.5Lf\n", label(clock, "Hz", b2, sizeof b2),
                   label(bps, "bps", b1, sizeof b1), (long double)cpb / 4294967296.0L, (unsigned long long)cpb,
                   cpb_err * 1e6L, e_fixed * 1e6L, e_rand * 1e6L);
            if (csv) {
                fprintf(csv, "pace,%llu,%llu,%u,1500,%llu,%.6Lf,%.6Lf\n", (unsigned long long)clock,
                        (unsigned long long)bps, PACKETS, (unsigned long long)cpb, cpb_err * 1e6L, e_fixed * 1e6L);
                fprintf(csv, "pace,%llu,%llu,%u,64-9000,%llu,%.6Lf,%.6Lf\n", (unsigned long long)clock,
                        (unsigned long long)bps, PACKETS, (unsigned long long)cpb, cpb_err * 1e6L, e_rand * 1e6L);
            }
            /* pacing at cpb exactly gives the rate exact / cpb: anything beyond is loss between packets */
            if (absl(e_fixed + cpb_err / (1.0L + cpb_err)) > max_gap)
                max_gap = absl(e_fixed + cpb_err / (1.0L + cpb_err));
            if (absl(e_rand + cpb_err / (1.0L + cpb_err)) > max_gap)
                max_gap = absl(e_rand + cpb_err / (1.0L + cpb_err));
            if (absl(e_fixed) > max_rate_err || absl(e_rand) > max_rate_err) {
                max_rate_err = absl(e_fixed) > absl(e_rand) ? absl(e_fixed) : absl(e_rand);
                worst_clock = clock;
                worst_rate = bps;
            }
        }
    }

    printf("\nLargest gap between a cell's achieved error and the error of its cpb alone: %.3Le ppm\n"
           "(rnic_ftime carries the 2^-32-cycle fraction from packet to packet: nothing is lost)\n",
           max_gap * 1e6L);
    printf("\nDrift: %u packets of 64-9000 B, the rate redrawn every %u packets; paced time vs the\n"
           "exact time from the true rates (a drifting clock would grow with the packet count)\n\n",
           PACKETS, SEGMENT);
    printf("%-7s %-18s %16s %14s\n", "clock", "rates drawn from", "error (cycles)", "drift ppm");
    for (c = 0; c < N_CLOCKS; c++) {
        unsigned pass;
        for (pass = 0; pass < 2; pass++) {
            /* all twelve rates, then only 100G..800G (there slow rates cannot dilute the error) */
            unsigned first = pass == 0 ? 0u : 8u;
            long double err_cycles = 0, d = drift(clocks[c], first, &prng, &err_cycles);
            printf("%-7s %-18s %16.6Lf %14.3Le\n", label(clocks[c], "Hz", b2, sizeof b2),
                   pass == 0 ? "100Kbps..800Gbps" : "100Gbps..800Gbps", err_cycles, d * 1e6L);
            if (csv)
                fprintf(csv, "drift,%llu,%s,%u,64-9000,,,%.6Lf\n", (unsigned long long)clocks[c],
                        pass == 0 ? "100000-800000000000" : "100000000000-800000000000", PACKETS, d * 1e6L);
            if (absl(d) > max_drift)
                max_drift = absl(d);
        }
    }
    if (csv && fclose(csv) != 0) {
        perror("csv");
        return 1;
    }
    printf("\nRESULT max_rate_err_ppm=%.6Lf max_drift_ppm=%.6Lf worst_case=%s/%s\n", max_rate_err * 1e6L,
           max_drift * 1e6L, label(worst_clock, "Hz", b2, sizeof b2), label(worst_rate, "bps", b1, sizeof b1));
    return 0;
}
