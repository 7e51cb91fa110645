/* tonic_newreno_single -- Tonic Fig. 3a/3b (NSDI 2020 §6.2.1): one NewReno flow through one switch,
 * 10 Gb/s links, RTT 10 us, 5.5 MB buffer, 1,000 B segments, 200 ms minimum RTO, delayed ACKs,
 * packets dropped at the receiver from a fixed seeded list (12 losses in the first 40 % of the run,
 * plus the last retransmission among them, found by a first run: a loss only a timeout repairs); beside ns-3's own TcpNewReno on the
 * same topology with the same list (examples/ns3/tonic_newreno_ns3.cc, run here when built).
 *
 *   build/tonic_newreno_single [--ms N | --quick] [--seed S] [--drops a,b,..] [--csv F] [--ns3 BIN] [--ns3-csv F]
 *
 * Writes the model's trace as CSV (t_us,kind,seq,value: cwnd bytes at each change, tx with
 * value 1 for a retransmission, fast_rtx, timeout), the same columns as the ns-3 program, and
 * prints RESULT fast_rtx_model fast_rtx_ns3 timeouts_model timeouts_ns3 cwnd_mean_diff_pct (the
 * time-averaged cwnd of the model against ns-3's, absolute; target <= 10 %). Without the ns-3 binary the
 * ns-3 keys read -1 and the diff is not computed. */
#define _POSIX_C_SOURCE 200809L
#include "rnic_model/tonic_sim.h"
#include <string.h>
#include <time.h>
#include "cli.h"

#define MAX_DROPS 256

typedef struct observer {
    FILE *csv;
    ts_sim *sim;
    uint32_t last_cwnd, last_state;
    uint64_t fast_rtx, timeouts;
    uint64_t tx_ordinal;          /* segments sent so far = their ordinal at the receiver (one FIFO path) */
    uint64_t last_rtx_ordinal;    /* of the last fast retransmission (the one entering recovery), UINT64_MAX if none */
    uint32_t recovery_head;       /* the segment the last entry into recovery retransmits */
    bool recovery_pending;
    uint64_t first_us_x1000;      /* first cwnd sample, ns */
    double cwnd_area, last_t;     /* time-average, sample and hold */
    bool have_cwnd;
} observer;

static double t_us(const ts_sim *s, uint64_t cycle) { return (double)cycle * 1e6 / (double)s->cfg.clock_hz; }

static void on_segment(void *user, const rnic_work *seg, uint64_t cycle)
{
    observer *o = (observer *)user;
    if ((seg->flags & TP_WORK_RTX) && o->recovery_pending && seg->index == o->recovery_head) {
        o->last_rtx_ordinal = o->tx_ordinal;
        o->recovery_pending = false;
    }
    o->tx_ordinal++;
    if (o->csv)
        fprintf(o->csv, "%.3f,tx,%u,%d\n", t_us(o->sim, cycle), seg->index, (seg->flags & TP_WORK_RTX) ? 1 : 0);
}

/* After every processed cycle: the flow's cwnd and state as the protocol left them. */
static void observe(observer *o)
{
    tp_flow_view v;
    const tp_tcp_ctx *c;
    double now = t_us(o->sim, o->sim->now);
    if (tp_flow_state(&o->sim->senders[0], 0, &v) != RNIC_OK)
        return;
    c = (const tp_tcp_ctx *)v.ctx;
    if (!o->have_cwnd || c->cwnd != o->last_cwnd) {
        if (o->have_cwnd)
            o->cwnd_area += (double)o->last_cwnd * (now - o->last_t);
        else
            o->first_us_x1000 = (uint64_t)(now * 1000.0);
        o->have_cwnd = true;
        o->last_cwnd = c->cwnd;
        o->last_t = now;
        if (o->csv)
            fprintf(o->csv, "%.3f,cwnd,0,%u\n", now, c->cwnd);
    }
    if (c->state != o->last_state) {
        if (c->state == TP_TCP_RECOVERY) {
            o->fast_rtx++;
            o->recovery_head = v.wnd_start;
            o->recovery_pending = true;
            if (o->csv)
                fprintf(o->csv, "%.3f,fast_rtx,%u,0\n", now, v.wnd_start);
        }
        o->last_state = c->state;
    }
    if (tp_get_stats(&o->sim->senders[0])->timeouts != o->timeouts) {
        o->timeouts = tp_get_stats(&o->sim->senders[0])->timeouts;
        if (o->csv)
            fprintf(o->csv, "%.3f,timeout,%u,0\n", now, v.wnd_start);
    }
}

/* The fixed drop list: `n` ordinals of packets reaching the receiver, from a seeded PRNG: single
 * losses and pairs in one window (NewReno's partial ACKs), spread over the first `span` packets. */
