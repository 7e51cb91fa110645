/* libFuzzer harness for the RHCC engines of hostcc.h (hcc_host_, hcc_rx_, hcc_tx_). FUZZ_MAX_LEN 768
 *
 * The input is decoded into three configs (small sizes, hostile values mixed in; an invalid
 * one must be refused by X_config_check, X_mem_size and X_init alike, and the run stops) and a
 * program of calls on the three engines: packets pushed into the host (zero, oversized, wrapping
 * addresses, probes, a full buffer), MBA levels and CPU loads (out of range), IIO samples for the
 * receiver controller (true readings of the host's counter, or backwards, duplicate, implausible,
 * beyond the counter's width), flows opened and closed, bytes sent, probe ACKs (stale,
 * duplicate, never issued, negative or huge delays), R_cc writes (0, absurd), NULL records, runs
 * and pops; and a closed-loop step that wires them as tests/exercise.h's exercise_hostcc does.
 * Every engine exists twice: A is ticked, B fast-forwarded. After every step the harness checks,
 * against its own model:
 *   - refused calls return the code the model expects and bump errors.by_cause[code] (and the
 *     engine's reason counter), nothing else; accepted calls bump no error counter;
 *   - host: every accepted packet leaves the rx port once, in order, with its fields carried and
 *     aux = its cycles since arrival; packets_in / dropped / bytes match; at the end, drained with
 *     no CPU load, everything accepted has left and every payload byte reached memory or DDIO;
 *     PFC frames alternate PAUSE / RESUME; the MBA level is the last accepted write (0..4);
 *   - rx: samples accepted or refused as the model says; the level stays in 0..4, each MBA
 *     record moves it one step in its direction (ECN mode: never), the cycles at each level add
 *     up to the cycles run;
 *   - tx: R_rev after an ACK equals Eq. 1 computed here in 128-bit arithmetic, within
 *     [min_rate, line]; probe records are numbered 0, 1, ... per open flow, one per probe_bytes
 *     sent; ACKs accepted exactly for produced, not yet acknowledged numbers; rate records carry
 *     min(R_rev, R_cc), and the last one equals hcc_tx_rate;
 *   - fast-forward: A and B agree on everything observable (records, statistics, a digest of
 *     the trace, counters) whenever the program looks, and a tick of A inside the quiet stretch
 *     X_next_event promised changes nothing but the time counters, and no tick of A before the
 *     cycle hcc_host_next_output gave after the last input or output puts a record on a port or
 *     emits a trace event. */
#define RNIC_IMPLEMENTATION
#include "hostcc.h"
#include "fuzz.h"

__extension__ typedef __int128 hf_i128;

#define HF_TX_FLOWS 4u
#define HF_BUDGET 384u          /* cycles A ticks per input */
#define HF_HOST_FIFO 64u        /* accepted packets the model remembers (>= rx_packets + rx_depth) */
#define HF_MEM_WORDS 8192u
#define HF_DRAIN_ROUNDS 64u    /* drain advances in a row without progress (liveness bound) */
#define HF_DRAIN_CHUNK 8192u
/* The bytes one input may have the host accept, in cycles of its slower link (PCIe or memory):
 * the end's drain fast-forwards B through them, and a host whose write waits for credits, or
 * whose memory queue holds lines, has an event every cycle (hcc__host_next). Without a bound a
 * 471 MB packet into a 640 MB buffer (two extreme config values) drained for 36.8 M cycles and
 * timed out under load; a packet that would pass the bound is not pushed (the step is skipped). */
#define HF_DRAIN_BUDGET 2000000u

enum { HF_HOST, HF_RX, HF_TX, HF_ENGINES };

typedef struct hf_trace {
    uint64_t digest, events;
} hf_trace;

typedef struct hf_txflow {
    int open;
    uint64_t produced, acked; /* probe numbers popped (all produced: the port is drained first), ack_next */
    uint64_t requested;       /* probes the bytes sent asked for since open (dropped at close) */
    uint64_t carry;           /* bytes since the last probe request */
    uint64_t r_rev, r_cc, d_old;
    int have_d_old;
    uint64_t last_rate;       /* addr of the last rate record popped (UINT64_MAX: none) */
} hf_txflow;

typedef struct hf_state {
    hcc_host_config hc;
    hcc_rx_config rc;
    hcc_tx_config tc;
    hcc_host ha, hb;
    hcc_rx ra, rb;
    hcc_tx ta, tb;
    hf_trace tr[HF_ENGINES][2];
    uint64_t promise[HF_ENGINES];
    int promised[HF_ENGINES];
    uint64_t promise_out; /* hcc_host_next_output of A, taken after the last input or output */
    uint64_t promise_out_at; /* A's cycle then */
    int promised_out;
    uint64_t ticked;
    /* host model */
    rnic_work fifo[HF_HOST_FIFO]; /* accepted packets not yet out, in order (cycle = arrival) */
    uint32_t fifo_head, fifo_count;
    uint64_t host_refused[RNIC_ERR__COUNT], accepted, accepted_bytes, payload_bytes, dropped, dropped_bytes;
    uint32_t mba_level;
    int ecn, paused, pfc_frames;
    /* rx model */
    uint64_t rx_refused[RNIC_ERR__COUNT], rx_accepted;
    int rx_have_last;
    uint64_t rx_last_cycle, rx_last_cum, rx_mask;
    uint32_t rx_level;        /* level of the last MBA record popped */
    /* tx model */
    hf_txflow fl[HF_TX_FLOWS];
    uint64_t tx_refused[RNIC_ERR__COUNT], tx_clamped;
} hf_state;

static hf_state S;
static uint64_t mem[HF_ENGINES][2][HF_MEM_WORDS];

static void hf_on_event(void *user, const rnic_trace_event *ev)
{
    hf_trace *t = (hf_trace *)user;
    uint64_t x = t->digest ^ ev->cycle ^ ((uint64_t)ev->kind << 48) ^ ((uint64_t)ev->id << 16) ^ ev->a ^ (ev->b << 7);
    t->digest = rnic_splitmix64(&x);
    t->events++;
}

static int hf_later(uint64_t a, uint64_t b) { return a != b && a - b < ((uint64_t)1 << 63); }

/* ---------------------------------------------------------------- configs */

/* Each engine's config: a selector word picks the fields that get hostile values; the others
 * keep small working values. Returns 1 when the engines are set up. */
