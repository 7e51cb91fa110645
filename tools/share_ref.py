#!/usr/bin/env python3
"""share_ref: the expected payload rate of every flow and tenant of a composed-RNIC run, computed
outside the model (issue 30, "Done when") from the flows and links the model writes with
`--flows-json FILE`. Python 3, standard library only. docs/share_reference.md is the manual.

usage: tools/share_ref.py FLOWS.json [--per-flow [CSV]] [--compare MEASURED.csv]
                          [--tolerance-pct 2] [--by-fraction] [--ack-priority]
prints  RESULT share_ref=1 flows=N tenants=T tenant<id>_gbps=... total_gbps=...
        [share_err_pct=E tolerance_pct=X]   (with --compare)
exit    0 fine; 1 --compare found a tenant further than --tolerance-pct from its expected share;
        2 bad input (a clear message on stderr); 3 the fixed point below did not converge.

The model (every choice, and why):
- Rates are payload rates (b/s of payload). A flow at payload rate r puts
  r * (payload + wire_overhead) / payload wire bits/s on every link of its `path` and
  r * ack_wire / payload on every link of its `ack_path` (one ACK per data packet; a flow's own
  `ack_wire`, when it has one, is its ACK bytes per data packet: a responder that coalesces ACKs
  sends fewer). A link carries
  at most its `bps` of wire bits. A link listed twice for one flow (path and ack_path) carries both.
- Caps first: a flow never exceeds its tenant's `cap_bps` (per QP, payload; 0 = none).
- The sending NIC (its `uplink`, the first link of each of its flows' paths): Palos divides the
  NIC's data capacity among tenants by weight, and a tenant's part equally among its flows there,
  work-conserving at both levels (hierarchical weighted water-filling: what a tenant or a flow does
  not use goes to the others in proportion to their weights). The NIC's data capacity is the
  uplink's bps less the ACKs its responder sends on it, in payload units: the responder's ACKs
  leave through the MAC ahead of Palos's data (strict priority, up to the whole link), so they
  come off the top; the flows they acknowledge freeze at an uplink only when those ACKs alone
  fill it (resource `acks:<uplink id>`), not whenever the uplink is full (the one place the
  "freeze on the ACK path" rule below does not apply).
- Every other link (the network) and every receiving host's memory: congestion control divides
  them per flow, unweighted max-min. A flow counts on a link if its data or its ACKs cross it
  (the ACK bytes at their own per-byte weight); when the link saturates every flow on it that is
  still rising freezes, including one that only sends ACKs there (issue 30's rule). With
  --ack-priority, ACKs go first on every link as at an uplink (the fabric's switches serve
  control packets at strict priority, and congestion control marks data, not ACKs): only data
  counts in a link's max-min, ACK bytes come off its top, and ACKs hold the flows they acknowledge
  only where ACKs alone fill a link. `host_rx_bps` > 0 caps each
  receiving host's absorbed payload (the sum over the flows whose dst is that host, coefficient 1),
  shared max-min among its incoming flows like a link.
- The combination, a fixed point. Let G_f(r) be the rate the NIC scheduler gives flow f when f is
  backlogged and every other flow g at the same NIC asks only r_g (the hierarchical weighted rule
  above; the NIC's ACK load taken from r too). Let W(b) be per-flow max-min water-filling over the
  network links and receiving hosts with flow f never above b_f. The answer is
      r = W( min(cap, G(r)) ),
  iterated from r = cap (or unbounded) for the demands and, for the ACK load, the NICs' own
  division with every flow backlogged (its fixed point: the ACKs of what that division sends); the first round
  takes W's answer whole, later rounds move each flow's demand its own step of the way to it
  (damped: undamped, the NIC and the network can answer each other in turn and cycle between two
  points): a flow's step starts at 1/2, halves when its answer swings back (down to 1/1024),
  grows by 1.25 (up to 1) while its answer keeps moving the same way, and the iteration stops
  when no rate moves by more than 1e-9 of the fastest link's bps. After 20,000 rounds a second
  schedule starts over that also halves every step after a round that moved the rates more than
  the one before; exit 3 if that does not converge either.
  Why this is the hardware: Palos is work-conserving and gives a backlogged QP its weighted share
  of what the others leave (G); congestion control then settles each QP at its max-min share of
  the network, never above what its NIC lets it send (W with bound G); a QP that congestion
  control holds below its NIC share asks the NIC for less, and the others take the difference (G
  at the next step). Starting from the NIC's division with every QP backlogged picks, where both
  could hold, the answer in which the upstream NIC's weights stand: a downstream link that carries
  exactly what one NIC shaped (one sender, one receiver, a switch between) is full but never
  queues, so congestion control does not redivide it.
- Bottleneck of a flow (the per-flow CSV): `cap`, `nic:<uplink id>` (its NIC share binds),
  `link:<id>`, `host_rx:<host>`, `acks:<link id>` (the resource that froze it in W); caps
  first, then the NIC.
- A tenant's rate is the sum over its flows; a tenant without flows has 0 and is not compared.
- --compare reads a CSV with a header naming at least `tenant` and `measured_gbps` (per tenant, or
  per flow: rows of one tenant are summed), share_err_pct = max over tenants with flows of
  |measured - expected| / expected * 100 (expected 0: 0 if measured is 0, else infinite). A tenant
  with flows but no row counts as measured 0 (stderr says so). --by-fraction compares each
  tenant's fraction of the total instead (of what the receivers absorbed, issue 30's default run).
"""
import argparse
import csv
import json
import math
import sys

