#!/usr/bin/env python3
"""Tests of tools/share_ref.py (the independent reference for expected tenant shares). Hand-solved
cases with the arithmetic written out here, a seeded property test against a feasibility and
fairness checker written independently of the solver, bad input, and --compare / --per-flow.
RNIC_TEST_SEED replays a property-test seed. Ends with "N passed, N failed"."""
import csv
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "share_ref.py")
spec = importlib.util.spec_from_file_location("share_ref", TOOL)
share_ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(share_ref)

G = 1e9
C = 100 * G                 # every link's bps unless a case says otherwise
PAYLOAD, OVERHEAD, ACK = 1024, 82, 86
D = (PAYLOAD + OVERHEAD) / PAYLOAD   # wire bits per payload bit on a data link
A = ACK / PAYLOAD                    # wire bits per payload bit on an ACK link
passed = failed = 0


def case(fn):
    global passed, failed
    try:
        fn()
    except Exception as e:  # an assertion, or the solver raising: either fails this case only
        failed += 1
        print(f"not ok {fn.__name__}: {type(e).__name__}: {e}")
        return
    passed += 1
    print(f"ok {fn.__name__}")
    return fn


def near(got, want, what, rel=1e-7):  # the solver stops within 1e-9 of the fastest link
    assert abs(got - want) <= rel * max(abs(want), 1.0), f"{what}: got {got!r}, want {want!r}"


# ---------------------------------------------------------------- building inputs
def star(hosts, tenants, flows, host_rx=0, uplink_bps=C, downlink_bps=C):
    """hosts on one switch: host h's uplink is link 2h, its downlink 2h+1. tenants: [(weight,
    cap_bps)]; flows: [(src, dst, tenant)]. Data crosses src's uplink and dst's downlink, ACKs
    dst's uplink and src's downlink."""
    links = []
    for h in range(hosts):
        links.append({"id": 2 * h, "bps": uplink_bps, "from": f"h{h}", "to": "s0"})
        links.append({"id": 2 * h + 1, "bps": downlink_bps, "from": "s0", "to": f"h{h}"})
    return {"payload": PAYLOAD, "wire_overhead": OVERHEAD, "ack_wire": ACK, "links": links,
            "nics": [{"host": h, "uplink": 2 * h} for h in range(hosts)],
            "tenants": [{"id": i, "weight": w, "cap_bps": c} for i, (w, c) in enumerate(tenants)],
            "flows": [{"id": i, "src": s, "dst": d, "tenant": t, "path": [2 * s, 2 * d + 1],
                       "ack_path": [2 * d, 2 * s + 1]} for i, (s, d, t) in enumerate(flows)],
            "host_rx_bps": host_rx}


def solve(doc):
    rate, labels = share_ref.solve(share_ref.load(doc))
    return rate, labels


def tenant_sums(doc, rate):
    out = {}
    for f, r in zip(doc["flows"], rate):
        out[f["tenant"]] = out.get(f["tenant"], 0.0) + r
    return out