static uint32_t make_drops(uint64_t seed, uint32_t n, uint64_t span, uint64_t *out)
{
    rnic_prng g;
    uint32_t k = 0, i, j;
    rnic_prng_seed(&g, seed);
    while (k < n) {
        uint64_t at = 2000u + rnic_prng_below(&g, span - 2000u);
        out[k++] = at;
        if (k < n && rnic_prng_below(&g, 3) == 0)
            out[k++] = at + 1u + rnic_prng_below(&g, 20); /* a second loss in the same window */
    }
    for (i = 1; i < k; i++) /* sort, drop repeats */
        for (j = i; j > 0 && out[j - 1] > out[j]; j--) {
            uint64_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    for (i = j = 0; i < k; i++)
        if (j == 0 || out[i] != out[j - 1])
            out[j++] = out[i];
    return j;
}

typedef struct ns3_result {
    long fast_rtx, timeouts;
    double cwnd_mean, host_s;
} ns3_result;

static int run_ns3(const char *bin, double seconds, const uint64_t *drops, uint32_t n, const char *csv, ns3_result *r)
{
    char cmd[8192], line[1024];
    size_t at;
    uint32_t i;
    FILE *p;
    int ok = 0;
    at = (size_t)snprintf(cmd, sizeof cmd, "%s --mode=single --duration=%.6f --csv=%s --drops=", bin, seconds, csv);
    /* ns-3's receiver NIC also receives the SYN (ordinal 0) and the handshake's ACK (1): our
     * data packet k is its packet k + 2 */
    for (i = 0; i < n && at < sizeof cmd - 32; i++)
        at += (size_t)snprintf(cmd + at, sizeof cmd - at, "%s%llu", i ? "," : "", (unsigned long long)drops[i] + 2u);
    p = popen(cmd, "r");
    if (!p)
        return 0;
    while (fgets(line, sizeof line, p)) {
        char *s = strstr(line, "RESULT ");
        if (s && strstr(s, "ns3_fast_rtx=")) {
            sscanf(strstr(s, "ns3_fast_rtx="), "ns3_fast_rtx=%ld", &r->fast_rtx);
            if (strstr(s, "ns3_timeouts="))
                sscanf(strstr(s, "ns3_timeouts="), "ns3_timeouts=%ld", &r->timeouts);
            if (strstr(s, "ns3_cwnd_mean_bytes="))
                sscanf(strstr(s, "ns3_cwnd_mean_bytes="), "ns3_cwnd_mean_bytes=%lf", &r->cwnd_mean);
            if (strstr(s, "ns3_host_s="))
                sscanf(strstr(s, "ns3_host_s="), "ns3_host_s=%lf", &r->host_s);
            ok = 1;
        }
    }
    return pclose(p) == 0 && ok;
}

/* One model run over `drops`; the sim is left for the caller's report (ts_free it). */
static int run_model(const uint64_t *drops, uint32_t ndrops, double ms, const char *csv, observer *o, ts_sim *s)
{
    ts_config c;
    uint64_t end;
    ts_config_default(&c);
    c.protocol = tp_protocol_newreno();
    c.sack = false; /* ns-3 runs with Sack=false */
    c.drop_list = drops;
    c.drop_len = ndrops;
    memset(o, 0, sizeof *o);
    o->last_rtx_ordinal = UINT64_MAX;
    o->csv = csv ? fopen(csv, "w") : NULL;
    if (o->csv)
        fprintf(o->csv, "t_us,kind,seq,value\n");
    c.on_segment = on_segment;
    c.user = o;
    if (ts_init(s, &c) != 0) {
        fprintf(stderr, "set-up failed\n");
        return -1;
    }
    o->sim = s;
    end = (uint64_t)(ms * 1e-3 * (double)c.clock_hz);
    while (rnic_cycle_before(s->now, end)) {
        ts_step(s, end);
        observe(o);
    }
    if (o->have_cwnd)
        o->cwnd_area += (double)o->last_cwnd * (t_us(s, s->now) - o->last_t);
    if (o->csv)
        fclose(o->csv);
    return 0;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--ms N | --quick] [--seed S] [--drops a,b,..] [--csv F] [--ns3 BIN] [--ns3-csv F]\n"
           "Tonic Fig. 3a/3b: one NewReno flow with packets dropped at the receiver, beside ns-3's TcpNewReno when its\n"
           "program is built; a RESULT line at the end.\n"
           "  --ms N           simulated time [ms]; default 500; range 0.001..1000000\n"
           "  --quick          --ms 400 (make test), ns-3's CSV to build/tonic_newreno_single_quick_ns3.csv\n"
           "  --seed S         seed of the drop list (12 losses in the first 40 %% of the run); default 3;\n"
           "                   range 0..%llu\n"
           "  --drops a,b,..   drop these packets instead, by their ordinal at the receiver (0: the first), sorted;\n"
           "                   default the seeded list; at most %u, each 0..%llu\n"
           "  --csv F          the model's trace (t_us,kind,seq,value) as CSV; default none\n"
           "  --ns3 BIN        the ns-3 program (not run when missing); default build/tonic_newreno_ns3\n"
           "  --ns3-csv F      where ns-3 writes its trace; default build/tonic_newreno_single_ns3.csv\n"
           "  --help, -h       this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0), (unsigned long long)UINT64_MAX, (unsigned)MAX_DROPS, (unsigned long long)UINT64_MAX);
    exit(0);
}