EPS = 1e-12          # relative: a resource within EPS of full is full, a flow within EPS of its bound is bound
MAX_ROUNDS = 20000   # fixed-point rounds before giving up with exit 3
DAMPING = 0.5        # each flow's first damped step: how far its demand moves toward its new rate
MIN_STEP = 1 / 1024  # the smallest a flow's step becomes after halving
GROW = 1.25          # a flow's step grows by this (up to 1) while its rate keeps moving the same way
CONVERGED = 1e-9     # done when no rate moves by more than this fraction of the fastest link
INF = math.inf


class InputError(Exception):
    """Bad input: reported on stderr, exit 2."""


# ---------------------------------------------------------------- reading and validating the input
def _number(obj, key, where, minimum=None, positive=False, integer=False):
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise InputError(f"{where}: missing key '{key}'")
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{where}: '{key}' must be a number, got {json.dumps(v)}")
    if isinstance(v, float) and not math.isfinite(v):
        raise InputError(f"{where}: '{key}' must be finite, got {v}")
    if integer and not (isinstance(v, int) or float(v).is_integer()):
        raise InputError(f"{where}: '{key}' must be an integer, got {v}")
    if positive and v <= 0:
        raise InputError(f"{where}: '{key}' must be > 0, got {v}")
    if minimum is not None and v < minimum:
        raise InputError(f"{where}: '{key}' must be >= {minimum}, got {v}")
    return int(v) if integer else v


def _list(obj, key, where):
    if key not in obj:
        raise InputError(f"{where}: missing key '{key}'")
    v = obj[key]
    if not isinstance(v, list):
        raise InputError(f"{where}: '{key}' must be a list, got {type(v).__name__}")
    return v


