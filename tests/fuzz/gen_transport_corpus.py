#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_transport.c into tests/fuzz/corpus/transport/.

Each seed is an input in the harness's own encoding (see LLVMFuzzerTestOneInput there): a header
(protocol, engine and receiver configs, the channel, the flows) and a list of operations. The
seeds cover every protocol, lossy / duplicating / reordering / marking / trimming wires, segment
ids and cycles next to their wraps, the external pacer, full ports, forged packets, flow close
and reopen, and a few invalid configs. ndp_stale_rtx_stall is not written here: it is the input
libFuzzer found for an NDP stall (an acknowledged retransmission stuck in the credit engine's ring;
fixed, regression test in tests/test_transport_irn_ndp.c), kept as is.
Run it again after changing the harness's decoding:
    python3 tests/fuzz/gen_transport_corpus.py
"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "transport")
RENO, NEWRENO, SACK, DCQCN, IRN, NDP = range(6)


def val(v, lo, hi):
    """fzt_val: a selector byte (not an extreme), then the value in the width its range needs."""
    span = hi - lo
    raw = v - lo
    assert 0 <= raw <= span
    if span < 256:
        return bytes([0, raw])
    if span < 65536:
        return bytes([0]) + struct.pack("<H", raw)
    if span < 1 << 32:
        return bytes([0]) + struct.pack("<I", raw)
    return bytes([0]) + struct.pack("<Q", raw)


def extreme(kind):
    """fzt_val's extremes: 0 -> 0, 1 -> 1, 2 -> UINT64_MAX, 3 -> UINT32_MAX, 4 -> hi + 1."""
    return bytes([15 | (kind << 4)])


def u8(v):
    return bytes([v & 0xFF])


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


