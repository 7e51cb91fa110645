/* examples/rnic_model/hpcc_input.h: the HPCC simulator's topology and flow files.
 * - good files: a 2-switch / 4-host topology (tests/data/hpcc/small_topology.txt, hosts first,
 *   every unit spelling of its links) and a k = 4 fat tree with its switches first
 *   (fat_tree_k4_topology.txt): nodes, tiers, links, the id map, and scn_validate accepts them;
 * - the small flow file: host ids mapped, start times rebased (2.000001 s -> 1,000 ns), tenants;
 * - every ns-3 spelling of a rate, a delay and an error rate the reader takes, and the values the
 *   scenario cannot hold exactly refused, never rounded;
 * - every error of either file, each with its code and its whole message (file:line: ...);
 * - the priority group -> tenant rule (pgP, else the first tenant; it must have traffic = file);
 * - small_same.conf + small_same_flows.txt (the scenario's formats) read to the same topology and
 *   flows as small_topology.txt + small_flows.txt;
 * - a seeded property loop: random valid topologies and flows written in random spellings and
 *   white space read back to the same nodes, tiers (the test's own relaxation, not a BFS), links,
 *   map and flows; each one corrupted in a way that must be refused is refused with the right
 *   code, the scenario left as it was; random byte edits never crash and either read or give a
 *   message naming the file. */
#include "ratelimit.h"
#include "test.h"
#include "../examples/rnic_model/hpcc_input.h"

static const char *g_argv0 = "test_hpcc_input";
static uint64_t g_seed;

static uint64_t rnd(uint64_t *x) /* splitmix64 */
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t below(uint64_t *x, uint64_t n) { return n ? rnd(x) % n : 0; }

/* A scenario whose only tenant is `pg3` with traffic = file. */
static void file_scenario(scn *s)
{
    scn_error err;
    scn_config_default(s);
    CHECK(scn_parse_text(s, "t", "[tenant pg3]\ntraffic = file\n", &err) == SCN_OK);
    CHECK_EQ(s->tenants[0].traffic, SCN_TRAFFIC_FILE);
}

static const scn_link *link_at(const scn *s, size_t i) { return i < arrlenu(s->topo.links) ? &s->topo.links[i] : NULL; }

static void test_small_topology(void)
{
    scn s;
    hpcc_map m;
    scn_error err;
    uint32_t i;
    static const char *const ends[5][2] = { { "n0", "n4" }, { "n1", "n4" }, { "n2", "n5" }, { "n3", "n5" }, { "n4", "n5" } };
    scn_config_default(&s);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    CHECK_EQ(s.topo.shape, SCN_EXPLICIT);
    CHECK_EQ(arrlenu(s.topo.nodes), 6);
    for (i = 0; i < 6 && i < arrlenu(s.topo.nodes); i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", (unsigned)i);
        CHECK(!strcmp(s.topo.nodes[i].name, name));
        CHECK_EQ(s.topo.nodes[i].is_switch, i >= 4);
        CHECK_EQ(s.topo.nodes[i].tier, i >= 4 ? 1u : 0u);
    }
    CHECK_EQ(arrlenu(s.topo.links), 5);
    for (i = 0; i < 5 && i < arrlenu(s.topo.links); i++) { /* five spellings of 100 Gb/s and of 1 us */
        const scn_link *l = link_at(&s, i);
        CHECK(!strcmp(l->a, ends[i][0]) && !strcmp(l->b, ends[i][1]));
        CHECK_EQ(l->gbps, 100);
        CHECK_EQ(l->delay_ns, 1000);
        CHECK_EQ(l->loss_ppm, 0);
    }
    CHECK_EQ(s.topo.link_gbps, 100);
    CHECK_EQ(s.topo.link_delay_ns, 1000);
    CHECK_EQ(m.nodes, 6);
    CHECK_EQ(m.hosts, 4);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(m.node_of_host[i], i);
        CHECK_EQ(m.host_of_node[i], i);
    }
    CHECK_EQ(m.host_of_node[4], HPCC_NOT_HOST);
    CHECK_EQ(m.host_of_node[5], HPCC_NOT_HOST);
    CHECK_EQ(scn_host_count(&s), 4);
    CHECK(scn_validate(&s, &err) == SCN_OK);
    hpcc_map_free(&m);
    CHECK(m.host_of_node == NULL && m.nodes == 0);
    scn_free(&s);
}

/* k = 4: cores 0-3 (tier 3), aggregation 4-11 (tier 2), edges 12-19 (tier 1), hosts 20-35. */
static void test_fat_tree_k4(void)
{
    scn s;
    hpcc_map m;
    scn_error err;
    uint32_t i;
    scn_config_default(&s);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/fat_tree_k4_topology.txt", &m, &err) == SCN_OK);
    CHECK_EQ(arrlenu(s.topo.nodes), 36);
    CHECK_EQ(arrlenu(s.topo.links), 48);
    CHECK_EQ(scn_host_count(&s), 16);
    for (i = 0; i < 36 && i < arrlenu(s.topo.nodes); i++) {
        CHECK_EQ(s.topo.nodes[i].is_switch, i < 20);
        CHECK_EQ(s.topo.nodes[i].tier, i < 4 ? 3u : i < 12 ? 2u : i < 20 ? 1u : 0u);
    }
    CHECK_EQ(m.hosts, 16);
    for (i = 0; i < 16; i++) {
        CHECK_EQ(m.node_of_host[i], 20 + i);
        CHECK_EQ(m.host_of_node[20 + i], i);
    }
    for (i = 0; i < 20; i++)
        CHECK_EQ(m.host_of_node[i], HPCC_NOT_HOST);
    CHECK_EQ(s.topo.link_gbps, 40);
    CHECK(scn_validate(&s, &err) == SCN_OK);
    /* read again on top: the first topology is replaced, not added to */
    hpcc_map_free(&m);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    CHECK_EQ(arrlenu(s.topo.nodes), 6);
    CHECK_EQ(arrlenu(s.topo.links), 5);
    hpcc_map_free(&m);
    scn_free(&s);
}

/* One link "0 2 RATE DELAY ERR" (and host 1's plain link) read back, or refused. */
static int one_link(const char *rate, const char *delay, const char *loss, scn_link *out, scn_error *err)
{
    char text[256];
    scn s;
    hpcc_map m;
    int rc;
    snprintf(text, sizeof text, "3 1 2\n2\n0 2 %s %s %s\n1 2 100Gbps 1us 0\n", rate, delay, loss);
    scn_config_default(&s);
    rc = hpcc_read_topology_text(&s, "v.txt", text, &m, err);
    if (rc == SCN_OK)
        *out = s.topo.links[0];
    hpcc_map_free(&m);
    scn_free(&s);
    return rc;
}

