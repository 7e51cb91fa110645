/* topo.h -- the fabric's topology layer (examples/rnic_model/, issue 30): a graph of hosts and
 * switches joined by links, builders for the standard shapes (star, dumbbell, leaf-spine, the
 * 3-tier k-ary fat-tree of Al-Fares et al., SIGCOMM 2008), and per-switch routing tables with
 * ECMP over every shortest path. Hosted example code, not an engine: it allocates (malloc /
 * realloc) only while a topology is built and finished; the per-packet queries
 * (topo_ecmp_port, topo_route_*, topo_peer) do not allocate, use no floating point and are
 * O(1). Every function is static inline. docs/fabric_topologies.md gives the shapes, the port
 * numbering, the routing rule, the ECMP hash fields and the memory.
 *
 * Needs the common core's implementation for rnic_hash64 (the flow hash is XXH64): define
 * RNIC_IMPLEMENTATION (or RL_IMPLEMENTATION, with RNIC_ENGINES_LINKED when the engines are
 * compiled in another file) before the first include of ratelimit.h in the translation unit.
 *
 * Use:
 *   topo t;  const char *why;
 *   topo_init(&t);
 *   if (topo_fat_tree(&t, 4, 100000000000ull, 1000) != RNIC_OK) ... topo_why(&t) says why;
 *   port = topo_ecmp_port(&t, sw_node, dst_host, topo_flow_hash(&t, src, dst, qp, sport));
 *   topo_free(&t);
 * or, explicitly (a scenario file): topo_add_host / topo_add_switch / topo_connect (or
 * topo_connect_by_name), then topo_finish(&t, &why), which validates the graph and computes the
 * routes. The builders finish the topology themselves. Adding a node or a link after finish
 * drops the routes until the next topo_finish.
 *
 * Graph rules (refused with a code, counted in t->errors, reason in topo_why): names are 1..23
 * printable characters without spaces and unique; a host has exactly one link (hosts do not
 * forward); no link joins a node to itself; a node has at most t->port_limit ports
 * (topo_set_port_limit, default TOPO_DEFAULT_PORT_LIMIT); rate 1 b/s..TOPO_MAX_RATE_BPS;
 * loss_ppm <= 10^6; switch tier 1..TOPO_MAX_TIER (0 is the hosts' tier). topo_finish also needs
 * at least one host and one connected graph.
 *
 * Ports: numbered 0, 1, ... on each node in the order its links were connected (topo_connect
 * takes the next free port on each end). Routes: shortest paths in hops over the graph in
 * which only switches forward; the ECMP set at switch s for host d is every port of s whose
 * neighbour is one hop closer to d, in ascending port order. topo_ecmp_port picks one member by
 * the flow hash mixed with the switch's number, so that the tiers of a fat-tree do not all make
 * the same choice (hash polarization; see the doc).
 *
 * API:
 *   void     topo_init(topo *t);
 *   void     topo_free(topo *t);
 *   rnic_err topo_set_port_limit(topo *t, uint32_t limit);
 *   uint32_t topo_add_host(topo *t, const char *name);                    node id or TOPO_NONE
 *   uint32_t topo_add_switch(topo *t, const char *name, uint32_t tier);   node id or TOPO_NONE
 *   rnic_err topo_connect(topo *t, uint32_t a, uint32_t b, uint64_t rate_bps, uint32_t delay_ns, uint32_t loss_ppm);
 *   rnic_err topo_connect_by_name(topo *t, const char *a, const char *b, uint64_t rate_bps, uint32_t delay_ns, uint32_t loss_ppm);
 *   uint32_t topo_find(const topo *t, const char *name);                 node id or TOPO_NONE
 *   rnic_err topo_star(topo *t, uint32_t hosts, uint64_t rate_bps, uint32_t delay_ns);
 *   rnic_err topo_dumbbell(topo *t, uint32_t left, uint32_t right, uint64_t host_bps, uint64_t core_bps, uint32_t delay_ns);
 *   rnic_err topo_leaf_spine(topo *t, uint32_t leaves, uint32_t spines, uint32_t hosts_per_leaf,
 *                            uint64_t host_bps, uint64_t fabric_bps, uint32_t delay_ns);
 *   rnic_err topo_fat_tree(topo *t, uint32_t k, uint64_t rate_bps, uint32_t delay_ns);
 *   rnic_err topo_finish(topo *t, const char **why);
 *   const char *topo_why(const topo *t);                                 reason of the last refusal
 *   bool     topo_finished(const topo *t);
 *   uint32_t topo_host_node(const topo *t, uint32_t host);
 *   uint32_t topo_switch_node(const topo *t, uint32_t sw);
 *   uint32_t topo_port_link(const topo *t, uint32_t node, uint32_t port);          (finished)
 *   uint32_t topo_peer(const topo *t, uint32_t node, uint32_t port, uint32_t *peer_port); (finished)
 *   uint32_t topo_route_count(const topo *t, uint32_t sw_node, uint32_t dst_host);
 *   uint32_t topo_route_port(const topo *t, uint32_t sw_node, uint32_t dst_host, uint32_t i);
 *   uint32_t topo_ecmp_port(const topo *t, uint32_t sw_node, uint32_t dst_host, uint64_t flow_hash);
 *   uint64_t topo_flow_hash(const topo *t, uint32_t src_host, uint32_t dst_host, uint32_t flow, uint32_t sport);
 *   uint32_t topo_path_hops(const topo *t, uint32_t src_host, uint32_t dst_host);
 *   uint32_t topo_flow_path(const topo *t, uint32_t src_host, uint32_t dst_host, uint64_t flow_hash,
 *                           uint32_t *switch_nodes, uint32_t max);
 *   uint64_t topo_oversubscription_pct(const topo *t);
 *   uint64_t topo_route_bytes(const topo *t);
 *   uint64_t topo_bytes(const topo *t);
 * Queries answer 0 (counts) or TOPO_NONE (ids, ports) for an unknown id or an unfinished
 * topology; they take a const topo and count nothing. */
#ifndef RNIC_TOPO_H
#define RNIC_TOPO_H
#include "../../ratelimit.h" /* the rnicq common core: rnic_err, rnic_err_stats, rnic_hash64 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(RNIC__COMMON_IMPLEMENTATION_DONE)
#error "topo.h needs rnic_hash64: define RNIC_IMPLEMENTATION (or RL_IMPLEMENTATION, plus RNIC_ENGINES_LINKED when the engines are built elsewhere) before including ratelimit.h"
#endif

#define TOPO_NONE UINT32_MAX
#define TOPO_NAME_MAX 24                      /* bytes of a name, with its NUL */
#define TOPO_DEFAULT_PORT_LIMIT 1024u         /* ports per node unless topo_set_port_limit says */
#define TOPO_MAX_PORTS 4096u                  /* keeps sums of rates over a node's ports in 64 bits */
#define TOPO_MAX_RATE_BPS 10000000000000ull   /* 10 Tb/s per link */
#define TOPO_MAX_TIER 15u
#define TOPO_MAX_NODES (1u << 24)
#define TOPO_MAX_ROUTE_ENTRIES (1ull << 28)   /* switches x host-attached switches: 1 GB of table */
#define TOPO_FAT_TREE_MAX_K 64u

