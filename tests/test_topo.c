/* examples/rnic_model/topo.h: the fabric's topologies and routes. Checked against facts that do
 * not come from the code: the fat-tree's sizes from Al-Fares et al. (k^3/4 hosts, 5k^2/4
 * switches, k ports on every switch, links = host links k^3/4 + edge-agg k (k/2)^2 + agg-core
 * k (k/2)^2), its path lengths (1 switch under one edge, 3 within a pod, 5 across pods) and
 * ECMP fan-outs (k/2 up from an edge or an aggregation switch, 1 down, 1 at a core), the
 * documented port numbering, leaf-spine / star / dumbbell by hand, a Floyd-Warshall all-pairs
 * shortest path written here on random connected graphs (path lengths, and every ECMP set is
 * exactly the ports one hop closer), the ECMP spread over 10,000 flows, the flow hash against
 * the system's XXH64 of the documented header bytes, and bad input refused with a code, a
 * counted error and a reason, the topology left as it was. */
#define RNIC_IMPLEMENTATION
#include "../examples/rnic_model/topo.h"
#include "test.h"
#include <xxhash.h>

static uint64_t seed;

static const uint64_t G10 = 10000000000ull, G25 = 25000000000ull, G40 = 40000000000ull, G100 = 100000000000ull;

/* ---- fat-tree: the paper's structure ---- */

/* Switch numbers of the documented layout (m = k/2): edges pod*m+e, aggs k*m + pod*m + a,
 * cores k*m*2 + c. */
static uint32_t ft_edge(uint32_t k, uint32_t pod, uint32_t e) { return pod * (k / 2) + e; }
static uint32_t ft_agg(uint32_t k, uint32_t pod, uint32_t a) { return k * (k / 2) + pod * (k / 2) + a; }
static uint32_t ft_core(uint32_t k, uint32_t c) { return k * k + c; }

static void check_fat_tree_structure(uint32_t k)
{
    topo t;
    uint32_t m = k / 2, i, tiers[4] = { 0, 0, 0, 0 };
    uint64_t hosts = (uint64_t)k * k * k / 4, switches = 5ull * k * k / 4;
    uint64_t links = hosts + (uint64_t)k * m * m + (uint64_t)k * m * m;
    topo_init(&t);
    CHECK_EQ(topo_fat_tree(&t, k, G100, 500), RNIC_OK);
    CHECK(topo_finished(&t));
    CHECK_EQ(t.n_hosts, hosts);
    CHECK_EQ(t.n_switches, switches);
    CHECK_EQ(t.n_links, links);
    CHECK_EQ(t.n_links, 3ull * k * k * k / 4); /* the same count, closed form */
    CHECK_EQ(t.n_nodes, hosts + switches);
    for (i = 0; i < t.n_nodes; i++) {
        const topo_node *n = &t.node[i];
        tiers[n->tier < 4 ? n->tier : 0]++;
        CHECK_EQ(n->ports, n->kind == TOPO_HOST ? 1u : k); /* every switch uses exactly k ports */
    }
    CHECK_EQ(tiers[0], hosts);
    CHECK_EQ(tiers[1], (uint64_t)k * m); /* k pods x k/2 edge */
    CHECK_EQ(tiers[2], (uint64_t)k * m); /* k pods x k/2 aggregation */
    CHECK_EQ(tiers[3], (uint64_t)m * m); /* (k/2)^2 core */
    /* every link is one of the paper's three kinds */
    for (i = 0; i < t.n_links && TEST_FAILS() < 8; i++) {
        const topo_link *l = &t.link[i];
        const topo_node *a = &t.node[l->a], *b = &t.node[l->b];
        CHECK_EQ(l->rate_bps, G100);
        CHECK_EQ(l->delay_ns, 500);
        if (a->kind == TOPO_HOST) { /* host h under edge h / m, port h % m */
            CHECK_EQ(b->index, a->index / m);
            CHECK_EQ(l->b_port, a->index % m);
        } else if (a->tier == 1) { /* edge (pod, e) port m + a to agg (pod, a) port e */
            uint32_t pod = a->index / m, e = a->index % m, ag = l->a_port - m;
            CHECK_EQ(b->tier, 2);
            CHECK_EQ(b->index, ft_agg(k, pod, ag));
            CHECK_EQ(l->b_port, e);
        } else { /* agg (pod, a) port m + j to core a m + j, core port pod */
            uint32_t pod = (a->index - k * m) / m, ag = (a->index - k * m) % m, j = l->a_port - m;
            CHECK_EQ(a->tier, 2);
            CHECK_EQ(b->index, ft_core(k, ag * m + j));
            CHECK_EQ(l->b_port, pod);
        }
    }
    CHECK_EQ(topo_find(&t, "edge0_0"), t.switch_node[ft_edge(k, 0, 0)]);
    CHECK_EQ(topo_find(&t, "h0"), t.host_node[0]);
    topo_free(&t);
}

