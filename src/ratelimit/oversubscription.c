/* ratelimit.h: oversubscription.c -- the oversubscription fallback (Section 3.3): Phi, the system-time step inc = 1 / max(1, Phi) and the activation time T + Lambda (docs/tassel_model.md, "Oversubscription"). */

/* Phi, inc = 1 / max(1, Phi) and Lambda = (L + height + 1) / max(1, Phi) after the active rate
 * sum changed. Under oversubscription the system time slows down by Phi, so every flow becomes
 * eligible at rate / Phi and the link is shared in proportion to the rates (Fig. 8b);
 * the lookahead covers the whole reactivation path (P-heap dequeue, FIFO -> fetch issue, the
 * PCIe read), so a rescheduled flow's WQEs are back by its next packet's start. */
static void rl__update_phi(rl *r)
{
    rnic_q32 phi = 0, over;
    if (r->sum_active_bps && rnic_q32_ratio(r->sum_active_bps, r->cfg.link_bps, &phi) != RNIC_OK)
        phi = 0; /* a sum too small to represent is Phi = 0 (inc = 1 anyway) */
    r->phi = phi;
    over = phi > RNIC_Q32_ONE ? phi : RNIC_Q32_ONE; /* max(1, Phi) */
    r->inc = rnic_udiv128_64(1, 0, over, NULL);      /* 1 / max(1, Phi): the clock slows down */
    r->lookahead = rnic_udiv128_64(r->lookahead_cycles, 0, over, NULL);
    r->phi_epoch++; /* the fast-forward caches' due cycles assumed the old inc */
    r->a_tracks = 0; /* the lookahead changed: A_mono is max(A_mono, A) again */
    if (phi > r->stats.max_phi_q32)
        r->stats.max_phi_q32 = phi;
}

static rnic_ftime rl__activation(const rl *r)
{
    rnic_ftime a = r->T;
    rnic_ftime_add_q32(&a, r->lookahead);
    return a;
}

/* The lag floor T - Lambda: a QP's next start is never kept further behind the system time
 * than the lookahead, the reactivation path's latency (docs/tassel_model.md, "A QP's lag").
 * Lag beyond it would be sent at up to the line rate, above the QP's configured rate. */
static rnic_ftime rl__lag_floor(const rl *r)
{
    rnic_ftime f = r->T;
    rnic_ftime_sub_q32(&f, r->lookahead);
    return f;
}

static void rl__update_activation(rl *r)
{
    rnic_ftime a = rl__activation(r);
    if (rnic_ftime_before(r->A_mono, a))
        r->A_mono = a;
    /* while A_mono is A itself it moves with T: the tick adds inc to both (exact, modulo 2^96) */
    r->a_tracks = r->A_mono.cycle == a.cycle && r->A_mono.frac == a.frac;
}

