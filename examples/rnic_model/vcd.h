/* vcd.h -- chosen ports of a composed run as a VCD waveform (IEEE 1364 value change dump), for
 * side-by-side comparison with RTL simulation. A hosted helper of the composed RNIC model.
 *
 * A port is one (engine, kind) of the trace events (rnic_trace_event): e.g. Tassel's
 * RNIC_TRACE_OUT, a packet leaving its TX port. Each port becomes three signals in its own
 * scope: `valid` (1 for the cycle of an event, 0 otherwise), `id` (32 bits: the event's id, a
 * flow) and `value` (64 bits: the event's b, e.g. offset << 32 | len). One VCD time unit is one
 * clock cycle (`$timescale` is the clock period, rounded to whole ns). Several events of one port
 * in one cycle: the last one's values are shown (a port moves at most one record per cycle in
 * every engine here, so this does not happen on OUT ports).
 *
 *   rm_vcd v; rm_vcd_port ports[] = { { engine, kind, "host0_tassel_tx" }, ... };
 *   rm_vcd_open(&v, "run.vcd", ports, n, clock_hz);  then rm_vcd_event(&v, ev) from a trace hook;
 *   rm_vcd_close(&v). */
#ifndef RM_VCD_H
#define RM_VCD_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RM_VCD_MAX_PORTS 64

typedef struct rm_vcd_port {
    uint16_t engine, kind;
    const char *name;
} rm_vcd_port;

typedef struct rm_vcd {
    FILE *f;
    rm_vcd_port port[RM_VCD_MAX_PORTS];
    uint8_t high[RM_VCD_MAX_PORTS]; /* valid is 1 since the current time */
    uint32_t nports;
    uint64_t now;                   /* the time last written */
    int any_high;
    uint64_t events;
    uint64_t late;                  /* events older than the dump's time: not shown (counted) */
} rm_vcd;

/* Identifier code of signal s (0 valid, 1 id, 2 value) of port p: printable, unique. */
static void rm_vcd__code(char out[4], uint32_t p, uint32_t s)
{
    uint32_t n = p * 3u + s;
    out[0] = (char)('!' + n % 90u);
    out[1] = (char)('!' + n / 90u);
    out[2] = 0;
}

static void rm_vcd__bits(FILE *f, uint64_t v, unsigned width, const char *code)
{
    int i;
    fputc('b', f);
    for (i = (int)width - 1; i >= 0; i--)
        fputc((v >> i) & 1u ? '1' : '0', f);
    fprintf(f, " %s\n", code);
}

static int rm_vcd_open(rm_vcd *v, const char *path, const rm_vcd_port *ports, uint32_t n, uint64_t clock_hz)
{
    uint32_t p;
    char c[3][4];
    memset(v, 0, sizeof *v);
    if (n > RM_VCD_MAX_PORTS || !(v->f = fopen(path, "w")))
        return -1;
    v->nports = n;
    memcpy(v->port, ports, n * sizeof *ports);
    fprintf(v->f, "$comment rnicq composed RNIC: trace ports, one time unit per clock cycle $end\n");
    fprintf(v->f, "$timescale %llu ns $end\n", (unsigned long long)(clock_hz ? (1000000000ull + clock_hz / 2u) / clock_hz : 1u));
    fprintf(v->f, "$scope module rnic $end\n");
    for (p = 0; p < n; p++) {
        rm_vcd__code(c[0], p, 0);
        rm_vcd__code(c[1], p, 1);
        rm_vcd__code(c[2], p, 2);
        fprintf(v->f, "$scope module %s $end\n$var wire 1 %s valid $end\n$var wire 32 %s id [31:0] $end\n"
                      "$var wire 64 %s value [63:0] $end\n$upscope $end\n",
                ports[p].name, c[0], c[1], c[2]);
    }
    fprintf(v->f, "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n");
    for (p = 0; p < n; p++) {
        rm_vcd__code(c[0], p, 0);
        rm_vcd__code(c[1], p, 1);
        rm_vcd__code(c[2], p, 2);
        fprintf(v->f, "0%s\n", c[0]);
        rm_vcd__bits(v->f, 0, 32, c[1]);
        rm_vcd__bits(v->f, 0, 64, c[2]);
    }
    fprintf(v->f, "$end\n");
    return 0;
}

/* Bring the dump to `cycle`: valids raised at an earlier time fall one cycle after it. */
static void rm_vcd__time(rm_vcd *v, uint64_t cycle)
{
    uint32_t p;
    char code[4];
    if (cycle == v->now)
        return;
    if (v->any_high) {
        fprintf(v->f, "#%llu\n", (unsigned long long)(v->now + 1u));
        for (p = 0; p < v->nports; p++)
            if (v->high[p]) {
                rm_vcd__code(code, p, 0);
                fprintf(v->f, "0%s\n", code);
                v->high[p] = 0;
            }
        v->any_high = 0;
        if (cycle == v->now + 1u) {
            v->now = cycle;
            return;
        }
    }
    fprintf(v->f, "#%llu\n", (unsigned long long)cycle);
    v->now = cycle;
}

/* Record one trace event if it is one of the chosen ports (events arrive in time order). */
static void rm_vcd_event(rm_vcd *v, const rnic_trace_event *ev)
{
    uint32_t p;
    char code[4];
    if (!v->f)
        return;
    for (p = 0; p < v->nports; p++)
        if (v->port[p].engine == ev->engine && v->port[p].kind == ev->kind)
            break;
    if (p == v->nports)
        return;
    if (ev->cycle < v->now) {
        v->late++;
        return;
    }
    rm_vcd__time(v, ev->cycle);
    rm_vcd__code(code, p, 0);
    if (!v->high[p])
        fprintf(v->f, "1%s\n", code);
    v->high[p] = 1;
    v->any_high = 1;
    rm_vcd__code(code, p, 1);
    rm_vcd__bits(v->f, ev->id, 32, code);
    rm_vcd__code(code, p, 2);
    rm_vcd__bits(v->f, ev->b, 64, code);
    v->events++;
}

static void rm_vcd_close(rm_vcd *v)
{
    if (!v->f)
        return;
    rm_vcd__time(v, v->now + 1u);
    fclose(v->f);
    v->f = NULL;
}
#endif