static void test_value_spellings(void)
{
    static const struct { const char *text; uint64_t gbps; } rates[] = {
        { "100Gbps", 100 }, { "100Gb/s", 100 }, { "40Gbps", 40 }, { "25Gbps", 25 }, { "10Gbps", 10 },
        { "100000Mbps", 100 }, { "100000Mb/s", 100 }, { "1000000Kbps", 1 }, { "1000000kb/s", 1 },
        { "100000000000bps", 100 }, { "100000000000b/s", 100 }, { "100000000000", 100 }, { "12.5GBps", 100 },
        { "12.5GB/s", 100 }, { "12500MBps", 100 }, { "100.000Gbps", 100 }, { "0100Gbps", 100 }, { "1600Gbps", 1600 },
        { "1Gbps", 1 }, { "400Gbps", 400 }, { "2.50e1Gbps", 0 } /* DataRate takes no exponent */,
    };
    static const struct { const char *text; uint64_t ns; } delays[] = {
        { "0.001ms", 1000 }, { "1us", 1000 }, { "1000ns", 1000 }, { "0.000001s", 1000 }, { "1e-6s", 1000 },
        { "1E3ns", 1000 }, { "1000000ps", 1000 }, { "0.000001", 1000 }, { "0ns", 0 }, { "1s", 1000000000 },
        { "1.5us", 1500 }, { "0.0015ms", 1500 }, { "2500ns", 2500 }, { "1000000000fs", 1000 }, { "+1us", 0 },
        { "1e+3ns", 1000 }, { "1E+0us", 1000 },
    };
    static const struct { const char *text; uint32_t ppm; } losses[] = {
        { "0", 0 }, { "0.0", 0 }, { "0.001", 1000 }, { "1e-3", 1000 }, { "1E-6", 1 }, { "0.000001", 1 }, { "1", 1000000 },
        { "0.5", 500000 }, { "1.0", 1000000 }, { ".25", 250000 }, { "5.e-1", 500000 },
    };
    scn_link l;
    scn_error err;
    size_t i;
    for (i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        int rc = one_link(rates[i].text, "1us", "0", &l, &err);
        if (!rates[i].gbps) {
            CHECK(rc == SCN_EVALUE);
            continue;
        }
        CHECK(rc == SCN_OK);
        if (rc == SCN_OK)
            CHECK_EQ(l.gbps, rates[i].gbps);
        else
            printf("  %s: %s\n", rates[i].text, err.message);
    }
    for (i = 0; i < sizeof delays / sizeof delays[0]; i++) {
        int rc = one_link("100Gbps", delays[i].text, "0", &l, &err);
        if (!delays[i].ns && strcmp(delays[i].text, "0ns")) {
            CHECK(rc == SCN_EVALUE);
            continue;
        }
        CHECK(rc == SCN_OK);
        if (rc == SCN_OK)
            CHECK_EQ(l.delay_ns, delays[i].ns);
        else
            printf("  %s: %s\n", delays[i].text, err.message);
    }
    /* far above any delay: an exponent past the reader's cap, a value times its unit past 2^64 */
    CHECK_EQ(one_link("100Gbps", "1e1234567ns", "0", &l, &err), SCN_ERANGE);
    printf("  %s\n", err.message);
    CHECK_EQ(one_link("100Gbps", "18446744073709551615s", "0", &l, &err), SCN_ERANGE);
    printf("  %s\n", err.message);
    /* what ends an exponent: the token's end, a unit, anything else (a unit then, and an unknown one) */
    CHECK_EQ(one_link("100Gbps", "2e3", "0", &l, &err), SCN_ERANGE);
    CHECK_EQ(one_link("100Gbps", "5e+02ns", "0", &l, &err), SCN_OK);
    CHECK_EQ(l.delay_ns, 500);
    CHECK_EQ(one_link("100Gbps", "1e3.ns", "0", &l, &err), SCN_EVALUE);
    CHECK(strstr(err.message, "unknown unit '.ns'") != NULL);
    CHECK_EQ(one_link("100Gbps", "1e-3/s", "0", &l, &err), SCN_EVALUE);
    for (i = 0; i < sizeof losses / sizeof losses[0]; i++) {
        int rc = one_link("100Gbps", "1us", losses[i].text, &l, &err);
        CHECK(rc == SCN_OK);
        if (rc == SCN_OK)
            CHECK_EQ(l.loss_ppm, losses[i].ppm);
        else
            printf("  %s: %s\n", losses[i].text, err.message);
    }
}

typedef struct bad_case {
    const char *text;
    scn_code code;
    const char *message;
} bad_case;

static void check_bad_topologies(const bad_case *c, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        scn s;
        hpcc_map m;
        scn_error err;
        int rc;
        scn_config_default(&s);
        memset(&err, 0, sizeof err);
        rc = hpcc_read_topology_text(&s, "t.txt", c[i].text, &m, &err);
        CHECK_EQ(rc, c[i].code);
        CHECK_EQ(err.code, c[i].code);
        CHECK(!strcmp(err.message, c[i].message));
        if (strcmp(err.message, c[i].message))
            printf("  case %u: got      '%s'\n          expected '%s'\n", (unsigned)i, err.message, c[i].message);
        CHECK(m.nodes == 0 && m.host_of_node == NULL && m.node_of_host == NULL); /* empty on an error */
        CHECK_EQ(s.topo.shape, SCN_STAR);                                         /* s unchanged */
        CHECK_EQ(arrlenu(s.topo.nodes), 0);
        scn_free(&s);
    }
}

