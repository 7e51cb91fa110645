/* examples/rnic_model/scenario.h: the composed RNIC's scenario file.
 * - defaults: an empty file is today's model (rnic_model.c's options_default and constants,
 *   restated here as numbers) and validates;
 * - every key round-trips: random values in range (a seeded PRNG, edges included) through
 *   scn_set change that key and no other (compared by the test's own field list), dump and
 *   parse back to the same struct; host lists and pairs expand to the test's own expansion;
 * - every shipped scenarios/NAME.conf parses, validates, has the shape its comment states, and
 *   round-trips;
 * - bad files: each error names the right file:line, key and code (a table of bad lines);
 * - number edges: max, max + 1, 2^64 - 1, 2^64, -1, "12abc", "", "+5", "0x10";
 * - --set after a file overrides it; a missing file is an error naming the path;
 * - scn_validate's cross-key checks each name their key;
 * - the complete example of docs/scenario.md parses and validates;
 * - 3,000 random edits of scenarios/default.conf: each is refused naming a line inside the
 *   text, or parses and round-trips. */
#include "ratelimit.h"
#include "test.h"
#include "../examples/rnic_model/scenario.h"

static uint64_t g_seed;

/* ---------------------------------------------------------------- the test's own view of scn */

/* Every scalar field with its "section.key" name, read as a number. */
#define RUN_TOPO_FIELDS(X)                                                                         \
    X("run.duration_us", run.duration_us) X("run.warmup_us", run.warmup_us) X("run.seed", run.seed) \
    X("run.drain", run.drain) X("run.drain_limit_us", run.drain_limit_us)                         \
    X("topology.shape", topo.shape) X("topology.k", topo.k) X("topology.leaves", topo.leaves)      \
    X("topology.spines", topo.spines) X("topology.hosts_per_leaf", topo.hosts_per_leaf)            \
    X("topology.link_gbps", topo.link_gbps) X("topology.fabric_gbps", topo.fabric_gbps)            \
    X("topology.link_delay_ns", topo.link_delay_ns) X("topology.loss_ppm", topo.loss_ppm)
#define SWITCH_FIELDS(X)                                                                           \
    X("switch.buffer_kb", sw.buffer_kb) X("switch.ecn", sw.ecn) X("switch.ecn_kmin_kb", sw.ecn_kmin_kb) \
    X("switch.ecn_kmax_kb", sw.ecn_kmax_kb) X("switch.ecn_pmax_pct", sw.ecn_pmax_pct)              \
    X("switch.pfc", sw.pfc) X("switch.pfc_xoff_kb", sw.pfc_xoff_kb) X("switch.pfc_xon_kb", sw.pfc_xon_kb) \
    X("switch.pfc_headroom_kb", sw.pfc_headroom_kb) X("switch.trim", sw.trim) X("switch.ecmp", sw.ecmp)
#define NIC_HOST_FIELDS(X)                                                                         \
    X("nic.sched", nic.sched) X("nic.pcie_gbps", nic.pcie_gbps) X("nic.pcie_latency_ns", nic.pcie_latency_ns) \
    X("nic.payload", nic.payload) X("nic.mtu", nic.mtu) X("nic.cnp_interval_us", nic.cnp_interval_us) \
    X("nic.qos_timeout_us", nic.qos_timeout_us) X("nic.ack_every", nic.ack_every)                  \
    X("nic.ack_timeout_ns", nic.ack_timeout_ns)                                                    \
    X("host.model", host.model) X("host.cpu_load", host.cpu_load) X("host.rhcc", host.rhcc)        \
    X("host.ddio", host.ddio) X("host.footprint_mb", host.footprint_mb)                            \
    X("host.cpu_outstanding", host.cpu_outstanding) X("host.probe_ts", host.probe_ts)              \
    X("host.cpu_evict_wb", host.cpu_evict_wb) X("host.rx_pipeline", host.rx_pipeline)             \
    X("host.probe_base_ns", host.probe_base_ns)                                                    \
    X("host.rhcc_slack", host.rhcc_slack) X("output.snaplen", out.snaplen)                         \
    X("output.pcap_us", out.pcap_us) X("output.queue_sample_us", out.queue_sample_us)              \
    X("output.lat_samples", out.lat_samples)
#define TENANT_FIELDS(X)                                                                           \
    X("weight", weight) X("cap_mbps", cap_mbps) X("protocol", protocol) X("variant", variant)     \
    X("recover", recover) X("qps", qps) X("depth", depth) X("pattern", pattern) X("traffic", traffic) \
    X("load_pct", load_pct) X("burst_us", burst_us)

/* The names of the fields that differ between a and b, "|"-separated, into out. */
typedef struct diff_out {
    char text[4096];
    size_t n;
} diff_out;

static void diff_add(diff_out *d, const char *name)
{
    size_t len = strlen(d->text);
    snprintf(d->text + len, sizeof d->text - len, "%s%s", len ? "|" : "", name);
    d->n++;
}

static int u32_lists_differ(const uint32_t *a, const uint32_t *b)
{
    size_t i;
    if (arrlenu(a) != arrlenu(b))
        return 1;
    for (i = 0; i < arrlenu(a); i++)
        if (a[i] != b[i])
            return 1;
    return 0;
}

static void scn_diff(const scn *a, const scn *b, diff_out *d)
{
    size_t i, t;
    char name[160];
    d->text[0] = '\0';
    d->n = 0;
#define CMP_FIELD(nm, f)                              \
    if ((uint64_t)a->f != (uint64_t)b->f)             \
        diff_add(d, nm);
    RUN_TOPO_FIELDS(CMP_FIELD)
    SWITCH_FIELDS(CMP_FIELD)
    NIC_HOST_FIELDS(CMP_FIELD)
#undef CMP_FIELD
    if (a->topo.hosts.n != b->topo.hosts.n || a->topo.hosts.v[0] != b->topo.hosts.v[0] ||
        (a->topo.hosts.n == 2 && a->topo.hosts.v[1] != b->topo.hosts.v[1]))
        diff_add(d, "topology.hosts");
    if (a->sw.dt_alpha.num != b->sw.dt_alpha.num || a->sw.dt_alpha.den != b->sw.dt_alpha.den)
        diff_add(d, "switch.dt_alpha");
    if (arrlenu(a->topo.nodes) != arrlenu(b->topo.nodes))
        diff_add(d, "topology.node");
    else
        for (i = 0; i < arrlenu(a->topo.nodes); i++)
            if (strcmp(a->topo.nodes[i].name, b->topo.nodes[i].name) ||
                a->topo.nodes[i].is_switch != b->topo.nodes[i].is_switch || a->topo.nodes[i].tier != b->topo.nodes[i].tier) {
                diff_add(d, "topology.node");
                break;
            }
    if (arrlenu(a->topo.links) != arrlenu(b->topo.links))
        diff_add(d, "topology.link");
    else
        for (i = 0; i < arrlenu(a->topo.links); i++) {
            const scn_link *x = &a->topo.links[i], *y = &b->topo.links[i];
            if (strcmp(x->a, y->a) || strcmp(x->b, y->b) || x->gbps != y->gbps || x->delay_ns != y->delay_ns ||
                x->loss_ppm != y->loss_ppm) {
                diff_add(d, "topology.link");
                break;
            }
        }
    if (strcmp(a->out.csv, b->out.csv)) diff_add(d, "output.csv");
    if (strcmp(a->out.queue_csv, b->out.queue_csv)) diff_add(d, "output.queue_csv");
    if (strcmp(a->out.links_csv, b->out.links_csv)) diff_add(d, "output.links_csv");
    if (strcmp(a->out.pcap, b->out.pcap)) diff_add(d, "output.pcap");
    if (strcmp(a->out.trace_csv, b->out.trace_csv)) diff_add(d, "output.trace_csv");
    if (strcmp(a->out.vcd, b->out.vcd)) diff_add(d, "output.vcd");
    if (strcmp(a->out.fct_csv, b->out.fct_csv)) diff_add(d, "output.fct_csv");
    if (strcmp(a->out.fct_buckets_csv, b->out.fct_buckets_csv)) diff_add(d, "output.fct_buckets_csv");
    if (strcmp(a->out.tenants_csv, b->out.tenants_csv)) diff_add(d, "output.tenants_csv");
    if (strcmp(a->out.plots, b->out.plots)) diff_add(d, "output.plots");
    if (strcmp(a->run.flow_file, b->run.flow_file)) diff_add(d, "run.flow_file");
    if (arrlenu(a->tenants) != arrlenu(b->tenants)) {
        diff_add(d, "tenants");
        return;
    }
    for (t = 0; t < arrlenu(a->tenants); t++) {
        const scn_tenant *x = &a->tenants[t], *y = &b->tenants[t];
        if (strcmp(x->name, y->name)) {
            diff_add(d, "tenant names");
            continue;
        }
#define CMP_TENANT(nm, f)                                            \
    if ((uint64_t)x->f != (uint64_t)y->f) {                          \
        snprintf(name, sizeof name, "tenant.%s.%s", x->name, nm);    \
        diff_add(d, name);                                           \
    }
        TENANT_FIELDS(CMP_TENANT)
#undef CMP_TENANT
#define CMP_NAMED(cond, nm)                                          \
    if (cond) {                                                      \
        snprintf(name, sizeof name, "tenant.%s.%s", x->name, nm);    \
        diff_add(d, name);                                           \
    }
        CMP_NAMED(x->msg_bytes.min != y->msg_bytes.min || x->msg_bytes.max != y->msg_bytes.max, "msg_bytes")
        CMP_NAMED(u32_lists_differ(x->dst, y->dst), "dst")
        CMP_NAMED(u32_lists_differ(x->src, y->src), "src")
        CMP_NAMED(strcmp(x->size_cdf, y->size_cdf) != 0, "size_cdf")
        if (arrlenu(x->pairs) != arrlenu(y->pairs)) {
            CMP_NAMED(1, "pairs")
        } else {
            for (i = 0; i < arrlenu(x->pairs); i++)
                if (x->pairs[i].src != y->pairs[i].src || x->pairs[i].dst != y->pairs[i].dst)
                    break;
            CMP_NAMED(i < arrlenu(x->pairs), "pairs")
        }
#undef CMP_NAMED
    }
}

