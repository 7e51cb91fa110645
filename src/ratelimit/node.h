/* ratelimit.h: the node table of each engine (docs/engine_contract.md, "The node interface"):
 * X_node_ops() returns one rnic_node_ops whose calls are the engine's own public functions. */
/* rl's node table: inputs none; outputs tx. */
RL_API const rnic_node_ops *rl_node_ops(void);
