/* examples/rnic_model/fabric.h: the fabric's event scheduler. Random networks of stations
 * (bounded input queues, a service time per record, routing by the record, sources with their
 * own arrival times, back-pressure when a neighbour's queue is full) run three ways: the event
 * scheduler, the same fabric ticking every node every cycle, and an independent reference loop
 * written here (every cycle, every station, lowest index first, a station that receives a
 * record or frees room runs again in the same cycle). Every delivery with its cycle is folded
 * into a digest; the three must agree, and the event scheduler must run far fewer nodes.
 * A negative control: a station that relies on being woken when room frees, with the wake
 * left out, must diverge (the check can fail). Plus bad input, and a calendar property test
 * against a sorted reference. */
#include "../examples/rnic_model/fabric.h"
#include "test.h"

#define MAX_ST 48u
#define QCAP 8u

typedef struct rec {
    uint32_t id, hops, born;
} rec;

typedef struct net_s net_s;

typedef struct station {
    net_s *net;
    uint32_t index, fab_id;
    uint64_t now;
    rec q[QCAP];
    uint32_t head, count;
    int busy;                 /* a record in service */
    rec cur;
    uint64_t done_at;         /* its service ends (it may leave from this cycle on) */
    uint64_t gen_next;        /* the source's next arrival, RNIC_NEVER when not a source */
    uint32_t gen_left, gen_seq;
    uint32_t out[4], n_out;   /* neighbours */
    uint32_t in[MAX_ST], n_in; /* stations that feed this one (woken when room frees) */
    uint64_t prng;
} station;

