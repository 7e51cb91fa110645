/* Tassel wake-up storm (issue 13, item 1): a fast QP starves when many slow QPs come due
 * together in the FIFO schedule queue. Through ratelimit.h's public API only.
 *
 *   One QP (flow 0) at 80 Gb/s plus N QPs (flows 1..N) at 100 Kb/s, every QP backlogged with
 *   4 KB messages (the source returns WQEs forever), all doorbells written before cycle 0;
 *   250 MHz, 100 Gb/s link, the rest of the config default (mtu 4096: 4 KB packets).
 *   A slow QP sends its first packet at once, then its next one a packet time at 100 Kb/s
 *   later: 4096 B x 8 / 100 Kb/s = 327.68 ms = 81,920,000 cycles -- all N come due together
 *   (they were activated one per cycle by the EMUX, so within N cycles of each other).
 *   The run goes to DUE + 5 x N x 82 cycles + 2 ms: the slow packets take N x 82 link cycles
 *   (4096 B at 100 Gb/s = 81.92 cycles), and the fast QP then catches up what the gap owed at
 *   100 - 80 = 20 Gb/s above its rate, i.e. in about 4 x the gap.
 *
 * Measured on the fast QP's departures (the TX records of flow 0), against expectations from
 * its rate alone, never from the engine:
 *   gap    the largest gap between consecutive packets, in cycles and in x the ideal gap
 *          (4096 B x 8 / 80 Gb/s = 409.6 ns = 102.4 cycles);
 *   burst  the largest excess over the rate: max over packets a <= b of
 *          (bytes of packets a..b) - rate x (cycle_b - cycle_a); a paced stream gives one
 *          packet (4,096 B), a catch-up after a gap the bytes the gap owed;
 *   window the worst |bytes in [s, s + 1 ms) - 80 Gb/s x 1 ms| / (80 Gb/s x 1 ms) over every
 *          window start s (sliding, every cycle) with the window inside [first departure, end].
 * Control: N = 0 (no storm): the gap must be within 3 cycles of ideal and every 1 ms window
 * within 1 %, else the measurement is suspect (exit 1). The measures are also checked on
 * synthetic departure streams with known answers before any run.
 *
 * Prints a line per N, the control, and last:
 *   RESULT fifo_gap_x=... fifo_burst_mb=... fifo_rate_err_pct=... slow_qps=<largest N> ...
 * Options: --qps-list 100,250,... (default 100,250,500,1000,2000,4000,8000,16000),
 * --quick (N up to 1000), --csv FILE (n,gap_cycles,gap_x,burst_bytes,rate_err_pct: one row
 * per N, for docs/figures/tassel_storm.gp). */
#define RL_IMPLEMENTATION
#include "ratelimit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CLOCK_HZ 250000000ull
#define LINK_BPS 100000000000ull
#define FAST_BPS 80000000000ull
#define SLOW_BPS 100000ull
#define MTU 4096u
#define MSG 4096u
#define MS 250000ull                     /* cycles per millisecond */
#define DUE 81920000ull                  /* MSG x 8 / SLOW_BPS in cycles: the slow QPs' second packets */
#define SLOW_LINK_CYCLES 82ull           /* MSG at LINK_BPS: 81.92 cycles, rounded up */
#define MIN_FLOWS 16384u                 /* max_flows for every N up to 16,383 (one engine config) */
#define MAX_LIST 64

/* The fast QP's ideal gap and rate, from the rate alone. */
static const double ideal_gap = (double)MSG * 8.0 * (double)CLOCK_HZ / (double)FAST_BPS; /* 102.4 */
static const double fast_bytes_per_cycle = (double)FAST_BPS / 8.0 / (double)CLOCK_HZ;   /* 40 */

/* An endless backlog of 4 KB messages on every QP; the tag names (flow, index). */
static uint32_t backlog(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max)
{
    uint32_t i;
    (void)user;
    for (i = 0; i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].len = MSG;
        out[i].tag = (uint64_t)flow << 32 | (index + i);
    }
    return max;
}

/* The one place the engine is configured. `option` selects the ranked schedule queue
 * (RL_SCHEDULE_RANKED, docs/tassel_model.md "Schedule-queue option"); 0 keeps the paper's FIFO. */
