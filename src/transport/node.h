/* transport.h: the node table of each engine (docs/engine_contract.md, "The node interface"):
 * X_node_ops() returns one rnic_node_ops whose calls are the engine's own public functions. */
/* tp's node table: inputs message, incoming, consumed; outputs segment, completion. */
TP_API const rnic_node_ops *tp_node_ops(void);
/* tp_rx's node table: inputs segment; outputs ack, delivered. */
TP_API const rnic_node_ops *tp_rx_node_ops(void);