typedef enum topo_kind { TOPO_HOST = 0, TOPO_SWITCH = 1 } topo_kind;

typedef struct topo_node {
    topo_kind kind;
    uint32_t tier;   /* 0 hosts, 1 edge / leaf / ToR, 2 aggregation / spine, 3 core */
    uint32_t ports;  /* ports in use: 0 .. ports - 1 */
    uint32_t index;  /* host number (0 .. n_hosts - 1) or switch number (0 .. n_switches - 1) */
    char name[TOPO_NAME_MAX];
} topo_node;

typedef struct topo_link {
    uint32_t a, a_port, b, b_port; /* node ids and their port numbers */
    uint64_t rate_bps;
    uint32_t delay_ns;             /* propagation delay */
    uint32_t loss_ppm;             /* random loss, parts per million */
} topo_link;

/* One port as seen from its node (built by topo_finish). */
typedef struct topo_port_ref {
    uint32_t link, peer, peer_port;
} topo_port_ref;

/* An ECMP set: count ports at set_port[off ..]. Sets are shared: a port list is a list of
 * numbers, so every switch whose set reads {2, 3} points at the same one. */
typedef struct topo_set {
    uint32_t off, count;
} topo_set;

typedef struct topo {
    topo_node *node;
    uint32_t n_nodes, cap_nodes;
    topo_link *link;
    uint32_t n_links, cap_links;
    uint32_t n_hosts, n_switches;
    uint32_t *host_node, cap_host_node;     /* host number -> node id */
    uint32_t *switch_node, cap_switch_node; /* switch number -> node id */
    uint32_t port_limit;
    uint32_t *name_slot, name_cap;          /* open addressing on the name's hash: node ids */

    /* ---- built by topo_finish (dropped when the graph changes) ---- */
    bool finished;
    uint32_t *port_base;   /* node id -> first entry in port; port_base[n_nodes] = 2 n_links */
    topo_port_ref *port;   /* per node, per port: link id and the neighbour (node, port) */
    /* Routes. Hosts are leaves, so every shortest path to host d runs through the one switch
     * d hangs on (its "attachment"): the ECMP set at s != attach(d) depends only on attach(d).
     * The table is therefore per switch, per attachment switch, not per host. */
    uint32_t n_attach;       /* switches with at least one host */
    uint32_t *switch_attach; /* switch number -> attachment index or TOPO_NONE */
    uint32_t *host_attach;   /* host number -> attachment index (TOPO_NONE: host-to-host link) */
    uint32_t *host_port;     /* host number -> its port on its attachment switch */
    uint32_t *route;         /* [switch number * n_attach + attachment] -> set id, TOPO__LOCAL */
    topo_set *set;
    uint32_t n_sets, cap_sets;
    uint32_t *set_port;
    uint32_t n_set_ports, cap_set_ports;

    uint64_t ecmp_seed;      /* seeds topo_flow_hash */
    rnic_err_stats errors;   /* refused calls by cause */
    const char *why;         /* reason of the last refusal (why_buf or a literal), "" if none */
    char why_buf[160];
} topo;

#define TOPO__LOCAL (UINT32_MAX - 1u) /* route entry: s is d's attachment switch, the port is host_port[d] */

/* ================================ helpers =================================================== */

static inline rnic_err topo__refuse(topo *t, rnic_err e, const char *why)
{
    t->why = why;
    return rnic_err_note(&t->errors, e);
}

/* A refusal whose reason names nodes: formatted into the topo's own buffer (no global). */
static inline rnic_err topo__refuse2(topo *t, rnic_err e, const char *fmt, const char *x, const char *y)
{
    snprintf(t->why_buf, sizeof t->why_buf, fmt, x, y);
    t->why = t->why_buf;
    return rnic_err_note(&t->errors, e);
}

/* Grow *p to hold at least `need` elements of `elem` bytes (doubling); false when out of memory,
 * *p and *cap untouched. */
static inline bool topo__grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    uint64_t n = *cap ? *cap : 16u;
    void *q;
    if (need <= *cap)
        return true;
    while (n < need)
        n *= 2u;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    if ((uint64_t)SIZE_MAX / elem < n)
        return false;
    q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = (uint32_t)n;
    return true;
}

/* splitmix64's finaliser: a bijection that spreads every input bit over the output */
static inline uint64_t topo__mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t topo__name_hash(const char *name) { return rnic_hash64(name, strlen(name), 0); }

static inline bool topo__name_ok(const char *name)
{
    size_t i, n;
    if (!name)
        return false;
    n = strlen(name);
    if (n == 0 || n >= TOPO_NAME_MAX)
        return false;
    for (i = 0; i < n; i++)
        if ((unsigned char)name[i] <= 0x20u || (unsigned char)name[i] >= 0x7fu)
            return false;
    return true;
}

static inline uint32_t topo_find(const topo *t, const char *name)
{
    uint32_t mask, i, id;
    if (!t || !name || !t->name_cap)
        return TOPO_NONE;
    mask = t->name_cap - 1u;
    for (i = (uint32_t)topo__name_hash(name) & mask;; i = (i + 1u) & mask) {
        id = t->name_slot[i];
        if (id == TOPO_NONE)
            return TOPO_NONE;
        if (strcmp(t->node[id].name, name) == 0)
            return id;
    }
}

static inline void topo__name_insert(topo *t, uint32_t id)
{
    uint32_t mask = t->name_cap - 1u, i;
    for (i = (uint32_t)topo__name_hash(t->node[id].name) & mask; t->name_slot[i] != TOPO_NONE; i = (i + 1u) & mask)
        ;
    t->name_slot[i] = id;
}

/* Keep the name table at most half full for n names; false when out of memory (old table kept). */
static inline bool topo__name_reserve(topo *t, uint32_t n)
{
    uint32_t cap = t->name_cap ? t->name_cap : 64u, i, *slots, *old = t->name_slot, old_cap = t->name_cap;
    if ((uint64_t)n * 2u <= t->name_cap)
        return true;
    while ((uint64_t)cap < (uint64_t)n * 2u)
        cap *= 2u;
    slots = (uint32_t *)malloc((size_t)cap * sizeof *slots);
    if (!slots)
        return false;
    for (i = 0; i < cap; i++)
        slots[i] = TOPO_NONE;
    t->name_slot = slots;
    t->name_cap = cap;
    for (i = 0; i < old_cap; i++)
        if (old[i] != TOPO_NONE)
            topo__name_insert(t, old[i]);
    free(old);
    return true;
}

