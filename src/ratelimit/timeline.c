/* ratelimit.h: timeline.c -- the timeline of dormant flows: the P-heap's order as a radix calendar, its hardware timing (one operation every 2 cycles, height cycles each) modelled. */

/* ---- timeline: a radix calendar on (key, insertion order) ----
 * Keys are split into 6-bit digits. Level l holds the keys that agree with tl_base above digit
 * l and differ in digit l; slot (l, d) holds those whose digit l is d (a list in insertion
 * order, doubly linked through tl_next / tl_prev so a re-timed flow can leave from anywhere;
 * a 64-bit occupancy word per level). A key's slot depends only on the key and tl_base, and
 * tl_base moves only to the lower bound of the slot being spread, so equal keys always share
 * a list and keep their insertion order: ties leave first-in first-out, as from the P-heap.
 * Lower levels hold smaller keys, and a level-0 list holds one key. After every removal the
 * calendar is normalised (while level 0 is empty, the smallest slot of the lowest level is
 * spread into the levels below it), so the smallest entry is the head of level 0's first
 * list; an entry moves down at most once per level (<= 3 times for keys 2^23 cycles ahead).
 * A key below tl_base (its enqueue was computed before a larger key left) is due as well: it
 * waits in a short sorted "late" list that is served first. Wrap-safe: the top level (4 bits)
 * is searched circularly from tl_base's digit.
 * In front of the calendar, the run: a list of entries in key order (ties in insertion order)
 * that takes, in O(1), every entry whose key is at least the run's last and larger than any key
 * the calendar holds (tl_cal_bound) -- keys that arrive in order, as a backlogged fair share
 * reschedules its QPs, never enter the calendar. A run entry ties only with calendar entries
 * that settled after it, so on equal keys the run's leaves first; the order is exactly
 * (key, insertion order) over both. */

#define RL__TL_LEVEL(key, base) ((key) == (base) ? 0u : rl__msb64((key) ^ (base)) / RL__TL_DIGIT)

static uint32_t rl__msb64(uint64_t x) /* x != 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && UINTPTR_MAX > 0xffffffffu && !defined(RNIC_PORTABLE_ARITH)
    return 63u - (uint32_t)__builtin_clzll(x);
#else
    uint32_t b = 0;
    if (x >> 32) { x >>= 32; b += 32; }
    if (x >> 16) { x >>= 16; b += 16; }
    if (x >> 8) { x >>= 8; b += 8; }
    if (x >> 4) { x >>= 4; b += 4; }
    if (x >> 2) { x >>= 2; b += 2; }
    return b + (uint32_t)(x >> 1);
#endif
}

/* Append qp (key `key`) to its list. */
static void rl__tl_append(rl *r, uint32_t qp, uint64_t key)
{
    uint32_t level = RL__TL_LEVEL(key, r->tl_base), digit = (uint32_t)(key >> (level * RL__TL_DIGIT)) & 63u;
    uint32_t list = level * 64u + digit, tail = r->tl_tail[list];
    r->tl_next[qp] = RNIC_NONE;
    r->tl_prev[qp] = tail;
    if (tail == RNIC_NONE) {
        r->tl_head[list] = qp;
        r->tl_bits[level] |= (uint64_t)1 << digit;
        r->tl_levels |= 1u << level;
    } else {
        r->tl_next[tail] = qp;
    }
    r->tl_tail[list] = qp;
    r->qps[qp].tl_list = (uint16_t)list;
}

/* The smallest occupied digit of `level` (not empty): the top level wraps around tl_base's. */
static uint32_t rl__tl_first_digit(const rl *r, uint32_t level)
{
    uint64_t bits = r->tl_bits[level];
    if (level == RL__TL_LEVELS - 1u) {
        uint64_t at_or_after = bits & (~(uint64_t)0 << (r->tl_base >> 60));
        if (at_or_after)
            bits = at_or_after;
    }
    return rnic_ctz64(bits);
}

/* While level 0 is empty: spread the smallest list of the lowest level into the levels below,
 * tl_base moving to that list's lower bound. Then tl_min = level 0's first head. */
static void rl__tl_normalise(rl *r)
{
    while (r->tl_levels && !(r->tl_levels & 1u)) {
        uint32_t level = rnic_ctz64(r->tl_levels), digit = rl__tl_first_digit(r, level), list = level * 64u + digit;
        uint32_t qp = r->tl_head[list], next;
        uint32_t shift = level * RL__TL_DIGIT;
        uint64_t above = shift + RL__TL_DIGIT >= 64u ? 0u : r->tl_base >> (shift + RL__TL_DIGIT) << (shift + RL__TL_DIGIT);
        r->tl_base = above | ((uint64_t)digit << shift);
        r->tl_head[list] = r->tl_tail[list] = RNIC_NONE;
        r->tl_bits[level] &= ~((uint64_t)1 << digit);
        if (!r->tl_bits[level])
            r->tl_levels &= ~(1u << level);
        for (; qp != RNIC_NONE; qp = next) {
            next = r->tl_next[qp];
            rl__tl_append(r, qp, r->qps[qp].resched);
        }
    }
    r->tl_min = r->tl_levels ? r->tl_head[rnic_ctz64(r->tl_bits[0])] : RNIC_NONE;
}

