#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_qos.c (tests/fuzz/corpus/qos/): inputs spelt in the
harness's own decoding so that each reaches a state worth mutating from: regular, inline, CM
unipath / multipath and notify transfers acknowledged by the network, NACKs and timeouts up to the
retry limit, cross-domain writes and reads, remote reads, a small sequence space that wraps, the
single accumulator set, full output ports, the 2^64 wrap, invalid configs.
Run: python3 tests/fuzz/gen/qos_seeds.py"""
import os, struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "qos")


class Input:
    def __init__(self):
        self.b = bytearray()

    def u8(self, v): self.b += bytes([v & 0xff]); return self
    def u16(self, v): self.b += struct.pack("<H", v & 0xffff); return self
    def u32(self, v): self.b += struct.pack("<I", v & 0xffffffff); return self
    def u64(self, v): self.b += struct.pack("<Q", v & 0xffffffffffffffff); return self
    def below(self, v): return self.u32(v)
    def hostile(self, v, lo, hi=1 << 40):
        """a sane fz_hostile value in [lo, hi]; with hi <= lo only the selector byte is read"""
        return self.u8(0) if hi <= lo else self.u8(0).u64(v - lo)
    def extreme(self, which): return self.u8(7 | (which << 3))

    def config(self, domains=1, reads=2, prios=2, block=64, outst=2, tids=8, fb=2, groups=0, single_acc=False,
               aw=4, bf=4, rp=4, tx=4, pq=4, resp=4, remote=2, seq_bits=12, timeout=200, retry=2, start=None):
        self.D, self.B, self.T = domains, block, tids
        self.u8(1)
        self.below(domains - 1).below(reads - 1).below(prios - 1).below(block.bit_length() - 7)
        self.below(outst - 1).below(tids.bit_length() - 4).below(fb.bit_length() - 1).below(groups)
        self.u8(1 if single_acc else 0)
        for v in (aw, bf, rp, tx, pq, resp):
            self.below(v - 1)
        self.below(remote - 1).below(seq_bits - 2).below(timeout - 30).below(retry)
        if start is None: self.u8(1).u16(0)
        else: self.u8(0).below(start)
        return self

    def desc(self, domain, ch, size, inline=False, cm=False, multi=False, notify=False, page=None, wide=False,
             src_edge=False, bad=None, prio=0):
        how = (1 if inline else 0) | (2 if cm else 0) | (4 if multi else 0) | (8 if notify else 0) | (0x30 if page is not None else 0)
        shape = (0x40 if wide else 0) | (3 if src_edge else 0)
        self.u8(0).u8(how).u8(shape).hostile(domain, 0, self.D - 1)
        if page is not None: self.hostile(page, 0, self.D)
        self.hostile(ch, 0, 31)
        if inline:
            self.hostile(size, 1, 32).u32(0x4000)
        else:
            self.hostile(size, 33, 8 * self.B)
            if src_edge: self.below(size // 2)
            else: self.u32(0x1000)
            self.u32(0x2000 + 40)  # a destination not on a block boundary
        self.u8(prio)
        nl = 1 if inline and size <= 8 else 2
        beats = nl * (2 if wide else 4)
        for k in range(beats):
            if bad is not None and k == bad[0]:
                self.u8(0x1f | (bad[1] << 5))
                if bad[1] == 2: self.hostile(bad[2], 0)
                elif bad[1] == 3: self.below(0)
                elif bad[1] == 4: self.hostile(bad[2], 0, self.D)
                elif bad[1] == 5: self.below(0)
            else:
                self.u8(0)
        return self

    def status(self, domain, page=None, index=0, mode32=False):
        how = (3 if page is not None else 0) | (4 if mode32 else 0)
        self.u8(2).u8(how).hostile(domain, 0, self.D - 1)
        if page is not None: self.hostile(page, 0, self.D)
        self.hostile(index, 0, 0 if mode32 else 31)
        return self

    def resp(self, pick=0, nack=False): return self.u8(3).u8(0 if nack else 1).u32(pick).hostile(0, 0).u16(0)
    def resp_unknown(self): return self.u8(3).u8(0x19).u32(0).hostile(0, 0).u16(5)  # tid 2 x tids + 0

    def remote(self, domain, size, inline=False):
        self.u8(5).u8(1 if inline else 0).hostile(domain, 0, self.D - 1)
        self.hostile(size, 1, 32) if inline else self.hostile(size, 33, 3 * self.B)
        self.u32(0x8000).u32(0x9000).hostile(0, 0, 15)
        return self

    def run(self, n):
        while n > 0:
            k = min(n, 8)
            self.u8(6).below(k - 1)
            n -= k
        return self

    def adv(self, n, to=False): return self.u8(19 if to else 7).hostile(n, 1)
    def pop_all(self): return self.u8(10)
    def pop_bp(self): return self.u8(8)
    def nulls(self, which): return self.u8(11).u8(which)


def save(name, inp):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes(inp.b))


def main():
    # a regular transfer cut at the receiver's block boundaries, acknowledged
    i = Input().config().run(16).desc(0, 0, 300).adv(30).pop_all()
    for k in range(6):
        i.resp(0).run(4).pop_all()
    i.adv(20).status(0).run(3).pop_all()
    save("regular_acked", i)
    # inline transfers (one line and two lines, 16-byte beats)
    i = Input().config().run(16).desc(0, 1, 5, inline=True).desc(0, 3, 20, inline=True, wide=True).adv(10).pop_all()
    i.resp(0).resp(1).run(10).pop_all().status(0, mode32=True).run(3).pop_all()
    save("inline", i)
    # CM unipath and multipath with notification, 2 domains, larger blocks
    i = Input().config(domains=2, block=128, tids=16, fb=2, groups=1, outst=3).run(30)
    i.desc(0, 0, 700, cm=True, notify=True).desc(1, 4, 900, cm=True, multi=True).adv(40).pop_all()
    for k in range(10):
        i.resp(k % 3).run(4).pop_all()
    save("cm_notify", i)
    # NACKs and timeouts up to the retry limit: a transfer ends in ERROR
    i = Input().config(timeout=40, retry=1).run(16).desc(0, 0, 200).adv(10).pop_all().resp(0, nack=True)
    for k in range(8):
        i.run(8).pop_all()
    i.adv(60).pop_all().adv(60).pop_all().status(0).run(4).pop_all()
    save("timeouts_error", i)
    # a stale ACK: the block timed out and went again with a new number; the old number is acked
    i = Input().config(timeout=40, retry=3).run(16).desc(0, 0, 100).adv(10).pop_all().adv(60).adv(20)
    i.resp(0).resp(1).run(10).pop_all().resp(0).run(10).pop_all()
    save("stale_after_retransmit", i)
    # cross-domain: a write to another domain's page, beats to a read channel, reads of another page
    i = Input().config(domains=2).run(16).desc(0, 0, 100, page=1).desc(1, 2, 100, bad=(1, 5)).desc(0, 5, 100, bad=(2, 4, 1))
    i.status(0, page=1).status(1, page=0, mode32=True).run(6).pop_all().adv(30).pop_all()
    save("cross_domain", i)
    # hostile beats: misaligned, bad strobes, interleaved lines, a beat anywhere
    i = Input().config().run(16).desc(0, 0, 100, bad=(0, 0)).desc(0, 2, 100, bad=(1, 1)).desc(0, 4, 100, bad=(2, 3))
    i.desc(0, 6, 100, bad=(3, 2, 0x300)).desc(0, 8, 100).run(10).pop_all().adv(30).pop_all()
    save("hostile_beats", i)
    # remote reads: placed in read channels of their domain
    i = Input().config(domains=2, reads=3).run(16).remote(0, 300).remote(1, 6, inline=True).remote(5, 100)
    i.adv(20).pop_all().resp(0).resp(1).run(10).pop_all().resp(0).run(8).pop_all()
    save("remote_reads", i)
    # a small sequence space (4 numbers) over many blocks
    i = Input().config(seq_bits=2, outst=4, tids=16, fb=4, groups=1).run(20).desc(0, 0, 1000).desc(0, 2, 600)
    for k in range(12):
        i.adv(6).pop_all().resp(0).resp(1)
    save("seq_wrap", i)
    # the single accumulator set: descriptors of two domains interleave
    i = Input().config(domains=2, single_acc=True).run(16).desc(0, 0, 100, bad=(2, 4, 1)).desc(1, 0, 100).adv(20).pop_all()
    save("single_accumulator", i)
    # full output ports: transaction port 1, B FIFO 1, no pops for a while
    i = Input().config(tx=1, bf=1, pq=1, aw=2).run(16).desc(0, 0, 500).desc(0, 2, 7, inline=True).adv(50).adv(30, True)
    i.pop_bp().run(5).pop_all().resp(0).adv(40).pop_all()
    save("full_ports", i)
    # the 2^64 wrap of the clock
    i = Input().config(start=20).run(8).adv(20).desc(0, 0, 200).adv(30).pop_all().resp(0).run(10).pop_all()
    save("clock_wrap", i)
    # refused calls: NULL records, an unknown TID
    i = Input().config().run(16).nulls(0).nulls(1).nulls(2).nulls(3).nulls(4).resp_unknown().run(6).pop_all()
    save("refused_calls", i)
    # invalid configs
    save("config_hostile", Input().u8(0).extreme(0))
    bad = Input().u8(8)
    for k in range(20):
        bad.u8(0).u64(0)
    save("config_hostile_zero", bad)


if __name__ == "__main__":
    main()