static void test_fat_tree_structure(void)
{
    uint32_t k;
    for (k = 2; k <= 12; k += 2)
        check_fat_tree_structure(k);
    check_fat_tree_structure(32);
}

/* Every pair of hosts: switches on the path and the ECMP fan-out at each tier, from the pod /
 * edge of the host numbers (h = pod m^2 + edge m + i). */
static void check_fat_tree_routes(uint32_t k)
{
    topo t;
    uint32_t m = k / 2, H, s, d, i;
    topo_init(&t);
    CHECK_EQ(topo_fat_tree(&t, k, G100, 500), RNIC_OK);
    H = t.n_hosts;
    for (s = 0; s < H && TEST_FAILS() < 8; s++)
        for (d = 0; d < H; d++) {
            uint32_t same_edge = s / m == d / m, same_pod = s / (m * m) == d / (m * m);
            uint32_t hops = s == d ? 0 : same_edge ? 1 : same_pod ? 3 : 5;
            uint32_t edge_s = t.switch_node[ft_edge(k, s / (m * m), (s / m) % m)];
            CHECK_EQ(topo_path_hops(&t, s, d), hops);
            if (s == d)
                continue;
            /* at the source's edge: the host's own port, or every uplink m..k-1 */
            if (same_edge) {
                CHECK_EQ(topo_route_count(&t, edge_s, d), 1);
                CHECK_EQ(topo_route_port(&t, edge_s, d, 0), d % m);
            } else {
                CHECK_EQ(topo_route_count(&t, edge_s, d), m);
                for (i = 0; i < m; i++)
                    CHECK_EQ(topo_route_port(&t, edge_s, d, i), m + i);
                CHECK_EQ(topo_route_port(&t, edge_s, d, m), TOPO_NONE);
            }
        }
    /* per switch toward each host */
    for (d = 0; d < H && TEST_FAILS() < 8; d++) {
        uint32_t dpod = d / (m * m), dedge = (d / m) % m, pod, a, c;
        for (pod = 0; pod < k; pod++)
            for (a = 0; a < m; a++) {
                uint32_t agg = t.switch_node[ft_agg(k, pod, a)];
                if (pod == dpod) { /* down to d's edge: port = its edge index */
                    CHECK_EQ(topo_route_count(&t, agg, d), 1);
                    CHECK_EQ(topo_route_port(&t, agg, d, 0), dedge);
                } else { /* up: every core port m..k-1 */
                    CHECK_EQ(topo_route_count(&t, agg, d), m);
                    CHECK_EQ(topo_route_port(&t, agg, d, 0), m);
                    CHECK_EQ(topo_route_port(&t, agg, d, m - 1), k - 1);
                }
            }
        for (c = 0; c < m * m; c++) { /* a core reaches pod p by port p only */
            uint32_t core = t.switch_node[ft_core(k, c)];
            CHECK_EQ(topo_route_count(&t, core, d), 1);
            CHECK_EQ(topo_route_port(&t, core, d, 0), dpod);
            CHECK_EQ(topo_ecmp_port(&t, core, d, 12345), dpod);
        }
    }
    /* hosts are not switches: no routes there */
    CHECK_EQ(topo_route_count(&t, t.host_node[0], 1), 0);
    CHECK_EQ(topo_route_port(&t, t.host_node[0], 1, 0), TOPO_NONE);
    CHECK_EQ(topo_ecmp_port(&t, t.host_node[0], 1, 0), TOPO_NONE);
    CHECK_EQ(topo_route_count(&t, t.switch_node[0], H), 0);
    topo_free(&t);
}

static void test_fat_tree_routes(void)
{
    check_fat_tree_routes(2);
    check_fat_tree_routes(4);
    check_fat_tree_routes(8);
}

/* ---- leaf-spine, star, dumbbell by hand ---- */

