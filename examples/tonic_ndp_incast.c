/* tonic_ndp_incast -- NDP (Handley et al., SIGCOMM 2017) on Tonic (transport.h): a 16:1 incast at
 * 100 Gb/s through a trimming switch.
 *
 * Set-up: 16 sender hosts, one flow each, one message of --kb KB each (1 MB; --quick: 64 KB), all
 * posted at t = 0, through one output-queued switch (net.h: 5.5 MB shared buffer; a data packet
 * that finds its egress queue above 8 packets (8,336 B) is trimmed to a 64 B header) to one
 * receiver; 100 Gb/s links, 1 us per hop (base RTT ~4.2 us), 1,000 B payloads + 42 B headers.
 *   Sender: tp_protocol_ndp(), initial window = one BDP (52 x 1,000 B = 100 Gb/s x 4.2 us),
 *           RTO 1 ms.
 *   Receiver: tp_rx with pull_bps = 100 Gb/s and pull_overhead_bytes = 42 (pulled data fills the
 *           link exactly), nack = false: every arrival (data or trimmed header) queues one pull
 *           (GRANT, aux = the segment's bytes); a trimmed header is answered by a trim notice (NACK).
 * A trim notice is TP_PKT_NACK + TP_WORK_TRIMMED with the id in offset and len 0 (receiver.c since
 * 24b29f6); the driver also forces len 0 on NACKs (trim_notice_len0), a guard: a [id, id + 1) block
 * would be read as a SACK by the engine's Incoming fixed stage and the segment never resent.
 * The switch has no priority queue for headers and control packets (NDP's switches do): trimmed
 * headers wait behind at most 8 data packets.
 *
 * Reported: the incast's completion time (the last message's completion at its sender) against
 * the ideal (all payload bytes / 100 Gb/s; the 42 B headers alone make the wire-limited best
 * 4.2 % longer), goodput, packets trimmed, retransmissions, bytes lost (posted - delivered once).
 *
 *   build/tonic_ndp_incast [--quick] [--kb N] [--iw N] [--clock-mhz N]
 *
 * The clock (default 100 MHz, Tonic's): a pull's gap is 1,042 B at 100 Gb/s = 8.336 cycles; the
 * receiver's pull pacer leaves pulls 8 or 9 cycles apart and carries the fraction, so the pulls
 * keep the link rate exactly on average (--clock-mhz 1000 gives the same FCT within 0.02 %).
 *
 * RESULT exp=ndp_incast senders=16 fct_ms=... ideal_ms=... goodput_gbps=... trimmed=... rtx=... bytes_lost=0 */
#define TP_IMPLEMENTATION
#include "../transport.h"
#include "rnic_model/net.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define XS_MAX 16u

#include "rnic_model/xs_driver.h"

static void usage(const char *argv0)
{
    printf("usage: %s [--quick] [--kb N] [--iw N] [--clock-mhz N]\n"
           "NDP on Tonic: a 16:1 incast at 100 Gb/s through a trimming switch; a RESULT line at the end.\n"
           "  --quick         --kb 64 (make test)\n"
           "  --kb N          each sender's message [KB]; default 1000; range 1..4000000\n"
           "  --iw N          the initial window [packets of 1,000 B]; default 52 (one BDP); range 1..1000000\n"
           "  --clock-mhz N   the engines' clock [MHz]; default 100; range 10..10000\n"
           "  --help, -h      this text, exit status 0; a bad option exits 2 naming it\n",
           cli_prog(argv0));
    exit(0);
}

