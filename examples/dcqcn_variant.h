/* dcqcn_variant.h -- the variant options shared by tonic_dcqcn_200 and tonic_dcqcn_pair: each
 * changes one candidate cause of DCQCN's spread against the Tonic paper (the switch's marking, the
 * notification point, the reaction point's timers, counters and alpha), or takes the parameters of
 * the ns-3 code the paper compares with (its ref. [44], Zhu et al. CoNEXT'16, mix/config.txt).
 * Hosted example code. */
#ifndef DCQCN_VARIANT_H
#define DCQCN_VARIANT_H
#include "cli.h"

typedef struct dcqcn_variant {
    bool ns3_defaults, no_marking, cnp_deferred, alpha_first, alpha_init_half;
    uint64_t kmin, kmax, pmax_ppm, seed, rate_us, alpha_us, byte_counter, f; /* 0 = unchanged */
    bool byte_counter_set;
} dcqcn_variant;

#define DCQCN_VARIANT_HELP                                                                                       \
    "variant options (default: the DCQCN paper's values, as above):\n"                                          \
    "  --kmin N              RED's Kmin at the switch [bytes]; default 5000; range 1..100000000\n"                \
    "  --kmax N              RED's Kmax at the switch [bytes]; default 200000; range 1..100000000\n"              \
    "  --pmax-ppm N          RED's marking probability at Kmax [ppm]; default 10000; range 1..1000000\n"         \
    "  --seed N              RED's random stream; default 1; range 1..1000000000\n"                              \
    "  --no-marking          no ECN marking (PFC and the hosts' round robin alone)\n"                             \
    "  --cnp-deferred        marks inside the CNP interval send one CNP at its end (htsim); default: none sent\n" \
    "  --rate-us N           rate increase timer [us]; default 55; range 1..1000000\n"                           \
    "  --alpha-us N          alpha timer [us]; default 55; range 1..1000000\n"                                   \
    "  --byte-counter N      byte counter [bytes]; default 10000000; 0 = none; range 0..4000000000\n"            \
    "  --f N                 F, the timer / byte-counter events of fast recovery; default 5; range 1..254\n"     \
    "  --alpha-first         a CNP updates alpha first and cuts with the new alpha; default: the old alpha\n"     \
    "  --alpha-init-half     alpha starts at 0.5; default 1\n"                                                    \
    "  --ns3-defaults        the parameters of the ns-3 code Tonic's paper compares with (its ref. [44]): Kmin\n" \
    "                        41,200 B, Kmax 1,030,000 B, Pmax 100 %, rate timer 60 us, byte counter 300 KB,\n"   \
    "                        alpha first and from 0.5, F 4 here (its 5th timer event is additive already);\n"    \
    "                        later variant options override it\n"

/* Takes argv[*i] (and its value) when it is a variant option: 1, else 0. */
static inline int dcqcn_variant_parse(int argc, char **argv, uint32_t *i, dcqcn_variant *v)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--ns3-defaults"))
        v->ns3_defaults = true;
    else if (!strcmp(a, "--no-marking"))
        v->no_marking = true;
    else if (!strcmp(a, "--cnp-deferred"))
        v->cnp_deferred = true;
    else if (!strcmp(a, "--alpha-first"))
        v->alpha_first = true;
    else if (!strcmp(a, "--alpha-init-half"))
        v->alpha_init_half = true;
    else if (!strcmp(a, "--kmin"))
        v->kmin = CLI_U64(*i, 1, 100000000);
    else if (!strcmp(a, "--kmax"))
        v->kmax = CLI_U64(*i, 1, 100000000);
    else if (!strcmp(a, "--pmax-ppm"))
        v->pmax_ppm = CLI_U64(*i, 1, 1000000);
    else if (!strcmp(a, "--seed"))
        v->seed = CLI_U64(*i, 1, 1000000000);
    else if (!strcmp(a, "--rate-us"))
        v->rate_us = CLI_U64(*i, 1, 1000000);
    else if (!strcmp(a, "--alpha-us"))
        v->alpha_us = CLI_U64(*i, 1, 1000000);
    else if (!strcmp(a, "--byte-counter"))
        v->byte_counter = CLI_U64(*i, 0, 4000000000ull), v->byte_counter_set = true;
    else if (!strcmp(a, "--f"))
        v->f = CLI_U64(*i, 1, 254);
    else
        return 0;
    return 1;
}

/* Applies v to the set-up and the DCQCN parameters: --ns3-defaults first, then the single options. */
static inline void dcqcn_variant_apply(const dcqcn_variant *v, ts_config *c, tp_dcqcn_config *dp)
{
    if (v->ns3_defaults) { /* mix/config.txt of the CoNEXT'16 code; KMIN / KMAX count 1,030 B cells */
        c->ecn_kmin_bytes = 40u * 1030u;
        c->ecn_kmax_bytes = 1000u * 1030u;
        c->ecn_pmax_ppm = 1000000u;
        dp->rate_period_ns = 60000u;
        dp->byte_counter = 300000u;
        dp->flags |= TP_DCQCN_F_ALPHA_FIRST;
        dp->alpha_init = TP_DCQCN_ONE / 2u;
        dp->f = 4u; /* its FAST_RECOVERY_TIMES 5: the 5th event already increases additively */
    }
    if (v->kmin)
        c->ecn_kmin_bytes = v->kmin;
    if (v->kmax)
        c->ecn_kmax_bytes = v->kmax;
    if (v->pmax_ppm)
        c->ecn_pmax_ppm = (uint32_t)v->pmax_ppm;
    if (v->no_marking) /* RED off */
        c->ecn_pmax_ppm = 0;
    if (v->seed)
        c->ecn_seed = v->seed;
    if (v->cnp_deferred)
        c->cnp_mode = TP_RX_CNP_DEFERRED;
    if (v->rate_us)
        dp->rate_period_ns = v->rate_us * 1000u;
    if (v->alpha_us)
        dp->alpha_period_ns = v->alpha_us * 1000u;
    if (v->byte_counter_set)
        dp->byte_counter = (uint32_t)v->byte_counter;
    if (v->f)
        dp->f = (uint32_t)v->f;
    if (v->alpha_first)
        dp->flags |= TP_DCQCN_F_ALPHA_FIRST;
    if (v->alpha_init_half)
        dp->alpha_init = TP_DCQCN_ONE / 2u;
}
#endif