static void test_leaf_spine(void)
{
    topo t;
    uint32_t L = 4, S = 3, P = 5, s, d, j;
    topo_init(&t);
    CHECK_EQ(topo_leaf_spine(&t, L, S, P, G25, G40, 300), RNIC_OK);
    CHECK_EQ(t.n_hosts, L * P);
    CHECK_EQ(t.n_switches, L + S);
    CHECK_EQ(t.n_links, L * P + L * S);
    for (s = 0; s < L; s++)
        CHECK_EQ(t.node[t.switch_node[s]].ports, P + S);
    for (s = 0; s < S; s++)
        CHECK_EQ(t.node[t.switch_node[L + s]].ports, L);
    for (s = 0; s < L * P; s++)
        for (d = 0; d < L * P; d++) {
            uint32_t leaf = t.switch_node[s / P];
            CHECK_EQ(topo_path_hops(&t, s, d), s == d ? 0 : s / P == d / P ? 1 : 3);
            if (s / P != d / P) { /* leaf to another leaf: one way through each spine */
                CHECK_EQ(topo_route_count(&t, leaf, d), S);
                for (j = 0; j < S; j++) {
                    uint32_t pp;
                    CHECK_EQ(topo_route_port(&t, leaf, d, j), P + j);
                    CHECK_EQ(topo_peer(&t, leaf, P + j, &pp), t.switch_node[L + j]);
                    CHECK_EQ(pp, s / P);
                }
            }
        }
    for (j = 0; j < S; j++)
        for (d = 0; d < L * P; d++) {
            CHECK_EQ(topo_route_count(&t, t.switch_node[L + j], d), 1);
            CHECK_EQ(topo_route_port(&t, t.switch_node[L + j], d, 0), d / P);
        }
    /* 5 x 25 G down, 3 x 40 G up: 125 / 120 = 104.17 % */
    CHECK_EQ(topo_oversubscription_pct(&t), 104);
    CHECK_EQ(topo_oversubscription_pct(&t), (uint64_t)P * G25 * 100 / (S * G40));
    topo_free(&t);
    /* the classic 3:1 leaf: 48 x 25 G hosts, 4 x 100 G uplinks */
    topo_init(&t);
    CHECK_EQ(topo_leaf_spine(&t, 2, 4, 48, G25, G100, 300), RNIC_OK);
    CHECK_EQ(topo_oversubscription_pct(&t), 300);
    topo_free(&t);
    topo_init(&t); /* non-blocking: 8 x 10 G under 2 x 40 G */
    CHECK_EQ(topo_leaf_spine(&t, 3, 2, 8, G10, G40, 300), RNIC_OK);
    CHECK_EQ(topo_oversubscription_pct(&t), 100);
    topo_free(&t);
}

static void test_star(void)
{
    topo t;
    uint32_t N = 6, s, d, sw;
    topo_init(&t);
    CHECK_EQ(topo_star(&t, N, G100, 1000), RNIC_OK);
    CHECK_EQ(t.n_switches, 1);
    CHECK_EQ(t.n_hosts, N);
    CHECK_EQ(t.n_links, N);
    sw = topo_find(&t, "sw0");
    CHECK_EQ(sw, t.switch_node[0]);
    CHECK_EQ(t.node[sw].ports, N);
    for (s = 0; s < N; s++)
        for (d = 0; d < N; d++)
            CHECK_EQ(topo_path_hops(&t, s, d), s == d ? 0 : 1);
    for (d = 0; d < N; d++) {
        CHECK_EQ(topo_route_count(&t, sw, d), 1);
        CHECK_EQ(topo_route_port(&t, sw, d, 0), d);
        CHECK_EQ(topo_peer(&t, sw, d, NULL), t.host_node[d]);
        CHECK_EQ(topo_ecmp_port(&t, sw, d, 99), d);
        CHECK_EQ(t.link[topo_port_link(&t, sw, d)].rate_bps, G100);
    }
    CHECK_EQ(topo_oversubscription_pct(&t), 0); /* no uplink */
    topo_free(&t);
}

static void test_dumbbell(void)
{
    topo t;
    uint32_t s, d, swl, swr, pp;
    topo_init(&t);
    CHECK_EQ(topo_dumbbell(&t, 3, 2, G10, G10, 1000), RNIC_OK);
    CHECK_EQ(t.n_switches, 2);
    CHECK_EQ(t.n_hosts, 5);
    CHECK_EQ(t.n_links, 6);
    swl = topo_find(&t, "swL");
    swr = topo_find(&t, "swR");
    CHECK(swl != TOPO_NONE && swr != TOPO_NONE);
    for (s = 0; s < 5; s++)
        for (d = 0; d < 5; d++)
            CHECK_EQ(topo_path_hops(&t, s, d), s == d ? 0 : (s < 3) == (d < 3) ? 1 : 2);
    for (d = 3; d < 5; d++) { /* left to right: the one core link, swL port 3 -> swR port 2 */
        CHECK_EQ(topo_route_count(&t, swl, d), 1);
        CHECK_EQ(topo_route_port(&t, swl, d, 0), 3);
        CHECK_EQ(topo_peer(&t, swl, 3, &pp), swr);
        CHECK_EQ(pp, 2);
        CHECK_EQ(topo_route_port(&t, swr, d, 0), d - 3);
    }
    for (d = 0; d < 3; d++)
        CHECK_EQ(topo_route_port(&t, swr, d, 0), 2);
    CHECK_EQ(topo_oversubscription_pct(&t), 300); /* 3 x 10 G into one 10 G link */
    topo_free(&t);
}

