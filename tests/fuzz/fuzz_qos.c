/* libFuzzer harness of the RED-SEA QoS engine (rq_qos_, rnicq.h; docs/rnicq_qos_model.md).
 * FUZZ_MAX_LEN 1536
 *
 * The input becomes a config (sane and small, or hostile: an invalid one must be refused alike by
 * rq_qos_config_check, rq_qos_mem_size and rq_qos_init, and the run stops) and a program played
 * by a host and a network: descriptors written as AXI beats (valid ones, and beats of another
 * domain, to read channels, misaligned, bad strobes, interleaved lines, corrupt descriptors,
 * addresses that wrap, busy channels), status reads of any page, blocks and packets taken by the
 * send unit, ACKs / NACKs (valid, duplicate, stale, unknown TIDs), remote read requests, NULL
 * records, ticks, advance / advance_to.
 * Two engines get the same calls: A is ticked every cycle, B fast-forwarded; records, statistics,
 * a digest of the trace, next_event, pending and free IDs must be equal after every step; a tick
 * of A at a cycle next_event says is quiet must emit nothing and change no statistic but the
 * clock and the stall counters, and the next event may not come earlier after it.
 * A model kept here from the documentation follows A's trace and checks:
 *   - the trace layout: a block or packet OUT / POP carries the record's index and bytes
 *     (a, b), each OUT is followed at once by its RQ_QOS_TRACE_BLOCK_ID (TID, sequence
 *     number, offset, block or packet kind), which the checks below are driven by;
 *   - every AXI write beat's verdict (BRESP) from the documented rules (alignment, unknown
 *     domain or line, another domain's page or a read channel: EPERM, a busy or unread channel,
 *     interleaving, the descriptor's validity): no cross-domain write ever succeeds; every
 *     status read's answer (another domain's page: EPERM) and data (the model's 2-bit status,
 *     read-and-clear); remote reads placed only in read channels of their own domain;
 *   - every refused call answers the documented code and bumps exactly that counter; every
 *     counted error is a refused call, a refused beat or read, or a dropped response;
 *   - blocks: in order per transfer, offset and length from the receiver's block boundaries
 *     (Fig. 3.10/3.11, computed here), addresses = source / destination + offset, FIRST, LAST and
 *     the CM / chained / has-next / notify flags right, the transfer's index, TIDs from the right
 *     pool (a CM flow's TIDs from its FID, multipath leaping across its four), at most
 *     max_outstanding in flight; every issue (block, inline packet, retransmission) takes the
 *     next global sequence number modulo 2^seq_bits;
 *   - responses: an ACK / NACK is applied only to the pending entry of its TID with its current
 *     sequence number, anything else (stale, duplicate, unknown) is dropped and counted; a
 *     timeout fires only for a block the send unit took at least timeout cycles before;
 *   - every accepted transfer completes once: DONE when each of its blocks was acknowledged
 *     exactly once (they cover its bytes exactly once) and its notification has left, or ERROR
 *     after a block ran out of retries; after draining with a well-behaved network nothing is
 *     pending, every transfer has completed and every ID is back in its pool. */
#define RNIC_IMPLEMENTATION
#include "rnicq.h"
#include "fuzz.h"

#define FQ_LINES 256u
#define FQ_TIDS 128u  /* 2 x tids the model tracks */
#define FQ_FIFO 64u
#define FQ_SENT 32u
#define FQ_TICK_BUDGET 200u /* ticks of engine A per program (and twice that to drain): speed */
#define FQ_MEM (1u << 18)
#define FQ_OUT_BLOCK 1u
#define FQ_OUT_PACKET 2u

#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define FQ_NOCOV __attribute__((no_sanitize("coverage"))) /* the fuzzer steers by the engine, not by these checks */
#endif
#endif
#ifndef FQ_NOCOV
#define FQ_NOCOV
#endif

typedef struct fq_xfer { /* a live transfer, by its first line */
    uint8_t live, is_inline, cm, multipath, notify, nlines, control_sent, remote;
    uint8_t held; /* ended in ERROR with its entry still queued: its lines stay taken until it leaves */
    uint64_t src, dst, size;
    uint32_t total, first, last;
    uint32_t index, next_block, acked, outstanding;
    uint32_t fid; /* first block's FID (CM) */
    uint8_t acked_bits[32];
} fq_xfer;

typedef struct fq_pend {
    uint8_t valid, taken, retx_queued;
    uint8_t drain_acked; /* the drain sent this number its ACK (once: a second one could meet the
                            TID's next block under the same number when seq_bits is small) */
    uint32_t line, block, seq, retries;
    uint64_t issue; /* the issue count when it was numbered */
    uint64_t taken_cycle;
} fq_pend;

typedef struct fq_beat {
    uint64_t data[2];
    uint32_t domain, addr, bytes;
} fq_beat;

typedef struct fq_read {
    uint32_t domain, page, index, mode;
} fq_read;

typedef struct fq_acc {
    uint64_t words[4];
    uint64_t line0[4]; /* the first line of a two-line descriptor, as written to the table */
    uint32_t line, have, expect_line, domain;
} fq_acc;

typedef struct fq_block { /* a block as it should be popped */
    rnic_work w;
    uint32_t block;
} fq_block;

typedef struct fq_sent { /* a block or inline packet the send unit took: what a response names */
    uint32_t tid, seq;
    uint64_t issue; /* the global issue count when it was issued */
} fq_sent;

typedef struct fq_engine {
    rq_qos q;
    uint64_t digest, events;
    uint64_t seen_tx, seen_pkt, seen_b; /* ring pushes of the output ports already traced */
    struct fq_harness *h;
    int is_ref;
} fq_engine;

typedef struct fq_harness {
    rq_qos_config cfg;
    fq_engine a, b;
    uint32_t lines, channels, ntids;
    uint64_t timeout;
    fq_xfer x[FQ_LINES];
    uint8_t second[FQ_LINES];     /* the second line of a live (or held) two-line transfer */
    uint32_t nheld;               /* transfers with held set */
    uint32_t next_index[FQ_LINES];
    uint8_t status[FQ_LINES];     /* per write channel, by line */
    fq_pend pend[FQ_TIDS];
    fq_acc acc[FQ_LINES];         /* per domain (or one) */
    fq_beat aw[FQ_FIFO];
    uint32_t aw_head, aw_count;
    fq_read rd[FQ_FIFO];
    uint32_t rd_head, rd_count;
    uint32_t remote_dom[FQ_FIFO];
    rq_transfer remote_t[FQ_FIFO];
    uint32_t rm_head, rm_count;
    fq_block tx[FQ_FIFO];
    uint32_t tx_head, tx_count;
    rq_packet pk[FQ_FIFO];
    uint32_t pk_head, pk_count;
    rq_axi_bresp br[FQ_FIFO];
    uint32_t br_head, br_count;
    rq_axi_rdata rdat[FQ_FIFO];
    uint32_t rdat_head, rdat_count;
    fq_sent sent[FQ_SENT];
    uint32_t nsent, sent_next;
    int accept_pending;
    uint32_t accept_line, accept_queue, accept_index;

    uint64_t issues;
    uint64_t refusals; /* every counted error the model expects */
    uint64_t ticks;
    uint32_t accepted, completed;
    uint32_t retx_pending_tid; /* a retransmitted block whose RETRANSMIT event is next */
    uint32_t out_pending;      /* FQ_OUT_BLOCK / FQ_OUT_PACKET: an OUT whose RQ_QOS_TRACE_BLOCK_ID is the next event */
    uint32_t out_line, out_index, out_len; /* that OUT's id, a, b */
    uint64_t pops;             /* POP events of engine A, and the last one's id, a, b */
    uint32_t pop_id;
    uint64_t pop_a, pop_b;
    int drained;               /* the drain reached quiescence and checked it */
} fq_harness;

static unsigned char fq_mem_a[FQ_MEM] __attribute__((aligned(64)));
static unsigned char fq_mem_b[FQ_MEM] __attribute__((aligned(64)));
static fq_harness H;

#define FQ_PUSH(arr, head, count, v)                                    \
    do {                                                                \
        FZ_CHECK((count) < FQ_FIFO);                                    \
        (arr)[((head) + (count)) % FQ_FIFO] = (v);                      \
        (count)++;                                                      \
    } while (0)
#define FQ_FRONT(arr, head) (&(arr)[(head) % FQ_FIFO])
#define FQ_DROP(head, count)                                            \
    do {                                                                \
        (head) = ((head) + 1u) % FQ_FIFO;                               \
        (count)--;                                                      \
    } while (0)

/* ---- the documented block arithmetic (Fig. 3.10 / 3.11) ---- */

FQ_NOCOV static void fq_plan(uint64_t dst, uint64_t size, uint32_t block, uint32_t *total, uint32_t *first, uint32_t *last)
{
    uint64_t in_first = block - dst % block, t;
    *first = (uint32_t)(size < in_first ? size : in_first);
    t = (dst + size) / block - dst / block + ((dst + size) % block != 0u);
    *total = (uint32_t)t;
    *last = t == 1u ? *first : (uint32_t)((size - *first) % block ? (size - *first) % block : block);
}


/* ---- the AXI write slave's documented rules ---- */

FQ_NOCOV static fq_acc *fq_acc_of(fq_harness *h, uint32_t domain)
{
    return &h->acc[h->cfg.accumulators == 1u ? 0u : (domain < h->cfg.domains ? domain : 0u)];
}