/* The routes and the port tables belong to one graph: any change drops them. */
static inline void topo__drop_routes(topo *t)
{
    free(t->port_base);
    free(t->port);
    free(t->switch_attach);
    free(t->host_attach);
    free(t->host_port);
    free(t->route);
    free(t->set);
    free(t->set_port);
    t->port_base = t->switch_attach = t->host_attach = t->host_port = t->route = t->set_port = NULL;
    t->port = NULL;
    t->set = NULL;
    t->n_attach = t->n_sets = t->cap_sets = t->n_set_ports = t->cap_set_ports = 0;
    t->finished = false;
}

/* ================================ building ================================================== */

static inline void topo_init(topo *t)
{
    memset(t, 0, sizeof *t);
    t->port_limit = TOPO_DEFAULT_PORT_LIMIT;
    t->why = "";
}

static inline void topo_free(topo *t)
{
    if (!t)
        return;
    topo__drop_routes(t);
    free(t->node);
    free(t->link);
    free(t->host_node);
    free(t->switch_node);
    free(t->name_slot);
    t->node = NULL;
    t->link = NULL;
    t->host_node = t->switch_node = t->name_slot = NULL;
    t->n_nodes = t->cap_nodes = t->n_links = t->cap_links = t->n_hosts = t->n_switches = 0;
    t->cap_host_node = t->cap_switch_node = t->name_cap = 0;
}

static inline const char *topo_why(const topo *t) { return t && t->why ? t->why : ""; }
static inline bool topo_finished(const topo *t) { return t && t->finished; }

/* Only while the nodes in place fit: a limit below a node's ports in use is refused. */
static inline rnic_err topo_set_port_limit(topo *t, uint32_t limit)
{
    uint32_t i;
    if (!t)
        return RNIC_EINVAL;
    if (limit == 0 || limit > TOPO_MAX_PORTS)
        return topo__refuse(t, RNIC_ERANGE, "port limit outside 1..TOPO_MAX_PORTS (4096)");
    for (i = 0; i < t->n_nodes; i++)
        if (t->node[i].ports > limit)
            return topo__refuse2(t, RNIC_ERANGE, "node '%s' already uses more ports than the new limit%s",
                                 t->node[i].name, "");
    t->port_limit = limit;
    return RNIC_OK;
}

static inline uint32_t topo__add(topo *t, const char *name, topo_kind kind, uint32_t tier)
{
    char autoname[TOPO_NAME_MAX];
    uint32_t id, number;
    if (!t)
        return TOPO_NONE;
    number = kind == TOPO_HOST ? t->n_hosts : t->n_switches;
    if (!name) { /* unnamed: h<host number> or s<switch number> */
        snprintf(autoname, sizeof autoname, "%c%u", kind == TOPO_HOST ? 'h' : 's', (unsigned)number);
        name = autoname;
    }
    if (!topo__name_ok(name)) {
        topo__refuse(t, RNIC_EINVAL, "node name must be 1..23 printable characters without spaces");
        return TOPO_NONE;
    }
    if (kind == TOPO_SWITCH && (tier == 0 || tier > TOPO_MAX_TIER)) {
        topo__refuse2(t, RNIC_ERANGE, "switch '%s': tier must be 1..15 (tier 0 is the hosts')%s", name, "");
        return TOPO_NONE;
    }
    if (topo_find(t, name) != TOPO_NONE) {
        topo__refuse2(t, RNIC_EEXIST, "node name '%s' is already taken%s", name, "");
        return TOPO_NONE;
    }
    if (t->n_nodes >= TOPO_MAX_NODES) {
        topo__refuse(t, RNIC_ENOSPC, "too many nodes (TOPO_MAX_NODES)");
        return TOPO_NONE;
    }
    if (!topo__grow((void **)&t->node, &t->cap_nodes, t->n_nodes + 1u, sizeof *t->node) ||
        !(kind == TOPO_HOST ? topo__grow((void **)&t->host_node, &t->cap_host_node, t->n_hosts + 1u, sizeof(uint32_t))
                            : topo__grow((void **)&t->switch_node, &t->cap_switch_node, t->n_switches + 1u, sizeof(uint32_t))) ||
        !topo__name_reserve(t, t->n_nodes + 1u)) {
        topo__refuse(t, RNIC_ENOSPC, "out of memory");
        return TOPO_NONE;
    }
    id = t->n_nodes++;
    memset(&t->node[id], 0, sizeof t->node[id]);
    t->node[id].kind = kind;
    t->node[id].tier = kind == TOPO_HOST ? 0u : tier;
    t->node[id].index = number;
    memcpy(t->node[id].name, name, strlen(name) + 1u);
    if (kind == TOPO_HOST)
        t->host_node[t->n_hosts++] = id;
    else
        t->switch_node[t->n_switches++] = id;
    topo__name_insert(t, id);
    topo__drop_routes(t);
    return id;
}

static inline uint32_t topo_add_host(topo *t, const char *name) { return topo__add(t, name, TOPO_HOST, 0); }

static inline uint32_t topo_add_switch(topo *t, const char *name, uint32_t tier)
{
    return topo__add(t, name, TOPO_SWITCH, tier);
}

/* Joins a and b on the next free port of each. */
static inline rnic_err topo_connect(topo *t, uint32_t a, uint32_t b, uint64_t rate_bps, uint32_t delay_ns, uint32_t loss_ppm)
{
    topo_link *l;
    if (!t)
        return RNIC_EINVAL;
    if (a >= t->n_nodes || b >= t->n_nodes)
        return topo__refuse(t, RNIC_ENOENT, "connect: unknown node id");
    if (a == b)
        return topo__refuse2(t, RNIC_EINVAL, "connect: '%s' cannot be linked to itself%s", t->node[a].name, "");
    if (rate_bps == 0)
        return topo__refuse2(t, RNIC_EINVAL, "connect '%s'-'%s': rate_bps is 0", t->node[a].name, t->node[b].name);
    if (rate_bps > TOPO_MAX_RATE_BPS)
        return topo__refuse2(t, RNIC_ERANGE, "connect '%s'-'%s': rate_bps above TOPO_MAX_RATE_BPS (10 Tb/s)",
                             t->node[a].name, t->node[b].name);
    if (loss_ppm > 1000000u)
        return topo__refuse2(t, RNIC_ERANGE, "connect '%s'-'%s': loss_ppm above 10^6", t->node[a].name, t->node[b].name);
    if (t->node[a].kind == TOPO_HOST && t->node[a].ports)
        return topo__refuse2(t, RNIC_ESTATE, "connect: host '%s' already has its link (a host has exactly one)%s",
                             t->node[a].name, "");
    if (t->node[b].kind == TOPO_HOST && t->node[b].ports)
        return topo__refuse2(t, RNIC_ESTATE, "connect: host '%s' already has its link (a host has exactly one)%s",
                             t->node[b].name, "");
    if (t->node[a].ports >= t->port_limit)
        return topo__refuse2(t, RNIC_ERANGE, "connect: '%s' has no free port (port limit, topo_set_port_limit)%s",
                             t->node[a].name, "");
    if (t->node[b].ports >= t->port_limit)
        return topo__refuse2(t, RNIC_ERANGE, "connect: '%s' has no free port (port limit, topo_set_port_limit)%s",
                             t->node[b].name, "");
    if (t->n_links >= TOPO_MAX_NODES * 4u)
        return topo__refuse(t, RNIC_ENOSPC, "too many links");
    if (!topo__grow((void **)&t->link, &t->cap_links, t->n_links + 1u, sizeof *t->link))
        return topo__refuse(t, RNIC_ENOSPC, "out of memory");
    l = &t->link[t->n_links++];
    l->a = a;
    l->a_port = t->node[a].ports++;
    l->b = b;
    l->b_port = t->node[b].ports++;
    l->rate_bps = rate_bps;
    l->delay_ns = delay_ns;
    l->loss_ppm = loss_ppm;
    topo__drop_routes(t);
    return RNIC_OK;
}

