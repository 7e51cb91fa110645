/* fabric.h -- the composed RNIC's one event scheduler (issue 30; docs/fabric_model.md).
 *
 * A fabric is a set of nodes (NICs, switches, anything with the engine contract's time
 * behaviour) that move records to each other. The scheduler keeps each node's due cycle in a
 * calendar; at cycle t it runs every node that is due at t or was woken at t, lowest id first,
 * until none is left, then jumps to the next due cycle. A node runs when a record reaches one of
 * its inputs (the producer calls fab_wake) or at its own next event, and nothing else is
 * polled. The calendar is a timing wheel of FAB_WHEEL one-cycle buckets (a node due within
 * FAB_WHEEL cycles sits in its cycle's bucket: O(1) to put in, take out or move) with a
 * (due, id) min-heap behind it for later cycles, and the nodes active in the current cycle are
 * a three-level bitmap over their ids (O(1) to add, lowest id found with three word scans), so
 * the cost of an event does not grow with the number of nodes: most nodes are due again within
 * a few cycles, and none of that touches a heap.
 *
 * The same fabric can tick every node every cycle (fab_config.tick_only): every node is
 * active at every cycle, processed in the same id order. The two modes give identical results
 * when each node keeps the contract below, and tests/test_fabric.c checks that on random
 * networks (a run's digest, every record with its cycle).
 *
 * The node contract (fab_node_ops):
 *   advance_to(self, c)  execute the node's own cycles up to c - 1 (c >= its now); nothing
 *                        observable may happen that next_event did not announce
 *   run(self, t)         at cycle t (after advance_to(t)): move what can move -- take records
 *                        from its inputs, hand its outputs to neighbours (waking them with
 *                        fab_wake). Running a node that is neither due nor woken must change
 *                        nothing (tick-only mode does it every cycle)
 *   next_event(self)     the earliest cycle > now... at which the node has its own work, or
 *                        RNIC_NEVER. A node that answers a cycle <= t after its run at t (it
 *                        still holds a record its neighbour had no room for) is visited again
 *                        at t + 1: a blocked output is polled cycle by cycle until it moves,
 *                        unless the neighbour wakes it when room frees (preferred).
 * A node pushing into a neighbour at cycle t calls fab_bring(f, id, t) first, so the neighbour
 * has executed every cycle before t when the record arrives.
 *
 * API:
 *   rnic_err fab_init(fabric *f, const fab_config *c);  allocates c->max_nodes slots (RNIC_ENOSPC: no memory)
 *   void     fab_free(fabric *f);
 *   uint32_t fab_add(fabric *f, const fab_node_ops *ops, void *self);  node id, RNIC_NONE when full
 *   void     fab_wake(fabric *f, uint32_t id);        run node id (again) in the current cycle
 *   void     fab_bring(fabric *f, uint32_t id, uint64_t cycle);   advance node id to cycle
 *   void     fab_wake_at(fabric *f, uint32_t id, uint64_t cycle); between cycles: node id is due at
 *                                                    `cycle` at the latest (a record reaches it from
 *                                                    outside the fabric: fm_ext.h's links)
 *   uint64_t fab_run_until(fabric *f, uint64_t end);  run every cycle < end; returns the fabric's now
 *   uint64_t fab_next_event(const fabric *f);         the earliest due cycle, RNIC_NEVER when idle
 *   uint32_t fab_first_due(const fabric *f);         the node due first (lowest id on a tie), RNIC_NONE
 * Hosted example code: fab_init allocates, nothing else does; no floating point. */
#ifndef RNIC_FABRIC_H
#define RNIC_FABRIC_H
#include "../../ratelimit.h" /* the rnicq common core: rnic_err, RNIC_NEVER, RNIC_NONE */
#include <stdlib.h>
#include <string.h>

typedef struct fab_node_ops {
    void (*advance_to)(void *self, uint64_t cycle);
    void (*run)(void *self, uint64_t cycle);
    uint64_t (*next_event)(const void *self);
    /* optional: the scheduler's "advance to t, then run at t" in one call, for a node that can
     * do it more cheaply than the two (a NIC whose host model alone is due: fm_nic.h). NULL:
     * advance_to, then run. fab_bring always uses advance_to. */
    void (*step)(void *self, uint64_t cycle);
} fab_node_ops;

