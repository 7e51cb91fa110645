/* hpcc_input.h -- the HPCC simulator's input files read as they are (issue 33): its topology
 * file becomes a scenario's explicit topology, its flow file the flows of the scenario's
 * `traffic = file` tenants. The HPCC simulator is the ns-3 RDMA simulator of
 * alibaba-edu/High-Precision-Congestion-Control (its scratch/third.cc reads these files);
 * docs/hpcc_inputs.md gives both formats as read here, the id mapping, the time rebasing and
 * what each key of its config file is in a scenario.
 *
 *   scn s;  hpcc_map map;  wl_flow *flows = NULL;  size_t n = 0;  scn_error err;
 *   scn_config_default(&s);                              then scn_parse_file for the other keys
 *   if (hpcc_read_topology(&s, "topology.txt", &map, &err) ||
 *       hpcc_read_flows("flow.txt", &map, &s, &flows, &n, &err) || scn_validate(&s, &err))
 *       fprintf(stderr, "%s\n", err.message);        "flow.txt:7: src 0 is a switch, ..."
 *   ...
 *   free(flows);  hpcc_map_free(&map);  scn_free(&s);
 *
 * The topology file (tokens separated by any white space, as C++'s >> reads them):
 *   node_num switch_num link_num
 *   switch_num switch ids
 *   link_num links: SRC DST RATE DELAY ERROR_RATE
 * RATE is an ns-3 DataRate (100Gbps, 40Gb/s, 25000Mbps, 12.5GBps, a bare number is b/s), DELAY
 * an ns-3 Time (0.001ms, 1us, 1000ns, 1e-6s; a bare number is seconds), ERROR_RATE a packet
 * loss probability (0, 0.001, 1e-4). The scenario holds whole Gb/s, whole ns and whole parts
 * per million: a value that does not convert exactly is refused (file:line, and what to write
 * instead), never rounded. Nodes become `n<ID>` (n0, n16, ...); the ones not in the switch list
 * are hosts, numbered 0, 1, ... in HPCC id order (the order of the explicit node lines).
 *
 * A switch's tier is its distance in links from the nearest host: 1 for a switch with a host
 * (edge / ToR / leaf), 2 for the switches one hop above (aggregation / spine), 3 for a fat
 * tree's cores: the tiers of topo.h's built shapes. The fabric takes the highest tier for its
 * estimate of the base round trip (fm_build.h, NDP's initial window); topo.h requires 1..15.
 *
 * The flow file: flow_num, then flow_num flows SRC DST PG DPORT SIZE START_TIME: HPCC node ids
 * (hosts), the priority group, the destination port (not used here), the size in bytes and the
 * start time in seconds (at most 9 decimals: converted to ns exactly). Start times are rebased:
 * the whole seconds of the earliest start are subtracted (the HPCC traffic generator starts
 * its flows at 2 s, so 2.000001 s becomes 1,000 ns from the run's start). Flows of priority
 * group P go to the scenario's tenant named `pgP`, else to its first tenant; that tenant must
 * have `traffic = file`.
 *
 * Read as the HPCC simulator reads them, with a note (hpcc_map.note) saying what the file says
 * otherwise: tokens after the last counted link and flows after flow_num are not read (the
 * simulator's own example files carry such a tail); a flow file with fewer flows than flow_num
 * gives the flows it has (the simulator's traffic generator writes its count over an estimate,
 * and a shorter count leaves the estimate's last digits behind).
 *
 * Hosted C99 (and C++11), static functions, no globals; errors in scenario.h's style:
 * SCN_EIO (cannot read), SCN_ESYNTAX (the file ends early, a NUL byte),
 * SCN_EVALUE (a token that is not the number or the unit expected, a value the scenario cannot
 * hold exactly), SCN_ERANGE (negative, above a limit, an id not below node_num), SCN_EDUPLICATE
 * (a switch listed twice, a second link between two nodes), SCN_EINVALID (a host without a link
 * or with two, a switch no host reaches, a flow from or to a switch, a tenant without
 * traffic = file). Messages read "file:line: what is wrong" (line 0: "file: ..."). */
#ifndef RNIC_MODEL_HPCC_INPUT_H
#define RNIC_MODEL_HPCC_INPUT_H
#include "scenario.h"
#include "workload.h"

#define HPCC_DEF SCN_DEF
#define HPCC_NOT_HOST UINT32_MAX /* hpcc_map.host_of_node[] of a switch */

/* HPCC node ids and the scenario's host ids, both ways. */
typedef struct hpcc_map {
    uint32_t nodes;          /* node_num of the topology file */
    uint32_t hosts;          /* nodes that are not switches */
    uint32_t *host_of_node;  /* [nodes]: our host id, HPCC_NOT_HOST for a switch */
    uint32_t *node_of_host;  /* [hosts]: the HPCC node id */
    char note[SCN_PATH_MAX + 256]; /* the last read's: what it read as the HPCC simulator does though the
                                      file says otherwise (a tail after the counts, a flow count
                                      off); "" = nothing (rnic_model prints it on stderr) */
} hpcc_map;

