/* fm_taps.h -- what the fabric's NICs put on the wire, as RoCEv2 frames in a pcap (issue 30;
 * docs/fabric_model.md): every data packet and every ACK, NAK and CNP at the moment its NIC's TX
 * MAC takes it (RHCC's probes and probe ACKs are the model's own and not written). Host h is
 * 10.h1.h2.h3 with h + 1 in the low 24 bits and MAC 02:00:00:h1:h2:h3; a QP's destination QP
 * number is 0x100 + its global flow id on both sides; the PSN is the transport's segment id. */
#ifndef RNIC_FM_TAPS_H
#define RNIC_FM_TAPS_H
#include "fm_world.h"
#include "roce_pcap.h"

static void fm_tap__addresses(roce_frame_spec *f, uint32_t src, uint32_t dst)
{
    uint32_t a = src + 1u, b = dst + 1u;
    f->src_ip = 0x0a000000u | (a & 0xffffffu);
    f->dst_ip = 0x0a000000u | (b & 0xffffffu);
    f->src_mac[0] = f->dst_mac[0] = 0x02;
    f->src_mac[3] = (uint8_t)(a >> 16), f->src_mac[4] = (uint8_t)(a >> 8), f->src_mac[5] = (uint8_t)a;
    f->dst_mac[3] = (uint8_t)(b >> 16), f->dst_mac[4] = (uint8_t)(b >> 8), f->dst_mac[5] = (uint8_t)b;
}

static void fm_tap__write(fm_world *w, uint64_t cycle, const roce_frame_spec *f)
{
    if (w->pcap_end && cycle >= w->pcap_end)
        return; /* [output] pcap_us: the first microseconds only */
    if (roce_pcap_write(w->pcap, rnic_cycles_to_ns(cycle, w->p.clock_hz), f) != 0) {
        fprintf(stderr, "rnic_model: pcap write failed\n");
        w->pcap = NULL;
    }
}

/* A data packet of global flow g (its record as the DMA read it); dma_len: its message's length
 * (the RETH of WRITE First / Only). */
static void fm_tap_data(fm_world *w, uint64_t cycle, uint32_t g, const rnic_work *x, uint32_t dma_len, int ce)
{
    roce_frame_spec f;
    int first = (x->op & RM_OP_MSG_FIRST) && (x->flags & RNIC_WORK_FIRST);
    int last = (x->op & RM_OP_MSG_LAST) && (x->flags & RNIC_WORK_LAST);
    if (!w->pcap)
        return;
    memset(&f, 0, sizeof f);
    fm_tap__addresses(&f, w->flow[g].src, w->flow[g].dst);
    f.ecn = ce ? ROCE_ECN_CE : ROCE_ECN_ECT0;
    f.udp_sport = (uint16_t)(0xc000u | (g & 0x3fffu));
    f.opcode = first && last ? ROCE_OP_WRITE_ONLY : first ? ROCE_OP_WRITE_FIRST : last ? ROCE_OP_WRITE_LAST : ROCE_OP_WRITE_MIDDLE;
    f.dest_qp = 0x100u + g;
    f.psn = x->index & 0xffffffu;
    f.ack_req = 1;
    f.reth_va = x->raddr;
    f.reth_rkey = 0x1000u + g;
    if (f.opcode == ROCE_OP_WRITE_FIRST || f.opcode == ROCE_OP_WRITE_ONLY)
        f.reth_len = dma_len;
    f.payload_len = x->len;
    f.payload_seed = x->tag;
    f.payload_offset = x->raddr;
    fm_tap__write(w, cycle, &f);
}

/* An ACK, NAK or CNP of global flow g, from its receiver back to its sender. */
static void fm_tap_control(fm_world *w, uint64_t cycle, uint32_t g, const rnic_work *x)
{
    roce_frame_spec f;
    uint32_t type = TP_WORK_PKT_TYPE(x->flags);
    if (!w->pcap)
        return;
    memset(&f, 0, sizeof f);
    fm_tap__addresses(&f, w->flow[g].dst, w->flow[g].src);
    f.udp_sport = (uint16_t)(0xc000u | (g & 0x3fffu));
    f.dest_qp = 0x100u + g;
    if (type == TP_PKT_CNP) {
        f.opcode = ROCE_OP_CNP;
        f.ecn = ROCE_ECN_NOT_ECT;
        f.dscp = 48; /* CNPs ride a high priority (NIC default DSCP 48) */
    } else {
        f.opcode = ROCE_OP_ACK;
        f.ecn = ROCE_ECN_ECT0;
        f.psn = (x->index - 1u) & 0xffffffu; /* an ACK names the last PSN received in order */
        f.aeth_syndrome = type == TP_PKT_NACK ? 0x60u : 0x1fu;
        if (type == TP_PKT_NACK)
            f.psn = x->index & 0xffffffu; /* a NAK names the PSN expected */
    }
    fm_tap__write(w, cycle, &f);
}

#endif /* RNIC_FM_TAPS_H */