static int hf_config(fz_in *in)
{
    hcc_host_config *hc = &S.hc;
    hcc_rx_config *rc = &S.rc;
    hcc_tx_config *tc = &S.tc;
    uint32_t sel = fz_u32(in), l;
    uint64_t start = (sel & 0x80000000u) ? UINT64_MAX - fz_u16(in) : 0u;
    const char *field[HF_ENGINES] = { NULL, NULL, NULL }; /* left alone on RNIC_OK */
    rnic_err e[HF_ENGINES];
    size_t need[HF_ENGINES];
    int i, ok = 1;

    hcc_host_config_default(hc);
    hc->rx_buffer_bytes = 8192u;
    hc->rx_packets = 16u;
    hc->xoff_bytes = 6144u;
    hc->xon_bytes = 2048u;
    hc->cnp_bytes = 4096u;
    hc->pcie_latency_ns = 40u;
    hc->iio_lines = 32u;
    hc->iio_mem_credits = 8u;
    hc->mem_queue = 16u;
    hc->cpu_outstanding = 16u;
    hc->ddio_lines = 0u;
    hc->rx_depth = 4u;
    hc->signal_depth = 2u;
    hc->start_cycle = start;
    if (sel & 1u) {
        hc->rx_buffer_bytes = (uint32_t)fz_hostile(in, 1024u, 16384u);
        hc->rx_packets = (uint32_t)fz_hostile(in, 1u, 32u);
    }
    if (sel & 2u) {
        hc->pfc = fz_u8(in) & 1u;
        hc->xoff_bytes = (uint32_t)fz_hostile(in, 1u, hc->rx_buffer_bytes);
        hc->xon_bytes = (uint32_t)fz_hostile(in, 0u, hc->xoff_bytes ? hc->xoff_bytes - 1u : 0u);
        hc->cnp_bytes = (uint32_t)fz_hostile(in, 0u, hc->rx_buffer_bytes);
    }
    if (sel & 4u) {
        hc->pcie_bps = fz_hostile(in, 1000000000u, 256000000000ull);
        hc->pcie_latency_ns = fz_hostile(in, 0u, 400u);
        hc->pcie_mps = (uint32_t)fz_hostile(in, 64u, 512u);
        hc->pcie_tlp_overhead = (uint32_t)fz_hostile(in, 0u, 64u);
    }
    if (sel & 8u) {
        hc->iio_lines = (uint32_t)fz_hostile(in, hc->pcie_mps / 64u + 1u, 64u);
        hc->iio_mem_credits = (uint32_t)fz_hostile(in, 1u, hc->iio_lines);
        hc->mem_queue = (uint32_t)fz_hostile(in, 2u, 32u);
    }
    if (sel & 16u) {
        hc->mem_bps = 8u * fz_hostile(in, 1000000000u, 40000000000ull);
        hc->cpu_outstanding = (uint32_t)fz_hostile(in, 1u, 32u);
        hc->cpu_load_bps = 8u * fz_hostile(in, 0u, 40000000000ull);
        hc->mba_level = (uint32_t)fz_hostile(in, 0u, 4u);
    }
    if (sel & 32u) {
        hc->ddio_ways = (uint32_t)fz_hostile(in, 1u, 4u);
        hc->ddio_lines = hc->ddio_ways * (uint32_t)fz_hostile(in, 1u, 16u);
        hc->cpu_evict_ppm = (uint32_t)fz_hostile(in, 0u, 1000000u);
        hc->cpu_evict_wb = (uint32_t)fz_hostile(in, 0u, HCC_HOST_EVICT_WB_QUEUED);
    }
    if (sel & 64u) {
        hc->rx_depth = (uint32_t)fz_hostile(in, 1u, 8u);
        hc->signal_depth = (uint32_t)fz_hostile(in, 1u, 4u);
    }
    hcc_rx_config_default(rc);
    rc->i_thr = 8u;
    rc->up_samples = 2u;
    rc->slack_ns = 400u;
    rc->sample_depth = 2u;
    rc->action_depth = 2u;
    rc->start_cycle = start;
    if (sel & 128u) {
        rc->i_thr = (uint32_t)fz_hostile(in, 1u, 64u);
        rc->i_low = (uint32_t)fz_hostile(in, 0u, rc->i_thr);
        rc->up_samples = (uint32_t)fz_hostile(in, 1u, 4u);
        rc->slack_ns = fz_hostile(in, 0u, 4000u);
        rc->fast_down = fz_u8(in) & 1u;
    }
    if (sel & 256u) {
        rc->start_level = (uint32_t)fz_hostile(in, 0u, 4u);
        rc->mode = (uint32_t)fz_hostile(in, 0u, 2u);
        rc->counter_bits = (uint32_t)fz_hostile(in, 8u, 64u);
        rc->max_lines = (uint32_t)fz_hostile(in, 1u, 4096u);
    }
    if (sel & 512u) {
        rc->sample_depth = (uint32_t)fz_hostile(in, 1u, 4u);
        rc->action_depth = (uint32_t)fz_hostile(in, 1u, 4u);
        for (l = 0; l < HCC_MBA_LEVELS; l++) /* non-increasing mostly, sometimes not */
            rc->levels_bps[l] = fz_hostile(in, 1u, l ? rc->levels_bps[l - 1u] : HCC_RX_MAX_LEVEL_BPS / 8u);
    }
    hcc_tx_config_default(tc);
    tc->max_flows = HF_TX_FLOWS;
    tc->probe_bytes = 1024u;
    tc->rate_depth = 2u;
    tc->probe_depth = 2u;
    tc->start_cycle = start;
    if (sel & 1024u) {
        tc->link_bps = fz_hostile(in, 1000000000u, 400000000000ull);
        tc->rate_floor_bps = fz_hostile(in, 1u, tc->link_bps);
        tc->max_flows = (uint32_t)fz_hostile(in, 1u, HF_TX_FLOWS);
        tc->probe_bytes = (uint32_t)fz_hostile(in, 64u, 8192u);
    }
    if (sel & 2048u) {
        tc->d_thr_ns = (uint32_t)fz_hostile(in, 0u, 2000u);
        tc->max_delay_ns = (uint32_t)fz_hostile(in, 1u, 1000000u);
        tc->alpha_q32 = fz_hostile(in, 0u, 1u << 24);
        tc->beta_q32 = fz_hostile(in, 0u, 1u << 24);
    }
    if (sel & 4096u) {
        tc->rate_depth = (uint32_t)fz_hostile(in, 1u, 4u);
        tc->probe_depth = (uint32_t)fz_hostile(in, 1u, 4u);
        tc->probe_op = fz_u32(in);
    }
    e[HF_HOST] = hcc_host_config_check(hc, &field[HF_HOST]);
    e[HF_RX] = hcc_rx_config_check(rc, &field[HF_RX]);
    e[HF_TX] = hcc_tx_config_check(tc, &field[HF_TX]);
    need[HF_HOST] = hcc_host_mem_size(hc);
    need[HF_RX] = hcc_rx_mem_size(rc);
    need[HF_TX] = hcc_tx_mem_size(tc);
    for (i = 0; i < HF_ENGINES; i++) {
        if (e[i] != RNIC_OK) { /* refused with a code and a field name, by every entry point */
            FZ_CHECK(e[i] == RNIC_EINVAL && field[i] != NULL && need[i] == 0);
            ok = 0;
        } else {
            FZ_CHECK(field[i] == NULL && need[i] > 0);
            if (need[i] > sizeof mem[i][0])
                ok = 0; /* valid but large (DDIO, deep ports): the config checks are the run */
        }
    }
    if (e[HF_HOST] != RNIC_OK)
        FZ_CHECK(hcc_host_init(&S.ha, hc, mem[HF_HOST][0], sizeof mem[HF_HOST][0]) == RNIC_EINVAL);
    else
        FZ_CHECK(hcc_host_init(&S.ha, hc, mem[HF_HOST][0], need[HF_HOST] - 1u) == RNIC_ENOSPC);
    if (e[HF_RX] != RNIC_OK)
        FZ_CHECK(hcc_rx_init(&S.ra, rc, mem[HF_RX][0], sizeof mem[HF_RX][0]) == RNIC_EINVAL);
    else
        FZ_CHECK(hcc_rx_init(&S.ra, rc, (unsigned char *)mem[HF_RX][0] + 4, need[HF_RX]) == RNIC_EINVAL);
    if (e[HF_TX] != RNIC_OK)
        FZ_CHECK(hcc_tx_init(&S.ta, tc, mem[HF_TX][0], sizeof mem[HF_TX][0]) == RNIC_EINVAL);
    else
        FZ_CHECK(hcc_tx_init(&S.ta, tc, mem[HF_TX][0], need[HF_TX] - 1u) == RNIC_ENOSPC);
    if (!ok || tc->max_flows > HF_TX_FLOWS)
        return 0; /* more flows than the model follows: the config checks are the run */
    if (hc->pcie_latency_ns > 4000u || hc->pcie_bps < 1000000000u || hc->mem_bps < 8000000000u)
        return 0; /* valid but slow (a credit loop of up to 1 ms is ticked: a write waiting for
                   * credits is an event every cycle): millions of ticks per input, checks only */
    hc->trace = rc->trace = tc->trace = hf_on_event;
    hc->trace_user = &S.tr[HF_HOST][0];
    FZ_CHECK(hcc_host_init(&S.ha, hc, mem[HF_HOST][0], need[HF_HOST]) == RNIC_OK);
    hc->trace_user = &S.tr[HF_HOST][1];
    FZ_CHECK(hcc_host_init(&S.hb, hc, mem[HF_HOST][1], need[HF_HOST]) == RNIC_OK);
    rc->trace_user = &S.tr[HF_RX][0];
    FZ_CHECK(hcc_rx_init(&S.ra, rc, mem[HF_RX][0], need[HF_RX]) == RNIC_OK);
    rc->trace_user = &S.tr[HF_RX][1];
    FZ_CHECK(hcc_rx_init(&S.rb, rc, mem[HF_RX][1], need[HF_RX]) == RNIC_OK);
    tc->trace_user = &S.tr[HF_TX][0];
    FZ_CHECK(hcc_tx_init(&S.ta, tc, mem[HF_TX][0], need[HF_TX]) == RNIC_OK);
    tc->trace_user = &S.tr[HF_TX][1];
    FZ_CHECK(hcc_tx_init(&S.tb, tc, mem[HF_TX][1], need[HF_TX]) == RNIC_OK);
    S.mba_level = hc->mba_level;
    S.rx_level = hcc_rx_level(&S.ra);
    FZ_CHECK(S.rx_level == rc->start_level && hcc_host_pcie_credits(&S.ha) == hc->iio_lines);
    S.rx_mask = rc->counter_bits >= 64u ? UINT64_MAX : ((uint64_t)1 << rc->counter_bits) - 1u;
    for (i = 0; i < (int)HF_TX_FLOWS; i++)
        S.fl[i].last_rate = UINT64_MAX;
    return 1;
}

