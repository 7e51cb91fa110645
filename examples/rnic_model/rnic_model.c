/* rnic_model -- the composed RNIC's command line. Everything it runs is the fabric of
 * full-duplex NICs, switches and links (issue 30; docs/fabric_model.md): fm_build.h builds it
 * from a scenario, fm_run.h runs and reports it. This file only turns the command line into
 * that scenario:
 *
 *   rnic_model --scenario FILE [--set section.key=value]... [OPTION]...
 *       a scenario file (docs/scenario.md); every --set and every option below overrides its keys
 *   rnic_model --hpcc-topology FILE [--hpcc-flows FILE] [--scenario FILE] [OPTION]...
 *       an experiment of the HPCC simulator (docs/hpcc_inputs.md): its topology file replaces the
 *       scenario's topology, its flow file gives the flows of the traffic = file tenants; without
 *       --scenario, the defaults with one tenant pg3 of traffic = file (or, without --hpcc-flows,
 *       the built-in incast's tenants)
 *   rnic_model [OPTION]...
 *       the built-in scenario: an H:1 incast on one switch (star) -- hosts 1..H send, host 0
 *       receives -- of T tenants: tenant "bulk" (64 KB .. 1 MB messages), then "background"
 *       (1 .. 16 KB) and "tenant2" .. (1 .. 16 KB); by default H = 2, T = 2 (a 2:1 incast)
 *
 * Each option is a name for scenario keys (usage() lists them): --duration-us is run.duration_us,
 * --pfc is switch.pfc, --cpu-load is host.cpu_load, and so on; the per-tenant lists (--weights,
 * --rates-mbps, --sizes) set tenant i's key from the i-th item, the last item repeating; --qps,
 * --depth and --dcqcn set every tenant's (--dcqcn: every DCQCN tenant's variant). They apply in
 * command-line order after the file, with every --set. --hosts and --tenants shape the built-in
 * incast only.
 *
 * Ends with the fabric's RESULT line (fm_run.h). Exit status: 0; 3 when the run did not drain
 * or lost bytes (the RESULT line is printed first); 1 on a set-up or output error; 2 on a bad
 * argument or scenario. */
#define _POSIX_C_SOURCE 200809L
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* stb_ds (Debian libstb-dev: -lstb) holds the scenario's tables */
#include "fm_run.h"
#include "hpcc_input.h"

#define MAX_TENANTS 16u

static void bad_arg(const char *fmt, ...)
{
    va_list ap;
    fputs("rnic_model: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(rnic_model --help lists every option)\n", stderr);
    exit(2);
}

/* A whole decimal number in [lo, hi]: digits only (leading zeros are still decimal: 010 is ten;
 * no sign, blank, 0x or suffix); anything else is refused naming the option. */
static uint64_t parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
    const char *c;
    unsigned long long v;
    for (c = s; *c >= '0' && *c <= '9'; c++)
        ;
    if (c == s || *c)
        bad_arg("%s: '%s' is not a decimal number%s", opt, s,
                s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? " (hexadecimal is not accepted)" : "");
    errno = 0;
    v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        bad_arg("%s: %s is out of range %llu..%llu", opt, s, (unsigned long long)lo, (unsigned long long)hi);
    return v;
}

/* A comma-separated list of 1 .. max numbers in [lo, hi]; returns how many. */
static uint32_t parse_list(const char *opt, const char *s, uint64_t *out, uint32_t max, uint64_t lo, uint64_t hi)
{
    char item[64];
    const char *all = s;
    uint32_t n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (n == max || len == 0 || len >= sizeof item)
            bad_arg("%s: '%s' is not a list of 1..%u comma-separated numbers", opt, all, max);
        memcpy(item, s, len);
        item[len] = 0;
        out[n++] = parse_u64(opt, item, lo, hi);
        s += len;
        if (*s == ',' && !*++s)
            bad_arg("%s: '%s' ends in a comma", opt, all);
    }
    if (!n)
        bad_arg("%s: '' is not a list of 1..%u comma-separated numbers", opt, max);
    return n;
}