#define L1 "0 2 100Gbps 1us 0\n"
#define L2 "1 2 100Gbps 1us 0\n"
static void test_topology_errors(void)
{
    static const bad_case c[] = {
        { "", SCN_ESYNTAX, "t.txt:1: the file ends where node_num (the first line: node_num switch_num link_num) should be" },
        { "3 1", SCN_ESYNTAX, "t.txt:1: the file ends where link_num (the first line: node_num switch_num link_num) should be" },
        { "3 x 2", SCN_EVALUE, "t.txt:1: switch_num (the first line: node_num switch_num link_num): 'x' is not a whole number" },
        { "-3 1 2", SCN_ERANGE, "t.txt:1: node_num (the first line: node_num switch_num link_num): '-3' is negative" },
        { "3 1 2.0", SCN_EVALUE, "t.txt:1: link_num (the first line: node_num switch_num link_num): '2.0' is not a whole number" },
        { "70000 1 2", SCN_ERANGE, "t.txt:1: node_num (the first line: node_num switch_num link_num): 70000 is above the limit 65536" },
        { "3 4 2\n", SCN_ERANGE, "t.txt:1: switch_num 4 is above node_num 3" },
        { "3 2 2\n", SCN_EINVALID, "t.txt:1: node_num 3 with switch_num 2 leaves 1 host (a run needs at least 2)" },
        { "3 1 2\n", SCN_ESYNTAX, "t.txt:1: the file ends where switch id 1 of 1 should be" },
        { "3 1 2\n5\n" L1 L2, SCN_ERANGE, "t.txt:2: switch id 5 is not below node_num 3" },
        { "4 2 3\n3 3\n", SCN_EDUPLICATE, "t.txt:2: switch id 3 is listed twice" },
        { "3 1 2\n2\n" L1, SCN_ESYNTAX,
          "t.txt:3: the file ends where the source of link 2 of 2 (SRC DST RATE DELAY ERROR_RATE) should be" },
        { "3 1 2\n2\n" L1 "1 2 100Gbps 1us", SCN_ESYNTAX, "t.txt:4: the file ends where the error rate of link 1 2 (e.g. 0) should be" },
        { "3 1 2\n2\n0 7 100Gbps 1us 0\n" L2, SCN_ERANGE, "t.txt:3: link 1 of 2: node 7 is not below node_num 3" },
        { "3 1 2\n2\n" L1 "9 2 100Gbps 1us 0\n", SCN_ERANGE, "t.txt:4: link 2 of 2: node 9 is not below node_num 3" },
        { "3 1 2\n2\n2 2 100Gbps 1us 0\n" L2, SCN_EINVALID, "t.txt:3: link 2 2 joins a node to itself" },
        { "3 1 2\n2\n0 -2 100Gbps 1us 0\n" L2, SCN_ERANGE,
          "t.txt:3: the destination of link 1 of 2 (SRC DST RATE DELAY ERROR_RATE): '-2' is negative" },
        { "3 1 2\n2\n0 2 2.5Gbps 1us 0\n" L2, SCN_EVALUE,
          "t.txt:3: link rate '2.5Gbps' is not a whole number of Gb/s (a scenario's link rates are whole Gb/s): write a whole "
          "number of Gb/s" },
        { "3 1 2\n2\n0 2 100 1us 0\n" L2, SCN_EVALUE,
          "t.txt:3: link rate '100' is not a whole number of Gb/s (a scenario's link rates are whole Gb/s): write a whole "
          "number of Gb/s" },
        { "3 1 2\n2\n0 2 100Tbps 1us 0\n" L2, SCN_EVALUE,
          "t.txt:3: link rate '100Tbps': unknown unit 'Tbps' (an ns-3 DataRate: Gbps, Gb/s, Mbps, Mb/s, Kbps, bps, ..., or a "
          "bare number of b/s)" },
        { "3 1 2\n2\n0 2 Gbps 1us 0\n" L2, SCN_EVALUE,
          "t.txt:3: link rate 'Gbps' is not a number with a DataRate unit (e.g. 100Gbps)" },
        { "3 1 2\n2\n0 2 0Gbps 1us 0\n" L2, SCN_ERANGE,
          "t.txt:3: link rate '0Gbps' is outside 1..1600 Gb/s (a scenario link's range)" },
        { "3 1 2\n2\n0 2 3200Gbps 1us 0\n" L2, SCN_ERANGE,
          "t.txt:3: link rate '3200Gbps' is outside 1..1600 Gb/s (a scenario link's range)" },
        { "3 1 2\n2\n0 2 -100Gbps 1us 0\n" L2, SCN_ERANGE, "t.txt:3: link rate '-100Gbps' is negative" },
        { "3 1 2\n2\n0 2 99999999999999999999999Gbps 1us 0\n" L2, SCN_ERANGE,
          "t.txt:3: link rate '99999999999999999999999Gbps' has more digits than fit in 64 bits" },
        { "3 1 2\n2\n0 2 100Gbps 1.5ns 0\n" L2, SCN_EVALUE,
          "t.txt:3: link delay '1.5ns' is not a whole number of ns (a scenario's link delays are whole ns): write a whole "
          "number of ns" },
        { "3 1 2\n2\n0 2 100Gbps 1min 0\n" L2, SCN_EVALUE,
          "t.txt:3: link delay '1min': unknown unit 'min' (an ns-3 Time: s, ms, us, ns, ps, or a bare number of seconds)" },
        { "3 1 2\n2\n0 2 100Gbps -1us 0\n" L2, SCN_ERANGE, "t.txt:3: link delay '-1us' is negative" },
        { "3 1 2\n2\n0 2 100Gbps 2s 0\n" L2, SCN_ERANGE, "t.txt:3: link delay '2s' is above 1 s (a scenario link's limit)" },
        { "3 1 2\n2\n0 2 100Gbps us 0\n" L2, SCN_EVALUE,
          "t.txt:3: link delay 'us' is not a number with a Time unit (e.g. 1us)" },
        { "3 1 2\n2\n0 2 100Gbps 1us 0.0000001\n" L2, SCN_EVALUE,
          "t.txt:3: error rate '0.0000001' is not a whole number per million (a scenario's loss_ppm): write it with at most "
          "6 decimals" },
        { "3 1 2\n2\n0 2 100Gbps 1us -0.1\n" L2, SCN_ERANGE, "t.txt:3: error rate '-0.1' is negative" },
        { "3 1 2\n2\n0 2 100Gbps 1us 2\n" L2, SCN_ERANGE, "t.txt:3: error rate '2' is above 1 (a probability)" },
        { "3 1 2\n2\n0 2 100Gbps 1us 1e30\n" L2, SCN_ERANGE, "t.txt:3: error rate '1e30' is above 1 (a probability)" },
        { "3 1 2\n2\n0 2 100Gbps 1e30s 0\n" L2, SCN_ERANGE, "t.txt:3: link delay '1e30s' is above 1 s (a scenario link's limit)" },
        { "3 1 2\n2\n0 2 18446744073Gbps 1us 0\n" L2, SCN_ERANGE,
          "t.txt:3: link rate '18446744073Gbps' is outside 1..1600 Gb/s (a scenario link's range)" },
        { "3 1 2\n2\n0 2 100Gbps 1us 0.1%\n" L2, SCN_EVALUE,
          "t.txt:3: error rate '0.1%' is not a decimal probability (e.g. 0 or 0.001)" },
        { "4 1 4\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n0 1 100Gbps 1us 0\n", SCN_EINVALID,
          "t.txt:6: host 0 has a second link (the first at line 3; a host has exactly one link)" },
        { "4 1 2\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n", SCN_EINVALID, "t.txt: host 2 has no link (a host has exactly one)" },
        { "5 2 4\n3 4\n0 3 100Gbps 1us 0\n1 4 100Gbps 1us 0\n3 4 100Gbps 1us 0\n4 3 40Gbps 1us 0\n", SCN_EDUPLICATE,
          "t.txt:6: a second link between nodes 4 and 3 (the first at line 5)" },
        { "4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", SCN_EINVALID, "t.txt: switch 3 has no link" },
        { "5 3 3\n2 3 4\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n3 4 100Gbps 1us 0\n", SCN_EINVALID,
          "t.txt: switch 3 is not connected to any host" },
    };
    check_bad_topologies(c, sizeof c / sizeof c[0]);
}

