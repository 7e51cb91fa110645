/* ratelimit.h: node.c -- the node tables (src/common/node.h): ports by index, each call the
 * engine's own public function, so checks, counters and trace are the engine's. */

/* ---- rl ---- */
static rnic_err rl__node_push(void *x, uint32_t port, const void *rec)
{
    (void)port;
    (void)rec;
    return x ? rnic__node_bad_port(&rl_get_stats((const rl *)x)->errors) : RNIC_EINVAL;
}
static uint32_t rl__node_space(const void *x, uint32_t port)
{
    (void)x;
    (void)port;
    return 0;
}
static rnic_err rl__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rl_pop_tx((rl *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&rl_get_stats((const rl *)x)->errors);
    }
}
static rnic_err rl__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rl_peek_tx((const rl *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&rl_get_stats((const rl *)x)->errors);
    }
}
static void rl__node_tick(void *x) { rl_tick((rl *)x); }
static uint64_t rl__node_next_event(const void *x) { return rl_next_event((const rl *)x); }
static uint64_t rl__node_advance(void *x, uint64_t n) { return rl_advance((rl *)x, n); }
static uint64_t rl__node_advance_to(void *x, uint64_t c) { return rl_advance_to((rl *)x, c); }
static uint64_t rl__node_now(const void *x) { return rl_now((const rl *)x); }
static const rnic_err_stats *rl__node_errors(const void *x)
{
    return x ? &rl_get_stats((const rl *)x)->errors : NULL;
}
static const void *rl__node_stats(const void *x) { return rl_get_stats((const rl *)x); }
static const rnic_node_port rl__node_out[] = {{"tx", (uint32_t)sizeof(rnic_work)}};
RL_API const rnic_node_ops *rl_node_ops(void)
{
    static const rnic_node_ops ops = {
        "rl", (uint16_t)RNIC_ENGINE_TASSEL, 0u, 1u, NULL, rl__node_out,
        rl__node_push, rl__node_space, rl__node_pop, rl__node_peek, rl__node_tick,
        rl__node_next_event, rl__node_advance, rl__node_advance_to, rl__node_now,
        rl__node_errors, rl__node_stats, sizeof(rl_stats)};
    return &ops;
}