/* The index of v in names[0 .. n-1]; anything else is refused naming the option and the choices. */
static int parse_choice(const char *opt, const char *v, const char *const *names, int n)
{
    char list[128] = "";
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(v, names[i]))
            return i;
    for (i = 0; i < n; i++) {
        strncat(list, names[i], sizeof list - strlen(list) - 1u);
        if (i + 1 < n)
            strncat(list, i + 2 < n ? ", " : " or ", sizeof list - strlen(list) - 1u);
    }
    bad_arg("%s: '%s' is not one of %s", opt, v, list);
    return 0;
}

static const char *const on_off[2] = { "on", "off" };
static const char *const dcqcn_name[4] = { "htsim", "paper", "mellanox", "hpcc" };
static const char *const sched_name[2] = { "palos", "qos" };
static const char *const rhcc_name[5] = { "off", "rx", "tx", "both", "ecn" };
static const char *const probe_ts_name[3] = { "head", "arrival", "pipeline" };
static const char *const slack_name[2] = { "fast-down", "uniform" };

/* The options that take a value (a missing value is named as such, an unknown option as unknown). */
static const char *const value_opts[] = {
    "--hpcc-topology", "--hpcc-flows",
    "--scenario", "--set", "--hosts", "--tenants", "--qps", "--weights", "--rates-mbps", "--sizes", "--depth",
    "--payload", "--dcqcn", "--cnp-interval-us", "--loss-ppm", "--pfc", "--duration-us", "--warmup-us", "--seed",
    "--lat-samples", "--csv", "--queue-csv", "--links-csv", "--flows-json", "--shares-csv", "--pcap", "--snaplen",
    "--trace-csv", "--vcd", "--fct-csv", "--fct-buckets-csv", "--write-flows", "--sched", "--qos-timeout-us", "--host", "--cpu-load", "--rhcc", "--ddio", "--probe-ts",
    "--rhcc-slack", "--cpu-outstanding", "--rx-footprint-mb",
    "--tenants-csv", "--plots", /* the run's figures (fm_plots.h) */
    "--ext-ranks", "--ext-skew" /* the fabric as that many processes with outside links (fm_ext.h) */
};

static int takes_value(const char *a)
{
    size_t i;
    for (i = 0; i < sizeof value_opts / sizeof value_opts[0]; i++)
        if (!strcmp(a, value_opts[i]))
            return 1;
    return 0;
}

/* --help: on stdout, one line per option: meaning [unit]; default; range. The defaults are the
 * built-in scenario's (scenario.h scn_config_default and built_in below). */
