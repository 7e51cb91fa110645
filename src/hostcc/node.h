/* hostcc.h: the node table of each engine (docs/engine_contract.md, "The node interface"):
 * X_node_ops() returns one rnic_node_ops whose calls are the engine's own public functions. */
/* hcc_host's node table: inputs rx; outputs rx, signal. */
HCC_API const rnic_node_ops *hcc_host_node_ops(void);
/* hcc_rx's node table: inputs sample; outputs action. */
HCC_API const rnic_node_ops *hcc_rx_node_ops(void);
/* hcc_tx's node table: inputs sent, probe_ack; outputs probe, rate. */
HCC_API const rnic_node_ops *hcc_tx_node_ops(void);