def load(doc):
    """Validates the parsed JSON and returns the problem as a dict (raises InputError)."""
    if not isinstance(doc, dict):
        raise InputError("top level: expected a JSON object")
    payload = _number(doc, "payload", "top level", positive=True, integer=True)
    overhead = _number(doc, "wire_overhead", "top level", minimum=0)
    ack_wire = _number(doc, "ack_wire", "top level", minimum=0)
    host_rx = _number(doc, "host_rx_bps", "top level", minimum=0) if "host_rx_bps" in doc else 0
    for key in ("links", "nics", "tenants", "flows"):
        _list(doc, key, "top level")

    links = {}
    for i, link in enumerate(doc["links"]):
        where = f"links[{i}]"
        lid = _number(link, "id", where, minimum=0, integer=True)
        bps = _number(link, "bps", where, positive=True)
        for end in ("from", "to"):
            if end in link and not isinstance(link[end], str):
                raise InputError(f"{where}: '{end}' must be a string")
        if lid in links:
            raise InputError(f"{where}: duplicate link id {lid}")
        links[lid] = float(bps)

    uplink_of, host_of_uplink = {}, {}
    for i, nic in enumerate(doc["nics"]):
        where = f"nics[{i}]"
        host = _number(nic, "host", where, minimum=0, integer=True)
        up = _number(nic, "uplink", where, minimum=0, integer=True)
        if host in uplink_of:
            raise InputError(f"{where}: duplicate host {host}")
        if up not in links:
            raise InputError(f"{where}: uplink {up} is not a link id")
        if up in host_of_uplink:
            raise InputError(f"{where}: uplink {up} is already host {host_of_uplink[up]}'s")
        uplink_of[host], host_of_uplink[up] = up, host

    tenants = {}
    for i, t in enumerate(doc["tenants"]):
        where = f"tenants[{i}]"
        tid = _number(t, "id", where, minimum=0, integer=True)
        weight = _number(t, "weight", where, positive=True)
        cap = _number(t, "cap_bps", where, minimum=0)
        if tid in tenants:
            raise InputError(f"{where}: duplicate tenant id {tid}")
        tenants[tid] = {"weight": float(weight), "cap": float(cap) if cap > 0 else INF}

    flows, seen = [], set()
    for i, f in enumerate(doc["flows"]):
        where = f"flows[{i}]"
        fid = _number(f, "id", where, minimum=0, integer=True)
        src = _number(f, "src", where, minimum=0, integer=True)
        dst = _number(f, "dst", where, minimum=0, integer=True)
        tid = _number(f, "tenant", where, minimum=0, integer=True)
        if fid in seen:
            raise InputError(f"{where}: duplicate flow id {fid}")
        seen.add(fid)
        if src == dst:
            raise InputError(f"{where}: src and dst are both host {src}")
        if tid not in tenants:
            raise InputError(f"{where}: tenant {tid} is not in 'tenants'")
        if src not in uplink_of:
            raise InputError(f"{where}: src host {src} has no entry in 'nics'")
        path, ack_path = _list(f, "path", where), _list(f, "ack_path", where)
        for name, ids in (("path", path), ("ack_path", ack_path)):
            for j, lid in enumerate(ids):
                if isinstance(lid, bool) or not isinstance(lid, int):
                    raise InputError(f"{where}: {name}[{j}] must be a link id (integer), got {json.dumps(lid)}")
                if lid not in links:
                    raise InputError(f"{where}: {name}[{j}] = {lid} is not a link id")
            if len(set(ids)) != len(ids):
                raise InputError(f"{where}: {name} crosses a link twice (a loop)")
        if not path:
            raise InputError(f"{where}: path is empty")
        if path[0] != uplink_of[src]:
            raise InputError(f"{where}: path starts at link {path[0]}, not at host {src}'s uplink {uplink_of[src]}")
        for lid in path[1:]:
            if lid in host_of_uplink:
                raise InputError(f"{where}: path crosses host {host_of_uplink[lid]}'s uplink {lid} after its first link")
        # a flow's own ACK bytes per data packet (a responder that coalesces ACKs: fewer), else the top level's
        f_ack = _number(f, "ack_wire", where, minimum=0) if "ack_wire" in f else ack_wire
        flows.append({"id": fid, "src": src, "dst": dst, "tenant": tid, "path": path, "ack_path": ack_path,
                      "ack_coef": f_ack / payload})

    return {"payload": payload, "data_coef": (payload + overhead) / payload, "ack_coef": ack_wire / payload,
            "host_rx": float(host_rx), "links": links, "uplink_of": uplink_of,
            "host_of_uplink": host_of_uplink, "tenants": tenants, "flows": flows}


# ---------------------------------------------------------------- the two sharing rules
def water_fill(capacity, demands, weights):
    """Weighted water-filling: item i gets min(demands[i], weights[i] * level), the level chosen so
    that the items use the whole capacity or all are satisfied. Returns the allocations."""
    alloc = [0.0] * len(demands)
    order = sorted(range(len(demands)), key=lambda i: demands[i] / weights[i])
    left, weight_left = max(capacity, 0.0), sum(weights)
    for k, i in enumerate(order):
        fair = left * weights[i] / weight_left
        if demands[i] <= fair:
            alloc[i] = demands[i]
            left -= demands[i]
            weight_left -= weights[i]
        else:  # every item from here on is limited by the level, not its demand
            for j in order[k:]:
                alloc[j] = left * weights[j] / weight_left
            break
    return alloc


