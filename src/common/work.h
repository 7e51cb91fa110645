/* The engine contract's shared shapes (docs/engine_contract.md): one work record that every
 * engine takes and emits, one non-destructive source callback, one "never" time, the engine
 * codes of trace events, and the arithmetic every engine's advance/advance_to shares. */
#include "base.h"
#include "error.h"
#include "fixed.h"
#include "trace.h"

/* next_event: nothing happens without new input (or only a pop of a full output would
 * unblock the engine). Every engine's X_next_event returns it; the only spelling of "never". */
#define RNIC_NEVER UINT64_MAX

/* rnic_work.flags. FIRST/LAST/ERROR have one meaning in every engine; bits from
 * RNIC_WORK_ENGINE_SHIFT up are an engine's own (documented in its header). */
#define RNIC_WORK_FIRST 1u  /* the record starts its source entry (WQE / message) */
#define RNIC_WORK_LAST 2u   /* the record ends its source entry: the engine is done with it and
                               the owner may reuse the entry's memory */
#define RNIC_WORK_ERROR 4u  /* the entry was refused or failed: `status` says why, len may be 0 */
#define RNIC_WORK_ENGINE_SHIFT 8u

/* One piece of work: a WQE as a source holds it, a WQE piece out of Palos, a block out of the
 * QoS engine, a segment into or out of the transport engine, a packet out of Tassel. An
 * engine fills the fields it knows and carries the others (tag, op, raddr) untouched from
 * input to output; `tag` is the caller's and no engine ever reads it. 64 bytes. */
typedef struct rnic_work {
    uint64_t cycle;  /* outputs: the cycle the engine emitted it; inputs: ignored */
    uint64_t addr;   /* local address of this piece (entry address + offset) */
    uint64_t raddr;  /* remote address of this piece (entry remote address + offset) */
    uint64_t tag;    /* caller's pass-through value (wr_id, a message id, a pointer) */
    uint32_t flow;   /* flow / QP in [0, max_flows): the same number in every engine */
    uint32_t index;  /* free-running index of the source entry (ring counter, mod 2^32) */
    uint32_t offset; /* byte offset of this piece inside its source entry */
    uint32_t len;    /* bytes of this piece (a source entry: 1 .. 2^31) */
    uint32_t flags;  /* RNIC_WORK_* */
    uint32_t op;     /* caller's opcode, carried untouched */
    int32_t status;  /* rnic_err when RNIC_WORK_ERROR; 0 otherwise */
    uint32_t aux;    /* engine-specific (QoS: transfer line; transport: sequence number) */
} rnic_work;

/* A non-destructive source: copy up to `max` entries of `flow`, starting with entry `index`
 * (free-running, wraps mod 2^32), into out[0..]; return how many were copied (0: none
 * posted). The callee never consumes: an engine may read the same entry again (Tassel's
 * fetch-and-drop does). What has been consumed is told by an output (a record carrying
 * RNIC_WORK_LAST, a completion), so the owner knows when memory may be reused. A source may
 * hand back an entry with RNIC_WORK_ERROR and a status: the engine completes it as an error.
 * Must not call back into the engine. */
typedef uint32_t (*rnic_source_fn)(void *user, uint32_t flow, uint32_t index, rnic_work *out, uint32_t max);

/* Trace event `engine` codes of the engine types (rnic_trace_event.engine); a config's
 * trace_id overrides it to tell instances apart. */
#define RNIC_ENGINE_TASSEL 1u
#define RNIC_ENGINE_QOS 2u
#define RNIC_ENGINE_PALOS 3u
#define RNIC_ENGINE_TRANSPORT 4u
/* 5 was RNIC_ENGINE_HOSTCC, shared by the three hostcc.h engines until issue 29: not reused */
#define RNIC_ENGINE_TP_RX 6u    /* transport.h's receiver engine (tp_rx) */
#define RNIC_ENGINE_HCC_HOST 7u /* hostcc.h's host model (hcc_host) */
#define RNIC_ENGINE_HCC_RX 8u   /* hostcc.h's RHCC receiver controller (hcc_rx) */
#define RNIC_ENGINE_HCC_TX 9u   /* hostcc.h's sender controller (hcc_tx) */
#define RNIC_ENGINE_MODEL 16u /* first code for a composed model's own modules */