/* Whether the transfer on `first` still has an entry in engine A's scheduling FIFOs or stage 2:
 * the documented rule (docs/rnicq_qos_model.md) is that a failed transfer's lines stay occupied
 * until its last entry leaves; the model reads where that entry is, not when the lines free. */
FQ_NOCOV static int fq_entry_waits(const fq_harness *h, uint32_t first)
{
    return rnic_ssfifo_is_queued(&h->a.q.sched, first) || (h->a.q.s2.valid && h->a.q.s2.line == first);
}

FQ_NOCOV static int fq_line_busy(const fq_harness *h, uint32_t line)
{
    return h->x[line].live || h->x[line].held || h->second[line];
}

/* A congestion-managed regular transfer whose FID pool is configured empty: refused (ENOSPC). */
FQ_NOCOV static int fq_no_fid_pool(const fq_harness *h, const rq_transfer *t)
{
    return t->kind == RQ_KIND_REGULAR && t->cm &&
           (t->multipath ? h->cfg.ids.fid_groups == 0u : h->cfg.ids.fids_unipath == 0u);
}

/* The verdict of the beat at the head of the AW FIFO; *accepted set when it completes a valid
 * descriptor (then *t, *first, *nlines describe it). Updates the accumulator model. */
FQ_NOCOV static rnic_err fq_beat_verdict(fq_harness *h, const fq_beat *b, int *accepted, rq_transfer *t, uint32_t *first_out,
                                         uint32_t *nlines_out)
{
    uint32_t word = (b->addr >> 3) & 3u, line = b->addr >> 5, ch, first, nlines;
    fq_acc *acc, a;
    rnic_err e;
    *accepted = 0;
    if ((b->addr & 7u) || (b->bytes != 8u && b->bytes != 16u) || (b->bytes == 16u && (word & 1u)))
        return RNIC_EALIGN;
    if (b->domain >= h->cfg.domains || line >= h->lines)
        return RNIC_ENOENT;
    ch = line % h->channels;
    if (line / h->channels != b->domain || ch >= h->cfg.write_channels)
        return RNIC_EPERM; /* another domain's page, or a read channel */
    if (fq_line_busy(h, line) || h->status[line] != RQ_IDLE)
        return RNIC_EBUSY;
    acc = fq_acc_of(h, b->domain);
    a = *acc;
    if ((a.line != RNIC_NONE || a.expect_line != RNIC_NONE) && a.domain != b->domain)
        return RNIC_ESTATE; /* the single accumulator holds another domain's descriptor */
    if (a.line != RNIC_NONE && a.line != line)
        return RNIC_ESTATE; /* interleaved lines */
    a.line = line;
    a.domain = b->domain;
    a.words[word] = b->data[0];
    a.have |= 1u << word;
    if (b->bytes == 16u) {
        a.words[word + 1u] = b->data[1];
        a.have |= 2u << word;
    }
    if (a.have != 0xfu) {
        *acc = a;
        return RNIC_OK;
    }
    a.line = RNIC_NONE;
    a.have = 0;
    e = RNIC_OK;
    if (a.expect_line != RNIC_NONE && line != a.expect_line)
        e = RNIC_ESTATE; /* a second line must follow its first */
    else if (a.expect_line == RNIC_NONE && !(a.words[3] & RQ_DESC_LAST_LINE)) {
        if (ch + 1u >= h->cfg.write_channels)
            e = RNIC_EINVAL;
        else if (fq_line_busy(h, line + 1u) || h->status[line + 1u] != RQ_IDLE)
            e = RNIC_EBUSY;
        if (e == RNIC_OK) {
            memcpy(a.line0, a.words, sizeof a.words);
            a.expect_line = line + 1u;
            *acc = a;
            return RNIC_OK; /* the first line of two is written */
        }
    }
    if (e == RNIC_OK) {
        const uint64_t *l0 = a.expect_line != RNIC_NONE ? a.line0 : a.words;
        first = a.expect_line != RNIC_NONE ? line - 1u : line;
        nlines = a.expect_line != RNIC_NONE ? 2u : 1u;
        e = rq_desc_decode(l0, nlines == 2u ? a.words : NULL, t);
        if (e == RNIC_OK && rq_desc_lines(l0[3]) != nlines)
            e = RNIC_EINVAL;
        if (e == RNIC_OK && t->kind == RQ_KIND_REGULAR && (t->dst > UINT64_MAX - t->size || t->src > UINT64_MAX - t->size))
            e = RNIC_ERANGE;
        if (e == RNIC_OK && fq_no_fid_pool(h, t))
            e = RNIC_ENOSPC;
        if (e == RNIC_OK) {
            *accepted = 1;
            *first_out = first;
            *nlines_out = nlines;
        }
    }
    a.expect_line = RNIC_NONE; /* accepted, or the descriptor is abandoned */
    *acc = a;
    return e;
}

FQ_NOCOV static void fq_xfer_start(fq_harness *h, uint32_t line, const rq_transfer *t, uint32_t nlines, int remote)
{
    fq_xfer *x = &h->x[line];
    memset(x, 0, sizeof *x);
    x->live = 1;
    x->remote = (uint8_t)remote;
    x->is_inline = t->kind == RQ_KIND_INLINE;
    x->cm = t->cm;
    x->multipath = t->multipath;
    x->notify = t->notify;
    x->nlines = (uint8_t)nlines;
    x->src = t->src;
    x->dst = t->dst;
    x->size = t->size;
    if (x->is_inline)
        x->total = 1, x->first = x->last = (uint32_t)t->size;
    else {
        fq_plan(t->dst, t->size, h->cfg.block_bytes, &x->total, &x->first, &x->last);
        /* the blocks cover the bytes exactly once: first + whole blocks + last = size */
        FZ_CHECK(x->total >= 1u && (uint64_t)x->first +
                 (x->total > 1u ? (uint64_t)(x->total - 2u) * h->cfg.block_bytes + x->last : 0u) == x->size);
    }
    x->index = h->next_index[line]++;
    if (nlines == 2u)
        h->second[line + 1u] = 1;
    h->accepted++;
}

/* ---- trace: A's events drive the model ---- */

/* One global sequence number, +1 per issue, wrapping at 2^seq_bits (§3.13): a number in range.
 * Records do not leave in numbering order (a block numbered in stage 2 may wait in stage 3 while
 * any number of retransmissions, numbered later, go first: 13 numbers seen in one run), so the
 * order is not checked here; what numbers are for -- a response matches only its TID's current
 * entry -- is checked at every ACK, NACK and drop against the model's entries. */
FQ_NOCOV static void fq_new_issue(fq_harness *h, uint32_t tid, uint32_t seq)
{
    (void)tid;
    FZ_CHECK(seq < (1u << h->cfg.seq_bits));
    h->issues++;
}

/* TID of block k of a transfer, from the documented rules (§3.8): non-CM and inline: any TID of
 * the TID pool; CM unipath: the flow's TIDs in order; multipath: the frog leap. */
FQ_NOCOV static void fq_check_tid(fq_harness *h, fq_xfer *x, uint32_t k, uint32_t tid)
{
    uint32_t fb = h->cfg.ids.flow_blocks, tids = h->cfg.ids.tids, shift = 0;
    while ((1u << shift) < fb)
        shift++;
    if (!x->cm || x->is_inline) {
        FZ_CHECK(tid < tids);
        return;
    }
    FZ_CHECK(tid >= tids && tid < 2u * tids);
    if (k == 0u) /* the flow's FID (multipath: the group's first) */
        x->fid = tid >> shift;
    if (!x->multipath)
        FZ_CHECK(tid == (x->fid << shift) + (k % fb));
    else
        FZ_CHECK(tid == ((x->fid + k % 4u) << shift) + (k / 4u) % fb);
}

FQ_NOCOV static void fq_block_out(fq_harness *h, uint32_t line, uint32_t tid, uint32_t seq, uint32_t off, uint32_t len)
{
    fq_xfer *x;
    fq_pend *p;
    fq_block blk;
    uint32_t k;
    FZ_CHECK(line < h->lines && tid < h->ntids);
    x = &h->x[line];
    p = &h->pend[tid];
    FZ_CHECK(x->live && !x->is_inline);
    k = off == 0u ? 0u : (off - x->first) / h->cfg.block_bytes + 1u;
    FZ_CHECK(k < x->total);
    FZ_CHECK(off == (k == 0u ? 0u : x->first + (k - 1u) * h->cfg.block_bytes));
    FZ_CHECK(len == (k == 0u ? x->first : k + 1u == x->total ? x->last : h->cfg.block_bytes));
    fq_new_issue(h, tid, seq);
    if (p->valid) { /* a retransmission: the same block of the same transfer, a fresh number */
        FZ_CHECK(p->line == line && p->block == k && p->retx_queued);
        FZ_CHECK(p->retries < h->cfg.retry_limit);
        p->retries++;
        p->retx_queued = 0;
        p->drain_acked = 0;
        h->retx_pending_tid = tid;
    } else { /* a new block: the next of its transfer, within max_outstanding */
        FZ_CHECK(k == x->next_block);
        fq_check_tid(h, x, k, tid);
        x->next_block++;
        x->outstanding++;
        FZ_CHECK(x->outstanding <= h->cfg.max_outstanding);
        memset(p, 0, sizeof *p);
        p->valid = 1;
        p->line = line;
        p->block = k;
    }
    p->seq = seq;
    p->issue = h->issues;
    p->taken = 0;
    memset(&blk, 0, sizeof blk);
    blk.w.addr = x->src + off;
    blk.w.raddr = x->dst + off;
    blk.w.flow = line;
    blk.block = k;
    blk.w.index = x->index;
    blk.w.offset = off;
    blk.w.len = len;
    blk.w.aux = tid; /* op stays 0: the engine writes no caller field; the number is in flags */
    blk.w.flags = (k == 0u ? RNIC_WORK_FIRST : 0u) | (k + 1u == x->total ? RNIC_WORK_LAST : 0u) |
                  (h->retx_pending_tid == tid ? RQ_WORK_RETRANSMIT : 0u) |
                  (x->notify && k + 1u == x->total ? RQ_WORK_NOTIFY : 0u) |
                  (x->cm ? RQ_WORK_CM : 0u) | (x->cm && k > 0u ? RQ_WORK_CHAINED : 0u) |
                  (x->cm && k + 1u < x->total ? RQ_WORK_HAS_NEXT : 0u) | (seq << RQ_WORK_SEQ_SHIFT);
    FQ_PUSH(h->tx, h->tx_head, h->tx_count, blk);
}