/* The calendar (lists and late list) holds no entry. */
static bool rl__tl_cal_empty(const rl *r) { return !r->tl_levels && r->tl_late_head == RNIC_NONE; }

static void rl__tl_file(rl *r, uint32_t qp);

/* A settling entry joins (key: its flow's resched). */
static void rl__tl_insert(rl *r, uint32_t qp)
{
    uint32_t first = r->tl_first;
    r->heap_count++;
    r->qps[qp].tl_loc = RL__TL_SETTLED;
    rl__tl_file(r, qp);
    /* it comes first only with a smaller key: on equal keys the earlier entry leaves first. Only
     * then does rl__tl_gap's answer move: an enqueue in flight with a key not before the first
     * one's was no term of it, and settled behind the first it is none either. */
    if (first == RNIC_NONE || rl__key_before(r->qps[qp].resched, r->qps[first].resched)) {
        r->tl_first = qp;
        r->tl_stamp++;
    }
}

/* File qp in the run, the late list or a calendar list. */
static void rl__tl_file(rl *r, uint32_t qp)
{
    uint64_t key = r->qps[qp].resched;
    bool cal_empty = rl__tl_cal_empty(r);
    if (cal_empty || rl__key_before(r->tl_cal_bound, key)) {
        uint32_t tail = r->tl_run_tail;
        if (tail == RNIC_NONE || !rl__key_before(key, r->qps[tail].resched)) { /* the run's end */
            r->tl_next[qp] = RNIC_NONE;
            r->tl_prev[qp] = tail;
            if (tail == RNIC_NONE)
                r->tl_run_head = qp;
            else
                r->tl_next[tail] = qp;
            r->tl_run_tail = qp;
            r->qps[qp].tl_list = RL__RUN;
            return;
        }
        r->tl_cal_bound = key;
    }
    if (cal_empty) /* any base at or below its key: the calendar follows the keys that left, as
                    * if they had left it (the run may keep it empty for long) */
        r->tl_base = rl__key_before(key, r->tl_last_pop) ? key : r->tl_last_pop;
    if (rl__key_before(key, r->tl_base)) { /* late: sorted insert after equal keys, searched from the tail
                             * (late keys arrive almost in order: a short walk) */
        uint32_t at = r->tl_late_tail;
        while (at != RNIC_NONE && rl__key_before(key, r->qps[at].resched))
            at = r->tl_prev[at];
        r->tl_prev[qp] = at;
        r->tl_next[qp] = at == RNIC_NONE ? r->tl_late_head : r->tl_next[at];
        if (at == RNIC_NONE)
            r->tl_late_head = qp;
        else
            r->tl_next[at] = qp;
        if (r->tl_next[qp] == RNIC_NONE)
            r->tl_late_tail = qp;
        else
            r->tl_prev[r->tl_next[qp]] = qp;
        r->qps[qp].tl_list = RL__LATE;
        return;
    }
    rl__tl_append(r, qp, key);
    if (r->tl_min == RNIC_NONE || rl__key_before(key, r->qps[r->tl_min].resched))
        r->tl_min = qp;
}

/* Unlink an entry: a re-timed flow's, or the one leaving. */
static void rl__tl_unlink(rl *r, uint32_t qp)
{
    uint32_t list = r->qps[qp].tl_list, prev = r->tl_prev[qp], next = r->tl_next[qp];
    uint32_t *head = list == RL__LATE ? &r->tl_late_head : list == RL__RUN ? &r->tl_run_head : &r->tl_head[list];
    uint32_t *tail = list == RL__LATE ? &r->tl_late_tail : list == RL__RUN ? &r->tl_run_tail : &r->tl_tail[list];
    if (prev == RNIC_NONE)
        *head = next;
    else
        r->tl_next[prev] = next;
    if (next == RNIC_NONE)
        *tail = prev;
    else
        r->tl_prev[next] = prev;
    r->tl_stamp++;
    if (list < RL__RUN && *head == RNIC_NONE) {
        uint32_t level = list / 64u;
        r->tl_bits[level] &= ~((uint64_t)1 << (list & 63u));
        if (!r->tl_bits[level])
            r->tl_levels &= ~(1u << level);
    }
    r->heap_count--;
}

/* The smallest settled entry (RNIC_NONE when none): the run's head unless the calendar's
 * smallest key is smaller. */
static uint32_t rl__tl_first_of(const rl *r)
{
    uint32_t cal = r->tl_late_head != RNIC_NONE ? r->tl_late_head : r->tl_min, run = r->tl_run_head;
    if (run == RNIC_NONE || (cal != RNIC_NONE && rl__key_before(r->qps[cal].resched, r->qps[run].resched)))
        return cal;
    return run;
}

static void rl__tl_remove(rl *r, uint32_t qp)
{
    rl__tl_unlink(r, qp);
    if (r->tl_min == qp)
        rl__tl_normalise(r);
    if (r->tl_first == qp)
        r->tl_first = rl__tl_first_of(r);
}