def greedy_equal_shares(budget, demands):
    """For each item i: what it gets when the budget is divided equally (work-conserving) among
    all the items, i asking without limit and every other item j asking demands[j]. O(n log n):
    with the others sorted, i's level phi solves sum_j min(e_j, phi) + phi = budget."""
    m = len(demands)
    if m == 0 or budget <= 0:
        return [0.0] * m
    capped = [min(d, budget) for d in demands]       # asking more than the budget is asking without limit
    order = sorted(range(m), key=lambda i: capped[i])
    s = [capped[i] for i in order]
    prefix = [0.0] * (m + 1)
    for k in range(m):
        prefix[k + 1] = prefix[k] + s[k]
    offer = [0.0] * m
    for p, i in enumerate(order):                    # i sits at sorted position p
        def e(j):                                     # the others, sorted
            return s[j] if j < p else s[j + 1]

        def r(k):                                     # the sum of the k smallest others
            return prefix[k] if k <= p else prefix[k + 1] - s[p]

        # h(k) = r(k) + (m - k) e(k - 1) is non-decreasing; the largest k with h(k) <= budget is
        # the number of others below i's level.
        lo, hi = 0, m - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if r(mid) + (m - mid) * e(mid - 1) <= budget:
                lo = mid
            else:
                hi = mid - 1
        offer[i] = (budget - r(lo)) / (m - lo)
    return offer


def network_maxmin(resources, bounds):
    """Per-flow max-min water-filling with upper bounds. resources: list of (name, capacity,
    {flow index: coefficient}); all rising flows rise together, a resource that fills freezes
    every rising flow on it. Returns (rates, frozen_by) with frozen_by[i] a resource name or None
    (its bound)."""
    n = len(bounds)
    rate, frozen_by = [0.0] * n, [None] * n
    on = [[] for _ in range(n)]                      # per flow: (resource index, coefficient)
    for k, (_, _, coef) in enumerate(resources):
        for i, c in coef.items():
            on[i].append((k, c))
    active = [0.0] * len(resources)                  # sum of the rising flows' coefficients
    rising_on = [0] * len(resources)                 # how many rising flows cross it
    frozen_load = [0.0] * len(resources)
    rising = set()
    for i in range(n):
        if bounds[i] > 0:
            rising.add(i)
            for k, c in on[i]:
                active[k] += c
                rising_on[k] += 1
    by_bound = sorted(rising, key=lambda i: bounds[i])
    next_bound, level = 0, 0.0

    def freeze(i, value, why):
        rate[i], frozen_by[i] = value, why
        rising.discard(i)
        for k, c in on[i]:
            active[k] -= c
            rising_on[k] -= 1
            frozen_load[k] += c * value

    while rising:
        while by_bound[next_bound] not in rising:  # skip flows frozen by a resource
            next_bound += 1
        step = bounds[by_bound[next_bound]]
        levels = {}
        for k, (_, cap, _) in enumerate(resources):
            if rising_on[k]:
                levels[k] = max(cap - frozen_load[k], 0.0) / active[k] if active[k] > 0 else INF
                step = min(step, levels[k])
        if step == INF:
            raise InputError("a flow has neither a bound nor a finite resource")
        level = max(level, step)
        tol = level * EPS * 16 + EPS
        for i in by_bound[next_bound:]:
            if bounds[i] > level + tol:
                break
            if i in rising:
                freeze(i, bounds[i], None)
        for k, lvl in levels.items():
            if lvl <= level + tol:
                for i in list(resources[k][2]):
                    if i in rising:
                        freeze(i, level, resources[k][0])
    return rate, frozen_by