typedef struct fab_config {
    uint32_t max_nodes; /* slots allocated by fab_init */
    int tick_only;      /* 1: every node every cycle (the event scheduler's oracle) */
    uint64_t start_cycle;
} fab_config;

typedef struct fab_stats {
    uint64_t cycles_visited; /* cycles at which at least one node ran */
    uint64_t runs;           /* node runs */
    uint64_t wakes;          /* fab_wake calls that activated a node */
    uint64_t polls;          /* runs of a node whose output was still blocked (next_event <= t) */
} fab_stats;

typedef struct fab_node {
    const fab_node_ops *ops;
    void *self;
    uint64_t due;       /* its calendar key; RNIC_NEVER: not in the calendar */
    uint32_t cal_pos;   /* slot in the far heap, RNIC_NONE when absent */
    uint32_t prev, next; /* its wheel bucket's list (RNIC_NONE ends), while in_wheel */
    uint32_t in_wheel;  /* 1 while in a wheel bucket */
    uint32_t active;    /* 1 while in the current cycle's active set */
    uint32_t ran;       /* 1 when it ran this cycle (its due is recomputed after the cycle) */
} fab_node;

#define FAB_WHEEL 4096u /* one-cycle buckets of the near calendar (a power of two) */

typedef struct fabric {
    fab_config cfg;
    fab_node *node;
    uint32_t n;
    uint32_t *wheel;    /* FAB_WHEEL bucket heads: the nodes due at cycle c sit in c % FAB_WHEEL */
    uint64_t wheel_bits[FAB_WHEEL / 64u]; /* non-empty buckets */
    uint32_t wheel_n;   /* nodes in the wheel */
    uint32_t *cal;      /* the far calendar: a (due, id) min-heap of the nodes due later */
    uint32_t cal_n;
    uint64_t *act[3];   /* the current cycle's active set: bit id of level 0, word bits above */
    uint32_t act_n;
    uint32_t *done;     /* the nodes that ran this cycle */
    uint32_t done_n;
    uint64_t now;       /* the cycle being processed (or the next one) */
    int in_cycle;
    fab_stats stats;
} fabric;

static inline uint32_t fab__ctz(uint64_t x) { return (uint32_t)__builtin_ctzll(x); }

/* ---- the far calendar: (due, id) min-heap with positions ---- */
static inline int fab__cal_less(const fabric *f, uint32_t a, uint32_t b)
{
    uint64_t da = f->node[a].due, db = f->node[b].due;
    return da < db || (da == db && a < b);
}

static inline void fab__cal_set(fabric *f, uint32_t slot, uint32_t id)
{
    f->cal[slot] = id;
    f->node[id].cal_pos = slot;
}

static inline void fab__cal_up(fabric *f, uint32_t slot)
{
    uint32_t id = f->cal[slot];
    while (slot > 0) {
        uint32_t parent = (slot - 1u) / 2u;
        if (!fab__cal_less(f, id, f->cal[parent]))
            break;
        fab__cal_set(f, slot, f->cal[parent]);
        slot = parent;
    }
    fab__cal_set(f, slot, id);
}

static inline void fab__cal_down(fabric *f, uint32_t slot)
{
    uint32_t id = f->cal[slot];
    for (;;) {
        uint32_t c = 2u * slot + 1u;
        if (c >= f->cal_n)
            break;
        if (c + 1u < f->cal_n && fab__cal_less(f, f->cal[c + 1u], f->cal[c]))
            c++;
        if (!fab__cal_less(f, f->cal[c], id))
            break;
        fab__cal_set(f, slot, f->cal[c]);
        slot = c;
    }
    fab__cal_set(f, slot, id);
}