/* A BRESP came out: the head beat's verdict by the documented rules. */
FQ_NOCOV static void fq_bresp_out(fq_harness *h, rnic_err status, uint32_t addr)
{
    fq_beat b;
    rq_transfer t;
    int accepted;
    uint32_t first = 0, nlines = 0;
    rnic_err want;
    rq_axi_bresp r;
    FZ_CHECK(h->aw_count > 0u);
    b = *FQ_FRONT(h->aw, h->aw_head);
    FQ_DROP(h->aw_head, h->aw_count);
    FZ_CHECK(addr == b.addr);
    memset(&t, 0, sizeof t);
    want = fq_beat_verdict(h, &b, &accepted, &t, &first, &nlines);
#ifdef FQ_VERBOSE
    fprintf(stderr, "beat domain %u addr %#x bytes %u -> %s (model %s)\n", b.domain, b.addr, b.bytes, rnic_err_name(status), rnic_err_name(want));
#endif
    FZ_CHECK(status == want);
    if (status != RNIC_OK)
        h->refusals++;
    if (status == RNIC_OK) /* no cross-domain success: a write channel of the writer's own page */
        FZ_CHECK((addr >> 5) / h->channels == b.domain && (addr >> 5) % h->channels < h->cfg.write_channels);
    FZ_CHECK(accepted == h->accept_pending);
    if (accepted) {
        FZ_CHECK(h->accept_line == first && h->accept_index == h->next_index[first]);
        FZ_CHECK(h->accept_queue == rq_qos_queue_of(&h->a.q, &t));
        fq_xfer_start(h, first, &t, nlines, 0);
        h->status[first] = RQ_BUSY;
        h->accept_pending = 0;
    }
    memset(&r, 0, sizeof r);
    r.cycle = h->a.q.now;
    r.domain = b.domain;
    r.addr = b.addr;
    r.status = status;
    FQ_PUSH(h->br, h->br_head, h->br_count, r);
}

/* An RDATA came out: the head read's answer from the model's status registers. */
FQ_NOCOV static void fq_rdata_out(fq_harness *h, uint64_t data, rnic_err status)
{
    fq_read r;
    rnic_err want = RNIC_OK;
    uint64_t expect = 0;
    uint32_t c, base;
    rq_axi_rdata out;
    FZ_CHECK(h->rd_count > 0u);
    r = *FQ_FRONT(h->rd, h->rd_head);
    FQ_DROP(h->rd_head, h->rd_count);
    if (r.mode == 0u) {
        if (r.page >= h->cfg.domains || r.index >= h->cfg.write_channels || r.domain >= h->cfg.domains)
            want = RNIC_ENOENT;
        else if (r.domain != r.page)
            want = RNIC_EPERM; /* another domain's page */
        else {
            base = r.page * h->channels + r.index;
            expect = h->status[base];
            if (expect >= RQ_DONE)
                h->status[base] = RQ_IDLE; /* read and cleared */
        }
    } else if (r.mode == 1u) {
        if (r.page >= h->cfg.domains || r.index >= h->cfg.write_channels / 32u || r.domain >= h->cfg.domains)
            want = RNIC_ENOENT;
        else if (r.domain != r.page)
            want = RNIC_EPERM;
        else {
            base = r.page * h->channels + r.index * 32u;
            for (c = 0; c < 32u; c++) {
                expect |= (uint64_t)h->status[base + c] << (2u * c);
                if (h->status[base + c] >= RQ_DONE)
                    h->status[base + c] = RQ_IDLE;
            }
        }
    } else
        want = RNIC_EINVAL;
    FZ_CHECK(status == want);
    FZ_CHECK(data == expect);
    if (status != RNIC_OK)
        h->refusals++;
    memset(&out, 0, sizeof out);
    out.cycle = h->a.q.now;
    out.data = data;
    out.status = status;
    FQ_PUSH(h->rdat, h->rdat_head, h->rdat_count, out);
}

FQ_NOCOV static void fq_packet_out(fq_harness *h, uint32_t line, uint32_t tid, uint32_t seq, uint32_t kind, uint32_t size)
{
    fq_xfer *x;
    rq_packet pk;
    FZ_CHECK(line < h->lines);
    x = &h->x[line];
    FZ_CHECK(x->live);
    memset(&pk, 0, sizeof pk);
    pk.kind = kind;
    pk.tid = tid;
    pk.seq = seq;
    pk.transfer = line;
    pk.domain = line / h->channels;
    pk.size = size;
    pk.index = x->index;
    if (kind == RQ_PKT_CONTROL) { /* the completion notification: once, for a notify transfer */
        FZ_CHECK(x->notify && !x->control_sent && !x->is_inline);
        x->control_sent = 1;
        pk.dst = x->dst;
    } else {
        fq_pend *p;
        FZ_CHECK(kind == RQ_PKT_INLINE && x->is_inline && size == x->size && tid < h->ntids);
        p = &h->pend[tid];
        fq_new_issue(h, tid, seq);
        if (p->valid) { /* retransmitted */
            FZ_CHECK(p->line == line && p->retx_queued && p->retries < h->cfg.retry_limit);
            p->retries++;
            p->retx_queued = 0;
            p->drain_acked = 0;
            pk.retransmit = 1;
            h->retx_pending_tid = tid;
        } else {
            FZ_CHECK(x->next_block == 0u);
            fq_check_tid(h, x, 0, tid);
            x->next_block = 1;
            x->outstanding = 1;
            memset(p, 0, sizeof *p);
            p->valid = 1;
            p->line = line;
        }
        p->seq = seq;
        p->issue = h->issues;
        p->taken = 0;
        pk.dst = x->dst;
    }
    FQ_PUSH(h->pk, h->pk_head, h->pk_count, pk);
}

FQ_NOCOV static void fq_complete(fq_harness *h, uint32_t line, uint32_t st, uint32_t index)
{
    fq_xfer *x;
    uint32_t t;
    int out_of_retries = 0;
    FZ_CHECK(line < h->lines);
    x = &h->x[line];
    FZ_CHECK(x->live && index == x->index);
    if (st == RQ_DONE) { /* every block acknowledged exactly once (bytes covered once), notification out */
        FZ_CHECK(x->acked == x->total && x->next_block == x->total && x->outstanding == 0u);
        FZ_CHECK(!x->notify || x->is_inline || x->control_sent);
    } else {
        FZ_CHECK(st == RQ_ERROR);
        /* an entry of it still queued (or in stage 2): the lines stay taken until it leaves
         * (found here: freed at once, a new transfer on the line was served from the old entry) */
        if (fq_entry_waits(h, line)) {
            x->held = 1;
            h->nheld++;
        }
        for (t = 0; t < h->ntids; t++)
            if (h->pend[t].valid && h->pend[t].line == line) {
                if (h->pend[t].retries >= h->cfg.retry_limit && h->pend[t].retx_queued)
                    out_of_retries = 1;
                h->pend[t].valid = 0; /* its blocks in flight are forgotten */
            }
        FZ_CHECK(out_of_retries); /* ERROR only after a block ran out of retries */
    }
    for (t = 0; t < h->ntids; t++)
        FZ_CHECK(!(h->pend[t].valid && h->pend[t].line == line));
    if (!x->remote)
        h->status[line] = (uint8_t)st;
    x->live = 0;
    if (x->nlines == 2u && !x->held)
        h->second[line + 1u] = 0;
    h->completed++;
}

