/* examples/rnic_model/fm_trace.h: the trace CSV's rows and its table of names. A named event is
 * written with its engine, event and what id / a / b hold, time in ns at the clock (exact at
 * 250 MHz, to the ps otherwise), a signed `a` where the table says so; an (engine, kind) pair the
 * table lacks -- an unknown kind of a known engine, or an unknown engine -- is still written, as
 * engine<N> / kind<N>, and counted, never dropped. The table names each pair once, every row's
 * engine is a named engine, and the legend has one line per row. (tests/run.sh checks the
 * composed model's real runs: every event of every shipped scenario named, the legend in
 * docs/trace_csv.md the one the program prints.) */
#include "ratelimit.h"
#include "rnicq.h"
#include "transport.h"
#include "hostcc.h"
#include "test.h"
/* model_parts.h's modules are not used here: only its trace codes (RM_TRACE_*) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../examples/rnic_model/model_parts.h"
#include "../examples/rnic_model/fm_trace.h"

#define NROWS (sizeof fm_trace_names / sizeof fm_trace_names[0])
#define NENGINES (sizeof fm_trace_engines / sizeof fm_trace_engines[0])

static const char *const g_hosts[2] = { "h0", "spine-host-1" };

/* The rows written for the events, read back into text (NUL-terminated). */
static void write_rows(fm_trace_csv *c, uint64_t clock_hz, const rnic_trace_event *ev, const uint32_t *engine,
                       const uint32_t *instance, uint32_t n, char *text, size_t size)
{
    FILE *f = tmpfile();
    size_t got;
    uint32_t i;
    CHECK(f != NULL);
    if (!f) {
        text[0] = '\0';
        return;
    }
    fm_trace_csv_init(c, f);
    fm_trace_csv_attach(c, g_hosts, clock_hz);
    for (i = 0; i < n; i++)
        fm_trace_csv_row(c, i % 2u, engine[i], instance[i], &ev[i]);
    rewind(f);
    got = fread(text, 1, size - 1u, f);
    text[got] = '\0';
    fclose(f);
}

static rnic_trace_event event(uint64_t cycle, uint16_t kind, uint32_t id, uint64_t a, uint64_t b)
{
    rnic_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.cycle = cycle;
    ev.engine = 999; /* the row takes its engine from the caller (who emitted it), not from here */
    ev.kind = kind;
    ev.id = id;
    ev.a = a;
    ev.b = b;
    return ev;
}

static void test_named_and_unnamed_rows(void)
{
    static char text[4096];
    fm_trace_csv c;
    rnic_trace_event ev[5];
    uint32_t engine[5], instance[5] = { 0, 1, 0, 0, 0 };
    ev[0] = event(0, RNIC_TRACE_RATE, 3, 25000000000ull, 40000000000ull);
    engine[0] = RNIC_ENGINE_TRANSPORT;
    ev[1] = event(12345, TP_TRACE_ACK, 7, 100, 2); /* the NIC's second transport, on host 1 */
    engine[1] = RNIC_ENGINE_TRANSPORT;
    ev[2] = event(250000001ull, RQ_PALOS_TRACE_VISIT_END, 1, (uint64_t)(int64_t)-4096, 5); /* 1 s + 1 cycle */
    engine[2] = RNIC_ENGINE_PALOS;
    ev[3] = event(8, 31, 2, 9, 10); /* a kind Tassel never emits */
    engine[3] = RNIC_ENGINE_TASSEL;
    ev[4] = event(9, 1, 4, 5, 6); /* an engine the table does not know */
    engine[4] = 30;
    write_rows(&c, 250000000ull, ev, engine, instance, 5, text, sizeof text);
    CHECK(!strcmp(text, FM_TRACE_CSV_HEADER
                  "0,0,h0,transport,0,rate,3,25000000000,40000000000,qp,applied_bps,asked_bps\n"
                  "49380,12345,spine-host-1,transport,1,ack,7,100,2,qp,wnd_start,newly_acked\n"
                  "1000000004,250000001,h0,palos,0,visit_end,1,-4096,5,qp,credit,wqes_left\n"
                  "32,8,spine-host-1,tassel,0,kind31,2,9,10,id,a,b\n"
                  "36,9,h0,engine30,0,kind1,4,5,6,id,a,b\n"));
    if (TEST_FAILS())
        printf("%s", text);
    CHECK_EQ(c.rows, 5);
    CHECK_EQ(c.unnamed, 2);
}

/* A clock whose cycle is not a whole number of ns: ns to the ps. */
static void test_time_at_other_clocks(void)
{
    static char text[1024];
    fm_trace_csv c;
    rnic_trace_event ev[2];
    uint32_t engine[2] = { RNIC_ENGINE_TASSEL, RNIC_ENGINE_TASSEL }, instance[2] = { 0, 0 };
    ev[0] = event(1, RL_TRACE_FETCH, 0, 0, 0);
    ev[1] = event(3000000001ull, RL_TRACE_FETCH, 0, 0, 0); /* 1 s + 1 cycle at 3 GHz */
    write_rows(&c, 3000000000ull, ev, engine, instance, 2, text, sizeof text);
    CHECK(!strcmp(text, FM_TRACE_CSV_HEADER "0.333,1,h0,tassel,0,fetch,0,0,0,qp,wqe_index,offset\n"
                                            "1000000000.333,3000000001,spine-host-1,tassel,0,fetch,0,0,0,qp,wqe_index,offset\n"));
    if (TEST_FAILS())
        printf("%s", text);
    CHECK_EQ(c.unnamed, 0);
}

/* Each pair once; every row's engine named; codes inside the lookup; names without commas
 * (they are CSV fields) or blanks; the legend one line per row and per engine. */
static void test_table(void)
{
    size_t i, j, lines = 0;
    FILE *f;
    int ch;
    for (i = 0; i < NROWS; i++) {
        const fm_trace_name *r = &fm_trace_names[i];
        const char *field[4];
        int known = 0, k;
        field[0] = r->event, field[1] = r->id_is, field[2] = r->a_is, field[3] = r->b_is;
        CHECK(r->engine < FM_TRACE_CODES && r->kind < FM_TRACE_CODES);
        for (j = 0; j < NENGINES; j++)
            known |= fm_trace_engines[j].engine == r->engine;
        CHECK(known);
        for (j = i + 1u; j < NROWS; j++)
            CHECK(!(fm_trace_names[j].engine == r->engine && fm_trace_names[j].kind == r->kind));
        for (k = 0; k < 4; k++)
            CHECK(field[k][0] && !strpbrk(field[k], ", \t\n\""));
    }
    f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    fm_trace_legend(f);
    rewind(f);
    while ((ch = fgetc(f)) != EOF)
        lines += ch == '\n';
    fclose(f);
    CHECK_EQ(lines, 2u + NENGINES + 1u + 2u + NROWS); /* two headed tables, a blank line between */
}

int main(void)
{
    RUN(test_named_and_unnamed_rows);
    RUN(test_time_at_other_clocks);
    RUN(test_table);
    return test_summary();
}