# ---------------------------------------------------------------- the fixed point
def solve(prob, ack_priority=False):
    """Returns (rates per flow in b/s of payload, bottleneck label per flow); raises
    RuntimeError when the fixed point does not converge. ack_priority: ACKs go first on every
    link, not only at uplinks (see the docstring at the top)."""
    flows, links, dc = prob["flows"], prob["links"], prob["data_coef"]
    n = len(flows)
    cap = [prob["tenants"][f["tenant"]]["cap"] for f in flows]
    uplinks = set(prob["host_of_uplink"])

    # Network resources: every link but the NIC uplinks, then each receiving host's memory. A
    # link where ACKs go first (every uplink; every link with ack_priority) loses their bytes off
    # the top and holds the flows they acknowledge only when those ACKs alone would fill it.
    on_link, acks_first = {}, {}
    for i, f in enumerate(flows):
        for lid in f["path"][1:]:
            on_link.setdefault(lid, {})
            on_link[lid][i] = on_link[lid].get(i, 0.0) + dc
        fac = f["ack_coef"]
        for lid in f["ack_path"]:
            if fac <= 0:
                continue
            if lid in uplinks or ack_priority:
                acks_first.setdefault(lid, {})[i] = fac
            else:
                on_link.setdefault(lid, {})
                on_link[lid][i] = on_link[lid].get(i, 0.0) + fac
    link_ids = sorted(on_link)
    resources = [(f"link:{lid}", links[lid], on_link[lid]) for lid in link_ids]
    resources += [(f"acks:{lid}", links[lid], acks_first[lid]) for lid in sorted(acks_first)]
    if prob["host_rx"] > 0:
        by_dst = {}
        for i, f in enumerate(flows):
            by_dst.setdefault(f["dst"], {})[i] = 1.0
        resources += [(f"host_rx:{h}", prob["host_rx"], by_dst[h]) for h in sorted(by_dst)]

    def network(bound, ack_rate):
        """W: the data capacity of a network link is its bps less the ACKs that go first on it."""
        if not ack_priority:
            return network_maxmin(resources, bound)
        now = list(resources)
        for k, lid in enumerate(link_ids):
            if lid in acks_first:
                load = sum(c * ack_rate[i] for i, c in acks_first[lid].items())
                now[k] = (now[k][0], max(links[lid] - load, 0.0), now[k][2])
        return network_maxmin(now, bound)

    tenant_weight = {t: v["weight"] for t, v in prob["tenants"].items()}
    members = {}                                      # per NIC: tenant -> its flows there
    for i, f in enumerate(flows):
        members.setdefault(f["path"][0], {}).setdefault(f["tenant"], []).append(i)

    def nic_offers(demand, ack_rate):
        """G: each flow's share of its NIC when it is backlogged and the others ask `demand`."""
        offer = [INF] * n
        for up, by_tenant in members.items():
            ack_load = sum(c * ack_rate[i] for i, c in acks_first.get(up, {}).items())
            capacity = max(links[up] - ack_load, 0.0) / dc
            tids = sorted(by_tenant)
            asks = [min(sum(min(demand[i], capacity) for i in by_tenant[t]), capacity) for t in tids]
            weights = [tenant_weight[t] for t in tids]
            for k, t in enumerate(tids):
                # A backlogged flow makes its tenant backlogged; the tenant's part is then split
                # equally among its flows, the backlogged one asking without limit.
                tenant_asks = asks[:k] + [capacity] + asks[k + 1:]
                part = water_fill(capacity, tenant_asks, weights)[k]
                idx = by_tenant[t]
                for i, o in zip(idx, greedy_equal_shares(part, [demand[i] for i in idx])):
                    offer[i] = o
        return offer

    scale = max(links.values()) if links else 1.0

    def nic_division():
        """The NIC's division with every flow backlogged (capped), its ACK load the ACKs of what
        every NIC sends at that division: the fixed point of a contraction (an ACK costs
        ack_coef / data_coef of a data byte), so the ACK load the iteration starts from is the
        one the NICs' own division makes. Starting from no ACK load instead starts each NIC
        above its division, and where a downstream link carries exactly what the NICs shaped
        (a tie: both its max-min and the NICs' weights could hold) the iteration then settles
        short of the weights."""
        ack_rate = [0.0] * n
        for _ in range(MAX_ROUNDS):
            nxt = [min(c, o) for c, o in zip(cap, nic_offers(cap, ack_rate))]
            nxt = [x if x < INF else 0.0 for x in nxt]
            if max((abs(a - b) for a, b in zip(nxt, ack_rate)), default=0.0) <= CONVERGED * scale:
                return nxt
            ack_rate = nxt
        return ack_rate

    def iterate(halve_all_when_worse):
        """The damped fixed-point iteration; returns (rate, frozen_by, offer) or None."""
        demand, ack_rate, rounds = cap[:], nic_division(), 0
        step, last, last_residual = [DAMPING] * n, [0.0] * n, INF
        while True:
            offer = nic_offers(demand, ack_rate)
            rate, frozen_by = network([min(c, o) for c, o in zip(cap, offer)], ack_rate)
            move = [r - d for r, d in zip(rate, demand)]
            residual = max((abs(m) for m in move), default=0.0)
            if rounds and residual <= CONVERGED * scale:
                return rate, frozen_by, offer
            rounds += 1
            if rounds > MAX_ROUNDS:
                return None
            if rounds == 1:                           # the first round takes W's answer whole
                demand = rate[:]
            else:
                # Each flow moves its own step of the way: a flow whose answer swings back halves
                # its step, one whose answer keeps moving the same way lengthens it; the second
                # schedule also halves every step after a round that moved more than the last.
                worse = halve_all_when_worse and residual > last_residual
                for i in range(n):
                    if move[i] * last[i] < 0 or worse:
                        step[i] = max(step[i] / 2, MIN_STEP)
                    elif move[i] * last[i] > 0:
                        step[i] = min(step[i] * GROW, 1.0)
                    demand[i] += step[i] * move[i]
            last, last_residual = move, residual
            ack_rate = demand

    found = iterate(False) or iterate(True)
    if found is None:
        raise RuntimeError(f"no fixed point after {MAX_ROUNDS} rounds with either step schedule")
    rate, frozen_by, offer = found

    labels = []
    for i, f in enumerate(flows):
        tol = EPS * 16 * max(rate[i], 1.0) + CONVERGED * scale
        if cap[i] < INF and rate[i] >= cap[i] - tol:
            labels.append("cap")
        elif frozen_by[i] is None or rate[i] >= offer[i] - tol:
            labels.append(f"nic:{f['path'][0]}")
        else:
            labels.append(frozen_by[i])
    return rate, labels