int main(int argc, char **argv)
{
    ts_sim s;
    observer o;
    uint64_t drops[MAX_DROPS], seed = 3;
    uint32_t ndrops = 0, i;
    double ms = 500.0, model_mean, t0, t1;
    const char *csv = NULL, *ns3 = "build/tonic_newreno_ns3", *ns3_csv = "build/tonic_newreno_single_ns3.csv";
    ns3_result nr = { -1, -1, 0.0, 0.0 };
    bool have_drops = false, have_ns3;
    FILE *probe;
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--ms"))
            ms = CLI_DOUBLE(i, 0.001, 1000000);
        else if (!strcmp(argv[i], "--quick")) { /* make test: the losses in 160 ms, the timeout 200 ms later */
            ms = 400.0;
            ns3_csv = "build/tonic_newreno_single_quick_ns3.csv"; /* leave the full run's CSV (the figure's) alone */
        }
        else if (!strcmp(argv[i], "--seed"))
            seed = CLI_U64(i, 0, UINT64_MAX);
        else if (!strcmp(argv[i], "--csv"))
            csv = CLI_VALUE(i);
        else if (!strcmp(argv[i], "--ns3"))
            ns3 = CLI_VALUE(i);
        else if (!strcmp(argv[i], "--ns3-csv"))
            ns3_csv = CLI_VALUE(i);
        else if (!strcmp(argv[i], "--drops")) {
            const char *v = CLI_VALUE(i), *p = v;
            have_drops = true;
            while (*p) {
                char item[32];
                size_t len = strcspn(p, ",");
                if (ndrops == MAX_DROPS || len == 0 || len >= sizeof item || (p[len] == ',' && !p[len + 1]))
                    cli_error(argv[0], "--drops: '%s' is not a list of at most %u comma-separated decimal ordinals", v,
                              (unsigned)MAX_DROPS);
                memcpy(item, p, len);
                item[len] = 0;
                drops[ndrops++] = cli_u64(argv[0], "--drops", item, 0, UINT64_MAX);
                p += len + (p[len] == ',');
            }
        } else
            cli_unknown(argv[0], argv[i]);
    }
    if (!have_drops) {
        /* about 1.2 packets per us at 10 Gb/s: 12 losses in the first 40 % of the run; then the
         * first run tells the ordinal of the last fast retransmission (the one sent on entering
         * recovery: it leaves right after the third duplicate ACK in Tonic and in ns-3 alike,
         * whereas a partial ACK's retransmission may trail a new segment the ACK's fixed stage let
         * out a cycle before its hook marked the loss, §3.2.3), which is added to the list, so
         * that the second run also loses a retransmission and recovers by a timeout */
        ndrops = make_drops(seed, 12, (uint64_t)(ms * 1000.0 * 0.4), drops);
        if (run_model(drops, ndrops, ms, NULL, &o, &s) != 0)
            return 1;
        ts_free(&s);
        if (o.last_rtx_ordinal != UINT64_MAX && ndrops < MAX_DROPS)
            drops[ndrops++] = o.last_rtx_ordinal; /* beyond every other ordinal: the list stays sorted */
    }
    t0 = (double)clock() / CLOCKS_PER_SEC;
    if (run_model(drops, ndrops, ms, csv, &o, &s) != 0)
        return 1;
    t1 = (double)clock() / CLOCKS_PER_SEC;
    model_mean = o.cwnd_area / (t_us(&s, s.now) - (double)o.first_us_x1000 / 1000.0);
    probe = fopen(ns3, "r");
    have_ns3 = probe != NULL;
    if (probe)
        fclose(probe);
    if (have_ns3 && !run_ns3(ns3, ms * 1e-3, drops, ndrops, ns3_csv, &nr)) {
        fprintf(stderr, "ns-3 run failed: %s\n", ns3);
        nr.fast_rtx = nr.timeouts = -1;
    }
    printf("drops (ordinals at the receiver):");
    for (i = 0; i < ndrops; i++)
        printf(" %llu", (unsigned long long)drops[i]);
    printf("\nmodel: %.1f ms simulated, %llu segments delivered, %llu retransmitted, %llu of %llu cycles ticked, %.2f host s\n",
           ms, (unsigned long long)s.rx_segments, (unsigned long long)tp_get_stats(&s.senders[0])->segments_rtx,
           (unsigned long long)s.processed_cycles, (unsigned long long)s.now, t1 - t0);
    printf("RESULT fast_rtx_model=%llu fast_rtx_ns3=%ld timeouts_model=%llu timeouts_ns3=%ld cwnd_mean_model=%.0f "
           "cwnd_mean_ns3=%.0f cwnd_mean_diff_pct=%.2f model_host_s=%.2f ns3_host_s=%.2f\n",
           (unsigned long long)o.fast_rtx, nr.fast_rtx, (unsigned long long)o.timeouts, nr.timeouts, model_mean,
           nr.cwnd_mean, nr.cwnd_mean > 0 ? 100.0 * (model_mean > nr.cwnd_mean ? model_mean - nr.cwnd_mean : nr.cwnd_mean - model_mean) / nr.cwnd_mean : -1.0, t1 - t0, nr.host_s);
    ts_free(&s);
    return 0;
}