static inline rnic_err topo_connect_by_name(topo *t, const char *a, const char *b, uint64_t rate_bps, uint32_t delay_ns,
                                            uint32_t loss_ppm)
{
    uint32_t na, nb;
    if (!t || !a || !b)
        return t ? topo__refuse(t, RNIC_EINVAL, "connect: NULL name") : RNIC_EINVAL;
    na = topo_find(t, a);
    nb = topo_find(t, b);
    if (na == TOPO_NONE || nb == TOPO_NONE)
        return topo__refuse2(t, RNIC_ENOENT, "connect: no node named '%s'%s", na == TOPO_NONE ? a : b, "");
    return topo_connect(t, na, nb, rate_bps, delay_ns, loss_ppm);
}

/* ================================ finish: validate, then route =============================== */

static inline uint32_t topo__other(const topo_link *l, uint32_t node) { return l->a == node ? l->b : l->a; }

/* Find the set equal to ports[0..n) or append it; TOPO_NONE when out of memory. `slot` is an
 * open-addressing table (cap_slot a power of two, at most half full) of set ids. */
static inline uint32_t topo__intern_set(topo *t, const uint32_t *ports, uint32_t n, uint32_t **slot, uint32_t *cap_slot)
{
    uint64_t h = n;
    uint32_t i, mask, id;
    for (i = 0; i < n; i++)
        h = topo__mix64(h ^ ((uint64_t)ports[i] << 20));
    mask = *cap_slot - 1u;
    for (i = (uint32_t)h & mask; (*slot)[i] != TOPO_NONE; i = (i + 1u) & mask) {
        const topo_set *s = &t->set[(*slot)[i]];
        if (s->count == n && memcmp(&t->set_port[s->off], ports, (size_t)n * sizeof *ports) == 0)
            return (*slot)[i];
    }
    if (!topo__grow((void **)&t->set, &t->cap_sets, t->n_sets + 1u, sizeof *t->set) ||
        !topo__grow((void **)&t->set_port, &t->cap_set_ports, t->n_set_ports + n, sizeof *t->set_port))
        return TOPO_NONE;
    id = t->n_sets++;
    t->set[id].off = t->n_set_ports;
    t->set[id].count = n;
    memcpy(&t->set_port[t->n_set_ports], ports, (size_t)n * sizeof *ports);
    t->n_set_ports += n;
    (*slot)[i] = id;
    if ((uint64_t)t->n_sets * 2u > *cap_slot) { /* keep it half empty: rebuild at twice the size */
        uint32_t ncap = *cap_slot * 2u, j, k, *ns = (uint32_t *)malloc((size_t)ncap * sizeof *ns);
        if (!ns)
            return TOPO_NONE;
        for (j = 0; j < ncap; j++)
            ns[j] = TOPO_NONE;
        for (k = 0; k < t->n_sets; k++) {
            const topo_set *s = &t->set[k];
            uint64_t g = s->count;
            for (j = 0; j < s->count; j++)
                g = topo__mix64(g ^ ((uint64_t)t->set_port[s->off + j] << 20));
            for (j = (uint32_t)g & (ncap - 1u); ns[j] != TOPO_NONE; j = (j + 1u) & (ncap - 1u))
                ;
            ns[j] = k;
        }
        free(*slot);
        *slot = ns;
        *cap_slot = ncap;
    }
    return id;
}

/* BFS from each attachment switch over the switches (hosts never forward), then one ECMP set
 * per (switch, attachment). Returns RNIC_ENOSPC when out of memory (tables left partly built:
 * the caller drops them). */
static inline rnic_err topo__compute_routes(topo *t)
{
    uint32_t S = t->n_switches, A = t->n_attach, a, s, q_head, q_tail, p;
    uint32_t *dist = (uint32_t *)malloc(((size_t)S + 1u) * sizeof *dist);
    uint32_t *queue = (uint32_t *)malloc(((size_t)S + 1u) * sizeof *queue);
    uint32_t *ports = (uint32_t *)malloc(((size_t)t->port_limit + 1u) * sizeof *ports);
    uint32_t cap_slot = 64u, *slot = (uint32_t *)malloc(cap_slot * sizeof *slot);
    rnic_err e = RNIC_OK;
    if (!dist || !queue || !ports || !slot) {
        e = RNIC_ENOSPC;
        goto out;
    }
    for (p = 0; p < cap_slot; p++)
        slot[p] = TOPO_NONE;
    for (a = 0; a < A; a++) {
        uint32_t root = TOPO_NONE;
        for (s = 0; s < S; s++) {
            dist[s] = TOPO_NONE;
            if (t->switch_attach[s] == a)
                root = s;
        }
        dist[root] = 0;
        queue[0] = root;
        q_head = 0;
        q_tail = 1;
        while (q_head < q_tail) {
            uint32_t sw = queue[q_head++], node = t->switch_node[sw];
            for (p = t->port_base[node]; p < t->port_base[node + 1u]; p++) {
                const topo_node *peer = &t->node[t->port[p].peer];
                if (peer->kind == TOPO_SWITCH && dist[peer->index] == TOPO_NONE) {
                    dist[peer->index] = dist[sw] + 1u;
                    queue[q_tail++] = peer->index;
                }
            }
        }
        for (s = 0; s < S; s++) {
            uint32_t node = t->switch_node[s], n = 0, id;
            if (s == root) {
                t->route[(size_t)s * A + a] = TOPO__LOCAL;
                continue;
            }
            for (p = t->port_base[node]; p < t->port_base[node + 1u]; p++) {
                const topo_node *peer = &t->node[t->port[p].peer];
                if (peer->kind == TOPO_SWITCH && dist[peer->index] + 1u == dist[s])
                    ports[n++] = p - t->port_base[node];
            }
            id = topo__intern_set(t, ports, n, &slot, &cap_slot);
            if (id == TOPO_NONE) {
                e = RNIC_ENOSPC;
                goto out;
            }
            t->route[(size_t)s * A + a] = id;
        }
    }
out:
    free(dist);
    free(queue);
    free(ports);
    free(slot);
    return e;
}

