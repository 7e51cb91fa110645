/* rnicq_ext.h -- the composed RNIC fabric as a C library for a simulator that carries its links
 * (issue 34; docs/ns3.md). rnicq_ext.c wraps examples/rnic_model/fm_ext.h: one process's part of
 * a fabric built from a scenario; the records that cross a link are handed to the caller as
 * fixed-size frames (RNICQ_EXT_FRAME_BYTES, little-endian: the packet's rnic_work record, its
 * network header fields, the cycle it reaches the far end, its number on its wire) and given back with rnicq_ext_arrive.
 * examples/ns3/rnicq-ns3.h builds ns-3 NetDevices on it; C and C++ both include this header. */
#ifndef RNICQ_EXT_API_H
#define RNICQ_EXT_API_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define RNICQ_EXT_FRAME_BYTES 116u /* rnic_work 64 + net_pkt fields 28 + at 8 + seq 8 + kind 4 + value 4 */
#define RNICQ_EXT_NEVER UINT64_MAX

typedef struct rnicq_ext rnicq_ext;

/* Called inside a cycle when a record leaves on `wire`: carry `frame` to the wire's far end so
 * that it is given back (rnicq_ext_arrive in the far end's process) before cycle `at` runs.
 * wire_bytes: what the link serialises (0 for a PFC / pause frame: a 64 B frame). */
typedef void (*rnicq_ext_send_fn)(void *user, uint32_t wire, const uint8_t *frame, uint64_t at, uint32_t wire_bytes);
/* Told as flow `id` of the workload completes at its sender (in this process). */
typedef void (*rnicq_ext_flow_fn)(void *user, uint32_t id, uint32_t src, uint32_t dst, uint64_t size_bytes,
                                  uint64_t start_ns, uint64_t fct_ns);

/* Process `rank` of `ranks` of the scenario in `scenario_file` (NULL: the defaults), with `keys`
 * ("section.key=value") applied after it. On a bad scenario: NULL, the reason in err. (A failure
 * inside the build prints its reason and exits, as rnic_model does.) */
rnicq_ext *rnicq_ext_open(const char *scenario_file, const char *const *keys, size_t nkeys, uint32_t ranks,
                          uint32_t rank, rnicq_ext_send_fn send, void *user, char *err, size_t errlen);
void rnicq_ext_close(rnicq_ext *x);
void rnicq_ext_on_flow_done(rnicq_ext *x, rnicq_ext_flow_fn fn, void *user);

/* The fabric: nodes are hosts 0 .. hosts - 1, then switches (node hosts + i is switch i). */
uint64_t rnicq_ext_clock_hz(const rnicq_ext *x);
uint32_t rnicq_ext_hosts(const rnicq_ext *x);
uint32_t rnicq_ext_switches(const rnicq_ext *x);
uint32_t rnicq_ext_ports(const rnicq_ext *x, uint32_t node);
uint32_t rnicq_ext_rank_of(const rnicq_ext *x, uint32_t node);
const char *rnicq_ext_node_name(const rnicq_ext *x, uint32_t node);
/* The directed links, by sender and port; wire w's reverse is the wire from (to, to_port). */
uint32_t rnicq_ext_wires(const rnicq_ext *x);
void rnicq_ext_wire(const rnicq_ext *x, uint32_t w, uint32_t *from, uint32_t *from_port, uint32_t *to,
                    uint32_t *to_port, uint64_t *prop_cycles, uint64_t *rate_bps);
uint32_t rnicq_ext_wire_of(const rnicq_ext *x, uint32_t node, uint32_t port);

/* The run. next: the next cycle to act at (RNICQ_EXT_NEVER: over). At a boundary every process
 * calls boundary_local, sums the RNICQ_EXT_VALUES values over all processes, and calls
 * boundary_done with the sums; otherwise cycle(t). */
#define RNICQ_EXT_VALUES 3u
uint64_t rnicq_ext_next(const rnicq_ext *x);
int rnicq_ext_at_boundary(const rnicq_ext *x, uint64_t t);
void rnicq_ext_cycle(rnicq_ext *x, uint64_t t);
void rnicq_ext_boundary_local(rnicq_ext *x, uint64_t *v);
void rnicq_ext_boundary_done(rnicq_ext *x, const uint64_t *v);
/* A frame of `wire` reached this process (before its cycle runs). 0, or -1 (not ours, late or
 * malformed: counted in the results' errors). */
int rnicq_ext_arrive(rnicq_ext *x, uint32_t wire, const uint8_t *frame);
uint64_t rnicq_ext_frame_at(const uint8_t *frame);

/* The results: each process fills its part (zero elsewhere), the caller sums them over the
 * processes, and one process reports: the per-flow CSV (rnic_model's --fct-csv columns), the
 * workload's RESULT line, `RESULT <name>=1 ... digest=...`. Returns the digest. */
size_t rnicq_ext_results_len(const rnicq_ext *x);
void rnicq_ext_results_local(rnicq_ext *x, uint64_t *v);
uint64_t rnicq_ext_results_report(rnicq_ext *x, const uint64_t *sum, const char *name, const char *fct_csv,
                                  uint64_t refused_max);
uint64_t rnicq_ext_refused_max(const rnicq_ext *x);
uint64_t rnicq_ext_late(const rnicq_ext *x);
int rnicq_ext_drained(const rnicq_ext *x);

#ifdef __cplusplus
}
#endif
#endif /* RNICQ_EXT_API_H */