static int storm_config(rl_config *cfg, uint32_t flows, int option)
{
    rl_config_default(cfg);
    cfg->clock_hz = CLOCK_HZ;
    cfg->link_bps = LINK_BPS;
    cfg->mtu = MTU; /* the default: 4 KB packets (the ideal gap above assumes it) */
    cfg->max_flows = flows;
    cfg->source = backlog;
    cfg->schedule_queue = option ? RL_SCHEDULE_RANKED : RL_SCHEDULE_FIFO;
    return 1;
}

/* The fast QP's departures. */
typedef struct trace {
    uint64_t *cycle;
    uint32_t *len;
    size_t n, cap;
} trace;

static int trace_push(trace *t, uint64_t cycle, uint32_t len)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1u << 20;
        uint64_t *c = (uint64_t *)realloc(t->cycle, cap * sizeof *c);
        uint32_t *l;
        if (!c)
            return 0;
        t->cycle = c;
        l = (uint32_t *)realloc(t->len, cap * sizeof *l);
        if (!l)
            return 0;
        t->len = l;
        t->cap = cap;
    }
    t->cycle[t->n] = cycle;
    t->len[t->n] = len;
    t->n++;
    return 1;
}

typedef struct measure {
    uint64_t gap, gap_at;  /* largest gap (cycles) and the cycle of the packet that ended it */
    uint64_t gap_start, gap_due; /* the largest gap before DUE / 2 (start-up storm) and after (due storm) */
    double burst;          /* bytes */
    double err_pct;        /* worst 1 ms window */
    uint64_t err_at;       /* its start */
} measure;