FQ_NOCOV static void fq_trace(void *user, const rnic_trace_event *ev)
{
    fq_engine *e = (fq_engine *)user;
    fq_harness *h = e->h;
    uint64_t v[4];
    uint32_t k;
    v[0] = ev->cycle;
    v[1] = ((uint64_t)ev->engine << 48) | ((uint64_t)ev->kind << 32) | ev->id;
    v[2] = ev->a;
    v[3] = ev->b;
    for (k = 0; k < 4u; k++) /* FNV-1a over the event */
        e->digest = (e->digest ^ v[k]) * 0x100000001b3ull;
    e->events++;
#ifdef FQ_DUMP /* both engines' events, to diff when they differ */
    fprintf(stderr, "%c %llu k%u id%u a%llx b%llx\n", e->is_ref ? 'A' : 'B', (unsigned long long)ev->cycle, ev->kind, ev->id,
            (unsigned long long)ev->a, (unsigned long long)ev->b);
#endif
    if (!e->is_ref)
        return;
    FZ_CHECK(ev->engine == RNIC_ENGINE_QOS && ev->cycle == e->q.now);
    /* a block or packet OUT (the contract's index, bytes) is followed at once by its ids */
    FZ_CHECK((h->out_pending != 0u) == (ev->kind == RQ_QOS_TRACE_BLOCK_ID));
    switch (ev->kind) {
    case RQ_QOS_TRACE_ACCEPT:
        FZ_CHECK(!h->accept_pending);
        h->accept_pending = 1;
        h->accept_line = ev->id;
        h->accept_queue = (uint32_t)ev->a;
        h->accept_index = (uint32_t)ev->b;
        break;
    case RNIC_TRACE_OUT: /* which port: the one whose ring was pushed (RDATA is pushed after) */
        if (e->q.tx.pushed != e->seen_tx || e->q.pkt.pushed != e->seen_pkt) {
            /* a = the record's index, b = its bytes: checked with the ids of the next event */
            FZ_CHECK(ev->a <= UINT32_MAX && ev->b <= UINT32_MAX);
            h->out_pending = e->q.tx.pushed != e->seen_tx ? FQ_OUT_BLOCK : FQ_OUT_PACKET;
            h->out_line = ev->id;
            h->out_index = (uint32_t)ev->a;
            h->out_len = (uint32_t)ev->b;
            if (h->out_pending == FQ_OUT_BLOCK)
                e->seen_tx++;
            else
                e->seen_pkt++;
        } else if (e->q.b.pushed != e->seen_b) {
            e->seen_b++;
            fq_bresp_out(h, (rnic_err)ev->a, (uint32_t)ev->b);
        } else
            fq_rdata_out(h, ev->a, (rnic_err)ev->b);
        break;
    case RQ_QOS_TRACE_BLOCK_ID: { /* id = line, a = tid << 32 | seq, b = offset << 32 | what */
        uint32_t what = (uint32_t)ev->b, off = (uint32_t)(ev->b >> 32);
        FZ_CHECK(ev->id == h->out_line && h->out_line < h->lines && h->out_index == h->x[h->out_line].index);
        if (h->out_pending == FQ_OUT_BLOCK) {
            FZ_CHECK(what == RQ_QOS_OUT_BLOCK);
            fq_block_out(h, ev->id, (uint32_t)(ev->a >> 32), (uint32_t)ev->a, off, h->out_len);
        } else {
            FZ_CHECK((what == RQ_PKT_INLINE || what == RQ_PKT_CONTROL) && off == 0u);
            fq_packet_out(h, ev->id, (uint32_t)(ev->a >> 32), (uint32_t)ev->a, what, h->out_len);
        }
        h->out_pending = 0;
        break;
    }
    case RNIC_TRACE_POP: /* checked against the record by the pop that caused it */
        h->pops++;
        h->pop_id = ev->id;
        h->pop_a = ev->a;
        h->pop_b = ev->b;
        break;
    case RQ_QOS_TRACE_RETRANSMIT:
        FZ_CHECK(ev->id < h->ntids && h->retx_pending_tid == ev->id);
        FZ_CHECK(h->pend[ev->id].valid && h->pend[ev->id].line == ev->a && h->pend[ev->id].seq == ev->b);
        h->retx_pending_tid = RNIC_NONE;
        break;
    case RQ_QOS_TRACE_TIMEOUT: { /* only a block the send unit took timeout cycles ago */
        const fq_pend *p = ev->id < h->ntids ? &h->pend[ev->id] : NULL;
        FZ_CHECK(p && p->valid && p->taken && !p->retx_queued && p->line == ev->a && p->seq == ev->b);
        FZ_CHECK(e->q.now - p->taken_cycle >= h->timeout);
        h->pend[ev->id].retx_queued = 1;
        break;
    }
    case RQ_QOS_TRACE_NACK:
    case RQ_QOS_TRACE_ACK: { /* applied only to its TID's entry with its current number */
        fq_pend *p = ev->id < h->ntids ? &h->pend[ev->id] : NULL;
        FZ_CHECK(p && p->valid && p->line == ev->a && p->seq == ev->b);
        if (ev->kind == RQ_QOS_TRACE_NACK) {
            p->retx_queued = 1;
        } else {
            fq_xfer *x = &h->x[p->line];
            FZ_CHECK(x->live && x->outstanding > 0u);
            if (p->block < 256u) { /* each block acknowledged once */
                FZ_CHECK(!(x->acked_bits[p->block / 8u] & (1u << (p->block % 8u))));
                x->acked_bits[p->block / 8u] |= (uint8_t)(1u << (p->block % 8u));
            }
            x->acked++;
            x->outstanding--;
            p->valid = 0;
        }
        break;
    }
    case RQ_QOS_TRACE_DROP: { /* stale, duplicate or unknown: no entry with that number */
        const fq_pend *p = ev->id < h->ntids ? &h->pend[ev->id] : NULL;
        FZ_CHECK(ev->a == (uint64_t)(ev->id < 2u * h->cfg.ids.tids ? RNIC_ESTALE : RNIC_ENOENT));
        FZ_CHECK(!p || !p->valid || p->seq != ev->b);
        h->refusals++;
        break;
    }
    case RQ_QOS_TRACE_REMOTE: { /* placed in a read channel of its own domain */
        uint32_t dom;
        const rq_transfer *t;
        FZ_CHECK(h->rm_count > 0u);
        dom = h->remote_dom[h->rm_head % FQ_FIFO];
        t = &h->remote_t[h->rm_head % FQ_FIFO];
        FZ_CHECK(ev->id < h->lines && ev->id / h->channels == dom && ev->id % h->channels >= h->cfg.write_channels);
        FZ_CHECK(!fq_line_busy(h, ev->id) && (rq_desc_lines(t->kind == RQ_KIND_INLINE && t->size <= 8u ? RQ_DESC_INLINE | RQ_DESC_LAST_LINE : 0) == 1u ||
                                               (ev->id % h->channels + 1u < h->channels && !fq_line_busy(h, ev->id + 1u))));
        FZ_CHECK(ev->a == rq_qos_queue_of(&h->a.q, t) && ev->b == h->next_index[ev->id]);
        fq_xfer_start(h, ev->id, t, t->kind == RQ_KIND_INLINE && t->size <= 8u ? 1u : 2u, 1);
        FQ_DROP(h->rm_head, h->rm_count);
        break;
    }
    case RQ_QOS_TRACE_COMPLETE:
        fq_complete(h, ev->id, (uint32_t)ev->a, (uint32_t)ev->b);
        break;
    case RQ_QOS_TRACE_RELEASE: { /* a held transfer's last entry left: not before, not twice */
        fq_xfer *x;
        FZ_CHECK(ev->id < h->lines);
        x = &h->x[ev->id];
        FZ_CHECK(x->held && !x->live && !fq_entry_waits(h, ev->id) && ev->b == x->index);
        x->held = 0;
        if (x->nlines == 2u)
            h->second[ev->id + 1u] = 0;
        h->nheld--;
        break;
    }
    default:
        break;
    }
}

/* ---- the refused-call check and the comparison of the two engines ---- */

FQ_NOCOV static void fq_answer(fq_harness *h, rnic_err ra, rnic_err rb, rnic_err want, const rnic_err_stats *before)
{
    const rnic_err_stats *now = &rq_qos_get_stats(&h->a.q)->errors;
    FZ_CHECK(ra == rb);
    FZ_CHECK(ra == want);
    FZ_CHECK_COUNTED(before, now, ra);
    if (ra != RNIC_OK)
        h->refusals++;
}

FQ_NOCOV static void fq_same(fq_harness *h)
{
    const rq_qos *a = &h->a.q, *b = &h->b.q;
    uint32_t k;
    FZ_CHECK(rq_qos_now(a) == rq_qos_now(b));
    FZ_CHECK(memcmp(rq_qos_get_stats(a), rq_qos_get_stats(b), sizeof(rq_qos_stats)) == 0);
    FZ_CHECK(h->a.digest == h->b.digest && h->a.events == h->b.events);
    FZ_CHECK(h->out_pending == 0u); /* no block or packet OUT without its RQ_QOS_TRACE_BLOCK_ID */
    FZ_CHECK(rq_qos_next_event(a) == rq_qos_next_event(b));
    FZ_CHECK(rq_qos_pending(a) == rq_qos_pending(b));
    for (k = 0; k < 3u; k++)
        FZ_CHECK(rq_qos_free_ids(a, (rq_id_pool)k) == rq_qos_free_ids(b, (rq_id_pool)k));
    FZ_CHECK(rq_qos_space_axi_write(a) == rq_qos_space_axi_write(b) && rq_qos_space_axi_write(a) == h->cfg.axi_write_depth - h->aw_count);
    FZ_CHECK(rq_qos_space_axi_read(a) == rq_qos_space_axi_read(b) && rq_qos_space_axi_read(a) == h->cfg.axi_read_depth - h->rd_count);
    FZ_CHECK(rq_qos_space_response(a) == rq_qos_space_response(b));
    FZ_CHECK(rq_qos_space_remote_read(a) == rq_qos_space_remote_read(b));
    /* every counted error is a refused call, a refused beat or status read, or a dropped response */
    FZ_CHECK(rnic_err_total(&rq_qos_get_stats(a)->errors) == h->refusals);
}

