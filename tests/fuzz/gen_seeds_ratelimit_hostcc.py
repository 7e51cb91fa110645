#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/fuzz_ratelimit.c and tests/fuzz/fuzz_hostcc.c.

Each seed is a small program in the harness's input encoding (the decoders are the harnesses'
fr_config / LLVMFuzzerTestOneInput and hc_* functions), crafted to reach one interesting state
quickly: a pause, bad WQEs, a full TX port, the ranked schedule queue, the 2^64 wrap, refused
calls, an invalid config, ... libFuzzer mutates from there. Deterministic: rerunning rewrites the
same files.  Usage: tests/fuzz/gen_seeds_ratelimit_hostcc.py [ratelimit|hostcc ...]
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def u8(v):
    return bytes([v & 0xFF])


def u16(v):
    return struct.pack('<H', v & 0xFFFF)


def u32(v):
    return struct.pack('<I', v & 0xFFFFFFFF)


def u64(v):
    return struct.pack('<Q', v & 0xFFFFFFFFFFFFFFFF)


def sane(v, lo):
    """fz_hostile(lo, hi) answering v (lo <= v <= hi): a selector that is not an extreme."""
    return u8(0) + u64(v - lo)


EXTREME = {0: 0, 1: 1, 'max64': 2, 'max32': 3, 'hi+1': 4}


def extreme(which):
    """fz_hostile answering an extreme: 0, 1, UINT64_MAX, UINT32_MAX or hi + 1."""
    return u8(7 | (EXTREME[which] << 3))


def pow2(k):
    """fz_hostile answering 1 << k."""
    return u8(7 | (5 << 3)) + u8(k)


# ---- fuzz_ratelimit.c ----

RL_CLOCK, RL_LINK, RL_MIN = 1, 2, 4
RL_SCHED, RL_FETCHBW, RL_WQEB, RL_QPST, RL_START = 8, 16, 32, 64, 128


def rl_config(flows=2, mtu=1024, pcie_ns=40, fetch=4, desc=8, tx=4, sel=0, sched=None,
              fetch_bps=None, start=None, extra=b''):
    b = u8(sel)
    b += extra  # clock / link / min_rate values when sel asks for them
    b += sane(flows, 1) + sane(mtu, 64) + sane(pcie_ns, 4) + sane(fetch, 1) + sane(desc, 1) + sane(tx, 1)
    if sel & RL_SCHED:
        b += sane(sched, 0)
    if sel & RL_FETCHBW:
        b += sane(fetch_bps, 1000000)
    if sel & RL_WQEB:
        b += sane(64, 1)
    if sel & RL_QPST:
        b += sane(0, 0)
    if sel & RL_START:
        b += start
    return b


def rl_flow(f):
    return sane(f, 0)


def rl_post(f, length, ring=True, kind=3, status=None):
    """op 0 (post + doorbell) or 2 (post only); kind 3+: a valid WQE of `length` bytes."""
    b = u8(0 if ring else 2) + rl_flow(f) + u8(kind)
    if kind == 0:
        pass
    elif kind == 1:  # around 2^31: 2^31 + 1 (hi + 1) is refused as an error record
        b += extreme('hi+1') if length > 0x80000000 else sane(length, 0x7fffff00)
    elif kind == 2:
        b += u32(status) + u16(length)
    else:
        b += sane(length, 1)
    return b + u32(0x1000 * (f + 1)) + u32(12)


def rl_doorbell(f):
    return u8(3) + rl_flow(f)


def rl_rate(f, bps, min_rate=100000, link=100000000000):
    if bps > link:
        return u8(4) + rl_flow(f) + u8(200) + extreme('hi+1')  # link + 1: clamped
    if bps == 0:
        return u8(4) + rl_flow(f) + u8(0)
    if bps < min_rate:
        return u8(4) + rl_flow(f) + u8(40) + sane(bps, 0)
    return u8(4) + rl_flow(f) + u8(200) + sane(bps, min_rate)


def rl_credit(f, on):
    return u8(5) + rl_flow(f) + u8(1 if on else 0)