/* Read a scalar (or a list's length) of s by its full name, -1 as "no such scalar". */
static int read_scalar(const scn *s, const char *full, uint64_t *v)
{
#define READ_FIELD(nm, f)        \
    if (!strcmp(full, nm)) {     \
        *v = (uint64_t)s->f;     \
        return 0;                \
    }
    RUN_TOPO_FIELDS(READ_FIELD)
    SWITCH_FIELDS(READ_FIELD)
    NIC_HOST_FIELDS(READ_FIELD)
#undef READ_FIELD
    if (!strncmp(full, "tenant.", 7)) {
        const char *dot = strchr(full + 7, '.');
        size_t t;
        for (t = 0; dot && t < arrlenu(s->tenants); t++) {
            const scn_tenant *x = &s->tenants[t];
            if (strlen(x->name) != (size_t)(dot - full - 7) || strncmp(x->name, full + 7, strlen(x->name)))
                continue;
#define READ_TENANT(nm, f)            \
    if (!strcmp(dot + 1, nm)) {       \
        *v = (uint64_t)x->f;          \
        return 0;                     \
    }
            TENANT_FIELDS(READ_TENANT)
#undef READ_TENANT
        }
    }
    return -1;
}

/* Dump s to a temporary file and read it back as text (malloc'd). */
static char *dump_text(const scn *s)
{
    FILE *f = tmpfile();
    long n;
    char *text;
    if (!f)
        return NULL;
    scn_dump(s, f);
    n = ftell(f);
    rewind(f);
    text = (char *)malloc((size_t)n + 1u);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* Parse dump(s) on a fresh default; 0 when it parses and equals s. */
static int round_trips(const scn *s, diff_out *d)
{
    scn back;
    scn_error err;
    char *text = dump_text(s);
    int rc;
    scn_config_default(&back);
    if (!text) {
        scn_free(&back);
        return -1;
    }
    rc = scn_parse_text(&back, "dump", text, &err);
    if (rc)
        printf("  dump does not parse: %s\n", err.message);
    scn_diff(s, &back, d);
    if (d->n)
        printf("  differs after the round trip: %s\n", d->text);
    free(text);
    scn_free(&back);
    return rc || d->n ? -1 : 0;
}

/* ---------------------------------------------------------------- random values */

static uint64_t rnd(uint64_t *x) { return rnic_splitmix64(x); }

/* A number in [lo, hi], edges often (lo, hi, lo + 1, hi - 1). */
static uint64_t rnd_in(uint64_t *x, uint64_t lo, uint64_t hi)
{
    uint64_t r = rnd(x), span = hi - lo;
    switch (r % 6u) {
    case 0: return lo;
    case 1: return hi;
    case 2: return span ? lo + 1u : lo;
    case 3: return span ? hi - 1u : hi;
    default: return span == UINT64_MAX ? rnd(x) : lo + rnd(x) % (span + 1u);
    }
}

/* A host list of distinct ids below `limit` as text (runs as ranges, odd spacing), and the
 * test's own expansion of it into ids[] (stb_ds). */
static void rnd_hosts(uint64_t *x, uint32_t limit, char *text, size_t cap, uint32_t **ids)
{
    uint32_t next = (uint32_t)(rnd(x) % 8u), parts = (uint32_t)(rnd(x) % 5u), p;
    size_t used = 0;
    text[0] = '\0';
    for (p = 0; p < parts && next < limit; p++) {
        uint32_t len = 1u + (uint32_t)(rnd(x) % 4u), h;
        if (next + len > limit)
            len = limit - next;
        if (len > 1)
            used += (size_t)snprintf(text + used, cap - used, "%s%u%s-%s%u", p ? (rnd(x) & 1u ? ", " : ",") : "",
                                     (unsigned)next, rnd(x) & 1u ? " " : "", rnd(x) & 1u ? " " : "",
                                     (unsigned)(next + len - 1u));
        else
            used += (size_t)snprintf(text + used, cap - used, "%s%u", p ? ", " : "", (unsigned)next);
        for (h = next; h < next + len; h++)
            arrput(*ids, h);
        next += len + 1u + (uint32_t)(rnd(x) % 3u);
    }
}

static const char *const shape_names[] = { "star", "dumbbell", "leaf_spine", "fat_tree", "explicit" };
static const char *const on_off[] = { "off", "on" };

/* The random value of key k as text; for numbers *num gets it (the test's expectation). */
static void rnd_value(uint64_t *x, const scn_key *k, char *text, size_t cap, uint64_t *num, uint32_t **ids,
                      scn_pair **pairs, uint32_t serial)
{
    size_t i, n;
    *num = 0;
    switch (k->type) {
    case SCN_T_U64:
        *num = rnd_in(x, k->min, k->max);
        snprintf(text, cap, "%s%llu%s", rnd(x) & 1u ? " " : "", (unsigned long long)*num, rnd(x) & 1u ? "\t" : "");
        break;
    case SCN_T_CHOICE:
        for (n = 0; k->choices[n]; n++)
            ;
        *num = rnd(x) % n;
        snprintf(text, cap, "%s", k->choices[*num]);
        if (!strcmp(k->name, "shape")) /* the test's own names agree with the table's */
            CHECK(!strcmp(text, shape_names[*num]));
        break;
    case SCN_T_BOOL:
        *num = rnd(x) & 1u;
        snprintf(text, cap, "%s", on_off[*num]);
        break;
    case SCN_T_FRACTION: {
        uint64_t a = rnd_in(x, k->min, k->max), b = rnd_in(x, k->min, k->max);
        if (rnd(x) & 1u)
            snprintf(text, cap, "%llu", (unsigned long long)a);
        else
            snprintf(text, cap, "%llu/%llu", (unsigned long long)a, (unsigned long long)b);
        break;
    }
    case SCN_T_STRING: {
        static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789/._-";
        n = rnd(x) % 4u == 0 ? (rnd(x) & 1u ? 0 : SCN_PATH_MAX - 1u) : 1u + rnd(x) % 40u;
        for (i = 0; i < n && i + 1 < cap; i++)
            text[i] = chars[rnd(x) % (sizeof chars - 1u)];
        text[i] = '\0';
        break;
    }
    case SCN_T_COUNTS:
    case SCN_T_SIZES: {
        uint64_t a = rnd_in(x, k->min, k->max), b = rnd_in(x, k->min, k->max);
        if (k->type == SCN_T_SIZES && b < a) {
            uint64_t c = a;
            a = b;
            b = c;
        }
        if (rnd(x) & 1u)
            snprintf(text, cap, "%llu", (unsigned long long)a);
        else
            snprintf(text, cap, "%llu,%llu", (unsigned long long)a, (unsigned long long)b);
        break;
    }
    case SCN_T_HOSTS:
        rnd_hosts(x, rnd(x) & 1u ? 64u : SCN_MAX_HOSTS, text, cap, ids);
        break;
    case SCN_T_PAIRS: {
        size_t used = 0;
        n = rnd(x) % 5u;
        text[0] = '\0';
        for (i = 0; i < n; i++) { /* distinct: the source is the index */
            scn_pair p;
            p.src = (uint32_t)i;
            p.dst = (uint32_t)(i + 1u + rnd(x) % 100u);
            arrput(*pairs, p);
            used += (size_t)snprintf(text + used, cap - used, "%s%u>%u", i ? ", " : "", (unsigned)p.src,
                                     (unsigned)p.dst);
        }
        break;
    }
    case SCN_T_NODE:
        switch (rnd(x) % 3u) {
        case 0: snprintf(text, cap, "n%u_%u host", (unsigned)serial, (unsigned)(rnd(x) % 1000u)); break;
        case 1: snprintf(text, cap, "n%u_%u switch", (unsigned)serial, (unsigned)(rnd(x) % 1000u)); break;
        default:
            snprintf(text, cap, "n%u_%u switch %u", (unsigned)serial, (unsigned)(rnd(x) % 1000u),
                     (unsigned)rnd_in(x, 1, 15));
        }
        break;
    case SCN_T_LINK:
        snprintf(text, cap, "n%u l%u %llu %llu%s", (unsigned)serial, (unsigned)(rnd(x) % 9u),
                 (unsigned long long)rnd_in(x, 1, 1600), (unsigned long long)rnd_in(x, 0, 1000000000),
                 rnd(x) & 1u ? " 7" : "");
        break;
    }
}

static const scn_tenant *tenant_named(const scn *s, const char *name)
{
    size_t t;
    for (t = 0; t < arrlenu(s->tenants); t++)
        if (!strcmp(s->tenants[t].name, name))
            return &s->tenants[t];
    return NULL;
}

static int full_key_name(const scn_key *k, const char *tenant, char *out, size_t cap)
{
    if (k->section == SCN_SEC_TENANT)
        return snprintf(out, cap, "tenant.%s.%s", tenant, k->name);
    return snprintf(out, cap, "%s.%s", scn_section_name(k->section), k->name);
}

/* ---------------------------------------------------------------- tests */

/* An empty file is today's model: rnic_model.c's defaults, restated. */
static void test_defaults(void)
{
    scn s, e;
    scn_error err;
    diff_out d;
    scn_config_default(&s);
    scn_config_default(&e);
    CHECK_EQ(scn_parse_text(&e, "empty.conf", "", &err), SCN_OK);
    CHECK_EQ(scn_parse_text(&e, "comments.conf", "# nothing\n\n   \t# but comments\r\n", &err), SCN_OK);
    scn_diff(&s, &e, &d);
    CHECK_EQ(d.n, 0);
    CHECK_EQ(scn_validate(&s, &err), SCN_OK);
    /* a 2:1 incast: 3 hosts on one switch, hosts 1 and 2 send to host 0 */
    CHECK_EQ(s.topo.shape, SCN_STAR);
    CHECK_EQ(scn_host_count(&s), 3);
    CHECK_EQ(scn_switch_count(&s), 1);
    CHECK_EQ(s.topo.link_gbps, 100);        /* LINK_BPS */
    CHECK_EQ(s.topo.link_delay_ns, 100);    /* LINK_PROP_NS */
    CHECK_EQ(s.nic.pcie_gbps, 128);         /* PCIE_BPS */
    CHECK_EQ(s.nic.pcie_latency_ns, 1000);  /* PCIE_LATENCY_NS */
    CHECK_EQ(s.nic.payload, 1024);
    CHECK_EQ(s.nic.cnp_interval_us, 50);
    CHECK_EQ(s.nic.sched, SCN_SCHED_PALOS);
    CHECK_EQ(s.sw.buffer_kb, 4096);         /* SWITCH_BUFFER 4 MB */
    CHECK_EQ(s.sw.ecn_kmin_kb, 400);        /* ECN_KMIN */
    CHECK_EQ(s.sw.ecn_kmax_kb, 1600);       /* ECN_KMAX */
    CHECK_EQ(s.sw.ecn_pmax_pct, 20);        /* ECN_PMAX_PPM 200000 */
    CHECK_EQ(s.sw.pfc, 1);
    CHECK_EQ(s.run.duration_us, 10000);
    CHECK_EQ(s.run.warmup_us, 2000);
    CHECK_EQ(s.run.seed, 1);
    CHECK_EQ(s.run.drain, 1);
    CHECK_EQ(s.run.drain_limit_us, 100000); /* the drain's 100 ms */
    CHECK_EQ(s.host.model, 1);
    CHECK_EQ(s.host.cpu_load, 3);
    CHECK_EQ(s.host.rhcc, SCN_RHCC_BOTH);
    CHECK_EQ(s.host.ddio, 1);
    CHECK_EQ(s.host.footprint_mb, 16);
    CHECK_EQ(s.out.snaplen, 128);
    CHECK(!s.out.csv[0] && !s.out.pcap[0]);
    CHECK_EQ(arrlenu(s.tenants), 2);
    if (arrlenu(s.tenants) == 2) {
        size_t t;
        for (t = 0; t < 2; t++) {
            CHECK_EQ(s.tenants[t].weight, 1);
            CHECK_EQ(s.tenants[t].cap_mbps, 0);
            CHECK_EQ(s.tenants[t].qps, 8);
            CHECK_EQ(s.tenants[t].depth, 8);
            CHECK_EQ(s.tenants[t].protocol, SCN_DCQCN);
            CHECK_EQ(s.tenants[t].pattern, SCN_INCAST);
            CHECK_EQ(arrlenu(s.tenants[t].dst), 1);
            CHECK_EQ(arrlenu(s.tenants[t].src), 0);
        }
        CHECK_EQ(s.tenants[0].msg_bytes.min, 65536);
        CHECK_EQ(s.tenants[0].msg_bytes.max, 1048576);
        CHECK_EQ(s.tenants[1].msg_bytes.min, 1024);
        CHECK_EQ(s.tenants[1].msg_bytes.max, 16384);
    }
    CHECK_EQ(round_trips(&s, &d), 0);
    scn_free(&s);
    scn_free(&e);
}

/* Every key: a random value in range through scn_set changes that key and no other, reads
 * back as set, and the whole struct survives dump + parse. 120 rounds (make test: the first 60),
 * all keys each. */
static void test_every_key_round_trips(void)
{
    size_t nkeys, i, round, rounds = (size_t)test_length(60, 120);
    const scn_key *keys = scn_keys(&nkeys);
    uint64_t x = g_seed;
    uint32_t changed[128] = { 0 }, serial = 0;
    char *text = (char *)malloc(1u << 16);
    CHECK(nkeys <= 128);
    for (round = 0; round < rounds && !TEST_FAILS(); round++) {
        scn s;
        scn_error err;
        diff_out d;
        scn_config_default(&s);
        for (i = 0; i < nkeys; i++) {
            const scn_key *k = &keys[i];
            const char *tenant = s.tenants[rnd(&x) % arrlenu(s.tenants)].name;
            char full[128];
            uint64_t num, got;
            uint32_t *ids = NULL;
            scn_pair *pairs = NULL;
            scn before;
            char *snap;
            int rc;
            full_key_name(k, tenant, full, sizeof full);
            rnd_value(&x, k, text, 1u << 16, &num, &ids, &pairs, serial++);
            /* the struct before, by the round trip (a deep copy) */
            scn_config_default(&before);
            snap = dump_text(&s);
            CHECK(snap && scn_parse_text(&before, "snapshot", snap, &err) == SCN_OK);
            free(snap);
            rc = scn_set(&s, full, text, &err);
            CHECK_EQ(rc, SCN_OK);
            if (rc) {
                printf("  %s = '%s': %s\n", full, text, err.message);
            } else {
                scn_diff(&before, &s, &d);
                if (d.n) {
                    const char *want = k->type == SCN_T_NODE ? "topology.node"
                                       : k->type == SCN_T_LINK ? "topology.link" : full;
                    CHECK_EQ(d.n, 1);
                    CHECK(!strcmp(d.text, want));
                    if (d.n != 1 || strcmp(d.text, want))
                        printf("  set %s changed %s\n", want, d.text);
                    changed[i]++;
                }
                if (k->type == SCN_T_U64 || k->type == SCN_T_CHOICE || k->type == SCN_T_BOOL) {
                    CHECK_EQ(read_scalar(&s, full, &got), 0);
                    CHECK_EQ(got, num);
                }
                if (k->type == SCN_T_HOSTS) {
                    const scn_tenant *tn = tenant_named(&s, tenant);
                    CHECK(!u32_lists_differ(!strcmp(k->name, "dst") ? tn->dst : tn->src, ids));
                }
                if (k->type == SCN_T_PAIRS) {
                    const scn_tenant *tn = tenant_named(&s, tenant);
                    size_t j;
                    CHECK_EQ(arrlenu(tn->pairs), arrlenu(pairs));
                    for (j = 0; j < arrlenu(pairs) && j < arrlenu(tn->pairs); j++)
                        CHECK(tn->pairs[j].src == pairs[j].src && tn->pairs[j].dst == pairs[j].dst);
                }
                if (k->type == SCN_T_STRING) { /* a tenant's string is in its scn_tenant */
                    const char *base = k->section == SCN_SEC_TENANT ? (const char *)tenant_named(&s, tenant) : (const char *)&s;
                    CHECK(!strcmp(base + k->offset, text));
                }
            }
            arrfree(ids);
            arrfree(pairs);
            scn_free(&before);
        }
        CHECK_EQ(round_trips(&s, &d), 0);
        scn_free(&s);
    }
    for (i = 0; i < nkeys; i++) { /* every key took effect at least once */
        CHECK(changed[i] > 0);
        if (!changed[i])
            printf("  %s.%s never changed the struct\n", scn_section_name(keys[i].section), keys[i].name);
    }
    free(text);
}

/* Every shipped scenario parses, validates and round-trips; the shapes are what they say. */
static void test_shipped_scenarios(void)
{
    static const char *const names[] = { "default", "star_incast", "dumbbell", "leaf_spine", "fat_tree_k4",
                                         "explicit", "websearch_fattree" };
    size_t i, t;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[128];
        scn s;
        scn_error err;
        diff_out d;
        int rc;
        snprintf(path, sizeof path, "scenarios/%s.conf", names[i]);
        scn_config_default(&s);
        rc = scn_parse_file(&s, path, &err);
        CHECK_EQ(rc, SCN_OK);
        if (!rc)
            rc = scn_validate(&s, &err);
        CHECK_EQ(rc, SCN_OK);
        if (rc)
            printf("  %s: %s\n", path, err.message);
        CHECK_EQ(round_trips(&s, &d), 0);
        if (!strcmp(names[i], "default")) {
            /* at least 16 hosts, two switch tiers, every host sending and receiving, two tenants
             * (weights 1 and 3, or a cap), the host model and RHCC on */
            uint64_t hosts = s.topo.shape == SCN_LEAF_SPINE ? (uint64_t)s.topo.leaves * s.topo.hosts_per_leaf
                             : s.topo.shape == SCN_FAT_TREE ? (uint64_t)s.topo.k * s.topo.k * s.topo.k / 4u : 0;
            CHECK(s.topo.shape == SCN_LEAF_SPINE || s.topo.shape == SCN_FAT_TREE);
            CHECK(hosts >= 16);
            CHECK_EQ(scn_host_count(&s), hosts);
            CHECK_EQ(arrlenu(s.tenants), 2);
            for (t = 0; t < arrlenu(s.tenants); t++) {
                CHECK(s.tenants[t].pattern == SCN_PERMUTATION || s.tenants[t].pattern == SCN_ALL_TO_ALL ||
                      s.tenants[t].pattern == SCN_PAIRS);
                CHECK_EQ(arrlenu(s.tenants[t].src), 0); /* every host */
                if (s.tenants[t].pattern == SCN_PAIRS) { /* every host once a source, once a destination */
                    uint64_t h;
                    size_t k;
                    for (h = 0; h < hosts; h++) {
                        unsigned as_src = 0, as_dst = 0;
                        for (k = 0; k < arrlenu(s.tenants[t].pairs); k++) {
                            as_src += s.tenants[t].pairs[k].src == h;
                            as_dst += s.tenants[t].pairs[k].dst == h;
                        }
                        CHECK_EQ(as_src, 1);
                        CHECK_EQ(as_dst, 1);
                    }
                }
            }
            if (arrlenu(s.tenants) == 2)
                CHECK((s.tenants[0].weight == 1 && s.tenants[1].weight == 3) || s.tenants[0].cap_mbps ||
                      s.tenants[1].cap_mbps);
            CHECK_EQ(s.host.model, 1);
            CHECK_EQ(s.host.rhcc, SCN_RHCC_BOTH);
        }
        if (!strcmp(names[i], "star_incast")) { /* 8:1, 2 tenants */
            CHECK_EQ(s.topo.shape, SCN_STAR);
            CHECK_EQ(scn_host_count(&s), 9);
            CHECK_EQ(arrlenu(s.tenants), 2);
            for (t = 0; t < arrlenu(s.tenants); t++) {
                CHECK_EQ(s.tenants[t].pattern, SCN_INCAST);
                CHECK_EQ(arrlenu(s.tenants[t].dst), 1);
                CHECK(arrlenu(s.tenants[t].src) == 0 || arrlenu(s.tenants[t].src) == 8);
            }
        }
        if (!strcmp(names[i], "websearch_fattree")) { /* the HPCC paper's: web search, Poisson at 30 %, DCQCN */
            CHECK_EQ(s.topo.shape, SCN_FAT_TREE);
            CHECK_EQ(scn_host_count(&s), 16);
            CHECK_EQ(arrlenu(s.tenants), 1);
            if (arrlenu(s.tenants) == 1) {
                CHECK_EQ(s.tenants[0].traffic, SCN_TRAFFIC_POISSON);
                CHECK_EQ(s.tenants[0].load_pct, 30);
                CHECK_EQ(s.tenants[0].pattern, SCN_ALL_TO_ALL);
                CHECK_EQ(s.tenants[0].protocol, SCN_DCQCN);
                CHECK(!strcmp(s.tenants[0].size_cdf, "scenarios/cdf/websearch.txt"));
            }
        }
        if (!strcmp(names[i], "fat_tree_k4")) { /* k = 4: 16 hosts, 20 switches; permutation, 8 QPs */
            CHECK_EQ(s.topo.shape, SCN_FAT_TREE);
            CHECK_EQ(s.topo.k, 4);
            CHECK_EQ(scn_host_count(&s), 16);
            CHECK_EQ(scn_switch_count(&s), 20);
            for (t = 0; t < arrlenu(s.tenants); t++) {
                CHECK_EQ(s.tenants[t].pattern, SCN_PERMUTATION);
                CHECK_EQ(s.tenants[t].qps, 8);
            }
        }
        if (!strcmp(names[i], "dumbbell")) {
            CHECK_EQ(s.topo.shape, SCN_DUMBBELL);
            CHECK_EQ(s.topo.hosts.n, 2);
            CHECK_EQ(scn_host_count(&s), 16);
            CHECK_EQ(scn_switch_count(&s), 2);
        }
        if (!strcmp(names[i], "leaf_spine")) {
            CHECK_EQ(s.topo.shape, SCN_LEAF_SPINE);
            CHECK_EQ(scn_host_count(&s), 32);
            CHECK_EQ(scn_switch_count(&s), 6);
        }
        if (!strcmp(names[i], "explicit")) { /* 4 hosts, 2 switches, 5 links; b0 is host 2 */
            CHECK_EQ(s.topo.shape, SCN_EXPLICIT);
            CHECK_EQ(scn_host_count(&s), 4);
            CHECK_EQ(scn_switch_count(&s), 2);
            CHECK_EQ(arrlenu(s.topo.links), 5);
            CHECK_EQ(scn_node_index(&s, "b0"), 2);
            CHECK_EQ(scn_node_index(&s, "s1"), 5);
            CHECK_EQ(scn_node_index(&s, "nope"), (uint64_t)(int64_t)-1);
            CHECK_EQ(s.topo.nodes[4].tier, 1); /* s0: no tier written, 1 */
            CHECK_EQ(s.topo.nodes[5].tier, 2); /* s1: written 2 */
        }
        scn_free(&s);
    }
}

