/* transport.h: DCQCN's wake-ups and its protocol record. The hardware's periodic module visits
 * every flow every max_flows cycles; the model runs DCQCN's periodic hook only at the visits where
 * it can change something (docs/transport_model.md, "Wake-ups"): these wrappers declare them.
 * They are a simulation aid, not part of the protocol, so Table 3's count (proto_dcqcn.c) leaves
 * them out; tonic_tables prints their size beside it. */

/* After the periodic hook: the earliest running timer and the byte counter's next step. */
static void tp__dcqcn_periodic_wake(const tp_event *ev, void *ctx, tp_actions *act)
{
    const tp_dcqcn_config *p = tp__dcqcn_cfg(ev->config);
    tp_dcqcn_ctx c;
    uint32_t now = (uint32_t)ev->now, seg = ev->params->seg_size;
    int32_t soon;
    bool on;
    tp__dcqcn_periodic(ev, ctx, act);
    RNIC_MEMCPY(&c, ctx, sizeof c);
    on = (c.flags & TP_DCQCN_S_ACTIVE) != 0;
    soon = (int32_t)(c.alpha_at - now); /* every period is below 2^31 cycles */
    if ((c.flags & TP_DCQCN_S_RATE_ON) && (int32_t)(c.rate_at - now) < soon)
        soon = (int32_t)(c.rate_at - now);
    if (p->decrease_period_ns && (int32_t)(c.dec_at - now) < soon)
        soon = (int32_t)(c.dec_at - now);
    act->wake = TP_WAKE_AT;
    act->wake_at = on ? ev->now + (uint64_t)(soon > 0 ? soon : 0) : RNIC_NEVER;
    /* the byte counter steps once (total_sent - bc_base) x seg_size reaches byte_counter */
    act->wake_sent_on = on && p->byte_counter;
    act->wake_sent = c.bc_base + p->byte_counter / seg + (p->byte_counter % seg != 0);
}

/* Only a CNP moves the context: after an ACK or NAK the declaration stands. */
static void tp__dcqcn_incoming_wake(const tp_event *ev, void *ctx, tp_actions *act)
{
    tp__dcqcn_incoming(ev, ctx, act);
    act->wake = ev->pkt_type == TP_PKT_CNP ? TP_WAKE_NEXT : TP_WAKE_KEEP;
}

/* The context changes on CNPs (no ACK conflict, §3.4) and in periodic, whose results win over an
 * ACK / NAK in the cycle of the flow's visit (the ACK's marks and timer restart apply before). */
static const tp_protocol tp__dcqcn = {"dcqcn", TP_CREDIT_RATE, sizeof(tp_dcqcn_ctx), tp__dcqcn_init,
                                      tp__dcqcn_incoming_wake, tp__dcqcn_periodic_wake, true, TP_MERGE_PERIODIC,
                                      &tp__dcqcn_presets[TP_DCQCN_PAPER], tp_dcqcn_config_check};

TP_API const tp_protocol *tp_protocol_dcqcn(void) { return &tp__dcqcn; }
