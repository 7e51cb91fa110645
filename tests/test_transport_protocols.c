/* The TCP protocols of transport.h (Reno, NewReno, SACK) against independent references.
 *
 * The hooks run inside a small emulation of the engine's fixed parts (the Incoming fixed stage,
 * segment generation, the rtx timer rules of the contract) over plain W = 128 bit arrays; no
 * engine code is used. The references are written separately, per segment and with loops:
 *   - Reno: RFC 5681 (+ RFC 3042 limited transmit), BSD-style go-back-N pointer after a timeout;
 *   - NewReno: ns-3 3.37 TcpSocketBase + TcpNewReno + TcpClassicRecovery, per-segment "sacked /
 *     lost / retransmitted" flags as ns-3's TcpTxBuffer (AddRenoSack, MarkHeadAsLost,
 *     BytesInFlight by a loop), ns-3's congestion avoidance in double arithmetic;
 *   - SACK: RFC 6675 IsLost / SetPipe / NextSeg by loops over a scoreboard (with the interface's
 *     one-mark-range-per-ACK limit: NextSeg stops at the end of the first run of lost segments).
 * Each ACK or timeout goes to both; after it the segments the emulated engine generates must be
 * the segments the reference sends, in order, and cwnd, ssthresh and the timer must agree. */
#define TP_IMPLEMENTATION
#include "transport.h"
#include "test.h"

#define W 128u
#define RN 4096u /* reference per-segment arrays (ids mod RN) */
#define MAXOUT 512u