/* Validates the graph (at least one host; every host has exactly one link; no self links;
 * ports within the limit; one connected component) and computes the routes. On a refusal the
 * graph is unchanged and *why (if given) says what to fix. */
static inline rnic_err topo_finish(topo *t, const char **why)
{
    uint32_t i, n, *comp = NULL, *stack = NULL, top, reached;
    uint64_t entries;
    rnic_err e;
    if (!t) {
        if (why)
            *why = "topo is NULL";
        return RNIC_EINVAL;
    }
    topo__drop_routes(t);
    e = RNIC_OK;
    if (t->n_hosts == 0)
        e = topo__refuse(t, RNIC_EINVAL, "finish: the topology has no host");
    for (i = 0; e == RNIC_OK && i < t->n_hosts; i++) {
        const topo_node *h = &t->node[t->host_node[i]];
        if (h->ports != 1u)
            e = topo__refuse2(t, RNIC_EINVAL, "finish: host '%s' has %s links (a host has exactly one)", h->name,
                              h->ports == 0 ? "no" : "several");
    }
    for (i = 0; e == RNIC_OK && i < t->n_links; i++) {
        if (t->link[i].a == t->link[i].b)
            e = topo__refuse2(t, RNIC_EINVAL, "finish: link from '%s' to itself%s", t->node[t->link[i].a].name, "");
    }
    for (i = 0; e == RNIC_OK && i < t->n_nodes; i++)
        if (t->node[i].ports > t->port_limit)
            e = topo__refuse2(t, RNIC_ERANGE, "finish: '%s' uses more ports than the port limit%s", t->node[i].name, "");
    if (e != RNIC_OK)
        goto refused;

    /* the per-port tables: counting sort of the link ends by node, placed at their port number */
    t->port_base = (uint32_t *)calloc((size_t)t->n_nodes + 1u, sizeof *t->port_base);
    t->port = (topo_port_ref *)malloc(((size_t)t->n_links * 2u + 1u) * sizeof *t->port);
    if (!t->port_base || !t->port)
        goto nomem;
    for (i = 0; i < t->n_nodes; i++)
        t->port_base[i + 1u] = t->port_base[i] + t->node[i].ports;
    for (i = 0; i < t->n_links; i++) {
        const topo_link *l = &t->link[i];
        topo_port_ref *ra = &t->port[t->port_base[l->a] + l->a_port], *rb = &t->port[t->port_base[l->b] + l->b_port];
        ra->link = rb->link = i;
        ra->peer = l->b;
        ra->peer_port = l->b_port;
        rb->peer = l->a;
        rb->peer_port = l->a_port;
    }

    /* connected: depth-first search from node 0 over every link */
    comp = (uint32_t *)calloc(t->n_nodes, sizeof *comp);
    stack = (uint32_t *)malloc((size_t)t->n_nodes * sizeof *stack);
    if (!comp || !stack)
        goto nomem;
    comp[0] = 1u;
    stack[0] = 0;
    top = 1;
    reached = 1;
    while (top) {
        uint32_t node = stack[--top], p;
        for (p = t->port_base[node]; p < t->port_base[node + 1u]; p++)
            if (!comp[t->port[p].peer]) {
                comp[t->port[p].peer] = 1u;
                stack[top++] = t->port[p].peer;
                reached++;
            }
    }
    if (reached != t->n_nodes) {
        for (n = 0; comp[n]; n++)
            ;
        e = topo__refuse2(t, RNIC_EINVAL, "finish: '%s' is not connected to '%s' (the graph must be one piece)",
                          t->node[n].name, t->node[0].name);
        free(comp);
        free(stack);
        goto refused;
    }
    free(comp);
    free(stack);
    comp = stack = NULL;

    /* attachment switches, numbered in host order */
    t->switch_attach = (uint32_t *)malloc(((size_t)t->n_switches + 1u) * sizeof *t->switch_attach);
    t->host_attach = (uint32_t *)malloc((size_t)t->n_hosts * sizeof *t->host_attach);
    t->host_port = (uint32_t *)malloc((size_t)t->n_hosts * sizeof *t->host_port);
    if (!t->switch_attach || !t->host_attach || !t->host_port)
        goto nomem;
    for (i = 0; i < t->n_switches; i++)
        t->switch_attach[i] = TOPO_NONE;
    for (i = 0; i < t->n_hosts; i++) {
        uint32_t h = t->host_node[i];
        const topo_port_ref *r = &t->port[t->port_base[h]];
        const topo_node *sw = &t->node[r->peer];
        t->host_attach[i] = t->host_port[i] = TOPO_NONE;
        if (sw->kind != TOPO_SWITCH)
            continue; /* two hosts joined back to back: no switch on the way */
        if (t->switch_attach[sw->index] == TOPO_NONE)
            t->switch_attach[sw->index] = t->n_attach++;
        t->host_attach[i] = t->switch_attach[sw->index];
        t->host_port[i] = r->peer_port;
    }
    entries = (uint64_t)t->n_switches * t->n_attach;
    if (entries > TOPO_MAX_ROUTE_ENTRIES) {
        e = topo__refuse(t, RNIC_ENOSPC, "finish: route table above TOPO_MAX_ROUTE_ENTRIES (switches x ToR switches)");
        goto refused;
    }
    t->route = (uint32_t *)malloc((size_t)entries * sizeof *t->route + 1u);
    if (!t->route || topo__compute_routes(t) != RNIC_OK)
        goto nomem;
    t->finished = true;
    if (why)
        *why = "";
    return RNIC_OK;
nomem:
    e = topo__refuse(t, RNIC_ENOSPC, "finish: out of memory");
refused:
    topo__drop_routes(t);
    if (why)
        *why = t->why;
    return e;
}

/* ================================ builders ================================================== */

/* Builders start from an empty topo and finish it; on a refusal the topo is as it was. */
static inline rnic_err topo__builder_start(topo *t, const char *shape)
{
    if (!t)
        return RNIC_EINVAL;
    if (t->n_nodes)
        return topo__refuse2(t, RNIC_ESTATE, "%s: the builders start from an empty topo (topo_init)%s", shape, "");
    return RNIC_OK;
}

static inline rnic_err topo__rate_check(topo *t, const char *shape, uint64_t rate_bps)
{
    if (rate_bps == 0)
        return topo__refuse2(t, RNIC_EINVAL, "%s: rate_bps is 0%s", shape, "");
    if (rate_bps > TOPO_MAX_RATE_BPS)
        return topo__refuse2(t, RNIC_ERANGE, "%s: rate_bps above TOPO_MAX_RATE_BPS (10 Tb/s)%s", shape, "");
    return RNIC_OK;
}