/* The statistics a quiet tick may move: the clock and the stall counters. */
FQ_NOCOV static void fq_mask_stalls(rq_qos_stats *s)
{
    s->cycles = 0;
    s->enqueue_stalls = s->bresp_stalls = s->seg_stalls_output = s->seg_stalls_enqueue = 0;
    s->seg_stalls_arbiter = s->seg_stalls_tid = s->table_port_waits = s->scan_waits = s->remote_waits = 0;
}

FQ_NOCOV static int fq_not_earlier(uint64_t x, uint64_t y, uint64_t now)
{
    if (x == RNIC_NEVER)
        return 1;
    if (y == RNIC_NEVER) /* near the wrap RNIC_NEVER may have been an event due at 2^64 - 1 */
        return now > UINT64_MAX - ((uint64_t)1 << 40);
    return x - now >= y - now;
}

FQ_NOCOV static void fq_tick_a(fq_harness *h)
{
    rq_qos *a = &h->a.q;
    uint64_t now = rq_qos_now(a), next = rq_qos_next_event(a), ev0 = h->a.events;
    rq_qos_stats before = *rq_qos_get_stats(a), after;
    FZ_CHECK(next == RNIC_NEVER || next - now < ((uint64_t)1 << 63)); /* never in the past */
    rq_qos_tick(a);
    h->ticks++;
    after = *rq_qos_get_stats(a);
    FZ_CHECK(rq_qos_now(a) == now + 1u && after.cycles == before.cycles + 1u);
    if (next != now && now != RNIC_NEVER) { /* (at 2^64 - 1 a due event reads RNIC_NEVER) */
        /* a quiet cycle: no record, no event, no statistic but the clock and the stall counters */
        FZ_CHECK(h->a.events == ev0);
        fq_mask_stalls(&before);
        fq_mask_stalls(&after);
        FZ_CHECK(memcmp(&before, &after, sizeof before) == 0);
        FZ_CHECK(fq_not_earlier(rq_qos_next_event(a), next, now + 1u));
    }
}

/* The four output ports are full (advance stops right after a tick that filled one). */
FQ_NOCOV static int fq_some_port_full(const rq_qos *q)
{
    return rnic_ring_full(&q->tx) || rnic_ring_full(&q->pkt) || rnic_ring_full(&q->b) || rnic_ring_full(&q->r);
}

FQ_NOCOV static void fq_run(fq_harness *h, uint64_t n, int use_to)
{
    rq_qos *b = &h->b.q;
    uint64_t i, ran = 0, target = rq_qos_now(b) + n;
    for (i = 0; i < n; i++)
        fq_tick_a(h);
    while (ran < n) {
        uint64_t r = use_to ? rq_qos_advance_to(b, target) : rq_qos_advance(b, n - ran);
        FZ_CHECK(r <= n - ran);
        if (r < n - ran)
            FZ_CHECK(r >= 1u && fq_some_port_full(b));
        if (r == 0u)
            break;
        ran += r;
    }
    FZ_CHECK(ran == n);
    fq_same(h);
}

/* ---- outputs ---- */

FQ_NOCOV static void fq_pop_block(fq_harness *h)
{
    rnic_work wa, wb;
    uint64_t pops = h->pops;
    rnic_err ra = rq_qos_pop_block(&h->a.q, &wa), rb = rq_qos_pop_block(&h->b.q, &wb);
    uint32_t block = 0;
    FZ_CHECK(ra == rb);
    if (ra != RNIC_OK) {
        FZ_CHECK(ra == RNIC_EEMPTY && h->tx_count == 0u && h->pops == pops);
        return;
    }
    FZ_CHECK(memcmp(&wa, &wb, sizeof wa) == 0);
    /* its POP event in the contract's layout: id = flow, a = index, b = len */
    FZ_CHECK(h->pops == pops + 1u && h->pop_id == wa.flow && h->pop_a == wa.index && h->pop_b == wa.len);
    {
        const fq_block *e = FQ_FRONT(h->tx, h->tx_head);
        rq_block_desc d;
        block = e->block;
        FZ_CHECK(h->tx_count > 0u);
        FZ_CHECK(wa.flow == e->w.flow && wa.index == e->w.index && wa.addr == e->w.addr && wa.raddr == e->w.raddr);
        FZ_CHECK(wa.offset == e->w.offset && wa.len == e->w.len && wa.op == e->w.op && wa.aux == e->w.aux);
        FZ_CHECK(wa.flags == e->w.flags && wa.tag == 0u && wa.status == 0);
        FZ_CHECK(rq_qos_block_info(&h->a.q, &wa, &d) == RNIC_OK && d.domain == wa.flow / h->channels && d.tid == wa.aux);
        FQ_DROP(h->tx_head, h->tx_count);
    }
    /* the send unit took it: its timeout starts now, unless it is a stale copy (its entry gone;
     * with a short sequence space the TID's new entry can carry the same number: the entry must
     * be this block's own, the same line, transfer and block) */
    if (wa.aux < h->ntids && h->pend[wa.aux].valid && h->pend[wa.aux].seq == RQ_WORK_SEQ(wa.flags) && h->pend[wa.aux].line == wa.flow &&
        h->pend[wa.aux].block == block && h->x[wa.flow].index == wa.index) {
        h->pend[wa.aux].taken = 1;
        h->pend[wa.aux].taken_cycle = rq_qos_now(&h->a.q);
    }
    h->sent[h->sent_next] = (fq_sent){ wa.aux, RQ_WORK_SEQ(wa.flags), h->issues };
    h->sent_next = (h->sent_next + 1u) % FQ_SENT;
    if (h->nsent < FQ_SENT)
        h->nsent++;
}

FQ_NOCOV static void fq_pop_packet(fq_harness *h)
{
    rq_packet pa, pb;
    rnic_err ra, rb;
    uint64_t pops = h->pops;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    ra = rq_qos_pop_packet(&h->a.q, &pa);
    rb = rq_qos_pop_packet(&h->b.q, &pb);
    FZ_CHECK(ra == rb);
    if (ra != RNIC_OK) {
        FZ_CHECK(ra == RNIC_EEMPTY && h->pk_count == 0u && h->pops == pops);
        return;
    }
    /* its POP event: id = transfer, a = index, b = size (the packet's bytes) */
    FZ_CHECK(h->pops == pops + 1u && h->pop_id == pa.transfer && h->pop_a == pa.index && h->pop_b == pa.size);
    FZ_CHECK(pa.cycle == pb.cycle && pa.dst == pb.dst && pa.notify_target == pb.notify_target && pa.kind == pb.kind &&
             pa.tid == pb.tid && pa.seq == pb.seq && pa.transfer == pb.transfer && pa.domain == pb.domain &&
             pa.size == pb.size && pa.index == pb.index && pa.retransmit == pb.retransmit &&
             memcmp(pa.payload, pb.payload, sizeof pa.payload) == 0);
    {
        const rq_packet *e = FQ_FRONT(h->pk, h->pk_head);
        FZ_CHECK(h->pk_count > 0u);
        FZ_CHECK(pa.kind == e->kind && pa.tid == e->tid && pa.seq == e->seq && pa.transfer == e->transfer);
        FZ_CHECK(pa.domain == e->domain && pa.size == e->size && pa.index == e->index && pa.dst == e->dst);
        FZ_CHECK(pa.retransmit == e->retransmit);
        FQ_DROP(h->pk_head, h->pk_count);
    }
    if (pa.kind == RQ_PKT_INLINE) {
        if (pa.tid < h->ntids && h->pend[pa.tid].valid && h->pend[pa.tid].seq == pa.seq && pa.transfer < h->lines && h->pend[pa.tid].line == pa.transfer &&
            h->pend[pa.tid].block == 0u && h->x[pa.transfer].index == pa.index) {
            h->pend[pa.tid].taken = 1;
            h->pend[pa.tid].taken_cycle = rq_qos_now(&h->a.q);
        }
        h->sent[h->sent_next] = (fq_sent){ pa.tid, pa.seq, h->issues };
        h->sent_next = (h->sent_next + 1u) % FQ_SENT;
        if (h->nsent < FQ_SENT)
            h->nsent++;
    }
}

FQ_NOCOV static void fq_pop_bresp(fq_harness *h)
{
    rq_axi_bresp ra_, rb_;
    rnic_err ra, rb;
    memset(&ra_, 0, sizeof ra_); /* padding: compared whole below */
    memset(&rb_, 0, sizeof rb_);
    ra = rq_qos_pop_bresp(&h->a.q, &ra_);
    rb = rq_qos_pop_bresp(&h->b.q, &rb_);
    FZ_CHECK(ra == rb);
    if (ra != RNIC_OK) {
        FZ_CHECK(ra == RNIC_EEMPTY && h->br_count == 0u);
        return;
    }
    /* field by field: the engine's records carry their padding from its stack */
    FZ_CHECK(ra_.cycle == rb_.cycle && ra_.domain == rb_.domain && ra_.addr == rb_.addr && ra_.status == rb_.status);
    FZ_CHECK(h->br_count > 0u);
    {
        const rq_axi_bresp *e = FQ_FRONT(h->br, h->br_head);
        FZ_CHECK(ra_.cycle == e->cycle && ra_.domain == e->domain && ra_.addr == e->addr && ra_.status == e->status);
    }
    FQ_DROP(h->br_head, h->br_count);
}