# ---------------------------------------------------------------- comparing with a measurement
def read_measured(path, tenant_ids):
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or "tenant" not in reader.fieldnames or "measured_gbps" not in reader.fieldnames:
                raise InputError(f"{path}: the header must name 'tenant' and 'measured_gbps'")
            measured = {}
            for line, row in enumerate(reader, start=2):
                try:
                    tid, gbps = int(row["tenant"]), float(row["measured_gbps"])
                except (TypeError, ValueError):
                    raise InputError(f"{path}:{line}: tenant must be an integer and measured_gbps a number")
                if not math.isfinite(gbps) or gbps < 0:
                    raise InputError(f"{path}:{line}: measured_gbps must be a finite number >= 0")
                if tid not in tenant_ids:
                    raise InputError(f"{path}:{line}: tenant {tid} is not in the flows file")
                measured[tid] = measured.get(tid, 0.0) + gbps
            return measured
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")


def share_error(expected, measured, by_fraction):
    """expected, measured: {tenant: gbps} over the tenants compared. Returns (max error %, per tenant)."""
    if by_fraction:
        te, tm = sum(expected.values()), sum(measured.values())
        expected = {t: (v / te if te > 0 else 0.0) for t, v in expected.items()}
        measured = {t: (v / tm if tm > 0 else 0.0) for t, v in measured.items()}
    errs = {}
    for t, e in expected.items():
        m = measured[t]
        errs[t] = abs(m - e) / e * 100 if e > 0 else (0.0 if m == 0 else INF)
    return max(errs.values(), default=0.0), errs