/* Bytes of the packets with cycle in [s, s + w): prefix sums and binary search. */
static size_t lower_idx(const trace *t, uint64_t c) /* first packet with cycle >= c */
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->cycle[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The three measures over departures t, windows of `w` cycles inside [first departure, end]. */
static int measure_trace(const trace *t, uint64_t end, uint64_t w, double bytes_per_cycle, measure *m)
{
    uint64_t *pre; /* pre[i]: bytes of packets 0..i-1 */
    double s_min, due = bytes_per_cycle * (double)w;
    uint64_t bytes = 0, t0;
    size_t i;
    memset(m, 0, sizeof *m);
    if (t->n < 2)
        return 0;
    pre = (uint64_t *)malloc((t->n + 1) * sizeof *pre);
    if (!pre)
        return 0;
    pre[0] = 0;
    for (i = 0; i < t->n; i++)
        pre[i + 1] = pre[i] + t->len[i];
    /* gap */
    for (i = 1; i < t->n; i++) {
        uint64_t g = t->cycle[i] - t->cycle[i - 1];
        if (g > m->gap) {
            m->gap = g;
            m->gap_at = t->cycle[i];
        }
        if (t->cycle[i] < DUE / 2) {
            if (g > m->gap_start)
                m->gap_start = g;
        } else if (g > m->gap_due)
            m->gap_due = g;
    }
    /* burst: S_i = bytes(0..i) - r c_i; max over a <= b of S_b - (S_a - len_a) */
    s_min = 1e300;
    for (i = 0; i < t->n; i++) {
        double s;
        bytes += t->len[i];
        s = (double)bytes - bytes_per_cycle * (double)t->cycle[i];
        if (s - t->len[i] < s_min)
            s_min = s - t->len[i];
        if (s - s_min > m->burst)
            m->burst = s - s_min;
    }
    /* windows: the count in [s, s + w) changes only where s passes c_i + 1 (packet i leaves)
     * or s + w passes c_j (packet j enters, s = c_j - w + 1); every value is taken at one of
     * those starts or at t0 */
    t0 = t->cycle[0];
    for (i = 0; i <= 2 * t->n; i++) {
        uint64_t s;
        double b, e;
        if (i == 2 * t->n)
            s = t0;
        else if (i % 2 == 0)
            s = t->cycle[i / 2] + 1;
        else {
            if (t->cycle[i / 2] + 1 < w)
                continue;
            s = t->cycle[i / 2] + 1 - w;
        }
        if (s < t0 || s + w > end + 1)
            continue;
        b = (double)(pre[lower_idx(t, s + w)] - pre[lower_idx(t, s)]);
        e = 100.0 * (b - due) / due;
        if (e < 0)
            e = -e;
        if (e > m->err_pct) {
            m->err_pct = e;
            m->err_at = s;
        }
    }
    free(pre);
    return 1;
}

/* The measures on synthetic streams with known answers: a stream paced at exactly 40 B/cycle
 * (4096 B every 102.4 cycles, departures floored to cycles), then the same with a gap of
 * G cycles followed by a catch-up at 100 Gb/s (a packet every 82 cycles) until the stream is
 * back on its schedule. Expected: gap 103 / G + about 102; burst one packet / about 40 G;
 * windows within 0.05 % / G / 250,000 at least. */
static int self_check(void)
{
    trace t;
    measure m;
    uint64_t i, c, end = 10 * MS, G = 50000, gs = 3 * MS;
    int ok = 1;
    memset(&t, 0, sizeof t);
    for (i = 0; (c = i * 1024u / 10u) < end; i++)
        if (!trace_push(&t, c, MSG))
            return 0;
    ok &= measure_trace(&t, end, MS, fast_bytes_per_cycle, &m);
    ok &= m.gap == 103 && m.burst >= MSG - 1 && m.burst <= MSG + 41 && m.err_pct < 0.05;
    if (!ok)
        printf("self-check (paced): gap %llu burst %.0f err %.4f %%\n", (unsigned long long)m.gap, m.burst,
               m.err_pct);
    t.n = 0;
    /* paced up to gs, nothing for G cycles, then back to back at 82 cycles until on schedule */
    for (i = 0; (c = i * 1024u / 10u) < gs; i++)
        ok &= trace_push(&t, c, MSG);
    c = t.cycle[t.n - 1] + G;
    for (; c < end; i++) {
        ok &= trace_push(&t, c, MSG);
        c += 82; /* back to back at 100 Gb/s ... */
        if (c < (i + 1) * 1024u / 10u)
            c = (i + 1) * 1024u / 10u; /* ... until back on the schedule */
    }
    {
        int ok2 = measure_trace(&t, end, MS, fast_bytes_per_cycle, &m);
        double owed = fast_bytes_per_cycle * (double)G; /* 2,000,000 B */
        double werr = 100.0 * (double)G / (double)MS;   /* the gap alone in a window: 20 % */
        ok2 &= m.gap == G && m.burst >= owed - 2.0 * MSG && m.burst <= owed + 2.0 * MSG && m.err_pct >= werr - 0.1 &&
               m.err_pct <= werr + 0.1;
        if (!ok2)
            printf("self-check (gap %llu): gap %llu burst %.0f (owed %.0f) err %.4f %% (expected %.2f)\n",
                   (unsigned long long)G, (unsigned long long)m.gap, m.burst, owed, m.err_pct, werr);
        ok &= ok2;
    }
    free(t.cycle);
    free(t.len);
    return ok;
}

typedef struct result {
    uint32_t n;
    measure m;
    uint64_t end;
    uint64_t slow_first, slow_due; /* slow packets sent before DUE / 2 and after */
    uint64_t fast_packets;
} result;

/* One run: N slow QPs, the schedule-queue option on or off. 0: failed (or option missing). */
static int run_storm(uint32_t nslow, int option, result *res)
{
    rl_config cfg;
    rl *r;
    void *mem;
    size_t size;
    trace t;
    rnic_work w;
    uint32_t flows = nslow + 1u < MIN_FLOWS ? MIN_FLOWS : nslow + 1u, f;
    uint64_t end = DUE + 5ull * nslow * SLOW_LINK_CYCLES + 2u * MS;
    int ok;
    memset(res, 0, sizeof *res);
    memset(&t, 0, sizeof t);
    res->n = nslow;
    res->end = end;
    if (flows > RL_MAX_FLOWS || !storm_config(&cfg, flows, option))
        return 0;
    size = rl_mem_size(&cfg);
    r = (rl *)malloc(sizeof *r);
    mem = size ? malloc(size) : NULL;
    if (!r || !mem || rl_init(r, &cfg, mem, size) != RNIC_OK) {
        free(mem);
        free(r);
        return 0;
    }
    /* all doorbells before cycle 0: the fast QP first, then the slow ones */
    ok = rl_set_rate(r, 0, FAST_BPS) == RNIC_OK && rl_doorbell(r, 0) == RNIC_OK;
    for (f = 1; f <= nslow; f++)
        ok &= rl_set_rate(r, f, SLOW_BPS) == RNIC_OK && rl_doorbell(r, f) == RNIC_OK;
    while (ok && rl_now(r) < end) {
        rl_advance_to(r, end); /* stops early when the TX port fills */
        while (rl_pop_tx(r, &w) == RNIC_OK) {
            if (w.flow == 0)
                ok &= trace_push(&t, w.cycle, w.len);
            else if (w.cycle < DUE / 2)
                res->slow_first++;
            else
                res->slow_due++;
        }
    }
    res->fast_packets = t.n;
    ok = ok && measure_trace(&t, end, MS, fast_bytes_per_cycle, &res->m);
    free(t.cycle);
    free(t.len);
    free(mem);
    free(r);
    return ok;
}

static void print_result(const char *what, const result *x)
{
    printf("%-6s N=%-6u gap %8llu cycles = %8.1f x ideal (start-up %llu, due %llu; worst ends at cycle %llu)  "
           "burst %10.0f B = %7.3f MB  1 ms windows: worst %6.2f %% (from cycle %llu)  slow pkts %llu + %llu\n",
           what, (unsigned)x->n, (unsigned long long)x->m.gap, (double)x->m.gap / ideal_gap,
           (unsigned long long)x->m.gap_start, (unsigned long long)x->m.gap_due, (unsigned long long)x->m.gap_at,
           x->m.burst, x->m.burst / 1e6, x->m.err_pct, (unsigned long long)x->m.err_at,
           (unsigned long long)x->slow_first, (unsigned long long)x->slow_due);
    fflush(stdout);
}

static int parse_list(const char *s, uint32_t *list, int *n)
{
    char *e;
    *n = 0;
    while (*s) {
        unsigned long v;
        if (*s < '0' || *s > '9') /* decimal digits only: no sign, blank or 0x */
            return 0;
        v = strtoul(s, &e, 10);
        if (e == s || v < 1 || v >= RL_MAX_FLOWS || *n == MAX_LIST)
            return 0;
        list[(*n)++] = (uint32_t)v;
        s = *e == ',' ? e + 1 : e;
        if (*e && *e != ',')
            return 0;
    }
    return *n > 0;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--quick] [--qps-list N,N,...] [--csv FILE]\n"
           "Tassel wake-up storm: 1 QP at 80 Gb/s + N QPs at 100 Kb/s all due together; the fast QP's gap, burst and\n"
           "rate error for each N; a RESULT line at the end.\n"
           "  --quick             N up to 1000 (make test); default off\n"
           "  --qps-list N,N,...  the slow-QP counts N to run [QPs]; default 100,250,500,1000,2000,4000,8000,16000;\n"
           "                      range 1..%u each, at most %u of them\n"
           "  --csv FILE          one row per N as CSV; default none\n"
           "  --help, -h          this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), RL_MAX_FLOWS - 1u, (unsigned)MAX_LIST);
    exit(0);
}