/* A builder step failed after its checks (out of memory): back to the empty topo it started
 * from, keeping the settings, the counters and the reason. */
static inline rnic_err topo__builder_abort(topo *t, rnic_err e)
{
    rnic_err_stats errors = t->errors;
    uint32_t limit = t->port_limit;
    uint64_t seed = t->ecmp_seed;
    char why[sizeof t->why_buf];
    memcpy(why, topo_why(t), strlen(topo_why(t)) < sizeof why ? strlen(topo_why(t)) + 1u : sizeof why);
    why[sizeof why - 1u] = 0;
    topo_free(t);
    topo_init(t);
    t->errors = errors;
    t->port_limit = limit;
    t->ecmp_seed = seed;
    memcpy(t->why_buf, why, sizeof why);
    t->why = t->why_buf;
    return e == RNIC_OK ? RNIC_ENOSPC : e;
}

static inline uint32_t topo__add_named(topo *t, topo_kind kind, uint32_t tier, const char *fmt, uint32_t x, uint32_t y)
{
    char name[2 * TOPO_NAME_MAX]; /* room for any two numbers (gcc -O2 checks); topo__add checks the length */
    snprintf(name, sizeof name, fmt, (unsigned)x, (unsigned)y);
    return topo__add(t, name, kind, tier);
}

/* N hosts on one switch: host i = node i on switch port i; the switch is node N, "sw0". */
static inline rnic_err topo_star(topo *t, uint32_t hosts, uint64_t rate_bps, uint32_t delay_ns)
{
    uint32_t i, sw;
    rnic_err e = topo__builder_start(t, "star");
    if (e == RNIC_OK)
        e = topo__rate_check(t, "star", rate_bps);
    if (e != RNIC_OK)
        return e;
    if (hosts == 0)
        return topo__refuse(t, RNIC_EINVAL, "star: zero hosts");
    if (hosts > t->port_limit)
        return topo__refuse(t, RNIC_ERANGE, "star: more hosts than switch ports (port limit, topo_set_port_limit)");
    for (i = 0; i < hosts; i++)
        if (topo__add_named(t, TOPO_HOST, 0, "h%u", i, 0) == TOPO_NONE)
            return topo__builder_abort(t, RNIC_ENOSPC);
    sw = topo_add_switch(t, "sw0", 1);
    if (sw == TOPO_NONE)
        return topo__builder_abort(t, RNIC_ENOSPC);
    for (i = 0; i < hosts; i++)
        if (topo_connect(t, t->host_node[i], sw, rate_bps, delay_ns, 0) != RNIC_OK)
            return topo__builder_abort(t, RNIC_ENOSPC);
    e = topo_finish(t, NULL);
    return e == RNIC_OK ? e : topo__builder_abort(t, e);
}

/* Hosts 0..left-1 on "swL" (ports 0..left-1), hosts left..left+right-1 on "swR" (ports
 * 0..right-1); the bottleneck link is swL port `left` to swR port `right`. */
static inline rnic_err topo_dumbbell(topo *t, uint32_t left, uint32_t right, uint64_t host_bps, uint64_t core_bps,
                                     uint32_t delay_ns)
{
    uint32_t i, swl, swr;
    rnic_err e = topo__builder_start(t, "dumbbell");
    if (e == RNIC_OK)
        e = topo__rate_check(t, "dumbbell host", host_bps);
    if (e == RNIC_OK)
        e = topo__rate_check(t, "dumbbell core", core_bps);
    if (e != RNIC_OK)
        return e;
    if (left == 0 || right == 0)
        return topo__refuse(t, RNIC_EINVAL, "dumbbell: zero hosts on one side");
    if (left >= t->port_limit || right >= t->port_limit)
        return topo__refuse(t, RNIC_ERANGE, "dumbbell: a side's hosts + 1 exceed the port limit (topo_set_port_limit)");
    for (i = 0; i < left + right; i++)
        if (topo__add_named(t, TOPO_HOST, 0, "h%u", i, 0) == TOPO_NONE)
            return topo__builder_abort(t, RNIC_ENOSPC);
    swl = topo_add_switch(t, "swL", 1);
    swr = topo_add_switch(t, "swR", 1);
    if (swl == TOPO_NONE || swr == TOPO_NONE)
        return topo__builder_abort(t, RNIC_ENOSPC);
    for (i = 0; i < left + right; i++)
        if (topo_connect(t, t->host_node[i], i < left ? swl : swr, host_bps, delay_ns, 0) != RNIC_OK)
            return topo__builder_abort(t, RNIC_ENOSPC);
    if (topo_connect(t, swl, swr, core_bps, delay_ns, 0) != RNIC_OK)
        return topo__builder_abort(t, RNIC_ENOSPC);
    e = topo_finish(t, NULL);
    return e == RNIC_OK ? e : topo__builder_abort(t, e);
}

/* Host h on leaf h / hosts_per_leaf, port h % hosts_per_leaf; leaf l's port hosts_per_leaf + j
 * goes to spine j, whose port l comes back. Names h<i>, leaf<l>, spine<j>. */
static inline rnic_err topo_leaf_spine(topo *t, uint32_t leaves, uint32_t spines, uint32_t hosts_per_leaf,
                                       uint64_t host_bps, uint64_t fabric_bps, uint32_t delay_ns)
{
    uint32_t i, j, hosts;
    rnic_err e = topo__builder_start(t, "leaf-spine");
    if (e == RNIC_OK)
        e = topo__rate_check(t, "leaf-spine host", host_bps);
    if (e == RNIC_OK)
        e = topo__rate_check(t, "leaf-spine fabric", fabric_bps);
    if (e != RNIC_OK)
        return e;
    if (leaves == 0 || spines == 0 || hosts_per_leaf == 0)
        return topo__refuse(t, RNIC_EINVAL, "leaf-spine: zero leaves, spines or hosts per leaf");
    if ((uint64_t)hosts_per_leaf + spines > t->port_limit || leaves > t->port_limit)
        return topo__refuse(t, RNIC_ERANGE,
                            "leaf-spine: hosts_per_leaf + spines (a leaf) or leaves (a spine) exceed the port limit");
    if ((uint64_t)leaves * hosts_per_leaf + leaves + spines > TOPO_MAX_NODES)
        return topo__refuse(t, RNIC_ERANGE, "leaf-spine: too many nodes (TOPO_MAX_NODES)");
    hosts = leaves * hosts_per_leaf;
    for (i = 0; i < hosts; i++)
        if (topo__add_named(t, TOPO_HOST, 0, "h%u", i, 0) == TOPO_NONE)
            return topo__builder_abort(t, RNIC_ENOSPC);
    for (i = 0; i < leaves; i++)
        if (topo__add_named(t, TOPO_SWITCH, 1, "leaf%u", i, 0) == TOPO_NONE)
            return topo__builder_abort(t, RNIC_ENOSPC);
    for (j = 0; j < spines; j++)
        if (topo__add_named(t, TOPO_SWITCH, 2, "spine%u", j, 0) == TOPO_NONE)
            return topo__builder_abort(t, RNIC_ENOSPC);
    for (i = 0; i < hosts; i++)
        if (topo_connect(t, t->host_node[i], t->switch_node[i / hosts_per_leaf], host_bps, delay_ns, 0) != RNIC_OK)
            return topo__builder_abort(t, RNIC_ENOSPC);
    for (i = 0; i < leaves; i++)
        for (j = 0; j < spines; j++)
            if (topo_connect(t, t->switch_node[i], t->switch_node[leaves + j], fabric_bps, delay_ns, 0) != RNIC_OK)
                return topo__builder_abort(t, RNIC_ENOSPC);
    e = topo_finish(t, NULL);
    return e == RNIC_OK ? e : topo__builder_abort(t, e);
}