static bool before(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

/* ---------------- the engine's fixed parts, emulated ---------------- */

typedef struct emu {
    const tp_protocol *p;
    tp_flow_config fp;
    uint64_t hz, now, deadline, amount;
    uint64_t acked[W / 64], marked[W / 64], rtxc[W / 64];
    uint32_t ws, wnd, hs, end;
    bool running;
    unsigned char buf[80], *ctx; /* the context at an odd address */
    uint32_t bad_marks, bad_wnd, max_wnd;
    uint32_t out[MAXOUT], nout;
    bool out_rtx[MAXOUT];
} emu;

static bool bit(const uint64_t *m, uint32_t s) { return (m[(s % W) / 64] >> (s % 64)) & 1u; }
static void bset(uint64_t *m, uint32_t s, bool v)
{
    if (v)
        m[(s % W) / 64] |= (uint64_t)1 << (s % 64);
    else
        m[(s % W) / 64] &= ~((uint64_t)1 << (s % 64));
}

static void emu_event(const emu *e, tp_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->now = e->now;
    ev->acked.words = e->acked, ev->marked_for_rtx.words = e->marked, ev->rtx_cnt.words = e->rtxc;
    ev->acked.nbits = ev->marked_for_rtx.nbits = ev->rtx_cnt.nbits = W;
    ev->acked.base = ev->marked_for_rtx.base = ev->rtx_cnt.base = e->ws;
    ev->wnd_start = ev->old_wnd_start = ev->new_wnd_start = e->ws;
    ev->wnd_size = e->wnd, ev->highest_sent = e->hs, ev->data_end = e->end;
    ev->timer_amount = e->amount, ev->timer_running = e->running;
    ev->params = &e->fp, ev->window_bits = W, ev->clock_hz = e->hz;
}

static void emu_preset(const emu *e, tp_actions *a)
{
    memset(a, 0, sizeof *a);
    a->wnd_size = e->wnd, a->timer_amount = e->amount;
}

static void emu_apply(emu *e, const tp_actions *a)
{
    uint32_t s;
    if (a->mark_rtx) {
        if (before(a->mark_from, e->ws) || before(e->hs, a->mark_to) || before(a->mark_to, a->mark_from))
            e->bad_marks++;
        for (s = before(a->mark_from, e->ws) ? e->ws : a->mark_from; before(s, a->mark_to) && before(s, e->hs); s++)
            if (!bit(e->acked, s))
                bset(e->marked, s, true);
    }
    e->bad_wnd += a->wnd_size < 1 || a->wnd_size > W; /* the hooks keep it in [1, W] themselves */
    e->wnd = a->wnd_size < 1 ? 1 : a->wnd_size > W ? W : a->wnd_size;
    e->max_wnd = e->wnd > e->max_wnd ? e->wnd : e->max_wnd;
    e->amount = a->timer_amount;
    if (a->reset_timer)
        e->running = true, e->deadline = e->now + e->amount;
    if (e->ws == e->hs)
        e->running = false;
}

/* Segment generation until nothing may go (the credit engine never stalls here). */
static void emu_generate(emu *e)
{
    e->nout = 0;
    for (;;) {
        uint32_t lim = e->hs - e->ws < e->wnd ? e->hs : e->ws + e->wnd, s, seg = 0;
        bool rtx = false, any = false;
        for (s = e->ws; before(s, lim); s++)
            if (bit(e->marked, s)) {
                seg = s, rtx = any = true;
                break;
            }
        if (!any && e->hs != e->end && e->hs - e->ws < e->wnd)
            seg = e->hs++, any = true;
        if (!any || e->nout == MAXOUT)
            break;
        if (rtx)
            bset(e->marked, seg, false), bset(e->rtxc, seg, true);
        if (!e->running)
            e->running = true, e->deadline = e->now + e->amount;
        e->out[e->nout] = seg, e->out_rtx[e->nout++] = rtx;
    }
}

static void emu_init(emu *e, const tp_protocol *p, const tp_flow_config *fp, uint32_t nseg, uint64_t hz)
{
    tp_actions a;
    memset(e, 0, sizeof *e);
    e->p = p, e->fp = *fp, e->hz = hz;
    e->ctx = e->buf + 1;
    e->ws = e->hs = fp->init_seq, e->end = fp->init_seq + nseg;
    emu_preset(e, &a);
    p->init(&e->fp, p->config, hz, e->ctx, &a);
    emu_apply(e, &a);
    emu_generate(e);
}

/* An ACK through the fixed stage and the hook. false: refused (stale or beyond highest_sent). */
static bool emu_ack(emu *e, uint32_t cum, uint32_t ss, uint32_t sl)
{
    tp_event ev;
    tp_actions a;
    uint32_t s, d = cum - e->ws, old = e->ws, cnt = 0, fresh = 0, lo, hi;
    if (before(cum, e->ws) || d > e->hs - e->ws)
        return false;
    for (s = e->ws; s != cum; s++) {
        cnt += bit(e->acked, s);
        bset(e->acked, s, false), bset(e->marked, s, false), bset(e->rtxc, s, false);
    }
    e->ws = cum;
    lo = before(ss, cum) ? cum : ss, hi = before(e->hs, ss + sl) ? e->hs : ss + sl;
    if (sl == 0 || !before(lo, hi))
        lo = hi = cum;
    for (s = lo; s != hi; s++) {
        fresh += !bit(e->acked, s);
        bset(e->acked, s, true), bset(e->marked, s, false);
    }
    emu_event(e, &ev);
    ev.pkt_type = TP_PKT_ACK;
    ev.cum_ack = cum, ev.old_wnd_start = old, ev.new_wnd_start = cum;
    ev.sack_start = lo, ev.sack_len = hi - lo;
    ev.newly_acked = d - cnt + fresh;
    ev.newly_sacked = fresh;
    emu_preset(e, &a);
    e->p->incoming(&ev, e->ctx, &a);
    emu_apply(e, &a);
    emu_generate(e);
    return true;
}

static void emu_timeout(emu *e)
{
    tp_event ev;
    tp_actions a;
    e->running = false;
    emu_event(e, &ev);
    ev.timeout = true;
    emu_preset(e, &a);
    e->p->periodic(&ev, e->ctx, &a);
    emu_apply(e, &a);
    emu_generate(e);
}

static tp_tcp_ctx emu_ctx(const emu *e)
{
    tp_tcp_ctx c;
    memcpy(&c, e->ctx, sizeof c);
    return c;
}

/* ---------------- the references ---------------- */

enum { K_RENO, K_NEWRENO, K_SACK };
enum { S_OPEN, S_DISORDER, S_RECOVERY, S_LOSS };

typedef struct ref {
    int kind;
    uint32_t seg, thresh;
    bool lt;
    uint32_t una, nxt, end;
    uint32_t cwnd, infl, ssth, recover, dup, fr_flight;
    int state;
    bool active, partial_seen;
    uint32_t hi_rxt, rw, gb_end;
    uint64_t hz;
    unsigned char sacked[RN], lost[RN], retx[RN], resent[RN], need[RN];
    uint64_t now, rto_base, rto, deadline;
    bool running;
    uint32_t out[MAXOUT], nout;
    bool out_rtx[MAXOUT];
    uint32_t fast_rtx, timeouts, rtx_total;
} ref;

#define F(a, s) ((a)[(s) % RN])

static void ref_init(ref *r, int kind, const tp_flow_config *fp, uint32_t nseg, uint64_t hz)
{
    memset(r, 0, sizeof *r);
    r->kind = kind, r->seg = fp->seg_size;
    r->thresh = fp->param[0] ? fp->param[0] : 3u;
    r->lt = !(fp->param[1] & 1u);
    r->una = r->nxt = r->rw = r->hi_rxt = r->recover = fp->init_seq;
    r->end = fp->init_seq + nseg;
    r->cwnd = r->infl = fp->init_wnd * fp->seg_size;
    r->ssth = fp->param[2] ? fp->param[2] * fp->seg_size : 0xffffffffu;
    r->rto_base = r->rto = (fp->rto_ns * hz + 500000000u) / 1000000000u;
    r->gb_end = fp->init_seq, r->hz = hz;
}

static void ref_send(ref *r, uint32_t s, bool rtx)
{
    if (rtx)
        F(r->retx, s) = 1, F(r->resent, s) = 1, F(r->need, s) = 0, r->rtx_total++;
    if (!r->running)
        r->running = true, r->deadline = r->now + r->rto;
    if (r->nout < MAXOUT)
        r->out[r->nout] = s, r->out_rtx[r->nout++] = rtx;
}

static void ref_restart(ref *r)
{
    r->rto = r->rto_base;
    r->running = true, r->deadline = r->now + r->rto;
}

/* ns-3 TcpNewReno::IncreaseWindow, as written there (double adder). */
static void ref_increase(ref *r, uint32_t segs)
{
    if (r->cwnd < r->ssth && segs >= 1)
        r->cwnd += r->seg, segs--;
    if (r->cwnd >= r->ssth && segs > 0) {
        double adder = (double)r->seg * r->seg / r->cwnd;
        r->cwnd += (uint32_t)(adder < 1.0 ? 1.0 : adder);
    }
}

static uint32_t ref_half(const ref *r, uint64_t bytes)
{
    return bytes / 2 > 2u * r->seg ? (uint32_t)(bytes / 2) : 2u * r->seg;
}

static uint32_t ref_nsacked(const ref *r, uint32_t from)
{
    uint32_t s, n = 0;
    for (s = from; before(s, r->nxt); s++)
        n += F(r->sacked, s);
    return n;
}

/* ns-3 TcpTxBuffer::BytesInFlight: sent, not SACKed, not lost unless retransmitted since. */
static uint64_t ref_bif(const ref *r)
{
    uint32_t s;
    uint64_t n = 0;
    for (s = r->una; before(s, r->nxt); s++)
        n += !F(r->sacked, s) && (!F(r->lost, s) || F(r->resent, s));
    return n * r->seg;
}

static void ref_add_reno_sack(ref *r)
{
    uint32_t s;
    for (s = r->una + 1u; before(s, r->nxt); s++)
        if (!F(r->sacked, s)) {
            F(r->sacked, s) = 1;
            return;
        }
}

/* RFC 6675 IsLost over the scoreboard. */
static bool ref_islost(const ref *r, uint32_t s) { return ref_nsacked(r, s + 1u) >= (r->thresh > 3 ? 3 : r->thresh); }

static void ref_newreno_enter(ref *r)
{
    uint64_t inflight;
    ref_add_reno_sack(r);
    F(r->lost, r->una) = 1, F(r->sacked, r->una) = 0; /* MarkHeadAsLost */
    r->recover = r->nxt, r->active = true, r->state = S_RECOVERY, r->partial_seen = false;
    inflight = ref_bif(r) + r->seg;
    r->ssth = ref_half(r, inflight);
    r->cwnd = r->ssth;
    r->infl = r->ssth + r->dup * r->seg;
    r->fast_rtx++;
    ref_send(r, r->una, true);
}

static void ref_ack(ref *r, uint32_t cum, uint32_t ss, uint32_t sl)
{
    uint32_t s, k = cum - r->una, fresh = 0;
    bool dupack;
    r->nout = 0;
    if (r->kind == K_SACK)
        for (s = ss; before(s, ss + sl); s++)
            if (!before(s, cum) && before(s, r->nxt) && !F(r->sacked, s))
                F(r->sacked, s) = 1, F(r->need, s) = 0, fresh++;
    for (s = r->una; before(s, cum); s++)
        F(r->sacked, s) = F(r->lost, s) = F(r->retx, s) = F(r->resent, s) = F(r->need, s) = 0;
    dupack = r->kind == K_SACK ? fresh > 0 && cum != r->nxt : k == 0 && r->una != r->nxt;
    r->una = cum;
    if (before(r->rw, cum))
        r->rw = cum;
    if (r->kind == K_RENO) {
        if (dupack) {
            if (r->state == S_RECOVERY) {
                r->infl += r->seg;
            } else {
                if (++r->dup == 1)
                    r->fr_flight = r->nxt - r->una;
                r->state = S_DISORDER;
                if (r->dup == r->thresh) {
                    r->ssth = ref_half(r, (uint64_t)r->fr_flight * r->seg);
                    r->cwnd = r->ssth, r->infl = r->ssth + r->dup * r->seg;
                    r->state = S_RECOVERY, r->fast_rtx++;
                    ref_send(r, r->una, true);
                    if (r->rw == r->una)
                        r->rw++;
                }
            }
        } else if (k > 0) {
            if (r->state == S_RECOVERY)
                r->cwnd = r->ssth;
            else
                ref_increase(r, k);
            r->infl = r->cwnd, r->state = S_OPEN, r->dup = 0;
            ref_restart(r);
        }
    } else if (r->kind == K_NEWRENO) {
        if (dupack && r->state != S_LOSS) {
            if (r->state != S_RECOVERY)
                r->dup++;
            if (r->state == S_OPEN)
                r->state = S_DISORDER;
            if (r->state == S_RECOVERY) {
                ref_add_reno_sack(r);
                r->infl += r->seg;
            } else if ((r->dup == r->thresh && (!r->active || !before(r->una, r->recover))) ||
                       (F(r->lost, r->una) && !F(r->resent, r->una)) || ref_nsacked(r, r->una + 1u) >= r->thresh) {
                ref_newreno_enter(r);
            } else if (r->lt) {
                ref_add_reno_sack(r);
            }
        } else if (k > 0) {
            r->dup = 0;
            if (r->state == S_RECOVERY && before(cum, r->recover)) {
                F(r->lost, r->una) = 1, F(r->sacked, r->una) = 0; /* MarkHeadAsLost un-SACKs the head */
                r->infl += r->seg;
                F(r->resent, r->una) = 0;
                ref_send(r, r->una, true);
                r->infl = r->infl > k * r->seg ? r->infl - k * r->seg : 0;
                if (!r->partial_seen)
                    ref_restart(r);
                r->partial_seen = true;
            } else if (r->state == S_LOSS && before(cum, r->recover)) {
                ref_increase(r, k);
                ref_restart(r);
            } else {
                bool exitfr = r->state == S_RECOVERY;
                uint32_t segs = r->state == S_LOSS ? cum - r->recover : k;
                if (r->state == S_RECOVERY || r->state == S_LOSS)
                    r->partial_seen = false;
                r->state = S_OPEN;
                if (!before(cum, r->recover))
                    r->active = false;
                if (exitfr)
                    r->cwnd = r->ssth;
                ref_increase(r, segs);
                r->infl = r->cwnd;
                ref_restart(r);
            }
        }
    } else { /* SACK */
        if (k > 0) {
            r->dup = 0;
            ref_restart(r);
        }
        if (r->state == S_RECOVERY || r->state == S_LOSS) {
            if (!before(cum, r->recover)) {
                if (r->state == S_RECOVERY)
                    r->cwnd = r->ssth;
                r->state = S_OPEN;
                ref_increase(r, k);
            } else if (r->state == S_LOSS) {
                ref_increase(r, k);
            }
        } else {
            if (dupack)
                r->dup++;
            r->state = r->dup ? S_DISORDER : S_OPEN;
            if (dupack && (r->dup >= r->thresh || ref_islost(r, r->una))) {
                r->recover = r->nxt;
                r->ssth = ref_half(r, (uint64_t)(r->nxt - r->una) * r->seg);
                r->cwnd = r->ssth, r->state = S_RECOVERY, r->fast_rtx++;
                ref_send(r, r->una, true);
                r->hi_rxt = r->una + 1u;
            } else if (k > 0) {
                ref_increase(r, k);
            }
        }
        r->infl = r->cwnd;
    }
    if (r->una == r->nxt)
        r->running = false;
}

static void ref_timeout(ref *r)
{
    uint32_t s;
    uint64_t flight = (uint64_t)(r->nxt - r->una) * r->seg, cap = 60u * r->hz; /* RTO at most 60 s */
    r->nout = 0;
    r->timeouts++;
    if (r->kind == K_NEWRENO)
        flight = ref_bif(r);
    if (!(r->state == S_LOSS && F(r->retx, r->una)))
        r->ssth = ref_half(r, flight);
    r->cwnd = r->infl = r->seg;
    r->state = S_LOSS, r->dup = 0, r->recover = r->nxt, r->active = true;
    r->rw = r->hi_rxt = r->una, r->gb_end = r->nxt;
    for (s = r->una; before(s, r->nxt); s++) {
        if (r->kind == K_NEWRENO)
            F(r->sacked, s) = 0, F(r->lost, s) = 1, F(r->resent, s) = 0;
        if (r->kind == K_SACK && !F(r->sacked, s))
            F(r->need, s) = 1;
    }
    r->rto = r->rto * 2 > cap ? cap : r->rto * 2;
    r->running = true, r->deadline = r->now + r->rto;
}

static uint32_t ref_cap(uint32_t w) { return w < 1 ? 1 : w > W ? W : w; }

/* What the sender transmits now. */
static void ref_output(ref *r)
{
    uint32_t s, win;
    if (r->kind == K_NEWRENO) { /* ns-3 SendPendingData: cwnd - BytesInFlight >= one segment */
        for (;;) {
            bool found = false;
            if ((uint64_t)r->cwnd < ref_bif(r) + r->seg)
                break;
            for (s = r->una; before(s, r->nxt); s++)
                if (F(r->lost, s) && !F(r->resent, s) && !F(r->sacked, s)) {
                    found = true;
                    break;
                }
            if (found)
                ref_send(r, s, true);
            else if (r->nxt != r->end && r->nxt - r->una < W)
                ref_send(r, r->nxt++, false);
            else
                break;
        }
        return;
    }
    if (r->kind == K_SACK && r->state == S_RECOVERY) { /* RFC 6675 (C), NextSeg rules 1 and 2 */
        uint32_t pipe = 0, last = r->una;
        bool run = r->nout > 0;
        if (before(r->hi_rxt, r->una))
            r->hi_rxt = r->una;
        for (s = r->una; before(s, r->nxt); s++)
            if (!F(r->sacked, s))
                pipe += !ref_islost(r, s) + before(s, r->hi_rxt);
        while ((uint64_t)pipe * r->seg + r->seg <= r->cwnd) {
            bool found = false;
            for (s = r->hi_rxt; before(s, r->nxt); s++)
                if (!F(r->sacked, s) && ref_islost(r, s)) {
                    found = true;
                    break;
                }
            if (found) {
                if (run && s != last + 1u)
                    break;
                ref_send(r, s, true);
                r->hi_rxt = s + 1u, last = s, run = true, pipe++;
            } else if (r->nxt != r->end && r->nxt - r->una < W) {
                ref_send(r, r->nxt++, false);
                pipe++;
            } else {
                break;
            }
        }
        return;
    }
    if (r->kind == K_RENO)
        win = r->state == S_RECOVERY ? r->infl / r->seg
                                     : r->cwnd / r->seg + (r->state == S_DISORDER && r->lt ? (r->dup < 2 ? r->dup : 2) : 0);
    else
        win = r->cwnd / r->seg + (r->state == S_LOSS ? 0 : ref_nsacked(r, r->una));
    win = ref_cap(win);
    for (;;) {
        bool sent = false;
        if (r->kind == K_RENO) {
            if (before(r->rw, r->gb_end) && r->rw - r->una < win)
                ref_send(r, r->rw++, true), sent = true;
        } else {
            for (s = r->una; before(s, r->nxt) && s - r->una < win; s++)
                if (F(r->need, s)) {
                    ref_send(r, s, true), sent = true;
                    break;
                }
        }
        if (!sent && r->nxt != r->end && r->nxt - r->una < win)
            ref_send(r, r->nxt++, false), sent = true;
        if (!sent)
            break;
    }
}

/* ---------------- lockstep: the hooks in the emulated engine vs the reference ---------------- */

typedef struct pair {
    emu e;
    ref r;
    uint32_t mismatches;
} pair;

static const tp_protocol *proto_of(int kind)
{
    return kind == K_RENO ? tp_protocol_reno() : kind == K_NEWRENO ? tp_protocol_newreno() : tp_protocol_sack();
}

static void compare(pair *p, const char *what)
{
    tp_tcp_ctx c = emu_ctx(&p->e);
    uint32_t i;
    bool ok = p->e.nout == p->r.nout && c.cwnd == p->r.cwnd && c.ssthresh == p->r.ssth && c.state == (uint32_t)p->r.state &&
              p->e.running == p->r.running && (!p->r.running || p->e.deadline == p->r.deadline) &&
              p->e.ws == p->r.una && p->e.hs == p->r.nxt;
    if (p->r.kind != K_SACK)
        ok = ok && c.cwnd_infl == p->r.infl;
    for (i = 0; ok && i < p->e.nout; i++)
        ok = p->e.out[i] == p->r.out[i] && p->e.out_rtx[i] == p->r.out_rtx[i];
    if (!ok && p->mismatches++ < 3) {
        printf("  mismatch (%s) at t=%" PRIu64 " kind %d: engine ws %u hs %u cwnd %u infl %u ssth %u state %u timer %d@%" PRIu64
               " sends",
               what, p->e.now, p->r.kind, p->e.ws, p->e.hs, c.cwnd, c.cwnd_infl, c.ssthresh, c.state, p->e.running,
               p->e.deadline);
        for (i = 0; i < p->e.nout && i < 12; i++)
            printf(" %u%s", p->e.out[i] - p->e.fp.init_seq, p->e.out_rtx[i] ? "r" : "");
        printf(" sacked %u\n    reference sacked %u ws %u hs %u cwnd %u infl %u ssth %u state %d timer %d@%" PRIu64 " sends", c.sacked, ref_nsacked(&p->r, p->r.una), p->r.una, p->r.nxt,
               p->r.cwnd, p->r.infl, p->r.ssth, p->r.state, p->r.running, p->r.deadline);
        for (i = 0; i < p->r.nout && i < 12; i++)
            printf(" %u%s", p->r.out[i] - p->e.fp.init_seq, p->r.out_rtx[i] ? "r" : "");
        printf("\n");
    }
}

static void pair_init(pair *p, int kind, const tp_flow_config *fp, uint32_t nseg, uint64_t hz)
{
    memset(p, 0, sizeof *p);
    emu_init(&p->e, proto_of(kind), fp, nseg, hz);
    ref_init(&p->r, kind, fp, nseg, hz);
    ref_output(&p->r);
    compare(p, "init");
}

static void pair_ack(pair *p, uint32_t cum, uint32_t ss, uint32_t sl)
{
    p->r.now = p->e.now;
    if (!emu_ack(&p->e, cum, ss, sl)) {
        CHECK(before(cum, p->r.una) || before(p->r.nxt, cum));
        return;
    }
    ref_ack(&p->r, cum, ss, sl);
    ref_output(&p->r);
    compare(p, "ack");
}

static void pair_timeout(pair *p)
{
    p->r.now = p->e.now;
    CHECK(p->r.running && p->r.deadline <= p->r.now);
    emu_timeout(&p->e);
    ref_timeout(&p->r);
    ref_output(&p->r);
    compare(p, "timeout");
}

/* ---------------- a closed loop: link, lossy channel, receiver ---------------- */

#define QN 8192u
typedef struct loop {
    pair p;
    uint64_t link_free, dl;
    uint32_t d;               /* one-way delay, ticks */
    struct { uint64_t t; uint32_t s; } dq[QN];
    struct { uint64_t t; uint32_t cum, ss, sl; } aq[QN];
    uint32_t dh, dt, ah, at;
    unsigned char rcvd[RN], sent_once[RN];
    uint32_t cum, top, delack, dcount;
    bool sack; /* the receiver sends SACK blocks (for the SACK sender only, as ns-3 with Sack=false) */
    uint64_t delack_at;
    const uint32_t *drops; /* drop the first transmission of these (offsets from init_seq) */
    uint32_t ndrops;
    rnic_prng rng;
    uint32_t loss_ppm; /* random loss of any transmission */
    uint32_t delivered, dropped;
    uint64_t finish;
} loop;

static void loop_ack(loop *l, uint32_t ss, uint32_t sl)
{
    l->aq[l->at % QN].t = l->p.e.now + l->d;
    l->aq[l->at % QN].cum = l->cum, l->aq[l->at % QN].ss = ss, l->aq[l->at % QN].sl = sl;
    l->at++;
    l->dcount = 0, l->delack_at = 0;
}

static void loop_emit(loop *l)
{
    uint32_t i;
    for (i = 0; i < l->p.e.nout; i++) {
        uint32_t s = l->p.e.out[i], off = s - l->p.e.fp.init_seq, j;
        bool drop = false;
        uint64_t dep = l->link_free > l->p.e.now ? l->link_free : l->p.e.now;
        l->link_free = dep + 1;
        if (!F(l->sent_once, s)) {
            F(l->sent_once, s) = 1;
            for (j = 0; j < l->ndrops; j++)
                drop = drop || l->drops[j] == off;
        }
        if (l->loss_ppm && rnic_prng_below(&l->rng, 1000000u) < l->loss_ppm)
            drop = true;
        if (drop) {
            l->dropped++;
            continue;
        }
        l->dq[l->dt % QN].t = dep + l->d, l->dq[l->dt % QN].s = s;
        l->dt++;
    }
}

static void loop_receive(loop *l, uint32_t s)
{
    uint32_t old = l->cum, a, b;
    if (before(s, l->cum) || F(l->rcvd, s)) { /* duplicate: ACK at once */
        loop_ack(l, 0, 0);
        return;
    }
    F(l->rcvd, s) = 1, l->delivered++;
    if (before(l->top, s + 1u))
        l->top = s + 1u;
    while (F(l->rcvd, l->cum))
        F(l->rcvd, l->cum) = 0, l->cum++;
    if (s != old) { /* out of order: ACK at once with the block around s */
        for (a = s; a != l->cum && F(l->rcvd, a - 1u); a--) {
        }
        for (b = s + 1u; F(l->rcvd, b); b++) {
        }
        loop_ack(l, l->sack ? a : 0, l->sack ? b - a : 0);
    } else if (l->cum - old > 1u || before(l->cum, l->top) || ++l->dcount >= l->delack) {
        loop_ack(l, 0, 0); /* a gap filled, data still out of order, or the delayed-ACK count */
    } else if (!l->delack_at) {
        l->delack_at = l->p.e.now + l->dl;
    }
}

/* Runs to completion (or `limit` ticks); returns whether every segment was acknowledged. */
static bool loop_run(loop *l, int kind, const tp_flow_config *fp, uint32_t nseg, uint64_t limit)
{
    pair *p = &l->p;
    pair_init(p, kind, fp, nseg, 1000000u);
    l->sack = kind == K_SACK;
    l->cum = l->top = fp->init_seq;
    loop_emit(l);
    while (p->e.ws != p->e.end && p->e.now < limit) {
        while (l->ah != l->at && l->aq[l->ah % QN].t <= p->e.now) {
            pair_ack(p, l->aq[l->ah % QN].cum, l->aq[l->ah % QN].ss, l->aq[l->ah % QN].sl);
            loop_emit(l);
            l->ah++;
        }
        if (p->e.running && p->e.deadline <= p->e.now) {
            pair_timeout(p);
            loop_emit(l);
        }
        while (l->dh != l->dt && l->dq[l->dh % QN].t <= p->e.now)
            loop_receive(l, l->dq[l->dh++ % QN].s);
        if (l->delack_at && l->delack_at <= p->e.now)
            loop_ack(l, 0, 0);
        p->e.now++;
    }
    l->finish = p->e.now;
    return p->e.ws == p->e.end;
}

static loop L; /* large: static */

static void params(tp_flow_config *fp, uint32_t seg, uint32_t init_seq)
{
    memset(fp, 0, sizeof *fp);
    fp->seg_size = seg, fp->init_seq = init_seq, fp->init_wnd = 10, fp->rto_ns = 300000u;
}

static void loop_setup(const uint32_t *drops, uint32_t ndrops, uint32_t ppm, uint64_t seed, uint32_t delack)
{
    memset(&L, 0, sizeof L);
    L.d = 10, L.dl = 200, L.delack = delack;
    L.drops = drops, L.ndrops = ndrops, L.loss_ppm = ppm;
    rnic_prng_seed(&L.rng, seed);
}

/* ---------------- the tests ---------------- */

/* ns-3 tcp-classic-recovery-test: 500 B segments, cwnd 3000 B, ssthresh 2500 B, 3 dup ACKs:
 * cwnd_infl = ssthresh + 3 segments, + 1 segment per further dup ACK, exit at ssthresh (ns-3's
 * ProcessAck then runs IncreaseWindow once: + max(1, 500 * 500 / 2500) = 100 B). */
static void test_classic_recovery(void)
{
    tp_flow_config fp;
    emu e;
    tp_tcp_ctx c;
    uint32_t ws;
    params(&fp, 500, 1000);
    fp.init_wnd = 6;
    emu_init(&e, tp_protocol_newreno(), &fp, 100, 1000000u);
    c = emu_ctx(&e);
    CHECK_EQ(c.cwnd, 3000);
    CHECK_EQ(c.ssthresh, UINT32_MAX);
    CHECK_EQ(e.nout, 6);
    e.wnd = 13; /* 13 segments out: ns-3's in-flight at the 3rd dup ACK is 13 - 3 = 10 -> 2500 B */
    emu_generate(&e);
    ws = e.ws;
    CHECK_EQ(e.hs - ws, 13);
    CHECK(emu_ack(&e, ws, 0, 0) && emu_ack(&e, ws, 0, 0));
    c = emu_ctx(&e);
    CHECK_EQ(c.state, TP_TCP_DISORDER);
    CHECK_EQ(c.cwnd, 3000);
    CHECK_EQ(e.wnd, 6 + 2); /* limited transmit: two more segments may go */
    CHECK(emu_ack(&e, ws, 0, 0));
    c = emu_ctx(&e);
    CHECK_EQ(c.state, TP_TCP_RECOVERY);
    CHECK_EQ(c.ssthresh, 2500);
    CHECK_EQ(c.cwnd, 2500);
    CHECK_EQ(c.cwnd_infl, 2500 + 3 * 500);
    CHECK_EQ(c.recover, ws + 13);
    CHECK(e.nout >= 1 && e.out[0] == ws && e.out_rtx[0]); /* fast retransmit of the head */
    CHECK(emu_ack(&e, ws, 0, 0));
    c = emu_ctx(&e);
    CHECK_EQ(c.cwnd_infl, 2500 + 4 * 500);
    CHECK(emu_ack(&e, ws, 0, 0));
    CHECK_EQ(emu_ctx(&e).cwnd_infl, 2500 + 5 * 500);
    CHECK(emu_ack(&e, ws + 13, 0, 0)); /* full ACK */
    c = emu_ctx(&e);
    CHECK_EQ(c.state, TP_TCP_OPEN);
    CHECK_EQ(c.cwnd, 2500 + 100);
    CHECK_EQ(c.cwnd_infl, 2500 + 100);
    CHECK_EQ(c.ssthresh, 2500);
    CHECK_EQ(e.bad_marks, 0);
}

/* A partial ACK retransmits the next hole, deflates by the amount acked and adds one segment
 * back (RFC 6582 3.2 step 5); only the first partial ACK restarts the timer. */
static void test_newreno_partial(void)
{
    tp_flow_config fp;
    emu e;
    tp_tcp_ctx c;
    uint32_t ws, i;
    uint64_t dl;
    params(&fp, 1000, 7);
    emu_init(&e, tp_protocol_newreno(), &fp, 100, 1000000u);
    ws = e.ws;
    for (i = 0; i < 3; i++)
        CHECK(emu_ack(&e, ws, 0, 0));
    c = emu_ctx(&e);
    CHECK_EQ(c.ssthresh, (12 - 3) * 1000 / 2); /* 10 sent + 2 by limited transmit, 3 dup-acked */
    e.now = 50;
    CHECK(emu_ack(&e, ws + 4, 0, 0)); /* partial: 4 acked */
    c = emu_ctx(&e);
    CHECK_EQ(c.state, TP_TCP_RECOVERY);
    CHECK_EQ(c.cwnd_infl, 4500 + 3000 + 1000 - 4000);
    CHECK(e.nout >= 1 && e.out[0] == ws + 4 && e.out_rtx[0]);
    CHECK(e.running && e.deadline == 50 + 300);
    dl = e.deadline;
    e.now = 80;
    CHECK(emu_ack(&e, ws + 6, 0, 0)); /* second partial: the timer keeps running */
    CHECK(e.out[0] == ws + 6 && e.out_rtx[0]);
    CHECK_EQ(e.deadline, dl);
    CHECK_EQ(e.bad_marks, 0);
}

/* Timeouts: ssthresh halves once (not again while the head was retransmitted by the timer),
 * cwnd 1 segment, go back N, the RTO doubles and returns to the base on new data. */
static void test_timeouts(void)
{
    int k;
    for (k = K_RENO; k <= K_SACK; k++) {
        tp_flow_config fp;
        emu e;
        tp_tcp_ctx c;
        params(&fp, 1000, 0xfffffff0u);
        emu_init(&e, proto_of(k), &fp, 100, 1000000u);
        CHECK_EQ(e.amount, 300);
        e.now = 300;
        emu_timeout(&e);
        c = emu_ctx(&e);
        CHECK_EQ(c.state, TP_TCP_LOSS);
        CHECK_EQ(c.ssthresh, 5000);
        CHECK_EQ(c.cwnd, 1000);
        CHECK_EQ(e.amount, 600);
        CHECK(e.nout == 1 && e.out[0] == 0xfffffff0u && e.out_rtx[0]);
        e.now = 900;
        emu_timeout(&e);
        c = emu_ctx(&e);
        CHECK_EQ(c.ssthresh, 5000);
        CHECK_EQ(e.amount, 1200);
        CHECK(emu_ack(&e, 0xfffffff0u + 1u, 0, 0));
        CHECK_EQ(e.amount, 300);
        CHECK_EQ(emu_ctx(&e).cwnd, 2000);
        CHECK(e.nout == 2 && e.out_rtx[0] && e.out_rtx[1]); /* go back N */
        CHECK_EQ(e.bad_marks, 0);
    }
}

static uint32_t run_list(int kind, const uint32_t *drops, uint32_t n, uint32_t init_seq, const char *name)
{
    tp_flow_config fp;
    bool done;
    params(&fp, 1000, init_seq);
    loop_setup(drops, n, 0, 1, 1);
    done = loop_run(&L, kind, &fp, 60, 100000);
    CHECK(done);
    CHECK_EQ(L.delivered, 60);
    CHECK_EQ(L.p.mismatches, 0);
    CHECK_EQ(L.p.e.bad_marks, 0);
    printf("RESULT proto=%s drops=%s fast_retransmits=%u timeouts=%u retransmissions=%u finish_ticks=%" PRIu64 " init_seq=%u\n",
           proto_of(kind)->name, name, L.p.r.fast_rtx, L.p.r.timeouts, L.p.r.rtx_total, L.finish, init_seq);
    return (uint32_t)L.finish;
}

/* ns-2's NewReno test drop lists (one window with several losses). */
static void test_ns2_drops(void)
{
    static const uint32_t a[] = {14, 26, 28}, b[] = {14, 15, 16, 17, 18, 19, 20, 21, 25};
    uint32_t fr, ft, rr, rt, sr, st, tn, tr, ts;
    tn = run_list(K_NEWRENO, a, 3, 0, "14,26,28");
    fr = L.p.r.fast_rtx, ft = L.p.r.timeouts;
    tr = run_list(K_RENO, a, 3, 0, "14,26,28");
    rr = L.p.r.fast_rtx, rt = L.p.r.timeouts;
    ts = run_list(K_SACK, a, 3, 0, "14,26,28");
    sr = L.p.r.fast_rtx, st = L.p.r.timeouts;
    CHECK_EQ(fr, 1); /* NewReno: one recovery for the window, no timeout */
    CHECK_EQ(ft, 0);
    CHECK(rr + rt > 1); /* Reno: more than one episode for the same window */
    CHECK(tr > tn);
    CHECK_EQ(sr, 1);
    CHECK_EQ(st, 0);
    CHECK(ts <= tn);
    tn = run_list(K_NEWRENO, b, 9, 0, "14-21,25");
    fr = L.p.r.fast_rtx;
    tr = run_list(K_RENO, b, 9, 0, "14-21,25");
    ts = run_list(K_SACK, b, 9, 0, "14-21,25");
    sr = L.p.r.fast_rtx, st = L.p.r.timeouts;
    CHECK_EQ(fr, 1);
    CHECK(tr > tn);
    CHECK_EQ(sr, 1);
    CHECK(ts < tn);
    (void)st;
}

/* The same drop lists with segment ids wrapping through 2^32. */
static void test_wrap(void)
{
    static const uint32_t a[] = {14, 26, 28}, b[] = {14, 15, 16, 17, 18, 19, 20, 21, 25};
    int k;
    for (k = K_RENO; k <= K_SACK; k++) {
        run_list(k, a, 3, 0xffffffceu, "14,26,28");
        run_list(k, b, 9, 0xffffffceu, "14-21,25");
    }
}

/* Random losses (any transmission, retransmissions too), random segment sizes, delayed ACKs,
 * initial ssthresh and ids: every hook output equals the reference's, step by step. */
static void test_random_losses(void)
{
    rnic_prng g;
    int k, i;
    uint32_t runs = 0, rtx = 0, tos = 0, full = 0;
    static const uint32_t segs[] = {1000, 1448, 500, 9000};
    static const uint32_t ppm[] = {5000, 20000, 60000, 150000};
    rnic_prng_seed(&g, 20201);
    for (k = K_RENO; k <= K_SACK; k++)
        for (i = 0; i < 60 && TEST_FAILS() == 0; i++) {
            tp_flow_config fp;
            uint32_t nseg = 100 + (uint32_t)rnic_prng_below(&g, 400);
            uint32_t init = (uint32_t)rnic_prng_next(&g);
            if (i % 3 == 0)
                init = 0u - (uint32_t)rnic_prng_below(&g, 300);
            params(&fp, segs[rnic_prng_below(&g, 4)], init);
            fp.init_wnd = 1 + (uint32_t)rnic_prng_below(&g, 12);
            fp.param[2] = rnic_prng_below(&g, 2) ? 2 + (uint32_t)rnic_prng_below(&g, 60) : 0;
            fp.param[1] = rnic_prng_below(&g, 4) == 0;
            loop_setup(NULL, 0, ppm[rnic_prng_below(&g, 4)], rnic_prng_next(&g), 1 + (uint32_t)rnic_prng_below(&g, 2));
            CHECK(loop_run(&L, k, &fp, nseg, 50000000u));
            CHECK_EQ(L.p.mismatches, 0);
            CHECK_EQ(L.p.e.bad_marks, 0);
            CHECK_EQ(L.p.e.bad_wnd, 0);
            CHECK_EQ(L.delivered, nseg);
            runs++, rtx += L.p.r.rtx_total, tos += L.p.r.timeouts, full += L.p.e.max_wnd == W;
        }
    CHECK(full > 0); /* some runs reached the W = 128 window */
    printf("RESULT random_loss_runs=%u retransmissions=%u timeouts=%u runs_at_full_window=%u mismatches=0\n", runs, rtx, tos, full);
}

/* Non-ACK packets change nothing; contexts fit Table 4's window budget; RTO conversion. */
static void test_misc(void)
{
    int k;
    for (k = K_RENO; k <= K_SACK; k++) {
        const tp_protocol *p = proto_of(k);
        tp_flow_config fp;
        emu e;
        tp_event ev;
        tp_actions a;
        unsigned char before_ctx[64];
        params(&fp, 1000, 5);
        fp.rto_ns = 200000000u;
        emu_init(&e, p, &fp, 50, 250000000u);
        CHECK_EQ(e.amount, 50000000u);
        CHECK(p->ctx_size <= TP_CTX_MAX_WINDOW && p->ctx_size <= sizeof before_ctx);
        CHECK_EQ(p->credit, TP_CREDIT_WINDOW);
        CHECK(!p->periodic_every_visit);
        memcpy(before_ctx, e.ctx, p->ctx_size);
        emu_event(&e, &ev);
        ev.pkt_type = TP_PKT_CNP, ev.cum_ack = e.ws;
        emu_preset(&e, &a);
        p->incoming(&ev, e.ctx, &a);
        CHECK(memcmp(before_ctx, e.ctx, p->ctx_size) == 0 && !a.mark_rtx && !a.reset_timer && a.wnd_size == e.wnd);
        emu_event(&e, &ev); /* a periodic visit without a timeout: nothing */
        emu_preset(&e, &a);
        p->periodic(&ev, e.ctx, &a);
        CHECK(memcmp(before_ctx, e.ctx, p->ctx_size) == 0 && !a.mark_rtx && !a.reset_timer);
        fp.rto_ns = 500000000u;
        emu_init(&e, p, &fp, 50, 3u);
        CHECK_EQ(e.amount, 2); /* 1.5 cycles: a half up */
    }
    CHECK_EQ(tp_protocol_reno()->ctx_size, 24);
    CHECK_EQ(tp_protocol_sack()->ctx_size, 40);
}

int main(void)
{
    RUN(test_classic_recovery);
    RUN(test_newreno_partial);
    RUN(test_timeouts);
    RUN(test_ns2_drops);
    RUN(test_wrap);
    RUN(test_random_losses);
    RUN(test_misc);
    return test_summary();
}
