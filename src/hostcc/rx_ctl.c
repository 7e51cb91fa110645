/* hostcc.h: rx_ctl.c -- the RHCC receiver controller (docs/hostcc_rx.md). */

#define HCC__RX_TRACE(c, kind, id, a, b) RNIC__TRACE((c), (kind), (id), (a), (b))

HCC_API void hcc_rx_config_default(hcc_rx_config *cfg)
{
    if (!cfg)
        return;
    RNIC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->clock_hz = 250000000u;
    cfg->sample_period_ns = 2000u;
    cfg->i_thr = 32u;
    cfg->i_low = 0u;
    cfg->up_samples = 8u;
    cfg->start_level = 0u;
    cfg->slack_ns = 150000u;
    cfg->fast_down = false;
    cfg->levels_bps[0] = HCC_MBA_LEVEL_0_BPS;
    cfg->levels_bps[1] = HCC_MBA_LEVEL_1_BPS;
    cfg->levels_bps[2] = HCC_MBA_LEVEL_2_BPS;
    cfg->levels_bps[3] = HCC_MBA_LEVEL_3_BPS;
    cfg->levels_bps[4] = HCC_MBA_LEVEL_4_BPS;
    cfg->counter_bits = 48u;
    cfg->max_lines = 4096u;
    cfg->mode = HCC_RX_MODE_MBA;
    cfg->sample_depth = 4u;
    cfg->action_depth = 16u;
    cfg->start_cycle = 0u;
    cfg->trace = NULL;
    cfg->trace_user = NULL;
    cfg->trace_id = (uint16_t)RNIC_ENGINE_HCC_RX;
}

HCC_API rnic_err hcc_rx_config_check(const hcc_rx_config *cfg, const char **field)
{
    unsigned i;
    if (field) /* the contract: NULL when the config is valid */
        *field = NULL;
    if (!cfg)
        return rnic_config_bad(field, "cfg", RNIC_EINVAL);
    if (cfg->clock_hz < RNIC_CLOCK_MIN_HZ || cfg->clock_hz > RNIC_CLOCK_MAX_HZ)
        return rnic_config_bad(field, "clock_hz", RNIC_EINVAL);
    if (cfg->sample_period_ns == 0 || cfg->sample_period_ns > HCC_RX_MAX_PERIOD_NS)
        return rnic_config_bad(field, "sample_period_ns", RNIC_EINVAL);
    if (cfg->max_lines == 0 || cfg->max_lines > HCC_RX_MAX_LINES_BOUND)
        return rnic_config_bad(field, "max_lines", RNIC_EINVAL);
    if (cfg->i_thr == 0 || cfg->i_thr > cfg->max_lines)
        return rnic_config_bad(field, "i_thr", RNIC_EINVAL);
    if (cfg->i_low > cfg->i_thr)
        return rnic_config_bad(field, "i_low", RNIC_EINVAL);
    if (cfg->up_samples == 0 || cfg->up_samples > HCC_RX_MAX_UP_SAMPLES)
        return rnic_config_bad(field, "up_samples", RNIC_EINVAL);
    if (cfg->start_level >= HCC_MBA_LEVELS)
        return rnic_config_bad(field, "start_level", RNIC_EINVAL);
    if (cfg->slack_ns > HCC_RX_MAX_SLACK_NS)
        return rnic_config_bad(field, "slack_ns", RNIC_EINVAL);
    for (i = 0; i < HCC_MBA_LEVELS; i++)
        if (cfg->levels_bps[i] == 0 || cfg->levels_bps[i] > HCC_RX_MAX_LEVEL_BPS ||
            (i > 0 && cfg->levels_bps[i] > cfg->levels_bps[i - 1]))
            return rnic_config_bad(field, "levels_bps", RNIC_EINVAL);
    if (cfg->counter_bits < 8u || cfg->counter_bits > 64u)
        return rnic_config_bad(field, "counter_bits", RNIC_EINVAL);
    if (cfg->mode > HCC_RX_MODE_OFF)
        return rnic_config_bad(field, "mode", RNIC_EINVAL);
    if (cfg->sample_depth == 0 || cfg->sample_depth > HCC_RX_MAX_DEPTH)
        return rnic_config_bad(field, "sample_depth", RNIC_EINVAL);
    if (cfg->action_depth == 0 || cfg->action_depth > HCC_RX_MAX_DEPTH)
        return rnic_config_bad(field, "action_depth", RNIC_EINVAL);
    if (rnic_ns_to_cycles(cfg->sample_period_ns, cfg->clock_hz) == 0)
        return rnic_config_bad(field, "sample_period_ns", RNIC_EINVAL);
    return RNIC_OK;
}