/* A tier above 15: host 0 on switch 2, host 1 on switch 2 too, a chain of switches 2 .. 18. */
static void test_tier_limit(void)
{
    char text[2048];
    size_t n;
    uint32_t i;
    bad_case c;
    n = (size_t)snprintf(text, sizeof text, "19 17 18\n");
    for (i = 2; i < 19; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%u ", (unsigned)i);
    n += (size_t)snprintf(text + n, sizeof text - n, "\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n");
    for (i = 2; i < 18; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%u %u 100Gbps 1us 0\n", (unsigned)i, (unsigned)i + 1u);
    c.text = text;
    c.code = SCN_ERANGE;
    c.message = "t.txt: switch 17 is 16 links from the nearest host: its tier would be above the limit 15";
    check_bad_topologies(&c, 1);
}

/* a file next to the test binary (one per configuration: gcc and clang may run at once) */
static void side_file(char *path, size_t cap, const char *suffix, const char *bytes, size_t len)
{
    FILE *f;
    snprintf(path, cap, "%s.%s", g_argv0, suffix);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(bytes, 1, len, f) == len);
        fclose(f);
    }
}

static void test_file_errors(void)
{
    scn s;
    hpcc_map m;
    scn_error err;
    wl_flow *flows = NULL;
    size_t n = 0;
    char path[512], want[600];
    scn_config_default(&s);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/no_such_file.txt", &m, &err) == SCN_EIO);
    CHECK(!strcmp(err.message, "tests/data/hpcc/no_such_file.txt: cannot open: No such file or directory"));
    CHECK(m.nodes == 0);
    side_file(path, sizeof path, "nul.txt", "3 1 2\n2\n0 2 100G\0bps", 20);
    CHECK(hpcc_read_topology(&s, path, &m, &err) == SCN_ESYNTAX);
    snprintf(want, sizeof want, "%s:3: a NUL byte (not a text file)", path);
    CHECK(!strcmp(err.message, want));
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    CHECK(hpcc_read_flows("tests/data/hpcc/no_such_flows.txt", &m, &s, &flows, &n, &err) == SCN_EIO);
    CHECK(!strcmp(err.message, "tests/data/hpcc/no_such_flows.txt: cannot open: No such file or directory"));
    CHECK(n == 0 && flows == NULL);
    remove(path);
    hpcc_map_free(&m);
    scn_free(&s);
}

static void test_small_flows(void)
{
    scn s;
    hpcc_map m;
    scn_error err;
    wl_flow *f = NULL;
    size_t n = 0;
    static const uint32_t want[4][5] = { /* src dst size start_ns line */
        { 0, 2, 1000000, 1000, 2 }, { 1, 2, 1000000, 1000, 3 }, { 0, 3, 65536, 5234, 4 }, { 3, 1, 4096, 10000, 5 } };
    size_t i;
    file_scenario(&s);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    CHECK(hpcc_read_flows("tests/data/hpcc/small_flows.txt", &m, &s, &f, &n, &err) == SCN_OK);
    CHECK_EQ(n, 4);
    for (i = 0; i < n && i < 4; i++) {
        CHECK_EQ(f[i].src, want[i][0]);
        CHECK_EQ(f[i].dst, want[i][1]);
        CHECK_EQ(f[i].size, want[i][2]);
        CHECK_EQ(f[i].start_ns, want[i][3]);
        CHECK_EQ(f[i].line, want[i][4]);
        CHECK_EQ(f[i].tenant, 0);
    }
    /* a second file appends; its flows are rebased on their own earliest start */
    CHECK(hpcc_read_flows_text("g.txt", "1\n2 0 3 100 7 5.5\n", &m, &s, &f, &n, &err) == SCN_OK);
    CHECK_EQ(n, 5);
    CHECK_EQ(f[4].start_ns, 500000000);
    CHECK_EQ(f[4].src, 2);
    CHECK_EQ(f[0].start_ns, 1000);
    /* an error drops that file's flows and keeps the earlier ones */
    CHECK(hpcc_read_flows_text("g.txt", "2\n2 0 3 100 7 5.5\n2 4 3 100 7 5.5\n", &m, &s, &f, &n, &err) == SCN_EINVALID);
    CHECK_EQ(n, 5);
    /* an empty flow file: nothing added */
    CHECK(hpcc_read_flows_text("g.txt", "0\n", &m, &s, &f, &n, &err) == SCN_OK);
    CHECK_EQ(n, 5);
    free(f);
    hpcc_map_free(&m);
    scn_free(&s);
}

static int same_tenant(const void *user, const char *name) { return hpcc__tenant((const scn *)user, name); }

/* tests/data/hpcc/small_same.conf and small_same_flows.txt are small_topology.txt and
 * small_flows.txt in the scenario's own formats: the same nodes, tiers, links and flows. */