int main(int argc, char **argv)
{
    static const uint32_t full[] = {100, 250, 500, 1000, 2000, 4000, 8000, 16000};
    uint32_t list[MAX_LIST];
    int nlist = 0, i, quick = 0, control_ok, option_ok = 1;
    const char *csv = NULL;
    FILE *fcsv = NULL;
    result control, x, last, opt_control, olast;
    result fifo_rows[MAX_LIST];
    for (i = 1; i < argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--csv") == 0)
            csv = CLI_VALUE(i);
        else if (strcmp(argv[i], "--qps-list") == 0) {
            const char *v = CLI_VALUE(i);
            if (!parse_list(v, list, &nlist))
                cli_error(argv[0], "--qps-list: '%s' is not a list of at most %u decimal counts in 1..%u", v,
                          (unsigned)MAX_LIST, RL_MAX_FLOWS - 1u);
        } else {
            cli_unknown(argv[0], argv[i]);
        }
    }
    if (!nlist)
        for (i = 0; i < (int)(sizeof full / sizeof full[0]); i++)
            if (!quick || full[i] <= 1000)
                list[nlist++] = full[i];

    printf("Tassel wake-up storm: 1 QP at 80 Gb/s + N QPs at 100 Kb/s, 4 KB messages, all doorbells at cycle 0;\n"
           "250 MHz, 100 Gb/s link, mtu %u, the slow QPs due again at cycle %llu. Fast QP: ideal gap %.1f cycles,\n"
           "burst = largest (bytes - 80 Gb/s x time) over any run of its packets, 1 ms sliding windows vs 80 Gb/s.\n\n",
           MTU, (unsigned long long)DUE, ideal_gap);
    if (!self_check()) {
        printf("self-check of the measures FAILED\n");
        return 1;
    }
    printf("self-check of the measures on synthetic streams: ok\n");

    /* control: no storm */
    memset(&control, 0, sizeof control);
    if (!run_storm(0, 0, &control))
        return 1;
    control_ok = (double)control.m.gap <= ideal_gap + 3.0 && control.m.err_pct <= 1.0;
    printf("control N=0 (no storm): largest gap %llu cycles (ideal %.1f, within 3: %s), worst 1 ms window %.4f %% "
           "(within 1 %%: %s), burst %.0f B, %llu packets to cycle %llu\n\n",
           (unsigned long long)control.m.gap, ideal_gap, (double)control.m.gap <= ideal_gap + 3.0 ? "yes" : "NO",
           control.m.err_pct, control.m.err_pct <= 1.0 ? "yes" : "NO", control.m.burst,
           (unsigned long long)control.fast_packets, (unsigned long long)control.end);

    if (csv) {
        fcsv = fopen(csv, "w");
        if (!fcsv)
            return 1;
        fprintf(fcsv, "n,gap_cycles,gap_x,burst_bytes,rate_err_pct,option_gap_cycles,option_gap_x,option_burst_bytes,"
                      "option_rate_err_pct\n");
    }
    memset(&last, 0, sizeof last);
    for (i = 0; i < nlist; i++) {
        if (!run_storm(list[i], 0, &x)) {
            printf("FIFO N=%u: run failed\n", (unsigned)list[i]);
            return 1;
        }
        print_result("FIFO", &x);
        fifo_rows[i] = x;
        if (x.n >= last.n)
            last = x;
    }

    /* the ranked schedule queue: the same control and sweep */
    printf("\nranked schedule queue (RL_SCHEDULE_RANKED): target gap <= 2x ideal, every 1 ms window within 1 %%\n");
    if (!run_storm(0, 1, &opt_control))
        return 1;
    print_result("ranked", &opt_control);
    memset(&olast, 0, sizeof olast);
    for (i = 0; i < nlist; i++) {
        if (!run_storm(list[i], 1, &x)) {
            printf("ranked N=%u: run failed\n", (unsigned)list[i]);
            return 1;
        }
        print_result("ranked", &x);
        if (fcsv)
            fprintf(fcsv, "%u,%llu,%.2f,%.0f,%.4f,%llu,%.3f,%.0f,%.4f\n", (unsigned)x.n,
                    (unsigned long long)fifo_rows[i].m.gap, (double)fifo_rows[i].m.gap / ideal_gap,
                    fifo_rows[i].m.burst, fifo_rows[i].m.err_pct, (unsigned long long)x.m.gap,
                    (double)x.m.gap / ideal_gap, x.m.burst, x.m.err_pct);
        option_ok &= (double)x.m.gap <= 2.0 * ideal_gap && x.m.err_pct <= 1.0;
        if (x.n >= olast.n)
            olast = x;
    }
    if (fcsv)
        fclose(fcsv);
    printf("ranked: every N within the targets (gap <= 2x, 1 ms windows within 1 %%): %s\n", option_ok ? "yes" : "NO");

    printf("\nRESULT fifo_gap_x=%.1f option_gap_x=%.3f option_rate_err_pct=%.4f slow_qps=%u fifo_burst_mb=%.3f "
           "fifo_rate_err_pct=%.2f fifo_gap_cycles=%llu option_gap_cycles=%llu option_burst_kb=%.1f "
           "option_targets_met=%d control_gap_x=%.3f control_rate_err_pct=%.4f option_control_gap_x=%.3f\n",
           (double)last.m.gap / ideal_gap, (double)olast.m.gap / ideal_gap, olast.m.err_pct, (unsigned)last.n,
           last.m.burst / 1e6, last.m.err_pct, (unsigned long long)last.m.gap, (unsigned long long)olast.m.gap,
           olast.m.burst / 1e3, option_ok, (double)control.m.gap / ideal_gap, control.m.err_pct,
           (double)opt_control.m.gap / ideal_gap);
    return control_ok ? 0 : 1;
}