/* One layout for mem_size and init: the input ring, then the output ring. */
static size_t hcc__rx_layout(const hcc_rx_config *cfg, size_t *in_at, size_t *out_at)
{
    size_t off = 0;
    if (!rnic__mem_reserve(&off, cfg->sample_depth, sizeof(hcc__rx_entry), in_at) ||
        !rnic__mem_reserve(&off, cfg->action_depth, sizeof(rnic_work), out_at))
        return 0;
    return off;
}

HCC_API size_t hcc_rx_mem_size(const hcc_rx_config *cfg)
{
    size_t in_at, out_at;
    if (hcc_rx_config_check(cfg, NULL) != RNIC_OK)
        return 0;
    return hcc__rx_layout(cfg, &in_at, &out_at);
}

HCC_API rnic_err hcc_rx_init(hcc_rx *c, const hcc_rx_config *cfg, void *mem, size_t size)
{
    size_t in_at, out_at, need;
    unsigned char *m = (unsigned char *)mem;
    if (!c || !mem || ((uintptr_t)mem & (RNIC_MEM_ALIGN - 1u)) || hcc_rx_config_check(cfg, NULL) != RNIC_OK)
        return RNIC_EINVAL;
    need = hcc__rx_layout(cfg, &in_at, &out_at);
    if (need == 0) /* an accepted config's layout exceeds size_t: 32-bit targets only */
        return RNIC_EINVAL;
    if (size < need)
        return RNIC_ENOSPC;
    RNIC_MEMSET(c, 0, sizeof *c);
    c->cfg = *cfg;
    if (rnic_ring_init(&c->in, (uint32_t)sizeof(hcc__rx_entry), cfg->sample_depth, m + in_at,
                       (size_t)cfg->sample_depth * sizeof(hcc__rx_entry)) != RNIC_OK ||
        rnic_ring_init(&c->out, (uint32_t)sizeof(rnic_work), cfg->action_depth, m + out_at,
                       (size_t)cfg->action_depth * sizeof(rnic_work)) != RNIC_OK)
        return RNIC_EINVAL; /* defensive: both rings lie in the layout just computed */
    c->now = cfg->start_cycle;
    c->sample_cycles = rnic_ns_to_cycles(cfg->sample_period_ns, cfg->clock_hz);
    c->slack_cycles = rnic_ns_to_cycles(cfg->slack_ns, cfg->clock_hz);
    c->cum_mask = cfg->counter_bits >= 64u ? UINT64_MAX : (((uint64_t)1 << cfg->counter_bits) - 1u);
    c->i_low = cfg->i_low ? cfg->i_low : cfg->i_thr / 2u;
    c->level = cfg->start_level;
    rnic_trace_set(&c->trace, cfg->trace, cfg->trace_user);
    c->trace_id = cfg->trace_id ? cfg->trace_id : (uint16_t)RNIC_ENGINE_HCC_RX;
    return RNIC_OK;
}