HPCC_DEF void hpcc_map_free(hpcc_map *m)
{
    free(m->host_of_node);
    free(m->node_of_host);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- tokens */

/* The text as C++'s >> sees it: tokens between white space; each token's line for messages. */
typedef struct hpcc__lexer {
    const char *name; /* the file, for messages */
    const char *p;
    uint32_t line;    /* of p */
    uint32_t last;    /* the line of the last token read: where "the file ends" is reported */
} hpcc__lexer;

typedef struct hpcc__token {
    const char *s;
    size_t len;       /* 0: the end of the text */
    uint32_t line;
} hpcc__token;

HPCC_DEF hpcc__token hpcc__next(hpcc__lexer *x)
{
    hpcc__token t;
    while (*x->p && scn__space(*x->p))
        x->line += *x->p++ == '\n';
    t.s = x->p;
    while (*x->p && !scn__space(*x->p))
        x->p++;
    t.len = (size_t)(x->p - t.s);
    t.line = t.len ? (x->last = x->line) : x->last;
    return t;
}

/* A token as printed in a message: at most 40 bytes of it. */
#define HPCC__TOK(t) (int)((t).len > 40u ? 40u : (t).len), (t).s

/* A whole number: digits only (no sign), at most `max`. 0, or the SCN_E* code with `why`. */
HPCC_DEF int hpcc__whole(hpcc__token t, uint64_t max, uint64_t *out, char *why, size_t whycap)
{
    uint64_t v = 0;
    size_t i;
    if (t.len && t.s[0] == '-') {
        snprintf(why, whycap, "'%.*s' is negative", HPCC__TOK(t));
        return SCN_ERANGE;
    }
    for (i = 0; i < t.len; i++) {
        uint64_t d = (uint64_t)(t.s[i] - '0');
        if (t.s[i] < '0' || t.s[i] > '9') {
            snprintf(why, whycap, "'%.*s' is not a whole number", HPCC__TOK(t));
            return SCN_EVALUE;
        }
        if (v > (UINT64_MAX - d) / 10u) {
            v = UINT64_MAX;
            break;
        }
        v = v * 10u + d;
    }
    if (v > max) {
        snprintf(why, whycap, "%.*s is above the limit %llu", HPCC__TOK(t), (unsigned long long)max);
        return SCN_ERANGE;
    }
    *out = v;
    return SCN_OK;
}

/* An exact decimal: value = mant x 10^exp10, read from the front of the token (digits, an
 * optional '.' and digits, with `with_exponent` an optional e[+-]digits as C++'s >> of a double
 * and ns-3's Time take it); *used = the bytes read. Trailing zeros of the mantissa move into the
 * exponent so that a long but exact spelling (100.000000000000000000) still fits. 0, or
 * SCN_EVALUE (no digits) / SCN_ERANGE (negative, too many significant digits). */
HPCC_DEF int hpcc__decimal(hpcc__token t, int with_exponent, uint64_t *mant, int32_t *exp10, size_t *used)
{
    size_t i;
    uint64_t m = 0;
    int32_t e = 0, zeros = 0; /* zeros: trailing zeros not multiplied into m yet */
    int digits = 0, in_fraction = 0;
    if (t.len && t.s[0] == '-')
        return SCN_ERANGE;
    for (i = 0; i < t.len; i++) {
        char c = t.s[i];
        if (c == '.' && !in_fraction) {
            in_fraction = 1;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        digits = 1;
        e -= in_fraction; /* a fraction digit is worth a tenth of the one before */
        if (c == '0') {
            zeros += m != 0; /* leading zeros count nothing */
            continue;
        }
        for (; zeros > 0; zeros--) {
            if (m > UINT64_MAX / 10u)
                return SCN_ERANGE;
            m *= 10u;
        }
        if (m > (UINT64_MAX - (uint64_t)(c - '0')) / 10u)
            return SCN_ERANGE;
        m = m * 10u + (uint64_t)(c - '0');
    }
    if (!digits)
        return SCN_EVALUE;
    e += zeros;
    if (with_exponent && i < t.len && (t.s[i] == 'e' || t.s[i] == 'E')) {
        size_t j = i + 1;
        int32_t x = 0, neg = 0;
        if (j < t.len && (t.s[j] == '+' || t.s[j] == '-'))
            neg = t.s[j++] == '-';
        if (j < t.len && t.s[j] >= '0' && t.s[j] <= '9') {
            for (; j < t.len && t.s[j] >= '0' && t.s[j] <= '9'; j++)
                if (x < 100000) /* far beyond any exact value: keeps the sum in range */
                    x = x * 10 + (t.s[j] - '0');
            e += neg ? -x : x;
            i = j;
        }
    }
    *mant = m;
    *exp10 = m ? e : 0;
    *used = i;
    return SCN_OK;
}

/* mant x factor x 10^exp10 as a whole number: 0, 1 when it is not whole, 2 when above UINT64_MAX. */
HPCC_DEF int hpcc__exact(uint64_t mant, uint64_t factor, int32_t exp10, uint64_t *out)
{
    uint64_t v;
    if (mant && factor > UINT64_MAX / mant)
        return 2;
    v = mant * factor;
    for (; exp10 > 0 && v; exp10--) {
        if (v > UINT64_MAX / 10u)
            return 2;
        v *= 10u;
    }
    for (; exp10 < 0 && v; exp10++) {
        if (v % 10u)
            return 1;
        v /= 10u;
    }
    *out = v;
    return 0;
}

/* ---------------------------------------------------------------- reading a file */

/* The whole file into a NUL-terminated malloc'd buffer; a NUL byte inside is refused. */
HPCC_DEF int hpcc__slurp(const char *path, char **text, scn_error *err)
{
    FILE *f;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    const char *nul;
    *text = NULL;
    if (!path)
        return scn__fail(err, SCN_EIO, "", 0, SCN_SECTIONS, NULL, NULL, "no path (NULL)");
    if (!(f = fopen(path, "rb")))
        return scn__fail(err, SCN_EIO, path, 0, SCN_SECTIONS, NULL, NULL, "cannot open: %s", strerror(errno));
    do {
        if (cap - n < 65537u) {
            char *b = (char *)realloc(buf, cap + 65536u + 1u);
            if (!b) {
                free(buf);
                fclose(f);
                return scn__fail(err, SCN_EIO, path, 0, SCN_SECTIONS, NULL, NULL, "out of memory");
            }
            buf = b;
            cap += 65536u + 1u;
        }
        got = fread(buf + n, 1, 65536u, f);
        n += got;
    } while (got == 65536u);
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        return scn__fail(err, SCN_EIO, path, 0, SCN_SECTIONS, NULL, NULL, "cannot read: %s", strerror(e));
    }
    fclose(f);
    buf[n] = '\0';
    if ((nul = (const char *)memchr(buf, '\0', n)) != NULL) {
        uint32_t line = 1;
        const char *q;
        for (q = buf; q < nul; q++)
            line += *q == '\n';
        free(buf);
        return scn__fail(err, SCN_ESYNTAX, path, line, SCN_SECTIONS, NULL, NULL, "a NUL byte (not a text file)");
    }
    *text = buf;
    return SCN_OK;
}

/* The next token, or SCN_ESYNTAX naming what was expected where the text ended. */
HPCC_DEF int hpcc__expect(hpcc__lexer *x, hpcc__token *t, const char *what, scn_error *err)
{
    *t = hpcc__next(x);
    if (t->len)
        return SCN_OK;
    return scn__fail(err, SCN_ESYNTAX, x->name, t->line, SCN_SECTIONS, NULL, NULL, "the file ends where %s should be",
                     what);
}

/* The next token as a whole number in [0, max] (what names it in a message). */
HPCC_DEF int hpcc__expect_whole(hpcc__lexer *x, hpcc__token *t, const char *what, uint64_t max, uint64_t *v,
                                scn_error *err)
{
    char why[160];
    int rc;
    if ((rc = hpcc__expect(x, t, what, err)) != SCN_OK)
        return rc;
    if ((rc = hpcc__whole(*t, max, v, why, sizeof why)) != SCN_OK)
        return scn__fail(err, (scn_code)rc, x->name, t->line, SCN_SECTIONS, NULL, NULL, "%s: %s", what, why);
    return SCN_OK;
}

/* A link's rate (ns-3 DataRate) in whole Gb/s. */
HPCC_DEF int hpcc__rate_gbps(const hpcc__lexer *x, hpcc__token t, uint64_t *gbps, scn_error *err)
{
    /* ns-3's DataRate units: bits or bytes (x 8) per second, SI or binary prefixes */
    static const struct { const char *unit; uint64_t bps; } units[] = {
        { "bps", 1u }, { "b/s", 1u }, { "Bps", 8u }, { "B/s", 8u },
        { "kbps", 1000u }, { "kb/s", 1000u }, { "Kbps", 1000u }, { "Kb/s", 1000u },
        { "kBps", 8000u }, { "kB/s", 8000u }, { "KBps", 8000u }, { "KB/s", 8000u },
        { "Kib/s", 1024u }, { "KiB/s", 8192u },
        { "Mbps", 1000000u }, { "Mb/s", 1000000u }, { "MBps", 8000000u }, { "MB/s", 8000000u },
        { "Mib/s", 1048576u }, { "MiB/s", 8388608u },
        { "Gbps", 1000000000u }, { "Gb/s", 1000000000u }, { "GBps", 8000000000ull }, { "GB/s", 8000000000ull },
        { "Gib/s", 1073741824ull }, { "GiB/s", 8589934592ull },
    };
    uint64_t mant = 0, bps_unit = 1;
    int32_t e10 = 0;
    size_t used = 0, i;
    int rc = hpcc__decimal(t, 0, &mant, &e10, &used);
    if (rc == SCN_ERANGE && t.s[0] == '-')
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL, "link rate '%.*s' is negative",
                         HPCC__TOK(t));
    if (rc == SCN_ERANGE)
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link rate '%.*s' has more digits than fit in 64 bits", HPCC__TOK(t));
    if (rc == SCN_OK && used < t.len) {
        for (i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].unit) == t.len - used && !memcmp(units[i].unit, t.s + used, t.len - used))
                break;
        if (i == sizeof units / sizeof units[0])
            return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                             "link rate '%.*s': unknown unit '%.*s' (an ns-3 DataRate: Gbps, Gb/s, Mbps, Mb/s, Kbps, "
                             "bps, ..., or a bare number of b/s)", HPCC__TOK(t), (int)(t.len - used > 20u ? 20u : t.len - used),
                             t.s + used);
        bps_unit = units[i].bps;
    }
    if (rc != SCN_OK)
        return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link rate '%.*s' is not a number with a DataRate unit (e.g. 100Gbps)", HPCC__TOK(t));
    rc = hpcc__exact(mant, bps_unit, e10 - 9, gbps);
    if (rc == 1)
        return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link rate '%.*s' is not a whole number of Gb/s (a scenario's link rates are whole Gb/s): "
                         "write a whole number of Gb/s", HPCC__TOK(t));
    if (rc == 2 || *gbps > 1600u || *gbps == 0)
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link rate '%.*s' is outside 1..1600 Gb/s (a scenario link's range)", HPCC__TOK(t));
    return SCN_OK;
}

