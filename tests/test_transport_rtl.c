/* The transport engine's RTL timing profile (TP_TIMING_TONIC_RTL) against three traces of Tonic's
 * own Verilog (tests/data/tonic_rtl/README.md: scenario, format, provenance). The receiver and
 * the ACK path are this harness, as the testbench's C receiver was for the RTL: one cumulative
 * ACK per arriving segment, at the engine's input 21 cycles after its segment left, at most one
 * per cycle from a FIFO; drops by (flow, segment, copy). The protocol is Tonic's `reno` user
 * logic (src/user_defined_logic/reno), written here against the public hook interface; the
 * fixed-window traces hold its window. Every TX, IN, TIMEOUT and WND line must match at its
 * cycle; the first difference is printed. Also: the default profile is the paper one, and a bad
 * timing value is refused. */
#include "test.h"
#include "transport.h"

/* ---- Tonic's reno logic (its user context: dup_acks, ss_thresh, wnd_inc_cntr, in_timeout) ----
 * It differs from proto_reno.c (RFC 5681): the window counts segments; a duplicate ACK is one
 * whose cumulative ack equals the old window start (data outstanding or not); every duplicate
 * ACK below 10 outside a timeout adds a segment; the third marks wnd_start alone and sets
 * ssthresh to half the window, without changing the window; the first new ACK after 1-2
 * duplicates takes them back off, after 3 or more sets the window to ssthresh; congestion
 * avoidance adds one segment once wnd_inc_cntr reaches the window; a timeout marks wnd_start,
 * sets the window to 1 and ssthresh to half of it, and blocks fast retransmit until a new ACK;
 * the RTO is never backed off and is restarted by every new ACK. */
typedef struct tonic_reno_ctx {
    uint32_t dup_acks, ss_thresh, wnd_inc_cntr, in_timeout;
} tonic_reno_ctx;

typedef struct tonic_reno_cfg {
    int fixed_window; /* the fixed_* traces: wnd_size_out = wnd_size_in */
} tonic_reno_cfg;

#define TONIC_DUP_THRESH 3u
#define TONIC_MAX_DUP 10u
#define TONIC_MAX_WND 120u

static void tonic_reno_init(const tp_flow_config *p, const void *config, uint64_t hz, void *ctx, tp_actions *act)
{
    (void)config;
    memset(ctx, 0, sizeof(tonic_reno_ctx)); /* user context 0: ssthresh 0, congestion avoidance */
    act->wnd_size = p->init_wnd;
    act->timer_amount = rnic_ns_to_cycles(p->rto_ns, hz);
}

static void tonic_reno_incoming(const tp_event *ev, void *vctx, tp_actions *act)
{
    const tonic_reno_cfg *cfg = (const tonic_reno_cfg *)ev->config;
    tonic_reno_ctx c;
    int new_ack = (int32_t)(ev->new_wnd_start - ev->old_wnd_start) > 0, dup = ev->old_wnd_start == ev->cum_ack;
    uint32_t dups, w = ev->wnd_size, cntr = 0;
    memcpy(&c, vctx, sizeof c);
    dups = new_ack ? 0u : dup ? c.dup_acks + 1u : c.dup_acks;
    if (!c.in_timeout && dups == TONIC_DUP_THRESH) {
        act->mark_rtx = true;
        act->mark_from = ev->new_wnd_start;
        act->mark_to = ev->new_wnd_start + 1u;
    }
    if (new_ack) {
        if (!c.in_timeout && c.dup_acks > 0 && c.dup_acks < TONIC_DUP_THRESH)
            w = ev->wnd_size - c.dup_acks;
        else if (!c.in_timeout && c.dup_acks >= TONIC_DUP_THRESH)
            w = c.ss_thresh;
        else if (ev->wnd_size < c.ss_thresh)
            w = ev->wnd_size + 1u;
        else
            w = c.wnd_inc_cntr == ev->wnd_size ? ev->wnd_size + 1u : ev->wnd_size;
        cntr = c.wnd_inc_cntr == ev->wnd_size ? 0u : c.wnd_inc_cntr + 1u;
    } else if (!c.in_timeout && dup) {
        if (dups < TONIC_MAX_DUP)
            w = ev->wnd_size + 1u;
        cntr = dups >= TONIC_DUP_THRESH ? 0u : c.wnd_inc_cntr;
    } else {
        cntr = c.wnd_inc_cntr;
    }
    if (!c.in_timeout && dups == TONIC_DUP_THRESH)
        c.ss_thresh = ev->wnd_size > 2u ? ev->wnd_size / 2u : 2u;
    c.dup_acks = dups;
    c.wnd_inc_cntr = cntr;
    c.in_timeout = !new_ack && c.in_timeout;
    act->wnd_size = cfg->fixed_window ? ev->wnd_size : (w >= TONIC_MAX_WND ? TONIC_MAX_WND : w);
    act->reset_timer = new_ack != 0;
    memcpy(vctx, &c, sizeof c);
}