/* ---- random explicit graphs against Floyd-Warshall ---- */

#define RG_MAX 40
#define RG_INF 1000000u

typedef struct rg_end { uint32_t peer, port; } rg_end;

static void test_random_graphs_floyd_warshall(void)
{
    uint64_t rng = seed ^ 0x70706f;
    uint32_t round;
    for (round = 0; round < 300 && TEST_FAILS() < 8; round++) {
        topo t;
        uint32_t S = 1 + (uint32_t)(rnic_splitmix64(&rng) % 10), H = 1 + (uint32_t)(rnic_splitmix64(&rng) % 14);
        uint32_t N = S + H, id[RG_MAX], is_switch[RG_MAX], nports[RG_MAX], dist[RG_MAX][RG_MAX];
        uint32_t hostnum[RG_MAX], swnum[RG_MAX];
        rg_end adj[RG_MAX][64];
        uint32_t order[RG_MAX], i, j, x, extra, a, b, kk;
        char name[16];
        topo_init(&t);
        t.ecmp_seed = round;
        /* node kinds in a random order, so node ids do not follow the kinds */
        for (i = 0; i < N; i++)
            order[i] = i < S;
        for (i = N - 1; i > 0; i--) {
            uint32_t r = (uint32_t)(rnic_splitmix64(&rng) % (i + 1)), tmp = order[i];
            order[i] = order[r];
            order[r] = tmp;
        }
        for (i = 0, a = 0, b = 0; i < N; i++) {
            snprintf(name, sizeof name, "x%u", i);
            is_switch[i] = order[i];
            id[i] = is_switch[i] ? topo_add_switch(&t, name, 1 + i % 3) : topo_add_host(&t, name);
            CHECK_EQ(id[i], i);
            nports[i] = 0;
            if (is_switch[i])
                swnum[a++] = i;
            else
                hostnum[b++] = i;
        }
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                dist[i][j] = i == j ? 0 : RG_INF;
/* p and q are plain variables: the macro reads them several times */
#define RG_LINK(p, q)                                                          \
    do {                                                                       \
        CHECK_EQ(topo_connect(&t, (p), (q), G10, 100, 0), RNIC_OK);            \
        adj[p][nports[p]].peer = (q);                                          \
        adj[p][nports[p]].port = nports[q];                                    \
        adj[q][nports[q]].peer = (p);                                          \
        adj[q][nports[q]].port = nports[p];                                    \
        nports[p]++;                                                           \
        nports[q]++;                                                           \
        dist[p][q] = dist[q][p] = 1;                                           \
    } while (0)
        /* a random spanning tree over the switches, random extra (possibly parallel) links */
        for (i = 1; i < S; i++) {
            a = swnum[i];
            b = swnum[rnic_splitmix64(&rng) % i];
            RG_LINK(a, b);
        }
        extra = S > 1 ? (uint32_t)(rnic_splitmix64(&rng) % (2 * S)) : 0;
        for (x = 0; x < extra; x++) {
            a = swnum[rnic_splitmix64(&rng) % S];
            b = swnum[rnic_splitmix64(&rng) % S];
            if (a != b && nports[a] < 40 && nports[b] < 40)
                RG_LINK(a, b);
        }
        if (S == 1 && H == 2 && rnic_splitmix64(&rng) % 4 == 0) {
            /* sometimes two hosts back to back, and the switch alone: refused as two pieces */
            a = hostnum[0];
            b = hostnum[1];
            RG_LINK(a, b);
            CHECK_EQ(topo_finish(&t, NULL), RNIC_EINVAL);
            topo_free(&t);
            continue;
        }
        for (i = 0; i < H; i++) {
            a = hostnum[i];
            b = swnum[rnic_splitmix64(&rng) % S];
            RG_LINK(a, b);
        }
#undef RG_LINK
        CHECK_EQ(topo_finish(&t, NULL), RNIC_OK);
        /* Floyd-Warshall, with only switches as intermediate nodes (hosts do not forward) */
        for (kk = 0; kk < N; kk++) {
            if (!is_switch[kk])
                continue;
            for (i = 0; i < N; i++)
                for (j = 0; j < N; j++)
                    if (dist[i][kk] + dist[kk][j] < dist[i][j])
                        dist[i][j] = dist[i][kk] + dist[kk][j];
        }
        for (a = 0; a < H; a++)
            for (b = 0; b < H; b++) {
                uint32_t s = hostnum[a], d = hostnum[b], hops = s == d ? 0 : dist[s][d] - 1, path[RG_MAX], n, q;
                CHECK_EQ(topo_path_hops(&t, t.node[s].index, t.node[d].index), hops);
                n = topo_flow_path(&t, t.node[s].index, t.node[d].index, rnic_splitmix64(&rng), path, RG_MAX);
                CHECK_EQ(n, hops);
                for (q = 0; q < n && q < RG_MAX; q++) /* each switch on it one hop closer */
                    CHECK_EQ(dist[path[q]][d], hops - q);
            }
        for (i = 0; i < S; i++)
            for (b = 0; b < H; b++) {
                uint32_t sw = swnum[i], d = hostnum[b], dh = t.node[d].index, want[64], nw = 0, p, e;
                for (p = 0; p < nports[sw]; p++) {
                    uint32_t n = adj[sw][p].peer;
                    if (n == d || (is_switch[n] && dist[n][d] + 1 == dist[sw][d]))
                        want[nw++] = p;
                }
                CHECK(nw >= 1);
                CHECK_EQ(topo_route_count(&t, sw, dh), nw);
                for (p = 0; p < nw; p++)
                    CHECK_EQ(topo_route_port(&t, sw, dh, p), want[p]);
                e = topo_ecmp_port(&t, sw, dh, rnic_splitmix64(&rng));
                for (p = 0; p < nw && want[p] != e; p++)
                    ;
                CHECK(p < nw);
                for (p = 0; p < nports[sw]; p++) { /* the port tables agree with the test's own */
                    uint32_t pp;
                    CHECK_EQ(topo_peer(&t, sw, p, &pp), adj[sw][p].peer);
                    CHECK_EQ(pp, adj[sw][p].port);
                }
            }
        (void)swnum;
        topo_free(&t);
    }
}

