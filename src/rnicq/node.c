/* rnicq.h: node.c -- the node tables (src/common/node.h): ports by index, each call the
 * engine's own public function, so checks, counters and trace are the engine's. */

/* ---- rq_qos ---- */
static rnic_err rq_qos__node_push(void *x, uint32_t port, const void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rq_qos_push_response((rq_qos *)x, (const rq_response *)rec);
    default:
        return rnic__node_bad_port(&rq_qos_get_stats((const rq_qos *)x)->errors);
    }
}
static uint32_t rq_qos__node_space(const void *x, uint32_t port)
{
    switch (port) {
    case 0:
        return rq_qos_space_response((const rq_qos *)x);
    default:
        return 0;
    }
}
static rnic_err rq_qos__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rq_qos_pop_block((rq_qos *)x, (rnic_work *)rec);
    case 1:
        return rq_qos_pop_packet((rq_qos *)x, (rq_packet *)rec);
    case 2:
        return rq_qos_pop_bresp((rq_qos *)x, (rq_axi_bresp *)rec);
    case 3:
        return rq_qos_pop_rdata((rq_qos *)x, (rq_axi_rdata *)rec);
    default:
        return rnic__node_bad_port(&rq_qos_get_stats((const rq_qos *)x)->errors);
    }
}
static rnic_err rq_qos__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rq_qos_peek_block((const rq_qos *)x, (rnic_work *)rec);
    case 1:
        return rq_qos_peek_packet((const rq_qos *)x, (rq_packet *)rec);
    case 2:
        return rq_qos_peek_bresp((const rq_qos *)x, (rq_axi_bresp *)rec);
    case 3:
        return rq_qos_peek_rdata((const rq_qos *)x, (rq_axi_rdata *)rec);
    default:
        return rnic__node_bad_port(&rq_qos_get_stats((const rq_qos *)x)->errors);
    }
}
static void rq_qos__node_tick(void *x) { rq_qos_tick((rq_qos *)x); }
static uint64_t rq_qos__node_next_event(const void *x) { return rq_qos_next_event((const rq_qos *)x); }
static uint64_t rq_qos__node_advance(void *x, uint64_t n) { return rq_qos_advance((rq_qos *)x, n); }
static uint64_t rq_qos__node_advance_to(void *x, uint64_t c) { return rq_qos_advance_to((rq_qos *)x, c); }
static uint64_t rq_qos__node_now(const void *x) { return rq_qos_now((const rq_qos *)x); }
static const rnic_err_stats *rq_qos__node_errors(const void *x)
{
    return x ? &rq_qos_get_stats((const rq_qos *)x)->errors : NULL;
}
static const void *rq_qos__node_stats(const void *x) { return rq_qos_get_stats((const rq_qos *)x); }
static const rnic_node_port rq_qos__node_in[] = {{"response", (uint32_t)sizeof(rq_response)}};
static const rnic_node_port rq_qos__node_out[] = {{"block", (uint32_t)sizeof(rnic_work)}, {"packet", (uint32_t)sizeof(rq_packet)}, {"bresp", (uint32_t)sizeof(rq_axi_bresp)}, {"rdata", (uint32_t)sizeof(rq_axi_rdata)}};
RQ_API const rnic_node_ops *rq_qos_node_ops(void)
{
    static const rnic_node_ops ops = {
        "rq_qos", (uint16_t)RNIC_ENGINE_QOS, 1u, 4u, rq_qos__node_in, rq_qos__node_out,
        rq_qos__node_push, rq_qos__node_space, rq_qos__node_pop, rq_qos__node_peek, rq_qos__node_tick,
        rq_qos__node_next_event, rq_qos__node_advance, rq_qos__node_advance_to, rq_qos__node_now,
        rq_qos__node_errors, rq_qos__node_stats, sizeof(rq_qos_stats)};
    return &ops;
}

/* ---- rq_palos ---- */
static rnic_err rq_palos__node_push(void *x, uint32_t port, const void *rec)
{
    (void)port;
    (void)rec;
    return x ? rnic__node_bad_port(&rq_palos_get_stats((const rq_palos *)x)->errors) : RNIC_EINVAL;
}
static uint32_t rq_palos__node_space(const void *x, uint32_t port)
{
    (void)x;
    (void)port;
    return 0;
}
static rnic_err rq_palos__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rq_palos_pop_piece((rq_palos *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&rq_palos_get_stats((const rq_palos *)x)->errors);
    }
}
static rnic_err rq_palos__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return rq_palos_peek_piece((const rq_palos *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&rq_palos_get_stats((const rq_palos *)x)->errors);
    }
}
static void rq_palos__node_tick(void *x) { rq_palos_tick((rq_palos *)x); }
static uint64_t rq_palos__node_next_event(const void *x) { return rq_palos_next_event((const rq_palos *)x); }
static uint64_t rq_palos__node_advance(void *x, uint64_t n) { return rq_palos_advance((rq_palos *)x, n); }
static uint64_t rq_palos__node_advance_to(void *x, uint64_t c) { return rq_palos_advance_to((rq_palos *)x, c); }
static uint64_t rq_palos__node_now(const void *x) { return rq_palos_now((const rq_palos *)x); }
static const rnic_err_stats *rq_palos__node_errors(const void *x)
{
    return x ? &rq_palos_get_stats((const rq_palos *)x)->errors : NULL;
}
static const void *rq_palos__node_stats(const void *x) { return rq_palos_get_stats((const rq_palos *)x); }
static const rnic_node_port rq_palos__node_out[] = {{"piece", (uint32_t)sizeof(rnic_work)}};
RQ_API const rnic_node_ops *rq_palos_node_ops(void)
{
    static const rnic_node_ops ops = {
        "rq_palos", (uint16_t)RNIC_ENGINE_PALOS, 0u, 1u, NULL, rq_palos__node_out,
        rq_palos__node_push, rq_palos__node_space, rq_palos__node_pop, rq_palos__node_peek, rq_palos__node_tick,
        rq_palos__node_next_event, rq_palos__node_advance, rq_palos__node_advance_to, rq_palos__node_now,
        rq_palos__node_errors, rq_palos__node_stats, sizeof(rq_palos_stats)};
    return &ops;
}