int main(int argc, char **argv)
{
    uint32_t kb = 1000, iw = 52, mhz = 100, i, h;
    uint64_t *sizes, dups;
    int quick = 0, ok;
    xs s;
    xs_cfg c;
    tp_ndp_config nc;
    tp_protocol np;
    uint64_t rtx = 0, timeouts = 0, delivered = 0, trimmed;
    double fct_ms, ideal_ms, first_us = -1.0;
    for (i = 1; i < (uint32_t)argc; i++) {
        if (cli_is_help(argv[i]))
            usage(argv[0]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--kb"))
            kb = (uint32_t)CLI_U64(i, 1, 4000000);
        else if (!strcmp(argv[i], "--iw"))
            iw = (uint32_t)CLI_U64(i, 1, 1000000);
        else if (!strcmp(argv[i], "--clock-mhz"))
            mhz = (uint32_t)CLI_U64(i, 10, 10000);
        else
            cli_unknown(argv[0], argv[i]);
    }
    if (quick)
        kb = 64;
    if (kb == 0 || kb > 4000000u || iw == 0 || mhz < 10u || mhz > 10000u)
        return 2;
    sizes = (uint64_t *)malloc(16u * sizeof *sizes);
    for (h = 0; h < 16u; h++)
        sizes[h] = (uint64_t)kb * 1000u;
    memset(&c, 0, sizeof c);
    c.senders = 16;
    c.clock_hz = (uint64_t)mhz * 1000000u;
    c.link_bps = 100000000000ull;
    c.prop_ns = 1000;
    c.buffer_bytes = 5500000ull;
    c.seg = 1000;
    c.hdr = 42;
    c.ctrl_bytes = 64;
    c.trim_bytes = 8u * 1042u;
    c.trim_notice_len0 = 1;
    c.nmsg = 1;
    c.sizes = sizes;
    tp_ndp_config_default(&nc);
    nc.init_window = iw;
    nc.rto_ns = 1000000u;
    np = *tp_protocol_ndp();
    np.config = &nc;
    c.proto = &np;
    tp_flow_config_default(&c.fp);
    c.fp.seg_size = c.seg;
    tp_rx_config_default(&c.rc);
    c.rc.clock_hz = 100000000u; /* Tonic's 100 MHz (the default was 100 MHz before issue 29) */
    c.rc.nack = false;
    c.rc.pull_bps = c.link_bps;
    c.rc.pull_overhead_bytes = c.hdr;
    if (xs_init(&s, &c) != 0) {
        fprintf(stderr, "init failed\n");
        return 1;
    }
    xs_run(&s, 10ull * c.clock_hz);
    for (h = 0; h < 16u; h++) {
        const tp_stats *st = tp_get_stats(s.snd[h]);
        rtx += st->segments_rtx;
        timeouts += st->timeouts;
        delivered += s.rx_bytes[h];
    }
    for (i = 0; i < s.nfct; i++)
        if (first_us < 0 || s.fct_us[i] < first_us)
            first_us = s.fct_us[i];
    trimmed = s.sw.port[16].stats.trimmed;
    dups = tp_rx_get_stats(&s.rx)->duplicates;
    fct_ms = (double)s.end_cycle / (double)c.clock_hz * 1e3;
    ideal_ms = (double)s.total_bytes * 8.0 / (double)c.link_bps * 1e3;
    ok = s.done_msgs == 16u && delivered == s.total_bytes;
    printf("NDP 16:1 incast, 100 Gb/s, %u KB per sender, initial window %u packets, trimming above 8 packets, clock %u MHz\n",
           kb, iw, mhz);
    printf("NDP paper (SIGCOMM'17, incast): trimming plus receiver pulls keep the bottleneck busy at line rate\n"
           "with no timeouts; the incast completes close to the ideal (total bytes / link rate), and flows\n"
           "finish close together.\n");
    printf("  first flow done %.3f ms, last %.3f ms; timeouts %" PRIu64 "; duplicates at receiver %" PRIu64
           "; wire-limited best %.3f ms\n",
           first_us * 1e-3, fct_ms, timeouts, dups, ideal_ms * 1042.0 / 1000.0);
    printf("RESULT exp=ndp_incast senders=16 fct_ms=%.4f ideal_ms=%.4f goodput_gbps=%.2f trimmed=%" PRIu64 " rtx=%" PRIu64
           " bytes_lost=%" PRIu64 "\n",
           fct_ms, ideal_ms, fct_ms > 0 ? (double)s.total_bytes * 8.0 / (fct_ms * 1e-3) / 1e9 : 0.0, trimmed, rtx,
           s.total_bytes - delivered);
    printf("RESULT exp=ndp_incast_check complete=%d every_byte_once=%d timeouts=%" PRIu64 "\n", s.done_msgs == 16u,
           delivered == s.total_bytes, timeouts);
    xs_free(&s);
    free(sizes);
    return ok ? 0 : 1;
}