/* Count a refused NULL record (errors only) and trace it (a = 0, b = the error); returns e. */
static rnic_err hcc__rx_refuse(hcc_rx *c, rnic_err e, uint64_t value)
{
    rnic_err_note(&c->stats.errors, e);
    HCC__RX_TRACE(c, RNIC_TRACE_REFUSE, 0, value, e);
    return e;
}

/* Count a refused sample once (its reason, and its code in errors) and trace it (a = the value
 * refused, b = the error); returns the code. */
static rnic_err hcc__rx_refuse_why(hcc_rx *c, hcc_rx_reason r, uint64_t value)
{
    rnic_err e = hcc_rx__reason_note(&c->stats.reasons, &c->stats.errors, r);
    HCC__RX_TRACE(c, RNIC_TRACE_REFUSE, 0, value, e);
    return e;
}

/* a x b <= v, exactly (128-bit product). */
static bool hcc__rx_le_product(uint64_t v, uint64_t a, uint64_t b)
{
    uint64_t hi, lo;
    rnic_mul64x64(a, b, &hi, &lo);
    return hi != 0 || v <= lo;
}

HCC_API rnic_err hcc_rx_push_sample(hcc_rx *c, const hcc_rx_sample *s)
{
    hcc__rx_entry e;
    bool wrapped = false;
    if (!c)
        return RNIC_EINVAL;
    if (!s)
        return hcc__rx_refuse(c, RNIC_EINVAL, 0);
    if (rnic_ring_full(&c->in))
        return hcc__rx_refuse_why(c, HCC_RX_REASON_PORT_FULL, s->cycle);
    if (s->cum > c->cum_mask)
        return hcc__rx_refuse_why(c, HCC_RX_REASON_CUM_RANGE, s->cum);
    e.cycle = s->cycle;
    e.occ = 0;
    e.interval = 0;
    if (c->have_last) {
        e.interval = s->cycle - c->last_cycle;
        if (e.interval == 0 || e.interval >= ((uint64_t)1 << 63)) /* duplicate or backwards */
            return hcc__rx_refuse_why(c, HCC_RX_REASON_NOT_AFTER, s->cycle);
        e.occ = (s->cum - c->last_cum) & c->cum_mask;
        if (!hcc__rx_le_product(e.occ, c->cfg.max_lines, e.interval))
            return hcc__rx_refuse_why(c, HCC_RX_REASON_IMPLAUSIBLE, s->cum);
        wrapped = s->cum < c->last_cum;
    }
    rnic_ring_push(&c->in, &e); /* cannot fail: checked for room above */
    if (wrapped) {
        c->stats.wraps++;
        HCC__RX_TRACE(c, HCC_RX_TRACE_WRAP, 0, s->cum, c->last_cum);
    }
    c->last_cycle = s->cycle;
    c->last_cum = s->cum;
    c->have_last = 1;
    c->stats.samples++;
    HCC__RX_TRACE(c, RNIC_TRACE_PUSH, 0, s->cum, s->cycle);
    return RNIC_OK;
}

HCC_API uint32_t hcc_rx_space_sample(const hcc_rx *c) { return c ? rnic_ring_space(&c->in) : 0; }

/* Queue an action record holding the current state; a full port keeps the newest state by
 * overwriting its newest waiting record. */
static void hcc__rx_emit(hcc_rx *c, uint32_t what, uint32_t dir_flag, uint64_t sample_cycle)
{
    rnic_work w;
    RNIC_MEMSET(&w, 0, sizeof w);
    w.cycle = c->now;
    w.index = (uint32_t)c->stats.actions; /* the change's number */
    w.aux = c->level;
    w.addr = c->cfg.levels_bps[c->level];
    w.raddr = sample_cycle;
    w.flags = what | dir_flag | (c->ecn ? HCC_WORK_CE : 0u);
    c->stats.actions++;
    if (rnic_ring_full(&c->out)) {
        /* the newest waiting record: slot count - 1 from the head */
        unsigned char *slot = rnic__ring_slot(&c->out, c->out.count - 1u);
        w.flags |= HCC_RX_WORK_MERGED;
        RNIC_MEMCPY(slot, &w, sizeof w);
        c->stats.merged++;
        HCC__RX_TRACE(c, HCC_RX_TRACE_MERGE, 0, c->level, c->ecn);
    } else {
        rnic_ring_push(&c->out, &w);
    }
    RNIC__TRACE_REC(c, RNIC_TRACE_OUT, &w);
}