FQ_NOCOV static void fq_pop_rdata(fq_harness *h)
{
    rq_axi_rdata ra_, rb_;
    rnic_err ra, rb;
    memset(&ra_, 0, sizeof ra_);
    memset(&rb_, 0, sizeof rb_);
    ra = rq_qos_pop_rdata(&h->a.q, &ra_);
    rb = rq_qos_pop_rdata(&h->b.q, &rb_);
    FZ_CHECK(ra == rb);
    if (ra != RNIC_OK) {
        FZ_CHECK(ra == RNIC_EEMPTY && h->rdat_count == 0u);
        return;
    }
    FZ_CHECK(ra_.cycle == rb_.cycle && ra_.data == rb_.data && ra_.status == rb_.status);
    FZ_CHECK(h->rdat_count > 0u);
    {
        const rq_axi_rdata *e = FQ_FRONT(h->rdat, h->rdat_head);
        FZ_CHECK(ra_.data == e->data && ra_.status == e->status && ra_.cycle == e->cycle);
    }
    FQ_DROP(h->rdat_head, h->rdat_count);
}

FQ_NOCOV static void fq_pop_all(fq_harness *h)
{
    rnic_work w;
    rq_packet pk;
    rq_axi_bresp br;
    rq_axi_rdata rd;
    while (rq_qos_peek_block(&h->a.q, &w) == RNIC_OK)
        fq_pop_block(h);
    while (rq_qos_peek_packet(&h->a.q, &pk) == RNIC_OK)
        fq_pop_packet(h);
    while (rq_qos_peek_bresp(&h->a.q, &br) == RNIC_OK)
        fq_pop_bresp(h);
    while (rq_qos_peek_rdata(&h->a.q, &rd) == RNIC_OK)
        fq_pop_rdata(h);
}

/* ---- inputs ---- */

/* One AXI write beat into both engines; the host waits (a cycle at a time, draining BRESPs) while
 * the AW FIFO is full, a few times at most. Returns 0 when it gave up. */
FQ_NOCOV static int fq_push_beat(fq_harness *h, uint32_t domain, uint32_t addr, const uint64_t data[2], uint32_t bytes)
{
    rnic_err_stats before;
    rnic_err ra, rb, want;
    fq_beat bt;
    uint32_t tries;
    for (tries = 0; rq_qos_space_axi_write(&h->a.q) == 0u && tries < 4u && h->ticks < FQ_TICK_BUDGET; tries++) {
        fq_run(h, 1, 0);
        fq_pop_all(h);
    }
    before = rq_qos_get_stats(&h->a.q)->errors;
    want = h->aw_count == h->cfg.axi_write_depth ? RNIC_EBUSY : RNIC_OK;
    ra = rq_qos_axi_write(&h->a.q, domain, addr, data, bytes);
    rb = rq_qos_axi_write(&h->b.q, domain, addr, data, bytes);
    fq_answer(h, ra, rb, want, &before);
    if (ra != RNIC_OK)
        return 0;
    bt.domain = domain;
    bt.addr = addr;
    bt.bytes = bytes;
    bt.data[0] = data[0];
    bt.data[1] = bytes == 16u ? data[1] : 0u;
    FQ_PUSH(h->aw, h->aw_head, h->aw_count, bt);
    return 1;
}

/* A descriptor written by the host of `domain` to channel `ch` of page `page` (hostile: another
 * domain's page, a read channel, corrupt words, misaligned beats, interleaving). */
FQ_NOCOV static void fq_write_descriptor(fq_harness *h, fz_in *in)
{
    rq_transfer t;
    uint64_t lines[8], beat[2];
    uint8_t how = fz_u8(in), shape = fz_u8(in);
    uint32_t domain = (uint32_t)fz_hostile(in, 0, h->cfg.domains - 1u);
    uint32_t page = (how & 0x30u) == 0x30u ? (uint32_t)fz_hostile(in, 0, h->cfg.domains) : domain;
    uint32_t ch = (uint32_t)fz_hostile(in, 0, h->cfg.write_channels - 1u), nl, l, w, base;
    memset(&t, 0, sizeof t);
    t.kind = (how & 1u) ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
    if (t.kind == RQ_KIND_INLINE) {
        t.size = fz_hostile(in, 1, 32);
        t.dst = fz_u32(in);
        for (w = 0; w < RQ_INLINE_MAX; w++)
            t.payload[w] = (uint8_t)(w * 37u + shape);
    } else {
        t.size = fz_hostile(in, 33, 8u * h->cfg.block_bytes);
        t.src = (shape & 3u) == 3u ? UINT64_MAX - fz_below(in, 8192) : (uint64_t)fz_u32(in) << 4;
        t.dst = (shape & 12u) == 12u ? UINT64_MAX - fz_below(in, 8192) : fz_u32(in);
        t.cm = (how & 2u) != 0u;
        t.multipath = t.cm && (how & 4u);
        t.notify = (how & 8u) != 0u;
        t.notify_target = 0xabcdu;
    }
    t.prio = fz_u8(in) & 15u;
    memset(lines, 0, sizeof lines);
    if (rq_desc_encode(&t, lines, lines + 4) != RNIC_OK) { /* hostile sizes: raw words anyway */
        lines[2] = t.size;
        lines[3] = RQ_DESC_LAST_LINE;
        lines[7] = RQ_DESC_LAST_LINE;
    }
    if ((shape & 0x30u) == 0x30u) /* a corrupt word */
        lines[fz_u8(in) & 7u] ^= (uint64_t)1 << (fz_u8(in) & 63u);
    nl = (lines[3] & RQ_DESC_INLINE) && (lines[3] & RQ_DESC_LAST_LINE) ? 1u : 2u;
    base = ((page * h->channels + ch) << 5);
    for (l = 0; l < nl; l++) {
        for (w = 0; w < 4u;) {
            uint32_t addr = base + (l << 5) + (w << 3), bytes = (shape & 0x40u) && !(w & 1u) ? 16u : 8u;
            uint8_t bad = fz_u8(in);
            beat[0] = lines[l * 4u + w];
            beat[1] = w + 1u < 4u ? lines[l * 4u + w + 1u] : 0u;
            if ((bad & 0x1fu) == 0x1fu) { /* a hostile beat in the middle */
                uint32_t kind = (bad >> 5) & 7u;
                if (kind == 0u)
                    addr |= 4u; /* misaligned */
                else if (kind == 1u)
                    bytes = 12u; /* bad strobes */
                else if (kind == 2u)
                    addr = (uint32_t)fz_hostile(in, 0, (h->lines << 5) - 1u) & ~7u; /* anywhere */
                else if (kind == 3u)
                    addr += 32u * (uint32_t)(1u + fz_below(in, 3)); /* another line: interleaving */
                else if (kind == 4u) {
                    domain = (uint32_t)fz_hostile(in, 0, h->cfg.domains); /* another master */
                }
                else if (kind == 5u)
                    addr = ((page * h->channels + h->cfg.write_channels + fz_below(in, h->cfg.read_channels)) << 5); /* a read channel */
            }
            if (!fq_push_beat(h, domain, addr, beat, bytes))
                return;
            w += bytes == 16u ? 2u : 1u;
        }
    }
}

FQ_NOCOV static void fq_status_read(fq_harness *h, fz_in *in)
{
    rnic_err_stats before = rq_qos_get_stats(&h->a.q)->errors;
    rnic_err ra, rb, want;
    fq_read r;
    uint8_t how = fz_u8(in);
    r.domain = (uint32_t)fz_hostile(in, 0, h->cfg.domains - 1u);
    r.page = (how & 3u) == 3u ? (uint32_t)fz_hostile(in, 0, h->cfg.domains) : r.domain;
    r.mode = (how & 4u) ? 1u : (how & 0xf8u) == 0xf8u ? (uint32_t)fz_hostile(in, 0, 2) : 0u;
    r.index = (uint32_t)fz_hostile(in, 0, r.mode == 1u ? h->cfg.write_channels / 32u - 1u : h->cfg.write_channels - 1u);
    want = h->rd_count == h->cfg.axi_read_depth ? RNIC_EBUSY : RNIC_OK;
    ra = rq_qos_axi_read(&h->a.q, r.domain, r.page, r.index, r.mode);
    rb = rq_qos_axi_read(&h->b.q, r.domain, r.page, r.index, r.mode);
    fq_answer(h, ra, rb, want, &before);
    if (ra == RNIC_OK)
        FQ_PUSH(h->rd, h->rd_head, h->rd_count, r);
}

/* A response from the network: for a block or packet taken (ACK, NACK, duplicate, stale), or
 * for a TID that does not exist. Only pairs issued fewer than 2^seq_bits issues ago are named
 * (the documented bound: an older response may match a newer block by its number). */
