#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_palos.c (tests/fuzz/corpus/palos/): inputs spelt in the
harness's own decoding (fz_u8/u32/u64, fz_below, fz_hostile) so that each reaches a state worth
mutating from: combined and cut WQEs, packet overhead, cut_align, PACKET_RR, the latency class with
a preempted bandwidth visit, refused WQEs, refused calls, the 2^64 wrap, a full output port, weight
changes, invalid configs. Run: python3 tests/fuzz/gen/palos_seeds.py"""
import os, struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "palos")


class Input:
    def __init__(self):
        self.b = bytearray()

    def u8(self, v): self.b += bytes([v & 0xff]); return self
    def u16(self, v): self.b += struct.pack("<H", v & 0xffff); return self
    def u32(self, v): self.b += struct.pack("<I", v & 0xffffffff); return self
    def u64(self, v): self.b += struct.pack("<Q", v & 0xffffffffffffffff); return self
    def below(self, v): return self.u32(v)            # fz_below(n): v % n
    def hostile(self, v, lo): return self.u8(0).u64(v - lo)  # a sane fz_hostile value in [lo, hi]
    def extreme(self, which): return self.u8(7 | (which << 3))  # 0:0 1:1 2:U64MAX 3:U32MAX 4:hi+1

    # config (not hostile): the values are the decoded ones
    def config(self, qps=3, groups=2, mtu=256, mode=0, ring=32, piece_depth=2, slots=2, fetch_ns=16,
               batch=4, launch=4, pmm=1024, ovh=0, cut=0, start=None):
        self.u8(1)
        self.below(qps - 1).below(groups - 1).below(mtu - 64).below(mode).below(ring - 1)
        self.below(piece_depth - 1).below(slots - 1).below(fetch_ns).below(batch - 1).below(launch - 1)
        self.below(pmm - 1)
        if ovh: self.u8(1).below(ovh)
        else: self.u8(0)
        if cut: self.u8(0).below(cut - 1)
        else: self.u8(1)
        if start is not None: self.u8(0).below(start)   # UINT64_MAX - start
        else: self.u8(1).u16(0)
        self.u8(1)  # a source
        return self

    def write(self, flow, wqes):
        while len(wqes) > 4:  # at most 4 entries per write op
            self.write(flow, wqes[:4])
            wqes = wqes[4:]
        return self.write4(flow, wqes)

    def write4(self, flow, wqes):
        """wqes: list of (len, kind): kind bits 6 = addr near 2^64, 24 = raddr near 2^64,
        0xe0 = flagged error, 31 = hole; bit 0 picks the 3 x MTU length range"""
        self.u8(0).below(flow).below(len(wqes) - 1)
        for ln, kind in wqes:
            self.u8(kind | 1)
            self.hostile(ln, 1)
            if (kind & 6) == 6: self.below(ln // 2)
            else: self.u32(0x1000 + flow)
            if (kind & 24) == 24: self.below(ln // 2)
            else: self.u32(0x2000)
            self.u8(7).u8(3)
        return self

    def doorbell(self, flow, step=None):
        self.u8(1).hostile(flow, 0)
        if step is None: self.u8(1)            # post what was written
        else: self.u8(0).hostile(step, 1)      # posted + step
        return self

    def doorbell_raw(self, flow, extreme):
        return self.u8(1).hostile(flow, 0).u8(0).extreme(extreme)

    def value(self, v, lo, hi):  # a fz_hostile value, extremes spelt as such
        if v == 0 and lo > 0: return self.extreme(0)
        if v == hi + 1: return self.extreme(4)
        if v > hi: return self.extreme(3)
        return self.hostile(v, lo)

    def control(self, what, group, weight, flow, cls):
        self.u8(3).u8(what).hostile(group, 0).u8(0).value(weight, 1, 65535).hostile(flow, 0).value(cls, 0, 1)
        return self

    def group(self, g, w): return self.control(0, g, w, 0, 0)
    def qp(self, f, g, w, cls=0): return self.control(2, g, w, f, cls)

    def run(self, n):
        while n > 0:
            k = min(n, 8)
            self.u8(4).below(k - 1)
            n -= k
        return self

    def run_adv(self, n, to=False): return self.u8(25 if to else 5).hostile(n, 1)
    def pops(self, n, peek=False): return self.u8(26 if peek else 6).below(n - 1)
    def nulls(self, pop): return self.u8(8).u8(1 if pop else 0)


def save(name, inp):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes(inp.b))


def setup3(i, cls2=0):
    i.group(0, 3).group(1, 1).qp(0, 0, 2).qp(1, 0, 1).qp(2, 1, 1, cls2)
    return i


def main():
    # combined small WQEs and cut large ones, three flows of two groups
    i = setup3(Input().config())
    for r in range(3):
        i.write(0, [(100, 0), (300, 1), (40, 0), (700, 1)]).write(1, [(600, 1), (64, 0)]).write(2, [(500, 1), (90, 0)])
        i.doorbell(0).doorbell(1).doorbell(2).run(12).pops(8).run_adv(20).pops(8, True)
    save("chunk_basic", i)
    # packet overhead and a longer backlog (deficit carried, round robin)
    i = setup3(Input().config(mtu=128, ovh=40, batch=2, launch=2))
    for r in range(4):
        i.write(0, [(383, 1), (10, 0), (200, 1)]).write(1, [(129, 1), (255, 1)]).write(2, [(64, 0), (64, 0), (300, 1)])
        i.doorbell(0).doorbell(1).doorbell(2).run_adv(30, r & 1).pops(8)
    save("overhead_backlog", i)
    # cut_align: cuts on segment boundaries
    i = setup3(Input().config(mtu=256, cut=200))
    for r in range(3):
        i.write(0, [(760, 1), (700, 1)]).write(1, [(768, 1)]).write(2, [(500, 1)])
        i.doorbell(0).doorbell(1).doorbell(2).run(16).pops(8).run_adv(40).pops(8)
    save("cut_align", i)
    # PACKET_RR: one packet per visit
    i = setup3(Input().config(mode=1, mtu=100))
    i.write(0, [(350, 1), (20, 0)]).write(1, [(250, 1)]).write(2, [(90, 0), (300, 1)])
    i.doorbell(0).doorbell(1).doorbell(2)
    for r in range(6):
        i.run(6).pops(4)
    save("packet_rr", i)
    # latency class beside a long bandwidth visit of many small WQEs (refetch, preemption)
    i = Input().config(qps=3, mtu=2048, batch=2, launch=2, pmm=300, slots=2)
    i.group(0, 1).qp(0, 0, 8).qp(1, 0, 1, 1)
    i.write(0, [(64, 0)] * 4).write(0, [(64, 0)] * 4).write(0, [(64, 0)] * 4).doorbell(0).run(5)
    i.write(1, [(200, 0), (400, 1)]).doorbell(1)
    for r in range(5):
        i.run(4).pops(6)
    save("latency_preempt", i)
    # refused WQEs: flagged by the source, a hole, addresses at 2^64, length 0
    i = setup3(Input().config())
    i.write(0, [(100, 0xe0), (300, 1), (200, 6), (200, 24), (0, 0)]).write(1, [(100, 31), (50, 0)])
    i.doorbell(0).doorbell(1).doorbell(2, 3).run(10).pops(8).run(10).pops(8)
    save("refused_wqes", i)
    # refused calls: unknown flow, stale and overrunning tails, bad control calls, NULL records
    i = Input().config(ring=4)
    i.group(0, 1).group(0, 1).group(9, 1).control(0, 1, 0, 0, 0).qp(0, 0, 1).qp(1, 5, 1).control(2, 0, 1, 1, 2)
    i.doorbell(2, 1).doorbell_raw(0, 0).doorbell_raw(0, 3).doorbell(0, 9).doorbell(0, 2).doorbell(0, 2)
    i.control(3, 0, 1, 0, 0).control(1, 3, 2, 0, 0).nulls(True).nulls(False).run(8).pops(4).control(3, 0, 1, 0, 0)
    save("refused_calls", i)
    # the 2^64 wrap of the clock
    i = setup3(Input().config(start=5))
    i.write(0, [(300, 1), (100, 0)]).write(1, [(200, 1)]).doorbell(0).doorbell(1).run(3).run_adv(30).pops(8)
    save("clock_wrap", i)
    # a full output port: piece_depth 1, launch 1, no pops for a while (advance stops, stalls)
    i = setup3(Input().config(piece_depth=1, launch=1, fetch_ns=0))
    i.write(0, [(64, 0)] * 4).write(1, [(64, 0)] * 4).doorbell(0).doorbell(1).run_adv(40).run_adv(20, True)
    i.pops(2).run_adv(10).pops(8).run(8).pops(8)
    save("full_port", i)
    # weights change while backlogged, a QP moves group and class, then leaves
    i = setup3(Input().config(mtu=200))
    i.write(0, [(900, 1)] * 3).write(1, [(900, 1)] * 3).write(2, [(900, 1)] * 3).doorbell(0).doorbell(1).doorbell(2)
    i.run(20).pops(8).control(1, 0, 7, 0, 0).run(20).pops(8).qp(1, 1, 5, 1).run(20).pops(8)
    i.run_adv(60).pops(8).run_adv(60).pops(8).control(3, 0, 0, 2, 0)
    save("weight_change", i)
    # invalid configs (hostile mode: extremes for fields)
    bad = Input().u8(0)
    bad.extreme(0)  # max_flows 0
    save("config_bad_qps", bad)
    bad = Input().u8(8)
    for k in range(14):
        bad.u8(0).u64(0)
    bad.extreme(2)
    save("config_hostile", bad)
    i = Input().config()
    i.b[-1] = 0  # no source
    save("config_no_source", i)


if __name__ == "__main__":
    main()