/* ---- ECMP spread ---- */

static void test_ecmp_spread(void)
{
    topo t;
    uint32_t k = 8, m = 4, i, cnt[8] = { 0 }, core_cnt[16] = { 0 }, edge, dst = 127, path[8];
    uint64_t rng = seed ^ 0xec3b;
    topo_init(&t);
    CHECK_EQ(topo_fat_tree(&t, k, G100, 500), RNIC_OK);
    edge = t.switch_node[ft_edge(k, 0, 0)];
    for (i = 0; i < 10000; i++) { /* random hashes at an edge switch toward another pod */
        uint32_t p = topo_ecmp_port(&t, edge, dst, rnic_splitmix64(&rng));
        CHECK(p >= m && p < k);
        if (p < k)
            cnt[p]++;
    }
    for (i = m; i < k; i++) { /* even share 2,500 each, within 10 % */
        CHECK(cnt[i] >= 2250 && cnt[i] <= 2750);
        printf("  edge uplink %u: %u of 10000 random hashes\n", i, cnt[i]);
    }
    /* 10,000 flows (QP numbers) from host 0 to host 127: XXH64 of their headers; the edge
     * spreads them evenly, and each core of the (k/2)^2 is used evenly too (no polarization:
     * with one hash index at every tier only k/2 cores would carry them) */
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < 10000; i++) {
        uint64_t h = topo_flow_hash(&t, 0, dst, i, 49152 + i % 16384);
        CHECK_EQ(topo_flow_path(&t, 0, dst, h, path, 8), 5);
        CHECK_EQ(path[0], edge);
        cnt[topo_ecmp_port(&t, edge, dst, h) % 8]++;
        CHECK(t.node[path[2]].tier == 3);
        core_cnt[(t.node[path[2]].index - ft_core(k, 0)) % 16]++;
    }
    for (i = m; i < k; i++)
        CHECK(cnt[i] >= 2250 && cnt[i] <= 2750);
    for (i = 0; i < m * m; i++) { /* 625 each; 20 % is 5 standard deviations */
        CHECK(core_cnt[i] >= 500 && core_cnt[i] <= 750);
    }
    printf("  core 0..15 for 10000 flows:");
    for (i = 0; i < m * m; i++)
        printf(" %u", core_cnt[i]);
    printf("\n");
    topo_free(&t);
}