static inline void fab__cal_remove(fabric *f, uint32_t id)
{
    uint32_t slot = f->node[id].cal_pos, last;
    if (slot == RNIC_NONE)
        return;
    f->node[id].cal_pos = RNIC_NONE;
    last = f->cal[--f->cal_n];
    if (slot == f->cal_n)
        return;
    fab__cal_set(f, slot, last);
    fab__cal_up(f, slot);
    fab__cal_down(f, f->node[last].cal_pos);
}

/* ---- the near calendar: the wheel ---- */
static inline void fab__wheel_insert(fabric *f, uint32_t id)
{
    uint32_t b = (uint32_t)(f->node[id].due & (FAB_WHEEL - 1u)), head = f->wheel[b];
    fab_node *nd = &f->node[id];
    nd->prev = RNIC_NONE;
    nd->next = head;
    if (head != RNIC_NONE)
        f->node[head].prev = id;
    f->wheel[b] = id;
    f->wheel_bits[b >> 6] |= 1ull << (b & 63u);
    nd->in_wheel = 1;
    f->wheel_n++;
}

static inline void fab__wheel_remove(fabric *f, uint32_t id)
{
    fab_node *nd = &f->node[id];
    uint32_t b;
    if (!nd->in_wheel)
        return;
    b = (uint32_t)(nd->due & (FAB_WHEEL - 1u));
    if (nd->prev != RNIC_NONE)
        f->node[nd->prev].next = nd->next;
    else
        f->wheel[b] = nd->next;
    if (nd->next != RNIC_NONE)
        f->node[nd->next].prev = nd->prev;
    if (f->wheel[b] == RNIC_NONE)
        f->wheel_bits[b >> 6] &= ~(1ull << (b & 63u));
    nd->in_wheel = 0;
    f->wheel_n--;
}

/* The wheel's earliest bucket at or after `from` (every wheel node is due in [from, from +
 * FAB_WHEEL)); RNIC_NEVER when the wheel is empty. */
static inline uint64_t fab__wheel_first(const fabric *f, uint64_t from)
{
    uint32_t start = (uint32_t)(from & (FAB_WHEEL - 1u)), w = start >> 6, k;
    uint64_t bits;
    if (!f->wheel_n)
        return RNIC_NEVER;
    bits = f->wheel_bits[w] & (~0ull << (start & 63u));
    for (k = 0; k <= FAB_WHEEL / 64u; k++) {
        if (bits) {
            uint32_t b = (w << 6) + fab__ctz(bits);
            return from + ((b - start) & (FAB_WHEEL - 1u));
        }
        w = (w + 1u) & (FAB_WHEEL / 64u - 1u);
        bits = f->wheel_bits[w];
        if (w == start >> 6)
            bits &= (1ull << (start & 63u)) - 1u; /* wrapped: the buckets before `start` */
    }
    return RNIC_NEVER;
}

/* The far heap's nodes that came within the wheel's reach of cycle `from` move into it. */
static inline void fab__wheel_refill(fabric *f, uint64_t from)
{
    while (f->cal_n && f->node[f->cal[0]].due - from < FAB_WHEEL) {
        uint32_t id = f->cal[0];
        fab__cal_remove(f, id);
        fab__wheel_insert(f, id);
    }
}

/* Put node id in the calendar at `due` (RNIC_NEVER: take it out). */
static inline void fab__schedule(fabric *f, uint32_t id, uint64_t due)
{
    fab__wheel_remove(f, id);
    fab__cal_remove(f, id);
    if (due < f->now)
        due = f->now; /* the past is now: it runs at the next cycle processed */
    f->node[id].due = due;
    if (due == RNIC_NEVER)
        return;
    if (due - f->now < FAB_WHEEL) {
        fab__wheel_insert(f, id);
        return;
    }
    fab__cal_set(f, f->cal_n++, id);
    fab__cal_up(f, f->node[id].cal_pos);
}

/* ---- the active set of the current cycle: a three-level bitmap over ids ---- */
static inline void fab__act_push(fabric *f, uint32_t id)
{
    f->act[0][id >> 6] |= 1ull << (id & 63u);
    f->act[1][id >> 12] |= 1ull << ((id >> 6) & 63u);
    f->act[2][id >> 18] |= 1ull << ((id >> 12) & 63u);
    f->node[id].active = 1;
    f->act_n++;
}