def main(argv=None):
    ap = argparse.ArgumentParser(description="The expected payload rate of every flow and tenant of a composed-RNIC "
                                 "run, from the model's --flows-json file (docs/share_reference.md).")
    ap.add_argument("flows_json", metavar="FLOWS.json")
    ap.add_argument("--per-flow", nargs="?", const="-", metavar="CSV",
                    help="write flow,tenant,expected_gbps,bottleneck to CSV (default stdout)")
    ap.add_argument("--compare", metavar="MEASURED.csv", help="tenant,measured_gbps rows: print share_err_pct=")
    ap.add_argument("--tolerance-pct", type=float, default=2.0, help="--compare exits 1 above this (default 2)")
    ap.add_argument("--ack-priority", action="store_true",
                    help="ACKs go first on every link (switches' strict priority), not only at uplinks")
    ap.add_argument("--by-fraction", action="store_true",
                    help="compare each tenant's fraction of the total, not its Gb/s")
    args = ap.parse_args(argv)
    try:
        try:
            with open(args.flows_json, encoding="utf-8") as fh:
                doc = json.load(fh)
        except OSError as e:
            raise InputError(f"{args.flows_json}: {e.strerror}")
        except ValueError as e:
            raise InputError(f"{args.flows_json}: not JSON: {e}")
        prob = load(doc)
        if not math.isfinite(args.tolerance_pct) or args.tolerance_pct < 0:
            raise InputError("--tolerance-pct must be a number >= 0")
        try:
            rate, labels = solve(prob, args.ack_priority)
        except RuntimeError as e:
            print(f"share_ref: {e}", file=sys.stderr)
            return 3
        flows = prob["flows"]
        tenant_gbps = {t: 0.0 for t in sorted(prob["tenants"])}
        for f, r in zip(flows, rate):
            tenant_gbps[f["tenant"]] += r / 1e9
        fields = [f"share_ref=1 flows={len(flows)} tenants={len(tenant_gbps)}"]
        fields += [f"tenant{t}_gbps={g:.6f}" for t, g in tenant_gbps.items()]
        fields.append(f"total_gbps={sum(rate) / 1e9:.6f}")
        status, notes = 0, []
        if args.compare:
            with_flows = {f["tenant"] for f in flows}
            measured = read_measured(args.compare, set(prob["tenants"]))
            for t in sorted(with_flows - set(measured)):
                notes.append(f"share_ref: tenant {t} has flows but no row in {args.compare}; counted as 0")
            expected = {t: tenant_gbps[t] for t in sorted(with_flows)}
            got = {t: measured.get(t, 0.0) for t in expected}
            worst, errs = share_error(expected, got, args.by_fraction)
            te, tm = sum(expected.values()), sum(got.values())
            for t in expected:
                if args.by_fraction:  # the error is of the fractions: print them, not only the Gb/s
                    notes.append(f"share_ref: tenant {t} expected_fraction={expected[t] / te if te else 0:.6f} "
                                 f"measured_fraction={got[t] / tm if tm else 0:.6f} err_pct={errs[t]:.3f} "
                                 f"(expected_gbps={expected[t]:.6f} measured_gbps={got[t]:.6f})")
                else:
                    notes.append(f"share_ref: tenant {t} expected_gbps={expected[t]:.6f} measured_gbps={got[t]:.6f} "
                                 f"err_pct={errs[t]:.3f}")
            fields.append(f"share_err_pct={worst:.3f} tolerance_pct={args.tolerance_pct:g}")
            status = 1 if worst > args.tolerance_pct else 0
        if args.per_flow and args.per_flow != "-":
            try:
                out = open(args.per_flow, "w", newline="", encoding="utf-8")
            except OSError as e:
                raise InputError(f"{args.per_flow}: {e.strerror}")
        else:
            out = None
    except InputError as e:
        print(f"share_ref: {e}", file=sys.stderr)
        return 2
    for note in notes:
        print(note, file=sys.stderr)
    print("RESULT " + " ".join(fields))
    if args.per_flow:
        sink = out or sys.stdout
        w = csv.writer(sink, lineterminator="\n")
        w.writerow(["flow", "tenant", "expected_gbps", "bottleneck"])
        for f, r, b in zip(flows, rate, labels):
            w.writerow([f["id"], f["tenant"], f"{r / 1e9:.6f}", b])
        if out:
            out.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