struct net_s {
    station st[MAX_ST];
    uint32_t n;
    fabric f;
    int use_fabric;           /* 0: the reference loop drives the stations */
    int wake_on_room;         /* 1: a blocked station waits for its neighbour's wake */
    int forget_wake;          /* negative control: the wake on room is left out */
    uint64_t digest, delivered, moved;
    /* the reference loop's own active set */
    uint8_t ref_active[MAX_ST];
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint32_t svc_time(const rec *r) { return 1u + (r->id * 2654435761u >> 28) % 7u; }

static void note(net_s *n, uint64_t t, uint32_t from, uint32_t to, const rec *r)
{
    n->digest = mix(mix(mix(n->digest, t), ((uint64_t)from << 32) | to), ((uint64_t)r->id << 32) | r->hops);
}

static void wake(net_s *n, uint32_t i)
{
    if (n->use_fabric)
        fab_wake(&n->f, n->st[i].fab_id);
    else
        n->ref_active[i] = 1;
}

static void st_advance_to(void *self, uint64_t cycle)
{
    station *s = (station *)self;
    if (cycle > s->now)
        s->now = cycle;
}

static int st_room(const station *s) { return s->count < QCAP; }

static void st_enqueue(station *s, const rec *r)
{
    s->q[(s->head + s->count) % QCAP] = *r;
    s->count++;
}

static void st_run(void *self, uint64_t t)
{
    station *s = (station *)self;
    net_s *n = s->net;
    int moved = 1;
    while (moved) {
        moved = 0;
        /* a finished record leaves: delivered when its hops are used up, else to a neighbour */
        if (s->busy && s->done_at <= t) {
            if (s->cur.hops == 0 || s->n_out == 0) {
                note(n, t, s->index, UINT32_MAX, &s->cur);
                n->delivered++;
                s->busy = 0;
                moved = 1;
            } else {
                uint32_t to = s->out[(s->cur.id + s->cur.hops) % s->n_out];
                station *d = &n->st[to];
                if (n->use_fabric)
                    fab_bring(&n->f, d->fab_id, t);
                if (st_room(d)) {
                    rec r = s->cur;
                    r.hops--;
                    st_enqueue(d, &r);
                    note(n, t, s->index, to, &r);
                    n->moved++;
                    s->busy = 0;
                    moved = 1;
                    wake(n, to);
                }
            }
        }
        /* an idle server takes the head of its queue: room frees for the stations feeding it */
        if (!s->busy && s->count) {
            uint32_t k;
            s->cur = s->q[s->head];
            s->head = (s->head + 1u) % QCAP;
            s->count--;
            s->busy = 1;
            s->done_at = t + svc_time(&s->cur);
            moved = 1;
            if (n->wake_on_room && !n->forget_wake)
                for (k = 0; k < s->n_in; k++)
                    wake(n, s->in[k]);
        }
        /* the source: one arrival at its cycle, when there is room (else it waits) */
        if (s->gen_left && s->gen_next <= t && st_room(s)) {
            rec r;
            r.id = s->index * 100000u + s->gen_seq++;
            r.hops = (uint32_t)(rnic_splitmix64(&s->prng) % 6u);
            r.born = (uint32_t)t;
            st_enqueue(s, &r);
            note(n, t, UINT32_MAX, s->index, &r);
            s->gen_left--;
            s->gen_next = s->gen_left ? t + 1u + rnic_splitmix64(&s->prng) % 40u : RNIC_NEVER;
            moved = 1;
        }
    }
}

static uint64_t st_next_event(const void *self)
{
    const station *s = (const station *)self;
    uint64_t next = RNIC_NEVER;
    if (s->busy) {
        if (s->done_at > s->now)
            next = s->done_at;
        else /* finished, its neighbour full: polled, or woken when room frees */
            next = s->net->wake_on_room ? RNIC_NEVER : s->now;
    }
    if (s->gen_left && s->gen_next < next)
        next = s->gen_next > s->now ? s->gen_next : (s->net->wake_on_room ? next : s->now);
    return next;
}

static const fab_node_ops station_ops = { st_advance_to, st_run, st_next_event, NULL };

static void build(net_s *n, uint64_t seed, uint32_t count)
{
    uint32_t i, k;
    uint64_t p = seed;
    memset(n, 0, sizeof *n);
    n->n = count;
    for (i = 0; i < count; i++) {
        station *s = &n->st[i];
        s->net = n;
        s->index = i;
        s->prng = rnic_splitmix64(&p);
        s->n_out = 1u + (uint32_t)(rnic_splitmix64(&p) % 3u);
        for (k = 0; k < s->n_out; k++)
            s->out[k] = (uint32_t)(rnic_splitmix64(&p) % count);
        s->gen_left = (rnic_splitmix64(&p) % 3u) ? 20u + (uint32_t)(rnic_splitmix64(&p) % 60u) : 0u;
        s->gen_next = s->gen_left ? rnic_splitmix64(&p) % 50u : RNIC_NEVER;
    }
    for (i = 0; i < count; i++)
        for (k = 0; k < n->st[i].n_out; k++) {
            station *d = &n->st[n->st[i].out[k]];
            uint32_t j, seen = 0;
            for (j = 0; j < d->n_in; j++)
                seen |= d->in[j] == i;
            if (!seen)
                d->in[d->n_in++] = i;
        }
}

static uint64_t run_fabric(net_s *n, int tick_only, uint64_t end, fab_stats *stats)
{
    fab_config c;
    uint32_t i;
    memset(&c, 0, sizeof c);
    c.max_nodes = n->n;
    c.tick_only = tick_only;
    n->use_fabric = 1;
    if (fab_init(&n->f, &c) != RNIC_OK)
        return 0;
    for (i = 0; i < n->n; i++)
        n->st[i].fab_id = fab_add(&n->f, &station_ops, &n->st[i]);
    fab_run_until(&n->f, end);
    *stats = n->f.stats;
    fab_free(&n->f);
    return n->digest;
}

/* The reference: every cycle, every station; the lowest-numbered active station runs next, a
 * station that gets a record or frees room is active again. */
static uint64_t run_reference(net_s *n, uint64_t end)
{
    uint64_t t;
    uint32_t i;
    n->use_fabric = 0;
    for (t = 0; t < end; t++) {
        for (i = 0; i < n->n; i++)
            n->ref_active[i] = 1;
        for (;;) {
            for (i = 0; i < n->n && !n->ref_active[i]; i++)
                ;
            if (i == n->n)
                break;
            n->ref_active[i] = 0;
            st_advance_to(&n->st[i], t);
            st_run(&n->st[i], t);
        }
    }
    return n->digest;
}

static void test_three_ways_agree(void)
{
    uint64_t seed = test_seed(0xfab51c0ull);
    uint32_t w, mode, diverged = 0;
    uint64_t runs_event[2] = { 0, 0 }, runs_tick[2] = { 0, 0 }, delivered = 0, polls = 0, wakes = 0;
    static net_s a, b, r;
    for (w = 0; w < 60; w++) {
        uint64_t ws = rnic_splitmix64(&seed), end = 3000u + ws % 2000u;
        uint32_t count = 2u + (uint32_t)(ws >> 20) % (MAX_ST - 2u);
        for (mode = 0; mode < 2; mode++) {
            fab_stats sa, sb;
            uint64_t da, db, dr;
            build(&a, ws, count);
            build(&b, ws, count);
            build(&r, ws, count);
            a.wake_on_room = b.wake_on_room = r.wake_on_room = (int)mode;
            da = run_fabric(&a, 0, end, &sa);
            db = run_fabric(&b, 1, end, &sb);
            dr = run_reference(&r, end);
            CHECK_EQ(da, dr);
            CHECK_EQ(db, dr);
            CHECK_EQ(a.delivered, r.delivered);
            CHECK_EQ(a.moved, r.moved);
            diverged += da != dr || db != dr;
            runs_event[mode] += sa.runs;
            runs_tick[mode] += sb.runs;
            delivered += a.delivered + a.moved;
            polls += sa.polls;
            wakes += sa.wakes;
        }
    }
    printf("  120 networks: %u diverged; %llu records moved or delivered; %llu polls of blocked stations, "
           "%llu wakes\n", (unsigned)diverged, (unsigned long long)delivered, (unsigned long long)polls,
           (unsigned long long)wakes);
    for (mode = 0; mode < 2; mode++)
        printf("  %s: node runs, event %llu, tick %llu (%.1fx fewer)\n",
               mode ? "blocked stations woken when room frees" : "blocked stations polled every cycle",
               (unsigned long long)runs_event[mode], (unsigned long long)runs_tick[mode],
               (double)runs_tick[mode] / (double)(runs_event[mode] ? runs_event[mode] : 1));
    CHECK(delivered > 10000u);
    /* the scheduler visits only what has work: polling a blocked output costs, waking does not */
    CHECK(runs_event[0] < runs_tick[0]);
    CHECK(runs_event[1] * 10u < runs_tick[1]);
    CHECK(polls > 0u && wakes > 0u);    /* both ways a blocked station resumes were exercised */
}

/* The negative control: with the wake on room left out, a station blocked on a full neighbour
 * sleeps forever in event mode, and the digests must differ on some network. */
static void test_missing_wake_is_caught(void)
{
    uint64_t seed = 0x5eedull;
    uint32_t w, differ = 0;
    static net_s a, r;
    for (w = 0; w < 20; w++) {
        uint64_t ws = rnic_splitmix64(&seed);
        fab_stats sa;
        build(&a, ws, 24);
        build(&r, ws, 24);
        a.wake_on_room = r.wake_on_room = 1;
        a.forget_wake = r.forget_wake = 1;
        differ += run_fabric(&a, 0, 4000, &sa) != run_reference(&r, 4000);
    }
    printf("  without the wake on room: %u of 20 networks diverge\n", (unsigned)differ);
    CHECK(differ > 0u);
}

/* The calendar alone: random schedule / remove / pop against a sorted array. */
static int nop_runs;
static void nop_advance(void *self, uint64_t c) { (void)self; (void)c; }
static void nop_run(void *self, uint64_t c) { (void)self; (void)c; nop_runs++; }
static uint64_t nop_next(const void *self) { (void)self; return RNIC_NEVER; }
static const fab_node_ops nop_ops = { nop_advance, nop_run, nop_next, NULL };

static void test_calendar_order(void)
{
    static fabric f;
    fab_config c;
    uint64_t seed = test_seed(0xca1e7dull), due[64];
    uint32_t i, step, bad = 0;
    memset(&c, 0, sizeof c);
    c.max_nodes = 64;
    CHECK(fab_init(&f, &c) == RNIC_OK);
    for (i = 0; i < 64; i++)
        CHECK(fab_add(&f, &nop_ops, NULL) == i);
    for (i = 0; i < 64; i++)
        due[i] = f.node[i].due;
    for (step = 0; step < 20000; step++) {
        uint32_t id = (uint32_t)(rnic_splitmix64(&seed) % 64u), best = RNIC_NONE, k;
        /* near (the wheel) and far (the heap behind it) */
        uint64_t d = rnic_splitmix64(&seed) % 8u == 0 ? RNIC_NEVER : rnic_splitmix64(&seed) % (3u * FAB_WHEEL);
        fab__schedule(&f, id, d);
        due[id] = d;
        for (k = 0; k < 64; k++)
            if (due[k] != RNIC_NEVER && (best == RNIC_NONE || due[k] < due[best]))
                best = k; /* lowest due, lowest id on a tie */
        if (fab_first_due(&f) != best || fab_next_event(&f) != (best == RNIC_NONE ? RNIC_NEVER : due[best]))
            bad++;
    }
    CHECK_EQ(bad, 0);
    fab_free(&f);
}

/* Timers far apart: each node is due at its own random cycles, gaps of 1 cycle to 3 wheel
 * turns (the wheel and the heap behind it, across many wraps); every node must run exactly at
 * its due cycles, in id order within a cycle. */
typedef struct timer_node {
    uint32_t id, next, count, fired;
    uint64_t due[64];
    uint64_t *log;      /* (cycle << 16 | id) of every run, shared */
    uint32_t *log_n;
} timer_node;
static void tm_advance(void *self, uint64_t c) { (void)self; (void)c; }
static void tm_run(void *self, uint64_t t)
{
    timer_node *x = (timer_node *)self;
    x->log[(*x->log_n)++] = t << 16 | x->id;
    if (x->next < x->count && x->due[x->next] == t)
        x->next++;
    x->fired++;
}
static uint64_t tm_next(const void *self)
{
    const timer_node *x = (const timer_node *)self;
    return x->next < x->count ? x->due[x->next] : RNIC_NEVER;
}
static const fab_node_ops timer_ops = { tm_advance, tm_run, tm_next, NULL };

static int u64_less(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_timers_across_wheel_turns(void)
{
    static fabric f;
    static timer_node node[40];
    static uint64_t log[40 * 66], want[40 * 66];
    uint32_t log_n = 0, want_n = 0, i, k;
    uint64_t seed = test_seed(0x71e3ull);
    fab_config c;
    memset(&c, 0, sizeof c);
    c.max_nodes = 40;
    CHECK(fab_init(&f, &c) == RNIC_OK);
    for (i = 0; i < 40; i++) {
        uint64_t t = 0;
        node[i].id = i;
        node[i].log = log;
        node[i].log_n = &log_n;
        node[i].count = 1u + (uint32_t)(rnic_splitmix64(&seed) % 64u);
        want[want_n++] = (uint64_t)0 << 16 | i; /* every node runs at the first cycle */
        for (k = 0; k < node[i].count; k++) {
            uint64_t r = rnic_splitmix64(&seed);
            t += 1u + (r % 4u == 0 ? r % (3u * FAB_WHEEL) : r % 16u); /* mostly near, some far */
            node[i].due[k] = t;
            want[want_n++] = t << 16 | i;
        }
        CHECK(fab_add(&f, &timer_ops, &node[i]) == i);
    }
    fab_run_until(&f, 64u * 3u * FAB_WHEEL + 1u);
    qsort(want, want_n, sizeof want[0], u64_less); /* by cycle, then id: the order runs must take */
    CHECK_EQ(log_n, want_n);
    for (i = 0; i < log_n && i < want_n; i++)
        if (log[i] != want[i]) {
            printf("  run %u: cycle %llu node %u, want cycle %llu node %u\n", (unsigned)i,
                   (unsigned long long)(log[i] >> 16), (unsigned)(log[i] & 0xffffu),
                   (unsigned long long)(want[i] >> 16), (unsigned)(want[i] & 0xffffu));
            CHECK(0);
            break;
        }
    CHECK_EQ(fab_next_event(&f), RNIC_NEVER);
    fab_free(&f);
}

static void test_bad_input(void)
{
    static fabric f;
    fab_config c;
    memset(&c, 0, sizeof c);
    CHECK(fab_init(NULL, &c) == RNIC_EINVAL);
    CHECK(fab_init(&f, NULL) == RNIC_EINVAL);
    CHECK(fab_init(&f, &c) == RNIC_ERANGE); /* zero nodes */
    c.max_nodes = (1u << 24) + 1u;
    CHECK(fab_init(&f, &c) == RNIC_ERANGE);
    c.max_nodes = 2;
    CHECK(fab_init(&f, &c) == RNIC_OK);
    CHECK(fab_add(&f, NULL, NULL) == RNIC_NONE);
    CHECK(fab_add(&f, &nop_ops, NULL) == 0);
    CHECK(fab_add(&f, &nop_ops, NULL) == 1);
    CHECK(fab_add(&f, &nop_ops, NULL) == RNIC_NONE); /* full */
    CHECK_EQ(f.n, 2);
    fab_wake(&f, 7); /* unknown id: ignored, nothing changes */
    fab_bring(&f, 7, 10);
    nop_runs = 0;
    CHECK_EQ(fab_run_until(&f, 100), 100);
    CHECK_EQ(nop_runs, 2); /* each node once at the first cycle, then never (RNIC_NEVER) */
    CHECK(fab_next_event(&f) == RNIC_NEVER);
    fab_free(&f);
}

int main(void)
{
    RUN(test_bad_input);
    RUN(test_calendar_order);
    RUN(test_timers_across_wheel_turns);
    RUN(test_three_ways_agree);
    RUN(test_missing_wake_is_caught);
    return test_summary();
}