/* A link's delay (ns-3 Time) in whole ns. */
HPCC_DEF int hpcc__delay_ns(const hpcc__lexer *x, hpcc__token t, uint64_t *ns, scn_error *err)
{
    /* ns per unit, and a further power of ten for the units below 1 ns */
    static const struct { const char *unit; uint64_t ns; int32_t e10; } units[] = {
        { "s", 1000000000u, 0 }, { "ms", 1000000u, 0 }, { "us", 1000u, 0 }, { "ns", 1u, 0 }, { "ps", 1u, -3 },
        { "fs", 1u, -6 },
    };
    uint64_t mant = 0;
    int32_t e10 = 0;
    size_t used = 0, i = 0;
    int rc = hpcc__decimal(t, 1, &mant, &e10, &used);
    if (rc == SCN_ERANGE && t.s[0] == '-')
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL, "link delay '%.*s' is negative",
                         HPCC__TOK(t));
    if (rc == SCN_ERANGE)
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link delay '%.*s' has more digits than fit in 64 bits", HPCC__TOK(t));
    if (rc != SCN_OK)
        return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link delay '%.*s' is not a number with a Time unit (e.g. 1us)", HPCC__TOK(t));
    if (used < t.len) {
        for (i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].unit) == t.len - used && !memcmp(units[i].unit, t.s + used, t.len - used))
                break;
        if (i == sizeof units / sizeof units[0])
            return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                             "link delay '%.*s': unknown unit '%.*s' (an ns-3 Time: s, ms, us, ns, ps, or a bare "
                             "number of seconds)", HPCC__TOK(t), (int)(t.len - used > 20u ? 20u : t.len - used), t.s + used);
    }
    rc = hpcc__exact(mant, units[i].ns, e10 + units[i].e10, ns);
    if (rc == 1)
        return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link delay '%.*s' is not a whole number of ns (a scenario's link delays are whole ns): "
                         "write a whole number of ns", HPCC__TOK(t));
    if (rc == 2 || *ns > 1000000000u)
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "link delay '%.*s' is above 1 s (a scenario link's limit)", HPCC__TOK(t));
    return SCN_OK;
}

