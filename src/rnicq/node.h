/* rnicq.h: the node table of each engine (docs/engine_contract.md, "The node interface"):
 * X_node_ops() returns one rnic_node_ops whose calls are the engine's own public functions. */
/* rq_qos's node table: inputs response; outputs block, packet, bresp, rdata. */
RQ_API const rnic_node_ops *rq_qos_node_ops(void);
/* rq_palos's node table: inputs none; outputs piece. */
RQ_API const rnic_node_ops *rq_palos_node_ops(void);