/* The k-ary fat-tree (Al-Fares et al. 2008): k pods of k/2 edge and k/2 aggregation switches,
 * (k/2)^2 core switches, k^3/4 hosts. With m = k/2:
 *   host h = pod * m^2 + edge * m + i ("h<h>") on edge switch (pod, edge) port i;
 *   edge switch (pod, e) = switch pod * m + e ("edge<pod>_<e>"): ports m + a go up to agg a;
 *   agg switch (pod, a) = switch k m + pod * m + a ("agg<pod>_<a>"): port e down to edge e,
 *     port m + j up to core a * m + j;
 *   core switch c = switch k^2 + c ("core<c / m>_<c % m>"): port p down to pod p.
 * Node ids: the hosts first (node id = host number), then the switches in switch-number order. */
static inline rnic_err topo_fat_tree(topo *t, uint32_t k, uint64_t rate_bps, uint32_t delay_ns)
{
    uint32_t m = k / 2u, pod, e, a, j, i, hosts, edges, aggs;
    rnic_err err = topo__builder_start(t, "fat-tree");
    if (err == RNIC_OK)
        err = topo__rate_check(t, "fat-tree", rate_bps);
    if (err != RNIC_OK)
        return err;
    if (k == 0 || k % 2u)
        return topo__refuse(t, RNIC_EINVAL, "fat-tree: k must be even and at least 2");
    if (k > TOPO_FAT_TREE_MAX_K)
        return topo__refuse(t, RNIC_ERANGE, "fat-tree: k above 64");
    if (k > t->port_limit)
        return topo__refuse(t, RNIC_ERANGE, "fat-tree: k above the port limit (topo_set_port_limit)");
    hosts = k * m * m;
    edges = aggs = k * m;
    for (i = 0; i < hosts; i++)
        if (topo__add_named(t, TOPO_HOST, 0, "h%u", i, 0) == TOPO_NONE)
            return topo__builder_abort(t, RNIC_ENOSPC);
    for (pod = 0; pod < k; pod++)
        for (e = 0; e < m; e++)
            if (topo__add_named(t, TOPO_SWITCH, 1, "edge%u_%u", pod, e) == TOPO_NONE)
                return topo__builder_abort(t, RNIC_ENOSPC);
    for (pod = 0; pod < k; pod++)
        for (a = 0; a < m; a++)
            if (topo__add_named(t, TOPO_SWITCH, 2, "agg%u_%u", pod, a) == TOPO_NONE)
                return topo__builder_abort(t, RNIC_ENOSPC);
    for (a = 0; a < m; a++)
        for (j = 0; j < m; j++)
            if (topo__add_named(t, TOPO_SWITCH, 3, "core%u_%u", a, j) == TOPO_NONE)
                return topo__builder_abort(t, RNIC_ENOSPC);
    for (i = 0; i < hosts; i++) /* edge ports 0..m-1 */
        if (topo_connect(t, t->host_node[i], t->switch_node[i / m], rate_bps, delay_ns, 0) != RNIC_OK)
            return topo__builder_abort(t, RNIC_ENOSPC);
    for (pod = 0; pod < k; pod++) /* edge ports m..k-1; agg ports 0..m-1 */
        for (e = 0; e < m; e++)
            for (a = 0; a < m; a++)
                if (topo_connect(t, t->switch_node[pod * m + e], t->switch_node[edges + pod * m + a], rate_bps, delay_ns,
                                 0) != RNIC_OK)
                    return topo__builder_abort(t, RNIC_ENOSPC);
    for (pod = 0; pod < k; pod++) /* agg ports m..k-1; core port = pod */
        for (a = 0; a < m; a++)
            for (j = 0; j < m; j++)
                if (topo_connect(t, t->switch_node[edges + pod * m + a], t->switch_node[edges + aggs + a * m + j],
                                 rate_bps, delay_ns, 0) != RNIC_OK)
                    return topo__builder_abort(t, RNIC_ENOSPC);
    err = topo_finish(t, NULL);
    return err == RNIC_OK ? err : topo__builder_abort(t, err);
}

/* ================================ queries =================================================== */

static inline uint32_t topo_host_node(const topo *t, uint32_t host)
{
    return t && host < t->n_hosts ? t->host_node[host] : TOPO_NONE;
}

static inline uint32_t topo_switch_node(const topo *t, uint32_t sw)
{
    return t && sw < t->n_switches ? t->switch_node[sw] : TOPO_NONE;
}

static inline uint32_t topo_port_link(const topo *t, uint32_t node, uint32_t port)
{
    if (!t || !t->finished || node >= t->n_nodes || port >= t->node[node].ports)
        return TOPO_NONE;
    return t->port[t->port_base[node] + port].link;
}

/* The node at the far end of `port` of `node` (and, if peer_port, its port there). */
static inline uint32_t topo_peer(const topo *t, uint32_t node, uint32_t port, uint32_t *peer_port)
{
    const topo_port_ref *r;
    if (!t || !t->finished || node >= t->n_nodes || port >= t->node[node].ports)
        return TOPO_NONE;
    r = &t->port[t->port_base[node] + port];
    if (peer_port)
        *peer_port = r->peer_port;
    return r->peer;
}

/* The route entry for (sw_node, dst_host): a set id, TOPO__LOCAL, or TOPO_NONE when none. */
static inline uint32_t topo__route(const topo *t, uint32_t sw_node, uint32_t dst_host)
{
    const topo_node *n;
    if (!t || !t->finished || sw_node >= t->n_nodes || dst_host >= t->n_hosts)
        return TOPO_NONE;
    n = &t->node[sw_node];
    if (n->kind != TOPO_SWITCH || t->host_attach[dst_host] == TOPO_NONE)
        return TOPO_NONE;
    return t->route[(size_t)n->index * t->n_attach + t->host_attach[dst_host]];
}