/* The decision for one sample (docs/hostcc_rx.md, "Decision"). */
static void hcc__rx_decide(hcc_rx *c, const hcc__rx_entry *e)
{
    bool congested, calm, slack_ok;
    HCC__RX_TRACE(c, HCC_RX_TRACE_SAMPLE, 0, e->occ, e->interval);
    if (e->interval == 0) /* the baseline */
        return;
    c->stats.decisions++;
    /* I_cur = occ / interval (average lines); I_cur > i_thr  <=>  occ > i_thr x interval */
    congested = !hcc__rx_le_product(e->occ, c->cfg.i_thr, e->interval);
    calm = hcc__rx_le_product(e->occ, c->i_low, e->interval);
    c->last_icur = rnic_udiv64(e->occ, e->interval);
    if (c->last_icur > c->stats.max_icur)
        c->stats.max_icur = c->last_icur;
    if (congested)
        c->stats.congested_samples++;
    if (calm)
        c->stats.calm_samples++;
    /* The slack runs from the sample that made the last change; once a later sample has seen it
     * passed it stays passed (no 2^64 ambiguity however long the engine idles). */
    if (c->slack_running && e->cycle - c->last_change >= c->slack_cycles)
        c->slack_running = 0;
    slack_ok = !c->slack_running;
    if (c->cfg.mode == HCC_RX_MODE_OFF)
        return;
    if (c->cfg.mode == HCC_RX_MODE_ECN) {
        if ((uint8_t)congested != c->ecn) {
            c->ecn = (uint8_t)congested;
            if (congested)
                c->stats.ecn_on++;
            else
                c->stats.ecn_off++;
            HCC__RX_TRACE(c, HCC_RX_TRACE_ECN, 0, c->ecn, 0);
            hcc__rx_emit(c, HCC_RX_WORK_ECN, 0u, e->cycle);
        }
        return;
    }
    if (congested) {
        c->calm = 0;
        if (c->level + 1u >= HCC_MBA_LEVELS) {
            c->stats.at_bound++;
        } else if (!slack_ok && !(c->cfg.fast_down && c->last_up)) {
            c->stats.held_by_slack++;
        } else {
            c->level++;
            c->last_up = 0;
            c->stats.level_downs++;
            c->last_change = e->cycle;
            c->slack_running = c->slack_cycles != 0;
            HCC__RX_TRACE(c, HCC_RX_TRACE_LEVEL, 0, c->level, c->level - 1u);
            hcc__rx_emit(c, HCC_RX_WORK_MBA, HCC_RX_WORK_DOWN, e->cycle);
        }
    } else if (calm) {
        if (c->calm < c->cfg.up_samples)
            c->calm++;
        if (c->calm >= c->cfg.up_samples) {
            if (c->level == 0) {
                c->stats.at_bound++;
            } else if (!slack_ok) {
                c->stats.held_by_slack++;
            } else {
                c->level--;
                c->last_up = 1;
                c->calm = 0;
                c->stats.level_ups++;
                c->last_change = e->cycle;
                c->slack_running = c->slack_cycles != 0;
                HCC__RX_TRACE(c, HCC_RX_TRACE_LEVEL, 0, c->level, c->level + 1u);
                hcc__rx_emit(c, HCC_RX_WORK_MBA, HCC_RX_WORK_UP, e->cycle);
            }
        }
    } else {
        c->calm = 0; /* between i_low and i_thr: neither congested nor calm */
    }
}