class Seed:
    def __init__(self, proto, pacer=False, clock=100_000_000, link=10_000_000_000, min_rate=100_000,
                 flows=2, window=0, ring=2, messages=4, incoming=8, tx=4, compl=4, start=None,
                 rx_window=None, rxflags=0, rx_flows=None, delack_count=2, delack_us=1, cnp_us=0,
                 pull_bps=None, rx_in=8, rx_ack=8, rx_deliv=8, delay=3,
                 drop=0, dup=0, ecn=0, trim=0, jitter=0, rng=12345, proto_bytes=None, raw_cfg=None):
        b = bytearray(u8(proto | (0x80 if pacer else 0)))
        if proto_bytes is not None:
            b += proto_bytes
        elif proto == DCQCN:
            b += u8(0) + val(2000, 1, 20000) + val(3000, 1, 20000) + val(4000, 1, 20000) + val(1, 0, 10)
            b += val(5000, 0, 20000) + val(5, 1, 8) + val(16, 0, 31) + val(40_000_000, 0, 10_000_000_000)
            b += val(200_000_000, 0, 10_000_000_000) + val(100_000_000, 100_000, 10_000_000_000)
            b += val(1 << 23, 1, (1 << 31) - 1)
        elif proto == IRN:
            b += val(2, 1, 10) + val(5, 0, 20) + val(3, 0, 8) + val(0, 0, 20000) + val(0, 0, 100_000_000_000)
        elif proto == NDP:
            b += val(4, 1, 16) + val(0, 0, 64) + val(0, 0, 20)  # rto 0: the flow's rto_us
        if raw_cfg is not None:
            b += raw_cfg
        else:
            b += val(clock, 100_000_000, 1_000_000_000) + val(link, 1_000_000_000, 100_000_000_000)
            b += val(min_rate, 100_000, 1_000_000_000) + val(flows, 1, 4) + val(window, 0, 2)
            b += val(ring, 0, 3) + val(messages, 1, 8) + val(incoming, 1, 16) + val(tx, 1, 8) + val(compl, 1, 8)
        if start is None:
            b += u8(0)
        elif start[0] == "wrap64":
            b += u8(1) + val(start[1], 0, 3000)
        elif start[0] == "wrap32":
            b += u8(2) + val(start[1], 0, 3000)
        else:
            b += u8(3) + u64(start[1])
        b += val(window if rx_window is None else rx_window, 0, 2) + u8(rxflags)
        if rxflags & 0x40:
            b += val(rx_flows, 1, 4)
        b += val(delack_count, 1, 4) + val(delack_us, 1, 4) + val(cnp_us, 0, 5)
        if proto == NDP or rxflags & 0x20:
            b += val(pull_bps if pull_bps else link, 100_000_000, link)
        b += val(rx_in, 1, 16) + val(rx_ack, 1, 16) + val(rx_deliv, 1, 16) + val(delay, 1, 16)
        b += self.chan(drop, dup, ecn, trim, jitter, rng)
        self.b = b
        self.link = link
        self.flows = min(flows, 4)

    @staticmethod
    def chan(drop, dup, ecn, trim, jitter, rng):
        return u8(drop) + u8(dup) + u8(ecn) + u8(trim) + u8(jitter) + u32(rng)

    def flow(self, seg=100, init_wnd=10, init_rate=0, init_credit=0, max_burst=0, rto_us=4, param0=0, seq=None):
        b = val(seg, 1, 300) + val(init_wnd, 1, 64) + val(init_rate, 0, self.link) + val(init_credit, 0, 4096)
        b += val(max_burst, 0, 4096) + val(rto_us, 1, 8) + val(param0, 0, 64)
        if seq is None:
            b += u8(0)
        elif seq[0] == "wrap32":
            b += u8(1) + val(seq[1], 0, 300)
        elif seq[0] == "wrap31":
            b += u8(2) + val(seq[1], 0, 300)
        else:
            b += u8(3) + u32(seq[1])
        self.b += b
        return self

    def flows_default(self, **kw):
        for _ in range(self.flows):
            self.flow(**kw)
        return self

    # operations (op byte % 12)
    def run(self, n):
        """run_for(n): short runs in the op byte, longer ones with a value."""
        while n > 0:
            if n <= 16:
                hi = (n - 1) << 4  # run_for(1 + (op >> 4)) needs op % 12 in 0..2
                self.b += u8(hi + (12 - hi % 12) % 12)
                n = 0
            else:
                k = min(n, 100)
                self.b += u8(3) + val(k, 1, 100)
                n -= k
        return self

    def push(self, flow=0, length=250, addr_max=False, raddr=0x1000, op=7):
        self.b += u8(4) + u8((flow % max(self.flows, 1)) << 3) + val(length, 1, 900)
        self.b += u8(0xFF if addr_max else 0) + u64(raddr) + u8(op)
        return self

    def push_flow_sel(self, sel_byte, length=100):
        """A push with a raw flow selector (5: max_flows, 6: valid-but-closed id, 7: UINT32_MAX)."""
        self.b += u8(4) + u8(sel_byte)
        if sel_byte & 7 == 6:
            self.b += val(0, 0, 0)
        self.b += val(length, 1, 900) + u8(0) + u64(0) + u8(0)
        return self

    def push_extreme_len(self, flow, kind):
        self.b += u8(4) + u8((flow % max(self.flows, 1)) << 3) + extreme(kind) + u8(0) + u64(0) + u8(0)
        return self

    def forge_ack(self, flow=0, ptype=0, how=0, sack=None, aux=0, ecn=False, extra=0):
        """op_forge_incoming: ptype 0..3 = ACK, NACK, CNP, GRANT; how 0 dup, 1 stale, 2 wrapped,
        3 never sent, 4 far beyond, 5 acks sent data (taints), 6/7 raw."""
        hb = (ptype & 3) | (how << 3) | (0x40 if sack else 0) | (0x80 if ecn else 0)
        self.b += u8(6) + u8(hb) + u8((flow % max(self.flows, 1)) << 3)
        if how == 1:
            self.b += val(extra, 0, 1000)
        elif how == 3:
            self.b += val(extra, 0, 1000)
        elif how == 5:
            self.b += bytes([0, extra])  # wnd_start + extra % (in flight + 1): acks data it may not have
        elif how >= 6:
            self.b += u32(extra)
        if sack:
            self.b += val(sack[0], 0, 300) + val(sack[1], 0, 300)
        self.b += val(aux, 0, 4096)
        return self

    def forge_bad_type(self, flow=0, t=9):
        self.b += u8(6) + u8(7) + u8((flow % max(self.flows, 1)) << 3) + u8(t - 6) + val(0, 0, 4096)
        return self

    def forge_data(self, flow=0, how=1, length=100, flags=0):
        """op_forge_data: how 0 NULL, 1 far beyond the window, 2 an old duplicate."""
        self.b += u8(7) + u8(how) + u8((flow % max(self.flows, 1)) << 3) + struct.pack("<H", length) + u8(flags)
        if how in (1, 2):
            self.b += struct.pack("<H", 7)
        return self

    def drain(self, tx=2, ack=2, compl=1, delivered=False, step=1):
        """Records popped per sync point (0 none, 1 one, 2 all), delivered drained now, and
        sync points every 1 << (2 * step) cycles while busy."""
        self.b += u8(8) + u8(tx | (ack << 2) | (0 if compl else 0x10) | (0x20 if delivered else 0) | (step << 6))
        return self

    def chan_set(self, drop=0, dup=0, ecn=0, trim=0, jitter=0, rng=777):
        # op 0x80: 128 % 12 == 8 with the high bit set reads a new channel
        self.b += u8(0x80) + self.chan(drop, dup, ecn, trim, jitter, rng)
        return self

    def close(self, flow=0, reopen_params=None):
        self.b += u8(9) + u8((flow % max(self.flows, 1)) << 3)
        return self

    def reopen(self, flow=0, seg=100, rto_us=4):
        self.b += u8(9) + u8((flow % max(self.flows, 1)) << 3)
        self.b += val(seg, 1, 300) + val(10, 1, 64) + val(0, 0, self.link) + val(0, 0, 4096)
        self.b += val(0, 0, 4096) + val(rto_us, 1, 8) + val(0, 0, 64)
        return self

    def hostile(self, k, extra=b""):
        self.b += u8(10) + u8(k) + extra
        return self

    def sync(self):
        self.b += u8(11)
        return self

    def data(self):
        assert len(self.b) <= 1024, len(self.b)
        return bytes(self.b)