static void usage(void)
{
    scn d;
    scn_config_default(&d);
    printf("usage: rnic_model [--scenario FILE] [--set section.key=value]... [OPTION VALUE | FLAG]...\n"
           "The composed RNIC: a fabric of full-duplex NICs (engines of ratelimit.h, rnicq.h, transport.h, hostcc.h),\n"
           "switches and links at one %u MHz clock, described by a scenario file (docs/scenario.md) or, without\n"
           "--scenario, the built-in H:1 incast (hosts 1..H send to host 0 through one switch). Each option below sets\n"
           "scenario keys (named in brackets) after the file, in command-line order with every --set; a RESULT line\n"
           "ends the run. Numbers are whole decimal numbers (010 is ten). Each line: option, meaning [unit]; default; range.\n",
           250u);
    printf("scenario:\n");
    printf("  --scenario FILE        run this scenario file instead of the built-in incast; default none\n");
    printf("  --set S.K=V            set key K of section S (tenant keys: tenant.NAME.K), repeatable; default none\n");
    printf("  --hpcc-topology FILE   the HPCC simulator's topology file: replaces the scenario's topology (nodes n<ID>; "
           "docs/hpcc_inputs.md); default none\n");
    printf("  --hpcc-flows FILE      the HPCC simulator's flow file (needs --hpcc-topology): the flows of the "
           "traffic = file tenants, start times less the earliest one's whole seconds; default none\n");
    printf("  --hosts H              the built-in incast's sending hosts [hosts] (topology.hosts = H + 1); default 2; "
           "range 1..1024\n");
    printf("  --tenants T            the built-in incast's tenants: bulk, background, tenant2.. [tenants]; default 2; "
           "range 1..%u\n", MAX_TENANTS);
    printf("  --qps N                QPs per tenant per sending host [QPs] (tenant.*.qps); default 8; range 1..1024\n");
    printf("  --weights W,..         each tenant's scheduler weight, the last one repeats [weight] (tenant.*.weight); "
           "default 1 each; range 1..65535\n");
    printf("  --rates-mbps R,..      each tenant's rate cap per QP, the last one repeats [Mb/s] (tenant.*.cap_mbps); "
           "default none (congestion control alone); range 1..800000\n");
    printf("  --sizes MIN,MAX[,..]   each tenant's message sizes, uniform in MIN..MAX, the last pair repeats [bytes] "
           "(tenant.*.msg_bytes); default 65536,1048576,1024,16384; range 1..1073741824, MIN <= MAX\n");
    printf("  --depth D              messages posted per QP at a time [messages] (tenant.*.depth); default 8; "
           "range 1..4096\n");
    printf("  --payload B            segment (RoCEv2 packet payload) size [bytes] (nic.payload, and nic.mtu when it is "
           "smaller); default %u; range 256..4096\n", (unsigned)d.nic.payload);
    printf("  --dcqcn V              DCQCN parameters of every DCQCN tenant: htsim (the paper's algorithm, increase "
           "steps scaled to the link), paper, mellanox or hpcc (Mellanox's timers, the HPCC simulator's steps and floor) "
           "(tenant.*.variant); default htsim\n");
    printf("  --cnp-interval-us U    least time between two CNPs of a flow [us] (nic.cnp_interval_us); default %u; "
           "range 1..1000000\n", (unsigned)d.nic.cnp_interval_us);
    printf("  --loss-ppm P           random loss on every link, both ways [per million] (topology.loss_ppm); default "
           "%u; range 0..100000\n", (unsigned)d.topo.loss_ppm);
    printf("  --pfc on|off           PFC at the switches and the receiving hosts (off: CE marks only) (switch.pfc); "
           "default on\n");
    printf("  --duration-us U        simulated time, the drain not included [us] (run.duration_us); default %llu; "
           "range 2..1000000000\n", (unsigned long long)d.run.duration_us);
    printf("  --warmup-us U          start of the measurement window [us] (run.warmup_us); default %llu; "
           "range 0..1000000000, below --duration-us\n", (unsigned long long)d.run.warmup_us);
    printf("  --seed S               seed of the message sizes, ECN marking and losses (run.seed); default %llu; "
           "range 0..18446744073709551615\n", (unsigned long long)d.run.seed);
    printf("  --sched palos|qos      the NIC's scheduler: Palos, or the RED-SEA QoS engine (nic.sched); default palos\n");
    printf("  --qos-timeout-us U     --sched qos: the engine's retransmission timeout, 0 = from DCQCN's rate floor "
           "[us] (nic.qos_timeout_us); default 0; range 0..1000000\n");
    printf("receiving hosts (hostcc.h):\n");
    printf("  --host on|off          every NIC's receiving host data path (RX buffer, PCIe, IIO, memory) (host.model); "
           "default on\n");
    printf("  --cpu-load X           CPU memory traffic, the RHCC paper's 0x..3x [level] (host.cpu_load); default %u; "
           "range 0..3\n", (unsigned)d.host.cpu_load);
    printf("  --rhcc M               RHCC controllers: off, rx, tx, both or ecn (hostCC-style CE marks) (host.rhcc); "
           "default both\n");
    printf("  --ddio on|off          DDIO, writes into the LLC (host.ddio); default on\n");
    printf("  --rx-footprint-mb N    receive buffers' total size per host [MB] (host.footprint_mb); default %u; "
           "range 1..4096\n", (unsigned)d.host.footprint_mb);
    printf("  --probe-ts head|arrival|pipeline  an RHCC probe's receive stamp: at the RX buffer's head, at its entry, "
           "or at its entry into the RNIC's receive pipeline (host.rx_pipeline packets, ACK stamp + host.probe_base_ns) "
           "(host.probe_ts); default pipeline\n");
    printf("  --cpu-outstanding N    CPU cache lines in flight at most [lines] (host.cpu_outstanding); default %u; "
           "range 1..1048576\n", (unsigned)d.host.cpu_outstanding);
    printf("  --rhcc-slack fast-down|uniform  fast-down: a step down right after a step up skips hostCC's slack; "
           "uniform: the slack before every step (host.rhcc_slack); default fast-down\n");
    printf("output:\n");
    printf("  --csv FILE             per-QP results as CSV (output.csv); default none\n");
    printf("  --queue-csv FILE       every link's queue every output.queue_sample_us as CSV (output.queue_csv); "
           "default none\n");
    printf("  --links-csv FILE       every link's use, queue, marks, drops and pauses over the window (output.links_csv); "
           "default none\n");
    printf("  --flows-json FILE      the flows and each one's path, for tools/share_ref.py; default none\n");
    printf("  --shares-csv FILE      each tenant's delivered Gb/s over the window, for tools/share_ref.py; default none\n");
    printf("  --pcap FILE            packets as RoCEv2 pcap, the first output.pcap_us (output.pcap); default none\n");
    printf("  --snaplen B            --pcap: bytes kept of each frame [bytes] (output.snaplen); default %u; "
           "range 64..65535\n", (unsigned)d.out.snaplen);
    printf("  --trace-csv FILE       every engine's trace events as CSV, named (docs/trace_csv.md; output.trace_csv); "
           "default none\n");
    printf("  --trace-legend         print the trace CSV's engines and events as markdown tables (docs/trace_csv.md), "
           "exit 0\n");
    printf("  --vcd FILE             every link's queue and pause as a VCD waveform (output.vcd); default none\n");
    printf("  --fct-csv FILE         open-loop flows: one line per flow, its FCT, ideal FCT and slowdown (output.fct_csv);\n"
           "                         default none\n");
    printf("  --fct-buckets-csv FILE open-loop flows: slowdown p50/p95/p99 per size bucket (output.fct_buckets_csv); default none\n");
    printf("  --tenants-csv FILE     each tenant's delivered Gb/s per output.queue_sample_us as CSV (output.tenants_csv); "
           "default none\n");
    printf("  --plots DIR            the run's figures as PNG (gnuplot) with their CSVs and script (output.plots); default none\n");
    printf("  --write-flows FILE     the open-loop flows as a flow file (SRC DST TENANT SIZE START_NS per line); default none\n");
    printf("  --workload-only        build the open-loop workload and print its RESULT (flows, offered load); no run\n");
    printf("  --lat-samples N|all    latencies kept per receiving NIC for the FCT percentiles (then a uniform sample; "
           "all: every one) [samples] (output.lat_samples); default %llu; range 1..268435456 or all\n",
           (unsigned long long)d.out.lat_samples);
    printf("  --quiet                the RESULT line only\n");
    printf("  --tick-only            tick every node every cycle instead of the event scheduler (the same digest)\n");
    printf("  --ext-ranks R          run the fabric as R processes whose links are carried outside them, played\n"
           "                         in this one (fm_ext.h: what the ns-3 devices do); the same per-flow results\n"
           "                         and digest; writes only --fct-csv; default 0 (off); 1..64\n");
    printf("  --ext-skew C           with --ext-ranks: every record crosses its link C cycles late (the tests'\n"
           "                         negative control: the results must change); default 0; 0..1000000\n");
    printf("  --progress-log         progress lines on stderr (tools/soak.sh)\n");
    printf("  --help, -h             this text, exit status 0; a bad option exits 2 naming it\n");
    scn_free(&d);
    exit(0);
}

