/* The firmware self-test's scenarios: one short deterministic run per engine, with every
 * engine struct and every byte of caller memory in static arrays sized at compile time by the
 * headers' size macros (RL_MEM_SIZE, ...: no heap, no X_mem_size call to size them). The same
 * source is compiled for the host (expected_gen.c writes the digests it computes into
 * build/firmware/expected.h) and for the soft cores (selftest.c compares against them), so a
 * difference means the engines behave differently on that target.
 *
 * A scenario folds every trace event of its engines (XXH64 via rnic_trace_digest_hook) and
 * every output record it takes into one digest, counts the engine cycles it ticked, and runs
 * its own checks (the static buffers equal X_mem_size; every piece of work completed). */
#ifndef FW_SCENARIOS_H
#define FW_SCENARIOS_H
#include <stdint.h>

typedef struct fw_result {
    uint64_t digest;  /* trace events and output records, folded in order */
    uint64_t cycles;  /* engine cycles ticked (one per X_tick call; summed over the engines run) */
    uint64_t records; /* output records taken */
    int ok;           /* the scenario's own checks held */
} fw_result;

typedef void (*fw_scenario_fn)(fw_result *out);

typedef struct fw_scenario {
    const char *name;
    fw_scenario_fn run;
} fw_scenario;

void fw_run_tassel(fw_result *out);
void fw_run_qos(fw_result *out);
void fw_run_palos(fw_result *out);
void fw_run_tp_newreno(fw_result *out);
void fw_run_tp_dcqcn(fw_result *out);
void fw_run_hostcc(fw_result *out);
/* Runs nothing but the digest code: the baseline of the per-engine code-size links. */
void fw_run_none(fw_result *out);

#define FW_SCENARIOS 6
extern const fw_scenario fw_scenarios[FW_SCENARIOS];

#endif
