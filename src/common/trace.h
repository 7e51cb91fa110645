/* Trace hooks: engines report what they do (a packet leaves, a block is issued, an input is
 * refused) through one optional callback. With no callback set a trace point costs one
 * predictable branch and a counter increment. The callback runs inside the tick, so it must
 * not re-enter the engine; a golden-model harness uses it to write VCD/pcap/CSV, a test to
 * compare event streams, and rnic_trace_digest_fold() to reduce a run to one XXH64 value.
 *
 * Serialisation is fixed (32 bytes, little-endian, no padding), so a digest is the same on
 * every compiler and target whatever the struct layout. */
#include "base.h"
#include "fixed.h"

typedef struct rnic_trace_event {
    rnic_cycle cycle; /* when it happened */
    uint16_t engine;  /* who: an engine-type code or a caller-assigned instance id */
    uint16_t kind;    /* what: an engine-specific event code */
    uint32_t id;      /* which QP / flow / channel / queue */
    uint64_t a, b;    /* event-specific values (bytes, sequence number, address, ...) */
} rnic_trace_event;

typedef void (*rnic_trace_fn)(void *user, const rnic_trace_event *ev);

typedef struct rnic_trace {
    rnic_trace_fn fn; /* NULL: tracing off */
    void *user;       /* passed back to fn */
    uint64_t events;  /* events emitted through rnic_trace_emit (the engines' trace points,
                         RNIC__TRACE, emit only while fn is set) */
} rnic_trace;

#define RNIC_TRACE_BYTES 32u

RNIC_INLINE void rnic_trace_set(rnic_trace *t, rnic_trace_fn fn, void *user)
{
    t->fn = fn;
    t->user = user;
}

RNIC_INLINE void rnic_trace_emit(rnic_trace *t, rnic_cycle cycle, uint16_t engine, uint16_t kind, uint32_t id,
                                 uint64_t a, uint64_t b)
{
    t->events++;
    if (t->fn) {
        rnic_trace_event ev;
        ev.cycle = cycle;
        ev.engine = engine;
        ev.kind = kind;
        ev.id = id;
        ev.a = a;
        ev.b = b;
        t->fn(t->user, &ev);
    }
}

RNIC_INLINE void rnic__put_le(unsigned char *out, uint64_t v, unsigned bytes)
{
    unsigned i;
    for (i = 0; i < bytes; i++)
        out[i] = (unsigned char)(v >> (8u * i));
}

/* Canonical 32-byte form: cycle(8) engine(2) kind(2) id(4) a(8) b(8), little-endian. */
RNIC_INLINE void rnic_trace_serialize(const rnic_trace_event *ev, unsigned char out[RNIC_TRACE_BYTES])
{
    rnic__put_le(out, ev->cycle, 8);
    rnic__put_le(out + 8, ev->engine, 2);
    rnic__put_le(out + 10, ev->kind, 2);
    rnic__put_le(out + 12, ev->id, 4);
    rnic__put_le(out + 16, ev->a, 8);
    rnic__put_le(out + 24, ev->b, 8);
}