/* A link's error rate (a packet loss probability) in whole parts per million. */
HPCC_DEF int hpcc__loss_ppm(const hpcc__lexer *x, hpcc__token t, uint32_t *ppm, scn_error *err)
{
    uint64_t mant = 0, v = 0;
    int32_t e10 = 0;
    size_t used = 0;
    int rc = hpcc__decimal(t, 1, &mant, &e10, &used);
    if (rc == SCN_ERANGE && t.s[0] == '-')
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL, "error rate '%.*s' is negative",
                         HPCC__TOK(t));
    if (rc == SCN_ERANGE)
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "error rate '%.*s' has more digits than fit in 64 bits", HPCC__TOK(t));
    if (rc != SCN_OK || used < t.len)
        return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "error rate '%.*s' is not a decimal probability (e.g. 0 or 0.001)", HPCC__TOK(t));
    rc = hpcc__exact(mant, 1u, e10 + 6, &v);
    if (rc == 1)
        return scn__fail(err, SCN_EVALUE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "error rate '%.*s' is not a whole number per million (a scenario's loss_ppm): write it with at most "
                         "6 decimals", HPCC__TOK(t));
    if (rc == 2 || v > 1000000u)
        return scn__fail(err, SCN_ERANGE, x->name, t.line, SCN_SECTIONS, NULL, NULL,
                         "error rate '%.*s' is above 1 (a probability)", HPCC__TOK(t));
    *ppm = (uint32_t)v;
    return SCN_OK;
}

/* ---------------------------------------------------------------- the topology file */

typedef struct hpcc__edge { uint32_t a, b, line; } hpcc__edge;

/* The readers' error exits: fill *err (file `name`, a line) and leave through `done` with rc set. */
#define HPCC__FAIL(code, line, ...)                                                                  \
    do {                                                                                             \
        rc = scn__fail(err, code, name, line, SCN_SECTIONS, NULL, NULL, __VA_ARGS__);                \
        goto done;                                                                                   \
    } while (0)
#define HPCC__TRY(call)                                                                              \
    do {                                                                                             \
        if ((rc = (call)) != SCN_OK)                                                                 \
            goto done;                                                                               \
    } while (0)

/* Reads a topology file's text (`name` for messages) into s's topology: shape explicit, nodes
 * n<ID> in HPCC id order, the links in file order. Also sets [topology] link_gbps and
 * link_delay_ns to the link of the host with the lowest id (the HPCC simulator's NIC rate is that
 * host's link rate), which the fabric takes for a host link's defaults. On an error s is
 * unchanged and *map empty. */