def rl_run(n, to=False):
    op = 6 + 12 if to else 6  # op & 16 picks rl_advance_to for B
    if n < 256:
        return u8(op) + rl_flow(0) + u8(1) + u8(n)
    return u8(op) + rl_flow(0) + u8(0) + u16(n)


def rl_pop(n=8):
    return u8(9) + rl_flow(0) + u8(n - 1)


def rl_nulls():
    return u8(11) + rl_flow(0)


def ratelimit_seeds():
    s = {}
    no_overrun = u8(0)
    s['basic-two-flows'] = (rl_config() + no_overrun + rl_post(0, 1000) + rl_post(1, 300) + rl_run(60) +
                            rl_pop() + rl_run(100, True) + rl_pop() + rl_post(0, 64) + rl_run(90) + rl_pop())
    s['rates-and-clamps'] = (rl_config() + no_overrun + rl_rate(0, 20000000000) + rl_rate(1, 1) +
                             rl_rate(1, 10 ** 15) + rl_post(0, 2000) + rl_post(1, 2000) + rl_run(200) + rl_pop() +
                             rl_rate(0, 5000000000) + rl_run(50) + rl_pop())
    s['pause-resume'] = (rl_config() + no_overrun + rl_post(0, 3000) + rl_run(30) + rl_rate(0, 0) + rl_run(80) +
                         rl_pop() + rl_rate(0, 50000000000) + rl_run(120, True) + rl_pop())
    s['bad-wqes'] = (rl_config() + no_overrun + rl_post(0, 0, kind=0) + rl_post(0, 0x80000001, kind=1) +
                     rl_post(0, 100, kind=2, status=6) + rl_post(0, 100, kind=2, status=-3) + rl_post(0, 128) +
                     rl_run(120) + rl_pop() + rl_pop())
    s['credit-park'] = (rl_config() + no_overrun + rl_credit(0, False) + rl_post(0, 600) + rl_run(50) +
                        rl_credit(0, True) + rl_run(100) + rl_pop() + rl_credit(1, False) + rl_post(1, 64) +
                        rl_run(40) + rl_pop())
    s['full-tx-port'] = (rl_config(tx=1, mtu=64) + no_overrun + rl_post(0, 640) + rl_post(1, 640) + rl_run(200) +
                         rl_pop(1) + rl_run(30) + rl_pop(8))
    s['ranked-evictions'] = (rl_config(flows=4, desc=2, sel=RL_SCHED, sched=1) + no_overrun +
                             rl_rate(0, 1000000000) + rl_post(0, 2048) + rl_post(1, 2048) + rl_post(2, 2048) +
                             rl_rate(3, 90000000000) + rl_post(3, 2048) + rl_run(250) + rl_pop())
    s['fetch-bandwidth'] = (rl_config(flows=3, sel=RL_FETCHBW, fetch_bps=2000000000) + no_overrun +
                            rl_post(0, 512) + rl_post(1, 512) + rl_post(2, 512) + rl_run(250) + rl_pop())
    s['wrap-2-64'] = (rl_config(sel=RL_START, start=u8(1) + u16(100)) + no_overrun + rl_post(0, 1500) +
                      rl_run(60) + rl_rate(1, 0) + rl_run(150, True) + rl_pop())
    s['refused-calls'] = (rl_config() + no_overrun + u8(3) + extreme('max32') + u8(4) + extreme('hi+1') + u8(9) +
                          rl_nulls() + rl_post(0, 100) + rl_run(40) + rl_nulls() + rl_pop())
    s['source-overrun'] = (rl_config(fetch=1) + u8(31) + u8(1) + rl_post(0, 64) + rl_post(0, 64, ring=False) +
                           rl_run(100) + rl_pop())
    s['doorbell-while-draining'] = (rl_config(fetch=2) + no_overrun + rl_post(0, 64) + rl_post(0, 64) +
                                    rl_run(12) + rl_post(0, 64) + rl_run(100) + rl_pop())
    s['invalid-config'] = u8(RL_LINK) + extreme(0)
    s['many-flows-config'] = u8(0) + pow2(12)  # 4096 flows: valid, too large for a run (ENOSPC checks)
    s['rate-cut-stored'] = (rl_config(pcie_ns=8, desc=16, fetch=8) + no_overrun + rl_post(0, 2048) +
                            rl_run(20) + rl_rate(0, 200000) + rl_run(60) + rl_rate(0, 100000000000) +
                            rl_run(100) + rl_pop())
    return s