/* A bad line: the error names file:line, the key and the code. */
typedef struct bad_case {
    const char *text;
    uint32_t line;
    const char *key;     /* err.key */
    scn_code code;
    const char *says;    /* a part of the message */
} bad_case;

static void test_error_lines(void)
{
    static const bad_case cases[] = {
        { "[run]\nduration_us = 100\n[swtich]\nbuffer_kb = 1\n", 3, "", SCN_EUNKNOWN, "unknown section [swtich]" },
        { "[switch]\npfc_xof_kb = 1\n", 2, "switch.pfc_xof_kb", SCN_EUNKNOWN, "unknown key" },
        { "[switch]\npfc = on\n# c\n\npfc = off\n", 5, "switch.pfc", SCN_EDUPLICATE, "first at line 2" },
        { "[switch]\npfc = on\n[run]\nseed = 2\n[switch]\npfc = off\n", 6, "switch.pfc", SCN_EDUPLICATE,
          "first at line 2" },
        { "[switch]\npfc on\n", 2, "switch.pfc", SCN_ESYNTAX, "missing '='" },
        { "[switch]\nbuffer_kb = 12abc\n", 2, "switch.buffer_kb", SCN_EVALUE, "trailing 'abc'" },
        { "[switch]\nbuffer_kb = 12 13\n", 2, "switch.buffer_kb", SCN_EVALUE, "trailing" },
        { "[switch]\nbuffer_kb = 0x10\n", 2, "switch.buffer_kb", SCN_EVALUE, "not a whole number" },
        { "[run]\nseed = 18446744073709551616\n", 2, "run.seed", SCN_ERANGE, "64 bits" },
        { "[run]\nseed = -1\n", 2, "run.seed", SCN_ERANGE, "negative" },
        { "[run]\nduration_us =\n", 2, "run.duration_us", SCN_EVALUE, "empty value" },
        { "[run]\nduration_us = 0\n", 2, "run.duration_us", SCN_ERANGE, "below the minimum 1" },
        { "[tenant web]\nqps = 4\nprotocol = dctcp\n", 3, "tenant.web.protocol", SCN_EVALUE,
          "unknown protocol 'dctcp'" },
        { "[tenant web]\npattern = broadcast\n", 2, "tenant.web.pattern", SCN_EVALUE, "unknown pattern 'broadcast'" },
        { "[tenant web]\nqps = 4\nqps = 5\n", 3, "tenant.web.qps", SCN_EDUPLICATE, "first at line 2" },
        { "[tenant web]\n[tenant db]\nqps = 1\n[tenant web]\n", 4, "", SCN_EDUPLICATE, "defined twice" },
        { "[tenant]\n", 1, "", SCN_ESYNTAX, "needs a name" },
        { "[tenant a b]\n", 1, "", SCN_ESYNTAX, "character" },
        { "seed = 1\n", 1, "seed", SCN_ESYNTAX, "before any [section]" },
        { "[run x]\n", 1, "", SCN_ESYNTAX, "takes no name" },
        { "[run\n", 1, "", SCN_ESYNTAX, "closing ']'" },
        { "[switch]\npfc = yes\n", 2, "switch.pfc", SCN_EVALUE, "neither on nor off" },
        { "[switch]\ndt_alpha = 1/0\n", 2, "switch.dt_alpha", SCN_ERANGE, "below the minimum 1" },
        { "[switch]\ndt_alpha = 1/2/3\n", 2, "switch.dt_alpha", SCN_EVALUE, "not a whole number" },
        { "[tenant w]\nmsg_bytes = 100,10\n", 2, "tenant.w.msg_bytes", SCN_EVALUE, "MIN 100 is above MAX 10" },
        { "[tenant w]\nmsg_bytes = 1,2,3\n", 2, "tenant.w.msg_bytes", SCN_EVALUE, "not a whole number" },
        { "[tenant w]\ndst = 3-1\n", 2, "tenant.w.dst", SCN_EVALUE, "backwards" },
        { "[tenant w]\nsrc = 1, 2, 1\n", 2, "tenant.w.src", SCN_EVALUE, "host 1 is listed twice" },
        { "[tenant w]\nsrc = 1,\n", 2, "tenant.w.src", SCN_EVALUE, "trailing ','" },
        { "[tenant w]\nsrc = 65536\n", 2, "tenant.w.src", SCN_ERANGE, "above the limit 65535" },
        { "[tenant w]\nsrc = -2\n", 2, "tenant.w.src", SCN_ERANGE, "negative" },
        { "[tenant w]\npairs = 0>1, 1>1\n", 2, "tenant.w.pairs", SCN_EVALUE, "sends to itself" },
        { "[tenant w]\npairs = 0>1, 0>1\n", 2, "tenant.w.pairs", SCN_EVALUE, "listed twice" },
        { "[tenant w]\npairs = 0-1\n", 2, "tenant.w.pairs", SCN_EVALUE, "not a pair" },
        { "[topology]\nnode = h0 router\n", 2, "topology.node", SCN_EVALUE, "unknown node kind 'router'" },
        { "[topology]\nnode = h0 host\nnode = h0 switch\n", 3, "topology.node", SCN_EDUPLICATE, "defined twice" },
        { "[topology]\nnode = s0 switch 16\n", 2, "topology.node", SCN_ERANGE, "TIER: 16 is above the limit 15" },
        { "[topology]\nnode = s0 switch 0\n", 2, "topology.node", SCN_ERANGE, "TIER: 0 is below the minimum 1" },
        { "[topology]\nnode = h0 host 1\n", 2, "topology.node", SCN_EVALUE, "takes no tier" },
        { "[topology]\nnode = h0 switch 2 3\n", 2, "topology.node", SCN_EVALUE, "NAME switch [TIER]" },
        { "[topology]\nnode = abcdefghijklmnopqrstuvwx host\n", 2, "topology.node", SCN_EVALUE, "longer than 23" },
        { "[tenant abcdefghijklmnopqrstuvwx]\n", 1, "", SCN_ESYNTAX, "longer than 23" },
        { "[topology]\nlink = a b 100\n", 2, "topology.link", SCN_EVALUE, "A B GBPS DELAY_NS" },
        { "[topology]\nlink = a b 0 10\n", 2, "topology.link", SCN_ERANGE, "GBPS: 0 is below the minimum 1" },
        { "[topology]\nhosts = 8,8,8\n", 2, "topology.hosts", SCN_EVALUE, "not a whole number" },
        { "[topology]\nshape = ring\n", 2, "topology.shape", SCN_EVALUE, "unknown shape 'ring'" },
        { "[output]\npcap = a\n[output]\npcap = b\n", 4, "output.pcap", SCN_EDUPLICATE, "first at line 2" },
        { "[run]\r\nseed = 1\r\n\r\n[nic]\r\npayload = 100\r\n", 5, "nic.payload", SCN_ERANGE,
          "100 is below the minimum 256" },
        { "[run]\nseed = 1 # fine\n= 5\n", 3, "", SCN_ESYNTAX, "without a key" },
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *c = &cases[i];
        scn s;
        scn_error err;
        char prefix[64];
        int rc;
        memset(&err, 0, sizeof err);
        scn_config_default(&s);
        rc = scn_parse_text(&s, "bad.conf", c->text, &err);
        snprintf(prefix, sizeof prefix, "bad.conf:%u: ", (unsigned)c->line);
        CHECK_EQ(rc, c->code);
        CHECK_EQ(err.code, c->code);
        CHECK_EQ(err.line, c->line);
        CHECK(!strcmp(err.file, "bad.conf"));
        CHECK(!strcmp(err.key, c->key));
        CHECK(!strncmp(err.message, prefix, strlen(prefix)));
        CHECK(strstr(err.message, c->says) != NULL);
        if (rc != (int)c->code || err.line != c->line || strcmp(err.key, c->key) || !strstr(err.message, c->says))
            printf("  case %u: rc %d line %u key '%s': %s\n", (unsigned)i, rc, (unsigned)err.line, err.key,
                   err.message);
        scn_free(&s);
    }
    { /* the example of issue 30's brief, word for word, through a real file */
        const char *path = "build/tests/test_scenario_bad.conf";
        FILE *f = fopen(path, "w");
        scn s;
        scn_error err;
        char want[256];
        CHECK(f != NULL);
        if (f) {
            fputs("# line 1\n[run]\nduration_us = 100\nwarmup_us = 10\n\n[topology]\nshape = star\nhosts = 4\n"
                  "\n[switch]\nbuffer_kb = 4096\npfc_xoff_kb = 99999999\n", f);
            fclose(f);
            scn_config_default(&s);
            CHECK_EQ(scn_parse_file(&s, path, &err), SCN_ERANGE);
            snprintf(want, sizeof want, "%s:12: [switch] pfc_xoff_kb: 99999999 is above the limit 1048576", path);
            CHECK(!strcmp(err.message, want));
            if (strcmp(err.message, want))
                printf("  got  %s\n  want %s\n", err.message, want);
            CHECK(!strcmp(err.key, "switch.pfc_xoff_kb"));
            CHECK_EQ(s.run.duration_us, 100); /* the lines before the bad one were applied */
            CHECK_EQ(scn_host_count(&s), 4);
            scn_free(&s);
            remove(path);
        }
    }
}