/* ---------------------------------------------------------------- agreement of A and B */

static void hf_same_work(rnic_err ea, const rnic_work *wa, rnic_err eb, const rnic_work *wb)
{
    FZ_CHECK(ea == eb);
    FZ_CHECK(ea != RNIC_OK || memcmp(wa, wb, sizeof *wa) == 0);
}

static void hf_same(void)
{
    rnic_work wa, wb;
    int i;
    FZ_CHECK(hcc_host_now(&S.ha) == hcc_host_now(&S.hb) && hcc_rx_now(&S.ra) == hcc_rx_now(&S.rb) &&
             hcc_tx_now(&S.ta) == hcc_tx_now(&S.tb));
    FZ_CHECK(memcmp(hcc_host_get_stats(&S.ha), hcc_host_get_stats(&S.hb), sizeof(hcc_host_stats)) == 0);
    FZ_CHECK(memcmp(hcc_rx_get_stats(&S.ra), hcc_rx_get_stats(&S.rb), sizeof(hcc_rx_stats)) == 0);
    FZ_CHECK(memcmp(hcc_tx_get_stats(&S.ta), hcc_tx_get_stats(&S.tb), sizeof(hcc_tx_stats)) == 0);
    for (i = 0; i < HF_ENGINES; i++)
        FZ_CHECK(S.tr[i][0].digest == S.tr[i][1].digest);
    FZ_CHECK(hcc_host_iio_occupancy_cum(&S.ha) == hcc_host_iio_occupancy_cum(&S.hb));
    FZ_CHECK(hcc_host_pcie_credits(&S.ha) == hcc_host_pcie_credits(&S.hb));
    FZ_CHECK(hcc_host_next_event(&S.ha) == hcc_host_next_event(&S.hb));
    FZ_CHECK(hcc_rx_next_event(&S.ra) == hcc_rx_next_event(&S.rb));
    FZ_CHECK(hcc_tx_next_event(&S.ta) == hcc_tx_next_event(&S.tb));
    FZ_CHECK(hcc_rx_level(&S.ra) == hcc_rx_level(&S.rb) && hcc_rx_level(&S.ra) < HCC_MBA_LEVELS);
    hf_same_work(hcc_host_peek_rx(&S.ha, &wa), &wa, hcc_host_peek_rx(&S.hb, &wb), &wb);
    hf_same_work(hcc_host_peek_signal(&S.ha, &wa), &wa, hcc_host_peek_signal(&S.hb, &wb), &wb);
    hf_same_work(hcc_rx_peek_action(&S.ra, &wa), &wa, hcc_rx_peek_action(&S.rb, &wb), &wb);
    hf_same_work(hcc_tx_peek_probe(&S.ta, &wa), &wa, hcc_tx_peek_probe(&S.tb, &wb), &wb);
    hf_same_work(hcc_tx_peek_rate(&S.ta, &wa), &wa, hcc_tx_peek_rate(&S.tb, &wb), &wb);
}

/* Statistics a quiet tick may change (time counters; advance adds them too). */
static void hf_host_masked(hcc_host_stats *s)
{
    *s = *hcc_host_get_stats(&S.ha);
    s->cycles = s->pause_cycles = 0;
    /* CPU traffic alone is no event (docs/hostcc_host.md, "CPU traffic alone"): its counters move
     * every cycle like `cycles`; ticked and fast-forwarded engines still agree on them (above) */
    s->mem_lines_cpu_read = s->mem_lines_cpu_write = s->cpu_bytes_served = 0;
}
static void hf_rx_masked(hcc_rx_stats *s)
{
    *s = *hcc_rx_get_stats(&S.ra);
    s->cycles = s->ecn_cycles = 0;
    memset(s->time_at_level, 0, sizeof s->time_at_level);
}

/* One cycle of the A engines; inside a promised quiet stretch nothing observable may change. */
static void hf_tick_a(void)
{
    uint64_t ne[HF_ENGINES], now[HF_ENGINES], ev[HF_ENGINES];
    int quiet[HF_ENGINES], i;
    hcc_host_stats hs0, hs1;
    hcc_rx_stats rs0, rs1;
    hcc_tx_stats ts0, ts1;
    uint32_t counts[5];
    ne[HF_HOST] = hcc_host_next_event(&S.ha);
    ne[HF_RX] = hcc_rx_next_event(&S.ra);
    ne[HF_TX] = hcc_tx_next_event(&S.ta);
    now[HF_HOST] = hcc_host_now(&S.ha);
    now[HF_RX] = hcc_rx_now(&S.ra);
    now[HF_TX] = hcc_tx_now(&S.ta);
    for (i = 0; i < HF_ENGINES; i++) {
        FZ_CHECK(ne[i] == RNIC_NEVER || !hf_later(now[i], ne[i])); /* never in the past */
        if (!S.promised[i]) {
            S.promise[i] = ne[i];
            S.promised[i] = 1;
        }
        quiet[i] = S.promise[i] != now[i];
        ev[i] = S.tr[i][0].events;
    }
    hf_host_masked(&hs0);
    hf_rx_masked(&rs0);
    ts0 = *hcc_tx_get_stats(&S.ta);
    counts[0] = S.ha.out.count;
    counts[1] = S.ha.sig.count;
    counts[2] = S.ra.out.count;
    counts[3] = S.ta.rates.count;
    counts[4] = S.ta.probes.count;
    if (!S.promised_out) {
        S.promise_out = hcc_host_next_output(&S.ha);
        S.promise_out_at = now[HF_HOST];
        S.promised_out = 1;
        FZ_CHECK(S.promise_out == RNIC_NEVER || !hf_later(now[HF_HOST], S.promise_out));
    }
    hcc_host_tick(&S.ha);
    if (S.tr[HF_HOST][0].events != ev[HF_HOST] || S.ha.out.count != counts[0] || S.ha.sig.count != counts[1]) {
        /* a record or trace event: not before the bound */
        if (S.promise_out != RNIC_NEVER)
            FZ_CHECK(!hf_later(S.promise_out, now[HF_HOST]));
        else /* RNIC_NEVER also reads a bound at cycle 2^64 - 1 (documented): not before it */
            FZ_CHECK(now[HF_HOST] - S.promise_out_at >= UINT64_MAX - S.promise_out_at);
        S.promised_out = 0;
    }
    hcc_rx_tick(&S.ra);
    hcc_tx_tick(&S.ta);
    hf_host_masked(&hs1);
    hf_rx_masked(&rs1);
    ts1 = *hcc_tx_get_stats(&S.ta);
    ts0.cycles = ts1.cycles = 0;
    if (quiet[HF_HOST]) {
        FZ_CHECK(S.tr[HF_HOST][0].events == ev[HF_HOST]);
        FZ_CHECK(memcmp(&hs0, &hs1, sizeof hs0) == 0);
        FZ_CHECK(S.ha.out.count == counts[0] && S.ha.sig.count == counts[1]);
    }
    if (quiet[HF_RX]) {
        FZ_CHECK(S.tr[HF_RX][0].events == ev[HF_RX]);
        FZ_CHECK(memcmp(&rs0, &rs1, sizeof rs0) == 0 && S.ra.out.count == counts[2]);
    }
    if (quiet[HF_TX]) {
        FZ_CHECK(S.tr[HF_TX][0].events == ev[HF_TX]);
        FZ_CHECK(memcmp(&ts0, &ts1, sizeof ts0) == 0);
        FZ_CHECK(S.ta.rates.count == counts[3] && S.ta.probes.count == counts[4]);
    }
    for (i = 0; i < HF_ENGINES; i++)
        if (!quiet[i])
            S.promised[i] = 0; /* the promised cycle: read the next promise after it */
    S.ticked++;
}