static inline uint32_t fab__act_pop(fabric *f)
{
    uint32_t w2 = 0, w1, w0, id;
    while (!f->act[2][w2])
        w2++;
    w1 = (w2 << 6) + fab__ctz(f->act[2][w2]);
    w0 = (w1 << 6) + fab__ctz(f->act[1][w1]);
    id = (w0 << 6) + fab__ctz(f->act[0][w0]);
    f->act[0][w0] &= f->act[0][w0] - 1u;
    if (!f->act[0][w0]) {
        f->act[1][w1] &= ~(1ull << (w0 & 63u));
        if (!f->act[1][w1])
            f->act[2][w2] &= ~(1ull << (w1 & 63u));
    }
    f->node[id].active = 0;
    f->act_n--;
    return id;
}

static inline void fab_free(fabric *f);

static inline rnic_err fab_init(fabric *f, const fab_config *c)
{
    uint32_t words0, words1, words2, i;
    if (!f || !c)
        return RNIC_EINVAL;
    memset(f, 0, sizeof *f);
    if (c->max_nodes == 0 || c->max_nodes > (1u << 24))
        return RNIC_ERANGE;
    f->cfg = *c;
    words0 = (c->max_nodes + 63u) / 64u;
    words1 = (words0 + 63u) / 64u;
    words2 = (words1 + 63u) / 64u;
    f->node = (fab_node *)calloc(c->max_nodes, sizeof *f->node);
    f->cal = (uint32_t *)calloc(c->max_nodes, sizeof *f->cal);
    f->wheel = (uint32_t *)calloc(FAB_WHEEL, sizeof *f->wheel);
    f->act[0] = (uint64_t *)calloc(words0, sizeof *f->act[0]);
    f->act[1] = (uint64_t *)calloc(words1, sizeof *f->act[1]);
    f->act[2] = (uint64_t *)calloc(words2, sizeof *f->act[2]);
    f->done = (uint32_t *)calloc(c->max_nodes, sizeof *f->done);
    if (!f->node || !f->cal || !f->wheel || !f->act[0] || !f->act[1] || !f->act[2] || !f->done) {
        fab_free(f);
        return RNIC_ENOSPC; /* the host is out of memory */
    }
    for (i = 0; i < FAB_WHEEL; i++)
        f->wheel[i] = RNIC_NONE;
    f->now = c->start_cycle;
    return RNIC_OK;
}

static inline void fab_free(fabric *f)
{
    if (!f)
        return;
    free(f->node);
    free(f->cal);
    free(f->wheel);
    free(f->act[0]);
    free(f->act[1]);
    free(f->act[2]);
    free(f->done);
    memset(f, 0, sizeof *f);
}

static inline uint32_t fab_add(fabric *f, const fab_node_ops *ops, void *self)
{
    uint32_t id;
    if (!f || !ops || !ops->advance_to || !ops->run || !ops->next_event || f->n == f->cfg.max_nodes)
        return RNIC_NONE;
    id = f->n++;
    f->node[id].ops = ops;
    f->node[id].self = self;
    f->node[id].due = RNIC_NEVER;
    f->node[id].cal_pos = RNIC_NONE;
    fab__schedule(f, id, f->now); /* every node runs at the first cycle (it may have work) */
    return id;
}

/* Node id runs (again) in the cycle being processed: a record reached one of its inputs, or
 * room freed at one of its outputs' neighbours. Outside a cycle it is due at the fabric's now. */
static inline void fab_wake(fabric *f, uint32_t id)
{
    if (!f || id >= f->n)
        return;
    if (!f->in_cycle) {
        if (f->node[id].due > f->now)
            fab__schedule(f, id, f->now);
        return;
    }
    if (f->node[id].active)
        return;
    f->stats.wakes++;
    fab__act_push(f, id);
}