/* A number key at its edges, through scn_set: accepted values land, refused ones leave it. */
typedef struct edge_case {
    const char *key, *value;
    scn_code code;
    uint64_t want; /* when accepted */
} edge_case;

static void test_number_edges(void)
{
    static const edge_case cases[] = {
        { "switch.pfc_xoff_kb", "1048576", SCN_OK, 1048576 },
        { "switch.pfc_xoff_kb", "1048577", SCN_ERANGE, 0 },
        { "switch.pfc_xoff_kb", "0", SCN_OK, 0 },
        { "switch.pfc_xoff_kb", "18446744073709551615", SCN_ERANGE, 0 },
        { "switch.pfc_xoff_kb", "18446744073709551616", SCN_ERANGE, 0 },
        { "switch.pfc_xoff_kb", "-1", SCN_ERANGE, 0 },
        { "switch.pfc_xoff_kb", "12abc", SCN_EVALUE, 0 },
        { "switch.pfc_xoff_kb", "", SCN_EVALUE, 0 },
        { "switch.pfc_xoff_kb", "   ", SCN_EVALUE, 0 },
        { "switch.pfc_xoff_kb", "+5", SCN_EVALUE, 0 },
        { "switch.pfc_xoff_kb", " 007 ", SCN_OK, 7 },
        { "run.seed", "18446744073709551615", SCN_OK, UINT64_MAX },
        { "run.seed", "18446744073709551616", SCN_ERANGE, 0 },
        { "run.seed", "99999999999999999999999", SCN_ERANGE, 0 },
        { "run.seed", "0", SCN_OK, 0 },
        { "run.duration_us", "1000000000", SCN_OK, 1000000000 },
        { "run.duration_us", "1000000001", SCN_ERANGE, 0 },
        { "run.duration_us", "0", SCN_ERANGE, 0 },
        { "nic.payload", "4096", SCN_OK, 4096 },
        { "nic.payload", "4097", SCN_ERANGE, 0 },
        { "nic.payload", "255", SCN_ERANGE, 0 },
        { "host.cpu_load", "3", SCN_OK, 3 },
        { "host.cpu_load", "4", SCN_ERANGE, 0 },
        { "tenant.bulk.weight", "65535", SCN_OK, 65535 },
        { "tenant.bulk.weight", "65536", SCN_ERANGE, 0 },
        { "tenant.bulk.qps", "4294967296", SCN_ERANGE, 0 }, /* 2^32 into a 32-bit field: refused, not wrapped */
        { "tenant.bulk.qps", "1024", SCN_OK, 1024 },
    };
    size_t i;
    scn s;
    scn_error err;
    scn_config_default(&s);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const edge_case *c = &cases[i];
        uint64_t before = 0, after = 1;
        int rc;
        CHECK_EQ(read_scalar(&s, c->key, &before), 0);
        rc = scn_set(&s, c->key, c->value, &err);
        CHECK_EQ(read_scalar(&s, c->key, &after), 0);
        CHECK_EQ(rc, c->code);
        if (rc != (int)c->code)
            printf("  case %u %s='%s': rc %d %s\n", (unsigned)i, c->key, c->value, rc, rc ? err.message : "");
        if (c->code == SCN_OK)
            CHECK_EQ(after, c->want);
        else {
            CHECK_EQ(after, before);
            CHECK(!strncmp(err.message, "--set: [", 8));
            CHECK(!strcmp(err.key, c->key));
            CHECK_EQ(err.line, 0);
        }
    }
    scn_free(&s);
}