static void hf_inputs_changed(void)
{
    S.promised[HF_HOST] = S.promised[HF_RX] = S.promised[HF_TX] = 0;
    S.promised_out = 0;
}

/* n cycles: A ticks, B fast-forwards, going on past full ports. */
static void hf_run(uint64_t n, int use_to)
{
    uint64_t i, t[HF_ENGINES];
    t[HF_HOST] = hcc_host_now(&S.hb) + n;
    t[HF_RX] = hcc_rx_now(&S.rb) + n;
    t[HF_TX] = hcc_tx_now(&S.tb) + n;
    for (i = 0; i < n; i++)
        hf_tick_a();
    while (hcc_host_now(&S.hb) != t[HF_HOST]) {
        uint64_t b = hcc_host_now(&S.hb), left = t[HF_HOST] - b;
        uint64_t ran = use_to ? hcc_host_advance_to(&S.hb, t[HF_HOST]) : hcc_host_advance(&S.hb, left);
        FZ_CHECK(ran >= 1u && ran <= left && hcc_host_now(&S.hb) - b == ran);
    }
    while (hcc_rx_now(&S.rb) != t[HF_RX]) {
        uint64_t b = hcc_rx_now(&S.rb), left = t[HF_RX] - b;
        uint64_t ran = use_to ? hcc_rx_advance_to(&S.rb, t[HF_RX]) : hcc_rx_advance(&S.rb, left);
        FZ_CHECK(ran >= 1u && ran <= left && hcc_rx_now(&S.rb) - b == ran);
    }
    while (hcc_tx_now(&S.tb) != t[HF_TX]) {
        uint64_t b = hcc_tx_now(&S.tb), left = t[HF_TX] - b;
        uint64_t ran = use_to ? hcc_tx_advance_to(&S.tb, t[HF_TX]) : hcc_tx_advance(&S.tb, left);
        FZ_CHECK(ran >= 1u && ran <= left && hcc_tx_now(&S.tb) - b == ran);
    }
}

/* ---------------------------------------------------------------- host */

static void hf_host_check_out(const rnic_work *w, uint64_t now)
{
    rnic_work *e;
    uint32_t ce = HCC_WORK_CE;
    FZ_CHECK(S.fifo_count > 0);
    e = &S.fifo[S.fifo_head];
    FZ_CHECK(w->flow == e->flow && w->tag == e->tag && w->addr == e->addr && w->raddr == e->raddr);
    FZ_CHECK(w->len == e->len && w->op == e->op && w->index == e->index && w->status == 0);
    FZ_CHECK((w->flags & ~ce) == (e->flags & ~ce) && (w->flags & ce) == (e->aux & ce)); /* aux: CE expected */
    FZ_CHECK(w->aux == (uint32_t)(w->cycle - e->cycle) && w->offset <= w->aux);
    FZ_CHECK(hf_later(now, w->cycle)); /* it left in a cycle already run */
    S.fifo_head = (S.fifo_head + 1u) % HF_HOST_FIFO;
    S.fifo_count--;
}

static void hf_host_push(fz_in *in)
{
    rnic_work w;
    rnic_err want, ea, eb;
    hcc_host_stats before, after;
    uint32_t space = hcc_host_space_rx(&S.ha), occ = hcc_host_rx_occupancy(&S.ha);
    uint8_t k = fz_u8(in);
    memset(&w, 0, sizeof w);
    w.flow = fz_u8(in);
    w.len = (uint32_t)fz_hostile(in, 1u, 2048u);
    w.addr = (k & 8u) ? UINT64_MAX - fz_u16(in) : (uint64_t)fz_u32(in) << 6;
    w.raddr = fz_u32(in);
    w.tag = S.accepted + S.dropped + ((uint64_t)k << 40);
    w.op = k >> 5;
    w.index = fz_u8(in);
    w.flags = (k & 1u) ? HCC_WORK_PROBE : 0u;
    w.flags |= (k & 2u) ? RNIC_WORK_FIRST : 0u;
    if (w.len == 0)
        want = RNIC_EINVAL;
    else if (w.len > S.hc.rx_buffer_bytes || w.addr > UINT64_MAX - w.len)
        want = RNIC_ERANGE;
    else if (w.len > space)
        want = RNIC_EBUSY; /* dropped */
    else
        want = RNIC_OK;
    if (want == RNIC_OK) {
        uint64_t bps = S.hc.pcie_bps < S.hc.mem_bps ? S.hc.pcie_bps : S.hc.mem_bps;
        hf_i128 cycles = (hf_i128)(S.payload_bytes + w.len) * 8 * S.hc.clock_hz / (bps ? bps : 1u);
        if (cycles > HF_DRAIN_BUDGET)
            return;
    }
    before = *hcc_host_get_stats(&S.ha);
    ea = hcc_host_push_rx(&S.ha, &w);
    eb = hcc_host_push_rx(&S.hb, &w);
    after = *hcc_host_get_stats(&S.ha);
    FZ_CHECK(ea == want && eb == want);
    hf_inputs_changed();
    if (want != RNIC_OK) {
        S.host_refused[want]++;
        FZ_CHECK(after.errors.by_cause[want] == before.errors.by_cause[want] + 1u);
        if (want == RNIC_EBUSY) {
            S.dropped++;
            S.dropped_bytes += w.len;
        }
        FZ_CHECK(after.dropped == S.dropped && after.dropped_bytes == S.dropped_bytes);
        FZ_CHECK(after.packets_in == before.packets_in);
        return;
    }
    FZ_CHECK(memcmp(&after.errors, &before.errors, sizeof after.errors) == 0);
    FZ_CHECK(S.fifo_count < HF_HOST_FIFO);
    w.cycle = hcc_host_now(&S.ha);
    w.aux = (S.ecn || (!S.hc.pfc && occ > S.hc.cnp_bytes)) ? HCC_WORK_CE : 0u; /* the CE the model expects */
    S.fifo[(S.fifo_head + S.fifo_count) % HF_HOST_FIFO] = w;
    S.fifo_count++;
    S.accepted++;
    S.accepted_bytes += w.len;
    if (!(w.flags & HCC_WORK_PROBE))
        S.payload_bytes += w.len;
    FZ_CHECK(after.packets_in == S.accepted && after.bytes_in == S.accepted_bytes);
    FZ_CHECK(hcc_host_rx_occupancy(&S.ha) == occ + w.len);
}