/* ---- the flow hash is XXH64 of the documented bytes ---- */

static void test_flow_hash_reference(void)
{
    topo t;
    uint64_t rng = seed ^ 0x4a54;
    uint32_t i, j;
    topo_init(&t);
    for (i = 0; i < 200; i++) {
        uint32_t v[4];
        unsigned char b[16];
        t.ecmp_seed = rnic_splitmix64(&rng);
        for (j = 0; j < 4; j++)
            v[j] = (uint32_t)rnic_splitmix64(&rng);
        for (j = 0; j < 16; j++) /* little-endian, src, dst, flow, sport */
            b[j] = (unsigned char)(v[j / 4] >> (8 * (j % 4)));
        CHECK_EQ(topo_flow_hash(&t, v[0], v[1], v[2], v[3]), XXH64(b, 16, t.ecmp_seed));
    }
    t.ecmp_seed = 1;
    CHECK(topo_flow_hash(&t, 1, 2, 3, 4) != topo_flow_hash(&t, 2, 1, 3, 4));
    CHECK(topo_flow_hash(&t, 1, 2, 3, 4) != topo_flow_hash(&t, 1, 2, 3, 5));
    topo_free(&t);
}

/* ---- explicit form by name ---- */

static void test_explicit_by_name(void)
{
    topo t;
    const char *why = "x";
    uint32_t tor0, tor1, sp;
    topo_init(&t);
    CHECK_EQ(topo_add_host(&t, NULL), 0); /* unnamed: h0 */
    CHECK_EQ(topo_add_host(&t, "db"), 1);
    tor0 = topo_add_switch(&t, "tor0", 1);
    tor1 = topo_add_switch(&t, NULL, 1); /* s1 */
    sp = topo_add_switch(&t, "spine", 2);
    CHECK_EQ(topo_find(&t, "h0"), 0);
    CHECK_EQ(topo_find(&t, "s1"), tor1);
    CHECK_EQ(topo_find(&t, "nope"), TOPO_NONE);
    CHECK_EQ(topo_connect_by_name(&t, "h0", "tor0", G25, 100, 0), RNIC_OK);
    CHECK_EQ(topo_connect_by_name(&t, "db", "s1", G25, 100, 10), RNIC_OK);
    CHECK_EQ(topo_connect_by_name(&t, "tor0", "spine", G100, 200, 0), RNIC_OK);
    CHECK_EQ(topo_connect_by_name(&t, "s1", "spine", G100, 200, 0), RNIC_OK);
    CHECK(!topo_finished(&t));
    CHECK_EQ(topo_route_count(&t, tor0, 1), 0); /* not finished: no routes */
    CHECK_EQ(topo_path_hops(&t, 0, 1), TOPO_NONE);
    CHECK_EQ(topo_finish(&t, &why), RNIC_OK);
    CHECK_EQ(why[0], 0);
    CHECK_EQ(topo_path_hops(&t, 0, 1), 3);
    CHECK_EQ(topo_route_port(&t, tor0, 1, 0), 1);
    CHECK_EQ(topo_route_port(&t, sp, 1, 0), 1);
    CHECK_EQ(t.link[1].loss_ppm, 10);
    /* a change drops the routes until the next finish; a parallel link joins the ECMP set */
    CHECK_EQ(topo_connect(&t, tor0, sp, G100, 200, 0), RNIC_OK);
    CHECK(!topo_finished(&t));
    CHECK_EQ(topo_route_count(&t, tor0, 1), 0);
    CHECK_EQ(topo_finish(&t, &why), RNIC_OK);
    CHECK_EQ(topo_route_count(&t, tor0, 1), 2);
    CHECK_EQ(topo_route_port(&t, tor0, 1, 1), 2);
    CHECK_EQ(topo_route_count(&t, sp, 0), 2); /* spine ports 0 and 2 both reach tor0 */
    topo_free(&t);
}

/* ---- bad input: a code, a counted error, a reason, the topology unchanged ---- */

static uint32_t has(const char *s, const char *word) { return strstr(s, word) != NULL; }