static void tonic_reno_timeout(const tp_event *ev, void *vctx, tp_actions *act)
{
    const tonic_reno_cfg *cfg = (const tonic_reno_cfg *)ev->config;
    tonic_reno_ctx c;
    if (!ev->timeout)
        return;
    memcpy(&c, vctx, sizeof c);
    c.ss_thresh = ev->wnd_size > 2u ? ev->wnd_size / 2u : 2u;
    c.dup_acks = c.wnd_inc_cntr = 0;
    c.in_timeout = 1;
    act->mark_rtx = true;
    act->mark_from = ev->wnd_start;
    act->mark_to = ev->wnd_start + 1u;
    act->wnd_size = cfg->fixed_window ? ev->wnd_size : 1u;
    memcpy(vctx, &c, sizeof c);
}

static const tonic_reno_cfg tonic_fixed = {1}, tonic_reno = {0};

static tp_protocol tonic_protocol(const tonic_reno_cfg *cfg)
{
    tp_protocol p;
    memset(&p, 0, sizeof p);
    p.name = cfg->fixed_window ? "tonic-fixed" : "tonic-reno";
    p.credit = TP_CREDIT_WINDOW;
    p.ctx_size = sizeof(tonic_reno_ctx);
    p.init = tonic_reno_init;
    p.incoming = tonic_reno_incoming;
    p.periodic = tonic_reno_timeout;
    p.merge = TP_MERGE_INCOMING;
    p.config = cfg;
    return p;
}

/* ---- the trace lines ---- */

#define MAX_LINES 4096
#define LINE_LEN 64

typedef struct trace_lines {
    char line[MAX_LINES][LINE_LEN];
    uint64_t cycle[MAX_LINES];
    int count;
} trace_lines;

static void lines_add(trace_lines *l, uint64_t cycle, const char *text)
{
    if (l->count >= MAX_LINES)
        return;
    snprintf(l->line[l->count], LINE_LEN, "%s", text);
    l->cycle[l->count] = cycle;
    l->count++;
}

static int lines_cmp(const void *a, const void *b)
{
    const char *x = (const char *)a, *y = (const char *)b;
    unsigned long long cx = strtoull(x + 2, NULL, 10), cy = strtoull(y + 2, NULL, 10);
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return strcmp(x, y);
}

/* Sorted by cycle, then by text: lines of one cycle are compared as a set. */
static void lines_sort(trace_lines *l) { qsort(l->line, (size_t)l->count, LINE_LEN, lines_cmp); }

static uint64_t golden_read(const char *path, trace_lines *g)
{
    FILE *f = fopen(path, "r");
    char buf[128];
    uint64_t last = 0;
    g->count = 0;
    if (!f)
        return 0;
    while (fgets(buf, sizeof buf, f)) {
        size_t n = strlen(buf);
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = 0;
        if (buf[0] != 'T' || buf[1] != ' ')
            continue; /* DROP lines are the receiver's */
        last = strtoull(buf + 2, NULL, 10);
        lines_add(g, last, buf);
    }
    fclose(f);
    return last;
}

/* ---- the scenario ---- */

#define NFLOWS 5
#define MAX_SEQ 8192
#define ACK_DELAY 21u
#define ACK_FIFO 4096

typedef struct drop {
    uint32_t flow, seq, copy;
} drop;

typedef struct run {
    trace_lines out;
    uint64_t timeout_cycle[NFLOWS];
    uint64_t now;
    int armed; /* set once the flows are open: their opening window is no protocol decision */
} run;

static run R;
static trace_lines G;

static void on_trace(void *user, const rnic_trace_event *ev)
{
    char buf[LINE_LEN];
    (void)user;
    if (!R.armed)
        return;
    if (ev->kind == TP_TRACE_TIMEOUT && ev->id < NFLOWS) {
        snprintf(buf, sizeof buf, "T %llu TIMEOUT fid=%u", (unsigned long long)ev->cycle, (unsigned)ev->id);
        lines_add(&R.out, ev->cycle, buf);
        R.timeout_cycle[ev->id] = ev->cycle + 1u;
    } else if (ev->kind == TP_TRACE_WINDOW && ev->id < NFLOWS) {
        snprintf(buf, sizeof buf, "T %llu WND fid=%u new=%llu old=%llu (%s)", (unsigned long long)ev->cycle,
                 (unsigned)ev->id, (unsigned long long)ev->a, (unsigned long long)ev->b,
                 R.timeout_cycle[ev->id] == ev->cycle + 1u ? "timeout" : "incoming");
        lines_add(&R.out, ev->cycle, buf);
    }
}