def run_cli(doc, *args, doc_text=None):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "flows.json")
        with open(path, "w") as fh:
            fh.write(doc_text if doc_text is not None else json.dumps(doc))
        extra = []
        for a in args:
            if isinstance(a, tuple):  # ("file", name, text): written beside flows.json
                p = os.path.join(d, a[1])
                with open(p, "w") as fh:
                    fh.write(a[2])
                extra.append(p)
            else:
                extra.append(a)
        p = subprocess.run([sys.executable, TOOL, path, *extra], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def result_fields(stdout):
    line = next(l for l in stdout.splitlines() if l.startswith("RESULT "))
    return dict(kv.split("=", 1) for kv in line.split()[1:])


# ---------------------------------------------------------------- hand-solved cases
@case
def test_one_nic_weights_1_3_and_3_1():
    # The uplink binds: its payload capacity C/D divided 1:3 by Palos. The switch's downlink carries
    # exactly what the NIC shaped, so it is full but does not redivide (the NIC's division stands).
    for w0, w1 in ((1, 3), (3, 1)):
        doc = star(2, [(w0, 0), (w1, 0)], [(0, 1, 0), (0, 1, 1)])
        rate, labels = solve(doc)
        near(rate[0], C / D * w0 / 4, f"tenant 0 at {w0}:{w1}")
        near(rate[1], C / D * w1 / 4, f"tenant 1 at {w0}:{w1}")
        assert labels == ["nic:0", "nic:0"], labels
        code, out, err = run_cli(doc)
        assert code == 0, err
        f = result_fields(out)
        assert f["share_ref"] == "1" and f["flows"] == "2" and f["tenants"] == "2", out
        near(float(f["tenant0_gbps"]), C / D * w0 / 4 / G, "RESULT tenant0", rel=1e-6)
        near(float(f["total_gbps"]), C / D / G, "RESULT total", rel=1e-6)


@case
def test_one_nic_tenant_with_fewer_qps():
    # Weights divide among tenants, then equally among a tenant's QPs: 1 QP vs 3 QPs at weight 1:1
    # gives each tenant half, the 3 QPs a sixth each.
    doc = star(2, [(1, 0), (1, 0)], [(0, 1, 0), (0, 1, 1), (0, 1, 1), (0, 1, 1)])
    rate, _ = solve(doc)
    near(rate[0], C / D / 2, "tenant 0's single QP")
    for i in (1, 2, 3):
        near(rate[i], C / D / 6, f"tenant 1's QP {i}")


@case
def test_incast_2_to_1_equal_per_qp():
    # The receiver's downlink binds; congestion control divides it per QP whatever the weights:
    # tenant 0 (weight 1) has 2 QPs on host 0, tenant 1 (weight 3) 1 QP on host 1: 3 r D = C.
    doc = star(3, [(1, 0), (3, 0)], [(0, 2, 0), (0, 2, 0), (1, 2, 1)])
    rate, labels = solve(doc)
    for i in range(3):
        near(rate[i], C / (3 * D), f"QP {i}")
    assert labels == ["link:5"] * 3, labels
    sums = tenant_sums(doc, rate)
    near(sums[0], 2 * C / (3 * D), "tenant 0")
    near(sums[1], C / (3 * D), "tenant 1")


@case
def test_incast_fewer_qps_gets_less():
    # Per-QP max-min in the network: 1 QP against 3 QPs is 1/4 against 3/4.
    doc = star(3, [(1, 0), (1, 0)], [(0, 2, 0), (1, 2, 1), (1, 2, 1), (1, 2, 1)])
    sums = tenant_sums(doc, solve(doc)[0])
    near(sums[0], C / D / 4, "tenant 0")
    near(sums[1], 3 * C / D / 4, "tenant 1")


@case
def test_incast_cap_on_one_tenant():
    # Tenant 0 capped at 10 Gb/s per QP (2 QPs): the cap binds, tenant 1's 2 QPs share the rest.
    doc = star(3, [(1, 10 * G), (1, 0)], [(0, 2, 0), (0, 2, 0), (1, 2, 1), (1, 2, 1)])
    rate, labels = solve(doc)
    near(rate[0], 10 * G, "capped QP")
    near(rate[2], (C / D - 20 * G) / 2, "uncapped QP")
    assert labels == ["cap", "cap", "link:5", "link:5"], labels


@case
def test_incast_caps_on_both():
    # Both caps bind (20 + 60 < C/D): each tenant gets exactly its caps.
    doc = star(3, [(1, 10 * G), (1, 30 * G)], [(0, 2, 0), (0, 2, 0), (1, 2, 1), (1, 2, 1)])
    sums = tenant_sums(doc, solve(doc)[0])
    near(sums[0], 20 * G, "tenant 0")
    near(sums[1], 60 * G, "tenant 1")
    # Tenant 1's cap above its share: tenant 0 at its caps, tenant 1 the rest (below its cap).
    doc = star(3, [(1, 10 * G), (1, 50 * G)], [(0, 2, 0), (0, 2, 0), (1, 2, 1), (1, 2, 1)])
    sums = tenant_sums(doc, solve(doc)[0])
    near(sums[0], 20 * G, "tenant 0, second pair")
    near(sums[1], C / D - 20 * G, "tenant 1, second pair")


@case
def test_cap_at_nic_frees_the_rest_to_the_other_tenant():
    # One NIC, weight 3:1, the heavy tenant capped at 10 Gb/s: the light one gets the rest.
    doc = star(2, [(3, 10 * G), (1, 0)], [(0, 1, 0), (0, 1, 1)])
    rate, labels = solve(doc)
    near(rate[0], 10 * G, "capped heavy tenant")
    near(rate[1], C / D - 10 * G, "light tenant")
    assert labels[0] == "cap", labels


@case
def test_receiver_memory_limit():
    # host_rx_bps = 40 Gb/s caps host 2's absorbed payload, split max-min: 20 each.
    doc = star(3, [(1, 0), (1, 0)], [(0, 2, 0), (1, 2, 1)], host_rx=40 * G)
    rate, labels = solve(doc)
    near(rate[0], 20 * G, "QP 0")
    near(rate[1], 20 * G, "QP 1")
    assert labels == ["host_rx:2", "host_rx:2"], labels
    # With one flow capped at 5 Gb/s the other takes the remaining 35.
    doc = star(3, [(1, 5 * G), (1, 0)], [(0, 2, 0), (1, 2, 1)], host_rx=40 * G)
    rate, _ = solve(doc)
    near(rate[1], 35 * G, "uncapped QP beside a capped one")
    # A limit above the downlink's payload capacity does not bind.
    doc = star(3, [(1, 0), (1, 0)], [(0, 2, 0), (1, 2, 1)], host_rx=95 * G)
    rate, labels = solve(doc)
    near(rate[0], C / (2 * D), "limit above the link")
    assert labels == ["link:5", "link:5"], labels


def synthetic(links, nics, tenants, flows, host_rx=0):
    """links: {id: bps}; nics: {host: uplink}; tenants: [(weight, cap)]; flows: [(src, dst,
    tenant, path, ack_path)]."""
    return {"payload": PAYLOAD, "wire_overhead": OVERHEAD, "ack_wire": ACK,
            "links": [{"id": i, "bps": b} for i, b in links.items()],
            "nics": [{"host": h, "uplink": u} for h, u in nics.items()],
            "tenants": [{"id": i, "weight": w, "cap_bps": c} for i, (w, c) in enumerate(tenants)],
            "flows": [{"id": i, "src": s, "dst": d, "tenant": t, "path": p, "ack_path": a}
                      for i, (s, d, t, p, a) in enumerate(flows)],
            "host_rx_bps": host_rx}


@case
def test_acks_share_a_link_with_data():
    # Link 10 carries flow 0's data and flow 1's ACKs; both rise together until it fills:
    # D r + A r = C. Flow 1 freezes there through its ACK path (its own link 11 is not full).
    links = {0: 4 * C, 1: 4 * C, 10: C, 11: C, 12: C}
    doc = synthetic(links, {0: 0, 1: 1}, [(1, 0)],
                    [(0, 2, 0, [0, 10], [12]), (1, 3, 0, [1, 11], [10])])
    rate, labels = solve(doc)
    near(rate[0], C / (D + A), "data flow")
    near(rate[1], C / (D + A), "flow whose ACKs cross the link")
    assert labels == ["link:10", "link:10"], labels
    # Flow 1 capped at 50 Gb/s: its ACKs still take A * 50 G of link 10, flow 0 gets the rest.
    doc = synthetic(links, {0: 0, 1: 1}, [(1, 0), (1, 50 * G)],
                    [(0, 2, 0, [0, 10], [12]), (1, 3, 1, [1, 11], [10])])
    rate, _ = solve(doc)
    near(rate[1], 50 * G, "capped flow")
    near(rate[0], (C - A * 50 * G) / D, "data flow beside capped ACKs")


@case
def test_a_flows_own_ack_wire():
    # The first case with flow 1's responder coalescing ACKs 8:1 (its own ack_wire = ACK / 8):
    # link 10 fills at D r + (A / 8) r = C; an own ack_wire equal to the top level's changes
    # nothing, 0 takes flow 1's ACKs off link 10 (flow 0 alone fills it: C / D), and a negative
    # one is bad input.
    links = {0: 4 * C, 1: 4 * C, 10: C, 11: C, 12: C}
    flows = [(0, 2, 0, [0, 10], [12]), (1, 3, 0, [1, 11], [10])]
    for own, want0 in ((ACK / 8, C / (D + A / 8)), (ACK, C / (D + A)), (0, C / D)):
        doc = synthetic(links, {0: 0, 1: 1}, [(1, 0)], flows)
        doc["flows"][1]["ack_wire"] = own
        rate, _ = solve(doc)
        near(rate[0], want0, "data flow beside ACKs of %s B per packet" % own)
    doc["flows"][1]["ack_wire"] = -1
    code, _, err = run_cli(doc)
    assert code == 2 and "ack_wire" in err, (code, err)


@case
def test_ack_priority_acks_come_off_the_top_everywhere():
    # The case above with --ack-priority: flow 1's ACKs go first on link 10 and never hold it;
    # flow 1 fills its own link 11 (C / D) and flow 0 gets what its ACKs leave of link 10.
    links = {0: 4 * C, 1: 4 * C, 10: C, 11: C, 12: C}
    doc = synthetic(links, {0: 0, 1: 1}, [(1, 0)],
                    [(0, 2, 0, [0, 10], [12]), (1, 3, 0, [1, 11], [10])])
    rate, labels = share_ref.solve(share_ref.load(doc), True)
    near(rate[1], C / D, "flow whose ACKs cross link 10")
    near(rate[0], (C - A * C / D) / D, "data flow on link 10")
    assert labels == ["link:10", "link:11"], labels
    # ACKs alone filling a link (12 hosts' worth of data coming back on one slow link) do hold
    # the flows they acknowledge, equally.
    links = {0: 4 * C, 1: 4 * C, 10: 4 * C, 11: 4 * C, 12: 5 * G}
    doc = synthetic(links, {0: 0, 1: 1}, [(1, 0)],
                    [(0, 2, 0, [0, 10], [12]), (1, 3, 0, [1, 11], [12])])
    rate, labels = share_ref.solve(share_ref.load(doc), True)
    near(rate[0], 5 * G / (2 * A), "first flow held by its ACKs")
    near(rate[1], 5 * G / (2 * A), "second flow held by its ACKs")
    assert labels == ["acks:12", "acks:12"], labels
    code, out, err = run_cli(doc, "--ack-priority", "--per-flow")
    assert code == 0 and out.count("acks:12") == 2, (code, out, err)


@case
def test_full_duplex_ring_keeps_the_weights():
    # Three hosts in a ring, each sending two tenants (1:3) to the next and receiving from the one
    # before: every uplink carries its NIC's data and the ACKs of what it receives, every downlink
    # the data one NIC shaped and the ACKs of what its host sends -- the same load, so each NIC's
    # payload capacity is S = C / (D + A) and every downlink is exactly full at the weights (a
    # tie: its max-min could hold too). The NIC's division stands: S / 4 and 3 S / 4.
    s_nic = C / (D + A)
    for prio in (False, True):
        doc = star(3, [(1, 0), (3, 0)], [(h, (h + 1) % 3, t) for h in range(3) for t in (0, 1)])
        rate, _ = share_ref.solve(share_ref.load(doc), prio)
        for h in range(3):
            near(rate[2 * h], s_nic / 4, f"host {h}'s weight-1 tenant, ack_priority={prio}", rel=1e-6)
            near(rate[2 * h + 1], 3 * s_nic / 4, f"host {h}'s weight-3 tenant, ack_priority={prio}", rel=1e-6)


@case
def test_acks_on_an_uplink_come_off_the_top():
    # Host 0 sends flow 0 and receives flow 1 (capped at 40 Gb/s) whose ACKs leave on host 0's
    # uplink ahead of Palos: flow 0 gets (C - A * 40 G) / D.
    doc = star(2, [(1, 0), (1, 40 * G)], [(0, 1, 0), (1, 0, 1)])
    rate, labels = solve(doc)
    near(rate[1], 40 * G, "capped reverse flow")
    near(rate[0], (C - A * 40 * G) / D, "forward flow")
    assert labels == ["nic:0", "cap"], labels


@case
def test_parking_lot():
    # Links 10, 11, 12 in a row; the long flow crosses all three, one short flow each on 10 and 11:
    # classic max-min, everyone half. Uplinks fast, ACKs on their own links.
    links = {0: 4 * C, 1: 4 * C, 2: 4 * C, 10: C, 11: C, 12: C, 20: C, 21: C, 22: C}
    nics = {0: 0, 1: 1, 2: 2}
    doc = synthetic(links, nics, [(1, 0)],
                    [(0, 5, 0, [0, 10, 11, 12], [20]), (1, 6, 0, [1, 10], [21]), (2, 7, 0, [2, 11], [22])])
    rate, _ = solve(doc)
    for i in range(3):
        near(rate[i], C / (2 * D), f"flow {i}")
    # Two short flows on link 10: it gives a third each, and the short flow on 11 takes the rest.
    doc = synthetic({**links, 3: 4 * C}, {0: 0, 1: 1, 2: 2, 3: 3}, [(1, 0)],
                    [(0, 5, 0, [0, 10, 11, 12], [20]), (1, 6, 0, [1, 10], [21]),
                     (2, 7, 0, [2, 11], [22]), (3, 8, 0, [3, 10], [21])])
    rate, labels = solve(doc)
    near(rate[0], C / (3 * D), "long flow")
    near(rate[1], C / (3 * D), "short flow on 10")
    near(rate[2], C / D - C / (3 * D), "short flow on 11")
    assert labels == ["link:10", "link:10", "link:11", "link:10"], labels


@case
def test_network_binds_weighted_tenants_equally():
    # Weights 1:3 at one NIC, both QPs crossing a 60 Gb/s link: the network binds, per QP equal.
    links = {0: C, 10: 60 * G, 20: C}
    doc = synthetic(links, {0: 0}, [(1, 0), (3, 0)],
                    [(0, 1, 0, [0, 10], [20]), (0, 1, 1, [0, 10], [20])])
    rate, _ = solve(doc)
    near(rate[0], 60 * G / (2 * D), "weight 1")
    near(rate[1], 60 * G / (2 * D), "weight 3")


@case
def test_nic_is_work_conserving_around_a_network_limit():
    # Weights 1:3 at one NIC; the heavy QP alone crosses a 40 Gb/s link: it gets 40 / D and the
    # light QP takes the rest of the NIC (more than its quarter).
    links = {0: C, 10: 40 * G, 11: C, 20: C}
    doc = synthetic(links, {0: 0}, [(1, 0), (3, 0)],
                    [(0, 1, 0, [0, 11], [20]), (0, 2, 1, [0, 10], [20])])
    rate, labels = solve(doc)
    near(rate[1], 40 * G / D, "heavy QP behind the network limit")
    near(rate[0], (C - 40 * G) / D, "light QP")
    assert labels == ["nic:0", "link:10"], labels


@case
def test_fixed_point_converges_where_plain_iteration_cycles():
    # Host 2's NIC (25 G) sends flows 1, 2 (tenant 0, weight 2) and 4 (tenant 2, weight 4); host 0
    # absorbs at most 22 G, from flows 0 and 4 (11 each); so tenant 2 uses 11 of NIC 2's
    # 25 G / D and tenant 0's two QPs split the rest, which also just fills link 101 beside flow 0.
    # Flow 3 alone into host 1: 22. Undamped, the NIC and the network answer each other in turn
    # and the iteration cycles between two points (kept as a check that damping is needed).
    links = {0: 50 * G, 1: 50 * G, 2: 25 * G, 3: 50 * G, 100: 200 * G, 101: 25 * G, 102: 200 * G,
             103: 200 * G, 104: 25 * G, 105: 200 * G}
    doc = synthetic(links, {h: h for h in range(4)}, [(2, 0), (3, 0), (4, 0)],
                    [(1, 0, 1, [1, 100, 101, 102], [0]), (2, 3, 0, [2, 101, 105], [3, 104]),
                     (2, 3, 0, [2, 100, 101], [3]), (3, 1, 2, [3, 102, 103, 105], [1, 104, 105]),
                     (2, 0, 2, [2, 100, 104, 105], [0])], host_rx=22 * G)
    rate, _ = solve(doc)
    for i, want in enumerate([11 * G, (25 * G / D - 11 * G) / 2, (25 * G / D - 11 * G) / 2, 22 * G, 11 * G]):
        near(rate[i], want, f"flow {i}")
    saved = share_ref.DAMPING, share_ref.MIN_STEP, share_ref.MAX_ROUNDS
    share_ref.DAMPING, share_ref.MIN_STEP, share_ref.MAX_ROUNDS = 1.0, 1.0, 200   # every step whole
    try:
        solve(doc)
        cycled = False
    except RuntimeError:
        cycled = True
    finally:
        share_ref.DAMPING, share_ref.MIN_STEP, share_ref.MAX_ROUNDS = saved
    assert cycled, "the plain iteration converged here: this case no longer shows why damping is needed"


# ---------------------------------------------------------------- the property test
def splitmix64(state):
    state[0] = (state[0] + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = state[0]
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def below(state, n):
    return splitmix64(state) % n


def random_case(state):
    hosts, nets, ntenants = 2 + below(state, 6), 1 + below(state, 7), 1 + below(state, 3)
    speeds = [25 * G, 50 * G, 100 * G, 200 * G]
    links = {h: speeds[below(state, 4)] for h in range(hosts)}               # uplinks 0..hosts-1
    net_ids = [100 + i for i in range(nets)]
    for i in net_ids:
        links[i] = speeds[below(state, 4)]
    tenants = [(1 + below(state, 4), 0 if below(state, 2) else (1 + below(state, 60)) * G)
               for _ in range(ntenants)]
    flows = []
    for _ in range(1 + below(state, 12)):
        src = below(state, hosts)
        dst = (src + 1 + below(state, hosts - 1)) % hosts
        pick = [i for i in net_ids if below(state, 3) == 0]
        acks = [i for i in net_ids if below(state, 4) == 0 and i not in pick[:1]]
        if below(state, 2):
            acks = [dst] + acks                                              # ACKs leave dst's uplink
        flows.append((src, dst, below(state, ntenants), [src] + pick, acks))
    host_rx = 0 if below(state, 3) else (10 + below(state, 150)) * G
    return synthetic(links, {h: h for h in range(hosts)}, tenants, flows, host_rx)


def check_fair(doc, rate, ack_priority=False):
    """Independent of the solver: feasibility (no link over capacity counting data and ACK bytes,
    no cap exceeded, no receiving host over host_rx_bps) and fairness (each flow below its cap has
    a bottleneck: a full network link where no flow counted there has a larger rate, a full
    receiving host where no incoming flow has more, its full uplink where it has the largest rate
    of its tenant there and its tenant the largest rate per weight, or an uplink on its ACK path
    that ACKs alone fill, where no flow's ACKs there have a larger rate). With ack_priority ACKs go
    first on every link: only data counts at a full link, and any link its ACKs alone fill holds
    a flow. Returns a list of faults."""
    tol, faults = 1e-6, []
    bps = {l["id"]: l["bps"] for l in doc["links"]}
    uplinks = {n["uplink"] for n in doc["nics"]}
    tenants = {t["id"]: t for t in doc["tenants"]}
    load, on, data_on = {l: 0.0 for l in bps}, {l: set() for l in bps}, {l: set() for l in bps}
    for i, f in enumerate(doc["flows"]):
        for l in f["path"]:
            load[l] += D * rate[i]
            on[l].add(i)
            data_on[l].add(i)
        for l in f["ack_path"]:
            load[l] += A * rate[i]
            on[l].add(i)
    full = {l for l in bps if load[l] >= bps[l] * (1 - tol)}
    for l in bps:
        if load[l] > bps[l] * (1 + tol):
            faults.append(f"link {l} over capacity: {load[l]:.6g} > {bps[l]:.6g}")
    rx = {}
    for i, f in enumerate(doc["flows"]):
        rx.setdefault(f["dst"], []).append(i)
    hrx = doc["host_rx_bps"]
    for h, idx in rx.items():
        if hrx and sum(rate[i] for i in idx) > hrx * (1 + tol):
            faults.append(f"host {h} absorbs more than host_rx_bps")
    for i, f in enumerate(doc["flows"]):
        cap = tenants[f["tenant"]]["cap_bps"]
        if rate[i] < -tol:
            faults.append(f"flow {i} negative")
        if cap and rate[i] > cap * (1 + tol):
            faults.append(f"flow {i} over its cap")
        if cap and rate[i] >= cap * (1 - tol):
            continue
        ok = False
        if ack_priority:
            held_at = [(l, data_on[l]) for l in f["path"][1:]]
        else:
            held_at = [(l, on[l]) for l in list(f["path"][1:]) + [l for l in f["ack_path"] if l not in uplinks]]
        for l, counted in held_at:
            if l in full and all(rate[i] >= rate[j] * (1 - tol) for j in counted):
                ok = True
        for l in f["ack_path"]:  # a link that sends ACKs first binds them only when they alone fill it
            if l in uplinks or ack_priority:
                acks = [j for j, g in enumerate(doc["flows"]) if l in g["ack_path"]]
                if A * sum(rate[j] for j in acks) >= bps[l] * (1 - tol) and \
                        all(rate[i] >= rate[j] * (1 - tol) for j in acks):
                    ok = True
        idx = rx[f["dst"]]
        if hrx and sum(rate[j] for j in idx) >= hrx * (1 - tol) and all(rate[i] >= rate[j] * (1 - tol) for j in idx):
            ok = True
        up = f["path"][0]
        if up in full:
            local = [j for j, g in enumerate(doc["flows"]) if g["path"][0] == up]
            mine = [j for j in local if doc["flows"][j]["tenant"] == f["tenant"]]
            per_weight = {}
            for j in local:
                t = doc["flows"][j]["tenant"]
                per_weight[t] = per_weight.get(t, 0.0) + rate[j] / tenants[t]["weight"]
            if all(rate[i] >= rate[j] * (1 - tol) for j in mine) and \
                    all(per_weight[f["tenant"]] >= v * (1 - tol) for v in per_weight.values()):
                ok = True
        if not ok:
            faults.append(f"flow {i} (rate {rate[i]:.6g}) has no bottleneck")
    return faults


@case
def test_checker_catches_unfair_and_infeasible():
    # The checker itself: it must reject an allocation that leaves room, one that is unfair at a
    # link, one that breaks the weights at a NIC, and one over a link.
    doc = star(3, [(1, 0), (1, 0)], [(0, 2, 0), (1, 2, 1)])
    fair = C / (2 * D)
    assert check_fair(doc, [fair, fair]) == []
    assert check_fair(doc, [fair * 0.9, fair * 0.9]), "room left"
    assert check_fair(doc, [fair * 0.5, fair * 1.5]), "unfair at the downlink"
    assert check_fair(doc, [fair * 1.1, fair]), "over the downlink"
    # Downlinks fast enough that only the NIC can bind.
    doc = star(2, [(1, 0), (3, 0)], [(0, 1, 0), (0, 1, 1)], downlink_bps=4 * C)
    assert check_fair(doc, [C / D / 4, 3 * C / D / 4]) == []
    assert check_fair(doc, [C / D / 2, C / D / 2]), "weights ignored at the NIC"


@case
def test_greedy_equal_share_against_bisection():
    # The NIC's within-tenant split for a backlogged flow, checked against a bisection on the
    # level phi: sum over the others of min(demand, phi), plus phi, equals the budget.
    state = [int(os.environ.get("RNIC_TEST_SEED", "0x5a4e"), 0) ^ 0x9e]
    for n in range(300):
        m = 1 + below(state, 9)
        budget = float(below(state, 100))
        demands = [[0.0, 5.0, float("inf")][below(state, 3)] if below(state, 4) == 0 else float(below(state, 60))
                   for _ in range(m)]
        got = share_ref.greedy_equal_shares(budget, demands)
        for i in range(m):
            lo, hi = 0.0, budget
            for _ in range(200):
                mid = (lo + hi) / 2
                if sum(min(d, mid) for j, d in enumerate(demands) if j != i) + mid <= budget:
                    lo = mid
                else:
                    hi = mid
            near(got[i], lo, f"case {n} item {i} of {demands} budget {budget}", rel=1e-9)


@case
def test_random_feasible_and_max_min_fair():
    seed = int(os.environ.get("RNIC_TEST_SEED", "0x5a4e"), 0)
    print(f"seed {seed}")
    state, runs, kinds = [seed], 400, {}
    for n in range(runs):
        doc = random_case(state)
        ack_priority = n % 4 == 3                    # a quarter of the cases with ACKs first everywhere
        rate, labels = share_ref.solve(share_ref.load(doc), ack_priority)
        faults = check_fair(doc, rate, ack_priority)
        assert not faults, f"case {n} (ack_priority {ack_priority}): {faults[:3]}: {json.dumps(doc)}"
        for label in labels:
            kinds[label.split(":")[0]] = kinds.get(label.split(":")[0], 0) + 1
    # The cases must reach every kind of bottleneck, or the property proves little.
    for kind in ("cap", "nic", "link", "host_rx"):
        assert kinds.get(kind, 0) >= 50, f"only {kinds.get(kind, 0)} flows bound by {kind}: {kinds}"
    print(f"  {runs} random cases, flows per bottleneck kind: {kinds}")


def leaf_spine_case(state):
    """A real shape: leaves x hosts per leaf, spines; every link both ways at its tier's speed;
    each flow's data goes up through a random spine (ECMP) and its ACKs come back the same way
    or through another spine."""
    leaves, per, spines = 2 + below(state, 3), 1 + below(state, 3), 1 + below(state, 3)
    speeds = [25 * G, 50 * G, 100 * G]
    host_bps, fabric_bps = speeds[below(state, 3)], speeds[below(state, 3)]
    links, ids = {}, {}

    def link(a, b, bps):
        ids[a, b] = len(links)
        links[len(links)] = bps

    hosts = leaves * per
    for h in range(hosts):
        link(("h", h), ("l", h // per), host_bps)
        link(("l", h // per), ("h", h), host_bps)
    for l in range(leaves):
        for sp in range(spines):
            link(("l", l), ("s", sp), fabric_bps)
            link(("s", sp), ("l", l), fabric_bps)

    def route(a, b):
        la, lb = ("l", a // per), ("l", b // per)
        if la == lb:
            return [ids[("h", a), la], ids[la, ("h", b)]]
        sp = ("s", below(state, spines))
        return [ids[("h", a), la], ids[la, sp], ids[sp, lb], ids[lb, ("h", b)]]

    ntenants = 1 + below(state, 3)
    tenants = [(1 + below(state, 4), 0 if below(state, 3) else (1 + below(state, 40)) * G)
               for _ in range(ntenants)]
    flows = []
    for _ in range(1 + below(state, 16)):
        src = below(state, hosts)
        dst = (src + 1 + below(state, hosts - 1)) % hosts
        flows.append((src, dst, below(state, ntenants), route(src, dst), route(dst, src)))
    host_rx = 0 if below(state, 3) else (10 + below(state, 90)) * G
    return synthetic(links, {h: ids[("h", h), ("l", h // per)] for h in range(hosts)}, tenants, flows, host_rx)


@case
def test_random_leaf_spine_feasible_and_fair():
    seed = int(os.environ.get("RNIC_TEST_SEED", "0x5a4e"), 0) ^ 0x1eaf
    state = [seed]
    for n in range(200):
        doc = leaf_spine_case(state)
        ack_priority = n % 2 == 1
        rate, labels = share_ref.solve(share_ref.load(doc), ack_priority)
        faults = check_fair(doc, rate, ack_priority)
        assert not faults, f"case {n} (ack_priority {ack_priority}): {faults[:3]}: {json.dumps(doc)}"
        assert not any(l.startswith("acks:") for l in labels), f"case {n}: ACKs alone filled an uplink: {labels}"


# ---------------------------------------------------------------- bad input
@case
def test_bad_input_exits_2_with_a_clear_message():
    good = star(3, [(1, 0), (1, 0)], [(0, 2, 0), (1, 2, 1)])
    code, out, err = run_cli(good)
    assert code == 0 and "RESULT" in out, (code, out, err)

    def mutate(fn):
        doc = json.loads(json.dumps(good))
        fn(doc)
        return doc

    cases = [
        (mutate(lambda d: d.pop("flows")), "missing key 'flows'"),
        (mutate(lambda d: d.pop("payload")), "missing key 'payload'"),
        (mutate(lambda d: d["links"][0].pop("bps")), "links[0]: missing key 'bps'"),
        (mutate(lambda d: d["flows"][1].pop("path")), "flows[1]: missing key 'path'"),
        (mutate(lambda d: d["tenants"][0].pop("weight")), "tenants[0]: missing key 'weight'"),
        (mutate(lambda d: d["links"][2].update(bps=-1)), "links[2]: 'bps' must be > 0"),
        (mutate(lambda d: d["tenants"][1].update(weight=-3)), "tenants[1]: 'weight' must be > 0"),
        (mutate(lambda d: d["tenants"][1].update(cap_bps=-5)), "tenants[1]: 'cap_bps' must be >= 0"),
        (mutate(lambda d: d.update(host_rx_bps=-1)), "'host_rx_bps' must be >= 0"),
        (mutate(lambda d: d.update(wire_overhead=-82)), "'wire_overhead' must be >= 0"),
        (mutate(lambda d: d.update(payload=0)), "'payload' must be > 0"),
        (mutate(lambda d: d["flows"][0].update(path=[0, 99])), "flows[0]: path[1] = 99 is not a link id"),
        (mutate(lambda d: d["flows"][0].update(ack_path=[77])), "flows[0]: ack_path[0] = 77 is not a link id"),
        (mutate(lambda d: d["nics"][0].update(uplink=42)), "nics[0]: uplink 42 is not a link id"),
        (mutate(lambda d: d["flows"][0].update(tenant=9)), "tenant 9 is not in 'tenants'"),
        (mutate(lambda d: d["flows"][0].update(path=[5])), "not at host 0's uplink 0"),
        (mutate(lambda d: d["flows"][0].update(src=2)), "src and dst are both host 2"),
        (mutate(lambda d: d["links"][0].update(bps="fast")), "'bps' must be a number"),
        (mutate(lambda d: d["links"][0].update(id=1)), "duplicate link id 1"),
        (mutate(lambda d: d.update(flows={})), "'flows' must be a list"),
    ]
    for doc, want in cases:
        code, out, err = run_cli(doc)
        assert code == 2, f"{want}: exit {code}, stderr {err!r}"
        assert want in err, f"stderr {err!r} lacks {want!r}"
        assert "RESULT" not in out, out
    code, out, err = run_cli(None, doc_text="{not json")
    assert code == 2 and "not JSON" in err, (code, err)
    code, out, err = run_cli(None, doc_text="[1, 2]")
    assert code == 2 and "expected a JSON object" in err, (code, err)


# ---------------------------------------------------------------- --per-flow and --compare
@case
def test_per_flow_csv():
    doc = star(3, [(1, 10 * G), (1, 0)], [(0, 2, 0), (1, 2, 1)])
    code, out, err = run_cli(doc, "--per-flow")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out.split("\n", 1)[1])))
    assert [r["flow"] for r in rows] == ["0", "1"], rows
    assert rows[0]["bottleneck"] == "cap" and rows[1]["bottleneck"] == "link:5", rows
    near(float(rows[0]["expected_gbps"]), 10.0, "flow 0 Gb/s", rel=1e-6)
    near(float(rows[1]["expected_gbps"]), C / D / G - 10.0, "flow 1 Gb/s", rel=1e-6)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.csv")
        code, out, err = run_cli(doc, "--per-flow", path)
        assert code == 0 and out.count("\n") == 1, (out, err)   # the RESULT line alone on stdout
        with open(path) as fh:
            assert list(csv.DictReader(fh)) == rows, "the file differs from stdout's CSV"


@case
def test_compare_within_and_beyond_tolerance():
    doc = star(3, [(1, 10 * G), (1, 0)], [(0, 2, 0), (0, 2, 0), (1, 2, 1)])
    e0, e1 = 20.0, C / D / G - 20.0
    ok = f"tenant,measured_gbps\n0,{e0 * 1.01}\n1,{e1 * 0.99}\n"
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", ok))
    assert code == 0, (out, err)
    near(float(result_fields(out)["share_err_pct"]), 1.0, "error of 1 %", rel=1e-3)
    bad = f"tenant,measured_gbps\n0,{e0}\n1,{e1 * 0.97}\n"
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", bad))
    assert code == 1, (code, out, err)
    near(float(result_fields(out)["share_err_pct"]), 3.0, "error of 3 %", rel=1e-3)
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", bad), "--tolerance-pct", "5")
    assert code == 0, (code, out, err)
    # Per-flow rows (a flow column beside tenant) are summed per tenant.
    per_flow = f"flow,tenant,measured_gbps\n0,0,{e0 / 2}\n1,0,{e0 / 2}\n2,1,{e1}\n"
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", per_flow))
    assert code == 0 and float(result_fields(out)["share_err_pct"]) < 1e-3, (out, err)
    # --by-fraction: measured at half the rate everywhere is still the right division.
    half = f"tenant,measured_gbps\n0,{e0 / 2}\n1,{e1 / 2}\n"
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", half), "--by-fraction")
    assert code == 0 and float(result_fields(out)["share_err_pct"]) < 1e-3, (out, err)
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", half))
    assert code == 1, (out, err)
    # A missing tenant counts as 0 (said on stderr); an unknown one or a bad header is an error.
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", f"tenant,measured_gbps\n0,{e0}\n"))
    assert code == 1 and "tenant 1 has flows but no row" in err, (code, err)
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", "tenant,measured_gbps\n7,1\n"))
    assert code == 2 and "tenant 7 is not in the flows file" in err, (code, err)
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", "tenant,gbps\n0,1\n"))
    assert code == 2 and "'measured_gbps'" in err, (code, err)
    code, out, err = run_cli(doc, "--compare", ("file", "m.csv", "tenant,measured_gbps\n0,-1\n"))
    assert code == 2 and ">= 0" in err, (code, err)


print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