static void test_bad_input(void)
{
    topo t;
    const char *why = NULL;
    uint32_t h0, h1, s0, s1, refusals = 0, n_links;
    char longname[40];
    topo_init(&t);
#define REFUSED(call, code, word)                        \
    do {                                                 \
        CHECK_EQ((call), (code));                        \
        refusals++;                                      \
        CHECK_EQ(rnic_err_total(&t.errors), refusals);   \
        CHECK(has(topo_why(&t), (word)));                \
    } while (0)
    REFUSED(topo_fat_tree(&t, 3, G100, 0), RNIC_EINVAL, "k must be even");
    REFUSED(topo_fat_tree(&t, 0, G100, 0), RNIC_EINVAL, "k must be even");
    REFUSED(topo_fat_tree(&t, 66, G100, 0), RNIC_ERANGE, "k above 64");
    REFUSED(topo_fat_tree(&t, 4, 0, 0), RNIC_EINVAL, "rate_bps is 0");
    REFUSED(topo_fat_tree(&t, 4, TOPO_MAX_RATE_BPS + 1, 0), RNIC_ERANGE, "rate_bps above");
    REFUSED(topo_star(&t, 0, G100, 0), RNIC_EINVAL, "zero hosts");
    REFUSED(topo_star(&t, 4, 0, 0), RNIC_EINVAL, "rate_bps is 0");
    REFUSED(topo_dumbbell(&t, 0, 3, G10, G10, 0), RNIC_EINVAL, "zero hosts");
    REFUSED(topo_dumbbell(&t, 2, 3, G10, 0, 0), RNIC_EINVAL, "rate_bps is 0");
    REFUSED(topo_leaf_spine(&t, 2, 0, 4, G10, G10, 0), RNIC_EINVAL, "zero leaves");
    REFUSED(topo_finish(&t, &why), RNIC_EINVAL, "no host");
    CHECK(has(why, "no host"));
    CHECK_EQ(t.n_nodes, 0);
    CHECK_EQ(t.n_links, 0);

    h0 = topo_add_host(&t, "h0");
    h1 = topo_add_host(&t, "h1");
    s0 = topo_add_switch(&t, "s0", 1);
    s1 = topo_add_switch(&t, "s1", 1);
    CHECK_EQ(t.n_nodes, 4);
    CHECK_EQ(topo_add_host(&t, "h0"), TOPO_NONE);
    refusals++;
    CHECK(has(topo_why(&t), "already taken"));
    CHECK_EQ(topo_add_host(&t, "has space"), TOPO_NONE);
    refusals++;
    CHECK_EQ(topo_add_host(&t, ""), TOPO_NONE);
    refusals++;
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_EQ(topo_add_switch(&t, longname, 1), TOPO_NONE);
    refusals++;
    CHECK_EQ(topo_add_switch(&t, "s9", 0), TOPO_NONE); /* tier 0 is the hosts' */
    refusals++;
    CHECK(has(topo_why(&t), "tier"));
    CHECK_EQ(rnic_err_total(&t.errors), refusals);
    CHECK_EQ(t.errors.by_cause[RNIC_EEXIST], 1);
    CHECK_EQ(t.n_nodes, 4);
    CHECK_EQ(topo_find(&t, "s9"), TOPO_NONE);

    REFUSED(topo_connect(&t, s0, s0, G10, 0, 0), RNIC_EINVAL, "itself");
    REFUSED(topo_connect(&t, h0, s0, 0, 0, 0), RNIC_EINVAL, "rate_bps is 0");
    REFUSED(topo_connect(&t, h0, s0, G10, 0, 1000001), RNIC_ERANGE, "loss_ppm");
    REFUSED(topo_connect(&t, h0, 77, G10, 0, 0), RNIC_ENOENT, "unknown node");
    REFUSED(topo_connect_by_name(&t, "h0", "zz", G10, 0, 0), RNIC_ENOENT, "zz");
    CHECK_EQ(t.n_links, 0);
    CHECK_EQ(t.node[s0].ports, 0);
    CHECK_EQ(topo_connect(&t, h0, s0, G10, 0, 0), RNIC_OK);
    /* a host with 2 links */
    REFUSED(topo_connect(&t, h0, s1, G10, 0, 0), RNIC_ESTATE, "already has its link");
    CHECK_EQ(t.n_links, 1);
    CHECK_EQ(t.node[s1].ports, 0);
    CHECK_EQ(t.node[h0].ports, 1);
    /* a host without a link */
    REFUSED(topo_finish(&t, &why), RNIC_EINVAL, "'h1' has no links");
    CHECK(has(why, "h1"));
    CHECK_EQ(topo_connect(&t, h1, s1, G10, 0, 0), RNIC_OK);
    /* two pieces: {h0, s0} and {h1, s1} */
    n_links = t.n_links;
    REFUSED(topo_finish(&t, &why), RNIC_EINVAL, "not connected");
    CHECK(!topo_finished(&t));
    CHECK_EQ(t.n_links, n_links);
    CHECK_EQ(t.n_nodes, 4);
    CHECK_EQ(topo_route_count(&t, s0, 1), 0);
    /* builders need an empty topo */
    REFUSED(topo_star(&t, 4, G10, 0), RNIC_ESTATE, "empty topo");
    CHECK_EQ(t.n_nodes, 4);
    /* port limit */
    REFUSED(topo_set_port_limit(&t, 0), RNIC_ERANGE, "port limit");
    REFUSED(topo_set_port_limit(&t, TOPO_MAX_PORTS + 1), RNIC_ERANGE, "port limit");
    CHECK_EQ(topo_set_port_limit(&t, 2), RNIC_OK);
    CHECK_EQ(topo_connect(&t, s0, s1, G10, 0, 0), RNIC_OK); /* the pieces joined: s0, s1 full */
    CHECK_EQ(topo_finish(&t, &why), RNIC_OK);
    CHECK_EQ(topo_path_hops(&t, 0, 1), 2);
    REFUSED(topo_connect(&t, s0, s1, G10, 0, 0), RNIC_ERANGE, "no free port");
    CHECK(topo_finished(&t)); /* a refused change keeps the routes */
    REFUSED(topo_set_port_limit(&t, 1), RNIC_ERANGE, "more ports than the new limit");
    CHECK_EQ(t.port_limit, 2);
    topo_free(&t);

    /* a refused builder leaves the topo empty and usable */
    topo_init(&t);
    refusals = 0;
    CHECK_EQ(topo_set_port_limit(&t, 4), RNIC_OK);
    REFUSED(topo_star(&t, 5, G10, 0), RNIC_ERANGE, "more hosts than switch ports");
    REFUSED(topo_fat_tree(&t, 6, G10, 0), RNIC_ERANGE, "port limit");
    REFUSED(topo_leaf_spine(&t, 2, 2, 3, G10, G10, 0), RNIC_ERANGE, "port limit");
    CHECK_EQ(t.n_nodes, 0);
    CHECK_EQ(topo_fat_tree(&t, 4, G10, 0), RNIC_OK);
    CHECK_EQ(t.n_hosts, 16);
    topo_free(&t);
#undef REFUSED
    /* NULL */
    CHECK_EQ(topo_connect(NULL, 0, 1, G10, 0, 0), RNIC_EINVAL);
    CHECK_EQ(topo_finish(NULL, &why), RNIC_EINVAL);
    CHECK_EQ(topo_add_host(NULL, "a"), TOPO_NONE);
    CHECK_EQ(topo_route_count(NULL, 0, 0), 0);
    CHECK_EQ(topo_find(NULL, "a"), TOPO_NONE);
    (void)h1;
}