/* Between cycles: node id runs at `cycle` (or earlier, if it is due earlier). A record from outside
 * the fabric (another process's node, over an ns-3 link) reaches one of its inputs then. */
static inline void fab_wake_at(fabric *f, uint32_t id, uint64_t cycle)
{
    if (!f || id >= f->n || f->in_cycle || cycle >= f->node[id].due)
        return;
    fab__schedule(f, id, cycle);
}

static inline void fab_bring(fabric *f, uint32_t id, uint64_t cycle)
{
    if (f && id < f->n)
        f->node[id].ops->advance_to(f->node[id].self, cycle);
}

static inline uint64_t fab_next_event(const fabric *f)
{
    uint64_t w;
    if (!f)
        return RNIC_NEVER;
    if (f->cfg.tick_only)
        return f->now;
    w = fab__wheel_first(f, f->now);
    if (f->cal_n && f->node[f->cal[0]].due < w)
        return f->node[f->cal[0]].due;
    return w;
}

/* The node due first, lowest id on a tie (RNIC_NONE: nothing is due); tests and reports. */
static inline uint32_t fab_first_due(const fabric *f)
{
    uint64_t t = fab_next_event(f);
    uint32_t id, best = RNIC_NONE;
    if (!f || t == RNIC_NEVER || f->cfg.tick_only)
        return RNIC_NONE;
    for (id = f->wheel[t & (FAB_WHEEL - 1u)]; id != RNIC_NONE && f->node[id].due == t; id = f->node[id].next)
        if (id < best)
            best = id;
    if (f->cal_n && f->node[f->cal[0]].due == t && f->cal[0] < best)
        best = f->cal[0];
    return best;
}

/* One cycle t: the due (or, tick-only, every) node, plus whatever they wake, lowest id first. */
static inline void fab__cycle(fabric *f, uint64_t t)
{
    uint32_t i, id;
    f->now = t;
    f->in_cycle = 1;
    if (f->cfg.tick_only) {
        for (i = 0; i < f->n; i++)
            fab__act_push(f, i);
    } else {
        fab__wheel_refill(f, t);
        while ((id = f->wheel[t & (FAB_WHEEL - 1u)]) != RNIC_NONE) {
            fab__wheel_remove(f, id);
            f->node[id].due = RNIC_NEVER;
            fab__act_push(f, id);
        }
    }
    f->stats.cycles_visited++;
    while (f->act_n) {
        fab_node *nd;
        id = fab__act_pop(f);
        nd = &f->node[id];
        if (nd->ops->step) {
            nd->ops->step(nd->self, t);
        } else {
            nd->ops->advance_to(nd->self, t);
            nd->ops->run(nd->self, t);
        }
        f->stats.runs++;
        if (!nd->ran) {
            nd->ran = 1;
            f->done[f->done_n++] = id;
        }
    }
    f->in_cycle = 0;
    if (f->cfg.tick_only) {
        for (i = 0; i < f->done_n; i++)
            f->node[f->done[i]].ran = 0;
        f->done_n = 0;
        return;
    }
    for (i = 0; i < f->done_n; i++) {
        uint64_t due;
        id = f->done[i];
        f->node[id].ran = 0;
        due = f->node[id].ops->next_event(f->node[id].self);
        if (due <= t) { /* still blocked on a neighbour: look again next cycle */
            due = t + 1u;
            f->stats.polls++;
        }
        fab__schedule(f, id, due);
    }
    f->done_n = 0;
}

/* Run every cycle before `end`; the nodes are left at the last cycle they ran (a caller that
 * reads them at `end` brings them there). Returns `end` (or the fabric's now if already past). */
static inline uint64_t fab_run_until(fabric *f, uint64_t end)
{
    if (!f)
        return 0;
    while (f->now < end) {
        uint64_t t = fab_next_event(f);
        if (t == RNIC_NEVER || t >= end)
            break;
        if (t < f->now)
            t = f->now;
        fab__cycle(f, t);
        f->now = t + 1u;
    }
    if (f->now < end)
        f->now = end;
    return f->now;
}

#endif /* RNIC_FABRIC_H */