/* --set after a file: overrides win, tenants by name, lists replace, node/link append; a bad
 * --set names what it could not find. */
static void test_set_after_file(void)
{
    scn s;
    scn_error err;
    const char *text = "[topology]\nshape = leaf_spine\nleaves = 2\nhosts_per_leaf = 4\n"
                       "[switch]\npfc = on\n[tenant web]\nqps = 4\ndst = 0\n[tenant db]\nweight = 3\n"
                       "pattern = permutation\n";
    scn_config_default(&s);
    CHECK_EQ(scn_parse_text(&s, "f.conf", text, &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants), 2); /* the file's tenants replaced the defaults */
    CHECK(!strcmp(s.tenants[0].name, "web") && !strcmp(s.tenants[1].name, "db"));
    CHECK_EQ(s.tenants[0].qps, 4);
    CHECK_EQ(s.tenants[1].qps, 8); /* a new tenant's default */
    CHECK_EQ(scn_validate(&s, &err), SCN_OK);
    CHECK_EQ(scn_set(&s, "tenant.web.qps", "8", &err), SCN_OK);
    CHECK_EQ(s.tenants[0].qps, 8);
    CHECK_EQ(scn_set(&s, "switch.pfc", "off", &err), SCN_OK);
    CHECK_EQ(s.sw.pfc, 0);
    CHECK_EQ(scn_set(&s, "tenant.web.dst", "5-7", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants[0].dst), 3);
    CHECK_EQ(s.tenants[0].dst[0], 5);
    CHECK_EQ(s.tenants[0].dst[2], 7);
    CHECK_EQ(scn_set(&s, "tenant.web.dst", "1", &err), SCN_OK); /* replaces */
    CHECK_EQ(arrlenu(s.tenants[0].dst), 1);
    CHECK_EQ(scn_set(&s, "output.csv", "  build/x y.csv  ", &err), SCN_OK);
    CHECK(!strcmp(s.out.csv, "build/x y.csv"));
    CHECK_EQ(scn_set(&s, "output.csv", "a#b", &err), SCN_EVALUE);
    CHECK_EQ(scn_set(&s, "topology.leaves", "8", &err), SCN_OK);
    CHECK_EQ(scn_host_count(&s), 32);
    CHECK_EQ(scn_set(&s, "tenant.mail.qps", "8", &err), SCN_EUNKNOWN);
    CHECK(strstr(err.message, "no tenant named 'mail'") != NULL);
    CHECK_EQ(scn_set(&s, "switch.pfcc", "on", &err), SCN_EUNKNOWN);
    CHECK(!strcmp(err.key, "switch.pfcc"));
    CHECK(strstr(err.message, "unknown key") && strstr(err.message, "pfc_xoff_kb"));
    CHECK_EQ(scn_set(&s, "swtich.pfc", "on", &err), SCN_EUNKNOWN);
    CHECK_EQ(scn_set(&s, "pfc", "on", &err), SCN_ESYNTAX);
    CHECK_EQ(scn_set(&s, "tenant.qps", "1", &err), SCN_ESYNTAX); /* tenant.NAME.KEY */
    CHECK_EQ(scn_set(&s, "tenant.web", "1", &err), SCN_ESYNTAX);
    CHECK_EQ(scn_set(&s, "topology.shape", "explicit", &err), SCN_OK);
    CHECK_EQ(scn_set(&s, "topology.node", "h0 host", &err), SCN_OK);
    CHECK_EQ(scn_set(&s, "topology.node", "h1 host", &err), SCN_OK);
    CHECK_EQ(scn_set(&s, "topology.node", "sw switch 3", &err), SCN_OK);
    CHECK_EQ(s.topo.nodes[2].tier, 3);
    CHECK_EQ(s.topo.nodes[0].tier, 0);
    CHECK_EQ(scn_set(&s, "topology.node", "h1 switch", &err), SCN_EDUPLICATE);
    CHECK_EQ(scn_set(&s, "topology.link", "h0 sw 100 1000", &err), SCN_OK);
    CHECK_EQ(scn_set(&s, "topology.link", "h1 sw 40 500 12", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.topo.nodes), 3);
    CHECK_EQ(arrlenu(s.topo.links), 2);
    CHECK_EQ(s.topo.links[1].gbps, 40);
    CHECK_EQ(s.topo.links[1].delay_ns, 500);
    CHECK_EQ(s.topo.links[1].loss_ppm, 12);
    CHECK_EQ(scn_host_count(&s), 2);
    CHECK_EQ(scn_set(&s, "tenant.web.dst", "1", &err), SCN_OK);
    CHECK_EQ(scn_set(&s, "tenant.db.pattern", "all_to_all", &err), SCN_OK);
    CHECK_EQ(scn_validate(&s, &err), SCN_OK);
    if (scn_validate(&s, &err))
        printf("  %s\n", err.message);
    scn_free(&s);
    /* a second file naming no tenant keeps them; one naming tenants replaces them */
    scn_config_default(&s);
    CHECK_EQ(scn_parse_text(&s, "a.conf", "[tenant x]\n[tenant y]\n", &err), SCN_OK);
    CHECK_EQ(scn_parse_text(&s, "b.conf", "[run]\nseed = 9\n", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants), 2);
    CHECK_EQ(scn_parse_text(&s, "c.conf", "[tenant z]\n", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants), 1);
    scn_free(&s);
}