typedef struct scenario {
    const char *golden;
    const tonic_reno_cfg *logic;
    uint32_t flows[4];
    uint32_t nflows, idle_flow; /* idle_flow: preloaded in the FIFO but never sends (flow 3); 0 = none */
    uint64_t first_read;        /* the trace's cycle of the RTL's first cycle out of reset */
    drop drops[3];
} scenario;

static uint8_t copies[NFLOWS][MAX_SEQ], rtx_count[NFLOWS][MAX_SEQ];
static uint8_t got[NFLOWS][MAX_SEQ];
static uint32_t expected[NFLOWS];
static struct {
    uint64_t due;
    uint32_t flow, cum;
} acks[ACK_FIFO];
static int ack_head, ack_count;
static unsigned char engine_mem[1u << 22];

/* Runs the engine on one scenario; returns how many golden lines matched before the first
 * difference (all of them: G.count) and prints that difference. */
static int replay(const scenario *s)
{
    tp_config cfg;
    tp_flow_config fc;
    tp_protocol proto = tonic_protocol(s->logic);
    tp t;
    rnic_work w;
    uint64_t last, c;
    uint32_t i;
    int k, matched = 0;
    memset(&R, 0, sizeof R);
    memset(copies, 0, sizeof copies);
    memset(rtx_count, 0, sizeof rtx_count);
    memset(got, 0, sizeof got);
    memset(expected, 0, sizeof expected);
    ack_head = ack_count = 0;
    last = golden_read(s->golden, &G);
    CHECK(G.count > 100);
    if (G.count <= 100)
        return 0;
    tp_config_default(&cfg);
    cfg.clock_hz = 100000000u; /* 10 ns a cycle: RTO 300 cycles = 3 us */
    cfg.max_flows = 1024;      /* the RTL's: the timeout scan visits each flow once per 1,024 cycles */
    cfg.window = 128;          /* FLOW_WIN_SIZE */
    cfg.ring = 16;             /* MAX_PKT_QUEUE_SIZE */
    cfg.protocol = &proto;
    cfg.timing = TP_TIMING_TONIC_RTL;
    cfg.trace = on_trace;
    /* The engine starts as the RTL leaves reset: its first cycle reads the active-flow FIFO and
     * the timeout scan reads flow 0. The traces count cycles from a point 9 cycles before that
     * with one flow and 10 with three: the testbench holds reset for (flows / 2 + 10) clock
     * periods, one more with three flows, and the count does not move with it (the scan's
     * phase in the traces, flow f read at f + 9 and f + 10 (mod 1,024), shows the same shift). */
    cfg.start_cycle = s->first_read;
    CHECK_EQ(tp_config_check(&cfg, NULL), RNIC_OK);
    CHECK(tp_mem_size(&cfg) <= sizeof engine_mem);
    CHECK_EQ(tp_init(&t, &cfg, engine_mem, sizeof engine_mem), RNIC_OK);
    tp_flow_config_default(&fc);
    fc.seg_size = 1000;
    fc.init_wnd = 8;
    fc.rto_ns = 3000;
    for (i = 0; i < s->nflows; i++) { /* the testbench's FIFO preload order: flow ids ascending */
        uint32_t f = s->flows[i];
        CHECK_EQ(tp_flow_open(&t, f, &fc), RNIC_OK);
        if (f != s->idle_flow) {
            memset(&w, 0, sizeof w);
            w.flow = f;
            w.len = 1000u << 20; /* an infinite backlog for these runs */
            CHECK_EQ(tp_push_message(&t, &w), RNIC_OK);
        }
    }
    R.armed = 1;
    for (c = tp_now(&t); c <= last; c++) {
        char buf[LINE_LEN];
        R.now = c;
        /* the receiver's ACK FIFO: one ACK per cycle, when due */
        if (ack_count && acks[ack_head].due <= c) {
            rnic_work a;
            memset(&a, 0, sizeof a);
            a.flow = acks[ack_head].flow;
            a.index = acks[ack_head].cum;
            a.flags = TP_WORK_PKT(TP_PKT_ACK);
            CHECK_EQ(tp_push_incoming(&t, &a), RNIC_OK);
            snprintf(buf, sizeof buf, "T %llu IN fid=%u type=3 cum=%u", (unsigned long long)c, (unsigned)a.flow,
                     (unsigned)a.index);
            lines_add(&R.out, c, buf);
            ack_head = (ack_head + 1) % ACK_FIFO;
            ack_count--;
        }
        tp_tick(&t);
        CHECK_EQ(tp_space_incoming(&t), cfg.incoming_depth); /* the engine took it in that cycle */
        while (tp_pop_segment(&t, &w) == RNIC_OK) {
            uint32_t f = w.flow, q = w.index, txid = 0, dropped = 0, d;
            if (f >= NFLOWS || q >= MAX_SEQ) {
                CHECK(f < NFLOWS && q < MAX_SEQ);
                return 0;
            }
            /* txid: the RTL's per-segment transmission count (0 new, +1 per retransmission) */
            if (w.flags & TP_WORK_RTX)
                txid = rtx_count[f][q] < 3u ? ++rtx_count[f][q] : 3u;
            else
                rtx_count[f][q] = 0;
            snprintf(buf, sizeof buf, "T %llu TX fid=%u seq=%u txid=%u", (unsigned long long)w.cycle, (unsigned)f,
                     (unsigned)q, (unsigned)txid);
            lines_add(&R.out, w.cycle, buf);
            copies[f][q]++;
            for (d = 0; d < 3u; d++)
                if (s->drops[d].flow == f && s->drops[d].seq == q && s->drops[d].copy == copies[f][q])
                    dropped = 1;
            if (dropped)
                continue;
            got[f][q] = 1;
            while (expected[f] < MAX_SEQ && got[f][expected[f]])
                expected[f]++;
            if (ack_count < ACK_FIFO) {
                int at = (ack_head + ack_count) % ACK_FIFO;
                acks[at].due = w.cycle + ACK_DELAY;
                acks[at].flow = f;
                acks[at].cum = expected[f];
                ack_count++;
            }
        }
    }
    lines_sort(&R.out);
    lines_sort(&G);
    for (k = 0; k < G.count && k < R.out.count; k++) {
        if (strcmp(G.line[k], R.out.line[k]) != 0)
            break;
        matched++;
    }
    if (matched < G.count || R.out.count != G.count) {
        printf("# %s: %d of %d lines match; first difference: RTL \"%s\", engine \"%s\"\n", s->golden, matched,
               G.count, matched < G.count ? G.line[matched] : "(end)",
               matched < R.out.count ? R.out.line[matched] : "(end)");
    } else {
        printf("# %s: all %d lines match\n", s->golden, G.count);
    }
    return matched;
}

