/* hostcc.h: node.c -- the node tables (src/common/node.h): ports by index, each call the
 * engine's own public function, so checks, counters and trace are the engine's. */

/* ---- hcc_host ---- */
static rnic_err hcc_host__node_push(void *x, uint32_t port, const void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_host_push_rx((hcc_host *)x, (const rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_host_get_stats((const hcc_host *)x)->errors);
    }
}
static uint32_t hcc_host__node_space(const void *x, uint32_t port)
{
    switch (port) {
    case 0:
        return hcc_host_space_rx((const hcc_host *)x);
    default:
        return 0;
    }
}
static rnic_err hcc_host__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_host_pop_rx((hcc_host *)x, (rnic_work *)rec);
    case 1:
        return hcc_host_pop_signal((hcc_host *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_host_get_stats((const hcc_host *)x)->errors);
    }
}
static rnic_err hcc_host__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_host_peek_rx((const hcc_host *)x, (rnic_work *)rec);
    case 1:
        return hcc_host_peek_signal((const hcc_host *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_host_get_stats((const hcc_host *)x)->errors);
    }
}
static void hcc_host__node_tick(void *x) { hcc_host_tick((hcc_host *)x); }
static uint64_t hcc_host__node_next_event(const void *x) { return hcc_host_next_event((const hcc_host *)x); }
static uint64_t hcc_host__node_advance(void *x, uint64_t n) { return hcc_host_advance((hcc_host *)x, n); }
static uint64_t hcc_host__node_advance_to(void *x, uint64_t c) { return hcc_host_advance_to((hcc_host *)x, c); }
static uint64_t hcc_host__node_now(const void *x) { return hcc_host_now((const hcc_host *)x); }
static const rnic_err_stats *hcc_host__node_errors(const void *x)
{
    return x ? &hcc_host_get_stats((const hcc_host *)x)->errors : NULL;
}
static const void *hcc_host__node_stats(const void *x) { return hcc_host_get_stats((const hcc_host *)x); }
static const rnic_node_port hcc_host__node_in[] = {{"rx", (uint32_t)sizeof(rnic_work)}};
static const rnic_node_port hcc_host__node_out[] = {{"rx", (uint32_t)sizeof(rnic_work)}, {"signal", (uint32_t)sizeof(rnic_work)}};
HCC_API const rnic_node_ops *hcc_host_node_ops(void)
{
    static const rnic_node_ops ops = {
        "hcc_host", (uint16_t)RNIC_ENGINE_HCC_HOST, 1u, 2u, hcc_host__node_in, hcc_host__node_out,
        hcc_host__node_push, hcc_host__node_space, hcc_host__node_pop, hcc_host__node_peek, hcc_host__node_tick,
        hcc_host__node_next_event, hcc_host__node_advance, hcc_host__node_advance_to, hcc_host__node_now,
        hcc_host__node_errors, hcc_host__node_stats, sizeof(hcc_host_stats)};
    return &ops;
}

/* ---- hcc_rx ---- */
static rnic_err hcc_rx__node_push(void *x, uint32_t port, const void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_rx_push_sample((hcc_rx *)x, (const hcc_rx_sample *)rec);
    default:
        return rnic__node_bad_port(&hcc_rx_get_stats((const hcc_rx *)x)->errors);
    }
}
static uint32_t hcc_rx__node_space(const void *x, uint32_t port)
{
    switch (port) {
    case 0:
        return hcc_rx_space_sample((const hcc_rx *)x);
    default:
        return 0;
    }
}
static rnic_err hcc_rx__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_rx_pop_action((hcc_rx *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_rx_get_stats((const hcc_rx *)x)->errors);
    }
}
static rnic_err hcc_rx__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_rx_peek_action((const hcc_rx *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_rx_get_stats((const hcc_rx *)x)->errors);
    }
}
static void hcc_rx__node_tick(void *x) { hcc_rx_tick((hcc_rx *)x); }
static uint64_t hcc_rx__node_next_event(const void *x) { return hcc_rx_next_event((const hcc_rx *)x); }
static uint64_t hcc_rx__node_advance(void *x, uint64_t n) { return hcc_rx_advance((hcc_rx *)x, n); }
static uint64_t hcc_rx__node_advance_to(void *x, uint64_t c) { return hcc_rx_advance_to((hcc_rx *)x, c); }
static uint64_t hcc_rx__node_now(const void *x) { return hcc_rx_now((const hcc_rx *)x); }
static const rnic_err_stats *hcc_rx__node_errors(const void *x)
{
    return x ? &hcc_rx_get_stats((const hcc_rx *)x)->errors : NULL;
}
static const void *hcc_rx__node_stats(const void *x) { return hcc_rx_get_stats((const hcc_rx *)x); }
static const rnic_node_port hcc_rx__node_in[] = {{"sample", (uint32_t)sizeof(hcc_rx_sample)}};
static const rnic_node_port hcc_rx__node_out[] = {{"action", (uint32_t)sizeof(rnic_work)}};
HCC_API const rnic_node_ops *hcc_rx_node_ops(void)
{
    static const rnic_node_ops ops = {
        "hcc_rx", (uint16_t)RNIC_ENGINE_HCC_RX, 1u, 1u, hcc_rx__node_in, hcc_rx__node_out,
        hcc_rx__node_push, hcc_rx__node_space, hcc_rx__node_pop, hcc_rx__node_peek, hcc_rx__node_tick,
        hcc_rx__node_next_event, hcc_rx__node_advance, hcc_rx__node_advance_to, hcc_rx__node_now,
        hcc_rx__node_errors, hcc_rx__node_stats, sizeof(hcc_rx_stats)};
    return &ops;
}

