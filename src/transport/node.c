/* transport.h: node.c -- the node tables (src/common/node.h): ports by index, each call the
 * engine's own public function, so checks, counters and trace are the engine's. */

/* ---- tp ---- */
static rnic_err tp__node_push(void *x, uint32_t port, const void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return tp_push_message((tp *)x, (const rnic_work *)rec);
    case 1:
        return tp_push_incoming((tp *)x, (const rnic_work *)rec);
    case 2:
        return tp_push_consumed((tp *)x, (const rnic_work *)rec);
    default:
        return rnic__node_bad_port(&tp_get_stats((const tp *)x)->errors);
    }
}
static uint32_t tp__node_space(const void *x, uint32_t port)
{
    switch (port) {
    case 0:
        return tp_space_message((const tp *)x);
    case 1:
        return tp_space_incoming((const tp *)x);
    case 2:
        return tp_space_consumed((const tp *)x);
    default:
        return 0;
    }
}
static rnic_err tp__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return tp_pop_segment((tp *)x, (rnic_work *)rec);
    case 1:
        return tp_pop_completion((tp *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&tp_get_stats((const tp *)x)->errors);
    }
}
static rnic_err tp__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return tp_peek_segment((const tp *)x, (rnic_work *)rec);
    case 1:
        return tp_peek_completion((const tp *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&tp_get_stats((const tp *)x)->errors);
    }
}
static void tp__node_tick(void *x) { tp_tick((tp *)x); }
static uint64_t tp__node_next_event(const void *x) { return tp_next_event((const tp *)x); }
static uint64_t tp__node_advance(void *x, uint64_t n) { return tp_advance((tp *)x, n); }
static uint64_t tp__node_advance_to(void *x, uint64_t c) { return tp_advance_to((tp *)x, c); }
static uint64_t tp__node_now(const void *x) { return tp_now((const tp *)x); }
static const rnic_err_stats *tp__node_errors(const void *x)
{
    return x ? &tp_get_stats((const tp *)x)->errors : NULL;
}
static const void *tp__node_stats(const void *x) { return tp_get_stats((const tp *)x); }
static const rnic_node_port tp__node_in[] = {{"message", (uint32_t)sizeof(rnic_work)}, {"incoming", (uint32_t)sizeof(rnic_work)}, {"consumed", (uint32_t)sizeof(rnic_work)}};
static const rnic_node_port tp__node_out[] = {{"segment", (uint32_t)sizeof(rnic_work)}, {"completion", (uint32_t)sizeof(rnic_work)}};
TP_API const rnic_node_ops *tp_node_ops(void)
{
    static const rnic_node_ops ops = {
        "tp", (uint16_t)RNIC_ENGINE_TRANSPORT, 3u, 2u, tp__node_in, tp__node_out,
        tp__node_push, tp__node_space, tp__node_pop, tp__node_peek, tp__node_tick,
        tp__node_next_event, tp__node_advance, tp__node_advance_to, tp__node_now,
        tp__node_errors, tp__node_stats, sizeof(tp_stats)};
    return &ops;
}

/* ---- tp_rx ---- */
static rnic_err tp_rx__node_push(void *x, uint32_t port, const void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return tp_rx_push_segment((tp_rx *)x, (const rnic_work *)rec);
    default:
        return rnic__node_bad_port(&tp_rx_get_stats((const tp_rx *)x)->errors);
    }
}
static uint32_t tp_rx__node_space(const void *x, uint32_t port)
{
    switch (port) {
    case 0:
        return tp_rx_space_segment((const tp_rx *)x);
    default:
        return 0;
    }
}
static rnic_err tp_rx__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return tp_rx_pop_ack((tp_rx *)x, (rnic_work *)rec);
    case 1:
        return tp_rx_pop_delivered((tp_rx *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&tp_rx_get_stats((const tp_rx *)x)->errors);
    }
}
static rnic_err tp_rx__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return tp_rx_peek_ack((const tp_rx *)x, (rnic_work *)rec);
    case 1:
        return tp_rx_peek_delivered((const tp_rx *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&tp_rx_get_stats((const tp_rx *)x)->errors);
    }
}
static void tp_rx__node_tick(void *x) { tp_rx_tick((tp_rx *)x); }
static uint64_t tp_rx__node_next_event(const void *x) { return tp_rx_next_event((const tp_rx *)x); }
static uint64_t tp_rx__node_advance(void *x, uint64_t n) { return tp_rx_advance((tp_rx *)x, n); }
static uint64_t tp_rx__node_advance_to(void *x, uint64_t c) { return tp_rx_advance_to((tp_rx *)x, c); }
static uint64_t tp_rx__node_now(const void *x) { return tp_rx_now((const tp_rx *)x); }
static const rnic_err_stats *tp_rx__node_errors(const void *x)
{
    return x ? &tp_rx_get_stats((const tp_rx *)x)->errors : NULL;
}
static const void *tp_rx__node_stats(const void *x) { return tp_rx_get_stats((const tp_rx *)x); }
static const rnic_node_port tp_rx__node_in[] = {{"segment", (uint32_t)sizeof(rnic_work)}};
static const rnic_node_port tp_rx__node_out[] = {{"ack", (uint32_t)sizeof(rnic_work)}, {"delivered", (uint32_t)sizeof(rnic_work)}};
TP_API const rnic_node_ops *tp_rx_node_ops(void)
{
    static const rnic_node_ops ops = {
        "tp_rx", (uint16_t)RNIC_ENGINE_TP_RX, 1u, 2u, tp_rx__node_in, tp_rx__node_out,
        tp_rx__node_push, tp_rx__node_space, tp_rx__node_pop, tp_rx__node_peek, tp_rx__node_tick,
        tp_rx__node_next_event, tp_rx__node_advance, tp_rx__node_advance_to, tp_rx__node_now,
        tp_rx__node_errors, tp_rx__node_stats, sizeof(tp_rx_stats)};
    return &ops;
}
