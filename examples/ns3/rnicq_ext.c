/* rnicq_ext.c -- rnicq_ext.h's library: fm_ext.h (examples/rnic_model) behind a C API with frames
 * packed field by field, so that a C++ simulator (ns-3: rnicq-ns3.h) links the composed RNIC's
 * fabric without compiling its C headers. Build: cc -std=c99 -O2 -I. -Iexamples/rnic_model -c
 * examples/ns3/rnicq_ext.c (with -I/usr/include/stb; link -lstb -lm). */
#define _POSIX_C_SOURCE 200809L
/* the model's headers are static functions for one program: this library uses a part of them */
#pragma GCC diagnostic ignored "-Wunused-function"
#define RNIC_IMPLEMENTATION
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "fm_ext.h"
#include "rnicq_ext.h"

struct rnicq_ext {
    fm_ext x;
    scn s;
    rnicq_ext_send_fn send;
    void *user;
    rnicq_ext_flow_fn flow_fn;
    void *flow_user;
};

/* Little-endian fields: a copy on a little-endian host (every frame goes through here twice) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RNICQ_EXT_LE 1
#else
#define RNICQ_EXT_LE 0
#endif
static inline void put32(uint8_t **p, uint32_t v)
{
    uint32_t i;
    if (RNICQ_EXT_LE)
        memcpy(*p, &v, 4), *p += 4;
    else
        for (i = 0; i < 4u; i++)
            *(*p)++ = (uint8_t)(v >> (8u * i));
}
static inline void put64(uint8_t **p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p, (uint32_t)(v >> 32));
}
static inline uint32_t get32(const uint8_t **p)
{
    uint32_t v = 0, i;
    if (RNICQ_EXT_LE) {
        memcpy(&v, *p, 4), *p += 4;
        return v;
    }
    for (i = 0; i < 4u; i++)
        v |= (uint32_t)*(*p)++ << (8u * i);
    return v;
}
static inline uint64_t get64(const uint8_t **p)
{
    uint64_t lo = get32(p);
    return lo | (uint64_t)get32(p) << 32;
}

static void pack(const fm_frame *f, uint8_t *b)
{
    const rnic_work *w = &f->p.w;
    put64(&b, w->cycle);
    put64(&b, w->addr);
    put64(&b, w->raddr);
    put64(&b, w->tag);
    put32(&b, w->flow);
    put32(&b, w->index);
    put32(&b, w->offset);
    put32(&b, w->len);
    put32(&b, w->flags);
    put32(&b, w->op);
    put32(&b, (uint32_t)w->status);
    put32(&b, w->aux);
    put32(&b, f->p.src);
    put32(&b, f->p.dst);
    put32(&b, f->p.wire_bytes);
    put32(&b, f->p.ecn);
    put32(&b, f->p.trimmed);
    put32(&b, f->p.in_port);
    put32(&b, f->p.control);
    put64(&b, f->at);
    put64(&b, f->seq);
    put32(&b, f->kind);
    put32(&b, f->value);
}

static void unpack(const uint8_t *b, fm_frame *f)
{
    rnic_work *w = &f->p.w;
    memset(f, 0, sizeof *f);
    w->cycle = get64(&b);
    w->addr = get64(&b);
    w->raddr = get64(&b);
    w->tag = get64(&b);
    w->flow = get32(&b);
    w->index = get32(&b);
    w->offset = get32(&b);
    w->len = get32(&b);
    w->flags = get32(&b);
    w->op = get32(&b);
    w->status = (int32_t)get32(&b);
    w->aux = get32(&b);
    f->p.src = get32(&b);
    f->p.dst = get32(&b);
    f->p.wire_bytes = get32(&b);
    f->p.ecn = get32(&b);
    f->p.trimmed = get32(&b);
    f->p.in_port = get32(&b);
    f->p.control = get32(&b);
    f->at = get64(&b);
    f->seq = get64(&b);
    f->kind = get32(&b);
    f->value = get32(&b);
}

uint64_t rnicq_ext_frame_at(const uint8_t *frame)
{
    const uint8_t *b = frame + 92;
    return get64(&b);
}

static void on_send(void *user, uint32_t wire, const fm_frame *fr)
{
    rnicq_ext *r = (rnicq_ext *)user;
    uint8_t b[RNICQ_EXT_FRAME_BYTES];
    pack(fr, b);
    r->send(r->user, wire, b, fr->at, fr->kind == FM_FRAME_DATA ? fr->p.wire_bytes : 0u);
}

rnicq_ext *rnicq_ext_open(const char *scenario_file, const char *const *keys, size_t nkeys, uint32_t ranks,
                          uint32_t rank, rnicq_ext_send_fn send, void *user, char *err, size_t errlen)
{
    rnicq_ext *r = (rnicq_ext *)calloc(1, sizeof *r);
    scn_error e;
    size_t i;
    if (!r || !send || !ranks || rank >= ranks) {
        snprintf(err, errlen, "%s", !r ? "no memory" : !send ? "no send function" : "rank out of range");
        free(r);
        return NULL;
    }
    scn_config_default(&r->s);
    if (scenario_file && scn_parse_file(&r->s, scenario_file, &e) != SCN_OK)
        goto bad;
    for (i = 0; i < nkeys; i++) {
        char key[128];
        const char *eq = strchr(keys[i], '=');
        size_t len = eq ? (size_t)(eq - keys[i]) : 0;
        if (!eq || !len || len >= sizeof key) {
            snprintf(err, errlen, "'%s': expected section.key=value", keys[i]);
            scn_free(&r->s);
            free(r);
            return NULL;
        }
        memcpy(key, keys[i], len);
        key[len] = '\0';
        if (scn_set(&r->s, key, eq + 1, &e) != SCN_OK)
            goto bad;
    }
    if (scn_validate(&r->s, &e) != SCN_OK)
        goto bad;
    r->send = send;
    r->user = user;
    fm_ext_init(&r->x, &r->s, ranks, rank, on_send, r, NULL, 0, NULL);
    return r;
bad:
    snprintf(err, errlen, "%s", e.message);
    scn_free(&r->s);
    free(r);
    return NULL;
}

void rnicq_ext_close(rnicq_ext *r)
{
    if (!r)
        return;
    fm_ext_free(&r->x);
    scn_free(&r->s);
    free(r);
}

static void on_job_done(void *user, uint32_t job)
{
    rnicq_ext *r = (rnicq_ext *)user;
    const fm_world *w = &r->x.m.w;
    const fm_job *j = &w->job[job];
    uint64_t done_ns = fm__ns_of(w, w->rmjob[job].done);
    r->flow_fn(r->flow_user, job, j->src, j->dst, j->size, j->start_ns, done_ns - j->start_ns);
}

void rnicq_ext_on_flow_done(rnicq_ext *r, rnicq_ext_flow_fn fn, void *user)
{
    fm_world *w = &r->x.m.w;
    uint32_t h;
    r->flow_fn = fn;
    r->flow_user = user;
    for (h = 0; h < w->hosts; h++)
        if (w->nic[h].w) {
            w->nic[h].host.on_job_done = fn ? on_job_done : NULL;
            w->nic[h].host.job_user = r;
        }
}

uint64_t rnicq_ext_clock_hz(const rnicq_ext *r) { return r->x.m.w.p.clock_hz; }
uint32_t rnicq_ext_hosts(const rnicq_ext *r) { return r->x.m.w.hosts; }
uint32_t rnicq_ext_switches(const rnicq_ext *r) { return r->x.m.w.switches; }
uint32_t rnicq_ext_rank_of(const rnicq_ext *r, uint32_t node) { return node < r->x.nodes ? r->x.rank_of[node] : 0; }

static uint32_t topo_node_of(const rnicq_ext *r, uint32_t node)
{
    const topo *t = &r->x.m.t;
    return node < t->n_hosts ? topo_host_node(t, node) : topo_switch_node(t, node - t->n_hosts);
}

uint32_t rnicq_ext_ports(const rnicq_ext *r, uint32_t node)
{
    return node < r->x.nodes ? r->x.m.t.node[topo_node_of(r, node)].ports : 0;
}

const char *rnicq_ext_node_name(const rnicq_ext *r, uint32_t node)
{
    return node < r->x.nodes ? r->x.m.t.node[topo_node_of(r, node)].name : "";
}

uint32_t rnicq_ext_wires(const rnicq_ext *r) { return r->x.nwires; }

void rnicq_ext_wire(const rnicq_ext *r, uint32_t w, uint32_t *from, uint32_t *from_port, uint32_t *to,
                    uint32_t *to_port, uint64_t *prop_cycles, uint64_t *rate_bps)
{
    const fm_ext_wire *wi = &r->x.wire[w < r->x.nwires ? w : 0];
    *from = wi->from;
    *from_port = wi->from_port;
    *to = wi->to;
    *to_port = wi->to_port;
    *prop_cycles = wi->prop;
    *rate_bps = wi->rate_bps;
}

uint32_t rnicq_ext_wire_of(const rnicq_ext *r, uint32_t node, uint32_t port)
{
    if (node >= r->x.nodes || port >= rnicq_ext_ports(r, node))
        return UINT32_MAX;
    return node < r->x.m.w.hosts ? r->x.nic_wire[node] : r->x.sw_wire[node - r->x.m.w.hosts][port];
}

uint64_t rnicq_ext_next(const rnicq_ext *r) { return fm_ext_next(&r->x); }
int rnicq_ext_at_boundary(const rnicq_ext *r, uint64_t t) { return fm_ext_at_boundary(&r->x, t); }
void rnicq_ext_cycle(rnicq_ext *r, uint64_t t) { fm_ext_cycle(&r->x, t); }
void rnicq_ext_boundary_local(rnicq_ext *r, uint64_t *v) { fm_ext_boundary_local(&r->x, v); }
void rnicq_ext_boundary_done(rnicq_ext *r, const uint64_t *v) { fm_ext_boundary_done(&r->x, v); }

int rnicq_ext_arrive(rnicq_ext *r, uint32_t wire, const uint8_t *frame)
{
    fm_frame f;
    uint64_t before = r->x.errors;
    unpack(frame, &f);
    if (f.kind > FM_FRAME_HOST_PAUSE) {
        r->x.errors++;
        return -1;
    }
    fm_ext_arrive(&r->x, wire, &f);
    return r->x.errors == before ? 0 : -1;
}

size_t rnicq_ext_results_len(const rnicq_ext *r) { return fm_ext_results_len(&r->x); }
void rnicq_ext_results_local(rnicq_ext *r, uint64_t *v) { fm_ext_results_local(&r->x, v); }
uint64_t rnicq_ext_results_report(rnicq_ext *r, const uint64_t *sum, const char *name, const char *fct_csv,
                                  uint64_t refused_max)
{
    return fm_ext_results_report(&r->x, sum, name, fct_csv, refused_max);
}
uint64_t rnicq_ext_refused_max(const rnicq_ext *r) { return r->x.refused_max; }
uint64_t rnicq_ext_late(const rnicq_ext *r) { return r->x.link.late; }
int rnicq_ext_drained(const rnicq_ext *r) { return r->x.drained; }
