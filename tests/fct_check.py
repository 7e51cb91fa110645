#!/usr/bin/env python3
"""FCT slowdown of open-loop flows against an independent computation (issue 33).

usage: fct_check.py RNIC_MODEL TMPDIR

1. Isolated flows (a flow file: one flow at a time on an idle k = 4 fat tree, 1 B to 10 MB, on
   paths of 2 and 6 hops): the ideal FCT recomputed here from the path's link rates and delays in
   the run's --flows-json (the HPCC simulator's standalone FCT: 2 x the propagation delays + one
   payload's serialization per hop + the wire bytes at the slowest link) equals the CSV's to the
   nanosecond; every FCT is at least its ideal; what the model adds (the NIC's doorbell, WQE and
   payload reads) is between 1 and 3 us and the same within 0.1 us for every flow of at least a
   packet: the model's FCT is the ideal plus a constant, as an idle network should give.
2. The web-search scenario, shortened (Poisson arrivals, contention): the same ideal per flow;
   slowdown = FCT / ideal per flow; the RESULT line's percentiles (p50, p95, p99 of all flows, p99
   of the flows under 100 KB, the HPCC analysis's a[floor(n p)] of the slowdowns taken as at least
   1) recomputed from the per-flow CSV; every flow done; no flow below its ideal; the size
   buckets' CSV recomputed (tenths of the flows by size).
Prints one line per check and ends with "N passed, N failed"."""
import csv
import json
import math
import os
import subprocess
import sys

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def run(model, args):
    out = subprocess.run([model] + args, capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stdout[-2000:], out.stderr[-2000:])
        raise SystemExit(f"rnic_model exited {out.returncode}")
    res = {}
    for line in out.stdout.splitlines():
        if line.startswith("RESULT workload=1"):
            for kv in line.split()[1:]:
                k, v = kv.split("=", 1)
                res[k] = v
    return res