# ---- fuzz_hostcc.c ----

HC_BUF, HC_PFC, HC_PCIE, HC_IIO, HC_MEM, HC_DDIO, HC_PORTS = 1, 2, 4, 8, 16, 32, 64
HC_RXTHR, HC_RXMODE, HC_RXPORTS, HC_TXRATES, HC_TXDELAY, HC_TXPORTS = 128, 256, 512, 1024, 2048, 4096
HC_WRAP = 0x80000000


def hc_config(sel=0, fields=b'', start=None):
    """hf_config: the selector word, the wrap offset, then the selected fields in its order."""
    return u32(sel) + (u16(start) if sel & HC_WRAP else b'') + fields


def hc_push(length, flow=0, probe=False, top=None, addr=0x1000, index=0):
    k = (1 if probe else 0) | (8 if top is not None else 0)
    b = u8(0) + u8(k) + u8(flow) + (length if isinstance(length, bytes) else sane(length, 1))
    b += u16(top) if top is not None else u32(addr >> 6)
    return b + u32(0x5000) + u8(index)


def hc_level(level):
    return u8(2) + u8(1) + sane(level, 0)


def hc_cpu(bps):
    return u8(2) + u8(2 | 8) + sane(bps, 0)


def hc_ecn(on):
    return u8(2) + u8(4 | (16 if on else 0))


def hc_sample(kind=4, extra=b''):
    return u8(3) + u8(kind) + extra


def hc_tx(kind, flow, extra=b''):
    return u8(4) + u8(kind) + sane(flow, 0) + extra


def hc_open(flow, bps):
    return hc_tx(0, flow, sane(bps, 100000000))


def hc_close(flow):
    return hc_tx(1, flow)


def hc_sent(flow, n):
    return u8(5) + sane(flow, 0) + sane(n, 0)


def hc_ack(flow, back=0, ahead=0, delay=300, before=False):
    """An ACK for the oldest acceptable probe + ahead (- 2 when back), with a delay in ns."""
    k = (ahead & 3) | (4 if back else 0) | (16 if before else 0)
    return u8(6) + sane(flow, 0) + u8(k) + u32(1000) + sane(delay, 0) + (u8(5) if before else b'')


def hc_rcc(flow, bps):
    return hc_tx(4, flow, u8(0) if bps == 0 else u8(200) + sane(bps, 100000000))


def hc_run(n, to=False):
    op = 7 + 13 if to else 7  # op & 16 picks advance_to for B
    if n < 64:
        return u8(op) + u8(1) + u8(n)
    return u8(op) + u8(0) + u16(n)


def hc_pop():
    return u8(9)


def hc_nulls():
    return u8(10)


def hc_loop():
    return u8(11)


