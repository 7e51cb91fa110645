/* The node interface (docs/engine_contract.md, "The node interface"): every engine also
 * exports one table of operations, so that a scheduler (the composed model, a fabric, the
 * contract test) drives any engine without knowing which it is. Ports go by index, with a
 * name (the <port> of X_push_<port> / X_pop_<port>) and the size of their record; every call
 * is the engine's own public function behind it (same checks, same counters, same trace).
 *
 *   const rnic_node_ops *ops = rl_node_ops();          (one per engine: X_node_ops())
 *   uint32_t tx = rnic_node_out_port(ops, "tx");       (index by name; RNIC_NONE if absent)
 *   ops->advance_to(x, ops->next_event(x));  ops->pop(x, tx, &rec);
 *
 * A port index outside [0, n_in) / [0, n_out) is RNIC_ENOENT (space: 0), counted in the
 * engine's errors like any refused input; a NULL engine is RNIC_EINVAL and counted nowhere. */
#include "base.h"
#include "error.h"

typedef struct rnic_node_port {
    const char *name;  /* the <port> of X_push_<port> / X_pop_<port>, e.g. "tx" */
    uint32_t rec_size; /* bytes of its record: sizeof(rnic_work) for most ports */
} rnic_node_port;

typedef struct rnic_node_ops {
    const char *name; /* the engine's prefix: "rl", "rq_qos", "tp_rx", "hcc_host", ... */
    uint16_t engine;  /* its trace id by default: RNIC_ENGINE_* */
    uint32_t n_in, n_out;
    const rnic_node_port *in, *out; /* n_in inputs, n_out outputs, in the engine doc's order */
    rnic_err (*push)(void *x, uint32_t port, const void *rec);  /* X_push_<in[port]> */
    uint32_t (*space)(const void *x, uint32_t port);            /* X_space_<in[port]> */
    rnic_err (*pop)(void *x, uint32_t port, void *rec);         /* X_pop_<out[port]> (rec NULL: refused) */
    rnic_err (*peek)(const void *x, uint32_t port, void *rec);  /* X_peek_<out[port]> */
    void (*tick)(void *x);                                      /* X_tick */
    uint64_t (*next_event)(const void *x);                      /* X_next_event */
    uint64_t (*advance)(void *x, uint64_t cycles);              /* X_advance */
    uint64_t (*advance_to)(void *x, uint64_t cycle);            /* X_advance_to */
    uint64_t (*now)(const void *x);                             /* X_now */
    const rnic_err_stats *(*errors)(const void *x);             /* &X_get_stats(x)->errors */
    const void *(*stats)(const void *x);                        /* X_get_stats(x): an X_stats */
    size_t stats_size;                                          /* sizeof(X_stats) */
} rnic_node_ops;

/* Index of the input / output port named `name`, or RNIC_NONE. */
RNIC_INLINE uint32_t rnic__node_find(const rnic_node_port *p, uint32_t n, const char *name)
{
    uint32_t i, k;
    for (i = 0; name && i < n; i++) {
        for (k = 0; p[i].name[k] && p[i].name[k] == name[k]; k++)
            ;
        if (p[i].name[k] == name[k])
            return i;
    }
    return RNIC_NONE;
}
RNIC_INLINE uint32_t rnic_node_in_port(const rnic_node_ops *ops, const char *name)
{
    return ops ? rnic__node_find(ops->in, ops->n_in, name) : RNIC_NONE;
}
RNIC_INLINE uint32_t rnic_node_out_port(const rnic_node_ops *ops, const char *name)
{
    return ops ? rnic__node_find(ops->out, ops->n_out, name) : RNIC_NONE;
}

/* For the engines' node tables: a port index out of range, counted as a refused input
 * (RNIC_ENOENT) in the engine's errors -- reached through its public X_get_stats. */
RNIC_INLINE rnic_err rnic__node_bad_port(const rnic_err_stats *errors)
{
    return rnic_err_note((rnic_err_stats *)(uintptr_t)errors, RNIC_ENOENT);
}