static const scenario fixed_1flow = {"tests/data/tonic_rtl/rtl_fixed_1flow.txt", &tonic_fixed, {1}, 1, 0, 9,
                                     {{1, 5, 1}, {1, 20, 1}, {1, 20, 2}}};
static const scenario fixed_3flows = {"tests/data/tonic_rtl/rtl_fixed_3flows_1-2-4.txt", &tonic_fixed, {1, 2, 3, 4}, 4,
                                      3, 10, {{2, 3, 1}, {1, 5, 1}, {2, 3, 2}}};
static const scenario reno_3flows = {"tests/data/tonic_rtl/rtl_reno_3flows_1-2-4.txt", &tonic_reno, {1, 2, 3, 4}, 4,
                                     3, 10, {{2, 3, 1}, {1, 5, 1}, {2, 3, 2}}};

static void rtl_fixed_1flow(void)
{
    int m = replay(&fixed_1flow);
    CHECK_EQ(m, G.count);
    CHECK_EQ(R.out.count, G.count);
}

static void rtl_fixed_3flows(void)
{
    int m = replay(&fixed_3flows);
    CHECK_EQ(m, G.count);
    CHECK_EQ(R.out.count, G.count);
}

static void rtl_reno_3flows(void)
{
    int m = replay(&reno_3flows);
    CHECK_EQ(m, G.count);
    CHECK_EQ(R.out.count, G.count);
}

/* The default is the paper profile; an unknown profile, or the RTL one with a credit type or ring
 * it does not model, is refused by field. */
static void timing_config(void)
{
    tp_config cfg;
    const char *field = NULL;
    tp_protocol proto = tonic_protocol(&tonic_fixed);
    tp_config_default(&cfg);
    CHECK_EQ(cfg.timing, TP_TIMING_PAPER);
    cfg.protocol = &proto;
    CHECK_EQ(tp_config_check(&cfg, NULL), RNIC_OK);
    cfg.timing = 2;
    CHECK_EQ(tp_config_check(&cfg, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "timing") == 0);
    CHECK_EQ(tp_mem_size(&cfg), 0);
    cfg.timing = TP_TIMING_TONIC_RTL;
    cfg.ring = 4;
    CHECK_EQ(tp_config_check(&cfg, &field), RNIC_EINVAL);
    CHECK(field && strcmp(field, "timing") == 0);
    cfg.ring = 16;
    CHECK_EQ(tp_config_check(&cfg, NULL), RNIC_OK);
    cfg.protocol = tp_protocol_dcqcn();
    CHECK_EQ(tp_config_check(&cfg, &field), RNIC_EINVAL);
}

int main(void)
{
    RUN(timing_config);
    RUN(rtl_fixed_1flow);
    RUN(rtl_fixed_3flows);
    RUN(rtl_reno_3flows);
    return test_summary();
}