/* ---- memory ---- */

static void test_route_memory(void)
{
    uint32_t k;
    for (k = 8; k <= 16; k += 8) {
        topo t;
        uint64_t naive;
        topo_init(&t);
        CHECK_EQ(topo_fat_tree(&t, k, G100, 500), RNIC_OK);
        /* a table with an offset + count (8 bytes) for every (switch, host) pair */
        naive = (uint64_t)t.n_switches * t.n_hosts * 8;
        CHECK(topo_route_bytes(&t) > 0);
        CHECK(topo_route_bytes(&t) * 4 <= naive);
        CHECK(topo_bytes(&t) > topo_route_bytes(&t));
        printf("  fat-tree k=%u: %u hosts, %u switches, %u links: routes %llu bytes (%llu per host), "
               "topology %llu bytes; a per-(switch, host) offset+count table: %llu bytes\n",
               k, t.n_hosts, t.n_switches, t.n_links, (unsigned long long)topo_route_bytes(&t),
               (unsigned long long)(topo_route_bytes(&t) / t.n_hosts), (unsigned long long)topo_bytes(&t),
               (unsigned long long)naive);
        topo_free(&t);
    }
}

int main(void)
{
    seed = test_seed(30);
    RUN(test_fat_tree_structure);
    RUN(test_fat_tree_routes);
    RUN(test_leaf_spine);
    RUN(test_star);
    RUN(test_dumbbell);
    RUN(test_random_graphs_floyd_warshall);
    RUN(test_ecmp_spread);
    RUN(test_flow_hash_reference);
    RUN(test_explicit_by_name);
    RUN(test_bad_input);
    RUN(test_route_memory);
    return test_summary();
}