FQ_NOCOV static void fq_response(fq_harness *h, fz_in *in)
{
    rnic_err_stats before = rq_qos_get_stats(&h->a.q)->errors;
    rnic_err ra, rb, want;
    rq_response r;
    uint8_t how = fz_u8(in);
    uint32_t space = rq_qos_space_response(&h->a.q), pick = fz_u32(in);
    /* the same bytes read whatever the state, so that a seed means the same after a mutation */
    uint32_t wild_tid = (uint32_t)fz_hostile(in, 2u * h->cfg.ids.tids, 4u * h->cfg.ids.tids);
    uint16_t wild_seq = fz_u16(in);
    r.ack = (how & 7u) != 0u;
    if ((how & 0x18u) == 0x18u || h->nsent == 0u) {
        r.tid = wild_tid; /* unknown */
        if (r.tid < 2u * h->cfg.ids.tids)
            return; /* a wild value landed on a real TID: its number is not known to be stale */
        r.seq = wild_seq;
    } else {
        const fq_sent *s = &h->sent[(h->sent_next + FQ_SENT - 1u - pick % h->nsent) % FQ_SENT];
        if (s->tid == RNIC_NONE)
            return;
        /* the documented bound: a response must come back within 2^seq_bits issues. Issues
         * counts records out (a block numbered in stage 2 may still wait in stage 3: 4 more), and
         * until the handler takes this one (3 cycles per response, the port's depth before it) up
         * to 2 more issues a cycle (a new block and a retransmission) */
        if (h->issues - s->issue + 4u + 6u * ((uint64_t)h->cfg.response_depth + 1u) >= ((uint64_t)1 << h->cfg.seq_bits))
            return;
        r.tid = s->tid;
        r.seq = s->seq;
    }
    want = space == 0u ? RNIC_EBUSY : RNIC_OK;
    ra = rq_qos_push_response(&h->a.q, (how & 0xe0u) == 0xe0u ? NULL : &r);
    rb = rq_qos_push_response(&h->b.q, (how & 0xe0u) == 0xe0u ? NULL : &r);
    if ((how & 0xe0u) == 0xe0u)
        want = RNIC_EINVAL;
    fq_answer(h, ra, rb, want, &before);
    if (ra == RNIC_OK)
        FZ_CHECK(rq_qos_space_response(&h->a.q) == space - 1u);
}

FQ_NOCOV static void fq_remote_read(fq_harness *h, fz_in *in)
{
    rnic_err_stats before = rq_qos_get_stats(&h->a.q)->errors;
    rnic_err ra, rb, want;
    rq_transfer t;
    uint64_t lines[8];
    uint8_t how = fz_u8(in);
    uint32_t domain = (uint32_t)fz_hostile(in, 0, h->cfg.domains - 1u), space = rq_qos_space_remote_read(&h->a.q), w;
    memset(&t, 0, sizeof t);
    t.kind = (how & 1u) ? RQ_KIND_INLINE : RQ_KIND_REGULAR;
    t.size = t.kind == RQ_KIND_INLINE ? fz_hostile(in, 1, 32) : fz_hostile(in, 33, 3u * h->cfg.block_bytes);
    t.src = (how & 6u) == 6u ? UINT64_MAX - fz_below(in, 4096) : fz_u32(in);
    t.dst = fz_u32(in);
    t.cm = t.kind == RQ_KIND_REGULAR && (how & 8u);
    t.multipath = (how & 0x30u) == 0x30u;
    t.prio = (uint32_t)fz_hostile(in, 0, 15);
    for (w = 0; w < RQ_INLINE_MAX; w++)
        t.payload[w] = (uint8_t)w;
    if (domain >= h->cfg.domains)
        want = RNIC_ENOENT;
    else if (rq_desc_encode(&t, lines, lines + 4) != RNIC_OK ||
             (t.kind == RQ_KIND_REGULAR && (t.dst > UINT64_MAX - t.size || t.src > UINT64_MAX - t.size)))
        want = RNIC_EINVAL;
    else if (fq_no_fid_pool(h, &t))
        want = RNIC_ENOSPC;
    else
        want = space == 0u ? RNIC_EBUSY : RNIC_OK;
    ra = rq_qos_push_remote_read(&h->a.q, domain, (how & 0xc0u) == 0xc0u && domain < h->cfg.domains ? NULL : &t);
    rb = rq_qos_push_remote_read(&h->b.q, domain, (how & 0xc0u) == 0xc0u && domain < h->cfg.domains ? NULL : &t);
    if ((how & 0xc0u) == 0xc0u && domain < h->cfg.domains)
        want = RNIC_EINVAL;
    fq_answer(h, ra, rb, want, &before);
    if (ra == RNIC_OK) {
        FZ_CHECK(h->rm_count < FQ_FIFO);
        h->remote_dom[(h->rm_head + h->rm_count) % FQ_FIFO] = domain;
        h->remote_t[(h->rm_head + h->rm_count) % FQ_FIFO] = t;
        h->rm_count++;
    }
}

FQ_NOCOV static void fq_null_calls(fq_harness *h, fz_in *in)
{
    rnic_err_stats before = rq_qos_get_stats(&h->a.q)->errors;
    rnic_err ra, rb;
    uint8_t which = fz_u8(in) % 5u;
    switch (which) {
    case 0: ra = rq_qos_pop_block(&h->a.q, NULL); rb = rq_qos_pop_block(&h->b.q, NULL); break;
    case 1: ra = rq_qos_peek_block(&h->a.q, NULL); rb = rq_qos_peek_block(&h->b.q, NULL); break;
    case 2: ra = rq_qos_pop_packet(&h->a.q, NULL); rb = rq_qos_pop_packet(&h->b.q, NULL); break;
    case 3: ra = rq_qos_pop_bresp(&h->a.q, NULL); rb = rq_qos_pop_bresp(&h->b.q, NULL); break;
    default: ra = rq_qos_axi_write(&h->a.q, 0, 0, NULL, 8); rb = rq_qos_axi_write(&h->b.q, 0, 0, NULL, 8); break;
    }
    fq_answer(h, ra, rb, RNIC_EINVAL, &before);
    FZ_CHECK(rq_qos_push_response(NULL, NULL) == RNIC_EINVAL && rq_qos_next_event(NULL) == RNIC_NEVER);
}

/* ---- config ---- */

FQ_NOCOV static uint64_t fq_val(fz_in *in, int hostile, uint64_t lo, uint64_t hi)
{
    return hostile ? fz_hostile(in, lo, hi) : lo + fz_below(in, (uint32_t)(hi - lo + 1u));
}

FQ_NOCOV static int fq_pow2(uint64_t v) { return v && !(v & (v - 1u)); }

/* The documented ranges (qos_api.h, ids.h, status.h, docs/rnicq_qos_model.md), written here. */
FQ_NOCOV static int fq_config_valid(const rq_qos_config *c)
{
    const rq_ids_config *i = &c->ids;
    uint64_t timeout;
    if (c->clock_hz < 1000000u || c->clock_hz > 1000000000000ull)
        return 0;
    if (c->domains < 1u || c->domains > 1024u || c->write_channels == 0u || c->write_channels % 32u || c->read_channels == 0u ||
        (uint64_t)c->domains * ((uint64_t)c->write_channels + c->read_channels) > ((uint64_t)1 << 20) ||
        (uint64_t)c->domains * c->write_channels > ((uint64_t)1 << 24))
        return 0;
    if (c->intra_priorities < 1u || c->intra_priorities > 16u || c->block_bytes < 64u || c->block_bytes > (1u << 30) ||
        !fq_pow2(c->block_bytes))
        return 0;
    if (!fq_pow2(i->tids) || i->tids < 4u || i->tids > (1u << 20) || !fq_pow2(i->flow_blocks) || i->flow_blocks > 64u ||
        i->tids % i->flow_blocks || i->fid_groups > i->tids ||
        (uint64_t)i->fids_unipath + 4u * (uint64_t)i->fid_groups != i->tids / i->flow_blocks ||
        (uint64_t)i->fids_unipath + i->fid_groups == 0u)
        return 0;
    if (c->max_outstanding < 1u || c->max_outstanding > 15u || (c->accumulators != 1u && c->accumulators != c->domains))
        return 0;
    if (!c->axi_write_depth || !c->bresp_depth || !c->axi_read_depth || !c->block_depth || !c->packet_depth || !c->response_depth ||
        !c->remote_read_depth || c->seq_bits < 2u || c->seq_bits > 16u || c->retry_limit > 255u)
        return 0;
    timeout = rnic_ns_to_cycles(c->timeout_ns, c->clock_hz);
    return timeout >= 1u && timeout <= ((uint64_t)1 << 40);
}