static void hf_host_registers(fz_in *in)
{
    uint8_t k = fz_u8(in);
    hcc_host_stats before = *hcc_host_get_stats(&S.ha), after;
    hf_inputs_changed();
    if (k & 1u) {
        uint32_t level = (uint32_t)fz_hostile(in, 0u, 6u);
        rnic_err want = level < HCC_MBA_LEVELS ? RNIC_OK : RNIC_ERANGE;
        FZ_CHECK(hcc_host_set_mba_level(&S.ha, level) == want && hcc_host_set_mba_level(&S.hb, level) == want);
        after = *hcc_host_get_stats(&S.ha);
        if (want == RNIC_OK) {
            S.mba_level = level;
            FZ_CHECK(memcmp(&after.errors, &before.errors, sizeof after.errors) == 0);
        } else {
            S.host_refused[want]++;
            FZ_CHECK(after.errors.by_cause[want] == before.errors.by_cause[want] + 1u);
        }
        FZ_CHECK(hcc_host_mba_level(&S.ha) == S.mba_level);
    }
    if (k & 2u) { /* CPU load: clamped above the ceiling, never refused */
        uint64_t v = (k & 8u) ? 8u * fz_hostile(in, 0u, 40000000000ull) : 0u; /* b/s */
        uint64_t ceil_bps = S.hc.mem_bps > HCC_MBA_LEVEL_0_BPS ? S.hc.mem_bps : HCC_MBA_LEVEL_0_BPS;
        FZ_CHECK(hcc_host_set_cpu_load(&S.ha, v) == RNIC_OK && hcc_host_set_cpu_load(&S.hb, v) == RNIC_OK);
        after = *hcc_host_get_stats(&S.ha);
        FZ_CHECK(after.cpu_load_clamped == before.cpu_load_clamped + (v > ceil_bps));
        FZ_CHECK(hcc_host_cpu_load(&S.ha) == (v > ceil_bps ? ceil_bps : v));
    }
    if (k & 4u) {
        S.ecn = (k >> 4) & 1u;
        FZ_CHECK(hcc_host_set_ecn(&S.ha, S.ecn) == RNIC_OK && hcc_host_set_ecn(&S.hb, S.ecn) == RNIC_OK);
    }
}

/* ---------------------------------------------------------------- rx */

static void hf_rx_sample(fz_in *in)
{
    hcc_rx_sample s;
    rnic_err ea, eb, want = RNIC_OK;
    hcc_rx_stats before = *hcc_rx_get_stats(&S.ra), after;
    uint8_t k = fz_u8(in);
    s.cycle = hcc_host_now(&S.ha);
    s.cum = hcc_host_iio_occupancy_cum(&S.ha) & S.rx_mask; /* the true reading, at the counter's width */
    switch (k & 7u) {
    case 0: s.cycle = S.rx_last_cycle - fz_u8(in); break; /* duplicate or backwards */
    case 1: s.cum = fz_hostile(in, 0u, S.rx_mask); break;  /* anything, often implausible */
    case 2: s.cycle += fz_u16(in); s.cum = (S.rx_last_cum + fz_u16(in)) & S.rx_mask; break;
    case 3: s.cum = S.rx_mask + 1u + fz_u8(in); break;     /* beyond the counter (0 at 64 bits) */
    default: break;
    }
    hf_inputs_changed();
    if (hcc_rx_space_sample(&S.ra) == 0)
        want = RNIC_EBUSY;
    else if (s.cum > S.rx_mask)
        want = RNIC_ERANGE;
    else if (S.rx_have_last) {
        uint64_t interval = s.cycle - S.rx_last_cycle, occ = (s.cum - S.rx_last_cum) & S.rx_mask;
        if (interval == 0 || interval >= ((uint64_t)1 << 63))
            want = RNIC_EINVAL;
        else if ((hf_i128)occ > (hf_i128)S.rc.max_lines * (hf_i128)interval)
            want = RNIC_ERANGE;
    }
    ea = hcc_rx_push_sample(&S.ra, &s);
    eb = hcc_rx_push_sample(&S.rb, &s);
    after = *hcc_rx_get_stats(&S.ra);
    FZ_CHECK(ea == want && eb == want);
    if (want != RNIC_OK) {
        S.rx_refused[want]++;
        FZ_CHECK(after.errors.by_cause[want] == before.errors.by_cause[want] + 1u);
        FZ_CHECK(rnic_err_total(&after.errors) == rnic_err_total(&before.errors) + 1u && after.samples == before.samples);
        return;
    }
    FZ_CHECK(memcmp(&after.errors, &before.errors, sizeof after.errors) == 0);
    S.rx_have_last = 1;
    S.rx_last_cycle = s.cycle;
    S.rx_last_cum = s.cum;
    S.rx_accepted++;
    FZ_CHECK(after.samples == S.rx_accepted);
}

static void hf_rx_check_action(const rnic_work *w)
{
    uint32_t level = w->aux;
    FZ_CHECK(level < HCC_MBA_LEVELS && w->addr == S.rc.levels_bps[level]);
    FZ_CHECK(S.rc.mode != HCC_RX_MODE_OFF);
    FZ_CHECK(w->op == 0 && !(w->flags & HCC_RX_WORK_MBA) != !(w->flags & HCC_RX_WORK_ECN)); /* op never written; one of the two */
    if (w->flags & HCC_RX_WORK_MBA) {
        FZ_CHECK(S.rc.mode == HCC_RX_MODE_MBA);
        if (!(w->flags & HCC_RX_WORK_MERGED)) { /* one step, in the direction it says */
            if (w->flags & HCC_RX_WORK_DOWN)
                FZ_CHECK(level == S.rx_level + 1u);
            else
                FZ_CHECK((w->flags & HCC_RX_WORK_UP) && level + 1u == S.rx_level);
        }
    } else {
        FZ_CHECK((w->flags & HCC_RX_WORK_ECN) && S.rc.mode == HCC_RX_MODE_ECN && level == S.rc.start_level);
    }
    S.rx_level = level;
}

/* ---------------------------------------------------------------- tx */

static void hf_tx_check_probe(const rnic_work *w)
{
    hf_txflow *f;
    FZ_CHECK(w->flow < S.tc.max_flows);
    f = &S.fl[w->flow];
    FZ_CHECK(w->flags == HCC_WORK_PROBE && w->op == S.tc.probe_op && w->len == 0 && w->tag == 0);
    FZ_CHECK(w->index == (uint32_t)f->produced); /* numbered 0, 1, ... per open */
    f->produced++;
    FZ_CHECK(f->produced <= f->requested);
}

static void hf_tx_check_rate(const rnic_work *w)
{
    hf_txflow *f;
    FZ_CHECK(w->flow < S.tc.max_flows);
    f = &S.fl[w->flow];
    FZ_CHECK(f->r_rev >= S.tc.rate_floor_bps && f->r_rev <= S.tc.link_bps); /* R_rev in its bounds */
    FZ_CHECK(w->raddr == 0 && w->op == 0 && w->tag == 0);                  /* never written */
    /* produced after the flow's last input (each input drains the ports first): the model's
     * R_rev and min(R_rev, R_cc), and a change from the record before */
    FZ_CHECK(f->open && w->addr == (f->r_rev < f->r_cc ? f->r_rev : f->r_cc));
    FZ_CHECK(w->addr != f->last_rate);
    f->last_rate = w->addr;
}