/* Count `n` cycles at the current state. */
static void hcc__rx_count(hcc_rx *c, uint64_t n)
{
    c->stats.time_at_level[c->level] += n;
    if (c->ecn)
        c->stats.ecn_cycles += n;
    c->stats.cycles += n;
}

HCC_API void hcc_rx_tick(hcc_rx *c)
{
    hcc__rx_entry e;
    if (!c)
        return;
    if (rnic_ring_pop(&c->in, &e) == RNIC_OK)
        hcc__rx_decide(c, &e);
    hcc__rx_count(c, 1u);
    c->now++;
}

HCC_API uint64_t hcc_rx_next_event(const hcc_rx *c)
{
    if (!c || rnic_ring_empty(&c->in))
        return RNIC_NEVER;
    return c->now;
}

/* rnic__advance's callbacks: idle (no sample waits) until the next push, so a skip runs all of
 * `left`; the action port is the one output that stops advance when it fills. */
static uint64_t hcc__rx_skip(void *x, uint64_t left)
{
    hcc_rx *c = (hcc_rx *)x;
    if (!rnic_ring_empty(&c->in))
        return 0;
    hcc__rx_count(c, left);
    c->now += left;
    return left;
}
static void hcc__rx_tick_fn(void *x) { hcc_rx_tick((hcc_rx *)x); }
static uint32_t hcc__rx_full(const void *x) { return rnic_ring_full(&((const hcc_rx *)x)->out) ? 1u : 0u; }

HCC_API uint64_t hcc_rx_advance(hcc_rx *c, uint64_t cycles)
{
    return c ? rnic__advance(c, cycles, hcc__rx_skip, hcc__rx_tick_fn, hcc__rx_full, 0u) : 0;
}

HCC_API uint64_t hcc_rx_advance_to(hcc_rx *c, uint64_t cycle)
{
    return c ? hcc_rx_advance(c, rnic_cycles_until(c->now, cycle)) : 0;
}

HCC_API rnic_err hcc_rx_pop_action(hcc_rx *c, rnic_work *out)
{
    if (!c)
        return RNIC_EINVAL;
    if (!out)
        return hcc__rx_refuse(c, RNIC_EINVAL, 0);
    if (rnic_ring_pop(&c->out, out) != RNIC_OK)
        return RNIC_EEMPTY;
    RNIC__TRACE_REC(c, RNIC_TRACE_POP, out);
    return RNIC_OK;
}

HCC_API rnic_err hcc_rx_peek_action(const hcc_rx *c, rnic_work *out)
{
    const rnic_work *w;
    if (!c)
        return RNIC_EINVAL;
    if (!out) /* counted like pop's: the engine is the caller's, only the statistics change */
        return hcc__rx_refuse((hcc_rx *)(uintptr_t)c, RNIC_EINVAL, 0);
    if (!(w = (const rnic_work *)rnic_ring_peek(&c->out)))
        return RNIC_EEMPTY;
    *out = *w;
    return RNIC_OK;
}

HCC_API uint64_t hcc_rx_now(const hcc_rx *c) { return c ? c->now : 0; }
HCC_API const hcc_rx_stats *hcc_rx_get_stats(const hcc_rx *c) { return c ? &c->stats : NULL; }
HCC_API uint32_t hcc_rx_level(const hcc_rx *c) { return c ? c->level : 0; }
HCC_API uint64_t hcc_rx_level_bps(const hcc_rx *c) { return c ? c->cfg.levels_bps[c->level] : 0; }
HCC_API bool hcc_rx_ecn(const hcc_rx *c) { return c ? c->ecn != 0 : false; }
HCC_API uint64_t hcc_rx_occupancy(const hcc_rx *c) { return c ? c->last_icur : 0; }
HCC_API uint64_t hcc_rx_sample_due(const hcc_rx *c)
{
    if (!c)
        return 0;
    return c->have_last ? c->last_cycle + c->sample_cycles : c->now;
}