/* The built-in incast's scenario text: `hosts` senders, `tenants` tenants. */
static void built_in(char *text, size_t size, uint32_t hosts, uint32_t tenants)
{
    static const char *const name[2] = { "bulk", "background" };
    size_t n;
    uint32_t t;
    n = (size_t)snprintf(text, size,
                         "# the built-in incast (rnic_model without --scenario): hosts 1..%u send to host 0\n"
                         "[topology]\nshape = star\nhosts = %u\n", hosts, hosts + 1u);
    for (t = 0; t < tenants && n < size; t++) {
        char nm[24];
        if (t < 2)
            snprintf(nm, sizeof nm, "%s", name[t]);
        else
            snprintf(nm, sizeof nm, "tenant%u", t);
        n += (size_t)snprintf(text + n, size - n, "[tenant %s]\nmsg_bytes = %s\npattern = incast\ndst = 0\n", nm,
                              t ? "1024,16384" : "65536,1048576");
    }
}

/* Set scenario key `key` (section.key; "tenant.*.k": every tenant's) to `value`, or exit 2 naming
 * the option that asked for it. */
static void set_key(scn *s, const char *opt, const char *key, const char *value)
{
    scn_error err;
    if (scn_set(s, key, value, &err) != SCN_OK) {
        if (!strcmp(opt, "--set")) /* the message names --set and the key */
            fprintf(stderr, "rnic_model: %s\n", err.message);
        else
            fprintf(stderr, "rnic_model: %s %s: %s\n", opt, value, err.message);
        scn_free(s);
        exit(2);
    }
}