HPCC_DEF int hpcc_read_topology_text(scn *s, const char *name, const char *text, hpcc_map *map, scn_error *err)
{
    hpcc__lexer x;
    hpcc__token t;
    uint64_t node_num = 0, switch_num = 0, link_num = 0, v;
    uint32_t i, *link_count = NULL, *first_line = NULL, *dist = NULL, *queue = NULL, *adj_base = NULL, *adj = NULL;
    uint32_t first_host_link = UINT32_MAX;
    unsigned char *is_switch = NULL;
    scn_node *nodes = NULL;
    scn_link *links = NULL;
    hpcc__edge *edges = NULL;
    int rc = SCN_OK;
    memset(map, 0, sizeof *map);
    x.name = name;
    x.p = text;
    x.line = x.last = 1;
    HPCC__TRY(hpcc__expect_whole(&x, &t, "node_num (the first line: node_num switch_num link_num)", SCN_MAX_NODES,
                                 &node_num, err));
    HPCC__TRY(hpcc__expect_whole(&x, &t, "switch_num (the first line: node_num switch_num link_num)", SCN_MAX_NODES,
                                 &switch_num, err));
    HPCC__TRY(hpcc__expect_whole(&x, &t, "link_num (the first line: node_num switch_num link_num)", SCN_MAX_NODES,
                                 &link_num, err));
    if (switch_num > node_num)
        HPCC__FAIL(SCN_ERANGE, t.line, "switch_num %llu is above node_num %llu", (unsigned long long)switch_num,
                   (unsigned long long)node_num);
    if (node_num - switch_num < 2u)
        HPCC__FAIL(SCN_EINVALID, t.line, "node_num %llu with switch_num %llu leaves %llu host%s (a run needs at least 2)",
                   (unsigned long long)node_num, (unsigned long long)switch_num,
                   (unsigned long long)(node_num - switch_num), node_num - switch_num == 1u ? "" : "s");
    is_switch = (unsigned char *)calloc((size_t)node_num, 1);
    link_count = (uint32_t *)calloc((size_t)node_num, sizeof *link_count);
    first_line = (uint32_t *)calloc((size_t)node_num, sizeof *first_line);
    dist = (uint32_t *)malloc((size_t)node_num * sizeof *dist);
    queue = (uint32_t *)malloc((size_t)node_num * sizeof *queue);
    adj_base = (uint32_t *)calloc((size_t)node_num + 1u, sizeof *adj_base);
    edges = (hpcc__edge *)malloc(((size_t)link_num + 1u) * sizeof *edges);
    adj = (uint32_t *)malloc(((size_t)link_num + 1u) * 2u * sizeof *adj);
    map->host_of_node = (uint32_t *)malloc((size_t)node_num * sizeof *map->host_of_node);
    map->node_of_host = (uint32_t *)malloc((size_t)(node_num - switch_num) * sizeof *map->node_of_host);
    if (!is_switch || !link_count || !first_line || !dist || !queue || !adj_base || !edges || !adj ||
        !map->host_of_node || !map->node_of_host)
        HPCC__FAIL(SCN_EIO, 0, "out of memory for %llu nodes", (unsigned long long)node_num);
    for (i = 0; i < (uint32_t)switch_num; i++) {
        char what[64];
        snprintf(what, sizeof what, "switch id %u of %llu", (unsigned)i + 1u, (unsigned long long)switch_num);
        HPCC__TRY(hpcc__expect_whole(&x, &t, what, UINT32_MAX, &v, err));
        if (v >= node_num)
            HPCC__FAIL(SCN_ERANGE, t.line, "switch id %llu is not below node_num %llu", (unsigned long long)v,
                       (unsigned long long)node_num);
        if (is_switch[v])
            HPCC__FAIL(SCN_EDUPLICATE, t.line, "switch id %llu is listed twice", (unsigned long long)v);
        is_switch[v] = 1;
    }
    for (i = 0; i < (uint32_t)node_num; i++) {
        scn_node n;
        memset(&n, 0, sizeof n);
        snprintf(n.name, sizeof n.name, "n%u", (unsigned)i);
        n.is_switch = is_switch[i];
        if (!is_switch[i]) {
            map->node_of_host[map->hosts] = i;
            map->host_of_node[i] = map->hosts++;
        } else
            map->host_of_node[i] = HPCC_NOT_HOST;
        arrput(nodes, n);
    }
    map->nodes = (uint32_t)node_num;
    for (i = 0; i < (uint32_t)link_num; i++) {
        char what[96];
        uint64_t a, b;
        uint32_t k, end[2];
        scn_link l;
        memset(&l, 0, sizeof l);
        snprintf(what, sizeof what, "the source of link %u of %llu (SRC DST RATE DELAY ERROR_RATE)", (unsigned)i + 1u,
                 (unsigned long long)link_num);
        HPCC__TRY(hpcc__expect_whole(&x, &t, what, UINT32_MAX, &a, err));
        if (a >= node_num)
            HPCC__FAIL(SCN_ERANGE, t.line, "link %u of %llu: node %llu is not below node_num %llu", (unsigned)i + 1u,
                       (unsigned long long)link_num, (unsigned long long)a, (unsigned long long)node_num);
        snprintf(what, sizeof what, "the destination of link %u of %llu (SRC DST RATE DELAY ERROR_RATE)",
                 (unsigned)i + 1u, (unsigned long long)link_num);
        HPCC__TRY(hpcc__expect_whole(&x, &t, what, UINT32_MAX, &b, err));
        if (b >= node_num)
            HPCC__FAIL(SCN_ERANGE, t.line, "link %u of %llu: node %llu is not below node_num %llu", (unsigned)i + 1u,
                       (unsigned long long)link_num, (unsigned long long)b, (unsigned long long)node_num);
        if (a == b)
            HPCC__FAIL(SCN_EINVALID, t.line, "link %llu %llu joins a node to itself", (unsigned long long)a,
                       (unsigned long long)b);
        edges[i].a = (uint32_t)a;
        edges[i].b = (uint32_t)b;
        edges[i].line = t.line;
        snprintf(what, sizeof what, "the rate of link %llu %llu (e.g. 100Gbps)", (unsigned long long)a,
                 (unsigned long long)b);
        HPCC__TRY(hpcc__expect(&x, &t, what, err));
        HPCC__TRY(hpcc__rate_gbps(&x, t, &l.gbps, err));
        snprintf(what, sizeof what, "the delay of link %llu %llu (e.g. 1us)", (unsigned long long)a,
                 (unsigned long long)b);
        HPCC__TRY(hpcc__expect(&x, &t, what, err));
        HPCC__TRY(hpcc__delay_ns(&x, t, &l.delay_ns, err));
        snprintf(what, sizeof what, "the error rate of link %llu %llu (e.g. 0)", (unsigned long long)a,
                 (unsigned long long)b);
        HPCC__TRY(hpcc__expect(&x, &t, what, err));
        HPCC__TRY(hpcc__loss_ppm(&x, t, &l.loss_ppm, err));
        end[0] = (uint32_t)a;
        end[1] = (uint32_t)b;
        for (k = 0; k < 2u; k++) {
            uint32_t e = end[k];
            if (!is_switch[e] && link_count[e])
                HPCC__FAIL(SCN_EINVALID, edges[i].line, "host %u has a second link (the first at line %u; a host has "
                           "exactly one link)", (unsigned)e, (unsigned)first_line[e]);
            if (!link_count[e]++)
                first_line[e] = edges[i].line;
        }
        snprintf(l.a, sizeof l.a, "n%u", (unsigned)a);
        snprintf(l.b, sizeof l.b, "n%u", (unsigned)b);
        arrput(links, l);
    }
    t = hpcc__next(&x);
    if (t.len) {
        uint32_t extra = 0;
        hpcc__token first = t;
        for (; t.len; t = hpcc__next(&x))
            extra++;
        snprintf(map->note, sizeof map->note, "%s:%u: %u more token%s after the %llu links the first line counts, from "
                 "'%.*s' on: not read, as the HPCC simulator does not read them", name, first.line, (unsigned)extra,
                 extra == 1u ? "" : "s", (unsigned long long)link_num, HPCC__TOK(first));
    }
    /* a second link between the same two nodes: the simulator routes over one of them only */
    for (i = 0; i < (uint32_t)link_num; i++) {
        adj_base[edges[i].a]++;
        adj_base[edges[i].b]++;
    }
    for (i = 1; i <= (uint32_t)node_num; i++)
        adj_base[i] += adj_base[i - 1u];
    for (i = (uint32_t)link_num; i-- > 0;) { /* adj_base[v] ends at v's first neighbour */
        adj[--adj_base[edges[i].a]] = i;
        adj[--adj_base[edges[i].b]] = i;
    }
    for (i = 0; i < (uint32_t)node_num; i++) {
        uint32_t j, k;
        for (j = adj_base[i]; j < adj_base[i + 1u]; j++)
            for (k = adj_base[i]; k < j; k++) {
                const hpcc__edge *p = &edges[adj[k]], *q = &edges[adj[j]];
                uint32_t pn = p->a == i ? p->b : p->a, qn = q->a == i ? q->b : q->a;
                if (pn == qn)
                    HPCC__FAIL(SCN_EDUPLICATE, q->line, "a second link between nodes %u and %u (the first at line %u)",
                               (unsigned)(q->a), (unsigned)(q->b), (unsigned)p->line);
            }
    }
    /* every host on a link; tiers: distance in links from the nearest host (hosts do not forward) */
    {
        uint32_t head = 0, tail = 0;
        for (i = 0; i < (uint32_t)node_num; i++) {
            dist[i] = UINT32_MAX;
            if (is_switch[i])
                continue;
            if (!link_count[i])
                HPCC__FAIL(SCN_EINVALID, 0, "host %u has no link (a host has exactly one)", (unsigned)i);
            dist[i] = 0;
            queue[tail++] = i;
        }
        while (head < tail) {
            uint32_t u = queue[head++], j;
            for (j = adj_base[u]; j < adj_base[u + 1u]; j++) {
                const hpcc__edge *p = &edges[adj[j]];
                uint32_t w = p->a == u ? p->b : p->a;
                if (is_switch[w] && dist[w] == UINT32_MAX) {
                    dist[w] = dist[u] + 1u;
                    queue[tail++] = w;
                }
            }
        }
        for (i = 0; i < (uint32_t)node_num; i++) {
            if (!is_switch[i])
                continue;
            if (!link_count[i])
                HPCC__FAIL(SCN_EINVALID, 0, "switch %u has no link", (unsigned)i);
            if (dist[i] == UINT32_MAX)
                HPCC__FAIL(SCN_EINVALID, 0, "switch %u is not connected to any host", (unsigned)i);
            if (dist[i] > SCN_MAX_TIER)
                HPCC__FAIL(SCN_ERANGE, 0, "switch %u is %u links from the nearest host: its tier would be above the "
                           "limit %u", (unsigned)i, (unsigned)dist[i], SCN_MAX_TIER);
            nodes[i].tier = dist[i];
        }
    }
    for (i = 0; i < (uint32_t)link_num && first_host_link == UINT32_MAX; i++)
        if (edges[i].a == map->node_of_host[0] || edges[i].b == map->node_of_host[0])
            first_host_link = i;
    /* the new topology replaces the old one */
    arrfree(s->topo.nodes);
    arrfree(s->topo.links);
    s->topo.nodes = nodes;
    s->topo.links = links;
    nodes = NULL;
    links = NULL;
    s->topo.shape = SCN_EXPLICIT;
    s->topo.link_gbps = s->topo.links[first_host_link].gbps;
    s->topo.link_delay_ns = s->topo.links[first_host_link].delay_ns;
done:
    arrfree(nodes);
    arrfree(links);
    free(is_switch);
    free(link_count);
    free(first_line);
    free(dist);
    free(queue);
    free(adj_base);
    free(adj);
    free(edges);
    if (rc != SCN_OK)
        hpcc_map_free(map);
    return rc;
}