def ideal_ns(js, row):
    """The standalone FCT of a flow on its QP's path, from the JSON's links: integers, as the
    HPCC simulator computes them (ns, each division rounded down)."""
    links = {l["id"]: l for l in js["links"]}
    flows = {f["id"]: f for f in js["flows"]}
    path = flows[int(row["qp"])]["path"]
    payload, overhead = js["payload"], js["wire_overhead"]
    delay = sum(links[i]["delay_ns"] for i in path)
    tx = sum(payload * 8 * 10**9 // links[i]["bps"] for i in path)
    slowest = min(links[i]["bps"] for i in path)
    size = int(row["size_bytes"])
    wire = size + -(-size // payload) * overhead
    return 2 * delay + tx + wire * 8 * 10**9 // slowest, len(path)


def pct(v, p):
    v = sorted(max(1.0, x) for x in v)
    return v[int(len(v) * p)] if v else 0.0


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def isolated(model, tmp):
    conf = os.path.join(tmp, "iso.conf")
    flows = os.path.join(tmp, "iso_flows.txt")
    sizes = [1, 100, 999, 1000, 1001, 4000, 10000, 65536, 100000, 1000000, 3000000, 10000000]
    t = 1000
    with open(flows, "w") as f:
        for i, s in enumerate(sizes):  # host 0 -> 1 (its own edge switch: 2 hops) or -> 15 (6 hops)
            f.write(f"0 {15 if i % 2 else 1} web {s} {t}\n")
            t += 900000 if s >= 1000000 else 30000
    with open(conf, "w") as f:
        f.write("[run]\nduration_us = 12000\nwarmup_us = 100\n"
                f"flow_file = {flows}\n"
                "[topology]\nshape = fat_tree\nk = 4\nlink_gbps = 100\nlink_delay_ns = 1000\n"
                "[host]\nmodel = off\n[nic]\npayload = 1000\n[tenant web]\ntraffic = file\nqps = 1\n")
    fct_csv, js_path = os.path.join(tmp, "iso.csv"), os.path.join(tmp, "iso.json")
    run(model, ["--scenario", conf, "--quiet", "--fct-csv", fct_csv, "--flows-json", js_path])
    with open(js_path) as f:
        js = json.load(f)
    rows = read_csv(fct_csv)
    check("isolated: every flow of the file ran", len(rows) == len(sizes) and all(r["done"] == "1" for r in rows))
    bad, hops, extra = [], set(), []
    for r in rows:
        ideal, h = ideal_ns(js, r)
        hops.add(h)
        if ideal != int(r["ideal_fct_ns"]):
            bad.append((r["id"], ideal, r["ideal_fct_ns"]))
        fct = int(r["fct_ns"])
        if int(r["size_bytes"]) >= 1000:
            extra.append(fct - ideal)
        check(f"isolated: {r['size_bytes']} B flow's FCT {fct} ns is at least its ideal {ideal} ns", fct >= ideal)
    check("isolated: ideal FCT recomputed from the path's rates and delays equals the CSV's", not bad, str(bad[:3]))
    check("isolated: paths of 2 and 6 hops both seen", hops == {2, 6}, str(hops))
    check("isolated: the model adds 1 to 3 us (the NIC's reads) to the ideal",
          extra and 1000 <= min(extra) and max(extra) <= 3000, str(extra))
    check("isolated: ... the same for every size within 0.1 us", extra and max(extra) - min(extra) <= 100, str(extra))
    big = [float(r["slowdown"]) for r in rows if int(r["size_bytes"]) >= 3000000]
    check("isolated: flows of 3 MB and more run within 1 % of their ideal", big and max(big) < 1.01, str(big))


def contention(model, tmp):
    fct_csv, b_csv, js_path = (os.path.join(tmp, n) for n in ("ws.csv", "ws_buckets.csv", "ws.json"))
    res = run(model, ["--scenario", "scenarios/websearch_fattree.conf", "--quiet", "--set", "run.duration_us=3000",
                      "--set", "run.warmup_us=100", "--fct-csv", fct_csv, "--fct-buckets-csv", b_csv,
                      "--flows-json", js_path])
    with open(js_path) as f:
        js = json.load(f)
    rows = read_csv(fct_csv)
    check("web search: flows ran", len(rows) > 50 and str(len(rows)) == res.get("flows"), f"{len(rows)} {res.get('flows')}")
    check("web search: every flow done, every byte delivered",
          all(r["done"] == "1" for r in rows) and res.get("drained") == "1" and res.get("bytes_lost") == "0")
    bad = [r["id"] for r in rows if ideal_ns(js, r)[0] != int(r["ideal_fct_ns"])]
    check("web search: every ideal FCT recomputed equals the CSV's", not bad, str(bad[:5]))
    slow = [int(r["fct_ns"]) / ideal_ns(js, r)[0] for r in rows]
    check("web search: slowdown = FCT / ideal for every flow",
          all(abs(s - float(r["slowdown"])) <= 1e-6 * s for s, r in zip(slow, rows)))
    check("web search: no flow faster than its ideal", min(slow) >= 1.0 and res.get("flows_below_ideal") == "0",
          f"{min(slow)}")
    small = [s for s, r in zip(slow, rows) if int(r["size_bytes"]) < 100000]
    for key, want in (("fct_slowdown_p50", pct(slow, 0.50)), ("fct_slowdown_p95", pct(slow, 0.95)),
                      ("fct_slowdown_p99", pct(slow, 0.99)), ("small_flow_p99", pct(small, 0.99))):
        check(f"web search: RESULT {key} recomputed from the CSV", abs(float(res[key]) - want) < 5e-5,
              f"{res[key]} vs {want:.4f}")
    by_size = sorted(zip((int(r["size_bytes"]) for r in rows), (int(r["id"]) for r in rows), slow))
    n, ok = len(by_size), True
    for b, row in enumerate(read_csv(b_csv)):
        part = by_size[n * b // 10:n * (b + 1) // 10]
        s = [x[2] for x in part]
        ok &= int(row["flows"]) == len(part) and int(row["max_size_bytes"]) == part[-1][0]
        ok &= all(abs(float(row[k]) - pct(s, p)) < 5e-6 for k, p in
                  (("slowdown_p50", 0.5), ("slowdown_p95", 0.95), ("slowdown_p99", 0.99)))
    check("web search: size buckets (tenths of the flows by size) recomputed", ok)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    model, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    isolated(model, tmp)
    contention(model, tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