/* The smallest settled entry (RNIC_NONE when none), kept by insert, remove and pop. */
static uint32_t rl__tl_peek(const rl *r) { return r->tl_first; }

static uint32_t rl__tl_pop(rl *r)
{
    uint32_t qp = r->tl_late_head, run = r->tl_run_head;
    if (run != RNIC_NONE && r->tl_first == run) { /* the run's head leaves */
        uint32_t next = r->tl_next[run];
        r->tl_run_head = next;
        if (next == RNIC_NONE)
            r->tl_run_tail = RNIC_NONE;
        else
            r->tl_prev[next] = RNIC_NONE;
        r->heap_count--;
        r->tl_stamp++;
        r->tl_last_pop = r->qps[run].resched;
        r->tl_first = rl__tl_first_of(r);
        return run;
    }
    if (qp == RNIC_NONE) {
        /* the smallest entry leaves from level 0, so that tl_base stays within a digit of
         * the keys still to come (later keys lie within 2^62 of it) */
        if (!(r->tl_levels & 1u))
            rl__tl_normalise(r);
        qp = r->tl_min;
    }
    rl__tl_remove(r, qp);
    r->tl_last_pop = r->qps[qp].resched;
    return qp;
}

/* A timeline key (a whole virtual cycle) is due when it lies before A_mono. */
static bool rl__key_due(const rl *r, uint64_t key)
{
    return rnic_ftime_before(rnic_ftime_at(key), r->A_mono);
}

/* Enqueues that have settled: those due by now (inclusive), or only those of earlier cycles.
 * Settling changes nothing a tick sees before step 3 reads the timeline, so fast-forward does
 * not stop for it (rl__next_gap): the skipped settles happen first thing in the next tick,
 * before step 1 (a re-timed flow's entry is where eager settling would have put it). */
static void rl__settle(rl *r, bool inclusive)
{
    while (r->inserts_in_flight.count) {
        const rl__timed_qp *e = &RL__Q_HEAD(&r->inserts_in_flight);
        if (!rl__reached(r->now, e->cycle) || (!inclusive && e->cycle == r->now))
            break;
        rl__tl_insert(r, e->qp);
        RL__Q_DROP(&r->inserts_in_flight);
    }
}

/* Steps 3 and 4. */
static void rl__timeline(rl *r)
{
    rl__timed_qp tq;
    bool due, request;
    if (r->inserts_in_flight.count)
        rl__settle(r, true);
    if (rl__reached(r->now, r->heap_next_op)) {
        due = r->heap_count && rl__key_due(r, r->qps[rl__tl_peek(r)].resched);
        request = r->insert_requests.count != 0;
        if (due || request) {
            uint32_t stamp = r->tl_stamp;
            r->heap_next_op = r->now + 2u;
            r->stats.heap_ops++;
            if (due) {
                tq.qp = rl__tl_pop(r);
                tq.cycle = r->now + r->heap_height;
                r->qps[tq.qp].tl_loc = RL__TL_LEAVING;
                RL__Q_PUSH(&r->deliveries, tq);
            }
            if (request) {
                tq.qp = r->insert_requests.head;
                RL__FIFO_DROP(&r->insert_requests, RL__TL_NEXT);
                tq.cycle = r->now + r->heap_height;
                if (!r->inserts_in_flight.count || rl__key_before(r->qps[tq.qp].resched, r->inflight_key_floor))
                    r->inflight_key_floor = r->qps[tq.qp].resched;
                RL__Q_PUSH(&r->inserts_in_flight, tq);
                if (r->tl_first == RNIC_NONE || rl__key_before(r->qps[tq.qp].resched, r->qps[r->tl_first].resched))
                    r->tl_stamp++; /* a new term of rl__tl_gap */
            }
            /* rl__tl_gap's answer is max(due terms, operation slot): with no dequeue (which moves
             * tl_stamp) and no new term, only the slot moved */
            if (r->tl_stamp == stamp && r->tl_gap_stamp == stamp && rl__key_before(r->tl_gap_at, r->heap_next_op))
                r->tl_gap_at = r->heap_next_op;
        }
    }
    if (r->wheel_count) { /* step 3w: the wheel's smallest key, when due, goes to the queue */
        uint32_t slot = rl__wheel_first(r), qp = r->wheel_qp[slot];
        if (rl__key_due(r, r->qps[qp].resched)) {
            uint64_t key = r->qps[qp].resched;
            rnic_bitmap_clear(r->wheel_used, slot);
            r->wheel_count--;
            r->wheel_base = slot + 1u == r->wheel_size ? 0u : slot + 1u;
            r->wheel_low = key + 1u;
            rl__enqueue_schedule(r, qp);
        }
    }
    while (r->deliveries.count && rl__reached(r->now, RL__Q_HEAD(&r->deliveries).cycle)) {
        rl__enqueue_schedule(r, RL__Q_HEAD(&r->deliveries).qp);
        RL__Q_DROP(&r->deliveries);
    }
}