/* Size of the ECMP set at switch sw_node toward host dst_host (0: not a switch, unknown host). */
static inline uint32_t topo_route_count(const topo *t, uint32_t sw_node, uint32_t dst_host)
{
    uint32_t r = topo__route(t, sw_node, dst_host);
    if (r == TOPO_NONE)
        return 0;
    return r == TOPO__LOCAL ? 1u : t->set[r].count;
}

/* Member i of that set, in ascending port order (TOPO_NONE past the end). */
static inline uint32_t topo_route_port(const topo *t, uint32_t sw_node, uint32_t dst_host, uint32_t i)
{
    uint32_t r = topo__route(t, sw_node, dst_host);
    if (r == TOPO_NONE)
        return TOPO_NONE;
    if (r == TOPO__LOCAL)
        return i == 0 ? t->host_port[dst_host] : TOPO_NONE;
    return i < t->set[r].count ? t->set_port[t->set[r].off + i] : TOPO_NONE;
}

/* The member a flow takes: index = mix64(flow_hash ^ (switch number + 1) * golden) % count.
 * A plain flow_hash % count would give the same index at every tier, so in a fat-tree the
 * aggregation switch reached through uplink j would again pick uplink j, leaving all but m of
 * the m^2 cores idle; mixing in the switch number makes each tier's choice independent. */
static inline uint32_t topo_ecmp_port(const topo *t, uint32_t sw_node, uint32_t dst_host, uint64_t flow_hash)
{
    uint32_t r = topo__route(t, sw_node, dst_host);
    const topo_set *s;
    if (r == TOPO_NONE)
        return TOPO_NONE;
    if (r == TOPO__LOCAL)
        return t->host_port[dst_host];
    s = &t->set[r];
    if (s->count == 1u)
        return t->set_port[s->off];
    return t->set_port[s->off + (uint32_t)(topo__mix64(flow_hash ^ ((uint64_t)t->node[sw_node].index + 1u) *
                                                                        0x9E3779B97F4A7C15ull) %
                                           s->count)];
}

/* XXH64 (rnic_hash64), seeded with t->ecmp_seed, of the 16 bytes src_host, dst_host, flow
 * (the destination QP), sport (the RoCEv2 UDP source port), each little-endian 32 bits: the
 * fields of the packet's header that tell one flow from another (the UDP destination port is
 * always 4791). The same bytes on every target. */
static inline uint64_t topo_flow_hash(const topo *t, uint32_t src_host, uint32_t dst_host, uint32_t flow, uint32_t sport)
{
    unsigned char b[16];
    uint32_t v[4], i;
    v[0] = src_host;
    v[1] = dst_host;
    v[2] = flow;
    v[3] = sport;
    for (i = 0; i < 16u; i++)
        b[i] = (unsigned char)(v[i / 4u] >> (8u * (i % 4u)));
    return rnic_hash64(b, sizeof b, t ? t->ecmp_seed : 0);
}

/* The switches a flow crosses from src_host to dst_host, in order, written to switch_nodes
 * (at most max of them); returns how many there are (TOPO_NONE: unknown host, unfinished). */
static inline uint32_t topo_flow_path(const topo *t, uint32_t src_host, uint32_t dst_host, uint64_t flow_hash,
                                      uint32_t *switch_nodes, uint32_t max)
{
    uint32_t node, hops = 0, dst;
    if (!t || !t->finished || src_host >= t->n_hosts || dst_host >= t->n_hosts)
        return TOPO_NONE;
    if (src_host == dst_host)
        return 0;
    dst = t->host_node[dst_host];
    node = t->port[t->port_base[t->host_node[src_host]]].peer;
    while (node != dst) { /* every step is one hop closer to dst: at most n_switches steps */
        uint32_t port = topo_ecmp_port(t, node, dst_host, flow_hash);
        if (port == TOPO_NONE || hops > t->n_switches)
            return TOPO_NONE;
        if (switch_nodes && hops < max)
            switch_nodes[hops] = node;
        hops++;
        node = t->port[t->port_base[node] + port].peer;
    }
    return hops;
}

/* Switches on a shortest path from src_host to dst_host: 0 for the same host or two hosts
 * joined back to back, 1 through one switch, ... (TOPO_NONE: unknown host, unfinished). */
static inline uint32_t topo_path_hops(const topo *t, uint32_t src_host, uint32_t dst_host)
{
    return topo_flow_path(t, src_host, dst_host, 0, NULL, 0);
}

/* max over the switches with hosts of 100 x (host link capacity) / (switch-to-switch link
 * capacity), rounded down: 100 is non-blocking, 300 is 3:1. A leaf-spine leaf gives
 * hosts_per_leaf * host_bps * 100 / (spines * fabric_bps). 0 when no switch with hosts has an
 * uplink (a star) or the topology is not finished. */
static inline uint64_t topo_oversubscription_pct(const topo *t)
{
    uint64_t worst = 0;
    uint32_t s, p;
    if (!t || !t->finished)
        return 0;
    for (s = 0; s < t->n_switches; s++) {
        uint32_t node = t->switch_node[s];
        uint64_t down = 0, up = 0, pct;
        if (t->switch_attach[s] == TOPO_NONE)
            continue;
        for (p = t->port_base[node]; p < t->port_base[node + 1u]; p++) { /* <= 4096 x 10^13 < 2^56 */
            if (t->node[t->port[p].peer].kind == TOPO_HOST)
                down += t->link[t->port[p].link].rate_bps;
            else
                up += t->link[t->port[p].link].rate_bps;
        }
        if (up == 0)
            continue;
        pct = down * 100u / up;
        if (pct > worst)
            worst = pct;
    }
    return worst;
}

/* Bytes of routing state: the route table, the shared ECMP sets and the host maps (what a
 * switch's forwarding needs; the graph itself is in topo_bytes). */
static inline uint64_t topo_route_bytes(const topo *t)
{
    if (!t || !t->finished)
        return 0;
    return (uint64_t)t->n_switches * t->n_attach * sizeof(uint32_t) + (uint64_t)t->n_sets * sizeof(topo_set) +
           (uint64_t)t->n_set_ports * sizeof(uint32_t) + (uint64_t)t->n_switches * sizeof(uint32_t) +
           (uint64_t)t->n_hosts * 2u * sizeof(uint32_t);
}

/* Bytes of the whole topology in use: nodes, links, maps, names, port tables and routes. */
static inline uint64_t topo_bytes(const topo *t)
{
    uint64_t b;
    if (!t)
        return 0;
    b = (uint64_t)t->n_nodes * sizeof(topo_node) + (uint64_t)t->n_links * sizeof(topo_link) +
        ((uint64_t)t->n_hosts + t->n_switches) * sizeof(uint32_t) + (uint64_t)t->name_cap * sizeof(uint32_t);
    if (t->finished)
        b += ((uint64_t)t->n_nodes + 1u) * sizeof(uint32_t) + (uint64_t)t->n_links * 2u * sizeof(topo_port_ref) +
             topo_route_bytes(t);
    return b;
}

#endif /* RNIC_TOPO_H */