static void set_tenant_key(scn *s, const char *opt, uint32_t t, const char *k, const char *value)
{
    char key[128];
    snprintf(key, sizeof key, "tenant.%s.%s", s->tenants[t].name, k);
    set_key(s, opt, key, value);
}

int main(int argc, char **argv)
{
    scn s;
    scn_error err;
    fm_run_options o;
    const char *file = NULL, *hpcc_topology = NULL, *hpcc_flows = NULL;
    hpcc_map hpcc;
    wl_flow *given = NULL;
    size_t n_given = 0;
    uint32_t hosts = 2, tenants = 2, t, n, ntn;
    int k, host_off = 0, host_opts = 0, trace_legend = 0;
    uint64_t tmp[2u * MAX_TENANTS];
    char v[64];

    memset(&o, 0, sizeof o);
    for (k = 1; k < argc; k++) { /* first: the scenario's shape, and whether each option has its value */
        const char *a = argv[k];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            usage();
        if (!strcmp(a, "--tick-only") || !strcmp(a, "--quiet") || !strcmp(a, "--workload-only") ||
            !strcmp(a, "--progress-log") || !strcmp(a, "--trace-legend"))
            continue;
        if (!takes_value(a))
            bad_arg("unknown option '%s'", a);
        if (k + 1 >= argc)
            bad_arg("%s needs a value", a);
        if (!strcmp(a, "--scenario"))
            file = argv[k + 1];
        else if (!strcmp(a, "--hpcc-topology"))
            hpcc_topology = argv[k + 1];
        else if (!strcmp(a, "--hpcc-flows"))
            hpcc_flows = argv[k + 1];
        else if (!strcmp(a, "--hosts"))
            hosts = (uint32_t)parse_u64(a, argv[k + 1], 1, 1024);
        else if (!strcmp(a, "--tenants"))
            tenants = (uint32_t)parse_u64(a, argv[k + 1], 1, MAX_TENANTS);
        k++;
    }
    scn_config_default(&s);
    memset(&hpcc, 0, sizeof hpcc);
    if (hpcc_flows && !hpcc_topology)
        bad_arg("--hpcc-flows needs --hpcc-topology (the flow file's node ids are the topology file's)");
    if (hpcc_topology)
        for (k = 1; k < argc; k++)
            if (!strcmp(argv[k], "--hosts") || !strcmp(argv[k], "--tenants"))
                bad_arg("%s shapes the built-in incast; --hpcc-topology gives the topology (and --scenario the "
                        "tenants)", argv[k]);
    if (file) {
        for (k = 1; k < argc; k++)
            if (!strcmp(argv[k], "--hosts") || !strcmp(argv[k], "--tenants"))
                bad_arg("%s shapes the built-in incast; %s has its own topology and tenants (--set them)", argv[k],
                        file);
        if (scn_parse_file(&s, file, &err) != SCN_OK) {
            fprintf(stderr, "rnic_model: %s\n", err.message);
            scn_free(&s);
            return 2;
        }
    } else {
        char text[4096];
        if (hpcc_flows) /* the HPCC experiment's flows on the defaults: its generator's priority group */
            snprintf(text, sizeof text, "# --hpcc-flows without --scenario\n[tenant pg3]\ntraffic = file\n");
        else
            built_in(text, sizeof text, hosts, tenants);
        if (scn_parse_text(&s, hpcc_flows ? "built-in HPCC tenant" : "built-in incast", text, &err) != SCN_OK) {
            fprintf(stderr, "rnic_model: %s\n", err.message);
            scn_free(&s);
            return 1;
        }
    }
    if (hpcc_topology && hpcc_read_topology(&s, hpcc_topology, &hpcc, &err) != SCN_OK) {
        fprintf(stderr, "rnic_model: %s\n", err.message);
        scn_free(&s);
        return 2;
    }
    if (hpcc_topology && hpcc.note[0])
        fprintf(stderr, "rnic_model: note: %s\n", hpcc.note);
    ntn = (uint32_t)arrlenu(s.tenants);
    for (k = 1; k < argc; k++) { /* then every option in order */
        const char *a = argv[k], *val = k + 1 < argc ? argv[k + 1] : "";
        if (!strcmp(a, "--tick-only")) { o.tick_only = 1; continue; }
        if (!strcmp(a, "--quiet")) { o.quiet = 1; continue; }
        if (!strcmp(a, "--workload-only")) { o.workload_only = 1; continue; }
        if (!strcmp(a, "--progress-log")) { o.progress_log = 1; continue; }
        if (!strcmp(a, "--trace-legend")) { trace_legend = 1; continue; }
        k++;
        if (!strcmp(a, "--scenario") || !strcmp(a, "--hosts") || !strcmp(a, "--tenants") ||
            !strcmp(a, "--hpcc-topology") || !strcmp(a, "--hpcc-flows")) {
            continue;
        } else if (!strcmp(a, "--set")) {
            char key[128];
            const char *eq = strchr(val, '=');
            size_t len = eq ? (size_t)(eq - val) : 0;
            if (!eq || len == 0 || len >= sizeof key)
                bad_arg("--set %s: expected section.key=value", val);
            memcpy(key, val, len);
            key[len] = '\0';
            set_key(&s, a, key, eq + 1);
        } else if (!strcmp(a, "--qps") || !strcmp(a, "--depth")) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)parse_u64(a, val, 1, !strcmp(a, "--qps") ? 1024 : 4096));
            for (t = 0; t < ntn; t++)
                set_tenant_key(&s, a, t, a + 2, v);
        } else if (!strcmp(a, "--weights") || !strcmp(a, "--rates-mbps")) { /* one per tenant; the last repeats */
            int w = !strcmp(a, "--weights");
            n = parse_list(a, val, tmp, MAX_TENANTS, 1, w ? 65535 : 800000);
            if (n > ntn)
                bad_arg("%s: %u values for %u tenants", a, n, ntn);
            for (t = 0; t < ntn; t++) {
                snprintf(v, sizeof v, "%llu", (unsigned long long)tmp[t < n ? t : n - 1u]);
                set_tenant_key(&s, a, t, w ? "weight" : "cap_mbps", v);
            }
        } else if (!strcmp(a, "--sizes")) { /* MIN,MAX per tenant; the last pair repeats */
            n = parse_list(a, val, tmp, 2u * MAX_TENANTS, 1, 1u << 30);
            if (n % 2u)
                bad_arg("%s: '%s' is not a list of MIN,MAX pairs", a, val);
            if (n / 2u > ntn)
                bad_arg("%s: %u pairs for %u tenants", a, n / 2u, ntn);
            for (t = 0; t < ntn; t++) {
                uint32_t pr = t < n / 2u ? t : n / 2u - 1u;
                if (tmp[2u * pr + 1u] < tmp[2u * pr])
                    bad_arg("%s: '%s': MIN %llu is above MAX %llu", a, val, (unsigned long long)tmp[2u * pr],
                            (unsigned long long)tmp[2u * pr + 1u]);
                snprintf(v, sizeof v, "%llu,%llu", (unsigned long long)tmp[2u * pr], (unsigned long long)tmp[2u * pr + 1u]);
                set_tenant_key(&s, a, t, "msg_bytes", v);
            }
        } else if (!strcmp(a, "--dcqcn")) {
            const char *variant = dcqcn_name[parse_choice(a, val, dcqcn_name, 4)];
            for (t = 0; t < ntn; t++)
                if (s.tenants[t].protocol == SCN_DCQCN)
                    set_tenant_key(&s, a, t, "variant", variant);
        } else if (!strcmp(a, "--payload")) {
            uint64_t b = parse_u64(a, val, 256, 4096);
            snprintf(v, sizeof v, "%llu", (unsigned long long)b);
            if (s.nic.mtu < b)
                set_key(&s, a, "nic.mtu", v);
            set_key(&s, a, "nic.payload", v);
        } else if (!strcmp(a, "--lat-samples")) { /* all: 0, keep every latency */
            snprintf(v, sizeof v, "%llu", !strcmp(val, "all") ? 0ull : (unsigned long long)parse_u64(a, val, 1, 1u << 28));
            set_key(&s, a, "output.lat_samples", v);
        } else {
            /* a scalar option: its key, and its value checked here first (the message names the option) */
            static const struct { const char *opt, *key; uint64_t lo, hi; const char *const *names; int n; } alias[] = {
                { "--cnp-interval-us", "nic.cnp_interval_us", 1, 1000000, NULL, 0 },
                { "--loss-ppm", "topology.loss_ppm", 0, 100000, NULL, 0 },
                { "--pfc", "switch.pfc", 0, 0, on_off, 2 },
                { "--duration-us", "run.duration_us", 2, 1000000000ull, NULL, 0 },
                { "--warmup-us", "run.warmup_us", 0, 1000000000ull, NULL, 0 },
                { "--seed", "run.seed", 0, UINT64_MAX, NULL, 0 },
                { "--snaplen", "output.snaplen", 64, 65535, NULL, 0 },
                { "--sched", "nic.sched", 0, 0, sched_name, 2 },
                { "--qos-timeout-us", "nic.qos_timeout_us", 0, 1000000, NULL, 0 },
                { "--host", "host.model", 0, 0, on_off, 2 },
                { "--cpu-load", "host.cpu_load", 0, 3, NULL, 0 },
                { "--rhcc", "host.rhcc", 0, 0, rhcc_name, 5 },
                { "--ddio", "host.ddio", 0, 0, on_off, 2 },
                { "--rx-footprint-mb", "host.footprint_mb", 1, 4096, NULL, 0 },
                { "--probe-ts", "host.probe_ts", 0, 0, probe_ts_name, 3 },
                { "--cpu-outstanding", "host.cpu_outstanding", 1, 1u << 20, NULL, 0 },
                { "--rhcc-slack", "host.rhcc_slack", 0, 0, slack_name, 2 },
            };
            const char **path = !strcmp(a, "--csv")          ? &o.csv
                                : !strcmp(a, "--queue-csv")  ? &o.queue_csv
                                : !strcmp(a, "--links-csv")  ? &o.links_csv
                                : !strcmp(a, "--flows-json") ? &o.flows_json
                                : !strcmp(a, "--shares-csv") ? &o.shares_csv
                                : !strcmp(a, "--pcap")       ? &o.pcap
                                : !strcmp(a, "--trace-csv")  ? &o.trace_csv
                                : !strcmp(a, "--vcd")        ? &o.vcd
                                : !strcmp(a, "--fct-csv")    ? &o.fct_csv
                                : !strcmp(a, "--fct-buckets-csv") ? &o.fct_buckets_csv
                                : !strcmp(a, "--tenants-csv") ? &o.tenants_csv
                                : !strcmp(a, "--plots")      ? &o.plots
                                : !strcmp(a, "--write-flows") ? &o.write_flows
                                                             : NULL;
            size_t i;
            if (path) {
                *path = val;
                continue;
            }
            if (!strcmp(a, "--ext-ranks")) {
                o.ext_ranks = (uint32_t)parse_u64(a, val, 1, 64);
                continue;
            }
            if (!strcmp(a, "--ext-skew")) {
                o.ext_skew = (uint32_t)parse_u64(a, val, 0, 1000000);
                continue;
            }
            for (i = 0; i < sizeof alias / sizeof alias[0] && strcmp(a, alias[i].opt); i++)
                ;
            if (i == sizeof alias / sizeof alias[0])
                bad_arg("unknown option '%s'", a); /* in value_opts but not parsed here */
            if (alias[i].names) {
                int c = parse_choice(a, val, alias[i].names, alias[i].n);
                /* on|off is a scenario bool; fast-down is the key's fast_down */
                snprintf(v, sizeof v, "%s", alias[i].names == slack_name && c == 0 ? "fast_down" : alias[i].names[c]);
                if (!strcmp(a, "--host"))
                    host_off = c == 1;
            } else {
                snprintf(v, sizeof v, "%llu", (unsigned long long)parse_u64(a, val, alias[i].lo, alias[i].hi));
            }
            host_opts |= !strncmp(alias[i].key, "host.", 5) && strcmp(a, "--host");
            set_key(&s, a, alias[i].key, v);
        }
    }
    if (trace_legend) { /* after every option was checked: a bad one still exits 2 */
        fm_trace_legend(stdout);
        hpcc_map_free(&hpcc);
        scn_free(&s);
        return 0;
    }
    if (host_off && host_opts)
        fprintf(stderr, "rnic_model: --host off: the receiving host's options (--cpu-load, --rhcc, ...) do nothing\n");
    if (hpcc_flows) { /* after every option: --set may have changed the tenants or the run's length */
        if (hpcc_read_flows(hpcc_flows, &hpcc, &s, &given, &n_given, &err) != SCN_OK) {
            fprintf(stderr, "rnic_model: %s\n", err.message);
            hpcc_map_free(&hpcc);
            scn_free(&s);
            return 2;
        }
        if (hpcc.note[0])
            fprintf(stderr, "rnic_model: note: %s\n", hpcc.note);
        o.given_flows = given;
        o.n_given_flows = n_given;
        o.given_flows_from = hpcc_flows;
    }
    hpcc_map_free(&hpcc);
    o.scenario = file;
    k = fm_run(&s, &o);
    free(given);
    return k;
}