/* Trace `kind` codes every engine uses for its ports (engine-specific kinds start at 16). */
#define RNIC_TRACE_PUSH 1u    /* an input accepted: id = flow, a = index (register: value), b = len */
#define RNIC_TRACE_REFUSE 2u  /* an input refused: id = flow, a = index (register: value), b = rnic_err */
#define RNIC_TRACE_OUT 3u     /* an output record produced: id = flow, a = index, b = len */
#define RNIC_TRACE_POP 4u     /* an output record taken by the caller: id = flow, a = index, b = len */
#define RNIC_TRACE_RATE 5u    /* a rate register written: id = flow, a = applied b/s, b = asked b/s */
#define RNIC_TRACE_ENGINE_KIND 16u

/* The trace layout every engine writes (docs/engine_contract.md, "Trace"): `engine` = the
 * engine's RNIC_ENGINE_* id (or its config's trace_id), `kind` = a common kind above or the
 * engine's own from RNIC_TRACE_ENGINE_KIND up, `id` = the flow, and for the port kinds
 * (PUSH, OUT, POP) a = the record's `index`, b = its `len` in bytes; REFUSE: a = the refused
 * record's index (a register write: the value written), b = the rnic_err; RATE: a = the rate
 * applied in b/s, b = the rate asked. Engine kinds document their a/b in the engine's doc.
 *
 * RNIC__TRACE(x, kind, flow, a, b) is the one trace point of every engine: `x` is the engine
 * (any struct with `trace` (rnic_trace), `now` (cycle) and `trace_id` (uint16_t) fields). With no
 * callback set it costs one branch: nothing is evaluated or counted (trace.events counts the
 * events delivered). A statement, not an expression. */
#define RNIC__TRACE(x, kind, flow, a, b)                                                                   \
    do {                                                                                                   \
        if ((x)->trace.fn)                                                                                 \
            rnic_trace_emit(&(x)->trace, (x)->now, (x)->trace_id, (uint16_t)(kind), (uint32_t)(flow),      \
                            (uint64_t)(a), (uint64_t)(b));                                                 \
    } while (0)
/* A port event of record `w` (PUSH, OUT, POP): a = w->index, b = w->len. */
#define RNIC__TRACE_REC(x, kind, w) RNIC__TRACE((x), (kind), (w)->flow, (w)->index, (w)->len)
/* A refused record: a = its index, b = the error. */
#define RNIC__TRACE_REFUSE(x, w, err) RNIC__TRACE((x), RNIC_TRACE_REFUSE, (w)->flow, (w)->index, (err))

/* The same port event with the cycle and engine given (a record emitted outside the tick). */
RNIC_INLINE void rnic_trace_rec(rnic_trace *t, uint64_t cycle, uint16_t engine, uint16_t kind, const rnic_work *w)
{
    rnic_trace_emit(t, cycle, engine, kind, w->flow, w->index, w->len);
}

/* advance / advance_to arithmetic, shared so every engine treats the 2^64 wrap the same way.
 * `now` is the engine's cycle; cycles run from now to `target` modulo 2^64 (so
 * advance_to(now - 1) would run 2^64 - 1 cycles: callers pass a later cycle). */
RNIC_INLINE uint64_t rnic_cycles_until(uint64_t now, uint64_t target) { return target - now; }

/* How many cycles an idle engine may jump from `now` when its next event is `next` and
 * `left` cycles remain to run: min(left, next - now), 0 when the event is now or passed. */
RNIC_INLINE uint64_t rnic_idle_span(uint64_t now, uint64_t next, uint64_t left)
{
    uint64_t gap;
    if (next == RNIC_NEVER)
        return left;
    gap = next - now;
    if (gap > ((uint64_t)1 << 63)) /* the event is in the past (wrap-safe): no idle span */
        return 0;
    return gap < left ? gap : left;
}

/* Config validation shared by every engine: X_config_check(&cfg, &field) returns RNIC_OK or
 * the error with *field naming the offending config field (a string literal). */
RNIC_INLINE rnic_err rnic_config_bad(const char **field, const char *name, rnic_err e)
{
    if (field)
        *field = name;
    return e;
}