/* Pop everything from both engines in lockstep and check it. */
static void hf_pop_all(void)
{
    rnic_work wa, wb;
    rnic_err ea, eb;
    hf_inputs_changed();
    for (;;) {
        ea = hcc_host_pop_rx(&S.ha, &wa);
        eb = hcc_host_pop_rx(&S.hb, &wb);
        hf_same_work(ea, &wa, eb, &wb);
        if (ea != RNIC_OK)
            break;
        hf_host_check_out(&wa, hcc_host_now(&S.ha));
    }
    for (;;) {
        ea = hcc_host_pop_signal(&S.ha, &wa);
        eb = hcc_host_pop_signal(&S.hb, &wb);
        hf_same_work(ea, &wa, eb, &wb);
        if (ea != RNIC_OK)
            break;
        FZ_CHECK(S.hc.pfc && wa.op == 0 && (wa.flags & (HCC_HOST_WORK_PAUSE | HCC_HOST_WORK_RESUME)) ==
                                              (S.paused ? HCC_HOST_WORK_RESUME : HCC_HOST_WORK_PAUSE)); /* alternate */
        S.paused = !S.paused;
    }
    for (;;) {
        ea = hcc_rx_pop_action(&S.ra, &wa);
        eb = hcc_rx_pop_action(&S.rb, &wb);
        hf_same_work(ea, &wa, eb, &wb);
        if (ea != RNIC_OK)
            break;
        hf_rx_check_action(&wa);
    }
    for (;;) {
        ea = hcc_tx_pop_probe(&S.ta, &wa);
        eb = hcc_tx_pop_probe(&S.tb, &wb);
        hf_same_work(ea, &wa, eb, &wb);
        if (ea != RNIC_OK)
            break;
        hf_tx_check_probe(&wa);
    }
    for (;;) {
        ea = hcc_tx_pop_rate(&S.ta, &wa);
        eb = hcc_tx_pop_rate(&S.tb, &wb);
        hf_same_work(ea, &wa, eb, &wb);
        if (ea != RNIC_OK)
            break;
        hf_tx_check_rate(&wa);
    }
}

/* Eq. 1 of RHCC: R_rev = R_rev x (1 - alpha (D_cur - D_thr) - beta (D_cur - D_old)), alpha and
 * beta per ns in Q0.32, floored, kept >= 0, then clamped into [min_rate, line]. */
static uint64_t hf_eq1(const hf_txflow *f, uint64_t d_cur)
{
    hf_i128 bracket = ((hf_i128)1 << 32) - (hf_i128)S.tc.alpha_q32 * ((hf_i128)d_cur - S.tc.d_thr_ns) -
                      (hf_i128)S.tc.beta_q32 * ((hf_i128)d_cur - (hf_i128)f->d_old);
    hf_i128 r = bracket <= 0 ? 0 : ((hf_i128)f->r_rev * bracket) >> 32;
    if (r < (hf_i128)S.tc.rate_floor_bps)
        return S.tc.rate_floor_bps;
    return r > (hf_i128)S.tc.link_bps ? S.tc.link_bps : (uint64_t)r;
}

static uint64_t hf_clamp_tx(uint64_t bps, int *clamped)
{
    *clamped = bps < S.tc.rate_floor_bps || bps > S.tc.link_bps;
    return bps < S.tc.rate_floor_bps ? S.tc.rate_floor_bps : bps > S.tc.link_bps ? S.tc.link_bps : bps;
}

/* One tx input (kind 0 open, 1 close, 2 sent, 3 ACK, 4 R_cc) checked against the model. */
static void hf_tx_input(fz_in *in, uint32_t kind)
{
    uint32_t flow = (uint32_t)fz_hostile(in, 0u, S.tc.max_flows - 1u);
    hf_txflow *f = flow < S.tc.max_flows ? &S.fl[flow] : NULL;
    int open = f && f->open, clamped = 0;
    hcc_tx_stats before, after;
    rnic_err want = RNIC_OK, ea, eb;
    uint64_t v = 0;
    rnic_work ack, sent;
    hcc_tx_flow_config fc;
    hcc_tx_flow_view g;
    hf_pop_all(); /* every record produced is in the model before an input depends on it */
    before = *hcc_tx_get_stats(&S.ta);
    switch (kind) {
    case 0:
        v = fz_hostile(in, S.tc.rate_floor_bps, S.tc.link_bps);
        want = !f ? RNIC_ENOENT : open ? RNIC_EEXIST : RNIC_OK;
        hcc_tx_flow_config_default(&fc);
        fc.init_rate_bps = v; /* 0: link_bps */
        ea = hcc_tx_flow_open(&S.ta, flow, &fc);
        eb = hcc_tx_flow_open(&S.tb, flow, v ? &fc : NULL); /* NULL: the defaults, 0 */
        break;
    case 1:
        want = open ? RNIC_OK : RNIC_ENOENT;
        ea = hcc_tx_flow_close(&S.ta, flow);
        eb = hcc_tx_flow_close(&S.tb, flow);
        break;
    case 2:
        v = fz_hostile(in, 0u, 4u * S.tc.probe_bytes);
        if (v > UINT32_MAX)
            v = UINT32_MAX; /* a record's len */
        want = !open ? RNIC_ENOENT : RNIC_OK;
        memset(&sent, 0, sizeof sent);
        sent.flow = flow;
        sent.len = (uint32_t)v;
        ea = hcc_tx_push_sent(&S.ta, &sent);
        eb = hcc_tx_push_sent(&S.tb, &sent);
        break;
    case 3: {
        uint8_t k = fz_u8(in);
        memset(&ack, 0, sizeof ack);
        ack.flow = flow;
        ack.index = f ? (uint32_t)(f->acked + (k & 3u)) - ((k & 4u) ? 2u : 0u) : fz_u32(in);
        if (k & 8u)
            ack.index = fz_u32(in);
        ack.addr = fz_u32(in);
        ack.raddr = ack.addr + fz_hostile(in, 0u, 2u * S.tc.max_delay_ns);
        if (k & 16u)
            ack.raddr = ack.addr - 1u - fz_u8(in); /* acknowledged before received */
        if (!open) {
            want = RNIC_ENOENT;
        } else {
            uint64_t d = (uint32_t)(ack.index - (uint32_t)f->acked);
            if (d >= f->produced - f->acked) /* not produced, or not newer than the last ACK */
                want = (uint64_t)ack.index < f->acked ? RNIC_ESTALE : RNIC_ENOENT;
            else if (ack.raddr < ack.addr || ack.raddr - ack.addr > S.tc.max_delay_ns)
                want = RNIC_ERANGE;
        }
        ea = hcc_tx_push_probe_ack(&S.ta, &ack);
        eb = hcc_tx_push_probe_ack(&S.tb, &ack);
        break;
    }
    default:
        v = fz_u8(in) < 40u ? 0u : fz_hostile(in, S.tc.rate_floor_bps, S.tc.link_bps);
        want = open ? RNIC_OK : RNIC_ENOENT;
        ea = hcc_tx_set_rcc(&S.ta, flow, v);
        eb = hcc_tx_set_rcc(&S.tb, flow, v);
        break;
    }
    hf_inputs_changed();
    after = *hcc_tx_get_stats(&S.ta);
    FZ_CHECK(ea == want && eb == want);
    if (want != RNIC_OK) {
        S.tx_refused[want]++;
        FZ_CHECK(after.errors.by_cause[want] == before.errors.by_cause[want] + 1u);
        after.errors.by_cause[want]--;
        FZ_CHECK(memcmp(&after.errors, &before.errors, sizeof after.errors) == 0);
        FZ_CHECK(!f || !f->open || (hcc_tx_flow_state(&S.ta, flow, &g) == RNIC_OK && g.r_rev == f->r_rev)); /* state intact */
        return;
    }
    FZ_CHECK(memcmp(&after.errors, &before.errors, sizeof after.errors) == 0);
    switch (kind) {
    case 0:
        memset(f, 0, sizeof *f);
        f->open = 1;
        f->r_rev = v ? hf_clamp_tx(v, &clamped) : S.tc.link_bps;
        f->r_cc = S.tc.link_bps;
        f->last_rate = UINT64_MAX;
        S.tx_clamped += (uint64_t)clamped;
        break;
    case 1:
        f->open = 0;
        f->requested = f->produced; /* what was not produced is dropped */
        break;
    case 2:
        f->requested += (f->carry + v) / S.tc.probe_bytes;
        f->carry = (f->carry + v) % S.tc.probe_bytes;
        break;
    case 3: {
        uint64_t d_cur = ack.raddr - ack.addr;
        if (!f->have_d_old)
            f->d_old = d_cur;
        f->have_d_old = 1;
        f->r_rev = hf_eq1(f, d_cur);
        f->d_old = d_cur;
        f->acked += (uint32_t)(ack.index - (uint32_t)f->acked) + 1u;
        break;
    }
    default:
        f->r_cc = v ? hf_clamp_tx(v, &clamped) : 0u;
        S.tx_clamped += (uint64_t)clamped;
        break;
    }
    if (f->open) {
        FZ_CHECK(hcc_tx_flow_state(&S.ta, flow, &g) == RNIC_OK && g.open);
        FZ_CHECK(g.r_rev == f->r_rev && g.r_cc == f->r_cc);
        FZ_CHECK(hcc_tx_rate(&S.ta, flow) == (f->r_rev < f->r_cc ? f->r_rev : f->r_cc));
    } else {
        FZ_CHECK(hcc_tx_rate(&S.ta, flow) == 0);
    }
    FZ_CHECK(after.rate_clamped == S.tx_clamped);
}