def hostcc_seeds():
    s = {}
    s['host-basic'] = hc_config() + hc_push(1000) + hc_push(64, flow=1) + hc_push(1, probe=True) + hc_run(150) + hc_pop()
    s['host-pfc-pause-resume'] = (hc_config() + hc_push(2000) * 4 + hc_run(20) + hc_pop() + hc_run(200) + hc_pop() +
                                  hc_run(100, True) + hc_pop())
    s['host-nopfc-marking'] = (hc_config(HC_PFC, u8(0) + sane(6144, 1) + sane(2048, 0) + sane(1000, 0)) +
                               hc_push(1500) * 3 + hc_ecn(True) + hc_push(100) + hc_run(120) + hc_pop())
    s['host-drop-full'] = (hc_config(HC_BUF | HC_PFC, sane(2048, 1024) + sane(4, 1) + u8(1) + sane(1500, 1) +
                                     sane(500, 0) + sane(1000, 0)) + hc_push(1500) * 3 + hc_run(60) + hc_pop())
    s['host-bad-packets'] = (hc_config() + hc_push(extreme(0)) + hc_push(extreme('max32')) + hc_push(8, top=3) +
                             hc_push(100, top=0x26) + hc_nulls() + hc_run(100) + hc_pop())
    s['host-ddio-cpu-mba'] = (hc_config(HC_DDIO | HC_MEM, sane(30000000000, 1000000000) + sane(16, 1) +
                                        sane(30000000000, 0) + sane(2, 0) + sane(2, 1) + sane(8, 1) + sane(500000, 0)) +
                              hc_push(1024) + hc_push(1024) + hc_run(100) + hc_level(4) + hc_level(6) +
                              hc_cpu(10 ** 12) + hc_run(100) + hc_pop() + hc_cpu(0) + hc_run(50) + hc_pop())
    s['host-credit-stall'] = (hc_config(HC_PCIE | HC_IIO, sane(200000000000, 1000000000) + sane(400, 0) +
                                        sane(512, 64) + sane(24, 0) + sane(9, 9) + sane(2, 1) + sane(4, 2)) +
                              hc_push(2048) * 2 + hc_run(200) + hc_pop())
    s['rx-samples'] = (hc_config() + hc_push(2000) + hc_sample() + hc_run(40) + hc_sample() + hc_sample(0, u8(0)) +
                       hc_sample(1, extreme('max64')) + hc_sample(3, u8(1)) + hc_sample(2, u16(5) + u16(60000)) +
                       hc_run(20) + hc_sample() + hc_pop())
    s['rx-mba-closed-loop'] = (hc_config(HC_RXTHR | HC_MEM, sane(8000000000, 1000000000) + sane(16, 1) +
                                         sane(9000000000, 0) + sane(0, 0) + sane(2, 1) + sane(1, 0) + sane(1, 1) +
                                         sane(0, 0) + u8(1)) +
                               hc_open(0, 100000000000) + hc_push(2000) * 3 + hc_loop() * 3 + hc_push(2000) * 3 +
                               hc_loop() * 3 + hc_pop())
    s['rx-ecn-mode'] = (hc_config(HC_RXMODE, sane(0, 0) + sane(1, 0) + sane(48, 8) + sane(4096, 1)) +
                        hc_push(2000) * 3 + hc_loop() * 4 + hc_pop())
    s['tx-flows-acks'] = (hc_config() + hc_open(0, 50000000000) + hc_open(1, 1) + hc_open(0, 1) + hc_sent(0, 3000) +
                          hc_run(3) + hc_pop() + hc_ack(0) + hc_ack(0) + hc_ack(0, ahead=1, delay=5000) +
                          hc_ack(0, back=1) + hc_ack(0, ahead=3) + hc_ack(0, before=True) +
                          hc_ack(0, delay=2000000) + hc_rcc(0, 0) + hc_rcc(1, 10 ** 13) + hc_run(3) + hc_pop() +
                          hc_close(0) + hc_close(0) + hc_sent(0, 10) + hc_open(0, 10 ** 9) + hc_run(2) + hc_pop())
    s['tx-full-ports'] = (hc_config(HC_TXPORTS, sane(1, 1) + sane(1, 1) + u32(77)) + hc_open(0, 10 ** 10) +
                          hc_open(1, 10 ** 10) + hc_sent(0, 4000) + hc_sent(1, 4000) + hc_run(5) + hc_pop() +
                          hc_run(5, True) + hc_pop())
    s['wrap-2-64'] = (hc_config(HC_WRAP, start=40) + hc_open(0, 10 ** 10) + hc_push(1500) + hc_loop() * 3 +
                      hc_run(100, True) + hc_pop())
    s['invalid-config'] = hc_config(HC_BUF, extreme(0) + sane(1, 1))
    s['large-config'] = hc_config(HC_TXRATES, sane(10 ** 10, 1000000000) + sane(1, 1) + extreme('hi+1'))
    return s


def main():
    which = sys.argv[1:] or ['ratelimit', 'hostcc']
    for name in which:
        seeds = {'ratelimit': ratelimit_seeds, 'hostcc': hostcc_seeds}[name]()
        out = os.path.join(HERE, 'corpus', name)
        os.makedirs(out, exist_ok=True)
        for key, data in sorted(seeds.items()):
            with open(os.path.join(out, 'seed-' + key), 'wb') as f:
                f.write(data)
        print('%s: %d seeds in %s' % (name, len(seeds), out))


if __name__ == '__main__':
    main()