/* The complete example of docs/scenario.md parses, validates, and means what its comments say. */
static void test_doc_example(void)
{
    FILE *f = fopen("docs/scenario.md", "rb");
    char *doc, *start, *end;
    long n;
    scn s;
    scn_error err;
    int rc;
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    doc = (char *)malloc((size_t)n + 1u);
    CHECK(doc && fread(doc, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    if (!doc)
        return;
    doc[n] = '\0';
    start = strstr(doc, "## A complete example");
    start = start ? strstr(start, "```ini\n") : NULL;
    end = start ? strstr(start + 7, "\n```\n") : NULL;
    CHECK(start && end);
    if (start && end) {
        end[1] = '\0';
        scn_config_default(&s);
        rc = scn_parse_text(&s, "docs/scenario.md example", start + 7, &err);
        CHECK_EQ(rc, SCN_OK);
        if (!rc)
            rc = scn_validate(&s, &err);
        CHECK_EQ(rc, SCN_OK);
        if (rc)
            printf("  %s\n", err.message);
        CHECK_EQ(scn_host_count(&s), 16);
        CHECK_EQ(scn_switch_count(&s), 6);
        CHECK_EQ(arrlenu(s.tenants), 3);
        CHECK_EQ(s.sw.dt_alpha.num, 1);
        CHECK_EQ(s.sw.dt_alpha.den, 2);
        CHECK_EQ(s.run.duration_us, 20000);
        if (arrlenu(s.tenants) == 3) {
            CHECK_EQ(arrlenu(s.tenants[1].src), 14); /* 1-3, 5-15 */
            CHECK_EQ(s.tenants[1].msg_bytes.min, 1048576);
            CHECK_EQ(s.tenants[1].msg_bytes.max, 1048576);
            CHECK_EQ(s.tenants[2].protocol, SCN_IRN);
            CHECK_EQ(arrlenu(s.tenants[2].pairs), 2);
        }
        CHECK(!strcmp(s.out.csv, "build/run.csv"));
        CHECK(!s.out.pcap[0]);
        scn_free(&s);
    }
    free(doc);
}

/* Random edits of the shipped default (bytes flipped, deleted, duplicated, special characters
 * inserted): every result either fails with an error naming a line inside the text and its
 * file, or parses and round-trips. Under ASan and UBSan, so a bad read shows. */
static void test_mutated_files(void)
{
    static const char specials[] = "=#[]\n\r\t ,->/0123456789-";
    FILE *f = fopen("scenarios/default.conf", "rb");
    char base[8192], *text = (char *)malloc(sizeof base * 2u);
    size_t n, round, parsed = 0, refused = 0;
    uint64_t x = g_seed ^ 0x6d75746174650000ull;
    CHECK(f != NULL && text != NULL);
    if (!f || !text) {
        if (f)
            fclose(f);
        free(text);
        return;
    }
    n = fread(base, 1, sizeof base - 1u, f);
    fclose(f);
    for (round = 0; round < 3000 && !TEST_FAILS(); round++) {
        size_t len = n, edits = 1u + rnd(&x) % 4u, e, lines = 1, i;
        scn s;
        scn_error err;
        diff_out d;
        int rc;
        memcpy(text, base, n);
        for (e = 0; e < edits; e++) {
            size_t at = (size_t)(rnd(&x) % len);
            switch (rnd(&x) % 4u) {
            case 0: text[at] = specials[rnd(&x) % (sizeof specials - 1u)]; break;
            case 1: text[at] = (char)(1u + rnd(&x) % 255u); break; /* any byte but NUL */
            case 2: memmove(text + at, text + at + 1, len - at - 1u); len--; break;
            default:
                if (len + 1u < sizeof base * 2u) {
                    memmove(text + at + 1, text + at, len - at);
                    text[at] = specials[rnd(&x) % (sizeof specials - 1u)];
                    len++;
                }
            }
        }
        text[len] = '\0';
        for (i = 0; i < len; i++)
            lines += text[i] == '\n';
        scn_config_default(&s);
        rc = scn_parse_text(&s, "mutant.conf", text, &err);
        if (rc) {
            refused++;
            CHECK(err.line >= 1 && err.line <= lines);
            CHECK(!strcmp(err.file, "mutant.conf"));
            CHECK(!strncmp(err.message, "mutant.conf:", 12));
        } else {
            parsed++;
            (void)scn_validate(&s, &err);
            CHECK_EQ(round_trips(&s, &d), 0);
        }
        scn_free(&s);
    }
    printf("  mutants: %u parsed, %u refused\n", (unsigned)parsed, (unsigned)refused);
    CHECK(parsed > 100 && refused > 100); /* both sides exercised */
    free(text);
}

static void test_missing_file(void)
{
    scn s;
    scn_error err;
    const char *path = "scenarios/no_such_scenario.conf";
    scn_config_default(&s);
    CHECK_EQ(scn_parse_file(&s, path, &err), SCN_EIO);
    CHECK_EQ(err.code, SCN_EIO);
    CHECK(!strcmp(err.file, path));
    CHECK(!strncmp(err.message, path, strlen(path)));
    CHECK(strstr(err.message, "cannot open") != NULL);
    CHECK_EQ(arrlenu(s.tenants), 2); /* untouched */
    scn_free(&s);
}

/* scn_validate: each cross-key mistake names its key; the fix makes it pass. */
typedef struct invalid_case {
    const char *text;
    const char *key;
    const char *says;
} invalid_case;

static void test_validate(void)
{
    static const invalid_case cases[] = {
        { "[topology]\nshape = fat_tree\nk = 5\n", "topology.k", "even" },
        { "[run]\nduration_us = 100\nwarmup_us = 100\n", "run.warmup_us", "not below duration_us" },
        { "[topology]\nshape = star\nhosts = 4,4\n", "topology.hosts", "one number" },
        { "[topology]\nshape = star\nhosts = 1\n", "topology.hosts", "at least 2" },
        { "[topology]\nshape = dumbbell\nhosts = 8\n", "topology.hosts", "LEFT,RIGHT" },
        { "[topology]\nshape = star\nhosts = 4\n[tenant a]\ndst = 4\n", "tenant.a.dst", "not below the shape's 4" },
        { "[topology]\nshape = star\nhosts = 4\n[tenant a]\ndst = 0\nsrc = 1,9\n", "tenant.a.src", "host 9" },
        { "[topology]\nshape = star\nhosts = 4\n[tenant a]\ndst = 0\nsrc = 0-2\n", "tenant.a.src",
          "both a source and a destination" },
        { "[tenant a]\npattern = pairs\n", "tenant.a.pairs", "needs pairs" },
        { "[tenant a]\npattern = pairs\npairs = 0>5\n", "tenant.a.pairs", "not below" },
        { "[tenant a]\npattern = permutation\npairs = 0>1\n", "tenant.a.pairs", "pattern permutation" },
        { "[tenant a]\npattern = permutation\ndst = 0\n", "tenant.a.dst", "dst is for pattern incast" },
        { "[tenant a]\n", "tenant.a.dst", "needs dst" },
        { "[tenant a]\ndst = 0-2\n", "tenant.a.dst", "no sender" },
        { "[tenant a]\ndst = 0\nprotocol = irn\nvariant = mellanox\n", "tenant.a.variant", "dcqcn only" },
        { "[tenant a]\ndst = 0\nprotocol = reno\nrecover = rfc6582\n", "tenant.a.recover", "newreno only" },
        { "[nic]\npayload = 4096\nmtu = 1500\n", "nic.payload", "above mtu" },
        { "[switch]\necn_kmin_kb = 500\necn_kmax_kb = 400\n", "switch.ecn_kmin_kb", "above ecn_kmax_kb" },
        { "[switch]\nbuffer_kb = 1000\n", "switch.ecn_kmax_kb", "above buffer_kb" },
        { "[switch]\npfc_xoff_kb = 100\npfc_xon_kb = 200\n", "switch.pfc_xon_kb", "above pfc_xoff_kb" },
        { "[switch]\npfc_xon_kb = 200\n", "switch.pfc_xon_kb", "derived" },
        { "[switch]\npfc_xoff_kb = 4000\npfc_headroom_kb = 200\n", "switch.pfc_xoff_kb", "above buffer_kb" },
        { "[topology]\nnode = h0 host\n", "topology.node", "shape explicit" },
        { "[topology]\nshape = explicit\nnode = h0 host\nnode = h1 host\nnode = s switch\nlink = h0 s 100 1\n"
          "link = h1 t 100 1\n", "topology.link", "undefined node 't'" },
        { "[topology]\nshape = explicit\nnode = h0 host\nnode = h1 host\nnode = s switch\nlink = h0 s 100 1\n",
          "topology.node", "'h1' has no link" },
        { "[topology]\nshape = explicit\nnode = h0 host\nnode = s switch\nlink = h0 s 100 1\n", "topology.node",
          "at least 2 host" },
        { "[topology]\nshape = explicit\nnode = h0 host\nnode = h1 host\nlink = h0 h0 100 1\nlink = h1 h0 100 1\n",
          "topology.link", "to itself" },
        { "[topology]\nshape = explicit\nnode = h0 host\nnode = h1 host\nnode = s switch\nlink = h0 s 100 1\n"
          "link = h1 s 100 1\nlink = h0 h1 100 1\n", "topology.link", "host 'h0' has 2 links" },
        { "[topology]\nshape = explicit\nnode = h0 host\nnode = h1 host\nnode = s switch\nnode = t switch 2\n"
          "link = h0 s 100 1\nlink = h1 t 100 1\n", "topology.link", "2 separate pieces" },
        { "[topology]\nshape = leaf_spine\nleaves = 1\nhosts_per_leaf = 1\n", "topology.hosts_per_leaf",
          "at least 2" },
        { "[topology]\nshape = fat_tree\nk = 64\n[tenant a]\npattern = permutation\n", "", "" }, /* 65536 hosts: fine */
        { "[tenant a]\ndst = 0\nsize_cdf = x.txt\n", "tenant.a.size_cdf", "given with traffic backlog" },
        { "[tenant a]\ntraffic = file\nsize_cdf = x.txt\n", "tenant.a.size_cdf", "given with traffic file" },
        { "[tenant a]\ntraffic = file\ndst = 0\n", "tenant.a.dst", "takes its hosts from its flows" },
        { "[tenant a]\ntraffic = file\npattern = pairs\npairs = 1>0\n", "tenant.a.pairs", "takes its hosts from its flows" },
        { "[run]\nflow_file = f.txt\n[tenant a]\ndst = 0\n", "run.flow_file", "no tenant has traffic = file" },
        { "[tenant a]\ntraffic = poisson\npattern = all_to_all\nsize_cdf = x.txt\n", "", "" }, /* read at build */
        { "[run]\nflow_file = f.txt\n[tenant a]\ntraffic = file\n", "", "" },
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scn s;
        scn_error err;
        int prc, vrc;
        scn_config_default(&s);
        prc = scn_parse_text(&s, "v.conf", cases[i].text, &err);
        CHECK_EQ(prc, SCN_OK);
        vrc = scn_validate(&s, &err);
        CHECK_EQ(vrc, cases[i].key[0] ? SCN_EINVALID : SCN_OK);
        if (vrc) {
            CHECK(!strcmp(err.key, cases[i].key));
            CHECK(strstr(err.message, cases[i].says) != NULL);
            CHECK_EQ(err.line, 0);
        }
        if (prc || vrc != (cases[i].key[0] ? SCN_EINVALID : SCN_OK) || (vrc && (strcmp(err.key, cases[i].key) ||
                                                                              !strstr(err.message, cases[i].says))))
            printf("  case %u: parse %d validate %d key '%s': %s\n", (unsigned)i, prc, vrc, err.key, err.message);
        scn_free(&s);
    }
    { /* an empty tenant list (a struct built by hand) and values set around the parser */
        scn s;
        scn_error err;
        size_t t;
        scn_config_default(&s);
        for (t = 0; t < arrlenu(s.tenants); t++) {
            arrfree(s.tenants[t].dst);
            arrfree(s.tenants[t].src);
            arrfree(s.tenants[t].pairs);
        }
        arrfree(s.tenants);
        CHECK_EQ(scn_validate(&s, &err), SCN_EINVALID);
        CHECK(strstr(err.message, "no tenant") != NULL);
        scn_free(&s);
        scn_config_default(&s);
        s.nic.payload = 5000; /* outside the key's range, written directly */
        CHECK_EQ(scn_validate(&s, &err), SCN_EINVALID);
        CHECK(!strcmp(err.key, "nic.payload"));
        s.nic.payload = 1024;
        s.tenants[1].protocol = 99;
        CHECK_EQ(scn_validate(&s, &err), SCN_EINVALID);
        CHECK(!strcmp(err.key, "tenant.background.protocol"));
        s.tenants[1].protocol = SCN_SACK;
        CHECK_EQ(scn_validate(&s, &err), SCN_OK);
        scn_free(&s);
    }
}

/* Host lists expand to the ids they name (a reference expansion in the test) and write back as
 * ranges; a list at the limit is accepted, one past it refused. */
static void test_host_lists(void)
{
    scn s;
    scn_error err;
    char *text;
    scn_config_default(&s);
    CHECK_EQ(scn_set(&s, "tenant.bulk.src", " 1 - 3 ,7,9-10, 12", &err), SCN_OK);
    {
        static const uint32_t want[] = { 1, 2, 3, 7, 9, 10, 12 };
        size_t i;
        CHECK_EQ(arrlenu(s.tenants[0].src), 7);
        for (i = 0; i < 7 && i < arrlenu(s.tenants[0].src); i++)
            CHECK_EQ(s.tenants[0].src[i], want[i]);
    }
    text = dump_text(&s);
    CHECK(text && strstr(text, "src = 1-3,7,9-10,12\n") != NULL);
    free(text);
    CHECK_EQ(scn_set(&s, "tenant.bulk.src", "0-65535", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants[0].src), 65536);
    CHECK_EQ(scn_set(&s, "tenant.bulk.src", "0-65535,0", &err), SCN_ERANGE); /* 65537 hosts */
    CHECK(strstr(err.message, "more than 65536 hosts") != NULL);
    CHECK_EQ(scn_set(&s, "tenant.bulk.src", "0-65534,0", &err), SCN_EVALUE); /* 0 twice */
    CHECK(strstr(err.message, "host 0 is listed twice") != NULL);
    CHECK_EQ(arrlenu(s.tenants[0].src), 65536); /* a refused list leaves the old one */
    CHECK_EQ(scn_set(&s, "tenant.bulk.src", "", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants[0].src), 0);
    CHECK_EQ(scn_set(&s, "tenant.bulk.pairs", "0>1,2>3 , 3>2", &err), SCN_OK);
    CHECK_EQ(arrlenu(s.tenants[0].pairs), 3);
    CHECK(s.tenants[0].pairs[2].src == 3 && s.tenants[0].pairs[2].dst == 2);
    scn_free(&s);
}

int main(void)
{
    g_seed = test_seed(0x5c3a1f0e2d4b6978ull);
    RUN(test_defaults);
    RUN(test_every_key_round_trips);
    RUN(test_shipped_scenarios);
    RUN(test_error_lines);
    RUN(test_number_edges);
    RUN(test_set_after_file);
    RUN(test_missing_file);
    RUN(test_doc_example);
    RUN(test_mutated_files);
    RUN(test_validate);
    RUN(test_host_lists);
    return test_summary();
}