/* ---------------------------------------------------------------- refused NULLs */

static void hf_nulls(void)
{
    rnic_work w;
    uint64_t h0 = rnic_err_total(&hcc_host_get_stats(&S.ha)->errors);
    uint64_t r0 = rnic_err_total(&hcc_rx_get_stats(&S.ra)->errors);
    uint64_t t0 = rnic_err_total(&hcc_tx_get_stats(&S.ta)->errors);
    hcc_tx_flow_view v;
    memset(&w, 0, sizeof w);
    FZ_CHECK(hcc_host_push_rx(&S.ha, NULL) == RNIC_EINVAL && hcc_host_push_rx(&S.hb, NULL) == RNIC_EINVAL);
    FZ_CHECK(hcc_host_pop_rx(&S.ha, NULL) == RNIC_EINVAL && hcc_host_pop_rx(&S.hb, NULL) == RNIC_EINVAL);
    FZ_CHECK(hcc_host_peek_signal(&S.ha, NULL) == RNIC_EINVAL && hcc_host_peek_signal(&S.hb, NULL) == RNIC_EINVAL);
    S.host_refused[RNIC_EINVAL] += 3u;
    FZ_CHECK(rnic_err_total(&hcc_host_get_stats(&S.ha)->errors) == h0 + 3u);
    FZ_CHECK(hcc_rx_push_sample(&S.ra, NULL) == RNIC_EINVAL && hcc_rx_push_sample(&S.rb, NULL) == RNIC_EINVAL);
    FZ_CHECK(hcc_rx_pop_action(&S.ra, NULL) == RNIC_EINVAL && hcc_rx_pop_action(&S.rb, NULL) == RNIC_EINVAL);
    S.rx_refused[RNIC_EINVAL] += 2u;
    FZ_CHECK(rnic_err_total(&hcc_rx_get_stats(&S.ra)->errors) == r0 + 2u);
    FZ_CHECK(hcc_tx_push_probe_ack(&S.ta, NULL) == RNIC_EINVAL && hcc_tx_push_probe_ack(&S.tb, NULL) == RNIC_EINVAL);
    FZ_CHECK(hcc_tx_pop_rate(&S.ta, NULL) == RNIC_EINVAL && hcc_tx_pop_rate(&S.tb, NULL) == RNIC_EINVAL);
    FZ_CHECK(hcc_tx_push_sent(&S.ta, NULL) == RNIC_EINVAL && hcc_tx_push_sent(&S.tb, NULL) == RNIC_EINVAL);
    S.tx_refused[RNIC_EINVAL] += 3u;
    FZ_CHECK(rnic_err_total(&hcc_tx_get_stats(&S.ta)->errors) == t0 + 3u);
    FZ_CHECK(hcc_tx_space_sent(&S.ta) == UINT32_MAX && hcc_tx_space_sent(NULL) == 0);
    FZ_CHECK(hcc_tx_space_probe_ack(&S.ta) == UINT32_MAX && hcc_tx_space_probe_ack(NULL) == 0);
    FZ_CHECK(hcc_host_push_rx(NULL, &w) == RNIC_EINVAL && hcc_rx_advance(NULL, 3) == 0);
    FZ_CHECK(hcc_tx_flow_state(&S.ta, S.tc.max_flows, &v) == RNIC_ENOENT && hcc_tx_rate(&S.ta, UINT32_MAX) == 0);
}

/* Error counters of each engine equal the harness's refusals. */
static void hf_check_counters(void)
{
    uint32_t c;
    for (c = 1; c < RNIC_ERR__COUNT; c++) {
        FZ_CHECK(hcc_host_get_stats(&S.ha)->errors.by_cause[c] == S.host_refused[c]);
        FZ_CHECK(hcc_rx_get_stats(&S.ra)->errors.by_cause[c] == S.rx_refused[c]);
        FZ_CHECK(hcc_tx_get_stats(&S.ta)->errors.by_cause[c] == S.tx_refused[c]);
    }
    {
        const hcc_rx_stats *rs = hcc_rx_get_stats(&S.ra);
        uint64_t sum = 0;
        for (c = 0; c < HCC_MBA_LEVELS; c++)
            sum += rs->time_at_level[c];
        FZ_CHECK(sum == rs->cycles && hcc_rx_level(&S.ra) < HCC_MBA_LEVELS);
        FZ_CHECK(S.rc.mode == HCC_RX_MODE_MBA || hcc_rx_level(&S.ra) == S.rc.start_level);
    }
    {
        const hcc_host_stats *hs = hcc_host_get_stats(&S.ha);
        FZ_CHECK(hs->packets_in == S.accepted && hs->packets_in == hs->packets_out + S.fifo_count - S.ha.out.count);
        FZ_CHECK(hs->bytes_to_memory_or_ddio <= S.payload_bytes);
    }
}

/* ---------------------------------------------------------------- the closed loop */

/* One step of the loop exercise_hostcc wires: delivered packets count as sent by the sender
 * controller, the receiver controller's actions are written into the host, probes are answered
 * with the host's delay, and the host's counter is sampled. */
static void hf_loop_step(void)
{
    rnic_work w;
    uint32_t i;
    hf_inputs_changed();
    for (i = 0; i < 4u && hcc_host_peek_rx(&S.ha, &w) == RNIC_OK; i++) {
        FZ_CHECK(hcc_host_pop_rx(&S.ha, &w) == RNIC_OK);
        {
            rnic_work wb;
            FZ_CHECK(hcc_host_pop_rx(&S.hb, &wb) == RNIC_OK && memcmp(&w, &wb, sizeof w) == 0);
        }
        hf_host_check_out(&w, hcc_host_now(&S.ha));
        if (w.flow < S.tc.max_flows && S.fl[w.flow].open) {
            hf_txflow *f = &S.fl[w.flow];
            FZ_CHECK(hcc_tx_push_sent(&S.ta, &w) == RNIC_OK && hcc_tx_push_sent(&S.tb, &w) == RNIC_OK);
            f->requested += (f->carry + w.len) / S.tc.probe_bytes;
            f->carry = (f->carry + w.len) % S.tc.probe_bytes;
        }
    }
    while (hcc_rx_peek_action(&S.ra, &w) == RNIC_OK) {
        rnic_work wb;
        FZ_CHECK(hcc_rx_pop_action(&S.ra, &w) == RNIC_OK && hcc_rx_pop_action(&S.rb, &wb) == RNIC_OK);
        FZ_CHECK(memcmp(&w, &wb, sizeof w) == 0);
        hf_rx_check_action(&w);
        if (w.flags & HCC_RX_WORK_MBA) {
            FZ_CHECK(hcc_host_set_mba_level(&S.ha, w.aux) == RNIC_OK && hcc_host_set_mba_level(&S.hb, w.aux) == RNIC_OK);
            S.mba_level = w.aux;
        } else {
            S.ecn = (w.flags & HCC_WORK_CE) != 0;
            FZ_CHECK(hcc_host_set_ecn(&S.ha, S.ecn) == RNIC_OK && hcc_host_set_ecn(&S.hb, S.ecn) == RNIC_OK);
        }
    }
    if (hcc_rx_space_sample(&S.ra) && (!S.rx_have_last || hf_later(hcc_host_now(&S.ha), S.rx_last_cycle))) {
        hcc_rx_sample s;
        s.cycle = hcc_host_now(&S.ha);
        s.cum = hcc_host_iio_occupancy_cum(&S.ha) & S.rx_mask;
        if (!S.rx_have_last ||
            (hf_i128)((s.cum - S.rx_last_cum) & S.rx_mask) <= (hf_i128)S.rc.max_lines * (hf_i128)(s.cycle - S.rx_last_cycle)) {
            FZ_CHECK(hcc_rx_push_sample(&S.ra, &s) == RNIC_OK && hcc_rx_push_sample(&S.rb, &s) == RNIC_OK);
            S.rx_have_last = 1;
            S.rx_last_cycle = s.cycle;
            S.rx_last_cum = s.cum;
            S.rx_accepted++;
        }
    }
}