def traffic(s, msgs=6, lengths=(250, 100, 900, 1, 300, 64), gap=12):
    for i in range(msgs):
        s.push(flow=i, length=lengths[i % len(lengths)])
        s.run(gap)
    return s


def seeds():
    out = {}
    # every protocol over a clean wire, then a lossy one
    for name, p in (("reno", RENO), ("newreno", NEWRENO), ("sack", SACK), ("dcqcn", DCQCN), ("irn", IRN), ("ndp", NDP)):
        s = Seed(p).flows_default()
        out[name + "_clean"] = traffic(s).run(150).data()
        s = Seed(p, drop=40, dup=20, jitter=12, rng=99 + p).flows_default(rto_us=1)
        out[name + "_lossy"] = traffic(s, msgs=8).run(150).data()
    # NDP with trimming, DCQCN with ECN marks and CNPs, IRN with reordering
    s = Seed(NDP, trim=60, drop=30, rng=4242).flows_default(seg=200, rto_us=1)
    out["ndp_trim"] = traffic(s, msgs=8).run(150).data()
    s = Seed(DCQCN, ecn=120, cnp_us=1, rng=31337, flows=1).flows_default(seg=256)
    out["dcqcn_cnp"] = traffic(s, msgs=6).run(150).data()
    s = Seed(DCQCN, ecn=120, cnp_us=2, rxflags=0x10, rng=7, flows=1).flows_default(seg=256)
    out["dcqcn_cnp_deferred"] = traffic(s, msgs=6).run(150).data()
    s = Seed(IRN, jitter=31, drop=20, delack_count=1, rng=5, flows=3).flows_default(seg=64)
    out["irn_reorder"] = traffic(s, msgs=9).run(150).data()
    # the external pacer (rate protocols), with bad consumed indices
    s = Seed(IRN, pacer=True, flows=2).flows_default(seg=128)
    s = traffic(s, msgs=4).hostile(4, u8(0) + u32(5)).hostile(4, u8(7) + u32(0))
    out["irn_pacer"] = s.run(150).data()
    # clock and segment ids next to their wraps
    s = Seed(NEWRENO, start=("wrap64", 200), flows=2).flows_default(seq=("wrap32", 3))
    out["newreno_wrap"] = traffic(s, msgs=6).run(150).data()
    s = Seed(SACK, start=("wrap32", 50), drop=30, flows=1, rng=8).flow(seq=("wrap31", 2), seg=50, rto_us=1)
    out["sack_wrap31"] = traffic(s, msgs=6).run(150).data()
    # full ports: tiny capacities, outputs left in place for a while
    s = Seed(RENO, tx=1, compl=1, incoming=1, rx_in=1, rx_ack=1, rx_deliv=1, flows=2, ring=0).flows_default(init_wnd=32)
    s.drain(tx=0, ack=0, compl=0).push(0, 900).push(1, 900).run(60).drain(tx=1, ack=1, compl=1).run(200)
    out["reno_full_ports"] = s.drain(tx=2, ack=2, compl=1, delivered=True).run(150).data()
    # forged control packets and data, hostile calls
    s = Seed(SACK, flows=2).flows_default()
    s.push(0, 500).run(20)
    for how in range(5):
        s.forge_ack(flow=0, ptype=how % 4, how=how, sack=(3, 5) if how == 0 else None, extra=how * 3, ecn=how == 2)
    s.forge_bad_type().forge_data(how=1).forge_data(how=2).forge_data(how=0)
    s.push_flow_sel(5).push_flow_sel(7).push_extreme_len(0, 0).push_extreme_len(0, 3)
    for k in range(4):
        s.hostile(k)
    s.hostile(5, u8(0)).hostile(6)
    out["sack_forged"] = s.run(150).data()
    s = Seed(NEWRENO, flows=1).flows_default()
    s.push(0, 900).run(15).forge_ack(flow=0, ptype=0, how=5, extra=3).run(150)
    out["newreno_forged_accept"] = s.data()
    # close and reopen a flow once it is idle
    s = Seed(RENO, flows=2).flows_default()
    s.push(0, 300).push(1, 300).close(0).run(150).close(0).reopen(0, seg=60).push(0, 240).run(150)
    out["reno_close_reopen"] = s.data()
    # go-back-N receiver under loss (RoCEv2), NewReno with a non-SACK receiver and delayed ACKs
    s = Seed(DCQCN, drop=50, delack_count=1, rng=2024, flows=2).flows_default(seg=100, rto_us=1)
    out["dcqcn_gbn_loss"] = traffic(s, msgs=6).run(150).data()
    s = Seed(NEWRENO, drop=25, delack_count=3, delack_us=2, rxflags=0x04, rng=11, flows=1).flow(seg=80, init_wnd=4, rto_us=1)
    out["newreno_delack"] = traffic(s, msgs=6, gap=12).run(150).data()
    # a receiver window smaller than the sender's; the channel changed mid-run
    s = Seed(SACK, window=2, rx_window=0, flows=1).flow(seg=20, init_wnd=64)
    s.push(0, 900).push(0, 900).run(100).chan_set(drop=80, jitter=20).run(100).chan_set().run(150)
    out["sack_small_rx_window"] = s.data()
    # invalid configs: refused with a code (window 100, ring 0 via extremes, min rate above link)
    out["bad_window"] = Seed(RENO, raw_cfg=val(100_000_000, 100_000_000, 1_000_000_000) + val(1_000_000_000, 1_000_000_000, 100_000_000_000)
                             + val(100_000, 100_000, 1_000_000_000) + val(1, 1, 4) + extreme(4)).data()
    out["bad_clock"] = Seed(NDP, raw_cfg=extreme(0)).data()
    out["too_big"] = Seed(RENO, raw_cfg=val(100_000_000, 100_000_000, 1_000_000_000) + val(1_000_000_000, 1_000_000_000, 100_000_000_000)
                          + val(100_000, 100_000, 1_000_000_000) + bytes([0x5F, 12]) + val(0, 0, 2) + val(2, 0, 3)
                          + val(4, 1, 8) + val(8, 1, 16) + val(4, 1, 8) + val(4, 1, 8)).data()
    out["bad_dcqcn"] = Seed(DCQCN, proto_bytes=u8(1) + extreme(0) * 12).flows_default().data()
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(seeds()), OUT))


if __name__ == "__main__":
    main()