FQ_NOCOV static int fq_setup(fq_harness *h, fz_in *in)
{
    rq_qos_config *c = &h->cfg;
    const char *field = NULL;
    size_t need;
    rnic_err e;
    int hostile = (fz_u8(in) & 7u) == 0u;
    uint32_t fids, k;
    rq_qos_config_default(c);
    c->domains = (uint32_t)fq_val(in, hostile, 1, 3);
    c->write_channels = hostile ? (uint32_t)fz_hostile(in, 32, 64) : 32u;
    c->read_channels = (uint32_t)fq_val(in, hostile, 1, 4);
    c->intra_priorities = (uint32_t)fq_val(in, hostile, 1, 4);
    c->block_bytes = hostile ? (uint32_t)fz_hostile(in, 64, 1024) : 64u << fz_below(in, 5);
    c->max_outstanding = (uint32_t)fq_val(in, hostile, 1, 4);
    c->ids.tids = hostile ? (uint32_t)fz_hostile(in, 4, 64) : 8u << fz_below(in, 3);
    c->ids.flow_blocks = hostile ? (uint32_t)fz_hostile(in, 1, 8) : 1u << fz_below(in, 3);
    fids = c->ids.flow_blocks ? c->ids.tids / c->ids.flow_blocks : 0u;
    c->ids.fid_groups = hostile ? (uint32_t)fz_hostile(in, 0, 4) : fz_below(in, fids / 4u + 1u);
    c->ids.fids_unipath = fids - 4u * c->ids.fid_groups;
    if (hostile && (fz_u8(in) & 7u) == 0u)
        c->ids.fids_unipath++;
    c->accumulators = (fz_u8(in) & 1u) ? 1u : c->domains;
    c->axi_write_depth = (uint32_t)fq_val(in, hostile, 1, 4);
    c->bresp_depth = (uint32_t)fq_val(in, hostile, 1, 4);
    c->axi_read_depth = (uint32_t)fq_val(in, hostile, 1, 4);
    c->block_depth = (uint32_t)fq_val(in, hostile, 1, 4);
    c->packet_depth = (uint32_t)fq_val(in, hostile, 1, 4);
    c->response_depth = (uint32_t)fq_val(in, hostile, 1, 4);
    c->remote_read_depth = (uint32_t)fq_val(in, hostile, 1, 3);
    c->seq_bits = (uint32_t)fq_val(in, hostile, 2, 12);
    c->timeout_ns = fq_val(in, hostile, 30, 400) * 1000u / 150u; /* 30 .. 400 cycles at 150 MHz */
    c->retry_limit = (uint32_t)fq_val(in, hostile, 0, 3);
    c->clock_hz = hostile ? fz_hostile(in, 1000000u, 1000000000000ull) : 150000000u;
    c->start_cycle = (fz_u8(in) & 3u) == 0u ? UINT64_MAX - fz_below(in, 2048) : fz_u16(in);
    c->trace = fq_trace;
    c->trace_user = &h->a;
    e = rq_qos_config_check(c, &field);
    need = rq_qos_mem_size(c);
    if (!fq_config_valid(c)) { /* refused alike by the three, the field named */
        FZ_CHECK(e != RNIC_OK && field != NULL && need == 0u);
        FZ_CHECK(rq_qos_init(&h->a.q, c, fq_mem_a, FQ_MEM) == e);
        return 0;
    }
    FZ_CHECK(e == RNIC_OK && need > 0u);
    if (need > FQ_MEM) {
        FZ_CHECK(rq_qos_init(&h->a.q, c, fq_mem_a, FQ_MEM) == RNIC_ENOSPC);
        return 0;
    }
    FZ_CHECK(rq_qos_init(&h->a.q, c, fq_mem_a, need - 1u) == RNIC_ENOSPC);
    FZ_CHECK(rq_qos_init(&h->a.q, c, fq_mem_a, need) == RNIC_OK);
    c->trace_user = &h->b;
    FZ_CHECK(rq_qos_init(&h->b.q, c, fq_mem_b, need) == RNIC_OK);
    c->trace_user = &h->a;
    h->channels = c->write_channels + c->read_channels;
    h->lines = c->domains * h->channels;
    h->ntids = 2u * c->ids.tids;
    if (h->lines > FQ_LINES || h->ntids > FQ_TIDS || c->domains > FQ_LINES || c->axi_write_depth >= FQ_FIFO || c->bresp_depth >= FQ_FIFO ||
        c->axi_read_depth >= FQ_FIFO || c->block_depth >= FQ_FIFO || c->packet_depth >= FQ_FIFO || c->remote_read_depth >= FQ_FIFO)
        return 0; /* valid, but larger than the model's tables and FIFOs */
    h->timeout = rnic_ns_to_cycles(c->timeout_ns, c->clock_hz);
    FZ_CHECK(rq_qos_timeout_cycles(&h->a.q) == h->timeout);
    for (k = 0; k < FQ_LINES; k++) {
        h->acc[k].line = RNIC_NONE;
        h->acc[k].expect_line = RNIC_NONE;
    }
    return 1;
}

/* After the program: a well-behaved send unit and network (every block and packet taken and
 * acknowledged, every status read) until nothing is left; then every transfer has completed,
 * nothing is pending and every ID is back. */
FQ_NOCOV static void fq_drain(fq_harness *h)
{
    uint32_t round;
    for (round = 0; round < 300u && h->ticks < 3u * FQ_TICK_BUDGET; round++) { /* (budget: the program's and twice as many) */
        uint64_t next, now;
        uint32_t k;
        fq_pop_all(h);
        for (k = 0; k < h->nsent; k++) { /* acknowledge what the send unit took, if still pending */
            const fq_sent *s = &h->sent[k];
            rq_response r;
            /* the network keeps the documented bound here too: an ACK the handler may take
             * 2^seq_bits issues after the number was given could meet a newer block under it */
            if (s->tid < h->ntids && h->pend[s->tid].valid && h->pend[s->tid].seq == s->seq && !h->pend[s->tid].drain_acked &&
                h->issues - h->pend[s->tid].issue + 4u + 6u * ((uint64_t)h->cfg.response_depth + 1u) < ((uint64_t)1 << h->cfg.seq_bits) &&
                rq_qos_space_response(&h->a.q)) {
                rnic_err_stats before = rq_qos_get_stats(&h->a.q)->errors;
                rnic_err ra, rb;
                r.tid = s->tid;
                r.seq = s->seq;
                r.ack = 1;
                ra = rq_qos_push_response(&h->a.q, &r);
                rb = rq_qos_push_response(&h->b.q, &r);
                fq_answer(h, ra, rb, RNIC_OK, &before);
                h->pend[s->tid].drain_acked = 1;
                h->sent[k].tid = RNIC_NONE;
            }
        }
        now = rq_qos_now(&h->a.q);
        next = rq_qos_next_event(&h->a.q);
        if (next == RNIC_NEVER && UINT64_MAX - now > 4u && rq_qos_pending(&h->a.q) == 0u && h->aw_count == 0u &&
            h->rd_count == 0u && h->rm_count == 0u) {
            uint32_t l;
            if (rq_qos_ready(&h->a.q)) {
                for (l = 0; l < h->lines; l++)
                    FZ_CHECK(!h->x[l].live); /* every accepted transfer completed */
                FZ_CHECK(h->completed == h->accepted);
                FZ_CHECK(h->nheld == 0u); /* and every failed one's lines came free */
                for (l = 0; l < h->lines; l++)
                    FZ_CHECK(!fq_line_busy(h, l) && !h->a.q.occupied[l]);
                FZ_CHECK(rq_qos_free_ids(&h->a.q, RQ_POOL_TID) == h->cfg.ids.tids);
                FZ_CHECK(rq_qos_free_ids(&h->a.q, RQ_POOL_FID1) == h->cfg.ids.fids_unipath);
                FZ_CHECK(rq_qos_free_ids(&h->a.q, RQ_POOL_FID4) == h->cfg.ids.fid_groups);
                h->drained = 1;
                return;
            }
        }
        {
            uint64_t gap = next == RNIC_NEVER ? 8u : next - now + 1u;
            fq_run(h, gap < 16u ? gap : 16u, round & 1u);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fq_harness *h = &H;
    fz_in in;
    uint32_t steps = 0;
    memset(h, 0, sizeof *h);
    h->a.h = h;
    h->a.is_ref = 1;
    h->b.h = h;
    h->a.digest = h->b.digest = 0xcbf29ce484222325ull;
    h->retx_pending_tid = RNIC_NONE;
    fz_init(&in, data, size);
    if (!fq_setup(h, &in))
        return 0;
    fq_same(h);
    while (fz_more(&in) && steps++ < 300u && h->ticks < FQ_TICK_BUDGET) {
        uint8_t op = fz_u8(&in);
#ifdef FQ_VERBOSE
        fprintf(stderr, "op %u at %zu\n", op, in.at - 1u);
#endif
        switch (op % 12u) {
        case 0: case 1: fq_write_descriptor(h, &in); break;
        case 2: fq_status_read(h, &in); break;
        case 3: case 4: fq_response(h, &in); break;
        case 5: fq_remote_read(h, &in); break;
        case 6: fq_run(h, 1u + fz_below(&in, 8), 0); break;
        case 7: {
            uint64_t n = fz_hostile(&in, 1, 64);
            fq_run(h, n > 128u ? 1u + n % 128u : n, op & 0x10u);
            break;
        }
        case 8: fq_pop_block(h); fq_pop_packet(h); break;
        case 9: fq_pop_bresp(h); fq_pop_rdata(h); break;
        case 10: fq_pop_all(h); break;
        default: fq_null_calls(h, &in); break;
        }
        fq_same(h);
    }
    if (h->ticks < FQ_TICK_BUDGET)
        fq_drain(h);
#ifdef FQ_VERBOSE /* what a seed reached (tests/fuzz/gen/qos_seeds.py) */
    {
        const rq_qos_stats *st = rq_qos_get_stats(&h->a.q);
        fprintf(stderr, "ticks %llu accepted %u completed %u (done %llu failed %llu) blocks %llu inline %llu control %llu "
                "retx %llu timeouts %llu nacks %llu acks %llu dropped %llu beats_refused %llu remote %llu refusals %llu drained %d\n",
                (unsigned long long)h->ticks, h->accepted, h->completed, (unsigned long long)st->done,
                (unsigned long long)st->failed, (unsigned long long)st->blocks, (unsigned long long)st->inline_packets,
                (unsigned long long)st->control_packets, (unsigned long long)st->retransmits, (unsigned long long)st->timeouts,
                (unsigned long long)st->nacks, (unsigned long long)st->acks, (unsigned long long)(st->reasons.response_stale + st->reasons.response_unknown),
                (unsigned long long)(st->reasons.beat_align + st->reasons.beat_unknown + st->reasons.beat_perm + st->reasons.beat_interleaved +
                                    st->reasons.channel_busy + st->reasons.desc_invalid + st->reasons.desc_range + st->reasons.desc_no_fid), (unsigned long long)st->remote_reads, (unsigned long long)h->refusals,
                h->drained);
    }
#endif
    return 0;
}