/* ---------------------------------------------------------------- the end: drain the host */

/* Work the host has done: a chunk of cycles that changes none of it made no progress. */
static uint64_t hf_host_progress(void)
{
    const hcc_host_stats *hs = hcc_host_get_stats(&S.hb);
    return hs->pcie_writes + hs->credits_returned + hs->iio_lines_in + hs->iio_lines_freed + hs->packets_out +
           hs->probes;
}

static void hf_drain(void)
{
    uint32_t i, quiet = 0, still = 0;
    uint64_t progress = hf_host_progress();
    const hcc_host_stats *hs;
    FZ_CHECK(hcc_host_set_cpu_load(&S.hb, 0) == RNIC_OK);
    for (i = 0;; i++) {
        rnic_work w;
        /* liveness: the host empties, and never spends a chunk longer than its credit loop
         * without progress (a slow config, e.g. 1 ms of PCIe latency, takes many chunks) */
        FZ_CHECK(still < HF_DRAIN_ROUNDS);
        if (hf_host_progress() != progress) {
            progress = hf_host_progress();
            still = 0;
        } else if (i) {
            still++;
        }
        while (hcc_host_pop_rx(&S.hb, &w) == RNIC_OK) {
            hf_host_check_out(&w, hcc_host_now(&S.hb));
            quiet = 0;
        }
        while (hcc_host_pop_signal(&S.hb, &w) == RNIC_OK) {
            FZ_CHECK(S.hc.pfc && (w.flags & (HCC_HOST_WORK_PAUSE | HCC_HOST_WORK_RESUME)) ==
                                     (S.paused ? HCC_HOST_WORK_RESUME : HCC_HOST_WORK_PAUSE));
            S.paused = !S.paused;
            quiet = 0;
        }
        /* RNIC_NEVER also reads "an event at cycle 2^64 - 1": one more advance runs past it */
        if (hcc_host_next_event(&S.hb) != RNIC_NEVER)
            quiet = 0;
        else if (quiet++)
            break;
        /* chunks, not one long advance: a write that waits for credits forever is an event
         * every cycle, and the round limit above turns it into a finding, not a timeout */
        FZ_CHECK(hcc_host_advance(&S.hb, HF_DRAIN_CHUNK + 2u * S.hb.lat) >= 1u);
    }
    hs = hcc_host_get_stats(&S.hb);
    FZ_CHECK(S.fifo_count == 0); /* every accepted packet left once */
    FZ_CHECK(hs->packets_out == S.accepted && hs->packets_in == S.accepted);
    FZ_CHECK(hs->bytes_to_memory_or_ddio == S.payload_bytes); /* every payload byte was written */
    FZ_CHECK(hcc_host_rx_occupancy(&S.hb) == 0 && hcc_host_iio_occupancy(&S.hb) == 0);
    FZ_CHECK(hcc_host_pcie_credits(&S.hb) == S.hc.iio_lines); /* every credit came back */
    FZ_CHECK(!S.hc.pfc || !S.paused || hs->pfc_pauses == hs->pfc_resumes + 1u);
}

/* ---------------------------------------------------------------- the program */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in;
    uint32_t steps = 0, i;
    fz_init(&in, data, size);
    memset(&S, 0, sizeof S);
    if (!hf_config(&in))
        return 0;
    hf_same();
    while (fz_more(&in) && steps++ < 160u) {
        uint8_t op = fz_u8(&in);
        switch (op % 13u) {
        case 0:
        case 1:
            hf_host_push(&in);
            break;
        case 2:
            hf_host_registers(&in);
            break;
        case 3:
            hf_rx_sample(&in);
            break;
        case 4:
            hf_tx_input(&in, fz_u8(&in) % 5u);
            break;
        case 5:
            hf_tx_input(&in, 2u);
            break;
        case 6:
            hf_tx_input(&in, 3u);
            break;
        case 7:
        case 8: {
            uint64_t n = fz_u8(&in) & 1u ? fz_u8(&in) % 64u : fz_u16(&in) % 256u;
            if (S.ticked + n > HF_BUDGET)
                n = HF_BUDGET - S.ticked;
            hf_run(n, op & 16u);
            hf_same();
            break;
        }
        case 9:
            hf_pop_all();
            hf_same();
            hf_check_counters();
            break;
        case 10:
            hf_nulls();
            hf_same();
            break;
        default: /* the closed loop, a few cycles at a time */
            for (i = 0; i < 4u; i++) {
                hf_loop_step();
                hf_run(S.ticked + 8u > HF_BUDGET ? HF_BUDGET - S.ticked : 8u, 0);
            }
            hf_same();
            break;
        }
    }
    hf_pop_all();
    hf_same();
    hf_check_counters();
    for (i = 0; i < S.tc.max_flows; i++) { /* the last rate record holds R_trans once all are out */
        const hf_txflow *f = &S.fl[i];
        if (f->open && !S.tb.flows[i].rate_pending && S.tb.flows[i].out_rate != UINT64_MAX)
            FZ_CHECK(f->last_rate == hcc_tx_rate(&S.tb, i));
    }
    hf_drain();
#ifdef HF_VERBOSE /* -DHF_VERBOSE: what a seed reached (writing the seed corpus) */
    fprintf(stderr, "end: steps %u ticked %llu in %llu out %llu dropped %llu marked %llu pauses %llu stalls %llu "
            "ddio %llu samples %llu downs %llu ups %llu ecn_on %llu merged %llu acks %llu probes %llu rates %llu "
            "refused %llu/%llu/%llu\n", steps, (unsigned long long)S.ticked, (unsigned long long)S.accepted,
            (unsigned long long)S.hb.stats.packets_out, (unsigned long long)S.dropped,
            (unsigned long long)S.hb.stats.marked, (unsigned long long)S.hb.stats.pfc_pauses,
            (unsigned long long)S.hb.stats.pcie_stalled_writes, (unsigned long long)S.hb.stats.ddio_misses,
            (unsigned long long)S.ra.stats.samples, (unsigned long long)S.ra.stats.level_downs,
            (unsigned long long)S.ra.stats.level_ups, (unsigned long long)S.ra.stats.ecn_on,
            (unsigned long long)S.ra.stats.merged, (unsigned long long)S.ta.stats.probe_acks,
            (unsigned long long)S.ta.stats.probes_out, (unsigned long long)S.ta.stats.rate_records,
            (unsigned long long)rnic_err_total(&S.ha.stats.errors), (unsigned long long)rnic_err_total(&S.ra.stats.errors),
            (unsigned long long)rnic_err_total(&S.ta.stats.errors));
#endif
    return 0;
}