/* ---- hcc_tx ---- */
static rnic_err hcc_tx__node_push(void *x, uint32_t port, const void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_tx_push_sent((hcc_tx *)x, (const rnic_work *)rec);
    case 1:
        return hcc_tx_push_probe_ack((hcc_tx *)x, (const rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_tx_get_stats((const hcc_tx *)x)->errors);
    }
}
static uint32_t hcc_tx__node_space(const void *x, uint32_t port)
{
    switch (port) {
    case 0:
        return hcc_tx_space_sent((const hcc_tx *)x);
    case 1:
        return hcc_tx_space_probe_ack((const hcc_tx *)x);
    default:
        return 0;
    }
}
static rnic_err hcc_tx__node_pop(void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_tx_pop_probe((hcc_tx *)x, (rnic_work *)rec);
    case 1:
        return hcc_tx_pop_rate((hcc_tx *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_tx_get_stats((const hcc_tx *)x)->errors);
    }
}
static rnic_err hcc_tx__node_peek(const void *x, uint32_t port, void *rec)
{
    if (!x)
        return RNIC_EINVAL;
    switch (port) {
    case 0:
        return hcc_tx_peek_probe((const hcc_tx *)x, (rnic_work *)rec);
    case 1:
        return hcc_tx_peek_rate((const hcc_tx *)x, (rnic_work *)rec);
    default:
        return rnic__node_bad_port(&hcc_tx_get_stats((const hcc_tx *)x)->errors);
    }
}
static void hcc_tx__node_tick(void *x) { hcc_tx_tick((hcc_tx *)x); }
static uint64_t hcc_tx__node_next_event(const void *x) { return hcc_tx_next_event((const hcc_tx *)x); }
static uint64_t hcc_tx__node_advance(void *x, uint64_t n) { return hcc_tx_advance((hcc_tx *)x, n); }
static uint64_t hcc_tx__node_advance_to(void *x, uint64_t c) { return hcc_tx_advance_to((hcc_tx *)x, c); }
static uint64_t hcc_tx__node_now(const void *x) { return hcc_tx_now((const hcc_tx *)x); }
static const rnic_err_stats *hcc_tx__node_errors(const void *x)
{
    return x ? &hcc_tx_get_stats((const hcc_tx *)x)->errors : NULL;
}
static const void *hcc_tx__node_stats(const void *x) { return hcc_tx_get_stats((const hcc_tx *)x); }
static const rnic_node_port hcc_tx__node_in[] = {{"sent", (uint32_t)sizeof(rnic_work)}, {"probe_ack", (uint32_t)sizeof(rnic_work)}};
static const rnic_node_port hcc_tx__node_out[] = {{"probe", (uint32_t)sizeof(rnic_work)}, {"rate", (uint32_t)sizeof(rnic_work)}};
HCC_API const rnic_node_ops *hcc_tx_node_ops(void)
{
    static const rnic_node_ops ops = {
        "hcc_tx", (uint16_t)RNIC_ENGINE_HCC_TX, 2u, 2u, hcc_tx__node_in, hcc_tx__node_out,
        hcc_tx__node_push, hcc_tx__node_space, hcc_tx__node_pop, hcc_tx__node_peek, hcc_tx__node_tick,
        hcc_tx__node_next_event, hcc_tx__node_advance, hcc_tx__node_advance_to, hcc_tx__node_now,
        hcc_tx__node_errors, hcc_tx__node_stats, sizeof(hcc_tx_stats)};
    return &ops;
}
