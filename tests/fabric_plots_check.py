#!/usr/bin/env python3
"""Checks one `rnic_model --plots DIR` run (examples/rnic_model/fm_plots.h; tests/run.sh's
fabric-plots claim): usage: fabric_plots_check.py DIR RUN_OUTPUT SAMPLE_US [png|noplot]

- the figures: with `png`, every PNG the run printed ("  plots: DIR/x.png DIR/y.png ...") is a PNG (signature,
  IHDR 1000 x 600) of a sensible size, and they are the six of an open-loop run; with `noplot`
  (gnuplot missing) no PNG and no "plots:" line, the script and the CSVs all the same;
- the CSVs have their columns; queue.csv has a row per link (links.csv's rows) per sample and
  tenants.csv one per tenant per sample, the samples every SAMPLE_US us from the window's start
  to its end; util_pct and gbps empty at the window's start only;
- each tenant's Gb/s series, integrated over its periods, is the RESULT line's tenant<i>_gbps
  within 1 %; each link's util_pct series, integrated, is links.csv's util_pct within 0.5 points;
- fct.csv has a row per open-loop flow (RESULT workload=1 flows=), fct_buckets.csv ten buckets;
  pfc_pause.csv holds the ports links.csv shows paused (at most 40), longest first.
Prints one line per check group; exit status 1 on any failure."""
import csv
import os
import struct
import sys

d, out_path, sample_us, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
failed = 0


def check(name, cond, detail=""):
    global failed
    print(f"{'ok' if cond else 'FAIL'} {name}{': ' + detail if detail else ''}")
    failed += 0 if cond else 1


def rows_of(name, columns):
    with open(os.path.join(d, name), newline="") as f:
        r = csv.reader(f)
        head = next(r)
        rows = [dict(zip(head, x)) for x in r]
    check(f"{name} columns", head == columns, ",".join(head))
    return rows


out = open(out_path).read().splitlines()
flows = int(next(l for l in out if l.startswith("RESULT workload=1")).split(" flows=")[1].split()[0])
fabric = dict(kv.partition("=")[::2] for kv in next(l for l in out if l.startswith("RESULT fabric=1")).split()[1:])

names = ["fct_slowdown.png", "queues.png", "link_util.png", "tenant_gbps.png", "pfc_pause.png", "cnps_vs_size.png"]
printed = [p for l in out if l.startswith("  plots: ") for p in l.split()[1:]]
if mode == "png":
    check("the six figures printed", [os.path.basename(p) for p in printed] == names, " ".join(printed))
    for p in printed:
        with open(p, "rb") as f:
            head = f.read(24)
        size = os.path.getsize(p)
        w, h = struct.unpack(">II", head[16:24]) if len(head) == 24 else (0, 0)
        check(f"{os.path.basename(p)} is a PNG", head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR" and
              (w, h) == (1000, 600) and 8000 < size < 4000000, f"{w}x{h}, {size} bytes")
else:
    check("no figure without gnuplot", not printed and not [n for n in os.listdir(d) if n.endswith(".png")])
check("plots.gp written", os.path.getsize(os.path.join(d, "plots.gp")) > 500)

links = rows_of("links.csv", ["link", "from", "to", "line_gbps", "util_pct", "queue_max_kb", "ce_marks", "drops",
                              "paused_us"])
queue = rows_of("queue.csv", ["t_us", "link", "from", "to", "queue_bytes", "util_pct"])
tenants = rows_of("tenants.csv", ["t_us", "tenant", "name", "gbps"])
fct = rows_of("fct.csv", ["id", "src", "dst", "tenant", "protocol", "size_bytes", "start_ns", "fct_ns", "ideal_fct_ns",
                          "slowdown", "qp", "cnps", "done"])
buckets = rows_of("fct_buckets.csv", ["bucket", "max_size_bytes", "flows", "slowdown_p50", "slowdown_p95",
                                      "slowdown_p99"])
pfc = rows_of("pfc_pause.csv", ["link", "port", "paused_us"])

ntenants = int(fabric["tenants"])
times = sorted({float(r["t_us"]) for r in queue})
steps = {round(b - a, 3) for a, b in zip(times, times[1:])}
check("samples every queue_sample_us", steps == {sample_us}, f"{len(times)} samples, steps {sorted(steps)}")
check("queue.csv: links x samples", len(queue) == len(links) * len(times), f"{len(queue)} = {len(links)} x {len(times)}")
check("tenants.csv: tenants x samples", len(tenants) == ntenants * len(times) and
      sorted({float(r["t_us"]) for r in tenants}) == times, f"{len(tenants)} = {ntenants} x {len(times)}")
check("util_pct, gbps empty at the window's start only",
      all((r["util_pct"] == "") == (float(r["t_us"]) == times[0]) for r in queue) and
      all((r["gbps"] == "") == (float(r["t_us"]) == times[0]) for r in tenants))

window = times[-1] - times[0]


def integral(rows, key, value):
    tot, last = {}, {}
    for r in rows:
        k, t = r[key], float(r["t_us"])
        if r[value] != "":
            tot[k] = tot.get(k, 0.0) + float(r[value]) * (t - last[k])
        last[k] = t
    return {k: v / window for k, v in tot.items()}


g = integral(tenants, "tenant", "gbps")
errs = [abs(g[str(t)] - float(fabric[f"tenant{t}_gbps"])) / max(float(fabric[f"tenant{t}_gbps"]), 1e-9) * 100
        for t in range(ntenants)]
check("tenant series integrate to tenant<i>_gbps within 1 %", ntenants > 0 and max(errs) <= 1.0 and
      all(float(fabric[f"tenant{t}_gbps"]) > 0 for t in range(ntenants)),
      " ".join(f"tenant{t} {g[str(t)]:.3f} vs {fabric[f'tenant{t}_gbps']}" for t in range(ntenants)))
u = integral(queue, "link", "util_pct")
worst = max(abs(u[r["link"]] - float(r["util_pct"])) for r in links)
check("util_pct series integrate to links.csv's within 0.5 points", worst <= 0.5, f"worst {worst:.4f}")

check("fct.csv: a row per open-loop flow", len(fct) == flows and flows > 0, f"{len(fct)} rows, flows={flows}")
check("fct_buckets.csv: ten buckets", len(buckets) == 10 and sum(int(b["flows"]) for b in buckets) ==
      sum(r["done"] == "1" for r in fct))
paused = sorted((float(r["paused_us"]) for r in links if float(r["paused_us"]) > 0), reverse=True)[:40]
check("pfc_pause.csv: the ports that paused, longest first",
      [round(float(r["paused_us"]), 3) for r in pfc] == [round(p, 3) for p in paused], f"{len(pfc)} ports")
sys.exit(1 if failed else 0)