static void test_small_same(void)
{
    scn hp, own;
    hpcc_map m;
    scn_error err;
    wl_flow *a = NULL, *b = NULL;
    size_t na = 0, nb = 0, i;
    char why[256];
    scn_config_default(&own);
    CHECK(scn_parse_file(&own, "tests/data/hpcc/small_same.conf", &err) == SCN_OK);
    CHECK(scn_validate(&own, &err) == SCN_OK);
    scn_config_default(&hp);
    CHECK(scn_parse_text(&hp, "t", "[tenant pg3]\ntraffic = file\n", &err) == SCN_OK);
    CHECK(hpcc_read_topology(&hp, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    CHECK(hpcc_read_flows("tests/data/hpcc/small_flows.txt", &m, &hp, &a, &na, &err) == SCN_OK);
    CHECK(wl_read_flow_file(own.run.flow_file, (uint32_t)scn_host_count(&own), same_tenant, &own, &b, &nb, why,
                            sizeof why) == 0);
    CHECK_EQ(arrlenu(own.topo.nodes), arrlenu(hp.topo.nodes));
    for (i = 0; i < arrlenu(own.topo.nodes) && i < arrlenu(hp.topo.nodes); i++) {
        CHECK(!strcmp(own.topo.nodes[i].name, hp.topo.nodes[i].name));
        CHECK_EQ(own.topo.nodes[i].is_switch, hp.topo.nodes[i].is_switch);
        CHECK_EQ(own.topo.nodes[i].tier, hp.topo.nodes[i].tier);
    }
    CHECK_EQ(arrlenu(own.topo.links), arrlenu(hp.topo.links));
    for (i = 0; i < arrlenu(own.topo.links) && i < arrlenu(hp.topo.links); i++) {
        const scn_link *x = &own.topo.links[i], *y = &hp.topo.links[i];
        CHECK(!strcmp(x->a, y->a) && !strcmp(x->b, y->b));
        CHECK(x->gbps == y->gbps && x->delay_ns == y->delay_ns && x->loss_ppm == y->loss_ppm);
    }
    CHECK_EQ(own.topo.link_gbps, hp.topo.link_gbps);
    CHECK_EQ(own.topo.link_delay_ns, hp.topo.link_delay_ns);
    CHECK_EQ(na, nb);
    for (i = 0; i < na && i < nb; i++) {
        CHECK(a[i].src == b[i].src && a[i].dst == b[i].dst && a[i].size == b[i].size);
        CHECK(a[i].start_ns == b[i].start_ns && !strcmp(hp.tenants[a[i].tenant].name, own.tenants[b[i].tenant].name));
    }
    free(a);
    free(b);
    hpcc_map_free(&m);
    scn_free(&hp);
    scn_free(&own);
}

/* The small topology's hosts 0-3 (switches 4, 5) and tenants: a (file), pg5 (file), pg7 (backlog). */
static void test_flow_tenants(void)
{
    scn s;
    hpcc_map m;
    scn_error err;
    wl_flow *f = NULL;
    size_t n = 0;
    scn_config_default(&s);
    CHECK(scn_parse_text(&s, "t", "[tenant a]\ntraffic = file\n[tenant pg5]\ntraffic = file\n[tenant pg7]\n", &err) ==
          SCN_OK);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    CHECK(hpcc_read_flows_text("f.txt", "3\n0 1 5 100 10 2\n0 1 3 100 10 2\n0 1 0 100 10 2\n", &m, &s, &f, &n, &err) ==
          SCN_OK);
    CHECK_EQ(n, 3);
    if (n == 3) {
        CHECK_EQ(f[0].tenant, 1); /* pg5 */
        CHECK_EQ(f[1].tenant, 0); /* no pg3: the first tenant */
        CHECK_EQ(f[2].tenant, 0);
    }
    CHECK(hpcc_read_flows_text("f.txt", "1\n0 1 7 100 10 2\n", &m, &s, &f, &n, &err) == SCN_EINVALID);
    CHECK(!strcmp(err.message, "f.txt:2: flow 1: priority group 7 goes to tenant 'pg7', which does not have traffic = "
                               "file: set it in [tenant pg7]"));
    s.tenants[0].traffic = SCN_TRAFFIC_BACKLOG;
    CHECK(hpcc_read_flows_text("f.txt", "1\n0 1 3 100 10 2\n", &m, &s, &f, &n, &err) == SCN_EINVALID);
    CHECK(!strcmp(err.message, "f.txt:2: flow 1: priority group 3 goes to tenant 'a' (the first tenant: no tenant is "
                               "named pg3), which does not have traffic = file: set it in [tenant a], or add a "
                               "[tenant pg3] with traffic = file"));
    CHECK_EQ(n, 3);
    free(f);
    hpcc_map_free(&m);
    scn_free(&s);
}

/* What the simulator reads though the file says more or less: read the same way, with a note. */
static void test_read_as_the_simulator(void)
{
    scn s;
    hpcc_map m;
    scn_error err;
    wl_flow *f = NULL;
    size_t n = 0;
    scn_config_default(&s);
    CHECK(scn_parse_text(&s, "t", "[tenant pg3]\ntraffic = file\n", &err) == SCN_OK);
    /* the simulator's mix/topology.txt has a description after its links */
    CHECK(hpcc_read_topology_text(&s, "t.txt", "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n\nFirst line: total "
                                  "node #, switch node #, link #\n", &m, &err) == SCN_OK);
    CHECK(!strcmp(m.note, "t.txt:6: 10 more tokens after the 2 links the first line counts, from 'First' on: not read, "
                          "as the HPCC simulator does not read them"));
    CHECK_EQ(arrlenu(s.topo.links), 2);
    hpcc_map_free(&m);
    CHECK(hpcc_read_topology_text(&s, "t.txt", "3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\njunk\n", &m, &err) == SCN_OK);
    CHECK(!strcmp(m.note, "t.txt:5: 1 more token after the 2 links the first line counts, from 'junk' on: not read, as "
                          "the HPCC simulator does not read them"));
    CHECK(hpcc_read_flows_text("f.txt", "1\n0 1 3 100 10 2\n1 0 3 100 20 2\n", &m, &s, &f, &n, &err) == SCN_OK);
    CHECK_EQ(n, 1);
    CHECK(!strcmp(m.note, "f.txt:3: more than the 1 flows the first line counts, from '1' on: not read, as the HPCC "
                          "simulator reads only the first 1"));
    /* the traffic generator's count over its estimate: "1000 " overwritten by "999" reads 9990 */
    n = 0;
    CHECK(hpcc_read_flows_text("f.txt", "9990\n0 1 3 100 10 2\n1 0 3 100 20 2.5\n", &m, &s, &f, &n, &err) == SCN_OK);
    CHECK_EQ(n, 2);
    CHECK(!strcmp(m.note, "f.txt: the first line counts 9990 flows, the file has 2: the 2 read"));
    n = 0;
    CHECK(hpcc_read_flows_text("f.txt", "1\n0 1 3 100 10 2\n", &m, &s, &f, &n, &err) == SCN_OK);
    CHECK_EQ(m.note[0], '\0');
    free(f);
    hpcc_map_free(&m);
    scn_free(&s);
}

static void test_flow_errors(void)
{
    static const bad_case c[] = {
        { "", SCN_ESYNTAX, "f.txt:1: the file ends where flow_num (the first line) should be" },
        { "x\n", SCN_EVALUE, "f.txt:1: flow_num (the first line): 'x' is not a whole number" },
        { "-1\n", SCN_ERANGE, "f.txt:1: flow_num (the first line): '-1' is negative" },
        { "1\n0 2 3 100 10\n", SCN_ESYNTAX,
          "f.txt:2: the file ends inside flow 1: it has 5 of its 6 values SRC DST PG DPORT SIZE START_TIME" },
        { "1\n0 2 3\n", SCN_ESYNTAX,
          "f.txt:2: the file ends inside flow 1: it has 3 of its 6 values SRC DST PG DPORT SIZE START_TIME" },
        { "1\n0 4 3 100 10 2\n", SCN_EINVALID, "f.txt:2: flow 1: DST 4 is a switch (a flow runs between two hosts)" },
        { "1\n5 0 3 100 10 2\n", SCN_EINVALID, "f.txt:2: flow 1: SRC 5 is a switch (a flow runs between two hosts)" },
        { "1\n0 9 3 100 10 2\n", SCN_ERANGE, "f.txt:2: flow 1: DST 9 is not below the topology's node_num 6" },
        { "1\n2 2 3 100 10 2\n", SCN_EINVALID, "f.txt:2: flow 1: host 2 sends to itself (a flow crosses the network)" },
        { "1\n0 2 3 100 0 2\n", SCN_ERANGE, "f.txt:2: flow 1: SIZE 0 (a flow has at least 1 byte)" },
        { "1\n0 2 3 100 -5 2\n", SCN_ERANGE, "f.txt:2: flow 1: SIZE: '-5' is negative" },
        { "1\n0 2 3 100 1e6 2\n", SCN_EVALUE, "f.txt:2: flow 1: SIZE: '1e6' is not a whole number" },
        { "1\n0 2 3 x 10 2\n", SCN_EVALUE, "f.txt:2: flow 1: DPORT: 'x' is not a whole number" },
        { "1\n0 2 3 100 10 2.0000000001\n", SCN_EVALUE,
          "f.txt:2: flow 1: START_TIME '2.0000000001' is not a whole number of ns: write at most 9 decimals" },
        { "1\n0 2 3 100 10 -2\n", SCN_ERANGE, "f.txt:2: flow 1: START_TIME '-2' is negative" },
        { "1\n0 2 3 100 10 2s\n", SCN_EVALUE, "f.txt:2: flow 1: START_TIME '2s' is not a decimal number of seconds" },
        { "1\n\n\n0 2 3 100 10\n\n", SCN_ESYNTAX,
          "f.txt:4: the file ends inside flow 1: it has 5 of its 6 values SRC DST PG DPORT SIZE START_TIME" },
    };
    scn s;
    hpcc_map m, none;
    scn_error err;
    size_t i, n = 0;
    wl_flow *f = NULL;
    char big[96];
    file_scenario(&s);
    CHECK(hpcc_read_topology(&s, "tests/data/hpcc/small_topology.txt", &m, &err) == SCN_OK);
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        int rc = hpcc_read_flows_text("f.txt", c[i].text, &m, &s, &f, &n, &err);
        CHECK_EQ(rc, c[i].code);
        CHECK(!strcmp(err.message, c[i].message));
        if (strcmp(err.message, c[i].message))
            printf("  case %u: got      '%s'\n          expected '%s'\n", (unsigned)i, err.message, c[i].message);
        CHECK_EQ(n, 0);
    }
    snprintf(big, sizeof big, "1\n0 2 3 100 %llu 2\n", (unsigned long long)(WL_MAX_FLOW_BYTES) + 1u);
    CHECK(hpcc_read_flows_text("f.txt", big, &m, &s, &f, &n, &err) == SCN_ERANGE);
    CHECK(strstr(err.message, "f.txt:2: flow 1: SIZE: ") && strstr(err.message, "is above the limit"));
    memset(&none, 0, sizeof none);
    CHECK(hpcc_read_flows_text("f.txt", "0\n", &none, &s, &f, &n, &err) == SCN_EINVALID);
    CHECK(!strcmp(err.message, "f.txt: no HPCC topology was read (the flows' node ids are the topology file's)"));
    free(f);
    hpcc_map_free(&m);
    scn_free(&s);
}

/* ---------------------------------------------------------------- the property loop */

enum tok_kind { TK_NODES, TK_SWITCHES, TK_LINKS, TK_SWITCH_ID, TK_LINK_END, TK_RATE, TK_DELAY, TK_LOSS };

typedef struct gen_topo {
    uint32_t nodes, switches, links;
    uint8_t is_switch[64];
    uint32_t a[256], b[256];
    uint64_t gbps[256], delay[256];
    uint32_t ppm[256];
    char tok[1400][48];
    uint8_t kind[1400];
    uint32_t ntok;
} gen_topo;

static void add_tok(gen_topo *g, uint8_t kind, const char *fmt, unsigned long long x, unsigned long long y)
{
    snprintf(g->tok[g->ntok], sizeof g->tok[0], fmt, x, y);
    g->kind[g->ntok++] = kind;
}

/* A random valid topology: switches joined in a random tree plus a few extra links, each host on
 * a random switch (or, rarely with no switch at all, two hosts on one link); link order and the
 * order of each link's ends random; values in random ns-3 spellings. */
static void gen_topology(gen_topo *g, uint64_t *x)
{
    static const uint64_t common_gbps[6] = { 10, 25, 40, 100, 200, 400 };
    uint32_t i, sw[64], nsw = 0, hosts[64], nh = 0;
    memset(g, 0, sizeof *g);
    g->nodes = 3u + (uint32_t)below(x, 40);
    g->switches = below(x, 4) ? 1u + (uint32_t)below(x, g->nodes - 2u) : 1u; /* one switch often: a star */
    for (i = 0; i < g->switches; i++) { /* random switch ids */
        uint32_t id;
        do
            id = (uint32_t)below(x, g->nodes);
        while (g->is_switch[id]);
        g->is_switch[id] = 1;
    }
    for (i = 0; i < g->nodes; i++) {
        if (g->is_switch[i])
            sw[nsw++] = i;
        else
            hosts[nh++] = i;
    }
    for (i = 1; i < nsw; i++) { /* a tree over the switches */
        g->a[g->links] = sw[i];
        g->b[g->links++] = sw[below(x, i)];
    }
    for (i = 0; i < 4u && nsw > 2; i++) { /* extra switch links, no pair twice */
        uint32_t p = sw[below(x, nsw)], q = sw[below(x, nsw)], j, dup = p == q;
        for (j = 0; j < g->links && !dup; j++)
            dup = (g->a[j] == p && g->b[j] == q) || (g->a[j] == q && g->b[j] == p);
        if (!dup) {
            g->a[g->links] = p;
            g->b[g->links++] = q;
        }
    }
    for (i = 0; i < nh; i++) {
        g->a[g->links] = hosts[i];
        g->b[g->links++] = sw[below(x, nsw)];
    }
    for (i = g->links; i > 1; i--) { /* shuffle the links, swap ends */
        uint32_t j = (uint32_t)below(x, i), t;
        t = g->a[i - 1]; g->a[i - 1] = g->a[j]; g->a[j] = t;
        t = g->b[i - 1]; g->b[i - 1] = g->b[j]; g->b[j] = t;
    }
    for (i = 0; i < g->links; i++) {
        if (rnd(x) & 1) {
            uint32_t t = g->a[i];
            g->a[i] = g->b[i];
            g->b[i] = t;
        }
        g->gbps[i] = below(x, 4) ? common_gbps[below(x, 6)] : 1u + below(x, 1600);
        g->delay[i] = below(x, 3) ? below(x, 5000) : below(x, 1000000001u);
        g->ppm[i] = below(x, 3) ? 0u : (uint32_t)below(x, 1000001u);
    }
    /* the tokens */
    add_tok(g, TK_NODES, "%llu", g->nodes, 0);
    add_tok(g, TK_SWITCHES, "%llu", g->switches, 0);
    add_tok(g, TK_LINKS, "%llu", g->links, 0);
    for (i = 0; i < nsw; i++) /* the switch ids in a random order */
        add_tok(g, TK_SWITCH_ID, "%llu", sw[(i + (uint32_t)g->nodes) % nsw], 0);
    for (i = 0; i < g->links; i++) {
        uint64_t v = g->gbps[i], d = g->delay[i], p = g->ppm[i];
        add_tok(g, TK_LINK_END, "%llu", g->a[i], 0);
        add_tok(g, TK_LINK_END, "%llu", g->b[i], 0);
        switch (below(x, 7)) {
        case 0: add_tok(g, TK_RATE, "%lluGbps", v, 0); break;
        case 1: add_tok(g, TK_RATE, "%lluGb/s", v, 0); break;
        case 2: add_tok(g, TK_RATE, "%llu000Mbps", v, 0); break;
        case 3: add_tok(g, TK_RATE, "%llu000000kbps", v, 0); break;
        case 4: add_tok(g, TK_RATE, "%llu000000000", v, 0); break;
        case 5: /* bytes per second: v / 8, whose eighths three decimals hold exactly */
            if (v % 8u)
                add_tok(g, TK_RATE, "%llu.%03lluGBps", v / 8u, v % 8u * 125u);
            else
                add_tok(g, TK_RATE, "%lluGBps", v / 8u, 0);
            break;
        default: add_tok(g, TK_RATE, "%llu.000Gb/s", v, 0); break;
        }
        switch (below(x, 7)) {
        case 0: add_tok(g, TK_DELAY, "%lluns", d, 0); break;
        case 1: add_tok(g, TK_DELAY, "%llu.%03lluus", d / 1000u, d % 1000u); break;
        case 2: add_tok(g, TK_DELAY, "%llu.%06llums", d / 1000000u, d % 1000000u); break;
        case 3: add_tok(g, TK_DELAY, "%llu.%09llus", d / 1000000000u, d % 1000000000u); break;
        case 4: add_tok(g, TK_DELAY, "%llue-9s", d, 0); break;
        case 5: add_tok(g, TK_DELAY, "%llu000ps", d, 0); break;
        default: add_tok(g, TK_DELAY, "%llu.%09llu", d / 1000000000u, d % 1000000000u); break;
        }
        switch (below(x, 3)) {
        case 0: add_tok(g, TK_LOSS, "%llu.%06llu", p / 1000000u, p % 1000000u); break;
        case 1: add_tok(g, TK_LOSS, "%llue-6", p, 0); break;
        default: add_tok(g, TK_LOSS, p ? "%llu.%06llu" : "0", p / 1000000u, p % 1000000u); break;
        }
    }
}

/* The tokens joined by random white space: spaces, tabs, newlines, CRLF. */
static void write_tokens(const gen_topo *g, uint64_t *x, char *text, size_t cap)
{
    static const char *const gaps[] = { " ", "\t", "\n", "\r\n", "  ", " \n\n" };
    size_t n = 0;
    uint32_t i;
    text[0] = '\0';
    for (i = 0; i < g->ntok && n < cap; i++) {
        n += (size_t)snprintf(text + n, cap - n, "%s%s", g->tok[i], gaps[below(x, 6)]);
    }
}

/* The tiers by relaxation (not the reader's BFS): 1 for a switch with a host, else 1 + the least
 * tier of its switch neighbours, until nothing changes. */
static void expected_tiers(const gen_topo *g, uint32_t *tier)
{
    uint32_t i, changed = 1;
    for (i = 0; i < g->nodes; i++)
        tier[i] = g->is_switch[i] ? UINT32_MAX : 0u;
    while (changed) {
        changed = 0;
        for (i = 0; i < g->links; i++) {
            uint32_t e[2], k;
            e[0] = g->a[i];
            e[1] = g->b[i];
            for (k = 0; k < 2; k++) {
                uint32_t u = e[k], w = e[1 - k];
                if (g->is_switch[u] && tier[w] != UINT32_MAX && tier[w] + 1u < tier[u]) {
                    tier[u] = tier[w] + 1u;
                    changed = 1;
                }
            }
        }
    }
}

static void test_property_round_trip(void)
{
    uint64_t x = g_seed, iters = test_length(300, 3000), it;
    static gen_topo g;
    static char text[1400 * 52];
    for (it = 0; it < iters && TEST_FAILS() < 4; it++) {
        scn s;
        hpcc_map m;
        scn_error err;
        uint32_t i, tier[64], host = 0;
        wl_flow *f = NULL;
        size_t n = 0, nf, j;
        uint64_t earliest = UINT64_MAX, starts[64];
        uint32_t fsrc[64], fdst[64], fsize[64], fpg[64];
        char flows[64 * 80];
        size_t fl = 0;
        gen_topology(&g, &x);
        write_tokens(&g, &x, text, sizeof text);
        expected_tiers(&g, tier);
        scn_config_default(&s);
        CHECK(scn_parse_text(&s, "t", "[tenant first]\ntraffic = file\n[tenant pg3]\ntraffic = file\n", &err) == SCN_OK);
        if (hpcc_read_topology_text(&s, "r.txt", text, &m, &err) != SCN_OK) {
            CHECK(!"a valid topology is read");
            printf("  %s\n", err.message);
            scn_free(&s);
            continue;
        }
        CHECK_EQ(arrlenu(s.topo.nodes), g.nodes);
        CHECK_EQ(arrlenu(s.topo.links), g.links);
        CHECK_EQ(m.nodes, g.nodes);
        CHECK_EQ(m.hosts, g.nodes - g.switches);
        for (i = 0; i < g.nodes; i++) {
            char name[16];
            snprintf(name, sizeof name, "n%u", (unsigned)i);
            CHECK(!strcmp(s.topo.nodes[i].name, name));
            CHECK_EQ(s.topo.nodes[i].is_switch, g.is_switch[i]);
            CHECK_EQ(s.topo.nodes[i].tier, tier[i]);
            if (g.is_switch[i]) {
                CHECK_EQ(m.host_of_node[i], HPCC_NOT_HOST);
            } else {
                CHECK_EQ(m.host_of_node[i], host);
                CHECK_EQ(m.node_of_host[host], i);
                host++;
            }
        }
        for (i = 0; i < g.links; i++) {
            char a[16], b[16];
            snprintf(a, sizeof a, "n%u", (unsigned)g.a[i]);
            snprintf(b, sizeof b, "n%u", (unsigned)g.b[i]);
            CHECK(!strcmp(s.topo.links[i].a, a) && !strcmp(s.topo.links[i].b, b));
            CHECK_EQ(s.topo.links[i].gbps, g.gbps[i]);
            CHECK_EQ(s.topo.links[i].delay_ns, g.delay[i]);
            CHECK_EQ(s.topo.links[i].loss_ppm, g.ppm[i]);
        }
        CHECK(scn_validate(&s, &err) == SCN_OK);
        /* flows between random hosts, starting from 2 s on */
        nf = (size_t)below(&x, 40);
        fl = (size_t)snprintf(flows, sizeof flows, "%u\n", (unsigned)nf);
        for (j = 0; j < nf; j++) {
            fsrc[j] = (uint32_t)below(&x, m.hosts);
            do
                fdst[j] = (uint32_t)below(&x, m.hosts);
            while (fdst[j] == fsrc[j]);
            fsize[j] = 1u + (uint32_t)below(&x, 1u << 24);
            fpg[j] = below(&x, 2) ? 3u : (uint32_t)below(&x, 8);
            starts[j] = 2000000000ull + below(&x, 3000000000ull);
            if (starts[j] < earliest)
                earliest = starts[j];
            fl += (size_t)snprintf(flows + fl, sizeof flows - fl, "%u %u %u 100 %u %llu.%09llu\n",
                                   (unsigned)m.node_of_host[fsrc[j]], (unsigned)m.node_of_host[fdst[j]], (unsigned)fpg[j],
                                   (unsigned)fsize[j], (unsigned long long)(starts[j] / 1000000000u),
                                   (unsigned long long)(starts[j] % 1000000000u));
        }
        CHECK(hpcc_read_flows_text("rf.txt", flows, &m, &s, &f, &n, &err) == SCN_OK);
        CHECK_EQ(n, nf);
        for (j = 0; j < n && j < nf; j++) {
            CHECK_EQ(f[j].src, fsrc[j]);
            CHECK_EQ(f[j].dst, fdst[j]);
            CHECK_EQ(f[j].size, fsize[j]);
            CHECK_EQ(f[j].tenant, fpg[j] == 3u ? 1u : 0u);
            CHECK_EQ(f[j].start_ns, starts[j] - earliest / 1000000000u * 1000000000u);
            CHECK_EQ(f[j].line, j + 2u);
        }
        free(f);
        hpcc_map_free(&m);
        scn_free(&s);
    }
}

/* Each valid topology corrupted in one way that must be refused; the code it must give. */
static scn_code corrupt(gen_topo *g, uint64_t *x)
{
    uint32_t i = (uint32_t)below(x, g->ntok), k;
    switch (below(x, 9)) {
    case 0: /* cut after a token (not the last) */
        g->ntok = i < g->ntok - 1u ? i : g->ntok - 1u;
        return SCN_ESYNTAX;
    case 1: /* a rate in a unit ns-3 does not have (a tail after the counts is read as the simulator does) */
        for (k = 0; g->kind[(i + k) % g->ntok] != TK_RATE; k++)
            ;
        snprintf(g->tok[(i + k) % g->ntok], sizeof g->tok[0], "%s", "100Gbpx");
        return SCN_EVALUE;
    case 2: /* a token that is no number */
        snprintf(g->tok[i], sizeof g->tok[0], "%s", below(x, 2) ? "x" : "1,5");
        return SCN_EVALUE;
    case 3: /* a negative number */
        snprintf(g->tok[i], sizeof g->tok[0], "-%s", g->kind[i] == TK_LOSS && !below(x, 2) ? "1e-6" : "1");
        return SCN_ERANGE;
    case 4: /* an id out of range */
        for (k = 0; k < g->ntok && g->kind[(i + k) % g->ntok] != TK_LINK_END && g->kind[(i + k) % g->ntok] != TK_SWITCH_ID; k++)
            ;
        snprintf(g->tok[(i + k) % g->ntok], sizeof g->tok[0], "%u", (unsigned)(g->nodes + below(x, 5)));
        return SCN_ERANGE;
    case 5: { /* a value the scenario cannot hold exactly */
        static const char *const inexact[3] = { "2.5Gbps", "1.5ns", "0.0000005" };
        static const uint8_t kinds[3] = { TK_RATE, TK_DELAY, TK_LOSS };
        uint32_t which = (uint32_t)below(x, 3);
        for (k = 0; g->kind[(i + k) % g->ntok] != kinds[which]; k++)
            ;
        snprintf(g->tok[(i + k) % g->ntok], sizeof g->tok[0], "%s", inexact[which]);
        return SCN_EVALUE;
    }
    case 6: /* link_num one more (the file ends early) */
        snprintf(g->tok[2], sizeof g->tok[0], "%u", (unsigned)g->links + 1u);
        return SCN_ESYNTAX;
    case 7: /* node_num one more: a host (the new id) without a link */
        snprintf(g->tok[0], sizeof g->tok[0], "%u", (unsigned)g->nodes + 1u);
        return SCN_EINVALID;
    default: /* a switch id twice (with one switch: node_num below it) */
        if (g->switches < 2) {
            snprintf(g->tok[3], sizeof g->tok[0], "%u", (unsigned)g->nodes);
            return SCN_ERANGE;
        }
        snprintf(g->tok[4], sizeof g->tok[0], "%s", g->tok[3]);
        return SCN_EDUPLICATE;
    }
}

static void test_property_corruptions(void)
{
    uint64_t x = g_seed ^ 0x5eedull, iters = test_length(400, 4000), it;
    static gen_topo g;
    static char text[1400 * 52 + 64];
    uint32_t refused = 0, read_ok = 0;
    for (it = 0; it < iters && TEST_FAILS() < 4; it++) {
        scn s;
        hpcc_map m;
        scn_error err;
        scn_code want;
        int rc;
        size_t len, e, edits;
        gen_topology(&g, &x);
        want = corrupt(&g, &x);
        write_tokens(&g, &x, text, sizeof text);
        scn_config_default(&s);
        memset(&err, 0, sizeof err);
        rc = hpcc_read_topology_text(&s, "r.txt", text, &m, &err);
        CHECK(rc != SCN_OK);
        CHECK_EQ(rc, want);
        if (rc != (int)want)
            printf("  corruption wanting code %d got %d: %s\n", (int)want, rc, err.message);
        CHECK(!strncmp(err.message, "r.txt", 5));
        CHECK_EQ(s.topo.shape, SCN_STAR);
        CHECK_EQ(arrlenu(s.topo.nodes), 0);
        CHECK(m.host_of_node == NULL);
        scn_free(&s);
        /* random byte edits: read or refused with a message naming the file, never a crash */
        gen_topology(&g, &x);
        write_tokens(&g, &x, text, sizeof text);
        len = strlen(text);
        edits = 1u + (size_t)below(&x, 4);
        for (e = 0; e < edits && len; e++) {
            static const char alphabet[] = "0123456789 .-+eEGgbpsmunkKMBi/\n\t#x";
            size_t at = (size_t)below(&x, len);
            switch (below(&x, 3)) {
            case 0: text[at] = alphabet[below(&x, sizeof alphabet - 1u)]; break;
            case 1: memmove(text + at, text + at + 1, len - at); len--; break; /* delete */
            default:
                if (len + 2 < sizeof text) { /* insert */
                    memmove(text + at + 1, text + at, len - at + 1);
                    text[at] = alphabet[below(&x, sizeof alphabet - 1u)];
                    len++;
                }
            }
        }
        scn_config_default(&s);
        memset(&err, 0, sizeof err);
        rc = hpcc_read_topology_text(&s, "r.txt", text, &m, &err);
        if (rc == SCN_OK) {
            read_ok++;
            CHECK(arrlenu(s.topo.nodes) == m.nodes);
            hpcc_map_free(&m);
        } else {
            refused++;
            CHECK(!strncmp(err.message, "r.txt", 5) && strlen(err.message) > 8);
            CHECK(rc >= SCN_EIO && rc <= SCN_EINVALID);
        }
        scn_free(&s);
    }
    printf("random byte edits: %u read, %u refused\n", (unsigned)read_ok, (unsigned)refused);
    CHECK(refused > 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (argv[0])
        g_argv0 = argv[0];
    g_seed = test_seed(33);
    RUN(test_small_topology);
    RUN(test_fat_tree_k4);
    RUN(test_value_spellings);
    RUN(test_topology_errors);
    RUN(test_tier_limit);
    RUN(test_file_errors);
    RUN(test_small_flows);
    RUN(test_flow_tenants);
    RUN(test_small_same);
    RUN(test_read_as_the_simulator);
    RUN(test_flow_errors);
    RUN(test_property_round_trip);
    RUN(test_property_corruptions);
    return test_summary();
}