/* Reads a topology file (above) into s's topology and fills *map (hpcc_map_free it). */
HPCC_DEF int hpcc_read_topology(scn *s, const char *path, hpcc_map *map, scn_error *err)
{
    char *text;
    int rc;
    memset(map, 0, sizeof *map);
    if ((rc = hpcc__slurp(path, &text, err)) != SCN_OK)
        return rc;
    rc = hpcc_read_topology_text(s, path, text, map, err);
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- the flow file */

/* The index of s's tenant named `name`, or -1. */
HPCC_DEF int hpcc__tenant(const scn *s, const char *name)
{
    size_t i;
    for (i = 0; i < arrlenu(s->tenants); i++)
        if (!strcmp(s->tenants[i].name, name))
            return (int)i;
    return -1;
}

/* Reads a flow file's text (`name` for messages) and appends its flows to *flows (realloc'd;
 * *n of them): src and dst our host ids (map), start_ns rebased (above), line the flow's line.
 * On an error *n is as before (the flows read are dropped). */
HPCC_DEF int hpcc_read_flows_text(const char *name, const char *text, hpcc_map *map, const scn *s,
                                  wl_flow **flows, size_t *n, scn_error *err)
{
    hpcc__lexer x;
    hpcc__token t;
    uint64_t flow_num = 0, got = 0, earliest = UINT64_MAX, base;
    size_t n0 = *n, cap = *n, i;
    int rc = SCN_OK;
    x.name = name;
    x.p = text;
    x.line = x.last = 1;
    map->note[0] = '\0';
    if (!map->nodes)
        HPCC__FAIL(SCN_EINVALID, 0, "no HPCC topology was read (the flows' node ids are the topology file's)");
    if (!arrlenu(s->tenants))
        HPCC__FAIL(SCN_EINVALID, 0, "the scenario has no tenant to take the flows");
    HPCC__TRY(hpcc__expect_whole(&x, &t, "flow_num (the first line)", UINT32_MAX, &flow_num, err));
    for (;;) {
        static const char *const field[6] = { "SRC", "DST", "PG", "DPORT", "SIZE", "START_TIME" };
        uint64_t v[5], mant = 0, start = 0;
        int32_t e10 = 0;
        size_t used = 0;
        uint32_t k, line;
        int tn;
        char tname[32], why[160];
        wl_flow *fl;
        t = hpcc__next(&x);
        if (!t.len)
            break;
        line = t.line;
        if (got == flow_num) { /* the simulator reads flow_num flows, no more */
            snprintf(map->note, sizeof map->note, "%s:%u: more than the %llu flows the first line counts, from '%.*s' on: "
                     "not read, as the HPCC simulator reads only the first %llu", name, t.line,
                     (unsigned long long)flow_num, HPCC__TOK(t), (unsigned long long)flow_num);
            break;
        }
        for (k = 0; k < 5u; k++) {
            if (k) {
                t = hpcc__next(&x);
                if (!t.len)
                    HPCC__FAIL(SCN_ESYNTAX, t.line, "the file ends inside flow %llu: it has %u of its 6 values "
                               "SRC DST PG DPORT SIZE START_TIME", (unsigned long long)got + 1u, (unsigned)k);
            }
            if ((rc = hpcc__whole(t, k == 4u ? (uint64_t)(WL_MAX_FLOW_BYTES) : UINT32_MAX, &v[k], why, sizeof why)) !=
                SCN_OK)
                HPCC__FAIL((scn_code)rc, t.line, "flow %llu: %s: %s", (unsigned long long)got + 1u, field[k], why);
        }
        t = hpcc__next(&x);
        if (!t.len)
            HPCC__FAIL(SCN_ESYNTAX, t.line, "the file ends inside flow %llu: it has 5 of its 6 values "
                       "SRC DST PG DPORT SIZE START_TIME", (unsigned long long)got + 1u);
        rc = hpcc__decimal(t, 1, &mant, &e10, &used);
        if (rc == SCN_ERANGE && t.s[0] == '-')
            HPCC__FAIL(SCN_ERANGE, t.line, "flow %llu: START_TIME '%.*s' is negative", (unsigned long long)got + 1u,
                       HPCC__TOK(t));
        if (rc != SCN_OK || used < t.len)
            HPCC__FAIL(SCN_EVALUE, t.line, "flow %llu: START_TIME '%.*s' is not a decimal number of seconds",
                       (unsigned long long)got + 1u, HPCC__TOK(t));
        rc = hpcc__exact(mant, 1u, e10 + 9, &start);
        if (rc == 1)
            HPCC__FAIL(SCN_EVALUE, t.line, "flow %llu: START_TIME '%.*s' is not a whole number of ns: write at most 9 "
                       "decimals", (unsigned long long)got + 1u, HPCC__TOK(t));
        if (rc == 2)
            HPCC__FAIL(SCN_ERANGE, t.line, "flow %llu: START_TIME '%.*s' is too large", (unsigned long long)got + 1u,
                       HPCC__TOK(t));
        rc = SCN_OK;
        for (k = 0; k < 2u; k++) {
            if (v[k] >= map->nodes)
                HPCC__FAIL(SCN_ERANGE, line, "flow %llu: %s %llu is not below the topology's node_num %u",
                           (unsigned long long)got + 1u, field[k], (unsigned long long)v[k], (unsigned)map->nodes);
            if (map->host_of_node[v[k]] == HPCC_NOT_HOST)
                HPCC__FAIL(SCN_EINVALID, line, "flow %llu: %s %llu is a switch (a flow runs between two hosts)",
                           (unsigned long long)got + 1u, field[k], (unsigned long long)v[k]);
        }
        if (v[0] == v[1])
            HPCC__FAIL(SCN_EINVALID, line, "flow %llu: host %llu sends to itself (a flow crosses the network)",
                       (unsigned long long)got + 1u, (unsigned long long)v[0]);
        if (!v[4])
            HPCC__FAIL(SCN_ERANGE, line, "flow %llu: SIZE 0 (a flow has at least 1 byte)", (unsigned long long)got + 1u);
        snprintf(tname, sizeof tname, "pg%llu", (unsigned long long)v[2]);
        tn = hpcc__tenant(s, tname);
        if (tn < 0)
            tn = 0;
        {
            char why_first[96] = "", or_add[96] = "";
            if (strcmp(s->tenants[tn].name, tname)) { /* the first tenant by default: say which name was looked for */
                snprintf(why_first, sizeof why_first, " (the first tenant: no tenant is named %s)", tname);
                snprintf(or_add, sizeof or_add, ", or add a [tenant %s] with traffic = file", tname);
            }
            if (s->tenants[tn].traffic != SCN_TRAFFIC_FILE)
                HPCC__FAIL(SCN_EINVALID, line, "flow %llu: priority group %llu goes to tenant '%s'%s, which does not "
                           "have traffic = file: set it in [tenant %s]%s", (unsigned long long)got + 1u,
                           (unsigned long long)v[2], s->tenants[tn].name, why_first, s->tenants[tn].name, or_add);
        }
        if (*n == cap) {
            size_t c = cap ? 2u * cap : 64u;
            wl_flow *a = (wl_flow *)realloc(*flows, c * sizeof *a);
            if (!a)
                HPCC__FAIL(SCN_EIO, 0, "out of memory for %llu flows", (unsigned long long)c);
            *flows = a;
            cap = c;
        }
        fl = &(*flows)[(*n)++];
        memset(fl, 0, sizeof *fl);
        fl->src = map->host_of_node[v[0]];
        fl->dst = map->host_of_node[v[1]];
        fl->tenant = (uint32_t)tn;
        fl->size = v[4];
        fl->start_ns = start;
        fl->line = line;
        fl->seq = (uint32_t)(*n - 1u);
        if (start < earliest)
            earliest = start;
        got++;
    }
    if (got < flow_num) /* the traffic generator's count written over its estimate can be too high */
        snprintf(map->note, sizeof map->note, "%s: the first line counts %llu flows, the file has %llu: the %llu read",
                 name, (unsigned long long)flow_num, (unsigned long long)got, (unsigned long long)got);
    base = got ? earliest / 1000000000u * 1000000000u : 0; /* the earliest start's whole seconds */
    for (i = n0; i < *n; i++)
        (*flows)[i].start_ns -= base;
done:
    if (rc != SCN_OK)
        *n = n0;
    return rc;
}

/* Reads a flow file (above) and appends its flows to *flows (free() them). */
HPCC_DEF int hpcc_read_flows(const char *path, hpcc_map *map, const scn *s, wl_flow **flows, size_t *n,
                             scn_error *err)
{
    char *text;
    int rc;
    if ((rc = hpcc__slurp(path, &text, err)) != SCN_OK)
        return rc;
    rc = hpcc_read_flows_text(path, text, map, s, flows, n, err);
    free(text);
    return rc;
}

#undef HPCC__FAIL
#undef HPCC__TRY

#endif /* RNIC_MODEL_HPCC_INPUT_H */
